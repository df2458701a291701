"""MLP / CNN / ResNet / LSTM forecaster / own-loop GPT-2 and LLaMA families (plain torch loops)."""
import math
import warnings
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import Recorder, seed_all, blobs, shapes16, macro_f1, char_corpus


def _warn_to(rec):
    def show(message, category, filename, lineno, file=None, line=None):
        rec.text(f"{filename}:{lineno}: {category.__name__}: {message}", level="WARNING")
    warnings.showwarning = show
    warnings.simplefilter("default")


def mlp(d, k, h=128, p=0.0, depth=2):
    layers, w = [], d
    for _ in range(depth):
        layers += [nn.Linear(w, h), nn.ReLU()] + ([nn.Dropout(p)] if p else []); w = h
    return nn.Sequential(*layers, nn.Linear(w, k))


def batches(n, B, shuffle=True):
    perm = torch.randperm(n) if shuffle else torch.arange(n)
    return [perm[i:i + B] for i in range(0, n - B + 1, B)]


# ------------------------------------------------------------------ MLP classification variants
def run_mlp_cls(s, run_dir):
    seed_all(s["seed"])
    kind = s["kind"]; bug = s.get("bug")
    E, B, lr = s.get("epochs", 20), s.get("batch", 64), s.get("lr", 1e-3)
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=None, name=s["name"])
    _warn_to(rec)
    crit_kw = {}
    multilabel = kind == "multilabel"
    if kind == "imbalanced":
        w = [0.6, 0.25, 0.1, 0.05]
        Xa, ya = blobs(3800, 12, 4, 1.0, 1.5, s["seed"], w)
        X, y, vX, vy = Xa[:3000], ya[:3000], Xa[3000:], ya[3000:]
        freq = torch.bincount(y, minlength=4).float() / len(y)
        cw = freq / freq.sum() * 4 if bug == "freq_weight" else (1 / freq) / (1 / freq).sum() * 4
        crit_kw["weight"] = cw
    elif kind == "multilabel":
        r = np.random.RandomState(s["seed"]); W = r.randn(16, 6)
        Xa = r.randn(3800, 16); Ya = ((Xa @ W + r.randn(3800, 6) * 0.8) > 0.8).astype(np.float32)
        X, y = torch.tensor(Xa[:3000], dtype=torch.float32), torch.tensor(Ya[:3000])
        vX, vy = torch.tensor(Xa[3000:], dtype=torch.float32), torch.tensor(Ya[3000:])
    elif kind == "xor":  # label decided by the sign product of two of 30 features: long plateau, then a drop
        r = np.random.RandomState(s["seed"]); Xa = r.randn(4000, 10).astype(np.float32)
        ya = ((Xa[:, 0] * Xa[:, 1]) > 0).astype(np.int64)
        X, y, vX, vy = torch.tensor(Xa[:3200]), torch.tensor(ya[:3200]), torch.tensor(Xa[3200:]), torch.tensor(ya[3200:])
    elif kind == "small_noisy":
        X, y = blobs(1000, 20, 3, 1.0, 1.6, s["seed"]); vX, vy = X[600:], y[600:]; X, y = X[:300], y[:300]
    else:
        X, y = blobs(3000, 12, 4, 1.5, 1.2, s["seed"]); vX, vy = X[2400:], y[2400:]; X, y = X[:2400], y[:2400]
    k = y.shape[1] if multilabel else int(y.max()) + 1
    if kind == "xor":
        model = nn.Sequential(nn.Linear(10, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2))
        for m in model:
            if isinstance(m, nn.Linear): nn.init.normal_(m.weight, std=0.05); nn.init.zeros_(m.bias)
    elif multilabel and bug == "sigmoid_twice":
        model = nn.Sequential(mlp(16, 6), nn.Sigmoid())
    else:
        model = mlp(X.shape[1], k, h=s.get("hidden", 128), p=s.get("dropout", 0.0))
    opt_name = s.get("opt", "adam")
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9) if opt_name == "sgd" else torch.optim.Adam(model.parameters(), lr=lr)
    spe = len(X) // B; rec.S = spe
    ls = s.get("label_smoothing", 0.0)
    crit = nn.BCEWithLogitsLoss() if multilabel else nn.CrossEntropyLoss(label_smoothing=ls, **crit_kw)
    sched = None
    if s.get("onecycle_total") is not None:
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=s["onecycle_total"])
    rec.params(model=f"MLP {s.get('hidden',128)}x2" if kind != "xor" else "MLP tanh 64x2 (init std 0.05)", optimizer=opt_name, lr=lr,
               batch_size=B, epochs=E, label_smoothing=ls, class_weights=[round(v, 3) for v in crit_kw["weight"].tolist()] if crit_kw else None,
               scheduler="OneCycleLR(total_steps=%s)" % s["onecycle_total"] if sched else None, early_stopping_patience=s.get("patience"))
    best, best_ep, bad, best_state = float("inf"), -1, 0, None
    step = 0
    try:
        for ep in range(E):
            model.train(); tl, tc, tn = [], 0, 0
            for ids in batches(len(X), B):
                out = model(X[ids]); loss = crit(out, y[ids])
                opt.zero_grad(); loss.backward(); opt.step(); step += 1
                if sched: sched.step()
                tl.append(loss.item())
                if not multilabel:
                    tc += (out.argmax(1) == y[ids]).sum().item(); tn += len(ids)
                if s.get("step_every") and step % s["step_every"] == 0:
                    rec.step(step, epoch=ep, loss=loss.item(), lr=opt.param_groups[0]["lr"])
            model.eval()
            with torch.no_grad():
                out = model(vX); vl = crit(out, vy).item()
            m = {"train_loss": float(np.mean(tl))}
            if multilabel:
                pr = (out > 0.5).float() if bug == "sigmoid_twice" else (out.sigmoid() > 0.5).float()
                tp = (pr * vy).sum(); f1 = (2 * tp / (pr.sum() + vy.sum())).item()
                m.update(val_loss=vl, val_micro_f1=f1)
            else:
                m.update(train_acc=tc / tn, val_loss=vl, val_acc=(out.argmax(1) == vy).float().mean().item())
                if kind == "imbalanced":
                    m["val_macro_f1"] = macro_f1(out.argmax(1).numpy(), vy.numpy(), 4)
            if sched: m["lr"] = opt.param_groups[0]["lr"]
            rec.epoch(ep, **m)
            if s.get("patience"):
                if vl < best - 1e-4:
                    best, best_ep, bad = vl, ep, 0
                    best_state = {k_: v.clone() for k_, v in model.state_dict().items()}
                else:
                    bad += 1
                    if bad >= s["patience"]:
                        rec.text(f"Early stopping at epoch {ep + 1}: val_loss has not improved for {bad} epochs "
                                 f"(best {best:.4f} at epoch {best_ep + 1}); restoring best weights")
                        model.load_state_dict(best_state)
                        with torch.no_grad():
                            out = model(vX)
                        rec.text(f"restored model: val_loss {crit(out, vy).item():.4f} val_acc {(out.argmax(1) == vy).float().mean().item():.4f}")
                        break
    except Exception:
        import traceback
        rec.text("Traceback (most recent call last):\n" + "".join(traceback.format_exc().splitlines(True)[1:]), level="ERROR")
    rec.close()


