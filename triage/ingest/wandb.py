"""Weights & Biases local files.

* ``run-<id>.wandb`` (wandb >= 0.10): the transaction log, LevelDB-log framing (7-byte ``:W&B`` header,
  32 KiB blocks, records FULL/FIRST/MIDDLE/LAST with an IEEE CRC-32 seeded with the type byte) holding
  ``Record`` protobufs. History rows (field 2) carry items ``key``/``nested_key`` + ``value_json``; the
  value is JSON text with bare ``NaN``/``Infinity``. Read with the stdlib (the wandb wheel no longer ships
  a Python reader). A torn tail (a live run) ends the file quietly and is counted.
* Legacy (< 0.10) ``wandb-history.jsonl``: the JSONL reader with W&B's ``_step``/``_timestamp`` axes.
"""

from __future__ import annotations

import json
import re
import zlib
from pathlib import Path

from triage.ingest import aliases as _aliases
from triage.ingest import jsonl
from triage.ingest.builder import NAN, RunBuilder, to_float
from triage.ingest.contract import Found, Layout, Reader, register
from triage.ingest.errors import IngestError
from triage.ingest.run import Run
from triage.ingest.source import Source
from triage.ingest.tfevents import _Bad, _fields

MAGIC = b":W&B"
BLOCK = 32768
HEADER = 7
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
_AXES = ("_step", "_runtime", "_timestamp")


def records(data: bytes, b: RunBuilder | None = None):
    """Yield record payloads (bytes) from a .wandb file."""
    if data[:4] != MAGIC:
        raise IngestError(b.path if b else "", "not a W&B transaction log (no :W&B header)")
    pos = HEADER
    n = len(data)
    pending: list[bytes] | None = None
    crc_bad = 0
    while pos < n:
        block_left = BLOCK - (pos % BLOCK)
        if block_left < 7:  # zero padding at the end of a block
            pos += block_left
            continue
        if pos + 7 > n:
            if b is not None and data[pos:].strip(b"\x00"):
                b.skip("truncated record")
            break
        crc = int.from_bytes(data[pos:pos + 4], "little")
        length = int.from_bytes(data[pos + 4:pos + 6], "little")
        rtype = data[pos + 6]
        if rtype == 0 and length == 0:  # zeroed tail (preallocated / padding)
            pos += block_left
            continue
        start = pos + 7
        end = start + length
        if end > n or length > block_left - 7:
            if b is not None:
                b.skip("truncated record")
            break
        chunk = data[start:end]
        pos = end
        if zlib.crc32(chunk, zlib.crc32(bytes([rtype]))) & 0xFFFFFFFF != crc:
            crc_bad += 1
            pending = None
            if b is not None:
                b.skip("bad CRC")
            continue
        if rtype == FULL:
            pending = None
            yield chunk
        elif rtype == FIRST:
            pending = [chunk]
        elif rtype == MIDDLE:
            if pending is not None:
                pending.append(chunk)
        elif rtype == LAST:
            if pending is not None:
                pending.append(chunk)
                yield b"".join(pending)
            pending = None
        else:
            if b is not None:
                b.skip("unknown record type")
    if pending and b is not None:
        b.skip("truncated record")


def read_wandb(path: Path, label: str | None = None) -> Run:
    label = label or str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise IngestError(label, exc.strerror or str(exc)) from None
    b = RunBuilder(label, "wandb", source="wandb")
    if data[:4] != MAGIC:
        raise IngestError(label, "not a W&B transaction log (no :W&B header)")
    kinds: dict[int, int] = {}
    bad = 0
    for payload in records(data, b):
        try:
            for f, w, v in _fields(payload, 0, len(payload)):
                if w == 2:
                    kinds[f] = kinds.get(f, 0) + 1
                if f == 2 and w == 2:
                    _history(b, payload, v)
        except (_Bad, IndexError, ValueError) as exc:
            bad += 1
            b.skip("undecodable record")
            if bad <= 3:
                b.warn(f"undecodable record: {exc}")
    b.meta["record_kinds"] = {str(k): c for k, c in sorted(kinds.items())}
    if not b.cols and kinds and 2 not in kinds:
        b.warn("the .wandb file holds no history records (run/config/summary only)")
    return b.build()


