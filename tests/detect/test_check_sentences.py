"""Each check's own sentence and numbers, on a run built here with numbers worked out by hand.

The fixture tests (test_detectors.py) say that a detector fires; these say what it then tells the
person: the words, the values, the steps and the `numbers` a report shows. One test per check that
had none; the expected figures come from the arithmetic in each docstring, not from running it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from triage.detect.checks import CHECKS, PARAMS, Ctx
from triage.detect.params import parse
from triage.ingest.run import Run, Series, TextEvent


def _run(series: dict, steps: dict | None = None, config: dict | None = None) -> Run:
    run = Run("mem", "test")
    for name, values in series.items():
        v = np.asarray(values, dtype=float)
        s = np.asarray((steps or {}).get(name, np.arange(1, len(v) + 1)), dtype=float)
        run.series[name] = Series(name, "eval" if name.startswith("eval/") else "train", s, v)
    if config:
        run.meta["config"] = config
    return run


def _check(name: str, run: Run, metric: str, **params):
    """Run check `name` on `metric` of `run` with `params` as a detector's YAML would give them."""
    typed, problems = parse(PARAMS[name], params)
    assert not problems, problems
    s = run.series[metric]
    hit = CHECKS[name](Ctx(run, metric, s.steps, s.values, typed))
    assert hit is not None, f"{name} did not fire"
    return hit


def test_flat():
    """2.0 for 10 points then 2.04 for 30: the ends (median of 4 points each) are 2 and 2.04, +2.0%."""
    hit = _check("flat", _run({"loss": [2.0] * 10 + [2.04] * 30}), "loss")
    assert hit.summary == "loss is flat: 2 at the start, 2.04 at the end (+2.0%) over steps 1-40"
    assert hit.numbers["rel"] == pytest.approx(0.02)
    assert (hit.first_step, hit.last_step) == (1, 40)


def test_crawl():
    """2 - 0.002 i for 50 points: ends 1.996 (i=2) and 1.906 (i=47), a drop of 0.09 / 1.996 = 4.5%."""
    hit = _check("crawl", _run({"loss": 2.0 - 0.002 * np.arange(50)}), "loss")
    assert hit.summary == "loss only fell 4.5% (2 -> 1.91) over steps 1-50, and is still falling steadily"
    assert hit.numbers["drop"] == pytest.approx(0.09 / 1.996)


def test_early_collapse():
    """The LR peaks at 1e-3 on step 1 and is 1e-6 from step 6 on: index 5 of 30 is 17% in."""
    lr = [1e-3] * 5 + [1e-6] * 25
    hit = _check("early_collapse", _run({"learning_rate": lr}), "learning_rate")
    assert hit.summary == ("learning_rate fell from its peak 0.001 (step 1) to 1.00e-06 by step 6, "
                           "17% into the run, and stays there")
    assert hit.numbers == {"peak": 1e-3, "at": pytest.approx(5 / 30)}


def test_stepwise_drops():
    """1e-3 for four logs, then divided by 10 at each of the next four (steps 5-8), then flat: four drops in
    a row, 1e4x in all; two drops in a row, or cuts of 2x, are no run of three."""
    lr = [1e-3] * 4 + [1e-3 * 0.1 ** k for k in range(1, 5)] + [1e-7] * 4
    hit = _check("stepwise_drops", _run({"learning_rate": lr}), "learning_rate")
    assert hit.summary == ("learning_rate fell by 5x or more at each of 4 logs in a row, from 0.001 (step 4) to "
                           "1.00e-07 (step 8), 1e+04x in all")
    assert hit.numbers == {"drops": 4, "fell_by": pytest.approx(1e4)}
    _quiet("stepwise_drops", _run({"learning_rate": [1e-3] * 4 + [1e-4, 1e-5] + [1e-5] * 6}), "learning_rate")
    _quiet("stepwise_drops", _run({"learning_rate": [1e-3 * 0.5 ** k for k in range(12)]}), "learning_rate")
    _quiet("stepwise_drops", _run({"learning_rate": [1e-3 * 0.1 ** k for k in range(6)]}), "learning_rate")
    # a fall that ends at exactly 0 (an LR zeroed at the end) gives no ratio, and no division by zero
    hit = _check("stepwise_drops", _run({"learning_rate": [1e-3] * 4 + [1e-4, 1e-5, 0.0] + [0.0] * 5}), "learning_rate")
    assert hit.summary.endswith("to 0 (step 7)") and hit.numbers == {"drops": 3}


def test_resume_replay():
    """Warmup 1e-4 -> 1e-3 over steps 1-5, decay to 3e-4 by step 12; the run resumed at step 10 (logged up to
    12 before): from step 10 on the LR replays its warmup from 1e-4. A resume that goes on where it stood, or a
    new run appended from the first step, is quiet."""
    lr = [1e-4, 3e-4, 5e-4, 8e-4, 1e-3, 9e-4, 8e-4, 7e-4, 6e-4, 1e-4, 3e-4, 5e-4, 8e-4]
    run = _run({"learning_rate": lr})
    run.meta["resumed_at"] = [[10.0, 12.0]]
    hit = _check("resume_replay", run, "learning_rate")
    assert hit.summary == ("learning_rate starts over at the resume: the step went back from 12 to 10, and "
                           "learning_rate went from 6.00e-04 to 1.00e-04, where the run began (1.00e-04 at step 1), "
                           "instead of going on from where it stood")
    assert hit.first_step == 10
    going_on = _run({"learning_rate": lr[:9] + [5.5e-4, 5e-4, 4.5e-4, 4e-4]})
    going_on.meta["resumed_at"] = [[10.0, 12.0]]
    _quiet("resume_replay", going_on, "learning_rate")
    appended = _run({"learning_rate": lr})
    appended.meta["resumed_at"] = [[1.0, 12.0]]
    _quiet("resume_replay", appended, "learning_rate")
    _quiet("resume_replay", _run({"learning_rate": lr}), "learning_rate")  # no resume found by the reader


def test_halvings():
    """65536 for 22 points, then halved at each of the last 8: eight halvings after the first 20."""
    scale = [65536.0] * 22 + [65536.0 / 2 ** k for k in range(1, 9)]
    hit = _check("halvings", _run({"loss_scale": scale}), "loss_scale")
    assert hit.summary == "loss_scale halved 8 times after the first 20 points"
    assert hit.numbers == {"halvings": 8} and hit.first_step == 23


def test_halvings_below_the_floor():
    """A scale that comes down to 1 (from 1.5: not a halving) has collapsed all the same."""
    hit = _check("halvings", _run({"loss_scale": [1.5] * 25 + [1.0] * 5}), "loss_scale")
    assert hit.summary == "loss_scale fell to 1 or below at step 26 (min 1)"
    assert hit.numbers == {"halvings": 0} and hit.first_step == 26


def test_halvings_floor_needs_a_fall():
    """0.5 where the log starts was not seen to fall through 1 (fairseq runs sit there): quiet; a
    scale printed as 0.000 has collapsed whatever it was before."""
    params = {"collapsed": 1e-3}
    typed, _ = parse(PARAMS["halvings"], params)
    run = _run({"loss_scale": [1.0, 1.0, 0.5, 0.5]})
    s = run.series["loss_scale"]
    assert CHECKS["halvings"](Ctx(run, "loss_scale", s.steps, s.values, typed)) is None
    hit = _check("halvings", _run({"loss_scale": [0.0, 0.0]}), "loss_scale", **params)
    assert hit.summary == "loss_scale fell to 0.001 or below at step 1 (min 0)"


def test_halvings_collapsed_below_two_to_the_minus_five():
    """A scale already under 1 where the log starts is judged by its level: 0.0625 down to 0.0039 is
    past 1/32 (gradients overflowing fp16 even divided by 32); 0.25, where healthy fairseq runs dip, is not."""
    hit = _check("halvings", _run({"loss_scale": [0.0625, 0.0625, 0.0156, 0.0039]}), "loss_scale", collapsed=0.03125)
    assert hit.summary == "loss_scale fell to 0.0312 or below at step 3 (min 0.0039)"
    _quiet("halvings", _run({"loss_scale": [0.5, 0.25, 0.25, 0.5, 1.0]}), "loss_scale", collapsed=0.03125)


def test_log_band():
    """0.1 everywhere is two decades above 1e-3: every point is far, on the high side."""
    hit = _check("log_band", _run({"update_ratio": [0.1] * 10}), "update_ratio", answer_high="too-high")
    assert hit.summary == "update_ratio is more than 1 decade(s) from 0.001 on 100% of points (median 0.1, too high)"
    assert hit.answer == "too-high"


def test_no_warmup_spike():
    """The LR is at its peak from step 1; the loss starts at 2 and jumps to 6 (3.0x) at step 6, and
    is still above 1.5x its start at the next log."""
    loss = [2.0] * 5 + [6.0, 4.0] + [1.9] * 93
    hit = _check("no_warmup_spike", _run({"learning_rate": [1e-3] * 100, "loss": loss}), "learning_rate")
    assert hit.summary == "learning_rate starts at its peak 0.001 (no warmup) and loss jumps to 6 (3.0x its start) at step 6"
    assert (hit.first_step, hit.last_step) == (1, 6)


def test_no_warmup_spike_at_the_second_log_then_above_the_start():
    """A fresh LM at 11.6 jumps to 28.5 at its second log and stays above 11.6 for the next three logs
    (13.4, 14.9, 13.1) before it falls: the start is read from the other first logs, not the spike."""
    loss = [11.62, 28.5, 13.44, 14.94, 13.12] + [11.0 - 0.1 * i for i in range(25)]
    hit = _check("no_warmup_spike", _run({"learning_rate": [1e-3] * 30, "loss": loss}), "learning_rate")
    assert hit.summary == "learning_rate starts at its peak 0.001 (no warmup) and loss jumps to 28.5 (2.3x its start) at step 2"


def test_no_warmup_spike_not_one_batch():
    """A single per-batch loss above the bar, the logs around it back at the start's level, is one
    hard batch: no finding."""
    loss = [2.0] * 5 + [6.0] + [1.9] * 94
    run = _run({"learning_rate": [1e-3] * 100, "loss": loss})
    s, (typed, _) = run.series["learning_rate"], parse(PARAMS["no_warmup_spike"], {})
    assert CHECKS["no_warmup_spike"](Ctx(run, "learning_rate", s.steps, s.values, typed)) is None


def test_no_warmup_spike_quiet_while_the_word_error_rate_keeps_falling():
    """The same early jump is quiet when the eval WER (every 10 steps from step 5) falls from 0.48 at the spike to 0.34,
    its best, at the last evaluation; with the WER back at 0.47 at the end it fires."""
    loss = [2.0] * 5 + [6.0, 4.0] + [1.9] * 93
    params = {"unless_improving_lower": ["eval/wer"]}
    steps = {"eval/wer": list(range(5, 100, 10))}
    falling = [0.48, 0.45, 0.43, 0.41, 0.40, 0.38, 0.37, 0.36, 0.35, 0.34]
    _quiet("no_warmup_spike", _run({"learning_rate": [1e-3] * 100, "loss": loss, "eval/wer": falling}, steps),
           "learning_rate", **params)
    back = falling[:-2] + [0.45, 0.47]
    assert _check("no_warmup_spike", _run({"learning_rate": [1e-3] * 100, "loss": loss, "eval/wer": back}, steps),
                  "learning_rate", **params) is not None


def test_flat_when_scheduled():
    run = _run({"learning_rate": [5e-5] * 20}, config={"lr_scheduler_type": "cosine", "warmup_steps": 100})
    hit = _check("flat_when_scheduled", run, "learning_rate")
    assert hit.summary == ("learning_rate is constant at 5.00e-05 over 20 points although the config sets "
                           "lr_scheduler_type=cosine, warmup_steps=100")
    # a scheduler that acts only when its metric stalls may never act in a run that keeps improving
    _quiet("flat_when_scheduled", _run({"learning_rate": [5e-5] * 20}, config={"lr_scheduler": "ReduceLROnPlateau"}),
           "learning_rate")


def test_below_configured():
    """Trainer config learning_rate 2e-3, logged LR warming to 2e-5 at step 20 then decaying: the peak is
    2e-3 / 2e-5 = 100x below; the same curve logged only from step 160 of 200 proves nothing; a peak of
    4e-4 (5x below) is within what a schedule's factor allows at 0.1; a config without the Trainer's keys
    is not read."""
    cfg = {"learning_rate": 2e-3, "lr_scheduler_type": "linear", "logging_steps": 5}
    steps = np.arange(5, 205, 5, dtype=float)
    lr = np.where(steps <= 20, 2e-5 * steps / 20, 2e-5 * (200 - steps) / 180)
    params = {"config_keys": ["learning_rate"], "require_keys": ["lr_scheduler_type", "logging_steps"]}
    hit = _check("below_configured", _run({"learning_rate": lr}, {"learning_rate": steps}, cfg), "learning_rate", **params)
    assert hit.summary == ("learning_rate peaks at 2.00e-05 (step 20), 100x below the learning_rate = 0.002 in the "
                           "run's config, over 40 points")
    late = steps >= 160
    _quiet("below_configured", _run({"learning_rate": lr[late]}, {"learning_rate": steps[late]}, cfg),
           "learning_rate", **params)
    _quiet("below_configured", _run({"learning_rate": lr * 20}, {"learning_rate": steps}, cfg), "learning_rate", **params)
    _quiet("below_configured", _run({"learning_rate": lr}, {"learning_rate": steps}, {"learning_rate": 2e-3}),
           "learning_rate", **params)


def test_below_configured_any_config_past_its_peak():
    """A printed config's lr 2e-3 against a rate that warms to 4e-6 and decays: 500x below, read from `lr`
    (the first key holding a number); the same warmup cut off before its peak (still climbing at the last
    point) may be a warmup under way and is not read; a word under the key is no number."""
    steps = np.arange(10, 230, 10, dtype=float)
    lr = np.where(steps <= 20, 4e-6 * steps / 20, 4e-6 * 0.5 * (1 + np.cos(np.pi * (steps - 20) / 200)))
    params = {"config_keys": ["lr", "learning_rate"], "factor": 0.01, "past_peak": True}
    hit = _check("below_configured", _run({"learning_rate": lr}, {"learning_rate": steps}, {"lr": 2e-3}),
                 "learning_rate", **params)
    assert hit.summary == ("learning_rate peaks at 4.00e-06 (step 20), 500x below the lr = 0.002 in the "
                           "run's config, over 22 points")
    climbing = 4e-6 * steps / steps[-1]
    _quiet("below_configured", _run({"learning_rate": climbing}, {"learning_rate": steps}, {"lr": 2e-3}),
           "learning_rate", **params)
    _quiet("below_configured", _run({"learning_rate": lr}, {"learning_rate": steps}, {"lr": "auto"}),
           "learning_rate", **params)


def test_above_configured():
    """A printed config's lr 5e-4 against a rate logged at a constant 3.2e-2 (5e-4 x 64): every point is 64x
    the configured rate; a warmup that starts below 10x the config (its lowest point 3.2e-3, 6.4x) is not
    read, nor is a config that names its own peak (max_lr) or holds no number under the key."""
    steps = np.arange(10, 200, 10, dtype=float)
    lr = np.full(len(steps), 3.2e-2)
    params = {"config_keys": ["lr", "learning_rate"], "unless_keys": ["max_lr"], "factor": 10.0}
    hit = _check("above_configured", _run({"learning_rate": lr}, {"learning_rate": steps}, {"lr": 5e-4}),
                 "learning_rate", **params)
    assert hit.summary == ("learning_rate is 0.032 or more at all 19 points (steps 10-190), 64x the lr = 5.00e-04 "
                           "in the run's config")
    assert hit.numbers == {"ratio": pytest.approx(64.0)}
    warm = np.minimum(3.2e-2, 3.2e-3 * steps / 10)
    _quiet("above_configured", _run({"learning_rate": warm}, {"learning_rate": steps}, {"lr": 5e-4}),
           "learning_rate", **params)
    _quiet("above_configured", _run({"learning_rate": lr}, {"learning_rate": steps}, {"lr": 5e-4, "max_lr": 0.05}),
           "learning_rate", **params)
    _quiet("above_configured", _run({"learning_rate": lr}, {"learning_rate": steps}, {"lr": "auto"}),
           "learning_rate", **params)


def test_at_first_log():
    """A DPO margin of 4.7 at step 1 is read (before any update it must be 0); the same margin first logged
    at step 10 averages updates already; 0.2 is within the bound."""
    steps = np.arange(1, 21, dtype=float)
    margins = 4.7 + 0.08 * (steps - 1)
    hit = _check("at_first_log", _run({"rewards/margins": margins}, {"rewards/margins": steps}), "rewards/margins",
                 op="abs>", value=0.5)
    assert hit.summary == "rewards/margins is 4.7 at step 1, the first update"
    _quiet("at_first_log", _run({"rewards/margins": margins}, {"rewards/margins": steps * 10}), "rewards/margins",
           op="abs>", value=0.5)
    _quiet("at_first_log", _run({"rewards/margins": margins - 4.5}, {"rewards/margins": steps}), "rewards/margins",
           op="abs>", value=0.5)


def test_warmup_overdue():
    """lr 3e-3 with warmup_steps 500, logged every 25 steps to 625 while the warmup advances once per epoch
    (1/500 of it per 25 steps): still rising at 625 and at 1.5e-4, 20x below; a log that stops before step
    500 is a warmup under way; a warmup that reached the rate and decays is quiet; an epoch axis is not read."""
    steps = np.arange(25, 650, 25, dtype=float)
    slow = 3e-3 * (steps / 25) / 500
    cfg = {"lr": 3e-3, "warmup_steps": 500}
    hit = _check("warmup_overdue", _run({"learning_rate": slow}, {"learning_rate": steps}, cfg), "learning_rate")
    assert hit.summary == ("learning_rate is still rising at step 625, past the warmup_steps = 500 of the run's config, "
                           "and has reached only 1.50e-04, 20x below its lr = 0.003")
    early = steps < 500
    _quiet("warmup_overdue", _run({"learning_rate": slow[early]}, {"learning_rate": steps[early]}, cfg), "learning_rate")
    right = np.where(steps <= 500, 3e-3 * steps / 500, 3e-3 * (650 - steps) / 150)
    _quiet("warmup_overdue", _run({"learning_rate": right}, {"learning_rate": steps}, cfg), "learning_rate")
    run = _run({"learning_rate": slow}, {"learning_rate": steps}, cfg)
    run.meta["step_axis"] = "epoch"
    _quiet("warmup_overdue", run, "learning_rate")


def test_per_other():
    """SB3 PPO's n_updates against time/iterations: one epoch per rollout reads 0.909 (n_updates lags by one
    rollout) on every row; ten per rollout is quiet; without the iteration counter there is nothing to divide by."""
    steps = np.arange(1, 21, dtype=float) * 512
    iters = np.arange(1, 21, dtype=float)
    one = np.where(iters > 1, iters - 1, np.nan)
    hit = _check("per_other", _run({"n_updates": one, "time/iterations": iters},
                                   {"n_updates": steps, "time/iterations": steps}), "n_updates",
                 per=["time/iterations"], at_most=1.05)
    assert hit.summary == ("n_updates per time/iterations is 0.909 (median of 19 rows, steps 1,024-10,240), "
                           "at most 1.05 on 100% of them")
    _quiet("per_other", _run({"n_updates": one * 10, "time/iterations": iters},
                             {"n_updates": steps, "time/iterations": steps}), "n_updates", per=["time/iterations"], at_most=1.05)
    _quiet("per_other", _run({"n_updates": one}, {"n_updates": steps}), "n_updates", per=["time/iterations"], at_most=1.05)


def test_config_at_least():
    """dropout = 0.9 in the config against at_least 0.8 fires on the loss's 10 points (steps 1-10); 0.5 is
    under the bound, a yes/no or a word is no number, the first key that holds a number decides, and a
    keep probability printed beside it says the other convention is meant."""
    params = {"keys": ["dropout", "drop_rate"], "at_least": 0.8, "unless_keys": ["keep_prob"]}
    loss = np.linspace(2.0, 1.0, 10)
    hit = _check("config_at_least", _run({"loss": loss}, config={"dropout": 0.9, "lr": 0.01}), "loss", **params)
    assert hit.summary == "dropout = 0.9 in the run's config, at or above 0.8"
    assert (hit.first_step, hit.last_step) == (1, 10)
    assert hit.numbers["value"] == pytest.approx(0.9)
    hit = _check("config_at_least", _run({"loss": loss}, config={"dropout": True, "drop_rate": 0.85}), "loss", **params)
    assert "drop_rate = 0.85" in hit.summary
    _quiet("config_at_least", _run({"loss": loss}, config={"dropout": 0.5}), "loss", **params)
    _quiet("config_at_least", _run({"loss": loss}, config={"dropout": 0.5, "drop_rate": 0.9}), "loss", **params)
    _quiet("config_at_least", _run({"loss": loss}, config={"dropout": "0.9"}), "loss", **params)
    _quiet("config_at_least", _run({"loss": loss}, config={"dropout": 0.9, "keep_prob": 0.9}), "loss", **params)
    _quiet("config_at_least", _run({"loss": loss}), "loss", **params)


def test_term_at_chance():
    """cls_loss cycles ln 4 - 0.03, ln 4, ln 4 + 0.03 (median ln 4 = 1.386) over 20 points while reg_loss
    falls evenly from 1.0 to 0.1 (medians of its first and last two points: 0.976 and 0.124); a cls_loss
    that falls too, a reg_loss that only loses a third, or an eval term stay quiet."""
    cls = [math.log(4) + (-0.03, 0.0, 0.03)[i % 3] for i in range(20)]
    reg = list(np.linspace(1.0, 0.1, 20))
    run = _run({"cls_loss": cls, "reg_loss": reg})
    hit = _check("term_at_chance", run, "cls_loss")
    assert hit.summary == ("cls_loss stays at ln 4 = 1.386 (median 1.39) over 20 points while reg_loss fell from 0.976 "
                           "to 0.124: that head predicts every class alike while the rest of the model learns")
    _quiet("term_at_chance", _run({"cls_loss": list(np.linspace(1.4, 0.3, 20)), "reg_loss": reg}), "cls_loss")
    _quiet("term_at_chance", _run({"cls_loss": cls, "reg_loss": list(np.linspace(1.0, 0.67, 20))}), "cls_loss")
    _quiet("term_at_chance", _run({"eval/cls_loss": cls, "reg_loss": reg}), "eval/cls_loss")


def test_constant_unless_fell_before():
    """eval/accuracy 1.0 at steps 75, 150, 225; the loss logged at steps 5..70 falls 1.39 -> 0.93 (33%)
    before the first evaluation: an easy task solved before it was first scored. Logged only from step
    75 on (no point before), or flat before it, the accuracy is read as pinned."""
    params = {"value": 1.0, "fraction": True, "min_share": 1.0, "min_count": 2, "min_points": 2,
              "unless_fell_before": ["loss"], "fell_before_by": 0.2}
    acc_steps = [75.0, 150.0, 225.0]
    loss_steps = list(np.arange(5.0, 230.0, 5.0))
    falling = list(np.linspace(1.39, 0.93, 14)) + [0.9] * (len(loss_steps) - 14)
    steps = {"eval/accuracy": acc_steps, "loss": loss_steps}
    _quiet("constant", _run({"eval/accuracy": [1.0] * 3, "loss": falling}, steps), "eval/accuracy", **params)
    flat = [1.39] * len(loss_steps)
    hit = _check("constant", _run({"eval/accuracy": [1.0] * 3, "loss": flat}, steps), "eval/accuracy", **params)
    assert hit.summary.startswith("eval/accuracy is exactly 1")
    late = {"eval/accuracy": acc_steps, "loss": loss_steps[14:]}
    assert _check("constant", _run({"eval/accuracy": [1.0] * 3, "loss": falling[14:]}, late), "eval/accuracy",
                  **params) is not None


def test_both_falling():
    """Chosen -100 -> -200 and rejected -110 -> -215 (medians of 3 points at each end), margin 0."""
    run = _run({"logps/chosen": [-100.0] * 10 + [-200.0] * 10, "logps/rejected": [-110.0] * 10 + [-215.0] * 10,
                "rewards/margins": [0.0] * 20})
    hit = _check("both_falling", run, "logps/chosen", margin="rewards/margins")
    assert hit.summary == "logps/chosen fell from -100 to -200 and logps/rejected from -110 to -215 while the margin stayed near 0"


def test_before_nonfinite():
    """The grad norm is 1 for 15 points and 50 for the 5 before the loss goes NaN at step 21: 50x."""
    loss = [2.0] * 20 + [np.nan]
    run = _run({"grad_norm": [1.0] * 15 + [50.0] * 5, "loss": loss})
    hit = _check("before_nonfinite", run, "grad_norm", answer_rise="exploding")
    assert hit.summary == "grad_norm rose to 50 (50x its median 1) in the 5 points before loss first went non-finite at step 21"
    assert hit.answer == "exploding" and hit.numbers == {"ratio": 50.0}
    assert (hit.first_step, hit.last_step) == (16, 21)


def test_overflow_events():
    """16 overflow lines at steps 10..160, the scale halving to 2: 6 of them after the first 10."""
    run = _run({"loss": [1.0] * 5})
    run.events = [TextEvent(i, "overflow", "Gradient overflow. Skipping step", step=10.0 * i, value=2.0 ** (17 - i))
                  for i in range(1, 17)]
    hit = _check("overflow_events", run, "loss")
    assert hit.summary == "16 loss-scale overflow / skipped-step lines, 6 after the first 10 (steps 110-160), scale down to 2"
    assert hit.numbers == {"events": 16} and (hit.first_step, hit.last_step) == (110, 160)
    # calibration down to 0.25, then seven overflows that each set the scale back to 4: the scaler
    # probing twice the scale and backing off, an equilibrium
    values = [2.0 ** (6 - i) for i in range(9)] + [4.0] * 7
    run.events = [TextEvent(i, "overflow", "overflow detected, setting loss scale to", step=10.0 * i, value=v)
                  for i, v in enumerate(values, 1)]
    typed, _ = parse(PARAMS["overflow_events"], {})
    assert CHECKS["overflow_events"](Ctx(run, "loss", run.series["loss"].steps, run.series["loss"].values, typed)) is None


def test_halvings_through_the_floor_and_back():
    """Down to 0.25 while calibrating, then back up to 8: no collapse (one ending at 1 is)."""
    typed, _ = parse(PARAMS["halvings"], {})
    run = _run({"loss_scale": [0.25, 0.5, 2.0] + [4.0] * 30 + [8.0] * 10})
    s = run.series["loss_scale"]
    assert CHECKS["halvings"](Ctx(run, "loss_scale", s.steps, s.values, typed)) is None
    hit = _check("halvings", _run({"loss_scale": [0.25, 0.5, 2.0] + [4.0] * 30 + [1.0] * 10}), "loss_scale")
    assert hit.summary == "loss_scale halved once after the first 20 points and fell to 1 or below at step 34 (min 1)"


