"""`triage kb check`: every structural problem of the knowledge base, with file and line.

Errors make the check fail; warnings (look-alike causes) are reported but do not.

The checks a detector may name, and the parameters each takes, are code in the detector layer,
which sits above this one: the caller passes that registry in (`check_params`, a mapping of check
name to its params dataclass: triage.detect.PARAMS). `triage kb check` and triage.api.check_kb
always do; without it a detector's `check` and `params` are not compared with the code.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from triage.kb import schema
from triage.kb.base import ANY, KnowledgeBase, _as_list
from triage.kb.loader import Node
from triage.kb.params import Params, parse
from triage.kb.schema import normalise_answer


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    node: str
    message: str
    severity: str = "error"

    def format(self) -> str:
        where = _display_path(self.path)
        loc = f"{where}:{self.line}" if self.line else where
        who = f" {self.node}:" if self.node else ""
        tag = "" if self.severity == "error" else " warning:"
        return f"{loc}:{tag}{who} {self.message}"


def _display_path(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


class Checker:
    def __init__(self, kb: KnowledgeBase, check_params: Mapping[str, type[Params]] | None = None):
        self.kb = kb
        self.check_params = check_params
        self.problems: list[Problem] = []

    # -- reporting -------------------------------------------------------------------------
    def err(self, node: Node, key: str | None, message: str) -> None:
        self.problems.append(Problem(node.path, node.line(key), node.id, message))

    def warn(self, node: Node, key: str | None, message: str) -> None:
        self.problems.append(Problem(node.path, node.line(key), node.id, message, "warning"))

    # -- entry point -----------------------------------------------------------------------
    def run(self, graph: bool = True) -> list[Problem]:
        kb = self.kb
        for exc in kb.problems:
            self.problems.append(Problem(exc.path, exc.line, "", exc.message))
        for first, dup in kb.duplicates:
            self.problems.append(Problem(
                dup.path, dup.line("id"), dup.id,
                f"duplicate ID: also defined in {_display_path(first.path)}:{first.line('id')}",
            ))
        for node in kb.nodes.values():
            self.check_node(node)
        if kb.result.builtin:
            for node_id in schema.REQUIRED_IDS:
                if node_id not in kb.nodes:
                    self.problems.append(Problem(kb.result.builtin, 0, node_id, "required node is missing"))
        if schema.START not in kb.nodes:
            self.problems.append(Problem(kb.result.roots[0] if kb.result.roots else "knowledge", 0,
                                         schema.START, "the start question is missing"))
        if graph:
            self.check_graph()
        self.check_lookalikes()
        self.check_frameworks()
        self.check_metric_facts()
        self.check_training_words()
        return self.problems

    # -- per node --------------------------------------------------------------------------
    def check_node(self, node: Node) -> None:
        fields = schema.FIELDS_BY_KIND.get(node.kind)
        if fields is None:
            self.err(node, "kind", f"unknown kind {node.kind!r} (expected one of {', '.join(sorted(schema.FIELDS_BY_KIND))})")
            return
        stem = Path(node.path).stem
        if stem != node.id:
            self.err(node, "id", f"file name {stem!r} does not match the ID {node.id!r}")
        for key, (typ, required) in fields.items():
            value = node.get(key)
            if value is None or (typ == "str" and isinstance(value, str) and not value.strip()):
                if required:
                    self.err(node, None, f"missing field `{key}`")
                continue
            self.check_type(node, key, value, typ)
        unknown = sorted(set(node.data) - set(fields))
        for key in unknown:
            self.err(node, key, f"unknown field `{key}` for a {node.kind} (allowed: {', '.join(fields)})")
        getattr(self, f"check_{node.kind}", lambda n: None)(node)

    def check_type(self, node: Node, key: str, value: object, typ: str) -> None:
        ok = {
            "str": isinstance(value, str) or (key == "default" and isinstance(value, (bool, int, float))),
            "dict": isinstance(value, dict),
            "list[str]": isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value),
            "list[dict]": isinstance(value, list) and all(isinstance(v, dict) for v in value),
            "bool": isinstance(value, bool),
        }[typ]
        if not ok:
            self.err(node, key, f"`{key}` must be {_TYPE_WORDS[typ]}")

    def check_exists(self, node: Node, key: str, target: object, kinds: set[str] | None = None) -> None:
        target = str(target)
        other = self.kb.get(target)
        if other is None:
            hint = self.kb.close_matches(target, 3)
            extra = f" (did you mean {', '.join(hint)}?)" if hint else ""
            self.err(node, key, f"`{key}` points to unknown ID {target!r}{extra}")
        elif kinds and other.kind not in kinds:
            self.err(node, key, f"`{key}` points to {target!r}, a {other.kind}, not a {' or '.join(sorted(kinds))}")

    def check_cause(self, node: Node) -> None:
        if not (schema.SEED_ID.match(node.id) or schema.FAMILY_ID.match(node.id)
                or (not node.builtin and schema.USER_CAUSE_ID.match(node.id))):
            own = "" if node.builtin else "; in your own folder also PREFIX-words with your own upper-case prefix (MY-lora-targets)"
            self.err(node, "id", "cause IDs are seed IDs (L1, O9, ...) or S-/PB-/M-/D-/C-/DP- followed by lower-case words" + own)
        family = node.get("family")
        if isinstance(family, str) and family not in schema.FAMILIES:
            self.err(node, "family", f"unknown family {family!r} (one of {', '.join(sorted(schema.FAMILIES))})")
        prior = node.get("prior")
        if isinstance(prior, str) and prior not in schema.PRIORS:
            self.err(node, "prior", f"prior must be one of {', '.join(schema.PRIORS)}")
        for d in _as_list(node.get("domains")):
            if str(d) not in schema.DOMAINS:
                self.err(node, "domains", f"unknown domain {d!r} (one of {', '.join(sorted(schema.DOMAINS))})")
        fixes = node.get("fix")
        if isinstance(fixes, list):
            if not fixes:
                self.err(node, "fix", "a cause needs at least one concrete knob in `fix`")
            for i, item in enumerate(fixes):
                if not isinstance(item, dict):
                    continue
                for key in ("knob", "range", "expect"):
                    value = item.get(key)
                    if not isinstance(value, str) or not value.strip():
                        self.err(node, "fix", f"fix[{i}] needs a non-empty `{key}`")
                knob = item.get("knob")
                if isinstance(knob, str) and knob.strip() and not _looks_concrete(knob):
                    self.err(node, "fix", f"fix[{i}].knob is not a concrete setting or code line: {knob.strip()[:60]!r}")
        for key in ("links", "aliases"):
            for target in _as_list(node.get(key)):
                self.check_exists(node, key, target)
                if str(target) == node.id:
                    self.err(node, key, f"`{key}` points to the node itself")
        nxt = node.get("next_if_not")
        if isinstance(nxt, str) and nxt.strip():
            self.check_exists(node, "next_if_not", nxt)
            if nxt == node.id:
                self.err(node, "next_if_not", "`next_if_not` points to the node itself")
        for probe in _as_list(node.get("probes")):
            self.check_exists(node, "probes", probe, {"probe"})
        self.check_regexes(node)
        self.check_refs(node, "sources")
        self.check_refs(node, "precedent")
        self.check_applicability(node)
        signs = node.get("signs")
        if isinstance(signs, dict):
            if schema.START not in signs:
                self.err(node, "signs", f"`signs` needs a {schema.START} answer so the questions can reach this cause")
            for qid, values in signs.items():
                if isinstance(values, dict):  # {answer: weight}: positive numbers
                    bad = [str(v) for v, w in values.items() if isinstance(w, bool) or not isinstance(w, (int, float)) or w <= 0]
                    if bad:
                        self.err(node, "signs", f"{qid}: weights must be positive numbers ({', '.join(bad)})")
                    values = list(values)
                self.check_answer_ref(node, "signs", str(qid), values)

    def check_applicability(self, node: Node) -> None:
        """`frameworks`, `requires` and the fields of each fix (knowledge/frameworks.yaml names the
        stacks, framework ids and settings they may refer to)."""
        table = self.framework_table()
        known = set(table.stacks) | {f.id for f in table.frameworks}
        for field in ("frameworks", "except_frameworks"):
            for name in _as_list(node.get(field)):
                if str(name) not in known:
                    self.err(node, field, f"unknown framework or stack {name!r} (one of {', '.join(sorted(known))})")
        requires = node.get("requires")
        if isinstance(requires, dict):
            for qid, values in requires.items():
                self.check_answer_ref(node, "requires", str(qid), values)
        for i, item in enumerate(_as_list(node.get("fix"))):
            if not isinstance(item, dict):
                continue
            extra = sorted(set(item) - schema.CAUSE_FIX_FIELDS)
            if extra:
                self.err(node, "fix", f"fix[{i}] has unknown fields: {', '.join(extra)} (allowed: {', '.join(sorted(schema.CAUSE_FIX_FIELDS))})")
            setting = item.get("setting")
            if setting is not None and str(setting) not in table.setting_names:
                self.err(node, "fix", f"fix[{i}].setting {setting!r} is not a setting of frameworks.yaml (one of {', '.join(sorted(table.setting_names))})")
            for name in _as_list(item.get("frameworks")):
                if str(name) not in known:
                    self.err(node, "fix", f"fix[{i}].frameworks: unknown framework or stack {name!r}")

    def framework_table(self):
        table = getattr(self, "_framework_table", None)
        if table is None:
            from triage.kb.frameworks import build_table

            table = self._framework_table = build_table(self.kb.result.extras.get("frameworks", []))
        return table

    def check_frameworks(self) -> None:
        """knowledge/frameworks.yaml (and a user's): the fields of each framework, its recognition
        rules and settings, the questions and answers the defaults give, the domain rules."""
        for path, doc in self.kb.result.extras.get("frameworks", []):
            _FrameworkFile(self, path, doc).check()

    def check_training_words(self) -> None:
        """metrics.yaml `training_words`: groups of words, each a list of plain strings."""
        for path, doc in self.kb.result.extras.get("metrics", []):
            words = doc.get("training_words") if isinstance(doc, dict) else None
            if words is None:
                continue
            for name, group in words.items() if isinstance(words, Mapping) else [("", words)]:
                if not isinstance(group, list) or not all(isinstance(w, str) and w.strip() for w in group):
                    line = group.line if hasattr(group, "line") else getattr(words, "line", 0)
                    self.problems.append(Problem(path, line, "", f"training_words{'.' + str(name) if name else ''} "
                                                                 "must be a list of words"))

    def check_metric_facts(self) -> None:
        """metrics.yaml `facts`: each rule names metrics, and a question with one of its answers."""
        for path, doc in self.kb.result.extras.get("metrics", []):
            rules = doc.get("facts") if isinstance(doc, dict) else None
            for i, rule in enumerate(rules if isinstance(rules, list) else []):
                line = rule.line if hasattr(rule, "line") else 0
                if not isinstance(rule, Mapping) or not rule.get("metrics"):
                    self.problems.append(Problem(path, line, "", f"facts[{i}] needs `metrics`, `question` and `answer`"))
                    continue
                qid, value = str(rule.get("question") or ""), normalise_answer(str(rule.get("answer") or ""))
                question = self.kb.get(qid)
                if question is None or question.kind != "symptom":
                    self.problems.append(Problem(path, line, "", f"facts[{i}]: unknown question {qid!r}"))
                elif value not in set(self.kb.answer_values(question)):
                    self.problems.append(Problem(path, line, "", f"facts[{i}]: {qid} has no answer {value!r}"))

    def check_regexes(self, node: Node) -> None:
        from triage.kb.guards import regex_problem

        for pattern in _as_list(node.get("errors")):
            try:
                re.compile(str(pattern))
            except re.error as exc:
                self.err(node, "errors", f"regex {str(pattern)!r} does not compile: {exc}")
                continue
            problem = regex_problem(str(pattern))
            if problem:
                self.err(node, "errors", f"regex {str(pattern)!r} is not used: {problem}; rewrite it "
                                         "so each character can be taken only one way")

    def check_refs(self, node: Node, key: str) -> None:
        for i, ref in enumerate(_as_list(node.get(key))):
            if not isinstance(ref, dict) or not isinstance(ref.get("url"), str) or not ref["url"].startswith(("http://", "https://")):
                self.err(node, key, f"{key}[{i}] needs a `url` (http or https) and a `title`")
            elif not isinstance(ref.get("title"), str) or not ref["title"].strip():
                self.err(node, key, f"{key}[{i}] needs a `title`")

    def check_answer_ref(self, node: Node, key: str, qid: str, values: object, allow_any: bool = False) -> None:
        question = self.kb.get(qid)
        if question is None or question.kind != "symptom":
            self.check_exists(node, key, qid, {"symptom"})
            return
        valid = set(self.kb.answer_values(question))
        for value in _as_list(values):
            value = normalise_answer(value)
            if allow_any and value == ANY:
                continue
            if value not in valid:
                self.err(node, key, f"{qid} has no answer {value!r} (answers: {', '.join(sorted(valid))})")

    def check_config_rules(self, node: Node, values: list[str]) -> None:
        rules = node.get("config")
        if not isinstance(rules, list):
            return
        for i, rule in enumerate(rules):
            where = f"config[{i}]"
            if not isinstance(rule, dict):
                self.err(node, "config", f"{where} must be a mapping with keys, op, answer (and value)")
                continue
            extra = set(rule) - schema.CONFIG_RULE_FIELDS
            if extra:
                self.err(node, "config", f"{where} has unknown fields: {', '.join(sorted(extra))}")
            keys = rule.get("keys")
            if not isinstance(keys, list) or not keys or not all(isinstance(k, str) and k for k in keys):
                self.err(node, "config", f"{where}.keys must be a non-empty list of config key names")
            op = rule.get("op")
            if op not in schema.CONFIG_OPS:
                self.err(node, "config", f"{where}.op must be one of {', '.join(sorted(schema.CONFIG_OPS))}")
            elif op in (">", ">=", "<", "<=") and (not isinstance(rule.get("value"), (int, float)) or isinstance(rule.get("value"), bool)):
                self.err(node, "config", f"{where}.value must be a number for op {op!r}")
            elif op == "in" and not isinstance(rule.get("value"), list):
                self.err(node, "config", f"{where}.value must be a list for op 'in'")
            elif op == "==" and "value" not in rule:
                self.err(node, "config", f"{where} needs a value for op '=='")
            answer = normalise_answer(rule.get("answer", ""))
            if values and answer not in values:
                self.err(node, "config", f"{where}.answer {answer!r} is not one of the answers ({', '.join(values)})")

    def check_symptom(self, node: Node) -> None:
        if not schema.SYMPTOM_ID.match(node.id):
            self.err(node, "id", "symptom IDs look like Q-<lower-case-words>")
        answers = node.get("answers")
        values: list[str] = []
        if isinstance(answers, list):
            if len(answers) < 2:
                self.err(node, "answers", "a question needs at least two answers")
            for i, answer in enumerate(answers):
                if not isinstance(answer, dict):
                    continue
                if "value" not in answer or not str(answer.get("label", "")).strip():
                    self.err(node, "answers", f"answers[{i}] needs a `value` and a `label`")
                    continue
                value = normalise_answer(answer["value"])
                if not schema.ANSWER_VALUE.match(value):
                    self.err(node, "answers", f"answer value {value!r} must be lower-case words joined by '-'")
                if value in values:
                    self.err(node, "answers", f"answer value {value!r} appears twice")
                values.append(value)
                for key in ("next", "favours", "rules_out"):
                    for target in _as_list(answer.get(key)):
                        self.check_exists(node, "answers", target)
                extra = set(answer) - {"value", "label", "next", "favours", "rules_out", "help", "weight", "strength"}
                weight = answer.get("weight")
                if weight is not None and (not isinstance(weight, (int, float)) or isinstance(weight, bool) or weight <= 0):
                    self.err(node, "answers", f"answers[{i}].weight must be a positive number (the answer's background share)")
                strength = answer.get("strength")
                if strength is not None and (not isinstance(strength, (int, float)) or isinstance(strength, bool) or not 0 <= strength <= 1):
                    self.err(node, "answers", f"answers[{i}].strength must be a number from 0 to 1 (how much a vague answer counts)")
                if extra:
                    self.err(node, "answers", f"answers[{i}] has unknown fields: {', '.join(sorted(extra))}")
        self.check_config_rules(node, values)
        default = node.get("default")
        if default is not None and values and normalise_answer(default) not in values:
            self.err(node, "default", f"default {normalise_answer(default)!r} is not one of the answers")
        when = node.get("when")
        if node.id == schema.START:
            if when:
                self.err(node, "when", "the start question cannot have a `when` gate")
        elif not when:
            self.err(node, None, "missing field `when` (the answer after which this question is asked)")
        elif isinstance(when, dict):
            for qid, allowed in when.items():
                if str(qid) == node.id:
                    self.err(node, "when", "a question cannot be gated on itself")
                    continue
                self.check_answer_ref(node, "when", str(qid), allowed, allow_any=True)

    def check_detector(self, node: Node) -> None:
        if not schema.DETECTOR_ID.match(node.id):
            self.err(node, "id", "detector IDs look like det-<lower-case-words>")
        answers = node.get("answers")
        if isinstance(answers, dict):
            qid = answers.get("symptom")
            if not qid or "answer" not in answers:
                self.err(node, "answers", "`answers` needs `symptom` and `answer`")
            else:
                self.check_answer_ref(node, "answers", str(qid), answers["answer"])
                params = node.get("params")
                if isinstance(params, dict) and params.get("coarse_answer") is not None:
                    # the check's other answer to the same question
                    self.check_answer_ref(node, "params", str(qid), params["coarse_answer"])
        check = node.get("check")
        known = self.check_params
        if isinstance(check, str) and known is not None and check not in known:
            self.err(node, "check", f"unknown check {check!r} (known: {', '.join(sorted(known))})")
        elif isinstance(check, str) and known is not None:
            self.check_detector_params(node, check, known[check])
        self.check_refs(node, "sources")
        category = node.get("category")
        start = self.kb.get(schema.START)
        if category is not None and start is not None and normalise_answer(category) not in self.kb.answer_values(start):
            self.err(node, "category", f"category must be a {schema.START} answer (one of {', '.join(self.kb.answer_values(start))})")
        for key in ("supersedes", "supersedes_same_metric"):
            for target in _as_list(node.get(key)):
                self.check_exists(node, key, target, {"detector"})
        fixtures = Path(node.path).parent / "fixtures" / node.id
        for which in ("fire", "quiet"):
            if not any(fixtures.glob(f"{which}.*")) if fixtures.is_dir() else True:
                self.err(node, None, f"missing fixture {_display_path(str(fixtures))}/{which}.* (a log where it must {'fire' if which == 'fire' else 'stay quiet'})")

    def check_detector_params(self, node: Node, check: str, schema_cls: type[Params]) -> None:
        """Each key of `params` is a field of the check's params dataclass, with a value of its
        type; a problem names the key's own line."""
        raw = node.get("params")
        if raw is not None and not isinstance(raw, dict):
            return  # the field type check already said `params` must be a mapping
        _, problems = parse(schema_cls, raw)
        for problem in problems:
            message = problem.message
            if problem.key in _GATES:
                message = f"`{problem.key}` is a detector field, not a parameter: move it out of `params`"
            line_of = getattr(raw, "line_of", None)  # a LineDict knows the line of each key
            line = line_of(problem.key) if line_of is not None else node.line("params")
            self.problems.append(Problem(node.path, line, node.id, f"params: {message} (check `{check}`)"))

    def check_probe(self, node: Node) -> None:
        if not schema.PLAIN_NAME.match(node.id):
            self.err(node, "id", "probe names are lower-case words joined by '_'")
        for qid in _as_list(node.get("answers")):
            self.check_exists(node, "answers", qid, {"symptom"})

    def check_checklist(self, node: Node) -> None:
        if not schema.PLAIN_NAME.match(node.id):
            self.err(node, "id", "checklist names are lower-case words joined by '-'")
        for d in _as_list(node.get("domains")):
            if str(d) not in schema.DOMAINS:
                self.err(node, "domains", f"unknown domain {d!r} (one of {', '.join(sorted(schema.DOMAINS))})")
        for s, section in enumerate(_as_list(node.get("sections"))):
            if not isinstance(section, dict) or not section.get("title"):
                self.err(node, "sections", f"sections[{s}] needs a `title`")
                continue
            extra = sorted(set(section) - schema.CHECKLIST_SECTION_FIELDS)
            if extra:
                self.err(node, "sections", f"sections[{s}] has unknown fields: {', '.join(extra)} (allowed: {', '.join(sorted(schema.CHECKLIST_SECTION_FIELDS))})")
            items = section.get("items")
            if not isinstance(items, list) or not items:
                self.err(node, "sections", f"sections[{s}] needs a non-empty `items` list")
                continue
            for i, item in enumerate(items):
                if not isinstance(item, dict) or not str(item.get("text", "")).strip():
                    self.err(node, "sections", f"sections[{s}].items[{i}] needs a `text`")
                    continue
                extra = sorted(set(item) - schema.CHECKLIST_ITEM_FIELDS)
                if extra:
                    self.err(node, "sections", f"sections[{s}].items[{i}] has unknown fields: {', '.join(extra)} (allowed: {', '.join(sorted(schema.CHECKLIST_ITEM_FIELDS))})")
                for key in ("why", "check", "range"):
                    if key in item and (not isinstance(item[key], str) or not item[key].strip()):
                        self.err(node, "sections", f"sections[{s}].items[{i}].{key} must be a non-empty string")
                links = _as_list(item.get("links"))
                if not links:
                    self.err(node, "sections", f"sections[{s}].items[{i}] must link to at least one node ID")
                for target in links:
                    self.check_exists(node, "sections", target)

    def check_deprecated(self, node: Node) -> None:
        target = node.get("replaced_by")
        if isinstance(target, str):
            self.check_exists(node, "replaced_by", target)

    # -- whole graph -----------------------------------------------------------------------
    def check_graph(self) -> None:
        from triage.kb.graph import DecisionGraph  # networkx only when checking

        graph = DecisionGraph(self.kb)
        for cycle in graph.question_cycles():
            first = self.kb[cycle[0]]
            self.err(first, "when", "cycle in the question graph: " + " -> ".join([*cycle, cycle[0]]))
        if schema.START in self.kb.nodes:
            for cid in graph.unreachable_causes():
                self.err(self.kb[cid], "signs", f"cause is unreachable from {schema.START}: no reachable question indicates it (add `signs`)")
            reach = graph.reachable()
            for qid in graph.dead_end_questions():
                self.err(self.kb[qid], "answers", "question with no way out: no answer leads to a follow-up question or a cause")
            for sym in self.kb.symptoms:
                if sym.id not in reach and sym.id not in graph.dead_end_questions():
                    self.err(sym, "when", f"question is unreachable from {schema.START}")

    def check_lookalikes(self) -> None:
        groups: dict[tuple, list[Node]] = {}
        for cause in self.kb.causes:
            signs = self.kb.signs(cause)
            key = tuple(sorted((q, tuple(sorted(v))) for q, v in signs.items()))
            groups.setdefault(key, []).append(cause)
        for members in groups.values():
            if len(members) > 1:
                ids = ", ".join(m.id for m in members)
                for m in members:
                    self.warn(m, "signs", f"answers every question like {ids}: add a sign that tells them apart")


class _FrameworkFile:
    """The checks of one frameworks.yaml document, reported with its path and line."""

    def __init__(self, checker: Checker, path: str, doc):
        self.c, self.path, self.doc = checker, path, doc

    def err(self, where, message: str, key: str | None = None, who: str = "") -> None:
        line = where.line_of(key) if key and hasattr(where, "line_of") else getattr(where, "line", 0)
        self.c.problems.append(Problem(self.path, line, who, message))

    def check(self) -> None:
        doc = self.doc
        if not isinstance(doc, dict):
            self.err(doc, "expected a mapping with `frameworks`")
            return
        extra = sorted(set(doc) - {"stacks", "settings", "frameworks", "domain_rules"})
        if extra:
            self.err(doc, f"unknown top-level fields: {', '.join(extra)} (allowed: stacks, settings, frameworks, domain_rules)")
        stacks = set(doc.get("stacks") or {}) | set(self.c.framework_table().stacks)
        settings = self.c.framework_table().setting_names
        for name, entry in (doc.get("settings") or {}).items():
            for qid, value in ((entry or {}).get("in_effect") or {}).items() if isinstance(entry, dict) else ():
                self.answer_ref(entry, "in_effect", str(qid), value, str(name))
        seen: set[str] = set()
        for fw in _as_list(doc.get("frameworks")):
            if not isinstance(fw, dict):
                self.err(doc, "each entry of `frameworks` must be a mapping", "frameworks")
                continue
            fid = str(fw.get("id") or "")
            for key, required in schema.FRAMEWORK_FIELDS.items():
                if required and fw.get(key) in (None, "") and key != "recognise":
                    self.err(fw, f"missing field `{key}`", who=fid)
            for key in sorted(set(fw) - set(schema.FRAMEWORK_FIELDS)):
                self.err(fw, f"unknown field `{key}` (allowed: {', '.join(schema.FRAMEWORK_FIELDS)})", key, fid)
            if not schema.PLAIN_NAME.match(fid):
                self.err(fw, f"framework id {fid!r} must be lower-case words joined by _ or -", "id", fid)
            if fid in seen:
                self.err(fw, f"duplicate framework id {fid!r}", "id", fid)
            seen.add(fid)
            if fw.get("stack") is not None and str(fw.get("stack")) not in stacks:
                self.err(fw, f"unknown stack {fw.get('stack')!r} (one of {', '.join(sorted(stacks))})", "stack", fid)
            if fw.get("domain") is not None and str(fw.get("domain")) not in schema.DOMAINS:
                self.err(fw, f"unknown domain {fw.get('domain')!r}", "domain", fid)
            for d in _as_list(fw.get("rules_out_domains")):
                if str(d) not in schema.DOMAINS:
                    self.err(fw, f"rules_out_domains: unknown domain {d!r}", "rules_out_domains", fid)
            self.check_rules(fw, fid)
            self.check_settings(fw, fid, settings)
        for i, rule in enumerate(_as_list(doc.get("domain_rules"))):
            if not isinstance(rule, dict) or not (isinstance(rule.get("config"), dict) or rule.get("checks")):
                self.err(doc, f"domain_rules[{i}] needs a `config` rule (keys, op, value) or `checks`", "domain_rules")
                continue
            for key in sorted(set(rule) - schema.DOMAIN_RULE_FIELDS):
                self.err(rule, f"domain_rules[{i}]: unknown field `{key}`", key)
            known_checks = self.c.check_params or {}
            for name in _as_list(rule.get("checks")):
                if known_checks and str(name) not in known_checks:
                    self.err(rule, f"domain_rules[{i}]: unknown check {name!r}", "checks")
            cfg = rule.get("config")
            if cfg is None:
                pass
            elif not cfg.get("keys") or str(cfg.get("op")) not in schema.CONFIG_OPS:
                self.err(rule, f"domain_rules[{i}].config needs `keys` and an `op` (one of {', '.join(sorted(schema.CONFIG_OPS))})", "config")
            for d in _as_list(rule.get("excludes")):
                if str(d) not in schema.DOMAINS:
                    self.err(rule, f"domain_rules[{i}]: unknown domain {d!r}", "excludes")
            if not str(rule.get("because") or "").strip():
                self.err(rule, f"domain_rules[{i}] needs a `because`")

    def check_rules(self, fw: dict, fid: str) -> None:
        rules = fw.get("recognise")
        if not isinstance(rules, list):
            self.err(fw, "`recognise` must be a list of rules (it may be empty)", "recognise", fid)
            return
        for i, rule in enumerate(rules):
            if not isinstance(rule, dict):
                self.err(fw, f"recognise[{i}] must be a mapping", "recognise", fid)
                continue
            for key in sorted(set(rule) - schema.FRAMEWORK_RULE_FIELDS):
                self.err(rule, f"recognise[{i}]: unknown field `{key}` (allowed: {', '.join(sorted(schema.FRAMEWORK_RULE_FIELDS))})", key, fid)
            if not (set(rule) & (schema.FRAMEWORK_RULE_FIELDS - {"because", "keys_none"})):
                self.err(rule, f"recognise[{i}] has no condition", who=fid)
            if not str(rule.get("because") or "").strip():
                self.err(rule, f"recognise[{i}] needs a `because` (shown to the user)", who=fid)
            if rule.get("events"):
                try:
                    re.compile(str(rule["events"]))
                except re.error as exc:
                    self.err(rule, f"recognise[{i}].events does not compile: {exc}", "events", fid)

    def check_settings(self, fw: dict, fid: str, known: set[str]) -> None:
        entries = fw.get("settings")
        if not isinstance(entries, dict):
            self.err(fw, "`settings` must be a mapping of setting name to its default", "settings", fid)
            return
        for name, entry in entries.items():
            if str(name) not in known:
                self.err(entries, f"unknown setting {name!r} (declare it under the top-level `settings`)", str(name), fid)
            if not isinstance(entry, dict):
                self.err(entries, f"settings.{name} must be a mapping", str(name), fid)
                continue
            for key, required in schema.FRAMEWORK_SETTING_FIELDS.items():
                if required and key not in entry:
                    self.err(entry, f"settings.{name} needs `{key}`", who=fid)
            for key in sorted(set(entry) - set(schema.FRAMEWORK_SETTING_FIELDS)):
                self.err(entry, f"settings.{name}: unknown field `{key}`", key, fid)
            source = entry.get("source")
            if source is not None and not str(source).startswith(("http://", "https://")):
                self.err(entry, f"settings.{name}.source must be a URL (the framework's docs or source)", "source", fid)
            if not isinstance(entry.get("keys", []), list):
                self.err(entry, f"settings.{name}.keys must be a list (it may be empty)", "keys", fid)
            knob = entry.get("knob")
            if knob is not None and not _looks_concrete(str(knob)):
                self.err(entry, f"settings.{name}.knob is not a concrete setting or code line", "knob", fid)
            for qid, value in (entry.get("answers") or {}).items():
                self.answer_ref(entry, "answers", str(qid), value, fid)

    def answer_ref(self, where, key: str, qid: str, value, who: str) -> None:
        question = self.c.kb.get(qid)
        if question is None or question.kind != "symptom":
            self.err(where, f"`{key}` names {qid!r}, which is not a question", key, who)
            return
        valid = set(self.c.kb.answer_values(question))
        if normalise_answer(value) not in valid:
            self.err(where, f"{qid} has no answer {normalise_answer(value)!r} (answers: {', '.join(sorted(valid))})", key, who)


_GATES = ("requires", "requires_any", "unless")

_TYPE_WORDS = {
    "str": "a non-empty string",
    "dict": "a mapping",
    "list[str]": "a list of strings",
    "list[dict]": "a list of mappings",
    "bool": "true or false",
}

_CONCRETE = re.compile(r"[=(){}\[\]:`_./]|--|(^|\s)-[A-Za-z]|\d|[a-z][A-Z]")


def _looks_concrete(knob: str) -> bool:
    """A knob names an exact setting or code: it has code-like punctuation, a number or an identifier."""
    return bool(_CONCRETE.search(knob))


def check(kb: KnowledgeBase, graph: bool = True, check_params: Mapping[str, type[Params]] | None = None) -> list[Problem]:
    """Every problem of `kb`; pass `check_params` (triage.detect.PARAMS) to check detectors'
    `check` and `params` against the code too (see the module docstring)."""
    return Checker(kb, check_params).run(graph=graph)
