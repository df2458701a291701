"""The `scan --json` contract (docs/json.md), pinned as golden documents.

Each case runs the real command on a checked-in input and compares the whole JSON document (and
the exit code) with tests/golden/scan_json/NAME.json. The goldens were captured from the code
before the typed `Report` replaced the engine's dict, so a refactor of the report cannot change a
byte of what scripts read. When the knowledge or a detector changes on purpose, regenerate them
with `TRIAGE_UPDATE_GOLDEN=1 pytest tests/test_scan_json_contract.py` and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.cli import app

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "scan_json"
INPUTS = "tests/golden/inputs"
UPDATE = os.environ.get("TRIAGE_UPDATE_GOLDEN") == "1"
runner = CliRunner()

# name -> (arguments after `scan --json`, stdin or None); paths are relative to the repository root
CASES = {
    "healthy": (["bench/corpus/runs/healthy-cnn-08"], None),
    "broken": (["bench/corpus/runs/o2-mlp-a"], None),
    "traceback": (["tests/wild/logs/threads/errors/pytorch_oom_backward_18313.txt"], None),
    "framework-and-errors": (["tests/fixtures/logs/synthetic/deepspeed_hf4.log"], None),
    "hf-nan": (["tests/fixtures/logs/hf/trainer_state_nan.json"], None),
    "overflow": (["bench/corpus/runs/fp16-lm-overflow"], None),
    "probe-fail": ([f"{INPUTS}/probe_fail.json"], None),
    "probe-pass": ([f"{INPUTS}/probe_pass.json"], None),
    "several": (["bench/corpus/runs/healthy-cnn-08", "bench/corpus/runs/o2-mlp-a", f"{INPUTS}/missing.log"], None),
    "describe": (["bench/corpus/runs/healthy-dpo-00", "--describe", "DPO margins stuck at zero"], None),
    "note": ([f"{INPUTS}/note.txt"], None),
    "nothing-read": ([f"{INPUTS}/nothing.jsonl"], None),
    "stdin-traceback": (["-"], "tests/wild/logs/threads/errors/shape_mismatch_mtpsl_3.txt"),
    "merge": (["--merge", "bench/corpus/runs/o2-mlp-a/metrics.jsonl", "tests/fixtures/logs/synthetic/nanogpt.log"], None),
}


def run_scan(args: list[str], stdin: str | None) -> tuple[int, object]:
    """`triage scan --json ARGS` from the repository root (the paths in the document are as given)."""
    text = (ROOT / stdin).read_text(encoding="utf-8") if stdin else None
    result = runner.invoke(app, ["scan", "--json", *args], input=text, env={"NO_COLOR": "1"})
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("name", sorted(CASES))
def test_scan_json_matches_the_golden_document(name, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, doc = run_scan(*CASES[name])
    path = GOLDEN / f"{name}.json"
    got = {"exit": code, "json": doc}
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(got, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"{path} was missing and has been written; review it and run again")
    want = json.loads(path.read_text(encoding="utf-8"))
    assert got["exit"] == want["exit"]
    assert got["json"] == want["json"]


def test_every_golden_document_keeps_the_contract_keys():
    """The documented top-level keys, in the documented order, in every golden document."""
    keys = ["version", "sources", "findings", "causes", "unanswered", "healthy"]
    for path in sorted(GOLDEN.glob("*.json")):
        docs = json.loads(path.read_text(encoding="utf-8"))["json"]
        for doc in docs if isinstance(docs, list) else [docs]:
            assert list(doc)[:6] == keys, path.name
