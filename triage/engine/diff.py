"""`triage diff GOOD BAD`: where a broken run parts from the last good one, and why.

1. **Align.** Every metric both runs log is compared on the steps both logged (BAD is
   interpolated onto GOOD's steps when they log at different steps).
2. **Each run's own noise.** A point's noise is its distance from the run's local trend (a
   rolling median); the local noise level is the median of those distances over a wider window
   (x 1.4826, a standard deviation for Gaussian noise). A deterministic series (an LR schedule)
   has no noise, so any real difference in it shows.
3. **Parting.** The two curves are smoothed (rolling medians over `w` points, so a single spike
   never counts). They part where their difference is, for `w` points in a row, both beyond
   `PART_Z` standard errors of that difference (from the two runs' pooled local noise) and
   larger than a tenth of how far GOOD's curve moves over the run (a rerun with another seed
   lands a few percent of that away; a series too short to show its noise needs a quarter).
   The parting is dated back to where that separation began (`_onset`). A value that turns
   NaN/inf in one run while the other is finite parts at once. The first-parting metric is the
   one that parts at the earliest step (ties: the larger distance in standard errors).
4. **Config.** The configs found beside the logs (triage.ingest.sidecar, flattened) are compared
   key by key; each changed key is placed through the knowledge: a question whose `config`
   rules read it (gradient accumulation, clipping, precision), a framework setting that lists it
   (knowledge/frameworks.yaml: warmup, learning rate, ...), causes whose fix names it, or
   bookkeeping (names, folders, logging) and the seed, which change nothing in the maths.
5. **Causes.** BAD is diagnosed as `scan` would (detectors, error text, framework, config), and the
   change is added as evidence: the question it answers takes BAD's value, and the causes the
   knowledge ties to the changed key get a likelihood ratio (`W_*`), so the ranking reads
   "gradient accumulation went from 1 to 8 and grad_norm parted first at step 40: O9".
6. **Gate** (`--tolerance`): BAD regresses past GOOD when, over any window of `window` points,
   its mean is worse than GOOD's by more than `abs + rel * |GOOD|` (numpy.isclose's rule,
   one-sided: better is never a failure), or it turns non-finite where GOOD is finite.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from triage.errors import TriageError

PART_Z = 3.0  # the smoothed curves must sit this many standard errors apart ...
MIN_WINDOW, MAX_WINDOW = 3, 25  # ... for `w` points in a row; w grows with the run's length
MEDIAN_SE = 1.2533  # standard error of a median of w Gaussian points: 1.2533 sigma / sqrt(w)
RANGE_FRAC = 0.1  # ... and at least 10% of how far GOOD's smoothed curve moves during the run
REL_FLOOR = 1e-3  # differences below 0.1% of the level never count (printing precision, float noise)
# A series of fewer points than this cannot show its own noise (an eval on a fixed set draws a smooth
# curve, while a rerun with another seed lands a few percent of its travel away), so it must part by
# a quarter of how far it moves.
MIN_NOISE_POINTS = 30
SHORT_RANGE_FRAC = 0.25
MIN_POINTS = 5  # fewer aligned points than this: the metric is listed, not judged
MAX_POINTS = 5000  # longer series are binned (median per bin) before comparing: same answer, bounded cost

# Likelihood ratios for causes the knowledge ties to a changed config key (the engine's error-text
# match is 40). Ordered by how directly the knowledge says it: a cause that requires or names the
# question's new answer; a cause whose title names the setting and the way it moved; a cause whose
# fix is the framework setting that key sets; a cause whose fix merely mentions the key; and a
# small nudge for causes whose symptoms name the metric that parted first. A cause whose title
# says the opposite direction ("too low" when the value rose) gets W_AGAINST instead.
W_QUESTION = 12.0
W_SETTING = 6.0
W_KNOB = 3.0
W_METRIC = 2.0
W_TITLE = 8.0  # the cause's title names the setting and the way it moved ("learning rate too high")
W_AGAINST = 0.5

# Series that say how fast or where a run went, not how it learned: hardware, clocks, counters.
NOT_DYNAMICS = frozenset({
    "epoch", "throughput", "tflops", "mfu", "step_time", "memory", "memory_active", "memory_reserved",
    "memory_allocated", "tokens_seen", "runtime", "samples_per_second", "steps_per_second", "total_flos",
    "train_runtime", "train_samples_per_second", "train_steps_per_second", "eval/runtime",
    "eval/samples_per_second", "eval/steps_per_second", "num_input_tokens_seen", "skipped_iterations",
    "nan_iterations",
})
NOT_DYNAMICS_PREFIXES = ("memory", "perf/", "time/", "system/", "gpu", "timing", "throughput")

# Config keys that name, place or log a run and never change what it computes: by their last word
# (output_dir, report_to), their first word (save_steps, logging_steps, eval_steps, log_interval) or
# as the run's own name or id (run_name). A key about the model, the data or the tokenizer is never
# bookkeeping, whatever its words (model_name_or_path, data_path, dataset_name).
BOOKKEEPING = re.compile(
    r"(^|_)(dir|path|file|project|entity|tags?|notes|group|uuid|url|host|port|user|report_to|hub|push|token|"
    r"wandb|mlflow|tensorboard|logging|logger|save|checkpoint|ckpt|num_workers|workers|pin_memory|prefetch|"
    r"persistent|timestamp|date|version|commit|git|overwrite|tqdm|verbose|debug|device|local_rank|rank|"
    r"world_size|nproc|nnodes|node_rank|master|backend)$"
    r"|^(save|logging|log|eval|evaluation|report|push|hub|wandb|mlflow|output|dataloader|disable)_"
    r"|^(run|exp|experiment|project|job|wandb)_?(name|id)$"
)
NEVER_BOOKKEEPING = re.compile(r"model|tokeni[sz]er|dataset|(^|_)data(_|$)|vocab|train_file|validation_file|resume")
SEED = re.compile(r"(^|_)(seed|data_seed|random_state)$")

# A cause whose title says which way its setting is wrong: "too high" causes follow a rise, "too
# low" / "missing" / "no" causes follow a fall.
TOO_HIGH = re.compile(r"too (high|large|big|many|long|aggressive)\b", re.I)
TOO_LOW = re.compile(r"too (low|small|few|short)\b|missing\b", re.I)
SMALL_WORDS = {"steps", "step", "max", "min", "num", "use", "enable", "per", "device", "train", "size", "value",
               "type", "rate", "ratio", "iters", "n", "is"}

# Metrics whose direction says which way is worse (for the gate).
LOWER_BETTER = re.compile(r"(loss|perplexity|ppl|error|wer|cer|nll|mse|mae|rmse|fid|bpb|bpc)(\b|_|/|$)", re.I)
HIGHER_BETTER = re.compile(r"(accuracy|acc|map|map50|f1|bleu|rouge|reward|precision|recall|iou|miou|auc|"
                           r"success|return|score)(\b|_|/|$)", re.I)


class DiffError(TriageError):
    """A user-facing problem with the inputs of `diff` (one line, exit code 2)."""


# -- series arithmetic ---------------------------------------------------------------------------
def rolling_median(values: np.ndarray, w: int) -> np.ndarray:
    """Centered rolling median over `w` points (the window shrinks at the ends)."""
    n = len(values)
    if n == 0 or w <= 1:
        return values.astype(float).copy()
    half = w // 2
    padded = np.concatenate([np.full(half, np.nan), values.astype(float), np.full(w - 1 - half, np.nan)])
    view = np.lib.stride_tricks.sliding_window_view(padded, w)
    return np.nanmedian(view, axis=1)


def local_noise(values: np.ndarray, w: int) -> np.ndarray:
    """Each point's local noise level: 1.4826 x the median distance from the rolling median over
    a window three times wider. A run's noise changes along it (a loss gets quieter as it falls)."""
    resid = np.abs(values - rolling_median(values, w))
    return 1.4826 * rolling_median(resid, 3 * w)


