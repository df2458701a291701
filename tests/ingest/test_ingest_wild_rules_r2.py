"""Reading rules drawn from the wild13-wild24 collections: a note printed after a table row, the
learning rate printed beside evaluation scores, a `_value` suffix on a name, a bare `Grad` column and
a sentence that ends just before a key. Every log here is written for the test."""

from __future__ import annotations

from triage.ingest.aliases import table
from written_log import read_written as _read


def test_a_note_after_the_last_cell_of_a_pipe_table_row_is_dropped(tmp_path):
    """Style: a pipe table whose script marks the best epochs with a note after the last cell
    (` 3 |  0.71 |  66.1% | ... |  19.4s  <- best`)."""
    lines = [" Epoch | TrainLoss | TrainAcc | ValLoss | ValAcc |   Time", "-" * 56]
    for e in range(1, 6):
        note = "  <- best" if e % 2 else ""
        lines.append(f"  {e:>4} | {1.5 - e / 10:9.4f} | {50 + e:7.2f}% | {1.2 - e / 20:7.4f} | {40 + e:5.2f}% | "
                     f"{19 + e / 10:5.1f}s{note}")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5
    assert list(run.get("loss").steps) == [1, 2, 3, 4, 5]
    assert list(run.get("loss").values) == [1.4, 1.3, 1.2, 1.1, 1.0]
    assert list(run.get("eval/accuracy").values) == [41, 42, 43, 44, 45]


def test_a_model_summary_row_with_a_word_in_its_last_cell_is_no_table_row(tmp_path):
    """Style: Lightning's model summary (`0 | student | EfficientNet | 2.4 M | train`): text cells
    beside the numbers are no note, and the summary stays out of the metrics."""
    lines = ["  | Name    | Type             | Params | Mode", "-" * 44,
             "0 | student | EfficientNet     | 2.4 M  | train",
             "1 | ce_loss | CrossEntropyLoss | 0      | train",
             "2 | kl_loss | KLDivLoss        | 0      | train", "-" * 44]
    run = _read(tmp_path, lines + ["Traceback (most recent call last):", '  File "x.py", line 1, in <module>',
                                   "ZeroDivisionError: float division by zero"])
    assert not run.meta.get("rows")


def test_a_learning_rate_printed_after_the_validation_scores_is_the_runs(tmp_path):
    """Style: a per-epoch line that ends with the rate after the validation scores
    (`Epoch [3/50] (900) train_mae: 8.1, val_mae: 4.0, lr: 0.0005`) and an evaluation heading's
    lines that print the rate."""
    lines = [f"Epoch [{e}/50] ({e * 300}) train_mae: {9 - e / 10:.2f}, val_mae: {5 - e / 10:.2f}, lr: {e}e-04"
             for e in range(1, 5)]
    run = _read(tmp_path, lines)
    assert "eval/learning_rate" not in run.series
    assert list(run.get("learning_rate").values) == [1e-4, 2e-4, 3e-4, 4e-4]


def test_a_value_suffix_on_a_name_names_the_same_metric(tmp_path):
    """Style: `epoch: 3 - train Avg_loss: 1.89, train Lr_value: 6.00e-02` (a name with `_value`
    after it)."""
    lines = [f"epoch: {e} - train Avg_loss: {3 - e / 2:.2f}, train Avg_acc: {50 + e}.5, train Lr_value: {e}.00e-02"
             for e in range(1, 5)]
    run = _read(tmp_path, lines)
    assert list(run.get("learning_rate").values) == [0.01, 0.02, 0.03, 0.04]
    assert table().resolve("loss value", "text").name == "loss"
    assert table().resolve("value loss", "text").name == "value_loss"  # (a critic's loss keeps its name)


