"""TFRecord framing with its checksums, for TensorBoard event files.

A record is ``uint64 length | uint32 masked CRC-32C of the length | data | uint32 masked CRC-32C
of the data``. `frame()` walks a file (bytes or an mmap) and returns where the records with a good
length are; `data_ok()` says which of them also have good data. Both checks run in numpy, many
records at a time, so checking costs little next to decoding.

A length whose checksum fails (a flipped bit) would otherwise send the walk to a wrong place and
lose the rest of the file: instead the walk looks for the next place where eight bytes and the
four after them form a valid length and checksum, resumes there, and counts the bytes it passed.
A zero-filled stretch (a sparse or preallocated file) is skipped at C speed, and a search that
finds nothing in `MAX_RESYNC` bytes gives up, so no file makes it run long.
"""

from __future__ import annotations

import re

import numpy as np

_POLY = 0x82F63B78  # CRC-32C (Castagnoli), reflected
_MASK_DELTA = 0xA282EAD8
BATCH = 4096  # records walked between two checks of their length checksums
MAX_RESYNC = 64 << 20  # bytes searched for the next good record before the rest is given up
MAX_DATA_CHECK = 4096  # records up to this long have their data checked in numpy; longer ones on demand


def _table() -> np.ndarray:
    t = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        t = np.where(t & 1, (t >> 1) ^ np.uint32(_POLY), t >> 1).astype(np.uint32)
    return t


TABLE = _table()
_TABLE_PY = TABLE.tolist()
_NONZERO = re.compile(rb"[^\x00]")


def masked_crc(data: bytes) -> int:
    """The masked CRC-32C TFRecord stores, of one byte string (pure Python: short inputs)."""
    crc = 0xFFFFFFFF
    t = _TABLE_PY
    for byte in data:
        crc = t[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    crc ^= 0xFFFFFFFF
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def _masked_crcs(rows: np.ndarray, lengths: np.ndarray | None = None) -> np.ndarray:
    """Masked CRC-32C of each row of a uint8 matrix (only its first `lengths[i]` bytes)."""
    crc = np.full(len(rows), 0xFFFFFFFF, dtype=np.uint32)
    for j in range(rows.shape[1]):
        nxt = TABLE[(crc ^ rows[:, j]) & 0xFF] ^ (crc >> 8)
        crc = nxt if lengths is None else np.where(j < lengths, nxt, crc)
    crc ^= np.uint32(0xFFFFFFFF)
    return (((crc >> 15) | (crc << 17)) + np.uint32(_MASK_DELTA)).astype(np.uint32)


def _u32(arr: np.ndarray, at: np.ndarray) -> np.ndarray:
    b = arr[at[:, None] + np.arange(4)].astype(np.uint32)
    return b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16) | (b[:, 3] << 24)


