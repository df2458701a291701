"""The rules a person applies to a few rows: published healthy ranges, the arithmetic of a bug
(ln C, 1/C, the clamps of saturated cross-entropies, N x for undivided accumulation), relations
between metrics, and shapes judged against the run's own noise.

Each case builds a tiny `Run` in the test, the broken one and its closest healthy look-alike,
and runs every detector of the shipped knowledge on both: the broken run must raise the named
finding, the healthy one none at all.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from triage.detect import run_detectors
from triage.detect import facts
from triage.ingest.run import Run, Series
from triage.kb.base import KnowledgeBase

KB = KnowledgeBase.load()


def make_run(series: dict, steps: dict | None = None, config: dict | None = None) -> Run:
    """A run from {name: values}; steps default to 1..n per series."""
    run = Run("mem", "test")
    for name, values in series.items():
        v = np.asarray(values, dtype=float)
        s = np.asarray((steps or {}).get(name, np.arange(1, len(v) + 1)), dtype=float)
        split = "eval" if name.startswith("eval/") else "train"
        run.series[name] = Series(name, split, s, v)
    if config:
        run.meta["config"] = config
    return run


def fired(run: Run) -> set[str]:
    return {f.detector for f in run_detectors(run, KB)}


def decay(n: int, start: float, end: float, noise: float = 0.02, seed: int = 0) -> np.ndarray:
    t = np.arange(n) / n
    y = end + (start - end) * np.exp(-t / 0.25)
    return y * (1 + noise * np.random.default_rng(seed).standard_normal(n))


# -- one row is enough --------------------------------------------------------------------
def test_one_row_grpo_without_signal():
    broken = make_run({"frac_reward_zero_std": [1.0], "reward_std": [0.0], "reward": [0.0], "loss": [0.0], "grad_norm": [0.0]})
    assert {"det-grpo-frac-zero-std", "det-grpo-reward-std-zero"} <= fired(broken)
    healthy = make_run({"frac_reward_zero_std": [0.25], "reward_std": [0.31], "reward": [0.2], "loss": [0.004], "grad_norm": [0.21]})
    assert fired(healthy) == set()


def test_one_row_dpo_that_scores_nothing():
    row = {"loss": [0.6931], "rewards/margins": [0.0], "rewards/accuracies": [0.0]}
    broken = make_run({**row, "logps/chosen": [0.0], "logps/rejected": [0.0]})
    assert "det-dpo-logps-zero" in fired(broken)
    first_step = make_run({**row, "logps/chosen": [-251.3], "logps/rejected": [-263.9]})  # policy == reference: ln 2 is right
    assert fired(first_step) == set()


def test_one_row_absurd_loss():
    assert "det-loss-absurd" in fired(make_run({"loss": [4.2e23], "accuracy": [0.1]}))
    assert fired(make_run({"loss": [8585.3]})) == set()  # a summed loss in the thousands is ordinary


def test_one_row_eval_nan_without_a_training_loss():
    assert "det-eval-nan" in fired(make_run({"eval/loss": [float("nan")]}))
    assert fired(make_run({"eval/loss": [1.2]})) == set()


def test_one_row_error_rate_at_100_percent():
    assert "det-eval-error-max" in fired(make_run({"eval/wer": [100.0], "eval/loss": [726.9]}))
    assert fired(make_run({"eval/wer": [31.4], "eval/loss": [3.1]})) == set()


# -- the arithmetic of a failure ----------------------------------------------------------
def test_chance_from_accuracy_alone():
    """ln C with accuracy at 1/C for 25 epochs, and no config to say C: C = 1/accuracy."""
    rng = np.random.default_rng(1)
    broken = make_run({"loss": math.log(10) + 0.003 * rng.standard_normal(25), "accuracy": 0.1 + 0.003 * rng.standard_normal(25)})
    assert "det-loss-near-ln-c" in fired(broken)
    healthy = make_run({"loss": decay(25, 2.3, 0.35), "accuracy": np.linspace(0.1, 0.9, 25)})
    assert fired(healthy) == set()


def test_chance_needs_the_accuracy_to_agree():
    """A loss at 2.30 with an accuracy of 0.62 is not a model at chance over 10 classes."""
    run = make_run({"loss": np.full(25, 2.3026), "accuracy": np.full(25, 0.62)})
    assert "det-loss-near-ln-c" not in fired(run)


@pytest.mark.parametrize(("clamp", "detector"), [
    (16.1181, "det-loss-saturated-keras"),   # Keras clips probabilities at 1e-7
    (87.3365, "det-loss-saturated-fltmin"),  # -ln(FLT_MIN)
    (100.0, "det-loss-bce-clamp"),           # BCELoss clamps log at -100
])
def test_saturated_cross_entropy_is_clamp_times_error_rate(clamp, detector):
    acc = np.round(0.1 + 0.002 * np.random.default_rng(2).standard_normal(25), 4)
    assert detector in fired(make_run({"loss": clamp * (1 - acc), "accuracy": acc}))
    # the same accuracy with an ordinary loss: no clamp
    assert fired(make_run({"loss": decay(25, 2.3, 1.9), "accuracy": np.linspace(0.1, 0.35, 25)})) == set()


def test_constants_behind_the_clamps():
    assert -math.log(1e-7) == pytest.approx(16.1181, abs=1e-4)
    assert -math.log(1.17549435e-38) == pytest.approx(87.3365, abs=1e-4)


def test_double_softmax_floor_with_classes_from_the_first_loss():
    """No config: the first loss at init, ln 10, gives C; the floor log(1 + 9/e) = 1.46 follows."""
    n = 400
    floor = math.log(1 + 9 / math.e)
    y = floor + (math.log(10) - floor) * np.exp(-np.arange(n) / 60) + 0.01 * np.random.default_rng(3).standard_normal(n)
    assert "det-loss-softmax-floor" in fired(make_run({"loss": y}, steps={"loss": np.arange(n)}))
    ok = decay(n, math.log(10), 0.3)
    assert "det-loss-softmax-floor" not in fired(make_run({"loss": ok}, steps={"loss": np.arange(n)}))


def test_no_class_count_from_the_first_loss_of_a_run_that_scores_tokens():
    """A chat model fine-tuned on new text can start at 2.3 (its entropy on that text, not ln 10) and
    settle near 1.5: beside a token accuracy the first loss names no label set, so no double-softmax
    floor is read from it; without the token accuracy the same curve is read as one."""
    n = 400
    floor = math.log(1 + 9 / math.e)
    y = floor + (math.log(10) - floor) * np.exp(-np.arange(n) / 60) + 0.01 * np.random.default_rng(3).standard_normal(n)
    assert "det-loss-softmax-floor" in fired(make_run({"loss": y}, steps={"loss": np.arange(n)}))
    tok = np.linspace(0.57, 0.64, n)
    assert "det-loss-softmax-floor" not in fired(make_run({"loss": y, "token_accuracy": tok},
                                                          steps={"loss": np.arange(n), "token_accuracy": np.arange(n)}))


def test_a_loss_below_the_double_softmax_floor_rules_it_out():
    """A healthy run that settles near log(1 + (C-1)/e) but logs values clearly below it is not a double softmax:
    the floor bounds every sample's loss."""
    n = 400
    floor = math.log(1 + 9 / math.e)
    y = floor + (math.log(10) - floor) * np.exp(-np.arange(n) / 60) + 0.01 * np.random.default_rng(3).standard_normal(n)
    y[-40::7] = floor - 0.1  # a few batches well under the floor
    assert "det-loss-softmax-floor" not in fired(make_run({"loss": y}, steps={"loss": np.arange(n)}))


