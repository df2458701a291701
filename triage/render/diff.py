"""`triage diff` output: the terminal view, Markdown and a standalone HTML page.

All three read the `diff --json` document (triage.engine.diff.diff_runs); the HTML page adds
overlay charts of GOOD and BAD (inline SVG, no script, opens offline) for the metrics that part
first, with the parting step marked.
"""

from __future__ import annotations

import math

from rich.markup import escape
from rich.text import Text

ROLE_TEXT = {
    "question": "the knowledge reads it",
    "setting": "a training setting",
    "knob": "a knob some causes name",
    "seed": "the seed: changes the noise, not the maths",
    "bookkeeping": "bookkeeping: names, folders, logging",
    "other": "not in the knowledge",
}


def _step(x) -> str:
    if x is None:
        return "-"
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    return str(int(f)) if f.is_integer() else f"{f:g}"


def _num(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    f = float(x)
    if f == 0:
        return "0"
    if abs(f) >= 1e4 or abs(f) < 1e-3:
        return f"{f:.3g}"
    return f"{f:.4g}"


def _value(v) -> str:
    if v is None:
        return "unset"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def parting_text(m: dict) -> str:
    """'higher, 8.1x' / 'turned non-finite' / 'same within noise' for one metric row."""
    if not m.get("parted"):
        return m.get("note") or "same within noise"
    if m.get("direction") == "non-finite":
        return "turned non-finite"
    if m.get("direction") == "finite":
        return "finite where GOOD is not"
    ratio = m.get("ratio")
    extra = f", {float(ratio):.3g}x" if isinstance(ratio, (int, float)) and math.isfinite(float(ratio)) else ""
    return f"{m.get('direction')}{extra} ({_num(m.get('good'))} → {_num(m.get('bad'))})"


def change_text(c: dict, kb=None) -> str:
    """What the knowledge makes of one changed key."""
    if c.get("question"):
        q = c["question"]
        title = kb[q].title if kb is not None and q in kb.nodes else q
        a = c.get("answers") or {}
        return f"answers “{title}”: {a.get('good') or '?'} → {a.get('bad') or '?'}"
    if c.get("setting"):
        return f"framework setting: {c['setting']}"
    return ROLE_TEXT.get(c.get("role", "other"), "")


# -- terminal -------------------------------------------------------------------------------------
def render_diff(console, doc: dict, kb=None, verbose: bool = False) -> None:
    for label in ("good", "bad"):
        s = doc[label]
        cfg = f"; config {escape(str(s['config']))}" if s.get("config") else "; no config found beside it"
        console.print(f"[bold]{label.upper():<4}[/] {escape(str(s['path']))}  [dim]{escape(str(s.get('format')))}, "
                      f"{s.get('rows', 0):,} rows{cfg}[/]", highlight=False, soft_wrap=True)
    for run in (doc.get("_good"), doc.get("_bad")):
        for w in ((run.meta.get("warnings") or [])[:3] if run is not None else []):
            console.print(f"[yellow]warning:[/] {escape(str(w))}", highlight=False)
    console.print()
    style = "bold red" if doc["parted"] else "bold green"
    console.print(Text(doc["headline"], style=style))
    console.print()

    metrics = doc.get("metrics") or []
    if metrics:
        from rich.table import Table

        console.print("[bold]Where the runs part[/] [dim](smoothed difference beyond both runs' own noise, "
                      "held for a window of points)[/]", highlight=False)
        table = Table(box=None, header_style="bold", pad_edge=False, show_edge=False)
        for col in ("metric", "parts at", "BAD vs GOOD", "noise GOOD / BAD"):
            table.add_column(col, no_wrap=col != "BAD vs GOOD")
        shown = metrics if verbose else metrics[:10]
        for m in shown:
            at = f"step {_step(m['step'])}" if m.get("parted") else "-"
            noise = f"{_num(m.get('noise_good'))} / {_num(m.get('noise_bad'))}" if m.get("noise_good") is not None else ""
            table.add_row(Text(m["metric"], style="bold red" if m.get("parted") else ""), at, parting_text(m), noise)
        console.print(table)
        if len(metrics) > len(shown):
            console.print(f"[dim]  … {len(metrics) - len(shown)} more (--verbose)[/]", highlight=False)
        for label, names in (("only GOOD logs", doc.get("only_good")), ("only BAD logs", doc.get("only_bad"))):
            if names:
                console.print(f"[dim]  {label}: {escape(', '.join(names[:10]))}[/]", highlight=False)
        console.print()
        first = doc.get("first")
        if first and doc.get("_diffs") is not None:
            _chart_pair(console, doc, first["metric"], first.get("step"))

    config = doc.get("config") or {}
    changes = config.get("changes") or []
    if changes:
        console.print("[bold]Config differences[/] [dim](GOOD → BAD; the likeliest culprit first)[/]", highlight=False)
        for c in changes[: len(changes) if verbose else 12]:
            mark = "[bold red]▶[/]" if c["key"] == config.get("suspect") else " "
            console.print(f" {mark} [bold]{escape(c['key'])}[/]  {escape(_value(c.get('good')))} → {escape(_value(c.get('bad')))}"
                          f"  [dim]{escape(change_text(c, kb))}[/]", highlight=False, soft_wrap=True)
        if not verbose and len(changes) > 12:
            console.print(f"[dim]  … {len(changes) - 12} more (--verbose)[/]", highlight=False)
        console.print()
    elif not config.get("compared"):
        console.print("[dim]No config found beside either log (config.json, hparams.yaml, training_args.json, "
                      "<log>.config.json …): only the curves were compared.[/]", highlight=False)
        console.print()
    else:
        console.print("[dim]The configs are the same.[/]")
        console.print()

    findings = doc.get("findings") or []
    if findings:
        console.print(f"[bold]Findings in BAD[/] ({len(findings)})")
        for f in findings[:6]:
            console.print(f"  [red]●[/] {escape(f['summary'])}", highlight=False)
        console.print()
    causes = doc.get("causes") or []
    if causes:
        from triage.render.code import highlight

        console.print("[bold]Most likely causes[/]")
        for i, c in enumerate(causes[: len(causes) if verbose else 4]):
            console.print(Text.assemble((f" {i + 1}. ", "bold"), (c["id"], "bold cyan"), f"  {c['title']}  ",
                                        (f"{c['score']:.0%}", "dim")))
            for ev in c["evidence"][:3]:
                console.print(f"      [dim]because[/] {escape(ev)}", highlight=False)
            if c["fix"]:
                knob = c["fix"][0]["knob"].strip().splitlines()
                console.print(Text("      knob  ", style="dim") + highlight(knob[0] + (" …" if len(knob) > 1 else "")))
        console.print(f"  [dim]more: triage explain {causes[0]['id']}[/]", highlight=False)
        console.print()
    gate = doc.get("gate")
    if gate:
        render_gate(console, gate)


def _chart_pair(console, doc: dict, metric: str, step) -> None:
    from triage.render.chart import chart_width, line_chart
    from triage.render.console import layout_width

    for label, run in (("GOOD", doc["_good"]), ("BAD", doc["_bad"])):
        s = run.series.get(metric)
        if s is None or not len(s):
            continue
        positive = (s.values[s.values == s.values] > 0).all()
        log = metric in ("grad_norm", "learning_rate", "loss_scale") and bool(positive)
        mark = (float(step), None) if step is not None and label == "BAD" else None
        console.print(line_chart(s.steps, s.values, title=f"{metric} ({label})", height=5, mark=mark, log=log,
                                 width=chart_width(layout_width(console))))  # fits a 60-column terminal


def render_gate(console, gate: dict) -> None:
    tol = gate["tolerance"]
    parts = [f"{tol['rel'] * 100:g}% of GOOD" if tol.get("rel") else "", f"{tol['abs']:g} absolute" if tol.get("abs") else ""]
    told = " + ".join(p for p in parts if p) or "0"
    verdict = "[bold green]passed[/]" if gate["passed"] else "[bold red]FAILED[/]"
    console.print(f"[bold]Regression gate[/] [dim](tolerance {escape(told)}, window {gate['window']} points)[/]: {verdict}",
                  highlight=False)
    regs = {r["metric"]: r for r in gate.get("regressions") or []}
    for m in gate.get("metrics") or []:
        if m.get("passed"):
            console.print(f"  [green]✓[/] {escape(m['metric'])}  [dim]{m.get('points', 0)} points, "
                          f"{escape(str(m.get('better')))} is better[/]", highlight=False)
        else:
            r = regs.get(m["metric"]) or m.get("regression") or {}
            console.print(f"  [red]✗[/] {escape(regression_text(r))}", highlight=False, soft_wrap=True)
            noise = m.get("window_noise")
            allowed = r.get("allowed")
            if isinstance(noise, (int, float)) and isinstance(allowed, (int, float)) and allowed < 3 * noise:
                console.print(f"    [yellow]note:[/] window means of these runs differ by about ±{_num(noise)} from "
                              "noise alone; a tolerance inside 3x that fails by chance (widen --window or the "
                              "tolerance, or compare same-seed runs)", highlight=False, soft_wrap=True)
    if not gate.get("metrics"):
        console.print("  [yellow]no metric to gate[/] [dim](neither a loss, an accuracy nor a reward is logged by both "
                      "runs; name one with --metric)[/]", highlight=False)


def regression_text(r: dict) -> str:
    if r.get("kind") == "non-finite":
        return f"{r['metric']} is non-finite at step {_step(r.get('first_step'))} where GOOD is finite"
    sign = "-" if r.get("better") == "higher" else "+"
    first, worst = r.get("first_window") or [None, None], r.get("worst_window") or [None, None]
    return (f"{r['metric']} worse than GOOD from steps {_step(first[0])}-{_step(first[1])} on; worst at steps "
            f"{_step(worst[0])}-{_step(worst[1])}: BAD {_num(r['bad'])} vs GOOD {_num(r['good'])} "
            f"(allowed {sign}{_num(r['allowed'])})")


# -- markdown -------------------------------------------------------------------------------------
def render_diff_md(doc: dict, kb=None) -> str:
    from triage.render.markdown import md_code, md_escape

    lines = ["# triage diff", "", f"**{md_escape(doc['headline'])}**", ""]
    lines += ["| run | path | format | rows | config |", "|---|---|---|---:|---|"]
    for label in ("good", "bad"):
        s = doc[label]
        lines.append(f"| {label.upper()} | {md_code(s['path'])} | {md_escape(str(s.get('format')))} | {s.get('rows', 0)} | "
                     f"{md_code(s['config']) if s.get('config') else 'none found'} |")
    lines.append("")
    lines += ["## Where the runs part", "", "| metric | parts at | BAD vs GOOD | noise GOOD / BAD |", "|---|---|---|---|"]
    for m in doc.get("metrics") or []:
        at = f"step {_step(m['step'])}" if m.get("parted") else "–"
        noise = f"{_num(m.get('noise_good'))} / {_num(m.get('noise_bad'))}" if m.get("noise_good") is not None else ""
        name = f"**{md_escape(m['metric'])}**" if m.get("parted") else md_escape(m["metric"])
        lines.append(f"| {name} | {at} | {md_escape(parting_text(m))} | {noise} |")
    lines.append("")
    changes = (doc.get("config") or {}).get("changes") or []
    lines += ["## Config differences", ""]
    if changes:
        lines += ["| key | GOOD | BAD | what it is |", "|---|---|---|---|"]
        for c in changes:
            key = f"**{md_escape(c['key'])}** ◀" if c["key"] == doc["config"].get("suspect") else md_escape(c["key"])
            lines.append(f"| {key} | {md_code(_value(c.get('good')))} | {md_code(_value(c.get('bad')))} | "
                         f"{md_escape(change_text(c, kb))} |")
    else:
        lines.append("The configs are the same." if (doc.get("config") or {}).get("compared") else "No config found beside either log.")
    lines.append("")
    causes = doc.get("causes") or []
    lines += ["## Most likely causes", ""]
    for i, c in enumerate(causes[:5], start=1):
        lines.append(f"{i}. **{md_escape(c['id'])}** {md_escape(c['title'])} ({c['score']:.0%})")
        for ev in c["evidence"][:3]:
            lines.append(f"   - because {md_escape(ev)}")
        if c["fix"]:
            lines.append(f"   - knob: {md_code(c['fix'][0]['knob'].strip().splitlines()[0])}")
    if not causes:
        lines.append("None ranked: " + ("the runs do not part and no detector fired on BAD." if not doc["parted"] else "no evidence ties a cause to this change."))
    lines.append("")
    gate = doc.get("gate")
    if gate:
        lines += ["## Regression gate", "", f"**{'passed' if gate['passed'] else 'FAILED'}** (window {gate['window']} points)", ""]
        for m in gate.get("metrics") or []:
            if m.get("passed"):
                lines.append(f"- ✓ {md_escape(m['metric'])}")
            else:
                lines.append(f"- ✗ {md_escape(regression_text(m.get('regression') or {}))}")
        lines.append("")
    lines.append(f"*triage {doc.get('version', '')}*")
    return "\n".join(lines) + "\n"


# -- html -----------------------------------------------------------------------------------------
def overlay_svg(name: str, good: list[tuple[float, float]], bad: list[tuple[float, float]], step=None,
                width: int = 640, height: int = 200) -> str:
    """GOOD (blue) and BAD (red) of one metric on shared axes, the parting step marked."""
    from triage.render.html import _decimate, _fmt, _nice_ticks, esc

    left, right, top, bottom = 56, 12, 24, 30
    pw, ph = width - left - right, height - top - bottom
    pts = [(x, y) for x, y in good + bad if math.isfinite(x)]
    fin = [y for _, y in pts if math.isfinite(y)]
    out = [f"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{esc(name)}\" "
           "font-family=\"Liberation Sans, Arial, sans-serif\" font-size=\"10\">",
           f"<text x=\"{left}\" y=\"14\" font-weight=\"bold\" font-size=\"11\">{esc(name)}</text>",
           f"<text x=\"{left + pw}\" y=\"14\" text-anchor=\"end\"><tspan fill=\"#0b5cad\">━ GOOD</tspan>  "
           "<tspan fill=\"#c0392b\">━ BAD</tspan></text>",
           f"<rect x=\"{left}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"#fff\" stroke=\"#888\" stroke-width=\"0.8\"/>"]
    if not pts or not fin:
        out.append("</svg>")
        return "".join(out)
    x_lo, x_hi = min(x for x, _ in pts), max(x for x, _ in pts)
    x_hi = x_hi if x_hi > x_lo else x_lo + 1
    log = min(fin) > 0 and max(fin) / min(fin) > 1e3
    tr = (lambda v: math.log10(v)) if log else (lambda v: v)
    lo, hi = tr(min(fin)), tr(max(fin))
    if hi == lo:
        hi = lo + (abs(lo) * 0.1 or 1.0)

    def sx(x):
        return left + (x - x_lo) / (x_hi - x_lo) * pw

    def sy(y):
        return top + ph - (tr(y) - lo) / (hi - lo) * ph

    ticks = range(math.floor(lo), math.ceil(hi) + 1) if log else _nice_ticks(lo, hi)
    for t in ticks:
        if lo - 1e-9 <= t <= hi + 1e-9:
            yy = top + ph - (t - lo) / (hi - lo) * ph
            out.append(f"<line x1=\"{left}\" x2=\"{left + pw}\" y1=\"{yy:.1f}\" y2=\"{yy:.1f}\" stroke=\"#e3e3e3\" stroke-width=\"0.7\"/>")
            out.append(f"<text x=\"{left - 4}\" y=\"{yy + 3:.1f}\" text-anchor=\"end\" fill=\"#444\">{esc(_fmt(10 ** t if log else t))}</text>")
    for t in _nice_ticks(x_lo, x_hi, 6):
        if x_lo <= t <= x_hi:
            out.append(f"<text x=\"{sx(t):.1f}\" y=\"{top + ph + 13}\" text-anchor=\"middle\" fill=\"#444\">{esc(_fmt(t))}</text>")
    out.append(f"<text x=\"{left + pw}\" y=\"{height - 3}\" text-anchor=\"end\" fill=\"#666\">step{' · log scale' if log else ''}</text>")
    if step is not None and math.isfinite(float(step)):
        xx = sx(float(step))
        out.append(f"<line class=\"parting\" x1=\"{xx:.1f}\" x2=\"{xx:.1f}\" y1=\"{top}\" y2=\"{top + ph}\" stroke=\"#222\" "
                   "stroke-width=\"1.2\" stroke-dasharray=\"4 2\"/>")
        anchor, tx = ("end", xx - 3) if xx > left + pw * 0.6 else ("start", xx + 3)
        out.append(f"<text x=\"{tx:.1f}\" y=\"{top + 12}\" text-anchor=\"{anchor}\" fill=\"#222\">parts at step {esc(_step(step))}</text>")
    for series, color in ((good, "#0b5cad"), (bad, "#c0392b")):
        segs: list[list[tuple[float, float]]] = [[]]
        for x, y in _decimate(sorted(series), pw):
            if math.isfinite(y) and not (log and y <= 0):
                segs[-1].append((x, y))
            elif segs[-1]:
                segs.append([])
        for seg in segs:
            if len(seg) > 1:
                d = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in seg)
                out.append(f"<polyline points=\"{d}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1.1\" stroke-opacity=\"0.85\"/>")
            elif seg:
                out.append(f"<circle cx=\"{sx(seg[0][0]):.1f}\" cy=\"{sy(seg[0][1]):.1f}\" r=\"1.8\" fill=\"{color}\"/>")
        bad_pts = [x for x, y in series if not math.isfinite(y)]
        for x in bad_pts[:200]:
            out.append(f"<path d=\"M{sx(x) - 3:.1f},{top + 1} L{sx(x) + 3:.1f},{top + 1} L{sx(x):.1f},{top + 6} Z\" fill=\"{color}\"/>")
    out.append("</svg>")
    return "".join(out)


def _points(run, metric: str, limit: int = 4000) -> list[tuple[float, float]]:
    s = run.series.get(metric) if run is not None else None
    if s is None:
        return []
    step = max(1, len(s) // limit)
    return [(float(x), float(y)) for x, y in zip(s.steps[::step], s.values[::step])]


def render_diff_html(doc: dict, kb=None, max_charts: int = 4) -> str:
    from triage.render.html import _document, esc

    body = [f"<h1>triage diff</h1>\n<p class=\"desc\"><span class=\"badge {'bad' if doc['parted'] else 'ok'}\">"
            f"{'parted' if doc['parted'] else 'same within noise'}</span> <b>{esc(doc['headline'])}</b></p>"]
    body.append("<table class=\"grid\"><tr><th>run</th><th>path</th><th>format</th><th>rows</th><th>config</th></tr>")
    for label in ("good", "bad"):
        s = doc[label]
        body.append(f"<tr><td>{label.upper()}</td><td><code>{esc(s['path'])}</code></td><td>{esc(s.get('format'))}</td>"
                    f"<td>{s.get('rows', 0)}</td><td>{'<code>' + esc(s['config']) + '</code>' if s.get('config') else 'none found'}</td></tr>")
    body.append("</table>")
    parted = [m for m in doc.get("metrics") or [] if m.get("parted")]
    if parted:
        body.append("<h2>Where the runs part</h2>")
        for m in parted[:max_charts]:
            chart = overlay_svg(m["metric"], _points(doc.get("_good"), m["metric"]), _points(doc.get("_bad"), m["metric"]), m.get("step"))
            body.append(f"<figure class=\"chart\">{chart}<figcaption>{esc(m['metric'])}: parts at step {esc(_step(m['step']))}, "
                        f"{esc(parting_text(m))}</figcaption></figure>")
    body.append("<table class=\"grid\"><tr><th>metric</th><th>parts at</th><th>BAD vs GOOD</th><th>noise GOOD / BAD</th></tr>")
    for m in doc.get("metrics") or []:
        at = f"step {_step(m['step'])}" if m.get("parted") else "–"
        noise = f"{_num(m.get('noise_good'))} / {_num(m.get('noise_bad'))}" if m.get("noise_good") is not None else ""
        body.append(f"<tr><td>{'<b>' if m.get('parted') else ''}{esc(m['metric'])}{'</b>' if m.get('parted') else ''}</td>"
                    f"<td>{at}</td><td>{esc(parting_text(m))}</td><td>{esc(noise)}</td></tr>")
    body.append("</table>")
    changes = (doc.get("config") or {}).get("changes") or []
    body.append("<h2>Config differences</h2>")
    if changes:
        body.append("<table class=\"grid\"><tr><th>key</th><th>GOOD</th><th>BAD</th><th>what it is</th></tr>")
        for c in changes:
            key = f"<b>{esc(c['key'])}</b> ◀" if c["key"] == doc["config"].get("suspect") else esc(c["key"])
            body.append(f"<tr><td>{key}</td><td><code>{esc(_value(c.get('good')))}</code></td>"
                        f"<td><code>{esc(_value(c.get('bad')))}</code></td><td>{esc(change_text(c, kb))}</td></tr>")
        body.append("</table>")
    else:
        body.append("<p>" + ("The configs are the same." if (doc.get("config") or {}).get("compared") else "No config found beside either log.") + "</p>")
    causes = doc.get("causes") or []
    body.append("<h2>Most likely causes</h2>")
    for c in causes[:5]:
        ev = "".join(f"<li>{esc(e)}</li>" for e in c["evidence"][:4])
        knob = f"<p>knob: <code>{esc(c['fix'][0]['knob'].strip())}</code></p>" if c["fix"] else ""
        body.append(f"<div class=\"cause\"><h3>{esc(c['id'])} {esc(c['title'])} <span class=\"meta\">{c['score']:.0%}</span></h3>"
                    f"<ul class=\"evidence\">{ev}</ul>{knob}</div>")
    if not causes:
        body.append("<p>None ranked.</p>")
    gate = doc.get("gate")
    if gate:
        body.append(f"<h2>Regression gate: {'passed' if gate['passed'] else 'FAILED'}</h2><ul>")
        for m in gate.get("metrics") or []:
            body.append(f"<li>✓ {esc(m['metric'])}</li>" if m.get("passed") else f"<li>✗ {esc(regression_text(m.get('regression') or {}))}</li>")
        body.append("</ul>")
    body.append(f"<footer>triage {esc(doc.get('version', ''))}</footer>")
    return _document("triage diff", "\n".join(body) + "\n", None)


def write_diff_report(doc: dict, target: str, kb=None) -> str:
    """The diff as .html or .md, chosen by the file name (atomically, with a shareable mode: see
    triage.writeout). Raises OutputError (a TriageError) for any other name or an unwritable target."""
    from pathlib import Path

    from triage.writeout import OutputError, check_target, write_text

    path = Path(target)
    suffix = path.suffix.lower()
    if suffix not in (".html", ".htm", ".md", ".markdown"):
        raise OutputError(f"{target}: a report is .html or .md")
    check_target(path, what="report")  # before rendering: a missing folder is said at once
    text = render_diff_html(doc, kb) if suffix in (".html", ".htm") else render_diff_md(doc, kb)
    return str(write_text(path, text, what="report"))
