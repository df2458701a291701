"""The probes are calibrated on the same matrix: clean setups of common architectures and optimizers at
ordinary settings fail no probe, and each buggy setup is caught by the probe that names its cause.

CI runs the representative part (21 clean setups: every architecture with every optimizer, the LRs in a
Latin square, and three recipes; overfit_one_batch on one setup per architecture); `-m slow` runs all 57
clean setups with every probe at its default step budget. The setups live in calibration.py.
"""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

import calibration as cal
from probe_helpers import load_script
from triage.probes import names

SLOW_PROBES = {"overfit_one_batch"}  # hundreds of steps per setup: its own tests below
QUICK_ARGS = {"lr_schedule": ("--max-steps", "20")}  # a constant LR needs no 200-step dry run


def _clean_params():
    return [s if s in cal.REPRESENTATIVE else pytest.param(s, marks=pytest.mark.slow) for s in cal.CLEAN]


def test_the_matrix_covers_what_the_issue_lists():
    assert len(cal.CLEAN) >= 20 and len(cal.REPRESENTATIVE) >= 20
    grid = [cal.GRID[s] for s in cal.CLEAN if s in cal.GRID]
    assert {a for a, _, _ in grid} == {"cnn_bn", "resnet", "transformer_lm", "gru_lm", "mlp", "vit"}
    assert {o for _, o, _ in grid} == {"adam", "adamw", "sgdm"}
    assert all(1e-4 <= lr <= 3e-3 for _, _, lr in grid)
    rep = [cal.GRID[s] for s in cal.REPRESENTATIVE if s in cal.GRID]
    assert {(a, o) for a, o, _ in rep} == {(a, o) for a, o, _ in grid}  # CI sees every pair
    assert {lr for _, _, lr in rep} == {1e-4, 1e-3, 3e-3}


@pytest.mark.parametrize("setup", _clean_params())
def test_clean_setup_fails_no_probe(setup):
    failed = {}
    for probe in names():
        if probe in SLOW_PROBES or not cal.applicable(probe, setup):
            continue
        result = cal.run(probe, setup, *QUICK_ARGS.get(probe, ()))
        if result["status"] not in ("pass", "inconclusive"):
            failed[probe] = f"{result['status']}: {result['message']}"
    assert not failed, failed


@pytest.mark.slow
@pytest.mark.parametrize("setup", cal.CLEAN)
def test_clean_setup_fails_no_probe_at_default_budgets(setup):
    for probe in sorted(SLOW_PROBES | set(QUICK_ARGS)):
        result = cal.run(probe, setup)
        assert result["status"] in ("pass", "inconclusive"), (probe, result["message"])


@pytest.mark.parametrize("setup", [
    "clean__cnn_bn__adamw__3e-3", "clean__resnet__adam__1e-3", "clean__transformer_lm__adamw__3e-3",
    "clean__gru_lm__adamw__3e-3", "clean__mlp__adam__1e-3", "clean__vit__sgdm__3e-3",
    "clean__recipe__resnet_sgd_label_smoothing",  # label smoothing: the loss floor is the smoothed targets' entropy
])
def test_clean_setup_memorises_its_batch(setup):
    result = cal.run("overfit_one_batch", setup)
    assert result["status"] == "pass", result["message"]
    assert result["answers"] == {"Q-overfit-one-batch": "pass"}


def test_label_smoothing_floor_is_the_entropy_of_the_smoothed_targets():
    result = cal.run("overfit_one_batch", "clean__recipe__resnet_sgd_label_smoothing")
    eps, c = 0.1, cal.C
    hit, other = 1 - eps + eps / c, eps / c
    assert math.isclose(result["measurements"]["loss_floor"], -(hit * math.log(hit) + (c - 1) * other * math.log(other)))


def test_slow_learning_is_inconclusive_not_a_failure():
    """SGD at 1e-4 still lowers the loss steadily after 300 steps: not there yet is not broken."""
    result = cal.run("overfit_one_batch", "clean__mlp__sgdm__1e-4")
    assert result["status"] == "inconclusive", result["message"]
    assert "still falling" in result["message"] and result["answers"] == {}


@pytest.mark.parametrize("setup", list(cal.BUGGY))
def test_buggy_setup_is_caught_by_the_probe_naming_its_cause(setup):
    probe, answers, words = cal.BUGGY[setup]
    result = cal.run(probe, setup)
    assert result["status"] == "fail", result["message"]
    assert {k: result["answers"].get(k) for k in answers} == answers, result["answers"]
    assert words in result["message"], result["message"]


def test_a_loss_below_zero_never_passes_overfit_one_batch():
    """NLLLoss on raw logits is -logit[y]: it starts below zero and dives further; memorising it is no pass."""
    result = cal.run("overfit_one_batch", "bug_nll_negative_from_start")
    assert result["status"] == "fail" and result["answers"] == {"Q-overfit-one-batch": "fail"}
    assert result["measurements"]["first_loss"] < 0
    assert "below zero" in result["message"] and "output_form" in result["message"]


