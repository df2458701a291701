"""GCN, CTC, seq2seq, CLIP-style, DDPM, matrix factorisation families (plain torch loops)."""
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import Recorder, seed_all, edit_distance


# ------------------------------------------------------------------ GCN
def sbm_graph(seed, n=400, k=5, p_in=0.06, p_out=0.008, d=24, noise=1.6):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, k, n)
    P = np.where(y[:, None] == y[None, :], p_in, p_out)
    A = (rng.rand(n, n) < P).astype(np.float32)
    A = np.triu(A, 1); A = A + A.T
    centers = rng.randn(k, d)
    X = centers[y] * 0.6 + rng.randn(n, d) * noise
    idx = rng.permutation(n)
    return (torch.tensor(A), torch.tensor(X, dtype=torch.float32), torch.tensor(y),
            torch.tensor(idx[:80]), torch.tensor(idx[80:200]), torch.tensor(idx[200:]))


class GCN(nn.Module):
    def __init__(self, d, h, k, p):
        super().__init__()
        self.l1, self.l2, self.p = nn.Linear(d, h), nn.Linear(h, k), p

    def forward(self, A_hat, X):
        X = F.dropout(X, self.p, self.training)
        H = F.relu(A_hat @ self.l1(X))
        H = F.dropout(H, self.p, self.training)
        return A_hat @ self.l2(H)


def run_gcn(s, run_dir):
    seed_all(s["seed"])
    A, X, y, tr, va, te = sbm_graph(s["seed"])
    A_t = A + torch.eye(len(A))
    dinv = A_t.sum(1).pow(-0.5)
    A_hat = dinv[:, None] * A_t * dinv[None, :]
    p = s.get("dropout", 0.5)
    model = GCN(X.shape[1], 32, 5, p)
    opt = torch.optim.Adam(model.parameters(), lr=s.get("lr", 0.01), weight_decay=5e-4)
    E = s.get("epochs", 200)
    sched = None
    if s.get("sgdr"):
        sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=50, eta_min=1e-4)
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=1, name=s["name"])
    rec.params(model="GCN(2 layers, hidden 32)", lr=s.get("lr", 0.01), weight_decay=5e-4, dropout=p, epochs=E,
               scheduler="CosineAnnealingWarmRestarts(T_0=50)" if sched else "none")
    eval_idx = tr if s.get("bug") == "evalmask" else va
    for ep in range(E):
        model.train()
        out = model(A_hat, X)
        loss = F.cross_entropy(out[tr], y[tr])
        opt.zero_grad(); loss.backward(); opt.step()
        lr = opt.param_groups[0]["lr"]
        if sched: sched.step()
        if ep % 5 == 4 or ep == 0:
            model.eval()
            with torch.no_grad():
                out = model(A_hat, X)
                vl = F.cross_entropy(out[eval_idx], y[eval_idx]).item()
                va_acc = (out[eval_idx].argmax(1) == y[eval_idx]).float().mean().item()
                tr_acc = (out[tr].argmax(1) == y[tr]).float().mean().item()
            rec.epoch(ep, loss=loss.item(), train_acc=tr_acc, val_loss=vl, val_acc=va_acc, lr=lr)
    model.eval()
    with torch.no_grad():
        out = model(A_hat, X)
        rec.text(f"test accuracy: {(out[te].argmax(1) == y[te]).float().mean().item():.4f}")
    rec.close()


# ------------------------------------------------------------------ CTC
def ctc_data(n, seed, K=5):
    rng = np.random.RandomState(seed)
    xs, ys = [], []
    for _ in range(n):
        L = rng.randint(3, 7)
        toks = []
        for _ in range(L):
            t = rng.randint(1, K + 1)
            while toks and toks[-1] == t:
                t = rng.randint(1, K + 1)
            toks.append(t)
        sig = []
        for t in toks:
            seg = rng.randint(5, 9)
            tt = np.arange(seg)
            sig.append(np.stack([np.sin(2 * np.pi * t * tt / 10.0), np.full(seg, t / K - 0.5)], 1))
            sig.append(np.zeros((rng.randint(1, 3), 2)))
        sig = np.concatenate(sig) + rng.randn(sum(len(a) for a in sig), 2) * 0.3
        xs.append(torch.tensor(sig, dtype=torch.float32)); ys.append(toks)
    return xs, ys


