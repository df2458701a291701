"""Print styles drawn from independent choices (bench/styles.py) are read right, and the rules the draws
showed missing hold on their own."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

from triage.ingest import read_run

_BENCH = Path(__file__).resolve().parents[2] / "bench" / "styles.py"


def _styles():
    spec = importlib.util.spec_from_file_location("bench_styles", _BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_drawn_print_styles_are_read_right(tmp_path):
    styles = _styles()
    rnd = random.Random(3)
    bad = []
    for k in range(150):
        style = styles.draw(rnd)
        text, want = styles.render(style, rnd)
        p = tmp_path / f"s{k}.log"
        p.write_bytes(text.encode())
        problems = styles.judge(read_run(str(p)), want)
        if problems:
            bad.append((style, problems))
    assert not bad, bad[:3]


def test_an_elapsed_time_in_brackets_is_no_epoch(tmp_path):
    # `[  12.3s]` before each line is the time since the start: the dicts' own steps place the records
    p = tmp_path / "train.log"
    lines = [f"[{1.7 * i:8.1f}s] {{'step': {10 * (i + 1)}, 'loss': {2.0 - 0.1 * i:.3f}}}" for i in range(8)]
    p.write_text("\n".join(lines[:4] + [" 50%|#####     | 4/8 [00:04<00:04, 1.0it/s]"] + lines[4:]) + "\n")
    loss = read_run(str(p)).series["loss"]
    assert list(loss.steps) == [10.0 * (i + 1) for i in range(8)]


def test_json_objects_among_printed_eval_lines_are_read_whole(tmp_path):
    # a loop that prints json.dumps records and, at each evaluation, a printed line: both are the run's
    p = tmp_path / "train.log"
    out = []
    for i in range(1, 13):
        out.append(f'{{"step": {10 * i}, "train_loss": {2.5 / i:.4f}}}')
        if i % 4 == 0:
            out.append(f"Step {10 * i}: val_loss = {2.6 / i:.4f}")
    p.write_text("\n".join(out) + "\n")
    run = read_run(str(p))
    assert len(run.series["loss"].values) == 12
    assert list(run.series["eval/loss"].steps) == [40.0, 80.0, 120.0]


def test_a_progress_bar_between_table_rows_is_no_row(tmp_path):
    # the cells carry a running average in parentheses, so the rows are placed by position under the
    # header; a bar's `0%` and `0/12` under it are no step and no loss
    p = tmp_path / "train.log"
    out = ["          step            loss             Acc"]
    for i in range(1, 7):
        if i % 3 == 1:
            out.append(f"\r {int(100 * (i - 1) / 6):2d}%|##        | {i - 1}/6 [00:0{i}<00:10, 2.5it/s]")
        out.append(f"{10 * i:>14}  {2.5 / i:.4f} ({2.6 / i:.4f})  {0.1 * i:.4f} ({0.1 * i:.4f})")
    p.write_text("\n".join(out) + "\n")
    loss = read_run(str(p)).series["loss"]
    assert list(loss.steps) == [10.0 * i for i in range(1, 7)]
    assert loss.values[0] == 2.5


def test_a_bare_count_and_total_heads_the_values_under_it(tmp_path):
    p = tmp_path / "train.log"
    out = []
    for i in range(1, 6):
        out += [f"[{10 * i}/400]", f"    train_loss: {2.5 / i:.4f}", "    lr: 0.0003"]
    p.write_text("\n".join(out) + "\n")
    assert list(read_run(str(p)).series["loss"].steps) == [10.0, 20.0, 30.0, 40.0, 50.0]


def test_a_logger_name_between_pipes_is_a_prefix_but_a_split_there_labels_the_line(tmp_path):
    p = tmp_path / "train.log"
    out = []
    for i in range(1, 6):
        out += [f"2024-03-01 12:00:0{i} | INFO | trainer | step {10 * i:06d}",
                f"2024-03-01 12:00:0{i} | INFO | trainer |     loss: {2.5 / i:.4f}"]
    out.append("2024-03-01 12:00:09 | INFO | TEST | loss=0.3107 acc=0.8748")
    p.write_text("\n".join(out) + "\n")
    run = read_run(str(p))
    assert list(run.series["loss"].steps) == [10.0, 20.0, 30.0, 40.0, 50.0]
    assert run.series["loss"].values[-1] == 0.5
    assert "eval/loss" in run.series


def test_rank_zeros_lines_are_the_runs_and_another_ranks_error_stays(tmp_path):
    # every rank prints its copy of a record with no counter on it: one row a record, the copies counted
    # as skipped; a traceback only rank 1 printed is still read
    p = tmp_path / "train.log"
    out = []
    for i in range(1, 7):
        out += [f"[rank0]: loss {2.5 / i:.4f} lr 0.001", f"[rank1]: loss {2.5 / i:.4f} lr 0.001"]
    out += ["[rank1]: Traceback (most recent call last):",
            "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"]
    p.write_text("\n".join(out) + "\n")
    run = read_run(str(p))
    assert len(run.series["loss"].values) == 6
    assert sum(run.meta["skipped"].values()) == 6
    assert any(ev.kind == "traceback" for ev in run.events)


def test_a_loss_named_with_its_split_only_beside_an_evaluation_is_one_series(tmp_path):
    # `training loss` alone on a line is the training split's `loss`; on the lines that also print the
    # validation loss the split stays in the name: still the one training loss, no second series
    p = tmp_path / "train.log"
    out = []
    for i in range(1, 11):
        line = f"step {i}\ttraining loss = {2.5 / i:.4f}\tlearning rate = 0.0003"
        if i % 5 == 0:
            line += f"\tvalidation loss = {2.7 / i:.4f}"
        out.append(line)
    p.write_text("\n".join(out) + "\n")
    run = read_run(str(p))
    assert list(run.series["loss"].steps) == [float(i) for i in range(1, 11)]
    assert len(run.series["eval/loss"].values) == 2
    assert not any("training" in k for k in run.series)


def test_a_loss_with_its_terms_in_parentheses_joins_its_block(tmp_path):
    # `loss: 2.51 (ce 2.26, kl 0.25)` under a counter line is the block's loss, as `loss: 2.51` would be
    p = tmp_path / "train.log"
    out = []
    for i in range(1, 7):
        out += [f"step {i}/6", f"    loss: {2.5 / i:.4f} (ce {2.25 / i:.4f}, kl {0.25 / i:.4f})", "    lr: 0.0003"]
    p.write_text("\n".join(out) + "\n")
    assert list(read_run(str(p)).series["loss"].steps) == [float(i) for i in range(1, 7)]


def test_the_verdict_does_not_depend_on_the_print_style(tmp_path, capsys):
    # eight runs (healthy, NaN, at chance, diverging, overfitting, tiny LR, NaN evaluations, zero loss), each
    # printed in drawn styles, scanned and compared with the same run written as JSON Lines: 800 of 800 agree
    # (bench/styles.py --judge --n 800 --seed 9); this sample may lose at most 1 in 10
    import argparse

    styles = _styles()
    styles.judge_mode(argparse.Namespace(n=40, seed=2, show=0))
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "judged as their JSON Lines twin" in ln)
    good, total = (int(x) for x in line.split()[0].split("/"))
    assert good >= 0.9 * total, out


def test_a_tab_separated_file_keeps_its_empty_cells_in_their_columns(tmp_path):
    # the evaluation column is empty between evaluations: each value stays under its own name
    p = tmp_path / "metrics.tsv"
    rows = ["step\tloss\tgrad_norm\tval_loss"]
    for i in range(1, 11):
        rows.append(f"{i}\t{2.5 / i:.4f}\t{0.5 + 0.01 * i:.3f}\t" + (f"{2.7 / i:.4f}" if i % 5 == 0 else ""))
    p.write_text("\n".join(rows) + "\n")
    run = read_run(str(p))
    assert list(run.series["grad_norm"].values) == [round(0.5 + 0.01 * i, 3) for i in range(1, 11)]
    assert list(run.series["eval/loss"].steps) == [5.0, 10.0]


def test_a_best_so_far_line_is_counted_as_skipped(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("epoch 1 loss 0.9 accuracy 0.5\nBest_accuracy : 50.0\nepoch 2 loss 0.7 accuracy 0.6\n"
                 "Best_accuracy : 60.0\nepoch 3 loss 0.6 accuracy 0.55\n")
    run = read_run(str(p))
    assert len(run.series["loss"].values) == 3
    assert sum(n for why, n in run.meta["skipped"].items() if "best" in why) == 2


def test_bracketed_counters_head_the_values_under_them(tmp_path):
    # `Epoch [1/3], Step [10/50]` and MMCV's `Epoch [1][10/250]` alone on a line, one value a line under it
    for head in ("Epoch [1/3], Step [{}/50]", "Epoch [1][{}/250]"):
        p = tmp_path / "train.log"
        out = []
        for i in range(1, 6):
            out += [head.format(10 * i), f"    train_loss: {2.5 / i:.4f}", "    lr: 0.0003"]
        p.write_text("\n".join(out) + "\n")
        assert list(read_run(str(p)).series["loss"].steps) == [10.0, 20.0, 30.0, 40.0, 50.0], head
