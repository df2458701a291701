"""The human view of `triage scan`: what was read, findings, a chart, ranked causes."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from triage.render.chart import chart_width, line_chart
from triage.render.console import layout_width
from triage.render.layout import hang
from triage.render.code import highlight

KEY_SERIES = ("loss", "grad_norm", "reward", "rewards/margins", "eval/loss", "learning_rate")


def _step(x) -> str:
    if x is None:
        return "?"
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def knob_lines(knob: str, label: str) -> Text:
    """A knob in full after `label`, its further lines aligned under the first (never cut to
    its first line with an ellipsis: the missing lines are usually the ones that matter)."""
    lines = str(knob).strip("\n").splitlines() or [""]
    indent = len(lines[0]) - len(lines[0].lstrip())
    lines = [ln[indent:] if ln[:indent].isspace() else ln.lstrip() for ln in lines]
    out = Text(label, style="dim")
    out.append_text(highlight(lines[0]))
    for line in lines[1:]:
        out.append("\n" + " " * len(label))
        out.append_text(highlight(line))
    return out


def chart_target(doc: dict):
    """The series to draw and the span to mark: the first finding's metric, else the loss."""
    run = doc.get("_run")
    if run is None or not getattr(run, "series", None):
        return None, None
    for f in doc.get("findings", []):
        s = run.get(f["metric"])
        if s is not None and len(s) > 1:
            return s, (f.get("first_step"), f.get("last_step"))
    for name in KEY_SERIES:
        s = run.get(name)
        if s is not None and len(s) > 1:
            return s, None
    return None, None


