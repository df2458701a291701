"""The Python API behind the command line. The CLI parses arguments and renders; the work is here.

    >>> from triage import api
    >>> kb = api.load_kb()
    >>> api.explain(kb, "O9").title
"""

from __future__ import annotations

import re

from triage.errors import ExitCode, TriageError
from triage.kb.base import KnowledgeBase
from triage.kb.loader import Node


class NothingRead(TriageError):
    """The input was read, but it held nothing to diagnose: no metric, no error line (`scan`
    exits 3: not healthy, and not unreadable either)."""

    exit_code = ExitCode.NOTHING_READ


class UnknownID(TriageError):
    def __init__(self, text: str, suggestions: list[str]):
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown ID {text!r}{hint} (`triage search WORDS` finds nodes by content)")
        self.text = text
        self.suggestions = suggestions


class KnowledgeInvalid(TriageError):
    """The knowledge base has broken files or duplicate IDs (`triage kb check` lists them all)."""


def load_kb(extra_roots: list[str] | None = None) -> KnowledgeBase:
    """The built-in knowledge plus TRIAGE_KB_PATH and `extra_roots`.

    Broken YAML or duplicate IDs make every command fail with a pointer to `triage kb check`,
    except `kb check` itself, which reports them all.
    """
    from triage.kb.loader import use_roots

    use_roots(extra_roots)  # the readers' metric names come from the same folders
    kb = KnowledgeBase.load(extra_roots)
    if kb.problems or kb.duplicates:
        first = kb.problems[0].args[0] if kb.problems else (
            f"duplicate ID {kb.duplicates[0][1].id}: {kb.duplicates[0][0].path} and {kb.duplicates[0][1].path}"
        )
        raise KnowledgeInvalid(f"knowledge base has problems: {first} (run `triage kb check` for all)")
    return kb


def explain(kb: KnowledgeBase, node_id: str) -> Node:
    node = kb.resolve(node_id)
    if node is None:
        raise UnknownID(node_id, kb.close_matches(node_id))
    return node


def check_kb(kb: KnowledgeBase):
    """Every problem `triage kb check` reports, detectors' checks and params included."""
    from triage.detect import PARAMS
    from triage.kb.validate import check

    return check(kb, check_params=PARAMS)


def search(kb: KnowledgeBase, text: str, limit: int = 10, kinds: tuple[str, ...] | None = None):
    from triage.kb.search import SearchIndex

    return SearchIndex(kb).search(text, limit=limit, kinds=kinds)


def graph(kb: KnowledgeBase):
    from triage.kb.graph import DecisionGraph

    return DecisionGraph(kb)


# -- scan ----------------------------------------------------------------------------------
MAX_TEXT_LINES = 20_000


def _stdin_to_file(path: str = "-") -> str:
    """Stdin (or a named pipe, `<(...)`, /dev/stdin), copied in chunks to a private temporary file
    so every reader (and the raw-text pass) can use it; memory stays flat however much is piped
    in, the file is removed if the copy is interrupted, and a named pipe nobody writes to is an
    error after a wait, not a hang (triage.ingest.source.spool)."""
    from triage.ingest.errors import IngestError
    from triage.ingest.source import spool

    try:
        return spool(path)
    except IngestError as exc:
        raise TriageError(str(exc)) from None


def _is_stream(path: str) -> bool:
    """A named pipe or a character device other than /dev/null: read like stdin, not as a file."""
    from triage.ingest.source import is_stream

    return path != "-" and is_stream(path)


def _raw_lines(path: str, limit_bytes: int = 5_000_000) -> list[tuple[int | None, str]]:
    from pathlib import Path

    from triage.ingest.errors import IngestError
    from triage.ingest.source import Source, decode

    p = Path(path)
    if not p.is_file():
        return []
    try:
        with Source.from_path(p).open() as fh:  # a gzipped note is read as its text, not its bytes
            raw = fh.read(limit_bytes)
    except (IngestError, OSError, EOFError):
        return []
    text = decode(raw)
    lines = text.split("\n")[:MAX_TEXT_LINES]  # numbered like the text reader numbers them (not splitlines)
    return [(i + 1, line.rstrip("\r")) for i, line in enumerate(lines)]


