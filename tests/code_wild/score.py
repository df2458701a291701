"""Score triage's code reader on the real snippets of manifest.yaml (labelled from their threads).

Each snippet is read alone with `triage.ingest.code.facts([source])`. A labelled bug (an `answer` that
names it) is *found* when that answer is among the findings. A finding that is neither the labelled
answer nor one of the entry's `also` answers (other bugs the same code plainly shows) is a *wrong answer*
on a bug snippet and a *false finding* on a clean one. Run it as a script to print the table:

    PYTHONPATH=. python tests/code_wild/score.py
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from triage.ingest.code import facts

HERE = Path(__file__).resolve().parent


@dataclass
class Row:
    file: str
    answer: str | None  # the labelled answer; None: no answer fits; "none": clean code
    found: list[str]
    also: list[str] = field(default_factory=list)
    batch: int = 1  # 1: round c1 (entries without `batch`), 2: round c2 ...

    @property
    def clean(self) -> bool:
        return self.answer == "none"

    @property
    def hit(self) -> bool:
        return self.answer not in (None, "none") and self.answer in self.found

    @property
    def wrong(self) -> list[str]:
        return [a for a in self.found if a != self.answer and a not in self.also]


@dataclass
class Score:
    rows: list[Row]

    @property
    def labelled(self) -> list[Row]:
        return [r for r in self.rows if r.answer not in (None, "none")]

    @property
    def recall(self) -> int:
        return sum(r.hit for r in self.labelled)

    @property
    def wrong_answers(self) -> int:
        return sum(len(r.wrong) for r in self.rows if not r.clean)

    @property
    def false_findings(self) -> int:
        return sum(len(r.wrong) for r in self.rows if r.clean)


def entries() -> list[dict]:
    return yaml.safe_load((HERE / "manifest.yaml").read_text(encoding="utf-8"))["snippets"]


def score() -> Score:
    rows = []
    for e in entries():
        source = (HERE / e["file"]).read_text(encoding="utf-8")
        found, _ = facts([source])
        rows.append(Row(e["file"].split("/")[-1], e["answer"], [f.answer for f in found], list(e.get("also") or []),
                        int(e.get("batch") or 1)))
    return Score(rows)


def by_batch(s: Score) -> dict[int, Score]:
    return {b: Score([r for r in s.rows if r.batch == b]) for b in sorted({r.batch for r in s.rows})}


def summary(s: Score) -> str:
    bugs = [r for r in s.rows if not r.clean]
    return (f"bug snippets {len(bugs)} (with an answer {len(s.labelled)}, no answer fits {len(bugs) - len(s.labelled)}), "
            f"clean {len(s.rows) - len(bugs)}; recall {s.recall}/{len(s.labelled)}   wrong answers {s.wrong_answers}   "
            f"false findings on clean code {s.false_findings}")


def main() -> None:
    s = score()
    print(f"{'snippet':44} {'b':1} {'label':18} {'found':30} verdict")
    for r in s.rows:
        if r.clean:
            verdict = "FALSE FINDING" if r.wrong else "ok (clean)"
        elif r.answer is None:
            verdict = "WRONG" if r.wrong else "unanswerable"
        else:
            verdict = "found" if r.hit else "missed"
            if r.wrong:
                verdict += " + WRONG"
        print(f"{r.file[:44]:44} {r.batch:1} {str(r.answer):18} {','.join(r.found) or '-':30} {verdict}")
    print()
    for b, sb in by_batch(s).items():
        print(f"batch {b}: {summary(sb)}")
    print(f"all:     {summary(s)}")


if __name__ == "__main__":
    main()
