#!/usr/bin/env python
"""How well the printed-log reader holds on print styles nobody wrote a rule for.

    python bench/styles.py [--n 600] [--seed 0] [--show 20] [--json FILE] [--judge]

A training loop's print statement is a handful of independent choices: a line prefix (a timestamp,
a logger name, a rank tag, colours), a counter (`step 10`, `[10/500]`, `Epoch 1/3 Step 10`, ...),
a separator between fields, how a name meets its value (`loss 2.31`, `loss: 2.31`, `loss=2.31`),
the spelling of each metric's name, the spelling of each number, and what else the log holds
(progress-bar redraws, warnings, blank lines, a validation line now and then). This draws `--n`
combinations of those choices at random (seeded), prints a short synthetic run in each style,
reads it with `triage.ingest.read_run`, and checks what a person reading the log would get:

  * rows      one row per training step printed (validation lines may share their step's row),
  * names     the training loss under `loss`, the learning rate under `learning_rate`, a gradient
              norm under `grad_norm`, an accuracy under `accuracy`, and the validation loss under
              `eval/loss` where the style prints one,
  * values    the first and last training loss as printed.

With `--judge` it scans instead: eight runs (healthy, NaN from 60%, at chance, diverging, overfitting,
a rate of 1e-9 with a flat loss, NaN at every evaluation, a loss of exactly 0)
each printed in drawn styles, every verdict (healthy or not, the first causes) compared with the same
run's verdict as JSON Lines. A verdict should not depend on how the run was printed.

It prints the share of styles read right, then for each choice the share of its styles read right
(the weakest choices first: that is where a general rule is missing), and `--show` failing styles
with their first lines and what was read. The styles are made up here from the parts people use;
none is copied from a real log, so the figure says how the reader generalises, not how it fits.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PREFIXES = {
    "none": lambda i: "",
    "iso_ms_level": lambda i: f"2024-03-0{1 + i % 9} 12:{i % 60:02d}:{(7 * i) % 60:02d},{i % 1000:03d} - INFO - ",
    "bracket_time": lambda i: f"[2024-03-01 12:{i % 60:02d}:{(7 * i) % 60:02d}] ",
    "logging_root": lambda i: "INFO:root:",
    "logger_name": lambda i: f"2024-03-01 12:00:{i % 60:02d} | INFO | trainer | ",
    "rank": lambda i: "[rank0]: ",
    "glog": lambda i: f"I0301 12:{i % 60:02d}:{(3 * i) % 60:02d}.{(137 * i) % 1000000:06d} 4821 train.py:88] ",
    "ansi": lambda i: "\x1b[32mINFO\x1b[0m ",
    "elapsed": lambda i: f"[{i * 1.7:8.1f}s] ",
}

# counter(step, total_steps, epoch, batch, batches_per_epoch)
COUNTERS = {
    "step_word": lambda s, T, e, b, B: f"step {s}",
    "Step_colon": lambda s, T, e, b, B: f"Step {s}:",
    "step_eq": lambda s, T, e, b, B: f"step={s}",
    "step_of": lambda s, T, e, b, B: f"step {s}/{T}",
    "brackets_of": lambda s, T, e, b, B: f"[{s}/{T}]",
    "iter_colon": lambda s, T, e, b, B: f"Iter {s}:",
    "epoch_batch": lambda s, T, e, b, B: f"Epoch {e}/{math.ceil(T / B)} Batch {b}/{B}",
    "epoch_step_brackets": lambda s, T, e, b, B: f"Epoch [{e}/{math.ceil(T / B)}], Step [{b}/{B}]",
    "torch_tutorial": lambda s, T, e, b, B: f"[{e}, {b:5d}]",
    "global_step": lambda s, T, e, b, B: f"global_step: {s}",
    "padded": lambda s, T, e, b, B: f"step {s:06d}",
    "thousands": lambda s, T, e, b, B: f"step {s:,}/{T:,}",
    "mmcv": lambda s, T, e, b, B: f"Epoch [{e}][{b}/{B}]",
    "caffe": lambda s, T, e, b, B: f"Iteration {s} (1.2{s % 10} iter/s, 0.8{s % 7}s/100 iters),",
    "none": lambda s, T, e, b, B: "",
}

SEPARATORS = {"pipe": " | ", "comma": ", ", "dash": " - ", "two_spaces": "  ", "semicolon": "; ", "tab": "\t",
              "space": " "}
PAIRS = {"space": "{k} {v}", "colon": "{k}: {v}", "eq": "{k}={v}", "spaced_eq": "{k} = {v}"}

NAMES = {
    "loss": ["loss", "train_loss", "Loss", "train loss", "loss/train", "train/loss", "TrainLoss", "training loss"],
    "learning_rate": ["lr", "learning_rate", "LR", "learning rate", "lr-AdamW"],
    "grad_norm": ["grad_norm", "gnorm", "grad norm", "GradNorm", "grad_norm_total"],
    "accuracy": ["acc", "accuracy", "train_acc", "Acc", "train accuracy", "top1"],
}
EVAL_NAMES = ["val_loss", "eval_loss", "valid loss", "val loss", "Loss/val", "validation loss", "test_loss"]

NUMBERS = {
    "fixed4": lambda v, kind: f"{v:.4f}",
    "general": lambda v, kind: f"{v:.5g}",
    "sci": lambda v, kind: f"{v:.3e}",
    "fixed6": lambda v, kind: f"{v:.6f}",
    "sci_upper": lambda v, kind: f"{v:.3E}",
}

NOISE = ["none", "tqdm", "warnings", "blank", "eval_lines", "tqdm_and_eval", "header", "crlf",
         "nan_tail",  # the loss turns NaN for the last fifth of the run (read as NaN, never dropped)
         "ranks",  # every line printed by two data-parallel ranks (`[rank0]:`, `[rank1]:`): one row a step
         "eval_inline",  # at each evaluation, its fields close that step's own line (`| val_loss 0.61`)
         "extras"]  # timing and memory fields after the metrics (`time 0.35s`, `12.5 it/s`, `mem 10.2GB`)

# how a value is printed beside its number: as is, with a running average after it (a MetricLogger's
# `loss: 2.31 (2.45)`), as a tensor's repr (a print of the loss tensor itself), with a unit
VALUES = {
    "plain": lambda t, v, kind: t,
    "avg_paren": lambda t, v, kind: f"{t} ({v * 1.05:.4f})",
    # (torch prints a NaN tensor as `tensor(nan)`, whatever format the loop used for its numbers)
    "tensor": lambda t, v, kind: f"tensor({t if v == v else 'nan'}, device='cuda:0')" if kind == "loss" else t,
    "tensor_grad": lambda t, v, kind: (f"tensor({t if v == v else 'nan'}, device='cuda:0', "
                                       f"grad_fn=<NllLossBackward0>)" if kind == "loss" else t),
    "percent_acc": lambda t, v, kind: f"{100 * v:.2f}%" if kind == "accuracy" else t,
    # the loss with its terms after it (`loss 2.31 (ce 2.08, kl 0.23)`)
    "parts": lambda t, v, kind: f"{t} (ce {0.9 * v:.4f}, kl {0.1 * v:.4f})" if kind == "loss" else t,
}

# how a record is laid out: fields on one line; a dict's repr; a JSON object; one field per line
# under a header line; rows under a table header
LAYOUTS = ["line", "line", "line", "dict", "json", "block", "table", "markdown", "keras", "postfix", "csv", "tsv",
           "csv_semicolon", "jsonl_nested", "lightning_csv", "wandb_history", "tensorboard"]
# written as files a logger writes: no prefix, no noise
FILES = ("csv", "tsv", "csv_semicolon", "jsonl_nested", "lightning_csv", "wandb_history", "tensorboard")

# Wider choices (a second set), drawn by draw_new() from a random stream of their own, so that the choices above draw
# as they did for a seed (`--old` draws none of these). "-" is the choice as above.
# number2: how a printed number is spelled beyond its format: a decimal comma (`2,3145`; only where no comma
#   separates fields), a sign on positive values (`+0.0123`), no zero before the point (`.8731`)
NUMBER2 = ["decimal_comma", "plus_sign", "leading_dot"]
# order: the value before its name (`2.3145 loss | 3.00e-04 lr`; only between separators that are no space)
ORDER = ["value_first"]
# names2: a family of name spellings: CJK, German, the split in parentheses (`Loss (train)`), abbreviations
#   (`tr_loss`, `trn_acc`), a metric group prefix (`metrics/loss`; `train/loss` beside `val/loss`)
NAMES2 = {
    "cjk": {"loss": ["损失", "训练损失"], "learning_rate": ["学习率"], "grad_norm": ["梯度范数"],
            "accuracy": ["准确率", "训练准确率"], "eval": ["验证损失", "验证集损失"]},
    "german": {"loss": ["Verlust", "Trainingsverlust"], "learning_rate": ["Lernrate"], "grad_norm": ["grad_norm"],
               "accuracy": ["Genauigkeit"], "eval": ["Validierungsverlust"]},
    "paren_split": {"loss": ["Loss (train)", "loss (train)"], "learning_rate": ["LR", "lr"],
                    "grad_norm": ["Grad Norm", "grad_norm"], "accuracy": ["Acc (train)", "accuracy (train)"],
                    "eval": ["Loss (val)", "loss (valid)"]},
    "abbrev": {"loss": ["tr_loss", "trn_loss"], "learning_rate": ["lr"], "grad_norm": ["gnorm", "g_norm"],
               "accuracy": ["trn_acc", "tr_acc"], "eval": ["v_loss", "vl_loss"]},
    "group_metrics": {"loss": ["metrics/loss"], "learning_rate": ["metrics/lr"], "grad_norm": ["metrics/grad_norm"],
                      "accuracy": ["metrics/accuracy"], "eval": ["metrics/val_loss"]},
    "group_train": {"loss": ["train/loss"], "learning_rate": ["train/lr"], "grad_norm": ["train/grad_norm"],
                    "accuracy": ["train/acc"], "eval": ["val/loss"]},
}
# pair2: a full-width colon (`损失：2.31`), as code written with a CJK input method prints it
PAIR2 = {"fw_colon": "{k}：{v}"}
# counter2: more counters; `at_end` prints the counter after the fields (`loss 2.31 | lr 3e-4 @ step 120`),
# `frac_epoch` counts in fractions of an epoch (`epoch 0.40`), `step_commas` with thousands separators
COUNTERS2 = {
    "ep_it": lambda s, T, e, b, B: f"Ep {e} It {s}",
    "hash": lambda s, T, e, b, B: f"#{s}",
    "e_b": lambda s, T, e, b, B: f"e{e} b{b}/{B}",
    "bracket_pipe": lambda s, T, e, b, B: f"[Epoch {e} | Step {s}]",
    "it_pct": lambda s, T, e, b, B: f"it {s}/{T} ({round(100 * s / T)}%)",
    "step_commas": lambda s, T, e, b, B: f"step {s:,}",
    "frac_epoch": lambda s, T, e, b, B: f"epoch {s / B:.2f}",
    "at_end": lambda s, T, e, b, B: f"@ step {s}",
}
# layout2: the counter on a line of its own and the fields indented on the next (`two_line`); a Rich table's
# box-drawing rows; Lightning's bar redrawn with `\r` on one line per epoch, each redraw one batch's postfix
# (`loss=2.31, v_num=0`); Keras verbose 1 (`\r`-redrawn batches, the record the epoch's last redraw); a
# DataFrame of the history printed at the end; the history printed as a Python list of dicts
LAYOUT2 = ["two_line", "box_table", "lightning_bar", "keras_redraw", "pandas", "list_of_dicts"]
# noise2: a warning printed with its stack (source lines holding numbers), a config dumped as YAML before
# training, long lines wrapped at a separator (a terminal's copy), a summary after training (`best val_loss
# 0.61 at epoch 7`: no row), two runs appended to one file (read as two runs, one after the other), the
# evaluation joined to its step's line after ` || `, units glued or spaced on extra fields (`350ms`, `10.2 GiB`,
# `12.5k tok/s`)
NOISE2 = ["stack_warning", "config_dump", "wrapped", "summary", "two_runs", "eval_joined", "extras_units"]
TEXT_LAYOUTS = ("line", "block", "table", "markdown", "keras", "postfix")


def series(n: int, rnd: random.Random) -> dict[str, list[float]]:
    loss = [2.3 * math.exp(-i / (n / 3)) + 0.2 + 0.05 * rnd.random() for i in range(n)]
    lr = [3e-4 * min(1.0, (i + 1) / (n / 5)) for i in range(n)]
    gn = [0.5 + rnd.random() for i in range(n)]
    acc = [min(0.99, 0.1 + 0.8 * (1 - math.exp(-i / (n / 3))) + 0.02 * rnd.random()) for i in range(n)]
    return {"loss": loss, "learning_rate": lr, "grad_norm": gn, "accuracy": acc}


def number(spelling: str, v: float, kind: str) -> str:
    if kind == "learning_rate" and (spelling in ("fixed4",) or (v and v == v and float(NUMBERS[spelling](v, kind)) == 0)):
        return f"{v:.2e}"  # nobody prints a learning rate as 0.0003 with four places (or a rate of 1e-9 as 0.000000)
    if kind == "accuracy" and spelling in ("sci", "sci_upper"):
        return f"{v:.4f}"
    return NUMBERS[spelling](v, kind)


def spell(t: str, v: float, how: str) -> str:
    """A printed number `t` respelled by a number2 choice."""
    if how == "decimal_comma":
        return t.replace(".", ",")
    if how == "plus_sign" and v == v and v > 0 and not t.startswith(("+", "-")):
        return "+" + t
    if how == "leading_dot" and t.startswith("0."):
        return t[1:]
    return t


def wrap(line: str, sep: str, width: int = 80) -> list[str]:
    """A long line as a terminal of `width` columns showed it, broken at the last field separator that fits."""
    out = []
    while len(line) > width:
        cut = line.rfind(sep.rstrip() or sep, 20, width)
        if cut < 0:
            break
        cut += len(sep.rstrip() or sep)
        out.append(line[:cut].rstrip())
        line = line[cut:].lstrip()
    return out + [line]


def draw(rnd: random.Random) -> dict:
    metrics = ["loss"] + [m for m in ("learning_rate", "grad_norm", "accuracy") if rnd.random() < 0.6]
    style = {
        "prefix": rnd.choice(list(PREFIXES)),
        "counter": rnd.choice(list(COUNTERS)),
        "sep": rnd.choice(list(SEPARATORS)),
        "pair": rnd.choice(list(PAIRS)),
        "number": rnd.choice(list(NUMBERS)),
        "noise": rnd.choice(NOISE),
        "value": rnd.choice(list(VALUES)),
        "layout": rnd.choice(LAYOUTS),
        "names": {m: rnd.choice(NAMES[m]) for m in metrics},
        "eval_name": rnd.choice(EVAL_NAMES),
        # where a printed log lives: a file of its own, or a notebook cell's output (Colab, Kaggle)
        "container": rnd.choice(["file", "file", "file", "notebook"]),
        "steps": rnd.choice([12, 40, 150]),
        "every": rnd.choice([1, 10]),
    }
    if style["layout"] in FILES:
        style["noise"] = rnd.choice(["none", "nan_tail"] + ([] if style["layout"] == "tensorboard" else ["crlf"]))
    if style["layout"] == "block" and style["counter"] == "caffe":
        # (Caffe's `Iteration N (.. iter/s, ..),` line carries the loss itself before the outputs under it; as a bare
        # heading over one value a line it is no shape Caffe prints)
        style["counter"] = "step_word"
    if style["layout"] == "jsonl_nested":  # (under a `train` object a name says no split of its own)
        style["names"] = {m: rnd.choice([n for n in NAMES[m] if "train" not in n.lower()]) for m in metrics}
    return style


def draw_new(style: dict, ext: random.Random, p: float = 0.2) -> dict:
    """The wider choices (the second set) over a drawn style, each taken with chance `p`, from their own stream `ext`
    (the choices draw() made stay as they were), and adjusted where one would make a log a person could not
    read one way only."""
    for f in ("number2", "order", "names2", "pair2", "counter2", "layout2", "noise2"):
        style[f] = "-"
    if style["layout"] in FILES or style["layout"] in ("dict", "json"):
        return style
    pick = {f: ext.random() < p for f in ("number2", "order", "names2", "pair2", "counter2", "layout2", "noise2")}
    if pick["layout2"]:
        style["layout2"] = ext.choice(LAYOUT2)
        style["layout"] = "line" if style["layout2"] == "two_line" else style["layout2"]
    if pick["number2"] and style["layout"] in TEXT_LAYOUTS + ("two_line", "box_table", "keras_redraw"):
        style["number2"] = ext.choice(NUMBER2)
    if pick["names2"]:
        fam = ext.choice(list(NAMES2))
        style["names2"] = fam
        style["names"] = {m: ext.choice(NAMES2[fam][m]) for m in style["names"]}
        style["eval_name"] = ext.choice(NAMES2[fam]["eval"])
    line = style["layout"] == "line"
    if pick["order"] and line:
        style["order"] = "value_first"
    if pick["pair2"] and line:
        style["pair2"] = "fw_colon"
    if pick["counter2"] and line:
        style["counter2"] = ext.choice(list(COUNTERS2))
    if pick["noise2"]:
        choices = [n for n in NOISE2 if line or n not in ("wrapped", "eval_joined", "extras_units")]
        style["noise2"] = ext.choice(choices)
        if style["noise2"] == "eval_joined" and style["noise"] in ("eval_lines", "tqdm_and_eval", "eval_inline"):
            style["noise"] = "none"
        if style["noise2"] == "wrapped" and style["sep"] in ("space", "two_spaces", "tab"):
            style["sep"] = "pipe"
    # (fixes for readings a person could not make one way only)
    if style["number2"] == "decimal_comma":
        if style["sep"] in ("comma",) or style["layout"] in ("postfix", "lightning_bar"):
            style["sep"] = "semicolon"
        if style["layout"] == "postfix":
            style["number2"] = "-"
        if style["value"] not in ("plain", "percent_acc"):
            style["value"] = "plain"
    if style["counter2"] == "step_commas" and style["sep"] == "comma":
        style["sep"] = "pipe"
    if style["order"] == "value_first":
        if style["sep"] in ("space", "two_spaces", "tab"):
            style["sep"] = "pipe"
        if style["value"] not in ("plain", "percent_acc"):
            style["value"] = "plain"
    if style["layout"] in ("pandas", "box_table", "list_of_dicts", "keras_redraw", "lightning_bar"):
        style["noise"] = ext.choice(["none", "warnings", "header"])
        if style["noise2"] in ("two_runs",) and style["layout"] == "lightning_bar":
            style["noise2"] = "-"
    if style["layout"] == "pandas":  # (pandas shows 60 rows at most, then the first and last five)
        style["steps"] = min(style["steps"], 40)
    if style["layout"] == "keras_redraw":
        style["value"] = "plain"
    return style


def suffix(style: dict) -> str:
    """The file name's ending a logger would give the layout."""
    return {"csv": ".csv", "csv_semicolon": ".csv", "tsv": ".tsv", "jsonl_nested": ".jsonl", "lightning_csv": ".csv",
            "wandb_history": ".jsonl", "tensorboard": ".0"}.get(style["layout"], ".log")


