"""The canonical model every reader produces: a `Run` of per-metric `Series` plus text events.

Contract (the detectors consume it):

* ``Series.name`` is canonical (``loss``, ``grad_norm``, ``eval/loss``, ``eval/<set>/loss``), ``split`` is
  ``"train"``, ``"eval"`` or ``"eval:<set>"``; ``steps``/``values`` are float64 numpy arrays of the same length
  (NaN and +-inf are kept as values; a step is NaN when the source does not say); ``epochs`` and ``wall``
  are arrays of the same length or None; ``source_key`` is the key as the source spelled it.
* ``TextEvent`` is one traceback, error, warning, loss-scale overflow or info line.
* ``Run.meta`` holds at least ``rows``, ``skipped`` ({reason: count}), ``restarts``, ``duplicates`` and
  ``warnings`` (list of str).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np


def full_precision(v) -> bool:
    """A float written with all the digits a double holds (`2.905947208404541`): what a program prints
    for a number it computed; a number a person typed (`0.001`, `0.485`) is short."""
    if not isinstance(v, float) or not math.isfinite(v) or v == 0:
        return False
    digits = repr(v).lower().split("e")[0].lstrip("-").replace(".", "").lstrip("0")
    return len(digits) >= 12

@dataclass(eq=False)
class Series:
    name: str
    split: str
    steps: np.ndarray
    values: np.ndarray
    epochs: np.ndarray | None = None
    wall: np.ndarray | None = None
    source_key: str = ""

    def __post_init__(self) -> None:
        self.steps = np.asarray(self.steps, dtype=np.float64)
        self.values = np.asarray(self.values, dtype=np.float64)
        n = len(self.values)
        if len(self.steps) != n:
            raise ValueError(f"series {self.name!r}: {len(self.steps)} steps for {n} values")
        for attr in ("epochs", "wall"):
            arr = getattr(self, attr)
            if arr is not None:
                arr = np.asarray(arr, dtype=np.float64)
                if len(arr) != n:
                    raise ValueError(f"series {self.name!r}: {attr} has {len(arr)} entries for {n} values")
                if n and np.isnan(arr).all():
                    arr = None
                setattr(self, attr, arr)

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        return f"Series({self.name!r}, split={self.split!r}, n={len(self)}, source_key={self.source_key!r})"

    @property
    def finite(self) -> np.ndarray:
        """Boolean mask of the finite values."""
        return np.isfinite(self.values)

    def nan_count(self) -> int:
        return int(np.count_nonzero(np.isnan(self.values)))

    def inf_count(self) -> int:
        return int(np.count_nonzero(np.isinf(self.values)))

    def stats(self) -> dict[str, Any]:
        """first/last/min/max over the values (min/max over finite ones), counts of NaN and inf."""
        v = self.values
        fin = v[np.isfinite(v)]
        return {
            "n": int(len(v)),
            "first": _num(v[0]) if len(v) else None,
            "last": _num(v[-1]) if len(v) else None,
            "min": _num(fin.min()) if len(fin) else None,
            "max": _num(fin.max()) if len(fin) else None,
            "nan": self.nan_count(),
            "inf": self.inf_count(),
            "first_step": _num(_first_finite(self.steps)),
            "last_step": _num(_first_finite(self.steps[::-1])),
        }


def _first_finite(a: np.ndarray) -> float | None:
    idx = np.flatnonzero(np.isfinite(a))
    return float(a[idx[0]]) if len(idx) else None


def _num(x: Any) -> float | int | str | None:
    """A JSON-friendly number: ints stay ints, NaN/inf become the strings 'nan', 'inf', '-inf'."""
    if x is None:
        return None
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x.is_integer() and abs(x) < 2**53:
        return int(x)
    return x


@dataclass(eq=False)
class TextEvent:
    line: int | None
    kind: str  # traceback | error | warning | overflow | info
    text: str
    step: float | None = None
    value: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "kind": self.kind, "text": self.text,
                "step": _num(self.step), "value": _num(self.value)}


def default_meta() -> dict[str, Any]:
    return {"rows": 0, "skipped": {}, "restarts": 0, "duplicates": 0, "warnings": []}


@dataclass(eq=False)
class Run:
    path: str
    format: str
    series: dict[str, Series] = field(default_factory=dict)
    events: list[TextEvent] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=default_meta)

    def __post_init__(self) -> None:
        for key, val in default_meta().items():
            self.meta.setdefault(key, val)

    def __repr__(self) -> str:
        return (f"Run({self.path!r}, format={self.format!r}, rows={self.meta.get('rows')}, "
                f"metrics={len(self.series)}, events={len(self.events)})")

    def metrics(self) -> list[str]:
        return sorted(self.series)

    def get(self, name: str) -> Series | None:
        return self.series.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self.series

    def steps_range(self) -> tuple[float, float] | None:
        """(first, last) known step over every series, or None when no step is known."""
        lo, hi = math.inf, -math.inf
        for s in self.series.values():
            st = s.steps[np.isfinite(s.steps)]
            if len(st):
                lo = min(lo, float(st.min()))
                hi = max(hi, float(st.max()))
        return None if lo == math.inf else (lo, hi)

    @property
    def config(self) -> dict:
        """The run's configuration (a config file found beside the log), or {}."""
        config = self.meta.get("config")
        return config if isinstance(config, dict) else {}

    @property
    def skipped_total(self) -> int:
        return int(sum(self.meta.get("skipped", {}).values()))

    def warn(self, message: str) -> None:
        self.meta.setdefault("warnings", []).append(message)
