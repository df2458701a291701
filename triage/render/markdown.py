"""Markdown for GitHub: checklists and reports as task lists (`- [ ]`) with working anchors.

Every in-page link points at a heading of the same document, using GitHub's heading-anchor
rule (`github_slug`), so the contents and the node references work on github.com, in GitLab
and in most Markdown viewers without raw HTML anchors (which GitHub rewrites).
"""

from __future__ import annotations

import math
import re

from triage import __version__

_SLUG_DROP = re.compile(r"[^\w\- ]", re.UNICODE)


def github_slug(text: str, seen: dict[str, int] | None = None) -> str:
    """The anchor GitHub gives a heading: lower-case, punctuation dropped, spaces to '-',
    and '-1', '-2', ... for repeats (pass the same `seen` for one document)."""
    slug = _SLUG_DROP.sub("", text.strip().lower()).replace(" ", "-")
    if seen is None:
        return slug
    n = seen.get(slug, 0)
    seen[slug] = n + 1
    return slug if n == 0 else f"{slug}-{n}"


def md_escape(text: str) -> str:
    """Escape what would change the meaning of inline Markdown text."""
    text = " ".join(str(text).split())
    text = re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text)
    return text


def md_code(text: str) -> str:
    text = " ".join(str(text).split())
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_knob(text: str) -> str:
    """A knob for a table cell or a list item: inline code when it is one line; several lines
    kept as lines (`<code>` with `<br>`, which GitHub renders in tables) instead of run together."""
    import html
    import textwrap

    lines = textwrap.dedent(str(text)).strip("\n").splitlines()
    if len(lines) <= 1:
        return md_code(text)
    cells = []
    for line in lines:
        body = html.escape(line.rstrip()).replace("|", "&#124;").replace("`", "&#96;")
        indent = len(body) - len(body.lstrip(" "))
        cells.append("&nbsp;" * indent + body.lstrip(" "))
    return "<code>" + "<br>".join(cells) + "</code>"


