"""Reading rules of round r124 (each test in a made-up log of the style that asked for the rule)."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_a_block_dropped_as_settings_counts_each_of_its_lines(tmp_path):
    """Style: a closing summary printed once as a block, `name: value` a line, with no counter and nothing the run
    measured before it: dropped as lone settings, every one of its three lines counted as skipped, not one."""
    run = _read(tmp_path, ["Run summary", "grad_norm: 1.5", "throughput: 120.5", "memory: 3.2"])
    assert run.meta["rows"] == 0
    assert sum(run.meta["skipped"].values()) == 3, run.meta["skipped"]
