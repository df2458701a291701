"""The printed-log reader's speed paths read exactly what the plain paths read: a big file mapped
instead of copied (and the map let go after), line shapes compared word-major, the numbers cut by
two threads, and the emit and build steps that skip copies of a million steps."""

from __future__ import annotations

import math
import mmap
import os
import random
from pathlib import Path

import numpy as np
import pytest

from triage.ingest import builder, printed_bulk, read_run, source, textlog
from triage.ingest.source import Source


def _log(path: Path, steps: int, *, bom: bool = False, crlf: bool = False, restart: int = 0) -> Path:
    """A printed log: logging prefix, tqdm redraws, eval lines, a NaN loss; `restart`: the step
    counter starts again from 1 after that many steps (a second run appended to the file)."""
    rnd = random.Random(steps)
    out = ["config: lr=3e-4 batch=32"]
    for i in range(1, steps + 1):
        step = i if not restart or i <= restart else i - restart
        if i % 20 == 0:
            out.append(f"\r 45%|████▌     | {i}/{steps} [00:10<00:12, 45.00it/s]")
        loss = "nan" if i == steps - 3 else f"{2.5 * math.exp(-i / steps) + rnd.random() * 0.1:.4f}"
        out.append(f"2024-01-01 12:00:{i % 60:02d},{i % 1000:03d} INFO train.py:88 step {step} | loss {loss} | "
                   f"lr {3e-4 * min(1, i / 50):.3e} | grad_norm {rnd.random() * 2:.3f}")
        if i % 500 == 0:
            out.append(f"val loss: {rnd.random() + 1:.4f}")
    text = ("\r\n" if crlf else "\n").join(out) + "\n"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


def _same(a, b) -> None:
    assert sorted(a.series) == sorted(b.series)
    for key in a.series:
        for att in ("values", "steps", "epochs"):
            u, v = getattr(a.series[key], att), getattr(b.series[key], att)
            assert (u is None) == (v is None), (key, att)
            if u is not None:
                assert np.array_equal(np.asarray(u), np.asarray(v), equal_nan=True), (key, att)
    for att in ("rows", "skipped", "step_axis", "dialects", "warnings", "lines", "runs", "run_starts", "restarts"):
        assert a.meta.get(att) == b.meta.get(att), att
    assert a.format == b.format
    assert [(e.kind, e.line, e.step, e.text) for e in a.events] == [(e.kind, e.line, e.step, e.text) for e in b.events]


@pytest.fixture
def small_big(monkeypatch):
    """Logs of a few hundred KB count as big: mapped, read the bulk way, cut by two threads."""
    monkeypatch.setattr(source, "MAP_MIN", 1 << 10)
    monkeypatch.setattr(printed_bulk, "MIN_LINES", 1000)
    monkeypatch.setattr(printed_bulk, "THREAD_MIN", 256)
    monkeypatch.setattr(printed_bulk, "_ROWS", 128)
    monkeypatch.delenv("TRIAGE_NO_MMAP", raising=False)


def _maps_of(path: Path) -> int:
    with open("/proc/self/maps") as fh:
        return sum(1 for line in fh if line.rstrip().endswith(str(path)))


@pytest.mark.skipif(os.name != "posix", reason="files are mapped on POSIX systems only")
@pytest.mark.parametrize("kind", ["plain", "bom", "crlf", "restart"])
def test_a_mapped_log_reads_as_a_copied_one(tmp_path, monkeypatch, small_big, kind):
    path = _log(tmp_path / "train.log", 6000, bom=kind == "bom", crlf=kind == "crlf",
                restart=3000 if kind == "restart" else 0)
    src = Source.from_path(path)
    got = src.read_mapped()
    assert isinstance(got, mmap.mmap) and got[:] == path.read_bytes()
    got.close()
    mapped = read_run(path)
    if os.path.exists("/proc/self/maps"):
        assert _maps_of(path) == 0  # the map is let go once the log is read
    monkeypatch.setenv("TRIAGE_NO_MMAP", "1")
    assert isinstance(Source.from_path(path).read_mapped(), bytes)
    copied = read_run(path)
    _same(mapped, copied)
    monkeypatch.setattr(printed_bulk, "MIN_LINES", 10 ** 12)  # and the line-by-line reading
    _same(mapped, read_run(path))
    assert len(mapped.get("loss")) == 6000
    if kind == "restart":
        assert mapped.meta.get("runs") == 2


def test_small_gzip_and_utf16_logs_are_not_mapped(tmp_path, monkeypatch):
    import gzip

    monkeypatch.delenv("TRIAGE_NO_MMAP", raising=False)
    small = _log(tmp_path / "small.log", 50)
    assert isinstance(Source.from_path(small).read_mapped(), bytes)
    monkeypatch.setattr(source, "MAP_MIN", 16)
    gz = tmp_path / "train.log.gz"
    gz.write_bytes(gzip.compress(small.read_bytes()))
    assert Source.from_path(gz).read_mapped() == small.read_bytes()
    u16 = tmp_path / "u16.log"
    u16.write_bytes(small.read_bytes().decode("utf-8").encode("utf-16"))
    assert Source.from_path(u16).read_mapped() == small.read_bytes()


def _masked(line: bytes) -> bytes:
    return line.translate(printed_bulk._MASK)


def _cols(lines: list[bytes]) -> np.ndarray:
    """Lines of one length as _same_mask takes them: word k of every line in row k (8 bytes past each
    line's end, as the chunk's next bytes would be)."""
    words = (len(lines[0]) + 7) // 8
    rows = np.frombuffer(b"".join(line + b"\xa5" * (8 * words - len(line)) for line in lines), dtype="<u8")
    return rows.reshape(len(lines), words).T.copy()


