"""Generate the accuracy-benchmark corpus: really-trained small runs, healthy and with injected faults.

    python bench/corpus/generate.py [--out bench/corpus/runs] [--jobs 2] [--only PATTERN]

Every run trains a small model on CPU with torch on synthetic data made here (no downloads):
an MLP on Gaussian blobs, a small CNN on tiny synthetic images, a box regressor with a
detection-style mAP evaluation, a 2-layer causal transformer on a synthetic token language, a
bandit-style GRPO loop, a DPO-style pairwise loop and a PPO actor-critic on a corridor
environment. Faults are injected into the training code (not into the logged numbers): the log
holds only what such a run would really log, in one of several formats (generic JSONL,
HF `trainer_state.json`, HF Trainer stdout, TensorBoard event files, Lightning `metrics.csv`,
SB3 `progress.csv`). Each run folder gets a `label.json` that the log never sees:

    {"healthy": bool, "causes": [acceptable cause IDs, best first], "fault": "...",
     "format": "...", "model": "..."}

The generator is deterministic: every run is seeded, torch uses one thread per process, and
nothing depends on the wall clock (TensorBoard wall times and file names are fixed).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BASE_TIME = 1_700_000_000.0


# =========================================================================================
# Logging: one in-memory record per run, written out in a chosen format
# =========================================================================================
@dataclass
class Log:
    train: list = field(default_factory=list)  # dicts: step, epoch, metrics (logical names)
    eval: list = field(default_factory=list)
    config: dict = field(default_factory=dict)  # written beside the log where the format has one
    stdout_extra: list = field(default_factory=list)  # (step, text) lines a real stdout would show

    def t(self, step, epoch=None, **m):
        self.train.append({"step": int(step), "epoch": epoch, **m})

    def e(self, step, epoch=None, **m):
        self.eval.append({"step": int(step), "epoch": epoch, **m})


class Window:
    """Aggregates per-step values the way trainers log them: mean loss over the logging window,
    the last grad norm and LR. With `nan_filter` (HF's logging_nan_inf_filter, on by default),
    a non-finite step loss is replaced by the running mean of the window (0 when nothing finite
    came before), exactly as transformers' Trainer does."""

    def __init__(self, nan_filter: bool = False):
        self.nan_filter = nan_filter
        self.losses: list[float] = []

    def add(self, loss: float):
        if self.nan_filter and not math.isfinite(loss):
            loss = (sum(self.losses) / len(self.losses)) if self.losses else 0.0
        self.losses.append(loss)

    def pop(self) -> float:
        v = sum(self.losses) / len(self.losses) if self.losses else float("nan")
        self.losses = []
        return v


def r6(x):
    if x is None:
        return None
    x = float(x)
    if not math.isfinite(x):
        return x
    if x == 0:
        return 0.0
    return float(f"{x:.6g}")


# logical name -> key per format family
HF_KEYS = {"lr": "learning_rate", "eval_accuracy": "eval_accuracy"}
JSONL_KEYS = {
    "loss": "train/loss", "grad_norm": "train/grad_norm", "lr": "train/lr",
    "eval_loss": "val/loss", "eval_accuracy": "val/acc", "eval_f1": "val/f1", "eval_macro_f1": "val/macro_f1", "eval_map": "val/map",
    "eval_map50": "val/map50",
}
TB_KEYS = {
    "loss": "train/loss", "grad_norm": "train/grad_norm", "lr": "train/learning_rate",
    "eval_loss": "eval/loss", "eval_accuracy": "eval/accuracy", "eval_f1": "eval/f1", "eval_macro_f1": "eval/macro_f1", "eval_map": "eval/map",
    "eval_map50": "eval/map50", "loss_scale": "train/loss_scale", "dead_fraction": "train/dead_fraction",
}
PL_KEYS = {
    "loss": "train_loss", "lr": "lr-AdamW", "eval_loss": "val_loss", "eval_accuracy": "val_acc",
    "eval_f1": "val_f1", "eval_macro_f1": "val_macro_f1", "eval_map": "val_map", "eval_map50": "val_map50",
}


def _key(table, name):
    return table.get(name, name)


def _fmt_py(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(r6(v))
    return repr(v)


def write_jsonl(log: Log, d: Path, **_):
    rows = []
    for r in log.train:
        row = {"step": r["step"]}
        if r.get("epoch") is not None:
            row["epoch"] = r6(r["epoch"])
        for k, v in r.items():
            if k not in ("step", "epoch"):
                row[_key(JSONL_KEYS, k)] = r6(v)
        rows.append((r["step"], 0, row))
    for r in log.eval:
        row = {"step": r["step"]}
        for k, v in r.items():
            if k not in ("step", "epoch"):
                row[_key(JSONL_KEYS, k)] = r6(v)
        rows.append((r["step"], 1, row))
    rows.sort(key=lambda t: (t[0], t[1]))
    with open(d / "metrics.jsonl", "w") as fh:
        for _, _, row in rows:
            fh.write(json.dumps(row) + "\n")  # Python writes bare NaN / Infinity, as real loggers do
    if log.config:
        (d / "config.json").write_text(json.dumps(log.config, indent=2) + "\n")


def _hf_rows(log: Log):
    rows = []
    for r in log.train:
        row = {}
        for k, v in r.items():
            if k in ("step", "epoch"):
                continue
            row[_key(HF_KEYS, k)] = r6(v)
        row["epoch"] = r6(r.get("epoch") or 0.0)
        row["step"] = r["step"]
        rows.append((r["step"], 0, row))
    for r in log.eval:
        row = {}
        for k, v in r.items():
            if k in ("step", "epoch"):
                continue
            row[k if k.startswith("eval_") else f"eval_{k}"] = r6(v)
        row["eval_runtime"] = 0.41
        row["eval_samples_per_second"] = 1210.3
        row["eval_steps_per_second"] = 38.1
        row["epoch"] = r6(r.get("epoch") or 0.0)
        row["step"] = r["step"]
        rows.append((r["step"], 1, row))
    rows.sort(key=lambda t: (t[0], t[1]))
    return [row for _, _, row in rows]


def write_hf_state(log: Log, d: Path, logging_steps: int = 1, **_):
    rows = _hf_rows(log)
    last = log.train[-1]["step"] if log.train else 0
    finite = [r["loss"] for r in log.train if "loss" in r and math.isfinite(r["loss"])]
    rows.append({"epoch": r6(log.train[-1].get("epoch") or 0.0), "step": last, "total_flos": 1.0e12,
                 "train_loss": r6(sum(finite) / len(finite)) if finite else 0.0, "train_runtime": 61.2,
                 "train_samples_per_second": 512.0, "train_steps_per_second": 8.0})
    state = {
        "best_metric": None, "best_model_checkpoint": None, "epoch": r6(log.train[-1].get("epoch") or 0.0),
        "eval_steps": log.config.get("eval_steps", 100), "global_step": last, "is_hyper_param_search": False,
        "is_local_process_zero": True, "is_world_process_zero": True, "log_history": rows,
        "logging_steps": logging_steps, "max_steps": last, "num_train_epochs": 1,
        "save_steps": 500, "total_flos": 1.0e12, "train_batch_size": log.config.get("per_device_train_batch_size", 32),
        "trial_name": None, "trial_params": None,
    }
    (d / "trainer_state.json").write_text(json.dumps(state, indent=2) + "\n")
    if log.config:
        (d / "config.json").write_text(json.dumps(log.config, indent=2) + "\n")


def write_hf_stdout(log: Log, d: Path, **_):
    rows = _hf_rows(log)
    total = log.train[-1]["step"] if log.train else 0
    extra = sorted(log.stdout_extra)
    lines = [
        "***** Running training *****",
        "  Num examples = 4,096",
        f"  Total optimization steps = {total:,}",
    ]
    ei = 0
    for row in rows:
        step = row.pop("step")
        while ei < len(extra) and extra[ei][0] <= step:
            lines.append(extra[ei][1])
            ei += 1
        pct = int(100 * step / max(total, 1))
        lines.append(f"{pct:3d}%|{'#' * (pct // 10):<10}| {step}/{total} [00:{step // 60:02d}<00:10, 12.0it/s]")
        lines.append("{" + ", ".join(f"'{k}': {_fmt_py(v)}" for k, v in row.items()) + "}")
    finite = [r["loss"] for r in log.train if "loss" in r and math.isfinite(r["loss"])]
    lines.append(f"{{'train_runtime': 61.2, 'train_samples_per_second': 512.0, 'train_steps_per_second': 8.0, "
                 f"'train_loss': {_fmt_py(sum(finite) / len(finite) if finite else 0.0)}, 'epoch': {_fmt_py(log.train[-1].get('epoch') or 0.0)}}}")
    (d / "train.log").write_text("\n".join(lines) + "\n")
    if log.config:
        (d / "config.json").write_text(json.dumps(log.config, indent=2) + "\n")


def write_tensorboard(log: Log, d: Path, **_):
    import socket
    import unittest.mock as mock

    from torch.utils.tensorboard import SummaryWriter

    tb = d / "tb"
    tb.mkdir(exist_ok=True)
    # fixed wall clock and host name so the bytes are reproducible
    with mock.patch("time.time", return_value=BASE_TIME), mock.patch.object(socket, "gethostname", return_value="corpus"):
        w = SummaryWriter(log_dir=str(tb), flush_secs=3600)
        for r in log.train + log.eval:
            is_eval = r in log.eval
            for k, v in r.items():
                if k in ("step", "epoch") or v is None:
                    continue
                tag = _key(TB_KEYS, k if not is_eval or k.startswith("eval_") else f"eval_{k}")
                if "/" not in tag:
                    tag = ("eval/" + tag[5:]) if tag.startswith("eval_") else f"train/{tag}"
                w.add_scalar(tag, float(v), global_step=r["step"], walltime=BASE_TIME + r["step"] * 0.1)
        w.close()
    for f in tb.iterdir():
        if f.name.startswith("events.out.tfevents"):
            f.rename(tb / "events.out.tfevents.1700000000.corpus.0.0")
    if log.config:
        (d / "config.json").write_text(json.dumps(log.config, indent=2) + "\n")


def write_lightning_csv(log: Log, d: Path, **_):
    import csv

    rows = []
    for r in log.train:
        row = {"epoch": int(r.get("epoch") or 0), "step": r["step"]}
        for k, v in r.items():
            if k not in ("step", "epoch"):
                row[_key(PL_KEYS, k)] = r6(v)
        rows.append((r["step"], 0, row))
    for r in log.eval:
        row = {"epoch": int(r.get("epoch") or 0), "step": r["step"]}
        for k, v in r.items():
            if k not in ("step", "epoch"):
                row[_key(PL_KEYS, k)] = r6(v)
        rows.append((r["step"], 1, row))
    rows.sort(key=lambda t: (t[0], t[1]))
    cols = []
    for _, _, row in rows:
        for k in row:
            if k not in cols:
                cols.append(k)
    cols = ["epoch", "step"] + sorted(c for c in cols if c not in ("epoch", "step"))
    with open(d / "metrics.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for _, _, row in rows:
            w.writerow(["" if row.get(c) is None else row[c] for c in cols])
    if log.config:
        import yaml

        (d / "hparams.yaml").write_text(yaml.safe_dump(log.config, sort_keys=True))


def write_sb3(log: Log, d: Path, **_):
    import csv

    cols = sorted({k for r in log.train for k in r if k not in ("step", "epoch")})
    with open(d / "progress.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(cols)
        for r in log.train:
            w.writerow(["" if r.get(c) is None else r6(r[c]) for c in cols])


WRITERS = {
    "jsonl": write_jsonl, "hf_state": write_hf_state, "hf_stdout": write_hf_stdout,
    "tensorboard": write_tensorboard, "lightning_csv": write_lightning_csv, "sb3_progress": write_sb3,
}


# =========================================================================================
# Shared torch helpers
# =========================================================================================
def torch_setup(seed: int):
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    return torch


def unscale_and_clip(params, scaler, opt, grad_mult: float, clip) -> float:
    """fp16 runs: round gradients through half precision (values past its range overflow to inf,
    as they would on a GPU) and unscale; then the pre-clip grad norm, then clip."""
    import torch

    if scaler is not None:
        with torch.no_grad():
            for p in params:
                if p.grad is not None:
                    p.grad.copy_(p.grad.to(torch.float16).to(torch.float32))
        scaler.unscale_(opt)
        if grad_mult != 1.0:
            for p in params:
                if p.grad is not None:
                    p.grad.div_(grad_mult)
    gn = grad_norm(params)
    if clip:
        torch.nn.utils.clip_grad_norm_(params, clip)
    return gn


def grad_norm(params) -> float:
    import torch

    gs = [p.grad.detach().flatten() for p in params if p.grad is not None]
    if not gs:
        return 0.0
    return float(torch.linalg.vector_norm(torch.cat(gs)))


# =========================================================================================
# 1. Classifiers: MLP on Gaussian blobs, CNN on tiny synthetic images
# =========================================================================================
def make_blobs(rng, n, classes, dim, sep, priors=None, noise=1.0, centers=None):
    if centers is None:
        centers = rng.normal(0, sep, size=(classes, dim))
    p = priors if priors is not None else np.full(classes, 1.0 / classes)
    y = rng.choice(classes, size=n, p=p)
    x = centers[y] + rng.normal(0, noise, size=(n, dim))
    return x.astype(np.float32), y.astype(np.int64), centers


def make_images(rng, n, classes, size, noise, templates=None):
    if templates is None:
        templates = np.zeros((classes, size, size), np.float32)
        for c in range(classes):  # each class: a few bright strokes at fixed places
            for _ in range(3):
                r, q = rng.integers(0, size - 3, 2)
                if rng.random() < 0.5:
                    templates[c, r, q : q + 4] = 1.0
                else:
                    templates[c, r : r + 4, q] = 1.0
    y = rng.integers(0, classes, n)
    shift = rng.integers(-1, 2, size=(n, 2))
    x = np.stack([np.roll(templates[c], tuple(s), axis=(0, 1)) for c, s in zip(y, shift)])
    x = x + rng.normal(0, noise, x.shape).astype(np.float32)
    return x[:, None].astype(np.float32), y.astype(np.int64), templates


def train_classifier(spec: dict) -> Log:
    torch = torch_setup(spec["seed"])
    import torch.nn as nn
    import torch.nn.functional as F

    rng = np.random.default_rng(spec["seed"])
    fault = spec.get("fault")
    kind = spec.get("model", "mlp")
    C = spec.get("classes", 5)
    steps = spec.get("steps", 600)
    bs = spec.get("batch", 64)
    log_every = spec.get("log_every", 5)
    eval_every = spec.get("eval_every", 50)
    n_train = spec.get("n_train", 4000)
    priors = None
    if fault == "V6":
        priors = np.array([0.97, 0.03]) if C == 2 else None
    if kind == "mlp":
        dim = spec.get("dim", 16)
        xtr, ytr, cen = make_blobs(rng, n_train, C, dim, spec.get("sep", 1.2), priors, spec.get("noise", 1.0))
        xva, yva, _ = make_blobs(rng, 1000, C, dim, 0, priors, spec.get("noise", 1.0), centers=cen)
        if spec.get("label_noise"):
            flip = rng.random(len(ytr)) < spec["label_noise"]
            ytr[flip] = rng.integers(0, C, flip.sum())
        if spec.get("input_scale"):
            xtr, xva = xtr * spec["input_scale"] + 3.0, xva * spec["input_scale"] + 3.0
        h = spec.get("hidden", 64)
        layers = [nn.Linear(dim, h)]
        if spec.get("batchnorm"):
            layers.append(nn.BatchNorm1d(h))
        layers += [nn.ReLU()]
        if spec.get("dropout"):
            layers.append(nn.Dropout(spec["dropout"]))
        layers += [nn.Linear(h, h)]
        if spec.get("batchnorm"):
            layers.append(nn.BatchNorm1d(h))
        layers += [nn.ReLU(), nn.Linear(h, C)]
        model = nn.Sequential(*layers)
        if fault == "O25":
            with torch.no_grad():
                for m in model:
                    if isinstance(m, nn.Linear) and m.out_features == h:
                        m.bias.fill_(spec.get("bias_init", -1.0))
    else:
        size = spec.get("size", 12)
        xtr, ytr, tpl = make_images(rng, n_train, C, size, spec.get("noise", 0.6))
        xva, yva, _ = make_images(rng, 800, C, size, spec.get("noise", 0.6), templates=tpl)
        if spec.get("input_scale"):
            xtr, xva = xtr * spec["input_scale"] + 5.0, xva * spec["input_scale"] + 5.0
        ch = spec.get("channels", 8)
        bn = (lambda k: nn.BatchNorm2d(k)) if spec.get("batchnorm") else (lambda k: nn.Identity())
        model = nn.Sequential(
            nn.Conv2d(1, ch, 3, padding=1), bn(ch), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(ch, 2 * ch, 3, padding=1), bn(2 * ch), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(),
            nn.Dropout(spec.get("dropout", 0.0)), nn.Linear(8 * ch, C),
        )
    if fault == "O12":
        model = nn.Sequential(model, nn.Softmax(dim=-1))
    xtr_t, ytr_t = torch.from_numpy(xtr), torch.from_numpy(ytr)
    xva_t, yva_t = torch.from_numpy(xva), torch.from_numpy(yva)

    lr = spec.get("lr", 1e-3)
    opt_name = spec.get("opt", "adam")
    opt_params = model.parameters()
    if fault == "O2":  # the optimizer is built over a copy made before the model was re-created / moved
        opt_params = copy.deepcopy(model).parameters()
    if opt_name == "sgd":
        opt = torch.optim.SGD(opt_params, lr=lr, momentum=spec.get("momentum", 0.9))
    else:
        opt = torch.optim.AdamW(opt_params, lr=lr, weight_decay=spec.get("wd", 0.0))
    steps_per_epoch = max(1, n_train // bs)
    epochs = max(1, math.ceil(steps / steps_per_epoch))
    sched = None
    sched_kind = spec.get("sched", "none")
    if sched_kind == "cosine":
        warm = spec.get("warmup", 0)
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min(1.0, (s + 1) / warm) * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)) if warm
            else 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    elif sched_kind == "step_epoch":  # StepLR meant to be stepped once per epoch
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=spec.get("step_size", 3), gamma=0.1)
    elif sched_kind == "cosine_epochs":  # CosineAnnealingLR(T_max=epochs), meant per epoch
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    per_batch_sched = sched_kind == "cosine" or fault == "O8"

    accum = spec.get("accum", 1)
    scaler = None
    if spec.get("fp16"):
        scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16, growth_interval=spec.get("growth_interval", 200))
    nan_step = spec.get("nan_at")
    spike_steps = set(spec.get("spike_at", []))
    win = Window(nan_filter=spec.get("format") in ("hf_state", "hf_stdout"))
    log = Log()
    log.config = dict(spec.get("config", {}))
    if spec.get("write_classes", True):
        log.config.setdefault("num_classes" if spec.get("format") not in ("hf_state", "hf_stdout") else "num_labels", C)
    if accum > 1:
        log.config["gradient_accumulation_steps"] = accum
    log.config.setdefault("learning_rate", lr)
    log.config.setdefault("per_device_train_batch_size", bs)
    log.config.setdefault("seed", spec["seed"])

    def loss_fn(out, y):
        if fault == "O16":
            return F.nll_loss(out, y)  # fed raw logits
        if fault == "O12":
            return F.cross_entropy(out, y)  # `out` already went through softmax
        return F.cross_entropy(out, y)

    def evaluate():
        model_mode = model.training
        model.eval()
        with torch.no_grad():
            out = model(xva_t)
            el = float(loss_fn(out, yva_t))
            pred = out.argmax(-1)
            acc = float((pred == yva_t).float().mean())
            m = {"eval_loss": el, "eval_accuracy": acc}
            if spec.get("log_f1", True):  # compute_metrics returning accuracy and macro-F1
                f1s = []
                for k in range(C):
                    tp = float(((pred == k) & (yva_t == k)).sum())
                    fp = float(((pred == k) & (yva_t != k)).sum())
                    fn = float(((pred != k) & (yva_t == k)).sum())
                    f1s.append(2 * tp / max(2 * tp + fp + fn, 1.0))
                m["eval_macro_f1"] = sum(f1s) / C
        model.train(model_mode)
        return m

    if fault == "O5":
        model.eval()  # evaluation code left the model in eval mode and training never calls train()
    else:
        model.train()
    gen = torch.Generator().manual_seed(spec["seed"])
    step = 0
    perm = torch.randperm(n_train, generator=gen)
    pos = 0
    grad_mult = spec.get("grad_overflow_mult", 1.0)
    while step < steps:
        micro_losses = []
        if fault != "O4" or spec.get("o4_kind") != "no_zero_grad":
            opt.zero_grad(set_to_none=True)
        for _ in range(accum):
            if pos + bs > n_train:
                perm = torch.randperm(n_train, generator=gen)
                pos = 0
                if sched is not None and not per_batch_sched:
                    sched.step()
            idx = perm[pos : pos + bs]
            pos += bs
            xb, yb = xtr_t[idx].clone(), ytr_t[idx]
            if nan_step is not None and step == nan_step:
                xb[0, ...] = float("inf") if spec.get("nan_kind", "inf") == "inf" else float("nan")
            if step in spike_steps:
                xb = xb * spec.get("spike_scale", 30.0)
            out = model(xb)
            loss = loss_fn(out, yb)
            if accum > 1 and fault != "O9":
                loss_b = loss / accum
            else:
                loss_b = loss
            if scaler is not None:
                scaler.scale(loss_b * grad_mult).backward()
            else:
                loss_b.backward()
            micro_losses.append(float(loss.detach()))
        params = list(model.parameters())
        gn = unscale_and_clip(params, scaler, opt, grad_mult, spec.get("clip"))
        if fault == "O4" and spec.get("o4_kind") == "no_step":
            pass  # optimizer.step() was dropped in a refactor
        elif scaler is not None:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()
        if sched is not None and per_batch_sched:
            sched.step()
        step += 1
        ml = sum(micro_losses) / len(micro_losses)
        win.add(ml)
        if step % log_every == 0:
            row = {"loss": win.pop(), "grad_norm": gn, "lr": opt.param_groups[0]["lr"]}
            if scaler is not None:
                row["loss_scale"] = scaler.get_scale()
            if spec.get("log_dead"):
                with torch.no_grad():
                    a = None
                    if kind == "mlp" and fault != "O12":  # units of the last hidden ReLU layer
                        last = max(i for i, m in enumerate(model) if isinstance(m, nn.ReLU))
                        a = model[: last + 1](xva_t[:512])
                    if a is not None:
                        row["dead_fraction"] = float((a.amax(0) <= 0).float().mean())
            log.t(step, epoch=step / steps_per_epoch, **row)
        if step % eval_every == 0 or step == steps:
            log.e(step, epoch=step / steps_per_epoch, **evaluate())
    return log


# =========================================================================================
# 2. Detection-style box regressor with an mAP evaluation
# =========================================================================================
def _iou_xyxy(a, b):
    x1 = np.maximum(a[:, 0], b[:, 0])
    y1 = np.maximum(a[:, 1], b[:, 1])
    x2 = np.minimum(a[:, 2], b[:, 2])
    y2 = np.minimum(a[:, 3], b[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    aa = np.clip(a[:, 2] - a[:, 0], 0, None) * np.clip(a[:, 3] - a[:, 1], 0, None)
    ab = np.clip(b[:, 2] - b[:, 0], 0, None) * np.clip(b[:, 3] - b[:, 1], 0, None)
    return inter / np.maximum(aa + ab - inter, 1e-9)


def _ap(scores, tp, npos):
    if npos == 0:
        return 0.0
    order = np.argsort(-scores)
    tp = tp[order].astype(float)
    ctp = np.cumsum(tp)
    cfp = np.cumsum(1 - tp)
    rec = ctp / npos
    prec = ctp / np.maximum(ctp + cfp, 1e-9)
    ap = 0.0
    for t in np.linspace(0, 1, 101):  # COCO-style 101-point interpolation
        p = prec[rec >= t]
        ap += (p.max() if len(p) else 0.0) / 101
    return float(ap)


def train_detector(spec: dict) -> Log:
    torch = torch_setup(spec["seed"])
    import torch.nn as nn
    import torch.nn.functional as F

    rng = np.random.default_rng(spec["seed"])
    size, C = 16, spec.get("classes", 3)
    fault = spec.get("fault")

    def make(n):
        imgs = rng.normal(0, 0.3, (n, 1, size, size)).astype(np.float32)
        boxes = np.zeros((n, 4), np.float32)  # cx, cy, w, h normalised
        cls = rng.integers(0, C, n)
        for i in range(n):
            w, h = rng.uniform(0.2, 0.45, 2)
            cx, cy = rng.uniform(w / 2, 1 - w / 2), rng.uniform(h / 2, 1 - h / 2)
            boxes[i] = (cx, cy, w, h)
            x1, x2 = int((cx - w / 2) * size), int(math.ceil((cx + w / 2) * size))
            y1, y2 = int((cy - h / 2) * size), int(math.ceil((cy + h / 2) * size))
            imgs[i, 0, y1:y2, x1:x2] += 0.5 + 0.5 * cls[i]
        return torch.from_numpy(imgs), torch.from_numpy(boxes), torch.from_numpy(cls.astype(np.int64))

    xtr, btr, ctr = make(spec.get("n_train", 3000))
    xva, bva, cva = make(400)
    ch = spec.get("channels", 16)
    model = nn.Sequential(
        nn.Conv2d(1, ch, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Linear(ch * 16, 64), nn.ReLU(), nn.Linear(64, 4 + C),
    )
    opt = torch.optim.AdamW(model.parameters(), lr=spec.get("lr", 2e-3))
    steps, bs = spec.get("steps", 600), 64
    log_every, eval_every = spec.get("log_every", 10), spec.get("eval_every", 100)
    win = Window(nan_filter=spec.get("format") in ("hf_state", "hf_stdout"))
    log = Log()
    log.config = {"num_labels": C, "learning_rate": spec.get("lr", 2e-3), "box_format": "cxcywh", "image_size": size}
    gen = torch.Generator().manual_seed(spec["seed"])

    def cxcywh_to_xyxy(b):
        return np.stack([b[:, 0] - b[:, 2] / 2, b[:, 1] - b[:, 3] / 2, b[:, 0] + b[:, 2] / 2, b[:, 1] + b[:, 3] / 2], 1)

    def evaluate():
        model.eval()
        with torch.no_grad():
            out = model(xva)
            pb = torch.sigmoid(out[:, :4]).numpy()
            prob = F.softmax(out[:, 4:], -1)
            score, pc = prob.max(-1)
            gt = cxcywh_to_xyxy(bva.numpy())
            if fault == "V3" and spec.get("v3_kind") == "xyxy":
                pred = pb  # bug: the evaluator is told the predictions are already x1,y1,x2,y2
            elif fault == "V3":
                pred = cxcywh_to_xyxy(pb) * size  # bug: predictions in pixels, ground truth normalised
            else:
                pred = cxcywh_to_xyxy(pb)
            iou = _iou_xyxy(pred, gt)
            aps, aps50 = [], []
            for c in range(C):
                sel = pc.numpy() == c
                npos = int((cva.numpy() == c).sum())
                correct_cls = cva.numpy()[sel] == c
                ths = np.arange(0.5, 0.96, 0.05)
                per_t = [_ap(score.numpy()[sel], (iou[sel] >= t) & correct_cls, npos) for t in ths]
                aps.append(np.mean(per_t))
                aps50.append(per_t[0])
            vloss = float(F.smooth_l1_loss(torch.sigmoid(out[:, :4]), bva) + F.cross_entropy(out[:, 4:], cva))
        model.train()
        return {"eval_loss": vloss, "eval_map": float(np.mean(aps)), "eval_map50": float(np.mean(aps50))}

    for step in range(1, steps + 1):
        idx = torch.randint(0, len(xtr), (bs,), generator=gen)
        out = model(xtr[idx])
        loss = F.smooth_l1_loss(torch.sigmoid(out[:, :4]), btr[idx]) * 5 + F.cross_entropy(out[:, 4:], ctr[idx])
        opt.zero_grad()
        loss.backward()
        gn = grad_norm(model.parameters())
        opt.step()
        win.add(float(loss))
        if step % log_every == 0:
            log.t(step, epoch=step * bs / len(xtr), loss=win.pop(), grad_norm=gn, lr=opt.param_groups[0]["lr"])
        if step % eval_every == 0:
            log.e(step, epoch=step * bs / len(xtr), **evaluate())
    return log


# =========================================================================================
# 3. Tiny causal LM on a synthetic token language
# =========================================================================================
def make_language(rng, vocab, n, min_len, max_len, pad=0):
    """A sparse Markov chain over tokens 2..vocab-1 (0 = pad, 1 = BOS); sequences of varying length."""
    V = vocab
    trans = np.zeros((V, V))
    for t in range(1, V):
        nxt = rng.choice(np.arange(2, V), size=3, replace=False)
        trans[t, nxt] = rng.dirichlet(np.ones(3) * 2)
    seqs = np.full((n, max_len), pad, np.int64)
    lens = rng.integers(min_len, max_len + 1, n)
    for i in range(n):
        t = 1
        seqs[i, 0] = 1
        for j in range(1, lens[i]):
            t = rng.choice(V, p=trans[t])
            seqs[i, j] = t
    return seqs, lens


def train_lm(spec: dict) -> Log:
    torch = torch_setup(spec["seed"])
    import torch.nn as nn
    import torch.nn.functional as F

    rng = np.random.default_rng(spec["seed"])
    fault = spec.get("fault")
    V, T = spec.get("vocab", 32), spec.get("seq", 24)
    min_len = spec.get("min_len", T)
    seqs, lens = make_language(rng, V, spec.get("n_train", 2000) + 200, min_len, T)
    tr, va = torch.from_numpy(seqs[:-200]), torch.from_numpy(seqs[-200:])
    d = spec.get("d_model", 48)

    class TinyLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, d)
            self.pos = nn.Parameter(torch.randn(T, d) * 0.02)
            layer = nn.TransformerEncoderLayer(d, 4, 2 * d, dropout=spec.get("dropout", 0.0), batch_first=True, norm_first=True)
            self.blocks = nn.TransformerEncoder(layer, spec.get("layers", 2), enable_nested_tensor=False)
            self.norm = nn.LayerNorm(d)
            self.head = nn.Linear(d, V)
            self.register_buffer("mask", torch.triu(torch.full((T, T), float("-inf")), 1))

        def forward(self, x):
            h = self.emb(x) + self.pos[: x.shape[1]]
            h = self.blocks(h, mask=self.mask[: x.shape[1], : x.shape[1]], is_causal=True)
            return self.head(self.norm(h))

    model = TinyLM()
    lr = spec.get("lr", 3e-3)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=spec.get("wd", 0.0))
    steps, bs = spec.get("steps", 400), spec.get("batch", 32)
    warm = spec.get("warmup", 0)
    sched_kind = spec.get("sched", "cosine")
    if sched_kind == "cosine":
        lam = lambda s: (min(1.0, (s + 1) / warm) if warm else 1.0) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    elif sched_kind == "linear":
        lam = lambda s: (min(1.0, (s + 1) / warm) if warm else 1.0) * max(0.0, 1 - s / steps)
    else:
        lam = lambda s: (min(1.0, (s + 1) / warm) if warm else 1.0)
    if fault == "O8":  # a per-epoch schedule (T = number of epochs) stepped on every batch
        ep = max(2, spec.get("epochs", 10))
        lam = lambda s: 0.5 * (1 + math.cos(math.pi * min(s, ep) / ep))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lam)
    accum = spec.get("accum", 1)
    log_every, eval_every = spec.get("log_every", 5), spec.get("eval_every", 50)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16, growth_interval=200) if spec.get("fp16") else None
    grad_mult = spec.get("grad_overflow_mult", 1.0)
    win = Window(nan_filter=spec.get("format") in ("hf_state", "hf_stdout"))
    log = Log()
    log.config = {"vocab_size": V, "n_positions": T, "n_layer": spec.get("layers", 2), "n_embd": d,
                  "learning_rate": lr, "warmup_steps": warm, "lr_scheduler_type": sched_kind if fault != "O8" else "cosine",
                  "per_device_train_batch_size": bs, "seed": spec["seed"]}
    if accum > 1:
        log.config["gradient_accumulation_steps"] = accum
    if spec.get("fp16"):
        log.config["fp16"] = True
    gen = torch.Generator().manual_seed(spec["seed"])
    n_tr = len(tr) if not spec.get("n_unique") else spec["n_unique"]

    def lm_loss(logits, x):
        tgt = x[:, 1:]
        lg = logits[:, :-1]
        if fault in ("O15", "L2"):  # labels = input_ids: padding is scored (no -100 mask)
            return F.cross_entropy(lg.reshape(-1, V), tgt.reshape(-1))
        return F.cross_entropy(lg.reshape(-1, V), tgt.reshape(-1), ignore_index=0)

    def evaluate():
        model.eval()
        with torch.no_grad():
            el = float(lm_loss(model(va), va))
        model.train()
        return {"eval_loss": el}

    nan_step = spec.get("nan_at")
    for step in range(1, steps + 1):
        opt.zero_grad(set_to_none=True)
        losses = []
        for _ in range(accum):
            idx = torch.randint(0, n_tr, (bs,), generator=gen)
            x = tr[idx]
            logits = model(x)
            if nan_step is not None and step >= nan_step and step < nan_step + spec.get("nan_len", 1):
                logits = logits * float("inf") * 0  # a fused kernel returns NaN on a malformed batch
            loss = lm_loss(logits, x)
            lb = loss / accum if (accum > 1 and fault != "O9") else loss
            if scaler is not None:
                scaler.scale(lb * grad_mult).backward()
            else:
                lb.backward()
            losses.append(float(loss))
        params = list(model.parameters())
        gn = unscale_and_clip(params, scaler, opt, grad_mult, spec.get("clip"))
        if scaler is not None:
            scaler.step(opt)
            scaler.update()
        else:
            opt.step()
        sched.step()
        win.add(sum(losses) / len(losses))
        if step % log_every == 0:
            row = {"loss": win.pop(), "grad_norm": gn, "lr": opt.param_groups[0]["lr"]}
            if scaler is not None:
                row["loss_scale"] = scaler.get_scale()
            log.t(step, epoch=step * bs * accum / n_tr, **row)
        if step % eval_every == 0:
            log.e(step, epoch=step * bs * accum / n_tr, **evaluate())
    return log


