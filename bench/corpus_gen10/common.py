"""Shared helpers for corpus_gen10: seeds and synthetic data (no downloads)."""

import random

import numpy as np
import torch


def seed_all(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def tabular(n, d=16, k=4, seed=0, noise=0.0, informative=6):
    """Rows labelled by a fixed random teacher net; `noise` flips that share of labels."""
    g = np.random.default_rng(seed)
    x = g.normal(size=(n, d)).astype(np.float32)
    tg = np.random.default_rng(1234)
    w1 = tg.normal(size=(informative, 24))
    w2 = tg.normal(size=(24, k))
    y = np.argmax(np.tanh(x[:, :informative] @ w1) @ w2, axis=1)
    if noise:
        flip = g.random(n) < noise
        y[flip] = g.integers(0, k, flip.sum())
    return x, y.astype(np.int64)


def regression(n, d=8, seed=0, noise=0.1, scale=1.0):
    g = np.random.default_rng(seed)
    x = g.uniform(-2, 2, size=(n, d)).astype(np.float32)
    y = np.sin(x[:, 0]) * 2 + x[:, 1] * x[:, 2] - 0.5 * x[:, 3] ** 2 + 0.3 * x[:, 4]
    y = (y + g.normal(scale=noise, size=n)) * scale
    return x, y.astype(np.float32)


def shapes(n, size=12, seed=0, noise=0.35):
    """4 classes of drawn shapes on a noisy canvas: (n,1,size,size)."""
    g = np.random.default_rng(seed)
    x = g.normal(scale=noise, size=(n, 1, size, size)).astype(np.float32)
    y = g.integers(0, 4, n)
    for i in range(n):
        a, b = g.integers(1, size - 6, 2)
        L = g.integers(4, 6)
        c = y[i]
        if c == 0:
            x[i, 0, a, b:b + L] += 1.0
        elif c == 1:
            x[i, 0, a:a + L, b] += 1.0
        elif c == 2:
            x[i, 0, a:a + L, b] += 1.0
            x[i, 0, a:a + L, b + L - 1] += 1.0
            x[i, 0, a, b:b + L] += 1.0
            x[i, 0, a + L - 1, b:b + L] += 1.0
        else:
            for t in range(L):
                x[i, 0, a + t, b + t] += 1.0
    return x, y.astype(np.int64)


def signals(n, T=40, C=3, seed=0, k=3):
    """Multichannel noisy sinusoids, class = frequency band: (n, C, T)."""
    g = np.random.default_rng(seed)
    y = g.integers(0, k, n)
    t = np.arange(T)[None, None, :]
    freq = (0.08 + 0.07 * y)[:, None, None]
    phase = g.uniform(0, 6.28, size=(n, C, 1))
    amp = g.uniform(0.5, 1.5, size=(n, C, 1))
    x = amp * np.sin(2 * np.pi * freq * t + phase) + g.normal(scale=0.4, size=(n, C, T))
    return x.astype(np.float32), y.astype(np.int64)


WORDS_POS = ["good", "great", "fine", "lovely", "superb", "fun", "moving", "clever"]
WORDS_NEG = ["bad", "awful", "dull", "boring", "weak", "poor", "messy", "slow"]
FILL = ["the", "movie", "film", "plot", "was", "acting", "really", "quite", "and", "story", "very", "a", "so"]


def reviews(n, seed=0):
    g = random.Random(seed)
    texts, labels = [], []
    for _ in range(n):
        lab = g.random() < 0.5
        words = [g.choice(FILL) for _ in range(g.randint(3, 8))]
        neg = g.random() < 0.25
        sent = g.choice(WORDS_POS if lab != neg else WORDS_NEG)
        if neg:
            sent = "not " + sent
        pos = g.randint(0, len(words))
        words.insert(pos, sent)
        texts.append(" ".join(words))
        labels.append(int(lab))
    return texts, labels


def toy_corpus(n, seed=0):
    g = random.Random(seed)
    subj = ["the cat", "a dog", "the bird", "my friend", "the child", "our team"]
    verb = ["sees", "likes", "finds", "eats", "wants", "draws"]
    obj = ["a red ball", "the green box", "some bread", "a small fish", "the blue cup"]
    out = []
    for _ in range(n):
        if g.random() < 0.3:
            a, b = g.randint(1, 9), g.randint(1, 9)
            out.append(f"{a} plus {b} is {a + b}.")
        else:
            out.append(f"{g.choice(subj)} {g.choice(verb)} {g.choice(obj)}.")
    return out


def char_tokenizer(pad=True):
    """Character-level fast tokenizer built in memory."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    chars = list(" abcdefghijklmnopqrstuvwxyz0123456789.,!?<>")
    vocab = {"<pad>": 0, "<bos>": 1, "<eos>": 2, "<unk>": 3}
    for c in chars:
        vocab[c] = len(vocab)
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    kw = dict(tokenizer_object=tok, bos_token="<bos>", eos_token="<eos>", unk_token="<unk>")
    if pad:
        kw["pad_token"] = "<pad>"
    return PreTrainedTokenizerFast(**kw)


def word_tokenizer(texts):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}
    for t in texts:
        for w in t.split():
            vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    from tokenizers.processors import TemplateProcessing
    tok.post_processor = TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]")
