"""The diagnosis engine on a small hand-made knowledge base, plus properties on the shipped one."""

from __future__ import annotations

import textwrap

import pytest

from triage.engine.diagnosis import UNKNOWN, Diagnosis, Model
from triage.kb.base import KnowledgeBase

FILES = {
    "symptoms/Q-start.yaml": """
        id: Q-start
        kind: symptom
        question: What do you see?
        help: Pick one.
        answers:
          - {value: nan, label: NaN}
          - {value: flat, label: Flat loss}
          - {value: oom, label: Out of memory}
    """,
    "symptoms/Q-domain.yaml": """
        id: Q-domain
        kind: symptom
        question: What kind of training?
        help: The domain.
        when: {Q-start: '*'}
        answers:
          - {value: llm, label: LLM}
          - {value: vision-cls, label: Vision}
    """,
    "symptoms/Q-precision.yaml": """
        id: Q-precision
        kind: symptom
        question: Which precision?
        help: Look at the flags.
        when: {Q-start: nan}
        default: fp32
        answers:
          - {value: fp32, label: fp32}
          - {value: fp16, label: fp16}
    """,
    "symptoms/Q-gradnorm.yaml": """
        id: Q-gradnorm
        kind: symptom
        question: Gradient norm?
        help: Look at grad_norm.
        when: {Q-start: [nan, flat]}
        default: normal
        answers:
          - {value: normal, label: Normal}
          - {value: growing, label: Growing}
          - {value: zero, label: Zero, rules_out: [C-fp16]}
    """,
    "symptoms/Q-weights.yaml": """
        id: Q-weights
        kind: symptom
        question: Do weights change?
        help: Compare a parameter before and after step().
        when: {Q-start: flat}
        answers:
          - {value: "yes", label: "Yes"}
          - {value: "no", label: "No", favours: [C-optimizer]}
    """,
}


def cause(cid: str, prior: str, signs: str, domains: str = "[any]") -> str:
    return f"""
        id: {cid}
        kind: cause
        title: Cause {cid}
        family: stability
        domains: {domains}
        prior: {prior}
        symptoms: [something]
        why: Because.
        fix: [{{knob: "lr = 1e-4", range: "1e-5..1e-3", expect: "it works"}}]
        verify: Try it.
        signs: {signs}
    """


CAUSES = {
    "causes/C-fp16.yaml": cause("C-fp16", "common", "{Q-start: nan, Q-precision: fp16}"),
    "causes/C-explode.yaml": cause("C-explode", "uncommon", "{Q-start: nan, Q-gradnorm: growing}"),
    "causes/C-optimizer.yaml": cause("C-optimizer", "uncommon", "{Q-start: flat, Q-gradnorm: normal}"),
    "causes/C-lr-low.yaml": cause("C-lr-low", "common", "{Q-start: flat, Q-weights: 'yes'}"),
    "causes/C-batch.yaml": cause("C-batch", "common", "{Q-start: oom}", domains="[vision-cls]"),
    "causes/C-logits.yaml": cause("C-logits", "rare", "{Q-start: oom}", domains="[llm]"),
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory) -> KnowledgeBase:
    root = tmp_path_factory.mktemp("kb")
    for rel, text in {**FILES, **CAUSES}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    kb = KnowledgeBase.load([str(root)], use_cache=False, builtin=False)
    assert not kb.problems
    return kb


def ids(diag: Diagnosis) -> list[str]:
    return [c.id for c in diag.ranking()]


def test_without_answers_the_ranking_follows_the_priors(kb):
    d = Diagnosis(kb)
    probs = {c.id: c.probability for c in d.ranking()}
    assert probs["C-fp16"] > probs["C-explode"] > probs["C-logits"]
    assert abs(sum(probs.values()) - 1) < 1e-9


def test_the_first_question_is_the_start_question(kb):
    d = Diagnosis(kb)
    assert d.eligible() == ["Q-start"]
    assert d.next_question() == "Q-start"