# ------------------------------------------------------------------ regression variants
def run_mlp_reg(s, run_dir):
    seed_all(s["seed"]); r = np.random.RandomState(s["seed"])
    Xa = r.uniform(-2, 2, (4000, 6)).astype(np.float32)
    ya = (np.sin(Xa[:, 0] * 1.5) + 0.5 * Xa[:, 1] ** 2 - Xa[:, 2] * Xa[:, 3] + r.randn(4000) * 0.1).astype(np.float32)
    X, y, vX, vy = [torch.tensor(a) for a in (Xa[:3200], ya[:3200], Xa[3200:], ya[3200:])]
    model = mlp(6, 1, h=64)
    E, B = s.get("epochs", 15), 32; spe = len(X) // B
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    _warn_to(rec)
    bug = s.get("bug")
    red = "sum" if s.get("sum_loss") else "mean"
    lr = 1e-3
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    rec.params(model="MLP 64x2 regressor", lr=lr, batch_size=B, epochs=E, loss=f"MSELoss(reduction='{red}')")
    crit = nn.MSELoss(reduction=red)
    step = 0
    for ep in range(E):
        model.train(); tl = []
        for ids in batches(len(X), B):
            pred = model(X[ids])
            if bug != "broadcast":
                pred = pred.squeeze(-1)
            loss = crit(pred, y[ids])  # bug: (B,1) vs (B,) broadcasts to (B,B)
            opt.zero_grad(); loss.backward(); opt.step(); step += 1; tl.append(loss.item())
            if step % 25 == 0:
                rec.step(step, epoch=ep, loss=loss.item())
        model.eval()
        with torch.no_grad():
            p = model(vX)
            if bug != "broadcast": p = p.squeeze(-1)
            vmse = F.mse_loss(p, vy).item()
            vmae = (p - vy).abs().mean().item()
        rec.epoch(ep, train_loss=float(np.mean(tl)), val_mse=vmse, val_mae=vmae)
    rec.close()


