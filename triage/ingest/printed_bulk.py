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

The masks themselves are found without masking the text: the lines of one length are compared with
the first of them eight bytes at a time (`_chunk_ids`). A big file (``PARALLEL_MIN``) is cut in
parts whose masks forked children find at the same time (`_line_ids`), with the JSONL reader's
helpers for the hand-over, the clean-up and a child that dies.

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


_SMALL = 64  # lines of one length in a chunk below which they are looked up one by one
_LONG = 2048  # longer lines are looked up one by one
_TAIL = bytes(8)  # read past a chunk's last line by a whole-word comparison, masked out


def _mask_ids(raw: bytes, chunk: int = 1 << 20, start: int = 0, end: int | None = None,
              first: dict | None = None, base: int = 0) -> np.ndarray:
    """Each line's mask id: the index of the first line with the same mask (`_ids_and_newlines`)."""
    return _ids_and_newlines(raw, chunk, start, end, first, base)[0]


def _ids_and_newlines(raw: bytes, chunk: int = 1 << 20, start: int = 0, end: int | None = None,
                      first: dict | None = None, base: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Each line's mask id (the index of the first line with the same mask) and the positions of the
    newlines. The text is masked a chunk of whole lines at a time (a few megabytes stay in the cache).
    A part of the file (`start`..`end`, cut after a newline) counts its lines from `base` and goes on
    with the masks already seen (`first`: mask -> id)."""
    first = {} if first is None else first
    ids, nls = [], []
    pos = start
    done = base
    size = len(raw) if end is None else end
    while pos < size:
        stop = raw.find(b"\n", min(pos + chunk, size) - 1, size)
        stop = size if stop < 0 else stop + 1
        if stop + 8 <= len(raw):  # (a view: the 8 bytes after the chunk are there to be read past)
            got, nl = _chunk_ids(np.frombuffer(raw, dtype=np.uint8, count=stop + 8 - pos, offset=pos), first, done)
        else:
            got, nl = _chunk_ids(np.frombuffer(raw[pos:stop] + _TAIL, dtype=np.uint8), first, done)
        ids.append(got)
        nls.append(nl + pos)
        done += len(got)
        pos = stop
    if not ids:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(ids), np.concatenate(nls)


def _same_mask(cols: np.ndarray, rep: bytes) -> np.ndarray:
    """Which lines have the mask of `rep` (the line's length in bytes): every byte where `rep` has no
    digit is that byte, every byte where it has one is a digit. `cols`: the lines' bytes (and anything
    after them) as little-endian uint64 words, word k of every line in row k (words x lines).

    Five whole-array steps and one fold: ``(word & care) ^ want`` is zero where a non-digit byte is
    that byte and a digit byte's high half is 3 (0x30-0x3F); adding 0x46 to a byte of 0x30-0x3F sets
    its top bit just for 0x3A-0x3F, so ``(word + add) & top`` catches the six that are not digits.
    (A carry out of one byte into the next needs a byte of 0xBA or more where a digit belongs, and
    that line is already caught by the first test.) Word k of all lines lies in one row, so each
    step pairs a long run of words with one constant, and the fold ORs whole rows: numpy's fast
    loops, where lines laid out one per row would give it thousands of 13-word loops."""
    words = cols.shape[0]
    r = np.zeros(8 * words, dtype=np.uint8)
    r[:len(rep)] = np.frombuffer(rep, dtype=np.uint8)
    digit = (r - np.uint8(48)) < 10  # (the padding, 0, is no digit)
    care = np.where(digit, 0xF0, 0xFF).astype(np.uint8)
    care[len(rep):] = 0
    want = np.where(digit, np.uint8(48), r)
    bad = cols & care.view("<u8")[:, None]
    bad ^= want.view("<u8")[:, None]
    if digit.any():
        over = cols + np.where(digit, 0x46, 0).astype(np.uint8).view("<u8")[:, None]
        over &= np.where(digit, 0x80, 0).astype(np.uint8).view("<u8")[:, None]
        bad |= over
    return np.bitwise_or.reduce(bad, axis=0) == 0


def _chunk_ids(buf: np.ndarray, first: dict, done: int) -> tuple[np.ndarray, np.ndarray]:
    """The mask ids of one chunk's lines and its newlines, numbered from `done`. `buf`: the chunk's
    bytes and 8 more (read past and masked out, never looked at).

    A log is a few shapes repeated, so the lines are taken by length: the first line of a length is
    compared with all the others of that length at once, eight bytes per step (`_same_mask`), the
    lines with its mask take its id, and the next line left over does the same while that pays. Rare
    lengths, long lines and what is left are looked up one by one in `first` (mask -> id). Each mask's
    first line is entered there, so the ids are those of a lookup of every line."""
    size = len(buf) - 8
    nl = np.flatnonzero(buf[:size] == 10)
    if size and buf[size - 1] == 10:
        starts = np.concatenate(([0], nl[:-1] + 1))
        stops = nl
    else:
        starts = np.concatenate(([0], nl + 1))
        stops = np.concatenate((nl, [size]))
    n = len(starts)
    ids = np.full(n, -1, dtype=np.int64)
    note = first.setdefault
    lengths = np.minimum(stops - starts, _LONG + 1).astype(np.uint16)
    order = np.argsort(lengths, kind="stable")  # (a radix sort: line order kept within a length)
    cuts = np.flatnonzero(np.diff(lengths[order])) + 1
    for grp in np.split(order, cuts):
        length = int(lengths[grp[0]])
        if length > _LONG or len(grp) < _SMALL:
            continue
        if length == 0:
            ids[grp] = note(b"", done + int(grp[0]))
            continue
        words = (length + 7) // 8
        rows = np.lib.stride_tricks.sliding_window_view(buf, 8 * words)[starts[grp]].view("<u8")
        cols = rows.T.copy()  # (word k of every line in one row: see _same_mask)
        left = grp
        while len(left):
            head = int(left[0])
            line = buf[starts[head]:stops[head]].tobytes()
            same = _same_mask(cols, line)
            ids[left[same]] = note(line.translate(_MASK), done + head)
            matched = int(np.count_nonzero(same))
            keep = ~same
            left = left[keep]
            if matched * 4 < len(same):  # many shapes of this length: one by one
                break
            if len(left):
                cols = cols[:, keep]
    rest = np.flatnonzero(ids < 0)
    if len(rest):
        text = buf[:size].tobytes() if len(rest) > 64 else None
        ids[rest] = [note((text[starts[i]:stops[i]] if text is not None else buf[starts[i]:stops[i]].tobytes())
                          .translate(_MASK), done + i) for i in rest.tolist()]
    return ids, nl


# ---------------------------------------------------------------------- masks over several CPUs
PARALLEL_MIN = 8 << 20  # bytes: a smaller file makes its masks in this process (no fork)
PART_MIN = 4 << 20  # bytes per part at least: a fork, a hand-over and a merge cost a few ms


def _parts(raw: bytes) -> list[tuple[int, int]]:
    """Byte ranges cut after newlines, one per CPU that is free (at most 8), for a big file where fork
    helps; else one. (A child on a CPU that other work keeps busy only takes turns with this process:
    the load average, this process included, says how many are free.)"""
    import os

    size = len(raw)
    if size < PARALLEL_MIN or not hasattr(os, "fork"):
        return [(0, size)]
    k = min(8, size // PART_MIN, _workers())
    cuts = [0]
    for i in range(1, k):
        c = raw.find(b"\n", size * i // k) + 1
        if cuts[-1] < c < size:
            cuts.append(c)
    cuts.append(size)
    return list(zip(cuts, cuts[1:]))


def _part_ids(raw: bytes, start: int, end: int) -> dict:
    """One part's masks, numbered within the part (a child's work: it knows no mask of the parts before),
    and the positions of its newlines."""
    ids, nl = _ids_and_newlines(raw, start=start, end=end)
    return {"ids": ids, "nl": nl}


def _fork_ids(raw: bytes, start: int, end: int, shm: int | None) -> tuple[int, int]:
    """A child that makes one part's masks (`_part_ids`) and writes them, shipped through the shared
    memory file `shm`, to a pipe: (pid, read end). The child shares the file's bytes with this process."""
    from triage.ingest.parts import fork_part

    return fork_part(lambda: _part_ids(raw, start, end), shm)


