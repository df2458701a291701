"""The ways the plain-PyTorch scripts of corpus_gen4 report progress. Each writes as it goes."""
import csv
import json
import logging
import os
import time


def _f(v, nd=4):
    return f"{v:.{nd}f}" if isinstance(v, float) else str(v)


class Base:
    """step(): called every log_every optimiser steps; epoch(): once per epoch with eval numbers."""

    def __init__(self, run_dir, meta):
        self.dir = run_dir
        self.meta = meta  # epochs, steps_per_epoch, metric name
        self.t0 = time.time()

    def begin(self):
        pass

    def step(self, r):
        pass

    def epoch(self, r):
        pass

    def text(self, line):
        pass

    def close(self):
        pass


class Printed(Base):
    def __init__(self, run_dir, meta):
        super().__init__(run_dir, meta)
        self.fh = open(os.path.join(run_dir, "train.log"), "w")

    def p(self, s):
        self.fh.write(s + "\n")
        self.fh.flush()

    def text(self, line):
        self.p(line)

    def close(self):
        self.fh.close()


class Pipe(Printed):  # epoch 3 | loss 0.4312 | val_loss 0.5110 | val_acc 0.8125
    def epoch(self, r):
        parts = [f"epoch {r['epoch']}"] + [f"{k} {_f(v)}" for k, v in r.items() if k != "epoch"]
        self.p(" | ".join(parts))


class Bracket(Printed):  # [3/20] train 0.43 val 0.51 acc 81.2%
    def epoch(self, r):
        s = f"[{r['epoch']}/{self.meta['epochs']}] train {r['train_loss']:.3f} val {r['val_loss']:.3f}"
        if "val_acc" in r:
            s += f" acc {100 * r['val_acc']:.1f}%"
        if "val_mae" in r:
            s += f" mae {r['val_mae']:.3f}"
        self.p(s)


class DictLines(Printed):  # {'epoch': 3, 'loss': 0.43, ...}
    def epoch(self, r):
        d = {"epoch": r["epoch"], "loss": round(r["train_loss"], 4)}
        for k, v in r.items():
            if k not in ("epoch", "train_loss"):
                d[k] = round(v, 4) if isinstance(v, float) else v
        self.p(str(d))


class Logging(Printed):  # 2026-.. INFO ...
    def __init__(self, run_dir, meta):
        super().__init__(run_dir, meta)
        self.fh.close()
        self.log = logging.getLogger(f"train.{os.path.basename(run_dir)}")
        self.log.handlers.clear()
        self.log.propagate = False
        self.log.setLevel(logging.INFO)
        self.h = logging.FileHandler(os.path.join(run_dir, "train.log"), mode="w")
        self.h.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self.log.addHandler(self.h)

    def p(self, s):
        self.log.info(s)

    def step(self, r):
        self.log.info(f"step {r['step']} epoch {r['epoch']} loss {r['loss']:.4f} lr {r['lr']:.2e}")

    def epoch(self, r):
        rest = " ".join(f"{k}={_f(v)}" for k, v in r.items() if k not in ("epoch", "lr"))
        self.log.info(f"epoch {r['epoch']} done: {rest}")

    def text(self, line):
        self.log.warning(line) if "Error" not in line else self.log.error(line)

    def close(self):
        self.h.close()
        self.log.removeHandler(self.h)


class Batch(Printed):  # Epoch [3/20], Step [100/600], Loss: 0.4312 + summary
    def step(self, r):
        self.p(f"Epoch [{r['epoch']}/{self.meta['epochs']}], Step [{r['step_in_epoch']}/{self.meta['steps_per_epoch']}],"
               f" Loss: {r['loss']:.4f}")

    def epoch(self, r):
        s = f"Epoch [{r['epoch']}/{self.meta['epochs']}] finished: avg train loss {r['train_loss']:.4f}, val loss {r['val_loss']:.4f}"
        if "val_acc" in r:
            s += f", val acc {r['val_acc']:.4f}"
        if "val_mae" in r:
            s += f", val mae {r['val_mae']:.4f}"
        self.p(s)


class It(Printed):  # it 300: train_loss=0.43, lr=1.0e-03
    def step(self, r):
        extra = "".join(f", {k}={_f(v)}" for k, v in r.items() if k not in ("step", "epoch", "step_in_epoch", "loss", "lr"))
        self.p(f"it {r['step']}: train_loss={r['loss']:.4f}, lr={r['lr']:.1e}{extra}")

    def epoch(self, r):
        self.p(f"it {r['step']}: " + ", ".join(f"{k}={_f(v)}" for k, v in r.items() if k.startswith("val")))


class Keras(Printed):  # Epoch 3/20 \n 50/50 [====] - 1s 12ms/step - loss: ... - val_loss: ...
    def epoch(self, r):
        n = self.meta["steps_per_epoch"]
        dt = time.time() - self.t0
        self.t0 = time.time()
        self.p(f"Epoch {r['epoch']}/{self.meta['epochs']}")
        s = f"{n}/{n} [==============================] - {max(dt, 0.0):.0f}s {1000 * dt / n:.0f}ms/step - loss: {r['train_loss']:.4f}"
        if "train_acc" in r:
            s += f" - accuracy: {r['train_acc']:.4f}"
        s += f" - val_loss: {r['val_loss']:.4f}"
        if "val_acc" in r:
            s += f" - val_accuracy: {r['val_acc']:.4f}"
        if "val_mae" in r:
            s += f" - val_mae: {r['val_mae']:.4f}"
        self.p(s)


