"""Round r93: one logical row printed over several lines at one step."""
from written_log import read_text as _read


def test_epoch_heading_then_loss_line_is_one_row(tmp_path):
    # `epoch: N time: T` and then `train_loss: X` for the same epoch: one row per epoch, the second line said apart
    lines = []
    for ep, loss in enumerate([0.61, 0.52, 0.47, 0.44], start=1):
        lines += ["-----", f"epoch: {ep} time: {ep * 120}", f"train_loss: {loss}"]
    run = _read(tmp_path, "\n".join(lines) + "\n")
    assert list(run.series["loss"].values) == [0.61, 0.52, 0.47, 0.44]
    assert run.meta["rows"] == 4
    assert run.meta["joined_lines"] == 4


def test_train_then_eval_line_at_one_step_is_one_row(tmp_path):
    # a training line and an evaluation line printed for the same iteration
    lines = []
    for it, (tr, ev) in zip((100, 200, 300), ((2.1, 2.3), (1.8, 2.0), (1.6, 1.9))):
        lines += [f"iter {it} train loss {tr}", f"iter {it} val loss {ev}"]
    run = _read(tmp_path, "\n".join(lines) + "\n")
    assert list(run.series["loss"].values) == [2.1, 1.8, 1.6]
    assert list(run.series["eval/loss"].values) == [2.3, 2.0, 1.9]
    assert run.meta["rows"] == 3
    assert run.meta["rows"] + run.meta["joined_lines"] == 6


def test_a_metric_printed_twice_at_one_step_starts_a_new_row(tmp_path):
    # the same name again at the same step is not the rest of the row (a repeat, or a second run's line)
    run = _read(tmp_path, "\n".join([
        "step 10 loss 3.0",
        "step 10 loss 2.9",
        "step 20 loss 2.5",
    ]) + "\n")
    assert run.meta["rows"] == 3
    assert not run.meta.get("joined_lines")


def test_lines_at_different_steps_stay_apart(tmp_path):
    run = _read(tmp_path, "\n".join(f"step {s} loss {v}" for s, v in ((1, 3.0), (2, 2.5), (3, 2.2))) + "\n")
    assert run.meta["rows"] == 3
    assert not run.meta.get("joined_lines")