def render_scan(console: Console, doc: dict, verbose: bool = False) -> None:
    for src in doc["sources"]:
        metrics = src.get("metrics") or []
        shown = ", ".join(metrics[:8]) + (f", +{len(metrics) - 8} more" if len(metrics) > 8 else "")
        skipped = f", {src['skipped']:,} skipped" if src.get("skipped") else ""
        console.print(
            f"[bold]{escape(str(src['path']))}[/]  [dim]{escape(str(src.get('format')))}, {src.get('rows', 0):,} rows{skipped}"
            + (f"; {escape(shown)}" if shown else "") + "[/]",
            highlight=False,
        )
        ctx = src.get("context") or {}
        if ctx.get("framework"):
            fw = ctx["framework"]
            console.print(f"[dim]written by {escape(fw['title'])} ({escape(fw['because'])})[/]", highlight=False)
    applied = doc.get("_applied")
    run = doc.get("_run")
    if run is not None:
        for w in (run.meta.get("warnings") or [])[:5]:
            console.print(f"[yellow]warning:[/] {escape(str(w))}", highlight=False)
    if applied is not None:
        for note in applied.notes:
            console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    for p in doc.get("probes") or []:
        mark = {"fail": "[bold red]failed[/]", "pass": "[green]passed[/]"}.get(str(p.get("status")), escape(str(p.get("status"))))
        message = f": {escape(str(p['message']))}" if p.get("message") else ""
        console.print(f"probe [bold]{escape(str(p.get('probe')))}[/] {mark}{message}", highlight=False)
    console.print()
    if not doc["healthy"] and not doc.get("causes") and not doc.get("findings") \
            and any(p.get("status") == "fail" for p in doc.get("probes") or []):
        console.print("[bold red]A probe failed[/] but none of its answers matched a question of this knowledge "
                      "base, so no cause is ranked; the probe's message above is the finding.", highlight=False)
        return

    if doc["healthy"] and run is not None and not getattr(run, "series", None):
        src = doc["sources"][0] if doc.get("sources") else {}
        skipped = f" ({src.get('skipped', 0):,} lines skipped)" if src.get("skipped") else ""
        console.print(f"[bold yellow]Nothing to diagnose:[/] no metric was read from this input{skipped} and no "
                      f"error text matched. `triage inspect {escape(str(src.get('path', 'PATH')))}` shows what was read; "
                      "`--format` forces a reader.", highlight=False)
        return
    if doc["healthy"]:
        console.print("[bold green]No problems found.[/] Every detector stayed quiet and no error text matched.")
        if run is not None and getattr(run, "series", None):
            s, _ = chart_target(doc)
            if s is not None:
                console.print(line_chart(s.steps, s.values, title=s.name, width=chart_width(layout_width(console))))
        return

    findings = doc.get("findings", [])
    numbered = {f["summary"]: i + 1 for i, f in enumerate(findings)}
    if findings:
        console.print(f"[bold]Findings[/] ({len(findings)})")
        for i, f in enumerate(findings):
            where = ""
            if f.get("first_step") is not None:
                where = f"  [dim]steps {_step(f['first_step'])}-{_step(f.get('last_step'))}[/]" if f.get("last_step") not in (None, f["first_step"]) else f"  [dim]step {_step(f['first_step'])}[/]"
            console.print(hang(f"  [red]{i + 1}.[/] ", f"{escape(f['summary'])}{where}", markup=True), highlight=False)
        console.print()
    if applied is not None and applied.errors:
        console.print(f"[bold]Error text[/] ({len(applied.errors)} match{'es' if len(applied.errors) != 1 else ''})")
        for e in applied.errors[:8]:  # one row per distinct message, with how often it appears
            line = f"line {e['line']}: " if e.get("line") else ""
            times = f" ({e['count']} times)" if e.get("count", 1) > 1 else ""
            ids = e.get("causes") or [e["cause"]]
            causes = ", ".join(ids[:4]) + (f" and {len(ids) - 4} more" if len(ids) > 4 else "")
            console.print(f"  [red]●[/] {escape(line + e['text'][:140])}{times}  [dim]→ {escape(causes)}[/]", highlight=False)
        console.print()
    if applied is not None and (applied.config or applied.defaults):
        files: dict[str, list[str]] = {}
        for c in applied.config:
            files.setdefault(c["file"], []).append(f"{c['key']} = {c['value']}")
        for name, read in files.items():
            console.print(f"[dim]From {escape(name)}:[/] {escape(', '.join(read))}", highlight=False)
        for d in applied.defaults:
            console.print(f"[dim]{escape(d['framework'])} default:[/] {escape(d['says'])}", highlight=False)
        console.print()
    series, mark = chart_target(doc)
    if series is not None:
        console.print(line_chart(series.steps, series.values, title=series.name, mark=mark,
                                 width=chart_width(layout_width(console)),
                                 log=series.name in ("grad_norm", "loss_scale", "learning_rate") and (series.values[series.values == series.values] > 0).all()))

    causes = doc.get("causes", [])
    if causes:
        console.print("[bold]Most likely causes[/]")
        for i, c in enumerate(causes[:5 if not verbose else len(causes)]):
            console.print(hang(Text(f" {i + 1}. ", style="bold"),
                               Text.assemble((c["id"], "bold cyan"), f"  {c['title']}  ", (f"{c['score']:.0%}", "dim"))))
            refs, others = [], []
            for ev in c["evidence"]:
                base = ev.rsplit(" (", 1)[0]
                if base in numbered:
                    refs.append(numbered[base])
                else:
                    others.append(ev)
            if refs:
                console.print(hang("      ", f"[dim]because of finding {', '.join(str(r) for r in sorted(set(refs)))}[/]", markup=True))
            for ev in others[:3]:
                console.print(hang("      [dim]because[/] ", escape(ev), markup=True), highlight=False)
            if c["fix"]:
                console.print(knob_lines(c["fix"][0]["knob"], "      knob  "), soft_wrap=True)  # code is never wrapped
                if c["fix"][0].get("expect"):
                    console.print(hang("      [dim]expect[/] ", escape(c['fix'][0]['expect']), markup=True), highlight=False)
            console.print(f"      [dim]more: triage explain {c['id']}[/]", highlight=False)
        console.print()
    aside = [a for src in doc.get("sources", []) for a in (src.get("context") or {}).get("set_aside", [])]
    if aside:
        console.print("[bold]Set aside[/] [dim](evidence points at them, but they cannot apply to this run)[/]")
        for a in aside[:5 if not verbose else len(aside)]:
            console.print(hang("  ", Text.assemble((a["id"], "cyan"), f"  {a['title']}")))
            console.print(hang("      ", Text(a["reason"], style="dim")))
        console.print()
    unanswered = doc.get("unanswered", [])
    if unanswered:
        console.print("[bold]To narrow it down, check[/]")
        for q in unanswered[:3]:
            console.print(hang("  [dim]?[/] ", f"{escape(q['question'])}  [dim]({q['id']})[/]", markup=True), highlight=False)
        console.print("  [dim]or answer them interactively: triage ask --log <this log>[/]")


def summary_line(doc: dict) -> str:
    src = doc["sources"][0] if doc.get("sources") else {"path": "?"}
    if doc.get("error"):
        return f"{src['path']}: error: {doc['error']}"
    if doc["healthy"]:
        return f"{src['path']}: healthy ({src.get('rows', 0):,} rows)"
    if not doc.get("causes") and not doc.get("findings") and doc.get("probes"):
        failed = [str(p.get("probe")) for p in doc["probes"] if p.get("status") == "fail"]
        return f"{src['path']}: probe failed ({', '.join(failed)})"
    top = doc["causes"][0] if doc.get("causes") else None
    nf = len(doc.get("findings", []))
    cause = f"; top cause {top['id']} ({top['title']})" if top else ""
    return f"{src['path']}: {nf} finding(s){cause}"


def error_doc(path: str, message: str, outcome: str | None = None) -> dict:
    """The `scan --json` document of an input that could not be scanned: the usual keys, empty,
    with `errors` naming the path and why, so `scan --json PATH | jq` always gets one document
    (and an array of them for several paths) instead of empty input."""
    from triage import __version__

    doc = {"version": __version__, "sources": [{"path": path}], "findings": [], "causes": [], "unanswered": [],
           "healthy": False, "error": message, "errors": [{"path": path, "error": message}]}
    if outcome:
        doc["outcome"] = outcome
    return doc
