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
from typing import Any

import numpy as np

from triage.ingest import aliases as _aliases
from triage.ingest.run import Run, Series, TextEvent, default_meta

NAN = float("nan")

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


class _Column:
    """Points of one source key: numpy blocks (fast path) and Python lists (slow path)."""

    __slots__ = ("blocks", "rows", "steps", "values", "epochs", "walls", "source", "split_hint")

    def __init__(self, source: str | None, split_hint: str | None):
        self.blocks: list[tuple] = []
        self.rows: list[int] = []
        self.steps: list[float] = []
        self.values: list[float] = []
        self.epochs: list[float] = []
        self.walls: list[float] = []
        self.source = source
        self.split_hint = split_hint

    def arrays(self):
        parts_r, parts_s, parts_v, parts_e, parts_w = [], [], [], [], []
        for rows, steps, values, epochs, walls in self.blocks:
            n = len(values)
            parts_r.append(rows)
            parts_s.append(steps)
            parts_v.append(values)
            parts_e.append(epochs if epochs is not None else np.full(n, NAN))
            parts_w.append(walls if walls is not None else np.full(n, NAN))
        if self.values:
            parts_r.append(np.asarray(self.rows, dtype=np.int64))
            parts_s.append(np.asarray(self.steps, dtype=np.float64))
            parts_v.append(np.asarray(self.values, dtype=np.float64))
            parts_e.append(np.asarray(self.epochs, dtype=np.float64))
            parts_w.append(np.asarray(self.walls, dtype=np.float64))
        if len(parts_v) == 1:
            r, s, v, e, w = parts_r[0], parts_s[0], parts_v[0], parts_e[0], parts_w[0]
        else:
            r = np.concatenate(parts_r)
            s = np.concatenate(parts_s)
            v = np.concatenate(parts_v)
            e = np.concatenate(parts_e)
            w = np.concatenate(parts_w)
            if len(r) > 1 and not (np.diff(r) >= 0).all():
                order = np.argsort(r, kind="stable")
                r, s, v, e, w = r[order], s[order], v[order], e[order], w[order]
        return r, s, v, e, w

    def __len__(self) -> int:
        return sum(len(b[2]) for b in self.blocks) + len(self.values)


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
        self._row_steps: list[float] = []  # the step of each row, for restart detection
        self._row_step_blocks: list[np.ndarray] = []
        self.summary: dict[str, float] = {}

    # ------------------------------------------------------------------ bookkeeping
    def skip(self, reason: str, n: int = 1) -> None:
        if n:
            sk = self.meta["skipped"]
            sk[reason] = sk.get(reason, 0) + n

    def warn(self, message: str) -> None:
        if message not in self.meta["warnings"]:
            self.meta["warnings"].append(message)

    def event(self, kind: str, text: str, line: int | None = None, step: float | None = None,
              value: float | None = None) -> None:
        self.events.append(TextEvent(line, kind, text, step, value))

    def note_step(self, step: float | None) -> None:
        """Record the step of a row (in file order) for restart detection."""
        if step is not None and step == step:
            self._row_steps.append(step)

    def note_steps(self, steps: np.ndarray) -> None:
        self._row_step_blocks.append(np.asarray(steps, dtype=np.float64))

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

    def add_block(self, key: str, rows: np.ndarray, steps: np.ndarray, values: np.ndarray,
                  epochs: np.ndarray | None = None, walls: np.ndarray | None = None,
                  source: str | None = None) -> None:
        col = self.column(key, source)
        col.blocks.append((rows, steps, values, epochs, walls))

    # ------------------------------------------------------------------ build
    def _row_step_array(self) -> np.ndarray:
        parts = list(self._row_step_blocks)
        if self._row_steps:
            parts.append(np.asarray(self._row_steps, dtype=np.float64))
        if not parts:
            return np.empty(0)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def build(self) -> Run:
        table = _aliases.table()
        resolved: dict[str, _aliases.Resolved] = {}
        for key, col in self.cols.items():
            if not len(col):
                continue
            resolved[key] = table.resolve(key, col.source or self.source)
        # collisions: the best match keeps the canonical name, the others keep their own
        by_name: dict[str, list[str]] = {}
        for key, res in resolved.items():
            by_name.setdefault(res.name, []).append(key)
        names: dict[str, tuple[str, str]] = {}
        for name, keys in by_name.items():
            keys.sort(key=lambda k: (resolved[k].quality, resolved[k].order, k))
            names[keys[0]] = (name, resolved[keys[0]].split)
            for k in keys[1:]:
                own = _aliases.normalise(k)
                alt = own if own not in by_name and own not in names.values() else f"{name}@{own}"
                split = resolved[k].split
                names[k] = (alt, split)
                self.warn(f"{k!r} and {keys[0]!r} both mean {name!r}: kept {keys[0]!r} as {name!r}, {k!r} as {alt!r}")

        series: dict[str, Series] = {}
        duplicates = 0
        for key, (name, split) in names.items():
            col = self.cols[key]
            res = resolved[key]
            r, s, v, e, w = col.arrays()
            if res.negate:
                v = -v
            if res.scale != 1.0:
                v = v * res.scale
            s, v, e, w, dropped = _dedupe(s, v, e, w)
            duplicates += dropped
            if col.split_hint:
                split = col.split_hint
            series[name] = Series(name=name, split=split, steps=s, values=v,
                                  epochs=e, wall=w, source_key=key)
        self.meta["duplicates"] = int(self.meta.get("duplicates", 0)) + duplicates
        rs = self._row_step_array()
        if len(rs) > 1:
            self.meta["restarts"] = int(self.meta.get("restarts", 0)) + int(np.count_nonzero(np.diff(rs) < 0))
        if self.summary:
            self.meta["summary"] = dict(self.summary)
        self.meta["rows"] = int(self.meta.get("rows") or 0)
        run = Run(path=self.path, format=self.format, series=dict(sorted(series.items())),
                  events=self.events, meta=self.meta)
        return run


def _dedupe(s: np.ndarray, v: np.ndarray, e: np.ndarray, w: np.ndarray):
    """Sort by step (stable) and keep the last point of each repeated step; NaN steps are all kept."""
    n = len(s)
    if n < 2:
        return s, v, e, w, 0
    d = np.diff(s)
    if (d > 0).all():
        return s, v, e, w, 0
    if np.isnan(s).all():
        return s, v, e, w, 0
    order = np.argsort(s, kind="stable")
    ss = s[order]
    keep = np.ones(n, dtype=bool)
    keep[:-1] = ss[1:] != ss[:-1]  # NaN != NaN: every NaN step is kept
    idx = order[keep]
    return s[idx], v[idx], e[idx], w[idx], int(n - len(idx))
