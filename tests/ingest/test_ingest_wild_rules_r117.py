"""Reading rules for printed styles met in real training logs (round 117: names as people write them, and
lines read as rows that are not)."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_where_the_logging_call_sits_is_no_metric(tmp_path):
    """Style: a logger's format that names the source file and line of the call, in the many ways formats
    write it (`| client.py:57 |`, `file.py line 88 4411]`, `[worker.py 210]`, `helper.cc(31) LOG(INFO)`,
    `run.py fit [line:9]`): the place of the call, never a metric named after the file, on a line that
    carries a metric and on a line that carries none."""
    lines = []
    for i, (loss, acc) in enumerate([(1.9, 0.31), (1.4, 0.52), (1.1, 0.63)]):
        lines += [
            f"INFO fedsim 2024-03-02 11:0{i}:00,120 | client.py:57 | round {i + 1} started",
            f"[2024-03-02 11:0{i}:05,301 INFO file.py line 88 4411] Train: [{i + 1}/3] loss: {loss}",
            f"2024-03-02 11:0{i}:06,001 runner.py fit [line:9] INFO val_accuracy  {acc}",
            f"node-7 03/02 11:0{i}:07 [worker.py 210] ===> saved",
            f"helper.cc(31) LOG(INFO) Added {i + 1} pieces",
        ]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.9, 1.4, 1.1]
    assert _vals(run, "eval/accuracy") == [0.31, 0.52, 0.63]
    assert not [name for name in run.series if any(ext in name for ext in (".py", ".cc", "line"))]
