"""Turn what was read (findings, error lines, descriptions, probe results) into engine evidence.

Shared by `triage scan` (evidence only) and `triage ask --log/--evidence` (evidence first,
then questions).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from triage.engine.diagnosis import Diagnosis, error_line_weights
from triage.engine.frameworks import domains_from_findings, excluded_domains, framework_table
from triage.kb.config_rules import config_answer, config_rules
from triage.kb.schema import DOMAIN_QUESTION, START


@dataclass
class Applied:
    """What was fed to the engine, for display and JSON."""

    findings: list = field(default_factory=list)
    # one per distinct error message: {"line", "text", "count", "causes" (best first), "cause", "pattern"}
    errors: list[dict] = field(default_factory=list)
    described: list[dict] = field(default_factory=list)  # {"cause", "score"}
    probes: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    config: list[dict] = field(default_factory=list)  # {"question", "answer", "key", "value", "file"}
    # framework defaults used as evidence: {"question", "answer", "setting", "framework", "says", "source"}
    defaults: list[dict] = field(default_factory=list)
    # which error message each piece of error-text evidence came from: {position in Diagnosis.text:
    # index in `errors`}, so a report links a cause's "error text ..." line to its match by position
    text_errors: dict[int, int] = field(default_factory=dict)


def start_order(diag: Diagnosis) -> list[str]:
    return diag.model.values.get(START, [])


def apply_findings(diag: Diagnosis, findings: list, applied: Applied) -> None:
    order = start_order(diag)
    categories = [f.category for f in findings if f.category in order]
    by_question: dict[str, list] = {}
    for f in findings:
        applied.findings.append(f)
        if f.symptom in diag.model.questions and f.answer in diag.model.values[f.symptom]:
            by_question.setdefault(f.symptom, []).append(f)
    for q, fs in by_question.items():
        prev = diag.answers.get(q)
        if prev is not None and prev.source != "log":
            continue  # what the person said stands
        values = list(dict.fromkeys(f.answer for f in fs))  # several findings: "one of these"
        diag.answer(q, values, "log", "\n".join(dict.fromkeys(f.summary for f in fs)),
                    lines=tuple((f.summary, f.answer) for f in fs) if len(values) > 1 else ())
    if categories and START not in diag.answers:
        # a log can show several presentations at once (a spike, then a flat loss): the
        # evidence is "one of these", not the first in some fixed order
        present = sorted(set(categories), key=order.index)
        words = " or ".join(present)
        diag.answer(START, present, "log", f"the log shows: {words}")


def apply_config(diag: Diagnosis, run, applied: Applied) -> int:
    """Answer the questions the run's config settles (gradient accumulation, clipping,
    precision, ...), then those its framework settles by default when the config is silent
    (`apply_defaults`). Only when the log already shows a problem, and only questions whose
    `when` gate that evidence opens: a config alone is not a symptom. Returns the number answered."""
    if not (applied.findings or applied.errors):
        return 0
    config = getattr(run, "config", None) or {}
    rules = config_rules(diag.kb)
    name = Path(str(run.meta.get("config_path") or "config")).name
    count = 0
    for _ in range(4):  # an answer can open further questions
        new = 0
        for q in diag.eligible():
            hit = config_answer(rules.get(q) or [], config) if config else None
            if hit is not None and hit[0] in diag.model.values.get(q, ()):
                answer, key, value = hit
                diag.answer(q, answer, "config", f"{key} = {value} in {name}")
                applied.config.append({"question": q, "answer": answer, "key": key, "value": value, "file": name})
                new += 1
            elif apply_default(diag, q, config, name if config else None, applied):
                new += 1
        count += new
        if not new:
            break
    return count


def apply_default(diag: Diagnosis, question: str, config: dict, config_name: str | None, applied: Applied) -> bool:
    """Answer `question` from the default of the run's framework (knowledge/frameworks.yaml), when
    the framework is known, one of its settings answers the question, and the config (if any)
    sets none of that setting's keys: HF Trainer clips at max_grad_norm 1.0 unless told otherwise."""
    fw = diag.context.framework
    if fw is None:
        return False
    for setting in fw.settings.values():
        answer = setting.answers.get(question)
        if answer is None or answer not in diag.model.values.get(question, ()):
            continue
        if any(k in config for k in setting.keys):
            return False  # the config sets it (in a form the question's rules do not read): no default
        where = f"{config_name} does not set {setting.keys[0]}" if config_name and setting.keys else "no config beside the log"
        diag.answer(question, answer, "default", f"{fw.title} default: {setting.says} ({where})")
        applied.defaults.append({"question": question, "answer": answer, "setting": setting.name,
                                 "framework": fw.title, "says": setting.says, "source": setting.source})
        return True
    return False