# =========================================================================================
# 4. GRPO-style loop: a token-level policy samples groups of completions per prompt
# =========================================================================================
def train_grpo(spec: dict) -> Log:
    """Each prompt has a next-token distribution over V tokens plus EOS (position-independent, so
    sampling is cheap); a completion is tokens until EOS or max_len. Rewards are per completion,
    advantages are group-normalised, the loss is the token-level clipped surrogate plus beta x
    the k3 KL to the frozen reference, and the logged kl / entropy are per-token means, as TRL logs them."""
    torch = torch_setup(spec["seed"])

    rng = np.random.default_rng(spec["seed"])
    fault = spec.get("fault")
    P, V, G = spec.get("prompts", 32), spec.get("vocab", 32), spec.get("group", 8)
    max_len = spec.get("max_len", 48)
    EOS = V
    feat = torch.from_numpy(rng.normal(0, 1, (P, 16)).astype(np.float32))
    good = torch.from_numpy(rng.random((P, V)) < spec.get("good_share", 0.25))  # tokens that make an answer right
    need = torch.from_numpy(rng.uniform(0.3, 0.55, P).astype(np.float32))  # per-prompt difficulty
    W = torch.zeros(16, V + 1, requires_grad=True)
    b = torch.zeros(V + 1, requires_grad=True)
    with torch.no_grad():
        W.normal_(0, spec.get("init_std", 0.3))
        b[EOS] = math.log(spec.get("eos_rate", 1 / 16) * V / (1 - spec.get("eos_rate", 1 / 16)))
    ref_W, ref_b = W.detach().clone(), b.detach().clone()
    lr, beta, eps = spec.get("lr", 0.02), spec.get("beta", 0.04), 0.2
    opt = torch.optim.Adam([W, b], lr=lr)
    steps, bp = spec.get("steps", 300), spec.get("batch_prompts", 8)
    log_every = spec.get("log_every", 1)
    log = Log()
    log.config = {"num_generations": G, "beta": beta, "learning_rate": lr, "max_completion_length": max_len,
                  "per_device_train_batch_size": bp * G, "seed": spec["seed"], "epsilon": eps,
                  "temperature": spec.get("temperature", 1.0)}
    gen = torch.Generator().manual_seed(spec["seed"])
    temp = spec.get("temperature", 1.0)

    for step in range(1, steps + 1):
        ps = torch.randint(0, P, (bp,), generator=gen)
        with torch.no_grad():
            probs = torch.softmax((feat[ps] @ W + b) / temp, -1)  # bp x (V+1)
            toks = torch.multinomial(probs.repeat_interleave(G, 0), max_len, replacement=True, generator=gen)
        toks = toks.view(bp, G, max_len)
        is_eos = toks == EOS
        first = torch.where(is_eos.any(-1), is_eos.float().argmax(-1), torch.full((bp, G), max_len))
        length = torch.clamp(first + 1, max=max_len)  # EOS counts as a token
        mask = torch.arange(max_len)[None, None, :] < length[..., None]
        content = mask & ~is_eos
        ngood = (good[ps][:, None, :].expand(bp, G, V).gather(2, toks.clamp(max=V - 1)) & content).sum(-1)
        frac = ngood / content.sum(-1).clamp(min=1)
        finished = first < max_len
        correct = (frac >= need[ps][:, None]) & finished  # a truncated completion has no final answer
        if fault == "S-grpo-reward-zero":
            rewards = torch.zeros(bp, G)  # the answer parser never matches the completion format
        elif fault == "S-reward-std-zero":
            rewards = (need[ps][:, None] < 0.4).float().expand(bp, G).clone()  # scores the prompt, not the completion
        elif fault == "S-completions-clipped" or spec.get("length_bonus"):
            rewards = (frac >= need[ps][:, None]).float() + 0.5 * length.float() / max_len  # length-rewarding judge
        elif spec.get("partial_credit"):  # partial credit: share of the prompt's preferred token
            best = good[ps].float().argmax(-1)
            rewards = ((toks == best[:, None, None]) & content).sum(-1) / content.sum(-1).clamp(min=1)
        else:
            rewards = correct.float() + spec.get("format_reward", 0.0) * finished.float()
        mean, std = rewards.mean(1, keepdim=True), rewards.std(1, keepdim=True)
        adv = ((rewards - mean) / (std + 1e-4))[..., None]
        with torch.no_grad():
            old_lp = torch.log_softmax((feat[ps] @ W + b) / temp, -1)
            ref_lp = torch.log_softmax((feat[ps] @ ref_W + ref_b) / temp, -1)
        clip_hits = []
        m = mask.float()
        for _ in range(spec.get("ppo_epochs", 2)):
            lp_all = torch.log_softmax((feat[ps] @ W + b) / temp, -1)
            lp = lp_all[:, None, :].expand(bp, G, V + 1).gather(2, toks)
            olp = old_lp[:, None, :].expand(bp, G, V + 1).gather(2, toks)
            rlp = ref_lp[:, None, :].expand(bp, G, V + 1).gather(2, toks)
            ratio = torch.exp(lp - olp)
            pg = -torch.min(ratio * adv, torch.clamp(ratio, 1 - eps, 1 + eps) * adv)
            kl_tok = torch.exp(rlp - lp) - (rlp - lp) - 1
            per_tok = pg + beta * kl_tok
            loss = (per_tok * m).sum() / m.sum()
            opt.zero_grad()
            loss.backward()
            gn = float(torch.linalg.vector_norm(torch.cat([W.grad.flatten(), b.grad.flatten()])))
            opt.step()
            hit = ((ratio < 1 - eps) & (adv < 0)) | ((ratio > 1 + eps) & (adv > 0))
            clip_hits.append(float((hit.float() * m).sum() / m.sum()))
        with torch.no_grad():
            pr = torch.softmax((feat[ps] @ W + b) / temp, -1)
            lpr = torch.log(pr + 1e-12)
            ent = float(-(pr * lpr).sum(-1).mean())
            kl = float((pr * (lpr - ref_lp)).sum(-1).mean())
        L = length.float()
        if step % log_every == 0:
            row = {
                "loss": float(loss.detach()), "grad_norm": gn, "learning_rate": lr,
                "reward": float(rewards.mean()), "reward_std": float(std.mean()),
                "frac_reward_zero_std": float((std.squeeze(1) < 1e-6).float().mean()),
                "completions/mean_length": float(L.mean()), "completions/min_length": float(L.min()),
                "completions/max_length": float(L.max()),
                "completions/clipped_ratio": float((~finished).float().mean()),
                "entropy": ent, "clip_ratio/region_mean": float(np.mean(clip_hits)),
            }
            if beta != 0:
                row["kl"] = kl
            log.t(step, epoch=step / steps, **row)
    return log