def test_classes_from_first_loss_only_at_init():
    assert facts.classes_from_first_loss(np.array([0.0, 10.0]), np.array([2.3026, 1.9])) == 10
    assert facts.classes_from_first_loss(np.array([5000.0, 5010.0]), np.array([2.3026, 1.9])) is None


def test_undivided_accumulation_logs_n_times_the_eval_loss():
    ev = decay(10, 2.2, 0.5, noise=0.01, seed=4)
    steps = {"loss": np.arange(1, 301), "eval/loss": np.arange(30, 301, 30)}
    noise = 1 + 0.03 * np.random.default_rng(5).standard_normal(300)
    broken = make_run({"loss": np.repeat(ev * 8, 30) * noise, "eval/loss": ev}, steps, {"gradient_accumulation_steps": 8})
    assert "det-train-eval-accum" in fired(broken)
    divided = make_run({"loss": np.repeat(ev * 1.05, 30) * noise, "eval/loss": ev}, steps, {"gradient_accumulation_steps": 8})
    assert fired(divided) == set()


# -- relations between metrics ------------------------------------------------------------
def test_eval_loss_identical_at_every_evaluation():
    steps = {"loss": np.arange(1, 301), "eval/loss": np.arange(30, 301, 30)}
    train = decay(300, 2.3, 0.6)
    assert "det-eval-frozen" in fired(make_run({"loss": train, "eval/loss": np.full(10, 2.302585)}, steps))
    assert fired(make_run({"loss": train, "eval/loss": decay(10, 2.2, 0.7, noise=0.01)}, steps)) == set()


