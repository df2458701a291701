"""Every detector fires on its `fire` fixture and stays quiet on its `quiet` fixture.

The fixtures (knowledge/detectors/fixtures/<id>/) are read through the real readers, exactly
as `triage scan` reads a user's log.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from triage.detect import detectors, run_detectors
from triage.detect.checks import CHECKS, Ctx
from triage.kb.base import KnowledgeBase

KB = KnowledgeBase.load()
DETECTORS = detectors(KB)


def fixture(node, which: str) -> Path:
    folder = Path(node.path).parent / "fixtures" / node.id
    files = [p for p in folder.glob(f"{which}.*") if ".config." not in p.name]
    assert len(files) == 1, f"expected one {which} fixture in {folder}"
    return files[0]


def read(path: Path):
    from triage.ingest import read_run
    from triage.ingest.sidecar import attach

    run = read_run(str(path))
    attach(run, path)
    return run


@pytest.mark.parametrize("node", DETECTORS, ids=lambda n: n.id)
def test_fires_on_fire_fixture(node):
    finding = next(iter(run_detectors(read(fixture(node, "fire")), KB, only={node.id})), None)
    assert finding is not None, f"{node.id} stayed quiet on its fire fixture"
    answers = node.get("answers")
    assert finding.symptom == answers["symptom"]
    assert finding.answer in KB.answer_values(KB[finding.symptom])
    assert any(ch.isdigit() for ch in finding.summary), "a finding states its numbers"


@pytest.mark.parametrize("node", DETECTORS, ids=lambda n: n.id)
def test_quiet_on_quiet_fixture(node):
    finding = next(iter(run_detectors(read(fixture(node, "quiet")), KB, only={node.id})), None)
    assert finding is None, f"{node.id} fired on its quiet fixture: {finding.summary}"


def test_every_check_is_used_and_known():
    used = {str(n.get("check")) for n in DETECTORS}
    assert used <= set(CHECKS)


def _ctx(values, steps=None, check="threshold", **params):
    """A one-series run and the typed params of `check`, built from keywords as YAML would give them."""
    from triage.detect.checks import PARAMS
    from triage.detect.params import parse
    from triage.ingest.run import Run, Series

    v = np.asarray(values, dtype=float)
    s = np.arange(1, len(v) + 1, dtype=float) if steps is None else np.asarray(steps, dtype=float)
    run = Run("mem", "test")
    run.series["loss"] = Series("loss", "train", s, v)
    typed, problems = parse(PARAMS[check], params)
    assert not problems, problems
    return Ctx(run, "loss", s, v, typed)


def test_one_small_recovered_spike_is_benign():
    rng = np.random.default_rng(0)
    y = 2.0 * np.exp(-np.arange(300) / 100) + 0.5 + 0.01 * rng.standard_normal(300)
    y[150] *= 2.5
    assert CHECKS["spike"](_ctx(y, check="spike", factor=2.0, min_spikes=2)) is None
    y[200] *= 3.0
    hit = CHECKS["spike"](_ctx(y, check="spike", factor=2.0, min_spikes=2))
    assert hit is not None and hit.numbers["spikes"] == 2
    assert "all recovered" in hit.summary


def test_nan_reports_first_step_and_share():
    y = np.linspace(3, 1, 100)
    y[60:] = np.nan
    hit = CHECKS["nonfinite"](_ctx(y, check="nonfinite"))
    assert hit.first_step == 61 and "40 of 100" in hit.summary and "first at step 61" in hit.summary


def test_threshold_summary_reads_like_a_person_wrote_it():
    y = np.ones(1000)
    y[300:710] = 50.0
    y[500] = 812.0
    hit = CHECKS["threshold"](_ctx(y, op=">", value=10, min_share=0.2))
    assert hit.summary == "loss > 10 on 41% of 1,000 points (steps 301-710), max 812 at step 501"


def test_long_series_are_reduced_not_lost():
    """A spike inside a million points still shows after block reduction."""
    y = np.full(1_000_000, 1.0)
    y[::97] = 1.05
    y[654_321] = 40.0
    y[854_321] = 40.0
    hit = CHECKS["spike"](_ctx(y, check="spike", factor=3.0, min_spikes=2))
    assert hit is not None and hit.numbers["spikes"] == 2


def test_run_detectors_orders_by_first_step(tmp_path):
    rows = []
    for i in range(1, 301):
        loss = 2.3 if i < 250 else float("nan")
        rows.append(f'{{"step": {i}, "loss": {"NaN" if loss != loss else loss}, "grad_norm": {0.0}}}')
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(rows) + "\n")
    found = run_detectors(read(path), KB)
    ids = [f.detector for f in found]
    assert "det-loss-nan" in ids and "det-gradnorm-zero" in ids
    assert ids.index("det-gradnorm-zero") < ids.index("det-loss-nan")


def test_a_train_prefixed_name_picks_the_training_series_by_exact_name():
    """`train:G` in a detector's metric list is the training series named exactly `G` (a GAN's generator
    term), with or without a glob; an eval series of that name is left alone."""
    from triage.detect import _candidates
    from triage.ingest.run import Run, Series

    run = Run("mem", "test")
    run.series["G"] = Series("G", "train", np.arange(3.0), np.array([1.0, np.nan, np.nan]))
    run.series["eval/G"] = Series("eval/G", "eval", np.arange(3.0), np.array([1.0, 1.0, 1.0]))
    assert [s.name for s in _candidates(run, ["train:G"])] == ["G"]
    assert _candidates(run, ["train:D"]) == []


def test_loss_zero_beside_a_moving_eval_loss_is_a_printed_zero(tmp_path):
    """A training loss of exactly 0 has no gradient, so the weights cannot move and a fixed eval set
    scores the same eval loss every time. Beside an eval loss that changes (0.043, 0.025, 0.014, ...: a
    model card's train loss rounded to `0.0`) the 0 is a printed field: no zero, pinned or flat loss
    finding. Beside an eval loss that repeats, det-loss-zero still fires, alone among the loss readings."""
    def rows(evals):
        return "".join(f'{{"epoch": {i + 1}, "loss": 0.0, "eval_loss": {e}}}\n' for i, e in enumerate(evals))

    moving = tmp_path / "moving.jsonl"
    moving.write_text(rows([0.043, 0.025, 0.014, 0.027, 0.034, 0.037]))
    ids = {f.detector for f in run_detectors(read(moving), KB)}
    assert not ids & {"det-loss-zero", "det-loss-pinned", "det-loss-flat", "det-loss-batch-still"}, ids
    still = tmp_path / "still.jsonl"
    still.write_text(rows([2.0] * 6))
    ids = {f.detector for f in run_detectors(read(still), KB)}
    assert "det-loss-zero" in ids and not ids & {"det-loss-pinned", "det-loss-flat", "det-loss-batch-still"}, ids


def test_a_same_metric_supersede_keeps_a_finding_on_another_series(tmp_path):
    """det-auc-inverted restates a near-zero AUC, so it hides det-score-near-zero on the AUC; a mIoU near 0
    beside it (a pose AUC next to a segmentation score) is another fact and stays."""
    def rows(auc, miou):
        return "".join(f'{{"epoch": {i + 1}, "loss": {2.0 - 0.1 * i}, "eval_auc": {a}, "eval_miou": {m}}}\n'
                       for i, (a, m) in enumerate(zip(auc, miou)))

    both = tmp_path / "both.jsonl"
    both.write_text(rows([0.29, 0.28, 0.28, 0.27, 0.29, 0.27], [0.0019, 0.0013, 0.0012, 0.001, 0.0003, 0.0008]))
    found = [(f.detector, f.metric) for f in run_detectors(read(both), KB)]
    assert ("det-auc-inverted", "eval/auc") in found and ("det-score-near-zero", "eval/miou") in found, found
    alone = tmp_path / "alone.jsonl"
    alone.write_text(rows([0.012, 0.011, 0.01, 0.012, 0.011, 0.01], [0.6, 0.62, 0.63, 0.65, 0.66, 0.67]))
    found = [(f.detector, f.metric) for f in run_detectors(read(alone), KB)]
    assert ("det-auc-inverted", "eval/auc") in found and not any(d == "det-score-near-zero" for d, _ in found), found


def test_a_big_run_judged_on_two_processes_gives_what_one_gives(monkeypatch):
    """A run past PARALLEL_POINTS has its detectors shared with a forked child: the findings, their
    order and the warnings (one from a detector whose check raises) are those of the run judged in one
    process. Fire fixtures of several detectors, merged into one run, stand in for a big log."""
    import triage.detect as detect
    from triage.detect import checks

    fires = [read(fixture(node, "fire")) for node in DETECTORS[:40]]
    run = fires[0]
    for other in fires[1:]:
        for name, series in other.series.items():
            run.series.setdefault(name, series)

    def broken(ctx):
        raise ValueError("a check that fails")

    monkeypatch.setitem(checks.CHECKS, "threshold", broken)  # every threshold detector warns

    def judged(parallel: bool):
        monkeypatch.setattr(detect, "PARALLEL_POINTS", 1 if parallel else 10**12)
        monkeypatch.setattr(detect, "_two_cpus", lambda: parallel)
        run.meta.pop("warnings", None)
        found = run_detectors(run, KB)
        return [(f.detector, f.metric, f.summary) for f in found], list(run.meta.get("warnings") or [])

    one, split = judged(False), judged(True)
    assert one[0] and one[1]  # findings and warnings both
    assert split == one

    # a child that took detectors from the queue and then failed: this process runs the ones it took
    from triage.ingest import parts

    real = parts.fork_part

    def failing(work, shm):
        def taken_then_failed():
            work()
            raise RuntimeError("the child failed after taking its detectors")
        return real(taken_then_failed, shm)

    import os
    import time

    here, run_each = os.getpid(), detect._run_each

    def late_here(pairs, run):  # this process starts late: the child takes detectors before it fails
        if os.getpid() == here:
            time.sleep(1.0)
        return run_each(pairs, run)

    monkeypatch.setattr(parts, "fork_part", failing)
    monkeypatch.setattr(detect, "_run_each", late_here)
    assert judged(True) == one
