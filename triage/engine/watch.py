"""Follow a growing log (`triage watch`) and report each new finding once, and the live policy
the trainer callbacks share (triage.integrations).

Live policy (`LiveFindings`). Detectors judge a whole run. While a run is still going some of
their verdicts are premature: every classifier starts at ln C, so "the loss sits at chance" is
true of the first minutes of any healthy run. What can be judged on a run so far is what breaks
it now: non-finite values (category `nan`) and instability (category `unstable`: a gradient
norm that keeps growing, loss spikes, divergence). Those are reported as soon as a detector
fires; the verdicts about the curve's whole shape (a plateau, chance level, overfitting, RL
signals) wait for the end of the run (the callbacks' final evaluation, `watch`'s summary).
Measured on the labelled corpora in bench/ (69 healthy runs replayed point by point), reporting
every category live alarms on 19 healthy runs; this policy on 4 (three loss rebounds and one
gradient-norm episode above 10 that the finished runs no longer show).

Reading a live file (`Watcher`):
* the file is re-read when its signature changes (inode, size, mtime; for a folder, those of
  every file in it, so a log growing inside the folder is seen);
* a text log whose last line is unfinished (a writer caught mid-line, or block-buffered output)
  is read without that line: a cut number (`3.2` of `3.2e-04`) is never read as a value. A log
  that then stays unchanged for `settle` seconds is read whole (a finished log without a final
  newline);
* the findings shown are those of the latest read: a finding that no longer holds leaves the
  summary;
* a file that shrinks or is replaced (a new inode) is said so and read from scratch, and the
  findings the new content does not show are dropped (so that they are news again if they come
  back); the same happens silently to a file rewritten whole with new first bytes (a JSON document
  saved at each checkpoint). A file that disappears is reported once and watched for until it
  comes back (like `tail -F`); a path that does not exist yet is waited for.
Polling backs off on big files: the wait between reads is at least five times the last read's
duration, so watching never eats the training box's CPU.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

LIVE_CATEGORIES = ("nan", "unstable")
STOP_WORDS = {
    "nan": "a NaN or infinite value (category nan)",
    "divergence": "the loss diverged (a Q-spike-pattern answer of diverged)",
}
FINGERPRINT_BYTES = 4096
MAX_TAIL_SEARCH = 8 << 20  # how far back an unfinished last line is looked for
MAX_DIR_ENTRIES = 5000
MAX_DIR_DEPTH = 4


# -- which findings count when -------------------------------------------------------------------
def stop_matcher(kb, stop_on) -> Callable:
    """A predicate over findings for `stop_on` names: 'nan', 'divergence', a category (the Q-start
    answer a detector implies: unstable, no-learning, ...) or a detector ID. Unknown names raise
    ValueError listing the known ones, so a typo never silently disables the guard."""
    if isinstance(stop_on, str):
        stop_on = (stop_on,)
    names = [str(s).strip() for s in (stop_on or ()) if str(s).strip()]
    detectors = {n.id: n for n in kb.by_kind("detector")}
    categories = {str(n.get("category")) for n in detectors.values() if n.get("category")}
    unknown = [n for n in names if n not in STOP_WORDS and n not in categories and n not in detectors]
    if unknown:
        raise ValueError(f"stop_on: unknown {', '.join(map(repr, unknown))}; use 'nan', 'divergence', a category "
                         f"({', '.join(sorted(categories))}) or a detector ID (`triage kb list` shows them)")

    def matches(f) -> str | None:
        for n in names:
            if (n == "nan" and f.category == "nan") or (n == "divergence" and f.answer == "diverged") \
                    or n == f.category or n == f.detector:
                return n
        return None

    return matches


def live_detector_ids(kb, categories=LIVE_CATEGORIES) -> set[str] | None:
    """The detectors worth running while a run goes on (None: all of them)."""
    if categories is None or categories == "all":
        return None
    wanted = set(categories)
    return {n.id for n in kb.by_kind("detector") if str(n.get("category")) in wanted}


@dataclass
class LiveFindings:
    """Each finding reported once; the current ones (latest evaluation) for summaries.

    `update` takes every finding of one evaluation and returns the ones to report now: those in
    the live categories, or all of them when `final` (the run is over)."""

    categories: tuple | None = LIVE_CATEGORIES
    reported: dict = field(default_factory=dict)  # detector -> Finding as first reported
    current: dict = field(default_factory=dict)  # detector -> latest Finding
    order: list = field(default_factory=list)

    def is_live(self, f) -> bool:
        return self.categories is None or self.categories == "all" or f.category in self.categories

    def update(self, findings: list, final: bool = False, prune: bool = False) -> list:
        """`prune`: forget reported findings that no longer hold (the log was rewritten), so that
        they are reported again if they come back."""
        self.current = {f.detector: f for f in findings}
        if prune:
            for d in [d for d in self.reported if d not in self.current]:
                del self.reported[d]
                self.order.remove(d)
        new = []
        for f in findings:
            if f.detector in self.reported or not (final or self.is_live(f)):
                continue
            self.reported[f.detector] = f
            self.order.append(f.detector)
            new.append(f)
        return new

    def mark(self, f) -> None:
        """Count `f` as reported (a finding outside the live categories that is acted on now)."""
        if f.detector not in self.reported:
            self.reported[f.detector] = f
            self.order.append(f.detector)

    def summary(self) -> list:
        """The current findings: those reported first (in report order), then the rest."""
        first = [self.current[d] for d in self.order if d in self.current]
        return first + [f for d, f in self.current.items() if d not in self.reported]


# -- what a finding points at --------------------------------------------------------------------
@dataclass
class Lead:
    """A finding's most likely cause and its first knob, as `scan` would rank them."""

    cause: str
    title: str
    score: float
    knob: str = ""
    expect: str = ""


