"""Round r92: colour codes that lost their ESC byte, one result framed by rules, a block's lines counted once."""
from written_log import read_written


def test_colour_codes_without_escape_byte_are_no_values(tmp_path):
    # a paste that dropped ESC keeps `[32m` ... `[0m` around a logger's prefix: no metric named by the source file
    run = read_written(tmp_path, [
        "[32m[0311 08:15:02 @monitor.py:470][0m lr: 0.01",
        "[32m[0311 08:15:02 @monitor.py:470][0m cost: 2.75",
        "[32m[0311 08:15:02 @base.py:290][0m Epoch 4 (global_step 800) finished, time:3 minutes 2 seconds.",
        "[32m[0311 08:21:40 @monitor.py:470][0m lr: 0.01",
        "[32m[0311 08:21:40 @monitor.py:470][0m cost: 2.41",
        "[32m[0311 08:21:40 @base.py:290][0m Epoch 5 (global_step 1000) finished, time:3 minutes 1 second.",
    ])
    assert not any("@" in k or k in ("m", "32m") for k in run.series)
    assert "learning_rate" in run.series


def test_bracket_m_without_reset_is_left_alone(tmp_path):
    # no `[0m` reset on the line: `[5m]` stays text (a duration in brackets), the values read as before
    run = read_written(tmp_path, [
        "epoch 1 [5m] loss: 0.90",
        "epoch 2 [5m] loss: 0.80",
        "epoch 3 [5m] loss: 0.70",
    ])
    assert list(run.series["loss"].values) == [0.90, 0.80, 0.70]


def test_result_framed_by_rules_is_a_pair(tmp_path):
    # `#### F1 score: 0.57 ####` after the training lines: the score set off by rules, not a banner's title
    run = read_written(tmp_path, [
        "epoch 1 loss: 0.90",
        "epoch 2 loss: 0.80",
        "epoch 3 loss: 0.70",
        "######## F1 score: 0.57 ########",
    ])
    assert list(run.series["loss"].values) == [0.90, 0.80, 0.70]
    assert any("f1" in k.lower() for k in run.series)


def test_counter_drawn_as_banner_still_heads_its_block(tmp_path):
    # `---- batch: 010 ----` is a counter's banner (the values under it are that batch's), never a value
    run = read_written(tmp_path, [
        " ---- batch: 010 ----",
        "mean loss: 0.90",
        " ---- batch: 020 ----",
        "mean loss: 0.80",
        " ---- batch: 030 ----",
        "mean loss: 0.70",
    ])
    assert list(run.series["loss"].values) == [0.90, 0.80, 0.70]
    assert not any("batch" in k for k in run.series)


def test_two_blocks_under_one_heading_count_their_lines_once(tmp_path):
    # a step's heading, its training block, then an evaluation block with no counter of its own: both
    # records start at the heading's line; the printed lines they were read from are 5, not 8
    run = read_written(tmp_path, [
        "   --> STEP: 10/200 -- GLOBAL_STEP: 5010",
        "     | > gen_loss: 3.20  (3.41)",
        "     | > disc_loss: 1.10  (1.05)",
        "     | > step_time: 0.31  (0.30)",
        " --> EVAL PERFORMANCE",
        "     | > avg_gen_loss: 3.05 (+0.01)",
        "     | > avg_disc_loss: 1.02 (-0.02)",
    ])
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 5


def test_automl_learner_named_inside_its_error_is_one_series(tmp_path):
    # FLAML: `estimator <learner>'s best error=` for the learner just tried, `best estimator <learner>'s best
    # error=` for the search's best: one error series across learners, the learner's name kept out of it
    run = read_written(tmp_path, [
        "[flaml.automl.logger: 03-02 11:00:01] {2200} INFO - iteration 5, current learner rf",
        "[flaml.automl.logger: 03-02 11:00:02] {2400} INFO -  at 3.1s,\testimator rf's best error=0.2100,"
        "\tbest estimator lgbm's best error=0.1800",
        "[flaml.automl.logger: 03-02 11:00:02] {2200} INFO - iteration 6, current learner xgboost",
        "[flaml.automl.logger: 03-02 11:00:03] {2400} INFO -  at 3.6s,\testimator xgboost's best error=0.1900,"
        "\tbest estimator lgbm's best error=0.1800",
        "[flaml.automl.logger: 03-02 11:00:03] {2200} INFO - iteration 7, current learner lgbm",
        "[flaml.automl.logger: 03-02 11:00:04] {2400} INFO -  at 4.0s,\testimator lgbm's best error=0.1700,"
        "\tbest estimator lgbm's best error=0.1700",
    ])
    errors = [k for k in run.series if k.endswith("error") and "best" not in k]
    assert len(errors) == 1, sorted(run.series)
    assert list(run.series[errors[0]].values) == [0.21, 0.19, 0.17]
    assert not any(name in k for k in run.series for name in ("rf", "xgboost", "lgbm"))


def test_older_automl_line_best_learner_error(tmp_path):
    # the older spelling `best <learner>'s error=` reads the same way
    run = read_written(tmp_path, [
        "[flaml.automl: 07-01 09:00:01] {1178} INFO -  at 1.2s,\tbest rf's error=0.3000,\tbest rf's error=0.3000",
        "[flaml.automl: 07-01 09:00:01] {1178} INFO -  at 1.5s,\tbest lgbm's error=0.2500,\tbest lgbm's error=0.2500",
        "[flaml.automl: 07-01 09:00:02] {1178} INFO -  at 1.9s,\tbest extra_tree's error=0.2800,"
        "\tbest lgbm's error=0.2500",
    ])
    errors = [k for k in run.series if k.endswith("error") and "best" not in k]
    assert len(errors) == 1, sorted(run.series)
    assert list(run.series[errors[0]].values) == [0.30, 0.25, 0.28]


def test_possessive_metric_name_elsewhere_is_unchanged(tmp_path):
    # `model's error=` with no learner search around it: one possessive, no second error, read as before
    run = read_written(tmp_path, [
        "epoch 1 model's loss: 0.50",
        "epoch 2 model's loss: 0.40",
        "epoch 3 model's loss: 0.30",
    ])
    assert list(run.series["loss"].values) == [0.50, 0.40, 0.30]