class CTCNet(nn.Module):
    def __init__(self, K):
        super().__init__()
        self.conv = nn.Conv1d(2, 32, 3, padding=1)
        self.rnn = nn.GRU(32, 48, batch_first=True, bidirectional=True)
        self.out = nn.Linear(96, K + 1)

    def forward(self, x):
        h = F.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        h, _ = self.rnn(h)
        return self.out(h)


def run_ctc(s, run_dir):
    seed_all(s["seed"])
    K = 5
    xs, ys = ctc_data(s.get("n_train", 700), s["seed"], K)
    vx, vy = ctc_data(150, s["seed"] + 1, K)
    bug = s.get("bug")
    if bug == "blank_collision":  # labels written 0..K-1 while the loss keeps blank=0
        ys = [[t - 1 for t in y] for y in ys]
        vy = [[t - 1 for t in y] for y in vy]
    model = CTCNet(K)
    lr = s.get("lr", 5e-3)
    opt = torch.optim.AdamW(model.parameters(), lr=lr)
    E, B = s.get("epochs", 8), 32
    spe = len(xs) // B
    warm = s.get("warmup", 0)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda st: min(1.0, (st + 1) / warm) if warm else 1.0)
    ctc = nn.CTCLoss(blank=0, zero_infinity=False)
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    rec.params(model="Conv1d+BiGRU CTC", lr=lr, batch_size=B, epochs=E, warmup_steps=warm, blank=0)
    pad = lambda seqs: nn.utils.rnn.pad_sequence(seqs, batch_first=True)
    step = 0
    for ep in range(E):
        perm = np.random.permutation(len(xs))
        model.train(); tl = []
        for b in range(spe):
            ids = perm[b * B:(b + 1) * B]
            x = pad([xs[i] for i in ids]); tgt = torch.tensor(sum([ys[i] for i in ids], []))
            tl_ = torch.tensor([len(ys[i]) for i in ids]); il = torch.tensor([len(xs[i]) for i in ids])
            if bug == "lengths":  # input_lengths filled from the target lengths
                il = tl_.clone()
            lp = model(x).log_softmax(-1).transpose(0, 1)
            loss = ctc(lp, tgt, il, tl_)
            opt.zero_grad(); loss.backward()
            gn = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step(); sched.step(); step += 1
            tl.append(loss.item())
            if step % 10 == 0:
                rec.step(step, epoch=ep, loss=loss.item(), grad_norm=gn.item(), lr=opt.param_groups[0]["lr"])
        model.eval(); errs = tot = 0; vls = []
        with torch.no_grad():
            for b in range(0, len(vx), 50):
                xb = vx[b:b + 50]; yb = vy[b:b + 50]
                x = pad(xb); lp = model(x).log_softmax(-1)
                il = torch.tensor([len(a) for a in xb])
                vls.append(ctc(lp.transpose(0, 1), torch.tensor(sum(yb, [])), il, torch.tensor([len(a) for a in yb])).item())
                pr = lp.argmax(-1)
                for i, y in enumerate(yb):
                    seq = pr[i, :il[i]].tolist(); dec = []; prev = -1
                    for t in seq:
                        if t != prev and t != 0: dec.append(t)
                        prev = t
                    errs += edit_distance(dec, y); tot += len(y)
        rec.epoch(ep, train_loss=float(np.mean(tl)), val_loss=float(np.mean(vls)), val_cer=errs / tot,
                  lr=opt.param_groups[0]["lr"])
    rec.close()


# ------------------------------------------------------------------ seq2seq
PAD, BOS, EOS = 0, 1, 2


def s2s_data(n, seed, V=14):
    rng = np.random.RandomState(seed)
    src, tgt = [], []
    for _ in range(n):
        L = rng.randint(4, 9)
        a = rng.randint(3, V, L)
        b = [(int(t) * 5 + 1) % (V - 3) + 3 for t in a[::-1]]
        src.append(list(a) + [EOS]); tgt.append([BOS] + b + [EOS])
    return src, tgt


