"""A sentence that says the loss (or cost) went NaN is an error message: the reader keeps it as an error event
beside the metric rows, so the error table can read it."""

from __future__ import annotations

from written_log import read_written as _read


def test_cost_is_nan_under_a_glog_prefix_is_an_error_event(tmp_path):
    run = _read(tmp_path, [
        "I0311 10:02:50.981202 5121 train_net.py:130] Step 1200: total loss 0.0712, accuracy 0.974",
        "E0311 10:02:51.120331 5121 train_net.py:140] cost is: nan",
        "E0311 10:02:51.120702 5121 train_net.py:141] seg cost is: nan",
    ])
    errors = [e.text for e in run.events if e.kind == "error"]
    assert any("cost is: nan" in t for t in errors), errors
    assert run.get("loss") is not None


def test_loss_exploded_to_nan_is_an_error_event(tmp_path):
    run = _read(tmp_path, [
        "Step 30  loss 0.8812  lr 1e-3",
        "Step 31  loss 1.9315  lr 1e-3",
        "Loss exploded to nan at step 32",
    ])
    assert any("exploded to nan" in e.text for e in run.events if e.kind == "error")


def test_a_cost_that_is_finite_is_no_event(tmp_path):
    run = _read(tmp_path, ["epoch 1 cost is: 0.52", "epoch 2 cost is: 0.41", "epoch 3 cost is: 0.37"])
    assert not [e for e in run.events if e.kind == "error"]
