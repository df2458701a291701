"""`triage ask`: the guided differential diagnosis, one question at a time.

The loop lives in `Session`; it talks to the person only through two small ports: a `Prompter`
(how it asks) and a `Display` (what it shows, as typed events). So the same session runs
  - interactively (`triage.render.session.QuestionaryPrompter`: questionary + prompt_toolkit),
  - from an answers file (`AnswersPrompter`: `triage ask --answers FILE`, never prompts),
  - from a script in tests (`ScriptedPrompter`),
and shows itself through `triage.render.session.RichDisplay` in a terminal, or through nothing
(`QuietDisplay`) or a list of events in tests. The engine prints nothing and imports no renderer;
the transcript files are written by the `writer` the caller passes (the .md/.html ones are rendered
by triage.render.transcript).

Flow: evidence from `--log` (detectors, what the log shows as healthy, its framework and domain) and
`--evidence` (probe results) is recorded first and shown as evidence lines, never asked; `--domain`
answers Q-domain. Then `triage.engine.planner.Planner` picks the questions: the context first (what
you see, the domain, the training mode, the framework), then the one with the largest expected
information gain over the causes that fit the run, until no question helps or the top cause is
clearly ahead (>= STOP_PROBABILITY and >= STOP_RATIO x the runner-up) on specific evidence. Every
prompt also takes "not applicable" and free text (an error line or a description).
The end shows the top causes (the `End` event; the terminal draws them as cards with the probe
commands); "not it" rules the top cause out and goes on with the rest.

After every answer the transcript is saved atomically (`--save FILE`, plus the .json beside a
.md/.html for `--resume`); Ctrl-C saves and prints the `triage ask --resume FILE` command.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Callable

from triage.engine.diagnosis import UNKNOWN, Answer, Candidate, Diagnosis, Model
from triage.engine.planner import NOT_APPLICABLE, Planner
from triage.engine.planner import clearly_ahead as _clearly_ahead
from triage.engine.ports import (  # noqa: F401  (the ports' names are part of this module's API)
    BACK, CANDIDATES, DONE, FINISH, NOT_APPLICABLE_CHOICE, NOT_IT, QUIT, TEXT, Answered, Asking, Differential, Display,
    End, Intro, Option, Prompter, QuietDisplay, Quit, RuledOut, SaveFailed, Saved, TextMatched, TookBack, text_reply,
    typed_text,
)
from triage.engine.report import answer_label, question_text
from triage.errors import TriageError
from triage.kb.base import KnowledgeBase
from triage.kb.schema import DOMAIN_QUESTION, normalise_answer

# -- when to stop asking (documented in the module docstring and `triage ask --help`) -------------
from triage.engine.planner import STOP_PROBABILITY, STOP_RATIO  # noqa: E402,I001  (re-exported)

MAX_CARDS = 3  # cards shown at the end: the top cause, plus runners-up above CARD_MIN_PROBABILITY
CARD_MIN_PROBABILITY = 0.1
ALSO_POSSIBLE = 5  # the end lists this many candidates in all (cards + one-liners)

DONT_KNOW_WORDS = {"unknown", "don't know", "dont know", "dont-know", "don-t-know", "?", "idk", "not sure"}
NOT_APPLICABLE_WORDS = {"n/a", "na", "not applicable", "not-applicable", "does not apply", "doesn't apply"}

# --domain synonyms -> Q-domain answers (answers themselves are accepted as they are)
DOMAIN_SYNONYMS = {
    "grpo": "rlhf", "ppo-llm": "rlhf", "rloo": "rlhf", "reinforce": "rlhf", "rl-llm": "rlhf", "rlvr": "rlhf",
    "dpo": "dpo", "ipo": "dpo", "orpo": "dpo", "kto": "dpo", "simpo": "dpo", "preference": "dpo",
    "sft": "llm", "lm": "llm", "language-model": "llm", "pretraining": "llm", "pretrain": "llm", "nlp": "llm",
    "gpt": "llm", "transformer": "llm",
    "classification": "vision-cls", "image-classification": "vision-cls", "cls": "vision-cls",
    "vision": "vision-cls", "cnn": "vision-cls", "imagenet": "vision-cls", "cifar": "vision-cls",
    "det": "detection", "object-detection": "detection", "yolo": "detection", "detr": "detection",
    "seg": "segmentation", "semantic-segmentation": "segmentation", "instance-segmentation": "segmentation",
    "unet": "segmentation", "mask-rcnn": "segmentation",
    "sd": "diffusion", "stable-diffusion": "diffusion", "image-generation": "diffusion", "ddpm": "diffusion",
    "flow-matching": "diffusion", "generative": "diffusion",
    "sb3": "rl", "dqn": "rl", "sac": "rl", "ppo": "rl", "gym": "rl", "gymnasium": "rl", "reinforcement-learning": "rl",
    "llava": "vlm", "vision-language": "vlm", "multimodal": "vlm",
    "kd": "distillation", "distill": "distillation", "knowledge-distillation": "distillation",
    "gans": "gan", "dcgan": "gan", "stylegan": "gan", "wgan": "gan", "adversarial": "gan",
    "audio": "other", "speech": "other", "asr": "other", "tabular": "other", "tts": "other",
}


class AskError(TriageError):
    """A user-facing problem with the session's inputs: one line, exit code 2."""


