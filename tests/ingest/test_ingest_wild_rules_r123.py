"""Round r123 reading rules (whole-line layouts of real tools, bench/styles.py --layouts), each on small synthetic
lines in a style of its own."""
from __future__ import annotations

from written_log import read_text


def test_eval_metric_with_its_qualifier_as_a_path(tmp_path):
    # an evaluation line whose metric carries its variant as a path segment (`top1`, `macro`) after the metric's own
    # name: the evaluation's accuracy, as the same name is the training accuracy without the split
    lines = []
    for ep in range(1, 4):
        lines += [f"[train] round {ep}/3 :: objective {1.5 / ep:.4f} :: acc/top1 {0.3 * ep:.3f}",
                  f"[valid] round {ep}/3 :: accuracy/top1 {0.25 * ep:.3f} :: accuracy/top5 {0.3 * ep:.3f}"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert "eval/accuracy" in run.series and len(run.series["eval/accuracy"].values) == 3
    assert float(run.series["eval/accuracy"].values[-1]) == 0.75
    assert "eval/accuracy/top1" not in run.series


def test_xgboost_watchlist_named_after_its_dmatrix(tmp_path):
    # `dtrain` / `dvalid` / `dtest`: the watchlist's names are the user's, often the DMatrix variables themselves
    text = "".join(f"[{i}]\tdtrain-mae:{1.0 - 0.05 * i:.5f}\tdvalid-mae:{1.1 - 0.04 * i:.5f}\n" for i in range(8))
    run = read_text(tmp_path, text)
    assert sorted(run.series) == ["eval/mae", "mae"]
    assert len(run.series["mae"].values) == 8
    text = "".join(f"[{i}]\tdtrain-logloss:{0.7 - 0.05 * i:.5f}\tdtest-logloss:{0.72 - 0.04 * i:.5f}\n" for i in range(8))
    run = read_text(tmp_path, text)
    assert "loss" in run.series and not any(k.startswith("dt") for k in run.series)
