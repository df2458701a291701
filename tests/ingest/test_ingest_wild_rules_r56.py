"""Reader rules asked for by real logs (round 56): each test writes a log in the style that needed the rule."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_heading_naming_a_held_out_split_labels_the_table_below(tmp_path):
    """`eval information (run on the test data, sorted by f1) :` then a tab-separated `epoch  loss  precision
    recall  f1` header and its rows, after `loss : 0.0166` blocks of training: a heading with no number of
    its own, ended by a colon right above a table's header, names the split of that table's rows."""
    lines = []
    for g in (100, 101, 102):
        lines += [f"train---epoch : 5 ,  global step : {g}", f"loss :  0.0{g - 90}", f"f1 : 0.99{g - 90}", "-" * 12]
    lines += ["eval information (results on the test data, sorted by f1 value) :",
              "epoch\tloss\tprecision\trecall\tf1",
              "4\t11.7\t0.19\t0.25\t0.22",
              "2\t10.4\t0.24\t0.20\t0.21"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.01, 0.011, 0.012]
    assert "eval/loss" in run.series and "eval/f1" in run.series
    assert _vals(run, "eval/loss")[-1] == 10.4
    assert run.meta["rows"] == 5
    # a heading that names no split leaves the rows as they were
    run = _read(tmp_path, lines[:-4] + ["summary of the runs below:"] + lines[-3:], "plain.log")
    assert "eval/loss" not in run.series


def test_split_row_under_a_one_metric_box_table(tmp_path):
    """Ludwig's per-epoch summary ends with a box table of one metric, `│ combined │ loss │`, whose rows
    `│ train │ 0.0960 │` and `│ test │ 0.0831 │` hold a single number each: a split's row, read as that
    split's value of the one metric the header names."""
    lines = []
    for e, (tr, te) in enumerate(((0.096, 0.083), (0.086, 0.073)), 1):
        lines += [f"Epoch {e}", "╒════════════╤════════╕", "│ combined   │   loss │", "╞════════════╪════════╡",
                  f"│ train      │ {tr:.4f} │", "├────────────┼────────┤", f"│ test       │ {te:.4f} │",
                  "╘════════════╧════════╛"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.096, 0.086]
    assert _vals(run, "eval/loss") == [0.083, 0.073]
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 4
