"""Standalone HTML for paper and for sharing: checklists and diagnosis reports.

Everything is in one file: the style sheet is inline, charts are inline SVG, there are no
scripts, fonts or images to fetch, so a page opens offline and prints the same anywhere.

Print rules (A4 and US Letter): millimetre margins that fit both sheets, a printable empty box
per item, `break-inside: avoid` on every item, chart and cause so none is split over two pages,
headings kept with what follows, and every link's address printed as a note beside it
(paper has no hover).
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from html import escape as _escape

from triage import __version__
from triage.engine.report import Report
from triage.render.numbers import number as _fmt

PAPERS = {"a4": "A4", "letter": "letter"}


def esc(value: object) -> str:
    return _escape("" if value is None else str(value), quote=True)


def page_css(paper: str | None) -> str:
    """The @page rule: a fixed sheet for `a4` / `letter`, or the print dialog's choice."""
    size = f"size: {PAPERS[paper]};" if paper else ""
    return (
        "@page { " + size + " margin: 14mm 13mm 15mm 13mm;"
        " @bottom-right { content: counter(page) \" / \" counter(pages); font: 7.5pt sans-serif; color: #555; } }"
    )


BASE_CSS = """
:root { --ink: #111; --dim: #555; --line: #999; --soft: #f2f2f2; --accent: #0b5cad; --bad: #c0392b; --ok: #1e7d32; }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { margin: 0; color: var(--ink); background: #e9e9e9;
       font: 10pt/1.38 "Liberation Sans", "Helvetica Neue", Arial, "DejaVu Sans", sans-serif; }
.sheet { background: #fff; max-width: 186mm; margin: 8mm auto; padding: 10mm 12mm; box-shadow: 0 1px 4px rgba(0,0,0,.2); }
@media print {
  body { background: #fff; }
  .sheet { max-width: none; margin: 0; padding: 0; box-shadow: none; }
  a { color: var(--ink); text-decoration: none; }
}
h1 { font-size: 17pt; line-height: 1.2; margin: 0 0 2mm; }
h2 { font-size: 12.5pt; margin: 6mm 0 2.5mm; padding-bottom: 1mm; border-bottom: 0.4mm solid var(--ink);
     break-after: avoid; page-break-after: avoid; }
h3 { font-size: 11pt; margin: 3mm 0 1.5mm; break-after: avoid; page-break-after: avoid; }
p { margin: 0 0 1.5mm; }
code, .mono { font-family: "Liberation Mono", "DejaVu Sans Mono", Menlo, monospace; font-size: 8.6pt; }
code { background: var(--soft); padding: 0 .6mm; border-radius: .5mm; overflow-wrap: anywhere; }
a { color: var(--accent); }
.desc { color: var(--dim); margin-bottom: 3mm; }
.meta { font-size: 8pt; color: var(--dim); }
.fill { display: flex; gap: 6mm; font-size: 8.5pt; margin: 3mm 0 1mm; }
.fill span { flex: 1; border-bottom: 0.3mm solid var(--line); padding-bottom: 3.5mm; color: var(--dim); }
.toc { font-size: 8.5pt; color: var(--dim); columns: 2; column-gap: 8mm; margin: 2mm 0 0; padding-left: 5mm; }
.keep { break-inside: avoid; page-break-inside: avoid; }
.sec-note { font-size: 8.5pt; color: var(--dim); margin: -1mm 0 2mm; }
ol.items { list-style: none; margin: 0; padding: 0; }
li.item { display: grid; grid-template-columns: 6.5mm 1fr; column-gap: 2mm; padding: 1.8mm 0 1.9mm;
          border-bottom: 0.2mm solid #d5d5d5; break-inside: avoid; page-break-inside: avoid; }
li.item:last-child { border-bottom: 0; }
.box { display: block; width: 4.6mm; height: 4.6mm; margin-top: .4mm; border: 0.4mm solid var(--ink); border-radius: .7mm; background: #fff; }
.num { font-weight: bold; color: var(--dim); margin-right: 1mm; }
.text { margin: 0 0 .8mm; }
dl.facts { display: grid; grid-template-columns: 15mm 1fr; column-gap: 1.5mm; row-gap: .3mm; margin: 0 0 .8mm; font-size: 8.6pt; }
dl.facts dt { color: var(--dim); font-weight: bold; }
dl.facts dd { margin: 0; }
.links { font-size: 8.6pt; margin: 0; }
.links a { font-weight: bold; }
.links .t { color: var(--dim); }
.links .n { font-size: 7pt; color: var(--dim); font-weight: normal; }
ol.notes { list-style: none; margin: .6mm 0 0; padding: 0; font-size: 6.8pt; line-height: 1.3; color: var(--dim);
           font-family: "Liberation Mono", "DejaVu Sans Mono", monospace; overflow-wrap: anywhere; }
ol.notes li { margin: 0; }
footer { margin-top: 6mm; font-size: 7.5pt; color: var(--dim); border-top: 0.2mm solid var(--line); padding-top: 1.5mm; }
table.grid { width: 100%; border-collapse: collapse; font-size: 8.6pt; margin: 0 0 2mm; }
table.grid th, table.grid td { text-align: left; vertical-align: top; padding: .8mm 1.2mm; border-bottom: 0.2mm solid #ccc; }
table.grid th { border-bottom: 0.35mm solid var(--ink); }
table.grid tr { break-inside: avoid; page-break-inside: avoid; }
.badge { display: inline-block; padding: .4mm 2mm; border-radius: 1mm; color: #fff; font-weight: bold; font-size: 9pt; }
.badge.ok { background: var(--ok); } .badge.bad { background: var(--bad); }
figure.chart { margin: 0 0 3mm; break-inside: avoid; page-break-inside: avoid; }
figure.chart svg { width: 100%; height: auto; display: block; }
figure.chart figcaption { font-size: 8pt; color: var(--dim); }
.cause { border: 0.3mm solid #bbb; border-radius: 1mm; padding: 2mm 3mm; margin: 0 0 3mm; break-inside: avoid; page-break-inside: avoid; }
.cause h3 { margin-top: 0; }
.scorebar { display: inline-block; width: 25mm; height: 2.2mm; background: var(--soft); border: 0.2mm solid #bbb; vertical-align: middle; }
.scorebar i { display: block; height: 100%; background: var(--accent); }
ul.evidence { margin: 0 0 1.5mm; padding-left: 5mm; font-size: 9pt; }
ul.checks { list-style: none; padding-left: 1mm; }
table.knobs th:first-child { width: 46%; }  /* code gets the room; prose wraps more easily */
pre.knob { font-family: "Liberation Mono", "DejaVu Sans Mono", Menlo, monospace; font-size: 8.6pt; background: var(--soft);
           margin: 0; padding: .6mm .8mm; white-space: pre-wrap; overflow-wrap: anywhere; }
"""


