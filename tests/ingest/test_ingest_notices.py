"""Callback and scheduler notices in printed logs: a learning-rate announcement is the schedule's value;
a new-best announcement repeats the evaluation it follows and is no record of its own."""

from __future__ import annotations

import math

import pytest

from triage.ingest import read_run
from written_log import read_written as _read


@pytest.mark.parametrize("notice", [
    "Adjusting learning rate of group 0 to {lr:.4e}.",                # PyTorch scheduler, verbose=True
    "Epoch {e:05d}: reducing learning rate of group 0 to {lr:.4e}.",  # ReduceLROnPlateau
    "Updating learning rate to {lr}",                                  # Informer / Time-Series-Library
    "lr set to {lr}",
])
def test_a_learning_rate_notice_joins_the_record_it_follows(tmp_path, notice):
    lines = []
    for e in range(1, 5):
        lines.append(f"epoch {e} train loss {1 / e:.4f} val loss {1.1 / e:.4f}")
        lines.append(notice.format(e=e, lr=1e-3 / 2 ** e))
    run = _read(tmp_path, lines)
    lr = run.get("learning_rate")
    assert lr is not None and list(lr.steps) == list(run.get("loss").steps)
    assert math.isclose(lr.values[-1], 1e-3 / 16, rel_tol=1e-3)
    assert run.meta["rows"] == 4  # one record per epoch: the notice is no row of its own


def test_a_learning_rate_notice_never_overrides_a_printed_learning_rate(tmp_path):
    lines = []
    for e in range(1, 4):
        lines.append(f"epoch {e} loss {1 / e:.4f} lr 0.001")
        lines.append(f"Adjusting learning rate of group 0 to {1e-4:.4e}.")
    run = _read(tmp_path, lines)
    assert list(run.get("learning_rate").values) == [0.001, 0.001, 0.001]
    assert not any("both mean" in w for w in run.meta.get("warnings", []))


@pytest.mark.parametrize("notice", [
    "Epoch {e:05d}: val_loss improved from {prev:.5f} to {cur:.5f}, saving model to model.h5",
    "Epoch {e:05d}: val_loss did not improve from {prev:.5f}",
    "Validation loss decreased ({prev:.6f} --> {cur:.6f}).  Saving model ...",
])
def test_a_new_best_notice_is_not_a_record(tmp_path, notice):
    lines, prev = [], math.inf
    for e in range(1, 5):
        cur = 1.1 / e
        lines.append(f"epoch {e} train loss {1 / e:.4f} val loss {cur:.4f}")
        lines.append(notice.format(e=e, prev=prev, cur=cur))
        prev = cur
    run = _read(tmp_path, lines)
    assert sorted(run.series) == ["eval/loss", "loss"]
    assert run.meta["rows"] == 4
    assert sum(run.meta["skipped"].values()) == 4  # each notice counted as skipped, by reason


def test_a_text_progress_bars_share_done_is_not_a_value(tmp_path):
    """tqdm in a notebook or CI log: `Evaluation train: 100% 3/3 [00:03<00:00,  1.01s/it]`."""
    lines = []
    for e in range(1, 4):
        lines += [f"Epoch {e}", "Training: 100% 3/3 [00:10<00:00,  3.46s/it]",
                  "Evaluation vali : 100%|██████████| 1/1 [00:00<00:00,  2.37it/s]", f"loss {1 / e:.3f}"]
    run = _read(tmp_path, lines)
    assert sorted(run.series) == ["loss"]
    assert 100.0 not in run.get("loss").values


