"""TensorBoard event files (``events.out.tfevents.*``) with a stdlib TFRecord + protobuf decoder.

All three scalar encodings are read: ``Value.simple_value`` (torch SummaryWriter, tensorboardX, TF1,
Keras TF1, HF/Lightning/SB3/CleanRL), ``Value.tensor`` with ``float_val``/``double_val`` (torch
``new_style=True``) and TF2's ``tensor_content`` (raw little-endian bytes, step often omitted = 0).
Histograms, images, text, graphs and hparams are skipped without being decoded. A truncated last
record (a file still being written) ends the file quietly and is counted. Both checksums of every
record are checked (triage/ingest/tfrecord.py): a record with bad data is left out and counted, a
bad length is passed over to the next good record (counted, with the bytes skipped), and a record
that does not decode is counted and skipped. The file is mapped, not read into memory.
"""

from __future__ import annotations

import mmap
import os
import re
import struct
from pathlib import Path

from triage.ingest.builder import NAN, RunBuilder
from triage.ingest.contract import Found, Layout, Reader, mtime, register
from triage.ingest.errors import IngestError
from triage.ingest.run import Run
from triage.ingest.source import Source

_U64 = struct.Struct("<Q")
_F64 = struct.Struct("<d")
_F32 = struct.Struct("<f")
_F16 = struct.Struct("<e")
_I32 = struct.Struct("<i")
_I64 = struct.Struct("<q")

# TensorProto dtypes we turn into floats: code -> (struct for tensor_content, item size)
_DTYPES = {1: (_F32, 4), 2: (_F64, 8), 3: (_I32, 4), 9: (_I64, 8), 19: (_F16, 2), 4: (struct.Struct("<B"), 1),
           5: (struct.Struct("<h"), 2), 6: (struct.Struct("<b"), 1), 10: (struct.Struct("<?"), 1),
           17: (struct.Struct("<H"), 2), 22: (struct.Struct("<I"), 4), 23: (struct.Struct("<Q"), 8)}
_BF16 = 14

SKIP_PLUGINS = {"histograms", "images", "audio", "text", "hparams", "pr_curves", "mesh", "custom_scalars",
                "graph_run_metadata", "graph_keras_model", "projector", "profile", "distributions"}


class _Bad(Exception):
    pass


def _varint(buf, i: int) -> tuple[int, int]:
    result = 0
    shift = 0
    n = len(buf)
    while True:
        if i >= n:
            raise _Bad("truncated varint")
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7
        if shift > 70:
            raise _Bad("varint too long")


def _skip(buf, i: int, wire: int) -> int:
    if wire == 0:
        return _varint(buf, i)[1]
    if wire == 1:
        return i + 8
    if wire == 2:
        ln, i = _varint(buf, i)
        return i + ln
    if wire == 5:
        return i + 4
    raise _Bad(f"wire type {wire}")


