"""docs/ci.md: the workflow is valid YAML and every triage command in it runs as documented."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml
from typer.testing import CliRunner

from triage.cli import app

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "ci.md").read_text()
PAIRS = REPO / "tests" / "fixtures" / "diff" / "pairs"


def workflow() -> dict:
    block = re.search(r"```yaml\n(.*?)```", DOC, re.S).group(1)
    return yaml.safe_load(block)


def triage_steps() -> list[list[str]]:
    steps = workflow()["jobs"]["smoke-train"]["steps"]
    runs = [" ".join(str(s["run"]).split()) for s in steps if str(s.get("run", "")).startswith("triage ")]
    return [shlex.split(r)[1:] for r in runs]


def test_the_workflow_is_a_github_actions_job():
    wf = workflow()
    steps = wf["jobs"]["smoke-train"]["steps"]
    assert wf["jobs"]["smoke-train"]["runs-on"] and any("upload-artifact" in str(s.get("uses", "")) for s in steps)
    assert [a[0] for a in triage_steps()] == ["scan", "diff"]


def test_the_documented_commands_run_with_the_documented_exit_codes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the reports land here
    runner = CliRunner()
    golden, same, regressed = PAIRS / "seed-only" / "good", PAIRS / "seed-only" / "good", PAIRS / "warmup-removed" / "bad"
    for args in triage_steps():
        if args[0] == "scan":
            ok = runner.invoke(app, [str(golden) if a == "runs/ci" else a for a in args])
            assert ok.exit_code == 0, ok.output
        else:
            def swap(run):
                return [str(golden) if a == "tests/golden/run" else str(run) if a == "runs/ci" else a for a in args]

            assert runner.invoke(app, swap(same)).exit_code == 0
            warm = PAIRS / "warmup-removed"
            failed = runner.invoke(app, [str(warm / "good") if a == "tests/golden/run" else str(regressed) if a == "runs/ci"
                                         else a for a in args])
            assert failed.exit_code == 1 and "FAILED" in failed.output
    assert (tmp_path / "triage-scan.html").is_file() and (tmp_path / "triage-diff.html").is_file()


def test_the_fail_on_vocabulary_in_the_doc_is_accepted():
    runner = CliRunner()
    log = PAIRS / "seed-only" / "good"
    for spec in ("error", "nan,unstable,O9", "warning", "any", "det-loss-nan", "S-nan", "no-learning"):
        result = runner.invoke(app, ["scan", str(log), "--fail-on", spec])
        assert result.exit_code in (0, 1), (spec, result.output)
