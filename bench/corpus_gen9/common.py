"""Shared pieces for corpus_gen9: seeding, synthetic data sets, in-memory tokenizers, small log helpers.

Everything here is synthetic and built in memory; nothing is downloaded.
"""

from __future__ import annotations

import json
import logging
import os
import random
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
SCRATCH = "/tmp/gen9_scratch"


def seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def write_json(path: str, obj) -> None:
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=False)
        f.write("\n")


def write_yaml(path: str, obj: dict) -> None:
    """A flat/nested dict as YAML (what a script would dump with yaml.safe_dump)."""
    import yaml

    with open(path, "w") as f:
        yaml.safe_dump(obj, f, sort_keys=False)


# ----------------------------------------------------------------------------------------------
# tabular data: rows labelled by a fixed random "teacher" network (4 of the 12 features matter)
# ----------------------------------------------------------------------------------------------

def tabular(n: int, seed: int, n_feat: int = 12, n_cls: int = 4, noise: float = 0.0, scales=None):
    """Returns float32 X (n, n_feat) and int64 y (n,). `noise` = share of labels redrawn at random."""
    g = np.random.RandomState(1000 + seed)
    X = g.randn(n, n_feat).astype(np.float32)
    t = np.random.RandomState(77)  # the same teacher for every run
    W1 = t.randn(4, 16)
    W2 = t.randn(16, n_cls)
    h = np.tanh(X[:, :4] @ W1)
    logits = h @ W2
    y = logits.argmax(1).astype(np.int64)
    if noise > 0:
        flip = g.rand(n) < noise
        y[flip] = g.randint(0, n_cls, flip.sum())
    if scales is not None:
        X = X * np.asarray(scales, dtype=np.float32)
    return X, y


def binary_imbalanced(n: int, seed: int, pos_share: float = 0.08, n_feat: int = 10):
    """Binary rows: the positive class is a shifted blob that overlaps the negatives a little."""
    g = np.random.RandomState(2000 + seed)
    y = (g.rand(n) < pos_share).astype(np.float32)
    X = g.randn(n, n_feat).astype(np.float32)
    direction = np.random.RandomState(5).randn(n_feat).astype(np.float32)
    direction /= np.linalg.norm(direction)
    X += np.outer(y, direction * 2.2).astype(np.float32)
    return X, y


def regression_rows(n: int, seed: int, n_feat: int = 8):
    """A smooth known function of 8 features plus noise; the target grows with feature 0."""
    g = np.random.RandomState(3000 + seed)
    X = g.randn(n, n_feat).astype(np.float32)
    y = 3.0 * X[:, 0] + np.sin(2 * X[:, 1]) * 2 + X[:, 2] * X[:, 3] + 0.3 * g.randn(n)
    return X, y.astype(np.float32)


# ----------------------------------------------------------------------------------------------
# 12x12 drawn shapes: horizontal bar, vertical bar, hollow box, diagonal, on a noisy canvas
# ----------------------------------------------------------------------------------------------

def shapes(n: int, seed: int, noise: float = 0.35, size: int = 12):
    g = np.random.RandomState(4000 + seed)
    X = np.zeros((n, 1, size, size), dtype=np.float32)
    y = g.randint(0, 4, n).astype(np.int64)
    for i in range(n):
        c = y[i]
        a, b = g.randint(1, size - 5, 2)
        L = g.randint(4, 7)
        if c == 0:
            X[i, 0, a, b:b + L] = 1.0
            X[i, 0, a + 1, b:b + L] = 1.0
        elif c == 1:
            X[i, 0, a:a + L, b] = 1.0
            X[i, 0, a:a + L, b + 1] = 1.0
        elif c == 2:
            X[i, 0, a, b:b + 4] = 1.0
            X[i, 0, a + 3, b:b + 4] = 1.0
            X[i, 0, a:a + 4, b] = 1.0
            X[i, 0, a:a + 4, b + 3] = 1.0
        else:
            for k in range(L):
                X[i, 0, a + k if a + k < size else size - 1, b + k if b + k < size else size - 1] = 1.0
    X += noise * g.randn(*X.shape).astype(np.float32)
    return X, y


def shapes_uint8(n: int, seed: int, noise: float = 0.35):
    """The same shapes as 8-bit images (0..255, channels last), the way image files are read."""
    X, y = shapes(n, seed, noise)
    img = np.clip((X + 0.5) / 2.0, 0, 1) * 255.0
    return img.transpose(0, 2, 3, 1).astype(np.uint8), y


# ----------------------------------------------------------------------------------------------
# sequences: noisy sinusoids whose frequency is the class
# ----------------------------------------------------------------------------------------------

def sinusoid_classes(n: int, seed: int, T: int = 40, n_cls: int = 4, noise: float = 0.5):
    g = np.random.RandomState(5000 + seed)
    y = g.randint(0, n_cls, n).astype(np.int64)
    t = np.arange(T)[None, :]
    freq = (0.06 + 0.05 * y)[:, None]
    phase = g.rand(n, 1) * 2 * np.pi
    x = np.sin(2 * np.pi * freq * t + phase) + noise * g.randn(n, T)
    return x[:, :, None].astype(np.float32), y


