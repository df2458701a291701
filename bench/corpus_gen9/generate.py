"""Generate bench/corpus_gen9: train every spec in specs.py for real and write its run folder.

    /work/gen8venv/bin/python bench/corpus_gen9/generate.py            # all 60 runs from a clean runs/
    /work/gen8venv/bin/python bench/corpus_gen9/generate.py --only a,b # redo some runs
    /work/gen8venv/bin/python bench/corpus_gen9/generate.py --list     # list the specs
    /work/gen8venv/bin/python bench/corpus_gen9/generate.py --table    # the README's per-run table

For every spec: wipe runs/<name>/, write label.json from the spec (before anything trains), then fork a child
that trains the run in its own scratch folder. A console format's child has its stdout and stderr pointed at
runs/<name>/train.log (what `python train.py > train.log 2>&1` captures, run with line-buffered output); other
children's console goes to a scratch file that is thrown away. An exception in a child prints its traceback
there, as an uncaught one would.
"""

from __future__ import annotations

import os
import sys

for _k, _v in {"KERAS_BACKEND": "torch", "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_NO_ADVISORY_WARNINGS": "0", "WANDB_DISABLED": "true",
               "PYTHONHASHSEED": "0"}.items():
    os.environ.setdefault(_k, _v)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import argparse  # noqa: E402
import hashlib  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

import torch  # noqa: E402

torch.set_num_threads(1)

import common as C  # noqa: E402
from specs import SPECS  # noqa: E402

CONSOLE_FORMATS = {"hf_console", "lightning_console", "sb3_console", "keras_console", "sklearn_console", "printed_tqdm", "printed_logging",
                   "printed_epoch_batch", "printed_dict", "printed_ansi", "printed_table", "printed_pipe", "printed_brackets", "printed_units",
                   "printed_keraslike"}
TIMINGS = os.path.join(HERE, "timings.json")


def label_of(spec):
    return {"healthy": spec["healthy"], "causes": spec["causes"], "fault": spec["fault"], "format": spec["fmt"], "model": spec["model"], "seed": spec["seed"]}


def resolve(fn_name):
    mod, fn = fn_name.split(".")
    return getattr(importlib.import_module(mod), fn)


def _child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def fork_run(target, console_path, work_dir, seed):
    """Runs target() in a forked child with its console on console_path; returns (exit code, cpu s, wall s)."""
    os.makedirs(work_dir, exist_ok=True)
    cpu0, t0 = _child_cpu(), time.time()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # child
        rc = 1
        try:
            fd = os.open(console_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.close(fd)
            sys.stdout.reconfigure(line_buffering=True)
            sys.stderr.reconfigure(line_buffering=True)
            os.chdir(work_dir)
            torch.set_num_threads(1)
            C.seed_all(seed)
            target()
            rc = 0
        except BaseException:
            traceback.print_exc()
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(rc)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), _child_cpu() - cpu0, time.time() - t0


def dir_kb(path):
    tot = 0
    for root, _, files in os.walk(path):
        for f in files:
            tot += os.path.getsize(os.path.join(root, f))
    return round(tot / 1024)


def ensure_sft_base(timings):
    import fam_hf

    if os.path.exists(os.path.join(fam_hf.SFT_DIR, "config.json")):
        return
    rc, cpu, wall = fork_run(fam_hf.build_sft_base, os.path.join(C.SCRATCH, "sft_base.log"), os.path.join(C.SCRATCH, "work_sft"), 4242)
    timings["_sft_base"] = {"cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "rc": rc}
    print(f"  sft base: rc={rc} cpu={cpu:.1f}s", flush=True)
    if rc != 0:
        raise SystemExit("SFT base failed, see " + os.path.join(C.SCRATCH, "sft_base.log"))


def run_spec(spec, timings):
    run_dir = os.path.join(C.RUNS, spec["name"])
    shutil.rmtree(run_dir, ignore_errors=True)
    os.makedirs(run_dir)
    C.write_json(os.path.join(run_dir, "label.json"), label_of(spec))
    if spec["fn"].startswith("fam_hf.trl_"):
        ensure_sft_base(timings)
    work = os.path.join(C.SCRATCH, "work_" + hashlib.sha1(spec["name"].encode()).hexdigest()[:10])
    shutil.rmtree(work, ignore_errors=True)
    console = os.path.join(run_dir, "train.log") if spec["fmt"] in CONSOLE_FORMATS else os.path.join(C.SCRATCH, "console_" + spec["name"] + ".log")
    fn = resolve(spec["fn"])
    rc, cpu, wall = fork_run(lambda: fn(spec, run_dir), console, work, spec["seed"])
    shutil.rmtree(work, ignore_errors=True)
    timings[spec["name"]] = {"cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "kb": dir_kb(run_dir), "rc": rc}
    print(f"  {spec['name']:<36} rc={rc} cpu={cpu:6.2f}s wall={wall:6.2f}s {dir_kb(run_dir):4d} KB", flush=True)


def table(timings):
    print("| run | format | model | label | causes | fault / description | CPU s | KB |")
    print("|---|---|---|---|---|---|---|---|")
    for s in SPECS:
        t = timings.get(s["name"], {})
        print(f"| {s['name']} | {s['fmt']} | {s['model']} | {'healthy' if s['healthy'] else 'fault'} | {', '.join(s['causes']) or '-'} | "
              f"{s['desc'].replace('|', '/')} | {t.get('cpu_s', '')} | {t.get('kb', '')} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="comma-separated run names")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--table", action="store_true")
    a = ap.parse_args()
    timings = json.load(open(TIMINGS)) if os.path.exists(TIMINGS) else {}
    if a.list:
        for s in SPECS:
            print(f"{s['seed']} {s['name']:<36} {s['fmt']:<18} {'healthy' if s['healthy'] else 'FAULT'}")
        return
    if a.table:
        table(timings)
        return
    # the heavy libraries are imported once here, so every forked child starts at once
    for mod in ("fam_torch", "fam_lit", "fam_hf", "fam_sb3", "fam_keras_sk"):
        importlib.import_module(mod)
    import keras  # noqa: F401  (Keras 3 on the torch backend)
    import sklearn.neural_network  # noqa: F401
    import trl  # noqa: F401

    todo = SPECS
    if a.only:
        names = a.only.split(",")
        unknown = set(names) - {s["name"] for s in SPECS}
        if unknown:
            raise SystemExit(f"unknown runs: {sorted(unknown)}")
        todo = [s for s in SPECS if s["name"] in names]
    else:
        shutil.rmtree(C.RUNS, ignore_errors=True)
        shutil.rmtree(C.SCRATCH, ignore_errors=True)
        timings = {}
    os.makedirs(C.RUNS, exist_ok=True)
    os.makedirs(C.SCRATCH, exist_ok=True)
    t0 = time.time()
    self0 = time.process_time()
    for s in todo:
        run_spec(s, timings)
    if not a.only:
        runs_cpu = sum(v["cpu_s"] for k, v in timings.items() if not k.startswith("_"))
        timings["_total"] = {"children_cpu_s": round(runs_cpu + timings.get("_sft_base", {}).get("cpu_s", 0), 1),
                             "parent_cpu_s": round(time.process_time() + 0.0, 1), "wall_s": round(time.time() - t0, 1),
                             "parent_cpu_in_loop_s": round(time.process_time() - self0, 1), "corpus_kb": dir_kb(C.RUNS)}
        print(json.dumps(timings["_total"]))
    with open(TIMINGS, "w") as f:
        json.dump(timings, f, indent=1)


if __name__ == "__main__":
    main()
