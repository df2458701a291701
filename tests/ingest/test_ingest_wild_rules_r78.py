"""Reader rules for an epoch loop that announces the pass it goes into, one loss spelt with a space in one
place and '_' in another, a qualifier in parentheses inside a metric's name, and a total among losses of
names of their own."""

from __future__ import annotations

from written_log import read_written as _read
from written_log import series_values as _vals


def test_going_into_epoch_sets_the_epoch(tmp_path):
    """Style: an epoch loop's logger line `loop - Going into epoch 5` before that epoch's progress bar: the bar
    after it belongs to epoch 5, not to the epoch of the summary printed before it."""
    lines = []
    for e in (3, 4, 5):
        lines.append(f"pkg.loop - Going into epoch {e}")
        lines.append(f"100% 400/400 [02:10<00:00,  3.07it/s, train_loss={4.0 - 0.3 * e:.2f}]")
        lines.append(f"pkg.logger - Epoch: {e}, lr: 1.00e-04 - valid loss: {3.9 - 0.2 * e:.2f}")
    lines.append("pkg.loop - Going into epoch 6")
    lines.append("100% 400/400 [02:10<00:00,  3.07it/s, train_loss=2.10]")
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert [float(s) for s in loss.steps] == [3.0, 4.0, 5.0, 6.0]
    assert _vals(run, "loss")[-1] == 2.10


def test_spaced_and_underscored_loss_name_is_one_series(tmp_path):
    """Style: a progress bar printing `train_loss=5.86` at each epoch's end and a summary after it printing
    `train loss: 5.86`; the last epoch's bar has no summary yet. The two spellings are one loss: one series
    of every epoch, not the bar's last value alone."""
    lines = []
    for e in (1, 2, 3):
        lines.append(f"pkg.loop - Starting epoch {e}")
        lines.append(f"100% 300/300 [01:00<00:00,  5.00it/s, train_loss={6.0 - 0.4 * e:.2f}]")
        if e < 3:
            lines.append(f"pkg.logger - Epoch: {e}, lr: 2.00e-04 - train loss: {6.0 - 0.4 * e:.2f} - "
                         f"valid loss: {5.9 - 0.3 * e:.2f}")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [5.6, 5.2, 4.8]
    assert "train_loss" not in run.series


def test_parenthesised_qualifier_inside_a_name(tmp_path):
    """Style: a multi-scale discriminator's losses printed one per scale, `disc (scale 0.5) loss: 1.89`: the
    word and number in parentheses say which scale, so each scale keeps a series of its own and none is read
    as the plain loss or as a value named `scale`."""
    lines = [f"generator loss: {3.0 - 0.1 * i:.3f} | disc (scale 1) loss: {2.2 + 0.01 * i:.3f} | "
             f"disc (scale 0.5) loss: {1.8 + 0.02 * i:.3f}" for i in range(6)]
    run = _read(tmp_path, lines)
    assert not any("scale" == n or n.endswith("_scale") for n in run.series)
    scaled = sorted(n for n in run.series if "scale" in n)
    assert len(scaled) == 2
    assert _vals(run, "disc_(scale_0.5)_loss")[0] == 1.8
    assert _vals(run, "disc_(scale_1)_loss")[-1] == 2.25


def test_total_among_named_losses_is_the_loss(tmp_path):
    """Style: a GAN-style step line whose losses all go by names of their own, one of them the total
    (`1200: codec total loss: 4.87, codec recon loss: 0.001 | stft loss: 2.28`): the total is the training
    loss, the others stay parts under their own names."""
    lines = [f"{1200 + i}: codec total loss: {4.9 - 0.05 * i:.3f}, codec recon loss: 0.001 | "
             f"stft loss: {2.3 - 0.01 * i:.3f}" for i in range(8)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss")[0] == 4.9
    assert _vals(run, "loss")[-1] == 4.55
    assert "codec_recon_loss" in run.series and "stft_loss" in run.series
