"""Round r109 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from written_log import read_text


def test_a_score_after_the_held_out_loss_is_the_held_out_splits(tmp_path):
    # `Epoch 3 | Train Loss: 0.41 | Val Loss: 0.52 | SSIM: 0.71`: the score printed after the validation loss, with
    # no split word, was measured on that split; a rate after it stays the run's own
    lines = [f"Epoch {e} (120.5s) | Train Loss: {0.9 - e / 10:.4f} | Val Loss: {0.95 - e / 10:.4f} | "
             f"SSIM: {0.5 + e / 50:.4f} | LR: 0.0001" for e in range(1, 6)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert "eval/ssim" in run.series and "ssim" not in run.series, sorted(run.series)
    assert "eval/loss" in run.series and "loss" in run.series
    assert "learning_rate" in run.series and "eval/learning_rate" not in run.series


def test_a_score_on_a_line_with_no_training_key_keeps_its_name(tmp_path):
    # `Val Loss: 0.5 | Accuracy: 0.8` alone names no training split before it: left as printed
    lines = [f"Epoch {e} | Loss: {1.0 - e / 10:.3f} | Accuracy: {0.5 + e / 20:.3f}" for e in range(1, 5)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert "accuracy" in run.series and "eval/accuracy" not in run.series, sorted(run.series)


def test_a_counter_with_a_colon_then_its_count_of_its_total_in_brackets(tmp_path):
    # `Epoch: [ 3/150] [  2/  5] time: 12.5, d_loss: 1.2, g_loss: 0.8` (DCGAN-style): the epoch's own bracket holds
    # its count of its total, the next bracket the batch: one run on an epoch+batch axis, not a restart per epoch
    lines = [f"Epoch: [{e:2d}/150] [{b:4d}/   5] time: {10.0 + e * 5 + b:.4f}, d_loss: {1.5 - b / 10:.8f}, "
             f"g_loss: {0.8 + b / 10:.8f}" for e in range(1, 5) for b in range(5)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert run.meta["rows"] == 20, run.meta
    assert not run.meta.get("runs"), run.meta
    assert run.meta.get("step_axis") == "epoch+batch", run.meta


def test_a_batch_time_beside_a_bracketed_batch_count_is_no_second_counter(tmp_path):
    # `Epoch: [2/40][100/900] Data 0.001 (0.002) Batch 0.31 (0.30) Loss 1.25`: the bracket counts the batch; `Batch`
    # followed by a decimal is how long a batch took
    lines = [f"Epoch: [2/40][{b}/900] Data 0.001 (0.002) Batch {0.3 + b / 10000:.3f} (0.300) "
             f"Loss {2.0 - b / 1000:.4f} Accuracy {b / 1000:.4f}." for b in range(100, 600, 100)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert run.meta["rows"] == 5, run.meta
    assert [round(float(v), 3) for v in run.series["loss"].values] == [1.9, 1.8, 1.7, 1.6, 1.5]
