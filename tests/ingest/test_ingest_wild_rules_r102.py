"""Round r102 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

import json
import math

from triage.ingest import read_run
from triage.ingest.builder import run_shift


def test_run_shift_is_shared_and_refuses_the_float_limit():
    assert run_shift(10.0, 1.0, 0.0) == 11.0
    assert run_shift(1.5e308, 1.4e308, 0.0) is None  # top + gap overflows
    assert run_shift(1e301, 1.0, 0.0) is None  # no room left to place a run


def test_jsonl_appended_run_placed_after_the_first(tmp_path):
    p = tmp_path / "metrics.jsonl"
    recs = [{"step": s, "loss": 1.0 - 0.1 * i} for i, s in enumerate((10, 20, 30, 10, 20, 30))]
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    run = read_run(str(p))
    assert list(run.series["loss"].steps) == [10, 20, 30, 40, 50, 60]


def test_jsonl_steps_near_the_float_limit_stay_as_written(tmp_path):
    p = tmp_path / "metrics.jsonl"
    p.write_text("".join(json.dumps({"step": s, "loss": 0.5}) + "\n" for s in (1e307, 1.6e308, 0, 1, 2)))
    run = read_run(str(p))
    assert all(math.isfinite(s) for s in run.series["loss"].steps)
