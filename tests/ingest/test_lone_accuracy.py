"""A log whose only accuracy goes by an output's name (Keras names each output's metrics after it) reads it as
the accuracy, so the accuracy checks run on it."""

from __future__ import annotations

from written_log import read_written as _read


def test_keras_output_named_accuracy_is_the_accuracy(tmp_path):
    run = _read(tmp_path, [
        "epoch,caps_out_accuracy,caps_out_loss,recon_loss,loss,val_caps_out_accuracy,val_caps_out_loss,val_loss",
        "0,0.412,1.21,0.051,1.26,0.455,1.12,1.17",
        "1,0.538,0.97,0.044,1.01,0.561,0.93,0.97",
        "2,0.611,0.84,0.040,0.88,0.602,0.86,0.90",
    ], name="training.csv")
    assert list(run.get("accuracy").values) == [0.412, 0.538, 0.611]
    assert list(run.get("eval/accuracy").values) == [0.455, 0.561, 0.602]
    assert any("only accuracy" in w for w in run.meta["warnings"])


def test_two_output_accuracies_stay_under_their_names(tmp_path):
    run = _read(tmp_path, [
        "epoch,age_accuracy,gender_accuracy,loss",
        "0,0.21,0.71,2.3",
        "1,0.28,0.80,2.0",
        "2,0.33,0.84,1.8",
    ], name="training.csv")
    assert run.get("accuracy") is None and run.get("age_accuracy") is not None


def test_a_top5_accuracy_is_no_plain_accuracy(tmp_path):
    run = _read(tmp_path, ["epoch,top5_acc,loss", "0,0.41,2.3", "1,0.55,2.0", "2,0.62,1.8"], name="training.csv")
    assert run.get("accuracy") is None


def test_a_top_1_among_top_k_cutoffs_is_a_ranking(tmp_path):
    run = _read(tmp_path, [
        "epoch,factorized_top_k/top_1_categorical_accuracy,factorized_top_k/top_5_categorical_accuracy,loss",
        "0,0.0004,0.011,6998.1", "1,0.0009,0.021,6751.3", "2,0.0012,0.030,6602.8",
    ], name="training.csv")
    assert run.get("accuracy") is None
