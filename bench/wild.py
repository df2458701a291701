#!/usr/bin/env python
"""Judge real logs: `triage scan` on every log of tests/wild that a person labelled, scored
against the label.

    python bench/wild.py [--json FILE] [--only SUBSTRING]

The logs are real training output copied from public repositories and issue threads
(tests/wild/logs/{repos,threads,more,fresh,wild2..wild134}, described by tests/wild/manifest-*.yaml). The labels
are in tests/wild/judged*.yaml: `verdict` broken or healthy, and for a broken log the cause IDs a
competent engineer would accept. Starting from an earlier reading of the manifests' notes, each
log's notes were re-read, the log itself and, where the root cause mattered, the issue thread;
every label was written before this labelling pass ran triage on any wild log (no label was
changed after seeing triage's output), and ambiguous logs have no label at all.

`fresh/` is held out: no reader or detector was tuned on it. `repos/`, `threads/` and `more/` are
the tuned collections (the printed-log reader was developed against them), so their numbers are
optimistic; the held-out line is the honest estimate.

For each collection it prints, over the labelled logs that carry metrics:
  broken flagged   a broken log whose scan document does not say `healthy: true`
  cause in top 3   ... and one of its acceptable causes is among the first 3 `causes`
  false alarms     a healthy log whose document does not say `healthy: true`
then the totals for the tuned collections, the held-out one and all, the same two broken-log
figures for the crash-only logs (manifest `expect: error_only`: a traceback, no metric rows),
and one line per miss and per false alarm. `--json FILE` writes one record per log.

The knowledge base is loaded once and every scan runs in-process through `triage.api.scan`,
read through its public `scan --json` document (`api.public`); a log triage cannot read counts
as not flagged and is listed with its error.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
WILD = ROOT / "tests" / "wild"
sys.path.insert(0, str(ROOT))

from triage import api

COLLECTIONS = ("repos", "threads", "more", "fresh", "wild2", "wild3", "wild4", "wild5", "wild6", "wild7", "wild8", "wild9", "wild10", "wild11", "wild12", "wild13", "wild14", "wild15", "wild16", "wild17", "wild18", "wild19", "wild20", "wild21", "wild22", "wild23", "wild24", "wild25", "wild26", "wild27", "wild28", "wild29", "wild30", "wild31", "wild32", "wild33", "wild34", "wild35", "wild36", "wild37", "wild38", "wild39", "wild40", "wild41", "wild42", "wild43", "wild44", "wild45", "wild46", "wild47", "wild48", "wild49", "wild50", "wild51", "wild52", "wild53", "wild54", "wild55", "wild56", "wild57", "wild58", "wild59", "wild60", "wild61", "wild62", "wild63", "wild64", "wild65", "wild66", "wild67", "wild68", "wild69", "wild70", "wild71", "wild72", "wild73", "wild74", "wild75", "wild76", "wild77", "wild78", "wild79", "wild80", "wild81", "wild82", "wild83", "wild84", "wild85", "wild86", "wild87", "wild88", "wild89", "wild90", "wild91", "wild92", "wild93", "wild94", "wild95", "wild96", "wild97", "wild98", "wild99", "wild100", "wild101", "wild102", "wild103", "wild104", "wild105", "wild106", "wild108", "wild107", "wild109", "wild110", "wild113", "wild111", "wild112", "wild114", "wild115", "wild116", "wild117", "wild118", "wild119", "wild120", "wild121", "wild122", "wild123", "wild124", "wild125", "wild126", "wild127", "wild128", "wild129", "wild130", "wild131", "wild132", "wild133", "wild134")
TUNED = ("repos", "threads", "more")
HELD_OUT = ("fresh",)
NEW = ("wild2", "wild3", "wild4", "wild5", "wild6", "wild7", "wild8", "wild9", "wild10", "wild11", "wild12", "wild13", "wild14", "wild15", "wild16", "wild17", "wild18", "wild19", "wild20", "wild21", "wild22", "wild23", "wild24", "wild25", "wild26", "wild27", "wild28", "wild29", "wild30", "wild31", "wild32", "wild33", "wild34", "wild35", "wild36", "wild37", "wild38", "wild39", "wild40", "wild41", "wild42", "wild43", "wild44", "wild45", "wild46", "wild47", "wild48", "wild49", "wild50", "wild51", "wild52", "wild53", "wild54", "wild55", "wild56", "wild57", "wild58", "wild59", "wild60", "wild61", "wild62", "wild63", "wild64", "wild65", "wild66", "wild67", "wild68", "wild69", "wild70", "wild71", "wild72", "wild73", "wild74", "wild75", "wild76", "wild77", "wild78", "wild79", "wild80", "wild81", "wild82", "wild83", "wild84", "wild85", "wild86", "wild87", "wild88", "wild89", "wild90", "wild91", "wild92", "wild93", "wild94", "wild95", "wild96", "wild97", "wild98", "wild99", "wild100", "wild101", "wild102", "wild103", "wild104", "wild105", "wild106", "wild108", "wild107", "wild109", "wild110", "wild113", "wild111", "wild112", "wild114", "wild115", "wild116", "wild117", "wild118", "wild119", "wild120", "wild121", "wild122", "wild123", "wild124", "wild125", "wild126", "wild127", "wild128", "wild129", "wild130", "wild131", "wild132", "wild133", "wild134")  # collected after the reader work began (labels in judged-wild{2..134}.yaml); each was
# scored once before any rule was drawn from it (first reads: tests/wild/README.md), then tuned on
TOP = 3


def load_labels() -> list[dict]:
    """judged.yaml joined with each file's manifest entry (for `expect`)."""
    expect = {}
    for manifest in sorted(WILD.glob("manifest-*.yaml")):
        for entry in yaml.safe_load(manifest.read_text(encoding="utf-8")):
            expect[entry["file"]] = entry["expect"]
    labels = [label for path in sorted(WILD.glob("judged*.yaml"))
              for label in yaml.safe_load(path.read_text(encoding="utf-8")) or []
              if label.get("verdict") in ("broken", "healthy")]  # `unclear` labels are recorded, not scored
    for label in labels:
        if label["file"] not in expect:
            raise SystemExit(f"judged*.yaml: {label['file']} is not in any tests/wild manifest")
        label["collection"] = label["file"].split("/")[1]
        label["crash_only"] = expect[label["file"]] == "error_only"
        label["causes"] = list(label.get("causes") or [])
    return labels


