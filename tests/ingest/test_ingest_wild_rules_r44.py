"""Reading rules for printed styles met in real training logs (round 44)."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_keras_learning_rate_scheduler_notice_is_the_learning_rate(tmp_path):
    """Style: Keras' LearningRateScheduler with verbose on, `Epoch 00002: LearningRateScheduler setting
    learning rate to 0.0005.` between the epochs' bars: the callback's name is no part of the metric's,
    the value is the learning rate, and the notice adds no row of its own."""
    run = _read(tmp_path, [
        "Epoch 1/3",
        "",
        "Epoch 00001: LearningRateScheduler setting learning rate to 0.001.",
        "50/50 [==============================] - 4s 80ms/step - loss: 1.9021 - val_loss: 1.7710",
        "Epoch 2/3",
        "",
        "Epoch 00002: LearningRateScheduler setting learning rate to 0.0005.",
        "50/50 [==============================] - 4s 79ms/step - loss: 1.6402 - val_loss: 1.5903",
        "Epoch 3/3",
        "",
        "Epoch 00003: LearningRateScheduler setting learning rate to 0.00025.",
        "50/50 [==============================] - 4s 81ms/step - loss: 1.5117 - val_loss: 1.5012",
    ])
    assert "learning_rate" in run.series
    assert not any("Scheduler" in name for name in run.series)
    assert sorted(_vals(run, "learning_rate")) == [0.00025, 0.0005, 0.001]
    assert _vals(run, "loss") == [1.9021, 1.6402, 1.5117]
    assert run.meta["rows"] == 3


def test_message_glued_after_a_bar_with_no_total(tmp_path):
    """Style: Lightning over an iterable dataset, `Epoch 3: : 800it [09:12,  1.45it/s, loss=0.0512,
    v_num=1]` with a callback's message glued after the bar (`   Metric val_loss improved by ...
    New best score: 0.041`): the bar is still a record, the message is read apart from it."""
    run = _read(tmp_path, [
        "Epoch 3: : 800it [09:12,  1.45it/s, loss=0.0512, v_num=1, val_loss=0.041]"
        "          Metric val_loss improved by 0.004 >= min_delta = 0.0. New best score: 0.041          ",
        "Epoch 4: : 400it [04:40,  1.43it/s, loss=0.0497, v_num=1, val_loss=0.041]",
        "Epoch 4: : 800it [09:15,  1.44it/s, loss=nan, v_num=1, val_loss=nan.0]"
        "          Monitored metric val_loss = nan is not finite. Previous best value was 0.041. "
        "Signaling Trainer to stop.          ",
    ])
    loss = _vals(run, "loss")
    assert loss[:2] == [0.0512, 0.0497] and math.isnan(loss[2])
    assert run.meta["rows"] == 3


def test_results_block_printed_twice_by_two_logging_handlers(tmp_path):
    """Style: TF 2.x running TF 1 code, every message written once by absl (`I0816 18:35:17.464866
    14584 run_classifier.py:926]`) and once by `INFO:tensorflow:`: a `***** Eval results *****`
    block whose every value line comes twice is one record, at its `global_step`."""
    run = _read(tmp_path, [
        "I0816 18:35:17.464866 14584 run_classifier.py:924] ***** Eval results *****",
        "INFO:tensorflow:  eval_accuracy = 0.71",
        "I0816 18:35:17.464866 14584 run_classifier.py:926]   eval_accuracy = 0.71",
        "INFO:tensorflow:  eval_loss = 0.58",
        "I0816 18:35:17.464866 14584 run_classifier.py:926]   eval_loss = 0.58",
        "INFO:tensorflow:  global_step = 345",
        "I0816 18:35:17.465864 14584 run_classifier.py:926]   global_step = 345",
    ])
    assert run.meta["rows"] == 1
    assert _vals(run, "eval/accuracy") == [0.71]
    assert [float(s) for s in run.get("eval/loss").steps] == [345.0]


def test_same_message_under_prefixes_of_one_shape_is_kept(tmp_path):
    """Style: a results block whose lines carry timestamps, the same value printed on two lines in a
    row: prefixes that differ only in their digits are two messages, both read."""
    run = _read(tmp_path, [
        "01/12/2021 16:02:40 - INFO - __main__ -   ***** Eval results *****",
        "01/12/2021 16:02:40 - INFO - __main__ -     eval_loss = 0.5",
        "01/12/2021 16:02:41 - INFO - __main__ -     eval_loss = 0.5",
        "01/12/2021 16:02:41 - INFO - __main__ -     global_step = 10",
    ])
    assert "a message printed again by a second logging handler" not in run.meta["skipped"]


def test_checkpoint_note_written_into_a_bar_redraw(tmp_path):
    """Style: Lightning's ModelCheckpoint (verbose) writing its note into the bar it interrupted,
    `Epoch 0:  50%|###  | 500/1000 [02:00<02:00,  4.1it/s, loss=0.91, v_num=Epoch 0, global step 25:
    'val_accuracy' reached 0.61000 (best 0.61000), saving model to ...`: the score joins the bar's
    record; a note that saved nothing (`was not in top 1`) adds no value."""
    run = _read(tmp_path, [
        "Epoch 0:  50%|#####     | 500/1000 [02:00<02:00,  4.1it/s, loss=0.91, v_num=Epoch 0, global step 25: "
        "'val_accuracy' reached 0.61000 (best 0.61000), saving model to '/tmp/ck/epoch=0-step=25.ckpt' as top 1",
        "Epoch 0: 100%|##########| 1000/1000 [04:00<00:00,  4.1it/s, loss=0.72, v_num=Epoch 0, global step 50: "
        "'val_accuracy' was not in top 1",
        "Epoch 1:  50%|#####     | 500/1000 [02:00<02:00,  4.1it/s, loss=0.64, v_num=Epoch 1, global step 75: "
        "'val_accuracy' reached 0.67500 (best 0.67500), saving model to '/tmp/ck/epoch=1-step=75.ckpt' as top 1",
    ])
    assert _vals(run, "loss") == [0.91, 0.72, 0.64]
    assert _vals(run, "eval/accuracy") == [0.61, 0.675]
    assert run.meta["rows"] == 3


def test_evaluate_bar_after_the_last_epoch_with_the_same_batch_count(tmp_path):
    """Style: Keras 3 `fit()` then `evaluate()` over a set of the same size: the epoch's bar ends
    `32/32 ━━━━ 0s 4ms/step - loss: 0.1010` and the next finished bar `32/32 ━━━━ 0s 2ms/step -
    loss: 0.9672` comes with no `Epoch` header: a second timed bar with other values is the
    evaluation's result, and the epoch keeps its own training loss."""
    bar = "━" * 20
    run = _read(tmp_path, [
        "Epoch 1/2",
        f"32/32 {bar} 1s 4ms/step - loss: 0.2566 - mae: 0.4083",
        "Epoch 2/2",
        f"32/32 {bar} 0s 4ms/step - loss: 0.1010 - mae: 0.3776",
        f"32/32 {bar} 0s 2ms/step - loss: 0.9672 - mae: 0.8608",
    ])
    assert _vals(run, "loss") == [0.2566, 0.101]
    assert _vals(run, "eval/loss") == [0.9672]


def test_keras2_eta_bar_then_epoch_end_bar_is_one_record(tmp_path):
    """Style: Keras 2 with validation, `177/177 [====] - ETA: 0s - loss: 0.51` and then the epoch's
    end `177/177 [====] - 21s 92ms/step - loss: 0.51 - val_loss: 0.21`: one epoch, one record."""
    run = _read(tmp_path, [
        "Epoch 1/2",
        "177/177 [==============================] - ETA: 0s - loss: 0.5103 - auc: 0.9563",
        "177/177 [==============================] - 21s 92ms/step - loss: 0.5103 - auc: 0.9563 - val_loss: 0.2077",
        "Epoch 2/2",
        "177/177 [==============================] - ETA: 0s - loss: 0.1932 - auc: 0.9893",
        "177/177 [==============================] - 15s 84ms/step - loss: 0.1932 - auc: 0.9893 - val_loss: 0.1835",
    ])
    assert _vals(run, "loss") == [0.5103, 0.1932]
    assert _vals(run, "eval/loss") == [0.2077, 0.1835]
    assert run.meta["rows"] == 2
