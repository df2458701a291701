"""Which question `triage ask` asks next, how an answer is recorded, and when to stop.

The engine (`Diagnosis`) ranks causes; this module decides the order of the conversation for real
reporters, who know their setup but often not the answer to a diagnostic question:

* Context first. What the person sees (Q-start), then what is trained (Q-domain), how (Q-finetune:
  from scratch, full fine-tune, adapters, frozen backbone) and with what (Q-framework), each only when
  a log, a config or a flag has not settled it and only while it still separates the candidates.
  The framework is run context: a Keras or TensorFlow loop sets aside the PyTorch-only causes, and a
  named framework's documented defaults count as evidence (the HF Trainer clips at 1.0).
* Gates never hide a decisive question. A question gated on what the person saw first (Q-start) that
  any run can answer (it has a healthy `default`) is still asked when a leading candidate with
  specific evidence names an answer on it; a question without a default presupposes its branch
  ("which error text do you see?") and stays behind its gate, as do gates on the domain or a
  follow-up. "Don't know" on a gating question closes its branch (no
  "which error text?" to someone who did not say there was an error), and so does "not applicable".
* Expected information gain over the causes that fit the run (the domain, mode and framework answers
  have already set the others aside).
* Stop when the leader holds >= STOP_PROBABILITY, is >= STOP_RATIO times the runner-up, and rests on
  specific evidence: an answer to a diagnostic question that it names (not only the opening answer,
  the context, or a vague answer), an error line that matches it, or a finding in a log.
* Free text at any prompt: an error line is matched like `triage scan` matches logs (the cause's
  `errors` patterns), anything else like `scan --describe`.
"""

from __future__ import annotations

import math

from triage.engine.diagnosis import ERROR_MATCH, MIN_GAIN, UNKNOWN, Answer, Diagnosis, _entropy
from triage.kb.base import ANY
from triage.kb.schema import DOMAIN_QUESTION, START

MODE_QUESTION = "Q-finetune"
FRAMEWORK_QUESTION = "Q-framework"
CONTEXT = (START, DOMAIN_QUESTION, MODE_QUESTION, FRAMEWORK_QUESTION)
NOT_APPLICABLE = "n/a"  # the reply meaning "this question does not apply to my run"

STOP_PROBABILITY = 0.6  # the top cause holds at least this share of the differential ...
STOP_RATIO = 3.0  # ... and is at least this many times as likely as the runner-up
SPECIFIC_STRENGTH = 0.5  # an answer at least this strong (see `strength` on answers) counts as specific
DECISIVE_TOP = 5  # a gated question opens for one of this many leading candidates ...
DECISIVE_MIN = 0.05  # ... holding at least this share, with evidence for it beyond the context
POOL = 60  # candidates the information gain is computed over
# The training mode and the framework go first when their answer is worth at least this (bits) over
# the current candidates (ten times the least gain any question must bring); below it they wait
# and compete with the other questions, and are asked when they come to matter.
CONTEXT_MIN_GAIN = 10 * MIN_GAIN
DESCRIPTION_STRENGTH = 0.5  # a typed description counts less than in `scan --describe` (it answers a prompt)

# Answers of Q-framework that are not framework ids in knowledge/frameworks.yaml but still say which
# stack runs the loop: the PyTorch-only causes (`frameworks: [pytorch]`) cannot happen there.
OTHER_STACKS = {"tensorflow": "TensorFlow", "jax": "JAX"}


