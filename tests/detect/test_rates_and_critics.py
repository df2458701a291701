"""A running-mean rate is judged as the rate between logs; a weak critic is quiet while the return improves;
an accurate classifier stuck on the double-softmax floor."""

from __future__ import annotations

import math

import numpy as np

from triage.detect import last_run, run_detectors
from triage.detect.checks import _rate_between_logs
from triage.ingest.run import Run, Series
from triage.kb.base import KnowledgeBase

KB = KnowledgeBase.load()


def _run(series: dict, keys: dict | None = None) -> Run:
    run = Run("mem", "test")
    for name, (steps, values) in series.items():
        split = "eval" if name.startswith("eval/") else "train"
        run.series[name] = Series(name, split, steps, values, source_key=(keys or {}).get(name, name))
    return run


def test_running_mean_rate_is_turned_back_into_the_rate_between_logs():
    steps = np.arange(1, 41) * 100.0
    # 4000 steps/s for the first 1000 steps (no updates yet), then 300 steps/s: the running mean
    elapsed = np.where(steps <= 1000, steps / 4000, 1000 / 4000 + (steps - 1000) / 300)
    x, rate = _rate_between_logs(steps, steps / elapsed)
    assert np.allclose(rate[-20:], 300.0)


def test_sb3_fps_drop_when_learning_starts_is_not_a_throughput_drop():
    steps = np.arange(1, 41) * 100.0
    elapsed = np.where(steps <= 1000, steps / 4000, 1000 / 4000 + (steps - 1000) / 300)
    loss = (steps[steps > 1000], np.linspace(1.0, 0.1, int((steps > 1000).sum())))
    run = _run({"throughput": (steps, steps / elapsed), "loss": loss}, {"throughput": "time/fps"})
    assert not run_detectors(run, KB, only={"det-throughput-drop"})
    # the same numbers as an instantaneous rate that really fell: a drop
    run = _run({"throughput": (steps, np.where(steps <= 1000, 4000.0, 300.0) * np.linspace(1, 0.5, 40))})
    assert run_detectors(run, KB, only={"det-throughput-drop"})


def test_weak_critic_is_quiet_while_the_return_improves():
    steps = np.arange(1, 61) * 200.0
    ev = 0.001 * np.sin(np.arange(60)) + 0.002
    rising = _run({"explained_variance": (steps, ev), "episode_reward": (steps, np.linspace(20, 100, 60))})
    assert not run_detectors(rising, KB, only={"det-ppo-explained-variance"})
    flat = _run({"explained_variance": (steps, ev), "episode_reward": (steps, 20 + np.sin(np.arange(60)))})
    (hit,) = run_detectors(flat, KB, only={"det-ppo-explained-variance"})
    assert "explained_variance < 0.05" in hit.summary


def test_accurate_classifier_on_the_double_softmax_floor():
    floor = math.log(1 + 2 / math.e)  # 3 classes: 0.551
    steps = np.arange(1, 41) * 5.0
    loss = floor + (math.log(3) - floor) * np.exp(-np.arange(40) / 5) + 0.005
    acc = (np.arange(1, 6) * 40.0, np.array([0.9, 0.93, 0.95, 0.95, 0.94]))
    (hit,) = run_detectors(_run({"loss": (steps, loss), "eval/accuracy": acc}), KB,
                           only={"det-accurate-at-softmax-floor"})
    assert "log(1 + 2/e) = 0.551" in hit.summary and hit.numbers["classes"] == 3
    # a proper loss goes below the floor: quiet
    assert not run_detectors(_run({"loss": (steps, loss - 0.3), "eval/accuracy": acc}), KB,
                             only={"det-accurate-at-softmax-floor"})


def test_an_eval_value_repeated_on_every_training_line_is_one_evaluation():
    steps = np.arange(120, 140, dtype=float)
    loss = 1.3 + 0.05 * np.sin(steps)
    repeated = _run({"loss": (steps, loss), "eval/loss": (steps, np.full(len(steps), 4.106))})
    assert not run_detectors(repeated, KB, only={"det-eval-frozen"})
    # the same value at separate evaluations every 10 steps: the weights never change
    sparse = _run({"loss": (steps, loss), "eval/loss": (steps[::5], np.full(4, 4.106))})
    assert run_detectors(sparse, KB, only={"det-eval-frozen"})


def test_an_early_blowup_must_last_and_start_from_a_real_start():
    steps = np.arange(1, 101, dtype=float)
    base = 4.0 * np.exp(-steps / 30) + 1.0
    one_batch = base.copy()
    one_batch[5] = 12.0  # one noisy batch: not a blow-up
    assert not run_detectors(_run({"loss": (steps, one_batch)}), KB, only={"det-loss-early-blowup"})
    lasting = base.copy()
    lasting[2:6] = [14.0, 12.0, 11.0, 10.5]
    (hit,) = run_detectors(_run({"loss": (steps, lasting)}), KB, only={"det-loss-early-blowup"})
    assert "jumped from 4.87 at step 1 to 14 at step 3 (2.88x)" in hit.summary


