"""The files of an `ask` session: its transcript as Markdown (to paste into a bug report), as an
offline HTML page, or as the resumable .json, chosen by the file name.

The engine builds the transcript (triage.engine.transcript.make) and saves only its .json; the
command line hands the session `write` from here, so a `--save X.md` gets the Markdown and the .json
beside it, each written atomically.
"""

from __future__ import annotations

import os
from pathlib import Path

from triage import __version__
from triage.engine.transcript import Transcript, TranscriptError, as_json_text, atomic_write
from triage.render.html import _document, _facts, _knobs_html, esc

# as `triage ask` ends: a card for the top cause and for runners-up holding at least 10%, at most three
CARDS = 3
CARD_MIN = 0.1


def as_transcript(doc) -> Transcript:
    """A `Transcript`, or a transcript document read back into one."""
    return doc if isinstance(doc, Transcript) else Transcript.from_json(doc)


def write(doc, path: str | os.PathLike) -> None:
    """Save a transcript as .json, .md or .html (by the suffix), atomically."""
    from triage.writeout import OutputError

    try:
        atomic_write(path, render(doc, path))
    except (OSError, OutputError) as exc:
        raise TranscriptError(f"cannot write {str(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None


def render(doc, path: str | os.PathLike) -> str:
    """The text of a transcript file named `path`."""
    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        return as_json_text(doc)
    if suffix in (".md", ".markdown"):
        return to_markdown(doc)
    if suffix in (".html", ".htm"):
        return render_transcript_html(doc)
    raise TranscriptError(f"cannot save a transcript as {suffix or 'a file without suffix'!r}: use .md, .json or .html")


def cards(t: Transcript) -> list:
    """The causes that get a full card: the top one, then runners-up with >= 10% (no 0% card)."""
    return t.causes[:1] + [c for c in t.causes[1:CARDS] if c.probability >= CARD_MIN]


def to_markdown(doc) -> str:
    """The transcript as Markdown: answers, evidence, the ranking, the fixes of the top causes,
    notes and the environment (for a bug report)."""
    t = as_transcript(doc)
    out: list[str] = []
    _md_head(out, t)
    _md_answers(out, t)
    _md_evidence(out, t)
    _md_ranking(out, t)
    _md_fixes(out, t)
    if t.notes:
        out.append("## Notes\n")
        out.extend(f"- {_md(n)}" for n in t.notes)
        out.append("")
    out.append("## Environment\n")
    out.append("```")
    out.extend(env_lines(t.environment))
    out.append("```\n")
    return "\n".join(out).rstrip() + "\n"


def _md_head(out: list[str], t: Transcript) -> None:
    out.append("# triage ask: session transcript\n")
    out.append(f"- status: **{t.status}**  ")
    out.append(f"- created: {t.created}, updated: {t.updated}  ")
    if t.command:
        out.append(f"- command: `{t.command}`")
    out.append("")
    if t.causes:
        c = t.causes[0]
        out.append(f"**Most likely: {c.id} — {_md(c.title)}** ({c.probability:.0%})\n")


def _md_answers(out: list[str], t: Transcript) -> None:
    out.append("## Answers\n")
    if t.answers:
        out.append("| # | question | answer | source |")
        out.append("|---|---|---|---|")
        for i, a in enumerate(t.answers, 1):
            src = a.source + (f": {_md(a.evidence)}" if a.evidence else "")
            out.append(f"| {i} | {_md(a.text)} (`{a.question}`) | {_md(a.label)} (`{a.answer}`) | {src} |")
    else:
        out.append("_no answers yet_")
    out.append("")


def _md_evidence(out: list[str], t: Transcript) -> None:
    if t.evidence:
        out.append("## Evidence from logs, probes and error text\n")
        for e in t.evidence:
            target = e.question or e.cause
            value = f" = {e.answer}" if e.question is not None else ""
            out.append(f"- {_md(e.evidence or '')} ({e.source}; `{target}{value}`)")
        out.append("")
    if t.excluded:
        out.append(f"Ruled out (\"not it\"): {', '.join(f'`{x}`' for x in t.excluded)}\n")


def _md_ranking(out: list[str], t: Transcript) -> None:
    out.append("## Ranked causes\n")
    if t.causes:
        out.append("| rank | cause | p | why |")
        out.append("|---|---|---|---|")
        for c in t.causes:
            why = "; ".join(c.support) or "no direct evidence yet"
            if c.against:
                why += " — against: " + "; ".join(c.against)
            out.append(f"| {c.rank} | `{c.id}` {_md(c.title)} | {c.probability:.0%} | {_md(why)} |")
    else:
        out.append("_no candidates left_")
    out.append("")


def _md_fixes(out: list[str], t: Transcript) -> None:
    """Each card's knobs (as code blocks, their lines kept), how to verify, probes and what next."""
    chosen = cards(t)
    if chosen:
        out.append("## Fixes for the top causes\n")
    for c in chosen:
        out.append(f"### {c.id}: {_md(c.title)}\n")
        for i, f in enumerate(c.fix, 1):
            out.append(f"{i}. knob:\n")
            out.append("   ```")
            out.extend(f"   {line}" for line in f.knob.splitlines() or [""])
            out.append("   ```")
            if f.range:
                out.append(f"   - range: {_md(f.range)}")
            if f.expect:
                out.append(f"   - expect: {_md(f.expect)}")
            out.append("")
        if c.verify:
            out.append(f"**Verify:** {_md(c.verify)}\n")
        if c.probes:
            out.append("**Probes to run on the GPU box:** " + ", ".join(f"`triage probe export {p}`" for p in c.probes) + "\n")
        if c.next_if_not:
            out.append(f"**If it was not this:** `triage explain {c.next_if_not}`\n")


def env_lines(env: dict) -> list[str]:
    """The environment of a transcript as `key: value` lines (torch and its CUDA build on one line)."""
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


# -- html ------------------------------------------------------------------------------------------
_ASKED = ("you", "replay")  # answers the person gave (at the prompt, or in an answers file)
_FROM = {"you": "you", "replay": "answers file", "log": "the log", "config": "the run's config",
         "default": "framework default", "probe": "a probe", "text": "error text"}


def _pct(p) -> str:
    return f"{p:.0%}" if isinstance(p, (int, float)) else ""


def _answer_label(kb, qid: str, value: str) -> str:
    node = kb.get(qid) if kb is not None else None
    for ans in (node.get("answers") or []) if node is not None else []:
        if isinstance(ans, dict) and str(ans.get("value")) == value:
            return str(ans.get("label") or value)
    return value


def render_transcript_html(doc, paper: str | None = None, kb=None) -> str:
    """An `ask` session transcript (triage.engine.transcript.Transcript, or its document) as one
    offline page: the person's answers, the evidence read from logs and probes, the ranking, and full
    cards only for the causes that earned one. `kb` names answers in words (default: the built-in one)."""
    t = as_transcript(doc)
    if kb is None:
        from triage.kb.base import KnowledgeBase

        kb = KnowledgeBase.load()
    title = f"triage ask: session transcript ({t.status})"
    out = [_transcript_header(t, title), _your_answers_html(t), _read_evidence_html(t, kb)]
    if t.excluded:
        out.append(f"<p class=\"meta\">Ruled out by you (\"not it\"): {esc(', '.join(t.excluded))}</p>\n")
    out.append(_ranking_html(t))
    out.append(_cards_html(t))
    if t.notes:
        out.append("<section>\n<h2 id=\"notes\">Notes</h2>\n<ul>" + "".join(f"<li>{esc(n)}</li>" for n in t.notes) + "</ul>\n</section>\n")
    if t.environment or t.command:
        out.append("<section>\n<h2 id=\"environment\">Environment</h2>\n"
                   f"<pre class=\"knob\">{esc(chr(10).join(env_lines(t.environment)))}</pre>\n"
                   + (f"<p class=\"meta\">command: <code>{esc(t.command)}</code></p>\n" if t.command else "")
                   + "</section>\n")
    out.append(f"<footer>triage {esc(t.triage or __version__)} · a transcript of <code>triage ask</code>; "
               "resume it from the .json saved beside it with <code>triage ask --resume FILE.json</code>.</footer>\n")
    return _document(title, "".join(out), paper)


def _transcript_header(t, title: str) -> str:
    mine = [a for a in t.answers if a.source in _ASKED]
    known = [a for a in mine if a.answer != "unknown"]
    said = f"{len(known)} answer{'' if len(known) == 1 else 's'} from you"
    if len(known) < len(mine):
        said += f", {len(mine) - len(known)} don't know"
    top = t.causes[0] if t.causes else None
    badge = "ok" if t.status in ("done", "finished") else "bad"
    lead = (f"most likely <b>{esc(top.id)}</b> {esc(top.title)} ({_pct(top.probability)})."
            if top else "no candidate cause left.")
    return (f"<header>\n<h1>{esc(title)}</h1>\n"
            f"<p><span class=\"badge {badge}\">{esc(t.status)}</span> {said}; {lead}</p>\n"
            f"<p class=\"meta\">triage {esc(t.triage or __version__)} · started {esc(t.created)} · "
            f"updated {esc(t.updated)} · one self-contained file: no scripts, no network.</p>\n</header>\n")


def _your_answers_html(t) -> str:
    """The answers the person gave (at a prompt or in a file); the log's answers are evidence, not theirs."""
    mine = [a for a in t.answers if a.source in _ASKED]
    out = ["<section>\n<h2 id=\"answers\">Your answers</h2>\n"]
    if mine:
        out.append("<table class=\"grid answers\"><thead><tr><th>#</th><th>question</th><th>your answer</th></tr></thead><tbody>\n")
        for n, a in enumerate(mine, start=1):
            src = "" if a.source == "you" else f" <span class=\"meta\">({esc(_FROM.get(a.source, a.source))})</span>"
            out.append(f"<tr title=\"{esc(a.question)} = {esc(a.answer)}\"><td>{n}</td><td>{esc(a.text)}</td>"
                       f"<td>{esc(a.label)}{src}</td></tr>\n")
        out.append("</tbody></table>\n")
    else:
        out.append("<p class=\"desc\">No question answered yet.</p>\n")
    out.append("</section>\n")
    return "".join(out)


def _read_evidence_html(t, kb) -> str:
    """What logs, probes and error text said, with the question each answers in words."""
    if not t.evidence:
        return ""
    labels = {(a.question, a.answer): (a.text, a.label) for a in t.answers}
    out = ["<section>\n<h2 id=\"evidence\">Read from logs, probes and error text</h2>\n"
           "<table class=\"grid evidence\"><thead><tr><th>what was found</th><th>what it answers</th><th>from</th></tr></thead><tbody>\n"]
    for e in t.evidence:
        if e.question:
            q, label = labels.get((e.question, e.answer), (e.question, e.answer))
            if "|" in str(e.answer):  # several answers at once ("growing|high"): each in words
                label = " or ".join(_answer_label(kb, e.question, v) for v in str(e.answer).split("|"))
            answers_what = f"{q} → {label}"
        else:
            answers_what = f"points to {e.cause}"
        out.append(f"<tr><td>{esc(e.evidence)}</td><td>{esc(answers_what)}</td>"
                   f"<td>{esc(_FROM.get(e.source, e.source))}</td></tr>\n")
    out.append("</tbody></table>\n</section>\n")
    return "".join(out)


def _ranking_html(t) -> str:
    """The ranking with why each cause is there; causes under 0.5% are named in one line."""
    out = ["<section>\n<h2 id=\"ranking\">Ranked causes</h2>\n"]
    if t.causes:
        out.append("<table class=\"grid ranking\"><thead><tr><th>#</th><th>cause</th><th>p</th><th>why</th></tr></thead><tbody>\n")
        shown = [c for c in t.causes if c.probability >= 0.005] or t.causes[:1]
        for c in shown:
            why = "; ".join(c.support) or "no direct evidence yet"
            if c.against:
                why += " · against: " + "; ".join(c.against)
            out.append(f"<tr><td>{esc(c.rank)}</td><td><b>{esc(c.id)}</b> {esc(c.title)}</td>"
                       f"<td>{_pct(c.probability)}</td><td>{esc(why)}</td></tr>\n")
        out.append("</tbody></table>\n")
        faint = [c for c in t.causes if c not in shown]
        if faint:
            out.append(f"<p class=\"meta\">Under 1%: {esc(', '.join(c.id for c in faint))}.</p>\n")
    else:
        out.append("<p class=\"desc\">No candidate cause left.</p>\n")
    out.append("</section>\n")
    return "".join(out)


def _cards_html(t) -> str:
    """A card for each cause that earned one: its evidence for and against, knobs, how to verify."""
    chosen = cards(t)
    if not chosen:
        return ""
    out = ["<section>\n<h2 id=\"fixes\">The knob for the likely causes</h2>\n"]
    for c in chosen:
        out.append(f"<div class=\"cause\" id=\"cause-{esc(c.id)}\">\n<h3>{esc(c.id)} · {esc(c.title)} "
                   f"<span class=\"meta\">{_pct(c.probability)}</span></h3>\n")
        lines = [f"<li>✓ {esc(x)}</li>" for x in c.support] + [f"<li>✗ {esc(x)}</li>" for x in c.against]
        if lines:
            out.append("<ul class=\"evidence checks\">" + "".join(lines) + "</ul>\n")
        out.append(_knobs_html(c.fix))
        facts = [("Verify", c.verify), ("Probes", ", ".join(f"triage probe export {p}" for p in c.probes)),
                 ("If not", f"triage explain {c.next_if_not}" if c.next_if_not else "")]
        out.append(_facts(facts))
        out.append("</div>\n")
    rest = [c for c in t.causes if c not in chosen and c.probability >= 0.005][:5]
    if rest:
        out.append("<p class=\"meta\">Also possible: " + "; ".join(
            f"{esc(c.id)} {esc(c.title)} ({_pct(c.probability)})" for c in rest) + "</p>\n")
    out.append("</section>\n")
    return "".join(out)
