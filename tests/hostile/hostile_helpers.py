"""Helpers for the hostile-input tests: the CLI in-process and as a real process, and
TensorBoard records with real checksums."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from triage.cli import app

REPO = Path(__file__).resolve().parents[2]
ENV = {"NO_COLOR": "1", "COLUMNS": "200"}
runner = CliRunner()


def cli(*args: str, env: dict | None = None, input: str | bytes | None = None):
    """`triage ARGS` in this process: (exit code, stdout+stderr)."""
    result = runner.invoke(app, list(args), env={**ENV, **(env or {})}, input=input)
    return result.exit_code, result.output


def cli_json(*args: str, env: dict | None = None):
    code, out = cli(*args, env=env)
    starts = [out.index(c) for c in "[{" if c in out]
    return code, json.loads(out[min(starts) if starts else 0:])


def triage_process(*args: str, **kw) -> subprocess.Popen:
    """`python -m triage ARGS` as a real process (signals, pipes, file descriptors)."""
    env = {**os.environ, **ENV, **kw.pop("env", {})}
    return subprocess.Popen([sys.executable, "-m", "triage", *args], cwd=kw.pop("cwd", REPO), env=env,
                            stdout=kw.pop("stdout", subprocess.PIPE), stderr=kw.pop("stderr", subprocess.PIPE), **kw)


def inspect_run(path, *extra: str) -> dict:
    code, doc = cli_json("inspect", "--json", *extra, str(path))
    assert code == 0, doc
    return doc["runs"][0]


def metric(run: dict, name: str) -> dict:
    return {m["name"]: m for m in run["metrics"]}[name]


# -- TensorBoard records ---------------------------------------------------------------------------
def crc32c(data: bytes) -> int:
    """CRC-32C bit by bit: the reference definition, independent of the reader's tables."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked(data: bytes) -> bytes:
    crc = crc32c(data)
    return struct.pack("<I", (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF)


def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def ld(field: int, payload: bytes) -> bytes:
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def record(event: bytes) -> bytes:
    length = struct.pack("<Q", len(event))
    return length + masked(length) + event + masked(event)


def scalar_event(step: int, tag: str, value: float, wall: float = 1.0) -> bytes:
    ev = b"\x09" + struct.pack("<d", wall) + b"\x10" + varint(step)
    return ev + ld(5, ld(1, ld(1, tag.encode()) + b"\x15" + struct.pack("<f", value)))


def event_file(n: int, tags=("loss", "grad_norm")) -> tuple[bytes, list[int]]:
    """n scalar records after the file-version record; also each record's byte offset."""
    parts = [record(b"\x09" + struct.pack("<d", 0.0) + ld(3, b"brain.Event:2"))]
    for s in range(n):
        parts.append(record(scalar_event(s, tags[s % len(tags)], 1.0 / (s + 1), 1000.0 + s)))
    offsets, pos = [], 0
    for p in parts:
        offsets.append(pos)
        pos += len(p)
    return b"".join(parts), offsets


