"""Runs that use HF Trainer (trainer_state.json) or Lightning (CSVLogger metrics.csv)."""
import os
import shutil
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import seed_all, sentences, char_corpus


# ------------------------------------------------------------------ HF Trainer helpers
class ListDS(torch.utils.data.Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def _trainer_out(trainer, args, run_dir):
    trainer.state.save_to_json(os.path.join(run_dir, "trainer_state.json"))
    with open(os.path.join(run_dir, "config.json"), "w") as f:
        f.write(args.to_json_string())
    for d in os.listdir(run_dir):
        if d.startswith("hf_out"):
            shutil.rmtree(os.path.join(run_dir, d), ignore_errors=True)


def _args(run_dir, **kw):
    from transformers import TrainingArguments
    base = dict(output_dir=os.path.join(run_dir, "hf_out"), report_to=[], save_strategy="no", logging_strategy="steps",
                disable_tqdm=True, use_cpu=True, dataloader_num_workers=0, seed=kw.pop("seed", 0))
    base.update(kw)
    return TrainingArguments(**base)


def word_vocab():
    words = sorted({w for s in sentences(2000, 99) for w in s.replace(".", " .").split()})
    return {w: i + 5 for i, w in enumerate(words)}  # 0 pad, 1 cls, 2 sep, 3 mask, 4 unk


def run_hf_mlm(s, run_dir):
    from transformers import BertConfig, BertForMaskedLM, Trainer
    seed_all(s["seed"])
    vocab = word_vocab(); V = len(vocab) + 5
    def enc(sent):
        return [1] + [vocab.get(w, 4) for w in sent.replace(".", " .").split()] + [2]
    tr = [enc(x) for x in sentences(3000, s["seed"])]; va = [enc(x) for x in sentences(300, s["seed"] + 1)]
    bug = s.get("bug")
    g = torch.Generator().manual_seed(s["seed"])

    def collate(batch):
        L = max(len(b) for b in batch)
        ids = torch.tensor([b + [0] * (L - len(b)) for b in batch])
        att = (ids != 0).long()
        special = (ids == 0) | (ids == 1) | (ids == 2)
        m = (torch.rand(ids.shape, generator=g) < 0.15) & ~special
        labels = ids.clone()
        if bug != "labels_all":
            labels[~m] = -100
        else:
            labels[ids == 0] = -100  # only padding removed: every real token is scored
        inp = ids.clone(); inp[m] = 3
        return {"input_ids": inp, "attention_mask": att, "labels": labels, "mlm_mask": m}

    class DS(ListDS):
        pass

    cfg = BertConfig(vocab_size=V, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                     max_position_embeddings=32)
    model = BertForMaskedLM(cfg)

    class MLMTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
            inputs = dict(inputs); inputs.pop("mlm_mask", None)
            return super().compute_loss(model, inputs, return_outputs, num_items_in_batch)

        def prediction_step(self, model, inputs, prediction_loss_only, ignore_keys=None):
            m = inputs.pop("mlm_mask")
            loss, logits, labels = super().prediction_step(model, inputs, False, ignore_keys)
            # masked-token accuracy: compare predictions at the masked positions with the original ids
            lab = inputs["labels"].clone(); lab[~m] = -100
            return loss, logits.argmax(-1), lab

    def metrics(p):
        pred, lab = p.predictions, p.label_ids
        k = lab != -100
        return {"masked_token_acc": float((pred[k] == lab[k]).mean())}

    args = _args(run_dir, seed=s["seed"], learning_rate=1e-3, per_device_train_batch_size=32, per_device_eval_batch_size=64,
                 num_train_epochs=s.get("epochs", 4), warmup_steps=40, lr_scheduler_type="linear", weight_decay=0.01,
                 logging_steps=10, eval_strategy="steps", eval_steps=50, max_grad_norm=1.0, remove_unused_columns=False)
    trainer = MLMTrainer(model=model, args=args, train_dataset=DS(tr), eval_dataset=DS(va), data_collator=collate,
                         compute_metrics=metrics)
    trainer.train()
    _trainer_out(trainer, args, run_dir)


def run_hf_gpt2(s, run_dir):
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer
    seed_all(s["seed"])
    ids, chars = char_corpus(1200, s["seed"]); T = 64
    blocks = [ids[i:i + T] for i in range(0, len(ids) - T, T)]
    n = int(len(blocks) * 0.9)
    mk = lambda L: ListDS([{"input_ids": b, "labels": b} for b in L])
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(chars), n_embd=64, n_layer=2, n_head=4, n_positions=T))
    args = _args(run_dir, seed=s["seed"], learning_rate=2e-3, per_device_train_batch_size=16, per_device_eval_batch_size=32,
                 num_train_epochs=s.get("epochs", 3), warmup_steps=30, lr_scheduler_type="cosine", weight_decay=0.1,
                 logging_steps=5, eval_strategy="steps", eval_steps=25, max_grad_norm=1.0)
    trainer = Trainer(model=model, args=args, train_dataset=mk(blocks[:n]), eval_dataset=mk(blocks[n:]))
    trainer.train()
    _trainer_out(trainer, args, run_dir)


