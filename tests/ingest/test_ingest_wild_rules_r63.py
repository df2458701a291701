"""Reader rules for print styles met in the wild corpus (round 63): each test writes a log of its own
in the style that asked for the rule."""

from __future__ import annotations

import json

from written_log import read_written as _read, series_values as _vals


def test_ms_swift_plain_acc_is_token_accuracy(tmp_path):
    """ms-swift 2.x logging dicts (`{'loss': 1.80, 'acc': 0.56, ..., 'global_step/max_steps': '1/2169'}`),
    printed to stdout or written one per line to its logging.jsonl: its `acc` is the token accuracy
    that 3.x calls `token_acc`."""
    recs = [{"loss": 1.9 - s / 100, "acc": 0.5 + s / 100, "grad_norm": 3.0, "learning_rate": 1e-5,
             "memory(GiB)": 19.5, "train_speed(iter/s)": 0.41, "epoch": s / 100,
             "global_step/max_steps": f"{s}/400", "percentage": f"{s / 4:.2f}%"} for s in (5, 10, 15)]
    run = _read(tmp_path, [f"[INFO:swift] {r!r}" for r in recs])
    assert _vals(run, "token_accuracy") == [0.55, 0.6, 0.65]
    assert "accuracy" not in run.series
    run = _read(tmp_path, [json.dumps(r) for r in recs], name="logging.jsonl")
    assert _vals(run, "token_accuracy") == [0.55, 0.6, 0.65]
    assert "accuracy" not in run.series
    # a dict without ms-swift's step-of-total key keeps its plain accuracy
    run = _read(tmp_path, [json.dumps({"step": s, "loss": 1.0, "acc": 0.5}) for s in (1, 2)], name="plain.jsonl")
    assert _vals(run, "accuracy") == [0.5, 0.5]


def test_bracket_tag_repeating_the_name_and_gan_totals(tmp_path):
    """Social GAN's trainer logs each network's terms one per line under a tag the names repeat
    (`[D] D_data_loss: 1.386`, `[D] D_total_loss: 1.386`, `[G] G_total_loss: 0.693`): the tag is no
    part of the name, the totals are the discriminator's and generator's losses, and a total equal
    to the term before it is a reading of its own, not an echo."""
    lines = []
    for t in range(246, 276, 5):
        lines += [f"[INFO: train.py:  278]: t = {t} / 4200",
                  "[INFO: train.py:  280]:   [D] D_data_loss: 1.386",
                  "[INFO: train.py:  280]:   [D] D_total_loss: 1.386",
                  "[INFO: train.py:  283]:   [G] G_discriminator_loss: 0.693",
                  "[INFO: train.py:  283]:   [G] G_total_loss: 0.693"]
    run = _read(tmp_path, lines)
    # (each step's four terms, a line each under its `t = N` line: one record of four lines, or four rows)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 24
    assert _vals(run, "d_loss") == [1.386] * 6
    assert _vals(run, "g_loss") == [0.693] * 6
    assert "D_data_loss" in run.series and "G_discriminator_loss" in run.series
    assert not any(name.startswith(("D_D", "G_G")) for name in run.series)


def test_hash_bar_with_its_share_is_no_metric(tmp_path):
    """A batch counter, a progress bar drawn with `#` inside brackets and its share done, then the
    loss (`Batch:250/250.0: [########################################] 100%  Loss:-0.6802  Done...`):
    the bar is no metric's name and its percentage no value; the loss is read."""
    lines = []
    for b, fill in ((100, 16), (200, 32), (250, 40)):
        bar = "#" * fill + " " * (40 - fill)
        lines.append(f"Batch:{b}/250.0: [{bar}] {100 * b // 250}%  Loss:{-0.5 - b / 1000:.4f}  Done...")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [-0.6, -0.7, -0.75]
    assert not any("#" in name for name in run.series)


def test_label_to_index_map_is_no_record(tmp_path):
    """A data-preparation script prints the dataset's class names with the index each gets, quoted
    (`{'dog': '0', 'rooster': '1', 'pig': '2', ...}`) or not: labels and indices, not metrics; the
    training lines after it are the run's records."""
    classes = ["dog", "rooster", "pig", "cow", "frog", "cat", "hen", "mouse_click", "clock_tick"]
    lines = [repr({c: str(i) for i, c in enumerate(classes)}),
             repr({c: i for i, c in enumerate(reversed(classes))})]
    for epoch in (1, 2, 3):
        lines.append(repr({"loss": 1.0 / epoch, "epoch": epoch}))
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.0, 0.5, 1.0 / 3]
    assert not any(c in run.series for c in classes)
    assert run.meta["rows"] == 3
