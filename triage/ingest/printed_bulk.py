"""The bulk path for big printed logs: one parse per line shape, numbers cut out by byte position.

A million-line log is a handful of line shapes repeated. Replacing every digit with ``0`` gives each
line a *mask*; two lines with the same mask have the same words, the same punctuation and every
number at the same byte columns. The general reader (``textlog``) reads the first line of a mask
the slow way; when that line turns out to be an ordinary metric record, the mask is registered
here with the byte columns of the numbers its plan uses. Every later line with that mask is only
noted (its line number); after the pass, each mask's numbers are cut out of the file's bytes with
numpy for all its lines at once, and a few lines of each mask are read again the slow way to check
the cut. A mask whose check fails is read line by line, so the bulk path never changes a result.

Used only when a log is long (``MIN_LINES``); small logs go the simple way.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from triage.ingest import printed

MIN_LINES = 20_000
_MASK = bytes.maketrans(b"0123456789", b"0000000000")
_NUMERIC = frozenset("0123456789.eE+-")
_CHECKS = 8  # lines of each mask read again the slow way


class Masks:
    """The mask of every line and where each line starts in the encoded text."""

    def __init__(self, text: str, lines: int):
        raw = text.encode("ascii") if text.isascii() else text.encode("utf-8", "surrogatepass")
        self.buf = np.frombuffer(raw, dtype=np.uint8)
        self.keys = raw.translate(_MASK).split(b"\n")
        if len(self.keys) < lines:
            raise ValueError("masks do not line up with the lines")
        sizes = np.fromiter(map(len, self.keys), dtype=np.int64, count=len(self.keys)) + 1
        self.starts = np.zeros(len(sizes), dtype=np.int64)
        np.cumsum(sizes[:-1], out=self.starts[1:])


@dataclass
class Shape:
    """A registered mask: the plan of its template and the byte columns of the numbers it uses."""
    tpl: str
    plan: printed.Plan
    cols: list  # byte span of each number of the plan's slots (None for skipped slots)
    texts: list  # each used number's text on the registered line (its layout holds for every line)
    lines: list[int] = field(default_factory=list)  # 1-based line numbers noted for the bulk
    arrays: dict | None = None  # slot index -> float64 array over `lines`, after `convert`
    failed: bool = False

    @property
    def counters(self) -> bool:
        return any(s.role in ("step", "epoch") for s in self.plan.slots)

    def counters_of(self, line: str) -> tuple[float | None, float | None]:
        """The step and epoch of one line of this shape (the last slot of a role wins, as in `apply`)."""
        step = epoch = None
        for slot, span in zip(self.plan.slots, self.cols):
            if slot.role == "step":
                step = float(line[span[0]:span[1]])
            elif slot.role == "epoch":
                epoch = float(line[span[0]:span[1]])
        return step, epoch


def register(line: str, tpl: str, plan: printed.Plan, nums: list[str]) -> Shape | None:
    """A Shape for `line` (read the slow way into `tpl`, `plan` and `nums`) when its numbers can be cut
    out by position, else None."""
    if "\r" in line or "\x08" in line or "\x00" in line or "\x1b" in line or not line.isascii():
        return None
    if len(line) > 4000 or plan.sizes:  # (a size or a metric by its number: each line the slow way)
        return None
    raw = list(printed.NUM_RE.finditer(line))
    off = len(raw) - len(nums)
    if off < 0 or [m.group() for m in raw[off:]] != nums or len(nums) != len(plan.slots):
        return None
    cols: list = []
    texts: list = []
    for slot, m in zip(plan.slots, raw[off:]):
        if slot.role == "skip":
            cols.append(None)
            texts.append(None)
            continue
        if not set(m.group()) <= _NUMERIC:
            return None  # commas, nan, inf, durations: the slow way
        cols.append(m.span())
        texts.append(m.group())
    return Shape(tpl, plan, cols, texts)


_POW10 = np.array([float(10 ** k) for k in range(23)])  # exact doubles


def _integer(cells: np.ndarray, places: list[int]) -> np.ndarray:
    """The digits at `places` of every row read as one integer (exact in int64)."""
    out = cells[:, places[0]].astype(np.int64) - 48
    for p in places[1:]:
        out *= 10
        out += cells[:, p]
        out -= 48
    return out


def _decimal(cells: np.ndarray, text: str) -> np.ndarray | None:
    """Parse a column of numbers laid out like `text` (same sign, point and exponent places, digits
    anywhere else) from its bytes (n x width), exactly as float() would: the digits make an integer
    mantissa (exact below 2**53) and one multiplication or division by an exact power of ten rounds
    once, correctly. None when the layout falls outside that (then numpy parses the text)."""
    low = text.lower()
    mant, _, exp = low.partition("e")
    if not mant or "." in exp or (exp and not exp.lstrip("+-")):
        return None
    mdig = [i for i, ch in enumerate(mant) if ch.isdigit()]
    if not mdig or len(mdig) > 15 or mant.count("-") + mant.count("+") > 1 or mant[1:].count("-") \
            or mant[1:].count("+"):
        return None
    frac = len(mant) - 1 - mant.index(".") if "." in mant else 0
    m = _integer(cells, mdig)
    scale = np.full(len(cells), -frac, dtype=np.int64)
    if exp:
        base = len(mant) + 1
        edig = [base + i for i, ch in enumerate(exp) if ch.isdigit()]
        if not edig or len(edig) > 3:
            return None
        e = _integer(cells, edig)
        scale = scale + (-e if exp.startswith("-") else e)
    if np.abs(scale).max(initial=0) > 22:
        return None
    mf = m.astype(np.float64)
    p = _POW10[np.abs(scale)]
    out = np.where(scale >= 0, mf * p, mf / p)
    return -out if mant.startswith("-") else out


def _rows(masks: Masks, idx: np.ndarray) -> np.ndarray:
    """The bytes of lines `idx` (0-based, all of one mask, so all `length` bytes long) as an
    (n, length + 1) array. Lines that follow each other in the file are one strided view of the
    buffer; only the joins between runs copy."""
    width = len(masks.keys[int(idx[0])]) + 1  # with its newline
    cuts = np.flatnonzero(np.diff(idx) != 1) + 1
    parts = []
    for lo, hi in zip(np.concatenate(([0], cuts)), np.concatenate((cuts, [len(idx)]))):
        s0 = int(masks.starts[idx[lo]])
        block = masks.buf[s0: s0 + (hi - lo) * width]
        if len(block) < (hi - lo) * width:  # the file's last line, with no newline after it
            block = np.concatenate((block, np.full((hi - lo) * width - len(block), 10, dtype=np.uint8)))
        parts.append(block.reshape(hi - lo, width))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def convert(shape: Shape, masks: Masks, lines: list[str], shape_of) -> None:
    """Cut every used number of the shape's lines out of the bytes, then check a few lines against
    `shape_of(line) -> (template, numbers)`, the slow way."""
    idx = np.asarray(shape.lines, dtype=np.int64) - 1
    arrays: dict[int, np.ndarray] = {}
    try:
        rows = _rows(masks, idx)
        for j, span in enumerate(shape.cols):
            if span is None:
                continue
            a, b = span
            cells = rows[:, a:b]
            col = _decimal(cells, shape.texts[j])
            if col is None:
                col = np.ascontiguousarray(cells).view(f"S{b - a}").reshape(-1).astype(np.float64)
            arrays[j] = col
    except (ValueError, IndexError):
        shape.failed = True
        return
    n = len(shape.lines)
    picks = {0, n - 1} | set(random.Random(n).sample(range(n), min(_CHECKS, n)))
    for k in picks:
        line = lines[shape.lines[k] - 1]
        tpl, nums = shape_of(line.rstrip("\r"))
        if tpl != shape.tpl or len(nums) != len(shape.cols):
            shape.failed = True
            return
        for j, arr in arrays.items():
            want = printed.to_number(nums[j])
            if not (arr[k] == want or (arr[k] != arr[k] and want != want)):
                shape.failed = True
                return
    shape.arrays = arrays


def fields(shape: Shape, lo: int, hi: int) -> dict:
    """The record fields of lines lo..hi-1 of a converted shape, as `printed.apply` would give them:
    values by key, and step/epoch/batch/total arrays (None when the template has none)."""
    out: dict = {"values": {}, "step": None, "epoch": None, "batch": None, "total": None}
    arrays = shape.arrays or {}
    total_at = None
    pending = None
    for j, slot in enumerate(shape.plan.slots):
        role = slot.role
        if role == "skip":
            continue
        v = arrays[j][lo:hi]
        if role == "value":
            out["values"][slot.key] = v
        elif role in ("step", "epoch", "batch"):
            out[role] = v
        elif role == "total":
            if total_at is None or slot.key == "" or printed._key_role(slot.key) in ("batch", "step"):
                total_at = j
                out["total"] = v
        elif role == "num":
            pending = (slot.key, v)
        elif role == "den" and pending is not None:
            key, num = pending
            with np.errstate(divide="ignore", invalid="ignore"):
                out["values"][key] = np.where(v != 0, num / np.where(v != 0, v, 1.0), np.nan)
            pending = None
    return out