class S2S(nn.Module):
    def __init__(self, V, d=64):
        super().__init__()
        self.emb = nn.Embedding(V, d); self.pos = nn.Embedding(16, d)
        self.tf = nn.Transformer(d, 4, 2, 2, 128, dropout=0.1, batch_first=True)
        self.out = nn.Linear(d, V)

    def embed(self, x):
        return self.emb(x) + self.pos(torch.arange(x.shape[1]))[None]

    def forward(self, src, tgt_in, causal=True):
        T = tgt_in.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(T) if causal else None
        h = self.tf(self.embed(src), self.embed(tgt_in), tgt_mask=mask,
                    src_key_padding_mask=src == PAD, tgt_key_padding_mask=tgt_in == PAD,
                    memory_key_padding_mask=src == PAD)
        return self.out(h)


def run_s2s(s, run_dir):
    seed_all(s["seed"])
    V = 14
    src, tgt = s2s_data(s.get("n_train", 3200), s["seed"]); vs, vt = s2s_data(200, s["seed"] + 7)
    padl = lambda L: torch.tensor([x + [PAD] * (max(map(len, L)) - len(x)) for x in L])
    model = S2S(V)
    E, B = s.get("epochs", 8), 64
    spe = len(src) // B
    lr = s.get("lr", 2e-3)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=E * spe, pct_start=0.3)
    causal = s.get("bug") != "nocausal"
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    rec.params(model="nn.Transformer 2+2 layers d64", max_lr=lr, schedule="OneCycleLR", batch_size=B, epochs=E)
    step = 0
    for ep in range(E):
        model.train(); perm = np.random.permutation(len(src)); tl = []
        for b in range(spe):
            ids = perm[b * B:(b + 1) * B]
            S_ = padl([src[i] for i in ids]); T_ = padl([tgt[i] for i in ids])
            logits = model(S_, T_[:, :-1], causal)
            loss = F.cross_entropy(logits.reshape(-1, V), T_[:, 1:].reshape(-1), ignore_index=PAD)
            opt.zero_grad(); loss.backward(); nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step(); sched.step(); step += 1; tl.append(loss.item())
        model.eval()
        with torch.no_grad():
            S_ = padl(vs); T_ = padl(vt)
            vl = F.cross_entropy(model(S_, T_[:, :-1], causal).reshape(-1, V), T_[:, 1:].reshape(-1), ignore_index=PAD).item()
            ys = torch.full((len(vs), 1), BOS)
            for _ in range(T_.shape[1] - 1):
                nxt = model(S_, ys, causal)[:, -1].argmax(-1, keepdim=True)
                ys = torch.cat([ys, nxt], 1)
            m = T_[:, 1:] != PAD
            acc = ((ys[:, 1:] == T_[:, 1:]) & m).sum().item() / m.sum().item()
            exact = ((ys[:, 1:] == T_[:, 1:]) | ~m).all(1).float().mean().item()
        rec.epoch(ep, loss=float(np.mean(tl)), val_loss=vl, val_token_acc=acc, val_exact_match=exact,
                  lr=opt.param_groups[0]["lr"])
    rec.close()


# ------------------------------------------------------------------ CLIP-style dual encoder
def clip_data(n, seed, d=8):
    rng = np.random.RandomState(1234)
    Wa, Wb = rng.randn(d, 32), rng.randn(d, 24)
    r = np.random.RandomState(seed)
    z = r.randn(n, d)
    A = np.tanh(z @ Wa / 2) + r.randn(n, 32) * 0.3
    Bm = np.sin(z @ Wb / 2) + r.randn(n, 24) * 0.3
    return torch.tensor(A, dtype=torch.float32), torch.tensor(Bm, dtype=torch.float32)