def _renumber(raw: bytes, part: dict, start: int, end: int, first: dict, base: int) -> np.ndarray:
    """A child's part numbered as one pass over the whole file would number it: each of its own masks
    (a line that is the first of its mask within the part) is looked up among the masks seen before."""
    local, nl = part["ids"], part["nl"]
    own = np.flatnonzero(local == np.arange(len(local)))
    lut = np.zeros(len(local), dtype=np.int64)
    note = first.setdefault
    for j in own.tolist():
        a = start if j == 0 else int(nl[j - 1]) + 1
        b = int(nl[j]) if j < len(nl) else end
        lut[j] = note(raw[a:b].translate(_MASK), base + j)
    return lut[local]


def _line_ids(raw: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Every line's mask id and the positions of the newlines. A big file is cut in parts made at once
    by forked children, this process making the first; their ids are then renumbered in order, so
    the result is exactly `_mask_ids(raw)`. A child that fails costs time, not data: this process
    makes its part. Interrupted, the children are killed and reaped, and no shared memory file stays."""
    parts = _parts(raw)
    if len(parts) < 2:
        return _ids_and_newlines(raw)
    from triage.ingest.parts import collect, shm_file, stop_children

    got: list = [None] * len(parts)
    children: dict[int, tuple[int, int]] = {}
    shm_fds: dict[int, int | None] = {}
    first: dict = {}
    try:
        for i, (s, e) in enumerate(parts[1:], 1):
            shm_fds[i] = shm_file()
            try:
                children[i] = _fork_ids(raw, s, e, shm_fds[i])
            except OSError:  # no more processes: this one makes the part
                break
        s, e = parts[0]
        own, own_nl = _ids_and_newlines(raw, start=s, end=e, first=first)
        ids, nls = [own], [own_nl]
        for i in list(children):
            pid, fd = children.pop(i)
            got[i] = collect(pid, fd, shm_fds.get(i))
    finally:
        stop_children(children, shm_fds)  # interrupted: stop the children still running
    base = len(ids[0])
    for i, (s, e) in enumerate(parts[1:], 1):
        part = got[i]
        if part is None or not _fits(part, raw, s, e):
            part_ids, part_nl = _ids_and_newlines(raw, start=s, end=e, first=first, base=base)
            nls.append(part_nl)
        else:
            part_ids = _renumber(raw, part, s, e, first, base)
            nls.append(part["nl"])
        ids.append(part_ids)
        base += len(part_ids)
    return np.concatenate(ids), np.concatenate(nls)


def _fits(part: dict, raw: bytes, start: int, end: int) -> bool:
    """A child's answer has the shape of its part: one id per line, one newline per line (the last
    line of the file may have none), ids that point at lines of the part no later than their own."""
    ids, nl = part.get("ids"), part.get("nl")
    if not isinstance(ids, np.ndarray) or not isinstance(nl, np.ndarray) or ids.dtype != np.int64:
        return False
    n = len(ids)
    if len(nl) not in (n, n - 1) or (len(nl) == n - 1 and end < len(raw)):
        return False
    return n == 0 or bool((ids >= 0).all() and (ids <= np.arange(n)).all())


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
        self.ids, nl = _line_ids(raw)
        n = len(self.ids)
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
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):  # (`raw` may be a map of the file: no startswith)
            return None
        if raw[:3] == b"\xef\xbb\xbf":
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
    if len(line) > 4000 or plan.sizes or len(plan.paren_avgs) >= 2:  # (a size, a metric by its number, sums
        # that may stand before their averages: each line the slow way)
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


_ROWS = 1 << 15  # lines converted together (their bytes, a few MB, stay in the cache)
_POW10 = np.array([float(10 ** k) for k in range(23)])  # exact doubles


def _integer(cells: np.ndarray, places: list[int]) -> np.ndarray:
    """The digits at `places` of every row read as one integer: exact, in int32 up to 9 digits (the
    character codes summed and their 48s taken off once at the end, which wraps in uint32 and comes
    back: the result is below 10**9), else in int64 (up to 15 digits)."""
    small = len(places) <= 9
    out = cells[:, places[0]].astype(np.uint32 if small else np.int64)
    for p in places[1:]:
        out *= 10
        out += cells[:, p]
    out -= out.dtype.type(48 * int("1" * len(places)) % (1 << 32) if small else 48 * int("1" * len(places)))
    return out.view(np.int32) if small else out


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
    for a block of lines at once: the block's bytes stay in the cache while its columns are read),
    then check a few lines against `shape_of(line) -> (template, numbers)`, the slow way. The blocks
    of a big shape are shared with a second thread when a CPU is free (`_cut_all`)."""
    idx = shape.lines.array() - 1
    arrays = {j: np.empty(len(idx)) for j, span in enumerate(shape.cols) if span is not None}
    try:
        _cut_all(shape, masks, idx, arrays)
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


