"""Generic checks over metric series. Knowledge (knowledge/detectors/*.yaml) picks a check,
names the metric and sets the thresholds; nothing here knows about a particular cause.

Every check takes a `Ctx` (the run, the chosen series, the detector's params) and returns a
`Hit` (what it saw: steps and numbers, and a one-line summary) or None.
Long series are reduced to at most MAX_POINTS blocks first (keeping each block's mean, max
and min), so a million-row log costs the same as a twenty-thousand-row one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

MAX_POINTS = 20_000

CHECKS: dict[str, Callable[[Ctx], Hit | None]] = {}


def check(name: str):
    def register(fn):
        CHECKS[name] = fn
        return fn

    return register


@dataclass
class Hit:
    summary: str
    first_step: float | None = None
    last_step: float | None = None
    answer: str | None = None  # overrides the detector's answer when the check tells more
    numbers: dict = field(default_factory=dict)


@dataclass
class Ctx:
    run: object  # triage.ingest.run.Run
    name: str  # the canonical metric name used
    steps: np.ndarray
    values: np.ndarray
    params: dict

    def p(self, key: str, default):
        value = self.params.get(key, default)
        return type(default)(value) if isinstance(default, (int, float)) and not isinstance(default, bool) else value

    def other(self, key: str):
        """A second series named by a param (a name or a list of candidate names)."""
        names = self.params.get(key)
        if names is None:
            return None
        for name in [names] if isinstance(names, str) else list(names):
            s = self.run.get(name)
            if s is not None and len(s):
                return s
        return None


# -- helpers -------------------------------------------------------------------------------
def fmt(x: float | None) -> str:
    """A number for a sentence: 3 significant digits, no exponent for ordinary values."""
    if x is None:
        return "?"
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    if abs(x) >= 1e5 or abs(x) < 1e-3:
        return f"{x:.2e}"
    if float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:.3g}"


def pct(count: int, total: int) -> str:
    """'41% of 1,200 points', or '2 of 1,200 points' when the share rounds to nothing."""
    share = count / total if total else 0.0
    if share < 0.01:
        return f"{count:,} of {total:,} points"
    return f"{share:.0%} of {total:,} points"


def step_str(x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "?"
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


_XY: dict[tuple, tuple] = {}  # long series: finite_xy / reduce results are asked for by many detectors
XY_CACHE_MIN = 50_000


def finite_xy(steps: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The finite points of a series (read-only when cached; callers make new arrays from them)."""
    big = len(values) >= XY_CACHE_MIN
    if big:
        hit = _XY.get((id(steps), id(values)))
        if hit is not None and hit[0] is steps and hit[1] is values:
            return hit[2]
    mask = np.isfinite(values)
    if mask.all():  # the usual case: no copies, read-only views
        x, y = steps.view(), values.view()
        x.setflags(write=False)
        y.setflags(write=False)
    else:
        x, y = steps[mask], values[mask]
    if len(x) and np.isnan(x).any():  # no step information: use the position
        x = np.flatnonzero(mask).astype(np.float64)
    out = (x, y)
    if big:
        for a in out:
            a.setflags(write=False)
        _remember((id(steps), id(values)), steps, values, out)
    return out


def _remember(key: tuple, x: np.ndarray, y: np.ndarray, out: tuple) -> None:
    if len(_XY) >= 64:
        _XY.clear()
    _XY[key] = (x, y, out)  # holding x and y keeps their ids from being reused


def clear_cache() -> None:
    _XY.clear()


