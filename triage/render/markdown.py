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
_BLOCKS = "▁▂▃▄▅▆▇█"


def sparkline(points, marks: list[dict] | None = None, width: int = 60) -> tuple[str, str]:
    """A one-line text chart and, under it, carets at the marked steps. Non-finite values show
    as '!' (NaN/Inf must stay visible)."""
    from triage.render.html import _to_float

    pts = sorted(((_to_float(p[0]), _to_float(p[1])) for p in points or [] if math.isfinite(_to_float(p[0]))),
                 key=lambda p: p[0])
    if not pts:
        return "", ""
    x0, x1 = pts[0][0], pts[-1][0]
    span = (x1 - x0) or 1.0
    cols: list[list[float]] = [[] for _ in range(width)]
    for x, y in pts:
        cols[min(width - 1, int((x - x0) / span * width))].append(y)
    finite = [y for y in (p[1] for p in pts) if math.isfinite(y)]
    lo, hi = (min(finite), max(finite)) if finite else (0.0, 1.0)
    chars = []
    for col in cols:
        if not col:
            chars.append(" ")
        elif any(not math.isfinite(v) for v in col):
            chars.append("!")
        else:
            v = max(col)
            chars.append(_BLOCKS[0 if hi == lo else int((v - lo) / (hi - lo) * (len(_BLOCKS) - 1))])
    under = [" "] * width
    for m in marks or []:
        a, b = _to_float(m.get("first_step", m.get("step"))), _to_float(m.get("last_step", m.get("step")))
        if not math.isfinite(a):
            continue
        b = a if not math.isfinite(b) else b
        ia = max(0, min(width - 1, int((min(a, b) - x0) / span * width)))
        ib = max(0, min(width - 1, int((max(a, b) - x0) / span * width)))
        for i in range(ia, ib + 1):
            under[i] = "^"
    return "".join(chars), "".join(under).rstrip()


def render_report_md(doc: dict, series: dict | None = None, marks: list[dict] | None = None,
                     kb=None, title: str | None = None, max_charts: int = 8) -> str:
    """The report of `render_report_html` as GitHub Markdown: tables, text sparklines with the
    anomaly marked, ranked causes with knobs, and a task list of fixes with their verification."""
    from triage.checklists import fix_plan, make_link
    from triage.render.html import chart_order, finding_answer, finding_title, marks_from_findings

    if kb is None:
        from triage.kb.base import KnowledgeBase

        kb = KnowledgeBase.load()
    marks = marks_from_findings(doc, series, kb) if marks is None else list(marks)
    findings = [f for f in doc.get("findings") or [] if isinstance(f, dict)]
    causes = [c for c in doc.get("causes") or [] if isinstance(c, dict)]
    sources = [s for s in doc.get("sources") or [] if isinstance(s, dict)]
    unanswered = [q for q in doc.get("unanswered") or [] if isinstance(q, dict)]
    out = _Doc()
    out.heading(1, md_escape(title or "triage report"))
    if doc.get("healthy") and not causes:
        out.add("**Healthy:** no finding counts against this run.", "")
    else:
        top = causes[0] if causes else None
        lead = f"most likely **{top.get('id')}** {md_escape(top.get('title') or '')}" if top else "no cause ranked yet"
        out.add(f"**Problems:** {len(findings)} finding(s); {lead}.", "")
    out.add(f"*triage {doc.get('version') or __version__}*", "")

    out.heading(2, "What was read")
    if sources:
        out.add("| file | format | rows | skipped | metrics |", "|---|---|---:|---:|---|")
        for s in sources:
            out.add(f"| {md_code(s.get('path', ''))} | {md_escape(s.get('format', ''))} | {s.get('rows', '')} | "
                    f"{s.get('skipped', '')} | {md_escape(', '.join(map(str, s.get('metrics') or [])))} |")
        out.add("")
    else:
        out.add("No log was read.", "")

    out.heading(2, "Findings")
    if findings:
        out.add("| # | what | metric | steps | the numbers |", "|---:|---|---|---|---|")
        for n, f in enumerate(findings, start=1):
            answered = finding_answer(f, kb)
            what = f"**{md_escape(finding_title(f, kb))}**" + (f"<br>{md_escape(answered)}" if answered else "")
            steps = "" if f.get("first_step") is None else f"{f.get('first_step')}–{f.get('last_step', f.get('first_step'))}"
            out.add(f"| {n} | {what} | {md_code(f.get('metric') or '')} | {steps} | {md_escape(f.get('summary') or '')} |")
        out.add("")
    else:
        out.add("No detector fired.", "")

    names = chart_order(doc, series, marks)[:max_charts]
    if names:
        out.heading(2, "Key series")
        for name in names:
            mine = [m for m in marks if m.get("metric") in (None, "", "*", name)]
            line, under = sparkline(series[name], mine)
            label = "; ".join(str(m.get("label")) for m in mine if m.get("label"))
            out.add(f"**{md_escape(name)}** ({len(series[name])} points{'; ^ marks: ' + md_escape(label) if label else ''})",
                    "", "```text", line, *( [under] if under.strip() else []), "```", "")

    out.heading(2, "Ranked causes")
    if causes:
        for rank, c in enumerate(causes, start=1):
            link = make_link(kb, str(c.get("id")))
            score = f" (score {c['score']:.2f})" if isinstance(c.get("score"), (int, float)) else ""
            out.heading(3, f"{rank}. {c.get('id')} · {md_escape(c.get('title') or link.title)}")
            if score:
                out.add(f"*{score.strip(' ()')}*", "")
            for e in c.get("evidence") or []:
                out.add(f"- {md_escape(e)}")
            if c.get("evidence"):
                out.add("")
            fixes = [f for f in c.get("fix") or [] if isinstance(f, dict)]
            if fixes:
                out.add("| knob | range | expect |", "|---|---|---|")
                for f in fixes:
                    out.add(f"| {md_knob(f.get('knob', ''))} | {md_escape(f.get('range', ''))} | {md_escape(f.get('expect', ''))} |")
                out.add("")
            if link.url:
                out.add(f"`{link.command}` · [source]({link.url})", "")
    else:
        out.add("No cause has evidence for it.", "")

    plan = fix_plan(doc, kb)
    if plan:
        out.heading(2, "To do: fixes in the order to try them")
        out.add("One change at a time; tick a box only when the verification shows the expected change.", "")
        for step in plan:
            also = f" (also serves {', '.join(step.also_for)})" if step.also_for else ""
            out.add(f"- [ ] **{step.number}.** For **{step.cause_id}** {md_escape(step.cause_title)}{also}: try {md_knob(step.knob)}")
            if step.range:
                out.add(f"  <br>*Range:* {md_escape(step.range)}")
            if step.expect:
                out.add(f"  <br>*Expect:* {md_escape(step.expect)}")
            if step.verify:
                out.add(f"  <br>*Verify:* {md_escape(step.verify)}")
            if step.next_if_not:
                out.add(f"  <br>*If not:* {step.next_if_not} {md_escape(step.next_title)}")
        out.add("")

    if unanswered:
        out.heading(2, "Open questions")
        out.add("The logs could not answer these; `triage ask` asks them.", "")
        for q in unanswered:
            out.add(f"- [ ] **{q.get('id')}** {md_escape(q.get('question', ''))}")
        out.add("")
    return out.text()
