#!/usr/bin/env python
"""Speed of the log readers against reference libraries, measured in the same run.

    python bench/ingest.py [--rows 1000000] [--scalars 1000000] [--state 100000] [--repeat 3] [--keep DIR]

Generates into a temporary folder (nothing is committed):
  1. a JSONL log of `--rows` training rows (8 metrics + step/epoch, eval rows every 1,000 steps, a few
     hundred NaN/Infinity rows, about 160 MB at 1M rows) and the same file without the non-finite rows;
  2. a TensorBoard event file of `--scalars` scalars, written by tensorboard's own RecordWriter
     (one simple_value per event, as torch's SummaryWriter writes them);
  3. a trainer_state.json with `--state` log_history entries (train + eval rows, NaN grad_norms).

Then, best of `--repeat` alternating runs:
  * triage.ingest.read_run(JSONL)  vs  polars.read_ndjson(the NaN-free copy)  and  pandas.read_json(lines=True)
    (target: <= 2x polars, >= 4x faster than pandas);
  * read_run(event file)  vs  tensorboard's EventAccumulator(size_guidance 0 = keep every point)  (target >= 10x);
  * read_run(trainer_state.json)  vs  json.load + pandas.DataFrame(log_history);
  * peak memory (max RSS) of reading the JSONL in a fresh process (target <= 1 GB), workers included;
  * read_run(a printed log of `--printed` metric lines with a logging prefix and tqdm redraws)  vs
    polars.read_csv(the same values as CSV)  (target <= 3x; `--only-printed` runs just this case).
polars, pandas and tensorboard are needed here only; they are not runtime dependencies.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def gen_jsonl(path: Path, clean: Path, rows: int, seed: int = 0) -> None:
    rnd = random.Random(seed)
    nan_rows = set(rnd.sample(range(1, rows + 1), min(300, rows)))
    dumps = json.dumps
    with open(path, "w") as f, open(clean, "w") as g:
        buf, cbuf = [], []
        for i in range(1, rows + 1):
            loss = round(2.5 * math.exp(-i / (rows / 5)) + rnd.random() * 0.1, 4)
            row = {"step": i, "epoch": round(i / 50000, 4), "loss": loss, "grad_norm": round(rnd.random() * 2, 5),
                   "learning_rate": 3e-4 * min(1.0, i / 2000), "loss_scale": 65536.0,
                   "throughput": round(1000 + rnd.random() * 50, 2), "memory": round(12.5 + rnd.random(), 2),
                   "entropy": round(rnd.random(), 4), "accuracy": round(rnd.random(), 4)}
            bad = i in nan_rows
            if bad:
                row["loss"] = float("nan")
                row["grad_norm"] = float("inf") if i % 2 else float("nan")
            line = dumps(row)
            buf.append(line)
            if not bad:
                cbuf.append(line)
            if i % 1000 == 0:
                ev = dumps({"step": i, "epoch": round(i / 50000, 4), "eval_loss": round(loss + 0.1, 4),
                            "eval_accuracy": round(rnd.random(), 4)})
                buf.append(ev)
                cbuf.append(ev)
            if len(buf) >= 20000:
                f.write("\n".join(buf) + "\n")
                g.write("\n".join(cbuf) + "\n")
                buf, cbuf = [], []
        if buf:
            f.write("\n".join(buf) + "\n")
        if cbuf:
            g.write("\n".join(cbuf) + "\n")


def gen_printed(path: Path, csv: Path, lines: int, seed: int = 0) -> None:
    """A printed training log as people have them: a logging prefix (timestamp, level, file:line),
    `step N | loss X | lr Y | grad_norm Z` metric lines, and a tqdm bar redraw every 20 steps;
    plus the same values as a CSV for the reference reader."""
    rnd = random.Random(seed)
    with open(path, "w") as f, open(csv, "w") as g:
        g.write("step,loss,lr,grad_norm\n")
        buf, cbuf = [], []
        for i in range(1, lines + 1):
            if i % 20 == 0:
                buf.append(f"\r 45%|████▌     | {i}/{lines} [00:10<00:12, 45.00it/s]")
            loss = 2.5 * math.exp(-i / (lines / 5)) + rnd.random() * 0.1
            lr = 3e-4 * min(1.0, i / 2000)
            gn = rnd.random() * 2
            buf.append(f"2024-01-01 12:{i % 60:02d}:{i % 60:02d},{i % 1000:03d} INFO train.py:120 "
                       f"step {i} | loss {loss:.4f} | lr {lr:.3e} | grad_norm {gn:.3f}")
            cbuf.append(f"{i},{loss:.4f},{lr:.3e},{gn:.3f}")
            if len(buf) >= 10000:
                f.write("\n".join(buf) + "\n")
                g.write("\n".join(cbuf) + "\n")
                buf, cbuf = [], []
        if buf:
            f.write("\n".join(buf) + "\n")
            g.write("\n".join(cbuf) + "\n")


def gen_llmc(path: Path, csv: Path, lines: int, seed: int = 0) -> None:
    """An llm.c training log (`step N/T | train loss X | norm G | lr L | T ms | M% bf16 MFU | K tok/s`,
    a `val loss` line every 250 steps) of `lines` steps, and the train values as a CSV."""
    rnd = random.Random(seed)
    with open(path, "w") as f, open(csv, "w") as g:
        g.write("step,loss,norm,lr,ms,mfu,toks\n")
        buf, cbuf = [], []
        for i in range(1, lines + 1):
            loss = 3.2 + 7.8 * math.exp(-i / (lines / 8)) + rnd.random() * 0.05
            gn = 0.3 + rnd.random() * 0.2
            lr = 6e-4 * min(1.0, i / 700)
            ms = 330 + rnd.random() * 10
            buf.append(f"step {i:4d}/{lines} | train loss {loss:.6f} | norm {gn:.4f} | lr {lr:.2e} | "
                       f"{ms:.2f} ms | {45 + rnd.random():.1f}% bf16 MFU | {1584000 + rnd.random() * 5000:.0f} tok/s")
            cbuf.append(f"{i},{loss:.6f},{gn:.4f},{lr:.2e},{ms:.2f},45.0,1584000")
            if i % 250 == 0:
                buf.append(f"val loss {loss + 0.02:.6f}")
            if len(buf) >= 10000:
                f.write("\n".join(buf) + "\n")
                g.write("\n".join(cbuf) + "\n")
                buf, cbuf = [], []
        if buf:
            f.write("\n".join(buf) + "\n")
            g.write("\n".join(cbuf) + "\n")


def gen_tfevents(path: Path, scalars: int) -> None:
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.record_writer import RecordWriter

    tags = ["train/loss", "train/grad_norm", "train/learning_rate", "train/entropy"]
    with open(path, "wb") as fh:
        w = RecordWriter(fh)
        w.write(event_pb2.Event(wall_time=time.time(), file_version="brain.Event:2").SerializeToString())
        for i in range(scalars):
            step = i // len(tags)
            ev = event_pb2.Event(wall_time=1.7e9 + i * 0.01, step=step, summary=summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag=tags[i % len(tags)], simple_value=1.0 / (1 + step))]))
            w.write(ev.SerializeToString())


def gen_state(path: Path, entries: int) -> None:
    hist = []
    for i in range(1, entries + 1):
        if i % 10 == 0:
            hist.append({"epoch": i / 1000, "eval_loss": 1.0 / i, "eval_runtime": 1.5, "eval_samples_per_second": 100.0,
                         "eval_steps_per_second": 10.0, "step": i})
        else:
            hist.append({"epoch": i / 1000, "grad_norm": float("nan") if i % 997 == 0 else 1.0 / i,
                         "learning_rate": 1e-4, "loss": 2.0 / i, "step": i})
    state = {"global_step": entries, "log_history": hist, "max_steps": entries, "logging_steps": 1}
    path.write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def best_pair(fa, fb, repeat: int) -> tuple[float, float]:
    """Best times of two commands run alternately, so that a slow spell of the machine hits both."""
    ta, tb = [], []
    for _ in range(repeat):
        for fn, times in ((fa, ta), (fb, tb)):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
    return min(ta), min(tb)


def peak_memory(path: Path) -> tuple[float, float]:
    """(peak RSS of the reading process, peak RSS of its largest worker) in MB, from a fresh interpreter.

    The reader's peak is VmHWM (reset by exec; ru_maxrss is not, and would include this benchmark's own
    memory from before the exec). Workers are forked from the reader, so their peak counts pages they
    still share with it: the sum is an upper bound.
    """
    code = (
        "import resource, sys; from triage.ingest import read_run; r = read_run(sys.argv[1]); "
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')]; "
        "me = int(hwm[0].split()[1]) if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
        "print(me, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout.split()
    return int(out[0]) / 1024, int(out[1]) / 1024


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--scalars", type=int, default=1_000_000)
    ap.add_argument("--state", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", type=Path, help="Generate into (and keep) this folder; reuse files already there.")
    ap.add_argument("--skip-eventaccumulator", action="store_true", help="EventAccumulator takes minutes at 1M scalars.")
    ap.add_argument("--printed", type=int, default=1_000_000, metavar="LINES",
                    help="Metric lines of the printed-log case (0 skips it).")
    ap.add_argument("--only-printed", action="store_true", help="Run only the printed-log case.")
    ap.add_argument("--llmc", type=int, default=4_000_000, metavar="LINES",
                    help="Steps of the llm.c log scanned end to end by `--only-llmc`.")
    ap.add_argument("--only-llmc", action="store_true",
                    help="Run only the llm.c case: `triage scan` of the log (target <= 15 s at 4M lines on 2 cores).")
    args = ap.parse_args(argv)
    if args.only_printed:
        return printed_case(args.printed, args.repeat, args.keep)
    if args.only_llmc:
        return llmc_case(args.llmc, args.repeat, args.keep)

    from triage.ingest import read_run

    import importlib.util
    missing = [m for m in ("tensorboard", "polars", "pandas") if importlib.util.find_spec(m) is None]
    if missing:
        print(f"bench/ingest.py: {', '.join(missing)} not installed (the full bench writes TensorBoard event files and "
              f"times polars and pandas); install them, or run --only-printed or --only-llmc", file=sys.stderr)
        return 2

    tmp = args.keep or Path(tempfile.mkdtemp(prefix="triage-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    jl, jl_clean = tmp / "big.jsonl", tmp / "big_finite.jsonl"
    tb, st = tmp / "events.out.tfevents.bench", tmp / "trainer_state.json"
    try:
        t = time.perf_counter()
        if not jl.exists():
            gen_jsonl(jl, jl_clean, args.rows)
        if not tb.exists():
            gen_tfevents(tb, args.scalars)
        if not st.exists():
            gen_state(st, args.state)
        print(f"generated in {time.perf_counter() - t:.0f}s: jsonl {jl.stat().st_size / 1e6:.0f} MB, "
              f"tfevents {tb.stat().st_size / 1e6:.0f} MB, trainer_state {st.stat().st_size / 1e6:.0f} MB "
              f"({os.cpu_count()} CPUs)")
        self_mb, child_mb = peak_memory(jl)
        mem_line = (f"JSONL peak memory: reader {self_mb:.0f} MB, largest worker {child_mb:.0f} MB "
                    f"(sum {self_mb + child_mb:.0f} MB; target <= 1024)")
        results = {}

        # 1. JSONL
        import pandas as pd
        import polars as pl

        run = read_run(jl)
        assert run.get("loss").nan_count() > 0 and len(run.get("loss")) == args.rows
        t_ours = t_polars = t_pandas = math.inf
        for _ in range(args.repeat):  # alternate, so that machine noise hits all three alike
            t_ours = min(t_ours, best(lambda: read_run(jl), 1))
            t_polars = min(t_polars, best(lambda: pl.read_ndjson(jl_clean), 1))
        t_pandas = best(lambda: pd.read_json(jl_clean, lines=True), min(2, args.repeat))
        results["jsonl"] = (t_ours, t_polars, t_pandas)
        print(f"JSONL {args.rows:,} rows: triage {t_ours:.2f}s | polars.read_ndjson {t_polars:.2f}s "
              f"-> {t_ours / t_polars:.2f}x polars (target <= 2) | pandas.read_json {t_pandas:.2f}s -> "
              f"{t_pandas / t_ours:.1f}x faster than pandas (target >= 4)")
        print(mem_line)

        # 2. TensorBoard
        run = read_run(tb)
        assert sum(len(s) for s in run.series.values()) == args.scalars
        t_ours = best(lambda: read_run(tb), args.repeat)
        if args.skip_eventaccumulator:
            print(f"tfevents {args.scalars:,} scalars: triage {t_ours:.2f}s (EventAccumulator skipped)")
        else:
            from tensorboard.backend.event_processing import event_accumulator as ea_mod

            def ea():
                acc = ea_mod.EventAccumulator(str(tb), size_guidance={"scalars": 0, "tensors": 0})
                acc.Reload()
                return sum(len(acc.Scalars(t)) for t in acc.Tags()["scalars"])

            t = time.perf_counter()
            n = ea()
            t_ea = time.perf_counter() - t
            assert n == args.scalars, n
            print(f"tfevents {args.scalars:,} scalars: triage {t_ours:.2f}s | EventAccumulator {t_ea:.1f}s -> "
                  f"{t_ea / t_ours:.0f}x faster (target >= 10)")

        # 3. trainer_state.json
        run = read_run(st)
        t_ours = best(lambda: read_run(st), args.repeat)

        def ref():
            with open(st) as fh:
                return pd.DataFrame(json.load(fh)["log_history"])

        t_ref = best(ref, args.repeat)
        t_json = best(lambda: json.loads(st.read_text()), args.repeat)
        print(f"trainer_state.json {args.state:,} entries: triage {t_ours:.2f}s | json.load {t_json:.2f}s | "
              f"json.load + pandas.DataFrame {t_ref:.2f}s -> {t_ref / t_ours:.1f}x")
        if args.printed:
            printed_case(args.printed, args.repeat, tmp)
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


def printed_case(lines: int, repeat: int, folder: Path | None) -> int:
    """4. A printed log of `lines` metric lines vs polars.read_csv of the same values (target <= 3x)."""
    import polars as pl

    from triage.ingest import read_run

    tmp = folder or Path(tempfile.mkdtemp(prefix="triage-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    log, csv = tmp / "train.log", tmp / "train_values.csv"
    try:
        if not log.exists():
            gen_printed(log, csv, lines)
        run = read_run(log)
        assert len(run.get("loss")) == lines, len(run.get("loss"))
        t_ours = t_polars = math.inf
        for _ in range(repeat):
            t_ours = min(t_ours, best(lambda: read_run(log), 1))
            t_polars = min(t_polars, best(lambda: pl.read_csv(csv), 1))
        print(f"printed log {lines:,} lines ({log.stat().st_size / 1e6:.0f} MB): triage {t_ours:.2f}s | "
              f"polars.read_csv {t_polars:.2f}s -> {t_ours / t_polars:.1f}x polars (target <= 3)")
        return 0
    finally:
        if folder is None:
            shutil.rmtree(tmp, ignore_errors=True)


def llmc_case(lines: int, repeat: int, folder: Path | None) -> int:
    """5. `triage scan --json` of an llm.c log of `lines` steps, end to end in a fresh process, beside
    polars.read_csv of the same train values (target: <= 15 s at 4,000,000 lines on 2 cores)."""
    import polars as pl

    tmp = folder or Path(tempfile.mkdtemp(prefix="triage-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    log, csv = tmp / "llmc_train.log", tmp / "llmc_values.csv"
    cmd = [sys.executable, "-m", "triage", "scan", "--json", str(log)]
    try:
        if not log.exists():
            gen_llmc(log, csv, lines)
        out = subprocess.run(cmd, capture_output=True, text=True)
        doc = json.loads(out.stdout)
        rows = doc.get("sources", [{}])[0].get("rows")
        t_ours = t_polars = math.inf
        for _ in range(repeat):
            t_ours = min(t_ours, best(lambda: subprocess.run(cmd, capture_output=True), 1))
            t_polars = min(t_polars, best(lambda: pl.read_csv(csv), 1))
        print(f"llm.c log {lines:,} steps ({log.stat().st_size / 1e6:.0f} MB, {rows} rows read): triage scan "
              f"{t_ours:.2f}s (target <= 15) | polars.read_csv {t_polars:.2f}s -> {t_ours / t_polars:.1f}x polars")
        return 0
    finally:
        if folder is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
