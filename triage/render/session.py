"""The terminal side of `triage ask`: the views, the display that prints a session's events, and
the arrow-key menus.

The session (triage.engine.session) decides what to show and when, as typed events; `RichDisplay`
draws each one with rich, and `QuestionaryPrompter` asks with questionary menus. The final cause
cards are `triage.render.card.cause_card`, the same cards `triage explain` shows. Of the engine this
module reads only triage.engine.report (the report types and the words for questions and answers)
and triage.engine.ports (the event types of the session's display port).
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from triage.engine.report import Answer, Candidate, Model, answer_label, question_text
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


def why_text(candidate: Candidate) -> Text:
    """Why a candidate is in the differential: its evidence, or its prior when it has none yet."""
    text = Text()
    if candidate.support:
        text.append("; ".join(candidate.support))
    else:
        prior = str(candidate.node.get("prior") or "uncommon")
        text.append(f"no direct evidence yet ({prior} cause, consistent with the answers)", style="dim")
    if candidate.against:
        text.append("\nagainst: ", style="bold red")
        text.append("; ".join(candidate.against), style="red")
    return text


def differential(ranked: list[Candidate], excluded: list[str] | None = None) -> RenderableType:
    """The ranked differential, with why each candidate is there."""
    from rich.table import Table

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
        body.append_text(why_text(c))
        table.add_row(str(i), c.id, Text.assemble((_bar(c.probability), "cyan"), f" {c.probability:4.0%}"), body)
    excluded = sorted(excluded or [])
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


# -- the display: a session's events, printed ------------------------------------------------------
class RichDisplay:
    """Prints a session's events (triage.engine.session) on a rich console, one method per event."""

    def __init__(self, console):
        from triage.engine import ports as S

        self.console = console
        self._draw = {
            S.Intro: self._intro, S.Asking: self._asking, S.Answered: self._answered, S.TextMatched: self._text_matched,
            S.Differential: self._differential, S.End: self._end, S.RuledOut: self._ruled_out,
            S.TookBack: self._took_back, S.Saved: self._saved, S.Quit: self._quit, S.SaveFailed: self._save_failed,
        }

    def show(self, event) -> None:
        self._draw[type(event)](event)

    def _print(self, renderable) -> None:
        if renderable is not None:
            self.console.print(renderable)

    def _say(self, markup: str) -> None:
        self.console.print(markup, highlight=False)

    def _intro(self, e) -> None:
        self._print(evidence_block(e.model, e.evidence, e.notes))
        for t in e.text:
            self._say(f"[green]✓[/] [bold]{t.source}:[/] {t.evidence}  [dim](points to {t.cause})[/]")
        if e.answered:
            self._say(f"[bold cyan]Answered already[/] ({len(e.answered)})")
            for a in e.answered:
                self._say(f"  [dim]{a.question}[/] {question_text(e.model, a.question)}")
                self._print(answered_line(e.model, a))
        if e.excluded:
            self._say(f"[dim]ruled out (not it): {', '.join(e.excluded)}[/]")

    def _asking(self, e) -> None:
        self._print(question_header(e.model, e.question, e.number))
        if e.echo:
            self._say(f"[bold]? {question_text(e.model, e.question)}[/]")

    def _answered(self, e) -> None:
        self._print(answered_line(e.model, e.answer))

    def _text_matched(self, e) -> None:
        if e.causes:
            self._say(f"[green]✓[/] matched your text: [bold]{', '.join(e.causes)}[/]")
        else:
            self._say("[yellow]Nothing matched that text;[/] the questions go on.")

    def _differential(self, e) -> None:
        self._print(differential(e.ranked, e.excluded))

    def _end(self, e) -> None:
        if not e.cards:
            self._say("[yellow]No candidate causes left: every cause was ruled out.[/] "
                      "Try `triage search WORDS` with the error text or what you see.")
            return
        self._print(final_view(e.kb, e.cards, e.rest))

    def _ruled_out(self, e) -> None:
        self._say(f"[dim]{e.cause} ruled out; going on with the remaining candidates.[/]")

    def _took_back(self, e) -> None:
        if e.answer is None:
            self._say("[yellow]Nothing to take back.[/]")
        else:
            a = e.answer
            self._say(f"[dim]took back: {a.question} = {answer_label(e.model, a.question, a.value)}[/]")

    def _saved(self, e) -> None:
        self._say(f"[dim]saved: {e.path} (and {e.also})[/]" if e.also else f"[dim]saved: {e.path}[/]")

    def _quit(self, e) -> None:
        if e.top:
            self._say("[bold]So far:[/] " + ", ".join(f"{c.id} {c.probability:.0%}" for c in e.top))
        if e.resume:
            self._print(resume_hint(e.resume))

    def _save_failed(self, e) -> None:
        self._say(f"[yellow]warning:[/] could not save the session: {e.message}")


# -- the menus -------------------------------------------------------------------------------------
class QuestionaryPrompter:
    """Arrow-key menus in the terminal (a `Prompter` of triage.engine.session). `input`/`output`
    go to prompt_toolkit (tests pass a pipe input and a DummyOutput)."""

    interactive = True

    def __init__(self, input=None, output=None):  # noqa: A002 - prompt_toolkit's names
        import questionary  # only here: it costs ~60 ms to import and is useless without a terminal

        self.q = questionary
        self.kwargs = {k: v for k, v in (("input", input), ("output", output)) if v is not None}

    def _select(self, message: str, options: list) -> str:
        import shutil

        n = len(options)
        width = shutil.get_terminal_size().columns  # labels wrap with a hanging indent, not cut at the edge
        indent = MENU_INDENT_SHORTCUTS if n <= 36 else MENU_INDENT_PLAIN
        choices: list = []
        seen_control = False
        for o in options:
            if o.control and not seen_control:
                choices.append(self.q.Separator("  ─────"))
                seen_control = True
            choices.append(self.q.Choice(title=option_title(o.label, width, indent), value=o.value))
        hint = "(↑/↓ or the number, then Enter)" if n <= 36 else "(↑/↓, then Enter)"
        value = self.q.select(
            prompt_message(message, width, tail=hint), choices=choices, use_shortcuts=n <= 36, use_jk_keys=False,
            instruction=hint, **self.kwargs,
        ).unsafe_ask()
        if value is None:  # pragma: no cover - unsafe_ask raises instead
            raise KeyboardInterrupt
        return value

    def ask(self, question: str, message: str, options: list) -> str:
        from triage.engine.ports import TEXT, text_reply

        while True:
            value = self._select(message, options)
            if value != TEXT:
                return value
            typed = self.q.text("Paste an error line, or say what you see in your own words:", **self.kwargs).unsafe_ask()
            if typed is None:  # pragma: no cover - unsafe_ask raises instead
                raise KeyboardInterrupt
            if typed.strip():
                return text_reply(typed)

    def finish(self, top: list, options: list) -> str:
        return self._select("Is it one of these?", options)
