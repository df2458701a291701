"""The diagnosis engine: a differential over causes, narrowed by answers from any source.

Model (naive Bayes over the knowledge graph):
  score(cause) = prior(cause) x product over answered questions of P(answer | cause)
                 x the weight of matching text evidence (error lines, a description).
P(answer | cause) comes from the cause's `signs`: a cause that names the answer makes it likely,
a cause that names another answer makes it unlikely, and a cause that says nothing about the
question follows the question's background (the healthy `default` answer is the common one).
"Don't know" changes nothing. The next question is the eligible one with the highest expected
information gain over the current differential; questions already answered by a log, a probe
or the user are never asked again.

A cause that cannot apply to the run is not ranked at all (`inapplicable`): an answer contradicts
what it `requires` (no-clipping when clipping is on, by config or by the framework's default), it
is tagged for other `frameworks` than the one that wrote the log (a PyTorch-only bug in a Keras
run), or for other `domains` than the run's known one (a VLM projector in a classifier).

The same `Diagnosis` serves `triage ask` (interactive), `ask --answers` (replay) and
`triage scan` (answers from evidence only).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from triage.engine.frameworks import Framework, cause_domains
from triage.kb.base import ANY, KnowledgeBase, _as_list
from triage.kb.loader import Node
from triage.kb.schema import DOMAIN_QUESTION, PRIORS, START, normalise_answer

UNKNOWN = "unknown"

P_SIGN = 0.9  # probability mass a cause puts on the answers it names
P_DEFAULT = 0.7  # background probability of a question's healthy answer
P_RULED_OUT = 0.02
ERROR_MATCH = 40.0  # likelihood ratio of an error line matching a cause's pattern (the best match on its line)
ERROR_MATCH_FLOOR = 2.0  # the least a matching pattern counts for: a weaker match is still evidence for the cause
# A failed probe measured a fault directly (raw logits went into NLLLoss): the causes that name what it
# measured get this likelihood ratio on top of the answer itself, as strong as an error line naming them.
PROBE_FAIL_MATCH = ERROR_MATCH
MIN_GAIN = 0.005  # bits: below this, a question is not worth asking
# Chance that a person cannot answer a question: high when their cause says nothing about it,
# low when it does. Used only to choose questions; a "don't know" never moves the differential.
P_UNKNOWN_SILENT = 0.5
P_UNKNOWN_NAMED = 0.1


def error_line_weights(spans: dict[str, tuple[str, int]], refines: dict[str, set[str]]) -> dict[str, float]:
    """Likelihood ratios for the causes whose error patterns match one line of error text.

    `spans` maps each matching cause to (pattern, characters of the line it covers). The pattern that
    covers the most of the line gets ERROR_MATCH; a shorter match on the same line gets ERROR_MATCH
    scaled by its share of that length, since a generic fragment explains less of the message than a
    specific one. A cause that only repeats the match of a broader cause it refines (`aliases`: the
    ways to run out of GPU memory all match "CUDA out of memory") shares that evidence with its
    siblings: the line shows the broad condition, not which refinement, so each of n refinements gets
    the broad cause's ratio / (n + 1) until other evidence (its own pattern, an answer) singles it out.
    """
    if not spans:
        return {}
    longest = max(span for _, span in spans.values())
    weights = {cid: max(ERROR_MATCH_FLOOR, ERROR_MATCH * span / longest) for cid, (_, span) in spans.items()}
    parent_of: dict[str, str] = {}
    for cid, (_, span) in spans.items():
        broader = [p for p in refines.get(cid, ()) if p in spans and spans[p][1] >= span]
        if broader:
            parent_of[cid] = max(broader, key=lambda p: (weights[p], p))
    siblings: dict[str, int] = {}
    for parent in parent_of.values():
        siblings[parent] = siblings.get(parent, 0) + 1
    for cid, parent in parent_of.items():
        weights[cid] = max(ERROR_MATCH_FLOOR, min(weights[cid], weights[parent] / (siblings[parent] + 1)))
    return weights


@dataclass
class Answer:
    question: str
    value: str
    source: str = "you"
    evidence: str = ""
    # for "one of these" answers from several findings: which answer each evidence line gives, so a cause rests on
    # the lines of the answers it names (a softmax before the loss is no evidence of a missing zero_grad)
    lines: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict:
        return {"question": self.question, "answer": self.value, "source": self.source, "evidence": self.evidence}


@dataclass
class TextEvidence:
    cause: str
    weight: float  # likelihood ratio (> 1 favours the cause)
    evidence: str
    source: str = "text"


@dataclass
class RunContext:
    """What is known about the run beyond the answers: the framework that wrote the log (and
    why we think so) and the domains its config rules out ({domain: reason})."""

    framework: Framework | None = None
    because: str = ""
    excluded_domains: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Reason:
    """One line of why a cause is (or is not) in the differential, kept with what it came from: the
    question and answer behind it, or the position of the text evidence in `Diagnosis.text`. A report
    links a reason to the finding or error line it restates through these, never by re-reading `text`."""

    text: str
    source: str
    question: str | None = None
    value: str | None = None
    text_index: int | None = None

    def __str__(self) -> str:
        return f"{self.text} ({self.source})"


@dataclass
class Candidate:
    node: Node
    probability: float
    log_score: float
    support: list[str] = field(default_factory=list)  # the evidence lines for it
    against: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.node.id


class Model:
    """The knowledge base compiled into lookup tables the engine uses on every step."""

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        self.causes: list[Node] = sorted(kb.causes, key=lambda c: c.id)
        self.questions: dict[str, Node] = {q.id: q for q in kb.symptoms}
        self.values: dict[str, list[str]] = {q: kb.answer_values(n) for q, n in self.questions.items()}
        self.defaults: dict[str, str | None] = {
            q: (normalise_answer(n.get("default")) if n.get("default") is not None else None)
            for q, n in self.questions.items()
        }
        self.labels: dict[str, dict[str, str]] = {
            q: {normalise_answer(a.get("value", "")): str(a.get("label", "")) for a in _as_list(n.get("answers")) if isinstance(a, dict)}
            for q, n in self.questions.items()
        }
        # background shares of answers (optional `weight` on answers), used for silent causes
        self.weights: dict[str, dict[str, float]] = {}
        for q, n in self.questions.items():
            w = {
                normalise_answer(a.get("value", "")): float(a["weight"])
                for a in _as_list(n.get("answers"))
                if isinstance(a, dict) and isinstance(a.get("weight"), (int, float)) and a["weight"] > 0
            }
            if w and len(w) == len(self.values[q]):
                self.weights[q] = w
        self.gates: dict[str, dict[str, set[str]]] = {q: kb.gates(n) for q, n in self.questions.items()}
        self.signs: dict[str, dict[str, set[str]]] = {c.id: kb.signs(c) for c in self.causes}
        self.sign_weights: dict[str, dict[str, dict[str, float]]] = {c.id: kb.sign_weights(c) for c in self.causes}
        self.prior: dict[str, float] = {c.id: PRIORS.get(str(c.get("prior")), 1.0) for c in self.causes}
        # the broader causes each cause refines (its `aliases`), for sharing evidence they both match
        self.refines: dict[str, set[str]] = {c.id: {str(a) for a in _as_list(c.get("aliases"))} for c in self.causes}
        # applicability: the answers a cause needs, the stacks/frameworks and domains it happens in
        self.requires: dict[str, dict[str, set[str]]] = {
            c.id: {str(q): {normalise_answer(v) for v in _as_list(vals)} for q, vals in (c.get("requires") or {}).items()}
            for c in self.causes if isinstance(c.get("requires"), dict)
        }
        self.frameworks: dict[str, set[str]] = {c.id: {str(f) for f in _as_list(c.get("frameworks"))}
                                                 for c in self.causes if c.get("frameworks")}
        self.domains: dict[str, set[str]] = {c.id: cause_domains(c) for c in self.causes}
        # explicit favours / rules_out on answers
        self.favours: dict[tuple[str, str], set[str]] = {}
        self.rules_out: dict[tuple[str, str], set[str]] = {}
        self.unlocks: dict[str, set[tuple[str, str]]] = {}  # question -> answers whose `next` lists it
        for q, node in self.questions.items():
            for a in _as_list(node.get("answers")):
                if not isinstance(a, dict):
                    continue
                v = normalise_answer(a.get("value", ""))
                self.favours[(q, v)] = {str(x) for x in _as_list(a.get("favours"))}
                self.rules_out[(q, v)] = {str(x) for x in _as_list(a.get("rules_out"))}
                for target in _as_list(a.get("next")):
                    self.unlocks.setdefault(str(target), set()).add((q, v))
        # which causes care about which question (for speed in the gain computation)
        self.cares: dict[str, set[str]] = {q: set() for q in self.questions}
        for cid, signs in self.signs.items():
            for q in signs:
                if q in self.cares:
                    self.cares[q].add(cid)
        for (q, _), ids in list(self.favours.items()) + list(self.rules_out.items()):
            self.cares.setdefault(q, set()).update(ids)
        self._lik: dict[tuple[str, str], dict[str, float]] = {}
        # The model never changes once built, and one model serves every run of a sweep and every
        # question of a session: the per-(cause, question, answer) figures are kept once computed.
        self._log_ev: dict[tuple[str, str, str], float] = {}
        self._names: dict[tuple[str, str, str], bool] = {}
        self._tables: dict[str, tuple] = {}
        self._namers: dict[tuple[str, str], frozenset[str]] = {}
        self.cause_pos: dict[str, int] = {c.id: i for i, c in enumerate(self.causes)}
        self.strength = answer_strengths(self.questions)

    def likelihood(self, cause_id: str, question: str, value: str) -> float:
        """P(answer = value | cause) for one value (see joint_likelihood for "a|b")."""
        table = self._lik.get((cause_id, question))
        if table is None:
            table = self._table(cause_id, question)
            self._lik[(cause_id, question)] = table
        if "|" in value:
            return self.joint_likelihood(cause_id, question, value)
        return table.get(value, 1e-6)

    def _table(self, cause_id: str, question: str) -> dict[str, float]:
        values = self.values.get(question, [])
        n = len(values)
        if n == 0:
            return {}
        named = set(self.signs.get(cause_id, {}).get(question, set()))
        for v in values:
            if cause_id in self.favours.get((question, v), ()):
                named.add(v)
        named &= set(values)
        if named and len(named) < n:
            # the sign mass is shared by weight (equally for a list); a favoured answer the weights do
            # not name weighs as the most usual one
            weights = self.sign_weights.get(cause_id, {}).get(question) or {}
            top = max(weights.values(), default=1.0)
            share = {v: weights.get(v, top) for v in named}
            total_w = sum(share.values())
            table = {v: (P_SIGN * share[v] / total_w if v in named else (1 - P_SIGN) / (n - len(named))) for v in values}
        elif question in self.weights:
            w = self.weights[question]
            table = {v: w[v] for v in values}
        else:
            default = self.defaults.get(question)
            if default in values and n > 1:
                table = {v: (P_DEFAULT if v == default else (1 - P_DEFAULT) / (n - 1)) for v in values}
            else:
                table = {v: 1.0 / n for v in values}
        for v in values:
            if cause_id in self.rules_out.get((question, v), ()):
                table[v] = P_RULED_OUT
        total = sum(table.values())
        return {v: p / total for v, p in table.items()}

    def joint_likelihood(self, cause_id: str, question: str, value: str) -> float:
        """Several values seen together in a log ("a|b": a grad norm that is both high and
        growing) are independent observations: the product of their likelihoods, so a cause
        that predicts all of what was seen beats one that predicts part of it. The opening
        question is the exception: it asks what a person sees *first*, so several categories
        in one log mean "one of these" (the sum)."""
        parts = value.split("|")
        if question == START:
            return min(1.0, sum(self.likelihood(cause_id, question, v) for v in parts))
        out = 1.0
        for v in parts:
            out *= self.likelihood(cause_id, question, v)
        return out

    def answer_table(self, question: str):
        """(likelihoods, answerable) for the information gain of `question`: an array of
        P(answer | cause) with one row per answer and one column per cause (model order), and
        per cause the chance that a person can answer at all (a cause that names the question
        makes its answer likelier to be known)."""
        out = self._tables.get(question)
        if out is None:
            import numpy as np

            ids = [c.id for c in self.causes]
            table = np.array([[self.likelihood(cid, question, v) for cid in ids] for v in self.values[question]],
                             dtype=float).reshape(len(self.values[question]), len(ids))
            cares = self.cares.get(question, set())
            answerable = np.array([1 - (P_UNKNOWN_NAMED if cid in cares else P_UNKNOWN_SILENT) for cid in ids])
            out = self._tables[question] = (table, answerable)
        return out

    def namers(self, question: str, value: str) -> frozenset[str]:
        """The causes that name this answer (see `names_answer`)."""
        key = (question, value)
        out = self._namers.get(key)
        if out is None:
            out = self._namers[key] = frozenset(c.id for c in self.causes if self.names_answer(c.id, question, value))
        return out

    def names_answer(self, cause_id: str, question: str, value: str) -> bool:
        """Does the cause itself say this answer (or one of "a|b") is what a person would see?"""
        key = (cause_id, question, value)
        out = self._names.get(key)
        if out is None:
            named = self.signs.get(cause_id, {}).get(question, ())
            out = any(v in named or cause_id in self.favours.get((question, v), ()) for v in value.split("|"))
            self._names[key] = out
        return out

    def log_evidence(self, cause_id: str, question: str, value: str) -> float:
        """log P(answer | cause) as the ranking counts it: capped by the broader causes this one
        refines, and scaled down for a vague answer (`strength` below 1 on the answer)."""
        key = (cause_id, question, value)
        out = self._log_ev.get(key)
        if out is None:
            lik = self.refined_likelihood(cause_id, question, value, self.likelihood(cause_id, question, value))
            out = self._log_ev[key] = self.answer_strength(question, value) * math.log(max(lik, 1e-12))
        return out

    def refined_likelihood(self, cause_id: str, question: str, value: str, lik: float) -> float:
        """A cause that refines a broader one (`aliases`) and says nothing about a question cannot
        be likelier on an answer than the broader cause it is a special case of: an answer that
        rules the broader cause out rules out its refinements too (LR "inside the usual range"
        rules out S-lr-too-low, so also O7, which refines it). The domain is the exception: each
        cause has its own `domains`, and a refinement may happen in more of them."""
        if question == DOMAIN_QUESTION or cause_id in self.cares.get(question, ()):
            return lik
        for broader in self.refines.get(cause_id, ()):
            if broader != cause_id and broader in self.cares.get(question, ()):
                lik = min(lik, self.likelihood(broader, question, value))
        return lik

    def domain_share(self, cause_id: str) -> float:
        """When the person does not know the domain, a cause that only happens in some domains is
        weighted by how common those domains are (the Q-domain answers' background `weight`s); a
        cause that happens anywhere keeps 1."""
        domains = self.domains.get(cause_id)
        weights = self.weights.get(DOMAIN_QUESTION)
        if not domains or not weights:
            return 1.0
        return max(1e-3, sum(w for d, w in weights.items() if d in domains) / (sum(weights.values()) or 1.0))

    def answer_strength(self, question: str, value: str) -> float:
        """How much an answer counts (1 unless its `strength` says it is vague); for "a|b" the
        strongest part."""
        return max(self.strength.get((question, v), 1.0) for v in value.split("|"))


def answer_strengths(questions: dict[str, Node]) -> dict[tuple[str, str], float]:
    """{(question, value): strength} for answers marked vague in the knowledge (`strength` < 1):
    "something else", "below what it should reach", "never checked" are true but say little, so
    they must not act as strong evidence for the catch-all causes that list them."""
    out = {}
    for q, node in questions.items():
        for a in _as_list(node.get("answers")):
            if isinstance(a, dict) and isinstance(a.get("strength"), (int, float)) and not isinstance(a.get("strength"), bool):
                out[(q, normalise_answer(a.get("value", "")))] = float(a["strength"])
    return out


class Diagnosis:
    """The state of one diagnosis: answers with their sources, text evidence, the differential."""

    def __init__(self, kb: KnowledgeBase, model: Model | None = None):
        self.kb = kb
        self.model = model or Model(kb)
        self.answers: dict[str, Answer] = {}
        self.order: list[str] = []
        self.text: list[TextEvidence] = []
        self.excluded: set[str] = set()  # causes the user said "not it" to
        self.measured: set[str] = set()  # questions whose answer a failed probe measured (see PROBE_FAIL_MATCH)
        self.context = RunContext()
        self._scores_memo: tuple | None = None

    # -- recording evidence ----------------------------------------------------------------
    def answer(self, question: str, value: str | list[str] | tuple[str, ...] | set[str], source: str = "you",
               evidence: str = "", lines: tuple[tuple[str, str], ...] = ()) -> Answer:
        if question not in self.model.questions:
            raise KeyError(f"unknown question {question!r}")
        if isinstance(value, (list, tuple, set)):
            value = "|".join(normalise_answer(v) for v in value)
        value = normalise_answer(value)
        for part in value.split("|"):
            if part not in (*self.model.values[question], UNKNOWN):
                raise ValueError(f"{question} has no answer {part!r} (answers: {', '.join(self.model.values[question])})")
        ans = Answer(question, value, source, evidence, tuple((t, normalise_answer(v)) for t, v in lines))
        if source != "probe":
            self.measured.discard(question)  # what the person says replaces what a probe measured
        if question in self.answers:
            self.order.remove(question)
        self.answers[question] = ans
        self.order.append(question)
        return ans

    def mark_measured(self, question: str) -> None:
        """The current answer to `question` comes from a probe that failed on it: a measured fault."""
        if question in self.answers:
            self.measured.add(question)

    def undo(self) -> Answer | None:
        """Take back the last answer the person gave (evidence from logs and probes stays)."""
        for qid in reversed(self.order):
            if self.answers[qid].source in ("you", "replay"):
                self.order.remove(qid)
                return self.answers.pop(qid)
        return None

    def add_text(self, cause: str, weight: float, evidence: str, source: str = "text") -> None:
        if cause in self.kb.nodes:
            self.text.append(TextEvidence(cause, weight, evidence, source))

    def exclude(self, cause: str) -> None:
        self.excluded.add(cause)

    # -- the differential ------------------------------------------------------------------
    def _state(self) -> tuple:
        """Everything the differential depends on, as a key: a report asks for the ranking more than
        once (the causes, then the questions worth asking) and nothing changes in between."""
        ctx = self.context
        return (tuple((q, a.value) for q, a in self.answers.items()), tuple((t.cause, t.weight) for t in self.text),
                frozenset(self.excluded), frozenset(self.measured), ctx.framework.id if ctx.framework else None,
                tuple(sorted(ctx.excluded_domains)))

    def _log_scores(self, causes: list[Node] | None = None, applicable_only: bool = True) -> dict[str, float]:
        if causes is None and applicable_only:
            key = self._state()
            if self._scores_memo is None or self._scores_memo[0] != key:
                self._scores_memo = (key, self._compute_log_scores())
            return dict(self._scores_memo[1])
        return self._compute_log_scores(causes, applicable_only)

    def _compute_log_scores(self, causes: list[Node] | None = None, applicable_only: bool = True) -> dict[str, float]:
        m = self.model
        scores: dict[str, float] = {}
        known = [(q, a.value) for q, a in self.answers.items() if a.value != UNKNOWN]
        domain_unknown = self.answers.get(DOMAIN_QUESTION) is None or self.answers[DOMAIN_QUESTION].value == UNKNOWN
        text: dict[str, float] = {}
        for t in self.text:
            text[t.cause] = text.get(t.cause, 0.0) + math.log(max(t.weight, 1e-9))
        for c in causes or m.causes:
            if c.id in self.excluded or (applicable_only and self.inapplicable(c.id)):
                continue
            s = math.log(m.prior[c.id])
            for q, v in known:
                s += m.log_evidence(c.id, q, v)  # "a|b" goes through joint_likelihood
            if domain_unknown:
                s += math.log(m.domain_share(c.id))
            s += text.get(c.id, 0.0)
            for q in self.measured:
                a = self.answers.get(q)
                if a is not None and m.names_answer(c.id, q, a.value):
                    s += math.log(PROBE_FAIL_MATCH)
            scores[c.id] = s
        return self._prefer_refinements(scores)

    def _named_counts(self, weights: dict[str, float]) -> dict[str, int]:
        """For causes tied on probability: how many diagnostic answers each names (a tie goes to
        the cause that explains more of what was observed, then to the ID)."""
        rounded = {cid: round(w, 9) for cid, w in weights.items()}
        top = sorted(rounded.values(), reverse=True)
        tied = {w for i, w in enumerate(top) if i and w == top[i - 1]}
        if not tied:
            return {}
        counts: dict[str, int] = {}
        for q, a in self.answers.items():
            if a.value != UNKNOWN and q not in (START, DOMAIN_QUESTION):
                for cid in self.model.namers(q, a.value):
                    counts[cid] = counts.get(cid, 0) + 1
        return {cid: counts.get(cid, 0) for cid, w in rounded.items() if w in tied}

    def _prefer_refinements(self, scores: dict[str, float]) -> dict[str, float]:
        """A broader cause never ranks above a refinement of it (`aliases`) that the evidence singles
        out: an answer to a diagnostic question the refinement names and the broader cause says
        nothing about ("Loss plateaus" must not stay above "pure-bf16 weights round away updates"
        once the person said the weights are bf16). The broader cause is placed just below it."""
        m = self.model
        known = [(q, a.value) for q, a in self.answers.items()
                 if a.value != UNKNOWN and q not in (START, DOMAIN_QUESTION)]
        if not known:
            return scores
        for cid, broader in m.refines.items():
            if cid not in scores:
                continue
            for b in broader:
                if b == cid or b not in scores or scores[b] <= scores[cid]:
                    continue
                if any(m.names_answer(cid, q, v) and b not in m.cares.get(q, ()) for q, v in known):
                    scores[b] = scores[cid] - 1e-6
        return scores

    def ranking(self, limit: int | None = None, with_evidence_only: bool = False, explain: bool = True) -> list[Candidate]:
        return list(itertools.islice(self.ranked(with_evidence_only, explain), limit or None))

    def ranked(self, with_evidence_only: bool = False, explain: bool = True) -> Iterator[Candidate]:
        """The differential best first, one candidate at a time: a caller that needs the first few
        causes with evidence stops early instead of explaining all two hundred."""
        scores = self._log_scores()
        if not scores:
            return
        top = max(scores.values())
        weights = {cid: math.exp(s - top) for cid, s in scores.items()}
        total = sum(weights.values())
        named = self._named_counts(weights)
        # A refinement (`aliases`) tied with the broader cause it refines: nothing singled it out (an answer only
        # it names would have moved its score), and every run it explains the broader cause explains too, so the
        # broader cause goes first, as a prior shared out over its refinements would place it.
        rounded = {cid: round(w, 9) for cid, w in weights.items()}
        refines = self.model.refines
        under = {cid: any(b != cid and rounded.get(b) == r for b in refines.get(cid, ())) for cid, r in rounded.items()}
        prior = self.model.prior  # a tie that the evidence leaves goes to the cause met more often, then the ID
        for cid, w in sorted(weights.items(), key=lambda kv: (-rounded[kv[0]], -named.get(kv[0], 0), under[kv[0]],
                                                              -prior[kv[0]], kv[0])):
            support, against = self.explain(cid) if (explain or with_evidence_only) else ([], [])
            if with_evidence_only and not support:
                continue
            yield Candidate(self.kb[cid], w / total, scores[cid], support, against)

    def explain(self, cause_id: str) -> tuple[list[str], list[str]]:
        """Why a cause is (or is not) in the differential, as evidence lines."""
        support, against = self.reasons(cause_id)
        return [str(r) for r in support], [str(r) for r in against]

    def reasons(self, cause_id: str) -> tuple[list[Reason], list[Reason]]:
        """`explain` as records: each line with the answer or text evidence it comes from."""
        m = self.model
        support: list[Reason] = []
        against: list[Reason] = []
        for q in self.order:
            a = self.answers[q]
            if a.value == UNKNOWN:
                continue
            lik = m.likelihood(cause_id, q, a.value)
            line = a.evidence or f"{m.questions[q].title} → {' or '.join(m.labels[q].get(v, v) for v in a.value.split('|'))}"
            if m.names_answer(cause_id, q, a.value):
                # the category and the domain narrow the field but are not evidence by themselves, and neither is
                # the healthy answer a framework gives when its config is silent (the Trainer's own loop steps in order)
                if q not in (START, DOMAIN_QUESTION) and not (a.source == "default" and a.value == m.defaults.get(q)):
                    given = dict(a.lines)  # (each line's own answer, when several findings gave "one of these")
                    support.extend(Reason(part, a.source, q, a.value) for part in line.split("\n")
                                   if part not in given or m.names_answer(cause_id, q, given[part]))
            elif lik < 0.2 and q in m.signs.get(cause_id, {}):
                against.append(Reason(line, a.source, q, a.value))
        for i, t in enumerate(self.text):
            if t.cause == cause_id:
                (support if t.weight > 1 else against).append(Reason(t.evidence, t.source, text_index=i))
        return support, against

    # -- applicability ---------------------------------------------------------------------
    def inapplicable(self, cause_id: str) -> str | None:
        """Why the cause cannot apply to this run, or None when it can. Unknowns keep it: an
        unanswered question, an unrecognised framework or an unknown domain rule nothing out."""
        m = self.model
        for q, needed in m.requires.get(cause_id, {}).items():
            a = self.answers.get(q)
            if a is None or a.value == UNKNOWN or set(a.value.split("|")) & needed:
                continue
            want = " or ".join(m.labels.get(q, {}).get(v, v) for v in sorted(needed))
            said = a.evidence or self._label(q, a.value)
            return f"needs “{want}”, but {said}" + ("" if a.source in ("config", "default") else f" ({a.source})")
        ctx = self.context
        tags = m.frameworks.get(cause_id)
        if tags and ctx.framework is not None and not ({ctx.framework.id, ctx.framework.stack} & tags):
            return (f"happens only with {', '.join(sorted(tags))}; this log was written by {ctx.framework.title} "
                    f"({ctx.because})")
        domains = m.domains.get(cause_id)
        if not domains:
            return None
        a = self.answers.get(DOMAIN_QUESTION)
        if a is not None and a.value != UNKNOWN:
            if not domains & set(a.value.split("|")):
                return f"a {'/'.join(sorted(domains))} cause; this run is {a.value} ({a.evidence or a.source})"
            return None
        if ctx.excluded_domains and domains <= set(ctx.excluded_domains):
            return f"a {'/'.join(sorted(domains))} cause; {ctx.excluded_domains[sorted(domains)[0]]}"
        return None

    def set_aside(self) -> list[tuple[Candidate, str]]:
        """The causes that have evidence for them but cannot apply to this run, with the reason:
        what a report shows so that a dropped cause is never dropped silently."""
        reasons = {c.id: r for c in self.model.causes if c.id not in self.excluded
                   and (r := self.inapplicable(c.id)) is not None}
        if not reasons:
            return []
        scores = self._log_scores([self.kb[cid] for cid in reasons], applicable_only=False)
        out = []
        for cid in sorted(reasons, key=lambda c: (-scores[c], c)):  # strongest first
            support, against = self.explain(cid)
            if support:
                out.append((Candidate(self.kb[cid], 0.0, scores[cid], support, against), reasons[cid]))
        return out

    def _label(self, question: str, value: str) -> str:
        labels = self.model.labels.get(question, {})
        return f"{self.model.questions[question].title} → {' or '.join(labels.get(v, v) for v in value.split('|'))}"

    # -- choosing the next question -------------------------------------------------------
    def eligible(self) -> list[str]:
        """Questions that may be asked now: their `when` gate holds (a "don't know" on the
        gating question keeps it open), or an answer given so far lists them in `next`."""
        out = []
        for q, gates in self.model.gates.items():
            if q in self.answers:
                continue
            if any(self._given(pq, pv) for pq, pv in self.model.unlocks.get(q, ())):
                out.append(q)
                continue
            if not gates:
                if q == START:
                    out.append(q)
                continue
            ok = True
            for parent, allowed in gates.items():
                a = self.answers.get(parent)
                if a is None:
                    ok = False
                    break
                if a.value == UNKNOWN or ANY in allowed or any(v in allowed for v in a.value.split("|")):
                    continue
                ok = False
                break
            if ok:
                out.append(q)
        return out

    def next_question(self, candidates: int = 60) -> str | None:
        """The eligible question that best separates the current differential."""
        eligible = self.eligible()
        if not eligible:
            return None
        if START in eligible:
            return START
        pool = self.ranking(limit=candidates, explain=False)
        mass = sum(c.probability for c in pool) or 1.0
        probs = {c.id: c.probability / mass for c in pool}
        best, best_gain = None, MIN_GAIN
        h0 = _entropy(probs.values())
        arrays = self._pool(probs)
        for q in eligible:
            cares = self.model.cares.get(q, set())
            if q != DOMAIN_QUESTION and not (cares & probs.keys()):
                continue
            gain = h0 - self._expected_entropy(q, probs, arrays)
            if gain > best_gain + 1e-12 or (best is not None and abs(gain - best_gain) < 1e-12 and q < best):
                best, best_gain = q, gain
        return best

    def _given(self, question: str, value: str) -> bool:
        a = self.answers.get(question)
        return a is not None and (a.value == UNKNOWN or value in a.value.split("|"))

    def _pool(self, probs: dict[str, float]) -> tuple:
        """The differential as arrays for `_expected_entropy`: model positions, probabilities, entropy."""
        import numpy as np

        pos = self.model.cause_pos
        return (np.fromiter((pos[cid] for cid in probs), dtype=np.intp, count=len(probs)),
                np.fromiter(probs.values(), dtype=float, count=len(probs)), _entropy(probs.values()))

    def _expected_entropy(self, q: str, probs: dict[str, float], pool: tuple | None = None) -> float:
        """Expected entropy of the differential after asking q, counting the chance that the
        person cannot answer (which leaves the differential as it is). One array operation per
        question: the likelihood of every answer under every cause is a table the model keeps."""
        import numpy as np

        idx, p, h0 = pool if pool is not None else self._pool(probs)
        table, answerable = self.model.answer_table(q)
        known = p * answerable[idx]
        exp = (1.0 - float(known.sum())) * h0
        joint = table[:, idx] * known  # P(answer v, cause c), one row per answer
        pa = joint.sum(axis=1)
        rows = pa > 0
        if rows.any():
            x = joint[rows] / pa[rows, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                h = -np.where(x > 0, x * np.log2(np.where(x > 0, x, 1.0)), 0.0).sum(axis=1)
            exp += float((pa[rows] * h).sum())
        return exp

    def unanswered(self, limit: int = 5) -> list[str]:
        """Questions still worth answering, best first (used by `scan` to say what to check):
        the eligible questions ranked by information gain over the current differential."""
        eligible = [q for q in self.eligible() if q != START]
        if not eligible:
            return []
        pool = self.ranking(limit=60, explain=False)
        mass = sum(c.probability for c in pool) or 1.0
        probs = {c.id: c.probability / mass for c in pool}
        h0 = _entropy(probs.values())
        arrays = self._pool(probs)
        gains = []
        for q in eligible:
            if q != DOMAIN_QUESTION and not (self.model.cares.get(q, set()) & probs.keys()):
                continue
            gain = h0 - self._expected_entropy(q, probs, arrays)
            if gain > MIN_GAIN:
                gains.append((-round(gain, 9), q))  # equal gains (to rounding noise) go by ID
        return [q for _, q in sorted(gains)[:limit]]

    # -- serialisation ---------------------------------------------------------------------
    def to_dict(self) -> dict:
        out = {
            "answers": [self.answers[q].to_dict() for q in self.order],
            "text": [t.__dict__ for t in self.text],
            "excluded": sorted(self.excluded),
        }
        if self.measured:
            out["measured"] = sorted(self.measured)
        ctx = self.context
        if ctx.framework is not None or ctx.excluded_domains:
            out["context"] = {"framework": ctx.framework.id if ctx.framework else None, "because": ctx.because,
                              "excluded_domains": dict(ctx.excluded_domains)}
        return out

    def load_dict(self, data: dict) -> None:
        ctx = data.get("context")
        if isinstance(ctx, dict):
            from triage.engine.frameworks import framework_table

            self.context = RunContext(framework_table(self.kb).get(ctx.get("framework")), str(ctx.get("because") or ""),
                                      {str(k): str(v) for k, v in (ctx.get("excluded_domains") or {}).items()})
        for a in data.get("answers", []):
            self.answer(a["question"], a["answer"], a.get("source", "you"), a.get("evidence", ""))
        for t in data.get("text", []):
            self.add_text(t["cause"], float(t["weight"]), t.get("evidence", ""), t.get("source", "text"))
        for cid in data.get("excluded", []):
            self.exclude(cid)
        for q in data.get("measured", []):
            self.mark_measured(q)


def _entropy(ps) -> float:
    h = 0.0
    for p in ps:
        if p > 0:
            h -= p * math.log2(p)
    return h
