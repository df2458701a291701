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


def test_running_sums_before_their_averages_read_the_averages(tmp_path):
    """Style: meters that print their running sum and, in brackets, its average (`Loss 96.214 (1.6036)
    Prec@1 4021.500 (67.025%)`): every pair on a line has one whole ratio (the batches summed, 60 then 61),
    so the values before the brackets are sums and the averages are the line's readings."""
    lines = []
    for k, (loss, acc) in enumerate([(1.6036, 67.025), (1.5981, 67.118), (1.5893, 67.342)]):
        n = 60 + k
        lines.append(f"train ep 3 it {400 + 10 * k}/1250 | Loss {loss * n:.3f} ({loss:.4f}) | "
                     f"Prec@1 {acc * n:.3f} ({acc:.3f}%) | lr 0.05")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.6036, 1.5981, 1.5893]
    assert _vals(run, "accuracy") == [67.025, 67.118, 67.342]


def test_a_value_and_its_running_average_read_the_value(tmp_path):
    """Not sums: a meter's current value and its running average (`Loss 2.3104 (2.4511)  Acc 71.0 (69.2)`),
    the ratios differing from term to term: the value before the brackets is the reading, as in a table's
    `2.31 (2.45)` cell."""
    lines = [f"step {s}  Loss {2.31 - s / 1000:.4f} (2.4511)  Acc {71.0 + s / 100:.1f} (69.2)" for s in (100, 200, 300)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.21, 2.11, 2.01]
    assert _vals(run, "accuracy") == [72.0, 73.0, 74.0]


def test_one_pair_at_a_whole_multiple_of_its_average_is_still_the_value(tmp_path):
    """A batch whose loss is exactly twice its running average (a spike) is a value, not a sum: one pair on a line
    says nothing about sums; only a shared whole ratio across a line's pairs does."""
    lines = [f"step {s}  Loss {v:.4f} ({a:.4f})" for s, v, a in ((100, 2.3104, 2.4511), (200, 4.8000, 2.4000),
                                                             (300, 2.2210, 2.4010))]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.3104, 4.8, 2.221]
