"""Reading rules added for print styles met in real training logs (round 8)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from triage.ingest import read_run


def _read(tmp_path: Path, text: str, name: str = "train.log"):
    p = tmp_path / name
    p.write_text(text)
    return read_run(str(p))


def test_hf_dicts_with_quoted_numbers_placed_by_epoch(tmp_path: Path) -> None:
    """Newer HF Trainer / TRL stdout: every logged value is a formatted string (`{'loss': '3.625',
    'epoch': '0.0179'}`) and a finished dataset `map` bar stands still above the dicts; the quoted epoch
    places each dict, and a closing dict of the script's own with no epoch does not stop that."""
    lines = ["Map: 100%|##########| 5000/5000 [00:00<00:00, 9000.00 examples/s]"]
    for i in range(1, 9):
        lines.append("{'loss': '%.3f', 'grad_norm': '0.5', 'learning_rate': '1e-05', 'epoch': '%.4f'}"
                     % (3.0 - i * 0.25, i * 0.0125))
    lines.append("{'eval_loss': '0.9', 'eval_runtime': '30.1', 'epoch': '0.1'}")
    lines.append("{'final_acc': 0.84, 'n_eval': 300}")
    run = _read(tmp_path, "\n".join(lines) + "\n")
    loss = run.series["loss"]
    assert len(loss.values) == 8
    assert abs(float(loss.values[0]) - 2.75) < 1e-9 and abs(float(loss.values[-1]) - 1.0) < 1e-9
    assert len(set(float(s) for s in loss.steps)) == 8  # one step per dict, never all stacked on one


def test_json_report_with_history_group_beside_settings(tmp_path: Path) -> None:
    """A run report JSON: settings and final scores as dicts of scalars, and the Keras `History.history`
    lists saved under one key (`"training_history": {"loss": [...], "val_loss": [...]}`): the lists are
    the rows, one per epoch; the final scores are not a row."""
    n = 6
    doc = {
        "model_info": {"architecture": "cnn", "input_shape": [32, 32, 3], "total_parameters": 1200},
        "training_config": {"batch_size": 32, "learning_rate": 0.001, "epochs": n},
        "final_metrics": {"final_loss": 0.2, "final_val_loss": 0.3},
        "training_history": {
            "loss": [1.0 - 0.1 * i for i in range(n)],
            "val_loss": [1.1 - 0.1 * i for i in range(n)],
            "accuracy": [0.5 + 0.05 * i for i in range(n)],
            "val_accuracy": [0.45 + 0.05 * i for i in range(n)],
        },
    }
    run = _read(tmp_path, json.dumps(doc, indent=2), "stats.json")
    assert run.meta["rows"] == n
    assert np.allclose([float(v) for v in run.series["loss"].values], doc["training_history"]["loss"])
    assert "eval/loss" in run.series


def test_total_of_loss_terms_and_bracketed_durations(tmp_path: Path) -> None:
    """The NGCF/KGAT family of recommenders: `Epoch 3 [61.8s]: train==[65.21=64.50 + 0.71]`, with test
    scores after a second duration (`[60.6s + 86.3s]`); the total before `=` is the training loss, and
    the bracketed seconds are timings, never a metric."""
    lines = []
    for e in range(6):
        total, bpr, reg = 200.0 / (e + 1), 199.0 / (e + 1), 1.0 / (e + 1)
        if e == 4:
            lines.append(f"Epoch {e} [60.6s + 86.3s]: train==[{total:.5f}={bpr:.5f} + {reg:.5f}], "
                         "recall=[0.12405, 0.26871], ndcg=[0.10771, 0.15002]")
        else:
            lines.append(f"Epoch {e} [6{e}.2s]: train==[{total:.5f}={bpr:.5f} + {reg:.5f}]")
    run = _read(tmp_path, "\n".join(lines) + "\n")
    loss = [float(v) for v in run.series["loss"].values]
    assert len(loss) == 6 and abs(loss[0] - 200.0) < 1e-6 and abs(loss[-1] - 200.0 / 6) < 1e-4
    assert "s" not in run.series


