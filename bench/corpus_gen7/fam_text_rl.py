"""Text CNN, token tagger, MoE, GRU char-LM, RL (PPO / actor-critic / REINFORCE), anomaly AE, GAN."""
import math
import random
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import Recorder, seed_all, auroc, macro_f1, char_corpus

POS = ["good", "great", "lovely", "fine", "superb", "nice"]
NEG = ["bad", "awful", "poor", "dull", "terrible", "weak"]
NOUN = ["movie", "meal", "book", "hotel", "game", "show", "song", "trip"]
FILL = ["the", "a", "this", "that", "was", "really", "quite", "and", "it", "very", "overall", "i", "think"]


def sentiment_data(n, seed):
    rng = random.Random(seed)
    X, y = [], []
    for _ in range(n):
        lab = rng.randint(0, 1)
        neg = rng.random() < 0.3
        adj = rng.choice(POS if (lab == 1) != neg else NEG)
        words = [rng.choice(FILL) for _ in range(rng.randint(2, 6))] + [rng.choice(NOUN), "was"] + \
                (["not"] if neg else []) + [adj] + [rng.choice(FILL) for _ in range(rng.randint(0, 5))]
        if rng.random() < 0.08:
            lab = 1 - lab  # label noise
        X.append(words); y.append(lab)
    return X, y


def run_textcnn(s, run_dir):
    seed_all(s["seed"])
    X, y = sentiment_data(2400, s["seed"]); vX, vy = sentiment_data(400, s["seed"] + 3)
    vocab = {"<pad>": 0, "<unk>": 1}
    for w in POS + NEG + NOUN + FILL + ["not", "was"]:
        vocab.setdefault(w, len(vocab))
    enc = lambda L: torch.tensor([[vocab.get(w, 1) for w in x] + [0] * (16 - len(x)) for x in L])
    Xt, Vt = enc(X), enc(vX); yt, vyt = torch.tensor(y), torch.tensor(vy)

    class TextCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(len(vocab), 32, padding_idx=0)
            self.convs = nn.ModuleList([nn.Conv1d(32, 32, k, padding=k // 2) for k in (2, 3, 4)])
            self.drop = nn.Dropout(0.3); self.fc = nn.Linear(96, 2)

        def forward(self, x):
            e = self.emb(x).transpose(1, 2)
            h = torch.cat([F.relu(c(e)).max(-1).values for c in self.convs], 1)
            return self.fc(self.drop(h))

    model = TextCNN()
    eps = s.get("adam_eps", 1e-8); ls = s.get("label_smoothing", 0.0)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=eps)
    E, B = s.get("epochs", 10), 32
    spe = len(Xt) // B
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    rec.params(model="TextCNN k=2,3,4", lr=1e-3, adam_eps=eps, label_smoothing=ls, batch_size=B, epochs=E)
    crit = nn.CrossEntropyLoss(label_smoothing=ls)
    for ep in range(E):
        model.train(); perm = torch.randperm(len(Xt)); tl = []; tc = 0
        for b in range(spe):
            ids = perm[b * B:(b + 1) * B]
            out = model(Xt[ids]); loss = crit(out, yt[ids])
            opt.zero_grad(); loss.backward(); opt.step(); tl.append(loss.item()); tc += (out.argmax(1) == yt[ids]).sum().item()
        model.eval()
        with torch.no_grad():
            out = model(Vt); vl = crit(out, vyt).item(); va = (out.argmax(1) == vyt).float().mean().item()
        rec.epoch(ep, train_loss=float(np.mean(tl)), train_acc=tc / (spe * B), val_loss=vl, val_acc=va)
    rec.close()


# ------------------------------------------------------------------ token tagger (BiGRU)
TAGS = ["O", "DET", "NOUN", "VERB", "ADJ"]
LEX = {"DET": ["the", "a", "this", "every"], "NOUN": ["dog", "cat", "man", "road", "tree", "book", "light"],
       "VERB": ["sees", "walks", "finds", "reads", "light", "book"], "ADJ": ["red", "old", "long", "light", "quiet"]}


def tag_data(n, seed, noise=0.0):
    rng = random.Random(seed)
    words = sorted({w for v in LEX.values() for w in v} | {"and", "then", ","})
    vocab = {w: i + 1 for i, w in enumerate(words)}
    X, Y = [], []
    for _ in range(n):
        seq = []
        for _ in range(rng.randint(1, 2)):
            seq += [("DET", rng.choice(LEX["DET"]))]
            if rng.random() < 0.6: seq += [("ADJ", rng.choice(LEX["ADJ"]))]
            seq += [("NOUN", rng.choice(LEX["NOUN"])), ("VERB", rng.choice(LEX["VERB"])), ("DET", rng.choice(LEX["DET"])),
                    ("NOUN", rng.choice(LEX["NOUN"]))]
            seq += [("O", rng.choice(["and", "then", ","]))]
        X.append([vocab[w] for _, w in seq])
        Y.append([TAGS.index(t) if rng.random() >= noise else rng.randint(0, 4) for t, _ in seq])
    return X, Y, len(vocab) + 1


class Tagger(nn.Module):
    def __init__(self, V, d=32):
        super().__init__()
        self.emb = nn.Embedding(V, d, padding_idx=0)
        self.rnn = nn.GRU(d, 48, batch_first=True, bidirectional=True)
        self.out = nn.Linear(96, len(TAGS))

    def forward(self, x):
        return self.out(self.rnn(self.emb(x))[0])


def pad_tags(X, Y):
    L = max(map(len, X))
    return (torch.tensor([x + [0] * (L - len(x)) for x in X]), torch.tensor([y + [-100] * (L - len(y)) for y in Y]))


def tag_f1(logits, y):
    m = y != -100
    p = logits.argmax(-1)[m].numpy(); t = y[m].numpy()
    return macro_f1(p, t, len(TAGS), ignore=0)


# ------------------------------------------------------------------ MoE
class MoE(nn.Module):
    def __init__(self, d, k_out, n_exp=4):
        super().__init__()
        self.gate = nn.Linear(d, n_exp)
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(d, 64), nn.ReLU(), nn.Linear(64, k_out)) for _ in range(n_exp)])
        self.n = n_exp

    def forward(self, x):
        g = self.gate(x).softmax(-1)
        top = g.argmax(-1)
        outs = torch.stack([e(x) for e in self.experts], 1)
        y = outs[torch.arange(len(x)), top] * g.gather(1, top[:, None])
        frac = F.one_hot(top, self.n).float().mean(0); prob = g.mean(0)
        aux = self.n * (frac * prob).sum()
        return y, aux, frac