class SessionInterrupted(Exception):
    """Ctrl-C (or the end of input): the session was saved to `path` (None if it could not be)."""

    def __init__(self, path: str | None):
        super().__init__(path or "")
        self.path = path


# -- prompters (the Prompter port and its engine-side implementations) ----------------------------
class Replay:
    """An answers file: question ID -> answer, and the causes the person said "not it" to."""

    def __init__(self, answers: dict[str, str] | None = None, not_it: list[str] | None = None,
                 expect: dict | None = None, path: str = "", text: list[str] | None = None):
        self.answers = dict(answers or {})
        self.not_it = list(not_it or [])
        self.expect = dict(expect or {})  # free-form, for test replays (ignored by the CLI)
        self.path = path
        self.text = list(text or [])  # error lines or descriptions, matched like free text at a prompt


class AnswersPrompter:
    """Answers from a `Replay`; a question the file does not answer gets "don't know". The session
    records every answer of the file before the first question (`preload`): what the file says is
    known, whether or not the engine would have reached the question."""

    interactive = False

    def __init__(self, replay: Replay):
        self.replay = replay
        self.used: set[str] = set()
        self.not_it_left = list(replay.not_it)

    def ask(self, question: str, message: str, options: list[Option]) -> str:
        if question in self.replay.answers:
            self.used.add(question)
            return self.replay.answers[question]
        return UNKNOWN

    def finish(self, top: list[Candidate], options: list[Option]) -> str:
        if top and top[0].id in self.not_it_left:
            self.not_it_left.remove(top[0].id)
            return NOT_IT
        return DONE

    def unused(self) -> list[str]:
        return [q for q in self.replay.answers if q not in self.used]

    def preload(self) -> dict[str, str]:
        """The answers to record up front (all of them; they then count as used)."""
        self.used.update(self.replay.answers)
        return dict(self.replay.answers)

    def preload_not_it(self) -> list[str]:
        """The causes the file rules out ("not it"), applied up front like its answers."""
        out, self.not_it_left = list(self.not_it_left), []
        return out


class ScriptedPrompter:
    """Replies from a list, in order (tests). Running out raises EOFError, like closed input."""

    interactive = False

    def __init__(self, replies: list[str]):
        self.replies = list(replies)
        self.asked: list[str] = []

    def _next(self) -> str:
        if not self.replies:
            raise EOFError("no more scripted replies")
        return self.replies.pop(0)

    def ask(self, question: str, message: str, options: list[Option]) -> str:
        self.asked.append(question)
        return self._next()

    def finish(self, top: list[Candidate], options: list[Option]) -> str:
        self.asked.append(":finish")
        return self._next()


# -- inputs: domain, answers file, probe results, logs -------------------------------------------
def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", str(text).strip().lower()).strip("-")


