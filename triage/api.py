"""The Python API behind the command line. The CLI parses arguments and renders; the work is here.

    >>> from triage import api
    >>> kb = api.load_kb()
    >>> api.explain(kb, "O9").title
"""

from __future__ import annotations

from triage.kb.base import KnowledgeBase
from triage.kb.loader import Node


class TriageError(Exception):
    """A user-facing error: one line, exit code 2."""


class UnknownID(TriageError):
    def __init__(self, text: str, suggestions: list[str]):
        hint = f"; did you mean {', '.join(suggestions)}?" if suggestions else ""
        super().__init__(f"unknown ID {text!r}{hint} (`triage search WORDS` finds nodes by content)")
        self.text = text
        self.suggestions = suggestions


class KnowledgeInvalid(TriageError):
    pass


def load_kb(extra_roots: list[str] | None = None) -> KnowledgeBase:
    """The built-in knowledge plus TRIAGE_KB_PATH and `extra_roots`.

    Broken YAML or duplicate IDs make every command fail with a pointer to `triage kb check`,
    except `kb check` itself, which reports them all.
    """
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
    from triage.kb.validate import check

    return check(kb)


def search(kb: KnowledgeBase, text: str, limit: int = 10, kinds: tuple[str, ...] | None = None):
    from triage.kb.search import SearchIndex

    return SearchIndex(kb).search(text, limit=limit, kinds=kinds)


def graph(kb: KnowledgeBase):
    from triage.kb.graph import DecisionGraph

    return DecisionGraph(kb)


# -- scan ----------------------------------------------------------------------------------
MAX_TEXT_LINES = 20_000


def _read_text_input(path: str) -> tuple[str, list[tuple[int | None, str]]]:
    """The raw text of a small text input, for error matching when no reader applies."""
    import sys
    from pathlib import Path

    if path == "-":
        data = sys.stdin.read() if not sys.stdin.isatty() else ""
    else:
        raw = Path(path).read_bytes()[:5_000_000]
        data = raw.decode("utf-8", errors="replace")
    lines = [(i + 1, line) for i, line in enumerate(data.splitlines()[:MAX_TEXT_LINES])]
    return data, lines


def scan(path: str, kb: KnowledgeBase | None = None, fmt: str | None = None, describe: str | None = None,
         run=None) -> dict:
    """Read one input (a metrics log, a traceback, a description or a probe result), run the
    detectors, match error text and rank causes. Returns the `scan --json` document for it,
    plus private keys (`_run`, `_findings`, `_diag`) that renderers use and JSON drops."""
    from triage import __version__
    from triage.engine.diagnosis import Diagnosis
    from triage.engine.evidence import (
        Applied, apply_description, apply_findings, apply_probe, apply_text, infer_domain, is_probe_result,
    )
    from triage.kb.search import SearchIndex

    kb = kb or load_kb()
    diag = Diagnosis(kb)
    applied = Applied()
    index = SearchIndex(kb)
    probe = is_probe_result(path) if fmt is None else None
    if probe is not None:
        apply_probe(diag, probe, applied, path)
        source = {"path": path, "format": "probe-result", "rows": 0, "skipped": 0, "metrics": []}
        run = None
    else:
        if run is None:
            from triage.ingest import IngestError, read_run
            from triage.ingest.sidecar import attach

            try:
                run = read_run(path, fmt)
            except IngestError as exc:
                raise TriageError(str(exc)) from None
            attach(run, path)
        from triage.detect import run_detectors
        from triage.render.inspect import sources_block

        source = sources_block(run)
        findings = run_detectors(run, kb)
        text_lines = [(e.line, e.text) for e in run.events if e.kind in ("traceback", "error", "warning")]
        if not run.series and not text_lines and run.events:
            text_lines = [(e.line, e.text) for e in run.events]
        matched = apply_text(diag, index, text_lines, applied)
        apply_findings(diag, findings, applied)
        infer_domain(diag, run, applied)
        if not run.series and not matched and not findings and describe is None:
            # neither metrics nor a known error: treat the text as a description in words
            text = "\n".join(e.text for e in run.events)
            if text.strip():
                apply_description(diag, index, text, applied)
    if describe:
        apply_description(diag, index, describe, applied)
    return diagnosis_document(kb, diag, applied, [source], __version__, run=run)


def diagnosis_document(kb: KnowledgeBase, diag, applied, sources: list[dict], version: str, run=None,
                       max_causes: int = 8) -> dict:
    ranked = diag.ranking(with_evidence_only=True)
    causes = []
    if ranked:
        top = ranked[0].probability
        for cand in ranked[:max_causes]:
            if cand.probability < 0.02 * top:
                break
            node = cand.node
            causes.append({
                "id": node.id,
                "title": node.title,
                "score": round(cand.probability, 4),
                "aliases": [str(a) for a in (node.get("aliases") or [])],
                "evidence": cand.support,
                "fix": [
                    {"knob": str(f.get("knob", "")).strip(), "range": str(f.get("range", "")).strip(),
                     "expect": str(f.get("expect", "")).strip()}
                    for f in (node.get("fix") or []) if isinstance(f, dict)
                ],
            })
    unanswered = [{"id": q, "question": kb[q].title} for q in diag.unanswered(5)] if causes or applied.findings else []
    healthy = not applied.findings and not applied.errors and not causes
    doc = {
        "version": version,
        "sources": sources,
        "findings": [f.to_dict() for f in applied.findings],
        "causes": causes,
        "unanswered": unanswered,
        "healthy": healthy,
    }
    if healthy:
        doc["causes"] = []
    doc["_run"] = run
    doc["_applied"] = applied
    doc["_diag"] = diag
    return doc


def public(doc: dict) -> dict:
    """The contract part of a scan document (drops the private renderer keys)."""
    return {k: v for k, v in doc.items() if not k.startswith("_")}
