"""Plain PyTorch loops: TensorBoard through torch.utils.tensorboard.SummaryWriter (several tag conventions),
printed train.log styles (f-strings with '|', logging with timestamps, tqdm postfixes, Keras-like lines), and a
Keras-style training.csv written by a hand loop."""

from __future__ import annotations

import csv
import logging
import math
import os
import sys
import time
from collections import Counter

import numpy as np
import torch
import torch.nn.functional as F
from common import reviews, set_seed, shapes, sine_windows, split, tabular_cls, write_json, write_yaml_flat
from torch import nn


# ----------------------------------------------------------------------------------------------------------
# models and small helpers
# ----------------------------------------------------------------------------------------------------------

def mlp(d: int, k: int, width: int = 64, dropout: float = 0.0, softmax_out: bool = False):
    layers = [nn.Linear(d, width), nn.ReLU(), nn.Dropout(dropout), nn.Linear(width, width), nn.ReLU(), nn.Dropout(dropout), nn.Linear(width, k)]
    if softmax_out:
        layers.append(nn.Softmax(dim=1))  # the model "returns probabilities"
    return nn.Sequential(*layers)


def cnn(k: int = 4, dropout: float = 0.0, width: int = 16):
    return nn.Sequential(nn.Conv2d(1, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
                         nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(dropout), nn.Linear(2 * width, k))


@torch.no_grad()
def evaluate(model, X, y, bs: int = 256):
    was = model.training
    model.eval()
    losses, correct = [], 0
    for i in range(0, len(X), bs):
        out = model(X[i:i + bs])
        losses.append(F.cross_entropy(out, y[i:i + bs], reduction="sum").item())
        correct += (out.argmax(1) == y[i:i + bs]).sum().item()
    model.train(was)
    return sum(losses) / len(X), correct / len(X)


def tensors(*arrs):
    return [torch.as_tensor(a) for a in arrs]


def tab_data(seed: int, n: int = 800, n_val: int = 300, k: int = 4, **kw):
    X, y = tabular_cls(n + n_val, seed, d=12, k=k, **kw)
    return tensors(*split(X, y, n_val))


def shape_data(seed: int, n: int = 640, n_val: int = 200, noise: float = 0.4):
    X, y = shapes(n + n_val, seed, noise=noise)
    return tensors(*split(X, y, n_val))


def writer(out: str):
    from torch.utils.tensorboard import SummaryWriter
    return SummaryWriter(log_dir=os.path.join(out, "tb"))


def perm_batches(n: int, bs: int, g: torch.Generator):
    idx = torch.randperm(n, generator=g)
    return [idx[i:i + bs] for i in range(0, n, bs)]


# ----------------------------------------------------------------------------------------------------------
# TensorBoard runs
# ----------------------------------------------------------------------------------------------------------

def tb_amp(spec: dict, out: str) -> None:
    """MLP on tabular data under fp16 autocast with a GradScaler.
    Bug switch unscaled_backward: loss.backward() on the raw loss while scaler.step() still unscales (divides
    the gradients by the scale)."""
    kw = spec.get("kw", {})
    set_seed(spec["seed"])
    Xtr, ytr, Xva, yva = tab_data(spec["seed"], n=1200)
    model = mlp(12, 4, 128)
    lr = kw.get("lr", 2e-3)
    if kw.get("opt") == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=lr)
    init_scale = kw.get("init_scale", 2.0 ** 24)
    scaler = torch.amp.GradScaler("cpu", init_scale=init_scale)
    epochs = kw.get("epochs", 12)
    w = writer(out)
    write_json(os.path.join(out, "config.json"), {"model": "mlp-128", "optimizer": kw.get("opt", "adam"), "lr": lr, "amp": "fp16", "init_scale": init_scale,
                                                  "batch_size": 64, "epochs": epochs})
    g = torch.Generator().manual_seed(spec["seed"])
    step = 0
    for _ep in range(epochs):
        for b in perm_batches(len(Xtr), 64, g):
            with torch.autocast("cpu", dtype=torch.float16):
                loss = F.cross_entropy(model(Xtr[b]), ytr[b])
            opt.zero_grad()
            if kw.get("unscaled_backward"):
                loss.backward()
            else:
                scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            step += 1
            w.add_scalar("Loss/train", loss.item(), step)
            w.add_scalar("amp/scale", scaler.get_scale(), step)
        vl, va = evaluate(model, Xva, yva)
        w.add_scalar("Loss/val", vl, step)
        w.add_scalar("Accuracy/val", va, step)
    w.close()


