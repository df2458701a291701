"""JSON Lines / NDJSON (plain, gzip or stdin): generic metric logs, W&B legacy history, LLaMA-Factory
``trainer_log.jsonl``, torchtune/mmengine JSONL, verl's nested file logger, mmdet 2.x ``log.json``.

The file is read in blocks of complete lines; bare ``NaN``/``Infinity`` are quoted first (strict
JSON parsers reject them) and each block is decoded as one JSON array. Three tiers:

1. Typed: once the keys of the file are known and every value so far was a number, msgspec decodes
   a block straight into slot objects of one generated row type (one float field per key, an
   "absent" NaN payload as the default), and each key becomes a float64 column in one numpy call.
   No per-row dict is ever built. Any surprise (a new key, a string, null, a nested object, a bad
   line) raises, and the block is read by tier 2 instead.
2. Generic: the block becomes dicts, rows are grouped by key layout, each group becomes columns.
3. Careful: lines that do not parse are read one by one (Python's json, then a Python-dict reader),
   and whatever still fails is counted per reason. Nothing is lost and nothing crashes.
"""

from __future__ import annotations

import json
import re
import struct
from collections import deque as _consume
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np

from triage.ingest import aliases as _aliases
from triage.ingest import parts as _parts
from triage.ingest.builder import NAN, RunBuilder, to_float
from triage.ingest.contract import Found, Layout, Reader, register
from triage.ingest.run import Run
from triage.ingest.source import Source

try:  # accelerator (generic decoding ~8x faster than json here, typed ~25x); stdlib json is the fallback
    import msgspec as _ms

    _loads_fast = _ms.json.Decoder().decode
    _FastError: type[Exception] = _ms.DecodeError  # a ValueError; ValidationError is one of these
except ImportError:  # pragma: no cover - exercised when msgspec is absent
    _ms = None
    _loads_fast = json.loads
    _FastError = ValueError

_POS = re.compile(r"\(byte (\d+)\)")
# default of every typed field: a NaN with a payload no parser produces, so "key absent" is told apart
# from a NaN value by one integer comparison on the column's bits
_ABSENT_BITS = 0x7FF8_DEAD_BEEF_0001
_ABSENT = struct.unpack("<d", struct.pack("<Q", _ABSENT_BITS))[0]
TYPED_MAX_KEYS = 512  # wider logs (W&B with thousands of keys) use the generic tier

BLOCK = 1 << 20  # bytes per block: about 1 MB keeps a block's rows in cache between decoding and extraction
FIRST_BLOCK = 256 << 10
MAX_LINE = 32 << 20  # longer lines are skipped (counted), not parsed
MAX_SPLITS = 8  # bad lines per block before the block is parsed line by line
CONTAINER_KEYS = ("data", "metrics", "scalars", "logs")  # nested payloads flattened without a prefix
# a record that names its split in a field ({"name": "validation", ...}, {"split": "val", ...}) holds
# that split's numbers: they are renamed with the split's prefix so they are not read as training
SPLIT_FIELDS = ("split", "mode", "phase", "stage", "subset", "name")
SPLIT_PREFIX = {"train": "", "training": "", "val": "val_", "valid": "val_", "validation": "val_",
                "eval": "val_", "evaluation": "val_", "dev": "val_", "test": "test_", "testing": "test_"}


class _Ctx:
    """State shared across blocks of one file."""

    def __init__(self, b: RunBuilder, null_is_nan: bool):
        t = _aliases.table()
        self.b = b
        self.null_is_nan = null_is_nan
        self.step_keys = t.axes["step"]
        self.epoch_keys = t.axes["epoch"]
        self.wall_keys = t.axes["wall"]
        self.ignore = set(t.axes["ignore"]) | set(self.step_keys) | set(self.epoch_keys) | set(self.wall_keys)
        self.layouts: dict[tuple, tuple] = {}
        self.non_numeric: set[str] = set()
        self.bad_lines: list[tuple[int | None, str]] = []
        self.mm = _MMDet2()
        self.mmdet = False
        self.row = 0  # records seen (file order)
        self.typed = None  # decoder of the typed tier, once the file's keys are known
        self.typed_fields: list[tuple[str, str]] = []  # (json key, attribute)
        self.typed_layout = None
        self.typed_ok = 0
        self.typed_fail = 0
        self.typed_off = False  # keys the typed tier cannot name
        self.block_rows: list = []  # the parsed records of the block being added
        self.epoch_end: dict[float, float] | None = None  # MMEngine: each training epoch's last step

    def bad(self, reason: str, lineno: int | None) -> None:
        self.b.skip(reason)
        if len(self.bad_lines) < 5:
            self.bad_lines.append((lineno, reason))

    def finish(self) -> None:
        for ln, reason in self.bad_lines[:5]:
            self.b.warn(f"line {ln}: {reason}" if ln is not None else reason)
        if self.non_numeric:
            self.b.meta["non_numeric_keys"] = sorted(self.non_numeric)

    # -------------------------------------------------------------- layout of a group of rows
    def layout(self, keys: tuple, first: dict):
        lay = self.layouts.get(keys)
        if lay is None:
            lay = self.layouts[keys] = self._make_layout(keys, first)
        return lay

    def _make_layout(self, keys: tuple, first: dict):
        kset = set(keys)
        step_k = next((k for k in self.step_keys if k in kset), None)
        if step_k is None:
            step_k = _step_of_total_key(keys, first, self.step_keys)
        epoch_k = next((k for k in self.epoch_keys if k in kset), None)
        wall_k = next((k for k in self.wall_keys if k in kset), None)
        split_k = next((k for k in SPLIT_FIELDS if k in kset and isinstance(first[k], str)
                        and first[k].strip().lower() in SPLIT_PREFIX), None)
        metrics = []
        nested = False
        for k in keys:
            if k in self.ignore or k == step_k:
                continue
            if type(first[k]) is dict:
                nested = True
            elif k != split_k:  # a bool or list first value may still be followed by numbers: _extract decides
                metrics.append(k)
        return step_k, epoch_k, wall_k, tuple(metrics), nested, split_k


