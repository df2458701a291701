"""Plain PyTorch training scripts: TensorBoard SummaryWriter runs and printed-log runs.

Each function is one training script. `kw` holds the switches a spec sets; a bug is written the way it would
appear in a real script (no comment in the code path names it).
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

import common as C
from models import CNN, MLP, CharLM, GRUClassifier, cosine_warmup, n_params


def _loader(X, y, bs, shuffle, seed, drop_last=False):
    g = torch.Generator()
    g.manual_seed(seed)
    return DataLoader(TensorDataset(torch.as_tensor(X), torch.as_tensor(y)), batch_size=bs, shuffle=shuffle, generator=g, drop_last=drop_last)


@torch.no_grad()
def _evaluate(model, loader, loss_fn=F.cross_entropy):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    for xb, yb in loader:
        out = model(xb)
        tot += float(loss_fn(out, yb, reduction="sum"))
        correct += int((out.argmax(1) == yb).sum())
        n += len(yb)
    model.train()
    return tot / n, correct / n


def _writer(run_dir):
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(log_dir=os.path.join(run_dir, "tb"))


# ================================================================================================
# TensorBoard runs
# ================================================================================================

def tb_amp_mlp(spec, run_dir):
    """MLP on tabular rows with fp16 autocast + GradScaler (init_scale 2**24)."""
    kw = spec["kw"]
    X, y = C.tabular(2500, spec["seed"])
    tr, va = _loader(X[:2000], y[:2000], 64, True, spec["seed"]), _loader(X[2000:], y[2000:], 256, False, 0)
    model = MLP(12, 128, 4, depth=3)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 24)

    def train_step(xb, yb):
        sc = torch.amp.GradScaler("cpu", init_scale=2.0 ** 24) if kw.get("scaler_per_step") else scaler
        with torch.autocast("cpu", dtype=torch.float16):
            loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad(set_to_none=True)
        sc.scale(loss).backward()
        sc.step(opt)
        sc.update()
        return loss, sc.get_scale()

    epochs = 12
    cfg = dict(model="mlp", hidden=128, depth=3, optimizer="AdamW", lr=1e-3, weight_decay=0.01, batch_size=64, epochs=epochs,
               amp=True, amp_dtype="float16", grad_scaler_init_scale=2 ** 24, seed=spec["seed"])
    C.write_json(os.path.join(run_dir, "config.json"), cfg)
    scale_tag, acc_tag = kw.get("scale_tag", "amp/scale"), kw.get("acc_tag", "val/acc")
    w = _writer(run_dir)
    step = 0
    for _epoch in range(epochs):
        for xb, yb in tr:
            loss, scale = train_step(xb, yb)
            step += 1
            if step % 5 == 0:
                w.add_scalar("train/loss", loss.item(), step)
                w.add_scalar("train/lr", opt.param_groups[0]["lr"], step)
                w.add_scalar(scale_tag, scale, step)
        vl, vacc = _evaluate(model, va)
        w.add_scalar("val/loss", vl, step)
        w.add_scalar(acc_tag, vacc, step)
    w.close()


def tb_cnn(spec, run_dir):
    """CNN+BN on drawn shapes. kw: noisy_val (32 val images every 10 steps), step_outside (optimizer.step() after the batch loop)."""
    kw = spec["kw"]
    X, y = C.shapes(1400, spec["seed"])
    nval = 32 if kw.get("noisy_val") else 300
    tr = _loader(X[:1100], y[:1100], 32, True, spec["seed"])
    va = _loader(X[1100:1100 + nval], y[1100:1100 + nval], 64, False, 0)
    model = CNN(4, 16)
    lr = 1e-3
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    epochs = kw.get("epochs", 8)
    C.write_json(os.path.join(run_dir, "config.json"), dict(arch="cnn3-bn", width=16, optimizer="Adam", lr=lr, batch_size=32, epochs=epochs,
                                                            train_images=1100, val_images=nval, seed=spec["seed"]))
    w = _writer(run_dir)
    step = 0
    for epoch in range(epochs):
        model.train()
        tl, tc, tn = 0.0, 0, 0
        for xb, yb in tr:
            opt.zero_grad()
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            loss.backward()
            if not kw.get("step_outside"):
                opt.step()
            step += 1
            tl += loss.item() * len(yb)
            tc += int((out.argmax(1) == yb).sum())
            tn += len(yb)
            if kw.get("noisy_val"):
                w.add_scalar("Loss/train", loss.item(), step)
                if step % 10 == 0:
                    vl, vacc = _evaluate(model, va)
                    w.add_scalar("Loss/val", vl, step)
                    w.add_scalar("Accuracy/val", vacc, step)
        if kw.get("step_outside"):
            opt.step()
        if not kw.get("noisy_val"):
            vl, vacc = _evaluate(model, va)
            w.add_scalar("Loss/train", tl / tn, epoch)
            w.add_scalar("Accuracy/train", tc / tn, epoch)
            w.add_scalar("Loss/val", vl, epoch)
            w.add_scalar("Accuracy/val", vacc, epoch)
    w.close()


def tb_gru(spec, run_dir):
    """GRU classifier on noisy sinusoids (frequency = class), Adam 3e-3, clip 1.0; tags loss / val_loss / val_acc."""
    X, y = C.sinusoid_classes(1200, spec["seed"])
    tr, va = _loader(X[:1000], y[:1000], 32, True, spec["seed"]), _loader(X[1000:], y[1000:], 200, False, 0)
    model = GRUClassifier(1, 48, 4)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    epochs = 10
    C.write_yaml(os.path.join(run_dir, "hparams.yaml"), dict(model=dict(type="gru", hidden=48), optim=dict(name="adam", lr=3e-3, clip_grad_norm=1.0),
                                                             data=dict(seq_len=40, train=1000, val=200, batch_size=32), epochs=epochs, seed=spec["seed"]))
    w = _writer(run_dir)
    step = 0
    for _epoch in range(epochs):
        for xb, yb in tr:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            if step % 4 == 0:
                w.add_scalar("loss", loss.item(), step)
        vl, vacc = _evaluate(model, va)
        w.add_scalar("val_loss", vl, step)
        w.add_scalar("val_acc", vacc, step)
    w.close()


def tb_deep_init(spec, run_dir):
    """Deep ReLU MLP whose Linear weights are re-initialised with nn.init.normal_ (its default std is 1.0), SGD momentum."""
    kw = spec["kw"]
    X, y = C.tabular(2200, spec["seed"])
    tr, va = _loader(X[:1800], y[:1800], 64, True, spec["seed"]), _loader(X[1800:], y[1800:], 400, False, 0)
    depth = kw.get("depth", 4)
    model = MLP(12, 64, 4, depth=depth)
    for m in model.modules():
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight)
            nn.init.zeros_(m.bias)
    opt = torch.optim.SGD(model.parameters(), lr=kw.get("lr", 0.01), momentum=0.9)
    epochs = 10
    C.write_yaml(os.path.join(run_dir, "hparams.yaml"), dict(depth=depth, width=64, init="normal", optimizer="sgd", lr=kw.get("lr", 0.01), momentum=0.9,
                                                             batch_size=64, epochs=epochs, seed=spec["seed"]))
    w = _writer(run_dir)
    step = 0
    for _epoch in range(epochs):
        for xb, yb in tr:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            gn = C.grad_norm(model.parameters())
            opt.step()
            step += 1
            if step % 3 == 1:
                w.add_scalar("training_loss", loss.item(), step)
                w.add_scalar("grad_norm", gn, step)
        vl, vacc = _evaluate(model, va)
        w.add_scalar("eval_loss", vl, step)
        w.add_scalar("eval_accuracy", vacc, step)
    w.close()


def tb_binary_posweight(spec, run_dir):
    """Binary MLP on imbalanced rows with BCEWithLogitsLoss(pos_weight=...)."""
    kw = spec["kw"]
    X, y = C.binary_imbalanced(3000, spec["seed"], pos_share=0.08)
    Xtr, ytr, Xva, yva = X[:2400], y[:2400], X[2400:], y[2400:]
    n_pos, n_neg = float(ytr.sum()), float(len(ytr) - ytr.sum())
    pos_weight = torch.tensor([n_pos / n_neg]) if kw.get("inverted") else torch.tensor([n_neg / n_pos])
    crit = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    tr = _loader(Xtr, ytr, 64, True, spec["seed"])
    model = MLP(10, 32, 1, depth=2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    epochs = 15
    C.write_json(os.path.join(run_dir, "config.json"), dict(task="binary", pos_share_train=round(n_pos / len(ytr), 4), loss="BCEWithLogitsLoss",
                                                            pos_weight=round(float(pos_weight), 4), optimizer="Adam", lr=1e-3, batch_size=64, epochs=epochs))
    w = _writer(run_dir)
    Xv, yv = torch.tensor(Xva), torch.tensor(yva)
    step = 0
    for epoch in range(epochs):
        tot, n = 0.0, 0
        for xb, yb in tr:
            loss = crit(model(xb).squeeze(1), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            tot += loss.item() * len(yb)
            n += len(yb)
        with torch.no_grad():
            z = model(Xv).squeeze(1)
            vl = float(crit(z, yv))
            pred = (z > 0).float()
            tp = float(((pred == 1) & (yv == 1)).sum())
            prec = tp / max(1.0, float(pred.sum()))
            rec = tp / max(1.0, float(yv.sum()))
            f1 = 0.0 if prec + rec == 0 else 2 * prec * rec / (prec + rec)
        w.add_scalar("train_loss", tot / n, epoch)
        w.add_scalar("val_loss", vl, epoch)
        w.add_scalar("val_acc", float((pred == yv).float().mean()), epoch)
        w.add_scalar("val_recall", rec, epoch)
        w.add_scalar("val_f1", f1, epoch)
    w.close()


# ================================================================================================
# printed runs (stdout/stderr captured to train.log by the generator)
# ================================================================================================

def print_tqdm_mlp(spec, run_dir):
    """MLP on tabular rows, a tqdm bar per epoch with a loss/acc postfix, then a validation line.

    kw.batch_norm_inputs: the model standardises its input with the statistics of the batch it is given, and the
    validation loop runs one row at a time (to print a per-row latency)."""
    from tqdm import tqdm

    kw = spec["kw"]
    scales = np.array([1, 1, 1, 1, 50, 0.1, 10, 1, 3, 1, 200, 1], dtype=np.float32)
    X, y = C.tabular(2300, spec["seed"], scales=scales)
    X = X + np.linspace(-5, 5, 12, dtype=np.float32)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.mlp = MLP(12, 64, 4, depth=2)
            self.register_buffer("mu", torch.zeros(12))
            self.register_buffer("sd", torch.ones(12))

        def forward(self, x):
            if kw.get("batch_norm_inputs"):
                x = (x - x.mean(0, keepdim=True)) / (x.std(0, unbiased=False, keepdim=True) + 1e-5)
            else:
                x = (x - self.mu) / self.sd
            return self.mlp(x)

    model = Net()
    model.mu.copy_(torch.tensor(X[:1800].mean(0)))
    model.sd.copy_(torch.tensor(X[:1800].std(0)))
    tr = _loader(X[:1800], y[:1800], 32, True, spec["seed"])
    va = _loader(X[1800:], y[1800:], 1 if kw.get("batch_norm_inputs") else 250, False, 0)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    epochs = 12
    print(f"train rows: 1800  val rows: 500  features: 12  params: {n_params(model)}", flush=True)
    for epoch in range(1, epochs + 1):
        model.train()
        bar = tqdm(tr, desc=f"Epoch {epoch}/{epochs}", unit="batch", file=sys.stderr, mininterval=0.05)
        tl, tc, tn = 0.0, 0, 0
        for xb, yb in bar:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item() * len(yb)
            tc += int((out.argmax(1) == yb).sum())
            tn += len(yb)
            bar.set_postfix(loss=f"{tl / tn:.4f}", acc=f"{tc / tn:.3f}")
        bar.close()
        t0 = time.perf_counter()
        vl, vacc = _evaluate(model, va)
        ms = (time.perf_counter() - t0) * 1000 / 500
        tqdm.write(f"Epoch {epoch}/{epochs}: val_loss={vl:.4f} val_acc={vacc:.4f} ({ms:.3f} ms/row)", file=sys.stderr)


def print_logging_cnn(spec, run_dir):
    """CNN on shapes with Python logging (timestamps, levels, logger names).

    kw.warmup_cosine: AdamW with a linear warmup then cosine (LambdaLR); kw.opt_each_epoch: the optimizer (its
    decay / no-decay param groups) is rebuilt at the start of every epoch."""
    kw = spec["kw"]
    log = C.stdout_logger("trainer")
    elog = C.stdout_logger("evaluator")
    X, y = C.shapes(1500, spec["seed"], noise=0.45)
    tr, va = _loader(X[:1200], y[:1200], 32, True, spec["seed"]), _loader(X[1200:], y[1200:], 300, False, 0)
    model = CNN(4, 16, dropout=0.1)
    epochs = 10
    iters = len(tr)
    total = epochs * iters
    base_lr = kw.get("lr", 2e-3)
    log.info("model: cnn3-bn  params=%d  train=%d  val=%d  iters/epoch=%d", n_params(model), 1200, 300, iters)

    def make_opt():
        decay = [p for n_, p in model.named_parameters() if p.ndim > 1]
        no_decay = [p for n_, p in model.named_parameters() if p.ndim <= 1]
        return torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}], lr=base_lr)

    opt = make_opt()
    sched = None
    if kw.get("warmup_cosine"):
        warm = kw.get("warmup", 60)
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: cosine_warmup(s, warm, total))
        log.info("optimizer: AdamW lr=%.1e wd=0.05, schedule: linear warmup %d steps + cosine over %d steps", base_lr, warm, total)
    else:
        log.info("optimizer: AdamW lr=%.1e wd=0.05, constant lr", base_lr)
    it = 0
    for epoch in range(1, epochs + 1):
        if kw.get("opt_each_epoch") and epoch > 1:
            opt = make_opt()
        model.train()
        run, cnt = 0.0, 0
        for xb, yb in tr:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched is not None:
                sched.step()
            it += 1
            run += loss.item()
            cnt += 1
            if it % 8 == 0:
                lr_now = sched.get_last_lr()[0] if sched is not None else opt.param_groups[0]["lr"]
                log.info("epoch %d iter %d/%d loss %.4f lr %.3e", epoch, it, total, run / cnt, lr_now)
                run, cnt = 0.0, 0
        vl, vacc = _evaluate(model, va)
        elog.info("epoch %d val_loss %.4f val_acc %.4f", epoch, vl, vacc)
    log.info("done: %d iterations", it)


def print_epoch_batch_cnn(spec, run_dir):
    """CNN on shapes, `Epoch [3/8] Batch [20/38] Loss: 0.4312 Acc: 81.25%` lines. kw.no_zero_grad, kw.optim."""
    kw = spec["kw"]
    X, y = C.shapes(1500, spec["seed"])
    tr, va = _loader(X[:1200], y[:1200], 32, True, spec["seed"]), _loader(X[1200:], y[1200:], 300, False, 0)
    model = CNN(4, 16)
    if kw.get("optim") == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    epochs = 8
    nb = len(tr)
    print(f"Using device: cpu | optimizer: {type(opt).__name__} lr={opt.param_groups[0]['lr']} | batches/epoch: {nb}")
    for epoch in range(1, epochs + 1):
        model.train()
        for b, (xb, yb) in enumerate(tr, 1):
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            if not kw.get("no_zero_grad"):
                opt.zero_grad()
            loss.backward()
            opt.step()
            if b % 10 == 0 or b == nb:
                acc = 100.0 * float((out.argmax(1) == yb).float().mean())
                print(f"Epoch [{epoch}/{epochs}] Batch [{b}/{nb}] Loss: {loss.item():.4f} Acc: {acc:.2f}%")
        vl, vacc = _evaluate(model, va)
        print(f"==> Epoch [{epoch}/{epochs}] Validation Loss: {vl:.4f} Validation Acc: {100 * vacc:.2f}%")


def print_dict_mlp(spec, run_dir):
    """MLP on tabular rows with 30% label noise; dict lines as a script that prints its metrics dict would."""
    X, y = C.tabular(2500, spec["seed"], noise=spec["kw"].get("noise", 0.3))
    tr, va = _loader(X[:2000], y[:2000], 64, True, spec["seed"]), _loader(X[2000:], y[2000:], 500, False, 0)
    model = MLP(12, 64, 4, depth=2)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    epochs = 20
    step = 0
    print({"config": {"lr": 1e-3, "batch_size": 64, "epochs": epochs, "optimizer": "AdamW"}})
    for epoch in range(1, epochs + 1):
        for xb, yb in tr:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            gn = C.grad_norm(model.parameters())
            opt.step()
            step += 1
            if step % 10 == 0:
                print({"epoch": epoch, "step": step, "loss": round(loss.item(), 4), "grad_norm": round(gn, 4), "lr": opt.param_groups[0]["lr"]})
        vl, vacc = _evaluate(model, va)
        print({"epoch": epoch, "step": step, "eval_loss": round(vl, 4), "eval_accuracy": round(vacc, 4)})


def print_dict_regression(spec, run_dir):
    """MLP regression; the rows come ordered by target (as the export query sorted them) and are split 80/20 in order."""
    X, y = C.regression_rows(2000, spec["seed"])
    order = np.argsort(y)
    X, y = X[order], y[order]
    ntr = 1600
    tr = _loader(X[:ntr], y[:ntr], 64, True, spec["seed"])
    Xv, yv = torch.tensor(X[ntr:]), torch.tensor(y[ntr:])
    model = MLP(8, 64, 1, depth=2)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    epochs = 25
    print({"n_train": ntr, "n_val": len(yv), "model": "mlp(8-64-64-1)", "lr": 2e-3, "epochs": epochs})
    for epoch in range(1, epochs + 1):
        tot, n = 0.0, 0
        for xb, yb in tr:
            loss = F.mse_loss(model(xb).squeeze(1), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            n += len(yb)
        with torch.no_grad():
            pv = model(Xv).squeeze(1)
            vmse = float(F.mse_loss(pv, yv))
            vmae = float((pv - yv).abs().mean())
        print({"epoch": epoch, "train_mse": round(tot / n, 4), "val_mse": round(vmse, 4), "val_mae": round(vmae, 4)})


# --- character LM helpers ---------------------------------------------------------------------

PAD, BOS, EOS = 0, 1, 2
_ITOS = ["<pad>", "<s>", "</s>"] + C.CHARS
_STOI = {c: i for i, c in enumerate(_ITOS)}


def _encode(s):
    return [_STOI[c] for c in s]


def _decode(ids):
    out = []
    for i in ids:
        if i == EOS:
            break
        out.append(_ITOS[i] if i > 2 else ("·" if i == PAD else ""))
    return "".join(out)


def _blocks(lines, block):
    ids = []
    for ln in lines:
        ids += [BOS] + _encode(ln) + [EOS]
    n = (len(ids) - 1) // block
    x = torch.tensor(ids[: n * block]).view(n, block)
    yy = torch.tensor(ids[1: n * block + 1]).view(n, block)
    return x, yy


@torch.no_grad()
def _sample(model, prompt, n=24, block=64):
    model.eval()
    ids = [BOS] + _encode(prompt)
    for _ in range(n):
        x = torch.tensor(ids[-block:])[None]
        nxt = int(model(x)[0, -1].argmax())
        ids.append(nxt)
        if nxt == EOS:
            break
    model.train()
    return prompt + _decode(ids[1 + len(prompt):])


def print_ansi_charlm(spec, run_dir):
    """Tiny causal transformer char LM, AdamW 2e-3 with warmup + cosine; coloured logging with units."""
    log = C.stdout_logger("lm", ansi=True)
    block = 48
    x, yy = _blocks(C.char_corpus(3000, spec["seed"]), block)
    xv, yv = _blocks(C.char_corpus(300, spec["seed"] + 1), block)
    g = torch.Generator()
    g.manual_seed(spec["seed"])
    model = CharLM(len(_ITOS), 64, 2, 4, block, norm_first=True)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.1)
    bs, steps, warm = 32, 300, 30
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: cosine_warmup(s, warm, steps))
    log.info("params %.2fK | block %d | batch %d | steps %d | warmup %d", n_params(model) / 1e3, block, bs, steps, warm)
    t0 = time.perf_counter()
    for step in range(1, steps + 1):
        idx = torch.randint(0, len(x), (bs,), generator=g)
        logits = model(x[idx])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), yy[idx].reshape(-1))
        opt.zero_grad()
        loss.backward()
        gn = float(nn.utils.clip_grad_norm_(model.parameters(), 1.0))
        opt.step()
        sched.step()
        if step % 20 == 0:
            dt = time.perf_counter() - t0
            t0 = time.perf_counter()
            log.info("step %4d/%d | loss %.4f | ppl %7.2f | lr %.2e | gnorm %.2f | %6.0f tok/s | %5.1f ms/it",
                     step, steps, loss.item(), math.exp(loss.item()), sched.get_last_lr()[0], gn, 20 * bs * block / dt, dt * 1000 / 20)
        if step % 100 == 0:
            with torch.no_grad():
                model.eval()
                lv = model(xv)
                vl = float(F.cross_entropy(lv.reshape(-1, lv.shape[-1]), yv.reshape(-1)))
                model.train()
            log.warning("eval @ %d | val_loss %.4f | val_ppl %.2f | sample: %r", step, vl, math.exp(vl), _sample(model, "3+4=", block=block))


def print_units_leftpad(spec, run_dir):
    """Char LM over single lines batched with padding; per-token loss masked by the line lengths.

    The collate pads on the left (it was written for the generation script); the loss mask keeps the first
    len-1 positions of every row."""
    lines = C.char_corpus(2400, spec["seed"])
    val_lines = C.char_corpus(200, spec["seed"] + 1)
    seqs = [[BOS] + _encode(s) + [EOS] for s in lines]
    vseqs = [[BOS] + _encode(s) + [EOS] for s in val_lines]
    block = 32

    def collate(batch):
        T = max(len(s) for s in batch)
        ids = torch.full((len(batch), T), PAD, dtype=torch.long)
        for i, s in enumerate(batch):
            ids[i, T - len(s):] = torch.tensor(s)
        lengths = torch.tensor([len(s) for s in batch])
        return ids, lengths

    def lm_loss(model, ids, lengths):
        inp, tgt = ids[:, :-1], ids[:, 1:]
        logits = model(inp)
        mask = (torch.arange(inp.shape[1])[None, :] < (lengths - 1)[:, None]).float()
        per = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), reduction="none").view_as(mask)
        return (per * mask).sum() / mask.sum(), int(mask.sum())

    g = torch.Generator()
    g.manual_seed(spec["seed"])
    dl = DataLoader(seqs, batch_size=32, shuffle=True, collate_fn=collate, generator=g)
    vdl = DataLoader(vseqs, batch_size=100, shuffle=False, collate_fn=collate)
    model = CharLM(len(_ITOS), 64, 2, 4, block, norm_first=True)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    epochs = 4
    total = epochs * len(dl)
    print(f"lines={len(seqs)} val_lines={len(vseqs)} vocab={len(_ITOS)} params={n_params(model)} steps={total}")
    step = 0
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        ntok = 0
        for ids, lengths in dl:
            loss, nt = lm_loss(model, ids, lengths)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            ntok += nt
            if step % 15 == 0:
                dt = time.perf_counter() - t0
                print(f"step {step:4d}/{total} | loss {loss.item():.4f} | ppl {math.exp(loss.item()):6.2f} | lr {opt.param_groups[0]['lr']:.1e} | "
                      f"{ntok / dt:7.0f} tok/s | {dt * 1000 / 15:5.1f} ms/it")
                t0 = time.perf_counter()
                ntok = 0
        with torch.no_grad():
            model.eval()
            vt, vn = 0.0, 0
            for ids, lengths in vdl:
                vl, n_ = lm_loss(model, ids, lengths)
                vt += float(vl) * n_
                vn += n_
            model.train()
        print(f"epoch {epoch} done | val_loss {vt / vn:.4f} | val_ppl {math.exp(vt / vn):.2f} | samples {_sample(model, 'ada ', block=block)!r} {_sample(model, '3+4=', block=block)!r}")


def print_keraslike_lm(spec, run_dir):
    """Own transformer char LM printed in Keras' fit() style. kw.lr."""
    lr = spec["kw"].get("lr", 1e-3)
    block = 48
    x, yy = _blocks(C.char_corpus(2500, spec["seed"]), block)
    xv, yv = _blocks(C.char_corpus(300, spec["seed"] + 1), block)
    g = torch.Generator()
    g.manual_seed(spec["seed"])
    model = CharLM(len(_ITOS), 64, 2, 4, block, norm_first=False)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    epochs, bs = 6, 32
    nb = len(x) // bs
    print(f'Model: "char_transformer"  Total params: {n_params(model):,}  optimizer: AdamW(learning_rate={lr})')
    for epoch in range(1, epochs + 1):
        print(f"Epoch {epoch}/{epochs}")
        perm = torch.randperm(len(x), generator=g)
        t0 = time.perf_counter()
        tot = 0.0
        for b in range(nb):
            idx = perm[b * bs:(b + 1) * bs]
            logits = model(x[idx])
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), yy[idx].reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            if (b + 1) % 10 == 0 and b + 1 < nb:
                done = 30 * (b + 1) // nb
                sys.stdout.write(f"\r{b + 1:3d}/{nb} [{'=' * (done - 1)}>{'.' * (30 - done)}] - ETA: 0s - loss: {tot / (b + 1):.4f}")
                sys.stdout.flush()
        dt = time.perf_counter() - t0
        with torch.no_grad():
            model.eval()
            lv = model(xv)
            vl = float(F.cross_entropy(lv.reshape(-1, lv.shape[-1]), yv.reshape(-1)))
            model.train()
        sys.stdout.write(f"\r{nb}/{nb} [==============================] - {dt:.0f}s {dt * 1000 / nb:.0f}ms/step - loss: {tot / nb:.4f} - val_loss: {vl:.4f} - lr: {lr:.4g}\n")
        sys.stdout.flush()


