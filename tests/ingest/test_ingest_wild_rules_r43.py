"""Reading rules for printed styles met in real training logs (round 43)."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_metric_group_word_joined_by_dots_in_a_csv_header(tmp_path):
    """Style: a CSV header `step,loss.total.train,loss.total.val,metric.accuracy.train,metric.accuracy.val`
    -- `metric.` groups the scores as `metrics/` does in a path, and the split is the last dotted part."""
    run = _read(tmp_path, [
        "step,loss.total.train,loss.total.val,metric.accuracy.train,metric.accuracy.val",
        "100,1.52,1.49,0.31,0.33",
        "200,1.10,1.02,0.52,0.55",
        "300,0.84,0.80,0.63,0.64",
    ], name="history.csv")
    assert _vals(run, "accuracy") == [0.31, 0.52, 0.63]
    assert _vals(run, "eval/accuracy") == [0.33, 0.55, 0.64]
    assert _vals(run, "eval/loss") == [1.49, 1.02, 0.80]


def test_lone_line_of_loss_terms_and_seconds_per_batch(tmp_path):
    """Style: `Gen Loss Total: 41.902, Mel Error: 2.113, s/b: 0.937` quoted alone (a vocoder's
    converged values, no step) -- loss terms beside the batch's time are a measurement, not settings."""
    run = _read(tmp_path, ["Gen Loss Total: 41.902, Mel Error: 2.113, s/b: 0.937"])
    assert run.meta["rows"] == 1
    assert _vals(run, "step_time") == [0.937]
    assert _vals(run, "Mel_Error") == [2.113]


def test_lone_line_of_settings_with_a_time_stays_unread(tmp_path):
    """Style: `batch_size: 16, num_workers: 4, timeout: 30` alone -- knobs and a time are no loss terms."""
    run = _read(tmp_path, ["batch_size: 16, num_workers: 4, timeout: 30", "Traceback (most recent call last):",
                           "RuntimeError: boom"])
    assert run.meta["rows"] == 0


def test_one_off_bar_with_the_training_names_at_a_step_already_read_is_the_evaluation(tmp_path):
    """Style: tqdm bars `Avg : g 1.3729 d 0.0000 ad 0.0000| step 5976: 100%|...| 166/166 [...]` every
    epoch, then one `g 2.5462 d 3.1285 ad 1.0426| step 6640: 100%|...| 2196/2196 [...]` -- the same names
    printed once in a shape of their own at a step the training bars reached: the validation pass."""
    lines = [f"Avg : g {g:.4f} d 0.0000 ad 0.0000| step {s}: 100%|#####| 166/166 [05:01<00:00,  1.81s/it]"
             for g, s in ((1.3729, 5976), (1.3659, 6142), (1.3601, 6308), (1.3537, 6474), (1.3493, 6640))]
    lines.append("g 2.5462 d 3.1285 ad 1.0426| step 6640: 100%|#####| 2196/2196 [01:10<00:00, 31.2it/s]")
    run = _read(tmp_path, lines)
    assert _vals(run, "g")[-1] == 1.3493
    assert _vals(run, "d") == [0.0] * 5
    assert _vals(run, "eval/g") == [2.5462]
    assert _vals(run, "eval/ad") == [1.0426]


def test_one_off_line_with_the_repeated_names_at_a_new_step_is_a_training_reading(tmp_path):
    """Style: CatBoost's `0:	learn: 56.2508041	test: 55.9916902	best: 55.9916902 (0)	total: 151ms	remaining:
    6m 17s` above lines whose times read `12.5s` -- a shape of its own only by the unit; its names are the
    repeated lines' names, so it is the first reading, not a banner."""
    run = _read(tmp_path, [
        "0:\tlearn: 56.2508041\ttest: 55.9916902\tbest: 55.9916902 (0)\ttotal: 151ms\tremaining: 6m 17s",
        "100:\tlearn: 5.4106440\ttest: 5.2920596\tbest: 5.2920596 (100)\ttotal: 12.5s\tremaining: 4m 57s",
        "200:\tlearn: 4.0520781\ttest: 4.4677955\tbest: 4.4677955 (200)\ttotal: 24.9s\tremaining: 4m 44s",
        "300:\tlearn: 3.7810889\ttest: 4.3575763\tbest: 4.3575763 (300)\ttotal: 37.8s\tremaining: 4m 35s",
    ])
    # (its best falls round after round: the unnamed metric is the loss, learn the training side; see r85)
    assert [float(s) for s in run.get("loss").steps] == [0.0, 100.0, 200.0, 300.0]
    assert _vals(run, "loss")[0] == 56.2508041
    assert _vals(run, "eval/loss")[0] == 55.9916902
    assert not any(name.startswith("eval/learn") for name in run.series)


