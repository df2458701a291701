"""Every check's parameters are a typed dataclass: unknown keys, wrong types and impossible
choices are problems with the key (and, through `triage kb check`, the file and line)."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from triage.detect import detector_params, detectors, run_detector
from triage.detect.checks import CHECKS, PARAMS, ConstantParams, NearParams, ThresholdParams
from triage.detect.params import ParamProblem, Params, parse
from triage.kb.base import KnowledgeBase
from triage.kb.validate import Problem, check

KB = KnowledgeBase.load()


def test_every_check_declares_a_params_dataclass():
    assert set(PARAMS) == set(CHECKS)
    for name, cls in PARAMS.items():
        assert issubclass(cls, Params) and dataclasses.is_dataclass(cls), name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(cls(**{f.name: 1.0 for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING}), "x", 1)
        assert CHECKS[name].params is cls


@pytest.mark.parametrize("node", detectors(KB), ids=lambda n: n.id)
def test_every_shipped_detector_has_valid_params(node):
    params, problems = detector_params(node)
    assert problems == [] and params is not None


def test_misspelled_key_is_named_with_a_suggestion():
    params, problems = parse(ConstantParams, {"value": 0.0, "min_cuont": 2})
    assert params is None
    assert problems == [ParamProblem("min_cuont", problems[0].message)]
    assert "did you mean `min_count`" in problems[0].message


def test_wrong_types_are_problems_not_silent_defaults():
    _, problems = parse(ThresholdParams, {"min_count": 2.5, "value": "ten", "op": "=>", "window": "middle"})
    assert sorted(p.key for p in problems) == ["min_count", "op", "value", "window"]
    by_key = {p.key: p.message for p in problems}
    assert "whole number" in by_key["min_count"]
    assert "a number" in by_key["value"]
    assert "one of" in by_key["op"] and "'=>'" in by_key["op"]


def test_values_are_converted_to_the_field_type():
    params, problems = parse(ThresholdParams, {"value": 10, "op": "<"})
    assert problems == [] and params.value == 10.0 and isinstance(params.value, float)
    params, _ = parse(NearParams, {"target": 0.5})
    assert params.target == 0.5 and params.tol == 0.02  # the declared default


def test_cross_field_rule():
    _, problems = parse(NearParams, {"tol": 0.1})
    assert [p.key for p in problems] == ["target"]
    _, problems = parse(NearParams, {"target": 0.5, "target_from": "ln_classes"})
    assert [p.key for p in problems] == ["target"]


def test_names_accept_one_name_or_a_list():
    from triage.detect.checks import RisingVsFallingParams

    assert parse(RisingVsFallingParams, {"against": "loss"})[0].against == ("loss",)
    assert parse(RisingVsFallingParams, {"against": ["loss", "train_loss_avg"]})[0].against == ("loss", "train_loss_avg")
    assert parse(RisingVsFallingParams, {"against": [1, 2]})[1][0].key == "against"


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


QUESTIONS = {
    "symptoms/Q-start.yaml": """
    id: Q-start
    kind: symptom
    question: What do you see?
    help: Pick one.
    answers:
      - {value: crash, label: It crashes}
      - {value: no-learning, label: Loss is flat}
    """,
    "symptoms/Q-grad.yaml": """
    id: Q-grad
    kind: symptom
    question: Gradient norm?
    help: Look.
    when: {Q-start: no-learning}
    answers:
      - {value: zero, label: Zero, favours: [S-alpha]}
      - {value: normal, label: Normal}
    """,
    "causes/S-alpha.yaml": """
    id: S-alpha
    kind: cause
    title: Alpha
    family: stability
    domains: [any]
    prior: common
    symptoms: [It breaks.]
    why: Because.
    fix: [{knob: "lr = 1e-4", range: "1e-5 to 1e-3", expect: "loss falls"}]
    verify: Again.
    signs: {Q-start: no-learning, Q-grad: zero}
    """,
    "detectors/fixtures/det-zero/fire.jsonl": '{"step": 1, "grad_norm": 0.0}\n',
    "detectors/fixtures/det-zero/quiet.jsonl": '{"step": 1, "grad_norm": 1.0}\n',
}


def _detector(params: str, extra: str = "") -> str:
    return (
        "id: det-zero\nkind: detector\ntitle: Zero\nanswers: {symptom: Q-grad, answer: zero}\n"
        "category: no-learning\nmetric: [grad_norm]\ncheck: constant\n" + params + extra
    )


def _problems(tmp_path: Path, detector: str) -> list[Problem]:
    root = _write(tmp_path / "kb", {**QUESTIONS, "detectors/det-zero.yaml": detector})
    kb = KnowledgeBase.load([str(root)], use_cache=False, builtin=False)
    return [p for p in check(kb, check_params=PARAMS) if p.severity == "error" and p.node == "det-zero"]


def test_kb_check_names_the_file_and_line_of_a_misspelled_param(tmp_path):
    text = _detector("params:\n  value: 0.0\n  min_cuont: 2\n")
    problems = _problems(tmp_path, text)
    path = str(tmp_path / "kb" / "detectors" / "det-zero.yaml")
    line = text.splitlines().index("  min_cuont: 2") + 1
    assert [(p.path, p.line) for p in problems] == [(path, line)]
    assert "unknown parameter `min_cuont`" in problems[0].message and "min_count" in problems[0].message


def test_kb_check_rejects_a_mistyped_value(tmp_path):
    text = _detector("params:\n  value: zero\n")
    problems = _problems(tmp_path, text)
    assert [p.line for p in problems] == [text.splitlines().index("  value: zero") + 1]
    assert "`value` must be a number" in problems[0].message


def test_gates_are_detector_fields(tmp_path):
    inside = _problems(tmp_path / "a", _detector("params:\n  value: 0.0\n  unless: [reward_std]\n"))
    assert len(inside) == 1 and "detector field, not a parameter" in inside[0].message
    assert _problems(tmp_path / "b", _detector("params:\n  value: 0.0\n", "unless: [reward_std]\n")) == []


def test_gates_decide_whether_a_detector_runs():
    from triage.ingest.run import Run, Series

    node = KB["det-gradnorm-zero"]
    run = Run("mem", "test")
    run.series["grad_norm"] = Series("grad_norm", "train", list(range(1, 11)), [0.0] * 10)
    assert run_detector(node, run) is not None
    run.series["reward_std"] = Series("reward_std", "train", list(range(1, 11)), [0.0] * 10)
    assert run_detector(node, run) is None  # GRPO's zero-advantage skip is the reward detectors' finding