def test_one_frozen_evaluation_per_epoch_row():
    """An epoch-per-line print (`[epoch 3/5] train_loss: ... val_loss: ...`) or a Keras CSVLogger
    row evaluates once per row: the same eval loss on every row is several frozen evaluations,
    not the last evaluation printed again with each training line."""
    train = [1.1723, 1.1716, 1.1699, 1.1696, 1.1690]
    for axis in ("step_axis", "x_axis"):
        run = make_run({"loss": train, "eval/loss": [1.1695] * 5})
        run.meta[axis] = "epoch"
        assert "det-eval-frozen" in fired(run), axis
    steps_run = make_run({"loss": train, "eval/loss": [1.1695] * 5})  # rows that are steps: one eval repeated
    assert "det-eval-frozen" not in fired(steps_run)


def test_eval_loss_blowup_over_three_epochs_with_the_training_loss_rising():
    """Three epoch rows are enough when both losses end worse than they began; an eval loss that
    rises while the training loss falls is overfitting, not this."""
    steps = {"loss": [1, 2, 3], "eval/loss": [1, 2, 3]}
    assert "det-eval-loss-blowup" in fired(make_run({"loss": [0.36, 0.12, 0.6], "eval/loss": [0.33, 0.48, 3.6]}, steps))
    overfit = fired(make_run({"loss": [0.36, 0.12, 0.05], "eval/loss": [0.33, 0.48, 3.6]}, steps))
    assert "det-eval-loss-blowup" not in overfit


def test_eval_accuracy_at_chance_while_training_learns():
    steps = {"loss": np.arange(1, 301), "eval/accuracy": np.arange(30, 301, 30)}
    train = decay(300, 2.3, 0.3)
    chance = 0.1 + 0.004 * np.random.default_rng(6).standard_normal(10)
    assert "det-eval-chance" in fired(make_run({"loss": train, "eval/accuracy": chance}, steps, {"num_classes": 10}))
    assert fired(make_run({"loss": train, "eval/accuracy": np.linspace(0.3, 0.9, 10)}, steps, {"num_classes": 10})) == set()


def test_eval_at_or_below_chance_while_training_accuracy_climbs():
    """A slow memoriser (shuffled labels): its loss barely moves, its training accuracy leaves chance
    behind, and the evaluation stays at (or under) 1/C."""
    steps = {k: np.arange(6) for k in ("loss", "accuracy", "eval/accuracy", "eval/loss")}
    series = {"loss": [1.626, 1.595, 1.577, 1.555, 1.526, 1.494], "accuracy": [0.2, 0.25, 0.28, 0.3, 0.34, 0.36],
              "eval/loss": [1.63, 1.64, 1.63, 1.68, 1.68, 1.67]}
    below = [0.165, 0.127, 0.177, 0.16, 0.182, 0.193]
    assert "det-eval-chance" in fired(make_run({**series, "eval/accuracy": below}, steps, {"num_classes": 5}))
    # the training accuracy still near chance too: nothing learned anywhere, not an evaluation fault
    flat = {**series, "accuracy": [0.2, 0.21, 0.2, 0.22, 0.21, 0.22]}
    assert "det-eval-chance" not in fired(make_run({**flat, "eval/accuracy": below}, steps, {"num_classes": 5}))


def test_dead_run_at_chance_is_not_an_eval_problem():
    """Train loss back at ln C too: the model died; the eval is not the one at fault."""
    steps = {"loss": np.arange(1, 301), "eval/accuracy": np.arange(30, 301, 30)}
    loss = np.full(300, math.log(10)); loss[:5] = [3.5, 9.0, 4.0, 3.0, 2.6]
    run = make_run({"loss": loss, "eval/accuracy": np.full(10, 0.1)}, steps, {"num_classes": 10})
    assert "det-eval-chance" not in fired(run)


def test_wer_getting_worse_over_three_evaluations():
    steps = {"eval/wer": [500, 1000, 1500]}
    assert "det-eval-error-rising" in fired(make_run({"eval/wer": [0.45, 0.52, 0.61]}, steps))
    assert fired(make_run({"eval/wer": [0.61, 0.52, 0.47]}, steps)) == set()