def test_spike_per_step_needs_two_points():
    """A per-step loss at 3.5 with two one-step jumps to 5 (two odd batches): quiet with
    per_step_min_len 2; the same jumps lasting three steps each are spikes."""
    rng = np.random.default_rng(0)
    base = 3.5 + 0.01 * rng.standard_normal(200)
    one = base.copy()
    one[[80, 150]] = 5.0
    params = {"factor": 1.25, "z": 8.0, "min_spikes": 2, "per_step_min_len": 2}
    typed, _ = parse(PARAMS["spike"], params)
    run = _run({"loss": one})
    s = run.series["loss"]
    assert CHECKS["spike"](Ctx(run, "loss", s.steps, s.values, typed)) is None
    three = base.copy()
    three[80:83] = 5.0
    three[150:153] = 5.0
    hit = _check("spike", _run({"loss": three}), "loss", **params)
    assert hit.numbers["spikes"] == 2 and hit.summary.endswith("all recovered")


def test_post_warmup_stall():
    """Warmup reaches 1e-3 at step 10 while the loss falls 3.0 -> 2.1 (medians 2.95 and 2.15 of two
    points each: 27%); then the loss holds at 2.0 for the next 10 points (+0.0%)."""
    lr = [1e-4 * (i + 1) for i in range(10)] + [1e-3] * 30
    loss = [3.0 - 0.1 * i for i in range(10)] + [2.0] * 30
    hit = _check("post_warmup_stall", _run({"learning_rate": lr, "loss": loss}), "learning_rate")
    assert hit.summary == "loss fell 27% during warmup (to step 10), then went +0.0% over the next 10 points at the peak learning_rate 0.001"


def test_ratio_below():
    steps = {"eval/f1": [100, 200, 300, 400, 500], "eval/accuracy": [100, 200, 300, 400, 500]}
    run = _run({"eval/f1": [0.3] * 5, "eval/accuracy": [0.9] * 5}, steps)
    hit = _check("ratio_below", run, "eval/f1")
    assert hit.summary == ("eval/f1 is 0.3 while eval/accuracy is 0.9 on 100% of the last 5 evaluations "
                           "(steps 100-500): good eval/accuracy, poor eval/f1")
    assert hit.numbers == {"share": 1.0}


def test_rebound():
    """Falls 3 -> 1 over 30 points, holds 1 for 10, then sits at 1.5 for 60. The 5-point running mean
    first reaches 1 at index 33 (step 34); the start is the median of 5 points (3 - 4/29 = 2.86)."""
    y = list(np.linspace(3.0, 1.0, 30)) + [1.0] * 10 + [1.5] * 60
    hit = _check("rebound", _run({"loss": y}), "loss")
    assert hit.summary == "loss fell from 2.86 to 1 by step 34, then climbed back to 1.5 (+50%) and stayed there to step 100"
    assert hit.numbers == {"low": pytest.approx(1.0), "end": 1.5, "rise": pytest.approx(0.5)}


def test_rel_to_start_a_steady_climb_from_the_first_logs():
    """118.8 -> 223 -> 485 -> 1010 -> 5834 (a traffic-forecasting loss diverging from its second log): too
    few points come before the rise to measure the run's swings, so they are measured around its trend,
    where a steady climb is no noise; a loss that swings tenfold up and down is still no explosion."""
    run = _run({"loss": [118.7926, 223.1799, 485.1459, 1010.2618, 5834.1489]})
    hit = _check("rel_to_start", run, "loss", factor=2.0, min_share=0.5, start_points=2, min_points=5, z=6.0)
    assert hit.summary.startswith("loss exploded to 5.83e+03 at step 5, 34x its starting level 171")
    _quiet("rel_to_start", _run({"loss": [0.5, 0.05, 0.6, 0.04, 0.7, 0.06]}), "loss",
           factor=2.0, min_share=0.5, start_points=2, min_points=5, z=6.0)


def test_rel_to_start():
    """Starts at 2, reaches 50 (25x) at step 10, ends at 2.1: no better than the start."""
    y = [2.0] * 3 + [1.9] * 6 + [50.0] + [2.1] * 10
    hit = _check("rel_to_start", _run({"loss": y}), "loss")
    assert hit.summary == "loss exploded to 50 at step 10, 25x its starting level 2; it ends at 2.1, no better than at the start"
    assert hit.numbers == {"factor": 25.0, "stuck": True}


def test_rising_vs_falling():
    """Eval loss bottoms at 1.4 (step 50) and ends at 1.9 (+36%) while the train loss, 3 -> 1 in a
    straight line over 100 steps, goes from 2.05 (median of steps 46-50) to 1.09 (steps 91-100)."""
    eval_steps = {"eval/loss": list(range(10, 101, 10))}
    run = _run({"eval/loss": [2.0, 1.8, 1.6, 1.5, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9], "loss": np.linspace(3.0, 1.0, 100)}, eval_steps)
    hit = _check("rising_vs_falling", run, "eval/loss")
    assert hit.summary == "eval/loss rose 36% from its minimum 1.4 at step 50 to 1.9 at step 100 while loss fell from 2.05 to 1.09"
    assert hit.numbers["rise"] == pytest.approx(0.5 / 1.4)


def test_rising_vs_falling_steady_rise():
    """Eval loss 1.39, 1.30, 1.287, 1.32, 1.506 (steps 1-5) bottoms at step 3 and ends 0.219 above it (17%),
    rising at both evaluations after; the train loss falls at every log, 1.667 (step 3) -> 1.634 -> 1.609,
    only 3.5%, short of min_other_fall 0.1: steady_rise 0.05 reads the parting curves as the turn."""
    loss = [1.865, 1.708, 1.667, 1.634, 1.609]
    run = _run({"eval/loss": [1.39, 1.30, 1.287, 1.32, 1.506], "loss": loss})
    params = {"min_other_fall": 0.1, "steady_rise": 0.05}
    hit = _check("rising_vs_falling", run, "eval/loss", **params)
    assert hit.summary == "eval/loss rose 17% from its minimum 1.29 at step 3 to 1.51 at step 5 while loss fell from 1.67 to 1.61"
    assert hit.numbers["rise"] == pytest.approx(0.219 / 1.287)
    _quiet("rising_vs_falling", run, "eval/loss", min_other_fall=0.1)  # (without it: a 3.5% fall is too small)
    # a training loss that ticks up once after the minimum (1.600 -> 1.609) is no steady fall
    bumpy = _run({"eval/loss": [1.39, 1.30, 1.287, 1.32, 1.506], "loss": [1.865, 1.708, 1.667, 1.600, 1.609]})
    _quiet("rising_vs_falling", bumpy, "eval/loss", **params)


def test_rising_vs_falling_three_training_logs():
    """Eval loss 2.506, 2.174, 2.284, 2.521 (steps 0-4284) bottoms at step 1428 and ends 16% above it; the
    training loss is logged three times, 1.836 (step 1428), 1.538, 0.687: one log at the minimum and two after
    it are what the comparison reads, so min_other_points 3 is enough (the default 4 stays quiet)."""
    run = _run({"eval/loss": [2.506, 2.174, 2.284, 2.521], "loss": [1.836, 1.538, 0.687]},
               {"eval/loss": [0, 1428, 2856, 4284], "loss": [1428, 2856, 4284]})
    _quiet("rising_vs_falling", run, "eval/loss")
    hit = _check("rising_vs_falling", run, "eval/loss", min_other_points=3)
    assert hit.summary == ("eval/loss rose 16% from its minimum 2.17 at step 1,428 to 2.52 at step 4,284 while loss fell "
                           "from 1.84 to 0.687")
    assert hit.numbers["rise"] == pytest.approx(0.347 / 2.174)


def test_constant_pair_min_digits():
    """Two losses of 11.0666 (six significant digits) at steps 1 and 400 are a pinned loss; two of 0.946
    (three digits) are not, while three of 0.946 are."""
    params = {"min_share": 0.9, "min_count": 2, "min_points": 2, "pair_min_digits": 5}
    hit = _check("constant", _run({"loss": [11.0666, 11.0666]}, {"loss": [1, 400]}), "loss", **params)
    assert hit.summary == "loss is exactly 11.0666 on 100% of points (2 of 2, steps 1-400)"
    _quiet("constant", _run({"loss": [0.946, 0.946]}), "loss", **params)
    hit = _check("constant", _run({"loss": [0.946, 0.946, 0.946]}), "loss", **params)
    assert hit.summary == "loss is exactly 0.946 on 100% of points (3 of 3, steps 1-3)"


def test_stuck_while_training():
    """Eval accuracy is 0.7 at its last 6 of 8 evaluations (steps 300-800) while the train loss,
    3 -> 1 over 800 steps, falls from 2.13 (median of steps 300-399) to 1.12 (steps 701-800)."""
    run = _run({"eval/accuracy": [0.5, 0.6] + [0.7] * 6, "loss": np.linspace(3.0, 1.0, 800)},
               {"eval/accuracy": list(range(100, 801, 100))})
    hit = _check("stuck_while_training", run, "eval/accuracy")
    assert hit.summary == ("eval/accuracy is exactly 0.7 at the last 6 of 8 evaluations (steps 300-800) while loss "
                           "fell from 2.13 to 1.12: the eval predictions stopped changing")
    assert hit.numbers == {"run": 6}


def test_trend():
    """1 + 0.1 i over 50 points; smoothed over 5, the ends are 1.2 and 5.5, and 45 of 49 intervals
    rise (the first 4 are the smoothing's flat padding)."""
    hit = _check("trend", _run({"grad_norm": 1.0 + 0.1 * np.arange(50)}), "grad_norm")
    assert hit.summary == "grad_norm grew steadily from 1.2 to 5.5 over steps 1-50 (92% of intervals rising)"
    assert hit.numbers == {"start": pytest.approx(1.2), "end": pytest.approx(5.5), "monotonic": pytest.approx(45 / 49)}


def test_zero_while_falling():
    run = _run({"eval/f1": [0.0] * 5, "loss": [3.0] * 25 + [1.0] * 25}, {"eval/f1": [100, 200, 300, 400, 500]})
    hit = _check("zero_while_falling", run, "eval/f1")
    assert hit.summary == "eval/f1 is exactly 0 at all 5 evaluations (steps 100-500) while loss fell from 3 to 1"


def test_zero_while_falling_alone():
    """Four evaluations at exactly 0 are enough when the loss stays flat (nothing learned) or is not
    logged; three are not, and without min_alone the flat loss keeps it quiet."""
    flat = {"eval/f1": [0.0] * 4, "loss": [0.18] * 10}
    hit = _check("zero_while_falling", _run(flat, {"eval/f1": [1, 2, 3, 4]}), "eval/f1", min_alone=4)
    assert hit.summary == "eval/f1 is exactly 0 at all 4 evaluations (steps 1-4)"
    for values, params in (({"eval/f1": [0.0] * 3, "loss": [0.18] * 10}, {"min_alone": 4}), (flat, {})):
        run = _run(values, {"eval/f1": list(range(1, len(values["eval/f1"]) + 1))})
        s = run.series["eval/f1"]
        typed, _ = parse(PARAMS["zero_while_falling"], params)
        assert CHECKS["zero_while_falling"](Ctx(run, "eval/f1", s.steps, s.values, typed)) is None


# -- the checks the shipped detectors use, pinned here by their own words ----------------------------
def test_near():
    hit = _check("near", _run({"loss": [2.303] * 10}), "loss", target=2.3026)
    assert hit.summary == "loss stays within 0.02 of 2.3 on 100% of points (steps 1-10), median 2.3"
    assert hit.numbers == {"share": 1.0, "target": 2.3026}


def test_near_unless_fell():
    """A training AUC of 0.5 at 10 logs: a finding beside a loss that went 0.693 -> 0.6 (the medians of its
    first and last three points: -13%), quiet beside one that went 0.693 -> 0.3 (-57%, past fell_by 0.3)."""
    params = {"target": 0.5, "tol": 0.05, "unless_fell": ["loss"], "fell_by": 0.3}
    run = _run({"auc": [0.5] * 10, "loss": [0.693] * 5 + [0.6] * 5})
    hit = _check("near", run, "auc", **params)
    assert hit.summary == "auc stays within 0.05 of 0.5 on 100% of points (steps 1-10), median 0.5"
    typed, _ = parse(PARAMS["near"], params)
    run = _run({"auc": [0.5] * 10, "loss": [0.693] * 5 + [0.3] * 5})
    s = run.series["auc"]
    assert CHECKS["near"](Ctx(run, "auc", s.steps, s.values, typed)) is None


def test_constant():
    """0 on 8 of 10 points: the median is 0, 80% of the points."""
    hit = _check("constant", _run({"grad_norm": [0.0] * 8 + [0.5] * 2}), "grad_norm")
    assert hit.summary == "grad_norm is exactly 0 on 80% of points (8 of 10, steps 1-8)"
    assert hit.numbers == {"share": 0.8, "value": 0.0}


def test_drop_ratio():
    """100 for 20 points, then 40: the medians of the first and last 15% are 100 and 40, -60%."""
    hit = _check("drop_ratio", _run({"throughput": [100.0] * 20 + [40.0] * 20}), "throughput")
    assert hit.summary == "throughput dropped from 100 to 40 (-60%) between steps 1 and 40"
    assert hit.numbers == {"ratio": 0.4}


def test_drop_ratio_last_points():
    """A rate down to 5 for a stretch that is back at 100 for its last three logs recovered: with
    last_points 3 the check is quiet; the same run still fires without it (the last 15% include the slow
    stretch)."""
    run = _run({"throughput": [100.0] * 30 + [5.0] * 7 + [100.0] * 3})
    _check("drop_ratio", run, "throughput")
    _quiet("drop_ratio", run, "throughput", last_points=3)


def test_early_blowup():
    """2 at step 1, then 5 for the next four points (2.5x), in the first max(4, 10% of 40) points."""
    hit = _check("early_blowup", _run({"loss": [2.0] + [5.0] * 4 + [1.8] * 35}), "loss")
    assert hit.summary == "loss jumped from 2 at step 1 to 5 at step 2 (2.5x) in the first 4 logged points"
    assert hit.numbers == {"ratio": 2.5}


def test_chance():
    """Loss at ln 10 = 2.3026 and accuracy at 0.1 = 1/10: the uniform prediction over ten classes."""
    run = _run({"loss": [2.3026] * 10, "accuracy": [0.1] * 10})
    hit = _check("chance", run, "loss")
    assert hit.summary == ("loss stays within 0.1 of ln 10 = 2.3 (accuracy 0.1 = 1/10) on 100% of 10 points (steps 1-10); "
                           "accuracy 0.1 (chance 1/10 = 0.1): the model predicts every class alike")
    assert hit.numbers == {"classes": 10, "share": 1.0, "target": pytest.approx(np.log(10))}


def test_chance_unless_train_loss_below():
    """Eval loss at ln 10 with eval accuracy 0.1: a training loss of 2.25 keeps the finding (e^-2.25 = 0.105, inside
    the chance band 1.15/10 + 0.02 = 0.135, i.e. a loss above -ln 0.135 = 2.0); one of 1.9 (e^-1.9 = 0.15) fits the
    training data better than chance, and the held-out reading alone is not a model that learned nothing."""
    ev = {"eval/loss": [2.3026] * 10, "eval/accuracy": [0.1] * 10}
    hit = _check("chance", _run({**ev, "loss": [2.25] * 10}), "eval/loss", accuracy=["accuracy", "eval/accuracy"],
                 unless_train_loss_below=["loss"])
    assert hit.summary == ("eval/loss stays within 0.1 of ln 10 = 2.3 (eval/accuracy 0.1 = 1/10) on 100% of 10 points "
                           "(steps 1-10); eval/accuracy 0.1 (chance 1/10 = 0.1): the model predicts every class alike")
    _quiet("chance", _run({**ev, "loss": [1.9] * 10}), "eval/loss", accuracy=["accuracy", "eval/accuracy"],
           unless_train_loss_below=["loss"])


def test_saturated():
    """Keras clips at 1e-7: each wrong answer costs -ln 1e-7 = 16.118, so accuracy 0.75 logs 4.03."""
    run = _run({"loss": [16.118 * 0.25] * 10, "accuracy": [0.75] * 10})
    hit = _check("saturated", run, "loss", per_sample_max=16.118, accuracy="accuracy")
    assert hit.summary == ("loss is 4.03 = 16.1 x (1 - accuracy 0.75) on 100% of 10 points (from step 1): every wrong "
                           "prediction is a saturated one-hot, so each costs the clamped maximum")
    assert hit.numbers == {"share": 1.0, "clamp": 16.118}


def test_saturated_at_the_clamp_whatever_the_accuracy_says():
    """A cross-entropy term at Caffe's 87.3365 itself is every sample at the clamp, even beside an
    `accuracy = 1` printed for another output; 40.0 there is no clamp at all."""
    run = _run({"xent": [9.2, 87.3365, 87.3365], "accuracy": [0.0, 1.0, 1.0]})
    hit = _check("saturated", run, "xent", per_sample_max=87.3365, accuracy="accuracy")
    assert hit.summary.startswith("xent is 87.3, the clamp 87.3 itself on 67% of 3 points (from step 2)")
    _quiet("saturated", _run({"xent": [40.0, 40.0, 40.0], "accuracy": [1.0, 1.0, 1.0]}), "xent",
           per_sample_max=87.3365, accuracy="accuracy")


def test_zero_while_falling_at_the_last_evaluations():
    """F1 0.0062, 0.0005, then exactly 0 at the last four of six evaluations: a model that found a few
    positives early and now predicts none; two zeros at the end of six are not enough."""
    hit = _check("zero_while_falling", _run({"eval/f1": [0.0062, 0.0005, 0, 0, 0, 0]}), "eval/f1", min_alone=4)
    assert hit.summary == "eval/f1 is exactly 0 at its last 4 of 6 evaluations (steps 3-6; 5.00e-04 before)"
    _quiet("zero_while_falling", _run({"eval/f1": [0.3, 0.4, 0.5, 0.2, 0, 0]}), "eval/f1", min_alone=4)


def test_ratio_to():
    """A train loss of 2 against an eval loss of 0.5 is 4x: the 4 accumulation steps not divided out."""
    run = _run({"loss": [2.0] * 300, "eval/loss": [0.5] * 3}, {"eval/loss": [100, 200, 300]},
               config={"gradient_accumulation_steps": 4})
    hit = _check("ratio_to", run, "loss", target_from="grad_accum")
    assert hit.summary == "loss is 4.0x eval/loss at 100% of 3 evaluations (steps 100-300), the gradient_accumulation_steps = 4 in the config"
    assert hit.numbers == {"ratio": 4.0, "share": 1.0}


def test_ratio_to_max_ratio():
    """An eval loss of 2000 against a training loss of 1.0 -> 0.2 is 100x or more at every evaluation from
    the first: the eval inputs are on another scale; an eval loss 3x the training loss is another finding."""
    run = _run({"loss": [1.0, 0.6, 0.4, 0.2], "eval/loss": [2000.0, 2500.0, 3000.0, 4000.0]})
    hit = _check("ratio_to", run, "loss", against=["eval/loss"], max_ratio=0.01, min_share=1.0, min_points=3)
    assert hit.summary == ("eval/loss is 5.36e+03x loss at 100% of 4 evaluations (steps 1-4), from the first: "
                           "eval/loss 2e+03 against loss 1")
    assert round(hit.numbers["ratio"]) == 5357 and hit.numbers["share"] == 1.0
    _quiet("ratio_to", _run({"loss": [1.0, 0.6, 0.4, 0.2], "eval/loss": [3.0, 1.8, 1.2, 0.6]}), "loss",
           against=["eval/loss"], max_ratio=0.01, min_share=1.0, min_points=3)
    # from_start: a later stage of a run (a step counter that started again) has no first evaluation to judge
    later = _run({"loss": [1.0, 0.6, 0.4, 0.2], "eval/loss": [2000.0, 2500.0, 3000.0, 4000.0]})
    later.meta["restarts"] = 1
    _check("ratio_to", later, "loss", against=["eval/loss"], max_ratio=0.01, min_share=1.0, min_points=3)
    _quiet("ratio_to", later, "loss", against=["eval/loss"], max_ratio=0.01, min_share=1.0, min_points=3,
           from_start=True)


def test_at_chance_while_falling():
    """The first train loss 2.3026 = ln 10 says ten classes; eval accuracy sits at 1/10 while the
    train loss falls to 0.5 (ends: medians of 5 points)."""
    run = _run({"eval/accuracy": [0.1] * 5, "loss": [2.3026] * 25 + [0.5] * 25}, {"eval/accuracy": [100, 200, 300, 400, 500]})
    hit = _check("at_chance_while_falling", run, "eval/accuracy")
    assert hit.summary == ("eval/accuracy sits at chance 1/10 = 0.1 (first loss 2.3 = ln 10) at 100% of 5 evaluations "
                           "(median 0.1) while loss fell from 2.3 to 0.5")
    assert hit.numbers == {"classes": 10, "share": 1.0}
    # one evaluation below chance after the loss fell far under ln 10 is enough with min_points 1
    run = _run({"eval/accuracy": [0.0532], "loss": [2.3026] * 5 + [0.63] * 5}, {"eval/accuracy": [10]})
    hit = _check("at_chance_while_falling", run, "eval/accuracy", min_points=1)
    assert hit.summary == ("eval/accuracy sits at chance 1/10 = 0.1 (first loss 2.3 = ln 10) at 100% of 1 evaluations "
                           "(median 0.0532) while loss fell from 2.3 to 0.63")
    typed, _ = parse(PARAMS["at_chance_while_falling"], {"min_points": 2})
    s = run.series["eval/accuracy"]
    assert CHECKS["at_chance_while_falling"](Ctx(run, "eval/accuracy", s.steps, s.values, typed)) is None


def test_confident_at_floor():
    """Ten classes (first loss ln 10); softmax twice floors the loss at log(1 + 9/e) = 1.46; the
    loss sits at 1.5 while the accuracy is 0.95."""
    run = _run({"accuracy": [0.95] * 10, "loss": [np.log(10)] + [1.5] * 99}, {"accuracy": list(range(10, 101, 10))})
    hit = _check("confident_at_floor", run, "accuracy")
    assert hit.summary == ("accuracy is 0.95 while loss never goes below 1.5 and sits at 1.5: the floor of softmax "
                           "applied twice over 10 classes is log(1 + 9/e) = 1.46 (first loss 2.3 = ln 10)")
    assert hit.numbers == {"classes": 10, "floor": pytest.approx(np.log(1 + 9 / np.e)), "level": 1.5, "accuracy": 0.95}


def test_tracks():
    """The loss is 1 + 0.0005 x the tokens of its batch: after detrending both, correlation +1."""
    tokens = np.array([1000.0, 2000.0] * 20)
    hit = _check("tracks", _run({"loss": 1.0 + 0.0005 * tokens, "ntokens": tokens}), "loss")
    assert hit.summary == ("loss moves with ntokens from batch to batch (correlation +1.00 over 40 steps, trends removed): "
                           "the loss depends on how many tokens a batch holds")
    assert hit.numbers["corr"] == pytest.approx(1.0)


def test_still_falling():
    """3 - 0.01 (step - 1) over 100 steps with the LR decayed to 0: the last quarter (steps 76-100)
    falls 0.24, as steep as any (100%), 0.99 in all from 3."""
    run = _run({"loss": 3.0 - 0.01 * np.arange(100), "learning_rate": np.linspace(1e-3, 0.0, 100)})
    hit = _check("still_falling", run, "loss")
    assert hit.summary == ("loss is still falling at the end as steeply as at its steepest: the last 25% of the run "
                           "(steps 76-100) fell 0.24, 100% of the steepest stretch's rate; 0.99 in all from 3, with the LR "
                           "schedule already run out: the run stopped long before the loss levelled off")
    assert hit.numbers == {"slope_ratio": pytest.approx(1.0), "fall": pytest.approx(0.24)}


def test_worsening():
    """Eval loss bottoms at 1.0 (step 400) and its last third after that sits at 1.3: 30% worse.
    How many times its noise that is depends on the noise estimate; it must clear z = 3."""
    import re

    run = _run({"eval/loss": [2.0, 1.5, 1.2, 1.0, 1.1, 1.2, 1.3, 1.3, 1.3]}, {"eval/loss": list(range(100, 901, 100))})
    hit = _check("worsening", run, "eval/loss")
    m = re.fullmatch(r"eval/loss rose from its best 1 at step 400 to 1.3 by step 900 \(30% worse, (\d+)x its noise\)", hit.summary)
    assert m and int(m.group(1)) >= 3, hit.summary
    assert hit.numbers["rise"] == pytest.approx(0.3)


def test_shift_at_eval():
    """The train loss steps from 2.0 to 2.5 (+25%) right after the first evaluation (step 100) and
    not at the second (step 150): dropout or BatchNorm left in eval mode."""
    import re

    y = np.where(np.arange(1, 201) <= 100, 2.0, 2.5) + np.tile([0.01, -0.01], 100)
    run = _run({"loss": y, "eval/loss": [1.9, 1.9]}, {"eval/loss": [100, 150]})
    hit = _check("shift_at_eval", run, "loss")
    m = re.fullmatch(r"loss stepped from 2 to 2.5 \(\+25%, (\d+)x its noise\) right after the first evaluation at step 100, "
                     r"and at none of the 1 later ones", hit.summary)
    assert m and int(m.group(1)) >= 6, hit.summary
    assert hit.numbers["shift"] == pytest.approx(0.5, abs=0.02)


def test_oscillation():
    """0.8 -/+ 0.2 alternating over 8 epochs: every one of the 6 turns moves 0.4 = 50% of the level 0.8."""
    hit = _check("oscillation", _run({"loss": [1.0, 0.6, 1.0, 0.6, 1.0, 0.6, 1.0, 0.6]}), "loss")
    assert hit.summary == ("6 of 6 turns move loss by 10% or more of its level 0.8 both into and out of the turn "
                           "(largest swing 0.4, steps 2-7)")
    assert hit.numbers["turns"] == 6


