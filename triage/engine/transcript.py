"""Session transcripts: what was asked, what was answered (and by whom), what it points to.

`make()` turns a `Diagnosis` into a typed `Transcript`; `build()` gives its JSON document, which
`write()` saves as `.json` and `triage ask --resume` reads back (`read()`). The `.md` (ready to paste
into a bug report) and `.html` views of a transcript are rendered by triage.render.transcript, never
here. Every write is atomic: a temporary file in the same folder, then `os.replace`, so an autosave
interrupted by Ctrl-C never leaves a half-written transcript.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from triage import __version__
from triage.engine.diagnosis import UNKNOWN, Diagnosis, TextEvidence
from triage.engine.report import Fix, answer_label, question_text
from triage.errors import TriageError
from triage.kb.base import _as_list

FORMAT = "triage-ask-session"
FORMAT_VERSION = 1
SUFFIXES = (".json", ".md", ".markdown", ".html", ".htm")
# libraries whose versions help a bug report (read from package metadata, never imported)
PACKAGES = ("numpy", "transformers", "trl", "accelerate", "deepspeed", "peft", "lightning",
            "pytorch-lightning", "diffusers", "ultralytics", "stable-baselines3", "jax")

_ENV_CACHE: dict[bool, dict] = {}


class TranscriptError(TriageError):
    """A transcript that cannot be written or read (one line, exit code 2)."""


# -- environment ---------------------------------------------------------------------------------
def environment(full: bool = False) -> dict:
    """Python, platform, package versions; torch and CUDA when torch is installed.

    torch is imported only when `full` is true (the final save) and only if it is installed;
    autosaves read its version and CUDA build from the installed files instead, which costs
    nothing. Cached per process.
    """
    if full in _ENV_CACHE:
        return _ENV_CACHE[full]
    import importlib.metadata as md
    import importlib.util

    env: dict = {
        "triage": __version__,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
    }
    packages = {}
    for name in PACKAGES:
        try:
            packages[name] = md.version(name)
        except md.PackageNotFoundError:
            continue
        except Exception:  # pragma: no cover - broken metadata
            continue
    if packages:
        env["packages"] = packages
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):  # pragma: no cover
        spec = None
    if spec is not None:
        env["torch"] = _torch_info(spec, full)
    _ENV_CACHE[full] = env
    return env


def _torch_info(spec, full: bool) -> dict:
    info: dict = {}
    if full or "torch" in sys.modules:
        try:
            import torch  # noqa: PLC0415 - deliberately late: only when writing the transcript

            info["version"] = str(torch.__version__)
            info["cuda_build"] = getattr(torch.version, "cuda", None)
            info["cuda_available"] = bool(torch.cuda.is_available())
            if info["cuda_available"]:
                info["device_count"] = torch.cuda.device_count()
                info["device"] = torch.cuda.get_device_name(0)
            try:
                info["cudnn"] = torch.backends.cudnn.version()
            except Exception:  # pragma: no cover
                pass
            return info
        except Exception as exc:  # a broken torch install is itself worth reporting
            info["import_error"] = f"{type(exc).__name__}: {exc}"
    # cheap path: the version file torch ships, without importing torch
    try:
        import importlib.metadata as md

        info.setdefault("version", md.version("torch"))
    except Exception:
        pass
    for loc in spec.submodule_search_locations or []:
        vfile = Path(loc) / "version.py"
        if vfile.is_file():
            for line in vfile.read_text(errors="replace").splitlines():
                if line.startswith("cuda") and "=" in line:
                    value = line.split("=", 1)[1].strip().strip("'\"")
                    info.setdefault("cuda_build", None if value == "None" else value)
            break
    return info


# -- the document --------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnswerLine:
    """One answer of the session, with the question and the answer in words and where it came from."""

    question: str
    text: str
    answer: str
    label: str
    source: str
    evidence: str

    def to_json(self) -> dict:
        return {"question": self.question, "text": self.text, "answer": self.answer, "label": self.label,
                "source": self.source, "evidence": self.evidence}


@dataclass(frozen=True)
class EvidenceLine:
    """Evidence the person did not type: an answer from a log, config, default or probe (`question`
    and `answer` set), or error text and descriptions pointing at a `cause`."""

    evidence: str
    source: str
    question: str | None = None
    answer: str | None = None
    cause: str | None = None

    def to_json(self) -> dict:
        if self.question is not None:
            return {"question": self.question, "answer": self.answer, "source": self.source, "evidence": self.evidence}
        return {"cause": self.cause, "source": self.source, "evidence": self.evidence}


@dataclass(frozen=True)
class SessionCause:
    """A cause in the session's ranking with its evidence for and against and what to do about it."""

    rank: int
    id: str
    title: str
    probability: float
    prior: str = ""
    support: list[str] = field(default_factory=list)
    against: list[str] = field(default_factory=list)
    fix: list[Fix] = field(default_factory=list)
    verify: str = ""
    next_if_not: str | None = None
    probes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"rank": self.rank, "id": self.id, "title": self.title, "probability": self.probability,
                "prior": self.prior, "support": list(self.support), "against": list(self.against),
                "fix": [f.to_json() for f in self.fix], "verify": self.verify, "next_if_not": self.next_if_not,
                "probes": list(self.probes)}


