"""Printed tables read by the columns' places on the line (triage.ingest.tables): a header over a rule
of dashes, a header printed over two lines, rows with text cells. Small synthetic logs in the styles
that needed these rules (never copies of the wild files)."""

from __future__ import annotations

import math

from triage.ingest import read_run, tables


def _read(tmp_path, text, name="train.log"):
    p = tmp_path / name
    p.write_text(text.strip("\n") + "\n", encoding="utf-8")
    return read_run(p)


def _vals(run, key):
    s = run.get(key)
    assert s is not None, sorted(run.series)
    return [float(v) for v in s.values], [float(x) for x in s.steps]


# ------------------------------------------------------------------ a header over a rule line
SPACY_STYLE = """
E    #       LOSS TOK2VEC  LOSS TEXTCAT  CATS_SCORE  ENTS_P  SCORE
---  ------  ------------  ------------  ----------  ------  ------
  0       0          0.00          0.25       41.20   10.50    0.41
  0     100          1.52         12.80       63.75   55.00    0.64
  1     200          0.98          7.10       71.02   70.25    0.71
"""


def test_a_rule_line_makes_multi_word_names_one_column_each(tmp_path):
    run = _read(tmp_path, SPACY_STYLE)
    assert run.meta["rows"] == 3 and run.meta["step_axis"] == "explicit"
    vals, steps = _vals(run, "LOSS_TEXTCAT")  # `LOSS TEXTCAT` is one name, kept as the tool wrote it
    assert vals == [0.25, 12.8, 7.1] and steps == [0.0, 100.0, 200.0]  # `#` is the step (metrics.yaml)
    assert _vals(run, "LOSS_TOK2VEC")[0] == [0.0, 1.52, 0.98]
    assert _vals(run, "eval/precision")[0] == [10.5, 55.0, 70.25]  # ENTS_P: the dev set's precision
    assert "E" not in run.series and "#" not in run.series


def test_a_plain_rule_under_a_phrase_header(tmp_path):
    run = _read(tmp_path, """
epoch    train loss    val loss    val acc
-----    ----------    --------    -------
    1        0.9120      0.8801      61.20
    2        0.7000      0.7302      66.00
    3        0.6100      0.6900      68.75
""")
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == ([0.912, 0.7, 0.61], [1.0, 2.0, 3.0])
    assert _vals(run, "eval/loss")[0] == [0.8801, 0.7302, 0.69]


def test_an_empty_cell_leaves_its_column_empty_instead_of_shifting_the_rest(tmp_path):
    run = _read(tmp_path, """
  step      loss   grad norm    eval loss
------  --------  ----------  -----------
   100     2.310       1.200
   200     2.050                    2.120
   300     1.900       0.800
""")
    assert _vals(run, "loss")[0] == [2.31, 2.05, 1.9]
    assert _vals(run, "eval/loss") == ([2.12], [200.0])  # not filed as the grad norm by order
    assert _vals(run, "grad_norm") == ([1.2, 0.8], [100.0, 300.0])


def test_a_nan_in_a_column_is_a_nan_value(tmp_path):
    run = _read(tmp_path, """
  step      loss    lr
------  --------  ------
    10    2.3100  0.0010
    20       nan  0.0010
""")
    vals, steps = _vals(run, "loss")
    assert vals[0] == 2.31 and math.isnan(vals[1]) and steps == [10.0, 20.0]


def test_prose_over_a_dashed_line_opens_no_table(tmp_path):
    run = _read(tmp_path, """
Training finished.  Saving the model to the disk now
----------------------------------------------------
step 100 loss 0.5
step 200 loss 0.4
step 300 loss 0.3
""")
    assert _vals(run, "loss") == ([0.5, 0.4, 0.3], [100.0, 200.0, 300.0])


def test_a_row_that_does_not_fit_the_columns_ends_the_table(tmp_path):
    run = _read(tmp_path, """
epoch    loss
-----  ------
    1   0.800
    2   0.700
epoch 3 acc 0.9
epoch 4 acc 0.95
""")
    assert _vals(run, "loss") == ([0.8, 0.7], [1.0, 2.0])
    assert _vals(run, "accuracy") == ([0.9, 0.95], [3.0, 4.0])


# ------------------------------------------------------------------ a header over two lines
VW_STYLE = """
average  since         example        example  current  current  current
loss     last          counter         weight    label  predict features
0.693147 0.693147            1            1.0   1.0000   0.0000       16
0.520000 0.346853            2            2.0  -1.0000  -0.2000       16
0.401000 0.282000            4            4.0   1.0000   0.6000       16
0.310500 0.220000            8            8.0  -1.0000  -0.9000       16
"""