def _fields(buf, start: int, end: int):
    """Yield (field, wire, value_or_(start,end)) over a message in buf[start:end]."""
    i = start
    while i < end:
        key = buf[i]
        if key < 0x80:
            i += 1
        else:
            key, i = _varint(buf, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            b = buf[i]
            if b < 0x80:
                yield field, 0, b
                i += 1
            else:
                v, i = _varint(buf, i)
                yield field, 0, v
        elif wire == 2:
            b = buf[i]
            if b < 0x80:
                ln = b
                i += 1
            else:
                ln, i = _varint(buf, i)
            if i + ln > end:
                raise _Bad("length past end")
            yield field, 2, (i, i + ln)
            i += ln
        elif wire == 1:
            yield field, 1, (i, i + 8)
            i += 8
        elif wire == 5:
            yield field, 5, (i, i + 4)
            i += 4
        else:
            raise _Bad(f"wire type {wire}")
    if i != end:
        raise _Bad("message overruns its length")


def _tensor_value(buf, start: int, end: int) -> float | None:
    dtype = 1
    shape = None
    content = None
    for f, w, v in _fields(buf, start, end):
        if f == 1 and w == 0:
            dtype = v
        elif f == 2 and w == 2:
            shape = v
        elif f == 4 and w == 2:
            content = v
        elif f == 5:  # float_val
            if w == 2:
                a, b = v
                return _F32.unpack_from(buf, a)[0] if b - a >= 4 else None
            if w == 5:
                return _F32.unpack_from(buf, v[0])[0]
        elif f == 6:  # double_val
            if w == 2:
                a, b = v
                return _F64.unpack_from(buf, a)[0] if b - a >= 8 else None
            if w == 1:
                return _F64.unpack_from(buf, v[0])[0]
        elif f in (7, 10):  # int_val / int64_val
            if w == 0:
                return float(_signed(v))
            if w == 2:
                a, b = v
                if b > a:
                    return float(_signed(_varint(buf, a)[0]))
        elif f == 13:  # half_val (DT_HALF / DT_BFLOAT16 bits as int32)
            if w == 2:
                a, b = v
                bits = _varint(buf, a)[0] if b > a else None
            elif w == 0:
                bits = v
            else:
                bits = None
            if bits is not None:
                return _half_bits(bits, dtype)
    if shape is not None:
        a, b = shape
        for f, w, v in _fields(buf, a, b):
            if f == 2 and w == 2:  # a dim: only size-1 dims make a scalar
                da, db = v
                for f2, w2, v2 in _fields(buf, da, db):
                    if f2 == 1 and w2 == 0 and v2 != 1:
                        return None
    if content is not None:
        a, b = content
        if dtype == _BF16 and b - a >= 2:
            return _half_bits(int.from_bytes(bytes(buf[a:a + 2]), "little"), dtype)
        spec = _DTYPES.get(dtype)
        if spec is None or b - a < spec[1]:
            return None
        return float(spec[0].unpack_from(buf, a)[0])
    return None


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _half_bits(bits: int, dtype: int) -> float:
    if dtype == _BF16:
        return _F32.unpack(struct.pack("<I", (bits & 0xFFFF) << 16))[0]
    return _F16.unpack(struct.pack("<H", bits & 0xFFFF))[0]


def read_files(label: str, files: list[tuple[Path, str]], fmt: str = "tensorboard") -> Run:
    """Read event files (each with a key prefix, e.g. 'validation/' for Keras' validation folder)."""
    b = RunBuilder(label, fmt, source="tensorboard")
    plugins: dict[str, str] = {}
    nfiles = 0
    for path, prefix in files:
        try:
            data = _map(path)
        except OSError as exc:
            if len(files) == 1:
                raise IngestError(label, exc.strerror or str(exc)) from None
            b.warn(f"{path}: cannot read ({exc.strerror or exc})")
            continue
        if not len(data):
            b.warn(f"{path}: empty event file")
            continue
        nfiles += 1
        try:
            _read_one(b, data, prefix, plugins, str(path))
        finally:
            if hasattr(data, "close"):
                try:
                    data.close()
                except BufferError:  # a view of it is still alive: the collector closes it
                    pass
    b.meta["files"] = nfiles
    run = b.build()
    return run


def _map(path) -> mmap.mmap | bytes:
    """The file mapped, not read: a big or sparse event file costs page cache, not memory."""
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size == 0:
            return b""
        return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)


