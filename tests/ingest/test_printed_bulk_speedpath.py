"""The bulk path passes over lines that change nothing (progress redraws, blank lines, words with no
number to read) without reading them, and still reads exactly what the line-by-line path reads."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from triage.ingest import printed_bulk, read_run, textlog


def _both(path: Path, monkeypatch) -> tuple:
    """(bulk reading, line-by-line reading, segments the bulk reading read the slow way)."""
    monkeypatch.setattr(printed_bulk, "MIN_LINES", 0)
    seen = []
    real = textlog._TextReader.segment

    def counting(self, ln, seg):
        seen.append(ln)
        return real(self, ln, seg)

    monkeypatch.setattr(textlog._TextReader, "segment", counting)
    fast = read_run(path)
    slow_segments = len(seen)
    monkeypatch.setattr(textlog._TextReader, "segment", real)
    monkeypatch.setattr(printed_bulk, "MIN_LINES", 10 ** 12)
    slow = read_run(path)
    return fast, slow, slow_segments


def _same(fast, slow) -> None:
    assert sorted(fast.series) == sorted(slow.series)
    for key in fast.series:
        a, b = fast.series[key], slow.series[key]
        for att in ("values", "steps", "epochs"):
            u, v = getattr(a, att, None), getattr(b, att, None)
            assert (u is None) == (v is None), (key, att)
            if u is not None:
                assert np.array_equal(np.asarray(u), np.asarray(v), equal_nan=True), (key, att)
    for att in ("rows", "skipped", "step_axis", "dialects", "warnings", "lines", "runs"):
        assert fast.meta.get(att) == slow.meta.get(att), att
    assert fast.format == slow.format
    assert [(e.kind, e.line, e.step, e.text) for e in fast.events] == \
        [(e.kind, e.line, e.step, e.text) for e in slow.events]


def _bar(i: int, total: int) -> str:
    pct = 100 * i // total
    fill = "█" * (pct // 10)
    return f"\r{pct:3d}%|{fill:<10}| {i}/{total} [00:{i % 60:02d}<00:12, {40 + i % 7}.00it/s]"


def _printed_log(path: Path, steps: int) -> int:
    """A logging-prefix metric line a step, a tqdm redraw every 5 steps, blank lines and messages with
    no number to read, a warning; returns how many redraw lines it holds."""
    rnd = random.Random(5)
    out, bars = [], 0
    for i in range(1, steps + 1):
        if i % 5 == 0:
            out.append(_bar(i, steps))
            bars += 1
        if i % 1000 == 0:
            out += ["", "2024-01-01 12:00:00,000 INFO train.py:90 Saving the model", ""]
        if i == steps // 2:
            out.append("2024-01-01 12:00:00,000 WARNING train.py:91 grad scaler: skipping step")
        out.append(f"2024-01-01 12:{i % 60:02d}:{i % 60:02d},{i % 1000:03d} INFO train.py:120 "
                   f"step {i} | loss {2.5 * math.exp(-i / steps) + rnd.random() * 0.1:.4f} | "
                   f"lr {3e-4 * min(1, i / 500):.3e} | grad_norm {rnd.random() * 2:.3f}")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return bars


def test_redraws_are_passed_over_and_change_nothing(tmp_path, monkeypatch):
    log = tmp_path / "train.log"
    bars = _printed_log(log, 8000)
    fast, slow, read_slowly = _both(log, monkeypatch)
    _same(fast, slow)
    assert len(fast.get("loss")) == 8000
    # every redraw would be one segment the slow way; the bulk reads a few of each shape only
    assert bars == 1600 and read_slowly < 200, read_slowly


def test_tqdm_counts_still_give_dict_lines_their_step(tmp_path, monkeypatch):
    """HF Trainer prints bar redraws and `{'loss': ...}` dicts with no step: the step is the bar's
    count, so the counts of redraws passed over must be there when a dict line is read."""
    rnd = random.Random(2)
    total = 6000
    out = []
    for i in range(1, total + 1):
        out.append(_bar(i, total).lstrip("\r"))
        if i % 50 == 0:
            out.append(f"{{'loss': {rnd.random():.4f}, 'grad_norm': {rnd.random() * 3:.4f}, "
                       f"'learning_rate': {2e-5 * (1 - i / total):.3e}, 'epoch': {i / 2000:.2f}}}")
    log = tmp_path / "hf.log"
    log.write_text("\n".join(out) + "\n", encoding="utf-8")
    fast, slow, read_slowly = _both(log, monkeypatch)
    _same(fast, slow)
    steps = np.asarray(fast.get("loss").steps)
    assert len(steps) == total // 50 and steps[0] == 50 and steps[-1] == total
    assert read_slowly < total // 2


def test_a_finished_bar_with_metrics_is_read_though_its_shape_is_quiet(tmp_path, monkeypatch):
    """`k/99` redraws and the finished `99/99` bar share a mask; the finished one's description
    carries the pass's metrics and must stay a record. The running redraws show the same
    description all pass long (a label), so they add nothing, on either path."""
    rnd = random.Random(4)
    out = []
    for e in range(1, 121):
        loss = rnd.random()
        for k in range(10, 100):
            out.append(f"Epoch {e:03d} loss {loss:.3f}: {k:02d}%|#####| {k:02d}/99 [00:01<00:02]")
    log = tmp_path / "bars.log"
    log.write_text("\n".join(out) + "\n", encoding="utf-8")
    fast, slow, _ = _both(log, monkeypatch)
    _same(fast, slow)
    assert len(slow.get("loss")) == 120


def test_a_running_description_with_new_values_on_each_redraw_reads_alike_on_both_paths(tmp_path, monkeypatch):
    """`set_description` with the batch's loss: every redraw is a record, the same on both paths."""
    rnd = random.Random(5)
    out = [f"Epoch {e:03d} loss {0.2 + rnd.random():.5f}: {k:02d}%|#####| {k:02d}/99 [00:01<00:02]"
           for e in range(1, 31) for k in range(10, 100)]
    log = tmp_path / "bars.log"
    log.write_text("\n".join(out) + "\n", encoding="utf-8")
    fast, slow, _ = _both(log, monkeypatch)
    _same(fast, slow)
    assert len(slow.get("loss")) > 0.99 * len(out)