def tb_sgdr(spec: dict, out: str) -> None:
    """CNN on shapes with SGD and CosineAnnealingWarmRestarts stepped per batch (healthy: LR restarts)."""
    set_seed(spec["seed"])
    Xtr, ytr, Xva, yva = shape_data(spec["seed"])
    model = cnn()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=40, T_mult=2)
    write_yaml_flat(os.path.join(out, "hparams.yaml"), {"model": "cnn-bn", "optimizer": "sgd", "lr": 0.05, "momentum": 0.9, "scheduler": "CosineAnnealingWarmRestarts",
                                                       "T_0": 40, "T_mult": 2, "batch_size": 32, "epochs": 14})
    w = writer(out)
    g = torch.Generator().manual_seed(spec["seed"])
    step = 0
    for _ep in range(14):
        for b in perm_batches(len(Xtr), 32, g):
            loss = F.cross_entropy(model(Xtr[b]), ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            w.add_scalar("train/loss", loss.item(), step)
            w.add_scalar("train/lr", opt.param_groups[0]["lr"], step)
        vl, va = evaluate(model, Xva, yva)
        w.add_scalar("val/loss", vl, step)
        w.add_scalar("val/acc", va, step)
    w.close()


def _warmup_cosine(total: int, warmup: int):
    def f(s):
        if s < warmup:
            return (s + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * min(1.0, (s - warmup) / max(1, total - warmup))))
    return f


def tb_resume(spec: dict, out: str) -> None:
    """MLP with warmup+cosine (LambdaLR per step); the job stops after epoch 10 and is resumed from the epoch-8
    checkpoint. Healthy: model, optimizer, scheduler and counters restored. Bug switch: scheduler not restored."""
    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    Xtr, ytr, Xva, yva = tab_data(seed, n=1000)
    epochs, bs = 20, 50
    steps_per_epoch = math.ceil(len(Xtr) / bs)
    total = epochs * steps_per_epoch
    ck = os.path.join(os.getcwd(), "ckpt.pt")
    tags = kw.get("tags", ("loss", "lr", "val_loss", "val_acc"))
    write_json(os.path.join(out, "config.json"), {"model": "mlp-128", "optimizer": "adamw", "lr": 3e-3, "weight_decay": 0.01, "schedule": "linear warmup 60 steps + cosine",
                                                  "batch_size": bs, "epochs": epochs, "checkpoint_every": 4})

    def build():
        m = mlp(12, 4, 128)
        o = torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=0.01)
        s = torch.optim.lr_scheduler.LambdaLR(o, _warmup_cosine(total, 60))
        return m, o, s

    def train_epochs(m, o, s, start_ep, stop_ep, step, w, g):
        for ep in range(start_ep, stop_ep):
            for b in perm_batches(len(Xtr), bs, g):
                loss = F.cross_entropy(m(Xtr[b]), ytr[b])
                o.zero_grad()
                loss.backward()
                o.step()
                s.step()
                step += 1
                w.add_scalar(tags[0], loss.item(), step)
                w.add_scalar(tags[1], o.param_groups[0]["lr"], step)
            vl, va = evaluate(m, Xva, yva)
            w.add_scalar(tags[2], vl, step)
            w.add_scalar(tags[3], va, step)
            if (ep + 1) % 4 == 0:
                torch.save({"model": m.state_dict(), "optimizer": o.state_dict(), "scheduler": s.state_dict(), "epoch": ep + 1, "step": step,
                            "rng": g.get_state()}, ck)
        return step

    m, o, s = build()
    g = torch.Generator().manual_seed(seed)
    w = writer(out)
    train_epochs(m, o, s, 0, 10, 0, w, g)  # the job is stopped (preempted) after epoch 10
    w.close()
    time.sleep(1.1)  # the requeued job starts later: a second event file in the same folder
    m, o, s = build()
    state = torch.load(ck)
    m.load_state_dict(state["model"])
    o.load_state_dict(state["optimizer"])
    if not kw.get("forget_scheduler"):
        s.load_state_dict(state["scheduler"])
    g.set_state(state["rng"])
    w = writer(out)
    train_epochs(m, o, s, state["epoch"], epochs, state["step"], w, g)
    w.close()


