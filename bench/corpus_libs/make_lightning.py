"""Runs made with Lightning (`lightning.pytorch`), logged by its CSVLogger or TensorBoardLogger.

CSV runs keep Lightning's `metrics.csv` (and the `hparams.yaml` it writes beside it) flat in the
run folder; TensorBoard runs keep the logger's own tree under `tb/` (`lightning_logs/version_0/`).
Metrics are logged the usual way: `self.log("train_loss", ..., on_step=True, on_epoch=True)`
(hence `train_loss_step` / `train_loss_epoch`), `val_loss`, `val_acc`, and the LR through
`LearningRateMonitor`.
"""

from __future__ import annotations

import contextlib
import io
import logging
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

import make_plain
import synth


class LSTMClassifier(nn.Module):
    def __init__(self, vocab=30, classes=3, d=32, hidden=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn = nn.LSTM(d, hidden, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.rnn(self.emb(x))[0][:, -1])


class AutoEncoder(nn.Module):
    """Conv1d encoder / decoder on 64-sample signals, 8-dim bottleneck."""

    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv1d(1, 16, 5, stride=2, padding=2), nn.ReLU(),
                                 nn.Conv1d(16, 32, 5, stride=2, padding=2), nn.ReLU(), nn.Flatten(),
                                 nn.Linear(32 * 16, 8))
        self.dec = nn.Sequential(nn.Linear(8, 32 * 16), nn.ReLU(), nn.Unflatten(1, (32, 16)),
                                 nn.ConvTranspose1d(32, 16, 4, stride=2, padding=1), nn.ReLU(),
                                 nn.ConvTranspose1d(16, 1, 4, stride=2, padding=1))

    def forward(self, x):
        return self.dec(self.enc(x))


def _module_cls():
    import lightning.pytorch as pl

    class Module(pl.LightningModule):
        """One LightningModule for every run here; the fault switches mirror a user's code."""

        def __init__(self, arch: str, lr: float = 1e-3, optimizer: str = "adam", step_lr_per_batch: bool = False,
                     double_softmax: bool = False, keep_train_mode_in_val: bool = False,
                     manual_no_zero_grad: bool = False, num_classes: int = 4, weight_decay: float = 0.0):
            super().__init__()
            self.save_hyperparameters()
            self.net = {"cnn": lambda: make_plain.CNN(classes=num_classes), "lstm": LSTMClassifier,
                        "mlp": lambda: make_plain.MLP(classes=num_classes, dropout=0.2),
                        "ae": AutoEncoder}[arch]()
            self.is_ae = arch == "ae"
            if manual_no_zero_grad:
                self.automatic_optimization = False

        def _loss(self, batch):
            x, y = batch
            out = self.net(x)
            if self.is_ae:
                return F.mse_loss(out, x), None
            if self.hparams.double_softmax:
                out = F.softmax(out, dim=-1)
            return F.cross_entropy(out, y), (out.argmax(-1) == y).float().mean()

        def training_step(self, batch, batch_idx):
            loss, acc = self._loss(batch)
            if not self.automatic_optimization:  # manual optimisation, zero_grad forgotten
                opt = self.optimizers()
                self.manual_backward(loss)
                opt.step()
            self.log("train_loss", loss, on_step=True, on_epoch=True, prog_bar=True)
            if acc is not None:
                self.log("train_acc", acc, on_step=False, on_epoch=True)
            return loss

        def validation_step(self, batch, batch_idx):
            loss, acc = self._loss(batch)
            self.log("val_loss", loss, prog_bar=True)
            if acc is not None:
                self.log("val_acc", acc)

        def on_validation_model_eval(self):
            if not self.hparams.keep_train_mode_in_val:
                super().on_validation_model_eval()

        def configure_optimizers(self):
            hp = self.hparams
            if hp.optimizer == "sgd":
                opt = torch.optim.SGD(self.parameters(), lr=hp.lr, momentum=0.9, weight_decay=hp.weight_decay)
            else:
                opt = torch.optim.Adam(self.parameters(), lr=hp.lr, weight_decay=hp.weight_decay)
            if hp.step_lr_per_batch:  # StepLR(step_size=5) written for epochs, scheduled per step
                sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
                return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}
            return opt

    return Module


def _data(task: str, rng, n_train: int, batch: int, val_batch: int = 128):
    from torch.utils.data import DataLoader, TensorDataset

    if task == "images":
        x, y = synth.images(rng, n_train)
        xv, yv = synth.images(rng, 400)
    elif task == "tokens":
        x, y = synth.token_seqs(rng, n_train)
        xv, yv = synth.token_seqs(rng, 400)
    elif task == "blobs":
        x, y = synth.blobs(rng, n_train, classes=4)
        xv, yv = synth.blobs(rng, 400, classes=4)
    elif task == "signals":
        x, y = synth.signals(rng, n_train)
        xv, yv = synth.signals(rng, 400)
    else:
        raise ValueError(task)
    g = torch.Generator().manual_seed(int(rng.integers(1 << 30)))
    tr = DataLoader(TensorDataset(torch.from_numpy(x), torch.from_numpy(y)), batch_size=batch, shuffle=True,
                    generator=g, drop_last=True)
    va = DataLoader(TensorDataset(torch.from_numpy(xv), torch.from_numpy(yv)), batch_size=val_batch)
    return tr, va


def fit(out: Path, seed: int, arch: str, task: str, logger: str = "csv", epochs: int = 8, batch: int = 32,
        n_train: int = 2000, val_batch: int = 128, **module_kw) -> None:
    """Train the module with lightning.Trainer on CPU and keep what the logger wrote."""
    import lightning.pytorch as pl
    from lightning.pytorch.callbacks import LearningRateMonitor
    from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger

    for name in ("lightning", "lightning.pytorch", "lightning.fabric"):
        logging.getLogger(name).setLevel(logging.ERROR)
    pl.seed_everything(seed, workers=True, verbose=False)
    rng = np.random.default_rng(seed)
    classes = {"images": 4, "tokens": 3, "blobs": 4, "signals": 3}[task]
    tr, va = _data(task, rng, n_train, batch, val_batch)
    model = _module_cls()(arch=arch, num_classes=classes, **module_kw)
    if logger == "csv":
        log = CSVLogger(save_dir=str(out), name="", version="")
    else:
        log = TensorBoardLogger(save_dir=str(out / "tb"), version=0, default_hp_metric=False)
    trainer = pl.Trainer(max_epochs=epochs, accelerator="cpu", devices=1, logger=log, log_every_n_steps=5,
                         enable_progress_bar=False, enable_model_summary=False, enable_checkpointing=False,
                         callbacks=[LearningRateMonitor(logging_interval="step")], num_sanity_val_steps=0)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        trainer.fit(model, tr, va)


def summary(out: Path) -> str:
    p = out / "metrics.csv"
    if not p.exists():
        return ""
    import csv

    rows = list(csv.DictReader(p.open()))
    vals = [float(r["val_loss"]) for r in rows if r.get("val_loss")]
    tl = [float(r["train_loss_step"]) for r in rows if r.get("train_loss_step")]
    return (f"train_loss_step {tl[0]:.4g} -> {tl[-1]:.4g}; val_loss {vals[0]:.4g} -> {vals[-1]:.4g}"
            if tl and vals else "")
