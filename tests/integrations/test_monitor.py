"""`Monitor`, the plain-loop integration: what it prints, when it stops, what it keeps, what it
writes; and that `import triage` and the command line stay free of torch and the frameworks."""

from __future__ import annotations

import io
import math
import random
import subprocess
import sys

import numpy as np
import pytest

from triage.integrations import Monitor
from triage.integrations.monitor import _Column


def healthy(i: int) -> tuple[float, float]:
    return 2.3 * math.exp(-i / 150) + 0.3 + 0.01 * math.sin(i), 1.0 + 0.1 * math.cos(i)


def lines(buf: io.StringIO) -> list[str]:
    return buf.getvalue().splitlines()


def test_a_nan_stops_the_loop_at_that_step_with_the_knob_printed():
    buf = io.StringIO()
    m = Monitor(stop_on=("nan", "divergence"), out=buf)  # the default budget: NaN is never waited for
    stopped = None
    for i in range(1, 400):
        loss, grad = healthy(i)
        if i >= 230:
            loss = float("nan")
        if m.log(i, loss=loss, grad_norm=grad):
            stopped = i
            break
    assert stopped == 230
    text = buf.getvalue()
    assert "loss is NaN" in text and "knob:" in text and "stopping training at step 230 (stop_on=nan)" in text
    assert m.stop_reason.startswith("stop_on=nan")
    m.close()


def test_each_finding_is_printed_once_and_a_growing_gradient_norm_comes_before_the_nan():
    buf = io.StringIO()
    m = Monitor(out=buf, budget=None)
    rng = random.Random(0)
    for i in range(1, 241):
        grad = math.exp(math.log(100) * i / 200) * (1 + 0.2 * rng.random())
        loss = healthy(i)[0] if i <= 200 else float("nan")
        m.log(i, loss=loss, grad_norm=grad)
    m.close()
    text = lines(buf)
    growing = next(k for k, line in enumerate(text) if "grad_norm grew steadily" in line)
    nan = next(k for k, line in enumerate(text) if "loss is NaN" in line)
    assert growing < nan
    step = int(text[growing].split("step ")[1].split(":")[0])
    assert step < 200, "warned while every value was still finite"
    findings = [line for line in text if line.startswith("[triage] step") or line.startswith("[triage] at the end")]
    assert len(findings) == len(set(l.split(": ", 1)[1] for l in findings))


def test_loss_spikes_are_reported_before_anything_is_nan():
    buf = io.StringIO()
    m = Monitor(out=buf, budget=None)
    for i in range(1, 601):
        loss, grad = healthy(i)
        if i in (200, 320, 450):
            loss *= 8  # three spikes that recover at once
        m.log(i, loss=loss, grad_norm=grad)
    spikes = [f for f in m._live.reported.values() if f.symptom == "Q-spike-pattern" and f.answer == "repeated"]
    assert spikes and "spiked 2 time(s)" in spikes[0].summary, "reported once two spikes had happened"
    assert not m.should_stop
    m.close()


def test_whole_curve_verdicts_wait_for_the_end():
    """Every classifier starts at ln C: a flat start is no finding while the run goes on."""
    buf = io.StringIO()
    m = Monitor(out=buf, budget=None)
    for i in range(1, 301):
        m.log(i, loss=2.3026 + 0.001 * math.sin(i))
    assert buf.getvalue() == ""
    m.close()
    assert "at the end: loss is flat" in buf.getvalue()


def test_stop_on_a_category_outside_the_live_ones_runs_its_detectors_live():
    buf = io.StringIO()
    m = Monitor(stop_on=("no-learning",), out=buf, budget=None)
    stopped = next((i for i in range(1, 2001) if m.log(i, loss=2.3026 + 0.001 * math.sin(i))), None)
    assert stopped is not None and stopped < 2000
    assert "stop_on=no-learning" in buf.getvalue()


def test_a_typo_in_stop_on_fails_before_training():
    with pytest.raises(ValueError, match="unknown 'nans'"):
        Monitor(stop_on=("nans",))


def test_the_report_is_written_at_the_end(tmp_path):
    report = tmp_path / "triage.html"
    buf = io.StringIO()
    with Monitor(report=str(report), out=buf, budget=None) as m:
        for i in range(1, 200):
            loss, grad = healthy(i)
            m.log(i, loss=loss if i < 150 else float("inf"), grad_norm=grad)
    html = report.read_text()
    assert "<html" in html.lower() and "inf" in html.lower()
    assert f"report: {report}" in buf.getvalue()
    assert m.doc is not None and not m.doc["healthy"]


def test_values_of_every_kind_are_read_and_non_numbers_skipped():
    torch = pytest.importorskip("torch")
    m = Monitor(quiet=True, budget=None)
    m.log(1, loss=torch.tensor(2.5), grad_norm=np.float32(1.5), lr=1, note="warmup", flag=True, epoch=0.1)
    assert set(m._cols) == {"loss", "grad_norm", "lr"}
    run = m.build_run()
    assert run.get("loss").values[0] == 2.5 and run.get("learning_rate").values[0] == 1.0


def test_memory_stays_bounded_and_recent_points_keep_full_resolution():
    col = _Column(cap=1000)
    for i in range(100_000):
        col.append(float(i), float("nan") if i == 10 else float(i % 7), i)
    assert col.n <= 1000 and len(col.values) == 1000
    rows, steps, values = col.arrays()
    assert np.isnan(values).any(), "a NaN survives the merging of old points"
    assert (np.diff(steps) > 0).all()
    assert (np.diff(steps[-100:]) == 1).all(), "the newest points are untouched"
    assert steps[-1] == 99_999


def test_the_checks_keep_to_their_budget():
    """Over many calls the share of time spent checking stays near the budget."""
    import time

    m = Monitor(quiet=True, budget=0.01)
    t0 = time.perf_counter()
    for i in range(1, 60_001):
        m.log(i, loss=2.0 + 0.01 * math.sin(i), grad_norm=1.0)
    total = time.perf_counter() - t0
    assert m.evaluations >= 2
    assert m.check_seconds < 0.05 * total + 0.2, (m.check_seconds, total)


def test_a_fault_in_the_checks_never_ends_the_training(monkeypatch):
    import triage.detect

    def broken(*args, **kwargs):
        raise TypeError("a detector bug")

    monkeypatch.delenv("TRIAGE_DEBUG", raising=False)
    monkeypatch.setattr(triage.detect, "run_detectors", broken)
    buf = io.StringIO()
    m = Monitor(out=buf, budget=None, stop_on="nan")
    assert not any(m.log(i, loss=float("nan")) for i in range(1, 50))
    assert m.faults == 49 and buf.getvalue().count("a check failed (TypeError: a detector bug)") == 1
    assert m.close() is None


def test_import_triage_and_the_cli_load_no_framework():
    code = ("import sys, triage, triage.cli, triage.integrations, triage.engine.watch, triage.notify; "
            "print(sorted(m for m in ('torch', 'transformers', 'lightning', 'pytorch_lightning') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
