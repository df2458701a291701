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