def reduce(x: np.ndarray, y: np.ndarray, how: str = "mean", max_points: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """Block-reduce a long series (first step of each block; its mean, max or min)."""
    n = len(y)
    if n <= max_points:
        return x, y
    key = (id(x), id(y), how, max_points)
    hit = _XY.get(key)
    if hit is not None and hit[0] is x and hit[1] is y:
        return hit[2]
    out = _reduce(x, y, how, max_points)
    for a in out:
        a.setflags(write=False)
    _remember(key, x, y, out)
    return out


def _reduce(x: np.ndarray, y: np.ndarray, how: str, max_points: int) -> tuple[np.ndarray, np.ndarray]:
    n = len(y)
    b = int(math.ceil(n / max_points))
    m = n // b
    xs = x[: m * b : b]
    blocks = y[: m * b].reshape(m, b)
    ys = {"mean": blocks.mean(axis=1), "max": blocks.max(axis=1), "min": blocks.min(axis=1)}[how]
    return xs, ys


def smooth(y: np.ndarray, k: int) -> np.ndarray:
    if k <= 1 or len(y) < k:
        return y
    c = np.cumsum(np.insert(y, 0, 0.0))
    core = (c[k:] - c[:-k]) / k
    pad = np.full(k - 1, core[0])
    return np.concatenate([pad, core])


def window_slice(n: int, params: dict) -> slice:
    """Which part of the series a check looks at: skip_first / window (head | tail | all)."""
    skip = params.get("skip_first", 0)
    start = int(skip * n) if isinstance(skip, float) and skip < 1 else int(skip)
    which = params.get("window", "all")
    frac = float(params.get("window_fraction", 0.5))
    if which == "tail":
        return slice(max(start, n - max(1, int(round(frac * n)))), n)
    if which == "head":
        return slice(start, min(n, start + max(1, int(round(frac * n)))))
    return slice(start, n)


def _cmp(op: str, a: np.ndarray, b: float) -> np.ndarray:
    return {
        ">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b,
        "==": a == b, "!=": a != b, "abs>": np.abs(a) > b, "abs<": np.abs(a) < b,
    }[op]


def _ends(x: np.ndarray, frac: float = 0.1) -> tuple[float, float]:
    k = max(1, int(len(x) * frac))
    return float(np.median(x[:k])), float(np.median(x[-k:]))


def _finite_at(other, steps: np.ndarray, where: np.ndarray) -> np.ndarray:
    """Mask over `steps`: True where `where` holds and `other` has a finite value at that step."""
    out = np.zeros(len(steps), dtype=bool)
    idx = np.flatnonzero(where)
    if not len(idx) or not len(other.steps):
        return out
    os_, want = other.steps, steps[idx]
    d = np.diff(os_)
    if len(d) and not (d > 0).all():  # not strictly increasing: the general (sorting) way
        out[idx] = np.isin(want, os_[np.isfinite(other.values)])
        return out
    pos = np.minimum(np.searchsorted(os_, want), len(os_) - 1)
    out[idx] = (os_[pos] == want) & np.isfinite(other.values[pos])
    return out


# -- checks --------------------------------------------------------------------------------
@check("nonfinite")
def nonfinite(c: Ctx) -> Hit | None:
    """NaN or Inf values. params: phase (any|early|late), early_fraction, early_steps,
    min_count, while_finite (another metric that stays finite at the same steps)."""
    v, s = c.values, c.steps
    bad = ~np.isfinite(v)
    ignore = c.params.get("ignore_inf_when")
    if ignore and any(c.run.get(str(n)) is not None for n in ([ignore] if isinstance(ignore, str) else ignore)):
        bad = np.isnan(v)  # with a dynamic loss scale, an Inf gradient is a skipped overflow step
    if not bad.any():
        return None
    other_note = ""
    other = c.other("while_finite")
    if c.params.get("while_finite"):
        if other is None:
            return None
        bad &= _finite_at(other, s, bad)
        if not bad.any():
            return None
        other_note = f" while {other.name} stays finite at those steps"
    idx = np.flatnonzero(bad)
    if len(idx) < c.p("min_count", 1):
        return None
    ahead = c.other("before")  # only when this series goes bad strictly before that one
    if c.params.get("before"):
        if ahead is None:
            return None
        ahead_bad = np.flatnonzero(~np.isfinite(ahead.values))
        if len(ahead_bad) and ahead.steps[ahead_bad[0]] <= s[idx[0]]:
            return None
    n = len(v)
    early_limit = max(c.p("early_steps", 20), int(c.p("early_fraction", 0.1) * n))
    phase = c.params.get("phase", "any")
    if phase == "early" and idx[0] >= early_limit:
        return None
    if phase == "late" and idx[0] < early_limit:
        return None
    first, last = s[idx[0]], s[idx[-1]]
    kinds = []
    if np.isnan(v[idx]).any():
        kinds.append("NaN")
    if np.isinf(v[idx]).any():
        kinds.append("Inf")
    share = len(idx) / n
    return Hit(
        f"{c.name} is {'/'.join(kinds)} on {len(idx):,} of {n:,} logged points ({share:.0%}), "
        f"first at step {step_str(first)}{other_note}",
        first, last, numbers={"count": len(idx), "share": share},
    )


@check("threshold")
def threshold(c: Ctx) -> Hit | None:
    """A share of points beyond a bound. params: op, value, min_share, min_count, window, skip_first."""
    x, y = finite_xy(c.steps, c.values)
    if "ignore_abs_below" in c.params:  # float noise around 0 means "undefined" here (e.g. constant returns)
        keep = np.abs(y) >= float(c.params["ignore_abs_below"])
        x, y = x[keep], y[keep]
    if len(y) < c.p("min_points", 3):
        return None
    sl = window_slice(len(y), c.params)
    x, y = x[sl], y[sl]
    if not len(y):
        return None
    op, bound = c.params.get("op", ">"), float(c.params.get("value", 0))
    hit = _cmp(op, y, bound)
    count = int(hit.sum())
    share = count / len(y)
    if count < c.p("min_count", 1) or share < c.p("min_share", 0.2):
        return None
    hx, hy = x[hit], y[hit]
    worst = int(np.argmax(np.abs(hy - bound))) if op not in ("==", "!=") else 0
    where = f"steps {step_str(hx[0])}-{step_str(hx[-1])}" if hx[0] != hx[-1] else f"step {step_str(hx[0])}"
    extreme = "max" if op in (">", ">=", "abs>") else "min"
    return Hit(
        f"{c.name} {op} {fmt(bound)} on {pct(count, len(y))} ({where}), {extreme} {fmt(hy[worst])} at step {step_str(hx[worst])}",
        hx[0], hx[-1], numbers={"share": share, "extreme": float(hy[worst])},
    )


@check("near")
def near(c: Ctx) -> Hit | None:
    """Values stuck near a target. params: target (or target_from: ln_classes), tol, min_share, window;
    first_above: only when one of the first `start_points` values (or of the first `early_fraction`
    of the run, if that is more) was at least this many times the target (a loss that blew up
    first, then sank to chance: the model died)."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 5):
        return None
    target = c.params.get("target")
    if c.params.get("target_from") == "ln_classes":
        classes = _num_classes(c.run)
        if not classes:
            return None
        target = math.log(classes)
    elif c.params.get("target_from") == "softmax_ce_floor":
        # cross-entropy over probabilities instead of logits cannot go below log(1 + (C-1)/e):
        # the best "logits" it can produce are one 1 and C-1 zeros
        classes = _num_classes(c.run)
        if not classes or classes < 3:
            return None
        target = math.log(1 + (classes - 1) / math.e)
    if target is None:
        return None
    target = float(target)
    blew = ""
    first_above = c.params.get("first_above")
    if first_above:
        head = y[: max(1, int(c.p("start_points", 3)), int(float(c.p("early_fraction", 0.0)) * len(y)))]
        peak = int(np.argmax(head))
        if not (target > 0 and float(head[peak]) >= float(first_above) * target):
            return None
        blew = f" after blowing up to {fmt(float(head[peak]))} at step {step_str(x[peak])}"
    sl = window_slice(len(y), c.params)
    x, y = x[sl], y[sl]
    tol = float(c.params.get("tol", 0.02))
    close = np.abs(y - target) <= tol
    share = float(close.mean()) if len(y) else 0.0
    if share < c.p("min_share", 0.8):
        return None
    return Hit(
        f"{c.name} stays within {fmt(tol)} of {fmt(target)} on {share:.0%} of points (steps {step_str(x[0])}-{step_str(x[-1])}), "
        f"median {fmt(float(np.median(y)))}{blew}",
        x[0], x[-1], numbers={"share": share, "target": target},
    )


@check("flat")
def flat(c: Ctx) -> Hit | None:
    """No progress from the start. params: rel_tol, min_points."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 20):
        return None
    x, y = reduce(x, y)
    start, end = _ends(y)
    scale = max(abs(start), 1e-8)
    rel = (end - start) / scale
    ys = smooth(y, max(1, len(y) // 20))
    best = float(np.min(ys))
    tol = c.p("rel_tol", 0.03)
    if abs(rel) > tol or (start - best) / scale > 2 * tol:
        return None
    # flat means flat: a loss that blew up far above its start (and came back) is a divergence
    if (float(np.max(ys)) - start) / scale > c.p("max_excursion", 10 * tol):
        return None
    return Hit(
        f"{c.name} is flat: {fmt(start)} at the start, {fmt(end)} at the end ({rel:+.1%}) over steps {step_str(x[0])}-{step_str(x[-1])}",
        x[0], x[-1], numbers={"start": start, "end": end, "rel": rel},
    )


@check("crawl")
def crawl(c: Ctx) -> Hit | None:
    """Falling, but far too slowly and still falling at the end. params: min_drop, max_drop, min_points."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 40):
        return None
    x, y = reduce(x, y)
    start, end = _ends(y)
    scale = max(abs(start), 1e-8)
    drop = (start - end) / scale
    if not (c.p("min_drop", 0.02) <= drop <= c.p("max_drop", 0.1)):
        return None
    half = y[len(y) // 2 :]
    ys = smooth(half, max(1, len(half) // 10))
    falling = float(np.mean(np.diff(ys) < 0)) if len(ys) > 2 else 0.0
    h0, h1 = _ends(half, 0.2)
    if falling < c.p("min_monotonic", 0.6) or h1 >= h0:
        return None
    return Hit(
        f"{c.name} only fell {drop:.1%} ({fmt(start)} -> {fmt(end)}) over steps {step_str(x[0])}-{step_str(x[-1])}, and is still falling steadily",
        x[0], x[-1], numbers={"drop": drop},
    )


@check("spike")
def spike(c: Ctx) -> Hit | None:
    """Sudden jumps against the running median. params: factor, window, min_spikes, recover_points,
    min_abs, skip_first. One small spike that recovers stays quiet unless min_spikes is 1."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 30):
        return None
    # A series that sits around 0 with both signs (a policy-gradient surrogate) has no scale to
    # spike against: ratios to its median are meaningless.
    if float(np.mean(y < 0)) > c.p("max_negative_share", 0.05):
        return None
    start_level = float(np.median(y[: max(3, len(y) // 20)]))
    xm, ymax = reduce(x, y, "max")
    _, ymean = reduce(x, y, "mean")
    w = c.p("window", 20)
    if len(ymax) <= w + 2:
        return None
    from numpy.lib.stride_tricks import sliding_window_view

    base = np.median(sliding_window_view(ymean[:-1], w), axis=1)  # median of the w points before i
    cand = ymax[w:]
    pos = xm[w:]
    factor = c.p("factor", 3.0)
    scale = np.maximum(np.abs(base), 1e-12)
    jump = cand / scale if (base > 0).all() else (cand - base) / scale + 1
    # a spike must also be large against the run's own scale (its level at the start): a loss
    # that converged to 1e-4 and wobbles to 6e-4 has not spiked
    min_height = max(c.p("min_abs", 0.0), c.p("min_rel_start", 0.0) * abs(start_level))
    is_spike = (jump >= factor) & (cand - base > min_height)
    skip = int(c.p("skip_first", 0.05) * len(cand))
    is_spike[:skip] = False
    idx = np.flatnonzero(is_spike)
    if not len(idx):
        return None
    # merge consecutive indices into events
    events = np.split(idx, np.flatnonzero(np.diff(idx) > 1) + 1)
    rec_n = c.p("recover_points", 50)
    unrecovered = 0
    sizes = []
    for ev in events:
        i = ev[-1]
        after = ymean[w + i + 1 : w + i + 1 + rec_n]
        ok = len(after) > 0 and np.min(after) <= base[i] * c.p("recover_factor", 1.5) + 1e-12
        if not ok:
            unrecovered += 1
        sizes.append(float(np.max(jump[ev])))
    n_spikes = len(events)
    big = max(sizes)
    if n_spikes < c.p("min_spikes", 2) and unrecovered == 0:
        return None
    worst_i = idx[int(np.argmax(jump[idx]))]
    answer = None
    if unrecovered and c.params.get("answer_unrecovered"):
        answer = str(c.params["answer_unrecovered"])
    return Hit(
        f"{c.name} spiked {n_spikes} time(s), up to {big:.1f}x the running median (max {fmt(cand[worst_i])} at step {step_str(pos[worst_i])})"
        + (f"; {unrecovered} did not recover" if unrecovered else "; all recovered"),
        pos[idx[0]], pos[idx[-1]], answer=answer, numbers={"spikes": n_spikes, "unrecovered": unrecovered, "max_factor": big},
    )


@check("trend")
def trend(c: Ctx) -> Hit | None:
    """Steady growth (direction: up) or decline (down). params: min_ratio, min_monotonic, min_last, skip_first."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 10):
        return None
    sl = window_slice(len(y), c.params)
    x, y = reduce(x[sl], y[sl])
    if len(y) < c.p("min_points", 10):
        return None
    ys = smooth(y, max(1, len(y) // 10))
    start, end = _ends(ys, 0.1)
    up = c.params.get("direction", "up") == "up"
    d = np.diff(ys)
    mono = float(np.mean(d > 0) if up else np.mean(d < 0)) if len(d) else 0.0
    if mono < c.p("min_monotonic", 0.7):
        return None
    if "min_ratio" in c.params:
        if start <= 0 or end <= 0:
            return None
        ratio = end / start if up else start / end
        if ratio < c.p("min_ratio", 2.0):
            return None
    if "min_rise" in c.params:
        if (end - start if up else start - end) < c.p("min_rise", 0.0):
            return None
    if "min_last" in c.params and end < c.p("min_last", 0.0):
        return None
    word = "grew" if up else "fell"
    return Hit(
        f"{c.name} {word} steadily from {fmt(start)} to {fmt(end)} over steps {step_str(x[0])}-{step_str(x[-1])} "
        f"({mono:.0%} of intervals {'rising' if up else 'falling'})",
        x[0], x[-1], numbers={"start": start, "end": end, "monotonic": mono},
    )


@check("constant")
def constant(c: Ctx) -> Hit | None:
    """Exactly one value (e.g. 0) on a share of points. params: value, tol, min_share, min_count, window."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 5):
        return None
    sl = window_slice(len(y), c.params)
    x, y = x[sl], y[sl]
    if "value" in c.params:
        target = float(c.params["value"])
    else:
        vals, counts = np.unique(y, return_counts=True)
        target = float(vals[np.argmax(counts)])
    tol = float(c.params.get("tol", 0.0))
    same = (y == target) if tol == 0 else (np.abs(y - target) <= tol)
    count = int(np.count_nonzero(same))
    share = count / len(y) if len(y) else 0.0
    if share < c.p("min_share", 0.8) or count < c.p("min_count", 5):
        return None
    hx = x[same]
    return Hit(
        f"{c.name} is exactly {fmt(target)} on {share:.0%} of points ({count:,} of {len(y):,}, steps {step_str(hx[0])}-{step_str(hx[-1])})",
        hx[0], hx[-1], numbers={"share": share, "value": target},
    )


@check("early_collapse")
def early_collapse(c: Ctx) -> Hit | None:
    """A value (the LR) falls below a fraction of its peak early in the run. params: below, within."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 20):
        return None
    peak_i = int(np.argmax(y))
    peak = float(y[peak_i])
    if peak <= 0:
        return None
    below = np.flatnonzero(y[peak_i:] < c.p("below", 0.01) * peak)
    if not len(below):
        return None
    j = peak_i + int(below[0])
    if j >= c.p("within", 0.3) * len(y) or j >= len(y) - 3:
        return None
    return Hit(
        f"{c.name} fell from its peak {fmt(peak)} (step {step_str(x[peak_i])}) to {fmt(y[j])} by step {step_str(x[j])}, "
        f"{j / len(y):.0%} into the run, and stays there",
        x[peak_i], x[j], numbers={"peak": peak, "at": j / len(y)},
    )


@check("drop_ratio")
def drop_ratio(c: Ctx) -> Hit | None:
    """The end of the run is much lower than its start (throughput). params: max_ratio, min_points."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 20):
        return None
    x, y = reduce(x, y)
    start, end = _ends(y, 0.15)
    if start <= 0:
        return None
    ratio = end / start
    if ratio > c.p("max_ratio", 0.7):
        return None
    return Hit(
        f"{c.name} dropped from {fmt(start)} to {fmt(end)} ({ratio - 1:+.0%}) between steps {step_str(x[0])} and {step_str(x[-1])}",
        x[0], x[-1], numbers={"ratio": ratio},
    )


@check("rising_vs_falling")
def rising_vs_falling(c: Ctx) -> Hit | None:
    """This metric (eval loss) rises from its minimum while another (train loss) keeps falling.
    params: against, min_rise, min_points_after."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 4):
        return None
    i = int(np.argmin(y))
    after = len(y) - 1 - i
    if after < c.p("min_points_after", 2):
        return None
    low, last = float(y[i]), float(np.median(y[-max(1, after // 3):]))
    rise = (last - low) / max(abs(low), 1e-8)
    if rise < c.p("min_rise", 0.05):
        return None
    first = float(np.max(y[:i])) if i > 0 else low  # the highest value before the minimum (usually the first eval)
    if "min_rise_of_drop" in c.params and first > low:
        # a 10% rise on a loss that fell from 1.0 to 0.016 is noise at convergence, not overfitting
        if (last - low) / (first - low) < c.p("min_rise_of_drop", 0.1):
            return None
    other = c.other("against")
    if other is None:
        return None
    ox, oy = finite_xy(other.steps, other.values)
    if len(oy) < 4:
        return None
    at_min = oy[ox <= x[i]]
    later = oy[ox >= x[i]]
    if not len(at_min) or len(later) < 2:
        return None
    o_then = float(np.median(at_min[-max(1, len(at_min) // 10):]))
    o_end = float(np.median(later[-max(1, len(later) // 5):]))
    if o_end >= o_then or (o_then - o_end) / max(abs(o_then), 1e-8) < c.p("min_other_fall", 0.0):
        return None
    return Hit(
        f"{c.name} rose {rise:.0%} from its minimum {fmt(low)} at step {step_str(x[i])} to {fmt(last)} at step {step_str(x[-1])} "
        f"while {other.name} fell from {fmt(o_then)} to {fmt(o_end)}",
        x[i], x[-1], numbers={"rise": rise},
    )


@check("zero_while_falling")
def zero_while_falling(c: Ctx) -> Hit | None:
    """A quality metric stuck at exactly 0 while the loss falls. params: against, min_points, min_fall."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 2) or np.any(y != 0):
        return None
    other = c.other("against")
    if other is None:
        return None
    _, oy = finite_xy(other.steps, other.values)
    if len(oy) < 4:
        return None
    start, end = _ends(oy)
    if start <= 0 or (start - end) / start < c.p("min_fall", 0.1):
        return None
    return Hit(
        f"{c.name} is exactly 0 at all {len(y)} evaluations (steps {step_str(x[0])}-{step_str(x[-1])}) while {other.name} fell from {fmt(start)} to {fmt(end)}",
        x[0], x[-1],
    )


@check("halvings")
def halvings(c: Ctx) -> Hit | None:
    """A loss scale that keeps halving after calibration, or sinks below a floor.
    params: skip_points (calibration), min_halvings, floor."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < 3:
        return None
    skip = c.p("skip_points", 20)
    # only the points where the scale changes can be halvings (it is flat almost everywhere)
    moves = np.flatnonzero(y[1:] != y[:-1])
    moves = moves[moves >= skip]
    before = y[moves]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = y[moves + 1] / np.where(before == 0, np.nan, before)
    halves = moves[ratios <= 0.55] + 1
    floor = c.p("floor", 1.0)
    below = np.flatnonzero(y < floor)
    if len(halves) < c.p("min_halvings", 6) and not len(below):
        return None
    parts = []
    if len(halves):
        parts.append(f"halved {len(halves)} times after the first {skip} points")
    if len(below):
        parts.append(f"fell below {fmt(floor)} at step {step_str(x[below[0]])} (min {fmt(float(y.min()))})")
    first = x[halves[0]] if len(halves) else x[below[0]]
    return Hit(f"{c.name} " + " and ".join(parts), first, x[-1], numbers={"halvings": len(halves)})


@check("overflow_events")
def overflow_events(c: Ctx) -> Hit | None:
    """Loss-scale overflow / skipped-step lines in the text. params: skip_first_events, min_events."""
    events = [e for e in getattr(c.run, "events", []) if e.kind == "overflow"]
    skip = c.p("skip_first_events", 10)
    late = events[skip:]
    if len(late) < c.p("min_events", 5):
        return None
    steps = [e.step for e in late if e.step is not None]
    values = [e.value for e in late if e.value is not None]
    where = f" (steps {step_str(steps[0])}-{step_str(steps[-1])})" if steps else ""
    low = f", scale down to {fmt(min(values))}" if values else ""
    return Hit(f"{len(events)} loss-scale overflow / skipped-step lines, {len(late)} after the first {skip}{where}{low}",
               steps[0] if steps else None, steps[-1] if steps else None, numbers={"events": len(events)})


@check("no_warmup_spike")
def no_warmup_spike(c: Ctx) -> Hit | None:
    """The LR starts at its peak (no warmup) and the loss spikes early. params: loss, early_fraction, factor."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < 10:
        return None
    if y[0] < 0.9 * float(np.max(y)) or float(np.max(y)) <= 0:
        return None
    loss = c.other("loss")
    if loss is None:
        return None
    lx, ly = finite_xy(loss.steps, loss.values)
    n = len(ly)
    if n < 20:
        return None
    early = max(10, int(c.p("early_fraction", 0.1) * n))
    k = 3
    # the loss level at the start: the first logged points (a falling loss has its maximum there)
    base = float(max(ly[0], np.median(ly[:k])))
    seg = ly[: early]
    peak_i = k + int(np.argmax(seg[k:])) if len(seg) > k else 0
    if base <= 0 or peak_i == 0 or seg[peak_i] < c.p("factor", 1.5) * base:
        return None
    return Hit(
        f"{c.name} starts at its peak {fmt(y[0])} (no warmup) and {loss.name} jumps to {fmt(seg[peak_i])} "
        f"({seg[peak_i] / base:.1f}x its start) at step {step_str(lx[peak_i])}",
        lx[0], lx[peak_i],
    )


@check("post_warmup_stall")
def post_warmup_stall(c: Ctx) -> Hit | None:
    """The loss stops improving (or rises) right when warmup reaches the peak LR. params: loss, span."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < 10:
        return None
    peak = float(np.max(y))
    reach = np.flatnonzero(y >= 0.98 * peak)
    if not len(reach) or reach[0] < 3 or peak <= 0 or y[0] > 0.5 * peak:
        return None
    warm_end = x[reach[0]]
    loss = c.other("loss")
    if loss is None:
        return None
    lx, ly = finite_xy(loss.steps, loss.values)
    before = ly[lx <= warm_end]
    after = ly[lx > warm_end]
    span = max(5, int(c.p("span", 0.25) * len(ly)))
    after = after[:span]
    if len(before) < 3 or len(after) < 5:
        return None
    b0, b1 = float(np.median(before[: max(1, len(before) // 4)])), float(np.median(before[-max(1, len(before) // 4):]))
    a0, a1 = float(np.median(after[: max(1, len(after) // 5)])), float(np.median(after[-max(1, len(after) // 5):]))
    fell_before = (b0 - b1) / max(abs(b0), 1e-8)
    change_after = (a1 - a0) / max(abs(a0), 1e-8)
    if fell_before < c.p("min_fall_before", 0.05) or change_after < c.p("max_change_after", -0.01):
        return None
    return Hit(
        f"{loss.name} fell {fell_before:.0%} during warmup (to step {step_str(warm_end)}), then went {change_after:+.1%} "
        f"over the next {len(after)} points at the peak {c.name} {fmt(peak)}",
        warm_end, None,
    )


@check("flat_when_scheduled")
def flat_when_scheduled(c: Ctx) -> Hit | None:
    """The LR never changes although the run's config asks for warmup or a decaying schedule."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 10) or float(np.ptp(y)) > 1e-12 * max(abs(float(y[0])), 1e-30):
        return None
    config = _config(c.run)
    expected = []
    sched = str(config.get("lr_scheduler_type", config.get("lr_scheduler", "")) or "").lower()
    if sched and sched not in ("constant", "none", "schedulertype.constant"):
        expected.append(f"lr_scheduler_type={sched}")
    for key in ("warmup_steps", "warmup_ratio", "num_warmup_steps"):
        try:
            if float(config.get(key) or 0) > 0:
                expected.append(f"{key}={config[key]}")
        except (TypeError, ValueError):
            continue
    if not expected:
        return None
    return Hit(f"{c.name} is constant at {fmt(y[0])} over {len(y):,} points although the config sets {', '.join(expected)}", x[0], x[-1])


@check("log_band")
def log_band(c: Ctx) -> Hit | None:
    """Values far (in decades) from a target, e.g. update/weight ratio vs 1e-3.
    params: target, decades, min_share, answer_high, answer_low."""
    x, y = finite_xy(c.steps, c.values)
    y = np.abs(y)
    keep = y > 0
    x, y = x[keep], y[keep]
    if len(y) < c.p("min_points", 5):
        return None
    target = float(c.params.get("target", 1e-3))
    dist = np.log10(y) - math.log10(target)
    far = np.abs(dist) > c.p("decades", 1.0)
    share = float(far.mean())
    if share < c.p("min_share", 0.5):
        return None
    med = float(np.median(y))
    high = med > target
    answer = c.params.get("answer_high" if high else "answer_low")
    return Hit(
        f"{c.name} is more than {fmt(c.p('decades', 1.0))} decade(s) from {fmt(target)} on {share:.0%} of points (median {fmt(med)}, {'too high' if high else 'too low'})",
        x[0], x[-1], answer=str(answer) if answer else None,
    )


@check("both_falling")
def both_falling(c: Ctx) -> Hit | None:
    """Two series (chosen and rejected log-probs) fall together while a third (margin) stays flat.
    params: other, margin, min_fall, margin_tol."""
    other = c.other("other")
    if other is None:
        return None
    x, y = finite_xy(c.steps, c.values)
    _, oy = finite_xy(other.steps, other.values)
    if len(y) < 10 or len(oy) < 10:
        return None
    a0, a1 = _ends(y, 0.15)
    b0, b1 = _ends(oy, 0.15)
    fall = c.p("min_fall", 5.0)
    if a0 - a1 < fall or b0 - b1 < fall:
        return None
    # a fall of more than min_rel_fall x the starting magnitude is a collapse whatever the margin does
    huge = "min_rel_fall" in c.params and (a0 - a1) >= c.p("min_rel_fall", 1.0) * abs(a0) and (b0 - b1) >= c.p("min_rel_fall", 1.0) * abs(b0)
    margin = c.other("margin")
    if margin is not None and not huge:
        _, my = finite_xy(margin.steps, margin.values)
        if len(my) and abs(float(np.median(my[-max(1, len(my) // 4):]))) > c.p("margin_tol", 0.5):
            return None
    return Hit(
        f"{c.name} fell from {fmt(a0)} to {fmt(a1)} and {other.name} from {fmt(b0)} to {fmt(b1)}"
        + (" while the margin stayed near 0" if not huge else f" ({(a0 - a1) / max(abs(a0), 1e-8):.0%} of the starting log-prob)"),
        x[0], x[-1],
    )


@check("rebound")
def rebound(c: Ctx) -> Hit | None:
    """The series fell, reached its low early, then climbed back and stayed up (a loss getting
    worse while training goes on). params: min_rise (relative to the low), low_before (fraction
    of the run by which the low must come), tail (fraction of the run that must stay up)."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 50):
        return None
    x, y = reduce(x, y)
    n = len(y)
    ys = smooth(y, max(3, n // 20))
    k = max(3, n // 20)
    i_low = int(np.argmin(ys[k:])) + k  # the smoothing pads the first points with the first mean
    if i_low > c.p("low_before", 0.6) * n:
        return None
    low = float(ys[i_low])
    start = float(np.median(y[: max(3, n // 20)]))
    tail = y[-max(3, int(c.p("tail", 0.25) * n)):]
    level = float(np.median(tail))
    rise = c.p("min_rise", 0.1)
    if low <= 0 or start <= level or level < (1 + rise) * low:
        return None
    if float(np.mean(tail > (1 + rise / 2) * low)) < 0.8:  # the whole tail stays up, not one excursion
        return None
    return Hit(
        f"{c.name} fell from {fmt(start)} to {fmt(low)} by step {step_str(x[i_low])}, then climbed back to "
        f"{fmt(level)} (+{level / low - 1:.0%}) and stayed there to step {step_str(x[-1])}",
        x[i_low], x[-1], numbers={"low": low, "end": level, "rise": level / low - 1},
    )


@check("rel_to_start")
def rel_to_start(c: Ctx) -> Hit | None:
    """Values far above the series' own starting level (a loss that explodes).
    params: factor, min_count, min_share (of the points after the start), start_points, wording
    (rise: describe a level that should not grow rather than a loss);
    answer_stuck: the answer when the end of the run is no better than its start (the model
    died), answer_recovered otherwise."""
    x, y = finite_xy(c.steps, c.values)
    if len(y) < c.p("min_points", 10):
        return None
    k = c.p("start_points", 3)
    start = float(np.median(y[:k]))
    if start <= 0:
        return None
    factor = c.p("factor", 5.0)
    hit = y > factor * start
    hit[:k] = False  # the start defines the level; a loss that drops fast after step 0 did not explode
    if int(hit.sum()) < c.p("min_count", 1) or hit[k:].mean() < c.p("min_share", 0.0):
        return None
    worst = int(np.argmax(y))
    tail = float(np.median(y[-max(1, len(y) // 5):]))
    stuck = tail >= c.p("stuck_fraction", 0.9) * start
    answer = c.params.get("answer_stuck" if stuck else "answer_recovered")
    if c.params.get("wording") == "rise":  # a level that should not grow (a gradient norm), not a loss
        share = float(hit[k:].mean())
        text = (f"{c.name} rose to {fmt(y[worst])} at step {step_str(x[worst])}, {y[worst] / start:.0f}x its starting "
                f"level {fmt(start)}, and is above {fmt(factor * start)} on {share:.0%} of the run; it ends at {fmt(tail)}")
    else:
        text = (f"{c.name} exploded to {fmt(y[worst])} at step {step_str(x[worst])}, {y[worst] / start:.0f}x its "
                f"starting level {fmt(start)}"
                + (f"; it ends at {fmt(tail)}, no better than at the start" if stuck else f"; it ends at {fmt(tail)}"))
    return Hit(
        text,
        x[int(np.flatnonzero(hit)[0])], x[worst], answer=str(answer) if answer else None,
        numbers={"factor": float(y[worst] / start), "stuck": bool(stuck)},
    )


@check("ratio_below")
def ratio_below(c: Ctx) -> Hit | None:
    """This metric is far below another one it should track (macro-F1 against accuracy) while
    the other looks good. params: against, max_ratio, min_other, window, window_fraction, min_points."""
    x, y = finite_xy(c.steps, c.values)
    other = c.other("against")
    if other is None or len(y) < c.p("min_points", 2):
        return None
    ox, oy = finite_xy(other.steps, other.values)
    common, ia, ib = np.intersect1d(x, ox, return_indices=True)
    if len(common) < c.p("min_points", 2):
        return None
    a, b = y[ia], oy[ib]
    sl = window_slice(len(a), c.params)
    a, b, common = a[sl], b[sl], common[sl]
    good = b >= c.p("min_other", 0.8)
    low = good & (a <= c.p("max_ratio", 0.6) * b)
    share = float(low.mean()) if len(low) else 0.0
    if share < c.p("min_share", 0.8):
        return None
    return Hit(
        f"{c.name} is {fmt(float(np.median(a)))} while {other.name} is {fmt(float(np.median(b)))} on {share:.0%} of the last "
        f"{len(a)} evaluations (steps {step_str(common[0])}-{step_str(common[-1])}): good {other.name}, poor {c.name}",
        common[0], common[-1], numbers={"share": share},
    )


# -- run metadata --------------------------------------------------------------------------
def _config(run) -> dict:
    return getattr(run, "config", None) or {}


def _num_classes(run) -> int | None:
    config = _config(run)
    for key in ("num_classes", "num_labels", "n_classes", "classes", "nc", "vocab_size", "CLASSES"):
        value = config.get(key)
        try:
            n = int(value)
        except (TypeError, ValueError):
            continue
        if n >= 2:
            return n
    return None


@check("before_nonfinite")
def before_nonfinite(c: Ctx) -> Hit | None:
    """How this series (the grad norm) behaved just before another one (the loss) first went
    NaN/Inf: 'yes' when it rose to `factor`x its earlier median within `window` points before,
    'no' when it stayed ordinary. params: target, window, factor, answer_rise, answer_calm."""
    target = c.other("target")
    if target is None:
        return None
    bad = ~np.isfinite(target.values)
    if not bad.any():
        return None
    first_bad = float(target.steps[np.flatnonzero(bad)[0]])
    x, y = finite_xy(c.steps, c.values)
    before = x < first_bad
    if before.sum() < c.p("min_points", 8):
        return None
    xb, yb = x[before], y[before]
    w = c.p("window", 5)
    recent, earlier = yb[-w:], yb[:-w]
    if not len(earlier):
        return None
    base = float(np.median(earlier))
    peak = float(np.max(recent))
    rose = base > 0 and peak >= c.p("factor", 10.0) * base
    answer = c.params.get("answer_rise" if rose else "answer_calm")
    if answer is None:
        return None
    if rose:
        text = (f"{c.name} rose to {fmt(peak)} ({peak / base:.0f}x its median {fmt(base)}) in the {len(recent)} points "
                f"before {target.name} first went non-finite at step {step_str(first_bad)}")
    else:
        text = (f"{c.name} stayed ordinary (max {fmt(peak)}, median {fmt(base)}) right up to step {step_str(first_bad)}, "
                f"where {target.name} first went non-finite: not a gradient explosion")
    return Hit(text, xb[-len(recent)], first_bad, answer=str(answer), numbers={"ratio": peak / base if base > 0 else None})