def test_worse_than_uniform():
    """Loss 6.2 with accuracy 1/3 on 3 logs: 6.2 / ln 3 = 5.6x the uniform guess."""
    hit = _check("worse_than_uniform", _run({"loss": [6.2, 6.2, 6.2], "accuracy": [0.333, 0.333, 0.333]}), "loss")
    assert hit.summary.startswith("loss 6.2 while accuracy sits at chance "
                                  "(accuracy 0.333 = 1/3) on 3 of 3 logs; a model that gave every class the same "
                                  "probability would score ln 3 = 1.1 (6x less)")
    assert hit.numbers["classes"] == 3
    # the same total beside its per-head terms is a sum, not one cross-entropy: quiet
    run = _run({"loss": [6.2, 6.2, 6.2], "loss.1": [2.1] * 3, "loss.2": [4.1] * 3, "accuracy": [0.333] * 3})
    typed, _ = parse(PARAMS["worse_than_uniform"], {})
    s = run.series["loss"]
    assert CHECKS["worse_than_uniform"](Ctx(run, "loss", s.steps, s.values, typed)) is None
    # an accuracy climbing 0.07 -> 0.30 passes through 1/4 on its way up: a model learning, quiet
    climbing = _run({"loss": [23.0, 18.0, 16.0, 15.0, 14.0, 13.0, 12.0, 11.0, 10.5, 10.0, 9.8, 9.7],
                     "accuracy": [0.07, 0.11, 0.15, 0.2, 0.23, 0.245, 0.25, 0.26, 0.27, 0.28, 0.29, 0.3]})
    _quiet("worse_than_uniform", climbing, "loss")
    # five epochs whose accuracy climbs 0.47 -> 0.56 beside a summed loss of 40-49: near 1/2 throughout,
    # but rising by more than the tolerance from the first log to the last is learning, quiet
    rising = _run({"loss": [48.8, 44.4, 42.3, 40.4, 40.1], "accuracy": [0.472, 0.529, 0.542, 0.566, 0.559]})
    _quiet("worse_than_uniform", rising, "loss")


def test_reward_trend():
    """An episodic return that stays level, one that climbs, and one that climbs and falls back."""
    level = [-95.0, -97.0, -94.0, -96.0, -95.0, -98.0, -94.0, -96.0, -95.0, -97.0, -96.0, -95.0]
    hit = _check("reward_trend", _run({"episode_reward": level}), "episode_reward", shape="flat")
    assert hit.summary == ("episode_reward never improves: mean -96 over the first tenth of the run and -95.8 over "
                           "the last third (steps 1-12, 12 points)")
    climb = [float(v) for v in range(0, 240, 20)]
    typed, _ = parse(PARAMS["reward_trend"], {"shape": "flat"})
    run = _run({"episode_reward": climb})
    s = run.series["episode_reward"]
    assert CHECKS["reward_trend"](Ctx(run, "episode_reward", s.steps, s.values, typed)) is None
    back = [0.0, 40.0, 80.0, 120.0, 160.0, 200.0, 200.0, 160.0, 100.0, 40.0, 0.0, -20.0]
    hit = _check("reward_trend", _run({"episode_reward": back}), "episode_reward", shape="collapsed")
    assert "fell" in hit.summary


def test_reward_trend_flat_unless_success_rate_improved():
    """A sparse goal reward (-50 per failed 50-step episode) that barely moves while the success rate climbs
    from 0 to 0.15: the agent learns to reach the goal, so a flat return is no finding; with the success
    rate held at 0 it still is."""
    ret = [-50.0] * 6 + [-50.0, -49.0, -50.0, -48.0, -50.0, -49.0, -50.0, -48.0, -49.0, -50.0, -49.0, -48.0]
    ok = [0.0] * 6 + [0.0, 0.02, 0.03, 0.05, 0.06, 0.08, 0.09, 0.1, 0.11, 0.12, 0.14, 0.15]
    params = {"shape": "flat", "unless_improving": ["success_rate"], "improving_error_terms": True}
    hit = _check("reward_trend", _run({"episode_reward": ret, "success_rate": [0.0] * 18}), "episode_reward", **params)
    assert hit.summary.startswith("episode_reward never improves")
    typed, _ = parse(PARAMS["reward_trend"], params)
    run = _run({"episode_reward": ret, "success_rate": ok})
    s = run.series["episode_reward"]
    assert CHECKS["reward_trend"](Ctx(run, "episode_reward", s.steps, s.values, typed)) is None


def test_threshold_unless_percent_of():
    """A test accuracy of 90.53 beside eval accuracies of 0.83-0.91 is that share printed as a percent: quiet;
    3.67 beside the same shares (0.0367 is outside their range) is a broadcast comparison: it fires."""
    params = {"op": ">", "value": 1.001, "min_share": 0.5, "min_count": 1, "min_points": 1,
              "unless_percent_of": ["accuracy", "eval/accuracy", "eval/*/accuracy"]}
    shares = [0.8319, 0.854, 0.8584, 0.885, 0.9115, 0.9027]
    hit = _check("threshold", _run({"eval/test/accuracy": [3.67], "eval/accuracy": shares}), "eval/test/accuracy",
                 **params)
    assert hit.summary == "eval/test/accuracy > 1 on 100% of 1 points (step 1), max 3.67 at step 1"
    typed, _ = parse(PARAMS["threshold"], params)
    run = _run({"eval/test/accuracy": [90.53], "eval/accuracy": shares})
    s = run.series["eval/test/accuracy"]
    assert CHECKS["threshold"](Ctx(run, "eval/test/accuracy", s.steps, s.values, typed)) is None


def test_every_check_has_a_sentence_test():
    """Every registered check has a test of its sentence, here or in test_detectors.py."""
    import pathlib
    import re

    here = pathlib.Path(__file__).parent
    text = "".join(p.read_text(encoding="utf-8") for p in here.glob("test_*.py"))
    named = set(re.findall(r"""(?:_check\(|CHECKS\[|check=)["']([a-z0-9_]+)["']""", text))
    assert set(CHECKS) - named == set(), "a check with no test of its sentence: add one here"


def test_recurring():
    """Eight 4-decimal losses, then the same eight twice more: each value 3 times, so 3 equal pairs
    per value (none adjacent) = 24; the nearest other values are over 3 units apart, so chance is 0."""
    epoch = [1.1274, 1.0541, 1.0082, 1.1653, 1.0207, 1.1918, 1.0953, 1.1436]
    hit = _check("recurring", _run({"loss": epoch * 3}), "loss")
    assert hit.summary == ("loss repeats earlier values exactly (1.1274 x3, 1.0541 x3, 1.0082 x3): 24 equal pairs "
                           "of 24 points where chance gives about 0, over steps 1-24")
    assert hit.numbers == {"pairs": 24.0, "chance": 0.0}


def test_recurring_quiet_on_coarse_prints():
    """Losses printed to 2 digits (0.35, 0.36, ...) recur by rounding alone: below min_digits, no hit."""
    typed, _ = parse(PARAMS["recurring"], {})
    run = _run({"loss": [0.35, 0.36, 0.35, 0.37, 0.36, 0.35, 0.36, 0.37, 0.35, 0.36]})
    s = run.series["loss"]
    assert CHECKS["recurring"](Ctx(run, "loss", s.steps, s.values, typed)) is None


def test_collapses_to_zero():
    """12.18 at step 1 (ln of a 195k vocabulary), 1.8e-06 one step later, then 0: nothing left to predict."""
    hit = _check("collapses_to_zero", _run({"loss": [12.18, 1.8e-06, 0.0, 0.0]}), "loss")
    assert hit.summary == ("loss fell from 12.2 at step 1 to 1.80e-06 at step 2, 1 logged step later, and stays "
                           "below 0.1: no model learns real data that fast; the batches have nothing left to predict")
    typed, _ = parse(PARAMS["collapses_to_zero"], {})
    run = _run({"loss": [2.3, 1.2, 0.4, 0.1, 0.02, 0.004, 0.0008]})  # a fast memoriser, step by step: quiet
    s = run.series["loss"]
    assert CHECKS["collapses_to_zero"](Ctx(run, "loss", s.steps, s.values, typed)) is None


def test_recurring_and_collapse_quiet_on_a_converged_toy_run():
    """A toy task solved in one epoch: the loss drops 5 decades with accuracy 1.0, then sits at float
    resolution (each value in one stretch): no value comes back after leaving, and the task is easy."""
    typed, _ = parse(PARAMS["recurring"], {})
    loss = [3.914] + [2.9563467e-05] * 3 + [2.9444e-05] * 6 + [2.9325e-05] * 7
    run = _run({"loss": loss, "accuracy": [0.0] + [1.0] * 16})
    s = run.series["loss"]
    assert CHECKS["recurring"](Ctx(run, "loss", s.steps, s.values, typed)) is None
    typed, _ = parse(PARAMS["collapses_to_zero"], {})
    assert CHECKS["collapses_to_zero"](Ctx(run, "loss", s.steps, s.values, typed)) is None


def test_gap_while_stalled():
    """Eval loss best 6.15 at its 3rd evaluation, then 6.19, 6.25, 6.37 (the median of its last two,
    6.31, is 11.1x the last training loss 0.57); the training loss around the best (median of its
    last three points up to it) was 6.0."""
    run = _run({"eval/loss": [10.98, 8.33, 6.15, 6.19, 6.25, 6.37], "loss": [9.8, 6.0, 3.53, 1.69, 1.06, 0.57]})
    hit = _check("gap_while_stalled", run, "eval/loss")
    assert hit.summary == ("eval/loss stopped improving at step 3 (6.15) and is 6.31 at step 6, while loss went "
                           "from 6 to 0.57 (eval/loss 11.1x): the model fits the training set and stopped "
                           "generalising")
    hit = _check("gap_while_stalled", _run({"eval/accuracy": [0.70, 0.78, 0.75, 0.72, 0.71],
                                            "accuracy": [0.9, 0.98, 1.0, 1.0, 1.0]}), "eval/accuracy",
                 worse="down", against=["accuracy"])
    assert "eval/accuracy stopped improving at step 2 (0.78)" in hit.summary and "0.285 below it" in hit.summary
    typed, _ = parse(PARAMS["gap_while_stalled"], {})
    run = _run({"eval/loss": [2.0, 1.5, 1.2, 1.1, 1.05, 1.04], "loss": [2.0, 1.4, 1.1, 0.95, 0.9, 0.85]})
    s = run.series["eval/loss"]  # an eval loss still improving, near the training loss: quiet
    assert CHECKS["gap_while_stalled"](Ctx(run, "eval/loss", s.steps, s.values, typed)) is None


def test_gap_while_stalled_best_at_first():
    """best_at_first: the same gap, but only when the eval loss never improved on its first evaluation (2.1,
    then 2.4 ... 3.3) while the training loss fell from 1.5 to 0.06; the case above (best at the third
    evaluation) stays quiet."""
    run = _run({"eval/loss": [2.1, 2.4, 2.7, 3.0, 3.3], "loss": [1.5, 0.6, 0.25, 0.1, 0.06]})
    hit = _check("gap_while_stalled", run, "eval/loss", best_at_first=True)
    assert hit.summary == ("eval/loss was at its best at its first evaluation (step 1, 2.1) and never improved on "
                           "it: 3.3 at step 5, while loss went from 1.5 to 0.06")
    _quiet("gap_while_stalled", _run({"eval/loss": [10.98, 8.33, 6.15, 6.19, 6.25, 6.37],
                                      "loss": [9.8, 6.0, 3.53, 1.69, 1.06, 0.57]}), "eval/loss", best_at_first=True)


def test_near_while_falling():
    """One evaluation, AUC 0.4896, after the training loss fell from 0.586 to 0.339 (the first and
    last of two points)."""
    run = _run({"eval/auc": [0.4896], "loss": [0.5859, 0.3387]}, steps={"eval/auc": [2], "loss": [1, 2]})
    hit = _check("near_while_falling", run, "eval/auc")
    assert hit.summary == ("eval/auc is 0.49, within 0.05 of chance 0.5, at 100% of 1 point (steps 2-2) while loss "
                           "fell from 0.586 to 0.339: the model ranks no better than a coin")
    typed, _ = parse(PARAMS["near_while_falling"], {})
    run = _run({"eval/auc": [0.5], "loss": [0.69, 0.5, 0.4]}, steps={"eval/auc": [0], "loss": [1, 2, 3]})
    s = run.series["eval/auc"]  # scored at init, before any training: quiet
    assert CHECKS["near_while_falling"](Ctx(run, "eval/auc", s.steps, s.values, typed)) is None


def test_reward_trend_of_a_return_pinned_at_one_value():
    """0 on 45 of 50 episodes (a rare 0.01 in between), the last third included: no noise to speak of,
    and no improvement either: flat, and never a 'collapse' from the few 0.01s."""
    y = [0.0] * 50
    for i in (1, 7, 12, 20, 41):
        y[i] = 0.01
    run = _run({"episode_reward": y})
    hit = _check("reward_trend", run, "episode_reward", shape="flat")
    assert hit.summary == "episode_reward is 0 on 90% of 50 points and on the last third too (steps 1-50): it never improves"
    typed, _ = parse(PARAMS["reward_trend"], {"shape": "collapsed"})
    s = run.series["episode_reward"]
    assert CHECKS["reward_trend"](Ctx(run, "episode_reward", s.steps, s.values, typed)) is None


def test_reward_trend_of_a_return_that_climbs_to_the_value_it_holds():
    """-3 and -1 at the first two evaluations, then 1 at every one after: the return held at one value
    is the value it climbed to (an episode solved), not a return that never improved."""
    run = _run({"eval/episode_reward": [-3.0, -1.0] + [1.0] * 8})
    typed, _ = parse(PARAMS["reward_trend"], {"shape": "flat"})
    s = run.series["eval/episode_reward"]
    assert CHECKS["reward_trend"](Ctx(run, "eval/episode_reward", s.steps, s.values, typed)) is None
    run = _run({"eval/episode_reward": [1.0, 1.5] + [1.0] * 8})  # held from the start: flat
    assert _check("reward_trend", run, "eval/episode_reward", shape="flat") is not None


def test_reward_trend_of_a_win_rate_that_collapsed_to_zero():
    """A win rate that climbs to 0.6-0.75 and then reads 0 at every evaluation: most differences are 0, so
    the noise is the size of the moves it makes (median 0.2), and the climb given back is a collapse."""
    y = [0.0, 0.0, 0.4, 0.7, 0.55, 0.45, 0.7, 0.65, 0.75] + [0.0] * 13
    run = _run({"eval/success_rate": y}, steps={"eval/success_rate": [100 * i for i in range(len(y))]})
    hit = _check("reward_trend", run, "eval/success_rate", shape="collapsed", start_share=0.1)
    assert hit.summary == ("eval/success_rate rose from 0 to 0.7 (smoothed) by step 800, then fell back to 0 "
                           "(steps 0-2,100, 22 points)")
    run = _run({"eval/success_rate": [0.0, 0.0, 0.4, 0.7, 0.55, 0.45, 0.7, 0.65, 0.75] + [0.7] * 13})
    typed, _ = parse(PARAMS["reward_trend"], {"shape": "collapsed"})
    s = run.series["eval/success_rate"]  # the same climb, kept: quiet
    assert CHECKS["reward_trend"](Ctx(run, "eval/success_rate", s.steps, s.values, typed)) is None


def test_gap_while_stalled_with_one_evaluation():
    run = _run({"eval/accuracy": [0.4336], "accuracy": [1.0, 1.0, 1.0, 0.98]},
               steps={"eval/accuracy": [5120], "accuracy": [5040, 5060, 5080, 5100]})
    hit = _check("gap_while_stalled", run, "eval/accuracy", worse="down", against=["accuracy"], lone_gap=0.3)
    assert hit.summary == ("eval/accuracy is 0.434 at step 5,120 while accuracy is 1: 0.566 below a training set "
                           "the model has all but memorised")


def test_gap_while_stalled_flat_tail_is_stalled():
    """A held-out AUC of 0.45 at all five evaluations beside a training AUC of 1: by default the flat
    tail's last value equals its best and reads as still improving (quiet); flat_is_stalled reads it
    as stalled, and the lone gap is the finding."""
    run = _run({"eval/auc": [0.45] * 5, "auc": [1.0] * 5})
    kw = dict(worse="down", against=["auc"], lone_gap=0.3)
    typed, _ = parse(PARAMS["gap_while_stalled"], kw)
    s = run.series["eval/auc"]
    assert CHECKS["gap_while_stalled"](Ctx(run, "eval/auc", s.steps, s.values, typed)) is None
    hit = _check("gap_while_stalled", run, "eval/auc", flat_is_stalled=True, **kw)
    assert hit.summary.startswith("eval/auc is 0.45 at step")
    assert "0.55 below a training set the model has all but memorised" in hit.summary


def test_gap_while_stalled_loss_with_one_evaluation():
    """A final eval loss of 4.25 beside a training loss whose last points have a median of 0.425 is
    10x and 3.8 nats above it; 0.9 beside 0.2 is 4.5x and 0.7 apart: quiet."""
    run = _run({"eval/loss": [4.254], "loss": [0.52, 0.45, 0.40, 0.3884]},
               steps={"eval/loss": [14], "loss": [11, 12, 13, 14]})
    hit = _check("gap_while_stalled", run, "eval/loss", against=["loss"], lone_ratio=5.0)
    assert hit.summary == ("eval/loss is 4.25 at step 14 while loss is 0.425: 10x the training loss, a model "
                           "that fits its training set and little else")
    quiet = _run({"eval/loss": [0.9], "loss": [0.2] * 4}, steps={"eval/loss": [4], "loss": [1, 2, 3, 4]})
    typed, _ = parse(PARAMS["gap_while_stalled"], {"against": ["loss"], "lone_ratio": 5.0})
    s = quiet.series["eval/loss"]
    assert CHECKS["gap_while_stalled"](Ctx(quiet, "eval/loss", s.steps, s.values, typed)) is None


def test_gap_while_stalled_one_evaluation_beside_a_climbing_training_loss():
    """One eval loss of 6,601 beside a training loss that climbed 118 -> 223 -> 485 -> 2,718 -> 5,834:
    the median of those five (485) is 13.6x under the evaluation, but the training loss logged last is
    12x where it started: the run diverged, it did not memorise. A training loss that kept falling to
    485 beside the same evaluation is the gap."""
    steps = {"eval/loss": [200], "loss": [0, 50, 100, 150, 200]}
    typed, _ = parse(PARAMS["gap_while_stalled"], {"against": ["loss"], "lone_ratio": 5.0})
    run = _run({"eval/loss": [6601.4], "loss": [118.8, 223.2, 485.1, 2718.0, 5834.1]}, steps=steps)
    s = run.series["eval/loss"]
    assert CHECKS["gap_while_stalled"](Ctx(run, "eval/loss", s.steps, s.values, typed)) is None
    hit = _check("gap_while_stalled", _run({"eval/loss": [6601.4], "loss": [5834.1, 2718.0, 485.1, 485.1, 485.1]},
                                           steps=steps), "eval/loss", against=["loss"], lone_ratio=5.0)
    assert hit.summary.startswith("eval/loss is 6.6e+03 at step 200 while loss is 485")


def test_constant_not_while_another_is_zero():
    """A loss of exactly 0 beside a gradient norm of 1.73: the constant is reported; beside a
    gradient norm of exactly 0 (nothing scored, nothing to backpropagate) it is not this finding."""
    params = {"value": 0.0, "min_share": 0.9, "min_count": 1, "min_points": 1, "not_while_zero": ["grad_norm"]}
    hit = _check("constant", _run({"loss": [0.0] * 4, "grad_norm": [1.732] * 4}), "loss", **params)
    assert hit.summary == "loss is exactly 0 on 100% of points (4 of 4, steps 1-4)"
    run = _run({"loss": [0.0] * 4, "grad_norm": [0.0] * 4})
    typed, _ = parse(PARAMS["constant"], params)
    s = run.series["loss"]
    assert CHECKS["constant"](Ctx(run, "loss", s.steps, s.values, typed)) is None


def test_constant_only_while_another_is_nonzero():
    """A GRPO gradient norm of 0 beside a reward_std of 0.44 is reported; beside a reward_std of 0
    (no advantage anywhere) or with no reward_std logged it is not."""
    params = {"value": 0.0, "min_share": 0.5, "min_count": 1, "min_points": 1, "only_while_nonzero": ["reward_std"]}
    hit = _check("constant", _run({"grad_norm": [0.0], "reward_std": [0.4398]}), "grad_norm", **params)
    assert hit.summary == "grad_norm is exactly 0 on 100% of points (1 of 1, step 1)"
    typed, _ = parse(PARAMS["constant"], params)
    for values in ({"grad_norm": [0.0], "reward_std": [0.0]}, {"grad_norm": [0.0]}):
        run = _run(values)
        s = run.series["grad_norm"]
        assert CHECKS["constant"](Ctx(run, "grad_norm", s.steps, s.values, typed)) is None


def test_constant_trailing():
    """A loss that turns exactly 0 at step 6 and stays there; one that is 0 from the start (or
    only in the middle) is not a trailing run."""
    params = {"value": 0.0, "trailing": True, "min_count": 2, "min_points": 4}
    hit = _check("constant", _run({"loss": [2.1, 1.8, 1.5, 1.9, 4.7, 0.0, 0.0, 0.0]}), "loss", **params)
    assert hit.summary == "loss is exactly 0 on its last 3 points (steps 6-8), after 4.7 at step 5"
    typed, _ = parse(PARAMS["constant"], params)
    for values in ([0.0] * 8, [2.1, 0.0, 0.0, 1.5, 1.2, 1.1, 1.0, 0.9], [2.1, 1.8, 1.5, 1.4, 1.3, 1.2, 1.1, 0.0]):
        run = _run({"loss": values})
        s = run.series["loss"]
        assert CHECKS["constant"](Ctx(run, "loss", s.steps, s.values, typed)) is None


def test_scored_drops_exact_zeros_from_the_falling_loss():
    """An eval loss that rises while the training loss climbs and then logs 0.0 (a filtered NaN)
    is no overfit: the zeros are not a fit."""
    ev = [2.9, 0.23, 0.17, 0.15, 0.14, 0.16, 0.32, 0.76, 0.9, 1.1]
    tr = [2.97, 0.45, 0.33, 0.26, 0.25, 0.28, 0.44, 1.05, 0.0, 0.0]
    run = _run({"eval/loss": ev, "loss": tr})
    typed, _ = parse(PARAMS["rising_vs_falling"], {"against": ["loss"]})
    s = run.series["eval/loss"]
    assert CHECKS["rising_vs_falling"](Ctx(run, "eval/loss", s.steps, s.values, typed)) is None


def test_constant_coarse_answer():
    """Pinned to every digit over batches: `pinned`; the same repeats as epoch means say only that
    the loss is flat (the weights do not move)."""
    params = {"min_share": 0.9, "min_count": 3, "min_points": 3, "coarse_answer": "flat"}
    assert _check("constant", _run({"loss": [1.9114] * 10}), "loss", **params).answer is None
    run = _run({"loss": [1.9114] * 10})
    run.meta["step_axis"] = "epoch"
    hit = _check("constant", run, "loss", **params)
    assert hit.answer == "flat"
    assert hit.summary == ("loss is exactly 1.9114 on 100% of points (10 of 10, steps 1-10): each row is an epoch's "
                           "mean, so the model's outputs stopped changing")


def test_gap_while_stalled_persistent_gap():
    """Eight evaluations of a run's tail, each about 22x a training loss of 0.12 and no better at the
    end: the gap is a finding though the excerpt never shows it open; the last eval (2.73) against the
    training loss logged since the one before (0.105) is 25.9x. Still improving, or with a training
    loss that blew up past its start, it is not."""
    ev = [2.701, 2.713, 2.687, 2.727, 2.702, 2.756, 2.708, 2.732]
    tr = [0.1249, 0.1265, 0.118, 0.1135, 0.1266, 0.1124, 0.1189, 0.1054]
    run = _run({"eval/loss": ev, "loss": tr})
    hit = _check("gap_while_stalled", run, "eval/loss", against=["loss"], lone_ratio=5.0)
    assert hit.summary == ("eval/loss is 2.73 at step 8 while loss is 0.105: 25.9x the training loss, a model that "
                           "fits its training set and little else")
    typed, _ = parse(PARAMS["gap_while_stalled"], {"against": ["loss"], "lone_ratio": 5.0})
    for e, r in ((ev[:-1] + [2.6], tr), (ev, [0.1, 0.1, 0.1, 1.0, 1.0, 1.0, 1.0, 1.0])):
        quiet = _run({"eval/loss": e, "loss": r})
        s = quiet.series["eval/loss"]
        assert CHECKS["gap_while_stalled"](Ctx(quiet, "eval/loss", s.steps, s.values, typed)) is None


def test_chance_one_row_with_accuracy():
    """One evaluation after training began: loss 2.31 with accuracy 0.1 is ln 10 at 1/10; the same
    row at step 0 is where every classifier starts."""
    params = {"accuracy": ["eval/accuracy"], "min_points": 3, "min_points_with_accuracy": 1, "tol": 0.1}
    run = _run({"loss": [2.31], "eval/accuracy": [0.1]}, steps={"loss": [312], "eval/accuracy": [312]})
    hit = _check("chance", run, "loss", **params)
    assert hit.summary.startswith("loss stays within 0.1 of ln 10 = 2.3")
    typed, _ = parse(PARAMS["chance"], params)
    for steps in ([0], None):
        at = _run({"loss": [2.377], "eval/accuracy": [0.1]}, steps={"loss": [0], "eval/accuracy": [0]}) if steps \
            else _run({"loss": [2.377]}, steps={"loss": [312]})
        s = at.series["loss"]
        assert CHECKS["chance"](Ctx(at, "loss", s.steps, s.values, typed)) is None


def test_chance_percent_accuracy_and_listed_class_counts():
    """A top-1 accuracy printed in percent that reads as a fraction (0.1 for 0.1%) beside a loss at
    ln 1001: chance over a thousand classes. Six points at ln 3000 (SwAV's prototypes) with no
    accuracy: the listed count names C although only three points fall in the judged half."""
    params = {"accuracy": ["accuracy"], "tol": 0.1, "acc_tol": 0.15, "window": "tail", "window_fraction": 0.5,
              "min_points": 3, "loss_only_tol": 0.005, "loss_only_min_points": 4, "loss_only_vocab": [3000]}
    run = _run({"loss": [6.911, 6.911, 6.909, 6.909, 6.909], "accuracy": [0.1, 0.1, 0.1, 0.1, 0.1]})
    hit = _check("chance", run, "loss", **params)
    assert hit.numbers["classes"] == 1001 and "accuracy 0.001 = 1/1001" in hit.summary
    hit = _check("chance", _run({"loss": [8.0066, 8.0065, 8.0068, 8.0066, 8.0065, 8.0068]}), "loss", **params)
    assert hit.numbers["classes"] == 3000