# ----------------------------------------------------------------------------------------------
# text: word-level movie-review-like sentences (sentiment) and a character-level toy corpus
# ----------------------------------------------------------------------------------------------

_POS = ["good", "great", "fun", "moving", "sharp", "lovely", "clever", "warm"]
_NEG = ["bad", "dull", "slow", "flat", "messy", "weak", "boring", "cold"]
_SUBJ = ["the film", "this movie", "the plot", "the acting", "the ending", "the score", "the cast", "the script"]
_FILL = ["really", "quite", "very", "so", "rather", "truly"]


def sentiment(n: int, seed: int):
    """(texts, labels): 'the plot was really not good' is negative; negation flips the word."""
    g = random.Random(6000 + seed)
    texts, labels = [], []
    for _ in range(n):
        pos = g.random() < 0.5
        neg_word = g.random() < 0.3
        word = g.choice(_NEG if (pos == neg_word) else _POS)
        parts = [g.choice(_SUBJ), "was"]
        if g.random() < 0.5:
            parts.append(g.choice(_FILL))
        if neg_word:
            parts.append("not")
        parts.append(word)
        if g.random() < 0.4:
            parts += ["and", g.choice(_SUBJ), "was", g.choice(_FILL)]
        texts.append(" ".join(parts))
        labels.append(int(pos))
    return texts, labels


_NAMES = ["ada", "bo", "cy", "dee", "eli", "fay", "gus", "hal"]
_VERBS = ["reads", "draws", "sings", "codes", "walks", "naps", "bakes", "rows"]
_PLACES = ["at home", "in the park", "by the sea", "at night", "in spring", "on foot"]


def char_corpus(n_lines: int, seed: int):
    """Toy English lines and small sums, e.g. 'ada reads at home.' and '3+4=7.'"""
    g = random.Random(7000 + seed)
    lines = []
    for _ in range(n_lines):
        if g.random() < 0.5:
            a, b = g.randint(0, 9), g.randint(0, 9)
            lines.append(f"{a}+{b}={a + b}.")
        else:
            lines.append(f"{g.choice(_NAMES)} {g.choice(_VERBS)} {g.choice(_PLACES)}.")
    return lines


CHARS = list("abcdefghijklmnopqrstuvwxyz0123456789+=.?:, ")


def char_tokenizer(with_pad: bool = True, add_bos: bool = True):
    """A character-level PreTrainedTokenizerFast built in memory: `<s>` put in front of every text (LLaMA style),
    or nothing added and no pad token (GPT-2 style: with_pad=False, add_bos=False)."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    specials = ["<unk>", "<s>", "</s>"] + (["<pad>"] if with_pad else [])
    vocab = {t: i for i, t in enumerate(specials + CHARS)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex("."), behavior="isolated")
    tok.decoder = decoders.Fuse()
    if add_bos:
        tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", vocab["<s>"])])
    kw = dict(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>", eos_token="</s>")
    if with_pad:
        kw["pad_token"] = "<pad>"
    return PreTrainedTokenizerFast(**kw)


def word_tokenizer():
    """A word-level BERT-style tokenizer ([CLS] text [SEP]) over the sentiment vocabulary."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    words = sorted(set(_POS + _NEG + _FILL + ["was", "not", "and"] + " ".join(_SUBJ).split()))
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab = {t: i for i, t in enumerate(specials + words)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]"
    )


def word_tokenizer_gpt2():
    """The same vocabulary, GPT-2 style: no pad token, an end-of-text token, nothing added around the text."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = sorted(set(_POS + _NEG + _FILL + ["was", "not", "and"] + " ".join(_SUBJ).split()))
    vocab = {t: i for i, t in enumerate(["<|endoftext|>"] + words)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<|endoftext|>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<|endoftext|>", eos_token="<|endoftext|>", bos_token="<|endoftext|>")


# ----------------------------------------------------------------------------------------------
# small log helpers for the printed styles
# ----------------------------------------------------------------------------------------------

class AnsiFormatter(logging.Formatter):
    """A colorlog-like formatter: coloured level names, dim timestamps (what `colorlog` / `loguru` print)."""

    COLORS = {"DEBUG": "\x1b[36m", "INFO": "\x1b[32m", "WARNING": "\x1b[33m", "ERROR": "\x1b[31m", "CRITICAL": "\x1b[1;31m"}

    def format(self, record):
        ts = self.formatTime(record, "%H:%M:%S")
        lvl = record.levelname
        c = self.COLORS.get(lvl, "")
        return f"\x1b[2m{ts}\x1b[0m {c}{lvl:<7}\x1b[0m \x1b[35m{record.name}\x1b[0m | {record.getMessage()}"


def stdout_logger(name: str, fmt: str = "%(asctime)s - %(levelname)s - %(name)s - %(message)s", ansi: bool = False):
    log = logging.getLogger(name)
    log.handlers.clear()
    log.propagate = False
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(AnsiFormatter() if ansi else logging.Formatter(fmt))
    log.addHandler(h)
    log.setLevel(logging.INFO)
    return log


def grad_norm(params) -> float:
    tot = 0.0
    for p in params:
        if p.grad is not None:
            tot += float(p.grad.detach().pow(2).sum())
    return tot ** 0.5
