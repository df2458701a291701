"""The question flow for real reporters: context first, gates, "not applicable", free
text, the stopping rule, vague answers, refinements, the framework, answers files, ask --log."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.engine import session as S
from triage.engine.diagnosis import UNKNOWN, Diagnosis
from triage.engine.planner import CONTEXT, NOT_APPLICABLE, Planner

runner = CliRunner()


def planner(kb, model, **answers) -> Planner:
    p = Planner(Diagnosis(kb, model))
    for q, v in answers.items():
        p.record(q.replace("_", "-"), v)
    return p


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


class Replies(S.ScriptedPrompter):
    """Answers by question ID, "don't know" otherwise; records what was asked and what was offered."""

    def __init__(self, answers: dict[str, str]):
        super().__init__([])
        self.answers = dict(answers)
        self.offered: dict[str, list[str]] = {}

    def ask(self, question, message, options):
        self.asked.append(question)
        self.offered[question] = [o.value for o in options]
        return self.answers.get(question, UNKNOWN)

    def finish(self, top, options):
        return S.DONE


def test_the_domain_comes_right_after_what_you_see(kb, model):
    p = planner(kb, model)
    assert p.next_question() == "Q-start"
    p.record("Q-start", "no-learning")
    assert p.next_question() == "Q-domain"


def test_every_prompt_offers_dont_know_not_applicable_and_free_text(kb, console):
    prompter = Replies({"Q-start": "oom"})
    S.Session(kb, prompter, console).run()
    values = prompter.offered["Q-start"]
    assert values[len(kb["Q-start"].get("answers"))] == UNKNOWN  # right after the answers (the menus rely on it)
    assert S.NOT_APPLICABLE_CHOICE in values and S.TEXT in values


def test_dont_know_on_a_gate_closes_its_branch(kb, model):
    p = planner(kb, model, Q_start=UNKNOWN, Q_domain="llm")
    seen = []
    while (q := p.next_question()) is not None and len(seen) < 40:
        seen.append(q)
        p.record(q, UNKNOWN)
    assert "Q-error-kind" not in seen and "Q-oom-kind" not in seen and "Q-nan-when" not in seen


def test_a_gate_never_hides_the_decisive_question(kb, model):
    # the loop order is gated on "no learning"/"unstable"; a code-review finding makes it decisive
    p = planner(kb, model, Q_start="code-review", Q_domain="vision-cls", Q_code_finding="loop-order")
    assert "Q-opt-loop-order" in p.eligible()
    # without evidence for a cause it decides, the gate holds
    q = planner(kb, model, Q_start="oom", Q_domain="vision-cls")
    assert "Q-opt-loop-order" not in q.eligible()


def test_a_question_without_a_healthy_answer_stays_behind_its_gate(kb, model):
    p = planner(kb, model, Q_start="code-review", Q_domain="llm", Q_code_finding="padding")
    assert "Q-error-kind" not in p.eligible() and "Q-nan-when" not in p.eligible()


def test_not_applicable_counts_as_the_healthy_default_or_dont_know(kb, model):
    p = planner(kb, model, Q_start="nan")
    assert p.record("Q-ops-grad-clip", NOT_APPLICABLE).value == model.defaults["Q-ops-grad-clip"]
    assert p.record("Q-nan-when", NOT_APPLICABLE).value == UNKNOWN  # no healthy answer to fall back on


def test_an_error_line_typed_at_a_prompt_is_matched_like_scan(kb, model):
    p = planner(kb, model)
    found = p.add_text("RuntimeError: CUDA error: device-side assert triggered")
    assert found and p.diag.answers["Q-start"].value == "error"
    assert any(t.cause == found[0][0] for t in p.diag.text)
    described = planner(kb, model).add_text("my GRPO reward stays at zero for every completion")
    assert described and all(c for c, _ in described)


def test_free_text_in_a_session_and_in_an_answers_file(kb, console, tmp_path, model):
    class Typist(Replies):
        def ask(self, question, message, options):
            if question == "Q-error-kind":
                self.asked.append(question)
                return S.text_reply("RuntimeError: CUDA error: device-side assert triggered")
            return super().ask(question, message, options)

    prompter = Typist({"Q-start": "error", "Q-domain": "vision-cls"})
    sess = S.Session(kb, prompter, console)
    out = sess.run()
    assert prompter.asked.count("Q-error-kind") == 1  # typed once, not asked again
    assert "matched your text" in console.text()
    assert any(t.source == "you" or t.source == "replay" for t in sess.diag.text)
    path = write(tmp_path, "a.yaml", "Q-domain: vision-cls\ntext: 'RuntimeError: CUDA error: device-side assert triggered'\n")
    replay = S.load_answers_file(path, model)
    out2 = S.Session(kb, S.AnswersPrompter(replay), console).run()
    assert out2.top[0].id == out.top[0].id


def test_the_stop_rule_needs_specific_evidence(kb, model):
    class C:
        def __init__(self, cid, p):
            self.id, self.probability = cid, p

    p = planner(kb, model, Q_start="rl-signal", Q_domain="rlhf")
    lead = C("S-grpo-reward-zero", 0.9)
    assert not p.done([lead, C("R1", 0.05)])  # a margin from the opening answers alone is not enough
    p.record("Q-grpo-reward", "zero")
    p.record("Q-grpo-reward-std", "zero")
    assert p.specific("S-grpo-reward-zero")


def test_a_vague_answer_counts_less(model):
    full = math.log(model.likelihood("V1", "Q-metric-shape", "below-expected"))
    assert model.answer_strength("Q-metric-shape", "below-expected") < 1
    assert abs(model.log_evidence("V1", "Q-metric-shape", "below-expected")) < abs(full)
    assert model.answer_strength("Q-metric-shape", "zero") == 1


def test_an_answer_that_rules_out_a_cause_rules_out_its_refinements(kb, model):
    # O7 refines S-lr-too-low and says nothing about the LR range; "inside the usual range" rules
    # S-lr-too-low out, so it weighs against O7 as much
    assert "S-lr-too-low" in model.refines["O7"]
    capped = model.refined_likelihood("O7", "Q-stab-lr-range", "typical", model.likelihood("O7", "Q-stab-lr-range", "typical"))
    assert capped == pytest.approx(model.likelihood("S-lr-too-low", "Q-stab-lr-range", "typical"))
    d = Diagnosis(kb, model)
    d.answer("Q-start", "no-learning")
    before = {c.id: c.log_score for c in d.ranking(explain=False)}
    d.answer("Q-stab-lr-range", "typical")
    after = {c.id: c.log_score for c in d.ranking(explain=False)}
    assert after["O7"] - before["O7"] < -1.0


def test_a_broader_cause_yields_to_a_refinement_the_evidence_singles_out(kb, model):
    d = Diagnosis(kb, model)
    for q, v in {"Q-start": "no-learning", "Q-loss-shape": "plateau", "Q-precision": "bf16", "Q-ops-param-dtype": "half"}.items():
        d.answer(q, v)
    ranked = [c.id for c in d.ranking(limit=10, explain=False)]
    assert ranked.index("S-bf16-accumulation") < ranked.index("S-plateau")


def test_the_training_mode_sets_causes_aside(kb, model):
    p = planner(kb, model, Q_start="no-learning", Q_domain="llm", Q_finetune="scratch")
    top = {c.id: c.probability for c in p.diag.ranking(limit=80, explain=False)}
    assert top.get("O21", 0.0) < 0.01 and top.get("PB-finetune-schedule", 0.0) < 0.01


def test_naming_the_framework_sets_its_context_and_defaults(kb, model):
    p = planner(kb, model, Q_start="nan", Q_domain="llm", Q_framework="hf-trainer")
    assert p.diag.context.framework is not None and p.diag.context.framework.id == "hf_trainer"
    clip = p.diag.answers.get("Q-ops-grad-clip")
    assert clip is not None and clip.value == "on" and clip.source == "default"
    keras = planner(kb, model, Q_start="no-learning", Q_domain="vision-cls", Q_framework="keras")
    assert keras.diag.inapplicable("O4") and keras.diag.inapplicable("O12")
    tf = planner(kb, model, Q_start="no-learning", Q_domain="vision-cls", Q_framework="tensorflow")
    assert tf.diag.inapplicable("O12") and not tf.diag.inapplicable("O7")


def test_taking_back_the_framework_takes_back_its_context(kb, console):
    order = ["Q-start", "Q-domain", "Q-framework", "Q-gradnorm", "Q-gradnorm"]
    prompter = S.ScriptedPrompter(["nan", "llm", "hf-trainer", S.BACK, S.QUIT])
    sess = S.Session(kb, prompter, console)
    sess.planner.next_question = lambda: order[len(prompter.asked)]  # this test is about "back", not the order
    sess.run()
    assert sess.diag.context.framework is None
    assert "Q-ops-grad-clip" not in sess.diag.answers


def test_context_questions_are_the_planners_first_three(kb, model):
    assert CONTEXT[:2] == ("Q-start", "Q-domain") and set(CONTEXT) <= set(model.questions)


def test_an_answers_file_is_all_known_up_front(kb, console, tmp_path, model):
    path = write(tmp_path, "a.yaml", "Q-start: no-learning\nQ-domain: llm\nQ-finetune: peft\nQ-opt-lora: none-trainable\n"
                                     "Q-ops-grad-clip: n/a\n")
    replay = S.load_answers_file(path, model)
    assert replay.answers["Q-ops-grad-clip"] == NOT_APPLICABLE
    prompter = S.AnswersPrompter(replay)
    sess = S.Session(kb, prompter, console)
    out = sess.run()
    assert not prompter.unused() and sess.diag.answers["Q-finetune"].value == "peft"
    assert out.top[0].id == "O21"


@pytest.mark.parametrize("text, word", [
    ("Q-start: nan\nQ-nope: yes\n", "Q-nope"),
    ("Q-start: nan\nQ-finetune: lora-ish\n", "lora-ish"),
    ("Q-start: nan\ntext: [1, 2]\n", "'text'"),
])
def test_an_answers_file_with_an_unknown_question_or_answer_exits_2_naming_it(tmp_path, text, word):
    path = write(tmp_path, "a.yaml", text)
    result = runner.invoke(app, ["ask", "--answers", path])
    assert result.exit_code == 2 and word in result.output


def test_questions_the_log_answers_by_what_it_does_not_show_are_not_asked(kb, tmp_path, console):
    rows = [f'{{"step": {i}, "loss": {2.5 - i * 0.001}, "grad_norm": {1.0 + 0.01 * (i % 7)}, '
            f'"learning_rate": {1e-4 * min(1.0, i / 30)}}}' for i in range(1, 300)]
    rows += [f'{{"step": {i}, "loss": NaN, "grad_norm": NaN, "learning_rate": 1e-4}}' for i in range(300, 320)]
    log = write(tmp_path, "run.jsonl", "\n".join(rows) + "\n")
    diag, notes = S.prepare(kb, logs=[log])
    quiet = {q: a for q, a in diag.answers.items() if a.source == "log" and "no detector flags" in a.evidence}
    assert quiet, notes
    for q, a in quiet.items():
        assert a.value == diag.model.defaults[q]
    prompter = Replies({})
    S.Session(kb, prompter, console, diagnosis=diag).run()
    assert not set(prompter.asked) & set(quiet)


def test_every_persona_file_fits_the_knowledge_base(model):
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_questions", Path(__file__).parents[2] / "bench" / "questions.py")
    bench = importlib.util.module_from_spec(spec)
    import sys

    sys.modules[spec.name] = bench  # dataclasses look their module up
    try:
        spec.loader.exec_module(bench)
    finally:
        sys.modules.pop(spec.name, None)
    personas = bench.load_personas(model)  # strict: an unknown question, answer or cause fails
    assert len(personas) >= 60 and sum(p.held_out for p in personas) == 20
    assert all(p.url.startswith("https://github.com/") for p in personas)
