"""Hugging Face transformers.Trainer runs (tiny BERT / GPT-2 / LLaMA built from configs) and TRL DPOTrainer /
GRPOTrainer runs on a tiny LLaMA warm-started by a short SFT stage.

Formats: `hf_state` (trainer_state.json from trainer.save_state() + training_args.json) and `hf_console` (the
printed console, captured by the generator into train.log)."""

from __future__ import annotations

import os
import random
import re
import shutil

import numpy as np
import torch
from datasets import Dataset
from transformers import (
    BertConfig,
    BertForSequenceClassification,
    DataCollatorWithPadding,
    GPT2Config,
    GPT2ForSequenceClassification,
    GPT2LMHeadModel,
    LlamaConfig,
    LlamaForCausalLM,
    Trainer,
    TrainerCallback,
    TrainingArguments,
    default_data_collator,
)

import common as C

SFT_DIR = os.path.join(C.SCRATCH, "sft_base")


def _args(spec, **kw):
    base = dict(output_dir="outputs", report_to="none", use_cpu=True, save_strategy="no", logging_steps=10, seed=spec["seed"],
                data_seed=spec["seed"], dataloader_num_workers=0, disable_tqdm=False)
    base.update(kw)
    return TrainingArguments(**base)


def _save_state(trainer, run_dir):
    trainer.save_state()
    shutil.copy(os.path.join(trainer.args.output_dir, "trainer_state.json"), os.path.join(run_dir, "trainer_state.json"))
    with open(os.path.join(run_dir, "training_args.json"), "w") as f:
        f.write(trainer.args.to_json_string())


def _accuracy(eval_pred):
    logits, labels = eval_pred
    return {"accuracy": float((np.argmax(logits, -1) == labels).mean())}


# ------------------------------------------------------------------------------------------------
# data

def _sentiment_ds(tok, n, seed, label_dtype=int):
    texts, labels = C.sentiment(n, seed)
    enc = tok(texts, truncation=True, max_length=32)
    return Dataset.from_dict({"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "labels": [label_dtype(v) for v in labels]})


def _lm_blocks(tok, n_lines, seed, block=64):
    ids = []
    for ln in C.char_corpus(n_lines, seed):
        ids += tok(ln, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    n = len(ids) // block
    blocks = [ids[i * block:(i + 1) * block] for i in range(n)]
    return Dataset.from_dict({"input_ids": blocks, "attention_mask": [[1] * block] * n, "labels": blocks})


def _llama(tok, dtype=None):
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                      max_position_embeddings=128, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                      tie_word_embeddings=True)
    model = LlamaForCausalLM(cfg)
    return model.to(dtype) if dtype is not None else model


def _bert(tok, num_labels=2):
    cfg = BertConfig(vocab_size=len(tok), hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, max_position_embeddings=64,
                     num_labels=num_labels, pad_token_id=tok.pad_token_id)
    return BertForSequenceClassification(cfg)


# ------------------------------------------------------------------------------------------------
# transformers.Trainer runs

def hf_bert_cls(spec, run_dir):
    """Tiny BERT sentiment classifier. kw: lr, warmup (steps, or a fraction of the run), float_labels, console."""
    kw = spec["kw"]
    tok = C.word_tokenizer()
    train = _sentiment_ds(tok, 1200, spec["seed"], float if kw.get("float_labels") else int)
    evald = _sentiment_ds(tok, 300, spec["seed"] + 1, float if kw.get("float_labels") else int)
    model = _bert(tok)
    args = _args(spec, learning_rate=kw.get("lr", 1e-3), num_train_epochs=3, per_device_train_batch_size=16, per_device_eval_batch_size=64,
                 warmup_steps=kw.get("warmup", 0), lr_scheduler_type="linear", eval_strategy="steps", eval_steps=25, weight_decay=0.01)
    trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=evald, data_collator=DataCollatorWithPadding(tok), compute_metrics=_accuracy)
    trainer.train()
    if not kw.get("console"):
        _save_state(trainer, run_dir)


def hf_gpt2_cls(spec, run_dir):
    """GPT-2 sequence classifier on the sentiment sentences; the GPT-2 style tokenizer has no pad token, so the
    script sets tokenizer.pad_token = tokenizer.eos_token before padding."""
    tok = C.word_tokenizer_gpt2()
    tok.pad_token = tok.eos_token
    cfg = GPT2Config(vocab_size=len(tok), n_positions=64, n_embd=64, n_layer=2, n_head=4, num_labels=2,
                     bos_token_id=tok.eos_token_id, eos_token_id=tok.eos_token_id)
    model = GPT2ForSequenceClassification(cfg)
    train = _sentiment_ds(tok, 1200, spec["seed"])
    evald = _sentiment_ds(tok, 300, spec["seed"] + 1)
    args = _args(spec, learning_rate=1e-3, num_train_epochs=3, per_device_train_batch_size=16, warmup_steps=20, eval_strategy="epoch")
    trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=evald, data_collator=DataCollatorWithPadding(tok), compute_metrics=_accuracy)
    trainer.train()


