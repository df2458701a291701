"""Shared helpers for corpus_gen7: synthetic data, a run recorder that writes the
log format a run's spec asks for, and small metric functions.  Nothing here knows
anything about triage."""
import csv
import json
import logging
import os
import random
import time
import warnings

_ORIG_SHOWWARNING = warnings.showwarning

import numpy as np
import torch

# ---------------------------------------------------------------- seeding

def seed_all(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


# ---------------------------------------------------------------- data

def blobs(n, d=10, k=4, sep=2.0, noise=1.0, seed=0, weights=None):
    rng = np.random.RandomState(seed)
    centers = rng.randn(k, d) * sep
    p = np.ones(k) / k if weights is None else np.asarray(weights) / np.sum(weights)
    y = rng.choice(k, size=n, p=p)
    x = centers[y] + rng.randn(n, d) * noise
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.long)


def shapes16(n, seed=0, noise=0.25, k=4):
    """16x16 grey images: 0 square, 1 disc, 2 cross, 3 triangle (random size/pos)."""
    rng = np.random.RandomState(seed)
    X = np.zeros((n, 1, 16, 16), dtype=np.float32)
    y = rng.randint(0, k, size=n)
    yy, xx = np.mgrid[0:16, 0:16]
    for i in range(n):
        s = rng.randint(3, 6)
        cx, cy = rng.randint(s, 16 - s), rng.randint(s, 16 - s)
        c = y[i]
        if c == 0:
            m = (abs(xx - cx) <= s) & (abs(yy - cy) <= s)
        elif c == 1:
            m = (xx - cx) ** 2 + (yy - cy) ** 2 <= s * s
        elif c == 2:
            m = ((abs(xx - cx) <= 1) & (abs(yy - cy) <= s)) | ((abs(yy - cy) <= 1) & (abs(xx - cx) <= s))
        else:
            m = (yy - cy + s >= 0) & (yy - cy <= s) & (abs(xx - cx) <= (yy - cy + s) / 2)
        X[i, 0][m] = 1.0
    X += rng.randn(*X.shape).astype(np.float32) * noise
    return torch.tensor(X), torch.tensor(y, dtype=torch.long)


_SUBJ = ["the cat", "a dog", "my friend", "the old man", "her brother", "a small bird", "the teacher", "our team"]
_VERB = ["sees", "likes", "finds", "takes", "wants", "watches", "follows", "remembers"]
_OBJ = ["the red ball", "a green box", "the long road", "some fresh bread", "the blue door", "a quiet room",
        "the big tree", "an old book"]
_ADV = ["today", "again", "slowly", "at night", "every day", "in the rain", "without a word", "by the river"]


def sentences(n, seed=0):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        s = f"{rng.choice(_SUBJ)} {rng.choice(_VERB)} {rng.choice(_OBJ)} {rng.choice(_ADV)}."
        out.append(s)
    return out


def char_corpus(n_sent=600, seed=0):
    text = " ".join(sentences(n_sent, seed))
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    ids = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    return ids, chars


# ---------------------------------------------------------------- metrics

def auroc(scores, labels):
    scores = np.asarray(scores, dtype=np.float64)
    labels = np.asarray(labels).astype(int)
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    npos = labels.sum()
    nneg = len(labels) - npos
    return float((ranks[labels == 1].sum() - npos * (npos + 1) / 2) / max(npos * nneg, 1))


def macro_f1(pred, true, k, ignore=None):
    pred = np.asarray(pred); true = np.asarray(true)
    f = []
    for c in range(k):
        if ignore is not None and c == ignore:
            continue
        tp = np.sum((pred == c) & (true == c)); fp = np.sum((pred == c) & (true != c)); fn = np.sum((pred != c) & (true == c))
        if tp + fp + fn == 0:
            continue
        f.append(2 * tp / max(2 * tp + fp + fn, 1))
    return float(np.mean(f)) if f else 0.0


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            cur = d[j]
            d[j] = min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
            prev = cur
    return d[len(b)]


# ---------------------------------------------------------------- recorder

def _fmt(v):
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return str(v)
        if abs(v) >= 1000 or (abs(v) < 1e-3 and v != 0):
            return f"{v:.4e}"
        return f"{v:.4f}"
    return str(v)