def test_lone_unnamed_list_printed_at_full_precision(tmp_path):
    """Style: `2024-04-04 12:55:31,821<TAB>.<TAB>INFO<TAB>[2.905947208404541, 1.910929560661316, ..., 200,
    0.00029925088995738576]` once -- a logger handed the step's loss terms, the step and the rate with every
    digit a double holds: computed values, read even from a single line."""
    run = _read(tmp_path, ["2024-04-04 12:55:31,821\t.\tINFO\t[2.905947208404541, 1.910929560661316, "
                           "5.491055011749268, 11.861800193786621, 2.7426228523254395, 200, 0.00029925088995738576]"])
    assert run.meta["rows"] == 1
    assert _vals(run, "value_1") == [2.905947208404541]


def test_lone_short_list_stays_unread(tmp_path):
    """Style: `[0.485, 0.456, 0.406]` once (normalisation means typed into a config) -- short numbers a
    person wrote, no measurement."""
    run = _read(tmp_path, ["[0.485, 0.456, 0.406]", "Traceback (most recent call last):", "RuntimeError: boom"])
    assert run.meta["rows"] == 0


def test_average_precision_and_mean_reciprocal_rank_by_their_short_names(tmp_path):
    """Style: `val ap: 0.9764, new node val ap: 0.9797` (link prediction) and `MRR:0.0875` beside `HR@50:0.5005`
    (recommenders) -- `ap` is the average precision and MRR a ranking score on held-out data."""
    run = _read(tmp_path, [
        "INFO - Epoch mean loss: 0.3043",
        "INFO - val auc: 0.9734, new node val auc: 0.9774",
        "INFO - val ap: 0.9764, new node val ap: 0.9797",
        "INFO - Epoch mean loss: 0.2971",
        "INFO - val auc: 0.9740, new node val auc: 0.9762",
        "INFO - val ap: 0.9769, new node val ap: 0.9790",
        "INFO - Epoch mean loss: 0.3077",
        "INFO - val auc: 0.9718, new node val auc: 0.9766",
        "INFO - val ap: 0.9746, new node val ap: 0.9786",
    ])
    assert _vals(run, "eval/average_precision") == [0.9764, 0.9769, 0.9746]
    run = _read(tmp_path, ["Epoch: 0005;", "HR@50:0.5005", "MRR:0.0875", "AUC:0.9075",
                           "Epoch: 0123;", "HR@50:0.4698", "MRR:0.0870", "AUC:0.8941"], name="rank.log")
    assert _vals(run, "eval/mrr") == [0.0875, 0.0870]


def test_python2_tuple_print_reads_as_its_items(tmp_path):
    """Style: `('epoch', 3, 'loss:', 0.41)` -- Python 2 printing `print("epoch", e, "loss:", x)` as a tuple
    of quoted words and numbers; the line says what its items say in a row."""
    run = _read(tmp_path, ["('epoch', 1, 'loss:', 0.52)", "('epoch', 2, 'loss:', 0.47)", "('epoch', 3, 'loss:', 0.41)"])
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0]
    assert _vals(run, "loss") == [0.52, 0.47, 0.41]


def test_evaluation_heading_ends_a_step_block_of_one_value_lines(tmp_path):
    """Style: Coqui TTS's `--> STEP: 49/406 -- GLOBAL_STEP: 50` over `| > loss_disc: 2.60  (2.65)` lines, then
    `> EVALUATION` and `--> EVAL PERFORMANCE` over `| > avg_loss_disc: 2.7281 (+0)` -- the heading closes the
    training record; the lines under it are the evaluation's, at the step the block counted."""
    run = _read(tmp_path, [
        " > TRAINING (2021-01-01 10:00:00)",
        "   --> STEP: 24/406 -- GLOBAL_STEP: 25",
        "     | > loss_gen: 2.91  (2.91)",
        "     | > loss_disc: 2.70  (2.70)",
        "   --> STEP: 49/406 -- GLOBAL_STEP: 50",
        "     | > loss_gen: 2.81  (2.85)",
        "     | > loss_disc: 2.60  (2.65)",
        " > EVALUATION ",
        "  --> EVAL PERFORMANCE",
        "     | > avg_loss_disc: 2.7281 (+0)",
        "     | > avg_loss_gen: 3.0574 (+0)",
    ])
    assert _vals(run, "loss_disc") == [2.70, 2.60]
    assert _vals(run, "eval/avg_loss_disc") == [2.7281]
    assert [float(s) for s in run.get("eval/avg_loss_disc").steps] == [50.0]
    assert "avg_loss_disc" not in run.series
