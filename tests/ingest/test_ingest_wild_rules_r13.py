"""Reading rules: counters given as a range, Burn's text dashboard, headerless `|` tables under a
`[ LEVEL : time ] -` logger, split measurements printed once, health metrics of binary classifiers,
settings dicts announced in Chinese, listings of named terms and their weights, best-so-far notices,
tags that end in the split's name, a counter followed by unnamed values, and Tesseract's training
lines. Every log here is written for the test."""

from __future__ import annotations

import math

from triage.ingest import read_run
from triage.ingest.aliases import table
from written_log import read_written as _read


def test_a_counter_printed_as_a_range_counts_to_its_end(tmp_path):
    """CNTK's `Epoch[ 1 of 1]-Minibatch[ 501-1000]: ...`: the line sums up the range, so it stands at its end."""
    lines = ["Starting minibatch loop."]
    for k, loss in enumerate([4.5, 3.25, 2.75]):
        lines.append(f" Epoch[ 1 of 1]-Minibatch[{k * 200 + 1:4d}-{(k + 1) * 200:4d}]: SamplesSeen = 200; "
                     f"TrainLossPerSample = {loss:.8f}; TotalTime = 1.5s")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("loss").values) == [4.5, 3.25, 2.75]


def test_burn_dashboard_lines_read_the_epoch_mean(tmp_path):
    """Burn's text renderer: `  - Train Loss: epoch X - batch Y` under `[Metrics]`; `epoch` and `batch` name two
    aggregates of one metric, not counters, and each line is read even though the snapshot is printed once."""
    lines = ["[Metrics]",
             "  - Train Accuracy: epoch 41.50 % - batch 43.00 %",
             "  - Train Loss: epoch 1.875 - batch 1.625",
             "  - Valid Accuracy: epoch 39.25 % - batch 40.00 %",
             "  - Valid Loss: epoch NaN - batch NaN",
             "",
             "[Progress]",
             "  - Iteration 310 Epoch 1/4"]
    run = _read(tmp_path, lines)
    # (the snapshot's four lines, a record printed as a block: one record of four lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 4
    assert list(run.get("loss").values) == [1.875]
    assert math.isnan(run.get("eval/loss").values[0])
    assert list(run.get("accuracy").values) == [41.5]
    assert list(run.get("eval/accuracy").values) == [39.25]


def test_headerless_pipe_rows_under_a_level_and_time_bracket(tmp_path):
    """WeSpeaker's table rows logged without their header: `[ INFO : 2025-01-02 03:04:05,678 ] - |  7|  1200|...|`;
    the first column holds (the epoch) while the second, an integer, rises: it is the step."""
    lines = [f"[ INFO : 2025-01-02 03:0{k}:05,678 ] - |         7|{1200 + k * 100:10d}|  1.25e-04|"
             f"{2.5 - k / 10:10.4f}|{60 + k:10.3f}|" for k in range(5)]
    lines.append("[ INFO : 2025-01-02 03:09:00,000 ] - +----------+----------+----------+----------+----------+")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5
    s = run.get("value_3")
    assert [float(x) for x in s.steps] == [1200, 1300, 1400, 1500, 1600]
    assert [round(float(v), 4) for v in s.values] == [2.5, 2.4, 2.3, 2.2, 2.1]


def test_a_split_measurement_printed_once_is_kept(tmp_path):
    """A line whose only key names a split and a loss or accuracy (`Train Accuracy: 0.00%`) is a measurement
    even with no counter and no repeat, never a setting."""
    run = _read(tmp_path, ["Training finished.", "Train Accuracy: 87.5%", "Valid Loss: 0.42"])
    assert list(run.get("accuracy").values) == [87.5]
    assert list(run.get("eval/loss").values) == [0.42]


def test_binary_classifier_health_metrics_are_known_names():
    """`sensitivity`, `specificity`, `fpr` and `kappa` (clinical and detection reports) are metrics, not settings."""
    tab = table()
    assert tab.resolve("sensitivity", "text").name == "sensitivity"
    assert tab.resolve("specificity", "text").name == "specificity"
    assert tab.resolve("fpr", "text").name == "false_positive_rate"
    assert tab.resolve("kappa", "text").name == "kappa"


def test_per_fold_metric_lines_keep_every_metric(tmp_path):
    """One metric a line after each fold (`sensitivity: 0.96`, `fpr: 0.003`, `kappa: 0.95`): all are read."""
    lines = []
    for fold in range(1, 4):
        lines += [f"Fold {fold}/3", f"sensitivity: 0.9{fold}", f"fpr: 0.00{fold}", f"accuracy: 0.9{fold + 3}",
                  f"kappa: 0.8{fold}", ""]
    run = _read(tmp_path, lines)
    for name in ("sensitivity", "false_positive_rate", "accuracy", "kappa"):
        assert len(run.get(name).values) == 3, name