def _metrics_sections(kb, key: str) -> list:
    """Section `key` of each metrics.yaml document that has it (a user's folders first, then the built-in one)."""
    docs = reversed(kb.result.extras.get("metrics", []))
    return [doc[key] for _, doc in docs if isinstance(doc, dict) and doc.get(key)]


def domain_hints(kb) -> tuple[dict, list]:
    """The `domains` section of metrics.yaml."""
    formats: dict = {}
    rules: list = []
    for section in _metrics_sections(kb, "domains"):
        if not isinstance(section, dict):
            continue
        for fmt, dom in (section.get("formats") or {}).items():
            formats.setdefault(str(fmt), str(dom))
        for rule in section.get("metrics") or []:
            if isinstance(rule, (list, tuple)) and len(rule) == 2:
                rules.append((str(rule[0]), str(rule[1])))
    return formats, rules


def training_words(kb) -> frozenset[str]:
    """The `training_words` section of metrics.yaml, each word spelled as the search index spells it
    (triage.kb.search.tokens: lower case, a plural `s` dropped; a joined word stays whole)."""
    from triage.kb.search import tokens

    words: set[str] = set()
    for section in _metrics_sections(kb, "training_words"):
        for group in (section.values() if isinstance(section, dict) else [section]):
            for word in group if isinstance(group, list) else [group]:
                spelled = tokens(str(word))
                if spelled:
                    words.add(spelled[0])  # (`fine-tune` whole: its parts `fine` and `tune` are ordinary words)
    return frozenset(words)


def about_training(kb, text: str) -> bool:
    """Whether a text in words talks about training a model: it uses two different training words, or
    one when it is 20 words or fewer. Only such a text is ranked against the knowledge by its words."""
    from triage.kb.search import tokens

    said = tokens(text)
    found = set(said) & training_words(kb)
    return len(found) >= 2 or (len(found) == 1 and len(said) <= 20)


def metric_facts(kb) -> list[dict]:
    """The `facts` section of metrics.yaml: answers that the metric names a run logs give by themselves."""
    return [rule for section in _metrics_sections(kb, "facts") if isinstance(section, list) for rule in section
            if isinstance(rule, dict) and rule.get("question") and rule.get("answer") and rule.get("metrics")]


def _logged(run, patterns) -> str | None:
    """The first series of `run` that one of `patterns` names (`*` as in the detectors' metrics)."""
    from triage.detect.checks import series_matching

    found = series_matching(run, [str(p) for p in patterns or ()]) if getattr(run, "series", None) else []
    return found[0].name if found else None


def apply_facts(diag: Diagnosis, run) -> None:
    """Answer the questions that the run's metric names settle (metrics.yaml `facts`): a run scored
    by BLEU generates its text with a decoder, so it trains no CTC model. A fact is not a finding (it
    never flags a run), an answer already given stays, and a run that also logs one of the rule's
    `unless` metrics is left to the questions."""
    for rule in metric_facts(diag.kb):
        question, answer = str(rule["question"]), str(rule["answer"])
        if question in diag.answers or answer not in diag.model.values.get(question, ()):
            continue
        name = _logged(run, rule.get("metrics"))
        if name is None or _logged(run, rule.get("unless")) is not None:
            continue
        because = " ".join(str(rule.get("because") or "").split())
        diag.answer(question, answer, "log", f"the log has {name}" + (f": {because}" if because else ""))


