"""Line-shape rules the wild corpus asked for (sixteenth round of review), each tried on a short log
written for the test in the style of the prints that needed it."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_nan_redrawn_over_a_longer_number_keeps_only_the_nan(tmp_path):
    """A status line redrawn in place (`print(..., end="\\r")`) where `nan` overwrote a longer number
    and left its tail behind: `Loss: nan.37`, `Loss: nan37` read as `nan`, not as a missing value."""
    lines = ["Training step: 10/500. Played games: 2. Loss: 0.41",
             "Training step: 20/500. Played games: 3. Loss: 0.37",
             "Training step: 30/500. Played games: 4. Loss: nan.37",
             "Training step: 40/500. Played games: 5. Loss: nan37"]
    run = _read(tmp_path, lines)
    got = _vals(run, "loss")
    assert got[:2] == [0.41, 0.37]
    assert len(got) == 4 and all(math.isnan(v) for v in got[2:])


def test_a_max_score_line_is_a_best_so_far_not_a_series(tmp_path):
    """Swin-Transformer-style epoch ends: `* Val Acc 61.200 Val Loss 1.102` then `Max accuracy: 61.20%`.
    The max is the best evaluation so far (kept to pick a checkpoint), not a metric of its own."""
    lines = []
    best = 0.0
    for epoch, (acc, loss) in enumerate([(40.1, 1.7), (52.3, 1.4), (49.8, 1.5), (61.2, 1.1)]):
        best = max(best, acc)
        lines += [f"[2025-01-01 10:0{epoch}:00 net](main.py 186): INFO Train: [{epoch}/4]\tlr 0.001000\t"
                  f"loss {loss + 0.3:.4f} ({loss + 0.35:.4f})",
                  f"[2025-01-01 10:0{epoch}:10 net](main.py 116): INFO  * Val Acc {acc:.3f} Val Loss {loss:.3f}",
                  f"[2025-01-01 10:0{epoch}:10 net](main.py 123): INFO Max accuracy: {best:.2f}%"]
    run = _read(tmp_path, lines)
    assert not any("max" in name.lower() for name in run.series)
    assert _vals(run, "eval/accuracy") == [40.1, 52.3, 49.8, 61.2]


def test_an_lr_schedule_notice_before_the_first_record_is_not_a_setting(tmp_path):
    """Time-Series-Library style: `Updating learning rate to 0.0018` printed after each epoch, the
    excerpt opening on one of them. The notice says what the schedule set (it repeats at every change),
    so the first one is the LR the next pass trains with, not a setting echoed before training."""
    lines = ["Updating learning rate to 0.0018"]
    for epoch, lr in ((2, 0.0052), (3, 0.0086), (4, 0.0100)):
        lines += [f"\titers: 100, epoch: {epoch} | loss: 0.{60 + epoch}12345",
                  f"\titers: 200, epoch: {epoch} | loss: 0.{58 + epoch}12345",
                  f"Epoch: {epoch}, Steps: 281 | Train Loss: 0.6{epoch}1 Vali Loss: 0.68{epoch} Test Loss: 0.34{epoch}",
                  f"Updating learning rate to {lr}"]
    run = _read(tmp_path, lines)
    assert _vals(run, "learning_rate") == [0.0018, 0.0052, 0.0086, 0.0100]


def test_a_single_lr_line_before_training_is_still_a_setting(tmp_path):
    """A log that states its LR once before the loop (`lr: 0.001`) keeps treating it as a setting: only a
    notice the schedule prints again is read as the LR of a pass."""
    lines = ["learning rate: 0.001"] + [f"epoch {e} | loss: {2.0 - e / 10:.3f} | acc: {0.5 + e / 100:.3f}"
                                        for e in range(1, 8)]
    run = _read(tmp_path, lines)
    assert run.get("learning_rate") is None


def test_an_abbreviation_dot_in_a_name_is_not_part_of_it(tmp_path):
    """`Train Loss 0.10 | Train Acc. 0.97` in one script, `Train Loss: 0.15 | Train Acc: 0.95` in the
    next: the period after an abbreviated word (`Acc.`, `Avg.`) does not make another metric."""
    lines = ["Train Loss 0.10 | Train Acc. 0.97",
             "Test Acc: 0.955800",
             "Train Loss: 0.1529 | Train Acc: 0.945",
             "Test Acc: 0.963"]
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [0.97, 0.945]
    assert not any("." in name for name in run.series)


def test_a_bare_average_on_an_episode_line_is_the_mean_return(tmp_path):
    """`Episode   300   Avg:  -19.23   σ:    1.36   |   Steps:   437749`: on a line that counts episodes, a
    bare `Avg` (or `Mean`) is the running mean of the episodes' returns."""
    lines = [f"Episode {100 * i:5d}   Avg: {-20.5 + i / 2:7.2f}   \u03c3: {0.9 + i / 10:7.2f}   |   "
             f"Steps: {120000 * i:8d}  Secs: {340 * i:6d}" for i in range(1, 7)]
    run = _read(tmp_path, lines)
    assert _vals(run, "episode_reward") == [-20.0, -19.5, -19.0, -18.5, -18.0, -17.5]


