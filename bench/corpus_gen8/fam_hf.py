"""HF transformers.Trainer runs (tiny BERT / GPT-2 / LLaMA from configs) and TRL DPO / GRPO runs.

Formats: 'hf_state'   - the Trainer's trainer_state.json (trainer.save_state()) + training_args.json
         'hf_console' - what the script printed (stdout+stderr captured by the generator into train.log)
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import torch
from common import char_tokenizer, reviews, scratch_dir, sentences, set_seed, word_tokenizer

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _finish_state(trainer, out: str, fmt: str) -> None:
    """hf_state runs keep trainer_state.json and the TrainingArguments beside it."""
    if fmt == "hf_state":
        trainer.save_state()
        shutil.copy(os.path.join(trainer.args.output_dir, "trainer_state.json"), os.path.join(out, "trainer_state.json"))
        with open(os.path.join(out, "training_args.json"), "w") as f:
            f.write(trainer.args.to_json_string())


def _acc_metrics(ev):
    preds = np.argmax(ev.predictions, axis=-1)
    return {"accuracy": float((preds == ev.label_ids).mean())}


# ----------------------------------------------------------------------------------------------------------
# BERT sequence classification on word-level reviews
# ----------------------------------------------------------------------------------------------------------

def bert_cls(spec: dict, out: str) -> None:
    from datasets import Dataset
    from transformers import BertConfig, BertForSequenceClassification, DataCollatorWithPadding, Trainer, TrainingArguments

    kw = spec.get("kw", {})
    seed = spec["seed"]
    set_seed(seed)
    tok = word_tokenizer()
    texts, labels = reviews(1000, seed)
    enc = tok(texts, truncation=True, max_length=32)
    label_col = kw.get("label_col", "labels")
    ds = Dataset.from_dict({"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], label_col: labels})
    train_ds, eval_ds = ds.select(range(800)), ds.select(range(800, 1000))
    cfg = BertConfig(vocab_size=len(tok), hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128,
                     max_position_embeddings=64, num_labels=2, pad_token_id=tok.pad_token_id)
    model = BertForSequenceClassification(cfg)
    if kw.get("freeze_encoder"):
        # recipe says: keep the pretrained encoder fixed, train the head. Here the "pretrained" encoder was
        # never loaded (from_pretrained was swapped for from_config to run offline), so it is a random one.
        for p in model.bert.parameters():
            p.requires_grad = False
    print(f"trainable params: {sum(p.numel() for p in model.parameters() if p.requires_grad)} / {sum(p.numel() for p in model.parameters())}")
    odir = "outputs"  # relative to the run's own work folder (the generator chdirs there)
    args = TrainingArguments(
        output_dir=odir, per_device_train_batch_size=32, per_device_eval_batch_size=64,
        num_train_epochs=kw.get("epochs", 6), learning_rate=kw.get("lr", 5e-4), warmup_steps=kw.get("warmup_steps", 0),
        lr_scheduler_type=kw.get("sched", "linear"), weight_decay=0.01, logging_steps=kw.get("logging_steps", 5),
        eval_strategy=kw.get("eval_strategy", "epoch"), eval_steps=kw.get("eval_steps"),
        save_strategy=kw.get("save_strategy", "no"), save_steps=kw.get("save_steps", 500),
        load_best_model_at_end=kw.get("load_best", False), metric_for_best_model=kw.get("best_metric"),
        report_to="none", use_cpu=True, seed=seed, dataloader_num_workers=0,
        disable_tqdm=spec["format"] != "hf_console",
    )
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                      data_collator=DataCollatorWithPadding(tok),
                      compute_metrics=None if kw.get("no_metrics") else _acc_metrics)
    trainer.train()
    _finish_state(trainer, out, spec["format"])


# ----------------------------------------------------------------------------------------------------------
# causal LMs (GPT-2 / LLaMA configs) on a character-level toy corpus
# ----------------------------------------------------------------------------------------------------------

def _lm_blocks(tok, seed: int, n_sent: int, block: int, short_tail: bool = False):
    text = " ".join(sentences(n_sent, seed))
    ids = tok(text, add_special_tokens=False)["input_ids"]
    n = len(ids) // block
    blocks = [ids[i * block:(i + 1) * block] for i in range(n)]
    if short_tail and len(ids) - n * block > 0:
        blocks.append(ids[n * block:])  # the corpus' last, shorter chunk is kept
    return blocks


def _tiny_lm(arch: str, vocab: int, tok, block: int, init_range: float = 0.02):
    if arch == "gpt2":
        from transformers import GPT2Config, GPT2LMHeadModel
        cfg = GPT2Config(vocab_size=vocab, n_positions=block, n_embd=64, n_layer=2, n_head=2, bos_token_id=tok.bos_token_id,
                         eos_token_id=tok.eos_token_id, initializer_range=init_range)
        return GPT2LMHeadModel(cfg)
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=64, intermediate_size=160, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, max_position_embeddings=block, bos_token_id=tok.bos_token_id,
                      eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id, initializer_range=init_range)
    return LlamaForCausalLM(cfg)


class _StopAt:
    """A job-time-limit handler as cluster scripts have: stops the run at a given step (the job is requeued)."""

    def __init__(self, step: int):
        from transformers import TrainerCallback

        class CB(TrainerCallback):
            def on_step_end(self_cb, args, state, control, **kwargs):  # noqa: N805
                if state.global_step >= step:
                    print(f"[timelimit] job time limit reached at step {state.global_step}: stopping, job will be requeued", flush=True)
                    control.should_training_stop = True
                return control
        self.cb = CB()


def causal_lm(spec: dict, out: str) -> None:
    from datasets import Dataset
    from transformers import DataCollatorForLanguageModeling, Trainer, TrainingArguments

    kw = spec.get("kw", {})
    seed = spec["seed"]
    arch = kw.get("arch", "llama")
    set_seed(seed)
    block = 64
    tok = char_tokenizer("gpt2" if arch == "gpt2" else "llama")
    vocab = len(tok)
    if arch == "gpt2":
        if kw.get("add_pad_token"):
            tok.add_special_tokens({"pad_token": "[PAD]"})  # new id == vocab; embeddings not resized
        else:
            tok.pad_token = tok.eos_token
    blocks = _lm_blocks(tok, seed, kw.get("n_sent", 1500), block, short_tail=kw.get("add_pad_token", False))
    n_eval = 40
    train_blocks, eval_blocks = blocks[n_eval:], blocks[:n_eval]
    train_ds = Dataset.from_dict({"input_ids": train_blocks})
    eval_ds = Dataset.from_dict({"input_ids": eval_blocks})
    model = _tiny_lm(arch, vocab, tok, block)
    odir = "outputs"  # relative to the run's own work folder (the generator chdirs there)
    collator = DataCollatorForLanguageModeling(tok, mlm=False)

    def make_args(max_steps=-1):
        return TrainingArguments(
            output_dir=odir, per_device_train_batch_size=16, per_device_eval_batch_size=40,
            num_train_epochs=kw.get("epochs", 3), max_steps=max_steps, learning_rate=kw.get("lr", 2e-3),
            warmup_steps=kw.get("warmup_steps", 10), lr_scheduler_type=kw.get("sched", "linear"),
            lr_scheduler_kwargs=kw.get("sched_kwargs", {}), weight_decay=0.01, logging_steps=kw.get("logging_steps", 5),
            eval_strategy="steps", eval_steps=kw.get("eval_steps", 40), save_strategy=kw.get("save_strategy", "no"),
            save_steps=kw.get("save_steps", 500), report_to="none", use_cpu=True, seed=seed, dataloader_num_workers=0,
            disable_tqdm=spec["format"] != "hf_console", max_grad_norm=kw.get("max_grad_norm", 1.0),
        )

    if kw.get("preempt_at"):
        # attempt 1: stopped by the job time limit; attempt 2: the requeued job resumes from the last checkpoint
        stop = _StopAt(kw["preempt_at"])
        tr1 = Trainer(model=model, args=make_args(kw["max_steps"]), train_dataset=train_ds, eval_dataset=eval_ds,
                      data_collator=collator, callbacks=[stop.cb])
        tr1.train()
        print("=" * 20 + " requeued job: python train_lm.py --resume " + "=" * 20, flush=True)
        set_seed(seed)
        model2 = _tiny_lm(arch, vocab, tok, block)
        tr2 = Trainer(model=model2, args=make_args(kw["max_steps"]), train_dataset=train_ds, eval_dataset=eval_ds,
                      data_collator=collator)
        ckpts = sorted((d for d in os.listdir(odir) if d.startswith("checkpoint-")), key=lambda d: int(d.split("-")[1]))
        print(f"Resuming from {os.path.join(odir, ckpts[-1])}", flush=True)
        tr2.train(resume_from_checkpoint=os.path.join(odir, ckpts[-1]))
        _finish_state(tr2, out, spec["format"])
        return
    trainer = Trainer(model=model, args=make_args(kw.get("max_steps", -1)), train_dataset=train_ds, eval_dataset=eval_ds,
                      data_collator=collator)
    trainer.train()
    _finish_state(trainer, out, spec["format"])


# ----------------------------------------------------------------------------------------------------------
# TRL: a tiny LLaMA first given a short SFT (own loop) on the toy corpus, then DPO or GRPO
# ----------------------------------------------------------------------------------------------------------

def _sft_llama(tok, seed: int, steps: int = 150):
    """A short causal-LM pretraining so that the policy writes corpus-like text (a stand-in for a base model)."""
    set_seed(seed)
    block = 64
    blocks = torch.tensor(_lm_blocks(tok, seed + 1, 1200, block))
    model = _tiny_lm("llama", len(tok), tok, block)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(seed)
    model.train()
    for _ in range(steps):
        idx = torch.randint(0, len(blocks), (16,), generator=g)
        loss = model(input_ids=blocks[idx], labels=blocks[idx]).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"sft warm-start: final lm loss {loss.item():.3f}", flush=True)
    return model


def _sft_checkpoint(tok) -> str:
    """The SFT warm start, written where a real pipeline keeps it (a model folder) and loaded from there by the
    DPO / GRPO stage. All TRL runs share one base (fixed seed), built by the first run that needs it."""
    path = os.path.join(scratch_dir("_sft_base"), "sft")
    if not os.path.exists(os.path.join(path, "config.json")):
        model = _sft_llama(tok, 4242)
        model.save_pretrained(path + ".tmp")
        tok.save_pretrained(path + ".tmp")
        os.replace(path + ".tmp", path)
    return path


def _pref_pairs(seed: int, n: int, same: bool = False):
    """prompt = first words of a sentence, chosen = its true ending, rejected = a scrambled ending."""
    import random
    rs = random.Random(seed)
    rows = {"prompt": [], "chosen": [], "rejected": []}
    for s in sentences(n, seed + 7):
        words = s.split(" ")
        cut = max(2, len(words) - 2)
        prompt = " ".join(words[:cut]) + " "
        chosen = " ".join(words[cut:])
        letters = list(chosen)
        rs.shuffle(letters)
        rejected = "".join(letters)
        rows["prompt"].append(prompt)
        rows["chosen"].append(chosen)
        # the pair builder's bug: both columns read from the same field
        rows["rejected"].append(chosen if same else rejected)
    return rows


def dpo(spec: dict, out: str) -> None:
    from datasets import Dataset
    from trl import DPOConfig, DPOTrainer

    kw = spec.get("kw", {})
    seed = spec["seed"]
    from transformers import AutoConfig, AutoModelForCausalLM

    tok = char_tokenizer("llama")
    sft_dir = _sft_checkpoint(tok)
    policy = AutoModelForCausalLM.from_pretrained(sft_dir)
    ref = None  # TRL loads the reference from the policy's own folder (the SFT checkpoint)
    if kw.get("ref_random"):
        # meant: ref = AutoModelForCausalLM.from_pretrained(sft_dir); the script builds it from the config
        # instead, so the reference is a freshly initialised network
        set_seed(seed + 1)
        ref = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(sft_dir))
    ds = Dataset.from_dict(_pref_pairs(seed, kw.get("pairs", 320), same=kw.get("rejected_is_chosen", False)))
    odir = "outputs"  # relative to the run's own work folder (the generator chdirs there)
    args = DPOConfig(output_dir=odir, per_device_train_batch_size=16, num_train_epochs=kw.get("epochs", 2),
                     learning_rate=kw.get("lr", 5e-4), beta=kw.get("beta", 0.1), max_length=64, logging_steps=kw.get("logging_steps", 2),
                     logging_first_step=True,
                     lr_scheduler_type="linear", warmup_steps=5, report_to="none", use_cpu=True, seed=seed, save_strategy="no",
                     disable_tqdm=spec["format"] != "hf_console")
    set_seed(seed)
    trainer = DPOTrainer(model=policy, ref_model=ref, args=args, train_dataset=ds, processing_class=tok)
    trainer.train()
    _finish_state(trainer, out, spec["format"])


VOWELS = set("aeiou")


def vowel_reward(completions, **kwargs):
    """Toy reward: share of letters in the completion that are vowels (corpus text scores ~0.35)."""
    out = []
    for c in completions:
        letters = [ch for ch in c if ch.isalpha()]
        out.append(sum(ch in VOWELS for ch in letters) / max(1, len(letters)))
    return out


def _vowel_reward_as_shipped(completions, **kwargs):
    """Same score; the list is returned sorted (best first) - left from a 'print the top rewards' debugging edit -
    instead of in the order of `completions`, so each reward lands on whichever completion holds that slot."""
    scores = vowel_reward(completions)
    return sorted(scores, reverse=True)


_vowel_reward_as_shipped.__name__ = "vowel_reward"  # the script's function has this name; TRL logs rewards/<name>/...


def grpo(spec: dict, out: str) -> None:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    kw = spec.get("kw", {})
    seed = spec["seed"]
    from transformers import AutoModelForCausalLM

    tok = char_tokenizer("llama")
    policy = AutoModelForCausalLM.from_pretrained(_sft_checkpoint(tok))
    prompts = [" ".join(s.split(" ")[:3]) + " " for s in sentences(400, seed + 3)]
    ds = Dataset.from_dict({"prompt": prompts})
    odir = "outputs"  # relative to the run's own work folder (the generator chdirs there)
    args = GRPOConfig(output_dir=odir, per_device_train_batch_size=8, num_generations=4, max_completion_length=12,
                      max_steps=kw.get("steps", 100), learning_rate=kw.get("lr", 1e-4), beta=kw.get("beta", 0.04),
                      temperature=1.0, logging_steps=kw.get("logging_steps", 2), lr_scheduler_type="constant_with_warmup",
                      warmup_steps=5, report_to="none", use_cpu=True, seed=seed, save_strategy="no",
                      disable_tqdm=spec["format"] != "hf_console")
    reward = _vowel_reward_as_shipped if kw.get("reward_sorted") else vowel_reward
    set_seed(seed)
    trainer = GRPOTrainer(model=policy, reward_funcs=reward, args=args, train_dataset=ds, processing_class=tok)
    trainer.train()
    _finish_state(trainer, out, spec["format"])


# registry
RUNNERS = {"bert_cls": bert_cls, "causal_lm": causal_lm, "dpo": dpo, "grpo": grpo}

