"""Round r129 reading rules, each on small synthetic lines in the style it covers: lines that give only a rate
(no counter of their own) beside the step's metric line, and one message written twice by two loggers."""
from __future__ import annotations

from written_log import read_text

_AGAIN = "a rate printed again before the next record (no counter of its own; its step's row has its rate)"
_ECHO = "a line printed twice in a row by two loggers (the same message under another prefix)"


def test_rate_line_right_before_its_step_line_is_part_of_that_row(tmp_path):
    # a hook prints the rate just before the step's line: each rate belongs to the step printed after it
    lines = ["restoring weights from ckpt-300"]
    for i in range(6):
        lines += [f"samples/sec: {40.0 + i:.2f}", f"iter {400 + 100 * i} | loss {2.5 - 0.1 * i:.3f}"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert run.meta["rows"] == 6
    assert run.meta["joined_lines"] == 6
    assert list(run.series["throughput"].steps) == [400 + 100 * i for i in range(6)]
    assert float(run.series["throughput"].values[0]) == 40.0


def test_second_rate_between_two_step_lines_is_skipped_not_a_row(tmp_path):
    # the rate hook fires twice as often as the loss print: the second rate has no step of its own
    lines = []
    for i in range(5):
        lines += [f"step {1000 + 100 * i} :: loss {3.0 - 0.2 * i:.4f}", f"examples/sec: {11.5 + i:.3f}",
                  "checkpoint kept", f"examples/sec: {12.0 + i:.3f}"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert run.meta["rows"] == 5
    assert run.meta["skipped"].get(_AGAIN) == 5
    assert list(run.series["throughput"].values) == [11.5 + i for i in range(5)]  # (the first after each step)


def test_rate_alone_before_any_step_stays_a_row(tmp_path):
    # a rate printed before the first step line, with a line between, is a reading of its own
    lines = ["examples/sec: 0", "writing summary for step 0", "step 1 :: loss 4.0000", "step 2 :: loss 3.5000"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert run.meta["rows"] == 3


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
