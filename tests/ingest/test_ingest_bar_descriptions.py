"""Metrics a progress bar's description carries (tqdm `set_description` each batch) are records;
a bar that starts again is the next pass over the data, not a new run."""

from __future__ import annotations

import math

from triage.ingest import read_run


def _read(tmp_path, text: str):
    p = tmp_path / "train.log"
    p.write_text(text, encoding="utf-8")
    return read_run(p)


def _bar(desc: str, n: int, total: int) -> str:
    return f"{desc}: {100 * n // total}%|#   | {n}/{total} [00:01<00:09, 9.80it/s]"


def test_a_running_description_is_a_record_per_redraw(tmp_path):
    lines = [_bar(f"loss={2.0 / k:.4f} lr=0.01", k, 50) for k in range(1, 11)]
    run = _read(tmp_path, "\n".join(lines) + "\n")
    loss = run.get("loss")
    assert list(loss.steps) == list(range(1, 11))
    assert math.isclose(loss.values[-1], 0.2)
    assert run.get("learning_rate") is not None


def test_a_bar_that_starts_again_is_the_next_pass(tmp_path):
    """Three epochs of one bar redrawn with `\\r`: 60 points on one axis, judged as one run."""
    text, k = "", 0
    for _ in range(3):
        for n in range(1, 21):
            k += 1
            text += _bar(f"Train loss {2.0 * math.exp(-k / 20):.4f}", n, 20) + "\r"
        text += "\n"
    run = _read(tmp_path, text)
    loss = run.get("loss")
    assert len(loss.values) == 60
    assert (loss.steps[1:] > loss.steps[:-1]).all()
    assert not run.meta.get("run_starts")


def test_a_description_that_does_not_change_is_a_label_not_new_values(tmp_path):
    """The last epoch's score shown while the next one runs: one value, not one per redraw."""
    lines = [_bar("best acc 0.8125", k, 50) for k in range(1, 11)]
    run = _read(tmp_path, "\n".join(lines) + "\n")
    acc = run.get("accuracy")
    assert acc is None or len(acc.values) == 1


def test_unnamed_numbers_before_a_bar_are_no_record(tmp_path):
    """A detector's table row pasted without its header (`0/299  15.8G  3.99 ...: 63% 34/54 [..]`)."""
    line = "     0/299     15.8G      3.99     0.358         0      4.35        22       608:  63% 34/54 [00:42<00:25,  1.26s/it]"
    run = _read(tmp_path, "some words\n" + line + "\n")
    assert not run.series
