"""Detectors: answer questions automatically from a `Run`.

A detector is knowledge (knowledge/detectors/<id>.yaml): which metric, which generic check
(triage.detect.checks), which thresholds, and which question it answers. This module only
runs them and turns hits into `Finding`s.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field

from triage.detect import checks as _checks
from triage.detect.checks import CHECKS, PARAMS, Ctx
from triage.detect.checks import series_matching as _candidates
from triage.detect.params import ParamProblem, Params, parse
from triage.kb.base import KnowledgeBase, _as_list
from triage.kb.frameworks import framework_table
from triage.kb.schema import normalise_answer


@dataclass
class Finding:
    detector: str
    symptom: str
    answer: str
    metric: str
    summary: str
    first_step: float | None = None
    last_step: float | None = None
    category: str | None = None  # the Q-start answer this finding implies
    title: str = ""
    numbers: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "detector": self.detector,
            "symptom": self.symptom,
            "answer": self.answer,
            "metric": self.metric,
            "first_step": _step(self.first_step),
            "last_step": _step(self.last_step),
            "summary": self.summary,
        }


def _step(x):
    if x is None:
        return None
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    if x != x:  # NaN
        return None
    return int(x) if x.is_integer() else x


def detectors(kb: KnowledgeBase) -> list:
    return sorted(kb.by_kind("detector"), key=lambda n: n.id)


def applies(node, run) -> bool:
    """The detector's `requires` / `requires_any` / `unless` metric lists gate it on what else
    the run logs (a GRPO run's zero gradient norm is the reward detectors' business);
    `frameworks` / `except_frameworks` on the framework that wrote it."""
    for name in _as_list(node.get("requires")):
        if run.get(str(name)) is None:
            return False
    for name in _as_list(node.get("unless")):
        if run.get(str(name)) is not None:
            return False
    any_of = _as_list(node.get("requires_any"))
    if any_of and not any(run.get(str(name)) is not None for name in any_of):
        return False
    only = _as_list(node.get("frameworks"))
    if only and run.meta.get("framework") not in {str(f) for f in only}:
        return False  # a range that holds for some frameworks' default optimizer only
    if run.meta.get("framework") in {str(f) for f in _as_list(node.get("except_frameworks"))}:
        return False  # what this framework prints breaks the check's premise
    return True


_PARAMS: dict[int, tuple[object, Params | None, list[ParamProblem]]] = {}


def detector_params(node) -> tuple[Params | None, list[ParamProblem]]:
    """The detector's params as its check's dataclass (built once per node), and the problems
    that kept it from being built (`triage kb check` reports them with file and line)."""
    key = id(node)
    hit = _PARAMS.get(key)
    if hit is not None and hit[0] is node:
        return hit[1], hit[2]
    cls = PARAMS.get(str(node.get("check")))
    if cls is None:
        params, problems = None, [ParamProblem("check", f"unknown check {node.get('check')!r}")]
    else:
        params, problems = parse(cls, node.get("params"))
    if len(_PARAMS) > 4096:
        _PARAMS.clear()
    _PARAMS[key] = (node, params, problems)
    return params, problems


def run_detector(node, run) -> Finding | None:
    check = CHECKS.get(str(node.get("check")))
    if check is None or not applies(node, run):
        return None
    params, problems = detector_params(node)
    if params is None:  # a knowledge folder that skipped `triage kb check`: say so, never guess
        if hasattr(run, "warn"):
            run.warn(f"detector {node.id} skipped: {problems[0].message}")
        return None
    metrics = [str(m) for m in _as_list(node.get("metric"))]
    import numpy as np

    hit, name = None, "log"
    if not metrics:
        hit = check(Ctx(run, name, np.empty(0), np.empty(0), params))
    for series in _candidates(run, metrics) if metrics else []:
        hit = check(Ctx(run, series.name, series.steps, series.values, params))
        if hit is not None:
            name = series.name
            break
    if hit is None:
        return None
    answers = node.get("answers") or {}
    summary = hit.summary
    template = node.get("summary")
    if isinstance(template, str) and template.strip():
        summary = f"{template.strip()}: {hit.summary}"
    return Finding(
        detector=node.id,
        symptom=str(answers.get("symptom")),
        answer=normalise_answer(hit.answer or answers.get("answer")),
        metric=name,
        summary=summary,
        first_step=hit.first_step,
        last_step=hit.last_step,
        category=str(node.get("category")) if node.get("category") else None,
        title=node.title,
        numbers=hit.numbers,
    )


STUB_ROWS = 5  # a last run with fewer points than this, beside one four times as long, is a stub


def _segments(run) -> list[tuple[float, float, int]]:
    """(first step, end step, points) of each run a file holds, in order."""
    import numpy as np

    starts = run.meta.get("run_starts") if hasattr(run, "meta") else None
    edges = [-np.inf] + [float(x) for x in starts or ()] + [np.inf]
    return [(lo, hi, max((int(((s.steps >= lo) & (s.steps < hi)).sum()) for s in run.series.values()), default=0))
            for lo, hi in zip(edges[:-1], edges[1:])]


def _view(run, lo: float, hi: float):
    """The part of `run` between two steps, as a run of its own."""
    import copy

    view = copy.copy(run)
    view.meta = dict(run.meta)
    view.meta.pop("run_starts", None)
    view.series = {}
    for key, s in run.series.items():
        keep = (s.steps >= lo) & (s.steps < hi)
        if not keep.any():
            continue
        part = copy.copy(s)
        part.steps, part.values = s.steps[keep], s.values[keep]
        part.epochs = s.epochs[keep] if s.epochs is not None else None
        part.wall = s.wall[keep] if s.wall is not None else None
        view.series[key] = part
    return view


def _picked(sizes: list[int]) -> int:
    pick = len(sizes) - 1
    longest = max(range(len(sizes)), key=lambda i: sizes[i])
    if sizes[pick] < STUB_ROWS and sizes[pick] * 4 < sizes[longest]:
        pick = longest
    return pick


def last_run(run):
    """The last of several runs printed into one file (`meta["run_starts"]`, set by the reader),
    as a run of its own: the checks judge one training run, and a file that trains three models
    one after the other would otherwise show a 'spike' wherever the next model starts. When the
    last run is a stub beside a real one (a few rows: a smoke test, a one-epoch export after the
    training), the longest run is judged instead. A file of one run is returned as it is."""
    starts = run.meta.get("run_starts") if hasattr(run, "meta") else None
    if not starts:
        return run
    segments = _segments(run)
    lo, hi, _ = segments[_picked([n for _, _, n in segments])]
    return _view(run, lo, hi)


def run_detectors(run, kb: KnowledgeBase, only: set[str] | None = None) -> list[Finding]:
    """Every detector that fires on `run`, in a stable order (by first step, then ID). A file that
    holds several runs one after the other is judged run by run: the last one (or the longest, when
    the last is a stub) as the run, and each earlier run for what it shows that the last does not
    (a notebook whose first attempt reached inf before the fix; a run resumed after it crashed).
    An earlier run's finding says which run it is. How well an earlier run generalised (its
    findings of category `overfit`) is not the file's problem: the runs of a search, the folds of a
    cross-validation or the trials stopped early are there to be compared, and the run kept is the
    one judged."""
    code = code_findings(run, kb, only)
    if not (hasattr(run, "meta") and run.meta.get("run_starts")):
        return _detect(run, kb, only) + code
    segments = _segments(run)
    pick = _picked([n for _, _, n in segments])
    found = _detect(_view(run, *segments[pick][:2]), kb, only)
    fired = {f.detector for f in found}
    for k, (lo, hi, n) in enumerate(segments):
        if k == pick or n < STUB_ROWS:
            continue
        for f in _detect(_view(run, lo, hi), kb, only):
            if f.detector not in fired and f.category != "overfit":
                fired.add(f.detector)
                f.summary = f"run {k + 1} of {len(segments)} in this file: {f.summary}"
                found.append(f)
    return _by_step(found) + code


CODE_QUESTION = "Q-code-finding"


def code_findings(run, kb: KnowledgeBase, only: set[str] | None = None) -> list[Finding]:
    """The bugs read in the run's own code (a notebook's cells, the scripts beside a log:
    triage.ingest.code), as findings that answer Q-code-finding with the knowledge's label for each. A bug plain in the code is
    evidence whatever the curve shows (the question's own help says so), so these count like any
    detector's finding; they have no step and come after the curve's findings."""
    facts = run.meta.get("code_facts") if hasattr(run, "meta") else None
    node = kb.nodes.get(CODE_QUESTION)
    if not facts or node is None:
        return []
    labels = {normalise_answer(a.get("value", "")): str(a.get("label", ""))
              for a in _as_list(node.get("answers")) if isinstance(a, dict)}
    memory_only = {normalise_answer(a.get("value", "")) for a in _as_list(node.get("answers"))
                   if isinstance(a, dict) and _favours_only_memory(kb, a)}
    out = []
    for fact in facts:
        answer = normalise_answer(str(fact.get("answer", "")))
        detector = f"code-{answer}"
        if answer not in labels or (only and detector not in only):
            continue
        if answer in memory_only and getattr(run, "series", None) and not _ran_out_of_memory(run):
            continue  # (a graph kept alive costs memory; beside a log that never ran out of it, it explains nothing)
        where = (f"{fact['source']} line {fact.get('line')}" if fact.get("source")
                 else f"cell {fact.get('cell')}, line {fact.get('line')}")
        out.append(Finding(detector, CODE_QUESTION, answer, "code",
                           f"in the code, {where}: `{fact.get('text', '')}`: {fact.get('why', '')}",
                           category="code-review", title=labels[answer]))
    return out


def _favours_only_memory(kb: KnowledgeBase, answer: dict) -> bool:
    """An answer whose causes are all of the memory family (evaluation without no_grad, a graph kept in a total)."""
    ids = [str(x) for x in _as_list(answer.get("favours"))]
    return bool(ids) and all(kb.nodes.get(i) is not None and kb.nodes[i].get("family") == "memory" for i in ids)


_OUT_OF_MEMORY = re.compile(r"out of memory|OutOfMemory|\bOOM\b|MemoryError|Cannot allocate memory|std::bad_alloc", re.I)


def _ran_out_of_memory(run) -> bool:
    return any(_OUT_OF_MEMORY.search(str(getattr(e, "text", "") or "")) for e in getattr(run, "events", ()) or ())


def _by_step(found: list[Finding]) -> list[Finding]:
    """Findings in a stable order: by first step (those without one last), then ID."""
    return sorted(found, key=lambda f: (f.first_step if f.first_step is not None and f.first_step == f.first_step
                                        else float("inf"), f.detector))


# A run with this many points over all its series is judged on two processes (when it has two CPUs): each
# detector reads its series end to end, so on a million-row log the detectors take longer than the reading.
PARALLEL_POINTS = 400_000

_Outcome = tuple[int, "Finding | None", list[str]]  # (detector's place, its finding, the warnings it gave)


def _run_each(nodes, run) -> list[_Outcome]:
    """Run these (place, detector) pairs, taken one at a time from any iterable; each one's warnings are
    taken off the run and kept with it, so that they can go back in the detectors' order however the work
    was split."""
    out: list[_Outcome] = []
    meta = run.meta if hasattr(run, "meta") else {}
    for i, node in nodes:
        before = len(meta.get("warnings") or ())
        finding = None
        try:
            finding = run_detector(node, run)
        except (ValueError, ZeroDivisionError, FloatingPointError, OverflowError, IndexError) as exc:  # never crash a scan
            run.warn(f"detector {node.id} skipped: {exc}") if hasattr(run, "warn") else None
        said = meta.get("warnings") or []
        out.append((i, finding, said[before:]))
        del said[before:]
    return out


def _points(run) -> int:
    series = getattr(run, "series", None) or {}
    return sum(len(s.values) for s in series.values()) if isinstance(series, dict) else 0


def _two_cpus() -> bool:
    from triage.ingest.parts import can_fork_parts

    return can_fork_parts()


def _queue(n: int) -> int:
    """A pipe holding the places 0..n-1, four bytes each, its write end closed: the read end is a queue that
    this process and a forked child both take from (a read of four bytes takes one place whole, and the
    kernel hands each place to one reader). Returns the read end, non-blocking."""
    import os
    import struct

    r, w = os.pipe()
    try:
        os.write(w, struct.pack(f"<{n}I", *range(n)))  # (n <= 16,384 fits a pipe's 64 KiB: written whole)
    finally:
        os.close(w)
    os.set_blocking(r, False)
    return r


def _taken(queue: int, placed: list):
    """The (place, detector) pairs this process takes from the queue, one at a time, until it is empty."""
    import os
    import struct

    while True:
        try:
            got = os.read(queue, 4)
        except BlockingIOError:
            return
        if len(got) < 4:
            return
        yield placed[struct.unpack("<I", got)[0]]


def _run_all(nodes: list, run) -> list[_Outcome]:
    """Every detector's outcome, in the detectors' order. A big run is split: a forked child and this
    process take detectors from one queue until none is left, so neither waits while the other runs the
    costly ones (the child's copy of the run costs nothing until written). A child that fails has the
    detectors it took run here."""
    import os

    placed = list(enumerate(nodes))
    if len(placed) < 2 or len(placed) > 16_384 or _points(run) < PARALLEL_POINTS or not _two_cpus():
        return _run_each(placed, run)
    from triage.ingest import parts

    try:
        queue = _queue(len(placed))
    except OSError:
        return _run_each(placed, run)
    try:
        try:
            pid, fd = parts.fork_part(lambda: _run_each(_taken(queue, placed), run), None)
        except OSError:  # no more processes
            return _run_each(placed, run)
        try:
            mine = _run_each(_taken(queue, placed), run)  # (one at a time: the child takes the others)
            got = parts.collect(pid, fd, None)
        except BaseException:
            parts.stop_children({0: (pid, fd)}, {})
            raise
    finally:
        os.close(queue)
    done = {outcome[0] for outcome in mine + (got or [])}
    missed = [pair for pair in placed if pair[0] not in done]  # (the failed child's detectors)
    return sorted(mine + (got or []) + _run_each(missed, run), key=lambda outcome: outcome[0])


def _detect(run, kb: KnowledgeBase, only: set[str] | None) -> list[Finding]:
    if "framework" not in run.meta:  # the detectors written for some frameworks only need to know which
        hit = framework_table(kb).recognised(run)
        run.meta["framework"] = hit[0].id if hit else None
    try:
        outcomes = _run_all([node for node in detectors(kb) if not only or node.id in only], run)
    finally:
        _checks.clear_cache()
    found = []
    for _, finding, said in outcomes:
        for message in said:
            run.warn(message)
        if finding is not None:
            found.append(finding)
    fired = {f.detector for f in found}
    hidden = {str(h) for n in detectors(kb) if n.id in fired for h in _as_list(n.get("supersedes"))}
    # (and a finding a more specific one restates about the same series: one on another metric is another fact)
    on_metric: dict[str, set[str]] = {}
    for f in found:
        on_metric.setdefault(f.detector, set()).add(f.metric)
    hidden_on = {(str(h), m) for n in detectors(kb) if n.id in fired
                 for h in _as_list(n.get("supersedes_same_metric")) for m in on_metric[n.id]}
    found = [f for f in found if f.detector not in hidden and (f.detector, f.metric) not in hidden_on]
    return _by_step(found)


__all__ = ["CHECKS", "PARAMS", "Finding", "detector_params", "detectors", "last_run", "run_detector", "run_detectors"]
