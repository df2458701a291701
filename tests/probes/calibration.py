"""Calibration matrix for the probes: clean setups that no probe may fail, and buggy setups that the
probe naming their cause must catch.

The clean setups are the common architectures at ordinary settings, small enough for a CPU: a CNN with
BatchNorm (convolutions keep PyTorch's default bias, so each conv bias sits right before a BatchNorm), a
ResNet-style network with skip connections (torchvision's layout: no conv bias, 1x1 projection shortcut),
a pre-LN causal transformer LM, a GRU LM, an MLP with dropout and a tiny ViT (patch convolution, zero
class token, 0.02 position embeddings as in the original ViT), each trained by Adam, AdamW (weight decay
0.01, PyTorch's default) or SGD with momentum 0.9 at learning rates between 1e-4 and 3e-3. Every
module is what `torch.nn` ships; the data are seeded random tensors of the right kind (standardised
images and features, token ids from a small character tokenizer with right padding masked by -100).
Three recipes add what ordinary runs also do: a GPT-style LR warmup from 0, SGD with weight decay and
label smoothing, and a count regression whose Poisson loss is negative by definition.

Every setup is a function of this module named by its parts (`clean__cnn_bn__adamw__1e-3`), so a probe
runs it as `--setup tests/probes/calibration.py:clean__cnn_bn__adamw__1e-3`. Run this file to print the
whole matrix: `.venv/bin/python tests/probes/calibration.py` (`--device cuda` runs every probe on a GPU).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

HERE = Path(__file__).resolve().parent
C = 10  # image and feature classes
IMG = 16  # image side
T = 16  # LM context length
SEED = 0

# -- data -------------------------------------------------------------------------------------------


def _images(n=16, seed=1):
    """Standardised images (per-channel mean 0, std 1) and balanced labels."""
    g = torch.Generator().manual_seed(seed)
    raw = torch.rand(n, 3, IMG, IMG, generator=g)
    x = (raw - raw.mean((0, 2, 3), keepdim=True)) / raw.std((0, 2, 3), keepdim=True)
    return x, torch.arange(n) % C


def _features(n=32, d=20, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, d, generator=g), torch.arange(n) % C


TEXT = ("the cat sat on the mat. a dog ran in the park. we train small models on tiny batches. "
        "every probe must pass a clean setup. loss falls when the model learns. ")


class CharTokenizer:
    """A character tokenizer with a pad token (id 0), an end-of-text token and right padding."""

    pad_token, eos_token, padding_side = "<pad>", "<eos>", "right"
    pad_token_id, eos_token_id = 0, 1

    def __init__(self, text=TEXT):
        self.itos = [self.pad_token, self.eos_token] + sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(self.itos)}
        self.all_special_ids = [0, 1]

    def __len__(self):
        return len(self.itos)

    def encode(self, s):
        return [self.stoi[ch] for ch in s] + [self.eos_token_id]

    def batch(self, texts, length):
        """(input_ids, attention_mask, labels) for next-token prediction, right-padded to `length`."""
        ids = torch.full((len(texts), length + 1), self.pad_token_id)
        for i, t in enumerate(texts):
            enc = self.encode(t)[: length + 1]
            ids[i, : len(enc)] = torch.tensor(enc)
        inputs, labels = ids[:, :-1], ids[:, 1:].clone()
        mask = (inputs != self.pad_token_id).long()
        labels[labels == self.pad_token_id] = -100
        return inputs, mask, labels


def _lm_batch(tok, n=8):
    words = TEXT.split(" ")
    texts = [" ".join(words[i: i + 3 + i % 3]) for i in range(n)]  # different lengths: some rows padded
    ids, mask, labels = tok.batch(texts, T)
    return {"input_ids": ids, "attention_mask": mask}, labels


def lm_loss(logits, labels):
    """Next-token cross-entropy over the flattened sequence; padding labels are -100 (ignored)."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1), ignore_index=-100)


# -- models -----------------------------------------------------------------------------------------


