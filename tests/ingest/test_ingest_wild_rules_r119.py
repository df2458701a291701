"""Rules that bench/styles.py's second set of choices (decimal commas, value before name, German and CJK names, ...) showed missing, each in a print style of its own."""

from __future__ import annotations

from triage.ingest import read_run


def test_short_epoch_and_batch_counters_place_the_records(tmp_path):
    # `ep2 it300: ...` and `e1 b10/40 ...`: a letter or two glued to each count, the pair of them a counter
    p = tmp_path / "train.log"
    lines = [f"ep{1 + i // 4} it{100 * (i % 4 + 1)}/400: total_loss {3.0 - 0.1 * i:.3f}, top1 {0.1 + 0.02 * i:.3f}"
             for i in range(8)]
    p.write_text("\n".join(lines) + "\n")
    run = read_run(str(p))
    assert len(run.series["loss"].values) == 8
    assert run.series["loss"].values[-1] == 2.3
    q = tmp_path / "b.log"
    q.write_text("".join(f"[{2 * i:5.1f}s] e{1 + i // 3} b{10 * (i % 3 + 1)}/30 ; Loss = {1.5 / (i + 1):.4f}\n"
                         for i in range(6)))
    assert len(read_run(str(q)).series["loss"].values) == 6


def test_a_history_printed_as_a_list_of_dicts_is_one_record_a_dict(tmp_path):
    # `print(history)` after training: one line, a dict an epoch (a NaN bare, as Python prints it)
    recs = ", ".join(f"{{'ep': {e}, 'train_loss': {2.0 / e:.4f}, 'val_acc': {0.5 + 0.05 * e:.3f}}}" for e in range(1, 6))
    p = tmp_path / "out.txt"
    p.write_text(f"done\n[{recs}, {{'ep': 6, 'train_loss': nan, 'val_acc': 0.6}}]\n")
    run = read_run(str(p))
    assert len(run.series["loss"].values) == 6
    assert run.series["loss"].values[0] == 2.0


def test_a_list_of_unlike_dicts_is_no_history(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("step 1 loss 2.0\nstep 2 loss 1.5\n[{'name': 'a', 'size': 3}, {'kind': 'b'}]\nstep 3 loss 1.2\n")
    assert len(read_run(str(p)).series["loss"].values) == 3


def test_a_train_loss_dict_with_a_whole_epoch_is_a_record_not_the_closing_summary(tmp_path):
    # the Trainer's closing summary counts its epoch as a float (`'epoch': 3.0`) beside its runtime; a loop's own
    # `{'epoch': 2, 'train_loss': ...}` printed every epoch is that epoch's record
    p = tmp_path / "train.log"
    p.write_text("".join(f"{{'epoch': {e}, 'train_loss': {1.0 / e:.3f}}}\n" for e in range(1, 5)))
    run = read_run(str(p))
    assert list(run.series["loss"].steps) == [1.0, 2.0, 3.0, 4.0]


def test_german_and_more_chinese_metric_names(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("".join(f"Schritt {i}: Trainingsverlust={2.0 / i:.3f} Lernrate=1e-3 Genauigkeit={0.1 * i:.2f} "
                         f"梯度范数={0.5 + 0.1 * i:.2f}\n" for i in range(1, 6)))
    run = read_run(str(p))
    assert {"loss", "learning_rate", "accuracy", "grad_norm"} <= set(run.series)
    assert len(run.series["loss"].values) == 5
