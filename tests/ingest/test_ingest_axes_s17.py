"""Bookkeeping counters that look like metric names are not read as metrics."""
from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_openpcdet_acc_iter_is_a_counter_not_an_accuracy(tmp_path):
    """OpenPCDet prints its running count of iterations as `Acc_iter 150` beside the loss."""
    log = [
        f"2023-01-05 16:34:{37 + i},748   INFO  Train:    1/3 ( 33%) [ {n:3d}/323 ( {n // 4:2d}%)]  Loss: {loss} ({loss})  "
        f"LR: 1.000e-04  Acc_iter {n + 1}           Data time: 0.00(0.02)"
        for i, (n, loss) in enumerate([(0, 516.7), (49, 36.77), (99, 23.51), (149, 28.79)])
    ]
    run = _read(tmp_path, log)
    assert "accuracy" not in run.series
    assert _vals(run, "loss") == [516.7, 36.77, 23.51, 28.79]
