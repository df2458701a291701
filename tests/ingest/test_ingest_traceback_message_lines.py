"""A traceback's exception message can go on over indented lines after the exception line; they belong to
the traceback event (error patterns read them there), not to the metric lines around it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_indented_lines_after_the_exception_line_stay_in_the_traceback(tmp_path):
    run = _read(tmp_path, [
        "Epoch 0 | Training | Steps: 3 | Loss: 2.500000",
        "Traceback (most recent call last):",
        '  File "train.py", line 10, in <module>',
        "    sess.run(op)",
        "errors_impl.UnknownError: 2 root error(s) found.",
        "  (0) Unknown: Failed to get convolution algorithm. cuDNN failed to initialize.",
        "\t [[{{node conv1d}}]]",
        "0 successful operations.",
    ])
    (tb,) = [e for e in run.events if e.kind == "traceback"]
    assert "Failed to get convolution algorithm" in tb.text
    assert "0 successful operations" not in tb.text
    assert _vals(run, "loss") == [2.5]
