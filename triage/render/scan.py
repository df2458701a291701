"""The human view of `triage scan`: what was read, findings, a chart, ranked causes."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from triage.engine.report import Report
from triage.render.chart import chart_width, line_chart
from triage.render.code import highlight
from triage.render.console import layout_width
from triage.render.layout import hang
from triage.render.numbers import step_text

KEY_SERIES = ("loss", "grad_norm", "reward", "rewards/margins", "eval/loss", "learning_rate")
LOG_SCALE = ("grad_norm", "loss_scale", "learning_rate")


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


def chart_target(report: Report):
    """The series to draw and the span to mark: the first finding's metric, else the loss."""
    run = report.run
    if run is None or not getattr(run, "series", None):
        return None, None
    for f in report.findings:
        s = run.get(f.metric)
        if s is not None and len(s) > 1:
            d = f.to_dict()  # the steps as the report states them (whole steps as int)
            return s, (d["first_step"], d["last_step"])
    for name in KEY_SERIES:
        s = run.get(name)
        if s is not None and len(s) > 1:
            return s, None
    return None, None


def render_scan(console: Console, report: Report, verbose: bool = False) -> None:
    """The whole terminal view of one scanned input, top to bottom."""
    _what_was_read(console, report)
    console.print()
    if _failed_probe_only(console, report) or _nothing_to_diagnose(console, report) or _healthy(console, report):
        return
    _findings(console, report)
    _error_text(console, report)
    _config(console, report)
    _chart(console, report, mark=True)
    _causes(console, report, verbose)
    _set_aside(console, report, verbose)
    _unanswered(console, report)


def _what_was_read(console: Console, report: Report) -> None:
    """Each source with its format and metrics, the framework that wrote it, reader warnings,
    notes about the evidence, and the verdict of every probe result."""
    for src in report.sources:
        metrics = src.metrics or []
        shown = ", ".join(metrics[:8]) + (f", +{len(metrics) - 8} more" if len(metrics) > 8 else "")
        skipped = f", {src.skipped:,} skipped" if src.skipped else ""
        console.print(
            f"[bold]{escape(str(src.path))}[/]  [dim]{escape(str(src.format))}, {src.rows or 0:,} rows{skipped}"
            + (f"; {escape(shown)}" if shown else "") + "[/]",
            highlight=False,
        )
        fw = src.context.framework if src.context is not None else None
        if fw is not None:
            console.print(f"[dim]written by {escape(fw.title)} ({escape(fw.because)})[/]", highlight=False)
    for w in report.warnings[:5]:
        console.print(f"[yellow]warning:[/] {escape(str(w))}", highlight=False)
    for note in report.notes:
        console.print(f"[yellow]note:[/] {escape(note)}", highlight=False)
    for p in report.probes:
        mark = {"fail": "[bold red]failed[/]", "pass": "[green]passed[/]"}.get(p.status, escape(p.status))
        message = f": {escape(p.message)}" if p.message else ""
        console.print(f"probe [bold]{escape(p.probe)}[/] {mark}{message}", highlight=False)


def _failed_probe_only(console: Console, report: Report) -> bool:
    """A failed probe whose answers matched no question: its message is the finding."""
    if report.healthy or report.causes or report.findings or not report.failed_probes():
        return False
    console.print("[bold red]A probe failed[/] but none of its answers matched a question of this knowledge "
                  "base, so no cause is ranked; the probe's message above is the finding.", highlight=False)
    return True


def _nothing_to_diagnose(console: Console, report: Report) -> bool:
    """Healthy only because nothing was read: say so, and how to see what the reader found."""
    if not report.healthy or report.run is None or getattr(report.run, "series", None):
        return False
    src = report.sources[0] if report.sources else None
    skipped = f" ({src.skipped:,} lines skipped)" if src is not None and src.skipped else ""
    path = src.path if src is not None else "PATH"
    console.print(f"[bold yellow]Nothing to diagnose:[/] no metric was read from this input{skipped} and no "
                  f"error text matched. `triage inspect {escape(str(path))}` shows what was read; "
                  "`--format` forces a reader.", highlight=False)
    return True


def _healthy(console: Console, report: Report) -> bool:
    if not report.healthy:
        return False
    console.print("[bold green]No problems found.[/] Every detector stayed quiet and no error text matched.")
    _chart(console, report, mark=False)
    return True


def _findings(console: Console, report: Report) -> None:
    if not report.findings:
        return
    console.print(f"[bold]Findings[/] ({len(report.findings)})")
    for i, f in enumerate(report.findings):
        d = f.to_dict()
        first, last = d["first_step"], d["last_step"]
        where = ""
        if first is not None:
            where = f"  [dim]steps {step_text(first)}-{step_text(last)}[/]" if last not in (None, first) \
                else f"  [dim]step {step_text(first)}[/]"
        console.print(hang(f"  [red]{i + 1}.[/] ", f"{escape(f.summary)}{where}", markup=True), highlight=False)
    console.print()


