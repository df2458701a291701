"""Cards for `triage explain`: one node, rendered for a terminal or as JSON.

No border: a knob is printed from the first column, exactly as it is to be typed, so it copies
cleanly (a box would put `│` and margins into every copied line) and a long title is never cut
to fit a frame. In a pipe every paragraph is one line (see triage.render.console).
"""

from __future__ import annotations

import textwrap

from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from triage.kb.base import KnowledgeBase, _as_list
from triage.kb.loader import Node
from triage.kb.schema import normalise_answer
from triage.render.code import highlight
from triage.render.layout import hang


def _plain(value):
    """LineDict and friends -> plain JSON-able values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return value
    return str(value)


def node_json(kb: KnowledgeBase, node: Node) -> dict:
    out = {"id": node.id, "kind": node.kind, **{k: _plain(v) for k, v in node.data.items() if k not in ("id", "kind")}}
    out["path"] = node.path
    if node.kind == "cause":
        out["links"] = [{"id": str(i), "title": kb.title_of(str(i))} for i in _as_list(node.get("links"))]
        nxt = node.get("next_if_not")
        if nxt:
            out["next_if_not"] = {"id": nxt, "title": kb.title_of(nxt)}
        out["signs"] = {q: sorted(v) for q, v in kb.signs(node).items()}
    if node.kind == "symptom":
        out["leads_to"] = _leads_to(kb, node)
    return out


def _leads_to(kb: KnowledgeBase, symptom: Node) -> dict[str, dict[str, list[str]]]:
    """For each answer: the follow-up questions it unlocks and the causes it points to."""
    result: dict[str, dict[str, list[str]]] = {}
    for value in kb.answer_values(symptom):
        result[value] = {"questions": [], "causes": []}
    for other in kb.symptoms:
        gate = kb.gates(other).get(symptom.id)
        if gate:
            for value in result:
                if "*" in gate or value in gate:
                    result[value]["questions"].append(other.id)
    for cause in kb.causes:
        for value in kb.signs(cause).get(symptom.id, ()):
            if value in result:
                result[value]["causes"].append(cause.id)
    for answer in _as_list(symptom.get("answers")):
        if isinstance(answer, dict):
            value = normalise_answer(answer.get("value", ""))
            for target in _as_list(answer.get("next")) + _as_list(answer.get("favours")):
                bucket = "questions" if str(target).startswith("Q-") else "causes"
                if value in result and str(target) not in result[value][bucket]:
                    result[value][bucket].append(str(target))
    return result


def _section(title: str, body: RenderableType | None = None) -> RenderableType:
    """A heading and its body indented by two; the body sized to its content (never padded to
    the console's width, so a pipe gets no trailing blanks and no 10,000-column lines)."""
    parts: list[RenderableType] = [Text(title, style="bold cyan")]
    if body is not None:
        parts.append(Padding(body, (0, 0, 0, 2), expand=False))
    parts.append(Text(""))
    return Group(*parts)


def _bullets(items) -> RenderableType:
    """One bullet per item, wrapped lines hanging under the text, not under the bullet."""
    return Group(*[hang("• ", Text(str(s).strip())) for s in items])


def _ref(kb: KnowledgeBase, node_id: str) -> Text:
    text = Text()
    text.append(node_id, style="bold")
    text.append(f"  {kb.title_of(node_id)}")
    return text


def _heading(node: Node, subtitle: str) -> RenderableType:
    """The card's first lines: ID and full title (never cut), then what kind of node it is."""
    head = Text.assemble((node.id, "bold"), " · ", (node.title, "bold"))
    return Group(head, Text(subtitle, style="dim"), Text(""))


def code_block(code: str) -> Text:
    """A knob exactly as it is to be typed: every line, from the first column, no border or
    margin to copy along with it. Printed with soft wrap, so a terminal folds a long line
    visually but rich never splits it."""
    return highlight(textwrap.dedent(str(code)).strip("\n"))


def knob_block(fix: dict, number: int | None) -> list[tuple[RenderableType, bool]]:
    """(renderable, is_code) pairs for one fix: an optional 'option N' line, the code flush
    left, then its range and expectation indented under it."""
    parts: list[tuple[RenderableType, bool]] = []
    if number is not None:
        parts.append((Text(f"  option {number}", style="dim"), False))
    parts.append((code_block(str(fix.get("knob", ""))), True))
    if fix.get("range"):
        parts.append((hang(Text("  range   ", style="dim"), Text(" ".join(str(fix["range"]).split()))), False))
    if fix.get("expect"):
        parts.append((hang(Text("  expect  ", style="dim"), Text(" ".join(str(fix["expect"]).split()))), False))
    return parts


class Card:
    """A card: prose parts and code parts. Code must reach the console with soft wrap (never
    split by rich); `Card` is also a renderable, for views that place it inside a Group."""

    def __init__(self) -> None:
        self.parts: list[tuple[RenderableType, bool]] = []

    def add(self, renderable: RenderableType, code: bool = False) -> None:
        self.parts.append((renderable, code))

    def print(self, console: Console) -> None:
        for renderable, code in self.parts:
            console.print(renderable, soft_wrap=code or None, highlight=False)

    def __rich_console__(self, console: Console, options):
        for renderable, code in self.parts:
            if code:  # inside a Group: keep each code line whole (no wrapping, no cropping)
                yield from _unwrapped_lines(console, renderable)
            else:
                yield renderable


def _unwrapped_lines(console: Console, text: Text):
    from rich.segment import Segment

    for line in text.split("\n", allow_blank=True):
        yield from line.render(console)
        yield Segment.line()


def cause_card(kb: KnowledgeBase, node: Node, heading: bool = True) -> Card:
    """The card of a cause; `heading=False` where the view has already named it (ask's end)."""
    card = Card()
    subtitle = " · ".join(
        str(x) for x in (node.get("family"), ", ".join(map(str, _as_list(node.get("domains")))), node.get("prior")) if x
    )
    if heading:
        card.add(_heading(node, subtitle))
    else:
        card.add(Text(""))
    symptoms = _as_list(node.get("symptoms"))
    if symptoms:
        card.add(_section("What you see", _bullets(symptoms)))
    if node.get("why"):
        card.add(_section("Why it happens", Text(" ".join(str(node.get("why")).split()))))
    fixes = [f for f in _as_list(node.get("fix")) if isinstance(f, dict)]
    if fixes:
        card.add(Text("The knob" if len(fixes) == 1 else f"The knob ({len(fixes)} options, best first)", style="bold cyan"))
        for i, fix in enumerate(fixes):
            for renderable, code in knob_block(fix, i + 1 if len(fixes) > 1 else None):
                card.add(renderable, code)
            card.add(Text(""))
    if node.get("verify"):
        card.add(_section("Verify", Text(" ".join(str(node.get("verify")).split()))))
    nxt = node.get("next_if_not")
    if nxt:
        card.add(_section("If it was not this", Group(_ref(kb, nxt), Text(f"triage explain {nxt}", style="dim"))))
    links = [str(i) for i in _as_list(node.get("links"))]
    if links:
        card.add(_section("See also", Group(*[_ref(kb, i) for i in links])))
    probes = [str(p) for p in _as_list(node.get("probes"))]
    if probes:
        lines = [Text.assemble((p, "bold"), f"  {kb.title_of(p)}  ", (f"triage probe export {p}", "dim")) for p in probes]
        card.add(_section("Probes to run on the GPU box", Group(*lines)))
    errors = [str(e) for e in _as_list(node.get("errors"))]
    if errors:
        card.add(Text("Error text that points here", style="bold cyan"))
        for e in errors:  # regular expressions: code, kept whole
            card.add(Text("  " + e, style="yellow"), code=True)
        card.add(Text(""))
    sources = [s for s in _as_list(node.get("sources")) + _as_list(node.get("precedent")) if isinstance(s, dict)]
    if sources:
        lines = [hang("• ", Text.assemble(str(s.get("title", "")), "  ", (str(s.get("url", "")), "underline blue")))
                 for s in sources]
        card.add(_section("Sources", Group(*lines)))
    return card


# an answer of a broad question can lead to a hundred nodes; past this many the card counts them
MAX_IDS = 8


def id_summary(ids: list[str], noun: str) -> str:
    """The IDs when they are few ('O1, O9'), else how many ('72 causes'): a wall of IDs helps
    nobody read a card (`--json` lists every one)."""
    if len(ids) <= MAX_IDS:
        return ", ".join(ids)
    return f"{len(ids)} {noun}"


def symptom_card(kb: KnowledgeBase, node: Node) -> Card:
    card = Card()
    card.add(_heading(node, "question"))
    if node.get("help"):
        card.add(_section("How to check", Text(" ".join(str(node.get("help")).split()))))
    leads = _leads_to(kb, node)
    labels = {normalise_answer(a.get("value", "")): str(a.get("label", "")) for a in _as_list(node.get("answers")) if isinstance(a, dict)}
    lines: list[RenderableType] = []
    counted = False
    for value, targets in leads.items():
        lines.append(hang(Text(value, style="bold"), Text(f"  {labels.get(value, '')}")))
        where = []
        if targets["questions"]:
            where.append("then asks: " + id_summary(targets["questions"], "questions"))
        if targets["causes"]:
            where.append("points to: " + id_summary(targets["causes"], "causes"))
        counted |= any(len(t) > MAX_IDS for t in targets.values())
        if where:
            lines.append(hang(Text("    ", style="dim"), Text("; ".join(where), style="dim")))
    card.add(_section("Answers", Group(*lines)))
    if counted:
        card.add(Text(f"Every ID behind a count: triage explain {node.id} --json (leads_to)", style="dim"))
        card.add(Text(""))
    gates = kb.gates(node)
    if gates:
        gate_text = "; ".join(f"{q} = {' | '.join(sorted(v))}" for q, v in gates.items())
        card.add(_section("Asked after", Text(gate_text)))
    return card


def generic_card(kb: KnowledgeBase, node: Node) -> Card:
    card = Card()
    card.add(_heading(node, node.kind))
    for key, value in node.data.items():
        if key in ("id", "kind", "title"):
            continue
        if isinstance(value, list):
            body: RenderableType = _bullets(_short(v) for v in value)
        elif isinstance(value, dict):
            body = Group(*[hang(Text(f"{k}: ", style="dim"), Text(_short(v))) for k, v in value.items()])
        else:
            body = Text(str(value).strip())
        card.add(_section(key.replace("_", " ").capitalize(), body))
    return card


def _short(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={_short(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_short(v) for v in value)
    return str(value)


def render_node(console: Console, kb: KnowledgeBase, node: Node) -> None:
    if node.kind == "cause":
        card = cause_card(kb, node)
    elif node.kind == "symptom":
        card = symptom_card(kb, node)
    else:
        card = generic_card(kb, node)
    card.print(console)
