"""Lightning modules logged with CSVLogger, TensorBoardLogger, or the printed progress bar."""

import os

import lightning as L
import numpy as np
import torch
import torch.nn.functional as F
from lightning.pytorch.callbacks import EarlyStopping, LearningRateMonitor
from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
from torch.utils.data import DataLoader, TensorDataset

import common
from fam_torch import CNN, mlp


class Module(L.LightningModule):
    def __init__(self, task="tab", lr=1e-3, sched="none", epochs=10, steps_per_epoch=10, t_max=None, hidden=64,
                 dropout=0.1):
        super().__init__()
        self.save_hyperparameters()
        self.net = CNN() if task == "img" else mlp(16, 4, hidden=hidden, dropout=dropout)

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, i):
        x, y = batch
        out = self(x)
        loss = F.cross_entropy(out.float(), y)
        self.log("train_loss", loss, on_step=True, on_epoch=True, prog_bar=True)
        self.log("train_acc", (out.argmax(1) == y).float().mean(), on_step=False, on_epoch=True)
        return loss

    def validation_step(self, batch, i):
        x, y = batch
        out = self(x)
        self.log("val_loss", F.cross_entropy(out.float(), y), prog_bar=True)
        self.log("val_acc", (out.argmax(1) == y).float().mean(), prog_bar=True)

    def configure_optimizers(self):
        h = self.hparams
        opt = torch.optim.AdamW(self.parameters(), lr=h.lr, weight_decay=0.01)
        if h.sched == "warm_restarts":
            s = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2 * h.steps_per_epoch)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": s, "interval": "step"}}
        if h.sched == "cosine_step":
            # T_max given in epochs, but the scheduler is stepped every batch
            s = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=h.t_max)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": s, "interval": "step"}}
        if h.sched == "onecycle":
            s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=h.lr, epochs=h.epochs,
                                                    steps_per_epoch=h.steps_per_epoch)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": s, "interval": "step"}}
        return opt


def run(spec, out):
    c = spec["cfg"]
    bug = spec.get("bug")
    seed = spec["seed"]
    L.seed_everything(seed)
    common.seed_all(seed)
    if c["task"] == "img":
        x, y = common.shapes(c.get("n", 1400), seed=seed)
    else:
        x, y = common.tabular(c.get("n", 2400), seed=seed, noise=c.get("noise", 0.05))
    nval = len(x) // 5
    xtr, ytr, xva, yva = x[:-nval], y[:-nval], x[-nval:], y[-nval:]
    if bug == "shuffled_labels":
        # labels re-read from a second export whose row order differs
        ytr = np.random.default_rng(seed + 1).permutation(ytr)
    bs = c.get("bs", 64)
    spe = len(xtr) // bs
    if bug == "onecycle_short":
        # steps per epoch computed with floor division, but the loader keeps the last partial batch
        pass
    else:
        spe = -(-len(xtr) // bs)
    tr = DataLoader(TensorDataset(torch.from_numpy(xtr), torch.from_numpy(ytr)), batch_size=bs, shuffle=True)
    va = DataLoader(TensorDataset(torch.from_numpy(xva), torch.from_numpy(yva)), batch_size=256)
    model = Module(task=c["task"], lr=c["lr"], sched=c.get("sched", "none"), epochs=c["epochs"],
                   steps_per_epoch=spe, t_max=c.get("t_max"), hidden=c.get("hidden", 64),
                   dropout=c.get("dropout", 0.1))
    if bug == "pure_bf16":
        model = model.to(torch.bfloat16)
        tr = DataLoader(TensorDataset(torch.from_numpy(xtr).bfloat16(), torch.from_numpy(ytr)), batch_size=bs,
                        shuffle=True)
        va = DataLoader(TensorDataset(torch.from_numpy(xva).bfloat16(), torch.from_numpy(yva)), batch_size=256)
    fmt = spec["format"]
    cbs = []
    if fmt == "lit_csv":
        logger = CSVLogger(out, name="", version="")
    elif fmt == "lit_tb":
        logger = TensorBoardLogger(out, name="tb", version="")
    else:
        logger = False
    if logger:
        cbs.append(LearningRateMonitor(logging_interval="step"))
    if c.get("early_stop"):
        cbs.append(EarlyStopping(monitor="val_loss", patience=c["early_stop"], verbose=True))
    trainer = L.Trainer(max_epochs=c["epochs"], accelerator="cpu", devices=1, logger=logger, callbacks=cbs,
                        enable_checkpointing=False, log_every_n_steps=c.get("log_every", 5),
                        enable_progress_bar=fmt == "lit_printed", enable_model_summary=fmt == "lit_printed",
                        deterministic=True)
    trainer.fit(model, tr, va)
    if fmt == "lit_printed":
        trainer.validate(model, va)
    for d, _, fs in os.walk(out):
        for f in fs:
            if f.startswith("events.out") and os.path.getsize(os.path.join(d, f)) == 0:
                os.remove(os.path.join(d, f))
