"""Reader rules for print styles of robustness, RL-locomotion and face/speaker-recognition logs (round 69):
each test writes a short log in one style and checks what the reader takes from it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_legged_gym_block_names_surrogate_and_entropy(tmp_path):
    """legged_gym / rsl_rl iteration block: `Surrogate loss:` (older, no `Mean`) is the policy loss, and
    `Mean entropy loss:` prints the policy's entropy itself."""
    lines = [
        "################################################################################",
        "                      Learning iteration 12/1500                       ",
        "",
        "                       Computation: 41230 steps/s (collection: 2.101s, learning 0.311s)",
        "               Value function loss: 0.0432",
        "                    Surrogate loss: -0.0021",
        "                 Mean entropy loss: 11.8450",
        "             Mean action noise std: 0.97",
        "                       Mean reward: 3.41",
        "               Mean episode length: 120.50",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "policy_loss") == [-0.0021]
    assert _vals(run, "entropy") == [11.845]
    assert _vals(run, "value_loss") == [0.0432]


def test_baselines_trpo_table_names(tmp_path):
    """OpenAI baselines TRPO table: `eprewmean` is the mean return, `meankl` the update's KL and
    `ev_tdlam_before` the value function's explained variance."""
    rows = [("EpLenMean", "200"), ("EpRewMean", "-8.5"), ("entloss", "-0.0"), ("ev_tdlam_before", "0.312"),
            ("meankl", "0.0098"), ("eprewmean", "-8.5"), ("TimestepsSoFar", "1024")]
    lines = ["********** Iteration 3 ************"]
    for it, scale in ((3, 1.0), (4, 1.1)):
        lines.append("-" * 37)
        for k, v in rows:
            if k == "TimestepsSoFar":
                v = str(1024 * it)
            elif k not in ("EpLenMean", "entloss"):
                v = f"{float(v) * scale:.4g}"
            lines.append(f"| {k:<16}| {v:<16}|")
        lines.append("-" * 37)
    run = _read(tmp_path, lines)
    assert set(run.series) >= {"episode_reward", "kl", "explained_variance"}
    assert _vals(run, "kl")[0] == 0.0098


def test_sb3_columns_without_prefix_in_csv(tmp_path):
    """A hand-made CSV logger writing SB3's loss names without `train/`: `policy_gradient_loss` is the
    policy loss and `entropy_loss` the negative entropy."""
    lines = [
        "ep_rew_mean,total timesteps,total_loss,policy_gradient_loss,entropy_loss,value_loss",
        "13.5,8192,,,,",
        "20.1,16384,0.91,-0.0027,-1.40,0.91",
        "34.4,24576,0.48,-0.0072,-1.38,0.49",
    ]
    run = _read(tmp_path, lines, name="progress.csv")
    assert _vals(run, "policy_loss") == [-0.0027, -0.0072]
    assert _vals(run, "entropy") == [1.40, 1.38]


def test_cmc_rank_lines(tmp_path):
    """reid-strong-baseline validation block: `CMC Rank-1: 85.34%` is the rank-1 score."""
    lines = [
        "2019-07-12 23:06:05,327 reid_baseline.train INFO: Epoch[5] Iteration[100/1004] Loss: 2.029, Acc: 0.509, Base Lr: 3.50e-04",
        "2019-07-12 23:06:35,327 reid_baseline.train INFO: Epoch[5] Iteration[200/1004] Loss: 1.929, Acc: 0.529, Base Lr: 3.50e-04",
        "2019-07-12 23:16:05,327 reid_baseline.train INFO: Validation Results - Epoch: 5",
        "2019-07-12 23:16:05,328 reid_baseline.train INFO: mAP: 56.9%",
        "2019-07-12 23:16:05,329 reid_baseline.train INFO: CMC Rank-1: 85.3%",
        "2019-07-12 23:16:05,330 reid_baseline.train INFO: CMC Rank-5: 90.1%",
    ]
    run = _read(tmp_path, lines)
    assert "eval/rank1" in run.series and "eval/rank5" in run.series