def run_clip(s, run_dir):
    seed_all(s["seed"])
    A, Bm = clip_data(3000, s["seed"]); vA, vB = clip_data(256, s["seed"] + 5)
    ea = nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 64))
    eb = nn.Sequential(nn.Linear(24, 128), nn.GELU(), nn.Linear(128, 64))
    logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))
    params = list(ea.parameters()) + list(eb.parameters()) + [logit_scale]
    lr = 1e-3
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.1)
    E, B = s.get("epochs", 12), 64
    spe = len(A) // B
    bug = s.get("bug")
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    rec.params(model="dual MLP encoders, InfoNCE", lr=lr, batch_size=B, epochs=E, init_temperature=0.07)
    step = 0
    for ep in range(E):
        perm = torch.randperm(len(A))
        for b in range(spe):
            ids = perm[b * B:(b + 1) * B]
            za = F.normalize(ea(A[ids]), dim=-1); zb = F.normalize(eb(Bm[ids]), dim=-1)
            scale = logit_scale.exp().clamp(max=100)
            if bug == "temp_inverted":  # multiplies by the temperature instead of dividing by it
                scale = 1.0 / scale
            logits = scale * za @ zb.t()
            labels = torch.zeros(B, dtype=torch.long) if bug == "labels_zero" else torch.arange(B)
            loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
            opt.zero_grad(); loss.backward(); opt.step(); step += 1
            if step % 15 == 0:
                rec.step(step, epoch=ep, train_loss=loss.item(), temperature=1 / logit_scale.exp().item(),
                         lr=opt.param_groups[0]["lr"])
        with torch.no_grad():
            za = F.normalize(ea(vA), dim=-1); zb = F.normalize(eb(vB), dim=-1)
            sim = za @ zb.t()
            r1 = (sim.argmax(1) == torch.arange(len(vA))).float().mean().item()
            r5 = (sim.topk(5, 1).indices == torch.arange(len(vA))[:, None]).any(1).float().mean().item()
            sc = logit_scale.exp().clamp(max=100)
            vl = F.cross_entropy(sc * sim, torch.arange(len(vA))).item()
        rec.epoch(ep, val_loss=vl, recall_at_1=r1, recall_at_5=r5)
    rec.close()


# ------------------------------------------------------------------ DDPM on 2-D points
def ring8(n, rng):
    k = rng.randint(0, 8, n); ang = k * 2 * np.pi / 8
    return np.stack([2 * np.cos(ang), 2 * np.sin(ang)], 1) + rng.randn(n, 2) * 0.1


