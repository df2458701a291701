"""Models, tasks and training loops of corpus_gen6. Each fault is a flag in the run's spec (sp['bug'])."""
import math, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from common import draw_shapes, blobs, series, sentences


def bug(sp, name):
    return sp.get("bug") == name


# ============================================================================= optimisers

def make_opt(params, sp, total_steps):
    o = sp.get("opt", "adamw")
    lr = sp.get("lr", 1e-3)
    if o == "adamw":
        opt = torch.optim.AdamW(params, lr=lr, weight_decay=sp.get("wd", 0.01))
    elif o == "adam":
        opt = torch.optim.Adam(params, lr=lr, betas=sp.get("betas", (0.9, 0.999)))
    else:
        opt = torch.optim.SGD(params, lr=lr, momentum=sp.get("momentum", 0.9))
    sch = sp.get("sched")
    warm = sp.get("warmup", 0)
    sched, interval = None, "step"
    if sch == "warmup_cos":
        def f(s):
            if s < warm:
                return (s + 1) / warm
            p = (s - warm) / max(1, total_steps - warm)
            return 0.5 * (1 + math.cos(math.pi * min(1.0, p)))
        sched = torch.optim.lr_scheduler.LambdaLR(opt, f)
    elif sch == "warmup_const":
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm))
    elif sch == "warmup_typo":
        # BUG: the factor after warmup was typed 0 (meant 1): the LR drops to 0 once warmup ends
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: (s + 1) / warm if s < warm else 0)
    elif sch == "step_epoch":
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=sp.get("step_size", 3), gamma=sp.get("gamma", 0.1))
        interval = "epoch"
    elif sch == "linear":
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, 1 - s / total_steps) if s >= warm else (s + 1) / max(1, warm))
    return opt, sched, interval


def grad_norm(params):
    g = [p.grad.detach().norm() for p in params if p.grad is not None]
    return torch.norm(torch.stack(g)).item() if g else 0.0


# ============================================================================= models

