"""A run's config (config.json / hparams.yaml beside the log) answers the questions it settles."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from triage import api
from triage.engine.evidence import config_answer, config_rules


@pytest.fixture(scope="module")
def rules():
    return config_rules(api.load_kb())


@pytest.mark.parametrize("question, config, expect", [
    ("Q-grad-accum", {"gradient_accumulation_steps": 8}, "yes"),
    ("Q-grad-accum", {"accumulate_grad_batches": 1}, "no"),
    ("Q-grad-accum", {"gradient_accumulation_steps": "4"}, "yes"),
    ("Q-grad-accum", {"learning_rate": 0.1}, None),
    ("Q-ops-grad-clip", {"max_grad_norm": 1.0}, "on"),
    ("Q-ops-grad-clip", {"max_grad_norm": 0.0}, "off"),
    ("Q-ops-grad-clip", {"gradient_clip_val": None}, "off"),
    ("Q-ops-grad-clip", {"max_grad_norm": 1e9}, "off"),
    ("Q-ops-grad-clip", {"grad_clip": "1.0"}, "on"),
    ("Q-precision", {"bf16": True, "fp16": False}, "bf16"),
    ("Q-precision", {"fp16": "true"}, "fp16"),
    ("Q-precision", {"precision": "16-mixed"}, "fp16"),
    ("Q-precision", {"precision": 32}, "fp32"),
    ("Q-precision", {"mixed_precision": "bf16"}, "bf16"),
    ("Q-precision", {"fp16": False, "bf16": False}, None),
])
def test_config_rules_read_the_usual_spellings(rules, question, config, expect):
    hit = config_answer(rules[question], config)
    assert (hit[0] if hit else None) == expect


def _diverging_run(folder: Path, config: dict | None) -> Path:
    folder.mkdir(parents=True)
    rows = []
    for i in range(1, 301):
        loss = 2.3 * math.exp(-i / 60) + 0.5 if i < 150 else 40.0 + 10 * math.sin(i)
        gn = 1.0 + 0.1 * math.cos(i) if i < 150 else 300.0 + 50 * math.sin(i)
        rows.append(json.dumps({"step": i, "loss": loss, "grad_norm": gn, "learning_rate": 1e-4 * min(1, i / 30)}))
    (folder / "train.jsonl").write_text("\n".join(rows) + "\n")
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config))
    return folder / "train.jsonl"


def _scores(doc: dict) -> dict[str, float]:
    return {c["id"]: c["score"] for c in doc["causes"]}


def _diagnosis(path: Path, kb):
    """The engine after the run (and its config) is applied: every cause, not only the few a report lists."""
    from triage.detect import run_detectors
    from triage.engine.diagnosis import Diagnosis
    from triage.engine.evidence import Applied, apply_run
    from triage.kb.search import SearchIndex

    run, raw = api.read_input(str(path))
    diag = Diagnosis(kb)
    apply_run(diag, run, run_detectors(run, kb), Applied(), SearchIndex(kb), raw)
    return diag


def test_config_moves_the_ranking_and_is_cited(tmp_path):
    kb = api.load_kb()
    bare = api.scan(str(_diverging_run(tmp_path / "bare", None)), kb=kb)
    told = api.scan(str(_diverging_run(tmp_path / "told", {"gradient_accumulation_steps": 8, "max_grad_norm": 1.0})), kb=kb)
    assert [f["detector"] for f in bare["findings"]] == [f["detector"] for f in told["findings"]]
    before, after = _scores(bare), _scores(told)
    # clipping is on: "no gradient clipping" loses most of its weight
    assert after.get("S-grad-clip-missing", 0.0) < 0.5 * before["S-grad-clip-missing"]
    # accumulation is on: the unscaled-accumulation cause gains (over the whole differential, not only
    # the causes the report lists) and says why
    bare_d, told_d = (_diagnosis(tmp_path / name / "train.jsonl", kb) for name in ("bare", "told"))
    prob = {name: {c.id: c.probability for c in d.ranking(explain=False)} for name, d in (("bare", bare_d), ("told", told_d))}
    assert prob["told"]["O9"] > 1.5 * prob["bare"]["O9"]
    support, _ = told_d.explain("O9")
    assert any("gradient_accumulation_steps = 8 in config.json" in line for line in support)
    assert {a["question"] for a in told["_applied"].config} == {"Q-grad-accum", "Q-ops-grad-clip"}


def test_a_config_alone_is_not_a_problem(tmp_path):
    folder = tmp_path / "ok"
    folder.mkdir()
    rows = [json.dumps({"step": i, "loss": 2.3 * math.exp(-i / 80) + 0.3, "grad_norm": 1.0, "learning_rate": 1e-4})
            for i in range(1, 301)]
    (folder / "train.jsonl").write_text("\n".join(rows) + "\n")
    (folder / "config.json").write_text(json.dumps({"gradient_accumulation_steps": 16, "max_grad_norm": 0}))
    doc = api.scan(str(folder / "train.jsonl"))
    assert doc["healthy"] is True and doc["causes"] == []
    assert doc["_applied"].config == []


def test_human_view_says_what_it_read_from_the_config(tmp_path):
    from typer.testing import CliRunner

    from triage.cli import app

    log = _diverging_run(tmp_path / "run", {"gradient_accumulation_steps": 8, "max_grad_norm": 1.0})
    result = CliRunner().invoke(app, ["scan", str(log)], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 1, result.output
    assert "From config.json: gradient_accumulation_steps = 8, max_grad_norm = 1.0" in result.output