def window_for(n: int) -> int:
    """The smoothing window: about 1/20 of the points, between 3 and 25, odd."""
    w = int(min(MAX_WINDOW, max(MIN_WINDOW, n // 20)))
    return w if w % 2 else w + 1


@dataclass
class Aligned:
    steps: np.ndarray
    good: np.ndarray
    bad: np.ndarray
    interpolated: bool = False


def _clean(series) -> tuple[np.ndarray, np.ndarray]:
    """Steps and values with unknown steps dropped and a repeated step keeping its last value
    (a resumed run logs some steps twice)."""
    steps, values = series.steps, series.values
    keep = np.isfinite(steps)
    steps, values = steps[keep], values[keep]
    if len(steps) == 0:
        return steps, values
    order = np.argsort(steps, kind="stable")
    steps, values = steps[order], values[order]
    last = np.r_[steps[1:] != steps[:-1], True]
    return steps[last], values[last]


def align(good, bad) -> Aligned | None:
    """The two series on shared steps: the steps both logged when nearly all agree, else BAD
    interpolated onto GOOD's steps inside the range both cover (finite points only)."""
    gs, gv = _clean(good)
    bs, bv = _clean(bad)
    if len(gs) == 0 or len(bs) == 0:
        return None
    if len(gs) == len(bs) and np.array_equal(gs, bs):  # the usual case: both logged the same steps
        return Aligned(gs, gv, bv)
    common, gi, bi = np.intersect1d(gs, bs, return_indices=True)
    if len(common) >= 0.9 * min(len(gs), len(bs)):
        return Aligned(common, gv[gi], bv[bi])
    lo, hi = max(gs[0], bs[0]), min(gs[-1], bs[-1])
    inside = (gs >= lo) & (gs <= hi)
    fin = np.isfinite(bv)
    if inside.sum() < 2 or fin.sum() < 2:
        return None
    steps = gs[inside]
    interp = np.interp(steps, bs[fin], bv[fin])
    # a non-finite BAD point stays visible at the GOOD step nearest to it
    for s in bs[~fin]:
        if lo <= s <= hi:
            interp[int(np.argmin(np.abs(steps - s)))] = np.nan
    return Aligned(steps, gv[inside], interp, interpolated=True)


def _binned(al: Aligned, limit: int = MAX_POINTS) -> Aligned:
    """Very long series binned to at most `limit` points: the median of each run of k points,
    NaN where a bin holds a non-finite value (so a NaN is never averaged away)."""
    n = len(al.steps)
    if n <= limit:
        return al
    k = -(-n // limit)
    bins = -(-n // k)
    pad = bins * k - n

    def agg(v: np.ndarray) -> np.ndarray:
        padded = np.concatenate([v, np.full(pad, np.nan)]).reshape(bins, k)
        nonfinite = np.concatenate([~np.isfinite(v), np.zeros(pad, dtype=bool)]).reshape(bins, k).any(axis=1)
        with np.errstate(all="ignore"):
            out = np.nanmedian(np.where(np.isfinite(padded), padded, np.nan), axis=1)
        out[nonfinite] = np.nan
        return out

    return Aligned(al.steps[::k], agg(al.good), agg(al.bad), al.interpolated)


# -- parting -------------------------------------------------------------------------------------
@dataclass
class MetricDiff:
    """One metric compared: where (and whether) BAD parted from GOOD."""

    metric: str
    points: int
    window: int = 0
    parted: bool = False
    step: float | None = None  # the first step of the sustained difference
    direction: str = ""  # "higher" | "lower" | "non-finite": BAD compared with GOOD
    good: float | None = None  # smoothed GOOD value at the parting step
    bad: float | None = None
    ratio: float | None = None  # bad / good at the parting step (positive metrics)
    z: float | None = None  # |difference| in pooled noise units at the parting step
    noise_good: float | None = None  # typical local noise of each run (median over the run)
    noise_bad: float | None = None
    note: str = ""
    interpolated: bool = False

    def to_dict(self) -> dict:
        return {
            "metric": self.metric, "points": self.points, "window": self.window, "parted": self.parted,
            "step": _num(self.step), "direction": self.direction or None, "good": _num(self.good),
            "bad": _num(self.bad), "ratio": _num(self.ratio), "z": _num(self.z, 2),
            "noise_good": _num(self.noise_good), "noise_bad": _num(self.noise_bad),
            **({"note": self.note} if self.note else {}),
            **({"interpolated": True} if self.interpolated else {}),
        }


def _num(x, digits: int = 6):
    if x is None:
        return None
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x.is_integer() and abs(x) < 2**53:
        return int(x)
    return float(f"{x:.{digits}g}")


def _first_sustained(mask: np.ndarray, length: int) -> int | None:
    """Index of the first run of `length` True values in a row."""
    if length <= 1:
        idx = np.flatnonzero(mask)
        return int(idx[0]) if len(idx) else None
    count = 0
    for i, m in enumerate(mask):
        count = count + 1 if m else 0
        if count >= length:
            return i - length + 1
    return None


def _travel(smoothed: np.ndarray) -> float:
    """How far a metric moves during GOOD's run: the spread (5th to 95th percentile) of its
    smoothed curve. Runs of one config with different seeds end up a small part of that apart."""
    fin = smoothed[np.isfinite(smoothed)]
    if len(fin) == 0:
        return 0.0
    lo, hi = np.percentile(fin, [5, 95])
    return float(hi - lo)


def _onset(start: int, length: int, diff: np.ndarray, floor: np.ndarray, raw: np.ndarray) -> int:
    """Where a parting that is certain from `start` on began: back over the stretch before it
    in which the smoothed curves were already apart by more than the floor on the same side
    (significance needs a few points; the separation started earlier), then forward to the
    first point whose own values are apart on that side (a median over a window shrinking at
    the edge of a sparse series can borrow the next point's jump)."""
    side = np.sign(diff[start])
    i = start
    while i > 0 and np.sign(diff[i - 1]) == side and abs(diff[i - 1]) > floor[i - 1]:
        i -= 1
    for j in range(i, min(start + length, len(raw))):
        if np.sign(raw[j]) == side and abs(raw[j]) > floor[j]:
            return j
    return i


def compare_metric(name: str, good, bad) -> MetricDiff:
    """Where BAD's `name` parts from GOOD's beyond both runs' own noise (see the module doc)."""
    al = align(good, bad)
    if al is None or len(al.steps) < MIN_POINTS:
        return MetricDiff(name, 0 if al is None else len(al.steps), note="too few shared steps to compare")
    al = _binned(al)
    n = len(al.steps)
    w = window_for(n)
    out = MetricDiff(name, n, window=w, interpolated=al.interpolated)
    gfin, bfin = np.isfinite(al.good), np.isfinite(al.bad)
    both = gfin & bfin
    # a value that turns NaN/inf in one run only parts the runs at that step
    nonfinite_at = None
    lone = np.flatnonzero(gfin != bfin)
    if len(lone):
        nonfinite_at = int(lone[0])
    if both.sum() >= MIN_POINTS:
        idx = np.flatnonzero(both)
        g, b = al.good[idx], al.bad[idx]
        sg, sb = rolling_median(g, w), rolling_median(b, w)
        ng, nb = local_noise(g, w), local_noise(b, w)
        gap = np.abs(sb - sg)
        level = np.maximum(np.abs(sg), np.abs(sb))
        se = MEDIAN_SE * np.sqrt(ng**2 + nb**2) / math.sqrt(w)  # noise of the smoothed difference
        z = gap / np.maximum(se, np.maximum(REL_FLOOR * level, np.finfo(float).tiny))
        frac = RANGE_FRAC if len(g) >= MIN_NOISE_POINTS else SHORT_RANGE_FRAC
        floor = np.maximum(REL_FLOOR * level, frac * _travel(sg))
        if len(g) >= MIN_NOISE_POINTS:  # a shorter series cannot show its own noise
            out.noise_good, out.noise_bad = float(np.median(ng)), float(np.median(nb))
        start = _first_sustained((z > PART_Z) & (gap > floor), min(w, len(z)))
        if start is not None:
            start = _onset(start, min(w, len(z)), sb - sg, floor, b - g)
        if start is not None and (nonfinite_at is None or idx[start] < nonfinite_at):
            out.parted = True
            out.step = float(al.steps[idx[start]])
            out.good, out.bad = float(sg[start]), float(sb[start])
            out.direction = "higher" if sb[start] > sg[start] else "lower"
            out.z = float(z[start])
            if sg[start] > 0 and sb[start] > 0:
                out.ratio = float(sb[start] / sg[start])
            return out
    if nonfinite_at is not None:
        out.parted = True
        out.step = float(al.steps[nonfinite_at])
        out.good, out.bad = float(al.good[nonfinite_at]), float(al.bad[nonfinite_at])
        out.direction = "non-finite" if not bfin[nonfinite_at] else "finite"
        out.z = math.inf
        if out.direction == "finite":
            out.note = "GOOD is non-finite here while BAD is finite"
    elif both.sum() < MIN_POINTS:
        out.note = "too few finite shared points to compare"
    return out


def is_dynamics(name: str) -> bool:
    """A series about how the model trains, as opposed to clocks, memory and counters."""
    low = name.lower()
    base = low.rsplit("/", 1)[-1]
    return (low not in NOT_DYNAMICS and base not in NOT_DYNAMICS
            and not low.startswith(NOT_DYNAMICS_PREFIXES) and not base.startswith(NOT_DYNAMICS_PREFIXES))


def compare_runs(good, bad) -> tuple[list[MetricDiff], list[str], list[str]]:
    """Every shared training metric compared, first-parting first; and the metrics only one run has."""
    shared = sorted(set(good.series) & set(bad.series))
    diffs = [compare_metric(m, good.series[m], bad.series[m]) for m in shared if is_dynamics(m)]
    diffs.sort(key=_order)
    only_good = sorted(m for m in set(good.series) - set(bad.series) if is_dynamics(m))
    only_bad = sorted(m for m in set(bad.series) - set(good.series) if is_dynamics(m))
    return diffs, only_good, only_bad


def _order(d: MetricDiff):
    if not d.parted:
        return (1, math.inf, 0.0, d.metric)
    return (0, d.step, -(d.z if d.z is not None else 0.0), d.metric)


# -- config --------------------------------------------------------------------------------------
@dataclass
class ConfigChange:
    key: str
    good: object
    bad: object
    role: str = "other"  # question | setting | knob | seed | bookkeeping | other
    question: str | None = None
    answers: tuple[str | None, str | None] = (None, None)  # (GOOD's, BAD's) answer to `question`
    setting: str | None = None  # a framework setting (knowledge/frameworks.yaml)
    setting_title: str | None = None
    causes: dict[str, float] = field(default_factory=dict)  # cause id -> likelihood ratio
    why: dict[str, str] = field(default_factory=dict)  # cause id -> how the knowledge ties it to this key

    def link(self, cause: str, weight: float, why: str, force: bool = False) -> None:
        """Tie a cause to this change, keeping the strongest tie (or this one when `force`)."""
        if force or weight > self.causes.get(cause, 0.0):
            self.causes[cause] = weight
            self.why[cause] = why
    score: float = 0.0

    @property
    def direction(self) -> str:
        a, b = _as_float(self.good), _as_float(self.bad)
        if a is None or b is None or a == b:
            return ""
        return "up" if b > a else "down"

    def sentence(self) -> str:
        return f"{self.key} went from {_show(self.good)} to {_show(self.bad)}"

    def to_dict(self) -> dict:
        out = {"key": self.key, "good": _plain(self.good), "bad": _plain(self.bad), "role": self.role,
               "score": round(self.score, 3)}
        if self.question:
            out["question"] = self.question
            out["answers"] = {"good": self.answers[0], "bad": self.answers[1]}
        if self.setting:
            out["setting"] = self.setting
        if self.causes:
            out["causes"] = sorted(self.causes, key=lambda c: (-self.causes[c], c))[:8]
        return out


MISSING = "<unset>"


def _plain(v):
    if v is MISSING:
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v


def _show(v) -> str:
    if v is MISSING:
        return "unset"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _as_float(v) -> float | None:
    if isinstance(v, bool) or v is None or v is MISSING:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def same_value(a, b) -> bool:
    """Config values equal as a person would read them: 1 == 1.0, True == "true", None == "null"."""
    if a is MISSING or b is MISSING:
        return a is b
    fa, fb = _as_float(a), _as_float(b)
    if fa is not None and fb is not None:
        return math.isclose(fa, fb, rel_tol=1e-12, abs_tol=0.0)

    def norm(v):
        if v is None:
            return "none"
        if isinstance(v, bool):
            return "true" if v else "false"
        s = str(v).strip().lower()
        return {"null": "none", "~": "none", "yes": "true", "no": "false"}.get(s, s)

    return norm(a) == norm(b)


def config_changes(good: dict, bad: dict) -> list[ConfigChange]:
    """Keys whose values differ between the two flattened configs (a key one config lacks counts)."""
    out = []
    for key in sorted(set(good) | set(bad)):
        a, b = good.get(key, MISSING), bad.get(key, MISSING)
        if isinstance(a, dict) or isinstance(b, dict):
            if a != b:
                out.append(ConfigChange(key, "{...}", "{...} (changed)"))
            continue
        if not same_value(a, b):
            out.append(ConfigChange(key, a, b))
    return out


def _metric_name(kb, key: str) -> str | None:
    """The canonical metric a config key names (`lr` is `learning_rate`), when it names one."""
    from triage.ingest.aliases import table

    try:
        hit = table().resolve(key)
    except Exception:  # an alias table problem never breaks a diff
        return None
    return hit.name if hit.known and hit.name != key else None


def _words_for(key: str, canonical: str | None) -> set[str]:
    words = set()
    for k in filter(None, (key, canonical)):
        words |= {w for w in re.split(r"[^a-z0-9]+", k.lower()) if w and w not in SMALL_WORDS}
    return words


def _mentions(text: str, names: list[str]) -> bool:
    for name in names:
        pattern = re.escape(name).replace("_", "[_ ]")
        if re.search(rf"(?<![A-Za-z0-9_]){pattern}(?![A-Za-z0-9_])", text, re.I):
            return True
    return False


def title_direction(title: str, words: set[str]) -> str:
    """"up" when the title says the setting it names is too high ("Learning rate too high"),
    "down" when too low or missing ("Warmup missing or too short", "No gradient clipping"), else ""."""
    for w in words:
        concept = rf"\b{re.escape(w)}\w*"
        if re.search(concept + r"[\w\s-]{0,20}?\b" + TOO_HIGH.pattern, title, re.I):
            return "up"
        if re.search(concept + r"[\w\s-]{0,20}?(" + TOO_LOW.pattern + ")", title, re.I) or \
                re.search(r"^(no|without)\s+(\w+\s+){0,2}?" + concept, title, re.I):
            return "down"
    return ""


def classify(kb, changes: list[ConfigChange], good_cfg: dict, bad_cfg: dict) -> None:
    """Place each changed key through the knowledge and fill its causes with likelihood ratios."""
    from triage.engine.evidence import config_answer, config_rules
    from triage.engine.frameworks import framework_table
    from triage.kb.base import _as_list

    rules = config_rules(kb)
    settings: dict[str, tuple[str, str]] = {}  # config key -> (setting name, its title)
    table = framework_table(kb)
    for fw in table.frameworks:
        for name, setting in fw.settings.items():
            for k in setting.keys:
                settings.setdefault(str(k), (name, str(table.setting_titles.get(name) or name)))
    causes = list(kb.causes)
    for ch in changes:
        key = ch.key
        if SEED.search(key.lower()):
            ch.role, ch.score = "seed", 0.2
            continue
        if BOOKKEEPING.search(key.lower()) and not NEVER_BOOKKEEPING.search(key.lower()):
            ch.role, ch.score = "bookkeeping", 0.0
            continue
        score = 0.5
        # 1. a question whose config rules read this key
        for qid, qrules in rules.items():
            keys = {str(k) for r in qrules if isinstance(r, dict) for k in (r.get("keys") or [])}
            if key not in keys:
                continue
            g = config_answer(qrules, {key: good_cfg[key]}) if key in good_cfg else None
            b = config_answer(qrules, {key: bad_cfg[key]}) if key in bad_cfg else None
            ch.role, ch.question = "question", qid
            ch.answers = (g[0] if g else None, b[0] if b else None)
            score = max(score, 3.0 if ch.answers[0] != ch.answers[1] else 2.0)
            new = ch.answers[1]
            if new is not None:
                for c in causes:
                    named = kb.signs(c).get(qid, set()) | {str(v) for v in _as_list((c.get("requires") or {}).get(qid))}
                    if new in named:
                        ch.link(c.id, W_QUESTION, f"the cause needs “{kb[qid].title}” = {new}, which this change sets")
            break
        # 2. a framework setting that lists this key
        if key in settings:
            name, title = settings[key]
            ch.setting, ch.setting_title = name, title
            if ch.role == "other":
                ch.role = "setting"
            fixed_by = [c for c in causes
                        if any(isinstance(f, dict) and f.get("setting") == name for f in _as_list(c.get("fix")))]
            for c in fixed_by:
                ch.link(c.id, W_SETTING, f"the cause's fix is the {title} setting")
        # 3. causes whose fix names the key (or the metric it sets: `lr` is the learning rate)
        canonical = _metric_name(kb, key)
        names = [key] + ([canonical] if canonical else [])
        for c in causes:
            text = " ".join(f"{f.get('knob', '')} {f.get('range', '')}" for f in _as_list(c.get("fix")) if isinstance(f, dict))
            if _mentions(text, names):
                ch.link(c.id, W_KNOB, f"the cause's fix names {key}")
                if ch.role == "other":
                    ch.role = "knob"
                score = max(score, 1.0)
        if ch.setting:  # a setting no cause is tied to (how the loss is logged) is a weaker suspect
            score = max(score, 2.0 if ch.causes else 1.0)
        # a cause whose title says which way this setting is wrong: "learning rate too high" after
        # the LR rose is named by the change itself; the same title after a fall is less likely
        words = _words_for(key, canonical)
        if ch.direction and words:
            for c in causes:
                said = title_direction(str(c.title), words)
                if not said or ch.causes.get(c.id) == W_QUESTION:
                    continue
                way = {"up": "too high", "down": "too low or missing"}
                if said == ch.direction:
                    ch.link(c.id, W_TITLE, f"the cause is this setting being {way[said]}, and it went {said}")
                elif c.id in ch.causes:
                    ch.link(c.id, W_AGAINST, f"the cause is this setting being {way[said]}, but it went "
                                             f"{ch.direction}", force=True)
        ch.score = score


# -- causes --------------------------------------------------------------------------------------
def diagnose(kb, bad_run, changes: list[ConfigChange], first: MetricDiff | None):
    """BAD diagnosed as `scan` does, with the config change and the parting as evidence.
    Returns (diagnosis, applied)."""
    from triage.detect import run_detectors
    from triage.engine.diagnosis import Diagnosis
    from triage.engine.evidence import Applied, apply_config, apply_findings, apply_text, infer_domain
    from triage.kb.base import _as_list
    from triage.kb.search import SearchIndex

    diag = Diagnosis(kb)
    applied = Applied()
    findings = run_detectors(bad_run, kb)
    lines = [(e.line, e.text) for e in bad_run.events if e.kind in ("traceback", "error", "warning")]
    apply_text(diag, SearchIndex(kb), lines, applied)
    apply_findings(diag, findings, applied)
    infer_domain(diag, bad_run, applied)
    apply_config(diag, bad_run, applied)
    for ch in changes:
        if ch.question and ch.answers[1] is not None and ch.answers[1] in diag.model.values.get(ch.question, ()):
            diag.answer(ch.question, ch.answers[1], "config", f"{ch.sentence()} (GOOD → BAD)")
        for cid, weight in ch.causes.items():
            diag.add_text(cid, weight, f"{ch.sentence()} between GOOD and BAD: {ch.why[cid]}", "diff")
    if first is not None and first.parted and any(ch.causes for ch in changes):
        names = [first.metric, first.metric.replace("_", " ")]
        linked = {cid for ch in changes for cid in ch.causes}
        for cid in linked:
            symptoms = " ".join(str(s) for s in _as_list(kb[cid].get("symptoms")))
            if _mentions(symptoms, names):
                diag.add_text(cid, W_METRIC, f"{first.metric} parted first, and the cause names it among its symptoms", "diff")
    return diag, applied


def rank_changes(changes: list[ConfigChange], top_cause: str | None) -> list[ConfigChange]:
    """Changed keys, the one most likely to explain the parting first: its place in the
    knowledge, then whether it points at the top-ranked cause."""
    def key(ch: ConfigChange):
        to_top = 1.0 if top_cause and top_cause in ch.causes and ch.causes[top_cause] > 1 else 0.0
        return (-(ch.score + to_top), ch.key)

    return sorted(changes, key=key)


# -- the whole diff ------------------------------------------------------------------------------
def headline(first: MetricDiff | None, suspect: ConfigChange | None, causes: list[dict]) -> str:
    """One line: what changed, what parted first and where, and the top cause."""
    changed = suspect.sentence() if suspect is not None else ""
    if first is None or not first.parted:
        quiet = "no metric parts beyond the runs' own noise"
        return f"{changed}, but {quiet}" if changed else quiet[:1].upper() + quiet[1:]
    if first.direction == "non-finite":
        parted = f"{first.metric} turned non-finite first, at step {_show_step(first.step)}"
    else:
        parted = f"{first.metric} parted first at step {_show_step(first.step)}"
    text = f"{changed} and {parted}" if changed else parted[:1].upper() + parted[1:]
    return f"{text}: {causes[0]['id']}" if causes else text


def _show_step(s) -> str:
    if s is None:
        return "?"
    return str(int(s)) if float(s).is_integer() else f"{s:g}"


def diff_runs(good_run, bad_run, kb, version: str = "") -> dict:
    """The `diff --json` document (plus private keys for the renderers)."""
    from triage.engine.report import Source, build_report

    diffs, only_good, only_bad = compare_runs(good_run, bad_run)
    if not diffs:
        raise DiffError(f"GOOD and BAD log no training metric in common (GOOD: {', '.join(good_run.metrics()[:8]) or 'none'}; "
                        f"BAD: {', '.join(bad_run.metrics()[:8]) or 'none'})")
    first = diffs[0] if diffs and diffs[0].parted else None
    gcfg, bcfg = dict(good_run.config), dict(bad_run.config)
    changes = config_changes(gcfg, bcfg)
    classify(kb, changes, gcfg, bcfg)
    diag, applied = diagnose(kb, bad_run, changes, first)
    doc = build_report(kb, diag, applied, [Source.from_run(bad_run)], version, run=bad_run)
    # causes only when there is something to explain: the runs part, or BAD shows a problem itself
    causes = doc["causes"] if (first is not None or doc["findings"]) else []
    ranked = rank_changes(changes, causes[0]["id"] if causes else None)
    suspect = next((c for c in ranked if c.role not in ("bookkeeping", "seed")), None)
    out = {
        "version": version,
        "good": {**Source.from_run(good_run).to_json(), "config": good_run.meta.get("config_path")},
        "bad": {**Source.from_run(bad_run).to_json(), "config": bad_run.meta.get("config_path")},
        "parted": first is not None,
        "first": first.to_dict() if first else None,
        "metrics": [d.to_dict() for d in diffs],
        "only_good": only_good,
        "only_bad": only_bad,
        "config": {
            "changes": [c.to_dict() for c in ranked],
            "suspect": suspect.key if suspect else None,
            "compared": bool(gcfg or bcfg),
        },
        "findings": doc["findings"],
        "causes": causes,
        "headline": headline(first, suspect, causes),
        "_good": good_run,
        "_bad": bad_run,
        "_diffs": diffs,
    }
    return out


# -- the gate ------------------------------------------------------------------------------------
@dataclass
class Tolerance:
    """Allowed regression: `abs + rel * |GOOD|` over a window (numpy.isclose's rule)."""

    rel: float = 0.0
    abs: float = 0.0

    def allowed(self, ref: np.ndarray) -> np.ndarray:
        return self.abs + self.rel * np.abs(ref)

    def describe(self) -> str:
        parts = []
        if self.rel:
            parts.append(f"{self.rel * 100:g}% of GOOD")
        if self.abs:
            parts.append(f"{self.abs:g} absolute")
        return " + ".join(parts) or "none (any worse window fails)"

    def to_dict(self) -> dict:
        return {"rel": self.rel, "abs": self.abs}


def parse_tolerance(text: str) -> Tolerance:
    """`5%`, `rel=0.05`, `abs=0.02`, a bare number (absolute), or several joined by commas
    (`5%,abs=0.01`: the allowances add up, as in numpy.isclose)."""
    tol = Tolerance()
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise DiffError("--tolerance is empty: give e.g. 5%, rel=0.05, abs=0.02 or 5%,abs=0.01")
    for p in parts:
        kind, _, val = p.partition("=") if "=" in p else ("", "", p)
        kind = kind.strip().lower()
        val = val.strip()
        pct = val.endswith("%")
        try:
            number = float(val[:-1] if pct else val)
        except ValueError:
            raise DiffError(f"--tolerance {text!r}: {p!r} is not a number (use e.g. 5%, rel=0.05, abs=0.02)") from None
        if not math.isfinite(number) or number < 0:
            raise DiffError(f"--tolerance {text!r}: {p!r} must be a finite number >= 0")
        if pct:
            number /= 100.0
        if kind in ("rel", "rtol", "relative") or (not kind and pct):
            tol.rel += number
        elif kind in ("abs", "atol", "absolute") or not kind:
            if pct and kind:
                raise DiffError(f"--tolerance {text!r}: an absolute tolerance cannot be a percentage")
            tol.abs += number
        else:
            raise DiffError(f"--tolerance {text!r}: unknown kind {kind!r} (use rel= or abs=)")
    return tol


def metric_direction(name: str) -> str:
    """"lower" or "higher" when the name says which way is better, else "" (either way is a change)."""
    base = name.split("/")[-1]
    if LOWER_BETTER.search(base):
        return "lower"
    if HIGHER_BETTER.search(base):
        return "higher"
    return ""


def default_gate_metrics(good_run, bad_run) -> list[str]:
    """The outcomes both runs log whose better direction is known: losses, accuracies, rewards."""
    shared = sorted(set(good_run.series) & set(bad_run.series))
    return [m for m in shared if is_dynamics(m) and metric_direction(m)]


@dataclass
class Regression:
    """The windows of one metric where BAD is worse than GOOD beyond the tolerance: the first
    one (where the regression starts) and the worst one (its numbers)."""

    metric: str
    first: tuple[float, float]  # steps covered by the first failing window
    worst: tuple[float, float]  # steps covered by the worst window
    good: float  # window means in the worst window
    bad: float
    allowed: float
    direction: str
    kind: str = "worse"  # worse | non-finite

    def to_dict(self) -> dict:
        return {"metric": self.metric, "first_step": _num(self.first[0]), "first_window": [_num(x) for x in self.first],
                "worst_window": [_num(x) for x in self.worst], "good": _num(self.good), "bad": _num(self.bad),
                "allowed": _num(self.allowed), "better": self.direction or "closer", "kind": self.kind}


def gate(good_run, bad_run, tol: Tolerance, window: int = 20, metrics: list[str] | None = None) -> dict:
    """Did BAD regress past GOOD? Every window of `window` aligned points of each gated metric is
    compared by its mean (a trailing window slid one point at a time); the worst window of each
    metric that breaks the tolerance is reported."""
    if window < 1:
        raise DiffError("--window must be at least 1 point")
    names = list(metrics) if metrics else default_gate_metrics(good_run, bad_run)
    missing = [m for m in names if m not in good_run.series or m not in bad_run.series]
    if metrics and missing:
        have = sorted(set(good_run.series) & set(bad_run.series))
        raise DiffError(f"--metric {missing[0]}: not logged by both runs (shared: {', '.join(have) or 'none'})")
    results, regressions = [], []
    for name in names:
        al = align(good_run.series[name], bad_run.series[name])
        if al is None or len(al.steps) == 0:
            results.append({"metric": name, "points": 0, "passed": True, "note": "no shared steps"})
            continue
        direction = metric_direction(name)
        w = min(window, len(al.steps))
        reg = _gate_metric(name, al, tol, w, direction)
        results.append({"metric": name, "points": int(len(al.steps)), "window": int(w),
                        "better": direction or "closer", "passed": reg is None,
                        "window_noise": _num(_window_noise(al, w)),
                        **({"regression": reg.to_dict()} if reg else {})})
        if reg is not None:
            regressions.append(reg)
    return {"tolerance": tol.to_dict(), "window": window, "metrics": results,
            "regressions": [r.to_dict() for r in regressions], "passed": not regressions}


def _window_noise(al: Aligned, w: int) -> float | None:
    """The noise of the difference of two window means, from both runs' own point noise: a
    tolerance well inside it fails by chance (same-seed, deterministic reruns have none)."""
    idx = np.flatnonzero(np.isfinite(al.good) & np.isfinite(al.bad))
    if len(idx) < MIN_NOISE_POINTS:
        return None
    if len(idx) > MAX_POINTS:  # every k-th point: the same point-to-point noise, bounded cost
        idx = idx[:: -(-len(idx) // MAX_POINTS)]
    sw = window_for(len(idx))
    ng = float(np.median(local_noise(al.good[idx], sw)))
    nb = float(np.median(local_noise(al.bad[idx], sw)))
    return math.sqrt(ng**2 + nb**2) / math.sqrt(max(w, 1))


def _gate_metric(name: str, al: Aligned, tol: Tolerance, w: int, direction: str) -> Regression | None:
    g, b = al.good, al.bad
    gfin, bfin = np.isfinite(g), np.isfinite(b)
    lost = np.flatnonzero(gfin & ~bfin)
    if len(lost):
        i = int(lost[0])
        at = (float(al.steps[i]), float(al.steps[i]))
        return Regression(name, at, at, float(g[i]), float(b[i]), 0.0, direction, "non-finite")
    ok = gfin & bfin
    if ok.sum() == 0:
        return None
    steps, g, b = al.steps[ok], g[ok], b[ok]
    w = min(w, len(g))
    kernel = np.ones(w) / w
    gm = np.convolve(g, kernel, mode="valid")
    bm = np.convolve(b, kernel, mode="valid")
    if direction == "lower":
        worse = bm - gm
    elif direction == "higher":
        worse = gm - bm
    else:
        worse = np.abs(bm - gm)
    allowed = tol.allowed(gm)
    excess = worse - allowed
    bad_idx = np.flatnonzero(excess > 0)
    if not len(bad_idx):
        return None
    i = int(bad_idx[np.argmax(excess[bad_idx])])
    first = int(bad_idx[0])
    return Regression(name, (float(steps[first]), float(steps[first + w - 1])), (float(steps[i]), float(steps[i + w - 1])),
                      float(gm[i]), float(bm[i]), float(allowed[i]), direction)


# -- reading -------------------------------------------------------------------------------------
def read_pair(good: str, bad: str, fmt: str | None = None, read=None):
    """Both runs through the same readers `scan` uses (configs beside the logs attached).
    `read(path, fmt)` returns one Run; the default reads a file or run folder, and triage.api
    passes its own (which also takes a named pipe), since the engine sits below the API."""
    read = read or _read_run
    runs = []
    for label, path in (("GOOD", good), ("BAD", bad)):
        if path == "-":
            raise DiffError(f"{label}: diff reads two files or run folders, not stdin")
        if not Path(path).exists():
            raise DiffError(f"{label} {path}: no such file or folder")
        try:
            run = read(path, fmt)
        except TriageError as exc:
            raise DiffError(f"{label}: {exc}") from None
        if not run.series:
            raise DiffError(f"{label} {path}: no metrics found to compare (`triage inspect {path}` shows what was read)")
        runs.append(run)
    return runs[0], runs[1]


def _read_run(path: str, fmt: str | None):
    """One log file or run folder as a Run, with the config beside it attached."""
    from triage.ingest import read_run
    from triage.ingest.sidecar import attach

    run = read_run(path, fmt)
    attach(run, path)
    return run
