"""Small torch.nn models shared by the plain-PyTorch and Lightning families."""

from __future__ import annotations

import math

import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, d_in: int = 12, hidden: int = 64, d_out: int = 4, depth: int = 2, dropout: float = 0.0):
        super().__init__()
        layers = []
        d = d_in
        for _ in range(depth):
            layers += [nn.Linear(d, hidden), nn.ReLU()]
            if dropout:
                layers.append(nn.Dropout(dropout))
            d = hidden
        layers.append(nn.Linear(d, d_out))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    """3 conv + BatchNorm blocks for 1x12x12 inputs."""

    def __init__(self, n_cls: int = 4, width: int = 16, dropout: float = 0.0):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width * 2, 3, padding=1), nn.BatchNorm2d(width * 2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width * 2, width * 2, 3, padding=1), nn.BatchNorm2d(width * 2), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.drop = nn.Dropout(dropout)
        self.head = nn.Linear(width * 2, n_cls)

    def forward(self, x):
        return self.head(self.drop(self.features(x).flatten(1)))


class GRUClassifier(nn.Module):
    def __init__(self, d_in: int = 1, hidden: int = 48, n_cls: int = 4):
        super().__init__()
        self.gru = nn.GRU(d_in, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_cls)

    def forward(self, x):
        out, h = self.gru(x)
        return self.head(h[-1])


class CharLM(nn.Module):
    """A tiny causal transformer language model (learned positions, pre-built causal mask)."""

    def __init__(self, vocab: int, d: int = 64, n_layer: int = 2, n_head: int = 4, block: int = 64, norm_first: bool = False):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(block, d)
        layer = nn.TransformerEncoderLayer(d, n_head, 4 * d, dropout=0.0, batch_first=True, norm_first=norm_first)
        self.enc = nn.TransformerEncoder(layer, n_layer, enable_nested_tensor=False)
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)
        self.register_buffer("causal", torch.triu(torch.full((block, block), float("-inf")), diagonal=1), persistent=False)

    def forward(self, idx):
        T = idx.shape[1]
        h = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))[None]
        h = self.enc(h, mask=self.causal[:T, :T], is_causal=True)
        return self.head(self.ln(h))


def n_params(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def cosine_warmup(step: int, warmup: int, total: int) -> float:
    if step < warmup:
        return (step + 1) / warmup
    prog = (step - warmup) / max(1, total - warmup)
    return 0.5 * (1 + math.cos(math.pi * min(1.0, prog)))
