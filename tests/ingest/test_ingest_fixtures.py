"""Fixtures made by the real libraries (scripts/make_fixtures.py) read into the expected Run."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import FIXTURES
from triage.ingest import IngestError, read_run

EXPECTED = {
    # path: (format, metrics that must be there)
    "hf/trainer_state.json": ("hf_state", {"loss", "grad_norm", "learning_rate", "eval/a/loss", "eval/b/loss"}),
    "hf/trainer_state_nan.json": ("hf_state", {"loss", "grad_norm"}),
    "hf/trainer_state_resumed.json": ("hf_state", {"loss", "eval/a/loss"}),
    "hf/stdout.log": ("hf_stdout", {"loss", "grad_norm", "learning_rate", "eval/a/loss"}),
    "hf/events.out.tfevents.hf": ("tensorboard", {"loss", "grad_norm", "learning_rate", "eval/a/loss", "epoch"}),
    "hf": ("hf_state", {"loss"}),
    "tensorboard/run": ("tensorboard", {"loss", "learning_rate", "grad_norm", "eval/loss", "eval/accuracy",
                                        "reward_chosen/reward", "reward_rejected/reward"}),
    "tensorboard/events.out.tfevents.truncated": ("tensorboard", {"loss", "eval/accuracy"}),
    "lightning/csv/version_0": ("lightning_csv", {"loss", "loss_epoch", "eval/loss"}),
    "lightning/tb/version_0": ("tensorboard", {"loss", "loss_epoch", "eval/loss", "epoch"}),
    "lightning/csv": ("lightning_csv", {"loss", "eval/loss"}),
    "sb3/progress.csv": ("sb3_progress", {"episode_reward", "entropy", "approx_kl", "clip_fraction", "explained_variance"}),
    "sb3/0.monitor.csv": ("sb3_monitor", {"episode_reward", "episode_length"}),
    "sb3/stdout.log": ("sb3_stdout", {"episode_reward", "entropy", "approx_kl"}),
    "sb3": ("sb3_progress", {"episode_reward"}),
    "wandb": ("wandb", {"loss", "grad_norm", "learning_rate"}),
    "mlflow": ("mlflow", {"loss", "eval/loss", "rewards/margins"}),
    "synthetic/keras_fit.log": ("keras_stdout", {"loss", "accuracy", "eval/loss", "eval/accuracy"}),
    "synthetic/keras_training.csv": ("keras_csv", {"loss", "accuracy", "eval/loss", "eval/accuracy"}),
    "synthetic/megatron.log": ("megatron", {"loss", "learning_rate", "grad_norm", "loss_scale", "skipped_iterations",
                                            "nan_iterations", "eval/loss", "eval/perplexity"}),
    "synthetic/deepspeed_hf4.log": ("hf_stdout", {"loss", "grad_norm"}),
    "synthetic/axolotl_hf5.log": ("hf_stdout", {"loss", "grad_norm", "memory", "perplexity", "tokens_seen", "eval/loss"}),
    "synthetic/nanogpt.log": ("nanogpt", {"loss", "eval/loss", "mfu"}),
    "synthetic/torchtune_log_1700000000.txt": ("torchtune", {"loss", "learning_rate", "grad_norm", "throughput"}),
    "synthetic/verl_console.log": ("verl", {"policy_loss", "entropy", "reward", "completions/mean_length",
                                            "completions/clipped_ratio"}),
    "synthetic/wandb_export_2025-01-01T00_00_00.csv": ("wandb_csv", {"loss"}),
    "synthetic/results.csv": ("ultralytics", {"loss", "eval/loss", "eval/map", "eval/map50", "learning_rate"}),
    "synthetic/messy.jsonl": ("jsonl", {"loss", "grad_norm", "eval/loss"}),
    "synthetic/messy.jsonl.gz": ("jsonl", {"loss", "grad_norm", "eval/loss"}),
}


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_fixture(rel):
    fmt, metrics = EXPECTED[rel]
    run = read_run(FIXTURES / rel)
    assert run.format == fmt
    assert metrics <= set(run.metrics()), sorted(metrics - set(run.metrics()))
    assert run.meta["rows"] > 0


def test_fixtures_are_small():
    total = sum(p.stat().st_size for p in FIXTURES.rglob("*") if p.is_file())
    assert total < 600 * 1024


def test_hf_nan_grad_norm_kept():
    run = read_run(FIXTURES / "hf/trainer_state_nan.json")
    g = run.get("grad_norm")
    assert g.nan_count() > 0 and g.inf_count() > 0
    assert run.get("loss").nan_count() == 0  # HF's nan_inf_filter hides it; grad_norm shows it


def test_hf_resume_keeps_the_last_of_each_step():
    full = read_run(FIXTURES / "hf/trainer_state.json")
    resumed = read_run(FIXTURES / "hf/trainer_state_resumed.json")
    assert resumed.meta["restarts"] == 1 and resumed.meta["duplicates"] > 0
    assert np.array_equal(full.get("loss").steps, resumed.get("loss").steps)
    assert np.allclose(full.get("loss").values, resumed.get("loss").values)


def test_hf_stdout_matches_trainer_state():
    """transformers 5 prints every float as a '%.4g' string: same values, rounded."""
    state = read_run(FIXTURES / "hf/trainer_state.json")
    out = read_run(FIXTURES / "hf/stdout.log")
    a, b = state.get("loss").values, out.get("loss").values
    assert len(a) == len(b)
    assert np.allclose(a, b, rtol=1e-3)
    assert "train_loss" in out.meta["summary"]


def test_tensorboard_matches_trainer_state():
    state = read_run(FIXTURES / "hf/trainer_state.json")
    tb = read_run(FIXTURES / "hf/events.out.tfevents.hf")
    assert np.array_equal(state.get("loss").steps, tb.get("loss").steps)
    assert np.allclose(state.get("loss").values, tb.get("loss").values, rtol=1e-6)  # float32 in TB
    assert tb.get("loss").wall is not None


def test_tensorboard_nan_and_truncation():
    whole = read_run(FIXTURES / "tensorboard/run")
    assert whole.get("grad_norm").nan_count() == 1
    cut = read_run(FIXTURES / "tensorboard/events.out.tfevents.truncated")
    assert cut.meta["skipped"] == {"truncated record": 1}
    assert len(cut.get("loss")) >= len(whole.get("loss")) - 1


def test_tensorboard_new_style_matches_tensorboard_itself():
    ea_mod = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    path = sorted((FIXTURES / "tensorboard/run").glob("events.out.tfevents.*"))[0]
    ea = ea_mod.EventAccumulator(str(path), size_guidance={"scalars": 0, "tensors": 0})
    ea.Reload()
    from tensorboard.util import tensor_util

    run = read_run(path)
    for tag, name in (("train/loss", "loss"), ("eval/accuracy", "eval/accuracy")):
        if tag in ea.Tags()["scalars"]:
            ref = [(e.step, e.value) for e in ea.Scalars(tag)]
        else:
            ref = [(e.step, float(tensor_util.make_ndarray(e.tensor_proto))) for e in ea.Tensors(tag)]
        s = run.get(name)
        assert [int(x) for x in s.steps] == [r[0] for r in ref]
        assert np.allclose(s.values, [r[1] for r in ref], equal_nan=True)


def test_lightning_forks_and_sparse_rows():
    run = read_run(FIXTURES / "lightning/csv/version_0")
    assert run.get("loss").source_key == "train_loss_step"
    assert run.get("loss_epoch").source_key == "train_loss_epoch"
    assert run.get("eval/loss").split == "eval"
    assert not np.isnan(run.get("eval/loss").values).any()  # empty cells are not NaN


def test_sb3_monitor_env_steps():
    run = read_run(FIXTURES / "sb3/0.monitor.csv")
    r = run.get("episode_reward")
    length = run.get("episode_length")
    assert np.array_equal(r.steps, np.cumsum(length.values))
    assert r.wall is not None and r.wall[0] > 1e9


def test_wandb_offline_nan_kept():
    run = read_run(FIXTURES / "wandb")
    assert run.get("grad_norm").nan_count() == 1
    assert run.get("loss").steps[-1] == 290  # train/global_step beats _step


def test_mlflow_nan_and_steps():
    run = read_run(FIXTURES / "mlflow")
    assert run.get("eval/loss").nan_count() == 1
    assert run.get("loss").steps.tolist() == list(range(20))


def test_keras_stdout_last_redraw_per_epoch():
    run = read_run(FIXTURES / "synthetic/keras_fit.log")
    loss = run.get("loss")
    assert loss.steps.tolist() == [1, 2, 3, 4, 5]
    assert np.allclose(loss.values, [1.0 / e for e in range(1, 6)], atol=1e-4)


def test_megatron_loss_scale_and_validation():
    run = read_run(FIXTURES / "synthetic/megatron.log")
    assert run.get("loss_scale").values[:3].tolist() == [65536.0, 32768.0, 16384.0]
    assert run.get("eval/loss").steps.tolist() == [100, 200]


def test_deepspeed_overflow_events_and_traceback():
    run = read_run(FIXTURES / "synthetic/deepspeed_hf4.log")
    over = [e for e in run.events if e.kind == "overflow"]
    assert [e.value for e in over] == [32768.0, 16384.0, 8192.0, 4096.0, 2048.0]
    assert over[1].step == 10  # the step of the bar before it
    tb = [e for e in run.events if e.kind == "traceback"]
    assert len(tb) == 1 and "OutOfMemoryError" in tb[0].text and tb[0].line == 11
    assert run.get("loss").nan_count() == 2
    assert run.get("loss").steps.tolist() == [10, 20, 30, 40, 50]


def test_messy_jsonl_counts():
    for name in ("messy.jsonl", "messy.jsonl.gz"):
        run = read_run(FIXTURES / "synthetic" / name)
        sk = run.meta["skipped"]
        assert sk == {"blank line": 1, "not an object": 1, "not JSON": 1, "truncated last line": 1}
        loss = run.get("loss")
        assert loss.steps.tolist() == [1, 2, 3, 4]  # null is missing; step 3 twice -> the last one
        assert math.isnan(loss.values[1]) and loss.values[2] == 2.05
        g = run.get("grad_norm")
        assert np.isinf(g.values).sum() == 2 and run.meta["duplicates"] >= 2


def test_wandb_csv_export_reads_first_run():
    run = read_run(FIXTURES / "synthetic/wandb_export_2025-01-01T00_00_00.csv")
    assert run.meta["wandb_run"] == "run-a" and run.meta["sampled_export"]
    assert any("2 runs" in w for w in run.meta["warnings"])


def test_format_override_and_unknown_format():
    run = read_run(FIXTURES / "synthetic/nanogpt.log", fmt="text")
    assert run.format == "nanogpt" and "loss" in run.series  # the text reader names the dialect it found
    with pytest.raises(IngestError) as exc:
        read_run(FIXTURES / "synthetic/nanogpt.log", fmt="nope")
    assert "unknown format" in str(exc.value)
