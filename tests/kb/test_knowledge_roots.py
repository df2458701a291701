"""One place finds the knowledge folders (triage.kb.loader.knowledge_roots), and a folder given
with --kb counts for everything read from it: its nodes and its metrics.yaml, whose aliases name
the metrics the log readers read, in `scan` as in `inspect`, in worker processes too."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from triage import api
from triage.cli import app
from triage.ingest import aliases
from triage.kb import loader

runner = CliRunner()
ENV = {"NO_COLOR": "1", "COLUMNS": "200"}


def _kb_with_alias(tmp_path, alias: str = "zorp_objective"):
    kb = tmp_path / "mykb"
    kb.mkdir()
    (kb / "metrics.yaml").write_text(f"metrics:\n  loss:\n    aliases: [{alias}]\n", encoding="utf-8")
    return kb


def _log(tmp_path, name: str = "run.jsonl", key: str = "zorp_objective"):
    p = tmp_path / name
    p.write_text("".join(json.dumps({"step": s, key: 2.0 - s / 100}) + "\n" for s in range(1, 61)), encoding="utf-8")
    return p


def _scan(*args: str, env: dict | None = None):
    result = runner.invoke(app, list(args), env={**ENV, **(env or {})})
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_scan_with_kb_reads_the_aliased_name(tmp_path):
    kb, log = _kb_with_alias(tmp_path), _log(tmp_path)
    doc = _scan("--kb", str(kb), "scan", "--json", str(log))
    assert doc["sources"][0]["metrics"] == ["loss"]
    doc = _scan("scan", "--json", str(log))  # and only with it: the next command forgets the folder
    assert doc["sources"][0]["metrics"] == ["zorp_objective"]


def test_scan_jobs_workers_read_the_aliased_name(tmp_path):
    """--jobs scans in other processes: they find the same folders."""
    kb = _kb_with_alias(tmp_path)
    logs = [_log(tmp_path, "a.jsonl"), _log(tmp_path, "b.jsonl")]
    docs = _scan("--kb", str(kb), "scan", "--json", "--jobs", "2", *map(str, logs))
    assert [d["sources"][0]["metrics"] for d in docs] == [["loss"], ["loss"]]


def test_the_environment_folder_counts_too(tmp_path):
    kb, log = _kb_with_alias(tmp_path), _log(tmp_path)
    doc = _scan("scan", "--json", str(log), env={loader.KB_ENV: str(kb)})
    assert doc["sources"][0]["metrics"] == ["loss"]


def test_the_api_reads_with_the_folders_it_loaded(tmp_path):
    kb_dir, log = _kb_with_alias(tmp_path), _log(tmp_path)
    try:
        report = api.scan(str(log), kb=api.load_kb([str(kb_dir)]))
        assert api.public(report)["sources"][0]["metrics"] == ["loss"]
    finally:
        loader.use_roots([])


def test_one_place_finds_the_folders(tmp_path, monkeypatch):
    monkeypatch.setenv(loader.KB_ENV, str(tmp_path / "env"))
    try:
        loader.use_roots([str(tmp_path / "given")])
        roots = loader.knowledge_roots()
        assert roots == [loader.builtin_root(), tmp_path / "env", tmp_path / "given"]
        assert aliases.knowledge_roots is loader.knowledge_roots and aliases.use_roots is loader.use_roots
        assert loader.knowledge_roots([]) == roots[:2]  # an explicit list replaces the given folders
    finally:
        loader.use_roots([])