def _frame(b: RunBuilder, data, name: str):
    """(payload starts, lengths) of the records whose length and data checksums hold; what was
    passed over is counted in `skipped` and named in the warnings."""
    import numpy as np

    from triage.ingest import tfrecord

    arr = np.frombuffer(data, dtype=np.uint8)
    fr = tfrecord.frame(data, arr)
    starts = np.asarray(fr.starts, dtype=np.int64)
    lengths = np.asarray(fr.lengths, dtype=np.int64)
    if fr.truncated:
        b.skip("truncated record")
    if fr.resyncs:
        b.skip("bad record length", fr.resyncs)
        where = f"byte {fr.first_bad:,}"
        rest = (f"; nothing readable after byte {fr.gave_up_at:,}" if fr.gave_up_at is not None else "")
        b.warn(f"{name}: {fr.resyncs} record length(s) fail their checksum (first at {where}); "
               f"{fr.skipped_bytes:,} bytes passed over to the next good record{rest}")
    ok = tfrecord.data_ok(data, arr, starts, lengths)
    nbad = int((~ok).sum())
    if nbad:
        first = int(starts[~ok][0]) - 12
        b.skip("bad checksum", nbad)
        b.warn(f"{name}: {nbad} record(s) fail their data checksum (first at byte {first:,}); left out")
    del arr
    return starts[ok].tolist(), lengths[ok].tolist()


def _read_one(b: RunBuilder, data, prefix: str, plugins: dict[str, str], name: str) -> None:
    import numpy as np

    from triage.ingest.tfrecord import MAX_DATA_CHECK, record_ok

    buf = memoryview(data)
    f64 = _F64.unpack_from
    f32 = _F32.unpack_from
    cols: dict[bytes, tuple[list, list, list, list]] = {}  # fast path: raw tag -> (steps, values, walls, records)
    slow: list[tuple] = []  # (tag, step, value, wall) decoded by the general path, in file order
    bad = 0
    rows = 0
    rec = b.row - 1
    starts, lengths = _frame(b, data, name)
    for start, length in zip(starts, lengths):
        rec += 1
        end = start + length
        # fast path: the layout torch / tensorboardX / TF1 write for one simple_value scalar
        #   09 <wall f64> [10 <step varint>] 2a L1 0a L2 0a L3 <tag> 15 <f32>
        if length > 16 and data[start] == 0x09:
            i = start + 9
            step = 0
            if data[i] == 0x10:
                v = data[i + 1]
                if v < 0x80:
                    step = v
                    i += 2
                else:
                    v2 = data[i + 2]
                    if v2 < 0x80:
                        step = (v & 0x7F) | (v2 << 7)
                        i += 3
                    else:
                        v3 = data[i + 3]
                        if v3 < 0x80:
                            step = (v & 0x7F) | ((v2 & 0x7F) << 7) | (v3 << 14)
                            i += 4
                        else:
                            i = -1
            if i > 0 and data[i] == 0x2A and data[i + 2] == 0x0A and data[i + 4] == 0x0A:
                lt = data[i + 5]
                j = i + 6 + lt
                if lt < 0x80 and j + 5 == end and data[j] == 0x15 and data[i + 1] == lt + 9 and data[i + 3] == lt + 7:
                    tag = data[i + 6:j]
                    c = cols.get(tag)
                    if c is None:
                        c = cols[tag] = ([], [], [], [])
                    c[0].append(step)
                    c[1].append(f32(data, j + 1)[0])
                    c[2].append(f64(data, start + 1)[0])
                    c[3].append(rec)
                    rows += 1
                    continue
        try:
            mark = len(slow)
            got = _decode_event(buf, data, start, end, plugins, slow, f64, f32, rec)
            if got and length > MAX_DATA_CHECK and not record_ok(data, start, length):
                del slow[mark:]  # a long record kept for its scalars: its checksum is checked now
                got = False
                b.skip("bad checksum")
            if got:
                rows += 1
        except (_Bad, IndexError, struct.error, ValueError) as exc:
            bad += 1
            b.skip("undecodable record")
            if bad <= 3:
                b.warn(f"{name}: record at byte {start - 12}: {exc}")
    for raw, (steps, values, walls, recs) in cols.items():
        tag = raw.decode("utf-8", "replace")
        if plugins.get(tag, "scalars") != "scalars":
            continue
        b.add_block(prefix + tag, np.asarray(recs, dtype=np.int64), np.asarray(steps, dtype=np.float64),
                    np.asarray(values, dtype=np.float64), None, np.asarray(walls, dtype=np.float64))
    for tag, step, value, wall, r in slow:
        if plugins.get(tag) in SKIP_PLUGINS:
            continue
        b.add(prefix + tag, value, step, NAN, wall, row=r)
    b.row = rec + 1
    b.meta["rows"] += rows
    buf.release()


