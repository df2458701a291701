"""Generic checks over metric series. Knowledge (knowledge/detectors/*.yaml) picks a check,
names the metric and sets the thresholds; nothing here knows about a particular cause.

Every check takes a `Ctx` (the run, the chosen series, the detector's typed params) and returns a
`Hit` (what it saw: steps and numbers, and a one-line summary) or None. Each check declares its
parameters as a frozen dataclass (triage.detect.params): the fields are the only keys a detector may
set, and `triage kb check` rejects any other key or a value of the wrong type with file and line.
Long series are reduced to at most MAX_POINTS blocks first (keeping each block's mean, max
and min), so a million-row log costs the same as a twenty-thousand-row one.
"""

from __future__ import annotations

import fnmatch
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Literal, Optional

import numpy as np

from triage.detect import facts
from triage.detect.params import Answer, Names, ParamProblem, Params, WindowParams, params

MAX_POINTS = 20_000

CHECKS: dict[str, Callable[[Ctx], Hit | None]] = {}
PARAMS: dict[str, type[Params]] = {}


def check(name: str, params: type[Params] = Params):
    """Register a check under `name` with the dataclass of its parameters."""

    def register(fn):
        CHECKS[name] = fn
        PARAMS[name] = params
        fn.params = params
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
    run: Any  # triage.ingest.run.Run
    name: str  # the canonical metric name used
    steps: np.ndarray
    values: np.ndarray
    params: Any  # the check's own params dataclass (PARAMS[name]); each check reads it as that class

    def other(self, names: Names | None):
        """The first of `names` (a param naming other metrics) that the run logs, or None."""
        for name in names or ():
            s = self.run.get(name)
            if s is not None and len(s):
                return s
        return None


# -- helpers -------------------------------------------------------------------------------
def series_matching(run, names) -> list:
    """The series a detector looks at, in the order its names are listed: each name the run has;
    a pattern with `*` (e.g. `eval/*/loss`, one per named eval set) stands for every matching
    series, and `train:` before a pattern keeps the training split's only (`train:*loss`: every
    training loss term). The first that shows the pattern is the finding (a run's eval F1 at one
    evaluation says nothing, its training F1 at four does). A name starting with `!` leaves out the
    series it matches (`!rewards/*/std`: a spread, not a reward)."""
    found: list = []
    drop = [n[1:] for n in names if n.startswith("!")]
    for name in names:
        if name.startswith("!"):
            continue
        if "*" in name or name.startswith("train:"):
            split, pattern = ("train", name[6:]) if name.startswith("train:") else (None, name)
            found += [run.series[k] for k in sorted(run.series) if fnmatch.fnmatchcase(k, pattern) and len(run.series[k])
                      and (split is None or getattr(run.series[k], "split", split) == split)]
            continue
        s = run.get(name)
        if s is not None and len(s):
            found.append(s)
    unique = {id(s): s for s in found if not any(fnmatch.fnmatchcase(s.name, d) for d in drop)}
    return list(unique.values())


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