def _history(b: RunBuilder, buf: bytes, span) -> None:
    items: dict[str, object] = {}
    step_num = None
    for f, w, v in _fields(buf, span[0], span[1]):
        if f == 1 and w == 2:  # HistoryItem
            key = None
            nested: list[str] = []
            value_json = None
            for f2, w2, v2 in _fields(buf, v[0], v[1]):
                if f2 == 1 and w2 == 2:
                    key = buf[v2[0]:v2[1]].decode("utf-8", "replace")
                elif f2 == 2 and w2 == 2:
                    nested.append(buf[v2[0]:v2[1]].decode("utf-8", "replace"))
                elif f2 == 16 and w2 == 2:
                    value_json = buf[v2[0]:v2[1]].decode("utf-8", "replace")
            name = key if key else "/".join(nested)
            if not name or value_json is None:
                continue
            try:
                items[name] = json.loads(value_json)
            except ValueError:
                items[name] = value_json
        elif f == 2 and w == 2:  # HistoryStep {1: num}
            step_num = 0
            for f2, w2, v2 in _fields(buf, v[0], v[1]):
                if f2 == 1 and w2 == 0:
                    step_num = v2
    step = to_float(items.get("train/global_step"))
    if step is None:
        step = to_float(items.get("_step"))
    if step is None:
        step = float(step_num) if step_num is not None else NAN
    wall = to_float(items.get("_timestamp"))
    epoch = to_float(items.get("epoch"))
    if epoch is None:
        epoch = to_float(items.get("train/epoch"))
    got = False
    skip = _aliases.table().axis_keys
    for k, val in items.items():
        if k in _AXES or k in skip or isinstance(val, (dict, list)):
            continue
        f = to_float(val)
        if f is None:
            continue
        b.add(k, f, step, NAN if epoch is None else epoch, NAN if wall is None else wall)
        got = True
    b.end_row(got, step)


# ---------------------------------------------------------------------------- the reader contract
def _read(src: Source) -> Run:
    """A transaction log. Stdin and gzip copies go through a temporary file: the decoder reads files."""
    if src.fs_path is not None and not src.gz:
        return read_wandb(src.fs_path, src.path)
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".wandb") as tmp:
        tmp.write(src.read_bytes())
        tmp.flush()
        return read_wandb(Path(tmp.name), src.path)


def _merge_output_log(log: Path):
    """A W&B run folder keeps the console in files/output.log: add its events (tracebacks, errors)."""

    def merge(run: Run) -> None:
        if not log.is_file():
            return
        from triage.ingest import textlog

        try:
            text_run = textlog.read(Source.from_path(log))
        except IngestError:
            return
        run.events.extend(text_run.events)
        if text_run.events:
            run.meta["events_from"] = str(log)

    return merge


_RUN_DIR = re.compile(r"(offline-)?run-\d{8}_\d{6}-")


def _run_order(p: Path) -> str:
    """Run folders sort by their date_time part: run-20240101_120000-<id>, offline-run-..."""
    return p.name.split("-", 2)[-1] if p.name.startswith("offline") else p.name[4:]


def _find(root: Path) -> Found | None:
    wb = sorted(root.glob("run-*.wandb"))
    if wb:
        notes = [f"{len(wb)} .wandb files; read {wb[-1].name}"] if len(wb) > 1 else []
        return Found.file(wb[-1], "wandb", notes, after=_merge_output_log(wb[-1].parent / "files" / "output.log"))
    runs = [p for p in root.iterdir() if p.is_dir() and _RUN_DIR.match(p.name) and any(p.glob("run-*.wandb"))]
    if not runs and (root / "wandb").is_dir():
        latest = _latest_run(root / "wandb" / "latest-run", root)
        if latest is not None:
            return Found.inside(latest)
        runs = [p for p in (root / "wandb").iterdir() if p.is_dir() and re.match(r"(offline-)?run-", p.name)]
    if not runs:
        return None
    pick = max(runs, key=_run_order)
    return Found.inside(pick, [f"{len(runs)} W&B runs; read {pick.name}"] if len(runs) > 1 else [])


def _latest_run(link: Path, root: Path) -> Path | None:
    """Where wandb/latest-run points, unless that is a loop or a folder above `root` (a link
    edited by hand): then the run folders beside it decide."""
    try:
        if not link.is_dir():
            return None
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        return None
    here = root.resolve()
    if target == here or target in here.parents:
        return None
    return target


def _find_legacy(root: Path) -> Found | None:
    for cand in (root / "wandb-history.jsonl", root / "files" / "wandb-history.jsonl"):
        if cand.is_file():
            return Found.file(cand, "wandb_legacy")
    return None


register(Reader(
    "wandb", "W&B offline/online transaction log run-<id>.wandb",
    lambda src: 1.0 if src.head()[:4] == MAGIC else 0.0, _read, priority=88,
    layouts=(Layout(30, "run-*.wandb, a W&B run-*/ or wandb/ folder", _find),),
))
register(Reader(
    "wandb_legacy", "W&B < 0.10 wandb-history.jsonl / wandb-events.jsonl",
    lambda src: 0.97 if src.name in ("wandb-history.jsonl", "wandb-events.jsonl") else 0.0,
    lambda src: jsonl.read(src, fmt="wandb_legacy"), priority=66, aliases=("wandb_history",),
    layouts=(Layout(40, "wandb-history.jsonl", _find_legacy),),
))
