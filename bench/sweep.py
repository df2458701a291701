#!/usr/bin/env python
"""Speed of `triage sweep` on a generated sweep: one job, two local processes, Ray with two CPUs.

    python bench/sweep.py [--runs 10000] [--seed 0] [--keep DIR] [--skip-ray] [--per-run 200] [--slim]
    python bench/sweep.py --runs 10000 --keep DIR --rounds 6 --round-runs 500   # alternating rounds

The sweep: `--runs` run folders, 200 to 2,000 logged steps each, in four formats (JSONL with a
config.json, Lightning `metrics.csv` with hparams.yaml, HF `trainer_state.json` with config.json,
and, when the `tensorboard` package is installed, TensorBoard event files written by torch's
SummaryWriter). The config decides the fault where one is meant to show: every run with a peak
learning rate >= 3e-3 diverges (the loss falls, then grows until it is NaN); a few other runs,
picked at random and so with no config key behind them, plateau at chance level or overfit.

Reported:
* runs/s for `--jobs 1` (in process), `--jobs 2` (two worker processes) and Ray with 2 CPUs
  (a local instance, started before the clock starts), and the speed-ups over one job;
* the driver's memory: its peak resident set over the sweep, above what it held before;
* the CPU per run (measured in the worker around the per-run function), by format and per 1,000
  rows, and on `--per-run` runs of exactly 1,000 JSONL rows (target: <= 25 ms);
* the machine's load average before and after each pass (the cores may be shared), and how busy
  the workers were (their CPU over wall time): a speed-up is only fair when both passes had the cores;
  `--rounds` alternates the executors on fresh slices of the sweep so a changing load hits all alike.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

FORMATS = ("jsonl", "lightning_csv", "hf_state", "tensorboard")
LRS = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2)
DIVERGING_LR = 3e-3


# ------------------------------------------------------------------------------------ generation
def run_config(rng: np.random.Generator, index: int) -> dict:
    return {"lr": float(rng.choice(LRS)), "batch_size": int(rng.choice((16, 32, 64))),
            "optimizer": str(rng.choice(("adamw", "sgd"))), "weight_decay": float(rng.choice((0.0, 0.01, 0.1))),
            "warmup_steps": int(rng.choice((0, 50))), "seed": index}


def pick_fault(rng: np.random.Generator, config: dict, separable: bool, fault_rate: float = 0.3) -> str:
    """What goes wrong in this run. `separable`: the learning rate decides divergence, and a few runs
    plateau or overfit at random. Otherwise every fault is drawn at random, whatever the config."""
    if separable:
        if config["lr"] >= DIVERGING_LR:
            return "diverge"
        u = rng.random()
        return "plateau" if u < 0.04 else "overfit" if u < 0.08 else "healthy"
    u = rng.random()
    return "diverge" if u < fault_rate else "healthy"


def curves(rng: np.random.Generator, fault: str, n: int, config: dict) -> dict:
    """Per-step train loss, grad norm and learning rate, plus eval loss every n/10 steps."""
    s = np.arange(1, n + 1, dtype=float)
    warm = max(1, config.get("warmup_steps", 0))
    lr = config["lr"] * np.minimum(1.0, s / warm) * (0.5 * (1 + np.cos(np.pi * s / n)) * 0.9 + 0.1)
    noise = rng.normal(0.0, 0.02, n)
    loss = 2.2 * np.exp(-s / (n / 5)) + 0.35 + noise
    grad = 1.0 + 0.1 * rng.standard_normal(n)
    eval_every = max(1, n // 10)
    es = s[eval_every - 1::eval_every]
    eval_loss = 2.2 * np.exp(-es / (n / 5)) + 0.45 + rng.normal(0, 0.01, len(es))
    if fault == "diverge":
        turn = int(n * rng.uniform(0.25, 0.4))
        grow = np.exp((s[turn:] - s[turn]) / (n / 25))
        loss[turn:] = loss[turn] * grow
        grad[turn:] = grad[turn] * grow ** 1.5
        dead = int(n * rng.uniform(0.55, 0.75))
        loss[dead:] = np.nan
        grad[dead:] = np.nan
        eval_loss[es >= s[turn]] = np.nan
    elif fault == "plateau":
        loss = math.log(10) + noise
        eval_loss = math.log(10) + rng.normal(0, 0.005, len(es))
    elif fault == "overfit":
        loss = 2.2 * np.exp(-s / (n / 8)) + 0.01 + np.abs(noise) * 0.1
        eval_loss = 1.0 + 0.6 * ((es / n) - 0.3) ** 2 * 8 + rng.normal(0, 0.01, len(es))
    return {"step": s, "loss": loss, "grad_norm": grad, "lr": lr, "eval_step": es, "eval_loss": eval_loss}


def _num(x: float) -> str:
    return "NaN" if x != x else repr(float(x))


def write_jsonl(d: Path, c: dict, config: dict) -> None:
    lines = [f'{{"step": {int(st)}, "loss": {_num(lo)}, "grad_norm": {_num(g)}, "learning_rate": {_num(lr)}}}'
             for st, lo, g, lr in zip(c["step"], c["loss"], c["grad_norm"], c["lr"])]
    lines += [f'{{"step": {int(st)}, "eval_loss": {_num(v)}}}' for st, v in zip(c["eval_step"], c["eval_loss"])]
    (d / "log.jsonl").write_text("\n".join(lines) + "\n")
    (d / "config.json").write_text(json.dumps(config))


def write_lightning(d: Path, c: dict, config: dict) -> None:
    ev = dict(zip(c["eval_step"].astype(int), c["eval_loss"]))
    rows = ["epoch,step,train_loss,grad_norm,lr-AdamW,val_loss"]
    for st, lo, g, lr in zip(c["step"].astype(int), c["loss"], c["grad_norm"], c["lr"]):
        rows.append(f"0,{st},{'nan' if lo != lo else lo},{'nan' if g != g else g},{lr},")
        if st in ev:
            v = ev[st]
            rows.append(f"0,{st},,,,{'nan' if v != v else v}")
    (d / "metrics.csv").write_text("\n".join(rows) + "\n")
    (d / "hparams.yaml").write_text("".join(f"{k}: {v}\n" for k, v in config.items()))


def write_hf_state(d: Path, c: dict, config: dict) -> None:
    n = len(c["step"])
    hist = [{"epoch": round(float(st) / n, 4), "grad_norm": None if g != g else float(g), "learning_rate": float(lr),
             "loss": float(lo), "step": int(st)} for st, lo, g, lr in zip(c["step"], c["loss"], c["grad_norm"], c["lr"])]
    hist += [{"epoch": round(float(st) / n, 4), "eval_loss": float(v), "step": int(st)}
             for st, v in zip(c["eval_step"], c["eval_loss"])]
    hist.sort(key=lambda h: (h["step"], "eval_loss" in h))
    state = {"best_metric": None, "epoch": 1.0, "global_step": n, "log_history": hist, "logging_steps": 1,
             "max_steps": n, "num_train_epochs": 1, "train_batch_size": config["batch_size"]}
    # json writes NaN bare, as transformers' Trainer does
    (d / "trainer_state.json").write_text(json.dumps(state, indent=2))
    (d / "config.json").write_text(json.dumps(config))


def write_tensorboard(d: Path, c: dict, config: dict) -> None:
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(log_dir=str(d))
    for st, lo, g, lr in zip(c["step"].astype(int), c["loss"], c["grad_norm"], c["lr"]):
        w.add_scalar("train/loss", float(lo), int(st))
        w.add_scalar("train/grad_norm", float(g), int(st))
        w.add_scalar("train/learning_rate", float(lr), int(st))
    for st, v in zip(c["eval_step"].astype(int), c["eval_loss"]):
        w.add_scalar("eval/loss", float(v), int(st))
    w.close()
    (d / "config.json").write_text(json.dumps(config))


WRITERS = {"jsonl": write_jsonl, "lightning_csv": write_lightning, "hf_state": write_hf_state,
           "tensorboard": write_tensorboard}


def tensorboard_available() -> bool:
    try:
        import tensorboard  # noqa: F401
        from torch.utils.tensorboard import SummaryWriter  # noqa: F401
    except Exception:
        return False
    return True


def make_sweep(root: Path, runs: int, seed: int = 0, separable: bool = True, formats=None,
               rows=(200, 2000)) -> dict:
    """Write `runs` run folders under `root`; returns {run name: (fault, format, config)}."""
    formats = list(formats or [f for f in FORMATS if f != "tensorboard" or tensorboard_available()])
    rng = np.random.default_rng(seed)
    root.mkdir(parents=True, exist_ok=True)
    truth = {}
    for i in range(runs):
        config = run_config(rng, i)
        fault = pick_fault(rng, config, separable)
        fmt = formats[i % len(formats)]
        n = int(rng.integers(rows[0], rows[1] + 1))
        name = f"run-{i:05d}"
        d = root / name
        d.mkdir(exist_ok=True)
        WRITERS[fmt](d, curves(rng, fault, n, config), config)
        truth[name] = (fault, fmt, config)
    return truth


# ----------------------------------------------------------------------------------- measurement
class PeakRSS:
    """The process's resident set, sampled every 20 ms from /proc (Linux): peak minus baseline."""

    def __init__(self):
        self.base = self.peak = self.now()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    @staticmethod
    def now() -> int:
        try:
            with open("/proc/self/statm") as fh:
                return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            import resource

            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, self.now())

    def __enter__(self):
        self.base = self.peak = self.now()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.now())

    @property
    def grew_mb(self) -> float:
        return (self.peak - self.base) / 1e6