class CnnBn(nn.Module):
    """Conv (default bias) -> BatchNorm -> ReLU, twice, then global pooling and a linear head."""

    def __init__(self, classes=C):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(32, classes)

    def forward(self, x):
        return self.head(self.features(x))


class BasicBlock(nn.Module):
    """torchvision's BasicBlock: two 3x3 conv-BN, a skip connection (1x1 conv-BN when the shape changes)."""

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.shortcut = nn.Identity()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + self.shortcut(x))


class ResNetTiny(nn.Module):
    def __init__(self, classes=C):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
        self.layer1 = BasicBlock(16, 16)
        self.layer2 = BasicBlock(16, 32, stride=2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.layer2(self.layer1(self.stem(x)))), 1))


class TinyGPT(nn.Module):
    """Token + position embeddings, pre-LN causal transformer blocks, a final LayerNorm and an LM head."""

    def __init__(self, vocab, d=32, heads=4, layers=2, dropout=0.1):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(T, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout, activation="gelu", batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def get_input_embeddings(self):
        return self.tok

    def forward(self, input_ids, attention_mask=None):
        n = input_ids.shape[1]
        h = self.tok(input_ids) + self.pos(torch.arange(n, device=input_ids.device))
        causal = nn.Transformer.generate_square_subsequent_mask(n, device=input_ids.device)
        return self.head(self.ln_f(self.blocks(h, mask=causal, is_causal=True)))


class GruLM(nn.Module):
    def __init__(self, vocab, d=32, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, d, padding_idx=0)
        self.gru = nn.GRU(d, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def get_input_embeddings(self):
        return self.embed

    def forward(self, input_ids, attention_mask=None):
        out, _ = self.gru(self.embed(input_ids))
        return self.head(out)


def _mlp(d=20, hidden=64, classes=C):
    return nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Dropout(0.1),
                         nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden, classes))