def test_same_mask_is_masking_every_byte():
    """Every byte value at every place of lines with digits (a carry from 0xBA-0xFF where a digit
    belongs, the six bytes 0x3A-0x3F just past '9', bytes next to digits, lines longer than a word):
    `_same_mask` says what comparing the masked lines says."""
    reps = [b"step 1 | loss 2.5", b"0", b"a9:", b"12345678", b"x=1e-05;9", "é5 █ 7".encode(), b"no digits here!"]
    rnd = random.Random(3)
    for rep in reps:
        lines = []
        for place in range(len(rep)):
            for value in range(256):
                lines.append(rep[:place] + bytes([value]) + rep[place + 1:])
        for _ in range(300):  # two places changed at once (a carry into a neighbour)
            a, b = sorted(rnd.sample(range(len(rep)), 2)) if len(rep) > 1 else (0, 0)
            line = bytearray(rep)
            line[a], line[b] = rnd.choice([0xBA, 0xFF, 0x3A, 0x3F, 0x2F, 0x30, 0x39]), rnd.randrange(256)
            lines.append(bytes(line))
        got = printed_bulk._same_mask(_cols(lines), rep)
        want = np.array([_masked(line) == _masked(rep) for line in lines])
        assert np.array_equal(got, want), rep


def test_two_threads_cut_what_one_cuts(tmp_path, monkeypatch, small_big):
    path = _log(tmp_path / "train.log", 8000)
    workers = []
    monkeypatch.setattr(printed_bulk, "_workers", lambda: workers[-1])
    workers.append(2)
    threaded = read_run(path)
    workers.append(1)
    _same(threaded, read_run(path))


def test_a_failing_thread_sends_the_log_the_slow_way(tmp_path, monkeypatch, small_big):
    """A block that fails in the second thread fails the shape, as it would in one thread: the log is
    then read line by line, and reads the same."""
    import threading

    path = _log(tmp_path / "train.log", 8000)
    monkeypatch.setattr(printed_bulk, "_workers", lambda: 2)
    real = printed_bulk._cut_block
    helpers = []

    def failing(*args):
        if threading.current_thread() is not threading.main_thread():
            helpers.append(1)
            raise ValueError("a block that does not cut")
        return real(*args)

    monkeypatch.setattr(printed_bulk, "_cut_block", failing)
    slow_reads = []
    real_read = textlog.read

    def counting(src, fmt=None, bulk=True):
        slow_reads.append(bulk)
        return real_read(src, fmt, bulk)

    monkeypatch.setattr(textlog, "read", counting)
    got = read_run(path)
    assert helpers and False in slow_reads
    monkeypatch.setattr(printed_bulk, "_cut_block", real)
    monkeypatch.setattr(printed_bulk, "MIN_LINES", 10 ** 12)
    _same(got, read_run(path))


def _place_runs_plain(raw: np.ndarray, train: np.ndarray):
    """_place_runs as it was written before it skipped copies: every array made in full."""
    placed = raw.copy()
    ti = np.flatnonzero(train & np.isfinite(raw))
    if len(ti) < 3:
        return placed, []
    s = raw[ti]
    d = np.diff(s)
    d = d[d > 0]
    gap = float(d[0]) if len(d) else 1.0
    first = s[0]
    starts, start = [], 0
    for k in (np.flatnonzero(s[1:] < s[:-1]) + 1).tolist():
        top_run = float(s[start:k].max())
        if not ((s[k] <= first and first <= gap) or (top_run > 0 and s[k] <= 0.1 * top_run)
                or s[k] < first and s[k] <= gap):
            continue
        if k + 1 < len(s) and s[k + 1] > s[k - 1]:  # (a stray low line: the counter goes on past the drop)
            continue
        p = int(ti[k])
        before = placed[:p]
        top = float(np.max(before[np.isfinite(before)], initial=0.0))
        placed[p:] = raw[p:] + (top + gap - float(s[k]))
        start = k
        starts.append(float(top + gap))
    return placed, starts


def test_runs_are_placed_as_before():
    rnd = random.Random(11)
    for _ in range(400):
        n = rnd.choice([0, 1, 2, 3, 5, 50, 400])
        gap = rnd.choice([1.0, 10.0, 0.5])
        steps = []
        step = rnd.choice([0.0, 1.0, 100.0])
        for _ in range(n):
            r = rnd.random()
            if r < 0.03:
                step = rnd.choice([0.0, 1.0, step / 20, step - 3 * gap])  # a new run, a resume, a stray
            elif r < 0.05:
                steps.append(math.nan)
                continue
            else:
                step += rnd.choice([gap, gap, 0.0, 2 * gap])
            steps.append(step)
        raw = np.array(steps, dtype=np.float64)
        train = np.array([rnd.random() > 0.1 for _ in range(n)], dtype=bool)
        if rnd.random() < 0.5:
            train[:] = True
        want = _place_runs_plain(raw, train)
        got = textlog._place_runs(raw.copy(), train)
        assert np.array_equal(got[0], want[0], equal_nan=True) and got[1] == want[1]
        assert textlog._first_rise(raw[np.isfinite(raw)]) == next(
            (float(d) for d in np.diff(raw[np.isfinite(raw)]) if d > 0), 1.0)


def test_restarts_count_alike_with_and_without_nan_steps():
    rnd = random.Random(2)
    for _ in range(200):
        s = np.cumsum([rnd.choice([1.0, 1.0, 2.0, -30.0]) for _ in range(rnd.choice([1, 3, 60, 500]))])
        holed = s.copy()
        holed[[rnd.randrange(len(s)) for _ in range(len(s) // 10)]] = math.nan
        assert builder._restarts(s) == builder._restarts(s[np.isfinite(s)])
        assert builder._restarts(holed) == builder._restarts(holed[np.isfinite(holed)])
