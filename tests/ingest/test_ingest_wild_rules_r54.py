"""Reader rules from the fifty-fourth round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_one_line_of_per_class_scores_is_an_evaluation(tmp_path):
    """A change-detection eval script's one line of `name: value` pairs (`acc: 0.97 miou: 0.88 mf1: 0.93
    iou_0: ... F1_1: ... precision_0: ... recall_1: ...`): scores of each class (its index after the name)
    and a mean score spelt with an `m` are scores, so the line is an evaluation's report, not settings."""
    line = ("acc: 0.97120 miou: 0.88410 mf1: 0.93050 iou_0: 0.96800 iou_1: 0.80020 F1_0: 0.98370 "
            "F1_1: 0.88900 precision_0: 0.98100 precision_1: 0.90200 recall_0: 0.98600 recall_1: 0.87600")
    run = _read(tmp_path, [line])
    assert int(run.meta["rows"]) == 1
    assert _vals(run, "eval/accuracy") == [0.9712]
    assert _vals(run, "eval/miou") == [0.8841]
    assert _vals(run, "eval/iou_1") == [0.8002]


def test_class_scores_are_not_taken_for_settings(tmp_path):
    """The same kind of names beside settings: `batch_size: 8` and `max_epoch: 20` stay settings."""
    run = _read(tmp_path, ["batch_size: 8", "max_epoch: 20", "num_workers: 4"])
    assert int(run.meta["rows"]) == 0


def test_level_qualified_auroc_lines_are_an_evaluation(tmp_path):
    """An anomaly detector's result lines through Python logging, one score a line, each AUROC named
    for the level it scores (`instance_auroc`, `full_pixel_auroc`, `anomaly_pixel_auroc`): three
    scores of one evaluation, each kept, none dropped as an unknown one-off line."""
    lines = [
        "2024-03-02 10:00:00,100 - INFO - detector - instance_auroc: 0.871",
        "2024-03-02 10:00:00,101 - INFO - detector - full_pixel_auroc: 0.942",
        "2024-03-02 10:00:00,101 - INFO - detector - anomaly_pixel_auroc: 0.903",
    ]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 3  # (one record of three lines, or three)
    got = sorted(float(s.values[-1]) for s in run.series.values())
    assert got == [0.871, 0.903, 0.942]


def test_pixel_auroc_in_a_lightning_bar_is_the_auc(tmp_path):
    """anomalib's Lightning bar ends the epoch with `pixel_AUROC=0.985` beside `loss=nan`: the pixel-level
    AUROC is the run's AUC (knowledge/metrics.yaml)."""
    lines = [
        "Epoch 0: 100%|██████████| 20/20 [01:10<00:00,  3.50s/it, loss=nan, pixel_F1Score=0.201, pixel_AUROC=0.985]",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "auc") == [0.985]


def test_loss_printed_in_full_and_rounded_keeps_the_full_digits(tmp_path):
    """A loop prints the loss twice per logged step: `Train Epoch: 2 [...]  Loss: 0.418263` in full, then
    a terms line ending in the rounded total `loss:0.418`. Both name the loss; the series keeps the
    full digits, at the steps the terms line gives."""
    lines = []
    full = [0.418263, 0.391742, 0.402918, 0.377506]
    for i, v in enumerate(full):
        lines.append(f"Train Epoch: 2 [{3200 + 32 * i}/50000 (6%)]     Loss: {v:.6f}")
        lines.append(f"grad_norm: {3.1 + i / 10:.4f} iteration: {1200 + 5 * i}")
        lines.append(f"loss_cls:{v / 2:.3f}  loss_reg:{v / 2:.3f}  loss:{v:.3f}  ")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == full
    assert [float(s) for s in run.get("loss").steps] == [1200.0, 1205.0, 1210.0, 1215.0]


def test_single_blank_header_of_split_prefixed_columns(tmp_path):
    """A model card's training table with one blank between all words (`Epochs Train Loss Train Fn ...
    Validation Recall`): a split's name and the word after it are one column, whether the alias table
    knows the pair or not, so the header lines up with the rows' cells."""
    lines = [
        "Training Metrics",
        "",
        "Epochs Train Loss Train Fn Train Fp Train Precision Validation Loss Validation Fn Validation Fp "
        "Validation Precision",
        "1 0.31 14.0 620.0 0.061 0.043 9.0 62.0 0.096",
        "2 0.22 3.0 351.0 0.105 0.025 10.0 52.0 0.11",
        "3 0.18 2.0 241.0 0.146 0.014 11.0 28.0 0.184",
    ]
    run = _read(tmp_path, lines)
    assert int(run.meta["rows"]) == 3
    assert _vals(run, "loss") == [0.31, 0.22, 0.18]
    assert _vals(run, "eval/loss") == [0.043, 0.025, 0.014]
    assert _vals(run, "eval/precision") == [0.096, 0.11, 0.184]
