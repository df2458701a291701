"""Round r113: one-off results named final or measured by an evaluation, loss lines that change from block to block."""
from written_log import read_written


def test_final_loss_printed_once_is_a_result(tmp_path):
    # a search's last words: the loss its final fit reached, printed once with no counter, is no setting
    run = read_written(tmp_path, [
        "Replay buffer holds 18000 samples",
        "Final value loss: 3.8125",
    ])
    assert list(run.series["value_loss"].values) == [3.8125]


def test_final_word_does_not_keep_a_setting(tmp_path):
    # a knob named after the loss stays a setting: `final` does not make a weight a measurement
    run = read_written(tmp_path, [
        "final_loss_weight: 0.5",
        "warmup: 100",
    ])
    assert not run.series


def test_error_of_an_evaluated_learner_is_kept_without_counter(tmp_path):
    # AutoML progress whose iteration counter sits on a line of its own: each learner's error is a measurement
    run = read_written(tmp_path, [
        "[flaml.automl.logger: 02-11 10:02:03] {2258} INFO - iteration 4, current learner rf",
        "[flaml.automl.logger: 02-11 10:02:09] {2442} INFO -  at 61.2s,\testimator rf's best error=0.3125,\t"
        "best estimator rf's best error=0.3125",
        "[flaml.automl.logger: 02-11 10:02:09] {2258} INFO - iteration 5, current learner xgboost",
        "[flaml.automl.logger: 02-11 10:02:20] {2442} INFO -  at 72.8s,\testimator xgboost's best error=0.2750,\t"
        "best estimator xgboost's best error=0.2750",
    ])
    assert list(run.series["eval/error"].values) == [0.3125, 0.2750]


def test_loss_lines_whose_values_change_between_two_reports_are_measured(tmp_path):
    # two report blocks with no step counter on the loss lines: the same names, other values each time
    run = read_written(tmp_path, [
        "==============================",
        "report written at Tue Mar 10 09:00:00 2020",
        "loss of critic is 512.75 w distance is -88.5",
        "lossE for encoder is 21.375",
        "==============================",
        "report written at Tue Mar 10 09:40:00 2020",
        "loss of critic is 2048.25 w distance is -301.0",
        "lossE for encoder is 37.125",
    ])
    vals = sorted(float(v) for s in run.series.values() for v in s.values)
    assert 2048.25 in vals and 512.75 in vals


def test_a_setting_echoed_twice_with_one_value_stays_a_setting(tmp_path):
    # a config printed by two loggers: same loss-named knob, same value both times
    run = read_written(tmp_path, [
        "target loss is 0.05",
        "warmup steps: 10",
        "target loss is 0.05",
        "warmup steps: 10",
    ])
    assert not run.series
