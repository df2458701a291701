"""Every probe passes its correct setup and catches its buggy ones for the right reason."""

from __future__ import annotations

from pathlib import Path

import pytest

CASES = [
    # probe, setup, status, expected answers (subset), words the message must contain
    ("overfit_one_batch", "good", "pass", {"Q-overfit-one-batch": "pass"}, "memorised"),
    ("overfit_one_batch", "softmax_ce", "fail", {"Q-overfit-one-batch": "fail"}, "cannot overfit"),
    ("loss_at_init", "good", "pass", {"Q-loss-init": "near"}, "ln(4)"),
    ("loss_at_init", "big_init", "fail", {"Q-loss-init": "high"}, "too large"),
    ("loss_at_init", "nll_on_logits", "fail", {}, "ln(4)"),
    ("optimizer_coverage", "good", "pass", {"Q-opt-optimizer-coverage": "yes", "Q-opt-weight-decay": "none"}, "all 4"),
    ("optimizer_coverage", "head_missing", "fail", {"Q-opt-optimizer-coverage": "no", "Q-weights-change": "no"}, "2.weight"),
    ("optimizer_coverage", "adapter_no_trainable", "fail", {"Q-opt-lora": "none-trainable", "Q-error-kind": "no-grad"},
     "no trainable parameters"),
    ("step_changes_weights", "good", "pass", {"Q-weights-change": "yes", "Q-opt-loop-order": "yes"}, "all 4"),
    ("step_changes_weights", "head_missing", "fail", {"Q-weights-change": "no"}, "not in the optimizer"),
    ("step_changes_weights", "zero_grad_missing", "fail", {"Q-opt-loop-order": "no"}, "zero_grad"),
    ("step_changes_weights", "frozen_changes", "fail", {"Q-weights-change": "frozen-change"}, "frozen"),
    ("grad_flow", "good", "pass", {"Q-gradnorm": "normal"}, "finite gradient"),
    ("grad_flow", "adapter_no_trainable", "fail", {"Q-error-kind": "no-grad", "Q-gradnorm": "zero"}, "no grad_fn"),
    ("grad_flow", "detached_body", "fail", {"Q-gradnorm": "zero"}, "body.0.weight"),
    ("update_ratio", "good_small_lr", "pass", {"Q-opt-update-ratio": "near"}, "median"),
    ("update_ratio", "lr_too_high", "fail", {"Q-opt-update-ratio": "high"}, "too high"),
    ("dead_activations", "good", "pass", {"Q-opt-dead-relu": "no"}, "alive"),
    ("dead_activations", "dead_relu", "fail", {"Q-opt-dead-relu": "yes"}, "100% dead"),
    ("module_modes", "good_frozen_backbone", "pass", {"Q-opt-frozen-bn": "no", "Q-opt-train-mode": "yes"}, "train mode"),
    ("module_modes", "frozen_bn_train_mode", "fail", {"Q-opt-frozen-bn": "yes"}, "0.1"),
    ("module_modes", "eval_mode_training", "fail", {"Q-opt-train-mode": "no"}, "eval mode"),
    ("module_modes", "nondeterministic_eval", "fail", {"Q-eval-pipeline": "train-mode"}, "still random"),
    ("labels", "good", "pass", {"Q-vis-label-values": "consistent"}, "[0, 3] for 4 classes"),
    ("labels", "labels_one_to_c", "fail", {"Q-vis-label-values": "shifted", "Q-error-kind": "device-assert"}, "subtract 1"),
    ("labels", "labels_void_255", "fail", {"Q-vis-label-values": "void-unhandled"}, "ignore_index=255"),
    ("labels", "labels_float", "fail", {"Q-error-kind": "dtype"}, "torch.long"),
    ("input_stats", "good_images", "pass", {"Q-vis-input-stats": "normal"}, "means"),
    ("input_stats", "images_0_255", "fail", {"Q-vis-input-stats": "off-scale"}, "0-255"),
    ("input_stats", "eval_not_normalised", "fail", {"Q-vis-input-stats": "mismatch", "Q-eval-pipeline": "differs"}, "eval"),
    ("output_form", "good", "pass", {"Q-output-loss": "logits-ce"}, "raw logits"),
    ("output_form", "good_log_softmax_nll", "pass", {"Q-output-loss": "logits-ce"}, "NLLLoss"),
    ("output_form", "softmax_ce", "fail", {"Q-output-loss": "softmax-ce"}, "softmax"),
    ("output_form", "softmax_in_loss_fn", "fail", {"Q-output-loss": "softmax-ce"}, "softmax"),
    ("output_form", "nll_on_logits", "fail", {"Q-output-loss": "logits-nll"}, "NLLLoss"),
    ("lr_schedule", "good_schedule", "pass", {"Q-lr-schedule": "yes", "Q-stab-warmup": "enough"}, "warmup 59"),
    ("lr_schedule", "good_schedule_no_loop", "pass", {"Q-lr-schedule": "yes"}, "warmup 59"),
    ("lr_schedule", "scheduler_per_batch", "fail", {"Q-lr-schedule": "wrong-cadence"}, "per batch"),
    ("lr_schedule", "scheduler_other_optimizer", "fail", {"Q-lr-schedule": "flat"}, "different optimizer"),
    ("lr_schedule", "scheduler_before_step", "fail", {"Q-opt-loop-order": "no"}, "before optimizer.step()"),
    ("precision_compare", "good", "pass", {"Q-ops-param-dtype": "fp32"}, "cosine"),
    ("precision_compare", "dropout_dtype_dependent", "pass", {"Q-ops-param-dtype": "fp32"}, "cosine"),
    ("precision_compare", "bf16_fragile", "fail", {"Q-stab-fp32-rerun": "fixed"}, "low precision"),
]