def tb_cls(spec: dict, out: str) -> None:
    """Generic classifier loop with TensorBoard; bug switches: eval_mode, softmax_out, accum_no_div."""
    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    tags = kw["tags"]
    task = kw.get("task", "shapes")
    if task == "shapes":
        Xtr, ytr, Xva, yva = shape_data(seed, n=kw.get("n", 640), noise=kw.get("noise", 0.4))
        model = cnn(dropout=kw.get("dropout", 0.0))
    else:
        Xtr, ytr, Xva, yva = tab_data(seed, n=kw.get("n", 1000))
        model = mlp(12, 4, 128, softmax_out=kw.get("softmax_out", False))
    lr = kw.get("lr", 1e-3)
    if kw.get("opt") == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=lr)
    accum = kw.get("accum", 1)
    bs = kw.get("bs", 32)
    epochs = kw.get("epochs", 10)
    write_yaml_flat(os.path.join(out, "hparams.yaml"), {"task": task, "optimizer": kw.get("opt", "adam"), "lr": lr, "batch_size": bs, "grad_accum_steps": accum,
                                                       "epochs": epochs, "dropout": kw.get("dropout", 0.0)})
    w = writer(out)
    if kw.get("eval_mode"):
        model.eval()  # sanity check of the output shape before training ...
        with torch.no_grad():
            print("output shape:", tuple(model(Xtr[:2]).shape))
        # ... and model.train() is never called again
    g = torch.Generator().manual_seed(seed)
    step = 0
    micro = 0
    for _ep in range(epochs):
        for b in perm_batches(len(Xtr), bs, g):
            out_ = model(Xtr[b])
            loss = F.cross_entropy(out_, ytr[b])
            (loss / accum if kw.get("accum_div", True) else loss).backward()
            micro += 1
            if micro % accum == 0:
                gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
                opt.step()
                opt.zero_grad()
                step += 1
                if len(tags) > 4:
                    w.add_scalar(tags[4], gn.item(), step)
            w.add_scalar(tags[0], loss.item(), micro)
            if kw.get("train_acc_tag"):
                w.add_scalar(kw["train_acc_tag"], (out_.argmax(1) == ytr[b]).float().mean().item(), micro)
        if kw.get("eval_mode"):
            with torch.no_grad():  # the validation helper of this script does not switch modes either
                o = model(Xva)
                vl, va = F.cross_entropy(o, yva).item(), (o.argmax(1) == yva).float().mean().item()
        else:
            vl, va = evaluate(model, Xva, yva)
        w.add_scalar(tags[1], vl, micro)
        w.add_scalar(tags[2], va, micro)
    w.close()


def tb_sampler(spec: dict, out: str) -> None:
    """Imbalanced 4-class tabular data balanced with a WeightedRandomSampler.
    Bug switch class_weights_as_sample_weights: the sampler gets the 4 per-class weights instead of one weight per
    training row, so it only ever draws rows 0..3."""
    from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler
    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    X, y = tabular_cls(1600, seed, d=12, k=4, class_probs=[0.55, 0.25, 0.15, 0.05])
    Xtr, ytr, Xva, yva = tensors(*split(X, y, 400))
    counts = torch.bincount(ytr, minlength=4).float()
    class_w = 1.0 / counts
    weights = class_w if kw.get("class_weights_as_sample_weights") else class_w[ytr]
    sampler = WeightedRandomSampler(weights, num_samples=len(Xtr), replacement=True, generator=torch.Generator().manual_seed(seed))
    dl = DataLoader(TensorDataset(Xtr, ytr), batch_size=32, sampler=sampler)
    model = mlp(12, 4, 128)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    write_json(os.path.join(out, "config.json"), {"model": "mlp-128", "optimizer": "adam", "lr": 1e-3, "batch_size": 32, "epochs": 12,
                                                  "sampler": "WeightedRandomSampler(inverse class frequency)", "class_counts": counts.int().tolist()})
    w = writer(out)
    step = 0
    for _ep in range(12):
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 5 == 0:
                w.add_scalar("Loss/train", loss.item(), step)
        vl, va = evaluate(model, Xva, yva)
        with torch.no_grad():
            pred = model(Xva).argmax(1)
        recalls = [((pred == c) & (yva == c)).sum().item() / max(1, (yva == c).sum().item()) for c in range(4)]
        w.add_scalar("Loss/val", vl, step)
        w.add_scalar("Accuracy/val", va, step)
        w.add_scalar("Recall/val_macro", float(np.mean(recalls)), step)
    w.close()


