"""Shared pieces for corpus_gen3: synthetic data, small models, and log writers.

Everything here is ordinary training-script code; the faults live in generate.py's run
functions and are selected by each run's spec, never by editing a log afterwards.
"""
import json
import logging
import os
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def seed_all(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


# ----------------------------------------------------------------------------- data

def blobs(n, d=16, k=4, sep=2.5, noise=1.0, seed=0, label_noise=0.0):
    g = np.random.RandomState(seed)
    centers = g.randn(k, d) * sep
    y = g.randint(0, k, size=n)
    x = centers[y] + g.randn(n, d) * noise
    if label_noise > 0:
        flip = g.rand(n) < label_noise
        y = np.where(flip, g.randint(0, k, size=n), y)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.long)


def blob_splits(n_train, n_val, seed, **kw):
    x, y = blobs(n_train + n_val, seed=seed, **kw)
    return (x[:n_train], y[:n_train]), (x[n_train:], y[n_train:])


def shapes16(n, seed=0, noise=0.25):
    """4 classes of shapes drawn into 16x16 images, pixel values 0..255 (uint8-like floats)."""
    g = np.random.RandomState(seed)
    imgs = np.zeros((n, 1, 16, 16), dtype=np.float32)
    ys = g.randint(0, 4, size=n)
    yy, xx = np.mgrid[0:16, 0:16]
    for i, c in enumerate(ys):
        cx, cy = g.uniform(5, 11, size=2)
        r = g.uniform(2.5, 4.5)
        if c == 0:      # disc
            m = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
        elif c == 1:    # square outline
            m = (np.abs(xx - cx) <= r) & (np.abs(yy - cy) <= r) & ~((np.abs(xx - cx) <= r - 1.2) & (np.abs(yy - cy) <= r - 1.2))
        elif c == 2:    # cross
            m = ((np.abs(xx - cx) <= 0.8) & (np.abs(yy - cy) <= r)) | ((np.abs(yy - cy) <= 0.8) & (np.abs(xx - cx) <= r))
        else:           # ring
            d2 = (xx - cx) ** 2 + (yy - cy) ** 2
            m = (d2 <= r * r) & (d2 >= (r - 1.3) ** 2)
        img = m.astype(np.float32) + g.randn(16, 16).astype(np.float32) * noise
        imgs[i, 0] = np.clip(img, 0, 1) * 255.0
    return torch.tensor(np.round(imgs)), torch.tensor(ys, dtype=torch.long)


def checkerboard(n, seed=0, label_noise=0.1, noise_dims=2):
    """2-class checkerboard on [-2, 2]^2 (unit cells) plus Gaussian nuisance dimensions."""
    g = np.random.RandomState(seed)
    x = g.uniform(-2, 2, size=(n, 2 + noise_dims))
    x[:, 2:] = g.randn(n, noise_dims)
    y = ((np.floor(x[:, 0]) + np.floor(x[:, 1])) % 2).astype(int)
    flip = g.rand(n) < label_noise
    y = np.where(flip, 1 - y, y)
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.long)


def sinusoid_seqs(n, length=32, k=3, seed=0, noise=0.4):
    g = np.random.RandomState(seed)
    y = g.randint(0, k, size=n)
    t = np.arange(length)
    freqs = np.array([0.15, 0.3, 0.5])[:k]
    ph = g.uniform(0, 2 * np.pi, size=n)
    x = np.sin(freqs[y][:, None] * t[None, :] + ph[:, None]) + g.randn(n, length) * noise
    return torch.tensor(x[:, :, None], dtype=torch.float32), torch.tensor(y, dtype=torch.long)


def regression(n, d=8, seed=0, noise=0.1, scale=1.0):
    g = np.random.RandomState(seed)
    x = g.randn(n, d)
    y = np.sin(x[:, 0]) + 0.5 * x[:, 1] ** 2 - 0.7 * x[:, 2] * x[:, 3] + 0.3 * x[:, 4] + g.randn(n) * noise
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y * scale + 3.0 * scale, dtype=torch.float32)


TOPICS = {
    "animals": (["the cat", "a dog", "the horse", "my rabbit", "a small bird", "the old fox"],
                ["chased", "watched", "ignored", "followed", "sniffed at"],
                ["the mouse", "a squirrel", "the ducks", "its tail", "a beetle", "the sheep"]),
    "food": (["the chef", "my aunt", "a baker", "the cook", "our host", "the waiter"],
             ["baked", "served", "sliced", "seasoned", "tasted"],
             ["the bread", "a lemon pie", "some soup", "the cheese", "fresh pasta", "a salad"]),
    "weather": (["the wind", "a cold rain", "the storm", "thick fog", "the sun", "light snow"],
                ["covered", "soaked", "warmed", "battered", "crossed"],
                ["the valley", "the hills", "our roof", "the harbour", "the fields", "the town"]),
    "sport": (["the striker", "our team", "the keeper", "a runner", "the coach", "the captain"],
              ["won", "lost", "trained for", "played in", "prepared for"],
              ["the final", "a long race", "the match", "the cup", "a friendly game", "the relay"]),
}
TOPIC_NAMES = list(TOPICS)


