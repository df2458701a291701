"""Shared helpers for corpus_gen8: seeds, synthetic data, tiny tokenizers, small writers.

Everything here is synthetic and built locally (no downloads). The data sets are small on purpose: the whole
generator has to train 60 runs in a few minutes of one CPU core.
"""

from __future__ import annotations

import json
import math
import os
import random

import numpy as np
import torch

TASK_SEED = 12345  # the *task* (teacher nets, vocabularies) is fixed; the run seed only draws samples and inits


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def write_json(path: str, obj, indent: int = 2) -> None:
    with open(path, "w") as f:
        json.dump(obj, f, indent=indent)
        f.write("\n")


def write_yaml_flat(path: str, d: dict) -> None:
    """A flat key: value YAML file (what hparams.yaml / config.yaml of a small script look like)."""
    with open(path, "w") as f:
        for k, v in d.items():
            if isinstance(v, bool):
                v = "true" if v else "false"
            elif v is None:
                v = "null"
            elif isinstance(v, (list, tuple)):
                v = "[" + ", ".join(str(x) for x in v) + "]"
            f.write(f"{k}: {v}\n")


# ----------------------------------------------------------------------------------------------------------
# tabular classification: a fixed random teacher network labels gaussian inputs
# ----------------------------------------------------------------------------------------------------------

def tabular_cls(n: int, seed: int, d: int = 12, k: int = 4, label_noise: float = 0.05, class_probs=None):
    """Returns X (n,d) float32, y (n,) int64. Labels from a fixed 2-layer teacher, a share flipped at random.

    class_probs: if given, rows are re-sampled so that the classes have these shares (imbalanced data)."""
    g = np.random.RandomState(TASK_SEED + d * 31 + k)
    w1 = g.randn(d, 8)
    w1[4:] = 0.0  # only the first 4 features matter; the rest are distractors
    w2 = g.randn(8, k)
    rs = np.random.RandomState(seed)
    m = n * 6 if class_probs is not None else n
    X = rs.randn(m, d).astype(np.float32)
    logits = np.tanh(X @ w1) @ w2
    y = logits.argmax(1)
    if class_probs is not None:
        idx = []
        for c, p in enumerate(class_probs):
            pool = np.where(y == c)[0]
            want = int(round(p * n))
            idx.extend(rs.choice(pool, size=want, replace=len(pool) < want).tolist())
        idx = np.array(idx)
        rs.shuffle(idx)
        X, y = X[idx], y[idx]
    flip = rs.rand(len(y)) < label_noise
    y = np.where(flip, rs.randint(0, k, len(y)), y)
    return X, y.astype(np.int64)


def split(X, y, n_val: int):
    return X[:-n_val], y[:-n_val], X[-n_val:], y[-n_val:]


# ----------------------------------------------------------------------------------------------------------
# small images: four drawn shapes on a noisy canvas
# ----------------------------------------------------------------------------------------------------------

SHAPES = ["hbar", "vbar", "box", "diag"]


