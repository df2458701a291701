"""Reading rules asked for by the more/repos/threads/wild3-12/wild25 collections (round r3), each on a
small synthetic log written in the style that needed it (never a copy of a corpus file)."""

from __future__ import annotations

from written_log import read_written as _read


def test_a_results_table_with_only_a_validation_loss_scores_the_evaluation(tmp_path):
    """An HF model card's results table (`| Epoch | Step | Validation Loss | Accuracy | F1 |`) has no
    training loss column: the scores beside the validation loss are the evaluation's."""
    lines = ["| Epoch | Step | Validation Loss | Accuracy | F1 |", "|:---:|:---:|:---:|:---:|:---:|"]
    lines += [f"| {e} | {e * 120} | {0.9 - 0.05 * e:.4f} | {0.6 + 0.03 * e:.4f} | {0.55 + 0.03 * e:.4f} |"
              for e in range(1, 6)]
    run = _read(tmp_path, lines, "README.md.txt")
    assert {"eval/loss", "eval/accuracy", "eval/f1"} <= set(run.series)
    assert "accuracy" not in run.series and len(run.get("eval/accuracy").values) == 5


def test_a_table_with_a_plain_loss_column_keeps_its_scores_as_they_are(tmp_path):
    """`epoch | loss | accuracy | val_loss` names no split for its first loss: the accuracy stays training's."""
    lines = ["| epoch | loss | accuracy | val_loss |", "|---|---|---|---|"]
    lines += [f"| {e} | {1.0 - 0.1 * e:.3f} | {0.5 + 0.05 * e:.3f} | {1.1 - 0.1 * e:.3f} |" for e in range(1, 6)]
    run = _read(tmp_path, lines)
    assert "accuracy" in run.series and "eval/loss" in run.series


def _keras_bar(n, total, loss):
    done = int(30 * n / total)
    return f"{n:>4}/{total} [{'=' * done}>{'.' * (29 - done)}] - ETA: 12s - loss: {loss:.4f}"


def test_a_keras_bar_that_never_ends_keeps_every_redraw(tmp_path):
    """Keras redraws pasted one per line from a run that died inside its first epoch: with no
    finished bar there is no epoch value, so each redraw is a row (in the order printed)."""
    lines = [_keras_bar(n, 600, 2.5 - 0.01 * i) for i, n in enumerate(range(40, 400, 40))]
    loss = _read(tmp_path, lines).get("loss")
    assert loss is not None and len(loss.values) == 9
    assert loss.values[0] == 2.5 and abs(loss.values[-1] - 2.42) < 1e-9


def test_finished_keras_epochs_still_give_one_row_each(tmp_path):
    """`Epoch 1/3` then redraws up to `600/600`: the finished bar alone stands for the epoch, even when
    the last epoch is cut mid-bar."""
    lines = []
    for e in range(1, 4):
        lines.append(f"Epoch {e}/3")
        lines += [_keras_bar(n, 600, 2.0 / e - 0.001 * n) for n in (200, 400, 600)]
    lines += ["Epoch 4/4", _keras_bar(200, 600, 0.5), _keras_bar(400, 600, 0.45)]
    run = _read(tmp_path, lines)
    assert int(run.meta["rows"]) <= 4


def test_a_keras_callback_message_glued_to_the_bar_leaves_the_value(tmp_path):
    """TerminateOnNaN writes `Batch 3: Invalid loss, terminating training` right after the bar's last
    value, with no newline: the value before it is still the loss."""
    lines = ["Epoch 1/5", _keras_bar(2, 300, 51.25), _keras_bar(3, 300, 44.125) + "Batch 3: Invalid loss, terminating training",
             _keras_bar(4, 300, float("inf")).replace("inf", "inf ")]
    loss = _read(tmp_path, lines).get("loss")
    assert loss is not None and loss.values[1] == 44.125 and len(loss.values) == 3


def test_a_python_warning_glued_after_a_bar_redraw_leaves_the_redraw(tmp_path):
    """A `warnings.warn` message (`/site-packages/mod.py:12: UserWarning: ...`) printed to stderr
    right after a bar redraw on stdout: the redraw before it still counts."""
    bars = "".join(f"\r[Training] {i}/90 [{'=' * (i // 3)}>{'.' * (29 - i // 3)}] - ETA: 1:0{i % 10}  [ loss={9 - 0.25 * i:.4f} ]"
                   for i in range(1, 9))
    line = bars + ("/opt/env/lib/python3.9/site-packages/pkg/layers.py:88: UserWarning: a uint8 mask is deprecated "
                   "(Triggered internally at ../src/native/Compare.cpp:413.)")
    lines = ["***** Running training *****", "  Num examples = 2880", "Epoch: 0/10", line, "  out = torch.where(m, a, b)"]
    loss = _read(tmp_path, lines).get("loss")
    assert loss is not None and len(loss.values) == 8 and loss.values[-1] == 7.0