def test_eval_loss_climbs_while_accuracy_holds():
    steps = {"loss": np.arange(1, 301), "eval/loss": np.arange(30, 301, 30), "eval/accuracy": np.arange(30, 301, 30)}
    train = decay(300, 2.0, 0.1)
    up = [1.0, 0.7, 0.6, 0.61, 0.66, 0.72, 0.8, 0.87, 0.93, 1.0]
    hold = [0.6, 0.75, 0.8, 0.81, 0.8, 0.81, 0.8, 0.81, 0.8, 0.81]
    assert "det-eval-loss-rising-acc-holds" in fired(make_run({"loss": train, "eval/loss": up, "eval/accuracy": hold}, steps))
    late_bump = [1.0, 0.7, 0.6, 0.58, 0.57, 0.56, 0.57, 0.58, 0.59, 0.6]  # a few percent at the end: ordinary
    assert fired(make_run({"loss": train, "eval/loss": late_bump, "eval/accuracy": hold}, steps)) == set()


def test_eval_accuracy_falls_while_train_loss_falls():
    n = 250
    rng = np.random.default_rng(7)
    train = decay(n, 0.69, 0.3)
    peak = np.concatenate([np.linspace(0.5, 0.77, 150), np.linspace(0.77, 0.65, 100)]) + 0.015 * rng.standard_normal(n)
    assert "det-eval-accuracy-falling" in fired(make_run({"loss": train, "eval/accuracy": peak}))
    plateau = np.minimum(np.linspace(0.5, 0.9, n), 0.77) + 0.015 * rng.standard_normal(n)
    assert fired(make_run({"loss": train, "eval/accuracy": plateau})) == set()


def test_level_shift_right_after_the_first_evaluation_only():
    base = decay(300, 2.3, 0.8, seed=8)
    steps = {"loss": np.arange(1, 301), "eval/loss": [100, 200, 300]}
    once = base.copy(); once[100:] *= 0.7
    assert "det-loss-shift-after-eval" in fired(make_run({"loss": once, "eval/loss": [1.9, 1.3, 1.1]}, steps))
    stairs = base.copy(); stairs[100:] *= 0.85; stairs[200:] *= 0.85  # a step at every epoch is healthy
    assert "det-loss-shift-after-eval" not in fired(make_run({"loss": stairs, "eval/loss": [1.9, 1.3, 1.1]}, steps))
    assert fired(make_run({"loss": base, "eval/loss": [1.9, 1.3, 1.1]}, steps)) == set()


def test_loss_that_tracks_real_tokens_per_batch():
    rng = np.random.default_rng(9)
    real = rng.integers(2000, 8000, 300).astype(float)
    per_token = decay(300, 3.0, 1.2, noise=0.01)
    assert "det-loss-tracks-tokens" in fired(make_run({"loss": per_token * real / 8192.0, "ntokens": real}))
    assert fired(make_run({"loss": per_token, "ntokens": real})) == set()


# -- shapes against the run's own noise ---------------------------------------------------
def test_small_jumps_on_a_smooth_loss_are_spikes():
    lm = decay(2000, 10.9, 2.2, noise=0.004, seed=10)
    jumps = lm.copy()
    for at in (900, 1500):
        jumps[at:at + 30] *= 1 + 0.35 * np.exp(-np.arange(30) / 10.0)
    assert "det-loss-jumps" in fired(make_run({"loss": jumps}))
    assert fired(make_run({"loss": lm})) == set()


def test_heavy_tailed_batch_losses_near_zero_are_not_spikes():
    """A converged classifier's per-batch loss swings tenfold from batch to batch: its own
    noise, not a spike (the ratio alone would call 0.02 -> 0.3 a 15x spike)."""
    rng = np.random.default_rng(11)
    y = np.concatenate([decay(100, 1.0, 0.05), 0.03 * np.exp(1.0 * rng.standard_normal(400))])
    assert not {"det-loss-spikes", "det-divergence", "det-loss-jumps"} & fired(make_run({"loss": y}))


def test_loss_still_falling_in_a_straight_line_when_the_schedule_ran_out():
    n = 300
    lr = np.concatenate([np.linspace(1e-7, 1e-6, 10), 1e-6 * 0.5 * (1 + np.cos(np.pi * np.linspace(0, 1, n - 10)))])
    line = 2.30 - 0.5 * np.arange(n) / n + 0.01 * np.random.default_rng(12).standard_normal(n)
    assert "det-loss-still-falling" in fired(make_run({"loss": line, "learning_rate": lr}))
    assert fired(make_run({"loss": decay(n, 2.3, 0.4), "learning_rate": lr})) == set()


