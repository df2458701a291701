"""Line-shape rules the wild corpus asked for (round 49), each tried on a short log written for the
test in the style of the prints that needed it."""

from __future__ import annotations

import math

from written_log import read_written as _read
from written_log import series_values as _vals


def test_a_nonfinite_score_printed_before_its_name_is_read(tmp_path):
    """AutoGluon's older fit log (`<TAB>nan<TAB> = Validation root_mean_squared_error score`): a model that
    diverged prints `nan` where the score goes; it is that model's score like any number."""
    lines = []
    for model, score in (("LightGBM", "0.4210"), ("NeuralNet", "nan"), ("CatBoost", "0.3987")):
        lines += [f"Fitting model: {model} ... Training model for up to 900.0s of the 900.0s of remaining time.",
                  f"\t{score}\t = Validation root_mean_squared_error score",
                  "\t12.5s\t = Training runtime",
                  "\t0.3s\t = Validation runtime"]
    run = _read(tmp_path, lines)
    vals = _vals(run, "eval/rmse")
    assert len(vals) == 3 and vals[0] == 0.421 and math.isnan(vals[1]) and vals[2] == 0.3987


def test_a_logger_name_and_month_day_stamp_in_brackets_is_a_prefix(tmp_path):
    """FLAML's logger format (`[flaml.automl.logger: 01-23 09:39:12] {2442} INFO - ...`): the logger's
    name, a month-day stamp and the source line number are no metric."""
    lines = []
    for i, err in enumerate((0.0611, 0.0574, 0.0574, 0.0502)):
        lines += [f"[flaml.automl.logger: 03-14 10:02:{10 + i:02d}] {{2258}} INFO - iteration {i}, current learner rf",
                  f"[flaml.automl.logger: 03-14 10:02:{10 + i:02d}] {{2442}} INFO -  at {0.1 * i:.1f}s,\t"
                  f"estimator rf's best error={err:.4f},\tbest estimator rf's best error={err:.4f}"]
    run = _read(tmp_path, lines)
    assert not any("flaml" in name or "logger" in name for name in run.series)
    assert [name for name in run.series if "error" in name]


def test_a_stamp_with_logger_fields_in_one_bracket_is_a_prefix(tmp_path):
    """A logger that writes the stamp, its name and the host in one bracket after the level
    (`[INFO] [2019-02-11 08:15:40,512:Builder(1):node7] Training performance: 0.41`): the whole
    bracket is the prefix, so the message names the metric alone."""
    lines = [f"[INFO] [2019-02-11 08:15:{40 + i},512:Builder(1):node7] dev_auc: {0.5 + i / 10:.2f}"
             for i in range(1, 5)]
    run = _read(tmp_path, lines)
    assert sorted(run.series) == ["eval/auc"]
    assert _vals(run, "eval/auc") == [0.6, 0.7, 0.8, 0.9]


def test_two_prints_of_one_epoch_glued_on_one_line_are_split(tmp_path):
    """Time-Series-Library's epoch prints pasted with a newline lost (`Epoch: 7 cost time: 3.1 Epoch: 7,
    Steps: 22 | Train Loss: ...`): where the same counter at the same value starts again, a second
    message begins; the number of batches (`Steps: 22`) is no step."""
    lines = []
    for e in range(1, 5):
        head = f"Epoch: {e} cost time: {3.0 + e / 10:.2f} " if e > 1 else ""
        lines.append(f"{head}Epoch: {e}, Steps: 22 | Train Loss: {2.0 - e / 10:.4f} Vali Loss: {2.5 - e / 10:.4f}"
                     f" Test Loss: 2.3000 ")
        lines.append(f"Updating learning rate to {1e-3 / 2 ** e}")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.9, 1.8, 1.7, 1.6]
    assert list(run.get("loss").steps) == [1, 2, 3, 4]
    assert _vals(run, "eval/loss") == [2.4, 2.3, 2.2, 2.1]


def test_a_bare_dict_of_command_line_arguments_is_the_runs_settings(tmp_path):
    """`print(vars(args))` with no name before it (`{'batch_size': 2, 'data_path': './data', 'epochs': 300,
    'lr': 0.0001, ...}`): argument keys with a path or a flag among the values, no loss and no accuracy: the
    run's settings, not a record."""
    lines = ["{'alpha': 1.0, 'batch_size': 4, 'data_path': './data/parts', 'epochs': 200, 'grayscale': False, "
             "'img_size': 128, 'lr': 0.0002, 'seed': 17, 'val_ratio': 0.1, 'weight_decay': 1e-05}"]
    lines += [f"step {s} Step Loss: {1.5 - s / 10:.3f}" for s in range(1, 6)]
    run = _read(tmp_path, lines)
    assert sorted(run.series) == ["loss"]
    assert len(_vals(run, "loss")) == 5


def test_a_checkpoint_notice_quoting_its_score_is_no_new_row(tmp_path):
    """`Saving model at Epoch 3 with Validation Accuracy: 38.96%` before the epoch's summary line: the
    score the checkpoint was kept for, the one the summary prints too."""
    lines = []
    for e in range(1, 5):
        acc = 30.0 + e
        lines.append(f"Saving model at Epoch {e} with Validation Accuracy: {acc:.2f}%")
        lines.append(f"Epoch {e}/20 - Train Loss: {1.2 - e / 50:.4f}, Train Accuracy: {25 + e:.2f}%, "
                     f"Validation Loss: {1.1 - e / 50:.4f}, Validation Accuracy: {acc:.2f}%")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "eval/accuracy") == [31.0, 32.0, 33.0, 34.0]


def test_averaged_qualifies_a_loss_without_changing_it(tmp_path):
    """`Train Epoch 58: averaged Loss: 1.42, GPU cost: 3.43 GB`: `averaged`, like `average`, only says how
    the loss was taken; the loss is the run's loss, not the memory figure beside it."""
    lines = [f"********Train Epoch {e}: averaged Loss: {1.5 - e / 100:.4f}, GPU cost: 3.43 GB, train time: 44.9 s"
             for e in range(1, 6)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.49, 1.48, 1.47, 1.46, 1.45]


def test_a_fitted_estimators_repr_holds_settings_not_metrics(tmp_path):
    """`retrained model: XGBClassifier(learning_rate=0.3, max_depth=6,` wrapped over several lines after
    a search's scores: the repr lists the hyperparameters the estimator was built with."""
    lines = [f"trial {t}: val error={0.3 - t / 100:.4f}" for t in range(1, 6)]
    lines += ["retrained model: XGBClassifier(colsample_bytree=0.71, learning_rate=0.3,",
              "              max_depth=6, n_estimators=40, n_jobs=-1,",
              "              reg_lambda=1.5, verbosity=0)"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5
    assert not any("learning_rate" in name or "max_depth" in name for name in run.series)


def test_a_print_glued_many_times_on_one_line_splits_a_few_and_keeps_the_rest(tmp_path):
    """Thousands of copies of one print on one line (no newlines at all) split off a bounded number of
    records and leave the rest as one segment: no recursion that grows with the line."""
    run = _read(tmp_path, ["Epoch: 3 loss: 2.5 " * 5000])
    assert len(run.get("loss").values) >= 1
