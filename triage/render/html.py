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


def _fmt(v: float, digits: int = 3) -> str:
    """`digits` significant digits, no trailing zeros; powers of ten past 1e5 or under 1e-3."""
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e5 or a < 1e-3:
        mant, exp = f"{v:.{max(1, digits - 1)}e}".split("e")
        if "." in mant:
            mant = mant.rstrip("0").rstrip(".")
        return f"{mant}e{int(exp)}"
    text = f"{v:.{max(0, digits - 1 - math.floor(math.log10(a)))}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


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
    for x, y in bad[:400]:
        xx = sx(x)
        parts.append(f"<path class=\"nonfinite\" d=\"M{xx - 3.5:.1f},{top + 1} L{xx + 3.5:.1f},{top + 1} L{xx:.1f},{top + 7} Z\" fill=\"#c0392b\"/>")
    parts.append("</svg>")
    return "".join(parts)


def _short(title: str) -> str:
    """A detector title's first clause: 'Loss stays near ln(number of classes)' of
    'Loss stays near ln(number of classes): the model predicts uniformly'."""
    return title.split(": ")[0].strip()


def finding_title(f: dict, kb=None) -> str:
    """A finding in plain words: its detector's title (never the internal ID when a title exists)."""
    det = f.get("detector")
    node = kb.get(str(det)) if (kb is not None and det) else None
    if node is not None and node.title:
        return node.title
    return str(f.get("title") or det or "finding")


def finding_answer(f: dict, kb=None) -> str:
    """What the finding answered, in words: 'What does the gradient norm look like? Growing steadily'."""
    q, a = f.get("symptom"), f.get("answer")
    if not q:
        return ""
    node = kb.get(str(q)) if kb is not None else None
    if node is None:
        return ""
    label = a
    for ans in node.get("answers") or []:
        if isinstance(ans, dict) and str(ans.get("value")) == str(a):
            label = ans.get("label") or a
    return f"{str(node.get('question') or node.title).strip()} → {label}"


_NAME_EDGE = r"(?<![\w/.-]){}(?![\w/-])"


def finding_metrics(f: dict, names) -> list[str]:
    """The series a finding rests on: its own metric, then every other series its sentence
    names ('loss stays at ln 5 ... eval/accuracy 0.183 (chance 0.2)' rests on both)."""
    import re

    out = [f["metric"]] if f.get("metric") in names else []
    text = str(f.get("summary") or "")
    for name in sorted(names, key=len, reverse=True):
        if name not in out and re.search(_NAME_EDGE.format(re.escape(name)), text):
            out.append(name)
    return out


def marks_from_findings(doc: dict, series: dict | None = None, kb=None) -> list[dict]:
    """One mark per finding and series it rests on, labelled with the finding's number and its
    detector's title in plain words: what the charts shade."""
    marks = []
    names = list(series or {})
    for n, f in enumerate([f for f in doc.get("findings") or [] if isinstance(f, dict)], start=1):
        if f.get("first_step") is None and f.get("last_step") is None:
            continue
        metrics = finding_metrics(f, names) if names else ([f["metric"]] if f.get("metric") else [])
        label = f"{n}. {_short(finding_title(f, kb))}" if (kb is not None or f.get("title")) else \
            f"{n}. " + (f.get("symptom") and f"{f.get('symptom')} = {f.get('answer')}" or f.get("detector") or "anomaly")
        for metric in metrics:
            marks.append({"metric": metric, "first_step": f.get("first_step"),
                          "last_step": f.get("last_step", f.get("first_step")), "label": label, "finding": n})
    return marks


def chart_order(doc: dict, series: dict | None, marks: list[dict]) -> list[str]:
    """The series the findings rest on first (in finding order), then the rest by name."""
    if not series:
        return []
    first = []
    found = [m for f in doc.get("findings") or [] if isinstance(f, dict) for m in finding_metrics(f, list(series))]
    for m in found + [m.get("metric") for m in marks]:
        if m in series and m not in first:
            first.append(m)
    return first + sorted(k for k in series if k not in first)


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


