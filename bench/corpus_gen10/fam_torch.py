"""Plain PyTorch loops: SummaryWriter scalars under several tag conventions, and printed logs in everyday styles."""

import json
import logging
import math
import os
import resource
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import common


class Log:
    """Writes train/eval scalars either to TensorBoard (tags from a map) or to stdout in one printed style."""

    def __init__(self, out, style, tags=None, epochs=0, steps_per_epoch=0):
        self.style, self.tags, self.epochs, self.spe = style, tags or {}, epochs, steps_per_epoch
        self.t0 = time.time()
        self.last = time.time()
        if style == "tb":
            from torch.utils.tensorboard import SummaryWriter
            self.w = SummaryWriter(os.path.join(out, "tb"))
        if style == "logging":
            logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                                format="%(asctime)s - %(name)s - %(levelname)s - %(message)s")
            self.lg = logging.getLogger("train.loop")
            self.lg.info("starting training: %d epochs, %d steps/epoch", epochs, steps_per_epoch)
        self.bar = None

    def step(self, step, epoch, it, d):
        now = time.time()
        ms = (now - self.last) * 1000
        self.last = now
        s = self.style
        if s == "tb":
            for k, v in d.items():
                if k in self.tags:
                    self.w.add_scalar(self.tags[k], v, step)
        elif s == "pipe":
            print(f"epoch {epoch:02d} | step {step:5d} | loss {d['loss']:.4f} | lr {d.get('lr', 0):.2e} | "
                  f"{ms:6.1f} ms/step", flush=True)
        elif s == "logging":
            extra = " ".join(f"{k}={v:.4g}" for k, v in d.items() if k != "loss")
            self.lg.info("step %d (epoch %d) loss=%.4f %s", step, epoch, d["loss"], extra)
        elif s == "epochbatch":
            acc = f" Acc: {100 * d['acc']:.2f}%" if "acc" in d else ""
            print(f"Epoch [{epoch}/{self.epochs}] Batch [{it}/{self.spe}] Loss: {d['loss']:.4f}{acc} "
                  f"Time: {ms / 1000:.3f}s", flush=True)
        elif s == "dict":
            print({"epoch": epoch, "step": step, **{k: round(float(v), 5) for k, v in d.items()}}, flush=True)
        elif s == "ansi":
            print(f"\x1b[36m[train]\x1b[0m ep={epoch} it={step} loss=\x1b[1m{d['loss']:.4f}\x1b[0m "
                  f"lr={d.get('lr', 0):.3e} {1000 * 64 / max(ms, 1e-3):.0f} samples/s", flush=True)

    def epoch_end(self, epoch, d, step=None):
        s = self.style
        if s == "tb":
            for k, v in d.items():
                if k in self.tags:
                    self.w.add_scalar(self.tags[k], v, step if step is not None else epoch)
        elif s == "pipe":
            print(f"epoch {epoch:02d} | eval | " + " | ".join(f"{k} {v:.4f}" for k, v in d.items()), flush=True)
        elif s == "logging":
            self.lg.info("Epoch %d/%d - " % (epoch, self.epochs) +
                         " - ".join(f"{k}: {v:.4f}" for k, v in d.items()))
        elif s == "epochbatch":
            print(f"==> Epoch [{epoch}/{self.epochs}] " + ", ".join(f"{k}: {v:.4f}" for k, v in d.items()),
                  flush=True)
        elif s == "dict":
            print({"epoch": epoch, **{k: round(float(v), 5) for k, v in d.items()}}, flush=True)
        elif s == "ansi":
            print(f"\x1b[32m[eval]\x1b[0m  ep={epoch} " + " ".join(f"{k}={v:.4f}" for k, v in d.items()),
                  flush=True)
        elif s == "keraslike":
            el = time.time() - self.t0
            self.t0 = time.time()
            print(f"Epoch {epoch}/{self.epochs}")
            print(f"{self.spe}/{self.spe} - {el:.0f}s - {1000 * el / max(self.spe, 1):.0f}ms/step - " +
                  " - ".join(f"{k}: {v:.4f}" for k, v in d.items()), flush=True)

    def close(self):
        if self.style == "tb":
            self.w.close()


