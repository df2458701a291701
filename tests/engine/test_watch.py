"""`triage watch` on logs that change under it: folders, unfinished lines, deletion, truncation,
paths that do not exist yet, and the early warnings (a growing gradient norm before any NaN).

Each test drives the real `Watcher` (or the real command) over files written the way training
jobs write them; each one failed before the fix it guards."""

from __future__ import annotations

import math
import os
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage import api
from triage.cli import app
from triage.engine.watch import Watcher

runner = CliRunner()


@pytest.fixture(scope="module")
def kb():
    return api.load_kb()


def regression_rows(n: int, start: int = 1) -> list[str]:
    """An MSE loss falling from 0.5 to about 3e-4, written in scientific notation as many loggers do."""
    return [f"{i},{0.5 * math.exp(-i / 25) + 3e-4:.4e},{1.0 + 0.05 * math.sin(i):.4f}" for i in range(start, start + n)]


def write_csv(path: Path, rows: list[str], tail: str = "") -> None:
    path.write_text("step,loss,grad_norm\n" + "\n".join(rows) + "\n" + tail)


def watcher(path, kb, notes=None, **kw) -> Watcher:
    return Watcher(str(path), kb, interval=0.05, on_note=(notes.append if notes is not None else None), **kw)


def detectors(findings) -> set[str]:
    return {f.detector for f in findings}


# -- a folder ------------------------------------------------------------------------------------
def test_a_log_growing_inside_a_folder_is_read_again(tmp_path, kb):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    log = run_dir / "metrics.csv"
    write_csv(log, regression_rows(200))
    w = watcher(run_dir, kb)
    assert w.poll() == [] and w.state.reads == 1
    with open(log, "a") as fh:  # the job keeps writing; the folder's own mtime does not change
        fh.write("\n".join(f"{i},nan,nan" for i in range(201, 221)) + "\n")
    new = w.poll()
    assert w.state.reads == 2 and w.state.rows == 220
    assert "det-loss-nan" in detectors(new)


def test_in_a_folder_only_the_log_being_read_can_start_over(tmp_path, kb):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    log = run_dir / "metrics.csv"
    write_csv(log, regression_rows(100) + [f"{i},nan,nan" for i in range(101, 121)])
    other = run_dir / "optimizer.pt"
    other.write_bytes(b"x" * 1000)
    notes: list[str] = []
    w = watcher(run_dir, kb, notes)
    assert "det-loss-nan" in detectors(w.poll())
    other.write_bytes(b"y" * 10)  # a checkpoint saved again, smaller: not the log
    w.poll()
    assert notes == [] and "det-loss-nan" in detectors(w.findings())
    write_csv(log, regression_rows(40))  # the log itself starts over
    w.poll()
    assert any("truncated (metrics.csv)" in n for n in notes), notes
    assert "det-loss-nan" not in detectors(w.findings())


# -- an unfinished last line -----------------------------------------------------------------------
def test_a_half_written_last_line_is_not_read_as_a_value(tmp_path, kb):
    log = tmp_path / "train.csv"
    rows = regression_rows(200)
    write_csv(log, rows, tail="201,3.1")  # `201,3.1e-04` caught mid-write: 3.1 would be a 6x explosion
    w = watcher(log, kb)
    assert w.poll() == []
    assert w.state.rows == 200 and w.state.partial
    with open(log, "a") as fh:
        fh.write("e-04,0.9876\n")
    assert w.poll() == []
    assert w.findings() == [] and w.state.rows == 201
    assert w.run.get("loss").values[-1] == pytest.approx(3.1e-4)


def test_a_false_finding_from_an_unfinished_line_leaves_the_summary(tmp_path, kb):
    log = tmp_path / "train.csv"
    write_csv(log, regression_rows(200), tail="201,3.1")
    w = watcher(log, kb, settle=0.0)  # a writer silent long enough: the last line is read as it is
    new = w.poll()
    assert "det-loss-explosion" in detectors(new), "the cut value does look like an explosion"
    with open(log, "a") as fh:
        fh.write("e-04,0.9876\n")
    w.poll()
    assert "det-loss-explosion" not in detectors(w.findings())
    assert w.findings() == []


def test_a_finished_log_without_a_final_newline_is_read_whole_once_settled(tmp_path, kb):
    log = tmp_path / "train.csv"
    rows = regression_rows(200)
    log.write_text("step,loss,grad_norm\n" + "\n".join(rows[:-1]) + "\n" + rows[-1])
    w = watcher(log, kb, settle=0.3)
    w.poll()
    assert w.state.rows == 199
    time.sleep(0.35)
    w.poll()
    assert w.state.rows == 200 and not w.state.partial


