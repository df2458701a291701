"""corpus_gen3: small, really-trained runs, healthy or with one injected bug, labelled before training.

Usage: python bench/corpus_gen3/generate.py [--only NAME[,NAME]] [--force]
Each run's label.json is written from its spec BEFORE the run trains; the run then writes its own
logs (printed train.log, log.jsonl, history.csv, Lightning CSVLogger metrics.csv, or HF Trainer
trainer_state.json) into runs/<name>/. A finished run (done marker) is skipped unless --force.
"""
import argparse
import json
import math
import os
import shutil
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from common import (AutoEncoder, CharTokenizer, CNNBN, GRULM, LSTMCls, MLP, RunLog, SmallResNet,  # noqa: E402
                    TinyCausalLM, TinyEncoderCls, TOPIC_NAMES, blob_splits, char_corpus, lm_windows,
                    regression, seed_all, shapes16, checkerboard, sinusoid_seqs, topic_sentences)

torch.set_num_threads(1)
RUNS = os.path.join(HERE, "runs")


# ============================================================================ plain PyTorch loop

def batches(n, bs, shuffle, gen, drop_last=False):
    idx = torch.randperm(n, generator=gen) if shuffle else torch.arange(n)
    for i in range(0, n, bs):
        b = idx[i:i + bs]
        if drop_last and len(b) < bs:
            break
        yield b


@torch.no_grad()
def eval_cls(model, xv, yv, bs=128, transform=None, argmax_dim=-1, only_first=False, seq_lm=False):
    model.eval()
    tot_loss, correct, n = 0.0, 0, 0
    for i in range(0, len(xv), bs):
        x, y = xv[i:i + bs], yv[i:i + bs]
        if transform is not None:
            x = transform(x)
        logits = model(x)
        if seq_lm:
            tot_loss += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="sum").item()
            correct += (logits.argmax(-1) == y).sum().item()
            n += y.numel()
        else:
            tot_loss += F.cross_entropy(logits, y, reduction="sum").item()
            pred = logits.argmax(dim=argmax_dim)
            if argmax_dim != -1:
                # predictions per column; compared against the first len(pred) labels
                correct += (pred == y[: len(pred)]).sum().item()
            else:
                correct += (pred == y).sum().item()
            n += len(y)
        if only_first:
            break
    model.train()
    out = {"val_loss": tot_loss / n, "val_acc": correct / n}
    if seq_lm:
        out = {"val_loss": out["val_loss"], "val_ppl": math.exp(min(out["val_loss"], 50))}
    return out


@torch.no_grad()
def eval_reg(model, xv, yv, bs=256):
    model.eval()
    se = 0.0
    for i in range(0, len(xv), bs):
        se += ((model(xv[i:i + bs]).squeeze(-1) - yv[i:i + bs]) ** 2).sum().item()
    model.train()
    return {"val_mse": se / len(xv)}


def fit(out, style, model, opt, train, epochs, bs, *, seed, loss_fn, eval_fn, sched=None, sched_per="epoch",
        clip=None, accum=1, accum_per_epoch_counter=False, target_hook=None, log_every=10, header=""):
    """An ordinary training loop. Fault switches are arguments so each run states its bug in its spec."""
    xt, yt = train
    gen = torch.Generator().manual_seed(seed)
    steps_per_epoch = math.ceil(len(xt) / bs)
    log = RunLog(out, style, epochs, steps_per_epoch, log_every=log_every)
    if header:
        log.header(header)
    step = 0
    state = {}
    model.train()
    try:
        for ep in range(1, epochs + 1):
            tot, cnt = 0.0, 0
            opt.zero_grad()
            for bi, idx in enumerate(batches(len(xt), bs, True, gen), start=1):
                x, y = xt[idx], yt[idx]
                if target_hook is not None:
                    y = target_hook(x, y, state)
                out_ = model(x)
                loss = loss_fn(out_, y)
                (loss / accum if accum > 1 else loss).backward()
                counter = bi if accum_per_epoch_counter else step + 1
                if counter % accum == 0:
                    if clip:
                        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
                    opt.step()
                    opt.zero_grad()
                    if sched is not None and sched_per == "batch":
                        sched.step()
                step += 1
                lv = loss.item()
                tot += lv * len(idx)
                cnt += len(idx)
                log.step({"epoch": ep, "step": step, "batch": bi, "loss": lv, "lr": opt.param_groups[0]["lr"]})
            if sched is not None and sched_per == "epoch":
                sched.step()
            rec = {"epoch": ep, "loss": tot / cnt}
            rec.update(eval_fn(model))
            rec["lr"] = opt.param_groups[0]["lr"]
            log.epoch(rec)
    except Exception:
        log.error(traceback.format_exc())
        raise
    finally:
        log.close()


def ce(logits, y):
    return F.cross_entropy(logits, y)


def lm_ce(logits, y):
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


# ---------------------------------------------------------------------------- plain runs

def img_data(seed, n_train=1536, n_val=384, scale=True):
    x, y = shapes16(n_train + n_val, seed=seed)
    if scale:
        x = x / 255.0
    return (x[:n_train], y[:n_train]), (x[n_train:], y[n_train:])


def run_mlp_blobs(out, spec):
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    tr, va = blob_splits(2048, 512, s, d=16, k=4, sep=1.0, noise=1.0, label_noise=spec.get("label_noise", 0.0))
    model = MLP(16, 4, width=64, depth=2, dropout=0.9 if f == "dropout09" else 0.1)
    opt = torch.optim.AdamW(model.parameters(), lr=spec.get("lr", 1e-3), weight_decay=0.01)
    hook = None
    if f == "roll_labels":
        # "align" labels with inputs after a bad merge: labels shifted by one position
        tr = (tr[0], torch.roll(tr[1], 1))
    if f == "prev_targets":
        def hook(x, y, st):
            prev = st.get("prev", y)
            st["prev"] = y
            return prev
    fit(out, spec["style"], model, opt, tr, spec.get("epochs", 20), spec.get("bs", 64), seed=s, loss_fn=ce,
        eval_fn=lambda m: eval_cls(m, *va), target_hook=hook, header=spec.get("header", ""))


