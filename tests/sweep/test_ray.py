"""The sweep on Ray: a local Ray instance with two workers (one for the module, start-up is slow),
a real Ray Tune experiment folder, and the Ray executor giving what the local one gives."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.sweep import discover, run_sweep
from triage.sweep.executors import run_pool, run_ray
from triage.sweep.refs import TUNE

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'triage[test]' installs it)")
pytestmark = pytest.mark.slow  # Ray and Tune start in 5-15 s; one instance for the module

runner = CliRunner()
LRS = (1e-4, 1e-3, 1e-2)
ITERATIONS = 120  # Tune reports one at a time: each costs a round trip, so keep them few


@pytest.fixture(scope="module")
def cluster():
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def tune_experiment(cluster, tmp_path_factory):
    from ray import tune

    def trainable(config):
        """A training loop's reports: the loss per iteration, growing then NaN when lr >= 3e-3.
        Defined here, so Ray ships it by value (the workers cannot import this test module)."""
        import numpy as np
        from ray import tune

        rng = np.random.default_rng(config["seed"])
        n = ITERATIONS
        s = np.arange(1, n + 1, dtype=float)
        loss = 2.2 * np.exp(-s / 25) + 0.35 + rng.normal(0, 0.02, n)
        grad = 1.0 + 0.1 * rng.standard_normal(n)
        if config["lr"] >= 3e-3:
            grow = np.exp((s[40:] - s[40]) / 5)
            loss[40:] = loss[40] * grow
            grad[40:] = grad[40] * grow ** 1.5
            loss[80:] = grad[80:] = np.nan
        for lo, g in zip(loss, grad):
            tune.report({"loss": float(lo), "grad_norm": float(g), "learning_rate": config["lr"]})

    storage = tmp_path_factory.mktemp("tune")
    tuner = tune.Tuner(trainable, param_space={"lr": tune.grid_search(list(LRS)), "seed": tune.grid_search([0, 1]),
                                                "optimizer": "adamw"},
                       run_config=tune.RunConfig(storage_path=str(storage), name="lr-grid", verbose=0))
    tuner.fit()
    return storage / "lr-grid"


def test_tune_experiment_folder_is_one_run_per_trial(tune_experiment):
    refs = discover([str(tune_experiment)])
    assert len(refs) == len(LRS) * 2 and all(r.kind == TUNE for r in refs), [r.name for r in refs]
    summary = run_sweep(refs)
    assert summary.counts["unreadable"] == 0
    for r in summary.runs:
        assert set(r.config) == {"lr", "seed", "optimizer"}, "params.json is the config"
        assert r.format == "ray_tune" and r.rows == ITERATIONS
        assert r.verdict == ("broken" if r.config["lr"] >= 3e-3 else "healthy"), (r.name, r.note)
    # Tune's own counters are not metrics; the step is training_iteration
    record = __import__("triage.sweep.work", fromlist=["scan_ref"]).scan_ref(
        next(x for x in refs if "lr=0.0100" in x.name))
    metrics = record["scan"]["sources"][0]["metrics"]
    assert "loss" in metrics and not any(m in metrics for m in ("pid", "time_total_s", "training_iteration"))
    nan = [f for f in record["scan"]["findings"] if f["first_step"] is not None]
    assert nan and min(f["first_step"] for f in nan) >= 2


def test_ray_executor_gives_what_local_processes_give(cluster, separable_sweep):
    root, _truth = separable_sweep
    refs = discover([str(root)])
    on_ray = run_sweep(refs, executor="ray")
    local = run_sweep(refs, jobs=2)
    assert on_ray.executor == "ray" and on_ray.workers == 2
    key = lambda s: [(r.name, r.verdict, r.group, r.findings) for r in s.runs]  # noqa: E731
    assert key(on_ray) == key(local)
    assert [x.to_dict() for x in on_ray.separating] == [x.to_dict() for x in local.separating]
    assert any(rule.key == "lr" for x in on_ray.separating for rule in x.rules)


@pytest.mark.parametrize("runner_fn", [
    lambda refs: run_ray(refs, total=36),
    lambda refs: run_pool(refs, 2, total=36),
], ids=["ray", "processes"])
def test_results_stream_back_before_the_listing_is_used_up(cluster, separable_sweep, runner_fn):
    """The driver holds a bounded window: the first result comes back while most runs are still
    unread, so memory does not grow with the number of runs."""
    root, _truth = separable_sweep
    refs = discover([str(root)])
    taken = []

    def lazily():
        for ref in refs:
            taken.append(ref)
            yield ref

    stream = runner_fn(lazily())
    first = next(stream)
    assert first["scan"] is not None
    assert len(taken) <= 4 * 2 * 1 + 1 < len(refs), f"{len(taken)} of {len(refs)} runs were handed out before the first result"
    rest = list(stream)
    assert len(rest) + 1 == len(refs)


def test_cli_on_ray(cluster, separable_sweep):
    root, _truth = separable_sweep
    result = runner.invoke(app, ["sweep", str(root), "--executor", "ray", "--json"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    assert doc["summary"]["executor"] == "ray" and doc["summary"]["workers"] == 2
    assert doc["summary"]["runs"] == 36 and not math.isnan(doc["summary"]["elapsed_s"])