def run_moe(s, run_dir):
    seed_all(s["seed"]); rng = np.random.RandomState(s["seed"])
    # 6 classes, each a union of two clusters: experts can specialise
    C = rng.randn(12, 16) * 2.2
    def make(n, r):
        c = r.randint(0, 12, n); x = C[c] + r.randn(n, 16)
        return torch.tensor(x, dtype=torch.float32), torch.tensor(c % 6)
    X, y = make(4000, rng); vX, vy = make(600, np.random.RandomState(s["seed"] + 9))
    model = MoE(16, 6); coef = s.get("aux_coef", 0.01)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    E, B = s.get("epochs", 10), 64; spe = len(X) // B
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    rec.params(model="top-1 MoE, 4 experts", lr=2e-3, aux_loss_coef=coef, batch_size=B, epochs=E)
    step = 0
    for ep in range(E):
        perm = torch.randperm(len(X))
        for b in range(spe):
            ids = perm[b * B:(b + 1) * B]
            out, aux, frac = model(X[ids])
            main = F.cross_entropy(out, y[ids]); loss = main + coef * aux
            opt.zero_grad(); loss.backward(); opt.step(); step += 1
            if step % 20 == 0:
                rec.step(step, epoch=ep, loss=main.item(), aux_loss=aux.item(), total_loss=loss.item(),
                         max_expert_frac=frac.max().item())
        with torch.no_grad():
            out, aux, frac = model(vX)
            rec.epoch(ep, val_loss=F.cross_entropy(out, vy).item(), val_acc=(out.argmax(1) == vy).float().mean().item(),
                      val_aux_loss=aux.item())
    rec.close()


