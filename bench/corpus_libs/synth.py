"""Synthetic data sets for the library corpus: small, seeded, learnable but not trivial.

Every maker takes a `numpy.random.Generator` so a run's data depend only on its seed. Nothing
here touches the network: the text is drawn from a tiny template grammar, the images are noisy
stripe/blob patterns, the signals are noisy sinusoids.
"""

from __future__ import annotations

import numpy as np

CHARS = list("abcdefghijklmnopqrstuvwxyz0123456789 .,+=")
PAD, EOS, UNK = "<pad>", "<eos>", "<unk>"


def char_vocab() -> dict[str, int]:
    """Character vocabulary with pad=0, eos=1, unk=2 (the ids the tiny tokenizer uses)."""
    vocab = {PAD: 0, EOS: 1, UNK: 2}
    for c in CHARS:
        vocab[c] = len(vocab)
    return vocab


_SUBJ = ["the cat", "a dog", "my friend", "the old man", "a bird", "the teacher", "our team", "the robot"]
_VERB = ["sees", "likes", "finds", "builds", "reads", "paints", "follows", "moves"]
_OBJ = ["the ball", "a red box", "two apples", "the small house", "a long road", "the river", "a quiet song"]
_TAIL = ["today", "at night", "in the park", "with care", "again", "slowly", "before noon"]


def sentences(rng: np.random.Generator, n: int) -> list[str]:
    """Template sentences: enough structure that a small LM's loss falls well below ln(vocab)."""
    out = []
    for _ in range(n):
        s = f"{rng.choice(_SUBJ)} {rng.choice(_VERB)} {rng.choice(_OBJ)}"
        if rng.random() < 0.6:
            s += f" {rng.choice(_TAIL)}"
        out.append(s + ".")
    return out


def sums(rng: np.random.Generator, n: int, hi: int = 9) -> list[tuple[str, str]]:
    """(prompt, answer) pairs like ('3+4=', '7')."""
    out = []
    for _ in range(n):
        a, b = int(rng.integers(0, hi + 1)), int(rng.integers(0, hi + 1))
        out.append((f"{a}+{b}=", str(a + b)))
    return out


def flip_labels(rng: np.random.Generator, y: np.ndarray, classes: int, frac: float) -> np.ndarray:
    """Replace `frac` of the labels by random classes: the irreducible error every real data set
    has, so the loss has a floor above 0 and memorising shows up on held-out data."""
    y = y.copy()
    hit = rng.random(len(y)) < frac
    y[hit] = rng.integers(0, classes, int(hit.sum()))
    return y


def blobs(rng: np.random.Generator, n: int, dim: int = 20, classes: int = 5, noise: float = 2.2,
          weights=None, label_noise: float = 0.08) -> tuple[np.ndarray, np.ndarray]:
    """Overlapping Gaussian class clusters in `dim` dimensions (a small MLP reaches ~85%)."""
    centers = np.random.default_rng(1234).normal(0, 1.0, (classes, dim))  # fixed task, any seed
    p = None if weights is None else np.asarray(weights, float) / np.sum(weights)
    y = rng.choice(classes, size=n, p=p)
    x = centers[y] + rng.normal(0, noise, (n, dim))
    return x.astype(np.float32), flip_labels(rng, y, classes, label_noise).astype(np.int64)


def images(rng: np.random.Generator, n: int, size: int = 16, classes: int = 4, noise: float = 2.0,
           label_noise: float = 0.08):
    """1-channel images: class 0 horizontal stripes, 1 vertical, 2 diagonal, 3 a centred blob;
    random phase and heavy noise so a small CNN needs a few epochs."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    y = rng.integers(0, classes, n)
    x = np.empty((n, 1, size, size), np.float32)
    for i, c in enumerate(y):
        ph = rng.uniform(0, 2 * np.pi)
        f = rng.uniform(0.6, 1.0)
        if c == 0:
            img = np.sin(f * yy + ph)
        elif c == 1:
            img = np.sin(f * xx + ph)
        elif c == 2:
            img = np.sin(f * (xx + yy) / 1.4 + ph)
        else:
            cy, cx = rng.uniform(5, size - 5, 2)
            img = 2 * np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 8.0) - 0.5
        x[i, 0] = img + rng.normal(0, noise, (size, size))
    return x, flip_labels(rng, y, classes, label_noise).astype(np.int64)


def signals(rng: np.random.Generator, n: int, length: int = 64, classes: int = 3, label_noise: float = 0.08):
    """1-D signals: a sinusoid whose frequency band is the class, plus noise and a random phase."""
    t = np.arange(length, dtype=np.float32)
    y = rng.integers(0, classes, n)
    freq = 0.25 + 0.08 * y + rng.uniform(-0.025, 0.025, n)
    x = np.sin(freq[:, None] * t[None] + rng.uniform(0, 6.28, (n, 1))) + rng.normal(0, 1.2, (n, length))
    return x[:, None, :].astype(np.float32), flip_labels(rng, y, classes, label_noise).astype(np.int64)


def token_seqs(rng: np.random.Generator, n: int, length: int = 24, vocab: int = 30, classes: int = 3,
               label_noise: float = 0.08):
    """Token sequences whose class is which of three marker tokens occurs most often; the
    rest is filler (ids >= classes + 1, id 0 is padding)."""
    x = rng.integers(classes + 1, vocab, (n, length))
    y = rng.integers(0, classes, n)
    for i in range(n):
        k = int(rng.integers(3, 6))
        pos = rng.choice(length, k + 2, replace=False)
        x[i, pos[:k]] = y[i] + 1
        other = (y[i] + 1 + rng.integers(0, classes - 1)) % classes
        x[i, pos[k:]] = other + 1
    return x.astype(np.int64), flip_labels(rng, y, classes, label_noise).astype(np.int64)


def regression(rng: np.random.Generator, n: int, dim: int = 8, scale: float = 1.0):
    """y = sin(x0) + x1^2/2 - x2 + noise; `scale` multiplies the target (unnormalised targets)."""
    x = rng.normal(0, 1, (n, dim)).astype(np.float32)
    y = np.sin(x[:, 0]) + 0.5 * x[:, 1] ** 2 - x[:, 2] + rng.normal(0, 0.1, n)
    return x, (scale * y).astype(np.float32)[:, None]
