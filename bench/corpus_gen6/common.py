"""Synthetic data and the everyday log writers used by the corpus_gen6 training scripts."""
import json, logging, math, time, csv, os
import numpy as np
import torch

# ----------------------------------------------------------------------------- data

def draw_shapes(n, rng, size=16, noise=0.3, min_r=2, max_r=5):
    """Circle / square / triangle / cross drawn at random places. Returns images, masks, class ids, boxes (xyxy in [0,1])."""
    X = np.zeros((n, 1, size, size), np.float32)
    M = np.zeros((n, 1, size, size), np.float32)
    y = rng.integers(0, 4, n)
    B = np.zeros((n, 4), np.float32)
    yy, xx = np.mgrid[0:size, 0:size]
    for i in range(n):
        r = rng.integers(min_r, max_r + 1)
        cx, cy = rng.integers(r, size - r, 2)
        dx, dy = xx - cx, yy - cy
        c = y[i]
        if c == 0:
            m = dx ** 2 + dy ** 2 <= r * r
        elif c == 1:
            m = (np.abs(dx) <= r - 1) & (np.abs(dy) <= r - 1)
        elif c == 2:
            m = (dy >= -r) & (dy <= r) & (np.abs(dx) <= (dy + r) / 2.0)
        else:
            m = ((np.abs(dx) <= 0) & (np.abs(dy) <= r)) | ((np.abs(dy) <= 0) & (np.abs(dx) <= r))
        M[i, 0] = m
        ys, xs = np.nonzero(m)
        B[i] = [xs.min() / size, ys.min() / size, (xs.max() + 1) / size, (ys.max() + 1) / size]
    X = M + noise * rng.standard_normal(X.shape).astype(np.float32)
    return torch.tensor(X), torch.tensor(M), torch.tensor(y), torch.tensor(B)


def blobs(n, rng, d=16, k=4, sep=2.0, noise=1.0, centers=None):
    if centers is None:
        centers = rng.standard_normal((k, d)) * sep
    y = rng.integers(0, k, n)
    X = centers[y] + noise * rng.standard_normal((n, d))
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y), centers


def series(T, rng, noise=0.15):
    t = np.arange(T)
    s = (np.sin(2 * np.pi * t / 50) + 0.5 * np.sin(2 * np.pi * t / 17 + 1.0)
         + 0.3 * np.sin(2 * np.pi * t / 211))
    ar = np.zeros(T)
    e = rng.standard_normal(T) * noise
    for i in range(1, T):
        ar[i] = 0.8 * ar[i - 1] + e[i]
    return (s + ar).astype(np.float32)


ADJ = "big small red quiet old young green happy sad fast slow bright dark".split()
NOUN = "cat dog bird fish tree house river car child teacher garden road".split()
VERB = "sees likes follows finds watches paints hears meets".split()
ADV = "today again slowly often quickly later".split()


def sentences(n, rng):
    out = []
    for _ in range(n):
        s = f"the {rng.choice(ADJ)} {rng.choice(NOUN)} {rng.choice(VERB)} the {rng.choice(ADJ)} {rng.choice(NOUN)}"
        if rng.random() < 0.5:
            s += " " + rng.choice(ADV)
        out.append(s + ".")
    return out


# ----------------------------------------------------------------------------- log writers

def fv(v):
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    v = float(v)
    if v != v or math.isinf(v):
        return str(v)
    if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5):
        return f"{v:.3e}"
    return f"{v:.4f}"