def mlp(d_in, k, hidden=64, depth=2, dropout=0.0, bn=False):
    layers, d = [], d_in
    for _ in range(depth):
        layers += [nn.Linear(d, hidden)]
        if bn:
            layers += [nn.BatchNorm1d(hidden)]
        layers += [nn.ReLU()]
        if dropout:
            layers += [nn.Dropout(dropout)]
        d = hidden
    layers += [nn.Linear(d, k)]
    return nn.Sequential(*layers)


class CNN(nn.Module):
    def __init__(self, k=4):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                               nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                               nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(32, k))

    def forward(self, x):
        return self.head(self.f(x))


class SeqNet(nn.Module):
    """GRU/LSTM classifier over (B, T, C) inputs."""

    def __init__(self, c=3, k=3, hidden=48, cell="lstm"):
        super().__init__()
        self.rnn = (nn.LSTM if cell == "lstm" else nn.GRU)(c, hidden, batch_first=True)
        self.head = nn.Linear(hidden, k)

    def forward(self, x):
        h, _ = self.rnn(x)
        return self.head(h[:, -1])


def batches(x, y, bs, shuffle, g):
    idx = g.permutation(len(x)) if shuffle else np.arange(len(x))
    for i in range(0, len(x), bs):
        j = idx[i:i + bs]
        yield x[j], y[j]