def test_chance_ten_epoch_lines_whose_second_half_sits_at_ln_c():
    """Ten epoch lines at ln 10 to the third decimal with a training accuracy in percent at 10-12%: the judged
    half holds five points, but the run logged ten, so the loss names C = 10 with the accuracy agreeing. Five
    lines of the same run stay quiet (too few to judge a level against an accuracy)."""
    params = {"accuracy": ["accuracy"], "tol": 0.1, "acc_tol": 0.15, "window": "tail", "window_fraction": 0.5,
              "min_points": 3, "loss_only_tol": 0.005, "loss_only_min_points": 3, "loss_only_agrees": True}
    loss = [2.3040, 2.3035, 2.3027, 2.3023, 2.3025, 2.3019, 2.3015, 2.3015, 2.3014, 2.3010]
    acc = [10.05, 10.0, 10.15, 10.25, 10.4, 11.05, 11.5, 11.6, 12.1, 12.2]
    hit = _check("chance", _run({"loss": loss, "accuracy": acc}), "loss", **params)
    assert hit.numbers["classes"] == 10
    typed, _ = parse(PARAMS["chance"], params)
    quiet = _run({"loss": loss[5:], "accuracy": acc[5:]})
    s = quiet.series["loss"]
    assert CHECKS["chance"](Ctx(quiet, "loss", s.steps, s.values, typed)) is None


def test_chance_per_batch_scatter_around_ln_c():
    """A per-batch loss scattered around ln 10 = 2.3026 (the judged half's median 2.3061, every point
    within 0.03) with no accuracy and no label count: C = 10 from the loss alone. The same scatter on
    eight points stays quiet (four in the judged half: too few to judge a scatter), and so does one
    centred 0.02 lower."""
    params = {"tol": 0.1, "window": "tail", "window_fraction": 0.5, "min_points": 3, "loss_only_tol": 0.005,
              "loss_only_min_points": 3, "loss_only_batch_noise": 0.03}
    wobble = [0.021, -0.014, 0.008, -0.022, 0.012, -0.005, 0.017, -0.019, 0.003, 0.026, -0.011]
    loss = [2.3031 + w for w in wobble * 2]
    hit = _check("chance", _run({"loss": loss}), "loss", **params)
    assert hit.numbers["classes"] == 10 and "its median within 0.005 of it, 90% of points within 0.03" in hit.summary
    typed, _ = parse(PARAMS["chance"], params)
    for quiet in (_run({"loss": loss[:8]}), _run({"loss": [v - 0.02 for v in loss]})):
        s = quiet.series["loss"]
        assert CHECKS["chance"](Ctx(quiet, "loss", s.steps, s.values, typed)) is None



def test_chance_loss_level_agrees_with_noisy_accuracy():
    """A per-batch loss around ln 10 (median 2.3061) beside a per-batch accuracy of 0.12 (the batch
    scatter puts it nearer 1/8 than 1/10): with loss_only_agrees the loss's C = 10 stands, since 0.12 is
    inside the chance band of 1/10 (at most 0.135); without it the accuracy's reading (C = 9 or 8, ln C
    0.1 nats or more away) finds nothing. An accuracy of 0.3 is above chance, and three logs are too few."""
    params = {"tol": 0.1, "window": "tail", "window_fraction": 0.5, "min_points": 3, "loss_only_tol": 0.005,
              "loss_only_min_points": 3, "loss_only_batch_noise": 0.03, "accuracy": ["accuracy"]}
    wobble = [0.021, -0.014, 0.008, -0.022, 0.012, -0.005, 0.017, -0.019, 0.003, 0.026, -0.011]
    loss = [2.3031 + w for w in wobble * 2]
    acc = [0.12] * len(loss)
    hit = _check("chance", _run({"loss": loss, "accuracy": acc}), "loss", loss_only_agrees=True, **params)
    assert hit.numbers["classes"] == 10 and "accuracy 0.12 (chance 1/10 = 0.1)" in hit.summary
    _quiet("chance", _run({"loss": loss, "accuracy": acc}), "loss", **params)
    _quiet("chance", _run({"loss": loss, "accuracy": [0.3] * len(loss)}), "loss", loss_only_agrees=True, **params)
    _quiet("chance", _run({"loss": loss[:6], "accuracy": acc[:6]}), "loss", loss_only_agrees=True, **params)

def test_below_train_by():
    """Test views at 20.4 then 18.6 dB beside training views at 30.1 then 44.1: the held-out best is
    25.5 dB under the training PSNR at the last evaluation. A 3 dB gap stays quiet."""
    run = _run({"psnr": [30.1, 44.1], "eval/psnr": [20.4, 18.6]})
    hit = _check("below_train_by", run, "eval/psnr", against=["psnr"], by=10.0)
    assert hit.summary == ("eval/psnr is at most 20.4 (last 18.6 at step 2) while psnr on the training data is "
                           "37.1: 16.7 lower on held-out data")
    typed, _ = parse(PARAMS["below_train_by"], {"against": ["psnr"], "by": 10.0})
    close = _run({"psnr": [29.5, 33.0], "eval/psnr": [26.4, 28.9]})
    s = close.series["eval/psnr"]
    assert CHECKS["below_train_by"](Ctx(close, "eval/psnr", s.steps, s.values, typed)) is None


def test_constant_from_where_the_value_first_appears():
    """Three moving points, then 0.6931 to every digit: frozen after a spike."""
    run = _run({"loss": [0.6773, 1.023, 3.571] + [0.6931] * 9})
    hit = _check("constant", run, "loss", min_share=0.9, min_count=3, min_points=3)
    assert hit.summary == "loss is exactly 0.6931 on 100% of points from step 4 on (9 of 12, steps 4-12)"
    run = _run({"loss": [2.3, 1.5, 1.0, 0.5, 0.2] + [0.01] * 6})  # a value printed to 1 digit: rounding, quiet
    typed, _ = parse(PARAMS["constant"], {"min_share": 0.9, "min_count": 3, "min_points": 3})
    s = run.series["loss"]
    assert CHECKS["constant"](Ctx(run, "loss", s.steps, s.values, typed)) is None


def test_nonfinite_eval_between_training_logs():
    """An eval loss NaN at epoch 1.0 between training logs at 0.93 and 1.07: the training loss last
    logged before it (1.58 at 0.93) is finite, so the eval NaN is the finding; with the training
    loss NaN at 0.93 it is not."""
    params = {"while_finite": ["loss"], "missing_other": "fire"}
    steps = {"loss": [0.8, 0.93, 1.07], "eval/loss": [1.0]}
    hit = _check("nonfinite", _run({"loss": [1.72, 1.58, 2.41], "eval/loss": [float("nan")]}, steps=steps), "eval/loss", **params)
    assert hit.summary == "eval/loss is NaN on 1 of 1 logged points (100%), first at step 1 while loss stays finite at those steps"
    run = _run({"loss": [1.72, float("nan"), 2.41], "eval/loss": [float("nan")]}, steps=steps)
    typed, _ = parse(PARAMS["nonfinite"], params)
    s = run.series["eval/loss"]
    assert CHECKS["nonfinite"](Ctx(run, "eval/loss", s.steps, s.values, typed)) is None


def test_constant_one_epoch_mean_is_enough():
    """A box loss of exactly 0 in one epoch's row (every batch averaged) beside a classification loss
    of 64.1: reported; the same single row from a per-step log is one batch and is not."""
    params = {"value": 0.0, "min_share": 0.9, "min_count": 2, "min_points": 2, "only_while_nonzero": ["cls_loss"],
              "epoch_min_count": 1}
    run = _run({"box_loss": [0.0], "cls_loss": [64.14]}, steps={"box_loss": [10], "cls_loss": [10]})
    run.meta["step_axis"] = "epoch"
    hit = _check("constant", run, "box_loss", **params)
    assert hit.summary == "box_loss is exactly 0 on 100% of points (1 of 1, step 10)"
    run.meta["step_axis"] = "explicit"
    typed, _ = parse(PARAMS["constant"], params)
    s = run.series["box_loss"]
    assert CHECKS["constant"](Ctx(run, "box_loss", s.steps, s.values, typed)) is None


def test_gap_while_stalled_lone_gap_against_the_last_epoch():
    """Two evaluations (epochs 1 and 29) at 0.494 and 0.5 beside training accuracies 0.299 and 0.991:
    the training value since the evaluation before is 0.991, 0.491 above the last eval."""
    params = {"against": ["accuracy"], "worse": "down", "gap": 0.2, "train_at_least": 0.98, "min_points": 4,
              "min_points_after": 2, "lone_gap": 0.3}
    run = _run({"eval/accuracy": [0.494, 0.5], "accuracy": [0.299, 0.991]},
               steps={"eval/accuracy": [1, 29], "accuracy": [1, 29]})
    hit = _check("gap_while_stalled", run, "eval/accuracy", **params)
    assert hit.summary == ("eval/accuracy is 0.5 at step 29 while accuracy is 0.991: 0.491 below a training set "
                           "the model has all but memorised")


def test_nonfinite_skipped_steps_and_nan_to_the_end():
    """A NaN gradient norm at the first logged step, then finite norms: the scaler skipped it (quiet),
    as is one NaN among twelve finite ones; NaN over the last five of thirty points is the run
    dying: reported, with the answer for a late start."""
    params = {"while_finite": ["loss"], "missing_other": "fire", "skipped_share": 0.1,
              "answer_end_early": "start", "answer_end_late": "later"}
    typed, _ = parse(PARAMS["nonfinite"], params)
    nan = float("nan")
    for g in ([nan, 757.0, 657.0, 640.0], [1.0] * 6 + [nan] + [1.0] * 6):
        run = _run({"grad_norm": g, "loss": [2.0] * len(g)})
        s = run.series["grad_norm"]
        assert CHECKS["nonfinite"](Ctx(run, "grad_norm", s.steps, s.values, typed)) is None
    g = [1.0] * 25 + [nan] * 5
    run = _run({"grad_norm": g, "loss": [2.0] * 30}, steps={"grad_norm": range(10, 310, 10), "loss": range(10, 310, 10)})
    hit = _check("nonfinite", run, "grad_norm", **params)
    assert hit.answer == "later"
    assert hit.summary == ("grad_norm is NaN on 5 of 30 logged points (17%), first at step 260 while loss stays finite "
                           "at those steps and to the end of the log")



def test_nonfinite_finite_then_bad_to_the_end():
    """An unnamed number finite at five logs and NaN at the last three: reported, with the answer for
    a late start; NaN at a log in the middle with finite ones after it, or NaN from the first log,
    is not that shape (quiet)."""
    params = {"finite_then_bad_to_end": 3, "answer_end_early": "start", "answer_end_late": "later"}
    nan = float("nan")
    hit = _check("nonfinite", _run({"value": [2.6, 2.5, 2.6, 2.7, 2.6, nan, nan, nan]}), "value", **params)
    assert hit.answer == "later"
    assert hit.summary == "value is NaN on 3 of 8 logged points (38%), first at step 6 and to the end of the log"
    typed, _ = parse(PARAMS["nonfinite"], params)
    for v in ([2.6, 2.5, nan, 2.7, 2.6, nan, nan, nan], [nan] * 8, [2.6, 2.5, nan, nan]):
        run = _run({"value": v})
        s = run.series["value"]
        assert CHECKS["nonfinite"](Ctx(run, "value", s.steps, s.values, typed)) is None


def test_constant_between_bounds_and_printed_digits():
    """An eval accuracy of 0.110204 at six evaluations: reported; the same at 1.0 (a solved easy set),
    at 0 (another finding) or at 0.98 (two printed digits repeat by rounding) is quiet, and so is a
    score that settled after two better evaluations when the value must hold from the first."""
    params = {"min_share": 1.0, "min_count": 5, "min_points": 5, "above": 0.0, "below": 0.999, "min_digits": 3}
    hit = _check("constant", _run({"eval/accuracy": [0.110204] * 6}), "eval/accuracy", **params)
    assert hit.summary == "eval/accuracy is exactly 0.110204 on 100% of points (6 of 6, steps 1-6)"
    typed, _ = parse(PARAMS["constant"], params)
    for values in ([1.0] * 6, [0.0] * 6, [0.98] * 6):
        run = _run({"eval/accuracy": values})
        s = run.series["eval/accuracy"]
        assert CHECKS["constant"](Ctx(run, "eval/accuracy", s.steps, s.values, typed)) is None
    # a score that settles after improving is judged from where it settles, unless the rule wants the
    # value from the first evaluation on
    settles = [0.5, 0.61] + [0.7234] * 6
    assert _check("constant", _run({"eval/accuracy": settles}), "eval/accuracy", **params) is not None
    typed, _ = parse(PARAMS["constant"], {**params, "since_first_seen": False})
    run = _run({"eval/accuracy": settles})
    s = run.series["eval/accuracy"]
    assert CHECKS["constant"](Ctx(run, "eval/accuracy", s.steps, s.values, typed)) is None


def test_threshold_min_rise_from_the_first_log():
    """A loss that climbs from 8,700 to 1.6e7 is reported, and so is one that falls from 3.5e14 to
    8,400; one that stays between 1.2e7 and 4.5e7 (a squared error in large units) is quiet, unless a
    value is past the exempt bound."""
    params = {"op": "abs>", "value": 1e7, "min_share": 0.0, "min_count": 1, "min_points": 1,
              "min_rise": 100.0, "rise_exempt_above": 1e15}
    hit = _check("threshold", _run({"loss": [8734.0, 2.1e6, 1.6e7, 3.5e6]}), "loss", **params)
    assert hit.summary == "loss abs> 1.00e+07 on 25% of 4 points (step 3), max 1.60e+07 at step 3"
    typed, _ = parse(PARAMS["threshold"], params)
    run = _run({"loss": [1.7e7, 4.5e7, 1.9e7, 1.2e7]})
    s = run.series["loss"]
    assert CHECKS["threshold"](Ctx(run, "loss", s.steps, s.values, typed)) is None
    assert _check("threshold", _run({"loss": [3.5e14, 1.1e5, 8437.0]}), "loss", **params) is not None
    assert _check("threshold", _run({"loss": [4.2e23, 4.1e23, 4.2e23]}), "loss", **params) is not None


def test_threshold_rise_with_the_training_loss():
    """One eval MSE of 2.2e9 beside a training MSE that came down 3.9e10 -> 2.1e9 (targets in dollars) is
    quiet with rise_with [loss]; the same eval value beside a training loss near 1 is a blow-up, and so is
    one eval point alone (no rise test without three points) and a value outside the band the loss spans."""
    params = {"op": ">", "value": 1e7, "min_share": 0.0, "min_count": 1, "min_points": 1,
              "min_rise": 100.0, "rise_exempt_above": 1e15, "rise_with": ["loss"]}
    dollars = {"loss": [3.9e10, 6.5e9, 2.6e9, 2.1e9, 2.1e9], "eval/loss": [2.2e9]}
    _quiet("threshold", _run(dollars, steps={"eval/loss": [5]}), "eval/loss", **params)
    scaled = {"loss": [1.2, 0.8, 0.6, 0.5, 0.5], "eval/loss": [2.2e9]}
    assert _check("threshold", _run(scaled, steps={"eval/loss": [5]}), "eval/loss", **params) is not None
    assert _check("threshold", _run({"eval/loss": [2.2e9]}), "eval/loss", **params) is not None
    # an epoch's sum of 4.6e7 beside per-batch losses of 4.6e5-5.5e6 lies outside their band: judged alone
    summed = {"loss": [2.3e6, 5.5e6, 4.6e5], "total_loss": [4.57e7]}
    assert _check("threshold", _run(summed, steps={"total_loss": [3]}), "total_loss", **params) is not None


def test_zero_while_falling_with_a_zero_sibling():
    """mAP at exactly 0 at one evaluation is reported when mAP@0.5 is exactly 0 too; with mAP@0.5 at
    0.001, or logged alone, one evaluation is not enough."""
    params = {"against": ["loss"], "min_points": 1, "siblings": ["eval/map50"], "min_with_siblings": 1}
    hit = _check("zero_while_falling", _run({"eval/map": [0.0], "eval/map50": [0.0]}), "eval/map", **params)
    assert hit.summary == "eval/map is exactly 0 at its only evaluation (step 1), and so is eval/map50"
    typed, _ = parse(PARAMS["zero_while_falling"], params)
    for series in ({"eval/map": [0.0], "eval/map50": [0.001]}, {"eval/map": [0.0]}):
        run = _run(series)
        s = run.series["eval/map"]
        assert CHECKS["zero_while_falling"](Ctx(run, "eval/map", s.steps, s.values, typed)) is None


def test_loss_below_the_bound_its_accuracy_sets():
    """A loss of 0.00015 beside an accuracy of 0.5 is impossible for one cross-entropy (at least
    0.5 * ln 2 = 0.347): reported; 0.15 beside 0.95, or 0.33 beside 0.89, is an ordinary pair, and a
    loss a constant factor under the bound that falls with the accuracy is a printed scale."""
    params = {"against": ["loss"], "max_acc": 0.9, "margin": 0.05, "min_count": 2, "min_share": 0.5}
    run = _run({"accuracy": [0.4778, 0.49, 0.5, 0.5, 0.5], "loss": [0.1084, 0.0041, 0.0006, 0.0002, 0.00015]})
    hit = _check("loss_below_accuracy_bound", run, "accuracy", **params)
    assert hit.summary == ("loss is 1.50e-04 while accuracy is 0.5 at step 5 (4 of 5 logs that print both): "
                           "a cross-entropy over samples of which 50% are wrong is at least 0.347")
    typed, _ = parse(PARAMS["loss_below_accuracy_bound"], params)
    for series in ({"accuracy": [0.31, 0.58, 0.79, 0.89, 0.95], "loss": [1.9, 1.2, 0.61, 0.33, 0.15]},
                   {"accuracy": [0.77, 0.879, 0.898, 0.908, 0.913], "loss": [0.0047, 0.0025, 0.0022, 0.0019, 0.0018]}):
        run = _run(series)
        s = run.series["accuracy"]
        assert CHECKS["loss_below_accuracy_bound"](Ctx(run, "accuracy", s.steps, s.values, typed)) is None


def test_constant_reads_an_accuracy_in_percent():
    """An accuracy of 100 (percent) at four logs is exactly 1 as a fraction: reported; one that climbs
    to 100 after 81 and 96 is not pinned from its first log, and an eval at 1 beside a training
    accuracy that climbed to 1 is a model that learned."""
    params = {"value": 1.0, "fraction": True, "min_share": 1.0, "min_count": 3, "min_points": 3, "since_first_seen": False}
    hit = _check("constant", _run({"accuracy": [100.0] * 4}), "accuracy", **params)
    assert hit.summary == "accuracy is exactly 1 on 100% of points (4 of 4, steps 1-4)"
    typed, _ = parse(PARAMS["constant"], params)
    run = _run({"accuracy": [81.25, 96.25, 100.0, 100.0]})
    s = run.series["accuracy"]
    assert CHECKS["constant"](Ctx(run, "accuracy", s.steps, s.values, typed)) is None
    # an eval at 1 from its first evaluation beside a training accuracy that climbed there: learned
    typed, _ = parse(PARAMS["constant"], {**params, "unless_below": ["accuracy"]})
    run = _run({"eval/accuracy": [1.0] * 4, "accuracy": [0.0, 0.5, 1.0, 1.0]})
    s = run.series["eval/accuracy"]
    assert CHECKS["constant"](Ctx(run, "eval/accuracy", s.steps, s.values, typed)) is None


def test_near_while_falling_alone():
    """An AUC of 0.48-0.49 at four evaluations with no loss logged: reported with min_alone 4; at
    three evaluations, or with one at 0.62, it needs a falling loss beside it."""
    params = {"target": 0.5, "tol": 0.05, "min_points": 1, "against": ["loss"], "min_alone": 4}
    hit = _check("near_while_falling", _run({"eval/auc": [0.4825, 0.4825, 0.4884, 0.4825]}), "eval/auc", **params)
    assert hit.summary == ("eval/auc is within 0.05 of chance 0.5 at all 4 evaluations (steps 1-4, median 0.482): "
                           "the model ranks no better than a coin")
    typed, _ = parse(PARAMS["near_while_falling"], params)
    for values in ([0.4825, 0.4825, 0.4884], [0.4825, 0.62, 0.4884, 0.4825]):
        run = _run({"eval/auc": values})
        s = run.series["eval/auc"]
        assert CHECKS["near_while_falling"](Ctx(run, "eval/auc", s.steps, s.values, typed)) is None


def test_accuracy_at_chance_agrees_with_the_loss():
    """A training accuracy of 0.31-0.33 at nine logs is 1/3 only if the loss beside it is near ln 3:
    at 1.1 it is reported, at 4.0 (a token accuracy over a vocabulary) it is quiet."""
    params = {"acc_tol": 0.1, "min_points": 8, "max_classes": 10, "loss": ["loss"]}
    acc = [0.3118, 0.3036, 0.3201, 0.3143, 0.3297, 0.3052, 0.3166, 0.3219, 0.3297]
    hit = _check("accuracy_at_chance", _run({"accuracy": acc, "loss": [1.1] * 9}), "accuracy", **params)
    assert hit.numbers["classes"] == 3
    typed, _ = parse(PARAMS["accuracy_at_chance"], params)
    run = _run({"accuracy": acc, "loss": [4.05, 4.1, 3.98, 3.95, 3.9, 4.12, 3.92, 3.88, 3.85]})
    s = run.series["accuracy"]
    assert CHECKS["accuracy_at_chance"](Ctx(run, "accuracy", s.steps, s.values, typed)) is None


def test_collapse_to_zero_is_no_toy_task_at_a_thousand_classes():
    """A loss from ln 1000 = 6.9085 at init to exactly 0 two logs later beside an accuracy of 100: not a
    toy task solved fast (reported); from ln 2 = 0.693, with start_min lowered to see it, it is (quiet)."""
    params = {"start_min": 0.5, "floor": 1e-3, "within": 3, "min_points": 3, "toy_max_classes": 20}
    steps = {"loss": [0, 10, 20, 30, 40], "accuracy": [0, 10, 20, 30, 40]}
    run = _run({"loss": [6.9085, 2.9971, 0.0, 0.0, 0.0], "accuracy": [0.0, 100.0, 100.0, 100.0, 100.0]}, steps)
    hit = _check("collapses_to_zero", run, "loss", **params)
    assert hit.numbers["steps"] == 2
    typed, _ = parse(PARAMS["collapses_to_zero"], params)
    run = _run({"loss": [0.6931, 0.2, 0.0, 0.0, 0.0], "accuracy": [0.5, 100.0, 100.0, 100.0, 100.0]}, steps)
    s = run.series["loss"]
    assert CHECKS["collapses_to_zero"](Ctx(run, "loss", s.steps, s.values, typed)) is None

def test_constant_only_while_another_is_zero():
    """An LR of exactly 0 beside a gradient norm of exactly 0 at every log: reported; beside a norm of
    1.2, or with no norm logged, it is not this finding."""
    params = {"value": 0.0, "min_share": 1.0, "min_count": 2, "min_points": 2, "only_while_zero": ["grad_norm"]}
    hit = _check("constant", _run({"learning_rate": [0.0] * 4, "grad_norm": [0.0] * 4}), "learning_rate", **params)
    assert hit.summary == "learning_rate is exactly 0 on 100% of points (4 of 4, steps 1-4)"
    typed, _ = parse(PARAMS["constant"], params)
    for values in ({"learning_rate": [0.0] * 4, "grad_norm": [1.2] * 4}, {"learning_rate": [0.0] * 4}):
        run = _run(values)
        s = run.series["learning_rate"]
        assert CHECKS["constant"](Ctx(run, "learning_rate", s.steps, s.values, typed)) is None


def test_nonfinite_one_row_is_early_only_at_a_small_step():
    """A lone NaN row at step 95,400 is a run gone bad late (the `late` phase reports it); the same
    row at step 3 is at the start of the log, and the `late` phase leaves it alone."""
    params = {"phase": "late", "early_steps": 20, "early_fraction": 0.05}
    nan = float("nan")
    hit = _check("nonfinite", _run({"mel_loss": [nan]}, steps={"mel_loss": [95400]}), "mel_loss", **params)
    assert hit.summary == "mel_loss is NaN on 1 of 1 logged points (100%), first at step 95,400"
    typed, _ = parse(PARAMS["nonfinite"], params)
    run = _run({"mel_loss": [nan]}, steps={"mel_loss": [3]})
    s = run.series["mel_loss"]
    assert CHECKS["nonfinite"](Ctx(run, "mel_loss", s.steps, s.values, typed)) is None


def test_rebound_on_epoch_means():
    """Nine epoch means: the low 1.093 at epoch 4, then up to a median of 1.214 over the last three,
    11% above it; the trend's own second differences are about 0.01, far below the climb. The same
    nine points as per-step losses are too few (50 needed)."""
    y = [1.5869, 1.2171, 1.1202, 1.0933, 1.1043, 1.1402, 1.1855, 1.2136, 1.2371]
    params = {"min_rise": 0.1, "low_before": 0.6, "tail": 0.25, "min_points": 50, "epoch_min_points": 6}
    run = _run({"loss": y})
    run.meta["step_axis"] = "epoch"
    hit = _check("rebound", run, "loss", **params)
    assert hit.summary == ("loss fell from 1.22 to 1.09 by step 4, then climbed back to 1.21 (+11%) and stayed there "
                           "to step 9")
    run.meta["step_axis"] = "explicit"
    typed, _ = parse(PARAMS["rebound"], params)
    s = run.series["loss"]
    assert CHECKS["rebound"](Ctx(run, "loss", s.steps, s.values, typed)) is None


def test_accuracy_at_chance():
    """Twelve training accuracies between 0.093 and 0.104: all within 10% of 1/10, median 0.0985, and
    no higher at the end: chance over ten classes. Climbing from 0.1 to 0.13 is learning (quiet)."""
    y = [0.0933, 0.0984, 0.1005, 0.0981, 0.1041, 0.0958, 0.0986, 0.0995, 0.1012, 0.0972, 0.0985, 0.0968]
    hit = _check("accuracy_at_chance", _run({"accuracy": y}), "accuracy")
    assert hit.summary == ("accuracy stays within 10% of chance, 1/10 = 0.1, at all 12 points (steps 1-12, median "
                           "0.0985): the model learns nothing it can use")
    assert hit.numbers["classes"] == 10
    typed, _ = parse(PARAMS["accuracy_at_chance"], {})
    run = _run({"accuracy": [0.1 + 0.0028 * i for i in range(12)]})
    s = run.series["accuracy"]
    assert CHECKS["accuracy_at_chance"](Ctx(run, "accuracy", s.steps, s.values, typed)) is None