def summary_bytes(summary) -> int:
    """The size of what the driver keeps per run (the RunSummary objects, their strings and configs)."""
    seen: set = set()

    def size(x) -> int:
        if id(x) in seen:
            return 0
        seen.add(id(x))
        n = sys.getsizeof(x)
        if isinstance(x, dict):
            n += sum(size(k) + size(v) for k, v in x.items())
        elif isinstance(x, (list, tuple)):
            n += sum(size(v) for v in x)
        elif hasattr(x, "__slots__"):
            n += sum(size(getattr(x, a)) for a in x.__slots__)
        return n

    return size(summary.runs) + sum(size(g.runs) for g in summary.groups.values())


def one_pass(refs, label: str, **kw) -> dict:
    from triage.sweep import run_sweep

    load0 = os.getloadavg()[0]
    cpu0 = time.process_time()
    with PeakRSS() as mem:
        summary = run_sweep(refs, total=len(refs), **kw)
    driver_cpu = time.process_time() - cpu0
    load1 = os.getloadavg()[0]
    n = len(summary.runs)
    cpu = [r.cpu_ms for r in summary.runs]
    # the share of the workers' time spent scanning: below 1 when the cores were busy with other work
    busy = sum(cpu) / 1000 / (summary.elapsed_s * max(1, summary.workers))
    out = {"label": label, "runs": n, "seconds": summary.elapsed_s, "runs_per_s": n / summary.elapsed_s,
           "driver_rss_growth_mb": mem.grew_mb, "cpu_ms_median": statistics.median(cpu),
           "cpu_ms_mean": statistics.fmean(cpu), "load": (load0, load1), "busy": busy, "summary": summary,
           "driver_cpu_ms": driver_cpu * 1000 / max(1, n)}
    print(f"{label:<22} {n:>6,} runs in {summary.elapsed_s:7.1f} s = {out['runs_per_s']:6.1f} runs/s; "
          f"driver peak +{mem.grew_mb:6.1f} MB ({mem.grew_mb * 1e6 / max(1, n):,.0f} B/run; the summary itself "
          f"{summary_bytes(summary) / max(1, n):,.0f} B/run); "
          f"CPU/run median {out['cpu_ms_median']:.1f} ms, mean {out['cpu_ms_mean']:.1f} ms; "
          f"driver CPU/run {out['driver_cpu_ms']:.2f} ms; workers busy {busy:.0%}; load {load0:.2f} -> {load1:.2f}",
          flush=True)
    return out


