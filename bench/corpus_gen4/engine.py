"""Training loops of corpus_gen4: a plain PyTorch loop, a Lightning module, HF Trainer helpers, a GAN loop."""
import json
import math
import os
import shutil

import torch
import torch.nn as nn


def _metrics(kind, out, y, extra=None):
    """Returns (correct_count, abs_err_sum) style sums for one batch."""
    if kind in ("cls", "lm"):
        return (out.argmax(-1) == y).float().sum().item(), y.numel()
    if kind == "bin":
        return ((out.squeeze(-1) > 0).long() == y.long()).float().sum().item(), y.numel()
    if kind == "reg":
        return (out.reshape(-1) - y).abs().sum().item(), y.numel()
    if kind == "ae":
        return (out - y).abs().sum().item(), y.numel()
    raise ValueError(kind)


def fit(model, data, *, logger, epochs, bs, opt, loss_fn, kind, sched=None, sched_every="epoch", clip=None,
        log_every=10, eval_bs=256, train_aug=None, loss_log="mean", val_log="mean", acc_avg="samples",
        reg_fn=None, f1=False, seed=0, extra_step=None):
    """A usual train/eval loop. The keyword arguments are where the runs' bugs are wired in."""
    xtr, ytr, xva, yva = data
    n = len(xtr)
    steps_per_epoch = math.ceil(n / bs)
    logger.meta.update(epochs=epochs, steps_per_epoch=steps_per_epoch, log_every=log_every)
    logger.begin()
    g = torch.Generator().manual_seed(seed)
    step = 0
    hist = []
    for ep in range(1, epochs + 1):
        model.train()
        perm = torch.randperm(n, generator=g)
        run_sum, run_n = 0.0, 0
        tr_correct, tr_count = 0.0, 0
        for i in range(steps_per_epoch):
            idx = perm[i * bs:(i + 1) * bs]
            xb, yb = xtr[idx], ytr[idx]
            if train_aug is not None:
                xb = train_aug(xb, g)
            out = model(xb)
            loss = loss_fn(out, yb)
            if reg_fn is not None:
                loss = loss + reg_fn(model)
            opt.zero_grad()
            loss.backward()
            if clip is not None:
                torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            opt.step()
            if sched is not None and sched_every == "step":
                sched.step()
            step += 1
            li = loss.item()
            run_sum += li
            run_n += 1
            if kind in ("cls", "bin", "lm"):
                c, m = _metrics(kind, out.detach(), yb)
                tr_correct += c
                tr_count += m
            if step % log_every == 0:
                shown = run_sum if loss_log == "running_sum" else li
                logger.step({"step": step, "epoch": ep, "step_in_epoch": i + 1, "loss": shown,
                             "lr": opt.param_groups[0]["lr"]})
        if sched is not None and sched_every == "epoch":
            sched.step()
        train_loss = run_sum if loss_log == "running_sum" else run_sum / run_n
        # ---- eval
        model.eval()
        vl_sum, vl_batches, m_sum, m_n, batch_accs = 0.0, 0, 0.0, 0, []
        tp = fp = fn = 0
        with torch.no_grad():
            for j in range(0, len(xva), eval_bs):
                xb, yb = xva[j:j + eval_bs], yva[j:j + eval_bs]
                out = model(xb)
                vl = loss_fn(out, yb).item()
                vl_sum += vl
                vl_batches += 1
                s, c = _metrics(kind, out, yb)
                m_sum += s
                m_n += c
                batch_accs.append(s / c)
                if f1:
                    pr = out.argmax(-1)
                    tp += ((pr == 1) & (yb == 1)).sum().item()
                    fp += ((pr == 1) & (yb == 0)).sum().item()
                    fn += ((pr == 0) & (yb == 1)).sum().item()
        rec = {"epoch": ep, "step": step, "train_loss": train_loss}
        if kind in ("cls", "bin", "lm") and tr_count:
            rec["train_acc"] = tr_correct / tr_count
        rec["val_loss"] = vl_sum if val_log == "sum" else vl_sum / vl_batches
        if kind in ("cls", "bin", "lm"):
            rec["val_acc"] = (sum(batch_accs) / len(batch_accs)) if acc_avg == "batches" else m_sum / m_n
        else:
            rec["val_mae"] = m_sum / m_n
        if f1:
            rec["val_f1_pos"] = 2 * tp / max(1, 2 * tp + fp + fn)
        rec["lr"] = opt.param_groups[0]["lr"]
        logger.epoch(rec)
        hist.append(rec)
    logger.close()
    return hist


