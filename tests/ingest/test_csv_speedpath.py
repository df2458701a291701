"""The CSV reader's block parser (numbers in C, only the non-empty cells) reads exactly what the
row-by-row csv module path reads: every value, every empty cell, every count and warning; and
line ends of every kind (LF, CRLF, old-Mac CR) give the same rows."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.ingest import csvlog, read_run

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

HEADER = ["epoch", "step", "train_loss_step", "grad_norm", "lr-AdamW", "val_loss", "val_acc", "train_loss_epoch"]


def _lightning_rows(n: int, seed: int = 0) -> list[str]:
    """Sparse rows as Lightning's CSVLogger writes them: train rows, learning-rate rows, validation
    and epoch rows, each filling a few of the columns."""
    rng = np.random.default_rng(seed)
    out = []
    for s in range(n):
        ep = s // 400
        loss = float(np.float32(2.5 * math.exp(-s / 3000) + rng.random() * 0.1))
        out.append(f"{ep},{s},{loss!r},{float(np.float32(rng.random() * 3))!r},,,,")
        if s % 10 == 0:
            out.append(f"{ep},{s},,,{3e-4 * min(1.0, (s + 1) / 200)!r},,,")
        if s % 100 == 99:
            out.append(f"{ep},{s},,,,{loss + 0.1!r},{rng.random()!r},")
        if s % 400 == 399:
            out.append(f"{ep},{s},,,,,,{loss!r}")
    return out


def _both(path, monkeypatch):
    """(run read with the block parser, run read with the csv module only, blocks the parser took)."""
    taken = []
    real = csvlog._fast_block

    def counting(body, ncols):
        out = real(body, ncols)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(csvlog, "_fast_block", counting)
    fast = read_run(path)
    monkeypatch.setattr(csvlog, "_fast_block", lambda body, ncols: None)
    careful = read_run(path)
    monkeypatch.setattr(csvlog, "_fast_block", real)
    return fast, careful, taken


def _same(a, b) -> None:
    assert a.format == b.format
    assert sorted(a.series) == sorted(b.series)
    for name in a.series:
        x, y = a.get(name), b.get(name)
        assert np.array_equal(x.steps, y.steps, equal_nan=True), name
        assert np.array_equal(x.values, y.values, equal_nan=True), name
    for key in ("rows", "skipped", "warnings", "non_numeric_keys"):
        assert a.meta.get(key) == b.meta.get(key), key


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_sparse_lightning_file_fast_equals_careful(tmp_path, monkeypatch, end):
    monkeypatch.setattr(csvlog, "BLOCK_BYTES", 4096)  # many blocks: every block edge is crossed
    rows = _lightning_rows(3000)
    p = tmp_path / "metrics.csv"
    p.write_bytes((end.join([",".join(HEADER), *rows]) + end).encode())
    fast, careful, taken = _both(p, monkeypatch)
    assert all(taken) and len(taken) > 10  # the block parser read every block itself
    _same(fast, careful)
    assert fast.meta["rows"] == len(rows) and fast.meta["skipped"] == {}
    assert len(fast.get("loss")) == 3000 and len(fast.get("eval/loss")) == 30


def test_cr_only_line_ends_read_every_row(tmp_path):
    """Old Mac files end lines with CR alone: every row is read, in every encoding."""
    text = "step,loss,acc\r" + "".join(f"{i},{2 - i / 100},0.5\r" for i in range(500))
    for enc in ("utf-8", "latin-1", "utf-16"):
        p = tmp_path / f"mac-{enc}.csv"
        p.write_bytes(text.encode(enc))
        run = read_run(p)
        assert run.format == "csv", enc
        assert run.meta["rows"] == 500 and run.meta["skipped"] == {}, enc
        assert run.get("loss").values.tolist() == [2 - i / 100 for i in range(500)], enc


def test_cr_only_file_split_in_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(csvlog, "BLOCK_BYTES", 1024)
    p = tmp_path / "m.csv"
    p.write_bytes(("step,loss,val_loss\r" + "".join(f"{i},{i * 0.5},{'' if i % 3 else i}\r"
                                                     for i in range(2000))).encode())
    run = read_run(p)
    assert run.meta["rows"] == 2000 and len(run.get("loss")) == 2000 and len(run.get("eval/loss")) == 667


def test_bad_cells_in_a_big_file_are_counted_exactly(tmp_path, monkeypatch):
    """`n/a` and `"1,5"` deep inside a file the block parser reads: the blocks around them go the
    careful way, and each such cell is counted, with the line of the first."""
    monkeypatch.setattr(csvlog, "BLOCK_BYTES", 8192)
    rows = _lightning_rows(4000, seed=3)
    bad = {1500: "n/a", 2500: '"1,5"', 3100: "n/a"}
    for i, cell in bad.items():
        parts = rows[i].split(",")
        parts[2] = cell if parts[2] else parts[2]
        rows[i] = ",".join(parts)
    assert all(rows[i].split(",")[2] for i in bad)  # each bad cell replaced a loss
    p = tmp_path / "metrics.csv"
    p.write_text("\n".join([",".join(HEADER), *rows]) + "\n")
    fast, careful, taken = _both(p, monkeypatch)
    _same(fast, careful)
    assert sum(taken) > 0.8 * len(taken)  # the odd lines sent only their neighbourhood the careful way
    assert fast.meta["skipped"] == {"non-numeric cell": 3}
    warning = [w for w in fast.meta["warnings"] if "train_loss_step" in w]
    assert len(warning) == 1 and "3 cell(s)" in warning[0] and f"on line {1500 + 2}" in warning[0]


CELLS = st.one_of(
    st.just(""), st.just(""), st.just(""),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.integers(-10**20, 10**20).map(str),
    st.sampled_from(["nan", "NaN", "-nan", "inf", "-inf", "+inf", "Infinity", "-Infinity", "1e400", "-0", "1.",
                     ".5", "+1", "01", "1e5", "2.5E-3", " 2.5", "3 ", " ", "n/a", "1_000", "5%", "nAn", "fit",
                     "1,5", "-", "e", "0x10"]),
)


@SETTINGS
@given(grid=st.lists(st.lists(CELLS, min_size=4, max_size=4), min_size=1, max_size=60),
       end=st.sampled_from(["\n", "\r\n", "\r"]), block=st.sampled_from([64, 256, 4096]))
def test_any_cells_fast_equals_careful(tmp_path, monkeypatch, grid, end, block):
    """Whatever the cells (numbers in every spelling the two parsers might disagree on, words,
    blanks), the block parser and the csv module read the same run."""
    monkeypatch.setattr(csvlog, "BLOCK_BYTES", block)
    monkeypatch.setattr(csvlog, "CAREFUL_BYTES", 32)
    lines = ["step,loss,acc,gnorm"]
    for s, row in enumerate(grid):
        lines.append(",".join([str(s)] + [f'"{c}"' if "," in c else c for c in row[1:]]))
    p = tmp_path / "g.csv"
    p.write_bytes((end.join(lines) + end).encode())
    fast, careful, _ = _both(p, monkeypatch)
    _same(fast, careful)


# -- a big file split over processes -------------------------------------------------------------------
def _split_file(tmp_path, rows: list[str]):
    p = tmp_path / "metrics.csv"
    p.write_text("# a comment before the header\n" + "\n".join([",".join(HEADER), *rows]) + "\n")
    return p


@pytest.fixture
def splitting(monkeypatch):
    """Files of a few hundred KB split in four, whatever this machine's CPUs; the forks counted."""
    import os

    from triage.ingest import jsonl

    monkeypatch.setattr(jsonl, "PARALLEL_MIN", 64 << 10)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.delenv("TRIAGE_NO_PARALLEL", raising=False)
    forks = []
    real = csvlog._fork_part

    def counting(*args):
        forks.append(args[1:3])
        return real(*args)

    monkeypatch.setattr(csvlog, "_fork_part", counting)
    return forks