def per_format(summary, truth: dict) -> None:
    by: dict = {}
    for r in summary.runs:
        fmt = truth[r.name][1] if r.name in truth else r.format
        by.setdefault(fmt, []).append((r.cpu_ms, r.rows))
    for fmt, xs in sorted(by.items()):
        ms = [c for c, _ in xs]
        per_k = [c / max(1, rows) * 1000 for c, rows in xs]
        print(f"  {fmt:<14} {len(xs):>6,} runs: CPU/run median {statistics.median(ms):6.1f} ms, "
              f"p90 {np.percentile(ms, 90):6.1f} ms; per 1,000 rows median {statistics.median(per_k):6.1f} ms")


def fixed_jsonl(root: Path, runs: int, seed: int) -> list:
    """`runs` JSONL runs of exactly 1,000 steps (a tenth of them diverging), scanned in process."""
    from triage.sweep import discover, run_sweep

    make_sweep(root, runs, seed=seed, formats=["jsonl"], rows=(1000, 1000))
    refs = discover([str(root)])
    summary = run_sweep(refs, total=len(refs), charts=True)
    return [r.cpu_ms for r in summary.runs], summary


def fixed_report(cpu_1k: list, s1k) -> None:
    healthy_1k = [r.cpu_ms for r in s1k.runs if r.verdict == "healthy"]
    broken_1k = [r.cpu_ms for r in s1k.runs if r.verdict == "broken"]
    print(f"1,000-row JSONL runs ({len(cpu_1k)}): CPU/run median {statistics.median(cpu_1k):.1f} ms, "
          f"p90 {np.percentile(cpu_1k, 90):.1f} ms (healthy {len(healthy_1k)}: {statistics.median(healthy_1k or [0]):.1f} ms, "
          f"broken {len(broken_1k)}: {statistics.median(broken_1k or [0]):.1f} ms); target <= 25 ms; "
          f"load {os.getloadavg()[0]:.2f}", flush=True)


