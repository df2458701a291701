"""Training loops for corpus_gen5. Every fault is a real code/config bug switched on by spec['bug']."""
import json, math, os, shutil, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from common import (CNN1D, CNNBN, ContrastiveEnc, GRUCls, MLP, ResNetReg, RunLog, Seq2SeqAttn, TabularMLP, TinyEncoderCls, TinyViT, TwoTask, blobs, char_corpus, reg_fn, seed_all, seq2seq_data, shapes16, signals, tabular)


def dump(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, default=str)


def grad_norm(model):
    g = [p.grad.detach().float().norm() for p in model.parameters() if p.grad is not None]
    return float(torch.norm(torch.stack(g))) if g else 0.0


def batches(tensors, bs, shuffle, gen):
    n = len(tensors[0])
    idx = torch.randperm(n, generator=gen) if shuffle else torch.arange(n)
    for i in range(0, n, bs):
        j = idx[i:i + bs]
        yield [t[j] for t in tensors]


# ============================================================================ plain PyTorch, (inputs..., y) data
def plain_run(rd, spec):
    bug = spec.get("bug")
    seed_all(spec["seed"])
    model, train, val, task = spec["build"](spec)
    E, bs, lr = spec["epochs"], spec["bs"], spec["lr"]
    N = math.ceil(len(train[0]) / bs)
    accum = spec.get("accum", 1)
    opt_lr = lr * spec.get("world_size", 1) if bug == "lr_world" else lr
    if spec["opt"] == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=opt_lr, weight_decay=spec.get("wd", 0.01))
    else:
        opt = torch.optim.SGD(model.parameters(), lr=opt_lr, momentum=spec.get("momentum", 0.9), weight_decay=spec.get("wd", 0.0))
    total = E * N // accum
    warm = spec.get("warmup", 0)

    def lam(s):
        if spec.get("sched") == "cosine":
            if s < warm:
                return (s + 1) / warm
            return 0.5 * (1 + math.cos(math.pi * min(1.0, (s - warm) / max(1, total - warm))))
        if spec.get("sched") == "linear":
            if s < warm:
                return (s + 1) / warm
            return max(0.0, (total - s) / max(1, total - warm))
        return 1.0
    if bug == "lambda_returns_lr":
        # the lambda is written to return the LR itself, but LambdaLR multiplies the base LR by it
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr * lam(s))
    elif bug != "sched_in_epoch":
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lam)
    if bug == "bf16_weights":
        model = model.to(torch.bfloat16)
    log = RunLog(rd, spec["format"], E, N, spec.get("step_every", 10))
    log.params({k: spec[k] for k in ("lr", "bs", "epochs", "opt") if k in spec} | spec.get("extra_args", {}))
    gen = torch.Generator().manual_seed(spec["seed"])
    ce = nn.CrossEntropyLoss(ignore_index=0) if bug == "ignore_index0" else nn.CrossEntropyLoss()
    if task == "reg":
        y_mu, y_sd = train[-1].mean(), train[-1].std()
    if spec.get("huber_delta"):
        lossf = nn.HuberLoss(delta=spec["huber_delta"])
    if spec.get("pretrain"):  # an earlier, unlogged pretraining stage on related data (fine-tune starts from it)
        Xp, yp = blobs(3000, d=16, k=spec.get("k", 4), sep=spec.get("sep", 1.0), noise=1.1, seed=spec["seed"])
        Xp = Xp * 1.3 + 0.5  # the pretraining data came from a differently calibrated source
        po = torch.optim.AdamW(model.parameters(), lr=2e-3)
        for _ in range(spec["pretrain"]):
            for xb, yb in batches([Xp, yp], 64, True, torch.Generator().manual_seed(1)):
                l = ce(model(xb), yb); po.zero_grad(); l.backward(); po.step()
    gstep = 0
    {k: v.clone() for k, v in model.state_dict().items()}
    for ep in range(1, E + 1):
        if bug == "sched_in_epoch":  # scheduler (re)built inside the epoch loop
            sched = torch.optim.lr_scheduler.LambdaLR(opt, lam)
        if bug == "reinit_each_epoch":  # init_weights() left inside the loop
            for m in model.modules():
                if hasattr(m, "reset_parameters"):
                    m.reset_parameters()
        model.train()
        t0 = time.time(); tot, cnt = 0.0, 0
        it = batches(train, bs, spec.get("shuffle", True), gen)
        for b in range(1, N + 1):
            if bug == "same_batch":  # iterator re-created every step on an unshuffled loader
                xs = next(batches(train, bs, False, gen))
            else:
                xs = next(it)
            *inp, y = xs
            if bug == "bf16_weights":
                inp = [t.to(torch.bfloat16) if t.is_floating_point() else t for t in inp]
            if bug == "train_noise":
                inp = [inp[0] + torch.randn_like(inp[0]) * spec["noise_std"]] + inp[1:]
            if bug == "half_labels_shift":
                k = spec["k"]; y = torch.where(y >= k // 2, (y + 1) % k, y)
            if spec.get("mixup"):
                lam_m = 1.0 if bug == "mixup_lambda1" else float(np.random.beta(0.4, 0.4))
                perm = torch.randperm(len(y))
                inp = [lam_m * inp[0] + (1 - lam_m) * inp[0][perm]] + inp[1:]
            out = model(*inp, **spec.get("fwd_kw", {}))
            if task == "cls":
                if spec.get("mixup"):
                    loss = lam_m * ce(out.float(), y) + (1 - lam_m) * ce(out.float(), y[perm])
                else:
                    loss = ce(out.float(), y)
            else:
                yt = (y - y_mu) / y_sd if spec.get("norm_targets") else y
                loss = lossf(out.float(), yt) if spec.get("huber_delta") else F.mse_loss(out.float(), yt)
            if bug == "double_avg_accum":
                loss_b = loss / accum / accum  # divided here and again in the helper that wraps backward
            else:
                loss_b = loss / accum
            gn = None
            if bug == "clip_before_backward":
                gn = float(nn.utils.clip_grad_norm_(model.parameters(), spec["clip"]))
            loss_b.backward()
            if spec.get("clip") and bug != "clip_before_backward":
                gn = float(nn.utils.clip_grad_norm_(model.parameters(), spec["clip"]))
            if gn is None and bug != "grad_norm_after_zero":
                gn = grad_norm(model)
            if b % accum == 0:
                opt.step(); opt.zero_grad()
                sched.step()
            if bug == "grad_norm_after_zero":
                gn = grad_norm(model)  # measured after zero_grad(): always 0
            gstep += 1
            tot += float(loss); cnt += 1
            m = {"loss": float(loss), "lr": opt.param_groups[0]["lr"]}
            if spec.get("log_gn", True):
                m["grad_norm"] = gn
            log.step(ep, gstep, b, m)
        # ---- eval
        model.eval()
        with torch.no_grad():
            *vin, vy = val
            if bug == "bf16_weights":
                vin = [t.to(torch.bfloat16) if t.is_floating_point() else t for t in vin]
            vo = torch.cat([model(*[t[i:i + 256] for t in vin], **spec.get("fwd_kw", {})) for i in range(0, len(vy), 256)]).float()
            res = {"train_loss": tot / cnt}
            if task == "cls":
                res["val_loss"] = float(F.cross_entropy(vo, vy)); res["val_acc"] = float((vo.argmax(-1) == vy).float().mean())
            else:
                if spec.get("norm_targets"):
                    pred = vo if bug == "eval_pred_normalised" else vo * y_sd + y_mu
                    res["val_loss"] = float(F.mse_loss((pred - y_mu) / y_sd, (vy - y_mu) / y_sd))
                else:
                    pred = vo
                    res["val_loss"] = float(F.mse_loss(pred, vy))
                if bug == "val_mae_on_train_batch":
                    res["val_mae"] = float((out.detach().float() - yt).abs().mean())  # last *training* batch
                else:
                    res["val_mae"] = float((pred - vy).abs().mean())
        log.epoch(ep, res, gstep, time.time() - t0)
    log.close()


# ============================================================================ builders for plain runs
def b_vit(spec):
    kind = spec.get("data_kind", "shape")
    Xtr, ytr = shapes16(spec.get("n", 1200), spec.get("noise", 0.3), spec["seed"], kind)
    Xva, yva = shapes16(400, spec.get("noise", 0.3), spec["seed"] + 1000, kind)
    return TinyViT(pos_emb=spec.get("pos_emb", True)), (Xtr, ytr), (Xva, yva), "cls"


def b_cnn(spec):
    Xtr, ytr = shapes16(spec.get("n", 1200), spec.get("noise", 0.4), spec["seed"])
    Xva, yva = shapes16(400, spec.get("noise", 0.4), spec["seed"] + 1000)
    return CNNBN(), (Xtr, ytr), (Xva, yva), "cls"


def b_cnn1d(spec):
    Xtr, ytr = signals(spec.get("n", 1200), seed=spec["seed"], noise=spec.get("noise", 0.6))
    Xva, yva = signals(400, seed=spec["seed"] + 1000, noise=spec.get("noise", 0.6))
    return CNN1D(bad_view=spec.get("bug") == "bad_view"), (Xtr, ytr), (Xva, yva), "cls"


def b_gru(spec):
    Xtr, ytr = signals(spec.get("n", 1000), T=40, seed=spec["seed"], noise=spec.get("noise", 0.6))
    Xva, yva = signals(400, T=40, seed=spec["seed"] + 1000, noise=spec.get("noise", 0.6))
    if spec.get("var_len"):
        g = torch.Generator().manual_seed(spec["seed"])
        def pad(X):
            L = torch.randint(12, 41, (len(X),), generator=g)
            X = X.clone()
            for i, l in enumerate(L):
                X[i, l:] = 0.0  # right padding
            return X, L
        Xtr, Ltr = pad(Xtr); Xva, Lva = pad(Xva)
        return GRUCls(), (Xtr, Ltr, ytr), (Xva, Lva, yva), "cls"
    return GRUCls(), (Xtr, ytr), (Xva, yva), "cls"


def b_mlp(spec):
    k = spec.get("k", 4)
    X, y = blobs(spec.get("n", 2000) + 600, d=16, k=k, sep=spec.get("sep", 1.0), noise=1.0, seed=spec["seed"])
    n = spec.get("n", 2000)
    if spec.get("label_noise"):
        g = torch.Generator().manual_seed(spec["seed"] + 3)
        flip = torch.rand(len(y), generator=g) < spec["label_noise"]
        y = torch.where(flip, torch.randint(0, k, (len(y),), generator=g), y)
    return MLP(16, spec.get("width", 64), k, spec.get("layers", 2), spec.get("drop", 0.0)), (X[:n], y[:n]), (X[n:], y[n:]), "cls"


def b_resreg(spec):
    kw = dict(scale=spec.get("yscale", 1.0), offset=spec.get("yoff", 0.0), noise=spec.get("noise", 0.1))
    Xtr, ytr = reg_fn(spec.get("n", 2000), seed=spec["seed"], **kw)
    Xva, yva = reg_fn(500, seed=spec["seed"] + 1000, **kw)
    return ResNetReg(blocks=spec.get("blocks", 4), skip=spec.get("skip", True), d=spec.get("width", 64), norm=spec.get("norm", True)), (Xtr, ytr), (Xva, yva), "reg"


def b_tab(spec):
    Xn, c1, c2, y = tabular(spec.get("n", 2000) + 600, spec["seed"])
    n = spec.get("n", 2000)
    mu, sd = Xn[:n].mean(0), Xn[:n].std(0)
    if spec.get("bug") == "row_standardise":  # axis=1 instead of axis=0
        Z = (Xn - Xn.mean(1, keepdims=True)) / Xn.std(1, keepdims=True)
    else:
        Z = (Xn - mu) / sd
    C = np.stack([c1, c2], 1)
    if spec.get("bug") == "split_cat_encoding":
        # categories encoded by order of first appearance, separately on each split
        def enc(col):
            m = {}
            return np.array([m.setdefault(v, len(m)) for v in col])
        Ctr = np.stack([enc(C[:n, 0]), enc(C[:n, 1])], 1); Cva = np.stack([enc(C[n:, 0]), enc(C[n:, 1])], 1)
    else:
        Ctr, Cva = C[:n], C[n:]
    t = lambda a, dt=torch.float32: torch.tensor(a, dtype=dt)
    return (TabularMLP(), (t(Z[:n]), t(Ctr, torch.long), t(y[:n], torch.long)),
            (t(Z[n:]), t(Cva, torch.long), t(y[n:], torch.long)), "cls")


def b_charcls(spec):
    sents = char_corpus(spec.get("n", 1600) + 400, spec["seed"])
    chars = sorted(set("".join(sents))); stoi = {c: i + 1 for i, c in enumerate(chars)}
    animals = ["dog", "cat", "bird", "fox"]
    L = 48
    X = torch.zeros(len(sents), L, dtype=torch.long); y = torch.zeros(len(sents), dtype=torch.long)
    for i, s in enumerate(sents):
        ids = [stoi[c] for c in s][:L]; X[i, :len(ids)] = torch.tensor(ids)
        y[i] = next(j for j, a in enumerate(animals) if a in s.split())
    n = spec.get("n", 1600)
    return TinyEncoderCls(len(chars) + 1, 4, L=L), (X[:n], y[:n]), (X[n:], y[n:]), "cls"


BUILDERS = dict(vit=b_vit, cnn=b_cnn, cnn1d=b_cnn1d, gru=b_gru, mlp=b_mlp, resreg=b_resreg, tab=b_tab, charcls=b_charcls)


# ============================================================================ seq2seq GRU with attention
def seq2seq_run(rd, spec):
    bug = spec.get("bug"); seed_all(spec["seed"])
    src, tgt = seq2seq_data(spec.get("n", 1500), spec["seed"]); vsrc, vtgt = seq2seq_data(300, spec["seed"] + 1000)
    model = Seq2SeqAttn(); opt = torch.optim.AdamW(model.parameters(), lr=spec["lr"])
    E, bs = spec["epochs"], spec["bs"]; N = math.ceil(len(src) / bs)
    log = RunLog(rd, spec["format"], E, N, spec.get("step_every", 10)); log.params({"lr": spec["lr"], "bs": bs, "epochs": E})
    gen = torch.Generator().manual_seed(spec["seed"]); g = 0

    def rev(s):  # reverse the non-pad part of each source ("reverse the source" trick)
        out = s.clone()
        for i in range(len(s)):
            m = int((s[i] != 0).sum()); out[i, :m] = s[i, :m].flip(0)
        return out
    for ep in range(1, E + 1):
        model.train(); t0 = time.time(); tot = 0
        for b, (s, t) in enumerate(batches([src, tgt], bs, True, gen), 1):
            if bug == "reverse_train_only":
                s = rev(s)
            logits = model(s, t[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), t[:, 1:].reshape(-1), ignore_index=0)
            opt.zero_grad(); loss.backward(); gn = float(nn.utils.clip_grad_norm_(model.parameters(), 1.0)); opt.step()
            g += 1; tot += float(loss)
            log.step(ep, g, b, {"loss": float(loss), "lr": spec["lr"], "grad_norm": gn})
        model.eval()
        with torch.no_grad():
            lg = model(vsrc, vtgt[:, :-1])
            vl = F.cross_entropy(lg.reshape(-1, lg.shape[-1]), vtgt[:, 1:].reshape(-1), ignore_index=0)
            m = vtgt[:, 1:] != 0
            tok = ((lg.argmax(-1) == vtgt[:, 1:]) & m).sum() / m.sum()
        log.epoch(ep, {"train_loss": tot / b, "val_loss": float(vl), "val_token_acc": float(tok)}, g, time.time() - t0)
    log.close()


# ============================================================================ SimCLR-style contrastive + linear probe
def augment(x, gen):
    B = len(x)
    sh = torch.randint(-2, 3, (2,), generator=gen)
    x = torch.roll(x, shifts=(int(sh[0]), int(sh[1])), dims=(2, 3))
    x = x * (0.7 + 0.6 * torch.rand(B, 1, 1, 1, generator=gen)) + 0.3 * torch.randn(x.shape, generator=gen)
    return x


def contrastive_run(rd, spec):
    bug = spec.get("bug"); seed_all(spec["seed"])
    X, y = shapes16(spec.get("n", 1024), 0.3, spec["seed"]); Xv, yv = shapes16(400, 0.3, spec["seed"] + 1000)
    enc = ContrastiveEnc(); opt = torch.optim.AdamW(enc.parameters(), lr=spec["lr"])
    E, bs, tau = spec["epochs"], spec["bs"], spec.get("tau", 0.2); N = math.ceil(len(X) / bs)
    log = RunLog(rd, spec["format"], E, N, spec.get("step_every", 5)); log.params({"lr": spec["lr"], "bs": bs, "tau": tau})
    gen = torch.Generator().manual_seed(spec["seed"]); g = 0
    for ep in range(1, E + 1):
        enc.train(); t0 = time.time(); tot = 0
        for b, (xb, _) in enumerate(batches([X, y], bs, True, gen), 1):
            v1 = augment(xb, gen)
            v2 = v1 if bug == "same_view" else augment(xb, gen)
            if bug == "pairs_misaligned":
                v2 = v2[torch.randperm(len(v2), generator=gen)]  # second view built from a reshuffled batch
            z = F.normalize(torch.cat([enc(v1)[1], enc(v2)[1]]), dim=-1)
            sim = z @ z.t() / tau; sim.fill_diagonal_(-1e9)
            n = len(xb); tgt = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
            loss = F.cross_entropy(sim, tgt)
            opt.zero_grad(); loss.backward(); opt.step(); g += 1; tot += float(loss)
            log.step(ep, g, b, {"loss": float(loss), "lr": spec["lr"], "grad_norm": grad_norm(enc)})
        # linear probe on frozen features
        enc.eval()
        with torch.no_grad():
            ftr = enc(X)[0]; fva = enc(Xv)[0]
        mu, sd = ftr.mean(0), ftr.std(0) + 1e-6
        ftr, fva = (ftr - mu) / sd, (fva - mu) / sd
        probe = nn.Linear(ftr.shape[1], 4); po = torch.optim.Adam(probe.parameters(), lr=1e-2)
        for _ in range(100):
            pl = F.cross_entropy(probe(ftr), y); po.zero_grad(); pl.backward(); po.step()
        with torch.no_grad():
            acc = float((probe(fva).argmax(-1) == yv).float().mean()); vpl = float(F.cross_entropy(probe(fva), yv))
        log.epoch(ep, {"train_loss": tot / b, "val_probe_loss": vpl, "val_probe_acc": acc}, g, time.time() - t0)
    log.close()


# ============================================================================ two-task head (class + regression)
def twotask_data(n, seed):
    X, y = blobs(n, d=16, k=4, sep=1.0, seed=seed)
    g = torch.Generator().manual_seed(seed + 7)
    r = X[:, :4].sum(1) * 0.5 + torch.sin(X[:, 4]) + 0.2 * torch.randn(n, generator=g)
    return X, y, r


# ============================================================================ Lightning
def lightning_run(rd, spec):
    import lightning as L
    from lightning.pytorch.loggers import CSVLogger
    from lightning.pytorch.callbacks import EarlyStopping
    from torch.utils.data import TensorDataset, DataLoader
    bug = spec.get("bug"); seed_all(spec["seed"]); L.seed_everything(spec["seed"], verbose=False)
    kind = spec["task"]
    if kind == "twotask":
        Xa, ya, ra = twotask_data(2600, spec["seed"])
        if bug == "raw_units_reg":
            ra = ra * 400 + 2500  # regression target left in raw units (e.g. grams)
        else:
            ra = (ra - ra[:2000].mean()) / ra[:2000].std()
        tr = TensorDataset(Xa[:2000], ya[:2000], ra[:2000]); va = TensorDataset(Xa[2000:], ya[2000:], ra[2000:])
        net = TwoTask()
    else:
        if kind == "vit":
            net, (Xt, yt), (Xv, yv), _ = b_vit(spec)
        elif kind == "cnn":
            net, (Xt, yt), (Xv, yv), _ = b_cnn(spec)
        elif kind == "cnn1d":
            net, (Xt, yt), (Xv, yv), _ = b_cnn1d(spec)
        else:
            net, (Xt, yt), (Xv, yv), _ = b_mlp(spec)
        if bug == "val_one_class":
            # val split = first 200 rows of the class-sorted held-out file
            o = torch.argsort(yv, stable=True); Xv, yv = Xv[o][:90], yv[o][:90]
        tr = TensorDataset(Xt, yt); va = TensorDataset(Xv, yv)

    class Mod(L.LightningModule):
        def __init__(self, **hp):
            super().__init__(); self.save_hyperparameters(); self.net = net

        def training_step(self, batch, i):
            if kind == "twotask":
                x, y, r = batch; lo, ro = self.net(x)
                lc, lr_ = F.cross_entropy(lo, y), F.mse_loss(ro, r)
                loss = lc + lr_ if bug != "detach_cls" else lc.detach() + lr_
                self.log("train_cls_loss", lc); self.log("train_reg_loss", lr_)
            else:
                x, y = batch; loss = F.cross_entropy(self.net(x), y)
            self.log("train_loss", loss, prog_bar=False)
            return loss

        def validation_step(self, batch, i):
            if kind == "twotask":
                x, y, r = batch; lo, ro = self.net(x)
                self.log("val_loss", F.cross_entropy(lo, y) + F.mse_loss(ro, r))
                self.log("val_cls_acc", (lo.argmax(-1) == y).float().mean()); self.log("val_reg_mae", (ro - r).abs().mean())
            else:
                x, y = batch; o = self.net(x)
                self.log("val_loss", F.cross_entropy(o, y)); self.log("val_acc", (o.argmax(-1) == y).float().mean())

        def configure_optimizers(self):
            if spec["opt"] == "sgd":
                opt = torch.optim.SGD(self.parameters(), lr=spec["lr"], momentum=0.9)
            else:
                opt = torch.optim.AdamW(self.parameters(), lr=spec["lr"], weight_decay=0.01)
            if spec.get("sched") == "cosine":
                sch = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=spec["epochs"])
                return {"optimizer": opt, "lr_scheduler": {"scheduler": sch, "interval": "epoch"}}
            return opt

    hp = {k: spec[k] for k in ("lr", "bs", "epochs", "opt") if k in spec} | spec.get("extra_args", {})
    mod = Mod(**hp)
    logger = CSVLogger(rd, name="lg", version=0)
    cbs = []
    from lightning.pytorch.callbacks import LearningRateMonitor
    cbs.append(LearningRateMonitor(logging_interval="step"))
    if spec.get("early_stop") is not None:
        cbs.append(EarlyStopping(monitor="val_loss", patience=spec["early_stop"], mode="min"))
    trainer = L.Trainer(max_epochs=spec["epochs"], logger=logger, callbacks=cbs, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, log_every_n_steps=spec.get("step_every", 10),
                        accelerator="cpu", devices=1, accumulate_grad_batches=spec.get("accum", 1), num_sanity_val_steps=0)
    gen = torch.Generator().manual_seed(spec["seed"])
    trainer.fit(mod, DataLoader(tr, batch_size=spec["bs"], shuffle=True, generator=gen), DataLoader(va, batch_size=256))
    for f in ("metrics.csv", "hparams.yaml"):
        shutil.move(os.path.join(rd, "lg", "version_0", f), os.path.join(rd, f))
    shutil.rmtree(os.path.join(rd, "lg"))