def resolve_domain(model: Model, text: str) -> str:
    values = model.values.get(DOMAIN_QUESTION, [])
    slug = _slug(text)
    if slug in values:
        return slug
    mapped = DOMAIN_SYNONYMS.get(slug)
    if mapped in values:
        return mapped
    import difflib

    hint = difflib.get_close_matches(slug, values + list(DOMAIN_SYNONYMS), n=1, cutoff=0.6)
    did = f"; did you mean {hint[0]}?" if hint else ""
    raise AskError(f"unknown domain {text!r}{did} (domains: {', '.join(values)}; also e.g. grpo, sft, classification, yolo)")


def _answer_value(model: Model, qid: str, raw: object, where: str) -> str:
    if raw is None:
        return UNKNOWN
    value = normalise_answer(raw)
    if value.lower() in DONT_KNOW_WORDS:
        return UNKNOWN
    if value.lower() in NOT_APPLICABLE_WORDS:
        return NOT_APPLICABLE
    values = model.values[qid]
    if value in values:
        return value
    if qid == DOMAIN_QUESTION:
        try:
            return resolve_domain(model, value)
        except AskError:
            pass
    if _slug(value) in values:
        return _slug(value)
    raise AskError(f"{where}: {qid} has no answer {value!r}; valid answers: {', '.join(values)}, \"don't know\" or \"n/a\"")


def _unknown_question(model: Model, qid: str, where: str) -> AskError:
    import difflib

    hint = difflib.get_close_matches(qid, list(model.questions), n=3, cutoff=0.6)
    did = f"; did you mean {', '.join(hint)}?" if hint else ""
    return AskError(f"{where}: unknown question {qid!r}{did} (`triage kb list --kind symptom` lists them)")


REPLAY_KEYS = {"answers", "not_it", "not-it", "expect", "description", "title", "domain", "notes", "text"}