def unknown_causes(labels: list[dict], kb) -> list[str]:
    """Cause IDs in the labels that the knowledge base does not have (a renamed node, a typo)."""
    return sorted({c for label in labels for c in label["causes"] if kb.resolve(c) is None})


def scan(path: Path, kb) -> dict:
    """The public `scan --json` document of one log, or {"error": ...} when triage cannot read it.
    In-process through `api.public(api.scan(...))`; through the CLI if the API has no `public`."""
    if not hasattr(api, "public"):
        return scan_cli(path)
    try:
        return api.public(api.scan(str(path), kb=kb))
    except Exception as exc:  # noqa: BLE001 - any failure is a result to report, not a crash
        first_line = (str(exc).splitlines() or [""])[0]
        return {"error": f"{type(exc).__name__}: {first_line[:160]}"}


def scan_cli(path: Path) -> dict:
    """`triage scan --json PATH` in a subprocess (exit 0 healthy, 1 findings; anything else an error)."""
    cmd = [sys.executable, "-m", "triage", "scan", "--json", str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env={**os.environ, "NO_COLOR": "1"})
    if proc.returncode not in (0, 1):
        return {"error": f"exit {proc.returncode}: {(proc.stderr.strip().splitlines() or [''])[-1][:160]}"}
    return json.loads(proc.stdout)


def judge(label: dict, doc: dict) -> dict:
    """One log's result: what triage said next to what the label says."""
    top = [c["id"] for c in doc.get("causes", [])][:TOP]
    flagged = "error" not in doc and not doc.get("healthy")
    return {
        "file": label["file"], "collection": label["collection"], "crash_only": label["crash_only"],
        "verdict": label["verdict"], "acceptable": label["causes"],
        "healthy": doc.get("healthy"), "flagged": flagged,
        "findings": [f.get("detector") for f in doc.get("findings", [])],
        "top": top, "cause_hit": flagged and bool(set(top) & set(label["causes"])),
        "error": doc.get("error"),
    }


