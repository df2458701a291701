"""`scan --fail-on`: which scan results fail a CI job.

A spec is a comma-separated list (the option repeats too) of:

* a severity -- ``error``: the run is broken outright (a finding of the kinds ``nan``, ``oom``,
  ``error`` or ``hang``, error text that matched a cause, or a failed probe); ``warning``: any
  finding at all, errors included (the run is not healthy). ``any`` is ``warning``.
* a finding kind: the opening question's answers a detector reports (``nan``, ``unstable``,
  ``no-learning``, ``overfit``, ``wrong-output``, ``rl-signal``, ``slow`` ...);
* a detector ID (``det-loss-nan``): that detector fired;
* a cause ID (``O9``, ``S-nan``): the cause is among the ranked causes (which hold only causes
  with evidence for them).

Exit status with ``--fail-on``: 1 when something named was found, 0 when nothing named was
(even if other problems were), 2 on unreadable input or a bad spec -- so a job can fail on NaN
but only report a plateau.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from triage.errors import TriageError

SEVERITIES = ("error", "warning", "any")
# The opening question's answers that mean the run is broken outright, not merely unhealthy.
ERROR_KINDS = frozenset({"nan", "oom", "error", "hang"})


class GateError(TriageError, ValueError):
    """A --fail-on spec that names nothing this knowledge base knows (one line, exit 2)."""


@dataclass
class FailOn:
    severities: set[str] = field(default_factory=set)
    kinds: set[str] = field(default_factory=set)
    detectors: set[str] = field(default_factory=set)
    causes: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.severities or self.kinds or self.detectors or self.causes)


def parse_fail_on(values: list[str], kb) -> FailOn:
    """Read the --fail-on values against the knowledge base (unknown names are an error)."""
    from triage.kb.schema import START

    spec = FailOn()
    kinds = set(kb.answer_values(kb[START])) if START in kb.nodes else set()
    detectors = {n.id for n in kb.by_kind("detector")}
    causes = {c.id for c in kb.causes}
    for raw in values:
        for token in (t.strip() for t in str(raw).split(",")):
            if not token:
                continue
            low = token.lower()
            if low in SEVERITIES:
                spec.severities.add("warning" if low == "any" else low)
            elif low in kinds:
                spec.kinds.add(low)
            elif token in detectors:
                spec.detectors.add(token)
            elif token in causes or kb.resolve(token) is not None and kb.resolve(token).kind == "cause":
                spec.causes.add(kb.resolve(token).id if token not in causes else token)
            else:
                import difflib

                pool = list(SEVERITIES) + sorted(kinds) + sorted(causes) + sorted(detectors)
                hint = difflib.get_close_matches(token, pool, n=2, cutoff=0.6)
                did = f"; did you mean {', '.join(hint)}?" if hint else ""
                raise GateError(f"--fail-on {token!r} is not a severity (error, warning), a finding kind "
                                f"({', '.join(sorted(kinds)[:6])} ...), a detector ID or a cause ID{did}")
    if not spec:
        raise GateError("--fail-on is empty: name a severity (error, warning), a finding kind, a detector or a cause")
    return spec


def finding_kind(kb, finding: dict) -> str | None:
    """The opening-question answer a finding implies (its detector's `category`)."""
    det = kb.nodes.get(str(finding.get("detector")))
    kind = det.get("category") if det is not None else None
    return str(kind) if kind else None


def reasons(doc: dict, spec: FailOn, kb) -> list[str]:
    """Why this scan document fails the gate, one line each (empty: it passes)."""
    if doc.get("error"):
        return []
    out: list[str] = []
    findings = doc.get("findings") or []
    applied = doc.get("_applied")
    errors = list(getattr(applied, "errors", None) or doc.get("_errors") or [])
    failed = [p for p in doc.get("probes") or [] if p.get("status") == "fail"]
    for f in findings:
        kind = finding_kind(kb, f)
        sev = "error" if kind in ERROR_KINDS else "warning"
        if "warning" in spec.severities or (sev == "error" and "error" in spec.severities):
            out.append(f"{sev}: {f['summary']}")
        elif kind in spec.kinds:
            out.append(f"{kind}: {f['summary']}")
        elif f.get("detector") in spec.detectors:
            out.append(f"{f['detector']}: {f['summary']}")
    if spec.severities:
        out.extend(f"error: error text matched {e['cause']}: {e['text'][:120]}" for e in errors)
        out.extend(f"error: probe {p.get('probe')} failed" for p in failed)
    elif "error" in spec.kinds:
        out.extend(f"error: error text matched {e['cause']}: {e['text'][:120]}" for e in errors)
    for c in doc.get("causes") or []:
        if c["id"] in spec.causes:
            out.append(f"{c['id']}: ranked #{(doc['causes'].index(c)) + 1} ({c['score']:.0%}) {c['title']}")
    return list(dict.fromkeys(out))
