"""Numbers, steps and sparklines for people: one formatter and one sparkline for every view.

Before this module the terminal chart, `inspect`'s table and the HTML axis each wrote numbers their
own way, and `inspect` and the Markdown report each drew a sparkline; one place now decides both.
"""

from __future__ import annotations

import math

SPARK = "▁▂▃▄▅▆▇█"
NAN_MARK = "×"


def number(x, digits: int = 3) -> str:
    """`digits` significant digits without trailing zeros; powers of ten (`1.23e5`, `4.2e-4`) at or
    past 1e5 and under 1e-3, where positional digits stop being readable. Whole numbers given as int
    stay exact (a count is never rounded); NaN and infinities are spelled out; None is empty."""
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    if isinstance(x, int):
        return str(x)
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1e5 or a < 1e-3:
        mant, exp = f"{x:.{max(1, digits - 1)}e}".split("e")
        if "." in mant:
            mant = mant.rstrip("0").rstrip(".")
        return f"{mant}e{int(exp)}"
    text = f"{x:.{max(0, digits - 1 - math.floor(math.log10(a)))}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def step_text(x, missing: str = "?") -> str:
    """A training step: `1,204` for a whole step, `12.5` otherwise, `missing` when unknown."""
    if x is None:
        return missing
    return f"{int(x):,}" if float(x).is_integer() else f"{float(x):g}"


def sparkline(values, width: int = 24, steps=None, nan_mark: str = NAN_MARK, peak: bool = False) -> str:
    """A one-line chart of `values`, `width` columns at most.

    Without `steps` each column holds an equal share of the points; with `steps` each column holds
    the points of an equal share of the step range (a gap in the log stays a blank column). A column
    is its points' mean, or their largest value with `peak` (a one-point spike stays visible); a
    column holding a NaN or an infinity is `nan_mark`, since a non-finite value must never be drawn
    as a level. A constant series sits at the middle level."""
    import numpy as np

    v = np.asarray(values, dtype=np.float64)
    if steps is None:
        if len(v) == 0:
            return ""
        width = max(1, min(width, len(v)))
        edges = np.linspace(0, len(v), width + 1).astype(np.int64)
        columns = [v[a:max(b, a + 1)] for a, b in zip(edges[:-1], edges[1:])]
    else:
        columns = _step_columns(np.asarray(steps, dtype=np.float64), v, width)
        if columns is None:
            return ""
    fin = np.isfinite(v)
    if not fin.any():
        return "".join(nan_mark if len(c) else " " for c in columns)
    lo, hi = float(v[fin].min()), float(v[fin].max())
    out = []
    for col in columns:
        if not len(col):
            out.append(" ")
        elif not np.isfinite(col).all():
            out.append(nan_mark)
        elif hi == lo:
            out.append(SPARK[len(SPARK) // 2])
        else:
            m = float(col.max() if peak else col.mean())
            out.append(SPARK[min(len(SPARK) - 1, int((m - lo) / (hi - lo) * (len(SPARK) - 1) + 0.5))])
    return "".join(out)


def _step_columns(x, v, width: int):
    """The values of `v` in `width` columns by their step `x` (points without a finite step dropped)."""
    import numpy as np

    keep = np.isfinite(x)
    x, v = x[keep], v[keep]
    if not len(x):
        return None
    x0, span = float(x.min()), float(x.max() - x.min()) or 1.0
    col = np.minimum(width - 1, ((x - x0) / span * width).astype(np.int64))
    return [v[col == i] for i in range(width)]


def step_position(x: float, x0: float, span: float, width: int) -> int:
    """The column of step `x` in a `sparkline(..., steps=...)` whose steps start at `x0` and cover `span`."""
    return max(0, min(width - 1, int((x - x0) / (span or 1.0) * width)))
