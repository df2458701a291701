"""Session transcripts: what was asked, what was answered (and by whom), what it points to.

`build()` turns a `Diagnosis` into one JSON-able document; `write()` saves it as `.json`
(which `triage ask --resume` reads back), `.md` (ready to paste into a bug report) or `.html`
(when `triage.render.html` provides `render_report_html`). Every write is atomic: a temporary
file in the same folder, then `os.replace`, so an autosave interrupted by Ctrl-C never leaves a
half-written transcript.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

from triage import __version__
from triage.engine.diagnosis import UNKNOWN, Diagnosis
from triage.kb.base import _as_list

FORMAT = "triage-ask-session"
FORMAT_VERSION = 1
SUFFIXES = (".json", ".md", ".markdown", ".html", ".htm")
# libraries whose versions help a bug report (read from package metadata, never imported)
PACKAGES = ("numpy", "transformers", "trl", "accelerate", "deepspeed", "peft", "lightning",
            "pytorch-lightning", "diffusers", "ultralytics", "stable-baselines3", "jax")

_ENV_CACHE: dict[bool, dict] = {}


class TranscriptError(Exception):
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
def build(diag: Diagnosis, *, status: str = "in-progress", notes: list[str] | None = None,
          command: str | None = None, created: float | None = None, top: int = 10,
          full_env: bool = False) -> dict:
    """The transcript of a session as one JSON-able document.

    Its `answers`, `text` and `excluded` fields have the shape `Diagnosis.load_dict` reads, so a
    saved transcript resumes the session.
    """
    from triage.render.session import answer_label, question_text

    m = diag.model
    answers = []
    for q in diag.order:
        a = diag.answers[q]
        answers.append({
            "question": q,
            "text": question_text(m, q),
            "answer": a.value,
            "label": answer_label(m, q, a.value),
            "source": a.source,
            "evidence": a.evidence,
        })
    causes = []
    for rank, c in enumerate(diag.ranking(limit=top), 1):
        node = c.node
        causes.append({
            "rank": rank,
            "id": c.id,
            "title": node.title,
            "probability": round(c.probability, 4),
            "prior": str(node.get("prior") or ""),
            "support": c.support,
            "against": c.against,
            "fix": [
                {"knob": str(f.get("knob", "")).strip(), "range": str(f.get("range", "")).strip(),
                 "expect": str(f.get("expect", "")).strip()}
                for f in _as_list(node.get("fix")) if isinstance(f, dict)
            ],
            "verify": str(node.get("verify") or "").strip(),
            "next_if_not": str(node.get("next_if_not") or "") or None,
            "probes": [str(p) for p in _as_list(node.get("probes"))],
        })
    now = time.time()
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "triage": __version__,
        "created": _iso(created or now),
        "updated": _iso(now),
        "status": status,
        "command": command,
        "answers": answers,
        "text": [dict(t.__dict__) for t in diag.text],
        "excluded": sorted(diag.excluded),
        "evidence": [
            {"question": a["question"], "answer": a["answer"], "source": a["source"], "evidence": a["evidence"]}
            for a in answers if a["source"] not in ("you", "replay")
        ] + [{"cause": t.cause, "source": t.source, "evidence": t.evidence} for t in diag.text],
        "causes": causes,
        "notes": list(notes or []),
        "environment": environment(full_env),
    }


def _iso(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(t))


# -- markdown ------------------------------------------------------------------------------------
def to_markdown(doc: dict) -> str:
    out: list[str] = []
    w = out.append
    w("# triage ask: session transcript\n")
    w(f"- status: **{doc['status']}**  ")
    w(f"- created: {doc['created']}, updated: {doc['updated']}  ")
    if doc.get("command"):
        w(f"- command: `{doc['command']}`")
    w("")
    top = doc["causes"][:1]
    if top:
        c = top[0]
        w(f"**Most likely: {c['id']} — {_md(c['title'])}** ({c['probability']:.0%})\n")
    w("## Answers\n")
    if doc["answers"]:
        w("| # | question | answer | source |")
        w("|---|---|---|---|")
        for i, a in enumerate(doc["answers"], 1):
            src = a["source"] + (f": {_md(a['evidence'])}" if a.get("evidence") else "")
            w(f"| {i} | {_md(a['text'])} (`{a['question']}`) | {_md(a['label'])} (`{a['answer']}`) | {src} |")
    else:
        w("_no answers yet_")
    w("")
    if doc["evidence"]:
        w("## Evidence from logs, probes and error text\n")
        for e in doc["evidence"]:
            target = e.get("question") or e.get("cause")
            value = f" = {e['answer']}" if "answer" in e else ""
            w(f"- {_md(e.get('evidence') or '')} ({e['source']}; `{target}{value}`)")
        w("")
    if doc["excluded"]:
        w(f"Ruled out (\"not it\"): {', '.join(f'`{x}`' for x in doc['excluded'])}\n")
    w("## Ranked causes\n")
    if doc["causes"]:
        w("| rank | cause | p | why |")
        w("|---|---|---|---|")
        for c in doc["causes"]:
            why = "; ".join(c["support"]) or "no direct evidence yet"
            if c["against"]:
                why += " — against: " + "; ".join(c["against"])
            w(f"| {c['rank']} | `{c['id']}` {_md(c['title'])} | {c['probability']:.0%} | {_md(why)} |")
    else:
        w("_no candidates left_")
    w("")
    fixes = doc["causes"][:1] + [c for c in doc["causes"][1:3] if c["probability"] >= 0.1]  # as ask ends: no 0% card
    if fixes:
        w("## Fixes for the top causes\n")
    for c in fixes:
        w(f"### {c['id']}: {_md(c['title'])}\n")
        for i, f in enumerate(c["fix"], 1):
            w(f"{i}. knob:\n")
            w("   ```")
            for line in f["knob"].splitlines() or [""]:
                w(f"   {line}")
            w("   ```")
            if f["range"]:
                w(f"   - range: {_md(f['range'])}")
            if f["expect"]:
                w(f"   - expect: {_md(f['expect'])}")
            w("")
        if c["verify"]:
            w(f"**Verify:** {_md(c['verify'])}\n")
        if c["probes"]:
            w("**Probes to run on the GPU box:** " + ", ".join(f"`triage probe export {p}`" for p in c["probes"]) + "\n")
        if c["next_if_not"]:
            w(f"**If it was not this:** `triage explain {c['next_if_not']}`\n")
    if doc.get("notes"):
        w("## Notes\n")
        for n in doc["notes"]:
            w(f"- {_md(n)}")
        w("")
    w("## Environment\n")
    w("```")
    for line in _env_lines(doc.get("environment") or {}):
        w(line)
    w("```\n")
    return "\n".join(out).rstrip() + "\n"


def _env_lines(env: dict) -> list[str]:
    lines = []
    for key in ("triage", "python", "implementation", "platform", "machine"):
        if key in env:
            lines.append(f"{key}: {env[key]}")
    torch = env.get("torch")
    if torch:
        parts = [f"{k}={v}" for k, v in torch.items() if v is not None]
        lines.append("torch: " + (", ".join(parts) if parts else "installed"))
    else:
        lines.append("torch: not installed")
    for name, version in (env.get("packages") or {}).items():
        lines.append(f"{name}: {version}")
    return lines


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ").strip()


# -- html ----------------------------------------------------------------------------------------
def html_renderer():
    """`triage.render.html.render_report_html`, or None when that module does not provide it."""
    try:
        from triage.render import html as html_mod
    except Exception:
        return None
    return getattr(html_mod, "render_report_html", None)


def report_doc(doc: dict, top: int = 5) -> dict:
    """The transcript in the shape of a `scan --json` document, for the HTML report renderer:
    every answer becomes a finding (its source in the detector column), causes keep their
    support as evidence and their probability as score."""
    findings = []
    for a in doc["answers"]:
        summary = a.get("evidence") or f"{a['text']} → {a['label']}"
        findings.append({"detector": f"answered by {a['source']}", "symptom": a["question"], "answer": a["answer"],
                         "metric": None, "first_step": None, "last_step": None, "summary": summary})
    for t in doc.get("text") or []:
        findings.append({"detector": f"error text ({t.get('source')})", "symptom": None, "answer": None,
                         "metric": None, "first_step": None, "last_step": None, "summary": t.get("evidence")})
    causes = [{"id": c["id"], "title": c["title"], "score": c["probability"], "aliases": [],
               "evidence": c["support"] + [f"against: {x}" for x in c["against"]], "fix": c["fix"]}
              for c in doc["causes"][:top]]
    return {"version": doc.get("triage"), "sources": [], "findings": findings, "causes": causes,
            "unanswered": [], "healthy": False}


def to_html(doc: dict, renderer) -> str:
    import html as _html

    from triage.render import html as html_mod

    if hasattr(html_mod, "render_transcript_html"):  # the transcript's own page: "your answers", cards that earned one
        return html_mod.render_transcript_html(doc)
    page = renderer(report_doc(doc), title=f"triage ask: session transcript ({doc['status']})")
    env = "\n".join(_env_lines(doc.get("environment") or {}))
    extra = (f"<section>\n<h2 id=\"environment\">Environment</h2>\n<pre>{_html.escape(env)}</pre>\n"
             + (f"<p class=\"meta\">command: <code>{_html.escape(doc['command'])}</code></p>\n" if doc.get("command") else "")
             + "</section>\n")
    cut = page.rfind("<footer>")
    return page[:cut] + extra + page[cut:] if cut >= 0 else page + extra


# -- writing and reading -------------------------------------------------------------------------
def render(doc: dict, path: str | os.PathLike) -> str:
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if suffix in (".md", ".markdown"):
        return to_markdown(doc)
    if suffix in (".html", ".htm"):
        fn = html_renderer()
        if fn is None:
            raise TranscriptError("HTML transcripts need triage.render.html.render_report_html, which this build lacks; save as .md or .json")
        return to_html(doc, fn)
    raise TranscriptError(f"cannot save a transcript as {suffix or 'a file without suffix'!r}: use .md, .json or .html")


def check_path(path: str | os.PathLike) -> None:
    """Fail early (before any question) on a suffix we cannot write, a folder given as the file,
    a missing or unwritable folder: for the file and for the resumable .json kept beside it."""
    from triage.writeout import OutputError, check_target

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES:
        raise TranscriptError(f"cannot save a transcript as {str(p)!r}: use a .md, .json or .html file name")
    if suffix in (".html", ".htm") and html_renderer() is None:
        raise TranscriptError("HTML transcripts need triage.render.html.render_report_html, which this build lacks; save as .md or .json")
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


def write(doc: dict, path: str | os.PathLike) -> None:
    from triage.writeout import OutputError

    try:
        atomic_write(path, render(doc, path))
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


__all__ = ["build", "write", "read", "to_markdown", "environment", "html_renderer", "check_path",
           "atomic_write", "TranscriptError", "UNKNOWN"]
