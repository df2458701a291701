"""Reading rules for printed styles met in real training logs (round 122: a record printed as a block, one
key a line, whatever the column its values start in; a score named for training keeps its split)."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_a_training_score_in_a_block_beside_a_held_out_loss_stays_training(tmp_path):
    """Style: a closing block of two lines, `Training Acc:  93.2%` then `Dev Loss:      0.281`: the accuracy's name
    says it was measured on the training data; printed beside a held-out loss it is still training's."""
    run = _read(tmp_path, ["All epochs done.", "Training Acc:  93.2%", "Dev Loss:      0.281"])
    assert _vals(run, "accuracy") == [93.2]
    assert _vals(run, "eval/loss") == [0.281]
    assert "eval/accuracy" not in run.series