def test_a_compact_date_stamp_is_no_step(tmp_path):
    """`%Y%m%d-%H:%M:%S` before each line (`20240311-09:15:42 Train Epoch: 3/40 ...`): the eight-digit
    date is a timestamp, not a step counter; the epochs place the losses."""
    lines = []
    for e in range(1, 6):
        lines.append(f"20240311-{9 + e:02d}:15:42 Train Epoch: {e}/40 ...")
        lines.append(f"20240311-{9 + e:02d}:40:07     total_loss: {20 - e:.4f} time: 24m 25s")
    loss = _read(tmp_path, lines).get("loss")
    assert loss is not None and list(loss.values) == [19.0, 18.0, 17.0, 16.0, 15.0]
    assert max(float(s) for s in loss.steps) < 100


def test_a_headerless_table_of_a_counter_and_several_numbers_is_read(tmp_path):
    """Columns with no header (an lcurve file, a parse of a solver log): a rising whole counter, then
    a few numbers with a point. The counter is the step; the columns keep numbered names."""
    lines = [f"  {1000 * i:>7}    {2.5 / i:.4e}    {0.8 / i:.4e}    {1e-3 * 0.95 ** i:.1e}" for i in range(1, 9)]
    run = _read(tmp_path, lines, "lcurve.out")
    assert sorted(run.series) == ["value_1", "value_2", "value_3"]
    assert len(run.get("value_1").values) == 8 and float(run.get("value_1").steps[-1]) == 8000.0


def test_a_savetxt_table_whose_counter_is_written_as_a_float(tmp_path):
    """`numpy.savetxt` with `%.18e` writes the step as `3.000000000000000000e+03` too: still the step."""
    lines = ["# step, loss_train, loss_test"]
    lines += [f"{1000 * i:.18e} {0.3 / (i + 1):.18e} {0.31 / (i + 1):.18e}" for i in range(10)]
    run = _read(tmp_path, lines, "loss.dat")
    got = run.get("value_1")
    assert got is not None and len(got.values) == 10 and float(got.steps[-1]) == 9000.0


def test_rows_of_whole_numbers_only_are_no_table(tmp_path):
    """A confusion matrix's rows (`3 120 4 0`) hold no number with a point: nothing is read from them."""
    lines = ["Epoch 1 loss: 1.25", "Epoch 2 loss: 1.05", "Epoch 3 loss: 0.95"]
    lines += [f"{i} {100 + i} {4 - i} 0" for i in range(4)]
    run = _read(tmp_path, lines)
    assert sorted(run.series) == ["loss"]


def test_a_direction_note_after_a_name_is_not_part_of_it(tmp_path):
    """`acc (higher is better) : 0.61` (DeepSpeed-Chat's reward evaluation): the note says which way
    the metric should go; the name is `acc`."""
    lines = []
    for e in range(4):
        lines.append(f"***** Evaluating reward, Epoch {e}/3 *****")
        lines.append(f"chosen_last_scores (higher is better) : {1.5 + e * 0.25}, acc (higher is better) : {0.5 + e * 0.03:.2f}")
        if e < 3:
            lines.append(f"Epoch {e + 1}/3 with loss {0.7 - 0.05 * e:.3f}")
    run = _read(tmp_path, lines)
    names = set(run.series)
    assert "chosen_last_scores" in names and any(n.endswith("accuracy") for n in names)
    assert len(run.get("chosen_last_scores").values) == 4


def test_a_line_of_zeros_after_a_zero_is_no_echo(tmp_path):
    """`Epoch 6, Average loss: 0.0000, ...` then `Verification error= 0.0%, loss= 0.0000`: two numbers
    that are both zero agree by chance; the second line is a measurement of its own, not a copy."""
    lines = []
    for e in range(1, 4):
        lines.append(f"2018-07-28 20:0{e}:05,497 Epoch {e}, Average loss: 0.0000, learning rate: 0.0010")
        lines.append(f"2018-07-28 20:0{e}:07,193 Verification error= 0.0%, loss= 0.0000")
        lines += [f"2018-07-28 20:0{e}:1{i},507 Iter {e * 10 + i}, Minibatch Loss= 0.0000, Training Accuracy= 1.0000"
                  for i in range(3)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 15
    assert "a line that repeats the values printed just before it" not in run.meta["skipped"]
