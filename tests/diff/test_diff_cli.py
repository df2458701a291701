"""`triage diff` and `triage scan --fail-on` as a CI job sees them: output, JSON, reports, exit codes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.cli import app

runner = CliRunner()
PAIRS = Path(__file__).resolve().parents[1] / "fixtures" / "diff" / "pairs"


def pair(name: str) -> list[str]:
    return [str(PAIRS / name / "good"), str(PAIRS / name / "bad")]


def write_jsonl(path: Path, n: int = 300, nan_from: int | None = None, flat: bool = False) -> Path:
    rows = []
    for i in range(1, n + 1):
        loss = 2.3026 + 0.004 * math.sin(i * 1.7) if flat else 2.3 * math.exp(-i / 80) + 0.3 + 0.01 * math.sin(i)
        if nan_from is not None and i >= nan_from:
            loss = float("nan")
        rows.append(json.dumps({"step": i, "loss": loss, "grad_norm": 1.0 + 0.1 * math.cos(i),
                                "learning_rate": 1e-4 * min(1.0, i / 30)}))
    path.write_text("\n".join(rows) + "\n")
    return path


# -- diff ------------------------------------------------------------------------------------------
def test_diff_prints_the_headline_and_exits_1_when_the_runs_part():
    result = runner.invoke(app, ["diff", *pair("accum-1-to-4")])
    assert result.exit_code == 1, result.output
    assert "grad_accum_steps went from 1 to 4 and grad_norm parted first at step 1: O9" in result.output
    assert "Config differences" in result.output and "triage explain O9" in result.output


def test_diff_exits_0_when_the_runs_agree_within_noise():
    result = runner.invoke(app, ["diff", *pair("seed-only")])
    assert result.exit_code == 0, result.output
    assert "No metric parts beyond the runs' own noise" in result.output


def test_diff_json_is_one_document():
    result = runner.invoke(app, ["diff", *pair("warmup-removed"), "--json"])
    doc = json.loads(result.stdout)
    assert result.exit_code == 1
    assert {"version", "good", "bad", "parted", "first", "metrics", "config", "causes", "headline"} <= set(doc)
    assert not any(k.startswith("_") for k in doc)
    assert doc["first"]["metric"] == "learning_rate" and doc["config"]["suspect"] == "warmup_steps"
    assert doc["good"]["config"].endswith("training_args.json")


@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_diff_report(tmp_path, suffix):
    target = tmp_path / f"diff{suffix}"
    result = runner.invoke(app, ["diff", *pair("clip-removed-sgd"), "--report", str(target)])
    assert result.exit_code == 1, result.output
    text = target.read_text()
    assert "max_grad_norm" in text and "S-grad-clip-missing" in text
    if suffix == ".html":
        assert text.count("<svg") >= 2 and "<script" not in text and "parts at step" in text
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")  # nothing fetched
    else:
        assert text.startswith("# triage diff") and "| **max\\_grad\\_norm** ◀ |" in text


def test_diff_tolerance_gate_exit_codes():
    strict = runner.invoke(app, ["diff", *pair("clip-removed-sgd"), "--tolerance", "5%", "--json"])
    assert strict.exit_code == 1
    gate = json.loads(strict.stdout)["gate"]
    assert not gate["passed"] and gate["tolerance"] == {"rel": 0.05, "abs": 0.0}
    assert {r["metric"] for r in gate["regressions"]} >= {"loss"}
    # the same runs, a loose tolerance on the final window only: the gate passes, whatever the parting
    loose = runner.invoke(app, ["diff", *pair("clip-removed-sgd"), "--tolerance", "rel=0.6", "--metric", "eval/loss"])
    assert loose.exit_code == 0, loose.output
    assert "Regression gate" in loose.output and "passed" in loose.output


def test_diff_gate_passes_a_run_against_itself(tmp_path):
    log = write_jsonl(tmp_path / "run.jsonl")
    result = runner.invoke(app, ["diff", str(log), str(log), "--tolerance", "0"])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("args, message", [
    (["nope-good", "nope-bad"], "no such file or folder"),
    (["-", "x"], "not stdin"),
    (["GOOD", "BAD", "--tolerance", "lots"], "is not a number"),
    (["GOOD", "BAD", "--tolerance", "5%", "--metric", "reward"], "not logged by both runs"),
    (["GOOD", "BAD", "--report", "x.pdf"], "use a .html or .md file name"),
])
def test_diff_bad_input_is_one_line_exit_2(args, message):
    args = [a.replace("GOOD", pair("seed-only")[0]).replace("BAD", pair("seed-only")[1]) for a in args]
    result = runner.invoke(app, ["diff", *args])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_diff_of_a_file_without_metrics_is_exit_2(tmp_path):
    empty = tmp_path / "notes.txt"
    empty.write_text("nothing to see here, just a note\n")
    result = runner.invoke(app, ["diff", str(empty), str(empty)])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_diff_of_runs_without_a_shared_metric_is_exit_2(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps({"step": i, "loss": 1.0 / i}) + "\n" for i in range(1, 50)))
    b.write_text("".join(json.dumps({"step": i, "reward": float(i)}) + "\n" for i in range(1, 50)))
    result = runner.invoke(app, ["diff", str(a), str(b)])
    assert result.exit_code == 2 and "no training metric in common" in result.output


# -- scan --fail-on --------------------------------------------------------------------------------
@pytest.fixture()
def logs(tmp_path):
    return {"nan": str(write_jsonl(tmp_path / "nan.jsonl", nan_from=200)),
            "flat": str(write_jsonl(tmp_path / "flat.jsonl", flat=True)),
            "ok": str(write_jsonl(tmp_path / "ok.jsonl"))}


@pytest.mark.parametrize("log, spec, code", [
    ("nan", "error", 1), ("nan", "warning", 1), ("nan", "nan", 1), ("nan", "det-loss-nan", 1),
    ("nan", "no-learning", 0), ("nan", "O9", 0),
    ("flat", "error", 0), ("flat", "warning", 1), ("flat", "no-learning", 1), ("flat", "nan,unstable", 0),
    ("ok", "warning", 0), ("ok", "any", 0),
])
def test_scan_fail_on_exit_codes(logs, log, spec, code):
    result = runner.invoke(app, ["scan", logs[log], "--fail-on", spec, "--json"])
    assert result.exit_code == code, result.output
    json.loads(result.stdout)  # the document is printed as usual


def test_scan_fail_on_a_ranked_cause(logs):
    doc = json.loads(runner.invoke(app, ["scan", logs["nan"], "--json"]).stdout)
    top = doc["causes"][0]["id"]
    result = runner.invoke(app, ["scan", logs["nan"], "--fail-on", top])
    assert result.exit_code == 1 and f"fail-on: {logs['nan']}: {top}: ranked #1" in result.output


def test_scan_fail_on_several_paths_and_repeated_option(logs):
    result = runner.invoke(app, ["scan", logs["ok"], logs["flat"], "--fail-on", "nan", "--fail-on", "no-learning"])
    assert result.exit_code == 1 and "no-learning: loss is flat" in result.output
    result = runner.invoke(app, ["scan", logs["ok"], logs["flat"], "--fail-on", "error"])
    assert result.exit_code == 0, result.output


def test_scan_fail_on_unknown_name_is_exit_2(logs):
    result = runner.invoke(app, ["scan", logs["ok"], "--fail-on", "nann"])
    assert result.exit_code == 2
    assert "did you mean nan" in result.output and "Traceback" not in result.output


def test_scan_help_documents_the_exit_codes():
    result = runner.invoke(app, ["scan", "--help"])
    assert "--fail-on" in result.output and "nothing it names is" in " ".join(result.output.split())
    result = runner.invoke(app, ["diff", "--help"])
    flat = " ".join(result.output.split())
    assert "0 the runs agree within noise, 1 they part" in flat and "With --tolerance" in flat
