"""Round r129 reading rules, each on small synthetic lines in the style it covers: one message written twice by
two loggers."""
from __future__ import annotations

from written_log import read_text

_ECHO = "a line printed twice in a row by two loggers (the same message under another prefix)"


def test_message_written_by_two_loggers_is_one_record(tmp_path):
    # the same message through two handlers, one after the other, under prefixes of different shapes
    lines = []
    for i in range(4):
        v = f"{30.0 + i:.2f}"
        lines += [f"step {10 * (i + 1)} :: loss {1.0 / (i + 1):.4f}",
                  f"INFO:root:mean IoU: {v}", f"I0311 08:00:0{i}.123456 7781 hooks.py:88] mean IoU: {v}"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert run.meta["skipped"].get(_ECHO) == 4
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) in (4, 8)
    assert len(run.series["loss"]) == 4


def test_same_value_under_a_moving_time_stamp_is_two_readings(tmp_path):
    # a flat metric printed on two lines whose prefixes differ only in their digits: two readings, no echo
    lines = [f"2024-05-0{i + 1} 10:00:0{i} mean IoU: 30.00" for i in range(2)]
    lines += [f"2024-05-03 10:00:0{i} mean IoU: 31.00" for i in range(2)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert _ECHO not in run.meta["skipped"]
