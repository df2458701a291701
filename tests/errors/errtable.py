"""The error-message table (messages.yaml): load it, run each message through `triage scan`, score it.

Each message is written to a file and scanned exactly as a user's pasted traceback would be
(`triage.api.scan`), so the score covers the reader, the error patterns and the ranking together.
Run as a script to print the scores:

    .venv/bin/python -m tests.errors.errtable            # the tuned part, with its misses
    .venv/bin/python -m tests.errors.errtable --held-out # adds the held-out part's score (never tune on it)
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import yaml

TABLE = Path(__file__).with_name("messages.yaml")


@dataclass
class Outcome:
    id: str
    expected: list[str]
    ranked: list[str]  # cause IDs, best first
    held_out: bool

    @property
    def top1(self) -> bool:
        return bool(self.ranked) and self.ranked[0] in self.expected

    @property
    def top3(self) -> bool:
        return any(c in self.expected for c in self.ranked[:3])


def load_table() -> list[dict]:
    return yaml.safe_load(TABLE.read_text(encoding="utf-8"))["messages"]


def rank_message(kb, message: str) -> list[str]:
    """The cause IDs `triage scan` ranks for a pasted message, best first ([] when it finds none)."""
    from triage import api

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pasted.txt"
        path.write_text(message, encoding="utf-8")
        try:
            doc = api.scan(str(path), kb=kb)
        except api.TriageError:
            return []
    return [c["id"] for c in doc["causes"]]


def run_table(kb=None, entries: list[dict] | None = None) -> list[Outcome]:
    from triage import api

    kb = kb or api.load_kb()
    out = []
    for e in entries if entries is not None else load_table():
        out.append(Outcome(e["id"], list(e["expected"]), rank_message(kb, e["message"]), bool(e.get("held_out"))))
    return out


def score(outcomes: list[Outcome]) -> tuple[float, float]:
    """(share with the resolution's cause first, share with it in the top 3)."""
    if not outcomes:
        return 0.0, 0.0
    n = len(outcomes)
    return sum(o.top1 for o in outcomes) / n, sum(o.top3 for o in outcomes) / n


def main(argv: list[str]) -> int:
    outcomes = run_table()
    tuned = [o for o in outcomes if not o.held_out]
    t1, t3 = score(tuned)
    print(f"tuned    n={len(tuned):3d}  first {t1:6.1%}  top-3 {t3:6.1%}")
    for o in tuned:
        if not o.top1:
            print(f"  {'miss' if not o.top3 else 'top3'} {o.id:40s} expected {','.join(o.expected):40s} got {','.join(o.ranked[:4])}")
    if "--held-out" in argv:
        held = [o for o in outcomes if o.held_out]
        h1, h3 = score(held)
        print(f"held-out n={len(held):3d}  first {h1:6.1%}  top-3 {h3:6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