class TinyViT(nn.Module):
    """Patch embedding by a strided conv, a zero class token, learned position embeddings (std 0.02),
    pre-LN transformer blocks and a linear head on the class token."""

    def __init__(self, classes=C, d=32, patch=4, heads=4, layers=2):
        super().__init__()
        self.patch = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(torch.zeros(1, 1, d))
        self.pos = nn.Parameter(torch.randn(1, (IMG // patch) ** 2 + 1, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, 2 * d, 0.0, activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        p = self.patch(x).flatten(2).transpose(1, 2)
        h = torch.cat([self.cls.expand(len(p), -1, -1), p], 1) + self.pos
        return self.head(self.norm(self.encoder(h))[:, 0])


# -- setups -----------------------------------------------------------------------------------------


def _optimizer(kind, params, lr):
    if kind == "adam":
        return torch.optim.Adam(params, lr=lr)
    if kind == "adamw":
        return torch.optim.AdamW(params, lr=lr)  # weight_decay=0.01, PyTorch's default
    if kind == "sgdm":
        return torch.optim.SGD(params, lr=lr, momentum=0.9)
    raise ValueError(kind)


def _train_step(model, opt, loss_fn):
    def train_step(batch):
        x, y = batch
        opt.zero_grad(set_to_none=True)
        out = model(**x) if isinstance(x, dict) else model(x)
        loss = loss_fn(out, y)
        loss.backward()
        opt.step()
        return loss.item()
    return train_step


def build(arch, opt="adam", lr=1e-3):
    """The setup dict of one architecture with one optimizer and LR (the setup contract: triage/probes/__init__.py)."""
    torch.manual_seed(SEED)
    setup = {"device": "cpu"}
    if arch in ("cnn_bn", "resnet", "vit"):
        model = {"cnn_bn": CnnBn, "resnet": ResNetTiny, "vit": TinyViT}[arch]()
        setup.update(batch=_images(), loss_fn=nn.CrossEntropyLoss(), num_classes=C)
    elif arch == "mlp":
        model = _mlp()
        setup.update(batch=_features(), loss_fn=nn.CrossEntropyLoss(), num_classes=C)
    elif arch in ("transformer_lm", "gru_lm"):
        tok = CharTokenizer()
        model = (TinyGPT if arch == "transformer_lm" else GruLM)(len(tok))
        setup.update(batch=_lm_batch(tok), loss_fn=lm_loss, tokenizer=tok, phase="train", causal_lm=True)
    else:
        raise ValueError(f"unknown architecture {arch!r}")
    model.train()
    optimizer = _optimizer(opt, model.parameters(), lr)
    setup.update(model=model, optimizer=optimizer, train_step=_train_step(model, optimizer, setup["loss_fn"]))
    return setup


ARCHS = ("cnn_bn", "resnet", "transformer_lm", "gru_lm", "mlp", "vit")
# Every optimizer at both ends and the middle of the range the issue calls ordinary, 1e-4 .. 3e-3 (Adam's default
# is 1e-3, Kingma & Ba 2015; SGD with momentum usually runs higher, 0.01 .. 0.1, so its low end here is slow).
LRS = {"adam": (1e-4, 1e-3, 3e-3), "adamw": (1e-4, 1e-3, 3e-3), "sgdm": (1e-4, 1e-3, 3e-3)}


def _lr_name(lr):
    return f"{lr:.0e}".replace("e-0", "e-")


def _clean_factory(arch, opt, lr):
    def make_setup():
        return build(arch, opt, lr)
    make_setup.__doc__ = f"{arch} trained by {opt} at lr {lr:g}: no probe may fail."
    return make_setup


def clean__recipe__gpt_adamw_warmup():
    """The GPT-3 recipe on the small LM: AdamW (betas 0.9/0.95, weight decay 0.1), LR 1e-3 warmed up linearly
    from 0 over the first 10% of 1000 steps, then cosine decay; the scheduler steps with every batch."""
    s = build("transformer_lm", "adamw", 1e-3)
    model, loss_fn = s["model"], s["loss_fn"]
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
    total, warm = 1000, 100
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda t: t / warm if t < warm else 0.5 * (1 + math.cos(math.pi * (t - warm) / (total - warm))))
    step = _train_step(model, opt, loss_fn)

    def train_step(batch):
        loss = step(batch)
        sched.step()
        return loss
    s.update(optimizer=opt, scheduler=sched, total_steps=total, train_step=train_step)
    return s


def clean__recipe__resnet_sgd_label_smoothing():
    """The torchvision-style recipe on the small ResNet: SGD (Nesterov momentum 0.9, weight decay 5e-4),
    cross-entropy with label smoothing 0.1, cosine annealing stepped once per epoch."""
    s = build("resnet", "sgdm", 3e-3)
    opt = torch.optim.SGD(s["model"].parameters(), lr=3e-3, momentum=0.9, nesterov=True, weight_decay=5e-4)
    s.pop("train_step")
    s.update(optimizer=opt, loss_fn=nn.CrossEntropyLoss(label_smoothing=0.1), steps_per_epoch=50, epochs=30,
             scheduler_interval="epoch", scheduler=torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=30))
    return s


def clean__recipe__mlp_poisson_counts():
    """Count regression: an MLP predicting log-rates of Poisson counts, PoissonNLLLoss (exp(x) - y x, which is
    below zero by definition once the rates fit counts above 1), Adam at 1e-3."""
    torch.manual_seed(SEED)
    x, _ = _features()
    g = torch.Generator().manual_seed(2)
    y = torch.poisson(torch.full((len(x), 1), 5.0), generator=g)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.PoissonNLLLoss()
    return {"model": model, "optimizer": opt, "loss_fn": loss_fn, "batch": (x, y), "device": "cpu",
            "train_step": _train_step(model, opt, loss_fn)}


GRID = {f"clean__{a}__{o}__{_lr_name(lr)}": (a, o, lr) for a in ARCHS for o in LRS for lr in LRS[o]}
for _name, _spec in GRID.items():
    globals()[_name] = _clean_factory(*_spec)
RECIPES = ["clean__recipe__gpt_adamw_warmup", "clean__recipe__resnet_sgd_label_smoothing", "clean__recipe__mlp_poisson_counts"]
CLEAN = list(GRID) + RECIPES
# the part CI runs on every commit: each architecture with each optimizer once, the LRs in a Latin square so that
# every architecture and every optimizer meets all three LRs, and the recipes
REPRESENTATIVE = [f"clean__{a}__{o}__{_lr_name(LRS[o][(i + j) % 3])}" for i, a in enumerate(ARCHS)
                  for j, o in enumerate(LRS)] + RECIPES


def __getattr__(name):
    """Any other point of the grid by name, e.g. `clean__gru_lm__sgdm__1e-4` (PEP 562 module attribute)."""
    parts = name.split("__")
    if len(parts) == 4 and parts[0] == "clean" and parts[1] in ARCHS and parts[2] in LRS:
        try:
            return _clean_factory(parts[1], parts[2], float(parts[3]))
        except ValueError:
            pass
    raise AttributeError(name)


# -- buggy setups: (setup name) -> the probe that names the cause, and the answers it must give ----------


def bug_adam_lr_far_too_high():
    """CNN trained by Adam at lr 0.3: every step moves each weight by more than its own typical size."""
    return build("cnn_bn", "adam", 0.3)


def bug_sgd_lr_far_too_low():
    """ResNet trained by SGD at lr 1e-7: the weights barely move."""
    return build("resnet", "sgdm", 1e-7)


def bug_head_group_lr_1000x():
    """A transformer LM whose head group got lr 1.0 next to 1e-3 for the body (a typo in a per-group LR)."""
    s = build("transformer_lm", "adamw", 1e-3)
    model = s["model"]
    head = list(model.head.parameters())
    body = [p for n, p in model.named_parameters() if not n.startswith("head.")]
    s["optimizer"] = torch.optim.AdamW([{"params": body, "lr": 1e-3}, {"params": head, "lr": 1.0}])
    s["train_step"] = _train_step(model, s["optimizer"], s["loss_fn"])
    return s


def bug_loss_scaled_to_nothing():
    """An MLP whose loss is divided by 1e12 before backward (a broken accumulation/scaling factor): Adam's
    gradients fall below its eps and the updates vanish."""
    s = build("mlp", "adam", 1e-3)
    base = s["loss_fn"]
    s["loss_fn"] = lambda out, y: base(out, y) * 1e-12
    s.pop("train_step")
    return s


def bug_unused_layer():
    """A GRU LM with a projection layer built in __init__ but never called in forward: it gets no gradient."""
    s = build("gru_lm", "adam", 1e-3)
    model = s["model"]
    model.proj = nn.Linear(64, 64)  # registered, never used
    s["optimizer"] = torch.optim.Adam(model.parameters(), lr=1e-3)
    s.pop("train_step")
    return s


def bug_detached_features():
    """A CNN whose features are detached before the head: the backbone gets no gradient."""
    s = build("cnn_bn", "sgdm", 1e-3)
    model = s["model"]
    model.forward = lambda x: model.head(model.features(x).detach())
    s.pop("train_step")
    return s


def bug_deep_sigmoid_vanishing():
    """A 12-layer sigmoid MLP: the gradient shrinks by ~4x per layer and is gone before the first ones."""
    torch.manual_seed(SEED)
    layers = [nn.Linear(20, 64), nn.Sigmoid()]
    for _ in range(11):
        layers += [nn.Linear(64, 64), nn.Sigmoid()]
    model = nn.Sequential(*layers, nn.Linear(64, C))
    return {"model": model, "optimizer": torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9),
            "loss_fn": nn.CrossEntropyLoss(), "batch": _features(), "num_classes": C}


