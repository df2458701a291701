"""Start-up benchmark: `triage --help` and `triage explain O9` against `python -c "import typer"`.

Every command is timed in this same run (median of N fresh processes), so the ratios hold
on any machine. Target: both ratios <= 3.

    python bench/startup.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def triage_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("triage")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("triage")
    return [found] if found else [sys.executable, "-m", "triage"]


def median_time(cmd: list[str], runs: int) -> float:
    times = []
    env = {**os.environ, "NO_COLOR": "1"}
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        times.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {proc.stderr.decode()[-300:]}")
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    triage = triage_cmd()
    subprocess.run([*triage, "explain", "O9"], stdout=subprocess.DEVNULL, check=False)  # warm the KB cache
    cases = {
        'python -c "import typer"': [sys.executable, "-c", "import typer"],
        "triage --help": [*triage, "--help"],
        "triage explain O9": [*triage, "explain", "O9"],
    }
    results = {name: median_time(cmd, args.runs) for name, cmd in cases.items()}
    ref = results['python -c "import typer"']
    print(f"{'command':28} {'median':>9} {'ratio':>7}")
    for name, t in results.items():
        print(f"{name:28} {t * 1000:7.1f}ms {t / ref:7.2f}x")
    worst = max(results["triage --help"], results["triage explain O9"]) / ref
    print(f"\nworst ratio {worst:.2f}x (target <= 3.00x): {'ok' if worst <= 3 else 'OVER TARGET'}")
    sys.exit(0 if worst <= 3 else 1)


if __name__ == "__main__":
    main()
