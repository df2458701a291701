"""Rich views for `triage ask`: the question header, evidence lines, the differential, the end.

Only renderables are built here; the session (triage.engine.session) decides when to print them.
The final cause cards are `triage.render.card.cause_card`, the same cards `triage explain` shows.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from triage.engine.diagnosis import UNKNOWN, Answer, Candidate, Diagnosis, Model
from triage.kb.base import KnowledgeBase, _as_list

# how each source of an answer is named in an evidence line
SOURCE_PREFIX = {
    "log": "answered from the log",
    "config": "answered from the run's config",
    "default": "from the framework's default",
    "probe": "answered by a probe",
    "text": "from the error text",
    "replay": "from the answers file",
    "you": "you said",
}
SOURCE_NAME = {"log": "log", "config": "config", "default": "framework default", "probe": "probe", "text": "error text", "replay": "answers file", "you": "you"}


def question_text(model: Model, qid: str) -> str:
    node = model.questions[qid]
    return str(node.get("question") or node.title).strip()


def answer_label(model: Model, qid: str, value: str) -> str:
    if value == UNKNOWN:
        return "don't know"
    return model.labels.get(qid, {}).get(value) or value


def question_header(model: Model, qid: str, number: int) -> RenderableType:
    """The lines above the prompt: which question, and how to check it yourself."""
    node = model.questions[qid]
    head = Text.assemble((f"Question {number}", "bold magenta"), ("  ·  ", "dim"), (qid, "dim"))
    parts: list[RenderableType] = [Text(""), head]
    help_text = str(node.get("help") or "").strip()
    if help_text:
        parts.append(Padding(Text.assemble(("How to check: ", "bold cyan"), help_text), (0, 0, 0, 2), expand=False))
    return Group(*parts)


def evidence_line(model: Model, answer: Answer) -> Text:
    """'answered from the log: loss is NaN from step 1,204  (Q-loss-nan = yes)'."""
    prefix = SOURCE_PREFIX.get(answer.source, f"from {answer.source}")
    what = answer.evidence or f"{question_text(model, answer.question)} → {answer_label(model, answer.question, answer.value)}"
    return Text.assemble(
        ("✓ ", "green"), (f"{prefix}: ", "bold"), what,
        (f"  ({answer.question} = {answer.value})", "dim"),
    )


def evidence_block(model: Model, answers: list[Answer], notes: list[str] | None = None) -> RenderableType | None:
    lines: list[RenderableType] = [evidence_line(model, a) for a in answers]
    for note in notes or []:
        lines.append(Text.assemble(("! ", "yellow"), note))
    if not lines:
        return None
    return Group(Text("Evidence", style="bold cyan"), Padding(Group(*lines), (0, 0, 0, 2), expand=False))


def answered_line(model: Model, answer: Answer) -> Text:
    """The echo of an answer given without a prompt (answers file, resume)."""
    src = SOURCE_NAME.get(answer.source, answer.source)
    return Text.assemble(
        ("  → ", "bold green"), answer_label(model, answer.question, answer.value), (f"  ({src})", "dim")
    )


def _bar(p: float, width: int = 10) -> str:
    full = max(0, min(width, round(p * width)))
    return "█" * full + "·" * (width - full)


def why_text(candidate: Candidate, kb: KnowledgeBase) -> Text:
    text = Text()
    if candidate.support:
        text.append("; ".join(candidate.support))
    else:
        prior = str(kb[candidate.id].get("prior") or "uncommon")
        text.append(f"no direct evidence yet ({prior} cause, consistent with the answers)", style="dim")
    if candidate.against:
        text.append("\nagainst: ", style="bold red")
        text.append("; ".join(candidate.against), style="red")
    return text


def differential(diag: Diagnosis, limit: int = 8) -> RenderableType:
    """The ranked differential, with why each candidate is there."""
    from rich.table import Table

    ranked = diag.ranking(limit=limit)
    if not ranked:
        return Text("No candidate causes left.", style="yellow")
    table = Table(box=None, header_style="bold", pad_edge=False, show_edge=False, expand=False)
    table.add_column("#", justify="right", style="dim", no_wrap=True)
    table.add_column("cause", no_wrap=True, style="bold")
    table.add_column("p", no_wrap=True)
    table.add_column("title and why it is here", ratio=1)
    for i, c in enumerate(ranked, 1):
        body = Text(c.node.title)
        body.append("\n")
        body.append_text(why_text(c, diag.kb))
        table.add_row(str(i), c.id, Text.assemble((_bar(c.probability), "cyan"), f" {c.probability:4.0%}"), body)
    excluded = sorted(diag.excluded)
    parts: list[RenderableType] = [Text("Candidates, most likely first", style="bold cyan"), table]
    if excluded:
        parts.append(Text(f"ruled out by you (not it): {', '.join(excluded)}", style="dim"))
    return Group(*parts)


def probe_commands(kb: KnowledgeBase, cause_id: str) -> list[str]:
    return [f"triage probe export {p}" for p in (str(x) for x in _as_list(kb[cause_id].get("probes"))) if p]


def final_view(kb: KnowledgeBase, cards: list[Candidate], rest: list[Candidate]) -> RenderableType:
    """The top causes as cards, each with its probability and evidence, then the runners-up."""
    from triage.render.card import cause_card

    parts: list[RenderableType] = [Text(""), Text("Most likely causes", style="bold cyan")]
    for i, c in enumerate(cards, 1):
        parts.append(Text.assemble(("\n" if i > 1 else "", ""), (f"{i}. ", "bold"), (c.id, "bold"), " · ",
                                   (c.node.title, "bold"), f"  {c.probability:.0%}"))
        for line in c.support:
            parts.append(Text.assemble(("   ✓ ", "green"), line))
        for line in c.against:
            parts.append(Text.assemble(("   ✗ ", "red"), line))
        if not c.support:
            parts.append(Text("   no direct evidence yet: it fits the answers and is a common cause", style="dim")
                         if str(c.node.get("prior")) == "common" else Text("   no direct evidence yet", style="dim"))
        parts.append(cause_card(kb, c.node, heading=False))
        cmds = probe_commands(kb, c.id)
        if cmds:
            parts.append(Text.assemble(("   run on the GPU box: ", "bold"), ("  ·  ".join(cmds), "cyan")))
    if rest:
        lines = [Text.assemble((f"{c.id}", "bold"), f"  {c.probability:.0%}  {c.node.title}") for c in rest]
        parts.append(Group(Text("Also possible", style="bold cyan"), Padding(Group(*lines), (0, 0, 0, 2), expand=False)))
    return Group(*parts)


# -- menus ---------------------------------------------------------------------------------------
# questionary draws a choice as: 2 blanks + the pointer ("»") + "1) " when there are shortcuts
MENU_INDENT_SHORTCUTS = 6
MENU_INDENT_PLAIN = 3
PROMPT_INDENT = 2  # "? " before the question


def _wrap(text: str, width: int) -> list[str]:
    import textwrap

    return textwrap.wrap(" ".join(str(text).split()), max(12, width), break_long_words=False,
                         break_on_hyphens=False) or [""]


def option_title(label: str, width: int, indent: int = MENU_INDENT_SHORTCUTS) -> str:
    """A menu label wrapped at word boundaries to a terminal `width` columns wide, its further
    lines indented under the first word (a hanging indent), so a long answer is neither cut at
    the edge nor folded under the pointer. `indent` is the width of what the menu draws first."""
    lines = _wrap(label, width - indent - 1)
    return ("\n" + " " * indent).join(lines)


def prompt_message(message: str, width: int, indent: int = PROMPT_INDENT, tail: str = "") -> str:
    """The question above a menu, wrapped at word boundaries (a terminal folds it mid-word),
    continuation lines under its first word. `tail` is what the menu prints after it (the
    key hint): when it would not fit on the last line, it gets a line of its own."""
    avail = width - indent - 1
    lines = _wrap(message, avail)
    text = ("\n" + " " * indent).join(lines)
    if tail and len(lines[-1]) + 1 + len(tail) > avail:
        text += "\n" + " " * (indent - 1)  # the menu adds one blank before the hint
    return text


def resume_hint(path: str) -> Text:
    import shlex

    return Text.assemble(("session saved: ", "bold"), path, "\ncontinue with: ", (f"triage ask --resume {shlex.quote(path)}", "bold cyan"))
