"""Reader rules drawn from logs that print their results without a step counter."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_counterless_block_of_scores_is_an_evaluation(tmp_path):
    """Style: a script's closing report, one score per line with no step anywhere (`Accuracy: 0.91`,
    `Precision: 0.82`, `Recall: 0.73`, `F1: 0.75`): the scores an evaluation measured, not settings."""
    run = _read(tmp_path, ["Loading checkpoint from model.pt", "Accuracy: 0.91", "Precision: 0.82",
                           "Recall: 0.73", "F1: 0.75"])
    assert _vals(run, "eval/accuracy") == [0.91]
    assert _vals(run, "eval/precision") == [0.82]
    assert _vals(run, "eval/recall") == [0.73]
    assert _vals(run, "eval/f1") == [0.75]


def test_counterless_settings_block_stays_settings(tmp_path):
    """Style: a config echo with no step (`lr: 0.001`, `batch_size: 32`, `epochs: 10`): knobs and sizes
    are no scores, so nothing is read as a metric."""
    run = _read(tmp_path, ["lr: 0.001", "batch_size: 32", "epochs: 10", "dropout: 0.1"])
    assert not run.series


def test_names_listed_with_commas_head_the_numbers_below(tmp_path):
    """Style: a split's names on one line, their values on the next (`DEV: loss, acc, precision, recall,
    f1` then `0.0077 0.9992 0.7161 0.5839 0.6433`), once an epoch: the row belongs to that split."""
    lines = []
    for e in range(1, 4):
        lines += [f"EPOCH:  {e}", "DEV: loss, acc, precision, recall, f1",
                  f"0.00{9 - e} 0.999{e} 0.7{e} 0.5{e} 0.6{e}", "." * 40]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [0.008, 0.007, 0.006]
    assert _vals(run, "eval/f1") == [0.61, 0.62, 0.63]
    assert list(run.get("eval/recall").steps) == [1, 2, 3]


def test_learning_rate_set_to_with_a_colon(tmp_path):
    """Style: a schedule's notice with a colon after `to` (`learning rate is set to:  0.01`) between epoch
    lines: the learning rate at that point, as `learning rate is set to 0.01` already is."""
    lines = []
    for e, lr in zip(range(1, 4), ("0.01", "0.01", "0.005")):
        lines += [f"Epoch {e}: loss {3.0 - e / 2}", f"learning rate is set to:  {lr}"]
    run = _read(tmp_path, lines)
    assert _vals(run, "learning_rate") == [0.01, 0.01, 0.005]
    assert _vals(run, "loss") == [2.5, 2.0, 1.5]


def test_a_metric_name_above_its_value(tmp_path):
    """Style: a loss's name alone before a colon, its value alone on the next line (`current training
    loss is :` then `9.25e-05`), once an epoch: the line of the number holds that loss."""
    lines = []
    for e in range(1, 4):
        lines += [f"EPOCH:  {e}", "current training loss is :", f"{0.6 - e / 10:.2f}", "-*-" * 10]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.5, 0.4, 0.3]
    assert list(run.get("loss").steps) == [1, 2, 3]
