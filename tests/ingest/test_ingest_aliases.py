"""Canonical names: knowledge/metrics.yaml resolution, version variants, user extensions."""

from __future__ import annotations

import pytest

from triage.ingest import aliases

CASES = [
    ("loss", None, "loss", "train"),
    ("train/loss", None, "loss", "train"),
    ("eval_loss", None, "eval/loss", "eval"),
    ("eval/loss", None, "eval/loss", "eval"),
    ("val_loss", None, "eval/loss", "eval"),
    ("epoch_val_loss", None, "eval/loss", "eval"),
    ("lm loss validation", None, "eval/loss", "eval"),
    ("eval_g0_loss", None, "eval/g0/loss", "eval:g0"),
    ("eval_my_set_accuracy", None, "eval/my_set/accuracy", "eval:my_set"),
    ("test_loss", None, "eval/test/loss", "eval:test"),
    ("val_loss/dataloader_idx_1", None, "eval/dl1/loss", "eval:dl1"),
    ("train_loss_step", "lightning_csv", "loss", "train"),
    ("train_loss_epoch", "lightning_csv", "loss_epoch", "train"),
    ("lr-AdamW", None, "learning_rate", "train"),
    ("lr-AdamW/pg2", None, "learning_rate/pg2", "train"),
    ("grad norm", "megatron", "grad_norm", "train"),
    ("trl", "llmc", "loss", "train"),
    ("tel", "llmc", "eval/loss", "eval"),
    ("completion_length", None, "completions/mean_length", "train"),
    ("clip_ratio/region_mean", None, "clip_ratio", "train"),
    ("sampling/importance_sampling_ratio/min", None, "is_ratio_min", "train"),
    ("memory/max_allocated (GiB)", None, "memory", "train"),
    ("memory/max_mem_allocated(gib)", None, "memory", "train"),
    ("memory/max_memory_allocated", None, "memory", "train"),
    ("rollout/ep_rew_mean", None, "episode_reward", "train"),
    ("charts/episodic_return", None, "episode_reward", "train"),
    ("metrics/mAP50-95(B)", None, "eval/map", "eval"),
    ("mAP@0.5IOU", None, "eval/map50", "eval"),
    ("Top-1 Acc", None, "accuracy", "train"),
    ("eval/Average_loss", None, "eval/loss", "eval"),
    ("eval_rewards/margins", None, "eval/rewards/margins", "eval"),
    ("Learning-Rate", None, "learning_rate", "train"),
    ("some custom key", None, "some_custom_key", "train"),
    ("train/box_loss", None, "box_loss", "train"),
]


@pytest.mark.parametrize("key, source, name, split", CASES)
def test_resolve(key, source, name, split):
    r = aliases.table().resolve(key, source)
    assert (r.name, r.split) == (name, split)


def test_source_restricted_aliases_do_not_leak():
    assert aliases.table().resolve("trl", "jsonl").name == "trl"
    assert aliases.table().resolve("r", "csv").name == "r"
    assert aliases.table().resolve("r", "sb3_monitor").name == "episode_reward"


def test_transforms():
    t = aliases.table()
    assert t.resolve("train/entropy_loss", "sb3_progress").negate
    assert t.resolve("mem-max-allocated-bytes", None).scale == pytest.approx(2 ** -30)


def test_user_metrics_yaml_extends_and_wins(tmp_path, monkeypatch):
    (tmp_path / "metrics.yaml").write_text("metrics:\n  loss:\n    aliases: [my_weird_loss]\n"
                                           "  grad_norm:\n    aliases: [loss_scale]\n")
    monkeypatch.setenv("TRIAGE_KB_PATH", str(tmp_path))
    t = aliases.table()
    assert t.resolve("my_weird_loss").name == "loss"
    assert t.resolve("loss_scale").name == "grad_norm"
    monkeypatch.delenv("TRIAGE_KB_PATH")
    assert aliases.table().resolve("loss_scale").name == "loss_scale"


def test_every_canonical_name_resolves_to_itself():
    t = aliases.table()
    for name in t.canonical:
        assert t.resolve(name).name == name, name


@pytest.mark.parametrize("key, name", [("losses", "loss"), ("val_losses", "eval/loss"), ("accuracies", "accuracy"),
                                       ("status", "status"), ("ms", "ms"), ("bits", "bits")])
def test_a_plural_names_the_same_metric_and_nothing_else_is_singularised(key, name):
    assert aliases.table().resolve(key).name == name


def test_the_only_loss_a_log_has_is_its_training_loss():
    from triage.ingest.builder import RunBuilder

    def build(keys):
        b = RunBuilder("mem", "test")
        for i in range(4):
            for k in keys:
                b.add(k, 1.0 / (i + 1), step=i)
            b.end_row(True, i)
        return b.build()

    run = build(["Depth Loss", "lr"])
    assert "loss" in run.series and run.series["loss"].source_key == "Depth Loss"
    assert any("only loss the log has" in w for w in run.meta["warnings"])
    # two losses of their own (a GAN), or a known part beside it (RL): no guess
    assert "loss" not in build(["D_loss", "G_loss"]).series
    assert "loss" not in build(["policy_loss", "entropy loss"]).series
    # the log already has its loss: the other stays as it is
    assert sorted(build(["loss", "aux loss"]).series) == ["aux_loss", "loss"]


@pytest.mark.parametrize("key,want", [
    ("losses/total_loss", "loss"),                                          # CleanRL-style group
    ("info/learner/default_policy/learner_stats/total_loss", "loss"),     # RLlib result dict, flattened
    ("critic/rewards/mean", "reward"),                                      # verl
    ("metrics/val/acc", "eval/accuracy"),                                   # a split among the groups
    ("mrpc_en_eval_loss", "eval/mrpc_en/loss"),                             # an eval set named before the split
    ("grad-norm vs samples", "grad_norm"),                                  # Megatron's TensorBoard twins
    ("mAP@0.50:0.95", "eval/map"),
    ("AP@[.5:.95]", "eval/map"),
])
def test_a_name_inside_groups_or_sets_resolves(key, want):
    assert aliases.table().resolve(key).name == want


@pytest.mark.parametrize("key", [
    "critic/loss",              # the critic's loss is no training loss
    "conv1/grad_norm",          # one layer's gradient norm is not the model's
    "encoder.layer.0/grad_norm",
    "reward_chosen/reward",     # add_scalars: the group says which reward
    "output/train",             # a bare split word names no metric
    "New best val acc",         # words of a sentence name no eval set
])
def test_a_group_that_qualifies_the_name_keeps_the_key_its_own(key):
    res = aliases.table().resolve(key)
    assert res.name not in ("loss", "grad_norm", "reward", "eval/accuracy") and not res.name.startswith("eval/new")


def test_a_capitalised_split_word_names_the_split_of_an_unknown_name():
    """`Test_Robust_Acc` and `Val_Foo_Bar` are spelled like `test_robust_acc` and `val_foo_bar`: the split
    word names the split even when the rest is no name the table knows (a robust accuracy stays apart
    from the clean one); a capitalised word that is no split word changes nothing."""
    from triage.ingest.aliases import table

    t = table()
    r = t.resolve("Test_Robust_Acc")
    assert (r.name, r.split) == ("eval/test/robust_acc", "eval:test")
    r = t.resolve("Val_Foo_Bar")
    assert (r.name, r.split) == ("eval/foo_bar", "eval")
    r = t.resolve("Robust_Acc")
    assert r.split == "train"