def test_worsening_quiet_when_the_training_accuracy_falls_the_same_way():
    """An eval "accuracy" falling 0.0323 -> 0.0285 while the training loss falls is reported; with the
    training "accuracy" falling 0.0337 -> 0.0283 beside it, the score is lower-is-better: quiet."""
    ev = [0.0323, 0.0307, 0.0303, 0.0301, 0.0301, 0.0294, 0.0292, 0.0289, 0.0287, 0.0286, 0.0283, 0.0286, 0.0285]
    tr = [0.0337, 0.0312, 0.0306, 0.0303, 0.0300, 0.0297, 0.0294, 0.0291, 0.0289, 0.0288, 0.0286, 0.0285, 0.0283]
    loss = [0.746 - 0.015 * i for i in range(13)]
    params = {"worse": "down", "min_rise": 0.05, "z": 3.0, "min_points": 4, "against": ["loss"],
              "unless_train_worse": ["accuracy"]}
    hit = _check("worsening", _run({"eval/accuracy": ev, "loss": loss}), "eval/accuracy", **params)
    assert hit.summary.startswith("eval/accuracy fell from its best 0.0323 at step 1")
    typed, _ = parse(PARAMS["worsening"], params)
    run = _run({"eval/accuracy": ev, "accuracy": tr, "loss": loss})
    s = run.series["eval/accuracy"]
    assert CHECKS["worsening"](Ctx(run, "eval/accuracy", s.steps, s.values, typed)) is None


def test_threshold_skips_the_first_steps_of_a_log_from_init():
    """Gradient norms of 13-25 at steps 0-3 of a log that runs to step 65,000, then 1-7: the large
    ones lie within the first 2% of the steps (a fresh model), quiet; the same values in an excerpt
    that starts at step 20,000 are reported."""
    params = {"op": ">", "value": 10.0, "min_share": 0.2, "min_count": 3, "skip_first_steps": 0.02}
    g = [13.5, 25.0, 17.1, 13.8, 6.7, 7.4, 6.9, 0.96, 0.62]
    typed, _ = parse(PARAMS["threshold"], params)
    run = _run({"grad_norm": g}, steps={"grad_norm": [0, 1, 2, 3, 400, 800, 64000, 64998, 65000]})
    s = run.series["grad_norm"]
    assert CHECKS["threshold"](Ctx(run, "grad_norm", s.steps, s.values, typed)) is None
    later = _run({"grad_norm": g}, steps={"grad_norm": [20000, 20001, 20002, 20003, 20400, 20800, 64000, 64998, 65000]})
    hit = _check("threshold", later, "grad_norm", **params)
    assert hit.summary == "grad_norm > 10 on 44% of 9 points (steps 20,000-20,003), max 25 at step 20,001"


def _quiet(name: str, run: Run, metric: str, **params) -> None:
    typed, problems = parse(PARAMS[name], params)
    assert not problems, problems
    s = run.series[metric]
    assert CHECKS[name](Ctx(run, metric, s.steps, s.values, typed)) is None


def test_equals_twin():
    """An eval loss equal to the training loss at all 5 steps (1.9 -> 0.41) is the training set scored
    again; the same values 5% higher are an evaluation of other data, and a pair equal only because both
    are stuck at one value is another finding."""
    train = [1.9021, 1.2213, 0.8452, 0.5907, 0.4091]
    hit = _check("equals_twin", _run({"loss": train, "eval/loss": train}), "eval/loss")
    assert hit.summary.startswith("eval/loss equals loss at 5 of 5 shared steps (steps 1-5, from 1.9 to 0.409)")
    _quiet("equals_twin", _run({"loss": train, "eval/loss": [v * 1.05 for v in train]}), "eval/loss")
    _quiet("equals_twin", _run({"loss": [0.6931] * 5, "eval/loss": [0.6931] * 5}), "eval/loss")
    # with twin_prefix, a test score is read against the validation score of the same name
    val = [0.968251, 0.964579, 0.963067]
    hit = _check("equals_twin", _run({"eval/precision@1": val, "eval/test/precision@1": val}), "eval/test/precision@1",
                 prefix="eval/test/", twin_prefix="eval/")
    assert hit.summary.startswith("eval/test/precision@1 equals eval/precision@1 at 3 of 3 shared steps")


def test_equals_twin_share_counts_short():
    """Accuracies of 80 examples equal at all 10 steps, 2 of them printed with fewer than 3 digits (0.2, 0.65):
    only 8 of 10 (80%) count by default, under min_share 0.9; with share_counts_short all 10 do, and the 6
    distinct 3-digit values still make the case. A pair equal only at its short values stays quiet."""
    acc = [0.2, 0.65, 0.925, 0.9375, 0.9375, 0.95, 0.9625, 0.9375, 0.975, 0.9625]
    run = _run({"accuracy": acc, "eval/accuracy": acc})
    _quiet("equals_twin", run, "eval/accuracy")
    hit = _check("equals_twin", run, "eval/accuracy", share_counts_short=True)
    assert hit.summary.startswith("eval/accuracy equals accuracy at 10 of 10 shared steps (steps 1-10, from 0.2 to 0.963)")
    other = [0.2, 0.65] + [v - 0.0125 for v in acc[2:]]
    _quiet("equals_twin", _run({"accuracy": acc, "eval/accuracy": other}), "eval/accuracy", share_counts_short=True)


def test_low_while_other_high():
    """A discriminator loss falling to 0.007 while the generator loss climbs to 5 fires; a pair that
    stays near ln 2 is a balanced game, and a critic loss that goes negative (WGAN) has no such scale."""
    d = [0.6, 0.3, 0.1, 0.04, 0.02, 0.01, 0.008, 0.007]
    g = [0.8, 1.5, 2.4, 3.1, 3.8, 4.3, 4.7, 5.0]
    hit = _check("low_while_other_high", _run({"d_loss": d, "g_loss": g}), "d_loss")
    assert hit.summary.startswith("d_loss has a median of 0.009 over its last 4 of 8 logs (steps 5-8) while g_loss sits at 4.5")
    _quiet("low_while_other_high", _run({"d_loss": [0.69, 0.7, 0.68, 0.71] * 2, "g_loss": [0.7, 0.72] * 4}), "d_loss")
    _quiet("low_while_other_high", _run({"d_loss": [-0.5, -0.2, -0.01, 0.01] * 2, "g_loss": g}), "d_loss")


def test_threshold_quiet_when_the_large_loss_keeps_halving_or_the_accuracy_climbs():
    """A loss of 250 -> 90 over three logs (a loss summed over tokens, still falling fast) is quiet with
    unless_fell_by 0.5; a loss flat at 8,760 is reported, unless the accuracy beside it climbs by 30%."""
    params = {"op": ">", "value": 50.0, "min_share": 0.0, "min_count": 1, "min_points": 1, "unless_fell_by": 0.5,
              "unless_improved": ["accuracy"], "improved_by": 0.3, "improved_min_points": 2}
    _quiet("threshold", _run({"loss": [252.0, 131.0, 90.8]}), "loss", **params)
    hit = _check("threshold", _run({"loss": [8761.0, 8750.0, 8736.0], "accuracy": [0.0, 0.0, 0.0]}), "loss", **params)
    assert hit.summary == "loss > 50 on 100% of 3 points (steps 1-3), max 8,761 at step 1"
    _quiet("threshold", _run({"loss": [206.6, 190.0, 178.9], "accuracy": [0.26, 0.33, 0.38]}), "loss", **params)


def test_threshold_fell_by_medians():
    """A loss that swings between tens and a thousand from batch to batch, 1,000 at its first log and 40
    at its last: its end points fell by 96%, so unless_fell_by 0.5 reads it as a large loss still falling
    fast; with fell_by_medians the medians of its first and last tenths (1,000 and 30 -> 515; 900 and 40
    -> 470) fell by 9%, and the ten values above 50 are reported."""
    params = {"op": ">", "value": 50.0, "min_share": 0.0, "min_count": 1, "min_points": 1, "unless_fell_by": 0.5}
    swings = [1000.0, 30.0, 800.0, 40.0, 900.0, 35.0, 700.0, 50.0, 950.0, 45.0,
              600.0, 30.0, 850.0, 40.0, 750.0, 35.0, 800.0, 50.0, 900.0, 40.0]
    _quiet("threshold", _run({"loss": swings}), "loss", **params)
    hit = _check("threshold", _run({"loss": swings}), "loss", fell_by_medians=True, **params)
    assert hit.summary == "loss > 50 on 50% of 20 points (steps 1-19), max 1,000 at step 1"


def test_saturated_or_last():
    """Keras binary cross-entropy (clamp 15.4249) at 7.7125 on the last two of five epochs with accuracy 0.5:
    15.4249 x 0.5 = 7.7124, within 1%. Two of five is 40%, under min_share 0.5; with or_last 2 the last
    two logs matching with one and the same value are enough. Two last values that match but differ
    (7.7125 at accuracy 0.5, 7.6971 at 0.501) are a loss still moving, and stay quiet."""
    params = {"per_sample_max": 15.4249, "accuracy": ["accuracy"], "tol": 0.01, "min_share": 0.5, "min_count": 2}
    loss = [5.9177, 5.1146, 4.6022, 7.7125, 7.7125]
    acc = [0.48, 0.462, 0.472, 0.5, 0.5]
    _quiet("saturated", _run({"loss": loss, "accuracy": acc}), "loss", **params)
    hit = _check("saturated", _run({"loss": loss, "accuracy": acc}), "loss", or_last=2, **params)
    assert hit.summary == ("loss is 7.71 = 15.4 x (1 - accuracy 0.5) on 40% of 5 points (from step 4): every wrong "
                           "prediction is a saturated one-hot, so each costs the clamped maximum")
    moving = _run({"loss": loss[:4] + [7.6971], "accuracy": acc[:4] + [0.501]})
    _quiet("saturated", moving, "loss", or_last=2, **params)


def test_rising_vs_falling_alone_rise():
    """An eval loss that falls to 0.32 and ends at 1.7 (+430%) while the training loss holds near 0.33
    is reported with alone_rise 2.0; a rise to 0.5 (+56%) with the training loss holding is not."""
    params = {"against": ["loss"], "min_rise": 0.05, "min_points_after": 2, "min_other_fall": 0.1, "alone_rise": 2.0}
    train = [1.5, 0.9, 0.6, 0.45, 0.38, 0.34, 0.33, 0.33, 0.34, 0.34, 0.345]
    ev = [1.2, 0.8, 0.55, 0.42, 0.35, 0.32, 0.6, 0.9, 1.3, 1.6, 1.7]
    hit = _check("rising_vs_falling", _run({"eval/loss": ev, "loss": train}), "eval/loss", **params)
    assert hit.summary.startswith("eval/loss rose 431% from its minimum 0.32 at step 6 to 1.7 at step 11 while loss held")
    mild = ev[:6] + [0.4, 0.45, 0.48, 0.5, 0.5]
    _quiet("rising_vs_falling", _run({"eval/loss": mild, "loss": train}), "eval/loss", **params)


def test_loss_below_accuracy_bound_zero_pair():
    """One evaluation with loss exactly 0 and accuracy exactly 0 is nothing scored (with zero_pair);
    a loss of 0 beside an accuracy of 1 is a model right on every sample."""
    params = {"against": ["eval/loss"], "zero_pair": True}
    hit = _check("loss_below_accuracy_bound", _run({"eval/accuracy": [0.0], "eval/loss": [0.0]}), "eval/accuracy", **params)
    assert hit.summary.startswith("eval/loss is exactly 0 and eval/accuracy is exactly 0 at step 1")
    _quiet("loss_below_accuracy_bound", _run({"eval/accuracy": [1.0], "eval/loss": [0.0]}), "eval/accuracy", **params)


def test_constant_quiet_when_the_training_loss_falls():
    """A learning rate printed as 0 at all 8 epochs while the loss falls 2.35 -> 1.78 smoothly is a rate
    rounded away by the printing (unless_loss_falls 0.1); beside a flat loss it is reported."""
    params = {"value": 0.0, "min_share": 1.0, "min_count": 3, "min_points": 3, "unless_loss_falls": 0.1}
    falling = [2.35, 2.2, 2.08, 1.99, 1.91, 1.86, 1.81, 1.78]
    _quiet("constant", _run({"learning_rate": [0.0] * 8, "loss": falling}), "learning_rate", **params)
    hit = _check("constant", _run({"learning_rate": [0.0] * 8, "loss": [2.35, 2.36, 2.34, 2.35] * 2}), "learning_rate", **params)
    assert hit.summary == "learning_rate is exactly 0 on 100% of points (8 of 8, steps 1-8)"


def test_threshold_quiet_during_warmup():
    """Gradient norms of 80-118 over 6 logs while the learning rate climbs 1.4e-6 -> 1.9e-5 at every log
    are a warmup's (unless_warming_up); the same norms at a constant rate are reported."""
    params = {"op": ">", "value": 10.0, "min_share": 0.2, "min_count": 3, "unless_warming_up": ["learning_rate"]}
    g = [83.0, 96.0, 118.0, 101.0, 90.0, 85.0]
    _quiet("threshold", _run({"grad_norm": g, "learning_rate": [1.4e-6 * (i + 1) * 2.2 for i in range(6)]}), "grad_norm", **params)
    hit = _check("threshold", _run({"grad_norm": g, "learning_rate": [2e-5] * 6}), "grad_norm", **params)
    assert hit.summary == "grad_norm > 10 on 100% of 6 points (steps 1-6), max 118 at step 3"


def test_oscillation_quiet_for_a_converged_classifier():
    """Epoch losses turning by 10%+ of a 0.02 level while the accuracy is 0.99 are quiet with
    unless_accuracy_above 0.98; with the accuracy at 0.7 they are reported."""
    loss = [0.03, 0.02, 0.026, 0.018, 0.025, 0.017, 0.024, 0.016]
    params = {"min_swing": 0.1, "min_reversals": 3, "min_share": 0.25, "min_points": 6, "unless_accuracy_above": 0.98}
    _quiet("oscillation", _run({"loss": loss, "accuracy": [0.99] * 8}), "loss", **params)
    hit = _check("oscillation", _run({"loss": loss, "accuracy": [0.7] * 8}), "loss", **params)
    assert hit.summary.startswith("6 of 6 turns move loss by 10% or more")


def test_oscillation_quiet_for_a_wobble_at_the_floor():
    """A loss that fell 0.04 -> 0.0015 and wobbles by 0.0003 at each turn (a twentieth of its level, but under
    1% of the height it came down) is quiet with min_swing_of_range 0.05; the same wobble on a loss that never
    came down (swings as large as its whole range) fires."""
    tail = [0.0015, 0.0018, 0.0015, 0.0018, 0.0015, 0.0018, 0.0015, 0.0018]
    fallen = [0.04, 0.02, 0.01, 0.005, 0.003, 0.002] + tail
    _quiet("oscillation", _run({"loss": fallen}), "loss", min_swing_of_range=0.05)
    assert _check("oscillation", _run({"loss": fallen}), "loss") is not None
    assert _check("oscillation", _run({"loss": tail}), "loss", min_swing_of_range=0.05) is not None


def test_low_while_other_high_quiet_for_a_hinge_at_zero():
    """A discriminator loss exactly 0 on most of the window (a hinge whose margin is met) is quiet."""
    _quiet("low_while_other_high", _run({"d_loss": [0.3, 0.1, 0.0, 0.0, 0.0, 0.0], "g_loss": [4.0] * 6}), "d_loss")


def test_jump_to_band():
    """A loss of 2.28 that is 11.05 at the next log and stays near 11 reached the level of uniform
    guessing over ~63k tokens; one that climbs to 11 from 10.9 (a model from scratch) is quiet."""
    hit = _check("jump_to_band", _run({"loss": [2.276, 11.05, 11.02, 10.98]}), "loss")
    assert hit.summary.startswith("loss started at 2.28 (step 1) and is 11.1 by step 2, still 11 at step 4")
    _quiet("jump_to_band", _run({"loss": [10.9, 11.0, 10.95, 11.0]}), "loss")
    _quiet("jump_to_band", _run({"loss": [2.2, 11.0, 4.0, 2.3]}), "loss")
    _quiet("jump_to_band", _run({"loss": [2.2, 4.0, 11.0, 60.0, 900.0]}), "loss")  # passing through: an explosion


def test_zero_while_falling_alone_tol():
    """Fifteen Dice scores of at most 0.0007 count as zero with alone_tol 0.001 (min_alone 4); one of 0.02
    among them does not."""
    params = {"against": ["loss"], "min_alone": 4, "alone_tol": 0.001}
    dice = [0.0, 0.0004, 0.0, 0.0007] + [0.0] * 11
    hit = _check("zero_while_falling", _run({"eval/dice": dice}), "eval/dice", **params)
    assert hit.summary == "eval/dice is at most 0.001 at all 15 evaluations (steps 1-15, largest 7.00e-04)"
    _quiet("zero_while_falling", _run({"eval/dice": dice[:-1] + [0.02]}), "eval/dice", **params)


def test_rises_every_log():
    """Seven epoch losses rising at every epoch, 46.3 -> 79.3 (+71%), are reported; one dip in between,
    or rows that are not epochs, are quiet."""
    up = [46.31, 52.7, 58.2, 63.9, 69.4, 74.8, 79.33]
    run = _run({"loss": up})
    run.meta["step_axis"] = "epoch"
    hit = _check("rises_every_log", run, "loss")
    assert hit.summary.startswith("loss rose at every one of its 7 epochs, from 46.3 to 79.3 (+71%, steps 1-7)")
    dip = _run({"loss": up[:3] + [55.0] + up[4:]})
    dip.meta["step_axis"] = "epoch"
    _quiet("rises_every_log", dip, "loss")
    _quiet("rises_every_log", _run({"loss": up}), "loss")


def test_rises_every_log_rows_not_epochs():
    """Five batch losses logged every 50 steps, each above the one before, 118.8 -> 5834: with epochs_only off
    the rows are called logs, not epochs (a pass over the data is not what each row measured); a rise
    under min_rise (twice the first value) is quiet."""
    up = [118.8, 223.2, 485.1, 2717.7, 5834.1]
    run = _run({"loss": up}, steps={"loss": [0, 50, 100, 150, 200]})
    hit = _check("rises_every_log", run, "loss", epochs_only=False, min_rise=1.0)
    assert hit.summary == ("loss rose at every one of its 5 logs, from 119 to 5.83e+03 (+4811%, steps 0-200): "
                           "the updates move the loss uphill from its very first value")
    _quiet("rises_every_log", _run({"loss": [1.0, 1.1, 1.2, 1.4, 1.9]}), "loss", epochs_only=False, min_rise=1.0)
    # a running mean whose first print is one lucky batch: 3.8x its first value, 1.3x its second
    lucky = _run({"loss": [0.01757, 0.05098, 0.05253, 0.06434, 0.06668]})
    assert _check("rises_every_log", lucky, "loss", epochs_only=False, min_rise=1.0) is not None
    _quiet("rises_every_log", lucky, "loss", epochs_only=False, min_rise=1.0, start_points=2)
    assert _check("rises_every_log", run, "loss", epochs_only=False, min_rise=1.0, start_points=2) is not None


def test_rises_every_log_down_for_a_score():
    """direction: down. Ten held-out mAPs, each below the one before, 0.4321 -> 0.4083 (-5.5% of the first):
    reported as evaluations; one evaluation that recovers in between, a fall under min_rise (a tenth here) or
    a score that rises at every evaluation are quiet."""
    fall = [0.4321, 0.4281, 0.4252, 0.4212, 0.4177, 0.4172, 0.4159, 0.4126, 0.41, 0.4083]
    params = dict(direction="down", min_points=6, min_rise=0.05, epochs_only=False)
    hit = _check("rises_every_log", _run({"eval/map": fall}), "eval/map", **params)
    assert hit.summary == ("eval/map fell at every one of its 10 evaluations, from 0.432 to 0.408 (-6%, steps 1-10): "
                           "each evaluation is worse than the one before it, from the first, so the training moves the "
                           "model away from what it could do when it started")
    assert round(hit.numbers["rise"], 4) == 0.0551
    _quiet("rises_every_log", _run({"eval/map": fall[:5] + [0.419] + fall[6:]}), "eval/map", **params)
    _quiet("rises_every_log", _run({"eval/map": fall}), "eval/map", **{**params, "min_rise": 0.1})
    _quiet("rises_every_log", _run({"eval/map": fall[::-1]}), "eval/map", **params)
    # unless_train_worse: a training accuracy that falls over the same evaluations (0.912 -> 0.776, a
    # twentieth of its best and more) quiets it; one that rises does not
    acc = [0.8349, 0.8114, 0.797, 0.7862, 0.7761, 0.912, 0.876, 0.8636, 0.85, 0.84]
    both = _run({"eval/accuracy": fall, "accuracy": sorted(acc, reverse=True)})
    _quiet("rises_every_log", both, "eval/accuracy", **params, unless_train_worse=["accuracy"])
    fits = _run({"eval/accuracy": fall, "accuracy": sorted(acc)})
    assert _check("rises_every_log", fits, "eval/accuracy", **params, unless_train_worse=["accuracy"]) is not None


def test_nonfinite_answers_by_position_without_a_training_loss():
    """An eval loss NaN from its first evaluation, with no training loss logged, answers `start`; NaN
    after two finite evaluations answers `later`; with a finite training loss beside it the detector's
    own answer stands (None here)."""
    params = {"while_finite": ["loss"], "missing_other": "fire", "answer_missing_start": "start",
              "answer_missing_later": "later"}
    nan = float("nan")
    hit = _check("nonfinite", _run({"eval/loss": [nan, nan, nan]}), "eval/loss", **params)
    assert hit.answer == "start"
    assert hit.summary.endswith("(no training loss is logged to compare with)")
    assert _check("nonfinite", _run({"eval/loss": [0.9, 0.8, nan]}), "eval/loss", **params).answer == "later"
    assert _check("nonfinite", _run({"eval/loss": [0.9, 0.8, nan], "loss": [1.0, 0.9, 0.8]}), "eval/loss", **params).answer is None


def test_loss_below_accuracy_bound_zero_pair_on_a_term():
    """A CTC term of exactly 0 beside an accuracy of exactly 0 at the same logs scored nothing (with
    zero_pair_terms), while the total loss (the other head's) moves."""
    run = _run({"accuracy": [0.0, 0.0, 0.0], "CTCLoss": [0.0, 0.0, 0.0], "loss": [1.69, 1.65, 1.61]})
    hit = _check("loss_below_accuracy_bound", run, "accuracy", zero_pair_terms=True)
    assert hit.summary.startswith("CTCLoss is exactly 0 and accuracy is exactly 0 at step 1 (and 2 more logs)")
    _quiet("loss_below_accuracy_bound", _run({"accuracy": [0.0, 0.1, 0.2], "CTCLoss": [0.5, 0.4, 0.3], "loss": [1.69, 1.65, 1.61]}),
           "accuracy", zero_pair_terms=True)


def test_rising_vs_falling_quiet_while_the_wer_keeps_improving():
    """An eval loss rising 0.51 -> 0.62 from its minimum while the training loss falls is an overfit,
    unless the eval WER is at its best at the last evaluation and a tenth or more under where it stood
    at the eval loss's minimum (0.45 -> 0.35); a WER that stalls there does not quiet it."""
    ev = [2.9, 1.2, 0.7, 0.51, 0.53, 0.56, 0.58, 0.6, 0.62]
    tr = [3.6, 1.5, 0.6, 0.33, 0.2, 0.12, 0.07, 0.04, 0.02]
    params = {"against": ["loss"], "min_rise": 0.05, "min_points_after": 2, "min_other_fall": 0.1,
              "unless_improving_lower": ["eval/wer"]}
    wer = [1.0, 0.7, 0.52, 0.45, 0.42, 0.4, 0.38, 0.36, 0.35]
    _quiet("rising_vs_falling", _run({"eval/loss": ev, "loss": tr, "eval/wer": wer}), "eval/loss", **params)
    stalled = [1.0, 0.7, 0.52, 0.45, 0.45, 0.46, 0.45, 0.46, 0.45]
    hit = _check("rising_vs_falling", _run({"eval/loss": ev, "loss": tr, "eval/wer": stalled}), "eval/loss", **params)
    assert hit.summary.startswith("eval/loss rose")


def test_constant_quiet_while_the_total_reward_improves():
    """A reward function at exactly -2 for 30 steps is reported while the total reward stays near -8;
    with the total climbing from -8 to -1 (unless_improved) the run learns from the other functions."""
    params = {"min_share": 1.0, "min_count": 20, "min_points": 20, "unless_improved": ["reward"], "improved_by": 0.5}
    flat_total = [-8.0 + 0.05 * (i % 3) for i in range(30)]
    hit = _check("constant", _run({"rewards/check_answer": [-2.0] * 30, "reward": flat_total}), "rewards/check_answer", **params)
    assert hit.summary == "rewards/check_answer is exactly -2 on 100% of points (30 of 30, steps 1-30)"
    rising = [-8.0 + 7.0 * i / 29 for i in range(30)]
    _quiet("constant", _run({"rewards/check_answer": [-2.0] * 30, "reward": rising}), "rewards/check_answer", **params)


def test_recurring_quiet_for_bfloat16_values():
    """Losses printed as bfloat16 numbers (0.765625, 0.746094, ...: 128 values per octave) come back by
    rounding alone; the same pattern of repeats in values that are not bfloat16 is reported."""
    bf = [0.765625, 0.746094, 0.738281, 0.746094, 0.730469, 0.765625, 0.738281, 0.722656, 0.730469, 0.746094,
          0.714844, 0.738281, 0.722656, 0.730469, 0.707031, 0.714844, 0.722656, 0.699219, 0.707031, 0.714844]
    params = {"min_points": 10, "min_count": 3, "min_digits": 4, "factor": 3.0}
    _quiet("recurring", _run({"loss": bf}), "loss", **params)
    odd = [round(v + 0.000777, 6) for v in bf]
    hit = _check("recurring", _run({"loss": odd}), "loss", **params)
    assert hit.summary.startswith("loss repeats earlier values exactly")


def test_worsening_no_return():
    """An eval accuracy that falls from 98 to 19 and never comes back is a collapse (no_return); one that
    jumps between 0.20, 0.26 and 0.54 and keeps returning to 0.54 is not."""
    params = {"worse": "down", "min_rise": 0.5, "z": 3.0, "min_points": 4, "no_return": True}
    hit = _check("worsening", _run({"eval/accuracy": [97.6, 98.1, 98.3, 98.4, 62.0, 31.5, 22.4, 19.9, 19.3, 19.5]}),
                 "eval/accuracy", **params)
    assert hit.summary.startswith("eval/accuracy fell from its best 98.4 at step 4 to 19.4")
    flicker = [0.26, 0.54, 0.20, 0.26, 0.54, 0.20, 0.20, 0.26, 0.20, 0.26]
    _quiet("worsening", _run({"eval/accuracy": flicker}), "eval/accuracy", **params)