def read_input(path: str, fmt: str | None = None):
    """A log (or '-' for stdin) as a Run, plus its raw lines when it is plain text without
    metrics (a pasted traceback or a note), which the error patterns and the search read."""
    import os

    from triage.ingest import IngestError, read_run
    from triage.ingest.code import attach_scripts
    from triage.ingest.sidecar import attach

    tmp = _stdin_to_file(path) if path == "-" or _is_stream(path) else None
    source = tmp or path
    try:
        run = read_run(source, fmt)
        raw = _raw_lines(source) if (run.format == "text" and not run.series) else None
    except IngestError as exc:
        raise TriageError(str(exc).replace(source, path)) from None
    finally:
        if tmp:
            os.unlink(tmp)
    run.path = path
    attach(run, path)
    attach_scripts(run, path)
    if not run.series and str(path).endswith(".py") and os.path.basename(path) in (run.meta.get("scripts_read") or ()):
        run.format = "python-code"  # (a script given as the input: its code was read, no metrics)
    return run, raw


# a number printed to two or more decimals (`0.50397`, `25.31`): what programs print, rarely what people type
_MEASURED = re.compile(r"(?<![\w.])[-+]?\d+\.\d{2,}(?![\w.])")
_TAGGED = re.compile(r"\s*\[[A-Za-z][\w .:-]{0,30}\]")
_RULE = re.compile(r"\s*[^\w\s]{5,}\s*$")
# a settings line: `key: value`, `key = value`, `- item`, or a section heading (`model:`, `[train]`)
_SETTING = re.compile(r"\s*(?:-\s+\S+|\[[\w .-]+\]|-?\s*[\w.-]+\s*[:=]\s*(?:[^\s:=]+)?)\s*$")