def infer_context(diag: Diagnosis, run) -> None:
    """Name the framework that wrote the log and the domains its config rules out
    (knowledge/frameworks.yaml); kept on the diagnosis (`diag.context`) and on the run
    (`run.meta["framework"]`). A framework already known (an earlier log) stays."""
    table = framework_table(diag.kb)
    ctx = diag.context
    if ctx.framework is None:
        hit = table.recognised(run)
        if hit is not None:
            ctx.framework, ctx.because = hit
    if ctx.framework is not None:
        run.meta["framework"] = ctx.framework.id
        for domain in ctx.framework.rules_out_domains:
            ctx.excluded_domains.setdefault(domain, f"written by {ctx.framework.title}, which trains no {domain} models")
    config = getattr(run, "config", None)
    if config:
        for domain, reason in excluded_domains(table, config).items():
            ctx.excluded_domains.setdefault(domain, reason)


def infer_domain(diag: Diagnosis, run, applied: Applied) -> None:
    """The run's context (framework, domains its config rules out), then its domain: from the
    format, the metric names (metrics.yaml `domains`: they name the task more narrowly) or the
    framework (SB3 is RL)."""
    infer_context(diag, run)
    apply_facts(diag, run)
    found = domains_from_findings(framework_table(diag.kb), diag.kb, applied.findings, getattr(run, "config", None) or {})
    for ruled_out, why in found.items():
        diag.context.excluded_domains.setdefault(ruled_out, why)
    if DOMAIN_QUESTION in diag.answers or DOMAIN_QUESTION not in diag.model.questions:
        return
    formats, rules = domain_hints(diag.kb)
    domain = formats.get(getattr(run, "format", ""))
    reason = f"read as {getattr(run, 'format', '')}"
    fw = diag.context.framework
    if domain is None:
        # a metric names the task more narrowly than the framework does (ms-swift is an LLM framework, and
        # its GRPO runs log reward_std); where both say the same, the framework is the reason given
        for metric, dom in rules:
            if run.get(metric) is not None:
                domain, reason = dom, f"the log has {metric}"
                break
        if fw is not None and fw.domain and domain in (None, fw.domain):
            domain, reason = fw.domain, f"written by {fw.title}"
    if domain and domain in diag.model.values[DOMAIN_QUESTION]:
        diag.answer(DOMAIN_QUESTION, domain, "log", f"domain {domain} ({reason})")


# a line's rank / worker prefix and its numbers (rank, pid, sequence number, time) do not make it a new message
_DIGITS = re.compile(r"\d+")


@dataclass
class ErrorLine:
    """One distinct error message in the input: where it first appears, how often, what it matches."""

    line: int | None
    text: str
    spans: dict[str, tuple[str, int]]  # cause -> (pattern, characters of the line it covers)
    count: int = 1


def _message_key(text: str) -> str:
    return _DIGITS.sub("#", text)


def error_lines(index, lines: list[tuple[int | None, str]], fold: bool = False) -> list[ErrorLine]:
    """The lines of `lines` that match error patterns, one entry per distinct message.

    `lines` holds (line number, text) pairs; a multi-line text (a traceback block) starts at its line
    number, so each of its lines gets its own number and a match is reported where it is, not where
    its traceback begins. A line seen twice (in a traceback event and again among the raw lines) counts
    once; the same message on several lines (every rank printing it) is one entry with its count.
    `fold`: a line no pattern matches as written is tried again without regard to case."""
    groups: dict[str, ErrorLine] = {}
    seen: set[int] = set()
    for lineno, text in lines:
        for offset, part in enumerate(text.split("\n")):
            ln = lineno + offset if lineno else None
            stripped = part.strip()
            if not stripped or (ln is not None and ln in seen):
                continue
            spans = index.error_spans(stripped, fold)
            if not spans:
                continue
            if ln is not None:
                seen.add(ln)
            key = _message_key(stripped)
            if key in groups:
                groups[key].count += 1
            else:
                groups[key] = ErrorLine(ln, stripped, spans)
    return list(groups.values())


