"""Runs made with a hand-written PyTorch loop, logged the ways people log such loops:
`torch.utils.tensorboard.SummaryWriter` under several tag conventions, a Keras-style
epoch CSV, and printed lines in everyday styles (pipe-separated, `logging`, the PyTorch
tutorial's `Epoch [1/10], Step [100/600], Loss: ...`, nanoGPT's `iter N: loss ...`).

The faults are written into the loop itself (`Faults`), the way the bug would be written in
a user's script, so the logged numbers are what that bug really produces.
"""

from __future__ import annotations

import csv
import logging
import math
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import synth


# ----------------------------------------------------------------------------- models
class MLP(nn.Module):
    """Two hidden layers; `batchnorm` puts a BatchNorm1d after each linear layer."""

    def __init__(self, d_in=20, classes=5, width=128, dropout=0.0, batchnorm=False):
        super().__init__()
        norm = (lambda: nn.BatchNorm1d(width)) if batchnorm else nn.Identity
        self.body = nn.Sequential(nn.Linear(d_in, width), norm(), nn.ReLU(), nn.Dropout(dropout),
                                  nn.Linear(width, width), norm(), nn.ReLU(), nn.Dropout(dropout))
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        return self.head(self.body(x))


class CNN(nn.Module):
    """Two conv blocks with BatchNorm, global pooling, dropout, linear head (16x16 inputs)."""

    def __init__(self, classes=4, dropout=0.3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(dropout), nn.Linear(32, classes))

    def forward(self, x):
        return self.head(self.features(x))


class Conv1D(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(1, 16, 7, padding=3), nn.BatchNorm1d(16), nn.ReLU(), nn.MaxPool1d(2),
                                 nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(),
                                 nn.Linear(32, classes))

    def forward(self, x):
        return self.net(x)