def test_a_quiet_line_that_is_not_sends_the_log_the_slow_way(tmp_path, monkeypatch):
    log = tmp_path / "train.log"
    _printed_log(log, 3000)
    calls = []
    real_read = textlog.read

    def spy(src, fmt=None, bulk=True):
        calls.append(bulk)
        return real_read(src, fmt, bulk)

    monkeypatch.setattr(textlog._TextReader, "read_quiet", lambda self, ln, line: False)
    monkeypatch.setattr(textlog, "read", spy)
    monkeypatch.setattr(printed_bulk, "MIN_LINES", 0)
    fast = textlog.read(textlog.Source.from_path(log))
    assert calls == [True, False]  # the samples did not hold: read again line by line
    monkeypatch.setattr(printed_bulk, "MIN_LINES", 10 ** 12)
    _same(fast, read_run(log))


@pytest.mark.parametrize("tail", [b"\n", b"", b"\r\n", b"\n\n"])
def test_masks_line_up_with_splitting_the_text(tail):
    lines = [b"step 1 loss 0.5", b"", "épocha 2 — loss 0.25 █".encode(), b"\xff\xfe bad bytes 7",
             b"step 10 loss 0.125\r", b"x" * 300, b"step 99 loss 0.5"] * 40
    raw = b"\n".join(lines) + tail
    m = printed_bulk.Masks(raw)
    want = raw.decode("utf-8", "replace").split("\n")
    if want and want[-1] == "":
        want.pop()
    assert len(m.lines) == len(want) and list(m.lines) == want
    # ids as a tiny chunk size cuts them, and as one piece
    for chunk in (7, 64, 1 << 20):
        ids = printed_bulk._mask_ids(raw, chunk)
        assert np.array_equal(ids, m.ids)
    keys = [w.encode("utf-8", "surrogateescape") for w in want]
    masked = [bytes(raw[s:e]).translate(printed_bulk._MASK) for s, e in zip(m.starts, m.stops)]
    first: dict = {}
    assert list(m.ids) == [first.setdefault(k, i) for i, k in enumerate(masked)]
    assert len(keys) == len(masked)