def test_straight_fall_in_an_excerpt_from_the_middle_is_not_judged():
    n = 300
    line = 2.30 - 0.5 * np.arange(n) / n + 0.01 * np.random.default_rng(13).standard_normal(n)
    run = make_run({"loss": line}, steps={"loss": np.arange(50_000, 50_000 + n)})
    assert "det-loss-still-falling" not in fired(run)


def test_noise_estimates():
    rng = np.random.default_rng(14)
    white = rng.standard_normal(5000)
    assert facts.noise(white) == pytest.approx(1.0, rel=0.1)
    assert facts.trend_noise(white + np.linspace(0, 50, 5000)) == pytest.approx(1.0, rel=0.1)  # a trend does not count


def test_chance_on_a_slightly_unbalanced_eval_set_is_told_apart_by_the_loss():
    """An eval accuracy of 10.6% reads as 1/9 on its own; with the loss at 2.30 = ln 10 it is ten
    classes at chance, and the loss at ln C is a model predicting every class alike."""
    steps = {"loss": [1, 2, 3, 4, 5, 6], "eval/accuracy": [1, 2, 3, 4, 5, 6]}
    run = make_run({"loss": [2.47, 2.35, 2.32, 2.311, 2.312, 2.311], "eval/accuracy": [0.1064] * 6}, steps)
    assert "det-loss-near-ln-c" in fired(run)


def test_a_loss_of_exactly_zero_where_the_log_starts_is_no_starting_level():
    """A running mean over its first three examples can print 0.000000; the rise from there to the
    loss's real level (0.33, 0.45, 0.36, ...) is no climb."""
    y = [0.0, 0.333, 0.4545, 0.3636, 0.403, 0.467, 0.447, 0.472, 0.4295, 0.38, 0.3, 0.2, 0.12]
    steps = {"loss": [3, 6, 11, 22, 44, 87, 174, 348, 696, 1392, 2784, 5568, 11135]}
    assert not {"det-loss-climbs", "det-loss-explosion"} & fired(make_run({"loss": y}, steps))


def test_a_loss_pinned_at_ln_2_names_its_classes_without_an_accuracy():
    """No accuracy and no label count: every point within 0.005 of ln 2 is a binary model at chance;
    a loss in the thousands never asks for exp(loss)."""
    flat = make_run({"loss": [0.6975, 0.6908, 0.6922, 0.6919, 0.6914, 0.6925, 0.6930, 0.6921]})
    assert "det-loss-near-ln-c" in fired(flat)
    moving = make_run({"loss": [0.75, 0.72, 0.70, 0.69, 0.66, 0.62, 0.58, 0.55]})
    assert "det-loss-near-ln-c" not in fired(moving)
    assert "det-loss-near-ln-c" not in fired(make_run({"loss": [3.0e4, 2.9e4, 2.95e4, 3.1e4, 3.0e4, 2.9e4]}))


def test_a_contrastive_loss_pinned_at_ln_batch_on_a_half_precision_grid():
    """InfoNCE over a batch of 4096 pairs scores ln 4096 = 8.318 when no pair is told apart; a loss
    printed from fp16 lands on its grid (8.3203, 8.3125: a step of 0.0078 at that size), one step off
    ln B on some points. A loss wandering over 0.05 around the same level is no pin."""
    pinned = make_run({"loss": [8.320312, 8.320312, 8.320312, 8.3125, 8.320312]}, {"loss": [90, 100, 110, 120, 130]})
    assert "det-loss-near-ln-c" in fired(pinned)
    wandering = make_run({"loss": [8.30, 8.35, 8.29, 8.34, 8.31]}, {"loss": [90, 100, 110, 120, 130]})
    assert "det-loss-near-ln-c" not in fired(wandering)


def test_a_loss_that_differs_only_in_its_last_double_bits_is_pinned():
    """`0.013182825077950069` then `...067` at every iteration: the same loss summed in another
    order, not a loss that moves; one that changes in the 9th digit does move."""
    a, b = 0.013182825077950069, 0.013182825077950067
    assert "det-loss-pinned" in fired(make_run({"loss": [a, b] * 14}))
    assert "det-loss-pinned" not in fired(make_run({"loss": [a, a * (1 + 1e-8)] * 14}))


