"""Reading rules for printed styles met in real training logs (round 47)."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_traceback_header_glued_to_a_progress_line(tmp_path):
    """Style: a progress print with no newline yet, then stderr's traceback starting on the same line
    (`... | Steps: 0 | Loss: 0.000000Traceback (most recent call last):`): the text before the header is
    a record, the header opens the traceback."""
    run = _read(tmp_path, [
        "Epoch 0 |   Training | Elapsed Time: 0:00:00 | Steps: 0 | Loss: 0.000000Traceback (most recent call last):",
        '  File "/srv/train.py", line 88, in <module>',
        "    main()",
        "RuntimeError: CUDA error: out of memory",
    ])
    assert _vals(run, "loss") == [0.0]
    tb = [e for e in run.events if e.kind == "traceback"]
    assert len(tb) == 1 and tb[0].text.startswith("Traceback") and tb[0].text.endswith("out of memory")


def test_counter_joined_to_its_number_by_a_hyphen(tmp_path):
    """Style: a scheduler's notice that writes the epoch with a hyphen before its number
    (`Epoch-3 lr: 0.00025`): `Epoch-3` is the epoch's counter, the value is the learning rate."""
    run = _read(tmp_path, [
        "Epoch-1 train_loss: 0.90",
        "Epoch-1 lr: 0.00025",
        "Epoch-2 train_loss: 0.71",
        "Epoch-2 lr: 0.000125",
        "Epoch-3 train_loss: 0.64",
        "Epoch-3 lr: 0.0000625",
    ])
    assert _vals(run, "learning_rate") == [0.00025, 0.000125, 0.0000625]
    assert [float(s) for s in run.get("learning_rate").steps] == [1.0, 2.0, 3.0]


def test_finished_pass_of_epoch_is_the_counter(tmp_path):
    """Style: a line that says which pass it finished before the counter (`finished eval of epoch 2:
    eval_loss=0.48`): `finished eval of epoch` is the epoch's counter, not a name."""
    run = _read(tmp_path, [
        "finished eval of epoch 5: eval_loss=0.58",
        "finished eval of epoch 6: eval_loss=0.48",
        "finished eval of epoch 7: eval_loss=0.41",
        "epoch 7 train_loss=0.35",
    ])
    assert _vals(run, "eval/loss") == [0.58, 0.48, 0.41]
    assert [float(s) for s in run.get("eval/loss").steps] == [5.0, 6.0, 7.0]


def test_metric_identifier_closing_a_sentence(tmp_path):
    """Style: a logging call that tells what it finished in a sentence and ends with the metric's own
    identifier (`finished eval of epoch-1 of valid-set <TAB> eval_loss=0.58`): the identifier names the
    value; the sentence before it is no part of the name."""
    run = _read(tmp_path, [
        "2021-05-09 23:43:42 - INFO - train - trainer.py : train [228] - finished eval of epoch-1 of valid-set \t eval_loss=0.58",
        "2021-05-09 23:46:42 - INFO - train - trainer.py : train [228] - finished eval of epoch-2 of valid-set \t eval_loss=0.52",
        "2021-05-09 23:49:42 - INFO - train - trainer.py : train [228] - finished eval of epoch-3 of valid-set \t eval_loss=0.47",
    ])
    assert _vals(run, "eval/loss") == [0.58, 0.52, 0.47]


def test_new_learning_rate_notice(tmp_path):
    """Style: a plateau scheduler's notice of the rate it just set, as a sentence (`new lr is
    0.0000100000.`): the value is the learning rate."""
    run = _read(tmp_path, [
        "epoch 1 loss 0.50",
        "new lr is 0.0000100000.",
        "epoch 2 loss 0.45",
        "new lr is 0.0000050000.",
        "epoch 3 loss 0.44",
        "new lr is 0.0000025000.",
    ])
    assert _vals(run, "learning_rate") == [1e-05, 5e-06, 2.5e-06]


def test_score_averaged_over_folds_is_held_out(tmp_path):
    """Style: a cross-validation loop's closing print (`Average 10 Folds Accuracy: 0.85`): the number
    before `Folds` counts the folds, and a k-fold score is measured on held-out data."""
    run = _read(tmp_path, ["Average 10 Folds Accuracy: 0.85"])
    assert _vals(run, "eval/accuracy") == [0.85]
    assert run.get("accuracy") is None


def test_run_banner_ends_a_results_block(tmp_path):
    """Style: HF Trainer's `***** initial-eval metrics *****` block of `key = value` lines, then the
    `***** Running training *****` banner and its settings (`Gradient Accumulation steps = 4`): the banner
    closes the block; the settings under it join no record."""
    run = _read(tmp_path, [
        "***** initial-eval metrics *****",
        "  eval_loss               =    12.2895",
        "  eval_wer                =        1.0",
        "***** Running training *****",
        "  Num examples = 100000",
        "  Gradient Accumulation steps = 4",
        "  Total optimization steps = 200",
        "{'loss': 11.0863, 'learning_rate': 5e-07, 'epoch': 0.0}",
        "{'loss': 10.2139, 'learning_rate': 1e-06, 'epoch': 0.01}",
        "{'loss': 9.5012, 'learning_rate': 1.5e-06, 'epoch': 0.02}",
    ])
    assert _vals(run, "eval/loss") == [12.2895]
    assert not any("optimization" in name.lower() or "accumulation" in name.lower() for name in run.series)