def test_a_loss_negative_by_definition_is_not_failed():
    """PoissonNLLLoss (exp(x) - y x) goes below zero as the rates fit counts above 1: no bug, no 'near zero'."""
    result = cal.run("overfit_one_batch", "clean__recipe__mlp_poisson_counts")
    assert result["status"] == "inconclusive", result["message"]
    assert result["measurements"]["final_loss"] < 0


def test_adam_first_steps_move_each_weight_by_about_the_lr():
    """The premise of the adaptive band: per element, Adam's early step is ~1 LR whatever the weight scale."""
    adam = cal.run("update_ratio", "clean__cnn_bn__adam__1e-3")["measurements"]
    sgd = cal.run("update_ratio", "clean__cnn_bn__sgdm__1e-3")["measurements"]
    assert adam["adaptive"] and not sgd["adaptive"]
    assert 0.5 < adam["step_per_element_over_lr"] <= 1.05
    assert sgd["step_per_element_over_lr"] < 0.1


def test_update_ratio_judges_the_peak_lr_of_a_warmup_that_starts_at_zero():
    result = cal.run("update_ratio", "clean__recipe__gpt_adamw_warmup")
    assert result["status"] == "pass", result["message"]
    assert result["measurements"]["lr"] == [1e-3]


def test_probes_say_why_a_bias_gets_no_gradient():
    grad = cal.run("grad_flow", "clean__cnn_bn__sgdm__1e-3")
    assert grad["status"] == "pass"
    assert set(grad["measurements"]["no_grad_by_design"]) == {"features.0.bias", "features.4.bias"}
    assert "normalization" in grad["message"]
    step = cal.run("step_changes_weights", "clean__cnn_bn__sgdm__1e-3")
    assert step["status"] == "pass", step["message"]


# -- the structural rule for "no gradient by design", checked against autograd on small graphs ------------------


class Chain(nn.Module):
    def __init__(self, *mods, twice=False):
        super().__init__()
        self.mods = nn.ModuleList(mods)
        self.twice = twice

    def forward(self, x):
        y = x
        for m in self.mods:
            y = m(y)
        if self.twice:  # the first layer's output also goes through a ReLU elsewhere
            y = y.mean() + torch.relu(self.mods[0](x)).mean()
        return y


CASES = [
    # name, model, input shape, cancelled by design?
    ("conv -> BatchNorm2d", lambda: Chain(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)), (6, 3, 8, 8), True),
    ("conv -> BatchNorm2d in eval mode", lambda: Chain(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)).eval(), (6, 3, 8, 8), False),
    ("linear -> BatchNorm1d", lambda: Chain(nn.Linear(5, 4), nn.BatchNorm1d(4)), (6, 5), True),
    ("linear on (N, C, L) -> BatchNorm1d(C)", lambda: Chain(nn.Linear(5, 5), nn.BatchNorm1d(3)), (6, 3, 5), False),
    ("linear -> LayerNorm", lambda: Chain(nn.Linear(5, 4), nn.LayerNorm(4)), (6, 5), False),
    ("conv -> InstanceNorm2d", lambda: Chain(nn.Conv2d(3, 4, 3), nn.InstanceNorm2d(4, affine=True)), (6, 3, 8, 8), True),
    ("conv -> GroupNorm, 2 channels per group", lambda: Chain(nn.Conv2d(3, 4, 3), nn.GroupNorm(2, 4)), (6, 3, 8, 8), False),
    ("conv -> GroupNorm, 1 channel per group", lambda: Chain(nn.Conv2d(3, 4, 3), nn.GroupNorm(4, 4)), (6, 3, 8, 8), True),
    ("conv -> in-place ReLU -> BatchNorm2d", lambda: Chain(nn.Conv2d(3, 4, 3), nn.ReLU(inplace=True), nn.BatchNorm2d(4)),
     (6, 3, 8, 8), False),
    ("conv -> BatchNorm2d, and the conv used again elsewhere",
     lambda: Chain(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), twice=True), (6, 3, 8, 8), False),
]


@pytest.mark.parametrize("name,make,shape,cancelled", CASES, ids=[c[0] for c in CASES])
def test_cancelled_bias_rule_agrees_with_autograd(name, make, shape, cancelled):
    watch = load_script("grad_flow").watch_cancelled_biases
    torch.manual_seed(0)
    model = make()
    x = torch.randn(*shape)
    found = {}
    with watch(model, found):
        out = model(x)
    (out * torch.randn_like(out)).sum().backward() if out.dim() else out.backward()
    bias, weight = model.mods[0].bias.grad.norm(), model.mods[0].weight.grad.norm()
    assert ("mods.0.bias" in found) == cancelled, found
    assert (bias < 1e-5 * weight) == cancelled, (float(bias), float(weight))  # what the rule claims, autograd shows
