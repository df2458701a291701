"""Reader rules from a round over multi-agent RL, audio and image fine-tuning, spiking and flow-model logs:
each test writes a small log in one print style and checks what the reader takes from it."""

from __future__ import annotations

import math

from written_log import read_written as _read
from written_log import series_values as _vals


def test_ignite_progress_bar_postfix_before_the_time_part(tmp_path):
    """PyTorch Ignite's ProgressBar: the count in brackets before the bar, the postfix straight after the
    bar's fill with no closing pipe, then the time part (`Epoch [1/20]: [3/50]   6%|▌   , total_loss=2.3 [00:01<00:20]`)."""
    run = _read(tmp_path, [
        "Epoch [1/20]: [3/50]   6%|▌                    , total_loss=2.31 [00:01<00:20]",
        "Epoch [1/20]: [4/50]   8%|▊                    , total_loss=2.05 [00:02<00:19]",
        "Epoch [1/20]: [5/50]  10%|█                    , total_loss=nan [00:02<00:18]",
    ])
    vals = _vals(run, "loss")
    assert vals[:2] == [2.31, 2.05] and math.isnan(vals[2])
    assert int(run.meta["rows"]) == 3


def test_glued_loss_names_in_a_lightning_bar_postfix(tmp_path):
    """Lightning's bar with a VAE-GAN's terms logged per step (`aeloss_step=1.41e+5, discloss_step=0.000`): a
    short lower-case name glued to `loss` is a loss term, so the postfix is a record even with no plain loss."""
    run = _read(tmp_path, [
        "Epoch 0:   0%|          | 1/900 [00:03<45:00,  0.30it/s, v_num=2, aeloss_step=1.52e+5, discloss_step=0.000]",
        "Epoch 0:   0%|          | 2/900 [00:05<44:00,  0.33it/s, v_num=2, aeloss_step=1.47e+5, discloss_step=0.000]",
        "Epoch 0:   0%|          | 3/900 [00:07<43:00,  0.36it/s, v_num=2, aeloss_step=1.39e+5, discloss_step=0.000]",
    ])
    assert int(run.meta["rows"]) == 3
    ae = next(name for name in run.series if name.startswith("aeloss"))
    assert _vals(run, ae) == [152000.0, 147000.0, 139000.0]


def test_pipe_separated_items_each_a_name_a_spaced_dash_and_a_value(tmp_path):
    """A plain print of items split by pipes, each `name - value` (`kl - 0.01 | lr_multiplier - 1.5 | loss -
    4.2`), under a line that counts the self-play games the same way."""
    run = _read(tmp_path, [
        "Game - 10 | data length - 36",
        "kl - 0.012 | lr_multiplier - 1.5 | loss - 4.21",
        "Game - 11 | data length - 40",
        "kl - 0.018 | lr_multiplier - 1.5 | loss - 4.02",
    ])
    assert _vals(run, "loss") == [4.21, 4.02]
    assert _vals(run, "kl") == [0.012, 0.018]


def test_unknown_metric_after_step_n_is_value(tmp_path):
    """`<metric> after step N is X` where the metric is no name the alias table knows (OpenSpiel's CFR
    example: `Nash conv after step 4 is 0.78`): the step is the counter, the value is the metric's, under the
    words before the counter's phrase."""
    run = _read(tmp_path, [
        "Nash conv after step 0 is 1.0296",
        "Nash conv after step 1 is 1.0231",
        "Nash conv after step 2 is 0.7841",
        "Nash conv after step 4 is 0.5131",
    ])
    assert int(run.meta["rows"]) == 4
    (name,) = run.series
    assert name.lower().startswith("nash") and "step" not in name.lower()
    assert [float(s) for s in run.get(name).steps] == [0.0, 1.0, 2.0, 4.0]


def test_metric_for_epoch_n_is_value(tmp_path):
    """`<metric> for epoch N is X` (a change-detection trainer's summary: `Loss for epoch 3 is 0.12`, `F1 class
    change for epoch 3 is 0.88`): `for epoch N` is the counter inside the metric's phrase, as `at step N` is."""
    run = _read(tmp_path, [
        "Loss for epoch 3 is 0.1208",
        "IoU class change for epoch 3 is 0.7713",
        "F1 class change for epoch 3 is 0.8821",
        "Loss for epoch 4 is 0.1105",
        "IoU class change for epoch 4 is 0.7802",
        "F1 class change for epoch 4 is 0.8904",
    ])
    assert _vals(run, "loss") == [0.1208, 0.1105]
    assert [float(s) for s in run.get("loss").steps] == [3.0, 4.0]
    assert any(name.lower().startswith("f1") for name in run.series)


def test_score_with_last_average_best_is_kept_alone(tmp_path):
    """A score printed with its statistics over the run, each tagged (BindsNET: `All activity accuracy: 81.20
    (last), 60.15 (average), 84.00 (best)`): its latest value is a reading even with no counter and printed
    once; `All activity accuracy` is that network's accuracy."""
    run = _read(tmp_path, [
        "All activity accuracy: 81.20 (last), 60.15 (average), 84.00 (best)",
        "Proportion weighting accuracy: 82.40 (last), 61.02 (average), 85.10 (best)",
    ])
    assert _vals(run, "accuracy") == [81.2]
    assert int(run.meta["rows"]) == 2


def test_a_setting_printed_once_stays_no_metric(tmp_path):
    """The counter-part of the rule above: a lone setting with no running statistics is still no reading."""
    run = _read(tmp_path, ["learning_rate: 0.001", "batch size: 64"])
    assert int(run.meta.get("rows") or 0) == 0


def test_discrim_loss_is_the_discriminator_loss(tmp_path):
    """pix2pix-tensorflow's progress block: a `progress` line with the epoch and step, then `discrim_loss`,
    `gen_loss_GAN` and `gen_loss_L1` a line each; `discrim_loss` is the discriminator's loss."""
    run = _read(tmp_path, [
        "progress  epoch 1  step 50  image/sec 11.2  remaining 300m",
        "discrim_loss 1.3862",
        "gen_loss_GAN 0.6931",
        "gen_loss_L1 0.2511",
        "progress  epoch 1  step 100  image/sec 11.0  remaining 298m",
        "discrim_loss 1.2104",
        "gen_loss_GAN 0.8012",
        "gen_loss_L1 0.2310",
    ])
    assert _vals(run, "d_loss") == [1.3862, 1.2104]


def test_pg_loss_is_the_policy_loss(tmp_path):
    """EPyMARL's `Recent Stats` block (tab-separated `name: value` pairs under a `t_env` counter): `pg_loss`,
    the policy-gradient learner's loss, is the policy loss."""
    run = _read(tmp_path, [
        "[INFO 10:01:02] my_main Recent Stats | t_env:      10000 | Episode:       40",
        "advantage_mean:            0.0120\tpg_loss:                  -0.0311\treturn_mean:               1.2500",
        "[INFO 10:02:02] my_main Recent Stats | t_env:      20000 | Episode:       80",
        "advantage_mean:            0.0101\tpg_loss:                  -0.0275\treturn_mean:               1.4000",
    ])
    assert _vals(run, "policy_loss") == [-0.0311, -0.0275]