def sentence(g, topic):
    s, v, o = TOPICS[topic]
    return f"{s[g.randint(len(s))]} {v[g.randint(len(v))]} {o[g.randint(len(o))]}."


def topic_sentences(n, seed=0):
    g = np.random.RandomState(seed)
    ys = g.randint(0, len(TOPIC_NAMES), size=n)
    return [sentence(g, TOPIC_NAMES[y]) for y in ys], [TOPIC_NAMES[y] for y in ys]


def char_corpus(n_sent, seed=0):
    g = np.random.RandomState(seed)
    return " ".join(sentence(g, TOPIC_NAMES[g.randint(4)]) for _ in range(n_sent))


class CharTokenizer:
    """Character vocabulary built from a reference text; unknown characters map to <unk>."""

    def __init__(self, text):
        chars = sorted(set(text))
        self.itos = ["<pad>", "<unk>", "<bos>"] + chars
        self.stoi = {c: i for i, c in enumerate(self.itos)}
        self.pad_id, self.unk_id, self.bos_id = 0, 1, 2

    def __len__(self):
        return len(self.itos)

    def encode(self, s):
        return [self.stoi.get(c, self.unk_id) for c in s]


def lm_windows(ids, length, stride, seed=0):
    out = [ids[i:i + length] for i in range(0, len(ids) - length, stride)]
    return torch.tensor(out, dtype=torch.long)


# ----------------------------------------------------------------------------- models

class MLP(nn.Module):
    def __init__(self, d_in, d_out, width=64, depth=2, dropout=0.0, act=nn.ReLU):
        super().__init__()
        layers, d = [], d_in
        for _ in range(depth):
            layers += [nn.Linear(d, width), act()]
            if dropout:
                layers.append(nn.Dropout(dropout))
            d = width
        layers.append(nn.Linear(d, d_out))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x.flatten(1))


class CNNBN(nn.Module):
    def __init__(self, n_cls=4, c=16):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(c, 2 * c, 3, padding=1), nn.BatchNorm2d(2 * c), nn.ReLU(), nn.MaxPool2d(2),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(2 * c, n_cls)

    def forward(self, x):
        return self.head(self.backbone(x))


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(c)
        self.c2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(c)

    def forward(self, x):
        return F.relu(x + self.b2(self.c2(F.relu(self.b1(self.c1(x))))))


class SmallResNet(nn.Module):
    def __init__(self, n_cls=4, c=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU())
        self.blocks = nn.Sequential(ResBlock(c), nn.MaxPool2d(2), ResBlock(c))
        self.head = nn.Linear(c, n_cls)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)).mean((2, 3)))


class GRULM(nn.Module):
    def __init__(self, vocab, d=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.rnn = nn.GRU(d, d, batch_first=True)
        self.out = nn.Linear(d, vocab)

    def forward(self, x):
        return self.out(self.rnn(self.emb(x))[0])


class LSTMCls(nn.Module):
    def __init__(self, d_in=1, d=32, n_cls=3):
        super().__init__()
        self.rnn = nn.LSTM(d_in, d, batch_first=True)
        self.head = nn.Linear(d, n_cls)

    def forward(self, x):
        return self.head(self.rnn(x)[0][:, -1])


class TinyEncoderCls(nn.Module):
    def __init__(self, vocab, n_cls, d=48, layers=2, max_len=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(max_len, d) * 0.02)
        lay = nn.TransformerEncoderLayer(d, 4, 96, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(lay, layers)
        self.head = nn.Linear(d, n_cls)

    def forward(self, x):
        h = self.enc(self.emb(x) + self.pos[: x.shape[1]], src_key_padding_mask=(x == 0))
        m = (x != 0).float().unsqueeze(-1)
        return self.head((h * m).sum(1) / m.sum(1).clamp(min=1))


class TinyCausalLM(nn.Module):
    def __init__(self, vocab, d=48, layers=2, max_len=64, causal=True):
        super().__init__()
        self.causal = causal
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(max_len, d) * 0.02)
        lay = nn.TransformerEncoderLayer(d, 4, 96, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(lay, layers)
        self.out = nn.Linear(d, vocab)

    def forward(self, x):
        T = x.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(T) if self.causal else None
        return self.out(self.enc(self.emb(x) + self.pos[:T], mask=mask, is_causal=self.causal))


class AutoEncoder(nn.Module):
    def __init__(self, d_in=256, z=16):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d_in, 128), nn.ReLU(), nn.Linear(128, z))
        self.dec = nn.Sequential(nn.Linear(z, 128), nn.ReLU(), nn.Linear(128, d_in))

    def forward(self, x):
        return self.dec(self.enc(x.flatten(1))).view_as(x)


# ----------------------------------------------------------------------------- printed-log writers

def _fmt(v, nd=4):
    return f"{v:.{nd}f}" if isinstance(v, float) else str(v)