def test_a_detector_metric_list_can_leave_series_out():
    """`rewards/*` with `!rewards/*/std` looks at each reward function's mean, never at its spread."""
    from triage.detect import _candidates

    run = _run({"rewards/correct/mean": [1.0] * 3, "rewards/correct/std": [0.0] * 3, "rewards/format": [0.0] * 3})
    names = [s.name for s in _candidates(run, ["rewards/*", "!rewards/*/std"])]
    assert names == ["rewards/correct/mean", "rewards/format"]


def test_gap_while_stalled_lone_gap_with_a_training_value_creeping_up():
    """One eval perplexity of 6.6 beside a training perplexity of 1.001-1.0015 (creeping up by a few
    ten-thousandths) is a lone gap; a training value 50% above its start is a run where both blew up."""
    params = {"against": ["perplexity"], "worse": "up", "ratio": 3.0, "min_abs_gap": 1.0, "min_points": 4,
              "lone_ratio": 3.0, "lone_abs_gap": 1.0}
    train = [1.001, 1.0011, 1.0012, 1.0012, 1.0013, 1.0013, 1.0014, 1.0015]
    run = _run({"perplexity": train, "eval/perplexity": [6.6061]}, steps={"perplexity": list(range(2, 10)), "eval/perplexity": [10]})
    hit = _check("gap_while_stalled", run, "eval/perplexity", **params)
    assert hit.summary.startswith("eval/perplexity is 6.61 at step 10 while perplexity is 1")
    blown = _run({"perplexity": [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7], "eval/perplexity": [6.6]},
                 steps={"perplexity": list(range(2, 10)), "eval/perplexity": [10]})
    _quiet("gap_while_stalled", blown, "eval/perplexity", **params)


def test_one_class_f1():
    """Accuracy 0.6838 and F1 0.8122 at both evaluations: 2 x 0.6838 / 1.6838 = 0.8122, the F1 of
    calling every pair positive; a model at 0.8211 / 0.8713 (2a/(1+a) would be 0.9018) is quiet, and
    so is a percent-printed pair that misses the relation by more than its digits allow."""
    run = _run({"eval/f1": [0.8122, 0.8122], "eval/accuracy": [0.6838, 0.6838]})
    hit = _check("one_class_f1", run, "eval/f1", accuracy=["eval/accuracy"])
    assert hit.summary.startswith("eval/f1 0.812 is 2a/(1+a) for eval/accuracy a = 0.684 at 2 of 2 evaluation(s)")
    _quiet("one_class_f1", _run({"eval/f1": [0.8713], "eval/accuracy": [0.8211]}), "eval/f1", accuracy=["eval/accuracy"])
    _quiet("one_class_f1", _run({"eval/f1": [80.1], "eval/accuracy": [68.4]}), "eval/f1", accuracy=["eval/accuracy"])
    assert _check("one_class_f1", _run({"eval/f1": [81.2], "eval/accuracy": [68.4]}), "eval/f1", accuracy=["eval/accuracy"])


def test_constant_unless_coarse_print():
    """A learning rate of 0 in a log whose every value is printed at 3 decimals (verl's
    `actor/lr:0.000`, `critic/vf_loss:0.035`) may be 1e-5 rounded away: quiet; the same zeros beside a
    loss printed at 4 decimals are a rate that is really 0."""
    coarse = _run({"learning_rate": [0.0] * 6, "approx_kl": [0.002, 0.001, 0.003, 0.0, 0.001, 0.002]})
    _quiet("constant", coarse, "learning_rate", value=0.0, min_share=1.0, min_count=3, min_points=3, unless_coarse_print=3)
    fine = _run({"learning_rate": [0.0] * 6, "loss": [2.3026, 2.3021, 2.3025, 2.3019, 2.3024, 2.3022]})
    hit = _check("constant", fine, "learning_rate", value=0.0, min_share=1.0, min_count=3, min_points=3, unless_coarse_print=3)
    assert hit.summary.startswith("learning_rate is exactly 0 on 100% of points")


def test_constant_min_digits_beside():
    """A loss of 0.0012 on lines whose other values show four decimals (`acc_pose: 0.6212`) shows two
    significant digits, a band of [0.00115, 0.00125) that rounding alone repeats: quiet; a loss of 0.1 on
    the same lines shows 0.1000, four digits, and is pinned."""
    params = dict(min_share=0.9, min_count=3, min_points=3, min_digits_beside=3)
    acc = [0.6212, 0.6227, 0.6300, 0.6351, 0.6415]
    _quiet("constant", _run({"loss": [0.0012] * 5, "acc_pose": acc}), "loss", **params)
    hit = _check("constant", _run({"loss": [0.1] * 5, "acc_pose": acc}), "loss", **params)
    assert hit.summary.startswith("loss is exactly 0.1 on 100% of points")
    # (other values with no decimals say nothing of the print: the value counts as read)
    assert _check("constant", _run({"loss": [4.6] * 5, "v_num": [11] * 5}), "loss", **params)


def test_chance_in_bits():
    """A loss logged in bits (fairseq) at 2.32 with accuracy 0.2: log2 5, a five-way choice made at random;
    read in nats the same loss would be no ln C near an accuracy of 1/5."""
    run = _run({"loss": [2.34, 2.32, 2.33, 2.31], "accuracy": [0.2, 0.21, 0.19, 0.2]})
    hit = _check("chance", run, "loss", bits=True, accuracy=["accuracy"], min_points=3)
    assert hit.summary.startswith("loss stays within 0.1 of log2 5 = 2.32 (accuracy 0.2 = 1/5)")
    _quiet("chance", run, "loss", accuracy=["accuracy"], min_points=3)


def test_chance_by_loss_level_with_accuracy_below_it():
    """A loss at ln 8 to four decimals beside an accuracy near 0: uniform outputs tie every class and argmax
    picks one, so the accuracy is that class's share, not 1/8; an accuracy well above 1/8 says otherwise."""
    flat = [2.07944, 2.07947, 2.07944, 2.07948, 2.07946, 2.07944]
    params = dict(accuracy=["accuracy"], min_points=3, loss_only_tol=0.005, loss_only_min_points=3)
    run = _run({"loss": flat, "accuracy": [0.03, 0.0, 0.06, 0.0, 0.0, 0.03]})
    hit = _check("chance", run, "loss", **params)
    assert hit.summary.startswith("loss stays within 0.1 of ln 8 = 2.08 (every point within 0.005 of it, or one step of its printed grid)")
    _quiet("chance", _run({"loss": flat, "accuracy": [0.5, 0.52, 0.55, 0.5, 0.53, 0.5]}), "loss", **params)


def test_constant_quiet_while_a_score_of_the_same_evaluations_moves():
    """An eval accuracy at 0.991 four times while the mIoU of the same evaluations climbs: the predictions
    changed, so the repeat is a saturated score printed coarsely; with the mIoU frozen too it fires."""
    params = dict(min_share=1.0, min_count=4, min_points=4, above=0.0, below=0.999, min_digits=3,
                  since_first_seen=False, unless_moving=["eval/miou"])
    moving = _run({"eval/accuracy": [0.991] * 4, "eval/miou": [0.476, 0.485, 0.49, 0.498]})
    _quiet("constant", moving, "eval/accuracy", **params)
    frozen = _run({"eval/accuracy": [0.991] * 4, "eval/miou": [0.476] * 4})
    hit = _check("constant", frozen, "eval/accuracy", **params)
    assert hit.summary.startswith("eval/accuracy is exactly 0.991 on 100% of points")


def test_stuck_while_a_smooth_loss_falls_slowly():
    """An eval accuracy at 0.35 for eleven evaluations while the loss falls smoothly 1.92 -> 1.82 (5%
    short of the plain threshold, but far above its noise): the argmax stopped changing; the same small
    fall in a noisy loss is no evidence."""
    smooth = [1.9348, 1.9233, 1.9115, 1.8995, 1.8874, 1.8757, 1.8644, 1.8535, 1.8434, 1.8341, 1.8259, 1.8189]
    acc = [0.3433] + [0.35] * 11
    params = dict(min_run=5, min_tail=0.5, min_fall=0.05, noise_factor=20.0, min_fall_smooth=0.02)
    hit = _check("stuck_while_training", _run({"eval/accuracy": acc, "loss": smooth}), "eval/accuracy", **params)
    assert hit.summary.startswith("eval/accuracy is exactly 0.35 at the last 11 of 12 evaluations")
    noisy = [1.93, 1.86, 1.95, 1.84, 1.92, 1.83, 1.9, 1.82, 1.89, 1.81, 1.88, 1.82]
    _quiet("stuck_while_training", _run({"eval/accuracy": acc, "loss": noisy}), "eval/accuracy", **params)
    _quiet("stuck_while_training", _run({"eval/accuracy": acc, "loss": smooth}), "eval/accuracy", min_run=5)


def test_chance_when_the_accuracy_agrees_with_e_to_the_minus_loss():
    """Beyond ten classes with no label count: a loss of 4.14-4.18 beside an accuracy of 1.26% (e^-4.15 is
    1.6%): uniform outputs over about 64 classes, right 1/C of the time. A model that learned anything is
    right far more often than e^-loss, so an accuracy of 8% beside the same loss is quiet."""
    loss = [4.1821, 4.1529, 4.1635, 4.119, 4.1429, 4.1611]
    steps = {"loss": [0, 100, 200, 300, 400, 500], "eval/accuracy": [589]}
    params = dict(accuracy=["eval/accuracy"], min_points=3, agree_band=1.6, agree_min_classes=11)
    hit = _check("chance", _run({"loss": loss, "eval/accuracy": [1.26]}, steps), "loss", **params)
    assert hit.summary.startswith("loss stays within 0.1 of ln 64 = 4.16 (eval/accuracy 0.0126 ~ e^-4.16 = 1/64)")
    _quiet("chance", _run({"loss": loss, "eval/accuracy": [8.0]}, steps), "loss", **params)
    _quiet("chance", _run({"loss": loss, "eval/accuracy": [1.26]}, steps), "loss", accuracy=["eval/accuracy"], min_points=3)


def test_recall_at_k_chance():
    """recall@10 at 1 names N = 10; recall@1, @2, @5 at K/10 are a random order."""
    run = _run({"recall_at_1": [0.122, 0.121], "recall_at_2": [0.199, 0.197], "recall_at_5": [0.48, 0.483],
                "recall_at_10": [1.0, 1.0]})
    hit = _check("recall_at_k_chance", run, "recall_at_1")
    assert hit.summary.startswith("recall_at_10 is 1, so the true item is always among 10 candidates, and recall_at_1 0.121")
    assert hit.summary.endswith("sit at K/10: the chance a random order puts it in the top K")
    assert hit.numbers == {"candidates": 10}


def test_no_gain_while_fitting():
    """The eval mAP peaks at its second evaluation and ends lower; the loss falls to under a tenth."""
    steps = list(range(1, 13))
    run = _run({"eval/map": [0.5831, 0.5853, 0.583, 0.585, 0.582, 0.567, 0.566, 0.5658, 0.566, 0.567, 0.575, 0.5723],
                "loss": [0.4197, 0.41, 0.40, 0.38, 0.35, 0.30, 0.02, 0.012, 0.009, 0.008, 0.0075, 0.0078]},
               {"eval/map": steps, "loss": steps})
    hit = _check("no_gain_while_fitting", run, "eval/map", against=["loss"])
    assert hit.summary == ("eval/map was best at its second (0.585, step 2) and ends at 0.572, while loss fell from 0.41 "
                           "to 0.0078: it fits its training data and gains nothing on held-out data")
    rising = _run({"eval/map": [0.52, 0.55, 0.58, 0.60, 0.62, 0.63, 0.64, 0.645, 0.65, 0.652, 0.655, 0.656],
                   "loss": [0.4197, 0.41, 0.40, 0.38, 0.35, 0.30, 0.02, 0.012, 0.009, 0.008, 0.0075, 0.0078]},
                  {"eval/map": steps, "loss": steps})
    _quiet("no_gain_while_fitting", rising, "eval/map", against=["loss"])


def test_no_gain_while_fitting_is_quiet_at_the_ceiling():
    """A macro F1 of 1.0 from the first evaluation on has no room to gain while the loss falls."""
    steps = list(range(1, 9))
    run = _run({"eval/macro_f1": [1.0, 1.0, 1.0, 0.999, 1.0, 1.0, 1.0, 1.0],
                "loss": [0.238, 0.1, 0.02, 0.01, 0.005, 0.001, 6e-4, 5.2e-4]}, {"eval/macro_f1": steps, "loss": steps})
    _quiet("no_gain_while_fitting", run, "eval/macro_f1", against=["loss"])


def test_far_below_train():
    """One evaluation at 9% beside training accuracies 74-76% (median of the last five before it: 74%) is
    8.2x below; an evaluation at 60% beside the same training accuracy, or 9% beside a memorised 99%, is quiet."""
    steps = {"eval/accuracy": [5200], "accuracy": [5195, 5196, 5197, 5198, 5199, 5200]}
    run = _run({"eval/accuracy": [0.09], "accuracy": [76, 75, 68, 74, 68, 74]}, steps=steps)
    hit = _check("far_below_train", run, "eval/accuracy")
    assert hit.summary == ("eval/accuracy is at most 0.09 (last 0.09 at step 5,200) while accuracy is 0.74: the "
                           "evaluation scores 8.22x worse than a training set the model has not yet memorised, so it "
                           "does not see what training sees")
    typed, _ = parse(PARAMS["far_below_train"], {})
    for ev, tr in ((0.6, 0.74), (0.09, 0.99)):
        run = _run({"eval/accuracy": [ev], "accuracy": [tr] * 6}, steps=steps)
        s = run.series["eval/accuracy"]
        assert CHECKS["far_below_train"](Ctx(run, "eval/accuracy", s.steps, s.values, typed)) is None


def test_near_zero_score():
    """mAP 0.7% at one evaluation after training began; quiet at 3%, while it climbs from 0 (0.2%, 0.8%,
    1.6%), and when scored before the first training step."""
    run = _run({"eval/map": [0.007], "loss": [2.1, 1.8, 1.6]}, steps={"eval/map": [3276], "loss": [100, 2000, 3200]})
    hit = _check("near_zero_score", run, "eval/map")
    assert hit.summary == ("eval/map is at most 0.007 at its only evaluation (step 3,276): the model gets almost "
                           "nothing right on held-out data")
    hit = _check("near_zero_score", _run({"eval/accuracy": [1.2, 0.8, 1.1]}), "eval/accuracy")  # percent
    assert hit.summary.startswith("eval/accuracy is at most 0.012 at all 3 evaluations (steps 1-3)")
    typed, _ = parse(PARAMS["near_zero_score"], {})
    for series, steps in (({"eval/map": [0.03]}, None), ({"eval/map": [0.002, 0.008, 0.016]}, None),
                          ({"eval/map": [0.0], "loss": [2.0, 1.5]}, {"eval/map": [0], "loss": [10, 20]})):
        run = _run(series, steps=steps)
        s = run.series["eval/map"]
        assert CHECKS["near_zero_score"](Ctx(run, "eval/map", s.steps, s.values, typed)) is None


def test_near_zero_score_untrained():
    """BLEU 1.2 then 0.4 (percent) at two evaluations: quiet while the perplexity ends at 196 (100 or above: a
    model that has not learned the language), a finding when it ends at 18."""
    steps = {"eval/bleu": [1000, 2000], "perplexity": [500, 1000, 1500, 2000]}
    params = {"untrained": ["perplexity", "eval/*/perplexity"], "untrained_at": 100.0}
    run = _run({"eval/bleu": [1.2, 0.4], "perplexity": [60.0, 35.0, 22.0, 18.0]}, steps=steps)
    hit = _check("near_zero_score", run, "eval/bleu", **params)
    assert hit.summary == ("eval/bleu is at most 0.012 at all 2 evaluations (steps 1,000-2,000): the model gets almost "
                           "nothing right on held-out data")
    typed, _ = parse(PARAMS["near_zero_score"], params)
    run = _run({"eval/bleu": [1.2, 0.4], "perplexity": [183.0, 232.0, 207.0, 196.0]}, steps=steps)
    s = run.series["eval/bleu"]
    assert CHECKS["near_zero_score"](Ctx(run, "eval/bleu", s.steps, s.values, typed)) is None


def test_log_clamp():
    """23.025851 twice is -ln(1e-10) to seven digits; 23.4 and 22.8 pass by it without sitting on it."""
    hit = _check("log_clamp", _run({"loss": [23.025851, 23.025851]}), "loss")
    assert hit.summary == ("loss is 23.0259 = -ln(1e-10) on 100% of 2 points (steps 1-2): every sample costs the clamp of a "
                           "probability clipped at 1e-10, so the model gives the true class no probability at all")
    typed, _ = parse(PARAMS["log_clamp"], {})
    run = _run({"loss": [23.41, 22.8, 21.95]})
    s = run.series["loss"]
    assert CHECKS["log_clamp"](Ctx(run, "loss", s.steps, s.values, typed)) is None


def test_log_clamp_at_a_given_level():
    """PyTorch's BCELoss clamps the log at -100: a discriminator loss of exactly 50 (one half at the clamp, the
    other at 0) on most points fires with levels; 49.7 and 50.4 do not sit on it, and without levels 50 is no
    -ln(10^-k)."""
    run = _run({"d_loss": [0.7, 0.45, 50.0, 50.0, 50.0, 50.0]})
    hit = _check("log_clamp", run, "d_loss", levels=[100, 50], tol=0.00001, min_count=3)
    assert hit.summary == ("d_loss is 50 on 67% of 6 points (steps 3-6), a cost the log's own clamp sets: the outputs "
                           "are saturated at 0 or 1 on the wrong side for the samples that cost it")
    typed, _ = parse(PARAMS["log_clamp"], {"levels": [100, 50], "tol": 0.00001, "min_count": 3})
    near = _run({"d_loss": [0.7, 0.45, 49.7, 50.4, 49.9, 50.1]})
    s = near.series["d_loss"]
    assert CHECKS["log_clamp"](Ctx(near, "d_loss", s.steps, s.values, typed)) is None
    typed, _ = parse(PARAMS["log_clamp"], {})
    s = run.series["d_loss"]
    assert CHECKS["log_clamp"](Ctx(run, "d_loss", s.steps, s.values, typed)) is None


def test_constant_short_value_in_a_full_precision_log():
    """0.5 at four evaluations has one significant digit: a rounded print could hide changes behind it, unless
    the log writes its numbers to every digit of a double (0.4090909090909091 beside it), where 0.5 is exact."""
    params = {"min_share": 1.0, "min_count": 4, "min_points": 4, "above": 0.0, "below": 0.999, "min_digits": 3}
    full = _run({"eval/accuracy": [0.5, 0.5, 0.5, 0.5], "accuracy": [0.4090909090909091, 0.5454545454545454,
                                                                      0.6363636363636364, 0.5454545454545454]})
    hit = _check("constant", full, "eval/accuracy", **params)
    assert hit.summary.startswith("eval/accuracy is exactly 0.5 on 100% of points (4 of 4")
    typed, _ = parse(PARAMS["constant"], params)
    rounded = _run({"eval/accuracy": [0.5, 0.5, 0.5, 0.5], "accuracy": [0.41, 0.55, 0.64, 0.55]})
    s = rounded.series["eval/accuracy"]
    assert CHECKS["constant"](Ctx(rounded, "eval/accuracy", s.steps, s.values, typed)) is None


def test_contradicted():
    """Accuracy 0 at three logs beside an AUC of 0.985-0.9997 (median 0.999): two readings of the same predictions
    that cannot both hold; an accuracy of 0.96 beside the same AUC, or 0 beside an AUC of 0.6, is quiet."""
    run = _run({"accuracy": [0.0, 0.0, 0.0], "auc": [0.9853, 0.9991, 0.9997]})
    hit = _check("contradicted", run, "accuracy")
    assert hit.summary == ("accuracy is at most 0 on 100% of 3 points while auc is 0.999 (median) for the same "
                           "predictions: the accuracy is not computed on what the model outputs (a metric that does not "
                           "fit the output or the target's form)")
    assert "eval/auc" in _check("contradicted", _run({"eval/accuracy": [0.0], "eval/auc": [0.99]}), "eval/accuracy").summary
    typed, _ = parse(PARAMS["contradicted"], {})
    for acc, auc in (([0.96, 0.97, 0.98], [0.98, 0.99, 0.99]), ([0.0, 0.0, 0.0], [0.55, 0.6, 0.62])):
        run = _run({"accuracy": acc, "auc": auc})
        s = run.series["accuracy"]
        assert CHECKS["contradicted"](Ctx(run, "accuracy", s.steps, s.values, typed)) is None


def test_near_names_c_by_the_level_it_sank_to():
    """A loss that starts at 220, reaches 6,800 and then holds 0.6931-0.6932 for the second half has no
    label count and no first loss at ln C: the level itself names C = 2. Without level_tol it is quiet."""
    values = [220.9, 6800.0, 35.0, 3.0] + [0.6932, 0.6931] * 8
    run = _run({"loss": values})
    params = dict(target_from="ln_classes", first_above=2.0, start_points=3, early_fraction=0.25, tol=0.1,
                  min_share=0.8, window="tail", window_fraction=0.5, min_points=5)
    hit = _check("near", run, "loss", level_tol=0.005, **params)
    assert hit.numbers["target"] == pytest.approx(math.log(2))
    assert "every point of the tail within 0.005 of it" in hit.summary
    assert "after blowing up to 6,800 at step 2" in hit.summary
    typed, _ = parse(PARAMS["near"], params)
    s = run.series["loss"]
    assert CHECKS["near"](Ctx(run, "loss", s.steps, s.values, typed)) is None
    # a loss that sits near 0.70 (not ln 2 to four digits) names nothing
    run = _run({"loss": values[:4] + [0.70, 0.705] * 8})
    s = run.series["loss"]
    typed, _ = parse(PARAMS["near"], dict(params, level_tol=0.005))
    assert CHECKS["near"](Ctx(run, "loss", s.steps, s.values, typed)) is None


def test_threshold_only_if_stalled():
    """A rate of 8e-8 at all 8 logs fires only beside a loss that did not fall: 5.89-5.97 (the median of
    the last quarter, 5.93, is not below 95% of the first quarter's, 5.92) fires; 1.20 falling to 0.85
    does not; and without a loss there is nothing to say the weights did not move."""
    params = dict(op="<=", value=1e-7, min_share=1.0, min_points=1, only_if_stalled=["loss"], stalled_tol=0.05)
    lr = [8e-8] * 8
    hit = _check("threshold", _run({"learning_rate": lr, "loss": [5.89, 5.95, 5.91, 5.97, 5.88, 5.93, 5.96, 5.90]}),
                 "learning_rate", **params)
    assert hit.summary.startswith("learning_rate <= 1.00e-07 on 100% of 8 points")
    typed, _ = parse(PARAMS["threshold"], params)
    for series in ({"learning_rate": lr, "loss": [1.20, 1.12, 1.05, 0.99, 0.94, 0.90, 0.87, 0.85]},
                   {"learning_rate": lr}):
        run = _run(series)
        s = run.series["learning_rate"]
        assert CHECKS["threshold"](Ctx(run, "learning_rate", s.steps, s.values, typed)) is None
    # two points: the second below 95% of the first is a loss that moved
    run = _run({"learning_rate": [8e-8, 8e-8], "loss": [4.0, 3.7]})
    s = run.series["learning_rate"]
    assert CHECKS["threshold"](Ctx(run, "learning_rate", s.steps, s.values, typed)) is None


def test_constant_resolution_from_a_neighbour():
    """`val_loss: 0.2000` at every epoch beside `loss: 3.5313`: the log prints four decimals, so 0.2 is
    0.2000 to every printed digit, 200 steps of 0.001 above 0: frozen. 0.0001 repeated beside a loss
    printed to six decimals is a summary's printing floor (under 10^2 steps of 0.001): quiet."""
    params = dict(min_share=1.0, min_count=3, min_points=3, min_digits=2, resolution_from=["loss"])
    run = _run({"eval/loss": [0.2] * 5, "loss": [270.295, 3.5313, 2519.9942, 24.8725, 104.2208]})
    hit = _check("constant", run, "eval/loss", **params)
    assert hit.summary == "eval/loss is exactly 0.2 on 100% of points (5 of 5, steps 1-5)"
    typed, _ = parse(PARAMS["constant"], params)
    for evals, train in (([0.0001] * 3, [0.186254, 0.084256, 0.022577]), ([0.2] * 3, [3.0, 2.5, 2.0])):
        run = _run({"eval/loss": evals, "loss": train})
        s = run.series["eval/loss"]
        assert CHECKS["constant"](Ctx(run, "eval/loss", s.steps, s.values, typed)) is None


def test_constant_to_a_share_of_itself_at_explicit_steps():
    """A loss of 1535.62-1535.63 at four logged steps (spread 1e-5 of it) is reported when the rows are
    counted by an explicit step; the same values on epoch rows, or per-batch losses that move in the
    third digit, are quiet."""
    params = {"rel_tol": 0.0001, "explicit_steps_only": True, "min_share": 0.8, "min_count": 3, "min_points": 3,
              "since_first_seen": False}
    still = [1535.619873, 1535.619629, 1535.633667, 1535.62561]
    run = _run({"loss": still}, steps={"loss": [700, 750, 800, 850]})
    run.meta["step_axis"] = "explicit"
    hit = _check("constant", run, "loss", **params)
    assert hit.summary == ("loss stays within 0.014 of 1535.63 (9e-06 of it) on 100% of points (4 of 4, steps 700-850), "
                           "each logged at a step: a value no batch moves")
    epochs = _run({"loss": still})
    epochs.meta["step_axis"] = "epoch"
    _quiet("constant", epochs, "loss", **params)
    moving = _run({"loss": [2.4513, 2.4402, 2.4471, 2.4329]}, steps={"loss": [700, 750, 800, 850]})
    moving.meta["step_axis"] = "explicit"
    _quiet("constant", moving, "loss", **params)
    # a loss of exactly 0 at every step has no share of itself to measure: quiet here (det-loss-zero says
    # it), and no division by zero that would skip the detector with a warning
    zeros = _run({"loss": [0.0, 0.0, 0.0, 0.0]}, steps={"loss": [1, 2, 3, 4]})
    zeros.meta["step_axis"] = "explicit"
    _quiet("constant", zeros, "loss", **params)


