"""Reader rules for print styles met in the wild corpus (round 66): each test writes a log of its own
in the style that asked for the rule."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_benchmark_result_lines_led_by_a_split_phrase(tmp_path):
    """An optical-flow reference's evaluation lines, one per benchmark, tab-separated and printed once
    each (`Sintel val clean epe: 1.38<TAB>1px: 0.90<TAB>3px: 0.96<TAB>f1: 4.02`): the first name is a
    phrase that names the evaluated split and ends in a metric, so the line is a result, not a setting,
    though the thresholds' scores after it carry names the alias table does not know."""
    lines = ["Chairs val clean epe: 1.5100\t1px: 0.8800\t3px: 0.9400\tf1: 5.1000",
             "Chairs val final epe: 2.9000\t1px: 0.8100\t3px: 0.9000\tf1: 8.2000",
             "python evaluate.py --dataset things --model flow_large",
             "Things val epe: 4.2000\t1px: 0.6100\t3px: 0.8000\tf1: 15.3000"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "1px") == [0.88, 0.81, 0.61]
    # a phrase with no split word, or a knob beside it, is still a setting quoted once
    run = _read(tmp_path, ["Chairs clean epe: 1.51\t1px: 0.88", "Things val epe: 4.2\tlr: 0.001"], name="knobs.log")
    assert run.meta["rows"] == 0


def test_learning_rate_in_a_dotted_misc_group(tmp_path):
    """A 3D detector's progress line that groups its keys with dots (`runtime.step=50, loss.cls_loss=0.41,
    ..., misc.lr=0.0002, misc.num_pos=31`, second.pytorch): `misc.lr` is the learning rate, its other
    `misc.` keys stay counts of their own."""
    lines = [f"runtime.step={s}, runtime.steptime=0.15, loss.cls_loss={c}, loss.loc_loss={c / 2}, rpn_acc=0.99, "
             f"misc.num_pos=31, misc.lr={lr}" for s, c, lr in ((50, 0.41, 0.0002), (100, 0.37, 0.00021))]
    run = _read(tmp_path, lines)
    assert _vals(run, "learning_rate") == [0.0002, 0.00021]
    assert "misc.num_pos" in run.series


def test_epoch_and_batch_as_two_bracketed_count_pairs(tmp_path):
    """A change-detection trainer's progress line that writes its place as two bracketed pairs of a count
    and its total (`Is_training: True. [3,199][101,445], imps: 204.40, G_loss: 1.19`, BIT_CD and
    ChangeFormer): epoch 3 of 199, batch 101 of 445; the comma in a pair is no thousands separator, so
    no series of `3199` is read off the flag before it."""
    lines = [f"Is_training: True. [3,199][{i},445], imps: 204.40, est: 30.46h, G_loss: {v}, running_mf1: 0.48"
             for i, v in ((1, 1.25), (101, 1.20), (201, 1.06))]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert "True" not in run.series
    assert _vals(run, "running_mf1") == [0.48, 0.48, 0.48]
    assert run.meta.get("step_axis") == "epoch+batch"
    # a count beyond its total is no place in a loop: the pair is left as it was
    run = _read(tmp_path, ["shape [7,3][9,4] loss: 0.5", "shape [7,3][9,4] loss: 0.4"], name="shapes.log")
    assert run.meta.get("step_axis") != "epoch+batch"
