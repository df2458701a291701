"""Reader rules asked for by real logs (round 59): each test writes a small log in the style that
needed the rule and checks what the reader takes from it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_header_with_validation_columns_over_rows_without_them(tmp_path):
    """A learning-curve table whose commented header names a validation and a training column for
    each error, over rows written with no validation data: the rows hold step, the training
    columns and the rate, so the validation names are passed over."""
    run = _read(tmp_path, [
        "#  step      l2_val      l2_trn      l2_e_val    l2_e_trn         lr",
        "      0      5.00e+00    3.10e-01    1.0e-02",
        "    500      9.10e-01    2.20e-02    5.0e-03",
        "   1000      4.40e-01    1.70e-02    2.5e-03",
    ], name="lcurve.out")
    assert _vals(run, "learning_rate") == [1.0e-02, 5.0e-03, 2.5e-03]
    assert [float(s) for s in run.get("learning_rate").steps] == [0, 500, 1000]
    assert not any("val" in name for name in run.series)


def test_notes_listing_each_runs_settings_read_no_metrics(tmp_path):
    """Hand-written notes with one line per run giving its optimiser settings (`Training 2 --> lr =
    0.01, weight decay = 0.01, ... T_max = 20`) and no step counter: nothing there is measured."""
    run = _read(tmp_path, [
        "[model A]",
        "Training 1 --> lr = 0.001, weight decay = 0.0001, cosine schedule with T_max = 50",
        "Training 2 --> lr = 0.01, weight decay = 0.001, cosine schedule with T_max = 50",
        "Training 3 --> lr = 0.0005, weight decay = 0.0001, warm restarts with T_0 = 10, T_mult = 2 (best)",
        "Training 4 --> lr = 0.0002, weight decay = 0.01, warm restarts with T_0 = 5, T_mult = 2",
    ], name="notes.txt")
    assert not run.series


def test_counterless_learning_rate_lines_still_read(tmp_path):
    """Lines that print only the learning rate, with no counter, stay a series (a schedule's trace),
    unlike notes that list several knobs of each run."""
    run = _read(tmp_path, [
        "lr = 0.001",
        "lr = 0.0008",
        "lr = 0.0006",
        "lr = 0.0004",
    ])
    assert _vals(run, "learning_rate") == [0.001, 0.0008, 0.0006, 0.0004]


def test_one_blank_header_of_compound_error_names(tmp_path):
    """A console table whose header parts its names with single blanks, the step first, one total
    loss and the rest compounds of an error and a split (`Step Total-Loss L2Reg-Loss RMSE-E-Train
    RMSE-E-Test`, two blanks before a few of them), over rows of numbers: a header, not prose."""
    run = _read(tmp_path, [
        "Started training.",
        "",
        "Step    Total-Loss L1Reg-Loss L2Reg-Loss RMSE-E-Train RMSE-F-Train RMSE-E-Test  RMSE-F-Test  ",
        "100     4.21000    0.71000    0.91000    0.30100      3.20000      0.28800      1.10000      ",
        "200     2.05000    0.44000    0.52000    0.11200      1.40000      0.10900      0.70000      ",
        "300     1.33000    0.39000    0.47000    0.06100      0.90000      0.05900      0.50000      ",
    ], name="fit.out")
    assert _vals(run, "loss") == [4.21, 2.05, 1.33]
    assert [float(s) for s in run.get("loss").steps] == [100, 200, 300]


def test_step_line_over_metrics_line_with_samples_seen(tmp_path):
    """TFLearn's fit display: `Training Step: N  | time: Xs` over `| Adam | epoch: 001 | loss: ...
    -- iter: 064/500`. The step is the line above's; `iter: 064/500` counts samples seen this epoch.
    The time on the step line is the same step's."""
    run = _read(tmp_path, [
        "Training Step: 1  | time: 2.1s",
        "| Adam | epoch: 001 | loss: 0.69000 - acc: 0.5000 -- iter: 064/500",
        "Training Step: 2  | time: 2.3s",
        "| Adam | epoch: 001 | loss: 0.65000 - acc: 0.5500 -- iter: 128/500",
        "Training Step: 3  | time: 2.5s",
        "| Adam | epoch: 001 | loss: 0.61000 - acc: 0.6000 | val_loss: 0.70000 - val_acc: 0.4800 -- iter: 192/500",
    ])
    assert _vals(run, "loss") == [0.69, 0.65, 0.61]
    assert [float(s) for s in run.get("loss").steps] == [1, 2, 3]
    assert _vals(run, "eval/loss") == [0.70]
    assert [float(s) for s in run.get("step_time").steps] == [1, 2, 3]


def test_dict_line_with_capitalised_step_key(tmp_path):
    """A trainer that prints each report as a Python dict whose counter is spelled `Step` (mlx-vlm's
    `{'Step': 10, 'Loss': '3.4376', 'Learning Rate': '1.00e-04'}`): `Step` places the record and is
    no metric of its own."""
    run = _read(tmp_path, [
        "{'Step': 10, 'Loss': '3.4376', 'Learning Rate': '1.00e-04', 'Tokens/sec': '302'}",
        "{'Step': 20, 'Loss': '3.1416', 'Learning Rate': '1.00e-04', 'Tokens/sec': '303'}",
        "{'Step': 30, 'Loss': '2.9020', 'Learning Rate': '1.00e-04', 'Tokens/sec': '301'}",
    ])
    assert _vals(run, "loss") == [3.4376, 3.1416, 2.902]
    assert [float(s) for s in run.get("loss").steps] == [10, 20, 30]
    assert "Step" not in run.series