def test_an_answer_narrows_the_differential(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "nan")
    top2 = ids(d)[:2]
    assert set(top2) == {"C-fp16", "C-explode"}
    d.answer("Q-gradnorm", "growing")
    assert ids(d)[0] == "C-explode"


def test_dont_know_changes_nothing(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "nan")
    before = [(c.id, round(c.probability, 12)) for c in d.ranking()]
    d.answer("Q-precision", UNKNOWN)
    assert [(c.id, round(c.probability, 12)) for c in d.ranking()] == before
    assert "Q-precision" not in d.eligible()  # asked once is enough


def test_gates_open_only_on_their_answers_and_on_dont_know(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "oom")
    assert "Q-precision" not in d.eligible() and "Q-gradnorm" not in d.eligible()
    assert "Q-domain" in d.eligible()
    d2 = Diagnosis(kb)
    d2.answer("Q-start", UNKNOWN)  # don't know keeps every branch open
    assert {"Q-precision", "Q-gradnorm", "Q-weights", "Q-domain"} <= set(d2.eligible())


def test_questions_answered_by_evidence_are_never_asked(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "nan", source="log", evidence="loss is NaN from step 1,204")
    d.answer("Q-precision", "fp16", source="probe")
    asked = []
    while (q := d.next_question()) is not None:
        asked.append(q)
        d.answer(q, UNKNOWN)
    assert "Q-start" not in asked and "Q-precision" not in asked
    assert len(asked) == len(set(asked))


def test_next_question_prefers_the_one_that_separates(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "nan")
    d.answer("Q-domain", "llm")
    # both precision and grad norm separate C-fp16 from C-explode; neither is useless
    assert d.next_question() in ("Q-precision", "Q-gradnorm")


def test_domain_answers_narrow_by_the_causes_domains(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "oom")
    d.answer("Q-domain", "llm")
    assert ids(d)[0] == "C-logits"  # the rare cause wins on its domain
    d.answer("Q-domain", "vision-cls")  # answering again replaces
    assert ids(d)[0] == "C-batch"


def test_favours_and_rules_out(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "flat")
    d.answer("Q-weights", "no")
    assert ids(d)[0] == "C-optimizer"
    d2 = Diagnosis(kb)
    d2.answer("Q-start", "nan")
    before = {c.id: c.probability for c in d2.ranking()}["C-fp16"]
    d2.answer("Q-gradnorm", "zero")
    after = {c.id: c.probability for c in d2.ranking()}["C-fp16"]
    assert d2.model.likelihood("C-fp16", "Q-gradnorm", "zero") < 0.05
    assert after < before


def test_undo_takes_back_only_what_the_person_said(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "nan", source="log", evidence="NaN at step 3")
    d.answer("Q-precision", "fp16", source="you")
    assert d.undo().question == "Q-precision"
    assert d.undo() is None  # the log's answer stays
    assert list(d.answers) == ["Q-start"]


def test_exclude_removes_the_cause(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "nan")
    top = ids(d)[0]
    d.exclude(top)
    assert top not in ids(d)


def test_explain_lists_evidence_for_and_against(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "nan")
    d.answer("Q-precision", "fp32", source="probe", evidence="probe precision_compare: fp32")
    support, against = d.explain("C-fp16")
    assert any("precision_compare" in line for line in against)
    support, _ = d.explain("C-explode")
    assert support == []  # Q-start is a category, not evidence


def test_invalid_answers_are_refused(kb):
    d = Diagnosis(kb)
    with pytest.raises(ValueError, match="nan, flat, oom"):
        d.answer("Q-start", "boom")
    with pytest.raises(KeyError):
        d.answer("Q-nope", "yes")


