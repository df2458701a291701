"""Reading rules drawn from the wild21/wild22 collections: epoch-average dicts, rate column names,
named parts of an eval set (`test-clean`), `[train] ... [valid]` on one line, minute clocks and
`P<pid>` before the level, banners that head a block, wrapped tails, `@epoch`, `[Metrics]` tags,
results kept as comments, ctime tails, notebook timings, whole-run durations, `Validation of Epoch`,
pandas frames, one-blank rows, bracketed postfix items, values before a dict, logging's default
prefix, results banners, starred comma headers, spaced durations, fairseq's overflow notices and
RecBole's bars and ranking metrics. Every log here is written for the test."""

from __future__ import annotations

import math

from triage.ingest.aliases import table
from written_log import read_written as _read


def test_an_end_of_epoch_train_dict_with_its_lr_is_a_record_not_the_run_summary(tmp_path):
    lines = []
    for e in range(1, 4):
        lines.append(f'[2021-03-0{e} 10:00:00,000][valid][INFO] - {{"epoch": {e}, "valid_loss": "{50 - e}.5", '
                     f'"valid_wer": "{90 - e * 5}.1"}}')
        lines.append(f'[2021-03-0{e} 10:00:01,000][train][INFO] - {{"epoch": {e}, "train_loss": "{60 - e}.25", '
                     f'"train_lr": "{e}e-05", "train_gnorm": "{10 + e}.5"}}')
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 6
    assert list(run.get("loss").values) == [59.25, 58.25, 57.25]


def test_a_rate_column_name_with_per_is_a_header_cell(tmp_path):
    lines = ["Step | Training Loss | Validation Loss | Accuracy | Samples Per Second",
             "-- | -- | -- | -- | --",
             "100 | 2.500000 | 2.400000 | 0.310000 | 12.500000",
             "200 | 2.100000 | 2.050000 | 0.420000 | 12.700000"]
    run = _read(tmp_path, lines, "table.md")
    assert run.meta["rows"] == 2
    assert list(run.get("loss").values) == [2.5, 2.1]
    assert list(run.get("eval/loss").steps) == [100, 200]


def test_a_split_joined_by_a_hyphen_to_a_part_of_the_data_names_an_eval_set(tmp_path):
    lines = []
    for a, b in [(30.5, 45.25), (20.5, 35.75)]:
        lines.append(f"[test-clean-beam4] %WER {a:.2f}% [{int(a * 100)} / 10000, 10 ins, 20 del, 30 sub ]")
        lines.append(f"[test-other-beam4] %WER {b:.2f}% [{int(b * 100)} / 10000, 11 ins, 21 del, 31 sub ]")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert list(run.get("eval/test_clean_beam4/wer").values) == [30.5, 20.5]
    assert list(run.get("eval/test_other_beam4/wer").values) == [45.25, 35.75]
    assert table().resolve("dev-other-loss", "text").name == "eval/dev_other/loss"


