"""JSON layouts that keep one series per metric (Sacred) or a summary per statistic (EDM)."""

from __future__ import annotations

import json
import math

from triage.ingest import read_run


def test_sacred_metrics_json_reads_each_metric_with_its_steps(tmp_path):
    doc = {"training.loss": {"steps": [1, 2, 3, 4], "values": [0.26, 0.1, -0.3, -0.68], "timestamps": ["t"] * 4},
           "validation.loss": {"steps": [2, 4], "values": [0.2, -0.1], "timestamps": ["t"] * 2}}
    p = tmp_path / "metrics.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    run = read_run(p)
    assert list(run.get("loss").steps) == [1, 2, 3, 4]
    assert math.isclose(run.get("loss").values[-1], -0.68)
    assert list(run.get("eval/loss").steps) == [2, 4]
    assert run.meta["rows"] == 4


def test_a_summary_of_a_statistic_is_read_as_its_mean(tmp_path):
    lines = [json.dumps({"Loss/loss": {"num": 327680, "mean": 1.0 / k, "std": 0.5}, "Progress/tick": {"num": 1, "mean": k, "std": 0.0}})
             for k in range(1, 5)]
    p = tmp_path / "stats.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = read_run(p)
    assert math.isclose(run.get("loss").values[-1], 0.25)
    assert not any(k.endswith(("/std", "/num")) for k in run.series)
