"""Every failure mode of `triage kb check`, each on a small broken knowledge folder."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.detect import PARAMS
from triage.kb.base import KnowledgeBase
from triage.kb.validate import check

START = """
id: Q-start
kind: symptom
question: What do you see?
help: Pick one.
answers:
  - {value: crash, label: It crashes}
  - {value: flat, label: Loss is flat}
"""

FLAT_Q = """
id: Q-flat-detail
kind: symptom
question: Flat from step 0?
help: Look at the loss.
when: {Q-start: flat}
default: "no"
answers:
  - {value: "yes", label: "Yes"}
  - {value: "no", label: "No"}
"""


def cause(node_id: str, signs: str = "{Q-start: crash}", **extra: str) -> str:
    fields = {
        "id": node_id,
        "kind": "cause",
        "title": f"Cause {node_id}",
        "family": "stability",
        "domains": "[any]",
        "prior": "common",
        "symptoms": "[It breaks.]",
        "why": "Because.",
        "fix": '[{knob: "lr = 1e-4", range: "1e-5 to 1e-3", expect: "loss falls within 100 steps"}]',
        "verify": "Run it again.",
        "signs": signs,
    }
    fields.update(extra)
    return "\n".join(f"{k}: {v}" for k, v in fields.items()) + "\n"


def write_kb(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def base_files() -> dict[str, str]:
    return {
        "symptoms/core/Q-start.yaml": START,
        "symptoms/core/Q-flat-detail.yaml": FLAT_Q,
        "causes/stability/S-alpha.yaml": cause("S-alpha"),
        "causes/stability/S-beta.yaml": cause("S-beta", "{Q-start: flat, Q-flat-detail: 'yes'}"),
    }


def problems_for(tmp_path: Path, files: dict[str, str]) -> list[str]:
    root = write_kb(tmp_path / "kb", files)
    kb = KnowledgeBase.load([str(root)], use_cache=False, builtin=False)
    return [p.format() for p in check(kb, check_params=PARAMS) if p.severity == "error"]


def test_valid_fixture_passes(tmp_path):
    assert problems_for(tmp_path, base_files()) == []


def test_invalid_yaml_names_file_and_line(tmp_path):
    files = base_files()
    files["causes/stability/S-gamma.yaml"] = "id: S-gamma\nkind: cause\ntitle: [unclosed\n"
    probs = problems_for(tmp_path, files)
    assert any("S-gamma.yaml:" in p and "invalid YAML" in p for p in probs), probs


def test_schema_error_missing_field_and_bad_enum(tmp_path):
    files = base_files()
    files["causes/stability/S-alpha.yaml"] = cause("S-alpha", prior="often").replace("why: Because.\n", "")
    probs = problems_for(tmp_path, files)
    assert any("S-alpha.yaml" in p and "missing field `why`" in p for p in probs), probs
    assert any("S-alpha.yaml:" in p and "prior must be one of" in p for p in probs), probs


def test_unknown_field_is_reported_with_its_line(tmp_path):
    files = base_files()
    files["causes/stability/S-alpha.yaml"] = cause("S-alpha") + "colour: blue\n"
    probs = problems_for(tmp_path, files)
    line = len(cause("S-alpha").splitlines()) + 1
    assert any(f"S-alpha.yaml:{line}:" in p and "unknown field `colour`" in p for p in probs), probs


def test_duplicate_id_names_both_files(tmp_path):
    files = base_files()
    files["causes/stability/other/S-alpha.yaml"] = cause("S-alpha")
    probs = problems_for(tmp_path, files)
    dup = [p for p in probs if "duplicate ID" in p]
    assert dup and "other/S-alpha.yaml" in dup[0] + "".join(dup) and dup[0].count("S-alpha.yaml") == 2, probs


def test_dangling_link_suggests_close_match(tmp_path):
    files = base_files()
    files["causes/stability/S-alpha.yaml"] = cause("S-alpha", links="[S-betta]")
    probs = problems_for(tmp_path, files)
    assert any("unknown ID 'S-betta'" in p and "S-beta" in p for p in probs), probs


def test_unreachable_cause(tmp_path):
    files = base_files()
    files["causes/stability/S-gamma.yaml"] = cause("S-gamma", signs="{Q-flat-detail: 'no'}").replace(
        "signs:", "signs:"
    )
    # no Q-start sign is itself an error; make it reachable only through an unreachable question
    files["symptoms/core/Q-orphan.yaml"] = FLAT_Q.replace("Q-flat-detail", "Q-orphan").replace(
        "when: {Q-start: flat}", "when: {Q-orphan2: 'yes'}"
    )
    files["symptoms/core/Q-orphan2.yaml"] = FLAT_Q.replace("Q-flat-detail", "Q-orphan2").replace(
        "when: {Q-start: flat}", "when: {Q-orphan: 'yes'}"
    )
    files["causes/stability/S-delta.yaml"] = cause("S-delta", signs="{Q-start: crash, Q-orphan: 'yes'}")
    probs = problems_for(tmp_path, files)
    assert any("S-gamma" in p and "needs a Q-start answer" in p for p in probs), probs
    assert any("cycle in the question graph" in p for p in probs), probs
    assert any("Q-orphan" in p and "unreachable" in p for p in probs), probs


def test_cause_reached_only_through_an_island_is_unreachable(tmp_path):
    files = base_files()
    # Q-island is gated on an answer Q-start does not have: nothing leads to it
    files["symptoms/core/Q-island.yaml"] = FLAT_Q.replace("Q-flat-detail", "Q-island").replace(
        "when: {Q-start: flat}", "when: {Q-flat-detail: maybe}"
    )
    files["causes/stability/S-gamma.yaml"] = cause("S-gamma", signs="{Q-island: 'yes'}")
    probs = problems_for(tmp_path, files)
    assert any("S-gamma" in p and "unreachable from Q-start" in p for p in probs), probs
    assert any("Q-island" in p and "unreachable from Q-start" in p for p in probs), probs


def test_unreachable_when_no_question_indicates_it(tmp_path):
    files = base_files()
    # a sign on a question that does not exist: dangling and therefore unreachable
    files["causes/stability/S-gamma.yaml"] = cause("S-gamma", signs="{Q-start: nope}")
    probs = problems_for(tmp_path, files)
    assert any("S-gamma" in p and "has no answer 'nope'" in p for p in probs), probs
    assert any("S-gamma" in p and "unreachable from Q-start" in p for p in probs), probs


def test_question_with_no_way_out(tmp_path):
    files = base_files()
    files["symptoms/core/Q-dead.yaml"] = FLAT_Q.replace("Q-flat-detail", "Q-dead")
    probs = problems_for(tmp_path, files)
    assert any("Q-dead" in p and "no way out" in p for p in probs), probs


def test_cycle_in_question_graph(tmp_path):
    files = base_files()
    files["symptoms/core/Q-a.yaml"] = FLAT_Q.replace("Q-flat-detail", "Q-a").replace(
        "when: {Q-start: flat}", "when: {Q-b: 'yes'}"
    )
    files["symptoms/core/Q-b.yaml"] = FLAT_Q.replace("Q-flat-detail", "Q-b").replace(
        "when: {Q-start: flat}", "when: {Q-a: 'yes'}"
    )
    files["causes/stability/S-gamma.yaml"] = cause("S-gamma", signs="{Q-start: flat, Q-a: 'yes'}")
    probs = problems_for(tmp_path, files)
    assert any("cycle in the question graph" in p and "Q-a" in p and "Q-b" in p for p in probs), probs


def test_cause_without_concrete_knob(tmp_path):
    files = base_files()
    files["causes/stability/S-alpha.yaml"] = cause(
        "S-alpha", fix='[{knob: "Tune it better", range: "some", expect: "better"}]'
    )
    files["causes/stability/S-beta.yaml"] = cause("S-beta", "{Q-start: flat, Q-flat-detail: 'yes'}", fix="[]")
    probs = problems_for(tmp_path, files)
    assert any("S-alpha" in p and "not a concrete setting" in p for p in probs), probs
    assert any("S-beta" in p and "at least one concrete knob" in p for p in probs), probs


def test_detector_needs_both_fixtures(tmp_path):
    files = base_files()
    files["detectors/det-flat.yaml"] = """
    id: det-flat
    kind: detector
    title: Loss flat from the start
    answers: {symptom: Q-flat-detail, answer: "yes"}
    metric: [loss]
    check: flat
    """
    files["detectors/fixtures/det-flat/fire.jsonl"] = '{"step": 1, "loss": 2.3}\n'
    probs = problems_for(tmp_path, files)
    assert any("det-flat" in p and "quiet" in p and "missing fixture" in p for p in probs), probs
    assert not any("det-flat" in p and "fire.*" in p for p in probs), probs


def test_regex_that_does_not_compile(tmp_path):
    files = base_files()
    files["causes/stability/S-alpha.yaml"] = cause("S-alpha", errors="['Target (\\\\d+ is out of bounds']")
    probs = problems_for(tmp_path, files)
    assert any("S-alpha" in p and "does not compile" in p for p in probs), probs


def test_file_name_must_match_id(tmp_path):
    files = base_files()
    files["causes/stability/S-alpha.yaml"] = cause("S-alphaa")
    probs = problems_for(tmp_path, files)
    assert any("does not match the ID" in p for p in probs), probs


def test_cli_check_fails_with_file_and_line_for_user_folder(tmp_path):
    """A user's folder layered with --kb is validated like the built-in one."""
    root = write_kb(tmp_path / "mine", {
        "causes/stability/S-mine.yaml": cause("S-mine", links="[S-nowhere]"),
    })
    result = CliRunner().invoke(app, ["--kb", str(root), "kb", "check"])
    assert result.exit_code == 2
    assert "S-mine.yaml:" in result.output and "unknown ID 'S-nowhere'" in result.output