class Table(Printed):  # a rich table per epoch
    def epoch(self, r):
        from rich.console import Console
        from rich.table import Table as T
        t = T(title=f"epoch {r['epoch']}/{self.meta['epochs']}")
        keys = [k for k in r if k != "epoch"]
        for k in keys:
            t.add_column(k, justify="right")
        t.add_row(*[_f(r[k]) if not (k == "lr") else f"{r[k]:.2e}" for k in keys])
        Console(file=self.fh, width=100, color_system=None).print(t)
        self.fh.flush()


class Fairseq(Printed):  # | epoch 003 | loss 0.431 | ... and valid lines
    def step(self, r):
        self.p(f"| epoch {r['epoch']:03d}:  {r['step_in_epoch']:4d} / {self.meta['steps_per_epoch']} loss={r['loss']:.3f}, "
               f"lr={r['lr']:.3g}, num_updates={r['step']}")

    def epoch(self, r):
        self.p(f"| epoch {r['epoch']:03d} | loss {r['train_loss']:.3f} | lr {r.get('lr', 0):.3g}")
        rest = " | ".join(f"{k[4:]} {_f(v, 3)}" for k, v in r.items() if k.startswith("val_"))
        self.p(f"| epoch {r['epoch']:03d} | valid on 'valid' subset | {rest}")


class Tqdm(Printed):  # tqdm bar with postfix, written to the log file
    def begin(self):
        from tqdm import tqdm
        self.bar = None
        self._tqdm = tqdm

    def step(self, r):
        if self.bar is None or self.bar.n >= self.meta["steps_per_epoch"]:
            self._new(r["epoch"])
        self.bar.set_postfix(loss=f"{r['loss']:.4f}", lr=f"{r['lr']:.1e}", refresh=False)
        self.bar.update(self.meta.get("log_every", 1))

    def _new(self, ep):
        if self.bar is not None:
            self.bar.close()
        self.bar = self._tqdm(total=self.meta["steps_per_epoch"], desc=f"Epoch {ep}", file=self.fh, ascii=True,
                              mininterval=0, ncols=100)

    def epoch(self, r):
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        self.p(", ".join(f"{k}: {_f(v)}" for k, v in r.items()))

    def close(self):
        if getattr(self, "bar", None) is not None:
            self.bar.close()
        super().close()


class Jsonl(Base):
    def __init__(self, run_dir, meta):
        super().__init__(run_dir, meta)
        self.fh = open(os.path.join(run_dir, "metrics.jsonl"), "w")

    def w(self, d):
        self.fh.write(json.dumps(d) + "\n")
        self.fh.flush()

    def step(self, r):
        self.w({k: (round(v, 6) if isinstance(v, float) else v) for k, v in r.items() if k != "step_in_epoch"})

    def epoch(self, r):
        self.w({k: (round(v, 6) if isinstance(v, float) else v) for k, v in r.items()})

    def close(self):
        self.fh.close()


class Csv(Base):
    def __init__(self, run_dir, meta):
        super().__init__(run_dir, meta)
        self.fh = open(os.path.join(run_dir, "history.csv"), "w", newline="")
        self.w = None

    def epoch(self, r):
        if self.w is None:
            self.w = csv.DictWriter(self.fh, fieldnames=list(r))
            self.w.writeheader()
        self.w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
        self.fh.flush()

    def close(self):
        self.fh.close()


class Mlflow(Base):
    def begin(self):
        os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")  # the local file store, no server
        import mlflow
        self.m = mlflow
        mlflow.set_tracking_uri("file:" + os.path.abspath(self.dir) + "/mlruns")
        mlflow.set_experiment("gen4")
        self.run = mlflow.start_run(run_name=os.path.basename(self.dir))
        mlflow.log_params(self.meta.get("params", {}))

    def step(self, r):
        self.m.log_metric("train_loss", r["loss"], step=r["step"])
        self.m.log_metric("lr", r["lr"], step=r["step"])

    def epoch(self, r):
        for k, v in r.items():
            if k not in ("epoch", "step", "lr") and isinstance(v, float):
                self.m.log_metric(k, v, step=r["step"])
        self.m.log_metric("epoch", r["epoch"], step=r["step"])

    def close(self):
        self.m.end_run()


STYLES = {
    "printed_pipe": Pipe, "printed_bracket": Bracket, "printed_dict": DictLines, "printed_logging": Logging,
    "printed_batch": Batch, "printed_it": It, "printed_keras": Keras, "printed_table": Table,
    "printed_fairseq": Fairseq, "printed_tqdm": Tqdm, "jsonl": Jsonl, "csv": Csv, "mlflow": Mlflow,
}