def _review_vocab(texts, pad_collides: bool):
    cnt = Counter(wd for t in texts for wd in t.split())
    if pad_collides:
        # ids from the frequency ranking start at 0, and 0 is also the padding id below
        return {wd: i for i, (wd, _) in enumerate(cnt.most_common())}
    vocab = {"<pad>": 0, "<unk>": 1}
    for wd, _ in cnt.most_common():
        vocab[wd] = len(vocab)
    return vocab


class BagCls(nn.Module):
    """Embedding bag (masked mean over word ids, 0 = padding) + MLP."""

    def __init__(self, vocab: int, dim: int = 32):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=0)
        self.head = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 2))

    def forward(self, x):
        mask = (x != 0).float().unsqueeze(-1)
        return self.head((self.emb(x) * mask).sum(1) / mask.sum(1).clamp(min=1))


def tb_text(spec: dict, out: str) -> None:
    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    texts, labels = reviews(1400, seed)
    vocab = _review_vocab(texts, kw.get("pad_collides", False))
    L = 20
    X = np.zeros((len(texts), L), np.int64)
    for i, t in enumerate(texts):
        ids = [vocab.get(wd, 1) for wd in t.split()][:L]
        X[i, :len(ids)] = ids
    Xtr, ytr, Xva, yva = tensors(*split(X, np.array(labels, np.int64), 300))
    model = BagCls(len(vocab) + 2)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    write_json(os.path.join(out, "config.json"), {"model": "embedding-bag-mlp", "vocab_size": len(vocab), "pad_id": 0, "max_len": L, "lr": 3e-3,
                                                  "batch_size": 32, "epochs": 12})
    w = writer(out)
    g = torch.Generator().manual_seed(seed)
    step = 0
    for _ep in range(12):
        for b in perm_batches(len(Xtr), 32, g):
            loss = F.cross_entropy(model(Xtr[b]), ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 5 == 0:
                w.add_scalar("Loss/train", loss.item(), step)
        vl, va = evaluate(model, Xva, yva)
        w.add_scalar("Loss/val", vl, step)
        w.add_scalar("Accuracy/val", va, step)
    w.close()


# ----------------------------------------------------------------------------------------------------------
# printed train.log runs (the generator points stdout/stderr at train.log)
# ----------------------------------------------------------------------------------------------------------

def _logger(name: str = "train"):
    logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", stream=sys.stdout, force=True)
    return logging.getLogger(name)


def pr_pipe_mlp(spec: dict, out: str) -> None:
    """f-string lines with '|'. Bug switches: resume_fresh_opt (resume restores weights only), amp_clip_scaled."""
    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    if kw.get("task") == "shapes":
        Xtr, ytr, Xva, yva = shape_data(seed, n=800, noise=0.4)
        build = cnn
    else:
        Xtr, ytr, Xva, yva = tab_data(seed, n=1200)

        def build():
            return mlp(12, 4, 128)
    epochs, bs = kw.get("epochs", 15), 64
    lr = kw.get("lr", 1e-3)
    optname = kw.get("opt", "adam")
    amp = kw.get("amp", False)
    print(f"config: model={'cnn-bn' if kw.get('task') == 'shapes' else 'mlp-128'} opt={optname} lr={lr} batch_size={bs} epochs={epochs} amp={'fp16' if amp else 'off'} seed={seed}")

    def make_opt(m):
        if optname == "sgd":
            return torch.optim.SGD(m.parameters(), lr=lr, momentum=0.9)
        return torch.optim.Adam(m.parameters(), lr=lr)

    model = build()
    opt = make_opt(model)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 16) if amp else None
    g = torch.Generator().manual_seed(seed)
    ck = os.path.join(os.getcwd(), "last.pt")
    ep = 0
    resume_at = kw.get("resume_at")
    while ep < epochs:
        t0 = time.time()
        tot, n, gns = 0.0, 0, []
        for b in perm_batches(len(Xtr), bs, g):
            if amp:
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = F.cross_entropy(model(Xtr[b]), ytr[b])
                opt.zero_grad()
                scaler.scale(loss).backward()
                if kw.get("amp_clip_scaled"):
                    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # on the still-scaled gradients
                else:
                    scaler.unscale_(opt)
                    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(opt)
                scaler.update()
            else:
                loss = F.cross_entropy(model(Xtr[b]), ytr[b])
                opt.zero_grad()
                loss.backward()
                gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
                opt.step()
            gns.append(gn.item())
            tot += loss.item() * len(b)
            n += len(b)
        if kw.get("acc_keepdim"):
            model.eval()
            with torch.no_grad():
                o = model(Xva)
                vl = F.cross_entropy(o, yva).item()
                va = (o.argmax(1, keepdim=True) == yva).float().mean().item()  # (N,1) == (N,) broadcasts to (N,N)
            model.train()
        else:
            vl, va = evaluate(model, Xva, yva)
        ep += 1
        extra = f" | grad_norm {np.mean(gns):.4g}" if kw.get("show_gn") else ""
        print(f"epoch {ep:3d} | loss {tot / n:.4f} | val_loss {vl:.4f} | val_acc {va:.4f} | lr {opt.param_groups[0]['lr']:.2e}{extra} | {time.time() - t0:.1f}s")
        if ep % 2 == 0:
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": ep}, ck)
        if resume_at and ep == resume_at:
            print("Killed")
            print(f"$ python train.py --resume {os.path.basename(ck)}")
            print(f"config: model=mlp-128 opt={optname} lr={lr} batch_size={bs} epochs={epochs} resume=last.pt seed={seed}")
            state = torch.load(ck)
            model = build()
            model.load_state_dict(state["model"])
            opt = make_opt(model)  # the optimizer state in the checkpoint is not loaded
            if not kw.get("resume_fresh_opt"):
                opt.load_state_dict(state["optimizer"])
            ep = state["epoch"]
            print(f"resumed from {os.path.basename(ck)} at epoch {ep}")
            resume_at = None