def apply_text(diag: Diagnosis, index, lines: list[tuple[int | None, str]], applied: Applied, source: str = "log",
               warnings: frozenset[int] = frozenset(), fold: bool = False) -> int:
    """Match error patterns against text lines and weigh each matching cause by how well its pattern
    explains the line (`error_line_weights`); a cause matched by several messages keeps its best one.
    Lines numbered in `warnings` were printed as warnings: they weigh their causes like any line, except
    causes met only as an error (`_as_warned`), and a run that only warned did not fail with an error, so
    they leave "what do you see" to the findings.
    Returns the number of distinct error messages matched."""
    groups = [g for g in (_as_warned(diag, g, warnings) for g in error_lines(index, lines, fold)) if g.spans]
    best: dict[str, tuple[float, ErrorLine, int]] = {}
    for g in groups:
        weights = error_line_weights(g.spans, diag.model.refines)
        ranked = sorted(weights, key=lambda c: (-weights[c], c))
        at = len(applied.errors)
        applied.errors.append({"line": g.line, "text": g.text[:300], "count": g.count, "causes": ranked,
                               "cause": ranked[0], "pattern": g.spans[ranked[0]][0]})
        for cid, w in weights.items():
            if cid not in best or w > best[cid][0]:
                best[cid] = (w, g, at)
    for cid, (w, g, at) in best.items():
        where = f"line {g.line}: " if g.line else ""
        times = f" ({g.count} times)" if g.count > 1 else ""
        before = len(diag.text)
        diag.add_text(cid, w, f"error text {where}{g.text[:160]}{times}", source)
        if len(diag.text) > before:
            applied.text_errors[before] = at
    errors = [g for g in groups if g.line is None or g.line not in warnings]
    if errors and START not in diag.answers and "error" in diag.model.values.get(START, []):
        diag.answer(START, _start_for_errors(diag, best), source,
                    f"error text in the input ({len(errors)} message(s) matched)")
    return len(groups)


def _as_warned(diag: Diagnosis, g: ErrorLine, warnings: frozenset[int]) -> ErrorLine:
    """The message without the causes it cannot show when the program printed it as a warning and went
    on: a cause met only as an error (the program stops: a build without the GPU's kernels, a missing
    symbol) is not what an optional extension that failed to load and said so in a warning shows."""
    if g.line is None or g.line not in warnings:
        return g
    keep = {c: sp for c, sp in g.spans.items() if set(diag.model.signs.get(c, {}).get(START, ())) != {"error"}}
    return g if len(keep) == len(g.spans) else ErrorLine(g.line, g.text, keep, g.count)


def _start_for_errors(diag: Diagnosis, best: dict) -> str:
    """What a person saw first, given the error text: an error; and when the best-matching cause is
    not itself met as an error, also what it says one sees (a NaN guard that raises, `Loss became
    infinite or NaN`, is a crash and a NaN; "a|b" on the opening question means one of them)."""
    values = diag.model.values.get(START, [])
    top = max(best, key=lambda c: (best[c][0], c), default=None)
    named = set(diag.model.signs.get(top, {}).get(START, ())) if top else set()
    if not named or "error" in named:
        return "error"  # the cause itself is met as an error
    return "|".join(["error"] + sorted(v for v in named if v in values))


# a logging call's level on the line (`- WARNING -`, `WARNING:root:`, `[WARN]`): the program itself
# did not count the message an error
_WARNING_LEVEL = re.compile(r"(?:^|[\s\[|:-])(?:WARNING|WARN)(?=[\s\]|:-])")


