"""HF transformers.Trainer (tiny BERT / GPT-2 / LLaMA from configs) and TRL DPOTrainer / GRPOTrainer."""

import json
import os
import shutil

import numpy as np
import torch
from datasets import Dataset
from transformers import (BertConfig, BertForMaskedLM, BertForSequenceClassification, DataCollatorForLanguageModeling,
                          DataCollatorWithPadding, GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, Trainer,
                          TrainingArguments)

import common


def _llama(tok, **kw):
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                      pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                      **kw)
    return LlamaForCausalLM(cfg)


def _finish(spec, out, trainer, console):
    trainer.state.save_to_json(os.path.join(out, "trainer_state.json")) if not console else None
    with open(os.path.join(out, "training_args.json"), "w") as fh:
        json.dump({k: v for k, v in trainer.args.to_dict().items() if isinstance(v, (int, float, str, bool, type(None)))},
                  fh, indent=1)
    trainer.model.config.to_json_file(os.path.join(out, "config.json"))


def _args(c, console, **kw):
    base = dict(output_dir="outputs", report_to="none", use_cpu=True, save_strategy="no", seed=c["seed"],
                logging_steps=c.get("logging_steps", 10), disable_tqdm=not console, dataloader_num_workers=0)
    base.update(kw)
    return TrainingArguments(**base)


