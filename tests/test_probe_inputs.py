"""A probe result is read as a probe result wherever it is given: `scan`, `inspect`, `ask --log`."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from triage.cli import app
from triage.engine import session as S
from triage.api import load_kb

runner = CliRunner()


def _probe(tmp_path, status="fail", answers=None, name="probe.json"):
    doc = {"probe": "overfit_one_batch", "version": "1", "status": status,
           "answers": {"Q-overfit-one-batch": "fail"} if answers is None else answers,
           "measurements": {"final_loss": 2.3}, "message": "loss stayed at 2.30 after 200 steps"}
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return str(p)


def test_scan_counts_a_failed_probe_even_when_none_of_its_answers_apply(tmp_path):
    path = _probe(tmp_path, answers={"Q-no-such-question": "yes"})
    result = runner.invoke(app, ["scan", "--json", path])
    doc = json.loads(result.output)
    assert result.exit_code == 1 and doc["healthy"] is False
    assert doc["probes"][0]["status"] == "fail" and doc["probes"][0]["probe"] == "overfit_one_batch"
    text = runner.invoke(app, ["scan", path]).output
    assert "probe overfit_one_batch failed" in text and "loss stayed at 2.30" in text


def test_scan_of_a_passed_probe_says_passed(tmp_path):
    path = _probe(tmp_path, status="pass", answers={})
    result = runner.invoke(app, ["scan", "--json", path])
    doc = json.loads(result.output)
    assert result.exit_code == 0 and doc["healthy"] is True and doc["probes"][0]["status"] == "pass"
    assert "probe overfit_one_batch passed" in runner.invoke(app, ["scan", path]).output


def test_several_paths_keep_the_probe_verdict(tmp_path):
    log = tmp_path / "train.log"
    log.write_text("".join(f"step {i} | loss {2.0 - i * 0.01:.3f}\n" for i in range(1, 60)))
    result = runner.invoke(app, ["scan", str(log), _probe(tmp_path, answers={})])
    assert result.exit_code == 1 and "probe failed (overfit_one_batch)" in result.output


def test_inspect_shows_the_verdict_not_a_metric(tmp_path):
    path = _probe(tmp_path)
    result = runner.invoke(app, ["inspect", path])
    assert result.exit_code == 0 and "probe result: overfit_one_batch" in " ".join(result.output.split())
    assert "triage_probe_version" not in result.output and "measurements" not in result.output
    doc = json.loads(runner.invoke(app, ["inspect", "--json", path]).output)
    assert doc["runs"] == [] and doc["probes"][0]["status"] == "fail"


def test_ask_log_takes_a_probe_result_as_evidence(tmp_path):
    diag, notes = S.prepare(load_kb(), logs=[_probe(tmp_path)])
    answer = diag.answers["Q-overfit-one-batch"]
    assert answer.source == "probe" and "overfit_one_batch" in answer.evidence
