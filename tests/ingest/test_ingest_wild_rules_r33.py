"""Reader rules for print styles seen in real training logs (round 33): each test writes a small log in
the style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_darknet_region_lines_are_not_rows(tmp_path):
    """darknet's region layer prints `Region Avg IOU: ...` once per subbatch between the iteration
    lines (` 12: 3.10, 3.40 avg loss, 0.001 rate, ...`): diagnostics inside an iteration, not rows."""
    lines = []
    for it in (12, 13, 14):
        lines += [f"Region Avg IOU: 0.{it}1, Class: 0.52, Obj: 0.41, No Obj: 0.006, Avg Recall: 0.25,  count: 8"] * 4
        lines += [f"Region 82 Avg IOU: 0.3{it % 10}, Class: 0.5, Obj: 0.4, No Obj: 0.005, .5R: 0.1, .75R: 0.0,  count: 4"]
        lines.append(f" {it}: {4.0 - it / 10:.6f}, {4.5 - it / 10:.6f} avg loss, 0.001000 rate, 2.1 seconds, {it * 64} images")
        lines.append("Loaded: 0.000061 seconds")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert len(_vals(run, "loss")) == 3
    assert not any("IOU" in k or k == "count" for k in run.series)


def test_lone_scalar_tensor_lines_read_as_the_loss(tmp_path):
    """`print(loss)` in a loop, with autograd no longer tracking it: one bare scalar tensor repr per
    line (`tensor(2.3512, device='cuda:0')`), nothing else naming a metric."""
    lines = ["step output:", "```"]
    lines += [f"tensor({v}, device='cuda:0')" for v in ("2.3512", "2.1044", "nan", "nan")]
    lines += ["```", "why does the loss turn nan after the first steps?"]
    run = _read(tmp_path, lines)
    vals = _vals(run, "loss")
    assert vals[:2] == [2.3512, 2.1044]
    assert len(vals) == 4 and all(math.isnan(v) for v in vals[2:])


def test_one_or_two_lone_tensors_are_not_a_curve(tmp_path):
    """A scalar tensor printed once or twice (a shape check, a debug print) is no loss curve."""
    lines = ["tensor(0.5000)", "Epoch 1 acc: 0.91", "tensor(3.)"]
    run = _read(tmp_path, lines)
    assert "loss" not in run.series


def test_grouped_name_tuple_over_value_tuple(tmp_path):
    """GluonCV's style: several metrics of one kind as a tuple of names over a tuple of values,
    `Loss:(pitch, yaw, roll)/(18.756, 5.663, 16.291)`; each name takes the value at its place."""
    lines = []
    for b, (p, y, r) in enumerate([(18.7, 5.6, 16.2), (18.1, 5.4, 15.9), (17.9, 5.3, 15.5)]):
        lines.append(f"Epoch[003] Batch[{(b + 1) * 50 - 1:03d}/478] Speed: 541.4 samples/sec, "
                     f"Loss:(pitch, yaw, roll)/({p}, {y}, {r})")
    lines.append("Epoch[003] val  : MAE:(pitch, yaw, roll, mean)/(6.8, 8.0, 5.7, 6.9), Loss:(pitch, yaw, roll)/(76.1, 94.3, 86.9)")
    run = _read(tmp_path, lines)
    assert _vals(run, "Loss_yaw") == [5.6, 5.4, 5.3]
    assert _vals(run, "Loss_roll") == [16.2, 15.9, 15.5]
    assert _vals(run, "eval/Loss_pitch") == [76.1]
    assert "roll" not in run.series


def test_loss_word_with_a_time_unit_is_a_duration(tmp_path):
    """`Cost=229 sec`: `cost` names a loss, but a value in seconds is how long something took."""
    lines = [f"Epoch[{e:03d}] train: acc=0.{80 + e}, Cost={220 + e} sec, lr=0.0047{e}" for e in range(1, 5)]
    run = _read(tmp_path, lines)
    assert "loss" not in run.series
    assert _vals(run, "Cost_time") == [221.0, 222.0, 223.0, 224.0]


def test_darknet_region_lines_alone_stay_rows(tmp_path):
    """An excerpt of AlexeyAB darknet's region lines with no iteration line (`v3 (iou loss, ...) Region
    139 Avg (IOU: 0.14), count: 30, class_loss = 185.9, ...`): they are all the log says, so they stay."""
    lines = [f"v3 (iou loss, Normalizer: (iou: 0.07, obj: 1.00, cls: 1.00) Region {r} Avg (IOU: 0.{r}), count: 30, "
             f"class_loss = {r}.5, iou_loss = 6{r}.1, total_loss = {r + 70}.2 " for r in (139, 150, 161, 139, 150)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5


def test_epoch_recap_rounding_keeps_the_finer_value(tmp_path):
    """Flair's epoch recap (`EPOCH 1 done: loss 0.0350 - lr 0.1000`) repeats the last iteration's running
    loss (`epoch 1 - iter 240/249 - loss 0.03491753`) at the same step, rounded: the finer print is kept."""
    lines = [f"2019-02-19 18:37:0{i},467 epoch 1 - iter {i * 80}/249 - loss {v}"
             for i, v in enumerate(("0.04735912", "0.03604057", "0.03492595", "0.03491753"))]
    lines += ["2019-02-19 18:37:12,097 EPOCH 1 done: loss 0.0350 - lr 0.1000 - bad epochs 0",
              "2019-02-19 18:37:12,571 DEV  : loss 0.03877527 - f-score 0.5586 - acc 0.5586"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss")[-1] == 0.03491753


def test_repeated_step_with_another_value_keeps_the_last(tmp_path):
    """A step printed twice with values that are not one rounding of the other (a resumed run
    re-logging the step) keeps its last value, as before."""
    lines = ["step 1 loss 0.91234", "step 2 loss 0.81234", "step 2 loss 0.71", "step 3 loss 0.61234"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.91234, 0.71, 0.61234]


_KALDI = "LOG (nnet3-train:PrintStatsForThisPhase():nnet-training.cc:121) "


def test_kaldi_objective_function_lines(tmp_path):
    """Kaldi's nnet3 training logs: `Average objective function for 'output' for minibatches 0-9 is
    -2.31 over 5120 frames.` (a chain model adds its penalty terms: `is -0.08 + -0.01 = -0.09 over ...`):
    the average log-likelihood per frame, at the last minibatch of the span."""
    lines = [_KALDI + f"Average objective function for 'output' for minibatches {a}-{a + 9} is {v} over 5120 frames."
             for a, v in ((0, "-2.31"), (10, "-2.05"), (20, "-0.0712 + -0.0125 = -0.0837"))]
    lines.append("LOG (nnet3-train:PrintTotalStats():nnet-training.cc:190) Overall average objective function for "
                 "'output' is -1.48 over 15360 frames.")
    run = _read(tmp_path, lines)
    assert _vals(run, "log_likelihood") == [-2.31, -2.05, -0.0837]
    assert [float(s) for s in run.get("log_likelihood").steps] == [9.0, 19.0, 29.0]
    assert "loss" not in run.series


def test_kaldi_messages_hard_wrapped_by_a_paste(tmp_path):
    """The same Kaldi report hard-wrapped over three lines by the page it was pasted from
    (`LOG (...) Average ` / `objective function for 'output' ... is -35.0 over ` / `19538 frames.`)."""
    lines = ["```"]
    for a, v in ((40, "-35.0044"), (50, "-32.7891"), (60, "-42.1689")):
        lines += [_KALDI + "Average ", f"objective function for 'output' for minibatches {a}-{a + 9} is {v} over ",
                  "19538 frames."]
    lines.append("```")
    run = _read(tmp_path, lines)
    assert _vals(run, "log_likelihood") == [-35.0044, -32.7891, -42.1689]


