"""Detectors read a metric under the names logs give it (round j6): a per-class or per-task F1
(`F1_1`, `Partial_Match_F1`), bare precision / recall / IoU, and a test report's bare `wer`."""

from __future__ import annotations

import numpy as np

from triage.detect import run_detectors
from triage.ingest.run import Run, Series
from triage.kb.base import KnowledgeBase

KB = KnowledgeBase.load()


def _run(series: dict) -> Run:
    run = Run("mem", "test")
    for name, values in series.items():
        v = np.asarray(values, dtype=float)
        run.series[name] = Series(name, "eval" if name.startswith("eval/") else "train", np.arange(1, len(v) + 1.0), v)
    return run


def _fires(det: str, series: dict) -> bool:
    return next(iter(run_detectors(_run(series), KB, only={det})), None) is not None


def test_one_class_f1_zero_at_every_evaluation():
    assert _fires("det-f1-zero", {"F1_1": [0.0] * 7})
    assert _fires("det-f1-zero", {"Partial_Match_F1": [0.0] * 10})
    assert not _fires("det-f1-zero", {"F1_1": [0.0, 0.0, 0.1, 0.2, 0.3, 0.3, 0.4]})


def test_precision_recall_iou_zero_at_every_evaluation():
    assert _fires("det-metric-zero", {"precision": [0.0] * 5, "recall": [0.0] * 5})
    assert _fires("det-metric-zero", {"iou": [0.0] * 5})
    assert not _fires("det-metric-zero", {"iou": [0.0, 0.0, 0.2, 0.4, 0.5]})


def test_bare_wer_exactly_one_at_every_report():
    assert _fires("det-eval-wer-empty", {"wer": [1.0] * 8, "loss": [60.1, 67.4, 67.4, 69.1, 71.1, 72.4, 78.3, 78.8]})
    assert not _fires("det-eval-wer-empty", {"wer": [1.0, 0.8, 0.6, 0.5, 0.4, 0.35]})