# ------------------------------------------------------------------ GRU char LM
def run_gru_lm(s, run_dir):
    seed_all(s["seed"])
    ids, chars = char_corpus(900, s["seed"]); V = len(chars)
    n = int(len(ids) * 0.9); tr, va = ids[:n], ids[n:]
    T, B = 48, 32

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, 48); self.rnn = nn.GRU(48, 128, batch_first=True); self.out = nn.Linear(128, V)

        def forward(self, x):
            return self.out(self.rnn(self.emb(x))[0])

    model = LM(); lr = s.get("lr", 3e-3); clip = s.get("clip", 1.0)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    steps = s.get("steps", 400)
    unshift = s.get("bug") == "unshifted"
    rec = Recorder(run_dir, s["format"], total_epochs=1, steps_per_epoch=steps, name=s["name"])
    rec.params(model="GRU char LM (128)", lr=lr, max_grad_norm=clip, seq_len=T, batch_size=B, steps=steps)

    def batch(data):
        st = torch.randint(0, len(data) - T - 1, (B,))
        x = torch.stack([data[i:i + T] for i in st])
        y = x.clone() if unshift else torch.stack([data[i + 1:i + T + 1] for i in st])
        return x, y

    for step in range(1, steps + 1):
        model.train(); x, y = batch(tr)
        loss = F.cross_entropy(model(x).reshape(-1, V), y.reshape(-1))
        opt.zero_grad(); loss.backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        if step % 10 == 0:
            rec.step(step, loss=loss.item(), grad_norm=gn.item(), lr=lr)
        if step % 50 == 0:
            model.eval()
            with torch.no_grad():
                vl = []
                for _ in range(4):
                    x, y = batch(va); vl.append(F.cross_entropy(model(x).reshape(-1, V), y.reshape(-1)).item())
            rec.step(step, eval_loss=float(np.mean(vl)), eval_ppl=math.exp(np.mean(vl)))
    rec.close()


# ------------------------------------------------------------------ RL: corridor env
class Corridor:
    """1-D corridor with slip; reach the right end (+1), small step cost, left end is a pit (-1)."""

    def __init__(self, n=10, seed=0, slip=0.15, max_steps=40):
        self.n, self.rng, self.slip, self.max = n, np.random.RandomState(seed), slip, max_steps

    def reset(self):
        self.pos, self.t = 2, 0
        return self.obs()

    def obs(self):
        o = np.zeros(self.n, np.float32); o[self.pos] = 1; return o

    def step(self, a):
        d = 1 if a == 1 else -1
        if self.rng.rand() < self.slip: d = -d
        self.pos += d; self.t += 1
        if self.pos >= self.n - 1: self.pos = self.n - 1; return self.obs(), 1.0, True
        if self.pos <= 0: self.pos = 0; return self.obs(), -1.0, True
        return self.obs(), -0.02, self.t >= self.max


class AC(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n, 64), nn.Tanh())
        self.pi, self.v = nn.Linear(64, 2), nn.Linear(64, 1)

    def forward(self, x):
        h = self.body(x); return self.pi(h), self.v(h)[..., 0]


def rollout(env, net, n_steps):
    obs, acts, rews, dones, logps, vals, ep_rets = [], [], [], [], [], [], []
    o = env.reset(); ret = 0.0
    for _ in range(n_steps):
        with torch.no_grad():
            lg, v = net(torch.tensor(o)[None])
        dist = torch.distributions.Categorical(logits=lg[0]); a = dist.sample()
        o2, r, d = env.step(a.item())
        obs.append(o); acts.append(a.item()); rews.append(r); dones.append(d); logps.append(dist.log_prob(a).item()); vals.append(v.item())
        ret += r; o = o2
        if d:
            ep_rets.append(ret); ret = 0.0; o = env.reset()
    with torch.no_grad():
        last_v = net(torch.tensor(o)[None])[1].item()
    return (torch.tensor(np.array(obs)), torch.tensor(acts), np.array(rews), np.array(dones), torch.tensor(logps),
            np.array(vals), last_v, ep_rets)


def gae(rews, vals, dones, last_v, gamma=0.97, lam=0.95):
    adv = np.zeros(len(rews)); g = 0
    for t in reversed(range(len(rews))):
        nv = last_v if t == len(rews) - 1 else vals[t + 1]
        nonterm = 1.0 - dones[t]
        delta = rews[t] + gamma * nv * nonterm - vals[t]
        g = delta + gamma * lam * nonterm * g; adv[t] = g
    return adv, adv + vals