def pr_pipe_lstm_lm(spec: dict, out: str) -> None:
    """LSTM character LM, SGD, printed with '|'; bug switch: high LR with no clipping."""
    from common import CHARS, sentences
    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    text = " ".join(sentences(1500, seed))
    stoi = {c: i for i, c in enumerate(CHARS)}
    ids = torch.tensor([stoi[c] for c in text])
    T, bs = 48, 32
    n = (len(ids) - 1) // T
    X = ids[:n * T].view(n, T)
    Y = ids[1:n * T + 1].view(n, T)

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(len(CHARS), 48)
            self.rnn = nn.LSTM(48, 96, num_layers=2, batch_first=True)
            self.out = nn.Linear(96, len(CHARS))

        def forward(self, x):
            return self.out(self.rnn(self.emb(x))[0])

    model = LM()
    lr = kw.get("lr", 1.0)
    clip = kw.get("clip", 0.25)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    print(f"| lstm char-lm | layers 2 | hidden 96 | seq_len {T} | batch {bs} | sgd lr {lr} | clip {clip if clip else 'none'} |")
    g = torch.Generator().manual_seed(seed)
    step = 0
    for ep in range(kw.get("epochs", 4)):
        for b in perm_batches(len(X), bs, g):
            loss = F.cross_entropy(model(X[b]).reshape(-1, len(CHARS)), Y[b].reshape(-1))
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), clip if clip else float("inf"))
            opt.step()
            step += 1
            if step % 5 == 0:
                li = loss.item()
                ppl = math.exp(li) if li < 50 else float("inf")
                print(f"| epoch {ep + 1:2d} | step {step:4d} | lr {lr:.2f} | loss {li:6.3f} | ppl {ppl:9.2f} | grad_norm {gn.item():8.3f} |")


def pr_logging_lstm(spec: dict, out: str) -> None:
    """LSTM forecaster on noisy sinusoids, Python logging with timestamps (healthy)."""
    seed = spec["seed"]
    set_seed(seed)
    log = _logger("forecast")
    X, Y = sine_windows(1000, seed)
    Xtr, Ytr, Xva, Yva = tensors(X[:800], Y[:800], X[800:], Y[800:])

    class F1(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(1, 32, batch_first=True)
            self.head = nn.Linear(32, 1)

        def forward(self, x):
            return self.head(self.rnn(x)[0][:, -1])

    model = F1()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=6, gamma=0.5)
    log.info("dataset: 800 train windows, 200 val windows, window=24, horizon=1")
    log.info("model: LSTM(1->32) + Linear, params=%d", sum(p.numel() for p in model.parameters()))
    g = torch.Generator().manual_seed(seed)
    step = 0
    for ep in range(1, 16):
        for b in perm_batches(len(Xtr), 32, g):
            loss = F.mse_loss(model(Xtr[b]), Ytr[b])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            if step % 10 == 0:
                log.info("epoch %d step %d train_mse=%.5f", ep, step, loss.item())
        sched.step()
        with torch.no_grad():
            vm = F.mse_loss(model(Xva), Yva).item()
        log.info("epoch %d done: val_mse=%.5f val_mae=%.5f lr=%.2e", ep, vm, (model(Xva) - Yva).abs().mean().item(), sched.get_last_lr()[0])