def _document(title: str, body: str, paper: str | None, extra_css: str = "") -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<meta name=\"generator\" content=\"triage {esc(__version__)}\">\n"
        f"<title>{esc(title)}</title>\n<style>\n{page_css(paper)}\n{BASE_CSS}{extra_css}</style>\n</head>\n"
        f"<body>\n<main class=\"sheet\">\n{body}</main>\n</body>\n</html>\n"
    )


def _links_html(links) -> str:
    """The item's links (ID, title) with a numbered note per address, printed under them."""
    if not links:
        return ""
    refs, notes = [], []
    for n, link in enumerate(links, start=1):
        if link.url:
            refs.append(f"<a href=\"{esc(link.url)}\">{esc(link.id)}</a><span class=\"n\">[{n}]</span> <span class=\"t\">{esc(link.title)}</span>")
            notes.append(f"<li>[{n}] {esc(link.url)}</li>")
        else:
            refs.append(f"<b>{esc(link.id)}</b><span class=\"n\">[{n}]</span>")
            notes.append(f"<li>[{n}] {esc(link.command)}</li>")
    return (f"<p class=\"links\">See: {' · '.join(refs)}</p>\n"
            f"<ol class=\"notes\">{''.join(notes)}</ol>\n")


def _facts(rows: list[tuple[str, str]], code_keys: tuple[str, ...] = ()) -> str:
    cells = []
    for key, value in rows:
        if not value:
            continue
        inner = knob_html(value) if key in code_keys else esc(value)
        cells.append(f"<dt>{esc(key)}</dt><dd>{inner}</dd>")
    return f"<dl class=\"facts\">{''.join(cells)}</dl>\n" if cells else ""


# -- checklists -----------------------------------------------------------------------------
def render_checklist_html(checklist, paper: str | None = None) -> str:
    """A checklist as a standalone page for paper. `paper` fixes the sheet ("a4" or "letter");
    without it the print dialog's sheet is used (the layout fits both)."""
    if paper is not None and paper not in PAPERS:
        raise ValueError(f"paper must be one of {', '.join(PAPERS)}")
    out: list[str] = []
    count = len(checklist.items)
    out.append(f"<header>\n<h1>{esc(checklist.title)}</h1>\n")
    if checklist.description:
        out.append(f"<p class=\"desc\">{esc(checklist.description)}</p>\n")
    out.append("<div class=\"fill\"><span>Run</span><span>Date</span><span>Checked by</span></div>\n")
    out.append(
        f"<p class=\"meta\">triage checklist <b>{esc(checklist.id)}</b> · {len(checklist.sections)} sections · "
        f"{count} items · tick each box when it holds. The numbered notes under an item give the address of each "
        f"linked node; in a terminal, <code>triage explain ID</code> (or <code>triage probe show NAME</code> for a "
        f"probe) shows it.</p>\n"
    )
    out.append("<ol class=\"toc\">" + "".join(
        f"<li><a href=\"#{esc(s.anchor)}\">{esc(s.title)}</a></li>" for s in checklist.sections) + "</ol>\n</header>\n")
    for section in checklist.sections:
        out.append(f"<section>\n<h2 id=\"{esc(section.anchor)}\">{section.number}. {esc(section.title)}</h2>\n")
        if section.note:
            out.append(f"<p class=\"sec-note\">{esc(section.note)}</p>\n")
        out.append("<ol class=\"items\">\n")
        for item in section.items:
            out.append(f"<li class=\"item\" id=\"{esc(item.anchor)}\"><span class=\"box\" aria-hidden=\"true\"></span>\n<div>\n")
            out.append(f"<p class=\"text\"><span class=\"num\">{esc(item.number)}</span>{esc(item.text)}</p>\n")
            out.append(_facts([("Why", item.why), ("Check", item.check), ("Healthy", item.range)]))
            out.append(_links_html(item.links))
            out.append("</div></li>\n")
        out.append("</ol>\n</section>\n")
    out.append(
        f"<footer>triage {esc(__version__)} · checklist <code>{esc(checklist.id)}</code> from the knowledge base · "
        f"Markdown: <code>triage checklist {esc(checklist.id)} --format md</code> · "
        f"PDF: <code>triage checklist {esc(checklist.id)} --format pdf</code></footer>\n"
    )
    return _document(f"{checklist.title} · triage checklist", "".join(out), paper)