def run_ppo(s, run_dir):
    seed_all(s["seed"]); env = Corridor(seed=s["seed"])
    net = AC(env.n); opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    ent_coef = s.get("ent_coef", 0.01); iters = s.get("iters", 40)
    rec = Recorder(run_dir, s["format"], total_epochs=iters, steps_per_epoch=1, name=s["name"])
    rec.params(algo="PPO", lr=1e-3, n_steps=256, epochs_per_rollout=4, minibatch=64, clip=0.2, ent_coef=ent_coef, gamma=0.97)
    total = 0
    for _it in range(iters):
        O, A, R, D, LP, Vs, lv, rets = rollout(env, net, 256); total += 256
        adv, ret = gae(R, Vs, D, lv)
        adv_t = torch.tensor(adv, dtype=torch.float32); ret_t = torch.tensor(ret, dtype=torch.float32)
        adv_n = (adv_t - adv_t.mean()) / (adv_t.std() + 1e-8)
        for _ in range(4):
            perm = torch.randperm(256)
            for b in range(0, 256, 64):
                i = perm[b:b + 64]
                lg, v = net(O[i]); dist = torch.distributions.Categorical(logits=lg)
                ratio = (dist.log_prob(A[i]) - LP[i]).exp()
                pl = -torch.min(ratio * adv_n[i], ratio.clamp(0.8, 1.2) * adv_n[i]).mean()
                vl = F.mse_loss(v, ret_t[i]); ent = dist.entropy().mean()
                loss = pl + 0.5 * vl - ent_coef * ent
                opt.zero_grad(); loss.backward(); nn.utils.clip_grad_norm_(net.parameters(), 0.5); opt.step()
        clipfrac = ((ratio - 1).abs() > 0.2).float().mean().item()
        rec.step(total, episode_return=float(np.mean(rets)) if rets else float("nan"), episodes=len(rets),
                 policy_loss=pl.item(), value_loss=vl.item(), entropy=ent.item(), clip_fraction=clipfrac)
    rec.close()


def run_pg(s, run_dir):
    """Actor-critic (healthy) or REINFORCE with raw returns (bug)."""
    seed_all(s["seed"]); env = Corridor(seed=s["seed"])
    net = AC(env.n); opt = torch.optim.Adam(net.parameters(), lr=s.get("lr", 2e-3))
    iters = s.get("iters", 60); bug = s.get("bug")
    rec = Recorder(run_dir, s["format"], total_epochs=iters, steps_per_epoch=1, name=s["name"])
    rec.params(algo="REINFORCE" if bug else "A2C", lr=s.get("lr", 2e-3), n_steps=128, gamma=0.97, ent_coef=0.01)
    total = 0
    for _it in range(iters):
        O, A, R, D, LP, Vs, lv, rets = rollout(env, net, 128); total += 128
        lg, v = net(O); dist = torch.distributions.Categorical(logits=lg); logp = dist.log_prob(A)
        if bug == "raw_returns":
            # return-to-go without discount, no baseline, no centring
            G = np.zeros(len(R)); g = 0
            for t in reversed(range(len(R))):
                g = R[t] + (0 if D[t] else g); G[t] = g
            adv = torch.tensor(G, dtype=torch.float32)
            vl = F.mse_loss(v, adv)
            pl = -(logp * adv).mean()
        else:
            adv, ret = gae(R, Vs, D, lv, lam=1.0)
            adv = torch.tensor(adv, dtype=torch.float32); ret = torch.tensor(ret, dtype=torch.float32)
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pl = -(logp * adv).mean(); vl = F.mse_loss(v, ret)
        ent = dist.entropy().mean()
        loss = pl + 0.5 * vl - 0.01 * ent
        opt.zero_grad(); loss.backward(); gn = nn.utils.clip_grad_norm_(net.parameters(), 1.0); opt.step()
        rec.step(total, episode_return=float(np.mean(rets)) if rets else float("nan"), policy_loss=pl.item(),
                 value_loss=vl.item(), entropy=ent.item(), grad_norm=gn.item())
    rec.close()


