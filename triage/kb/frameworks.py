"""The frameworks table: which framework wrote a log, and what it does when its config says nothing.

The knowledge is `knowledge/frameworks.yaml` (see its header); this module turns it into small typed
records. Recognition (`FrameworkTable.recognise(run)`) looks only at what a reader produced (format,
dialects, metric keys, event text), so the detectors can use it as well as the engine: a detector may
be written for the runs of some frameworks only (`frameworks:` on a detector). The engine's uses
(defaults as evidence, domains a config rules out, fixes in the run's own terms) live in
`triage.engine.frameworks`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from triage.kb.base import _as_list

ANY_DOMAIN = "any"


def _strs(value) -> tuple[str, ...]:
    return tuple(str(v) for v in _as_list(value))


@dataclass(frozen=True)
class Setting:
    """What a framework does about one setting (grad_clip, warmup, ...) when its config is silent."""

    name: str
    keys: tuple[str, ...]  # the config spellings; a config that has one of them overrides the default
    default: object
    says: str  # the fact in one sentence
    source: str  # where it is documented
    answers: dict[str, str] = field(default_factory=dict)  # question -> answer the default gives
    knob: str = ""  # the exact setting in this framework
    range: str = ""


@dataclass(frozen=True)
class Rule:
    """One way to recognise a framework's log; every condition that is given must hold."""

    formats: tuple[str, ...] = ()
    dialects: tuple[str, ...] = ()
    keys_all: tuple[str, ...] = ()
    keys_any: tuple[str, ...] = ()
    keys_none: tuple[str, ...] = ()
    key_prefixes: tuple[str, ...] = ()
    events: str = ""
    # every key but at most one comes in pairs `name` / `<twin_prefix>name`, two pairs at least:
    # the layout of a history of per-epoch metrics and their held-out twins (loss, val_loss, ...)
    twin_prefix: str = ""
    because: str = ""
    # what the reader recognised as the file's writer (run.meta["writer"]: a model card's results table)
    writers: tuple[str, ...] = ()

    def holds(self, facts: RunFacts) -> bool:
        if self.formats and facts.format not in self.formats:
            return False
        if self.dialects and not (facts.dialects & set(self.dialects)):
            return False
        if any(k not in facts.keys for k in self.keys_all):
            return False
        if self.keys_any and not any(k in facts.keys for k in self.keys_any):
            return False
        if any(k in facts.keys for k in self.keys_none):
            return False
        if self.key_prefixes and not any(k.startswith(self.key_prefixes) for k in facts.keys):
            return False
        if self.events and not any(re.search(self.events, t) for t in facts.events):
            return False
        if self.twin_prefix and not _twinned(facts.keys, self.twin_prefix):
            return False
        if self.writers and facts.writer not in self.writers:
            return False
        return bool(self.formats or self.dialects or self.keys_all or self.keys_any or self.key_prefixes
                    or self.events or self.twin_prefix or self.writers)


def _twinned(keys: frozenset[str], prefix: str) -> bool:
    """At least two keys have their `prefix` twin, and at most one key has no twin either way."""
    pairs = {k for k in keys if prefix + k in keys}
    alone = [k for k in keys if k not in pairs and not (k.startswith(prefix) and k[len(prefix):] in pairs)]
    return len(pairs) >= 2 and len(alone) <= 1


@dataclass(frozen=True)
class Framework:
    id: str
    title: str
    stack: str
    covers: str = ""
    domain: str | None = None  # the domain every run of this framework has (SB3: rl), if any
    rules: tuple[Rule, ...] = ()
    settings: dict[str, Setting] = field(default_factory=dict)
    # the domains no run of this framework can have (detectron2 trains detectors and segmenters only)
    rules_out_domains: tuple[str, ...] = ()


@dataclass(frozen=True)
class DomainRule:
    config: dict  # a config rule (keys, op, value) ...
    excludes: tuple[str, ...]
    because: str
    checks: tuple[str, ...] = ()  # ... or a finding of one of these checks
    metrics: tuple[str, ...] = ()  # ... on one of these metrics (patterns; any metric when empty)


@dataclass(frozen=True)
class RunFacts:
    """What recognition looks at: the reader's format, the dialects that gave most rows, the
    metric keys as the log spells them (with the counters a table or a printed dict names, if any), and
    the text of its events."""

    format: str
    dialects: frozenset[str]
    keys: frozenset[str]
    events: tuple[str, ...]
    writer: str = ""

    @classmethod
    def of(cls, run) -> RunFacts:
        counts = run.meta.get("dialects") or {}
        top = max(counts.values()) if counts else 0
        dialects = {str(d) for d, n in counts.items() if n == top and n > 0}
        keys = {s.source_key or s.name for s in run.series.values()}
        # the counters a table's header or a printed dict names (`epoch`, `step`): no series, but the log spells them
        keys.update(str(k) for k in run.meta.get("axis_keys") or ())
        events = tuple(str(e.text)[:2000] for e in getattr(run, "events", [])[:500])
        return cls(str(run.format), frozenset(dialects), frozenset(keys), events, str(run.meta.get("writer") or ""))


