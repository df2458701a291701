"""Reading rules asked for by the wild13-24 and wild26 collections (round r4), each on a small
synthetic log written in the style that needed it (never a copy of a corpus file)."""

from __future__ import annotations

import json

from written_log import read_written as _read


def _sb3_table(steps, loss, reward):
    border = "-" * 41
    return [border, "| rollout/                |             |", f"|    ep_rew_mean          | {reward:<11} |",
            "| time/                   |             |", f"|    total_timesteps      | {steps:<11} |",
            "| train/                  |             |", f"|    loss                 | {loss:<11} |",
            f"|    value_loss           | {loss * 3:<11.4g} |", border]


def test_a_paste_that_starts_inside_a_stable_baselines3_table_keeps_that_table(tmp_path):
    """Stable-Baselines3 stdout pasted from the middle of a table (its top border and group rows cut):
    the rows above the first border are one record, and take the group names the next table shows."""
    lines = ["|    loss                 | 0.912       |", "|    value_loss           | 2.5         |", "-" * 41]
    lines += _sb3_table(4096, 0.5, -300) + _sb3_table(8192, 0.4, -250)
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert [round(float(v), 3) for v in run.get("loss").values] == [0.912, 0.5, 0.4]
    assert "train/loss" not in run.series and "train/value_loss" not in run.series


def test_a_stable_baselines2_table_framed_by_comment_slashes_is_read(tmp_path):
    """stable-baselines 2 (PPO2) prints its keys with no groups, and a paste may frame the table with
    `//-----` lines: `total_timesteps` is the step."""
    border = "//" + "-" * 37
    lines = [border, "| approxkl           | 0.0012       |", "| policy_entropy     | 1.38         |",
             "| policy_loss        | -0.004       |", "| total_timesteps    | 20480        |",
             "| value_loss         | 12.5         |", border]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    assert float(run.get("approx_kl").steps[0]) == 20480.0
    assert "value_loss" in run.series


def test_an_ultralytics_8_3_validation_header_drawn_with_the_new_bar_heads_its_row(tmp_path):
    """Ultralytics 8.3 draws its bars with `━` after the share done (`100% ━━━━━━ 2/2 0.7it/s 3.0s`):
    the validation header carrying such a bar still heads the `all` row below it."""
    bar = "━" * 12
    lines = ["      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size",
             f"        1/3      2.10G      1.234      2.345      1.111         12        640: 100% {bar} 8/8 2.1it/s 3.9s",
             f"                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): 100% {bar} 2/2"
             " 1.5it/s 1.3s",
             "                   all         40         52      0.512      0.433      0.401      0.222"]
    run = _read(tmp_path, lines)
    assert {"eval/precision", "eval/recall", "eval/map50", "eval/map"} <= set(run.series)
    assert round(float(run.get("eval/map").values[0]), 3) == 0.222
    assert "step_time" not in run.series and "throughput" not in run.series


def test_pycocotools_summary_lines_are_evaluation_values(tmp_path):
    """pycocotools' `summarize()` prints one `Average Precision (AP) @[ IoU=... | area=... | maxDets=... ] = v`
    line per value: each is an evaluation value named as the COCO table names its columns."""
    lines = ["Epoch 3 | loss: 1.52", "Epoch 4 | loss: 1.41"]
    for iou, area, dets, v in (("0.50:0.95", "   all", 100, 0.312), ("0.50     ", "   all", 100, 0.521),
                               ("0.75     ", "   all", 100, 0.298), ("0.50:0.95", " small", 100, -1.0)):
        lines.append(f" Average Precision  (AP) @[ IoU={iou} | area={area} | maxDets={dets:>3} ] = {v:.3f}")
    lines.append(" Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets= 10 ] = 0.401")
    run = _read(tmp_path, lines)
    assert round(float(run.get("eval/map").values[0]), 3) == 0.312
    assert round(float(run.get("eval/map50").values[0]), 3) == 0.521
    assert {"eval/map75", "eval/map_small", "eval/mar_10"} <= set(run.series)
    assert float(run.get("eval/map").steps[0]) == 4.0
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 7


