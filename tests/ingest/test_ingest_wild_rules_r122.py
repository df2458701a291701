"""Reading rules for printed styles met in real training logs (round 122: a record printed as a block, one
key a line, whatever the column its values start in; a score named for training keeps its split)."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_unaligned_block_printed_once_is_one_record(tmp_path):
    """Style: a speech model's closing scores printed once under the line that announces them, `name: value` a
    line, the names of two lengths and nothing padded (`wer: 0.123`, then `char_error_rate: 0.0456`), no
    counter: one evaluation printed as a block, one record of two lines, its scores at one step."""
    run = _read(tmp_path, ["Evaluating on the test set", "wer: 0.123", "char_error_rate: 0.0456"])
    assert run.meta["rows"] == 1 and run.meta["joined_lines"] == 1
    assert _vals(run, "eval/wer") == [0.123] and _vals(run, "eval/cer") == [0.0456]
    assert list(run.get("eval/wer").steps) == list(run.get("eval/cer").steps)


def test_one_pair_lines_of_one_name_stay_a_row_each(tmp_path):
    """Not a block: the same name printed a line at a time (`cost = 0.91`, `cost = 0.88`, ...) is a row a line,
    aligned or not; a block's name met again opens the next record."""
    run = _read(tmp_path, ["cost = 0.91", "cost = 0.88", "cost = 0.85", "cost = 0.81"])
    assert run.meta["rows"] == 4
    assert _vals(run, "loss") == [0.91, 0.88, 0.85, 0.81]


def test_a_training_score_in_a_block_beside_a_held_out_loss_stays_training(tmp_path):
    """Style: a closing block of two lines, `Training Acc:  93.2%` then `Dev Loss:      0.281`: the accuracy's name
    says it was measured on the training data; printed beside a held-out loss it is still training's."""
    run = _read(tmp_path, ["All epochs done.", "Training Acc:  93.2%", "Dev Loss:      0.281"])
    assert _vals(run, "accuracy") == [93.2]
    assert _vals(run, "eval/loss") == [0.281]
    assert "eval/accuracy" not in run.series