def _headers_ok(arr: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """For record starts `pos`: does the checksum after each length match it?"""
    if not len(pos):
        return np.zeros(0, dtype=bool)
    return _masked_crcs(arr[pos[:, None] + np.arange(8)]) == _u32(arr, pos + 8)


class Framing:
    """What `frame` found: payload starts and lengths of the records with a good length, and
    what it had to pass over."""

    def __init__(self):
        self.starts: list[int] = []
        self.lengths: list[int] = []
        self.resyncs = 0  # bad lengths passed over
        self.skipped_bytes = 0
        self.truncated = False  # the last record is cut short (a file still being written)
        self.gave_up_at: int | None = None  # a resync that found nothing: bytes from here were not read
        self.first_bad: int | None = None  # byte offset of the first bad length


def frame(data, arr: np.ndarray | None = None) -> Framing:
    """Walk the records of `data` (bytes, memoryview or mmap)."""
    n = len(data)
    if arr is None:
        arr = np.frombuffer(data, dtype=np.uint8)
    out = Framing()
    pos = 0
    while pos < n:
        cand: list[int] = []
        lens: list[int] = []
        stop = None  # 'end' | 'past' (a length past the end)
        p = pos
        while len(cand) < BATCH:
            if p + 12 > n:
                stop = "end" if p >= n else "short"
                break
            length = int.from_bytes(data[p:p + 8], "little")
            if p + 12 + length + 4 > n:
                stop = "past"
                break
            cand.append(p)
            lens.append(length)
            p += 12 + length + 4
        pc = np.asarray(cand, dtype=np.int64)
        ok = _headers_ok(arr, pc)
        bad = np.flatnonzero(~ok)
        if len(bad):
            k = int(bad[0])
            out.starts.extend(x + 12 for x in cand[:k])
            out.lengths.extend(lens[:k])
            pos = _resync(data, arr, cand[k], out)
            continue
        out.starts.extend(x + 12 for x in cand)
        out.lengths.extend(lens)
        pos = p
        if stop == "end" or stop is None:
            continue
        # the walk cannot go on from p: a record cut short (its length is good) or a bad length
        if p + 12 <= n and masked_crc(bytes(data[p:p + 8])) == int.from_bytes(data[p + 8:p + 12], "little"):
            out.truncated = True
            break
        if stop == "short" and not bytes(data[p:n]).strip(b"\x00"):
            break  # zero padding at the end
        if stop == "short":
            out.truncated = True
            break
        pos = _resync(data, arr, p, out)
    return out


def _resync(data, arr: np.ndarray, bad: int, out: Framing) -> int:
    """The next place after `bad` where a record with a good length starts (or len(data))."""
    n = len(data)
    out.resyncs += 1
    if out.first_bad is None:
        out.first_bad = bad
    q = bad + 1
    limit = min(n, bad + MAX_RESYNC)
    while q < limit:
        m = _NONZERO.search(data, q, limit)  # zero runs hold no record: skip them in C
        if m is None:
            break
        q = max(q, m.start() - 7)
        w_end = min(limit, q + (1 << 20))
        last = min(w_end, n - 12)
        if last <= q:
            break
        at = np.arange(q, last, dtype=np.int64)
        # a plausible length has its top bytes zero (< 2**40) and fits in the file
        sure = (arr[at + 5] == 0) & (arr[at + 6] == 0) & (arr[at + 7] == 0)
        at = at[sure]
        if len(at):
            lengths = arr[at[:, None] + np.arange(8)].astype(np.uint64) @ (np.uint64(1) << (np.arange(8, dtype=np.uint64) * np.uint64(8)))
            at = at[(at + 16 + lengths.astype(np.int64)) <= n]
        if len(at):
            good = np.flatnonzero(_headers_ok(arr, at))
            if len(good):
                found = int(at[good[0]])
                out.skipped_bytes += found - bad
                return found
        q = w_end
    out.skipped_bytes += n - bad
    out.gave_up_at = bad
    return n


def data_ok(data, arr: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Per record: True when its data checksum matches, or when it is too long to check here
    (MAX_DATA_CHECK: the caller checks those with `record_ok` if it keeps them)."""
    ok = np.ones(len(starts), dtype=bool)
    small = np.flatnonzero(lengths <= MAX_DATA_CHECK)
    if not len(small):
        return ok
    order = small[np.argsort(lengths[small], kind="stable")]
    i = 0
    while i < len(order):  # groups of similar length: a few hundred numpy steps each
        top = int(lengths[order[i]])
        width = max(16, 1 << (max(top, 1) - 1).bit_length())
        j = int(np.searchsorted(lengths[order], width, side="right"))
        idx = order[i:j]
        s, ln = starts[idx], lengths[idx]
        for chunk in range(0, len(idx), 65536):
            sl = slice(chunk, chunk + 65536)
            cols = np.minimum(s[sl, None] + np.arange(width), len(arr) - 1)
            crc = _masked_crcs(arr[cols], ln[sl])
            ok[idx[sl]] = crc == _u32(arr, s[sl] + ln[sl])
        i = j
    return ok


def record_ok(data, start: int, length: int) -> bool:
    """The data checksum of one record (for the long ones `data_ok` leaves to the caller)."""
    return masked_crc(bytes(data[start:start + length])) == int.from_bytes(data[start + length:start + length + 4], "little")