class CNNBN(nn.Module):
    def __init__(self, k=4, w=16):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(1, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(2),
                               nn.Conv2d(w, 2 * w, 3, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(), nn.MaxPool2d(2),
                               nn.Flatten(), nn.Linear(2 * w * 16, 64), nn.ReLU())
        self.head = nn.Linear(64, k)

    def forward(self, x):
        return self.head(self.f(x))


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c1 = nn.Conv2d(c, c, 3, padding=1); self.b1 = nn.BatchNorm2d(c)
        self.c2 = nn.Conv2d(c, c, 3, padding=1); self.b2 = nn.BatchNorm2d(c)

    def forward(self, x):
        return F.relu(x + self.b2(self.c2(F.relu(self.b1(self.c1(x))))))


class ResNetSmall(nn.Module):
    def __init__(self, k=4, c=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(1, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(), ResBlock(c),
                                      nn.MaxPool2d(2), ResBlock(c), nn.AdaptiveAvgPool2d(2), nn.Flatten())
        self.head = nn.Linear(4 * c, k)

    def forward(self, x):
        return self.head(self.backbone(x))


class UNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        cb = lambda i, o: nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())
        self.e1 = cb(1, c); self.e2 = cb(c, 2 * c); self.up = nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.d1 = cb(2 * c, c); self.out = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        a = self.e1(x)
        b = self.e2(F.max_pool2d(a, 2))
        return self.out(self.d1(torch.cat([self.up(b), a], 1)))


class DetNet(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(1, c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                               nn.Conv2d(c, 2 * c, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                               nn.Flatten(), nn.Linear(2 * c * 16, 128), nn.ReLU())
        self.box = nn.Linear(128, 4)
        self.cls = nn.Linear(128, 4)

    def forward(self, x):
        h = self.f(x)
        return torch.sigmoid(self.box(h)), self.cls(h)


def mlp(i, h, o, n=2, drop=0.0):
    layers, d = [], i
    for _ in range(n):
        layers += [nn.Linear(d, h), nn.ReLU()] + ([nn.Dropout(drop)] if drop else [])
        d = h
    return nn.Sequential(*layers, nn.Linear(d, o))


# ============================================================================= tasks (generic interface)

class Task:
    """model, train_ds, val (tuple of tensors), loss(batch)->(loss, extras), metrics(batch)->dict"""
    val_bs = None

    def evaluate(self):
        self.model.eval()
        with torch.no_grad():
            m = self.metrics(self.val)
        self.model.train()
        return m

    def params(self):
        return self.model.parameters()


class ShapesCls(Task):
    def __init__(self, sp, rng):
        n = sp.get("n", 1200)
        X, M, y, B = draw_shapes(n + 400, rng, noise=sp.get("noise", 0.3), min_r=3)
        self.train_ds = TensorDataset(X[:n], y[:n]); self.val = (X[n:], y[n:])
        self.model = ResNetSmall() if sp["model"].startswith("resnet") else CNNBN()

    def loss(self, b):
        x, y = b
        out = self.model(x)
        return F.cross_entropy(out, y), {"acc": (out.argmax(1) == y).float().mean().item()}

    def metrics(self, b):
        x, y = b
        out = self.model(x)
        return {"loss": F.cross_entropy(out, y).item(), "acc": (out.argmax(1) == y).float().mean().item()}


class Seg(Task):
    def __init__(self, sp, rng):
        self.sp = sp
        n = sp.get("n", 800)
        X, M, y, B = draw_shapes(n + 200, rng, noise=sp.get("noise", 0.6))
        self.train_ds = TensorDataset(X[:n], M[:n]); self.val = (X[n:], M[n:])
        self.model = UNet()

    def loss(self, b):
        x, m = b
        flip = torch.rand(x.shape[0], 1, 1, 1) < 0.5
        x = torch.where(flip, x.flip(-1), x)
        if not bug(self.sp, "flip_image_only"):
            m = torch.where(flip, m.flip(-1), m)
        # BUG (flip_image_only): the mask is not flipped with its image
        out = self.model(x)
        p = torch.sigmoid(out)
        dice = 1 - (2 * (p * m).sum() + 1) / (p.sum() + m.sum() + 1)
        return F.binary_cross_entropy_with_logits(out, m) + dice, {}

    def metrics(self, b):
        x, m = b
        out = self.model(x)
        loss = F.binary_cross_entropy_with_logits(out, m).item()
        p = (torch.sigmoid(out) > 0.5).float()
        if bug(self.sp, "iou_background"):
            # BUG: IoU/Dice computed on the background class (pixels == 0), reported as the object IoU
            p, m = 1 - p, 1 - m
        inter = (p * m).sum(); union = ((p + m) > 0).float().sum()
        return {"loss": loss, "iou": (inter / union).item(), "dice": (2 * inter / (p.sum() + m.sum())).item()}


class Det(Task):
    def __init__(self, sp, rng):
        self.sp = sp
        n = sp.get("n", 1200)
        X, M, y, B = draw_shapes(n + 300, rng, noise=sp.get("noise", 0.4))
        Bt = B[:n].clone()
        if bug(sp, "boxes_shuffled"):
            # BUG: boxes list shuffled on its own (meant to shuffle (image, box, class) together)
            Bt = Bt[torch.tensor(rng.permutation(n))]
        self.scale = 16.0 if bug(sp, "pixel_targets") else 1.0
        # BUG (pixel_targets): box targets in pixels (0..16) while the box head ends in a sigmoid
        self.train_ds = TensorDataset(X[:n], Bt * self.scale, y[:n]); self.val = (X[n:], B[n:] * self.scale, y[n:])
        self.model = DetNet()

    def loss(self, b):
        x, bx, y = b
        pb, pc = self.model(x)
        lb = F.l1_loss(pb, bx); lc = F.cross_entropy(pc, y)
        return 5 * lb + lc, {"box_loss": lb.item(), "cls_loss": lc.item()}

    def metrics(self, b):
        x, bx, y = b
        pb, pc = self.model(x)
        ix1 = torch.max(pb[:, 0], bx[:, 0]); iy1 = torch.max(pb[:, 1], bx[:, 1])
        ix2 = torch.min(pb[:, 2], bx[:, 2]); iy2 = torch.min(pb[:, 3], bx[:, 3])
        inter = (ix2 - ix1).clamp(min=0) * (iy2 - iy1).clamp(min=0)
        area = lambda q: (q[:, 2] - q[:, 0]).clamp(min=0) * (q[:, 3] - q[:, 1]).clamp(min=0)
        iou = inter / (area(pb) + area(bx) - inter + 1e-9)
        lb = F.l1_loss(pb, bx).item(); lc = F.cross_entropy(pc, y).item()
        return {"loss": 5 * lb + lc, "box_loss": lb, "cls_loss": lc, "mean_iou": iou.mean().item(),
                "ap50": (((iou > 0.5) & (pc.argmax(1) == y)).float().mean()).item(),
                "cls_acc": (pc.argmax(1) == y).float().mean().item()}


class LSTMF(nn.Module):
    def __init__(self, h=48, H=4):
        super().__init__()
        self.rnn = nn.LSTM(1, h, batch_first=True)
        self.out = nn.Linear(h, H)

    def forward(self, x, state=None):
        o, st = self.rnn(x, state)
        return self.out(o[:, -1]), st


class Forecast(Task):
    def __init__(self, sp, rng, W=32, H=4):
        self.sp = sp
        s = series(sp.get("T", 2400), rng, noise=sp.get("noise", 0.15))
        mu, sd = s[:int(0.7 * len(s))].mean(), s[:int(0.7 * len(s))].std()
        s = (s - mu) / sd
        idx = np.arange(0, len(s) - W - H)
        Xw = np.stack([s[i:i + W] for i in idx])[..., None]; Yw = np.stack([s[i + W:i + W + H] for i in idx])
        if bug(sp, "target_in_window"):
            # BUG: targets sliced from the end of the input window (s[i+W-H:i+W]) instead of the H steps after it
            Yw = np.stack([s[i + W - H:i + W] for i in idx])
        Xw, Yw = torch.tensor(Xw), torch.tensor(Yw)
        if bug(sp, "overlap_split"):
            # BUG: windows (stride 1) split at random: each val window shares 31 of 32 steps with train windows
            p = torch.tensor(rng.permutation(len(idx)))
            k = int(0.75 * len(idx)); tr, va = p[:k], p[k:]
        else:
            cut = int(0.7 * len(s))
            tr = torch.tensor(idx[idx + W + H <= cut]); va = torch.tensor(idx[idx >= cut])
        n = sp.get("n_train")
        if n:
            tr = tr[:n]
        self.train_ds = TensorDataset(Xw[tr], Yw[tr]); self.val = (Xw[va], Yw[va])
        self.model = LSTMF(H=H)

    def loss(self, b):
        x, y = b
        p, _ = self.model(x)
        l = F.mse_loss(p, y)
        return l, {"mae": (p - y).abs().mean().item()}

    def metrics(self, b):
        x, y = b
        p, _ = self.model(x)
        return {"loss": F.mse_loss(p, y).item(), "mae": (p - y).abs().mean().item(),
                "rmse": F.mse_loss(p, y).sqrt().item()}


class VAE(nn.Module):
    def __init__(self, d=256, h=128, z=8):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(d, h), nn.ReLU(), nn.Linear(h, 2 * z))
        self.dec = nn.Sequential(nn.Linear(z, h), nn.ReLU(), nn.Linear(h, d))

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, -1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar


class VAETask(Task):
    def __init__(self, sp, rng):
        self.sp = sp
        n = sp.get("n", 1500)
        X, M, y, B = draw_shapes(n + 300, rng, noise=0.0)
        X = M.reshape(len(M), -1)
        self.train_ds = TensorDataset(X[:n]); self.val = (X[n:],)
        self.model = VAE()

    def terms(self, x):
        logits, mu, logvar = self.model(x)
        kl_el = -0.5 * (1 + logvar - mu ** 2 - logvar.exp())
        B = x.shape[0]
        if bug(self.sp, "kl_sum_recon_mean"):
            # BUG: reconstruction averaged over every pixel and sample, KL summed over latent dims AND the batch
            recon = F.binary_cross_entropy_with_logits(logits, x)
            kl = kl_el.sum()
        else:
            recon = F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / B
            kl = kl_el.sum() / B
        return recon, kl, logits

    def loss(self, b):
        (x,) = b
        recon, kl, _ = self.terms(x)
        if bug(self.sp, "kl_sign"):
            loss = recon - kl  # BUG: KL term subtracted (sign slip when 'simplifying' the ELBO)
        else:
            loss = recon + self.sp.get("beta", 1.0) * kl
        return loss, {"recon": recon.item(), "kl": kl.item()}

    def metrics(self, b):
        (x,) = b
        recon, kl, logits = self.terms(x)
        px = (F.binary_cross_entropy_with_logits(logits, x, reduction="sum") / x.shape[0]).item()
        loss = recon - kl if bug(self.sp, "kl_sign") else recon + kl
        return {"loss": loss.item(), "recon": recon.item(), "kl": kl.item(), "recon_per_image": px}


class MultiLabel(Task):
    def __init__(self, sp, rng, d=20, L=6):
        self.sp = sp
        n = sp.get("n", 2000)
        X = rng.standard_normal((n + 600, d)).astype(np.float32)
        Wt = rng.standard_normal((d, L)); bt = rng.standard_normal(L) * 0.5 - 0.6
        Y = ((X @ Wt / math.sqrt(d) + bt + sp.get("label_noise", 0.1) * rng.standard_normal((n + 600, L))) > 0).astype(np.float32)
        X, Y = torch.tensor(X), torch.tensor(Y)
        self.train_ds = TensorDataset(X[:n], Y[:n]); self.val = (X[n:], Y[n:])
        self.model = mlp(d, 64, L)

    def loss(self, b):
        x, y = b
        out = self.model(x)
        if bug(self.sp, "softmax_ce_multihot"):
            # BUG: CrossEntropyLoss (softmax over labels) used for a multi-label target
            return F.cross_entropy(out, y), {}
        return F.binary_cross_entropy_with_logits(out, y), {}

    def metrics(self, b):
        x, y = b
        out = self.model(x)
        if bug(self.sp, "softmax_ce_multihot"):
            loss = F.cross_entropy(out, y).item()
            pred = (torch.softmax(out, -1) > 0.5).float()
        else:
            loss = F.binary_cross_entropy_with_logits(out, y).item()
            pred = (torch.sigmoid(out) > 0.5).float()
        if bug(self.sp, "f1_argmax"):
            # BUG: predictions taken with argmax, as for single-label classification
            pred = F.one_hot(out.argmax(-1), y.shape[1]).float()
        tp = (pred * y).sum(); fp = (pred * (1 - y)).sum(); fn = ((1 - pred) * y).sum()
        prec = tp / (tp + fp + 1e-9); rec = tp / (tp + fn + 1e-9)
        return {"loss": loss, "f1": (2 * prec * rec / (prec + rec + 1e-9)).item(), "precision": prec.item(),
                "recall": rec.item(), "subset_acc": (pred == y).all(1).float().mean().item()}


class Distill(Task):
    def __init__(self, sp, rng, d=24, k=8):
        self.sp = sp
        X, y, C = blobs(3000 + 800, rng, d=d, k=k, sep=0.9, noise=1.0)
        teacher = mlp(d, 256, k, n=2)
        to = torch.optim.AdamW(teacher.parameters(), lr=2e-3)
        for _ep in range(6):  # the "pretrained" teacher (trained here, silently, as a checkpoint would be)
            for i in range(0, 3000, 64):
                l = F.cross_entropy(teacher(X[i:i + 64]), y[i:i + 64]); to.zero_grad(); l.backward(); to.step()
        sd = {"module." + k_: v for k_, v in teacher.state_dict().items()}  # saved from a DataParallel wrapper
        self.teacher = mlp(d, 256, k, n=2)
        if bug(sp, "teacher_prefix"):
            # BUG: checkpoint keys carry 'module.'; strict=False loads nothing and the teacher stays random
            self.teacher.load_state_dict(sd, strict=False)
        else:
            self.teacher.load_state_dict({k_[7:]: v for k_, v in sd.items()})
        self.teacher.eval()
        with torch.no_grad():
            self.teacher_acc = (self.teacher(X[3000:]).argmax(1) == y[3000:]).float().mean().item()
        self.train_ds = TensorDataset(X[:3000], y[:3000]); self.val = (X[3000:], y[3000:])
        self.model = mlp(d, 24, k, n=1)
        self.T = sp.get("T", 4.0); self.alpha = sp.get("alpha", 0.7)

    def loss(self, b):
        x, y = b
        s = self.model(x)
        with torch.no_grad():
            t = self.teacher(x)
        T = self.T
        if bug(self.sp, "temp_student_only"):
            # BUG: temperature applied to the student logits only; teacher softmax taken at T=1
            kd = F.kl_div(F.log_softmax(s / T, -1), F.softmax(t, -1), reduction="batchmean") * T * T
        else:
            kd = F.kl_div(F.log_softmax(s / T, -1), F.softmax(t / T, -1), reduction="batchmean") * T * T
        ce = F.cross_entropy(s, y)
        return self.alpha * kd + (1 - self.alpha) * ce, {"kd_loss": kd.item(), "ce_loss": ce.item()}

    def metrics(self, b):
        x, y = b
        s = self.model(x)
        return {"loss": F.cross_entropy(s, y).item(), "acc": (s.argmax(1) == y).float().mean().item(),
                "teacher_acc": self.teacher_acc}


class MLPCls(Task):
    def __init__(self, sp, rng):
        X, y, C = blobs(2000 + 500, rng, d=16, k=5, sep=0.8, noise=1.0)
        self.train_ds = TensorDataset(X[:2000], y[:2000]); self.val = (X[2000:], y[2000:])
        self.model = mlp(16, 64, 5)

    loss = ShapesCls.loss
    metrics = ShapesCls.metrics


class DenoiseAE(Task):
    def __init__(self, sp, rng, D=64):
        self.sp = sp
        n = 2000
        t = np.linspace(0, 1, D)
        f = rng.uniform(1, 4, (n + 400, 1)); ph = rng.uniform(0, 6.28, (n + 400, 1)); a = rng.uniform(0.5, 1, (n + 400, 1))
        clean = (a * np.sin(2 * np.pi * f * t + ph)).astype(np.float32)
        noisy = clean + 0.4 * rng.standard_normal(clean.shape).astype(np.float32)
        clean, noisy = torch.tensor(clean), torch.tensor(noisy)
        self.train_ds = TensorDataset(noisy[:n], clean[:n]); self.val = (noisy[n:], clean[n:])
        self.model = nn.Sequential(nn.Linear(D, 64), nn.ReLU(), nn.Linear(64, 8), nn.ReLU(), nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, D))

    def loss(self, b):
        x, c = b
        out = self.model(x)
        tgt = x if bug(self.sp, "target_noisy") else c  # BUG (target_noisy): target is the noisy input itself
        return F.mse_loss(out, tgt), {}

    def metrics(self, b):
        x, c = b
        out = self.model(x)
        return {"loss": F.mse_loss(out, c).item(), "mae": (out - c).abs().mean().item(),
                "snr_db": (10 * torch.log10((c ** 2).mean() / ((out - c) ** 2).mean())).item()}


class GRUCls(Task):
    def __init__(self, sp, rng, T=40):
        n = 1600
        y = rng.integers(0, 4, n + 400)
        t = np.arange(T)
        f = np.array([0.05, 0.09, 0.14, 0.2])[y][:, None] + rng.normal(0, 0.005, (n + 400, 1))
        X = np.sin(2 * np.pi * f * t + rng.uniform(0, 6.28, (n + 400, 1))) + 0.5 * rng.standard_normal((n + 400, T))
        X = torch.tensor(X[..., None], dtype=torch.float32); y = torch.tensor(y)
        self.train_ds = TensorDataset(X[:n], y[:n]); self.val = (X[n:], y[n:])

        class M(nn.Module):
            def __init__(s):
                super().__init__(); s.rnn = nn.GRU(1, 48, batch_first=True); s.out = nn.Linear(48, 4)

            def forward(s, x):
                return s.out(s.rnn(x)[0][:, -1])
        self.model = M()

    loss = ShapesCls.loss
    metrics = ShapesCls.metrics


class TinyTransformerCls(Task):
    """CLS-token transformer encoder; label = more 7s than 3s in a variable-length token sequence."""

    def __init__(self, sp, rng, L=24, V=10):
        self.sp = sp
        n = 2400
        X = np.zeros((n + 600, L + 1), np.int64); X[:, 0] = V  # CLS id = V
        mask = np.zeros((n + 600, L + 1), np.int64); mask[:, 0] = 1
        y = np.zeros(n + 600, np.int64)
        for i in range(n + 600):
            ln = rng.integers(5, 21)
            toks = rng.integers(1, V, ln)
            while (toks == 7).sum() == (toks == 3).sum():
                toks = rng.integers(1, V, ln)
            X[i, 1:ln + 1] = toks; mask[i, 1:ln + 1] = 1
            y[i] = int((toks == 7).sum() > (toks == 3).sum())
        X, mask, y = torch.tensor(X), torch.tensor(mask), torch.tensor(y)
        self.train_ds = TensorDataset(X[:n], mask[:n], y[:n]); self.val = (X[n:], mask[n:], y[n:])
        sp_ = sp

        class M(nn.Module):
            def __init__(s):
                super().__init__()
                s.emb = nn.Embedding(V + 1, 48); s.pos = nn.Embedding(L + 1, 48)
                s.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(48, 4, 96, dropout=0.1, batch_first=True), 2)
                s.out = nn.Linear(48, 2)

            def forward(s, x, m):
                h = s.emb(x) + s.pos(torch.arange(x.shape[1]))
                if bug(sp_, "mask_inverted"):
                    kpm = m.bool()  # BUG: HF-style mask (1 = keep) passed as src_key_padding_mask (True = ignore)
                else:
                    kpm = m == 0
                return s.out(s.enc(h, src_key_padding_mask=kpm)[:, 0])
        self.model = M()

    def loss(self, b):
        x, m, y = b
        out = self.model(x, m)
        return F.cross_entropy(out, y), {"acc": (out.argmax(1) == y).float().mean().item()}

    def metrics(self, b):
        x, m, y = b
        out = self.model(x, m)
        return {"loss": F.cross_entropy(out, y).item(), "acc": (out.argmax(1) == y).float().mean().item()}