# =========================================================================================
# 5. DPO-style pairwise preference loop on a token-level policy
# =========================================================================================
def train_dpo(spec: dict) -> Log:
    torch = torch_setup(spec["seed"])
    import torch.nn.functional as F

    rng = np.random.default_rng(spec["seed"])
    fault = spec.get("fault")
    P, V, T = spec.get("prompts", 64), spec.get("vocab", 24), spec.get("resp_len", 16)
    N = spec.get("pairs", 512)
    feat = torch.from_numpy(rng.normal(0, 1, (P, 12)).astype(np.float32))
    util = rng.normal(0, 1, (P, V))  # hidden preference over tokens per prompt
    pp = rng.integers(0, P, N)
    ya = rng.integers(0, V, (N, T))
    yb = rng.integers(0, V, (N, T))
    ua = util[pp[:, None], ya].sum(1)
    ub = util[pp[:, None], yb].sum(1)
    chosen = np.where((ua >= ub)[:, None], ya, yb)
    rejected = np.where((ua >= ub)[:, None], yb, ya)
    if fault == "L9-noisy":  # pairs whose chosen/rejected columns got shuffled when the dataset was built
        swap = rng.random(N) < 0.5
        chosen, rejected = np.where(swap[:, None], rejected, chosen), np.where(swap[:, None], chosen, rejected)
    pp_t, ch_t, rj_t = torch.from_numpy(pp), torch.from_numpy(chosen), torch.from_numpy(rejected)
    W = torch.zeros(12, V, requires_grad=True)
    b = torch.zeros(V, requires_grad=True)
    with torch.no_grad():
        W.normal_(0, 0.1)
        b.normal_(0, 0.5)
    ref_W, ref_b = W.detach().clone(), b.detach().clone()
    lr, beta = spec.get("lr", 0.02), spec.get("beta", 0.1)
    opt = torch.optim.Adam([W, b], lr=lr)
    steps, bs = spec.get("steps", 300), spec.get("batch", 32)
    log_every = spec.get("log_every", 2)
    warm = spec.get("warmup", 20)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, 1 - s / steps) if warm else max(0.0, 1 - s / steps))
    log = Log()
    log.config = {"beta": beta, "learning_rate": lr, "loss_type": "sigmoid", "per_device_train_batch_size": bs,
                  "warmup_steps": warm, "lr_scheduler_type": "linear", "seed": spec["seed"], "max_length": T}
    gen = torch.Generator().manual_seed(spec["seed"])
    win = Window(nan_filter=False)
    acc_w = {"margins": [], "acc": [], "c": [], "r": [], "lc": [], "lr_": []}

    def seq_logp(Wm, bm, p, y):
        lp = torch.log_softmax(feat[p] @ Wm + bm, -1)  # one next-token distribution per prompt
        return lp.gather(1, y).sum(1)

    for step in range(1, steps + 1):
        idx = torch.randint(0, N, (bs,), generator=gen)
        p, c, r = pp_t[idx], ch_t[idx], rj_t[idx]
        lc, lrj = seq_logp(W, b, p, c), seq_logp(W, b, p, r)
        with torch.no_grad():
            rc, rr = seq_logp(ref_W, ref_b, p, c), seq_logp(ref_W, ref_b, p, r)
        cr, rjr = beta * (lc - rc), beta * (lrj - rr)
        loss = -F.logsigmoid(cr - rjr).mean()
        if spec.get("sft_weight"):
            loss = loss + spec["sft_weight"] * (-lc.mean() / T)
        opt.zero_grad()
        loss.backward()
        gn = float(torch.linalg.vector_norm(torch.cat([W.grad.flatten(), b.grad.flatten()])))
        opt.step()
        sched.step()
        win.add(float(loss))
        m = (cr - rjr).detach()
        acc_w["margins"].append(float(m.mean()))
        acc_w["acc"].append(float((m > 0).float().mean()))
        acc_w["c"].append(float(cr.mean()))
        acc_w["r"].append(float(rjr.mean()))
        acc_w["lc"].append(float(lc.mean()))
        acc_w["lr_"].append(float(lrj.mean()))
        if step % log_every == 0:
            log.t(step, epoch=step * bs / N, loss=win.pop(), grad_norm=gn, learning_rate=opt.param_groups[0]["lr"],
                  **{"rewards/chosen": np.mean(acc_w["c"]), "rewards/rejected": np.mean(acc_w["r"]),
                     "rewards/accuracies": np.mean(acc_w["acc"]), "rewards/margins": np.mean(acc_w["margins"]),
                     "logps/chosen": np.mean(acc_w["lc"]), "logps/rejected": np.mean(acc_w["lr_"])})
            for v in acc_w.values():
                v.clear()
    return log