def test_a_settings_dict_announced_in_chinese_is_no_record(tmp_path):
    """`参数配置: {'epochs': 100, 'lr': 0.001, ...}` (parameter configuration) is the run's settings."""
    lines = ["2024-01-01 10:00:00,000 - INFO - 参数配置: {'epochs': 100, 'batch_size': 32, 'lr': 0.001, 'gamma': 0.9}"]
    lines += [f"2024-01-01 10:0{e}:00,000 - INFO - Epoch {e} | loss: {3 - e / 10:.2f}" for e in range(1, 5)]
    run = _read(tmp_path, lines)
    assert "learning_rate" not in run.series and "batch_size" not in run.series
    assert list(run.get("loss").values) == [2.9, 2.8, 2.7, 2.6]


def test_a_listing_of_named_terms_and_weights_is_no_metric_table(tmp_path):
    """Isaac Lab's manager tables: `| Index | Name | Weight |` rows describe configured terms, not steps."""
    lines = ["[INFO] Reward Manager:  <RewardManager> contains 3 active terms.",
             "+------------------------------+",
             "|     Active Reward Terms      |",
             "+-------+-------------+--------+",
             "| Index | Name        | Weight |",
             "+-------+-------------+--------+",
             "|   0   | alive       |    1.0 |",
             "|   1   | terminating |   -2.0 |",
             "|   2   | pole_pos    |   -1.0 |",
             "+-------+-------------+--------+"]
    p = tmp_path / "train.log"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        run = read_run(p)
    except Exception:  # (nothing to read is an answer too)
        return
    assert not run.meta.get("rows")


def test_best_so_far_keys_after_a_verb_or_in_chinese_are_not_metrics(tmp_path):
    """`achieve BEST dev acc: 0.31 at global step: 200` and `记录的最优验证集损失: 0.0033` (the recorded best
    validation loss) repeat a best value; they are not series of their own."""
    lines = []
    for k in range(1, 4):
        lines.append(f"train acc: 0.2{k}, dev acc: 0.3{k}, loss: 1.{k}, global steps: {k * 200}")
        lines.append(f"achieve BEST dev acc: 0.3{k} at global step: {k * 200}")
    lines.append("记录的最优验证集损失: 0.0033")
    run = _read(tmp_path, lines)
    assert not any("BEST" in k or "achieve" in k for k in run.series)
    assert not any("最优" in k for k in run.series)


def test_a_best_model_notice_with_words_inside_echoes_the_validation_line(tmp_path):
    """`发现当前最优扩散模型 (Epoch 1) | 验证集损失: 0.0072` ("found the best diffusion model so far") after the
    validation line repeats its loss."""
    lines = []
    for e in range(1, 4):
        lines.append(f"[Train] Epoch {e:03d}: loss = 0.0{9 - e}")
        lines.append(f"[Val] Epoch {e:03d}: loss = 0.00{9 - e}")
        lines.append(f"发现当前最优扩散模型 (Epoch {e}) | 验证集损失: 0.00{9 - e} | 已保存为: best_epoch_{e:03d}.pth")
    run = _read(tmp_path, lines)
    assert len(run.get("eval/loss").values) == 3
    assert run.meta["rows"] == 6


def test_a_tag_that_ends_in_the_split_labels_the_line(tmp_path):
    """`[Diff-Val(Test-Normal)] Epoch 001 (Deterministic): loss = X`: a tag whose last part is a split word names
    the pass, and its parenthesised qualifier is not part of any key."""
    lines = []
    for e in range(1, 4):
        lines.append(f"[Train] Epoch {e:03d}: loss = 0.{9 - e}")
        lines.append(f"[Diff-Val(Test-Normal)] Epoch {e:03d} (Deterministic): loss = 0.{8 - e}")
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [0.8, 0.7, 0.6]
    assert list(run.get("eval/loss").values) == [0.7, 0.6, 0.5]