@dataclass
class FrameworkTable:
    frameworks: list[Framework] = field(default_factory=list)
    stacks: dict[str, str] = field(default_factory=dict)
    domain_rules: list[DomainRule] = field(default_factory=list)
    # setting name -> {question: answer} that says the setting is already on in a run
    in_effect: dict[str, dict[str, str]] = field(default_factory=dict)
    setting_titles: dict[str, str] = field(default_factory=dict)

    def get(self, framework_id: str | None) -> Framework | None:
        return next((f for f in self.frameworks if f.id == framework_id), None)

    @property
    def setting_names(self) -> set[str]:
        """The settings declared at the top of frameworks.yaml (the only ones a fix or a framework may name)."""
        return set(self.setting_titles)

    def recognised(self, run) -> tuple[Framework, str] | None:
        """`recognise(run)` done once per run: the detectors (frameworks-only checks) and the engine
        (defaults, set-aside causes) both ask, so the answer is kept in `run.meta["framework_seen"]`."""
        meta = getattr(run, "meta", None)
        if meta is not None and "framework_seen" in meta:
            seen = meta["framework_seen"]
            fw = self.get(seen[0]) if seen else None
            return (fw, seen[1]) if fw is not None else None
        hit = self.recognise(run)
        if meta is not None:
            meta["framework_seen"] = (hit[0].id, hit[1]) if hit else None
        return hit

    def recognise(self, run) -> tuple[Framework, str] | None:
        """The first framework (in file order) one of whose rules holds for this log."""
        facts = RunFacts.of(run)
        for fw in self.frameworks:
            for rule in fw.rules:
                if rule.holds(facts):
                    return fw, rule.because or f"read as {facts.format}"
        return None


def _answer(value) -> str:
    """YAML reads bare yes/no/on/off as booleans; answers are strings."""
    return ("yes" if value else "no") if isinstance(value, bool) else str(value)


def _setting(name: str, data: dict) -> Setting:
    answers = {str(q): _answer(a) for q, a in (data.get("answers") or {}).items()}
    return Setting(name, _strs(data.get("keys")), data.get("default"), str(data.get("says", "")).strip(),
                   str(data.get("source", "")).strip(), answers, str(data.get("knob") or "").strip(),
                   str(data.get("range") or "").strip())


def _rule(data: dict) -> Rule:
    return Rule(_strs(data.get("formats")), _strs(data.get("dialects")), _strs(data.get("keys_all")),
                _strs(data.get("keys_any")), _strs(data.get("keys_none")), _strs(data.get("key_prefixes")),
                str(data.get("events") or ""), str(data.get("twin_prefix") or ""), str(data.get("because") or "").strip(),
                _strs(data.get("writers")))


def _framework(data: dict) -> Framework:
    settings = {str(k): _setting(str(k), v) for k, v in (data.get("settings") or {}).items() if isinstance(v, dict)}
    rules = tuple(_rule(r) for r in _as_list(data.get("recognise")) if isinstance(r, dict))
    domain = data.get("domain")
    return Framework(str(data["id"]), str(data.get("title") or data["id"]), str(data.get("stack") or ""),
                     str(data.get("covers") or ""), str(domain) if domain else None, rules, settings,
                     _strs(data.get("rules_out_domains")))


def build_table(docs: list[tuple[str, dict]]) -> FrameworkTable:
    """One table from frameworks.yaml documents, built-in first: a later document's framework
    with the same id replaces the earlier one in place; new ones go first (a user's own
    recognition rules are tried before the built-in ones)."""
    table = FrameworkTable()
    for _, doc in docs:
        if not isinstance(doc, dict):
            continue
        table.stacks.update({str(k): str(v) for k, v in (doc.get("stacks") or {}).items()})
        for name, entry in (doc.get("settings") or {}).items():
            if isinstance(entry, dict):
                table.setting_titles[str(name)] = str(entry.get("title") or name)
                table.in_effect[str(name)] = {str(q): _answer(a) for q, a in (entry.get("in_effect") or {}).items()}
        new: list[Framework] = []
        for entry in _as_list(doc.get("frameworks")):
            if not isinstance(entry, dict) or not entry.get("id"):
                continue
            fw = _framework(entry)
            idx = next((i for i, f in enumerate(table.frameworks) if f.id == fw.id), None)
            if idx is None:
                new.append(fw)
            else:
                table.frameworks[idx] = fw
        table.frameworks[:0] = new
        for entry in _as_list(doc.get("domain_rules")):
            if isinstance(entry, dict) and (isinstance(entry.get("config"), dict) or entry.get("checks")):
                table.domain_rules.append(DomainRule(dict(entry.get("config") or {}), _strs(entry.get("excludes")),
                                                     str(entry.get("because") or "").strip(), _strs(entry.get("checks")),
                                                     _strs(entry.get("metrics"))))
    return table


def framework_table(kb) -> FrameworkTable:
    """The table of a knowledge base (built once per KnowledgeBase object)."""
    cached = getattr(kb, "_framework_table", None)
    if cached is None:
        cached = build_table(kb.result.extras.get("frameworks", []))
        kb._framework_table = cached
    return cached
