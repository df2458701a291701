"""Runs made with Hugging Face `transformers.Trainer` and TRL (`DPOTrainer`, `GRPOTrainer`).

Every model is built from a config (no Hub download): GPT-2 / Llama / BERT with two layers and a
64-wide hidden size, over a character vocabulary. What lands in a run folder is what the library
itself writes: `trainer_state.json` (its `log_history`) with the model's `config.json` beside it,
as in a `checkpoint-N/` folder, or, for "stdout" runs, the lines `Trainer` prints when tqdm is off.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import io
import math
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch
from torch import nn

import synth

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

_SCRATCH = Path(tempfile.mkdtemp(prefix="corpus_libs_hf_"))  # Trainer output_dir, the SFT base; removed at exit
atexit.register(shutil.rmtree, _SCRATCH, True)
_BASE: dict[int, Path] = {}


# ----------------------------------------------------------------------------- shared pieces
def char_tokenizer():
    """A fast tokenizer over synth.CHARS, one token per character (pad 0, eos 1, unk 2)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    tk = Tokenizer(models.WordLevel(synth.char_vocab(), unk_token=synth.UNK))
    tk.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
    tk.decoder = decoders.Fuse()
    return PreTrainedTokenizerFast(tokenizer_object=tk, pad_token=synth.PAD, eos_token=synth.EOS,
                                   unk_token=synth.UNK)


def _causal_config(arch: str, vocab: int, positions: int = 64):
    """Two-layer, 64-wide decoder; dropout 0 as in current LLM configs."""
    from transformers import GPT2Config, LlamaConfig

    if arch == "gpt2":
        return GPT2Config(vocab_size=vocab, n_positions=positions, n_embd=64, n_layer=2, n_head=2,
                          resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                          bos_token_id=1, eos_token_id=1, pad_token_id=0)
    if arch == "llama":
        return LlamaConfig(vocab_size=vocab, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                           num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=positions,
                           bos_token_id=1, eos_token_id=1, pad_token_id=0, tie_word_embeddings=True)
    raise ValueError(arch)


def _lm_rows(texts: list[str], tok, max_len: int, mask_pad: bool) -> list[dict]:
    """Right-padded rows; labels copy input_ids, with padding set to -100 unless `mask_pad` is off
    (the bug of a hand-written collator that scores the padding)."""
    rows = []
    for t in texts:
        ids = (tok(t).input_ids + [tok.eos_token_id])[:max_len]
        n = len(ids)
        ids = ids + [tok.pad_token_id] * (max_len - n)
        labels = [i if (k < n or not mask_pad) else -100 for k, i in enumerate(ids)]
        rows.append({"input_ids": ids, "attention_mask": [1] * n + [0] * (max_len - n), "labels": labels})
    return rows


def _args(seed: int, steps: int, lr: float, batch: int, **kw):
    from transformers import TrainingArguments

    base = dict(output_dir=str(_SCRATCH / "out"), per_device_train_batch_size=batch, per_device_eval_batch_size=64,
                max_steps=steps, learning_rate=lr, logging_steps=5, report_to=[], save_strategy="no",
                use_cpu=True, disable_tqdm=True, seed=seed, data_seed=seed)
    base.update(kw)
    return TrainingArguments(**base)


