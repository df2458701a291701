"""Session 24: fits printed one after another on an `[epoch/total]` counter, a split heading over its scores, the
nuScenes per-class table."""
from written_log import read_text as _read


def _fit(total, every, start_loss):
    return [f"[{e}/{total}] Training loss: {start_loss - 0.1 * e:.4f}\t Validation loss: {start_loss - 0.05 * e:.4f}"
            for e in range(every, total + 1, every)]


def test_a_counter_to_another_total_starts_a_new_fit(tmp_path):
    # a linear model for 6 epochs, then an LSTM for 30 printed every 5, then a GRU for 30: the 5 after the
    # 6 counts to 30, another loop; the 5 after [30/30] follows a loop that ran to its end. Each fit goes
    # after the one before, in file order, none is merged into another by epoch.
    # (a score printed after each fit, on no counter of its own, stays inside the loop before it)
    lines = _fit(6, 1, 9.0) + ["smape score:  82.3192"] + ["model: LSTM"] + _fit(30, 5, 8.0) \
        + ["smape score:  73.9910", "model: GRU"] + _fit(30, 5, 7.0) + ["smape score:  52.1804"]
    run = _read(tmp_path, "\n".join(lines) + "\n")
    loss = run.series["loss"]
    want = [9.0 - 0.1 * e for e in range(1, 7)] + [8.0 - 0.1 * e for e in range(5, 31, 5)] \
        + [7.0 - 0.1 * e for e in range(5, 31, 5)]
    assert [round(v, 4) for v in loss.values] == [round(v, 4) for v in want]
    assert all(b > a for a, b in zip(loss.steps, loss.steps[1:]))
    assert list(run.series["smape"].values) == [82.3192, 73.991, 52.1804]


def test_a_resume_on_the_same_total_is_no_new_fit(tmp_path):
    # the counter goes back from 4 to 3 of the same 10 before its end: a resume that logs epoch 3 again
    lines = [f"[{e}/10] Training loss: {1.0 - 0.05 * e:.4f}" for e in (1, 2, 3, 4)] \
        + [f"[{e}/10] Training loss: {0.9 - 0.05 * e:.4f}" for e in (3, 4, 5, 6)]
    run = _read(tmp_path, "\n".join(lines) + "\n")
    loss = run.series["loss"]
    assert list(loss.steps) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]


def test_a_split_heading_that_names_a_metric_heads_the_line_under_it(tmp_path):
    # PyTorch's quickstart prints `Test Error: ` on a line of its own and the scores under it; with no lone
    # value under the heading, the line under it is the test set's (no training accuracy, no second loss)
    lines = []
    for e in (1, 2, 3):
        lines += [f"Epoch {e}", "-" * 31] + [f"loss: {2.3 - 0.05 * e - 0.01 * j:>7f}  [{64 + 6400 * j:>5d}/60000]"
                                            for j in range(5)]
        lines += ["Test Error: ", f" Accuracy: {40 + 5 * e:.1f}%, Avg loss: {2.1 - 0.1 * e:>8f} ", ""]
    run = _read(tmp_path, "\n".join(lines) + "\n")
    assert list(run.series["eval/accuracy"].values) == [45.0, 50.0, 55.0]
    assert [round(v, 4) for v in run.series["eval/loss"].values] == [2.0, 1.9, 1.8]
    assert "accuracy" not in run.series and len(run.series["loss"].values) == 15


def test_a_metric_name_over_its_lone_value_still_reads(tmp_path):
    run = _read(tmp_path, "Validation loss:\n0.2345\nValidation loss:\n0.2211\n")
    assert list(run.series["eval/loss"].values) == [0.2345, 0.2211]


def test_the_nuscenes_per_class_table_is_no_time_series(tmp_path):
    # mmdet3d prints the nuScenes benchmark's breakdown by object class at each evaluation; attribute and velocity
    # errors are NaN by definition for the classes that have none (cones, barriers), which sit last: read as a
    # series, they would look like a metric that went NaN for good
    lines = ["mAP: 0.3120", "NDS: 0.3411", "Per-class results:", "Object Class\tAP\tATE\tASE\tAOE\tAVE\tAAE",
             "car\t0.521\t0.534\t0.160\t0.142\t1.021\t0.230", "pedestrian\t0.344\t0.702\t0.298\t1.203\t0.812\t0.601",
             "traffic_cone\t0.498\t0.520\t0.331\tnan\tnan\tnan", "barrier\t0.502\t0.461\t0.290\t0.145\tnan\tnan"]
    run = _read(tmp_path, "\n".join(lines) + "\n")
    assert not {"AAE", "AVE", "AOE", "ATE"} & set(run.series)
    assert list(run.series["eval/map"].values) == [0.312]
