"""The result of one diagnosis as typed records: what the renderers read and `scan --json` prints.

The engine builds a `Report` (`build_report`) from what it was fed (`Applied`) and the differential
(`Diagnosis`). Every ranked cause carries its evidence as `Evidence` records that point at what they
restate: a finding (by index into `Report.findings`), a question and its answer, or an error match (by
index into `Report.error_matches`). Renderers follow those indices; none of them re-reads a formatted
sentence to find where a line came from.

`Report.to_json()` is the `scan --json` contract (docs/json.md) and nothing else: the renderers'
own data (the run, the diagnosis, the error matches) never reaches it. `Report.from_json()` reads such a
document back (a saved `--json`, a test's document) so the Markdown and HTML reports render from either.

This module is also the one door from the renderers into the engine: besides the report types it
re-exports the engine types a view shows (`Answer`, `Candidate`, `Model`, `UNKNOWN`) and the words for a
question and an answer (`question_text`, `answer_label`), so `triage.render` imports nothing else here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from triage.engine.diagnosis import UNKNOWN, Answer, Candidate, Diagnosis, Model, Reason, TextEvidence

__all__ = [
    "Report", "Source", "Context", "FrameworkRef", "SetAside", "DefaultUsed", "Evidence", "Fix", "RankedCause",
    "OpenQuestion", "ProbeVerdict", "ErrorMatch", "ConfigAnswer", "build_report", "question_text", "answer_label",
    "UNKNOWN", "Answer", "Candidate", "Model", "Reason", "TextEvidence",
]


# -- words for questions and answers ---------------------------------------------------------------
def question_text(model: Model, qid: str) -> str:
    """A question as a person reads it (its `question`, else its title): prompts, transcripts, notes."""
    node = model.questions[qid]
    return str(node.get("question") or node.title).strip()


def answer_label(model: Model, qid: str, value: str) -> str:
    """An answer value in words ("don't know" for UNKNOWN; the value itself when it has no label)."""
    if value == UNKNOWN:
        return "don't know"
    return model.labels.get(qid, {}).get(value) or value


# -- what was read ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class FrameworkRef:
    """The framework that wrote the log, and the clue that gave it away."""

    id: str
    title: str
    because: str

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "because": self.because}


@dataclass(frozen=True)
class SetAside:
    """A cause with evidence for it that cannot apply to this run, and why (never dropped silently)."""

    id: str
    title: str
    reason: str

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "reason": self.reason}


@dataclass(frozen=True)
class DefaultUsed:
    """A framework default taken as evidence because the config does not set it."""

    question: str
    answer: str
    setting: str
    framework: str
    says: str
    source: str

    def to_json(self) -> dict:
        return {"question": self.question, "answer": self.answer, "setting": self.setting,
                "framework": self.framework, "says": self.says, "source": self.source}


@dataclass(frozen=True)
class Context:
    """What the run is: its framework, its domain, the domains its config rules out, the defaults
    used and the causes set aside (the `context` of a source in `scan --json`)."""

    framework: FrameworkRef | None = None
    domain: str | None = None
    domains_ruled_out: dict[str, str] = field(default_factory=dict)
    defaults: list[DefaultUsed] = field(default_factory=list)
    set_aside: list[SetAside] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"framework": self.framework.to_json() if self.framework else None, "domain": self.domain,
                "domains_ruled_out": dict(self.domains_ruled_out), "defaults": [d.to_json() for d in self.defaults],
                "set_aside": [a.to_json() for a in self.set_aside]}


@dataclass(frozen=True)
class Source:
    """One input that was read. Only `path` is known for an input that could not be read."""

    path: str
    format: str | None = None
    rows: int | None = None
    skipped: int | None = None
    metrics: list[str] | None = None
    context: Context | None = None

    @classmethod
    def from_run(cls, run) -> Source:
        """The contract's `sources` entry of a Run: its path, format, row and skipped-line counts, metrics."""
        return cls(run.path, run.format, int(run.meta.get("rows", 0)),
                   int(sum(run.meta.get("skipped", {}).values())), run.metrics())

    def with_context(self, context: Context | None) -> Source:
        return Source(self.path, self.format, self.rows, self.skipped, self.metrics, context)

    def to_json(self) -> dict:
        out: dict[str, Any] = {"path": self.path}
        for key in ("format", "rows", "skipped", "metrics"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.context is not None:
            out["context"] = self.context.to_json()
        return out


# -- what the evidence says ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Evidence:
    """One line of why a cause is ranked, with what it restates: `finding` (an index into
    `Report.findings`), `question`/`answer` (the answer it comes from) or `error` (an index into
    `Report.error_matches`). A document read back from JSON has the line only (`source` empty)."""

    text: str
    source: str = ""
    question: str | None = None
    answer: str | None = None
    finding: int | None = None
    error: int | None = None

    def line(self) -> str:
        """The line as `scan --json` writes it: the sentence and, in brackets, where it came from."""
        return f"{self.text} ({self.source})" if self.source else self.text


@dataclass(frozen=True)
class Fix:
    """A knob, its typical range and what should change in the logs (`framework`: written in the
    terms of the framework that wrote the log)."""

    knob: str
    range: str = ""
    expect: str = ""
    framework: str | None = None

    def to_json(self) -> dict:
        out = {"knob": self.knob, "range": self.range, "expect": self.expect}
        if self.framework is not None:
            out["framework"] = self.framework
        return out


@dataclass(frozen=True)
class RankedCause:
    """A cause with evidence for it, in ranked order (`score`: its share of the differential)."""

    id: str
    title: str
    score: float | None
    aliases: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    fix: list[Fix] = field(default_factory=list)

    def findings(self) -> list[int]:
        """The indices of the findings this cause rests on, in order, each once."""
        return sorted({e.finding for e in self.evidence if e.finding is not None})

    def to_json(self) -> dict:
        return {"id": self.id, "title": self.title, "score": self.score, "aliases": list(self.aliases),
                "evidence": [e.line() for e in self.evidence], "fix": [f.to_json() for f in self.fix]}


@dataclass(frozen=True)
class OpenQuestion:
    """A question the evidence left open that would narrow the ranking."""

    id: str
    question: str

    def to_json(self) -> dict:
        return {"id": self.id, "question": self.question}


@dataclass(frozen=True)
class ProbeVerdict:
    """A probe result that was read: its verdict counts even when none of its answers applied."""

    probe: str
    status: str
    message: str = ""
    path: str = ""

    def to_json(self) -> dict:
        return {"probe": self.probe, "status": self.status, "message": self.message, "path": self.path}


@dataclass(frozen=True)
class ErrorMatch:
    """One distinct error message that matched error patterns: where, how often, the causes it names."""

    line: int | None
    text: str
    count: int
    causes: list[str]
    cause: str
    pattern: str

    def to_json(self) -> dict:
        return {"line": self.line, "text": self.text, "count": self.count, "causes": list(self.causes),
                "cause": self.cause, "pattern": self.pattern}


@dataclass(frozen=True)
class ConfigAnswer:
    """A question the run's config answered: `key = value` in `file`."""

    question: str
    answer: str
    key: str
    value: Any
    file: str


# -- the report --------------------------------------------------------------------------------------
LEGACY_KEYS = {"_run": "run", "_applied": "applied", "_diag": "diagnosis"}


@dataclass(eq=False)
class Report(Mapping):
    """One input's diagnosis. `failure` is set (and little else) for an input that could not be read.

    The read-only mapping view (`report["causes"]`, `report.get("_run")`) is the dict this class
    replaced, kept for callers outside the engine and the renderers that still index it; new code
    reads the attributes. It holds the JSON document's keys plus `_run`, `_applied` and `_diag`."""

    version: str
    sources: list[Source]
    findings: list = field(default_factory=list)  # triage.detect.Finding
    causes: list[RankedCause] = field(default_factory=list)
    unanswered: list[OpenQuestion] = field(default_factory=list)
    healthy: bool = False
    probes: list[ProbeVerdict] = field(default_factory=list)
    error_matches: list[ErrorMatch] = field(default_factory=list)
    config_answers: list[ConfigAnswer] = field(default_factory=list)
    defaults: list[DefaultUsed] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # the reader's, about the input
    run: Any = None  # triage.ingest.Run
    diagnosis: Diagnosis | None = None
    failure: str | None = None
    outcome: str | None = None
    applied: Any = field(default=None, repr=False)  # triage.engine.evidence.Applied, for the mapping view

    @classmethod
    def failed(cls, path: str, message: str, outcome: str | None = None, version: str | None = None) -> Report:
        """The report of an input that could not be scanned: its JSON still has every contract key,
        empty, plus `error`/`errors` naming the path and why, so a script always gets a document."""
        from triage import __version__

        return cls(version or __version__, [Source(path)], failure=message, outcome=outcome)

    @property
    def path(self) -> str:
        """The first source's path ('?' when there is none): what one-line summaries lead with."""
        return str(self.sources[0].path) if self.sources else "?"

    def failed_probes(self) -> list[ProbeVerdict]:
        return [p for p in self.probes if p.status == "fail"]

    def to_json(self) -> dict:
        """The `scan --json` document, key for key (docs/json.md)."""
        doc: dict[str, Any] = {
            "version": self.version,
            "sources": [s.to_json() for s in self.sources],
            "findings": [f.to_dict() for f in self.findings],
            "causes": [c.to_json() for c in self.causes],
            "unanswered": [q.to_json() for q in self.unanswered],
            "healthy": self.healthy,
        }
        if self.probes:
            doc["probes"] = [p.to_json() for p in self.probes]
        if self.failure is not None:
            doc["error"] = self.failure
            doc["errors"] = [{"path": self.path, "error": self.failure}]
            if self.outcome:
                doc["outcome"] = self.outcome
        return doc

    @classmethod
    def from_json(cls, doc: Mapping) -> Report:
        """A `scan --json` document read back: the parts a report renders, entries of the wrong
        shape skipped (a hand-made document renders what it has). Evidence keeps its lines only."""
        from triage.detect import Finding

        def dicts(key: str) -> list[Mapping]:
            value = doc.get(key)
            return [x for x in value if isinstance(x, Mapping)] if isinstance(value, list) else []

        def text(f: Mapping, key: str) -> str:
            return str(f.get(key) or "")

        findings = [Finding(text(f, "detector"), text(f, "symptom"), text(f, "answer"), text(f, "metric"), text(f, "summary"),
                            f.get("first_step"), f.get("last_step"), title=text(f, "title"))
                    for f in dicts("findings")]
        causes = [RankedCause(str(c.get("id")), str(c.get("title") or ""), _number(c.get("score")),
                              [str(a) for a in c.get("aliases") or []], [Evidence(str(e)) for e in c.get("evidence") or []],
                              [Fix(str(f.get("knob", "")), str(f.get("range", "") or ""), str(f.get("expect", "") or ""),
                                   f.get("framework")) for f in c.get("fix") or [] if isinstance(f, Mapping)])
                  for c in dicts("causes")]
        questions = [OpenQuestion(str(q.get("id")), str(q.get("question", ""))) for q in dicts("unanswered")]
        probes = [ProbeVerdict(str(p.get("probe")), str(p.get("status")), str(p.get("message") or ""), str(p.get("path") or ""))
                  for p in dicts("probes")]
        sources = [_source_from_json(s) for s in dicts("sources")]
        return cls(str(doc.get("version") or ""), sources, findings, causes, questions, bool(doc.get("healthy")),
                   probes, failure=doc.get("error"), outcome=doc.get("outcome"))

    # -- the mapping view of the dict this class replaced --------------------------------------------
    def _legacy(self) -> dict:
        cached = self.__dict__.get("_json_cache")
        if cached is None:
            cached = self.__dict__["_json_cache"] = self.to_json()
        return cached

    def __getitem__(self, key: str) -> Any:
        if key in LEGACY_KEYS:
            return getattr(self, LEGACY_KEYS[key])
        return self._legacy()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._legacy())

    def __len__(self) -> int:
        return len(self._legacy())


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _source_from_json(s: Mapping) -> Source:
    ctx = s.get("context")
    context = None
    if isinstance(ctx, Mapping):
        fw = ctx.get("framework")
        framework = FrameworkRef(str(fw.get("id")), str(fw.get("title")), str(fw.get("because") or "")) \
            if isinstance(fw, Mapping) else None
        aside = [SetAside(str(a.get("id")), str(a.get("title") or ""), str(a.get("reason") or ""))
                 for a in ctx.get("set_aside") or [] if isinstance(a, Mapping)]
        defaults = [DefaultUsed(**{k: str(d.get(k) or "") for k in ("question", "answer", "setting", "framework", "says", "source")})
                    for d in ctx.get("defaults") or [] if isinstance(d, Mapping)]
        context = Context(framework, ctx.get("domain"), dict(ctx.get("domains_ruled_out") or {}), defaults, aside)
    metrics = s.get("metrics")
    return Source(str(s.get("path", "")), s.get("format"), s.get("rows"), s.get("skipped"),
                  [str(m) for m in metrics] if isinstance(metrics, list) else None, context)