def run_mlp_overconf(out, spec):
    """Healthy: checkerboard with 12% label noise, wide MLP; eval loss drifts up from its minimum late in
    training while accuracy holds."""
    s = spec["seed"]
    seed_all(s)
    x, y = checkerboard(3000, seed=s, label_noise=0.12, noise_dims=2)
    tr, va = (x[:2000], y[:2000]), (x[2000:], y[2000:])
    model = MLP(4, 2, width=256, depth=3)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    fit(out, spec["style"], model, opt, tr, 75, 32, seed=s, loss_fn=ce, eval_fn=lambda m: eval_cls(m, *va),
        log_every=25)


def run_mlp_dupeval(out, spec):
    """Fault: half the eval set is copied from the training rows (dedup step skipped)."""
    s = spec["seed"]
    seed_all(s)
    tr, va = blob_splits(400, 400, s, d=16, k=4, sep=0.6, noise=1.0, label_noise=0.2)
    xv = torch.cat([va[0][:200], tr[0][:200]])
    yv = torch.cat([va[1][:200], tr[1][:200]])
    model = MLP(16, 4, width=256, depth=3)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    fit(out, spec["style"], model, opt, tr, 80, 32, seed=s, loss_fn=ce, eval_fn=lambda m: eval_cls(m, xv, yv))


def run_mlp_bce(out, spec):
    """Binary classifier with BCEWithLogitsLoss. Fault: the eval loop passes the raw int64 labels (the training
    loop casts them with .float(), the eval loop does not)."""
    s = spec["seed"]
    seed_all(s)
    x, y = checkerboard(2600, seed=s, label_noise=0.05, noise_dims=0)
    tr, va = (x[:2000], y[:2000]), (x[2000:], y[2000:])
    model = MLP(2, 1, width=64, depth=3)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)

    @torch.no_grad()
    def ev(m):
        m.eval()
        o = m(va[0]).squeeze(-1)
        yv = va[1] if spec.get("fault_key") == "eval_int_targets" else va[1].float()
        loss = F.binary_cross_entropy_with_logits(o, yv).item()
        m.train()
        return {"val_loss": loss, "val_acc": ((o > 0).long() == va[1]).float().mean().item()}
    fit(out, spec["style"], model, opt, tr, 15, 32, seed=s,
        loss_fn=lambda o, t: F.binary_cross_entropy_with_logits(o.squeeze(-1), t.float()), eval_fn=ev)


def run_mlp_mse_idx(out, spec):
    """Fault: MSE regression on class indices for a 5-class problem; accuracy from rounding."""
    s = spec["seed"]
    seed_all(s)
    tr, va = blob_splits(2048, 512, s, d=16, k=5, sep=1.0, noise=1.0)
    model = MLP(16, 1, width=64, depth=2)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def loss_fn(o, y):
        return F.mse_loss(o.squeeze(-1), y.float())

    @torch.no_grad()
    def ev(m):
        m.eval()
        o = m(va[0]).squeeze(-1)
        m.train()
        return {"val_loss": F.mse_loss(o, va[1].float()).item(),
                "val_acc": (o.round().clamp(0, 4).long() == va[1]).float().mean().item()}
    fit(out, spec["style"], model, opt, tr, 25, 64, seed=s, loss_fn=loss_fn, eval_fn=ev)


def run_mlp_deeptanh(out, spec):
    """Fault: 12-layer tanh MLP initialised with std 0.01: gradients vanish before the early layers."""
    s = spec["seed"]
    seed_all(s)
    tr, va = blob_splits(2048, 512, s, d=16, k=4, sep=1.0, noise=1.0)
    model = MLP(16, 4, width=64, depth=12, act=nn.Tanh)
    for mod in model.modules():
        if isinstance(mod, nn.Linear):
            nn.init.normal_(mod.weight, std=0.01)
            nn.init.zeros_(mod.bias)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    fit(out, spec["style"], model, opt, tr, 25, 64, seed=s, loss_fn=ce, eval_fn=lambda m: eval_cls(m, *va))


def run_mlp_img(out, spec):
    """MLP on 16x16 shapes. fault_key: eval_raw (eval inputs not /255), raw_all (no /255 anywhere)."""
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    tr, va = img_data(s, scale=False)
    if f != "raw_all":
        tr = (tr[0] / 255.0, tr[1])
    if f not in ("eval_raw", "raw_all"):
        va = (va[0] / 255.0, va[1])
    model = MLP(256, 4, width=128, depth=2)
    if spec.get("opt") == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=spec.get("lr", 0.05), momentum=0.9)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=spec.get("lr", 1e-3))
    fit(out, spec["style"], model, opt, tr, spec.get("epochs", 15), 64, seed=s, loss_fn=ce,
        eval_fn=lambda m: eval_cls(m, *va), log_every=spec.get("log_every", 8))


def run_mlp_reg(out, spec):
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    x, y = regression(3000, seed=s, noise=0.3, scale=50.0)
    xt, yt, xv, yv = x[:2400], y[:2400], x[2400:], y[2400:]
    if f == "test_stats":
        mu, sd = yv.mean(), yv.std()   # statistics taken from the held-out split
    else:
        mu, sd = yt.mean(), yt.std()
    yt, yv = (yt - mu) / sd, (yv - mu) / sd
    model = MLP(8, 1, width=64, depth=2)
    opt = torch.optim.AdamW(model.parameters(), lr=spec.get("lr", 3e-3))
    fit(out, spec["style"], model, opt, (xt, yt), spec.get("epochs", 25), spec.get("bs", 64), seed=s,
        loss_fn=lambda o, t: F.mse_loss(o.squeeze(-1), t), eval_fn=lambda m: eval_reg(m, xv, yv),
        log_every=spec.get("log_every", 10))