def in_steps(x: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """np.isin(x, steps): a binary search where `steps` is strictly increasing (a series' steps
    nearly always are), instead of sorting both arrays."""
    d = np.diff(steps)
    if len(d) and not (d > 0).all():
        return np.isin(x, steps)
    if not len(steps):
        return np.zeros(len(x), dtype=bool)
    at = np.minimum(np.searchsorted(steps, x), len(steps) - 1)
    return steps[at] == x


def _increasing(a: np.ndarray) -> bool:
    return len(a) < 2 or bool((a[1:] > a[:-1]).all())


def intersect_steps(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """np.intersect1d(a, b, return_indices=True): the shared steps and where each sits in a and in b.
    Where both are strictly increasing (a series' steps nearly always are) the shorter one is looked up
    in the longer by binary search, instead of sorting both (a 1,000-point eval series against a
    million-point training series: 0.3 ms instead of 100)."""
    if not (_increasing(a) and _increasing(b)):
        return np.intersect1d(a, b, return_indices=True)
    swap = len(a) > len(b)
    small, big = (b, a) if swap else (a, b)
    if not len(small) or not len(big):
        empty = np.zeros(0, dtype=np.intp)
        return small[:0], empty, empty
    at = np.minimum(np.searchsorted(big, small), len(big) - 1)
    hit = big[at] == small
    i_small = np.flatnonzero(hit)
    i_big = at[hit]
    common = small[hit]
    return (common, i_big, i_small) if swap else (common, i_small, i_big)


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


_MEDIAN_BLOCKS = 32  # a wide window is taken as this many block medians (see _running_median)


def _running_median(y: np.ndarray, k: int) -> np.ndarray:
    """Centred running median over k points (shorter at the ends); y itself when k is 1.

    A window wider than 4 x _MEDIAN_BLOCKS points is taken as the median of the medians of blocks of
    k / _MEDIAN_BLOCKS points (each block's value standing for its points): the exact one costs n x k,
    which for a window of a tenth of a million-point series is 1e11 comparisons; the blocks keep it at
    about n log k, and the level they give differs from the exact one by less than the series' own
    noise (a median of medians)."""
    if k <= 1 or len(y) < k:
        return y
    from numpy.lib.stride_tricks import sliding_window_view

    n = len(y)
    if k > 4 * _MEDIAN_BLOCKS:
        b = int(math.ceil(k / _MEDIAN_BLOCKS))
        m = int(math.ceil(n / b))
        y = np.asarray(y, dtype=float)
        if np.isnan(y).any():
            blocks = np.concatenate([y, np.full(m * b - n, np.nan)]).reshape(m, b)
            meds = np.nanmedian(blocks, axis=1)
        else:  # (np.median on the whole blocks: nanmedian's masked-array path costs twice as much)
            full = n // b
            meds = np.median(y[: full * b].reshape(full, b), axis=1)
            if full < m:
                meds = np.append(meds, np.median(y[full * b:]))
        coarse = _running_median(meds, _MEDIAN_BLOCKS)
        return np.repeat(coarse, b)[:n]
    half = k // 2
    padded = np.concatenate([np.full(half, np.nan), y, np.full(k - 1 - half, np.nan)])
    return np.nanmedian(sliding_window_view(padded, k), axis=1)


def smooth(y: np.ndarray, k: int) -> np.ndarray:
    if k <= 1 or len(y) < k:
        return y
    c = np.cumsum(np.insert(y, 0, 0.0))
    core = (c[k:] - c[:-k]) / k
    pad = np.full(k - 1, core[0])
    return np.concatenate([pad, core])


def window_slice(n: int, params: WindowParams) -> slice:
    """Which part of the series a check looks at: skip_first / window (head | tail | all)."""
    skip = params.skip_first
    start = int(skip * n) if skip < 1 else int(skip)
    which = params.window
    frac = params.window_fraction
    if which == "tail":
        return slice(max(start, n - max(1, int(round(frac * n)))), n)
    if which == "head":
        return slice(start, min(n, start + max(1, int(round(frac * n)))))
    return slice(start, n)


_CMP: dict[str, Callable[[np.ndarray, float], np.ndarray]] = {
    ">": np.greater, ">=": np.greater_equal, "<": np.less, "<=": np.less_equal,
    "==": np.equal, "!=": np.not_equal,
    "abs>": lambda a, b: np.abs(a) > b, "abs<": lambda a, b: np.abs(a) < b,
}


def _cmp(op: str, a: np.ndarray, b: float) -> np.ndarray:
    return _CMP[op](a, b)


def _ends(x: np.ndarray, frac: float = 0.1) -> tuple[float, float]:
    k = max(1, int(len(x) * frac))
    return float(np.median(x[:k])), float(np.median(x[-k:]))


def _ended_improved(c: Ctx, names: Names, by: float, min_points: int) -> bool:
    """Whether the first of `names` the run logs (higher is better: a return, a total reward) ended `by`
    of its starting size or more above where it started (medians of its first and last 15%), over
    min_points points or more."""
    better = c.other(names)
    y = finite_xy(better.steps, better.values)[1] if better is not None else np.empty(0)
    if len(y) < min_points:
        return False
    first, last = _ends(y, 0.15)
    return last - first >= by * max(abs(first), 1e-12)


def _held_out_fell(c: Ctx, names: Names, by: float, min_points: int = 4) -> bool:
    """Whether the first of `names` the run logs (lower is better: a held-out loss) ended `by` of its
    starting level or more below where it started (medians of its first and last 15%)."""
    lower = c.other(names)
    y = finite_xy(lower.steps, lower.values)[1] if lower is not None else np.empty(0)
    if len(y) < min_points:
        return False
    first, last = _ends(y, 0.15)
    return first > 0 and last <= (1.0 - by) * first


def _finite_at(other, steps: np.ndarray, where: np.ndarray) -> np.ndarray:
    """Mask over `steps`: True where `where` holds and `other` is finite at that step: its value at
    the same step, or, where it has none there (an evaluation at epoch 1.0 between training logs at
    0.93 and 1.07), its last value before it (its first, for a step before it logs anything)."""
    out = np.zeros(len(steps), dtype=bool)
    idx = np.flatnonzero(where)
    if not len(idx) or not len(other.steps):
        return out
    os_, want = other.steps, steps[idx]
    d = np.diff(os_)
    if len(d) and not (d > 0).all():  # not strictly increasing: the general (sorting) way
        out[idx] = np.isin(want, os_[np.isfinite(other.values)])
        return out
    # (steps strictly increasing: the last one at or before each wanted step; before the other's first
    # step, its first value: an evaluation at epoch 9.0 ahead of the first training log at 9.5)
    before = np.maximum(np.searchsorted(os_, want, side="right") - 1, 0)
    out[idx] = np.isfinite(other.values[before])
    return out


# -- checks --------------------------------------------------------------------------------
_EXP_OVERFLOW = math.log(np.finfo(np.float64).max)  # 709.78: exp() of anything larger is +inf


@params
class NonfiniteParams(Params):
    """phase: where the first bad point must fall (early: within max(early_steps, early_fraction
    of the points)); while_finite: only points where one of these metrics is finite at the same
    step (missing_other: what to do when the run logs none of them); before: only when this
    series goes bad strictly before that one; ignore_inf_when: Inf is a skipped overflow step
    (not a problem) when the run logs one of these (a dynamic loss scale)."""

    phase: Literal["any", "early", "late"] = "any"
    early_fraction: float = 0.1
    early_steps: int = 20
    min_count: int = 1
    while_finite: Optional[Names] = None
    missing_other: Literal["quiet", "fire"] = "quiet"
    before: Optional[Names] = None
    ignore_inf_when: Optional[Names] = None
    # a lone bad value at the very first point, with finite values after it, is a running mean
    # printed before its first update (`avg_cost = np.nan`), not the loss going bad
    ignore_lone_first: bool = False
    # A NaN gradient that reached the weights makes every later value NaN: bad points followed by
    # finite ones are steps that were skipped (a dynamic loss scaler backing off, a NaN guard).
    # Quiet when the last point is finite and the bad ones all come before the first finite one (a
    # scaler starting too high on purpose) or are no more than this share of the points.
    skipped_share: Optional[float] = None
    # the answer when the bad values run through the end of the log: from its start, or later on
    answer_end_early: Optional[Answer] = None
    answer_end_late: Optional[Answer] = None
    # only a series that was finite at this many points and then bad at every point to the end of
    # the log: the one shape that says "diverged" of a number whose meaning is not known
    finite_then_bad_to_end: Optional[int] = None
    # with missing_other: fire and none of while_finite logged, nothing says the training stayed
    # finite; answer by where the bad values begin instead (the first point: from the start, later:
    # after finite ones) rather than the detector's own answer
    answer_missing_start: Optional[Answer] = None
    answer_missing_later: Optional[Answer] = None
    # quiet when the series is bad at every point while a score these names match (patterns as in a
    # detector's metric list; as fractions) has a median of scored_above or more: NaN scores rank
    # nothing (a ranking score such as ROC AUC, not an accuracy: NaN outputs argmax to class 0, right on
    # every sample of a majority class), so a model ranking that well has finite outputs, and a loss that
    # was never once finite is a loss the method does not compute (a statistics-fitting model's bar)
    unless_scored: Optional[Names] = None
    scored_above: float = 0.9
    # a perplexity is exp(loss), and exp overflows float64 above 709.78: +inf in the perplexity at a step
    # where one of these losses is logged finite and that large is the overflow of a huge but finite
    # loss, not a NaN (the loss itself is the finding, for the detectors that judge its size)
    exp_of: Optional[Names] = None
    # only a series that is NaN or Inf at every one of its points (never once a finite number)
    all_bad: bool = False
    # quiet when, at every bad point, a count of optimizer updates these names match is logged beside it and
    # is 0: a loss before the first update is a mean over no batches (a replay buffer still filling), not a
    # value the model produced
    unless_no_updates: Optional[Names] = None
    # only when a series these names match is logged and exactly 0 wherever it is finite (an F1 of
    # 0/0 beside an accuracy of exactly 0: not one prediction was right, so no precision exists)
    only_while_zero: Optional[Names] = None


def _scores_well(run, names: Names, above: float) -> bool:
    """Whether a series `names` match has a finite median (as a fraction) of `above` or more."""
    for s in series_matching(run, names):
        y = facts.as_fraction(finite_xy(s.steps, s.values)[1])
        if len(y) and float(np.median(y)) >= above:
            return True
    return False


def _before_first_update(run, names: Names, steps: np.ndarray) -> bool:
    """Whether an update count these names match is logged at every one of `steps` and is 0 there."""
    for s in series_matching(run, names):
        ux, uy = np.asarray(s.steps, dtype=float), np.asarray(s.values, dtype=float)
        at = {float(a): float(b) for a, b in zip(ux, uy) if np.isfinite(a) and np.isfinite(b)}
        if len(steps) and all(float(t) in at and at[float(t)] == 0 for t in steps):
            return True
    return False


@check("nonfinite", NonfiniteParams)
def nonfinite(c: Ctx) -> Hit | None:
    """NaN or Inf values."""
    p: NonfiniteParams = c.params
    v, s = c.values, c.steps
    bad = ~np.isfinite(v)
    if p.ignore_inf_when and any(c.run.get(n) is not None for n in p.ignore_inf_when):
        bad = np.isnan(v)  # with a dynamic loss scale, an Inf gradient is a skipped overflow step
    if p.exp_of and "perplexity" in c.name and bad.any():
        base = c.other(p.exp_of)
        if base is not None:
            big = {float(x) for x, y in zip(base.steps, base.values) if np.isfinite(y) and y >= _EXP_OVERFLOW}
            bad &= ~(np.isposinf(v) & np.isin(s, list(big)))
    if not bad.any():
        return None
    if p.unless_scored and bad.all() and _scores_well(c.run, p.unless_scored, p.scored_above):
        return None
    if p.unless_no_updates and _before_first_update(c.run, p.unless_no_updates, s[bad]):
        return None
    if p.all_bad and not bad.all():
        return None
    if p.only_while_zero and not _logged_all_zero(c, p.only_while_zero):
        return None
    raw = np.flatnonzero(bad)  # (before the other series masks any: what the optimizer saw)
    through_end = bool(bad[-1])
    if p.finite_then_bad_to_end is not None and not (
            raw[0] >= p.finite_then_bad_to_end and len(raw) == len(v) - raw[0]):
        return None
    other_note = ""
    missing = False
    if p.while_finite:
        other = c.other(p.while_finite)
        if other is None:
            if p.missing_other == "quiet":
                return None
            missing = True
            other_note = " (no training loss is logged to compare with)"
        else:
            bad &= _finite_at(other, s, bad)
            if not bad.any():
                return None
            other_note = f" while {other.name} stays finite at those steps"
    idx = np.flatnonzero(bad)
    if len(idx) < p.min_count:
        return None
    if p.ignore_lone_first and len(idx) == 1 and idx[0] == 0 and int(np.isfinite(v[1:]).sum()) >= 3:
        return None
    if p.skipped_share is not None and not through_end and (
            raw[-1] == len(raw) - 1 or len(raw) <= p.skipped_share * len(v)):
        return None
    if p.before:
        ahead = c.other(p.before)  # only when this series goes bad strictly before that one
        if ahead is None:
            return None
        ahead_bad = np.flatnonzero(~np.isfinite(ahead.values))
        if len(ahead_bad) and ahead.steps[ahead_bad[0]] <= s[idx[0]]:
            return None
    n = len(v)
    early_limit = max(p.early_steps, int(p.early_fraction * n))
    # a NaN at the start needs a log that begins at the start (the first log after step 0)
    # (one logged point is at the start only when its own step is small: a lone row at step 95,400 is not)
    fs = s[np.isfinite(s)]
    early = idx[0] < early_limit and (facts.begins_at_start(s, 0.05, gaps=2) if len(fs) >= 2
                                      else not len(fs) or fs[0] <= p.early_steps)
    if p.phase == "early" and not early:
        return None
    if p.phase == "late" and early:
        return None
    first, last = s[idx[0]], s[idx[-1]]
    kinds = []
    if np.isnan(v[idx]).any():
        kinds.append("NaN")
    if np.isinf(v[idx]).any():
        kinds.append("Inf")
    share = len(idx) / n
    # (bad from the first point or the first tenth of the log: from the start; a short log's middle is not)
    from_start = idx[0] < max(1.0, p.early_fraction * n)
    answer = (p.answer_end_early if from_start else p.answer_end_late) if through_end else None
    to_end = answer is not None
    if missing and answer is None:
        answer = p.answer_missing_start if idx[0] == 0 else p.answer_missing_later
    return Hit(
        f"{c.name} is {'/'.join(kinds)} on {len(idx):,} of {n:,} logged points ({share:.0%}), "
        f"first at step {step_str(first)}{other_note}{' and to the end of the log' if to_end else ''}",
        first, last, answer=answer, numbers={"count": len(idx), "share": share},
    )


Op = Literal[">", ">=", "<", "<=", "==", "!=", "abs>", "abs<"]


@params
class ThresholdParams(WindowParams):
    """A share (min_share) and a number (min_count) of the points beyond `value` by `op`;
    ignore_abs_below: values this close to 0 mean "undefined" and are left out; gate_metric /
    gate_max: a published range holds only for runs like the ones it was published for: quiet
    when the median of gate_metric is above gate_max (a gradient-norm range set for
    mean-reduced losses says nothing about a loss summed over thousands of tokens);
    unless_accuracy_above: quiet when the run's accuracy over the same window is at least this
    (a loss near 0 with a model that is right 95% of the time is a trained model, not a bug);
    unless_improved / improved_by: quiet when that higher-is-better metric (a return) ended at least
    improved_by of its starting size above where it started (medians of the first and last 15%): a
    symptom of a weak learner says little about a run whose outcome kept getting better."""

    # quiet when every finite value of the series is exactly this number: a sentinel printed where no value
    # was computed (TorchTitan sets `loss = torch.tensor([-1.0])` on a pipeline rank without the last stage),
    # not a measurement of the model
    unless_every_value: Optional[float] = None

    op: Op = ">"
    value: float = 0.0
    min_share: float = 0.2
    min_count: int = 1
    min_points: int = 3
    ignore_abs_below: Optional[float] = None
    gate_metric: Optional[Names] = None
    gate_max: Optional[float] = None
    unless_accuracy_above: Optional[float] = None
    unless_improved: Optional[Names] = None
    improved_by: float = 0.5
    # the gate must be logged: without it the range cannot be known to apply
    gate_required: bool = False
    # in a log that begins at the start of training, leave out the points within this fraction of
    # its step span (a fresh model's first updates are large whatever the run; counted in steps, not
    # points, so an excerpt of the first and last lines skips only its first lines)
    skip_first_steps: float = 0.0
    # with three or more points, only a series whose largest value beyond the bound is at least
    # min_rise times its smallest: a loss that stays within that band of where it sits is a quantity
    # in large units (a squared error of targets in dollars), not outputs blowing up (those go up or
    # come down by orders of magnitude); values beyond rise_exempt_above count whatever the rest do
    # (no unit gives numbers that large)
    min_rise: Optional[float] = None
    rise_exempt_above: Optional[float] = None
    # with fewer than three points of its own, the rise test takes the points of the first of these the
    # run logs too, when its own values lie in the band that series spans: an eval loss is the training
    # loss's quantity on other data, in the same units, so one test MSE of 2e9 beside a training MSE that
    # came down 4e10 -> 2e9 is large units, not a blow-up
    rise_with: Optional[Names] = None
    # quiet when the series' last point is at most (1 - unless_fell_by) of its first: a quantity that
    # large which keeps falling fast is in large units (a loss summed over tokens), not blown up
    unless_fell_by: Optional[float] = None
    # ... judged on the medians of the series' first and last tenths instead of its end points: a loss that
    # swings by orders of magnitude from one batch to the next falls by half between two single points by chance
    fell_by_medians: bool = False
    improved_min_points: int = 6  # the fewest points of `unless_improved` that can show a trend
    # quiet when both move the right way at once: the series fell by this share of its first value and
    # the `unless_improved` metric rose by this share of its own (two readings agree that the run learns;
    # each alone needs its own, larger margin above)
    joint_improved: Optional[float] = None
    # quiet when this learning-rate series rises at every log over the points beyond the bound (and
    # ends at least twice where it began): the log covers warmup only, where a fresh head or adapter
    # gives large gradients that the rising rate has not yet worked down
    unless_warming_up: Optional[Names] = None
    # only a series whose first logged value sits within first_tol of first_near, at the start of the
    # run (a loss that begins at ln 2 is a binary cross-entropy, or a softmax over two, at its start)
    first_near: Optional[float] = None
    first_tol: float = 0.03
    # the unless_* exemptions above hold only while every value beyond the bound is below this: past it
    # no healthy run of the kind gives such a number, whatever its other readings say
    exempt_below: Optional[float] = None
    # only when the first of these metrics that the run logs never got below (1 - stalled_tol) of its
    # first positive value over stalled_min_points or more logs (a learning rate too small to move the
    # weights shows as a loss that does not move; without such a loss, quiet)
    only_if_stalled: Optional[Names] = None
    stalled_tol: float = 0.05
    stalled_min_points: int = 2
    # quiet when the training loss fell by this share of its level over the same stretch and ends at
    # its low (its last fifth within a tenth of its lowest point): a quantity whose size depends on the
    # model and the loss's reduction (a gradient norm) is high there in its own units, not out of control;
    # unless it grew tenfold or more from its own first fifth (then it did not start out that large)
    unless_loss_falling: Optional[float] = None
    # quiet when these series were logged (two points or more in all) and every point is exactly 0: an
    # accuracy that never once scores a right answer, on training and held-out data alike, is not scoring
    # this model's outputs (Keras' `accuracy` on a regression compares floats for equality)
    unless_all_zero: Optional[Names] = None
    # quiet when every point beyond the bound, divided by 100, lies within the range (lowest to highest) that
    # one of these other series spans while it stays a share (every value 0..1): the same quantity printed as a
    # percent (a script's own `Accuracy on the test set: 90.53%` beside the framework's fractions 0.83-0.91)
    unless_percent_of: Optional[Names] = None
    # quiet when any finite value of the series is below this: a value the quantity the bound was set for
    # cannot take says the series measures another one (a discrete policy's entropy is never below 0; a
    # Gaussian policy's differential entropy is, whenever its std is under 0.24)
    unless_any_below: Optional[float] = None


def _percent_of(c: Ctx, names: Names, values: np.ndarray) -> bool:
    """Whether every one of `values` (one or more), read as a percent, lies within the range of one of the
    series `names` (not this one) whose finite values are all shares in 0..1."""
    if not len(values) or not np.all((values > 1.0) & (values <= 100.0)):
        return False
    for s in series_matching(c.run, list(names)):
        if s.name == c.name:
            continue
        w = finite_xy(s.steps, s.values)[1]
        if len(w) and float(np.min(w)) >= 0.0 and float(np.max(w)) <= 1.0 \
                and bool(np.all((values / 100.0 >= float(np.min(w))) & (values / 100.0 <= float(np.max(w))))):
            return True
    return False


def _all_zero(run, names: Names) -> bool:
    """Whether the run logs these series (two points or more in all) and every finite point is exactly 0."""
    ys = [finite_xy(s.steps, s.values)[1] for s in series_matching(run, names)]
    ys = [y for y in ys if len(y)]
    return sum(len(y) for y in ys) >= 2 and all(not np.any(y) for y in ys)


def _stalled(s, tol: float, min_points: int) -> bool:
    """Whether a positive series did not fall: its later points never below (1 - tol) of its first, or,
    with 8 points or more (a per-batch loss swings), the median of its last quarter not below (1 - tol)
    of the median of its first."""
    if s is None:
        return False
    y = finite_xy(s.steps, s.values)[1]
    if len(y) < max(2, min_points):
        return False
    if len(y) >= 8:
        head, tail = _ends(y, 0.25)
        return head > 0 and tail >= (1.0 - tol) * head
    return float(y[0]) > 0 and float(np.min(y[1:])) >= (1.0 - tol) * float(y[0])


def _fell_by(y: np.ndarray, share: float) -> bool:
    """Whether a positive series' last point is at most (1 - share) of its first."""
    return len(y) >= 2 and y[0] > 0 and y[-1] <= (1.0 - share) * y[0]


def _all_sentinel(y: np.ndarray, sentinel: float | None) -> bool:
    """Whether `sentinel` is set and every one of the finite values `y` (one or more) is exactly it."""
    return sentinel is not None and len(y) > 0 and bool(np.all(y == sentinel))


@check("threshold", ThresholdParams)
def threshold(c: Ctx) -> Hit | None:
    """A share of points beyond a bound."""
    p: ThresholdParams = c.params
    if p.gate_metric and p.gate_max is not None:
        gate = c.other(p.gate_metric)
        gy = finite_xy(gate.steps, gate.values)[1] if gate is not None else np.empty(0)
        if len(gy) and float(np.median(gy)) > p.gate_max:
            return None
        if p.gate_required and not len(gy):
            return None
    x, y = finite_xy(c.steps, c.values)
    if _all_sentinel(y, p.unless_every_value):
        return None
    if p.unless_any_below is not None and len(y) and float(np.min(y)) < p.unless_any_below:
        return None
    if p.first_near is not None and not (len(y) and abs(float(y[0]) - p.first_near) <= p.first_tol
                                         and facts.begins_at_start(x)):
        return None
    if p.only_if_stalled and not _stalled(c.other(p.only_if_stalled), p.stalled_tol, p.stalled_min_points):
        return None
    if p.unless_all_zero and _all_zero(c.run, p.unless_all_zero):
        return None
    if p.ignore_abs_below is not None:  # float noise around 0 means "undefined" here (e.g. constant returns)
        keep = np.abs(y) >= p.ignore_abs_below
        x, y = x[keep], y[keep]
    if len(y) < p.min_points:
        return None
    sl = window_slice(len(y), p)
    x, y = x[sl], y[sl]
    if p.skip_first_steps > 0 and len(x) > 1 and facts.begins_at_start(x, 0.05):
        keep = x > x[0] + p.skip_first_steps * (x[-1] - x[0])
        x, y = x[keep], y[keep]
    if not len(y):
        return None
    op, bound = p.op, p.value
    hit = _cmp(op, y, bound)
    count = int(hit.sum())
    share = count / len(y)
    if count < p.min_count or share < p.min_share:
        return None
    if p.unless_percent_of and _percent_of(c, p.unless_percent_of, y[hit]):
        return None
    if p.min_rise is not None and not (
            p.rise_exempt_above is not None and float(np.max(np.abs(y[hit]))) > p.rise_exempt_above):
        pool = y
        if len(y) < 3 and p.rise_with and (beside := c.other(p.rise_with)) is not None and beside.name != c.name:
            by = np.abs(finite_xy(beside.steps, beside.values)[1])
            # only values inside the band the other series spans (within a factor of 2) are its quantity; an
            # epoch's sum next to per-batch values, or a blown-up eval beside a sane training loss, is not
            if len(by) and bool(np.all((np.abs(y[hit]) <= 2 * by.max()) & (np.abs(y[hit]) >= by.min() / 2))):
                pool = np.concatenate([y, by])
        low = np.abs(pool[pool != 0])
        if len(pool) >= 3 and (not len(low) or float(np.max(np.abs(y[hit]))) < p.min_rise * float(np.min(low))):
            return None
    if p.exempt_below is None or float(np.max(np.abs(y[hit]))) < p.exempt_below:
        if p.unless_accuracy_above is not None and _accuracy_at_least(c.run, p.unless_accuracy_above, x[0], x[-1]):
            return None
        if p.unless_warming_up and _warming_up(c.other(p.unless_warming_up), float(x[hit][0]), float(x[hit][-1])):
            return None
        if p.unless_fell_by is not None and _fell_by(np.array(_ends(y)) if p.fell_by_medians else y, p.unless_fell_by):
            return None
        if p.unless_loss_falling is not None and _loss_kept_falling(c.run, p.unless_loss_falling, float(x[0]), float(x[-1])) \
                and not _grew(y, hit, 10.0):
            return None
        if p.unless_improved and _ended_improved(c, p.unless_improved, p.improved_by, max(2, p.improved_min_points)):
            return None
        if p.joint_improved is not None and p.unless_improved and _fell_by(y, p.joint_improved) \
                and _ended_improved(c, p.unless_improved, p.joint_improved, max(2, p.improved_min_points)):
            return None
    hx, hy = x[hit], y[hit]
    worst = int(np.argmax(np.abs(hy - bound))) if op not in ("==", "!=") else 0
    where = f"steps {step_str(hx[0])}-{step_str(hx[-1])}" if hx[0] != hx[-1] else f"step {step_str(hx[0])}"
    extreme = "max" if op in (">", ">=", "abs>") else "min"
    return Hit(
        f"{c.name} {op} {fmt(bound)} on {pct(count, len(y))} ({where}), {extreme} {fmt(hy[worst])} at step {step_str(hx[worst])}",
        hx[0], hx[-1], numbers={"share": share, "extreme": float(hy[worst])},
    )


@params
class NearParams(WindowParams):
    """target (or target_from: ln_classes | softmax_ce_floor, worked out from the run's number of
    classes); tol; min_share of the window within tol; first_above: only when one of the first
    `start_points` values (or of the first `early_fraction` of the run, if that is more) was at
    least this many times the target (a loss that blew up first, then sank to chance)."""

    target: Optional[float] = None
    target_from: Optional[Literal["ln_classes", "softmax_ce_floor"]] = None
    tol: float = 0.02
    min_share: float = 0.8
    min_points: int = 5
    first_above: Optional[float] = None
    start_points: int = 3
    early_fraction: float = 0.0
    # ln_classes with nothing else to name C: the window's every point within `level_tol` of ln C for
    # a C up to `level_max_classes` names it (0: off)
    level_tol: float = 0.0
    level_max_classes: int = 10
    # quiet when the accuracy named by accuracy_names (default: the run's classification accuracy) has a
    # median of at least this over the same window: a preference margin near 0 on pairs the model ranks
    # right two times in three is a small margin scale (a small beta, per-token log-probs), not no learning
    unless_accuracy_above: Optional[float] = None
    accuracy_names: Optional[Names] = None
    # quiet when the first of `unless_fell` that the run logs ended `fell_by` or more below its first value
    # (medians of its first and last tenths, three points at least): a training AUC at a coin beside a
    # loss that fell is a model that learns something the score does not measure, not one that learns nothing
    unless_fell: Optional[Names] = None
    fell_by: float = 0.3

    def problems(self) -> list:
        if (self.target is None) == (self.target_from is None):
            return [ParamProblem("target", "the near check needs exactly one of `target` and `target_from`")]
        return []


@check("near", NearParams)
def near(c: Ctx) -> Hit | None:
    """Values stuck near a target."""
    p: NearParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    target = p.target
    where = ""
    above = 0.0  # how far above target + tol a point may still count as near it
    if p.target_from == "ln_classes":
        found = _classes_at_chance(c.run)
        if found is None and p.first_above:
            # (a loss that blew up before sinking: its first value, logged at init, was ln C)
            k = facts.classes_from_first_loss(x, y)
            found = (k, f"first {c.name} {fmt(float(y[0]))} = ln {k}") if k and k >= 2 else None
        if found is None and p.level_tol > 0:
            # (or the level it sank to: ln 2 = 0.6931 to four digits is two classes)
            k = facts.classes_from_loss_level(y[window_slice(len(y), p)], p.level_tol, p.level_max_classes)
            found = (k, f"every point of the {p.window} within {fmt(p.level_tol)} of it") if k else None
        if found is None:
            return None
        target, where = math.log(found[0]), f" = ln {found[0]} ({found[1]})"
    elif p.target_from == "softmax_ce_floor":
        # cross-entropy over probabilities instead of logits cannot go below log(1 + (C-1)/e):
        # the best "logits" it can produce are one 1 and C-1 zeros
        found = _classes_for_floor(c.run, c.steps, c.values)
        if found is None:
            return None
        target = math.log(1 + (found[0] - 1) / math.e)
        where = f" = log(1 + ({found[0]}-1)/e) ({found[1]})"
        # it is a floor: every sample's loss is at least that, so a logged mean clearly below it
        # (beyond float noise) rules the bug out
        if float(np.min(y)) < target - max(0.02, 0.02 * target):
            return None
        # A sample the model gets confidently wrong costs log(e + C - 1) = the floor + 1 exactly, so a
        # saturated model that misses a share m of its samples sits up to m above the floor (at 92.5%
        # accuracy, ten classes: 1.461 + 0.075 = 1.536): the band widens upward by the share it misses.
        # Only for a model right 90% of the time or more: its outputs are confident, and a healthy
        # cross-entropy at that accuracy is far below the floor; at lower accuracy a healthy loss can sit
        # anywhere in such a band (a CIFAR-10 MLP at 50% logs about 1.45)
        missed = _missed_share(c.run, x[window_slice(len(x), p)])
        if missed and missed <= 0.1:
            above = missed
            where = f" = log(1 + ({found[0]}-1)/e) ({found[1]}; up to {fmt(missed)} more for the {missed:.1%} it gets wrong)"
    if target is None:
        return None
    target = float(target)
    blew = ""
    if p.first_above:
        head = y[: max(1, p.start_points, int(p.early_fraction * len(y)))]
        peak = int(np.argmax(head))
        if not (target > 0 and float(head[peak]) >= p.first_above * target):
            return None
        blew = f" after blowing up to {fmt(float(head[peak]))} at step {step_str(x[peak])}"
    sl = window_slice(len(y), p)
    x, y = x[sl], y[sl]
    close = (y >= target - p.tol) & (y <= target + p.tol + above)
    share = float(close.mean()) if len(y) else 0.0
    if share < p.min_share:
        return None
    if p.unless_accuracy_above is not None and len(x) and _accuracy_at_least(
            c.run, p.unless_accuracy_above, float(x[0]), float(x[-1]), p.accuracy_names):
        return None
    if p.unless_fell and (other := c.other(p.unless_fell)) is not None:
        oy = finite_xy(other.steps, other.values)[1]
        k = max(3, len(oy) // 10)
        if len(oy) >= 2 * k and _fell_by(np.array([np.median(oy[:k]), np.median(oy[-k:])]), p.fell_by):
            return None
    return Hit(
        f"{c.name} stays within {fmt(p.tol)} of {fmt(target)}{where} on {share:.0%} of points (steps {step_str(x[0])}-{step_str(x[-1])}), "
        f"median {fmt(float(np.median(y)))}{blew}",
        x[0], x[-1], numbers={"share": share, "target": target},
    )


@params
class ImprovingParams(Params):
    """The held-out task scores whose progress excuses a finding (each check says which progress):
    unless_improving higher-is-better names, unless_improving_lower lower-is-better ones; with
    improving_error_terms a share near 1 improves by its error falling a tenth (see _tenth_better)."""

    unless_improving: Optional[Names] = None
    unless_improving_lower: Optional[Names] = None
    improving_error_terms: bool = False


def _improving_since(c: Ctx, p: ImprovingParams, since: float) -> bool:
    """Whether one of `p`'s task scores reaches its best at one of its last two evaluations, a tenth or more
    better than it stood at step `since` (see _still_improving)."""
    return bool(p.unless_improving or p.unless_improving_lower) and _still_improving(
        c.run, p.unless_improving, p.unless_improving_lower, since, p.improving_error_terms) is not None


@params
class FlatParams(ImprovingParams):
    """rel_tol: the largest relative change start to end (and half of the largest dip) that
    counts as flat; max_excursion: a rise above the start beyond this is a divergence, not flat
    (default 10 x rel_tol)."""

    rel_tol: float = 0.03
    min_points: int = 20
    max_excursion: Optional[float] = None
    from_start: bool = False
    # (ImprovingParams) quiet when a task score ends a tenth or more better than it began (medians of its
    # first and last 15%): a model that got better at what it is for is learning, whatever level its loss
    # sits at (a ranking loss with a high floor)


@check("flat", FlatParams)
def flat(c: Ctx) -> Hit | None:
    """No progress from the start. from_start: only when the log begins at the start of
    training (a flat stretch cut from the middle of a run is a plateau, or a converged run)."""
    p: FlatParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    if p.from_start and (not facts.started_at_init(x) or getattr(c.run, "meta", {}).get("restarts")
                         or facts.resumed_from_checkpoint(c.run, float(x[0]))):
        return None  # a flat stretch of a resumed run is a trained model holding its level
    x, y = reduce(x, y)
    start, end = _ends(y)
    scale = max(abs(start), 1e-8)
    rel = (end - start) / scale
    ys = smooth(y, max(1, len(y) // 20))
    best = float(np.min(ys))
    tol = p.rel_tol
    if abs(rel) > tol or (start - best) / scale > 2 * tol:
        return None
    if (p.unless_improving or p.unless_improving_lower) and _task_improved(
            c.run, p.unless_improving, p.unless_improving_lower, p.improving_error_terms) is not None:
        return None
    # flat means flat: a loss that blew up far above its start (and came back) is a divergence
    excursion = p.max_excursion if p.max_excursion is not None else 10 * tol
    if (float(np.max(ys)) - start) / scale > excursion:
        return None
    return Hit(
        f"{c.name} is flat: {fmt(start)} at the start, {fmt(end)} at the end ({rel:+.1%}) over steps {step_str(x[0])}-{step_str(x[-1])}",
        x[0], x[-1], numbers={"start": start, "end": end, "rel": rel},
    )


@params
class CrawlParams(Params):
    """The relative drop start to end between min_drop and max_drop, and the second half still
    falling on min_monotonic of its smoothed intervals."""

    min_drop: float = 0.02
    max_drop: float = 0.1
    min_points: int = 40
    min_monotonic: float = 0.6


@check("crawl", CrawlParams)
def crawl(c: Ctx) -> Hit | None:
    """Falling, but far too slowly and still falling at the end."""
    p: CrawlParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    x, y = reduce(x, y)
    start, end = _ends(y)
    scale = max(abs(start), 1e-8)
    drop = (start - end) / scale
    if not (p.min_drop <= drop <= p.max_drop):
        return None
    half = y[len(y) // 2 :]
    ys = smooth(half, max(1, len(half) // 10))
    falling = float(np.mean(np.diff(ys) < 0)) if len(ys) > 2 else 0.0
    h0, h1 = _ends(half, 0.2)
    if falling < p.min_monotonic or h1 >= h0:
        return None
    return Hit(
        f"{c.name} only fell {drop:.1%} ({fmt(start)} -> {fmt(end)}) over steps {step_str(x[0])}-{step_str(x[-1])}, and is still falling steadily",
        x[0], x[-1], numbers={"drop": drop},
    )


@params
class SpikeParams(ImprovingParams):
    """factor: a point this many times the median of the `window` points before it is a spike;
    it must also rise more than min_abs and min_rel_start x the starting level; skip_first: the
    first fraction of the run is not looked at; recover_points / recover_factor: a spike
    recovers when the series comes back within recover_factor x its base that soon; min_spikes:
    this many spikes (or one that never recovers) fire; answer_unrecovered: the answer then.
    z: a spike must also stand out from the run's own jumps: its log-ratio to the base at least
    z robust standard deviations above the typical one (per-batch losses near 0 swing tenfold
    from batch to batch; a smooth LM loss that jumps 30% has spiked)."""

    factor: float = 3.0
    window: int = 20
    min_spikes: int = 2
    recover_points: int = 50
    recover_factor: float = 1.5
    min_abs: float = 0.0
    min_rel_start: float = 0.0
    skip_first: float = 0.05
    max_negative_share: float = 0.05
    min_points: int = 30
    answer_unrecovered: Optional[Answer] = None
    z: Optional[float] = None
    # with one point per optimizer step, a spike must last this many points (a one-step spike that
    # recovers is one odd batch)
    per_step_min_len: int = 1
    # (ImprovingParams) quiet when every spike recovered and a task score reaches new bests a tenth past
    # where it stood at the first spike: jumps that cost the held-out score nothing are batch noise, not the
    # optimisation failing


@check("spike", SpikeParams)
def spike(c: Ctx) -> Hit | None:
    """Sudden jumps against the running median. One small spike that recovers stays quiet unless
    min_spikes is 1."""
    p: SpikeParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    # A series that sits around 0 with both signs (a policy-gradient surrogate) has no scale to
    # spike against: ratios to its median are meaningless.
    if float(np.mean(y < 0)) > p.max_negative_share:
        return None
    # (the level it started from: the first log, or the first twentieth's median when that is higher; a
    # contrastive loss that falls from 1.0 to 1e-3 within five steps started at 1.0, not at its median)
    start_level = max(float(np.median(y[: max(3, len(y) // 20)])), float(y[0]))
    xm, ymax = reduce(x, y, "max")
    _, ymean = reduce(x, y, "mean")
    w = p.window
    if len(ymax) <= w + 2:
        return None
    from numpy.lib.stride_tricks import sliding_window_view

    base = np.median(sliding_window_view(ymean[:-1], w), axis=1)  # median of the w points before i
    cand = ymax[w:]
    pos = xm[w:]
    scale = np.maximum(np.abs(base), 1e-12)
    jump = cand / scale if (base > 0).all() else (cand - base) / scale + 1
    # a spike must also be large against the run's own scale (its level at the start): a loss
    # that converged to 1e-4 and wobbles to 6e-4 has not spiked
    min_height = max(p.min_abs, p.min_rel_start * abs(start_level))
    is_spike = (jump >= p.factor) & (cand - base > min_height)
    if p.z is not None and (base > 0).all() and (cand > 0).all():
        r = np.log(cand) - np.log(base)
        center = float(np.median(r))
        spread = 1.4826 * float(np.median(np.abs(r - center)))
        is_spike &= (r - center) >= p.z * spread
    skip = int(p.skip_first * len(cand))
    is_spike[:skip] = False
    idx = np.flatnonzero(is_spike)
    if not len(idx):
        return None
    # merge consecutive indices into events
    events = np.split(idx, np.flatnonzero(np.diff(idx) > 1) + 1)
    if p.per_step_min_len > 1 and len(xm) > 2 and bool(np.all(np.diff(xm) == 1)):
        # one point per optimizer step: a spike on a single step is that one batch (a hard or odd
        # batch), not the optimisation going unstable; a logged mean over many steps is not one batch
        events = [ev for ev in events if len(ev) >= p.per_step_min_len]
        if not events:
            return None
        idx = np.concatenate(events)
    rec_n = p.recover_points
    unrecovered = 0
    sizes = []
    for ev in events:
        i = ev[-1]
        after = ymean[w + i + 1 : w + i + 1 + rec_n]
        # a spike on the last logged point has no "after": whether it recovers is unknown
        if len(after) and np.min(after) > base[i] * p.recover_factor + 1e-12:
            unrecovered += 1
        sizes.append(float(np.max(jump[ev])))
    n_spikes = len(events)
    big = max(sizes)
    if n_spikes < p.min_spikes and unrecovered == 0:
        return None
    if unrecovered == 0 and _improving_since(c, p, float(pos[idx[0]])):
        return None
    worst_i = idx[int(np.argmax(jump[idx]))]
    answer = str(p.answer_unrecovered) if unrecovered and p.answer_unrecovered else None
    return Hit(
        f"{c.name} spiked {n_spikes} time(s), up to {big:.1f}x the running median (max {fmt(cand[worst_i])} at step {step_str(pos[worst_i])})"
        + (f"; {unrecovered} did not recover" if unrecovered else "; all recovered"),
        pos[idx[0]], pos[idx[-1]], answer=answer, numbers={"spikes": n_spikes, "unrecovered": unrecovered, "max_factor": big},
    )


@params
class TrendParams(WindowParams):
    """direction; min_monotonic: share of smoothed intervals moving that way; optional bounds:
    min_ratio (end/start, or start/end going down), min_rise (absolute change), min_last (the
    end level)."""

    direction: Literal["up", "down"] = "up"
    min_monotonic: float = 0.7
    min_ratio: Optional[float] = None
    min_rise: Optional[float] = None
    min_last: Optional[float] = None
    min_points: int = 10
    # a runaway, not a drift: the change over the second half of the window at least this many times
    # the change over the first half. A series that starts at 0 by construction (a KL to the reference
    # the policy starts as) multiplies its first value whatever it does, so its end/start ratio says
    # nothing; a steady drift moves as much in each half (1x), one that compounds moves more each time
    min_acceleration: Optional[float] = None


@check("trend", TrendParams)
def trend(c: Ctx) -> Hit | None:
    """Steady growth (direction: up) or decline (down)."""
    p: TrendParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    sl = window_slice(len(y), p)
    x, y = reduce(x[sl], y[sl])
    if len(y) < p.min_points:
        return None
    ys = smooth(y, max(1, len(y) // 10))
    start, end = _ends(ys, 0.1)
    up = p.direction == "up"
    d = np.diff(ys)
    mono = float(np.mean(d > 0) if up else np.mean(d < 0)) if len(d) else 0.0
    if mono < p.min_monotonic:
        return None
    if p.min_ratio is not None:
        if start <= 0 or end <= 0:
            return None
        ratio = end / start if up else start / end
        if ratio < p.min_ratio:
            return None
    if p.min_rise is not None and (end - start if up else start - end) < p.min_rise:
        return None
    if p.min_last is not None and end < p.min_last:
        return None
    note = ""
    if p.min_acceleration is not None:
        k = max(1, int(len(ys) * 0.1))
        h = len(ys) // 2
        mid = float(np.median(ys[max(0, h - k // 2):max(0, h - k // 2) + k]))
        first, second = (mid - start, end - mid) if up else (start - mid, mid - end)
        if first <= 0 or second < p.min_acceleration * first:
            return None
        note = f"; {second / first:.0f}x as much in its second half as in its first"
    word = "grew" if up else "fell"
    return Hit(
        f"{c.name} {word} steadily from {fmt(start)} to {fmt(end)} over steps {step_str(x[0])}-{step_str(x[-1])} "
        f"({mono:.0%} of intervals {'rising' if up else 'falling'}){note}",
        x[0], x[-1], numbers={"start": start, "end": end, "monotonic": mono},
    )


@params
class UnboundedFallParams(Params):
    """A series that falls at nearly every log, past zero to min_multiple times its first value's size
    below it, and does not slow: its second half falls at least keep_pace of its first half's rate."""

    min_points: int = 5
    min_falling: float = 0.9
    min_multiple: float = 10.0
    keep_pace: float = 0.9


@check("unbounded_fall", UnboundedFallParams)
def unbounded_fall(c: Ctx) -> Hit | None:
    """A loss that runs off below zero at an unslowing rate: an objective with no floor."""
    p: UnboundedFallParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    d = np.diff(y)
    if float(np.mean(d < 0)) < p.min_falling:
        return None
    first, last = float(y[0]), float(y[-1])
    if last >= 0 or -last < p.min_multiple * max(abs(first), 1.0):
        return None
    h = len(d) // 2
    early, late = float(np.mean(d[:h])), float(np.mean(d[h:]))
    if early >= 0 or late > p.keep_pace * early:
        return None
    return Hit(
        f"{c.name} fell at {np.mean(d < 0):.0%} of logs from {fmt(first)} to {fmt(last)} over steps "
        f"{step_str(x[0])}-{step_str(x[-1])}, as fast in its second half ({fmt(late)} a log) as in its first "
        f"({fmt(early)}): no floor in sight", x[0], x[-1], numbers={"start": first, "end": last},
    )


@params
class ConstantParams(WindowParams):
    """value (default: the most common value); tol; min_share and min_count of the window."""

    # quiet when every finite value is exactly this number: a sentinel, not a value that stopped moving
    # (see ThresholdParams.unless_every_value)
    unless_every_value: Optional[float] = None

    value: Optional[float] = None
    # quiet when a training loss fell by this share or more over the same steps (medians of its first
    # and last fifth): a learning rate printed as 0 beside a loss that keeps falling is a small rate
    # rounded away by the printing (`lr: 0.000`), since weights that do not move cannot lower the loss
    unless_loss_falls: Optional[float] = None
    # ... and the other way round: only when a training loss fell by this share over the same steps (a
    # gradient norm of exactly 0 beside a loss that keeps falling was read where the gradients are zero
    # - after zero_grad(), before backward() - not from the gradients the step used)
    only_while_loss_falls: Optional[float] = None
    # quiet when this higher-is-better series (a total reward) ended improved_by of its starting size or
    # more above where it started (medians of its first and last 15%, 6 points or more): one part of a
    # signal that never moves matters little while the whole keeps improving
    unless_improved: Optional[Names] = None
    improved_by: float = 0.5
    # only a value that is the series' own maximum (a mean pinned at the largest value it ever takes:
    # every item averaged sat at a cap)
    at_max: bool = False
    tol: float = 0.0
    min_share: float = 0.8
    min_count: int = 5
    min_points: int = 5
    # quiet when this series is logged at nearly every step the named one is: loggers that print the
    # last evaluation again with every training line repeat one value, which is not several evaluations
    not_at_every_step_of: Optional[Names] = None
    # quiet when every value the run logs is a multiple of 10^-unless_coarse_print: a log printed at that
    # many decimals cannot show a rate below half its last digit, so 0 there may be a rate rounded away
    unless_coarse_print: Optional[int] = None
    # ... except when this held-out loss (lower is better) fell by coarse_unless_fell_by or more too
    # (medians of its first and last 15%, 4 points or more): a model whose held-out loss falls as well
    # as its training loss learns from gradients the step used, so a 0 printed for their norm is no
    # tiny real norm rounded away but one read where there are none
    coarse_unless_fell: Optional[Names] = None
    coarse_unless_fell_by: float = 0.2
    # quiet when this series is exactly 0 wherever it is finite (a loss of 0 beside a gradient norm of
    # 0 is a loss that scores nothing, not one a NaN filter replaced)
    not_while_zero: Optional[Names] = None
    # ... and the other way round: only when this series is logged and non-zero somewhere (a GRPO
    # gradient norm of 0 is a bug only while the rewards in a group differ)
    only_while_nonzero: Optional[Names] = None
    # only when this series is logged and exactly 0 wherever it is finite
    only_while_zero: Optional[Names] = None
    # quiet when another series these names match (patterns as in a detector's metric list) is non-zero
    # somewhere: one box term of a run at 0 while another regresses boxes is a branch switched off by
    # design (a semi-supervised detector's unlabelled RPN), not data without boxes
    unless_any_nonzero: Optional[Names] = None
    # quiet when a bounded score these patterns match (an accuracy, an F1: read as a fraction) ends below its
    # maximum of 1: an eval loss of exactly 0 beside a perfect held-out score is a result too good to be
    # true, beside an imperfect one it is a loss that scored nothing
    unless_score_below_max: Optional[Names] = None
    # quiet when the value is exactly 0 on a series these patterns match: one term of a summed loss at 0
    # at every evaluation is a term the model does not have (a one-class detector's class loss), not a
    # value that stopped moving
    zero_is_absent_for: Optional[Names] = None
    # judge only the points from where the value takes over to the end of the log, after other values:
    # a loss that turns exactly 0 part-way and stays there
    trailing: bool = False
    # with trailing: only when those last points are more than this share of the series (the value took
    # over the larger part of the log) and the series began at trailing_start_min or more
    trailing_share: Optional[float] = None
    trailing_start_min: Optional[float] = None
    # with trailing: only when the point just before those last points is this far or more from the value
    # (a loss that steps to 0 from a working level, not one that crept down to the print's last digit)
    trailing_from_min: Optional[float] = None
    # the answer to give instead when the rows are epoch means: frozen weights score the same dataset
    # the same way every epoch, so the repeats cannot tell a frozen tensor from a frozen model
    coarse_answer: Optional[str] = None
    # when each row is an epoch's mean, this many points are enough (min_points and min_count both):
    # one epoch averages every batch, so a value it holds exactly held for the whole epoch
    epoch_min_count: Optional[int] = None
    # only a value strictly between these bounds (a score pinned at its floor or its ceiling is
    # another finding, or a saturated easy task), printed to at least min_digits significant digits
    # (values printed to two digits repeat by rounding alone)
    above: Optional[float] = None
    below: Optional[float] = None
    min_digits: Optional[int] = None
    # quiet when the value (not 0) shows fewer than this many significant digits at the print resolution the
    # run's other series show (the most decimals any of them carries, one or more): `loss: 0.0012` beside
    # `acc_pose: 0.6212` is printed at four decimals, two digits that hold for anything in [0.00115, 0.00125),
    # so it repeats by rounding alone; `loss: 0.1000` there shows four and means what it says. A log whose
    # other series show no decimals says nothing of the print, and the value counts as read.
    min_digits_beside: Optional[int] = None
    # with fewer than three points the same (min_count 2), only a value shown to this many significant digits
    # or more: two readings that agree to five digits are one in about 10^4 by chance, where a third reading
    # is what makes a three-digit repeat (0.946, 0.946) mean something
    pair_min_digits: Optional[int] = None
    # the log's own print resolution, from the decimals its values of these series carry (a Keras line
    # prints `loss: 3.5313 - val_loss: 0.2000`): a value with fewer digits counts when it stands at least
    # 10^min_digits steps of that resolution (read at three decimals at most) above 0: 0.2000 is 200
    # steps of 0.001, not the floor of a print as 0.0001 is
    resolution_from: Optional[Names] = None
    # judge a value printed to three or more digits from where it first appears (frozen after a spike);
    # off: the value must hold from the first point
    since_first_seen: bool = True
    # the same value to this share of itself counts as the same (0 with tol 0: bit-identical)
    rel_tol: float = 0.0
    # only when the rows are counted by an explicit step or iteration (each a batch, or a few batches):
    # an epoch's mean, or a row of unknown size, can hold still once a model has converged
    explicit_steps_only: bool = False
    # an accuracy-like series: read in percent as a fraction (100 is 1.0) before comparing to `value`
    fraction: bool = False
    # quiet when one of these series (read the same way) is below `value` somewhere: a training
    # accuracy that climbed to it shows a model that learned, and an eval pinned there from its first
    # evaluation is an easy set solved within the first epoch
    unless_below: Optional[Names] = None
    # quiet when the first of these series (a training loss) is logged at least twice before this series'
    # first point and fell by fell_before_by or more there (its lowest against its first value): a model
    # seen learning before it was first scored was not pinned from its start; the first evaluation of an
    # easy task comes after it is solved (the same reading as unless_below, from a loss)
    unless_fell_before: Optional[Names] = None
    fell_before_by: float = 0.2
    # quiet when one of these series takes two or more values over the frozen stretch: a score computed
    # from the same predictions (an IoU or F1 of the same evaluations) that moves shows the predictions
    # changed, so the frozen one is a coarse print of a saturated score, not a model that stopped
    unless_moving: Optional[Names] = None


def _moving_over(c: Ctx, names: Names, lo: float, hi: float) -> bool:
    """Whether one of the series `names` (globs allowed) takes two or more finite values over steps
    lo..hi."""
    for s in series_matching(c.run, list(names)):
        keep = np.isfinite(s.values) & (s.steps >= lo) & (s.steps <= hi)
        if s.name != c.name and len(np.unique(np.asarray(s.values)[keep])) >= 2:
            return True
    return False


def _other_values(c: Ctx, names) -> np.ndarray:
    """The finite values of the first of `names` the run logs (empty when it logs none)."""
    other = c.other(names)
    return finite_xy(other.steps, other.values)[1] if other is not None else np.empty(0)


def _fell_before(c: Ctx, names, by: float) -> bool:
    """Whether the first of `names` the run logs has two or more finite points at steps before this
    series' first known step, and its lowest there is `by` or more below its first (positive) value."""
    other = c.other(names)
    known = c.steps[np.isfinite(c.steps) & np.isfinite(c.values)]
    if other is None or not len(known):
        return False
    ox, oy = finite_xy(other.steps, other.values)
    pre = oy[np.isfinite(ox) & (ox < float(known.min()))]
    return len(pre) >= 2 and pre[0] > 0 and float(pre.min()) <= (1.0 - by) * float(pre[0])


def _logged_all_zero(c: Ctx, names) -> bool:
    """Whether the first of `names` the run logs has finite values, and every one of them is exactly 0."""
    oy = _other_values(c, names)
    return bool(len(oy)) and not np.any(oy)


def _logged_with(x: np.ndarray, other) -> bool:
    """Whether steps x are (nearly) the other series' own steps over the same stretch."""
    ox = other.steps[np.isfinite(other.steps)]
    ox = ox[(ox >= x[0]) & (ox <= x[-1])]
    if len(ox) < 3:
        return False
    shared = in_steps(x, ox).mean()
    return bool(shared >= 0.8 and len(x) >= 0.8 * len(ox))


def _epoch_minimum(c: Ctx, full: int, epochs: Optional[int]) -> int:
    """How many points a check needs: `full`, or fewer (`epochs`) when each row is an epoch's mean."""
    return min(full, epochs) if epochs is not None and _rows_are_epochs(c.run) else full


def _rows_are_epochs(run) -> bool:
    """Whether each row of the run is one epoch (Keras CSVLogger, an `epoch N/M` print): there an eval
    value on every row is an evaluation per epoch, the ordinary cadence, not the last one printed again."""
    meta = getattr(run, "meta", None) or {}
    return "epoch" in (meta.get("x_axis"), meta.get("step_axis"))


def _rows_are_evaluations(run) -> bool:
    """Whether an eval value on every row of the run is measured anew at each: rows that are epochs, or rows
    that are evaluations themselves (a model card's results table, meta `eval_rows`)."""
    return _rows_are_epochs(run) or bool((getattr(run, "meta", None) or {}).get("eval_rows"))


def _rows_are_steps(run) -> bool:
    """Whether each row of the run is counted by a training step or iteration: a printed log whose
    counter is an explicit step, or a structured log keyed by something other than the epoch."""
    meta = getattr(run, "meta", None) or {}
    if "step_axis" in meta:
        return meta["step_axis"] == "explicit"
    return meta.get("x_axis") != "epoch"


def _coarse_print(run, decimals: int, points: int) -> bool:
    """Every finite value of every series of the run logged about as often as this one (half its
    points or more: the same lines, not a summary printed once) is a whole number of 10^-decimals."""
    scale = 10.0 ** decimals
    seen = False
    for s in run.series.values():
        v = np.asarray(s.values, dtype=float)
        v = v[np.isfinite(v)] * scale
        if len(v) < max(1, points // 2):
            continue
        seen = True
        if np.any(np.abs(v - np.round(v)) > 1e-6 * np.maximum(1.0, np.abs(v))):
            return False
    return seen


@check("constant", ConstantParams)
def constant(c: Ctx) -> Hit | None:
    """Exactly one value (e.g. 0) on a share of points."""
    p: ConstantParams = c.params
    x, y = finite_xy(c.steps, facts.as_fraction(c.values) if p.fraction else c.values)
    min_points = _epoch_minimum(c, p.min_points, p.epoch_min_count)
    min_count = _epoch_minimum(c, p.min_count, p.epoch_min_count)
    if len(y) < min_points:
        return None
    if _all_sentinel(finite_xy(c.steps, c.values)[1], p.unless_every_value):
        return None
    if p.not_at_every_step_of:
        other = c.other(p.not_at_every_step_of)
        if other is not None and _logged_with(x, other) and not _rows_are_evaluations(c.run):
            return None
    if p.not_while_zero and _logged_all_zero(c, p.not_while_zero):
        return None
    if p.only_while_nonzero and not np.any(_other_values(c, p.only_while_nonzero)):
        return None
    if p.only_while_zero and not _logged_all_zero(c, p.only_while_zero):
        return None
    if p.unless_any_nonzero and any(
            s.name != c.name and np.any(finite_xy(s.steps, s.values)[1] != 0)
            for s in series_matching(c.run, p.unless_any_nonzero)):
        return None
    if p.unless_score_below_max and any(
            s.name != c.name and len(w := finite_xy(s.steps, facts.as_fraction(s.values))[1]) and w[-1] < 1.0
            for s in series_matching(c.run, p.unless_score_below_max)):
        return None
    if p.unless_below and p.value is not None:
        oy = _other_values(c, p.unless_below)
        if len(oy) and np.any((facts.as_fraction(oy) if p.fraction else oy) < p.value):
            return None
    if p.unless_fell_before and _fell_before(c, p.unless_fell_before, p.fell_before_by):
        return None
    if p.explicit_steps_only and not (_rows_are_steps(c.run) and np.isfinite(c.steps).all()):
        return None  # (no step column: rows of unknown size)
    if p.trailing:
        return _trailing_constant(c, p, x, y, min_count)
    logged = len(y)
    sl = window_slice(len(y), p)
    x, y = x[sl], y[sl]
    if p.value is not None:
        target = p.value
    elif p.min_share > 0.5 and len(y):
        target = float(np.partition(y, len(y) // 2)[len(y) // 2])  # a value on most points is the median
    else:
        vals, counts = np.unique(y, return_counts=True)
        target = float(vals[np.argmax(counts)])
    if (p.above is not None and not target > p.above) or (p.below is not None and not target < p.below) \
            or (p.min_digits is not None and target != 0 and _digits(target) < p.min_digits
                and not facts.prints_full_precision(c.run) and not _resolved(c, p, target)):
        return None
    if p.at_max and target < float(np.max(y)):
        return None
    if p.min_digits_beside is not None and target != 0 and _digits(target) < p.min_digits_beside:
        shown = max((_decimals(s.values) for k, s in c.run.series.items() if k != c.name), default=0)
        if shown > 0 and abs(target) < 10.0 ** (p.min_digits_beside - shown):
            return None
    if target == 0 and p.zero_is_absent_for and any(fnmatch.fnmatchcase(c.name, pat) for pat in p.zero_is_absent_for):
        return None
    if p.pair_min_digits is not None and target != 0 and _digits(target) < p.pair_min_digits \
            and int(np.count_nonzero(y == target)) < 3:
        return None
    # (the same value to the last few bits of a double is the same value: summing one batch's terms in another
    # order changes the 16th digit, `0.013182825077950069` then `...067`, and nothing a person would call a change)
    if p.rel_tol > 0:
        if target == 0:
            return None  # (a share of 0 is 0: a value of exactly 0 is another finding, not a still one)
        same = np.abs(y - target) <= p.rel_tol * abs(target)
    else:
        same = (np.abs(y - target) <= 1e-12 * abs(target)) if p.tol == 0 else (np.abs(y - target) <= p.tol)
    count = int(np.count_nonzero(same))
    share = count / len(y) if len(y) else 0.0
    if share < p.min_share and p.value is None and p.tol == 0 and p.since_first_seen and count >= min_count \
            and _printed(target)[0] >= 3 and count * 2 >= len(y):
        # (`3.571, 0.6931, 0.6931, ...`: frozen after a spike; a value printed to three or more digits
        # does not come back by rounding, so the share is judged from where it first appears)
        start = int(np.argmax(same))
        share = count / (len(y) - start)
        since = f" from step {step_str(x[start])} on"
    else:
        since = ""
    if share < p.min_share or count < min_count:
        return None
    hx = x[same]
    if p.unless_loss_falls is not None and _training_loss_fell(c.run, p.unless_loss_falls, float(hx[0]), float(hx[-1])):
        return None
    if p.only_while_loss_falls is not None and not _training_loss_fell(c.run, p.only_while_loss_falls, float(hx[0]),
                                                                        float(hx[-1])):
        return None
    # (last: it reads every series of the run, worth it only for a value that would be reported)
    if p.unless_coarse_print is not None and _coarse_print(c.run, p.unless_coarse_print, logged) \
            and not (p.coarse_unless_fell and _held_out_fell(c, p.coarse_unless_fell, p.coarse_unless_fell_by)):
        return None
    if p.unless_improved and _ended_improved(c, p.unless_improved, p.improved_by, 6):
        return None
    if p.unless_moving and _moving_over(c, p.unless_moving, float(hx[0]), float(hx[-1])):
        return None
    answer, why = None, ""
    if p.coarse_answer:
        if _rows_are_epochs(c.run):
            answer, why = p.coarse_answer, ": each row is an epoch's mean, so the model's outputs stopped changing"
    where = f"step {step_str(hx[0])}" if hx[0] == hx[-1] else f"steps {step_str(hx[0])}-{step_str(hx[-1])}"
    if p.rel_tol > 0:
        spread = float(np.max(y[same]) - np.min(y[same]))
        return Hit(
            f"{c.name} stays within {fmt(spread)} of {target:.6g} ({spread / abs(target):.0e} of it) on {share:.0%} of points"
            f"{since} ({count:,} of {len(y):,}, {where}), each logged at a step: a value no batch moves",
            hx[0], hx[-1], answer=answer, numbers={"share": share, "value": target, "spread": spread},
        )
    return Hit(
        f"{c.name} is exactly {_exact(target)} on {share:.0%} of points{since} ({count:,} of {len(y):,}, {where}){why}",
        hx[0], hx[-1], answer=answer, numbers={"share": share, "value": target},
    )


def _trailing_constant(c: Ctx, p: ConstantParams, x: np.ndarray, y: np.ndarray, min_count: int) -> Hit | None:
    """`value` (default: the last value, printed to min_digits or more and between `above` and `below`)
    on every point from some step to the end, after other values before it."""
    if not len(y):
        return None
    value = p.value if p.value is not None else float(y[-1])
    if p.value is None and ((p.above is not None and not value > p.above) or (p.below is not None and not value < p.below)
                            or (p.min_digits is not None and _printed(value)[0] < p.min_digits)):
        return None
    same = np.abs(y - value) <= p.tol
    other = np.flatnonzero(~same)
    if not len(other) or other[-1] == len(y) - 1:
        return None
    start = int(other[-1]) + 1
    count = len(y) - start
    if count < min_count:
        return None
    if p.trailing_share is not None and not count > p.trailing_share * len(y):
        return None
    if p.trailing_start_min is not None and not y[0] >= p.trailing_start_min:
        return None
    if p.trailing_from_min is not None and not abs(float(y[start - 1]) - value) >= p.trailing_from_min:
        return None
    if p.unless_moving and _moving_over(c, p.unless_moving, float(x[start]), float(x[-1])):
        return None
    return Hit(
        f"{c.name} is exactly {fmt(value) if p.value is not None else _exact(value)} on its last {count} points "
        f"(steps {step_str(x[start])}-{step_str(x[-1])}), after {fmt(float(y[start - 1]))} at step {step_str(x[start - 1])}",
        x[start], x[-1], numbers={"count": count, "value": value},
    )


@params
class RecurringParams(WindowParams):
    """min_count: pairs of non-adjacent points with exactly the same value; factor: how many times
    the pairs that chance gives (worked out from the pairs one to three print units apart) they must
    be; min_digits: the significant digits a recurring value needs (a value printed to one or two
    digits recurs by rounding alone); min_points."""

    min_count: int = 4
    factor: float = 4.0
    min_digits: int = 4
    min_points: int = 8


FLOAT32_REL = 1.2e-7  # the relative spacing of single-precision floats: values stored that way differ by this much


def _printed(v: float, most: int = 9, rel_tol: float = 1e-9) -> tuple[int, int, int]:
    """(significant digits, exponent of the last digit, value in units of that digit): the shortest
    print of v, so 0.0311 is (3, -4, 311) and 3.5073 is (5, -4, 35073). rel_tol FLOAT32_REL reads v
    at single precision (a float32 0.995 is 0.995, not 0.995000005). One value of _printed_all."""
    digits, exps, units = _printed_all(np.array([v], dtype=float), most, rel_tol)
    return int(digits[0]), int(exps[0]), int(units[0])


def _tens(e: np.ndarray) -> np.ndarray:
    """10.0 ** e for integer exponents, as Python's float power gives it (a negative one as 1 / 10^-e:
    numpy's power of 10 to a negative exponent can land one unit of the last place away)."""
    pos = np.power(10.0, np.abs(e).astype(float))
    return np.where(e >= 0, pos, 1.0 / pos)


def _printed_all(y: np.ndarray, most: int = 9, rel_tol: float = 1e-9) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """_printed for every value of an array at once (digits, exponents, units; 0s for 0 and non-finite
    values): the same arithmetic, one pass per digit count instead of one call per value."""
    y = np.asarray(y, dtype=float)
    digits = np.zeros(len(y), dtype=np.int64)
    exps = np.zeros(len(y), dtype=np.int64)
    units = np.zeros(len(y), dtype=float)
    todo = np.isfinite(y) & (y != 0)
    if not todo.any():
        return digits, exps, units
    top = np.zeros(len(y), dtype=np.int64)
    top[todo] = np.floor(np.log10(np.abs(y[todo]))).astype(np.int64)
    for d in range(1, most + 1):
        idx = np.flatnonzero(todo)
        if not len(idx):
            break
        v = y[idx]
        e = top[idx] - d + 1
        scale = _tens(e)
        m = np.round(v / scale)
        ok = np.abs(m * scale - v) <= rel_tol * np.abs(v)
        if d == most:
            ok[:] = True
        hit = idx[ok]
        digits[hit], exps[hit], units[hit] = d, e[ok], m[ok]
        todo[hit] = False
    return digits, exps, units


def _resolved(c: Ctx, p, target: float) -> bool:
    """Whether `target` stands 10^min_digits or more print steps above 0, the step read from the most
    decimals (three at most) the values of this series and of p.resolution_from carry: a value that only
    shows fewer digits is then a round number printed in full, not one rounded to the print's floor."""
    if not p.resolution_from:
        return False
    decimals = _decimals(c.values)
    other = c.other(p.resolution_from)
    if other is not None:
        decimals = max(decimals, _decimals(other.values))
    # (a neighbour's decimals vouch for three at most: a test summary may print its loss to 4 decimals
    # beside training lines at 6, and 0.0001 there is that summary's floor)
    return decimals > 0 and abs(target) >= 10.0 ** (p.min_digits - min(decimals, 3))


def _decimals(values, limit: int = 256) -> int:
    """The most decimals any of the first `limit` values is printed with (`3.5313` has four): the print
    format's resolution, at least. Values in exponent form (under 1e-4, or 1e16 and up), with no short
    spelling, or past eight decimals say nothing of a fixed-decimals print and are left out."""
    v = np.asarray(values, dtype=float)[:limit]
    v = v[np.isfinite(v) & (np.abs(v) >= 1e-4) & (np.abs(v) < 1e16)]
    digits, exps, _ = _printed_all(v)
    fixed = (digits < 9) & (exps >= -8) & (exps < 0)
    return int(-exps[fixed].min()) if fixed.any() else 0


def _digits(v: float) -> int:
    """Significant digits v was printed with, read at single precision."""
    return _printed(v, rel_tol=FLOAT32_REL)[0]


def _exact(v: float) -> str:
    """v to every digit it was printed with (a value said to repeat exactly is shown exactly)."""
    digits = _digits(v)
    return fmt(v) if digits <= 3 else f"{v:.{digits}g}"


def _bf16_share(y: np.ndarray, exps: np.ndarray | None = None) -> float:
    """The share of values that are a bfloat16 number as printed (within half a unit of their last
    printed digit of the nearest bfloat16): a loss logged straight from a bf16 tensor. exps: the
    exponents of y's last printed digits, where the caller has them (_printed_all(y)[1])."""
    # values past float32's range (a loss printed as 1e39) are no bfloat16 number, and would overflow the cast
    keep = np.isfinite(y) & (y != 0) & (np.abs(y) <= np.finfo(np.float32).max)
    v = y[keep]
    if not len(v):
        return 0.0
    bits = v.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000).astype(np.uint32).view(np.float32).astype(float)
    unit = 0.5 * _tens(_printed_all(v)[1] if exps is None else exps[keep])
    return float(np.mean(np.abs(v - rounded) <= unit * (1 + 1e-9)))


@check("recurring", RecurringParams)
def recurring(c: Ctx) -> Hit | None:
    """The same values come back exactly, far more often than values one print unit apart.

    A loss over fresh batches is a continuous quantity: two non-adjacent points equal to every
    printed digit are about as likely as two points one, two or three units of the last digit
    apart. When exact repeats outnumber those near-misses many times over, the same numbers are
    being produced again: the weights (and the batches) are the same as before. Only values
    printed with min_digits significant digits count (a logger printing 3 digits, SB3's `%.3g`,
    repeats by rounding alone).
    """
    p: RecurringParams = c.params
    x, y = finite_xy(c.steps, c.values)
    sl = window_slice(len(y), p)
    x, y = x[sl], y[sl]
    if len(y) < p.min_points:
        return None
    digits_all, exps, units = _printed_all(y)
    if _bf16_share(y, exps) >= 0.9:
        return None  # a loss read from a bfloat16 tensor takes one of 128 values per octave: repeats by rounding
    keep = np.flatnonzero(digits_all >= p.min_digits)
    # one key per printed value (exponent, units): a value of n digits has fewer than 10^9 units, so
    # units + k (k = 1, 2, 3) is the key of the value k print units above, within the same exponent
    e_all, m_all = exps[keep], units[keep].astype(np.int64)
    key = ((e_all + 1024) << 40) + (m_all + (1 << 39))
    order = np.argsort(key, kind="stable")  # by value, then by place in the run (keep is increasing)
    ks, ix = key[order], keep[order]
    new_value = np.r_[True, ks[1:] != ks[:-1]] if len(ks) else np.empty(0, dtype=bool)
    starts = np.flatnonzero(new_value)
    counts = np.diff(np.r_[starts, len(ks)])
    # equal pairs with another value between them: a value that comes back after leaving (a stretch of
    # one value, a logger printing it on two lines, or a converged loss at float resolution, is no repeat).
    # Pairs inside one stretch of consecutive points are taken off each value's pairs.
    stretch = np.flatnonzero(new_value | np.r_[True, np.diff(ix) != 1]) if len(ks) else starts
    lengths = np.diff(np.r_[stretch, len(ks)])
    same = int((counts * (counts - 1) // 2).sum() - (lengths * (lengths - 1) // 2).sum())
    multi = np.flatnonzero(counts > 1)
    if same < p.min_count or len(multi) < 2:
        return None  # one value over and over is a pinned loss (the constant check says that)
    values = ks[starts]
    near = 0
    for k in (1, 2, 3):
        at = np.searchsorted(values, values + k)
        hit = at < len(values)
        hit[hit] = values[at[hit]] == values[hit] + k
        near += int((counts[hit] * counts[at[hit]]).sum())
    chance = near / 6.0  # for a smooth spread, pairs k units apart (k = 1, 2, 3) are each about twice the equal pairs
    if same < p.factor * max(chance, 1.0):
        return None
    # the most repeated values first (ties: the one seen first)
    first = ix[starts[multi]]
    top = multi[np.lexsort((first, -counts[multi]))][:3]
    repeated = [(int(e_all[order[starts[g]]]), int(m_all[order[starts[g]]]), int(counts[g])) for g in top]
    shown = ", ".join(f"{m * 10.0**e:.{max(0, -e)}f} x{n}" for e, m, n in repeated)
    return Hit(
        f"{c.name} repeats earlier values exactly ({shown}): {same} equal pairs of {len(y):,} points "
        f"where chance gives about {fmt(chance)}, over steps {step_str(x[0])}-{step_str(x[-1])}",
        x[0], x[-1], numbers={"pairs": float(same), "chance": chance},
    )


@params
class EarlyCollapseParams(Params):
    """below: the fraction of the peak it falls under; within: the share of the run by which."""

    below: float = 0.01
    within: float = 0.3
    min_points: int = 20


@check("early_collapse", EarlyCollapseParams)
def early_collapse(c: Ctx) -> Hit | None:
    """A value (the LR) falls below a fraction of its peak early in the run."""
    p: EarlyCollapseParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    peak_i = int(np.argmax(y))
    peak = float(y[peak_i])
    if peak <= 0:
        return None
    below = np.flatnonzero(y[peak_i:] < p.below * peak)
    if not len(below):
        return None
    j = peak_i + int(below[0])
    if j >= p.within * len(y) or j >= len(y) - 3:
        return None
    return Hit(
        f"{c.name} fell from its peak {fmt(peak)} (step {step_str(x[peak_i])}) to {fmt(y[j])} by step {step_str(x[j])}, "
        f"{j / len(y):.0%} into the run, and stays there",
        x[peak_i], x[j], numbers={"peak": peak, "at": j / len(y)},
    )


@params
class StepwiseDropsParams(Params):
    """factor: a log's value at or below this times the log before it is one drop; run: consecutive
    drops that fire; min_points: finite points the series needs."""

    factor: float = 0.2
    run: int = 3
    min_points: int = 8


@check("stepwise_drops", StepwiseDropsParams)
def stepwise_drops(c: Ctx) -> Hit | None:
    """A value (the LR) divided by a large factor at each of several logs in a row."""
    p: StepwiseDropsParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    prev = y[:-1]
    drop = (prev > 0) & (y[1:] <= p.factor * np.where(prev > 0, prev, 1.0))
    # the longest stretch of drops in a row (the first, of equal ones)
    edges = np.diff(np.r_[0, drop.astype(np.int8), 0])
    began, ended = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    best_len = best_end = 0
    if len(began):
        j = int(np.argmax(ended - began))
        best_len, best_end = int(ended[j] - began[j]), int(ended[j])
    if best_len < p.run:
        return None
    a, b = best_end - best_len, best_end
    numbers: dict[str, float] = {"drops": best_len}
    in_all = ""
    if y[b] > 0:  # (a fall to exactly 0 is no ratio)
        numbers["fell_by"] = float(y[a] / y[b])
        in_all = f", {numbers['fell_by']:.0e}x in all"
    return Hit(
        f"{c.name} fell by {1 / p.factor:.0f}x or more at each of {best_len} logs in a row, from {fmt(y[a])} "
        f"(step {step_str(x[a])}) to {fmt(y[b])} (step {step_str(x[b])}){in_all}",
        x[a], x[b], numbers=numbers,
    )


@params
class ResumeReplayParams(Params):
    """At a resume (the step going back to a checkpoint after the run's first logged step, as the reader
    found it: meta `resumed_at`), the series goes back to the value the run started with (within
    `start_tol` times it, or beyond it on its side) while right before the resume it stood `moved`
    times or more away from that value: a schedule that starts over at the resume instead of going on
    where it stopped."""

    start_tol: float = 1.5
    moved: float = 3.0
    min_points: int = 6


@check("resume_replay", ResumeReplayParams)
def resume_replay(c: Ctx) -> Hit | None:
    """A logged value (the LR) starts over from its first value at a resume."""
    p: ResumeReplayParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points or not (y > 0).all():
        return None
    first = float(y[0])
    for back_to, reached in getattr(c.run, "meta", {}).get("resumed_at") or []:
        if not back_to > x[0]:
            continue  # back to the first step: a new run appended to the file, not a resume
        pre, post = y[x < back_to], y[x >= back_to]
        if len(pre) < 2 or not len(post):
            continue
        before, after = float(pre[-1]), float(post[0])
        # back at the start, or beyond it on the start's side: a replayed warmup logs its first values
        # (its first log may come a step before the run's own first one), a decay that starts over its peak
        rose, fell = before >= p.moved * first, before <= first / p.moved
        if (rose and after <= p.start_tol * first) or (fell and after >= first / p.start_tol):
            at = float(x[x >= back_to][0])
            return Hit(
                f"{c.name} starts over at the resume: the step went back from {step_str(reached)} to "
                f"{step_str(back_to)}, and {c.name} went from {fmt(before)} to {fmt(after)}, where the run began "
                f"({fmt(first)} at step {step_str(x[0])}), instead of going on from where it stood",
                at, at, numbers={"before": before, "after": after, "first": first},
            )
    return None


@params
class DropRatioParams(Params):
    """max_ratio: end / start at or below this fires (start and end: the medians of the first
    and last 15%). settle: when above 0, the level right after the start-up (the stretch from
    `settle` to twice `settle` of the run) must show the drop as well: the first logged
    throughput covers compilation, caching or the steps before learning starts, and a running
    average (SB3's fps) keeps diluting that fast start for the whole run."""

    max_ratio: float = 0.7
    min_points: int = 20
    settle: float = 0.0
    # the log's names for a rate that is a running mean since the start (SB3's time/fps is
    # num_timesteps / elapsed seconds): it is turned back into the rate between two logs first, so
    # a fast start (no updates before learning_starts) stops diluting the whole run
    running_mean_keys: Optional[Names] = None
    # only from the first step this metric is logged (the loss): before it no update ran
    # (SB3's learning_starts, a replay buffer being filled), so the rate is collection speed
    after_first: Optional[Names] = None
    # when above 0, the median of the run's last this many points must show the drop too: a rate that
    # sank for a stretch (a shared node, a slow disk) and is back at its old level by the last logs
    # did not drop as the run went on, it recovered
    last_points: int = 0


def _rate_between_logs(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A running-mean rate (steps / elapsed) as the rate between consecutive logs: elapsed = step /
    rate at each log, and the rate over a stretch is its steps over its seconds."""
    keep = y > 0
    x, y = x[keep], y[keep]
    t = x / y
    dx, dt = np.diff(x), np.diff(t)
    ok = (dx > 0) & (dt > 0)
    return x[1:][ok], (dx[ok] / dt[ok])


@check("drop_ratio", DropRatioParams)
def drop_ratio(c: Ctx) -> Hit | None:
    """The end of the run is much lower than its start (throughput)."""
    p: DropRatioParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    x, y = reduce(x, y)
    series = c.run.get(c.name) if hasattr(c.run, "get") else None
    if p.running_mean_keys and series is not None and (series.source_key or series.name) in p.running_mean_keys \
            and float(np.median(y)) >= 100:  # SB3 prints whole numbers: below 100 the rounding swamps the rate
        x, y = _rate_between_logs(x, y)
    first = c.other(p.after_first) if p.after_first else None
    if first is not None:
        fx = first.steps[np.isfinite(first.values) & np.isfinite(first.steps)]
        if len(fx):
            keep = x >= float(fx.min())
            x, y = x[keep], y[keep]
    if len(y) < p.min_points:
        return None
    start, end = _ends(y, 0.15)
    if start <= 0:
        return None
    ratio = end / start
    if ratio > p.max_ratio:
        return None
    if p.last_points > 0 and float(np.median(y[-p.last_points:])) / start > p.max_ratio:
        return None
    if p.settle > 0:
        a, b = int(p.settle * len(y)), max(int(2 * p.settle * len(y)), int(p.settle * len(y)) + 1)
        settled = float(np.median(y[a:b]))
        if settled <= 0 or end / settled > p.max_ratio:
            return None
    return Hit(
        f"{c.name} dropped from {fmt(start)} to {fmt(end)} ({ratio - 1:+.0%}) between steps {step_str(x[0])} and {step_str(x[-1])}",
        x[0], x[-1], numbers={"ratio": ratio},
    )


@params
class RisingVsFallingParams(Params):
    """against: the metric that must keep falling; min_rise: relative rise from this series'
    minimum; min_rise_of_drop: the rise as a share of the earlier fall; min_other_fall: how much
    the other must fall after the minimum."""

    against: Names = ("loss",)
    min_rise: float = 0.05
    min_points: int = 4
    min_points_after: int = 2
    min_rise_of_drop: Optional[float] = None
    min_other_fall: float = 0.0
    unless_held: Optional[Names] = None
    hold_tol: float = 0.05
    held_max_rise: float = 0.25
    # when set, the held exemption is judged on the absolute rise instead (for a cross-entropy, in
    # nats: with the accuracy unchanged the loss only measures confidence, and 0.1 nats is the
    # right class's probability moving by a tenth, whatever the loss's level)
    held_max_abs_rise: Optional[float] = None
    # an eval loss that ends alone_rise or more above its minimum (2.0: three times it) is worse on
    # held-out data whatever the training loss does, as long as that did not climb too (by more than
    # alone_other_max_rise from where it stood at the eval minimum: then both diverge, another finding)
    alone_rise: Optional[float] = None
    alone_other_max_rise: float = 0.1
    # ... or gap_rise or more above its minimum (0.15: 15%) when it also ends above where the training loss
    # ends, the training loss not higher than it stood at the eval minimum: the held-out loss climbed past the
    # training loss while that held or fell, the generalisation gap opening (off when None)
    gap_rise: Optional[float] = None
    # ... and a training loss that holds at exactly 0 counts there too (off: the training loss must end above
    # 0). An eval loss that rises is itself proof that the weights move, which a loss of exactly 0 (no
    # gradient) cannot do: the 0 is a small loss printed away, a model fitting its training set to the last
    # printed digit while its held-out loss climbs
    gap_at_zero: bool = False
    # quiet when a task metric the run is judged by is still improving: its best is at one of its last
    # two evaluations and better than where it stood at the eval loss's minimum (higher is better for
    # `unless_improving`, lower for `unless_improving_lower`: a WER), by a tenth of that value or more. A loss that rises while the word
    # error rate keeps falling is the model growing confident on the examples it gets right.
    unless_improving: Optional[Names] = None
    unless_improving_lower: Optional[Names] = None
    # the rise must stand noise_z times above the series' own point-to-point noise (second differences, so
    # a steady fall or climb is no noise): an eval loss wandering 0.012-0.025 that ends 0.001 over its
    # lowest point has not turned; needs noise_points evaluations to estimate the noise at all
    noise_z: Optional[float] = None
    noise_points: int = 6
    # quiet for one term of a summed eval loss (`eval/<term>/loss`) when another term of it kept falling
    # after this one's minimum: the terms traded (YOLO's objectness loss on held-out images climbs as the
    # model predicts more boxes while its box and class terms keep falling), the held-out fit did not worsen
    unless_other_terms_fall: bool = False
    # the training loss needs this many logged points (one at or before the eval minimum, two after it)
    min_other_points: int = 4
    # ... or, with the training loss down at every log after the eval minimum (two logs or more) and the
    # eval loss up at every evaluation after it, a rise of steady_rise or more from that minimum: the two
    # curves part at every step, the textbook turn that early stopping watches for, however slowly the
    # training loss still falls (off when None)
    steady_rise: Optional[float] = None


def _task_improved(run, higher: Names | None, lower: Names | None, error_terms: bool = False) -> str | None:
    """The name of a task metric (higher / lower is better) whose last 15% of evaluations (median) stands a
    tenth or more better than its first 15%, over five evaluations or more: the model got better at what it
    is for over the log. error_terms: a higher-is-better share improves when its error fell a tenth."""
    for names, sign in ((higher, 1.0), (lower, -1.0)):
        for name in names or ():
            s = run.get(name)
            if s is None:
                continue
            y = finite_xy(s.steps, facts.as_fraction(s.values) if sign > 0 else s.values)[1]
            if len(y) < 5:
                continue
            first, last = _ends(y, 0.15)
            if first != last and _tenth_better(sign * first, sign * last, error_terms and sign > 0):
                return s.name
    return None


def _tenth_better(was: float, now: float, share: bool = False) -> bool:
    """Whether `now` is a tenth or more better than `was` (both higher-is-better). share: a score in 0..1
    that rose counts by its error (1 - score) falling a tenth, since near the ceiling no share can gain a
    tenth of itself (0.966 -> 0.972 is a sixth of the errors gone)."""
    if share and 0.0 <= was < now <= 1.0:
        return (1.0 - now) <= 0.9 * (1.0 - was)
    return now - was >= 0.1 * abs(was)


def _still_improving(run, higher: Names | None, lower: Names | None, since: float,
                     error_terms: bool = False) -> str | None:
    """The name of a task metric whose best value is at one of its last two evaluations and a tenth or
    more better than its value at step `since` (the eval loss's best), if there is one (an accuracy
    that inches from 0.48 to 0.50 at chance is not a model still improving). error_terms: a higher-is-
    better share counts as improved when its error (1 - score) fell by a tenth (see _tenth_better)."""
    for names, sign in ((higher, 1.0), (lower, -1.0)):
        for name in names or ():
            s = run.get(name)
            if s is None:
                continue
            x, y = finite_xy(s.steps, facts.as_fraction(s.values) if sign > 0 else s.values)
            if len(y) < 3:
                continue
            z = sign * y
            then = z[x <= since]
            if not len(then) or int(np.argmax(z)) < len(z) - 2:
                continue
            best, was = float(np.max(z)), float(then[-1])
            if _tenth_better(was, best, error_terms and sign > 0):
                return s.name
    return None


def _other_terms_fell(c: Ctx, since: float) -> bool:
    """Whether this series is one term of a summed eval loss (`eval/<term>/loss`) and another term of
    the same split ends lower than it stood at step `since`."""
    parts = c.name.split("/")
    if len(parts) != 3 or parts[0] != "eval" or parts[2] != "loss":
        return False
    for s in series_matching(c.run, ("eval/*/loss",)):
        if s.name == c.name:
            continue
        x, y = finite_xy(s.steps, s.values)
        then = y[x <= since]
        if len(then) and len(y) >= 3 and float(np.median(y[-3:])) < float(then[-1]):
            return True
    return False


def _parting(up: np.ndarray, down: np.ndarray) -> bool:
    """Whether `up` (an eval loss from its minimum on) rises at every evaluation and `down` (the training loss
    from its last log at or before that minimum on) falls at every log, over two steps or more each."""
    return len(up) >= 3 and len(down) >= 3 and bool(np.all(np.diff(up) > 0)) and bool(np.all(np.diff(down) < 0))


def _scored(x: np.ndarray, y: np.ndarray, resolution: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """A training loss without the exact zeros that follow a value above `resolution`: a loss
    that goes from 1.05 to exactly 0.0 between two logs is no fit and no rounding (losses print
    with two decimals or more) but nothing scored (every label masked) or a NaN a trainer filtered
    away (the HF Trainer logs a window of NaN losses as 0.0). Zeros after 1e-5 are rounding."""
    nonzero = np.flatnonzero(y != 0)
    if not len(nonzero) or len(nonzero) == len(y):
        return x, y
    before = np.searchsorted(nonzero, np.arange(len(y))) - 1  # the last non-zero point before each
    prev = np.where(before >= 0, y[nonzero[np.maximum(before, 0)]], 0.0)
    keep = (y != 0) | (np.abs(prev) <= resolution)
    return x[keep], y[keep]


@check("rising_vs_falling", RisingVsFallingParams)
def rising_vs_falling(c: Ctx) -> Hit | None:
    """This metric (eval loss) rises from its minimum while another (train loss) keeps falling.
    unless_held: eval quality metrics (accuracy, mAP; higher is better): when the run logs one
    and it has not got worse (no more than hold_tol of its best, or 3x its noise, below it),
    a moderate loss rise (under held_max_rise) is the model growing confident, not a model that
    generalises worse; a larger one is an overfit whatever the metric does."""
    p: RisingVsFallingParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    # the lowest single point of a long noisy series flatters it: judge its running median
    ys = _running_median(y, max(1, len(y) // 10)) if len(y) >= 20 else y
    i = int(np.argmin(ys))
    after = len(y) - 1 - i
    if after < p.min_points_after:
        return None
    low, last = float(ys[i]), float(np.median(y[-max(1, after // 3):]))
    rise = (last - low) / max(abs(low), 1e-8)
    if rise < p.min_rise:
        return None
    if p.noise_z is not None and len(y) >= p.noise_points and last - low < p.noise_z * facts.trend_noise(y):
        return None
    first = float(np.max(y[:i])) if i > 0 else low  # the highest value before the minimum (usually the first eval)
    if p.min_rise_of_drop is not None and first > low:
        # a 10% rise on a loss that fell from 1.0 to 0.016 is noise at convergence, not overfitting
        if (last - low) / (first - low) < p.min_rise_of_drop:
            return None
    if p.unless_other_terms_fall and _other_terms_fell(c, float(x[i])):
        return None
    other = c.other(p.against)
    if other is None:
        return None
    ox, oy = _scored(*finite_xy(other.steps, other.values))
    if len(oy) < p.min_other_points:
        return None
    at_min = oy[ox <= x[i]]
    later = oy[ox >= x[i]]
    if not len(at_min) and len(later) >= 4:
        at_min = oy[:1]  # (training logged its first loss after the best evaluation: HF's `No log` rows)
    if not len(at_min) or len(later) < 2:
        return None
    o_then = float(np.median(at_min[-max(1, len(at_min) // 10):]))
    o_end = float(np.median(later[-max(1, len(later) // 5):]))
    # (the training loss from its last log at or before the eval minimum on)
    steady = p.steady_rise is not None and rise >= p.steady_rise and _parting(y[i:], np.concatenate([at_min[-1:], oy[ox > x[i]]]))
    if o_end >= o_then or ((o_then - o_end) / max(abs(o_then), 1e-8) < p.min_other_fall and not steady):
        if p.alone_rise is not None and rise >= p.alone_rise and o_then > 0 \
                and o_end <= o_then * (1.0 + p.alone_other_max_rise):
            return Hit(
                f"{c.name} rose {rise:.0%} from its minimum {fmt(low)} at step {step_str(x[i])} to {fmt(last)} at step "
                f"{step_str(x[-1])} while {other.name} held at {fmt(o_then)} -> {fmt(o_end)}: the model got worse on "
                f"held-out data only",
                x[i], x[-1], numbers={"rise": rise},
            )
        if p.gap_rise is not None and rise >= p.gap_rise and (0 < o_end or (p.gap_at_zero and o_end == 0)) \
                and o_end <= o_then and last > o_end:
            return Hit(
                f"{c.name} rose {rise:.0%} from its minimum {fmt(low)} at step {step_str(x[i])} to {fmt(last)} at step "
                f"{step_str(x[-1])}, above {other.name}, which held at {fmt(o_then)} -> {fmt(o_end)}: the gap between "
                f"held-out and training loss opened",
                x[i], x[-1], numbers={"rise": rise},
            )
        return None
    if _still_improving(c.run, p.unless_improving, p.unless_improving_lower, float(x[i])) is not None:
        return None
    small = (last - low) < p.held_max_abs_rise if p.held_max_abs_rise is not None else rise < p.held_max_rise
    held = c.other(p.unless_held) if small else None
    if held is not None:
        hy = finite_xy(held.steps, facts.as_fraction(held.values))[1]
        drop = _worsened(hy, "down", 0.0, 3.0) if len(hy) >= 2 else None
        if len(hy) >= 2 and (drop is None or drop[3] <= p.hold_tol * abs(drop[1])):
            return None
    return Hit(
        f"{c.name} rose {rise:.0%} from its minimum {fmt(low)} at step {step_str(x[i])} to {fmt(last)} at step {step_str(x[-1])} "
        f"while {other.name} fell from {fmt(o_then)} to {fmt(o_end)}",
        x[i], x[-1], numbers={"rise": rise},
    )


@params
class GapWhileStalledParams(Params):
    """This eval metric stopped improving (its best is at least min_points_after evaluations before
    the end, and the last ones are no better) while the training metric `against` went on improving
    and now sits far on the better side of it: a loss `ratio` times under the eval loss, or an
    accuracy at least `train_at_least` and `gap` over the eval accuracy (`worse: down`). The model
    learns the training set and nothing more about the rest: memorisation. A loss gap must also be
    min_abs_gap or more: for a cross-entropy, 0.5 nats is the held-out answer getting about 0.6x
    the probability the training answer gets; two near-perfect fits differ by far less."""

    against: Names = ("loss",)
    worse: Literal["up", "down"] = "up"
    ratio: float = 3.0
    min_abs_gap: float = 0.5
    gap: float = 0.2
    train_at_least: float = 0.98
    min_points: int = 4
    min_points_after: int = 2
    min_train_gain: float = 0.5
    # with fewer evaluations than min_points nothing can be said to stall; an accuracy gap this wide
    # (train at train_at_least or more, the evaluation lone_gap or more below it) is a finding alone,
    # and so is an eval loss lone_ratio times the training loss and lone_abs_gap or more above it
    lone_gap: Optional[float] = None
    lone_ratio: Optional[float] = None
    lone_abs_gap: float = 1.0
    # quiet when a task metric is still improving (see RisingVsFallingParams)
    unless_improving: Optional[Names] = None
    unless_improving_lower: Optional[Names] = None
    # an eval metric identical at each of the last min_points evaluations has not improved there: with
    # this on, that flat tail counts as stalled (by default a last value equal to the best reads as
    # still improving)
    flat_is_stalled: bool = False
    # only an eval metric whose best is its FIRST evaluation: nothing the model learned after that carried to
    # the held-out set (lone gaps, which show no start, never fire with this on)
    best_at_first: bool = False


@check("gap_while_stalled", GapWhileStalledParams)
def gap_while_stalled(c: Ctx) -> Hit | None:
    """The eval metric stalled far behind a training metric that kept improving."""
    p: GapWhileStalledParams = c.params
    up = p.worse == "up"
    x, y = finite_xy(c.steps, c.values if up else facts.as_fraction(c.values))
    lone = p.lone_ratio if up else p.lone_gap
    if len(y) < p.min_points:
        return _lone_gap(c, p, x, y) if lone is not None and len(y) else None
    hit = _stalled_gap(c, p, x, y, up)
    if p.best_at_first:
        if hit is None or hit.first_step != x[0] or _still_improving(
                c.run, p.unless_improving, p.unless_improving_lower, float(x[0])) is not None:
            return None
        train = hit.summary.split(", while ", 1)[1].split(" (", 1)[0]  # ("loss went from 1.3 to 0.0658")
        return Hit(f"{c.name} was at its best at its first evaluation (step {step_str(x[0])}, {fmt(float(y[0]))}) and "
                   f"never improved on it: {fmt(float(y[-1]))} at step {step_str(x[-1])}, while {train}",
                   hit.first_step, hit.last_step, numbers=hit.numbers)
    if hit is not None and hit.first_step is not None and _still_improving(
            c.run, p.unless_improving, p.unless_improving_lower, float(hit.first_step)) is not None:
        return None
    tail = y[-p.min_points:]
    improving = tail[-1] == (tail.min() if up else tail.max())
    if p.flat_is_stalled and len(tail) > 1 and tail.min() == tail.max():
        improving = False
    if hit is None and lone is not None and not improving:
        # (the gap that far at each of the last evaluations, the last no better than the ones before it, is a
        # finding whether or not the excerpt shows the gap opening) ... unless a task metric still improves
        # over those evaluations: an eval loss still falling there is a model still generalising better
        if _still_improving(c.run, p.unless_improving, p.unless_improving_lower, float(x[-p.min_points])) is None:
            hit = _lone_gap(c, p, x[-p.min_points:], tail)
    return hit


def _stalled_gap(c: Ctx, p: GapWhileStalledParams, x: np.ndarray, y: np.ndarray, up: bool) -> Hit | None:
    """The eval metric's best is behind it and the training metric went on improving past it."""
    best = int(np.argmin(y)) if up else int(np.argmax(y))
    if len(y) - 1 - best < p.min_points_after:
        return None
    tail = y[-max(2, (len(y) - best) // 2):]
    last = float(np.median(tail))
    if (up and last < y[best]) or (not up and last > y[best]):
        return None
    other = c.other(p.against)
    if other is None:
        return None
    ox, oy = finite_xy(other.steps, other.values if up else facts.as_fraction(other.values))
    if up:
        ox, oy = _scored(ox, oy)
    after = oy[ox >= x[best]]
    if len(oy) < p.min_points or len(after) < 2:
        return None
    o_then = float(np.median(oy[ox <= x[best]][-3:])) if (ox <= x[best]).any() else float(after[0])
    o_end = float(np.median(after[-max(1, len(after) // 5):]))
    if up:
        if o_end <= 0 or last < p.ratio * o_end or last - o_end < p.min_abs_gap or o_then <= 0 \
                or (o_then - o_end) / o_then < p.min_train_gain:
            return None  # (0.07 against 0.02 is a 3.5x ratio of two near-perfect fits, not memorisation)
        how = f"{fmt(last / o_end)}x"
    else:
        # (an accuracy: the training set all but memorised, the eval set far behind and no longer gaining)
        if o_end < p.train_at_least or o_end - last < p.gap or o_end <= o_then:
            return None
        how = f"{fmt(o_end - last)} below it"
    return Hit(
        f"{c.name} stopped improving at step {step_str(x[best])} ({fmt(float(y[best]))}) and is {fmt(last)} at step "
        f"{step_str(x[-1])}, while {other.name} went from {fmt(o_then)} to {fmt(o_end)} ({c.name} {how}): the model "
        f"fits the training set and stopped generalising",
        x[best], x[-1], numbers={"eval": last, "train": o_end},
    )


def _lone_gap(c: Ctx, p: GapWhileStalledParams, x: np.ndarray, y: np.ndarray) -> Hit | None:
    """One to three evaluations far on the worse side of the training metric beside them: an
    accuracy far below a training accuracy at the top of its range, or a loss many times a
    training loss (and far above it in absolute terms)."""
    other = c.other(p.against)
    if other is None:
        return None
    up = p.worse == "up"
    ox, oy = finite_xy(other.steps, other.values if up else facts.as_fraction(other.values))
    # the training values logged since the evaluation before the last one (the last five at most): a
    # run logged once per epoch compares its last epoch, not a median reaching back to epoch 1
    before = ox <= x[-1]
    since = before & (ox > x[-2]) if len(x) > 1 else before
    near = oy[since][-5:] if since.any() else oy[before][-1:] if before.any() else oy[:5]
    if not len(near):
        return None
    train, last = float(np.median(near)), float(y[-1])
    if up:
        low = float(np.min(y))  # every evaluation far above: one that was close and jumped is a blow-up
        if p.lone_ratio is None or train <= 0 or low < p.lone_ratio * train or low - train < p.lone_abs_gap:
            return None
        now = float(oy[before][-1]) if before.any() else train
        if max(train, now) > 1.1 * float(np.max(oy[:3])):
            # (a training loss clearly above where it started fits nothing: both blew up; the value logged
            # last before the evaluation counts too, since a median of five climbing values lags behind)
            return None
        return Hit(
            f"{c.name} is {fmt(last)} at step {step_str(x[-1])} while {other.name} is {fmt(train)}: "
            f"{fmt(last / train)}x the training loss, a model that fits its training set and little else",
            x[-1], x[-1], numbers={"eval": last, "train": train},
        )
    if p.lone_gap is None or train < p.train_at_least or train - last < p.lone_gap:
        return None
    return Hit(
        f"{c.name} is {fmt(last)} at step {step_str(x[-1])} while {other.name} is {fmt(train)}: {fmt(train - last)} "
        f"below a training set the model has all but memorised",
        x[-1], x[-1], numbers={"eval": last, "train": train},
    )


@params
class FarBelowTrainParams(Params):
    """This eval accuracy, at its best, is `ratio` times or more below the training accuracy logged
    beside its last evaluation, while that training accuracy sits between `train_from` and
    `train_to`. A model still learning its training set generalises about as well as it fits: the
    gap between the two opens as the training accuracy nears 100% (memorisation, det-eval-accuracy-gap).
    A model right on three training examples in four and on one held-out example in ten is not
    judged on the inputs or labels it learned from."""

    against: Names = ("accuracy",)
    ratio: float = 3.0
    train_from: float = 0.5
    train_to: float = 0.97
    min_points: int = 1


def _logged_up_to(ox: np.ndarray, oy: np.ndarray, last: float, k: int) -> np.ndarray:
    """The last k values of a series logged at or before step `last` (its first k when none is)."""
    before = ox <= last
    return oy[before][-k:] if before.any() else oy[:k]


@check("far_below_train", FarBelowTrainParams)
def far_below_train(c: Ctx) -> Hit | None:
    """Eval accuracy a fraction of a training accuracy that is still mid-range."""
    p: FarBelowTrainParams = c.params
    x, y = finite_xy(c.steps, facts.as_fraction(c.values))
    other = c.other(p.against)
    if len(y) < max(1, p.min_points) or other is None:
        return None
    near = _logged_up_to(*finite_xy(other.steps, facts.as_fraction(other.values)), x[-1], 5)
    if not len(near):
        return None
    train, best = float(np.median(near)), float(np.max(y))
    if not p.train_from <= train <= p.train_to or best * p.ratio > train:
        return None
    return Hit(
        f"{c.name} is at most {fmt(best)} (last {fmt(float(y[-1]))} at step {step_str(x[-1])}) while {other.name} is "
        f"{fmt(train)}: the evaluation scores {fmt(train / max(best, 1e-12))}x worse than a training set the model has "
        f"not yet memorised, so it does not see what training sees",
        x[-1], x[-1], numbers={"eval": best, "train": train},
    )


@params
class BelowTrainByParams(Params):
    """This eval score (higher is better), at its best, sits `by` or more below the training score
    logged beside its last evaluation (in the score's own units: decibels for a PSNR, where 10 dB is
    ten times the squared error)."""

    against: Names = ("psnr",)
    by: float = 10.0
    min_points: int = 1


@check("below_train_by", BelowTrainByParams)
def below_train_by(c: Ctx) -> Hit | None:
    """An eval score far below the same score on the training data."""
    p: BelowTrainByParams = c.params
    x, y = finite_xy(c.steps, c.values)
    other = c.other(p.against)
    if len(y) < max(1, p.min_points) or other is None:
        return None
    near = _logged_up_to(*finite_xy(other.steps, other.values), x[-1], 3)
    if not len(near):
        return None
    train, best = float(np.median(near)), float(np.max(y))
    if train - best < p.by:
        return None
    return Hit(
        f"{c.name} is at most {fmt(best)} (last {fmt(float(y[-1]))} at step {step_str(x[-1])}) while {other.name} on the "
        f"training data is {fmt(train)}: {fmt(train - best)} lower on held-out data",
        x[-1], x[-1], numbers={"eval": best, "train": train},
    )


@params
class ZeroWhileFallingParams(Params):
    """against: the loss that must fall (by min_fall of its start) while this metric is 0;
    min_alone: this many evaluations all at exactly 0 are enough without it (0 = never)."""

    against: Names = ("loss",)
    min_points: int = 2
    min_fall: float = 0.1
    min_alone: int = 0
    # fewer evaluations are enough when a sibling score is exactly 0 at every evaluation too (mAP and
    # mAP@0.5 both 0: not one true positive at the loosest overlap either); the sibling must not be
    # this series itself
    siblings: Optional[Names] = None
    min_with_siblings: int = 1
    # with min_alone evaluations or more, scores at or below alone_tol count as 0 too: a Dice of 0.0004
    # at every one of fifteen evaluations is a model that marks nothing (a few stray pixels)
    alone_tol: float = 0.0
    # also fire when the last evaluation is exactly 0 after an earlier one reached this much (as a
    # fraction) and the evaluations before the final zeros were nonzero at more than half of them: a
    # score the model had earned, gone to none at all (a score that is often 0 is one at its noise
    # level: a batch of one example scored 0 or 1). Set, this is the only reading the check makes.
    ends_zero_after: Optional[float] = None


@check("zero_while_falling", ZeroWhileFallingParams)
def zero_while_falling(c: Ctx) -> Hit | None:
    """A quality metric stuck at exactly 0 while the loss falls, or at so many evaluations in a row
    that the loss need not say anything (one that fell did not help the metric; one that did not
    fall learned nothing)."""
    p: ZeroWhileFallingParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    if p.ends_zero_after is not None:
        if not (len(y) >= 2 and y[-1] == 0 and np.any(y != 0)):
            return None
        earlier = facts.as_fraction(y[:int(np.flatnonzero(y != 0)[-1]) + 1])
        if not (float(np.max(earlier)) >= p.ends_zero_after and 2 * int(np.sum(earlier == 0)) < len(earlier)):
            return None
        k = int(np.argmax(earlier))
        return Hit(f"{c.name} is exactly 0 at its last evaluation (step {step_str(x[-1])}) after {fmt(float(y[k]))} "
                   f"at step {step_str(x[k])}", x[k], x[-1])
    if np.any(y != 0):
        if p.min_alone and len(y) >= p.min_alone and p.alone_tol > 0 and bool(np.all(np.abs(y) <= p.alone_tol)):
            return Hit(f"{c.name} is at most {fmt(p.alone_tol)} at all {len(y)} evaluations (steps {step_str(x[0])}-"
                       f"{step_str(x[-1])}, largest {fmt(float(np.max(y)))})", x[0], x[-1])
        # min_alone evaluations in a row at exactly 0 at the end, the larger part of the run: a model that
        # scored a few hits early and now predicts nothing
        nonzero = np.flatnonzero(y != 0)
        tail = len(y) - 1 - int(nonzero[-1])
        if p.min_alone and tail >= p.min_alone and 2 * tail > len(y):
            return Hit(f"{c.name} is exactly 0 at its last {tail} of {len(y)} evaluations (steps {step_str(x[-tail])}-"
                       f"{step_str(x[-1])}; {fmt(float(y[nonzero[-1]]))} before)", x[-tail], x[-1])
        return None
    said = (f"{c.name} is exactly 0 at all {len(y)} evaluations (steps {step_str(x[0])}-{step_str(x[-1])})" if len(y) > 1
            else f"{c.name} is exactly 0 at its only evaluation (step {step_str(x[0])})")
    other = c.other(p.against)
    oy = _other_values(c, p.against)
    if len(oy) >= 4:
        start, end = _ends(oy)
        if start > 0 and (start - end) / start >= p.min_fall:
            return Hit(f"{said} while {other.name} fell from {fmt(start)} to {fmt(end)}", x[0], x[-1])
    if other is not None and 2 * len(oy) < len(other.values):
        return None  # a loss that is mostly NaN or Inf explains the zero: that is the finding
    if p.min_alone and len(y) >= p.min_alone:
        return Hit(said, x[0], x[-1])
    if p.siblings and len(y) >= p.min_with_siblings:
        for name in p.siblings:
            sib = c.run.get(name)
            if sib is None or sib.name == c.name:
                continue
            sy = finite_xy(sib.steps, sib.values)[1]
            if len(sy) >= p.min_with_siblings and not np.any(sy):
                return Hit(f"{said}, and so is {sib.name}", x[0], x[-1])
    return None


@params
class ContradictedParams(Params):
    """This accuracy sits at `at_most` or below on min_share of its points while another score of the same split
    (`others`, looked up under the accuracy's own split: `eval/auc` beside `eval/accuracy`) has a median of
    `others_at_least` or more: two readings of the same predictions that cannot both be true."""

    others: Names = ("auc", "precision", "recall", "f1")
    at_most: float = 0.01
    others_at_least: float = 0.8
    min_share: float = 0.8
    min_points: int = 1


@check("contradicted", ContradictedParams)
def contradicted(c: Ctx) -> Hit | None:
    """An accuracy near 0 beside scores near 1 for the same predictions."""
    p: ContradictedParams = c.params
    x, y = finite_xy(c.steps, facts.as_fraction(c.values))
    if len(y) < max(1, p.min_points):
        return None
    low = y <= p.at_most
    if low.sum() < p.min_share * len(y):
        return None
    prefix = c.name[: c.name.rfind("/") + 1] if c.name.startswith("eval/") else ""
    for name in p.others:
        other = c.run.get(prefix + name)
        if other is None or not len(other.values):
            continue
        oy = finite_xy(other.steps, facts.as_fraction(other.values))[1]
        level = float(np.median(oy)) if len(oy) else -math.inf
        if level >= p.others_at_least:
            return Hit(f"{c.name} is at most {fmt(float(np.max(y)))} on {pct(int(low.sum()), len(y))} while {other.name} "
                       f"is {fmt(level)} (median) for the same predictions: the accuracy is not computed "
                       f"on what the model outputs (a metric that does not fit the output or the target's form)",
                       x[0], x[-1], numbers={"accuracy": float(np.max(y)), "other": level})
    return None


@params
class NearZeroScoreParams(Params):
    """A held-out score whose best over every evaluation is at most `max_value` (as a fraction: 2% of
    100): the model gets almost nothing right. Quiet while it still climbs from 0 (its last evaluation
    is its best and above its first: a detector's first epochs), and for an evaluation scored before
    the first logged training step of `against` (a model at init), and while one of the `untrained`
    series (a perplexity) ends at `untrained_at` or above: a model whose own loss says it has not
    learned its task scores near 0 for that reason, which the loss's detectors read."""

    max_value: float = 0.02
    against: Names = ("loss", "train_loss_avg")
    min_points: int = 1
    untrained: Names = ()
    untrained_at: float = math.inf


@check("near_zero_score", NearZeroScoreParams)
def near_zero_score(c: Ctx) -> Hit | None:
    """A task score that stays at or near 0."""
    p: NearZeroScoreParams = c.params
    x, y = finite_xy(c.steps, facts.as_fraction(c.values))
    if len(y) < max(1, p.min_points):
        return None
    best = float(np.max(y))
    if best > p.max_value or (len(y) >= 2 and y[-1] == best and y[-1] > y[0]):
        return None
    other = c.other(p.against)
    if other is not None:
        ox = finite_xy(other.steps, other.values)[0]
        if len(ox) and x[-1] < ox[0]:
            return None
    for s in series_matching(c.run, p.untrained) if p.untrained else ():
        oy = finite_xy(s.steps, s.values)[1]
        if len(oy) and oy[-1] >= p.untrained_at:
            return None
    said = f"at all {len(y)} evaluations (steps {step_str(x[0])}-{step_str(x[-1])})" if len(y) > 1 \
        else f"at its only evaluation (step {step_str(x[0])})"
    return Hit(f"{c.name} is at most {fmt(best)} {said}: the model gets almost nothing right on held-out data",
               x[0], x[-1], numbers={"best": best})


@params
class HalvingsParams(Params):
    """skip_points: the calibration at the start; min_halvings after it, or a fall to floor or below
    from above it, or any value at `collapsed` or below (a scale with nothing left)."""

    skip_points: int = 20
    min_halvings: int = 6
    floor: float = 1.0
    collapsed: float = 0.0


@check("halvings", HalvingsParams)
def halvings(c: Ctx) -> Hit | None:
    """A loss scale that keeps halving after calibration, or sinks below a floor."""
    p: HalvingsParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if not len(y):
        return None  # one point below the floor is enough; halvings need a few
    skip = p.skip_points
    # only the points where the scale changes can be halvings (it is flat almost everywhere)
    moves = np.flatnonzero(y[1:] != y[:-1])
    moves = moves[moves >= skip]
    before = y[moves]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = y[moves + 1] / np.where(before == 0, np.nan, before)
    halves = moves[ratios <= 0.55] + 1
    # down at the floor or below it after being above it: a scale that sat at 1.0 all along is loss
    # scaling switched off (bf16, fp32), and one that starts at or under the floor was not seen to
    # fall (fairseq lets the scale go down to 1e-4; its reference fp16 runs sit at 1 and 0.5)
    # (through the floor while calibrating and back above it is no fall: fairseq starts at 128 and may halve
    # to 0.25 on its first steps, then climbs again); the fall that lasts starts after its last time above
    above = np.flatnonzero(y > p.floor)
    fell = y <= p.collapsed
    if len(above) and float(y[-1]) <= p.floor:
        fell = y <= p.floor
        fell[: int(above[-1]) + 1] = False
    below = np.flatnonzero(fell)
    if len(halves) < p.min_halvings and not len(below):
        return None
    parts = []
    if len(halves):
        times = "once" if len(halves) == 1 else "twice" if len(halves) == 2 else f"{len(halves)} times"
        parts.append(f"halved {times} after the first {skip} points")
    if len(below):
        level = p.floor if float(np.max(y)) > p.floor else p.collapsed
        parts.append(f"fell to {fmt(level)} or below at step {step_str(x[below[0]])} (min {fmt(float(y[below].min()))})")
    first = x[halves[0]] if len(halves) else x[below[0]]
    return Hit(f"{c.name} " + " and ".join(parts), first, x[-1], numbers={"halvings": len(halves)})


@params
class OverflowEventsParams(Params):
    """skip_first_events: the calibration overflows at the start; min_events after them."""

    skip_first_events: int = 10
    min_events: int = 5


@check("overflow_events", OverflowEventsParams)
def overflow_events(c: Ctx) -> Hit | None:
    """Loss-scale overflow / skipped-step lines in the text."""
    p: OverflowEventsParams = c.params
    events = [e for e in getattr(c.run, "events", []) if e.kind == "overflow"]
    skip = p.skip_first_events
    late = events[skip:]
    if len(late) < p.min_events:
        return None
    steps = [e.step for e in late if e.step is not None]
    values = [e.value for e in late if e.value is not None]
    if len(values) >= p.min_events and min(values) >= values[0]:
        return None  # (each overflow sets the scale back to the same level: the scaler probing 2x and backing off)
    where = f" (steps {step_str(steps[0])}-{step_str(steps[-1])})" if steps else ""
    low = f", scale down to {fmt(min(values))}" if values else ""
    return Hit(f"{len(events)} loss-scale overflow / skipped-step lines, {len(late)} after the first {skip}{where}{low}",
               steps[0] if steps else None, steps[-1] if steps else None, numbers={"events": len(events)})


@params
class NoWarmupSpikeParams(ImprovingParams):
    """loss: the loss metric; factor: its early peak against its start; early_fraction: how early."""

    loss: Names = ("loss",)
    early_fraction: float = 0.1
    factor: float = 1.5
    min_high: int = 2  # early logs at factor x the start or above
    sustain: int = 3  # ... or one, then this many logs all above the start
    # (ImprovingParams) quiet when a task score reaches new bests a tenth past where it stood at the spike:
    # a step size that upset the weights shows in what the model is for, not only in a few early batch losses


@check("no_warmup_spike", NoWarmupSpikeParams)
def no_warmup_spike(c: Ctx) -> Hit | None:
    """The LR starts at its peak (no warmup) and the loss spikes early."""
    p: NoWarmupSpikeParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < 10:
        return None
    if y[0] < 0.9 * float(np.max(y)) or float(np.max(y)) <= 0:
        return None
    loss = c.other(p.loss)
    if loss is None:
        return None
    lx, ly = finite_xy(loss.steps, loss.values)
    n = len(ly)
    if n < 20:
        return None
    early = max(10, int(p.early_fraction * n))
    k = 3
    seg = ly[: early]
    peak_i = 1 + int(np.argmax(seg[1:])) if len(seg) > 1 else 0
    # the loss level at the start: the first logged points other than the peak (a falling loss has its
    # maximum there; a spike at the second log is not where the run started)
    head = [float(v) for i, v in enumerate(ly[:k]) if i != peak_i]
    base = float(max(ly[0], np.median(head)))
    if base <= 0 or peak_i == 0 or seg[peak_i] < p.factor * base:
        return None
    # (one batch above the bar among per-batch losses is that batch, not the run: a spike the step size
    # caused shows on more than one log, or leaves the loss above where it started for the next
    # `sustain` logs)
    after = ly[peak_i + 1: peak_i + 1 + p.sustain]
    if int(np.count_nonzero(seg[1:] >= p.factor * base)) < p.min_high \
            and not (len(after) == p.sustain and bool(np.all(after > base))):
        return None
    if _improving_since(c, p, float(lx[peak_i])):
        return None
    return Hit(
        f"{c.name} starts at its peak {fmt(y[0])} (no warmup) and {loss.name} jumps to {fmt(seg[peak_i])} "
        f"({seg[peak_i] / base:.1f}x its start) at step {step_str(lx[peak_i])}",
        lx[0], lx[peak_i],
    )


@params
class EarlyBlowupParams(Params):
    """The loss jumps to at least `factor` times its first logged value within the first
    early_fraction of its points (at least `min_early` points) and stays there for `sustain` points
    in a row, whatever the LR log says: the
    weights were pushed too far before the optimizer's statistics settled. A fresh model's loss
    starts near its highest; a jump of 2x above it in the first steps is not noise."""

    factor: float = 2.0
    early_fraction: float = 0.1
    min_early: int = 4
    min_points: int = 20
    sustain: int = 3


@check("early_blowup", EarlyBlowupParams)
def early_blowup(c: Ctx) -> Hit | None:
    """The loss blows up right after the start (it may recover later)."""
    p: EarlyBlowupParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    if getattr(c.run, "meta", {}).get("restarts") or not facts.begins_at_start(x, 0.05):
        return None  # a log cut from the middle of a run has no start to compare with
    base = float(y[0])
    early = max(p.min_early, int(p.early_fraction * len(y)))
    seg = y[1:early]
    # the first value must be a start (not a stray near-zero first print), and the blow-up must last
    # `sustain` points in a row (one noisy batch in a detection loss is not a blow-up)
    if base <= 0 or not len(seg) or base < 0.5 * float(np.median(y)):
        return None
    above = seg >= p.factor * base
    run_len, best = 0, 0
    for a in above:
        run_len = run_len + 1 if a else 0
        best = max(best, run_len)
    if best < p.sustain:
        return None
    i = int(np.argmax(seg))
    peak = float(seg[i])
    return Hit(
        f"{c.name} jumped from {fmt(base)} at step {step_str(x[0])} to {fmt(peak)} at step {step_str(x[i + 1])} "
        f"({fmt(peak / base)}x) in the first {early} logged points",
        x[0], x[i + 1], numbers={"ratio": peak / base},
    )


@params
class PostWarmupStallParams(Params):
    """loss: the loss metric; span: the share of the run after warmup looked at; min_fall_before:
    how much it fell during warmup; max_change_after: it changed no more than this after;
    max_rel_noise: the largest standard error (relative to the level) at which that is measurable."""

    loss: Names = ("loss",)
    span: float = 0.25
    min_fall_before: float = 0.05
    max_change_after: float = -0.01
    max_rel_noise: float = 0.03


@check("post_warmup_stall", PostWarmupStallParams)
def post_warmup_stall(c: Ctx) -> Hit | None:
    """The loss stops improving (or rises) right when warmup reaches the peak LR."""
    p: PostWarmupStallParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < 10:
        return None
    peak = float(np.max(y))
    reach = np.flatnonzero(y >= 0.98 * peak)
    if not len(reach) or reach[0] < 3 or peak <= 0 or y[0] > 0.5 * peak:
        return None
    warm_end = x[reach[0]]
    loss = c.other(p.loss)
    if loss is None:
        return None
    lx, ly = finite_xy(loss.steps, loss.values)
    before = ly[lx <= warm_end]
    after = ly[lx > warm_end]
    span = max(5, int(p.span * len(ly)))
    after = after[:span]
    if len(before) < 3 or len(after) < 5:
        return None
    b0, b1 = float(np.median(before[: max(1, len(before) // 4)])), float(np.median(before[-max(1, len(before) // 4):]))
    a0, a1 = float(np.median(after[: max(1, len(after) // 5)])), float(np.median(after[-max(1, len(after) // 5):]))
    fell_before = (b0 - b1) / max(abs(b0), 1e-8)
    change_after = (a1 - a0) / max(abs(a0), 1e-8)
    if fell_before < p.min_fall_before or change_after < p.max_change_after:
        return None
    # "no better" is only a finding when the log is smooth enough to show a small decline: the
    # standard error of the end medians (the loss's own point-to-point noise) must be under max_rel_noise
    k = max(1, len(after) // 5)
    if facts.noise(after) / math.sqrt(k) > p.max_rel_noise * max(abs(a0), 1e-8):
        return None
    return Hit(
        f"{loss.name} fell {fell_before:.0%} during warmup (to step {step_str(warm_end)}), then went {change_after:+.1%} "
        f"over the next {len(after)} points at the peak {c.name} {fmt(peak)}",
        warm_end, None,
    )


@params
class FlatWhenScheduledParams(Params):
    min_points: int = 10


@check("flat_when_scheduled", FlatWhenScheduledParams)
def flat_when_scheduled(c: Ctx) -> Hit | None:
    """The LR never changes although the run's config asks for warmup or a decaying schedule."""
    p: FlatWhenScheduledParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points or float(np.ptp(y)) > 1e-12 * max(abs(float(y[0])), 1e-30):
        return None
    config = _config(c.run)
    expected = []
    sched = str(config.get("lr_scheduler_type", config.get("lr_scheduler", "")) or "").lower()
    # (ReduceLROnPlateau lowers the LR only when its metric stalls: a run that keeps improving never sees it act)
    if sched and sched not in ("constant", "none", "schedulertype.constant") and "plateau" not in sched:
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


@params
class AtFirstLogParams(Params):
    """The value logged at the very first update (the first finite point, at a step of at most
    max_first_step) is beyond `value` by `op`: what the model reports before any update has moved it.
    A log whose first point comes later (a logging window that already averages several updates)
    says nothing here."""

    op: Op = "abs>"
    value: float = 0.0
    max_first_step: float = 1.0


@check("at_first_log", AtFirstLogParams)
def at_first_log(c: Ctx) -> Hit | None:
    """The metric is already beyond a bound at the first step, before any update."""
    p: AtFirstLogParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if not len(y) or float(x[0]) > p.max_first_step or getattr(c.run, "meta", {}).get("restarts"):
        return None
    if not _rows_are_steps(c.run):  # (an epoch axis, `'epoch': 0.18`, counts no updates)
        return None
    if not bool(_cmp(p.op, y[:1], p.value)[0]):
        return None
    return Hit(f"{c.name} is {fmt(float(y[0]))} at step {step_str(float(x[0]))}, the first update", x[0], x[0],
               numbers={"value": float(y[0])})


@params
class ConfigAtLeastParams(Params):
    """A setting the run's config prints (a `config:` line, a Namespace, a config file beside the log) is at
    or above a value no published recipe uses. keys: the config entries read (the first one that holds a
    number counts; a yes/no is no number); at_least: the value from which the setting is out of range;
    unless_keys: config entries whose presence says the key means something else (e.g. a keep probability
    printed beside it). The metric only places the finding on the run's steps (min_points of it)."""

    keys: Names = ()
    at_least: float = math.inf
    unless_keys: Names = ()
    min_points: int = 1


@check("config_at_least", ConfigAtLeastParams)
def config_at_least(c: Ctx) -> Hit | None:
    """A printed setting is at or above a value outside its published range."""
    p: ConfigAtLeastParams = c.params
    config = _config(c.run)
    if not config or any(key in config for key in p.unless_keys):
        return None
    for key in p.keys:
        value = config.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if not math.isfinite(float(value)) or float(value) < p.at_least:
            return None
        x, y = finite_xy(c.steps, c.values)
        if len(y) < p.min_points:
            return None
        where = c.run.meta.get("config_path") or "the run's config"
        return Hit(f"{key} = {fmt(float(value))} in {where}, at or above {fmt(p.at_least)}", float(x[0]), float(x[-1]),
                   numbers={"value": float(value)})
    return None


def _config_number(config: dict, keys: Names) -> tuple[str, float] | None:
    """The first of `keys` whose config value is a positive finite number (a word or a yes/no is none)."""
    for key in keys:
        value = config.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            continue
        try:
            number = float(value)
        except ValueError:
            continue
        if math.isfinite(number) and number > 0:
            return key, number
    return None


@params
class BelowConfiguredParams(Params):
    """The logged series never comes near the value the run's own config sets for it.
    config_keys: the config entries read (the first that holds a positive number counts, e.g.
    learning_rate); require_keys: config entries that say which trainer wrote the config (its documented
    schedule semantics are what make the rule hold); factor: the logged peak is below factor x the
    configured value; first_within: the first logged point comes within this share of the last logged
    step (a log that starts late in a decay proves nothing); past_peak: the series must have come down
    from its peak by the last point (or never moved), so that a warmup still under way is not read as
    the whole schedule; a peak of exactly 0 is left to the zero-LR detectors."""

    config_keys: Names = ("learning_rate",)
    require_keys: Names = ()
    factor: float = 0.1
    first_within: float = 0.5
    past_peak: bool = False
    min_points: int = 3


@check("below_configured", BelowConfiguredParams)
def below_configured(c: Ctx) -> Hit | None:
    """The logged peak of the series is far below the value the run's config sets for it."""
    p: BelowConfiguredParams = c.params
    config = _config(c.run)
    if any(key not in config for key in p.require_keys):
        return None
    found = _config_number(config, p.config_keys)
    if found is None:
        return None
    key, want = found
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    peak = float(y.max())
    if peak <= 0 or peak >= p.factor * want:
        return None
    last = float(x[-1])
    if last > 0 and float(x[0]) > p.first_within * last:
        return None
    if p.past_peak and float(np.ptp(y)) > 0 and float(y[-1]) > 0.9 * peak:
        return None
    at = float(x[int(np.argmax(y))])
    return Hit(
        f"{c.name} peaks at {fmt(peak)} (step {step_str(at)}), {want / peak:.0f}x below the "
        f"{key} = {fmt(want)} in the run's config, over {len(y):,} points",
        x[0], x[-1],
    )


@params
class ConfiguredRateParams(Params):
    """A logged rate read against the rate the run's own config sets. config_keys: the config entries read
    (the first that holds a positive number counts, e.g. lr); min_points: logged points needed."""

    config_keys: Names = ("lr", "learning_rate")
    min_points: int = 3


@params
class AboveConfiguredParams(ConfiguredRateParams):
    """The logged series stays far above the value the run's own config sets for it.
    unless_keys: config entries whose presence says the logged value is meant to differ (a separate peak such
    as OneCycle's max_lr); factor: the logged series' lowest value is at least factor x the configured one
    (a schedule only multiplies the configured rate by a factor in [0, 1], so any logged value above it is
    a rate scaled by something the config does not show)."""

    unless_keys: Names = ()
    factor: float = 10.0


@check("above_configured", AboveConfiguredParams)
def above_configured(c: Ctx) -> Hit | None:
    """Every logged value of the series is far above the value the run's config sets for it."""
    p: AboveConfiguredParams = c.params
    config = _config(c.run)
    if any(key in config for key in p.unless_keys):
        return None
    found = _config_number(config, p.config_keys)
    if found is None:
        return None
    key, want = found
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    low = float(y.min())
    if low < p.factor * want:
        return None
    return Hit(
        f"{c.name} is {fmt(low)} or more at all {len(y):,} points (steps {step_str(float(x[0]))}-"
        f"{step_str(float(x[-1]))}), {low / want:.0f}x the {key} = {fmt(want)} in the run's config",
        x[0], x[-1], numbers={"ratio": low / want},
    )


@params
class WarmupOverdueParams(ConfiguredRateParams):
    """A warmup that never ended: the run's config sets a warmup length (warmup_keys, in the steps the log
    counts) and a rate (config_keys), the log goes past that length, and the logged rate is still climbing
    at its last point (its largest value) yet below factor x the configured rate."""

    warmup_keys: Names = ("warmup_steps", "num_warmup_steps", "warmup_iters")
    factor: float = 0.1


@check("warmup_overdue", WarmupOverdueParams)
def warmup_overdue(c: Ctx) -> Hit | None:
    """The LR is still warming up, far below its configured value, after the configured warmup ended."""
    p: WarmupOverdueParams = c.params
    config = _config(c.run)
    rate, warmup = _config_number(config, p.config_keys), _config_number(config, p.warmup_keys)
    if rate is None or warmup is None or not _rows_are_steps(c.run):
        return None
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points or float(x[-1]) < warmup[1] or float(np.ptp(y)) <= 0:
        return None
    if float(y[-1]) < float(y.max()) or float(y[-1]) >= p.factor * rate[1]:
        return None
    return Hit(
        f"{c.name} is still rising at step {step_str(float(x[-1]))}, past the {warmup[0]} = {warmup[1]:g} of the run's "
        f"config, and has reached only {fmt(float(y[-1]))}, {rate[1] / float(y[-1]):.0f}x below its {rate[0]} = "
        f"{fmt(rate[1])}", x[0], x[-1])


@params
class PerOtherParams(Params):
    """The series divided by another counter logged on the same rows (`per`, e.g. the iteration count),
    at or below `at_most` on min_share of at least min_points shared rows: a counter that grows no faster
    than the other (SB3's `train/n_updates`, which PPO raises once per epoch over each rollout, against
    `time/iterations`, one per rollout)."""

    per: Names = ()
    at_most: float = 1.0
    min_share: float = 0.8
    min_points: int = 5


@check("per_other", PerOtherParams)
def per_other(c: Ctx) -> Hit | None:
    """A counter that grows no faster than another one it should outpace."""
    p: PerOtherParams = c.params
    other = c.other(p.per)
    if other is None:
        return None
    x, y = finite_xy(c.steps, c.values)
    ox, oy = finite_xy(other.steps, other.values)
    shared, i, j = intersect_steps(x, ox)
    keep = oy[j] > 0
    if int(keep.sum()) < p.min_points:
        return None
    ratio = y[i][keep] / oy[j][keep]
    low = ratio <= p.at_most
    if float(low.mean()) < p.min_share:
        return None
    at = shared[keep]
    return Hit(f"{c.name} per {other.name} is {fmt(float(np.median(ratio)))} (median of {len(ratio)} rows, steps "
               f"{step_str(float(at[0]))}-{step_str(float(at[-1]))}), at most {fmt(p.at_most)} on {low.mean():.0%} of them",
               float(at[0]), float(at[-1]), numbers={"ratio": float(np.median(ratio))})


@params
class TermAtChanceParams(Params):
    """A training loss term sits at ln C of a small C (its median within `tol`, nine points in ten
    within `batch_noise`, after its first point) while another training series named a loss
    (`others` globs) falls to `other_fall` of its start or below (medians of the first and last
    tenth); min_points on both."""

    tol: float = 0.02
    batch_noise: float = 0.1
    max_classes: int = 10
    min_points: int = 10
    others: Names = ("*loss*",)
    other_fall: float = 0.5


@check("term_at_chance", TermAtChanceParams)
def term_at_chance(c: Ctx) -> Hit | None:
    """One loss term at ln C for the whole run while another term of the same run falls."""
    p: TermAtChanceParams = c.params
    me = c.run.get(c.name)
    if me is not None and me.split == "eval":
        return None
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    classes = facts.classes_from_loss_level(y[1:], p.tol, p.max_classes, (), p.batch_noise)
    if not classes:
        return None
    for name, other in c.run.series.items():
        if name == c.name or other.split == "eval" or not any(fnmatch.fnmatchcase(name, g) for g in p.others):
            continue
        _, z = finite_xy(other.steps, other.values)
        if len(z) < p.min_points:
            continue
        k = max(1, len(z) // 10)
        start, end = float(np.median(z[:k])), float(np.median(z[-k:]))
        if start > 0 and 0 <= end <= p.other_fall * start:
            return Hit(
                f"{c.name} stays at ln {classes} = {math.log(classes):.3f} (median {fmt(float(np.median(y)))}) "
                f"over {len(y):,} points while {name} fell from {fmt(start)} to {fmt(end)}: that head "
                f"predicts every class alike while the rest of the model learns",
                x[0], x[-1],
            )
    return None


@params
class TermSwampsParams(Params):
    """This training loss term starts `min_ratio` times or more above another training series named a
    loss (`others` globs, less the `skip` globs; medians of the first fifth of each, `min_points` or
    more), whose own level lies between `min_other` and `max_other`: summed, the small term's share of the gradient is
    lost beside the large one's."""

    others: Names = ("*loss*",)
    skip: Names = ()
    min_ratio: float = 1.0e4
    min_other: float = 0.1
    max_other: float = math.inf
    min_points: int = 3


def _first_fifth(s) -> tuple[float, int]:
    _, y = finite_xy(s.steps, s.values)
    if not len(y):
        return float("nan"), 0
    return float(np.median(np.abs(y[: max(1, len(y) // 5)]))), len(y)


@check("term_swamps", TermSwampsParams)
def term_swamps(c: Ctx) -> Hit | None:
    """One training loss term starts orders of magnitude above another term of the same run."""
    p: TermSwampsParams = c.params
    me = c.run.get(c.name)
    low = c.name.lower()
    if (me is not None and me.split == "eval") or any(fnmatch.fnmatchcase(low, g) for g in p.skip):
        return None
    x, _ = finite_xy(c.steps, c.values)
    big, n = _first_fifth(c)
    if n < p.min_points or not big > 0:
        return None
    best = None
    for name, other in c.run.series.items():
        low = name.lower()
        if name == c.name or other.split == "eval" or not any(fnmatch.fnmatchcase(low, g) for g in p.others) \
                or any(fnmatch.fnmatchcase(low, g) for g in p.skip):
            continue
        small, m = _first_fifth(other)
        if m < p.min_points or not p.min_other <= small <= p.max_other or big < p.min_ratio * small:
            continue
        if best is None or small > best[1]:
            best = (name, small)
    if best is None:
        return None
    name, small = best
    return Hit(
        f"{c.name} starts at {fmt(big)}, {big / small:.2g}x {name} ({fmt(small)}): summed, the smaller term's "
        f"gradient is lost beside the larger one's",
        x[0], x[-1], numbers={"ratio": big / small},
    )


@params
class LogBandParams(Params):
    """target; decades: how far (log10) counts as far; min_share of points that far;
    answer_high / answer_low: the answer by the side the median is on."""

    target: float = 1e-3
    decades: float = 1.0
    min_share: float = 0.5
    min_points: int = 5
    answer_high: Optional[Answer] = None
    answer_low: Optional[Answer] = None


@check("log_band", LogBandParams)
def log_band(c: Ctx) -> Hit | None:
    """Values far (in decades) from a target, e.g. update/weight ratio vs 1e-3."""
    p: LogBandParams = c.params
    x, y = finite_xy(c.steps, c.values)
    y = np.abs(y)
    keep = y > 0
    x, y = x[keep], y[keep]
    if len(y) < p.min_points:
        return None
    dist = np.log10(y) - math.log10(p.target)
    far = np.abs(dist) > p.decades
    share = float(far.mean())
    if share < p.min_share:
        return None
    med = float(np.median(y))
    high = med > p.target
    answer = p.answer_high if high else p.answer_low
    return Hit(
        f"{c.name} is more than {fmt(p.decades)} decade(s) from {fmt(p.target)} on {share:.0%} of points (median {fmt(med)}, {'too high' if high else 'too low'})",
        x[0], x[-1], answer=str(answer) if answer else None,
    )


@params
class BothFallingParams(Params):
    """other: the second series; margin: the margin that must stay within margin_tol of 0;
    min_fall: the absolute fall of both; min_rel_fall: a fall this many times the starting
    magnitude is a collapse whatever the margin does."""

    other: Names = ("logps/rejected",)
    margin: Optional[Names] = None
    min_fall: float = 5.0
    margin_tol: float = 0.5
    min_rel_fall: Optional[float] = None


@check("both_falling", BothFallingParams)
def both_falling(c: Ctx) -> Hit | None:
    """Two series (chosen and rejected log-probs) fall together while a third (margin) stays flat."""
    p: BothFallingParams = c.params
    other = c.other(p.other)
    if other is None:
        return None
    x, y = finite_xy(c.steps, c.values)
    _, oy = finite_xy(other.steps, other.values)
    if len(y) < 10 or len(oy) < 10:
        return None
    a0, a1 = _ends(y, 0.15)
    b0, b1 = _ends(oy, 0.15)
    if a0 - a1 < p.min_fall or b0 - b1 < p.min_fall:
        return None
    huge = p.min_rel_fall is not None and (a0 - a1) >= p.min_rel_fall * abs(a0) and (b0 - b1) >= p.min_rel_fall * abs(b0)
    margin = c.other(p.margin)
    if margin is not None and not huge:
        _, my = finite_xy(margin.steps, margin.values)
        if len(my) and abs(float(np.median(my[-max(1, len(my) // 4):]))) > p.margin_tol:
            return None
    return Hit(
        f"{c.name} fell from {fmt(a0)} to {fmt(a1)} and {other.name} from {fmt(b0)} to {fmt(b1)}"
        + (" while the margin stayed near 0" if not huge else f" ({(a0 - a1) / max(abs(a0), 1e-8):.0%} of the starting log-prob)"),
        x[0], x[-1],
    )


@params
class ReboundParams(Params):
    """min_rise: relative to the low; low_before: the fraction of the run by which the low must
    come; tail: the fraction of the run that must stay up; z: the climb in standard errors of the
    smoothed level (the run's own point-to-point noise over the smoothing window)."""

    min_rise: float = 0.1
    low_before: float = 0.6
    tail: float = 0.25
    min_points: int = 50
    z: float = 4.0
    # when each row is an epoch's mean: this many points are enough, unsmoothed, with the noise taken
    # from second differences (an epoch mean averages hundreds of batches; its steady trend is no noise)
    epoch_min_points: Optional[int] = None


@check("rebound", ReboundParams)
def rebound(c: Ctx) -> Hit | None:
    """The series fell, reached its low early, then climbed back and stayed up (a loss getting
    worse while training goes on)."""
    p: ReboundParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < _epoch_minimum(c, p.min_points, p.epoch_min_points):
        return None
    epochs = len(y) < p.min_points  # (let in by the epoch minimum: judged unsmoothed)
    x, y = reduce(x, y)
    n = len(y)
    k = 1 if epochs else max(3, n // 20)
    ys = y if epochs else smooth(y, k)
    i_low = int(np.argmin(ys[k:])) + k  # the smoothing pads the first points with the first mean (unsmoothed: skip the first)
    if i_low > p.low_before * n:
        return None
    low = float(ys[i_low])
    start = float(np.median(y[: max(3, n // 20)]))
    tail = y[-max(3, int(p.tail * n)):]
    level = float(np.median(tail))
    rise = p.min_rise
    if low <= 0 or start <= level or level < (1 + rise) * low:
        return None
    if float(np.mean(tail > (1 + rise / 2) * low)) < 0.8:  # the whole tail stays up, not one excursion
        return None
    # the low of a moving average over noisy per-batch losses sits below the true level by chance:
    # the climb must stand z standard errors of that average above it
    if level - low < p.z * (facts.trend_noise(y) if epochs else facts.noise(y)) / math.sqrt(k):
        return None
    return Hit(
        f"{c.name} fell from {fmt(start)} to {fmt(low)} by step {step_str(x[i_low])}, then climbed back to "
        f"{fmt(level)} (+{level / low - 1:.0%}) and stayed there to step {step_str(x[-1])}",
        x[i_low], x[-1], numbers={"low": low, "end": level, "rise": level / low - 1},
    )


@params
class RelToStartParams(Params):
    """factor: values above factor x the starting level (median of start_points); min_count and
    min_share of the points after the start; stuck_fraction: the end no better than this share
    of the start means the model died (answer_stuck), otherwise answer_recovered; wording:
    rise describes a level that should not grow (a gradient norm) rather than a loss; z: the
    rise (in log space) must also exceed z robust standard deviations of the run's own
    point-to-point swings before it; start_stat: the starting level is the median of the first
    points, or their max (a loss is at its highest at init, so the max is the level no healthy
    run exceeds, even when the log's first points already wander near 0)."""

    factor: float = 5.0
    min_count: int = 1
    min_share: float = 0.0
    start_points: int = 3
    min_points: int = 10
    stuck_fraction: float = 0.9
    answer_stuck: Optional[Answer] = None
    answer_recovered: Optional[Answer] = None
    wording: Literal["loss", "rise"] = "loss"
    z: Optional[float] = None
    start_stat: Literal["median", "max"] = "median"
    # and the first of these the run logs also ends above its own first value: an eval loss that
    # rises while the training loss falls is overfitting; both ending worse than they began is not
    with_rising: Optional[Names] = None


@check("rel_to_start", RelToStartParams)
def rel_to_start(c: Ctx) -> Hit | None:
    """Values far above the series' own starting level (a loss that explodes)."""
    p: RelToStartParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    lead = int(np.argmax(y != 0)) if (y != 0).any() else len(y)
    if lead:  # a loss of exactly 0 where the log starts is an average over next to nothing (a running
        x, y = x[lead:], y[lead:]  # mean over its first 3 examples), not a level it started from
        if len(y) < p.min_points:
            return None
    k = p.start_points
    start = float(np.median(y[:k]) if p.start_stat == "median" else np.max(y[:k]))
    if start <= 0:
        return None
    factor = p.factor
    hit = y > factor * start
    hit[:k] = False  # the start defines the level; a loss that drops fast after step 0 did not explode
    if p.z is not None and (y > 0).all() and hit.any():
        # and far beyond the run's own swings before it (log space): per-batch losses near 0
        # swing tenfold from batch to batch; a curve that was smooth and then went 30x has exploded
        logs = np.log(y)
        first = int(np.flatnonzero(hit)[0])
        if first >= 5:
            spread = 1.4826 * float(np.median(np.abs(np.diff(logs[:first])))) / math.sqrt(2.0)
        elif len(logs) > 3:
            # too little before the rise to measure its swings: measure them around the run's own trend
            # (second differences; for white noise their spread is sqrt(6) times the noise), so a
            # steady climb does not count as its own noise
            spread = 1.4826 * float(np.median(np.abs(np.diff(logs, 2)))) / math.sqrt(6.0)
        else:
            spread = 0.0
        hit &= (logs - math.log(start)) >= p.z * spread
    if int(hit.sum()) < p.min_count or hit[k:].mean() < p.min_share:
        return None
    if p.with_rising:
        other = c.other(p.with_rising)
        oy = other.values[np.isfinite(other.values)] if other is not None else np.empty(0)
        if len(oy) < 2 or oy[-1] <= oy[0]:
            return None
    worst = int(np.argmax(y))
    tail = float(np.median(y[-max(1, len(y) // 5):]))
    stuck = tail >= p.stuck_fraction * start
    answer = p.answer_stuck if stuck else p.answer_recovered
    if p.wording == "rise":  # a level that should not grow (a gradient norm), not a loss
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


@params
class RatioBelowParams(WindowParams):
    """against: the metric this one should track; max_ratio: this / other at or below counts;
    min_other: only where the other looks good; min_share of the window."""

    against: Names = ("eval/accuracy",)
    max_ratio: float = 0.6
    min_other: float = 0.8
    min_share: float = 0.8
    min_points: int = 2


@check("ratio_below", RatioBelowParams)
def ratio_below(c: Ctx) -> Hit | None:
    """This metric is far below another one it should track (macro-F1 against accuracy) while
    the other looks good."""
    p: RatioBelowParams = c.params
    x, y = finite_xy(c.steps, c.values)
    other = c.other(p.against)
    if other is None or len(y) < p.min_points:
        return None
    ox, oy = finite_xy(other.steps, other.values)
    common, ia, ib = intersect_steps(x, ox)
    if len(common) < p.min_points:
        return None
    a, b = y[ia], oy[ib]
    sl = window_slice(len(a), p)
    a, b, common = a[sl], b[sl], common[sl]
    good = b >= p.min_other
    low = good & (a <= p.max_ratio * b)
    share = float(low.mean()) if len(low) else 0.0
    if share < p.min_share:
        return None
    return Hit(
        f"{c.name} is {fmt(float(np.median(a)))} while {other.name} is {fmt(float(np.median(b)))} on {share:.0%} of the last "
        f"{len(a)} evaluations (steps {step_str(common[0])}-{step_str(common[-1])}): good {other.name}, poor {c.name}",
        common[0], common[-1], numbers={"share": share},
    )


# -- run metadata --------------------------------------------------------------------------
def _config(run) -> dict:
    return facts.config(run)


ACCURACY = ("accuracy", "eval/accuracy")


def _accuracy(run, names: Names | None = None):
    """The run's classification accuracy series (train first), as a fraction, or None."""
    for name in names or ACCURACY:
        s = run.get(name)
        if s is not None and np.isfinite(s.values).any():
            return s, facts.as_fraction(s.values)
    return None


def _training_losses(run) -> list:
    """The training series named as a loss (the total and each term), in the run's order."""
    return [s for n, s in run.series.items() if "loss" in n.lower() and getattr(s, "split", "train") == "train"]


def _zero_pair(c: Ctx, x: np.ndarray, acc: np.ndarray, losses: list) -> Hit | None:
    """The first of `losses` that is exactly 0 at a log where this accuracy is exactly 0 too."""
    for s in losses:
        ox, oy = finite_xy(s.steps, s.values)
        both = np.intersect1d(x[acc == 0], ox[oy == 0])
        if len(both):
            return Hit(
                f"{s.name} is exactly 0 and {c.name} is exactly 0 at step {step_str(both[0])}"
                f"{f' (and {len(both) - 1} more logs)' if len(both) > 1 else ''}: a loss of 0 needs every answer "
                f"right and an accuracy of 0 has none, so nothing was scored",
                both[0], both[-1], numbers={"loss": 0.0, "accuracy": 0.0},
            )
    return None


def _warming_up(lr, lo: float, hi: float) -> bool:
    """Whether this learning-rate series never falls between steps lo and hi and ends there at least
    twice where it began (3 points or more): the run is still in its warmup."""
    if lr is None:
        return False
    x, y = finite_xy(lr.steps, lr.values)
    y = y[(x >= lo) & (x <= hi)]
    return len(y) >= 3 and bool(np.all(np.diff(y) >= 0)) and y[0] > 0 and y[-1] >= 2 * y[0]


def _training_loss_fell(run, share: float, lo: float, hi: float) -> bool:
    """Whether a training loss (`loss`, or any training series named as a loss) fell by `share` or more
    of its level between steps lo and hi (medians of its first and last fifth there, 4 points or more),
    and by more than three times the noise of that difference."""
    named = [s for s in (run.get("loss"), run.get("train_loss_avg")) if s is not None]
    for s in named + [t for t in _training_losses(run) if all(t is not u for u in named)]:
        x, y = finite_xy(s.steps, s.values)
        y = y[(x >= lo) & (x <= hi)]
        if len(y) < 4:
            continue
        k = max(1, len(y) // 5)
        first, last = float(np.median(y[:k])), float(np.median(y[-k:]))
        # (and by more than batch-to-batch noise could move two medians of k points apart)
        if first > 0 and last <= (1.0 - share) * first and first - last > 3.0 * facts.trend_noise(y) * math.sqrt(2.0 / k):
            return True
    return False


def _grew(y: np.ndarray, hit: np.ndarray, factor: float) -> bool:
    """Whether the points beyond the bound sit `factor` times or more above the series' own first fifth
    (median to median): a quantity that grew that much did not start out large in its own units."""
    head = y[: max(1, len(y) // 5)]
    base = float(np.median(np.abs(head)))
    return bool(hit.any()) and base > 0 and float(np.median(np.abs(y[hit]))) >= factor * base


def _loss_kept_falling(run, share: float, lo: float, hi: float) -> bool:
    """Whether the training loss fell by `share` or more between steps lo and hi (_training_loss_fell)
    and its last fifth there is within a tenth of the lowest level it reached (the lowest median of a
    fifth's worth of points in a row): falling to the end, not fallen and come back up."""
    if not _training_loss_fell(run, share, lo, hi):
        return False
    s = run.get("loss") or run.get("train_loss_avg")
    if s is None:
        return True  # (a loss term fell: no total to check the end of)
    x, y = finite_xy(s.steps, s.values)
    y = y[(x >= lo) & (x <= hi)]
    if len(y) < 4:
        return False
    k = max(1, len(y) // 5)
    # (the lowest median of k points in a row: one lucky batch is not the level the loss reached)
    low = float(np.min(np.median(np.lib.stride_tricks.sliding_window_view(y, k), axis=1)))
    return float(np.median(y[-k:])) <= 1.1 * low


def _accuracy_at_least(run, level: float, lo: float, hi: float = math.inf, names: Names | None = None) -> bool:
    """Whether the run's accuracy (as a fraction; the first of `names` it logs, if given) has a median of at
    least `level` between steps lo and hi."""
    acc = _accuracy(run, names)
    if acc is None:
        return False
    s_acc, frac = acc
    keep = np.isfinite(frac) & (s_acc.steps >= lo) & (s_acc.steps <= hi)
    return bool(keep.any()) and float(np.median(frac[keep])) >= level


def _classes_at_chance(run) -> tuple[int, str] | None:
    """C for a loss that may sit at ln C: the config's label count, else the C whose chance
    level 1/C the accuracy sits at over the second half of the run."""
    found = facts.classes_from_config(run)
    if found is not None:
        return found
    acc = _accuracy(run)
    if acc is None:
        return None
    s, frac = acc
    tail = frac[np.isfinite(frac)]
    tail = tail[len(tail) // 2:]
    if not len(tail):
        return None
    level = float(np.median(tail))
    classes = facts.chance_classes(level)
    return (classes, f"{s.name} {fmt(level)} = 1/{classes}") if classes else None


def _missed_share(run, steps: np.ndarray) -> float | None:
    """1 - the run's accuracy (as a fraction: its median over these steps, else its last value), or None
    when it logs none."""
    acc = _accuracy(run)
    if acc is None or not len(steps):
        return None
    s, frac = acc
    ok = np.isfinite(frac)
    keep = ok & (s.steps >= float(steps[0])) & (s.steps <= float(steps[-1]))
    vals = frac[keep] if keep.any() else frac[ok][-1:]
    if not len(vals):
        return None
    return float(min(1.0, max(0.0, 1.0 - float(np.median(vals)))))


def _classes_for_floor(run, steps: np.ndarray, values: np.ndarray) -> tuple[int, str] | None:
    """C for the double-softmax floor: the config's label count, else the largest C whose ln C the first
    loss reaches, when that loss was logged at init (a model stuck at the floor still learns, so its
    accuracy is no guide). Two classes are left out: the floor log(1 + 1/e) = 0.31 is an ordinary loss level."""
    found = facts.classes_from_config(run)
    if found is not None and found[1].startswith("vocab_size"):
        return None  # next-token losses keep the text's own entropy: sitting near the floor says nothing there
    if found is None:
        if facts.scores_tokens(run) is not None:
            return None  # (the same without a config: the run logs tokens, a token accuracy or a perplexity)
        classes = facts.classes_from_first_loss(steps, values, at_most=True)
        if classes is None or classes < 5:
            return None
        first = float(values[np.isfinite(values)][0])
        found = (classes, f"first loss {fmt(first)} = ln {classes}")
    return found if found[0] >= 3 else None


@params
class BeforeNonfiniteParams(Params):
    """target: the series that goes NaN (the loss); window: points looked at before it does;
    factor: a rise to this many times the earlier median; answer_rise / answer_calm."""

    target: Names = ("loss",)
    window: int = 5
    factor: float = 10.0
    min_points: int = 8
    answer_rise: Optional[Answer] = None
    answer_calm: Optional[Answer] = None


@check("before_nonfinite", BeforeNonfiniteParams)
def before_nonfinite(c: Ctx) -> Hit | None:
    """How this series (the grad norm) behaved just before another one (the loss) first went
    NaN/Inf: answer_rise when it rose to `factor`x its earlier median within `window` points
    before, answer_calm when it stayed ordinary."""
    p: BeforeNonfiniteParams = c.params
    target = c.other(p.target)
    if target is None:
        return None
    bad = ~np.isfinite(target.values)
    if not bad.any():
        return None
    first_bad = float(target.steps[np.flatnonzero(bad)[0]])
    x, y = finite_xy(c.steps, c.values)
    before = x < first_bad
    if before.sum() < p.min_points:
        return None
    xb, yb = x[before], y[before]
    w = p.window
    recent, earlier = yb[-w:], yb[:-w]
    if not len(earlier):
        return None
    base = float(np.median(earlier))
    peak = float(np.max(recent))
    rose = base > 0 and peak >= p.factor * base
    answer = p.answer_rise if rose else p.answer_calm
    if answer is None:
        return None
    if rose:
        text = (f"{c.name} rose to {fmt(peak)} ({peak / base:.0f}x its median {fmt(base)}) in the {len(recent)} points "
                f"before {target.name} first went non-finite at step {step_str(first_bad)}")
    else:
        text = (f"{c.name} stayed ordinary (max {fmt(peak)}, median {fmt(base)}) right up to step {step_str(first_bad)}, "
                f"where {target.name} first went non-finite: not a gradient explosion")
    return Hit(text, xb[-len(recent)], first_bad, answer=str(answer), numbers={"ratio": peak / base if base > 0 else None})


# -- levels and the arithmetic of a failure -------------------------------------------------
@params
class ChanceParams(WindowParams):
    """The loss sits at ln C and (when logged) the accuracy at 1/C: the model predicts the
    uniform distribution. C comes from the config's label count, or from an accuracy sitting at
    1/C. tol: nats around ln C; acc_tol: relative to 1/C; min_share of the window's points."""

    accuracy: Names = ACCURACY
    tol: float = 0.1
    acc_tol: float = 0.15
    min_share: float = 0.8
    min_points: int = 3
    # with an accuracy at 1/C beside it, this many points are enough (two signs agree), when they come
    # after training began (a loss of ln C at step 0 is where every classifier starts)
    min_points_with_accuracy: Optional[int] = None
    # The model had learned before it sank to chance: the accuracy (train or eval) stood at least
    # `relapse_gain` of the way from chance to perfect on `relapse_points` logs before the window.
    answer_relapse: Optional[Answer] = None
    relapse_gain: float = 0.25
    relapse_points: int = 2
    # With no accuracy and no label count, the loss alone names C when every point of the window
    # sits within `loss_only_tol` of ln C for a small C (the levels ln 2 .. ln 10 lie 0.1 nats or
    # more apart; above that any flat loss would sit near some ln C): 0 disables it.
    loss_only_tol: float = 0.0
    loss_only_max_classes: int = 10
    loss_only_min_points: int = 5
    # ... or with the median that close and nine points in ten within loss_only_batch_noise (a per-batch
    # loss around ln C: facts.classes_from_loss_level); 0 disables it
    loss_only_batch_noise: float = 0.0
    # and the vocabulary sizes of common tokenizers: a next-token loss at ln V to the third decimal
    # on every point is a model giving every token the same probability
    loss_only_vocab: Optional[tuple[int, ...]] = None
    # keep the C the loss level names when an accuracy beside it sits within the chance band of that C
    # (at most (1 + acc_tol)/C + 0.02), rather than reading C from the accuracy alone
    loss_only_agrees: bool = False
    # the loss is in bits (log base 2: fairseq divides every criterion by ln 2), so chance is log2 C
    bits: bool = False
    # C from the loss itself (C = e^loss) when the accuracy sits within this factor of 1/C either way,
    # for C of at least agree_min_classes (smaller C have their own, tighter readings): 0 disables it
    agree_band: float = 0.0
    agree_min_classes: int = 11
    # quiet when the first of these training losses that the run logs has its median over the same part
    # of the run below -ln((1 + acc_tol)/C + 0.02): e^-loss is the geometric mean of the probability the
    # model gives the right class, so a loss that far below ln C is a model that fits its training data
    # better than the chance band the accuracy is held to (a held-out failure, not a model that learned nothing)
    unless_train_loss_below: Optional[Names] = None


def _pooled_accuracy(run, names: Names, start: float) -> tuple[float | None, list[str]]:
    """The median of every logged accuracy in `names` (as fractions) from step `start` on (all of a
    series whose steps are not all known), and the names that gave points; (None, []) when none did."""
    vals, used = [], []
    for name in names:
        s = run.get(name)
        if s is None:
            continue
        frac = facts.as_fraction(s.values)
        keep = np.isfinite(frac)
        if np.isfinite(s.steps).all():
            keep &= s.steps >= start
        if keep.any():
            vals.append(frac[keep])
            used.append(s.name)
    if not vals:
        return None, []
    return float(np.median(np.concatenate(vals))), used


def _learned_before(run, names: Names, start: float, classes: int, gain: float, points: int) -> tuple[str, float, float] | None:
    """(series, best accuracy, its step) when an accuracy series stood well above chance 1/C
    before `start` on at least `points` logs: the model had learned something."""
    level = 1.0 / classes + gain * (1.0 - 1.0 / classes)
    for name in names:
        s = run.get(name)
        if s is None or not np.isfinite(s.steps).all():
            continue
        frac = facts.as_fraction(s.values)
        before = (s.steps < start) & np.isfinite(frac)
        above = before & (frac >= level)
        if int(above.sum()) >= points:
            i = int(np.flatnonzero(before)[np.argmax(frac[before])])
            return s.name, float(frac[i]), float(s.steps[i])
    return None


@check("chance", ChanceParams)
def chance(c: Ctx) -> Hit | None:
    """A classifier's loss stuck at ln C (with its accuracy at 1/C)."""
    p: ChanceParams = c.params
    x, y = finite_xy(c.steps, c.values)
    short = len(y) < p.min_points
    if short and (p.min_points_with_accuracy is None or len(y) < p.min_points_with_accuracy or not x[0] > 0):
        return None
    logged, whole = len(y), y
    sl = window_slice(len(y), p)
    x, y = x[sl], y[sl]
    acc = _accuracy(c.run, p.accuracy)
    # the accuracy over the same (last) part of the run
    level = _pooled_accuracy(c.run, (acc[0].name,), float(x[0]))[0] if acc is not None else None
    if short and level is None:
        return None
    found = facts.classes_from_config(c.run)
    above = 1.0 + p.acc_tol  # an accuracy above this many times 1/C is above chance
    if found is None and p.loss_only_tol > 0 and logged >= p.loss_only_min_points:
        vocab = tuple(p.loss_only_vocab or ())
        strict = facts.classes_from_loss_level(y, p.loss_only_tol, p.loss_only_max_classes, vocab)
        # (a scatter is judged on ten points at least: a short window's tail is judged with the whole run, which
        # must then sit at the level too)
        classes = strict if strict is not None else \
            facts.classes_from_loss_level(y if len(y) >= 10 else whole, p.loss_only_tol, p.loss_only_max_classes,
                                          vocab, p.loss_only_batch_noise)
        # An accuracy beside it counts only when it sits clearly below 1/C: uniform outputs tie every
        # class and argmax breaks the tie towards one, so the accuracy is that class's share of the
        # batch (often 0). An accuracy at or above 1/C goes the usual way (C from the accuracy).
        if classes is not None and level is not None and not level < (1.0 - p.acc_tol) / classes:
            # (loss_only_agrees: an accuracy within the chance band of the loss's own C agrees with it: the loss,
            # to the third decimal, tells 1/10 from its neighbours 1/9 and 1/8 better than a noisy accuracy does)
            # (in a run of ten logged points at least, as a scatter is judged: two or three logs at the start of a run
            # sit at ln C with an accuracy near 1/C in every healthy run; the part judged is the run's second half, so
            # ten epoch lines whose last five sit at ln C count)
            # (a loss within loss_only_tol of ln C at every point is uniform outputs to the third decimal: argmax
            # then lands on one class for most inputs, and the accuracy is that class's share, up to twice the
            # balanced 1/C in common label sets (SVHN's digit 1 is 19% of its test set); for three classes or more)
            top = 2.0 / classes if strict is not None and classes >= 3 else (1.0 + p.acc_tol) / classes
            if not (p.loss_only_agrees and logged >= 10 and level <= top + 0.02):
                classes = None
            else:
                above = top * classes
        if classes is not None:
            found = (classes, f"every point within {fmt(p.loss_only_tol)} of it, or one step of its printed grid"
                     if strict is not None else f"its median within {fmt(p.loss_only_tol)} of it, 90% of points within {fmt(p.loss_only_batch_noise)}")
    if found is None:
        mid = float(np.median(y))
        classes = facts.chance_classes_by_loss(level, mid, p.acc_tol) if level is not None else None
        if level is not None and level < 1.0 and (classes is None or abs(mid - math.log(classes)) > p.tol):
            # an accuracy printed in percent that reads as a fraction (`acc 0.09` for 0.09%): 1/C in percent,
            # taken only when the loss sits at that ln C too
            by_loss = int(round(math.exp(mid))) if 0.5 < mid < 13.0 else 0
            if by_loss >= 2 and abs(level / 100.0 * by_loss - 1.0) <= p.acc_tol and abs(mid - math.log(by_loss)) <= p.tol:
                classes, level = by_loss, level / 100.0
        off = classes is None or abs(mid - math.log(classes)) > p.tol  # (no C, or one the loss disagrees with)
        if off and level is not None and p.agree_band > 1.0 and math.log(p.agree_min_classes) <= mid < 13.0:
            # Two readings agree: uniform outputs over C classes score ln C and are right 1/C of the time,
            # so an accuracy near e^-loss says the model is no better than the uniform guess its loss
            # describes. A model that learned anything is right far more often than e^-loss.
            # Every accuracy the run logs over the same part is a reading of the same thing (a train and an
            # eval accuracy over a few hundred samples each land a factor of two either side of 1/C by chance
            # alone): their pooled median is the reading.
            by_loss = int(round(math.exp(mid)))
            pooled, names = _pooled_accuracy(c.run, p.accuracy, float(x[0]))
            # (the same slack as the test below: an accuracy within 0.02 of the band's top is chance too; a few
            # hundred samples hold only a handful of right answers at 1/C)
            if pooled is not None and 1.0 / p.agree_band <= pooled * by_loss and pooled <= p.agree_band / by_loss + 0.02:
                found = (by_loss, f"{' and '.join(names)} {fmt(pooled)} ~ e^-{fmt(mid)} = 1/{by_loss}")
                above, level = p.agree_band, pooled
        if found is None:
            if classes is None:
                return None
            found = (classes, f"{acc[0].name} {fmt(level)} = 1/{classes}")
    classes, where = found
    if level is not None and level > above / classes + 0.02:
        return None  # the accuracy is above chance: the loss level means something else
    target, log_name = (math.log2(classes), "log2") if p.bits else (math.log(classes), "ln")
    share = float(np.mean(np.abs(y - target) <= p.tol))
    if share < p.min_share:
        return None
    trained = c.other(p.unless_train_loss_below)
    if trained is not None and trained.name != c.name:
        tx, ty = finite_xy(trained.steps, trained.values)
        if np.isfinite(tx).all():
            ty = ty[tx >= x[0]] if (tx >= x[0]).any() else ty
        if len(ty) and float(np.median(ty)) < -math.log(min(1.0, above / classes + 0.02)):
            return None
    acc_note = f"; {acc[0].name} {fmt(level)} (chance 1/{classes} = {fmt(1 / classes)})" if level is not None else ""
    learned = (_learned_before(c.run, p.accuracy, float(x[0]), classes, p.relapse_gain, p.relapse_points)
               if p.answer_relapse else None)
    if learned is not None:
        name, best, at = learned
        return Hit(
            f"{name} reached {fmt(best)} at step {step_str(at)}, then the model fell back to chance: {c.name} stays "
            f"within {fmt(p.tol)} of {log_name} {classes} = {fmt(target)} ({where}) on {share:.0%} of {len(y):,} points "
            f"(steps {step_str(x[0])}-{step_str(x[-1])}){acc_note}: it learned, then lost it",
            x[0], x[-1], answer=str(p.answer_relapse),
            numbers={"classes": classes, "share": share, "target": target, "best": best},
        )
    return Hit(
        f"{c.name} stays within {fmt(p.tol)} of {log_name} {classes} = {fmt(target)} ({where}) on {share:.0%} of "
        f"{len(y):,} points (steps {step_str(x[0])}-{step_str(x[-1])}){acc_note}: the model predicts every class alike",
        x[0], x[-1], numbers={"classes": classes, "share": share, "target": target},
    )


@params
class AccuracyAtChanceParams(Params):
    """A training accuracy that never leaves chance: every point within acc_tol (relative) of 1/C for
    one C up to max_classes, over min_points or more logs, its last third no higher than its first."""

    acc_tol: float = 0.1
    min_points: int = 8
    max_classes: int = 10
    # a loss logged beside it must agree: a model at chance over C classes predicts about uniformly,
    # a cross-entropy near ln C; a median loss more than loss_factor times away from ln C says C is not
    # the class count (a token accuracy of 0.31 over a vocabulary at loss 4 is no 1/3)
    loss: Optional[Names] = None
    loss_factor: float = 2.0
    # judge only the last this many points (0: all of them): a metric whose final value alone says
    # what the trained model does (a class-mean accuracy at exactly 1/C is one class predicted for all)
    last: int = 0


@check("accuracy_at_chance", AccuracyAtChanceParams)
def accuracy_at_chance(c: Ctx) -> Hit | None:
    """The training accuracy sits at 1/C from the first log to the last: nothing is learnt."""
    p: AccuracyAtChanceParams = c.params
    x, y = finite_xy(c.steps, facts.as_fraction(c.values))
    if len(y) < p.min_points:
        return None
    if p.last > 0:
        x, y = x[-p.last:], y[-p.last:]
    mid = float(np.median(y))
    classes = facts.chance_classes(mid, p.acc_tol)
    if classes is None or classes > p.max_classes or not bool(np.all(np.abs(y * classes - 1.0) <= p.acc_tol)):
        return None
    third = max(1, len(y) // 3)
    if float(np.median(y[-third:])) > float(np.median(y[:third])) + 0.5 * p.acc_tol / classes:
        return None  # (creeping up from chance: learning, slowly)
    if p.loss:
        ly = _other_values(c, p.loss)
        level = math.log(classes)
        if len(ly) and not (level / p.loss_factor <= float(np.median(ly)) <= level * p.loss_factor):
            return None
    if p.last > 0:
        return Hit(
            f"{c.name} ends at chance, 1/{classes} = {fmt(1 / classes)} (its last {len(y):,} point(s) at step(s) "
            f"{step_str(x[0])}-{step_str(x[-1])}, median {fmt(mid)}): the trained model answers one class for every input",
            x[0], x[-1], numbers={"classes": classes, "median": mid},
        )
    return Hit(
        f"{c.name} stays within {p.acc_tol:.0%} of chance, 1/{classes} = {fmt(1 / classes)}, at all {len(y):,} points "
        f"(steps {step_str(x[0])}-{step_str(x[-1])}, median {fmt(mid)}): the model learns nothing it can use",
        x[0], x[-1], numbers={"classes": classes, "median": mid},
    )


@params
class OscillationParams(ImprovingParams):
    """A series of epoch means that keeps turning: at `min_reversals` or more turns (and on
    `min_share` of all turns) it moves by at least `min_swing` of its median level into the turn
    and out of it again. An epoch's mean loss averages hundreds of batches, so it moves smoothly
    in a stable run; swings of a tenth of its level, up and down, epoch after epoch, are the
    optimisation bouncing around (too large a step), not batch noise."""

    min_swing: float = 0.1
    min_reversals: int = 3
    min_share: float = 0.25
    min_points: int = 6
    # `converging`: when set, a series whose last third sits below this share of its first third
    # (median against median) is converging through its swings and does not fire
    converging: Optional[float] = None
    # quiet when the run's accuracy over the turns has a median of at least this: a classifier right
    # on 99% of its samples moves its loss by hundredths of a nat from epoch to epoch, a large share of
    # a small level but no instability
    unless_accuracy_above: Optional[float] = None
    # quiet when an accuracy these names match takes only values k/n for some n up to small_eval (0.9375 and
    # 1.0 are fifteen and sixteen of 16): the evaluation scores a handful of examples, so its loss swings with
    # the one or two that change side, sampling noise rather than training going back and forth
    unless_small_eval: Optional[Names] = None
    small_eval: int = 64
    # (ImprovingParams) quiet when a task score reaches new bests a tenth past where it stood at the first
    # turn: swings that leave the model still improving at what it is for are not weights bouncing out of
    # their valley
    # quiet when the typical turn (the median over the turns of the smaller move into and out of it) is
    # below this share of the whole range the series covers: swings that small beside how far the loss has
    # come are noise around the floor it reached (an MSE on scaled targets falling 0.04 -> 0.0015 moves by
    # 0.0003 a turn, a large share of its level); a step too large keeps the loss from descending, so its
    # bounces are of the size of the descent
    min_swing_of_range: Optional[float] = None
    # quiet when the series is itself an accuracy on a grid of k/n for some n <= small_eval (the size of its
    # evaluation set, read from the values) and its typical turn (the median over the turns of the smaller move
    # into and out of it) is below binomial_z standard deviations of the difference of two such measurements,
    # sqrt(2 p (1 - p) / n) at its median level p: an accuracy over 64 samples moves by 8 points between two
    # evaluations of the same weights, and turns of that size are counting noise, not weights thrown around
    binomial_z: Optional[float] = None


def _grid_size(y: np.ndarray, most: int) -> Optional[int]:
    """The smallest n <= most such that every value of `y` (fractions) is a whole number of n-ths, over three
    or more values and two or more distinct ones; None when none is."""
    if len(y) < 3 or len(np.unique(y)) < 2:
        return None
    for n in range(2, most + 1):
        k = y * n
        if np.all(np.abs(k - np.round(k)) <= 1e-4 * n):
            return n
    return None


def _eval_set_size(run, names: Names, most: int) -> Optional[int]:
    """The smallest n <= most such that every value of an accuracy `names` match (as a fraction) is a
    whole number of n-ths, over three or more values and two or more distinct ones; None when none is."""
    for s in series_matching(run, names):
        n = _grid_size(facts.as_fraction(finite_xy(s.steps, s.values)[1]), most)
        if n is not None:
            return n
    return None


@check("oscillation", OscillationParams)
def oscillation(c: Ctx) -> Hit | None:
    """An epoch-level series that swings up and down by large steps again and again."""
    p: OscillationParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    level = float(np.median(np.abs(y)))
    if level <= 0:
        return None
    d = np.diff(y)
    big = np.abs(d) >= p.min_swing * level
    turns = (np.sign(d[:-1]) * np.sign(d[1:]) < 0) & big[:-1] & big[1:]
    count = int(turns.sum())
    share = count / max(1, len(d) - 1)
    if count < p.min_reversals or share < p.min_share:
        return None
    third = max(1, len(y) // 3)
    if p.converging is not None and float(np.median(y[-third:])) < p.converging * float(np.median(y[:third])):
        return None
    at = np.flatnonzero(turns) + 1
    if p.min_swing_of_range is not None:
        moves = np.minimum(np.abs(d[at - 1]), np.abs(d[at]))
        span = float(np.max(y) - np.min(y))
        if float(np.median(moves)) < p.min_swing_of_range * span:
            return None
    if p.unless_accuracy_above is not None and _accuracy_at_least(
            c.run, p.unless_accuracy_above, float(x[at[0]]), float(x[at[-1]])):
        return None
    if p.binomial_z is not None:
        frac = facts.as_fraction(y)
        n = _grid_size(frac, p.small_eval)
        if n is not None:
            pm = float(np.median(frac))
            df = np.diff(frac)
            moves = np.minimum(np.abs(df[at - 1]), np.abs(df[at]))
            if float(np.median(moves)) < p.binomial_z * math.sqrt(2.0 * pm * (1.0 - pm) / n):
                return None
    if p.unless_small_eval is not None and _eval_set_size(c.run, p.unless_small_eval, p.small_eval) is not None:
        return None
    if _improving_since(c, p, float(x[at[0]])):
        return None
    swing = float(np.max(np.abs(d)))
    return Hit(
        f"{count} of {len(d) - 1} turns move {c.name} by {p.min_swing:.0%} or more of its level {fmt(level)} both into "
        f"and out of the turn (largest swing {fmt(swing)}, steps "
        f"{step_str(x[at[0]])}-{step_str(x[at[-1]])})",
        float(x[at[0]]), float(x[at[-1]]), numbers={"turns": count, "share": share, "swing": swing / level},
    )


@params
class WorseThanUniformParams(Params):
    """The loss stands at `factor` x ln C or more while the accuracy sits at chance 1/C, on
    `min_share` of the logs where both are logged (one row is enough). A model that knew nothing
    and said so would score ln C; one that scores several times that at chance accuracy gives the
    right class almost no probability: its outputs are saturated, confidently wrong. C from the
    config's label count, else from the chance level the accuracy sits at."""

    accuracy: Names = ACCURACY
    factor: float = 5.0
    acc_tol: float = 0.15
    min_share: float = 0.5


def _loss_terms(run, total: str) -> list[str]:
    """The training-side series besides `total` whose names say they are losses too (`loss.1`,
    `cls_loss`, `loss_box`): the total is then a sum or mix of them."""
    same = {total, "loss", "train_loss_avg"}  # the training loss itself, and its run-wide mean
    return [k for k, s in run.series.items()
            if k not in same and "loss" in k.lower() and getattr(s, "split", "train") == "train"
            and not k.startswith("eval/") and len(s)]


@check("worse_than_uniform", WorseThanUniformParams)
def worse_than_uniform(c: Ctx) -> Hit | None:
    """A classifier at chance accuracy whose loss is many times the uniform guess's ln C."""
    p: WorseThanUniformParams = c.params
    acc = _accuracy(c.run, p.accuracy)
    if acc is None or _loss_terms(c.run, c.name):
        return None  # (a total over several terms, one per head or task, is not one cross-entropy)
    s, frac = acc
    x, y = finite_xy(c.steps, c.values)
    both, ix, ia = intersect_steps(x, s.steps)
    if not len(both):
        return None
    loss, level = y[ix], frac[ia]
    ok = np.isfinite(level)
    loss, level, both = loss[ok], level[ok], both[ok]
    if not len(loss):
        return None
    found = facts.classes_from_config(c.run)
    if found is None:
        classes = facts.chance_classes(float(np.median(level)), p.acc_tol)
        if classes is None:
            return None
        found = (classes, f"{s.name} {fmt(float(np.median(level)))} = 1/{classes}")
    classes, where = found
    uniform = math.log(classes)
    hit = (np.abs(level * classes - 1.0) <= p.acc_tol) & (loss >= p.factor * uniform)
    share = float(hit.mean())
    if share < p.min_share:
        return None
    third = max(1, len(level) // 3)
    first, last = (float(np.median(part)) * classes for part in (level[:third], level[-third:]))
    if last > first + p.acc_tol and (first < 1.0 - p.acc_tol or len(level) >= 5):
        # (an accuracy climbing through 1/C on its way up is a model learning, not one at chance; over
        # five logs or more, one that climbs by acc_tol of 1/C from its first third to its last is too)
        return None
    med = float(np.median(loss[hit]))
    return Hit(
        f"{c.name} {fmt(med)} while {s.name} sits at chance "
        f"({where}) on {int(hit.sum())} of {len(hit)} logs; a model that gave every class the same "
        f"probability would score ln {classes} = {fmt(uniform)} ({med / uniform:.0f}x less): the outputs are "
        f"saturated and confidently wrong",
        float(both[hit][0]), float(both[hit][-1]), numbers={"classes": classes, "ratio": med / uniform},
    )


@params
class SaturatedParams(Params):
    """A clamped cross-entropy gives at most `per_sample_max` per sample (Keras clips
    probabilities to 1e-7: -ln 1e-7 = 16.118; Caffe clamps at FLT_MIN: 87.337; PyTorch BCELoss
    clamps log at -100). A model whose outputs are saturated one-hots logs exactly
    per_sample_max x (1 - accuracy). accuracy: the series to read (without one, the loss must sit
    at per_sample_max itself); tol: relative; min_share and min_count (at most all points)."""

    per_sample_max: float
    accuracy: Optional[Names] = None
    tol: float = 0.01
    min_share: float = 0.5
    min_count: int = 2
    # also when the last `or_last` logs all match with one and the same value (0: off), whatever share of
    # the run they are: a saturated output passes no gradient back, so the run stays where it landed
    or_last: int = 0


@check("saturated", SaturatedParams)
def saturated(c: Ctx) -> Hit | None:
    """The loss equals the clamp of a saturated cross-entropy times the error rate."""
    p: SaturatedParams = c.params
    k = p.per_sample_max
    x, y = finite_xy(c.steps, c.values)
    # at least a twentieth of the samples wrong, or nothing can match: most runs stop here
    if not len(y) or float(np.max(y)) < 0.05 * k * (1 - p.tol):
        return None
    x, y = reduce(x, y)  # block means keep loss = k x (1 - accuracy): both sides are linear
    wrong = np.ones(len(y))
    acc_name = None
    acc = _accuracy(c.run, p.accuracy) if p.accuracy else None
    if acc is not None:
        s, _ = acc
        ax, ay = reduce(*finite_xy(s.steps, s.values))
        at = facts.at_steps(ax, facts.as_fraction(ay), x)
        known = np.isfinite(at)
        if known.any():
            x, y, wrong, acc_name = x[known], y[known], 1.0 - at[known], s.name
    expected = k * wrong
    # at least a twentieth of the samples wrong: near 0 every loss "matches" 0 x the clamp
    match = (wrong >= 0.05) & (np.abs(y - expected) <= p.tol * np.maximum(expected, 1e-12))
    # the clamp itself is every sample at the clamp, whatever accuracy the log prints beside it (a print of
    # another head's accuracy, or of a running one)
    at_clamp = np.abs(y - k) <= p.tol * k
    if acc_name and at_clamp.any() and not match.any():
        match, wrong, acc_name = at_clamp, np.ones(len(y)), None
    count = int(match.sum())
    share = count / len(y)
    ends = p.or_last >= 2 and len(y) > p.or_last and bool(match[-p.or_last:].all()) \
        and len(set(y[-p.or_last:].tolist())) == 1
    if (count < min(p.min_count, len(y)) or share < p.min_share) and not ends:
        return None
    i = int(np.flatnonzero(match)[0])
    how = (f" = {fmt(k)} x (1 - {acc_name} {fmt(1 - wrong[i])})" if acc_name else f", the clamp {fmt(k)} itself")
    return Hit(
        f"{c.name} is {fmt(y[i])}{how} on {pct(count, len(y))} (from step {step_str(x[i])}): every wrong "
        f"prediction is a saturated one-hot, so each costs the clamped maximum",
        x[i], x[np.flatnonzero(match)[-1]], numbers={"share": share, "clamp": k},
    )


@params
class LogClampParams(Params):
    """A loss sitting at -ln(10^-k), the cost of one sample whose true-class probability was clipped at 10^-k
    before the log (`tf.clip_by_value(p, 1e-10, 1.0)`, an `eps` added inside the log), for a k of `exponents`:
    within `tol` (relative) on min_share of its points and min_count of them."""

    exponents: tuple[int, ...] = (6, 8, 10, 12, 15)
    tol: float = 0.001
    min_share: float = 0.5
    min_count: int = 2
    # clamp costs given directly instead of as -ln(10^-k) (a library that clamps the log itself, as
    # PyTorch's BCELoss clamps it at -100, so one sample costs at most 100); with levels, exponents
    # are not read
    levels: tuple[int, ...] = ()


@check("log_clamp", LogClampParams)
def log_clamp(c: Ctx) -> Hit | None:
    """Every sample costs the clamp: the loss is -ln of the clip value."""
    p: LogClampParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_count:
        return None
    # (cost, the exponent k of a probability clipped at 1e-k, or None for a cost given directly)
    costs: list[tuple[float, int | None]] = [(level, None) for level in p.levels] or \
        [(k * math.log(10.0), k) for k in p.exponents]
    for cost, k in costs:
        at = np.abs(y - cost) <= p.tol * cost
        count = int(at.sum())
        if count < p.min_count or count < p.min_share * len(y):
            continue
        i = np.flatnonzero(at)
        first, steps = float(y[i[0]]), f"{step_str(x[i[0]])}-{step_str(x[i[-1]])}"
        if k is None:
            return Hit(f"{c.name} is {first:.6g} on {pct(count, len(y))} (steps {steps}), a cost the log's own clamp "
                       f"sets: the outputs are saturated at 0 or 1 on the wrong side for the samples that cost it",
                       x[i[0]], x[i[-1]], numbers={"clamp": cost})
        return Hit(f"{c.name} is {first:.6g} = -ln(1e-{k}) on {pct(count, len(y))} (steps {steps}): every sample "
                   f"costs the clamp of a probability clipped at 1e-{k}, so the model gives the true class no "
                   f"probability at all", x[i[0]], x[i[-1]], numbers={"clamp": cost})
    return None


# -- relations between metrics ---------------------------------------------------------------
def _paired(c: Ctx, other) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(other's steps, this series summarised at each of them, other's values): this series is
    the median of its points since the previous point of `other` (the train loss over the
    stretch an evaluation closes), or its last point before when that stretch is empty."""
    x, y = finite_xy(c.steps, c.values)
    ox, oy = finite_xy(other.steps, other.values)
    mine = np.full(len(ox), np.nan)
    prev = -np.inf
    for i, step in enumerate(ox):
        lo, hi = np.searchsorted(x, prev, side="right"), np.searchsorted(x, step, side="right")
        if hi > lo:
            mine[i] = float(np.median(y[lo:hi]))
        elif hi > 0:
            mine[i] = float(y[hi - 1])
        prev = step
    return ox, mine, oy


@params
class RatioToParams(Params):
    """This series (train loss) against `against` (eval loss) at each evaluation. Either
    min_ratio (train at least this many times eval) or target_from: grad_accum (train about N
    times eval, N = the config's gradient_accumulation_steps, within tol); min_share of the
    evaluations, at least min_points of them."""

    against: Names = ("eval/loss",)
    min_ratio: Optional[float] = None
    target_from: Optional[Literal["grad_accum"]] = None
    # or the other way round: this series (train loss) at most this fraction of `against` (an eval
    # loss many times the training loss)
    max_ratio: Optional[float] = None
    # only a log that begins at the start of training in one piece (no step counter that starts again):
    # its first evaluation is then the first of the run, not one after a resume or a later stage
    from_start: bool = False
    tol: float = 0.2
    min_share: float = 0.8
    min_points: int = 2

    def problems(self) -> list:
        if sum(v is not None for v in (self.min_ratio, self.target_from, self.max_ratio)) != 1:
            return [ParamProblem("min_ratio", "the ratio_to check needs exactly one of `min_ratio`, `max_ratio` "
                                              "and `target_from`")]
        return []


ACCUM_KEYS = ("gradient_accumulation_steps", "accumulate_grad_batches", "grad_accum_steps", "accum_steps",
              "gradient_accumulation")


@check("ratio_to", RatioToParams)
def ratio_to(c: Ctx) -> Hit | None:
    """Train loss persistently several times the eval loss (or N times, with N-step accumulation)."""
    p: RatioToParams = c.params
    other = c.other(p.against)
    if other is None:
        return None
    target_note, n = "", None
    if p.target_from == "grad_accum":
        for key in ACCUM_KEYS:
            value = facts.config(c.run).get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 2:
                n, target_note = float(value), f", the {key} = {int(value)} in the config"
                break
        if n is None:
            return None
    steps, mine, theirs = _paired(c, other)
    ok = np.isfinite(mine) & (theirs > 0) & (mine > 0)
    steps, mine, theirs = steps[ok], mine[ok], theirs[ok]
    if len(steps) < p.min_points:
        return None
    if p.from_start and (not facts.started_at_init(steps) or getattr(c.run, "meta", {}).get("restarts")):
        return None
    ratio = mine / theirs
    if n is not None:
        hit = np.abs(ratio / n - 1.0) <= p.tol
    elif p.max_ratio is not None:
        hit = ratio <= p.max_ratio
    else:
        hit = ratio >= p.min_ratio
    share = float(hit.mean())
    if share < p.min_share:
        return None
    med = float(np.median(ratio))
    if p.max_ratio is not None:
        return Hit(
            f"{other.name} is {1.0 / med:.3g}x {c.name} at {share:.0%} of {len(ratio)} evaluations (steps "
            f"{step_str(steps[0])}-{step_str(steps[-1])}), from the first: {other.name} {theirs[0]:.3g} against "
            f"{c.name} {mine[0]:.3g}",
            steps[0], steps[-1], numbers={"ratio": 1.0 / med, "share": share},
        )
    return Hit(
        f"{c.name} is {med:.1f}x {other.name} at {share:.0%} of {len(ratio)} evaluations (steps {step_str(steps[0])}-"
        f"{step_str(steps[-1])}){target_note}",
        steps[0], steps[-1], numbers={"ratio": med, "share": share},
    )


def _score_and_loss(c: Ctx, against, min_points: int, min_loss_points: int):
    """This score as fractions (x, y) and the loss `against` (its series, steps, values), or None when
    either has too few finite points: the start every check relating a score to a loss shares."""
    x, y = finite_xy(c.steps, facts.as_fraction(c.values))
    if len(y) < min_points:
        return None
    other = c.other(against)
    if other is None:
        return None
    ox, oy = finite_xy(other.steps, other.values)
    if len(oy) < min_loss_points:
        return None
    return x, y, other, ox, oy


@params
class AtChanceWhileFallingParams(Params):
    """This accuracy is no better than chance (at most acc_tol above 1/C, relative) on min_share of
    its points while the training set is being learned: `against` (train loss) fell and ends at
    least min_fall below ln C, or the training accuracy `learned_by` ends at least `learned`
    times chance (a slow memoriser's loss barely moves while its accuracy already leaves chance
    behind). Below chance counts as at chance: an evaluation scored worse than guessing is noise
    around 1/C or a model that predicts one class. C from the config, or from the first train
    loss at init (ln C)."""

    against: Names = ("loss",)
    acc_tol: float = 0.15
    min_share: float = 0.8
    min_points: int = 2
    min_fall: float = 0.2
    learned_by: Names = ("accuracy",)
    learned: float = 1.5


@check("at_chance_while_falling", AtChanceWhileFallingParams)
def at_chance_while_falling(c: Ctx) -> Hit | None:
    """The eval metric sits at chance while the training loss falls."""
    p: AtChanceWhileFallingParams = c.params
    pair = _score_and_loss(c, p.against, p.min_points, 3)
    if pair is None:
        return None
    x, y, other, ox, oy = pair
    found = facts.classes_from_config(c.run)
    if found is None:
        classes = facts.classes_from_first_loss(ox, oy)
        if classes is None or classes > facts.MAX_CLASSES:
            return None
        found = (classes, f"first {other.name} {fmt(oy[0])} = ln {classes}")
    classes, where = found
    chance_level = 1.0 / classes
    at = y / chance_level - 1.0 <= p.acc_tol
    share = float(at.mean())
    if share < p.min_share:
        return None
    start, end = _ends(oy)
    # learning on the training set means a training loss well below ln C, the loss of a model
    # at chance: a run that died at ln C is at chance on both, a different finding
    learning: str | None = f"{other.name} fell from {fmt(start)} to {fmt(end)}"
    if not (end < start and end <= (1 - p.min_fall) * math.log(classes)):
        learning = _train_accuracy_learned(c, chance_level, p)
    if learning is None:
        return None
    return Hit(
        f"{c.name} sits at chance 1/{classes} = {fmt(chance_level)} ({where}) at {share:.0%} of {len(y)} evaluations "
        f"(median {fmt(float(np.median(y)))}) while {learning}",
        x[0], x[-1], numbers={"classes": classes, "share": share},
    )


@params
class NoGainWhileFittingParams(Params):
    """A held-out score (higher is better) whose best came at one of its first evaluations (within
    best_within of them) and that ends no better, while the training loss `against` fell by
    min_loss_drop or more of its value at that best: the model fitted its training data ever
    more closely and gained nothing it can use on held-out data."""

    against: Names = ("loss",)
    min_points: int = 4
    best_within: float = 0.34
    min_loss_drop: float = 0.9
    # a score at or above this (as a fraction) at its best has no room left to gain: a model right from its
    # first evaluation on, not one that learned nothing held-out
    max_value: float = 0.95


@check("no_gain_while_fitting", NoGainWhileFittingParams)
def no_gain_while_fitting(c: Ctx) -> Hit | None:
    """An eval score that never improved past its first evaluations while the training loss collapsed."""
    p: NoGainWhileFittingParams = c.params
    x, y = finite_xy(c.steps, facts.as_fraction(c.values))
    if len(y) < p.min_points:
        return None
    i = int(np.argmax(y))
    if i > max(1, int(p.best_within * len(y))) or float(np.median(y[-max(1, len(y) // 3):])) > y[i] \
            or y[i] >= p.max_value:
        return None
    other = c.other(p.against)
    if other is None:
        return None
    ox, oy = finite_xy(other.steps, other.values)
    then = oy[ox <= x[i]]
    logged_to_end = bool(np.any(ox >= x[-1] - 1e-9 * max(1.0, abs(float(x[-1])))))
    if not len(then) or not logged_to_end or then[-1] <= 0:
        return None
    o_then, o_end = float(then[-1]), float(np.median(oy[-max(1, len(oy) // 10):]))
    if o_end > (1.0 - p.min_loss_drop) * o_then:
        return None
    return Hit(
        f"{c.name} was best at its {'first' if i == 0 else 'second' if i == 1 else f'evaluation {i + 1}'} "
        f"({fmt(float(y[i]))}, step {step_str(x[i])}) and ends at {fmt(float(y[-1]))}, while {other.name} fell from "
        f"{fmt(o_then)} to {fmt(o_end)}: it fits its training data and gains nothing on held-out data",
        x[i], x[-1], numbers={"best": float(y[i]), "loss_then": o_then, "loss_end": o_end},
    )


@params
class RecallAtKChanceParams(Params):
    """Recall@K logged for several K, with recall@N at 1 for the largest N: the true item is always
    among N candidates, and a ranking no better than random puts it in the top K with probability
    K/N. Fires when every other K sits within `tol` (relative) or `abs_tol` (whichever is wider) of
    K/N on its median over the last `window_fraction` of its points, for at least `min_ks` values
    of K (a test set of a few thousand queries moves recall@1 = 0.1 by a hundredth or two)."""

    tol: float = 0.15
    abs_tol: float = 0.03
    min_ks: int = 2
    min_points: int = 1
    window_fraction: float = 0.5


_RECALL_AT = re.compile(r"(?i)(?:^|/)(?:recall|r|hit|hits|hr)(?:@|_at_|_at|@top|_)(\d+)$")


@check("recall_at_k_chance", RecallAtKChanceParams)
def recall_at_k_chance(c: Ctx) -> Hit | None:
    """A ranking at random: recall@K = K/N for the N that recall@N reaches 1 at."""
    p: RecallAtKChanceParams = c.params
    by_k: dict[int, float] = {}
    names: dict[int, str] = {}
    for name, s in c.run.series.items():
        m = _RECALL_AT.search(name)
        if not m:
            continue
        y = facts.as_fraction(finite_xy(s.steps, s.values)[1])
        if len(y) < p.min_points:
            continue
        tail = y[int(len(y) * (1.0 - p.window_fraction)):] if len(y) > 1 else y
        k = int(m.group(1))
        if k > 0 and k not in by_k:
            by_k[k], names[k] = float(np.median(tail)), name
    full = [k for k, v in by_k.items() if v >= 0.999]
    if not full:
        return None
    n = min(full)
    ks = sorted(k for k in by_k if k < n)
    if len(ks) < p.min_ks or not all(abs(by_k[k] - k / n) <= max(p.tol * k / n, p.abs_tol) for k in ks):
        return None
    parts = ", ".join(f"{names[k]} {fmt(by_k[k])} (K/N {fmt(k / n)})" for k in ks)
    return Hit(
        f"{names[n]} is 1, so the true item is always among {n} candidates, and {parts} sit at K/{n}: "
        f"the chance a random order puts it in the top K",
        None, None, numbers={"candidates": n},
    )


@params
class NearWhileFallingParams(Params):
    """This metric stays within `tol` of a fixed chance level `target` (ROC AUC 0.5: a ranking no
    better than a coin, whatever the class balance) on min_share of its points, or at its last point
    when it has fewer than three, while the training loss `against` fell by min_fall (relative,
    between the medians of its first and last tenth): the model is fitting something, not the
    ranking the metric scores."""

    target: float = 0.5
    tol: float = 0.05
    min_share: float = 0.8
    min_points: int = 1
    against: Names = ("loss",)
    min_fall: float = 0.1
    # this many evaluations, every one within tol of the target, are enough without a training loss
    # beside them (0 = never): a model (or several) scored at chance again and again learned nothing
    # the metric can see
    min_alone: int = 0
    # ... or, with no falling loss to show it, the same score on the training data (these names, as
    # fractions) at trained_above or more beside the evaluations: the model ranks its training examples
    # well and held-out ones like a coin
    trained_score: Optional[Names] = None
    trained_above: float = 0.9


@check("near_while_falling", NearWhileFallingParams)
def near_while_falling(c: Ctx) -> Hit | None:
    """A score at its chance level after the training loss fell."""
    p: NearWhileFallingParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    if p.min_alone and len(y) >= p.min_alone and bool(np.all(np.abs(y - p.target) <= p.tol)):
        return Hit(
            f"{c.name} is within {fmt(p.tol)} of chance {fmt(p.target)} at all {len(y)} evaluations (steps "
            f"{step_str(x[0])}-{step_str(x[-1])}, median {fmt(float(np.median(y)))}): the model ranks no better than a coin",
            x[0], x[-1], numbers={"level": float(np.median(y)), "share": 1.0},
        )
    judged = y if len(y) >= 3 else y[-1:]
    at = np.abs(judged - p.target) <= p.tol
    share = float(at.mean())
    if share < p.min_share:
        return None
    trained = c.other(p.trained_score) if p.trained_score else None
    if trained is not None and trained.name != c.name:
        tx, ty = finite_xy(trained.steps, facts.as_fraction(trained.values))
        near = _logged_up_to(tx, ty, float(x[-1]), 3)
        if len(near) and float(np.median(near)) >= p.trained_above:
            return Hit(
                f"{c.name} is {fmt(float(np.median(judged)))}, within {fmt(p.tol)} of chance {fmt(p.target)}, at {share:.0%} "
                f"of {len(judged)} point{'s' if len(judged) > 1 else ''} (steps {step_str(x[0])}-{step_str(x[-1])}) while "
                f"{trained.name} on the training data is {fmt(float(np.median(near)))}: the model ranks its training "
                f"examples well and held-out ones no better than a coin",
                x[0], x[-1], numbers={"level": float(np.median(judged)), "share": share},
            )
    other = c.other(p.against)
    if other is None:
        return None
    ox, oy = finite_xy(other.steps, other.values)
    if len(oy) < 2:
        return None
    start, end = _ends(oy) if len(oy) >= 10 else (float(oy[0]), float(oy[-1]))
    if not (start > 0 and end < start and (start - end) / start >= p.min_fall):
        return None
    if len(oy[ox <= x[-1]]) < 2:
        return None  # (scored before any training: a first evaluation at init is at chance by design)
    return Hit(
        f"{c.name} is {fmt(float(np.median(judged)))}, within {fmt(p.tol)} of chance {fmt(p.target)}, at {share:.0%} of "
        f"{len(judged)} point{'s' if len(judged) > 1 else ''} (steps {step_str(x[0])}-{step_str(x[-1])}) while {other.name} "
        f"fell from {fmt(start)} to {fmt(end)}: the model ranks no better than a coin",
        x[0], x[-1], numbers={"level": float(np.median(judged)), "share": share},
    )


def _train_accuracy_learned(c: Ctx, chance_level: float, p: AtChanceWhileFallingParams) -> str | None:
    """'train accuracy rose from A to B' when the training accuracy ends at `learned` x chance or more."""
    train = c.other(p.learned_by)
    if train is None or train.name == c.name:
        return None
    _, ty = finite_xy(train.steps, facts.as_fraction(train.values))
    if len(ty) < 3:
        return None
    start, end = _ends(ty)
    if end <= start or end < p.learned * chance_level:
        return None
    return f"{train.name} rose from {fmt(start)} to {fmt(end)}"


@params
class ConfidentAtFloorParams(Params):
    """This accuracy is high (tail median at least min_acc) while the training loss `against` never
    goes below the double-softmax floor log(1 + (C-1)/e): softmax applied twice caps every sample's
    probability of the right class at e / (e + C - 1), so a classifier that is right almost always
    still cannot push its cross-entropy under that floor, and sits just above it. C from the config,
    or from the first training loss when it was logged in the first `early` share of the run (a
    mean over the first few steps is still ln C: the doubled softmax learns slowly at first).
    The loss must sit within max_above (relative) of the floor over the tail and never fall more
    than `below` under it (a batch mean of losses that are each above the floor is above it too:
    `below` only absorbs rounding); neither may the `also` losses (the eval loss) when logged."""

    against: Names = ("loss",)
    also: Names = ("eval/loss",)
    min_acc: float = 0.85
    early: float = 0.05
    max_above: float = 0.25
    below: float = 0.01
    min_points: int = 3
    min_loss_points: int = 10


@params
class LossBelowAccuracyBoundParams(Params):
    """A classifier's cross-entropy and its accuracy over the same samples bound each other: a sample
    the argmax gets wrong has at most half its probability on the right class, so it adds at least
    ln 2 to the sum, and the mean loss is at least (1 - accuracy) * ln 2. This accuracy (at most
    max_acc) beside a loss `against` below `margin` times that bound at the same logs (min_count of
    them, min_share of the paired logs) cannot both describe one model on one set of samples: the
    accuracy is scored on other labels, the loss is not a cross-entropy of those outputs, or the two
    come from different places (a loss that falls while the accuracy stays put)."""

    against: Names = ("loss",)
    max_acc: float = 0.9
    margin: float = 0.05
    min_count: int = 2
    min_share: float = 0.5
    # the loss must also have fallen this many times further than the bound did, from the first log
    # that prints both to the last low one: a loss printed over a wrong denominator (summed batch
    # means divided by the sample count) sits a constant factor under the bound and falls with the
    # accuracy, which is a scale, not a disagreement
    min_ratio_fall: float = 10.0
    # a loss of exactly 0 beside an accuracy of exactly 0 at one log is no model at all (a loss of 0
    # needs every answer right): nothing was scored, an empty set summed to zero twice
    zero_pair: bool = False
    # ... and the same for each loss term the run logs (a training series named as a loss): a
    # CTC or segmentation term of exactly 0 beside an accuracy of exactly 0 scored nothing either
    zero_pair_terms: bool = False


@check("loss_below_accuracy_bound", LossBelowAccuracyBoundParams)
def loss_below_accuracy_bound(c: Ctx) -> Hit | None:
    """A loss too low for the accuracy logged beside it."""
    p: LossBelowAccuracyBoundParams = c.params
    x, acc = finite_xy(c.steps, facts.as_fraction(c.values))
    other = c.other(p.against)
    pairs = ([other] if p.zero_pair and other is not None else []) + (_training_losses(c.run) if p.zero_pair_terms else [])
    hit = _zero_pair(c, x, acc, pairs) if pairs else None
    if hit is not None:
        return hit
    if other is None or not len(acc):
        return None
    ox, oy = finite_xy(other.steps, other.values)
    if not len(oy):
        return None
    at = in_steps(x, ox)  # the logs that print both
    if int(at.sum()) < p.min_count:
        return None
    xa, a = x[at], acc[at]
    loss = oy[np.searchsorted(ox, xa)] if (np.diff(ox) > 0).all() else np.array([oy[ox == v][-1] for v in xa])
    bound = (1.0 - a) * math.log(2.0)
    bad = (a <= p.max_acc) & (loss >= 0) & (loss < p.margin * bound)
    count = int(bad.sum())
    if count < p.min_count or count < p.min_share * len(a):
        return None
    i = int(np.flatnonzero(bad)[-1])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = loss / bound
    if not (ratio[0] > 0 and ratio[i] * p.min_ratio_fall <= ratio[0]):
        return None
    return Hit(
        f"{other.name} is {fmt(float(loss[i]))} while {c.name} is {fmt(float(a[i]))} at step {step_str(xa[i])} "
        f"({count} of {len(a)} logs that print both): a cross-entropy over samples of which {1 - float(a[i]):.0%} "
        f"are wrong is at least {fmt(float(bound[i]))}",
        xa[bad][0], xa[bad][-1], numbers={"count": count, "loss": float(loss[i]), "accuracy": float(a[i])},
    )


@check("confident_at_floor", ConfidentAtFloorParams)
def confident_at_floor(c: Ctx) -> Hit | None:
    """An accurate classifier whose loss cannot go below the double-softmax floor."""
    p: ConfidentAtFloorParams = c.params
    x, y = finite_xy(c.steps, facts.as_fraction(c.values))
    if len(y) < p.min_points:
        return None
    acc = float(np.median(y[len(y) // 2:]))
    if acc < p.min_acc:
        return None
    other = c.other(p.against)
    if other is None:
        return None
    ox, oy = finite_xy(other.steps, other.values)
    if len(oy) < p.min_loss_points:
        return None
    found = facts.classes_from_config(c.run)
    if found is not None and found[1].startswith("vocab_size"):
        return None  # a next-token loss keeps the text's own entropy above any floor
    if found is None:
        if facts.scores_tokens(c.run) is not None or not facts.begins_at_start(ox, p.early) or not (0.5 < oy[0] < 13.0):
            return None
        classes = int(round(math.exp(float(oy[0]))))
        found = (classes, f"first {other.name} {fmt(float(oy[0]))} = ln {classes}")
    classes, where = found
    if classes < 3:  # two classes: the floor log(1 + 1/e) = 0.31 is an ordinary loss level
        return None
    floor = math.log(1.0 + (classes - 1) / math.e)
    tail = oy[len(oy) // 2:]
    level = float(np.median(tail))
    if float(oy.min()) < (1 - p.below) * floor or level > (1 + p.max_above) * floor:
        return None
    extra = c.other(p.also)
    if extra is not None:
        ev = extra.values[np.isfinite(extra.values)]
        if len(ev) and float(ev.min()) < (1 - p.below) * floor:
            return None
    return Hit(
        f"{c.name} is {fmt(acc)} while {other.name} never goes below {fmt(float(oy.min()))} and sits at "
        f"{fmt(level)}: the floor of softmax applied twice over {classes} classes is "
        f"log(1 + {classes - 1}/e) = {fmt(floor)} ({where})",
        ox[len(ox) // 2], ox[-1], numbers={"classes": classes, "floor": floor, "level": level, "accuracy": acc},
    )


@params
class RunningTotalParams(Params):
    """The series climbs in cycles of the same length (within one log) that each restart below
    `drop` of the cycle's last value, and within each cycle its k-th value is (k + 1) times its first,
    within `tol` (relative): the arithmetic of a running total of similar per-batch losses that is
    reset each epoch and never divided by the batches added. At least `min_cycles` complete cycles of
    `min_len` logs or more, covering `cover` of the series."""

    min_cycles: int = 3
    min_len: int = 3
    drop: float = 0.6
    cover: float = 0.8
    tol: float = 0.5


@check("running_total", RunningTotalParams)
def running_total(c: Ctx) -> Hit | None:
    """A logged loss that is a running sum since the epoch began."""
    p: RunningTotalParams = c.params
    x, y = finite_xy(c.steps, c.values)
    n = len(y)
    if not n:
        return None
    # the climbs: stretches where each value is above the one before; one ends where the series does
    # not rise, and counts as a cycle when it is min_len long and the next value falls below drop of its last
    ends = np.r_[np.flatnonzero(y[1:] <= y[:-1]) + 1, n]
    starts = np.r_[0, ends[:-1]]
    last = ends == n
    nxt = np.where(last, 0, ends)
    cycle = (ends - starts >= p.min_len) & (last | (y[nxt] < p.drop * y[ends - 1]))
    cs, ce = starts[cycle], ends[cycle]
    whole = ce < n  # (the last climb may run into the end of the series: it covers, but is not a full cycle)
    if int(whole.sum()) < p.min_cycles or int((ce - cs).sum()) < p.cover * n:
        return None
    lengths = (ce - cs)[whole].tolist()
    if max(lengths) - min(lengths) > 1:
        return None
    full = list(zip(cs[whole].tolist(), ce[whole].tolist()))
    for a, b in full:
        if y[a] <= 0:
            return None
        k = np.arange(1, b - a)
        ratio = y[a + k] / y[a]
        if ((ratio < (1 - p.tol) * (k + 1)) | (ratio > (1 + p.tol) * (k + 1))).any():
            return None
    a, b = full[0]
    return Hit(
        f"{c.name} climbs within each of {len(full)} cycles of {min(lengths)}-{max(lengths)} logs and restarts at the "
        f"next (e.g. {fmt(float(y[a]))} -> {fmt(float(y[b - 1]))} over steps {step_str(x[a])}-{step_str(x[b - 1])}, "
        f"then {fmt(float(y[b]))}), its k-th value about k times its first: a running total of the batch losses "
        f"since the epoch began, never divided by the number of batches",
        x[a], x[-1], numbers={"cycles": len(full), "length": min(lengths)},
    )


@params
class ConstantMultipleParams(Params):
    """This loss is at least `min_ratio` times the loss `against` (interpolated at its steps) at every one
    of its `min_points` or more logs, the first included, and the multiple drifts by less than a factor
    `max_drift` from the first log to the last. Overfitting opens the gap over time from about 1; a
    multiple that is there from the first evaluation and stays put is two losses on different scales."""

    against: Names = ("loss",)
    min_ratio: float = 3.0
    max_drift: float = 1.5
    min_points: int = 3
    # a classifier only, whose held-out accuracy (`accuracy`) ends within `max_acc_gap` of the training
    # accuracy (`train_accuracy`, when logged): the same accuracy on both sides with a loss several
    # times larger on one is two scales. A regression's eval MSE can be a fixed multiple for a real
    # reason (a time split whose targets spread wider), so without an accuracy it stays quiet.
    accuracy: Names = ("eval/accuracy",)
    train_accuracy: Names = ("accuracy",)
    max_acc_gap: float = 0.05
    # series whose presence proves the loss is a cross-entropy (a perplexity, exp of it): when set, one of
    # them must be logged and it stands in for the accuracy (the regression excuse above cannot apply)
    cross_entropy_proof: Names = ()


@check("constant_multiple", ConstantMultipleParams)
def constant_multiple(c: Ctx) -> Hit | None:
    """An eval loss that is a fixed multiple of the training loss from its first evaluation."""
    p: ConstantMultipleParams = c.params
    x, y = finite_xy(c.steps, c.values)
    other = c.other(p.against)
    if other is None or len(y) < p.min_points:
        return None
    ox, oy = finite_xy(other.steps, other.values)
    if len(oy) < p.min_points or not (np.diff(ox) > 0).all():
        return None
    inside = (x >= ox[0]) & (x <= ox[-1])
    if int(inside.sum()) < p.min_points or not inside[0]:
        return None
    x, y = x[inside], y[inside]
    base = np.interp(x, ox, oy)
    if (base <= 0).any() or (y <= 0).any():
        return None
    ratio = y / base
    if float(ratio.min()) < p.min_ratio or not (1 / p.max_drift <= ratio[-1] / ratio[0] <= p.max_drift):
        return None
    ha = facts.as_fraction(_other_values(c, p.accuracy))
    ta = facts.as_fraction(_other_values(c, p.train_accuracy))
    if p.cross_entropy_proof:
        if c.other(p.cross_entropy_proof) is None:  # (a cross-entropy proved by its perplexity: no accuracy needed)
            return None
    elif not len(ha) or (len(ta) and float(ha[-1]) < float(ta[-1]) - p.max_acc_gap):
        return None
    return Hit(
        f"{c.name} is {fmt(float(ratio[0]))}x {other.name} at its first log (step {step_str(x[0])}) and "
        f"{fmt(float(ratio[-1]))}x at its last (step {step_str(x[-1])}), never under {fmt(float(ratio.min()))}x: a gap "
        f"that is there from the start and does not grow is no overfitting but two losses on different scales "
        f"(a sum over batches against a mean, a per-sequence against a per-token loss)",
        x[0], x[-1], numbers={"first": float(ratio[0]), "last": float(ratio[-1])},
    )


@params
class UniformWhileAccurateParams(Params):
    """This accuracy climbs from chance (its first value at most 1/C + `from_chance`) to `rise` or more
    above chance (median of its last quarter) while the cross-entropy `against` of the same split never
    leaves ln C, the loss of a uniform guess: it starts within `first_tol` (relative) of ln C and every
    value stays within `band` (relative) of it. C from the first loss, logged at the start of the run,
    and at most `max_classes` (above that, ln C of neighbouring C lie too close to tell apart)."""

    against: Names = ("loss",)
    max_classes: int = 10
    first_tol: float = 0.01
    band: float = 0.05
    from_chance: float = 0.15
    rise: float = 0.3
    # five logs at least of each: the first epochs of a model trained under heavy dropout keep the loss
    # at ln C for a few logs while the accuracy starts to climb; that is a start, not a run
    min_points: int = 5
    min_loss_points: int = 5


@check("uniform_while_accurate", UniformWhileAccurateParams)
def uniform_while_accurate(c: Ctx) -> Hit | None:
    """An accuracy that rises far above chance while the loss stays at ln C."""
    p: UniformWhileAccurateParams = c.params
    pair = _score_and_loss(c, p.against, p.min_points, p.min_loss_points)
    if pair is None:
        return None
    x, y, other, ox, oy = pair
    if not facts.begins_at_start(ox, 0.05) or not (0.5 < oy[0] < 3.0):
        return None
    classes = int(round(math.exp(float(oy[0]))))
    uniform = math.log(classes) if classes >= 2 else 0.0
    if not (2 <= classes <= p.max_classes) or abs(float(oy[0]) - uniform) > p.first_tol * uniform:
        return None
    if float(np.max(np.abs(oy - uniform))) > p.band * uniform:
        return None
    chance = 1.0 / classes
    end = float(np.median(y[-max(1, len(y) // 4):]))
    if float(y[0]) > chance + p.from_chance or end < chance + p.rise:
        return None
    return Hit(
        f"{c.name} rose from {fmt(float(y[0]))} to {fmt(end)} (chance 1/{classes} = {fmt(chance)}) while "
        f"{other.name} stayed within {p.band:.0%} of ln {classes} = {fmt(uniform)}, the loss of a uniform guess, "
        f"from {fmt(float(oy[0]))} to {fmt(float(oy[-1]))}: the predictions are right but carry almost no "
        f"confidence, so something caps it (targets smoothed towards uniform, logits scaled down)",
        x[0], x[-1], numbers={"classes": classes, "accuracy": end, "loss": float(oy[-1])},
    )


@params
class CollapsesToZeroParams(Params):
    """A loss that starts at `start_min` or more and is below `floor` at one of the next `within`
    points, staying below `floor` * 100 from there to the end (`min_points` in all)."""

    start_min: float = 1.0
    floor: float = 1.0e-3
    within: int = 3
    min_points: int = 3
    # quiet when the run's accuracy after the fall is at least this: a classifier right on everything
    # has an easy task, not batches with nothing in them (a toy problem solved in one epoch) ...
    unless_accuracy_above: Optional[float] = 0.99
    # ... unless the first loss says it is no toy: ln C of more classes than this (a thousand-way
    # classifier right on every sample a few logs after init has labels that are all one class)
    toy_max_classes: Optional[int] = None


@check("collapses_to_zero", CollapsesToZeroParams)
def collapses_to_zero(c: Ctx) -> Hit | None:
    """A loss that falls from an ordinary start to (almost) 0 within a few logged steps."""
    p: CollapsesToZeroParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points or float(y[0]) < p.start_min:
        return None
    head = y[1: p.within + 1]
    hits = np.nonzero(np.abs(head) < p.floor)[0]
    if not len(hits):
        return None
    k = int(hits[0]) + 1
    if float(np.max(np.abs(y[k:]))) >= p.floor * 100:
        return None  # (it came back up: one odd batch, not a collapse)
    if p.unless_accuracy_above is not None and _accuracy_at_least(c.run, p.unless_accuracy_above, x[k]):
        classes = facts.classes_from_first_loss(x, y) if p.toy_max_classes is not None else None
        if p.toy_max_classes is None or classes is None or classes <= p.toy_max_classes:
            return None
    return Hit(
        f"{c.name} fell from {fmt(float(y[0]))} at step {step_str(x[0])} to {fmt(float(y[k]))} at step "
        f"{step_str(x[k])}, {k} logged step{'s' if k > 1 else ''} later, and stays below {fmt(p.floor * 100)}: "
        "no model learns real data that fast; the batches have nothing left to predict",
        x[0], x[-1], numbers={"start": float(y[0]), "after": float(y[k]), "steps": k},
    )


@params
class RewardTrendParams(ImprovingParams):
    """The course of an episodic return over a log that begins at the start of training: the mean
    of its first tenth (its start) against the mean of its last third. A level run stays within
    a band of z standard errors of that difference (from the point-to-point noise) or `min_gain`
    of the start's size, whichever is wider. `flat`: the last third is within that band of the start.
    `collapsed`: the last third sits below the start by the noise margin and by `min_drop` of the
    start's size (a logged return is often already a running mean, so its point-to-point noise
    understates how far its level wanders), or the smoothed curve rose above the band to a peak
    and the last third gave back at least `give_back` of the rise."""

    shape: Literal["flat", "collapsed"] = "flat"
    z: float = 3.0
    min_gain: float = 0.1
    min_drop: float = 0.3
    give_back: float = 0.75
    min_points: int = 10
    start_share: float = 0.05
    # (ImprovingParams, `flat` only) quiet when a task score the agent is judged by (a goal's success rate)
    # ends a tenth better than it began (medians of its first and last 15%; for a share, its failures a
    # tenth fewer): in a sparse-reward task the return moves only by the steps the rare successes save


@check("reward_trend", RewardTrendParams)
def reward_trend(c: Ctx) -> Hit | None:
    """An episodic return that never improves, or that falls below where it started."""
    p: RewardTrendParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points or not facts.begins_at_start(x, p.start_share, gaps=1.5):
        return None
    third, head = max(2, len(y) // 3), max(2, len(y) // 10)  # (a fast learner leaves its start within a tenth)
    first, last = float(np.mean(y[:head])), float(np.mean(y[-third:]))  # (means: returns are often whole numbers)
    scale = p.z * math.sqrt(1.0 / head + 1.0 / third)  # a third's median against the start's, in noise units
    margin = scale * facts.noise(y)
    if margin <= 0:
        if float(np.ptp(y)) == 0:
            return None  # a return that never varies is the constant-reward findings' case
        # a return that is almost always one value (0.0 with a rare 0.01): pinned there, it never
        # improved; its typical point-to-point noise is 0, so a rare outlier is no trend either way
        values, counts = np.unique(y, return_counts=True)
        mode = float(values[int(np.argmax(counts))])
        share = float(counts.max()) / len(y)
        if share >= 0.8 and float(np.mean(y[-third:] == mode)) >= 0.8:
            if p.shape != "flat":
                return None
            if mode > first:
                # the return climbed from its first episodes to the value it then holds (an episode
                # solved, scored the same every time): that is an improvement, not a flat return
                return None
            return Hit(f"{c.name} is {fmt(mode)} on {share:.0%} of {len(y)} points and on the last third too (steps "
                       f"{step_str(x[0])}-{step_str(x[-1])}): it never improves", x[0], x[-1],
                       numbers={"first": mode, "last": mode})
        if p.shape == "flat":
            return None  # (a return that takes a few whole values, 20 and 21 on a solved Pong: no trend to judge)
        # most points repeat the one before (a win rate of 0 evaluation after evaluation once the policy
        # collapsed): the size of the series' moves, when it moves, is its noise
        margin = scale * facts.noise(y, moving_only=True)
    tol = max(margin, p.min_gain * abs(first))  # the band a level run stays within
    gain = last - first
    span = f"steps {step_str(x[0])}-{step_str(x[-1])}"
    if p.shape == "flat":
        if abs(gain) > tol:
            return None  # (falling well below the start is the collapse's finding)
        if (p.unless_improving or p.unless_improving_lower) and _task_improved(
                c.run, p.unless_improving, p.unless_improving_lower, p.improving_error_terms) is not None:
            return None
        return Hit(f"{c.name} never improves: mean {fmt(first)} over the first tenth of the run and {fmt(last)} over "
                   f"the last third ({span}, {len(y)} points)", x[0], x[-1], numbers={"first": first, "last": last})
    ys = smooth(y, max(1, len(y) // 10))
    peak_at = int(np.argmax(ys))
    rise = float(ys[peak_at]) - first
    if gain < -max(margin, p.min_drop * abs(first)):
        why = f"fell from a mean of {fmt(first)} over the first tenth of the run to {fmt(last)} over the last third"
    elif rise > tol and float(ys[peak_at]) - last > tol and gain <= (1 - p.give_back) * rise:
        why = f"rose from {fmt(first)} to {fmt(float(ys[peak_at]))} (smoothed) by step {step_str(x[peak_at])}, then fell back to {fmt(last)}"
    else:
        return None
    return Hit(f"{c.name} {why} ({span}, {len(y)} points)", x[0], x[-1],
               numbers={"first": first, "last": last, "peak": float(ys[peak_at])})


@params
class WorseningParams(Params):
    """An eval metric that gets worse: `worse` says which way is worse (up for a loss, WER or
    perplexity). Its last third sits above its best earlier value by at least min_rise of that
    value and z times its own trend-free noise. against: a training loss that must keep falling
    over the same stretch (when the run logs one; missing_other: fire or quiet when it does not);
    holding: a metric that must not get worse meanwhile (eval accuracy holding while the eval
    loss climbs is overconfidence, the textbook overfit)."""

    worse: Literal["up", "down"] = "up"
    min_rise: float = 0.05
    z: float = 3.0
    min_points: int = 3
    against: Optional[Names] = None
    missing_other: Literal["quiet", "fire"] = "quiet"
    holding: Optional[Names] = None
    hold_tol: float = 0.02
    # the least absolute rise that counts (in the metric's own units; for a cross-entropy in nats,
    # 0.05 is the right class's probability falling by 5% on average): a tiny loss that creeps up
    # by a hundredth on a model that is right 99% of the time is not worth a finding
    min_abs_rise: float = 0.0
    # quiet when this training metric got worse the same way over the same stretch: an "accuracy"
    # that falls on the training set too while the training loss falls is an error-like score
    # (lower is better), and a model worse on both sets is not overfitting
    unless_train_worse: Optional[Names] = None
    # only when, once it fell past half of the way down, it never came back within a tenth of its best:
    # a score that jumps between a few values keeps returning to its best, a collapsed model does not
    no_return: bool = False


def _worsened(y: np.ndarray, worse: str, min_rise: float, z: float):
    """(index of the best point, best, level of the last third after it, how much worse, the
    noise of that comparison) when the series ends clearly worse than its best, else None.
    A long noisy series is judged on its running median (the best single point of a noisy
    series flatters it); a short one point by point, against its trend-free noise."""
    if len(y) < 2:
        return None
    sign = 1.0 if worse == "up" else -1.0
    zz = sign * y  # higher is worse
    k = max(1, len(zz) // 10) if len(zz) >= 20 else 1
    zs = _running_median(zz, k)
    i_best = int(np.argmin(zs[:-1]))
    n_after = len(zz) - 1 - i_best
    # (the level after the best is judged on as many points as the best was: one late evaluation of a long
    # noisy series is no level)
    tail = zz[-max(k, n_after // 3):]
    level = float(np.median(tail))
    best = float(zs[i_best])
    rise = level - best
    sigma = facts.trend_noise(y)
    se = sigma * math.sqrt(1.0 / k + 1.0 / len(tail)) if k > 1 else sigma
    if rise <= 0 or rise < min_rise * abs(best) or rise < z * se:
        return None
    return i_best, best, level, rise, se


TRAINING_SIGNALS = ("loss", "train_loss_avg", "grad_norm", "eval/loss")


def _nonfinite_after(run, step: float) -> bool:
    """Whether the loss, the gradient norm or the eval loss is NaN/Inf anywhere after `step`."""
    for name in TRAINING_SIGNALS:
        s = run.get(name)
        if s is not None and len(s) and (~np.isfinite(s.values[s.steps > step])).any():
            return True
    return False


@check("worsening", WorseningParams)
def worsening(c: Ctx) -> Hit | None:
    """An eval metric climbing away from its best."""
    p: WorseningParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points:
        return None
    found = _worsened(y, p.worse, p.min_rise, p.z)
    if found is None:
        return None
    i_best, best, level, rise, se = found
    if rise < p.min_abs_rise:
        return None
    sign = 1.0 if p.worse == "up" else -1.0
    if p.no_return:
        zz = sign * y
        fell = np.flatnonzero(zz[i_best:] >= best + 0.5 * rise)
        if not len(fell) or bool(np.any(zz[i_best + int(fell[0]):] <= best + 0.1 * abs(best))):
            return None
    if _nonfinite_after(c.run, float(x[i_best])):
        return None  # a metric that worsens after the run went NaN is the NaN's finding, not an overfit
    notes = []
    if p.against:
        other = c.other(p.against)
        if other is None and p.missing_other == "quiet":
            return None
        if other is not None:
            ox, oy = finite_xy(other.steps, other.values)
            then = oy[ox <= x[i_best]]
            later = oy[ox >= x[i_best]]
            if not len(then) or len(later) < 2:
                return None
            o_then, o_end = float(np.median(then[-max(1, len(then) // 10):])), float(np.median(later[-max(1, len(later) // 5):]))
            if o_end >= o_then:
                return None
            notes.append(f" while {other.name} fell from {fmt(o_then)} to {fmt(o_end)}")
    if p.unless_train_worse:
        tr = c.other(p.unless_train_worse)
        if tr is not None:
            tx, ty = finite_xy(tr.steps, tr.values)
            ty = ty[tx >= x[0]]
            if len(ty) >= 3 and _worsened(ty, p.worse, p.min_rise, p.z) is not None:
                return None
    if p.holding:
        held = c.other(p.holding)
        if held is None:
            return None
        hv = facts.as_fraction(held.values)
        hx, hy = finite_xy(held.steps, hv)
        then = hy[hx <= x[i_best]]
        after = hy[hx > x[i_best]]
        if not len(then) or not len(after):
            return None
        base = float(then[-1])
        if float(np.median(after)) < base - p.hold_tol:
            return None  # the accuracy fell too: that is a plain divergence or overfit, not overconfidence
        notes.append(f" while {held.name} held at {fmt(float(np.median(after)))} (was {fmt(base)})")
    word = "rose" if sign > 0 else "fell"
    return Hit(
        f"{c.name} {word} from its best {fmt(sign * best)} at step {step_str(x[i_best])} to {fmt(sign * level)} by step "
        f"{step_str(x[-1])} ({rise / max(abs(best), 1e-12):.0%} worse, {rise / max(se, 1e-12):.0f}x its noise)" + "".join(notes),
        x[i_best], x[-1], numbers={"rise": rise / max(abs(best), 1e-12)},
    )


@params
class ShiftAtEvalParams(Params):
    """The training loss steps to a new level right after the first evaluation and nowhere else
    (model.eval() for the evaluation, no model.train() after it: dropout and BatchNorm switch
    for the rest of the run). evals: the eval series whose first point marks the evaluation;
    span: points on each side, each side fitted with a line and the two lines compared where
    they meet (a curve that bends does not count as a step); z: the step against the noise of
    that comparison; min_rel: and against the level; outlier: and against the largest steps
    found anywhere else in the run (this many times their 99th percentile). The steps at the
    later evaluations must stay under half of it: a staircase at every epoch is healthy."""

    evals: Names = ("eval/loss", "eval/accuracy")
    span: int = 20
    z: float = 6.0
    min_rel: float = 0.1
    outlier: float = 2.0


def _steps_between_fits(x: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """For each boundary i (between point i-1 and i), the line fitted to the k points after it
    minus the line fitted to the k points before it, both evaluated at the boundary. NaN where a
    side has fewer than k points."""
    n = len(y)
    out = np.full(n, np.nan)
    if n < 2 * k + 1:
        return out
    from numpy.lib.stride_tricks import sliding_window_view

    xw, yw = sliding_window_view(x, k), sliding_window_view(y, k)  # window j = points j .. j+k-1
    xm, ym = xw.mean(axis=1), yw.mean(axis=1)
    sxx = ((xw - xm[:, None]) ** 2).sum(axis=1)
    slope = np.where(sxx > 0, ((xw - xm[:, None]) * (yw - ym[:, None])).sum(axis=1) / np.where(sxx > 0, sxx, 1), 0.0)
    i = np.arange(k, n - k + 1)
    edge = 0.5 * (x[i - 1] + x[i])
    before = ym[i - k] + slope[i - k] * (edge - xm[i - k])
    after = ym[i] + slope[i] * (edge - xm[i])
    out[i] = after - before
    return out


@check("shift_at_eval", ShiftAtEvalParams)
def shift_at_eval(c: Ctx) -> Hit | None:
    """A level shift in the train loss right after the first evaluation, and at no later one."""
    p: ShiftAtEvalParams = c.params
    ev = c.other(p.evals)
    if ev is None:
        return None
    x, y = finite_xy(c.steps, c.values)
    x, y = reduce(x, y)
    k = p.span
    if len(y) < 4 * k:
        return None
    ex = ev.steps[np.isfinite(ev.values)]
    ex = np.unique(ex[(ex > x[0]) & (ex < x[-1])])
    if len(ex) < 2:
        return None
    jumps = _steps_between_fits(x, y, k)
    at = np.searchsorted(x, ex, side="right")  # the first train point after each evaluation
    # the steps found elsewhere are the yardstick, so the stretch before the first evaluation
    # must be long enough to hold some of them (an evaluation inside the first fast drop of the
    # loss cannot be judged: any line fitted there bends away)
    if at[0] < 2 * k or not np.isfinite(jumps[at[0]]):
        return None
    first = float(jumps[at[0]])
    near_eval = np.zeros(len(y), dtype=bool)
    for i in at:
        near_eval[max(0, i - k):i + k] = True
    others = np.abs(jumps[~near_eval & np.isfinite(jumps)])
    sigma = facts.noise(y)
    se = sigma * math.sqrt(8.0 / k)  # the spread of the difference of two line ends fitted to k points each
    level = float(np.median(y[max(0, at[0] - k):at[0]]))
    bar = max(p.z * se, p.min_rel * abs(level), p.outlier * float(np.quantile(others, 0.99)) if len(others) else 0.0)
    if abs(first) < bar:
        return None
    later = [abs(float(jumps[i])) for i in at[1:] if np.isfinite(jumps[i])]
    if later and max(later) >= 0.5 * abs(first):
        return None  # it steps at every evaluation: an epoch staircase, not a mode switch
    return Hit(
        f"{c.name} stepped from {fmt(level)} to {fmt(level + first)} ({first / max(abs(level), 1e-12):+.0%}, "
        f"{abs(first) / max(se, 1e-12):.0f}x its noise) right after the first evaluation at step {step_str(ex[0])}, "
        f"and at none of the {len(later)} later ones",
        float(ex[0]), float(ex[0]), numbers={"shift": first},
    )


@params
class TracksParams(Params):
    """This series (the loss) rises and falls with `against` (real tokens per batch) after
    both are detrended: Pearson correlation of at least min_corr (sign: positive, negative or
    either) over at least min_points pairs. A cumulative counter is differenced first."""

    against: Names = ("ntokens",)
    min_corr: float = 0.6
    sign: Literal["positive", "negative", "either"] = "positive"
    min_points: int = 20


@check("tracks", TracksParams)
def tracks(c: Ctx) -> Hit | None:
    """The loss follows a per-batch count it should not depend on."""
    p: TracksParams = c.params
    other = c.other(p.against)
    if other is None:
        return None
    ox, oy = finite_xy(other.steps, other.values)
    if len(oy) > 2 and (np.diff(oy) >= 0).all() and oy[-1] > 2 * max(oy[0], 1e-12):
        ox, oy = ox[1:], np.diff(oy)  # a running total: tokens per logging interval
    x, y = finite_xy(c.steps, c.values)
    common, ia, ib = intersect_steps(x, ox)
    if len(common) < p.min_points:
        return None
    a, b = y[ia], oy[ib]
    k = max(3, len(a) // 10)
    ra, rb = a - smooth(a, k), b - smooth(b, k)
    if float(np.std(ra)) == 0 or float(np.std(rb)) == 0:
        return None
    r = float(np.corrcoef(ra, rb)[0, 1])
    ok = {"positive": r >= p.min_corr, "negative": r <= -p.min_corr, "either": abs(r) >= p.min_corr}[p.sign]
    if not ok:
        return None
    return Hit(
        f"{c.name} moves with {other.name} from batch to batch (correlation {r:+.2f} over {len(a):,} steps, "
        f"trends removed): the loss depends on how many tokens a batch holds",
        common[0], common[-1], numbers={"corr": r},
    )


# -- shapes judged against the run's own noise ----------------------------------------------
@params
class StillFallingParams(Params):
    """The loss still falls at the end as steeply as it ever did: a healthy run spends its
    steepest fall early and flattens out, one whose learning rate is far too small stays on the
    first straight stretch of the curve to the last step. The run is cut in `parts`; the last
    part's slope must be at least min_slope_ratio of the steepest part's, and its fall z times
    the noise of a slope fitted to that many points. from_start: only when the log begins at the
    start of training (an excerpt from the middle tells nothing about where the run began).
    And the log must show that this is the end of training: the learning rate (`lr`) has
    decayed to lr_end of its peak (the schedule ran out). Without that, the first steps of a
    long run in warmup look just the same."""

    parts: int = 4
    min_slope_ratio: float = 0.5
    z: float = 4.0
    min_points: int = 12
    from_start: bool = True
    lr: Names = ("learning_rate",)
    lr_end: float = 0.1


@check("still_falling", StillFallingParams)
def still_falling(c: Ctx) -> Hit | None:
    """A loss falling in a straight line to the end of training."""
    p: StillFallingParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < max(p.min_points, 3 * p.parts):
        return None
    if p.from_start and (not facts.started_at_init(x) or getattr(c.run, "meta", {}).get("restarts")):
        return None
    x, y = reduce(x, y)
    bounds = np.linspace(0, len(y), p.parts + 1).astype(int)
    slopes = []
    for a, b in zip(bounds[:-1], bounds[1:]):
        xs, ys = x[a:b], y[a:b]
        if len(xs) < 3 or float(np.ptp(xs)) == 0:
            return None
        slopes.append(float(np.polyfit(xs, ys, 1)[0]))
    steepest, last = min(slopes), slopes[-1]
    if max(slopes) >= 0 or last / steepest < p.min_slope_ratio:
        return None  # falling in every part, and at the end nearly as fast as ever
    a = bounds[-2]
    span = float(x[-1] - x[a])
    m = len(y) - a
    fall = -last * span
    sigma = facts.trend_noise(y)
    if fall < p.z * sigma * math.sqrt(12.0 / m):
        return None
    total = float(y[0] - y[-1])
    lr = c.other(p.lr)
    lr_y = finite_xy(lr.steps, lr.values)[1] if lr is not None else np.empty(0)
    ended = len(lr_y) > 1 and float(np.max(lr_y)) > 0 and float(lr_y[-1]) <= p.lr_end * float(np.max(lr_y))
    if not ended:
        return None  # the first steps of a long run (warmup) fall in a straight line too
    return Hit(
        f"{c.name} is still falling at the end as steeply as at its steepest: the last {100 // p.parts}% of the run "
        f"(steps {step_str(x[a])}-{step_str(x[-1])}) fell {fmt(fall)}, {last / steepest:.0%} of the steepest stretch's "
        f"rate; {fmt(total)} in all from {fmt(y[0])}, with the LR schedule already run out: "
        "the run stopped long before the loss levelled off",
        x[a], x[-1], numbers={"slope_ratio": last / steepest, "fall": fall},
    )


@params
class StuckWhileTrainingParams(Params):
    """An eval metric that repeats the very same value at its last min_run evaluations (and at
    least min_tail of all of them) while `against` (the training loss) still falls by min_fall
    of its level over those evaluations: the predictions on the eval set no longer change while
    training does (a model that answers one class whatever the input)."""

    against: Names = ("loss",)
    min_run: int = 5
    min_tail: float = 0.5
    min_fall: float = 0.05
    max_value: float = 0.95
    # a smaller fall still counts when it is this many times the training loss's own point-to-point
    # noise around its trend (a loss that falls at every one of ten epochs is moving, however slowly),
    # and at least `min_fall_smooth` of its level
    noise_factor: Optional[float] = None
    min_fall_smooth: float = 0.02


@check("stuck_while_training", StuckWhileTrainingParams)
def stuck_while_training(c: Ctx) -> Hit | None:
    """The eval metric frozen at one value while the training loss keeps moving. max_value: an
    accuracy (as a fraction) above this has too few wrong answers left to move, so a converged
    model repeats it honestly."""
    p: StuckWhileTrainingParams = c.params
    x, y = finite_xy(c.steps, facts.as_fraction(c.values))
    if len(y) < p.min_run or float(y[-1]) > p.max_value:
        return None
    same = y == y[-1]
    run_len = len(y) if same.all() else len(y) - 1 - int(np.flatnonzero(~same)[-1])
    if run_len < p.min_run or run_len < p.min_tail * len(y):
        return None
    other = c.other(p.against)
    if other is None:
        return None
    ox, oy = finite_xy(other.steps, other.values)
    first = x[len(y) - run_len]
    during = oy[(ox >= first) & (ox <= x[-1])]
    if len(during) < 2:
        return None
    k = max(1, len(during) // 5)
    start, end = float(np.median(during[:k])), float(np.median(during[-k:]))
    if start <= 0:
        return None
    fall = (start - end) / start
    if fall < p.min_fall:
        smooth = (p.noise_factor is not None and len(during) >= p.min_run and fall >= p.min_fall_smooth
                  and start - end >= p.noise_factor * facts.trend_noise(during))
        if not smooth:
            return None
    return Hit(
        f"{c.name} is exactly {fmt(y[-1])} at the last {run_len} of {len(y)} evaluations (steps {step_str(first)}-"
        f"{step_str(x[-1])}) while {other.name} fell from {fmt(start)} to {fmt(end)}: the eval predictions stopped changing",
        first, x[-1], numbers={"run": run_len},
    )


@params
class EqualsTwinParams(Params):
    """An evaluation series that equals its training twin (`eval/X` and `X`) value for value: on
    min_share of at least min_points steps the two carry the same number, the training values take
    min_distinct different values over those steps (a constant pair is another finding) and each
    shared value is printed to at least min_digits significant digits (two accuracies of exactly
    1.0 agree by saturation, not by construction). Two evaluations of different data agree to four
    digits at one step by chance; at every step only when they are the same data or the same number."""

    min_points: int = 3
    min_share: float = 0.9
    min_distinct: int = 3
    min_digits: int = 3
    prefix: str = "eval/"
    # the twin's name: this prefix in place of `prefix` (a test score `eval/test/X` against the
    # validation score `eval/X`)
    twin_prefix: str = ""
    # count equal values printed with fewer than min_digits digits (0.2 = 0.2, early in a run) toward
    # min_share too; the min_distinct values that make the case must still have min_digits each
    share_counts_short: bool = False


@check("equals_twin", EqualsTwinParams)
def equals_twin(c: Ctx) -> Hit | None:
    """The validation numbers are the training numbers: the eval set is the training set, or the
    logger prints one value under two names."""
    p: EqualsTwinParams = c.params
    if not c.name.startswith(p.prefix):
        return None
    twin = c.run.get(p.twin_prefix + c.name[len(p.prefix):])
    if twin is None or not len(twin):
        return None
    x, y = finite_xy(c.steps, c.values)
    tx, ty = finite_xy(twin.steps, twin.values)
    common, ia, ib = intersect_steps(x, tx)
    if len(common) < p.min_points:
        return None
    a, b = y[ia], ty[ib]
    equal = np.isclose(a, b, rtol=1e-9, atol=0.0)
    long = _printed_all(b, rel_tol=FLOAT32_REL)[0] >= p.min_digits  # (the digits _digits reads, for every value)
    same = equal if p.share_counts_short else equal & long
    share = float(np.mean(same))
    if share < p.min_share or len(np.unique(b[equal & long])) < p.min_distinct:
        return None
    return Hit(
        f"{c.name} equals {twin.name} at {int(same.sum()):,} of {len(common):,} shared steps (steps "
        f"{step_str(common[0])}-{step_str(common[-1])}, from {fmt(b[0])} to {fmt(b[-1])}): the evaluation reports "
        f"the training numbers, so it measures nothing held out",
        common[0], common[-1], numbers={"share": share, "points": float(len(common))},
    )


@params
class LowWhileOtherHighParams(Params):
    """Over the last window_fraction of the run this series' median sits at or below `at_most`
    while `other`'s median over the same stretch sits at or above `other_at_least` (min_points
    logs of each, both never negative: a loss that can go below zero, a WGAN critic's, has no
    such scale). For a GAN's binary cross-entropies: a discriminator loss near 0 is D(real) near 1
    and D(fake) near 0, and a generator loss of 3 or more is D(G(z)) at 5% or less."""

    other: Names = ("g_loss",)
    at_most: float = 0.05
    other_at_least: float = 3.0
    min_points: int = 4
    window_fraction: float = 0.5
    # quiet when this share of the window is exactly 0: a loss clamped at 0 is a hinge whose margin is
    # met (its designed resting point), not a cross-entropy driven to the end of its range
    unless_zero_share: Optional[float] = 0.5


@check("low_while_other_high", LowWhileOtherHighParams)
def low_while_other_high(c: Ctx) -> Hit | None:
    """One loss of a pair pinned near 0 while its opponent sits high: one side has won the game."""
    p: LowWhileOtherHighParams = c.params
    x, y = finite_xy(c.steps, c.values)
    other = c.other(p.other)
    if len(y) < p.min_points or other is None:
        return None
    ox, oy = finite_xy(other.steps, other.values)
    if len(oy) < p.min_points or float(np.min(y)) < 0 or float(np.min(oy)) < 0:
        return None
    tail = max(1, int(round(p.window_fraction * len(y))))
    start = float(x[-tail])
    mine = float(np.median(y[-tail:]))
    theirs_at = oy[ox >= start] if np.isfinite(start) else oy[-tail:]
    if not len(theirs_at):
        return None
    theirs = float(np.median(theirs_at))
    if mine > p.at_most or theirs < p.other_at_least:
        return None
    if p.unless_zero_share is not None and float(np.mean(y[-tail:] == 0)) >= p.unless_zero_share:
        return None
    return Hit(
        f"{c.name} has a median of {fmt(mine)} over its last {tail} of {len(y)} logs (steps {step_str(x[-tail])}-"
        f"{step_str(x[-1])}) while {other.name} sits at {fmt(theirs)}: one side wins every round and the other gets "
        f"no useful gradient",
        x[-tail], x[-1], numbers={"level": mine, "other": theirs},
    )


@params
class JumpToBandParams(Params):
    """A series that starts at or below start_max and later reaches the band [lo, hi] and is still in it
    at its last point (min_points logs or more). For a next-token cross-entropy, the band of
    ln V over the vocabularies language models use (about 9 to 13 nats: 8k to 440k tokens) is the loss
    of a model that gives every token the same probability; a pretrained model starting at 2 that lands
    there has lost everything it knew."""

    start_max: float = 4.0
    lo: float = 9.0
    hi: float = 13.0
    min_points: int = 2


@check("jump_to_band", JumpToBandParams)
def jump_to_band(c: Ctx) -> Hit | None:
    """A loss that leaves a trained level for the level of uniform guessing over a vocabulary, and stays."""
    p: JumpToBandParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points or float(y[0]) > p.start_max or not p.lo <= float(y[-1]) <= p.hi:
        return None  # (past the band at the end: blowing up, another finding)
    inside = np.flatnonzero((y >= p.lo) & (y <= p.hi))
    if not len(inside):
        return None
    i = int(inside[0])
    return Hit(
        f"{c.name} started at {fmt(float(y[0]))} (step {step_str(x[0])}) and is {fmt(float(y[i]))} by step {step_str(x[i])}, "
        f"still {fmt(float(y[-1]))} at step {step_str(x[-1])}: the level of a uniform guess over a vocabulary of "
        f"{math.exp(float(y[i])):,.0f} tokens, so the model lost what it knew",
        x[i], x[-1], numbers={"start": float(y[0]), "level": float(y[i])},
    )


@params
class RisesEveryLogParams(Params):
    """A series of epoch means that goes up at every one of its min_points or more logs and ends
    min_rise (a share of its first value) or more above where it began. An epoch's mean averages a
    whole pass over the data: a training loss that is higher after every pass is moving the wrong
    way, not bouncing with batch noise. epochs_only: only when each row is an epoch."""

    min_points: int = 5
    min_rise: float = 0.25
    epochs_only: bool = True
    # the rise is measured from the largest of the first start_points values: the first value a log prints
    # may be one batch (the first term of a running mean), and one lucky batch is no level to rise from
    start_points: int = 1
    # which way is worse: up for a loss or an error rate, down for a score (accuracy, mAP), which must then
    # fall at every log and end min_rise of its first value or more below it. An evaluation series is named
    # as evaluations: each one worse than the one before it, from the first, is the model leaving what it
    # could do at its start (for a noise-only wobble, n values in falling order have odds 1/n!)
    direction: Literal["up", "down"] = "up"
    # quiet when this training series got worse the same way over the same stretch (judged as `worsening`
    # judges, a twentieth of its best or more): a training accuracy that falls beside the held-out one is a
    # model that stopped fitting its own data (an objective that rewards something else), not one losing on
    # held-out data what it started with
    unless_train_worse: Optional[Names] = None


@check("rises_every_log", RisesEveryLogParams)
def rises_every_log(c: Ctx) -> Hit | None:
    """An epoch-level loss that rises at every epoch (or a score that falls at every evaluation)."""
    p: RisesEveryLogParams = c.params
    if p.epochs_only and not _rows_are_epochs(c.run):
        return None
    x, y = finite_xy(c.steps, c.values)
    sign = 1.0 if p.direction == "up" else -1.0
    if len(y) < p.min_points or float(y[0]) <= 0 or not bool(np.all(sign * np.diff(y) > 0)):
        return None
    rise = sign * (float(y[-1]) - float(y[0])) / float(y[0])
    start = float(np.max(y[:max(1, p.start_points)]) if sign > 0 else np.min(y[:max(1, p.start_points)]))
    if rise < p.min_rise or sign * (float(y[-1]) - start) < p.min_rise * start:
        return None
    train = c.other(p.unless_train_worse) if p.unless_train_worse else None
    if train is not None:
        tx, ty = finite_xy(train.steps, train.values)
        ty = ty[tx >= x[0]]
        if len(ty) >= 3 and _worsened(ty, p.direction, 0.05, 3.0) is not None:
            return None
    if c.name.startswith("eval/"):
        return Hit(
            f"{c.name} {'rose' if sign > 0 else 'fell'} at every one of its {len(y)} evaluations, from "
            f"{fmt(float(y[0]))} to {fmt(float(y[-1]))} ({sign * rise:+.0%}, steps {step_str(x[0])}-{step_str(x[-1])}): "
            f"each evaluation is worse than the one before it, from the first, so the training moves the model "
            f"away from what it could do when it started",
            x[0], x[-1], numbers={"rise": rise},
        )
    epochs = _rows_are_epochs(c.run)
    return Hit(
        f"{c.name} rose at every one of its {len(y)} {'epochs' if epochs else 'logs'}, from {fmt(float(y[0]))} to "
        f"{fmt(float(y[-1]))} ({rise:+.0%}, steps {step_str(x[0])}-{step_str(x[-1])}): "
        + ("each pass over the data leaves the model worse" if epochs else
           "the updates move the loss uphill from its very first value"),
        x[0], x[-1], numbers={"rise": rise},
    )


@params
class OneClassF1Params(Params):
    """F1 equal to 2a / (1 + a), a the accuracy at the same evaluation, at min_share of at least
    min_points shared evaluations, to the digits both were printed with. A binary classifier that
    calls every input positive has precision a (the positive share, which is then also its accuracy)
    and recall 1, so its F1 is 2a / (1 + a) (MRPC's 0.684 and 0.812). Accuracies outside
    [min_accuracy, max_accuracy] are left alone: near 1 a good model lands close to the same value."""

    accuracy: Names = ("eval/accuracy",)
    min_points: int = 1
    min_share: float = 1.0
    min_accuracy: float = 0.05
    max_accuracy: float = 0.9


def _units(y: np.ndarray) -> np.ndarray:
    """Half a unit of the last digit each value was printed with (0.5 for 0)."""
    return 0.5 * _tens(_printed_all(y, rel_tol=FLOAT32_REL)[1])


@check("one_class_f1", OneClassF1Params)
def one_class_f1(c: Ctx) -> Hit | None:
    """F1 and accuracy in the one relation they have when every prediction is the positive class."""
    p: OneClassF1Params = c.params
    x, y = finite_xy(c.steps, c.values)
    acc = c.other(p.accuracy)
    if acc is None or len(y) < p.min_points:
        return None
    ax, ay = finite_xy(acc.steps, acc.values)
    common, fi, ai = intersect_steps(x, ax)
    if not len(common) and len(x) == len(ax):  # (two result lines numbered apart: pair them in order)
        common, fi, ai = x, np.arange(len(x)), np.arange(len(ax))
    if len(common) < p.min_points:
        return None
    yf, af = facts.as_fraction(y), facts.as_fraction(ay)  # (scores printed in percent)
    uy, ua = _units(y), _units(ay)
    hits = []
    for i, j in zip(fi, ai):
        f, a = float(yf[i]), float(af[j])
        if not p.min_accuracy <= a <= p.max_accuracy or not 0.0 < f < 1.0:
            hits.append(False)
            continue
        # each value is known to half its last printed digit; 2a/(1+a) moves by at most 2x what a moves
        tol = float(uy[i]) * f / float(y[i]) + 2.0 * float(ua[j]) * a / float(ay[j])
        hits.append(abs(f - 2.0 * a / (1.0 + a)) <= tol)
    share = float(np.mean(hits))
    if share < p.min_share:
        return None
    f_last, a_last = float(yf[fi[-1]]), float(af[ai[-1]])
    return Hit(
        f"{c.name} {fmt(f_last)} is 2a/(1+a) for {acc.name} a = {fmt(a_last)} at {sum(hits)} of {len(hits)} "
        f"evaluation(s): precision equal to the positive share and recall 1, which is a model that calls every "
        f"input positive", common[0], common[-1], numbers={"accuracy": a_last, "f1": f_last},
    )


@params
class EverySkippedParams(Params):
    """A skipped-step counter that accounts for every optimizer step since the first, at min_points or
    more logs, while the loss scale cannot bring the skipping to an end. cumulative: the counter is a
    running total (DeepSpeed's `skipped=`, equal to `step=` when no step was ever applied); otherwise it
    counts the skips of each log interval (Megatron's `number of skipped iterations`, equal to the
    iterations since the last log). A dynamic scaler that is still calibrating halves its scale after
    every overflow (every `hysteresis` overflows), so skipping alone is its normal start; the run is
    stuck when the scale is at or under scale_floor (the scaler's minimum: halving can do no more) or
    the same at min_flat logs in a row that were all skipped (a static scale, or one that no longer
    moves: it will overflow again at the next step)."""

    cumulative: bool = True
    min_points: int = 2
    scale: Names = ("loss_scale",)
    scale_floor: float = 1.0
    min_flat: int = 3


@check("every_step_skipped", EverySkippedParams)
def every_step_skipped(c: Ctx) -> Hit | None:
    """Every optimizer step so far skipped, with a loss scale at its floor or frozen."""
    p: EverySkippedParams = c.params
    x, y = finite_xy(c.steps, c.values)
    if len(y) < p.min_points or float(x[0]) < 1:
        return None
    done = x if p.cumulative else np.diff(np.concatenate(([0.0], x)))
    if not bool(np.all(y == done)):
        return None
    s = c.other(p.scale)
    if s is None:
        return None
    sx, sy = finite_xy(s.steps, s.values)
    keep = (sx >= x[0]) & (sx <= x[-1])
    sx, sy = sx[keep], sy[keep]
    if not len(sy):
        return None
    if float(sy.min()) <= p.scale_floor:
        why = f"the loss scale is down to {fmt(float(sy.min()))}, the scaler's minimum: halving it can do no more"
    elif len(sy) >= p.min_flat and bool(np.all(sy == sy[0])):
        why = f"the loss scale stays at {fmt(float(sy[0]))} at all {len(sy)} logs: it is not backing off, so the next step overflows too"
    else:
        return None
    return Hit(
        f"{c.name} counts every optimizer step as skipped at all {len(y)} logs (steps {step_str(x[0])}-"
        f"{step_str(x[-1])}): no update has been applied yet, and {why}", x[0], x[-1],
        numbers={"skipped": float(y[-1] if p.cumulative else y.sum())},
    )


@params
class AllPositiveParams(Params):
    """This recall is exactly 1 at an evaluation where the `precision` and `accuracy` of the same
    evaluation (same step) are equal, within tol, and the accuracy below 1: with no false negatives,
    accuracy (TP+TN)/(TP+TN+FP) equals precision TP/(TP+FP) only when TN*FP = 0, so, short of a
    perfect score, TN = 0 and every example was called positive (precision and accuracy are then both
    the positives' share of the set). min_count such evaluations."""

    precision: Names = ("eval/precision",)
    accuracy: Names = ("eval/accuracy",)
    tol: float = 1e-4
    min_count: int = 2


@check("all_positive", AllPositiveParams)
def all_positive(c: Ctx) -> Hit | None:
    """A binary classifier that called every example positive at several evaluations."""
    p: AllPositiveParams = c.params
    x, y = finite_xy(c.steps, c.values)
    pr, ac = c.other(p.precision), c.other(p.accuracy)
    if pr is None or ac is None or not len(y):
        return None
    px, py = finite_xy(pr.steps, pr.values)
    ax, ay = finite_xy(ac.steps, facts.as_fraction(ac.values))
    prec = dict(zip(px.tolist(), facts.as_fraction(py).tolist()))
    acc = dict(zip(ax.tolist(), ay.tolist()))
    hits = [(s, acc[s]) for s, r in zip(x.tolist(), y.tolist())
            if r == 1.0 and s in prec and s in acc and acc[s] < 1.0 - p.tol and abs(prec[s] - acc[s]) <= p.tol]
    if len(hits) < p.min_count:
        return None
    (s0, a0), s1 = hits[0], hits[-1][0]
    return Hit(
        f"{c.name} is exactly 1 while {pr.name} equals {ac.name} ({fmt(a0)} at step {step_str(s0)}) at {len(hits)} "
        f"evaluations (steps {step_str(s0)}-{step_str(s1)}): with no positive missed, precision equals accuracy "
        f"only when no negative was called negative, so the model called every example positive and both scores "
        f"are the positives' share of the set", s0, s1, numbers={"count": len(hits), "share": a0},
    )