# ----------------------------------------------------------------------------- GAN
def fit_gan(data, *, logger, steps, bs, lr_g, lr_d, seed, log_every=25, zdim=8):
    torch.manual_seed(seed)
    G = nn.Sequential(nn.Linear(zdim, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
    D = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    og = torch.optim.Adam(G.parameters(), lr=lr_g, betas=(0.5, 0.999))
    od = torch.optim.Adam(D.parameters(), lr=lr_d, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()
    logger.meta.update(epochs=1, steps_per_epoch=steps, log_every=log_every)
    logger.begin()
    gen = torch.Generator().manual_seed(seed)
    hist = []
    for it in range(1, steps + 1):
        real = data[torch.randint(0, len(data), (bs,), generator=gen)]
        z = torch.randn(bs, zdim)
        fake = G(z)
        dr, df = D(real), D(fake.detach())
        d_loss = bce(dr, torch.ones_like(dr)) + bce(df, torch.zeros_like(df))
        od.zero_grad()
        d_loss.backward()
        od.step()
        dg = D(fake)
        g_loss = bce(dg, torch.ones_like(dg))
        og.zero_grad()
        g_loss.backward()
        og.step()
        if it % log_every == 0:
            with torch.no_grad():
                s = G(torch.randn(512, zdim))
                # distance of generated points to the ring of radius 2, and angular coverage (of 8 sectors)
                rad = (s.norm(dim=1) - 2).abs().mean().item()
                sect = torch.floor(((torch.atan2(s[:, 1], s[:, 0]) + math.pi) / (2 * math.pi)) * 8).clamp(0, 7)
                cover = len(torch.unique(sect[(s.norm(dim=1) - 2).abs() < 0.5]))
            r = {"step": it, "epoch": 1, "step_in_epoch": it, "loss": g_loss.item(), "lr": lr_g,
                 "d_loss": d_loss.item(), "d_real": torch.sigmoid(dr).mean().item(),
                 "d_fake": torch.sigmoid(df).mean().item(), "ring_err": rad, "modes": cover}
            logger.step(r)
            hist.append(r)
    logger.close()
    return hist


# ----------------------------------------------------------------------------- Lightning
def fit_lightning(run_dir, model, data, *, epochs, bs, kind, loss_fn, make_opt, hparams, train_aug=None,
                  seed=0, log_every=10):
    import lightning as L
    from lightning.pytorch.loggers import CSVLogger
    from torch.utils.data import DataLoader, TensorDataset

    xtr, ytr, xva, yva = data

    class Lit(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = model
            self.save_hyperparameters(hparams)

        def forward(self, x):
            return self.model(x)

        def training_step(self, batch, i):
            x, y = batch
            if train_aug is not None:
                x = train_aug(x, None)
            out = self(x)
            loss = loss_fn(out, y)
            self.log("train_loss", loss, on_step=True, on_epoch=True)
            if kind in ("cls", "bin"):
                c, m = _metrics(kind, out.detach(), y)
                self.log("train_acc", c / m, on_step=False, on_epoch=True)
            return loss

        def validation_step(self, batch, i):
            x, y = batch
            out = self(x)
            self.log("val_loss", loss_fn(out, y), on_epoch=True, prog_bar=False)
            c, m = _metrics(kind, out, y)
            self.log("val_acc" if kind in ("cls", "bin") else "val_mae", c / m, on_epoch=True)

        def configure_optimizers(self):
            return make_opt(self.model)

    L.seed_everything(seed, verbose=False)
    lit = Lit()
    tl = DataLoader(TensorDataset(xtr, ytr), batch_size=bs, shuffle=True)
    vl = DataLoader(TensorDataset(xva, yva), batch_size=256)
    logger = CSVLogger(run_dir, name="lightning_logs", version=0)
    from lightning.pytorch.callbacks import LearningRateMonitor
    tr = L.Trainer(max_epochs=epochs, logger=logger, enable_checkpointing=False, enable_progress_bar=False,
                   enable_model_summary=False, accelerator="cpu", devices=1, log_every_n_steps=log_every,
                   callbacks=[LearningRateMonitor(logging_interval="epoch")])
    tr.fit(lit, tl, vl)
    return logger.log_dir


# ----------------------------------------------------------------------------- HF Trainer
class DictDataset(torch.utils.data.Dataset):
    def __init__(self, **cols):
        self.cols = cols
        self.n = len(next(iter(cols.values())))

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {k: v[i] for k, v in self.cols.items()}


def fit_hf(run_dir, model, train_ds, eval_ds, args_kw, compute_metrics=None, seed=0):
    from transformers import Trainer, TrainingArguments
    out = os.path.join(run_dir, "_hf_out")
    kw = dict(output_dir=out, save_strategy="no", report_to=[], use_cpu=True, seed=seed, disable_tqdm=True,
              dataloader_num_workers=0, logging_steps=10, eval_strategy="steps", eval_steps=50)
    kw.update(args_kw)
    args = TrainingArguments(**kw)
    tr = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                 compute_metrics=compute_metrics)
    tr.train()
    tr.state.save_to_json(os.path.join(run_dir, "trainer_state.json"))
    d = args.to_dict()
    d["output_dir"] = "_hf_out"
    d["logging_dir"] = None
    with open(os.path.join(run_dir, "config.json"), "w") as f:
        json.dump(d, f, indent=2, default=str)
    shutil.rmtree(out, ignore_errors=True)
    return tr.state.log_history


def acc_metric(p):
    import numpy as np
    logits, labels = p.predictions, p.label_ids
    if isinstance(logits, tuple):
        logits = logits[0]
    return {"accuracy": float((np.argmax(logits, -1) == labels).mean())}
