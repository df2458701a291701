"""Reading rules asked for by the more/repos/threads/wild3-12/wild25/wild27/wild28/wild30 collections
(round r11), each on a small synthetic log written in the style that needed it (never a copy of a
corpus file)."""

from __future__ import annotations

from written_log import read_written as _read


def test_a_slash_separated_table_of_gan_errors_is_read_by_column(tmp_path):
    """A GAN loop printing `Generator error / Discriminator error` once, then one `G / D` pair of
    numbers per line: a two-column table whose cells ` / ` separates (errG and errD spelled out)."""
    lines = ["Generator error / Discriminator error"]
    lines += [f"{0.8 + 0.3 * i:.6f} / {0.6 - 0.05 * i:.6f}" for i in range(8)]
    run = _read(tmp_path, lines)
    assert {"g_loss", "d_loss"} <= set(run.series)
    assert len(run.get("g_loss").values) == 8
    assert abs(float(run.get("d_loss").values[0]) - 0.6) < 1e-9
    assert abs(float(run.get("g_loss").values[-1]) - (0.8 + 0.3 * 7)) < 1e-6


def test_a_slash_between_unknown_words_opens_no_table(tmp_path):
    """Prose with a slash (`input / output shapes`) names no known metrics: the numbers below it
    are not read as its columns."""
    lines = ["input / output shapes", "3 / 224", "3 / 112"]
    run = _read(tmp_path, lines)
    assert "input" not in run.series and "output_shapes" not in run.series
