"""The pieces of `triage diff`: parting beyond noise, alignment, config changes, tolerance, the gate."""

from __future__ import annotations

import math

import numpy as np
import pytest

from triage import api
from triage.engine import diff as D
from triage.ingest.run import Run, Series


def noisy_loss(n: int, seed: int, shift_at: int | None = None, shift: float = 0.0, sigma: float = 0.05) -> np.ndarray:
    """A decaying loss with batch-to-batch noise; from `shift_at` on it sits `shift` higher."""
    rng = np.random.default_rng(seed)
    steps = np.arange(1, n + 1)
    y = 2.0 * np.exp(-steps / 150) + 0.5 + rng.normal(0, sigma, n)
    if shift_at is not None:
        y[steps >= shift_at] += shift
    return y


def series(name: str, values, steps=None) -> Series:
    values = np.asarray(values, dtype=float)
    steps = np.arange(1, len(values) + 1) if steps is None else np.asarray(steps, dtype=float)
    return Series(name, "train", steps, values)


def run(path: str, config: dict | None = None, **cols) -> Run:
    r = Run(path, "jsonl")
    for name, values in cols.items():
        r.series[name.replace("__", "/")] = values if isinstance(values, Series) else series(name, values)
    if config is not None:
        r.meta["config"] = config
    return r


@pytest.fixture(scope="module")
def kb():
    return api.load_kb()


# -- parting ---------------------------------------------------------------------------------------
def test_two_seeds_of_one_run_do_not_part():
    for seed in range(5):
        d = D.compare_metric("loss", series("loss", noisy_loss(600, seed)), series("loss", noisy_loss(600, 100 + seed)))
        assert not d.parted, (seed, d)


@pytest.mark.parametrize("at", [50, 200, 400])
def test_a_sustained_shift_parts_near_where_it_starts(at):
    good = series("loss", noisy_loss(600, 1))
    bad = series("loss", noisy_loss(600, 2, shift_at=at, shift=0.3))
    d = D.compare_metric("loss", good, bad)
    assert d.parted and d.direction == "higher"
    assert abs(d.step - at) <= d.window, (d.step, at, d.window)


def test_a_single_spike_is_not_a_parting():
    bad_values = noisy_loss(600, 2)
    bad_values[300] += 5.0
    d = D.compare_metric("loss", series("loss", noisy_loss(600, 1)), series("loss", bad_values))
    assert not d.parted


def test_a_shift_inside_the_noise_is_not_a_parting():
    """0.02 on a loss whose points swing by 0.2: the runs' own noise, not a parting."""
    good = series("loss", noisy_loss(600, 1, sigma=0.2))
    bad = series("loss", noisy_loss(600, 2, sigma=0.2, shift_at=300, shift=0.02))
    assert not D.compare_metric("loss", good, bad).parted


def test_a_noiseless_schedule_parts_at_the_first_different_step():
    lr_good = [1e-3 * min(1.0, s / 50) for s in range(1, 301)]
    lr_bad = [1e-3] * 300
    d = D.compare_metric("learning_rate", series("learning_rate", lr_good), series("learning_rate", lr_bad))
    assert d.parted and d.step == 1 and d.direction == "higher"


def test_a_value_turning_nan_parts_at_that_step():
    bad = noisy_loss(400, 2)
    bad[250:] = np.nan
    d = D.compare_metric("loss", series("loss", noisy_loss(400, 1)), series("loss", bad))
    assert d.parted and d.step == 251 and d.direction == "non-finite"


def test_runs_logged_at_different_steps_are_interpolated():
    steps_good = np.arange(0, 1000, 10)
    steps_bad = np.arange(5, 1000, 25)
    good = series("loss", 2.0 * np.exp(-steps_good / 300) + 0.5, steps_good)
    bad_values = 2.0 * np.exp(-steps_bad / 300) + 0.5
    bad_values[steps_bad >= 600] += 0.5
    d = D.compare_metric("loss", good, series("loss", bad_values, steps_bad))
    assert d.interpolated and d.parted and 560 <= d.step <= 620