def test_a_file_of_several_runs_is_judged_on_its_last_run(tmp_path):
    from triage.ingest import read_run

    lines = []
    for run in range(3):  # three models trained one after the other, each from epoch 1
        for epoch in range(1, 41):
            lines.append(f"Epoch {epoch} loss {2.3 * 0.93 ** epoch + 0.05 * run:.4f}")
    p = tmp_path / "three_runs.log"
    p.write_text("\n".join(lines) + "\n")
    run = read_run(p)
    assert run.meta["runs"] == 3 and len(run.get("loss")) == 120  # every row is kept
    assert len(last_run(run).get("loss")) == 40
    assert not run_detectors(run, KB)  # no 'spike' where the next model starts


def test_a_stub_run_after_a_real_one_is_not_what_is_judged(tmp_path):
    """A one-epoch export or smoke test appended after the training: the training is judged."""
    from triage.ingest import read_run

    lines = [f"Epoch {epoch} loss {2.3 * 0.93 ** epoch:.4f}" for epoch in range(1, 31)]
    lines += [f"Epoch {epoch} loss {2.3 * 0.93 ** epoch:.4f}" for epoch in range(1, 3)]
    p = tmp_path / "train_then_export.log"
    p.write_text("\n".join(lines) + "\n")
    run = read_run(p)
    assert run.meta["runs"] == 2
    assert len(last_run(run).get("loss")) == 30
    lines += [f"Epoch {epoch} loss {2.3 * 0.93 ** epoch:.4f}" for epoch in range(3, 11)]  # a real second run
    p.write_text("\n".join(lines) + "\n")
    assert len(last_run(read_run(p)).get("loss")) == 10


def test_a_model_that_learned_then_fell_back_to_chance_is_a_relapse_not_flat():
    steps = np.arange(1, 101) * 5.0
    ln4 = math.log(4)
    relapse = np.where(steps < 200, ln4 - 0.15 * np.sin(np.pi * steps / 200), ln4) + 0.002 * np.cos(steps)
    acc_steps = np.arange(1, 9) * 60.0
    learned = np.array([0.55, 0.68, 0.49, 0.28, 0.26, 0.257, 0.25, 0.26])
    (hit,) = run_detectors(_run({"loss": (steps, relapse), "accuracy": (acc_steps, learned)}), KB,
                           only={"det-loss-near-ln-c"})
    assert hit.answer == "relapse" and "accuracy reached 0.68 at step 120, then the model fell back to chance" in hit.summary
    # at chance from the first log: never learned, the plain 'flat' reading
    never = np.full(8, 0.25) + 0.01 * np.sin(np.arange(8))
    (hit,) = run_detectors(_run({"loss": (steps, relapse), "accuracy": (acc_steps, never)}), KB,
                           only={"det-loss-near-ln-c"})
    assert hit.answer == "flat"
    # one lucky log above chance is not learning
    once = never.copy()
    once[1] = 0.7
    (hit,) = run_detectors(_run({"loss": (steps, relapse), "accuracy": (acc_steps, once)}), KB,
                           only={"det-loss-near-ln-c"})
    assert hit.answer == "flat"


def test_a_flat_loss_after_loading_a_checkpoint_is_a_trained_model_holding_its_level():
    from triage.ingest.run import TextEvent

    steps = np.arange(1, 161, dtype=float)
    level = 2.98 + 0.03 * np.sin(steps)
    fresh = _run({"loss": (steps, level)})
    assert run_detectors(fresh, KB, only={"det-loss-flat"})
    resumed = _run({"loss": (steps, level)})
    resumed.events.append(TextEvent(43, "info", "INFO Loading checkpoint from /ckpt/run-07/latest-unsharded..."))
    assert not run_detectors(resumed, KB, only={"det-loss-flat"})
    # downloading pretrained weights is not a resume: a fine-tune still starts training at its first step
    tuned = _run({"loss": (steps, level)})
    tuned.events.append(TextEvent(3, "info", "Loading checkpoint shards: 100%|##########| 2/2"))
    assert run_detectors(tuned, KB, only={"det-loss-flat"})


def test_a_loss_many_times_ln_c_at_chance_accuracy_is_confidently_wrong_even_on_one_row():
    one = _run({"loss": (np.array([0.0]), np.array([7.67])), "accuracy": (np.array([0.0]), np.array([0.5]))})
    (hit,) = run_detectors(one, KB, only={"det-loss-worse-than-uniform"})
    assert "ln 2 = 0.693 (11x less)" in hit.summary and hit.numbers["classes"] == 2
    # the same loss with the accuracy well above chance: a different story, and ln C at chance is quiet
    assert not run_detectors(_run({"loss": (np.array([0.0]), np.array([7.67])),
                                   "accuracy": (np.array([0.0]), np.array([0.8]))}), KB,
                             only={"det-loss-worse-than-uniform"})
    assert not run_detectors(_run({"loss": (np.array([0.0]), np.array([0.70])),
                                   "accuracy": (np.array([0.0]), np.array([0.5]))}), KB,
                             only={"det-loss-worse-than-uniform"})


