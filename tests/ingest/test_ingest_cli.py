"""`triage inspect`: table, JSON, stdin, exit codes; start-up stays free of numpy."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import FIXTURES, REPO


def _triage(*args, stdin: bytes | None = None):
    env = dict(os.environ, NO_COLOR="1", COLUMNS="160")
    return subprocess.run([sys.executable, "-m", "triage", *args], input=stdin, capture_output=True, cwd=REPO,
                          env=env, timeout=120)


def test_inspect_table():
    p = _triage("inspect", str(FIXTURES / "hf/trainer_state_nan.json"))
    assert p.returncode == 0, p.stderr
    out = p.stdout.decode()
    assert "hf_state" in out and "grad_norm" in out and "eval/a/loss" in out
    assert "×" in out  # NaN buckets in the sparkline


def test_inspect_json_one_document_for_several_paths():
    p = _triage("inspect", "--json", str(FIXTURES / "synthetic/megatron.log"), str(FIXTURES / "sb3"))
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert [r["format"] for r in doc["runs"]] == ["megatron", "sb3_progress"]
    m = {x["name"]: x for x in doc["runs"][0]["metrics"]}
    assert m["loss_scale"]["first"] == 65536 and m["loss"]["nan"] == 0


def test_inspect_stdin_and_format():
    data = (FIXTURES / "synthetic/nanogpt.log").read_bytes()
    p = _triage("inspect", "--json", "-", stdin=data)
    assert p.returncode == 0 and json.loads(p.stdout)["runs"][0]["format"] == "nanogpt"
    p = _triage("inspect", "--json", "--format", "jsonl", "-", stdin=b'{"step": 1, "loss": NaN}\n')
    assert json.loads(p.stdout)["runs"][0]["metrics"][0]["nan"] == 1


def test_inspect_errors_are_one_line_exit_2(tmp_path):
    p = _triage("inspect", str(tmp_path / "missing.log"))
    assert p.returncode == 2
    err = p.stderr.decode().strip()
    assert len(err.splitlines()) == 1 and "missing.log" in err and "no such file" in err
    bad = tmp_path / "x.bin"
    bad.write_bytes(bytes(range(256)) * 4)
    p = _triage("inspect", str(bad))
    assert p.returncode == 2 and len(p.stderr.decode().strip().splitlines()) == 1
    p = _triage("inspect", "--format", "nope", str(FIXTURES / "synthetic/nanogpt.log"))
    assert p.returncode == 2 and "unknown format" in p.stderr.decode()


def test_cli_import_does_not_import_numpy():
    code = "import sys, triage.cli, triage.ingest; assert 'numpy' not in sys.modules, 'numpy imported'"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=REPO)
    assert p.returncode == 0, p.stderr


def test_sources_block_contract():
    from triage.ingest import read_run
    from triage.render.inspect import sources_block

    run = read_run(FIXTURES / "synthetic/messy.jsonl")
    block = sources_block(run)
    assert set(block) == {"path", "format", "rows", "skipped", "metrics"}
    assert block["skipped"] == 4 and block["metrics"] == ["eval/loss", "grad_norm", "loss"]