class CharLM(Task):
    """Own small causal transformer LM over characters; reports perplexity."""

    def __init__(self, sp, rng, T=48):
        text = " ".join(sentences(1400, rng))
        chars = sorted(set(text)); self.stoi = {c: i for i, c in enumerate(chars)}
        ids = torch.tensor([self.stoi[c] for c in text])
        nb = (len(ids) - 1) // T
        X = ids[:nb * T].view(nb, T); Y = ids[1:nb * T + 1].view(nb, T)
        k = int(0.9 * nb)
        self.train_ds = TensorDataset(X[:k], Y[:k]); self.val = (X[k:], Y[k:])
        V = len(chars)

        class M(nn.Module):
            def __init__(s):
                super().__init__()
                s.emb = nn.Embedding(V, 64); s.pos = nn.Embedding(T, 64)
                s.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True), 2)
                s.out = nn.Linear(64, V)

            def forward(s, x):
                h = s.emb(x) + s.pos(torch.arange(x.shape[1]))
                msk = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
                return s.out(s.enc(h, mask=msk, is_causal=True))
        self.model = M()

    def loss(self, b):
        x, y = b
        out = self.model(x)
        return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1)), {}

    def metrics(self, b):
        x, y = b
        out = self.model(x)
        l = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1)).item()
        return {"loss": l, "ppl": math.exp(l), "acc": (out.argmax(-1) == y).float().mean().item()}