def bug_nll_on_raw_logits():
    """A GRU LM scored with nll_loss on raw logits: the loss is -logit[y], unbounded below, and dives past 0."""
    s = build("gru_lm", "adam", 1e-3)
    s["loss_fn"] = lambda out, y: F.nll_loss(out.reshape(-1, out.shape[-1]), y.reshape(-1))
    s.pop("train_step")
    return s


def bug_softmax_before_ce():
    """A ViT whose head ends in softmax, fed to CrossEntropyLoss (log_softmax of probabilities)."""
    s = build("vit", "adamw", 1e-3)
    s["model"].head = nn.Sequential(s["model"].head, nn.Softmax(dim=-1))
    s["optimizer"] = torch.optim.AdamW(s["model"].parameters(), lr=1e-3)
    s.pop("train_step")
    return s


def bug_labels_shuffled_every_step():
    """An MLP whose loss sees new random labels at every call (labels drawn inside the loss): nothing fixed to fit."""
    s = build("mlp", "adam", 1e-3)
    g = torch.Generator().manual_seed(3)
    s["loss_fn"] = lambda out, y: F.cross_entropy(out, torch.randint(0, C, y.shape, generator=g).to(y.device))
    s.pop("train_step")
    return s


def bug_frozen_bn_train_mode():
    """A ResNet whose frozen backbone stays in train mode: BatchNorm running statistics drift."""
    s = build("resnet", "sgdm", 1e-3)
    model = s["model"]
    for part in (model.stem, model.layer1, model.layer2):
        part.requires_grad_(False)
    s["optimizer"] = torch.optim.SGD(model.fc.parameters(), lr=1e-3, momentum=0.9)
    s.pop("train_step")
    return s


