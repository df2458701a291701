#!/usr/bin/env python
"""Speed and peak memory of the CSV reader on a big Lightning-style metrics.csv, beside polars.

    python bench/csvscale.py [--mb 158] [--repeat 2] [--keep DIR] [--old-tree DIR] [--no-scan]

Generates into a temporary folder (deleted afterwards unless `--keep`) a wide `metrics.csv` as
Lightning's CSVLogger writes it: `epoch,step` and ten metric columns; a training row every step
(`train_loss_step`, `train_acc_step`, `grad_norm`, ...), the learning rate on its own rows (as
LearningRateMonitor logs it), a validation row every 1,000 steps and an epoch row every 5,000
steps, so the eval and epoch columns are mostly empty. Floats are float32 values printed as
float64 (`0.6931471824645996`), as Lightning writes tensors' `.item()`.

Then, each in a fresh interpreter (so imports and caches are alike, and the peak is this read's own):
  * `triage.ingest.read_run(metrics.csv)`: seconds inside the process, CPU seconds (its forked
    parts included) and its peak RSS (VmHWM); again with TRIAGE_NO_PARALLEL=1 (one process);
  * `triage scan --json metrics.csv` end to end: wall seconds and peak RSS;
  * `polars.read_csv(metrics.csv)` as the reference reader of the same bytes;
  * with `--old-tree DIR` (a tree of an older commit, e.g. `git archive REV | tar -x -C DIR`), the
    same `read_run` from that tree, for the speed-up ratio measured in the same run.
Targets: read_run >= 10x faster than the reader of commit b609a0c; peak <= 400 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

HEADER = ["epoch", "step", "train_loss_step", "train_acc_step", "grad_norm", "lr-AdamW", "throughput",
          "gpu_mem", "val_loss", "val_acc", "train_loss_epoch", "train_acc_epoch"]


def gen_metrics_csv(path: Path, megabytes: float, seed: int = 0) -> int:
    """Write a Lightning-style metrics.csv of about `megabytes` MB; return its data rows.

    Written with numpy in chunks of 100,000 steps: the generator takes seconds, not minutes."""
    import numpy as np

    rng = np.random.default_rng(seed)
    target = int(megabytes * 1e6)
    chunk = 100_000
    step0 = 0
    rows = 0
    with open(path, "w", newline="") as fh:
        fh.write(",".join(HEADER) + "\n")
        while fh.tell() < target:
            lines = _chunk_lines(rng, step0, chunk)
            for line in lines:
                fh.write(line)
                rows += 1
                if fh.tell() >= target:
                    break
            step0 += chunk
    return rows


def _f32(x):
    """float32 values as Python prints them after `.item()` (17 significant digits, mostly)."""
    import numpy as np

    return [repr(float(v)) for v in np.asarray(x, dtype=np.float32)]


def _chunk_lines(rng, step0: int, n: int) -> list[str]:
    import numpy as np

    steps = np.arange(step0, step0 + n)
    loss = _f32(2.5 * np.exp(-steps / 400_000) + rng.random(n) * 0.1)
    acc = _f32(rng.random(n))
    gnorm = _f32(rng.random(n) * 3)
    thr = _f32(1000 + rng.random(n) * 50)
    mem = _f32(12 + rng.random(n))
    out = []
    for j, s in enumerate(steps.tolist()):
        ep = s // 5000
        out.append(f"{ep},{s},{loss[j]},{acc[j]},{gnorm[j]},,{thr[j]},{mem[j]},,,,\n")
        if s % 50 == 0:  # LearningRateMonitor: its own row
            out.append(f"{ep},{s},,,,{3e-4 * min(1.0, (s + 1) / 2000)!r},,,,,,\n")
        if s % 1000 == 999:
            out.append(f"{ep},{s},,,,,,,{float(loss[j]) + 0.1!r},{float(np.float32(rng.random()))!r},,\n")
        if s % 5000 == 4999:
            out.append(f"{ep},{s},,,,,,,,,{loss[j]},{acc[j]}\n")
    return out


# ------------------------------------------------------------------------------------ measuring
_READ = (
    "import sys, time, json\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "from triage.ingest import read_run\n"
    "import os\n"
    "c = sum(os.times()[:4]); t = time.perf_counter(); run = read_run(sys.argv[2])\n"
    "dt, cpu = time.perf_counter() - t, sum(os.times()[:4]) - c  # the reader's forked parts included\n"
    "hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
    "print(json.dumps({'seconds': dt, 'cpu_s': cpu, 'peak_mb': hwm / 1024, 'rows': run.meta.get('rows'),\n"
    "                  'points': sum(len(s) for s in run.series.values()) if isinstance(run.series, dict) else None,\n"
    "                  'skipped': run.meta.get('skipped'), 'format': run.format}))\n"
)

_POLARS = (
    "import sys, time, json, polars as pl\n"
    "c = time.process_time(); t = time.perf_counter(); df = pl.read_csv(sys.argv[1])\n"
    "dt, cpu = time.perf_counter() - t, time.process_time() - c\n"
    "hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
    "print(json.dumps({'seconds': dt, 'cpu_s': cpu, 'peak_mb': hwm / 1024, 'rows': df.height}))\n"
)


def _child(code: str, *args: str, tree: Path = ROOT, env_extra: dict | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), **(env_extra or {}))
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=tree, env=env)
    if out.returncode:
        raise SystemExit(f"child failed ({out.returncode}): {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


class TreePeak:
    """Peak memory of a process and every descendant, sampled from /proc while it runs.

    Sums PSS (a page shared by a forked worker and its parent counts once, split between them) and
    adds the growth of the machine's Shmem (unlinked /dev/shm files hold pages no process maps as RSS
    after it unmaps them). Sampling misses spikes shorter than `every` seconds; the root's own VmHWM,
    which the kernel keeps exactly, is reported beside it by the callers that can read it."""

    def __init__(self, pid: int, every: float = 0.05):
        self.pid, self.every = pid, every
        self.peak_pss_kb = 0
        self.peak_shm_kb = 0
        self.peak_procs = 0
        self._base_shm = _shmem_kb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = _tree(self.pid)
            pss = sum(_pss_kb(p) for p in pids)
            self.peak_pss_kb = max(self.peak_pss_kb, pss)
            self.peak_shm_kb = max(self.peak_shm_kb, _shmem_kb() - self._base_shm)
            self.peak_procs = max(self.peak_procs, len(pids))
            self._stop.wait(self.every)

    def stop(self) -> dict:
        self._stop.set()
        self._thread.join()
        return {"tree_pss_mb": self.peak_pss_kb / 1024, "shm_growth_mb": self.peak_shm_kb / 1024,
                "tree_plus_shm_mb": (self.peak_pss_kb + self.peak_shm_kb) / 1024, "procs": self.peak_procs}


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, ()))
    return out


def _pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _shmem_kb() -> int:
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith("Shmem:"):
                return int(line.split()[1])
    return 0


_SCAN = (
    "import atexit, sys\n"
    "def _hwm():\n"
    "    v = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
    "    sys.stderr.write(f'\\nVMHWM_KB={v}\\n')\n"
    "atexit.register(_hwm)\n"
    "sys.argv = ['triage', *sys.argv[1:]]\n"
    "from triage.cli import main\n"
    "main()\n"
)


def scan_peak(path: Path, *extra: str) -> dict:
    """`triage scan --json PATH` in a fresh interpreter: wall seconds, exit code, the root's VmHWM
    and the sampled peak of its whole process tree plus /dev/shm."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _SCAN, "scan", "--json", *extra, str(path)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = TreePeak(proc.pid)
    out, err = proc.communicate()
    wall = time.perf_counter() - t
    res = peak.stop()
    hwm = [ln for ln in err.splitlines() if ln.startswith("VMHWM_KB=")]
    res.update(seconds=wall, exit=proc.returncode, root_hwm_mb=int(hwm[-1].split("=")[1]) / 1024 if hwm else None)
    try:
        doc = json.loads(out)
        res["healthy"] = doc.get("healthy")
    except ValueError:
        res["stderr_tail"] = err.strip()[-500:]
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=158, help="Size of the generated metrics.csv (MB).")
    ap.add_argument("--repeat", type=int, default=2, help="Runs of each reader; the best is reported.")
    ap.add_argument("--keep", type=Path, help="Generate into (and keep) this folder; reuse a file already there.")
    ap.add_argument("--old-tree", type=Path, help="A tree of an older commit: time its reader too.")
    ap.add_argument("--old-repeat", type=int, default=1, help="Runs of the old reader (it is slow).")
    ap.add_argument("--no-scan", action="store_true", help="Skip `triage scan` end to end.")
    args = ap.parse_args(argv)

    tmp = args.keep or Path(tempfile.mkdtemp(prefix="triage-csvscale-"))
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / "metrics.csv"
    try:
        if not path.exists():
            t = time.perf_counter()
            rows = gen_metrics_csv(path, args.mb)
            print(f"generated {path.stat().st_size / 1e6:.0f} MB, {rows:,} rows in {time.perf_counter() - t:.0f}s")
        size_mb = path.stat().st_size / 1e6
        result: dict = {"file_mb": round(size_mb, 1), "load_before": os.getloadavg()[0]}
        runs: dict[str, list[dict]] = {"read_run": [], "one_process": [], "polars": [], "old": []}
        for r in range(args.repeat):  # alternated, so a busy spell on a shared machine hits each alike
            runs["read_run"].append(_child(_READ, str(ROOT), str(path)))
            runs["one_process"].append(_child(_READ, str(ROOT), str(path), env_extra={"TRIAGE_NO_PARALLEL": "1"}))
            runs["polars"].append(_child(_POLARS, str(path)))
            if args.old_tree and r < args.old_repeat:
                old_tree = args.old_tree.resolve()
                runs["old"].append(_child(_READ, str(old_tree), str(path), tree=old_tree))
        best = {k: min(v, key=lambda x: x["seconds"]) for k, v in runs.items() if v}
        new, pol = best["read_run"], best["polars"]
        result.update(read_run=new, polars=pol, all_seconds={k: [round(x["seconds"], 2) for x in v]
                                                            for k, v in runs.items() if v})
        result["read_run_vs_polars"] = round(new["seconds"] / pol["seconds"], 1)
        print(f"read_run  {new['seconds']:7.2f} s (cpu {new['cpu_s']:.2f})  peak {new['peak_mb']:6.0f} MB  "
              f"rows {new['rows']:,}")
        print(f"polars    {pol['seconds']:7.2f} s (cpu {pol['cpu_s']:.2f})  peak {pol['peak_mb']:6.0f} MB  "
              f"rows {pol['rows']:,}   (read_run = {result['read_run_vs_polars']}x polars' time)")
        one = best["one_process"]
        result["one_process"] = one
        print(f"  one process (TRIAGE_NO_PARALLEL=1): {one['seconds']:.2f} s (cpu {one['cpu_s']:.2f})  "
              f"peak {one['peak_mb']:.0f} MB")
        if "old" in best:
            old = best["old"]
            result["old_read_run"] = old
            result["speedup_vs_old"] = round(old["seconds"] / new["seconds"], 1)
            result["cpu_speedup_vs_old"] = round(old["cpu_s"] / new["cpu_s"], 1)
            result["one_process_speedup_vs_old"] = round(old["seconds"] / one["seconds"], 1)
            print(f"old       {old['seconds']:7.2f} s (cpu {old['cpu_s']:.2f})  peak {old['peak_mb']:6.0f} MB  "
                  f"rows {old['rows']:,}   (new is {result['speedup_vs_old']}x faster, "
                  f"{result['cpu_speedup_vs_old']}x in CPU time; one process "
                  f"{result['one_process_speedup_vs_old']}x)")
        if not args.no_scan:
            sc = scan_peak(path)
            result["scan"] = sc
            print(f"scan      {sc['seconds']:7.2f} s  peak {sc['root_hwm_mb']:6.0f} MB (root VmHWM), "
                  f"tree+shm {sc['tree_plus_shm_mb']:.0f} MB, exit {sc['exit']}")
        print(json.dumps(result))
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
