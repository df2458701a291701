"""Lightning 2.x runs: CSVLogger (metrics.csv + hparams.yaml), TensorBoardLogger (tb/), and the printed
progress bar captured from the console."""

from __future__ import annotations

import os
import warnings

import lightning as L
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from lightning.pytorch.callbacks import EarlyStopping, LearningRateMonitor, TQDMProgressBar
from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
from torch.utils.data import DataLoader, TensorDataset

import common as C
from models import CNN, MLP

warnings.filterwarnings("ignore", message=".*does not have many workers.*")


def _dl(X, y, bs, shuffle, seed=0):
    g = torch.Generator()
    g.manual_seed(seed)
    return DataLoader(TensorDataset(torch.as_tensor(X), torch.as_tensor(y)), batch_size=bs, shuffle=shuffle, generator=g)


class LitClassifier(L.LightningModule):
    """A classifier LightningModule: train_loss per step, val_loss / val_acc per epoch."""

    def __init__(self, net: nn.Module, lr: float = 1e-3, weight_decay: float = 0.0, sched: str = "none", monitor: str = "val_loss", **hp):
        super().__init__()
        self.save_hyperparameters(ignore=["net"])
        self.net = net

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        self.log("train_loss", loss, on_step=True, on_epoch=True, prog_bar=True)
        self.log("train_acc", (logits.argmax(1) == y).float().mean(), on_step=False, on_epoch=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("val_loss", F.cross_entropy(logits, y), prog_bar=True)
        self.log("val_acc", (logits.argmax(1) == y).float().mean(), prog_bar=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=self.hparams.weight_decay)
        if self.hparams.sched == "plateau":
            sch = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": sch, "monitor": self.hparams.monitor, "interval": "epoch"}}
        return opt


def _trainer(run_dir, logger, max_epochs, callbacks=(), console=False, **kw):
    callbacks = list(callbacks) + ([TQDMProgressBar(refresh_rate=4)] if console else [])
    return L.Trainer(
        max_epochs=max_epochs, accelerator="cpu", devices=1, logger=logger, callbacks=list(callbacks),
        enable_checkpointing=False, enable_progress_bar=console, enable_model_summary=True, log_every_n_steps=kw.pop("log_every_n_steps", 5),
        default_root_dir=os.getcwd(), num_sanity_val_steps=0 if not console else 2, **kw,
    )


# ------------------------------------------------------------------------------------------------

def lit_csv_earlystop(spec, run_dir):
    """Wide MLP on 300 noisy rows, EarlyStopping(val_loss, patience 5) in a 100-epoch budget."""
    X, y = C.tabular(700, spec["seed"], noise=0.25)
    model = LitClassifier(MLP(12, 256, 4, depth=3), lr=1e-3, max_epochs=100, batch_size=32, train_rows=300)
    logger = CSVLogger(save_dir=run_dir, name="", version="")
    cbs = [EarlyStopping(monitor="val_loss", patience=5, mode="min"), LearningRateMonitor(logging_interval="epoch")]
    tr = _trainer(run_dir, logger, 100, cbs)
    tr.fit(model, _dl(X[:300], y[:300], 32, True, spec["seed"]), _dl(X[300:], y[300:], 400, False))


class ListMLP(nn.Module):
    """An MLP whose hidden layers are built in a loop and kept in a Python list."""

    def __init__(self, d_in=12, hidden=64, d_out=4, depth=2):
        super().__init__()
        self.hidden = []
        d = d_in
        for _ in range(depth):
            self.hidden.append(nn.Linear(d, hidden))
            d = hidden
        self.out = nn.Linear(d, d_out)

    def forward(self, x):
        for layer in self.hidden:
            x = F.relu(layer(x))
        return self.out(x)


def lit_csv_listlayers(spec, run_dir):
    X, y = C.tabular(2500, spec["seed"])
    net = ListMLP(12, 64, 4, depth=2) if spec["kw"].get("list_layers") else MLP(12, 64, 4, depth=2)
    model = LitClassifier(net, lr=2e-3, max_epochs=15, batch_size=64, hidden=64, depth=2)
    logger = CSVLogger(save_dir=run_dir, name="", version="")
    tr = _trainer(run_dir, logger, 15, [LearningRateMonitor(logging_interval="epoch")])
    tr.fit(model, _dl(X[:2000], y[:2000], 64, True, spec["seed"]), _dl(X[2000:], y[2000:], 500, False))


class LitCNN(LitClassifier):
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=self.hparams.weight_decay)
        sch = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=self.hparams.lr, total_steps=self.trainer.estimated_stepping_batches, pct_start=0.2)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sch, "interval": "step"}}