def run(spec, out):
    """One plain-PyTorch run driven by spec['cfg'] (task, model, optimizer, log style, bug switches)."""
    c = spec["cfg"]
    bug = spec.get("bug")
    seed = spec["seed"]
    common.seed_all(seed)
    g = np.random.default_rng(seed)
    task = c["task"]
    if task == "tab":
        x, y = common.tabular(c.get("n", 2400), seed=seed, noise=c.get("noise", 0.05))
        model = mlp(16, 4, hidden=c.get("hidden", 64), depth=c.get("depth", 2), dropout=c.get("dropout", 0.0),
                    bn=c.get("bn", False))
    elif task == "img":
        x, y = common.shapes(c.get("n", 1600), seed=seed)
        model = CNN()
    elif task == "seq":
        x, y = common.signals(c.get("n", 1500), seed=seed)
        model = SeqNet(cell=c.get("cell", "lstm"))
    elif task == "reg":
        x, y = common.regression(c.get("n", 2400), seed=seed, scale=c.get("yscale", 1.0))
        model = mlp(8, 1, hidden=c.get("hidden", 64), depth=c.get("depth", 3))
    nval = c.get("nval", len(x) // 5)
    xtr, ytr, xva, yva = x[:-nval], y[:-nval], x[-nval:], y[-nval:]
    if task == "seq":
        # stored channel-first (B, C, T) as it came from the signal files; the RNN wants (B, T, C)
        xtr, xva = torch.from_numpy(xtr), torch.from_numpy(xva)
        if bug == "view_not_transpose":
            xtr = xtr.reshape(len(xtr), xtr.shape[2], xtr.shape[1])
            xva = xva.reshape(len(xva), xva.shape[2], xva.shape[1])
        else:
            xtr, xva = xtr.transpose(1, 2).contiguous(), xva.transpose(1, 2).contiguous()
        xtr, xva = xtr.numpy(), xva.numpy()
    if bug == "val_float64":
        # validation features re-read through pandas/numpy default dtype
        xva = xva.astype(np.float64)
    bs = c.get("bs", 64)
    epochs = c["epochs"]
    spe = math.ceil(len(xtr) / bs)
    lr = c["lr"]
    if c.get("opt", "adamw") == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=c.get("momentum", 0.9))
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=c.get("wd", 0.01))
    sched = None
    total = epochs * spe
    warm = c.get("warmup", 0)
    if c.get("sched") == "warmcos":
        def f(s):
            if s < warm:
                return (s + 1) / warm
            return 0.5 * (1 + math.cos(math.pi * (s - warm) / max(1, total - warm)))
        sched = torch.optim.lr_scheduler.LambdaLR(opt, f)
    elif c.get("sched") == "warm_uncapped":
        # linear warmup written as a lambda; the cap at 1.0 is missing
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: (s + 1) / warm)
    amp = c.get("amp", False)
    scaler = torch.amp.GradScaler("cpu", init_scale=c.get("init_scale", 2.0 ** 16)) if amp else None
    with open(os.path.join(out, c.get("cfg_name", "config.json")), "w") as fh:
        json.dump({k: v for k, v in c.items() if k not in ("tags",)}, fh, indent=1)
    log = Log(out, c["style"], c.get("tags"), epochs, spe)
    is_reg = task == "reg"
    crit = nn.MSELoss() if is_reg else nn.CrossEntropyLoss()
    step = 0
    running = 0.0
    leak = []
    pbar_mod = None
    if c["style"] == "tqdm":
        from tqdm import tqdm as pbar_mod
    model.train()
    for ep in range(1, epochs + 1):
        if bug != "train_mode_once":
            model.train()
        it_src = batches(xtr, ytr, bs, True, g)
        if pbar_mod:
            it_src = pbar_mod(it_src, total=spe, desc=f"Epoch {ep}/{epochs}", file=sys.stdout, ncols=110,
                              mininterval=0, miniters=max(1, spe // 8))
        tot, n = 0.0, 0
        for it, (xb, yb) in enumerate(it_src, 1):
            xb, yb = torch.from_numpy(xb), torch.from_numpy(yb)
            if bug != "no_zero_grad":
                opt.zero_grad()
            if amp:
                with torch.autocast("cpu", dtype=torch.float16):
                    outp = model(xb)
                    loss = crit(outp.float().squeeze(-1) if is_reg else outp.float(), yb)
            else:
                outp = model(xb)
                if is_reg:
                    pred = outp if bug == "mse_broadcast" else outp.squeeze(-1)
                    loss = crit(pred, yb)
                elif bug == "weighted_none" and ep >= 3:
                    # from epoch 3 the rare classes are up-weighted per sample
                    wts = torch.tensor([1.0, 1.0, 1.5, 2.0])[yb]
                    loss = F.cross_entropy(outp, yb, reduction="none") * wts
                else:
                    loss = crit(outp, yb)
            if amp:
                scaler.scale(loss).backward()
                if bug == "scaler_no_step":
                    opt.step()  # scaler.step/update dropped: the step uses the still-scaled gradients
                else:
                    scaler.step(opt)
                    scaler.update()
            else:
                loss.backward()
                if c.get("clip"):
                    torch.nn.utils.clip_grad_norm_(model.parameters(), c["clip"])
                opt.step()
            if sched:
                sched.step()
            step += 1
            if bug == "leak_graph":
                running = running + loss
                leak.append(outp)
            else:
                running += loss.item()
            tot += loss.item() * len(xb)
            n += len(xb)
            d = {"loss": loss.item(), "lr": opt.param_groups[0]["lr"]}
            if not is_reg:
                d["acc"] = (outp.argmax(1) == yb).float().mean().item()
            if amp:
                d["scale"] = scaler.get_scale()
            if bug == "leak_graph" or c.get("mem"):
                d["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            if pbar_mod:
                if it % max(1, spe // 8) == 0:
                    it_src.set_postfix(loss=f"{loss.item():.4f}", acc=f"{d.get('acc', 0):.3f}",
                                       lr=f"{d['lr']:.1e}")
            elif step % c.get("log_every", 10) == 0:
                log.step(step, ep, it, d)
        # evaluation
        if ep % c.get("eval_every", 1):
            continue
        model.eval()
        vt, vc, vn = 0.0, 0, 0
        ctx = torch.enable_grad() if bug == "val_trains" else torch.no_grad()
        with ctx:
            for xb, yb in batches(xva, yva, c.get("val_bs", 128), False, g):
                xb, yb = torch.from_numpy(xb), torch.from_numpy(yb)
                if bug == "hard_view":
                    xb = xb.view(bs, *xb.shape[1:])
                outp = model(xb)
                if is_reg:
                    pred = outp if bug == "mse_broadcast" else outp.squeeze(-1)
                    vl = crit(pred, yb)
                else:
                    vl = crit(outp, yb)
                    vc += (outp.argmax(1) == yb).sum().item()
                if bug == "val_trains":
                    # copy of the train step left in the validation loop
                    opt.zero_grad()
                    vl.backward()
                    opt.step()
                vt += vl.item() * len(xb)
                vn += len(xb)
        ed = {"train_loss": tot / n, "val_loss": vt / vn}
        if not is_reg:
            ed["val_acc"] = vc / vn
        if bug == "leak_graph" or c.get("mem"):
            ed["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if pbar_mod:
            print(f"Epoch {ep}: train_loss={ed['train_loss']:.4f} val_loss={ed['val_loss']:.4f}"
                  + (f" val_acc={ed['val_acc']:.4f}" if "val_acc" in ed else ""), flush=True)
        else:
            log.epoch_end(ep, ed, step)
    log.close()
