"""CONTRIBUTING.md, followed recipe by recipe in a temporary knowledge folder (and, for the code
recipes, a reader or check registered for the length of the test), each shown working end to end
through the command line: `kb check`, `explain`, `scan`, `inspect` and `ask` with an answers file."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.cli import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
ENV = {"NO_COLOR": "1", "COLUMNS": "200"}

CAUSE = """\
id: MY-frob-overflow
kind: cause
title: The frobnicator buffer overflows and zeroes the gradients
family: ops
domains: [any]
prior: uncommon
symptoms:
  - The loss stops moving after the log says the frobnicator buffer overflowed.
why: >-
  The in-house frobnicator keeps a fixed buffer of gradient statistics. A batch with more entries
  than the buffer resets the gradients to zero instead of failing, so no step changes the weights.
fix:
  - knob: "frobnicator.buffer_size = 2 * max_batch_entries"
    range: "at least twice the largest batch"
    expect: "the overflow line is gone and the loss falls again"
verify: Print frobnicator.buffer_size next to the largest batch size and compare.
errors:
  - "frobnicator buffer overflow"
signs:
  Q-start: no-learning
  Q-my-frob: "yes"
"""

QUESTION = """\
id: Q-my-frob
kind: symptom
question: Does the log say the frobnicator buffer overflowed?
help: Search the training output for "frobnicator buffer overflow".
when: {Q-start: [no-learning]}
default: "no"
answers:
  - value: "yes"
    label: Yes, it overflowed
    weight: 0.02
  - value: "no"
    label: No such line
    weight: 0.98