def lit_tb_cnn(spec, run_dir):
    X, y = C.shapes(1500, spec["seed"], noise=0.45)
    model = LitCNN(CNN(4, 16, dropout=0.2), lr=3e-3, weight_decay=0.01, max_epochs=8, batch_size=32, schedule="onecycle")
    logger = TensorBoardLogger(save_dir=run_dir, name="tb", version="")
    tr = _trainer(run_dir, logger, 8, [LearningRateMonitor(logging_interval="step")])
    tr.fit(model, _dl(X[:1200], y[:1200], 32, True, spec["seed"]), _dl(X[1200:], y[1200:], 300, False))


def lit_tb_leak(spec, run_dir):
    """Tabular rows plus one engineered column, 'segment_score', built in the feature pipeline from the label table."""
    X, y = C.tabular(2500, spec["seed"], noise=0.15)
    g = np.random.RandomState(spec["seed"])
    segment_score = (y.astype(np.float32) - 1.5) / 1.2 + 0.05 * g.randn(len(y)).astype(np.float32)
    X = np.concatenate([X, segment_score[:, None]], axis=1)
    model = LitClassifier(MLP(13, 64, 4, depth=2), lr=2e-3, max_epochs=12, batch_size=64, features=13)
    logger = TensorBoardLogger(save_dir=run_dir, name="tb", version="")
    tr = _trainer(run_dir, logger, 12)
    tr.fit(model, _dl(X[:2000], y[:2000], 64, True, spec["seed"]), _dl(X[2000:], y[2000:], 500, False))


class LitDistill(L.LightningModule):
    def __init__(self, student, teacher, T=2.0, lr=2e-3):
        super().__init__()
        self.save_hyperparameters(ignore=["student", "teacher"])
        self.student = student
        self.teacher = teacher.eval()
        for p in self.teacher.parameters():
            p.requires_grad_(False)

    def training_step(self, batch, batch_idx):
        x, _ = batch
        T = self.hparams.T
        with torch.no_grad():
            t_prob = F.softmax(self.teacher(x) / T, dim=1)
        s_prob = F.softmax(self.student(x) / T, dim=1)
        loss = F.kl_div(s_prob, t_prob, reduction="batchmean") * T * T
        self.log("train/kd_loss", loss, on_step=True, on_epoch=False)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        s = self.student(x)
        t = self.teacher(x)
        self.log("val/ce", F.cross_entropy(s, y))
        self.log("val/acc", (s.argmax(1) == y).float().mean())
        self.log("val/agreement", (s.argmax(1) == t.argmax(1)).float().mean())

    def configure_optimizers(self):
        return torch.optim.Adam(self.student.parameters(), lr=self.hparams.lr)


def lit_tb_distill(spec, run_dir):
    """A 128-wide teacher MLP is trained first (plain loop); a 16-wide student is distilled on unlabeled rows."""
    X, y = C.tabular(5000, spec["seed"], noise=0.05)
    teacher = MLP(12, 128, 4, depth=2)
    opt = torch.optim.Adam(teacher.parameters(), lr=2e-3)
    for _ in range(6):
        for xb, yb in _dl(X[:1500], y[:1500], 64, True, spec["seed"]):
            loss = F.cross_entropy(teacher(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
    model = LitDistill(MLP(12, 16, 4, depth=2), teacher, T=2.0, lr=2e-3)
    logger = TensorBoardLogger(save_dir=run_dir, name="tb", version="")
    tr = _trainer(run_dir, logger, 8)
    tr.fit(model, _dl(X[1500:4500], y[1500:4500], 64, True, spec["seed"]), _dl(X[4500:], y[4500:], 500, False))


# ------------------------------------------------------------------------------------------------
# printed progress bar (console captured to train.log)

class ProjectMLP(MLP):
    """The project's MLP with forward shared by training and serving."""

    @torch.no_grad()
    def forward(self, x):
        return self.net(x)


def lit_console_mlp(spec, run_dir):
    kw = spec["kw"]
    X, y = C.tabular(2500, spec["seed"])
    net = ProjectMLP(12, 64, 4, depth=2) if kw.get("serving_forward") else MLP(12, 64, 4, depth=2)
    model = LitClassifier(net, lr=2e-3, sched=kw.get("sched", "none"), monitor=kw.get("monitor", "val_loss"), max_epochs=10, batch_size=64)
    tr = _trainer(run_dir, False, 10, [], console=True)
    tr.fit(model, _dl(X[:2000], y[:2000], 64, True, spec["seed"]), _dl(X[2000:], y[2000:], 250, False))