def test_a_box_drawn_table_with_one_row_per_split(tmp_path):
    """Ludwig's epoch summary: a split name in the first column, rule lines between the rows."""
    lines = []
    for e in range(1, 4):
        lines += [f"Epoch   {e}",
                  "╒══════════╤════════╤════════════╕",
                  "│ rating   │   loss │   accuracy │",
                  "╞══════════╪════════╪════════════╡",
                  f"│ train    │ {1 / e:.4f} │     {0.5 + e / 10:.4f} │",
                  "├──────────┼────────┼────────────┤",
                  f"│ vali     │ {1.2 / e:.4f} │     {0.4 + e / 10:.4f} │",
                  "├──────────┼────────┼────────────┤",
                  f"│ test     │ {1.1 / e:.4f} │     {0.45 + e / 10:.4f} │",
                  "╘══════════╧════════╧════════════╛"]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [1, 2, 3]
    assert math.isclose(run.get("eval/loss").values[-1], 0.4)
    assert math.isclose(run.get("eval/accuracy").values[0], 0.5)
    assert run.get("eval/test/loss") is not None


def _rsl_rl_block(it: int, reward: float) -> list[str]:
    return ["#" * 80, f"                       Learning iteration {it}/400                       ", "",
            "                       Computation: 159372 steps/s (collection: 0.544s, learning 1.101s)",
            "             Mean action noise std: 0.24",
            f"          Mean value_function loss: {0.01 / it:.4f}",
            "               Mean surrogate loss: 0.0019",
            f"                       Mean reward: {reward:.2f}",
            "               Mean episode length: 1192.40",
            "            Episode_Reward/lin_vel: -0.1932",
            "-" * 80,
            f"                   Total timesteps: {it * 16384}",
            "                    Iteration time: 1.65s",
            "                        Total time: 240.70s",
            "                               ETA: 417.2s", ""]


def test_an_iteration_block_of_one_value_per_line_is_one_record(tmp_path):
    """rsl_rl / Isaac Lab: a `Learning iteration N/M` banner, then one right-aligned `name: value` a line."""
    lines = []
    for it, reward in ((1, 2.5), (2, 5.0), (3, 9.5)):
        lines += _rsl_rl_block(it, reward)
    run = _read(tmp_path, lines)
    ep = run.get("episode_reward")
    assert list(ep.steps) == [1, 2, 3] and list(ep.values) == [2.5, 5.0, 9.5]
    assert run.get("value_loss") is not None and run.get("policy_loss") is not None
    assert run.get("episode_length") is not None
    assert run.meta["rows"] == 3


def test_a_call_with_its_value_names_the_metric(tmp_path):
    """Julia's `@show loss(x, y)`; Flux's tracked scalar `param(0.09)`."""
    lines = []
    for k in range(1, 5):
        lines += [f"loss(x, y) = param({0.1 / k:.6f})", f"accuracy(m, x, label, 0:9) = {0.2 * k:.4f}"]
    run = _read(tmp_path, lines)
    assert math.isclose(run.get("loss").values[-1], 0.025)
    assert math.isclose(run.get("accuracy").values[-1], 0.8)


def test_a_lone_record_with_a_nan_is_a_measurement_not_a_setting(tmp_path):
    run = _read(tmp_path, ["D_loss: nan, D_loss_grad_norm: nan, D_lr: 0.001882",
                           "D_reg: 0.002352, D_reg_grad_norm: 0.001569, G_loss: nan"])
    assert run.meta["rows"] == 2
    assert math.isnan(run.get("d_loss").values[0])  # (D_loss: a GAN discriminator's loss)


def test_a_bar_whose_description_only_counts_gives_its_postfix_the_epoch(tmp_path):
    line = ("Epoch {e}/250: 100%|████████████████| 9375/9375 [07:11<00:00, 21.73it/s, DR=713, DF=nan, "
            "G=nan, LR=0.0001, TIME=0.0615]")
    run = _read(tmp_path, [line.format(e=41)])
    assert list(run.get("learning_rate").steps) == [41]
    run = _read(tmp_path, [line.format(e=e) for e in (41, 42, 43)])
    assert list(run.get("learning_rate").steps) == [41, 42, 43]
    assert run.meta.get("step_axis") != "line order"


