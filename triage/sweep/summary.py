"""What the driver keeps of a sweep: per run a few fields (verdict, top cause, config), per cause
group the runs' names and a bounded sample of chart series, and at the end the separating keys.

Its size grows with the number of runs only by the per-run summary itself (a few hundred bytes and
the run's config); no run's series or scan document is kept, except the thinned series of the
first `charts_per_group` runs of each group, which the HTML report draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field

HEALTHY = "healthy"
ERROR = "unreadable"
NO_CAUSE = "no-cause"  # broken (a finding counts against it) with no cause ranked


@dataclass(slots=True)
class RunSummary:
    index: int
    id: str
    name: str
    verdict: str  # healthy | broken | unreadable
    group: str  # the top cause's ID, or HEALTHY, ERROR, NO_CAUSE
    findings: int
    note: str  # the first finding's one-line summary, or the error
    config: dict
    rows: int = 0
    format: str = ""
    cpu_ms: float = 0.0

    def to_dict(self) -> dict:
        return {"index": self.index, "id": self.id, "name": self.name, "verdict": self.verdict,
                "top_cause": self.group if self.verdict == "broken" and self.group != NO_CAUSE else None,
                "findings": self.findings, "note": self.note}


@dataclass
class Group:
    key: str
    title: str
    runs: list[int] = field(default_factory=list)  # indexes into SweepSummary.runs
    charts: list[tuple[str, list]] = field(default_factory=list)  # (run name, [(metric, points), ...])

    def chart_metric(self) -> str | None:
        """The metric to draw for every run of the group: the one most of its runs have a series of,
        ties going to the one their first findings name most often."""
        from collections import Counter

        present = Counter(m for _name, series in self.charts for m, _points in series)
        first = Counter(series[0][0] for _name, series in self.charts if series)
        if not present:
            return None
        return max(present, key=lambda m: (present[m], first.get(m, 0), m == "loss"))


class SweepSummary:
    def __init__(self, source: str = "", charts_per_group: int = 12):
        self.source = source
        self.charts_per_group = charts_per_group
        self.runs: list[RunSummary] = []
        self.groups: dict[str, Group] = {}
        self.separating: list = []  # Separation, made by finish()
        self.elapsed_s = 0.0
        self.executor = ""
        self.workers = 0

    # ----------------------------------------------------------------------------- collecting
    def add(self, record: dict) -> RunSummary:
        """Keep what the report needs of one run's record; the record itself can then go."""
        doc = record.get("scan")
        if record.get("error") or doc is None:
            verdict, group, title, nf, note = "unreadable", ERROR, "could not be read", 0, str(record.get("error"))
        elif doc.get("healthy"):
            verdict, group, title, nf, note = "healthy", HEALTHY, "healthy", 0, ""
        else:
            causes = doc.get("causes") or []
            findings = doc.get("findings") or []
            verdict, nf = "broken", int(doc.get("n_findings", len(findings)))
            group = causes[0]["id"] if causes else NO_CAUSE
            title = causes[0].get("title", "") if causes else "findings, no cause ranked"
            note = findings[0].get("summary", "") if findings else _probe_note(doc)
        src = (doc or {}).get("sources") or [{}]
        summary = RunSummary(int(record.get("index", len(self.runs))), str(record.get("id")), str(record.get("name")),
                             verdict, group, nf, note, record.get("config") or {}, int(src[0].get("rows") or 0),
                             str(src[0].get("format") or ""), float(record.get("cpu_ms") or 0.0))
        self.runs.append(summary)
        grp = self.groups.get(group)
        if grp is None:
            grp = self.groups[group] = Group(group, title)
        grp.runs.append(len(self.runs) - 1)
        series = record.get("_series")
        if series and len(grp.charts) < self.charts_per_group:
            grp.charts.append((summary.name, list(series)))
        return summary

    # ------------------------------------------------------------------------------- results
    @property
    def counts(self) -> dict:
        out = {"runs": len(self.runs), "healthy": 0, "broken": 0, "unreadable": 0}
        for r in self.runs:
            out[r.verdict] += 1
        return out

    def ordered_groups(self) -> list[Group]:
        """Broken groups by size (largest first), then runs without a ranked cause, healthy, unreadable."""
        rank = {NO_CAUSE: 1, HEALTHY: 2, ERROR: 3}
        return sorted(self.groups.values(), key=lambda g: (rank.get(g.key, 0), -len(g.runs), g.key))

    def finish(self, elapsed_s: float = 0.0, executor: str = "", workers: int = 0) -> "SweepSummary":
        """Order the runs as they were listed and find the separating config keys."""
        from triage.sweep.separate import separate

        self.elapsed_s, self.executor, self.workers = elapsed_s, executor, workers
        order = sorted(range(len(self.runs)), key=lambda i: self.runs[i].index)
        where = {old: new for new, old in enumerate(order)}
        self.runs = [self.runs[i] for i in order]
        for g in self.groups.values():
            g.runs = sorted(where[i] for i in g.runs)
        healthy = [self.runs[i].config for i in self.groups[HEALTHY].runs] if HEALTHY in self.groups else []
        broken_groups = [g for g in self.ordered_groups() if g.key not in (HEALTHY, ERROR)]
        self.separating = []
        for g in broken_groups:
            if len(g.runs) >= 2:
                self.separating.append(separate(g.key, g.key, [self.runs[i].config for i in g.runs], healthy))
        if len(broken_groups) > 1:
            broken = [self.runs[i].config for g in broken_groups for i in g.runs]
            self.separating.append(separate("broken", "broken", broken, healthy))
        return self

    def to_dict(self) -> dict:
        groups = []
        for g in self.ordered_groups():
            groups.append({"group": g.key, "title": g.title, "runs": len(g.runs),
                           "names": [self.runs[i].name for i in g.runs]})
        return {**self.counts, "executor": self.executor, "workers": self.workers, "source": self.source,
                "elapsed_s": round(self.elapsed_s, 3), "groups": groups,
                "separating": [s.to_dict() for s in self.separating]}


def _probe_note(doc: dict) -> str:
    failed = [str(p.get("probe")) for p in doc.get("probes") or [] if p.get("status") == "fail"]
    return f"probe failed ({', '.join(failed)})" if failed else ""
