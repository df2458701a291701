"""Reading rules for print styles met in real training logs (round 50): each test writes a log in the style."""

from __future__ import annotations

import math

from written_log import read_written as _read
from written_log import series_values as _vals


def test_relative_l2_train_and_test_losses_are_loss_and_eval_loss(tmp_path):
    """Neural-operator scripts: `Epoch :  0  Rel. Train L2 Loss :  0.47  Rel. Test L2 Loss :  0.23 ...`."""
    lines = [
        f"Epoch :  {e}  Rel. Train L2 Loss :  {0.5 - 0.1 * e}  Rel. Test L2 Loss :  {0.3 - 0.05 * e}"
        f"  Test L2 Loss :  {0.2 - 0.03 * e}  time :  10.4{e}"
        for e in range(4)
    ]
    run = _read(tmp_path, lines)
    assert all(math.isclose(a, b) for a, b in zip(_vals(run, "loss"), [0.5, 0.4, 0.3, 0.2], strict=True))
    assert math.isclose(_vals(run, "eval/loss")[0], 0.3)


def test_value_of_on_iteration_sentence(tmp_path):
    """A callback's sentence: ` Loss of 0.0131 on iteration 2` (the counter after the value)."""
    lines = [f" Loss of {0.5 / (i + 1)} on iteration {i}" for i in range(2, 7)]
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("loss").steps] == [2, 3, 4, 5, 6]
    assert math.isclose(_vals(run, "loss")[0], 0.5 / 3)


def test_the_name_is_value_glued_sentence(tmp_path):
    """`epoch0:the SSIM is0.81the PSNR is21.5`: names and values in a sentence with no blanks between them."""
    lines = [f"epoch{e}:the SSIM is{0.8 + e / 100}the PSNR is{21 + e / 2}" for e in range(5)]
    run = _read(tmp_path, lines)
    assert _vals(run, "psnr") == [21.0, 21.5, 22.0, 22.5, 23.0]
    assert math.isclose(_vals(run, "ssim")[-1], 0.84)


def test_benchmark_scale_tag_before_psnr_is_evaluation(tmp_path):
    """Super-resolution trainers: `[Set5 x2]\\tPSNR: 37.031 (Best: 37.031 @epoch 1)` after each epoch's loss lines."""
    lines = []
    for e in (1, 2, 3):
        lines.append(f"[Epoch {e}]\tLearning rate: 1.00e-4")
        lines += [f"[{k * 800}/3200]\t[L1: {9 - e - k / 10:.4f}]\t10.0+2.1s" for k in (1, 2, 3, 4)]
        lines += ["", "Evaluation:", f"[Set5 x2]\tPSNR: {35 + e:.3f} (Best: {35 + e:.3f} @epoch {e})", "Forward: 2.87s", ""]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/psnr") == [36.0, 37.0, 38.0]


def test_lone_l1_term_is_the_loss_but_a_printed_loss_wins(tmp_path):
    """`[1200/10500]\\t[L1: 11.2929] \\t21.0+60.3s`: a trainer naming its only loss term; where the run also prints
    `Loss=` (a progress bar) that one is the loss and L1 stays an evaluation score."""
    lines = [f"[{k * 1200}/4800]\t[L1: {12 - k:.4f}] \t21.0+60.3s" for k in (1, 2, 3, 4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [11.0, 10.0, 9.0, 8.0]
    both = [f"Training progress:  {k}0%|###    | {k}000/5000 [00:{k}0<00:50, 50.00it/s, Loss=0.0{k}]" for k in (1, 2, 3, 4)]
    both += ["[ITER 4000] Evaluating train: L1 0.0123 PSNR 27.1 [31/08 22:43:31]"]
    run2 = _read(tmp_path, both, name="both.log")
    assert _vals(run2, "loss") and 0.0123 not in _vals(run2, "loss")


def test_failed_check_with_file_and_line_is_no_metric(tmp_path):
    """`THCudaCheck FAIL file=/x/THCGeneral.cpp line=405 error=11 : invalid argument`: a place in the source."""
    lines = ["THCudaCheck FAIL file=/pytorch/aten/src/THC/THCGeneral.cpp line=405 error=11 : invalid argument"]
    lines += [f"[{k * 1600}/6400]    [L1: {17 - k:.4f}]   6.4+47.0s" for k in (1, 2, 3, 4)]
    run = _read(tmp_path, lines)
    assert not any("line" in name or name == "error" for name in run.series)
    assert len(_vals(run, "loss")) == 4


def test_printed_values_joined_by_a_comma_are_not_csv(tmp_path):
    """`Iteration 02000: loss = 0.5,0.25`: a printed line whose loss terms a comma joins, not a CSV row."""
    lines = [f"Iteration {k * 2000:05d}: loss = {1 / k},{0.5 / k}" for k in (1, 2, 3, 4)]
    run = _read(tmp_path, lines)
    assert run.format != "csv"
    assert [float(s) for s in run.get("loss").steps] == [2000, 4000, 6000, 8000]


def test_process_id_tag_after_the_stamp_is_no_metric(tmp_path):
    """`2025-05-30 12:50:48,715:[P:24512]: => Train:\\tLoss 0.0585`: the id of the process that wrote the line."""
    lines = []
    for e in (1, 2, 3):
        lines.append(f"2025-05-30 12:5{e}:48,715:[P:24512]: => Epoch[{e}]: train start")
        lines.append(f"2025-05-30 12:5{e}:49,715:[P:24512]: => Train:\tLoss {0.06 - e / 1000:.4f}\t")
        lines.append(f"2025-05-30 12:5{e}:58,953:[P:24512]: => Valid:\tLoss {0.1 + e / 100:.4f}\tPSNR 24.{e}\t")
    run = _read(tmp_path, lines)
    assert "P" not in run.series and "p" not in run.series
    assert _vals(run, "loss") == [0.059, 0.058, 0.057]
    assert _vals(run, "eval/psnr") == [24.1, 24.2, 24.3]


def test_score_with_last_and_best_so_far_reads_the_last(tmp_path):
    """`AUROC:   last: 0.9106    max: 0.9106     epoch_max: 0`: the latest score and the best one kept so far."""
    lines = []
    for e in range(3):
        lines.append(f"Epoch: {e}       train loss: {1.5 - e / 10:.4f}")
        lines.append(f"AUROC:   last: {0.8 + e / 100:.4f}    max: {0.8 + e / 100:.4f}     epoch_max: {e}")
    run = _read(tmp_path, lines)
    auc = [name for name in run.series if "auc" in name.lower() or "auroc" in name.lower()]
    assert len(auc) == 1 and _vals(run, auc[0]) == [0.8, 0.81, 0.82]
    assert not any("max" in name or name == "last" for name in run.series)