def run_hf_bert_cls(s, run_dir):
    """Fine-tune a tiny BERT sentiment classifier. 'pretrain' first trains it (unlogged) on a noisier sample of the same task."""
    from transformers import BertConfig, BertForSequenceClassification, Trainer
    from fam_text_rl import sentiment_data, POS, NEG, NOUN, FILL
    seed_all(s["seed"])
    vocab = {"[PAD]": 0, "[CLS]": 1, "[UNK]": 2}
    for w in POS + NEG + NOUN + FILL + ["not", "was"]:
        vocab.setdefault(w, len(vocab))
    def mk(X, y):
        return ListDS([{"input_ids": torch.tensor([1] + [vocab.get(w, 2) for w in x]), "labels": l} for x, l in zip(X, y)])
    def collate(b):
        L = max(len(e["input_ids"]) for e in b)
        ids = torch.stack([F.pad(e["input_ids"], (0, L - len(e["input_ids"]))) for e in b])
        return {"input_ids": ids, "attention_mask": (ids != 0).long(), "labels": torch.tensor([e["labels"] for e in b])}
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                     max_position_embeddings=32, num_labels=2)
    model = BertForSequenceClassification(cfg)
    if s.get("pretrain"):
        X0, y0 = sentiment_data(3000, s["seed"] + 100)
        ds0 = mk(X0, y0); opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        dl = torch.utils.data.DataLoader(ds0, batch_size=32, shuffle=True, collate_fn=collate)
        model.train()
        for _ in range(3):
            for b in dl:
                loss = model(**b).loss; opt.zero_grad(); loss.backward(); opt.step()
    X, y = sentiment_data(s.get("n_train", 1200), s["seed"]); vX, vy = sentiment_data(300, s["seed"] + 1)

    def metrics(p):
        return {"accuracy": float((p.predictions.argmax(-1) == p.label_ids).mean())}

    args = _args(run_dir, seed=s["seed"], learning_rate=s.get("lr", 1e-3), per_device_train_batch_size=32, per_device_eval_batch_size=64,
                 num_train_epochs=s.get("epochs", 3), warmup_steps=s.get("warmup_steps", 8), lr_scheduler_type="linear",
                 weight_decay=0.01, logging_steps=5, eval_strategy="steps", eval_steps=20,
                 max_grad_norm=s.get("max_grad_norm", 1.0), remove_unused_columns=False)
    trainer = Trainer(model=model, args=args, train_dataset=mk(X, y), eval_dataset=mk(vX, vy), data_collator=collate,
                      compute_metrics=metrics)
    trainer.evaluate()  # baseline before fine-tuning
    trainer.train()
    _trainer_out(trainer, args, run_dir)


# ------------------------------------------------------------------ Lightning
def _lightning_fit(module, run_dir, s, train_dl, val_dl, **kw):
    import lightning as L
    from lightning.pytorch.loggers import CSVLogger
    logger = CSVLogger(save_dir=run_dir, name="lightning_logs", version=0)
    trainer = L.Trainer(max_epochs=s.get("epochs", 10), logger=logger, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, accelerator="cpu", devices=1, log_every_n_steps=s.get("log_every", 10),
                        deterministic=False, **kw)
    trainer.fit(module, train_dl, val_dl)
    d = os.path.join(run_dir, "lightning_logs", "version_0")
    for fn in ("metrics.csv", "hparams.yaml"):
        if os.path.exists(os.path.join(d, fn)):
            shutil.move(os.path.join(d, fn), os.path.join(run_dir, fn))
    shutil.rmtree(os.path.join(run_dir, "lightning_logs"), ignore_errors=True)


def run_l_tagger(s, run_dir):
    import lightning as L
    from fam_text_rl import tag_data, Tagger, pad_tags, tag_f1
    seed_all(s["seed"])
    X, Y, V = tag_data(s.get("n_train", 1500), s["seed"], noise=s.get("label_noise", 0.0))
    vX, vY, _ = tag_data(300, s["seed"] + 1, noise=s.get("label_noise", 0.0))
    if s.get("bug") == "shift":  # tags aligned one token late (off-by-one in the alignment code)
        Y = [[0] + y[:-1] for y in Y]

    noise = s.get("label_noise", 0.0)

    class M(L.LightningModule):
        def __init__(self, lr=3e-3, hidden=48, label_noise=noise):
            super().__init__(); self.save_hyperparameters(); self.net = Tagger(V)

        def training_step(self, b, i):
            x, y = b; out = self.net(x)
            loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1), ignore_index=-100)
            self.log("train_loss", loss, on_step=True, on_epoch=True); return loss

        def validation_step(self, b, i):
            x, y = b; out = self.net(x)
            self.log("val_loss", F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1), ignore_index=-100))
            self.log("val_f1", tag_f1(out, y))

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)

    tr = list(zip(*pad_tags(X, Y))); va = [pad_tags(vX, vY)]
    dl = torch.utils.data.DataLoader(tr, batch_size=32, shuffle=True)
    vdl = torch.utils.data.DataLoader(va, batch_size=None)
    _lightning_fit(M(), run_dir, s, dl, vdl)


