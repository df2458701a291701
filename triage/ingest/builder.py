"""Accumulate points from a reader and turn them into a canonical `Run`.

Readers add points per *source key* (the key as the file spells it), either one at a time
(`add`) or as numpy columns (`add_block`, the fast path of the big formats). `build()` then

* orders each key's points as they appeared in the file,
* maps keys to canonical names (knowledge/metrics.yaml), resolving collisions by match quality,
* applies per-alias transforms (SB3's negated entropy, byte -> GiB),
* de-duplicates repeated steps (resumed runs, loggers that write lines twice), keeping the last,
* counts restarts (the step going backwards in file order).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

import numpy as np

from triage.ingest import aliases as _aliases
from triage.ingest.run import Run, Series, TextEvent, default_meta

NAN = float("nan")

# words that name a held-out split: at the head of a key (`test_adv_acc`) or in a path
# (`plots/metrics/eval/loss.tsv`, `val_acc.tsv`)
_HELD_OUT_WORDS = frozenset(("val", "valid", "validation", "eval", "evaluation", "test", "dev"))


def split_named_by_path(key: str, folder_path, name: str) -> str:
    """The key of a file's only metric, with the split its path names when the key names none.
    DVCLive writes `step<TAB>loss` into `plots/metrics/eval/loss.tsv`: the folder holds the split;
    a file saved by hand as `run3_val_acc.tsv` holds it in the name, as the word right before the
    metric's own words at the end of the name. `folder_path`: the file's path (its parent folder is looked at)."""
    table = _aliases.table()
    words_of = re.compile(r"[_\-.\s/]+")
    key_words = [w for w in words_of.split(key.lower()) if w]
    if not key_words or key_words[0] in _HELD_OUT_WORDS or table.resolve(key).split != "train":
        return key
    folder = folder_path.parent.name.lower()
    if folder in _HELD_OUT_WORDS:
        return f"{folder}/{key}"
    stem = name.rsplit(".", 1)[0] if "." in name else name
    words = [w for w in words_of.split(stem.lower()) if w]
    n = len(key_words)
    # (only as the name's last words, the split word right before them: `val_acc.tsv`,
    # `run-x-tag-val_acc.csv`; a word further back names something else)
    if len(words) > n and words[-n:] == key_words and words[-n - 1] in _HELD_OUT_WORDS:
        return f"{words[-n - 1]}/{key}"
    return key


_NAN_WORDS = {
    "nan": NAN, "+nan": NAN, "-nan": NAN, "nan(ind)": NAN, "-nan(ind)": NAN,
    "inf": math.inf, "+inf": math.inf, "-inf": -math.inf,
    "infinity": math.inf, "+infinity": math.inf, "-infinity": -math.inf,
}


def to_float(v: Any, null: float | None = None) -> float | None:
    """A metric value as float, or None when it is not a number (strings, bools, containers).

    NaN and infinities are kept in every spelling (``NaN``, ``nan``, ``'nan'``, ``Infinity``, ``inf``).
    ``null`` is what a JSON null / Python None becomes: None (missing) or NaN where the source means NaN.
    """
    t = type(v)
    if t is float:
        return v
    if t is int:
        try:
            return float(v)
        except OverflowError:
            return math.inf if v > 0 else -math.inf
    if v is None:
        return null
    if t is str:
        s = v.strip().strip("'\"").strip()
        if not s:
            return None
        w = _NAN_WORDS.get(s.lower())
        if w is not None:
            return w
        try:
            return float(s.replace("_", "x") if "_" in s else s)
        except ValueError:
            if s.endswith("%"):
                try:
                    return float(s[:-1])
                except ValueError:
                    return None
            return None
    if t is bool:
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):  # numpy scalars, Decimal-likes
        try:
            return float(v)
        except (TypeError, ValueError, OverflowError):
            return None
    return None


# Memory bound: a key keeps at most KEEP points. Past 2 * KEEP, its points are folded, in file
# order, into about KEEP block means (each weighted by how many points it stands for), so a 5 GB
# log costs what a few hundred thousand points cost. A block holding a NaN or an infinity is
# that point instead (its step too): a run that went NaN still does, at the step it did. The
# detectors reduce long series to MAX_POINTS (20,000) block means anyway, so they see nearly the
# same numbers; a fold is named in the run's warnings and in meta["reduced"].
KEEP = 1 << 19
FLUSH = 1 << 16  # points added one by one go into a numpy block every FLUSH points


def starts_run(seq, k: int, first: float, gap: float, run_top: float) -> bool:
    """Whether the step counter's drop at `seq[k]` (file order) starts a new run printed or appended after
    the one before, rather than a resume that logs steps again: the counter drops to the file's first step
    (when that is at most one spacing, `gap`), or below a tenth of where its run got to (`run_top`), or
    below the file's first step to within one spacing of 0; and the next step goes on from there (a lone
    low step the counter does not go on from is a stray line). The printed and the CSV readers share it."""
    x = float(seq[k])
    if not ((x <= first and first <= gap) or (run_top > 0 and x <= 0.1 * run_top) or (x < first and x <= gap)):
        return False
    return not (k + 1 < len(seq) and seq[k + 1] > seq[k - 1])


def run_shift(top: float, gap: float, x: float) -> float | None:
    """How far to move a run whose counter opens at `x` so that it starts one spacing (`gap`) after `top`,
    the highest step placed before it; None where steps near the float limit leave nowhere to place it
    (the run's steps then stay as written, rather than becoming inf). The printed, CSV and JSONL readers
    share it."""
    with np.errstate(over="ignore", invalid="ignore"):
        at = top + gap
        shift = at - x
    if not (math.isfinite(shift) and math.isfinite(at) and abs(at) < 1e300):
        return None
    return shift


class _Column:
    """Points of one source key: numpy blocks (fast path) and Python lists (slow path)."""

    __slots__ = ("blocks", "weights", "rows", "steps", "values", "epochs", "walls", "source", "split_hint",
                 "last_row", "ordered", "n", "raw")

    def __init__(self, source: str | None, split_hint: str | None):
        self.blocks: list[tuple] = []
        self.weights: list[np.ndarray | None] = []  # per block: how many points each kept point stands for
        self.rows: list[int] = []
        self.steps: list[float] = []
        self.values: list[float] = []
        self.epochs: list[float] = []
        self.walls: list[float] = []
        self.source = source
        self.split_hint = split_hint
        self.last_row = -1
        self.ordered = True  # blocks arrived in file order
        self.n = 0  # points held in blocks
        self.raw = 0  # points added to blocks, counting each folded point as the points it stands for

    def add_block(self, block: tuple, weights: np.ndarray | None = None) -> None:
        rows = block[0]
        if len(rows):
            if self.ordered and (rows[0] <= self.last_row or (len(rows) > 1 and rows[-1] < rows[0])):
                self.ordered = False
            self.last_row = max(self.last_row, int(rows[-1]))
        self.blocks.append(block)
        self.weights.append(weights)
        m = len(block[2])
        self.n += m
        self.raw += m if weights is None else int(weights.sum())
        if self.n > 2 * KEEP:
            self.fold()

    def flush(self) -> None:
        """The points added one by one, as one numpy block (file order is kept by their rows)."""
        if not self.values:
            return
        block = (np.asarray(self.rows, dtype=np.int64), np.asarray(self.steps, dtype=np.float64),
                 np.asarray(self.values, dtype=np.float64), np.asarray(self.epochs, dtype=np.float64),
                 np.asarray(self.walls, dtype=np.float64))
        for lst in (self.rows, self.steps, self.values, self.epochs, self.walls):
            lst.clear()
        self.add_block(block)

    def compact(self, cache: dict | None = None):
        """(rows|None, steps, values, epochs|None, walls|None) in file order.

        ``cache`` shares concatenated axis arrays between keys that were logged in the same rows.
        """
        return self._merged(cache)[:5]

    def _merged(self, cache: dict | None = None, with_weights: bool = False):
        """compact()'s arrays plus the weights (None: one point each) when asked for."""
        self.flush()
        blocks = self.blocks
        if not blocks:
            empty = np.empty(0)
            return None, empty, empty, None, None, None
        c = None
        if len(blocks) == 1:
            r, s, v, e, w = blocks[0]
            c = self.weights[0]
        else:
            sizes = [len(b[2]) for b in blocks]
            r = _cat(cache, [b[0] for b in blocks], sizes) if not self.ordered or with_weights else None
            s = _cat(cache, [b[1] for b in blocks], sizes)
            v = np.concatenate([b[2] for b in blocks])
            e = _cat(cache, [b[3] for b in blocks], sizes)
            w = _cat(cache, [b[4] for b in blocks], sizes)
            if any(x is not None for x in self.weights):
                c = np.concatenate([np.ones(n, dtype=np.int64) if x is None else x
                                    for x, n in zip(self.weights, sizes)])
        if not self.ordered and r is not None and len(r) > 1 and not (r[1:] >= r[:-1]).all():
            order = np.argsort(r, kind="stable")
            r, s, v = r[order], s[order], v[order]
            e = None if e is None else e[order]
            w = None if w is None else w[order]
            c = None if c is None else c[order]
        return r, s, v, e, w, c

    def fold(self) -> None:
        """Fold every point held into about KEEP weighted block means (see KEEP)."""
        r, s, v, e, w, c = self._merged(with_weights=True)
        n = len(v)
        if c is None:
            c = np.ones(n, dtype=np.int64)
        size = -(-int(c.sum()) // KEEP)  # points each kept point stands for from now on
        group = (np.cumsum(c) - c) // size
        starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        bad = ~np.isfinite(v)
        finite_c = np.where(bad, 0, c)
        weight = np.add.reduceat(finite_c, starts)
        mean = np.add.reduceat(np.where(bad, 0.0, v) * finite_c, starts) / np.maximum(weight, 1)
        pick = starts  # the point whose step a block keeps: its first, or its first NaN/inf
        if bad.any():
            first_bad = np.minimum.reduceat(np.where(bad, np.arange(n), n), starts)
            has_bad = first_bad < n
            pick = np.where(has_bad, first_bad, starts)
            mean[has_bad] = v[first_bad[has_bad]]
        self.blocks = [(r[pick], s[pick], mean, None if e is None else e[pick], None if w is None else w[pick])]
        self.weights = [np.add.reduceat(c, starts)]
        self.ordered = True
        self.last_row = int(r[-1]) if n else -1
        self.n = len(starts)

    @property
    def folded(self) -> bool:
        return self.raw > self.n

    def __len__(self) -> int:
        return self.n + len(self.values)


def _cat(cache: dict | None, parts: list, sizes: list[int]):
    """Concatenate optional arrays (None = all NaN); None when every part is None."""
    if all(p is None for p in parts):
        return None
    key = tuple(id(p) for p in parts) + tuple(sizes)  # a None part's length is its size, not its id
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            return hit[0]
    out = np.concatenate([np.full(n, NAN) if p is None else p for p, n in zip(parts, sizes)])
    if cache is not None:
        cache[key] = (out, parts)  # keep the parts alive so their ids stay unique
    return out


class RunBuilder:
    """Collects what a reader finds; `build()` returns the canonical Run."""

    def __init__(self, path: str, fmt: str, source: str | None = None):
        self.path = str(path)
        self.format = fmt
        self.source = source or fmt
        self.cols: dict[str, _Column] = {}
        self.events: list[TextEvent] = []
        self.meta: dict[str, Any] = default_meta()
        self.row = 0  # rows seen so far (file order); readers bump it per record
        self.summary: dict[str, float] = {}

    # ------------------------------------------------------------------ bookkeeping
    def skip(self, reason: str, n: int = 1) -> None:
        if n:
            sk = self.meta["skipped"]
            sk[reason] = sk.get(reason, 0) + n

    def warn(self, message: str) -> None:
        if message not in self.meta["warnings"]:
            self.meta["warnings"].append(message)

    def restarts(self, starts: list[float]) -> None:
        """Runs printed or appended one after another in one file: where each run after the first begins
        on the file's step axis (the readers placed it after the run before), said once."""
        n = len(starts)
        self.meta["runs"] = n + 1
        self.meta["run_starts"] = list(starts)
        self.warn(f"the step counter starts again {n} time{'s' if n > 1 else ''}: "
                  f"{n + 1} runs in one file, each placed after the one before; the checks judge the last one "
                  "(the longest, when the last is a stub of a few rows), and each earlier run for what only it shows")

    def event(self, kind: str, text: str, line: int | None = None, step: float | None = None,
              value: float | None = None) -> None:
        self.events.append(TextEvent(line, kind, text, step, value))

    def end_row(self, got: bool, step: float | None) -> None:
        """Close one source row: counted when it held a metric, else skipped as 'no metrics'."""
        if got:
            self.row += 1
            self.meta["rows"] += 1
            self.note_step(step)
        else:
            self.skip("no metrics")

    def note_step(self, step: float | None) -> None:
        """The step of a row in file order. Readers report it, but it is not stored: restarts are
        counted on each series' own steps in build(), and a copy per row would grow with the file."""

    def note_steps(self, steps: np.ndarray) -> None:
        """See note_step."""

    def column(self, key: str, source: str | None = None, split_hint: str | None = None) -> _Column:
        col = self.cols.get(key)
        if col is None:
            col = self.cols[key] = _Column(source, split_hint)
        return col

    # ------------------------------------------------------------------ adding points
    def add(self, key: str, value: float, step: float = NAN, epoch: float = NAN, wall: float = NAN,
            row: int | None = None, source: str | None = None) -> None:
        col = self.cols.get(key)
        if col is None:
            col = self.cols[key] = _Column(source, None)
        col.rows.append(self.row if row is None else row)
        col.steps.append(NAN if step is None else step)
        col.values.append(value)
        col.epochs.append(NAN if epoch is None else epoch)
        col.walls.append(NAN if wall is None else wall)
        if len(col.values) >= FLUSH:
            col.flush()

    def add_block(self, key: str, rows: np.ndarray, steps: np.ndarray, values: np.ndarray,
                  epochs: np.ndarray | None = None, walls: np.ndarray | None = None,
                  source: str | None = None, weights: np.ndarray | None = None) -> None:
        """Points as numpy columns. `weights`: how many points each stands for (a folded block
        from another reader process); None means one each."""
        col = self.column(key, source)
        col.add_block((rows, steps, values, epochs, walls), weights)

    def place_runs(self) -> None:
        """Runs appended one after another to a log of records (`metrics.json` of a script run twice):
        the step counter of the series logged most often starts again (see `starts_run`; a resume that logs
        steps again is no new run). Each run's records, by their rows in file order, go after the run
        before; every series logged at those rows moves with them. A counter that never goes back costs one
        pass over that series' steps."""
        best = max((c for c in self.cols.values()), key=len, default=None)
        if best is None or len(best) < 3:
            return
        r, s = best._merged(with_weights=True)[:2]
        if r is None:
            return
        ok = np.isfinite(s)
        r, s = r[ok], s[ok]
        if len(s) < 3 or not bool((s[1:] < s[:-1]).any()):
            return
        up = np.diff(s)
        up = up[up > 0]
        gap = float(up[0]) if len(up) else 1.0
        first = float(s[0])
        cuts: list[int] = []  # the row each new run opens on
        offsets: list[float] = []
        starts: list[float] = []
        off, seg = 0.0, 0
        for k in (np.flatnonzero(s[1:] < s[:-1]) + 1).tolist():
            if not starts_run(s, k, first, gap, float(s[seg:k].max())):
                continue
            top = float(s[seg:k].max()) + off
            shift = run_shift(top, gap, float(s[k]))
            if shift is None:
                continue  # (steps near the float limit: nowhere to place a run after them)
            off = shift
            seg = k
            cuts.append(int(r[k]))
            offsets.append(off)
            starts.append(top + gap)
        if not starts:
            return
        cut = np.asarray(cuts, dtype=np.int64)
        shifts = np.asarray([0.0] + offsets)
        for col in self.cols.values():
            col.flush()
            blocks = []
            for rows, steps, values, epochs, walls in col.blocks:
                moved = steps + shifts[np.searchsorted(cut, rows, side="right")]
                blocks.append((rows, moved, values, epochs, walls))
            col.blocks = blocks
        self.restarts(starts)

    # ------------------------------------------------------------------ build
    def _clean_keys(self) -> None:
        """Keys that cannot be written as UTF-8 (a lone surrogate from a `\\ud800` escape) get
        U+FFFD in its place: every name of a Run must survive `--json` and a terminal."""
        bad = [k for k in self.cols if not _encodable(k) or not k.strip()]
        for k in bad:
            clean = _clean_text(k) if k.strip() else "(unnamed)"
            while clean in self.cols:
                clean += "_"
            self.cols[clean] = self.cols.pop(k)
        if bad:
            self.meta["warnings"] = [_clean_text(w) for w in self.meta["warnings"]]
        for k in ("non_numeric_keys",):
            if k in self.meta:
                self.meta[k] = [_clean_text(x) for x in self.meta[k]]

    def build(self) -> Run:
        table = _aliases.table()
        self._clean_keys()
        resolved: dict[str, _aliases.Resolved] = {}
        for key, col in self.cols.items():
            if not len(col):
                continue
            resolved[key] = table.resolve(key, col.source or self.source)
        for k in _first_of_two_eval_sets(resolved, table):
            self.warn(f"{k!r} read as {resolved[k].name!r}: the first of two evaluation sets XGBoost numbers is the "
                      f"training data")
        for k in _train_twins_of_eval(resolved):
            self.warn(f"{k!r} read as {resolved[k].name!r}: the log prints the same metric for its evaluation")
        for k in _bare_splits_beside_a_loss(resolved, table, self.cols):
            self.warn(f"{k!r} read as {resolved[k].name!r}: a split named alone beside the loss scores that split")
        for k, kept in _one_name_two_spellings(resolved, self.cols):
            self.warn(f"{k!r} and {kept!r} are one name spelt two ways on lines of their own: read as one series")
        # collisions: the best match keeps the canonical name, the others keep their own
        by_name: dict[str, list[str]] = {}
        for key, res in resolved.items():
            by_name.setdefault(res.name, []).append(key)
        names: dict[str, tuple[str, str]] = {}
        collided: list[tuple[str, str, str, str]] = []  # (key, the key that kept the name, name, its own name)
        for name, keys in by_name.items():
            keys.sort(key=lambda k: (resolved[k].quality, resolved[k].order, k))
            if len(keys) > 1 and any(k[-1:] == ")" and _PAREN_QUALIFIER.search(k) for k in keys):
                # `Avg Loss 0.32, Loss (local): 0.34, Loss (Avg): 2.29`: a name qualified in parentheses is one
                # variant of the metric; the name with no qualifier is the metric itself
                keys.sort(key=lambda k: k[-1:] == ")" and _PAREN_QUALIFIER.search(k) is not None)
            if name == "loss" and len(keys) > 1 and not any(k.strip().lower() == "loss" for k in keys):
                # a key that says it is the training loss (`Train loss: 0.4616`) keeps the name over another
                # spelling of a loss with no split in it (`[Metrics] AUC: 0.80 - logloss: 0.447`, a metric
                # the evaluation printed), however exactly the alias table knows that spelling
                keys.sort(key=lambda k: not _TRAIN_LOSS_KEY.match(k))
            elif name == "loss" and len(keys) > 1 and keys[0].strip().lower() == "loss":
                # `loss: 0.30` on a finished bar and `train loss: 0.627` on the epoch's summary line after it, as
                # often as each other: the line that says it is the training loss keeps the name (the bare one
                # is the last batch's reading). A bare loss printed more often (every step), or on the same
                # lines (a bar's `loss=` beside its `train/loss=`), keeps it
                said = [k for k in keys[1:] if _TRAIN_LOSS_KEY.match(k) and resolved[k].split == "train"]
                if said and len(self.cols[said[0]]) == len(self.cols[keys[0]]) >= 2 \
                        and _apart(self.cols[said[0]], self.cols[keys[0]]):
                    keys.remove(said[0])
                    keys.insert(0, said[0])
                else:
                    # `Loss: 1.4674` on every batch line and `loss : 1.4810` in the epoch's summary block under
                    # them (pytorch-template): two bare spellings of the loss; the one printed more often is the
                    # training curve, the other the epoch's mean
                    bare = [k for k in keys[1:] if k.strip().lower() == "loss"
                            and 2 * len(self.cols[keys[0]]) <= len(self.cols[k])]
                    if bare:
                        keys.remove(bare[0])
                        keys.insert(0, bare[0])
            if name in ("loss", "eval/loss") and len(keys) > 1:
                mean = _mean_of_a_sum(keys, self.cols)
                if mean is not None and mean != keys[0]:
                    keys.remove(mean)
                    keys.insert(0, mean)
            names[keys[0]] = (name, resolved[keys[0]].split)
            for k in keys[1:]:
                own = _aliases.normalise(k)
                alt = own if own not in by_name and own not in names.values() else f"{name}@{own}"
                split = resolved[k].split
                names[k] = (alt, split)
                collided.append((k, keys[0], name, alt))

        _fold_lone_test_split(names)
        _settings_off_eval(names)
        for key, name in _scores_on_eval_lines(names, resolved, self.cols):
            self.warn(f"{key!r} read as {name!r}: it is only ever printed beside evaluation values and no training loss")
        lone = _lone_loss(names, resolved)
        if lone is not None:
            why = "the total among the log's losses" if _TOTAL_WORD.search(lone) else "the only loss the log has"
            self.warn(f"{lone!r} read as the training loss: it is {why}")
        for key, name in _lone_accuracy(names, resolved):
            self.warn(f"{key!r} read as {name!r}: it is the only {name.rsplit('/', 1)[-1]} the log has")
        series: dict[str, Series] = {}
        duplicates = 0
        restarts = 0
        cache: dict = {}
        step_info: dict[int, tuple] = {}
        one_step: bool | None = None  # whether every point of the file stands at one and the same step
        for key, (name, split) in names.items():
            col = self.cols[key]
            res = resolved[key]
            r, s, v, e, w = col.compact(cache)
            if len(s) and e is not None and np.isnan(s).all() and np.isfinite(e).all() \
                    and bool(np.all(np.diff(e) >= 0)):
                # rows that count only epochs (a saved Keras history, `{"epoch": 3, ...}` lines); epochs that
                # start again (two runs in one file) keep their line order, every row kept
                s = e.copy()
                self.meta.setdefault("x_axis", "epoch")
            if len(s) >= 3 and s[0] == s[-1] and np.isfinite(s[0]) and bool(np.all(s == s[0])):
                if one_step is None:
                    one_step = self._one_step_everywhere(names, cache)
                if one_step:
                    # every row of the file at one step (a Keras CSVLogger appended by fits of one epoch each,
                    # `0,...` on every row): the column orders nothing, so the rows keep their line order
                    # instead of collapsing into the last one
                    s = np.arange(len(s), dtype=float)
                    self.meta["step_axis"] = "line order"
            if col.folded:
                self.meta.setdefault("reduced", {})[name] = {"points": col.raw, "kept": int(len(v))}
                self.warn(f"{name}: {col.raw:,} points kept as {len(v):,} block means to bound memory "
                          f"(a NaN or inf stands for its block, at its own step)")
            if res.negate:
                v = -v
            if res.scale != 1.0:
                v = v * res.scale
            if name == "step_time" and len(v) and _clock_readings(v):
                self.warn(f"{key!r} holds clock readings (seconds since 1970), not how long a step took: left out")
                continue
            seen = step_info.get(id(s))  # series that share one step array (one row layout) share the work
            if seen is None:
                seen = step_info[id(s)] = (s, _resumes(s), _increasing(s))
            if len(seen[1]) > restarts:
                restarts = len(seen[1])
                self.meta["resumed_at"] = [list(r) for r in seen[1]]
            if not seen[2]:
                s, v, e, w, dropped = _dedupe(s, v, e, w)
                duplicates += dropped
            if col.split_hint:
                split = col.split_hint
            series[name] = Series(name=name, split=split, steps=s, values=v,
                                  epochs=e, wall=w, source_key=key)
        for k, first, name, alt in collided:
            if _sharper_copy(series, name, alt):
                self.warn(f"{k!r} prints {first!r} with more digits: {name!r} holds its values")
                continue
            if _join(series, name, alt):
                self.warn(f"{k!r} and {first!r} both mean {name!r}: read as one series (where both have a "
                          f"step, they agree)")
            else:
                self.warn(f"{k!r} and {first!r} both mean {name!r}: kept {first!r} as {name!r}, {k!r} as {alt!r}")
        self.meta["duplicates"] = int(self.meta.get("duplicates", 0)) + duplicates
        self.meta["restarts"] = int(self.meta.get("restarts", 0)) + restarts
        if self.meta["restarts"]:  # said in the warnings too, so `scan` says it, not only `inspect`
            n = self.meta["restarts"]
            dup = self.meta["duplicates"]
            where = [f"{_step_text(hi)} -> {_step_text(lo)}" for lo, hi in self.meta.get("resumed_at") or []][:3]
            more = n - len(where)
            self.warn(f"the step goes back {n} time{'s' if n > 1 else ''} (a resumed or restarted run"
                      + (f": {', '.join(where)}{f' and {more} more' if more > 0 else ''}" if where else "") + ")"
                      + (f"; {dup:,} repeated step{'s' if dup > 1 else ''} keep their last value" if dup else ""))
        if self.summary:
            self.meta["summary"] = dict(self.summary)
        self.meta["rows"] = int(self.meta.get("rows") or 0)
        run = Run(path=self.path, format=self.format, series=dict(sorted(series.items())),
                  events=self.events, meta=self.meta)
        return run

    def _one_step_everywhere(self, names: dict, cache: dict) -> bool:
        """Whether every column holds three or more points and all of them at one and the same step."""
        first = None
        for key in names:
            _, s, _, e, _ = self.cols[key].compact(cache)
            if len(s) and np.isnan(s).all() and e is not None:
                s = e
            if len(s) < 3 or not np.isfinite(s[0]) or not bool(np.all(s == s[0])):
                return False
            if first is None:
                first = float(s[0])
            elif float(s[0]) != first:
                return False
        if first is not None:
            self.warn(f"every row stands at step {first:g}: read in line order")
        return first is not None


def _one_name_two_spellings(resolved: dict, cols: dict) -> list[tuple[str, str]]:
    """A training loss that one print style spells `Train Loss` (every 100 batches) and another `train_loss:` (the
    epoch's summary block) is one name spelt two ways: the two keys fold to one spelling (case, blanks, '-' and '_'
    aside), mean the same training loss, never stand on one line together, lie on one scale (medians within a
    factor of three) and sit mostly at steps of their own. They are read as one key, in line order, as if the log
    had spelt it one way (a step printed twice keeps its last value, as for any key). Only the training loss: other
    names spelt two ways keep the collision rules (an evaluation set's two spellings join only when one follows the
    other). Merges cols in place, drops the merged key from resolved; returns (merged key, key kept) pairs."""
    groups: dict[str, list[str]] = {}
    for key, res in resolved.items():
        if res.name == "loss" and res.split == "train" and not res.negate and res.scale == 1.0:
            groups.setdefault(_aliases._fold(key), []).append(key)
    done = []
    for keys in groups.values():
        if len(keys) != 2:
            continue
        keys.sort(key=lambda k: (resolved[k].quality, resolved[k].order, k))
        kept, other = keys
        a, b = cols[kept], cols[other]
        if a.split_hint != b.split_hint or a.source != b.source or len(a) < 1 or len(b) < 1 or not _apart(a, b):
            continue
        ra, sa, va, ea, wa, ca = a._merged(with_weights=True)
        rb, sb, vb, eb, wb, cb = b._merged(with_weights=True)
        ma, mb = np.nanmedian(np.abs(va)) if np.isfinite(va).any() else np.nan, \
            np.nanmedian(np.abs(vb)) if np.isfinite(vb).any() else np.nan
        if not (ma > 0 and mb > 0 and max(ma, mb) <= 3 * min(ma, mb)):
            continue
        shared = len(np.intersect1d(sa[np.isfinite(sa)], sb[np.isfinite(sb)]))
        if not len(va) or 2 * shared > min(len(va), len(vb)):
            continue  # (mostly the same steps: one value printed twice, `Loss: 0.746246` and `loss:0.746`)

        def cat(x, y, n, m, fill=np.nan):
            if x is None and y is None:
                return None
            return np.concatenate([np.full(n, fill) if x is None else x, np.full(m, fill) if y is None else y])

        n, m = len(va), len(vb)
        rows = np.concatenate([ra, rb])
        order = np.argsort(rows, kind="stable")
        weights = None if ca is None and cb is None else cat(ca, cb, n, m, 1).astype(np.int64)[order]
        block = (rows[order], np.concatenate([sa, sb])[order], np.concatenate([va, vb])[order],
                 None if (e := cat(ea, eb, n, m)) is None else e[order],
                 None if (w := cat(wa, wb, n, m)) is None else w[order])
        merged = _Column(a.source, a.split_hint)
        merged.blocks, merged.weights = [block], [weights]
        merged.n, merged.raw = n + m, a.raw + b.raw
        merged.last_row = int(block[0][-1])
        cols[kept] = merged
        del cols[other]
        del resolved[other]
        done.append((other, kept))
    return done


def _apart(a: "_Column", b: "_Column") -> bool:
    """Whether two columns were read from different rows (lines) only."""
    ra, rb = a._merged(with_weights=True)[0], b._merged(with_weights=True)[0]
    return ra is not None and rb is not None and not np.intersect1d(ra, rb).size


_MEAN_WORDS = {"avg", "average", "averaged", "mean"}


def _mean_of_a_sum(keys: list[str], cols: dict) -> str | None:
    """Of two spellings of one loss printed on the same lines, the one named a mean (`train_avg_loss`) when
    the other (`train_loss`) is ten times it or more at every shared line: a total over the samples the
    mean divides (FederatedScope's `train_loss` 72314 beside `train_avg_loss` 1.446 over 50,000 samples).
    The mean is the loss; the sum grows with the data set, not with what the model learned."""
    means = [k for k in keys if _MEAN_WORDS & set(_aliases.tokens(k))]
    others = [k for k in keys if k not in means]
    if len(means) != 1 or not others:
        return None
    rm, _, vm, *_ = cols[means[0]]._merged(with_weights=True)
    for k in others:
        ro, _, vo, *_ = cols[k]._merged(with_weights=True)
        if rm is None or ro is None:
            continue
        shared, im, io = np.intersect1d(rm, ro, return_indices=True)
        if not len(shared):
            continue
        a, b = vm[im], vo[io]
        ok = np.isfinite(a) & np.isfinite(b) & (a > 0)
        if ok.any() and ok.sum() == len(shared) and bool(np.all(b[ok] >= 10.0 * a[ok])):
            return means[0]
    return None


_TRAIN_LOSS_KEY = re.compile(r"(?i)^\s*(?:train|training)[\s_/-]+loss\s*$")


_PAREN_QUALIFIER = re.compile(r"\S\s*\([A-Za-z][\w .-]*\)$")  # `Loss (local)`, `Acc (ens)`: a variant of the metric


def _clock_readings(v: np.ndarray) -> bool:
    """Values a `Time:` key printed that are Unix times (`Time: 1564715520.47`, seconds since 1970, between
    the years 2001 and 2100), every one of them: no step lasts decades, so they are a clock, not durations."""
    finite = v[np.isfinite(v)]
    return bool(len(finite)) and bool(np.all((finite >= 1e9) & (finite <= 4.1e9)))


def _decimals(values: np.ndarray) -> int:
    """The fewest decimals that write every finite value (7 when none up to 6 do)."""
    finite = values[np.isfinite(values)]
    # (a value of 1e15 or more has no decimals a double can hold, and rounding 1e306 to 6 decimals would scale it
    # past the float range: such values say nothing about the column's decimals)
    finite = finite[np.abs(finite) < 1e15]
    for d in range(7):
        if np.allclose(finite, np.round(finite, d), rtol=0.0, atol=1e-9 * max(1.0, 10.0 ** -d)):
            return d
    return 7


def _folded_key(key: str) -> str:
    return re.sub(r"[\W_]+", "", key).casefold()


def _sharper_copy(series: dict[str, Series], name: str, alt: str) -> bool:
    """A value printed twice at each step, once in full and once rounded (`Loss: 0.326567` on one line,
    `loss:0.327` in the terms line under it): the same number, so series[name] takes the full digits,
    point for point, and keeps its own steps. True when it did; nothing changes otherwise."""
    a, b = series.get(name), series.get(alt)
    if a is None or b is None or len(a) != len(b) or len(a) < 2 or a.split != b.split \
            or _folded_key(a.source_key) != _folded_key(b.source_key):
        return False  # (two spellings of one name only: `valid_0 auc` and `valid_1 auc` are two sets)
    fa, fb = np.isfinite(a.values), np.isfinite(b.values)
    if not np.array_equal(fa, fb) or not fa.any():
        return False
    da = _decimals(a.values)
    if not 1 <= da < _decimals(b.values) or len(np.unique(a.values[fa])) < 2:
        return False  # (whole numbers, or one value again and again: two scores that agree only when rounded)
    with np.errstate(over="ignore", invalid="ignore"):
        if not np.allclose(np.round(b.values[fb], da), a.values[fa], rtol=0.0, atol=0.51 * 10.0 ** -da):
            return False
    if not np.array_equal(a.values[~fa], b.values[~fb], equal_nan=True):
        return False
    series[name] = Series(name=a.name, split=a.split, steps=a.steps, values=b.values.copy(),
                          epochs=a.epochs, wall=a.wall, source_key=a.source_key)
    return True


def _join(series: dict[str, Series], name: str, alt: str) -> bool:
    """Two keys that mean one evaluation metric, one printed after the other (a notebook's HF
    progress table gives `Validation Loss` every 100 steps, the final `trainer.evaluate()` dict
    `eval_loss` once after it): one series, when they share a split, one's steps end where the
    other's begin, and they agree wherever both have a value. Joined into series[name]; False
    (nothing changed) otherwise, so that neither is lost."""
    a, b = series.get(name), series.get(alt)
    if a is None or b is None or a.split != b.split or not len(a) or not len(b):
        return False
    if not name.startswith("eval/") and _aliases.normalise(a.source_key or "") != _aliases.normalise(b.source_key or ""):
        return False  # (two training losses under one name are two measurements: a running mean, an estimate;
        # one name spelt with a space in one place and '_' in another, `train loss` and `train_loss`, is one)
    if not (a.steps.max() <= b.steps.min() or b.steps.max() <= a.steps.min()) \
            or min(a.steps.min(), b.steps.min()) == max(a.steps.max(), b.steps.max()):
        return False  # interleaved: two evaluations at their own cadences, not one series and its last word
    if np.isnan(a.values).all() or np.isnan(b.values).all():
        return False  # (a series of NaN alone has no scale to compare)
    ma, mb = np.nanmedian(np.abs(a.values)), np.nanmedian(np.abs(b.values))
    if not (ma == ma and mb == mb) or (min(ma, mb) > 0 and max(ma, mb) > 3 * min(ma, mb)) \
            or (min(ma, mb) == 0 < max(ma, mb)):
        return False  # (a percentage and a fraction: `eval/Acc` 77.4 and `val/accuracy` 0.774)
    both = np.intersect1d(a.steps, b.steps)
    if len(both) > max(3, len(b) // 2):
        return False  # mostly the same steps: two measurements of one thing, not one series in two parts
    for st in both:
        va, vb = a.values[a.steps == st], b.values[b.steps == st]
        if not np.allclose(va[-1:], vb[-1:], rtol=1e-4, atol=1e-9, equal_nan=True):
            return False
    extra = ~np.isin(b.steps, a.steps)
    steps = np.concatenate([a.steps, b.steps[extra]])
    order = np.argsort(steps, kind="stable")

    def cat(x, y):
        if x is None and y is None:
            return None
        x = np.full(len(a), np.nan) if x is None else x
        y = np.full(len(b), np.nan) if y is None else y
        return np.concatenate([x, y[extra]])[order]

    series[name] = Series(name=name, split=a.split, steps=steps[order],
                          values=np.concatenate([a.values, b.values[extra]])[order],
                          epochs=cat(a.epochs, b.epochs), wall=cat(a.wall, b.wall), source_key=a.source_key)
    del series[alt]
    return True


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _clean_text(text: str) -> str:
    """`text` with each lone surrogate replaced by U+FFFD (pairs joined)."""
    if _encodable(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _fold_lone_test_split(names: dict[str, tuple[str, str]]) -> None:
    """A run whose only held-out split is called `test` evaluates on it: `eval/test/loss` is its
    `eval/loss`. With a validation split beside it, the test set keeps its own names."""
    held_out = [name for name, _ in names.values() if name.startswith("eval/")]
    if not held_out or any(not n.startswith("eval/test/") for n in held_out):
        return
    taken = {name for name, _ in names.values()}
    for key, (name, split) in list(names.items()):
        if split == "eval:test" and name.startswith("eval/test/"):  # (a key that lost a clash keeps its own name)
            folded = "eval/" + name[len("eval/test/"):]
            if folded not in taken:
                names[key] = (folded, "eval")
                taken.add(folded)


_RUN_WIDE = ("learning_rate", "weight_decay")


def _settings_off_eval(names: dict[str, tuple[str, str]]) -> None:
    """The optimizer's settings (the learning rate, the weight decay) belong to the run, never to a
    split: a rate printed on an evaluation line or in a column after the validation scores
    (`val_mae: 4.02, lr: 5e-6`) is the run's `learning_rate`, unless the log names that otherwise."""
    taken = {name for name, _ in names.values()}
    for key, (name, _split) in list(names.items()):
        if name.startswith("eval/") and name[5:] in _RUN_WIDE and name[5:] not in taken:
            names[key] = (name[5:], "train")
            taken.add(name[5:])


# Scores an evaluation reports (higher or lower is better, never a knob, a count or a speed)
_EVAL_SCORES = frozenset({"accuracy", "perplexity", "f1", "macro_f1", "precision", "recall", "auc", "average_precision",
                          "dice", "miou", "map", "map50", "bleu", "wer", "cer", "mae", "rmse", "mape", "smape", "psnr",
                          "ssim", "mcc", "kappa", "mrr", "spearman", "pearson"})


_HELD_OUT_SPLIT_WORDS = frozenset({"val", "valid", "validation", "eval", "evaluation", "test", "testing", "dev"})
_TRAIN_SPLIT_WORDS = frozenset({"train", "training", "tr", "trn"})


def _scores_on_eval_lines(names: dict[str, tuple[str, str]], resolved: dict, cols: dict) -> list[tuple[str, str]]:
    """A score with no split in its name that is printed only on lines that also carry values named for
    an evaluated split (`epoch 3: perplexity: 21.7 eval_loss: 3.08`, `Step 46, AUC 0.60, Eval_time 0.02 s`)
    and never beside a training loss is that evaluation's score: read as `eval/<score>`. Beside a training
    loss (`loss - accuracy - val_loss`) the unnamed split is training's, as before; and a metric that is an
    evaluation's by its nature (`bleu`) says nothing of the scores beside it (NMT's training `ppl`).
    Returns (key, name) for each key so read."""
    taken = {name for name, _ in names.values()}
    # (a score whose name says it is training's, `Train Accuracy` beside `Valid Loss`, keeps its split)
    candidates = [k for k, (name, split) in names.items()
                  if split == "train" and name in _EVAL_SCORES and f"eval/{name}" not in taken
                  and _TRAIN_SPLIT_WORDS.isdisjoint(_aliases.tokens(k))]
    evals = [k for k, (name, split) in names.items() if split.startswith("eval") and name.startswith("eval/")
             and any(w in _HELD_OUT_SPLIT_WORDS for w in _aliases.tokens(k))]
    if not candidates or not evals:
        return []

    def rows(keys: list[str]) -> np.ndarray:
        got = [cols[k].compact()[0] for k in keys]
        return np.unique(np.concatenate([np.asarray(r) for r in got if r is not None] or [np.empty(0)]))

    on_eval = rows(evals)
    # (a training loss under any spelling: `loss_train` that lost its name to another loss, `losstotal`)
    on_loss = rows([k for k, res in resolved.items() if k in names and res.split == "train" and "loss" in k.lower()])
    done = []
    for k in candidates:
        r = cols[k].compact()[0]
        name = names[k][0]
        if r is None or not len(r) or f"eval/{name}" in taken:
            continue
        r = np.asarray(r)
        if np.isin(r, on_eval).all() and not np.isin(r, on_loss).any():
            names[k] = (f"eval/{name}", "eval")
            taken.add(f"eval/{name}")
            done.append((k, f"eval/{name}"))
    return done


_XGB_SET = re.compile(r"^validation_([01])-(\w[\w@.:-]*)$")


def _first_of_two_eval_sets(resolved: dict, table) -> list[str]:
    """XGBoost's scikit-learn API numbers the sets of `eval_set` (`[93] validation_0-rmse:0.2338
    validation_1-rmse:0.3732`); given two, the first is by convention the training data itself
    (`eval_set=[(X_train, y_train), (X_test, y_test)]`) and the second the held-out set: `validation_0-<m>`
    beside `validation_1-<m>` is read as the training metric. Returns the keys so read."""
    sets: dict[str, dict[str, str]] = {}
    for k in resolved:
        m = _XGB_SET.match(k) if k[:11] == "validation_" else None
        if m:
            sets.setdefault(m.group(2), {})[m.group(1)] = k
    done = []
    for metric, pair in sets.items():
        if len(pair) == 2:
            got = table.resolve(f"train-{metric}")
            resolved[pair["0"]] = _aliases.Resolved(got.name, "train", pair["0"], got.negate, got.scale,
                                                    got.quality, got.order)
            done.append(pair["0"])
    return done


_SPLIT_ALONE = frozenset({"train", "training", "val", "vali", "valid", "validation", "eval", "test", "dev"})


# the training split's word before a metric's name (`train mse`, LightGBM's `training's l2`, `training/l1`)
_TRAIN_PREFIXED = re.compile(r"(?i)^\s*(?:train|training)(?:'s)?[\s_/-]+(\S.*?)\s*$")


def _train_twins_of_eval(resolved: dict) -> list[str]:
    """A metric the alias table does not know keeps its split words: on the evaluation's side the set's name is
    read off (`valid_0's l2` is eval/l2), on the training side not (`training's l2` would stay `training_l2`), so
    that a phrase such as `train steps` or `training samples` stays itself. Where the log prints the same metric
    for its evaluation, the training one is that metric on the training data: `l2`, beside eval/l2. Returns the
    keys so read."""
    evals = {res.name[5:] for res in resolved.values() if res.name.startswith("eval/")}
    if not evals:
        return []
    names = {res.name for res in resolved.values()}
    out = []
    for k, res in resolved.items():
        if res.known or res.split != "train" or res.name in evals:
            continue
        m = _TRAIN_PREFIXED.match(k)
        if m is None:
            continue
        name = _aliases.normalise(m.group(1))
        if name in evals and name not in names:
            resolved[k] = _aliases.Resolved(name, "train", k, quality=_aliases.UNKNOWN - 1)
            names.add(name)
            out.append(k)
    return out


def _bare_splits_beside_a_loss(resolved: dict, table, cols: dict | None = None) -> list[str]:
    """A split word alone (`0 train 10.98`, `0 val 10.97`) is that split's loss only in a log that
    names its loss otherwise; beside `Loss: 1.42`, the bare `Train: 0.54, Val: 0.53, Test: 0.49`
    (or `Val: 61.31%`) score each split the other way, higher is better: read as that split's
    accuracy (a real accuracy key still wins the name); beside a loss named for another split
    (`Train Loss`), as that split's loss. A bare split that moves with the training loss, on its
    scale (`step 300 | loss: 3.21 | val: 2.91`, both falling), is that split's loss too: an accuracy
    moves against the loss. Returns the keys so read."""
    # (`# train: 1001, # test: 112`: the number sign says "number of", a count of examples, no score)
    bare = [k for k in resolved if "".join(_aliases.tokens(k)) in _SPLIT_ALONE and not k.lstrip().startswith("#")]
    losses = [_aliases.tokens(k) for k in resolved if k not in bare and "loss" in _aliases.tokens(k)]
    if not bare or not losses:
        return []
    # ... unless the loss itself names its split (`Train Loss: 0.549  Test: 0.460  Best Test Loss: 0.4500`): a
    # bare split word beside it is the same quantity on that split, its loss
    split_losses = {t for toks in losses for t in toks if t in _SPLIT_ALONE}
    train_loss = [k for k, res in resolved.items() if res.name == "loss" and k not in bare]
    for k in bare:
        word = "".join(_aliases.tokens(k))
        kind = "loss" if split_losses and word not in split_losses else "accuracy"
        if kind == "accuracy" and cols is not None and len(train_loss) == 1 \
                and _moves_with_loss(cols[k], cols[train_loss[0]]):
            kind = "loss"
        got = table.resolve(f"{k} {kind}")
        resolved[k] = _aliases.Resolved(got.name, got.split, k, quality=_aliases.UNKNOWN - 1)
    return bare


def _moves_with_loss(col, loss_col) -> bool:
    """Whether a series rises and falls with the training loss (correlation 0.6 or more over at least four
    points, each paired with the loss printed on its line or last before it) and lies on the loss's
    scale (medians within a factor of four): the same quantity measured on another split."""
    r1, _, v1 = col._merged(with_weights=True)[:3]
    r2, _, v2 = loss_col._merged(with_weights=True)[:3]
    if r1 is None or r2 is None or len(v1) < 4 or len(v2) < 1:
        return False
    idx = np.searchsorted(r2, r1, side="right") - 1  # (the loss on its line, else the last one before it)
    ok = idx >= 0
    a, b = v1[ok], v2[idx[ok]]
    fin = np.isfinite(a) & np.isfinite(b)
    a, b = a[fin], b[fin]
    if len(a) < 4 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return False
    ma, mb = float(np.median(np.abs(a))), float(np.median(np.abs(b)))
    if not (mb > 0 and 0.25 <= ma / mb <= 4.0):
        return False
    return float(np.corrcoef(a, b)[0, 1]) >= 0.6


def _lone_loss(names: dict[str, tuple[str, str]], resolved: dict) -> str | None:
    """A log whose one training loss goes by a name of its own (`Depth Loss`, `recon_loss`,
    `loss1`) trains on that loss: it is read as `loss`, so the loss checks run on it. Only when no
    other key is a known loss (an RL run's `policy_loss`, a detector's `box_loss` are parts, not
    the whole). Returns the key so read, or None."""
    taken = {name for name, _ in names.values()}
    if "loss" in taken:
        return None
    known = [n for n, split in names.values() if split == "train" and n.endswith("loss")]
    candidates = [k for k, (name, split) in names.items()
                  if split == "train" and not resolved[k].known and _names_a_loss(k)]
    if not candidates and not known and not any(name.endswith("loss") for name in taken):
        # a regression run that reports its criterion by the error's name and no loss at all (CNTK's `Finished
        # Epoch[2 of 15]: [Training] mse = 2507.2 * 6000`, `train_mse: 0.41`): the training MSE is what it minimises.
        # Only a key that says it is training's: a bare `mse` beside other terms (`policy=1.7 mse=0.19 total=2.5`)
        # may be one term of a sum
        candidates = [k for k, (name, split) in names.items() if split == "train" and _TRAIN_MSE.match(k)]
        if not candidates and len(names) == 1:
            # ... or the log's only metric (`Training MSE: 0.41` once an epoch, its split word read as the line's
            # label): nothing else on any line to be a term of a sum beside it
            candidates = [k for k, (name, split) in names.items() if split == "train" and k.strip().lower() == "mse"]
    if len(candidates) > 1:
        # (`G total loss: 4.87, G recon loss: 0.001, D loss: 2.28`: the one total among the parts is what trains)
        totals = [k for k in candidates if _TOTAL_WORD.search(k)]
        if len(totals) == 1:
            parts = {names[k][0] for k in candidates}
            known = [n for n in known if n not in parts]
            candidates = totals
    if len(candidates) != 1 or any(n != names[candidates[0]][0] for n in known):
        return None
    lone = candidates[0]
    names[lone] = ("loss", "train")
    if "eval/loss" not in taken:
        # the same loss the evaluation printed (`valid: ..., dice_loss - 0.35` beside the training's
        # `dice_loss - 0.22`) is the evaluation loss
        same = [k for k, (name, split) in names.items()
                if split.startswith("eval") and _EVAL_PREFIX.sub("", k, count=1).lower() == lone.lower() and k != lone]
        if len(same) == 1:
            names[same[0]] = ("eval/loss", "eval")
    return lone


_TRAIN_MSE = re.compile(r"(?i)^\s*(?:train|training)[\s_/-]+mse\s*$")
_EVAL_PREFIX = re.compile(r"(?i)^(?:eval|val|valid|validation)[/_ ]")
_TOTAL_WORD = re.compile(r"(?i)(?:^|[\s_])total(?:[\s_]|$)")


def _lone_accuracy(names: dict[str, tuple[str, str]], resolved: dict) -> list[tuple[str, str]]:
    """A log whose one accuracy goes by a head's name (Keras names each output's metrics after the output:
    `capsnet_accuracy`, `val_capsnet_accuracy`) measures the model's accuracy under it: read as `accuracy`
    (and `eval/accuracy`), so the accuracy checks run on it. Only when the log has no accuracy of its own
    and one such key per split; a top-5 accuracy (`top5_acc`) is no plain accuracy. A regression head's
    error named so (`val_age_mae`, `price_rmse`: a multi-output model's one regression output) is read the
    same way as `mae` / `rmse`. Returns (key, name) for each key so read."""
    taken = {name for name, _ in names.values()}
    # (one of a family that differs only by a number, `top_1_categorical_accuracy` beside top_5, top_10 and
    # top_100, is a ranking at a cutoff, not the model's accuracy)
    families = Counter(_DIGITS.sub("#", k) for k in names)
    done = []
    for base, named in (("accuracy", _names_an_accuracy), ("mae", _names_a_head_error("mae")),
                        ("rmse", _names_a_head_error("rmse"))):
        for split, canonical in (("train", base), ("eval", f"eval/{base}")):
            if canonical in taken:
                continue
            candidates = [k for k, (name, sp) in names.items()
                          if (sp == split or (split == "eval" and sp.startswith("eval"))) and not resolved[k].known
                          and named(k) and families[_DIGITS.sub("#", k)] == 1
                          and not (split == "train" and _aliases.tokens(k)[0] in _HELD_OUT_WORDS)]
            if len(candidates) == 1:
                names[candidates[0]] = (canonical, split)
                done.append((candidates[0], canonical))
    return done


def _names_a_head_error(metric: str):
    def named(key: str) -> bool:
        words = _aliases.tokens(key)
        return len(words) >= 2 and words[-1] == metric and not _SPREAD_WORDS.intersection(words)
    return named


def _names_an_accuracy(key: str) -> bool:
    words = _aliases.tokens(key)
    return len(words) >= 2 and words[-1] in ("acc", "accuracy") and not _TOP_K.search(key) \
        and not _SPREAD_WORDS.intersection(words) and not _ADVERSARY_WORDS.intersection(words[:-1])


# Words that make a key a metric's spread over clients, seeds or folds, not the metric (PFLlib's federated
# evaluation prints `Std Test Accuracy: 0.0108` under `Averaged Test Accuracy`; `loss_std`, `acc stdev`)
_SPREAD_WORDS = frozenset({"std", "stdev", "stddev", "deviation", "stderr"})
# Words that make an accuracy an adversary's: a domain classifier's (DANN: `val_domain_acc`) or a discriminator's
# (`d_acc`, `disc_acc`). Adversarial training drives that accuracy toward chance on purpose (a domain classifier
# that cannot tell the domains apart is the goal), so it is never the model's accuracy.
_ADVERSARY_WORDS = frozenset({"domain", "disc", "discriminator", "d", "adv", "adversary", "adversarial", "critic"})


_DIGITS = re.compile(r"\d+")
_TOP_K = re.compile(r"(?i)top[\W_]*(?:[2-9]|\d\d)|@")


def _names_a_loss(key: str) -> bool:
    words = _aliases.tokens(key)
    return bool(words) and not _SPREAD_WORDS.intersection(words) and (words[-1] in ("loss", "losses") or (len(words) == 1 and re.fullmatch(r"loss\d+", words[0]) is not None)
                            or (len(words) == 2 and words[0] == "l"))  # BasicSR's `l_pix`, `l_percep`: a loss term


def _step_text(x: float) -> str:
    """A step as a log prints it: whole steps without a decimal point."""
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def _restarts(s: np.ndarray, window: int = 4) -> int:
    """Times the step goes back in file order (a resumed run), ignoring interleaved writers (_resumes)."""
    return len(_resumes(s, window))


def _resumes(s: np.ndarray, window: int = 4) -> list[tuple[float, float]]:
    """Where the step goes back in file order (a resumed run), ignoring interleaved writers: for each
    time, the step it went back to and the highest step logged before it.

    A drop counts when the new step is below every one of the `window` steps before it (a resume
    from an older checkpoint), or when the points after it replay steps already seen, in order,
    without passing the old maximum (a resume one or two logging intervals back). Two processes
    appending to one file (1010, 1020, 1010, 1030, ...) do neither. Drops closer than `window`
    rows count once.
    """
    fin = np.isfinite(s)
    if not fin.all():  # (no copy of a million steps when every one is finite)
        s = s[fin]
    n = len(s)
    if n < 2:
        return []
    drops = np.flatnonzero(s[1:] < s[:-1]) + 1
    if not len(drops):
        return []
    runmax = np.maximum.accumulate(s)
    found: list[tuple[float, float]] = []
    last = -window - 1
    for i in drops.tolist():
        if i - last <= window:
            continue
        lo = max(0, i - window)
        real = bool(s[i] < s[lo:i].min())
        if not real:
            nxt = s[i + 1:i + 3]
            if len(nxt):
                seen = set(s[:i].tolist())
                chain = np.concatenate(([s[i]], nxt))
                real = bool((np.diff(chain) > 0).all() and (nxt <= runmax[i - 1]).all()
                            and all(x in seen for x in nxt.tolist()))
            else:
                real = True  # the last point goes back: nothing says it is a writer's jitter
        if real:
            found.append((float(s[i]), float(runmax[i - 1])))
            last = i
    return found


def _increasing(s: np.ndarray) -> bool:
    return len(s) < 2 or bool(np.all(s[1:] > s[:-1]))


def _keep_finer(order: np.ndarray, keep: np.ndarray, v: np.ndarray) -> None:
    """A repeated step whose later value is the earlier one rounded (`iter 240/249 - loss 0.03491753`,
    then the epoch's recap `EPOCH 1 done: loss 0.0350`) keeps the finer spelling of the one value: the
    recap says nothing new and its rounding would stand in for the printed number. The rounded value may
    be printed more than once (a tqdm bar's postfix redrawn as the bar closes: `loss=0.125` twice after the
    logged `loss=0.1248`): the finer value is the one before that run of equal repeats."""
    if v.dtype.kind != "f" or len(v) < 2:
        return
    same_next = ~keep[:-1]  # (in step order) the next point has the same step
    if not same_next.any():
        return
    vo = v[order]
    n = len(vo)
    new_block = np.ones(n, dtype=bool)  # a point opens a block unless it repeats the one before, step and value
    new_block[1:] = ~(same_next & (vo[1:] == vo[:-1]))
    first = np.maximum.accumulate(np.where(new_block, np.arange(n), 0))
    kept = np.flatnonzero(keep)
    before = first[kept] - 1  # the point before the kept point's run of equal repeats
    has = before >= 0
    kept, before = kept[has], before[has]
    same = same_next[before]  # (that point is of the same step)
    kept, before = kept[same], before[same]
    if not len(kept):
        return
    fine, coarse = vo[before], vo[kept]
    ok = np.isfinite(fine) & np.isfinite(coarse) & (fine != coarse)
    if not ok.any():
        return
    rounded = np.zeros(len(kept), dtype=bool)
    with np.errstate(over="ignore", invalid="ignore"):  # (a huge value rounded to 6 decimals overflows on the way)
        for digits in range(2, 7):  # (one decimal is too coarse to tell a rounding from another value)
            rounded |= np.isclose(np.round(fine, digits), coarse, rtol=1e-12, atol=0.0)
    swap = ok & rounded
    keep[before[swap]], keep[kept[swap]] = True, False


def _dedupe(s: np.ndarray, v: np.ndarray, e, w):
    """Sort by step (stable) and keep the last point of each repeated step; NaN steps are all kept. Points
    with no step printed before the first counted one (`Epoch None:`, `Initial:`: the evaluation before
    training) stay first, in line order; later ones go last."""
    n = len(s)
    if n < 2 or bool(np.all(s[1:] > s[:-1])):
        return s, v, e, w, 0
    if np.isnan(s).all():
        return s, v, e, w, 0
    lead = int(np.argmax(~np.isnan(s)))  # (how many points come before the first counted one)
    order = np.argsort(s, kind="stable") if not lead else \
        np.concatenate([np.arange(lead), lead + np.argsort(s[lead:], kind="stable")])
    ss = s[order]
    keep = np.ones(n, dtype=bool)
    keep[:-1] = ss[1:] != ss[:-1]  # NaN != NaN: every NaN step is kept
    _keep_finer(order, keep, v)
    idx = order[keep]
    return (s[idx], v[idx], None if e is None else e[idx], None if w is None else w[idx], int(n - len(idx)))