def print_ansi_manual_bce(spec, run_dir):
    """Binary MLP with a hand-written binary cross-entropy on sigmoid probabilities; coloured logging."""
    log = C.stdout_logger("clf", ansi=True)
    X, y = C.binary_imbalanced(1400, spec["seed"], pos_share=0.5)
    tr = _loader(X[:1100], y[:1100], 32, True, spec["seed"])
    Xv, yv = torch.tensor(X[1100:]), torch.tensor(y[1100:])
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    epochs = 30

    def bce(p, t):
        return -(t * torch.log(p) + (1 - t) * torch.log(1 - p)).mean()

    log.info("rows train=%d val=%d | Adam lr=1e-2 | epochs=%d", 1100, len(yv), epochs)
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        tot, n = 0.0, 0
        for xb, yb in tr:
            p = torch.sigmoid(model(xb).squeeze(1))
            loss = bce(p, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            n += len(yb)
        with torch.no_grad():
            pv = torch.sigmoid(model(Xv).squeeze(1))
            vl = float(bce(pv, yv))
            vacc = float(((pv > 0.5).float() == yv).float().mean())
        dt = (time.perf_counter() - t0) * 1000
        lvl = log.warning if not math.isfinite(tot / n) else log.info
        lvl("epoch %02d | train_loss %.4f | val_loss %.4f | val_acc %.2f%% | %.0f ms", epoch, tot / n, vl, 100 * vacc, dt)


def print_table_mlp(spec, run_dir):
    """MLP on tabular rows, an ASCII table row per epoch.

    kw.sgdr: SGD momentum with CosineAnnealingWarmRestarts stepped per batch; kw.accum: gradient accumulation over
    `accum` micro-batches of 8."""
    kw = spec["kw"]
    X, y = C.tabular(2600, spec["seed"], noise=0.05)
    accum = kw.get("accum", 0)
    bs = 8 if accum else 64
    tr, va = _loader(X[:2100], y[:2100], bs, True, spec["seed"]), _loader(X[2100:], y[2100:], 500, False, 0)
    model = MLP(12, 96, 4, depth=2)
    lr = kw.get("lr", 0.05)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=1e-4) if kw.get("sgdr") else None
    epochs = kw.get("epochs", 14)
    iters = len(tr)
    hdr = f"| {'epoch':>5} | {'step':>6} | {'lr':>9} | {'train_loss':>10} | {'val_loss':>8} | {'val_acc':>7} | {'time':>6} |"
    sep = "+" + "+".join("-" * (len(c)) for c in hdr.split("|")[1:-1]) + "+"
    desc = f"SGD(lr={lr}, momentum=0.9)" + (", CosineAnnealingWarmRestarts(T_0=2, T_mult=2)" if sched else "")
    if accum:
        desc += f", micro-batch {bs} x {accum} accumulation steps"
    print(desc)
    print(sep)
    print(hdr)
    print(sep)
    step = 0
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        tot, n = 0.0, 0
        for i, (xb, yb) in enumerate(tr):
            if accum:
                opt.zero_grad()
                loss = F.cross_entropy(model(xb), yb) / accum
                loss.backward()
                if (i + 1) % accum == 0:
                    opt.step()
                    step += 1
                tot += loss.item() * accum * len(yb)
            else:
                loss = F.cross_entropy(model(xb), yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                step += 1
                if sched is not None:
                    sched.step(epoch - 1 + i / iters)
                tot += loss.item() * len(yb)
            n += len(yb)
        vl, vacc = _evaluate(model, va)
        print(f"| {epoch:>5} | {step:>6} | {opt.param_groups[0]['lr']:>9.2e} | {tot / n:>10.4f} | {vl:>8.4f} | {vacc:>7.4f} | {time.perf_counter() - t0:>5.2f}s |")
    print(sep)


def print_pipe_gru(spec, run_dir):
    """GRU classifier with an explicit L2 penalty, printed as `epoch | step | loss | ...` lines.

    The penalty term is computed once before the loop."""
    X, y = C.sinusoid_classes(1200, spec["seed"])
    tr, va = _loader(X[:1000], y[:1000], 32, True, spec["seed"]), _loader(X[1000:], y[1000:], 200, False, 0)
    model = GRUClassifier(1, 48, 4)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    wd = 1e-4
    epochs = 10
    l2 = sum(p.pow(2).sum() for p in model.parameters())
    print(f"config | model gru(48) | optimizer adam | lr {3e-3} | l2 {wd} | batch 32 | epochs {epochs}")
    step = 0
    for epoch in range(1, epochs + 1):
        for xb, yb in tr:
            ce = F.cross_entropy(model(xb), yb)
            loss = ce + wd * l2
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 10 == 0:
                print(f"epoch {epoch:2d} | step {step:4d} | loss {loss.item():.4f} | ce {ce.item():.4f} | lr {opt.param_groups[0]['lr']:.1e}")
            step += 1
        vl, vacc = _evaluate(model, va)
        print(f"epoch {epoch:2d} | val_loss {vl:.4f} | val_acc {vacc:.4f}")


def print_brackets_earlystop(spec, run_dir):
    """Wide MLP on few noisy rows with hand-written early stopping that keeps the best weights."""
    X, y = C.tabular(900, spec["seed"], noise=0.25)
    tr, va = _loader(X[:400], y[:400], 32, True, spec["seed"]), _loader(X[400:650], y[400:650], 250, False, 0)
    te = _loader(X[650:], y[650:], 250, False, 0)
    model = MLP(12, 256, 4, depth=3)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    epochs, patience = 80, 6
    best, best_epoch, best_state, bad = float("inf"), 0, None, 0
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        tot, cor, n = 0.0, 0, 0
        for xb, yb in tr:
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(yb)
            cor += int((out.argmax(1) == yb).sum())
            n += len(yb)
        vl, vacc = _evaluate(model, va)
        if vl < best:
            best, best_epoch, bad = vl, epoch, 0
            best_state = model.state_dict()
            tag = " *"
        else:
            bad += 1
            tag = ""
        print(f"[epoch {epoch}/{epochs}] train_loss={tot / n:.4f} train_acc={100 * cor / n:.1f}% | val_loss={vl:.4f} val_acc={100 * vacc:.1f}% | "
              f"{time.perf_counter() - t0:.2f}s{tag}")
        if bad >= patience:
            print(f"[early stop] no val_loss improvement for {patience} epochs; restoring best weights from epoch {best_epoch} (val_loss={best:.4f})")
            break
    model.load_state_dict(best_state)
    vl, vacc = _evaluate(model, va)
    tl, tacc = _evaluate(model, te)
    print(f"[final] restored model: val_loss={vl:.4f} val_acc={100 * vacc:.1f}% | test_loss={tl:.4f} test_acc={100 * tacc:.1f}%")



def print_brackets_resume(spec, run_dir):
    """MLP with a checkpoint written every epoch; the first job hits its time limit after epoch 6 and the
    resubmitted job resumes from the last checkpoint with torch.load(path)."""
    X, y = C.tabular(2500, spec["seed"], noise=0.1)
    epochs = 12
    ckpt = os.path.join(os.getcwd(), "checkpoint_last.pt")

    def build():
        torch.manual_seed(spec["seed"])
        model = MLP(12, 64, 4, depth=2)
        return model, torch.optim.AdamW(model.parameters(), lr=2e-3)

    def run(model, opt, start, stop, best):
        tr = _loader(X[:2000], y[:2000], 64, True, spec["seed"] + start)
        va = _loader(X[2000:], y[2000:], 100, False, 0)
        for epoch in range(start, stop + 1):
            t0 = time.perf_counter()
            losses, accs = [], []
            for xb, yb in tr:
                out = model(xb)
                loss = F.cross_entropy(out, yb)
                opt.zero_grad()
                loss.backward()
                opt.step()
                losses.append(loss.item())
                accs.append(float((out.argmax(1) == yb).float().mean()))
            model.eval()
            with torch.no_grad():
                vl = np.mean([F.cross_entropy(model(xb), yb).item() for xb, yb in va])
                va_acc = np.mean([float((model(xb).argmax(1) == yb).float().mean()) for xb, yb in va])
            model.train()
            best = min(best, vl)
            torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": opt.state_dict(), "best_val_loss": best}, ckpt)
            print(f"[epoch {epoch}/{epochs}] train_loss={np.mean(losses):.4f} train_acc={100 * np.mean(accs):.1f}% | val_loss={vl:.4f} "
                  f"val_acc={100 * va_acc:.1f}% | best={best:.4f} | {time.perf_counter() - t0:.2f}s", flush=True)
        return best

    print("[job 1] start", flush=True)
    model, opt = build()
    run(model, opt, 1, 6, float("inf"))
    print("[job 1] time limit reached after epoch 6, checkpoint saved to checkpoint_last.pt", flush=True)
    print("[job 2] resuming from checkpoint_last.pt", flush=True)
    model, opt = build()
    state = torch.load(ckpt)
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["optimizer"])
    run(model, opt, state["epoch"] + 1, epochs, state["best_val_loss"])