THREAD_MIN = 4 * _ROWS  # lines of one shape below which a second thread does not pay


def _cut_all(shape: Shape, masks: Masks, idx: np.ndarray, arrays: dict) -> None:
    """Fill `arrays` (slot -> float64 over `idx`) block by block. numpy lets go of the GIL while it
    gathers bytes and does arithmetic on them, so with a CPU free a second thread cuts every other
    block at the same time (no copy, no process: each block writes its own slice of the arrays)."""
    spans = [sp for sp in shape.cols if sp is not None]
    lo = min((a for a, _ in spans), default=0)
    hi = max((b for _, b in spans), default=0)
    # numbers close together: one gather of the bytes from the first to the last (fewer, longer copies)
    near = bool(spans) and hi - lo <= max(64, 2 * sum(b - a for a, b in spans))
    starts = list(range(0, len(idx), _ROWS))

    def cut(which: list[int]) -> None:
        for r in which:
            _cut_block(shape, masks, idx[r:r + _ROWS], r, lo, hi, near, arrays)

    if len(idx) < THREAD_MIN or _workers() < 2:
        cut(starts)
        return
    import threading

    failed: list[BaseException] = []

    def helper() -> None:
        try:
            cut(starts[1::2])
        except BaseException as exc:  # (handed to the caller below)
            failed.append(exc)

    worker = threading.Thread(target=helper, name="triage-cut", daemon=True)
    worker.start()
    try:
        cut(starts[0::2])
    finally:
        worker.join()
    if failed:
        raise failed[0]


