"""A probe result is evidence: `load_result` validates the contract, `triage scan` and `triage ask --evidence` use it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage import probes
from triage.cli import app

runner = CliRunner()


@pytest.fixture
def softmax_result(probe):
    code, result, out, err = probe("output_form", "softmax_ce")
    assert code == 1
    return result


def _write(tmp_path, doc, name="r.json") -> Path:
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return p


GOOD = {"probe": "grad_flow", "version": "1", "status": "fail", "answers": {"Q-gradnorm": "zero"},
        "measurements": {"total_grad_norm": 0.0, "loss": "nan"}, "message": "x"}


def test_load_result_accepts_a_probe_result(tmp_path, softmax_result):
    path = _write(tmp_path, softmax_result)
    doc = probes.load_result(path)
    assert doc["probe"] == "output_form" and doc["status"] == "fail"
    assert set(doc) >= {"probe", "version", "status", "answers", "measurements", "message"}
    assert probes.load_result(_write(tmp_path, GOOD, "g.json"))["answers"] == {"Q-gradnorm": "zero"}


@pytest.mark.parametrize("doc,words", [
    ({k: v for k, v in GOOD.items() if k != "answers"}, "missing answers"),
    (dict(GOOD, status="failed"), "'status' is 'failed'"),
    (dict(GOOD, answers={"Q-gradnorm": 0}), "'answers' must map"),
    (dict(GOOD, answers=["Q-gradnorm"]), "'answers' must map"),
    (dict(GOOD, measurements=[]), "'measurements' must be an object"),
    (dict(GOOD, message=None), "'message' must be a string"),
    ('{"probe": "x", "version": "1", "status": "pass", "answers": {}, "measurements": {"a": NaN}, "message": ""}', "bare NaN"),
    ("[1, 2]", "JSON object"),
    ("not json", "not valid JSON"),
])
def test_load_result_rejects(tmp_path, doc, words):
    with pytest.raises(probes.ProbeResultError) as err:
        probes.load_result(_write(tmp_path, doc))
    assert words in str(err.value)


def test_load_result_missing_file(tmp_path):
    with pytest.raises(probes.ProbeResultError, match="cannot read"):
        probes.load_result(tmp_path / "nope.json")


def test_probe_json_is_strict(tmp_path, probe):
    """Non-finite measurements are written as strings so strict JSON parsers read the file."""
    code, result, out, err = probe("precision_compare", "good")
    text = json.dumps(result)
    json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))


def test_scan_reads_a_probe_result(tmp_path, softmax_result):
    path = _write(tmp_path, softmax_result)
    res = runner.invoke(app, ["scan", str(path), "--json"])
    assert res.exit_code in (0, 1), res.output
    doc = json.loads(res.output)
    assert doc["sources"][0]["format"] == "probe-result"
    assert doc["causes"] and doc["causes"][0]["id"] == "O12", doc["causes"][:3]
    assert any("output_form" in e for e in doc["causes"][0]["evidence"])
    assert doc["healthy"] is False


def test_scan_of_a_passing_probe_is_healthy(tmp_path, probe):
    code, result, out, err = probe("output_form", "good")
    res = runner.invoke(app, ["scan", str(_write(tmp_path, result)), "--json"])
    doc = json.loads(res.output)
    assert doc["causes"] == [] and doc["healthy"] is True


def test_ask_uses_a_probe_result_as_evidence(tmp_path, softmax_result):
    path = _write(tmp_path, softmax_result)
    answers = tmp_path / "answers.yaml"
    answers.write_text("Q-start: no-learning\n")
    res = runner.invoke(app, ["ask", "--evidence", str(path), "--answers", str(answers)])
    assert res.exit_code == 0, res.output
    assert "probe output_form" in res.output
    assert "O12" in res.output