def test_chance_from_the_loss_pools_the_train_and_eval_accuracy():
    """Beyond ten classes the loss names C only with an accuracy near e^-loss: a train and an eval
    accuracy over a few hundred samples each land either side of 1/C, and their pooled reading
    counts (ln 50 with 0.037 and 0.013); a model right 15% of the time at that loss has learned."""
    steps = {k: [1, 2, 3, 4, 5] for k in ("loss", "accuracy", "eval/accuracy")}
    at_chance = make_run({"loss": [3.901, 3.911, 3.929, 3.908, 3.909], "accuracy": [0.045, 0.034, 0.016, 0.037, 0.037],
                          "eval/accuracy": [0.034, 0.031, 0.016, 0.013, 0.034]}, steps)
    assert "det-loss-near-ln-c" in fired(at_chance)
    learned = make_run({"loss": [3.901, 3.911, 3.929, 3.908, 3.909], "accuracy": [0.15, 0.16, 0.15, 0.17, 0.16],
                        "eval/accuracy": [0.14, 0.15, 0.15, 0.16, 0.15]}, steps)
    assert "det-loss-near-ln-c" not in fired(learned)


def test_a_nan_in_a_loss_term_when_no_total_is_logged():
    """A GAN's G_loss goes NaN (no series is called `loss`); an eval loss term or a loss scale that
    overflows is not it."""
    g = np.linspace(2.0, 1.5, 100)
    g[80:] = np.nan
    assert "det-loss-part-nan" in fired(make_run({"D_loss": np.linspace(0.7, 0.6, 100), "G_loss": g}))
    scale = np.full(100, 65536.0)
    scale[50] = np.inf
    quiet = make_run({"D_loss": np.linspace(0.7, 0.6, 100), "loss_scale": scale, "eval/loss_cls": np.full(100, np.nan)})
    assert not {"det-loss-part-nan", "det-loss-part-nan-early"} & fired(quiet)


def test_a_nan_cost_or_negative_log_likelihood_term_is_a_nan_loss_term():
    """`Train_Cost` (a loop printing its cost under its own name) and XGBoost's `train-gamma-nloglik`
    are losses by name: NaN from the first row is a NaN loss, not an unknown metric gone odd."""
    assert "det-loss-part-nan-early" in fired(make_run({"Train_Cost": [np.nan] * 10, "loss": np.linspace(2.3, 0.3, 10)}))
    assert "det-loss-part-nan-early" in fired(make_run({"gamma-nloglik": [np.nan] * 10}))
    assert not {"det-loss-part-nan", "det-loss-part-nan-early"} & fired(make_run({"gamma-nloglik": np.linspace(3, 1, 10)}))
    # CycleGAN prints its terms as D_A, G_A, cycle_A, idt_A: every one NaN is a NaN loss
    gan = {k: [np.nan] * 7 for k in ("D_A", "G_A", "cycle_A", "idt_A", "D_B", "G_B")}
    assert "det-loss-part-nan-early" in fired(make_run(gan))


def test_a_loss_pinned_at_ln_of_a_common_vocabulary_is_uniform_over_tokens():
    """10.8259 on every step is ln 50304 (GPT-2's vocabulary padded to a multiple of 64): the model
    gives every token the same probability, which is chance, not a degenerate data set."""
    found = fired(make_run({"loss": [10.8259] * 12}))
    assert "det-loss-near-ln-c" in found and "det-loss-pinned" not in found
    assert "det-loss-near-ln-c" not in fired(make_run({"loss": [10.60] * 12}))


def test_whole_number_list_parameters_are_checked():
    from triage.detect.checks import ChanceParams
    from triage.kb.params import parse

    ok, problems = parse(ChanceParams, {"loss_only_vocab": [50257, 32000]})
    assert ok is not None and ok.loss_only_vocab == (50257, 32000) and not problems
    bad, problems = parse(ChanceParams, {"loss_only_vocab": ["gpt2"]})
    assert problems and "whole numbers" in problems[0].message


def test_a_huge_loss_falling_while_the_accuracy_climbs_is_a_summed_loss():
    """A self-supervised speech loss summed over a batch (2.1e4 -> 1.7e4) beside a contrastive
    accuracy 0.36 -> 0.43: both readings improve together, so the size is its units, not a blow-up;
    the same loss beside an accuracy that does not move is still absurd for a classifier."""
    steps = {"loss": [18223, 36446], "eval/accuracy": [18223, 36446]}
    learning = make_run({"loss": [2.13e4, 1.66e4], "eval/accuracy": [0.3597, 0.4266]}, steps)
    assert "det-loss-ce-absurd" not in fired(learning)
    stuck = make_run({"loss": [2.13e4, 1.66e4], "eval/accuracy": [0.3597, 0.3601]}, steps)
    assert "det-loss-ce-absurd" in fired(stuck)


