"""Keras numbers a stateful metric created again in one session (`auc_2`, `val_precision_1`): the number is not
part of the metric's name."""

from __future__ import annotations

from written_log import read_written as _read


def test_numbered_keras_metrics_read_under_their_names(tmp_path):
    run = _read(tmp_path, [
        "Epoch 1/2",
        "88/88 - 2s - 20ms/step - auc_2: 0.9853 - loss: 0.1468 - precision_2: 0.9443 - recall_2: 0.9534 - "
        "val_auc_2: 0.9986 - val_loss: 0.0338 - val_precision_2: 0.9859 - val_recall_2: 0.9900",
        "Epoch 2/2",
        "88/88 - 1s - 9ms/step - auc_2: 0.9991 - loss: 0.0131 - precision_2: 0.9881 - recall_2: 0.9912 - "
        "val_auc_2: 0.9995 - val_loss: 0.0121 - val_precision_2: 0.9964 - val_recall_2: 0.9971",
    ])
    assert {"auc", "precision", "recall", "eval/auc", "eval/precision", "eval/recall"} <= set(run.series)


def test_a_numbered_head_loss_keeps_its_name(tmp_path):
    run = _read(tmp_path, ["epoch,loss,loss_2,dense_1_loss", "0,1.2,0.4,0.8", "1,1.0,0.3,0.7", "2,0.9,0.25,0.65"],
                name="training.csv")
    assert "loss_2" in run.series