# -- building one --------------------------------------------------------------------------------------
def build_report(kb, diag: Diagnosis, applied, sources: list[Source], version: str, run=None,
                 max_causes: int = 8) -> Report:
    """The report of a diagnosis: the causes with evidence for them, ranked (at most `max_causes`,
    none under 0.5% of the best), the questions worth asking next, and the verdict.

    Healthy means no finding, no error line and no failed probe counts against the run; probes that
    all passed, and nothing else, are healthy whatever causes their answers name (overfit-one-batch
    passing is one of O7's signs), and a healthy report ranks no cause."""
    findings = list(applied.findings)
    errors = [_error_match(e) for e in applied.errors]
    causes = _ranked_causes(diag, applied, findings, max_causes)
    unanswered = [OpenQuestion(q, kb[q].title) for q in diag.unanswered(5)] if causes or findings else []
    probes = [ProbeVerdict(str(p.get("probe")), str(p.get("status")), str(p.get("message") or ""), str(p.get("path") or ""))
              for p in applied.probes]
    failed = [p for p in probes if p.status == "fail"]
    only_passed = bool(probes) and not failed and not applied.described and all(p.status == "pass" for p in probes)
    healthy = not findings and not errors and not failed and (not causes or only_passed)
    defaults = [DefaultUsed(**d) for d in applied.defaults]
    sources = list(sources)
    if sources and run is not None:  # what the run is: its framework, domain, defaults used, causes set aside
        sources[0] = sources[0].with_context(_context(diag, defaults, with_set_aside=not healthy))
    return Report(
        version, sources, findings, [] if healthy else causes, unanswered, healthy, probes, errors,
        [ConfigAnswer(**c) for c in applied.config], defaults, list(applied.notes),
        [str(w) for w in (run.meta.get("warnings") or [])] if run is not None else [],
        run, diag, applied=applied,
    )


