"""A rich.table printed once per epoch (heavy header borders, a `│ 38 │ 0.7372 │` row) is a table of metrics,
not the gutter of a rich traceback."""

from __future__ import annotations

from triage.ingest import read_run


def _block(epoch: int, step: int, loss: float, lr: str) -> str:
    return (f"          epoch {epoch}/4          \n"
            "┏━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━┓\n"
            "┃ step ┃ train_loss ┃       lr ┃\n"
            "┡━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━┩\n"
            f"│ {step:>4} │ {loss:>10.4f} │ {lr:>8} │\n"
            "└──────┴────────────┴──────────┘\n")


def test_a_rich_table_per_epoch_is_read(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("".join(_block(e, 40 * e, 1.0 / e, "1.00e-03") for e in range(1, 5)), encoding="utf-8")
    run = read_run(p)
    assert list(run.get("loss").steps) == [40, 80, 120, 160]
    assert list(run.get("loss").values) == [1.0, 0.5, 0.3333, 0.25]
    assert not [e for e in run.events if e.kind == "traceback"]


def test_a_rich_traceback_frame_is_still_a_traceback(tmp_path):
    p = tmp_path / "crash.log"
    p.write_text("╭───────────── Traceback (most recent call last) ─────────────╮\n"
                 "│ /work/train.py:41 in main                                   │\n"
                 "│   40 │     loss = model(x)                                  │\n"
                 "│ ❱ 41 │     loss.backward()                                  │\n"
                 "╰─────────────────────────────────────────────────────────────╯\n"
                 "RuntimeError: element 0 of tensors does not require grad\n", encoding="utf-8")
    run = read_run(p)
    assert any(e.kind == "traceback" for e in run.events)