@pytest.mark.parametrize("name,setup,status,answers,words", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_probe(probe, name, setup, status, answers, words):
    code, result, out, err = probe(name, setup)
    assert result is not None, err
    assert result["status"] == status, result["message"]
    assert {k: result["answers"].get(k) for k in answers} == answers, result
    assert words in result["message"], result["message"]
    assert code == {"pass": 0, "fail": 1}[status]
    assert f"{name}: {status.upper()}" in out
    _answers_are_known(name, result)


def _answers_are_known(name, result):
    """Every answer names a real question and one of its values, and the probe's YAML lists the question."""
    from triage import api
    from triage.probes.runner import check_answers, load_result  # noqa: F401

    kb = api.load_kb()
    assert check_answers(result, kb) == []
    declared = set(kb.get(name).get("answers"))
    assert set(result["answers"]) <= declared, f"add {set(result['answers']) - declared} to knowledge/probes/{name}.yaml"


def test_every_probe_has_a_passing_and_a_failing_case():
    from triage.probes import names

    covered = {(c[0], c[2]) for c in CASES} | {("tokenizer", "pass"), ("tokenizer", "fail")}
    for name in names():
        assert (name, "pass") in covered and (name, "fail") in covered, name


@pytest.fixture
def transformers_available():
    pytest.importorskip("transformers")
    pytest.importorskip("tokenizers")


@pytest.mark.usefixtures("transformers_available")
@pytest.mark.parametrize("setup,status,answers,words", [
    ("good_tokenizer", "pass", {"Q-llm-pad-token": "set", "Q-llm-padding-side": "per-phase", "Q-llm-labels-masked": "both"},
     "pad token '<pad>'"),
    ("tokenizer_without_pad", "fail", {"Q-llm-pad-token": "unset", "Q-error-kind": "pad-token"}, "no pad token"),
    ("tokenizer_right_pad_generation", "fail", {"Q-llm-padding-side": "right-for-generation"}, "padding_side='left'"),
])
def test_tokenizer_probe(probe, setup, status, answers, words):
    code, result, out, err = probe("tokenizer", setup)
    assert result["status"] == status, result["message"]
    assert {k: result["answers"].get(k) for k in answers} == answers, result
    assert words in result["message"]
    _answers_are_known("tokenizer", result)


RESTORING = ["overfit_one_batch", "step_changes_weights", "update_ratio", "lr_schedule", "module_modes",
             "grad_flow", "precision_compare", "dead_activations", "loss_at_init"]


@pytest.mark.parametrize("name", RESTORING)
def test_probe_restores_what_it_changed(probe, tmp_path, name):
    """The probe works on the user's objects: weights, grads, modes, optimizer, scheduler come back as they were."""
    import sys
    import types

    import torch

    sys.path.insert(0, str(Path(__file__).parent))
    import probe_setups as setups

    st = setups.good_schedule()
    st["model"][0].requires_grad_(True)
    shared = types.ModuleType("_probe_shared_state")
    shared.STATE = st
    sys.modules[shared.__name__] = shared
    setup_file = tmp_path / "shared_setup.py"
    setup_file.write_text("import sys\n\ndef make():\n    return sys.modules['_probe_shared_state'].STATE\n")
    weights = {k: v.clone() for k, v in st["model"].state_dict().items()}
    opt_state = str(st["optimizer"].state_dict())
    lr = [g["lr"] for g in st["optimizer"].param_groups]
    epoch = st["scheduler"].last_epoch
    modes = [m.training for m in st["model"].modules()]
    try:
        code, result, out, err = probe(name, "make", setup_file=setup_file)
    finally:
        del sys.modules[shared.__name__]
    assert result["status"] in ("pass", "fail", "inconclusive"), result
    after = st["model"].state_dict()
    assert all(torch.equal(weights[k], after[k]) for k in weights)
    assert str(st["optimizer"].state_dict()) == opt_state
    assert [g["lr"] for g in st["optimizer"].param_groups] == lr
    assert st["scheduler"].last_epoch == epoch
    assert [m.training for m in st["model"].modules()] == modes
    assert all(p.grad is None for p in st["model"].parameters())
    assert "zero_grad" not in vars(st["optimizer"]) and "step" not in vars(st["scheduler"])