def test_a_jsonl_record_whose_metrics_are_all_null_is_no_row(tmp_path):
    """A trainer log (LLaMA-Factory's trainer_log.jsonl) whose closing record has only progress fields
    and nulls where the loss and learning rate were: no metric row."""
    recs = [{"current_steps": s, "total_steps": 30, "loss": 2.0 - 0.1 * s / 10, "learning_rate": 1e-4,
             "eval_loss": None, "epoch": s / 30, "percentage": 100 * s / 30} for s in (10, 20)]
    recs.append({"current_steps": 30, "total_steps": 30, "loss": None, "learning_rate": None, "eval_loss": None,
                 "epoch": 1.0, "percentage": 100.0})
    run = _read(tmp_path, [json.dumps(r) for r in recs], "trainer_log.jsonl")
    assert run.meta["rows"] == 2
    assert len(run.get("loss").values) == 2


def test_a_tally_aside_in_parentheses_is_no_value(tmp_path):
    """`Training loss (for 1 batch) at step 100: 2.19` (the Keras guides' custom loops): the aside says
    what the value covers; the loss is the line's value and the step its counter."""
    lines = []
    for s in range(0, 400, 100):
        lines += [f"Training loss (for 1 batch) at step {s}: {3.0 - s / 200:.4f}",
                  f"Seen so far: {(s + 1) * 32} samples"]
    run = _read(tmp_path, lines)
    assert [float(x) for x in run.get("loss").steps] == [0.0, 100.0, 200.0, 300.0]
    assert round(float(run.get("loss").values[0]), 4) == 3.0


def test_a_numbered_counter_in_a_banner_heads_its_block(tmp_path):
    """`-------- Iteration #50 --------` then one statistic a line (PPO-for-beginners): the banner is the
    counter, with a number sign before its number, and the block below is one record."""
    lines = []
    for it in (1, 2, 3):
        lines += [f"-------------------- Iteration #{it} --------------------",
                  f"Average Episodic Length: {200.0 - it}", f"Average Episodic Return: {-900.0 + 50 * it}",
                  f"Average Loss: {0.5 / it:.4f}", f"Timesteps So Far: {it * 4800}", "-" * 54, ""]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert [float(x) for x in run.get("loss").steps] == [1.0, 2.0, 3.0]
    assert {"episode_length", "episode_reward"} <= set(run.series)


def test_a_renamed_tensorboard_csv_download_takes_its_tag_from_the_name_s_end(tmp_path):
    """A TensorBoard `Wall time,Step,Value` download saved as `<run>_<tag>.csv` (`PPO_explained_variance.csv`):
    the known metric the file's name ends with names the series."""
    lines = ["Wall time,Step,Value"] + [f"{1700000000 + i}.5,{i * 2048},{-0.5 + 0.1 * i}" for i in range(1, 8)]
    run = _read(tmp_path, lines, "PPO_explained_variance.csv")
    assert "explained_variance" in run.series and "Value" not in run.series
    run = _read(tmp_path, lines, "export_7.csv")
    assert "explained_variance" not in run.series


def test_an_mlflow_metric_file_on_its_own_is_one_series(tmp_path):
    """A metric file copied out of an MLflow file store (`<timestamp ms> <value> <step>` a line, the key as
    the file's name, no extension): one series under that key."""
    lines = [f"{1628697792090 + 3500 * s} {300.0 - 7 * s} {s}" for s in range(8)]
    run = _read(tmp_path, lines, "loss")
    assert run.format == "mlflow"
    assert [float(x) for x in run.get("loss").steps] == list(map(float, range(8)))
    assert round(float(run.get("loss").values[-1]), 1) == 251.0