def hf_gpt2_lm(spec, run_dir):
    """GPT-2 char LM (console): AdamW 2e-3, warmup 20, cosine, eval each epoch."""
    tok = C.char_tokenizer(with_pad=False, add_bos=False)
    cfg = GPT2Config(vocab_size=len(tok), n_positions=64, n_embd=64, n_layer=2, n_head=4, bos_token_id=tok.eos_token_id, eos_token_id=tok.eos_token_id)
    model = GPT2LMHeadModel(cfg)
    train = _lm_blocks(tok, 2500, spec["seed"])
    evald = _lm_blocks(tok, 300, spec["seed"] + 1)
    args = _args(spec, learning_rate=2e-3, num_train_epochs=3, per_device_train_batch_size=16, warmup_steps=20, lr_scheduler_type="cosine",
                 eval_strategy="epoch", logging_steps=10)
    Trainer(model=model, args=args, train_dataset=train, eval_dataset=evald, data_collator=default_data_collator).train()


def hf_llama_lm(spec, run_dir):
    """LLaMA char LM. kw: sched, num_cycles, epochs, eval_steps, dtype ('float16' builds the model in half precision), console."""
    kw = spec["kw"]
    tok = C.char_tokenizer()
    dtype = torch.float16 if kw.get("dtype") == "float16" else None
    model = _llama(tok, dtype)
    train = _lm_blocks(tok, 2500, spec["seed"])
    evald = _lm_blocks(tok, 300, spec["seed"] + 1)
    extra = {}
    if kw.get("num_cycles"):
        extra["lr_scheduler_kwargs"] = {"num_cycles": kw["num_cycles"]}
    args = _args(spec, learning_rate=kw.get("lr", 2e-3), num_train_epochs=kw.get("epochs", 3), per_device_train_batch_size=16, warmup_steps=10,
                 lr_scheduler_type=kw.get("sched", "linear"), eval_strategy="steps", eval_steps=kw.get("eval_steps", 30), logging_steps=5, **extra)
    trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=evald, data_collator=default_data_collator)
    trainer.train()
    if not kw.get("console"):
        _save_state(trainer, run_dir)


class StepBudget(TrainerCallback):
    """Stops the job after a fixed number of optimizer steps (the scheduler's time slot)."""

    def __init__(self, stop_at):
        self.stop_at = stop_at

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step >= self.stop_at:
            control.should_training_stop = True
            print(f"[job] step budget reached at step {state.global_step}; exiting, resubmit to continue", flush=True)
        return control


def hf_llama_resumed(spec, run_dir):
    """LLaMA char LM whose first job stops at step 70 (checkpoints every 25 steps); the resubmitted job resumes
    from the latest checkpoint (checkpoint-50) and appends to the same log."""
    tok = C.char_tokenizer()
    train = _lm_blocks(tok, 2500, spec["seed"])
    evald = _lm_blocks(tok, 300, spec["seed"] + 1)

    def make(callbacks):
        torch.manual_seed(spec["seed"])
        args = _args(spec, learning_rate=2e-3, num_train_epochs=3, per_device_train_batch_size=16, warmup_steps=10, lr_scheduler_type="linear",
                     eval_strategy="steps", eval_steps=30, logging_steps=5, save_strategy="steps", save_steps=25, save_total_limit=2)
        return Trainer(model=_llama(tok), args=args, train_dataset=train, eval_dataset=evald, data_collator=default_data_collator, callbacks=callbacks)

    print("=== job 1 ===", flush=True)
    make([StepBudget(70)]).train()
    print("=== job 2 (resubmitted) ===", flush=True)
    make([]).train(resume_from_checkpoint=True)


# ------------------------------------------------------------------------------------------------
# TRL: SFT warm start, DPO, GRPO

def build_sft_base(seed=4242):
    """A tiny LLaMA trained 240 steps on the toy corpus (sums and sentences), saved with save_pretrained."""
    if os.path.exists(os.path.join(SFT_DIR, "config.json")):
        return
    C.seed_all(seed)
    tok = C.char_tokenizer()
    model = _llama(tok)
    lines = C.char_corpus(4000, seed)
    g = random.Random(seed)
    for _ in range(1500):
        a, b = g.randint(0, 9), g.randint(0, 9)
        lines.append(f"question: what is {a}+{b}? answer: the sum is {a + b}.")
    g.shuffle(lines)
    ids = []
    for ln in lines:
        ids += tok(ln)["input_ids"] + [tok.eos_token_id]
    block = 64
    n = len(ids) // block
    blocks = [ids[i * block:(i + 1) * block] for i in range(n)]
    ds = Dataset.from_dict({"input_ids": blocks, "attention_mask": [[1] * block] * n, "labels": blocks})
    args = TrainingArguments(output_dir=os.path.join(C.SCRATCH, "sft_out"), report_to="none", use_cpu=True, save_strategy="no", learning_rate=3e-3,
                             max_steps=240, per_device_train_batch_size=32, warmup_steps=20, lr_scheduler_type="cosine", logging_steps=40, seed=seed,
                             disable_tqdm=True)
    Trainer(model=model, args=args, train_dataset=ds, data_collator=default_data_collator).train()
    model.save_pretrained(SFT_DIR)
    tok.save_pretrained(SFT_DIR)


