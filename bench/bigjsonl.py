#!/usr/bin/env python
"""Peak memory of `triage scan --json` on a very big JSONL log (target: <= 1 GB on a 5 GB file).

    python bench/bigjsonl.py [--gb 5] [--keep DIR]

Writes a JSONL training log of about `--gb` GB into a temporary folder (deleted afterwards unless
`--keep`): a row per step with ten numbers as `json.dumps` writes them (about 170 bytes), an eval
row every 1,000 steps and a bare `NaN` loss every ~100,000 rows. Then runs `triage scan --json` on
it in a fresh interpreter and reports, while it runs, the peak of

  * the scanning process's own RSS (VmHWM, exact, kept by the kernel),
  * the PSS of the whole process tree (the reader's forked workers included; a page a worker
    shares with its parent counts once),
  * plus the growth of the machine's shared memory (the workers hand their arrays back through
    unlinked files in /dev/shm, which no RSS shows once unmapped).

The sampled numbers are taken every 50 ms (bench/csvscale.py's TreePeak).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from csvscale import scan_peak  # noqa: E402


def gen_big_jsonl(path: Path, gigabytes: float, seed: int = 0) -> int:
    """Write about `gigabytes` GB of JSONL rows; return the number of lines. Numpy makes the
    numbers and f-strings the lines, 100,000 rows at a time (~1 minute per 5 GB)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    target = int(gigabytes * 1e9)
    chunk = 100_000
    written = lines = step = 0
    with open(path, "w") as fh:
        while written < target:
            s = np.arange(step + 1, step + chunk + 1)
            loss = np.round(2.5 * np.exp(-s / 1e7) + rng.random(chunk) * 0.1, 4).tolist()
            gn = np.round(rng.random(chunk) * 2, 5).tolist()
            thr = np.round(1000 + rng.random(chunk) * 50, 2).tolist()
            mem = np.round(12.5 + rng.random(chunk), 2).tolist()
            ent = np.round(rng.random(chunk), 4).tolist()
            acc = np.round(rng.random(chunk), 4).tolist()
            out = []
            for j, i in enumerate(s.tolist()):
                lr = 3e-4 * min(1.0, i / 2000)
                lv = "NaN" if i % 100_003 == 0 else loss[j]
                out.append(f'{{"step": {i}, "epoch": {i / 50000:.4f}, "loss": {lv}, "grad_norm": {gn[j]}, '
                           f'"learning_rate": {lr}, "loss_scale": 65536.0, "throughput": {thr[j]}, '
                           f'"memory": {mem[j]}, "entropy": {ent[j]}, "accuracy": {acc[j]}}}\n')
                if i % 1000 == 0:
                    out.append(f'{{"step": {i}, "epoch": {i / 50000:.4f}, "eval_loss": {loss[j] + 0.1:.4f}, '
                               f'"eval_accuracy": {acc[j]}}}\n')
            text = "".join(out)
            fh.write(text)
            written += len(text)
            lines += len(out)
            step += chunk
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gb", type=float, default=5.0, help="Size of the generated log (GB).")
    ap.add_argument("--keep", type=Path, help="Generate into (and keep) this folder; reuse a file already there.")
    args = ap.parse_args(argv)
    tmp = args.keep or Path(tempfile.mkdtemp(prefix="triage-bigjsonl-"))
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "train_log.jsonl"
    try:
        if not path.exists():
            t = time.perf_counter()
            n = gen_big_jsonl(path, args.gb)
            print(f"generated {path.stat().st_size / 1e9:.2f} GB, {n:,} lines in {time.perf_counter() - t:.0f}s")
        res = scan_peak(path)
        res["file_gb"] = round(path.stat().st_size / 1e9, 2)
        print(f"scan {res['file_gb']} GB JSONL: {res['seconds']:.0f} s, exit {res['exit']}; peak: scanning process "
              f"{res['root_hwm_mb']:.0f} MB (VmHWM), process tree {res['tree_pss_mb']:.0f} MB (PSS, {res['procs']} "
              f"processes) + /dev/shm {res['shm_growth_mb']:.0f} MB = {res['tree_plus_shm_mb']:.0f} MB")
        print(json.dumps(res))
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
