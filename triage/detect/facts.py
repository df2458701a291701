"""Facts about a run that several checks need: how many classes it predicts, its accuracy as a
fraction, the noise level of a series, and one series' values at another's steps.

The number of classes C drives the arithmetic of a broken classifier (ln C at chance, 1/C
accuracy, the double-softmax floor log(1 + (C-1)/e)). It comes, most trusted first, from the
run's config (a label count), from an accuracy that sits at 1/C, or from a first loss at ln C
logged at the very start of training.
"""

from __future__ import annotations

import math
import re

import numpy as np

CLASS_KEYS = ("num_classes", "num_labels", "n_classes", "classes", "nc", "vocab_size", "CLASSES")
MAX_CLASSES = 1000  # an accuracy at 1/C only identifies small C: 1/1000 and 1/1001 are indistinguishable


def config(run) -> dict:
    return getattr(run, "config", None) or {}


def classes_from_config(run) -> tuple[int, str] | None:
    """(C, where it came from) from a label count in the run's config."""
    cfg = config(run)
    for key in ("id2label", "label2id"):  # an HF label map other than the 2-entry default names the classes
        value = cfg.get(key)
        if isinstance(value, dict) and len(value) > 2:
            return len(value), f"{len(value)} labels in {key}"
    for key in CLASS_KEYS:
        value = cfg.get(key)
        try:
            n = int(value)  # type: ignore[arg-type]  # None and odd types are the TypeError below
        except (TypeError, ValueError):
            continue
        if n >= 2:
            return n, f"{key}={n} in the config"
    for key in ("id2label", "label2id"):
        value = cfg.get(key)
        if isinstance(value, dict) and len(value) >= 2:
            return len(value), f"{len(value)} labels in {key}"
    return None


def as_fraction(values: np.ndarray) -> np.ndarray:
    """An accuracy-like series as a fraction: a series logged in percent (values above 1, none
    above 100) is divided by 100."""
    fin = values[np.isfinite(values)]
    if len(fin) and float(fin.max()) > 1.0 and float(fin.max()) <= 100.0 and float(fin.min()) >= 0.0:
        return values / 100.0
    return values


def chance_classes(acc: float, rel_tol: float = 0.1) -> int | None:
    """The C for which `acc` (a fraction) is chance, 1/C, within rel_tol; None if there is none."""
    if not (0.0 < acc < 1.0):
        return None
    c = int(round(1.0 / acc))
    if c < 2 or c > MAX_CLASSES:
        return None
    return c if abs(acc * c - 1.0) <= rel_tol else None


def chance_classes_by_loss(acc: float, loss: float, rel_tol: float = 0.1) -> int | None:
    """The C whose chance level 1/C `acc` sits at (within rel_tol) and whose ln C is nearest the
    loss: an accuracy at chance on an eval set that is not quite balanced sits at one class's share
    (10.6% for ten classes reads as 1/9), and the loss at ln C tells the neighbours apart."""
    base = chance_classes(acc, rel_tol)
    if base is None or not math.isfinite(loss):
        return base
    near = [c for c in (base - 1, base, base + 1) if 2 <= c <= MAX_CLASSES and abs(acc * c - 1.0) <= rel_tol]
    return min(near, key=lambda c: abs(math.log(c) - loss))


def _first_finite(a: np.ndarray) -> int | None:
    """Index of the first finite entry (looks at the head first: a long series rarely starts with NaN)."""
    head = np.flatnonzero(np.isfinite(a[:64]))
    if len(head):
        return int(head[0])
    rest = np.flatnonzero(np.isfinite(a))
    return int(rest[0]) if len(rest) else None


def begins_at_start(steps: np.ndarray, share: float = 0.01, gaps: float = 0.0) -> bool:
    """Whether a log begins at the start of training: its first step is 0 or 1, within the first
    `share` of the steps it covers, or within `gaps` logging intervals of step 0 (the first log
    after the start). An excerpt that begins at step 2,990 of a run has no start to judge."""
    finite = np.isfinite(steps)
    fin = steps if finite.all() else steps[finite]
    if not len(fin):
        return False
    first, last = float(fin[0]), float(fin[-1])
    if first <= max(1.0, share * last):
        return True
    if gaps <= 0:
        return False
    gap = float(np.median(np.diff(fin))) if len(fin) > 2 else last - first
    return first <= gaps * max(gap, 0.0)


# A log line saying the weights came from a checkpoint of a run (a resume, a continued run), not
# from initialisation. `from_pretrained`'s "Loading checkpoint shards" is a model download, not
# this: a fine-tune still starts its own training at its first step.
_FROM_CHECKPOINT = re.compile(
    r"\b[Rr]esum(?:ing|ed) (?:from|training)|resume_from_checkpoint|[Ll]oading checkpoint from"
    r"|[Cc]ontinuing training from checkpoint|Restoring states from the checkpoint|[Rr]estored from checkpoint")


def resumed_from_checkpoint(run, first_step: float) -> bool:
    """Whether the log says its training went on from a checkpoint before (or where) its first
    point was logged: its first values are those of a trained model, not of one at init."""
    for e in getattr(run, "events", None) or ():
        if e.kind == "info" and _FROM_CHECKPOINT.search(e.text) and (e.step is None or e.step <= first_step):
            return True
    return False


def started_at_init(steps: np.ndarray) -> bool:
    """Whether a series' first point was logged at the very start of training (step 0 or 1,
    or the first 1% of the steps it covers): only then is its first value the loss at init."""
    return begins_at_start(steps, 0.01)