def test_a_counter_then_unnamed_comma_values_is_a_row(tmp_path):
    """`INFO:name, <time>, epoch, 0040, 0.0159, 0.0170`: the counter is named, the values after it are not."""
    lines = [f"INFO:Trainer, 2022-03-10 18:{30 + e}:12,212, epoch, {e:04d}, {0.5 / e:.6f}, {0.6 / e:.6f}"
             for e in range(1, 6)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5
    assert [float(x) for x in run.get("value_1").steps] == [1, 2, 3, 4, 5]
    assert round(float(run.get("value_2").values[0]), 6) == 0.6


def test_tesseract_training_lines_and_their_best_notices(tmp_path):
    """lstmtraining's `At iteration N/M/M, Mean rms=..%, delta=..%, char train=..%, word train=..%`: char and word
    error rates; the `2 Percent improvement time=..., best error was X @ N` lines are best-so-far notices."""
    lines = []
    for k in range(3):
        lines.append(f"2 Percent improvement time={-100 - k}, best error was 7.0{k} @ {3990 + k}")
        lines.append(f"At iteration {1100 + k * 50}/{1900 + k * 100}/{1900 + k * 100}, Mean rms=0.35{k}000%, "
                     f"delta=1.0{k}0000%, char train=4.{9 - k}00000%, word train=34.{k}00000%, skip ratio=0.000000%,  "
                     f"New best char error = 4.{9 - k}00000 wrote checkpoint.")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("cer").values) == [4.9, 4.8, 4.7]
    assert len(run.get("wer").values) == 3


def test_regression_errors_are_known_metrics(tmp_path):
    """chemprop-style `Validation rmse = 3.53` after the epoch's `Loss = ...` lines: RMSE and MAE are metrics of a
    regression, read under their split."""
    assert table().resolve("val_mae", "text").name == "eval/mae"
    lines = []
    for e in range(1, 4):
        lines.append(f"Epoch {e}")
        lines += [f"Loss = {0.1 / e + k / 100:.4e}, PNorm = 34.{e}, GNorm = 1.{k}" for k in range(2)]
        lines.append(f"Validation rmse = 3.{9 - e}00000")
    run = _read(tmp_path, lines)
    assert [round(float(v), 3) for v in run.get("eval/rmse").values] == [3.8, 3.7, 3.6]


def test_a_step_count_after_an_episode_reward_is_the_episode_length(tmp_path):
    """joyrl's `Episode: 5/100, Reward: 12.000, Step: 12`: the steps printed after the episode's reward are how
    long that episode lasted; the episode counter is the line's step, so nothing goes back."""
    lengths = [12, 30, 9, 44, 17]
    lines = [f"2023-04-19 02:24:1{i} - r - INFO: - Episode: {i + 1}/5, Reward: {n:.3f}, Step: {n}"
             for i, n in enumerate(lengths)]
    run = _read(tmp_path, lines)
    s = run.get("episode_reward")
    assert [float(x) for x in s.steps] == [1, 2, 3, 4, 5]
    assert [float(v) for v in s.values] == [12, 30, 9, 44, 17]
    assert not run.meta.get("restarts")


def test_an_ignite_best_value_line_and_an_until_target_are_no_metrics(tmp_path):
    """Ignite: `Key metric: train_mean_dice best value: 0.41 at epoch: 20` tracks the best so far, and `resuming from
    iteration 0, epoch 30 until 31 epochs` names a target count, not a value."""
    lines = []
    for e in range(1, 4):
        lines.append(f"[2023-04-08 05:2{e}:12.217][ INFO](ignite.engine.engine.SupervisedTrainer) - "
                     f"Epoch: {e}/5, Iter: 1/1 -- train_loss: 1.{9 - e}")
        lines.append(f"[2023-04-08 05:2{e}:12.442][ INFO](ignite.engine.engine.SupervisedTrainer) - "
                     f"Key metric: train_mean_dice best value: 0.{e}1 at epoch: {e}")
        lines.append(f"[2023-04-08 05:2{e}:12.443][ INFO](ignite.engine.engine.SupervisedEvaluator) - "
                     f"Engine run resuming from iteration 0, epoch {e - 1} until {e} epochs")
    run = _read(tmp_path, lines)
    assert sorted(run.series) == ["loss"]
    assert run.meta["rows"] == 3


def test_a_step_with_an_aside_then_one_unnamed_value_is_a_row(tmp_path):
    """scVAE's `Step 4658 (213 ms): -1675.1.`: the step, how long it took, then the batch's value, never named."""
    lines = ["Epoch 9 (10.4 s):", "    Training set (3.42 s): ELBO: -1709.1, ENRE: -1692.1, KL: 16.986.", ""]
    lines += [f"Step {4658 + 5 * k} (21{k} ms): -17{k}0.5." for k in range(4)]
    run = _read(tmp_path, lines)
    s = run.get("value")
    assert [float(x) for x in s.steps] == [4658, 4663, 4668, 4673]
    assert [float(v) for v in s.values] == [-1700.5, -1710.5, -1720.5, -1730.5]