# =========================================================================================
# 6. PPO (SB3-style progress.csv) on a corridor environment
# =========================================================================================
def train_ppo(spec: dict) -> Log:
    torch = torch_setup(spec["seed"])
    import torch.nn as nn

    rng = np.random.default_rng(spec["seed"])
    fault = spec.get("fault")
    Lc, max_t = spec.get("length", 8), 40
    reward_scale = spec.get("reward_scale", 1.0)

    class Env:
        def reset(self):
            self.x, self.t = 0, 0
            return self.obs()

        def obs(self):
            o = np.zeros(Lc + 1, np.float32)
            o[self.x] = 1.0
            return o

        def step(self, a):
            self.t += 1
            self.x = min(Lc, max(0, self.x + (1 if a == 1 else -1)))
            if rng.random() < 0.1:
                self.x = min(Lc, max(0, self.x + rng.choice([-1, 1])))
            done = self.x == Lc or self.t >= max_t
            r = (1.0 if self.x == Lc else -0.02) * reward_scale
            return self.obs(), r, done

    env = Env()
    pi = nn.Sequential(nn.Linear(Lc + 1, 32), nn.Tanh(), nn.Linear(32, 2))
    vf = nn.Sequential(nn.Linear(Lc + 1, 32), nn.Tanh(), nn.Linear(32, 1))
    lr = spec.get("lr", 3e-3)
    opt = torch.optim.Adam(list(pi.parameters()) + list(vf.parameters()), lr=lr)
    n_steps, n_epochs, mb, clip = 256, spec.get("n_epochs", 4), 64, 0.2
    iters = spec.get("iters", 60)
    gamma, lam = 0.99, 0.95
    log = Log()
    o = env.reset()
    ep_r, ep_l, ep_hist_r, ep_hist_l = 0.0, 0, [], []
    n_updates = 0
    for it in range(1, iters + 1):
        obs, acts, rews, dones, vals, logps = [], [], [], [], [], []
        for _ in range(n_steps):
            ot = torch.from_numpy(o)
            with torch.no_grad():
                d = torch.distributions.Categorical(logits=pi(ot))
                a = d.sample()
                v = vf(ot).squeeze()
            o2, r, done = env.step(int(a))
            obs.append(o); acts.append(int(a)); rews.append(r); dones.append(done); vals.append(float(v)); logps.append(float(d.log_prob(a)))
            ep_r += r
            ep_l += 1
            o = o2
            if done:
                ep_hist_r.append(ep_r); ep_hist_l.append(ep_l)
                ep_r, ep_l = 0.0, 0
                o = env.reset()
        with torch.no_grad():
            last_v = float(vf(torch.from_numpy(o)).squeeze())
        adv = np.zeros(n_steps, np.float32)
        g = 0.0
        for t in reversed(range(n_steps)):
            nv = last_v if t == n_steps - 1 else vals[t + 1]
            nonterm = 0.0 if dones[t] else 1.0
            delta = rews[t] + gamma * nv * nonterm - vals[t]
            g = delta + gamma * lam * nonterm * g
            adv[t] = g
        ret = adv + np.array(vals, np.float32)
        O = torch.from_numpy(np.stack(obs)); A = torch.tensor(acts); LP = torch.tensor(logps)
        ADV = torch.from_numpy(adv); RET = torch.from_numpy(ret)
        kls, cfs, pgl, vl, ents = [], [], [], [], []
        for _ in range(n_epochs):
            perm = torch.from_numpy(rng.permutation(n_steps))
            for s in range(0, n_steps, mb):
                i = perm[s : s + mb]
                d = torch.distributions.Categorical(logits=pi(O[i]))
                lp = d.log_prob(A[i])
                ratio = torch.exp(lp - LP[i])
                a_ = ADV[i]
                if fault != "R3":
                    a_ = (a_ - a_.mean()) / (a_.std() + 1e-8)
                pl = -torch.min(ratio * a_, torch.clamp(ratio, 1 - clip, 1 + clip) * a_).mean()
                v = vf(O[i]).squeeze(-1)
                vloss = ((v - RET[i]) ** 2).mean()
                ent = d.entropy().mean()
                loss = pl + 0.5 * vloss - 0.0 * ent
                opt.zero_grad()
                loss.backward()
                if fault != "R3":
                    nn.utils.clip_grad_norm_(list(pi.parameters()) + list(vf.parameters()), 0.5)
                opt.step()
                n_updates += 1
                with torch.no_grad():
                    lr_ = lp - LP[i]
                    kls.append(float(((torch.exp(lr_) - 1) - lr_).mean()))
                    cfs.append(float((torch.abs(ratio - 1) > clip).float().mean()))
                pgl.append(float(pl)); vl.append(float(vloss)); ents.append(float(ent))
        with torch.no_grad():
            vpred = vf(O).squeeze(-1).numpy()
        var_y = float(np.var(ret))
        ev = float("nan") if var_y == 0 else 1 - float(np.var(ret - vpred)) / var_y
        row = {
            "rollout/ep_len_mean": float(np.mean(ep_hist_l[-100:])) if ep_hist_l else None,
            "rollout/ep_rew_mean": float(np.mean(ep_hist_r[-100:])) if ep_hist_r else None,
            "time/fps": 812, "time/iterations": it, "time/time_elapsed": it * 0.3, "time/total_timesteps": it * n_steps,
        }
        if it > 1 or True:
            row.update({
                "train/approx_kl": float(np.mean(kls)), "train/clip_fraction": float(np.mean(cfs)), "train/clip_range": clip,
                "train/entropy_loss": -float(np.mean(ents)), "train/explained_variance": ev, "train/learning_rate": lr,
                "train/loss": float(np.mean(pgl) + 0.5 * np.mean(vl)), "train/n_updates": n_updates,
                "train/policy_gradient_loss": float(np.mean(pgl)), "train/value_loss": float(np.mean(vl)),
            })
        log.t(it * n_steps, **row)
    return log


