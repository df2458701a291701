"""Line-shape rules the wild corpus asked for (round r87), each tried on a short log written for
the test in the style of the prints that needed it."""

from __future__ import annotations

import math

from written_log import read_written as _read


def test_one_epoch_summary_between_restarting_iteration_counters_makes_epoch_and_batch(tmp_path):
    """`Iter: 000, Train Loss: ...` every few batches, an `Epoch: 001, ...` summary, then `Iter: 000`
    again: with a single epoch summary between them the counter restarting is the next epoch, not a
    second run in the file."""
    lines = ["starting the loop"]
    for i, loss in zip((0, 40, 80, 120), (9.5, 8.25, 7.5, 7.0)):
        lines.append(f"Iter: {i:03d}, Train Loss: {loss:.4f}, Train MAE: {loss / 2:.4f}")
    lines.append("Epoch: 001, Train Loss: 8.0000, Train MAE: 4.0000, ")
    lines.append("Epoch: 001, Valid Loss: 8.5000, Valid MAE: 4.2500")
    lines.append("Iter: 000, Train Loss: 6.5000, Train MAE: 3.2500")
    lines.append("Iter: 040, Train Loss: 6.2500, Train MAE: 3.1250")
    run = _read(tmp_path, lines)
    assert not run.meta.get("run_starts")
    assert run.meta.get("step_axis") == "epoch+batch"
    loss = run.get("loss")
    assert loss is not None
    steps = list(loss.steps)
    assert steps == sorted(steps) and len(set(steps)) == len(steps)
    assert math.isclose(loss.values[0], 9.5) and math.isclose(loss.values[-1], 6.25)
    assert run.get("eval/loss") is not None


def test_csv_runs_appended_under_one_header_follow_one_another(tmp_path):
    """Keras CSVLogger(append=True) run twice: one header, then the epoch column starts again at 0.
    The second run is placed after the first instead of overwriting its epochs."""
    rows = ["epoch,loss,val_loss"]
    rows += [f"{e},{1.0 - e / 10:.3f},{1.1 - e / 10:.3f}" for e in range(5)]
    rows += [f"{e},{0.9 - e / 20:.3f},{1.0 - e / 20:.3f}" for e in range(4)]
    run = _read(tmp_path, rows, name="training_log.csv")
    loss = run.get("loss")
    assert len(loss.values) == 9 and list(loss.steps) == list(range(9))
    assert math.isclose(loss.values[0], 1.0) and math.isclose(loss.values[-1], 0.75)
    assert run.meta.get("run_starts") == [5.0]
    assert any("starts again" in w for w in run.meta["warnings"])


def test_csv_step_column_appended_runs_and_a_resume(tmp_path):
    """A progress CSV with a timestep column: a run reaching 4000 then a second launch from 500 is a
    new run, placed after; a step back to 3000 after 4000 is a resume (its steps are logged again)."""
    rows = ["total_timesteps,loss"]
    rows += [f"{t},{0.5 - t / 20000:.4f}" for t in range(1000, 5000, 1000)]
    rows += [f"{t},{0.4 - t / 40000:.4f}" for t in range(500, 3000, 500)]
    run = _read(tmp_path, rows, name="progress.csv")
    loss = run.get("loss")
    assert len(loss.values) == 9 and math.isclose(loss.values[0], 0.45)
    assert list(loss.steps)[4] == 5000.0 and run.meta.get("run_starts") == [5000.0]
    resumed = ["step,loss"] + [f"{t},{1.0 - t / 10000:.3f}" for t in (1000, 2000, 3000, 4000, 3000, 4000, 5000)]
    run = _read(tmp_path, resumed, name="resumed.csv")
    assert not run.meta.get("run_starts")
    assert list(run.get("loss").steps) == [1000, 2000, 3000, 4000, 5000]


def test_csv_appended_runs_skipped_rows_and_blocks_stay_placed(tmp_path):
    """A row with no step between the runs, and a file long enough to be read in several blocks,
    keep every run after the one before."""
    rows = ["epoch,loss"]
    for run_no in range(3):
        rows += [f"{e},{2.0 - e / 5000 - run_no / 10:.5f}" for e in range(3000)]
        rows.append(",0.5")
    run = _read(tmp_path, rows, name="log.csv")
    steps = run.get("loss").steps
    fin = steps[~(steps != steps)]
    assert (fin[1:] > fin[:-1]).all()
    assert len(run.meta.get("run_starts") or []) == 2


def test_a_whole_run_bar_goes_on_counting_past_an_epoch_notice(tmp_path):
    """A tqdm bar over all of training (`steps:  40%|...| 40/100 [..., avr_loss=0.31]`) redrawn into a
    log where the data loader says `epoch is incremented. current_epoch: 1, epoch: 2` in between: the
    bar does not start again, so its count stays the step and the earlier redraws keep theirs."""
    bar = "[12:00:{s:02d}] [STDERR] steps:  {p}%|###       | {n}/100 [01:{s:02d}<03:00,  2.00s/it, avr_loss={v}]"
    lines = [bar.format(s=n, p=n, n=n, v=f"{0.5 - n / 200:.3f}") for n in (40, 41, 42)]
    lines.append("[12:00:43] [STDERR] INFO:trainer.dataset:epoch is incremented. current_epoch: 1, epoch: 2")
    lines += [bar.format(s=n, p=n, n=n, v=f"{0.5 - n / 200:.3f}") for n in (43, 44)]
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert loss is not None and list(loss.steps) == [40, 41, 42, 43, 44]
    assert math.isclose(loss.values[0], 0.3) and math.isclose(loss.values[-1], 0.28)


