"""A compact terminal chart of one series, with the anomaly marked.

Each column covers a range of points and draws their min..max as a vertical bar, so a spike
inside a million points still shows. Non-finite points are drawn as a red `×` on the base
line; the column of the marked step gets a red `▼` above it.
"""

from __future__ import annotations

import math

from rich.text import Text

from triage.render.numbers import number as _fmt
from triage.render.numbers import step_text

LABEL_W = 9      # the y labels: "-1.23e-10", the widest triage.render.numbers.number writes, fits
CHROME = LABEL_W + 2  # label, space, axis: the columns a chart adds to its plot
MAX_PLOT = 64    # a wider chart shows no more: the detectors' findings carry the numbers


def chart_width(console_width: int) -> int:
    """The plot width for a console: MAX_PLOT columns, fewer on a narrow terminal so the whole
    chart (labels and axis included) stays inside it and is never wrapped."""
    return max(8, min(MAX_PLOT, int(console_width) - CHROME))


def line_chart(steps, values, title: str = "", width: int = MAX_PLOT, height: int = 7,
               mark: tuple[float, float | None] | None = None, log: bool = False) -> Text:
    """steps/values: sequences of floats. mark: (first_step, last_step) to highlight.
    `width` is the plot's; the chart is `width + CHROME` columns wide (see `chart_width`)."""
    import numpy as np

    x = np.asarray(steps, dtype=float)
    y = np.asarray(values, dtype=float)
    n = len(y)
    out = Text()
    if title:
        out.append(title, style="bold")
        out.append(" (log scale)\n" if log else "\n", style="dim")
    if n == 0:
        out.append("(no points)\n", style="dim")
        return out
    if np.isnan(x).any():
        x = np.arange(n, dtype=float)
    finite = np.isfinite(y)
    if log:
        finite &= y > 0
    fy = np.log10(y[finite]) if log else y[finite]
    width = max(8, min(width, n))
    edges = np.linspace(0, n, width + 1).astype(int)
    lo = np.full(width, np.nan)
    hi = np.full(width, np.nan)
    bad = np.zeros(width, dtype=bool)
    yy = np.where(finite, np.log10(np.where(finite, y, 1.0)) if log else y, np.nan)
    for c in range(width):
        a, b = edges[c], max(edges[c + 1], edges[c] + 1)
        seg = yy[a:b]
        ok = np.isfinite(seg)
        if ok.any():
            lo[c], hi[c] = seg[ok].min(), seg[ok].max()
        if (~np.isfinite(y[a:b])).any():
            bad[c] = True
    if len(fy):
        vmin, vmax = float(fy.min()), float(fy.max())
    else:
        vmin, vmax = 0.0, 1.0
    span = vmax - vmin or (abs(vmax) or 1.0)
    marked = np.zeros(width, dtype=bool)
    if mark is not None and mark[0] is not None:
        m0 = mark[0]
        m1 = mark[1] if mark[1] is not None else m0
        cols_x = x[np.minimum(edges[:-1], n - 1)]
        cols_x_end = x[np.minimum(np.maximum(edges[1:] - 1, 0), n - 1)]
        marked = (cols_x_end >= m0) & (cols_x <= m1)
        if not marked.any():
            marked[int(np.argmin(np.abs(cols_x - m0)))] = True
    label_w = LABEL_W
    marker_line = Text(" " * (label_w + 1))
    for c in range(width):
        marker_line.append("▼" if marked[c] and (c == 0 or not marked[c - 1]) else " ", style="bold red")
    out.append_text(marker_line)
    out.append("\n")
    for r in range(height):
        top = vmax - span * r / height
        bottom = vmax - span * (r + 1) / height
        if r == 0:
            label = _fmt(10**vmax if log else vmax)
        elif r == height - 1:
            label = _fmt(10**vmin if log else vmin)
        else:
            label = ""
        out.append(f"{label:>{label_w}} ", style="dim")
        out.append("┤" if label else "│", style="dim")
        for c in range(width):
            if math.isnan(lo[c]):
                ch = "×" if (r == height - 1 and bad[c]) else " "
                out.append(ch, style="bold red")
                continue
            if hi[c] >= bottom and lo[c] <= top:
                out.append("█", style="red" if marked[c] else "cyan")
            elif r == height - 1 and bad[c]:
                out.append("×", style="bold red")
            else:
                out.append(" ")
        out.append("\n")
    first, last = x[0], x[-1]
    left = f"step {step_text(first)}"
    right = step_text(last)
    if len(left) + 1 + len(right) > width:  # a narrow plot: the first step only
        right = ""
    pad = max(1, width - len(left) - len(right)) if right else 0
    out.append(" " * (label_w + 2) + left + " " * pad + right + "\n", style="dim")
    return out