def pr_logging_mlp(spec: dict, out: str) -> None:
    """MLP with Python logging. Bug switches: no_zero_grad, params_consumed."""
    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    log = _logger("trainer")
    Xtr, ytr, Xva, yva = tab_data(seed, n=1000)
    model = mlp(12, 4, 128)
    log.info("config: lr=%s momentum=0.9 batch_size=32 epochs=%d", kw.get("lr", 0.01), kw.get("epochs", 15))
    if kw.get("params_consumed"):
        params = model.parameters()
        log.info("model parameters: %d", sum(p.numel() for p in params))  # consumes the generator
    else:
        params = list(model.parameters())
        log.info("model parameters: %d", sum(p.numel() for p in params))
    opt = torch.optim.SGD(params, lr=kw.get("lr", 0.01), momentum=0.9)
    g = torch.Generator().manual_seed(seed)
    step = 0
    for ep in range(1, kw.get("epochs", 15) + 1):
        run = 0.0
        for b in perm_batches(len(Xtr), 32, g):
            loss = F.cross_entropy(model(Xtr[b]), ytr[b])
            if not kw.get("no_zero_grad"):
                opt.zero_grad()
            loss.backward()
            opt.step()
            run += loss.item()
            step += 1
            if step % 10 == 0:
                log.info("epoch %d iter %d loss %.4f", ep, step, run / 10)
                run = 0.0
        vl, va = evaluate(model, Xva, yva)
        log.info("epoch %d validation: loss %.4f acc %.4f", ep, vl, va)