def _decode_event(buf, data, start, end, plugins, out, f64, f32, rec: int) -> bool:
    """General Event decoding: any field order, tensor scalars, plugin metadata."""
    wall = NAN
    step = 0.0
    summ = None
    i = start
    while i < end:
        key = data[i]
        if key == 0x09:
            wall = f64(data, i + 1)[0]
            i += 9
        elif key == 0x10:
            sv, i = _varint(data, i + 1)
            step = float(_signed(sv))
        elif key == 0x2A:
            ln, i = _varint(data, i + 1)
            summ = (i, i + ln)
            i += ln
        else:
            if key >= 0x80:
                key, i = _varint(data, i)
            else:
                i += 1
            i = _skip(data, i, key & 7)
    if i != end:
        raise _Bad("event overruns its record")
    if summ is None:
        return False
    got = False
    for f, w, v in _fields(buf, summ[0], summ[1]):
        if f != 1 or w != 2:
            continue
        tag = None
        value = None
        tensor = None
        plugin = None
        for f2, w2, v2 in _fields(buf, v[0], v[1]):
            if f2 == 1 and w2 == 2:
                tag = bytes(buf[v2[0]:v2[1]]).decode("utf-8", "replace")
            elif f2 == 2 and w2 == 5:
                value = f32(data, v2[0])[0]
            elif f2 == 8 and w2 == 2:
                tensor = v2
            elif f2 == 9 and w2 == 2:
                plugin = _plugin_name(buf, v2)
            elif f2 in (3, 4, 5, 6):  # histo / image / audio: not a scalar
                value = None
                tensor = None
                plugin = plugin or "histograms"
                break
        if tag is None:
            continue
        if plugin is not None and tag not in plugins:
            plugins[tag] = plugin
        known = plugins.get(tag)
        if value is None and tensor is not None:
            if known is not None and known != "scalars":
                continue
            value = _tensor_value(buf, tensor[0], tensor[1])
        if value is None or known in SKIP_PLUGINS:
            continue
        out.append((tag, step, value, wall, rec))
        got = True
    return got


def _plugin_name(buf, span) -> str | None:
    for f, w, v in _fields(buf, span[0], span[1]):
        if f == 1 and w == 2:  # plugin_data
            for f2, w2, v2 in _fields(buf, v[0], v[1]):
                if f2 == 1 and w2 == 2:
                    return bytes(buf[v2[0]:v2[1]]).decode("utf-8", "replace")
    return None


def looks_like(head: bytes) -> bool:
    """A TFRecord whose first record is an Event (usually file_version 'brain.Event:N')."""
    if len(head) < 16:
        return False
    length = _U64.unpack_from(head, 0)[0]
    if length <= 0 or length > 1 << 30:
        return False
    if b"brain.Event" in head[12:12 + min(length, 64)]:
        return True
    return head[12] in (0x09, 0x10, 0x1A, 0x2A)


# ---------------------------------------------------------------------------- the reader contract
def _sniff(src: Source) -> float:
    if "tfevents" in src.name:
        return 1.0
    return 0.9 if looks_like(src.head()) else 0.0


def _read(src: Source) -> Run:
    """One event file. Stdin and gzip copies go through a temporary file: the decoder reads files."""
    if src.fs_path is not None and not src.gz:
        return read_files(src.path, [(src.fs_path, "")])
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".tfevents") as tmp:
        tmp.write(src.read_bytes())
        tmp.flush()
        return read_files(src.path, [(Path(tmp.name), "")])


_EVENT_RE = re.compile(r"events\.out\.tfevents\.")
_SPLIT_DIRS = {"train": "train/", "training": "train/", "validation": "validation/", "val": "validation/",
               "valid": "validation/", "eval": "eval/", "evaluation": "eval/", "test": "test/"}


