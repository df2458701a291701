"""`triage sweep` as a user and a script see it: the report, the JSON document, exit codes, errors."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from sweepgen import BENCH
from typer.testing import CliRunner

from triage.cli import app

runner = CliRunner()
CONTRACT_KEYS = {"version", "sources", "findings", "causes", "unanswered", "healthy"}


def sweep(*args: str):
    result = runner.invoke(app, ["sweep", *args])
    doc = json.loads(result.stdout) if "--json" in args and result.stdout.strip() else None
    return result, doc


@pytest.fixture(scope="module")
def separable_doc(separable_sweep) -> dict:
    result, doc = sweep(str(separable_sweep[0]), "--json")
    assert result.exit_code == 1, result.output
    return doc


@pytest.fixture(scope="module")
def separable_text(separable_sweep, tmp_path_factory) -> tuple[str, Path]:
    """The terminal report, with the HTML report written by the same command."""
    out = tmp_path_factory.mktemp("report") / "sweep.html"
    result = runner.invoke(app, ["sweep", str(separable_sweep[0]), "--report", str(out)])
    assert result.exit_code == 1, result.output
    return result.stdout, out


def _matcher(rule: dict):
    """Does a run (from the JSON) satisfy a reported rule?"""
    def match(run: dict) -> bool:
        value = run["config"].get(rule["key"])
        if value is None:
            return False
        if rule["op"] == ">=":
            return value >= rule["value"]
        if rule["op"] == "<=":
            return value <= rule["value"]
        return value == rule["value"]

    return match


def _lr_rules(doc: dict) -> list[dict]:
    return [r for s in doc["summary"]["separating"] for r in s["rules"] if r["key"] == "lr"]


def test_names_the_separating_key_with_counts_that_add_up(separable_doc, separable_text):
    doc = separable_doc
    runs = doc["runs"]
    assert len(runs) == 36 and doc["summary"]["runs"] == 36
    rules = _lr_rules(doc)
    assert rules, f"no rule on lr: {doc['summary']['separating']}"
    for sep in doc["summary"]["separating"]:
        for rule in sep["rules"]:
            # the counts are the runs': recount them from the per-run verdicts and configs
            members = [r for r in runs if r["verdict"] == "broken" and (sep["group"] == "broken" or r["top_cause"] == sep["group"])]
            healthy = [r for r in runs if r["verdict"] == "healthy"]
            match = _matcher(rule)
            assert rule["group_runs"] == len(members) and rule["healthy_runs"] == len(healthy)
            assert rule["group_matching"] == sum(map(match, members))
            assert rule["healthy_matching"] == sum(map(match, healthy))
    best = rules[0]
    assert (best["op"], best["value"], best["healthy_matching"]) == (">=", 0.003, 0)
    assert best["sentence"].endswith(f"none of the {best['healthy_runs']} healthy runs do (healthy: 0.0001 to 0.001)")

    text = separable_text[0]
    assert "What separates broken runs from healthy ones" in text
    assert re.search(r"all \d+ \S+ runs have lr >= 0\.003; none of the \d+ healthy runs do", text)


def test_claims_none_where_no_key_separates(random_sweep):
    root, truth = random_sweep
    assert sum(f == "diverge" for f, _fmt, _c in truth.values()) >= 6, "the sweep must have broken runs to compare"
    result, doc = sweep(str(root), "--json")
    assert result.exit_code == 1
    seps = doc["summary"]["separating"]
    assert seps and all(not s["rules"] and s["none_because"] for s in seps)
    text = runner.invoke(app, ["sweep", str(root)]).stdout
    assert "no config key separates" in text and " have lr " not in text


def test_json_is_one_document_with_every_runs_scan(separable_sweep, separable_doc):
    from triage import api

    root, _truth = separable_sweep
    _result, doc = sweep(str(root), "--json", "--jobs", "2")
    assert set(doc) == {"version", "kind", "source", "runs", "summary"} and doc["kind"] == "sweep"
    assert sorted(r["index"] for r in doc["runs"]) == list(range(36))
    for r in doc["runs"]:
        assert set(r["scan"]) >= CONTRACT_KEYS and r["error"] is None
        assert r["verdict"] == ("healthy" if r["scan"]["healthy"] else "broken")
        assert r["top_cause"] == (r["scan"]["causes"][0]["id"] if r["scan"]["causes"] else None)
    # the per-run document is exactly what `triage scan --json` prints for that run
    one = min(doc["runs"], key=lambda r: r["index"])
    assert one["scan"] == json.loads(json.dumps(api.public(api.scan(one["id"]))))
    # two processes and one give the same verdicts and top causes
    serial = separable_doc
    key = lambda d: sorted((r["name"], r["verdict"], r["top_cause"]) for r in d["runs"])  # noqa: E731
    assert key(doc) == key(serial)
    assert doc["summary"]["executor"] == "processes" and doc["summary"]["workers"] == 2
    assert serial["summary"]["separating"] == doc["summary"]["separating"]


def test_html_report_draws_small_multiples_per_group(separable_text):
    out = separable_text[1]
    assert out.is_file()
    page = out.read_text()
    groups = re.findall(r'<section class="group" id="g-([^"]+)">', page)
    assert "healthy" in groups and len(groups) >= 2
    assert page.count("<figure><svg") >= len(groups)
    assert "lr &gt;= 0.003" in page and "<script" not in page


def test_healthy_sweep_exits_0(tmp_path):
    rng = np.random.default_rng(0)
    for i in range(3):
        d = tmp_path / f"ok-{i}"
        d.mkdir()
        config = {"lr": 1e-4, "batch_size": 32, "warmup_steps": 0}
        BENCH.write_jsonl(d, BENCH.curves(rng, "healthy", 300, config), config)
    result, doc = sweep(str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    assert doc["summary"]["healthy"] == 3 and doc["summary"]["separating"] == []


def test_unreadable_run_is_listed_and_exits_1(separable_sweep, tmp_path):
    root, _truth = separable_sweep
    bad = tmp_path / "bad-run"
    bad.mkdir()
    (bad / "log.jsonl").write_bytes(b"\x00\x9f garbage \xff" * 50)
    result, doc = sweep(str(bad), str(root / "run-00000"), "--json")
    assert result.exit_code == 1
    err = [r for r in doc["runs"] if r["verdict"] == "unreadable"]
    assert len(err) == 1 and err[0]["scan"] is None and err[0]["error"]
    assert doc["summary"]["unreadable"] == 1


@pytest.mark.parametrize("args, message", [
    ([], "give folders or files of runs"),
    (["--experiment", "x", "."], "--experiment goes with --mlflow"),
    (["--report", "out.md", "."], "the sweep report is a .html file"),
    (["--report", "/no/such/dir/out.html", "."], "folder /no/such/dir does not exist"),
    (["--executor", "spark", "."], "use local or ray"),
    (["/no/such/folder"], "no such file or directory"),
])
def test_usage_errors_are_one_line_exit_2(args, message):
    result = runner.invoke(app, ["sweep", *args])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_missing_ray_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if it were not installed
    result = runner.invoke(app, ["sweep", "--executor", "ray", str(tmp_path)])
    assert result.exit_code == 2 and "pip install 'triage[ray]'" in result.output


def test_missing_mlflow_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "mlflow", None)
    monkeypatch.setitem(sys.modules, "mlflow.tracking", None)
    result = runner.invoke(app, ["sweep", "--mlflow", "http://127.0.0.1:9"])
    assert result.exit_code == 2 and "pip install 'triage[mlflow]'" in result.output


def test_slim_records_give_the_same_summary(separable_doc):
    """Without --json the workers send only the part of each document the summary reads."""
    from triage.sweep.summary import SweepSummary
    from triage.sweep.work import slim

    full, lean = SweepSummary(), SweepSummary()
    for r in separable_doc["runs"]:
        record = {k: r[k] for k in ("index", "id", "name", "config", "error")}
        full.add({**record, "scan": r["scan"]})
        lean.add({**record, "scan": slim(r["scan"])})
    assert len(json.dumps(slim(separable_doc["runs"][0]["scan"]))) < len(json.dumps(separable_doc["runs"][0]["scan"]))
    assert full.finish().to_dict() == lean.finish().to_dict()
    assert [(r.verdict, r.group, r.findings, r.note, r.rows) for r in full.runs] == \
        [(r.verdict, r.group, r.findings, r.note, r.rows) for r in lean.runs]
