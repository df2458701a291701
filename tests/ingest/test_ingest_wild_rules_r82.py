"""Name and key rules the wild corpus asked for (round 82), each tried on a short log written for the
test in the style of the prints that needed it."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_hyphenated_mini_batch_columns_and_base_learning_rate_are_canonical(tmp_path):
    """MATLAB trainNetwork's verbose table: `Mini-batch Accuracy`, `Mini-batch Loss` and `Base Learning
    Rate` columns (the heading wrapped over two rows, accuracy printed as a percentage)."""
    lines = [
        "|" + "=" * 80 + "|",
        "|  Epoch  |  Iteration  |  Time Elapsed  |  Mini-batch  |  Mini-batch  |  Base Learning  |",
        "|         |             |   (hh:mm:ss)   |   Accuracy   |     Loss     |      Rate       |",
        "|" + "=" * 80 + "|",
    ]
    for i, it in enumerate(range(1, 300, 50)):
        lines.append(f"|       {1 + i // 2} |         {it:3d} |       00:00:{10 + i:02d} |       {40 + i * 5:.2f}% |"
                     f"       {1.9 - i * 0.2:.4f} |          0.0100 |")
    lines.append("|" + "=" * 80 + "|")
    run = _read(tmp_path, lines)
    assert run.get("accuracy") is not None
    assert _vals(run, "loss")[0] == 1.9
    assert _vals(run, "learning_rate")[0] == 0.01


def test_chemprop_pnorm_is_the_parameter_norm(tmp_path):
    """Chemprop v1 debug lines: `Loss = 6.53e-01, PNorm = 34.03, GNorm = 6.26, lr_0 = 7.19e-04`."""
    lines = [f"Loss = {0.65 - s * 0.05:.4e}, PNorm = {34.0 + s * 0.01:.4f}, GNorm = {6.2 - s * 0.3:.4f}, "
             f"lr_0 = 7.1875e-04" for s in range(5)]
    run = _read(tmp_path, lines)
    assert math.isclose(_vals(run, "params_norm")[0], 34.0)
    assert run.get("grad_norm") is not None


def test_a_benchmark_acronym_before_an_evaluation_score_names_the_set(tmp_path):
    """An STS evaluation report after training: `STS-B Spearman: 0.583291` (the benchmark's
    acronym, hyphenated, before a score only an evaluation has)."""
    lines = [f"Epoch 1/1 | Step {s:04d}/0004 | Loss {0.4 - s / 20:.6f} | LR 0.00003000" for s in range(1, 5)]
    lines += ["", "Running evaluation...", "-" * 40, "STS-B Spearman: 0.583291", "-" * 40]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/spearman") == [0.583291]
    assert len(_vals(run, "loss")) == 4


def test_a_phrase_ending_in_the_programs_identifier_is_named_by_it(tmp_path):
    """WeNet's end-of-epoch line: `Epoch 74 CV info cv_loss 7.6275` (a description, then the
    program's own name for the value, which says it is the cross-validation loss)."""
    lines = [f"2021-12-05 10:00:32,073 INFO Epoch {ep} CV info cv_loss {7.6 + (ep % 3) / 10}" for ep in range(74, 80)]
    run = _read(tmp_path, lines)
    assert run.get("eval/loss") is not None and len(_vals(run, "eval/loss")) == 6
    assert run.get("loss") is None


def test_metrics_named_after_a_data_list_are_that_sets_scores(tmp_path):
    """wav2letter++ progress lines: `loss: 3.69 | train-WER: 52.17 | 1_validate.lst-loss: 2.32 |
    dev.lst-WER: 46.77` (each validation list's file name before the metric)."""
    lines = []
    for n in range(1, 5):
        lines.append(f"epoch:        1 | nupdates:           {n * 40} | lr: 0.025000 | loss:    {3.7 - n / 10:.5f} | "
                     f"train-TER: 16.26 | train-WER: 52.17 | 1_validate.lst-loss:    {2.3 - n / 100:.5f} | "
                     f"1_validate.lst-WER: {20.5 - n / 10:.2f} | dev.lst-loss:    {4.1 - n / 100:.5f} | "
                     f"dev.lst-WER: {46.7 - n / 10:.2f} | hrs:    0.00")
    run = _read(tmp_path, lines)
    assert math.isclose(_vals(run, "loss")[0], 3.6)
    assert math.isclose(_vals(run, "eval/loss")[0], 4.09)
    assert math.isclose(_vals(run, "eval/1_validate/loss")[0], 2.29)
    assert run.get("eval/1_validate/wer") is not None


def test_a_number_sign_before_a_split_word_is_a_count_not_a_score(tmp_path):
    """Data-loading prints before training: `# train: 1001, # test: 112` (`#` read "number of"): the
    sizes of the sets, never the test set's accuracy, even in a log that names its loss."""
    lines = ["loading data", "# classes: 2", "# train: 1001, # test: 112"]
    lines += [f"epoch {ep} loss {0.7 - ep / 10:.3f}" for ep in range(1, 5)]
    run = _read(tmp_path, lines)
    assert run.get("eval/accuracy") is None and run.get("eval/test/accuracy") is None
    assert len(_vals(run, "loss")) == 4


def test_average_of_a_splits_pass_names_the_split_and_the_epoch(tmp_path):
    """Graph U-Nets epoch summaries: `average training of epoch 0: loss 0.57 acc 0.69 auc 0.00` then
    `average test of epoch 0: loss 0.53 ...` (the pass's means, the split and the epoch in the lead)."""
    lines = []
    for ep in range(3):
        lines.append(f"average training of epoch {ep}: loss {0.57 - ep / 10:.5f} acc {0.69 + ep / 20:.5f} auc 0.00000")
        lines.append(f"average test of epoch {ep}: loss {0.53 - ep / 10:.5f} acc {0.73 + ep / 20:.5f} auc 0.00000")
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [0, 1, 2]
    assert math.isclose(_vals(run, "eval/loss")[0], 0.53)
    assert math.isclose(_vals(run, "eval/accuracy")[2], 0.83)


def test_epoch_and_iteration_of_totals_in_one_bracket(tmp_path):
    """CREStereo's train logger: `0.66 b/s,passed:00:13:16,lr:0.0004,[2/100:5/500] ==> loss:26.19` (epoch
    of epochs and iteration of iterations in one bracket, a colon between them): the iteration is the step."""
    lines = [f"2022/06/01 14:17:{10 + i:02d} 0.66 b/s,passed:00:13:16,eta:21:41:36,data_time:0.16,lr:0.0004,"
             f"[2/100:{5 * i}/500] ==> loss:{20 + (i % 3) * 7.5:.2f}" for i in range(1, 7)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [5, 10, 15, 20, 25, 30]
    assert _vals(run, "loss")[0] == 27.5