def test_oscillation_quiet_on_an_evaluation_of_a_handful_of_examples():
    """An eval loss that turns at every evaluation is reported; beside an eval accuracy that only takes
    sixteenths (0.9375, 1.0: an evaluation of 16 examples) the same swings are sampling noise (quiet),
    while an accuracy printed to four digits that no small count explains leaves it reported."""
    loss = [0.19, 0.15, 0.146, 0.089, 0.152, 0.087, 0.072, 0.221, 0.148, 0.148]
    params = {"min_swing": 0.25, "min_reversals": 3, "min_share": 0.25, "min_points": 6,
              "unless_small_eval": ["eval/accuracy"]}
    assert _check("oscillation", _run({"eval/loss": loss}), "eval/loss", **params) is not None
    small = [0.9375, 0.9375, 1.0, 1.0, 0.9375, 1.0, 1.0, 0.9375, 0.9375, 0.9375]
    _quiet("oscillation", _run({"eval/loss": loss, "eval/accuracy": small}), "eval/loss", **params)
    large = [0.9113, 0.9271, 0.9302, 0.9388, 0.9317, 0.9402, 0.9436, 0.9359, 0.9401, 0.9417]
    assert _check("oscillation", _run({"eval/loss": loss, "eval/accuracy": large}), "eval/loss", **params) is not None


def test_near_while_falling_beside_a_high_training_score():
    """An eval AUC of 0.49-0.50 at three evaluations, with no loss logged, is reported when the training
    AUC beside it is 0.98 (the training examples ranked well, held-out ones like a coin); beside a training
    AUC of 0.6 (a model that learned little anywhere) it is left to other findings."""
    params = {"target": 0.5, "tol": 0.05, "min_share": 0.8, "min_points": 1, "min_alone": 4,
              "trained_score": ["auc"], "trained_above": 0.9}
    eval_auc = [0.4948, 0.4894, 0.4954]
    hit = _check("near_while_falling", _run({"eval/auc": eval_auc, "auc": [0.9761, 0.9816, 0.986]}), "eval/auc", **params)
    assert hit.summary == ("eval/auc is 0.495, within 0.05 of chance 0.5, at 100% of 3 points (steps 1-3) while auc on the "
                           "training data is 0.982: the model ranks its training examples well and held-out ones no better "
                           "than a coin")
    _quiet("near_while_falling", _run({"eval/auc": eval_auc, "auc": [0.58, 0.6, 0.61]}), "eval/auc", **params)


def test_spike_height_against_the_level_the_run_started_from():
    """A contrastive loss that falls from 1.0 to about 1e-4 within five steps and then jumps to 0.05 now and
    then (a hard batch, 5% of where it started) has not spiked; jumps to 0.5 (half its start) have."""
    params = {"factor": 2.0, "min_spikes": 2, "recover_points": 50, "skip_first": 0.05, "min_rel_start": 0.1,
              "z": 6.0}
    rng = np.random.default_rng(0)
    base = list(np.exp(np.linspace(0.0, np.log(1e-4), 6))) + list(1e-4 * np.exp(rng.normal(0, 0.3, 400)))
    small, big = list(base), list(base)
    for i in (100, 200, 300):
        small[i], big[i] = 0.05, 0.5
    _quiet("spike", _run({"loss": small}), "loss", **params)
    assert _check("spike", _run({"loss": big}), "loss", **params) is not None


def test_nonfinite_before_the_first_update():
    """A loss printed as NaN while the logged update count beside it is still 0 (a DQN whose replay buffer is
    filling) is a mean over no batches: quiet; the same NaN after updates began is reported."""
    nan = float("nan")
    params = {"phase": "any", "unless_no_updates": ["n_updates"]}
    _quiet("nonfinite", _run({"loss": [nan, nan], "n_updates": [0, 0]}), "loss", **params)
    assert _check("nonfinite", _run({"loss": [nan, nan], "n_updates": [0, 12]}), "loss", **params) is not None


def test_gap_while_stalled_quiet_while_the_eval_loss_still_falls():
    """Train accuracy 0.99 and eval accuracy 0.62-0.63 over the last four evaluations, the last no better:
    the gap is reported; beside an eval loss that falls 11% over those evaluations and is at its best at
    the last one, the held-out answers are still improving (quiet)."""
    params = {"against": ["accuracy"], "worse": "down", "gap": 0.2, "train_at_least": 0.98, "min_points": 4,
              "min_points_after": 2, "lone_gap": 0.3}
    series = {"eval/accuracy": [0.22, 0.42, 0.53, 0.55, 0.58, 0.60, 0.620, 0.624, 0.635, 0.627],
              "accuracy": [0.13, 0.34, 0.54, 0.69, 0.78, 0.88, 0.935, 0.965, 0.987, 0.994]}
    assert _check("gap_while_stalled", _run(series), "eval/accuracy", **params) is not None
    falling = dict(series, **{"eval/loss": [3.41, 3.02, 2.66, 2.40, 2.22, 2.08, 1.892, 1.798, 1.723, 1.674]})
    _quiet("gap_while_stalled", _run(falling), "eval/accuracy", unless_improving_lower=["eval/loss"], **params)


def test_threshold_quiet_while_the_loss_keeps_falling():
    """A gradient norm of 11-25 over eight logs is reported; beside a loss that falls from 49 to 5.5 and ends
    at its low it is large in its own units (quiet); beside a loss that fell and came back up it is
    reported again."""
    params = {"op": ">", "value": 10.0, "min_share": 0.2, "min_count": 3, "unless_loss_falling": 0.2}
    norm = [10.8, 24.96, 18.79, 15.94, 12.7, 11.7, 16.8, 16.1]
    assert _check("threshold", _run({"grad_norm": norm}), "grad_norm", **params) is not None
    _quiet("threshold", _run({"grad_norm": norm, "loss": [49.3, 40.6, 23.9, 13.4, 7.95, 6.59, 6.19, 5.51]}),
           "grad_norm", **params)
    back_up = _run({"grad_norm": norm, "loss": [15.5, 13.0, 3.8, 2.39, 1.43, 5.82, 7.05, 10.03]})
    assert _check("threshold", back_up, "grad_norm", **params) is not None
    # a norm that grew sixtyfold from its own start did not start out large in its own units: reported
    grew = [1.0] * 10 + [60.0 + 5 * (i % 3) for i in range(30)]
    falling = [2.3 * np.exp(-i / 15) + 0.4 for i in range(40)]
    assert _check("threshold", _run({"grad_norm": grew, "loss": falling}), "grad_norm", **params) is not None


def test_worsening_needs_a_level_not_one_late_evaluation():
    """A WER that falls from 62 to 25.7 over 84 evaluations and is 28.2 at the last one alone is judged
    on its running median (eight points), so one late evaluation is no level (quiet); the same series
    ending with its last eight evaluations at 28-29 is reported."""
    params = {"worse": "up", "min_rise": 0.05, "z": 3.0, "min_points": 3}
    base = list(25.7 + 36.3 * np.exp(-np.arange(83) / 15.0) + 0.2 * np.sin(np.arange(83)))
    _quiet("worsening", _run({"eval/wer": base + [28.23]}), "eval/wer", **params)
    risen = base[:-7] + [28.1, 28.6, 28.3, 28.9, 28.4, 28.7, 28.5, 28.8]
    assert _check("worsening", _run({"eval/wer": risen}), "eval/wer", **params) is not None


def test_constant_eval_on_every_row_of_a_results_table():
    """An eval loss logged beside the training loss on every row is one evaluation carried along, unless the
    rows are evaluations themselves (a model card's results table): then five equal values are five
    evaluations of unchanged weights."""
    steps = [730.0, 1460.0, 2190.0, 2920.0, 3650.0]
    run = _run({"loss": [0.0345, 0.0343, 0.0337, 0.0345, 0.0347], "eval/loss": [0.3368] * 5},
               steps={"loss": steps, "eval/loss": steps})
    params = dict(min_share=1.0, min_count=3, min_points=3, min_digits=2, not_at_every_step_of=["loss"])
    _quiet("constant", run, "eval/loss", **params)
    run.meta["eval_rows"] = True
    hit = _check("constant", run, "eval/loss", **params)
    assert "exactly 0.3368" in hit.summary and "100%" in hit.summary


def test_rising_vs_falling_rise_within_noise():
    """An eval loss that wanders 0.012-0.025 between evaluations and ends 0.001 above its lowest point has not
    turned (the rise is under twice its own noise); the same run with the eval loss climbing 0.012 -> 0.05 over
    its last three evaluations has."""
    train = [0.10, 0.048, 0.036, 0.013, 0.012, 0.014, 0.0076, 0.0098, 0.0062, 0.0012]
    wander = [0.0375, 0.0167, 0.0253, 0.0198, 0.0203, 0.0204, 0.0175, 0.0115, 0.0133, 0.0126]
    params = dict(min_rise=0.05, min_points_after=2, noise_z=2.0)
    _quiet("rising_vs_falling", _run({"loss": train, "eval/loss": wander}), "eval/loss", **params)
    climb = wander[:7] + [0.0115, 0.03, 0.05]
    hit = _check("rising_vs_falling", _run({"loss": train, "eval/loss": climb}), "eval/loss", **params)
    assert "rose" in hit.summary and "0.0115" in hit.summary


def test_threshold_unless_all_zero():
    """A loss of 85 beside an accuracy logged as exactly 0 on training and held-out data at every epoch is
    no blown-up classifier: that accuracy scores nothing the model outputs (a regression's MAE)."""
    params = dict(op=">", value=50.0, min_share=0.0, min_count=1, min_points=1,
                  unless_all_zero=["accuracy", "eval/accuracy"])
    run = _run({"loss": [85.4, 65.7], "accuracy": [0.0, 0.0], "eval/accuracy": [0.0, 0.0]})
    _quiet("threshold", run, "loss", **params)
    run = _run({"loss": [85.4, 65.7], "accuracy": [0.0, 0.02], "eval/accuracy": [0.0, 0.0]})
    assert "85.4" in _check("threshold", run, "loss", **params).summary


def test_chance_noisy_loss_at_a_listed_class_count():
    """Ten per-batch losses scattered 4.594-4.626 around ln 100 = 4.605 with a batch accuracy of 0: a
    100-class model guessing uniformly; the tail window alone (five points) is too short to judge a
    scatter, so the whole run is judged."""
    loss = [4.61291, 4.60952, 4.60763, 4.62495, 4.62312, 4.60703, 4.60947, 4.59816, 4.62643, 4.59422]
    run = _run({"loss": loss, "accuracy": [0.0] * 10})
    hit = _check("chance", run, "loss", accuracy=["accuracy"], tol=0.1, acc_tol=0.15, min_share=0.8,
                 window="tail", window_fraction=0.5, min_points=3, loss_only_tol=0.005,
                 loss_only_batch_noise=0.03, loss_only_max_classes=10, loss_only_min_points=3,
                 loss_only_vocab=[100, 1000])
    assert "ln 100" in hit.summary


def test_accuracy_at_chance_last():
    """A class-mean accuracy of 0 then exactly 1/40 = 0.025 at the last of two evaluations is one class
    answered for every input; judged on all its points (the default) the 0 keeps it quiet, and a last
    value of 0.0262 (within 5% of 1/40, not to its printed digits) is no constant answer."""
    run = _run({"eval/Class_Accuracy": [0.0, 0.025]})
    hit = _check("accuracy_at_chance", run, "eval/Class_Accuracy", acc_tol=0.002, min_points=2, max_classes=1000, last=1)
    assert hit.numbers["classes"] == 40
    assert "ends at chance, 1/40 = 0.025" in hit.summary
    _quiet("accuracy_at_chance", run, "eval/Class_Accuracy", acc_tol=0.002, min_points=2, max_classes=1000)
    near = _run({"eval/Class_Accuracy": [0.0, 0.0262]})
    _quiet("accuracy_at_chance", near, "eval/Class_Accuracy", acc_tol=0.002, min_points=2, max_classes=1000, last=1)


def test_rising_vs_falling_gap_rise():
    """An eval loss 0.31 -> 0.247 -> 0.297 (+20% from its minimum) while the training loss goes 0.0825 ->
    0.0774 (a fall of 6%, under min_other_fall) ends above the training loss: the gap opened. The same
    rise on an eval loss that stays below a training loss of 0.6 is quiet, and so is either without gap_rise."""
    steps = {"eval/loss": [1, 3, 5, 6, 7], "loss": [1, 3, 5, 6, 7]}
    run = _run({"eval/loss": [0.31, 0.27, 0.247, 0.27, 0.297], "loss": [0.2, 0.12, 0.0825, 0.079, 0.0774]}, steps)
    params = {"against": ["loss"], "min_other_fall": 0.1}
    hit = _check("rising_vs_falling", run, "eval/loss", gap_rise=0.15, **params)
    assert "above loss, which held at 0.0825 -> 0.0774" in hit.summary
    _quiet("rising_vs_falling", run, "eval/loss", **params)
    below = _run({"eval/loss": [0.31, 0.27, 0.247, 0.27, 0.297], "loss": [0.8, 0.7, 0.62, 0.61, 0.6]}, steps)
    _quiet("rising_vs_falling", below, "eval/loss", gap_rise=0.15, **params)



def test_rising_vs_falling_gap_at_zero():
    """A model card's train loss printed as 0.0 at every epoch beside a validation loss 0.0579 -> 0.0509 ->
    0.0814 (+60% from its minimum): weights that make the eval loss climb are moving, which a loss of
    exactly 0 cannot do, so the 0 is a small loss printed away and the gap opened. Without gap_at_zero a
    training loss at 0 stays quiet, as before."""
    run = _run({"eval/loss": [0.0579, 0.0509, 0.0544, 0.0621, 0.0671, 0.0811, 0.0798, 0.0814], "loss": [0.0] * 8})
    params = {"against": ["loss"], "min_other_fall": 0.1, "gap_rise": 0.15}
    hit = _check("rising_vs_falling", run, "eval/loss", gap_at_zero=True, **params)
    assert "above loss, which held at 0 -> 0" in hit.summary
    _quiet("rising_vs_falling", run, "eval/loss", **params)

def test_every_step_skipped():
    """DeepSpeed's `step=16, skipped=16` then `step=17, skipped=17` with the scale down to 1: every step so
    far was thrown away and halving can do no more. The same totals while the scale is still 4 (a scaler
    calibrating down from 2^16) are quiet, and so is a total that falls behind the step count (an update landed).
    Megatron's per-interval count of 1 at iterations 1-4 with the scale held at 16384 is the same stuck run."""
    steps = {"skipped": [16, 17], "loss_scale": [17]}
    hit = _check("every_step_skipped", _run({"skipped": [16, 17], "loss_scale": [1.0]}, steps), "skipped")
    assert "every optimizer step as skipped at all 2 logs" in hit.summary and "minimum" in hit.summary
    _quiet("every_step_skipped", _run({"skipped": [16, 17], "loss_scale": [4.0]}, steps), "skipped")
    _quiet("every_step_skipped", _run({"skipped": [15, 16], "loss_scale": [1.0]}, steps), "skipped")
    meg = _run({"skipped_iterations": [1, 1, 1, 1], "loss_scale": [16384.0] * 4})
    hit = _check("every_step_skipped", meg, "skipped_iterations", cumulative=False, min_points=3)
    assert "stays at 16,384 at all 4 logs" in hit.summary
    halving = _run({"skipped_iterations": [1, 1, 1, 1], "loss_scale": [2.0 ** 31, 2.0 ** 30, 2.0 ** 29, 2.0 ** 28]})
    _quiet("every_step_skipped", halving, "skipped_iterations", cumulative=False, min_points=3)


def test_rising_vs_falling_one_term_traded_against_another():
    """The objectness term of an eval loss climbs 0.10 -> 0.30 from step 30 on while the box term beside it
    keeps falling (0.09 at step 30, 0.03 at the end) and the training loss falls: the terms traded, and the
    check is quiet with unless_other_terms_fall; without it, or once the box term rises too, it fires."""
    steps = list(range(10, 101, 10))
    obj = [0.20, 0.12, 0.10, 0.13, 0.16, 0.19, 0.22, 0.25, 0.28, 0.30]
    box = [0.12, 0.10, 0.09, 0.08, 0.07, 0.06, 0.05, 0.04, 0.035, 0.03]
    series = {"eval/obj/loss": obj, "eval/box/loss": box, "loss": np.linspace(1.0, 0.2, 100)}
    run = _run(series, {"eval/obj/loss": steps, "eval/box/loss": steps})
    _quiet("rising_vs_falling", run, "eval/obj/loss", unless_other_terms_fall=True)
    # (the end is the median of the last 7 // 3 = 2 evaluations, 0.29: +190% over 0.10)
    assert _check("rising_vs_falling", run, "eval/obj/loss").numbers["rise"] == pytest.approx(1.9)
    rising_box = _run({**series, "eval/box/loss": [0.12, 0.10, 0.09, 0.10, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16]},
                      {"eval/obj/loss": steps, "eval/box/loss": steps})
    _check("rising_vs_falling", rising_box, "eval/obj/loss", unless_other_terms_fall=True)


def test_constant_zero_term_is_absent_not_frozen():
    """A class term of the eval loss at exactly 0 at all 6 evaluations is a term the model lacks: quiet for
    the patterns zero_is_absent_for names, a finding for the total eval loss."""
    run = _run({"eval/cls/loss": [0.0] * 6, "eval/loss": [0.0] * 6})
    _quiet("constant", run, "eval/cls/loss", min_share=1.0, min_count=3, min_points=3, zero_is_absent_for=["eval/*/loss"])
    hit = _check("constant", run, "eval/loss", min_share=1.0, min_count=3, min_points=3, zero_is_absent_for=["eval/*/loss"])
    assert hit.numbers["value"] == 0.0


def test_nonfinite_all_bad():
    """all_bad: a series NaN at all 4 of its points fires (from the start, to the end); one finite point among
    them (a value only undefined on some rows) keeps it quiet."""
    nan = float("nan")
    params = {"all_bad": True, "answer_end_early": "start", "answer_end_late": "start"}
    hit = _check("nonfinite", _run({"value_1": [nan, nan, nan, nan]}), "value_1", **params)
    assert hit.summary == "value_1 is NaN on 4 of 4 logged points (100%), first at step 1 and to the end of the log"
    assert hit.answer == "start"
    _quiet("nonfinite", _run({"value_1": [nan, 2.4, nan, nan]}), "value_1", **params)


def test_chance_loss_at_ln_c_to_the_third_decimal_takes_the_largest_class_share():
    """A loss within 0.005 of ln 10 at all 20 points is uniform outputs; the accuracy beside it, 0.16, is
    one class's share (argmax lands on it), under 2/C: ln 10 it is. The same accuracy beside a loss that
    only scatters around ln 10 is above the balanced band (1.15/C + 0.02) and names nothing."""
    params = {"accuracy": ["accuracy"], "tol": 0.1, "acc_tol": 0.15, "min_share": 0.8, "window": "tail",
              "window_fraction": 0.5, "min_points": 3, "loss_only_tol": 0.005, "loss_only_batch_noise": 0.03,
              "loss_only_max_classes": 10, "loss_only_agrees": True, "loss_only_min_points": 3}
    flat = 2.3026 + 0.001 * np.sin(np.arange(40))
    hit = _check("chance", _run({"loss": flat, "accuracy": [0.16] * 40}), "loss", **params)
    assert hit.numbers["classes"] == 10
    scatter = 2.3026 + 0.02 * np.sin(np.arange(40))
    _quiet("chance", _run({"loss": scatter, "accuracy": [0.16] * 40}), "loss", **params)


def test_near_margins_beside_pairs_ranked_right():
    """Margins within 0.05 of 0 at all 10 steps: with rewards/accuracies at 0.7 (median) the model ranks
    most pairs right, so the small margins are their scale; at 0.5 (chance) they are no learning."""
    margins = [0.002 + 0.0003 * i for i in range(10)]
    learning = _run({"rewards/margins": margins, "rewards/accuracies": [0.65, 0.7, 0.72, 0.7, 0.68, 0.7, 0.71, 0.7, 0.73, 0.7]})
    _quiet("near", learning, "rewards/margins", target=0.0, tol=0.05, unless_accuracy_above=0.6,
           accuracy_names=["rewards/accuracies"])
    chance = _run({"rewards/margins": margins, "rewards/accuracies": [0.5, 0.48, 0.52, 0.5] * 2 + [0.5, 0.49]})
    hit = _check("near", chance, "rewards/margins", target=0.0, tol=0.05, unless_accuracy_above=0.6,
                 accuracy_names=["rewards/accuracies"])
    assert hit.numbers["share"] == 1.0


def test_constant_trailing_at_the_last_value():
    """A Dice that moves for 10 evaluations, then holds 0.663446 for the last 8: with no `value`, the
    last value is the one held, judged only when printed to 3+ digits and below `below`."""
    dice = [0.2 + 0.02 * i for i in range(10)] + [0.663446] * 8
    run = _run({"eval/dice": dice})
    hit = _check("constant", run, "eval/dice", trailing=True, since_first_seen=False, min_count=8, min_points=10,
                 below=0.9, above=0.0, min_digits=3)
    assert hit.summary == "eval/dice is exactly 0.663446 on its last 8 points (steps 11-18), after 0.38 at step 10"
    assert hit.numbers == {"count": 8, "value": 0.663446}
    _quiet("constant", _run({"eval/dice": dice[:10] + [0.95] * 8}), "eval/dice", trailing=True, min_count=8, below=0.9)
    _quiet("constant", _run({"eval/dice": dice[:10] + [0.5] * 8}), "eval/dice", trailing=True, min_count=8, min_digits=3)


def test_near_softmax_floor_widens_by_the_share_a_saturated_model_misses():
    """Ten classes: the first loss 2.3026 = ln 10 names C, the floor is log(1 + 9/e) = 1.4612. A tail at 1.62
    is 0.16 above it, past tol 0.12; a model right 93% of the time pays 1 more on each sample it gets wrong,
    so it may sit up to 0.07 higher: it fires. At 50% accuracy the band does not widen: quiet."""
    loss = [2.3026] + [2.3 - 0.03 * i for i in range(1, 20)] + [1.62] * 20
    steps = list(range(1, 41))
    saturated = _run({"loss": loss, "accuracy": [0.93] * 40}, steps={"loss": steps, "accuracy": steps})
    hit = _check("near", saturated, "loss", target_from="softmax_ce_floor", tol=0.12, window="tail",
                 window_fraction=0.4, min_points=20)
    assert "(first loss 2.3 = ln 10; up to 0.07 more for the 7.0% it gets wrong)" in hit.summary
    middling = _run({"loss": loss, "accuracy": [0.5] * 40}, steps={"loss": steps, "accuracy": steps})
    _quiet("near", middling, "loss", target_from="softmax_ce_floor", tol=0.12, window="tail", window_fraction=0.4,
           min_points=20)


def test_near_softmax_floor_takes_the_class_count_the_first_loss_reaches():
    """A fresh classifier's loss at init is ln C or above, never below: a first loss of 1.53 is no five-class
    model at init (ln 5 = 1.609) even though e^1.53 rounds to 5, so nothing names a C of five or more and a
    plateau at 0.95 (the five-class floor is 0.905) stays quiet. A first loss of 1.62 does reach ln 5: it fires."""
    tail = [0.95, 0.93, 0.97, 0.94, 0.96] * 5
    for first, fires in ((1.53, False), (1.62, True)):
        loss = [first] + [first - (first - 1.0) * i / 15 for i in range(1, 16)] + tail
        run = _run({"loss": loss})
        params = dict(target_from="softmax_ce_floor", tol=0.12, window="tail", window_fraction=0.4, min_points=20)
        if fires:
            assert "= log(1 + (5-1)/e)" in _check("near", run, "loss", **params).summary
        else:
            _quiet("near", run, "loss", **params)


def test_spike_and_oscillation_quiet_while_the_task_score_reaches_new_bests():
    """Loss spikes that all recover, and eval-loss swings, are reported beside an eval accuracy that
    stalls (0.90 at every evaluation); beside one whose best is at its last evaluation with its error
    a tenth or more below where it stood at the first spike or turn (0.960 -> 0.972: 30% of the
    errors gone) they are hard batches and a confident loss on a few examples (quiet); with
    improving_error_terms off, a gain of 0.012 is no tenth of 0.96 and they are reported again."""
    rng = np.random.default_rng(0)
    loss = 3.5 + 0.01 * rng.standard_normal(200)
    loss[80:83] = 5.0
    loss[150:153] = 5.0
    params = {"factor": 1.25, "z": 8.0, "min_spikes": 2, "unless_improving": ["eval/accuracy"],
              "improving_error_terms": True}
    ev_steps = {"eval/accuracy": [40, 80, 120, 160, 200]}
    stalled = {"loss": loss, "eval/accuracy": [0.9] * 5}
    assert _check("spike", _run(stalled, ev_steps), "loss", **params) is not None
    better = {"loss": loss, "eval/accuracy": [0.95, 0.96, 0.965, 0.968, 0.972]}
    _quiet("spike", _run(better, ev_steps), "loss", **params)
    assert _check("spike", _run(better, ev_steps), "loss", **{**params, "improving_error_terms": False}) is not None
    swings = [0.19, 0.15, 0.146, 0.089, 0.152, 0.087, 0.072, 0.221, 0.148, 0.148]
    oparams = {"min_swing": 0.25, "min_reversals": 3, "min_share": 0.25, "min_points": 6,
               "unless_improving": ["eval/accuracy"], "improving_error_terms": True}
    assert _check("oscillation", _run({"eval/loss": swings, "eval/accuracy": [0.9] * 10}), "eval/loss",
                  **oparams) is not None
    acc = [0.95, 0.955, 0.96, 0.958, 0.962, 0.96, 0.965, 0.962, 0.968, 0.972]
    _quiet("oscillation", _run({"eval/loss": swings, "eval/accuracy": acc}), "eval/loss", **oparams)


def test_flat_quiet_while_the_task_score_rises():
    """A loss flat at 6.3 over 40 epochs is reported beside an eval F1 that holds at 0.6; beside an F1
    that rises from 0.60 to 0.77 (medians of its first and last 15%: its errors down by two fifths) the
    model is learning and the loss only has a high floor (quiet)."""
    loss = [6.32 - 0.0003 * i for i in range(40)]
    params = {"rel_tol": 0.03, "min_points": 20, "unless_improving": ["eval/f1"], "improving_error_terms": True}
    assert _check("flat", _run({"loss": loss, "eval/f1": [0.6] * 40}), "loss", **params) is not None
    rising = [0.6 + 0.17 * i / 39 for i in range(40)]
    _quiet("flat", _run({"loss": loss, "eval/f1": rising}), "loss", **params)


def test_unbounded_fall():
    """A loss falling by about 95 a log from -5 to -860 (as fast late as early) has no floor; one that
    reaches -228 but slows from 59 a log to 3 is approaching one, and a loss above zero is another finding."""
    linear = [-5.0 - 95.0 * i for i in range(10)]
    hit = _check("unbounded_fall", _run({"loss": linear}), "loss")
    assert "-860" in hit.summary and "no floor" in hit.summary
    _quiet("unbounded_fall", _run({"loss": [-1, -60, -110, -150, -180, -200, -212, -220, -225, -228]}), "loss")
    _quiet("unbounded_fall", _run({"loss": [900.0 - 95.0 * i for i in range(10)]}), "loss")