def run(spec, out):
    c = dict(spec["cfg"])
    c["seed"] = spec["seed"]
    console = spec["format"].endswith("console")
    common.seed_all(spec["seed"])
    kind = c["kind"]
    if kind in ("dpo", "grpo"):
        return run_trl(spec, out, c, console)
    if kind == "bert_cls":
        texts, labels = common.reviews(2300, seed=spec["seed"])
        tok = common.word_tokenizer(texts)
        lab = [float(x) for x in labels] if c.get("float_labels") else labels
        enc = tok(texts, truncation=True, max_length=24)
        ds = Dataset.from_dict({"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"], "labels": lab})
        tr, ev = ds.select(range(2000)), ds.select(range(2000, 2300))
        cfg = BertConfig(vocab_size=len(tok), hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=128, max_position_embeddings=64, num_labels=c.get("num_labels", 2),
                         pad_token_id=tok.pad_token_id)
        model = BertForSequenceClassification(cfg)

        def metrics(p):
            preds = np.argmax(p.predictions, axis=-1)
            return {"accuracy": float((preds == np.asarray(p.label_ids).astype(int)).mean())}

        args = _args(c, console, learning_rate=c["lr"], num_train_epochs=c["epochs"],
                     per_device_train_batch_size=32, per_device_eval_batch_size=64, eval_strategy="epoch",
                     warmup_steps=c.get("warmup", 0), lr_scheduler_type=c.get("sched", "linear"),
                     weight_decay=0.01)
        trainer = Trainer(model=model, args=args, train_dataset=tr, eval_dataset=ev, compute_metrics=metrics,
                          data_collator=DataCollatorWithPadding(tok))
        trainer.train()
        return _finish(spec, out, trainer, console)
    if kind == "bert_mlm":
        texts, _ = common.reviews(2200, seed=spec["seed"])
        tok = common.word_tokenizer(texts)
        enc = tok(texts, truncation=True, max_length=24)
        ds = Dataset.from_dict({"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]})
        tr, ev = ds.select(range(2000)), ds.select(range(2000, 2200))
        cfg = BertConfig(vocab_size=len(tok), hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=128, max_position_embeddings=64, pad_token_id=tok.pad_token_id)
        model = BertForMaskedLM(cfg)
        coll = DataCollatorForLanguageModeling(tok, mlm=True, mlm_probability=c["mlm_probability"])
        args = _args(c, console, learning_rate=c["lr"], num_train_epochs=c["epochs"], per_device_train_batch_size=32,
                     per_device_eval_batch_size=64, eval_strategy="epoch", warmup_steps=c.get("warmup", 0))
        trainer = Trainer(model=model, args=args, train_dataset=tr, eval_dataset=ev, data_collator=coll)
        trainer.train()
        return _finish(spec, out, trainer, console)
    # causal LMs on the toy char corpus
    tok = common.char_tokenizer()
    texts = common.toy_corpus(1700, seed=spec["seed"])
    enc = tok([t + tok.eos_token for t in texts], truncation=True, max_length=40)
    ds = Dataset.from_dict({"input_ids": enc["input_ids"], "attention_mask": enc["attention_mask"]})
    tr, ev = ds.select(range(1500)), ds.select(range(1500, 1700))
    if kind == "gpt2_lm":
        cfg = GPT2Config(vocab_size=len(tok), n_positions=64, n_embd=64, n_layer=2, n_head=4,
                         bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                         pad_token_id=tok.pad_token_id)
        model = GPT2LMHeadModel(cfg)
    else:
        model = _llama(tok)
    coll = DataCollatorForLanguageModeling(tok, mlm=False)
    kw = dict(learning_rate=c["lr"], per_device_train_batch_size=32, per_device_eval_batch_size=64,
              eval_strategy="steps", eval_steps=c.get("eval_steps", 50), warmup_steps=c.get("warmup", 0),
              lr_scheduler_type=c.get("sched", "linear"), max_steps=c["max_steps"], weight_decay=0.01)
    if c.get("sched_kwargs"):
        kw["lr_scheduler_kwargs"] = c["sched_kwargs"]
    if c.get("optim"):
        kw["optim"] = c["optim"]
    if c.get("resume"):
        kw.update(save_strategy="steps", save_steps=c["max_steps"] // 2)
        # first session: killed after the checkpoint at half-way (a preempted job)
        args1 = _args(c, console, **{**kw, "max_steps": c["max_steps"]})

        class Stop(Exception):
            pass

        from transformers import TrainerCallback

        class Preempt(TrainerCallback):
            def on_save(self, args, state, control, **k):
                raise Stop()

        t1 = Trainer(model=model, args=args1, train_dataset=tr, eval_dataset=ev, data_collator=coll,
                     callbacks=[Preempt()])
        try:
            t1.train()
        except Stop:
            print("job preempted; restarting from the last checkpoint", flush=True)
        common.seed_all(spec["seed"] + 1)
        model = _llama(tok)
        args2 = _args(c, console, **kw)
        trainer = Trainer(model=model, args=args2, train_dataset=tr, eval_dataset=ev, data_collator=coll)
        ck = sorted(d for d in os.listdir("outputs") if d.startswith("checkpoint-"))[-1]
        trainer.train(resume_from_checkpoint=os.path.join("outputs", ck))
        shutil.rmtree("outputs", ignore_errors=True)
        return _finish(spec, out, trainer, console)
    args = _args(c, console, **kw)
    trainer = Trainer(model=model, args=args, train_dataset=tr, eval_dataset=ev, data_collator=coll)
    trainer.train()
    return _finish(spec, out, trainer, console)


def _sft_warm_start(model, tok, steps=150):
    """Short supervised warm start on the toy corpus (the SFT stage before preference / RL tuning)."""
    texts = common.toy_corpus(2000, seed=4242)
    enc = tok([tok.bos_token + t + tok.eos_token for t in texts], padding=True, return_tensors="pt")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(4242)
    model.train()
    for _ in range(steps):
        idx = torch.randint(0, len(texts), (32,), generator=g)
        ids, am = enc["input_ids"][idx], enc["attention_mask"][idx]
        labels = ids.masked_fill(am == 0, -100)
        loss = model(input_ids=ids, attention_mask=am, labels=labels).loss
        opt.zero_grad()
        loss.backward()
        opt.step()


def run_trl(spec, out, c, console):
    from trl import DPOConfig, DPOTrainer, GRPOConfig, GRPOTrainer
    tok = common.char_tokenizer()
    g = np.random.default_rng(spec["seed"])
    # the policy starts from a saved folder, as a Hub checkpoint would; TRL builds the reference from that path
    init = _llama(tok)
    _sft_warm_start(init, tok)
    init.save_pretrained("init_model")
    tok.save_pretrained("init_model")
    model = "init_model"
    if c["kind"] == "dpo":
        rows = []
        for _ in range(600):
            a, b = int(g.integers(1, 10)), int(g.integers(1, 10))
            wrong = a + b + int(g.choice([-2, -1, 1, 2]))
            rows.append({"prompt": f"{a} plus {b} is", "chosen": f" {a + b}.", "rejected": f" {wrong}."})
        ds = Dataset.from_list(rows)
        args = DPOConfig(output_dir="outputs", report_to="none", use_cpu=True, save_strategy="no",
                         seed=spec["seed"], learning_rate=c["lr"], beta=c.get("beta", 0.1),
                         label_smoothing=c.get("label_smoothing", 0.0), per_device_train_batch_size=16,
                         max_steps=c["max_steps"], logging_steps=c.get("logging_steps", 5),
                         max_length=c.get("max_length", 32),
                         warmup_steps=c.get("warmup", 0), disable_tqdm=not console, logging_first_step=True)
        trainer = DPOTrainer(model=model, args=args, train_dataset=ds, processing_class=tok)
        trainer.train()
        return _finish(spec, out, trainer, console)
    prompts = [{"prompt": " ".join(p.split()[:2])} for p in common.toy_corpus(400, seed=spec["seed"])]
    ds = Dataset.from_list(prompts)
    bug = spec.get("bug")

    vocab = set(" ".join(common.toy_corpus(3000, seed=7)).replace(".", " ").split())

    def wellformed_reward(completions, **kw):
        """Share of known words in the completion, +0.5 when it closes the sentence with a period."""
        out = []
        for comp in completions:
            if bug == "first_only":
                comp = completions[0]
            words = comp.replace(".", " ").split()
            known = sum(w in vocab for w in words) / max(1, len(words))
            out.append(known + (0.5 if comp.strip().endswith(".") else 0.0))
        return out

    args = GRPOConfig(output_dir="outputs", report_to="none", use_cpu=True, save_strategy="no", seed=spec["seed"],
                      learning_rate=c["lr"], beta=c.get("beta", 0.04), per_device_train_batch_size=8,
                      num_generations=4, max_completion_length=32, max_steps=c["max_steps"],
                      logging_steps=c.get("logging_steps", 2), temperature=1.0, disable_tqdm=not console,
                      logging_first_step=True)
    trainer = GRPOTrainer(model=model, reward_funcs=wellformed_reward, args=args, train_dataset=ds, processing_class=tok)
    trainer.train()
    return _finish(spec, out, trainer, console)
