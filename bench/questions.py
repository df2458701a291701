"""Questions to the answer: simulate, for every cause, a person who has exactly that cause.

The simulated person answers each question the engine asks truthfully from the cause's own
`signs` (and its domain), and says "don't know" wherever the cause says nothing. We count the
questions until the true cause is ranked first, and whether it is first when the engine runs
out of useful questions.

Targets (issue "Terminal Q&A"): mean <= 6 questions, every cause reachable, >= 95% ranked first
at the end, time to the first question <= 400 ms.

    python bench/questions.py [--verbose] [--max-questions 25]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from triage.engine.diagnosis import UNKNOWN, Diagnosis, Model
from triage.kb.base import KnowledgeBase
from triage.kb.schema import normalise_answer


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


def simulate(kb: KnowledgeBase, model: Model, cause_id: str, max_questions: int) -> tuple[int | None, bool, list[str], str]:
    """(questions until first, first at the end, the questions asked with answers, the final leader)."""
    diag = Diagnosis(kb, model)
    asked: list[str] = []
    first_at = None
    for n in range(max_questions + 1):
        top = diag.ranking(limit=1)
        if first_at is None and top and top[0].id == cause_id and n > 0:
            first_at = n
        q = diag.next_question()
        if q is None:
            break
        if n == max_questions:
            break
        value = truthful_answer(model, cause_id, q)
        diag.answer(q, value, source="replay")
        asked.append(f"{q}={value}" if value != UNKNOWN else q)
    top = diag.ranking(limit=1)
    final_first = bool(top) and top[0].id == cause_id
    if final_first and first_at is None:
        first_at = len(asked)
    return first_at, final_first, asked, (top[0].id if top else "")


def time_to_first_question() -> float:
    """Wall time of a fresh process that loads the knowledge and picks the first question."""
    code = (
        "import time; t=time.perf_counter();"
        "from triage.kb.base import KnowledgeBase; from triage.engine.diagnosis import Diagnosis;"
        "d=Diagnosis(KnowledgeBase.load()); q=d.next_question();"
        "print(time.perf_counter()-t)"
    )
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-questions", type=int, default=60)
    parser.add_argument("--verbose", "-v", action="store_true")
    args = parser.parse_args()

    kb = KnowledgeBase.load()
    model = Model(kb)
    counts: list[int] = []
    first_final = 0
    never: list[str] = []
    worst = (0, "")
    t0 = time.perf_counter()
    for cause in model.causes:
        first_at, final_first, asked, leader = simulate(kb, model, cause.id, args.max_questions)
        if final_first:
            first_final += 1
        if first_at is None:
            never.append(cause.id)
        else:
            counts.append(first_at)
            if first_at > worst[0]:
                worst = (first_at, cause.id)
        if args.verbose:
            status = "first" if final_first else f"NOT FIRST (leader {leader})"
            print(f"{cause.id:26} {status:34} after {first_at if first_at is not None else '-'}: {' '.join(asked)}")
    elapsed = time.perf_counter() - t0
    n = len(model.causes)
    startup = min(time_to_first_question() for _ in range(3))
    print(f"causes simulated          {n}")
    print(f"mean questions to first   {statistics.mean(counts):.2f}" if counts else "mean questions to first   -")
    print(f"median / worst            {statistics.median(counts) if counts else '-'} / {worst[0]} ({worst[1]})")
    print(f"ranked first at the end   {first_final}/{n} = {100 * first_final / n:.1f}%")
    print(f"never ranked first        {len(never)}: {' '.join(never[:30])}{' ...' if len(never) > 30 else ''}")
    print(f"time to first question    {startup * 1000:.0f} ms (fresh process, target <= 400 ms)")
    print(f"simulation time           {elapsed:.1f} s")


if __name__ == "__main__":
    main()