def rank(kb, run, findings: list, model=None):
    """The engine's differential from findings alone (the evidence path `api.scan` takes for a
    log, triage.engine.evidence.apply_run, without its error text): findings, the run's domain and
    framework, its config; the detectors are not run again."""
    from triage.engine.diagnosis import Diagnosis
    from triage.engine.evidence import Applied, apply_findings, apply_run

    diag = Diagnosis(kb, model)
    applied = Applied()
    if run is None:
        apply_findings(diag, list(findings), applied)
    else:
        apply_run(diag, run, list(findings), applied)
    return diag, diag.ranking(limit=40, with_evidence_only=True)


def rests_on(diag, cause_id: str, finding) -> bool:
    """Whether the cause's evidence includes `finding`: an answer to the finding's question that
    carries the finding's own sentence (a record, not a search in the formatted lines)."""
    support, _ = diag.reasons(cause_id)
    return any(r.question == finding.symptom and r.text == finding.summary for r in support)


def lead_for(kb, run, findings: list, finding, model=None) -> Lead | None:
    """The best-ranked cause whose evidence includes `finding` (else the overall top one)."""
    from triage.engine.frameworks import fix_entries

    diag, ranked = rank(kb, run, findings, model)
    if not ranked:
        return None
    pick = next((c for c in ranked if rests_on(diag, c.id, finding)), ranked[0])
    fixes = fix_entries(pick.node, diag)
    first = fixes[0] if fixes else {}
    return Lead(pick.id, pick.node.title, pick.probability, first.get("knob", ""), first.get("expect", ""))


def seen_at(run) -> str:
    """'step N' for the last step a run has logged (when a live finding was made), or ''."""
    from triage.detect.checks import step_str

    rng = run.steps_range() if run is not None else None
    return f"step {step_str(rng[1])}" if rng else ""


def describe(f, lead: Lead | None, prefix: str = "", at: str = "") -> list[str]:
    """A finding and its lead as plain lines (terminal, log file); `at`: when it was seen."""
    lines = [f"{prefix}{at + ': ' if at else ''}{f.summary}"]
    if lead is not None:
        lines.append(f"{prefix}  likely: {lead.cause}  {lead.title} ({lead.score:.0%})")
        if lead.knob:
            knob = lead.knob.splitlines()
            lines.append(f"{prefix}  knob:   {knob[0]}")
            lines.extend(f"{prefix}          {k}" for k in knob[1:])
        lines.append(f"{prefix}  more:   triage explain {lead.cause}")
    return lines


def alert_text(source: str, f, lead: Lead | None, stopped: str | None = None, at: str = "") -> str:
    """A finding as one chat message (Slack mrkdwn: bold title, the knob as code)."""
    lines = [f"*triage* · {source}" + (f" · {at}" if at else ""), f.summary]
    if lead is not None:
        lines.append(f"Likely: {lead.cause} {lead.title} ({lead.score:.0%})")
        if lead.knob:
            knob = lead.knob.strip()
            lines.append(f"Knob: `{knob}`" if "\n" not in knob else f"Knob:\n```\n{knob}\n```")
        lines.append(f"More: `triage explain {lead.cause}`")
    if stopped:
        lines.append(f"Training stopped (stop_on={stopped}).")
    return "\n".join(lines)