TASKS = {"shapes": ShapesCls, "seg": Seg, "det": Det, "forecast": Forecast, "vae": VAETask, "multilabel": MultiLabel,
         "distill": Distill, "mlpcls": MLPCls, "dae": DenoiseAE, "grucls": GRUCls, "tfcls": TinyTransformerCls,
         "charlm": CharLM}


# ============================================================================= plain PyTorch loop

def fit_plain(task, sp, log, g):
    E, bs = sp.get("epochs", 10), sp.get("bs", 32)
    dl = DataLoader(task.train_ds, batch_size=bs, shuffle=True, generator=g)
    if bug(sp, "freeze_all"):
        # BUG: freeze loop meant for the backbone iterates model.parameters(): every tensor is frozen
        for p in task.model.parameters():
            p.requires_grad = False
    opt, sched, interval = make_opt(list(task.model.parameters()), sp, E * len(dl))
    log.params(model=sp["model"], epochs=E, batch_size=bs, **{k: sp[k] for k in ("opt", "lr", "sched", "wd", "momentum") if k in sp})
    step, every = 0, sp.get("log_every", 10)
    for ep in range(1, E + 1):
        task.model.train()
        tot, cnt = 0.0, 0
        for i, b in enumerate(dl):
            loss, extra = task.loss(b)
            opt.zero_grad()
            loss.backward()
            gn = grad_norm(task.model.parameters())
            if sp.get("clip"):
                nn.utils.clip_grad_norm_(task.model.parameters(), sp["clip"])
            opt.step()
            if sched is not None and interval == "step":
                sched.step()
            step += 1
            tot += loss.item(); cnt += 1
            if step % every == 0:
                m = {"loss": loss.item()}
                m.update(extra)
                m.update(lr=opt.param_groups[0]["lr"], grad_norm=gn)
                log.step(step, ep, i, len(dl), E, **m)
        if sched is not None and interval == "epoch":
            sched.step()
        ev = task.evaluate()
        m = {"loss": tot / cnt}
        m.update({"val_" + k: v for k, v in ev.items()})
        if sp.get("epoch_lr"):
            m["lr"] = opt.param_groups[0]["lr"]
        log.epoch(ep, E, step=step, n=len(dl), **m)


