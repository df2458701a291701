"""Round r95 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from triage.ingest import read_run


def _read(tmp_path, text: str, name: str = "train.log"):
    p = tmp_path / name
    p.write_text(text)
    return read_run(str(p))


def test_bare_split_that_falls_with_the_loss_is_that_splits_loss(tmp_path):
    # `it 40 | loss: 2.60 | dev: 2.41`: the split word alone beside the loss, on its scale and falling
    # with it, is the held-out loss (an accuracy would rise while the loss falls)
    rows = [(0, 5.02, 4.71), (40, 3.95, 3.80), (80, 3.31, 3.22), (120, 3.02, 3.05), (160, 2.88, 2.95)]
    text = "".join(f"it {s} | took 1.2m | loss: {a:.2f} | dev: {b:.2f}\n" for s, a, b in rows)
    run = _read(tmp_path, text)
    assert list(run.series["eval/loss"].values) == [4.71, 3.80, 3.22, 3.05, 2.95]
    assert "eval/accuracy" not in run.series


def test_bare_split_on_its_own_line_after_the_loss_lines_is_that_splits_loss(tmp_path):
    # the held-out value printed on a line of its own after some training lines pairs with the loss
    # printed last before it
    text = ""
    loss = 3.9
    for k in range(1, 7):
        for j in range(3):
            loss *= 0.9
            text += f"[{k} {j * 100}/300] loss {loss:.4f} lr 1.0e-04\n"
        text += f"  => valid {loss * 1.1:.4f} | uniq 0.99\n"
    run = _read(tmp_path, text)
    assert len(run.series["eval/loss"].values) == 6
    assert "eval/accuracy" not in run.series


def test_bare_split_that_rises_as_the_loss_falls_stays_an_accuracy(tmp_path):
    # `Loss: 1.42, Val: 0.53`: the bare split moving against the loss scores it the other way
    rows = [(1.42, 0.41), (1.10, 0.52), (0.93, 0.60), (0.81, 0.66), (0.74, 0.70)]
    text = "".join(f"Epoch {i}: Loss: {a:.2f}, Val: {b:.2f}\n" for i, (a, b) in enumerate(rows, 1))
    run = _read(tmp_path, text)
    assert list(run.series["eval/accuracy"].values) == [0.41, 0.52, 0.60, 0.66, 0.70]
    assert "eval/loss" not in run.series
