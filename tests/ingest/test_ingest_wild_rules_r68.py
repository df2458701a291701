"""Reader rules for print styles met in the wild corpus (round 68): each test writes a log of its own
in the style that asked for the rule."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_tf_print_of_a_tensor_under_a_message_of_its_own(tmp_path):
    """TF 1.x `tf.Print(x, [x], "xent_sum")` through glog (`I tensorflow/core/kernels/logging_ops.cc:64]
    xent_sum[812.5]`): the message glued to the bracketed value is any name the user chose, one the alias
    table need not know; the shape alone says the graph computed the value, so every line is a reading."""
    values = ("812.5", "790.25", "1633.0", "2011.75", "nan")
    run = _read(tmp_path, [f"I tensorflow/core/kernels/logging_ops.cc:64] xent_sum[{v}]" for v in values])
    got = _vals(run, "xent_sum")
    assert got[:4] == [812.5, 790.25, 1633.0, 2011.75] and math.isnan(got[4])
    assert run.meta["rows"] == 5
    # the same name with a colon and no tensor's brackets stays a quoted setting, not a reading
    run = _read(tmp_path, ["warmup_ratio: 0.25", "warmup_ratio: 0.5", "warmup_ratio: 0.75"], "notes.log")
    assert "warmup_ratio" not in run.series


def test_matlab_struct_display_of_per_epoch_arrays(tmp_path):
    """MatConvNet's `info` struct as MATLAB displays it: `stats.train =` then one field a line holding an
    array with a value per epoch (`objective: [2.1 1.7 ...`), wrapped onto an indented line up to its
    `]`, a field too wide to show as `[1x6 double]`, then `stats.val =` and its own fields. Each epoch is
    one record: the training objective is the loss, the validation one the evaluation loss."""
    train = [2.1, 1.7, 1.4, 1.2, 1.05, 0.97]
    val = [2.3, 1.9, 1.6, 1.5, 1.45, 1.44]
    err = [0.71, 0.55, 0.44, 0.38, 0.33, 0.3]

    def arr(v, cut):
        return [" ".join(f"{x:.4f}" for x in v[:cut]) + "   ", "          " + " ".join(f"{x:.4f}" for x in v[cut:]) + "]"]

    head = arr(train, 4)
    lines = ["stats.train = ", "objective: [" + head[0], head[1]]
    e = arr(err, 3)
    lines += ["error: [" + e[0], e[1], "speed: [1x6 double]", "", "stats.val = "]
    v = arr(val, 4)
    lines += ["objective: [" + v[0], v[1]]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == train
    assert _vals(run, "eval/loss") == val
    assert _vals(run, "error") == err
    assert run.meta["rows"] == 6
    assert not any(ev.kind == "error" for ev in run.events)  # (`error: [...]` is a field, no error message)
