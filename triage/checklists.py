"""Printable checklists: load them from the knowledge base and hand them to a renderer.

    >>> from triage import api, checklists
    >>> kb = api.load_kb()
    >>> cl = checklists.load(kb, "preflight")
    >>> checklists.render(cl, "md")          # text | md | html  (pdf: triage.render.pdf)

The checklists and the to-do list of a report (`fix_plan`) are data built in the knowledge layer
(triage.kb.checklists, re-exported here); this module prints them: text in the terminal, Markdown,
HTML and PDF through the renderers.
"""

from __future__ import annotations

from pathlib import Path

from triage.errors import TriageError
from triage.kb.checklists import (  # noqa: F401 - the data side, re-exported for `triage.checklists.X` callers
    GENERAL_ORDER,
    Checklist,
    Item,
    Link,
    Section,
    Step,
    UnknownChecklist,
    all_checklists,
    fix_plan,
    from_node,
    load,
    make_link,
    node_url,
    nodes,
)

class ChecklistError(TriageError, ValueError):
    """A format or paper size that does not exist, or a sheet that cannot be printed (exit 2)."""


def render(checklist: Checklist, fmt: str, paper: str | None = None) -> str:
    """Markdown or standalone HTML as a string (`text` is drawn by `print_text`, `pdf` is
    printed by triage.render.pdf)."""
    if fmt == "md":
        from triage.render.markdown import render_checklist_md

        return render_checklist_md(checklist)
    if fmt == "html":
        from triage.render.html import render_checklist_html

        return render_checklist_html(checklist, paper=paper)
    raise ChecklistError(f"render() makes md or html, not {fmt!r}")


def export(checklist: Checklist, fmt: str, out: str | Path | None, paper: str | None = None,
           force: bool = False) -> Path | None:
    """Write md / html / pdf to `out` (md and html to stdout when `out` is None; pdf then goes to
    NAME.pdf in the current folder). Returns the file written, or None for stdout. Raises
    ChecklistError for a bad format or paper, triage.writeout.OutputError for a target that cannot
    be written (a folder, a missing folder: none is made; an existing file without `force`), and
    triage.render.pdf.PdfUnavailable without a browser (all of them TriageErrors)."""
    import sys

    from triage.writeout import OutputError, check_target, write_text

    if fmt not in ("md", "html", "pdf"):
        raise ChecklistError(f"unknown format {fmt!r}: use text, md, html or pdf")
    if paper is not None and paper not in ("a4", "letter"):
        raise ChecklistError(f"unknown paper {paper!r}: use a4 or letter")
    if fmt == "pdf":
        from triage.render.html import render_checklist_html
        from triage.render.pdf import html_to_pdf

        target = check_target(Path(out) if out else Path(f"{checklist.id}.pdf"), force=force, what="checklist -o")
        try:
            return html_to_pdf(render_checklist_html(checklist, paper=paper or "a4"), target)
        except OSError as exc:  # the copy out of the browser's folder
            raise OutputError(f"checklist -o {target}: cannot write ({exc.strerror or exc})") from None
    text = render(checklist, fmt, paper=paper)
    if out is None or str(out) == "-":
        sys.stdout.write(text)
        return None
    target = check_target(out, force=force, what="checklist -o")
    return write_text(target, text, what="checklist -o")


def print_text(console, checklist: Checklist) -> None:
    """The checklist in the terminal (rich): boxes, numbers, why / check / healthy range, links.

    Print it through `triage.render.console.out_console` (as the command line does): rich pads
    every grid cell to its column's width, and that console strips the padding at line ends."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    console.print(Text(checklist.title, style="bold"))
    if checklist.description:
        console.print(Text(checklist.description, style="dim"))
    for section in checklist.sections:
        console.print()
        console.print(Text(f"{section.number}. {section.title}", style="bold cyan"))
        if section.note:
            console.print(Text(section.note, style="dim italic"))
        grid = Table.grid(padding=(0, 1))
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True, style="dim")
        grid.add_column(ratio=1)
        for item in section.items:
            facts = Table.grid(padding=(0, 1))
            facts.add_column(style="dim", no_wrap=True, min_width=len("healthy"))  # one indent for every item
            facts.add_column(ratio=1)
            for label, value in (("why", item.why), ("check", item.check), ("healthy", item.range)):
                if value:
                    facts.add_row(label, value)
            if item.links:
                refs = Text()
                for n, link in enumerate(item.links):
                    if n:
                        refs.append(" · ")
                    refs.append(link.id, style="bold")
                    refs.append(f" {_short_title(link.title)}")
                facts.add_row("see", refs)
            grid.add_row("[ ]", item.number, Group(Text(item.text), facts))
        console.print(grid)
    console.print()
    console.print(Text(f"triage explain ID shows a linked node; triage checklist {checklist.id} --format pdf prints the sheet.",
                       style="dim"))


def _short_title(title: str, limit: int = 60) -> str:
    return title if len(title) <= limit else title[: limit - 1].rstrip() + "…"