# -- following a file or a folder ----------------------------------------------------------------
@dataclass
class WatchState:
    path: str
    live: LiveFindings = field(default_factory=LiveFindings)
    reads: int = 0
    rows: int = 0
    last_signature: tuple | None = None  # of the last successful read
    seen_signature: tuple | None = None  # of the last poll
    last_read_s: float = 0.0
    errors: int = 0
    present: bool = False  # the path existed at the last poll
    ever_present: bool = False
    waiting_said: bool = False
    changed_at: float = 0.0  # monotonic time of the last change seen
    partial: bool = False  # the last read left out an unfinished last line
    fingerprint: bytes = b""
    resets: int = 0
    prune: bool = False  # the next read forgets findings that no longer hold
    read_file: str | None = None  # in a folder: the log file read, relative to it
    deleted: bool = False

    @property
    def seen(self) -> dict:  # detector -> latest finding (kept for callers of the old API)
        return self.live.current


class Watcher:
    """Re-reads a log as it grows; `poll()` returns the findings to report now."""

    def __init__(self, path: str, kb, fmt: str | None = None, interval: float = 2.0,
                 on_note: Callable[[str], None] | None = None, settle: float | None = None,
                 live: tuple | str | None = LIVE_CATEGORIES):
        self.path = path
        self.kb = kb
        self.fmt = fmt
        self.interval = interval
        self.settle = max(10.0, 5 * interval) if settle is None else settle
        self.on_note = on_note or (lambda text: None)
        self.state = WatchState(path, LiveFindings(live if live != "all" else None))
        self.run = None

    # -- signatures ------------------------------------------------------------------------------
    def _signature(self) -> tuple | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        if not os.path.isdir(self.path):
            return ("file", st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        return ("dir",) + tuple(_walk(self.path))

    def _fingerprint(self, size: int) -> bytes:
        try:
            with open(self.path, "rb") as fh:
                return hashlib.blake2b(fh.read(min(size, FINGERPRINT_BYTES)), digest_size=16).digest()
        except OSError:
            return b""

    def _replaced(self, sig: tuple) -> str | None:
        """How the log changed other than by growing since the last read ('was truncated', 'was
        replaced', or 'rewritten': same file, new content, as a JSON document is rewritten whole
        at each save), or None."""
        old = self.state.last_signature
        if old is None:
            return None
        if old[0] != sig[0]:
            return "was replaced"
        if sig[0] == "file":
            _, dev, ino, size, _ = sig
            if (dev, ino) != old[1:3]:
                return "was replaced"
            if size < old[3]:
                return "was truncated"
            if self.state.fingerprint and self._fingerprint(min(old[3], size)) != self.state.fingerprint:
                return "rewritten"
            return None
        # a folder: the log file read from it (other files, checkpoints among them, are rewritten at will)
        read = self.state.read_file
        prev = next((e for e in old[1:] if e[0] == read), None)
        now = next((e for e in sig[1:] if e[0] == read), None)
        if prev is None:
            return None
        if now is None or now[1] != prev[1]:
            return f"was replaced ({read})"
        if now[2] < prev[2]:
            return f"was truncated ({read})"
        return None

    def start_over(self, why: str | None) -> None:
        """What was read no longer exists (the file shrank, was replaced, or came back): the next
        read starts from scratch, and the findings it no longer shows are forgotten."""
        if why:
            self.on_note(why)
        st = self.state
        st.last_signature = None
        st.fingerprint = b""
        st.partial = False
        st.prune = True
        st.resets += 1

    # -- one poll --------------------------------------------------------------------------------
    def poll(self) -> list:
        """Read the log if it changed; return the findings to report now (each once)."""
        st = self.state
        sig = self._signature()
        now = time.monotonic()
        if sig is None:
            if st.present:
                st.present, st.deleted = False, True
                self.on_note(f"{self.path} was deleted or moved; waiting for it to come back")
            elif not st.ever_present and not st.waiting_said:
                st.waiting_said = True
                self.on_note(f"waiting for {self.path} to appear")
            return []
        if not st.present:
            if st.ever_present:
                self.start_over(f"{self.path} is back; reading it from the start")
            st.present, st.ever_present, st.deleted = True, True, False
        if sig != st.seen_signature:
            st.seen_signature, st.changed_at = sig, now
        if sig == st.last_signature and not (st.partial and now - st.changed_at >= self.settle):
            return []
        why = self._replaced(sig)
        if why:
            self.start_over(f"{self.path} {why}; starting over" if why != "rewritten" else None)
        return self._read(sig, now)

    def _read(self, sig: tuple, now: float) -> list:
        from triage.detect import run_detectors
        from triage.ingest import IngestError
        from triage.ingest.sidecar import attach

        st = self.state
        t0 = time.perf_counter()
        whole = now - st.changed_at >= self.settle
        try:
            run, partial = self._read_run(whole)
        except IngestError:
            st.errors += 1
            return []  # a log caught mid-write: try again next poll
        if run is None:  # nothing complete yet
            return []
        run.path = self.path
        attach(run, self.path)
        st.last_read_s = time.perf_counter() - t0
        st.last_signature = sig
        st.partial = partial
        if sig[0] == "file":
            st.fingerprint = self._fingerprint(sig[3])
        elif run.meta.get("file"):
            st.read_file = os.path.relpath(str(run.meta["file"]), self.path)
        st.reads += 1
        st.rows = int(run.meta.get("rows", 0))
        self.run = run
        prune, st.prune = st.prune, False
        return st.live.update(run_detectors(run, self.kb), prune=prune)

    def _read_run(self, whole: bool):
        """(run, whether an unfinished last line was left out); (None, False) when nothing is complete."""
        from triage.ingest import read_run

        p = Path(self.path)
        if not p.is_dir():
            return self._read_file(p, self.fmt, whole)
        from triage.ingest.registry import FORMATS, discover, resolve_format

        name = resolve_format(self.fmt)
        if name and FORMATS[name].read_dir is not None:
            return read_run(p, name), False
        found = discover(p, self.path)
        if found.read is not None:  # a layout that reads the whole folder (W&B, MLflow, TensorBoard)
            return read_run(p, self.fmt), False
        run, partial = self._read_file(found.path, name or found.fmt, whole)
        if run is not None:
            run.meta["file"] = str(found.path)
            if found.after is not None:
                found.after(run)
            for note in found.notes:
                run.warn(note)
        return run, partial

    def _read_file(self, path: Path, fmt: str | None, whole: bool):
        from triage.ingest import IngestError, read_run

        cut = None if whole else complete_length(path)
        if cut is None:
            return read_run(path, fmt), False
        if cut == 0:
            return None, True
        if fmt is None:  # sniff the whole file, so the cut copy is read the same way
            from triage.ingest.registry import sniff
            from triage.ingest.source import Source

            fmt = sniff(Source.from_path(path))
            if fmt == "binary":
                return read_run(path, None), False  # let the reader say what it is
        folder = tempfile.mkdtemp(prefix="triage-watch-")
        try:
            copy = Path(folder) / path.name  # the same name: sniffing and layouts look at it
            with open(path, "rb") as src, open(copy, "wb") as dst:
                _copy_prefix(src, dst, cut)
            try:
                run = read_run(copy, fmt)
            except IngestError as exc:
                raise IngestError(str(path), exc.reason.replace(str(copy), str(path))) from None
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return run, True

    def wait_time(self) -> float:
        if self.state.reads <= 1:  # the first read pays one-off imports: not a measure of the file
            return self.interval
        return max(self.interval, 5 * self.state.last_read_s)

    def findings(self) -> list:
        """The findings of the latest read (reported ones first)."""
        return self.state.live.summary()


def complete_length(path: Path) -> int | None:
    """The length of the file's complete lines when its last line is unfinished, else None (read
    it as it is: it ends with a newline, or it is binary or compressed, where lines mean nothing)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
            size = os.fstat(fh.fileno()).st_size
            if size == 0 or head[:2] in (b"\x1f\x8b", b"\xff\xfe", b"\xfe\xff"):
                return None  # gzip, or UTF-16 (whose newline is two bytes): read as it is
            from triage.ingest.source import is_binary

            if is_binary(head):
                return None
            fh.seek(size - 1)
            if fh.read(1) == b"\n":
                return None
            pos = size
            while pos > 0 and size - pos < MAX_TAIL_SEARCH:
                start = max(0, pos - (64 << 10))
                fh.seek(start)
                chunk = fh.read(pos - start)
                i = chunk.rfind(b"\n")
                if i >= 0:
                    return start + i + 1
                pos = start
            return 0 if pos == 0 else None
    except OSError:
        return None


def _copy_prefix(src, dst, n: int) -> None:
    try:
        while n > 0:
            sent = os.sendfile(dst.fileno(), src.fileno(), None, n)
            if sent == 0:
                break
            n -= sent
    except (AttributeError, OSError):
        src.seek(0)
        dst.seek(0)
        dst.truncate()
        while n > 0:
            chunk = src.read(min(n, 1 << 20))
            if not chunk:
                break
            dst.write(chunk)
            n -= len(chunk)


def _walk(root: str):
    """(relative path, (dev, inode), size, mtime) of the files in a folder, bounded in depth and count."""
    count = 0
    stack = [(root, 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            if count >= MAX_DIR_ENTRIES:
                return
            try:
                if e.is_dir(follow_symlinks=False):
                    if depth < MAX_DIR_DEPTH:
                        stack.append((e.path, depth + 1))
                    continue
                s = e.stat()
            except OSError:
                continue
            count += 1
            yield (os.path.relpath(e.path, root), (s.st_dev, s.st_ino), s.st_size, s.st_mtime_ns)