def test_yolov5_console_before_v6_2_reads_its_loss_terms_and_validation(tmp_path):
    """`Epoch gpu_mem box obj cls labels img_size` (box, obj, cls are the loss terms) with the
    validation header drawn with its bar (`mAP@.5:.95: 100%|███| 1/1`) before the `all` row."""
    lines = []
    for e in range(3):
        lines.append(("%10s" * 7) % ("Epoch", "gpu_mem", "box", "obj", "cls", "labels", "img_size"))
        lines.append(("%10s" * 2 + "%10.4g" * 5) % (f"{e}/99", "2.64G", 0.099 - e / 1000, 0.04, 0.031, 36, 416)
                     + ": 100%|██████████| 7/7 [00:15<00:00,  2.27s/it]")
        lines.append(("%20s" + "%12s" * 6) % ("Class", "Images", "Labels", "P", "R", "mAP@.5", "mAP@.5:.95")
                     + ": 100%|██████████| 1/1 [00:01<00:00,  1.30s/it]")
        lines.append(("%20s" + "%12i" * 2 + "%12.3g" * 4) % ("all", 14, 52, 0.5, 0.4, 0.3 + e / 100, 0.2))
        lines.append("")
    run = _read(tmp_path, lines)
    assert list(run.get("box_loss").steps) == [0, 1, 2]
    assert math.isclose(run.get("box_loss").values[-1], 0.097)
    assert math.isclose(run.get("eval/map50").values[-1], 0.32)
    assert run.get("memory") is not None and run.get("box") is None


def test_a_phrase_with_two_counters_keeps_its_metric(tmp_path):
    """`Loss at epoch 0 and iteration 500 is 0.22`, the iteration counted from 0 in every epoch."""
    lines = [f"{name} at epoch {e} and iteration {it} is {v / (1 + e):.4f}"
             for e in range(3) for it in (0, 500, 1000) for name, v in (("Loss", 0.9), ("NCE Loss", 0.5))]
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert len(loss) == 9 and run.meta["duplicates"] == 0
    assert list(loss.steps) == sorted(loss.steps)


def test_a_split_named_in_a_qualifier_or_after_a_prefix(tmp_path):
    from triage.ingest import aliases

    tab = aliases.table()
    assert tab.resolve("accuracy (test set)", "text").name == "eval/test/accuracy"
    assert tab.resolve("loss (validation)", "text").name == "eval/loss"
    assert tab.resolve("test_mean loss", "text").name == "eval/test/loss"
    assert tab.resolve("lr(PiecewiseDecay)", "text").name == "learning_rate"


def test_torch7_logger_file_with_one_column(tmp_path):
    lines = ["% mean class accuracy (train set)\t"] + [f" {v:.4e}\t" for v in (75.3, 93.45, 96.85, 98.0)]
    run = _read(tmp_path, lines)
    acc = run.get("accuracy")
    assert list(acc.values) == [75.3, 93.45, 96.85, 98.0]


def test_a_split_label_mid_line_names_only_the_keys_after_it(tmp_path):
    """`epoch 1 loss 0.5 acc 0.9 val: loss 0.6 acc 0.8`: the training values come first."""
    lines = [f"epoch {e} loss {1 / e:.3f} acc {0.5 + e / 20:.3f} val: loss {1.2 / e:.3f} acc {0.45 + e / 20:.3f}"
             for e in range(1, 6)]
    run = _read(tmp_path, lines)
    assert math.isclose(run.get("loss").values[0], 1.0)
    assert math.isclose(run.get("eval/loss").values[0], 1.2)
    assert math.isclose(run.get("accuracy").values[-1], 0.75)
    run = _read(tmp_path, [f"epoch {e} | loss {1 / e:.3f} | val | loss {1.2 / e:.3f}" for e in range(1, 6)])
    assert math.isclose(run.get("loss").values[0], 1.0) and math.isclose(run.get("eval/loss").values[0], 1.2)


def test_lightning_writes_infinity_and_nan_with_a_trailing_zero(tmp_path):
    lines = [f"Epoch 0:   0%|          | {k}/4282 [00:00<18:18,  3.90it/s, v_num=0, train_loss={v}]"
             for k, v in ((1, "2.31"), (2, "inf.0"), (3, "nan.0"))]
    loss = _read(tmp_path, lines).get("loss")
    assert loss is not None and math.isinf(loss.values[1]) and math.isnan(loss.values[2])


