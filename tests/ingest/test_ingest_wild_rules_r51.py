"""Reader rules asked for by real logs (round 51): each test writes a log in the style that needed the rule."""

from __future__ import annotations

from written_log import read_written as _read


def test_variable_dump_after_exception_is_part_of_the_message(tmp_path):
    """A guard's exception whose message runs onto a second line, `loss_dict = {'loss_cls': nan}`, right
    below `FloatingPointError: ...`: the dict is the exception's text, not a logged record."""
    run = _read(tmp_path, [
        "Traceback (most recent call last):",
        '  File "engine/loop.py", line 88, in step',
        "    raise FloatingPointError(msg)",
        "FloatingPointError: Loss became infinite or NaN at iteration=42!",
        "loss_dict = {'loss_ce': nan, 'loss_tri': 0.31}",
        "[engine]: Overall training speed: 40 iterations in 0:00:30",
    ])
    assert run.meta["rows"] == 0
    assert "loss_ce" not in run.series
    tb = [e for e in run.events if e.kind == "traceback"]
    assert tb and "loss_dict" in tb[0].text


def test_abbreviation_in_parentheses_names_a_long_key(tmp_path):
    """`step 3 : Protocol #2 Error (PCK) A_Mean: 71.2 %`: a description too long to be a name gives its
    metric's abbreviation in parentheses; the abbreviation and the words after it name the value."""
    run = _read(tmp_path, [
        f"step {i} : Protocol #2 Error (PCK) A_{kind}: {70 + i + k:.3f} %"
        for i in range(3) for k, kind in enumerate(("Mean", "Max"))
    ])
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 6
    names = sorted(run.series)
    assert names == ["PCK_A_Max", "PCK_A_Mean"]
    assert [float(v) for v in run.get("PCK_A_Mean").values] == [70.0, 71.0, 72.0]


def test_name_that_opens_on_a_digit(tmp_path):
    """`[2] time 41.0 lr 0.000040 2d_train 12.5 2d_valid 14.1`: a name such as `2d_train` opens on a digit;
    the digit is part of the name, not a number of the line."""
    run = _read(tmp_path, [
        f"[{e}] time 41.{e} lr 0.000040 2d_train {20 - e}.5 2d_valid {25 - e}.1" for e in range(1, 5)
    ])
    assert run.meta["rows"] == 4
    assert "2d_train" in run.series and "2d_valid" in run.series
    assert "d_train" not in run.series
    assert [float(v) for v in run.get("2d_train").values] == [19.5, 18.5, 17.5, 16.5]


def test_pose_error_and_softmax_accuracy_names(tmp_path):
    """Names from metrics.yaml: `3d_train` / `3d_valid` (VideoPose3D-style epoch lines) are the training
    objective and its validation value; `softmax_accuracy` (OpenGait-style lines) is the accuracy."""
    run = _read(tmp_path, [
        f"[{e}] time 40.1 lr 0.000040 3d_train {60 - e}.25 3d_eval {55 - e}.5 3d_valid {58 - e}.75" for e in range(1, 4)
    ])
    assert [float(v) for v in run.get("loss").values] == [59.25, 58.25, 57.25]
    assert [float(v) for v in run.get("eval/loss").values] == [57.75, 56.75, 55.75]
    run = _read(tmp_path, [
        f"[INFO]: Iteration {i:05d}, Cost 50.1s, triplet_loss=0.19, softmax_loss=3.{i // 100}, softmax_accuracy=0.{i // 100}1"
        for i in (100, 200)
    ], name="gait.log")
    assert [float(v) for v in run.get("accuracy").values] == [0.11, 0.21]


def test_stage_done_with_its_duration_is_no_record(tmp_path):
    """`Done, 30.58s` after `Extracting feature...`: the time a finished evaluation stage took, not a
    training step's time; the scores line is the only record."""
    run = _read(tmp_path, [
        "Extracting feature...",
        "500/500 batches done, +0.41s, total 20.50s",
        "Done, 30.58s",
        "Computing global distance...",
        "Done, 0.52s",
        "Computing scores for Global Distance...",
        "[mAP: 61.20%], [cmc1: 80.10%], [cmc5: 91.00%], [cmc10: 94.30%]",
        "Done, 5.63s",
    ])
    assert run.meta["rows"] == 1
    assert [float(v) for v in run.get("eval/map").values] == [61.2]
    assert all(float(v) not in (30.58, 0.52, 5.63) for s in run.series.values() for v in s.values)
