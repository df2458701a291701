#!/usr/bin/env python
"""Speed of `triage scan --json` with every detector on, against references timed in the same run.

    python bench/scan.py [--rows 1000000] [--repeat 5] [--keep DIR]

1. The 1,000,000-row JSONL of bench/ingest.py (8 metrics, eval rows every 1,000 steps, a few
   hundred NaN rows): the whole command `triage scan --json FILE` (a fresh process: start-up,
   reading, detectors, ranking, JSON) against `polars.read_ndjson` reading the same file without
   its NaN rows (polars rejects bare NaN). Target: <= 2.5x.
2. A 1,000-row log: `triage scan --json` against `python -c "import typer"`. Target: <= 6x.
polars is needed here only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from ingest import best_pair, gen_jsonl  # noqa: E402  (the same generator as the reader benchmark)
from startup import triage_cmd  # noqa: E402


def run_scan(path: Path) -> dict:
    proc = subprocess.run([*triage_cmd(), "scan", "--json", str(path)], capture_output=True, text=True,
                          env={**os.environ, "NO_COLOR": "1"})
    if proc.returncode not in (0, 1):
        raise SystemExit(f"triage scan failed ({proc.returncode}): {proc.stderr[-400:]}")
    return json.loads(proc.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--keep", help="generate into this folder and keep it")
    args = ap.parse_args(argv)
    try:
        import polars as pl
    except ImportError:
        print("polars is needed for this benchmark: pip install polars", file=sys.stderr)
        return 2

    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="triage-bench-scan-"))
    tmp.mkdir(parents=True, exist_ok=True)
    big, clean = tmp / "run.jsonl", tmp / "run.clean.jsonl"
    small, small_clean = tmp / "small.jsonl", tmp / "small.clean.jsonl"
    try:
        if not big.exists():
            print(f"generating {args.rows:,} rows ...", flush=True)
            gen_jsonl(big, clean, args.rows)
        gen_jsonl(small, small_clean, 1000, seed=1)
        print(f"file: {big.stat().st_size / 1e6:.0f} MB", flush=True)

        doc = run_scan(big)  # warm the page cache and the knowledge cache
        t_scan, t_polars = best_pair(lambda: run_scan(big), lambda: pl.read_ndjson(clean), args.repeat)
        t_small, t_typer = best_pair(lambda: run_scan(small),
                                     lambda: subprocess.run([sys.executable, "-c", "import typer"], check=True),
                                     max(5, args.repeat))

        r1 = t_scan / t_polars
        r2 = t_small / t_typer
        print(f"\n1M rows: triage scan --json {t_scan:.2f} s ({len(doc['findings'])} findings, "
              f"{doc['sources'][0]['rows']:,} rows), polars.read_ndjson {t_polars:.2f} s")
        print(f"         ratio {r1:.2f}x (target <= 2.5x): {'ok' if r1 <= 2.5 else 'OVER TARGET'}")
        print(f"1k rows: triage scan --json {t_small * 1000:.0f} ms, python -c 'import typer' {t_typer * 1000:.0f} ms")
        print(f"         ratio {r2:.2f}x (target <= 6x): {'ok' if r2 <= 6 else 'OVER TARGET'}")
        return 0 if r1 <= 2.5 and r2 <= 6 else 1
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