def render_report_html(doc: dict, series: dict | None = None, marks: list[dict] | None = None,
                       kb=None, title: str | None = None, paper: str | None = None,
                       max_charts: int = 8) -> str:
    """A diagnosis report as one offline HTML page, from the `scan --json` document.

    `series` maps a canonical metric name to its (step, value) points; `marks` shade the
    anomaly on the charts (default: one mark per finding). `kb` supplies each cause's `verify`
    and `next_if_not` for the to-do list (default: the built-in knowledge base).
    """
    from triage.checklists import fix_plan, make_link

    if kb is None:
        from triage.kb.base import KnowledgeBase

        kb = KnowledgeBase.load()
    marks = marks_from_findings(doc, series, kb) if marks is None else list(marks)
    healthy = bool(doc.get("healthy"))
    findings = [f for f in doc.get("findings") or [] if isinstance(f, dict)]
    causes = [c for c in doc.get("causes") or [] if isinstance(c, dict)]
    sources = [s for s in doc.get("sources") or [] if isinstance(s, dict)]
    unanswered = [q for q in doc.get("unanswered") or [] if isinstance(q, dict)]
    title = title or "triage report"
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out: list[str] = [f"<header>\n<h1>{esc(title)}</h1>\n"]
    if healthy and not causes:
        verdict = "<span class=\"badge ok\">healthy</span> no finding counts against this run."
    else:
        top = causes[0] if causes else None
        verdict = (f"<span class=\"badge bad\">problems</span> {len(findings)} finding(s); "
                   + (f"most likely <b>{esc(top.get('id'))}</b> {esc(top.get('title'))}." if top else "no cause ranked yet."))
    out.append(f"<p>{verdict}</p>\n<p class=\"meta\">triage {esc(doc.get('version') or __version__)} · made {esc(stamp)} · "
               "one self-contained file: no scripts, no network.</p>\n</header>\n")

    out.append("<section>\n<h2 id=\"read\">What was read</h2>\n")
    if sources:
        out.append("<table class=\"grid\"><thead><tr><th>file</th><th>format</th><th>rows</th><th>skipped</th><th>metrics</th></tr></thead><tbody>\n")
        for s in sources:
            metrics = ", ".join(str(m) for m in s.get("metrics") or [])
            out.append(f"<tr><td><code>{esc(s.get('path'))}</code></td><td>{esc(s.get('format'))}</td>"
                       f"<td>{esc(s.get('rows'))}</td><td>{esc(s.get('skipped'))}</td><td>{esc(metrics)}</td></tr>\n")
        out.append("</tbody></table>\n")
    else:
        out.append("<p class=\"desc\">No log was read; the diagnosis rests on answers and probe results.</p>\n")
    out.append("</section>\n")

    out.append("<section>\n<h2 id=\"findings\">Findings</h2>\n")
    if findings:
        out.append("<table class=\"grid findings\"><thead><tr><th>#</th><th>what</th><th>metric</th><th>steps</th><th>the numbers</th></tr></thead><tbody>\n")
        for n, f in enumerate(findings, start=1):
            answered = finding_answer(f, kb)
            steps = "" if f.get("first_step") is None else (
                f"{f.get('first_step')}" + (f"–{f.get('last_step')}" if f.get("last_step") not in (None, f.get("first_step")) else ""))
            out.append(f"<tr title=\"{esc(f.get('detector'))}\"><td>{n}</td><td><b>{esc(finding_title(f, kb))}</b>"
                       + (f"<br><span class=\"meta\">{esc(answered)}</span>" if answered else "")
                       + f"</td><td><code>{esc(f.get('metric'))}</code></td><td>{esc(steps)}</td><td>{esc(f.get('summary'))}</td></tr>\n")
        out.append("</tbody></table>\n")
    else:
        out.append("<p class=\"desc\">No detector fired.</p>\n")
    out.append("</section>\n")

    names = chart_order(doc, series, marks)[:max_charts]
    if names:
        out.append("<section>\n<h2 id=\"charts\">Key series</h2>\n")
        for name in names:
            mine = _marks_for(name, marks)
            caption = "; ".join(str(m.get("label")) for m in mine if m.get("label")) or "no anomaly marked"
            out.append(f"<figure class=\"chart\">{svg_chart(name, series[name], mine)}"
                       f"<figcaption>{esc(name)}: {len(series[name])} points · shaded: {esc(caption)}</figcaption></figure>\n")
        out.append("</section>\n")

    out.append("<section>\n<h2 id=\"causes\">Ranked causes</h2>\n")
    if causes:
        best = max([c.get("score") for c in causes if isinstance(c.get("score"), (int, float))] or [1.0]) or 1.0
        for rank, c in enumerate(causes, start=1):
            link = make_link(kb, str(c.get("id")))
            score = c.get("score")
            bar = (f" <span class=\"scorebar\"><i style=\"width:{max(0.0, min(1.0, score / best)) * 100:.0f}%\"></i></span> "
                   f"<span class=\"meta\">score {score:.2f}</span>") if isinstance(score, (int, float)) else ""
            out.append(f"<div class=\"cause\" id=\"cause-{esc(c.get('id'))}\">\n<h3>{rank}. {esc(c.get('id'))} · {esc(c.get('title') or link.title)}{bar}</h3>\n")
            if c.get("aliases"):
                out.append(f"<p class=\"meta\">refines {esc(', '.join(map(str, c.get('aliases'))))}</p>\n")
            evidence = [str(e) for e in c.get("evidence") or []]
            if evidence:
                out.append("<ul class=\"evidence\">" + "".join(f"<li>{esc(e)}</li>" for e in evidence) + "</ul>\n")
            fixes = [f for f in c.get("fix") or [] if isinstance(f, dict)]
            if fixes:
                out.append("<table class=\"grid knobs\"><thead><tr><th>knob</th><th>range</th><th>expect</th></tr></thead><tbody>")
                for f in fixes:
                    out.append(f"<tr><td>{knob_html(f.get('knob'))}</td><td>{esc(f.get('range'))}</td><td>{esc(f.get('expect'))}</td></tr>")
                out.append("</tbody></table>\n")
            out.append(_links_html([link]))
            out.append("</div>\n")
    else:
        out.append("<p class=\"desc\">No cause has evidence for it.</p>\n")
    out.append("</section>\n")

    plan = fix_plan(doc, kb)
    if plan:
        out.append("<section>\n<h2 id=\"todo\">To do: fixes in the order to try them</h2>\n"
                   "<p class=\"sec-note\">One change at a time; after each, run the verification and tick the box "
                   "only when the logs changed as expected.</p>\n<ol class=\"items\">\n")
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

    if unanswered:
        out.append("<section>\n<h2 id=\"open\">Open questions</h2>\n<p class=\"sec-note\">The logs could not answer these; "
                   "<code>triage ask</code> asks them and sharpens the ranking.</p>\n<ol class=\"items\">\n")
        for n, q in enumerate(unanswered, start=1):
            out.append(f"<li class=\"item\"><span class=\"box\" aria-hidden=\"true\"></span><div><p class=\"text\">"
                       f"<span class=\"num\">{esc(q.get('id'))}</span>{esc(q.get('question'))}</p></div></li>\n")
        out.append("</ol>\n</section>\n")
    out.append(f"<footer>triage {esc(doc.get('version') or __version__)} · made from the <code>scan --json</code> document; "
               "the charts are inline SVG and the page fetches nothing.</footer>\n")
    return _document(title, "".join(out), paper)


