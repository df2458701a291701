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


def test_point_lists_under_a_group_beside_settings_read_as_series(tmp_path):
    # a script's export of scalars: one list of {step, value} per name, next to the run's settings
    doc = {"run": "ablation 3", "settings": {"lr": 3e-4, "envs": 64},
           "metrics": {"value_loss": [{"step": s, "value": 1.0 / (s + 1)} for s in range(6)],
                       "lr": [{"step": s, "value": 3e-4} for s in range(6)],
                       "eval_loss": [{"step": s, "value": 0.9 - 0.1 * s} for s in (0, 3, 5)]}}
    p = tmp_path / "scalars.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    run = read_run(p)
    assert list(run.get("value_loss").steps) == [0, 1, 2, 3, 4, 5]
    assert list(run.get("eval/loss").steps) == [0, 3, 5]
    assert math.isclose(run.get("learning_rate").values[0], 3e-4)
    assert run.meta["rows"] == 6


def test_tensorboard_json_download_rows_read_with_their_steps(tmp_path):
    # TensorBoard's "download JSON" rows are [wall_time, step, value]; a dict of them per tag
    doc = {"train/loss": [[1.7e9 + s, 10 * s, 2.0 - 0.1 * s] for s in range(5)],
           "val/loss": [[1.7e9 + s, 10 * s, 2.1 - 0.1 * s] for s in (2, 4)]}
    p = tmp_path / "export.json"
    p.write_text(json.dumps(doc), encoding="utf-8")
    run = read_run(p)
    assert list(run.get("loss").steps) == [0, 10, 20, 30, 40]
    assert math.isclose(run.get("loss").values[-1], 1.6)
    assert list(run.get("eval/loss").steps) == [20, 40]
