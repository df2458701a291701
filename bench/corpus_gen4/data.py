"""Synthetic data and small models for corpus_gen4 (no downloads)."""
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


# ----------------------------------------------------------------------------- data
def blobs(n, d=20, k=4, seed=0, noise=1.6, label_noise=0.0, imbalance=None):
    g = torch.Generator().manual_seed(1000 + seed)
    centers = torch.randn(k, d, generator=g) * 1.0
    if imbalance is None:
        y = torch.randint(0, k, (n,), generator=g)
    else:
        p = torch.tensor(imbalance)
        y = torch.multinomial(p, n, replacement=True, generator=g)
    x = centers[y] + noise * 1.25 * torch.randn(n, d, generator=g)
    if label_noise > 0:
        flip = torch.rand(n, generator=g) < label_noise
        y = torch.where(flip, torch.randint(0, k, (n,), generator=g), y)
    return x, y


def regression(n, d=8, seed=0, noise=0.1):
    g = torch.Generator().manual_seed(2000 + seed)
    x = torch.randn(n, d, generator=g)
    y = torch.sin(2 * x[:, 0]) + 0.5 * x[:, 1] ** 2 - x[:, 2] * x[:, 3] + 0.3 * x[:, 4]
    y = y + noise * torch.randn(n, generator=g)
    return x, y


def sinus_vectors(n, length=32, seed=0):
    """Noisy sinusoids sampled into vectors in [-1, 1] (for autoencoders)."""
    g = torch.Generator().manual_seed(3000 + seed)
    t = torch.linspace(0, 1, length)
    f = 1 + 3 * torch.rand(n, 1, generator=g)
    ph = 2 * math.pi * torch.rand(n, 1, generator=g)
    a = 0.6 + 0.35 * torch.rand(n, 1, generator=g)
    x = a * torch.sin(2 * math.pi * f * t + ph) + 0.03 * torch.randn(n, length, generator=g)
    return x.clamp(-1, 1)


def sinus_sequences(n, length=50, k=3, seed=0):
    """Classify the frequency band of a noisy sinusoid sequence: (n, length, 1), labels 0..k-1."""
    g = torch.Generator().manual_seed(4000 + seed)
    y = torch.randint(0, k, (n,), generator=g)
    t = torch.arange(length).float()
    base = torch.tensor([0.04, 0.07, 0.10])[:k]
    f = base[y] + 0.008 * torch.randn(n, generator=g)
    ph = 2 * math.pi * torch.rand(n, generator=g)
    x = torch.sin(2 * math.pi * f[:, None] * t[None] + ph[:, None]) + 0.35 * torch.randn(n, length, generator=g)
    return x.unsqueeze(-1), y


def shapes16(n, seed=0, noise=0.25):
    """16x16 images: 0 square, 1 circle, 2 triangle pointing left, 3 triangle pointing right."""
    g = random.Random(5000 + seed)
    xs = torch.zeros(n, 1, 16, 16)
    ys = torch.zeros(n, dtype=torch.long)
    yy, xx = torch.meshgrid(torch.arange(16).float(), torch.arange(16).float(), indexing="ij")
    for i in range(n):
        c = g.randrange(4)
        s = g.randint(4, 7)
        cx, cy = g.uniform(s, 15 - s), g.uniform(s, 15 - s)
        if c == 0:
            m = ((xx - cx).abs() <= s * 0.8) & ((yy - cy).abs() <= s * 0.8)
        elif c == 1:
            m = ((xx - cx) ** 2 + (yy - cy) ** 2) <= s * s
        elif c == 2:  # apex on the left
            m = ((xx - (cx - s)) >= 0) & ((yy - cy).abs() <= (xx - (cx - s)) * 0.5) & (xx <= cx + s)
        else:  # apex on the right
            m = (((cx + s) - xx) >= 0) & ((yy - cy).abs() <= ((cx + s) - xx) * 0.5) & (xx >= cx - s)
        xs[i, 0] = m.float()
        ys[i] = c
    gt = torch.Generator().manual_seed(5000 + seed)
    xs = xs + noise * torch.randn(xs.shape, generator=gt)
    return xs, ys


ADJ = "small quiet bright heavy old young green cold warm tired happy clever".split()
NOUN = "cat dog bird farmer teacher river house garden child ship baker horse".split()
VERB = "sees finds likes carries follows paints watches helps".split()
PLACE = "near the hill|by the sea|in the town|under the bridge|at the market".split("|")


def sentences(n, seed=0):
    g = random.Random(6000 + seed)
    out = []
    for _ in range(n):
        s = f"the {g.choice(ADJ)} {g.choice(NOUN)} {g.choice(VERB)} the {g.choice(NOUN)} {g.choice(PLACE)}."
        out.append(s)
    return out