def test_first_parting_metric_is_the_earliest():
    n = 400
    good = run("g", loss=noisy_loss(n, 1), grad_norm=1.0 + np.random.default_rng(3).normal(0, 0.05, n))
    gn = 1.0 + np.random.default_rng(4).normal(0, 0.05, n)
    gn[100:] *= 3  # the gradient norm jumps at step 101 ...
    loss = noisy_loss(n, 2, shift_at=200, shift=0.4)  # ... the loss only from step 200
    diffs, _, _ = D.compare_runs(good, run("b", loss=loss, grad_norm=gn))
    assert [d.metric for d in diffs if d.parted] == ["grad_norm", "loss"]
    assert abs(diffs[0].step - 101) <= diffs[0].window


def test_clock_and_memory_series_are_not_compared():
    good = run("g", loss=noisy_loss(100, 1), throughput=np.full(100, 1000.0), eval__runtime=np.full(100, 3.0))
    bad = run("b", loss=noisy_loss(100, 2), throughput=np.full(100, 10.0), eval__runtime=np.full(100, 30.0))
    diffs, _, _ = D.compare_runs(good, bad)
    assert [d.metric for d in diffs] == ["loss"]


# -- config ----------------------------------------------------------------------------------------
def test_config_values_compare_as_a_person_reads_them():
    changes = D.config_changes({"a": 1, "b": True, "c": None, "d": "x", "e": 3},
                               {"a": 1.0, "b": "true", "c": "null", "d": "y", "f": 4})
    assert [(c.key, c.good, c.bad) for c in changes] == [("d", "x", "y"), ("e", 3, D.MISSING), ("f", D.MISSING, 4)]


def test_changed_keys_are_placed_through_the_knowledge(kb):
    good = {"gradient_accumulation_steps": 1, "max_grad_norm": 1.0, "warmup_steps": 100, "seed": 1,
            "output_dir": "a", "lr": 1e-3, "mystery_knob": 1}
    bad = {"gradient_accumulation_steps": 8, "max_grad_norm": 0.0, "warmup_steps": 0, "seed": 2,
           "output_dir": "b", "lr": 1e-2, "mystery_knob": 2}
    changes = D.config_changes(good, bad)
    D.classify(kb, changes, good, bad)
    by = {c.key: c for c in changes}
    assert by["gradient_accumulation_steps"].question == "Q-grad-accum"
    assert by["gradient_accumulation_steps"].answers == ("no", "yes")
    assert by["max_grad_norm"].answers == ("on", "off")
    assert "S-grad-clip-missing" in by["max_grad_norm"].causes
    assert by["warmup_steps"].setting == "warmup" and "S-warmup-short" in by["warmup_steps"].causes
    assert by["lr"].causes.get("S-lr-too-high") == D.W_TITLE  # `lr` is the learning rate; it went up
    assert by["seed"].role == "seed" and by["output_dir"].role == "bookkeeping"
    assert by["mystery_knob"].role == "other" and not by["mystery_knob"].causes
    ranked = D.rank_changes(changes, None)
    assert ranked[-1].key == "output_dir"


@pytest.mark.parametrize("title, words, said", [
    ("Learning rate too high - repeated spikes or divergence", {"learning"}, "up"),
    ("Learning rate too low - the loss crawls", {"learning"}, "down"),
    ("Warmup missing or too short for the peak learning rate", {"warmup"}, "down"),
    ("No gradient clipping, so one outlier batch blows up the weights", {"grad", "norm"}, "down"),
    ("Gradient accumulation without dividing the loss multiplies the effective learning rate", {"gradient", "accumulation"}, ""),
    ("Loss stalls right after warmup because the peak LR is too high", {"warmup"}, ""),
])
def test_title_direction(title, words, said):
    assert D.title_direction(title, words) == said