# ============================================================================= Lightning

def fit_lightning(task, sp, run_dir, g):
    import lightning as L
    from lightning.pytorch.loggers import CSVLogger
    from lightning.pytorch.callbacks import LearningRateMonitor
    E, bs = sp.get("epochs", 10), sp.get("bs", 32)
    dl = DataLoader(task.train_ds, batch_size=bs, shuffle=True, generator=g)
    vdl = DataLoader(TensorDataset(*task.val), batch_size=len(task.val[0]))

    class Lit(L.LightningModule):
        def __init__(self, **hp):
            super().__init__()
            self.save_hyperparameters(hp)
            self.model = task.model
            if bug(sp, "manual_no_sched"):
                self.automatic_optimization = False

        def training_step(self, b, i):
            loss, extra = task.loss(b)
            if bug(sp, "manual_no_sched"):
                opt = self.optimizers()
                opt.zero_grad(); self.manual_backward(loss); opt.step()
                # BUG: manual optimisation; self.lr_schedulers().step() never called, so warmup never ends
            self.log("train_loss", loss, on_step=True, on_epoch=True)
            for k, v in extra.items():
                self.log("train_" + k, v, on_step=True, on_epoch=False)
            return loss

        def validation_step(self, b, i):
            m = task.metrics(b)
            self.log_dict({"val_" + k: v for k, v in m.items()})

        def configure_optimizers(self):
            opt, sched, interval = make_opt(self.parameters(), sp, E * len(dl))
            if sched is None:
                return opt
            return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": interval}}

    hp = {k: v for k, v in sp.items() if k not in ("causes", "fault", "healthy", "name")}
    lit = Lit(**hp)
    trainer = L.Trainer(max_epochs=E, logger=CSVLogger(str(run_dir), name="lightning_logs", version=0),
                        callbacks=[LearningRateMonitor(logging_interval="step")], enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, log_every_n_steps=sp.get("log_every", 10),
                        accelerator="cpu", devices=1, num_sanity_val_steps=0,
                        overfit_batches=sp.get("overfit_batches", 0.0))
    trainer.fit(lit, dl, vdl)


