"""Which framework wrote a log, what it does when its config says nothing, and what that rules out.

The knowledge is `knowledge/frameworks.yaml` (see its header). This module turns it into small
typed records and answers three questions for the engine:

* `FrameworkTable.recognise(run)`: the framework that wrote the log, with the reason, or None;
* `FrameworkTable.excluded_domains(config)`: the domains a run's config rules out (a class count
  means no next-token training), each with its reason;
* `fix_entries(node, framework)`: a cause's fixes with the knob spelled in the run's own framework.

The engine uses the first two to keep causes that cannot apply out of the ranking
(`Diagnosis.inapplicable`) and the defaults as evidence (`evidence.apply_defaults`).
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
    because: str = ""

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
        return bool(self.formats or self.dialects or self.keys_all or self.keys_any or self.key_prefixes
                    or self.events)


@dataclass(frozen=True)
class Framework:
    id: str
    title: str
    stack: str
    covers: str = ""
    domain: str | None = None  # the domain every run of this framework has (SB3: rl), if any
    rules: tuple[Rule, ...] = ()
    settings: dict[str, Setting] = field(default_factory=dict)


@dataclass(frozen=True)
class DomainRule:
    config: dict
    excludes: tuple[str, ...]
    because: str


@dataclass(frozen=True)
class RunFacts:
    """What recognition looks at: the reader's format, the dialects that gave most rows, the
    metric keys as the log spells them, and the text of its events."""

    format: str
    dialects: frozenset[str]
    keys: frozenset[str]
    events: tuple[str, ...]

    @classmethod
    def of(cls, run) -> RunFacts:
        counts = run.meta.get("dialects") or {}
        top = max(counts.values()) if counts else 0
        dialects = {str(d) for d, n in counts.items() if n == top and n > 0}
        keys = {s.source_key or s.name for s in run.series.values()}
        events = tuple(str(e.text)[:2000] for e in getattr(run, "events", [])[:500])
        return cls(str(run.format), frozenset(dialects), frozenset(keys), events)


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

    def recognise(self, run) -> tuple[Framework, str] | None:
        """The first framework (in file order) one of whose rules holds for this log."""
        facts = RunFacts.of(run)
        for fw in self.frameworks:
            for rule in fw.rules:
                if rule.holds(facts):
                    return fw, rule.because or f"read as {facts.format}"
        return None

    def excluded_domains(self, config: dict) -> dict[str, str]:
        """{domain: reason} for the domains the run's config rules out."""
        from triage.engine.evidence import config_answer

        out: dict[str, str] = {}
        for rule in self.domain_rules:
            hit = config_answer([{**rule.config, "answer": "yes"}], config)
            if hit is None:
                continue
            _, key, value = hit
            for domain in rule.excludes:
                out.setdefault(domain, f"{key} = {value} in the config: {rule.because}")
        return out


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
                str(data.get("events") or ""), str(data.get("because") or "").strip())


def _framework(data: dict) -> Framework:
    settings = {str(k): _setting(str(k), v) for k, v in (data.get("settings") or {}).items() if isinstance(v, dict)}
    rules = tuple(_rule(r) for r in _as_list(data.get("recognise")) if isinstance(r, dict))
    domain = data.get("domain")
    return Framework(str(data["id"]), str(data.get("title") or data["id"]), str(data.get("stack") or ""),
                     str(data.get("covers") or ""), str(domain) if domain else None, rules, settings)


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
            if isinstance(entry, dict) and isinstance(entry.get("config"), dict):
                table.domain_rules.append(DomainRule(dict(entry["config"]), _strs(entry.get("excludes")),
                                                     str(entry.get("because") or "").strip()))
    return table


def framework_table(kb) -> FrameworkTable:
    """The table of a knowledge base (built once per KnowledgeBase object)."""
    cached = getattr(kb, "_framework_table", None)
    if cached is None:
        cached = build_table(kb.result.extras.get("frameworks", []))
        kb._framework_table = cached
    return cached


def fix_entries(node, diag=None) -> list[dict]:
    """A cause's fixes for a report, in the run's own terms. A fix that names a `setting` the
    run's framework has a knob for shows that knob (and its range), marked with the framework,
    and comes first: the clipping fix of an HF run reads `TrainingArguments(max_grad_norm=1.0)`,
    of a Keras run `global_clipnorm=1.0`. A fix whose setting is already in effect in this run
    (clipping that the Trainer does by default) goes last and says so. A fix limited to some
    `frameworks` is left out for a run of another one; with the framework unknown, every fix
    is shown in the file's order."""
    framework = diag.context.framework if diag is not None else None
    table = framework_table(diag.kb) if diag is not None else None
    own, generic, in_place = [], [], []
    for f in _as_list(node.get("fix")):
        if not isinstance(f, dict):
            continue
        entry = {"knob": str(f.get("knob", "")).strip(), "range": str(f.get("range", "")).strip(),
                 "expect": str(f.get("expect", "")).strip()}
        name = str(f.get("setting") or "")
        setting = framework.settings.get(name) if framework and name else None
        only = set(_strs(f.get("frameworks")))  # a fix written for some frameworks only
        bucket = generic  # framework unknown: every fix, in the file's order
        if only and framework is not None and not ({framework.id, framework.stack} & only):
            continue  # another framework's knob
        elif only and framework is not None:
            entry["framework"] = framework.title
            bucket = own
        if setting is not None and setting.knob:
            entry.update(knob=setting.knob, range=setting.range or entry["range"], framework=framework.title)
            bucket = own
        effect = _in_effect(diag, table, name) if name and table is not None else None
        if effect:
            entry["range"] = f"already in effect here ({effect}); {entry['range']}"
            bucket = in_place
        if all(e["knob"] != entry["knob"] for e in own + generic + in_place):
            bucket.append(entry)
    return own + generic + in_place


def _in_effect(diag, table: FrameworkTable, setting: str) -> str | None:
    """The evidence that `setting` is already on in this run, or None."""
    for q, value in table.in_effect.get(setting, {}).items():
        a = diag.answers.get(q)
        if a is not None and value in a.value.split("|"):
            return a.evidence or f"{q} = {value}"
    return None


def cause_domains(node) -> set[str]:
    """The domains a cause is tagged for; empty when it applies anywhere."""
    domains = set(_strs(node.get("domains")))
    return set() if not domains or ANY_DOMAIN in domains else domains


def context_block(diag, applied=None, with_set_aside: bool = True, limit: int = 8) -> dict:
    """The `context` of a scan document's source: the framework that wrote the log and why, the
    domain, the framework defaults used as evidence, and the causes set aside with the reason."""
    from triage.kb.schema import DOMAIN_QUESTION

    ctx = diag.context
    fw = ctx.framework
    domain = diag.answers.get(DOMAIN_QUESTION)
    block = {
        "framework": {"id": fw.id, "title": fw.title, "because": ctx.because} if fw else None,
        "domain": domain.value if domain is not None and domain.value != "unknown" else None,
        "domains_ruled_out": dict(ctx.excluded_domains),
        "defaults": [dict(d) for d in (applied.defaults if applied is not None else [])],
        "set_aside": [],
    }
    if with_set_aside:
        block["set_aside"] = [{"id": c.id, "title": c.node.title, "reason": reason}
                              for c, reason in diag.set_aside()[:limit]]
    return block