def bug_head_not_in_optimizer():
    """A transformer LM whose optimizer was built from the blocks only: the head never trains."""
    s = build("transformer_lm", "adamw", 1e-3)
    model = s["model"]
    s["optimizer"] = torch.optim.AdamW([p for n, p in model.named_parameters() if not n.startswith("head.")], lr=1e-3)
    s.pop("train_step")
    return s


def bug_zero_grad_missing():
    """A CNN loop that never calls zero_grad: gradients pile up across steps."""
    s = build("cnn_bn", "sgdm", 1e-3)
    model, opt, loss_fn = s["model"], s["optimizer"], s["loss_fn"]

    def train_step(batch):
        x, y = batch
        loss_fn(model(x), y).backward()
        opt.step()
    s["train_step"] = train_step
    return s


def bug_dead_relu():
    """An MLP whose first layer bias was set to -30: the ReLU after it is off for every input."""
    s = build("mlp", "adam", 1e-3)
    with torch.no_grad():
        s["model"][0].bias.fill_(-30.0)
    return s


def bug_big_init():
    """A CNN whose head weights were scaled by 50: the initial logits are huge and the loss far above ln(C)."""
    s = build("cnn_bn", "adam", 1e-3)
    with torch.no_grad():
        s["model"].head.weight.mul_(50)
    return s


def bug_labels_one_to_c():
    """A ResNet fed labels 1..C instead of 0..C-1."""
    s = build("resnet", "adam", 1e-3)
    x, y = s["batch"]
    s["batch"] = (x, y + 1)
    return s


def bug_images_0_255():
    """A ViT fed raw 0-255 pixels."""
    s = build("vit", "adam", 1e-3)
    x, y = s["batch"]
    g = torch.Generator().manual_seed(1)
    s["batch"] = (torch.randint(0, 256, x.shape, generator=g).float(), y)
    return s


def bug_padding_scored():
    """A transformer LM whose padding positions keep real label ids (the pad id) instead of -100."""
    s = build("transformer_lm", "adamw", 1e-3)
    inputs, labels = s["batch"]
    s["batch"] = (inputs, labels.masked_fill(labels == -100, 0))
    return s