# ============================================================================ plain: two-task and tabular variants use plain_run via builders
def twotask_plain_run(rd, spec):
    bug = spec.get("bug"); seed_all(spec["seed"])
    X, y, r = twotask_data(2600, spec["seed"]); r = (r - r[:2000].mean()) / r[:2000].std()
    net = TwoTask(); opt = torch.optim.AdamW(net.parameters(), lr=spec["lr"], weight_decay=0.01)
    E, bs = spec["epochs"], spec["bs"]; N = math.ceil(2000 / bs)
    log = RunLog(rd, spec["format"], E, N, spec.get("step_every", 10)); log.params({"lr": spec["lr"], "bs": bs, "epochs": E})
    gen = torch.Generator().manual_seed(spec["seed"]); g = 0
    for ep in range(1, E + 1):
        net.train(); t0 = time.time(); tot = 0
        for b, (xb, yb, rb) in enumerate(batches([X[:2000], y[:2000], r[:2000]], bs, True, gen), 1):
            lo, ro = net(xb); lc, lr_ = F.cross_entropy(lo, yb), F.mse_loss(ro, rb)
            loss = (lc.detach() if bug == "detach_cls" else lc) + lr_
            opt.zero_grad(); loss.backward(); opt.step(); g += 1; tot += float(loss)
            log.step(ep, g, b, {"loss": float(loss), "cls_loss": float(lc), "reg_loss": float(lr_), "lr": spec["lr"]})
        net.eval()
        with torch.no_grad():
            lo, ro = net(X[2000:])
            res = {"train_loss": tot / b, "val_cls_loss": float(F.cross_entropy(lo, y[2000:])),
                   "val_reg_loss": float(F.mse_loss(ro, r[2000:])), "val_cls_acc": float((lo.argmax(-1) == y[2000:]).float().mean()),
                   "val_reg_mae": float((ro - r[2000:]).abs().mean())}
        log.epoch(ep, res, g, time.time() - t0)
    log.close()


