"""Round r104 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from written_log import read_text


def test_spread_over_clients_keeps_its_own_name(tmp_path):
    # a federated evaluation prints the mean over clients and, under it, the standard deviation: the spread is no
    # training loss or accuracy of its own, even when the log names no other loss or accuracy
    lines = []
    for rnd in range(5):
        lines += [f"==== Round {rnd} ====", f"Mean Test AUC: {0.5 + 0.02 * rnd:.4f}",
                  f"Std Test Loss: {0.3 - 0.01 * rnd:.4f}", f"Std Test Accuracy: {0.01 + 0.002 * rnd:.4f}", ""]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert "loss" not in run.series
    assert "accuracy" not in run.series
    assert "Std_Test_Loss" in run.series and "Std_Test_Accuracy" in run.series


def test_loss_stdev_is_not_the_lone_loss(tmp_path):
    text = "".join(f"iter {i}: recon_loss={1.0 / (i + 1):.4f} recon_loss_std={0.1 / (i + 1):.4f}\n" for i in range(6))
    run = read_text(tmp_path, text)
    assert float(run.series["loss"].values[0]) == 1.0


def test_window_of_a_running_mean_is_part_of_its_name(tmp_path):
    # an RL loop prints the mean return over its last N episodes with N in parentheses before the colon: the
    # window is no value (it read as a constant 100 and hid the returns)
    lines = [f"Episode {10 * i}, Return: {float(i % 3):.1f}, Mean Return (100): {0.5 + 0.25 * i:.2f}" for i in range(6)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    means = [s for name, s in run.series.items() if name != "episode_reward" and "eturn" in name]
    assert len(means) == 1 and float(means[0].values[-1]) == 1.75
    assert float(run.series["episode_reward"].values[1]) == 1.0


def test_window_with_last_after_a_plain_name(tmp_path):
    lines = [f"Ep {5 * i} | Score (over the last 20 games): {3.0 + i:.2f}" for i in range(5)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert [float(v) for v in run.series["episode_reward"].values] == [3.0, 4.0, 5.0, 6.0, 7.0]


def test_a_count_in_parentheses_after_a_plain_name_stays(tmp_path):
    # (no mean and no `last`: `Samples (3): 12` is not rewritten)
    from triage.ingest.textlog import _unwindowed
    assert _unwindowed("Samples (3): 12") == "Samples (3): 12"
    assert _unwindowed("avg loss (last 50 steps) = 0.25") == "avg loss = 0.25"