# -- deleted, truncated, not there yet ---------------------------------------------------------------
def test_a_deleted_file_is_reported_and_followed_when_it_comes_back(tmp_path, kb):
    log = tmp_path / "train.csv"
    write_csv(log, regression_rows(100))
    notes: list[str] = []
    w = watcher(log, kb, notes)
    w.poll()
    log.unlink()
    w.poll()
    w.poll()
    assert sum("deleted" in n for n in notes) == 1, notes
    assert w.state.deleted
    write_csv(log, regression_rows(100) + [f"{i},nan,nan" for i in range(101, 111)])
    new = w.poll()
    assert any("is back" in n for n in notes), notes
    assert "det-loss-nan" in detectors(new) and not w.state.deleted


def test_a_truncated_and_rewritten_file_drops_the_old_findings(tmp_path, kb):
    log = tmp_path / "train.csv"
    write_csv(log, regression_rows(100) + [f"{i},nan,nan" for i in range(101, 121)])
    notes: list[str] = []
    w = watcher(log, kb, notes)
    assert "det-loss-nan" in detectors(w.poll())
    write_csv(log, regression_rows(50))  # a new run writes to the same file
    w.poll()
    assert "det-loss-nan" not in detectors(w.findings())
    assert any("truncated" in n for n in notes), notes
    with open(log, "a") as fh:  # the new run goes NaN too: that is news again
        fh.write("\n".join(f"{i},nan,nan" for i in range(51, 71)) + "\n")
    assert "det-loss-nan" in detectors(w.poll())


def test_a_path_that_does_not_exist_yet_is_waited_for(tmp_path, kb):
    log = tmp_path / "notyet.csv"
    notes: list[str] = []
    w = watcher(log, kb, notes)
    assert w.poll() == [] and w.poll() == []
    assert sum("waiting for" in n for n in notes) == 1
    write_csv(log, regression_rows(50) + [f"{i},nan,nan" for i in range(51, 61)])
    assert "det-loss-nan" in detectors(w.poll())


def test_watch_command_waits_for_the_file_like_tail_F(tmp_path, monkeypatch):
    log = tmp_path / "notyet.csv"
    polled = threading.Event()
    poll = Watcher.poll

    def first_poll_seen(self):
        found = poll(self)
        polled.set()
        return found

    monkeypatch.setattr(Watcher, "poll", first_poll_seen)

    def job():
        polled.wait(timeout=20)  # (the file appears only after the command has looked for it once)
        time.sleep(0.2)
        write_csv(log, regression_rows(50) + [f"{i},nan,nan" for i in range(51, 61)])

    t = threading.Thread(target=job)
    t.start()
    result = runner.invoke(app, ["watch", str(log), "--interval", "0.1", "--stop-after", "2.5"])
    t.join()
    assert result.exit_code == 1, result.output
    assert "waiting for" in result.stderr
    assert "loss is NaN" in result.stdout


def test_watch_command_says_when_the_file_never_appeared(tmp_path):
    result = runner.invoke(app, ["watch", str(tmp_path / "never.log"), "--interval", "0.1", "--stop-after", "0.3"])
    assert result.exit_code == 2
    assert "no such file" in result.stderr and "Traceback" not in result.output


# -- early warnings ------------------------------------------------------------------------------------
def test_a_growing_gradient_norm_is_reported_before_anything_is_nan(tmp_path, kb):
    """A hundredfold climb of the gradient norm over 150 steps, then NaN: the warning comes first."""
    log = tmp_path / "train.jsonl"
    log.write_text("")
    w = watcher(log, kb)
    warned_at = None
    for i in range(1, 181):
        grad = math.exp(math.log(100) * i / 150) * (1 + 0.05 * math.sin(7 * i))
        loss = "NaN" if i > 150 else f"{2.3 * math.exp(-i / 100) + 0.4:.4f}"
        with open(log, "a") as fh:
            fh.write(f'{{"step": {i}, "loss": {loss}, "grad_norm": {grad:.4f}}}\n')
        if i % 10 == 0:
            new = w.poll()
            if warned_at is None and detectors(new) & {"det-gradnorm-growing", "det-gradnorm-ramp", "det-gradnorm-high"}:
                warned_at = i
    assert warned_at is not None and warned_at <= 150, warned_at
    assert "det-loss-nan" in detectors(w.findings())


def test_verdicts_about_the_whole_curve_wait_for_the_summary(tmp_path, kb):
    """A flat loss is a plateau only once the run says so; live, it is only summarised."""
    log = tmp_path / "train.jsonl"
    log.write_text("".join(f'{{"step": {i}, "loss": {2.3026 + 0.001 * math.sin(i):.5f}}}\n' for i in range(1, 301)))
    w = watcher(log, kb)
    assert w.poll() == []
    assert w.findings(), "the summary still shows what the detectors see"
    assert all(f.category not in ("nan", "unstable") for f in w.findings())


def test_watch_never_holds_a_temporary_copy(tmp_path, kb, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    log = tmp_path / "train.csv"
    write_csv(log, regression_rows(100), tail="101,3.1")
    w = watcher(log, kb)
    w.poll()
    assert w.state.partial
    assert os.listdir(tmp_path / "tmp") == []