def _one_piece(p, monkeypatch):
    monkeypatch.setenv("TRIAGE_NO_PARALLEL", "1")
    try:
        return read_run(p)
    finally:
        monkeypatch.delenv("TRIAGE_NO_PARALLEL")


def test_split_read_equals_one_piece(tmp_path, monkeypatch, splitting):
    rows = _lightning_rows(12000, seed=5)
    for i, cell in ((9000, "n/a"), (11000, "oops")):  # bad cells in a later part: counted, first line right
        parts = rows[i].split(",")
        parts[3] = cell
        rows[i] = ",".join(parts)
    rows.insert(7000, "")  # a blank line and a short row in a child's part
    rows.insert(8000, "1,2")
    p = _split_file(tmp_path, rows)
    split = read_run(p)
    assert len(splitting) >= 2  # the file was read in parts
    whole = _one_piece(p, monkeypatch)
    _same(split, whole)
    assert split.meta["skipped"] == {"non-numeric cell": 2, "blank line": 1, "wrong number of columns": 1}
    first_bad = [w for w in split.meta["warnings"] if "grad_norm" in w][0]
    line = 2 + next(i for i, r in enumerate(rows) if "n/a" in r) + 1  # a comment, the header, then the rows
    assert f"'n/a' on line {line}" in first_bad
    assert split.meta["rows"] == len(rows) - 2


def test_split_read_with_a_quote_in_a_later_part_reads_in_one_piece(tmp_path, monkeypatch, splitting):
    """A quoted field may hold newlines, so a cut at a line end can fall inside it: a file with a
    quote is read again in one piece. Here a 20 KB quoted note spans the middle of the file."""
    rows = _lightning_rows(12000, seed=6)
    middle = len(rows) // 2
    parts = rows[middle].split(",")
    parts[2] = '"' + "note,\n" * 3000 + '"'
    rows[middle] = ",".join(parts)
    p = _split_file(tmp_path, rows)
    split = read_run(p)
    assert splitting
    whole = _one_piece(p, monkeypatch)
    _same(split, whole)
    assert split.meta["skipped"] == {"non-numeric cell": 1} and split.meta["rows"] == len(rows)


def test_split_read_when_a_child_fails(tmp_path, monkeypatch, splitting):
    """A child that dies (out of memory, killed) costs time, not data: the parent reads its part."""
    import os

    real = csvlog._part
    parent = os.getpid()

    def dying(*args):
        if os.getpid() != parent:
            os._exit(3)
        return real(*args)

    monkeypatch.setattr(csvlog, "_part", dying)
    p = _split_file(tmp_path, _lightning_rows(12000, seed=7))
    split = read_run(p)
    assert splitting
    _same(split, _one_piece(p, monkeypatch))