def test_user_duplicate_of_builtin_names_both_files(tmp_path):
    root = write_kb(tmp_path / "mine", {"causes/convergence/O9.yaml": cause("O9")})
    result = CliRunner().invoke(app, ["--kb", str(root), "kb", "check"])
    assert result.exit_code == 2
    line = next(l for l in result.output.splitlines() if "duplicate ID" in l)
    assert str(root.name) in line and "convergence/O9.yaml" in line.split("also defined in")[1]


@pytest.mark.parametrize("bad", ["- just\n- a list\n", "", "id: [\n"])
def test_non_mapping_or_empty_files(tmp_path, bad):
    files = base_files()
    files["causes/stability/S-gamma.yaml"] = bad
    probs = problems_for(tmp_path, files)
    assert any("S-gamma.yaml" in p for p in probs), probs


def test_config_rules_are_checked(tmp_path):
    files = base_files()
    files["symptoms/core/Q-flat-detail.yaml"] = FLAT_Q + textwrap.dedent("""
        config:
          - {keys: [max_steps], op: ">", value: ten, answer: "yes"}
          - {keys: [], op: "~", answer: maybe, colour: red}
        """)
    probs = problems_for(tmp_path, files)
    text = "\n".join(probs)
    assert "Q-flat-detail.yaml" in text
    assert "config[0].value must be a number" in text
    assert "config[1].keys must be a non-empty list" in text
    assert "config[1].op must be one of" in text
    assert "config[1].answer 'maybe' is not one of the answers" in text
    assert "config[1] has unknown fields: colour" in text
