"""`triage mcp`: the diagnosis as Model Context Protocol tools, over stdio, for coding agents.

Built on the official MCP Python SDK (`pip install 'triage[mcp]'`), imported only when the
server starts, so `triage` itself never pays for it. Tools (each returns one JSON object):

* ``scan(path)`` -- the `triage scan --json` document of one log, run folder or probe result;
* ``explain(node_id)`` -- one knowledge node (`triage explain ID --json`);
* ``search(text)`` -- nodes ranked by relevance to words or an error line;
* ``diff(good, bad)`` -- `triage diff --json` (with ``tolerance``: the regression gate too);
* ``ask_step(answers, ...)`` -- the guided diagnosis one step at a time, without state: give
  the answers so far (question ID -> answer), get the next question with its answer values,
  or, when the engine would stop asking, the final ranking with the knobs. It replays the
  answers exactly as `triage ask --answers FILE` does, so both give the same questions.

Paths are read with the permissions of the user who started the server, as the CLI would.
"""

from __future__ import annotations

from typing import Any

from triage.errors import TriageError

INSTALL_HINT = "`triage mcp` needs the MCP Python SDK: pip install 'triage[mcp]' (or: pip install mcp)"

INSTRUCTIONS = (
    "triage diagnoses broken deep-learning training runs from their logs. Start with `scan` on a log file "
    "or run folder; `explain` a cause ID from its ranking to get the knob to turn; `diff` compares a broken run "
    "with the last good one; `ask_step` walks the guided questions when the logs do not settle it (pass back "
    "every answer so far each time)."
)


class SDKMissing(TriageError, RuntimeError):
    """The `mcp` package is not installed (one line for the user, exit code 2)."""


class ToolFailure(TriageError):
    """A user-facing tool error (bad path, unknown ID): becomes the tool's error message."""


# -- the tools, as plain functions (tested without the SDK as well) --------------------------------
class Tools:
    """The work behind each MCP tool; the knowledge base is loaded once per server."""

    def __init__(self, kb_dirs: list[str] | None = None):
        self.kb_dirs = list(kb_dirs or [])
        self._kb = None

    @property
    def kb(self):
        if self._kb is None:
            from triage import api

            try:
                self._kb = api.load_kb(self.kb_dirs)
            except api.TriageError as exc:
                raise ToolFailure(str(exc)) from None
        return self._kb

    def scan(self, path: str, format: str | None = None, describe: str | None = None) -> dict[str, Any]:
        from triage import api

        if path == "-":
            raise ToolFailure("scan reads a file or run folder; stdin is the protocol's own channel here")
        try:
            doc = api.scan(path, kb=self.kb, fmt=format, describe=describe)
        except api.TriageError as exc:
            raise ToolFailure(str(exc)) from None
        except OSError as exc:
            raise ToolFailure(f"{path}: {exc.strerror or exc}") from None
        return api.public(doc)

    def explain(self, node_id: str) -> dict[str, Any]:
        from triage import api
        from triage.render.card import node_json

        try:
            node = api.explain(self.kb, node_id)
        except api.UnknownID as exc:
            raise ToolFailure(str(exc)) from None
        return node_json(self.kb, node)

    def search(self, text: str, limit: int = 10) -> dict[str, Any]:
        from triage import api

        if not str(text).strip():
            raise ToolFailure("search needs some words, a symptom or an error line")
        hits = api.search(self.kb, text, limit=max(1, min(int(limit), 50)))
        return {"query": text, "results": [
            {"id": h.node.id, "kind": h.node.kind, "title": h.node.title, "score": h.score, "matched": h.terms,
             **({"error_pattern": h.error_match} if h.error_match else {})} for h in hits]}

    def diff(self, good: str, bad: str, tolerance: str | None = None, window: int = 20,
             metrics: list[str] | None = None) -> dict[str, Any]:
        from triage import api
        from triage.engine.diff import DiffError

        try:
            doc = api.diff(good, bad, kb=self.kb, tolerance=tolerance, window=window, metrics=metrics)
        except (DiffError, api.TriageError) as exc:
            raise ToolFailure(str(exc)) from None
        return api.public(doc)

    def ask_step(self, answers: dict[str, str] | None = None, not_it: list[str] | None = None,
                 logs: list[str] | None = None, domain: str | None = None) -> dict[str, Any]:
        return ask_step(self.kb, answers or {}, not_it or [], logs or [], domain)


class _NextQuestion(Exception):
    """Raised by the step prompter at the first question the answers so far do not cover."""

    def __init__(self, question: str):
        super().__init__(question)
        self.question = question


def _step_prompter(replay):
    """An `ask --answers` prompter that stops at the first question the answers do not cover
    (instead of answering it "don't know"), so the caller can ask it."""
    from triage.engine.session import AnswersPrompter

    class StepPrompter(AnswersPrompter):
        def ask(self, question: str, message: str, options: list) -> str:
            if question in self.replay.answers:
                return super().ask(question, message, options)
            raise _NextQuestion(question)

    return StepPrompter(replay)


