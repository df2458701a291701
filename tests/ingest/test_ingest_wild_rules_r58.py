"""Reader rules taken from real logs (round 58): each test writes a log in one print style and checks
what the printed reader gets from it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_r_printed_boosting_rounds_keep_their_round(tmp_path):
    """R's print() of each evaluation string of LightGBM's R package (`[1] "[3]: train's l2:0.14"`): the
    vector index and the quotes go, the round inside the quotes is the step, and a metric name the
    alias table does not know (`l2`) is read all the same."""
    lines = [f'  [1] "[{i}]: train\'s l2:{0.3 - 0.02 * i:.4f}"' for i in range(3, 11)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 8
    (name,) = [n for n in run.series if n.endswith("l2")]
    assert [float(s) for s in run.series[name].steps] == [float(i) for i in range(3, 11)]
    assert _vals(run, name)[0] == 0.24


def test_round_colon_then_one_blank_is_a_round(tmp_path):
    """LightGBM's R evaluation line with its tab turned into one blank (`[4]: valid's auc:0.91`): the
    bracketed number before the possessive set name is the boosting round, not a rank."""
    lines = [f"[{i}]: train's binary_logloss:{0.9 - 0.05 * i:.3f}" for i in range(11, 17)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 6
    (name,) = [n for n in run.series if "logloss" in n or n == "loss"]
    assert [float(s) for s in run.series[name].steps] == [11.0, 12.0, 13.0, 14.0, 15.0, 16.0]


def test_split_then_score_line_is_an_evaluation(tmp_path):
    """A validation pass that reports one score on a line of its own (`INFO: val cls score: 0.91` after
    `Validating...`), between iteration lines that print losses: the split word and the trailing `score`
    make it the evaluation's metric at the last iteration, not a one-off setting."""
    lines = []
    for it in (200, 400, 600):
        lines.append(f"2024-01-02 10:00:00,000 - train.py - INFO: Iter: {it}; LR: 1.0e-04; "
                     f"cls_loss: {0.5 - it / 2000:.4f}, seg_loss: {0.9 - it / 1000:.4f}")
    lines += ["2024-01-02 10:05:00,000 - train.py - INFO: Validating...",
              "2024-01-02 10:09:00,000 - train.py - INFO: val cls score: 0.871250"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 4
    assert _vals(run, "eval/cls_score") == [0.87125]
    assert [float(s) for s in run.get("eval/cls_score").steps] == [600.0]