def bug_scheduler_other_optimizer():
    """A GRU LM whose scheduler was attached to an earlier optimizer object."""
    s = build("gru_lm", "adamw", 1e-3)
    other = torch.optim.AdamW(s["model"].parameters(), lr=1e-3)
    s["scheduler"] = torch.optim.lr_scheduler.StepLR(other, step_size=1, gamma=0.5)
    s.pop("train_step")
    return s


def bug_nll_negative_from_start():
    """An MLP scored with nll_loss on raw logits whose loss is below zero from the first step."""
    s = build("mlp", "adam", 1e-3)
    with torch.no_grad():
        s["model"][-1].bias.add_(1.0)  # raw logits around +1: -logit[y] starts negative
    s["loss_fn"] = nn.NLLLoss()
    s.pop("train_step")
    return s


def bug_post_ln_no_warmup():
    """A post-LN transformer LM (norm_first=False, the original layout) trained by Adam at its peak LR from step 0."""
    torch.manual_seed(SEED)
    tok = CharTokenizer()
    model = TinyGPT(len(tok))
    layer = nn.TransformerEncoderLayer(32, 4, 128, 0.1, activation="gelu", batch_first=True, norm_first=False)
    model.blocks = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    return {"model": model, "optimizer": opt, "loss_fn": lm_loss, "batch": _lm_batch(tok),
            "train_step": _train_step(model, opt, lm_loss)}


def bug_mask_0_255_bce():
    """A per-pixel binary segmentation head trained with BCEWithLogitsLoss on masks stored as 0/255 (never divided
    by 255): the targets are not probabilities."""
    torch.manual_seed(SEED)
    x, _ = _images()
    g = torch.Generator().manual_seed(4)
    mask = (torch.rand(len(x), 1, IMG, IMG, generator=g) > 0.5).float() * 255
    model = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.Conv2d(8, 1, 1))
    return {"model": model, "optimizer": torch.optim.Adam(model.parameters(), lr=1e-3),
            "loss_fn": nn.BCEWithLogitsLoss(), "batch": (x, mask)}


# buggy setup -> (the probe that names its cause, the answers it must give, words its message must hold)
BUGGY = {
    "bug_adam_lr_far_too_high": ("update_ratio", {"Q-opt-update-ratio": "high"}, "too high"),
    "bug_sgd_lr_far_too_low": ("update_ratio", {"Q-opt-update-ratio": "low"}, "barely move"),
    "bug_head_group_lr_1000x": ("update_ratio", {"Q-opt-update-ratio": "mixed"}, "per-group LRs"),
    "bug_loss_scaled_to_nothing": ("update_ratio", {"Q-opt-update-ratio": "low"}, "below the optimizer's eps"),
    "bug_unused_layer": ("grad_flow", {"Q-gradnorm": "zero"}, "proj.weight"),
    "bug_detached_features": ("grad_flow", {"Q-gradnorm": "zero"}, "features.0.weight"),
    "bug_deep_sigmoid_vanishing": ("grad_flow", {"Q-gradnorm": "tiny"}, "vanishing"),
    "bug_nll_on_raw_logits": ("overfit_one_batch", {"Q-overfit-one-batch": "fail"}, "below zero"),
    "bug_nll_negative_from_start": ("overfit_one_batch", {"Q-overfit-one-batch": "fail"}, "below zero"),
    "bug_softmax_before_ce": ("overfit_one_batch", {"Q-overfit-one-batch": "fail"}, "stopped improving"),
    "bug_labels_shuffled_every_step": ("overfit_one_batch", {"Q-overfit-one-batch": "fail"}, "stopped improving"),
    "bug_frozen_bn_train_mode": ("module_modes", {"Q-opt-frozen-bn": "yes"}, "BatchNorm"),
    "bug_head_not_in_optimizer": ("optimizer_coverage", {"Q-opt-optimizer-coverage": "no"}, "head.weight"),
    "bug_zero_grad_missing": ("step_changes_weights", {"Q-opt-loop-order": "no"}, "zero_grad"),
    "bug_dead_relu": ("dead_activations", {"Q-opt-dead-relu": "yes"}, "dead units"),
    "bug_big_init": ("loss_at_init", {"Q-loss-init": "high"}, "too large"),
    "bug_labels_one_to_c": ("labels", {"Q-vis-label-values": "shifted"}, "subtract 1"),
    "bug_mask_0_255_bce": ("labels", {}, "binary cross-entropy lie in [0, 255]"),
    "bug_images_0_255": ("input_stats", {"Q-vis-input-stats": "off-scale"}, "0-255"),
    "bug_padding_scored": ("tokenizer", {"Q-llm-labels-masked": "none"}, "no label is -100"),
    "bug_scheduler_other_optimizer": ("lr_schedule", {"Q-lr-schedule": "flat"}, "different optimizer"),
    "bug_post_ln_no_warmup": ("lr_schedule", {"Q-lr-schedule": "no-warmup"}, "post-LN"),
}