CHARS = " .abcdefghijklmnopqrstuvwxyz"
STOI = {c: i + 1 for i, c in enumerate(CHARS)}  # 0 = pad
VOCAB = len(CHARS) + 1


def encode(s):
    return [STOI[c] for c in s]


def char_stream(n_sent, seed=0):
    ids = []
    for s in sentences(n_sent, seed):
        ids += encode(s + " ")
    return torch.tensor(ids)


def lm_blocks(stream, block):
    nb = (len(stream) - 1) // block
    x = stream[: nb * block].view(nb, block)
    y = stream[1: nb * block + 1].view(nb, block)
    return x, y


POS = "great lovely superb tasty fresh".split()
NEG = "awful bland stale rude cold".split()


def review_texts(n, seed=0, length=48):
    """Sentiment: the opinion word comes after a neutral prefix. Returns padded ids (n, length), labels."""
    g = random.Random(7000 + seed)
    ids, ys = [], []
    for _ in range(n):
        lab = g.randrange(2)
        w = g.choice(POS if lab else NEG)
        s = f"the {g.choice(NOUN)} said the food was {w} today"
        if g.random() < 0.08:  # a little label noise
            lab = 1 - lab
        e = encode(s)[:length]
        ids.append(e + [0] * (length - len(e)))
        ys.append(lab)
    return torch.tensor(ids), torch.tensor(ys)


def ring_gaussians(n, seed=0, modes=8):
    g = torch.Generator().manual_seed(8000 + seed)
    k = torch.randint(0, modes, (n,), generator=g)
    ang = 2 * math.pi * k.float() / modes
    return torch.stack([2 * torch.cos(ang), 2 * torch.sin(ang)], 1) + 0.05 * torch.randn(n, 2, generator=g)


# ----------------------------------------------------------------------------- models
class MLP(nn.Module):
    def __init__(self, d_in, d_out, hidden=64, depth=2, dropout=0.0, act=nn.ReLU):
        super().__init__()
        layers, d = [], d_in
        for _ in range(depth):
            layers += [nn.Linear(d, hidden), act()]
            if dropout:
                layers.append(nn.Dropout(dropout))
            d = hidden
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(d, d_out)

    def forward(self, x):
        return self.head(self.body(x))


class CNNBN(nn.Module):
    def __init__(self, k=4, width=16, bn_momentum=0.1):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.BatchNorm2d(width, momentum=bn_momentum), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width, momentum=bn_momentum), nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.head = nn.Linear(2 * width * 16, k)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


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
    def __init__(self, k=4, c=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU())
        self.blocks = nn.Sequential(ResBlock(c), nn.MaxPool2d(2), ResBlock(c), nn.MaxPool2d(2))
        self.head = nn.Linear(c * 16, k)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)).flatten(1))


class RNNClassifier(nn.Module):
    def __init__(self, d_in=1, hidden=48, k=3, cell="gru", batch_first=True, detach_encoder=False):
        super().__init__()
        rnn = {"gru": nn.GRU, "lstm": nn.LSTM, "rnn": nn.RNN}[cell]
        self.rnn = rnn(d_in, hidden, batch_first=batch_first)
        self.head = nn.Linear(hidden, k)
        self.detach_encoder = detach_encoder

    def forward(self, x):
        out, _ = self.rnn(x)
        h = out[:, -1]
        if self.detach_encoder:
            h = h.detach()
        return self.head(h)


class CharGRU(nn.Module):
    def __init__(self, vocab, emb=32, hidden=96, padding_idx=None):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=padding_idx)
        self.rnn = nn.GRU(emb, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.out(h)


class TinyEncoderCls(nn.Module):
    def __init__(self, vocab, k=2, d=48, layers=2, length=48):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.pos = nn.Parameter(torch.randn(1, length, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, k)

    def forward(self, x):
        mask = x == 0
        h = self.enc(self.emb(x) + self.pos[:, : x.shape[1]], src_key_padding_mask=mask)
        h = h.masked_fill(mask[..., None], 0).sum(1) / (~mask).sum(1, keepdim=True)
        return self.head(h)


class AutoEncoder(nn.Module):
    def __init__(self, d=32, z=6, out_act="tanh"):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, z))
        act = {"tanh": nn.Tanh(), "sigmoid": nn.Sigmoid()}[out_act]
        self.dec = nn.Sequential(nn.Linear(z, 64), nn.ReLU(), nn.Linear(64, d), act)

    def forward(self, x):
        return self.dec(self.enc(x))
