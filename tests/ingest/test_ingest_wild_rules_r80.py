"""Reader rules for progress bars whose description carries the step's values under names triage does
not know (a loop that calls tqdm's set_description with its own objective each batch)."""

from __future__ import annotations

import math

from written_log import read_written as _read
from written_log import series_values as _vals


def test_bar_description_of_colon_named_unknown_values(tmp_path):
    """Style: a tqdm bar whose description is `NAME: value, NAME (val): value` for an objective triage has no
    alias for (an ELBO), cut after the bar's count: `ELBO: -95.2, ELBO (val): -97.0:  17%|###   | 3400/20000`.
    Each redraw is a record of the bar's step; the names stay as the run wrote them."""
    lines = [f"ELBO: {v}, ELBO (val): {w}:  {pct}%|{'#' * (pct // 5):<20}| {n}/20000 "
             for v, w, pct, n in (("-120.5", "-121.0", 10, 2000), ("-95.2", "-97.0", 17, 3400), ("nan", "nan", 25, 5000))]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    elbo = [float(v) for v in run.series["ELBO"].values]
    assert elbo[:2] == [-120.5, -95.2] and math.isnan(elbo[2])


def test_bar_before_table_row_numbers_stay_unread(tmp_path):
    """Style: bare numbers with no names before a running bar (`0.52 0.31 12:  40%|####  | 4/10`), what a
    table row cut from its header looks like: still no record, since nothing names the numbers."""
    lines = ["0.52 0.31 12:  40%|####      | 4/10 ", "0.50 0.30 13:  50%|#####     | 5/10 "]
    run = _read(tmp_path, lines)
    assert not run.series.get("loss")


def test_keras_epochs_commented_out_with_their_headers(tmp_path):
    """Style: Keras fit() output pasted under the code with some epochs turned into comments, the header
    too (`# Epoch 2/5` over `# 100/100 [====] - 5s 50ms/step - loss: 0.81 - ...`): each commented epoch
    keeps its own number instead of folding into the epoch before it."""
    bar = "100/100 [==============================] - 5s 50ms/step"
    lines = []
    for ep, loss, marker in ((1, 1.08, ""), (2, 0.81, "# "), (3, 0.65, "# "), (4, 0.52, "")):
        lines.append(("Epoch" if ep == 1 or not marker else "# Epoch") + f" {ep}/5")
        lines.append(f"{marker}{bar} - loss: {loss:.4f} - accuracy: 0.7000 - val_loss: 1.0000 - val_accuracy: 0.6500")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.08, 0.81, 0.65, 0.52]
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0, 4.0]


def test_held_out_line_before_training_names_the_training_quantities(tmp_path):
    """Style: a TensorFlow logging run whose first line is the validation of the quantities each step line
    prints, every name under a `valid_` prefix (`INFO:tensorflow:valid_cost: -0.07, valid_recon: -0.07,
    valid_kl: 0.01, valid_time_taken: 8.3`), then `step: 100, lr: 0.0001, cost: 0.02, recon: 0.02, kl: 0.01,
    ...` lines: a measurement on held-out data, not a setting printed before training."""
    lines = ["INFO:tensorflow:valid_cost: -0.0727, valid_recon: -0.0750, valid_kl: 0.0023, valid_time_taken: 8.3365"]
    for i, cost in enumerate((0.0214, 0.0541, 0.1154, 0.0923)):
        lines.append(f"INFO:tensorflow:step: {100 + 20 * i}, lr: 0.000109, klw: 0.3450, cost: {cost}, "
                     f"recon: {cost}, kl: 0.0000, train_time_taken: 28.0388")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5
    assert _vals(run, "eval/loss") == [-0.0727]
    assert _vals(run, "loss") == [0.0214, 0.0541, 0.1154, 0.0923]


def test_settings_line_before_training_still_skipped(tmp_path):
    """Style: knobs echoed once before the step lines (`batch_size: 64, num_steps: 20000`): no evaluation
    prefix on the names, so the line stays a setting."""
    lines = ["batch_size: 64, num_steps: 20000"]
    for i, cost in enumerate((0.5, 0.4, 0.3)):
        lines.append(f"step: {10 * (i + 1)}, cost: {cost}, kl: 0.1")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3


def test_sentence_in_cyrillic_quoting_nan_is_no_reading(tmp_path):
    """Style: a Markdown note in Russian under a pasted tqdm line, `Loss становится NaN на первом (или ранних)
    батчах обучения.` ("the loss turns NaN on the first batches"): the words after the number are the rest
    of a sentence, so the line is prose, while the bar's `loss=nan` stays the one reading."""
    lines = ["## Проблема", "```",
             "Train Epoch 1:   0%|          | 1/859 [00:07<1:46:25,  7.44s/batch, loss=nan]",
             "```", "", "Loss становится NaN на первом (или ранних) батчах обучения."]
    run = _read(tmp_path, lines, name="notes.md")
    assert run.meta["rows"] == 1
    assert sorted(run.series) == ["loss"]


def test_russian_metric_line_still_read(tmp_path):
    """Style: a training loop that prints its counter in Russian and the metrics under English names,
    `Эпоха 3 из 10 — loss: 0.41, accuracy: 0.87` (epoch 3 of 10): no sentence after the values, still records."""
    lines = [f"Эпоха {e} из 10 — loss: {l}, accuracy: {a}" for e, l, a in ((1, 0.62, 0.71), (2, 0.51, 0.80), (3, 0.41, 0.87))]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.62, 0.51, 0.41]