def looks_like_prose(text: str) -> bool:
    """Short text a person wrote (a note, an issue description), not a log or a data file: most
    whitespace-separated tokens are words, few lines carry a logger prefix, and it is short."""
    from collections import Counter

    from triage.ingest.printed import clean, shape

    lines = [line for line in text.splitlines() if line.strip()]
    if not lines or len(lines) > 60 or len(text) > 8000:
        return False
    templates = Counter(shape(clean(line))[0] for line in lines)
    if len(lines) >= 3 and templates.most_common(1)[0][1] >= max(3, len(lines) // 2):
        return False  # one sentence printed again and again with new numbers is a program's output
    if len(lines) >= 4 and sum(1 for line in lines if _SETTING.match(line)) >= 0.5 * len(lines):
        return False  # a config dump (YAML, INI, key = value): settings, not a description of a problem
    measured = sum(1 for line in lines if _MEASURED.search(line))
    if measured >= 3 and measured >= 0.25 * len(lines):
        return False  # line after line of numbers to several decimals (scores, timings) is a program's report
    tokens = text.split()
    words = sum(1 for t in tokens if re.fullmatch(r"[\"'(]*[A-Za-z][A-Za-z'-]*[.,;:!?)\"']*", t))
    # lines a program marks as its own: a logger prefix, a bracketed tag (`[LightGBM] [Info] ...`), or a
    # banner rule made of symbols only (`*****`, `=====`) framing a launcher's notice
    prefixed = sum(1 for line in lines if clean(line) != line.strip() or _TAGGED.match(line) or _RULE.match(line))
    return len(tokens) >= 3 and words >= 0.6 * len(tokens) and prefixed <= 0.3 * len(lines)


def scan(path: str, kb: KnowledgeBase | None = None, fmt: str | None = None, describe: str | None = None,
         run=None, model=None):
    """Read one input (a metrics log, a traceback, a description or a probe result), run the
    detectors, match error text and rank causes. Returns the input's `Report`
    (triage.engine.report): `report.to_json()` is its `scan --json` document.
    `model`: a triage.engine.diagnosis.Model of `kb` to reuse (scanning many runs: built once)."""
    from triage import __version__
    from triage.engine.diagnosis import Diagnosis
    from triage.engine.evidence import (Applied, about_training, apply_description, apply_probe, apply_run,
                                       is_probe_result)
    from triage.engine.report import Source, build_report
    from triage.kb.search import SearchIndex

    kb = kb or load_kb()
    diag = Diagnosis(kb, model)
    applied = Applied()
    index = SearchIndex(kb)  # builds its parts only when text needs them
    probe = is_probe_result(path) if fmt is None and run is None else None
    if probe is not None:
        apply_probe(diag, probe, applied, path)
        source = Source(path, "probe-result", 0, 0, [])
    else:
        raw = None
        if run is None:
            run, raw = read_input(path, fmt)
        from triage.detect import run_detectors

        source = Source.from_run(run)
        text_lines = apply_run(diag, run, run_detectors(run, kb), applied, index, raw)
        if not run.series and not text_lines and not applied.errors and describe is None \
                and not run.meta.get("code_facts") and not any(e.kind == "overflow" for e in run.events):
            text = "\n".join(line for _, line in raw or [])
            if run.format == "python-code":
                raise NothingRead(f"{path}: a Python script: read as code (parsed, never run) with the scripts beside it, "
                                  "and none of the bug patterns triage knows was found; give the run's log to judge "
                                  "the training itself")
            prose = bool(raw) and looks_like_prose(text)
            if prose and not about_training(kb, text):
                raise NothingRead(f"{path}: nothing read: text in words, but none of them is about training a model (no word "
                                  "such as loss, NaN, epoch, GPU, optimizer or gradient), so it was not matched against "
                                  "the knowledge; to describe a problem in words use --describe")
            if not prose:
                raise NothingRead(f"{path}: nothing read: no metrics or error lines found (looked for: metric lines such as "
                                  "`step 10 loss 2.31` or `{'loss': 2.31}`, JSON/CSV/TensorBoard/W&B/MLflow logs, "
                                  f"tracebacks and error lines){_unplaced_note(raw)}; to describe a problem in words use "
                                  "--describe")
            # a short note a person wrote: read it as a description in words
            apply_description(diag, index, text[:20_000], applied)
    if describe:
        apply_description(diag, index, describe, applied)
    return build_report(kb, diag, applied, [source], __version__, run=run)


def _unplaced_note(raw) -> str:
    """What a log that read nothing did print: lines of values in one repeated shape under names that are
    no metric triage knows and on no counter (said so the user sees why they were not read)."""
    from triage.ingest.printed import unplaced_values

    found = unplaced_values(line for _, line in raw or [])
    if found is None:
        return ""
    n, first, names = found
    shown = first if len(first) <= 80 else first[:77] + "..."
    named = ", ".join(f"'{k}'" for k in names[:4]) + (", ..." if len(names) > 4 else "")
    return (f"; {n} lines print values in one shape (`{shown}`), but no name among them ({named}) is a metric "
            "triage knows and none counts steps, so they were not read as a series")


def public(doc) -> dict:
    """The `scan --json` document of a `Report` (or the contract part of a legacy scan dict)."""
    from triage.engine.report import Report

    if isinstance(doc, Report):
        return doc.to_json()
    return {k: v for k, v in doc.items() if not k.startswith("_")}


def merge_runs(runs: list, label: str | None = None):
    """One run split over several files (a resumed job, shards of a log): series with the same
    name are joined and ordered by step; a step logged twice keeps its later value, and the
    repeats are counted as duplicates."""
    import numpy as np

    from triage.ingest.run import Run, Series

    merged = Run(label or "+".join(r.path for r in runs), "+".join(sorted({r.format for r in runs})))
    for key in ("rows", "restarts", "duplicates"):
        merged.meta[key] = int(sum(int(r.meta.get(key, 0) or 0) for r in runs))
    skipped: dict = {}
    for r in runs:
        for reason, n in (r.meta.get("skipped") or {}).items():
            skipped[reason] = skipped.get(reason, 0) + int(n)
        merged.meta["warnings"].extend(f"{r.path}: {w}" for w in r.meta.get("warnings") or [])
        merged.events.extend(r.events)
        if r.meta.get("config"):
            merged.meta.setdefault("config", {}).update(r.meta["config"])
    merged.meta["skipped"] = skipped
    names = {n for r in runs for n in r.series}
    for name in sorted(names):
        parts = [r.series[name] for r in runs if name in r.series]
        steps = np.concatenate([p.steps for p in parts])
        values = np.concatenate([p.values for p in parts])
        order = np.argsort(steps, kind="stable")
        steps, values = steps[order], values[order]
        if len(steps) > 1 and np.isfinite(steps).all():
            last = np.r_[steps[1:] != steps[:-1], True]  # keep the last value of each step
            merged.meta["duplicates"] += int((~last).sum())
            steps, values = steps[last], values[last]
        merged.series[name] = Series(name, parts[0].split, steps, values, source_key=parts[0].source_key)
    return merged


def diff(good: str, bad: str, kb: KnowledgeBase | None = None, fmt: str | None = None, tolerance: str | None = None,
         window: int = 20, metrics: list[str] | None = None) -> dict:
    """Compare a broken run with the last good one (`triage diff`): the `diff --json` document,
    with a `gate` section when `tolerance` is given. Raises triage.engine.diff.DiffError."""
    from triage import __version__
    from triage.engine import diff as D

    kb = kb or load_kb()
    tol = D.parse_tolerance(tolerance) if tolerance is not None else None
    good_run, bad_run = D.read_pair(good, bad, fmt, read=lambda path, f: read_input(path, f)[0])
    doc = D.diff_runs(good_run, bad_run, kb, __version__)
    if tol is not None:
        doc["gate"] = D.gate(good_run, bad_run, tol, window=window, metrics=metrics)
    return doc
