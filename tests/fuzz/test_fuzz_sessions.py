"""Fuzzing what `triage ask` reads from files: `--resume` transcripts,
`--answers` replays and `--evidence` probe results. Mutated and hand-edited files must give
AskError or TranscriptError (one line, exit 2), or a usable diagnosis: never another exception."""

from __future__ import annotations

import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage import api
from triage.engine import session as S
from triage.engine import transcript

EXAMPLES = int(os.environ.get("TRIAGE_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
KB = api.load_kb()
QUESTIONS = sorted(n.id for n in KB.by_kind("symptom"))[:30]
CAUSES = sorted(n.id for n in KB.causes)[:30]

junk = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False), st.text(max_size=8),
                 st.sampled_from(["nan", "inf", "-1", "yes", "no", "unknown", "|", "a|b"]),
                 st.lists(st.text(max_size=4), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
question = st.one_of(st.sampled_from(QUESTIONS), junk)
answer = st.one_of(st.sampled_from(["yes", "no", "nan", "unknown", "error", "flat"]), junk)
answers_list = st.lists(st.one_of(
    st.fixed_dictionaries({"question": question, "answer": answer},
                          optional={"source": st.one_of(st.sampled_from(["you", "replay", "log", "probe"]), junk),
                                    "evidence": junk}),
    junk), max_size=6)
text_list = st.lists(st.one_of(st.fixed_dictionaries({"cause": st.one_of(st.sampled_from(CAUSES), junk),
                                                      "weight": st.one_of(st.floats(), st.integers(), junk)},
                                                     optional={"evidence": junk, "source": junk}), junk), max_size=4)
transcripts = st.fixed_dictionaries(
    {"answers": st.one_of(answers_list, junk)},
    optional={"text": st.one_of(text_list, junk), "excluded": st.one_of(st.lists(st.sampled_from(CAUSES) | junk), junk),
              "context": st.one_of(st.fixed_dictionaries({}, optional={"framework": junk, "because": junk,
                                                                        "excluded_domains": junk}), junk),
              "format": st.just(transcript.FORMAT), "status": junk})


def _write(tmp_path_factory, name: str, text: str):
    p = tmp_path_factory.mktemp("s") / name
    p.write_text(text, errors="replace")
    return p


@FUZZ
@given(transcripts, st.integers(0, 10**6), st.booleans())
def test_resume(tmp_path_factory, doc, cut, truncate):
    text = json.dumps(doc, allow_nan=True)
    if truncate:
        text = text[: cut % (len(text) + 1)]
    p = _write(tmp_path_factory, "session.json", text)
    try:
        diag, _ = S.prepare(KB, resume=str(p))
    except S.AskError as exc:
        assert "\n" not in str(exc)
        return
    diag.ranking()  # a resumed diagnosis ranks without surprises
    for t in diag.text:
        assert 0 < t.weight < float("inf")


@FUZZ
@given(st.one_of(st.dictionaries(st.one_of(st.sampled_from(QUESTIONS + ["not_it", "domain", "answers"]), st.text(max_size=5)),
                                 st.one_of(answer, st.lists(st.sampled_from(CAUSES) | junk, max_size=3)), max_size=6),
                 junk, transcripts),
       st.sampled_from(["answers.yaml", "answers.json"]))
def test_answers(tmp_path_factory, doc, name):
    import yaml

    text = json.dumps(doc, allow_nan=True) if name.endswith(".json") else yaml.safe_dump(doc, allow_unicode=True)
    p = _write(tmp_path_factory, name, text)
    model = S.prepare(KB)[0].model
    try:
        S.load_answers_file(str(p), model)
    except S.AskError as exc:
        assert "\n" not in str(exc)


@FUZZ
@given(st.fixed_dictionaries({}, optional={"probe": junk | st.just("grad_flow"), "version": junk,
                                           "status": st.sampled_from(["pass", "fail", "inconclusive", "error"]) | junk,
                                           "answers": st.dictionaries(st.sampled_from(QUESTIONS) | st.text(max_size=4),
                                                                      answer, max_size=4) | junk,
                                           "measurements": junk, "message": junk}),
       st.integers(0, 10**6), st.booleans())
def test_evidence(tmp_path_factory, doc, cut, truncate):
    text = json.dumps(doc, allow_nan=True)
    if truncate:
        text = text[: cut % (len(text) + 1)]
    p = _write(tmp_path_factory, "probe.json", text)
    try:
        S.prepare(KB, evidence=[str(p)])
    except S.AskError as exc:
        assert "\n" not in str(exc)
    from triage.probes import ProbeResultError, load_result

    try:
        load_result(p)
    except ProbeResultError as exc:
        assert "\n" not in str(exc)


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_as_each_file(tmp_path_factory, data):
    d = tmp_path_factory.mktemp("b")
    for name in ("session.json", "answers.yaml", "probe.json"):
        (d / name).write_bytes(data)
    model = S.prepare(KB)[0].model
    for call in (lambda: S.prepare(KB, resume=str(d / "session.json")),
                 lambda: S.load_answers_file(str(d / "answers.yaml"), model),
                 lambda: S.prepare(KB, evidence=[str(d / "probe.json")])):
        try:
            call()
        except S.AskError as exc:
            assert "\n" not in str(exc)
