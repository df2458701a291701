"""Scalars printed inside their container (`print(loss)` in a training loop) read as numbers."""

from __future__ import annotations

import math

import pytest

from triage.ingest import read_run
from triage.ingest.printed import unwrap_scalars


@pytest.mark.parametrize("text, want", [
    ("loss: tensor(2.3026, device='cuda:0', grad_fn=<NllLossBackward0>)", "loss: 2.3026"),
    ("acc tensor([0.8125])", "acc 0.8125"),
    ("loss tf.Tensor(0.52, shape=(), dtype=float32)", "loss 0.52"),
    ("loss <tf.Tensor: shape=(), dtype=float32, numpy=0.6931472>", "loss 0.6931472"),
    ("val_loss: array(1.5e-03, dtype=float32)", "val_loss: 1.5e-03"),
    ("loss np.float64(0.25) acc np.float32(0.9)", "loss 0.25 acc 0.9"),
    ("loss Array(nan, dtype=float32)", "loss nan"),
    ("tensor(3.2207, device='cuda:0', grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)", "loss: 3.2207"),
    # a bare tensor that no loss function made stays unnamed; a many-valued tensor is left alone
    ("tensor(3.2207, device='cuda:0')", "3.2207"),
    ("logits tensor([0.1, 0.9])", "logits tensor([0.1, 0.9])"),
    ("Epoch 1 loss 2.3", "Epoch 1 loss 2.3"),
])
def test_unwrap_scalars(text, want):
    assert unwrap_scalars(text) == want


def _read(tmp_path, lines):
    p = tmp_path / "train.log"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return read_run(p)


def test_printed_tensors_in_a_training_loop_read_as_metrics(tmp_path):
    lines = [f"Epoch: {e}, Loss: tensor({2.3 / e:.4f}, device='cuda:0', grad_fn=<NllLossBackward0>), "
             f"Val Loss: tensor({2.5 / e:.4f}, device='cuda:0')" for e in range(1, 11)]
    run = _read(tmp_path, lines)
    assert math.isclose(run.get("loss").values[-1], 0.23)
    assert math.isclose(run.get("eval/loss").values[0], 2.5)
    assert list(run.get("loss").steps) == list(range(1, 11))


def test_a_dict_of_tensors_reads_like_a_dict_of_numbers(tmp_path):
    lines = [f"{{'loss': tensor({1.0 / k:.4f}, device='cuda:0'), 'step': {k}}}" for k in range(1, 6)]
    run = _read(tmp_path, lines)
    assert sorted(run.series) == ["loss"]
    assert math.isclose(run.get("loss").values[-1], 0.2)


def test_print_loss_alone_reads_as_the_loss_by_its_autograd_node(tmp_path):
    lines = ["tensor(2.3026, device='cuda:0', grad_fn=<NllLossBackward0>)",
             "tensor(2.1000, device='cuda:0', grad_fn=<NllLossBackward0>)",
             "tensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>)"]
    loss = _read(tmp_path, lines).get("loss")
    assert len(loss.values) == 3 and math.isnan(loss.values[-1])