def _ranked_causes(diag: Diagnosis, applied, findings: list, max_causes: int) -> list[RankedCause]:
    from triage.engine.frameworks import fix_entries

    out: list[RankedCause] = []
    top = 0.0
    for cand in diag.ranked(with_evidence_only=True):
        top = top or cand.probability
        if len(out) >= max_causes or cand.probability < 0.005 * top:
            break
        node = cand.node
        support, _ = diag.reasons(cand.id)
        out.append(RankedCause(
            node.id, node.title, round(cand.probability, 4), [str(a) for a in (node.get("aliases") or [])],
            [_evidence(r, findings, applied) for r in support],
            [Fix(f["knob"], f["range"], f["expect"], f.get("framework")) for f in fix_entries(node, diag)],
        ))
    return out


def _evidence(reason: Reason, findings: list, applied) -> Evidence:
    """A reason with what it restates: the finding that answered its question with this very
    sentence (a detector's answer carries its findings' summaries), or the error match its text
    evidence was made from (recorded by position when the error text was applied)."""
    finding = None
    if reason.question is not None and reason.source == "log":
        finding = next((i for i, f in enumerate(findings)
                        if f.symptom == reason.question and f.summary == reason.text), None)
    error = applied.text_errors.get(reason.text_index) if reason.text_index is not None else None
    return Evidence(reason.text, reason.source, reason.question, reason.value, finding, error)


def _error_match(e: dict) -> ErrorMatch:
    return ErrorMatch(e.get("line"), str(e["text"]), int(e.get("count", 1)), list(e.get("causes") or [e["cause"]]),
                      str(e["cause"]), str(e.get("pattern") or ""))


def _context(diag: Diagnosis, defaults: list[DefaultUsed], with_set_aside: bool, limit: int = 8) -> Context:
    """The run's context block: framework and why, domain (unless unknown), domains its config rules
    out, the framework defaults used, and (when the run is not healthy) the causes set aside."""
    from triage.kb.schema import DOMAIN_QUESTION

    ctx = diag.context
    fw = ctx.framework
    domain = diag.answers.get(DOMAIN_QUESTION)
    aside = [SetAside(c.id, c.node.title, reason) for c, reason in diag.set_aside()[:limit]] if with_set_aside else []
    return Context(FrameworkRef(fw.id, fw.title, ctx.because) if fw else None,
                   domain.value if domain is not None and domain.value != UNKNOWN else None,
                   dict(ctx.excluded_domains), list(defaults), aside)