# -- running the matrix -----------------------------------------------------------------------------


def applicable(probe, setup_name):
    """Whether the setup gives everything the probe needs (the tokenizer probe needs a tokenizer)."""
    sys.path.insert(0, str(HERE))
    from probe_helpers import SCRIPTS

    from triage.probes.runner import script_constants

    needs = script_constants(SCRIPTS / f"probe_{probe}.py").get("NEEDS", ())
    setup = globals()[setup_name]()
    return all(setup.get(k) is not None for k in needs)


def run(probe, setup_name, *extra):
    """Run one probe in-process on one setup of this file; return its result dict (stdout swallowed)."""
    sys.path.insert(0, str(HERE))
    from probe_helpers import load_script

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            load_script(probe).main(["--setup", f"{Path(__file__).resolve()}:{setup_name}", "--out", str(out),
                                     "--timeout", "600", *extra])
        return json.loads(out.read_text())


def matrix(setups=None, probes=None, extra=()):
    """{(setup, probe): result} for every applicable pair."""
    from triage.probes import names

    results = {}
    for s in setups or CLEAN:
        for p in probes or names():
            if applicable(p, s):
                results[(s, p)] = run(p, s, *extra)
    return results


def main(argv=None):
    import argparse
    import time

    ap = argparse.ArgumentParser(description="Print the probes' calibration matrix: clean setups, then buggy ones.")
    ap.add_argument("--device", help="run every probe on this device (e.g. cuda); default: the setups' own, cpu")
    args = ap.parse_args(argv)
    extra = ("--device", args.device) if args.device else ()
    torch.set_num_threads(1)
    t0 = time.monotonic()
    res = matrix(extra=extra)
    fails = {k: v for k, v in res.items() if v["status"] not in ("pass", "inconclusive")}
    by_probe = {}
    for (_s, p), v in res.items():
        by_probe.setdefault(p, {}).setdefault(v["status"], 0)
        by_probe[p][v["status"]] += 1
    print(f"clean: {len(CLEAN)} setups, {len(res)} (setup, probe) runs, {len(fails)} not pass/inconclusive, "
          f"{time.monotonic() - t0:.1f}s")
    for p, counts in sorted(by_probe.items()):
        print(f"  {p:22s} {counts}")
    for (s, p), v in sorted(fails.items()):
        print(f"  FAIL {s} {p}: {v['status']} {v['message'][:220]}")
    t0 = time.monotonic()
    caught = 0
    for s, (p, answers, words) in BUGGY.items():
        v = run(p, s, *extra)
        ok = v["status"] == "fail" and all(v["answers"].get(k) == a for k, a in answers.items()) and words in v["message"]
        caught += ok
        print(f"  {'caught' if ok else 'MISSED'} {s} by {p}: {v['status']} {v['answers']} {v['message'][:160]}")
    print(f"buggy: {caught}/{len(BUGGY)} caught by the probe naming the cause, {time.monotonic() - t0:.1f}s")
    return 0 if not fails and caught == len(BUGGY) else 1


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1]))
    sys.exit(main())
