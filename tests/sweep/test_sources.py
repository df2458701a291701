"""Finding the runs of a sweep in a folder tree, and reading each with its config."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from sweepgen import BENCH, FIXTURES

from triage.sweep import SweepError, discover
from triage.sweep.refs import PATH
from triage.sweep.work import scan_ref


def _names(refs) -> set[str]:
    return {r.name for r in refs}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """One tree holding runs in the layouts people keep: a run folder per config, a folder of log
    files, an HF output folder with checkpoints, Lightning versions, W&B offline runs (with the
    latest-run link), an MLflow file store with two runs, and TensorBoard runs."""
    root = tmp_path / "sweep"
    BENCH.make_sweep(root / "grid", 3, seed=1, formats=["jsonl"], rows=(200, 200))
    flat = root / "flat"
    flat.mkdir()
    for lr in ("0.1", "0.01"):
        (flat / f"lr={lr}.jsonl").write_text("".join(json.dumps({"step": s, "loss": 2.0 / s}) + "\n" for s in range(1, 60)))
    hf = root / "hf" / "out"
    for step in (10, 20):
        (hf / f"checkpoint-{step}").mkdir(parents=True)
        shutil.copy(FIXTURES / "hf" / "trainer_state.json", hf / f"checkpoint-{step}" / "trainer_state.json")
    for v in (0, 1):
        shutil.copytree(FIXTURES / "lightning" / "csv" / "version_0", root / "lightning" / "lightning_logs" / f"version_{v}")
    wandb = root / "project" / "wandb"
    src = next((FIXTURES / "wandb").iterdir())
    for i, name in enumerate(("offline-run-20261121_061506-aaaa1111", "offline-run-20261122_061506-bbbb2222")):
        shutil.copytree(src, wandb / name)
        if i == 1:
            (wandb / name / "files").mkdir()
            (wandb / name / "files" / "config.yaml").write_text(
                "_wandb:\n  value:\n    cli_version: 0.19.0\nlr:\n  desc: null\n  value: 0.003\nbatch_size:\n  value: 16\n")
    os.symlink(wandb / "offline-run-20261122_061506-bbbb2222", wandb / "latest-run")
    store = root / "mlruns"
    shutil.copytree(FIXTURES / "mlflow" / "mlruns", store)
    run0 = next(p for p in (store / "0").iterdir() if p.is_dir())
    shutil.copytree(run0, store / "0" / ("f" * 32))
    (run0 / "params").mkdir()
    (run0 / "params" / "learning_rate").write_text("0.0003")
    (run0 / "params" / "optimizer").write_text("adamw")
    for name in ("tb-a", "tb-b"):
        shutil.copytree(FIXTURES / "tensorboard" / "run", root / "tensorboard" / name)
    return root


def test_every_layout_gives_one_run_per_run_folder(tree: Path):
    refs = discover([str(tree)])
    names = _names(refs)
    assert {"grid/run-00000", "grid/run-00001", "grid/run-00002"} <= names
    assert {"flat/lr=0.1.jsonl", "flat/lr=0.01.jsonl"} <= names, "a folder of log files: each file is a run"
    assert "hf/out" in names and not any("checkpoint" in n for n in names), "checkpoints are one run"
    assert {"lightning/lightning_logs/version_0", "lightning/lightning_logs/version_1"} <= names
    wandb = sorted(n for n in names if "wandb" in n)
    assert wandb == ["project/wandb/offline-run-20261121_061506-aaaa1111",
                     "project/wandb/offline-run-20261122_061506-bbbb2222"], "latest-run is a link: not a second copy"
    assert len([n for n in names if n.startswith("mlruns/")]) == 2
    assert {"tensorboard/tb-a", "tensorboard/tb-b"} <= names, "tag sub-folders belong to their run"
    assert len(refs) == len(names) == 3 + 2 + 1 + 2 + 2 + 2 + 2
    assert all(r.kind == PATH for r in refs)


def test_configs_are_read_where_each_tool_keeps_them(tree: Path):
    refs = {r.name: r for r in discover([str(tree)])}
    grid = scan_ref(refs["grid/run-00000"])
    assert grid["error"] is None and grid["config"]["seed"] == 0 and "lr" in grid["config"]
    wb = scan_ref(refs["project/wandb/offline-run-20261122_061506-bbbb2222"])
    assert wb["error"] is None and wb["config"]["lr"] == 0.003 and wb["config"]["batch_size"] == 16
    assert not any(k.startswith("_wandb") or k == "cli_version" for k in wb["config"])
    ml = [scan_ref(r) for n, r in refs.items() if n.startswith("mlruns/")]
    configs = sorted((m["config"] for m in ml), key=len)
    assert configs[-1] == {"learning_rate": 0.0003, "optimizer": "adamw"} and configs[0] == {}
    assert all(m["scan"]["sources"][0]["rows"] > 0 for m in ml)


def test_scan_document_matches_triage_scan(tree: Path):
    from triage import api

    ref = next(r for r in discover([str(tree)]) if r.name == "hf/out")
    record = scan_ref(ref)
    expected = api.public(api.scan(ref.locator))
    assert record["scan"] == expected
    assert record["cpu_ms"] > 0 and record["_series"], "a thinned series comes back for the report"
    assert all(len(points) <= 80 for _m, points in record["_series"])


def test_unreadable_run_is_a_record_not_an_exception(tmp_path: Path):
    bad = tmp_path / "runs" / "broken"
    bad.mkdir(parents=True)
    (bad / "log.jsonl").write_bytes(b"\x00\x01\x02 not a log \xff" * 10)
    refs = discover([str(tmp_path / "runs")])
    record = scan_ref(refs[0])
    assert record["scan"] is None and record["error"] and "\n" not in record["error"]


def test_nothing_to_sweep_is_a_one_line_error(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SweepError, match="no runs found"):
        discover([str(tmp_path / "empty")])
    with pytest.raises(SweepError, match="no such file"):
        discover([str(tmp_path / "missing")])