class Log:
    """Writes what a training script of the given style prints or stores.

    fmt: printed_pipe | printed_logging | printed_bracket | printed_dict | printed_tqdm | printed_batch |
         printed_it | printed_table | printed_keras | jsonl | csv | mlflow
    """

    def __init__(self, run_dir, fmt, name="run"):
        self.d, self.fmt, self.name = str(run_dir), fmt, name
        self.t0 = time.time()
        self.tep = time.time()
        self.f = None
        self.table_cols = None
        if fmt.startswith("printed"):
            self.f = open(os.path.join(self.d, "train.log"), "w", buffering=1)
        if fmt == "printed_logging":
            self.lg = logging.getLogger(name)
            self.lg.handlers.clear()
            self.lg.propagate = False
            self.lg.setLevel(logging.INFO)
            h = logging.StreamHandler(self.f)
            h.setFormatter(logging.Formatter("%(asctime)s - %(name)s - %(levelname)s - %(message)s"))
            self.lg.addHandler(h)
        elif fmt == "jsonl":
            self.f = open(os.path.join(self.d, "metrics.jsonl"), "w", buffering=1)
        elif fmt == "csv":
            self.f = open(os.path.join(self.d, "history.csv"), "w", newline="", buffering=1)
            self.w = None
        elif fmt == "mlflow":
            import mlflow
            self.mlflow = mlflow
            mlflow.set_tracking_uri("file:" + os.path.join(self.d, "mlruns"))
            mlflow.set_experiment(name)
            mlflow.start_run(run_name=name)

    def params(self, **p):
        if self.fmt == "mlflow":
            self.mlflow.log_params({k: str(v) for k, v in p.items()})
        elif self.fmt == "printed_logging":
            self.lg.info("config: " + ", ".join(f"{k}={v}" for k, v in p.items()))
        elif self.fmt in ("printed_dict",):
            self.f.write(repr(p) + "\n")
        elif self.fmt.startswith("printed") and self.fmt not in ("printed_keras", "printed_tqdm"):
            self.f.write("config: " + json.dumps(p, default=str) + "\n")

    def step(self, step, ep, i, n, E, **m):
        fmt = self.fmt
        if fmt == "printed_pipe":
            self.f.write(f"step {step} | " + " | ".join(f"{k} {fv(v)}" for k, v in m.items()) + "\n")
        elif fmt == "printed_logging":
            self.lg.info(f"epoch {ep} step {step} " + " ".join(f"{k}={fv(v)}" for k, v in m.items()))
        elif fmt == "printed_dict":
            r = {"step": step, "epoch": round(ep - 1 + (i + 1) / n, 2)}
            r.update({k: round(float(v), 6) for k, v in m.items()})
            self.f.write(repr(r) + "\n")
        elif fmt == "printed_tqdm":
            el = time.time() - self.tep
            pct = int(100 * (i + 1) / n)
            bar = "█" * (pct // 10) + " " * (10 - pct // 10)
            rate = (i + 1) / max(el, 1e-6)
            post = ", ".join(f"{k}={float(v):.3g}" for k, v in m.items())
            self.f.write(f"Epoch {ep}/{E}: {pct:3d}%|{bar}| {i + 1}/{n} [00:{int(el):02d}<00:{int((n - i - 1) / rate):02d}, {rate:.2f}it/s, {post}]\n")
        elif fmt == "printed_batch":
            parts = ", ".join(f"{k.replace('_', ' ').title()}: {fv(v)}" for k, v in m.items())
            self.f.write(f"Epoch [{ep}/{E}], Step [{i + 1}/{n}], {parts}\n")
        elif fmt == "printed_it":
            self.f.write(f"it {step}: " + ", ".join(f"{k}={float(v):.4g}" if k != "lr" else f"lr={float(v):.1e}" for k, v in m.items()) + "\n")
        elif fmt == "jsonl":
            r = {"step": step, "epoch": ep, "time": round(time.time() - self.t0, 3)}
            r.update({k: float(v) for k, v in m.items()})
            self.f.write(json.dumps(r) + "\n")
        elif fmt == "mlflow":
            self.mlflow.log_metrics({k: float(v) for k, v in m.items()}, step=step)
        # printed_bracket, printed_table, printed_keras, csv: epoch lines only

    def epoch(self, ep, E, step=None, n=None, **m):
        fmt = self.fmt
        el = time.time() - self.tep
        if fmt == "printed_pipe":
            self.f.write(f"epoch {ep} | " + " | ".join(f"{k} {fv(v)}" for k, v in m.items()) + "\n")
        elif fmt == "printed_logging":
            self.lg.info(f"Epoch {ep}/{E} done in {el:.1f}s: " + ", ".join(f"{k}={fv(v)}" for k, v in m.items()))
        elif fmt == "printed_bracket":
            parts = []
            for k, v in m.items():
                if k in ("loss", "train_loss"):
                    parts.append(f"train {float(v):.4f}")
                elif k == "val_loss":
                    parts.append(f"val {float(v):.4f}")
                elif "acc" in k:
                    parts.append(f"{k.replace('val_', '')} {100 * float(v):.1f}%")
                else:
                    parts.append(f"{k} {fv(v)}")
            self.f.write(f"[{ep}/{E}] " + " ".join(parts) + "\n")
        elif fmt == "printed_dict":
            r = {"epoch": ep}
            r.update({k: round(float(v), 6) for k, v in m.items()})
            self.f.write(repr(r) + "\n")
        elif fmt == "printed_tqdm":
            n = n or 1
            rate = n / max(el, 1e-6)
            post = ", ".join(f"{k}={float(v):.3g}" for k, v in m.items())
            self.f.write(f"Epoch {ep}/{E}: 100%|██████████| {n}/{n} [00:{int(el):02d}<00:00, {rate:.2f}it/s, {post}]\n")
        elif fmt == "printed_batch":
            parts = ", ".join(f"{k.replace('_', ' ').title()}: {fv(v)}" for k, v in m.items())
            self.f.write(f"Epoch [{ep}/{E}] summary, {parts}\n")
        elif fmt == "printed_it":
            self.f.write(f"eval @ it {step} (epoch {ep}): " + ", ".join(f"{k}={float(v):.4g}" for k, v in m.items()) + "\n")
        elif fmt == "printed_table":
            cols = ["epoch"] + list(m.keys())
            vals = [str(ep)] + [fv(v) for v in m.values()]
            w = [max(len(c), len(v)) + 2 for c, v in zip(cols, vals)]
            sep = "+" + "+".join("-" * x for x in w) + "+"
            self.f.write(sep + "\n|" + "|".join(c.center(x) for c, x in zip(cols, w)) + "|\n" + sep + "\n|"
                         + "|".join(v.center(x) for v, x in zip(vals, w)) + "|\n" + sep + "\n")
        elif fmt == "printed_keras":
            n = n or 1
            ms = int(1000 * el / n)
            parts = " - ".join(f"{k}: {float(v):.4f}" for k, v in m.items())
            self.f.write(f"Epoch {ep}/{E}\n{n}/{n} - {max(int(el), 0)}s - {ms}ms/step - {parts}\n")
        elif fmt == "jsonl":
            r = {"epoch": ep, "step": step, "time": round(time.time() - self.t0, 3)}
            r.update({k: float(v) for k, v in m.items()})
            self.f.write(json.dumps(r) + "\n")
        elif fmt == "csv":
            r = {"epoch": ep}
            r.update({k: f"{float(v):.6g}" for k, v in m.items()})
            if self.w is None:
                self.w = csv.DictWriter(self.f, fieldnames=list(r.keys()))
                self.w.writeheader()
            self.w.writerow(r)
        elif fmt == "mlflow":
            self.mlflow.log_metrics({k: float(v) for k, v in m.items()}, step=step if step is not None else ep)
        self.tep = time.time()

    def text(self, t):
        if self.fmt.startswith("printed"):
            self.f.write(t if t.endswith("\n") else t + "\n")
        else:
            with open(os.path.join(self.d, "stderr.txt"), "a") as g:
                g.write(t)

    def close(self, failed=False):
        if self.fmt == "mlflow":
            self.mlflow.end_run(status="FAILED" if failed else "FINISHED")
        if self.f is not None:
            self.f.close()
            self.f = None
