"""Data, models and log writers for corpus_gen5 (synthetic data only, models built from code/configs)."""
import json, os, random, time, logging
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def seed_all(s):
    random.seed(s); np.random.seed(s); torch.manual_seed(s)


# ----------------------------------------------------------------------------- data
def blobs(n, d=16, k=4, sep=2.0, noise=1.0, seed=0):
    g = np.random.RandomState(seed)
    c = g.randn(k, d) * sep
    y = g.randint(0, k, n)
    x = c[y] + g.randn(n, d) * noise
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y)


def shapes16(n, noise=0.3, seed=0, kind="shape"):
    """16x16 one-channel images. kind='shape': 4 classes (square outline, disc, h-bar, v-bar) at random places.
    kind='quadrant': 4 classes = quadrant holding a small bright square (needs position information)."""
    g = np.random.RandomState(seed)
    X = np.zeros((n, 1, 16, 16), np.float32)
    y = g.randint(0, 4, n)
    yy, xx = np.mgrid[0:16, 0:16]
    for i in range(n):
        img = np.zeros((16, 16), np.float32)
        if kind == "quadrant":
            qy, qx = divmod(int(y[i]), 2)
            r0 = qy * 8 + g.randint(1, 5); c0 = qx * 8 + g.randint(1, 5)
            img[r0:r0 + 3, c0:c0 + 3] = 1.0
        else:
            r0, c0 = g.randint(2, 8), g.randint(2, 8); s = g.randint(5, 8)
            if y[i] == 0:
                img[r0:r0 + s, c0] = img[r0:r0 + s, c0 + s - 1] = 1; img[r0, c0:c0 + s] = img[r0 + s - 1, c0:c0 + s] = 1
            elif y[i] == 1:
                img[(yy - r0 - s / 2) ** 2 + (xx - c0 - s / 2) ** 2 <= (s / 2) ** 2] = 1
            elif y[i] == 2:
                img[r0 + s // 2 - 1:r0 + s // 2 + 1, c0:c0 + s] = 1
            else:
                img[r0:r0 + s, c0 + s // 2 - 1:c0 + s // 2 + 1] = 1
        X[i, 0] = img + g.randn(16, 16) * noise
    return torch.tensor(X), torch.tensor(y)


def signals(n, T=64, C=3, k=4, noise=0.5, seed=0):
    """(n, T, C) channels-last multichannel signals; the class sets the frequency of channel 0 and 2."""
    g = np.random.RandomState(seed)
    y = g.randint(0, k, n)
    t = np.arange(T) / T
    X = np.zeros((n, T, C), np.float32)
    freqs = [2, 4, 7, 11]
    for i in range(n):
        f = freqs[y[i]] * g.uniform(0.9, 1.1)
        X[i, :, 0] = np.sin(2 * np.pi * f * t + g.uniform(0, 6.3))
        X[i, :, 1] = g.randn(T) * 0.5
        X[i, :, 2] = np.sign(np.sin(2 * np.pi * f * t + g.uniform(0, 6.3))) * 0.7
        X[i] += g.randn(T, C) * noise
    return torch.tensor(X), torch.tensor(y)


def reg_fn(n, d=8, noise=0.1, seed=0, scale=1.0, offset=0.0):
    g = np.random.RandomState(seed)
    x = g.uniform(-2, 2, (n, d)).astype(np.float32)
    f = np.sin(x[:, 0]) * x[:, 1] + 0.5 * x[:, 2] ** 2 - x[:, 3] + 0.3 * x[:, 4] * x[:, 5]
    y = offset + scale * (f + g.randn(n) * noise)
    return torch.tensor(x), torch.tensor(y, dtype=torch.float32)


def tabular(n, seed=0):
    """6 numeric columns on very different scales + 2 categorical columns (12 and 5 levels); 3 classes."""
    g = np.random.RandomState(seed)
    scales = np.array([1.0, 100.0, 0.01, 5.0, 1000.0, 0.5])
    num = g.randn(n, 6)
    c1 = g.randint(0, 12, n); c2 = g.randint(0, 5, n)
    eff1 = np.linspace(-2, 2, 12)[g.permutation(12)]; eff2 = np.array([-1, 0.5, 0, 1, -0.5])
    z = 1.2 * num[:, 0] - num[:, 1] + 0.8 * num[:, 3] * num[:, 5] + eff1[c1] + eff2[c2] + 0.3 * g.randn(n)
    y = np.digitize(z, np.quantile(z, [1 / 3, 2 / 3]))
    Xn = (num * scales + g.uniform(-1, 1, 6) * scales * 3).astype(np.float32)
    return Xn, c1, c2, y


WORDS = ("the a one red small big quick lazy brown dog cat bird fox runs jumps sleeps eats sees over under near "
         "river tree house field and then later slowly quietly happy old young green blue").split()


def char_corpus(n_sent, seed=0):
    g = random.Random(seed)
    out = []
    for _ in range(n_sent):
        w = [g.choice(WORDS[:2]), g.choice(WORDS[3:8]), g.choice(WORDS[9:13]), g.choice(WORDS[13:17]),
             g.choice(WORDS[17:21]), "the", g.choice(WORDS[21:25])]
        if g.random() < 0.5:
            w += ["and", g.choice(WORDS[13:17]), g.choice(WORDS[28:31])]
        out.append(" ".join(w) + ".")
    return out


def seq2seq_data(n, seed=0, nsym=12):
    """source: random symbols (ids 3..3+nsym), length 5-9; target: the source reversed, each symbol mapped by a
    fixed permutation. 0 pad, 1 bos, 2 eos."""
    g = np.random.RandomState(seed)
    perm = np.random.RandomState(123).permutation(nsym)
    L = 10
    src = np.zeros((n, L), np.int64); tgt = np.zeros((n, L + 1), np.int64)
    for i in range(n):
        m = g.randint(5, 10)
        s = g.randint(0, nsym, m)
        src[i, :m] = s + 3
        t = perm[s[::-1]] + 3
        tgt[i, 0] = 1; tgt[i, 1:m + 1] = t; tgt[i, m + 1 if m + 1 <= L else L] = 2
    return torch.tensor(src), torch.tensor(tgt)


# ----------------------------------------------------------------------------- models
class MLP(nn.Module):
    def __init__(self, d_in, d_h, d_out, n_layers=2, drop=0.0):
        super().__init__()
        layers, d = [], d_in
        for _ in range(n_layers):
            layers += [nn.Linear(d, d_h), nn.ReLU(), nn.Dropout(drop)]; d = d_h
        layers.append(nn.Linear(d, d_out))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class CNNBN(nn.Module):
    def __init__(self, k=4, w=16):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(2),
                               nn.Conv2d(w, 2 * w, 3, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(), nn.MaxPool2d(2),
                               nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(2 * w, k)

    def forward(self, x):
        return self.head(self.f(x))


class TinyViT(nn.Module):
    def __init__(self, k=4, patch=4, dim=48, depth=2, heads=4, pos_emb=True):
        super().__init__()
        self.patch = nn.Conv2d(1, dim, patch, stride=patch)
        n = (16 // patch) ** 2
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02) if pos_emb else None
        layer = nn.TransformerEncoderLayer(dim, heads, 2 * dim, dropout=0.0, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim); self.head = nn.Linear(dim, k)

    def forward(self, x):
        p = self.patch(x).flatten(2).transpose(1, 2)
        h = torch.cat([self.cls.expand(len(x), -1, -1), p], 1)
        if self.pos is not None:
            h = h + self.pos
        return self.head(self.norm(self.enc(h)[:, 0]))


class CNN1D(nn.Module):
    def __init__(self, C=3, k=4, w=24, bad_view=False):
        super().__init__()
        self.bad_view = bad_view
        self.f = nn.Sequential(nn.Conv1d(C, w, 5, padding=2), nn.BatchNorm1d(w), nn.ReLU(), nn.MaxPool1d(2),
                               nn.Conv1d(w, w, 5, padding=2), nn.BatchNorm1d(w), nn.ReLU(),
                               nn.AdaptiveAvgPool1d(1), nn.Flatten())
        self.head = nn.Linear(w, k)

    def forward(self, x):  # x: (B, T, C)
        B, T, C = x.shape
        x = x.view(B, C, T) if self.bad_view else x.permute(0, 2, 1)
        return self.head(self.f(x))


class ResBlock(nn.Module):
    def __init__(self, d, skip=True, norm=True):
        super().__init__()
        self.skip = skip
        self.l1 = nn.Linear(d, d); self.l2 = nn.Linear(d, d); self.n = nn.LayerNorm(d) if norm else nn.Identity()

    def forward(self, x):
        h = self.l2(F.relu(self.l1(self.n(x))))
        return x + h if self.skip else h


class ResNetReg(nn.Module):
    def __init__(self, d_in=8, d=64, blocks=4, skip=True, d_out=1, norm=True):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.blocks = nn.Sequential(*[ResBlock(d, skip, norm) for _ in range(blocks)])
        self.out = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, d_out))

    def forward(self, x):
        return self.out(self.blocks(self.inp(x))).squeeze(-1)


class GRUCls(nn.Module):
    def __init__(self, d_in=3, h=48, k=4):
        super().__init__()
        self.gru = nn.GRU(d_in, h, batch_first=True); self.head = nn.Linear(h, k)

    def forward(self, x, lengths=None, last_step=False):
        o, hN = self.gru(x)
        if lengths is None or last_step:
            return self.head(o[:, -1])
        return self.head(o[torch.arange(len(x)), lengths - 1])


class TinyEncoderCls(nn.Module):
    def __init__(self, vocab, k, dim=48, depth=2, L=48):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim); self.pos = nn.Parameter(torch.randn(1, L, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, 4, 2 * dim, dropout=0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.head = nn.Linear(dim, k)

    def forward(self, x):
        h = self.enc(self.emb(x) + self.pos[:, :x.shape[1]])
        return self.head(h.mean(1))


class Seq2SeqAttn(nn.Module):
    def __init__(self, vocab=16, emb=32, h=64):
        super().__init__()
        self.se = nn.Embedding(vocab, emb, padding_idx=0); self.te = nn.Embedding(vocab, emb, padding_idx=0)
        self.enc = nn.GRU(emb, h, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * h, h)
        self.dec = nn.GRUCell(emb + 2 * h, h)
        self.att_q = nn.Linear(h, 2 * h)
        self.out = nn.Linear(h + 2 * h, vocab)

    def forward(self, src, tgt_in):
        eo, _ = self.enc(self.se(src))  # B,L,2h
        mask = src != 0
        s = torch.tanh(self.bridge((eo * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)))
        ctx = torch.zeros(len(src), eo.shape[-1])
        outs = []
        for t in range(tgt_in.shape[1]):
            s = self.dec(torch.cat([self.te(tgt_in[:, t]), ctx], -1), s)
            sc = (eo @ self.att_q(s).unsqueeze(-1)).squeeze(-1).masked_fill(~mask, -1e9)
            ctx = (sc.softmax(-1).unsqueeze(-1) * eo).sum(1)
            outs.append(self.out(torch.cat([s, ctx], -1)))
        return torch.stack(outs, 1)


class ContrastiveEnc(nn.Module):
    def __init__(self, w=16, proj=32):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(2),
                               nn.Conv2d(w, 2 * w, 3, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(),
                               nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.proj = nn.Sequential(nn.Linear(2 * w, 64), nn.ReLU(), nn.Linear(64, proj))

    def forward(self, x):
        h = self.f(x)
        return h, self.proj(h)


class TwoTask(nn.Module):
    def __init__(self, d_in=16, h=64, k=4):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d_in, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU())
        self.cls = nn.Linear(h, k); self.reg = nn.Linear(h, 1)

    def forward(self, x):
        z = self.trunk(x)
        return self.cls(z), self.reg(z).squeeze(-1)


class TabularMLP(nn.Module):
    def __init__(self, n_num=6, card=(12, 5), emb=(6, 3), h=64, k=3):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(c, e) for c, e in zip(card, emb)])
        self.net = nn.Sequential(nn.Linear(n_num + sum(emb), h), nn.ReLU(), nn.Dropout(0.1), nn.Linear(h, h),
                                 nn.ReLU(), nn.Linear(h, k))

    def forward(self, xn, xc):
        e = [m(xc[:, i]) for i, m in enumerate(self.embs)]
        return self.net(torch.cat([xn] + e, -1))


