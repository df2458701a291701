"""`Monitor`: the detectors of `triage scan`, fed point by point from inside a training loop.

    from triage.integrations import Monitor

    monitor = Monitor(stop_on=("nan", "divergence"), report="triage-report.html")
    for step, batch in enumerate(loader):
        loss = ...; loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step(); optimizer.zero_grad()
        if monitor.log(step, loss=loss.item(), grad_norm=grad_norm.item()):
            break                      # a stop_on finding: stop cleanly (save, then leave the loop)
    monitor.close()                    # end-of-run verdicts, the report, pending notifications

What it costs, and why it stays small:
* `log` appends each value to a per-metric buffer (a few microseconds per call). Each buffer is
  bounded (`max_points`): when full, its older half is merged in pairs (the mean of two
  neighbours; a NaN or inf stays visible), so recent points keep full resolution and memory stays
  flat however long the run is.
* The detectors run on a cadence set by their own cost: after an evaluation that took `c`
  seconds, the next waits until `c / budget` seconds have passed (budget 1%: an evaluation of 3
  ms at most every 0.3 s). The first non-finite value of a metric is evaluated at once, so a NaN
  is never waited for. `budget=None` evaluates at every call (deterministic: what multi-process
  runs need so that every rank decides to stop at the same step).
* While the run goes on only the detectors of live categories run (NaN and instability, see
  triage.engine.watch); `close()` runs them all once.
Values may be floats, ints, numpy scalars or 0-d tensors (a tensor is read with `float()`, which
waits for the device: pass `loss.item()` where you already compute it for your own logging).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from triage.engine.watch import (
    LIVE_CATEGORIES, LiveFindings, alert_text, describe, lead_for, live_detector_ids, seen_at, stop_matcher,
)

PREFIX = "[triage] "
SECRET_WORDS = ("token", "secret", "password", "passwd", "api_key", "apikey", "credential", "webhook", "auth")


class _Column:
    """One metric's points, bounded: the older half is merged in pairs when the buffer is full."""

    __slots__ = ("steps", "values", "rows", "n", "cap")

    def __init__(self, cap: int):
        size = min(256, cap)
        self.steps = np.empty(size)
        self.values = np.empty(size)
        self.rows = np.empty(size, dtype=np.int64)
        self.n = 0
        self.cap = cap

    def append(self, step: float, value: float, row: int) -> None:
        n = self.n
        if n == len(self.values):
            self._make_room()
            n = self.n
        self.steps[n] = step
        self.values[n] = value
        self.rows[n] = row
        self.n = n + 1

    def _make_room(self) -> None:
        n = self.n
        if n < self.cap:  # grow
            size = min(self.cap, 2 * n)
            for name in ("steps", "values", "rows"):
                old = getattr(self, name)
                new = np.empty(size, dtype=old.dtype)
                new[:n] = old[:n]
                setattr(self, name, new)
            return
        h = (n // 2) & ~1  # the older half, an even count
        keep = n - h
        merged = h // 2
        v = self.values
        old_v = (v[0:h:2] + v[1:h:2]) / 2.0  # NaN or inf in either stays non-finite
        for name, first in (("steps", self.steps[0:h:2]), ("rows", self.rows[0:h:2]), ("values", old_v)):
            arr = getattr(self, name)
            tail = arr[h:n].copy()
            arr[:merged] = first
            arr[merged:merged + keep] = tail
        self.n = merged + keep

    def arrays(self):
        n = self.n
        return self.rows[:n].copy(), self.steps[:n].copy(), self.values[:n].copy()


def _number(v) -> float | None:
    """A logged value as a float, or None for what is not a number (strings, None, bools)."""
    if isinstance(v, bool) or v is None or isinstance(v, (str, bytes)):
        return None
    try:
        return float(v)
    except (TypeError, ValueError, OverflowError, RuntimeError):
        return None


def safe_config(config: dict | None) -> dict:
    """The scalar settings of a run, without anything that looks like a credential."""
    out = {}
    for key, value in (config or {}).items():
        k = str(key)
        if any(w in k.lower() for w in SECRET_WORDS):
            continue
        if isinstance(value, (str, int, float, bool)) or value is None:
            out[k] = value
    return out


class Monitor:
    """Feeds triage's detectors from a training loop; see the module docstring.

    stop_on: finding names that stop training ('nan', 'divergence', a category, a detector ID).
    notify: a webhook URL (or env:NAME) that gets each new finding once (triage.notify).
    report: where `close()` writes the report (.html or .md), or None.
    name: how messages and the report name the run. out: a stream or a function taking one line
    (default: standard error). budget: the share of wall time the checks may use (None: check at
    every call). live: the categories reported while the run goes on ('all' for every detector).
    source: the log format whose metric names the keys follow (e.g. 'hf_state'); config: the run's
    settings (gradient accumulation, clipping, precision answer questions, as in a config file).
    """

    def __init__(self, *, stop_on=(), notify: str | None = None, report: str | None = None, kb=None,
                 name: str = "training run", out=None, budget: float | None = 0.01, max_points: int = 20_000,
                 live=LIVE_CATEGORIES, source: str = "jsonl", config: dict | None = None, quiet: bool = False,
                 notify_timeout: float = 5.0):
        from triage import api

        self.kb = kb if kb is not None else api.load_kb()
        self.name = name
        self.source = source
        self.config = safe_config(config)
        self.report = report
        self.budget = budget
        self.quiet = quiet
        self._out = out
        self._matcher = stop_matcher(self.kb, stop_on)
        self.stop_on = tuple([stop_on] if isinstance(stop_on, str) else stop_on or ())
        live = None if live in (None, "all") else ((live,) if isinstance(live, str) else tuple(live))
        self._live = LiveFindings(live)
        ids = live_detector_ids(self.kb, live)
        if ids is not None:  # a category or detector named in stop_on runs live too
            names = {str(x) for x in self.stop_on}
            ids |= {n.id for n in self.kb.by_kind("detector") if n.id in names or str(n.get("category")) in names}
        self._live_ids = ids
        self._notifier = None
        if notify:
            from triage.notify import Notifier

            self._notifier = Notifier(notify, timeout=notify_timeout, warn=self._say)
        self._cap = max(64, int(max_points))
        self._cols: dict[str, _Column] = {}
        self._skip: set[str] = set()
        self._bad: set[str] = set()  # metrics that had a non-finite value already
        self._trigger = False
        self._calls = 0
        self._next_due = 0.0
        self._model = None
        self._closed = False
        self.step: float | None = None
        self.should_stop = False
        self.stop_reason: str | None = None
        self._stopper: tuple[str, str] | None = None  # (detector, stop_on name) that stopped the run
        self.evaluations = 0
        self.check_seconds = 0.0
        self.faults = 0
        self.run = None
        self.doc: dict | None = None

    # -- feeding ---------------------------------------------------------------------------------
    def log(self, step=None, **metrics) -> bool:
        """Record one step's metrics; True when a `stop_on` finding says to stop training."""
        return self.update(step, metrics)

    def update(self, step, metrics: dict) -> bool:
        """`log` with the metrics as a dict (for names that are not identifiers: 'eval/loss')."""
        self._calls += 1
        s = float(step) if step is not None else float(self._calls)
        self.step = s
        cols = self._cols
        for key, v in metrics.items():
            if type(v) is not float:
                v = _number(v)
                if v is None:
                    continue
            col = cols.get(key)
            if col is None:
                if key in self._skip or self._is_axis(key):
                    continue
                col = cols[key] = _Column(self._cap)
            col.append(s, v, self._calls)
            if v - v != 0.0 and key not in self._bad:  # NaN or inf, the first time for this metric
                self._bad.add(key)
                self._trigger = True
        if self._trigger or self.budget is None or time.perf_counter() >= self._next_due:
            try:
                self.evaluate()
            except Exception as exc:  # a fault in the checks must never end the user's training
                self._fault(exc)
        return self.should_stop

    def _fault(self, exc: Exception) -> None:
        self.faults += 1
        if self.faults == 1:
            self._say(f"{PREFIX}a check failed ({type(exc).__name__}: {exc}); training goes on, "
                      "please report this with the traceback from TRIAGE_DEBUG=1")
        if os.environ.get("TRIAGE_DEBUG"):
            raise exc
        if self.budget:
            self._next_due = time.perf_counter() + 10.0  # and do not retry at once

    def _is_axis(self, key: str) -> bool:
        from triage.ingest.aliases import table

        axes = table().axes
        if any(key in axes.get(kind, ()) for kind in ("step", "epoch", "wall", "ignore")):
            self._skip.add(key)
            return True
        return False

    # -- checking --------------------------------------------------------------------------------
    def build_run(self):
        """The points so far as a canonical Run (the reader's name mapping, de-duplication)."""
        from triage.ingest.builder import RunBuilder

        b = RunBuilder(self.name, self.source)
        for key, col in self._cols.items():
            if col.n:
                b.add_block(key, *col.arrays())
        b.meta["rows"] = self._calls
        run = b.build()
        if self.config:
            run.meta["config"] = dict(self.config)
            run.meta["config_path"] = f"{self.name} settings"
        return run

    def evaluate(self, final: bool = False) -> list:
        """Run the checks now; print, post and act on what is new. Returns the new findings."""
        from triage.detect import run_detectors

        t0 = time.perf_counter()
        self._trigger = False
        run = self.build_run()
        self.run = run
        findings = run_detectors(run, self.kb, only=None if final else self._live_ids)
        new = self._live.update(findings, final=final)
        if not final and not self.should_stop:
            for f in findings:
                hit = self._matcher(f)
                if hit:
                    self.should_stop = True
                    self.stop_reason = f"stop_on={hit}: {f.summary}"
                    if f.detector not in self._live.reported:  # a stop_on finding outside the live categories
                        self._live.mark(f)
                        new.append(f)
                    self._stopper = (f.detector, hit)
                    break
        t1 = time.perf_counter()
        if new:
            self._announce(new, run, final)
        cost = t1 - t0  # the checks' own cost sets the cadence; announcing (rare) does not
        self.evaluations += 1
        self.check_seconds += time.perf_counter() - t0
        if self.budget and self.evaluations > 1:  # the first one pays one-off imports and caches
            self._next_due = t1 + cost / self.budget
        return new

    def _announce(self, new: list, run, final: bool) -> None:
        if self._model is None:
            from triage.engine.diagnosis import Model

            self._model = Model(self.kb)
        known = list(self._live.reported.values())
        stopper = self._stopper
        at = "at the end" if final else seen_at(run)
        for f in new:
            lead = lead_for(self.kb, run, known, f, self._model)
            for line in describe(f, lead, prefix=PREFIX, at=at):
                self._say(line)
            stopped = stopper[1] if stopper and stopper[0] == f.detector else None
            if self._notifier is not None:
                self._notifier.post(alert_text(self.name, f, lead, stopped, at=at))
        if stopper and any(f.detector == stopper[0] for f in new):
            self._say(f"{PREFIX}stopping training at {seen_at(run) or 'this step'} (stop_on={stopper[1]})")

    def findings(self) -> list:
        """The findings of the latest evaluation (reported ones first)."""
        return self._live.summary()

    # -- the end ---------------------------------------------------------------------------------
    def close(self) -> dict | None:
        """Check the whole run once more with every detector, print what is new, write the
        report and send pending notifications. Returns the scan document (None when nothing was
        logged). Safe to call twice."""
        if self._closed:
            return self.doc
        self._closed = True
        try:
            if not self._cols:
                return None
            from triage import api

            try:
                self.evaluate(final=True)
                doc = api.scan(self.name, kb=self.kb, run=self.run)
            except Exception as exc:  # the end of training is no place for a traceback of ours
                self._fault(exc)
                return None
            self.doc = doc
            n = len(doc["findings"])
            tail = f"; {n} finding(s)" if n else "; no findings"
            if self.report:
                try:
                    from triage.render.files import write_report

                    where = write_report(doc, str(self.report), kb=self.kb)
                    tail += f"; report: {where}"
                except (api.TriageError, OSError) as exc:
                    tail += f"; report not written ({exc})"
            top = doc["causes"][0] if doc["causes"] else None
            if top:
                tail += f"; most likely {top['id']} {top['title']}"
            self._say(f"{PREFIX}{self.name}: {self._calls:,} records, checked {self.evaluations} time(s) "
                      f"in {self.check_seconds:.2f} s{tail}")
            return doc
        finally:
            if self._notifier is not None:
                self._notifier.close()

    def __enter__(self) -> Monitor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- helpers ---------------------------------------------------------------------------------
    def _say(self, line: str) -> None:
        if self.quiet:
            return
        out = self._out
        if out is None:
            print(line, file=sys.stderr, flush=True)
        elif callable(out) and not hasattr(out, "write"):
            out(line)
        else:
            out.write(line + "\n")
            try:
                out.flush()
            except (AttributeError, OSError, ValueError):
                pass


__all__ = ["Monitor", "safe_config"]
