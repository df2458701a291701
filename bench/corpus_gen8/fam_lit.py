"""Lightning runs: CSVLogger (metrics.csv + hparams.yaml in the run folder) or TensorBoardLogger (tb/ folder).

Models: a small CNN on drawn shapes, MLPs on tabular data, a GRU on word-level reviews."""

from __future__ import annotations

import copy
import os
import warnings

import lightning as L
import numpy as np
import torch
import torch.nn.functional as F
from common import FILLER, NEG, POS, reviews, set_seed, shapes, split, tabular_cls
from lightning.pytorch.callbacks import EarlyStopping, LearningRateMonitor
from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
from torch import nn
from torch.utils.data import ConcatDataset, DataLoader, TensorDataset

warnings.filterwarnings("ignore", ".*does not have many workers.*")


def _cnn(k: int = 4):
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(32, k))


def _mlp(d: int, k: int, width: int = 64, dropout: float = 0.0):
    return nn.Sequential(nn.Linear(d, width), nn.ReLU(), nn.Dropout(dropout), nn.Linear(width, width), nn.ReLU(),
                         nn.Dropout(dropout), nn.Linear(width, k))


class GRUCls(nn.Module):
    def __init__(self, vocab: int, dim: int = 32):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.gru = nn.GRU(dim, dim, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * dim, 2)

    def forward(self, x):
        h, _ = self.gru(self.emb(x))
        mask = (x != 0).unsqueeze(-1).float()
        return self.head((h * mask).sum(1) / mask.sum(1).clamp(min=1))


class LitCls(L.LightningModule):
    def __init__(self, net: nn.Module, lr: float = 1e-3, opt: str = "adamw", weight_decay: float = 0.01, scheduler: str = "none",
                 total_steps: int = 0, warmup_steps: int = 0, loss: str = "cross_entropy", num_outputs: int = 4, ema_decay: float = 0.0, **hp):
        super().__init__()
        self.save_hyperparameters(ignore=["net"])
        self.net = net
        self.ema = copy.deepcopy(net) if ema_decay else None
        if self.ema is not None:
            for p in self.ema.parameters():
                p.requires_grad_(False)

    def forward(self, x):
        return self.net(x)

    def _loss(self, logits, y):
        if self.hparams.num_outputs == 1:
            # binary head with one output, written with the multi-class loss and float targets
            return F.cross_entropy(logits, y.float().unsqueeze(1))
        return F.cross_entropy(logits, y)

    def _acc(self, logits, y):
        if logits.shape[-1] == 1:
            return ((logits.squeeze(1) > 0).long() == y).float().mean()
        return (logits.argmax(-1) == y).float().mean()

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = self._loss(logits, y)
        self.log("train_loss", loss, on_step=True, on_epoch=True, prog_bar=True)
        self.log("train_acc", self._acc(logits, y), on_step=False, on_epoch=True)
        return loss

    def on_train_batch_end(self, outputs, batch, batch_idx):
        if self.ema is not None:
            d = self.hparams.ema_decay
            with torch.no_grad():
                for pe, p in zip(self.ema.parameters(), self.net.parameters()):
                    pe.mul_(d).add_(p.detach(), alpha=1 - d)
                for be, b in zip(self.ema.buffers(), self.net.buffers()):
                    be.copy_(b)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        net = self.ema if self.ema is not None else self.net  # evaluate (and later export) the EMA weights
        logits = net(x)
        self.log("val_loss", self._loss(logits, y), prog_bar=True)
        self.log("val_acc", self._acc(logits, y), prog_bar=True)

    def configure_optimizers(self):
        hp = self.hparams
        if hp.opt == "sgd":
            opt = torch.optim.SGD(self.parameters(), lr=hp.lr, momentum=0.9, weight_decay=hp.weight_decay)
        else:
            opt = torch.optim.AdamW(self.parameters(), lr=hp.lr, weight_decay=hp.weight_decay)
        if hp.scheduler == "onecycle":
            s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=hp.lr, total_steps=hp.total_steps)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": s, "interval": "step"}}
        if hp.scheduler == "linear_warmup":
            # a per-step linear warmup (LambdaLR over optimizer steps) handed to Lightning without
            # "interval": "step" (the bug): Lightning steps it once per epoch
            w = hp.warmup_steps
            s = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / w))
            return {"optimizer": opt, "lr_scheduler": s}
        return opt