def event_files(root: Path, depth: int = 4, notes: list[str] | None = None) -> list[Path]:
    """Event files under `root`, at most `depth` folders down, hidden folders skipped. A folder
    that cannot be listed is named in `notes` (it may hold event files that are then missing)."""
    out = []
    root_depth = len(root.parts)

    def unreadable(exc: OSError) -> None:
        if notes is not None and exc.filename and os.path.abspath(str(exc.filename)) != os.path.abspath(root):
            why = "permission denied" if isinstance(exc, PermissionError) else (exc.strerror or str(exc))
            notes.append(f"{exc.filename}: cannot be read ({why}); event files in it are not read")

    for dirpath, dirs, files in os.walk(root, onerror=unreadable):
        d = Path(dirpath)
        if len(d.parts) - root_depth >= depth:
            dirs[:] = []
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in files:
            if _EVENT_RE.search(f):
                out.append(d / f)
    return sorted(out)


def plan(root: Path, events: list[Path], notes: list[str]) -> list[tuple[Path, str]]:
    """Which event files form one run, each with a tag prefix."""
    by_dir: dict[Path, list[Path]] = {}
    for e in events:
        by_dir.setdefault(e.parent, []).append(e)
    if len(by_dir) == 1:
        return [(e, "") for e in events]
    # Keras writes train/ and validation/ side by side; torch add_scalars writes sub-runs under the run
    rels = {d: d.relative_to(root) for d in by_dir}
    if root in by_dir or all(len(r.parts) == 1 and r.parts[0].lower() in _SPLIT_DIRS for r in rels.values()):
        out: list = []
        for d, files in sorted(by_dir.items()):
            r = rels[d]
            if not r.parts:
                prefix = ""
            elif len(r.parts) == 1 and r.parts[0].lower() in _SPLIT_DIRS:
                prefix = _SPLIT_DIRS[r.parts[0].lower()]
            else:
                prefix = r.as_posix() + "/"
            out.extend((f, prefix) for f in files)
        return out
    # several runs (e.g. HF output_dir/runs/<date_host>/): the one written last
    parents: dict[Path, list[Path]] = {}
    for d in by_dir:
        r = rels[d]
        top = root / r.parts[0] if r.parts[0] not in ("runs", "logs", "tb", "tensorboard") or len(r.parts) == 1 \
            else root / r.parts[0] / r.parts[1]
        parents.setdefault(top, []).append(d)
    if len(parents) == 1:
        top = next(iter(parents))
        return plan(top, [e for e in events if top in e.parents], notes)

    def newest(top: Path) -> float:
        return max(mtime(e) for d in parents[top] for e in by_dir[d])

    pick = max(parents, key=newest)
    notes.append(f"{len(parents)} TensorBoard runs; read {pick.relative_to(root).as_posix()} (written last)")
    return plan(pick, [e for e in events if pick in e.parents], notes)


def _find(root: Path) -> Found | None:
    notes: list[str] = []
    events = event_files(root, notes=notes)
    if not events:
        return None
    files = plan(root, events, notes)
    return Found.folder(root, lambda label: read_files(label, files), notes)


def _read_dir(root: Path, label: str) -> Run:
    notes: list[str] = []
    events = event_files(root, notes=notes)
    if not events:
        raise IngestError(label, "no TensorBoard event files in this directory")
    run = read_files(label, plan(root, events, notes))
    for n in notes:
        run.warn(n)
    return run


register(Reader(
    "tensorboard", "TensorBoard event file (simple_value, new_style and TF2 tensor scalars)",
    _sniff, _read, priority=90, aliases=("tfevents", "tb"), read_dir=_read_dir,
    # event files are found anywhere below the folder, so every more specific layout goes first
    layouts=(Layout(110, "events.out.tfevents.* in any subfolder", _find),),
))
