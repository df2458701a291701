"""Reading rules for printed styles met in real training logs (round 42)."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_counter_set_off_by_a_comma_before_name_value_pairs(tmp_path):
    """Style: `1500, T 812.4, Ltr 0.731, Lge nan,` -- the iteration first, then a comma and
    `Name value` pairs: the leading whole number is the step, not a list item."""
    run = _read(tmp_path, [
        "1500, T 812.4, Ltr 0.731, Lge 0.802,",
        "1600, T 866.0, Ltr 0.512, Lge nan,",
        "1700, T 919.7, Ltr 0.498, Lge 0.655,",
    ])
    assert [float(s) for s in run.get("Ltr").steps] == [1500.0, 1600.0, 1700.0]
    assert _vals(run, "Ltr") == [0.731, 0.512, 0.498]
    lge = _vals(run, "Lge")
    assert lge[0] == 0.802 and math.isnan(lge[1])


def test_number_list_after_a_leading_number_stays_unread(tmp_path):
    """Style: `3, 64, kernel_size=3` printed among metric lines -- a comma list of numbers is not a
    counter followed by pairs, so the leading number does not become a step."""
    run = _read(tmp_path, [
        "3, 64, kernel_size=3",
        "step 10 loss 2.31",
        "step 20 loss 2.05",
    ])
    assert [float(s) for s in run.get("loss").steps] == [10.0, 20.0]