PARALLEL_MIN = 48 << 20  # files at least this big are split over the CPUs (fork only)


def read(src: Source, fmt: str = "jsonl", null_is_nan: bool | None = None) -> Run:
    b = RunBuilder(src.path, fmt, source=fmt)
    ctx = _Ctx(b, bool(null_is_nan))
    ranges = _plan_ranges(src)
    if len(ranges) > 1:
        _read_parallel(src, ranges, ctx)
    else:
        stream = src.open()
        try:
            _read_stream(ctx, stream, None, first_line=1, last=True)
        finally:
            stream.close()
    ctx.finish()
    b.place_runs()
    return b.build()


def _read_stream(ctx: _Ctx, stream, limit: int | None, first_line: int, last: bool) -> int:
    """Read `limit` bytes (or to EOF) of complete lines; returns the number of lines read."""
    carry = b""
    lineno = first_line
    first = first_line == 1
    left = limit
    size = min(FIRST_BLOCK, BLOCK)  # a small first block: the typed tier needs the keys, which it learns from it
    while True:
        want = size if left is None else min(size, left)
        size = BLOCK
        chunk = stream.read(want) if want > 0 else b""
        if left is not None:
            left -= len(chunk)
        eof = not chunk
        data = carry + chunk if carry else chunk
        if first and data:
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
            first = False
        if eof:
            if data:
                lineno += _block(ctx, data, lineno, last=last)
            return lineno - first_line
        cut = data.rfind(b"\n")
        if cut < 0:
            if len(data) > MAX_LINE:  # one enormous line: skip it up to its end
                ctx.bad("line too long", lineno)
                carry = _skip_to_newline(stream)
                lineno += 1
                continue
            carry = data
            continue
        if cut == len(data) - 1:
            body, carry = data, b""
        else:
            body, carry = data[: cut + 1], data[cut + 1:]
        lineno += _block(ctx, body, lineno, last=False)