def run_cnn(out, spec):
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    tr, va = img_data(s)
    model = CNNBN()
    hook, argdim, sched = None, -1, None
    if f == "momentum999":
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.999)
    elif f == "unfreeze_after_opt":
        for p in model.backbone.parameters():
            p.requires_grad = False
        opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.05, momentum=0.9)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    if f == "prev_targets":
        def hook(x, y, st):
            prev = st.get("prev", y)
            st["prev"] = y
            return prev
    if f == "argmax_axis":
        argdim = 0
    epochs = spec.get("epochs", 12)
    if f == "unfreeze_after_opt":
        # head-only warm-up for 2 epochs, then "unfreeze" the backbone (the optimizer was built already)
        calls = {"e": 0}

        def ev(m):
            calls["e"] += 1
            if calls["e"] == 1:
                for p in m.backbone.parameters():
                    p.requires_grad = True
            return eval_cls(m, *va)
    else:
        ev = lambda m: eval_cls(m, *va, argmax_dim=argdim)  # noqa: E731
    fit(out, spec["style"], model, opt, tr, epochs, 32, seed=s, loss_fn=ce, eval_fn=ev, target_hook=hook,
        sched=sched, log_every=spec.get("log_every", 12))


def run_resnet(out, spec):
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    tr, va = img_data(s, n_train=1024, n_val=256)
    model = SmallResNet()
    bs = 32
    opt = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9, weight_decay=5e-4)
    if f == "sum_times_bs":
        loss_fn = lambda o, y: F.cross_entropy(o, y, reduction="sum") * bs  # noqa: E731
    else:
        loss_fn = ce
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    fit(out, spec["style"], model, opt, tr, 10, bs, seed=s, loss_fn=loss_fn, eval_fn=lambda m: eval_cls(m, *va),
        sched=sched, log_every=8)


def run_lstm(out, spec):
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    x, y = sinusoid_seqs(1100, seed=s)
    tr, va = (x[:800], y[:800]), (x[800:], y[800:])
    model = LSTMCls()
    accum, per_epoch = 1, False
    lr = 3e-3
    if f == "accum_never_steps":
        accum, per_epoch = 16, True   # 13 batches per epoch, counter restarts each epoch
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    fit(out, spec["style"], model, opt, tr, spec.get("epochs", 15), 64, seed=s, loss_fn=ce,
        eval_fn=lambda m: eval_cls(m, *va), accum=accum, accum_per_epoch_counter=per_epoch, log_every=4)


def text_cls_data(seed, n_train=1600, n_val=400, max_len=40):
    texts, labels = topic_sentences(n_train + n_val, seed=seed)
    tok = CharTokenizer("".join(texts))
    ids = torch.zeros(len(texts), max_len, dtype=torch.long)
    for i, t in enumerate(texts):
        e = tok.encode(t)[:max_len]
        ids[i, :len(e)] = torch.tensor(e)
    y = torch.tensor([TOPIC_NAMES.index(l) for l in labels])
    return tok, (ids[:n_train], y[:n_train]), (ids[n_train:], y[n_train:])


def run_tenc(out, spec):
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    tok, tr, va = text_cls_data(s)
    model = TinyEncoderCls(len(tok), 4)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    steps = math.ceil(len(tr[0]) / 32) * 6
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: min(1.0, (t + 1) / 30) * max(0.0, 1 - t / steps))
    only_first = f == "eval_one_batch"
    bs_eval = 8 if only_first else 128
    fit(out, spec["style"], model, opt, tr, 6, 32, seed=s, loss_fn=ce, sched=sched, sched_per="batch",
        eval_fn=lambda m: eval_cls(m, *va, bs=bs_eval, only_first=only_first), log_every=10)


def lm_data(seed, n_sent=900, length=48, stride=24):
    text = char_corpus(n_sent, seed=seed)
    tok = CharTokenizer(text)
    ids = tok.encode(text)
    w = lm_windows(ids, length + 1, stride)
    n = int(len(w) * 0.85)
    return tok, w[:n], w[n:]


def run_gru_lm(out, spec):
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    tok, wt, wv = lm_data(s)
    if f == "no_shift":
        tr, va = (wt[:, :-1], wt[:, :-1]), (wv[:, :-1], wv[:, :-1])   # target = input, not next token
    else:
        tr, va = (wt[:, :-1], wt[:, 1:]), (wv[:, :-1], wv[:, 1:])
    model = GRULM(len(tok))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    sched, per = None, "epoch"
    if f == "exp_per_batch":
        sched, per = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.85), "batch"   # gamma chosen per epoch
    fit(out, spec["style"], model, opt, tr, spec.get("epochs", 8), 32, seed=s, loss_fn=lm_ce, sched=sched,
        sched_per=per, eval_fn=lambda m: eval_cls(m, *va, seq_lm=True), log_every=5)


def run_causal_lm(out, spec):
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    tok, wt, wv = lm_data(s, n_sent=700, length=40, stride=20)
    tr, va = (wt[:, :-1], wt[:, 1:]), (wv[:, :-1], wv[:, 1:])
    model = TinyCausalLM(len(tok), causal=(f != "no_causal_mask"))
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    fit(out, spec["style"], model, opt, tr, spec.get("epochs", 12), 32, seed=s, loss_fn=lm_ce,
        eval_fn=lambda m: eval_cls(m, *va, seq_lm=True), log_every=5)


