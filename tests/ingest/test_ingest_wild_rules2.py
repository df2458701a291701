"""More line-shape rules the wild corpus asked for (second round), each on a small synthetic log in
the style of the prints that needed it (never a copy of one)."""

from __future__ import annotations

import math

from triage.ingest import printed
from written_log import read_written as _read


def _slots(line):
    plan = printed.parse(printed.clean(line))
    return plan, [(s.role, s.key) for s in plan.slots if s.role != "skip"]


def test_a_loggers_file_and_line_prefix_is_never_a_step():
    assert printed.clean("INFO train.py:90 Saving the model") == "Saving the model"
    plan, slots = _slots("2024-01-02 10:11:12,345 INFO run.py:212 loss 0.5")
    assert slots == [("value", "loss")]


def test_a_logger_name_with_a_path_before_the_level_is_a_prefix():
    assert printed.clean("2021-05-06 07:08:09,101 - logs\\run.log - INFO - acc: 5.0%") == "acc: 5.0%"


def test_metric_at_counter_is_value_reads_the_step_inside_the_phrase(tmp_path):
    lines = [f"12:00:0{k}.123 [main] INFO a.b.Listener - loss at iteration {k * 50} is {2 - k / 10:.4f}"
             for k in range(5)]
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert list(loss.steps) == [0, 50, 100, 150, 200]
    assert math.isclose(loss.values[-1], 1.6)


def test_rate_units_stay_with_their_values_and_never_become_keys():
    plan, slots = _slots("Epoch[1] Batch [300]  Speed: 812.5 samples/sec 20110.3 tokens/sec 3.10 updates/sec "
                         "perplexity=41.2  accuracy=0.31")
    keys = [k for r, k in slots if r == "value"]
    assert keys == ["samples/s", "tok/s", "perplexity", "accuracy"]


def test_a_numbered_set_names_the_split_and_its_number_is_no_value(tmp_path):
    lines = []
    for e in range(1, 4):
        lines.append(f"2023-01-01 00:00:0{e},000 - (Epoch {e}) TRAIN LOSS:{1 - e / 10:.4f} LR:0.0001")
        lines.append(f"2023-01-01 00:00:0{e},500 - EVAL SET 1 LOSS:{2 - e / 10:.4f}")
    run = _read(tmp_path, lines)
    assert [round(v, 4) for v in run.get("loss").values] == [0.9, 0.8, 0.7]
    assert [round(v, 4) for v in run.get("eval/loss").values] == [1.9, 1.8, 1.7]


def test_tqdm_postfix_metrics_are_records_stepped_by_the_bar(tmp_path):
    lines = [f"Steps:  {k}%|          | {k}/100 [00:0{k}<01:00,  1.00s/it, loss={1 / (k + 1):.3f}, lr=2e-6]"
             for k in range(1, 6)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [1, 2, 3, 4, 5]
    assert "learning_rate" in run.series
    assert not any("100" in k or "Steps" in k for k in run.series)  # the counter is never a value


def test_a_bars_postfix_repeated_by_the_summary_after_it_is_one_record(tmp_path):
    lines = []
    for e in (1, 2, 3):
        loss = 1 / e
        lines.append(f"100%|#####| 50/50 [00:10<00:00,  5.00it/s, train_loss={loss:.3g}]")
        lines.append(f"epoch: {e}, lr: 1.0e-03 - train loss: {loss:.3g} - valid loss: {2 / e:.3g}")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3


def test_a_finished_bar_under_a_validation_heading_is_the_evaluation(tmp_path):
    lines = ["2020-01-01 00:00:00,000 - INFO - lib.training.trainer - Validating",
             "  0%|          | 0/4 [00:00<?, ?it/s]",
             "loss: 1.2345 ||: 100%|##########| 4/4 [00:01<00:00,  3.1it/s]"]
    run = _read(tmp_path, lines)
    assert list(run.get("eval/loss").values) == [1.2345]
    assert "loss" not in run.series


def test_a_lone_evaluation_line_of_known_metrics_is_kept(tmp_path):
    run = _read(tmp_path, ["Decoding predictions...", "Test - WER: 0.25, CER: 0.11, loss: 30.5"])
    assert run.meta["rows"] == 1
    assert "eval/loss" in run.series and "eval/wer" in run.series


def test_a_lone_setting_is_still_not_a_metric_log(tmp_path):
    run = _read(tmp_path, ["Using learning_rate: 2e-4 for the run"])
    assert not run.meta.get("rows")


def test_evaluation_blocks_under_a_heading_stay_evaluations_every_time(tmp_path):
    lines = []
    for blk in range(3):
        lines += [f"12:00:0{k}.5 [main] INFO x.y.Listener - Score at iteration {blk * 100 + k} is {1.5 - blk / 10:.3f}" for k in range(3)]
        lines += ["=====Evaluation Metrics=====", f" Accuracy:   0.{60 + blk}", f" Precision:  0.{50 + blk}", ""]
    run = _read(tmp_path, lines)
    assert len(run.get("eval/accuracy").values) == 3
    assert "accuracy" not in run.series
    assert len(run.get("loss").values) == 9


def test_tally_lines_and_per_part_lines_fold_into_the_evaluation(tmp_path):
    lines = []
    for k in range(4):
        for split in ("dev", "test"):
            lines += [f"evaluate:{split}",
                      f"processed {5000 + k} tokens with {300 + k} phrases; found: {280 + k} phrases; correct: {200 + k}.",
                      f"accuracy:  {80 + k}.00%; precision:  {70 + k}.00%; recall:  {60 + k}.00%; FB1:  {65 + k}.00",
                      f"             ORG: precision:  {50 + k}.00%; recall:  40.00%; FB1:  44.00  {100 + k}",
                      f"             PER: precision:  {55 + k}.00%; recall:  45.00%; FB1:  49.00  {90 + k}"]
    run = _read(tmp_path, ["lr             :\t0.001", "seed           :\t7"] + lines)
    assert run.meta["rows"] == 8
    assert len(run.get("eval/accuracy").values) == 8
    assert "learning_rate" not in run.series  # the config echo before the metrics
    assert not any(k.startswith(("processed", "found", "correct")) for k in run.series)


def test_a_count_noun_after_a_number_makes_it_a_size():
    plan, slots = _slots("Epoch 2, batch 100, loss[ctc=0.5, loss=0.7, over 2200 frames.], tot_loss[loss=0.9, over 4400 frames.]")
    assert [r for r, k in slots] == ["epoch", "batch", "value", "value", "value"]  # the frame counts are sizes
    assert not plan.prose and plan.tallies == 2


def test_a_table_header_known_by_its_first_columns_keeps_the_rest(tmp_path):
    head = "steps\tepisodes\telapsed\tmean\tmedian\tstdev\tmax\tmin\taverage_value\tpolicy_loss"
    rows = [f"{(k + 1) * 1000}\t{k + 3}\t{10.5 * k:.1f}\t{k - 20.0}\t{k - 20.0}\t1.0\t{k - 19.0}\t-21.0\t[0.1]\t0.0{k}"
            for k in range(4)]
    run = _read(tmp_path, [head] + rows)
    rew = run.get("eval/episode_reward")
    assert list(rew.steps) == [1000, 2000, 3000, 4000]
    assert list(rew.values) == [-20.0, -19.0, -18.0, -17.0]
    assert not {"mean", "median", "max", "min"} & set(run.series)
