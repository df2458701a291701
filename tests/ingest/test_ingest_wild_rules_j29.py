"""Reader rules from judging round j29: metric names a log writes that the alias table must know."""

from __future__ import annotations

from written_log import read_written as _read
from written_log import series_values as _vals


def test_losses_d_and_losses_g_columns_are_the_gan_losses(tmp_path):
    """A PyTorch GAN loop that appends each step's losses to `losses_d` / `losses_g` lists and writes them
    out as CSV columns: `losses_d` is the discriminator's loss, `losses_g` the generator's."""
    run = _read(tmp_path, [
        "losses_d,losses_g",
        "0.0009,10.529",
        "0.0004,9.9135",
        "0.1373,6.4064",
        "0.0300,8.4425",
    ], name="losses.csv")
    assert _vals(run, "d_loss") == [0.0009, 0.0004, 0.1373, 0.03]
    assert _vals(run, "g_loss") == [10.529, 9.9135, 6.4064, 8.4425]