def test_a_spacy_losses_dict_is_one_loss_per_component(tmp_path):
    """spaCy's training loop `print(losses)` (`{'tagger': 0.52}`, `{'ner': 12.1, 'parser': 3.4}`): the keys
    are pipeline components, each value that component's loss."""
    lines = [f"{{'ner': {20.0 / (i + 1):.3f}, 'parser': {5.0 / (i + 1):.3f}}}" for i in range(6)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 6
    assert {"loss_ner", "loss_parser"} <= set(run.series)


def test_a_boosted_tree_s_depth_is_no_metric(tmp_path):
    """scikit-learn's HistGradientBoosting verbose rounds (`[2/10] 1 tree, 31 leaves, max depth = 9, in
    0.010s`): with scoring off they print the trees' shape only, no metric; with it on, the losses."""
    shape = [f"[{i}/10] 1 tree, 31 leaves, max depth = {8 + i % 2}, in 0.01{i}s" for i in range(1, 6)]
    run = _read(tmp_path, ["Fitting gradient boosted rounds:"] + shape)
    assert run.meta["rows"] == 0
    scored = [f"[{i}/10] 1 tree, 31 leaves, max depth = 9, train loss: {0.7 - 0.01 * i:.5f}, "
              f"val loss: {0.71 - 0.01 * i:.5f}, in 0.010s" for i in range(1, 6)]
    run = _read(tmp_path, scored)
    assert {"loss", "eval/loss"} <= set(run.series) and "max_depth" not in run.series


def test_a_counter_line_with_only_its_duration_heads_the_lines_below(tmp_path):
    """TensorFlow's MNIST tutorial prints `Step 2800 (epoch 3.26), 16.1 ms` then a line per reading with no
    counter: the duration joins the pass's first reading instead of being a row of its own, and an
    error rate (`Validation error: 1.2%`) is a reading, never a failure."""
    lines = []
    for i, s in enumerate(range(100, 600, 100)):
        lines += [f"Step {s} (epoch {s / 860:.2f}), 16.{i} ms", f"Minibatch loss: {3.0 - 0.1 * i:.3f}, learning rate: 0.010000",
                  f"Minibatch error: {9.4 - i:.1f}%", f"Validation error: {8.2 - i:.1f}%"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 15
    assert [float(x) for x in run.get("loss").steps] == [100.0, 200.0, 300.0, 400.0, 500.0]
    assert len(run.get("step_time").values) == 5
    assert not [e for e in run.events if e.kind == "error"]


def test_a_metric_named_with_the_set_it_was_measured_on_is_that_set_s(tmp_path):
    """`Accuracy on Test-Set: 94.1% (9409 / 10000)` (a TensorFlow tutorial's test print): the words after
    `on` name the set, so the accuracy is the evaluation's, and the count in parentheses is no value."""
    lines = [f"Optimization Iteration: {i:>6}, Training Accuracy: {50 + i / 100:5.1f}%" for i in range(1, 602, 100)]
    lines += ["Time usage: 0:00:17", "Accuracy on Test-Set: 94.1% (9409 / 10000)"]
    run = _read(tmp_path, lines)
    assert len(run.get("accuracy").values) == 7
    assert [round(float(v), 1) for v in run.get("eval/accuracy").values] == [94.1]


def test_a_count_of_a_total_then_one_number_is_a_counted_value(tmp_path):
    """`  10000/ 200000: 2.0576` (a from-scratch training loop printing its step of the total and the
    loss, with no name): one unnamed value per step, kept beside the named lines of the same log."""
    lines = [f"{s:7d}/{200000:7d}: {3.3 - s / 100000:.4f}" for s in range(0, 100000, 10000)]
    lines += ["train 1.7690", "val 1.9936"]
    run = _read(tmp_path, lines)
    assert [float(x) for x in run.get("value").steps][:3] == [0.0, 10000.0, 20000.0]
    assert len(run.get("value").values) == 10 and run.meta["rows"] + run.meta.get("joined_lines", 0) == 12


def test_an_evaluation_heading_at_a_step_heads_its_statistics_lines(tmp_path):
    """`Eval metrics at step 6:` then `  Reward: mean=3.06, min=1.92, max=10.06, std=1.38` (an RL evaluation
    loop's print): the heading is the evaluation's counter, each statistics line gives its name's mean,
    and one heading's lines are one record."""
    lines = []
    for s, r in ((0, 3.06), (6, 4.5), (13, 5.25)):
        lines += [f"Eval metrics at step {s}:", f"  Reward: mean={r}, min={r - 1:.2f}, max={r + 2:.2f}, std=1.38",
                  f"  Length: mean={900 + s}.0, min=800.0, max=1000.0, std=12.0"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert [float(x) for x in run.get("eval/reward").steps] == [0.0, 6.0, 13.0]
    assert [float(v) for v in run.get("eval/reward").values] == [3.06, 4.5, 5.25]
    assert not any(k.endswith("std") or k.endswith("mean") for k in run.series)