@dataclass
class Transcript:
    """A session as typed records: what the transcript renderers (triage.render.transcript) read.
    `to_json()` is the saved `.json` (FORMAT, version FORMAT_VERSION), which `--resume` reads back:
    its `answers`, `text` and `excluded` have the shape `Diagnosis.load_dict` reads."""

    status: str
    created: str
    updated: str
    command: str | None
    answers: list[AnswerLine]
    text: list[TextEvidence]
    excluded: list[str]
    evidence: list[EvidenceLine]
    causes: list[SessionCause]
    notes: list[str]
    environment: dict
    triage: str = __version__

    def to_json(self) -> dict:
        return {
            "format": FORMAT, "format_version": FORMAT_VERSION, "triage": self.triage,
            "created": self.created, "updated": self.updated, "status": self.status, "command": self.command,
            "answers": [a.to_json() for a in self.answers],
            "text": [dict(t.__dict__) for t in self.text],
            "excluded": list(self.excluded),
            "evidence": [e.to_json() for e in self.evidence],
            "causes": [c.to_json() for c in self.causes],
            "notes": list(self.notes),
            "environment": self.environment,
        }

    @classmethod
    def from_json(cls, doc: dict) -> Transcript:
        """A transcript document read back (entries of the wrong shape skipped), for rendering."""
        def dicts(key: str) -> list[dict]:
            value = doc.get(key)
            return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []

        answers = [AnswerLine(str(a.get("question")), str(a.get("text") or a.get("question")), str(a.get("answer")),
                              str(a.get("label") or a.get("answer")), str(a.get("source") or ""), str(a.get("evidence") or ""))
                   for a in dicts("answers")]
        text = [TextEvidence(str(t.get("cause")), float(t.get("weight") or 0.0), str(t.get("evidence") or ""),
                             str(t.get("source") or "")) for t in dicts("text")]
        evidence = [EvidenceLine(str(e.get("evidence") or ""), str(e.get("source") or ""), e.get("question"),
                                 e.get("answer"), e.get("cause")) for e in dicts("evidence")]
        causes = [SessionCause(int(c.get("rank") or n), str(c.get("id")), str(c.get("title") or ""),
                               float(c.get("probability") or 0.0), str(c.get("prior") or ""),
                               [str(x) for x in c.get("support") or []], [str(x) for x in c.get("against") or []],
                               [Fix(str(f.get("knob", "")), str(f.get("range", "")), str(f.get("expect", "")))
                                for f in c.get("fix") or [] if isinstance(f, dict)],
                               str(c.get("verify") or ""), c.get("next_if_not") or None,
                               [str(p) for p in c.get("probes") or []])
                  for n, c in enumerate(dicts("causes"), 1)]
        excluded, env = doc.get("excluded"), doc.get("environment")
        return cls(str(doc.get("status") or "in-progress"), str(doc.get("created") or ""), str(doc.get("updated") or ""),
                   doc.get("command"), answers, text, [str(x) for x in excluded] if isinstance(excluded, list) else [],
                   evidence, causes, [str(n) for n in doc.get("notes") or []],
                   env if isinstance(env, dict) else {},
                   str(doc.get("triage") or __version__))


def make(diag: Diagnosis, *, status: str = "in-progress", notes: list[str] | None = None,
         command: str | None = None, created: float | None = None, top: int = 10,
         full_env: bool = False) -> Transcript:
    """The transcript of a session: every answer in order (with its words), the evidence the
    person did not type, the top `top` causes and the environment."""
    m = diag.model
    answers = [AnswerLine(q, question_text(m, q), a.value, answer_label(m, q, a.value), a.source, a.evidence)
               for q in diag.order for a in [diag.answers[q]]]
    evidence = [EvidenceLine(a.evidence, a.source, question=a.question, answer=a.answer)
                for a in answers if a.source not in ("you", "replay")]
    evidence += [EvidenceLine(t.evidence, t.source, cause=t.cause) for t in diag.text]
    now = time.time()
    return Transcript(status, _iso(created or now), _iso(now), command, answers, list(diag.text), sorted(diag.excluded),
                      evidence, [_session_cause(rank, c) for rank, c in enumerate(diag.ranking(limit=top), 1)],
                      list(notes or []), environment(full_env))


def _session_cause(rank: int, c) -> SessionCause:
    node = c.node
    fixes = [Fix(str(f.get("knob", "")).strip(), str(f.get("range", "")).strip(), str(f.get("expect", "")).strip())
             for f in _as_list(node.get("fix")) if isinstance(f, dict)]
    return SessionCause(rank, c.id, node.title, round(c.probability, 4), str(node.get("prior") or ""), c.support,
                        c.against, fixes, str(node.get("verify") or "").strip(), str(node.get("next_if_not") or "") or None,
                        [str(p) for p in _as_list(node.get("probes"))])


def build(diag: Diagnosis, **kw) -> dict:
    """The transcript of a session as one JSON-able document (`make(...).to_json()`): what is saved
    and what `--resume` reads back."""
    return make(diag, **kw).to_json()


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t))


