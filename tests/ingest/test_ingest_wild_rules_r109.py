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