def pr_logging_siamese(spec: dict, out: str) -> None:
    """Siamese MLP with a contrastive loss on Euclidean distance; positives drawn from the same class (may be the
    same row). Bug: distance written as sqrt(sum(d^2)) (no eps), so an identical pair makes a NaN gradient."""
    seed = spec["seed"]
    set_seed(seed)
    log = _logger("siamese")
    X, y = tabular_cls(4400, seed, d=12, k=4, label_noise=0.0)
    X, y = torch.as_tensor(X), torch.as_tensor(y)
    Xtr, ytr, Xva, yva = X[:4000], y[:4000], X[4000:], y[4000:]
    net = nn.Sequential(nn.Linear(12, 64), nn.ReLU(), nn.Linear(64, 16))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    by_class = [torch.where(ytr == c)[0] for c in range(4)]
    g = torch.Generator().manual_seed(seed)
    margin = 2.0
    P = 32
    log.info("contrastive siamese: embed_dim=16 margin=%.1f lr=1e-3 pairs/batch=%d", margin, P)

    def dist(a, b):
        return torch.sqrt(((a - b) ** 2).sum(1))

    step = 0
    for ep in range(1, 11):
        for _ in range(30):
            i = torch.randint(0, len(Xtr), (P,), generator=g)
            same = torch.rand(P, generator=g) < 0.5
            j = torch.empty(P, dtype=torch.long)
            for t in range(P):
                pool = by_class[int(ytr[i[t]])] if same[t] else torch.arange(len(Xtr))
                j[t] = pool[torch.randint(0, len(pool), (1,), generator=g)]
            lab = (ytr[i] == ytr[j]).float()
            d = dist(net(Xtr[i]), net(Xtr[j]))
            loss = (lab * d ** 2 + (1 - lab) * F.relu(margin - d) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                log.info("epoch %d step %d loss %.4f mean_pos_dist %.3f mean_neg_dist %.3f", ep, step, loss.item(),
                         d[lab == 1].mean().item(), d[lab == 0].mean().item())
        with torch.no_grad():
            e_tr, e_va = net(Xtr[:500]), net(Xva)
            nn_idx = torch.cdist(e_va, e_tr).argmin(1)
            acc = (ytr[:500][nn_idx] == yva).float().mean().item()
        log.info("epoch %d eval: 1-NN accuracy %.4f", ep, acc)


def _tqdm(it, **kw):
    from tqdm import tqdm
    return tqdm(it, file=sys.stderr, ncols=100, mininterval=0.2, **kw)


def pr_tqdm(spec: dict, out: str) -> None:
    """tqdm bar per epoch with a loss/acc postfix. Bug switches: const_feature (std 0), numpy_in_val."""
    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    if kw.get("task") == "shapes":
        Xtr, ytr, Xva, yva = shape_data(seed, n=960, noise=0.4)
        model = cnn()
    else:
        X, y = tabular_cls(1300, seed, d=12, k=4)
        X = np.concatenate([X, np.ones((len(X), 1), np.float32)], 1)  # 'region_code' column: one region in this export
        X = X * np.r_[np.ones(12), [3.0]].astype(np.float32) + np.r_[np.zeros(12), [1.0]].astype(np.float32)
        Xtr, ytr, Xva, yva = split(X, y, 300)
        mu, sd = Xtr.mean(0), Xtr.std(0)
        if not kw.get("const_feature"):
            sd = np.where(sd == 0, 1.0, sd)
        Xtr, Xva = (Xtr - mu) / sd, (Xva - mu) / sd
        Xtr, ytr, Xva, yva = tensors(Xtr.astype(np.float32), ytr, Xva.astype(np.float32), yva)
        model = mlp(13, 4, 128)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(seed)
    print(f"train={len(Xtr)} val={len(Xva)} batch=32 lr=1e-3 epochs={kw.get('epochs', 8)}")
    for ep in range(1, kw.get("epochs", 8) + 1):
        model.train()
        bar = _tqdm(perm_batches(len(Xtr), 32, g), desc=f"Epoch {ep}/{kw.get('epochs', 8)}")
        tot = cor = n = 0
        for b in bar:
            out_ = model(Xtr[b])
            loss = F.cross_entropy(out_, ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(b)
            cor += (out_.argmax(1) == ytr[b]).sum().item()
            n += len(b)
            bar.set_postfix(loss=f"{tot / n:.4f}", acc=f"{cor / n:.3f}", refresh=False)
        bar.close()
        if kw.get("numpy_in_val"):
            # bug: the validation forward is not under torch.no_grad(), and its softmax goes to NumPy
            model.eval()
            probs = torch.softmax(model(Xva), 1).numpy()
            conf = probs.max(1).mean()
            va = (probs.argmax(1) == yva.numpy()).mean()
            print(f"val_acc={va:.4f} mean_confidence={conf:.4f}")
        else:
            vl, va = evaluate(model, Xva, yva)
            print(f"Epoch {ep}: val_loss={vl:.4f} val_acc={va:.4f}")


def pr_keras(spec: dict, out: str) -> None:
    """Keras-like epoch lines. Healthy: warmup then cosine decay. Bug switch: squeeze_logits (binary head)."""
    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    binary = kw.get("binary", False)
    k = 2 if binary else 4
    X, y = tabular_cls(kw.get("n_train", 960) + 300, seed, d=12, k=k)
    Xtr, ytr, Xva, yva = tensors(*split(X, y, 300))
    model = mlp(12, 1 if binary else 4, 128)
    epochs, bs = kw.get("epochs", 20), 32
    steps = math.ceil(len(Xtr) / bs)
    opt = torch.optim.AdamW(model.parameters(), lr=kw.get("lr", 3e-3))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, _warmup_cosine(epochs * steps, kw.get("warmup", 3 * steps)))
    g = torch.Generator().manual_seed(seed)

    def loss_fn(o, t):
        if binary:
            return F.binary_cross_entropy_with_logits(o, t.float())
        return F.cross_entropy(o, t)

    def acc_fn(o, t):
        if binary:
            return ((o > 0).long() == t).float().mean().item()
        return (o.argmax(-1) == t).float().mean().item()

    # binary head: (B,1) logits squeezed to (B,); a batch of one becomes a 0-d tensor
    def fwd(x):
        o = model(x)
        return o.squeeze() if binary else o

    for ep in range(1, epochs + 1):
        print(f"Epoch {ep}/{epochs}")
        t0 = time.time()
        tl = ta = n = 0
        for bi, b in enumerate(perm_batches(len(Xtr), bs, g), 1):
            o = fwd(Xtr[b])
            loss = loss_fn(o, ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tl += loss.item() * len(b)
            ta += acc_fn(o, ytr[b]) * len(b)
            n += len(b)
            if bi % 10 == 0 and bi < steps:
                done = int(30 * bi / steps)
                sys.stdout.write(f"\r{bi:>3d}/{steps} [{'=' * (done - 1)}>{'.' * (30 - done)}] - ETA: 0s - loss: {tl / n:.4f} - accuracy: {ta / n:.4f}")
                sys.stdout.flush()
        with torch.no_grad():
            o = fwd(Xva)
            vl, va = loss_fn(o, yva).item(), acc_fn(o, yva)
        dt = time.time() - t0
        print(f"\r{steps}/{steps} [==============================] - {dt:.0f}s {1000 * dt / steps:.0f}ms/step - loss: {tl / n:.4f} - accuracy: {ta / n:.4f}"
              f" - val_loss: {vl:.4f} - val_accuracy: {va:.4f} - lr: {sched.get_last_lr()[0]:.4e}")


# ----------------------------------------------------------------------------------------------------------
# Keras-style training.csv (epoch,loss,accuracy,val_loss,val_accuracy) from a hand loop
# ----------------------------------------------------------------------------------------------------------

def keras_csv(spec: dict, out: str) -> None:
    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    task = kw.get("task", "tabular")
    if task == "shapes":
        Xtr, ytr, Xva, yva = shape_data(seed, n=800, noise=0.4)
        model = cnn()
        k = 4
    else:
        k = kw.get("k", 4)
        X, y = tabular_cls(kw.get("n", 1000) + 300, seed, d=12, k=k, class_probs=kw.get("class_probs"))
        Xtr, ytr, Xva, yva = tensors(*split(X, y, 300))
        model = mlp(12, k, 128)
    if kw.get("shuffle_labels"):
        # "shuffle the training set" - applied to the label array only
        ytr = ytr[torch.randperm(len(ytr), generator=torch.Generator().manual_seed(seed))]
    opt = torch.optim.Adam(model.parameters(), lr=kw.get("lr", 1e-3))
    epochs = kw.get("epochs", 20)
    write_json(os.path.join(out, "config.json"), {"model": "cnn-bn" if task == "shapes" else "mlp-128", "optimizer": "adam", "lr": kw.get("lr", 1e-3), "batch_size": 32,
                                                  "epochs": epochs, "loss": "categorical_crossentropy", "metrics": ["accuracy"]})

    def metric(o, t):
        if kw.get("binary_accuracy"):
            # accuracy computed element-wise on the one-hot targets with a 0.5 threshold
            oh = F.one_hot(t, k).float()
            return ((torch.softmax(o, 1) > 0.5).float() == oh).float().mean().item()
        return (o.argmax(1) == t).float().mean().item()

    g = torch.Generator().manual_seed(seed + 1)
    with open(os.path.join(out, "training.csv"), "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["epoch", "loss", "accuracy", "val_loss", "val_accuracy"])
        for ep in range(epochs):
            model.train()
            tl = ta = n = 0
            for b in perm_batches(len(Xtr), 32, g):
                o = model(Xtr[b])
                loss = F.cross_entropy(o, ytr[b])
                opt.zero_grad()
                loss.backward()
                opt.step()
                tl += loss.item() * len(b)
                ta += metric(o, ytr[b]) * len(b)
                n += len(b)
            model.eval()
            with torch.no_grad():
                o = model(Xva)
                vl, va = F.cross_entropy(o, yva).item(), metric(o, yva)
            wr.writerow([ep, repr(tl / n), repr(ta / n), repr(vl), repr(va)])


RUNNERS = {"tb_amp": tb_amp, "tb_sgdr": tb_sgdr, "tb_resume": tb_resume, "tb_cls": tb_cls, "tb_sampler": tb_sampler, "tb_text": tb_text,
           "pr_pipe_mlp": pr_pipe_mlp, "pr_pipe_lstm_lm": pr_pipe_lstm_lm, "pr_logging_lstm": pr_logging_lstm, "pr_logging_mlp": pr_logging_mlp,
           "pr_logging_siamese": pr_logging_siamese, "pr_tqdm": pr_tqdm, "pr_keras": pr_keras, "keras_csv": keras_csv}