"""


def cli(*args: str):
    result = runner.invoke(app, list(args), env=ENV)
    return result.exit_code, result.stdout, result.stderr


def folder(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "myknowledge"
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def test_the_recipes_are_all_there():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for heading in ("## Add a cause", "## Add a question", "## Add a detector", "## Add a reader"):
        assert heading in text


# -- a cause and the question that separates it ------------------------------------------------------------
@pytest.fixture
def cause_kb(tmp_path):
    return folder(tmp_path, {"causes/ops/MY-frob-overflow.yaml": CAUSE, "symptoms/ops/Q-my-frob.yaml": QUESTION})


def test_a_new_cause_passes_kb_check_and_explains_itself(cause_kb):
    code, _, err = cli("--kb", str(cause_kb), "kb", "check")
    assert code == 0, err
    code, out, _ = cli("--kb", str(cause_kb), "explain", "MY-frob-overflow")
    assert code == 0 and "frobnicator.buffer_size = 2 * max_batch_entries" in out


def test_a_new_cause_is_ranked_by_its_error_text(cause_kb, tmp_path):
    log = tmp_path / "crash.log"
    log.write_text("step 1 loss 2.3\nRuntimeError: frobnicator buffer overflow (4096 > 2048)\n", encoding="utf-8")
    code, out, _ = cli("--kb", str(cause_kb), "scan", "--json", str(log))
    assert code == 1 and json.loads(out)["causes"][0]["id"] == "MY-frob-overflow"
    code, out, _ = cli("scan", "--json", str(log))  # without the folder nobody knows it
    assert all(c["id"] != "MY-frob-overflow" for c in json.loads(out)["causes"])


def test_a_new_question_decides_an_ask_session(cause_kb, tmp_path):
    answers = tmp_path / "answers.yaml"
    answers.write_text('Q-start: no-learning\nQ-my-frob: "yes"\n', encoding="utf-8")
    saved = tmp_path / "session.json"
    code, out, err = cli("--kb", str(cause_kb), "ask", "--answers", str(answers), "--save", str(saved))
    assert code == 0, err
    doc = json.loads(saved.read_text(encoding="utf-8"))
    assert doc["causes"][0]["id"] == "MY-frob-overflow"
    assert "Q-my-frob" in [a["question"] for a in doc["answers"]]
    answers.write_text('Q-start: no-learning\nQ-my-frob: "no"\n', encoding="utf-8")  # and the other answer
    code, _, err = cli("--kb", str(cause_kb), "ask", "--answers", str(answers), "--save", str(saved))
    assert code == 0, err
    assert json.loads(saved.read_text(encoding="utf-8"))["causes"][0]["id"] != "MY-frob-overflow"


def test_kb_check_names_a_question_no_answer_reaches(tmp_path):
    broken = QUESTION.replace("when: {Q-start: [no-learning]}\n", "")
    kb = folder(tmp_path, {"causes/ops/MY-frob-overflow.yaml": CAUSE, "symptoms/ops/Q-my-frob.yaml": broken})
    code, _, err = cli("--kb", str(kb), "kb", "check")
    assert code == 2 and "Q-my-frob" in err and "when" in err


# -- a check and the detector that uses it ------------------------------------------------------------------
DETECTOR = """\
id: det-my-ends-above-start
kind: detector
title: Gradient norm ends far above where it started
answers: {symptom: Q-gradnorm, answer: growing}
category: unstable
metric: [grad_norm]
check: my_ends_above_start
params: {factor: 3.0}
"""


def _jsonl(path: Path, values) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"step": i + 1, "loss": 2.0, "grad_norm": v}) + "\n" for i, v in enumerate(values)),
                    encoding="utf-8")
    return path


@pytest.fixture
def new_check():
    """The check of the recipe: the last value at least `factor` times the first."""
    from triage.detect.checks import CHECKS, PARAMS, Hit, check, fmt, step_str
    from triage.detect.params import Params, params

    @params
    class MyEndsAboveStartParams(Params):
        factor: float = 2.0
        min_points: int = 5

    @check("my_ends_above_start", MyEndsAboveStartParams)
    def my_ends_above_start(c):
        p = c.params
        if len(c.values) < p.min_points or c.values[0] <= 0 or c.values[-1] < p.factor * c.values[0]:
            return None
        ratio = float(c.values[-1] / c.values[0])
        return Hit(f"{c.name} ends at {fmt(c.values[-1])}, {ratio:.1f}x its first value {fmt(c.values[0])} "
                   f"(steps {step_str(c.steps[0])}-{step_str(c.steps[-1])})", c.steps[0], c.steps[-1], numbers={"ratio": ratio})

    yield
    CHECKS.pop("my_ends_above_start", None)
    PARAMS.pop("my_ends_above_start", None)


def test_a_new_check_drives_a_new_detector(new_check, tmp_path):
    kb = folder(tmp_path, {"detectors/det-my-ends-above-start.yaml": DETECTOR})
    fire = _jsonl(kb / "detectors/fixtures/det-my-ends-above-start/fire.jsonl", [1.0, 1.2, 1.5, 2.0, 3.0, 4.0])
    quiet = _jsonl(kb / "detectors/fixtures/det-my-ends-above-start/quiet.jsonl", [1.0, 0.9, 1.1, 1.0, 1.05, 1.0])
    code, _, err = cli("--kb", str(kb), "kb", "check")
    assert code == 0, err
    code, out, _ = cli("--kb", str(kb), "scan", "--json", str(fire))
    mine = [f for f in json.loads(out)["findings"] if f["detector"] == "det-my-ends-above-start"]
    assert mine and mine[0]["summary"] == "grad_norm ends at 4, 4.0x its first value 1 (steps 1-6)"
    code, out, _ = cli("--kb", str(kb), "scan", "--json", str(quiet))
    assert all(f["detector"] != "det-my-ends-above-start" for f in json.loads(out)["findings"])


def test_kb_check_names_a_misspelled_parameter_of_the_new_check(new_check, tmp_path):
    kb = folder(tmp_path, {"detectors/det-my-ends-above-start.yaml": DETECTOR.replace("factor:", "factr:")})
    _jsonl(kb / "detectors/fixtures/det-my-ends-above-start/fire.jsonl", [1.0, 4.0])
    _jsonl(kb / "detectors/fixtures/det-my-ends-above-start/quiet.jsonl", [1.0, 1.0])
    code, _, err = cli("--kb", str(kb), "kb", "check")
    assert code == 2 and re.search(r"det-my-ends-above-start\.yaml:\d+: .*unknown parameter `factr`; did you mean `factor`", err), err


# -- a reader ---------------------------------------------------------------------------------------------
@pytest.fixture
def kv_reader():
    """The reader of the recipe: `@kv step=1 train_loss=2.0 grad=0.5` lines (a made-up format)."""
    from triage.ingest.builder import RunBuilder
    from triage.ingest.contract import Reader, register, unregister

    def sniff(src) -> float:
        return 1.0 if src.head().startswith(b"@kv ") else 0.0

    def read(src):
        b = RunBuilder(src.name, "kv")
        for line in src.text().split("\n"):
            if not line.strip():
                continue
            fields = dict(part.split("=", 1) for part in line.split()[1:] if "=" in part)
            if not line.startswith("@kv ") or "step" not in fields:
                b.skip("not a kv record")
                continue
            step = float(fields.pop("step"))
            for key, value in fields.items():
                b.add(key, float(value), step=step)
            b.end_row(bool(fields), step)
        return b.build()

    register(Reader("kv", "made-up `@kv key=value` lines (CONTRIBUTING.md)", sniff, read, priority=50))
    yield
    unregister("kv")


def test_a_new_reader_is_sniffed_inspected_and_scanned(kv_reader, tmp_path):
    log = tmp_path / "run.log"
    lines = [f"@kv step={i} train_loss={2.0 - 0.01 * i:.3f}" for i in range(1, 50)] + ["@kv step=50 train_loss=nan", "# a comment"]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = cli("inspect", "--json", str(log))
    assert code == 0, err
    run = json.loads(out)["runs"][0]
    assert run["format"] == "kv" and [m["name"] for m in run["metrics"]] == ["loss"]  # metrics.yaml: train_loss is loss
    assert run["rows"] == 50 and run["skipped"] == {"not a kv record": 1}
    code, out, _ = cli("scan", "--json", str(log))
    assert code == 1 and "det-loss-nan" in [f["detector"] for f in json.loads(out)["findings"]]


def test_the_reader_recipe_names_real_places():
    """The files and names the recipes point to exist."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for rel in re.findall(r"`((?:triage|knowledge|tests|scripts)/[\w./-]+?\.(?:py|md|yaml))`", textwrap.dedent(text)):
        assert (ROOT / rel).exists(), rel