# -- ask transcripts ------------------------------------------------------------------------
# As `triage ask` ends: a card for the top cause and for runners-up holding at least 10%, at
# most three; everything else is one line of the ranking (a 0% cause is not worth a card).
TRANSCRIPT_CARDS = 3
TRANSCRIPT_CARD_MIN = 0.1
_ASKED = ("you", "replay")  # answers the person gave (at the prompt, or in an answers file)
_FROM = {"you": "you", "replay": "answers file", "log": "the log", "config": "the run's config",
         "default": "framework default", "probe": "a probe", "text": "error text"}


def _pct(p) -> str:
    return f"{p:.0%}" if isinstance(p, (int, float)) else ""


def transcript_cards(causes: list[dict]) -> list[dict]:
    """The causes that get a full card: the top one, then runners-up with >= 10%, at most three."""
    if not causes:
        return []
    return [causes[0]] + [c for c in causes[1:TRANSCRIPT_CARDS] if (c.get("probability") or 0) >= TRANSCRIPT_CARD_MIN]


def _answer_label(kb, qid: str, value: str) -> str:
    node = kb.get(qid) if kb is not None else None
    for ans in (node.get("answers") or []) if node is not None else []:
        if isinstance(ans, dict) and str(ans.get("value")) == value:
            return str(ans.get("label") or value)
    return value


