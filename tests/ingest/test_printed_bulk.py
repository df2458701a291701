"""The bulk path for big printed logs reads exactly what the line-by-line path reads."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from triage.ingest import printed_bulk, read_run, textlog

WILD = Path(__file__).resolve().parents[1] / "wild" / "logs"


def _both(path, monkeypatch):
    monkeypatch.setattr(printed_bulk, "MIN_LINES", 0)
    bulks = []
    settle = textlog._Bulk.settle

    def counting(self):
        bulks.append(len(self))
        settle(self)

    monkeypatch.setattr(textlog._Bulk, "settle", counting)
    fast = read_run(path)
    monkeypatch.setattr(printed_bulk, "MIN_LINES", 10 ** 12)
    slow = read_run(path)
    return fast, slow, sum(bulks)


def _same(fast, slow):
    assert sorted(fast.series) == sorted(slow.series)
    for key in fast.series:
        a, b = fast.series[key], slow.series[key]
        for att in ("values", "steps", "epochs"):
            u, v = getattr(a, att, None), getattr(b, att, None)
            assert (u is None) == (v is None), (key, att)
            if u is not None:
                assert np.array_equal(np.asarray(u), np.asarray(v), equal_nan=True), (key, att)
    for att in ("rows", "skipped", "step_axis", "dialects", "warnings", "lines"):
        assert fast.meta.get(att) == slow.meta.get(att), att
    assert fast.format == slow.format
    assert [(e.kind, e.line, e.step) for e in fast.events] == [(e.kind, e.line, e.step) for e in slow.events]


def _mixed_log(path: Path, steps: int, crlf: bool = False) -> None:
    """Everyday things in one printed log: a logging prefix, epoch headers, eval lines, tqdm redraws,
    a warning, a traceback that training survived, a NaN loss, numbers whose widths change."""
    rnd = random.Random(3)
    out = ["config: lr=3e-4 batch=32", "Epoch 1"]
    for i in range(1, steps + 1):
        if i % 97 == 0:
            out.append(f"\r 45%|████▌     | {i}/{steps} [00:10<00:12, 45.00it/s]")
        if i % 400 == 0:
            out.append(f"Epoch {i // 400 + 1}")
        if i == steps // 2:
            out += ["Traceback (most recent call last):", '  File "train.py", line 3, in <module>',
                    "RuntimeError: dataloader worker hiccup", "WARNING: retrying the batch"]
        loss = "nan" if i == steps - 5 else f"{2.5 * math.exp(-i / steps) + rnd.random() * 0.1:.4f}"
        out.append(f"2024-01-01 12:00:{i % 60:02d},{i % 1000:03d} INFO train.py:88 step {i} | loss {loss} | "
                   f"lr {3e-4 * min(1, i / 50):.3e} | grad_norm {rnd.random() * 2:.3f}")
        if i % 250 == 0:
            out.append(f"val loss: {rnd.random() + 1:.4f} acc: {rnd.random():.2%}")
    sep = "\r\n" if crlf else "\n"
    path.write_text(sep.join(out) + sep, encoding="utf-8")


@pytest.mark.parametrize("crlf", [False, True])
def test_mixed_log_bulk_equals_line_by_line(tmp_path, monkeypatch, crlf):
    log = tmp_path / "train.log"
    _mixed_log(log, 3000, crlf)
    fast, slow, bulked = _both(log, monkeypatch)
    assert bulked > 2500  # most lines went the bulk way
    _same(fast, slow)
    assert len(fast.get("loss")) == 3000
    assert math.isnan(float(fast.get("loss").values[-6]))


def test_epoch_only_and_line_order_logs(tmp_path, monkeypatch):
    log = tmp_path / "epochs.txt"
    log.write_text("".join(f"Epoch {e}: train loss {1 / e:.5f}, val acc {e / 500:.4f}\n" for e in range(1, 400)))
    fast, slow, bulked = _both(log, monkeypatch)
    assert bulked >= 390
    _same(fast, slow)
    log2 = tmp_path / "plain.txt"
    log2.write_text("".join(f"loss: {1 / i:.6f}\n" for i in range(1, 300)))
    fast, slow, bulked = _both(log2, monkeypatch)
    assert bulked >= 290
    _same(fast, slow)


def test_a_cut_that_misreads_falls_back(tmp_path, monkeypatch):
    """A check line that reads differently sends the whole log the slow way (result unchanged)."""
    log = tmp_path / "train.log"
    _mixed_log(log, 800)
    monkeypatch.setattr(printed_bulk, "_CHECKS", 10 ** 6)  # check every line
    real = printed_bulk.convert

    def spoil(shape, masks, lines, shape_of):
        real(shape, masks, lines, shape_of)
        shape.failed = True

    monkeypatch.setattr(printed_bulk, "convert", spoil)
    fast, slow, bulked = _both(log, monkeypatch)
    _same(fast, slow)


def test_decimal_parse_is_exact():
    rnd = random.Random(7)
    for fmt in ("{:.6f}", "{:.2e}", "{:.4f}", "{:.0f}", "{:.3E}", "{:+.5f}", "{:.1f}"):
        for scale in (1e-9, 1e-3, 1.0, 1e3, 1e7, -1.0, -1e-4):
            texts = [fmt.format(rnd.random() * scale) for _ in range(300)]
            groups: dict[str, list[str]] = {}
            for t in texts:
                groups.setdefault("".join("0" if c.isdigit() else c for c in t), []).append(t)
            for mask, group in groups.items():
                cells = np.frombuffer("".join(group).encode(), np.uint8).reshape(len(group), len(mask))
                got = printed_bulk._decimal(cells, group[0])
                if got is not None:
                    assert np.array_equal(got, np.array([float(t) for t in group])), (fmt, mask)


def test_wild_logs_read_the_same(monkeypatch):
    """Every printed log of the wild corpus's public-repository part, both ways."""
    files = sorted(p for p in (WILD / "repos").rglob("*") if p.is_file() and p.stat().st_size < 2_000_000)
    assert files
    compared = 0
    for path in files:
        try:
            fast, slow, _ = _both(path, monkeypatch)
        except Exception:  # unreadable either way is checked elsewhere
            continue
        _same(fast, slow)
        compared += 1
    assert compared >= 20
