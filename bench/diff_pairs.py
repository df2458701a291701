"""How often `triage diff` names the right first-parting metric, config key and cause.

Reads the really-trained pairs in tests/fixtures/diff (made by tests/fixtures/diff/generate.py;
their expectations are checked with replicates by `generate.py --verify`) and prints one line
per pair and the totals.

    python bench/diff_pairs.py
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from triage import __version__, api  # noqa: E402
from triage.engine.diff import diff_runs, read_pair  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "diff"


def main() -> int:
    kb = api.load_kb()
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    metric_ok = key_ok = cause_top1 = cause_top3 = with_cause = 0
    print(f"{'pair':<30} {'first metric (expected)':<34} {'config key (expected)':<50} top causes")
    for p in manifest:
        t0 = time.perf_counter()
        good, bad = read_pair(str(FIXTURES / "pairs" / p["name"] / "good"), str(FIXTURES / "pairs" / p["name"] / "bad"))
        doc = diff_runs(good, bad, kb, __version__)
        first = doc["first"]["metric"] if doc["first"] else None
        key = doc["config"]["suspect"]
        causes = [c["id"] for c in doc["causes"]]
        metric_ok += first == p["metric"]
        key_ok += key == p["key"]
        if p["cause"]:
            with_cause += 1
            cause_top1 += bool(causes) and causes[0] == p["cause"]
            cause_top3 += p["cause"] in causes[:3]
        mark = "ok " if first == p["metric"] and key == p["key"] else "MISS"
        print(f"{mark} {p['name']:<26} {str(first):>14} ({str(p['metric']):<14}) {str(key):>26} ({str(p['key']):<20}) "
              f"{', '.join(causes[:3]) or '-'}  [{time.perf_counter() - t0:.2f} s]")
    n = len(manifest)
    knobs = sum(1 for p in manifest if p["key"])
    print(f"\nfirst-parting metric right: {metric_ok}/{n} pairs ({knobs} with a changed knob, {n - knobs} control)")
    print(f"config key right:           {key_ok}/{n}")
    print(f"expected cause top-1: {cause_top1}/{with_cause}, top-3: {cause_top3}/{with_cause}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