# ------------------------------------------------------------------ fp16 autocast + GradScaler (healthy)
def run_fp16(s, run_dir):
    seed_all(s["seed"])
    X, y = blobs(3200, 32, 6, 1.4, 1.2, s["seed"]); vX, vy = X[2600:], y[2600:]; X, y = X[:2600], y[:2600]
    model = mlp(32, 6, h=256)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 24, growth_interval=400)
    E, B = s.get("epochs", 6), 64; spe = len(X) // B
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    rec.params(model="MLP 256x2", lr=1e-3, amp="autocast(float16)", grad_scaler="init_scale=2**24, growth_interval=400", batch_size=B, epochs=E)
    step = 0
    for _ep in range(E):
        model.train()
        for ids in batches(len(X), B):
            with torch.autocast("cpu", dtype=torch.float16):
                loss = F.cross_entropy(model(X[ids]), y[ids])
            opt.zero_grad(); scaler.scale(loss).backward(); scaler.unscale_(opt)
            gn = nn.utils.clip_grad_norm_(model.parameters(), 1e9)
            scaler.step(opt); scaler.update(); step += 1
            if step % 5 == 0:
                rec.step(step, train_loss=loss.item(), grad_norm=gn.item(), loss_scale=scaler.get_scale(), lr=1e-3)
        model.eval()
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
            out = model(vX)
        rec.step(step, val_loss=F.cross_entropy(out.float(), vy).item(), val_acc=(out.argmax(1) == vy).float().mean().item())
    rec.close()


# ------------------------------------------------------------------ CNNs on 16x16 shapes
class CNN(nn.Module):
    def __init__(self, k=4, p=0.0):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                               nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(p), nn.Linear(32 * 16, 64), nn.ReLU(), nn.Dropout(p), nn.Linear(64, k))

    def forward(self, x):
        return self.head(self.f(x))


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

    def forward(self, x):
        return F.relu(x + self.b2(self.c2(F.relu(self.b1(self.c1(x))))))


def resnet(k=4):
    return nn.Sequential(nn.Conv2d(1, 24, 3, padding=1, bias=False), nn.BatchNorm2d(24), nn.ReLU(), ResBlock(24), nn.MaxPool2d(2),
                         ResBlock(24), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(24, k))


def augment(x, strong=False):
    sh = np.random.randint(-2, 3, 2)
    x = torch.roll(x, shifts=(int(sh[0]), int(sh[1])), dims=(2, 3))
    if np.random.rand() < 0.5: x = x.flip(3)
    if strong:
        x = x + torch.randn_like(x) * 0.3
        for i in range(len(x)):
            a, b = np.random.randint(0, 12, 2); x[i, :, a:a + 5, b:b + 5] = 0
    return x


