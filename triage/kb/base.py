"""`KnowledgeBase`: the loaded nodes with the lookups every command needs.

It holds no graph library: `DecisionGraph` (triage.kb.graph) builds the networkx view only
for the commands that walk the graph, so `explain` and `search` start fast.
"""

from __future__ import annotations

import difflib
from functools import cached_property

from triage.kb.loader import KnowledgeError, LoadResult, Node, load
from triage.kb.schema import DOMAIN_QUESTION, normalise_answer

ANY = "*"


def _as_list(value: object) -> list:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


class KnowledgeBase:
    def __init__(self, result: LoadResult):
        self.result = result
        self.nodes: dict[str, Node] = {}
        self.duplicates: list[tuple[Node, Node]] = []
        for node in result.nodes:
            first = self.nodes.get(node.id)
            if first is not None:
                self.duplicates.append((first, node))
                continue
            self.nodes[node.id] = node

    @classmethod
    def load(cls, extra_roots: list[str] | None = None, use_cache: bool = True, builtin: bool = True) -> KnowledgeBase:
        return cls(load(extra_roots, use_cache=use_cache, builtin=builtin))

    @property
    def problems(self) -> list[KnowledgeError]:
        return self.result.problems

    # -- lookups ---------------------------------------------------------------------------
    def __contains__(self, node_id: str) -> bool:
        return node_id in self.nodes

    def __getitem__(self, node_id: str) -> Node:
        return self.nodes[node_id]

    def get(self, node_id: str) -> Node | None:
        return self.nodes.get(node_id)

    def by_kind(self, kind: str) -> list[Node]:
        return [n for n in self.nodes.values() if n.kind == kind]

    @cached_property
    def causes(self) -> list[Node]:
        return self.by_kind("cause")

    @cached_property
    def symptoms(self) -> list[Node]:
        return self.by_kind("symptom")

    def resolve(self, text: str) -> Node | None:
        """An ID as typed by a person: exact, then case-insensitive."""
        node = self.nodes.get(text)
        if node is not None:
            return node
        folded = text.strip().lower()
        for node_id, node in self.nodes.items():
            if node_id.lower() == folded:
                return node
        return None

    def close_matches(self, text: str, n: int = 5) -> list[str]:
        ids = list(self.nodes)
        lowered = {i.lower(): i for i in ids}
        hits = difflib.get_close_matches(text.lower(), list(lowered), n=n, cutoff=0.5)
        found = [lowered[h] for h in hits]
        if len(found) < n:  # prefix matches catch "S-grpo" -> S-grpo-reward-zero, ...
            for i in ids:
                if i.lower().startswith(text.lower()) and i not in found:
                    found.append(i)
                if len(found) >= n:
                    break
        return found

    # -- question semantics ----------------------------------------------------------------
    def answer_values(self, symptom: Node) -> list[str]:
        values = []
        for answer in _as_list(symptom.get("answers")):
            if isinstance(answer, dict) and "value" in answer:
                values.append(normalise_answer(answer["value"]))
        return values

    def gates(self, symptom: Node) -> dict[str, set[str]]:
        """`when` as {question: allowed answers}; ANY in the set means any answer."""
        out: dict[str, set[str]] = {}
        when = symptom.get("when") or {}
        if isinstance(when, dict):
            for qid, values in when.items():
                out[str(qid)] = {normalise_answer(v) for v in _as_list(values)}
        return out

    def signs(self, cause: Node) -> dict[str, set[str]]:
        """The answers a person with this cause would give, including the domain question."""
        out: dict[str, set[str]] = {}
        raw = cause.get("signs") or {}
        if isinstance(raw, dict):
            for qid, values in raw.items():
                out[str(qid)] = {normalise_answer(v) for v in (values if isinstance(values, dict) else _as_list(values))}
        domains = {str(d) for d in _as_list(cause.get("domains"))}
        if domains and "any" not in domains and DOMAIN_QUESTION not in out:
            out[DOMAIN_QUESTION] = domains
        return out

    def sign_weights(self, cause: Node) -> dict[str, dict[str, float]]:
        """The signs given as {answer: weight} (`Q-nan-when: {some-batches: 4, eval-only: 1}`): how a
        cause shares its sign mass among several answers when one is far more usual than another.
        Signs given as a list share it equally and are not in here."""
        out: dict[str, dict[str, float]] = {}
        raw = cause.get("signs") or {}
        if isinstance(raw, dict):
            for qid, values in raw.items():
                if isinstance(values, dict):
                    out[str(qid)] = {normalise_answer(v): float(w) for v, w in values.items()
                                     if isinstance(w, (int, float)) and not isinstance(w, bool) and w > 0}
        return out

    def title_of(self, node_id: str) -> str:
        node = self.nodes.get(node_id)
        return node.title if node else node_id