def interleaved(refs: list, rounds: int, size: int, documents: bool) -> int:
    """Speed-ups measured in alternation on a shared machine: each round scans a fresh slice of runs
    with each executor in turn (Ray, 2 CPUs, started once), and the ratios are taken per round."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        one_pass(refs[:64], "Ray warm-up", executor="ray", documents=documents)
        ratios: dict = {"--jobs 2": [], "Ray 2 CPUs": []}
        for k in range(rounds):
            part = refs[(k * size) % len(refs):][:size]
            print(f"round {k + 1}: runs {(k * size) % len(refs):,} to {(k * size) % len(refs) + len(part):,}", flush=True)
            a = one_pass(part, "  --jobs 1", jobs=1, documents=documents)
            b = one_pass(part, "  --jobs 2", jobs=2, documents=documents)
            c = one_pass(part, "  Ray 2 CPUs", executor="ray", documents=documents)
            ratios["--jobs 2"].append(b["runs_per_s"] / a["runs_per_s"])
            ratios["Ray 2 CPUs"].append(c["runs_per_s"] / a["runs_per_s"])
    finally:
        ray.shutdown()
    print("\nspeed-up over --jobs 1, per round (median):")
    for label, xs in ratios.items():
        print(f"  {label:<12} {statistics.median(xs):.2f}x  (rounds: {', '.join(f'{x:.2f}' for x in xs)})")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", help="generate into this folder and keep it (reused when it exists)")
    ap.add_argument("--skip-ray", action="store_true", help="leave out the Ray pass")
    ap.add_argument("--per-run", type=int, default=200, help="runs of exactly 1,000 JSONL rows for the per-run CPU")
    ap.add_argument("--per-run-only", action="store_true",
                    help="only the CPU per run of exactly 1,000 JSONL rows (no sweep is generated)")
    ap.add_argument("--rounds", type=int, default=0,
                    help="instead of one long pass each: K rounds, each scanning the next --round-runs runs with "
                         "1 job, 2 processes and Ray (2 CPUs) in turn, so a changing background load hits all alike")
    ap.add_argument("--round-runs", type=int, default=500)
    ap.add_argument("--slim", action="store_true",
                    help="workers send back only what the summary reads (the CLI without --json), not whole documents")
    args = ap.parse_args(argv)

    from triage.sweep import discover
    from triage.sweep.work import knowledge

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="triage-bench-sweep-"))
    root = tmp / f"sweep-{args.runs}"
    try:
        if args.per_run_only:
            knowledge()
            fixed_report(*fixed_jsonl(tmp / "jsonl-1000", args.per_run, args.seed + 1))
            return 0
        t = time.perf_counter()
        if not (root / f"run-{args.runs - 1:05d}").is_dir():
            print(f"generating {args.runs:,} runs under {root} ...", flush=True)
            truth = make_sweep(root, args.runs, seed=args.seed)
            (root.parent / f"truth-{args.runs}.json").write_text(json.dumps(truth))
        truth = json.loads((root.parent / f"truth-{args.runs}.json").read_text())
        print(f"generated in {time.perf_counter() - t:.0f} s; {os.cpu_count()} CPUs; load {os.getloadavg()}", flush=True)
        size = sum(f.stat().st_size for f in root.rglob("*") if f.is_file())
        print(f"on disk: {size / 1e6:,.0f} MB, {size / args.runs / 1e3:,.0f} kB per run", flush=True)
        t = time.perf_counter()
        refs = discover([str(root)])
        print(f"discovered {len(refs):,} runs in {time.perf_counter() - t:.1f} s", flush=True)
        assert len(refs) == args.runs, f"discovered {len(refs)} of {args.runs} runs"
        knowledge()  # the knowledge base, loaded once in the driver (the workers load their own)

        if args.rounds:
            return interleaved(refs, args.rounds, args.round_runs, not args.slim)
        fixed_report(*fixed_jsonl(tmp / "jsonl-1000", args.per_run, args.seed + 1))

        docs = {"documents": not args.slim}
        print(f"workers send back {'only what the summary reads' if args.slim else 'whole scan documents (as for --json)'}")
        one = one_pass(refs, "--jobs 1 (in process)", jobs=1, **docs)
        per_format(one["summary"], truth)
        two = one_pass(refs, "--jobs 2 (processes)", jobs=2, **docs)
        results = [one, two]
        if not args.skip_ray:
            try:
                import ray
            except ImportError:
                print("Ray pass skipped: pip install 'triage[ray]'")
            else:
                ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
                try:
                    # warm the two workers (start-up and imports are not the sweep's cost)
                    one_pass(refs[:64], "Ray warm-up", executor="ray", **docs)
                    results.append(one_pass(refs, "Ray, 2 CPUs", executor="ray", **docs))
                finally:
                    ray.shutdown()
                ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
                try:
                    one_pass(refs[:32], "Ray warm-up", executor="ray", **docs)
                    ray_one = one_pass(refs, "Ray, 1 CPU", executor="ray", **docs)
                finally:
                    ray.shutdown()
                results.append(ray_one)
        base = one["runs_per_s"]
        print("\nspeed-up over --jobs 1 (wall clock; only fair on idle cores: see 'workers busy'):")
        for r in results[1:]:
            print(f"  {r['label']:<22} {r['runs_per_s'] / base:.2f}x")
        # On idle cores the wall time of N workers is their CPU per run / N plus what the driver does
        # per run (serial); from CPU time alone, which contention does not stretch much:
        print("speed-up on idle cores, from CPU time (N * worker CPU/run at 1 job / worker CPU/run at N, "
              "capped by the driver's CPU/run):")
        for r in results[1:]:
            n = r["summary"].workers
            bound = n * one["cpu_ms_mean"] / r["cpu_ms_mean"]
            driver_cap = one["cpu_ms_mean"] / max(r["driver_cpu_ms"], 1e-9)
            print(f"  {r['label']:<22} {min(bound, driver_cap):.2f}x (workers {bound:.2f}x, driver cap {driver_cap:.0f}x)")
        if not args.skip_ray and len(results) == 4:
            print(f"  Ray 2 CPUs over Ray 1 CPU: {results[2]['runs_per_s'] / results[3]['runs_per_s']:.2f}x")
        s = one["summary"]
        c = s.counts
        print(f"\nverdicts: {c['healthy']:,} healthy, {c['broken']:,} broken, {c['unreadable']:,} unreadable; "
              f"groups: {', '.join(f'{g.key} {len(g.runs)}' for g in s.ordered_groups())}")
        for sep in s.separating:
            for sentence in sep.sentences():
                print(f"  {sep.group}: {sentence}")
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
