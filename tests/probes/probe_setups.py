"""Tiny setups for the probe tests: `good_*` must pass, the others carry one bug each.

Each function is used as `--setup tests/probes/probe_setups.py:NAME`. Everything is built from a fixed
seed on the CPU and takes milliseconds.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

C = 4  # classes


def _data(n=16, d=8, classes=C, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    y = torch.arange(n) % classes  # every class present
    return x, y


def _mlp(seed=0, d=8, hidden=32, classes=C):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, classes))


def _canonical_step(model, opt, loss_fn, sched=None):
    def train_step(batch):
        x, y = batch
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
        return loss.item()
    return train_step


def good(lr=1e-2):
    model = _mlp()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    return {"model": model, "optimizer": opt, "loss_fn": loss_fn, "batch": _data(), "num_classes": C,
            "train_step": _canonical_step(model, opt, loss_fn), "device": "cpu"}


def good_small_lr():
    return good(lr=3e-4)


# -- optimizer coverage / step ------------------------------------------------------------------
def head_missing():
    s = good()
    s["optimizer"] = torch.optim.Adam(s["model"][0].parameters(), lr=1e-2)  # head (model[2]) forgotten
    s.pop("train_step")
    return s


def adapter_no_trainable():
    """An adapter wrapper whose adapter was created frozen: nothing in the model trains."""
    class LoraLinear(nn.Module):
        def __init__(self, base, r=2):
            super().__init__()
            self.base = base
            self.lora_A = nn.Linear(base.in_features, r, bias=False)
            self.lora_B = nn.Linear(r, base.out_features, bias=False)

        def forward(self, x):
            return self.base(x) + self.lora_B(self.lora_A(x))

    torch.manual_seed(0)
    model = nn.Sequential(LoraLinear(nn.Linear(8, 32)), nn.ReLU(), LoraLinear(nn.Linear(32, C)))
    model.requires_grad_(False)  # froze the base ... and the adapters with it
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    return {"model": model, "optimizer": opt, "loss_fn": nn.CrossEntropyLoss(), "batch": _data(), "num_classes": C}


def zero_grad_missing():
    s = good()
    model, opt, loss_fn = s["model"], s["optimizer"], s["loss_fn"]

    def train_step(batch):
        x, y = batch
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()  # no zero_grad anywhere: gradients pile up
    s["train_step"] = train_step
    return s


def frozen_changes():
    """A loop that applies weight decay by hand to every parameter, the frozen layer included."""
    s = good()
    model, opt, loss_fn = s["model"], s["optimizer"], s["loss_fn"]
    model[0].requires_grad_(False)

    def train_step(batch):
        x, y = batch
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
        with torch.no_grad():
            for p in model.parameters():  # should skip frozen ones
                p.mul_(1 - 1e-2 * 0.1)
    s["train_step"] = train_step
    return s


# -- losses and outputs ---------------------------------------------------------------------------
def softmax_ce():
    s = good()
    s["model"] = nn.Sequential(*s["model"], nn.Softmax(dim=-1))
    s["optimizer"] = torch.optim.Adam(s["model"].parameters(), lr=1e-2)
    s.pop("train_step")
    return s


def softmax_in_loss_fn():
    s = good()
    s["loss_fn"] = lambda out, y: F.cross_entropy(out.softmax(-1), y)
    return s


def nll_on_logits():
    s = good()
    s["loss_fn"] = nn.NLLLoss()
    return s


def good_log_softmax_nll():
    s = good()
    s["model"] = nn.Sequential(*s["model"], nn.LogSoftmax(dim=-1))
    s["optimizer"] = torch.optim.Adam(s["model"].parameters(), lr=1e-2)
    s["loss_fn"] = lambda out, y: F.nll_loss(out, y)
    s.pop("train_step")
    return s


def big_init():
    s = good()
    with torch.no_grad():
        s["model"][2].weight.mul_(40)
    return s


def nondeterministic_eval():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = nn.Linear(8, 32), nn.Linear(32, C)

        def forward(self, x):
            return self.fc2(F.dropout(F.relu(self.fc1(x)), 0.5, training=True))  # ignores eval()

    torch.manual_seed(0)
    model = Net()
    return {"model": model, "optimizer": torch.optim.Adam(model.parameters(), 1e-2),
            "loss_fn": nn.CrossEntropyLoss(), "batch": _data()}


# -- gradients and activations -------------------------------------------------------------------
def detached_body():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body, self.head = nn.Sequential(nn.Linear(8, 32), nn.ReLU()), nn.Linear(32, C)

        def forward(self, x):
            return self.head(self.body(x).detach())

    torch.manual_seed(0)
    model = Net()
    return {"model": model, "optimizer": torch.optim.Adam(model.parameters(), 1e-2),
            "loss_fn": nn.CrossEntropyLoss(), "batch": _data()}


def dead_relu():
    s = good()
    with torch.no_grad():
        s["model"][0].bias.fill_(-50.0)
    return s


def lr_too_high():
    s = good(lr=1.0)
    s.pop("train_step")
    return s


# -- module modes ---------------------------------------------------------------------------------
def _cnn(frozen_backbone_eval: bool):
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
    model = nn.Sequential(backbone, nn.Linear(8, C))
    backbone.requires_grad_(False)
    model.train()
    if frozen_backbone_eval:
        backbone.eval()
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(8, 3, 8, 8, generator=g) * 2 + 1
    y = torch.arange(8) % C
    return {"model": model, "optimizer": opt, "loss_fn": nn.CrossEntropyLoss(), "batch": (x, y), "num_classes": C}


def good_frozen_backbone():
    return _cnn(frozen_backbone_eval=True)


def frozen_bn_train_mode():
    return _cnn(frozen_backbone_eval=False)


def eval_mode_training():
    s = good()
    s["model"].eval()
    s.pop("train_step")
    return s


# -- labels and inputs ----------------------------------------------------------------------------
def labels_one_to_c():
    s = good()
    x, y = s["batch"]
    s["batch"] = (x, y + 1)  # 1..C instead of 0..C-1
    return s


def labels_void_255():
    s = good()
    x, y = s["batch"]
    y = y.clone()
    y[:3] = 255
    s["batch"] = (x, y)
    return s


def labels_float():
    s = good()
    x, y = s["batch"]
    s["batch"] = (x, y.float())
    return s


def _images(scale_255: bool, n=8):
    g = torch.Generator().manual_seed(2)
    raw = torch.randint(0, 256, (n, 3, 8, 8), generator=g).float()
    if scale_255:
        return raw
    x = raw / 255.0
    mean, std = x.mean((0, 2, 3), keepdim=True), x.std((0, 2, 3), keepdim=True)
    return (x - mean) / std


def _image_setup(x):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, C))
    y = torch.arange(x.shape[0]) % C
    return {"model": model, "optimizer": torch.optim.SGD(model.parameters(), lr=0.01),
            "loss_fn": nn.CrossEntropyLoss(), "batch": (x, y), "num_classes": C}


def good_images():
    return _image_setup(_images(scale_255=False))


def images_0_255():
    return _image_setup(_images(scale_255=True))


def eval_not_normalised():
    s = good_images()
    s["eval_batch"] = (_images(scale_255=True) / 255.0, s["batch"][1])  # eval path skips the normalisation
    return s


# -- LR schedule ----------------------------------------------------------------------------------
def good_schedule():
    s = good()
    model, opt, loss_fn = s["model"], s["optimizer"], s["loss_fn"]
    total, warm = 1000, 60
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda step: (step + 1) / warm if step < warm else max(0.0, (total - step) / (total - warm)))
    s.update(scheduler=sched, total_steps=total, train_step=_canonical_step(model, opt, loss_fn, sched))
    return s


def good_schedule_no_loop():
    s = good_schedule()
    s.pop("train_step")
    return s


def scheduler_per_batch():
    """StepLR meant per epoch (step_size=2 epochs), but stepped after every batch."""
    s = good()
    model, opt, loss_fn = s["model"], s["optimizer"], s["loss_fn"]
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    s.update(scheduler=sched, steps_per_epoch=50, epochs=30, train_step=_canonical_step(model, opt, loss_fn, sched))
    return s


def scheduler_other_optimizer():
    s = good()
    other = torch.optim.Adam(s["model"].parameters(), lr=1e-2)
    s["scheduler"] = torch.optim.lr_scheduler.StepLR(other, step_size=1, gamma=0.5)
    s.pop("train_step")
    return s


def scheduler_before_step():
    s = good_schedule()
    model, opt, loss_fn, sched = s["model"], s["optimizer"], s["loss_fn"], s["scheduler"]

    def train_step(batch):
        x, y = batch
        opt.zero_grad()
        sched.step()  # before optimizer.step()
        loss_fn(model(x), y).backward()
        opt.step()
    s["train_step"] = train_step
    return s


# -- precision ------------------------------------------------------------------------------------
def bf16_fragile():
    class Offset(nn.Module):
        def forward(self, z):
            return (z + 1e4) - 1e4  # catastrophic cancellation in a half-precision activation

    s = good()
    s["model"] = nn.Sequential(*s["model"], Offset())
    s["optimizer"] = torch.optim.Adam(s["model"].parameters(), lr=1e-2)
    s.pop("train_step")
    return s


class DtypeDependentDropout(nn.Dropout):
    """A dropout whose mask depends on the dtype of its input, as GPU dropout kernels do (they draw random numbers
    per vector of elements, and a half-precision vector holds twice the elements of an fp32 one)."""

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        step = 1 if x.dtype == torch.float32 else 2
        keep = (torch.rand(x.numel() * step, device=x.device)[::step] >= self.p).reshape(x.shape)
        return x * keep / (1 - self.p)


def dropout_dtype_dependent():
    """A healthy MLP with dropout whose masks differ between fp32 and bf16 passes: no precision problem at all."""
    s = good()
    s["model"] = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), DtypeDependentDropout(0.5), nn.Linear(32, C))
    s["optimizer"] = torch.optim.Adam(s["model"].parameters(), lr=1e-2)
    s.pop("train_step")
    return s


# -- tokenizer (needs transformers; built locally, no download) -------------------------------------
def _tokenizer(pad: bool, side: str = "right"):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = ["<unk>", "<eos>"] + (["<pad>"] if pad else []) + "the cat sat on a mat what did do answer question".split()
    tk = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    kwargs = {"pad_token": "<pad>"} if pad else {}
    return PreTrainedTokenizerFast(tokenizer_object=tk, unk_token="<unk>", eos_token="<eos>", padding_side=side, **kwargs)


class TinyCausalLM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, 16)
        self.lm_head = nn.Linear(16, vocab)

    def get_input_embeddings(self):
        return self.embed

    def forward(self, input_ids, attention_mask=None):
        return self.lm_head(self.embed(input_ids))


def _lm_setup(tok, texts, phase="train"):
    if tok.pad_token is not None:
        enc = tok(texts, padding=True, return_tensors="pt")
        ids, mask = enc["input_ids"], enc["attention_mask"]
    else:
        ids = torch.tensor([tok(t)["input_ids"] for t in texts])  # same length: no padding possible
        mask = torch.ones_like(ids)
    labels = ids.masked_fill(mask == 0, -100)
    torch.manual_seed(0)
    model = TinyCausalLM(len(tok))
    loss_fn = lambda out, y: F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))  # noqa: E731
    return {"model": model, "optimizer": torch.optim.AdamW(model.parameters(), 1e-3), "loss_fn": loss_fn,
            "batch": ({"input_ids": ids, "attention_mask": mask}, labels), "tokenizer": tok, "phase": phase}


def good_tokenizer():
    return _lm_setup(_tokenizer(pad=True), ["the cat sat on a mat", "what did the cat do"])


def tokenizer_without_pad():
    return _lm_setup(_tokenizer(pad=False), ["the cat sat", "a cat sat"])


def tokenizer_right_pad_generation():
    return _lm_setup(_tokenizer(pad=True, side="right"), ["the cat sat on a mat", "what did the cat do"], phase="generate")


# -- broken setups (harness errors) ---------------------------------------------------------------
def returns_list():
    return [1, 2, 3]


def missing_batch():
    s = good()
    s.pop("batch")
    return s


def raises():
    raise RuntimeError("dataset path does not exist")
