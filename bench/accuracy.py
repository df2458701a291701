"""Accuracy benchmark: `triage scan` on every run of the corpus (bench/corpus/runs), scored
against each run's label.json.

    python bench/accuracy.py [--corpus bench/corpus/runs] [--json OUT] [-v]

Prints, over the faulty runs, top-1 and top-3 accuracy (a hit when one of the label's acceptable
cause IDs is at rank 1 / within the first 3 `causes` of the scan document) and, over the healthy
runs, the false-alarm rate (a healthy run whose document says `healthy: false`); then a per-fault
table and every miss with its top-3 causes and findings.

The knowledge base is loaded once and every scan runs in-process through `triage.api.scan`.
The log file handed to the scan is the run's log (never its label.json): the one file (or, for
TensorBoard, the folder) that is not the label or a config.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_TOP3 = 0.90
TARGET_FALSE_ALARMS = 0.05
NOT_LOGS = {"label.json", "config.json", "hparams.yaml"}


def log_path(run_dir: Path) -> Path:
    tb = run_dir / "tb"
    if tb.is_dir():
        return tb
    logs = sorted(p for p in run_dir.iterdir() if p.is_file() and p.name not in NOT_LOGS)
    if len(logs) != 1:
        raise SystemExit(f"{run_dir}: expected one log file, found {[p.name for p in logs]}")
    return logs[0]


def fault_key(run_id: str, label: dict) -> str:
    """The fault family a run belongs to, for the per-fault table: its first acceptable cause."""
    return label["causes"][0] if label["causes"] else "healthy"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="top-1/top-3 accuracy and false alarms of triage scan on the corpus")
    ap.add_argument("--corpus", default=str(ROOT / "bench" / "corpus" / "runs"))
    ap.add_argument("--json", default=None, help="write per-run results to this file")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every run, not only misses")
    args = ap.parse_args(argv)

    from triage import api

    t0 = time.perf_counter()
    kb = api.load_kb()
    runs = sorted(p for p in Path(args.corpus).iterdir() if (p / "label.json").is_file())
    if not runs:
        print(f"no runs under {args.corpus}; run bench/corpus/generate.py first", file=sys.stderr)
        return 2
    results = []
    for d in runs:
        label = json.loads((d / "label.json").read_text())
        path = log_path(d)
        try:
            doc = api.public(api.scan(str(path), kb=kb))
            error = None
        except Exception as exc:  # a crash is a miss, reported as such
            doc, error = {"causes": [], "findings": [], "healthy": None, "sources": []}, f"{type(exc).__name__}: {exc}"
        ranked = [c["id"] for c in doc.get("causes", [])]
        ok = set(label["causes"])
        rank = next((i + 1 for i, cid in enumerate(ranked) if cid in ok), None)
        results.append({
            "run": d.name, "label": label, "ranked": ranked, "rank": rank, "healthy_doc": doc.get("healthy"),
            "findings": [(f["detector"], f["summary"]) for f in doc.get("findings", [])], "error": error,
            "format": label.get("format"), "sources": doc.get("sources", []),
        })
    elapsed = time.perf_counter() - t0

    faulty = [r for r in results if not r["label"]["healthy"]]
    healthy = [r for r in results if r["label"]["healthy"]]
    top1 = sum(1 for r in faulty if r["rank"] == 1)
    top3 = sum(1 for r in faulty if r["rank"] is not None and r["rank"] <= 3)
    alarms = [r for r in healthy if r["healthy_doc"] is not True]
    size = sum(f.stat().st_size for f in Path(args.corpus).rglob("*") if f.is_file())
    formats = defaultdict(int)
    models = defaultdict(int)
    for r in results:
        formats[r["format"]] += 1
        models[r["label"].get("model")] += 1

    print(f"corpus: {len(results)} runs ({len(faulty)} faulty, {len(healthy)} healthy), {size / 1e6:.2f} MB, "
          f"scanned in {elapsed:.1f}s")
    print("formats: " + ", ".join(f"{k} {v}" for k, v in sorted(formats.items())))
    print("models:  " + ", ".join(f"{k} {v}" for k, v in sorted(models.items())))
    print()
    n = max(len(faulty), 1)
    h = max(len(healthy), 1)
    print(f"top-1 accuracy: {top1}/{len(faulty)} = {top1 / n:.1%}")
    print(f"top-3 accuracy: {top3}/{len(faulty)} = {top3 / n:.1%}   (target >= {TARGET_TOP3:.0%})")
    print(f"false alarms:   {len(alarms)}/{len(healthy)} = {len(alarms) / h:.1%}   (target <= {TARGET_FALSE_ALARMS:.0%})")
    print()
    table = defaultdict(lambda: [0, 0, 0])
    for r in faulty:
        row = table[fault_key(r["run"], r["label"])]
        row[0] += 1
        row[1] += r["rank"] == 1
        row[2] += r["rank"] is not None and r["rank"] <= 3
    print(f"{'fault (first acceptable cause)':34s} {'runs':>4s} {'top-1':>6s} {'top-3':>6s}")
    for key in sorted(table):
        runs_n, t1, t3 = table[key]
        print(f"{key:34s} {runs_n:4d} {t1:6d} {t3:6d}")
    print(f"{'healthy':34s} {len(healthy):4d}   false alarms {len(alarms)}")
    print()
    misses = [r for r in faulty if r["rank"] is None or r["rank"] > 3]
    if misses:
        print(f"misses ({len(misses)}):")
        for r in misses:
            _show(r)
    if alarms:
        print(f"false alarms ({len(alarms)}):")
        for r in alarms:
            _show(r)
    if args.verbose:
        print("all runs:")
        for r in results:
            _show(r)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str) + "\n")
    return 0


def _show(r: dict) -> None:
    label = r["label"]
    want = ", ".join(label["causes"]) or "healthy"
    print(f"  {r['run']} [{label.get('format')}, {label.get('model')}] want {want}; got rank {r['rank']}; "
          f"top-3 {r['ranked'][:3]}" + (f"; ERROR {r['error']}" if r["error"] else ""))
    print(f"      fault: {label.get('fault')}")
    for det, summary in r["findings"]:
        print(f"      - {det}: {summary}")
    if not r["findings"]:
        src = r["sources"][0] if r["sources"] else {}
        print(f"      (no findings; read {src.get('format')} rows={src.get('rows')} metrics={src.get('metrics')})")


if __name__ == "__main__":
    sys.exit(main())
