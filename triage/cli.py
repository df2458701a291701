"""The `triage` command line: parse arguments, call triage.api, render. No diagnosis logic here.

Exit codes: 0 ok / nothing found, 1 `scan` found problems, 2 usage, input or knowledge error,
130 interrupted. Data goes to stdout, messages to stderr.
"""

from __future__ import annotations

import sys
from enum import IntEnum
from typing import List, Optional

import typer

from triage import __version__


class ExitCode(IntEnum):
    OK = 0
    PROBLEMS = 1
    ERROR = 2
    INTERRUPTED = 130


app = typer.Typer(
    name="triage",
    help=(
        "Tell why a training run is broken and which knob fixes it.\n\n"
        "Start with `triage scan run.log` (read a log), `triage ask` (guided questions) or "
        "`triage explain O9` (one cause, with its fix)."
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
kb_app = typer.Typer(help="Check, list and draw the knowledge base.", no_args_is_help=True)
app.add_typer(kb_app, name="kb")

_state: dict = {"kb_dirs": []}


def _out():
    from rich.console import Console

    return Console(soft_wrap=False)


def _err():
    from rich.console import Console

    return Console(stderr=True)


def fail(message: str, code: ExitCode = ExitCode.ERROR) -> typer.Exit:
    """Print one line on stderr and return the exit to raise."""
    _err().print(f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True)
    return typer.Exit(int(code))


def _kb():
    from triage import api

    try:
        return api.load_kb(_state["kb_dirs"])
    except api.TriageError as exc:
        raise fail(str(exc)) from None


def _print_json(doc) -> None:
    import json

    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"triage {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    kb: Optional[List[str]] = typer.Option(
        None, "--kb", metavar="DIR",
        help="Extra knowledge folder layered over the built-in one (repeatable; also TRIAGE_KB_PATH).",
    ),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    _state["kb_dirs"] = list(kb or [])


# -- explain / search ------------------------------------------------------------------------
@app.command()
def explain(
    node_id: str = typer.Argument(..., metavar="ID", help="A cause (O9, L3, S-nan), question (Q-start) or probe name."),
    as_json: bool = typer.Option(False, "--json", help="Print the node as one JSON document."),
) -> None:
    """Show one node as a card: symptoms, why, the knob with its range, what to expect, what next."""
    from triage import api

    kb = _kb()
    try:
        node = api.explain(kb, node_id)
    except api.UnknownID as exc:
        raise fail(str(exc)) from None
    if as_json:
        from triage.render.card import node_json

        _print_json(node_json(kb, node))
        return
    from triage.render.card import render_node

    render_node(_out(), kb, node)


@app.command()
def search(
    text: List[str] = typer.Argument(..., metavar="TEXT", help="Words, a symptom in plain language, or an error line."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="How many results."),
    as_json: bool = typer.Option(False, "--json", help="Print the ranking as one JSON document."),
) -> None:
    """Rank causes and questions by relevance to TEXT (titles, symptoms, mechanisms, knobs, error text)."""
    from triage import api

    kb = _kb()
    query = " ".join(text)
    hits = api.search(kb, query, limit=limit)
    if as_json:
        _print_json({
            "query": query,
            "results": [
                {"id": h.node.id, "kind": h.node.kind, "title": h.node.title, "score": h.score,
                 "matched": h.terms, **({"error_pattern": h.error_match} if h.error_match else {})}
                for h in hits
            ],
        })
        return
    if not hits:
        _err().print(f"nothing in the knowledge base matches {query!r}")
        return
    from rich.table import Table

    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("ID", style="bold", no_wrap=True)
    table.add_column("kind", style="dim")
    table.add_column("title")
    table.add_column("score", justify="right", style="dim")
    for h in hits:
        title = h.node.title + ("  [yellow](error text matches)[/]" if h.error_match else "")
        table.add_row(h.node.id, h.node.kind, title, f"{h.score:.1f}")
    out = _out()
    out.print(table)
    out.print(f"\n[dim]more: triage explain {hits[0].node.id}[/]", highlight=False)


# -- kb ----------------------------------------------------------------------------------------
@kb_app.command("check")
def kb_check(
    as_json: bool = typer.Option(False, "--json", help="Print problems as one JSON document."),
) -> None:
    """Validate every node: schema, IDs, links, reachability, cycles, knobs, fixtures, regexes."""
    from triage.kb.base import KnowledgeBase
    from triage.kb.validate import check

    kb = KnowledgeBase.load(_state["kb_dirs"], use_cache=False)
    problems = check(kb)
    errors = [p for p in problems if p.severity == "error"]
    warnings = [p for p in problems if p.severity != "error"]
    if as_json:
        _print_json({
            "ok": not errors,
            "nodes": len(kb.nodes),
            "problems": [{"path": p.path, "line": p.line, "id": p.node, "severity": p.severity, "message": p.message} for p in problems],
        })
    else:
        err = _err()
        for p in problems:
            err.print(p.format(), highlight=False, markup=False, soft_wrap=True)
        counts: dict[str, int] = {}
        for node in kb.nodes.values():
            counts[node.kind] = counts.get(node.kind, 0) + 1
        summary = ", ".join(f"{n} {k}s" for k, n in sorted(counts.items()))
        verdict = "ok" if not errors else f"{len(errors)} error(s)"
        extra = f", {len(warnings)} warning(s)" if warnings else ""
        err.print(f"{verdict}{extra}: {summary}", highlight=False)
    if errors:
        raise typer.Exit(int(ExitCode.ERROR))


@kb_app.command("list")
def kb_list(
    kind: Optional[str] = typer.Option(None, "--kind", help="Only this kind: cause, symptom, detector, probe, checklist."),
    as_json: bool = typer.Option(False, "--json", help="Print the list as one JSON document."),
) -> None:
    """List every node with its kind, family and title."""
    kb = _kb()
    nodes = sorted(kb.nodes.values(), key=lambda n: (n.kind, n.id))
    if kind:
        nodes = [n for n in nodes if n.kind == kind]
    if as_json:
        _print_json([
            {"id": n.id, "kind": n.kind, "family": n.get("family"), "title": n.title,
             "domains": [str(d) for d in (n.get("domains") or [])], "path": n.path}
            for n in nodes
        ])
        return
    from rich.table import Table

    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("ID", "kind", "family", "title"):
        table.add_column(col, no_wrap=col != "title", style="bold" if col == "ID" else None)
    for n in nodes:
        table.add_row(n.id, n.kind, str(n.get("family") or ""), n.title)
    _out().print(table)


@kb_app.command("graph")
def kb_graph(
    fmt: str = typer.Option("mermaid", "--format", "-f", help="mermaid, dot or json."),
) -> None:
    """Print the decision graph (questions -> follow-ups -> causes) for drawing or tooling."""
    from triage import api

    if fmt not in ("mermaid", "dot", "json"):
        raise fail(f"unknown graph format {fmt!r}: use mermaid, dot or json")
    sys.stdout.write(api.graph(_kb()).dumps(fmt))


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        _err().print("interrupted")
        sys.exit(int(ExitCode.INTERRUPTED))
    except BrokenPipeError:  # `triage kb list | head`
        sys.stderr.close()
        sys.exit(0)