# -- tolerance and the gate ------------------------------------------------------------------------
@pytest.mark.parametrize("text, rel, abs_", [
    ("5%", 0.05, 0.0), ("rel=0.05", 0.05, 0.0), ("abs=0.02", 0.0, 0.02), ("0.02", 0.0, 0.02),
    ("5%,abs=0.01", 0.05, 0.01), ("rtol=0.1, atol=0.5", 0.1, 0.5),
])
def test_parse_tolerance(text, rel, abs_):
    tol = D.parse_tolerance(text)
    assert math.isclose(tol.rel, rel) and math.isclose(tol.abs, abs_)


@pytest.mark.parametrize("text", ["", "five", "-1%", "abs=5%", "rel=nan", "x=1"])
def test_bad_tolerance_is_a_one_line_error(text):
    with pytest.raises(D.DiffError) as err:
        D.parse_tolerance(text)
    assert "\n" not in str(err.value)


def _gate(bad_loss, tol="5%", window=20, good_seed=1, **extra):
    good = run("g", loss=noisy_loss(300, good_seed, sigma=0.01), **{k: v[0] for k, v in extra.items()})
    bad = run("b", loss=bad_loss, **{k: v[1] for k, v in extra.items()})
    return D.gate(good, bad, D.parse_tolerance(tol), window=window)


def test_gate_fails_a_sustained_regression_and_passes_within_tolerance():
    worse = noisy_loss(300, 2, sigma=0.01, shift_at=150, shift=0.1)  # ~10% of the late loss
    failed = _gate(worse, "5%")
    assert not failed["passed"]
    reg = failed["regressions"][0]
    assert reg["metric"] == "loss" and 130 <= reg["first_step"] <= 151
    assert _gate(worse, "25%")["passed"]
    assert _gate(worse, "abs=0.2")["passed"]


def test_gate_ignores_one_noisy_point_and_never_fails_a_better_run():
    spiky = noisy_loss(300, 2, sigma=0.01)
    spiky[200] += 1.0  # one bad batch: a window mean moves by 1/20 of it
    assert _gate(spiky, "abs=0.06")["passed"]
    assert not _gate(spiky, "abs=0.06", window=1)["passed"]
    better = noisy_loss(300, 2, sigma=0.01) - 0.3
    assert _gate(better, "0")["passed"]


def test_gate_fails_when_bad_turns_nan():
    bad = noisy_loss(300, 2, sigma=0.01)
    bad[280] = np.nan
    out = _gate(bad, "50%")
    assert not out["passed"] and out["regressions"][0]["kind"] == "non-finite"
    assert out["regressions"][0]["first_step"] == 281


def test_gate_knows_accuracy_is_better_higher():
    acc_good = np.linspace(0.5, 0.9, 300)
    out = _gate(noisy_loss(300, 2, sigma=0.01), "5%", eval__accuracy=(acc_good, acc_good - 0.1))
    by = {m["metric"]: m for m in out["metrics"]}
    assert not by["eval/accuracy"]["passed"] and by["eval/accuracy"]["better"] == "higher"
    out = _gate(noisy_loss(300, 2, sigma=0.01), "5%", eval__accuracy=(acc_good, acc_good + 0.1))
    assert {m["metric"]: m for m in out["metrics"]}["eval/accuracy"]["passed"]


def test_gate_metric_must_be_logged_by_both():
    good = run("g", loss=noisy_loss(100, 1))
    bad = run("b", loss=noisy_loss(100, 2))
    with pytest.raises(D.DiffError, match="not logged by both runs"):
        D.gate(good, bad, D.parse_tolerance("5%"), metrics=["eval/loss"])


def test_metric_direction():
    assert D.metric_direction("eval/loss") == "lower" and D.metric_direction("train/perplexity") == "lower"
    assert D.metric_direction("eval/accuracy") == "higher" and D.metric_direction("reward") == "higher"
    assert D.metric_direction("grad_norm") == ""
