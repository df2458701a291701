"""Reader rules for print styles met in the wild corpus (round 62): each test writes a log of its own
in the style that asked for the rule."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_counter_opening_the_metric_name(tmp_path):
    """`iter_300_AUC_frames is 0.88`: the name opens with the counter and its number joined by
    underscores (the counter word also met without its first `e`, `itration_300_...`), after a dump
    of `name:value` arguments. The number is the step, the rest of the name is the metric."""
    lines = ["lr:0.001", "batch_size:4", "max_epoch:10", "seed:7"]
    for it in (100, 200, 300):
        lines.append(f"itration_{it}_AUC_frames is {0.8 + it / 10000:.4f}")
        lines.append(f"itration_{it}_false_alarm_rate is {0.05 - it / 100000:.5f}")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 6
    assert [float(s) for s in run.get("AUC_frames").steps] == [100.0, 200.0, 300.0]
    assert _vals(run, "false_alarm_rate") == [0.049, 0.048, 0.047]
    assert "learning_rate" not in run.series and "batch_size" not in run.series
    run = _read(tmp_path, ["epoch_1_val_auc is 0.71", "epoch_2_val_auc is 0.74"], name="auc.log")
    assert _vals(run, "eval/auc") == [0.71, 0.74]
    assert [float(s) for s in run.get("eval/auc").steps] == [1.0, 2.0]


def test_score_at_an_overlap_threshold_after_a_bar_of_counts(tmp_path):
    """A detector's evaluation prints each recall at an IoU threshold written as a fraction after the
    name, with the stage between (`recall_rpn_0.5: 0.412000`), under a bar whose postfix holds a tuple
    of counts (`recall_0.5=(3, 9) / 120`): the recalls are scores; the tuple is no reading."""
    lines = ["2023-01-02 10:00:00,000   INFO  *************** EPOCH 20 EVALUATION *****************",
             "eval: 100%|##########| 30/30 [00:09<00:00,  3.10it/s, recall_0.5=(3, 9) / 120]",
             "2023-01-02 10:00:10,000   INFO  *************** Performance of EPOCH 20 *****************",
             "2023-01-02 10:00:10,001   INFO  recall_rpn_0.5: 0.412000",
             "2023-01-02 10:00:10,002   INFO  recall_head_0.5: 0.390500"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 2
    named = {name.removeprefix("eval/"): name for name in run.series}
    assert set(named) == {"recall_rpn_0.5", "recall_head_0.5"}
    assert _vals(run, named["recall_rpn_0.5"]) == [0.412]
    assert _vals(run, named["recall_head_0.5"]) == [0.3905]


def test_batch_heading_under_an_epoch_heading(tmp_path):
    """PointNet-family scripts print `**** EPOCH 003 ****`, then ` ---- batch: 010 ----` over
    `mean loss: ...` lines, the batch count starting over each epoch: every batch block is a record
    of its own, so a loss gone NaN in the first blocks stays read."""
    lines = ["**** EPOCH 003 ****", "Current learning rate: 0.001000"]
    for b, loss in ((10, "nan"), (20, "nan"), (30, "12.500000"), (40, "3.250000")):
        lines += [f" ---- batch: {b:03d} ----", f"mean box_loss: {loss}", f"mean loss: {loss}",
                  "mean obj_acc: 0.250000"]
    run = _read(tmp_path, lines)
    loss = _vals(run, "loss")
    assert len(loss) == 4
    assert math.isnan(loss[0]) and math.isnan(loss[1])
    assert loss[2:] == [12.5, 3.25]


def test_timestamp_written_with_dashes_only(tmp_path):
    """`2021-03-04-10-15: epoch: 1 |hm_loss 9.1 | loss 9.6 |`: a stamp whose clock is joined by dashes
    (`%Y-%m-%d-%H-%M`, a stamp fit for a file name) is no counter, even on a line that holds two writes
    of the values; the epoch places the line."""
    lines = [f"2021-03-04-10-{15 + 2 * ep:02d}: epoch: {ep} |hm_loss {9.1 / ep:f} | time 2.2 | loss {9.6 / ep:f} |"
             for ep in range(1, 5)]
    lines.append("2021-03-04-10-25: epoch: 5 |hm_loss 1.800000 | time 2.2 | loss 1.900000 | "
                 "hm_loss 1.750000 | time 3.1 | loss 1.850000 |")
    run = _read(tmp_path, lines)
    steps = [float(s) for s in run.get("loss").steps]
    assert steps[:4] == [1.0, 2.0, 3.0, 4.0] and max(steps) < 10
    assert _vals(run, "loss")[0] == 9.6


def test_results_banner_glued_to_its_fill(tmp_path):
    """Deeplearning4j's Evaluation.stats() heads its scores with `=====Scores=====`, the title touching
    the fill, then ` Accuracy:  0`, ` Precision: ?`, ` F1 Score:  NaN`: the block is an evaluation's
    result, its integer accuracy included."""
    lines = ["o.d.e.Evaluation - Creating confusion matrix based on classes passed in",
             "Actual Class 3 was predicted with Predicted 7 with count 1 times",
             "=================Scores=================",
             " Accuracy:  0",
             " Precision: ?",
             " Recall:    ?",
             " F1 Score:  NaN",
             "========================================"]
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [0.0]
    assert math.isnan(_vals(run, "f1")[0])


def test_line_cut_inside_a_rate_unit_at_the_console_width(tmp_path):
    """A console 80 characters wide cuts MXNet's Speedometer line inside its unit (`Speed: 566.06 sa`
    then `mples/sec       Train-Accuracy=0`, or `samples/se` then `c ...`): the next line is the rest of
    the record, its accuracy included, not a line of its own."""
    lines = []
    for i, (speed, acc) in enumerate(((551.25, "0.12"), (548.5, "0.15"), (560.75, "0.2"))):
        stamp = f"2018-03-01 10:00:0{i},000 [1] INFO - Epoch[3] Batch [{(i + 1) * 64}]"
        head = f"{stamp}        Speed: {speed:.2f} samples/sec"
        cut = 80 - (1 if i == 2 else 0)
        lines += [head[:cut], head[cut:] + f"       Train-Accuracy={acc}"]
    lines.append("2018-03-01 10:00:09,000 [1] INFO - Epoch[3] Validation-Accuracy=0.180")
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [0.12, 0.15, 0.2]
    assert _vals(run, "throughput") == [551.25, 548.5, 560.75]
    assert _vals(run, "eval/accuracy") == [0.18]


def test_julia_tuple_of_symbols_and_float32_values(tmp_path):
    """Knet's examples report with Julia's `println((:epoch,3,:trn,0.81f0,:tst,0.79f0))`: a tuple of
    symbols each before its value, a Float32 written with an `f` exponent (`2.5f-3`) and its NaN as
    `NaN32`; the epoch counts, the other symbols name the values."""
    lines = ["opts=(:seed,-1)(:batchsize,100)(:epochs,3)(:lr,0.5)",
             "(:epoch,0,:trn,0.112f0,:tst,0.109f0)",
             "(:epoch,1,:trn,0.905f0,:tst,0.9f0)",
             "(:epoch,2,:trn,2.5f-3,:tst,NaN32)"]
    run = _read(tmp_path, lines)
    assert _vals(run, "trn") == [0.112, 0.905, 0.0025]
    tst = _vals(run, "tst")
    assert tst[:2] == [0.109, 0.9] and math.isnan(tst[2])
    assert [float(s) for s in run.get("trn").steps] == [0.0, 1.0, 2.0]
    assert "batchsize" not in run.series and "lr" not in run.series