def temb(t, d=32):
    f = torch.exp(-math.log(1000) * torch.arange(d // 2) / (d // 2))
    a = t[:, None].float() * f[None]
    return torch.cat([a.sin(), a.cos()], 1)


class Denoiser(nn.Module):
    def __init__(self, use_t=True):
        super().__init__()
        self.use_t = use_t
        self.net = nn.Sequential(nn.Linear(2 + 32, 128), nn.SiLU(), nn.Linear(128, 128), nn.SiLU(), nn.Linear(128, 2))

    def forward(self, x, t):
        e = temb(t) if self.use_t else torch.zeros(len(x), 32)
        return self.net(torch.cat([x, e], 1))


def run_ddpm(s, run_dir):
    seed_all(s["seed"]); rng = np.random.RandomState(s["seed"])
    T = 100
    betas = torch.linspace(1e-4, 0.05, T); alphas = 1 - betas; abar = torch.cumprod(alphas, 0)
    model = Denoiser(use_t=s.get("bug") != "no_timestep")
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    E, spe, B = s.get("epochs", 15), 60, 128
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    rec.params(model="MLP denoiser (eps-prediction)", T=T, lr=2e-3, batch_size=B, epochs=E)
    modes = torch.tensor([[2 * math.cos(k * math.pi / 4), 2 * math.sin(k * math.pi / 4)] for k in range(8)])
    for ep in range(E):
        tl = []
        for _ in range(spe):
            x0 = torch.tensor(ring8(B, rng), dtype=torch.float32)
            t = torch.randint(0, T, (B,)); eps = torch.randn_like(x0)
            xt = abar[t].sqrt()[:, None] * x0 + (1 - abar[t]).sqrt()[:, None] * eps
            loss = F.mse_loss(model(xt, t), eps)
            opt.zero_grad(); loss.backward(); opt.step(); tl.append(loss.item())
        with torch.no_grad():
            x = torch.randn(400, 2)
            for ti in reversed(range(T)):
                tt = torch.full((400,), ti)
                e = model(x, tt)
                x = (x - betas[ti] / (1 - abar[ti]).sqrt() * e) / alphas[ti].sqrt()
                if ti > 0: x = x + betas[ti].sqrt() * torch.randn_like(x)
            d = torch.cdist(x, modes).min(1)
            dist = d.values.mean().item(); cover = len(set(d.indices[d.values < 0.5].tolist()))
        rec.epoch(ep, train_mse=float(np.mean(tl)), sample_mode_dist=dist, modes_covered=cover)
    rec.close()


# ------------------------------------------------------------------ matrix factorisation
def run_mf(s, run_dir):
    seed_all(s["seed"]); rng = np.random.RandomState(s["seed"])
    U, I, r = 300, 200, 5
    Pu, Qi = rng.randn(U, r), rng.randn(I, r)
    R = Pu @ Qi.T / math.sqrt(r) + rng.randn(U, I) * 0.3 + 3.0
    mask = rng.rand(U, I) < 0.25
    uu, ii = np.nonzero(mask)
    perm = rng.permutation(len(uu)); nv = len(uu) // 8
    va, tr = perm[:nv], perm[nv:]
    tu, ti, tr_r = [torch.tensor(a) for a in (uu[tr], ii[tr], R[uu[tr], ii[tr]].astype(np.float32))]
    vu, vi, vr = [torch.tensor(a) for a in (uu[va], ii[va], R[uu[va], ii[va]].astype(np.float32))]
    # hit-rate target: for each user, the best item among its validation items
    best = {}
    for u, i, rr in zip(uu[va], ii[va], R[uu[va], ii[va]]):
        if u not in best or rr > best[u][1]:
            best[u] = (i, rr)
    train_seen = np.zeros((U, I), bool); train_seen[uu[tr], ii[tr]] = True

    class MF(nn.Module):
        def __init__(self):
            super().__init__()
            self.P, self.Q = nn.Embedding(U, 16), nn.Embedding(I, 16)
            self.bu, self.bi = nn.Embedding(U, 1), nn.Embedding(I, 1)
            for e in (self.P, self.Q): nn.init.normal_(e.weight, std=0.1)
            for e in (self.bu, self.bi): nn.init.zeros_(e.weight)
            self.mu = nn.Parameter(torch.tensor(3.0))

        def forward(self, u, i):
            return (self.P(u) * self.Q(i)).sum(-1) + self.bu(u)[:, 0] + self.bi(i)[:, 0] + self.mu

    model = MF()
    wd = s.get("weight_decay", 1e-4); l2 = s.get("l2", 0.05)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=wd)
    E, B = s.get("epochs", 20), 256
    spe = len(tu) // B
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    rec.params(model="MF rank 16 + biases", lr=1e-2, weight_decay=wd, l2_factors=l2, batch_size=B, epochs=E)
    for ep in range(E):
        perm = torch.randperm(len(tu)); tl = []
        for b in range(spe):
            ids = perm[b * B:(b + 1) * B]
            loss = F.mse_loss(model(tu[ids], ti[ids]), tr_r[ids])
            reg = l2 * (model.P(tu[ids]).pow(2).sum(-1) + model.Q(ti[ids]).pow(2).sum(-1)).mean()
            opt.zero_grad(); (loss + reg).backward(); opt.step(); tl.append(loss.item())
        with torch.no_grad():
            if s.get("bug") == "swap_eval":  # eval batch built as (item, user)
                pred = model(vi % U, vu % I)
            else:
                pred = model(vu, vi)
            rmse = (pred - vr).pow(2).mean().sqrt().item()
            allp = (model.P.weight @ model.Q.weight.t() + model.bu.weight + model.bi.weight.t()).numpy()
            allp[train_seen] = -1e9
            hits = [int(best[u][0] in np.argsort(-allp[u])[:10]) for u in best]
        rec.epoch(ep, train_mse=float(np.mean(tl)), val_rmse=rmse, hit_rate_at_10=float(np.mean(hits)))
    rec.close()