class Planner:
    """The conversation policy over one `Diagnosis` (see the module docstring)."""

    def __init__(self, diag: Diagnosis):
        self.diag = diag
        self.model = diag.model
        self._index = None
        if FRAMEWORK_QUESTION in diag.answers:
            self.sync_framework()

    # -- recording ----------------------------------------------------------------------------
    def record(self, question: str, value: str, source: str = "you", evidence: str = "") -> Answer:
        """Record an answer. "Not applicable" counts as the question's healthy default when it has
        one (the premise the question probes is absent) and as "don't know" otherwise; either way
        the branch behind it closes."""
        if value == NOT_APPLICABLE:
            default = self.model.defaults.get(question)
            value = str(default) if default in self.model.values.get(question, ()) else UNKNOWN
            evidence = evidence or "not applicable to this run"
        ans = self.diag.answer(question, value, source, evidence)
        if question == FRAMEWORK_QUESTION:
            self.sync_framework()
        return ans

    def sync_framework(self) -> None:
        """Make the named framework the run's context (unless a log already named one) and let its
        documented defaults answer the questions they settle."""
        a = self.diag.answers.get(FRAMEWORK_QUESTION)
        ctx = self.diag.context
        if a is None or a.value == UNKNOWN or ctx.framework is not None:
            return
        from triage.engine.frameworks import Framework, framework_table

        table = framework_table(self.diag.kb)
        fw = table.get(a.value.replace("-", "_"))
        if fw is None and a.value in OTHER_STACKS:
            fw = Framework(id=a.value, title=OTHER_STACKS[a.value], stack=a.value)
        if fw is None:
            return
        ctx.framework, ctx.because = fw, f"{a.source}: {self.model.labels[FRAMEWORK_QUESTION].get(a.value, a.value)}"
        for setting in fw.settings.values():
            for q, answer in setting.answers.items():
                if q in self.model.questions and q not in self.diag.answers and answer in self.model.values[q]:
                    self.diag.answer(q, answer, "default", f"{fw.title} default: {setting.says}")

    def add_text(self, text: str, source: str = "you") -> list[tuple[str, str]]:
        """Free text typed at a prompt: error lines are matched against the causes' `errors`
        patterns (strong evidence, as in `triage scan`); other text is searched like `scan
        --describe` (weaker). Returns [(cause, why)] for display."""
        from triage.engine.evidence import Applied, apply_text

        text = text.strip()
        if not text:
            return []
        applied = Applied()
        if apply_text(self.diag, self.index(), [(None, text)], applied, source=source):
            return [(e["cause"], f"error text matches {e['pattern']!r}") for e in applied.errors]
        return self._describe(text, source)

    def _describe(self, text: str, source: str, limit: int = 5) -> list[tuple[str, str]]:
        """Words, not an error line: the causes a search finds, weighted like `scan --describe`
        but tempered (DESCRIPTION_STRENGTH), since a line typed at a prompt is usually short."""
        hits = [h for h in self.index().search(text, limit=limit * 3) if h.node.kind == "cause"][:limit]
        out = []
        for h in hits:
            weight = (1.0 + 8.0 * (h.score / hits[0].score) ** 2) ** DESCRIPTION_STRENGTH
            self.diag.add_text(h.node.id, weight, f"your words match: {', '.join(h.terms[:6])}", source)
            out.append((h.node.id, "your description"))
        return out

    def index(self):
        if self._index is None:
            from triage.kb.search import SearchIndex

            self._index = SearchIndex(self.diag.kb)
        return self._index

    # -- which questions may be asked ---------------------------------------------------------
    def _given(self, question: str) -> set[str]:
        a = self.diag.answers.get(question)
        if a is None or a.value == UNKNOWN:
            return set()
        return set(a.value.split("|"))

    def eligible(self, ranked=None) -> list[str]:
        out = []
        decisive = None
        for q, gates in self.model.gates.items():
            if q in self.diag.answers:
                continue
            if any(v in self._given(pq) for pq, v in self.model.unlocks.get(q, ())):
                out.append(q)
                continue
            if not gates:
                if q == START:
                    out.append(q)
                continue
            hard_ok, start_allowed, soft = True, None, False
            for parent, allowed in gates.items():
                if parent == START:
                    start_allowed = allowed
                    continue
                given = self._given(parent)
                if parent == DOMAIN_QUESTION and parent in self.diag.answers and not given:
                    soft = True  # the domain is not known: only a decisive question gets through
                    continue
                if not given or not (ANY in allowed or given & allowed):
                    hard_ok = False
                    break
            if not hard_ok:
                continue
            if start_allowed is not None:
                if START not in self.diag.answers:
                    continue
                given = self._given(START)
                if not (given and (ANY in start_allowed or given & start_allowed)):
                    soft = True
            if not soft:
                out.append(q)
                continue
            if self.model.defaults.get(q) is None:
                continue  # no healthy answer: the question presupposes its branch ("which error text?")
            if decisive is None:
                decisive = self.decisive_questions(ranked)
            if q in decisive:
                out.append(q)
        return out

    def decisive_questions(self, ranked=None) -> set[str]:
        """Questions that a leading candidate with specific evidence names an answer on: these open
        whatever the opening answer was (gates must never hide the question that decides)."""
        if ranked is None:
            ranked = self.diag.ranking(limit=DECISIVE_TOP, explain=False)
        out: set[str] = set()
        for c in ranked[:DECISIVE_TOP]:
            if c.probability < DECISIVE_MIN or not self.specific(c.id, min_strength=0.0):
                continue
            out.update(self.model.signs.get(c.id, {}))
            out.update(q for (q, _v), ids in self.model.favours.items() if c.id in ids)
        return out

    # -- the next question ----------------------------------------------------------------------
    def next_question(self) -> str | None:
        """The next question to ask, or None when asking more would not help (see `done`)."""
        if START not in self.diag.answers and START in self.model.questions:
            return START  # what the person sees always comes first (nothing to rank yet)
        ranked = self.diag.ranking(limit=POOL, explain=False)
        eligible = self.eligible(ranked)
        if not eligible:
            return None
        if START in eligible:
            return START
        if not ranked:
            return None
        probs = self._probs(ranked)
        for q in CONTEXT[1:]:
            if q in eligible and self.gain(q, probs) > (MIN_GAIN if q == DOMAIN_QUESTION else CONTEXT_MIN_GAIN):
                return q
        if self.done(ranked, eligible):
            return None
        best, best_gain = None, MIN_GAIN
        for q in eligible:
            gain = self.gain(q, probs)
            if gain > best_gain + 1e-12 or (best is not None and abs(gain - best_gain) < 1e-12 and q < best):
                best, best_gain = q, gain
        return best

    @staticmethod
    def _probs(ranked) -> dict[str, float]:
        mass = sum(c.probability for c in ranked) or 1.0
        return {c.id: c.probability / mass for c in ranked}

    def gain(self, question: str, probs: dict[str, float]) -> float:
        """Expected information gain (bits) of asking `question` over the candidates in `probs`."""
        if question == FRAMEWORK_QUESTION:
            return self._framework_gain(probs)
        cares = self.model.cares.get(question, set())
        if question != DOMAIN_QUESTION and not (cares & probs.keys()):
            return 0.0
        return _entropy(probs.values()) - self.diag._expected_entropy(question, probs)

    def _framework_gain(self, probs: dict[str, float]) -> float:
        """The framework answer works through the run context (causes that cannot happen in that
        framework are set aside) as well as through `rules_out`: the gain is computed by trying
        each answer, weighted by how common it is."""
        from triage.engine.frameworks import framework_table

        values = self.model.values.get(FRAMEWORK_QUESTION, [])
        weights = self.model.weights.get(FRAMEWORK_QUESTION) or {v: 1.0 for v in values}
        table = framework_table(self.diag.kb)
        tags = self.model.frameworks
        h0 = _entropy(probs.values())
        expected = 0.0
        total = sum(weights.values()) or 1.0
        for v in values:
            fw = table.get(v.replace("-", "_"))
            stack = fw.stack if fw is not None else (v if v in OTHER_STACKS else None)
            fid = fw.id if fw is not None else v
            post = {}
            for cid, p in probs.items():
                t = tags.get(cid)
                if t and stack is not None and not ({fid, stack} & t):
                    continue
                post[cid] = p * self.model.likelihood(cid, FRAMEWORK_QUESTION, v)
            mass = sum(post.values())
            h = _entropy(x / mass for x in post.values()) if mass > 0 else h0
            expected += weights.get(v, 0.0) / total * h
        return max(0.0, h0 - expected)

    # -- when to stop ----------------------------------------------------------------------------
    def specific(self, cause_id: str, min_strength: float = SPECIFIC_STRENGTH) -> bool:
        """Does the cause rest on specific evidence: a diagnostic answer it names (at least
        `min_strength`: vague answers do not count for stopping), an error line or a log finding
        that points at it?"""
        m = self.model
        for q, a in self.diag.answers.items():
            if q in CONTEXT or a.value == UNKNOWN or a.source == "default":
                continue
            if m.names_answer(cause_id, q, a.value) and m.answer_strength(q, a.value) >= min_strength:
                return True
        return any(t.cause == cause_id and t.weight >= math.sqrt(ERROR_MATCH) for t in self.diag.text)

    def done(self, ranked=None, eligible=None) -> bool:
        """The stopping rule: a clear margin that one more answer could not overturn, and specific
        evidence for the leader."""
        ranked = ranked if ranked is not None else self.diag.ranking(limit=2, explain=False)
        if not clearly_ahead(ranked) or not self.specific(ranked[0].id):
            return False
        if len(ranked) < 2:
            return True
        return not self.could_flip(ranked[0], ranked[1], eligible if eligible is not None else self.eligible(ranked))

    def could_flip(self, top, second, eligible) -> bool:
        """Is there a question still open whose answer could put the runner-up ahead of the leader?
        (Look-alike causes that differ on one question must not be decided by their priors.)"""
        m = self.model
        odds = top.probability / max(second.probability, 1e-12)
        for q in eligible:
            if q in CONTEXT or second.id not in m.cares.get(q, ()):
                continue
            for v in m.values.get(q, ()):
                ratio = m.likelihood(second.id, q, v) / max(m.likelihood(top.id, q, v), 1e-12)
                if ratio ** m.answer_strength(q, v) > odds:
                    return True
        return False


def clearly_ahead(ranked) -> bool:
    """The margin half of the stopping rule: the top cause holds >= 60% and is >= 3x the runner-up."""
    if not ranked:
        return False
    top = ranked[0].probability
    second = ranked[1].probability if len(ranked) > 1 else 0.0
    return top >= STOP_PROBABILITY and top >= STOP_RATIO * second


__all__ = ["Planner", "clearly_ahead", "CONTEXT", "NOT_APPLICABLE", "STOP_PROBABILITY", "STOP_RATIO"]