PASTED_LINES = 200  # the most lines a message pasted or retyped by a person is taken to have (apply_run)


def event_lines(run) -> list[tuple[int | None, str]]:
    """The run's tracebacks, error and warning lines as (line number, text): what error patterns read."""
    return [(e.line, e.text) for e in getattr(run, "events", []) if e.kind in ("traceback", "error", "warning")]


def apply_run(diag: Diagnosis, run, findings: list, applied: Applied, index=None,
              raw: list[tuple[int | None, str]] | None = None) -> list[tuple[int | None, str]]:
    """Everything one read log tells the engine, in the one order `scan`, `ask --log` and `watch`
    share: its error text (when `index`, a SearchIndex, is given; `raw` adds the lines of a plain
    text input), the detectors' `findings`, its framework and domain, then its config. The order
    matters: error text claims the "what do you see" answer before the findings would. Returns the
    run's own error lines (empty: the log holds none)."""
    lines = event_lines(run)
    if index is not None:
        warned = frozenset(e.line for e in getattr(run, "events", []) if e.line is not None and (
            e.kind == "warning" or (e.kind == "error" and _WARNING_LEVEL.search(e.text) and "ERROR" not in e.text)))
        # an input with no metrics is a pasted message: one a person retyped may have lost its case. A text of
        # more than PASTED_LINES lines is a program's output, whose case is the program's (and trying every
        # pattern again without regard to case costs four times the first try, line after line)
        pasted = not run.series and len(raw or ()) <= PASTED_LINES
        apply_text(diag, index, lines + (raw or []), applied, warnings=warned, fold=pasted)
    apply_findings(diag, findings, applied)
    infer_domain(diag, run, applied)
    apply_config(diag, run, applied)
    return lines


def apply_description(diag: Diagnosis, index, text: str, applied: Applied, limit: int = 5) -> None:
    """A description in plain words ("my DPO rewards are stuck at zero"): ranked by search."""
    hits = [h for h in index.search(text, limit=limit * 3) if h.node.kind == "cause"][:limit]
    if not hits:
        return
    top = hits[0].score
    for h in hits:
        weight = 1.0 + 8.0 * (h.score / top) ** 2
        diag.add_text(h.node.id, weight, f"description matches: {', '.join(h.terms[:6])}", "text")
        applied.described.append({"cause": h.node.id, "score": h.score})


def is_probe_result(path: str) -> dict | None:
    """The probe result at `path`, or None for anything else (triage.ingest.probe_result.sniff,
    the one reader: a result that breaks the contract raises ProbeResultError)."""
    from triage.ingest.probe_result import sniff

    return sniff(path)


def apply_probe(diag: Diagnosis, result: dict, applied: Applied, origin: str = "") -> None:
    name = str(result.get("probe", "probe"))
    status = str(result.get("status", ""))
    message = str(result.get("message", "")).strip()
    if status in ("error", "inconclusive"):
        applied.notes.append(f"probe {name} was {status}: its answers are ignored{': ' + message if message else ''}")
        return
    used = {}
    for qid, value in (result.get("answers") or {}).items():
        if qid not in diag.model.questions:
            applied.notes.append(f"probe {name}: unknown question {qid} ignored")
            continue
        value = str(value).lower() if not isinstance(value, bool) else ("yes" if value else "no")
        if value not in diag.model.values[qid]:
            applied.notes.append(f"probe {name}: {qid} has no answer {value!r}; ignored")
            continue
        diag.answer(qid, value, "probe", f"probe {name} ({status}){': ' + message if message else ''}")
        if status == "fail" and value != diag.model.defaults.get(qid):
            diag.mark_measured(qid)  # a failed probe's non-healthy answer is a measured fault, not a guess
        used[qid] = value
    applied.probes.append({"probe": name, "status": status, "answers": used, "message": message, "path": origin})