def render_transcript_html(doc: dict, paper: str | None = None, kb=None) -> str:
    """An `ask` session transcript (triage.engine.transcript.build) as one offline page: the
    person's answers, the evidence read from logs and probes, the ranking, and full cards only
    for the causes that earned one. `kb` names answers in words (default: the built-in one)."""
    if kb is None:
        from triage.kb.base import KnowledgeBase

        kb = KnowledgeBase.load()
    answers = [a for a in doc.get("answers") or [] if isinstance(a, dict)]
    mine = [a for a in answers if a.get("source") in _ASKED]
    evidence = [e for e in doc.get("evidence") or [] if isinstance(e, dict)]
    causes = [c for c in doc.get("causes") or [] if isinstance(c, dict)]
    labels = {(a.get("question"), a.get("answer")): (a.get("text"), a.get("label")) for a in answers}
    status = str(doc.get("status") or "in-progress")
    title = f"triage ask: session transcript ({status})"
    out = [f"<header>\n<h1>{esc(title)}</h1>\n"]
    top = causes[0] if causes else None
    badge = "ok" if status in ("done", "finished") else "bad"
    lead = (f"most likely <b>{esc(top.get('id'))}</b> {esc(top.get('title'))} ({_pct(top.get('probability'))})."
            if top else "no candidate cause left.")
    out.append(f"<p><span class=\"badge {badge}\">{esc(status)}</span> {len(mine)} answer(s) from you; {lead}</p>\n")
    out.append(f"<p class=\"meta\">triage {esc(doc.get('triage') or __version__)} · started {esc(doc.get('created'))} · "
               f"updated {esc(doc.get('updated'))} · one self-contained file: no scripts, no network.</p>\n</header>\n")

    out.append("<section>\n<h2 id=\"answers\">Your answers</h2>\n")
    if mine:
        out.append("<table class=\"grid answers\"><thead><tr><th>#</th><th>question</th><th>your answer</th></tr></thead><tbody>\n")
        for n, a in enumerate(mine, start=1):
            src = "" if a.get("source") == "you" else f" <span class=\"meta\">({esc(_FROM.get(a.get('source'), a.get('source')))})</span>"
            out.append(f"<tr title=\"{esc(a.get('question'))} = {esc(a.get('answer'))}\"><td>{n}</td><td>{esc(a.get('text'))}</td>"
                       f"<td>{esc(a.get('label'))}{src}</td></tr>\n")
        out.append("</tbody></table>\n")
    else:
        out.append("<p class=\"desc\">No question answered yet.</p>\n")
    out.append("</section>\n")

    if evidence:
        out.append("<section>\n<h2 id=\"evidence\">Read from logs, probes and error text</h2>\n"
                   "<table class=\"grid evidence\"><thead><tr><th>what was found</th><th>what it answers</th><th>from</th></tr></thead><tbody>\n")
        for e in evidence:
            if e.get("question"):
                q, label = labels.get((e.get("question"), e.get("answer")), (e.get("question"), e.get("answer")))
                if "|" in str(e.get("answer")):  # several answers at once ("growing|high"): each in words
                    label = " or ".join(_answer_label(kb, e["question"], v) for v in str(e["answer"]).split("|"))
                answers_what = f"{q} → {label}"
            else:
                answers_what = f"points to {e.get('cause')}"
            out.append(f"<tr><td>{esc(e.get('evidence'))}</td><td>{esc(answers_what)}</td>"
                       f"<td>{esc(_FROM.get(e.get('source'), e.get('source')))}</td></tr>\n")
        out.append("</tbody></table>\n</section>\n")
    if doc.get("excluded"):
        out.append(f"<p class=\"meta\">Ruled out by you (\"not it\"): {esc(', '.join(map(str, doc['excluded'])))}</p>\n")

    out.append("<section>\n<h2 id=\"ranking\">Ranked causes</h2>\n")
    if causes:
        out.append("<table class=\"grid ranking\"><thead><tr><th>#</th><th>cause</th><th>p</th><th>why</th></tr></thead><tbody>\n")
        shown = [c for c in causes if (c.get("probability") or 0) >= 0.005] or causes[:1]
        for c in shown:
            why = "; ".join(map(str, c.get("support") or [])) or "no direct evidence yet"
            if c.get("against"):
                why += " · against: " + "; ".join(map(str, c["against"]))
            out.append(f"<tr><td>{esc(c.get('rank'))}</td><td><b>{esc(c.get('id'))}</b> {esc(c.get('title'))}</td>"
                       f"<td>{_pct(c.get('probability'))}</td><td>{esc(why)}</td></tr>\n")
        out.append("</tbody></table>\n")
        faint = [c for c in causes if c not in shown]
        if faint:
            out.append(f"<p class=\"meta\">Under 1%: {esc(', '.join(str(c.get('id')) for c in faint))}.</p>\n")
    else:
        out.append("<p class=\"desc\">No candidate cause left.</p>\n")
    out.append("</section>\n")

    cards = transcript_cards(causes)
    if cards:
        out.append("<section>\n<h2 id=\"fixes\">The knob for the likely causes</h2>\n")
        for c in cards:
            out.append(f"<div class=\"cause\" id=\"cause-{esc(c.get('id'))}\">\n<h3>{esc(c.get('id'))} · {esc(c.get('title'))} "
                       f"<span class=\"meta\">{_pct(c.get('probability'))}</span></h3>\n")
            lines = [f"<li>✓ {esc(x)}</li>" for x in c.get("support") or []] + [f"<li>✗ {esc(x)}</li>" for x in c.get("against") or []]
            if lines:
                out.append("<ul class=\"evidence checks\">" + "".join(lines) + "</ul>\n")
            fixes = [f for f in c.get("fix") or [] if isinstance(f, dict)]
            if fixes:
                out.append("<table class=\"grid knobs\"><thead><tr><th>knob</th><th>range</th><th>expect</th></tr></thead><tbody>")
                for f in fixes:
                    out.append(f"<tr><td>{knob_html(f.get('knob'))}</td><td>{esc(f.get('range'))}</td><td>{esc(f.get('expect'))}</td></tr>")
                out.append("</tbody></table>\n")
            facts = [("Verify", str(c.get("verify") or "")),
                     ("Probes", ", ".join(f"triage probe export {p}" for p in c.get("probes") or [])),
                     ("If not", f"triage explain {c['next_if_not']}" if c.get("next_if_not") else "")]
            out.append(_facts(facts))
            out.append("</div>\n")
        rest = [c for c in causes if c not in cards and (c.get("probability") or 0) >= 0.005][:5]
        if rest:
            out.append("<p class=\"meta\">Also possible: " + "; ".join(
                f"{esc(c.get('id'))} {esc(c.get('title'))} ({_pct(c.get('probability'))})" for c in rest) + "</p>\n")
        out.append("</section>\n")
    if doc.get("notes"):
        out.append("<section>\n<h2 id=\"notes\">Notes</h2>\n<ul>" + "".join(f"<li>{esc(n)}</li>" for n in doc["notes"]) + "</ul>\n</section>\n")
    env = doc.get("environment") or {}
    if env or doc.get("command"):
        from triage.engine.transcript import _env_lines

        out.append("<section>\n<h2 id=\"environment\">Environment</h2>\n"
                   f"<pre class=\"knob\">{esc(chr(10).join(_env_lines(env)))}</pre>\n"
                   + (f"<p class=\"meta\">command: <code>{esc(doc['command'])}</code></p>\n" if doc.get("command") else "")
                   + "</section>\n")
    out.append(f"<footer>triage {esc(doc.get('triage') or __version__)} · a transcript of <code>triage ask</code>; "
               "resume it from the .json saved beside it with <code>triage ask --resume FILE.json</code>.</footer>\n")
    return _document(title, "".join(out), paper)