def pct(n: int, d: int) -> str:
    return f"{n:>3}/{d:<3} {100 * n / d:5.1f}%" if d else f"{'-':>13}"


def summary_row(name: str, results: list[dict], false_alarms: bool = True) -> str:
    broken = [r for r in results if r["verdict"] == "broken"]
    healthy = [r for r in results if r["verdict"] == "healthy"]
    row = (f"{name:<34} {pct(sum(r['flagged'] for r in broken), len(broken))}   "
           f"{pct(sum(r['cause_hit'] for r in broken), len(broken))}")
    return row + (f"   {pct(sum(r['flagged'] for r in healthy), len(healthy))}" if false_alarms else "")


def print_summary(results: list[dict]) -> None:
    metric = [r for r in results if not r["crash_only"]]
    print(f"{'logs with metrics':<34} {'broken flagged':>13}   {'cause in top 3':>13}   {'false alarms':>13}")
    for col in COLLECTIONS:
        print(summary_row(col, [r for r in metric if r["collection"] == col]))
    print(summary_row("tuned (repos+threads+more)", [r for r in metric if r["collection"] in TUNED]))
    print(summary_row("held out (fresh)", [r for r in metric if r["collection"] in HELD_OUT]))
    print(summary_row("later (" + "+".join(NEW) + ")", [r for r in metric if r["collection"] in NEW]))
    print(summary_row("all", metric))
    crash = [r for r in results if r["crash_only"]]
    print(f"\n{'crash-only logs (no metrics)':<34} {'broken flagged':>13}   {'cause in top 3':>13}")
    for col in COLLECTIONS:
        rows = [r for r in crash if r["collection"] == col]
        if rows:
            print(summary_row(col, rows, false_alarms=False))
    print(summary_row("all", crash, false_alarms=False))


def print_details(results: list[dict], held_out: bool = False) -> None:
    """One line per miss (not flagged, or flagged with no acceptable cause in the top 3) and per
    false alarm. The held-out collection's lines are left out unless `held_out`: reading which of
    its logs fail is how a held-out set stops being one."""
    lines = []
    hidden = 0
    for r in results:
        if r["collection"] in HELD_OUT and not held_out:
            hidden += 1
            continue
        said = r["error"] or f"findings={r['findings']} top{TOP}={r['top']}"
        if r["verdict"] == "broken" and not r["flagged"]:
            lines.append(f"MISS   {r['file']}  want {r['acceptable']}  | {said}")
        elif r["verdict"] == "broken" and not r["cause_hit"]:
            lines.append(f"CAUSE  {r['file']}  want {r['acceptable']}  | {said}")
        elif r["verdict"] == "healthy" and r["flagged"]:
            lines.append(f"FALSE  {r['file']}  | {said}")
    print("\nMISS: broken, not flagged   CAUSE: flagged, no acceptable cause in top 3   FALSE: false alarm")
    print("\n".join(lines) if lines else "(none)")
    if hidden:
        print(f"({hidden} held-out logs ({', '.join(HELD_OUT)}) counted above but not listed; --show-held-out lists them)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="write one result record per log to FILE")
    parser.add_argument("--only", metavar="SUBSTRING", help="score only the logs whose path contains this")
    parser.add_argument("--show-held-out", action="store_true",
                        help="also list the held-out collection's misses and false alarms one by one")
    args = parser.parse_args(argv)

    labels = [lb for lb in load_labels() if not args.only or args.only in lb["file"]]
    kb = api.load_kb()
    for cause in unknown_causes(labels, kb):
        print(f"warning: judged.yaml names cause {cause!r}, which the knowledge base does not have")
    t0 = time.perf_counter()
    results = [judge(label, scan(WILD / label["file"], kb)) for label in labels]
    elapsed = time.perf_counter() - t0

    import triage  # (this script puts its own tree first on sys.path: say which triage it measured)
    print(f"{len(results)} labelled logs scanned in {elapsed:.1f} s "
          f"(fresh/ is held out; labels: tests/wild/judged*.yaml; triage from {Path(triage.__file__).parent})\n")
    print_summary(results)
    print_details(results, args.show_held_out)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
        print(f"\nper-log results written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
