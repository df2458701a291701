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