def test_to_dict_and_load_dict_round_trip(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "nan", source="log", evidence="NaN at step 3")
    d.answer("Q-gradnorm", "growing")
    d.add_text("C-explode", 5.0, "grad norm inf", "text")
    d.exclude("C-fp16")
    d2 = Diagnosis(kb)
    d2.load_dict(d.to_dict())
    assert [(c.id, round(c.probability, 12)) for c in d2.ranking()] == [(c.id, round(c.probability, 12)) for c in d.ranking()]
    assert d2.answers["Q-start"].source == "log" and d2.excluded == {"C-fp16"}


def test_unanswered_lists_questions_still_worth_asking(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "nan")
    out = d.unanswered()
    assert out and "Q-start" not in out and set(out) <= {"Q-precision", "Q-gradnorm", "Q-domain"}


# -- the shipped knowledge -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def shipped():
    kb = KnowledgeBase.load()
    return kb, Model(kb)


def test_every_simulated_session_ends_without_repeating_a_question(shipped):
    """Answer "don't know" to everything: the engine must stop on its own and never repeat."""
    kb, model = shipped
    d = Diagnosis(kb, model)
    asked = []
    for _ in range(len(model.questions) + 1):
        q = d.next_question()
        if q is None:
            break
        asked.append(q)
        d.answer(q, UNKNOWN)
    else:
        pytest.fail("the engine never stopped asking")
    assert len(asked) == len(set(asked))


@pytest.mark.parametrize("start", ["nan", "no-learning", "oom", "rl-signal", "hang", "error"])
def test_truthful_answers_rank_some_cause_of_that_branch_first(shipped, start):
    kb, model = shipped
    d = Diagnosis(kb, model)
    d.answer("Q-start", start)
    top = d.ranking(limit=1)[0]
    assert start in model.signs[top.id].get("Q-start", set())


def test_weighted_signs_share_the_sign_mass_by_weight(tmp_path):
    """`Q-start: {nan: 4, oom: 1}`: the cause expects a NaN four times as often as an OOM; a list
    shares the mass equally; a weight that is no positive number is a knowledge error."""
    root = tmp_path / "kb"
    files = {**FILES, "causes/C-w.yaml": cause("C-w", "common", "{Q-start: {nan: 4, oom: 1}}"),
             "causes/C-l.yaml": cause("C-l", "common", "{Q-start: [nan, oom]}")}
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    kb = KnowledgeBase.load([str(root)], use_cache=False, builtin=False)
    assert not kb.problems
    m = Model(kb)
    assert abs(m.likelihood("C-w", "Q-start", "nan") / m.likelihood("C-w", "Q-start", "oom") - 4) < 1e-9
    assert abs(m.likelihood("C-l", "Q-start", "nan") - m.likelihood("C-l", "Q-start", "oom")) < 1e-12
    assert kb.signs(kb["C-w"])["Q-start"] == {"nan", "oom"}
    (root / "causes/C-w.yaml").write_text(textwrap.dedent(cause("C-w", "common", "{Q-start: {nan: 4, oom: -1}}")))
    bad = KnowledgeBase.load([str(root)], use_cache=False, builtin=False)
    from triage.kb.validate import check

    assert any("weights must be positive" in str(p) for p in check(bad, graph=False))


def test_a_tie_goes_to_the_broader_cause_over_its_refinement(tmp_path):
    """A refinement (`aliases`) that no answer singles out ties with the cause it refines: every run it explains
    the broader cause explains too, so the broader one ranks first, whatever the IDs' order."""
    root = tmp_path / "kb"
    files = {**FILES,
             "causes/C-a-refined.yaml": cause("C-a-refined", "common", "{Q-start: nan}\n        aliases: [C-z-broad]"),
             "causes/C-z-broad.yaml": cause("C-z-broad", "common", "{Q-start: nan}")}
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    kb = KnowledgeBase.load([str(root)], use_cache=False, builtin=False)
    assert not kb.problems
    d = Diagnosis(kb)
    d.answer("Q-start", "nan")
    order = ids(d)
    assert order.index("C-z-broad") < order.index("C-a-refined")