TRAINERS = {"mlp": train_classifier, "cnn": train_classifier, "det": train_detector, "lm": train_lm,
            "grpo": train_grpo, "dpo": train_dpo, "ppo": train_ppo}


# =========================================================================================
# The corpus: every run's spec
# =========================================================================================
def specs() -> list[dict]:
    S = []
    fmts_sup = ["jsonl", "hf_state", "tensorboard", "lightning_csv", "hf_stdout"]
    fmts_llm = ["hf_state", "hf_stdout", "jsonl", "tensorboard"]

    def add(run_id, model, causes, fault_desc, fmt, **kw):
        S.append({"id": run_id, "model": model, "causes": causes, "desc": fault_desc, "format": fmt, **kw})

    # ---------------- healthy controls ----------------
    for i, (model, kw) in enumerate([
        ("mlp", dict(classes=4, dim=12, lr=1e-3, steps=500)),
        ("mlp", dict(classes=8, dim=24, lr=3e-3, steps=800, sched="cosine", warmup=50, log_every=10)),
        ("mlp", dict(classes=3, dim=8, opt="sgd", lr=0.05, steps=600, log_dead=True)),
        ("mlp", dict(classes=6, dim=16, lr=1e-3, steps=700, fp16=True, batchnorm=True)),
        ("mlp", dict(classes=2, dim=10, lr=2e-3, steps=400, log_every=2)),
        ("mlp", dict(classes=5, dim=20, lr=5e-4, steps=1200, dropout=0.2, sched="cosine", log_every=10, eval_every=100)),
        ("mlp", dict(classes=10, dim=32, opt="sgd", lr=0.1, steps=600, sched="step_epoch", step_size=4, log_dead=True)),
        ("mlp", dict(classes=4, dim=16, lr=1e-3, steps=600, accum=4, log_every=5)),
        ("cnn", dict(classes=4, lr=2e-3, steps=400)),
        ("cnn", dict(classes=6, lr=1e-3, steps=500, batchnorm=True, sched="cosine", warmup=30)),
        ("cnn", dict(classes=3, opt="sgd", lr=0.05, steps=400, channels=6)),
        ("cnn", dict(classes=5, lr=3e-3, steps=450, dropout=0.2, fp16=True)),
        ("cnn", dict(classes=8, lr=1e-3, steps=600, batchnorm=True, sched="cosine_epochs")),
    ]):
        fmt = fmts_sup[i % len(fmts_sup)]
        add(f"healthy-{model}-{i:02d}", model, [], "healthy control", fmt, seed=100 + i, **kw)
    for i, kw in enumerate([
        dict(lr=2e-3, steps=500, channels=16),
        dict(lr=1e-3, steps=700, channels=12, classes=2),
        dict(lr=3e-3, steps=400, channels=16, classes=4),
    ]):
        add(f"healthy-det-{i:02d}", "det", [], "healthy control", ["jsonl", "hf_state", "tensorboard"][i], seed=200 + i, **kw)
    for i, kw in enumerate([
        dict(lr=3e-3, steps=400, warmup=40),
        dict(lr=1e-3, steps=500, warmup=50, sched="linear", seq=20, vocab=24),
        dict(lr=2e-3, steps=350, warmup=30, layers=1, d_model=32),
        dict(lr=3e-3, steps=400, warmup=40, fp16=True, min_len=12),
        dict(lr=5e-3, steps=300, warmup=60, accum=2, clip=1.0),
        dict(lr=1e-3, steps=450, warmup=20, sched="constant", vocab=40),
    ]):
        add(f"healthy-lm-{i:02d}", "lm", [], "healthy control", fmts_llm[i % 4], seed=300 + i, **kw)
    for i, kw in enumerate([
        dict(lr=0.01, beta=0.04, steps=300),
        dict(lr=0.02, beta=0.1, steps=400, vocab=48),
        dict(lr=0.01, beta=0.04, steps=250, group=4, max_len=64),
        dict(lr=0.005, beta=0.0, steps=300, prompts=64, format_reward=0.2),
        dict(lr=0.01, beta=0.04, steps=300, good_share=0.35, temperature=0.9),
    ]):
        add(f"healthy-grpo-{i:02d}", "grpo", [], "healthy control", fmts_llm[i % 4], seed=400 + i, **kw)
    for i, kw in enumerate([
        dict(lr=0.02, beta=0.1, steps=300),
        dict(lr=0.01, beta=0.2, steps=400, vocab=32),
        dict(lr=0.03, beta=0.05, steps=250, resp_len=24),
    ]):
        add(f"healthy-dpo-{i:02d}", "dpo", [], "healthy control", fmts_llm[i % 4], seed=500 + i, **kw)
    for i, kw in enumerate([dict(lr=3e-3, iters=40), dict(lr=1e-3, length=6, iters=50), dict(lr=2e-3, n_epochs=6, iters=40)]):
        add(f"healthy-ppo-{i:02d}", "ppo", [], "healthy control", "sb3_progress", seed=600 + i, **kw)

    # ---------------- faults: supervised ----------------
    add("o2-mlp-a", "mlp", ["O2", "O1"], "optimizer built over a copy of the model's parameters", "jsonl",
        seed=11, fault="O2", classes=5, dim=16, steps=500)
    add("o2-cnn-b", "cnn", ["O2", "O1"], "optimizer built over a copy of the model's parameters", "hf_state",
        seed=12, fault="O2", classes=4, steps=400, log_every=10)
    add("o4-mlp-nozero", "mlp", ["O4"], "optimizer.zero_grad() missing: gradients accumulate", "tensorboard",
        seed=13, fault="O4", o4_kind="no_zero_grad", opt="sgd", lr=0.01, momentum=0.0, classes=4, steps=500)
    add("o4-cnn-nozero", "cnn", ["O4"], "optimizer.zero_grad() missing: gradients accumulate", "jsonl",
        seed=14, fault="O4", o4_kind="no_zero_grad", opt="sgd", lr=0.005, momentum=0.5, classes=5, steps=400)
    add("o4-mlp-nostep", "mlp", ["O4", "O2", "O1"], "optimizer.step() missing", "lightning_csv",
        seed=15, fault="O4", o4_kind="no_step", classes=6, steps=500, sched="cosine")
    add("o5-mlp-evalmode", "mlp", ["O5"], "model left in eval() mode during training (BatchNorm uses init stats, dropout off)",
        "hf_state", seed=16, fault="O5", batchnorm=True, dropout=0.3, input_scale=40.0, classes=5, steps=600)
    add("o5-cnn-evalmode", "cnn", ["O5"], "model left in eval() mode during training", "jsonl",
        seed=17, fault="O5", batchnorm=True, input_scale=25.0, classes=4, steps=500)
    add("o7-mlp-lowlr", "mlp", ["O7", "S-lr-too-low"], "learning rate 1e-6 (1000x too low)", "jsonl",
        seed=18, opt="sgd", lr=2e-4, momentum=0.0, classes=5, steps=800)
    add("o7-cnn-lowlr", "cnn", ["O7", "S-lr-too-low"], "learning rate far too low", "tensorboard",
        seed=19, lr=2e-5, classes=4, steps=500)
    add("o7-lm-lowlr", "lm", ["O7", "S-lr-too-low"], "learning rate far too low", "hf_state",
        seed=20, lr=2e-5, steps=300, warmup=20)
    add("lrhigh-mlp", "mlp", ["S-lr-too-high", "S-spike", "S-grad-explosion", "S-gradnorm-unstable"], "learning rate far too high",
        "hf_stdout", seed=21, opt="sgd", lr=1.5, classes=5, steps=500)
    add("lrhigh-cnn", "cnn", ["S-lr-too-high", "S-spike", "S-grad-explosion", "S-gradnorm-unstable"], "learning rate far too high",
        "lightning_csv", seed=22, lr=0.3, classes=4, steps=400)
    add("lrhigh-lm", "lm", ["S-lr-too-high", "S-spike", "S-warmup-short", "S-grad-explosion", "S-gradnorm-unstable"],
        "learning rate far too high, no warmup", "jsonl", seed=23, lr=0.08, steps=400, warmup=0, sched="constant")
    add("o8-mlp-stepbatch", "mlp", ["O8"], "StepLR(step_size=3 epochs) stepped every batch", "hf_state",
        seed=24, fault="O8", sched="step_epoch", step_size=30, opt="sgd", lr=0.05, classes=5, steps=600)
    add("o8-cnn-cosbatch", "cnn", ["O8"], "CosineAnnealingLR(T_max=epochs) stepped every batch", "jsonl",
        seed=25, fault="O8", sched="cosine_epochs", lr=2e-3, classes=4, steps=500)
    add("o8-lm", "lm", ["O8"], "per-epoch cosine schedule stepped every batch", "tensorboard",
        seed=26, fault="O8", epochs=8, steps=400, lr=3e-3)
    add("o9-mlp-accum", "mlp", ["O9", "S-lr-too-high"], "gradient accumulation x16 without dividing the loss", "hf_state",
        seed=27, fault="O9", accum=16, opt="sgd", lr=0.15, classes=5, steps=200, log_every=2, eval_every=20)
    # SGD at 0.2 trains this CNN well when the loss is divided by 8; undivided, the first updates
    # blow the loss up and the network dies at ln(5)
    add("o9-cnn-accum", "cnn", ["O9", "S-lr-too-high"], "gradient accumulation x8 without dividing the loss", "hf_stdout",
        seed=28, fault="O9", accum=8, opt="sgd", lr=0.2, classes=5, steps=150, batch=32, log_every=2, eval_every=25)
    add("o12-mlp-softmax", "mlp", ["O12"], "softmax before CrossEntropyLoss", "jsonl",
        seed=29, fault="O12", classes=10, dim=24, lr=1e-3, steps=600)
    # long enough for the loss to reach its floor log(1 + 5/e) = 1.04 (the same CNN without the
    # softmax ends near 0.13)
    add("o12-cnn-softmax", "cnn", ["O12"], "softmax before CrossEntropyLoss", "hf_state",
        seed=30, fault="O12", classes=6, lr=1e-2, steps=1500, log_every=10, eval_every=100)
    add("o16-mlp-nll", "mlp", ["O16"], "NLLLoss fed raw logits", "tensorboard",
        seed=31, fault="O16", classes=5, lr=1e-3, steps=500)
    add("o16-cnn-nll", "cnn", ["O16"], "NLLLoss fed raw logits", "lightning_csv",
        seed=32, fault="O16", classes=4, lr=1e-3, steps=400)
    add("o15-lm-pad", "lm", ["O15", "L2"], "pad tokens counted in the loss mean (labels not masked)", "hf_state",
        seed=33, fault="O15", min_len=4, seq=32, steps=400, warmup=30)
    add("o15-lm-pad-b", "lm", ["O15", "L2"], "pad tokens counted in the loss mean (labels not masked)", "jsonl",
        seed=34, fault="O15", min_len=3, seq=28, steps=300, warmup=20, vocab=40)
    add("fp16-mlp-overflow", "mlp", ["S-fp16-overflow", "O24"], "fp16 gradients overflow at every scale; GradScaler collapses",
        "tensorboard", seed=35, fp16=True, grad_overflow_mult=3e7, classes=5, steps=500)
    add("fp16-lm-overflow", "lm", ["S-fp16-overflow", "O24"], "fp16 gradients overflow; loss scale collapses", "jsonl",
        seed=36, fp16=True, grad_overflow_mult=1e8, steps=400, warmup=20)
    add("o25-mlp-deadrelu", "mlp", ["O25"], "dying ReLU: negative bias init and a high SGD LR", "jsonl",
        seed=37, fault="O25", opt="sgd", lr=0.1, momentum=0.9, bias_init=-1.0, log_dead=True, classes=4, steps=600)
    add("o25-mlp-deadrelu-b", "mlp", ["O25"], "dying ReLU: bias init -2", "hf_state",
        seed=38, fault="O25", opt="sgd", lr=0.2, bias_init=-2.0, log_dead=True, classes=6, dim=12, steps=500)
    add("overfit-mlp", "mlp", ["S-overfit"], "tiny noisy training set, large MLP, long training", "hf_state",
        seed=39, n_train=128, hidden=256, label_noise=0.3, classes=4, dim=20, sep=0.8, lr=2e-3, steps=1500, batch=32,
        log_every=10, eval_every=50)
    add("overfit-cnn", "cnn", ["S-overfit"], "tiny training set, many epochs", "tensorboard",
        seed=40, n_train=96, noise=1.2, classes=5, channels=16, lr=3e-3, steps=1200, batch=32, log_every=10, eval_every=60)
    add("overfit-lm", "lm", ["S-overfit"], "tiny corpus memorised", "hf_stdout",
        seed=41, n_unique=24, steps=500, warmup=20, sched="constant", d_model=64, eval_every=25, log_every=10)
    add("nan-mlp-badbatch", "mlp", ["S-bad-batch", "DP-corrupt-samples", "S-nan"], "a corrupt sample (inf) poisons the weights",
        "jsonl", seed=42, nan_at=350, classes=5, steps=600)
    add("nan-cnn-badbatch-hf", "cnn", ["S-bad-batch", "DP-corrupt-samples", "S-nan"], "a corrupt image (NaN pixels); HF NaN filter hides the loss",
        "hf_state", seed=43, nan_at=250, nan_kind="nan", classes=4, steps=450)
    add("nan-lm-badbatch", "lm", ["S-bad-batch", "DP-corrupt-samples", "S-nan", "S-empty-sequence-nan"],
        "a malformed batch makes NaN logits", "tensorboard", seed=44, nan_at=220, steps=400, warmup=30)
    add("spike-mlp-badbatch", "mlp", ["S-bad-batch", "S-spike"], "a few outlier batches (x30 inputs) cause loss spikes",
        "lightning_csv", seed=45, spike_at=[150, 260, 330, 420], spike_scale=40.0, log_every=1, classes=5, steps=500)
    add("v6-mlp-imbalance", "mlp", ["V6"], "97/3 class imbalance: predicts the majority class", "hf_state",
        seed=46, fault="V6", classes=2, sep=0.3, noise=1.5, lr=1e-3, steps=500)
    add("v6-mlp-imbalance-b", "mlp", ["V6"], "97/3 class imbalance", "jsonl",
        seed=47, fault="V6", classes=2, sep=0.25, noise=1.5, dim=8, lr=2e-3, steps=600)
    add("v3-det-xyxy", "det", ["V3", "V4"], "evaluator reads cx,cy,w,h boxes as x1,y1,x2,y2: mAP exactly 0", "hf_state",
        seed=48, fault="V3", v3_kind="xyxy", steps=500)
    add("v3-det-pixels", "det", ["V3", "V4"], "predictions in pixels, ground truth normalised: mAP exactly 0", "jsonl",
        seed=49, fault="V3", v3_kind="pixels", steps=600)

    # ---------------- faults: GRPO ----------------
    add("grpo-reward-std-zero", "grpo", ["S-reward-std-zero", "S-grpo-reward-zero"], "reward scores the prompt, not the completion",
        "hf_state", seed=50, fault="S-reward-std-zero", steps=250)
    add("grpo-reward-std-zero-b", "grpo", ["S-reward-std-zero", "S-grpo-reward-zero"], "reward ignores the completion", "jsonl",
        seed=51, fault="S-reward-std-zero", steps=300, prompts=48)
    add("grpo-reward-zero", "grpo", ["S-grpo-reward-zero", "S-reward-std-zero"], "reward parser never matches: reward always 0",
        "hf_stdout", seed=52, fault="S-grpo-reward-zero", steps=250)
    add("grpo-reward-zero-b", "grpo", ["S-grpo-reward-zero", "S-reward-std-zero"], "reward function returns 0", "tensorboard",
        seed=53, fault="S-grpo-reward-zero", steps=200)
    add("grpo-entropy-collapse", "grpo", ["S-entropy-collapse", "S-reward-std-zero"], "no KL penalty and a high LR: the policy collapses",
        "hf_state", seed=54, lr=0.3, beta=0.0, steps=300)
    add("grpo-entropy-collapse-b", "grpo", ["S-entropy-collapse", "S-reward-std-zero"], "no KL penalty, high LR, low temperature", "jsonl",
        seed=55, lr=0.2, beta=0.0, steps=400, temperature=0.7, prompts=16)
    add("grpo-kl-diverged", "grpo", ["S-kl-diverged", "R2"], "tiny beta and a high LR: KL to the reference runs away", "tensorboard",
        seed=56, lr=0.1, beta=0.001, steps=300)
    add("grpo-kl-diverged-b", "grpo", ["S-kl-diverged", "R2"], "KL runs away", "hf_stdout",
        seed=57, lr=0.08, beta=0.002, steps=400, vocab=48, prompts=48)
    add("grpo-clipped", "grpo", ["S-completions-clipped", "S-length-hacking"], "max_completion_length far too short for a length-rewarding judge",
        "hf_state", seed=58, fault="S-completions-clipped", steps=250, max_len=32, lr=0.05)
    add("grpo-clipped-b", "grpo", ["S-completions-clipped", "S-length-hacking"], "completions truncated", "jsonl",
        seed=59, fault="S-completions-clipped", steps=300, max_len=24, lr=0.03)

    # ---------------- faults: DPO ----------------
    add("dpo-beta-tiny", "dpo", ["L9"], "beta 0.001 and a low LR: margins never grow", "hf_state",
        seed=60, beta=0.001, lr=0.002, steps=300)
    add("dpo-noisy-pairs", "dpo", ["L9", "L8"], "chosen/rejected shuffled when building pairs", "hf_stdout",
        seed=61, fault="L9-noisy", beta=0.1, lr=0.01, steps=300)
    add("dpo-logps-collapse", "dpo", ["L9"], "LR far too high, no SFT term: both log-probs collapse", "jsonl",
        seed=62, fault="L9-noisy", beta=0.02, lr=0.3, steps=300, warmup=0)
    add("dpo-beta-tiny-b", "dpo", ["L9"], "beta too small", "tensorboard", seed=63, beta=0.002, lr=0.001, steps=400, vocab=32)

    # ---------------- faults: PPO ----------------
    add("ppo-kl-blowup", "ppo", ["R2", "R1", "S-lr-too-high"], "LR 0.05 and 30 epochs per rollout: policy updates explode",
        "sb3_progress", seed=64, lr=0.02, n_epochs=20, iters=40)
    add("ppo-kl-blowup-b", "ppo", ["R2", "R1", "S-lr-too-high"], "LR far too high", "sb3_progress", seed=65, lr=0.03, n_epochs=10, length=6, iters=40)
    add("ppo-unnormalised", "ppo", ["R3"], "rewards x1000, advantages not normalised, no grad clipping", "sb3_progress",
        seed=66, fault="R3", reward_scale=1000.0, lr=3e-3, iters=40)
    return S