def test_a_colon_counter_in_its_own_bracket_before_the_batch_bracket_is_the_epoch(tmp_path):
    """PyTorch's ImageNet example's ProgressMeter: `Epoch: [2][ 20/30]\\tTime ...\\tLoss 6.2e+00 (6.3e+00)`,
    then the validation's `Test: [5/10]` lines. The number in the bracket right after `Epoch:` is the
    epoch and the next bracket counts its batches: three epochs are one run, each with its evaluation."""
    lines = []
    for epoch in range(3):
        for batch in (0, 10, 20):
            loss = 6.9 - epoch * 0.3 - batch * 0.005
            lines.append(f"Epoch: [{epoch}][{batch:3d}/30]\tTime  0.512 ( 0.530)\tData  0.010 ( 0.020)\t"
                         f"Loss {loss:.4e} ({loss + 0.01:.4e})\tAcc@1 {epoch * 3 + batch / 10:6.2f} (  1.00)")
        for batch in (0, 5):
            lines.append(f"Test: [{batch}/10]\tTime  0.300 ( 0.310)\tLoss {6.8 - epoch * 0.2 - batch * 0.01:.4e} "
                         f"(6.5e+00)\tAcc@1 {epoch * 4 + batch / 5:6.2f} (  1.00)")
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert len(loss.values) == 9
    assert list(loss.steps) == sorted(loss.steps) and len(set(loss.steps)) == 9
    assert float(loss.values[0]) == 6.9 and abs(float(loss.values[-1]) - 6.2) < 1e-9
    assert not run.meta.get("restarts")
    assert len(run.get("eval/loss").values) == 3


def test_a_starred_summary_after_the_test_lines_is_the_evaluations(tmp_path):
    """PyTorch's ImageNet example ends each validation with ` * Acc@1 61.200 Acc@5 83.100` under its
    `Test: [b/N]` lines: no split word and no counter of its own, only the metrics the evaluation printed,
    so it is the evaluation's summary (the epoch's evaluation accuracy), not a training record."""
    lines = []
    for epoch in range(3):
        for batch in (0, 10, 20):
            lines.append(f"Epoch: [{epoch}][{batch:3d}/30]\tLoss {6.9 - epoch * 0.3 - batch * 0.005:.4e} (6.9e+00)\t"
                         f"Acc@1 {epoch * 3 + batch / 10:6.2f} (  1.00)\tAcc@5 {epoch * 5 + batch / 10:6.2f} (  2.00)")
        for batch in (0, 5):
            lines.append(f"Test: [{batch}/10]\tLoss {6.8 - epoch * 0.2:.4e} (6.5e+00)\t"
                         f"Acc@1 {epoch * 4 + batch / 5:6.2f} (  1.00)\tAcc@5 {epoch * 6 + batch / 5:6.2f} (  2.00)")
        lines.append(f" * Acc@1 {epoch * 4 + 0.5:.3f} Acc@5 {epoch * 6 + 0.7:.3f}")
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    assert _vals(run, "eval/accuracy") == [0.5, 4.5, 8.5]