def test_one_box_term_at_zero_beside_another_that_moves_is_a_branch_switched_off():
    """A semi-supervised detector's unlabelled RPN box loss is 0 by design while its supervised box
    losses move; a run whose only box term is 0 while the classification moves has no matched boxes."""
    n = 6
    base = {"loss": np.linspace(1.2, 1.0, n), "loss_cls": np.linspace(0.4, 0.3, n)}
    off = make_run({**base, "unsup_loss_rpn_bbox": np.zeros(n), "sup_loss_rpn_bbox": np.linspace(0.17, 0.15, n)})
    assert "det-box-loss-zero" not in fired(off)
    none_matched = make_run({**base, "loss_rpn_bbox": np.zeros(n)})
    assert "det-box-loss-zero" in fired(none_matched)


def test_a_loss_never_finite_beside_a_high_auroc_is_a_loss_not_computed():
    """An anomaly detector that fits feature statistics shows `loss=nan` in its bar beside a pixel
    AUROC of 0.985: NaN weights rank nothing, so the NaN is a loss the method never computes. The
    same NaN beside an AUROC at chance is a NaN loss."""
    scored = make_run({"loss": [np.nan], "pixel_AUROC": [0.985]}, {"loss": [0], "pixel_AUROC": [0]})
    assert not {"det-loss-nan-early", "det-loss-nan", "det-loss-part-nan-early"} & fired(scored)
    chance = make_run({"loss": [np.nan], "pixel_AUROC": [0.5]}, {"loss": [0], "pixel_AUROC": [0]})
    assert {"det-loss-nan-early", "det-loss-part-nan-early"} & fired(chance)


def test_an_eval_nan_ahead_of_the_first_training_log_is_eval_only():
    """An evaluation at epoch 9.0 is NaN and the first training log, at 9.5, is finite: nothing
    before it says otherwise, so the training stays finite there (the eval set scores 0/0)."""
    run = make_run({"eval/loss": [np.nan], "loss": [0.3877]}, {"eval/loss": [9.0], "loss": [9.5]})
    assert "det-eval-nan" in fired(run)


def test_a_psnr_that_turns_nan_is_a_nan_evaluation():
    """PSNR is finite for any finite output (an exact copy is +Inf): a validation PSNR of NaN is NaN
    outputs or a mean over no images. A PSNR that only rises is no finding."""
    nan = make_run({"psnr": [21.5, np.nan], "ssim": [0.63, np.nan]}, {"psnr": [11400, 11600], "ssim": [11400, 11600]})
    assert "det-eval-nan" in fired(nan)
    fine = make_run({"psnr": [21.5, 22.1]}, {"psnr": [11400, 11600]})
    assert "det-eval-nan" not in fired(fine)


def test_a_score_above_100_is_out_of_range_in_any_scale():
    """NDCG is normalised by the best DCG the labels allow: 112 is beyond 1 and beyond 100%.
    A recall printed in percent (55-60) is in range, and so is a perfect 100.0."""
    steps = {"eval/ndcg@10": [0, 1, 2]}
    assert "det-score-out-of-range" in fired(make_run({"eval/ndcg@10": [1.33, 112.3, 118.7]}, steps))
    assert "det-score-out-of-range" not in fired(make_run({"eval/ndcg@10": [41.3, 44.9, 100.0]}, steps))


def test_a_held_out_score_that_decays_from_its_best_and_stays_down():
    """An anomaly detector's AUC peaks at 0.989 and ends near 0.75 over sixteen evaluations: worse at the
    task it is scored on. One that dips and comes back to its best, or plateaus near it, is no finding."""
    steps = {"auc": list(range(1, 17))}
    decays = [0.975, 0.981, 0.989, 0.93, 0.88, 0.84, 0.80, 0.79, 0.77, 0.78, 0.75, 0.76, 0.74, 0.75, 0.73, 0.748]
    assert "det-eval-score-decays" in fired(make_run({"auc": decays}, steps))
    returns = [0.975, 0.981, 0.989, 0.93, 0.88, 0.84, 0.90, 0.95, 0.97, 0.98, 0.985, 0.99, 0.988, 0.99, 0.989, 0.99]
    assert "det-eval-score-decays" not in fired(make_run({"auc": returns}, steps))