# ============================================================================= custom loops: stateful LSTM, GAN, RL

def fit_stateful_lstm(sp, log, rng):
    """Truncated BPTT over 16 parallel streams of one long series."""
    s = series(sp.get("T", 6400), rng, noise=0.15)
    s = (s - s.mean()) / s.std()
    B, chunk = 16, 32
    Lr = len(s) // B
    streams = torch.tensor(s[:B * Lr]).view(B, Lr)
    cut = int(0.85 * Lr)
    tr, va = streams[:, :cut], streams[:, cut:]
    model = LSTMF(h=48, H=1)
    opt, sched, _ = make_opt(model.parameters(), sp, 1)
    E = sp.get("epochs", 3)
    log.params(model=sp["model"], epochs=E, streams=B, bptt=chunk, lr=sp.get("lr"))
    step = 0
    state = None
    nchunks = (cut - 1) // chunk
    for ep in range(1, E + 1):
        model.train()
        tot = 0.0
        if not (bug(sp, "no_detach") or bug(sp, "no_detach_plain")):
            state = None
        for c in range(nchunks):
            t0 = time.time()
            x = tr[:, c * chunk:(c + 1) * chunk]
            y = tr[:, c * chunk + 1:(c + 1) * chunk + 1]
            o, st = model.rnn(x[..., None], state)
            pred = model.out(o).squeeze(-1)
            loss = F.mse_loss(pred, y)
            opt.zero_grad()
            if bug(sp, "no_detach"):
                # BUG: hidden state carried across batches without .detach(); retain_graph=True added to
                # silence "Trying to backward through the graph a second time": every step backprops through all history
                loss.backward(retain_graph=True)
                state = st
            elif bug(sp, "no_detach_plain"):
                loss.backward()  # BUG: hidden state carried to the next batch without .detach()
                state = st
            else:
                loss.backward()
                state = tuple(h.detach() for h in st)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            tot += loss.item()
            dt = time.time() - t0
            if step % 5 == 0:
                log.step(step, ep, c, nchunks, E, loss=loss.item(), step_time_ms=1000 * dt,
                         samples_per_sec=B * chunk / dt, lr=opt.param_groups[0]["lr"])
        model.eval()
        with torch.no_grad():
            o, _ = model.rnn(torch.cat([tr, va], 1)[..., None][:, :-1])
            pred = model.out(o).squeeze(-1)[:, cut - 1:]
            tgt = va
            mae = (pred - tgt).abs().mean().item(); rmse = F.mse_loss(pred, tgt).sqrt().item()
        log.epoch(ep, E, step=step, n=nchunks, loss=tot / nchunks, val_mae=mae, val_rmse=rmse)


