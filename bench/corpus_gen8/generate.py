"""Generate bench/corpus_gen8: 60 small, really-trained runs (24 healthy, 36 with one injected bug each).

Usage:  /work/gen8venv/bin/python bench/corpus_gen8/generate.py [--only name1,name2] [--list]

For every spec in specs.py the generator (1) wipes runs/<name>/, (2) writes runs/<name>/label.json from the spec,
(3) forks a child that trains the run and writes its logs. The heavy libraries are imported once in the parent,
so a child starts at once; each child runs with one torch thread. Children of console formats (hf_console,
printed_*) have their stdout and stderr pointed at runs/<name>/train.log, as `python train.py > train.log 2>&1`
would; the other children's console goes to a scratch file outside the corpus. A run whose script raises keeps
its traceback in that log (the generator does not stop). Per-run CPU seconds go to timings.json beside this file.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ["TOKENIZERS_PARALLELISM"] = "false"
os.environ.setdefault("GEN8_SCRATCH", "/tmp/gen8_scratch")
os.environ["PYTHONHASHSEED"] = "0"

CONSOLE_FORMATS = ("hf_console",)
RUN_TIMEOUT_S = 180


def preload() -> None:
    """Import the heavy libraries once; forked children inherit them."""
    import torch

    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    import datasets  # noqa: F401
    import gymnasium  # noqa: F401
    import lightning  # noqa: F401
    import stable_baselines3  # noqa: F401
    import torch.utils.tensorboard  # noqa: F401
    import transformers  # noqa: F401
    from transformers import Trainer  # noqa: F401
    from trl import DPOTrainer, GRPOTrainer  # noqa: F401


def runners() -> dict:
    import fam_hf
    import fam_lit
    import fam_sb3
    import fam_torch

    r = {}
    for m in (fam_hf, fam_lit, fam_torch, fam_sb3):
        r.update(m.RUNNERS)
    return r


def label_of(spec: dict) -> dict:
    return {"healthy": spec["healthy"], "causes": list(spec["causes"]), "fault": spec["fault"], "format": spec["format"],
            "model": spec["model"], "seed": spec["seed"]}


def is_console(fmt: str) -> bool:
    return fmt in CONSOLE_FORMATS or fmt.startswith("printed_")


def run_one(spec: dict, fn, runs_dir: str, scratch: str) -> dict:
    out = os.path.join(runs_dir, spec["name"])
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(os.path.join(scratch, "work_" + hashlib.sha1(spec["name"].encode()).hexdigest()[:10]), ignore_errors=True)
    os.makedirs(out)
    with open(os.path.join(out, "label.json"), "w") as f:  # written from the spec BEFORE training
        json.dump(label_of(spec), f, indent=2)
        f.write("\n")
    log = os.path.join(out, "train.log") if is_console(spec["format"]) else os.path.join(scratch, spec["name"] + ".console.txt")  # not part of the corpus
    sys.stdout.flush()
    sys.stderr.flush()
    t0 = time.time()
    pid = os.fork()
    if pid == 0:  # child: the "training script"
        code = 1
        try:
            fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.close(fd)
            sys.stdout = open(1, "w", buffering=1, closefd=False)
            sys.stderr = open(2, "w", buffering=1, closefd=False)
            signal.alarm(RUN_TIMEOUT_S)
            work = os.path.join(scratch, "work_" + hashlib.sha1(spec["name"].encode()).hexdigest()[:10])
            os.makedirs(work, exist_ok=True)
            os.chdir(work)
            fn(spec, out)
            code = 0
        except BaseException:  # the script died: its traceback stays in its console log
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    _, status, ru = os.wait4(pid, 0)
    rc = os.waitstatus_to_exitcode(status)
    cpu = ru.ru_utime + ru.ru_stime
    size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(out) for f in fs)
    return {"name": spec["name"], "rc": rc, "cpu_s": round(cpu, 2), "wall_s": round(time.time() - t0, 2), "kb": round(size / 1024, 1)}


def print_table(specs) -> None:
    tpath = os.path.join(HERE, "timings.json")
    tim = json.load(open(tpath)) if os.path.exists(tpath) else {}
    print("| run | format | model | label | causes | fault / description | CPU s | KB |")
    print("|---|---|---|---|---|---|---|---|")
    for s in sorted(specs, key=lambda s: (not s["healthy"], s["name"])):
        t = tim.get(s["name"], {})
        text = s["desc"] if s["healthy"] else s["fault"]
        print(f"| {s['name']} | {s['format']} | {s['model']} | {'healthy' if s['healthy'] else 'fault'} | {', '.join(s['causes']) or '-'} | "
              f"{text} | {t.get('cpu_s', '')} | {round(t['kb']) if 'kb' in t else ''} |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--table", action="store_true", help="print the README's per-run table (from specs.py and timings.json)")
    a = ap.parse_args()
    from specs import SPECS

    names = [s["name"] for s in SPECS]
    assert len(names) == len(set(names)), "duplicate run names"
    if a.list:
        for s in SPECS:
            print(s["name"], s["format"], "healthy" if s["healthy"] else "fault")
        return
    if a.table:
        print_table(SPECS)
        return
    todo = [s for s in SPECS if not a.only or s["name"] in a.only.split(",")]
    t0 = time.time()
    cpu0 = os.times()
    preload()
    fns = runners()
    runs_dir = os.path.join(HERE, "runs")
    scratch = os.environ["GEN8_SCRATCH"]
    if not a.only:  # a full run starts from a clean runs/ and a clean scratch (the shared SFT base is rebuilt)
        shutil.rmtree(runs_dir, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(runs_dir, exist_ok=True)
    os.makedirs(scratch, exist_ok=True)
    tpath = os.path.join(HERE, "timings.json")
    timings = json.load(open(tpath)) if (a.only and os.path.exists(tpath)) else {}
    for spec in todo:
        r = run_one(spec, fns[spec["fn"]], runs_dir, scratch)
        timings[spec["name"]] = r
        print(f"{r['name']:38s} rc={r['rc']:<3d} cpu={r['cpu_s']:6.1f}s wall={r['wall_s']:6.1f}s {r['kb']:7.1f} KB", flush=True)
    pc = os.times()
    parent_cpu = (pc.user - cpu0.user) + (pc.system - cpu0.system)
    total_cpu = parent_cpu + sum(timings[s["name"]]["cpu_s"] for s in todo)
    print(f"runs: {len(todo)}  total CPU {total_cpu:.0f}s (parent imports {parent_cpu:.0f}s)  wall {time.time() - t0:.0f}s")
    if not a.only:
        timings["_total"] = {"cpu_s": round(total_cpu, 1), "parent_cpu_s": round(parent_cpu, 1), "wall_s": round(time.time() - t0, 1)}
    with open(tpath, "w") as f:
        json.dump(timings, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