def test_train_and_valid_tags_on_one_line_split_its_keys(tmp_path):
    lines = [f"{e}epoch results: [train] loss={3 - e / 10:.2f}, lr=1e-3, [valid] loss={2 - e / 10:.2f}, acc=0.{e}"
             for e in range(1, 4)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [2.9, 2.8, 2.7]
    assert list(run.get("eval/loss").values) == [1.9, 1.8, 1.7]
    assert "eval/learning_rate" not in run.series


def test_a_minute_clock_after_the_level_is_no_step(tmp_path):
    lines = [f"[INFO] 10:{m // 2:02d}: [agent[worker: 0]] | rollout/ep_rew_mean = {m * 1.5} | "
             f"train/loss = {9.0 - m / 10:.1f} |" for m in range(1, 5)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert list(run.get("loss").values) == [8.9, 8.8, 8.7, 8.6]  # (no two lines share a step)


def test_spelled_out_kl_and_a_value_function_loss_are_known():
    assert table().resolve("KL divergence", "text").name == "kl"
    assert table().resolve("ValFuncLoss", "text").name == "value_loss"


def test_a_banner_with_a_counter_heads_the_block_of_one_value_lines(tmp_path):
    lines = []
    for ep in (10, 20):
        lines += [f"***** Episode {ep}, Mean R = {ep * 3.5} *****", "Beta: 1.5", f"KL: 0.0{ep // 10}",
                  "PolicyLoss: -0.25", f"ValFuncLoss: {ep + 0.5}", ""]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert list(run.get("value_loss").steps) == [10, 20]
    assert list(run.get("kl").values) == [0.01, 0.02]


def test_the_wrapped_tail_of_a_parenthesis_is_no_record(tmp_path):
    lines = ["#" * 40, "      Learning iteration 10/100", "",
             "   Computation: 1000 steps/s (collection: 1.5s, learning", "0.25s)",
             "   Value function loss: 0.5000", "   Mean reward: 12.00"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    assert "step_time" not in run.series
    assert list(run.get("episode_reward").steps) == [10]


def test_a_process_id_with_a_p_before_the_level_is_a_prefix(tmp_path):
    lines = []
    for e in (1, 2, 3):
        lines += [f"2024-01-0{e} 09:00:00,000 P12345 INFO ********** Epoch={e} start **********",
                  f"2024-01-0{e} 10:00:00,000 P12345 INFO Train loss: 0.4{e}",
                  f"2024-01-0{e} 10:00:01,000 P12345 INFO Evaluation @epoch {e} - batch 100: ",
                  f"2024-01-0{e} 10:00:02,000 P12345 INFO [Metrics] AUC: 0.7{e}"]
    run = _read(tmp_path, lines)
    assert not any("P12345" in k for k in run.series)
    assert list(run.get("eval/auc").values) == [0.71, 0.72, 0.73]
    assert list(run.get("loss").values) == [0.41, 0.42, 0.43]


def test_an_eval_result_kept_as_a_comment_is_read_and_a_ctime_tail_is_no_metric(tmp_path):
    lines = []
    for k in range(1, 7):
        lines.append(f"  epoch 0 step {k * 10} lr 0.01 logloss 0.{50 - k} gN 0.3, Mon Feb  5 10:1{k}:00 2024")
        if k % 3 == 0:
            lines.append(f"# Epoch-time {k * 9.5}s Eval AUC 0.{70 + k}. Best AUC 0.{70 + k}.")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 8
    assert list(run.get("eval/auc").values) == [0.73, 0.76]
    assert not any(k.startswith("Mon") for k in run.series)


def test_a_notebook_cells_timing_is_no_metric(tmp_path):
    lines = [f"epoch {e}  | loss: 0.{60 - e}  |  0:00:0{e}s" for e in range(5)]
    lines += ["CPU times: user 2min 3s, sys: 120 ms, total: 2min 3s", "Wall time: 1min 5s"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5
    assert "sys" not in run.series and "Wall_time" not in run.series and "user" not in run.series


def test_a_total_time_is_the_whole_runs_not_a_steps(tmp_path):
    lines = [f"Epoch: {e}, Loss: 1.{9 - e}, Accuracy: 0.{4 + e}" for e in range(5)]
    lines += ["Total Training Time: 81.5 seconds"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5
    assert "step_time" not in run.series
    assert table().resolve("total time", "text").name != "step_time"


def test_validation_of_epoch_names_the_epoch_and_the_split(tmp_path):
    lines = []
    for e in (0, 1):
        lines += [f"I Training epoch {e}...", f"I Training of Epoch {e} - loss: 22{e}.5",
                  f"I Validation of Epoch {e} - loss: 18{e}.5"]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [220.5, 221.5]
    assert list(run.get("eval/loss").values) == [180.5, 181.5]


def test_a_pandas_frame_index_and_its_placeholder_rows(tmp_path):
    lines = ["      epoch      loss", "0     --------------", "1     --------------"]
    lines += [f"{i + 2}    {float(i):.1f}  {3.1 - i / 100:.6f}" for i in range(6)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 6
    assert math.isclose(run.get("loss").values[0], 3.1)
    assert list(run.get("loss").steps) == [0, 1, 2, 3, 4, 5]


def test_rows_one_blank_apart_under_a_header_of_two_blanks(tmp_path):
    lines = ["The loss in the board:", "Step   Loss"] + [f"{s} {50 - s * 0.5}" for s in range(1, 9)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 8
    assert list(run.get("loss").steps) == list(range(1, 9))


def test_a_postfix_item_holding_commas_in_brackets_keeps_the_items_after_it(tmp_path):
    lines = [f"100%|##########| 50/50 [00:20<00:00,  2.5it/s, epoch={e}, loss: ={5 + e / 10:.2f}, "
             f"shape: =torch.Size([8, 3, 32, 32]), LR={e}e-05]" for e in range(1, 4)]
    run = _read(tmp_path, lines)
    assert list(run.get("learning_rate").values) == [1e-05, 2e-05, 3e-05]


def test_values_printed_before_a_dict_join_its_record(tmp_path):
    lines = [f"Epoch {e} train_vae_loss 0.0{e}5: {{'recons_loss': 0.0{e}1, 'kl_loss': {800 + e}.5}}."
             for e in range(1, 4)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("loss").values) == [0.015, 0.025, 0.035]
    assert list(run.get("kl_loss").values) == [801.5, 802.5, 803.5]


def test_a_results_banner_heads_one_record_and_its_counter_is_the_step(tmp_path):
    lines = ["INFO:tensorflow:Finished evaluation", "INFO:tensorflow:***** Eval results *****",
             "INFO:tensorflow:  eval_accuracy = 0.5", "INFO:tensorflow:  eval_loss = 0.75",
             "INFO:tensorflow:  global_step = 300", "INFO:tensorflow:  loss = 0.75"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    assert list(run.get("eval/accuracy").steps) == [300]
    assert not any(k.startswith("tensorflow") for k in run.series)


def test_a_starred_header_of_comma_separated_names(tmp_path):
    lines = []
    for e in range(1, 4):
        lines += [f"Epoch: 0{e} | Epoch Time: 0m 5{e}s", "*****train_loss,train_acc,valid_loss,valid_acc*****",
                  f"5.{e}\t2.{e}\t4.{e}\t3.{e}"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("loss").values) == [5.1, 5.2, 5.3]
    assert list(run.get("eval/loss").values) == [4.1, 4.2, 4.3]
    assert "m" not in run.series


def test_fairseqs_overflow_notice_gives_a_loss_scale_point_but_no_row(tmp_path):
    lines = ["| epoch 001 | loss 9.5 | lr 0.0005 | gnorm 1.2 | loss_scale 64 | num_updates 100",
             "| WARNING: overflow detected, setting loss scale to: 0.25",
             "| epoch 001 | valid on 'valid' subset | loss 9.1 | num_updates 100",
             "| epoch 002 | loss 8.5 | lr 0.0005 | gnorm 1.1 | loss_scale 0.25 | num_updates 200",
             "| epoch 002 | valid on 'valid' subset | loss 8.1 | num_updates 200"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 4
    assert 0.25 in list(run.get("loss_scale").values)
    assert [e.value for e in run.events if e.kind == "overflow"] == [0.25]
    only = _read(tmp_path, ["| WARNING: overflow detected, setting loss scale to: 32.0",
                            "| WARNING: overflow detected, setting loss scale to: 16.0"], "only.log")
    assert list(only.get("loss_scale").values) == [32.0, 16.0]


def test_recboles_train_bar_counts_the_epoch_and_its_ranking_metrics_are_eval(tmp_path):
    lines = []
    for e in (1, 2):
        lines += [f"Train     {e}: 100%|##########| 100/100 [00:10<00:00,  9.9it/s, GPU RAM: 0.60 G/6.00 G]",
                  f"05 Mar 10:0{e}    INFO  epoch {e} training [time: 10.00s, train loss: {50 - e}.5]",
                  f"05 Mar 10:0{e}    INFO  epoch {e} evaluating [time: 2.00s, valid_score: 0.4{e}]",
                  f"05 Mar 10:0{e}    INFO  valid result: ",
                  f"recall@10 : 0.6{e}    mrr@10 : 0.4{e}    ndcg@10 : 0.5{e}    hit@10 : 0.6{e}    "]
    run = _read(tmp_path, lines)
    assert "accuracy" not in run.series
    assert list(run.get("eval/recall@10").values) == [0.61, 0.62]
    assert list(run.get("eval/ndcg@10").values) == [0.51, 0.52]
    assert list(run.get("loss").values) == [49.5, 48.5]
    assert table().resolve("mAP@50", "text").name == "eval/map50"  # detection's AP at IoU 0.50 stays


def test_lines_of_a_counter_and_one_bare_value_are_the_logs_series(tmp_path):
    lines = ["```", "..."] + [f"{s} {3.0 - s / 100000:.6f}" for s in range(76930, 76980, 10)] + ["76980 nan", "```"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 6
    assert list(run.get("value").steps) == list(range(76930, 76990, 10))
    mixed = _read(tmp_path, [f"epoch {e} loss 0.{9 - e}" for e in range(1, 5)] + ["1 2.5", "2 3.5", "3 4.5"], "m.log")
    assert "value" not in mixed.series  # beside named records, two numbers are something else's


def test_a_timestamp_whose_year_lost_its_first_digit_is_still_a_timestamp(tmp_path):
    lines = ["024-07-17 17:04:23,040 DEBUG TRAIN Batch 0/100 loss 2.799941 acc 0.000000 lr 0.00000272",
             "2024-07-17 18:58:24,167 DEBUG TRAIN Batch 1/100 loss 1.066963 acc 0.266024 lr 0.00088160",
             "2024-07-17 20:52:44,946 DEBUG TRAIN Batch 2/100 loss 1.127752 acc 0.242424 lr 0.00176152"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert run.get("loss").values[0] == 2.799941
