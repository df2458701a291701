"""Reader rules asked for by real logs (round 55): each test writes a log in the style that needed the rule."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_bar_cut_inside_its_total(tmp_path):
    """`Train Epoch: 3/64. Iter: 50/50. LR: 0.03. Loss: 0.16. : 100%|█| 50/`: a tqdm redraw cut by the
    terminal's edge in the middle of its count, the total lost; the description's values are still read."""
    run = _read(tmp_path, [
        f"Train Epoch: {e}/64. Iter: 50/50. LR: 0.0{e}. Loss: {0.5 - 0.1 * e:.4f}. Mask: 0.8. : 100%|\u2588| 50/"
        for e in range(1, 4)
    ])
    assert _vals(run, "loss") == [0.4, 0.3, 0.2]
    assert _vals(run, "learning_rate") == [0.01, 0.02, 0.03]
    # with no counter in the description the bar's own count (all that is left of it) is the step
    run = _read(tmp_path, [f"loss: 0.{9 - i} acc: 0.{i}:  {i}0%|\u2588  | {i}0/" for i in range(1, 4)], "bar.log")
    assert _vals(run, "loss") == [0.8, 0.7, 0.6]
    assert [float(s) for s in run.get("loss").steps] == [10.0, 20.0, 30.0]


def test_names_listed_before_one_equals_sign(tmp_path):
    """`acc_val, acc = 0.72 0.709`: `print("acc_val, acc =", a, b)` lists the names, then the values;
    each name takes the value at its place."""
    run = _read(tmp_path, [
        line
        for e in range(1, 4)
        for line in (f"Epoch {e}, Loss {400 - 10 * e}", f"acc_val, acc = 0.7{e} 0.6{e}")
    ])
    assert _vals(run, "loss") == [390.0, 380.0, 370.0]
    assert _vals(run, "eval/accuracy") == [0.71, 0.72, 0.73]
    assert _vals(run, "accuracy") == [0.61, 0.62, 0.63]


def test_learning_rate_printed_per_parameter_group(tmp_path):
    """`step=10, skipped=0, lr=[2e-05, 2e-05], mom=[(0.9, 0.95), (0.9, 0.95)]`: DeepSpeed prints one rate per
    parameter group; when the groups agree that rate is the run's learning rate."""
    run = _read(tmp_path, [
        f"[2023-04-18 03:44:5{i},804] [INFO] [logging.py:96:log_dist] [Rank 0] step={10 * i}, skipped=0, "
        f"lr=[{i}e-05, {i}e-05], mom=[(0.9, 0.95), (0.9, 0.95)]"
        for i in range(1, 4)
    ])
    assert _vals(run, "learning_rate") == [1e-05, 2e-05, 3e-05]
    assert [float(s) for s in run.get("learning_rate").steps] == [10.0, 20.0, 30.0]


def test_nolearn_epoch_table_rows_without_their_header(tmp_path):
    """`     12       0.29002       0.28839      1.00566      0.62501  419.37s`: nolearn's epoch table with its
    header lost: epoch, training loss, validation loss, their ratio, validation accuracy, the epoch's seconds."""
    run = _read(tmp_path, [
        f"{e:>6}       {0.5 - 0.1 * e:.5f}       {0.4 - 0.1 * e:.5f}      {(0.5 - 0.1 * e) / (0.4 - 0.1 * e):.5f}"
        f"      0.6{e}000  42{e}.50s"
        for e in range(1, 4)
    ])
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == [0.4, 0.3, 0.2]
    assert _vals(run, "eval/loss") == [0.3, 0.2, 0.1]
    assert _vals(run, "eval/accuracy") == [0.61, 0.62, 0.63]
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0]


def test_level_padded_to_its_width_in_brackets(tmp_path):
    """`[2022-11-26 11:34:14,687][    INFO] Iters: 310, Total loss: 0.046`: a logger format that pads the level
    (`[%(levelname)8s]`); the padded level is part of the prefix, not a word of the first name."""
    run = _read(tmp_path, [
        f"[2022-11-26 11:3{i}:14,687][    INFO] Iters: {310 * i}, Total loss: 0.0{5 - i}, Mask: 0.8{i}"
        for i in range(1, 4)
    ])
    assert _vals(run, "loss") == [0.04, 0.03, 0.02]
    assert [float(s) for s in run.get("loss").steps] == [310.0, 620.0, 930.0]


def test_arrow_run_between_heading_and_values(tmp_path):
    """`***** Evaluation original ***** >>>> meanIOU: 73.50`: a run of `>` sets the values off from the heading
    that names their split, as a colon would."""
    run = _read(tmp_path, [
        "Epoch: 1, loss: 0.5",
        "***** Evaluation original ***** >>>> meanIOU: 71.50",
        "Epoch: 2, loss: 0.4",
        "***** Evaluation original ***** >>>> meanIOU: 73.50",
    ])
    assert _vals(run, "eval/miou") == [71.5, 73.5]
    assert _vals(run, "loss") == [0.5, 0.4]