def moons(n, rng):
    a = rng.uniform(0, np.pi, n); k = rng.integers(0, 2, n)
    x = np.where(k == 0, np.cos(a), 1 - np.cos(a)); y = np.where(k == 0, np.sin(a), 0.5 - np.sin(a))
    return torch.tensor(np.stack([x, y], 1) + 0.06 * rng.standard_normal((n, 2)), dtype=torch.float32)


def mmd(a, b, s=0.3):
    k = lambda x, y: torch.exp(-torch.cdist(x, y) ** 2 / (2 * s * s)).mean()
    return (k(a, a) + k(b, b) - 2 * k(a, b)).item()


def fit_gan(sp, log, rng):
    data = moons(4096, rng)
    G = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
    D = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    lr = sp.get("lr", 1e-3)
    opt_d = torch.optim.Adam(D.parameters(), lr=lr, betas=(0.5, 0.999))
    if bug(sp, "opt_g_over_d"):
        opt_g = torch.optim.Adam(D.parameters(), lr=lr, betas=(0.5, 0.999))  # BUG: copy-paste, G's optimizer holds D's params
    else:
        opt_g = torch.optim.Adam(G.parameters(), lr=lr, betas=(0.5, 0.999))
    bce = nn.BCEWithLogitsLoss()
    iters, bs = sp.get("iters", 2000), 128
    log.params(model="gan-2d", iters=iters, batch_size=bs, lr=lr, betas="(0.5, 0.999)")
    ref = moons(512, np.random.default_rng(123))
    zfix = torch.randn(512, 4, generator=torch.Generator().manual_seed(7))
    acc = {"d_loss": 0, "g_loss": 0, "d_real": 0, "d_fake": 0}
    for it in range(1, iters + 1):
        x = data[torch.randint(0, len(data), (bs,))]
        z = torch.randn(bs, 4)
        fake = G(z)
        dr, df = D(x), D(fake.detach())
        d_loss = bce(dr, torch.ones_like(dr)) + bce(df, torch.zeros_like(df))
        opt_d.zero_grad(); d_loss.backward(); opt_d.step()
        if bug(sp, "g_detach"):
            out = D(fake.detach())  # BUG: the detached fakes from the D step reused in the G step
        else:
            out = D(fake)
        g_loss = bce(out, torch.ones_like(out))
        opt_g.zero_grad(); g_loss.backward(); opt_g.step()
        acc["d_loss"] += d_loss.item(); acc["g_loss"] += g_loss.item()
        acc["d_real"] += torch.sigmoid(dr).mean().item(); acc["d_fake"] += torch.sigmoid(df).mean().item()
        if it % 50 == 0:
            log.step(it, 1 + (it - 1) // 250, (it - 1) % 250, 250, iters // 250, **{k: v / 50 for k, v in acc.items()})
            acc = {k: 0 for k in acc}
        if it % 250 == 0:
            with torch.no_grad():
                gs = G(zfix)
            log.epoch(it // 250, iters // 250, step=it, n=250, mmd=mmd(gs, ref), g_mean_x=gs[:, 0].mean().item(),
                      g_std=gs.std(0).mean().item())


class Corridor:
    """1-D corridor: start at 2, goal (+1) at 9, -0.02 per step, at most 40 steps."""

    def __init__(self, rng, n=10):
        self.n, self.rng = n, rng

    def reset(self):
        self.p, self.t = 2, 0
        return self.obs()

    def obs(self):
        o = np.zeros(self.n, np.float32); o[self.p] = 1
        return torch.tensor(o)

    def step(self, a):
        self.p = max(0, min(self.n - 1, self.p + (1 if a == 1 else -1)))
        self.t += 1
        if self.p == self.n - 1:
            return self.obs(), 1.0, True
        return self.obs(), -0.02, self.t >= 40


class Grid:
    """5x5 grid, start (0,0), goal (4,4) +1, pit (2,2) -1 (ends), -0.01 per step, at most 30 steps."""

    def __init__(self, rng):
        self.rng = rng

    def reset(self):
        self.x, self.y, self.t = 0, 0, 0
        return self.obs()

    def obs(self):
        o = np.zeros(25, np.float32); o[self.y * 5 + self.x] = 1
        return torch.tensor(o)

    def step(self, a):
        dx, dy = [(1, 0), (-1, 0), (0, 1), (0, -1)][a]
        self.x = min(4, max(0, self.x + dx)); self.y = min(4, max(0, self.y + dy)); self.t += 1
        if (self.x, self.y) == (4, 4):
            return self.obs(), 1.0, True
        if (self.x, self.y) == (2, 2):
            return self.obs(), -1.0, True
        return self.obs(), -0.01, self.t >= 30


def fit_reinforce(sp, log, rng):
    env = Corridor(rng)
    pol = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 2))
    opt = torch.optim.Adam(pol.parameters(), lr=sp.get("lr", 3e-3))
    gamma = sp.get("gamma", 0.97)
    E = sp.get("episodes", 600)
    log.params(model="reinforce-mlp", episodes=E, lr=sp.get("lr", 3e-3), gamma=gamma, env="corridor-10")
    rets, lens, step = [], [], 0
    for ep in range(1, E + 1):
        o = env.reset(); logps, rs, ents = [], [], []
        done = False
        while not done:
            dist = torch.distributions.Categorical(logits=pol(o))
            a = dist.sample(); logps.append(dist.log_prob(a)); ents.append(dist.entropy())
            o, r, done = env.step(a.item()); rs.append(r)
        G, out = 0.0, []
        for r in reversed(rs):
            G = r + gamma * G; out.append(G)
        ret = torch.tensor(out[::-1])
        adv = ret - ret.mean() if sp.get("baseline", True) else ret
        lp = torch.stack(logps)
        if bug(sp, "sign_flip"):
            loss = (lp * adv).sum()  # BUG: minus sign dropped: gradient DEscent on expected return
        else:
            loss = -(lp * adv).sum()
        opt.zero_grad(); loss.backward(); opt.step()
        rets.append(sum(rs)); lens.append(len(rs)); step += 1
        if ep % 20 == 0:
            log.step(step, (ep - 1) // 100 + 1, (ep - 1) % 100, 100, E // 100, episode_return=float(np.mean(rets[-20:])),
                     episode_len=float(np.mean(lens[-20:])), policy_loss=loss.item(), entropy=torch.stack(ents).mean().item())
        if ep % 100 == 0:
            log.epoch(ep // 100, E // 100, step=step, n=100, mean_return=float(np.mean(rets[-100:])),
                      mean_len=float(np.mean(lens[-100:])), success_rate=float(np.mean([r > 0 for r in rets[-100:]])))