class _Doc:
    """Collects headings so every anchor is computed exactly as GitHub will."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.seen: dict[str, int] = {}

    def heading(self, level: int, text: str) -> str:
        slug = github_slug(text, self.seen)
        self.lines += [f"{'#' * level} {text}", ""]
        return slug

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def text(self) -> str:
        while self.lines and not self.lines[-1].strip():
            self.lines.pop()
        return "\n".join(self.lines) + "\n"


def _node_heading(link) -> str:
    # the heading is the bare ID, so its anchor is stable and short (o9, s-spike, q-loss-init)
    return link.id


# -- checklists -----------------------------------------------------------------------------
def render_checklist_md(checklist) -> str:
    doc = _Doc()
    doc.heading(1, md_escape(checklist.title))
    if checklist.description:
        doc.add(md_escape(checklist.description), "")
    doc.add(f"*triage checklist `{checklist.id}` · {len(checklist.items)} items · tick a box when it holds.*", "")

    # Work out the anchors first: section headings, then one heading per linked node.
    plan = _Doc()
    plan.heading(1, md_escape(checklist.title))
    plan.heading(2, "Contents")
    section_slugs = [plan.heading(2, f"{s.number}. {md_escape(s.title)}") for s in checklist.sections]
    plan.heading(2, "Linked nodes")
    node_slugs = {link.id: plan.heading(3, _node_heading(link)) for link in checklist.links}

    doc.heading(2, "Contents")
    for section, slug in zip(checklist.sections, section_slugs):
        doc.add(f"- [{section.number}. {md_escape(section.title)}](#{slug})")
    doc.add(f"- [Linked nodes](#{github_slug('Linked nodes')})", "")

    for section in checklist.sections:
        doc.heading(2, f"{section.number}. {md_escape(section.title)}")
        if section.note:
            doc.add(f"*{md_escape(section.note)}*", "")
        for item in section.items:
            doc.add(f"- [ ] **{item.number}** {md_escape(item.text)}")
            for label, value in (("Why", item.why), ("Check", item.check), ("Healthy", item.range)):
                if value:
                    doc.add(f"  <br>*{label}:* {md_escape(value)}")
            if item.links:
                refs = ", ".join(f"[{link.id}](#{node_slugs[link.id]})" for link in item.links)
                doc.add(f"  <br>*See:* {refs}")
        doc.add("")

    doc.heading(2, "Linked nodes")
    doc.add("Read any of them in the terminal with `triage explain ID`.", "")
    for link in checklist.links:
        doc.heading(3, _node_heading(link))
        where = f" · [source]({link.url})" if link.url else ""
        doc.add(f"{md_escape(link.title)} · `{link.command}`{where}", "")
    return doc.text()


# -- reports --------------------------------------------------------------------------------
def sparkline(points, marks: list[dict] | None = None, width: int = 60) -> tuple[str, str]:
    """A one-line text chart of (step, value) points laid out by step, each column its highest
    value (a spike stays visible), and under it carets at the marked steps. Non-finite values
    show as '!' (NaN/Inf must stay visible)."""
    from triage.render.html import _to_float
    from triage.render.numbers import sparkline as draw
    from triage.render.numbers import step_position

    pts = [(_to_float(p[0]), _to_float(p[1])) for p in points or []]
    pts = [p for p in pts if math.isfinite(p[0])]
    if not pts:
        return "", ""
    x0 = min(x for x, _ in pts)
    span = (max(x for x, _ in pts) - x0) or 1.0
    line = draw([y for _, y in pts], width, steps=[x for x, _ in pts], nan_mark="!", peak=True)
    under = [" "] * width
    for m in marks or []:
        a, b = _to_float(m.get("first_step", m.get("step"))), _to_float(m.get("last_step", m.get("step")))
        if not math.isfinite(a):
            continue
        b = a if not math.isfinite(b) else b
        for i in range(step_position(min(a, b), x0, span, width), step_position(max(a, b), x0, span, width) + 1):
            under[i] = "^"
    return line, "".join(under).rstrip()


def render_report_md(doc, series: dict | None = None, marks: list[dict] | None = None,
                     kb=None, title: str | None = None, max_charts: int = 8) -> str:
    """The report of `render_report_html` as GitHub Markdown, from a `Report` (or its `scan --json`
    document): tables, text sparklines with the anomaly marked, ranked causes with knobs, and a task
    list of fixes with their verification."""
    from triage.render.html import as_report, marks_from_findings, report_series

    report = as_report(doc)
    if kb is None:
        from triage.kb.base import KnowledgeBase

        kb = KnowledgeBase.load()
    series = report_series(report) if series is None else series
    marks = marks_from_findings(report, series, kb) if marks is None else list(marks)
    out = _Doc()
    out.heading(1, md_escape(title or "triage report"))
    _md_verdict(out, report)
    _md_sources(out, report)
    _md_findings(out, report, kb)
    _md_charts(out, report, series, marks, max_charts)
    _md_causes(out, report, kb)
    _md_todo(out, report, kb)
    _md_open_questions(out, report)
    return out.text()


def _md_verdict(out: _Doc, report) -> None:
    if report.healthy and not report.causes:
        out.add("**Healthy:** no finding counts against this run.", "")
    else:
        top = report.causes[0] if report.causes else None
        lead = f"most likely **{top.id}** {md_escape(top.title)}" if top else "no cause ranked yet"
        out.add(f"**Problems:** {len(report.findings)} finding(s); {lead}.", "")
    out.add(f"*triage {report.version or __version__}*", "")


def _md_sources(out: _Doc, report) -> None:
    out.heading(2, "What was read")
    if not report.sources:
        out.add("No log was read.", "")
        return
    out.add("| file | format | rows | skipped | metrics |", "|---|---|---:|---:|---|")
    for s in report.sources:
        out.add(f"| {md_code(s.path)} | {md_escape(s.format or '')} | {_cell(s.rows)} | "
                f"{_cell(s.skipped)} | {md_escape(', '.join(map(str, s.metrics or [])))} |")
    out.add("")


def _cell(value) -> str:
    return "" if value is None else str(value)


def _md_findings(out: _Doc, report, kb) -> None:
    from triage.render.html import finding_answer, finding_title

    out.heading(2, "Findings")
    if not report.findings:
        out.add("No detector fired.", "")
        return
    out.add("| # | what | metric | steps | the numbers |", "|---:|---|---|---|---|")
    for n, f in enumerate(report.findings, start=1):
        answered = finding_answer(f, kb)
        what = f"**{md_escape(finding_title(f, kb))}**" + (f"<br>{md_escape(answered)}" if answered else "")
        d = f.to_dict()
        steps = "" if d["first_step"] is None else f"{d['first_step']}–{d['last_step']}"
        out.add(f"| {n} | {what} | {md_code(f.metric or '')} | {steps} | {md_escape(f.summary or '')} |")
    out.add("")


def _md_charts(out: _Doc, report, series: dict, marks: list[dict], max_charts: int) -> None:
    from triage.render.html import chart_order

    names = chart_order(report, series, marks)[:max_charts]
    if not names:
        return
    out.heading(2, "Key series")
    for name in names:
        mine = [m for m in marks if m.get("metric") in (None, "", "*", name)]
        line, under = sparkline(series[name], mine)
        label = "; ".join(str(m.get("label")) for m in mine if m.get("label"))
        out.add(f"**{md_escape(name)}** ({len(series[name])} points{'; ^ marks: ' + md_escape(label) if label else ''})",
                "", "```text", line, *([under] if under.strip() else []), "```", "")


def _md_causes(out: _Doc, report, kb) -> None:
    """Each ranked cause: its score, its evidence lines and its knobs as a table."""
    from triage.kb.checklists import make_link

    out.heading(2, "Ranked causes")
    if not report.causes:
        out.add("No cause has evidence for it.", "")
        return
    for rank, c in enumerate(report.causes, start=1):
        link = make_link(kb, c.id)
        out.heading(3, f"{rank}. {c.id} · {md_escape(c.title or link.title)}")
        if c.score is not None:
            out.add(f"*score {c.score:.2f}*", "")
        for e in c.evidence:
            out.add(f"- {md_escape(e.line())}")
        if c.evidence:
            out.add("")
        if c.fix:
            out.add("| knob | range | expect |", "|---|---|---|")
            for f in c.fix:
                out.add(f"| {md_knob(f.knob)} | {md_escape(f.range)} | {md_escape(f.expect)} |")
            out.add("")
        if link.url:
            out.add(f"`{link.command}` · [source]({link.url})", "")


def _md_todo(out: _Doc, report, kb) -> None:
    from triage.kb.checklists import fix_plan

    plan = fix_plan({"causes": [c.to_json() for c in report.causes]}, kb)
    if not plan:
        return
    out.heading(2, "To do: fixes in the order to try them")
    out.add("One change at a time; tick a box only when the verification shows the expected change.", "")
    for step in plan:
        also = f" (also serves {', '.join(step.also_for)})" if step.also_for else ""
        out.add(f"- [ ] **{step.number}.** For **{step.cause_id}** {md_escape(step.cause_title)}{also}: try {md_knob(step.knob)}")
        for label, value in (("Range", step.range), ("Expect", step.expect), ("Verify", step.verify)):
            if value:
                out.add(f"  <br>*{label}:* {md_escape(value)}")
        if step.next_if_not:
            out.add(f"  <br>*If not:* {step.next_if_not} {md_escape(step.next_title)}")
    out.add("")


def _md_open_questions(out: _Doc, report) -> None:
    if not report.unanswered:
        return
    out.heading(2, "Open questions")
    out.add("The logs could not answer these; `triage ask` asks them.", "")
    for q in report.unanswered:
        out.add(f"- [ ] **{q.id}** {md_escape(q.question)}")
    out.add("")
