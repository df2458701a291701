"""Fuzzing every reader. Generated and mutated inputs must give a Run whose
arrays agree, or an IngestError (one line) - never another exception, never a hang. The budget
(FUZZ below) keeps the whole fuzz folder under a minute; `TRIAGE_FUZZ_EXAMPLES=2000 pytest
tests/fuzz` runs a long campaign with the same tests."""

from __future__ import annotations

import gzip
import json
import os
import struct
import zlib
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.ingest import FORMATS, IngestError, read_run

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "logs"
EXAMPLES = int(os.environ.get("TRIAGE_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])


def _check(run) -> None:
    """What every reader promises (triage/ingest/run.py)."""
    assert run.meta["rows"] >= 0 and all(v >= 0 for v in run.meta["skipped"].values())
    for name, s in run.series.items():
        assert isinstance(name, str) and name.strip() and name.encode("utf-8")
        assert s.values.dtype == np.float64 and len(s.steps) == len(s.values)
        for extra in (s.epochs, s.wall):
            assert extra is None or len(extra) == len(s.values)
    for w in run.meta["warnings"]:
        assert isinstance(w, str) and "\n" not in w
    json.dumps({k: v for k, v in run.meta.items() if k != "config"}, default=str)


def _read(path: Path, fmt: str | None = None):
    try:
        run = read_run(path, fmt)
    except IngestError as exc:
        assert "\n" not in str(exc)
        return None
    _check(run)
    return run


# -- structured generators ---------------------------------------------------------------------------
numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**20, 10**20))
keys = st.one_of(st.sampled_from(["step", "loss", "eval_loss", "grad_norm", "learning_rate", "epoch", "_step",
                                  "train/loss", "rewards/margins", "global_step", "mode", "iter"]),
                 st.text(max_size=6))
scalars = st.one_of(numbers, st.none(), st.booleans(), st.text(max_size=6),
                    st.sampled_from(["nan", "inf", "-inf", "NaN", "1e-3", "n/a", "1,5", "true"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(keys, inner, max_size=3)), max_leaves=6)
rows = st.dictionaries(keys, values, max_size=6)
bare = st.sampled_from(["nan", "-nan", "inf", "-inf", "Infinity", "NaN", "nan(ind)", "1e999", "-0", "00", "1_0"])


def _jsonl_line(row: dict, bare_value: str | None) -> str:
    line = json.dumps(row, allow_nan=True)
    if bare_value is not None and line.endswith("}") and line != "{}":
        line = line[:-1] + f', "x": {bare_value}}}'
    return line


@FUZZ
@given(st.lists(st.tuples(rows, st.none() | bare), max_size=30), st.sampled_from(["\n", "\r\n"]),
       st.sampled_from(["utf-8", "utf-16", "latin-1"]), st.booleans())
def test_jsonl(tmp_path_factory, lines, end, encoding, gz):
    text = end.join(_jsonl_line(r, b) for r, b in lines)
    data = text.encode(encoding, errors="replace")
    if gz:
        data = gzip.compress(data)
    p = tmp_path_factory.mktemp("j") / ("log.jsonl.gz" if gz else "log.jsonl")
    p.write_bytes(data)
    for fmt in (None, "jsonl"):
        _read(p, fmt)


@FUZZ
@given(st.one_of(rows, st.lists(rows, max_size=20), st.dictionaries(keys, st.lists(numbers, max_size=5), max_size=4),
                 st.fixed_dictionaries({"log_history": st.lists(rows, max_size=20)}, optional={"global_step": numbers}),
                 st.dictionaries(keys, st.fixed_dictionaries({"values": st.dictionaries(st.text(max_size=4), scalars)}),
                                 max_size=3)),
       st.integers(0, 400), st.booleans())
def test_json_documents(tmp_path_factory, doc, cut, truncate):
    text = json.dumps(doc, allow_nan=True)
    if truncate:
        text = text[: cut % (len(text) + 1)]
    d = tmp_path_factory.mktemp("d")
    for name, formats in (("trainer_state.json", (None, "megatron_golden")), ("run.json", (None, "hf_state"))):
        p = d / name
        p.write_text(text)
        for fmt in formats:
            _read(p, fmt)


cells = st.one_of(numbers.map(repr), st.sampled_from(["", " ", "nan", "inf", "-inf", "n/a", '"1,5"', "#", '"a""b"',
                                                      "true", "1e5", "  3.5  ", "\t"]), st.text(max_size=5))


@FUZZ
@given(st.lists(st.sampled_from(["step", "epoch", "loss", "val_loss", "lr", "r", "l", "t", "train/box_loss",
                                 "Step", "run - loss", "time/total_timesteps", ""]), min_size=1, max_size=6),
       st.lists(st.lists(cells, max_size=8), max_size=40), st.sampled_from([None, "#{\"t_start\": 1.0}"]))
def test_csv(tmp_path_factory, header, body, comment):
    lines = ([comment] if comment else []) + [",".join(header)] + [",".join(r) for r in body]
    p = tmp_path_factory.mktemp("c") / "metrics.csv"
    p.write_text("\n".join(lines) + "\n", errors="replace")
    for fmt in (None, "csv", "lightning_csv", "keras_csv", "sb3_progress", "sb3_monitor", "ultralytics", "wandb_csv"):
        _read(p, fmt)


@FUZZ
@given(st.lists(st.one_of(
    st.builds(lambda s, l: f"step {s} | loss {l}", st.integers(-5, 10**9), numbers),
    st.builds(lambda d: repr(d), rows),
    st.sampled_from(["Traceback (most recent call last):", "RuntimeError: CUDA out of memory", "  0%|  | 0/10",
                     "Epoch 1/10", "loss: nan", "| epoch | loss |", "|---|---|", "Gradient overflow. Skipping step"]),
    st.text(max_size=40)), max_size=40))
def test_text(tmp_path_factory, lines):
    p = tmp_path_factory.mktemp("t") / "train.log"
    p.write_text("\n".join(lines), errors="replace")
    _read(p)
    _read(p, "text")


# -- mutations of real files ---------------------------------------------------------------------------
REAL = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and p.stat().st_size < 2_000_000)


