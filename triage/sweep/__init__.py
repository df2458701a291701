"""Triage a whole sweep: many runs from a folder tree, a Ray Tune experiment, W&B offline folders or
an MLflow tracking server, scanned in parallel (local processes, threads, or a Ray cluster), and
summed up as one report: each run's verdict and top cause, runs grouped by cause, and the config
keys that separate the broken runs from the healthy ones.

The flow, one direction, like the rest of triage:

    sources.py    run references (`RunRef`: a path, a Tune trial, an MLflow run id) -- small, picklable
    work.py       the pure per-run function: RunRef in, the run's `scan --json` document out
    executors.py  map it over the references (in process, a process pool, threads, Ray), streaming
                  results back as they finish, with a bounded number in flight
    summary.py    what the driver keeps per run (verdict, top cause, config): never the series
    separate.py   the separating-config-key analysis (a threshold or a value, with counts and a
                  multiple-comparison-corrected exact test, so "none" is said when none holds)

    >>> from triage.sweep import discover, run_sweep
    >>> refs = discover(["runs/"])
    >>> summary = run_sweep(refs, jobs=2)
    >>> summary.separating
"""

from __future__ import annotations

__all__ = ["RunRef", "SweepError", "discover", "mlflow_refs", "run_sweep", "SweepSummary"]

_WHERE = {"RunRef": "refs", "SweepError": "refs", "discover": "sources", "mlflow_refs": "sources",
          "run_sweep": "driver", "SweepSummary": "summary"}


def __getattr__(name: str):
    """Names load on first use, so `triage --help` does not pay for this package."""
    if name in _WHERE:
        import importlib

        return getattr(importlib.import_module(f"triage.sweep.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'triage.sweep' has no attribute {name!r}")