# ----------------------------------------------------------------------------- log writers
def _fmt(v, nd=4):
    return f"{v:.{nd}f}" if isinstance(v, float) else str(v)


class RunLog:
    """Writes the log files of a plain-PyTorch script in one of many everyday styles."""

    def __init__(self, run_dir, style, epochs, steps_per_epoch, step_every=10):
        self.dir, self.style, self.E, self.N = run_dir, style, epochs, steps_per_epoch
        self.step_every = step_every
        self.t0 = time.time(); self.f = None; self.rows = []
        if style.startswith("printed_"):
            if style == "printed_logging":
                self.logger = logging.getLogger("train." + os.path.basename(run_dir))
                self.logger.handlers = []; self.logger.propagate = False
                h = logging.FileHandler(os.path.join(run_dir, "train.log"), mode="w")
                h.setFormatter(logging.Formatter("%(asctime)s - %(levelname)s - %(name)s - %(message)s"))
                self.logger.addHandler(h); self.logger.setLevel(logging.INFO)
            else:
                self.f = open(os.path.join(run_dir, "train.log"), "w")
        elif style == "jsonl":
            self.f = open(os.path.join(run_dir, "metrics.jsonl"), "w")
        elif style == "mlflow":
            import mlflow
            self.mlflow = mlflow
            mlflow.set_tracking_uri("file:" + os.path.abspath(run_dir) + "/mlruns")
            mlflow.set_experiment("gen5")
            mlflow.start_run(run_name=os.path.basename(run_dir))

    def w(self, s):
        if self.style == "printed_logging":
            self.logger.info(s)
        else:
            self.f.write(s + "\n"); self.f.flush()

    def params(self, d):
        if self.style == "mlflow":
            self.mlflow.log_params(d)
        elif self.style == "printed_logging":
            self.w("config: " + json.dumps(d))
        elif self.style in ("printed_dict", "printed_it", "printed_step"):
            self.w(f"args: {d}")

    def step(self, epoch, gstep, bidx, m):
        """m: dict with loss, lr, (grad_norm). epoch is 1-based, bidx 1-based within epoch."""
        s = self.style
        if s == "jsonl":
            self.f.write(json.dumps({"step": gstep, "epoch": epoch, **{k: round(v, 6) if isinstance(v, float) else v for k, v in m.items()}}) + "\n")
            return
        if s == "mlflow":
            for k, v in m.items():
                self.mlflow.log_metric("train_" + k if k == "loss" else k, v, step=gstep)
            return
        if gstep % self.step_every:
            return
        if s == "printed_step":
            self.w(f"Epoch [{epoch}/{self.E}], Step [{bidx}/{self.N}], Loss: {m['loss']:.4f}")
        elif s == "printed_pipe":
            self.w(f"epoch {epoch} | step {gstep} | loss {m['loss']:.4f}" + "".join(
                f" | {k} {v:.2e}" if k == "lr" else f" | {k} {v:.4f}" for k, v in m.items() if k != "loss"))
        elif s == "printed_it":
            extra = "".join(f", {k}={v:.3e}" if k == "lr" else f", {k}={v:.3f}" for k, v in m.items() if k != "loss")
            self.w(f"it {gstep}: train_loss={m['loss']:.4f}{extra}")
        elif s == "printed_batch":
            self.w(f"epoch {epoch} batch {bidx}/{self.N} loss {m['loss']:.4f}" + (f" lr {m['lr']:.2e}" if 'lr' in m else ""))
        elif s == "printed_logging":
            self.w(f"step {gstep} loss {m['loss']:.4f}" + "".join(f" {k} {v:.4g}" for k, v in m.items() if k != "loss"))
        elif s == "printed_dict":
            self.w(str({"step": gstep, **{k: round(v, 4) if k != "lr" else v for k, v in m.items()}}))

    def epoch(self, epoch, m, gstep=None, secs=None):
        s = self.style
        secs = secs if secs is not None else 1.0
        if s == "jsonl":
            self.f.write(json.dumps({"step": gstep, "epoch": epoch, **{k: round(v, 6) for k, v in m.items()}}) + "\n"); return
        if s == "mlflow":
            for k, v in m.items():
                self.mlflow.log_metric("train_loss_epoch" if k == "train_loss" else k, v, step=gstep)
            self.mlflow.log_metric("epoch", epoch, step=gstep); return
        if s == "csv":
            self.rows.append({"epoch": epoch, **m}); return
        tl = m.get("train_loss"); vl = m.get("val_loss")
        next((k for k in m if k.startswith("val_") and k != "val_loss"), None)
        if s == "printed_pipe":
            self.w(f"epoch {epoch} | " + " | ".join(f"{k.replace('train_', '')} {v:.4f}" for k, v in m.items()))
        elif s == "printed_bracket":
            parts = [f"[{epoch}/{self.E}] train {tl:.4f}"]
            if vl is not None: parts.append(f"val {vl:.4f}")
            for k, v in m.items():
                if k in ("train_loss", "val_loss"): continue
                nm = k.replace("val_", "")
                parts.append(f"{nm} {100 * v:.1f}%" if nm in ("acc", "f1", "auc", "probe_acc", "cls_acc") else f"{nm} {v:.4f}")
            self.w(" ".join(parts))
        elif s == "printed_dict":
            self.w(str({"epoch": epoch, **{k: round(v, 4) for k, v in m.items()}}))
        elif s == "printed_tqdm":
            rate = self.N / max(secs, 1e-3)
            post = ", ".join(f"{k.replace('train_', '')}={v:.3f}" for k, v in m.items())
            self.w(f"Epoch {epoch}/{self.E}: 100%|##########| {self.N}/{self.N} [00:{int(secs):02d}<00:00, {rate:.2f}it/s, {post}]")
        elif s == "printed_batch":
            self.w(f"==> epoch {epoch} done: " + ", ".join(f"{k} {v:.4f}" for k, v in m.items()))
        elif s == "printed_step":
            self.w("Validation: " + ", ".join(f"{k.replace('val_', '').capitalize()}: {v:.4f}" for k, v in m.items() if k.startswith("val_")))
        elif s == "printed_it":
            self.w(f"eval @ it {gstep}: " + ", ".join(f"{k}={v:.4f}" for k, v in m.items() if k != "train_loss"))
        elif s == "printed_logging":
            self.w(f"Epoch {epoch}/{self.E} finished - " + " ".join(f"{k}={v:.4f}" for k, v in m.items()))
        elif s == "printed_keras":
            ms = max(1, int(1000 * secs / self.N))
            body = " - ".join(f"{k.replace('train_', '').replace('val_acc', 'val_accuracy')}: {v:.4f}" for k, v in m.items())
            body = body.replace("acc:", "accuracy:") if "acc:" in body and "accuracy" not in body.split("acc:")[0][-5:] else body
            self.w(f"Epoch {epoch}/{self.E}")
            self.w(f"{self.N}/{self.N} [==============================] - {max(1, int(secs))}s {ms}ms/step - {body}")
        elif s == "printed_table":
            keys = ["epoch"] + list(m)
            vals = [str(epoch)] + [f"{v:.4f}" for v in m.values()]
            wd = [max(len(k), len(v)) + 2 for k, v in zip(keys, vals)]
            line = "+" + "+".join("-" * x for x in wd) + "+"
            self.w(line); self.w("|" + "|".join(k.center(x) for k, x in zip(keys, wd)) + "|"); self.w(line)
            self.w("|" + "|".join(v.center(x) for v, x in zip(vals, wd)) + "|"); self.w(line)

    def close(self):
        if self.style == "csv" and self.rows:
            keys = list(self.rows[0])
            for r in self.rows:
                for k in r:
                    if k not in keys: keys.append(k)
            with open(os.path.join(self.dir, "history.csv"), "w") as f:
                f.write(",".join(keys) + "\n")
                for r in self.rows:
                    f.write(",".join("" if r.get(k) is None else (f"{r[k]:.6g}" if isinstance(r[k], float) else str(r[k])) for k in keys) + "\n")
        if self.style == "mlflow":
            self.mlflow.end_run()
        if self.f:
            self.f.close()
        if self.style == "printed_logging":
            for h in self.logger.handlers: h.close()
            self.logger.handlers = []
