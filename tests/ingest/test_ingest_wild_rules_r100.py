"""Round r100 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from written_log import read_text


def test_runs_appended_with_a_closing_line_at_the_same_epoch_are_runs(tmp_path):
    # a script re-run and appended to one log: two attempts that crashed before any epoch line (their closing
    # line has no epoch, so it sits at step 0), then three runs printing every 20th epoch and a closing line
    # that early stopping left at the same epoch each time
    text = ""
    for _ in range(2):
        text += "INFO - Starting the fit\nINFO - Fit finished - Train Acc: 0.71, Val Acc: 0.69\n"
    for r in range(3):
        text += "INFO - Starting the fit\n"
        for k, e in enumerate((20, 40, 60, 80)):
            text += (f"INFO - Epoch {e}/200: train_loss={0.6 - 0.05 * k - 0.01 * r:.4f}, "
                     f"val_loss={0.55 - 0.04 * k:.4f}, val_acc={0.8 + 0.02 * k:.4f}\n")
        text += "INFO - early stop at epoch 90\nINFO - Fit finished - Train Acc: 0.93, Val Acc: 0.85\n"
    run = read_text(tmp_path, text)
    assert run.meta.get("step_axis") != "line order"
    assert len(run.meta.get("run_starts") or []) == 2
    assert len(run.series["loss"].values) == 12


def test_validate_heading_over_the_training_lines_shape(tmp_path):
    # a hand-written loop calls one print for both passes, under a counted banner of each:
    # `=== training epoch N ===` and `=== validate epoch N ===`
    text = ""
    for e in range(1, 6):
        text += f"{'=' * 10}training epoch {e}{'=' * 10}\nEpoch {e - 1} | avg_loss = {1.0 / e:.3f}\n"
        text += "Training spent 2.5 s\n\n"
        text += f"{'=' * 10}validate epoch {e}{'=' * 10}\nEpoch {e - 1} | avg_loss = {1.2 / e:.3f}\n\n"
    run = read_text(tmp_path, text)
    assert list(run.series["loss"].values) == [1.0, 0.5, 0.333, 0.25, 0.2]
    assert list(run.series["eval/loss"].values) == [1.2, 0.6, 0.4, 0.3, 0.24]


def test_keras_evaluate_bar_after_a_print_is_no_epoch_bar(tmp_path):
    # fit() for three epochs, evaluate() on the validation set and a print of its result, then evaluate()
    # on the test set: the last bar is a result beside the last epoch, not that epoch's training values
    text = ""
    for e in range(1, 4):
        text += (f"Epoch {e}/3\n20/20 [==============================] - 1s 30ms/step - loss: {1.0 / e:.4f} - "
                 f"acc: {0.5 + 0.1 * e:.4f} - val_loss: {1.1 / e:.4f} - val_acc: {0.45 + 0.1 * e:.4f}\n")
    text += "5/5 [==============================] - 0s 8ms/step - loss: 0.3667 - acc: 0.7500\n"
    text += "[INFO] accuracy: 75.00%\n"
    text += "6/6 [==============================] - 0s 8ms/step - loss: 0.9100 - acc: 0.6000\n"
    run = read_text(tmp_path, text)
    assert list(run.series["loss"].values) == [1.0, 0.5, 0.3333]
    assert list(run.series["eval/test/loss"].values)[-1] == 0.91


def test_jsonl_runs_appended_are_placed_one_after_another(tmp_path):
    # a metrics file a trainer appends to: a second launch writes iterations 9..49 again after the first's
    import json

    rows = [{"iteration": it, "total_loss": 2.0 - 0.02 * it - 0.1 * r, "lr": 1e-4} for r in range(2)
            for it in range(9, 50, 10)]
    rows.insert(5, {"iteration": 49, "bbox/AP": 12.5})  # (the first run's evaluation, at its last iteration)
    run = read_text(tmp_path, "".join(json.dumps(x) + "\n" for x in rows), name="metrics.json")
    assert run.meta.get("run_starts") == [59.0]
    assert list(run.series["loss"].steps) == [9, 19, 29, 39, 49, 59, 69, 79, 89, 99]
    assert list(run.series["loss"].values)[5] == 2.0 - 0.18 - 0.1


def test_jsonl_resume_that_logs_a_few_steps_again_is_no_new_run(tmp_path):
    import json

    steps = [10, 20, 30, 40, 30, 40, 50, 60]
    run = read_text(tmp_path, "".join(json.dumps({"step": s, "loss": 1.0 / (i + 1)}) + "\n"
                                      for i, s in enumerate(steps)), name="log.jsonl")
    assert not run.meta.get("run_starts")



def test_first_printed_counter_is_the_file_first_step_only_when_it_opens_the_count():
    import numpy as np

    from triage.ingest.textlog import _place_runs

    # lines before the first counter sit at step 0; the counter opens at 20 and counts by 20: back at 20 is a new run
    raw = np.array([0.0, 0.0, 20, 40, 60, 80, 20, 40, 60, 80])
    _, starts = _place_runs(raw, np.ones(len(raw), bool), first_printed=20.0)
    assert starts == [100.0]
    # a setting carried as the epoch (`Epochs : 30`) before the lines that count from 1: a resume from epoch 20
    # that re-runs 21-30 goes back to 21, which is no first count
    raw = np.array([0.0, 30, 30] + list(range(1, 26)) + [30] + list(range(21, 31)), dtype=float)
    _, starts = _place_runs(raw, np.ones(len(raw), bool), first_printed=30.0)
    assert len(starts) == 1  # (the drop from the setting to epoch 1; the resume is none)


def test_constant_iteration_on_epoch_lines_of_two_launches_is_a_size(tmp_path):
    # one line per epoch printing the epoch's last iteration (always 30); a second launch appended counts its
    # epochs from 1 again: the iteration is still the epoch's size, no step, and every epoch line is a point
    text = ""
    for launch, epochs in ((0, 4), (1, 6)):
        text += "".join(f"train INFO: eta: 0:10:00 epoch: {e} iter: 30 loss: {1.5 - 0.1 * e - 0.02 * launch:.4f} "
                        f"(1.9000) lr: 0.000100\n" for e in range(1, epochs + 1))
    run = read_text(tmp_path, text)
    assert len(run.series["loss"].values) == 10
    assert list(run.series["loss"].values)[:2] == [1.4, 1.3]
    assert run.meta.get("step_axis") == "epoch" and len(run.meta.get("run_starts") or []) == 1


def test_a_lone_total_on_a_counted_line_is_the_loss(tmp_path):
    text = "".join(f"[ep {e}/50, it {i}/300] total: {2.0 - 0.1 * e - 0.001 * i:.5f}\n"
                   for e in range(1, 4) for i in (0, 100, 200))
    run = read_text(tmp_path, text)
    assert list(run.series["loss"].values)[:2] == [1.9, 1.8]
    # a total beside what it counts stays a count
    run = read_text(tmp_path, "".join(f"Epoch {e}: correct: {400 + e} total: 500 acc: {0.8 + 0.01 * e:.2f}\n"
                                      for e in range(1, 5)))
    assert "loss" not in run.series


def test_keras_rl_episode_steps_is_the_episode_length(tmp_path):
    text = "".join(f"  {40 * i}/1000: episode: {i}, duration: 0.1s, episode steps: {10 + i}, steps per second: 100, "
                   f"episode reward: {10.0 + i:.3f}, mean reward: 1.000 [1.000, 1.000], loss: {0.5 / i:.6f}\n"
                   for i in range(1, 6))
    run = read_text(tmp_path, text)
    assert list(run.series["episode_length"].values) == [11, 12, 13, 14, 15]


def test_early_stopping_helper_notice_is_the_val_loss_when_nothing_else_prints_it(tmp_path):
    # the copied EarlyStopping helper: `Validation loss decreased (old --> new).  Saving model ...`
    text, best = "", "inf"
    for e in range(4):
        new = 12.0 - e
        text += f"epoch {e}  The loss is: {0.7 - 0.05 * e:.5f}\n"
        text += f"Validation loss decreased ({best} --> {new:.6f}).  Saving model ...\nThe valid acc is: 0.{60 + e}\n"
        best = f"{new:.6f}"
    run = read_text(tmp_path, text)
    assert list(run.series["eval/loss"].values) == [12.0, 11.0, 10.0, 9.0]
    # beside an epoch line that prints the validation loss itself, the notice repeats it
    text = "".join(f"Epoch: {e} | Train Loss: {0.5 - 0.01 * e:.4f} Vali Loss: {0.4 - 0.01 * e:.4f}\n"
                   f"Validation loss decreased ({0.41 - 0.01 * e:.6f} --> {0.4 - 0.01 * e:.6f}).  Saving model ...\n"
                   for e in range(1, 5))
    run = read_text(tmp_path, text)
    assert list(run.series["eval/loss"].values) == [0.39, 0.38, 0.37, 0.36]