def fit_dqn(sp, log, rng):
    env = Grid(rng)
    q = nn.Sequential(nn.Linear(25, 64), nn.ReLU(), nn.Linear(64, 4))
    tq = nn.Sequential(nn.Linear(25, 64), nn.ReLU(), nn.Linear(64, 4)); tq.load_state_dict(q.state_dict())
    opt = torch.optim.Adam(q.parameters(), lr=sp.get("lr", 1e-3))
    gamma = sp.get("gamma", 0.95)
    steps = sp.get("steps", 6000)
    buf = []
    eps = 1.0
    log.params(model="dqn-mlp", env_steps=steps, lr=sp.get("lr", 1e-3), gamma=gamma, target_sync=100, buffer=5000,
               eps_decay_steps=2500)

    def decay(eps):
        return max(0.05, eps - 0.95 / 2500)

    o = env.reset(); epret, rets, losses, qs = 0.0, [], [], []
    for t in range(1, steps + 1):
        if rng.random() < eps:
            a = int(rng.integers(4))
        else:
            with torch.no_grad():
                a = int(q(o).argmax())
        o2, r, done = env.step(a)
        buf.append((o, a, r, o2, float(done))); buf = buf[-5000:]
        epret += r; o = o2
        if done:
            rets.append(epret); epret = 0.0; o = env.reset()
        if bug(sp, "eps_local"):
            decay(eps)  # BUG: result thrown away (meant eps = decay(eps)): epsilon stays 1.0
        else:
            eps = decay(eps)
        if len(buf) >= 256:
            idx = rng.integers(0, len(buf), 32)
            ob = torch.stack([buf[i][0] for i in idx]); ac = torch.tensor([buf[i][1] for i in idx])
            rw = torch.tensor([buf[i][2] for i in idx]); ob2 = torch.stack([buf[i][3] for i in idx])
            dn = torch.tensor([buf[i][4] for i in idx])
            qa = q(ob).gather(1, ac[:, None]).squeeze(1)
            with torch.no_grad():
                nxt = tq(ob2).max(1).values
                if bug(sp, "no_done_mask"):
                    tgt = rw + gamma * nxt  # BUG: terminal mask dropped (and gamma 1.0): bootstraps past episode ends
                else:
                    tgt = rw + gamma * (1 - dn) * nxt
            loss = F.smooth_l1_loss(qa, tgt)
            opt.zero_grad(); loss.backward(); opt.step()
            losses.append(loss.item()); qs.append(qa.mean().item())
        if t % 100 == 0:
            tq.load_state_dict(q.state_dict())
        if t % 200 == 0 and losses:
            log.step(t, t // 1000 + 1, (t - 1) % 1000, 1000, steps // 1000, td_loss=float(np.mean(losses[-200:])),
                     mean_q=float(np.mean(qs[-200:])), epsilon=eps,
                     episode_return=float(np.mean(rets[-20:])) if rets else 0.0)
        if t % 1000 == 0:
            log.epoch(t // 1000, steps // 1000, step=t, n=1000, mean_return=float(np.mean(rets[-50:])) if rets else 0.0,
                      episodes=len(rets), success_rate=float(np.mean([r > 0 for r in rets[-50:]])) if rets else 0.0)
