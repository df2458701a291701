"""The bulk path's line shapes (mask ids) of a big printed log are made in parts by forked children:
the split result is exactly the one-process result, a child that dies costs time and not data, an
interruption leaves no child and no shared-memory file, and small logs (or one CPU) never fork."""

from __future__ import annotations

import math
import os
import random
import signal
from pathlib import Path

import numpy as np
import pytest

from triage.ingest import printed_bulk, read_run


def _reference_ids(raw: bytes) -> np.ndarray:
    """Mask ids the plain way: every line masked and looked up in a dict."""
    keys = raw.translate(printed_bulk._MASK).split(b"\n")
    if keys and keys[-1] == b"":
        keys.pop()
    first: dict = {}
    return np.array([first.setdefault(k, i) for i, k in enumerate(keys)], dtype=np.int64)


def _log(path: Path, steps: int, seed: int = 0) -> bytes:
    """A printed log with a logging prefix, tqdm redraws, eval lines, a traceback, numbers whose
    widths change and shapes that first appear late (in a child's part)."""
    rnd = random.Random(seed)
    out = ["config: lr=3e-4 batch=32", "Epoch 1"]
    for i in range(1, steps + 1):
        if i % 20 == 0:
            out.append(f"\r 45%|████▌     | {i}/{steps} [00:10<00:12, 45.00it/s]")
        if i == steps * 3 // 4:
            out += ["Traceback (most recent call last):", "RuntimeError: dataloader hiccup", ""]
        loss = "nan" if i == steps - 5 else f"{2.5 * math.exp(-i / steps) + rnd.random() * 0.1:.4f}"
        out.append(f"2024-01-01 12:00:{i % 60:02d},{i % 1000:03d} INFO train.py:88 step {i} | loss {loss} | "
                   f"lr {3e-4 * min(1, i / 50):.3e} | grad_norm {rnd.random() * 2:.3f}")
        if i % 250 == 0:
            out.append(f"val loss: {rnd.random() + 1:.4f} acc: {rnd.random():.2%}")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path.read_bytes()


@pytest.fixture
def splitting(monkeypatch):
    """Files of a few hundred KB cut in four parts, whatever this machine's CPUs; the forks counted."""
    monkeypatch.setattr(printed_bulk, "MIN_LINES", 1000)
    monkeypatch.setattr(printed_bulk, "PARALLEL_MIN", 64 << 10)
    monkeypatch.setattr(printed_bulk, "PART_MIN", 16 << 10)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))  # this process busy, three CPUs free
    monkeypatch.delenv("TRIAGE_NO_PARALLEL", raising=False)
    forks: list[int] = []
    real = printed_bulk._fork_ids

    def counting(*args):
        pid, fd = real(*args)
        forks.append(pid)
        return pid, fd

    monkeypatch.setattr(printed_bulk, "_fork_ids", counting)
    return forks


def _one_piece(path: Path, monkeypatch):
    monkeypatch.setenv("TRIAGE_NO_PARALLEL", "1")
    try:
        return read_run(path)
    finally:
        monkeypatch.delenv("TRIAGE_NO_PARALLEL")


def _same(a, b) -> None:
    assert sorted(a.series) == sorted(b.series)
    for key in a.series:
        u, v = a.series[key], b.series[key]
        assert np.array_equal(u.steps, v.steps) and np.array_equal(u.values, v.values, equal_nan=True), key
    for att in ("rows", "skipped", "step_axis", "dialects", "warnings", "lines"):
        assert a.meta.get(att) == b.meta.get(att), att


def _reaped(pids: list[int]) -> bool:
    """No child of these pids is left: each was waited for (a zombie or a live one would answer)."""
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return True


def _shm_leftovers() -> set[str]:
    shm = "/dev/shm"
    return {n for n in os.listdir(shm) if n.startswith(f"triage-cols-{os.getpid()}-")} if os.path.isdir(shm) else set()


def test_split_masks_equal_one_process(tmp_path, splitting):
    raw = _log(tmp_path / "train.log", 6000)
    ids, nl = printed_bulk._line_ids(raw)
    assert len(splitting) == 3  # four parts: three children
    assert np.array_equal(ids, _reference_ids(raw))
    assert np.array_equal(nl, np.flatnonzero(np.frombuffer(raw, dtype=np.uint8) == 10))
    assert _reaped(splitting) and not _shm_leftovers()


def test_split_read_equals_one_process_read(tmp_path, monkeypatch, splitting):
    path = tmp_path / "train.log"
    _log(path, 6000, seed=2)
    split = read_run(path)
    assert splitting
    whole = _one_piece(path, monkeypatch)
    _same(split, whole)
    assert len(split.get("loss")) == 6000


