"""Generate corpus_gen10: train every run in SPECS for real and write runs/<name>/ (label.json first).

Usage: python generate.py            # wipe runs/ and build all
       python generate.py --only a,b # rebuild some runs
       python generate.py --list
"""

import hashlib
import json
import os
import shutil
import sys
import time
import traceback

os.environ.setdefault("KERAS_BACKEND", "torch")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("WANDB_DISABLED", "true")
os.environ.setdefault("OMP_NUM_THREADS", "1")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

torch.set_num_threads(1)

import fam_torch  # noqa: E402
import specs_torch  # noqa: E402
import specs_more  # noqa: E402

SPECS = specs_torch.SPECS + specs_more.SPECS
RUNS = os.path.join(HERE, "runs")
SCRATCH = "/tmp/gen10_scratch"
PRINTED = {"torch_printed", "hf_console", "trl_console", "lit_printed", "sb3_stdout", "keras_printed",
           "sklearn_printed"}


def family_runner(fam):
    if fam == "torch":
        return fam_torch.run
    if fam == "hf":
        import fam_hf
        return fam_hf.run
    if fam == "lit":
        import fam_lit
        return fam_lit.run
    if fam == "sb3":
        import fam_sb3
        return fam_sb3.run
    if fam == "keras":
        import fam_keras
        return fam_keras.run
    if fam == "sklearn":
        import fam_sklearn
        return fam_sklearn.run
    raise ValueError(fam)


def label_of(spec):
    return {"healthy": spec["healthy"], "causes": spec["causes"],
            "fault": "healthy control" if spec["healthy"] else spec["fault"],
            "format": spec["format"], "model": spec["model"], "seed": spec["seed"]}


def build(spec):
    out = os.path.join(RUNS, spec["name"])
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    with open(os.path.join(out, "label.json"), "w") as fh:
        json.dump(label_of(spec), fh, indent=1)
    work = os.path.join(SCRATCH, "work_" + hashlib.sha1(spec["name"].encode()).hexdigest()[:10])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    fn = family_runner(spec["family"])
    t0, c0 = time.time(), os.times()
    pid = os.fork()
    if pid == 0:
        rc = 0
        try:
            os.chdir(work)
            logpath = (os.path.join(out, "train.log") if spec["format"] in PRINTED
                       else os.path.join(work, "console.txt"))
            fd = os.open(logpath, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            torch.set_num_threads(1)
            fn(spec, out)
        except BaseException:
            traceback.print_exc()
            rc = 1
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc)
    _, status = os.waitpid(pid, 0)
    c1 = os.times()
    cpu = (c1.children_user + c1.children_system) - (c0.children_user + c0.children_system)
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(out) for f in fs)
    return {"rc": os.waitstatus_to_exitcode(status), "wall_s": round(time.time() - t0, 1),
            "cpu_s": round(cpu, 1), "bytes": size}


def main():
    args = sys.argv[1:]
    if "--list" in args:
        for s in SPECS:
            print(s["name"], s["format"], "healthy" if s["healthy"] else "fault")
        return
    only = None
    if "--only" in args:
        only = set(args[args.index("--only") + 1].split(","))
    names = [s["name"] for s in SPECS]
    assert len(names) == len(set(names)), "duplicate run names"
    tpath = os.path.join(HERE, "timings.json")
    timings = json.load(open(tpath)) if (only and os.path.exists(tpath)) else {}
    if only is None:
        shutil.rmtree(RUNS, ignore_errors=True)
        shutil.rmtree(SCRATCH, ignore_errors=True)
    os.makedirs(RUNS, exist_ok=True)
    # heavy libraries are imported once here, so each forked child starts at once
    for fam in sorted({s["family"] for s in SPECS if only is None or s["name"] in only}):
        family_runner(fam)
    T0 = time.time()
    for s in SPECS:
        if only is not None and s["name"] not in only:
            continue
        r = build(s)
        timings[s["name"]] = r
        print(f"{s['name']:40s} rc={r['rc']} wall={r['wall_s']:6.1f}s cpu={r['cpu_s']:6.1f}s "
              f"{r['bytes'] / 1024:7.1f} KB", flush=True)
    print(f"total wall {time.time() - T0:.0f}s")
    with open(tpath, "w") as fh:
        json.dump(timings, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
