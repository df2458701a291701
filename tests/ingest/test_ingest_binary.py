"""Binary/structured stores built in the test: W&B framing across blocks, MLflow SQLite, tfevents edge cases."""

from __future__ import annotations

import json
import math
import sqlite3
import struct
import zlib

import numpy as np
import pytest

from triage.ingest import IngestError, read_run


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _ld(field: int, payload: bytes) -> bytes:
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


def _history(step: int, items: dict) -> bytes:
    body = b""
    for k, v in items.items():
        body += _ld(1, _ld(1, k.encode()) + _ld(16, json.dumps(v).encode()))
    body += _ld(2, _varint(1 << 3) + _varint(step))
    return _ld(2, body)  # Record.history


def _wandb_file(records: list[bytes]) -> bytes:
    out = bytearray(b":W&B" + (0xBEE1).to_bytes(2, "little") + b"\x00")
    for payload in records:
        first = True
        while True:
            left = 32768 - len(out) % 32768
            if left < 7:
                out += b"\x00" * left
                continue
            room = left - 7
            chunk, payload = payload[:room], payload[room:]
            if first and not payload:
                t = 1
            elif first:
                t = 2
            elif payload:
                t = 3
            else:
                t = 4
            crc = zlib.crc32(chunk, zlib.crc32(bytes([t]))) & 0xFFFFFFFF
            out += crc.to_bytes(4, "little") + len(chunk).to_bytes(2, "little") + bytes([t]) + chunk
            first = False
            if not payload:
                break
    return bytes(out)


def test_wandb_framing_across_blocks_and_torn_tail(tmp_path):
    recs = [_history(i, {"loss": float("nan") if i == 3 else 1.0 / (i + 1), "_step": i,
                         "blob": "x" * (9000 if i % 7 == 0 else 10)}) for i in range(40)]
    data = _wandb_file(recs)
    p = tmp_path / "run-abc.wandb"
    p.write_bytes(data)
    run = read_run(p)
    assert run.format == "wandb" and len(run.get("loss")) == 40 and run.get("loss").nan_count() == 1
    p.write_bytes(data[:-50])
    cut = read_run(p)
    assert len(cut.get("loss")) == 39 and cut.meta["skipped"].get("truncated record") == 1
    bad = bytearray(data)
    bad[20] ^= 0xFF
    p.write_bytes(bytes(bad))
    assert read_run(p).meta["skipped"].get("bad CRC", 0) >= 1


def test_wandb_not_a_wandb_file(tmp_path):
    p = tmp_path / "run-x.wandb"
    p.write_bytes(b"hello world, not a log")
    with pytest.raises(IngestError):
        read_run(p, "wandb")


def test_mlflow_sqlite_store(tmp_path):
    db = tmp_path / "mlflow.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE runs (run_uuid TEXT, start_time INTEGER)")
    con.execute("CREATE TABLE metrics (key TEXT, value FLOAT, timestamp INTEGER, step INTEGER, is_nan BOOLEAN, run_uuid TEXT)")
    con.executemany("INSERT INTO runs VALUES (?, ?)", [("old", 1), ("new", 2)])
    rows = [("loss", 1.0 / (s + 1), 1000 + s, s, 0, "new") for s in range(10)]
    rows += [("loss", 0.0, 2000, 5, 1, "new"), ("loss", 9.0, 5, 0, 0, "old")]
    con.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    run = read_run(db)
    assert run.format == "mlflow_sqlite"
    loss = run.get("loss")
    assert loss.steps.tolist() == list(range(10))
    assert math.isnan(loss.values[5])  # is_nan wins, and the later write of step 5 is kept
    assert run.meta["duplicates"] == 1
    run_dir = read_run(tmp_path)
    assert run_dir.format == "mlflow_sqlite"


def _crc32c(data: bytes) -> int:
    """CRC-32C bit by bit (the reference definition, independent of the reader's table)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def _masked(data: bytes) -> bytes:
    crc = _crc32c(data)
    return struct.pack("<I", (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF)


def _record(event: bytes) -> bytes:
    """One TFRecord as TensorBoard writes it: length, its checksum, the event, its checksum."""
    length = struct.pack("<Q", len(event))
    return length + _masked(length) + event + _masked(event)


def _event(step: int, value_msg: bytes, wall: float = 1.0) -> bytes:
    ev = b"\x09" + struct.pack("<d", wall)
    if step:
        ev += b"\x10" + _varint(step)
    return ev + _ld(5, _ld(1, value_msg))


def test_tfevents_all_scalar_encodings(tmp_path):
    tag = _ld(1, b"loss")
    simple = tag + b"\x15" + struct.pack("<f", 0.5)
    scalars_meta = _ld(9, _ld(1, _ld(1, b"scalars")))
    tf2 = tag + _ld(8, b"\x08\x01" + _ld(2, b"") + _ld(4, struct.pack("<f", 0.25))) + scalars_meta
    new_style_double = tag + _ld(8, b"\x08\x02" + _ld(6, struct.pack("<d", 0.125)))
    int64 = _ld(1, b"count") + _ld(8, b"\x08\x09" + b"\x50" + _varint(7))
    histo = _ld(1, b"weights") + _ld(5, b"\x09" + struct.pack("<d", 1.0))
    text = _ld(1, b"note") + _ld(8, b"\x08\x07" + _ld(8, b"hello")) + _ld(9, _ld(1, _ld(1, b"text")))
    data = b"".join(_record(e) for e in [
        b"\x09" + struct.pack("<d", 0.0) + _ld(3, b"brain.Event:2"),
        _event(0, simple), _event(1, tf2), _event(2, new_style_double), _event(3, int64), _event(3, histo),
        _event(4, text), _event(5, tag + b"\x15" + struct.pack("<f", float("nan")))])
    p = tmp_path / "events.out.tfevents.1.host"
    p.write_bytes(data + b"\x05\x00")  # a torn record header at the end
    run = read_run(p)
    loss = run.get("loss")
    assert loss.steps.tolist() == [0, 1, 2, 5]
    assert loss.values[:3].tolist() == [0.5, 0.25, 0.125] and math.isnan(loss.values[3])
    assert run.get("count").values.tolist() == [7.0]
    assert set(run.metrics()) == {"loss", "count"}
    assert run.meta["skipped"] == {"truncated record": 1}


def test_tfevents_garbage_record_is_counted(tmp_path):
    p = tmp_path / "events.out.tfevents.2.host"
    p.write_bytes(_record(b"\x09" + struct.pack("<d", 0.0) + _ld(3, b"brain.Event:2")) + _record(b"\xff\xff\xff"))
    run = read_run(p)
    assert run.meta["skipped"] == {"undecodable record": 1}


def test_keras_train_validation_folders(tmp_path):
    for sub, val in (("train", 0.9), ("validation", 1.1)):
        d = tmp_path / sub
        d.mkdir()
        evs = [b"\x09" + struct.pack("<d", 0.0) + _ld(3, b"brain.Event:2")]
        evs += [_event(s, _ld(1, b"epoch_loss") + b"\x15" + struct.pack("<f", val / (s + 1))) for s in range(3)]
        (d / "events.out.tfevents.1.host.v2").write_bytes(b"".join(_record(e) for e in evs))
    run = read_run(tmp_path)
    assert run.get("loss").steps.tolist() == [0, 1, 2]
    assert np.allclose(run.get("eval/loss").values, [1.1, 0.55, 1.1 / 3], rtol=1e-6)
