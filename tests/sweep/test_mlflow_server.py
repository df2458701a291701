"""`triage sweep --mlflow` against a real MLflow tracking server started here (SQLite backend, a
temporary artifact folder, a free localhost port), with runs logged by the official client."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import numpy as np
import pytest
from sweepgen import BENCH
from typer.testing import CliRunner

from triage.cli import app

mlflow = pytest.importorskip("mlflow", reason="mlflow is not installed (pip install 'triage[test]' installs it)")
pytestmark = pytest.mark.slow  # the server takes 10-25 s to start; one server for the module

runner = CliRunner()
RUNS = 20


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("mlflow")
    port = _free_port()
    log = open(tmp / "server.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "server", "--backend-store-uri", f"sqlite:///{tmp / 'mlflow.db'}",
         "--default-artifact-root", str(tmp / "artifacts"), "--host", "127.0.0.1", "--port", str(port),
         "--workers", "1"],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        # no job runner: it starts seven more Python processes (GenAI jobs) that a metrics test never uses
        env={**os.environ, "MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"})
    uri = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(f"mlflow server exited {proc.returncode}: {(tmp / 'server.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{uri}/health", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("mlflow server did not answer /health within 120 s")
            time.sleep(0.25)
        yield uri
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(5)  # uvicorn drains keep-alive connections first; the data is not needed after
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)
        log.close()


@pytest.fixture(scope="module")
def logged(server):
    """RUNS runs in experiment `lr-sweep` (every run with lr >= 3e-3 diverges) and one in `other`,
    logged as a training script would: params, then per-step metrics with steps and timestamps."""
    from mlflow.entities import Metric, Param
    from mlflow.tracking import MlflowClient

    client = MlflowClient(server)
    exp = client.create_experiment("lr-sweep")
    other = client.create_experiment("other")
    rng = np.random.default_rng(7)
    plans = []
    for i in range(RUNS + 1):
        config = BENCH.run_config(rng, i)
        fault = BENCH.pick_fault(rng, config, separable=True)
        plans.append((i, config, fault, BENCH.curves(rng, fault, int(rng.integers(150, 250)), config)))

    def log(plan):
        i, config, fault, c = plan
        name = f"trial-{i:02d}"
        run = client.create_run(exp if i < RUNS else other, run_name=name)
        t0 = 1_700_000_000_000 + i * 10_000_000
        metrics = []
        for key, steps, values in (("loss", c["step"], c["loss"]), ("grad_norm", c["step"], c["grad_norm"]),
                                   ("learning_rate", c["step"], c["lr"]), ("eval_loss", c["eval_step"], c["eval_loss"])):
            metrics += [Metric(key, float(v), t0 + int(s) * 100, int(s)) for s, v in zip(steps, values)]
        params = [Param(k, str(v)) for k, v in config.items()]
        for start in range(0, len(metrics), 1000):
            client.log_batch(run.info.run_id, metrics=metrics[start:start + 1000], params=params if start == 0 else [])
        client.set_terminated(run.info.run_id)
        return name, (fault, config, run.info.run_id)

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:  # as parallel trials would log; the server takes them in turn
        truth = dict(pool.map(log, plans))
    return server, truth


def test_sweep_reads_every_run_with_steps_and_typed_params(logged):
    uri, truth = logged
    result = runner.invoke(app, ["sweep", "--mlflow", uri, "--experiment", "lr-sweep", "--json", "--jobs", "2"])
    assert result.exit_code == 1, result.output
    doc = json.loads(result.stdout)
    runs = {r["name"]: r for r in doc["runs"]}
    assert len(runs) == RUNS and doc["summary"]["unreadable"] == 0
    assert doc["summary"]["executor"] == "threads" and doc["summary"]["workers"] == 2
    for name, r in runs.items():
        fault, config, run_id = truth[name]
        assert r["config"] == config, "params come back as the numbers and words they were"
        assert r["id"].endswith(f"/runs/{run_id}") and r["source"] == "mlflow"
        src = r["scan"]["sources"][0]
        assert src["format"] == "mlflow_server" and {"loss", "grad_norm", "learning_rate"} <= set(src["metrics"])
        assert src["rows"] >= 150
        if fault == "diverge":
            assert r["verdict"] == "broken", f"{name} diverged (NaN loss) but was called {r['verdict']}"
    rules = [rule for s in doc["summary"]["separating"] for rule in s["rules"] if rule["key"] == "lr"]
    assert rules and rules[0]["op"] == ">=" and rules[0]["value"] == 0.003 and rules[0]["healthy_matching"] == 0


def test_nan_steps_arrive_as_nan_at_their_step(logged):
    uri, truth = logged
    name = next(n for n, (fault, _c, _id) in truth.items() if fault == "diverge" and n != f"trial-{RUNS:02d}")
    result = runner.invoke(app, ["sweep", "--mlflow", uri, "--experiment", "lr-sweep", "--json"])
    doc = json.loads(result.stdout)
    run = next(r for r in doc["runs"] if r["name"] == name)
    nan = [f for f in run["scan"]["findings"] if "NaN" in f["summary"] or "nan" in f["detector"]]
    assert nan and all(f["first_step"] > 1 for f in nan), "the step of the first NaN is kept, not the row number"


def test_all_experiments_without_experiment_option(logged):
    uri, _truth = logged
    result = runner.invoke(app, ["sweep", "--mlflow", uri, "--json"])
    doc = json.loads(result.stdout)
    assert doc["summary"]["runs"] == RUNS + 1


def test_unknown_experiment_names_the_ones_there(logged):
    uri, _truth = logged
    result = runner.invoke(app, ["sweep", "--mlflow", uri, "--experiment", "nope"])
    assert result.exit_code == 2
    assert "no such experiment" in result.output and "lr-sweep" in result.output and "Traceback" not in result.output


def test_server_that_does_not_answer_is_one_line(monkeypatch):
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    result = runner.invoke(app, ["sweep", "--mlflow", f"http://127.0.0.1:{_free_port()}"])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "cannot list runs" in lines[0]
