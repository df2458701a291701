"""Follow a growing log and report each new finding once (`triage watch`).

The watcher re-reads the log when it changes (size or modification time) — readers tolerate a
partial last line, which is simply counted and picked up complete on the next poll — and runs
the detectors on what is there. A finding is reported once per detector; when the same detector
later describes a worse state (a larger share, more spikes) it is not repeated, but the summary
at the end shows its latest numbers. Polling backs off on big files: the wait between reads is
at least five times the last read's duration, so watching never eats the training box's CPU.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field


@dataclass
class WatchState:
    path: str
    seen: dict = field(default_factory=dict)  # detector -> latest Finding
    order: list = field(default_factory=list)
    reads: int = 0
    rows: int = 0
    last_signature: tuple | None = None
    last_read_s: float = 0.0
    errors: int = 0


class Watcher:
    def __init__(self, path: str, kb, fmt: str | None = None, interval: float = 2.0):
        self.path = path
        self.kb = kb
        self.fmt = fmt
        self.interval = interval
        self.state = WatchState(path)

    def _signature(self) -> tuple | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_size, st.st_mtime_ns)

    def poll(self) -> list:
        """Read the log if it changed; return the findings not reported before."""
        sig = self._signature()
        if sig is None or sig == self.state.last_signature:
            return []
        from triage.detect import run_detectors
        from triage.ingest import IngestError, read_run
        from triage.ingest.sidecar import attach

        t0 = time.perf_counter()
        try:
            run = read_run(self.path, self.fmt)
        except IngestError:
            self.state.errors += 1
            return []  # a log caught mid-write: try again next poll
        attach(run, self.path)
        self.state.last_read_s = time.perf_counter() - t0
        self.state.last_signature = sig
        self.state.reads += 1
        self.state.rows = int(run.meta.get("rows", 0))
        new = []
        for f in run_detectors(run, self.kb):
            if f.detector not in self.state.seen:
                self.state.order.append(f.detector)
                new.append(f)
            self.state.seen[f.detector] = f
        self.run = run
        return new

    def wait_time(self) -> float:
        return max(self.interval, 5 * self.state.last_read_s)

    def findings(self) -> list:
        return [self.state.seen[d] for d in self.state.order]