# ------------------------------------------------------------------ anomaly AE
def windows(n, seed, anomalous=False):
    r = np.random.RandomState(seed)
    t = np.arange(32)
    f = r.uniform(0.08, 0.12, n)[:, None]; ph = r.uniform(0, 2 * np.pi, n)[:, None]
    x = np.sin(2 * np.pi * f * t + ph) + r.randn(n, 32) * 0.1
    if anomalous:
        for i in range(n):
            if i % 2 == 0:
                j = r.randint(4, 28); x[i, j:j + 3] += r.choice([-1.5, 1.5])
            else:
                x[i] = np.sin(2 * np.pi * r.uniform(0.25, 0.35) * t + ph[i]) + r.randn(32) * 0.1
    return torch.tensor(x, dtype=torch.float32)


def run_ae(s, run_dir):
    seed_all(s["seed"])
    X = windows(3000, s["seed"]); vn = windows(300, s["seed"] + 1); vaa = windows(60, s["seed"] + 2, True)
    vX = torch.cat([vn, vaa]); vl_ = np.r_[np.zeros(300), np.ones(60)]
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 6), nn.ReLU(), nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 32))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    E, B = s.get("epochs", 15), 64; spe = len(X) // B
    rec = Recorder(run_dir, s["format"], total_epochs=E, steps_per_epoch=spe, name=s["name"])
    rec.params(model="MLP autoencoder 32-64-6-64-32", lr=1e-3, batch_size=B, epochs=E, score="reconstruction MSE")
    for ep in range(E):
        perm = torch.randperm(len(X)); tl = []
        for b in range(spe):
            x = X[perm[b * B:(b + 1) * B]]
            loss = F.mse_loss(model(x), x); opt.zero_grad(); loss.backward(); opt.step(); tl.append(loss.item())
        with torch.no_grad():
            err = (model(vX) - vX).pow(2).mean(1).numpy()
        score = -err if s.get("bug") == "auroc_flipped" else err
        rec.epoch(ep, train_recon=float(np.mean(tl)), val_recon_normal=float(err[:300].mean()),
                  val_recon_anomaly=float(err[300:].mean()), val_auroc=auroc(score, vl_))
    rec.close()


# ------------------------------------------------------------------ GAN on the 8-gaussian ring
def run_gan(s, run_dir):
    seed_all(s["seed"]); rng = np.random.RandomState(s["seed"])
    from fam_graph_seq import ring8
    G = nn.Sequential(nn.Linear(8, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 2))
    D = nn.Sequential(nn.Linear(2, 128), nn.LeakyReLU(0.2), nn.Linear(128, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))
    oG = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.999)); oD = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.999))
    iters, B = s.get("iters", 2500), 128
    flip = s.get("bug") == "label_flip"
    real_lab, fake_lab = (0.0, 1.0) if flip else (1.0, 0.0)
    modes = torch.tensor([[2 * math.cos(k * math.pi / 4), 2 * math.sin(k * math.pi / 4)] for k in range(8)])
    rec = Recorder(run_dir, s["format"], total_epochs=iters // 250, steps_per_epoch=250, name=s["name"])
    rec.params(model="MLP GAN on 8-gaussian ring", lr=1e-3, betas="(0.5, 0.999)", batch_size=B, iterations=iters)
    bce = nn.BCEWithLogitsLoss()
    for it in range(1, iters + 1):
        x = torch.tensor(ring8(B, rng), dtype=torch.float32)
        z = torch.randn(B, 8); fake = G(z)
        dr, df = D(x), D(fake.detach())
        d_loss = bce(dr, torch.full_like(dr, real_lab)) + bce(df, torch.full_like(df, fake_lab))
        oD.zero_grad(); d_loss.backward(); oD.step()
        out = D(fake)
        g_loss = bce(out, torch.ones_like(out))  # non-saturating: make D call the fakes 1
        oG.zero_grad(); g_loss.backward(); oG.step()
        if it % 25 == 0:
            rec.step(it, epoch=(it - 1) // 250, d_loss=d_loss.item(), g_loss=g_loss.item(),
                     d_real=torch.sigmoid(dr).mean().item(), d_fake=torch.sigmoid(df).mean().item())
        if it % 250 == 0:
            with torch.no_grad():
                smp = G(torch.randn(1000, 8)); d = torch.cdist(smp, modes).min(1)
                q = (d.values < 0.3).float().mean().item(); cov = len(set(d.indices[d.values < 0.3].tolist()))
            rec.epoch(it // 250 - 1, iteration=it, sample_quality=q, modes_covered=cov, mean_mode_dist=d.values.mean().item())
    rec.close()