def run_one(spec: dict, out: Path) -> tuple[str, float]:
    t0 = time.perf_counter()
    trainer = TRAINERS[spec["model"]]
    log = trainer(spec)
    d = out / spec["id"]
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    WRITERS[spec["format"]](log, d, logging_steps=spec.get("log_every", 1))
    label = {
        "healthy": not spec["causes"],
        "causes": spec["causes"],
        "fault": spec["desc"],
        "format": spec["format"],
        "model": spec["model"],
        "seed": spec["seed"],
    }
    (d / "label.json").write_text(json.dumps(label, indent=2) + "\n")
    return spec["id"], time.perf_counter() - t0


def _worker(args):
    spec, out = args
    return run_one(spec, Path(out))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(HERE / "runs"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default=None, help="substring of run IDs to (re)generate")
    args = ap.parse_args(argv)
    out = Path(args.out)
    all_specs = specs()
    chosen = [s for s in all_specs if args.only is None or args.only in s["id"]]
    if args.only is None and out.exists():
        keep = {s["id"] for s in all_specs}
        for d in out.iterdir():
            if d.is_dir() and d.name not in keep:
                shutil.rmtree(d)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    print(f"generating {len(chosen)} runs into {out} with {args.jobs} job(s)", flush=True)
    work = [(s, str(out)) for s in chosen]
    if args.jobs > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(args.jobs) as pool:
            for i, (rid, dt) in enumerate(pool.imap_unordered(_worker, work), 1):
                print(f"[{i:3d}/{len(work)}] {rid:28s} {dt:5.1f}s", flush=True)
    else:
        for i, w in enumerate(work, 1):
            rid, dt = _worker(w)
            print(f"[{i:3d}/{len(work)}] {rid:28s} {dt:5.1f}s", flush=True)
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"done in {time.perf_counter() - t0:.0f}s; corpus {size / 1e6:.2f} MB", flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.exit(main())