def test_a_bare_grad_column_is_the_gradient_norm(tmp_path):
    """Style: `51000 / 1000000 eps 0.899 |  avgR -0.997 | Loss 9.240e-03 | Grad 5.585e-03 ` (a DQN
    trainer's line, the gradient's norm named only `Grad`)."""
    lines = [f"{s} / 1000000 eps 0.{900 - s // 500} |  avgR -0.997 | Loss {s}e-07 | Grad {s // 500}e-04 "
             for s in range(50000, 53000, 500)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 6
    assert list(run.get("grad_norm").values)[:2] == [0.01, 0.0101]


def test_a_sentence_that_ends_before_the_key_is_not_part_of_its_name(tmp_path):
    """Style: `episode 1203 ended. Score 2.000000` (a sentence, then the metric's name)."""
    lines = [f"episode {1200 + k} ended. Score {k % 3}.000000" for k in range(6)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 6
    assert list(run.get("episode_reward").values) == [0, 1, 2, 0, 1, 2]
    assert list(run.get("episode_reward").steps)[:2] == [1200, 1201]


def test_names_that_differ_only_in_a_short_digit_run_stay_apart(tmp_path):
    """Style: a counter line heading one `name=value` a line, two names apart only by a digit
    (`grad/l2_norm=0.0052` then `grad/l1_norm=10.05`): one record per step, each value its own name."""
    lines = []
    for s in (10, 20, 30):
        lines += [f"[step={s}/1000,epoch=0]", f"    train/CrossEntropyLoss={10 - s / 10:.3f}",
                  f"    grad_stats/embedding_l2_norm=0.00{s // 10}", f"    grad_stats/embedding_l1_norm={s}.5",
                  f"    grad_stats/head_l2_norm=0.0{s // 10}", f"    grad_stats/head_l1_norm={s * 2}.5"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("grad_stats/embedding_l1_norm").values) == [10.5, 20.5, 30.5]
    assert list(run.get("grad_stats/embedding_l2_norm").values) == [0.001, 0.002, 0.003]
    assert list(run.get("grad_stats/head_l1_norm").values) == [20.5, 40.5, 60.5]


def test_a_line_that_only_times_the_pass_joins_the_record_before_it(tmp_path):
    """Style: MXNet's `Epoch[4] Train-accuracy=0.5488`, `Epoch[4] Time cost=20670.702`,
    `Epoch[4] Validation-accuracy=0.4066` (the pass's duration on a line of its own)."""
    lines = []
    for e in range(3):
        lines += [f"INFO:root:Epoch[{e}] Train-accuracy=0.{50 + e * 10}",
                  f"INFO:root:Epoch[{e}] Time cost={12 + e}.633",
                  f"INFO:root:Epoch[{e}] Validation-accuracy=0.{45 + e * 5}"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 6
    assert list(run.get("accuracy").values) == [0.5, 0.6, 0.7]
    assert list(run.get("eval/accuracy").values) == [0.45, 0.5, 0.55]
    assert len(next(s for n, s in run.series.items() if "cost" in n.lower()).values) == 3


def test_a_model_is_improving_notice_is_no_reading(tmp_path):
    """Style: OpenNMT-py's early-stopping notices after a validation (`Model is improving ppl:
    5.45281 --> 2.44446.`): the values repeat the validation lines just read."""
    lines = []
    prev_ppl, prev_acc = "inf", "-inf"
    for k, (ppl, acc) in enumerate([(5.45, 44.6), (2.44, 71.3), (1.22, 95.0)], start=1):
        lines += [f"[2024-05-08 04:06:{10 + k},127 INFO] Step {k * 200}/2000; acc: {acc - 5}; ppl: {ppl + 1}; "
                  f"xent: 0.{k}; lr: 1.00000; 11270/7000 tok/s; {k * 4} sec",
                  f"[2024-05-08 04:06:{20 + k},463 INFO] Validation perplexity: {ppl}",
                  f"[2024-05-08 04:06:{20 + k},463 INFO] Validation accuracy: {acc}",
                  f"[2024-05-08 04:06:{20 + k},463 INFO] Model is improving ppl: {prev_ppl} --> {ppl}.",
                  f"[2024-05-08 04:06:{20 + k},463 INFO] Model is improving acc: {prev_acc} --> {acc}."]
        prev_ppl, prev_acc = str(ppl), str(acc)
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 9
    assert list(run.get("eval/accuracy").values) == [44.6, 71.3, 95.0]
    assert not any("improving" in n for n in run.series)


def test_a_best_model_notice_that_repeats_the_epochs_score_is_no_second_reading(tmp_path):
    """Style: `Epoch 2/5 | train_loss: 0.1495 | val_acc: 0.8827` then `New best model saved! Epoch: 2,
    val_acc: 0.8827` (the notice quotes the counter and the metric's own name)."""
    lines = []
    for e, (loss, acc) in enumerate([(0.42, 0.87), (0.15, 0.88), (0.07, 0.89)], start=1):
        lines += [f"Epoch {e}/5 | train_loss: {loss} | val_acc: {acc}", f"New best model saved! Epoch: {e}, val_acc: {acc}"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("eval/accuracy").values) == [0.87, 0.88, 0.89]


def test_csv_cells_that_hold_printed_tensors_read_as_their_numbers(tmp_path):
    """Style: a CSV of per-epoch losses written from a list of tensors, each cell quoted
    (`"tensor(10.5290, grad_fn=<BinaryCrossEntropyBackward0>)","tensor(0.0009, grad_fn=<AddBackward0>)"`)."""
    rows = [(10.529, 0.0009), (9.9135, 0.0004), (6.4064, 0.1373)]
    lines = ["losses_g,losses_d"] + [f'"tensor({g:.4f}, grad_fn=<BinaryCrossEntropyBackward0>)",'
                                     f'"tensor({d:.4f}, grad_fn=<AddBackward0>)"' for g, d in rows]
    run = _read(tmp_path, lines, "losses.csv")
    assert run.meta["rows"] == 3
    assert list(run.get("g_loss").values) == [10.529, 9.9135, 6.4064]
    assert list(run.get("d_loss").values) == [0.0009, 0.0004, 0.1373]
