"""Cards for `triage explain`: one node, rendered for a terminal or as JSON."""

from __future__ import annotations

from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from triage.kb.base import KnowledgeBase, _as_list
from triage.kb.loader import Node
from triage.kb.schema import normalise_answer
from triage.render.code import highlight


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


def _section(title: str, body: RenderableType) -> RenderableType:
    return Group(Text(title, style="bold cyan"), Padding(body, (0, 0, 1, 2)))


def _ref(kb: KnowledgeBase, node_id: str) -> Text:
    text = Text()
    text.append(node_id, style="bold")
    text.append(f"  {kb.title_of(node_id)}")
    return text


def cause_card(kb: KnowledgeBase, node: Node) -> RenderableType:
    parts: list[RenderableType] = []
    symptoms = _as_list(node.get("symptoms"))
    if symptoms:
        parts.append(_section("What you see", Text("\n".join(f"• {s}" for s in symptoms))))
    if node.get("why"):
        parts.append(_section("Why it happens", Text(str(node.get("why")).strip())))
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column()
    for i, fix in enumerate(f for f in _as_list(node.get("fix")) if isinstance(f, dict)):
        lines: list[RenderableType] = [highlight(str(fix.get("knob", "")).strip())]
        if fix.get("range"):
            lines.append(Text.assemble(("range  ", "dim"), str(fix["range"]).strip()))
        if fix.get("expect"):
            lines.append(Text.assemble(("expect ", "dim"), str(fix["expect"]).strip()))
        grid.add_row(Text(f"{i + 1}.", style="bold"), Group(*lines))
    if grid.row_count:
        parts.append(_section("The knob", grid))
    if node.get("verify"):
        parts.append(_section("Verify", Text(str(node.get("verify")).strip())))
    nxt = node.get("next_if_not")
    if nxt:
        parts.append(_section("If it was not this", Group(_ref(kb, nxt), Text(f"triage explain {nxt}", style="dim"))))
    links = [str(i) for i in _as_list(node.get("links"))]
    if links:
        parts.append(_section("See also", Group(*[_ref(kb, i) for i in links])))
    probes = [str(p) for p in _as_list(node.get("probes"))]
    if probes:
        lines = [Text.assemble((p, "bold"), f"  {kb.title_of(p)}  ", (f"triage probe export {p}", "dim")) for p in probes]
        parts.append(_section("Probes to run on the GPU box", Group(*lines)))
    errors = [str(e) for e in _as_list(node.get("errors"))]
    if errors:
        parts.append(_section("Error text that points here", Text("\n".join(errors), style="yellow")))
    sources = [s for s in _as_list(node.get("sources")) + _as_list(node.get("precedent")) if isinstance(s, dict)]
    if sources:
        lines = [Text.assemble(str(s.get("title", "")), "  ", (str(s.get("url", "")), "underline blue")) for s in sources]
        parts.append(_section("Sources", Group(*lines)))
    subtitle = " · ".join(
        str(x) for x in (node.get("family"), ", ".join(map(str, _as_list(node.get("domains")))), node.get("prior")) if x
    )
    return Panel(Group(*parts), title=f"[bold]{escape(node.id)}[/] · {escape(node.title)}", title_align="left",
                 subtitle=escape(subtitle), subtitle_align="right", border_style="cyan", padding=(1, 2))


def symptom_card(kb: KnowledgeBase, node: Node) -> RenderableType:
    parts: list[RenderableType] = []
    if node.get("help"):
        parts.append(_section("How to check", Text(str(node.get("help")).strip())))
    leads = _leads_to(kb, node)
    labels = {normalise_answer(a.get("value", "")): str(a.get("label", "")) for a in _as_list(node.get("answers")) if isinstance(a, dict)}
    lines: list[RenderableType] = []
    for value, targets in leads.items():
        line = Text.assemble((value, "bold"), f"  {labels.get(value, '')}")
        lines.append(line)
        if targets["questions"]:
            lines.append(Text("    then asks: " + ", ".join(targets["questions"]), style="dim"))
        if targets["causes"]:
            lines.append(Text("    points to: " + ", ".join(targets["causes"]), style="dim"))
    parts.append(_section("Answers", Group(*lines)))
    gates = kb.gates(node)
    if gates:
        gate_text = "; ".join(f"{q} = {' | '.join(sorted(v))}" for q, v in gates.items())
        parts.append(_section("Asked after", Text(gate_text)))
    return Panel(Group(*parts), title=f"[bold]{escape(node.id)}[/] · {escape(node.title)}", title_align="left",
                 subtitle="question", subtitle_align="right", border_style="magenta", padding=(1, 2))


def generic_card(kb: KnowledgeBase, node: Node) -> RenderableType:
    parts: list[RenderableType] = []
    for key, value in node.data.items():
        if key in ("id", "kind", "title"):
            continue
        if isinstance(value, list):
            body = Text("\n".join(f"• {_short(v)}" for v in value))
        elif isinstance(value, dict):
            body = Text("\n".join(f"{k}: {_short(v)}" for k, v in value.items()))
        else:
            body = Text(str(value).strip())
        parts.append(_section(key.replace("_", " ").capitalize(), body))
    return Panel(Group(*parts), title=f"[bold]{escape(node.id)}[/] · {escape(node.title)}", title_align="left",
                 subtitle=node.kind, subtitle_align="right", border_style="green", padding=(1, 2))


def _short(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={_short(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_short(v) for v in value)
    return str(value)


def render_node(console: Console, kb: KnowledgeBase, node: Node) -> None:
    if node.kind == "cause":
        console.print(cause_card(kb, node))
    elif node.kind == "symptom":
        console.print(symptom_card(kb, node))
    else:
        console.print(generic_card(kb, node))