def test_an_epoch_summary_train_loss_keeps_the_name_over_a_finished_bar_loss(tmp_path):
    """Each epoch ends with a finished bar (`12.0s - loss: 0.41 - acc: 80.0: 100%|...|`) and then a summary
    line (`train loss: 0.552 - train acc: 79.1 - val loss: 0.31 - val acc: 90.2`): as many of one as of the
    other, on lines of their own, the line that says it is the training loss is the training loss."""
    lines = []
    bar_losses = (0.41, -0.05, 0.93)
    means = (0.552, 0.531, 0.507)
    for ep, (b, m) in enumerate(zip(bar_losses, means), start=5):
        lines.append(f"Epoch: {ep}/50 - LR: 0.000300")
        lines.append(f"12.{ep}s - loss: {b:.3f} - acc: 80.000: 100%|##########| 6000/6000 [00:12<00:00, 480.00it/s]")
        lines.append(f"train loss: {m:.3f} - train acc: 79.{ep} - val loss: 0.3{ep} - val acc: 90.{ep}")
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert [round(float(v), 3) for v in loss.values] == list(means)
    assert run.get("eval/loss") is not None


def test_a_bare_loss_on_every_step_keeps_the_name_beside_epoch_train_losses(tmp_path):
    """A bare `loss` printed every step stays the training loss beside fewer `train_loss` epoch lines;
    so does a bar's `loss=` printed on the same line as its `train/loss=`."""
    lines = []
    for ep in range(3):
        lines += [f"step {ep * 4 + i} loss {2.0 - ep / 2 - i / 10:.3f}" for i in range(4)]
        lines.append(f"epoch {ep} train_loss {1.9 - ep / 2:.3f}")
    run = _read(tmp_path, lines)
    assert len(run.get("loss").values) == 12
    bars = [f"Epoch {ep}: 100%|#| 7/7 [00:04<00:00,  1.74it/s, loss=0.0{6 - ep}, v_num=1, train/loss={0.5 - ep / 10:.2f}]"
            for ep in range(3)]
    run = _read(tmp_path, bars, name="bar.log")
    assert [round(float(v), 2) for v in run.get("loss").values] == [0.06, 0.05, 0.04]


def test_an_uncounted_second_line_after_each_iteration_line_is_read_at_that_iteration(tmp_path):
    """Det3D / CenterPoint style: `Epoch [2/8][20/60]  lr: ..., time: ...` and on the next line
    `task : ['CAR'], loss: 12.5, hm_loss: 7.1, loc_elem: ['0.1', '0.2']` for every logged iteration:
    each loss belongs to the iteration just above it, not all to the end of the epoch."""
    lines = []
    for it, loss in zip((20, 40, 60), (12.5, 11.75, 11.0)):
        lines.append(f"2021-01-01 10:00:{it:02d},000 - INFO - Epoch [2/8][{it}/60]\tlr: 0.00050, eta: 0:10:00, "
                     f"time: 0.410, data_time: 0.010, memory: 2900, ")
        lines.append(f"2021-01-01 10:00:{it:02d},001 - INFO - task : ['CAR', 'PED'], loss: {loss}, "
                     f"hm_loss: {loss / 2}, loc_elem: ['0.1000', '0.2000'], num_pos: 120.0000")
        lines.append("")
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert [float(v) for v in loss.values] == [12.5, 11.75, 11.0]
    assert len(set(loss.steps)) == 3
    assert list(loss.steps) == list(run.get("learning_rate").steps)


def test_a_summary_after_each_epochs_last_batch_stays_an_epoch_reading(tmp_path):
    """`Epoch [1][100/100] loss: ...` then `mean acc: 0.7` with no counter, once per epoch: the summary
    follows the same count each time and keeps standing for its epoch."""
    lines = []
    for ep in range(1, 4):
        lines.append(f"Epoch [{ep}][50/100] loss: {2.0 / ep:.3f}")
        lines.append(f"Epoch [{ep}][100/100] loss: {1.8 / ep:.3f}")
        lines.append(f"val acc: 0.{5 + ep}")
    run = _read(tmp_path, lines)
    acc = run.get("eval/accuracy")
    assert acc is not None and len(acc.values) == 3


def test_keras_output_commented_out_with_an_indent_after_the_hash(tmp_path):
    """Keras verbose=2 output pasted under code as comments indented after the `#`
    (`#    Epoch 2/4` then `#    12/12 - 3s - loss: 0.41 - val_loss: 0.39 - 3s/epoch - 250ms/step`):
    each header still places its epoch's line."""
    lines = []
    for ep, loss in zip(range(1, 4), (0.52, 0.41, 0.37)):
        lines.append(f"#    Epoch {ep}/4")
        lines.append(f"#    12/12 - 3s - loss: {loss:.4f} - accuracy: 0.7{ep}00 - val_loss: 0.4{ep}00 - "
                     f"val_accuracy: 0.8000 - 3s/epoch - 250ms/step")
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert list(loss.steps) == [1, 2, 3]
    assert [round(float(v), 2) for v in loss.values] == [0.52, 0.41, 0.37]


def test_csv_run_placement_near_the_float_limit_stays_quiet(tmp_path):
    """Steps near the largest float leave no room to place a run after them: the steps stay as
    written, with no overflow warning and no infinite run start."""
    import warnings

    rows = ["step,loss"] + [f"{s},0.5" for s in ("1e307", "1.5e308", "0", "1", "2", "1.7e308", "0", "1", "2")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = _read(tmp_path, rows, name="huge.csv")
    starts = run.meta.get("run_starts") or []
    assert all(math.isfinite(s) for s in starts)
    assert run.meta["rows"] == 9
