"""Reader rules from the fortieth round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read
from written_log import series_values as _vals


def test_two_letter_split_prefixes_of_a_fixed_width_table(tmp_path):
    """A field-aware factorisation machine's iteration table whose columns name their split with two
    letters (`iter   tr_logloss   va_logloss       Time`): `tr_` is training, `va_` the held-out set."""
    lines = ["iter   tr_logloss   va_logloss         Time"]
    for i, (tr, va) in enumerate([(0.6120, 0.6301), (0.5011, 0.5532), (0.4507, 0.5248), (0.4203, 0.5190)], 1):
        lines.append(f"{i:4d}      {tr:.5f}      {va:.5f}          0.3s")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.6120, 0.5011, 0.4507, 0.4203]
    assert _vals(run, "eval/loss") == [0.6301, 0.5532, 0.5248, 0.5190]


def test_epoch_table_column_of_the_averaged_training_loss(tmp_path):
    """An epoch summary table, tab-separated, whose training column says it is an average over the
    epoch (`Epoch<TAB>train/loss (avg)<TAB>val/loss`): that column is the training loss."""
    lines = ["Epoch\ttrain/loss (avg)\tval/loss\t"]
    for e, (tr, va) in enumerate([(0.31, 0.35), (0.24, 0.30), (0.20, 0.29), (0.18, 0.29)]):
        lines.append(f"{e}\t{tr}\t{va}\t")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.31, 0.24, 0.20, 0.18]
    assert _vals(run, "eval/loss") == [0.35, 0.30, 0.29, 0.29]


def test_named_value_in_parentheses_after_an_epoch_counter(tmp_path):
    """An epoch banner that gives the learning rate in parentheses after the counter
    (`========   epoch  12 (lr: 0.00970)  ========`) above the epoch's train and test lines: the
    parenthesised pair is a value of its own, not a running average to skip."""
    lines = []
    for e, lr, tr, te in [(1, 0.01, 4.1, 4.2), (2, 0.0097, 3.8, 4.0), (3, 0.0094, 3.5, 3.9)]:
        lines.append(f"========   epoch  {e} (lr: {lr:.5f})  ========")
        lines.append(f"train loss = {tr:.5f} | train err = 91.00% |")
        lines.append(f"test loss = {te:.5f} | test err = 92.00%")
    run = _read(tmp_path, lines)
    assert _vals(run, "learning_rate") == [0.01, 0.0097, 0.0094]
    assert _vals(run, "loss") == [4.1, 3.8, 3.5]
    assert _vals(run, "eval/loss") == [4.2, 4.0, 3.9]


def test_lone_validation_result_with_prefixed_regression_errors(tmp_path):
    """A forecasting trainer's validation result printed once behind a logger's stamp, every value
    named with its split's prefix (`Result <val>: [val_time: 9.8 (s), val_MAE: 3.01, val_RMSE: 6.12,
    val_MAPE: 0.081]`): a measurement, not a setting, and MAPE is a metric of its own."""
    lines = ["2024-01-02 10:00:00,001 - trainer - INFO - Start validation.",
             "2024-01-02 10:00:09,812 - trainer - INFO - Result <val>: "
             "[val_time: 9.81 (s), val_MAE: 3.0112, val_RMSE: 6.1204, val_MAPE: 0.0810]"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/mae") == [3.0112]
    assert _vals(run, "eval/rmse") == [6.1204]
    assert _vals(run, "eval/mape") == [0.081]


def test_lone_training_result_with_split_prefixed_metrics(tmp_path):
    """The same trainer's training result, printed once for the one epoch the log holds, before the
    evaluation lines that repeat (`Result <train>: [train_time: 300.1 (s), lr: 1.00e-04, train_MAE:
    2.9, train_RMSE: 5.8]`): values that carry the split's prefix were measured, never configured."""
    lines = ["2024-01-02 09:55:00,000 - trainer - INFO - Epoch 1 / 50",
             "2024-01-02 10:00:00,100 - trainer - INFO - Result <train>: "
             "[train_time: 300.12 (s), lr: 1.00e-04, train_MAE: 2.9031, train_RMSE: 5.8110, train_MAPE: 0.0770]"]
    for h, (mae, rmse) in enumerate([(2.21, 3.80), (2.47, 4.55), (2.66, 5.10)], 1):
        lines.append(f"2024-01-02 10:01:0{h},000 - trainer - INFO - Evaluate best model on test data for horizon {h}, "
                     f"Test MAE: {mae}, Test RMSE: {rmse}")
    run = _read(tmp_path, lines)
    assert _vals(run, "mae") == [2.9031]
    assert _vals(run, "rmse") == [5.811]
    test_mae = next(n for n in run.series if n.startswith("eval/") and n.endswith("mae"))
    assert _vals(run, test_mae) == [2.21, 2.47, 2.66]


def test_one_off_line_of_knobs_with_a_split_prefix_stays_a_setting(tmp_path):
    """A prose line that lists training knobs with the split's prefix (`train_lr: 0.1,
    train_weight_decay: 0.0005`) names no measurement: it is not read as a record."""
    lines = ["Training settings: train_lr: 0.1, train_weight_decay: 0.0005",
             "starting the run now"]
    run = _read(tmp_path, lines)
    assert int(run.meta.get("rows") or 0) == 0