def test_markdown_table_numbers_set_as_inline_code(tmp_path: Path) -> None:
    """A Markdown report whose table cells hold numbers as inline code (`|  hit@1  |  `0.0154`  |`):
    the backticks are formatting, the cells are the numbers."""
    text = ["- epoch `0`, loss `3.2`  ", "- epoch `1`, loss `2.1`  ", "- epoch `2`, loss `1.7`  ", ""]
    for e in range(3):
        text += ["|  metric  |  head  |  tail  |  mean  |  ", "|  ----  |  ----  |  ----  |  ----  |  ",
                 f"|  hit@1  |  `0.0{e}1`  |  `0.0{e}3`  |  `0.0{e}2`  |  ",
                 f"|  hit@10  |  `0.1{e}1`  |  `0.1{e}3`  |  `0.1{e}2`  |  ", ""]
    run = _read(tmp_path, "\n".join(text) + "\n", "report.md")
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 3 + 3 * 2
    assert abs(float(run.series["mean"].values[-1]) - 0.122) < 1e-9  # (rows at one epoch share a point)


def test_duration_only_lines_fold_into_their_epoch(tmp_path: Path) -> None:
    """A line holding only a duration inside an epoch: `Time: 33534.0` with no counter of its own after the
    epoch's last train lines, and `Epoch: 030, Inference Time: 7.65 secs` before that epoch's summary, are
    parts of the epoch's records, not rows of their own."""
    lines = []
    for e in range(1, 4):
        lines += [f"Train epoch: {e} [200/400]\tAccuracy: 50.{e}%\tLoss: 0.72{e}",
                  f"Train epoch: {e} [400/400]\tAccuracy: 51.{e}%\tLoss: 0.71{e}",
                  f"Time: {3000.5 + e}"]
    run = _read(tmp_path, "\n".join(lines) + "\n", "after.log")
    assert run.meta["rows"] == 6
    assert len(run.series["loss"].values) == 6

    lines = []
    for e in range(1, 4):
        lines.append(f"Epoch: {e:03d}, Inference Time: 7.{e} secs")
        lines.append(f"Epoch: {e:03d}, Train Loss: {3.0 - e * 0.1:.4f}, Train MAPE: 0.08, Valid Loss: {3.1 - e * 0.1:.4f}, "
                     f"Valid MAPE: 0.09, Training Time: 186.{e}/epoch")
        lines += [f"Iter: {i:03d}, Train Loss: 2.{i // 100}, Train MAPE: 0.06" for i in (0, 200)]
    run = _read(tmp_path, "\n".join(lines) + "\n", "before.log")
    assert run.meta["rows"] == 9
    assert len(run.series["eval/loss"].values) == 3


def test_escape_codes_shown_as_left_arrows(tmp_path: Path) -> None:
    """A Windows console copy shows ESC as `←`: `←[32mEpoch 3←[0m` colours and `←[39G` cursor moves are
    escape codes, never part of a name or a number."""
    text = "".join(f"←[32mEpoch {e}←[0m ←[39Gloss: {1.0 / e:.4f}\n" for e in range(1, 4))
    run = _read(tmp_path, text)
    assert set(run.series) == {"loss"}
    assert [round(float(v), 4) for v in run.series["loss"].values] == [1.0, 0.5, 0.3333]


def test_evaluating_the_train_split_is_train(tmp_path: Path) -> None:
    """`[ITER 7000] Evaluating train: L1 0.0386 PSNR 23.82` beside `Evaluating test: ...`: the split after
    the verb is the one measured, so the train split's scores are not held-out scores."""
    lines = []
    for it in (7000, 14000, 21000):
        lines.append(f"[ITER {it}] Evaluating test: L1 0.05{it // 7000} PSNR 2{it // 7000}.5")
        lines.append(f"[ITER {it}] Evaluating train: L1 0.03{it // 7000} PSNR 2{it // 7000 + 3}.8")
    run = _read(tmp_path, "\n".join(lines) + "\n")
    assert [float(v) for v in run.series["psnr"].values] == [24.8, 25.8, 26.8]
    assert [float(v) for v in run.series["eval/psnr"].values] == [21.5, 22.5, 23.5]