def run_ae(out, spec):
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    tr, va = img_data(s, n_train=1536, n_val=384)
    xt, xv = tr[0], va[0]
    model = AutoEncoder()
    if f == "clip_tiny":
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        clip = 1e-4   # meant 1.0
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
        clip = None

    @torch.no_grad()
    def ev(m):
        m.eval()
        r = F.mse_loss(m(xv), xv).item()
        m.train()
        return {"val_loss": r}
    fit(out, spec["style"], model, opt, (xt, xt), 20, 64, seed=s, loss_fn=F.mse_loss, eval_fn=ev, clip=clip,
        log_every=8)


# ============================================================================ Lightning

def run_lightning(out, spec):
    import lightning as L
    from lightning.pytorch.loggers import CSVLogger
    s = spec["seed"]
    seed_all(s)
    L.seed_everything(s, workers=False, verbose=False)
    f = spec.get("fault_key")
    kind = spec["lk"]

    if kind == "cnn":
        tr, va = img_data(s)
        net = CNNBN()
    elif kind == "reg":
        x, y = regression(3000, seed=s, noise=0.3)
        mu, sd = y[:2400].mean(), y[:2400].std()
        y = (y - mu) / sd
        tr, va = (x[:2400], y[:2400]), (x[2400:], y[2400:])
        net = MLP(8, 1, width=64, depth=2)
    else:  # mlp on blobs
        tr, va = blob_splits(2048, 512, s, d=16, k=4, sep=1.0, noise=1.0)
        net = MLP(16, 4, width=64, depth=2, dropout=0.1)

    if spec.get("pretrain"):
        # fine-tune: start from a model trained on an earlier, slightly shifted version of the data
        (px, py), _ = blob_splits(2048, 8, s, d=16, k=4, sep=1.0, noise=1.0)
        px = px + 0.3
        popt = torch.optim.AdamW(net.parameters(), lr=2e-3)
        for _ in range(8):
            for idx in torch.randperm(2048).split(64):
                popt.zero_grad()
                F.cross_entropy(net(px[idx]), py[idx]).backward()
                popt.step()

    class Lit(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = net
            self.save_hyperparameters(spec["hparams"])
            if f == "no_manual_backward":
                self.automatic_optimization = False

        def forward(self, x):
            return self.net(x)

        def _loss(self, o, y):
            if kind == "reg":
                return F.mse_loss(o.squeeze(-1), y)
            if f == "sigmoid_ce":
                return F.cross_entropy(torch.sigmoid(o), y)
            return F.cross_entropy(o, y)

        def training_step(self, batch, i):
            x, y = batch
            loss = self._loss(self(x), y)
            if f == "no_manual_backward":
                opt = self.optimizers()
                opt.zero_grad()
                opt.step()   # self.manual_backward(loss) is missing
            self.log("train_loss", loss, on_step=True, on_epoch=True)
            return loss

        def validation_step(self, batch, i):
            x, y = batch
            if f == "val_aug":
                x = x + 0.6 * torch.randn_like(x)          # train-time noise augmentation left in the val transform
                x = torch.roll(x, shifts=int(torch.randint(-4, 5, ())), dims=-1)
            o = self(x)
            self.log("val_loss", self._loss(o, y), prog_bar=True)
            if kind != "reg":
                self.log("val_acc", (o.argmax(-1) == y).float().mean(), prog_bar=True)

        def configure_optimizers(self):
            hp = self.hparams
            params = self.net.backbone.parameters() if f == "opt_backbone_only" else self.parameters()
            if hp["optimizer"] == "sgd":
                opt = torch.optim.SGD(params, lr=hp["lr"], momentum=0.9, weight_decay=5e-4)
            else:
                opt = torch.optim.AdamW(params, lr=hp["lr"], weight_decay=0.01)
            if hp.get("cosine"):
                sch = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=hp["max_epochs"])
                return {"optimizer": opt, "lr_scheduler": {"scheduler": sch, "interval": "epoch"}}
            return opt

    from torch.utils.data import DataLoader, TensorDataset
    dl_tr = DataLoader(TensorDataset(*tr), batch_size=spec["hparams"]["batch_size"], shuffle=True)
    dl_va = DataLoader(TensorDataset(*va), batch_size=128)
    from lightning.pytorch.callbacks import LearningRateMonitor
    logger = CSVLogger(save_dir=out, name="lightning_logs", version=0)
    cbs = [LearningRateMonitor(logging_interval="epoch")]
    trainer = L.Trainer(max_epochs=spec["hparams"]["max_epochs"], logger=logger, callbacks=cbs, accelerator="cpu",
                        devices=1, enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                        log_every_n_steps=spec.get("log_every", 10), deterministic=False)
    trainer.fit(Lit(), dl_tr, dl_va)


# ============================================================================ HF Trainer

class DictDS(torch.utils.data.Dataset):
    def __init__(self, **cols):
        self.cols = cols
        self.n = len(next(iter(cols.values())))

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {k: v[i] for k, v in self.cols.items()}


def hf_train(out, model, train_ds, eval_ds, args_kw, compute_metrics=None):
    from transformers import Trainer, TrainingArguments
    tmp = os.path.join(out, "_hf")
    kw = dict(output_dir=tmp, report_to="none", save_strategy="no", use_cpu=True, disable_tqdm=True,
              dataloader_num_workers=0, seed=args_kw.pop("seed"))
    kw.update(args_kw)
    args = TrainingArguments(**kw)
    tr = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                 compute_metrics=compute_metrics)
    try:
        tr.train()
    finally:
        tr.save_state()
        shutil.copy(os.path.join(tmp, "trainer_state.json"), os.path.join(out, "trainer_state.json"))
        with open(os.path.join(out, "training_args.json"), "w") as fh:
            fh.write(args.to_json_string())
        model.config.to_json_file(os.path.join(out, "config.json"))
        shutil.rmtree(tmp, ignore_errors=True)