def test_epoch_losses_that_keep_swinging_are_oscillation_and_a_steady_fall_is_not():
    from triage.detect.checks import OscillationParams, oscillation
    from triage.detect.checks import Ctx

    epochs = np.arange(12, dtype=float)
    swinging = 0.8 + 0.2 * (-1.0) ** np.arange(12) - 0.01 * epochs
    hit = oscillation(Ctx(_run({}), "loss", epochs, swinging, OscillationParams()))
    assert hit is not None and hit.numbers["turns"] == 10
    steady = 0.5 + 0.4 * np.exp(-epochs / 3) + 0.005 * (-1.0) ** np.arange(12)
    assert oscillation(Ctx(_run({}), "loss", epochs, steady, OscillationParams())) is None
    # one bounce is a bad epoch, not an oscillation
    once = steady.copy()
    once[5] += 0.3
    assert oscillation(Ctx(_run({}), "loss", epochs, once, OscillationParams())) is None


def test_an_eval_loss_creeping_up_near_zero_on_an_accurate_model_is_not_overfitting():
    epochs = np.arange(1, 16, dtype=float)
    train = 0.2 * np.exp(-epochs / 3) + 0.002
    acc = np.full(15, 0.99) + 0.001 * np.sin(epochs)
    tiny = np.concatenate([np.linspace(0.045, 0.029, 5), np.linspace(0.030, 0.039, 10)])
    assert not run_detectors(_run({"loss": (epochs, train), "eval/loss": (epochs, tiny), "eval/accuracy": (epochs, acc)}),
                             KB, only={"det-eval-loss-rising-acc-holds"})
    # the same shape ten times larger: a real climb of the eval loss
    assert run_detectors(_run({"loss": (epochs, train), "eval/loss": (epochs, tiny * 30), "eval/accuracy": (epochs, acc)}),
                         KB, only={"det-eval-loss-rising-acc-holds"})


def test_an_overfit_with_the_accuracy_holding_is_judged_on_the_absolute_rise_of_the_loss():
    epochs = np.arange(1, 15, dtype=float)
    train = 1.2 * np.exp(-epochs / 2) + 1e-4
    held = np.full(14, 0.60) + 0.003 * np.sin(epochs)
    # 1.5 -> 1.74 (16%) while the training loss reaches 0: the model memorised, an overfit
    big = np.concatenate([[1.7, 1.55, 1.5], np.linspace(1.52, 1.74, 11)])
    assert run_detectors(_run({"loss": (epochs, train), "eval/loss": (epochs, big), "eval/accuracy": (epochs, held)}),
                         KB, only={"det-overfit"})
    # 0.029 -> 0.039 (+34%) at 99% accuracy: confidence on the last few errors, not an overfit
    tiny = np.concatenate([[0.05, 0.035, 0.029], np.linspace(0.030, 0.039, 11)])
    acc99 = np.full(14, 0.99) + 0.001 * np.sin(epochs)
    assert not run_detectors(_run({"loss": (epochs, train), "eval/loss": (epochs, tiny), "eval/accuracy": (epochs, acc99)}),
                             KB, only={"det-overfit"})


def test_an_earlier_run_that_blew_up_is_reported_as_that_run(tmp_path):
    """A notebook's first attempt reaches inf at a too-high learning rate; the fixed run after it is
    healthy: the earlier run's finding is kept and says which run it is."""
    from triage.ingest import read_run

    lines = [f"Epoch {e}, Loss {v}" for e, v in zip(range(1, 12), [1763.9, 5802.5, 19408.6, 6.5e4, 2.2e5, 7.4e5,
                                                                   2.5e6, 8.3e6, 2.8e7, 9.1e34, "inf"])]
    lines += [f"Epoch {e}, Loss {80 * 0.8 ** e + 2.9:.4f}" for e in range(1, 41)]
    p = tmp_path / "lr_then_fixed.log"
    p.write_text("\n".join(lines) + "\n")
    found = run_detectors(read_run(p), KB)
    assert found and all(f.summary.startswith("run 1 of 2 in this file: ") for f in found)


def test_an_earlier_run_that_overfit_is_not_the_files_problem(tmp_path):
    """Two folds of a cross-validation: the first fold's eval loss turns up after epoch 8 while its training
    loss falls (an overfit taken alone), the second one's keeps falling. How an earlier run generalised is not
    reported: the folds are there to be compared. The same first fold alone is an overfit."""
    from triage.ingest import read_run

    def fold(turn: bool) -> list[str]:
        out = []
        for e in range(1, 21):
            val = 1.2 - 0.06 * min(e, 8) + (0.04 * (e - 8) if turn and e > 8 else -0.01 * e)
            out.append(f"Epoch {e}/20 - loss: {1.3 - 0.055 * e:.4f} - val_loss: {val:.4f}")
        return out

    p = tmp_path / "folds.log"
    p.write_text("\n".join(fold(True) + fold(False)) + "\n")
    assert not run_detectors(read_run(p), KB, only={"det-overfit"})
    alone = tmp_path / "fold1.log"
    alone.write_text("\n".join(fold(True)) + "\n")
    assert run_detectors(read_run(alone), KB, only={"det-overfit"})
