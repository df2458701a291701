"""The driver of a sweep: feed the references to an executor, fold each record into the summary
as it arrives, hand it to a callback (the JSON writer, the progress bar) and let it go."""

from __future__ import annotations

import time
from typing import Callable, Iterable

from triage.sweep.executors import execute
from triage.sweep.summary import SweepSummary


def run_sweep(refs: Iterable, executor: str = "local", jobs: int | None = None, kb_dirs: tuple = (),
              address: str | None = None, network: bool = False, total: int | None = None,
              on_record: Callable[[dict, object], None] | None = None, source: str = "",
              charts: bool = True, charts_per_group: int = 12, documents: bool = True) -> SweepSummary:
    """Scan every run and return the finished summary. `on_record(record, run_summary)` sees each
    run's record once, as it finishes (with the whole scan document when `documents`); nothing
    else keeps it."""
    if total is None and hasattr(refs, "__len__"):
        total = len(refs)  # type: ignore[arg-type]
    summary = SweepSummary(source, charts_per_group=charts_per_group if charts else 0)
    info: dict = {}
    start = time.perf_counter()
    for record in execute(refs, executor, jobs, tuple(kb_dirs), address, network, charts, total, info, documents):
        kept = summary.add(record)
        if on_record is not None:
            on_record(record, kept)
    return summary.finish(time.perf_counter() - start, info.get("executor", executor), info.get("workers", 0))
