"""Issue 16, "Unbounded time or memory": knowledge overlays cannot hang a scan or fill memory,
compressed and sparse inputs have guards, and the readers hold kept points, not the file."""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pytest

from hostile_helpers import REPO, cli
from triage.ingest import IngestError, read_run

CAUSE = (REPO / "knowledge" / "causes" / "checkpoint" / "C-atomic-save.yaml").read_text()


def _overlay(tmp_path, errors_yaml: str, extra: str = "") -> str:
    """A user knowledge folder with one new cause whose `errors:` is `errors_yaml`."""
    kb = tmp_path / "userkb"
    (kb / "causes").mkdir(parents=True)
    text = CAUSE.replace("id: C-atomic-save", "id: C-user-overlay")
    head, _, _ = text.partition("errors:")
    (kb / "causes" / "C-user-overlay.yaml").write_text(extra + head + "errors:\n" + errors_yaml + "signs:\n  Q-start: [error]\n")
    return str(kb)


def _triage(*args, timeout=90, **kw):
    return subprocess.run([sys.executable, "-m", "triage", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO, **kw)


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(\w+\s?)*$", r"(x+x+)+y", r"(a|a)*b"])
def test_kb_check_rejects_a_catastrophic_error_regex(tmp_path, pattern):
    kb = _overlay(tmp_path, f"  - '{pattern}'\n")
    proc = _triage("--kb", kb, "kb", "check")
    assert proc.returncode == 2 and "exponential" in proc.stderr and "C-user-overlay" in proc.stderr, proc.stderr[-2000:]


def test_a_catastrophic_overlay_regex_does_not_hang_scan(tmp_path):
    kb = _overlay(tmp_path, "  - '(a+)+$'\n")
    log = tmp_path / "crash.log"
    log.write_text("Traceback (most recent call last):\nRuntimeError: " + "a" * 40 + "!\n")
    t0 = time.monotonic()
    proc = _triage("--kb", kb, "scan", str(log), timeout=60)  # 2**40 steps without the guard
    assert time.monotonic() - t0 < 30 and proc.returncode in (0, 1, 3), proc.stderr


def test_long_lines_are_matched_on_their_first_characters():
    from triage.kb.guards import MAX_MATCH_CHARS, compile_error_pattern

    pat = compile_error_pattern(r"x.*y.*z")  # polynomial, not exponential: allowed, and bounded
    line = "x" + "y" * 200_000
    t0 = time.monotonic()
    assert pat.search(line) is None
    assert time.monotonic() - t0 < 5
    assert compile_error_pattern("CUDA out of memory").search("a" * (MAX_MATCH_CHARS + 10) + " CUDA out of memory") is None


def test_builtin_error_patterns_pass_the_guard():
    from triage.kb.base import KnowledgeBase, _as_list
    from triage.kb.guards import regex_problem

    kb = KnowledgeBase.load()
    bad = [(n.id, p) for n in kb.causes for p in _as_list(n.get("errors")) if regex_problem(str(p))]
    assert bad == []


BILLION = "".join(
    ["lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"]
    + [f"lol{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 9)])


def test_billion_laughs_overlay_is_refused(tmp_path):
    kb = _overlay(tmp_path, "  - 'some error'\n", extra=BILLION)
    proc = _triage("--kb", kb, "kb", "check", timeout=60)
    assert proc.returncode == 2 and "aliases" in proc.stderr, proc.stderr[-2000:]
    proc = _triage("--kb", kb, "search", "nan", "loss", timeout=60)
    assert proc.returncode == 2 and "aliases" in proc.stderr


def test_billion_laughs_metrics_yaml_is_refused(tmp_path):
    kb = tmp_path / "k"
    kb.mkdir()
    (kb / "metrics.yaml").write_text(BILLION + "metrics:\n  loss:\n    aliases: [*l8]\n")
    log = tmp_path / "log.jsonl"
    log.write_text('{"step": 1, "loss": 1.0}\n')
    proc = _triage("--kb", str(kb), "inspect", str(log), timeout=60)
    assert proc.returncode == 0 and "not used" in proc.stdout + proc.stderr


def test_yaml_aliases_that_expand_little_are_fine():
    from triage.kb.guards import expanded_size

    shared = [1, 2, 3]
    assert expanded_size({"a": shared, "b": shared}) == 1 + 2 + 2 * 4  # keys, and each use counted
    deep: list = [0]
    for _ in range(30):
        deep = [deep, deep]
    assert expanded_size(deep) > 200_000  # 2**30 leaves from 31 distinct lists


# -- gzip and event-file guards ----------------------------------------------------------------------
def test_a_gzip_bomb_stops_with_a_clear_message(tmp_path):
    p = tmp_path / "train.log.gz"
    p.write_bytes(gzip.compress(b"step 1 loss 2.0\n" * (12 << 20), 9))  # 200 MB in about 0.4 MB
    tracemalloc.start()
    try:
        with pytest.raises(IngestError) as err:
            read_run(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "decompression bomb" in str(err.value)
    assert peak < 400 << 20


def test_gzip_stdin_bomb(monkeypatch):
    import io

    data = gzip.compress(b"\x00" * (200 << 20), 9)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    with pytest.raises(IngestError) as err:
        read_run("-")
    assert "decompression bomb" in str(err.value)


def test_an_ordinary_gzip_log_is_not_a_bomb(tmp_path):
    p = tmp_path / "log.jsonl.gz"
    rows = "".join(json.dumps({"step": s, "loss": 1 / (s + 1)}) + "\n" for s in range(50_000))
    p.write_bytes(gzip.compress(rows.encode()))
    assert len(read_run(p).get("loss")) == 50_000


def test_a_sparse_file_named_like_an_event_file(tmp_path):
    p = tmp_path / "events.out.tfevents.1.host"
    with open(p, "wb") as fh:
        fh.truncate(1 << 30)  # 1 GiB of holes: no disk used
    t0 = time.monotonic()
    tracemalloc.start()
    try:
        run = read_run(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - t0 < 30
    assert peak < 64 << 20 and run.meta["rows"] == 0
    code, out = cli("scan", str(p))
    assert code == 3 and "nothing read" in out


def _framed(event: bytes) -> bytes:
    """A record with a good length checksum and a data checksum nobody checks (a long record
    that yields no scalar): the reference CRC bit by bit would take minutes on 200 KB records."""
    import struct

    from hostile_helpers import masked

    length = struct.pack("<Q", len(event))
    return length + masked(length) + event + b"\x00" * 4


def test_event_file_is_mapped_not_copied(tmp_path):
    """Images and histograms make event files big; only the scalars cost memory."""
    from hostile_helpers import ld, record, scalar_event

    image = ld(5, ld(1, ld(1, b"sample") + ld(4, bytes(range(256)) * 800)))  # ~200 KB, not a scalar
    parts = []
    for s in range(120):
        parts.append(record(scalar_event(s, "loss", 1.0 / (s + 1))))
        big = b"\x09" + b"\x00" * 8 + b"\x10" + bytes([s]) + image
        parts.append(_framed(big))
    p = tmp_path / "events.out.tfevents.2.host"
    p.write_bytes(b"".join(parts))
    tracemalloc.start()
    try:
        run = read_run(p)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(run.get("loss")) == 120
    assert peak < p.stat().st_size / 4, (peak, p.stat().st_size)


# -- bounded memory: points are folded past KEEP ---------------------------------------------------
def test_folding_keeps_means_nan_steps_and_counts(monkeypatch):
    from triage.ingest import builder

    monkeypatch.setattr(builder, "KEEP", 1000)
    b = builder.RunBuilder("x", "jsonl")
    n = 20_000
    steps = np.arange(n, dtype=np.float64)
    values = np.full(n, 2.0)
    values[12_345] = math.nan
    values[15_000] = math.inf
    for lo in range(0, n, 700):  # blocks of an odd size, as a reader adds them
        hi = min(n, lo + 700)
        b.add_block("loss", np.arange(lo, hi), steps[lo:hi], values[lo:hi])
    run = b.build()
    loss = run.get("loss")
    assert len(loss) <= 2000
    assert run.meta["reduced"]["loss"] == {"points": n, "kept": len(loss)}
    fin = np.isfinite(loss.values)
    assert np.allclose(loss.values[fin], 2.0)
    assert loss.steps[np.isnan(loss.values)].tolist() == [12_345.0]  # the NaN, at its own step
    assert loss.steps[np.isinf(loss.values)].tolist() == [15_000.0]
    assert any("block means" in w for w in run.meta["warnings"])


def _peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _csv(path, rows: int) -> None:
    rng = np.random.default_rng(1)
    with open(path, "w") as fh:
        fh.write("step,epoch,loss,lr,grad_norm,val_loss\n")
        for s in range(rows):
            val = f"{rng.random():.5f}" if s % 50 == 0 else ""
            fh.write(f"{s},{s // 10000},{2.5 - s * 1e-6:.6f},0.0003,{rng.random():.4f},{val}\n")


def test_csv_reader_memory_does_not_grow_with_the_file(tmp_path, monkeypatch):
    """19x the file before (the whole text, its lines, a Python float per cell); now a block at a
    time and the kept points: twice the rows, about the same peak."""
    from triage.ingest import builder

    monkeypatch.setattr(builder, "KEEP", 2000)
    small, big = tmp_path / "small.csv", tmp_path / "big.csv"
    _csv(small, 50_000)
    _csv(big, 150_000)
    p_small = _peak(lambda: read_run(small))
    p_big = _peak(lambda: read_run(big))
    assert p_big < 1.3 * p_small, (p_small, p_big)


def _jsonl(path, rows: int) -> None:
    with open(path, "w") as fh:
        for s in range(rows):
            fh.write(f'{{"step": {s}, "loss": {2.5 - s * 1e-6:.6f}, "lr": 0.0003, "grad_norm": {s % 7 / 7:.4f}}}\n')


def test_jsonl_reader_memory_does_not_grow_with_the_file(tmp_path, monkeypatch):
    from triage.ingest import builder

    monkeypatch.setattr(builder, "KEEP", 2000)
    monkeypatch.setenv("TRIAGE_NO_PARALLEL", "1")
    small, big = tmp_path / "small.jsonl", tmp_path / "big.jsonl"
    _jsonl(small, 40_000)
    _jsonl(big, 120_000)
    p_small = _peak(lambda: read_run(small))
    p_big = _peak(lambda: read_run(big))
    assert p_big < 1.3 * p_small, (p_small, p_big)


def test_lines_that_nearly_match_a_number_row_do_not_hang_the_reader(tmp_path):
    """A chat template's token ids printed as one long bracketed list (60 integers) nearly matches the
    reader's unnamed number-list row, which stops at 32 cells: a number pattern that could split one
    run of digits in two ways made that failure take exponential time. The same goes for other rows of
    many integers (in parentheses, blank- or bar-separated, after a step, as key=value pairs)."""
    ints = [str(151644 + 7 * i) for i in range(60)]
    rows = ["[" + ", ".join(ints) + "]", "(" + ", ".join(ints) + ")", " ".join(ints) + " x",
            "| " + " | ".join(ints) + " |x", "step 10: " + ", ".join(ints) + " !",
            "[" + ", ".join(i[:3] + "." + i[3:] for i in ints) + "]x",
            ", ".join(f"k{i}={v}" for i, v in enumerate(ints)) + " ~", "[   100,  0.0000078] " + ", ".join(ints) + " x",
            "3 4800 " + " ".join(ints) + " x"]
    log = tmp_path / "train.log"
    log.write_text("epoch 1 loss 2.5\n" + "".join(r + "\n" for r in rows) + "epoch 2 loss 2.4\n")
    t0 = time.monotonic()
    proc = _triage("inspect", str(log), timeout=120)
    assert time.monotonic() - t0 < 60 and proc.returncode == 0, proc.stderr[-2000:]
    assert "loss" in proc.stdout


@pytest.mark.parametrize("name", ["metrics.csv", "metrics.jsonl", "train.log"])
def test_appended_runs_near_the_float_limit_keep_finite_steps(tmp_path, name):
    """Hostile step counters near the largest float that start over (a run appended after steps of
    1e308): every reader places runs with one shared guard, so no step and no run start becomes inf and
    numpy raises no overflow warning."""
    import warnings

    steps = (1e307, 1.5e308, 0, 1, 2, 1.7e308, 0, 1, 2)
    p = tmp_path / name
    if name.endswith(".csv"):
        p.write_text("step,loss\n" + "".join(f"{s!r},0.5\n" for s in steps))
    elif name.endswith(".jsonl"):
        p.write_text("".join(json.dumps({"step": s, "loss": 0.5}) + "\n" for s in steps))
    else:
        p.write_text("".join(f"step {s!r} loss 0.5\n" for s in steps))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = read_run(str(p))
    assert run.meta["rows"] == 9
    assert np.isfinite(np.asarray(run.series["loss"].steps, dtype=float)).all()
    assert all(math.isfinite(s) for s in run.meta.get("run_starts") or [])
