"""Reader rules from the twenty-third round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_model_card_table_without_pipes_reads_its_columns(tmp_path):
    """An HF model card's results table copied as plain text (the pipes lost): one blank between
    every word, the training loss named before the axis (`Training Loss Epoch Step Validation
    Loss ...`), `No log` where no training loss was logged yet and a two-word column (`Gen Len`)."""
    lines = ["Training Loss Epoch Step Validation Loss Rouge1 Gen Len"]
    for i, (train, val) in enumerate([("No log", "2.7672"), ("No log", "2.5470"), ("2.4100", "2.4587")], 1):
        lines.append(f"{train} {i}.0 {62 * i} {val} 0.1{i}0 20.0")
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [2.7672, 2.547, 2.4587]
    assert [float(s) for s in run.get("eval/loss").steps] == [62.0, 124.0, 186.0]
    assert _vals(run, "loss") == [2.41]
    assert _vals(run, "eval/completions/mean_length") == [20.0, 20.0, 20.0]


def test_model_card_table_without_pipes_under_a_dashed_rule(tmp_path):
    """The same table with a rule of dashes drawn under its header: the rows below it are its rows."""
    lines = ["Training Loss Epoch Step Validation Loss", "-" * 40,
             "2.1003 1.0 291 1.6578", "1.6211 2.0 582 1.4140", "1.4964 3.0 873 1.3040"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.1003, 1.6211, 1.4964]
    assert _vals(run, "eval/loss") == [1.6578, 1.414, 1.304]


def test_cntk_progress_line_names_its_criterion_ce(tmp_path):
    """CNTK's minibatch progress lines name the training criterion `ce` (`ce = 0.1527 * 3200`,
    the value times the samples it was averaged over): that is the training loss."""
    lines = [f" Epoch[56 of 175]-Minibatch[{100 * i + 1}-{100 * i + 100}, {i}.00%]: ce = 0.{15 + i}000000 * 3200; "
             f"errs = 3.{i}00% * 3200; time = 17.4793s; samplesPerSecond = 183.1" for i in range(1, 5)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.16, 0.17, 0.18, 0.19]


def test_ms_swift_token_acc_is_the_token_accuracy(tmp_path):
    """ms-swift 3.x prints its token accuracy as `token_acc` in the logging dicts."""
    lines = [f"{{'loss': {2.0 - i / 10:.2f}, 'token_acc': {0.5 + i / 100:.2f}, 'grad_norm': 1.9, "
             f"'learning_rate': 4e-06, 'epoch': 0.{i}, 'global_step/max_steps': '{i * 10}/100'}}" for i in range(1, 4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "token_accuracy") == [0.51, 0.52, 0.53]


def test_mxnet_top_k_accuracy_5_is_the_top5_accuracy(tmp_path):
    """MXNet's Speedometer prints the TopKAccuracy metric with k=5 as `top_k_accuracy_5`."""
    lines = [f"INFO:root:Epoch[0] Batch [{b}]\tSpeed: 2052.37 samples/sec\taccuracy=0.9{b % 10}0000, "
             f"top_k_accuracy_5=0.99{b % 10}000" for b in (20, 21, 22)]
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy_top5") == [0.99, 0.991, 0.992]
    assert "top_k_accuracy_5" not in run.series


def test_split_abbreviated_with_a_period_marks_the_line(tmp_path):
    """A summary line that opens with the split abbreviated and a period (`Val. Epoch: 0/500.
    Classification loss: nan. ...`, EfficientDet's validation summary) is the evaluation's."""
    lines = [f"Val. Epoch: {e}/500. Classification loss: 0.{5 - e}. Regression loss: 0.3. Total loss: 0.{8 - e}"
             for e in range(3)]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [0.8, 0.7, 0.6]
    assert "loss" not in run.series


def test_keras_row_wrapped_after_a_keys_colon(tmp_path):
    """A Keras epoch row cut right after a key's colon (`... - val_loss: `), its value opening the
    next line (`7.9712 - val_acc: 0.5000`): one row, the value joined back to its key."""
    lines = ["Epoch 1/2",
             "30/30 [==============================] - 18s 593ms/step - loss: 7.9712 - acc: 0.5000 - val_loss: ",
             "7.9712 - val_acc: 0.5000",
             "Epoch 2/2",
             "30/30 [==============================] - 17s 580ms/step - loss: 7.9000 - acc: 0.5100 - val_loss: ",
             "7.8000 - val_acc: 0.5200"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [7.9712, 7.9]
    assert _vals(run, "eval/loss") == [7.9712, 7.8]
    assert _vals(run, "eval/accuracy") == [0.5, 0.52]


def test_deepspeed_timers_line_has_no_step_counter(tmp_path):
    """DeepSpeed's wall-clock timers (`time (ms) | fwd: 2361.17 | bwd: 5296.18 | step: 54.67`) give
    how long each phase took; `step` there is the optimizer step's duration, not the step count."""
    stamp = "[2024-05-22 10:15:33,894] [INFO] [logging.py:96:log_dist] [Rank 0]"
    lines = []
    for i in range(1, 4):
        lines.append(f"{stamp} time (ms) | fwd_microstep: 174.69 | bwd_microstep: 391.97 | step_microstep: 54.02")
        lines.append(f"{stamp} time (ms) | fwd: 2361.17 | bwd: 5296.18 | bwd_inner: 5293.38 | step: 5{i}.67")
        lines.append(f"{{'loss': 1.{i}, 'learning_rate': 1.7e-05, 'epoch': 0.{i}}}")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.1, 1.2, 1.3]
    assert "fwd" not in run.series and "bwd" not in run.series
    assert all(float(s) < 1 for s in run.get("loss").steps)


def test_counter_range_with_the_epochs_share_inside_its_bracket(tmp_path):
    """CNTK's `Minibatch[   1- 500, 26.67%]`: a range of minibatches with the share of the epoch done
    inside the same bracket; each line is one point (three lines, three losses, none folded together)."""
    lines = [f" Epoch[ 1 of 30]-Minibatch[{500 * i - 499:4d}-{500 * i:5d}, {26.67 * i:.2f}%]: "
             f"ce = 2.30{i}00000 * 16000; err = 0.89 * 16000; time = 0.69s" for i in range(1, 4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.301, 2.302, 2.303]


def test_capitalised_split_word_in_an_epoch_block_keeps_its_split(tmp_path):
    """An epoch printed as a block of `Name: value` lines (`Epoch 1/100`, then `  Val IoU:    0.0000`):
    a line whose name opens with the split word keeps that split in the epoch's record, even for a
    name the alias table does not know (`Val PA`, pixel accuracy)."""
    lines = []
    for e in (1, 2):
        lines += [f"Epoch {e}/100", f"  Train Loss: 0.{5 - e}000", f"  Val Loss:   0.{4 - e}000",
                  f"  Val IoU:    0.0{e}00", f"  Val PA:     0.99{e}0", ""]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/IoU") == [0.01, 0.02]
    assert _vals(run, "eval/PA") == [0.991, 0.992]
    assert "IoU" not in run.series and "PA" not in run.series