def acc_metric(p):
    logits, labels = p.predictions, p.label_ids
    return {"accuracy": float((logits.argmax(-1) == labels).mean())}


def run_hf_bert(out, spec):
    from transformers import BertConfig, BertForSequenceClassification
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    texts, labels = topic_sentences(2000, seed=s)
    tok = CharTokenizer("".join(texts))
    L_ = 40
    ids = torch.zeros(len(texts), L_, dtype=torch.long)
    for i, t in enumerate(texts):
        e = tok.encode(t)[:L_]
        ids[i, :len(e)] = torch.tensor(e)
    att = (ids != 0).long()
    n = 1600
    tr_labels, ev_labels = labels[:n], labels[n:]
    # label ids: built from the training split's order of first appearance
    tr_map = {}
    for l in tr_labels:
        tr_map.setdefault(l, len(tr_map))
    if f == "label_map_differs":
        ev_map = {l: i for i, l in enumerate(sorted(set(ev_labels)))}   # eval script builds its own, sorted
    else:
        ev_map = tr_map
    ytr = torch.tensor([tr_map[l] for l in tr_labels])
    yev = torch.tensor([ev_map[l] for l in ev_labels])
    cfg = BertConfig(vocab_size=len(tok), hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=128, max_position_embeddings=64, num_labels=4)
    model = BertForSequenceClassification(cfg)
    trd = DictDS(input_ids=ids[:n], attention_mask=att[:n], labels=ytr)
    evd = DictDS(input_ids=ids[n:], attention_mask=att[n:], labels=yev)
    hf_train(out, model, trd, evd, dict(spec["args"], seed=s), acc_metric)


def run_hf_lm(out, spec):
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM
    s = spec["seed"]
    seed_all(s)
    f = spec.get("fault_key")
    text = char_corpus(spec.get("n_sent", 1400), seed=s)
    if f == "all_unk":
        tok = CharTokenizer(text.upper())   # vocab built from the upper-cased dump; training text is lower-case
    else:
        tok = CharTokenizer(text)
    ids = tok.encode(text)
    w = lm_windows(ids, 48, 24)
    n = int(len(w) * 0.85)
    labels = w.clone()
    if f == "pre_shifted":
        # labels shifted by hand although the model shifts them again internally
        labels = torch.full_like(w, -100)
        labels[:, :-1] = w[:, 1:]
    if spec["arch"] == "gpt2":
        cfg = GPT2Config(vocab_size=max(len(tok), 64), n_positions=64, n_embd=64, n_layer=2, n_head=2,
                         bos_token_id=2, eos_token_id=2, pad_token_id=0)
        model = GPT2LMHeadModel(cfg)
    else:
        cfg = LlamaConfig(vocab_size=max(len(tok), 64), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                          bos_token_id=2, eos_token_id=2, pad_token_id=0)
        model = LlamaForCausalLM(cfg)
    att = torch.ones_like(w)
    trd = DictDS(input_ids=w[:n], attention_mask=att[:n], labels=labels[:n])
    evd = DictDS(input_ids=w[n:], attention_mask=att[n:], labels=labels[n:])
    hf_train(out, model, trd, evd if spec.get("eval", True) else None, dict(spec["args"], seed=s))


# ============================================================================ specs

