"""Questions to the answer, measured two ways.

1. Sign-based (circular, kept as a regression check): for every cause, a simulated person answers
   each question the engine asks from that cause's own `signs` (and its domain), "don't know"
   elsewhere. Counts the questions until the true cause is first, and whether it is first at the end.

2. Personas (not circular): bench/personas/*.yaml, each written from a public issue thread before
   any run: the reporter's facts and the thread's root cause. A scripted responder plays the
   reporter through the real `triage ask` loop (`Session`), answering only from those facts:
     - an explicit `answers:` map per persona (question ID -> value, or a list of values in order
       of preference: the first one the question offers is given), written by reading each
       question and the persona's facts;
     - a general fact matcher for the three context questions: Q-domain from `facts.domain`,
       Q-finetune from `facts.mode`, Q-framework from `facts.framework`;
     - the persona's `facts.error` line pasted as free text where the session asks for the error
       text (Q-error-kind) and offers free text;
     - "don't know" for everything else.
   Reported per part: tuned personas, and the `held_out: true` ones (chosen at random before any
   tuning; their sessions are not printed unless --show-held-out).

Targets: personas top-3 >= 85%, first >= 60%, median <= 8 questions; sign-based
>= 95% first; time to the first question <= 400 ms.

    python bench/questions.py [--verbose] [--only personas|signs] [--show-held-out]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from triage.engine.diagnosis import UNKNOWN, Diagnosis, Model
from triage.kb.base import KnowledgeBase
from triage.kb.schema import normalise_answer

PERSONA_DIR = Path(__file__).parent / "personas"
MAX_PERSONA_QUESTIONS = 60  # a session still asking after this many is stopped (and counted at 60)
CONTEXT_FACTS = {"Q-domain": "domain", "Q-finetune": "mode", "Q-framework": "framework"}
FRAMEWORK_VALUES = {"hf_trainer": "hf-trainer"}  # facts spell framework ids as frameworks.yaml does


# -- sign-based ------------------------------------------------------------------------------------
def truthful_answer(model: Model, cause_id: str, question: str) -> str:
    """The cause's own first-listed answer (its main presentation), else its domain."""
    raw = (model.kb[cause_id].get("signs") or {}).get(question)
    if raw is not None:
        first = normalise_answer(raw[0] if isinstance(raw, list) and raw else raw)
        if first in model.values[question]:
            return first
    named = model.signs.get(cause_id, {}).get(question)
    if named:
        values = [v for v in model.values[question] if v in named]
        if values:
            return values[0]
    for v in model.values[question]:
        if cause_id in model.favours.get((question, v), ()):
            return v
    return UNKNOWN


def _planner():
    """The session's question choice when this build has one (triage.engine.planner), else None."""
    try:
        from triage.engine import planner
    except ImportError:
        return None
    return planner


def simulate(kb: KnowledgeBase, model: Model, cause_id: str, max_questions: int) -> tuple[int | None, bool, list[str], str]:
    """(questions until first, first at the end, the questions asked with answers, the final leader)."""
    diag = Diagnosis(kb, model)
    planner = _planner()
    plan = planner.Planner(diag) if planner else None
    asked: list[str] = []
    first_at = None
    for n in range(max_questions + 1):
        top = diag.ranking(limit=1, explain=False)
        if first_at is None and top and top[0].id == cause_id and n > 0:
            first_at = n
        q = plan.next_question() if plan else diag.next_question()
        if q is None or n == max_questions:
            break
        value = truthful_answer(model, cause_id, q)
        if plan:
            plan.record(q, value, "replay")
        else:
            diag.answer(q, value, source="replay")
        asked.append(f"{q}={value}" if value != UNKNOWN else q)
    top = diag.ranking(limit=1, explain=False)
    final_first = bool(top) and top[0].id == cause_id
    if final_first and first_at is None:
        first_at = len(asked)
    return first_at, final_first, asked, (top[0].id if top else "")


def run_signs(kb: KnowledgeBase, model: Model, max_questions: int, verbose: bool) -> dict:
    counts: list[int] = []
    first_final = 0
    never: list[str] = []
    worst = (0, "")
    for cause in model.causes:
        first_at, final_first, asked, leader = simulate(kb, model, cause.id, max_questions)
        first_final += final_first
        if first_at is None:
            never.append(cause.id)
        else:
            counts.append(first_at)
            if first_at > worst[0]:
                worst = (first_at, cause.id)
        if verbose:
            status = "first" if final_first else f"NOT FIRST (leader {leader})"
            print(f"{cause.id:26} {status:34} after {first_at if first_at is not None else '-'}: {' '.join(asked)}")
    return {"n": len(model.causes), "first": first_final, "counts": counts, "never": never, "worst": worst}