def load_answers_file(path: str | os.PathLike, model: Model) -> Replay:
    """Read `--answers FILE`: YAML (or JSON) `Q-id: answer`, optional `not_it: [IDs]`.

    Also accepted: the same under an `answers:` key, `domain: grpo` for Q-domain, `text:` (an error
    line or a description, or a list of them, matched like free text at a prompt), "n/a" for a
    question that does not apply, and a saved `.json` transcript (its answers and "not it"s are
    replayed in order). An unknown question or answer is an error naming it.
    """
    import json

    p = Path(path)
    where = str(p)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AskError(f"no such answers file: {where!r}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise AskError(f"cannot read answers file {where!r}: {exc}") from None
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:  # yaml.YAMLError, json.JSONDecodeError
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise AskError(f"answers file {where!r} is not valid YAML/JSON: {first}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise AskError(f"answers file {where!r} must be a mapping of question IDs to answers (e.g. 'Q-start: nan')")
    replay = Replay(path=where)
    if isinstance(data.get("answers"), list):  # a saved transcript
        raw = {}
        for a in data["answers"]:
            if isinstance(a, dict) and "question" in a and "answer" in a:
                if a.get("source", "you") in ("you", "replay"):
                    raw[str(a["question"])] = a["answer"]
        not_it = data.get("excluded") or []
    else:
        nested = data.get("answers")
        if nested is not None and not isinstance(nested, dict):
            raise AskError(f"{where}: 'answers' must be a mapping of question IDs to answers")
        raw = dict(nested or {})
        for key, value in data.items():
            if key in REPLAY_KEYS:
                continue
            raw[str(key)] = value
        not_it = data.get("not_it", data.get("not-it")) or []
        if "domain" in data and data["domain"] is not None:
            raw.setdefault(DOMAIN_QUESTION, data["domain"])
        exp = data.get("expect")
        replay.expect = dict(exp) if isinstance(exp, dict) else {}
        text = data.get("text")
        texts = text if isinstance(text, list) else ([] if text is None else [text])
        if not all(isinstance(t, str) for t in texts):
            raise AskError(f"{where}: 'text' must be a string or a list of strings (error lines or descriptions)")
        replay.text = [t for t in texts if t.strip()]
    for key, value in raw.items():
        if key not in model.questions:
            if not key.startswith("Q-"):
                raise AskError(f"{where}: unknown key {key!r} (expected question IDs like Q-start, or: {', '.join(sorted(REPLAY_KEYS))})")
            raise _unknown_question(model, key, where)
        replay.answers[key] = _answer_value(model, key, value, where)
    if not isinstance(not_it, list):
        not_it = [not_it]
    cause_ids = {c.id for c in model.causes}
    for cid in not_it:
        cid = str(cid)
        if cid not in cause_ids:
            import difflib

            hint = difflib.get_close_matches(cid, sorted(cause_ids), n=3, cutoff=0.6)
            did = f"; did you mean {', '.join(hint)}?" if hint else ""
            raise AskError(f"{where}: not_it names {cid!r}, which is not a cause{did}")
        replay.not_it.append(cid)
    return replay


PROBE_STATUSES = ("pass", "fail", "inconclusive", "error")


def load_evidence(path: str | os.PathLike, model: Model) -> tuple[list[Answer], list[str]]:
    """A probe result (docs/json.md, `probes`) -> answers with source "probe", and notes.

    A file that is not a probe result fails (AskError). Results with status error or
    inconclusive say nothing reliable: their answers are ignored with a note, and so is an
    answer to a question or with a value this knowledge base does not know (as `triage scan`).
    """
    from triage.ingest.probe_result import ProbeResultError, read_result

    p = Path(path)
    where = str(p)
    if not p.exists():
        raise AskError(f"no such evidence file: {where!r}")
    try:
        doc = read_result(p, strict=False)  # the one reader of probe results (scan and inspect use it too)
    except ProbeResultError as exc:
        raise AskError(f"evidence file {where!r} is not a JSON probe result: {exc}") from None
    probe, status, answers = str(doc["probe"]), doc["status"], doc["answers"]
    message = str(doc.get("message") or "").strip()
    if status in ("error", "inconclusive"):
        why = f": {message}" if message else ""
        return [], [f"probe {probe} ({where}) ended with status {status}; its answers are ignored{why}"]
    out: list[Answer] = []
    notes: list[str] = []
    for qid, raw in answers.items():
        qid = str(qid)
        if qid not in model.questions:
            notes.append(f"probe {probe} ({where}): unknown question {qid} ignored")
            continue
        try:
            value = _answer_value(model, qid, raw, where)
        except AskError as exc:
            notes.append(f"probe {probe}: {exc}; ignored")
            continue
        if value == UNKNOWN:
            continue
        line = f"probe {probe} ({status}): {question_text(model, qid)} → {answer_label(model, qid, value)}"
        if message:
            line += f" — {message}"
        out.append(Answer(qid, value, "probe", line))
    return out, notes


def apply_logs(diag: Diagnosis, paths: list[str], kb: KnowledgeBase) -> list[str]:
    """Read each log, run the detectors and match its error text, exactly as `triage scan`
    does (triage.engine.evidence); the answers land in `diag` with source "log". Returns notes."""
    from triage.detect import run_detectors
    from triage.engine.evidence import Applied, apply_probe, apply_run, is_probe_result
    from triage.ingest import read_run
    from triage.kb.search import SearchIndex

    index = SearchIndex(kb)
    applied = Applied()
    for path in paths:
        if path != "-" and not Path(path).exists():
            raise AskError(f"no such log: {path!r}")
        probe = is_probe_result(path)
        if probe is not None:  # a probe result given as a log counts as the probe's evidence
            apply_probe(diag, probe, applied, path)
            if probe.get("status") == "fail" and not applied.probes[-1]["answers"]:
                applied.notes.append(f"probe {probe.get('probe')} failed: {probe.get('message') or 'no message'}")
            continue
        try:
            run = read_run(path)
        except Exception as exc:  # IngestError and friends carry a one-line message
            raise AskError(f"cannot read log: {exc}") from None
        from triage.ingest.sidecar import attach

        attach(run, path)
        findings = run_detectors(run, kb)
        lines = apply_run(diag, run, findings, applied, index)
        answer_framework(diag)
        answer_quiet(diag, run, findings, applied.notes)
        if not findings and not lines:
            applied.notes.append(f"the detectors found nothing in {path}; the questions will tell")
    return applied.notes


def answer_framework(diag: Diagnosis) -> None:
    """The framework a log was recognised as answers the framework question (it is not asked)."""
    from triage.engine.planner import FRAMEWORK_QUESTION

    fw = diag.context.framework
    if fw is None or FRAMEWORK_QUESTION in diag.answers or FRAMEWORK_QUESTION not in diag.model.questions:
        return
    value = fw.id.replace("_", "-")
    if value in diag.model.values[FRAMEWORK_QUESTION]:
        diag.answer(FRAMEWORK_QUESTION, value, "log", f"written by {fw.title} ({diag.context.because})")


def answer_quiet(diag: Diagnosis, run, findings: list, notes: list[str]) -> int:
    """Questions a log answers by what it does not show, so `ask --log` does not ask them.

    A question whose detectors read a metric the log has, with at least as many points as each
    detector needs (`min_points`), and none of which fired, gets its healthy `default` answer with
    source "log": a grad_norm series no gradient-norm detector flags is a normal gradient norm, a
    learning-rate series no schedule detector flags follows its schedule. Questions without a
    default, or already answered (by a finding, a config, a probe or you), are left alone.
    Returns the number of questions answered."""
    from triage.detect import applies, detector_params, detectors

    fired = {f.symptom for f in findings}
    seen: dict[str, set[str]] = {}
    for node in detectors(diag.kb):
        q = str((node.get("answers") or {}).get("symptom") or "")
        if not q or q in fired or q in diag.answers or diag.model.defaults.get(q) is None or not applies(node, run) \
                or node.get("quiet_answers") is False:
            continue
        params, _ = detector_params(node)
        need = max(2, int(getattr(params, "min_points", 2) or 2))
        for name in node.get("metric") or []:
            series = run.get(str(name)) if "*" not in str(name) else None
            if series is not None and len(series) >= need:
                seen.setdefault(q, set()).add(series.name)
                break
    for q, names in sorted(seen.items()):
        diag.answer(q, diag.model.defaults[q], "log", f"the log has {', '.join(sorted(names))} and no detector flags it")
    if seen:
        notes.append(f"the log answers {len(seen)} question(s) by showing nothing abnormal: {', '.join(sorted(seen))}")
    return len(seen)


# -- the session ---------------------------------------------------------------------------------
def clearly_ahead(ranked: list[Candidate]) -> bool:
    """The margin half of the stopping rule: the top cause holds >= 60% and is >= 3x the
    runner-up (the planner also wants specific evidence for it, see Planner.done)."""
    return _clearly_ahead(ranked)


class Outcome:
    """How a session ended: status done | quit | empty, the top candidates, the session file."""

    def __init__(self, status: str, top: list[Candidate], session_file: str | None = None, questions: int = 0):
        self.status, self.top, self.session_file, self.questions = status, top, session_file, questions

    def __repr__(self) -> str:
        return f"Outcome({self.status!r}, top={[c.id for c in self.top]}, questions={self.questions})"


def default_session_dir() -> Path:
    base = os.environ.get("TRIAGE_SESSION_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(xdg) / "triage" / "sessions"


class Session:
    def __init__(self, kb: KnowledgeBase, prompter: Prompter, display: Display, *, diagnosis: Diagnosis | None = None,
                 save: str | os.PathLike | None = None, session_file: str | os.PathLike | None = None,
                 notes: list[str] | None = None, command: str | None = None,
                 writer: Callable[[object, Path], None] | None = None):
        """`writer(doc, path)` saves a transcript document; the default writes .json only (the
        command line passes triage.render.transcript.write, which also renders .md and .html)."""
        self.kb = kb
        self.diag = diagnosis or Diagnosis(kb)
        self.model = self.diag.model
        self.planner = Planner(self.diag)
        self.prompter = prompter
        self.display = display
        self.writer = writer
        self.save = Path(save) if save else None
        self.session_file = Path(session_file) if session_file else None
        self.notes = list(notes or [])
        self.command = command
        self.created = time.time()
        self.finishing = False
        self.asked = 0
        self._save_warned = False

    # -- saving ------------------------------------------------------------------------------
    def targets(self) -> list[Path]:
        out = []
        for p in (self.save, self.session_file):
            if p is not None and p not in out:
                out.append(p)
        return out

    def autosave(self, status: str = "in-progress", final: bool = False) -> None:
        targets = self.targets()
        if not targets:
            return
        from triage.engine import transcript

        doc = transcript.make(self.diag, status=status, notes=self.notes, command=self.command,
                              created=self.created, full_env=final)
        write = self.writer or transcript.write
        for path in targets:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                write(doc, path)
            except (transcript.TranscriptError, OSError) as exc:
                if not self._save_warned:
                    self._save_warned = True
                    self.display.show(SaveFailed(str(exc)))

    def _intro(self) -> None:
        """What is known before the first question: evidence, notes, earlier answers, exclusions."""
        answers = [self.diag.answers[q] for q in self.diag.order]
        self.display.show(Intro(
            self.model, [a for a in answers if a.source not in ("you", "replay")], list(self.notes), list(self.diag.text),
            [a for a in answers if a.source in ("you", "replay")], sorted(self.diag.excluded)))

    # -- the loop ----------------------------------------------------------------------------
    def next_question(self) -> str | None:
        """The planner's next question (context first, then information gain); None once the top
        cause is clearly ahead on specific evidence, or no question would help."""
        if self.finishing:
            return None
        return self.planner.next_question()

    def question_options(self, qid: str) -> list[Option]:
        opts = [Option(v, answer_label(self.model, qid, v)) for v in self.model.values[qid]]
        opts.append(Option(UNKNOWN, "Don't know", control=True))
        opts.append(Option(NOT_APPLICABLE_CHOICE, "Not applicable to this run", control=True))
        opts.append(Option(TEXT, "Type it: paste an error line or say what you see", control=True))
        opts.append(Option(BACK, "Back: undo my last answer", control=True))
        opts.append(Option(CANDIDATES, "Show the candidates so far, and why", control=True))
        opts.append(Option(FINISH, "Stop asking: show the top causes now", control=True))
        opts.append(Option(QUIT, "Quit (the session is saved; resume later)", control=True))
        return opts

    def run(self) -> Outcome:
        try:
            return self._run()
        except (KeyboardInterrupt, EOFError):
            path = None
            if self.has_state():
                self.autosave("interrupted", final=True)
                path = str(self.session_file) if self.session_file else None
            raise SessionInterrupted(path) from None

    def has_state(self) -> bool:
        """Anything worth saving (an interrupt before the first answer saves nothing)."""
        return bool(self.diag.order or self.diag.text or self.diag.excluded)

    def _preload(self) -> None:
        """An answers file's answers and text are known before the first question: record them
        all (an answer the engine would not have reached still counts)."""
        preload = getattr(self.prompter, "preload", None)
        if preload is None:
            return
        for qid, value in preload().items():
            if qid not in self.diag.answers or self.diag.answers[qid].source in ("you", "replay", "default"):
                self.planner.record(qid, value, "replay")
        for text in getattr(getattr(self.prompter, "replay", None), "text", []):
            self.planner.add_text(text, "replay")
        for cid in getattr(self.prompter, "preload_not_it", list)():
            self.diag.exclude(cid)

    def _typed(self, qid: str, text: str) -> None:
        """Free text typed at question `qid`: matched, shown, and the question counts as asked."""
        found = self.planner.add_text(text, "you" if self.prompter.interactive else "replay")
        if qid not in self.diag.answers:
            self.diag.answer(qid, UNKNOWN, "you" if self.prompter.interactive else "replay", f"typed: {text.strip()[:160]}")
        self.display.show(TextMatched(list(dict.fromkeys(c for c, _ in found)) if found else []))

    def _run(self) -> Outcome:
        """Evidence first, then one question at a time; at the end the top causes, until the person
        is done with them (or every cause is ruled out)."""
        self._preload()
        self._intro()
        while True:
            qid = self.next_question()
            outcome = self._ask(qid) if qid is not None else self._end()
            if outcome is not None:
                return outcome

    def _ask(self, qid: str) -> Outcome | None:
        """One question and what the person did with it: an answer, free text, or a control (back,
        show the candidates, stop asking, quit). Returns the outcome only when they quit."""
        number = 1 + sum(1 for a in self.diag.answers.values()
                         if a.source in ("you", "replay") and not a.evidence.startswith("--domain"))
        self.display.show(Asking(self.model, qid, number, echo=not self.prompter.interactive))
        choice = self.prompter.ask(qid, question_text(self.model, qid), self.question_options(qid))
        if choice == QUIT:
            return self._quit()
        if choice == BACK:
            self._back()
        elif choice == CANDIDATES:
            self._show_differential()
        elif choice == FINISH:
            self.finishing = True
        elif typed_text(choice) is not None:
            self._typed(qid, typed_text(choice))
            self.asked += 1
            self.autosave()
        else:
            source = "you" if self.prompter.interactive else "replay"
            value = NOT_APPLICABLE if choice in (NOT_APPLICABLE_CHOICE, NOT_APPLICABLE) else choice
            ans = self.planner.record(qid, value, source)
            self.asked += 1
            if not self.prompter.interactive:
                self.display.show(Answered(self.model, ans))
            self.autosave()
        return None

    def _end(self) -> Outcome | None:
        """The top causes as cards. "Not it" rules the top one out and "back" takes back an answer:
        both go on asking (None); "done" and "quit" end the session."""
        ranked = self.diag.ranking(limit=ALSO_POSSIBLE)
        if not ranked:
            self.display.show(End(self.kb, []))
            self.autosave("done", final=True)
            return Outcome("empty", [], self._session_path(), self.asked)
        self._show_end(ranked)
        choice = self.prompter.finish(ranked, self._end_options(ranked[0]))
        while choice == CANDIDATES:
            self._show_differential()
            choice = self.prompter.finish(ranked, self._end_options(ranked[0]))
        if choice == NOT_IT:
            self.diag.exclude(ranked[0].id)
            self.display.show(RuledOut(ranked[0].id))
            self.finishing = False
            self.autosave()
            return None
        if choice == BACK:
            self._back()
            self.finishing = False
            return None
        if choice == QUIT:
            return self._quit()
        return self._done(ranked)

    def _done(self, ranked: list[Candidate]) -> Outcome:
        """The person is done: the final save, and where it went."""
        self.autosave("done", final=True)
        if self.save is not None:
            also = self.session_file if self.session_file is not None and self.session_file != self.save else None
            self.display.show(Saved(str(self.save), str(also) if also is not None else None))
        return Outcome("done", ranked, self._session_path(), self.asked)

    def _show_differential(self, limit: int = 8) -> None:
        self.display.show(Differential(self.diag.ranking(limit=limit), sorted(self.diag.excluded)))

    def _session_path(self) -> str | None:
        return str(self.session_file) if self.session_file else None

    def _back(self) -> None:
        undone = self.diag.undo()
        if undone is not None:
            self._forget_context(undone)
        if undone is not None and undone.evidence.startswith("--domain"):
            # the --domain flag is not an answer to take back: put it back
            self.diag.answer(undone.question, undone.value, undone.source, undone.evidence)
            undone = None
        self.display.show(TookBack(self.model, undone))
        if undone is not None:
            self.autosave()

    def _forget_context(self, undone: Answer) -> None:
        """Taking back the framework answer takes back the run context and defaults it brought."""
        from triage.engine.planner import FRAMEWORK_QUESTION

        ctx = self.diag.context
        if undone.question != FRAMEWORK_QUESTION or ctx.framework is None or not ctx.because.startswith(undone.source):
            return
        for q in [q for q in self.diag.order if self.diag.answers[q].source == "default"]:
            if self.diag.answers[q].evidence.startswith(f"{ctx.framework.title} default"):
                self.diag.order.remove(q)
                del self.diag.answers[q]
        ctx.framework, ctx.because = None, ""

    def _quit(self) -> Outcome:
        saved = self.has_state()
        if saved:
            self.autosave("quit", final=True)
        top = self.diag.ranking(limit=3)
        self.display.show(Quit(top if self.diag.order else [], str(self.session_file) if self.session_file and saved else None))
        return Outcome("quit", top, self._session_path(), self.asked)

    def _end_options(self, top: Candidate) -> list[Option]:
        return [
            Option(DONE, f"Done: I'll try {top.id}"),
            Option(NOT_IT, f"Not it: {top.id} is ruled out, go on with the remaining candidates"),
            Option(CANDIDATES, "Show all candidates, and why", control=True),
            Option(BACK, "Back: undo my last answer", control=True),
            Option(QUIT, "Quit (the session is saved; resume later)", control=True),
        ]

    def _show_end(self, ranked: list[Candidate]) -> None:
        cards = [ranked[0]] + [c for c in ranked[1:MAX_CARDS] if c.probability >= CARD_MIN_PROBABILITY]
        self.display.show(End(self.kb, cards, ranked[len(cards):ALSO_POSSIBLE]))


# -- the whole `triage ask` ----------------------------------------------------------------------
def prepare(kb: KnowledgeBase, *, logs: list[str] | None = None, evidence: list[str] | None = None,
            domain: str | None = None, resume: str | None = None, model: Model | None = None
            ) -> tuple[Diagnosis, list[str]]:
    """A Diagnosis with everything known before the first question, and notes for the person."""
    diag = Diagnosis(kb, model)
    notes: list[str] = []
    if resume:
        from triage.engine import transcript

        try:
            doc = transcript.read(resume)
        except transcript.TranscriptError as exc:
            raise AskError(str(exc)) from None
        try:
            diag.load_dict(doc)
        except (KeyError, ValueError) as exc:
            msg = exc.args[0] if exc.args else exc
            raise AskError(f"cannot resume {resume!r} with this knowledge base: {msg}") from None
    if logs:
        notes.extend(apply_logs(diag, logs, kb))
    for path in evidence or []:
        answers, more = load_evidence(path, diag.model)
        for a in answers:
            diag.answer(a.question, a.value, a.source, a.evidence)
        notes.extend(more)
    if domain:
        value = resolve_domain(diag.model, domain)
        if DOMAIN_QUESTION not in diag.answers or diag.answers[DOMAIN_QUESTION].source in ("you", "replay"):
            diag.answer(DOMAIN_QUESTION, value, "you", f"--domain {domain}")
    return diag, notes


def session_file_for(save: str | None, resume: str | None, interactive: bool) -> str | None:
    """Where the resumable .json transcript goes: --save X.json itself, the .json beside a
    .md/.html --save, the --resume file, or (interactive only) a new file in the state folder."""
    if save:
        p = Path(save)
        return str(p) if p.suffix.lower() == ".json" else str(p.with_suffix(".json"))
    if resume:
        return str(resume)
    if interactive:
        return str(default_session_dir() / f"ask-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.json")
    return None


__all__ = [
    "AskError", "SessionInterrupted", "Session", "Outcome", "Option", "Prompter", "Display", "QuietDisplay",
    "Intro", "Asking", "Answered", "TextMatched", "Differential", "End", "RuledOut", "TookBack", "Saved", "Quit",
    "SaveFailed",
    "AnswersPrompter", "ScriptedPrompter", "Replay", "load_answers_file", "load_evidence", "apply_logs",
    "prepare", "resolve_domain", "clearly_ahead", "session_file_for",
    "STOP_PROBABILITY", "STOP_RATIO", "BACK", "CANDIDATES", "FINISH", "QUIT", "NOT_IT", "DONE", "UNKNOWN",
    "NOT_APPLICABLE", "NOT_APPLICABLE_CHOICE", "TEXT", "text_reply", "typed_text", "Planner", "answer_quiet",
    "answer_framework",
]