H = True
SPECS = [
    # ---- printed: pipe style
    dict(name="h01_mlp_blobs_pipe", fn=run_mlp_blobs, healthy=H, style="pipe", model="mlp-cls", seed=101,
         fault="healthy: AdamW 1e-3, batch 64, 20 epochs", causes=[]),
    dict(name="f01_mlp_labels_rolled_pipe", fn=run_mlp_blobs, healthy=False, style="pipe", model="mlp-cls", seed=102,
         fault_key="roll_labels", fault="training labels shifted by one position against their inputs (torch.roll)",
         causes=["DP-labels-misaligned"]),
    dict(name="f02_lstm_accum_never_steps_pipe", fn=run_lstm, healthy=False, style="pipe", model="lstm-cls", seed=103,
         fault_key="accum_never_steps",
         fault="gradient accumulation x16 with a per-epoch batch counter and 13 batches/epoch: optimizer.step() never runs",
         causes=["O4", "O1"]),
    dict(name="h17_causal_lm_pipe", fn=run_causal_lm, healthy=H, style="pipe", model="transformer-lm", seed=104,
         fault="healthy: tiny causal transformer LM, AdamW 2e-3, 12 epochs", causes=[]),
    # ---- printed: logging
    dict(name="h02_tenc_topics_logging", fn=run_tenc, healthy=H, style="logging", model="transformer-enc-cls",
         seed=201, fault="healthy: AdamW 1e-3, warmup 30 steps + linear decay, 6 epochs", causes=[]),
    dict(name="f03_cnn_prev_targets_logging", fn=run_cnn, healthy=False, style="logging", model="cnn-bn", seed=202,
         fault_key="prev_targets", fault="loss computed against the targets of the previous batch (cached y)",
         causes=["DP-labels-misaligned", "O1"]),
    dict(name="f04_resnet_loss_sum_times_bs_logging", fn=run_resnet, healthy=False, style="logging",
         model="resnet-small", seed=203, fault_key="sum_times_bs",
         fault="CrossEntropyLoss(reduction='sum') then multiplied by the batch size again (x1024 vs mean) with SGD lr 0.03",
         causes=["S-grad-explosion", "S-lr-too-high", "O22"]),
    # ---- printed: bracket
    dict(name="h03_resnet_shapes_bracket", fn=run_resnet, healthy=H, style="bracket", model="resnet-small", seed=301,
         fault="healthy: SGD momentum 0.9 lr 0.03, cosine over 10 epochs", causes=[]),
    dict(name="f05_tenc_eval_one_batch_bracket", fn=run_tenc, healthy=False, style="bracket",
         model="transformer-enc-cls", seed=302, fault_key="eval_one_batch",
         fault="evaluation loop breaks after its first batch: val metrics come from one fixed batch of 8",
         causes=["S-verify-experiment"]),
    dict(name="f06_mlp_eval_has_train_dupes_bracket", fn=run_mlp_dupeval, healthy=False, style="bracket",
         model="mlp-cls", seed=303, fault="half of the eval set are duplicated training rows (400 noisy rows, wide MLP, 80 epochs)",
         causes=["PB-leaky-split", "S-verify-experiment"]),
    # ---- printed: dict lines
    dict(name="h04_mlp_reg_smallbatch_dict", fn=run_mlp_reg, healthy=H, style="dict", model="mlp-reg", seed=401,
         bs=4, lr=3e-4, epochs=6, log_every=60,
         fault="healthy: noisy small-batch regression, batch 4, AdamW 3e-4", causes=[]),
    dict(name="f07_mlp_img_eval_unscaled_dict", fn=run_mlp_img, healthy=False, style="dict", model="mlp-img", seed=402,
         fault_key="eval_raw", fault="training inputs divided by 255, evaluation inputs left raw 0-255",
         causes=["V1"]),
    dict(name="f08_cnn_momentum999_dict", fn=run_cnn, healthy=False, style="dict", model="cnn-bn", seed=403,
         fault_key="momentum999", fault="SGD momentum 0.999 (meant 0.9) at lr 0.05",
         causes=["PB-optimizer-defaults", "S-lr-too-high", "S-gradnorm-unstable"]),
    # ---- printed: tqdm postfix
    dict(name="h05_mlp_plateau_tqdm", fn=run_mlp_blobs, healthy=H, style="tqdm", model="mlp-cls", seed=501,
         label_noise=0.25, epochs=12,
         fault="healthy: 25% label noise, so loss plateaus after real learning", causes=[]),
    dict(name="f09_mlp_img_raw_pixels_tqdm", fn=run_mlp_img, healthy=False, style="tqdm", model="mlp-img", seed=502,
         fault_key="raw_all", opt="sgd", lr=0.02, epochs=8,
         fault="inputs never normalised (raw 0-255 pixels) with SGD lr 0.02 momentum 0.9",
         causes=["PB-data-inventory", "S-grad-explosion", "S-nan"]),
    dict(name="f29_mlp_bce_eval_int_targets_tqdm", fn=run_mlp_bce, healthy=False, style="tqdm", model="mlp-bin",
         seed=503, fault_key="eval_int_targets",
         fault="BCEWithLogitsLoss in the eval loop given int64 labels (train loop casts to float): run dies at first eval",
         causes=["S-dtype-mismatch"]),
    # ---- printed: batch lines + epoch summary
    dict(name="h06_lstm_sinus_batchline", fn=run_lstm, healthy=H, style="batchline", model="lstm-cls", seed=601,
         fault="healthy: AdamW 3e-3, batch 64, 15 epochs", causes=[]),
    dict(name="f10_mlp_dropout09_batchline", fn=run_mlp_blobs, healthy=False, style="batchline", model="mlp-cls",
         seed=602, fault_key="dropout09", fault="dropout 0.9 after each hidden layer (meant 0.1)",
         causes=["S-plateau"]),
    dict(name="f11_causal_lm_no_mask_batchline", fn=run_causal_lm, healthy=False, style="batchline",
         model="transformer-lm", seed=603, fault_key="no_causal_mask",
         fault="causal LM without the causal attention mask: every position sees the token it must predict",
         causes=["O1", "S-verify-experiment"]),
    # ---- jsonl
    dict(name="h07_gru_lm_jsonl", fn=run_gru_lm, healthy=H, style="jsonl", model="gru-lm", seed=701,
         fault="healthy: char-level GRU LM, AdamW 3e-3, 8 epochs", causes=[]),
    dict(name="h08_mlp_evalloss_rises_jsonl", fn=run_mlp_overconf, healthy=H, style="jsonl", model="mlp-cls", seed=702,
         fault="healthy: 12% label noise, 75 epochs: eval loss drifts up from its minimum while accuracy holds", causes=[]),
    dict(name="f12_gru_lm_exp_lr_per_batch_jsonl", fn=run_gru_lm, healthy=False, style="jsonl", model="gru-lm",
         seed=703, fault_key="exp_per_batch",
         fault="ExponentialLR(gamma=0.85) written per epoch but stepped every batch: LR collapses",
         causes=["O8", "S-lr-too-low"]),
    dict(name="f13_cnn_argmax_wrong_axis_jsonl", fn=run_cnn, healthy=False, style="jsonl", model="cnn-bn", seed=704,
         fault_key="argmax_axis", fault="val accuracy takes argmax over the batch axis (dim=0) instead of classes",
         causes=["O1", "PB-loss-metric-mismatch"]),
    dict(name="f14_ae_clip_tiny_jsonl", fn=run_ae, healthy=False, style="jsonl", model="autoencoder", seed=705,
         fault_key="clip_tiny", fault="clip_grad_norm_(max_norm=1e-4) (meant 1.0) with SGD: updates are negligible",
         causes=["S-lr-too-low", "O22"]),
    dict(name="f15_gru_lm_target_not_shifted_jsonl", fn=run_gru_lm, healthy=False, style="jsonl", model="gru-lm",
         seed=706, fault_key="no_shift", fault="LM targets equal the inputs (next-token shift missing): copies its input",
         causes=["O1", "DP-labels-misaligned"]),
    # ---- csv
    dict(name="h18_lstm_sinus_csv", fn=run_lstm, healthy=H, style="csv", model="lstm-cls", seed=806, epochs=20,
         fault="healthy: AdamW 3e-3, batch 64, 20 epochs (slow start, then learns)", causes=[]),
    dict(name="h09_autoencoder_csv", fn=run_ae, healthy=H, style="csv", model="autoencoder", seed=801,
         fault="healthy: AdamW 2e-3, MSE reconstruction, 20 epochs", causes=[]),
    dict(name="f16_cnn_unfreeze_after_opt_csv", fn=run_cnn, healthy=False, style="csv", model="cnn-bn", seed=802,
         fault_key="unfreeze_after_opt",
         fault="backbone frozen, optimizer built over head params, backbone unfrozen after epoch 1: it never steps",
         causes=["O2"]),
    dict(name="f17_mlp_reg_test_stats_csv", fn=run_mlp_reg, healthy=False, style="csv", model="mlp-reg", seed=803,
         fault_key="test_stats", fault="regression targets standardised with the test split's mean/std",
         causes=["PB-leaky-split", "S-verify-experiment"]),
    dict(name="f18_mlp_mse_on_class_idx_csv", fn=run_mlp_mse_idx, healthy=False, style="csv", model="mlp-cls",
         seed=804, fault="MSE regression on 5 class indices instead of cross-entropy",
         causes=["PB-mse-on-logits", "O14"]),
    dict(name="f19_mlp_deep_tanh_tiny_init_csv", fn=run_mlp_deeptanh, healthy=False, style="csv", model="mlp-cls",
         seed=805, fault="12-layer tanh MLP with N(0, 0.01) init: gradients vanish",
         causes=["S-vanishing-gradients", "S-plateau"]),
    # ---- Lightning
    dict(name="h10_lit_cnn_sgd", fn=run_lightning, healthy=H, style="lightning_csv", model="cnn-bn", seed=901,
         lk="cnn", hparams=dict(optimizer="sgd", lr=0.05, batch_size=32, max_epochs=10, cosine=True),
         fault="healthy: SGD momentum 0.9 lr 0.05, cosine per epoch", causes=[]),
    dict(name="h11_lit_mlp_finetune_starts_low", fn=run_lightning, healthy=H, style="lightning_csv", model="mlp-cls",
         seed=902, lk="mlp", pretrain=True, hparams=dict(optimizer="adamw", lr=3e-4, batch_size=64, max_epochs=6),
         fault="healthy: fine-tune of a model pretrained on shifted data; loss starts low", causes=[]),
    dict(name="h12_lit_reg_short", fn=run_lightning, healthy=H, style="lightning_csv", model="mlp-reg", seed=903,
         lk="reg", log_every=5, hparams=dict(optimizer="adamw", lr=3e-3, batch_size=64, max_epochs=4),
         fault="healthy: short regression run, 4 epochs", causes=[]),
    dict(name="f20_lit_sigmoid_then_ce", fn=run_lightning, healthy=False, style="lightning_csv", model="mlp-cls",
         seed=904, lk="mlp", fault_key="sigmoid_ce", hparams=dict(optimizer="adamw", lr=1e-3, batch_size=64, max_epochs=10),
         fault="sigmoid applied to the logits before F.cross_entropy", causes=["O12", "S-plateau"]),
    dict(name="f21_lit_manual_opt_no_backward", fn=run_lightning, healthy=False, style="lightning_csv", model="cnn-bn",
         seed=905, lk="cnn", fault_key="no_manual_backward",
         hparams=dict(optimizer="sgd", lr=0.05, batch_size=32, max_epochs=6),
         fault="manual optimisation: zero_grad() and step() but self.manual_backward(loss) missing",
         causes=["O4", "O3"]),
    dict(name="f22_lit_opt_backbone_only", fn=run_lightning, healthy=False, style="lightning_csv", model="cnn-bn",
         seed=906, lk="cnn", fault_key="opt_backbone_only",
         hparams=dict(optimizer="sgd", lr=0.05, batch_size=32, max_epochs=8),
         fault="configure_optimizers passes only backbone parameters: the classifier head stays at its random init",
         causes=["O2"]),
    dict(name="f23_lit_val_noise_aug", fn=run_lightning, healthy=False, style="lightning_csv", model="cnn-bn",
         seed=907, lk="cnn", fault_key="val_aug", hparams=dict(optimizer="sgd", lr=0.05, batch_size=32, max_epochs=8),
         fault="random noise + shift augmentation applied in validation_step", causes=["V2"]),
    # ---- HF Trainer
    dict(name="h13_hf_bert_topics", fn=run_hf_bert, healthy=H, style="hf_state", model="bert-tiny-cls", seed=1001,
         args=dict(learning_rate=5e-4, per_device_train_batch_size=32, num_train_epochs=4, warmup_steps=20,
                   eval_strategy="epoch", logging_steps=10, weight_decay=0.01),
         fault="healthy: lr 5e-4, warmup 20 steps, linear decay", causes=[]),
    dict(name="h14_hf_gpt2_short", fn=run_hf_lm, healthy=H, style="hf_state", model="gpt2-tiny-lm", seed=1002,
         arch="gpt2", eval=False, n_sent=300,
         args=dict(learning_rate=1e-3, per_device_train_batch_size=16, max_steps=40, warmup_steps=5, logging_steps=2),
         fault="healthy: short 40-step run", causes=[]),
    dict(name="h15_hf_llama_lm", fn=run_hf_lm, healthy=H, style="hf_state", model="llama-tiny-lm", seed=1003,
         arch="llama", args=dict(learning_rate=2e-3, per_device_train_batch_size=16, num_train_epochs=3,
                                 warmup_steps=15, lr_scheduler_type="cosine", eval_strategy="steps", eval_steps=25,
                                 logging_steps=5, max_grad_norm=1.0),
         fault="healthy: lr 2e-3 cosine, warmup 15 steps", causes=[]),
    dict(name="h16_hf_gpt2_lm_eval", fn=run_hf_lm, healthy=H, style="hf_state", model="gpt2-tiny-lm", seed=1004,
         arch="gpt2", args=dict(learning_rate=1e-3, per_device_train_batch_size=16, num_train_epochs=3,
                                warmup_steps=10, eval_strategy="epoch", logging_steps=5),
         fault="healthy: lr 1e-3, linear decay, eval per epoch", causes=[]),
    dict(name="f24_hf_bert_weight_decay_1", fn=run_hf_bert, healthy=False, style="hf_state", model="bert-tiny-cls",
         seed=1005, args=dict(learning_rate=2e-3, per_device_train_batch_size=32, num_train_epochs=5, warmup_steps=20,
                              eval_strategy="epoch", logging_steps=10, weight_decay=1.0),
         fault="AdamW weight_decay=1.0 (meant 0.01) at lr 2e-3", causes=["S-weight-decay-high", "O6"]),
    dict(name="f25_hf_bert_label_map_differs", fn=run_hf_bert, healthy=False, style="hf_state", model="bert-tiny-cls",
         seed=1010, fault_key="label_map_differs",
         args=dict(learning_rate=5e-4, per_device_train_batch_size=32, num_train_epochs=4, warmup_steps=20,
                   eval_strategy="epoch", logging_steps=10),
         fault="eval labels mapped with sorted(class names), training labels with order of first appearance",
         causes=["DP-label-mapping"]),
    dict(name="f26_hf_gpt2_labels_preshifted", fn=run_hf_lm, healthy=False, style="hf_state", model="gpt2-tiny-lm",
         seed=1007, arch="gpt2", fault_key="pre_shifted",
         args=dict(learning_rate=1e-3, per_device_train_batch_size=16, num_train_epochs=3, warmup_steps=10,
                   eval_strategy="epoch", logging_steps=5),
         fault="labels shifted by one by hand, then shifted again inside the model: predicts token t+2",
         causes=["DP-labels-misaligned", "O1"]),
    dict(name="f27_hf_llama_all_unk", fn=run_hf_lm, healthy=False, style="hf_state", model="llama-tiny-lm", seed=1008,
         arch="llama", fault_key="all_unk",
         args=dict(learning_rate=2e-3, per_device_train_batch_size=16, num_train_epochs=3, warmup_steps=15,
                   eval_strategy="steps", eval_steps=25, logging_steps=5),
         fault="tokenizer vocabulary built from upper-cased text: lower-case letters all map to <unk>",
         causes=["PB-tokenizer-mismatch", "PB-data-inventory"]),
    dict(name="f28_hf_llama_warmup_never_ends", fn=run_hf_lm, healthy=False, style="hf_state", model="llama-tiny-lm",
         seed=1009, arch="llama",
         args=dict(learning_rate=2e-3, per_device_train_batch_size=16, num_train_epochs=3, warmup_steps=2000,
                   eval_strategy="steps", eval_steps=25, logging_steps=5),
         fault="warmup_steps=2000 for a ~250-step run (meant warmup_ratio): LR stays a small fraction of 2e-3",
         causes=["S-lr-too-low", "O7"]),
]