# -- charts ---------------------------------------------------------------------------------
def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _to_float(v):
    if v is None:
        return float("nan")
    if isinstance(v, str):
        try:
            return float(v.strip().strip("'\""))
        except ValueError:
            return float("nan")
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def _nice_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return []
    if hi <= lo:
        hi = lo + (abs(lo) or 1.0)
    raw = (hi - lo) / max(count - 1, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    ticks: list[float] = []
    for n in range(40):
        t = first + n * step
        if t > hi + step * 1e-6 or len(ticks) >= 20:
            break
        v = float(f"{t:.15g}")  # float noise off, not the tick (a 5e-13 step stays)
        if not ticks or v != ticks[-1]:  # a step under the float's resolution at this magnitude
            ticks.append(v)
    return ticks


def tick_labels(values: list[float]) -> list[str]:
    """Labels for axis ticks that are all different and exact: the fewest decimals that write
    every tick as it is (three significant digits turn 2.31025 / 2.3105 / 2.31075 into
    "2.31 / 2.31 / 2.31"); powers of ten, with as many digits as tell them apart, past 1e5."""
    finite = [v for v in values if math.isfinite(v)]
    if finite and all(v == 0 or 1e-4 <= abs(v) < 1e5 for v in finite):
        for d in range(0, 16):
            if all(abs(round(v, d) - v) <= 1e-12 * max(1.0, abs(v)) for v in finite):
                break
        if d > 0 and max(abs(v) for v in finite) >= 100 and all(float(v).is_integer() for v in finite):
            d = 0
        while d < 17 and len({f"{v:.{d}f}" for v in values}) < len(values):
            d += 1
        return [f"{v:.{d}f}" for v in values]
    labels = [_fmt(v) for v in values]
    for digits in range(4, 18):
        if len(set(labels)) == len(labels):
            break
        labels = [_fmt(v, digits) for v in values]
    return labels


def _decimate(points: list[tuple[float, float]], buckets: int) -> list[tuple[float, float]]:
    """Keep the first, min, max and last point of each x bucket so spikes survive."""
    if len(points) <= buckets * 4:
        return points
    x0, x1 = points[0][0], points[-1][0]
    width = (x1 - x0) / buckets or 1.0
    out: list[tuple[float, float]] = []
    group: list[tuple[float, float]] = []
    current = None
    for p in points:
        b = int((p[0] - x0) / width)
        if b != current and group:
            out.extend(_keep(group))
            group = []
        current = b
        group.append(p)
    out.extend(_keep(group))
    return out


def _keep(group: list[tuple[float, float]]) -> list[tuple[float, float]]:
    finite = [p for p in group if math.isfinite(p[1])]
    picked = {0, len(group) - 1}
    if finite:
        picked.add(group.index(min(finite, key=lambda p: p[1])))
        picked.add(group.index(max(finite, key=lambda p: p[1])))
    picked.update(i for i, p in enumerate(group) if not math.isfinite(p[1]))
    return [group[i] for i in sorted(picked)]


CHAR_W = 6.2      # px per character of the 10px bold sans labels, rounded up (Liberation Sans bold ~5.6)
LABEL_ROW = 13    # px between two rows of anomaly labels


def _label_width(text: str) -> float:
    return len(text) * CHAR_W + 4


def _clip_label(text: str, width: float) -> str:
    """`text`, cut with an ellipsis to fit `width` px (the caption under the chart has it whole)."""
    room = int((width - 4) // CHAR_W)
    return text if len(text) <= room else text[: max(1, room - 1)].rstrip() + "…"


def place_labels(spans: list[tuple[float, float, str]], lo: float, hi: float) -> list[tuple[float, int, str]]:
    """Lay anomaly labels out in rows so that no two overlap.

    `spans` are (x_start, x_end, text) in px; each label starts at its span (or ends at the
    plot's right edge when it would run past it), inside [lo, hi]. A label goes into the first
    row where it clears every label already there by 6 px. Returns (x, row, text) with x the
    label's left edge, in the order given.
    """
    rows: list[list[tuple[float, float]]] = []
    placed = []
    for xa, _xb, text in spans:
        text = _clip_label(text, hi - lo)
        w = _label_width(text)
        x = min(max(lo, xa + 2), hi - w)
        row = 0
        while row < len(rows) and any(x < b + 6 and a < x + w + 6 for a, b in rows[row]):
            row += 1
        if row == len(rows):
            rows.append([])
        rows[row].append((x, x + w))
        placed.append((x, row, text))
    return placed


def svg_chart(name: str, points, marks: list[dict] | None = None, width: int = 640, height: int = 190) -> str:
    """A line chart of one series as inline SVG (no script, no network).

    `points` is a list of (step, value); NaN / Inf / None values are drawn as red triangles on
    the top edge (a NaN row is exactly the one not to lose). `marks` are dicts with `step` or
    `first_step`/`last_step`, and a `label`: a band (or a line) shaded over the anomaly, its
    label in a row above the plot (rows are added until no two labels overlap).
    The y axis turns logarithmic when positive values span more than three decades, and says so
    along the axis.
    """
    pts = []
    for p in points or []:
        try:
            x, y = p[0], p[1]
        except (TypeError, IndexError, KeyError):
            continue
        if _finite(_to_float(x)):
            pts.append((_to_float(x), _to_float(y)))
    pts.sort(key=lambda p: p[0])
    left, right, bottom = 52, 12, 30
    finite = [p for p in pts if math.isfinite(p[1])]
    bad = [p for p in pts if not math.isfinite(p[1])]
    head = [f"<text class=\"title\" x=\"{left}\" y=\"13\" font-weight=\"bold\" font-size=\"11\">{esc(name)}</text>"]
    if bad:
        note = f"▼ {len(bad)} non-finite (NaN/Inf), first at step {_fmt(bad[0][0])}"
        # on the title's line when both fit, else on a line of its own
        same_line = left + len(name) * 6.8 + 12 < width - right - _label_width(note)
        head.append(f"<text class=\"note\" x=\"{width - right}\" y=\"{13 if same_line else 26}\" text-anchor=\"end\" "
                    f"fill=\"#c0392b\">{esc(note)}</text>")
    head_h = 18 if not bad or same_line else 31
    if not pts:
        top = head_h + 4
        ph = height - top - bottom
        return (f"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" role=\"img\" aria-label=\"{esc(name)}\" "
                f"font-family=\"Liberation Sans, Arial, sans-serif\" font-size=\"10\">{''.join(head)}"
                f"<rect x=\"{left}\" y=\"{top}\" width=\"{width - left - right}\" height=\"{ph}\" fill=\"#fff\" stroke=\"#888\" stroke-width=\"0.8\"/>"
                f"<text x=\"{left + (width - left - right) / 2}\" y=\"{top + ph / 2}\" text-anchor=\"middle\" fill=\"#777\">no data</text></svg>")
    pw = width - left - right
    xs = [p[0] for p in pts]
    x_lo, x_hi = min(xs), max(xs)
    spans_steps = []
    for m in marks or []:
        a, b = _to_float(m.get("first_step", m.get("step"))), _to_float(m.get("last_step", m.get("step")))
        if not _finite(a):
            continue
        b = a if not _finite(b) else b
        spans_steps.append((min(a, b), max(a, b), str(m.get("label") or "anomaly")))
        x_lo, x_hi = min(x_lo, a, b), max(x_hi, a, b)
    if x_hi == x_lo:
        x_hi = x_lo + 1

    def sx(x: float) -> float:
        return left + (x - x_lo) / (x_hi - x_lo) * pw

    labels = place_labels([(sx(a), sx(b), t) for a, b, t in spans_steps], left, left + pw)
    rows = 1 + max((r for _, r, _ in labels), default=-1)
    top = head_h + 4 + rows * LABEL_ROW
    ph = max(60, height - 22 - bottom)  # the plot keeps its height; the labels add to the chart's
    total_h = top + ph + bottom
    ys = [p[1] for p in finite]
    log = bool(ys) and min(ys) > 0 and max(ys) / min(ys) > 1e3
    if log:
        ys_t = [math.log10(y) for y in ys]
        y_lo, y_hi = math.floor(min(ys_t)), math.ceil(max(ys_t))
        if y_hi == y_lo:
            y_hi += 1
        ticks = list(range(int(y_lo), int(y_hi) + 1))
        step = max(1, math.ceil(len(ticks) / 6))
        ticks = ticks[::step]
    elif ys:
        y_lo, y_hi = min(ys), max(ys)
        if y_hi == y_lo:
            pad = abs(y_lo) * 0.1 or 1.0
            y_lo, y_hi = y_lo - pad, y_hi + pad
        ticks = _nice_ticks(y_lo, y_hi)
        if ticks:
            y_lo, y_hi = min(y_lo, ticks[0]), max(y_hi, ticks[-1])
    else:
        y_lo, y_hi, ticks = 0.0, 1.0, []

    def sy(y: float) -> float:
        v = math.log10(y) if log else y
        return top + ph - (v - y_lo) / (y_hi - y_lo) * ph

    parts = [f"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {total_h}\" role=\"img\" "
             f"aria-label=\"{esc(name)}\" font-family=\"Liberation Sans, Arial, sans-serif\" font-size=\"10\">"]
    parts += head
    parts.append(f"<rect x=\"{left}\" y=\"{top}\" width=\"{pw}\" height=\"{ph}\" fill=\"#fff\" stroke=\"#888\" stroke-width=\"0.8\"/>")
    # grid and axes
    tick_text = tick_labels([10.0 ** t for t in ticks] if log else ticks)
    for t, label in zip(ticks, tick_text):
        yy = top + ph - (t - y_lo) / (y_hi - y_lo) * ph
        parts.append(f"<line x1=\"{left}\" x2=\"{left + pw}\" y1=\"{yy:.1f}\" y2=\"{yy:.1f}\" stroke=\"#e3e3e3\" stroke-width=\"0.7\"/>")
        parts.append(f"<text class=\"ytick\" x=\"{left - 4}\" y=\"{yy + 3:.1f}\" text-anchor=\"end\" fill=\"#444\">{esc(label)}</text>")
    xt = [t for t in _nice_ticks(x_lo, x_hi, 6) if x_lo <= t <= x_hi]
    for t, label in zip(xt, tick_labels(xt)):
        xx = sx(t)
        parts.append(f"<line x1=\"{xx:.1f}\" x2=\"{xx:.1f}\" y1=\"{top + ph}\" y2=\"{top + ph + 3}\" stroke=\"#888\"/>")
        parts.append(f"<text class=\"xtick\" x=\"{xx:.1f}\" y=\"{top + ph + 13}\" text-anchor=\"middle\" fill=\"#444\">{esc(label)}</text>")
    parts.append(f"<text class=\"xlabel\" x=\"{left + pw}\" y=\"{total_h - 3}\" text-anchor=\"end\" fill=\"#666\">step</text>")
    if log:  # the y axis is the logarithmic one: say so along it
        cy = top + ph / 2
        parts.append(f"<text class=\"ylabel\" x=\"9\" y=\"{cy:.1f}\" transform=\"rotate(-90 9 {cy:.1f})\" "
                     f"text-anchor=\"middle\" fill=\"#666\">log scale</text>")
    # anomaly marks under the line, their labels in rows above the plot
    for (a, b, text), (lx, row, shown) in zip(spans_steps, labels):
        xa, xb = sx(a), sx(b)
        if xb - xa < 2:
            parts.append(f"<line class=\"mark\" x1=\"{xa:.1f}\" x2=\"{xa:.1f}\" y1=\"{top}\" y2=\"{top + ph}\" stroke=\"#c0392b\" stroke-width=\"1.6\" stroke-dasharray=\"4 2\"/>")
        else:
            parts.append(f"<rect class=\"mark\" x=\"{xa:.1f}\" y=\"{top}\" width=\"{xb - xa:.1f}\" height=\"{ph}\" fill=\"#c0392b\" fill-opacity=\"0.14\" stroke=\"#c0392b\" stroke-width=\"0.8\"/>")
        ly = head_h + 4 + row * LABEL_ROW + 10
        parts.append(f"<line x1=\"{xa:.1f}\" x2=\"{xa:.1f}\" y1=\"{ly + 2:.1f}\" y2=\"{top}\" stroke=\"#c0392b\" stroke-width=\"0.6\"/>")
        parts.append(f"<text class=\"marklabel\" x=\"{lx:.1f}\" y=\"{ly:.1f}\" fill=\"#c0392b\" font-weight=\"bold\">"
                     f"<title>{esc(text)}</title>{esc(shown)}</text>")
    # the series, broken at non-finite values
    runs: list[list[tuple[float, float]]] = [[]]
    for p in _decimate(pts, pw):
        if math.isfinite(p[1]) and not (log and p[1] <= 0):
            runs[-1].append(p)
        elif runs[-1]:
            runs.append([])
    for run in runs:
        if len(run) == 1:
            x, y = run[0]
            parts.append(f"<circle cx=\"{sx(x):.1f}\" cy=\"{sy(y):.1f}\" r=\"1.8\" fill=\"#0b5cad\"/>")
        elif run:
            d = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in run)
            parts.append(f"<polyline points=\"{d}\" fill=\"none\" stroke=\"#0b5cad\" stroke-width=\"1.3\" stroke-linejoin=\"round\"/>")
    for x, _y in bad[:400]:
        xx = sx(x)
        parts.append(f"<path class=\"nonfinite\" d=\"M{xx - 3.5:.1f},{top + 1} L{xx + 3.5:.1f},{top + 1} L{xx:.1f},{top + 7} Z\" fill=\"#c0392b\"/>")
    parts.append("</svg>")
    return "".join(parts)


def _short(title: str) -> str:
    """A detector title's first clause: 'Loss stays near ln(number of classes)' of
    'Loss stays near ln(number of classes): the model predicts uniformly'."""
    return title.split(": ")[0].strip()


def as_report(doc) -> Report:
    """The report to render: a `Report`, or a `scan --json` document read back into one (a saved
    document, a test's), so every report renderer reads typed records and checks shapes nowhere."""
    return doc if isinstance(doc, Report) else Report.from_json(doc)


def finding_title(f, kb=None) -> str:
    """A finding in plain words: its detector's title (never the internal ID when a title exists)."""
    node = kb.get(str(f.detector)) if (kb is not None and f.detector) else None
    if node is not None and node.title:
        return node.title
    return str(f.title or f.detector or "finding")


def finding_answer(f, kb=None) -> str:
    """What the finding answered, in words: 'What does the gradient norm look like? Growing steadily'."""
    if not f.symptom:
        return ""
    node = kb.get(str(f.symptom)) if kb is not None else None
    if node is None:
        return ""
    label = f.answer
    for ans in node.get("answers") or []:
        if isinstance(ans, dict) and str(ans.get("value")) == str(f.answer):
            label = ans.get("label") or f.answer
    return f"{str(node.get('question') or node.title).strip()} → {label}"


_NAME_EDGE = r"(?<![\w/.-]){}(?![\w/-])"


def finding_metrics(f, names) -> list[str]:
    """The series a finding rests on: its own metric, then every other series its sentence
    names ('loss stays at ln 5 ... eval/accuracy 0.183 (chance 0.2)' rests on both)."""
    import re

    out = [f.metric] if f.metric in names else []
    text = str(f.summary or "")
    for name in sorted(names, key=len, reverse=True):
        if name not in out and re.search(_NAME_EDGE.format(re.escape(name)), text):
            out.append(name)
    return out


def marks_from_findings(report: Report, series: dict | None = None, kb=None) -> list[dict]:
    """One mark per finding and series it rests on, labelled with the finding's number and its
    detector's title in plain words: what the charts shade."""
    marks = []
    names = list(series or {})
    for n, f in enumerate(report.findings, start=1):
        d = f.to_dict()
        if d["first_step"] is None and d["last_step"] is None:
            continue
        metrics = finding_metrics(f, names) if names else ([f.metric] if f.metric else [])
        label = f"{n}. {_short(finding_title(f, kb))}" if (kb is not None or f.title) else \
            f"{n}. " + (f.symptom and f"{f.symptom} = {f.answer}" or f.detector or "anomaly")
        for metric in metrics:
            marks.append({"metric": metric, "first_step": d["first_step"], "last_step": d["last_step"],
                          "label": label, "finding": n})
    return marks


def chart_order(report: Report, series: dict | None, marks: list[dict]) -> list[str]:
    """The series the findings rest on first (in finding order), then the rest by name."""
    if not series:
        return []
    first = []
    found = [m for f in report.findings for m in finding_metrics(f, list(series))]
    for m in found + [m.get("metric") for m in marks]:
        if m in series and m not in first:
            first.append(m)
    return first + sorted(k for k in series if k not in first)


def report_series(report, limit: int = 6, max_points: int = 4000) -> dict:
    """The series a report charts, as (step, value) points: every series a finding rests on (its
    sentence names them), then the key ones, up to `limit` (more when the findings need more).
    A long series is thinned to about `max_points`, keeping its non-finite points and extremes."""
    report = as_report(report)
    run = report.run
    if run is None or not getattr(run, "series", None):
        return {}
    names: list[str] = []
    for f in report.findings:
        names += [m for m in finding_metrics(f, list(run.series)) if m not in names]
    found = len(names)
    for key in ("loss", "eval/loss", "grad_norm", "learning_rate", "reward", "rewards/margins"):
        if key in run.series and key not in names:
            names.append(key)
    return {name: _thinned(run.series[name], max_points) for name in names[:max(limit, found)]}


def _thinned(s, max_points: int) -> list[tuple[float, float]]:
    """Every `step`-th point, plus the non-finite ones (at most 200) and the extremes thinning would drop."""
    step = max(1, len(s) // max_points)
    xs, ys = s.steps[::step], s.values[::step]
    if step > 1:
        import numpy as np

        keep = np.flatnonzero(~np.isfinite(s.values))[:200]
        fin = np.isfinite(s.values)
        if fin.any():
            keep = np.concatenate([keep, [int(np.nanargmax(np.where(fin, s.values, np.nan))),
                                          int(np.nanargmin(np.where(fin, s.values, np.nan)))]])
        idx = np.union1d(np.arange(0, len(s), step), keep.astype(int))
        xs, ys = s.steps[idx], s.values[idx]
    return [(float(x), float(y)) for x, y in zip(xs, ys)]


def _marks_for(metric: str, marks: list[dict]) -> list[dict]:
    return [m for m in marks if m.get("metric") in (None, "", "*", metric)]


# -- reports --------------------------------------------------------------------------------
def knob_html(knob) -> str:
    """A knob as code with its line breaks kept (a multi-line knob run together on one line is
    not the code any more)."""
    text = str(knob or "").strip("\n")
    if "\n" in text:
        import textwrap

        return f"<pre class=\"knob\">{esc(textwrap.dedent(text))}</pre>"
    return f"<code>{esc(text.strip())}</code>"


def render_report_html(doc, series: dict | None = None, marks: list[dict] | None = None,
                       kb=None, title: str | None = None, paper: str | None = None,
                       max_charts: int = 8) -> str:
    """A diagnosis report as one offline HTML page, from a `Report` (or its `scan --json` document).

    `series` maps a canonical metric name to its (step, value) points (default: `report_series`,
    from the report's run); `marks` shade the anomaly on the charts (default: one mark per finding).
    `kb` supplies each cause's `verify` and `next_if_not` for the to-do list (default: the built-in
    knowledge base).
    """
    report = as_report(doc)
    if kb is None:
        from triage.kb.base import KnowledgeBase

        kb = KnowledgeBase.load()
    series = report_series(report) if series is None else series
    marks = marks_from_findings(report, series, kb) if marks is None else list(marks)
    title = title or "triage report"
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out: list[str] = [_report_header(report, title, stamp), _sources_html(report), _findings_html(report, kb)]
    out.append(_charts_html(report, series, marks, max_charts))
    out.append(_causes_html(report, kb))
    out.append(_todo_html(report, kb))
    out.append(_open_questions_html(report))
    out.append(f"<footer>triage {esc(report.version or __version__)} · made from the <code>scan --json</code> document; "
               "the charts are inline SVG and the page fetches nothing.</footer>\n")
    return _document(title, "".join(out), paper)


def _report_header(report: Report, title: str, stamp: str) -> str:
    """The title and the verdict: healthy, or how many findings and the most likely cause."""
    if report.healthy and not report.causes:
        verdict = "<span class=\"badge ok\">healthy</span> no finding counts against this run."
    else:
        top = report.causes[0] if report.causes else None
        verdict = (f"<span class=\"badge bad\">problems</span> {len(report.findings)} finding(s); "
                   + (f"most likely <b>{esc(top.id)}</b> {esc(top.title)}." if top else "no cause ranked yet."))
    return (f"<header>\n<h1>{esc(title)}</h1>\n<p>{verdict}</p>\n<p class=\"meta\">triage {esc(report.version or __version__)} "
            f"· made {esc(stamp)} · one self-contained file: no scripts, no network.</p>\n</header>\n")


def _sources_html(report: Report) -> str:
    out = ["<section>\n<h2 id=\"read\">What was read</h2>\n"]
    if report.sources:
        out.append("<table class=\"grid\"><thead><tr><th>file</th><th>format</th><th>rows</th><th>skipped</th><th>metrics</th></tr></thead><tbody>\n")
        for s in report.sources:
            metrics = ", ".join(str(m) for m in s.metrics or [])
            out.append(f"<tr><td><code>{esc(s.path)}</code></td><td>{esc(s.format)}</td>"
                       f"<td>{esc(s.rows)}</td><td>{esc(s.skipped)}</td><td>{esc(metrics)}</td></tr>\n")
        out.append("</tbody></table>\n")
    else:
        out.append("<p class=\"desc\">No log was read; the diagnosis rests on answers and probe results.</p>\n")
    out.append("</section>\n")
    return "".join(out)


def _findings_html(report: Report, kb) -> str:
    """One row per finding: its detector's title in words, what it answered, where and the numbers."""
    out = ["<section>\n<h2 id=\"findings\">Findings</h2>\n"]
    if report.findings:
        out.append("<table class=\"grid findings\"><thead><tr><th>#</th><th>what</th><th>metric</th><th>steps</th><th>the numbers</th></tr></thead><tbody>\n")
        for n, f in enumerate(report.findings, start=1):
            answered = finding_answer(f, kb)
            d = f.to_dict()
            steps = "" if d["first_step"] is None else (
                f"{d['first_step']}" + (f"–{d['last_step']}" if d["last_step"] not in (None, d["first_step"]) else ""))
            out.append(f"<tr title=\"{esc(f.detector)}\"><td>{n}</td><td><b>{esc(finding_title(f, kb))}</b>"
                       + (f"<br><span class=\"meta\">{esc(answered)}</span>" if answered else "")
                       + f"</td><td><code>{esc(f.metric)}</code></td><td>{esc(steps)}</td><td>{esc(f.summary)}</td></tr>\n")
        out.append("</tbody></table>\n")
    else:
        out.append("<p class=\"desc\">No detector fired.</p>\n")
    out.append("</section>\n")
    return "".join(out)


def _charts_html(report: Report, series: dict, marks: list[dict], max_charts: int) -> str:
    names = chart_order(report, series, marks)[:max_charts]
    if not names:
        return ""
    out = ["<section>\n<h2 id=\"charts\">Key series</h2>\n"]
    for name in names:
        mine = _marks_for(name, marks)
        caption = "; ".join(str(m.get("label")) for m in mine if m.get("label")) or "no anomaly marked"
        out.append(f"<figure class=\"chart\">{svg_chart(name, series[name], mine)}"
                   f"<figcaption>{esc(name)}: {len(series[name])} points · shaded: {esc(caption)}</figcaption></figure>\n")
    out.append("</section>\n")
    return "".join(out)


def _causes_html(report: Report, kb) -> str:
    """Each ranked cause with a score bar, what it refines, its evidence and its knobs."""
    from triage.kb.checklists import make_link

    out = ["<section>\n<h2 id=\"causes\">Ranked causes</h2>\n"]
    if not report.causes:
        out.append("<p class=\"desc\">No cause has evidence for it.</p>\n</section>\n")
        return "".join(out)
    best = max([c.score for c in report.causes if c.score is not None] or [1.0]) or 1.0
    for rank, c in enumerate(report.causes, start=1):
        link = make_link(kb, c.id)
        bar = (f" <span class=\"scorebar\"><i style=\"width:{max(0.0, min(1.0, c.score / best)) * 100:.0f}%\"></i></span> "
               f"<span class=\"meta\">score {c.score:.2f}</span>") if c.score is not None else ""
        out.append(f"<div class=\"cause\" id=\"cause-{esc(c.id)}\">\n<h3>{rank}. {esc(c.id)} · {esc(c.title or link.title)}{bar}</h3>\n")
        if c.aliases:
            out.append(f"<p class=\"meta\">refines {esc(', '.join(c.aliases))}</p>\n")
        if c.evidence:
            out.append("<ul class=\"evidence\">" + "".join(f"<li>{esc(e.line())}</li>" for e in c.evidence) + "</ul>\n")
        out.append(_knobs_html(c.fix))
        out.append(_links_html([link]))
        out.append("</div>\n")
    out.append("</section>\n")
    return "".join(out)


def _knobs_html(fixes) -> str:
    """A cause's knobs as a table of knob, range and expected change (nothing when it has none)."""
    if not fixes:
        return ""
    rows = "".join(f"<tr><td>{knob_html(f.knob)}</td><td>{esc(f.range)}</td><td>{esc(f.expect)}</td></tr>" for f in fixes)
    return ("<table class=\"grid knobs\"><thead><tr><th>knob</th><th>range</th><th>expect</th></tr></thead><tbody>"
            + rows + "</tbody></table>\n")


def _todo_html(report: Report, kb) -> str:
    """The fixes in the order to try them (triage.checklists.fix_plan), as boxes to tick."""
    from triage.kb.checklists import fix_plan

    plan = fix_plan({"causes": [c.to_json() for c in report.causes]}, kb)
    if not plan:
        return ""
    out = ["<section>\n<h2 id=\"todo\">To do: fixes in the order to try them</h2>\n"
           "<p class=\"sec-note\">One change at a time; after each, run the verification and tick the box "
           "only when the logs changed as expected.</p>\n<ol class=\"items\">\n"]
    for step in plan:
        also = f" (also serves {', '.join(step.also_for)})" if step.also_for else ""
        out.append(f"<li class=\"item\" id=\"todo-{step.number}\"><span class=\"box\" aria-hidden=\"true\"></span>\n<div>\n"
                   f"<p class=\"text\"><span class=\"num\">{step.number}</span>For <b>{esc(step.cause_id)}</b> "
                   f"{esc(step.cause_title)}{esc(also)}</p>\n")
        nxt = f"{step.next_if_not} {step.next_title}".strip() if step.next_if_not else ""
        out.append(_facts([("Try", step.knob), ("Range", step.range), ("Expect", step.expect),
                           ("Verify", step.verify), ("If not", nxt)], code_keys=("Try",)))
        if step.url:
            out.append(f"<ol class=\"notes\"><li>triage explain {esc(step.cause_id)} · {esc(step.url)}</li></ol>\n")
        out.append("</div></li>\n")
    out.append("</ol>\n</section>\n")
    return "".join(out)


def _open_questions_html(report: Report) -> str:
    if not report.unanswered:
        return ""
    out = ["<section>\n<h2 id=\"open\">Open questions</h2>\n<p class=\"sec-note\">The logs could not answer these; "
           "<code>triage ask</code> asks them and sharpens the ranking.</p>\n<ol class=\"items\">\n"]
    for q in report.unanswered:
        out.append(f"<li class=\"item\"><span class=\"box\" aria-hidden=\"true\"></span><div><p class=\"text\">"
                   f"<span class=\"num\">{esc(q.id)}</span>{esc(q.question)}</p></div></li>\n")
    out.append("</ol>\n</section>\n")
    return "".join(out)