@pytest.mark.parametrize("tail", [b"", b"\n", b"\n\n", b"\r\n"])
def test_grouping_by_length_equals_a_lookup_of_every_line(monkeypatch, tail):
    """Random logs of a few shapes, rare lengths, long lines, bad bytes and empty lines: the ids made by
    comparing lines of one length eight bytes at a time are those of a dict lookup of every line."""
    rnd = random.Random(5)
    pool = [b"step %d loss %f", b"x" * 9, b"", b"ab%dcd", b"\xff\xfe %d", b"%d", "é%d █".encode(),
            b"a" * 3000 + b"%d", b"A%dB", b"A%dC", b"q" * 16, b"r%d" * 8, b"loss 1e-%d", b"loss 1e+%d"]
    monkeypatch.setattr(printed_bulk, "_SMALL", 2)
    for _ in range(60):
        shapes = rnd.sample(pool, rnd.randint(1, len(pool)))
        lines = []
        for _ in range(rnd.choice([1, 40, 400, 2000])):
            t = rnd.choice(shapes)
            t = t.replace(b"%d", str(rnd.randint(0, 10 ** rnd.randint(0, 3))).encode())
            lines.append(t.replace(b"%f", b"%.4f" % rnd.random()))
        raw = b"\n".join(lines) + tail
        for chunk in (7, 300, 1 << 20):
            ids, nl = printed_bulk._ids_and_newlines(raw, chunk)
            assert np.array_equal(ids, _reference_ids(raw))
            assert np.array_equal(nl, np.flatnonzero(np.frombuffer(raw, dtype=np.uint8) == 10))


def test_a_killed_child_costs_time_not_data(tmp_path, monkeypatch, splitting):
    """A child killed (out of memory, SIGKILL) or one that fails: the parent makes its part itself."""
    path = tmp_path / "train.log"
    raw = _log(path, 6000, seed=3)
    parent = os.getpid()
    real = printed_bulk._part_ids
    calls = []

    def dying(raw_, start, end):
        if os.getpid() != parent:
            if start > len(raw_) // 2:
                os.kill(os.getpid(), signal.SIGKILL)
            raise MemoryError("the child ran out of memory")
        calls.append(start)
        return real(raw_, start, end)

    monkeypatch.setattr(printed_bulk, "_part_ids", dying)
    ids, _ = printed_bulk._line_ids(raw)
    assert len(splitting) == 3 and np.array_equal(ids, _reference_ids(raw))
    split = read_run(path)
    _same(split, _one_piece(path, monkeypatch))
    assert _reaped(splitting) and not _shm_leftovers()


def test_an_interruption_leaves_no_child_and_no_shared_memory(tmp_path, monkeypatch, splitting):
    raw = _log(tmp_path / "train.log", 6000, seed=4)
    real = printed_bulk._ids_and_newlines
    parent = os.getpid()

    def interrupted(raw_, *args, **kw):
        if os.getpid() == parent and kw.get("start", 0) == 0:
            raise KeyboardInterrupt
        return real(raw_, *args, **kw)

    monkeypatch.setattr(printed_bulk, "_ids_and_newlines", interrupted)
    with pytest.raises(KeyboardInterrupt):
        printed_bulk._line_ids(raw)
    assert len(splitting) == 3
    assert _reaped(splitting) and not _shm_leftovers()


def test_a_small_log_or_one_cpu_does_not_fork(tmp_path, monkeypatch):
    """Past MIN_LINES the bulk path is taken, but below PARALLEL_MIN bytes (or with one CPU) the masks
    are made in this process: no fork, no shared memory."""
    path = tmp_path / "train.log"
    raw = _log(path, 25_000, seed=6)
    assert len(raw) < printed_bulk.PARALLEL_MIN and raw.count(b"\n") > printed_bulk.MIN_LINES
    monkeypatch.delenv("TRIAGE_NO_PARALLEL", raising=False)

    def no_fork(*args):
        raise AssertionError("forked for a small log")

    monkeypatch.setattr(os, "fork", no_fork)
    run = read_run(path)
    assert len(run.get("loss")) == 25_000
    monkeypatch.setattr(printed_bulk, "PARALLEL_MIN", 1 << 10)
    monkeypatch.setattr(printed_bulk, "PART_MIN", 1 << 10)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert printed_bulk._parts(raw) == [(0, len(raw))]
    assert np.array_equal(printed_bulk._line_ids(raw)[0], _reference_ids(raw))
    # two CPUs, both kept busy (this process and another): a child would only take turns with this one
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (2.0, 2.0, 2.0))
    assert printed_bulk._parts(raw) == [(0, len(raw))]
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    assert len(printed_bulk._parts(raw)) == 2
