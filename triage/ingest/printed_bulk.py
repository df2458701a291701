"""The bulk path for big printed logs: one parse per line shape, numbers cut out by byte position.

A million-line log is a handful of line shapes repeated. Replacing every digit with ``0`` gives each
line a *mask*; two lines with the same mask have the same words, the same punctuation and every
number at the same byte columns. The general reader (``textlog``) reads the first line of a mask
the slow way; when that line turns out to be an ordinary metric record, the mask is registered
here with the byte columns of the numbers its plan uses. Every later line with that mask is only
noted (its line number); after the pass, each mask's numbers are cut out of the file's bytes with
numpy for all its lines at once, and a few lines of each mask are read again the slow way to check
the cut. A mask whose check fails is read line by line, so the bulk path never changes a result.

Lines that change nothing when read (progress-bar redraws, blank lines, messages with no number to
read) are the other common shape: the first line of such a mask is read the slow way, and when the
reader's state is the same after it, its later lines are passed over unread (a run of a record
shape goes on across them; tqdm counts are read from them only when a dict line asks for a step).
A few of them are read again by a fresh reader at the end; one that changes something sends the
whole log the slow way. The file's text is never decoded as a whole: a line is decoded when the
slow way reads it.

Used only when a log is long (``MIN_LINES``); small logs go the simple way.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

import numpy as np

from triage.ingest import printed

MIN_LINES = 20_000
_MASK = bytes.maketrans(b"0123456789", b"0000000000")
_NUMERIC = frozenset("0123456789.eE+-")
_CHECKS = 8  # lines of each mask read again the slow way


class Lines:
    """The file's lines as a read-only sequence of text, each decoded only when asked for (the bulk
    path never looks at most of them). Line i is bytes ``starts[i]:stops[i]`` decoded as UTF-8 with
    bad bytes replaced, which is what splitting the whole decoded text at newlines gives."""

    __slots__ = ("raw", "starts", "stops", "n")

    def __init__(self, raw: bytes, starts: np.ndarray, stops: np.ndarray):
        self.raw, self.starts, self.stops, self.n = raw, starts, stops, len(starts)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> str:
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError("line index out of range")
        return self.raw[self.starts[i]:self.stops[i]].decode("utf-8", "replace")


_WRAPPISH = np.frombuffer(b" \t:=.", dtype=np.uint8)  # how the rest of a line cut in two may begin
_BAR_COUNT = re.compile(rb"(\d+)/(\d+)")


def _mask_ids(raw: bytes, chunk: int = 1 << 20) -> np.ndarray:
    """Each line's mask id: the index of the first line with the same mask. The text is masked and
    split a chunk of whole lines at a time (a megabyte stays in the cache; the whole file at once is
    about half again as slow)."""
    first: dict = {}
    note = first.setdefault
    parts = []
    pos = done = 0
    size = len(raw)
    while pos < size:
        end = raw.find(b"\n", min(pos + chunk, size) - 1)
        end = size if end < 0 else end + 1
        keys = raw[pos:end].translate(_MASK).split(b"\n")
        if raw[end - 1] == 10:
            keys.pop()  # (the empty piece after the chunk's last newline)
        parts.append(np.fromiter(map(note, keys, range(done, done + len(keys))), dtype=np.int64, count=len(keys)))
        done += len(keys)
        pos = end
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


class Masks:
    """The mask of every line (as an id: the index of the first line with that mask), where each line
    starts and stops in the file's bytes, and the lines themselves (`Lines`).

    It also keeps the *quiet* masks: line shapes that, read the slow way from a neutral reader, change
    nothing (a tqdm redraw that is not a finished bar, a blank line, a line with no number to read).
    Their later lines are *transparent*: the reader passes over them without reading them, and a run
    of one record shape goes on across them."""

    def __init__(self, raw: bytes):
        self.raw = raw
        self.buf = np.frombuffer(raw, dtype=np.uint8)
        self.ids = _mask_ids(raw)
        n = len(self.ids)
        nl = np.flatnonzero(self.buf == 10)
        self.starts = np.zeros(n, dtype=np.int64)
        self.starts[1:] = nl[:n - 1] + 1
        self.stops = np.full(n, len(raw), dtype=np.int64)
        self.stops[:min(n, len(nl))] = nl[:n]
        self.lines = Lines(raw, self.starts, self.stops)
        self.transparent = np.zeros(n, dtype=bool)
        self.quiet: set[int] = set()
        self.bar_ids: set[int] = set()  # quiet masks whose lines carry a tqdm count (`n/total [`)
        self._counts: np.ndarray | None = None
        self._unwrapped: np.ndarray | None = None

    @classmethod
    def of(cls, raw: bytes, min_lines: int) -> Masks | None:
        """Masks of a file's bytes (BOM gone), or None when it is too short for the bulk path or
        not UTF-8."""
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            return None
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if len(raw) < min_lines:
            return None
        masks = cls(raw)
        return masks if len(masks.ids) >= min_lines else None

    # ------------------------------------------------------------------ runs
    def run(self, i: int, free: bool) -> np.ndarray:
        """The lines (0-based) of the run that starts at line i: the lines with i's mask that follow
        it with nothing between them, or (`free`) only transparent lines between them."""
        ids, n = self.ids, len(self.ids)
        mid = ids[i]
        free = free and bool(self.quiet)
        j, c = i, 64
        end = n
        while j < n:
            same = ids[j:j + c] == mid
            if free:
                same |= self.transparent[j:j + c]
            k = int(same.argmin())
            if not same[k]:
                end = j + k
                break
            j += c
            c *= 4
        if not free:
            return np.arange(i, end)
        return i + np.flatnonzero(ids[i:end] == mid)

    def passed(self, i: int) -> int:
        """The end (exclusive) of the stretch of transparent lines that starts at line i."""
        tr, n = self.transparent, len(self.transparent)
        j, c = i, 64
        while j < n:
            seg = tr[j:j + c]
            k = int(seg.argmin())
            if not seg[k]:
                return j + k
            j += c
            c *= 4
        return n

    # ------------------------------------------------------------------ quiet masks
    def worth_quiet(self, i: int) -> bool:
        """Whether line i's mask is worth making quiet: marking its lines costs a pass over the rest
        of the file, reading them the slow way about 100 us each."""
        if self._counts is None:
            self._counts = np.bincount(self.ids, minlength=len(self.ids))
        mid = int(self.ids[i])
        count = int(self._counts[mid])
        return mid not in self.quiet and count >= 2 and count * 5000 >= len(self.ids) - i

    def add_quiet(self, i: int, bars: bool, open_end: bool) -> None:
        """Line i (just read the slow way from a neutral reader) changed nothing: the later lines of
        its mask are transparent, save those whose count `a/b` reads a == b (a finished progress bar
        may be a record) and, when the shape may be a line cut in two (`open_end`), those followed by
        a line that begins like the rest of one. `bars`: its lines carry tqdm counts the reader keeps.
        (The caller makes no shape quiet whose lines may be the rest of a cut line.)"""
        ids = self.ids
        mid = int(ids[i])
        self.quiet.add(mid)
        if bars:
            self.bar_ids.add(mid)
        pos = i + 1 + np.flatnonzero(ids[i + 1:] == mid)
        if not len(pos):
            return
        ok = self._next_unwrapped()[pos] if open_end else np.ones(len(pos), dtype=bool)
        line = self.raw[self.starts[i]:self.stops[i]]
        for m in _BAR_COUNT.finditer(line):
            (a0, a1), (b0, b1) = m.span(1), m.span(2)
            if a1 - a0 == b1 - b0:
                ok &= ~(self.cells(pos, a0, a1) == self.cells(pos, b0, b1)).all(axis=1)
        self.transparent[pos[ok]] = True

    def _next_unwrapped(self) -> np.ndarray:
        """Lines not followed by a line that begins like the rest of a cut line (a blank, `:`, `=`, `.`)."""
        if self._unwrapped is None:
            first = np.full(len(self.ids), 10, dtype=np.uint8)
            some = self.stops > self.starts
            first[some] = self.buf[self.starts[some]]
            ok = np.ones(len(self.ids), dtype=bool)
            ok[:-1] = ~np.isin(first[1:], _WRAPPISH)
            self._unwrapped = ok
        return self._unwrapped

    def cells(self, idx: np.ndarray, a: int, b: int) -> np.ndarray:
        """Bytes a..b-1 of lines `idx` (all at least b bytes long) as a (len(idx), b - a) array."""
        if b <= a:
            return np.zeros((len(idx), 0), dtype=np.uint8)
        win = np.lib.stride_tricks.sliding_window_view(self.buf, b - a)
        return win[self.starts[idx] + a]

    def samples(self, mid: int, k: int) -> list[int]:
        """Up to k transparent lines of quiet mask `mid` (first, last and some between) to read again."""
        pos = np.flatnonzero(self.transparent & (self.ids == mid))
        if not len(pos):
            return []
        pick = {0, len(pos) - 1} | set(random.Random(len(pos)).sample(range(len(pos)), min(k, len(pos))))
        return [int(pos[j]) for j in sorted(pick)]


class LineNumbers:
    """The 1-based line numbers noted for a shape, kept as numpy pieces (a run of a million lines is
    one piece, never a million Python ints); the list-like part the reader uses."""

    __slots__ = ("parts", "n", "_flat")

    def __init__(self):
        self.parts: list[np.ndarray] = []
        self.n = 0
        self._flat: np.ndarray | None = None

    def append(self, ln: int) -> None:
        self.extend(np.array([ln], dtype=np.int64))

    def extend(self, lns: np.ndarray) -> None:
        if len(lns):
            self.parts.append(lns)
            self.n += len(lns)
            self._flat = None

    def pop(self) -> int:
        last = self.parts[-1]
        if len(last) == 1:
            self.parts.pop()
        else:
            self.parts[-1] = last[:-1]
        self.n -= 1
        self._flat = None
        return int(last[-1])

    def __len__(self) -> int:
        return self.n

    def array(self) -> np.ndarray:
        if self._flat is None:
            self._flat = np.concatenate(self.parts) if self.parts else np.zeros(0, dtype=np.int64)
            self.parts = [self._flat] if self.n else []
        return self._flat

    def __getitem__(self, k: int) -> int:
        if k == -1:
            return int(self.parts[-1][-1])
        return int(self.array()[k])


@dataclass
class Shape:
    """A registered mask: the plan of its template and the byte columns of the numbers it uses."""
    tpl: str
    plan: printed.Plan
    cols: list  # byte span of each number of the plan's slots (None for skipped slots)
    texts: list  # each used number's text on the registered line (its layout holds for every line)
    lines: LineNumbers = field(default_factory=LineNumbers)  # 1-based line numbers noted for the bulk
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
    if not exp:  # one power of ten for the whole column
        if frac > 22:
            return None
        out = m.astype(np.float64) / _POW10[frac] if frac else m.astype(np.float64)
        return -out if mant.startswith("-") else out
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


def convert(shape: Shape, masks: Masks, lines, shape_of) -> None:
    """Cut every used number of the shape's lines out of the bytes (each number's columns gathered
    for all lines at once), then check a few lines against `shape_of(line) -> (template, numbers)`,
    the slow way."""
    idx = shape.lines.array() - 1
    arrays: dict[int, np.ndarray] = {}
    spans = [sp for sp in shape.cols if sp is not None]
    lo = min((a for a, _ in spans), default=0)
    hi = max((b for _, b in spans), default=0)
    # numbers close together: one gather of the bytes from the first to the last (fewer, longer copies)
    near = spans and hi - lo <= max(64, 2 * sum(b - a for a, b in spans))
    try:
        block = masks.cells(idx, lo, hi) if near else None
        for j, span in enumerate(shape.cols):
            if span is None:
                continue
            a, b = span
            cells = masks.cells(idx, a, b) if block is None else np.ascontiguousarray(block[:, a - lo:b - lo])
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