def ask_step(kb, answers: dict, not_it: list, logs: list, domain: str | None) -> dict[str, Any]:
    """One stateless step of `triage ask`: the real session (triage.engine.session) replays
    `answers` and `not_it` as `triage ask --answers FILE` would, and stops at the first question
    they do not cover; without one, the session's final ranking is the answer."""
    from triage.engine import session as S
    from triage.engine.diagnosis import UNKNOWN

    if not isinstance(answers, dict):
        raise ToolFailure("answers must map question IDs to answers, e.g. {\"Q-start\": \"nan\"}")
    try:
        diag, notes = S.prepare(kb, logs=[str(p) for p in logs], domain=domain)
        model = diag.model
        replay = S.Replay(path="answers")
        for qid, raw in answers.items():
            qid = str(qid)
            if qid not in model.questions:
                raise S._unknown_question(model, qid, "answers")
            replay.answers[qid] = S._answer_value(model, qid, raw, "answers")
        causes = {c.id for c in model.causes}
        for cid in not_it:
            if str(cid) not in causes:
                raise S.AskError(f"not_it names {cid!r}, which is not a cause")
            replay.not_it.append(str(cid))
    except S.AskError as exc:
        raise ToolFailure(str(exc)) from None
    prompter = _step_prompter(replay)
    session = S.Session(kb, prompter, S.QuietDisplay(), diagnosis=diag, notes=notes)
    question, final = None, []
    try:
        outcome = session.run()
        final = outcome.top
    except _NextQuestion as stop:
        question = stop.question
    out: dict[str, Any] = {
        "done": question is None,
        "answered": [diag.answers[q].to_dict() for q in diag.order],
        "ranking": _ranking(diag, final if question is None else diag.ranking(limit=5, with_evidence_only=True),
                            final=question is None),
        "unused": prompter.unused(),
        "excluded": sorted(diag.excluded),
        "notes": notes,
    }
    if question is not None:
        node = model.questions[question]
        out["question"] = {
            "id": question,
            "question": node.title,
            "help": str(node.get("help") or "").strip(),
            "answers": [{"value": v, "label": model.labels[question].get(v, v)} for v in model.values[question]],
            "dont_know": UNKNOWN,
        }
        if getattr(S, "NOT_APPLICABLE", None):
            out["question"]["not_applicable"] = S.NOT_APPLICABLE
        out["how"] = ("call ask_step again with every answer so far plus {\"" + question + "\": <one of the values>} "
                      "(\"unknown\" for don't know, \"n/a\" when it does not apply)")
    else:
        out["how"] = "the top cause's fix is the knob to turn; if it was not that, call again with its ID in not_it"
    return out


def _ranking(diag, candidates: list, final: bool) -> list[dict]:
    """The differential: while asking, the candidates with evidence for them; at the end, the
    session's final causes with their fixes."""
    from triage.engine.frameworks import fix_entries

    out = []
    for c in candidates:
        row = {"id": c.id, "title": c.node.title, "probability": round(c.probability, 4), "evidence": c.support}
        if final:
            row["fix"] = fix_entries(c.node, diag)
            row["verify"] = str(c.node.get("verify") or "").strip()
            row["next_if_not"] = c.node.get("next_if_not")
        out.append(row)
    return out


# -- the server ----------------------------------------------------------------------------------
def build(kb_dirs: list[str] | None = None):
    """The MCP server with triage's tools (raises SDKMissing without the SDK)."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError:
        raise SDKMissing(INSTALL_HINT) from None
    from triage import __version__

    tools = Tools(kb_dirs)
    server = MCPServer("triage", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING")

    def guarded(fn):
        def call(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except ToolFailure as exc:
                raise ToolError(str(exc)) from None
        return call

    @server.tool(description="Diagnose one training log, run folder or probe result: findings from the detectors, "
                             "ranked likely causes with the knob to turn, and questions still worth answering "
                             "(the `triage scan --json` document).")
    def scan(path: str, format: str | None = None, describe: str | None = None) -> dict[str, Any]:
        return guarded(tools.scan)(path, format, describe)

    @server.tool(description="One knowledge node by ID (a cause such as O9 or S-nan, a question such as Q-start, a "
                             "detector or probe): symptoms, mechanism, fix knobs with ranges and expected effect.")
    def explain(node_id: str) -> dict[str, Any]:
        return guarded(tools.explain)(node_id)

    @server.tool(description="Rank causes and questions by relevance to words, a symptom in plain language, or an "
                             "error line.")
    def search(text: str, limit: int = 10) -> dict[str, Any]:
        return guarded(tools.search)(text, limit)

    @server.tool(description="Compare a broken run with the last good one: the first step where they part beyond "
                             "their own noise, which metric parted first, the config differences and the ranked "
                             "causes. With tolerance (e.g. '5%' or 'abs=0.02'), also a regression gate.")
    def diff(good: str, bad: str, tolerance: str | None = None, window: int = 20,
             metrics: list[str] | None = None) -> dict[str, Any]:
        return guarded(tools.diff)(good, bad, tolerance, window, metrics)

    @server.tool(description="The guided diagnosis, one stateless step: pass every answer so far "
                             "({question ID: answer value}) and optionally logs, a domain and causes ruled out "
                             "(not_it); get the next question with its answer values, or done=true with the final "
                             "ranking and fixes.")
    def ask_step(answers: dict[str, str] | None = None, not_it: list[str] | None = None,
                 logs: list[str] | None = None, domain: str | None = None) -> dict[str, Any]:
        return guarded(tools.ask_step)(answers, not_it, logs, domain)

    return server


def serve(kb_dirs: list[str] | None = None) -> None:
    """Run the server on stdin/stdout until the client closes the connection."""
    build(kb_dirs).run("stdio")
