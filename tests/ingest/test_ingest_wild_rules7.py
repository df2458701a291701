"""Reading rules drawn from the wild13/wild14 collections (after their first reads): boosting-round
counters, Java logger prefixes, caret-notation colours, numbered pastes, bordered tables, two-word
table headers and lone NaN metrics."""

from __future__ import annotations

import math

from triage.ingest import read_run
from written_log import read_written as _read


def test_a_boosting_round_counter_before_tab_spaces_is_the_step_not_a_rank(tmp_path):
    lines = [f"[{i}]:    train's l2:{0.1 - i / 1000:.6f}    valid's l2:{0.11 - i / 2000:.6f}" for i in range(1, 9)]
    run = _read(tmp_path, lines)
    assert list(run.get("eval/l2").steps) == list(range(1, 9))


def test_xgboost_watchlist_names_give_the_split(tmp_path):
    lines = [f"[{i}]\ttrain-rmse:{1.5 - i / 10:.4f}\teval-rmse:{1.6 - i / 20:.4f}" for i in range(5)]
    run = _read(tmp_path, lines)
    assert run.get("eval/rmse").values[0] == 1.6


def test_a_java_loggers_thread_and_actor_are_a_prefix(tmp_path):
    lines = [f"[INFO] [07/22/2019 17:10:30.2{i}] [Tracker-akka.actor.default-dispatcher-16] "
             f"[akka://Tracker/user/Handler] [{80 + i}]        train-rmse:{1.5 - i / 100:.4f}" for i in range(6)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 6 and list(run.get("rmse").steps) == list(range(80, 86))


def test_caret_notation_colours_and_line_numbers_of_a_numbered_paste_are_dropped(tmp_path):
    lines = [f" {240 + i} ^[[32m[0227 18:54:41 @monitor.py:233]^[[0m {k}: {v}"
             for i, (k, v) in enumerate([("learning_rate", 0.1), ("val-error-top1", 0.96), ("xentropy-loss", 5.6)] * 3)]
    run = _read(tmp_path, lines)
    assert list(run.get("learning_rate").values) == [0.1, 0.1, 0.1]
    assert not any(name.startswith(("m_", "@")) for name in run.series)


def test_a_table_with_a_border_between_every_two_rows(tmp_path):
    rule = "+-----------+---------------+-------------------+"
    lines = [rule, "| Iteration | Training Loss | Training Accuracy |", rule]
    for i, (loss, acc) in enumerate([(2.931, 0.231), (2.631, 0.448), (2.417, 0.618), (2.388, 0.674)], 1):
        lines += [f"| {i}         | {loss}         | {acc}             |", rule]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [2.931, 2.631, 2.417, 2.388]


def test_a_header_whose_names_are_two_words_one_blank_apart(tmp_path):
    run = _read(tmp_path, ["epoch train loss valid loss accuracy_thresh f2_opt", "0 nan nan 0.997788 0.000000",
                           "1 0.41 0.39 0.998 0.61"])
    assert math.isnan(run.get("loss").values[0]) and run.get("eval/loss").values[1] == 0.39


def test_lone_nan_metrics_are_measurements_but_a_sentence_saying_nan_is_a_message(tmp_path):
    run = _read(tmp_path, ["===> Average train loss: nan", "===> Average train bit_per_dim: nan",
                           "===> Average validation loss: nan"])
    assert {"loss", "bits_per_dim", "eval/loss"} <= set(run.series)
    run = _read(tmp_path, ["ERROR:tensorflow:Model diverged with loss = NaN."], "b.log")
    assert run.meta["rows"] == 0


def test_a_marker_after_the_timestamp_of_a_quoted_line(tmp_path):
    lines = [f"> 2024-07-25 18:0{i}:41.165608     # [Train Epoch: 1/20] [{4600 + 100 * i}/6034 images] loss=0.6{i}"
             for i in range(5)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [0.6, 0.61, 0.62, 0.63, 0.64]


def test_a_line_that_counts_episodes_prints_the_episodes_reward(tmp_path):
    lines = [f"2021-11-18 00:17:1{i},423 93253 [INFO] Episode: {i}, reward: {100 + i:.2f}" for i in range(1, 6)]
    run = _read(tmp_path, lines)
    assert list(run.get("episode_reward").values) == [101, 102, 103, 104, 105]
    lines = [f"Training - Episode: {154 + i} Total reward: {10 + i}.0 Steps: {1824 + 10 * i}" for i in range(5)]
    assert "episode_reward" in _read(tmp_path, lines, "coach.log").series


def test_a_heading_that_names_the_val_set_labels_the_scores_under_it(tmp_path):
    lines = []
    for i in range(4):
        lines += [f"Iteration {i * 100}, loss = {4 - i / 2:.4f}", "Checking accuracy on the val set",
                  f"Got {123 + 100 * i} / 1000 correct ({12.3 + 10 * i:.2f}%)", ""]
    run = _read(tmp_path, lines)
    assert len(run.get("eval/accuracy")) == 4 and len(run.get("loss")) == 4
    assert not any("got" in name.lower() for name in run.series)


def test_a_file_name_with_a_number_is_no_value(tmp_path):
    lines = ["epoch train_loss valid_loss error_rate time"] + [
        f"{e}\t{1.8 - e / 5:.6f}\t{1.2 - e / 6:.6f}\t{0.4 - e / 20:.6f}\t00:14" for e in range(4)]
    lines += [f"{i}     20000{i}.jpg    NaN" for i in range(6)]
    run = _read(tmp_path, lines)
    assert not any("jpg" in name for name in run.series) and len(run.get("loss")) == 4


def test_a_bracketed_group_of_named_values_after_a_label(tmp_path):
    lines = []
    for e in range(1, 5):
        lines += [f"2023-06-30 13:0{e}:17,321 - easytorch-training - INFO - Result <train>: [train_time: 178.48 (s), "
                  f"lr: 1.00e-03, train_MAE: {65 - e:.4f}]",
                  f"2023-06-30 13:0{e}:56,105 - easytorch-training - INFO - Result <val>: [val_time: 38.78 (s), "
                  f"val_MAE: {37 - e:.4f}]"]
    run = _read(tmp_path, lines)
    assert list(run.get("eval/mae").values) == [36, 35, 34, 33] and len(run.get("learning_rate")) == 4


def test_a_number_sign_before_the_count(tmp_path):
    lines = [f"#{i}/1500 - Training Loss: {2.6 - i / 10:.5f} >> [ Accuracy: {8 + i}.5% - Validation Loss : "
             f"{2.5 - i / 10:.4f} ]" for i in range(1, 6)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [1, 2, 3, 4, 5] and len(run.get("eval/loss")) == 5


def test_icefall_groups_and_an_mpirun_tag_prefix(tmp_path):
    lines = [f"[1,mpirank:{r},algo-1]<stderr>:2025-01-19 09:00:3{b},064 INFO [finetune.py:1142] ({r}/8) Epoch 7, "
             f"batch {1650 + 50 * b}, loss[loss=0.2{b}, simple_loss=0.3{b}, over 3310.00 frames. ], "
             f"tot_loss[over 792510.56 frames. ], batch size: 14, lr: 4.28e-03," for b in range(4) for r in (0,)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [0.2, 0.21, 0.22, 0.23]
    assert not any("over" in name or "mpirank" in name for name in run.series)


def test_an_evaluation_in_trainings_own_shape_is_told_by_its_batch_count(tmp_path):
    lines = []
    for e in range(1, 4):
        lines.append(f"    Epoch {e}/3")
        lines += [f"    step {s}/614 - loss: {0.2 - e / 100 + s / 1e5:.4f} - AUROC: 0.7{e}" for s in (10, 300, 614)]
        lines += ["    save checkpoint at /tmp/ck", "    Eval begin..."]
        lines += [f"    step {s}/88 - loss: {0.15 - e / 100:.4f} - AUROC: 0.8{e}" for s in (10, 88)]
        lines.append("    Eval samples: 2812")
    run = _read(tmp_path, lines)
    assert len(run.get("loss")) == 9 and len(run.get("eval/loss")) == 3  # one per evaluation: its last line
    assert not run.meta.get("run_starts")  # no 'run' starts again at every evaluation


def test_a_tensorboard_csv_download_names_its_tag_from_the_file(tmp_path):
    rows = "".join(f"1575618{724 + i}.70,{43 + 3 * i},{2.84 - i / 10:.2f}\r\n" for i in range(5))
    p = tmp_path / "run-.-tag-train_loss.csv"
    p.write_text("Wall time,Step,Value\r\n" + rows, encoding="utf-8")
    run = read_run(p)
    assert list(run.get("loss").steps) == [43, 46, 49, 52, 55]


def test_a_history_with_its_columns_under_a_group_and_epochs_as_the_axis(tmp_path):
    import json

    doc = {"epochs": [0.0, 1.0, 2.0, 3.0], "metrics": {"loss": [3.0, 2.0, float("nan"), float("nan")],
                                                      "val_loss": [3.1, 2.2, 2.0, float("nan")]}}
    p = tmp_path / "history.json"
    p.write_text(json.dumps(doc), encoding="utf-8")  # (json.dumps writes a bare NaN, as Python's json reads it)
    run = read_run(p)
    assert list(run.get("loss").steps) == [0, 1, 2, 3] and math.isnan(run.get("loss").values[-1])
    assert run.get("eval/loss").values[2] == 2.0


def test_rows_that_count_only_epochs_have_the_epoch_as_their_step(tmp_path):
    p = tmp_path / "e.jsonl"
    p.write_text("".join(f'{{"epoch": {e}, "loss": {3 - e / 2}}}\n' for e in range(1, 5)), encoding="utf-8")
    assert list(read_run(p).get("loss").steps) == [1, 2, 3, 4]


def test_a_table_whose_columns_are_the_splits(tmp_path):
    lines = []
    for e in range(3):
        pre = f"2022-09-19 20:3{e}:19,62{e} - INFO - allennlp.training.tensorboard_writer - "
        lines += [pre + "                  Training |  Validation",
                  pre + f"loss          |     {0.51 - e / 10:.3f}  |     {0.54 + e / 100:.3f}",
                  pre + f"accuracy      |     {0.72 + e / 10:.3f}  |     0.762",
                  pre + "cpu_memory_MB |  1580.612  |       N/A",
                  f"2022-09-19 20:3{e}:20,000 - INFO - allennlp.training.trainer - Epoch duration: 0:07:35"]
    run = _read(tmp_path, lines)
    assert len(run.get("loss")) == 3 and list(run.get("eval/loss").values) == [0.54, 0.55, 0.56]
    assert len(run.get("eval/accuracy")) == 3


def test_a_one_column_csv_named_by_its_header(tmp_path):
    p = tmp_path / "losses.csv"
    p.write_text("losses\n" + "".join(f"{11.6 / (i + 1):.6f}\n" for i in range(12)), encoding="utf-8")
    run = read_run(p)
    assert len(run.get("loss")) == 12 and run.get("loss").values[0] == 11.6


def test_epochs_that_start_again_keep_every_row_in_line_order(tmp_path):
    p = tmp_path / "log.txt"
    rows = [(e, 40 - e) for e in range(3)] + [(e, 30 - e) for e in range(5)]  # a second run from epoch 0
    p.write_text("".join(f'{{"epoch": {e}, "train_loss": {v}}}\n' for e, v in rows), encoding="utf-8")
    run = read_run(p)
    assert list(run.get("loss").values) == [v for _, v in rows]