class Recorder:
    """Writes what a plain training script would write, in the style the spec names.

    step(step, **m): a per-step (or per-batch) record.   epoch(epoch, **m): an epoch record.
    Formats: jsonl, csv, mlflow, printed_<style>."""

    def __init__(self, run_dir, fmt, total_epochs=None, steps_per_epoch=None, step_every=10, name="run"):
        self.run_dir, self.fmt = run_dir, fmt
        self.E, self.S, self.every = total_epochs, steps_per_epoch, step_every
        self.rows = []
        self.t0 = time.time()
        self._log = None
        self._f = None
        self._mlflow = None
        if fmt == "jsonl":
            self._f = open(os.path.join(run_dir, "metrics.jsonl"), "w")
        elif fmt == "csv":
            pass
        elif fmt == "mlflow":
            import mlflow
            mlflow.set_tracking_uri("file:" + os.path.join(run_dir, "mlruns"))
            mlflow.set_experiment(name)
            self._mlflow = mlflow
            mlflow.start_run(run_name=name)
        elif fmt == "printed_logging":
            lg = logging.getLogger("train." + name)
            lg.handlers.clear(); lg.propagate = False
            h = logging.FileHandler(os.path.join(run_dir, "train.log"), mode="w")
            h.setFormatter(logging.Formatter("%(asctime)s - %(name)s - %(levelname)s - %(message)s"))
            lg.addHandler(h); lg.setLevel(logging.INFO)
            self._log = lg
        else:
            self._f = open(os.path.join(run_dir, "train.log"), "w")
        self.epoch_count = 0

    # free text (headers, warnings, tracebacks) into printed logs
    def text(self, s, level="INFO"):
        if self._log is not None:
            getattr(self._log, level.lower())(s)
        elif self.fmt.startswith("printed"):
            self._f.write(s.rstrip("\n") + "\n"); self._f.flush()

    def params(self, **p):
        if self._mlflow is not None:
            self._mlflow.log_params(p)
        elif self.fmt == "jsonl" or self.fmt == "csv":
            with open(os.path.join(self.run_dir, "config.json"), "w") as f:
                json.dump(p, f, indent=1)
        elif self.fmt.startswith("printed"):
            if self.fmt == "printed_dict":
                self.text(str({"config": p}))
            else:
                self.text("config: " + ", ".join(f"{k}={v}" for k, v in p.items()))

    def step(self, step, epoch=None, **m):
        m = {k: (float(v) if not isinstance(v, (int, str)) else v) for k, v in m.items()}
        f = self.fmt
        if f == "jsonl":
            rec = {"step": step}
            if epoch is not None:
                rec["epoch"] = epoch
            rec.update(m); self._f.write(json.dumps(rec) + "\n"); self._f.flush()
        elif f == "csv":
            rec = {"step": step, "epoch": epoch}; rec.update(m); self.rows.append(rec)
        elif f == "mlflow":
            for k, v in m.items():
                self._mlflow.log_metric(k, v, step=step)
        elif f == "printed_logging":
            self._log.info(f"step {step} " + " ".join(f"{k}={_fmt(v)}" for k, v in m.items()))
        elif f == "printed_dict":
            rec = {"step": step}; rec.update({k: round(v, 5) if isinstance(v, float) else v for k, v in m.items()})
            self.text(str(rec))
        elif f == "printed_epochstep":
            e = (epoch or 0) + 1
            within = step - (epoch or 0) * self.S if self.S else step
            self.text(f"Epoch [{e}/{self.E}], Step [{within}/{self.S}], " +
                      ", ".join(f"{k.replace('_', ' ').title().replace(' ', '')}: {_fmt(v)}" for k, v in m.items()))
        elif f == "printed_it":
            self.text(f"it {step}: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in m.items()))
        elif f == "printed_batchline":
            e = (epoch or 0) + 1
            within = step - (epoch or 0) * self.S if self.S else step
            self.text(f"  [epoch {e} batch {within:4d}/{self.S}] " + "  ".join(f"{k} {_fmt(v)}" for k, v in m.items()))
        elif f == "printed_tqdm":
            pass  # tqdm-style writers only emit the finished bar per epoch
        elif f in ("printed_pipe", "printed_brackets", "printed_table", "printed_keras"):
            pass  # these styles print epoch summaries only
        else:
            raise ValueError(f)

    def epoch(self, epoch, **m):
        m = {k: (float(v) if not isinstance(v, (int, str)) else v) for k, v in m.items()}
        f = self.fmt
        e = epoch + 1
        el = time.time() - self.t0
        if f == "jsonl":
            rec = {"epoch": e}; rec.update(m); self._f.write(json.dumps(rec) + "\n"); self._f.flush()
        elif f == "csv":
            rec = {"epoch": e}; rec.update(m); self.rows.append(rec)
        elif f == "mlflow":
            for k, v in m.items():
                self._mlflow.log_metric(k, v, step=m.get("_step", e))
        elif f == "printed_logging":
            self._log.info(f"Epoch {e}/{self.E} done: " + ", ".join(f"{k}={_fmt(v)}" for k, v in m.items()))
        elif f == "printed_dict":
            rec = {"epoch": e}; rec.update({k: round(v, 5) if isinstance(v, float) else v for k, v in m.items()})
            self.text(str(rec))
        elif f == "printed_pipe":
            self.text(f"epoch {e} | " + " | ".join(f"{k} {_fmt(v)}" for k, v in m.items()) + f" | time {el:.1f}s")
        elif f == "printed_brackets":
            parts = []
            for k, v in m.items():
                if "acc" in k or "f1" in k or "recall" in k or "auroc" in k or "hit" in k:
                    parts.append(f"{k} {100 * v:.1f}%")
                else:
                    parts.append(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}")
            self.text(f"[{e}/{self.E}] " + " ".join(parts))
        elif f == "printed_epochstep":
            self.text(f"Epoch [{e}/{self.E}] summary: " + ", ".join(f"{k}: {_fmt(v)}" for k, v in m.items()))
        elif f == "printed_it":
            self.text(f"== epoch {e}: " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in m.items()))
        elif f == "printed_batchline":
            self.text(f"==> epoch {e} summary: " + "  ".join(f"{k} {_fmt(v)}" for k, v in m.items()))
        elif f == "printed_tqdm":
            n = self.S or 1
            rate = n / max(el / max(e, 1), 1e-6)
            per = el / max(e, 1)
            post = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in m.items())
            self.text(f"Epoch {e}/{self.E}: 100%|##########| {n}/{n} [00:{int(per):02d}<00:00, {rate:.2f}it/s, {post}]")
        elif f == "printed_table":
            keys = list(m.keys())
            w = [max(len(k), 10) for k in keys]
            line = "+-------+" + "+".join("-" * (x + 2) for x in w) + "+"
            if self.epoch_count == 0:
                self.text(line)
                self.text("| epoch |" + "|".join(f" {k:>{x}} " for k, x in zip(keys, w)) + "|")
                self.text(line)
            self.text(f"| {e:5d} |" + "|".join(f" {_fmt(m[k]):>{x}} " for k, x in zip(keys, w)) + "|")
        elif f == "printed_keras":
            n = self.S or 1
            self.text(f"Epoch {e}/{self.E}")
            self.text(f"{n}/{n} - {max(int(el / max(e,1)),1)}s - " + " - ".join(f"{k}: {v:.4f}" if isinstance(v, float) else f"{k}: {v}" for k, v in m.items()))
        else:
            raise ValueError(f)
        self.epoch_count += 1

    def close(self):
        warnings.showwarning = _ORIG_SHOWWARNING
        if self.fmt == "printed_table" and self.epoch_count:
            pass
        if self.fmt == "csv" and self.rows:
            keys = []
            for r in self.rows:
                for k in r:
                    if k not in keys:
                        keys.append(k)
            with open(os.path.join(self.run_dir, "history.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=keys)
                w.writeheader()
                for r in self.rows:
                    w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in keys})
        if self._f is not None:
            self._f.close()
        if self._mlflow is not None:
            self._mlflow.end_run()
        if self._log is not None:
            for h in list(self._log.handlers):
                h.close(); self._log.removeHandler(h)
