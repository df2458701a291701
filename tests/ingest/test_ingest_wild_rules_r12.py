"""Line-shape rules the wild corpus asked for (twelfth round of review), each tried on a short log
written for the test in the style of the prints that needed it."""

from __future__ import annotations

from written_log import read_written as _read


def test_a_duration_spelled_out_in_words_is_one_length_of_time(tmp_path):
    """A trainer that writes an epoch's wall time in words (`Epoch 3 (global_step 300) finished,
    time:1 minute 49 seconds.`, as a humanised time delta prints it): the units add up to one
    duration in seconds, and `minute` is not a metric of its own."""
    lines = []
    for ep, (mins, secs) in enumerate([(1, 49), (2, 3), (1, 58)], start=1):
        lines.append(f"[0119 15:{ep:02d}:21 @base.py:283] Epoch {ep} (global_step {ep * 100}) finished, "
                     f"time:{mins} minute{'s' if mins > 1 else ''} {secs} seconds.")
        lines.append(f"[0119 15:{ep:02d}:22 @monitor.py:474] loss: {1.0 / ep:.4f}")
    run = _read(tmp_path, lines)
    assert "minute" not in run.series and "minutes" not in run.series
    assert run.get("loss") is not None and len(run.get("loss").values) == 3
    times = [name for name in run.series if "time" in name]
    assert times, sorted(run.series)
    assert sorted(float(v) for v in run.get(times[0]).values) == [109.0, 118.0, 123.0]