def _finish(trainer, model, out: Path, stdout: bool) -> None:
    """Train; keep trainer_state.json + config.json, or the printed lines for a stdout run."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        trainer.train()
    if stdout:
        (out / "train.log").write_text(buf.getvalue())
        return
    trainer.state.save_to_json(str(out / "trainer_state.json"))
    model.config.to_json_file(str(out / "config.json"))


# ----------------------------------------------------------------------------- Trainer runs
def causal_lm(out: Path, seed: int, arch: str = "gpt2", lr: float = 1e-3, steps: int = 150, batch: int = 32,
              n_train: int = 3000, warmup: int = 15, sched: str = "cosine", eval_every: int = 25,
              mask_pad: bool = True, stdout: bool = False, max_grad_norm: float = 1.0) -> None:
    """A tiny decoder trained on template sentences, evaluated on held-out sentences."""
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, Trainer

    rng = np.random.default_rng(seed)
    tok = char_tokenizer()
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(_causal_config(arch, len(tok)))
    train = Dataset.from_list(_lm_rows(synth.sentences(rng, n_train), tok, 48, mask_pad))
    evals = Dataset.from_list(_lm_rows(synth.sentences(rng, 256), tok, 48, mask_pad))
    args = _args(seed, steps, lr, batch, warmup_steps=warmup, lr_scheduler_type=sched,
                 eval_strategy="steps", eval_steps=eval_every, max_grad_norm=max_grad_norm)
    _finish(Trainer(model=model, args=args, train_dataset=train, eval_dataset=evals), model, out, stdout)


def seq_cls(out: Path, seed: int, lr: float = 5e-4, steps: int = 150, batch: int = 32, n_train: int = 2000,
            shuffle_labels: bool = False, eval_on_train: bool = False, train_only: str | None = None,
            warmup: int = 10, stdout: bool = False) -> None:
    """A two-layer BERT classifying token sequences (which marker token is most frequent).

    shuffle_labels: the training labels are permuted (a broken join of texts and labels);
    eval_on_train: the eval set handed to Trainer is the training set itself;
    train_only: freeze every parameter whose name lacks this substring (a name typo freezes all
    but the LayerNorms, which the same filter keeps trainable)."""
    from datasets import Dataset
    from transformers import BertConfig, BertForSequenceClassification, Trainer

    rng = np.random.default_rng(seed)
    x, y = synth.token_seqs(rng, n_train)
    xv, yv = synth.token_seqs(rng, 400)
    if shuffle_labels:
        y = rng.permutation(y)
    cfg = BertConfig(vocab_size=32, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=128, max_position_embeddings=32, num_labels=3, pad_token_id=0)
    torch.manual_seed(seed)
    model = BertForSequenceClassification(cfg)
    if train_only is not None:
        for name, p in model.named_parameters():
            p.requires_grad = train_only in name or "LayerNorm" in name

    def rows(xs, ys):
        return Dataset.from_list([{"input_ids": a.tolist(), "attention_mask": [1] * len(a), "labels": int(b)}
                                  for a, b in zip(xs, ys)])

    train = rows(x, y)
    evals = train if eval_on_train else rows(xv, yv)
    args = _args(seed, steps, lr, batch, warmup_steps=warmup, eval_strategy="steps", eval_steps=25)
    _finish(Trainer(model=model, args=args, train_dataset=train, eval_dataset=evals), model, out, stdout)


class _Regressor(nn.Module):
    """A plain nn.Module for Trainer: returns {'loss', 'logits'} like a transformers model."""

    def __init__(self, dim: int):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 64), nn.GELU(), nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 1))

    def forward(self, x, labels=None):
        pred = self.net(x)
        loss = None if labels is None else nn.functional.mse_loss(pred, labels)
        return {"loss": loss, "logits": pred}


def regression(out: Path, seed: int, lr: float = 3e-3, steps: int = 200, batch: int = 32,
               corrupt_row: int | None = None) -> None:
    """A custom nn.Module trained by Trainer on tabular regression. `corrupt_row` plants one
    row with an inf feature (a parse error upstream) at that index of the training set."""
    from datasets import Dataset
    from transformers import Trainer

    rng = np.random.default_rng(seed)
    x, y = synth.regression(rng, 3000)
    xv, yv = synth.regression(rng, 300)
    if corrupt_row is not None:
        x[corrupt_row, 3] = np.inf
    torch.manual_seed(seed)
    model = _Regressor(x.shape[1])
    train = Dataset.from_dict({"x": x.tolist(), "labels": y.tolist()})
    evals = Dataset.from_dict({"x": xv.tolist(), "labels": yv.tolist()})
    args = _args(seed, steps, lr, batch, eval_strategy="steps", eval_steps=25, warmup_steps=10,
                 remove_unused_columns=False)
    trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=evals)
    with contextlib.redirect_stdout(io.StringIO()):
        trainer.train()
    trainer.state.save_to_json(str(out / "trainer_state.json"))


# ----------------------------------------------------------------------------- TRL runs
def sft_base(seed: int = 7) -> Path:
    """A GPT-2 that has learnt 'a+b=c<eos>' (supervised), saved once per process: the starting
    point for DPO and GRPO, as a real post-training run starts from an SFT model."""
    if seed in _BASE:
        return _BASE[seed]
    from datasets import Dataset
    from transformers import GPT2LMHeadModel, Trainer

    rng = np.random.default_rng(seed)
    tok = char_tokenizer()
    torch.manual_seed(seed)
    model = GPT2LMHeadModel(_causal_config("gpt2", len(tok), positions=32))
    ds = Dataset.from_list(_lm_rows([p + a for p, a in synth.sums(rng, 4000)], tok, 8, True))
    args = _args(seed, 200, 3e-3, 64, warmup_steps=20, lr_scheduler_type="cosine", logging_steps=50)
    with contextlib.redirect_stdout(io.StringIO()):
        Trainer(model=model, args=args, train_dataset=ds).train()
    path = _SCRATCH / f"sft-{seed}"
    model.save_pretrained(path)
    tok.save_pretrained(path)
    _BASE[seed] = path
    return path


def dpo(out: Path, seed: int, beta: float = 0.1, lr: float = 1e-4, steps: int = 60, batch: int = 16,
        swap_frac: float = 0.0, stdout: bool = False) -> None:
    """DPO on sum preferences: chosen is the right answer, rejected a wrong one. `swap_frac` of
    the pairs have chosen and rejected exchanged (noisy preference labels)."""
    from datasets import Dataset
    from transformers import GPT2LMHeadModel, PreTrainedTokenizerFast
    from trl import DPOConfig, DPOTrainer

    base = sft_base()
    rng = np.random.default_rng(seed)
    rows = []
    for p, a in synth.sums(rng, 800):
        wrong = str((int(a) + int(rng.integers(1, 9))) % 19)
        chosen, rejected = (wrong, a) if rng.random() < swap_frac else (a, wrong)
        rows.append({"prompt": p, "chosen": chosen, "rejected": rejected})
    tok = PreTrainedTokenizerFast.from_pretrained(base)
    torch.manual_seed(seed)
    model = GPT2LMHeadModel.from_pretrained(base)
    args = DPOConfig(output_dir=str(_SCRATCH / "dpo"), per_device_train_batch_size=batch, max_steps=steps,
                     logging_steps=2, learning_rate=lr, beta=beta, report_to=[], save_strategy="no",
                     use_cpu=True, disable_tqdm=True, max_length=16, seed=seed, warmup_steps=5)
    trainer = DPOTrainer(model=model, ref_model=copy.deepcopy(model), args=args,
                         train_dataset=Dataset.from_list(rows), processing_class=tok)
    _finish(trainer, model, out, stdout)


def _reward(kind: str):
    """Reward functions as users write them; the broken ones are the faults."""
    def correct(completions, answer, **kw):
        return [1.0 if c.strip() == a else 0.0 for c, a in zip(completions, answer)]

    def tagged(completions, answer, **kw):  # expects a format the model never produces
        out = []
        for c, a in zip(completions, answer):
            inner = c.split("<answer>")[1].split("</answer>")[0] if "<answer>" in c and "</answer>" in c else None
            out.append(1.0 if inner is not None and inner.strip() == a else 0.0)
        return out

    def constant(completions, **kw):  # "non-empty answer" check that every completion passes
        return [1.0 if len(c) >= 0 else 0.0 for c in completions]

    def longer(completions, answer, **kw):  # correctness plus a bonus per character
        return [(1.0 if c.strip()[:len(a)] == a else 0.0) + 0.3 * len(c) for c, a in zip(completions, answer)]

    return {"correct": correct, "tagged": tagged, "constant": constant, "longer": longer}[kind]


def grpo(out: Path, seed: int, reward: str = "correct", lr: float = 1e-4, steps: int = 50, beta: float = 0.04,
         temperature: float = 1.0, max_completion: int = 4, stdout: bool = False) -> None:
    """GRPO from the SFT model on sum prompts, 8 prompts x 4 generations per step."""
    from datasets import Dataset
    from transformers import GPT2LMHeadModel, PreTrainedTokenizerFast
    from trl import GRPOConfig, GRPOTrainer

    base = sft_base()
    rng = np.random.default_rng(seed)
    ds = Dataset.from_list([{"prompt": p, "answer": a} for p, a in synth.sums(rng, 1024)])
    tok = PreTrainedTokenizerFast.from_pretrained(base)
    torch.manual_seed(seed)
    model = GPT2LMHeadModel.from_pretrained(base)
    args = GRPOConfig(output_dir=str(_SCRATCH / "grpo"), per_device_train_batch_size=32, num_generations=4,
                      max_completion_length=max_completion, max_steps=steps, logging_steps=1, learning_rate=lr,
                      beta=beta, temperature=temperature, report_to=[], save_strategy="no", use_cpu=True,
                      disable_tqdm=True, seed=seed)
    trainer = GRPOTrainer(model=model, reward_funcs=_reward(reward), args=args, train_dataset=ds,
                          processing_class=tok)
    _finish(trainer, model, out, stdout)


def summary(out: Path) -> str:
    """One line on how the run went (for the generator's progress print)."""
    import json

    p = out / "trainer_state.json"
    if not p.exists():
        return ""
    hist = [h for h in json.loads(p.read_text())["log_history"] if "loss" in h]
    if not hist:
        return ""
    key = "reward" if "reward" in hist[0] else ("rewards/margins" if "rewards/margins" in hist[0] else "loss")
    vals = [h[key] for h in hist]
    return f"{key} {vals[0]:.4g} -> {vals[-1]:.4g} (min {min(vals):.4g}, max {max(vals):.4g})" + (
        " nan" if any(isinstance(v, float) and math.isnan(v) for v in vals) else "")
