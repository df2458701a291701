"""Reader rules for a logger's caller name before a bracketed counter, a run's epoch count among its
settings, per-item forecast lines and a memory figure under a loss's word."""

from __future__ import annotations

from written_log import read_written as _read
from written_log import series_values as _vals


def test_bracketed_counter_after_the_callers_name(tmp_path):
    """Style: a logging line whose message names the method that logs, then the loop's counter in brackets
    (`... - INFO - Encoder.fit() : [Iter 300 / 900] loss: 0.81`), here behind a rank tag `0 | `: the bracket
    is the counter, not a list to pass over, so each line lands at its own iteration."""
    lines = [f"0 | 2024-02-01 10:00:0{k},000 - INFO - Encoder.fit() : [Iter {it} / 900] loss: {loss}"
             for k, (it, loss) in enumerate(((300, 0.81), (600, 0.74), (900, 0.70)))]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.81, 0.74, 0.70]
    assert [float(s) for s in run.get("loss").steps] == [300.0, 600.0, 900.0]


def test_epoch_count_among_the_settings_is_no_counter(tmp_path):
    """Style: a fine-tuning script's settings listed one a line behind emoji (`📚 Epochs: 2`, then
    `🎓 Learning rate: 0.0002`) before any metric: the plural is how many epochs the run is set to, so the
    line after it is not dated to epoch 2."""
    head = "2024-03-01 09:00:00,000 - INFO - [__main__] - "
    lines = [head + "📚 Epochs: 2", head + "🎓 Learning rate: 0.0002"]
    lines += [head + f"Epoch {ep} done, loss: {loss}" for ep, loss in ((1, 1.9), (2, 1.5))]
    run = _read(tmp_path, lines)
    assert run.meta["skipped"].get("the number of epochs the run is set to (a setting, not a counter)") == 1
    assert _vals(run, "loss") == [1.9, 1.5]
    lr = run.get("learning_rate")
    assert lr is None or all(float(s) != 2.0 for s in lr.steps)


def test_item_noun_and_number_open_a_per_item_line(tmp_path):
    """Style: a traffic-forecasting test that scores each step ahead on its own line (`Horizon 01, RMSE: 1.71,
    MAE: 0.90, MAPE: 1.75%`): `Horizon 01` says which item the line scores, so no `Horizon` series is read,
    while a counter in the same place (`Epoch 1, loss: 0.5`) still counts."""
    lines = [f"2025-01-01 10:00: Horizon {h:02d}, RMSE: {1.5 + h / 10}, MAE: {0.8 + h / 20}, MAPE: {1.5 + h / 5}%"
             for h in (1, 2, 3, 4)]
    run = _read(tmp_path, lines)
    assert not any("horizon" in name.lower() for name in run.series)
    assert any(name.endswith("rmse") for name in run.series)
    run = _read(tmp_path, ["Epoch 1, loss: 0.5", "Epoch 2, loss: 0.4"])
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0]


def test_loss_word_with_a_size_unit_is_memory(tmp_path):
    """Style: a spatio-temporal trainer's epoch line `Train Epoch 3: averaged Loss: 1.42, GPU cost: 3.43 GB,
    train time: 44.9 s`: `cost` is a loss's word, but a value in GB is memory held, not a second loss."""
    lines = [f"2025-11-28 18:51: ********Train Epoch {ep}: averaged Loss: {loss}, GPU cost: 3.43 GB, train time: 44.9 s"
             for ep, loss in ((1, 1.50), (2, 1.42), (3, 1.40))]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.50, 1.42, 1.40]
    assert _vals(run, "memory") == [3.43, 3.43, 3.43]
