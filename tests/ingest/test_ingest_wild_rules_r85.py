"""Reader rules for print styles met in real training logs (round 85), each tested on a log written here."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def _rounds(rows):
    """CatBoost's verbose round lines, tab-separated: (round, learn, test, best, best round)."""
    return [f"{i}:\tlearn: {a:.7f}\ttest: {t:.7f}\tbest: {b:.7f} ({k})\ttotal: {i * 10 + 5}ms\tremaining: 1s"
            for i, a, t, b, k in rows]


def test_boosting_rounds_whose_best_falls_are_the_loss(tmp_path):
    """Style: CatBoost's `verbose=50` output for a regressor (RMSE): the best eval value so far only falls,
    so the unnamed metric is minimised: learn is the training loss, test the held-out loss."""
    run = _read(tmp_path, ["Learning rate set to 0.05"] + _rounds([
        (0, 40.5, 41.2, 41.2, 0), (50, 12.25, 14.5, 14.5, 50), (100, 8.125, 11.75, 11.5, 93),
        (150, 6.5, 11.875, 11.5, 93)]) + ["", "bestTest = 11.5", "bestIteration = 93"])
    assert _vals(run, "loss") == [40.5, 12.25, 8.125, 6.5]
    assert _vals(run, "eval/loss") == [41.2, 14.5, 11.75, 11.875]
    assert "learn" not in run.series and "test" not in run.series


def test_boosting_rounds_whose_best_rises_keep_their_names(tmp_path):
    """Style: the same lines with `eval_metric='AUC'`: the best stays above the round's own test value
    (reached early and never beaten), so the metric is a score, not a loss."""
    run = _read(tmp_path, _rounds([(10, 0.925, 0.8125, 0.84375, 2), (11, 0.93, 0.8150, 0.84375, 2),
                                   (12, 0.935, 0.8175, 0.84375, 2)]))
    assert "loss" not in run.series and "eval/loss" not in run.series
    assert _vals(run, "learn") == [0.925, 0.93, 0.935]

