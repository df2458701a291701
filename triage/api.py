"""The Python API behind the command line. The CLI parses arguments and renders; the work is here.

    >>> from triage import api
    >>> kb = api.load_kb()
    >>> api.explain(kb, "O9").title
"""

from __future__ import annotations

from triage.kb.base import KnowledgeBase
from triage.kb.loader import Node


class TriageError(Exception):
    """A user-facing error: one line, exit code 2."""


class UnknownID(TriageError):
    def __init__(self, text: str, suggestions: list[str]):
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown ID {text!r}{hint} (`triage search WORDS` finds nodes by content)")
        self.text = text
        self.suggestions = suggestions


class KnowledgeInvalid(TriageError):
    pass


def load_kb(extra_roots: list[str] | None = None) -> KnowledgeBase:
    """The built-in knowledge plus TRIAGE_KB_PATH and `extra_roots`.

    Broken YAML or duplicate IDs make every command fail with a pointer to `triage kb check`,
    except `kb check` itself, which reports them all.
    """
    kb = KnowledgeBase.load(extra_roots)
    if kb.problems or kb.duplicates:
        first = kb.problems[0].args[0] if kb.problems else (
            f"duplicate ID {kb.duplicates[0][1].id}: {kb.duplicates[0][0].path} and {kb.duplicates[0][1].path}"
        )
        raise KnowledgeInvalid(f"knowledge base has problems: {first} (run `triage kb check` for all)")
    return kb


def explain(kb: KnowledgeBase, node_id: str) -> Node:
    node = kb.resolve(node_id)
    if node is None:
        raise UnknownID(node_id, kb.close_matches(node_id))
    return node


def check_kb(kb: KnowledgeBase):
    from triage.kb.validate import check

    return check(kb)


def search(kb: KnowledgeBase, text: str, limit: int = 10, kinds: tuple[str, ...] | None = None):
    from triage.kb.search import SearchIndex

    return SearchIndex(kb).search(text, limit=limit, kinds=kinds)


def graph(kb: KnowledgeBase):
    from triage.kb.graph import DecisionGraph

    return DecisionGraph(kb)