class RunLog:
    """Writes what a plain training script prints, in one of several everyday styles.

    step(rec): a per-step record (may be ignored by the style); epoch(rec): an epoch summary.
    """

    def __init__(self, out, style, total_epochs, steps_per_epoch, log_every=10):
        self.style, self.E, self.S, self.every = style, total_epochs, steps_per_epoch, log_every
        self.out = out
        self.t0 = time.time()
        self.bar = None
        if style == "logging":
            self.logger = logging.getLogger("train")
            self.logger.handlers.clear()
            self.logger.setLevel(logging.INFO)
            self.logger.propagate = False
            h = logging.FileHandler(os.path.join(out, "train.log"), mode="w")
            h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
            self.logger.addHandler(h)
            self._h = h
        elif style == "jsonl":
            self.f = open(os.path.join(out, "log.jsonl"), "w")
        elif style == "csv":
            self.f = open(os.path.join(out, "history.csv"), "w")
            self.cols = None
        else:
            self.f = open(os.path.join(out, "train.log"), "w")

    def header(self, text):
        if self.style == "logging":
            self.logger.info(text)
        elif self.style in ("pipe", "bracket", "batchline", "dict", "tqdm"):
            self.f.write(text + "\n")

    def step(self, rec):
        st = self.style
        if st == "tqdm":
            import tqdm  # noqa
            if self.bar is None:
                self.bar = tqdm.tqdm(total=self.S, desc=f"Epoch {rec['epoch']}/{self.E}", file=self.f,
                                     mininterval=0, ascii=False, ncols=110, dynamic_ncols=False)
            self.bar.set_postfix(loss=f"{rec['loss']:.4f}", lr=f"{rec['lr']:.2e}", refresh=False)
            self.bar.update(1)
            return
        if rec["step"] % self.every:
            return
        if st == "logging":
            self.logger.info("epoch=%d step=%d loss=%.4f lr=%.3e", rec["epoch"], rec["step"], rec["loss"], rec["lr"])
        elif st == "batchline":
            b = rec["batch"]
            self.f.write(f"Epoch {rec['epoch']} batch {b}/{self.S} loss: {rec['loss']:.4f}\n")
        elif st == "jsonl":
            self.f.write(json.dumps({k: (round(v, 6) if isinstance(v, float) else v) for k, v in rec.items() if k != "batch"}) + "\n")
        elif st == "dict":
            self.f.write(str({k: (round(v, 4) if isinstance(v, float) else v) for k, v in rec.items() if k != "batch"}) + "\n")

    def epoch(self, rec):
        st, e = self.style, rec["epoch"]
        if st == "pipe":
            parts = [f"epoch {e}"] + [f"{k} {_fmt(v)}" for k, v in rec.items() if k != "epoch"]
            self.f.write(" | ".join(parts) + "\n")
        elif st == "logging":
            extra = " ".join(f"{k}={_fmt(v)}" for k, v in rec.items() if k not in ("epoch",))
            self.logger.info("eval epoch=%d %s", e, extra)
        elif st == "bracket":
            s = f"[{e}/{self.E}] train {rec['loss']:.2f}"
            if "val_loss" in rec:
                s += f" val {rec['val_loss']:.2f}"
            if "val_acc" in rec:
                s += f" acc {100 * rec['val_acc']:.1f}%"
            if "val_mse" in rec:
                s += f" mse {rec['val_mse']:.3f}"
            self.f.write(s + f" ({time.time() - self.t0:.0f}s)\n")
        elif st == "batchline":
            s = f"==> Epoch {e} done: avg loss {rec['loss']:.4f}"
            for k, v in rec.items():
                if k not in ("epoch", "loss"):
                    s += f", {k.replace('_', ' ')} {_fmt(v)}"
            self.f.write(s + "\n")
        elif st == "tqdm":
            if self.bar is not None:
                post = {"loss": f"{rec['loss']:.4f}"}
                post.update({k: _fmt(v) for k, v in rec.items() if k not in ("epoch", "loss", "lr")})
                self.bar.set_postfix(post, refresh=True)
                self.bar.close()
                self.f.write("\n")
                self.bar = None
        elif st == "jsonl":
            self.f.write(json.dumps({"type": "eval", **{k: (round(v, 6) if isinstance(v, float) else v) for k, v in rec.items()}}) + "\n")
        elif st == "dict":
            self.f.write(str({k: (round(v, 4) if isinstance(v, float) else v) for k, v in rec.items()}) + "\n")
        elif st == "csv":
            if self.cols is None:
                self.cols = list(rec)
                self.f.write(",".join(self.cols) + "\n")
            self.f.write(",".join(_fmt(rec.get(c, ""), 6) for c in self.cols) + "\n")
        if hasattr(self, "f"):
            self.f.flush()

    def error(self, text):
        if self.bar is not None:
            self.bar.close()
            self.f.write("\n")
            self.bar = None
        if self.style == "logging":
            self.logger.error(text)
        elif self.style in ("jsonl", "csv"):
            with open(os.path.join(self.out, "stderr.txt"), "w") as f:
                f.write(text)
        else:
            self.f.write(text + "\n")

    def close(self):
        if self.style == "logging":
            self._h.close()
            self.logger.removeHandler(self._h)
        else:
            if self.bar is not None:
                self.bar.close()
            self.f.close()
