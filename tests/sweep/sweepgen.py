"""The sweep generator of bench/sweep.py (one generator for the benchmark and the tests), loaded by
file path under a name of its own so it cannot clash with triage.sweep or another test's module."""

from __future__ import annotations

import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "logs"


def _bench():
    spec = importlib.util.spec_from_file_location("triage_bench_sweep", REPO / "bench" / "sweep.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = _bench()