def shapes(n: int, seed: int, size: int = 12, noise: float = 0.25, as_uint8: bool = False):
    """X (n,1,size,size) float32 in about [0,1] (or uint8 0-255), y (n,) in 0..3."""
    rs = np.random.RandomState(seed)
    X = np.zeros((n, 1, size, size), dtype=np.float32)
    y = rs.randint(0, 4, n)
    for i in range(n):
        c = y[i]
        L = rs.randint(5, 9)
        r0 = rs.randint(0, size - L + 1)
        c0 = rs.randint(0, size - L + 1)
        img = X[i, 0]
        if c == 0:
            img[r0 + L // 2, c0:c0 + L] = 1.0
        elif c == 1:
            img[r0:r0 + L, c0 + L // 2] = 1.0
        elif c == 2:
            img[r0, c0:c0 + L] = 1.0
            img[r0 + L - 1, c0:c0 + L] = 1.0
            img[r0:r0 + L, c0] = 1.0
            img[r0:r0 + L, c0 + L - 1] = 1.0
        else:
            for t in range(L):
                img[r0 + t, c0 + t] = 1.0
        img += noise * rs.randn(size, size).astype(np.float32)
    X = np.clip(X, 0.0, 1.0)
    if as_uint8:
        return (X * 255).astype(np.uint8), y.astype(np.int64)
    return X, y.astype(np.int64)


# ----------------------------------------------------------------------------------------------------------
# text: short reviews with negation (word level) and a small English-like corpus (character level)
# ----------------------------------------------------------------------------------------------------------

FILLER = ("the a this that movie film plot story actor actors music scene scenes was were is it and but "
          "very quite really so too of in with for on ending cast director script").split()
POS = "good great fine superb lovely fun brilliant charming".split()
NEG = "bad awful boring dull weak poor terrible bland".split()


def reviews(n: int, seed: int, p_not: float = 0.35, min_len: int = 5, max_len: int = 14):
    """Word-level review sentences. Label 1 = positive. 'not' before the polar word flips it."""
    rs = random.Random(seed)
    texts, labels = [], []
    for _ in range(n):
        L = rs.randint(min_len, max_len)
        words = [rs.choice(FILLER) for _ in range(L)]
        pos = rs.random() < 0.5
        w = rs.choice(POS if pos else NEG)
        negate = rs.random() < p_not
        at = rs.randint(1, L - 1)
        ins = ["not", w] if negate else [w]
        words[at:at] = ins
        texts.append(" ".join(words))
        labels.append(int(pos != negate))
    return texts, labels


NOUNS = "cat dog bird fox owl cow hen bee ant rat".split()
ADJS = "red big old shy tall calm wild pale".split()
VERBS = "sees likes chases finds meets helps".split()
PLACES = "park barn hill lake road yard".split()


def sentences(n: int, seed: int):
    rs = random.Random(seed)
    out = []
    for _ in range(n):
        t = rs.random()
        if t < 0.5:
            s = f"the {rs.choice(ADJS)} {rs.choice(NOUNS)} {rs.choice(VERBS)} the {rs.choice(NOUNS)}."
        elif t < 0.8:
            s = f"a {rs.choice(NOUNS)} is in the {rs.choice(PLACES)}."
        else:
            a, b = rs.randint(0, 9), rs.randint(0, 9)
            s = f"{a} plus {b} is {a + b}."
        out.append(s)
    return out


CHARS = list("abcdefghijklmnopqrstuvwxyz0123456789 .,:?!")


def char_tokenizer(style: str = "llama"):
    """A character-level fast tokenizer built in memory.

    style 'llama': <unk>=0 <s>=1 </s>=2 <pad>=3, bos/eos/pad set.
    style 'gpt2' : only <|endoftext|> (bos = eos = unk), no pad token - like the real GPT-2 tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    if style == "gpt2":
        vocab = {"<|endoftext|>": 0}
    else:
        vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "<pad>": 3}
    for c in CHARS:
        vocab[c] = len(vocab)
    unk = "<|endoftext|>" if style == "gpt2" else "<unk>"
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token=unk))
    tk.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    tk.decoder = decoders.Fuse()
    if style == "gpt2":
        return PreTrainedTokenizerFast(tokenizer_object=tk, bos_token=unk, eos_token=unk, unk_token=unk)
    return PreTrainedTokenizerFast(tokenizer_object=tk, bos_token="<s>", eos_token="</s>", unk_token="<unk>", pad_token="<pad>")


def word_tokenizer():
    """Word-level BERT-style tokenizer: [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4, '[CLS] text [SEP]'."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4}
    for w in FILLER + POS + NEG + ["not"]:
        if w not in vocab:
            vocab[w] = len(vocab)
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tk.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    return PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]")


def sine_windows(n: int, seed: int, T: int = 24, horizon: int = 1):
    """Noisy sums of two sinusoids; X (n,T,1), y (n,horizon) the next value(s)."""
    rs = np.random.RandomState(seed)
    X = np.zeros((n, T, 1), np.float32)
    Y = np.zeros((n, horizon), np.float32)
    for i in range(n):
        f1, f2 = rs.uniform(0.05, 0.2), rs.uniform(0.2, 0.4)
        ph = rs.uniform(0, 2 * math.pi, 2)
        t = np.arange(T + horizon)
        s = np.sin(f1 * 2 * math.pi * t + ph[0]) + 0.5 * np.sin(f2 * 2 * math.pi * t + ph[1]) + 0.1 * rs.randn(T + horizon)
        X[i, :, 0] = s[:T]
        Y[i] = s[T:]
    return X, Y


def batches(n: int, bs: int, rs: np.random.RandomState | None = None, drop_last: bool = False):
    idx = rs.permutation(n) if rs is not None else np.arange(n)
    for i in range(0, n, bs):
        b = idx[i:i + bs]
        if drop_last and len(b) < bs:
            break
        yield b


def accuracy(logits: torch.Tensor, y: torch.Tensor) -> float:
    return (logits.argmax(-1) == y).float().mean().item()


def scratch_dir(name: str) -> str:
    """A work folder outside the corpus (checkpoints, HF output_dir): not part of the run folder."""
    d = os.path.join(os.environ.get("GEN8_SCRATCH", "/tmp/gen8_scratch"), name)  # only the shared SFT base uses this
    os.makedirs(d, exist_ok=True)
    return d