def _load_base():
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(SFT_DIR)
    model = LlamaForCausalLM.from_pretrained(SFT_DIR)
    return model, tok


_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen",
          "fifteen", "sixteen", "seventeen", "eighteen"]


def _dpo_pairs(n, seed):
    """Preference pairs: the answer written in digits is preferred to the same answer spelled out."""
    g = random.Random(8000 + seed)
    rows = []
    for _ in range(n):
        a, b = g.randint(0, 9), g.randint(0, 9)
        rows.append({"prompt": f"question: what is {a}+{b}? answer:", "chosen": f" the sum is {a + b}.", "rejected": f" the sum is {_WORDS[a + b]}."})
    return Dataset.from_list(rows)


def trl_dpo(spec, run_dir):
    """DPO from the SFT base (TRL builds the reference from the same checkpoint). kw: beta, lr, max_length, console."""
    from trl import DPOConfig, DPOTrainer

    kw = spec["kw"]
    model, tok = _load_base()
    cfg = DPOConfig(output_dir="outputs", report_to="none", use_cpu=True, save_strategy="no", learning_rate=kw.get("lr", 5e-4), beta=kw.get("beta", 0.1),
                    per_device_train_batch_size=8, num_train_epochs=1, max_length=kw.get("max_length", 128), logging_steps=2, seed=spec["seed"],
                    lr_scheduler_type="linear", warmup_steps=2, disable_tqdm=False)
    trainer = DPOTrainer(model=model, args=cfg, train_dataset=_dpo_pairs(400, spec["seed"]), processing_class=tok)
    trainer.train()
    if not kw.get("console"):
        _save_state(trainer, run_dir)


def _grpo_prompts(n, seed, task="sum"):
    """'a+b=' prompts with their answer, or sentence starts ('ada reads') for the place reward."""
    g = random.Random(9000 + seed)
    rows = []
    for _ in range(n):
        if task == "sum":
            a, b = g.randint(0, 9), g.randint(0, 9)
            rows.append({"prompt": f"{a}+{b}=", "answer": a + b})
        else:
            rows.append({"prompt": f"{g.choice(C._NAMES)} {g.choice(C._VERBS)}"})
    return Dataset.from_list(rows)


def reward_park(completions, **kwargs):
    """1 when the sentence ends up in the park, +0.2 for a finished sentence."""
    return [(1.0 if "park" in c else 0.0) + (0.2 if c.strip().endswith(".") else 0.0) for c in completions]


_NUM = re.compile(r"^(\d+)\.")


def reward_sum(completions, answer, **kwargs):
    """0.3 for a well-formed '<number>.' answer, +0.7 when the number is the right sum."""
    out = []
    for c, ans in zip(completions, answer):
        m = _NUM.match(c.strip())
        r = 0.0
        if m:
            r += 0.3
            if int(m.group(1)) == ans:
                r += 0.7
        out.append(r)
    return out


def reward_sum_int(completions, answer, **kwargs):
    """1 when the completion's number is the right sum."""
    return [1.0 if int(c.strip().split(".")[0]) == ans else 0.0 for c, ans in zip(completions, answer)]


def reward_sum_exact(completions, answer, **kwargs):
    """1 when the completion is the right sum."""
    return [1.0 if c == str(ans) else 0.0 for c, ans in zip(completions, answer)]


REWARDS = {"sum": reward_sum, "sum_int": reward_sum_int, "sum_exact": reward_sum_exact, "park": reward_park}


def trl_grpo(spec, run_dir):
    """GRPO from the SFT base on 'a+b=' prompts. kw: reward, lr, beta, steps, console."""
    from trl import GRPOConfig, GRPOTrainer

    kw = spec["kw"]
    model, tok = _load_base()
    cfg = GRPOConfig(output_dir="outputs", report_to="none", use_cpu=True, save_strategy="no", learning_rate=kw.get("lr", 2e-4), beta=kw.get("beta", 0.04),
                     per_device_train_batch_size=8, num_generations=4, max_completion_length=kw.get("max_completion_length", 8), max_steps=kw.get("steps", 60), logging_steps=2,
                     seed=spec["seed"], temperature=1.0, disable_tqdm=False, lr_scheduler_type="constant")
    trainer = GRPOTrainer(model=model, reward_funcs=REWARDS[kw.get("reward", "sum")], args=cfg, train_dataset=_grpo_prompts(600, spec["seed"], "park" if kw.get("reward") == "park" else "sum"),
                          processing_class=tok)
    trainer.train()
    if not kw.get("console"):
        _save_state(trainer, run_dir)