def test_one_off_lines_with_a_planned_count_are_settings(tmp_path):
    """A run that stopped before its first epoch: its start line names the plan (`Starting training:
    history_window=30, horizon=1, epochs=50`) and its data lines the sizes (`Data shapes -> nodes: 2378,
    timesteps: 752`); each printed once, no metric named: no rows, even with a counter's word among them."""
    lines = ["23:31:11 INFO: Starting training: history_window=30, horizon=1, epochs=50",
             "23:31:12 INFO: Data shapes -> nodes: 2378, timesteps: 752, features: 2",
             "23:31:12 INFO: Samples -> train: 505, val: 217",
             "23:31:12 INFO: Using device: cpu with 8 threads"]
    run = _read(tmp_path, lines)
    assert int(run.meta.get("rows") or 0) == 0


def test_one_off_counter_line_with_a_known_metric_stays(tmp_path):
    """A single evaluation line with a counter and a metric triage knows (`Epoch 50: test accuracy 0.91`)
    is a result, not a setting."""
    run = _read(tmp_path, ["Starting training: epochs=50", "Epoch 50: test accuracy 0.91"])
    assert _vals(run, "eval/accuracy") == [0.91]


def test_fixed_width_header_with_two_counters_one_blank_apart(tmp_path):
    """NequIP's per-batch table: names right-aligned in fixed-width columns, so two short counters'
    names sit one blank apart (`# Epoch batch         loss       loss_f ...`) over a cell for each."""
    head = "# Epoch batch         loss       loss_f       loss_e        f_mae"
    lines = []
    for ep, (lo, lf, le, fm) in enumerate([(0.217, 0.178, 0.0382, 0.289), (0.0783, 0.0776, 0.000717, 0.2),
                                           (0.0611, 0.0603, 0.00081, 0.18)], 1):
        lines += ["training", head, f"{ep:7d}    16 {lo:12} {lf:12} {le:12} {fm:12}", ""]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.217, 0.0783, 0.0611]
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0]
