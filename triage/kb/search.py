"""Rank knowledge nodes against free text: a field-weighted BM25 plus error-pattern matches.

Used by `triage search`, and by `scan` to turn a plain-language description ("my DPO rewards
are stuck at zero") or a pasted traceback into evidence.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from triage.kb.base import KnowledgeBase, _as_list
from triage.kb.loader import Node

_WORD = re.compile(r"[a-z0-9]+(?:[._/-][a-z0-9]+)*")
_STOP = frozenset(
    "a an and are as at be but by do does for from has have how i if in into is it its my no not "
    "of on or our so than that the their then there these this to too up was we were what when "
    "which while why will with you your".split()
)
# field -> weight (title and symptom wording matter most; mechanism text least)
FIELD_WEIGHTS = {
    "id": 4.0,
    "title": 3.0,
    "question": 2.5,
    "symptoms": 2.0,
    "aliases": 1.0,
    "knobs": 1.5,
    "errors": 1.5,
    "why": 1.0,
    "expect": 0.7,
    "help": 0.7,
    "verify": 0.5,
    "answers": 0.8,
}
K1 = 1.2
B = 0.6
ERROR_MATCH_BONUS = 12.0


_PARTS = re.compile(r"[._/-]")
_REGEX_META = re.compile(r"\\.|[\[\](){}^$*+?|]")


def tokens(text: str) -> list[str]:
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        parts = _PARTS.split(word)
        candidates = [word, *parts] if len(parts) > 1 else [word]
        for tok in candidates:
            if tok in _STOP or not tok:
                continue
            if len(tok) > 4 and tok.endswith("s") and not tok.endswith("ss"):
                tok = tok[:-1]
            out.append(tok)
    return out


def _regex_words(pattern: str) -> str:
    """The literal words inside an error regex, for the text index."""
    return _REGEX_META.sub(" ", pattern)


def node_fields(node: Node) -> dict[str, str]:
    d = node.data
    fix = [f for f in _as_list(d.get("fix")) if isinstance(f, dict)]
    answers = [a for a in _as_list(d.get("answers")) if isinstance(a, dict)]
    return {
        "id": node.id.replace("-", " ") + " " + node.id,
        "title": str(d.get("title") or ""),
        "question": str(d.get("question") or ""),
        "symptoms": " ".join(str(s) for s in _as_list(d.get("symptoms"))),
        "aliases": " ".join(str(s) for s in _as_list(d.get("aliases"))),
        "knobs": " ".join(str(f.get("knob", "")) for f in fix) + " " + str(d.get("knob") or ""),
        "errors": " ".join(_regex_words(str(p)) for p in _as_list(d.get("errors"))),
        "why": str(d.get("why") or d.get("checks") or ""),
        "expect": " ".join(str(f.get("expect", "")) for f in fix),
        "help": str(d.get("help") or ""),
        "verify": str(d.get("verify") or ""),
        "answers": " ".join(str(a.get("label", "")) for a in answers),
    }


@dataclass
class Hit:
    node: Node
    score: float
    terms: list[str] = field(default_factory=list)
    error_match: str | None = None


class ErrorMatcher:
    """The causes' `errors` patterns, compiled once (multi-line: `^` matches at each line)."""

    def __init__(self, kb: KnowledgeBase):
        from triage.kb.guards import GuardedPattern, compile_error_pattern

        self.patterns: list[tuple[Node, GuardedPattern]] = []
        for node in kb.causes:
            for pattern in _as_list(node.get("errors")):
                # None: does not compile, or could take exponential time (kb check names it)
                compiled = compile_error_pattern(str(pattern))
                if compiled is not None:
                    self.patterns.append((node, compiled))
        self._folded: list[tuple[Node, GuardedPattern]] | None = None

    def folded(self) -> list:
        """The same patterns matched without regard to case (built on first use)."""
        if self._folded is None:
            from triage.kb.guards import GuardedPattern

            self._folded = [(node, GuardedPattern(re.compile(p.pattern, re.MULTILINE | re.IGNORECASE)))
                            for node, p in self.patterns]
        return self._folded

    def error_matches(self, text: str) -> dict[str, str]:
        """Cause ID -> the first error pattern that matches somewhere in `text`."""
        out: dict[str, str] = {}
        for node, pattern in self.patterns:
            if node.id not in out and pattern.search(text):
                out[node.id] = pattern.pattern
        return out

    def error_spans(self, text: str, fold: bool = False) -> dict[str, tuple[str, int]]:
        """Cause ID -> (its pattern that covers the most of `text`, how many characters it covers).

        The covered length is what tells a specific pattern from a generic one on the same line:
        "Expected all tensors to be on the same device" explains more of a message than "CUDA error".
        `fold`: when no pattern matches as written, match them again without regard to case (a
        message a person retyped in lower case in a report; never used on a log's own lines, whose
        case is the program's)."""
        out = self._spans(text, self.patterns)
        if not out and fold:
            out = self._spans(text, self.folded())
        return out

    @staticmethod
    def _spans(text: str, patterns: list) -> dict[str, tuple[str, int]]:
        out: dict[str, tuple[str, int]] = {}
        for node, pattern in patterns:
            m = pattern.search(text)
            if m is None:
                continue
            span = max(1, m.end() - m.start())
            if node.id not in out or span > out[node.id][1]:
                out[node.id] = (pattern.pattern, span)
        return out