# ============================================================================ HF Trainer
class DictDS(torch.utils.data.Dataset):
    def __init__(self, **t):
        self.t = t; self.n = len(next(iter(t.values())))

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {k: v[i] for k, v in self.t.items()}


def hf_run(rd, spec):
    import transformers
    from transformers import TrainingArguments, Trainer
    bug = spec.get("bug"); seed_all(spec["seed"]); transformers.set_seed(spec["seed"])
    arch = spec["arch"]
    sents = char_corpus(spec.get("n", 1200) + 200, spec["seed"])
    chars = sorted(set("".join(sents))); stoi = {c: i + 3 for i, c in enumerate(chars)}  # 0 pad, 1 bos, 2 eos
    V, L = len(chars) + 3, 64
    ids = torch.zeros(len(sents), L, dtype=torch.long); am = torch.zeros_like(ids)
    for i, s in enumerate(sents):
        t = [1] + [stoi[c] for c in s][:L - 2] + [2]
        ids[i, :len(t)] = torch.tensor(t); am[i, :len(t)] = 1
    n = spec.get("n", 1200)
    if arch == "bert":
        from transformers import BertConfig, BertForSequenceClassification
        cfg = BertConfig(vocab_size=V, hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128,
                         max_position_embeddings=L, num_labels=4, pad_token_id=0)
        model = BertForSequenceClassification(cfg)
        animals = ["dog", "cat", "bird", "fox"]
        lab = torch.tensor([next(j for j, a in enumerate(animals) if a in s.split()) for s in sents])
        tr = DictDS(input_ids=ids[:n], attention_mask=am[:n], labels=lab[:n]); va = DictDS(input_ids=ids[n:], attention_mask=am[n:], labels=lab[n:])

        def metrics(p):
            return {"accuracy": float((p.predictions.argmax(-1) == p.label_ids).mean())}
    else:
        if arch == "gpt2":
            from transformers import GPT2Config, GPT2LMHeadModel
            model = GPT2LMHeadModel(GPT2Config(vocab_size=V, n_embd=64, n_layer=2, n_head=2, n_positions=L, bos_token_id=1, eos_token_id=2, pad_token_id=0))
        else:
            from transformers import LlamaConfig, LlamaForCausalLM
            model = LlamaForCausalLM(LlamaConfig(vocab_size=V, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                                 num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=L,
                                                 bos_token_id=1, eos_token_id=2, pad_token_id=0))
        labels = ids.clone()
        if bug == "mask_inverted":
            labels[am == 1] = -100  # mask meant for padding applied to the real tokens: only padding is scored
        else:
            labels[am == 0] = -100
        tr = DictDS(input_ids=ids[:n], attention_mask=am[:n], labels=labels[:n]); va = DictDS(input_ids=ids[n:], attention_mask=am[n:], labels=labels[n:])
        metrics = None
    a = spec["args"]
    args = TrainingArguments(output_dir=os.path.join("/tmp/gen5_hf", os.path.basename(rd)), report_to=[], save_strategy="no",
                             eval_strategy="epoch", logging_strategy="steps", logging_steps=a.pop("logging_steps", 5),
                             use_cpu=True, dataloader_num_workers=0, disable_tqdm=True, seed=spec["seed"], **a)
    optimizers = (None, None)
    if bug == "num_training_steps_epochs":
        from transformers import get_linear_schedule_with_warmup
        opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
        sch = get_linear_schedule_with_warmup(opt, num_warmup_steps=0, num_training_steps=int(args.num_train_epochs))
        optimizers = (opt, sch)
    if bug == "own_optimizer_lr":
        optimizers = (torch.optim.AdamW(model.parameters(), lr=spec["opt_lr"], weight_decay=0.01), None)
    trainer = Trainer(model=model, args=args, train_dataset=tr, eval_dataset=va, compute_metrics=metrics, optimizers=optimizers)
    trainer.train()
    trainer.state.save_to_json(os.path.join(rd, "trainer_state.json"))
    d = args.to_dict()
    dump(os.path.join(rd, "config.json"), {k: v for k, v in d.items() if isinstance(v, (int, float, str, bool, type(None), list))})
    shutil.rmtree(args.output_dir, ignore_errors=True)