def _loaders(Xtr, ytr, Xva, yva, bs: int, extra_train=None, val_bs: int = 256):
    tr = TensorDataset(torch.as_tensor(Xtr), torch.as_tensor(ytr))
    va = TensorDataset(torch.as_tensor(Xva), torch.as_tensor(yva))
    if extra_train is not None:
        tr = ConcatDataset([tr, extra_train(va)])
    g = torch.Generator().manual_seed(0)
    return DataLoader(tr, batch_size=bs, shuffle=True, generator=g), DataLoader(va, batch_size=val_bs)


def _same(ds):
    return ds


def _word_ids(texts, max_len: int = 20):
    vocab = {"<pad>": 0, "<unk>": 1}
    for w in FILLER + POS + NEG + ["not"]:
        vocab.setdefault(w, len(vocab))
    X = np.zeros((len(texts), max_len), np.int64)
    for i, t in enumerate(texts):
        ids = [vocab.get(w, 1) for w in t.split()][:max_len]
        X[i, :len(ids)] = ids
    return X, len(vocab)


def lit_run(spec: dict, out: str) -> None:
    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    L.seed_everything(seed, verbose=False)
    task = kw.get("task", "tabular")
    bs = kw.get("bs", 32)
    extra = None
    if task == "shapes":
        X, y = shapes(kw.get("n", 640) + kw.get("n_val", 200), seed, noise=kw.get("noise", 0.25))
        Xtr, ytr, Xva, yva = split(X, y, kw.get("n_val", 200))
        net = _cnn()
    elif task == "reviews":
        texts, labels = reviews(kw.get("n", 900) + 200, seed)
        X, vocab = _word_ids(texts)
        Xtr, ytr, Xva, yva = split(X, np.array(labels, np.int64), 200)
        net = GRUCls(vocab)
    else:
        k = kw.get("k", 4)
        X, y = tabular_cls(kw.get("n", 800) + kw.get("n_val", 300), seed, d=12, k=k, label_noise=kw.get("label_noise", 0.05))
        Xtr, ytr, Xva, yva = split(X, y, kw.get("n_val", 300))
        net = _mlp(12, 1 if kw.get("single_logit_ce") else k, width=kw.get("width", 64), dropout=kw.get("dropout", 0.0))
        if kw.get("leak_val"):
            # "use all labelled rows for the final model": the validation rows are appended to training
            extra = _same
    train_dl, val_dl = _loaders(Xtr, ytr, Xva, yva, bs, extra_train=extra)
    epochs = kw.get("epochs", 10)
    steps_per_epoch = len(train_dl)
    model = LitCls(net, lr=kw.get("lr", 1e-3), opt=kw.get("opt", "adamw"), weight_decay=kw.get("wd", 0.01), scheduler=kw.get("sched", "none"),
                   total_steps=epochs * steps_per_epoch, warmup_steps=kw.get("warmup_steps", 0), num_outputs=1 if kw.get("single_logit_ce") else (2 if task == "reviews" else kw.get("k", 4)),
                   ema_decay=kw.get("ema_decay", 0.0), task=task, batch_size=bs, max_epochs=epochs, seed=seed)
    if spec["format"] == "lightning_csv":
        logger = CSVLogger(save_dir=out, name="", version="", flush_logs_every_n_steps=50)
    else:
        logger = TensorBoardLogger(save_dir=out, name="tb", version="", default_hp_metric=False)
    callbacks = [LearningRateMonitor(logging_interval="step")]
    if kw.get("early_stop"):
        callbacks.append(EarlyStopping(monitor="val_loss", patience=kw["early_stop"], mode="min"))
    trainer = L.Trainer(max_epochs=epochs, logger=logger, callbacks=callbacks, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, accelerator="cpu", devices=1,
                        log_every_n_steps=kw.get("log_every", 5), val_check_interval=kw.get("val_check_interval"),
                        num_sanity_val_steps=0, default_root_dir=os.getcwd(), deterministic=False)
    trainer.fit(model, train_dl, val_dl)
    if kw.get("early_stop"):
        print(f"stopped at epoch {trainer.current_epoch}", flush=True)


RUNNERS = {"lit": lit_run}