class SearchIndex:
    """BM25 over the nodes' text (built on the first search) plus the error patterns."""

    def __init__(self, kb: KnowledgeBase, kinds: tuple[str, ...] = ("cause", "symptom", "probe")):
        self.kb = kb
        self.kinds = kinds
        self._errors: ErrorMatcher | None = None
        self._built = False

    def _build(self) -> None:
        if self._built:
            return
        self._built = True
        kb, kinds = self.kb, self.kinds
        self.docs: list[tuple[Node, Counter, float]] = []
        df: Counter = Counter()
        total = 0.0
        for node in kb.nodes.values():
            if node.kind not in kinds:
                continue
            tf: Counter = Counter()
            length = 0.0
            for name, text in node_fields(node).items():
                weight = FIELD_WEIGHTS[name]
                toks = tokens(text)
                length += weight * len(toks)
                for tok in toks:
                    tf[tok] += weight  # type: ignore[assignment]  # a Counter of float weights
            self.docs.append((node, tf, length))
            df.update(tf.keys())
            total += length
        self.n = len(self.docs)
        self.avg = total / self.n if self.n else 1.0
        self.idf = {t: math.log(1 + (self.n - c + 0.5) / (c + 0.5)) for t, c in df.items()}

    def error_matches(self, text: str) -> dict[str, str]:
        if self._errors is None:
            self._errors = ErrorMatcher(self.kb)
        return self._errors.error_matches(text)

    def error_spans(self, text: str, fold: bool = False) -> dict[str, tuple[str, int]]:
        if self._errors is None:
            self._errors = ErrorMatcher(self.kb)
        return self._errors.error_spans(text, fold)

    def search(self, text: str, limit: int = 10, kinds: tuple[str, ...] | None = None) -> list[Hit]:
        self._build()
        query = Counter(tokens(text))
        errors = self.error_matches(text)
        hits: list[Hit] = []
        for node, tf, length in self.docs:
            if kinds and node.kind not in kinds:
                continue
            score = 0.0
            matched = []
            for tok, qn in query.items():
                f = tf.get(tok)
                if not f:
                    continue
                idf = self.idf.get(tok, 0.0)
                score += qn * idf * f * (K1 + 1) / (f + K1 * (1 - B + B * length / self.avg))
                matched.append(tok)
            err = errors.get(node.id)
            if err:
                score += ERROR_MATCH_BONUS
            if node.id.lower() == text.strip().lower():
                score += 50.0
            if score > 0:
                hits.append(Hit(node, round(score, 3), matched, err))
        hits.sort(key=lambda h: (-h.score, h.node.id))
        return hits[:limit]