def run_l_cnn_mixup(s, run_dir):
    import lightning as L
    from common import shapes16
    from fam_mlp_cnn import CNN, augment
    seed_all(s["seed"])
    X, y = shapes16(1600, s["seed"], noise=0.35); vX, vy = shapes16(400, s["seed"] + 11, noise=0.35)

    class M(L.LightningModule):
        def __init__(self, lr=3e-3, dropout=0.3, mixup_alpha=0.4, augmentation="shift+flip+noise+erase"):
            super().__init__(); self.save_hyperparameters(); self.net = CNN(p=dropout)

        def training_step(self, b, i):
            x, t = b; x = augment(x.clone(), strong=True)
            lam = float(np.random.beta(0.4, 0.4)); perm = torch.randperm(len(x)); x = lam * x + (1 - lam) * x[perm]
            out = self.net(x)
            loss = lam * F.cross_entropy(out, t) + (1 - lam) * F.cross_entropy(out, t[perm])
            self.log("train_loss", loss, on_step=True, on_epoch=True)
            self.log("train_acc", (out.argmax(1) == t).float().mean(), on_step=False, on_epoch=True); return loss

        def validation_step(self, b, i):
            x, t = b; out = self.net(x)
            self.log("val_loss", F.cross_entropy(out, t)); self.log("val_acc", (out.argmax(1) == t).float().mean())

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=0.05)
            return {"optimizer": opt, "lr_scheduler": torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=s.get("epochs", 10))}

    dl = torch.utils.data.DataLoader(list(zip(X, y)), batch_size=32, shuffle=True)
    vdl = torch.utils.data.DataLoader(list(zip(vX, vy)), batch_size=200)
    from lightning.pytorch.callbacks import LearningRateMonitor
    _lightning_fit(M(), run_dir, s, dl, vdl, callbacks=[LearningRateMonitor("epoch")])


def run_l_bert_cls(s, run_dir):
    """Lightning BERT classifier; bug 'nograd': the encoder forward sits inside torch.no_grad()."""
    import lightning as L
    from transformers import BertConfig, BertModel
    from fam_text_rl import sentiment_data, POS, NEG, NOUN, FILL
    seed_all(s["seed"])
    vocab = {"[PAD]": 0, "[CLS]": 1, "[UNK]": 2}
    for w in POS + NEG + NOUN + FILL + ["not", "was"]:
        vocab.setdefault(w, len(vocab))
    def enc(X):
        return torch.tensor([[1] + [vocab.get(w, 2) for w in x] + [0] * (16 - len(x)) for x in X])
    X, y = sentiment_data(2000, s["seed"]); vX, vy = sentiment_data(300, s["seed"] + 1)
    bug = s.get("bug")

    class M(L.LightningModule):
        def __init__(self, lr=1e-3, hidden=64, layers=2, warmup_steps=30):
            super().__init__(); self.save_hyperparameters()
            self.enc = BertModel(BertConfig(vocab_size=len(vocab), hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                            intermediate_size=128, max_position_embeddings=32), add_pooling_layer=False)
            self.head = nn.Sequential(nn.Dropout(0.1), nn.Linear(64, 2))

        def forward(self, x):
            if bug == "nograd":
                with torch.no_grad():  # left from an inference helper
                    h = self.enc(input_ids=x, attention_mask=(x != 0).long()).last_hidden_state
            else:
                h = self.enc(input_ids=x, attention_mask=(x != 0).long()).last_hidden_state
            return self.head(h[:, 0])

        def training_step(self, b, i):
            x, t = b; out = self(x); loss = F.cross_entropy(out, t)
            self.log("train_loss", loss, on_step=True, on_epoch=True); return loss

        def validation_step(self, b, i):
            x, t = b; out = self(x)
            self.log("val_loss", F.cross_entropy(out, t)); self.log("val_acc", (out.argmax(1) == t).float().mean())

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=0.01)
            sch = torch.optim.lr_scheduler.LambdaLR(opt, lambda st: min(1.0, (st + 1) / 30))
            return {"optimizer": opt, "lr_scheduler": {"scheduler": sch, "interval": "step"}}

    dl = torch.utils.data.DataLoader(list(zip(enc(X), torch.tensor(y))), batch_size=32, shuffle=True)
    vdl = torch.utils.data.DataLoader(list(zip(enc(vX), torch.tensor(vy))), batch_size=300)
    from lightning.pytorch.callbacks import LearningRateMonitor
    _lightning_fit(M(), run_dir, s, dl, vdl, callbacks=[LearningRateMonitor("step")])