def test_a_header_over_two_lines_is_joined_per_column(tmp_path):
    run = _read(tmp_path, VW_STYLE)
    assert run.meta["rows"] == 4 and run.meta["step_axis"] == "explicit"
    vals, steps = _vals(run, "loss")  # `average` over `loss`
    assert vals == [0.693147, 0.52, 0.401, 0.3105] and steps == [1.0, 2.0, 4.0, 8.0]  # the example counter
    assert _vals(run, "since_last")[0][1] == 0.346853
    assert not any("label" in k or "predict" in k for k in run.series)  # the current example's, no metric


def test_a_group_line_over_the_names_prefixes_them(tmp_path):
    run = _read(tmp_path, """
            train     train     valid
epoch        loss       acc      loss
    1      0.6931    0.5012    0.6920
    2      0.5100    0.7400    0.5300
    3      0.4000    0.8100    0.4700
""")
    assert _vals(run, "loss") == ([0.6931, 0.51, 0.4], [1.0, 2.0, 3.0])
    assert _vals(run, "eval/loss")[0] == [0.692, 0.53, 0.47]
    assert _vals(run, "accuracy")[0] == [0.5012, 0.74, 0.81]


def test_two_lines_of_words_that_do_not_stand_in_columns_are_no_header(tmp_path):
    top = "results  for  the  first  run"
    bottom = "were written to disk  earlier  today"
    assert tables.Tracker().header(1, top) is None
    t = tables.Tracker()
    t.header(1, top)
    assert t.header(2, bottom) is None


# ------------------------------------------------------------------ text cells label the row
TUNE_PIPES = """
+------------------------------+----------+-------+------------------+--------+----------+
| Trial name                   | status   |  iter |   total time (s) |     ts |   reward |
|------------------------------+----------+-------+------------------+--------+----------|
| PPO_Pendulum_a1b2c_00000     | RUNNING  |     2 |            20.51 |   8000 |  -1210.4 |
| PPO_Pendulum_a1b2c_00001     | PENDING  |     1 |            10.02 |   4000 |  -1402.9 |
+------------------------------+----------+-------+------------------+--------+----------+
"""


def test_a_pipe_status_table_with_text_columns(tmp_path):
    run = _read(tmp_path, TUNE_PIPES)
    assert run.meta["rows"] == 2
    vals, steps = _vals(run, "episode_reward")  # Tune's `reward` abbreviates episode_reward_mean
    assert sorted(zip(steps, vals)) == [(4000.0, -1402.9), (8000.0, -1210.4)]  # `ts` is the step
    assert not any(k.lower().startswith(("trial", "status")) for k in run.series)
    assert any("labelled 2 ways" in w for w in run.meta["warnings"])  # two trials, not two steps of one


def test_a_box_drawn_status_table(tmp_path):
    run = _read(tmp_path, """
╭────────────────────────────────────────────────────────────────────────────────────╮
│ Trial name                 status       iter     total time (s)      ts     reward │
├────────────────────────────────────────────────────────────────────────────────────┤
│ PPO_CartPole_5f0e_00000    RUNNING         4             41.2     16000       87.5 │
╰────────────────────────────────────────────────────────────────────────────────────╯
""")
    assert _vals(run, "episode_reward") == ([87.5], [16000.0])
    assert _vals(run, "total_time_(s)")[0] == [41.2]


def test_a_table_inside_a_longer_log_ends_at_its_border(tmp_path):
    body = "\n".join(f"step {i} loss {1.0 / i:.4f}" for i in range(1, 6))
    run = _read(tmp_path, TUNE_PIPES + "\n" + body + "\n")
    loss, steps = _vals(run, "loss")  # (placed after the table's steps: the counter starts again)
    assert len(loss) == 5 and math.isclose(loss[-1], 0.2) and steps == sorted(steps)
    assert len(run.get("episode_reward").values) == 2


def test_rows_are_placed_by_position_not_by_order():
    header = tables._under_rule(["name      a      b      c"], "----  -----  -----  -----")
    assert list(header) == ["name", "a", "b", "c"]
    values, epoch = tables.row(header, "x         1.5           3.5")
    assert values == {"a": 1.5, "c": 3.5} and epoch is None


def test_tables_in_a_log_long_enough_for_the_bulk_path(tmp_path):
    """The bulk path passes over repeated lines that change nothing (the header line, read alone);
    the rule under it still finds it, in every one of the tables printed along the run."""
    lines = []
    for i in range(1, 11001):
        lines += [f"Training progress: at step {i} the loss is {1.0 / i:.5f}", "a line without numbers"]
        if i % 1000 == 0:
            k = i // 1000
            lines += ["Trial name               status      iter    total time (s)      ts    reward",
                      "-----------------------  --------  ------  ----------------  ------  --------",
                      f"PPO_CartPole_5f0e_00000  RUNNING   {k:6d}  {k * 10.5:16.2f}  {k * 4000:6d}  {k * 1.5:8.2f}",
                      ""]
    run = _read(tmp_path, "\n".join(lines))
    assert run.meta["lines"] > 20_000
    assert _vals(run, "episode_reward")[0] == [k * 1.5 for k in range(1, 12)]
    assert len(run.get("loss").values) == 11000