def run_cnn(s, run_dir):
    seed_all(s["seed"])
    n_tr = s.get("n_train", 2000)
    X, y = shapes16(n_tr, s["seed"], noise=s.get("noise", 0.35)); vX, vy = shapes16(s.get("n_val", 400), s["seed"] + 11, noise=s.get("noise", 0.35))
    bug = s.get("bug")
    # images arrive as uint8 (0..255) like decoded files
    to_u8 = lambda a: (a.clamp(-1, 2) + 1) / 3 * 255
    X, vX = to_u8(X), to_u8(vX)
    mean, std = (X / 255).mean().item(), (X / 255).std().item()
    norm_tr = lambda a: ((a / 255) - mean) / std
    norm_va = (lambda a: (a - mean) / std) if bug == "val_norm" else norm_tr  # bug: /255 forgotten in the val transform
    X, vX = norm_tr(X), norm_va(vX)
    arch = s.get("arch", "cnn")
    model = resnet() if arch == "resnet" else CNN(p=s.get("dropout", 0.0))
    E, B = s.get("epochs", 8), s.get("batch", 32); spe = len(X) // B
    lr = s.get("lr", 1e-3)
    if s.get("opt") == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-2)
    sched, sched_name = None, None
    if s.get("cyclic"):
        sched = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=lr / 20, max_lr=lr, step_size_up=2 * spe, mode="triangular")
        sched_name = f"CyclicLR(triangular, base {lr/20:g}, max {lr:g}, step_size_up=2 epochs)"
    plateau = None
    if s.get("plateau_mode"):
        plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode=s["plateau_mode"], factor=0.5, patience=0)
        sched_name = f"ReduceLROnPlateau(mode='{s['plateau_mode']}', factor=0.5, patience=0) on val_loss"
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    rec.params(model="ResNet-style (2 blocks, BN)" if arch == "resnet" else "CNN 2xConv-BN", optimizer=s.get("opt", "adamw"), lr=lr,
               batch_size=B, epochs=E, scheduler=sched_name, augmentation=s.get("aug", "none"), mixup=s.get("mixup", False))
    step = 0
    eval_every = s.get("eval_every")

    def evaluate():
        model.eval()
        with torch.no_grad():
            xv = augment(vX.clone(), strong=True) if bug == "eval_aug" else vX
            out = model(xv)
        model.train()
        return F.cross_entropy(out, vy).item(), (out.argmax(1) == vy).float().mean().item()

    for ep in range(E):
        model.train(); tl, tc, tn = [], 0, 0
        for ids in batches(len(X), B):
            xb, yb = X[ids], y[ids]
            if s.get("aug") or bug == "eval_aug":
                xb = augment(xb.clone(), strong=s.get("aug") == "strong" or bug == "eval_aug")
            if s.get("mixup"):
                lam = float(np.random.beta(0.4, 0.4)); perm = torch.randperm(len(xb))
                xb = lam * xb + (1 - lam) * xb[perm]
                out = model(xb)
                if bug == "mixup_labels":
                    loss = F.cross_entropy(out, yb)  # targets not mixed
                else:
                    loss = lam * F.cross_entropy(out, yb) + (1 - lam) * F.cross_entropy(out, yb[perm])
            else:
                out = model(xb); loss = F.cross_entropy(out, yb)
            opt.zero_grad(); loss.backward(); opt.step(); step += 1
            if sched: sched.step()
            tl.append(loss.item()); tc += (out.argmax(1) == yb).sum().item(); tn += len(yb)
            if eval_every and step % eval_every == 0:
                vl, va = evaluate()
                rec.step(step, epoch=ep, train_loss=float(np.mean(tl[-eval_every:])), val_loss=vl, val_acc=va)
            elif s.get("step_every") and step % s["step_every"] == 0:
                rec.step(step, epoch=ep, loss=loss.item(), lr=opt.param_groups[0]["lr"])
        vl, va = evaluate()
        if not eval_every:
            rec.epoch(ep, loss=float(np.mean(tl)), accuracy=tc / tn, val_loss=vl, val_accuracy=va, lr=opt.param_groups[0]["lr"])
        if plateau: plateau.step(vl)
    rec.close()


