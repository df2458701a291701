"""The views of `triage sweep`: the terminal report and an offline HTML page with one small chart
per run for each cause group (small multiples: the same metric, the same size, side by side, so a
group's shared shape shows at a glance).

Both read only the finished `SweepSummary` (triage/sweep/summary.py), never the runs' data. They
live with the sweep rather than in triage.render because they draw a sweep's own type; they use the
renderers' HTML parts (triage.render.html) as any caller above the render layer may.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from triage.sweep.summary import ERROR, HEALTHY, NO_CAUSE, SweepSummary

VERDICT_STYLE = {"healthy": ("ok ", "green"), "broken": ("bad", "red"), "unreadable": ("err", "yellow")}


def _rate(summary: SweepSummary) -> str:
    n = len(summary.runs)
    if not summary.elapsed_s:
        return ""
    return f"{summary.elapsed_s:.1f} s, {n / summary.elapsed_s:.1f} runs/s"


def headline(summary: SweepSummary) -> str:
    c = summary.counts
    how = f"{summary.workers} {summary.executor}" if summary.executor not in ("", "serial") else "1 process"
    if summary.executor == "ray":
        how = f"Ray, {summary.workers} CPUs"
    return (f"{c['runs']:,} runs: {c['healthy']:,} healthy, {c['broken']:,} broken, {c['unreadable']:,} unreadable"
            f"  ({how}; {_rate(summary)})")


def _group_title(summary: SweepSummary, key: str) -> str:
    g = summary.groups.get(key)
    return g.title if g else key


def render_sweep(console: Console, summary: SweepSummary, limit: int = 40) -> None:
    """Headline, the runs (the broken and unreadable ones first when there are more than `limit`),
    the groups by cause, and what separates the broken runs from the healthy ones."""
    console.print(f"[bold]sweep[/] {escape(summary.source)}", highlight=False)
    console.print(escape(headline(summary)), highlight=False)

    runs = summary.runs
    shown = runs if len(runs) <= limit else (
        [r for r in runs if r.verdict != "healthy"][:limit])
    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold", title=None)
    table.add_column("", no_wrap=True)
    table.add_column("run", no_wrap=True, overflow="fold")
    table.add_column("top cause", no_wrap=True)
    table.add_column("evidence", overflow="fold")
    for r in shown:
        mark, style = VERDICT_STYLE[r.verdict]
        cause = "" if r.group in (HEALTHY, ERROR) else ("(none ranked)" if r.group == NO_CAUSE else r.group)
        table.add_row(f"[{style}]{mark}[/]", escape(r.name), escape(cause), escape(r.note))
    console.print()
    console.print(table)
    if len(shown) < len(runs):
        rest = len(runs) - len(shown)
        console.print(f"[dim]... {rest:,} more runs not listed ({summary.counts['healthy']:,} healthy); "
                      "--json lists every run[/]", highlight=False)

    console.print("\n[bold]By cause[/]", highlight=False)
    for g in summary.ordered_groups():
        names = [runs[i].name for i in g.runs[:6]]
        more = f", +{len(g.runs) - 6:,} more" if len(g.runs) > 6 else ""
        label = g.key if g.key not in (HEALTHY, ERROR, NO_CAUSE) else ""
        style = {"healthy": "green", ERROR: "yellow"}.get(g.key, "red")
        console.print(f"  [{style}]{escape(label or g.title):<22}[/] {len(g.runs):>6,} run{'s' if len(g.runs) != 1 else ' '}  "
                      f"{escape(g.title if label else '')}", highlight=False, soft_wrap=True)
        console.print(f"  {'':<22} [dim]{escape(', '.join(names) + more)}[/]", highlight=False, soft_wrap=True)

    console.print("\n[bold]What separates broken runs from healthy ones[/]", highlight=False)
    if not summary.separating:
        why = ("no runs are broken" if not summary.counts["broken"] else
               "no group of two or more broken runs to compare" if summary.counts["healthy"] else
               "no healthy runs to compare with")
        console.print(f"  [dim]{why}[/]", highlight=False)
    for sep in summary.separating:
        head = f"{sep.group}" if sep.group == "broken" else f"{sep.group} ({escape(_group_title(summary, sep.group))})"
        console.print(f"  [bold]{escape(head)}[/]: {sep.n_group} vs {sep.n_healthy} healthy", highlight=False, soft_wrap=True)
        for sentence in sep.sentences():
            style = "" if sep.rules else "dim"
            console.print(f"    [{style or 'default'}]{escape(sentence)}[/]", highlight=False, soft_wrap=True)


# ------------------------------------------------------------------------------------------ HTML
SWEEP_CSS = """
.multiples { display: grid; grid-template-columns: repeat(3, 1fr); gap: 2mm; margin: 0 0 3mm; }
.multiples figure { margin: 0; break-inside: avoid; page-break-inside: avoid; }
.multiples svg { width: 100%; height: auto; display: block; }
.multiples figcaption { font-size: 7pt; color: var(--dim); overflow-wrap: anywhere; }
ul.rules { margin: 0 0 2mm; padding-left: 5mm; }
ul.rules li { margin: 0 0 .8mm; }
.names { font-size: 8pt; color: var(--dim); overflow-wrap: anywhere; }
"""


def render_sweep_html(summary: SweepSummary, max_rows: int = 2000, title: str | None = None) -> str:
    """The sweep as one offline HTML page: counts, what separates the broken runs, then per cause
    group a grid of small charts (each run's charted metric) and its runs, then every run."""
    from datetime import datetime, timezone

    from triage import __version__
    from triage.render.html import _document, esc, svg_chart

    c = summary.counts
    title = title or "triage sweep report"
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    badge = "ok" if not c["broken"] and not c["unreadable"] else "bad"
    out = [f"<header>\n<h1>{esc(title)}</h1>\n<p><span class=\"badge {badge}\">{c['broken']:,} broken</span> "
           f"{esc(headline(summary))}</p>\n<p class=\"meta\">{esc(summary.source)} · triage {esc(__version__)} · made {esc(stamp)} · "
           "one self-contained file: no scripts, no network.</p>\n</header>\n"]

    out.append("<section>\n<h2 id=\"groups\">Runs by cause</h2>\n<table class=\"grid\"><thead><tr><th>group</th>"
               "<th>what</th><th>runs</th></tr></thead><tbody>\n")
    for g in summary.ordered_groups():
        out.append(f"<tr><td><a href=\"#g-{esc(g.key)}\"><b>{esc(g.key)}</b></a></td><td>{esc(g.title)}</td>"
                   f"<td>{len(g.runs):,}</td></tr>\n")
    out.append("</tbody></table>\n</section>\n")

    out.append("<section>\n<h2 id=\"separating\">What separates broken runs from healthy ones</h2>\n")
    if not summary.separating:
        out.append("<p class=\"desc\">No group of two or more broken runs to compare with healthy runs.</p>\n")
    for sep in summary.separating:
        out.append(f"<h3>{esc(sep.group)} <span class=\"meta\">{sep.n_group} runs vs {sep.n_healthy} healthy · "
                   f"{sep.keys_tried} keys, {sep.rules_tried} rules tried</span></h3>\n<ul class=\"rules\">"
                   + "".join(f"<li>{esc(s)}</li>" for s in sep.sentences()) + "</ul>\n")
    out.append("</section>\n")

    for g in summary.ordered_groups():
        out.append(f"<section class=\"group\" id=\"g-{esc(g.key)}\">\n<h2>{esc(g.key)} · {esc(g.title)} "
                   f"<span class=\"meta\">{len(g.runs):,} run{'s' if len(g.runs) != 1 else ''}</span></h2>\n")
        if g.charts:
            metric = g.chart_metric()
            shown = f"the first {len(g.charts)} of {len(g.runs):,} runs" if len(g.charts) < len(g.runs) else "each run"
            out.append(f"<p class=\"sec-note\">{esc(shown)}: <code>{esc(metric)}</code>, the metric most of them "
                       "chart first (the first finding's, else the loss); red triangles are NaN/Inf.</p>\n"
                       "<div class=\"multiples\">\n")
            for name, series in g.charts:
                got = dict(series)
                m = metric if metric in got else series[0][0]
                out.append(f"<figure>{svg_chart(m, got[m], None, width=380, height=170)}"
                           f"<figcaption>{esc(name)}</figcaption></figure>\n")
            out.append("</div>\n")
        names = [summary.runs[i].name for i in g.runs[:300]]
        more = f" … and {len(g.runs) - 300:,} more" if len(g.runs) > 300 else ""
        out.append(f"<p class=\"names\">{esc(', '.join(names))}{esc(more)}</p>\n</section>\n")

    out.append("<section>\n<h2 id=\"runs\">Every run</h2>\n<table class=\"grid\"><thead><tr><th>run</th><th>verdict</th>"
               "<th>top cause</th><th>evidence</th></tr></thead><tbody>\n")
    for r in summary.runs[:max_rows]:
        cause = "" if r.group in (HEALTHY, ERROR, NO_CAUSE) else r.group
        out.append(f"<tr><td><code>{esc(r.name)}</code></td><td>{esc(r.verdict)}</td><td>{esc(cause)}</td>"
                   f"<td>{esc(r.note)}</td></tr>\n")
    out.append("</tbody></table>\n")
    if len(summary.runs) > max_rows:
        out.append(f"<p class=\"sec-note\">{len(summary.runs) - max_rows:,} more runs: `triage sweep --json` lists every run.</p>\n")
    out.append("</section>\n<footer>made by <code>triage sweep</code>; charts are inline SVG and the page fetches nothing.</footer>\n")
    return _document(title, "".join(out), None, SWEEP_CSS)


def write_sweep_html(summary: SweepSummary, target: str) -> str:
    """Write the HTML report atomically with a shareable mode (triage.writeout: no half-written
    page); raises OutputError (a TriageError) for a target that cannot be written."""
    from triage.writeout import check_target, write_text

    path = check_target(target, what="--report")
    return str(write_text(path, render_sweep_html(summary), what="--report"))
