"""HF Trainer runs of corpus_gen6: tiny GPT-2 / LLaMA char LMs and a tiny BERT classifier, built from configs."""
import json, os, shutil, tempfile
import torch

from common import sentences


def _args(sp, out, n_train):
    from transformers import TrainingArguments
    return TrainingArguments(output_dir=out, learning_rate=sp.get("lr", 2e-3), per_device_train_batch_size=sp.get("bs", 16),
                             per_device_eval_batch_size=64, num_train_epochs=sp.get("epochs", 3),
                             max_steps=sp.get("max_steps", -1),
                             warmup_steps=sp.get("warmup", 0), lr_scheduler_type=sp.get("sched", "linear"),
                             weight_decay=sp.get("wd", 0.0), logging_steps=sp.get("log_every", 5), eval_strategy="epoch",
                             save_strategy="no", report_to="none", optim=sp.get("optim", "adamw_torch"),
                             max_grad_norm=sp.get("max_grad_norm", 1.0), seed=sp["seed"], disable_tqdm=True, use_cpu=True,
                             dataloader_num_workers=0)


def _finish(trainer, args, run_dir):
    trainer.state.save_to_json(os.path.join(run_dir, "trainer_state.json"))
    with open(os.path.join(run_dir, "config.json"), "w") as f:
        json.dump(args.to_dict(), f, indent=2, default=str)


def fit_hf_lm(sp, run_dir, rng):
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM, Trainer
    T = 64
    text = " ".join(sentences(1500, rng))
    chars = sorted(set(text)); stoi = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([stoi[c] for c in text])
    nb = len(ids) // T
    X = ids[:nb * T].view(nb, T)
    k = int(0.9 * nb)
    ntr = sp.get("n_blocks", k)
    train = [{"input_ids": X[i], "labels": X[i]} for i in range(min(ntr, k))]
    ev = [{"input_ids": X[i], "labels": X[i]} for i in range(k, nb)]
    V = len(chars)
    if sp["model"].startswith("llama"):
        cfg = LlamaConfig(vocab_size=V, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                          num_key_value_heads=2, max_position_embeddings=128)
        model = LlamaForCausalLM(cfg)
    else:
        cfg = GPT2Config(vocab_size=V, n_positions=sp.get("n_positions", 128), n_embd=64, n_layer=2, n_head=4)
        # BUG (n_positions=32): position table shorter than the 64-char training blocks
        model = GPT2LMHeadModel(cfg)

    def pre(logits, labels):
        return logits.argmax(-1)

    def metrics(p):
        pred, lab = p.predictions, p.label_ids
        return {"next_char_acc": float((pred[:, :-1] == lab[:, 1:]).mean())}

    out = tempfile.mkdtemp()
    args = _args(sp, out, len(train))
    tr = Trainer(model=model, args=args, train_dataset=train, eval_dataset=ev, compute_metrics=metrics,
                 preprocess_logits_for_metrics=pre)
    try:
        tr.train()
    finally:
        shutil.rmtree(out, ignore_errors=True)
    _finish(tr, args, run_dir)


POS = "good great tasty friendly lovely excellent".split()
NEG = "bad awful bland rude dirty terrible".split()
THING = "food service staff room soup coffee view price".split()
FILL = "and the place was busy we came on monday it was late again".split()


def fit_hf_cls(sp, run_dir, rng):
    from transformers import BertConfig, BertForSequenceClassification, Trainer

    raw = []
    for _ in range(1400):
        pos = rng.random() < 0.5
        neg_word = rng.random() < 0.3
        adj = rng.choice(POS if pos != neg_word else NEG)
        words = ["the", rng.choice(THING), "was"] + (["not"] if neg_word else []) + [adj] + list(rng.choice(FILL, rng.integers(0, 6)))
        lab = int(pos) if rng.random() > 0.05 else int(not pos)
        raw.append({"text": " ".join(words), "sentiment": lab})
    vocab = ["[PAD]", "[CLS]", "[UNK]"] + sorted(set(POS + NEG + THING + FILL + ["the", "was", "not"]))
    stoi = {w: i for i, w in enumerate(vocab)}
    L = 16

    def enc(ex, train):
        ids = [1] + [stoi.get(w, 2) for w in ex["text"].split()][:L - 1]
        m = [1] * len(ids) + [0] * (L - len(ids))
        ids = ids + [0] * (L - len(ids))
        if train and sp.get("bug") == "label_key":
            lab = ex.get("label", 0)  # BUG: column is called 'sentiment'; .get('label', 0) makes every training label 0
        else:
            lab = ex["sentiment"]
        return {"input_ids": torch.tensor(ids), "attention_mask": torch.tensor(m), "labels": torch.tensor(lab)}

    train = [enc(e, True) for e in raw[:1000]]
    ev = [enc(e, False) for e in raw[1000:]]
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                     max_position_embeddings=32, num_labels=2)
    model = BertForSequenceClassification(cfg)

    def metrics(p):
        pred = p.predictions.argmax(-1)
        return {"accuracy": float((pred == p.label_ids).mean())}

    out = tempfile.mkdtemp()
    args = _args(sp, out, len(train))
    tr = Trainer(model=model, args=args, train_dataset=train, eval_dataset=ev, compute_metrics=metrics)
    try:
        tr.train()
    finally:
        shutil.rmtree(out, ignore_errors=True)
    _finish(tr, args, run_dir)
