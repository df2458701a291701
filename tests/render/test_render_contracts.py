"""Contracts a script relies on: one JSON document always,
`-v` as documented, exit codes documented for every command, a user's own ID prefix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from triage.cli import app

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "bench" / "corpus" / "runs"
runner = CliRunner()
ENV = {"NO_COLOR": "1"}


def test_scan_json_with_an_unreadable_path_still_prints_one_document(tmp_path):
    missing = tmp_path / "gone.jsonl"
    result = runner.invoke(app, ["scan", "--json", str(missing)], env=ENV)
    assert result.exit_code == 2
    doc = json.loads(result.stdout)  # was empty: `jq` got no input
    assert doc["healthy"] is False and doc["findings"] == [] and doc["causes"] == []
    assert doc["errors"] == [{"path": str(missing), "error": doc["error"]}] and "no such file" in doc["error"]
    assert "no such file" in result.stderr


def test_scan_json_with_nothing_read_prints_one_document_too(tmp_path):
    empty = tmp_path / "notes.jsonl"
    empty.write_text('{"note": "starting"}\n')
    result = runner.invoke(app, ["scan", "--json", str(empty)], env=ENV)
    assert result.exit_code == 3
    doc = json.loads(result.stdout)
    assert doc["outcome"] == "nothing read" and doc["errors"][0]["path"] == str(empty)


def test_scan_json_of_several_paths_has_an_errors_entry_per_unreadable_path(tmp_path):
    a, b = tmp_path / "a.log", tmp_path / "b.log"
    result = runner.invoke(app, ["scan", "--json", str(a), str(RUNS / "o2-mlp-a"), str(b)], env=ENV)
    assert result.exit_code == 2
    docs = json.loads(result.stdout)
    assert [d.get("errors", [{}])[0].get("path") for d in docs] == [str(a), None, str(b)]
    assert docs[1]["causes"] and "errors" not in docs[1]


def test_scan_verbose_with_several_paths_gives_the_full_view_of_each():
    paths = [str(RUNS / "o2-mlp-a"), str(RUNS / "o16-mlp-nll")]
    quiet = runner.invoke(app, ["scan", *paths], env=ENV)
    full = runner.invoke(app, ["scan", "-v", *paths], env=ENV)
    assert quiet.exit_code == full.exit_code == 1
    assert "Findings" not in quiet.stdout
    assert full.stdout.count("Findings (") == 2 and full.stdout.count("Most likely causes") == 2
    assert full.stdout.count("┤") >= 4  # a chart per run
    jobs = runner.invoke(app, ["scan", "-v", "--jobs", "2", *paths], env=ENV)
    assert jobs.stdout.count("Most likely causes") == 2


def test_search_that_finds_nothing_exits_1_with_a_message():
    result = runner.invoke(app, ["search", "xyzzy"], env=ENV)
    assert result.exit_code == 1
    assert "nothing in the knowledge base matches 'xyzzy'" in result.stderr and result.stdout == ""
    assert runner.invoke(app, ["search", "nan"], env=ENV).exit_code == 0


def _commands(cmd, path=()):
    subs = getattr(cmd, "commands", None)
    if subs:
        for name, sub in subs.items():
            yield from _commands(sub, path + (name,))
    else:
        yield path


@pytest.mark.parametrize("path", list(_commands(get_command(app))), ids=" ".join)
def test_every_command_documents_its_exit_codes(path):
    text = " ".join(runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).stdout.split())
    assert "Exit status:" in text and "0 " in text.split("Exit status:", 1)[1], path


def test_top_level_help_explains_exit_1():
    text = " ".join(runner.invoke(app, ["--help"], env={"COLUMNS": "200"}).stdout.split())
    assert "1 problems found" in text


CAUSE = """id: {id}
kind: cause
title: LoRA adapters sit on modules that carry little of the signal
family: llm
domains: [llm]
prior: uncommon
symptoms: [the loss barely moves while a LoRA adapter trains]
why: The adapter was attached to modules that carry little of what this task needs.
fix:
  - knob: "LoraConfig(target_modules=['q_proj', 'k_proj', 'v_proj', 'o_proj'])"
    range: all attention projections, or every linear layer
    expect: the loss starts to fall within a few hundred steps
verify: Print the trainable parameter count and the names of the wrapped modules.
signs:
  Q-start: [no-learning]
"""


def _user_folder(tmp_path: Path, node_id: str) -> Path:
    folder = tmp_path / "my-kb"
    (folder / "causes").mkdir(parents=True)
    (folder / "causes" / f"{node_id}.yaml").write_text(CAUSE.format(id=node_id))
    return folder


def test_a_user_folder_may_use_its_own_id_prefix(tmp_path):
    folder = _user_folder(tmp_path, "MY-lora-targets")
    check = runner.invoke(app, ["--kb", str(folder), "kb", "check"], env=ENV)
    assert check.exit_code == 0, check.stderr
    shown = runner.invoke(app, ["--kb", str(folder), "explain", "MY-lora-targets"], env=ENV)
    assert shown.exit_code == 0 and "LoraConfig(target_modules=" in shown.stdout


def _id_problems(folder: Path, node_id: str, builtin: bool = False) -> list[str]:
    """What `kb check` says about the ID of the cause in `folder` (as a user's node, or as if it
    were part of the bundled knowledge)."""
    import dataclasses

    from triage.kb.base import KnowledgeBase
    from triage.kb.validate import Checker

    kb = KnowledgeBase.load([str(folder)])
    node = kb.nodes[node_id]
    assert node.builtin is False
    checker = Checker(kb)
    checker.check_cause(dataclasses.replace(node, builtin=builtin))
    return [p.message for p in checker.problems if "cause IDs are" in p.message]


@pytest.mark.parametrize("node_id", ["my-lora-targets", "Q-lora-targets", "MY_lora"])
def test_a_user_prefix_still_has_a_shape(tmp_path, node_id):
    problems = _id_problems(_user_folder(tmp_path, node_id), node_id)
    assert len(problems) == 1 and "MY-lora-targets" in problems[0]


def test_the_bundled_knowledge_keeps_its_own_prefixes(tmp_path):
    folder = _user_folder(tmp_path, "MY-lora-targets")
    assert _id_problems(folder, "MY-lora-targets") == []
    assert len(_id_problems(folder, "MY-lora-targets", builtin=True)) == 1


def test_readme_sets_up_in_a_virtual_environment_and_explains_exit_1():
    readme = (ROOT / "README.md").read_text()
    first = readme.split("```bash", 1)[1].split("```", 1)[0]
    assert "python3 -m venv .venv" in first and first.index("venv") < first.index("pip install .")
    after = readme.split("```bash", 1)[1].split("```", 2)[1]
    assert '1 means "problems found"' in " ".join(after.split())


def test_the_test_script_states_its_side_effects():
    head = "".join(line for line in (ROOT / "scripts" / "test").read_text().splitlines(True) if line.startswith("#"))
    assert "apt-get" in head and "chromium" in head and "poppler-utils" in head and ".venv" in head
    assert "apt-get" in (ROOT / "README.md").read_text().split("## Development", 1)[1].split("```", 2)[1]
