#!/usr/bin/env python
"""Regenerate tests/fixtures/logs/ with the real libraries, on CPU, in a minute or two.

Each fixture is written by the library that writes that format in the wild, so the readers are
tested on real bytes, not on what we think the bytes look like:

  hf/           transformers Trainer on a tiny GPT-2 built from a config (no download): trainer_state.json,
                stdout capture (dict lines), TensorBoard events (HF's TensorBoardCallback)
  tensorboard/  torch SummaryWriter: simple_value scalars, new_style (tensor float_val) scalars, add_scalars
                sub-runs, a histogram and text to skip
  lightning/    lightning CSVLogger (sparse rows, _step/_epoch forks) and TensorBoardLogger
  sb3/          stable-baselines3 PPO on CartPole: progress.csv, monitor.csv, stdout tables
  wandb/        wandb offline run (.wandb transaction log), when wandb is installed
  mlflow/       mlflow file store (mlruns/) and SQLite store, when mlflow is installed
  synthetic/    small hand-written files for formats whose library is too heavy to install here
                (Keras stdout/CSV, Megatron, nanoGPT, torchtune, verl, DeepSpeed overflow lines, W&B CSV
                export, Ultralytics results.csv); their shapes follow shared/reference/log-formats.md

Usage: python scripts/make_fixtures.py [--only NAME ...]
Missing libraries are reported and skipped; nothing here runs in the tests.
Install what it uses with: pip install torch==2.13.0 transformers accelerate tensorboard lightning stable-baselines3
(optional: wandb mlflow-skinny)
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import math
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "fixtures" / "logs"


def _clean(d: Path) -> Path:
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    return d


# --------------------------------------------------------------------------------------- HF Trainer
def make_hf() -> None:
    import torch
    from torch.utils.data import Dataset
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

    out = _clean(OUT / "hf")
    torch.manual_seed(0)

    class Toy(Dataset):
        def __init__(self, n: int, seed: int):
            g = torch.Generator().manual_seed(seed)
            self.x = torch.randint(0, 64, (n, 16), generator=g)

        def __len__(self):
            return len(self.x)

        def __getitem__(self, i):
            return {"input_ids": self.x[i], "labels": self.x[i]}

    model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=16, n_embd=16, n_layer=1, n_head=2,
                                       bos_token_id=0, eos_token_id=0))
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TENSORBOARD_LOGGING_DIR"] = str(Path(tmp) / "runs")  # transformers >= 5
        kw = dict(
            output_dir=tmp, max_steps=40, per_device_train_batch_size=4, logging_steps=5, eval_strategy="steps",
            eval_steps=10, save_strategy="no", report_to=["tensorboard"],
            learning_rate=5e-3, warmup_steps=5, disable_tqdm=True, use_cpu=True, seed=0,
        )
        try:
            args = TrainingArguments(**kw)
        except TypeError:  # transformers 4.x spells some of these differently
            kw["evaluation_strategy"] = kw.pop("eval_strategy")
            kw["logging_dir"] = os.environ["TENSORBOARD_LOGGING_DIR"]
            args = TrainingArguments(**kw)
        trainer = Trainer(model=model, args=args, train_dataset=Toy(160, 1),
                          eval_dataset={"a": Toy(16, 2), "b": Toy(16, 3)})
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            trainer.train()
        trainer.save_state()
        shutil.copy(Path(tmp) / "trainer_state.json", out / "trainer_state.json")
        (out / "stdout.log").write_text(buf.getvalue())
        events = sorted(Path(tmp, "runs").rglob("events.out.tfevents.*"))
        if events:
            shutil.copy(events[0], out / "events.out.tfevents.hf")
    # a resumed run: the log_history that resume_from_checkpoint leaves when a run that had logged up to
    # step 35 crashed and was restarted from checkpoint-10 (entries after step 10 are logged again)
    state = json.loads((out / "trainer_state.json").read_text())
    hist = state["log_history"]
    resumed = [r for r in hist if r.get("step", 0) <= 35 and "train_runtime" not in r]
    resumed += [dict(r) for r in hist if 10 < r.get("step", 0)]
    state["log_history"] = resumed
    (out / "trainer_state_resumed.json").write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    # the NaN case: HF writes bare NaN/Infinity (json.dumps default) and hides NaN losses (nan_inf_filter)
    state = json.loads((out / "trainer_state.json").read_text())
    for r in state["log_history"]:
        if "grad_norm" in r and r["step"] >= 25:
            r["grad_norm"] = float("nan") if r["step"] % 10 else float("inf")
    (out / "trainer_state_nan.json").write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")


# --------------------------------------------------------------------------------------- TensorBoard
def make_tensorboard() -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    out = _clean(OUT / "tensorboard")
    run = out / "run"
    w = SummaryWriter(str(run))
    for step in range(0, 60):
        loss = 2.0 * math.exp(-step / 20) + 0.01 * random.Random(step).random()
        w.add_scalar("train/loss", loss, step)
        w.add_scalar("train/learning_rate", 1e-3 * min(1, (step + 1) / 10), step)
        w.add_scalar("train/grad_norm", float("nan") if step == 41 else 1.0 + step / 100, step)
        if step % 10 == 0:
            w.add_scalar("eval/loss", loss + 0.1, step)
            w.add_scalar("eval/accuracy", 0.5 + step / 200, step, new_style=True)
            w.add_scalars("reward", {"chosen": -1.0 + step / 60, "rejected": -1.5}, step)
            w.add_histogram("weights", torch.randn(100), step)
            w.add_text("note", f"step {step}", step)
    w.close()
    # a live run: the same file cut in the middle of its last record
    ev = sorted(run.glob("events.out.tfevents.*"))[0]
    data = ev.read_bytes()
    (out / "events.out.tfevents.truncated").write_bytes(data[: len(data) - 7])


# --------------------------------------------------------------------------------------- Lightning
def make_lightning() -> None:
    import lightning as L
    import torch
    from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger

    out = _clean(OUT / "lightning")
    torch.manual_seed(0)

    class M(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(8, 1)

        def training_step(self, batch, i):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.net(x), y)
            self.log("train_loss", loss, on_step=True, on_epoch=True)
            return loss

        def validation_step(self, batch, i):
            x, y = batch
            self.log("val_loss", torch.nn.functional.mse_loss(self.net(x), y))

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.05)

    x = torch.randn(256, 8)
    y = x.sum(1, keepdim=True)
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16)
    tmp = Path(tempfile.mkdtemp())
    try:
        trainer = L.Trainer(max_epochs=3, log_every_n_steps=5, logger=[CSVLogger(tmp, name="csv"),
                            TensorBoardLogger(tmp, name="tb")], enable_checkpointing=False,
                            enable_progress_bar=False, enable_model_summary=False, accelerator="cpu")
        trainer.fit(M(), dl, dl)
        shutil.copytree(tmp / "csv" / "version_0", out / "csv" / "version_0")
        shutil.copytree(tmp / "tb" / "version_0", out / "tb" / "version_0")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --------------------------------------------------------------------------------------- SB3
def make_sb3() -> None:
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.logger import configure

    out = _clean(OUT / "sb3")
    env = make_vec_env("CartPole-v1", n_envs=1, seed=0, monitor_dir=str(out))
    model = PPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=2, seed=0, verbose=0)
    model.set_logger(configure(str(out), ["csv", "stdout", "log"]))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.learn(total_timesteps=1024)
    (out / "stdout.log").write_text(buf.getvalue())
    for extra in out.glob("log.txt"):
        extra.unlink()


# --------------------------------------------------------------------------------------- W&B
def make_wandb() -> None:
    import wandb

    out = _clean(OUT / "wandb")
    tmp = Path(tempfile.mkdtemp())
    os.environ["WANDB_MODE"] = "offline"
    os.environ["WANDB_SILENT"] = "true"
    try:
        run = wandb.init(project="triage-fixture", dir=str(tmp), config={"lr": 1e-3})
        for step in range(30):
            run.log({"train/loss": 2.0 / (step + 1), "train/learning_rate": 1e-3,
                     "train/grad_norm": float("nan") if step == 20 else 1.0, "train/global_step": step * 10})
        run.finish()
        if hasattr(wandb, "teardown"):
            wandb.teardown()  # wandb-core flushes the transaction log asynchronously
        src = next(tmp.glob("wandb/offline-run-*"))
        import time

        for _ in range(50):  # wait until the file stops growing
            sizes = [f.stat().st_size for f in src.glob("*.wandb")]
            time.sleep(0.2)
            if sizes == [f.stat().st_size for f in src.glob("*.wandb")] and all(x > 7 for x in sizes):
                break
        dst = out / src.name
        dst.mkdir()
        for f in src.glob("*.wandb"):
            shutil.copy(f, dst / f.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --------------------------------------------------------------------------------------- MLflow
def make_mlflow() -> None:
    import mlflow

    out = _clean(OUT / "mlflow")
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"  # mlflow >= 3.x refuses the file store otherwise
    # the SQLite store needs sqlalchemy/alembic (not in mlflow-skinny): tests build one with sqlite3
    for uri, name in ((f"file://{out / 'mlruns'}", "file"),):
        mlflow.set_tracking_uri(uri)
        with mlflow.start_run(run_name=f"fixture-{name}"):
            for step in range(20):
                mlflow.log_metric("loss", 1.0 / (step + 1), step=step)
                mlflow.log_metric("eval_loss", float("nan") if step == 15 else 1.2 / (step + 1), step=step)
                mlflow.log_metric("rewards/margins", step / 20, step=step)


# --------------------------------------------------------------------------------------- synthetic
def make_synthetic() -> None:
    """Formats whose libraries are too big to install here, in the shapes the reference documents."""
    out = _clean(OUT / "synthetic")
    r = random.Random(0)
    # Keras fit() stdout with \r/\b progress-bar redraws (TF2 style), and its CSVLogger file
    lines = []
    csv_rows = ["epoch,accuracy,loss,val_accuracy,val_loss"]
    for ep in range(1, 6):
        lines.append(f"Epoch {ep}/5")
        redraw = []
        for b in range(1, 11):
            loss = 1.0 / ep + 0.1 / b
            redraw.append(f"{b:2d}/10 [{'=' * b}{'.' * (10 - b)}] - ETA: 0s - loss: {loss:.4f} - accuracy: {0.5 + ep / 20:.4f}")
        loss = 1.0 / ep
        final = (f"10/10 [==========] - 1s 3ms/step - loss: {loss:.4f} - accuracy: {0.5 + ep / 20:.4f} - "
                 f"val_loss: {loss + 0.05:.4f} - val_accuracy: {0.5 + ep / 25:.4f}")
        lines.append("\r".join(redraw + [final]))
        csv_rows.append(f"{ep - 1},{0.5 + ep / 20},{loss},{0.5 + ep / 25},{loss + 0.05}")
    (out / "keras_fit.log").write_text("\n".join(lines) + "\n")
    (out / "keras_training.csv").write_text("\n".join(csv_rows) + "\n")
    # Megatron-LM stdout with fp16 loss-scale halving, skipped iterations and a validation line
    lines = []
    scale = 131072.0
    for it in range(10, 210, 10):
        skipped = 1 if it <= 30 else 0
        if skipped:
            scale /= 2
        lm = 11.0 * math.exp(-it / 150)
        lines.append(f" [2025-01-01 00:00:{it % 60:02d}] iteration {it:8d}/    1000 | consumed samples: {it * 32:12d} | "
                     f"elapsed time per iteration (ms): 812.5 | learning rate: {1.5e-4 * min(1, it / 50):.6E} | "
                     f"global batch size:    32 | lm loss: {lm:.6E} | loss scale: {scale:.1f} | grad norm: {1.5 + r.random():.3f} | "
                     f"number of skipped iterations: {skipped:3d} | number of nan iterations:   0 |")
        if it % 100 == 0:
            lines.append(f" validation loss at iteration {it} | lm loss value: {lm + 0.2:.6E} | lm loss PPL: {math.exp(lm + 0.2):.6E} |")
    (out / "megatron.log").write_text("\n".join(lines) + "\n")
    # DeepSpeed overflow lines among HF 4.x dict lines (bare nan), with a tqdm bar, then a traceback
    lines = []
    for i, step in enumerate(range(10, 60, 10)):
        lines.append(f"[2025-01-01 00:00:0{i},000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! "
                     f"Rank 0 Skipping step. Attempted loss scale: {65536 >> i}, reducing to {65536 >> (i + 1)}")
        loss = "nan" if step >= 40 else f"{2.0 / i if i else 2.5:.4f}"
        lines.append(f" {step * 2}%|██        | {step}/50 [00:{step:02d}<00:10,  4.00it/s]"
                     f"{{'loss': {loss}, 'grad_norm': nan, 'learning_rate': 2e-05, 'epoch': {step / 50:.2f}}}")
    lines += ["Traceback (most recent call last):", '  File "train.py", line 10, in <module>', "    trainer.train()",
              "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"]
    (out / "deepspeed_hf4.log").write_text("\n".join(lines) + "\n")
    # transformers 5 stdout: every float is a string; axolotl memory keys
    lines = []
    for step in range(1, 6):
        lines.append(str({"loss": f"{2.0 / step:.4g}", "grad_norm": f"{1.0 + step:.4g}", "learning_rate": "2e-05",
                          "ppl": f"{math.exp(2.0 / step):.4g}", "memory/max_allocated (GiB)": "2.98",
                          "tokens/total": 512 * step, "epoch": f"{step / 5:.4g}"}))
    lines.append(str({"eval_loss": "0.9", "eval_runtime": "1.2", "epoch": "1"}))
    lines.append(str({"train_runtime": "158.8", "train_loss": "1.567", "epoch": "1"}))
    (out / "axolotl_hf5.log").write_text("\n".join(lines) + "\n")
    # nanoGPT, torchtune, verl console
    (out / "nanogpt.log").write_text("".join(
        f"iter {i}: loss {4.0 * math.exp(-i / 100):.4f}, time 120.50ms, mfu {'-100.00' if i < 5 else '31.20'}%\n"
        + (f"step {i}: train loss {4.0 * math.exp(-i / 100):.4f}, val loss {4.1 * math.exp(-i / 100):.4f}\n" if i % 50 == 0 else "")
        for i in range(0, 201, 10)))
    (out / "torchtune_log_1700000000.txt").write_text("".join(
        f"Step {i} | loss:{2.0 / i:.4f} lr:2e-05 tokens_per_second_per_gpu:1500.0 grad_norm:{1.0 / i:.4f} \n"
        for i in range(1, 21)))
    (out / "verl_console.log").write_text("".join(
        f"step:{i} - actor/pg_loss:{0.01 * i:.3f} - actor/entropy:{1.0 / i:.3f} - critic/score/mean:{i / 20:.3f} - "
        f"response_length/mean:{100 + i}.0 - response_length/clip_ratio:{min(1, i / 20):.2f}\n" for i in range(1, 21)))
    # W&B UI panel export (two runs, bucketed with __MIN/__MAX)
    rows = ['"Step","run-a - train/loss","run-a - train/loss__MIN","run-a - train/loss__MAX",'
            '"run-b - train/loss","run-b - train/loss__MIN","run-b - train/loss__MAX"']
    for s in range(0, 100, 10):
        rows.append(f"{s},{1 / (s + 1):.4f},{1 / (s + 2):.4f},{1 / (s + 1):.4f},{2 / (s + 1):.4f},,")
    (out / "wandb_export_2025-01-01T00_00_00.csv").write_text("\n".join(rows) + "\n")
    # Ultralytics results.csv (new, unpadded)
    hdr = ("epoch,time,train/box_loss,train/cls_loss,train/dfl_loss,metrics/precision(B),metrics/recall(B),"
           "metrics/mAP50(B),metrics/mAP50-95(B),val/box_loss,val/cls_loss,val/dfl_loss,lr/pg0,lr/pg1,lr/pg2")
    rows = [hdr] + [f"{e},{e * 9.9:.2f},{1.2 - e / 30:.4f},{1.1 - e / 30:.4f},{1.15 - e / 40:.4f},0.6,0.7,"
                    f"{0.5 + e / 50:.4f},{0.3 + e / 60:.4f},{1.3 - e / 50:.4f},{1.3 + (e - 8) / 40 if e > 8 else 1.3:.4f},"
                    f"1.2,{3e-5 * e},{3e-5 * e},{3e-5 * e}" for e in range(1, 16)]
    (out / "results.csv").write_text("\n".join(rows) + "\n")
    # JSONL with every mess the reader must survive, gzip copy
    msgs = ['\ufeff{"step": 1, "loss": 2.5, "grad_norm": 1.0}', '{"step": 2, "loss": NaN, "grad_norm": Infinity}',
            "", '{"step": 3, "loss": "2.1", "grad_norm": "nan"}', "[1, 2, 3]", "not json at all",
            '{"step": 4, "loss": 2.0, "grad_norm": -Infinity, "note": "a NaN inside a string"}',
            '{"step": 3, "loss": 2.05, "grad_norm": 1.1}', '{"step": 5, "loss": null, "eval_loss": 2.2}',
            '{"step": 6, "loss": 1.9, "grad_n']
    text = "\r\n".join(msgs)
    (out / "messy.jsonl").write_bytes(text.encode("utf-8"))
    with gzip.open(out / "messy.jsonl.gz", "wb") as fh:
        fh.write(text.encode("utf-8"))


MAKERS = {"hf": make_hf, "tensorboard": make_tensorboard, "lightning": make_lightning, "sb3": make_sb3,
          "wandb": make_wandb, "mlflow": make_mlflow, "synthetic": make_synthetic}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", choices=sorted(MAKERS), help="Only these groups.")
    args = ap.parse_args(argv)
    random.seed(0)
    failed = 0
    for name in args.only or list(MAKERS):
        try:
            MAKERS[name]()
            print(f"made {name}")
        except ImportError as exc:
            print(f"skipped {name}: {exc} (install the library to regenerate it)", file=sys.stderr)
        except Exception as exc:  # report and go on with the others
            failed += 1
            print(f"FAILED {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
    total = sum(f.stat().st_size for f in OUT.rglob("*") if f.is_file())
    print(f"{OUT.relative_to(ROOT)}: {total / 1024:.0f} KiB")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