def test_a_notebook_table_copied_as_text(tmp_path):
    """The HF Trainer's notebook table pasted into an issue: `-- | --` rules, `group / name` columns."""
    lines = ["Step | Training Loss | reward | reward_std | kl | rewards / match_format_exactly",
             "-- | -- | -- | -- | -- | --"]
    lines += [f"{s} | {0.001 * s:.6f} | {s / 2:.6f} | 1.500000 | nan | 0.000000" for s in range(1, 6)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [1, 2, 3, 4, 5]
    assert run.get("reward_std") is not None and math.isnan(run.get("kl").values[0])
    assert any(k.startswith("rewards/") for k in run.series)


def test_a_header_written_as_a_comment(tmp_path):
    """numpy.savetxt's `# ` header over whitespace columns (DeePMD-kit's lcurve.out)."""
    lines = ["#  step      rmse_val    rmse_trn         lr"]
    lines += [f"{s * 100:7d}    {2.0 / (s + 1):.2e}    {1.9 / (s + 1):.2e}    1.0e-03" for s in range(6)]
    run = _read(tmp_path, lines, name="lcurve.out")
    assert list(run.get("learning_rate").steps) == [0, 100, 200, 300, 400, 500]


def test_the_common_logging_snippet_prefix_and_a_settings_dict(tmp_path):
    """`%(asctime)s %(filename)s[line:%(lineno)d] %(levelname)s` with datefmt `%a, %d %b %Y %H:%M:%S`."""
    lines = ["Mon, 15 May 2023 00:04:19 train.py[line:31] INFO config: {'epochs': 20, 'learning_rate': 0.001}"]
    lines += [f"Mon, 15 May 2023 00:0{e}:19 train.py[line:80] INFO epoch: {e} loss: {1 / e:.3f}" for e in range(1, 5)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [1, 2, 3, 4]
    assert run.get("learning_rate") is None  # the settings dict is not a record
    assert run.meta["skipped"].get("a settings dict") == 1


def test_catboost_training_json(tmp_path):
    import json

    doc = {"meta": {"learn_metrics": [{"best_value": "Min", "name": "Logloss"}],
                    "test_metrics": [{"best_value": "Min", "name": "Logloss"}, {"name": "AUC"}],
                    "learn_sets": ["learn"], "test_sets": ["test"], "iteration_count": 5},
           "iterations": [{"learn": [0.69 - i / 20], "iteration": i, "test": [0.7 - i / 40, 0.6 + i / 20]}
                          for i in range(5)]}
    p = tmp_path / "catboost_training.json"
    p.write_text(json.dumps(doc), encoding="utf-8")

    run = read_run(p)
    assert list(run.get("loss").steps) == [0, 1, 2, 3, 4]
    assert math.isclose(run.get("eval/loss").values[-1], 0.6)
    assert "eval/auc" in run.series  # (the test set's AUC)


def test_a_csv_style_name_value_pair(tmp_path):
    """`epoch 1, phase train, step 10, loss_train, 0.838`: a name, a comma, then its value."""
    run = _read(tmp_path, [f"epoch 1, phase train, step {s}, loss_train, {1 / s:.3f}" for s in range(10, 60, 10)])
    assert list(run.get("loss").steps) == [10, 20, 30, 40, 50]


def test_a_finished_bar_alone_is_a_record_and_losses_is_a_group(tmp_path):
    """trlx's last bar before wandb's summary: `[losses/total_loss: 1.15 | losses/policy_loss: 1.15 | ...]`."""
    run = _read(tmp_path, ["[losses/total_loss: 1.15 | losses/policy_loss: 1.15 | losses/value_loss: 0.00]: "
                           "100%|██████████| 128/128 [10:23<00:00,  4.87s/it]",
                           "wandb: Waiting for W&B process to finish... (success)."])
    assert run.get("policy_loss") is not None and run.get("value_loss") is not None


def test_a_host_and_rank_before_the_logger(tmp_path):
    """OLMo: `2024-08-06 09:59:26.181 host-160750:0  olmo.train:908  INFO    [step=1/739328,epoch=0]`."""
    lines = []
    for s in range(1, 4):
        lines += [f"2024-08-06 09:59:2{s}.181 intern-studio-160750:0  olmo.train:908  INFO    [step={s}/739328,epoch=0]",
                  f"    train/CrossEntropyLoss={12.0 / s:.3f}", f"    optim/total_grad_norm={2.0 / s:.3f}"]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [1, 2, 3]
    assert not any("intern" in k or "olmo" in k for k in run.series)


def test_two_step_counters_on_one_line(tmp_path):
    """litgpt: `iter 101 step 50` (micro-batches and optimizer steps): the iteration never repeats.
    A counter with its total (`iter[ 14/ 15]`) is a place within a pass: the other one is the step."""
    run = _read(tmp_path, [f"iter {100 + k} step {50 + k // 2}: loss {3 + k / 10:.4f}, iter time: 100.0ms"
                           for k in range(6)])
    assert list(run.get("loss").steps) == [100, 101, 102, 103, 104, 105]
    run = _read(tmp_path, [f"E{e} iter[ 14/ 15] | [Loss] {1 / e:.3f} | [step] {15 * e + 14}" for e in range(1, 5)])
    assert list(run.get("loss").steps) == [29, 44, 59, 74]


def test_basicsr_pixel_loss_and_deepspeed_chat_reward_score(tmp_path):
    run = _read(tmp_path, [f"2023-06-15 21:08:18,450 INFO: [debug..][epoch:  0, iter:     {649 + k}, lr:(2.000e-04,)] "
                           f"[eta: 5 days, 8:38:06, time (data): 0.6 (0.1)] l_pix: {0.05 / (k + 1):.4e} " for k in range(4)])
    assert run.get("loss") is not None  # BasicSR's `l_pix`, the run's only loss term
    from triage.ingest import aliases

    assert aliases.table().resolve("average reward score", "text").name == "reward"


def test_a_split_word_before_its_counters_and_a_decay_notice(tmp_path):
    """CenterNet's bar: `val: [125][0/6]|Tot: ... |loss 92.2 |hm_loss 89.6`; `Decay learning rate to lr: 1.1e-4.`"""
    lines = [f"ctdet/coco_dla_1x |#####      | val: [125][{b}/6]|Tot: 0:00:00 |ETA: 0:00:00 |loss {90 + b:.4f} "
             f"|hm_loss {88 + b:.4f} |Data 0.125s(0.125s) |Net 0.203s" for b in range(4)]
    run = _read(tmp_path, lines)
    assert run.get("eval/loss") is not None and "val" not in run.series
    lines = []
    for e in range(1, 5):
        lines += [f"epoch {e} loss {1 / e:.3f}", f"Decay learning rate to lr: {1e-3 / e:.6f}."]
    assert len(_read(tmp_path, lines).get("learning_rate")) == 4


def test_a_log_truncated_under_its_writer_opens_with_nul_bytes(tmp_path):
    """`> nohup.out` while the job runs: the file starts with a NUL run as long as what was cut."""
    p = tmp_path / "nohup.out"
    text = "".join(f"step {s:5d} | loss {2 / s:.4f} | lr 3.00e-04\n" for s in range(1, 40)).encode()
    for run_of_nuls in (300, 200_000):
        p.write_bytes(b"\x00" * run_of_nuls + text)

        assert len(read_run(p).get("loss")) == 39
    p.write_bytes(b"\x00" * 100_000)
    from triage.ingest import IngestError

    with pytest.raises(IngestError, match="binary"):
        read_run(p)


def test_openmmlab_val_lines_and_mmcv_bar_glued_to_the_next_line(tmp_path):
    lines = []
    for e in range(1, 4):
        lines.append(f"2021-07-14 13:52:3{e},901 - mmcls - INFO - Epoch [{e}][10/10]\tlr: 1.000e-02, loss: {1 / e:.4f}")
        lines.append(f"[>>>>>>>>>>>>>>>>>>>>>>>>>>>>>] 50/50, 163.1 task/s, elapsed: 0s, ETA:     0s2021-07-14 13:52:3{e},901 "
                     f"- mmcls - INFO - Epoch(val) [{e}][2]\taccuracy_top-1: {20 + e:.4f}, accuracy_top-5: {50 + e:.4f}")
    run = _read(tmp_path, lines)
    assert list(run.get("eval/accuracy").values) == [21.0, 22.0, 23.0]
    assert run.get("eval/accuracy_top5") is not None


def test_keras_history_printed_as_a_dict_of_lists(tmp_path):
    run = _read(tmp_path, ["{'loss': [1.53, 0.21, 0.06], 'accuracy': [0.59, 0.91, 0.97], "
                           "'val_loss': [0.54, 0.12, 0.10], 'val_accuracy': [0.74, 0.95, 0.95]}"])
    assert list(run.get("loss").values) == [1.53, 0.21, 0.06]
    assert list(run.get("eval/accuracy").steps) == [1, 2, 3]


def test_a_logger_line_number_in_brackets_is_part_of_the_prefix(tmp_path):
    """`%(name)s - %(pathname)s : %(funcName)s [%(lineno)d] -`: the `[27]` is where the logger was called."""
    lines = [f"2021-05-09 23:4{e}:35 - INFO - train - /home/x/trainer/trainer.py : train_step [27] - "
             f"epoch {e} loss {1 / e:.3f}" for e in range(1, 5)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [1.0, 0.5, 0.333, 0.25]


def test_a_detection_metric_with_an_iou_range_keeps_the_range_in_its_name(tmp_path):
    run = _read(tmp_path, [f"Epoch: {e} | mAP@0.5: 0.{e}1 | mAP@0.50:0.95: 0.{e}2" for e in range(1, 4)])
    assert list(run.get("eval/map").values) == [0.12, 0.22, 0.32]   # never the range's 0.95
    assert list(run.get("eval/map50").values) == [0.11, 0.21, 0.31]


def test_an_evaluating_heading_before_any_record_labels_the_scores_under_it(tmp_path):
    lines = ["Evaluating hmean-iou..."] + [
        f"prediction score threshold: 0.{t}0, recall: 0.0000, precision: 0.0000, hmean: 0.0000" for t in range(3, 9)]
    run = _read(tmp_path, lines)
    assert {"eval/recall", "eval/precision"} <= set(run.series)


def test_an_evaluating_heading_before_training_lines_leaves_them_training(tmp_path):
    lines = ["Evaluating the initial model..."] + [f"iter: {i}, loss: {1 - i / 100:.3f}, acc: 0.5" for i in range(5)]
    run = _read(tmp_path, lines)
    assert len(run.get("loss")) == 5 and "eval/loss" not in run.series


def test_a_paste_in_markdown_backticks_reads_as_the_log_inside(tmp_path):
    lines = ["`Namespace(batch_size=24, learning_rate=0.001, epoch=200)`", "`Epoch 200 (200/200):`",
             "`Train Instance Accuracy: 0.913678`", "`Test Instance Accuracy: 0.912136, Class Accuracy: 0.882880`"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 2  # the settings repr is no record
    assert run.get("accuracy").values[0] == 0.913678 and run.get("eval/accuracy").values[0] == 0.912136


def test_a_metrics_dict_over_several_lines_after_a_logger_prefix_keeps_its_nans(tmp_path):
    lines = ["`I0409 23:03:12.869635 140410452137792 model_lib_v2.py:708] {'Loss/classification_loss': nan,",
             " 'Loss/total_loss': nan,", " 'learning_rate': 0.07922263}", "`"]
    run = _read(tmp_path, lines)
    assert math.isnan(run.get("loss").values[0]) and run.get("learning_rate").values[0] == 0.07922263


def test_bits_per_byte_is_a_metric(tmp_path):
    lines = ["Step 00000 | Validation bpb: 1.0596"] + [f"step {s:05d} | loss: {2 - s / 10:.4f} | dt: 82.70ms"
                                                       for s in range(1, 5)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5 and run.get("eval/bits_per_byte").values[0] == 1.0596