def test_recall_at_k_at_k_over_n_is_a_random_ranking():
    """1 true response among 10 candidates: recall@10 is 1 by construction, and recall@1/@2/@5 at
    0.12/0.20/0.48 is K/10, what a random order gives. A trained ranker at 0.54/0.71/0.92 is not."""
    steps = {k: [100, 200, 300] for k in ("recall_at_1", "recall_at_2", "recall_at_5", "recall_at_10")}
    rand = {"recall_at_1": [0.122, 0.121, 0.121], "recall_at_2": [0.199, 0.2, 0.197],
            "recall_at_5": [0.48, 0.479, 0.483], "recall_at_10": [1.0, 1.0, 1.0]}
    assert "det-recall-at-k-chance" in fired(make_run(rand, steps))
    learned = {"recall_at_1": [0.48, 0.52, 0.54], "recall_at_2": [0.66, 0.69, 0.71],
               "recall_at_5": [0.90, 0.91, 0.92], "recall_at_10": [1.0, 1.0, 1.0]}
    assert "det-recall-at-k-chance" not in fired(make_run(learned, steps))


def test_a_loss_that_starts_at_ln_2_and_goes_negative_is_a_cross_entropy_with_targets_out_of_range():
    """A sigmoid cross-entropy starts at ln 2 and is never below 0 for targets in [0, 1]: 0.713 at step 1,
    then -0.158, is graded labels fed to it. A loss that starts elsewhere (a density's NLL) may go below 0."""
    steps = {"loss": [1, 101, 201, 301]}
    assert "det-loss-negative-from-ln2" in fired(make_run({"loss": [0.7131, 0.2213, 0.0412, -0.158]}, steps))
    assert "det-loss-negative-from-ln2" not in fired(make_run({"loss": [2.91, 1.20, 0.41, -0.158]}, steps))


def test_a_loss_term_that_explodes_in_a_run_with_no_total():
    """A basis-fitting loop logs its MSE and a scaled loss but no total: the MSE climbs from 72 to
    3e5. A generator's loss that climbs while its discriminator improves is adversarial, not a blow-up."""
    up = [72.4, 70.1, 66.0, 61.2, 58.3, 55.9, 53.3, 54.0, 60.2, 120.5, 1840.0, 326800.0, 10048.0]
    assert "det-loss-term-explosion" in fired(make_run({"Real_MSE_Loss": up}))
    gan = make_run({"G_GAN_Loss": up, "D_real": np.linspace(0.7, 0.1, len(up))})
    assert "det-loss-term-explosion" not in fired(gan)


def test_a_low_loss_at_the_start_of_a_regression_is_its_scale_not_a_bug():
    """An MSE that starts at 0.05 and is below 0.01 from its second log says nothing beside an RMSE: the
    targets are small. The same loss with no regression metric is reported as suspiciously low."""
    n = 300
    loss = np.r_[0.05, 0.008 * np.exp(-np.arange(n - 1) / 80)]
    assert "det-loss-low-start" in fired(make_run({"loss": loss}, steps={"loss": np.arange(49, 49 + 50 * n, 50)}))
    both = make_run({"loss": loss, "rmse": np.sqrt(loss)}, steps={"loss": np.arange(49, 49 + 50 * n, 50),
                                                               "rmse": np.arange(49, 49 + 50 * n, 50)})
    assert "det-loss-low-start" not in fired(both)


def test_an_eval_loss_frozen_while_the_eval_scores_move_is_no_frozen_model():
    """The eval loss repeats 3.404297 at its last five evaluations. With the eval accuracy of the same
    evaluations moving (0.9475, 0.95, ...) the weights did change: the loss is computed wrongly, and
    det-eval-frozen stays quiet. With the accuracy repeating too, the evaluated weights are the same."""
    steps = [0, 102, 204, 306, 408, 510, 612, 714, 816]
    ev = [3.4451, 3.4102, 3.4061, 3.4058, 3.404297, 3.404297, 3.404297, 3.404297, 3.404297]
    train = np.linspace(1.4, 0.03, 17)
    tsteps = np.linspace(0, 816, 17)
    moving = make_run({"eval/loss": ev, "eval/accuracy": [0.9125, 0.945, 0.9425, 0.945, 0.9475, 0.95, 0.95, 0.95, 0.9475],
                       "loss": train}, steps={"eval/loss": steps, "eval/accuracy": steps, "loss": tsteps})
    assert "det-eval-frozen" not in fired(moving)
    still = make_run({"eval/loss": ev, "eval/accuracy": [0.9125, 0.945, 0.9425, 0.945] + [0.9475] * 5, "loss": train},
                     steps={"eval/loss": steps, "eval/accuracy": steps, "loss": tsteps})
    assert "det-eval-frozen" in fired(still)