def _mutate(data: bytes, how: int, at: int, byte: int, length: int) -> bytes:
    if not data:
        return data
    i = at % len(data)
    if how == 0:  # flip one bit
        return data[:i] + bytes([data[i] ^ (1 << (byte % 8))]) + data[i + 1:]
    if how == 1:  # cut short
        return data[:i]
    if how == 2:  # overwrite a run of bytes
        return data[:i] + bytes([byte]) * length + data[i + length:]
    if how == 3:  # insert garbage
        return data[:i] + bytes([byte]) * length + data[i:]
    return data[:i] + data[i + length:]  # delete a run


@FUZZ
@given(st.sampled_from(REAL), st.lists(st.tuples(st.integers(0, 4), st.integers(0, 10**9), st.integers(0, 255),
                                                st.integers(1, 64)), min_size=1, max_size=3))
def test_mutated_real_files(tmp_path_factory, source, mutations):
    data = source.read_bytes()
    for how, at, byte, length in mutations:
        data = _mutate(data, how, at, byte, length)
    p = tmp_path_factory.mktemp("m") / source.name
    p.write_bytes(data)
    _read(p)


def test_every_reader_on_every_fixture_and_forced_format(tmp_path):
    """Every format forced on every fixture: an answer or one IngestError."""
    for source in REAL[::2]:
        for fmt in FORMATS:
            _read(source, fmt)


# -- binary formats built from parts -----------------------------------------------------------------------
def _masked_crc(data: bytes) -> int:
    from triage.ingest.tfrecord import masked_crc

    return masked_crc(data)


@FUZZ
@given(st.lists(st.tuples(st.binary(max_size=60), st.booleans(), st.booleans()), max_size=30))
def test_tfevents_records(tmp_path_factory, records):
    """Arbitrary payloads with good or bad checksums: counted, never a crash or a hang."""
    out = bytearray()
    for payload, good_len, good_data in records:
        length = struct.pack("<Q", len(payload))
        out += length + struct.pack("<I", _masked_crc(length) if good_len else 7)
        out += payload + struct.pack("<I", _masked_crc(payload) if good_data else 7)
    p = tmp_path_factory.mktemp("tb") / "events.out.tfevents.1.host"
    p.write_bytes(bytes(out))
    _read(p)
    _read(p, "tensorboard")


@FUZZ
@given(st.lists(st.tuples(st.binary(max_size=200), st.integers(1, 4), st.booleans()), max_size=20))
def test_wandb_records(tmp_path_factory, records):
    out = bytearray(b":W&B" + (0xBEE1).to_bytes(2, "little") + b"\x00")
    for payload, rtype, good in records:
        left = 32768 - len(out) % 32768
        if left < 7 + len(payload):
            out += b"\x00" * left
        crc = zlib.crc32(payload, zlib.crc32(bytes([rtype]))) & 0xFFFFFFFF
        out += (crc if good else crc ^ 1).to_bytes(4, "little") + len(payload).to_bytes(2, "little")
        out += bytes([rtype]) + payload
    p = tmp_path_factory.mktemp("wb") / "run-x.wandb"
    p.write_bytes(bytes(out))
    _read(p)