# Neutral folder names: the name says nothing about health or fault (the key stays in the README table).
_SHORT = {"pipe": "pipe", "logging": "logging", "bracket": "bracket", "dict": "dict", "tqdm": "tqdm",
          "batchline": "batchline", "jsonl": "jsonl", "csv": "csv", "lightning_csv": "lightning", "hf_state": "hf"}


def _assign_names():
    import random
    order = list(range(len(SPECS)))
    random.Random(3).shuffle(order)
    for rank, i in enumerate(order, start=1):
        sp = SPECS[i]
        sp["key"] = sp["name"]
        sp["name"] = f"g3r{rank:02d}_{sp['model']}_{_SHORT[sp['style']]}"


_assign_names()

FORMAT = {"pipe": "printed_pipe", "logging": "printed_logging", "bracket": "printed_bracket", "dict": "printed_dict",
          "tqdm": "printed_tqdm", "batchline": "printed_batchline", "jsonl": "jsonl", "csv": "csv",
          "lightning_csv": "lightning_csv", "hf_state": "hf_state"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--table", action="store_true", help="print the README table of runs and exit")
    a = ap.parse_args()
    if a.table:
        print("| run | format | model | healthy | fault (as injected) | causes | spec key |")
        print("|---|---|---|---|---|---|---|")
        for sp in sorted(SPECS, key=lambda z: z["name"]):
            print(f"| {sp['name']} | {FORMAT[sp['style']]} | {sp['model']} | {'yes' if sp['healthy'] else 'no'} | "
                  f"{sp['fault']} | {', '.join(sp['causes']) or '-'} | {sp['key']} |")
        return
    only = set(filter(None, a.only.split(",")))
    os.makedirs(RUNS, exist_ok=True)
    for spec in SPECS:
        name = spec["name"]
        if only and name not in only:
            continue
        out = os.path.join(RUNS, name)
        marker = os.path.join(HERE, "status", name + ".txt")
        if os.path.exists(marker) and not a.force:
            continue
        if os.path.exists(out):
            shutil.rmtree(out)
        os.makedirs(out)
        label = {"healthy": spec["healthy"], "causes": spec["causes"], "fault": spec["fault"],
                 "format": FORMAT[spec["style"]], "model": spec["model"], "seed": spec["seed"]}
        with open(os.path.join(out, "label.json"), "w") as fh:
            json.dump(label, fh, indent=1)
        t0 = time.time()
        status = "ok"
        try:
            spec["fn"](out, spec)
        except Exception as e:  # a run that dies is a real outcome; its own log holds the traceback
            status = f"died: {type(e).__name__}: {e}"[:200]
        dt = time.time() - t0
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        with open(marker, "w") as fh:
            fh.write(f"{status}\n{dt:.1f}s\n")
        print(f"{name}: {status} in {dt:.1f}s", flush=True)


if __name__ == "__main__":
    main()