def test_slashed_epoch_and_iteration_counters(tmp_path):
    """fastreid events line: `epoch/iter: 5/3539` holds the epoch and the run's iteration, not an
    iteration out of a total."""
    lines = [
        "[07/06 15:36:16 fastreid.utils.events]:  eta: 1:24:10  epoch/iter: 5/3539  total_loss: 41.46  loss_cls: 41.4",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [41.46]
    assert [float(s) for s in run.get("loss").steps] == [3539.0]


def test_pipe_drawn_headerless_table_rows(tmp_path):
    """WeSpeaker's training table after a logger prefix, its header printed once and lost from the paste:
    `| epoch | batch | lr | margin | loss | acc |` cells between pipes."""
    lines = [
        "[ INFO : 2024-12-24 21:51:06,518 ] - |        12|       200|   0.08131|       0.1|    3.1461|    41.647|",
        "[ INFO : 2024-12-24 21:52:06,518 ] - |        12|       300|   0.08120|       0.1|    3.0996|    42.495|",
        "[ INFO : 2024-12-24 21:53:06,518 ] - |        12|       400|   0.08110|       0.1|    3.0484|    43.522|",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [3.1461, 3.0996, 3.0484]
    assert _vals(run, "accuracy") == [41.647, 42.495, 43.522]


def test_long_format_csv_one_metric_per_row(tmp_path):
    """A CSV in long format (`Epoch,Loss,Value`, one metric's value per row, as pandas' melt writes it):
    the middle column names the series."""
    lines = ["Epoch,Loss,Value"]
    for ep, (rec, kl) in enumerate([(71.0, 33.6), (38.5, 26.6), (34.5, 26.4)]):
        lines += [f"{ep},recon_loss,{rec}", f"{ep},kl_loss,{kl}", f"{ep},loss,{rec + kl}"]
    run = _read(tmp_path, lines, name="train_losses.csv")
    assert _vals(run, "loss") == [104.6, 65.1, 60.9]
    assert _vals(run, "recon_loss") == [71.0, 38.5, 34.5]


def test_tensorboard_export_is_no_long_format(tmp_path):
    """TensorBoard's one-tag download (`Wall time,Step,Value`) keeps its value column as one series."""
    lines = ["Wall time,Step,Value", "1620000000.0,1,2.5", "1620000010.0,2,2.1"]
    run = _read(tmp_path, lines, name="run-train-tag-loss.csv")
    assert not run.meta.get("long_format")


def test_clean_loss_and_accuracy_of_a_test_line(tmp_path):
    """Adversarial training's test print: `Test set: Clean loss: ..., Clean Accuracy: ...` is the plain
    evaluation loss and accuracy (on unperturbed inputs), beside the adversarial ones."""
    lines = [
        "Train Epoch: 1 [0/60000 (0%)]\tLoss: 2.310779\tAccuracy:5.00%",
        "Train Epoch: 1 [6000/60000 (10%)]\tLoss: 2.301100\tAccuracy:11.00%",
        "Test set: Clean loss: 2.301, Clean Accuracy: 1135/10000 (11%)",
        "Test set: Adv loss: 2.305, Adv Accuracy: 1135/10000 (11%)",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [2.301]
    assert _vals(run, "eval/accuracy") == [0.1135]


def test_verification_set_and_step_brackets(tmp_path):
    """InsightFace verification report: `[lfw][6000]XNorm: 38.36` names the test set, then the step glued
    to the metric; `[6000]Accuracy-Highest: 0.515` the step alone."""
    lines = [
        "testing verification..",
        "(12000, 128)",
        "infer time 30.116359",
        "[lfw][6000]XNorm: 38.367005",
        "[lfw][6000]Accuracy-Flip: 0.91500+-0.01200",
        "testing verification..",
        "[agedb_30][6000]XNorm: 38.366582",
        "[agedb_30][6000]Accuracy-Flip: 0.88000+-0.02000",
        "[6000]Accuracy-Highest: 0.91500",
    ]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 5
    flips = [k for k in run.series if k.endswith("Accuracy-Flip")]
    assert len(flips) == 2
    assert all([float(s) for s in run.get(k).steps] == [6000.0] for k in flips)