class TinyTransformer(nn.Module):
    """nn.TransformerEncoder over token ids, mean-pooled, linear head."""

    def __init__(self, vocab=30, classes=3, d=64, length=24):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, length, d))
        layer = nn.TransformerEncoderLayer(d, 4, 128, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        return self.head(self.enc(self.emb(x) + self.pos).mean(1))


class Regressor(nn.Module):
    def __init__(self, d_in=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x):
        return self.net(x)


class CharGRU(nn.Module):
    def __init__(self, vocab, d=64, hidden=128):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn = nn.GRU(d, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x):
        return self.out(self.rnn(self.emb(x))[0])


# ----------------------------------------------------------------------------- data
def make_task(task: str, rng: np.random.Generator, n_train: int, class_weights=None, label_noise: float = 0.08):
    """(x_train, y_train, x_val, y_val, model factory, kind) for a task name."""
    if task == "blobs":
        x, y = synth.blobs(rng, n_train, weights=class_weights, label_noise=label_noise)
        xv, yv = synth.blobs(rng, 600, weights=class_weights, label_noise=label_noise)
        return x, y, xv, yv, MLP, "cls"
    if task == "images":
        x, y = synth.images(rng, n_train)
        xv, yv = synth.images(rng, 400)
        return x, y, xv, yv, CNN, "cls"
    if task == "signals":
        x, y = synth.signals(rng, n_train)
        xv, yv = synth.signals(rng, 400)
        return x, y, xv, yv, Conv1D, "cls"
    if task == "tokens":
        x, y = synth.token_seqs(rng, n_train)
        xv, yv = synth.token_seqs(rng, 400)
        return x, y, xv, yv, TinyTransformer, "cls"
    if task == "regression":
        x, y = synth.regression(rng, n_train)
        xv, yv = synth.regression(rng, 400)
        return x, y, xv, yv, Regressor, "reg"
    if task == "charlm":
        vocab = synth.char_vocab()
        ids = lambda s: [vocab.get(c, 2) for c in s] + [1]  # noqa: E731
        stream = [i for s in synth.sentences(rng, n_train) for i in ids(s)]
        vstream = [i for s in synth.sentences(rng, 300) for i in ids(s)]
        cut = lambda st: np.array(st[: len(st) // 33 * 33], np.int64).reshape(-1, 33)  # noqa: E731
        tr, va = cut(stream), cut(vstream)
        return tr[:, :-1], tr[:, 1:], va[:, :-1], va[:, 1:], (lambda: CharGRU(len(vocab))), "lm"
    raise ValueError(task)


# ----------------------------------------------------------------------------- sinks
class Sink:
    """Where a loop's numbers go. `step` is called every `every` optimizer steps, `epoch`
    after each validation pass."""

    def step(self, step: int, epoch: int, metrics: dict) -> None: ...

    def epoch(self, step: int, epoch: int, epochs: int, metrics: dict) -> None: ...

    def close(self) -> None: ...


class TBSink(Sink):
    """SummaryWriter with a tag convention: `tags` maps our metric names to the run's tag names;
    metrics without a tag are not written (as in a script that logs only some values)."""

    def __init__(self, out: Path, tags: dict[str, str]):
        from torch.utils.tensorboard import SummaryWriter

        self.w = SummaryWriter(log_dir=str(out / "tb"))
        self.tags = tags

    def _write(self, step, metrics):
        for k, v in metrics.items():
            if k in self.tags:
                self.w.add_scalar(self.tags[k], v, step)

    def step(self, step, epoch, metrics):
        self._write(step, metrics)

    def epoch(self, step, epoch, epochs, metrics):
        self._write(step, metrics)

    def close(self):
        self.w.close()


class KerasCSVSink(Sink):
    """The file Keras' CSVLogger writes: one row per epoch (epoch counted from 0, columns sorted),
    loss and accuracy averaged over the epoch's batches."""

    def __init__(self, out: Path):
        self.f = open(out / "training.csv", "w", newline="")
        self.w = csv.writer(self.f)
        self.w.writerow(["epoch", "accuracy", "loss", "val_accuracy", "val_loss"])

    def epoch(self, step, epoch, epochs, m):
        self.w.writerow([epoch - 1, f"{m['train_acc_epoch']:.4f}", f"{m['train_loss_epoch']:.4f}",
                         f"{m.get('val_acc', float('nan')):.4f}", f"{m['val_loss']:.4f}"])

    def close(self):
        self.f.close()


class PrintSink(Sink):
    """Printed progress lines, in one of several everyday styles, saved as train.log."""

    def __init__(self, out: Path, style: str, steps_per_epoch: int, name: str = "trainer"):
        self.style = style
        self.spe = steps_per_epoch
        self.f = open(out / "train.log", "w")
        self.t = time.perf_counter()
        self.log = None
        if style == "logging":  # a private logger (not in logging's registry), named as scripts name theirs
            self.log = logging.Logger(name, logging.INFO)
            h = logging.StreamHandler(self.f)
            h.setFormatter(logging.Formatter("%(asctime)s - %(name)s - %(levelname)s - %(message)s"))
            self.log.addHandler(h)

    def _p(self, line: str) -> None:
        if self.log:
            self.log.info(line)
        else:
            self.f.write(line + "\n")

    def step(self, step, epoch, m):
        loss = m["train_loss"]
        if self.style == "pipe":
            self._p(f"step {step} | loss {loss:.4f} | lr {m['lr']:.2e}" +
                    (f" | grad_norm {m['grad_norm']:.3f}" if "grad_norm" in m else ""))
        elif self.style == "logging":
            acc = f" acc={m['train_acc']:.3f}" if "train_acc" in m else ""
            self._p(f"Epoch {epoch} Step {step}: loss={loss:.4f}{acc} lr={m['lr']:.6f}")
        elif self.style == "tutorial":
            k = (step - 1) % self.spe + 1
            self._p(f"Epoch [{epoch}/{m['epochs']}], Step [{k}/{self.spe}], Loss: {loss:.4f}")
        elif self.style == "nanogpt":
            dt = (time.perf_counter() - self.t) * 1000
            self.t = time.perf_counter()
            self._p(f"iter {step}: loss {loss:.4f}, time {dt:.2f}ms")

    def epoch(self, step, epoch, epochs, m):
        if self.style == "pipe":
            self._p(f"step {step} | val_loss {m['val_loss']:.4f}" +
                    (f" | val_acc {m['val_acc']:.3f}" if "val_acc" in m else ""))
        elif self.style == "logging":
            extra = f", val_acc={m['val_acc']:.4f}" if "val_acc" in m else ""
            self._p(f"Validation after epoch {epoch}: val_loss={m['val_loss']:.4f}{extra}")
        elif self.style == "tutorial":
            if "val_acc" in m:
                self._p(f"Accuracy of the network on the {m['n_val']} validation samples: {100 * m['val_acc']:.2f} %")
        elif self.style == "nanogpt":
            self._p(f"step {step}: train loss {m['train_loss_epoch']:.4f}, val loss {m['val_loss']:.4f}")
        elif self.style == "epoch_summary":
            extra = f" val_acc: {m['val_acc']:.4f}" if "val_acc" in m else ""
            self._p(f"[epoch {epoch}/{epochs}] train_loss: {m['train_loss_epoch']:.4f} "
                    f"val_loss: {m['val_loss']:.4f}{extra}")

    def close(self):
        self.f.close()


# ----------------------------------------------------------------------------- the loop
@dataclass
class Faults:
    """Bugs a hand-written loop can contain. Each is off by default."""
    no_zero_grad: bool = False          # optimizer.zero_grad() never called
    accum_undivided: int = 0            # accumulate this many micro-batches, loss not divided
    loss_sum: bool = False              # reduction='sum' with an LR tuned for 'mean'
    double_softmax: bool = False        # model output passed through softmax before CrossEntropyLoss
    nll_on_logits: bool = False         # nn.NLLLoss fed raw logits
    detached_loss: bool = False         # loss rebuilt from .item() (graph cut), requires_grad forced
    stale_optimizer: bool = False       # optimizer built, then the model re-created
    bad_batch_at: int | None = None     # NaN planted in one sample of this step's batch
    fp16_weights: bool = False          # model.half() trained directly, no master weights
    amp_scaler: bool = False            # autocast fp16 + GradScaler (scale is logged)
    shuffle_off: bool = False           # training set sorted by label, shuffle=False
    sched_per_batch: bool = False       # StepLR meant per epoch, stepped per batch
    eval_in_train_mode: bool = False    # validation without model.eval()
    shuffled_labels: bool = False       # training labels permuted
    labels_one_based: bool = False      # class ids 1..C read from a file, fed to CrossEntropyLoss as-is


def _loader(x, y, batch, shuffle, rng, drop_last=True):
    n = len(x)
    order = rng.permutation(n) if shuffle else np.arange(n)
    for i in range(0, n - batch + 1 if drop_last else n, batch):
        idx = order[i:i + batch]
        yield torch.from_numpy(x[idx]), torch.from_numpy(y[idx])


def train(out: Path, seed: int, task: str, sink: str, *, epochs: int = 8, batch: int = 32, lr: float = 1e-3,
          opt: str = "adam", n_train: int = 2000, tags: dict | None = None, style: str = "pipe", every: int = 5,
          clip: float | None = None, class_weights=None, faults: Faults | None = None, input_scale: float = 1.0,
          target_scale: float = 1.0, model_kw: dict | None = None, log_grad_norm: bool = False,
          write_config: bool = False, label_noise: float = 0.08, drop_last: bool = True) -> dict:
    """Train one model with a plain loop and log it through one sink; returns a small summary.
    A run that raises is kept when it prints (the traceback ends its train.log, as on a terminal)."""
    f = faults or Faults()
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    x, y, xv, yv, factory, kind = make_task(task, rng, n_train, class_weights, label_noise)
    if input_scale != 1.0:
        x, xv = x * input_scale, xv * input_scale
    if target_scale != 1.0:
        y, yv = y * target_scale, yv * target_scale
    if f.shuffled_labels:
        y = rng.permutation(y)
    if f.labels_one_based:
        y, yv = y + 1, yv + 1
    if f.shuffle_off:
        order = np.argsort(y, kind="stable")
        x, y = x[order], y[order]
    model = factory(**(model_kw or {}))
    dtype = torch.float16 if f.fp16_weights else torch.float32
    if f.fp16_weights:
        model = model.half()
    params = model.parameters()
    optim = (torch.optim.SGD(params, lr=lr, momentum=0.9) if opt == "sgd" else
             torch.optim.AdamW(params, lr=lr, weight_decay=0.01) if opt == "adamw" else
             torch.optim.Adam(params, lr=lr))
    if f.stale_optimizer:  # e.g. the model is rebuilt after a config reload; the optimizer keeps the old one
        torch.manual_seed(seed + 1)
        model = factory(**(model_kw or {}))
    sched = torch.optim.lr_scheduler.StepLR(optim, step_size=3, gamma=0.1) if f.sched_per_batch else None
    scaler = torch.amp.GradScaler("cpu") if f.amp_scaler else None
    reduction = "sum" if f.loss_sum else "mean"

    def loss_fn(out, target):
        if kind == "reg":
            return F.mse_loss(out, target, reduction=reduction)
        if kind == "lm":
            return F.cross_entropy(out.reshape(-1, out.shape[-1]), target.reshape(-1), reduction=reduction)
        if f.nll_on_logits:
            return F.nll_loss(out, target, reduction=reduction)
        if f.double_softmax:
            out = F.softmax(out, dim=-1)
        return F.cross_entropy(out, target, reduction=reduction)

    steps_per_epoch = len(x) // batch
    if f.accum_undivided:
        steps_per_epoch //= f.accum_undivided
    if sink == "tb":
        s: Sink = TBSink(out, tags or {"train_loss": "loss"})
    elif sink == "keras":
        s = KerasCSVSink(out)
    else:
        s = PrintSink(out, style, steps_per_epoch)
    if write_config:
        import json

        (out / "config.json").write_text(json.dumps({
            "task": task, "epochs": epochs, "batch_size": batch, "learning_rate": lr, "optimizer": opt,
            "seed": seed, **({"num_classes": int(y.max()) + 1} if kind == "cls" else {}),
            **({"gradient_accumulation_steps": f.accum_undivided} if f.accum_undivided else {})}, indent=1))

    step, micro = 0, 0
    summary = {"first": None, "last": None, "nan": False}
    try:
        for epoch in range(1, epochs + 1):
            model.train()
            epoch_losses, epoch_accs = [], []
            for xb, yb in _loader(x, y, batch, not f.shuffle_off, rng, drop_last):
                if f.bad_batch_at is not None and step == f.bad_batch_at:
                    xb = xb.clone()
                    xb[0].fill_(float("nan"))
                xb = xb.to(dtype) if xb.is_floating_point() else xb
                yb = yb.to(dtype) if yb.is_floating_point() else yb
                if scaler is not None:
                    with torch.autocast("cpu", dtype=torch.float16):
                        pred = model(xb)
                        loss = loss_fn(pred, yb)
                else:
                    pred = model(xb)
                    loss = loss_fn(pred, yb)
                if f.detached_loss:
                    loss = torch.tensor(loss.item(), requires_grad=True)
                acc = float((pred.detach().argmax(-1) == yb).float().mean()) if kind == "cls" else None
                (scaler.scale(loss) if scaler is not None else loss).backward()
                micro += 1
                if f.accum_undivided and micro % f.accum_undivided:
                    continue
                if scaler is not None:
                    scaler.unscale_(optim)
                gn = float(nn.utils.clip_grad_norm_(model.parameters(), clip if clip else float("inf")))
                if scaler is not None:
                    scaler.step(optim)
                    scaler.update()
                else:
                    optim.step()
                if not f.no_zero_grad:
                    optim.zero_grad(set_to_none=True)
                if sched is not None:
                    sched.step()
                step += 1
                lv = loss.item()
                epoch_losses.append(lv)
                if acc is not None:
                    epoch_accs.append(acc)
                summary["first"] = lv if summary["first"] is None else summary["first"]
                summary["last"] = lv
                summary["nan"] |= not math.isfinite(lv)
                if step % every == 0:
                    m = {"train_loss": lv, "lr": optim.param_groups[0]["lr"], "epochs": epochs}
                    if acc is not None:
                        m["train_acc"] = acc
                    if log_grad_norm:
                        m["grad_norm"] = gn
                    if scaler is not None:
                        m["grad_scale"] = scaler.get_scale()
                    s.step(step, epoch, m)
            vm = _validate(model, xv, yv, kind, loss_fn, dtype, f.eval_in_train_mode)
            vm["train_loss_epoch"] = float(np.mean(epoch_losses)) if epoch_losses else float("nan")
            vm["train_acc_epoch"] = float(np.mean(epoch_accs)) if epoch_accs else float("nan")
            vm["n_val"] = len(xv)
            s.epoch(step, epoch, epochs, vm)
            summary["val_loss"] = vm["val_loss"]
            summary["val_acc"] = vm.get("val_acc")
    except Exception:  # noqa: BLE001 - a crashing script: keep what it printed, then the traceback
        if not isinstance(s, PrintSink):
            raise
        s.f.flush()
        s.f.write(traceback.format_exc())
        summary["crashed"] = traceback.format_exc().strip().splitlines()[-1]
    s.close()
    return summary


def _validate(model, xv, yv, kind, loss_fn, dtype, train_mode):
    """Mean validation loss (and accuracy); eval() unless the fault keeps train mode."""
    model.train(train_mode)
    losses, correct = [], 0
    bs = 16 if train_mode else 200
    with torch.no_grad():
        for i in range(0, len(xv), bs):
            xb = torch.from_numpy(xv[i:i + bs])
            yb = torch.from_numpy(yv[i:i + bs])
            xb = xb.to(dtype) if xb.is_floating_point() else xb
            yb = yb.to(dtype) if yb.is_floating_point() else yb
            out = model(xb)
            loss = float(loss_fn(out, yb))
            losses.append(loss)
            if kind == "cls":
                correct += int((out.argmax(-1) == yb).sum())
    m = {"val_loss": float(np.mean(losses))}
    if kind == "cls":
        m["val_acc"] = correct / len(xv)
    return m