def _error_text(console: Console, report: Report) -> None:
    """One row per distinct error message, with how often it appears and the causes it names."""
    errors = report.error_matches
    if not errors:
        return
    console.print(f"[bold]Error text[/] ({len(errors)} match{'es' if len(errors) != 1 else ''})")
    for e in errors[:8]:
        line = f"line {e.line}: " if e.line else ""
        times = f" ({e.count} times)" if e.count > 1 else ""
        ids = e.causes or [e.cause]
        causes = ", ".join(ids[:4]) + (f" and {len(ids) - 4} more" if len(ids) > 4 else "")
        console.print(f"  [red]●[/] {escape(line + e.text[:140])}{times}  [dim]→ {escape(causes)}[/]", highlight=False)
    console.print()


def _config(console: Console, report: Report) -> None:
    """The settings read from the run's config, and the framework defaults taken as evidence."""
    if not (report.config_answers or report.defaults):
        return
    files: dict[str, list[str]] = {}
    for c in report.config_answers:
        files.setdefault(c.file, []).append(f"{c.key} = {c.value}")
    for name, read in files.items():
        console.print(f"[dim]From {escape(name)}:[/] {escape(', '.join(read))}", highlight=False)
    for d in report.defaults:
        console.print(f"[dim]{escape(d.framework)} default:[/] {escape(d.says)}", highlight=False)
    console.print()


def _chart(console: Console, report: Report, mark: bool) -> None:
    """The series the first finding rests on (its span marked), else a key series."""
    series, span = chart_target(report)
    if series is None:
        return
    width = chart_width(layout_width(console))
    if not mark:
        console.print(line_chart(series.steps, series.values, title=series.name, width=width))
        return
    positive = (series.values[series.values == series.values] > 0).all()
    console.print(line_chart(series.steps, series.values, title=series.name, mark=span, width=width,
                             log=series.name in LOG_SCALE and positive))


def _causes(console: Console, report: Report, verbose: bool) -> None:
    """The ranked causes: the findings each rests on by number, its other evidence, its first knob."""
    if not report.causes:
        return
    # a script read alone: no run to weigh the causes against, so no share of a differential is shown
    code_only = _code_only(report)
    console.print("[bold]Causes the code points to[/]" if code_only else "[bold]Most likely causes[/]")
    for i, c in enumerate(report.causes[:5 if not verbose else len(report.causes)]):
        share = "" if code_only else f"{c.score:.0%}"
        console.print(hang(Text(f" {i + 1}. ", style="bold"),
                           Text.assemble((c.id, "bold cyan"), f"  {c.title}  ", (share, "dim"))))
        refs = c.findings()
        if refs:
            console.print(hang("      ", f"[dim]because of finding {', '.join(str(r + 1) for r in refs)}[/]", markup=True))
        for ev in [e for e in c.evidence if e.finding is None][:3]:
            console.print(hang("      [dim]because[/] ", escape(ev.line()), markup=True), highlight=False)
        if c.fix:
            console.print(knob_lines(c.fix[0].knob, "      knob  "), soft_wrap=True)  # code is never wrapped
            if c.fix[0].expect:
                console.print(hang("      [dim]expect[/] ", escape(c.fix[0].expect), markup=True), highlight=False)
        console.print(f"      [dim]more: triage explain {c.id}[/]", highlight=False)
    console.print()


def _set_aside(console: Console, report: Report, verbose: bool) -> None:
    aside = [a for src in report.sources if src.context is not None for a in src.context.set_aside]
    if not aside:
        return
    console.print("[bold]Set aside[/] [dim](evidence points at them, but they cannot apply to this run)[/]")
    for a in aside[:5 if not verbose else len(aside)]:
        console.print(hang("  ", Text.assemble((a.id, "cyan"), f"  {a.title}")))
        console.print(hang("      ", Text(a.reason, style="dim")))
    console.print()


def _code_only(report: Report) -> bool:
    return bool(report.sources) and all(src.format == "python-code" for src in report.sources)


def _unanswered(console: Console, report: Report) -> None:
    if _code_only(report):
        console.print("[dim]Read as code only: give the run's log (with this script beside it) to judge the training "
                      "itself.[/]")
        return
    if not report.unanswered:
        return
    console.print("[bold]To narrow it down, check[/]")
    for q in report.unanswered[:3]:
        console.print(hang("  [dim]?[/] ", f"{escape(q.question)}  [dim]({q.id})[/]", markup=True), highlight=False)
    console.print("  [dim]or answer them interactively: triage ask --log <this log>[/]")


def summary_line(report: Report) -> str:
    """One line per input for a scan of several: its path and verdict, or why it failed."""
    path = report.path
    if report.failure is not None:
        return f"{path}: error: {report.failure}"
    if report.healthy:
        rows = report.sources[0].rows if report.sources else 0
        return f"{path}: healthy ({rows or 0:,} rows)"
    if not report.causes and not report.findings and report.probes:
        return f"{path}: probe failed ({', '.join(p.probe for p in report.failed_probes())})"
    top = report.causes[0] if report.causes else None
    cause = f"; top cause {top.id} ({top.title})" if top else ""
    return f"{path}: {len(report.findings)} finding(s){cause}"