def _cut_block(shape: Shape, masks: Masks, rows: np.ndarray, r: int, lo: int, hi: int, near: bool,
               arrays: dict) -> None:
    """The numbers of lines `rows` (the block that starts at position r of the shape's lines)."""
    block = masks.cells(rows, lo, hi) if near else None
    for j, span in enumerate(shape.cols):
        if span is None:
            continue
        a, b = span
        cells = masks.cells(rows, a, b) if block is None else block[:, a - lo:b - lo]
        col = _decimal(cells, shape.texts[j])
        if col is None:
            col = np.ascontiguousarray(cells).view(f"S{b - a}").reshape(-1).astype(np.float64)
        arrays[j][r:r + len(rows)] = col


def _workers() -> int:
    """How many processes or threads may share a job: the CPUs this process may use that other work
    leaves free, this one included (the 1-minute load average counts this process too), at least 1.
    A worker on a CPU that other work keeps busy only takes turns with this one. 1 when
    TRIAGE_NO_PARALLEL is set."""
    import os

    from triage.ingest.parts import usable_cpus

    cpus = usable_cpus()
    if cpus == 1:
        return 1
    try:
        free = cpus - os.getloadavg()[0]
    except (AttributeError, OSError):
        free = cpus - 1
    return max(1, min(cpus, 1 + int(free + 0.5)))


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
