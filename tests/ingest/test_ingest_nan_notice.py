"""A training loop's own notice that the loss went NaN, printed between metric lines, is an error
event of the run (what the error patterns read), whatever the case of its words."""

from __future__ import annotations

from written_log import read_written as _read


def test_a_capitalised_loss_is_nan_notice_among_metric_lines_is_an_error_event(tmp_path):
    lines = [f"[11:4{i}:33.5] Epoch: [8]  [ {i * 20}/2293]  lr: 0.000004  loss: 0.26{i} (0.265)  time: 3.08" for i in range(5)]
    lines.append("[11:41:59.064379] Loss is nan, stopping training")
    run = _read(tmp_path, lines)
    assert len(run.get("loss").values) == 5  # the notice is no loss row
    errors = [e.text for e in run.events if e.kind == "error"]
    assert any("Loss is nan" in t for t in errors)


def test_a_loss_value_line_is_no_error_event(tmp_path):
    run = _read(tmp_path, [f"step {i} loss is {2.0 - i * 0.1:.2f}" for i in range(5)])
    assert not [e for e in run.events if e.kind == "error"]
