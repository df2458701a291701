"""Reader rules from the thirtieth round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_change_of_a_metric_is_not_the_metric(tmp_path):
    """A logger that prints one statistic per line and, before each epoch's block, how far a loss moved
    since the epoch before (`Difference of the previous policy loss: -0.0069`): the change is no value of
    the loss and no row of its own; the epoch's block is the one row."""
    stamp = "2021-03-02 10:00:00,100 — algo.vpg — INFO — "
    lines = [stamp + "Difference of the previous policy loss:         -0.00694",
             stamp + "Change in value loss: -12.5",
             stamp + "Epoch: 7",
             stamp + "Average Episode Return: 42.6",
             stamp + "Policy Loss:    -0.00827",
             stamp + "Value Loss:  395.455"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    assert _vals(run, "policy_loss") == [-0.00827]
    assert not any("previous" in name or "change" in name for name in run.series)


def test_save_best_checkpoint_notice_is_no_row(tmp_path):
    """A Lightning bar with a logger line glued after it that keeps a checkpoint for its score
    (`...loss=8.98, v_num=0]INFO:root:epoch 0 ,step 2000 , save best 10.21875, ./best_ckpt`): the notice
    repeats a best score, so only the bar snapshots are rows."""
    bar = "Epoch 0:  {p}%|#####     | {n}/12000 [01:20<07:02, 24.82it/s, loss={loss}, v_num=0]"
    lines = [bar.format(p=16, n=2000, loss="8.98") + "INFO:root:epoch 0 ,step 2000 , save best 10.21875, ./best_ckpt",
             "",
             bar.format(p=33, n=4000, loss="8.96") + "INFO:root:epoch 0 ,step 4000 , save best 8.398, ./best_ckpt",
             "",
             bar.format(p=41, n=5000, loss="nan")]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "loss")[:2] == [8.98, 8.96]
    assert not any("best" in name for name in run.series)


def test_config_tree_drawn_with_bars_is_settings(tmp_path):
    """A config printed as a tree, each nesting level drawn as `|-` and a tab between name and value
    (`  |-   |- lambda_c<TAB>1.0`), before `ITER <n> TRAINING ...` lines: the tree's numbers are settings,
    never rows, and the step counter does not start again where the training lines begin."""
    lines = ["model:", "  |- hidden_dim\t80", "  |- dropout\t0.5", "  |- schedule:", "  |-   |- start:",
             "  |-   |-   |- iter\t250000", "  |-   |-   |- val\t2.0", "  |- lr\t0.0003", "  |- n_iter\t50000"]
    for k in range(6):
        lines.append(f"ITER {k * 500} TRAINING (phase 1). loss_recon: {3.5 - 0.4 * k:.4f}; Grad_norm: {0.5 + 0.1 * k:.4f} ")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 6
    assert run.meta.get("restarts", 0) == 0
    assert _vals(run, "loss_recon")[0] == 3.5
    assert not any(name in run.series for name in ("dropout", "hidden_dim", "iter", "val", "n_iter", "lr", "learning_rate"))