def classes_from_first_loss(steps: np.ndarray, values: np.ndarray, at_most: bool = False) -> int | None:
    """C = exp(first loss), when the first loss was logged at init (a fresh classifier's
    cross-entropy is ln C). `at_most`: the largest C whose ln C the first loss reaches (within 0.02 of
    batch noise), not the nearest: at init the expected cross-entropy is never below ln C (the log-sum-exp
    is convex, so logits spread around a common mean only add to ln C), so a first loss of 1.53 is no
    fresh five-class model (ln 5 = 1.61): it is one that learned already, or is no classifier."""
    i = _first_finite(values)
    if i is None or not started_at_init(steps[i:]):
        return None
    first = float(values[i])
    if not (0.5 < first < 13.0):  # ln 2 ... ln 4e5: the class counts and vocabularies that exist
        return None
    return int(math.exp(first + 0.02)) if at_most else int(round(math.exp(first)))


def classes_from_loss_level(y: np.ndarray, tol: float, max_classes: int, vocab: tuple[int, ...] = (),
                            batch_noise: float = 0.0) -> int | None:
    """The small C (or the listed vocabulary size V) whose ln every value of `y` sits within `tol`
    of, or None. A loss computed in half precision lands on a grid (at 8.3 its steps are 0.008
    apart): where the values' own spacing is coarser than `tol`, a value one step off ln C is still
    ln C, so the tolerance widens to that spacing (at most 2 tol). batch_noise (small C, or a listed
    size): a per-batch loss whose median sits within `tol` of ln C and nine points in ten within
    batch_noise of it is a model near the uniform guess whose small leanings score each batch a little
    differently (2.289 to 2.311 around ln 10, 4.594 to 4.626 around ln 100), judged on ten points or
    more; the levels ln 2 .. ln 10 lie 0.1 or more apart, and a listed size is one the task names."""
    mid = float(np.median(y))
    steps = np.diff(np.unique(y))
    grid = float(steps.min()) if len(steps) else 0.0
    width = min(max(tol, grid), 2.0 * tol)

    def at(level: float) -> bool:
        return abs(mid - level) <= tol and bool(np.all(np.abs(y - level) <= width))

    def near_noisy(level: float) -> bool:
        # (ten points at least: a scatter is judged from enough of it)
        return batch_noise > 0 and len(y) >= 10 and abs(mid - level) <= tol \
            and float(np.mean(np.abs(y - level) <= batch_noise)) >= 0.9

    if 0.0 < mid < math.log(max_classes) + 0.5:
        c = int(round(math.exp(mid)))
        if 2 <= c <= max_classes and (at(math.log(c)) or near_noisy(math.log(c))):
            return c
    near = sorted(vocab, key=lambda v: abs(math.log(v) - mid))
    if near and (at(math.log(near[0])) or near_noisy(math.log(near[0]))):
        return near[0]
    return None


# Series that only a model scored per token logs: a count of tokens, a token accuracy, a perplexity.
TOKEN_SERIES = ("tokens_seen", "token_accuracy", "eval/token_accuracy", "perplexity", "eval/perplexity")


def scores_tokens(run) -> str | None:
    """The first series of TOKEN_SERIES the run logs: its loss is a next-token cross-entropy over a
    vocabulary, so its first value is the text's entropy under a pretrained model (2.1 for a chat model
    on new data), not ln C of a label set, and no class count can be read from it."""
    series = getattr(run, "series", None) or {}
    return next((name for name in TOKEN_SERIES if name in series), None)


def prints_full_precision(run) -> bool:
    """Whether the log writes its numbers to every digit of a double (a CSV or JSON written from Python
    floats: `0.4090909090909091`): then a short value such as `0.5` is that value exactly, not a rounded
    print. Any value with 12 or more significant digits says so."""
    from triage.ingest.run import full_precision

    return any(full_precision(float(v)) for s in getattr(run, "series", {}).values()
               for v in np.asarray(s.values, dtype=float)[:64])


def noise(y: np.ndarray, moving_only: bool = False) -> float:
    """A robust estimate of a series' point-to-point noise (its standard deviation around the
    local level): the median absolute first difference, scaled for a normal distribution. A
    trend moves every difference a little and hardly changes the median. moving_only: the
    differences that are not 0 (a series that mostly repeats its last value: the size of its
    moves when it moves); 0 when it never moves."""
    if len(y) < 3:
        return 0.0
    d = np.abs(np.diff(y))
    if moving_only:
        d = d[d > 0]
        if not len(d):
            return 0.0
    return float(1.4826 * np.median(d) / math.sqrt(2.0))


def trend_noise(y: np.ndarray) -> float:
    """Point-to-point noise that a steady trend does not inflate: from second differences
    (a straight line has none), scaled so that white noise of deviation s gives s."""
    if len(y) < 3:
        return 0.0
    d2 = np.abs(np.diff(y, 2))
    return float(1.4826 * np.median(d2) / math.sqrt(6.0))


def at_steps(xs: np.ndarray, ys: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """The value of the series (xs, ys) at each of `steps`: its last finite point at or before
    that step (NaN where it has none yet)."""
    fin = np.isfinite(ys) & np.isfinite(xs)
    xs, ys = xs[fin], ys[fin]
    out = np.full(len(steps), np.nan)
    if not len(xs):
        return out
    if len(xs) > 1 and not (np.diff(xs) >= 0).all():
        order = np.argsort(xs, kind="stable")
        xs, ys = xs[order], ys[order]
    idx = np.searchsorted(xs, steps, side="right") - 1
    ok = idx >= 0
    out[ok] = ys[idx[ok]]
    return out


__all__ = ["as_fraction", "at_steps", "begins_at_start", "chance_classes", "classes_from_config", "classes_from_first_loss",
           "config", "noise", "scores_tokens", "started_at_init", "trend_noise"]