# ------------------------------------------------------------------ LSTM forecaster (healthy)
def run_forecast(s, run_dir):
    seed_all(s["seed"]); r = np.random.RandomState(s["seed"])
    t = np.arange(6000)
    series = np.sin(2 * np.pi * t / 50) + 0.5 * np.sin(2 * np.pi * t / 13) + r.randn(6000) * 0.2
    W, H = 24, 4
    idx = np.arange(0, 6000 - W - H, 2)
    Xa = np.stack([series[i:i + W] for i in idx])[:, :, None].astype(np.float32); Ya = np.stack([series[i + W:i + W + H] for i in idx]).astype(np.float32)
    cut = int(len(idx) * 0.8)
    X, y, vX, vy = [torch.tensor(a) for a in (Xa[:cut - 14], Ya[:cut - 14], Xa[cut:], Ya[cut:])]

    class F_(nn.Module):
        def __init__(self):
            super().__init__(); self.rnn = nn.LSTM(1, 48, batch_first=True); self.out = nn.Linear(48, H)

        def forward(self, x):
            return self.out(self.rnn(x)[0][:, -1])

    model = F_(); opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    E, B = s.get("epochs", 10), 64; spe = len(X) // B
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    rec.params(model="LSTM(48) forecaster, window 24 -> 4", lr=3e-3, batch_size=B, epochs=E, split="chronological 80/20")
    for ep in range(E):
        model.train(); tl = []
        for ids in batches(len(X), B):
            loss = F.mse_loss(model(X[ids]), y[ids]); opt.zero_grad(); loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step(); tl.append(loss.item())
        model.eval()
        with torch.no_grad():
            p = model(vX)
        rec.epoch(ep, train_mse=float(np.mean(tl)), val_mse=F.mse_loss(p, vy).item(), val_mae=(p - vy).abs().mean().item())
    rec.close()


# ------------------------------------------------------------------ transformers-config LMs in own loops
def run_hf_lm_loop(s, run_dir):
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM
    seed_all(s["seed"])
    ids, chars = char_corpus(900, s["seed"]); V = len(chars)
    n = int(len(ids) * 0.9); tr, va = ids[:n], ids[n:]
    T, B = 64, 16
    if s["arch"] == "llama":
        cfg = LlamaConfig(vocab_size=V, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                          num_key_value_heads=2, max_position_embeddings=128)
        model = LlamaForCausalLM(cfg)
    else:
        cfg = GPT2Config(vocab_size=V, n_embd=64, n_layer=2, n_head=4, n_positions=128)
        model = GPT2LMHeadModel(cfg)
    steps, warm, lr = s.get("steps", 300), s.get("warmup", 30), s.get("lr", 2e-3)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1, betas=(0.9, 0.95))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda st: (st + 1) / warm if st < warm else 0.5 * (1 + math.cos(math.pi * (st - warm) / (steps - warm))))
    spe = steps // s.get("epochs", 3)
    rec = Recorder(run_dir, s["format"], total_epochs=s.get("epochs", 3), steps_per_epoch=spe, name=s["name"])
    rec.params(model=f"{s['arch']} 2 layers d64 (from config)", lr=lr, warmup_steps=warm, schedule="cosine", steps=steps, batch_size=B, seq_len=T)

    def batch(data):
        st = torch.randint(0, len(data) - T - 1, (B,))
        return torch.stack([data[i:i + T] for i in st])

    tl = []
    for step in range(1, steps + 1):
        model.train(); x = batch(tr)
        loss = model(input_ids=x, labels=x).loss
        opt.zero_grad(); loss.backward(); gn = nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step(); sched.step()
        tl.append(loss.item())
        if step % 10 == 0 and s["format"] != "printed_tqdm":
            rec.step(step, train_loss=loss.item(), lr=sched.get_last_lr()[0], grad_norm=gn.item())
        if step % 50 == 0 or (s["format"] == "printed_tqdm" and step % spe == 0):
            model.eval(); tot = 0.0
            with torch.no_grad():
                for _ in range(8):
                    x = batch(va); tot += model(input_ids=x, labels=x).loss.item()
            ev = tot if s.get("bug") == "eval_nodiv" else tot / 8  # bug: summed over the 8 eval batches, never divided
            if s["format"] == "printed_tqdm":
                rec.epoch(step // spe - 1, loss=float(np.mean(tl[-spe:])), eval_loss=ev, lr=sched.get_last_lr()[0])
            else:
                rec.step(step, eval_loss=ev, eval_ppl=math.exp(min(ev, 50)))
    rec.close()