def test_unless_every_value_sentinel():
    """unless_every_value: a loss of exactly -1 at all 6 rows is the sentinel of a rank that computed none
    (TorchTitan's pipeline ranks without the last stage): quiet for constant and threshold; the same loss
    with one real value among the -1s, or pinned at another value, still fires."""
    run = _run({"loss": [-1.0] * 6})
    _quiet("constant", run, "loss", min_share=0.9, min_count=3, min_points=3, unless_every_value=-1.0)
    _quiet("threshold", run, "loss", op="<", value=0.01, min_share=0.9, min_count=3, min_points=3,
           unless_every_value=-1.0)
    assert _check("constant", run, "loss", min_share=0.9, min_count=3, min_points=3).numbers["value"] == -1.0
    _check("threshold", run, "loss", op="<", value=0.01, min_share=0.8, min_count=3, min_points=3)
    mixed = _run({"loss": [2.3] + [-1.0] * 9})
    _check("constant", mixed, "loss", min_share=0.9, min_count=3, min_points=3, unless_every_value=-1.0)
    _check("threshold", mixed, "loss", op="<", value=0.01, min_share=0.9, min_count=3, min_points=3,
           unless_every_value=-1.0)
    pinned = _run({"loss": [0.6931] * 6})
    _check("constant", pinned, "loss", min_share=0.9, min_count=3, min_points=3, unless_every_value=-1.0)


def test_all_positive_when_recall_is_one_and_precision_equals_accuracy():
    """Recall 1 (no false negatives) with precision = accuracy < 1 at the same evaluation means no true
    negatives: every example called positive. Two such evaluations fire; one, or precision apart from
    accuracy (some negatives caught), or a perfect score, is quiet."""
    run = _run({"eval/recall": [0.7003, 1.0, 1.0, 0.4795], "eval/precision": [0.5275, 0.5, 0.5, 0.5764],
                "eval/accuracy": [0.5365, 0.5, 0.5, 0.5636]})
    hit = _check("all_positive", run, "eval/recall", min_count=2)
    assert hit.summary.startswith("eval/recall is exactly 1 while eval/precision equals eval/accuracy (0.5 at step 2) "
                                  "at 2 evaluations (steps 2-3)")
    assert hit.numbers == {"count": 2, "share": 0.5}
    _quiet("all_positive", run, "eval/recall", min_count=3)
    _quiet("all_positive", _run({"eval/recall": [1.0, 1.0], "eval/precision": [0.70, 0.77],
                                 "eval/accuracy": [0.74, 0.80]}), "eval/recall", min_count=2)
    _quiet("all_positive", _run({"eval/recall": [1.0, 1.0], "eval/precision": [1.0, 1.0],
                                 "eval/accuracy": [1.0, 1.0]}), "eval/recall", min_count=2)


def test_nonfinite_only_while_zero():
    """An F1 that is NaN at its one evaluation beside an accuracy of exactly 0 is 0/0 with not one
    prediction right; beside an accuracy of 0.62 (or with no accuracy logged) it says nothing more."""
    params = {"all_bad": True, "only_while_zero": ["eval/accuracy", "accuracy"]}
    hit = _check("nonfinite", _run({"f1": [np.nan], "accuracy": [0.0]}), "f1", **params)
    assert hit.summary == "f1 is NaN on 1 of 1 logged points (100%), first at step 1"
    _quiet("nonfinite", _run({"f1": [np.nan], "accuracy": [0.62]}), "f1", **params)
    _quiet("nonfinite", _run({"f1": [np.nan]}), "f1", **params)


def test_constant_trailing_share_and_start():
    """A loss that starts at 3279, reads 0, rebounds to 778, then reads exactly 0 at its last 5 of 8 logs
    took over the larger part of the log after a start no model is sure at; the same last 5 zeros after a
    start of 0.46 (a small loss that fell to the print's last digit), or 3 zeros out of 8, do not."""
    params = {"value": 0.0, "trailing": True, "trailing_share": 0.5, "trailing_start_min": 1.0,
              "min_count": 3, "min_points": 4}
    hit = _check("constant", _run({"loss": [3278.6, 0.0, 778.3, 0.0, 0.0, 0.0, 0.0, 0.0]}), "loss", **params)
    assert hit.summary == "loss is exactly 0 on its last 5 points (steps 4-8), after 778 at step 3"
    _quiet("constant", _run({"loss": [0.46, 0.12, 0.03, 0.0, 0.0, 0.0, 0.0, 0.0]}), "loss", **params)
    _quiet("constant", _run({"loss": [3.1, 2.4, 2.0, 1.7, 1.5, 0.0, 0.0, 0.0]}), "loss", **params)


def test_constant_trailing_from_min():
    """A Trainer loss that reads 1.97 and then exactly 0 to the end stepped to 0 from a working level (a NaN the
    logger filtered); one that crept down 0.0003, 0.0002, 0.0001 and then reads 0 fell below the print's last
    digit (the Trainer rounds the logged loss to 4 decimals), and is quiet with trailing_from_min 0.001."""
    params = {"value": 0.0, "trailing": True, "trailing_from_min": 0.001, "min_count": 2, "min_points": 4}
    hit = _check("constant", _run({"loss": [2.31, 1.97, 0.0, 0.0, 0.0]}), "loss", **params)
    assert hit.summary == "loss is exactly 0 on its last 3 points (steps 3-5), after 1.97 at step 2"
    _quiet("constant", _run({"loss": [0.85, 0.0003, 0.0002, 0.0001, 0.0, 0.0, 0.0]}), "loss", **params)
    params.pop("trailing_from_min")
    _check("constant", _run({"loss": [0.85, 0.0003, 0.0002, 0.0001, 0.0, 0.0, 0.0]}), "loss", **params)


def test_zero_while_falling_ends_zero_after():
    """An eval mAP of 0.0943 then exactly 0 is a score the model had earned gone to none; 0.0943 then
    0.121 is not, nor is 0.004 then 0 (an earlier score at print noise)."""
    hit = _check("zero_while_falling", _run({"eval/map": [0.0943, 0.0]}, steps={"eval/map": [4, 8]}), "eval/map",
                 ends_zero_after=0.05, min_points=2)
    assert hit.summary == "eval/map is exactly 0 at its last evaluation (step 8) after 0.0943 at step 4"
    _quiet("zero_while_falling", _run({"eval/map": [0.0943, 0.121]}), "eval/map", ends_zero_after=0.05, min_points=2)
    _quiet("zero_while_falling", _run({"eval/map": [0.004, 0.0]}), "eval/map", ends_zero_after=0.05, min_points=2)
    # a score exactly 0 at most evaluations before (0 or 1 on a batch of one) is at its noise level
    _quiet("zero_while_falling", _run({"eval/accuracy": [0, 0, 1, 0, 0, 1, 0, 0]}), "eval/accuracy",
           ends_zero_after=0.05, min_points=2)
    # ... and set, it is the check's only reading: 0 at every evaluation while the loss falls is det-metric-zero's
    _quiet("zero_while_falling", _run({"eval/accuracy": [0.0] * 5, "loss": [6.9, 5.0, 4.1, 3.3, 2.7]}), "eval/accuracy",
           ends_zero_after=0.05, min_points=2)


def test_uniform_while_accurate():
    """Two classes: the loss starts at ln 2 = 0.693 and stays within 1% of it while the accuracy climbs
    from 0.5 to 0.9 (last quarter median 0.9); a loss that falls as the accuracy climbs, a first loss
    that is no ln C (an excerpt), or an accuracy that started high, are not this."""
    acc = [0.5, 0.6, 0.75, 0.85, 0.9, 0.9, 0.9, 0.9]
    loss = [0.6931, 0.6925, 0.6915, 0.6905, 0.69, 0.6898, 0.6897, 0.6896]
    hit = _check("uniform_while_accurate", _run({"accuracy": acc, "loss": loss}), "accuracy")
    assert hit.summary == ("accuracy rose from 0.5 to 0.9 (chance 1/2 = 0.5) while loss stayed within 5% of ln 2 = "
                           "0.693, the loss of a uniform guess, from 0.693 to 0.69: the predictions are right but "
                           "carry almost no confidence, so something caps it (targets smoothed towards uniform, "
                           "logits scaled down)")
    assert hit.numbers == {"classes": 2, "accuracy": 0.9, "loss": 0.6896}
    _quiet("uniform_while_accurate", _run({"accuracy": acc, "loss": [0.693 * 0.8 ** i for i in range(8)]}), "accuracy")
    _quiet("uniform_while_accurate", _run({"accuracy": acc, "loss": [0.75] * 8}), "accuracy")
    _quiet("uniform_while_accurate", _run({"accuracy": [0.8] + acc[1:], "loss": loss}), "accuracy")
    _quiet("uniform_while_accurate", _run({"accuracy": acc[:3] + [0.9], "loss": loss[:4]}), "accuracy")  # four logs: a start


def test_running_total():
    """Four epochs of four logs, per-batch loss 2, 1.6, 1.28, 1.024: each print is k x that (2, 4, 6, 8), so
    every cycle's k-th value is k times its first; a mean loss wandering within epochs is not this."""
    loss = [k * m for m in (2.0, 1.6, 1.28, 1.024) for k in (1, 2, 3, 4)]
    hit = _check("running_total", _run({"loss": loss}), "loss")
    assert hit.summary == ("loss climbs within each of 3 cycles of 4-4 logs and restarts at the next (e.g. 2 -> 8 over "
                           "steps 1-4, then 1.6), its k-th value about k times its first: a running total of the "
                           "batch losses since the epoch began, never divided by the number of batches")
    assert hit.numbers == {"cycles": 3, "length": 4}
    _quiet("running_total", _run({"loss": [m * f for m in (2.0, 1.6, 1.28, 1.024) for f in (1.0, 1.1, 1.15, 1.2)]}), "loss")


def test_constant_multiple():
    """The eval loss is 6x the training loss at steps 4, 8, 12, 16 (and 6.6x at the last): the gap is there
    from the first evaluation and stays, unlike overfitting's, which opens from about 1."""
    train = [2.0 * 0.9 ** i for i in range(1, 17)]
    ev = [6.0 * train[3], 6.0 * train[7], 6.0 * train[11], 6.6 * train[15]]
    steps = {"eval/loss": [4, 8, 12, 16], "eval/accuracy": [4, 8, 12, 16]}
    acc = [0.6, 0.7, 0.75, 0.8]
    run = _run({"loss": train, "eval/loss": ev, "eval/accuracy": acc}, steps)
    hit = _check("constant_multiple", run, "eval/loss")
    assert hit.summary == ("eval/loss is 6x loss at its first log (step 4) and 6.6x at its last (step 16), never under "
                           "6x: a gap that is there from the start and does not grow is no overfitting but two losses "
                           "on different scales (a sum over batches against a mean, a per-sequence against a per-token "
                           "loss)")
    assert hit.numbers == {"first": pytest.approx(6.0), "last": pytest.approx(6.6)}
    overfit = [1.1 * train[3], 2.0 * train[7], 4.0 * train[11], 9.0 * train[15]]
    _quiet("constant_multiple", _run({"loss": train, "eval/loss": overfit, "eval/accuracy": acc}, steps), "eval/loss")
    # no accuracy (a regression whose eval targets may spread wider), or one far below the training accuracy
    _quiet("constant_multiple", _run({"loss": train, "eval/loss": ev}, steps), "eval/loss")
    _quiet("constant_multiple", _run({"loss": train, "eval/loss": ev, "eval/accuracy": acc, "accuracy": [0.99] * 16},
                                     steps), "eval/loss")


def test_constant_multiple_cross_entropy_proof():
    """The same 6x eval loss with no accuracy but its perplexity logged (exp of it: a cross-entropy, no
    regression) fires with cross_entropy_proof; without the perplexity, or with the proof unset, it stays
    quiet; an overfitting gap that opens from 1.1x stays quiet with the proof too."""
    train = [2.0 * 0.9 ** i for i in range(1, 17)]
    ev = [6.0 * train[3], 6.0 * train[7], 6.0 * train[11], 6.6 * train[15]]
    steps = {"eval/loss": [4, 8, 12, 16], "eval/perplexity": [4, 8, 12, 16]}
    ppl = [math.exp(v) for v in ev]
    proof = {"cross_entropy_proof": ["eval/perplexity"]}
    hit = _check("constant_multiple", _run({"loss": train, "eval/loss": ev, "eval/perplexity": ppl}, steps), "eval/loss",
                 **proof)
    assert hit.summary.startswith("eval/loss is 6x loss at its first log (step 4) and 6.6x at its last (step 16)")
    _quiet("constant_multiple", _run({"loss": train, "eval/loss": ev}, steps), "eval/loss", **proof)
    _quiet("constant_multiple", _run({"loss": train, "eval/loss": ev, "eval/perplexity": ppl}, steps), "eval/loss")
    overfit = [1.1 * train[3], 2.0 * train[7], 4.0 * train[11], 9.0 * train[15]]
    _quiet("constant_multiple", _run({"loss": train, "eval/loss": overfit, "eval/perplexity": ppl}, steps), "eval/loss",
           **proof)


def test_nonfinite_exp_of():
    """A perplexity of +inf where the eval loss is 800 (exp(800) overflows above 709.78) is exp() of a huge
    finite loss, not a NaN; the same inf beside an eval loss of 5 is."""
    steps = {"eval/perplexity": [10, 20, 30], "eval/loss": [10, 20, 30]}
    run = _run({"eval/perplexity": [np.inf] * 3, "eval/loss": [800.0, 790.0, 805.0]}, steps)
    _quiet("nonfinite", run, "eval/perplexity", exp_of=["eval/loss"])
    run = _run({"eval/perplexity": [np.inf] * 3, "eval/loss": [5.0, 5.1, 5.2]}, steps)
    assert _check("nonfinite", run, "eval/perplexity", exp_of=["eval/loss"]).first_step == 10


def test_constant_only_while_loss_falls():
    """A gradient norm of exactly 0 at 30 logs: beside a loss that falls from 2 to 0.25 it fires (the norm was
    read where the gradients are zero), beside a flat loss it does not (that is the other detector's zero)."""
    zeros = [0.0] * 30
    falling = _run({"grad_norm": zeros, "loss": [2.0 * 0.93 ** i for i in range(30)]})
    assert _check("constant", falling, "grad_norm", value=0.0, only_while_loss_falls=0.2).numbers["share"] == 1.0
    flat = _run({"grad_norm": zeros, "loss": [2.0 + 0.01 * (i % 3 - 1) for i in range(30)]})
    _quiet("constant", flat, "grad_norm", value=0.0, only_while_loss_falls=0.2)
    _quiet("constant", falling, "grad_norm", value=0.0, unless_loss_falls=0.2)


def test_constant_coarse_unless_fell():
    """A gradient norm printed as 0.0000 at 30 logs beside a loss printed at 4 decimals that falls from 2 to
    0.25 may be a tiny real norm rounded away: quiet; when the held-out loss falls by a fifth as well
    (1.4 -> 1.0) the model learns from real gradients, so the zeros were read where there are none."""
    zeros = [0.0] * 30
    loss = [round(2.0 * 0.93 ** i, 4) for i in range(30)]
    params = dict(value=0.0, only_while_loss_falls=0.2, unless_coarse_print=6,
                  coarse_unless_fell=["eval/loss"])
    stalled = _run({"grad_norm": zeros, "loss": loss, "eval/loss": [1.4, 1.41, 1.39, 1.4, 1.4, 1.39]},
                   steps={"eval/loss": [5, 10, 15, 20, 25, 30]})
    _quiet("constant", stalled, "grad_norm", **params)
    learns = _run({"grad_norm": zeros, "loss": loss, "eval/loss": [1.4, 1.3, 1.2, 1.1, 1.05, 1.0]},
                  steps={"eval/loss": [5, 10, 15, 20, 25, 30]})
    assert _check("constant", learns, "grad_norm", **params).numbers["share"] == 1.0


def test_term_swamps():
    """A regression term in raw units (4.2e6 falling) summed with a classification CE of 1.38: 3e6x, the
    CE's share of the gradient is lost; the same CE beside a standardised MSE (0.9) is quiet, and so is a
    loss scale of 65536 (not a loss term) or a partner that is itself in the millions (a divergence)."""
    cls = [1.38 - 0.02 * i for i in range(20)]
    swamped = _run({"train_reg_loss": [4.2e6 * 0.95 ** i for i in range(20)], "train_cls_loss": cls})
    hit = _check("term_swamps", swamped, "train_reg_loss", skip=["*scale*"], max_other=100)
    assert hit.summary.startswith("train_reg_loss starts at 3.")
    assert hit.numbers["ratio"] > 1e6
    _quiet("term_swamps", _run({"train_reg_loss": [0.9 * 0.95 ** i for i in range(20)], "train_cls_loss": cls}),
           "train_reg_loss", skip=["*scale*"], max_other=100)
    _quiet("term_swamps", _run({"loss_scale": [65536.0] * 20, "train_cls_loss": cls}), "loss_scale",
           skip=["*scale*"], max_other=100)
    _quiet("term_swamps", _run({"loss": [3e31] * 20, "l1_loss": [2e14] * 20}), "loss", skip=["*scale*"],
           max_other=100)


def test_oscillation_quiet_on_binomial_noise_of_a_small_eval_set():
    """An eval accuracy in 64ths around 0.25 turns by 5-8 points (4-5 of 64 samples): the standard deviation
    of the difference of two evaluations of 64 samples at p = 0.25 is sqrt(2 x 0.25 x 0.75 / 64) = 0.077, so
    those turns are within three of it (quiet with binomial_z 3); turns of 0.2 -> 0.9 -> 0.3 on the same grid
    are far beyond it (reported), and without binomial_z the small turns are reported too."""
    params = {"min_swing": 0.2, "min_reversals": 2, "min_share": 0.25, "min_points": 5, "small_eval": 64}
    noisy = [k / 64 for k in (16, 11, 17, 12, 18, 13, 17, 12, 16)]
    assert _check("oscillation", _run({"eval/accuracy": noisy}), "eval/accuracy", **params) is not None
    _quiet("oscillation", _run({"eval/accuracy": noisy}), "eval/accuracy", binomial_z=3.0, **params)
    wild = [k / 64 for k in (13, 58, 19, 57, 16, 60, 20, 55, 18)]
    assert _check("oscillation", _run({"eval/accuracy": wild}), "eval/accuracy", binomial_z=3.0, **params) is not None



def test_constant_unless_score_below_max():
    """An eval loss of exactly 0 at both evaluations beside an eval accuracy of 1.0 (or of 100 in percent)
    is a held-out set scored perfectly; beside an accuracy that ends at 0.82 it is a loss that scored
    nothing, and the check stays quiet."""
    params = {"value": 0.0, "min_share": 0.5, "min_count": 1, "min_points": 1,
              "unless_score_below_max": ["eval/*acc*", "eval/*f1*"]}
    hit = _check("constant", _run({"eval/loss": [0.0, 0.0], "eval/accuracy": [1.0, 1.0]}), "eval/loss", **params)
    assert hit.summary == "eval/loss is exactly 0 on 100% of points (2 of 2, steps 1-2)"
    _check("constant", _run({"eval/loss": [0.0, 0.0], "eval/accuracy": [97.0, 100.0]}), "eval/loss", **params)
    _check("constant", _run({"eval/loss": [0.0, 0.0]}), "eval/loss", **params)
    _quiet("constant", _run({"eval/loss": [0.0, 0.0], "eval/accuracy": [1.0, 0.82]}), "eval/loss", **params)
    _quiet("constant", _run({"eval/loss": [0.0, 0.0], "eval/f1": [0.0, 0.0]}), "eval/loss", **params)


def test_threshold_unless_any_below():
    """An entropy below 0.01 at the end fires; the same curve once below 0 (a Gaussian policy's differential
    entropy) is another quantity and stays quiet."""
    hit = _check("threshold", _run({"entropy": [0.5, 0.2, 0.05, 0.004, 0.003, 0.002]}), "entropy",
                 op="<", value=0.01, min_count=3, unless_any_below=0.0)
    assert hit.numbers["share"] == 0.5
    _quiet("threshold", _run({"entropy": [0.5, 0.2, 0.05, 0.004, -0.3, -0.6]}), "entropy",
           op="<", value=0.01, min_count=3, unless_any_below=0.0)


def test_running_median_of_a_wide_window_is_taken_by_blocks():
    """A window of a tenth of a 40,000-point series is taken as block medians: the level and the place of
    the lowest point of a noisy U-shaped curve agree with the exact running median's (a hundredth of the
    curve's depth; within a block's width of points)."""
    from triage.detect.checks import _MEDIAN_BLOCKS, _running_median
    from numpy.lib.stride_tricks import sliding_window_view

    rng = np.random.default_rng(3)
    t = np.linspace(0.0, 1.0, 40_000)
    y = (t - 0.6) ** 2 + rng.normal(0.0, 0.02, len(t))
    k = len(y) // 10
    fast = _running_median(y, k)
    padded = np.concatenate([np.full(k // 2, np.nan), y, np.full(k - 1 - k // 2, np.nan)])
    exact = np.nanmedian(sliding_window_view(padded, k)[::50], axis=1)  # every 50th window is enough to compare
    assert len(fast) == len(y)
    assert abs(float(fast.min()) - float(exact.min())) < 0.01 * float(y.max() - y.min())
    assert abs(int(np.argmin(fast)) - 50 * int(np.argmin(exact))) <= 2 * k // _MEDIAN_BLOCKS + 50


def _shortest_print(v: float, most: int = 9, rel_tol: float = 1e-9) -> tuple[int, int, int]:
    """The shortest print of v, one digit count at a time in plain Python: the reference _printed_all
    (and _printed, one value of it) must agree with."""
    if v == 0 or not math.isfinite(v):
        return 0, 0, 0
    top = math.floor(math.log10(abs(v)))
    for digits in range(1, most + 1):
        e = top - digits + 1
        m = round(v / 10.0**e)
        if abs(m * 10.0**e - v) <= rel_tol * abs(v):
            return digits, e, m
    e = top - most + 1
    return most, e, round(v / 10.0**e)


def test_printed_all_reads_every_value_as_printed_does():
    """The array form of _printed gives the same digits, exponent and units for every value as the
    shortest print worked out one value at a time: printed decimals, float32 values, wide magnitudes,
    0, NaN and inf."""
    from triage.detect.checks import _printed, _printed_all

    rng = np.random.default_rng(5)
    vals = np.concatenate([rng.normal(0.0, 1.0, 2000), np.round(rng.uniform(0.0, 5.0, 2000), 4),
                           rng.lognormal(0.0, 8.0, 1000), [0.0, np.nan, np.inf, -np.inf, 0.995, 3.5073, 2479.171875]])
    vals = np.concatenate([vals, vals.astype(np.float32).astype(float)])
    digits, exps, units = _printed_all(vals)
    assert [_shortest_print(float(v)) for v in vals] == [(int(d), int(e), int(m)) for d, e, m in zip(digits, exps, units)]
    assert _printed(3.5073) == (5, -4, 35073) and _printed(0.0311) == (3, -4, 311)


def _recurring_counts(y: np.ndarray, min_digits: int = 4) -> tuple[int, float, int]:
    """The recurring check's counts, worked out one value at a time in plain Python: equal pairs of
    printed values that are not inside one stretch of consecutive points, the chance level from the
    pairs one to three print units apart, and how many values come more than once."""
    at: dict[tuple[int, int], list[int]] = {}
    for i, v in enumerate(y):
        digits, e, m = _shortest_print(float(v))
        if digits >= min_digits:
            at.setdefault((e, m), []).append(i)
    same = 0
    for ix in at.values():
        stretches, n = [], 1
        for a, b in zip(ix, ix[1:]):
            if b - a == 1:
                n += 1
            else:
                stretches.append(n)
                n = 1
        stretches.append(n)
        same += len(ix) * (len(ix) - 1) // 2 - sum(s * (s - 1) // 2 for s in stretches)
    near = sum(len(ix) * len(at.get((e, m + k), ())) for (e, m), ix in at.items() for k in (1, 2, 3))
    return same, near / 6.0, sum(1 for ix in at.values() if len(ix) > 1)


def test_recurring_counts_pairs_as_the_plain_arithmetic_does():
    """The recurring check counts its equal pairs and the near-miss pairs with array arithmetic: on
    values that repeat (a replayed epoch), values that only repeat by rounding, stretches of one
    value and negative values, the counts it reports are the ones counted one value at a time."""
    from triage.detect.checks import RecurringParams, recurring

    rng = np.random.default_rng(11)
    params = RecurringParams(min_count=1, factor=0.0)  # report every count, to compare them
    fired = 0
    for trial in range(300):
        n = int(rng.integers(8, 300))
        kind = trial % 4
        if kind == 0:  # an epoch replayed: the same values again
            y = np.tile(np.round(rng.normal(2.0, 0.3, int(rng.integers(3, 30))), 4), 20)[:n]
        elif kind == 1:  # four decimals over a narrow spread: near misses and repeats by rounding
            y = np.round(rng.normal(1.0, 0.002, n), 4)
        elif kind == 2:  # stretches of one value
            y = np.repeat(np.round(rng.normal(0.5, 0.1, n // 4 + 1), 5), 4)[:n]
        else:
            y = -np.round(np.abs(rng.normal(3.0, 0.5, n)), 4)
        ctx = Ctx(None, "loss", np.arange(len(y), dtype=float), y, params)
        hit = recurring(ctx)
        same, chance, repeated = _recurring_counts(y)
        if hit is None:
            assert same < 1 or repeated < 2
            continue
        fired += 1
        assert hit.numbers["pairs"] == same and hit.numbers["chance"] == pytest.approx(chance)
    assert fired > 100


def test_trend_acceleration():
    """Ten points, so no smoothing and the ends are the first and last points. 0.1 + i (a KL that drifts
    up from near 0 in a straight line) ends 91x its start but moves 5.0 in its first half (0.1 to 5.1 at
    point 5) and 4.0 in its second: quiet under min_acceleration 4. 2^i (doubling at every log) moves 31
    in its first half (1 to 32) and 480 in its second (32 to 512): 15x."""
    i = np.arange(10.0)
    steady = _run({"kl": 0.1 + i})
    s = steady.series["kl"]
    typed, _ = parse(PARAMS["trend"], {"min_ratio": 20.0, "min_acceleration": 4.0})
    assert CHECKS["trend"](Ctx(steady, "kl", s.steps, s.values, typed)) is None
    hit = _check("trend", _run({"kl": 2.0 ** i}), "kl", min_ratio=20.0, min_acceleration=4.0)
    assert hit.summary == ("kl grew steadily from 1 to 512 over steps 1-10 (100% of intervals rising); "
                           "15x as much in its second half as in its first")
