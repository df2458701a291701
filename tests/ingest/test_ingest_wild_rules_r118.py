"""Reading rules for printed styles met in real training logs (round 118: a record printed as a block, one
key a line)."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_borderless_two_column_table_under_a_counter_is_one_record(tmp_path):
    """Style: an RL logger's table of one name and one value a row, drawn with pipes but no border lines, under
    a counter line and a line of words (`Iteration 12`, `step size kept`, then `| MeanReturn | 3.1 |` ...): each
    table is one record at the counter's step, a name nobody knows included."""
    lines = [""]
    for it, (ret, ent, kl) in zip((12, 13, 14), [(3.1, 0.91, 0.002), (3.4, 0.88, 0.0017), (2.9, 0.86, math.nan)]):
        lines += [f"Iteration {it}", "step size kept", "",
                  f"| VarExplained | 0.{it}       |",
                  f"| MeanReturn   | {ret}        |",
                  f"| entropy      | {ent}       |",
                  f"| approxkl     | {kl}    |", ""]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("episode_reward").steps) == [12, 13, 14]
    assert _vals(run, "episode_reward") == [3.1, 3.4, 2.9]
    (kl_name,) = [name for name in run.series if "kl" in name]
    assert math.isnan(_vals(run, kl_name)[-1])