def _plan_ranges(src: Source) -> list[tuple[int, int]]:
    """Byte ranges (start, end) cut at line ends, one per CPU, for big plain files; else one range."""
    size = src.size() or 0
    if src.data is not None or src.gz or src.encoding or src.fs_path is None or size < PARALLEL_MIN:
        return [(0, size)]
    if not _parts.can_fork_parts():
        return [(0, size)]
    k = max(1, min(_parts.usable_cpus(), 8, size // (PARALLEL_MIN // 2)))
    if k < 2:
        return [(0, size)]
    cuts = [0]
    with open(src.fs_path, "rb") as fh:
        for i in range(1, k):
            pos = size * i // k
            fh.seek(pos)
            tail = fh.read(1 << 20)
            j = tail.find(b"\n")
            if j < 0:
                continue
            c = pos + j + 1
            if c > cuts[-1] and c < size:
                cuts.append(c)
    cuts.append(size)
    return [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]


def _worker(path: str, start: int, end: int, null_is_nan: bool, fmt: str, last: bool):
    """Read one byte range and return the builder's raw columns."""
    b = RunBuilder(path, fmt, source=fmt)
    ctx = _Ctx(b, null_is_nan)
    with open(path, "rb") as fh:
        fh.seek(start)
        nlines = _read_stream(ctx, fh, end - start, first_line=0 if start else 1, last=last)
    # raw blocks, not concatenated: arrays shared by the keys of one row group are pickled once
    for col in b.cols.values():
        col.flush()
    cols = {key: (col.blocks, col.weights) for key, col in b.cols.items()}
    return {"cols": cols, "meta": b.meta, "rows": ctx.row,
            "lines": nlines, "bad": ctx.bad_lines, "non_numeric": ctx.non_numeric, "mmdet": ctx.mmdet}


def _fork_reader(path: str, start: int, end: int, null_is_nan: bool, fmt: str, last: bool,
                 shm: int | None) -> tuple[int, int]:
    """Fork a child that reads one byte range and writes `_worker`'s result to a pipe (triage.ingest.parts).
    Plain os.fork: multiprocessing and concurrent.futures would add ~40 ms of imports to every
    big scan. Returns (pid, read end of the pipe)."""
    return _parts.fork_part(lambda: _worker(path, start, end, null_is_nan, fmt, last), shm)


def _read_parallel(src: Source, ranges: list[tuple[int, int]], ctx: _Ctx) -> None:
    """Read the first range here and the others in forked children (triage.ingest.parts)."""
    path = str(src.fs_path)
    results = [None] * len(ranges)
    children: dict[int, tuple[int, int]] = {}
    shm_fds: dict[int, int | None] = {}
    try:
        for i, (s, e) in enumerate(ranges):
            if i == 0:
                continue
            shm_fds[i] = _parts.shm_file()
            try:
                children[i] = _fork_reader(path, s, e, ctx.null_is_nan, ctx.b.format, i == len(ranges) - 1,
                                           shm_fds[i])
            except OSError:  # no more processes: this one reads it
                break
        s, e = ranges[0]
        results[0] = _worker(path, s, e, ctx.null_is_nan, ctx.b.format, False)
        for i in list(children):
            pid, fd = children.pop(i)
            results[i] = _parts.collect(pid, fd, shm_fds.get(i))
    finally:
        _parts.stop_children(children, shm_fds)  # interrupted: stop the readers still running
    for i, (s, e) in enumerate(ranges):
        if results[i] is None:
            results[i] = _worker(path, s, e, ctx.null_is_nan, ctx.b.format, i == len(ranges) - 1)
    if any(r["mmdet"] for r in results):  # stateful format: read it in one piece
        stream = src.open()
        try:
            _read_stream(ctx, stream, None, first_line=1, last=True)
        finally:
            stream.close()
        return
    b = ctx.b
    row_off = 0
    line_off = 0
    for r in results:
        shifted: dict[int, np.ndarray] = {}
        for key, (blocks, weights) in r["cols"].items():
            for (rows, steps, values, epochs, walls), wts in zip(blocks, weights):
                rr = shifted.get(id(rows))
                if rr is None:
                    rr = shifted[id(rows)] = rows + row_off
                b.add_block(key, rr, steps, values, epochs, walls, weights=wts)
        m = r["meta"]
        b.meta["rows"] += m["rows"]
        for reason, cnt in m["skipped"].items():
            b.skip(reason, cnt)
        for w in m["warnings"]:
            b.warn(w)
        for ln, reason in r["bad"]:
            ctx.bad_lines.append((ln + line_off if ln is not None else None, reason))
        ctx.non_numeric |= r["non_numeric"]
        row_off += r["rows"]
        line_off += r["lines"]
    ctx.row = row_off


def _skip_to_newline(stream) -> bytes:
    """Discard bytes up to the next newline; return what follows it."""
    while True:
        c = stream.read(BLOCK)
        if not c:
            return b""
        i = c.find(b"\n")
        if i >= 0:
            return c[i + 1:]


def _quote_nonfinite(body: bytes) -> bytes:
    """Quote bare NaN / Infinity / -Infinity (Python's json writes them; strict parsers reject them),
    then the other spellings of a non-finite value (`nan`, `inf`, `-inf`, `Inf`, `-nan(ind)`:
    what an f-string, C's printf, Go or Julia write) where they stand as a value.

    A quoted token inside a string makes that line invalid JSON, and such a line is re-read by the
    careful path from its original bytes, so this never changes what a valid line means.
    """
    return _quote_bare_words(_quote_json_words(body))


def _spellings(word: bytes) -> tuple[bytes, ...]:
    """`nan` -> nan, NAN, Nan, NaN (a sign kept in front): the cases writers use."""
    base = word.lstrip(b"+-")
    sign = word[: len(word) - len(base)]
    mixed = b"NaN" + base[3:] if base.startswith(b"nan") else base.capitalize()
    return tuple(dict.fromkeys(sign + v for v in (base, base.upper(), base.capitalize(), mixed)))


# (spelling, replacement); longer spellings first. NaN, Infinity, -Infinity are _quote_json_words'.
_BARE_WORDS = tuple(
    (variant, repl)
    for word, repl in ((b"-infinity", b'"-Inf"'), (b"+infinity", b'"Inf"'), (b"infinity", b'"Inf"'),
                       (b"-nan(ind)", b'"NaN"'), (b"nan(ind)", b'"NaN"'), (b"-inf", b'"-Inf"'),
                       (b"+inf", b'"Inf"'), (b"inf", b'"Inf"'), (b"-nan", b'"NaN"'), (b"+nan", b'"NaN"'),
                       (b"nan", b'"NaN"'))
    for variant in _spellings(word)
    if variant not in (b"NaN", b"Infinity", b"-Infinity")
) + ((b'-"NaN"', b'"NaN"'), (b'+"NaN"', b'"NaN"'))  # a signed NaN after _quote_json_words quoted it
_BARE_GATE = (b"nan", b"inf", b"NAN", b"INF", b"Nan", b"Inf", b"NaN")


def _quote_bare_words(body: bytes) -> bytes:
    """`"loss": nan,` -> `"loss": "NaN",` for every spelling in _BARE_WORDS, only right after a
    colon (and one optional space) and right before `,` `}` `]` or a space: a value, not part of a
    key or a word. C-speed replaces, and only for spellings the block contains at all."""
    present = [w for w in _BARE_GATE if w in body]
    if not present:
        return body
    out = body
    for word, repl in _BARE_WORDS:
        if not any(p in word for p in present) or word not in out:
            continue
        for sep in (b": ", b":"):
            if sep + word not in out:
                continue
            for end in (b",", b"}", b" ", b"]"):
                out = out.replace(sep + word + end, sep + repl + end)
    return body if out == body else out


def _quote_json_words(body: bytes) -> bytes:
    hits = []
    for token, repl in ((b"NaN", b'"NaN"'), (b"Infinity", b'"Inf"')):
        for i in _occurrences(body, token):
            if token == b"Infinity" and i > 0 and body[i - 1] == 45:  # '-Infinity'
                hits.append((i - 1, i + 8, b'"-Inf"'))
            else:
                hits.append((i, i + len(token), repl))
    if not hits:
        return body
    hits.sort()
    parts = []
    prev = 0
    for s, e, r in hits:
        parts.append(body[prev:s])
        parts.append(r)
        prev = e
    parts.append(body[prev:])
    return b"".join(parts)


def _occurrences(body: bytes, token: bytes):
    """Offsets of `token` in `body`. Scans for its first byte (memchr, ~10x faster than a multi-byte
    search) while that byte is rare; where it is common (a key spelled with it), searches the token."""
    first = token[:1]
    i = body.find(first)
    misses = 0
    while i >= 0:
        if body.startswith(token, i):
            yield i
            i = body.find(first, i + len(token))
            continue
        misses += 1
        if misses > 32:
            break
        i = body.find(first, i + 1)
    else:
        return
    i = body.find(token, i)
    while i >= 0:
        yield i
        i = body.find(token, i + len(token))


def _block(ctx: _Ctx, body: bytes, lineno: int, last: bool) -> int:
    """Parse a run of complete lines (the last block may end without a newline); returns its line count."""
    nlines = body.count(b"\n") + (0 if body.endswith(b"\n") else 1)
    if ctx.mmdet:
        _per_line(ctx, body, lineno, last)
        return nlines
    text = _quote_json_words(body)
    if ctx.typed is not None:
        # other spellings of NaN are looked for only when a block does not parse: valid JSON has none
        ok = _typed_block(ctx, text, nlines)
        if not ok:
            quoted = _quote_bare_words(text)
            ok = quoted is not text and _typed_block(ctx, quoted, nlines)
        if ok:
            ctx.typed_ok += 1
            return nlines
        ctx.typed_fail += 1
    _generic_block(ctx, text, lineno, last)
    _refresh_typed(ctx)
    return nlines


def _to_utf8(block: bytes) -> bytes:
    """Lines that are not UTF-8 read as Latin-1 (cp1252 text, a Windows path in a value), the
    others kept as they are, so one such line never costs its block's rows."""
    out = []
    for line in block.split(b"\n"):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError:
            line = line.decode("latin-1").encode("utf-8")
        out.append(line)
    return b"\n".join(out)


def _generic_block(ctx: _Ctx, text: bytes, lineno: int, last: bool) -> None:
    splits = 0
    start = 0  # offset into text
    line0 = lineno
    n = len(text)
    transcoded = quoted = False
    while start < n:
        seg = text[start:] if start else text
        stripped = seg.rstrip(b"\n\r\t ")
        if not stripped:
            ctx.b.skip("blank line", seg.count(b"\n"))
            break
        try:
            rows = _loads_fast(b"[" + stripped.replace(b"\n", b",") + b"]")
        except (_FastError, ValueError, RecursionError) as exc:
            if isinstance(exc, UnicodeDecodeError) and not transcoded:
                transcoded = True
                text = text[:start] + _to_utf8(seg)
                n = len(text)
                continue
            if not quoted:  # `nan`, `inf`, ... as values: quote them and try again
                quoted = True
                new = _quote_bare_words(seg)
                if new is not seg:
                    text = text[:start] + new
                    n = len(text)
                    continue
            pos = _error_pos(exc)
            splits += 1
            if pos is None or splits > MAX_SPLITS:
                _per_line(ctx, _unquote(seg), line0, last)
                break
            # the array text is '[' + seg with '\n' -> ','; pos - 1 is the byte offset in seg (a wrong
            # guess would only send more lines the careful way)
            off = max(0, min(pos - 1, len(seg) - 1))
            ls = seg.rfind(b"\n", 0, off) + 1 if off > 0 else 0
            le = seg.find(b"\n", off)
            le = len(seg) if le < 0 else le + 1
            if ls > 0:
                _fast_rows(ctx, seg[:ls], line0)
            bad_line_no = line0 + seg.count(b"\n", 0, ls)
            is_last = last and le >= len(seg)
            _per_line(ctx, _unquote(seg[ls:le]), bad_line_no, is_last)
            line0 = bad_line_no + 1
            start += le
            continue
        blank = seg.count(b"\n", len(stripped)) - 1
        if blank > 0:
            ctx.b.skip("blank line", blank)
        _emit(ctx, rows, line0)
        break


def _error_pos(exc: Exception) -> int | None:
    pos = getattr(exc, "pos", None)  # json.JSONDecodeError
    if pos is None:
        m = _POS.search(str(exc))  # msgspec: "... (byte 123)"
        pos = int(m.group(1)) if m else None
    return pos


# ------------------------------------------------------------------------------- typed tier
def _refresh_typed(ctx: _Ctx) -> None:
    """(Re)build the typed decoder from every key layout seen so far, when the file allows it."""
    if _ms is None or ctx.mmdet or ctx.non_numeric or not ctx.layouts or ctx.typed_off:
        ctx.typed = None
        return
    if ctx.typed_fail >= 3 and ctx.typed_fail > ctx.typed_ok:  # this file keeps surprising it
        ctx.typed = None
        return
    keys: dict[str, None] = {}
    for layout_keys, lay in ctx.layouts.items():
        if lay[4] or lay[5]:  # nested objects or a split field: generic tier only
            ctx.typed = None
            return
        keys.update(dict.fromkeys(layout_keys))
    order = tuple(keys)
    if len(order) > TYPED_MAX_KEYS:
        ctx.typed = None
        return
    if ctx.typed is not None and order == tuple(k for k, _ in ctx.typed_fields):
        return
    names = [f"f{i}" for i in range(len(order))]
    try:
        row_type = _ms.defstruct("Row", [(n, float, _ABSENT) for n in names], rename=dict(zip(names, order)),
                                 forbid_unknown_fields=True, gc=False)
        layout = _msgpack_layout(order, names)
    except (ValueError, TypeError, UnicodeError):
        # a key msgspec cannot name a field after (a backslash, a quote, a control character, a
        # lone surrogate): the generic tier reads this file
        ctx.typed = None
        ctx.typed_off = True  # not again on every block
        return
    ctx.typed = _ms.json.Decoder(row_type, strict=False)  # strict=False: "NaN", "0.5" -> float
    ctx.typed_fields = list(zip(order, names))
    ctx.typed_layout = layout


def _msgpack_layout(keys: tuple, names: list[str]):
    """numpy view of msgspec's MessagePack encoding of a list of typed rows.

    Every row encodes to the same bytes: a map header, then per field its key (a str) and the value
    as a 0xcb-tagged big-endian float64, since every field is a float and defaults are filled in.
    Encoding a block this way and viewing it with this dtype pulls out all columns in C, about twice
    as fast as reading attributes one by one.
    """
    nk = len(keys)
    off = 1 if nk < 16 else 3 if nk < 65536 else 5
    offsets = []
    for k in keys:
        ln = len(k.encode("utf-8"))
        off += (1 if ln < 32 else 2 if ln < 256 else 3 if ln < 65536 else 5) + ln + 1  # str header, key, 0xcb
        offsets.append(off)
        off += 8
    return _ms.msgpack.Encoder(), np.dtype({"names": names, "formats": [">f8"] * nk, "offsets": offsets,
                                            "itemsize": off})


def _typed_columns(ctx: _Ctx, rows: list, n: int) -> dict[str, np.ndarray] | None:
    enc, dtype = ctx.typed_layout
    buf = enc.encode(rows)
    head = len(buf) - n * dtype.itemsize
    if head not in (1, 3, 5):  # not one array header before fixed-size rows: the layout does not hold
        return None
    view = np.frombuffer(buf, dtype=dtype, offset=head, count=n)
    return {key: view[attr].astype(np.float64) for key, attr in ctx.typed_fields}


def _typed_block(ctx: _Ctx, text: bytes, nlines: int) -> bool:
    """Decode a block into typed rows and add its columns; False (nothing added) when it does not fit."""
    try:
        rows = ctx.typed.decode_lines(text)
    except (_FastError, ValueError, RecursionError):  # a new key, a string, null, a bad line, bad UTF-8
        return False
    n = len(rows)
    if n != nlines or not n:  # blank lines (the generic tier counts them) or two objects on one line
        return False
    cols = _typed_columns(ctx, rows, n)
    if cols is None:
        return False
    base = ctx.row
    ctx.row = base + n
    b = ctx.b
    present = {key: v.view(np.uint64) != _ABSENT_BITS for key, v in cols.items()}

    def axis(aliases):  # per row, the first alias present (the generic tier picks it per layout)
        out = unset = None
        for k in aliases:
            v = cols.get(k)
            if v is None:
                continue
            have = present[k]
            if out is None:
                out, unset = np.where(have, v, NAN), ~have
            else:
                take = unset & have
                out[take] = v[take]
                unset &= ~take
        return out

    steps = axis(ctx.step_keys)
    if steps is None:
        steps = np.full(n, NAN)
    epochs = axis(ctx.epoch_keys)
    walls = axis(ctx.wall_keys)
    rows_idx = np.arange(base, base + n, dtype=np.int64)
    counted = np.zeros(n, dtype=bool)
    axes: dict[bytes, tuple] = {}  # keys present on the same rows share their axis arrays
    for key, v in cols.items():
        if key in ctx.ignore:
            continue
        have = present[key]
        if have.all():
            b.add_block(key, rows_idx, steps, v, epochs, walls)
            counted[:] = True
        elif have.any():
            sig = have.tobytes()
            ax = axes.get(sig)
            if ax is None:
                ax = axes[sig] = (rows_idx[have], steps[have], None if epochs is None else epochs[have],
                                  None if walls is None else walls[have])
            b.add_block(key, ax[0], ax[1], v[have], ax[2], ax[3])
            counted |= have
    got = int(counted.sum())
    b.meta["rows"] += got
    if got < n:
        b.skip("no metrics", n - got)
    b.note_steps(steps[~np.isnan(steps)])
    return True


def _unquote(t: bytes) -> bytes:
    if b'"NaN"' in t or b'"Inf"' in t or b'"-Inf"' in t:
        t = t.replace(b'"-Inf"', b"-Infinity").replace(b'"Inf"', b"Infinity").replace(b'"NaN"', b"NaN")
    return t


def _fast_rows(ctx: _Ctx, seg: bytes, line0: int) -> None:
    stripped = seg.rstrip(b"\n\r\t ")
    if not stripped:
        return
    try:
        rows = _loads_fast(b"[" + stripped.replace(b"\n", b",") + b"]")
    except (_FastError, ValueError, RecursionError):
        _per_line(ctx, _unquote(seg), line0, False)
        return
    _emit(ctx, rows, line0)


def _per_line(ctx: _Ctx, body: bytes, lineno: int, last: bool) -> None:
    lines = body.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
        ends_with_newline = True
    else:
        ends_with_newline = False
    rows: list[Any] = []
    for i, raw in enumerate(lines):
        ln = lineno + i
        line = raw.strip()
        if not line:
            ctx.b.skip("blank line")
            continue
        if len(line) > MAX_LINE:
            ctx.bad("line too long", ln)
            continue
        obj = _parse_line(line)
        if obj is _BAD:
            if last and i == len(lines) - 1 and not ends_with_newline:
                ctx.bad("truncated last line", ln)
            else:
                ctx.bad("not JSON", ln)
            continue
        if type(obj) is not dict:
            ctx.bad("not an object", ln)
            continue
        rows.append(obj)
    if rows:
        _emit(ctx, rows, lineno)


_BAD = object()


def _parse_line(line: bytes):
    try:
        return _loads_fast(line)
    except (_FastError, ValueError, RecursionError):
        pass
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:  # Latin-1 or cp1252 text in a value: its numbers still read
        text = line.decode("latin-1")
    try:
        return json.loads(text)  # accepts NaN / Infinity
    except (ValueError, RecursionError):
        pass
    if line.startswith(b"{'") or line.startswith(b"{ '"):
        from triage.ingest.textlog import parse_pydict

        d = parse_pydict(text)
        if d is not None:
            return d
    return _BAD


# ---------------------------------------------------------------------------------- rows -> columns
def _emit(ctx: _Ctx, rows: list, line0: int) -> None:
    """Group parsed rows by key layout and add them to the builder as numpy blocks."""
    b = ctx.b
    base = ctx.row
    n = len(rows)
    ctx.row = base + n
    if not n:
        return
    types = set(map(type, rows))
    if types != {dict}:
        keep = [i for i, r in enumerate(rows) if type(r) is dict]
        b.skip("not an object", n - len(keep))
        index = np.asarray(keep, dtype=np.int64)
        rows = [rows[i] for i in keep]
        n = len(rows)
        if not n:
            return
    else:
        index = None
    if not ctx.mmdet and base < 10:
        for r in rows[:5]:
            if "mode" in r and "iter" in r and isinstance(r.get("mode"), str):
                ctx.mmdet = True  # mmdet 2.x log.json: stateful steps, read row by row
                break
    if ctx.mmdet:
        for i, r in enumerate(rows):
            _slow_row(ctx, r, base + (i if index is None else int(index[i])))
        return
    steps_by_row = np.full(n, NAN)
    ctx.block_rows = rows
    lens = np.fromiter(map(len, rows), dtype=np.int64, count=n)
    lo, hi = int(lens.min()), int(lens.max())
    if lo == hi:
        parts = [(None, rows)]
    else:
        parts = []
        for ln in np.unique(lens):
            idx = np.flatnonzero(lens == ln)
            parts.append((idx, list(map(rows.__getitem__, idx.tolist()))))
    for idx, grp in parts:
        try:
            _group(ctx, grp, idx, base, index, steps_by_row, check=True)
        except KeyError:  # same length, different keys: group exactly by key layout
            exact: dict[tuple, list[int]] = {}
            for j, r in enumerate(grp):
                exact.setdefault(tuple(r), []).append(j)
            for jdx in exact.values():
                sub_idx = np.asarray(jdx, dtype=np.int64) if idx is None else idx[jdx]
                _group(ctx, [grp[j] for j in jdx], sub_idx, base, index, steps_by_row, check=False)
    b.note_steps(steps_by_row[~np.isnan(steps_by_row)])


def _split_group(ctx: _Ctx, grp: list, split_k: str, local: np.ndarray, base: int, index,
                 steps_by_row: np.ndarray, check: bool) -> None:
    """Rows sharing one key set whose split is a field of the record: each split's rows are added
    under that split's prefix (a value that names no split leaves its rows unprefixed)."""
    if check and len(grp) > 1:  # a KeyError (rows differ in keys) before anything is added
        _consume(map(itemgetter(*grp[0]), grp), maxlen=0)
    by_prefix: dict[str, list[int]] = {}
    for j, r in enumerate(grp):
        v = r[split_k]
        p = SPLIT_PREFIX.get(v.strip().lower(), "") if isinstance(v, str) else ""
        by_prefix.setdefault(p, []).append(j)
    for p, jdx in by_prefix.items():
        _group(ctx, [grp[j] for j in jdx], local[jdx], base, index, steps_by_row, False,
               prefix=p, split_done=True)


def _group(ctx: _Ctx, grp: list, idx, base: int, index, steps_by_row: np.ndarray, check: bool,
           prefix: str = "", split_done: bool = False) -> None:
    """Rows sharing one key set -> numpy blocks. Raises KeyError (before adding anything) when they don't."""
    b = ctx.b
    first = grp[0]
    keys = tuple(first)
    step_k, epoch_k, wall_k, metrics, nested, split_k = ctx.layout(keys, first)
    n = len(grp)
    local = np.arange(n, dtype=np.int64) if idx is None else np.asarray(idx, dtype=np.int64)
    if split_k is not None and not nested and not split_done:
        _split_group(ctx, grp, split_k, local, base, index, steps_by_row, check)
        return
    if nested:
        for j, r in enumerate(grp):
            li = int(local[j])
            row = base + (li if index is None else int(index[li]))
            _slow_row(ctx, r, row, record_step=False)
            steps_by_row[li] = _num_or_nan(r.get(step_k)) if step_k else NAN
        return
    # extract everything before adding anything: a KeyError means the rows differ in keys
    if check and n > 1:
        extracted = set(metrics) | {step_k, epoch_k, wall_k}
        others = [k for k in keys if k not in extracted]
        if others:
            _consume(map(itemgetter(*others), grp), maxlen=0)
    if not metrics:
        steps = _axis(_extract_step(grp, step_k), n) if step_k is not None else None  # may raise KeyError: first
        b.skip("no metrics", n)
        if steps is not None:
            steps_by_row[local] = steps
        return
    steps = _axis(_extract_step(grp, step_k), n) if step_k is not None else np.full(n, NAN)
    epochs = _axis(_extract(grp, epoch_k, True), n) if epoch_k is not None else None
    walls = _axis(_extract(grp, wall_k, True), n) if wall_k is not None else None
    if epochs is not None and _counter_not_step(steps, epochs):
        steps = epochs.copy()
    cols = [(k, _extract(grp, k, ctx.null_is_nan)) for k in metrics]
    rows_idx = (local if index is None else index[local]) + base
    scored = not prefix and _mmengine_val(first)
    if scored and epochs is None:
        steps = _epoch_end_steps(ctx, steps)
    steps_by_row[local] = steps
    every = False  # a metric with a value on every row
    held = np.zeros(n, dtype=bool)  # else the rows with at least one value (a record of nulls is none)
    for k, (v, present) in cols:
        if v is None:
            stats = _coco_stats(k, grp)
            if stats is None:
                ctx.non_numeric.add(k)
                continue
            for name, sv in stats:
                b.add_block(prefix + name, rows_idx, steps, sv, epochs, walls)
            every = True
            continue
        if k == "time" and "data_time" in first:
            k = _ITER_TIME
        elif k in _aliases.SWIFT_ACC and "global_step/max_steps" in first:
            k = _aliases.SWIFT_ACC[k]
        if prefix and not _NAMES_SPLIT.match(k):
            k = prefix + k
        elif scored:
            k = _eval_key(k)
        if present is not None:
            b.add_block(k, rows_idx[present], steps[present], v[present],
                        None if epochs is None else epochs[present],
                        None if walls is None else walls[present])
            if not every:
                held |= present
        else:
            b.add_block(k, rows_idx, steps, v, epochs, walls)
            every = True
    got = n if every else int(held.sum())
    b.meta["rows"] += got
    if got < n:
        b.skip("no metrics", n - got)


def _mmengine_val(first: dict) -> bool:
    """MMEngine's `vis_data/scalars.json` (MMPretrain, MMSegmentation, MMDetection 3.x) writes a training
    record with `lr`, its losses, `data_time`, `time` and `step`, and after each validation a record of
    the scores with that loop's `data_time`, `time` and `step` only (`{"accuracy/top1": 63.7, "data_time":
    0.47, "time": 0.60, "step": 1}`, `{"aAcc": 96.6, "mIoU": 71.9, ...}`): that record is the evaluation's."""
    if "data_time" not in first or "time" not in first or "step" not in first or len(first) < 4:
        return False
    return not any(k in _MMENGINE_TRAIN_KEYS or "loss" in k.lower() or k.startswith(("lr", "base_lr"))
                   for k in first)


def _epoch_end_steps(ctx: _Ctx, steps: np.ndarray) -> np.ndarray:
    """An epoch-based MMEngine run counts its validation records by epoch (`"step": 3`) and its training
    records by iteration (`"epoch": 3, "step": 237`): each validation record goes to the last training
    step of its epoch, on the training records' axis (when every one has such an epoch)."""
    ends = ctx.epoch_end if ctx.epoch_end is not None else {}
    for r in ctx.block_rows:
        if type(r) is dict and "lr" in r and "epoch" in r and "step" in r:
            e, st = to_float(r["epoch"]), to_float(r["step"])
            if e is not None and st is not None and st > ends.get(e, -1.0):
                ends[e] = st
    ctx.epoch_end = ends
    if not ends or np.isnan(steps).any() or not all(float(x) in ends for x in steps):
        return steps
    return np.asarray([ends[float(x)] for x in steps], dtype=float)


_MMENGINE_TRAIN_KEYS = frozenset({"lr", "epoch", "iter", "memory", "grad_norm", "mode"})


def _eval_key(key: str) -> str:
    """The key a score of an evaluation record is read under: a name that says its split keeps it; a
    training metric's name is that metric on the evaluation (`accuracy/top1` -> `eval/accuracy`)."""
    if _NAMES_SPLIT.match(key):
        return key
    res = _aliases.table().resolve(key, "jsonl")
    if res.split.startswith("eval") or not res.known:
        return key if res.split.startswith("eval") else f"val_{key}"
    return f"eval/{res.name}"


# `time` beside `data_time` (detectron2 metrics.json, mmcv/mmdet log.json): the seconds of one iteration,
# of which `data_time` waited for data; alone, `time` may as well be a clock reading
_ITER_TIME = "step_time"

# pycocotools' COCOeval.stats, in the order summarize() computes them: AP@[.5:.95], AP@.5, AP@.75, AP of
# small/medium/large objects, then AR with 1, 10, 100 detections and AR of small/medium/large objects
_COCO_STATS = ("map", "map50", "map75", "map_small", "map_medium", "map_large",
               "mar_1", "mar_10", "mar_100", "mar_small", "mar_medium", "mar_large")
_COCO_KEY = re.compile(r"(?i)^(.*?)coco[_/]?(?:eval[_/]?)?(bbox|segm|masks?)$")


def _coco_stats(key: str, grp: list) -> list[tuple[str, np.ndarray]] | None:
    """A COCOeval.stats array logged whole (DETR's `"test_coco_eval_bbox": [0.22, 0.41, ...]`): twelve
    numbers in pycocotools' fixed order, read as one metric each (`test_map`, `test_map50`, ...)."""
    m = _COCO_KEY.match(key)
    if m is None:
        return None
    col = list(map(itemgetter(key), grp))
    if not all(type(x) is list and len(x) == len(_COCO_STATS) for x in col):
        return None
    try:
        arr = np.array([[NAN if x is None else x for x in row] for row in col], dtype=np.float64)
    except (TypeError, ValueError):
        return None
    kind = "" if m.group(2).lower() == "bbox" else "mask_"
    return [(f"{m.group(1)}{kind}{stat}", arr[:, i]) for i, stat in enumerate(_COCO_STATS)]


_NAMES_SPLIT = re.compile(r"(?i)(?:val|valid|validation|eval|evaluation|test|dev|train|training)(?:[\W_]|$)")


def _counter_not_step(steps: np.ndarray, epochs: np.ndarray) -> bool:
    """A "step" that stays put while the epoch advances is not the training step (a training
    step grows with every epoch): it counts batches within a pass, e.g. an evaluation pass that
    always has 21 batches. Such records are placed by their epoch."""
    if len(steps) < 2 or not (np.isfinite(steps).all() and np.isfinite(epochs).all()):
        return False
    return bool((steps == steps[0]).all() and (np.diff(epochs) > 0).all())


def _axis(col, n: int) -> np.ndarray:
    arr = col[0]
    return np.full(n, NAN) if arr is None else arr


def _num_or_nan(v) -> float:
    f = to_float(v)
    return NAN if f is None else f


_NUMBER_TYPES = frozenset((float, int))


# a step written with its total as one string (ms-swift's `"global_step/max_steps": "8270/11043"`): the
# key's first part is a step counter's name, and the step is the count before the slash
_COUNT_OF_TOTAL = re.compile(r"^\s*(\d+)\s*/\s*\d+\s*$")


def _step_of_total_key(keys: tuple, first: dict, step_keys) -> str | None:
    for k in keys:
        head, sep, _ = k.partition("/")
        if sep and head in step_keys and isinstance(first[k], str) and _COUNT_OF_TOTAL.match(first[k]):
            return k
    return None


def _count_of_total(v):
    m = _COUNT_OF_TOTAL.match(v) if isinstance(v, str) else None
    return int(m.group(1)) if m else v


def _extract_step(grp: list, key: str):
    """The step column; a `N/M` string counts N steps of M."""
    col = list(map(itemgetter(key), grp))
    if col and isinstance(col[0], str):
        col = [_count_of_total(v) for v in col]
    return _column(col, True)


def _extract(grp: list, key: str, null_is_nan: bool):
    """(float64 values or None when the key holds no numbers, present-mask or None)."""
    return _column(list(map(itemgetter(key), grp)), null_is_nan)


def _column(col: list, null_is_nan: bool):
    """(values, present-mask or None); values None when the column holds no numbers at all.

    Only ints and floats convert in one numpy call: numpy would read `true` as 1.0 and None as
    NaN, so a column holding anything else goes value by value (a bool, a list or a string that
    is not a number is left out; null is NaN only where the source means NaN)."""
    null = NAN if null_is_nan else None
    if set(map(type, col)) <= _NUMBER_TYPES:
        try:
            return np.array(col, dtype=np.float64), None
        except OverflowError:  # an int past float range: value by value (it becomes inf)
            pass
    vals = [to_float(x, null) for x in col]
    mask = np.fromiter((x is not None for x in vals), dtype=bool, count=len(vals))
    if not mask.any():
        return None, None
    arr = np.fromiter((NAN if x is None else x for x in vals), dtype=np.float64, count=len(vals))
    return arr, (None if mask.all() else mask)


# A statistic's summary in place of its value (EDM/StyleGAN `stats.jsonl`: `{"num": .., "mean": .., "std": ..}`)
_SUMMARY_KEYS = frozenset({"num", "count", "n", "mean", "std", "min", "max", "sum"})


def _flatten(d: dict, prefix: str, out: dict) -> None:
    for k, v in d.items():
        if type(v) is dict:
            if "_type" in v:  # W&B media / tables
                continue
            if "mean" in v and v.keys() <= _SUMMARY_KEYS:
                out[f"{prefix}{k}"] = v["mean"]  # the metric is its mean; the spread is not a metric of its own
                continue
            sub = "" if (not prefix and k in CONTAINER_KEYS) else f"{prefix}{k}/"
            _flatten(v, sub, out)
        else:
            out[f"{prefix}{k}"] = v


def _slow_row(ctx: _Ctx, r: dict, row: int, record_step: bool = True) -> None:
    """One record, any shape: nested payloads, mmdet 2.x train/val rows."""
    b = ctx.b
    flat: dict[str, Any] = {}
    nested = any(type(v) is dict for v in r.values())
    _flatten(r, "", flat)
    null = NAN if (ctx.null_is_nan or (nested and "data" in r)) else None  # verl (orjson) writes NaN as null
    step = epoch = wall = NAN
    for k in ctx.step_keys:
        if k in flat:
            step = _num_or_nan(flat[k])
            break
    for k in ctx.epoch_keys:
        if k in flat:
            epoch = _num_or_nan(flat[k])
            break
    for k in ctx.wall_keys:
        if k in flat:
            wall = _num_or_nan(flat[k])
            break
    prefix = ""
    if ctx.mmdet:
        mode = flat.get("mode")
        step = ctx.mm.step(mode, flat)
        if isinstance(mode, str) and mode.lower() in ("val", "eval", "test"):
            prefix = "val_"
    got = False
    for k, v in flat.items():
        if k in ctx.ignore:
            continue
        f = to_float(v, null)
        if f is None:
            if v is not None:
                ctx.non_numeric.add(k)
            continue
        if k == "time" and "data_time" in flat:
            k = _ITER_TIME
        b.add(prefix + k if prefix and not k.startswith(("val", "eval")) else k, f, step, epoch, wall, row=row)
        got = True
    if got:
        b.meta["rows"] += 1
    else:
        b.skip("no metrics")
    if record_step:
        b.note_step(step)


class _MMDet2:
    """mmdet 2.x `log.json`: `iter` counts within the epoch; make a global step."""

    def __init__(self):
        self.base = 0.0
        self.epoch = None
        self.max_iter = 0.0

    def step(self, mode, row: dict) -> float:
        ep = to_float(row.get("epoch"))
        it = to_float(row.get("iter"))
        if it is None:
            return NAN
        if ep is None:
            return it
        if self.epoch is None:
            self.epoch = ep
        if ep != self.epoch:
            if ep > self.epoch:
                self.base += self.max_iter
            self.epoch = ep
            self.max_iter = 0.0
        if mode == "train" or not isinstance(mode, str):
            self.max_iter = max(self.max_iter, it)
            return self.base + it
        return self.base + (self.max_iter or it)


def sniff(head: bytes) -> float:
    """Score how much `head` looks like JSON Lines (one object per line)."""
    text = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    every = text.split(b"\n")
    lines = [ln.strip() for ln in every[:50]]
    lines = [ln for ln in lines if ln]
    if not lines:
        return 0.0
    if len(lines) > 1 and lines[-1] and not lines[-1].endswith(b"}"):
        lines = lines[:-1]  # possibly cut by the head limit
    # (an object opens on a quoted key or closes at once; `{| Epoch: 36 | Loss: 0.28 | }` is a printed line in braces)
    objs = [ln.startswith(b"{") and ln.endswith(b"}") and ln[1:].lstrip()[:1] in (b'"', b"}") for ln in lines]
    good = sum(objs)
    if good == 0:
        return 0.0
    if len(lines) == 1 and good == 1:
        return 0.5  # a single-object JSON file is also JSONL
    more = [ln.strip() for ln in every[50:400]]  # (an evaluation's line may come every 25 records)
    more = [ln for ln in more[:-1] if ln and not ln.startswith(b"{")]
    if sum(1 for ln in [ln for ln, o in zip(lines, objs) if not o] + more
           if _PRINTED_METRIC.search(ln) and not _BAR.search(ln)) >= 2:
        # objects among printed metric lines (`Step 50: eval_loss = 1.18` between a loop's json.dumps lines,
        # more than once: a command line with its settings above the objects is no such line): a printed log
        # whose loop also prints dicts, which the text reader reads whole (dicts and lines);
        # read as JSON Lines, its printed lines would only be counted as skipped
        return 0.15
    return 0.9 * good / len(lines)


# a name, then a number after `:`, `=` or blanks (`val_loss: 1.797e+00`, `eval_loss = 1.18`, `val loss 1.2`),
# outside any object
_PRINTED_METRIC = re.compile(rb"^[^{]*?[A-Za-z][A-Za-z0-9_ /.()-]{0,40}?(?:\s*[:=]\s*|\s+)[-+]?(?:\d|nan\b|inf\b)", re.I)
_BAR = re.compile(rb"\d+%\||it/s\]|s/it\]")


# ---------------------------------------------------------------------------- the reader contract
_SUFFIXES = (".jsonl", ".ndjson", ".jsonlines")


def _sniff(src: Source) -> float:
    score = sniff(src.head())
    if score and src.name.endswith(_SUFFIXES):
        score = max(score, 0.85)
    return score


def _find(root: Path) -> Found | None:
    """LLaMA-Factory writes trainer_log.jsonl beside its checkpoints."""
    return Found.file(root / "trainer_log.jsonl", "jsonl") if (root / "trainer_log.jsonl").is_file() else None


register(Reader(
    "jsonl", "JSON Lines / NDJSON metric log (also gzip and stdin)", _sniff, read, priority=60,
    aliases=("ndjson",), suffixes=(".jsonl", ".ndjson"), layouts=(Layout(60, "trainer_log.jsonl", _find),),
))