def write(style: dict, text: str, path: Path) -> Path:
    """The rendered log on disk (a TensorBoard layout as an event file, as SummaryWriter writes it)."""
    if style["layout"] != "tensorboard" and style.get("container") == "notebook" and style["layout"] not in FILES:
        # the print as a notebook keeps it: the cell's stdout stream, one string a line
        out = [ln + "\n" for ln in text.split("\n")[:-1]]
        nb = {"cells": [{"cell_type": "code", "execution_count": 3, "metadata": {}, "source": ["trainer.fit()\n"],
                         "outputs": [{"name": "stdout", "output_type": "stream", "text": out}]}],
              "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}}, "nbformat": 4,
              "nbformat_minor": 5}
        path = path.with_suffix(".ipynb")
        path.write_text(json.dumps(nb, indent=1))
        return path
    if style["layout"] != "tensorboard":
        path.write_bytes(text.encode())
        return path
    import struct

    from triage.ingest.tfrecord import masked_crc

    def varint(n: int) -> bytes:
        out = bytearray()
        while True:
            b, n = n & 0x7F, n >> 7
            out.append(b | (0x80 if n else 0))
            if not n:
                return bytes(out)

    def field(tag: int, payload: bytes) -> bytes:  # a length-delimited field
        return bytes([tag]) + varint(len(payload)) + payload

    def record(event: bytes) -> bytes:  # the TFRecord frame: length, its CRC, the event, its CRC
        n = struct.pack("<Q", len(event))
        return n + struct.pack("<I", masked_crc(n)) + event + struct.pack("<I", masked_crc(event))

    # Event: wall_time (1, double), step (2, varint), file_version (3, string), summary (5); Summary.Value:
    # tag (1, string), simple_value (2, float)
    path = path.with_name("events.out.tfevents.1700000000.host." + path.stem)
    out = bytearray(record(b"\x09" + struct.pack("<d", 1.7e9) + field(0x1A, b"brain.Event:2")))
    for k, ln in enumerate(text.splitlines()):
        tag, step, value = ln.rsplit("\t", 2)
        val = field(0x0A, tag.encode()) + b"\x15" + struct.pack("<f", float(value))
        out += record(b"\x09" + struct.pack("<d", 1.7e9 + k) + b"\x10" + varint(int(step))
                      + field(0x2A, field(0x0A, val)))
    path.write_bytes(bytes(out))
    return path


