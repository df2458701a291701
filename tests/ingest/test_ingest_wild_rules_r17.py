"""Line-shape rules the wild corpus asked for (seventeenth round of review), each tried on a short log
written for the test in the style of the prints that needed it."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_a_bar_cut_inside_its_time_block_by_a_dated_log_line_keeps_the_next_bar_record(tmp_path):
    """A launcher's dated log line written over a tqdm bar before the bar closed its time block
    (`0/1 [00:00<?, ?it/s[2024-05-02 10:00:01,100] [INFO] ...`), then the step bar on the same line:
    the log line is a line of its own, and the step bar's postfix is the step's record."""
    line = ("Train epoch:   0%|          | 0/1 [00:00<?, ?it/s[2024-05-02 10:00:01,100] [INFO] "
            "[runner.py:88:handler] Stopping worker 4411 | 1/5000 [00:09<12:00:00,  9.10s/it, "
            "loss=0.688, acc=0.52, lr=1e-06]")
    run = _read(tmp_path, ["reward model training", line,
                           "[2024-05-02 10:00:02,200] [INFO] [runner.py:88:handler] Stopping worker 4412"])
    assert _vals(run, "loss") == [0.688]
    assert _vals(run, "accuracy") == [0.52]
    assert _vals(run, "learning_rate") == [1e-06]


def test_a_lone_accuracy_printed_as_a_tensor_is_a_measurement_not_a_setting(tmp_path):
    """Debug prints of a fine-tuning loop with no step counter (`action_accuracy:  tensor(0.25,
    device='cuda:0')` then `train_loss:  1.9`), each printed once: a number inside a tensor's repr
    was computed by the run, so the accuracy line is read beside the loss line."""
    lines = ["preds:  tensor([[True, False, False, True]], device='cuda:0')",
             "action_accuracy:  tensor(0.25, device='cuda:0')",
             "train_loss:  1.9"]
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [0.25]  # (the log's only accuracy, read as the accuracy)
    assert _vals(run, "loss") == [1.9]


def test_a_lone_setting_printed_plainly_is_still_dropped(tmp_path):
    """The tensor rule keeps only losses and accuracies: a plain `warmup_ratio: 0.1` printed once
    beside a lone loss stays a setting."""
    lines = ["warmup_ratio:  0.1", "train_loss:  nan"]
    run = _read(tmp_path, lines)
    assert "warmup_ratio" not in run.series
    assert math.isnan(_vals(run, "loss")[0])
