"""Checklists and fix plans as data: what the knowledge says, before anything is drawn.

A checklist is a knowledge node (`knowledge/checklists/<name>.yaml`); every item links to node IDs,
and each link carries the address where the node can be read (its first public source, else the
`triage explain` command), so a printed sheet still says where to look. `fix_plan` turns the
ranked causes of a `scan --json` document into the to-do list of a report.

These live in the knowledge layer so the renderers (triage.render) can draw them without
importing triage.checklists, which sits above the renderers and prints through them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from triage.errors import TriageError
from triage.kb.base import KnowledgeBase, _as_list
from triage.kb.loader import Node


# The general checklists come first, in this order; the per-domain ones follow by name.
GENERAL_ORDER = ("preflight", "first-100-steps", "post-mortem")


class UnknownChecklist(TriageError, LookupError):
    def __init__(self, name: str, known: list[str]):
        self.name = name
        self.known = known
        super().__init__(f"no checklist named {name!r} (known: {', '.join(known) or 'none'}); `triage checklist` lists them")


@dataclass(frozen=True)
class Link:
    id: str
    kind: str
    title: str
    url: str          # where to read the node (printed as a note on paper)
    command: str      # how to read it in the terminal

    @property
    def known(self) -> bool:
        return self.kind != "unknown"


@dataclass
class Item:
    number: str       # "2.3": section 2, item 3
    text: str
    links: list[Link]
    why: str = ""
    check: str = ""
    range: str = ""

    @property
    def anchor(self) -> str:
        return "item-" + self.number.replace(".", "-")


@dataclass
class Section:
    number: int
    title: str
    items: list[Item]
    note: str = ""

    @property
    def anchor(self) -> str:
        return f"section-{self.number}"


@dataclass
class Checklist:
    id: str
    title: str
    description: str
    sections: list[Section]
    domains: list[str] = field(default_factory=list)
    path: str = ""

    @property
    def items(self) -> list[Item]:
        return [item for section in self.sections for item in section.items]

    @property
    def links(self) -> list[Link]:
        """Every linked node once, in order of first appearance."""
        seen: dict[str, Link] = {}
        for item in self.items:
            for link in item.links:
                seen.setdefault(link.id, link)
        return list(seen.values())


# -- addresses ------------------------------------------------------------------------------
def node_url(node: Node) -> str:
    """Where a person can read more on paper: the node's first public source (a doc page or
    an issue thread). Nodes without one are reached through their `triage explain` command."""
    for ref in list(node.get("sources") or []) + list(node.get("precedent") or []):
        if isinstance(ref, dict) and str(ref.get("url", "")).startswith(("http://", "https://")):
            return str(ref["url"])
    return ""


def make_link(kb: KnowledgeBase, node_id: str) -> Link:
    node_id = str(node_id)
    node = kb.get(node_id)
    if node is None:
        return Link(node_id, "unknown", node_id, "", f"triage search {node_id}")
    if node.kind == "probe":
        command = f"triage probe show {node.id}"
    else:
        command = f"triage explain {node.id}"
    return Link(node.id, node.kind, node.title, node_url(node), command)


def _text(value: object) -> str:
    return " ".join(str(value).split()) if value is not None else ""


# -- loading --------------------------------------------------------------------------------
def nodes(kb: KnowledgeBase) -> list[Node]:
    """The checklist nodes, general ones first (GENERAL_ORDER), then the rest by name."""
    found = kb.by_kind("checklist")

    def key(node: Node) -> tuple:
        if node.id in GENERAL_ORDER:
            return (0, GENERAL_ORDER.index(node.id), node.id)
        return (1, 0, node.id)

    return sorted(found, key=key)


def from_node(kb: KnowledgeBase, node: Node) -> Checklist:
    sections: list[Section] = []
    for s, raw in enumerate(_as_list(node.get("sections")), start=1):
        if not isinstance(raw, dict):
            continue
        items: list[Item] = []
        for i, entry in enumerate(_as_list(raw.get("items")), start=1):
            if not isinstance(entry, dict):
                continue
            items.append(Item(
                number=f"{s}.{i}",
                text=_text(entry.get("text")),
                links=[make_link(kb, target) for target in _as_list(entry.get("links"))],
                why=_text(entry.get("why")),
                check=_text(entry.get("check")),
                range=_text(entry.get("range")),
            ))
        sections.append(Section(s, _text(raw.get("title")), items, _text(raw.get("note"))))
    return Checklist(
        id=node.id,
        title=_text(node.get("title")) or node.id,
        description=_text(node.get("description")),
        sections=sections,
        domains=[str(d) for d in _as_list(node.get("domains"))],
        path=node.path,
    )


def all_checklists(kb: KnowledgeBase) -> list[Checklist]:
    return [from_node(kb, n) for n in nodes(kb)]


def load(kb: KnowledgeBase, name: str) -> Checklist:
    wanted = name.strip().lower()
    for node in nodes(kb):
        if node.id.lower() == wanted:
            return from_node(kb, node)
    raise UnknownChecklist(name, [n.id for n in nodes(kb)])


# -- reports: the to-do list of fixes -------------------------------------------------------
@dataclass
class Step:
    """One fix to try, with what to look at afterwards."""

    number: int
    cause_id: str
    cause_title: str
    rank: int
    score: float | None
    knob: str
    range: str
    expect: str
    verify: str
    next_if_not: str = ""
    next_title: str = ""
    also_for: list[str] = field(default_factory=list)
    url: str = ""


def fix_plan(doc: dict, kb: KnowledgeBase | None = None) -> list[Step]:
    """The fixes of a `scan --json` document in the order to try them.

    Causes come in their ranked order (best first); within a cause, its knobs in the order the
    knowledge lists them. A knob shared by several causes is tried once, at its best rank, and
    says which other causes it also serves. Each step carries the cause's `verify` (from the
    knowledge base) and where to go if it was not that cause (`next_if_not`).
    """
    steps: list[Step] = []
    by_knob: dict[str, Step] = {}
    for rank, cause in enumerate(_as_list(doc.get("causes")), start=1):
        if not isinstance(cause, dict):
            continue
        cid = str(cause.get("id", ""))
        node = kb.get(cid) if kb is not None else None
        fixes = [f for f in _as_list(cause.get("fix")) if isinstance(f, dict)]
        if not fixes and node is not None:
            fixes = [f for f in _as_list(node.get("fix")) if isinstance(f, dict)]
        verify = _text(node.get("verify")) if node is not None else ""
        nxt = _text(node.get("next_if_not")) if node is not None else ""
        title = _text(cause.get("title")) or (node.title if node is not None else cid)
        for fix in fixes:
            knob = str(fix.get("knob", "")).strip()
            if not knob:
                continue
            key = " ".join(knob.split())
            if key in by_knob:
                if cid not in by_knob[key].also_for and cid != by_knob[key].cause_id:
                    by_knob[key].also_for.append(cid)
                continue
            step = Step(
                number=len(steps) + 1,
                cause_id=cid,
                cause_title=title,
                rank=rank,
                score=cause.get("score") if isinstance(cause.get("score"), (int, float)) else None,
                knob=knob,
                range=_text(fix.get("range")),
                expect=_text(fix.get("expect")),
                verify=verify or _text(fix.get("expect")),
                next_if_not=nxt,
                next_title=(kb.title_of(nxt) if (kb is not None and nxt) else ""),
                url=node_url(node) if node is not None else "",
            )
            by_knob[key] = step
            steps.append(step)
    return steps