def render(style: dict, rnd: random.Random, given: dict | None = None) -> tuple[str, dict]:
    """The log text of `style` and what a reader should get from it. `given`: the run's values (a
    story of --judge: `loss`, `learning_rate`, `grad_norm`, `accuracy` a value a step, `eval_loss` one
    for each evaluation); by default a healthy run drawn here."""
    n = style["steps"]
    every = style["every"]
    vals = dict(given) if given else series(n, rnd)
    nan_from = int(0.8 * n) if style["noise"] == "nan_tail" else n
    vals["loss"] = [v if i < nan_from else float("nan") for i, v in enumerate(vals["loss"])]
    B = 5 if n <= 40 else 25  # logged records per epoch
    sep, pair = SEPARATORS[style["sep"]], PAIRS[style["pair"]]
    if style["sep"] in ("space",) and style["pair"] == "space":
        sep = "   "  # `loss 2.3 lr 3e-4` with single spaces is ambiguous to a person too
    how, noise2, layout2 = style.get("number2", "-"), style.get("noise2", "-"), style.get("layout2", "-")
    if style.get("pair2", "-") != "-":
        pair = PAIR2[style["pair2"]]
    if style.get("order", "-") == "value_first":
        pair = "{v} {k}"
    cfun = COUNTERS2[style["counter2"]] if style.get("counter2", "-") != "-" else COUNTERS[style["counter"]]

    def num(v: float, kind: str) -> str:
        return spell(number(style["number"], v, kind), v, how)

    lines: list[str] = []
    if style["noise"] == "header":
        lines += ["Namespace(lr=0.0003, batch_size=32, epochs=3, seed=1)", "Training on 1 GPU(s)", ""]
    if noise2 == "config_dump":
        lines += ["config:", "  model:", "    name: resnet18", "    dropout: 0.1", "  optimizer:", "    name: adamw",
                  "    lr: 0.0003", "    weight_decay: 0.01", "  train:", "    epochs: 3", "    batch_size: 64",
                  "    max_grad_norm: 1.0", "    loss: cross_entropy", ""]
    late: list[str] = []  # what is printed after training (a history, a summary)
    bar: list[str] = []  # the redraws of the epoch's progress bar so far
    with_eval = style["noise"] in ("eval_lines", "tqdm_and_eval")
    file_eval = given is None or "eval_loss" in vals  # (a file layout's evaluation column: a story may have none)
    evals = []
    for i in range(n):
        s = (i + 1) * every
        e, b = i // B + 1, (i % B + 1) * every
        texts = {m: VALUES[style["value"]](num(vals[m][i], m), vals[m][i], m) for m in style["names"]}
        counter = cfun(s, n * every, e, b, B * every)
        names_ = {m: style["names"][m].replace(" ", "_") for m in style["names"]}
        if style["layout"] == "box_table":
            cols = ["step"] + [style["names"][m] for m in style["names"]]
            w = [max(8, len(c) + 2) for c in cols]
            if i == 0:
                lines += ["┏" + "┳".join("━" * k for k in w) + "┓",
                          "┃" + "┃".join(f" {c:<{k - 1}}" for c, k in zip(cols, w)) + "┃",
                          "┡" + "╇".join("━" * k for k in w) + "┩"]
            body = "│" + "│".join(f" {c:<{k - 1}}" for c, k in zip([str(s)] + [texts[m] for m in style["names"]], w)) + "│"
            if i == n - 1:
                body += "\n└" + "┴".join("─" * k for k in w) + "┘"
            counter = ""
        elif style["layout"] == "lightning_bar":  # a redraw per batch, one line per epoch
            pct = int(100 * b / (B * every))
            post = ", ".join(f"{names_[m]}={num(vals[m][i], m)}" for m in style["names"])
            bar.append(f"Epoch {e - 1}: {pct:3d}%|{'█' * (pct // 10):<10}| {b}/{B * every} "
                       f"[00:0{i % 10}<00:10, 14.1it/s, {post}, v_num=0]")
            if b == B * every or i == n - 1:
                lines.append("\r" + "\r".join(bar))
                bar = []
            continue
        elif style["layout"] == "keras_redraw":  # each record an epoch: batches redrawn with `\r`, the last stays
            lines.append(f"Epoch {i + 1}/{n}")
            red = []
            for j in range(1, 9):
                k = 4 * j
                fields = " - ".join(f"{names_[m]}: {num(vals[m][i] * (1 + 0.05 * (8 - j)), m)}"
                                    for m in style["names"])
                bar_ = "=" * (30 * k // 32 - 1) + (">" if k < 32 else "=") + "." * (30 - 30 * k // 32)
                red.append(f"{k:2d}/32 [{bar_}] - " + ("ETA: 0s" if k < 32 else f"1s {30 + i % 7}ms/step") + " - "
                           + fields)
            body = "\r" + "\r".join(red)
            counter = ""
        elif style["layout"] == "pandas":  # the history as a DataFrame, printed after training
            cols = ["epoch"] + [names_[m] for m in style["names"]]
            if i == 0:
                late.append("    " + "  ".join(f"{c:>10}" for c in cols))
            late.append(f"{i:<4}" + "  ".join(f"{c:>10}" for c in [str(i + 1)] + [num(vals[m][i], m)
                                                                             for m in style["names"]]))
            continue
        elif style["layout"] == "list_of_dicts":  # print(history): one line, after training
            rec = repr({"epoch": i + 1, **{style["names"][m]: float(number(style["number"], vals[m][i], m))
                                           for m in style["names"]}})
            if i == 0:
                late.append("[" + rec)
            else:
                late[-1] += ", " + rec
            if i == n - 1:
                late[-1] += "]"
            continue
        elif style["layout"] == "dict":
            body = repr({"step": s, **{style["names"][m]: float(number(style["number"], vals[m][i], m))
                                       for m in style["names"]}})
            counter = ""
        elif style["layout"] == "json":
            body = json.dumps({"step": s, **{style["names"][m]: float(number(style["number"], vals[m][i], m))
                                             for m in style["names"]}})
            counter = ""
        elif style["layout"] == "block":
            head = counter or f"step {s}"
            body = "\n".join([head] + [f"    {style['names'][m]}: {texts[m]}" for m in style["names"]])
            counter = ""
        elif style["layout"] in ("csv", "tsv", "csv_semicolon"):  # a logger's CSV: eval cells empty between evals
            d = {"csv": ",", "tsv": "\t", "csv_semicolon": ";"}[style["layout"]]
            if i == 0:
                lines.append(d.join(["step"] + [style["names"][m] for m in style["names"]] + [style["eval_name"]]))
            ev = ""
            if (i + 1) % B == 0 and file_eval:
                ev = number(style["number"], vals["eval_loss"][len(evals)] if "eval_loss" in vals else
                            vals["loss"][i] * 1.1, "loss")
                evals.append(float(ev))
            body = d.join([str(s)] + [number(style["number"], vals[m][i], m) for m in style["names"]] + [ev])
            counter = ""
        elif style["layout"] == "lightning_csv":  # CSVLogger: a row per log call, the other columns left empty
            cols = [style["names"][m] for m in style["names"]]
            if i == 0:
                lines.append(",".join(["epoch", "step"] + cols + [style["eval_name"]]))
            body = ",".join([str(e - 1), str(s)] + [number(style["number"], vals[m][i], m) for m in style["names"]]
                            + [""])
            if (i + 1) % B == 0 and file_eval:
                ev = vals["eval_loss"][len(evals)] if "eval_loss" in vals else vals["loss"][i] * 1.1
                evals.append(ev)
                body += "\n" + ",".join([str(e - 1), str(s)] + [""] * len(cols) + [number(style["number"], ev, "loss")])
            counter = ""
        elif style["layout"] == "wandb_history":  # wandb-history.jsonl: `_step`, `_runtime`, one call a line
            rec = {"_step": s, "_runtime": 1.7 * i, "_timestamp": 1.7e9 + 1.7 * i,
                   **{style["names"][m]: vals[m][i] for m in style["names"]}}
            body = json.dumps(rec)
            if (i + 1) % B == 0 and file_eval:
                ev = vals["eval_loss"][len(evals)] if "eval_loss" in vals else vals["loss"][i] * 1.1
                evals.append(ev)
                body += "\n" + json.dumps({"_step": s, "_runtime": 1.7 * i + 0.5, style["eval_name"]: ev})
            counter = ""
        elif style["layout"] == "tensorboard":  # (tag, step, value) lines, written as an event file by write()
            body = "\n".join(f"{style['names'][m]}\t{s}\t{vals[m][i]!r}" for m in style["names"])
            if (i + 1) % B == 0 and file_eval:
                ev = vals["eval_loss"][len(evals)] if "eval_loss" in vals else vals["loss"][i] * 1.1
                evals.append(ev)
                body += f"\n{style['eval_name']}\t{s}\t{ev!r}"
            counter = ""
        elif style["layout"] == "jsonl_nested":  # one object a step, the splits as nested objects
            rec = {"step": s, "train": {style["names"][m]: float(number(style["number"], vals[m][i], m))
                                        for m in style["names"]}}
            if (i + 1) % B == 0 and file_eval:
                ev = vals["eval_loss"][len(evals)] if "eval_loss" in vals else vals["loss"][i] * 1.1
                evals.append(ev)
                rec["val"] = {"loss": float(number(style["number"], ev, "loss"))}
            body = json.dumps(rec)
            counter = ""
        elif style["layout"] == "markdown":
            cols = ["step"] + [style["names"][m] for m in style["names"]]
            if i == 0:
                lines.append("| " + " | ".join(cols) + " |")
                lines.append("|" + "|".join("---" for _ in cols) + "|")
            body = "| " + " | ".join([str(s)] + [texts[m] for m in style["names"]]) + " |"
            counter = ""
        elif style["layout"] == "keras":
            lines.append(f"Epoch {i + 1}/{n}")
            body = (f"32/32 [==============================] - 1s {30 + i % 7}ms/step - "
                    + " - ".join(f"{style['names'][m].replace(' ', '_')}: {num(vals[m][i], m)}"
                                 for m in style["names"]))
            counter = ""
        elif style["layout"] == "postfix":  # a progress bar's postfix, each update on its own line
            pct = int(100 * b / (B * every))
            post = ", ".join(f"{style['names'][m].replace(' ', '_')}={num(vals[m][i], m)}"
                             for m in style["names"])
            body = (f"Epoch {e}: {pct:3d}%|{'#' * (pct // 10):<10}| {b}/{B * every} "
                    f"[00:0{i % 10}<00:10, 12.5it/s, {post}]")
            counter = ""
        elif style["layout"] == "table":
            cols = ["step"] + [style["names"][m].replace(" ", "_") for m in style["names"]]
            if i == 0:
                lines.append("  ".join(f"{c:>14}" for c in cols))
            body = "  ".join(f"{c:>14}" for c in [str(s)] + [texts[m] for m in style["names"]])
            counter = ""
        else:
            body = sep.join(pair.format(k=style["names"][m], v=texts[m]) for m in style["names"])
            if style["noise"] == "eval_inline" and (i + 1) % B == 0:
                ev = vals["eval_loss"][len(evals)] if "eval_loss" in vals else vals["loss"][i] * 1.1
                evals.append(ev)
                body += sep + pair.format(k=style["eval_name"], v=num(ev, "loss"))
            if style["noise"] == "extras":
                body += sep + sep.join([pair.format(k="time", v=f"{0.3 + 0.01 * (i % 5):.2f}s"),
                                        f"{12.5 + i % 3:.1f} it/s", pair.format(k="mem", v="10.2GB")])
            if noise2 == "extras_units":
                body += sep + sep.join([pair.format(k="time", v=f"{350 + i % 9}ms"), pair.format(k="mem", v="10.2 GiB"),
                                        f"{12.5 + i % 3:.1f}k tok/s"])
            if noise2 == "eval_joined" and (i + 1) % B == 0:
                ev = vals["eval_loss"][len(evals)] if "eval_loss" in vals else vals["loss"][i] * 1.1
                evals.append(ev)
                body += " || " + pair.format(k=style["eval_name"], v=num(ev, "loss"))
            if layout2 == "two_line":
                counter = (counter or f"step {s}") + "\n"
            elif style.get("counter2") == "at_end":
                body, counter = body + " " + counter, ""
        if counter.endswith("\n"):
            body = counter + "  " + body
        elif counter:
            joint = " " if counter.endswith(":") or style["sep"] in ("space", "two_spaces") else sep
            body = counter + joint + body
        if style["noise"] in ("tqdm", "tqdm_and_eval") and i % 3 == 0:
            pct = int(100 * i / n)
            lines.append(f"\r{pct:3d}%|{'#' * (pct // 10):<10}| {i}/{n} [00:0{i % 10}<00:10, 12.5it/s]")
        if noise2 == "stack_warning" and i % 7 == 3:
            lines += ["  File \"/home/u/proj/train.py\", line 212, in <module>", "    main(args)",
                      "  File \"/home/u/proj/train.py\", line 150, in main",
                      f"    out = model(batch, step={s}, loss_scale=1.0)",
                      "/home/u/proj/model.py:41: RuntimeWarning: overflow encountered in exp",
                      "  return 1 / (1 + np.exp(-x))"]
        if style["noise"] == "warnings" and i % 7 == 3:
            lines.append("/usr/lib/python3/site-packages/torch/nn/functional.py:1944: UserWarning: "
                         "nn.functional.sigmoid is deprecated. Use torch.sigmoid instead.")
        pre = PREFIXES[style["prefix"]](i)
        plain = style["layout"] in ("table", "markdown", "keras", "postfix") + FILES + FILES + tuple(LAYOUT2[1:])
        if noise2 == "wrapped" and not plain:
            body = "\n".join(wrap(pre + body, sep))[len(pre):]
        lines.append(pre + body.replace("\n", "\n" + pre) if not plain else body)
        if style["noise"] == "ranks" and not plain:
            lines[-1] = "[rank0]: " + lines[-1].replace("\n", "\n[rank0]: ")
            lines.append(lines[-1].replace("[rank0]: ", "[rank1]: "))
        if style["noise"] == "blank":
            lines.append("")
        if with_eval and (i + 1) % B == 0 and not plain:
            ev = vals["eval_loss"][len(evals)] if "eval_loss" in vals else vals["loss"][i] * 1.1
            evals.append(ev)
            ec = cfun(s, n * every, e, b, B * every)
            evline = pair.format(k=style["eval_name"], v=num(ev, "loss"))
            if style.get("counter2") == "at_end":
                evline, ec = evline + " " + ec, ""
            if ec:
                evline = ec + (" " if ec.endswith(":") else sep) + evline
            lines.append(PREFIXES[style["prefix"]](i) + evline)
    if style["layout"] in ("table", "markdown", "keras", "postfix") + tuple(LAYOUT2[1:]):
        evals = []
    if late:
        lines += ["Training finished."] + late
    if noise2 == "summary":
        best = min(range(n), key=lambda k: vals["loss"][k] if vals["loss"][k] == vals["loss"][k] else 1e9)
        lines += ["Training complete in 0h 3m 12s", f"best {style['eval_name']} {num(1.1 * vals['loss'][best], 'loss')} "
                  f"at epoch {best // B + 1}", f"Best checkpoint: ./ckpt/epoch_{best // B + 1}.pt"]
    finite = [v for v in vals["loss"] if v == v]
    want = {"rows": n, "names": sorted(style["names"]), "first": finite[0], "last": finite[-1],
            "eval": len(evals), "nan": n - nan_from}
    end = "\r\n" if style["noise"] == "crlf" else "\n"
    return end.join(lines) + end, want


def render_all(style: dict, rnd: random.Random) -> tuple[str, dict]:
    """render(), with the runs a `two_runs` style appends to one file: the second starts its counter again."""
    if style.get("noise2") != "two_runs":
        return render(style, rnd)
    t1, w1 = render(style, rnd)
    t2, w2 = render(style, rnd)
    want = dict(w2, rows=w1["rows"] + w2["rows"], first=w1["first"], eval=w1["eval"] + w2["eval"],
                nan=w1["nan"] + w2["nan"], runs=2)
    return t1 + t2, want


def judge(run, want: dict) -> list[str]:
    problems = []
    key, rel = want.get("key", "loss"), want.get("rel", 2e-3)
    loss = run.series.get(key)
    rows = len(loss.values) if loss is not None else 0
    if abs(rows - want["rows"]) > max(0.05 * want["rows"], 0.5):
        problems.append(f"rows {rows} != {want['rows']}")
    missing = [m for m in want["names"] if m not in run.series]
    ek = want.get("eval_key", "eval/loss")
    if want["eval"] and ek not in run.series:
        missing.append(ek)
    if missing:
        problems.append(f"missing {missing}; read {sorted(run.series)[:8]}")
    elif want["eval"] and len(run.series[ek].values) != want["eval"]:
        problems.append(f"{ek} {len(run.series[ek].values)} points != {want['eval']}")
    if loss is not None and len(loss.values):
        import numpy as np
        nans = int(np.isnan(loss.values).sum())
        if nans != want.get("nan", 0):
            problems.append(f"{nans} NaN losses != {want.get('nan', 0)}")
        v = loss.values[np.isfinite(loss.values)]
        if len(v) and not math.isclose(float(v[0]), want["first"], rel_tol=rel):
            problems.append(f"first loss {float(v[0]):.5g} != {want['first']:.5g}")
        if len(v) and not math.isclose(float(v[-1]), want["last"], rel_tol=rel):
            problems.append(f"last loss {float(v[-1]):.5g} != {want['last']:.5g}")
    if want.get("runs") and run.meta.get("runs") != want["runs"]:
        problems.append(f"runs {run.meta.get('runs')} != {want['runs']}")
    return problems



# ---------------------------------------------------------------------------------------------------------------
# A third set (`--layouts`): whole-line layouts that real tools print, where the parts are not independent choices
# but the line's own structure (its counter, the fields the tool always prints, the eval line it prints, how it
# spells numbers). Each layout renders a run's values in its tool's way, with the variations that tool allows
# (fewer or more fields, the metric names a user gives it, other counters, the eval line or none), written here
# from the layouts' documented shapes, never copied from a log. Drawn from a stream of its own (`layouts-<seed>`).
def _eta(i: int, n: int) -> str:
    s = 3 * (n - i)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _lay_mmengine(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    kind = r.choice(["engine", "engine", "engine_iter", "mmcv"])
    comps = r.choice([[], ["loss_cls", "loss_bbox"], ["decode.loss_ce", "decode.acc_seg", "aux.loss_ce"],
                      ["loss_rpn_cls", "loss_rpn_bbox", "loss_cls", "loss_bbox"], ["loss_ctc"]])
    gn, acc = r.random() < 0.5, r.random() < 0.4
    ev, names = [], ["loss", "learning_rate"] + (["grad_norm"] if gn else []) + (["accuracy"] if acc else [])
    w = len(str(B))
    for i in range(n):
        e, b, s = i // B + 1, i % B + 1, i + 1
        L, lr = V["loss"][i], V["learning_rate"][i]
        cf = [f"{c}: {L * (0.3 + 0.1 * k):.4f}" for k, c in enumerate(comps)]
        if kind != "mmcv":
            head = f"Epoch(train) [{e}][{b:>{w}}/{B}]" if kind == "engine" else f"Iter(train) [{s:>{len(str(n))}}/{n}]"
            f = [f"base_lr: {lr:.4e} lr: {lr:.4e}", f"eta: {_eta(i, n)}", f"time: {0.25 + 0.01 * (i % 3):.4f}",
                 f"data_time: {0.01:.4f}", f"memory: {2000 + i % 5}"]
            f += [f"grad_norm: {V['grad_norm'][i]:.4f}"] if gn else []
            f += [f"loss: {L:.4f}"] + cf + ([f"acc: {100 * V['accuracy'][i]:.4f}"] if acc else [])
            line = head + "  " + "  ".join(f)
        else:
            f = [f"lr: {lr:.3e}", f"eta: {_eta(i, n)}", f"time: {0.25 + 0.01 * (i % 3):.3f}", "data_time: 0.010",
                 f"memory: {2000 + i % 5}"] + cf + ([f"acc: {100 * V['accuracy'][i]:.4f}"] if acc else [])
            f += [f"loss: {L:.4f}"] + ([f"grad_norm: {V['grad_norm'][i]:.4f}"] if gn else [])
            line = f"Epoch [{e}][{b}/{B}]\t" + ", ".join(f)
        ev.append(("train", line))
        if (i + 1) % B == 0:
            if kind == "mmcv":
                ev.append(("eval", f"Epoch(val) [{e}][50]\tbbox_mAP: {0.3 + 0.01 * e:.4f}, bbox_mAP_50: "
                                   f"{0.5 + 0.01 * e:.4f}, bbox_mAP_copypaste: 0.300 0.500 0.320 0.150 0.330 0.400"))
            else:
                ev.append(("eval", (f"Epoch(val) [{e}][50/50]" if kind == "engine" else "Iter(val) [50/50]")
                                   + f"    accuracy/top1: {40 + e:.4f}  data_time: 0.0100  time: 0.1000"))
    pre = "2024/03/01 12:00:00 - mmengine - INFO - " if kind != "mmcv" else "2024-03-01 12:00:00,000 - mmdet - INFO - "
    return ev, {"names": names, "prefix": pre, "eval": (n // B if kind != "mmcv" else 0), "eval_key": "eval/accuracy"}


def _batches(V: dict, n: int, B: int):
    """(step index, epoch, batch in the epoch, training loss) of each of the run's n logged steps."""
    for i in range(n):
        yield i, i // B, i % B, V["loss"][i]


def _lay_timm(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    ev, W = [], len(str(B))
    for i, e, b, L in _batches(V, n, B):
        ev.append(("train", f"Train: {e} [{b:>{W}}/{B} ({100 * b / B:3.0f}%)]  Loss: {L:#.3g} ({L * 1.04:#.3g})  "
                            f"Time: {0.25:.3f}s, {512:>7.2f}/s  ({0.26:.3f}s, {490:>7.2f}/s)  "
                            f"LR: {V['learning_rate'][i]:.3e}  Data: {0.01:.3f} ({0.012:.3f})"))
        if (i + 1) % B == 0:
            v = L * 1.1
            ev.append(("eval", f"Test: [   0/9]  Time: 0.500 (0.500)  Loss:  {v * 0.9:.4f} ({v * 0.9:.4f})  "
                               f"Acc@1: 40.0000 (40.0000)  Acc@5: 70.0000 (70.0000)"))
            ev.append(("eval", f"Test: [   9/9]  Time: 0.100 (0.140)  Loss:  {v * 1.1:.4f} ({v:.4f})  "
                               f"Acc@1: 45.0000 (42.0000)  Acc@5: 75.0000 (72.0000)"))
    # (the evaluation is the average over the test batches, the number in parentheses of the last `Test:` line)
    return ev, {"names": ["loss", "learning_rate"], "eval": 0, "rel": 2e-2}


def _lay_fairseq(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    old = r.random() < 0.4
    ev, W = [], len(str(B))
    nll = r.random() < 0.7
    for i in range(n):
        e, b, s = i // B + 1, i % B + 1, i + 1
        L = V["loss"][i]
        f = [f"loss={L:.3f}"] + ([f"nll_loss={L * 0.9:.3f}", f"ppl={2 ** (L * 0.9):.2f}"] if nll else [])
        f += ["wps=12000", "ups=3.2", "wpb=3000", "bsz=100", f"num_updates={s}", f"lr={V['learning_rate'][i]:.3e}",
              f"gnorm={V['grad_norm'][i]:.3f}", "train_wall=10", "gb_free=10.5", f"wall={3 * s}"]
        ev.append(("train", ("| " if old else "") + f"epoch {e:03d}:  {b:>{W}} / {B} " + ", ".join(f)))
        if (i + 1) % B == 0:
            v = L * 1.1
            tail = [f"loss {v:.3f}"] + ([f"nll_loss {v * 0.9:.3f}", f"ppl {2 ** (v * 0.9):.2f}"] if nll else [])
            tail += ["wps 30000", "wpb 3000", "bsz 100", f"num_updates {s}"]
            vl = f"epoch {e:03d} | valid on 'valid' subset | " + " | ".join(tail)
            tl = (f"epoch {e:03d} | loss {L * 1.02:.3f} | " + (f"nll_loss {L * 0.92:.3f} | " if nll else "")
                  + f"wps 12000 | ups 3.2 | num_updates {s} | lr {V['learning_rate'][i]:.3e} | gnorm 1.1 | wall {3 * s}")
            if old:  # (the epoch's summary of training after its validation)
                ev += [("eval", "| " + vl), ("eval", "| " + tl)]
            else:
                ev += [("eval", "2024-03-01 12:00:00 | INFO | valid | " + vl),
                       ("eval", "2024-03-01 12:00:00 | INFO | train | " + tl)]
    pre = "" if old else "2024-03-01 12:00:00 | INFO | train_inner | "
    return ev, {"names": ["loss", "learning_rate", "grad_norm"], "prefix": pre, "eval": n // B, "eval_prefix": ""}


def _lay_detectron2(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    ev = []
    comps = r.choice([["loss_cls", "loss_box_reg", "loss_rpn_cls", "loss_rpn_loc"],
                      ["loss_cls", "loss_box_reg", "loss_mask", "loss_rpn_cls", "loss_rpn_loc"], ["loss_sem_seg"]])
    every = r.choice([20, 1])
    for i in range(n):
        it = (i + 1) * every - 1
        L = V["loss"][i]
        f = [f"eta: {_eta(i, n)}", f"iter: {it}", f"total_loss: {L:.3f}"]
        f += [f"{c}: {L / len(comps):.3f}" for c in comps]
        f += [f"time: {0.25:.4f}", f"last_time: {0.26:.4f}", f"data_time: {0.01:.4f}", f"last_data_time: {0.01:.4f}",
              f"lr: {V['learning_rate'][i]:.6g}", f"max_mem: {2000 + i % 7}M"]
        ev.append(("train", "  ".join(f)))
    return ev, {"names": ["loss", "learning_rate"], "prefix": "[03/01 12:00:00 d2.utils.events]:  "}


def _lay_paddle(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    ev = []
    acc = r.random() < 0.5
    for i in range(n):
        e, s = i // B + 1, i + 1
        f = [f"epoch: [{e}/{n // B + 1}]", f"global_step: {s}", f"lr: {V['learning_rate'][i]:.6f}"]
        f += [f"acc: {V['accuracy'][i]:.6f}", "norm_edit_dis: 0.500000"] if acc else []
        f += [f"loss: {V['loss'][i]:.6f}", "avg_reader_cost: 0.01000 s", "avg_batch_cost: 0.25000 s",
              "avg_samples: 64.0", "ips: 256.00000 samples/s", f"eta: {_eta(i, n)}"]
        ev.append(("train", ", ".join(f)))
        if acc and (i + 1) % B == 0:
            ev.append(("eval", f"cur metric, acc: {0.4 + 0.01 * e:.6f}, norm_edit_dis: 0.800000, fps: 100.0"))
            ev.append(("other", f"best metric, acc: {0.4 + 0.01 * e:.6f}, is_float16: False, norm_edit_dis: 0.8, "
                                f"fps: 100.0, best_epoch: {e}"))
    return ev, {"names": ["loss", "learning_rate"] + (["accuracy"] if acc else []),
                "prefix": "[2024/03/01 12:00:00] ppocr INFO: ", "eval": n // B if acc else 0,
                "eval_key": "eval/accuracy"}


def _lay_xgboost(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    m = r.choice(["logloss", "mlogloss", "rmse"])
    # the watchlist's names are the user's (`train`/`eval` in the docs, the DMatrix's own name); the scikit-learn
    # API names its eval sets `validation_0`, `validation_1`, ... (the first is often the training set, but not
    # always: it is read as an evaluation, and alone it is the series)
    tr, va = r.choice([("train", "eval"), ("train", "test"), ("dtrain", "dtest"), ("dtrain", "dvalid"),
                       ("train", "valid"), (None, "validation_0")])
    both = tr is not None and r.random() < 0.8
    ev = []
    for i in range(n):
        L = V["loss"][i]
        f = ([f"{tr}-{m}:{L:.5f}"] if tr else []) + ([f"{va}-{m}:{L * 1.1:.5f}"] if both or not tr else [])
        ev.append(("train", f"[{i}]\t" + "\t".join(f)))
    name = "rmse" if m == "rmse" else "loss"
    if not tr:
        return ev, {"names": [], "key": f"eval/{name}", "eval": 0, "bare": True, "scale": 1.1}
    return ev, {"names": [name], "key": name, "eval": n if both else 0, "eval_key": f"eval/{name}", "bare": True}


def _lay_lightgbm(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    m = r.choice(["binary_logloss", "multi_logloss", "l2"])
    va = r.choice(["valid_0", "valid_1", "valid", "eval"])
    tr = r.random() < 0.6
    ev = [("other", "[LightGBM] [Info] Number of positive: 500, number of negative: 500"),
          ("other", "[LightGBM] [Info] Total Bins 2550"),
          ("other", "[LightGBM] [Warning] No further splits with positive gain, best gain: -inf")]
    for i in range(n):
        L = V["loss"][i]
        ev.append(("train", f"[{i + 1}]\t" + (f"training's {m}: {L:.6g}\t" if tr else "") + f"{va}'s {m}: {L * 1.1:.6g}"))
    name = "l2" if m == "l2" else "loss"
    if not tr:  # only a validation set watched: that is the series, under its evaluation name
        return ev, {"names": [], "key": f"eval/{name}", "eval": 0, "bare": True, "scale": 1.1}
    return ev, {"names": [name], "key": name, "eval": n, "eval_key": f"eval/{name}", "bare": True}


def _lay_sklearn(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    ev = [("train", f"Iteration {i + 1}, loss = {V['loss'][i]:.8f}") for i in range(n)]
    if r.random() < 0.5:
        ev = [x for i, t in enumerate(ev) for x in (t, ("other", f"Validation score: {V['accuracy'][i]:.6f}"))]
    return ev, {"names": ["loss"]}


def _lay_fastai(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    n = min(n, 40)
    cols = ["epoch", "train_loss", "valid_loss"] + r.choice([["accuracy"], ["error_rate"], ["accuracy", "f1_score"], []])
    cols.append("time")
    ev = [("header", "".join(f"{c:<{max(10, len(c) + 2)}}" for c in cols))]
    for i in range(n):
        cells = {"epoch": str(i), "train_loss": f"{V['loss'][i]:.6f}", "valid_loss": f"{V['loss'][i] * 1.1:.6f}",
                 "accuracy": f"{V['accuracy'][i]:.6f}", "error_rate": f"{1 - V['accuracy'][i]:.6f}",
                 "f1_score": "0.700000", "time": f"00:{10 + i % 5:02d}"}
        ev.append(("train", "".join(f"{cells[c]:<{max(10, len(c) + 2)}}" for c in cols)))
    return ev, {"names": ["loss"], "eval": n, "rows": n, "bare": True}


def _lay_lightning(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    style = r.choice(["step_epoch", "plain", "old_loss"])
    lines, bar = [], []
    nm = {"step_epoch": "train_loss_step", "plain": "train_loss", "old_loss": "train_loss"}[style]
    lr = r.random() < 0.4
    val = None
    for i in range(n):
        e, b = i // B, i % B + 1
        post = []
        if style == "old_loss":
            post.append(f"loss={V['loss'][i] * 1.02:.3g}")
        post.append("v_num=0")
        post.append(f"{nm}={V['loss'][i]:.3f}")
        if lr:
            post.append(f"lr={V['learning_rate'][i]:.2e}")
        if val is not None:
            post.append(f"val_loss={val:.3f}")
        if style == "step_epoch" and e > 0:
            post.append(f"train_loss_epoch={V['loss'][i - b] * 1.05:.3f}")
        pct = int(100 * b / B)
        bar.append(f"Epoch {e}: {pct:3d}%|{'█' * (pct // 10):<10}| {b}/{B} [00:0{i % 10}<00:10, 14.1it/s, "
                   + ", ".join(post) + "]")
        if b == B:
            # the validation's own bar, then the training bar drawn again with the value the validation logged
            # (the postfix is a dict: a key shown once, its value replaced; `val_loss` comes after the training
            # values the first time, and keeps its place after)
            lines.append(("train", "\r" + "\r".join(bar)))
            lines.append(("other", "\r".join(f"Validation DataLoader 0: {25 * k:3d}%|{'█' * (25 * k // 10):<10}| "
                                             f"{k}/4 [00:00<00:00, 30.00it/s]" for k in range(5))))
            val = V["loss"][i] * 1.1
            shown = [p for p in post if not p.startswith("val_loss=")]
            post = shown + [f"val_loss={val:.3f}"] if len(shown) == len(post) else \
                [f"val_loss={val:.3f}" if p.startswith("val_loss=") else p for p in post]
            bar = [f"Epoch {e}: {pct:3d}%|{'█' * (pct // 10):<10}| {b}/{B} [00:0{i % 10}<00:10, 14.1it/s, "
                   + ", ".join(post) + "]"]
    if bar:
        lines.append(("train", "\r" + "\r".join(bar)))
    return lines, {"names": ["loss"] + (["learning_rate"] if lr else []), "eval": n // B, "bare": True}


def _lay_keras3(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    k3 = r.random() < 0.6
    acc = r.choice(["accuracy", "sparse_categorical_accuracy", "acc", None])
    val, lr = r.random() < 0.7, k3 and r.random() < 0.4
    n = min(n, 40)
    ev = []
    for i in range(n):
        ev.append(("other", f"Epoch {i + 1}/{n}"))
        f = {"loss": f"{V['loss'][i]:.4f}"}
        if acc:
            f[acc] = f"{V['accuracy'][i]:.4f}"
        if lr:
            f["learning_rate"] = f"{V['learning_rate'][i]:.4e}"
        if val:
            f["val_loss"] = f"{V['loss'][i] * 1.1:.4f}"
            if acc:
                f["val_" + acc] = f"{V['accuracy'][i] * 0.95:.4f}"
        keys = sorted(f) if k3 else list(f)  # (Keras 3 prints the logs sorted by name)
        fs = " - ".join(f"{k}: {f[k]}" for k in keys)
        if k3:
            ev.append(("train", f"1563/1563 {'━' * 20} {5 + i % 3}s {3 + i % 2}ms/step - {fs}"))
        else:
            ev.append(("train", f"1563/1563 [==============================] - {5 + i % 3}s {3 + i % 2}ms/step - {fs}"))
    names = ["loss"] + (["accuracy"] if acc else []) + (["learning_rate"] if lr else [])
    return ev, {"names": names, "eval": n if val else 0, "bare": True, "rows": n}


def _lay_ultralytics(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    n = min(n, 40)
    seg = r.random() < 0.3
    cols = ["Epoch", "GPU_mem", "box_loss"] + (["seg_loss"] if seg else []) + ["cls_loss", "dfl_loss", "Instances", "Size"]
    ev = []
    for i in range(n):  # (the trainer prints its header again before each epoch's bar)
        ev += [("other", ""), ("header", "".join(f"{c:>11}" for c in cols))]
        L = V["loss"][i]
        cells = [f"{i + 1}/{n}", f"{2.5 + 0.1 * (i % 3):.2g}G", f"{L:.4g}"] + ([f"{L * 0.8:.4g}"] if seg else [])
        cells += [f"{L * 1.5:.4g}", f"{L * 0.6:.4g}", f"{40 + i % 9}", "640"]
        ev.append(("train", "".join(f"{c:>11}" for c in cells) + ": 100%|██████████| 8/8 [00:02<00:00,  3.50it/s]"))
        ev.append(("eval", f"{'Class':>22}{'Images':>11}{'Instances':>11}{'Box(P':>11}{'R':>11}{'mAP50':>11}"
                           f"{'mAP50-95):':>11} 100%|██████████| 1/1 [00:00<00:00,  5.00it/s]"))
        ev.append(("eval", f"{'all':>22}{128:>11}{929:>11}{0.6:>11.3g}{0.5:>11.3g}{0.4 + 0.005 * i:>11.3g}"
                           f"{0.3 + 0.004 * i:>11.3g}"))
    return ev, {"names": ["box_loss"], "key": "box_loss", "eval": 0, "bare": True, "rows": n}


def _lay_hfdict(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    trl = r.random() < 0.4
    ev = []
    for i in range(n):
        d = {"loss": round(V["loss"][i], 4), "grad_norm": round(V["grad_norm"][i], 6),
             "learning_rate": float(f"{V['learning_rate'][i]:.4e}")}
        if trl:
            d.update({"rewards/chosen": 0.1, "rewards/rejected": -0.1, "rewards/accuracies": 0.6, "rewards/margins": 0.2,
                      "logps/chosen": -100.0, "logps/rejected": -110.0})
        d["epoch"] = round((i + 1) / (n / 3), 2)
        ev.append(("train", repr(d)))
        if (i + 1) % B == 0:
            ev.append(("eval", repr({"eval_loss": round(V["loss"][i] * 1.1, 4), "eval_runtime": 10.5,
                                     "eval_samples_per_second": 95.2, "eval_steps_per_second": 12.0,
                                     "epoch": d["epoch"]})))
    return ev, {"names": ["loss", "learning_rate", "grad_norm"], "eval": n // B}


def _lay_torchtune(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    ev = []
    gn = r.random() < 0.5
    for i in range(n):
        f = [f"loss:{V['loss'][i]}", f"lr:{V['learning_rate'][i]}"] + ([f"grad_norm:{V['grad_norm'][i]}"] if gn else [])
        f += [f"tokens_per_second_per_gpu:{1000.0 + i}", "peak_memory_active:10.5", "peak_memory_alloc:10.5",
              "peak_memory_reserved:12.0"]
        ev.append(("train", f"Step {i + 1} | " + " ".join(f) + " "))
    return ev, {"names": ["loss", "learning_rate"] + (["grad_norm"] if gn else []), "bare": True}


def _lay_clu(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    grp = r.choice(["", "train_", "train/"])
    ev = []
    for i in range(n):
        s = (i + 1) * 10
        f = [f"{grp}learning_rate={V['learning_rate'][i]}", f"{grp}loss={V['loss'][i]}"]
        f.append(f"{grp}accuracy={V['accuracy'][i]}")
        ev.append(("train", f"[{s}] " + ", ".join(f)))
        if (i + 1) % B == 0:
            eg = "eval_" if grp != "train/" else "eval/"
            ev.append(("eval", f"[{s}] {eg}accuracy={V['accuracy'][i] * 0.95}, {eg}loss={V['loss'][i] * 1.1}"))
    pre = r.choice(["", "I0301 12:00:00.123456 140000000 logging_writer.py:48] "])
    return ev, {"names": ["loss", "learning_rate", "accuracy"], "eval": n // B, "prefix": pre}


def _lay_allennlp(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    ev = []
    bl = r.random() < 0.5
    for i in range(n):
        b = i % B + 1
        f = [f"accuracy: {V['accuracy'][i]:.4f}"] + ([f"batch_loss: {V['loss'][i] * 1.03:.4f}"] if bl else [])
        f.append(f"loss: {V['loss'][i]:.4f}")
        pct = int(100 * b / B)
        ev.append(("train", ", ".join(f) + f" ||: {pct:3d}%|{'#' * (pct // 10):<10}| {b}/{B} [00:0{i % 10}<00:10, "
                                           f"45.00it/s]"))
    return ev, {"names": ["loss", "accuracy"], "bare": True}


def _lay_icefall(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    ev = []
    trans = r.random() < 0.5
    for i in range(n):
        e, b = i // B + 1, i % B * 50
        L = V["loss"][i]
        parts = f"loss={L:.4g}" + (f", simple_loss={L * 1.5:.4g}, pruned_loss={L * 0.5:.4g}" if trans else "")
        tparts = f"loss={L * 1.05:.4g}" + (f", simple_loss={L * 1.55:.4g}, pruned_loss={L * 0.52:.4g}" if trans else "")
        ev.append(("train", f"Epoch {e}, batch {b}, loss[{parts}, over {5000 + i % 100}.00 frames. ], "
                            f"tot_loss[{tparts}, over {100000 + i}.00 frames. ], batch size: {50 + i % 5}, "
                            f"lr: {V['learning_rate'][i]:.2e}, grad_scale: 16.0"))
        if (i + 1) % B == 0:
            ev.append(("eval", "Computing validation loss"))
            ev.append(("eval", f"Epoch {e}, validation: loss={L * 1.1:.4g}" + (
                f", simple_loss={L * 1.6:.4g}, pruned_loss={L * 0.55:.4g}" if trans else "") + ", over 10000.00 frames. "))
            ev.append(("other", "Maximum memory allocated so far is 10000MB"))
    return ev, {"names": ["loss", "learning_rate"], "eval": n // B,
                "prefix": "2024-03-01 12:00:00,000 INFO [train.py:800] "}


def _lay_espnet(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    ev = []
    for i in range(n):
        e, b = i // B + 1, (i % B) * 50
        L = V["loss"][i]
        ev.append(("train", f"{e}epoch:train:{b + 1}-{b + 50}batch: iter_time=1.0e-04, forward_time=0.100, "
                            f"loss_ctc={L * 1.3:.3f}, loss_att={L * 0.9:.3f}, acc={V['accuracy'][i]:.3f}, "
                            f"loss={L:.3f}, backward_time=0.150, optim_step_time=0.020, "
                            f"optim0_lr0={V['learning_rate'][i]:.3e}, train_time=0.500"))
        if (i + 1) % B == 0:
            ev.append(("eval", f"{e}epoch results: [train] iter_time=1.0e-04, loss_ctc={L * 1.3:.3f}, "
                               f"loss={L * 1.02:.3f}, acc={V['accuracy'][i]:.3f}, time=1 minute and 5 seconds, "
                               f"total_count={50 * B}, gpu_max_cached_mem_GB=10.0, [valid] loss_ctc={L * 1.4:.3f}, "
                               f"loss={L * 1.1:.3f}, acc={V['accuracy'][i] * 0.95:.3f}, cer=0.200, wer=0.300"))
    return ev, {"names": ["loss", "learning_rate", "accuracy"], "eval": n // B,
                "prefix": "[host1] 2024-03-01 12:00:00,000 (trainer:732) INFO: "}


def _lay_mnist(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    ev, N = [], 60000
    for i in range(n):
        e, b = i // B + 1, (i % B) * 640
        ev.append(("train", f"Train Epoch: {e} [{b}/{N} ({100. * b / N:.0f}%)]\tLoss: {V['loss'][i]:.6f}"))
        if (i + 1) % B == 0:
            ev += [("other", ""), ("eval", f"Test set: Average loss: {V['loss'][i] * 1.1:.4f}, Accuracy: "
                                           f"{9000 + e}/10000 ({(9000 + e) / 100:.0f}%)"), ("other", "")]
    return ev, {"names": ["loss"], "eval": n // B}


def _lay_imagenet(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    ev, W = [], len(str(B))
    for i, e, b, L in _batches(V, n, B):
        acc = 100 * V["accuracy"][i]  # (the meter's value, then its running average in brackets)
        meters = f"Loss {L:.4e} ({L * 1.04:.4e})\tAcc@1 {acc:6.2f} ({acc * 0.97:6.2f})\tAcc@5 {90.0:6.2f} ({88.0:6.2f})"
        ev.append(("train", f"Epoch: [{e}][{b:>{W}}/{B}]\tTime  0.250 ( 0.260)\tData  0.010 ( 0.012)\t" + meters))
        if (i + 1) % B == 0:
            ev.append(("eval", f"Test: [ 0/10]\tTime  0.500 ( 0.500)\tLoss {L * 1.2:.4e} ({L * 1.2:.4e})\t"
                               f"Acc@1  40.00 ( 40.00)\tAcc@5  70.00 ( 70.00)"))
            ev.append(("eval", f" *   Acc@1 {40 + e:.3f} Acc@5 {70 + e:.3f}"))
    return ev, {"names": ["loss", "accuracy"], "eval": 0, "rel": 2e-3}


def _lay_wlm(r: random.Random, V: dict, n: int, B: int) -> tuple[list, dict]:
    ev, NB = [], B * 200
    for i in range(n):
        e, b = i // B + 1, (i % B + 1) * 200
        L = V["loss"][i]
        ev.append(("train", f"| epoch {e:3d} | {b:5d}/{NB:5d} batches | lr {V['learning_rate'][i] * 1e5:02.2f} | "
                            f"ms/batch {45 + i % 5:5.2f} | loss {L:5.2f} | ppl {math.exp(L):8.2f}"))
        if (i + 1) % B == 0:
            v = L * 1.1
            ev += [("other", "-" * 89), ("eval", f"| end of epoch {e:3d} | time: {150.0 + e:5.2f}s | valid loss {v:5.2f} "
                                                 f"| valid ppl {math.exp(v):8.2f}"), ("other", "-" * 89)]
    return ev, {"names": ["loss", "learning_rate"], "eval": n // B, "rel": 3e-2}


TOOL_LAYOUTS = {"mmengine": _lay_mmengine, "timm": _lay_timm, "fairseq": _lay_fairseq, "detectron2": _lay_detectron2,
                "paddle": _lay_paddle, "xgboost": _lay_xgboost, "lightgbm": _lay_lightgbm, "sklearn_mlp": _lay_sklearn,
                "fastai": _lay_fastai, "lightning_bar2": _lay_lightning, "keras_val": _lay_keras3,
                "ultralytics": _lay_ultralytics, "hf_dict": _lay_hfdict, "torchtune": _lay_torchtune, "clu": _lay_clu,
                "allennlp": _lay_allennlp, "icefall": _lay_icefall, "espnet": _lay_espnet, "mnist": _lay_mnist,
                "imagenet": _lay_imagenet, "word_lm": _lay_wlm}
TOOL_NOISE = ["none", "none", "warnings", "tqdm", "blank", "header", "nan_tail"]


def draw_layout(lay: random.Random, tool: str | None = None) -> dict:
    """A tool layout with its noise and prefix, from the stream `lay`."""
    return {"tool": tool or lay.choice(list(TOOL_LAYOUTS)), "noise": lay.choice(TOOL_NOISE),
            "prefix": lay.choice(["none", "none", "none"] + list(PREFIXES)), "steps": lay.choice([12, 40, 150]),
            "seed": lay.randrange(1 << 30)}


def render_layout(style: dict) -> tuple[str, dict]:
    """A run printed in a tool's layout, with what a reader should get (judge()'s `want`)."""
    r = random.Random(style["seed"])
    n = style["steps"]
    V = series(n, r)
    nan_from = int(0.8 * n) if style["noise"] == "nan_tail" else n
    V["loss"] = [v if i < nan_from else float("nan") for i, v in enumerate(V["loss"])]
    B = 5 if n <= 40 else 25
    events, w = TOOL_LAYOUTS[style["tool"]](r, V, n, B)
    rows = w.get("rows", n)

    def pre(i: int) -> str:  # the tool's own prefix, else a drawn one (a table or a bar takes none but a rank tag)
        if w.get("prefix") is not None:
            return w["prefix"]
        return PREFIXES[style["prefix"]](i) if not w.get("bare") or style["prefix"] in ("none", "rank") else ""
    lines = []
    if style["noise"] == "header":
        lines += ["Namespace(lr=0.0003, batch_size=32, epochs=3, seed=1)", "Training on 1 GPU(s)", ""]
    k = 0
    for kind, ln in events:
        p = w.get("eval_prefix", pre(k)) if kind == "eval" else "" if kind == "header" or not ln else pre(k)
        lines.append(p + ln)
        if kind == "train":
            k += 1
            if style["noise"] == "warnings" and k % 7 == 3:
                lines.append("/usr/lib/python3/site-packages/torch/nn/functional.py:1944: UserWarning: "
                             "nn.functional.sigmoid is deprecated. Use torch.sigmoid instead.")
            if style["noise"] == "tqdm" and k % 3 == 0:
                pct = int(100 * k / rows)
                lines.append(f"\r{pct:3d}%|{'#' * (pct // 10):<10}| {k}/{rows} [00:0{k % 10}<00:10, 12.5it/s]")
            if style["noise"] == "blank":
                lines.append("")
    key = w.get("key", "loss")
    lv = [v * w.get("scale", 1.0) for v in V["loss"][:rows]]
    finite = [v for v in lv if v == v]
    want = {"rows": rows, "names": sorted(set(w["names"]) - {key}) + [key], "first": finite[0], "last": finite[-1],
            "eval": w.get("eval", 0), "eval_key": w.get("eval_key", "eval/loss"), "key": key,
            "nan": rows - min(nan_from, rows), "rel": w.get("rel", 5e-3)}
    return "\n".join(lines) + "\n", want


def stories(n: int, rnd: random.Random) -> dict[str, dict]:
    """Runs whose verdict does not depend on how they are printed: a healthy one and seven broken ones,
    each a value a step (and an evaluation every `B` steps, as render() prints them)."""
    B = 5 if n <= 40 else 25
    evals = [(k + 1) * B - 1 for k in range(n // B)]
    decay = [2.3 * math.exp(-3 * i / n) + 0.3 + 0.02 * rnd.random() for i in range(n)]
    acc = [min(0.95, 0.1 + 0.8 * (1 - math.exp(-3 * i / n)) + 0.01 * rnd.random()) for i in range(n)]
    lr = [3e-4 * min(1.0, (i + 1) / (n / 5)) for i in range(n)]
    gn = [0.8 + 0.4 * rnd.random() for i in range(n)]
    out = {
        "healthy": {"loss": decay, "accuracy": acc, "learning_rate": lr, "grad_norm": gn,
                    "eval_loss": [decay[i] * 1.05 for i in evals]},
        "nan": {"loss": [v if i < 0.6 * n else float("nan") for i, v in enumerate(decay)], "learning_rate": lr,
                "grad_norm": gn},
        # ln 10 at every step, accuracy at 1/10: a ten-class model that predicts the uniform distribution
        "chance": {"loss": [math.log(10) + 0.002 * (rnd.random() - 0.5) for _ in range(n)],
                   "accuracy": [0.1 + 0.01 * (rnd.random() - 0.5) for _ in range(n)], "learning_rate": lr},
        # falls, then blows up by two orders of magnitude at 70% and stays there
        "diverge": {"loss": [v if i < 0.7 * n else 60 + 20 * rnd.random() for i, v in enumerate(decay)],
                    "learning_rate": lr,
                    "grad_norm": [g if i < 0.7 * n else 800 + 400 * rnd.random() for i, g in enumerate(gn)]},
        # the training loss goes on falling while the evaluation loss turns up after 40% and doubles
        "overfit": {"loss": [2.3 * math.exp(-6 * i / n) + 0.02 + 0.005 * rnd.random() for i in range(n)],
                    "learning_rate": lr,
                    "eval_loss": [(1.0 + 3 * (0.4 - i / n) ** 2 if i / n < 0.4 else 1.0 + 2.5 * (i / n - 0.4))
                                  for i in evals]},
        # a rate far below any recipe's and a loss that does not move
        "tiny_lr": {"loss": [2.3 + 0.003 * (rnd.random() - 0.5) for _ in range(n)],
                    "learning_rate": [1e-9] * n, "grad_norm": gn},
        # every evaluation NaN while training stays finite
        "eval_nan": {"loss": decay, "learning_rate": lr, "eval_loss": [float("nan")] * len(evals)},
        # a loss of exactly 0 from the third log on (a masked-out or detached objective)
        "loss_zero": {"loss": [decay[i] if i < 2 else 0.0 for i in range(n)], "learning_rate": lr,
                      "grad_norm": [g if i < 2 else 0.0 for i, g in enumerate(gn)]},
    }
    return out


def _reference(vals: dict, n: int, every: int, path: Path) -> None:
    """The story as JSON Lines, the way a structured logger writes it: the verdict every print should get."""
    B = 5 if n <= 40 else 25
    rows = []
    for i in range(n):
        row = {"step": (i + 1) * every}
        for m in ("loss", "learning_rate", "grad_norm", "accuracy"):
            if m in vals:
                row[m] = vals[m][i]
        if "eval_loss" in vals and (i + 1) % B == 0 and (i + 1) // B - 1 < len(vals["eval_loss"]):
            row["eval_loss"] = vals["eval_loss"][(i + 1) // B - 1]
        rows.append(json.dumps(row))
    path.write_text("\n".join(rows) + "\n")


def judge_mode(a) -> int:
    """Each story printed in `--n` styles, scanned; the verdict (healthy or not, the first causes)
    compared with the story's own as JSON Lines."""
    from triage import api

    kb = api.load_kb()
    rnd = random.Random(a.seed)
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    shown = 0
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(a.n):
            style = draw(rnd)
            style["steps"] = rnd.choice([40, 150])
            story_name = rnd.choice(sorted(stories(10, random.Random(0))))
            vals = stories(style["steps"], rnd)[story_name]
            metrics = [m for m in ("loss", "learning_rate", "grad_norm", "accuracy") if m in vals]
            style["names"] = {m: style["names"].get(m) or rnd.choice(NAMES[m]) for m in metrics}
            style["noise"] = rnd.choice(["none"] if style["layout"] in FILES else
                                        ["none", "tqdm", "warnings", "blank", "header", "crlf", "extras"])
            if "eval_loss" in vals:
                style["layout"] = rnd.choice(["line", "line", "block", "dict", "json"])
                style["noise"] = rnd.choice(["eval_lines", "tqdm_and_eval"]
                                            + (["eval_inline"] if style["layout"] == "line" else []))
            if style["value"] == "parts":
                style["value"] = "plain"
            if style["layout"] == "keras":  # (a Keras log is judged with Keras's knobs: another verdict by design)
                style["layout"] = "line"
            ref_path, path = Path(tmp) / f"ref{k}.jsonl", Path(tmp) / f"style{k}{suffix(style)}"
            _reference(vals, style["steps"], style["every"], ref_path)
            text, _ = render(style, rnd, vals)
            path = write(style, text, path)
            ref, got = api.public(api.scan(str(ref_path), kb=kb)), api.public(api.scan(str(path), kb=kb))
            rtop = [c["id"] for c in ref.get("causes", [])][:3]
            gtop = [c["id"] for c in got.get("causes", [])][:3]
            same = bool(ref.get("healthy")) == bool(got.get("healthy")) and (
                not rtop or (rtop[0] in gtop and (not gtop or gtop[0] in rtop)))
            per[story_name][0] += same
            per[story_name][1] += 1
            if not same and shown < a.show:
                shown += 1
                head = "\n".join("      " + ln[:150] for ln in text.splitlines()[:3])
                print(f"DIFF {story_name}: reference {'healthy' if ref.get('healthy') else rtop} | printed "
                      f"{'healthy' if got.get('healthy') else gtop}\n   "
                      f"{json.dumps({f: style[f] for f in ('prefix', 'counter', 'layout', 'noise', 'value')})}\n{head}")
    good = sum(v[0] for v in per.values())
    print(f"\n{good}/{a.n} printed runs judged as their JSON Lines twin ({100.0 * good / max(1, a.n):.1f}%)")
    for name, (g, t) in sorted(per.items()):
        print(f"  {name:<8} {g}/{t}")
    return 0


def layouts_mode(a) -> int:
    """`--layouts`: each drawn tool layout read and judged as render()'s styles are; the share per tool."""
    lay = random.Random(f"layouts-{a.seed}")
    per: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    good, records, shown = 0, [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(a.n):
            style = draw_layout(lay, a.tool)
            text, want = render_layout(style)
            p = Path(tmp) / f"layout{k}.log"
            p.write_bytes(text.encode())
            problems = _problems(p, want)
            ok = not problems
            good += ok
            _tally(per, (("tool", style["tool"]), ("noise", style["noise"]), ("prefix", style["prefix"]),
                         ("steps", str(style["steps"]))), ok)
            records.append({"style": style, "ok": ok, "problems": problems})
            if not ok and shown < a.show:
                shown += 1
                head = "\n".join("      " + ln[:170] for ln in text.splitlines()[:4])
                print(f"FAIL {json.dumps(style)}\n   {'; '.join(problems)}\n{head}")
    print(f"\n{good}/{a.n} tool layouts read right ({100.0 * good / a.n:.1f}%)")
    print("per choice (share of its runs read right, weakest first):")
    for (f, v), (g, t) in sorted(per.items(), key=lambda kv: (kv[1][0] / kv[1][1], kv[0])):
        print(f"  {g / t:6.1%}  {g:3d}/{t:<3d}  {f} = {v}")
    if a.json:
        Path(a.json).write_text(json.dumps(records, indent=1))
    return 0



def _tally(per: dict, choices, ok: bool) -> None:
    """One more drawn log for each of its choices, and one more read right if it was."""
    for c in choices:
        per[c][0] += ok
        per[c][1] += 1


def _problems(path: Path, want: dict) -> list[str]:
    """What the reader got wrong in one rendered log (a refusal to read it is one problem)."""
    from triage.ingest import IngestError, read_run

    try:
        return judge(read_run(str(path)), want)
    except IngestError as e:
        return [f"not read: {str(e)[-120:]}"]

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=None, help="styles to draw (default 600; 100 with --judge)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--show", type=int, default=20, help="failing styles to print (default 20)")
    ap.add_argument("--json", help="write one record per style to this file")
    ap.add_argument("--old", action="store_true", help="draw only the first set of choices, as each seed drew them before the second set was added")
    ap.add_argument("--judge", action="store_true",
                    help="print eight runs (healthy, NaN, at chance, diverging, overfitting, a tiny LR, NaN "
                         "evaluations, a zero loss) in drawn styles and "
                         "compare each scan with the same run's as JSON Lines (default --n 100)")
    ap.add_argument("--layouts", action="store_true",
                    help="print runs in whole-line layouts of real tools (mmengine, timm, fairseq, detectron2, "
                         "XGBoost, Keras, ...; a third set, drawn from a stream of its own) instead of composed styles")
    ap.add_argument("--tool", help="with --layouts: only this tool's layout")
    a = ap.parse_args()
    if a.layouts:
        a.n = a.n or 600
        return layouts_mode(a)
    if a.judge:
        a.n = a.n or 100
        return judge_mode(a)
    a.n = a.n or 600

    rnd = random.Random(a.seed)
    ext = random.Random(f"wider-{a.seed}")
    per_choice: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    good, records, shown = 0, [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(a.n):
            style = draw(rnd)
            if not a.old:
                draw_new(style, ext)
            text, want = render_all(style, rnd)
            p = write(style, text, Path(tmp) / f"style{k}{suffix(style)}")
            problems = _problems(p, want)
            ok = not problems
            good += ok
            choices = [(f, str(style[f])) for f in ("prefix", "counter", "sep", "pair", "number", "noise", "every",
                                                     "value", "layout", "container")]
            choices += [(f, style[f]) for f in ("number2", "order", "names2", "pair2", "counter2", "layout2", "noise2")
                        if style.get(f, "-") != "-"]
            choices += [(f"name:{m}", nm) for m, nm in style["names"].items()]
            if want["eval"]:
                choices.append(("eval_name", style["eval_name"]))
            _tally(per_choice, choices, ok)
            records.append({"style": style, "ok": ok, "problems": problems})
            if not ok and shown < a.show:
                shown += 1
                head = "\n".join("      " + ln[:150] for ln in text.splitlines()[:4])
                print(f"FAIL {json.dumps({f: style.get(f) for f in ('prefix', 'counter', 'sep', 'pair', 'number', 'noise', 'value', 'layout', 'number2', 'order', 'names2', 'pair2', 'counter2', 'layout2', 'noise2') if style.get(f, '-') != '-'}, ensure_ascii=False)}"
                      f" names={style['names']}\n   {'; '.join(problems)}\n{head}")
    print(f"\n{good}/{a.n} styles read right ({100.0 * good / a.n:.1f}%)")
    print("weakest choices (share of their styles read right):")
    for (f, v), (g, t) in sorted(per_choice.items(), key=lambda kv: kv[1][0] / kv[1][1])[:25]:
        print(f"  {g / t:6.1%}  {g:3d}/{t:<3d}  {f} = {v}")
    if a.json:
        Path(a.json).write_text(json.dumps(records, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
