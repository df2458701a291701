"""Every real sample in ../shared/samples is read: format, row count and the metrics found.

Rows are what the file holds after the documented skips (summary rows, progress-only lines,
golden-value placeholders); metrics are canonical names (knowledge/metrics.yaml).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import SAMPLES
from triage.ingest import read_run

# path -> (format, rows, metrics that must be there, {skip reason: count} that must be there)
EXPECTED = {
    "hf_trainer_state/trainer_state_multi_eval_overfit.json":
        ("hf_state", 216, {"loss", "eval/g0/loss", "eval/g5/loss", "eval/g0/accuracy", "grad_norm", "learning_rate"}, {}),
    "hf_trainer_state/trainer_state_with_summary_row.json":
        ("hf_state", 4, {"loss", "grad_norm", "learning_rate"}, {"summary row": 1}),
    "trl_sft/tinyllama_sft_trainer_state.json":
        ("hf_state", 200, {"loss", "eval/loss", "token_accuracy", "eval/token_accuracy", "tokens_seen", "learning_rate"}, {}),
    "trl_grpo/chaos_economy_grpo_trainer_state.json":
        ("hf_state", 50, {"reward", "reward_std", "frac_reward_zero_std", "kl", "clip_ratio", "completions/clipped_ratio",
                          "completions/mean_length", "rewards/format_reward_fn/mean"}, {}),
    "trl_grpo/tau_bench_grpo_trainer_state.json":
        ("hf_state", 1, {"frac_reward_zero_std", "completions/clipped_ratio", "loss", "reward"}, {}),
    "lightning_csv/gpttt_version_0_metrics.csv": ("lightning_csv", 12, {"loss", "eval/loss"}, {}),
    "lightning_csv/slm_training_version_10_metrics.csv": ("lightning_csv", 136, {"loss", "perplexity"}, {}),
    "lightning_csv/pytorchLit15min_version_0_metrics_old_column_order.csv": ("lightning_csv", 2, {"loss"}, {}),
    "tensorboard/events.out.tfevents.1585769947.cvp":
        ("tensorboard", 102, {"loss", "accuracy", "eval/loss", "eval/accuracy", "epoch_loss"}, {}),
    "tensorboard/tf2_keras_validation.events.out.tfevents.1664085067.DESKTOP-27TFO05.4004.1.v2":
        ("tensorboard", 4, {"loss", "accuracy"}, {}),
    "wandb/run-20230420_073822-clnzftry/run-clnzftry.wandb": ("wandb", 78, {"loss", "learning_rate"}, {}),
    "wandb/run-g9dvvkua.wandb": ("wandb", 0, set(), {}),
    "wandb_legacy/wandb-history.jsonl": ("wandb_legacy", 196, {"episode_reward", "cumulative_avg_reward"}, {"no metrics": 2}),
    "wandb_legacy/wandb-events.jsonl": ("wandb_legacy", 18, {"system.cpu", "system.gpu.0.memoryAllocated"}, {}),
    "sb3/sb3_progress.csv": ("sb3_progress", 102, {"episode_reward", "entropy", "explained_variance", "approx_kl",
                                                  "clip_fraction", "value_loss", "learning_rate"}, {}),
    "sb3/rl-trained-agents_a2c_Acrobot-v1_1_0.monitor.csv": ("sb3_monitor", 345, {"episode_reward", "episode_length"}, {}),
    # (63 tables, one row each; their 914 value lines: a table's further lines are said apart in joined_lines)
    "sb3/sb3_stdout_table_breakout_results.md": ("sb3_stdout", 914, {"episode_reward", "entropy", "approx_kl"}, {}),
    "ultralytics/yolov8_2023_padded_results.csv": ("ultralytics", 25, {"loss", "eval/loss", "eval/map", "eval/map50", "learning_rate",
                                                                       "box_loss", "eval/cls_loss"}, {}),
    "ultralytics/yolo_new_unpadded_results.csv": ("ultralytics", 102, {"loss", "eval/loss", "eval/map", "eval/map50", "eval/precision",
                                                                       "eval/recall"}, {}),
    "llmc/llmc_stdout_gpt2_train.11672114.log": ("llmc", 756, {"loss", "grad_norm", "learning_rate", "eval/loss",
                                                              "throughput", "eval/hellaswag"}, {}),
    "llmc/llmc_main.log.first3000lines": ("llmc", 3000, {"loss", "grad_norm", "learning_rate", "eval/loss",
                                                          "eval/hellaswag"}, {}),
    "llamafactory/sft_trainer_log.jsonl": ("jsonl", 1358, {"loss", "learning_rate"}, {"no metrics": 2}),
    "llamafactory/progress_only_trainer_log.jsonl": ("jsonl", 0, set(), {"no metrics": 102}),
    "megatron/megatron_golden_values_bert_tp1_pp2.json": ("megatron_golden", 50, {"loss", "num_zeros", "memory", "step_time"}, {}),
    "megatron/megatron_golden_values_bert_tp2_pp2_resume_2nd.json":
        ("megatron_golden", 50, {"loss", "num_zeros", "memory"}, {"golden-value placeholder": 251}),
}


@pytest.mark.parametrize("rel", sorted(EXPECTED))
def test_sample(samples, rel):
    fmt, rows, metrics, skipped = EXPECTED[rel]
    run = read_run(samples / rel)
    assert run.format == fmt
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == rows  # (lines at one step: one row)
    assert metrics <= set(run.metrics()), sorted(set(metrics) - set(run.metrics()))
    for reason, count in skipped.items():
        assert run.meta["skipped"].get(reason) == count
    for s in run.series.values():
        assert s.steps.dtype == np.float64 and s.values.dtype == np.float64
        assert len(s.steps) == len(s.values)


def test_every_sample_file_is_covered(samples):
    """A new sample file must get an expectation here (or be a sidecar, not a log)."""
    sidecars = {"PROVENANCE.md", "wandb-summary.json", "config.yaml", "gpttt_version_0_hparams.yaml"}
    files = {p.relative_to(samples).as_posix() for p in samples.rglob("*") if p.is_file()}
    logs = {f for f in files if f.split("/")[-1] not in sidecars and "/mlruns/" not in f and not f.startswith("mlflow/")}
    assert logs <= set(EXPECTED), sorted(logs - set(EXPECTED))


@pytest.mark.parametrize("rel, fmt, metrics", [
    ("mlflow", "mlflow", {"loss", "accuracy"}),
    ("mlflow/mlruns", "mlflow", {"loss", "accuracy"}),
    ("wandb/run-20230420_073822-clnzftry", "wandb", {"loss", "learning_rate"}),
    ("wandb_legacy", "wandb_legacy", {"episode_reward"}),
    ("tensorboard", "tensorboard", {"loss", "eval/loss"}),
])
def test_sample_directories(samples, rel, fmt, metrics):
    run = read_run(samples / rel)
    assert run.format == fmt
    assert metrics <= set(run.metrics())


def test_llamafactory_duplicates_are_dropped_not_lost(samples):
    run = read_run(samples / "llamafactory/sft_trainer_log.jsonl")
    loss = run.get("loss")
    assert run.meta["duplicates"] > 600
    assert len(np.unique(loss.steps)) == len(loss.steps)  # one point per step
    assert (np.diff(loss.steps) > 0).all()
    # two writers interleaving is not a restart; the one resume (5240 -> 5010, from checkpoint-5000) is
    assert run.meta["restarts"] == 1


def test_llmc_nanz_is_not_a_nan_loss(samples):
    run = read_run(samples / "llmc/llmc_stdout_gpt2_train.11672114.log")
    assert run.get("loss").nan_count() == 0
    assert run.get("grad_norm").nan_count() == 0
    assert run.get("eval/loss").steps[0] == 0  # the val loss printed before step 1
    assert any(e.kind == "error" and "CANCELLED" in e.text for e in run.events)


def test_sb3_entropy_sign_and_benign_nan(samples):
    run = read_run(samples / "sb3/sb3_progress.csv")
    ent = run.get("entropy")
    assert ent.source_key == "train/entropy_loss"
    assert (ent.values[np.isfinite(ent.values)] > 0).all()  # -entropy_loss
    assert run.get("explained_variance").nan_count() > 0  # kept: a harmless NaN, but a value
    assert run.get("episode_reward").steps[0] == 10  # x-axis = time/total_timesteps


def test_multi_eval_sets_have_their_split(samples):
    run = read_run(samples / "hf_trainer_state/trainer_state_multi_eval_overfit.json")
    s = run.get("eval/g3/loss")
    assert s.split == "eval:g3"
    assert s.values[-1] > s.values.min() * 1.5  # the overfitting case: eval loss rises again
    assert run.get("loss").split == "train"


def test_summary_row_goes_to_meta(samples):
    run = read_run(samples / "hf_trainer_state/trainer_state_with_summary_row.json")
    assert math.isclose(run.meta["summary"]["train_loss"], 2.382095660103692)
    assert "train_loss_avg" not in run.series and run.get("loss").steps.tolist() == [10, 20, 30, 40]


def test_tf2_tensor_scalars_and_omitted_step(samples):
    run = read_run(samples / "tensorboard/tf2_keras_validation.events.out.tfevents.1664085067.DESKTOP-27TFO05.4004.1.v2")
    assert run.get("loss").steps[0] == 0  # step omitted in the proto = 0
    assert all(np.isfinite(s.values).all() for s in run.series.values())


def test_golden_placeholders_are_not_nan(samples):
    run = read_run(samples / "megatron/megatron_golden_values_bert_tp2_pp2_resume_2nd.json")
    assert run.get("loss").nan_count() == 0
    assert run.get("loss").steps.min() > 50


def test_unsloth_both_length_keys(samples):
    run = read_run(samples / "trl_grpo/chaos_economy_grpo_trainer_state.json")
    assert run.get("completions/mean_length").source_key == "completions/mean_length"
    assert run.get("completion_length").source_key == "completion_length"
    assert run.get("completions/clipped_ratio").values.max() == 1.0


def test_samples_root_name():
    assert SAMPLES.name == "samples"