# -- writing and reading -------------------------------------------------------------------------
def as_json_text(doc) -> str:
    """A transcript (a `Transcript` or its document) as the text of its .json file."""
    if isinstance(doc, Transcript):
        doc = doc.to_json()
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def check_path(path: str | os.PathLike) -> None:
    """Fail early (before any question) on a suffix we cannot write, a folder given as the file,
    a missing or unwritable folder: for the file and for the resumable .json kept beside it."""
    from triage.writeout import OutputError, check_target

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES:
        raise TranscriptError(f"cannot save a transcript as {str(p)!r}: use a .md, .json or .html file name")
    try:
        check_target(p, what="--save")
        if suffix != ".json":
            check_target(p.with_suffix(".json"), what="--save (the resumable .json beside it)")
    except OutputError as exc:
        raise TranscriptError(str(exc)) from None


def atomic_write(path: str | os.PathLike, text: str) -> None:
    """Write `text` whole or not at all, with a shareable mode (triage.writeout.write_text)."""
    from triage.writeout import write_text

    write_text(path, text, what="transcript", fsync=True)


def write(doc, path: str | os.PathLike) -> None:
    """Save a transcript as .json, atomically. The engine renders no other format: the .md and .html
    files come from triage.render.transcript.write, which the command line hands the session."""
    from triage.writeout import OutputError

    if Path(path).suffix.lower() != ".json":
        raise TranscriptError(f"cannot save {str(path)!r} here: .md and .html transcripts are written by "
                              "triage.render.transcript.write")
    try:
        atomic_write(path, as_json_text(doc))
    except (OSError, OutputError) as exc:
        raise TranscriptError(f"cannot write {str(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None


def read(path: str | os.PathLike) -> dict:
    """A saved `.json` transcript, checked enough to resume from."""
    p = Path(path)
    if p.suffix.lower() != ".json":
        raise TranscriptError(f"--resume needs the .json transcript (got {str(p)!r}); `--save X.md` keeps X.json beside it")
    try:
        doc = json.loads(p.read_text(encoding="utf-8"), parse_constant=_no_constant)
    except FileNotFoundError:
        raise TranscriptError(f"no such file: {str(p)!r}") from None
    except RecursionError:
        raise TranscriptError(f"{str(p)!r} is not a triage ask transcript (JSON nested too deeply)") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise TranscriptError(f"{str(p)!r} is not a readable JSON transcript: {exc}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("answers"), list):
        raise TranscriptError(f"{str(p)!r} is not a triage ask transcript (no 'answers' list)")
    problem = _shape_problem(doc)
    if problem:
        raise TranscriptError(f"{str(p)!r}: {problem} (a hand-edited transcript? save a new one with --save)")
    return doc


def _no_constant(token: str):
    raise ValueError(f"bare {token} is not JSON")


def _is_str(x) -> bool:
    return isinstance(x, str)


def _shape_problem(doc: dict) -> str | None:
    """What is wrong with the types of a transcript's resumable parts, or None. Resuming trusts
    each answer, text weight and exclusion, so each must have the type `build()` writes."""
    for i, a in enumerate(doc["answers"], 1):
        if not isinstance(a, dict) or "question" not in a or "answer" not in a:
            return f"answer #{i} needs 'question' and 'answer'"
        if not _is_str(a["question"]):
            return f"answer #{i}: 'question' must be a question ID (a string)"
        ans = a["answer"]
        if not (_is_str(ans) or (isinstance(ans, list) and ans and all(map(_is_str, ans)))):
            return f"answer #{i}: 'answer' must be a string"
        for key in ("source", "evidence"):
            if key in a and not _is_str(a[key]):
                return f"answer #{i}: '{key}' must be a string"
    text = doc.get("text", [])
    if not isinstance(text, list):
        return "'text' must be a list"
    for i, t in enumerate(text, 1):
        if not isinstance(t, dict) or not _is_str(t.get("cause")):
            return f"text evidence #{i} needs a 'cause' (a string)"
        w = t.get("weight")
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not (0 < w < float("inf")):
            return f"text evidence #{i}: 'weight' must be a positive finite number (got {w!r})"
        for key in ("source", "evidence"):
            if key in t and not _is_str(t[key]):
                return f"text evidence #{i}: '{key}' must be a string"
    excluded = doc.get("excluded", [])
    if not isinstance(excluded, list) or not all(map(_is_str, excluded)):
        return "'excluded' must be a list of cause IDs"
    ctx = doc.get("context")
    if ctx is not None:
        if not isinstance(ctx, dict):
            return "'context' must be an object"
        if ctx.get("framework") is not None and not _is_str(ctx["framework"]):
            return "'context.framework' must be a string"
        if not isinstance(ctx.get("excluded_domains") or {}, dict):
            return "'context.excluded_domains' must be an object"
    return None


__all__ = ["build", "make", "write", "read", "environment", "check_path", "atomic_write", "as_json_text",
           "Transcript", "AnswerLine", "EvidenceLine", "SessionCause", "TranscriptError", "UNKNOWN"]