# -- personas ----------------------------------------------------------------------------------------
class PersonaError(Exception):
    """A persona file that does not fit the knowledge base (unknown question, cause or answer)."""


@dataclass
class Persona:
    id: str
    url: str
    expected: list[str]
    held_out: bool
    fits: bool
    facts: dict
    answers: dict[str, list[str]] = field(default_factory=dict)


def load_personas(model: Model, lenient: bool = False, folder: Path = PERSONA_DIR) -> list[Persona]:
    """Read and check every persona file. `lenient` (for measuring an older build) drops answers to
    questions or values this knowledge base does not have, instead of failing."""
    causes = {c.id for c in model.causes}
    out = []
    for path in sorted(folder.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        pid = str(doc.get("id") or path.stem)
        expected = [str(c) for c in doc.get("expected") or []]
        fits = bool(doc.get("fits", True))
        for cid in expected:
            if cid not in causes:
                raise PersonaError(f"{path.name}: expected cause {cid!r} is not in the knowledge base")
        if fits and not expected:
            raise PersonaError(f"{path.name}: no expected cause (set fits: false with a note if none fits)")
        answers: dict[str, list[str]] = {}
        for q, raw in (doc.get("answers") or {}).items():
            values = [normalise_answer(v) for v in (raw if isinstance(raw, list) else [raw])]
            if q not in model.questions:
                if lenient:
                    continue
                raise PersonaError(f"{path.name}: unknown question {q!r}")
            bad = [v for v in values if v not in model.values[q]]
            if bad and not lenient:
                raise PersonaError(f"{path.name}: {q} has no answer {bad[0]!r}")
            values = [v for v in values if v in model.values[q]]
            if values:
                answers[q] = values
        out.append(Persona(pid, str(doc.get("url") or ""), expected, bool(doc.get("held_out")), fits,
                           dict(doc.get("facts") or {}), answers))
    return out


class PersonaResponder:
    """Plays one reporter through `Session`: answers only from the persona's facts (see the module
    docstring), "don't know" otherwise. Implements the session's Prompter protocol."""

    interactive = False

    def __init__(self, persona: Persona, session_module):
        self.p = persona
        self.S = session_module
        self.asked: list[str] = []
        self.replies: list[str] = []

    def _context(self, question: str, offered: list[str]) -> str | None:
        key = CONTEXT_FACTS.get(question)
        if key is None:
            return None
        fact = str(self.p.facts.get(key) or "").strip().lower()
        fact = FRAMEWORK_VALUES.get(fact, fact).replace("_", "-")
        return fact if fact in offered else None

    def ask(self, question: str, message: str, options) -> str:
        offered = [o.value for o in options if not o.control]
        controls = {o.value for o in options if o.control}
        if len(self.asked) >= MAX_PERSONA_QUESTIONS:
            return self.S.FINISH
        self.asked.append(question)
        text = getattr(self.S, "TEXT", None)
        error = str(self.p.facts.get("error") or "").strip()
        if question == "Q-error-kind" and error and text in controls and question not in self.p.answers:
            reply = self.S.text_reply(error)
        else:
            reply = self._context(question, offered)
            if reply is None:
                reply = next((v for v in self.p.answers.get(question, []) if v in offered), UNKNOWN)
        self.replies.append(f"{question}={reply}" if reply != UNKNOWN else question)
        return reply

    def finish(self, top, options) -> str:
        return self.S.DONE


@dataclass
class PersonaResult:
    persona: Persona
    top: list[str]
    questions: int
    transcript: list[str]

    @property
    def first(self) -> bool:
        return bool(self.top) and self.top[0] in self.persona.expected

    @property
    def top3(self) -> bool:
        return any(c in self.persona.expected for c in self.top[:3])


def play(kb: KnowledgeBase, persona: Persona, model: Model) -> PersonaResult:
    from triage.engine import session as S

    responder = PersonaResponder(persona, S)
    diag = Diagnosis(kb, model)
    out = S.Session(kb, responder, S.QuietDisplay(), diagnosis=diag).run()
    ranked = [c.id for c in diag.ranking(limit=3, explain=False)]
    top = [c.id for c in out.top][:3] or ranked
    return PersonaResult(persona, top, len(responder.asked), responder.replies)


def summarise(results: list[PersonaResult]) -> str:
    scored = [r for r in results if r.persona.fits]
    if not scored:
        return "no personas"
    n = len(scored)
    top3 = sum(r.top3 for r in scored)
    first = sum(r.first for r in scored)
    qs = [r.questions for r in scored]
    return (f"{n:3d} scored  top-3 {top3:2d} = {100 * top3 / n:5.1f}%  first {first:2d} = {100 * first / n:5.1f}%  "
            f"questions mean {statistics.mean(qs):5.2f} median {statistics.median(qs):4.1f} max {max(qs)}")


def run_personas(kb: KnowledgeBase, model: Model, lenient: bool, verbose: bool, show_held_out: bool) -> None:
    personas = load_personas(model, lenient=lenient)
    t0 = time.perf_counter()
    results = [play(kb, p, model) for p in personas]
    elapsed = time.perf_counter() - t0
    if verbose:
        for r in results:
            if r.persona.held_out and not show_held_out:
                continue
            mark = "FIRST" if r.first else ("top3 " if r.top3 else "MISS ")
            if not r.persona.fits:
                mark = "n/a  "
            print(f"{mark} {r.persona.id:34} want {'/'.join(r.persona.expected) or '-':28} got {' '.join(r.top):40} "
                  f"q={r.questions}: {' '.join(r.transcript)}")
    excluded = [r for r in results if not r.persona.fits]
    tuned = [r for r in results if not r.persona.held_out]
    held = [r for r in results if r.persona.held_out]
    print(f"personas                  {len(results)} ({len(excluded)} without a fitting cause, not scored)")
    print(f"  tuned                   {summarise(tuned)}")
    print(f"  held out                {summarise(held)}")
    print(f"  all                     {summarise(results)}")
    print(f"  simulation time         {elapsed:.1f} s")


def time_to_first_question(session: bool = True) -> float:
    """Wall time of a fresh process that loads the knowledge and picks the first question: through
    the session's planner (`session`), or through the bare engine (`Diagnosis.next_question`, the
    reference measured in the same run, so a loaded machine shows as a loaded reference)."""
    pick = ("from triage.engine import session as S; p=getattr(S,'Planner',None);"
            "q=(p(d).next_question() if p else d.next_question())") if session else "q=d.next_question()"
    code = (
        "from triage.kb.base import KnowledgeBase; from triage.engine.diagnosis import Diagnosis;"
        f"d=Diagnosis(KnowledgeBase.load()); {pick}"
    )
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-questions", type=int, default=60)
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument("--only", choices=["personas", "signs"])
    parser.add_argument("--show-held-out", action="store_true", help="also print the held-out personas' sessions")
    parser.add_argument("--lenient", action="store_true",
                        help="skip persona answers to questions this knowledge base lacks (to measure an older build)")
    args = parser.parse_args()

    kb = KnowledgeBase.load()
    model = Model(kb)
    if args.only != "signs":
        try:
            run_personas(kb, model, args.lenient, args.verbose, args.show_held_out)
        except PersonaError as exc:
            raise SystemExit(f"error: {exc}") from None
    if args.only != "personas":
        t0 = time.perf_counter()
        s = run_signs(kb, model, args.max_questions, args.verbose)
        elapsed = time.perf_counter() - t0
        n, counts = s["n"], s["counts"]
        print(f"sign-based: causes        {n}")
        print(f"  mean questions to first {statistics.mean(counts):.2f}" if counts else "  mean questions to first -")
        print(f"  median / worst          {statistics.median(counts) if counts else '-'} / {s['worst'][0]} ({s['worst'][1]})")
        print(f"  ranked first at the end {s['first']}/{n} = {100 * s['first'] / n:.1f}%")
        print(f"  never ranked first      {len(s['never'])}: {' '.join(s['never'][:30])}{' ...' if len(s['never']) > 30 else ''}")
        print(f"  simulation time         {elapsed:.1f} s")
    startup = min(time_to_first_question() for _ in range(5))
    reference = min(time_to_first_question(session=False) for _ in range(5))
    print(f"time to first question    {startup * 1000:.0f} ms (fresh process, best of 5, target <= 400 ms; "
          f"the bare engine in the same run: {reference * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
