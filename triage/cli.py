"""The `triage` command line: parse arguments, call triage.api, render. No diagnosis logic here.

Exit codes: 0 ok / nothing found, 1 `scan` found problems, 2 usage, input or knowledge error,
130 interrupted. Data goes to stdout, messages to stderr.
"""

from __future__ import annotations

import sys
from enum import IntEnum
from typing import List, Optional

import typer

from triage import __version__


class ExitCode(IntEnum):
    OK = 0
    PROBLEMS = 1
    ERROR = 2
    INTERRUPTED = 130


app = typer.Typer(
    name="triage",
    help=(
        "Tell why a training run is broken and which knob fixes it.\n\n"
        "Start with `triage scan run.log` (read a log), `triage ask` (guided questions) or "
        "`triage explain O9` (one cause, with its fix)."
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
kb_app = typer.Typer(help="Check, list and draw the knowledge base.", no_args_is_help=True)
app.add_typer(kb_app, name="kb", short_help="Check, list and draw the knowledge base.")

_state: dict = {"kb_dirs": []}


def _out():
    from rich.console import Console

    return Console(soft_wrap=False)


def _err():
    from rich.console import Console

    return Console(stderr=True)


def fail(message: str, code: ExitCode = ExitCode.ERROR) -> typer.Exit:
    """Print one line on stderr and return the exit to raise."""
    _err().print(f"[bold red]error:[/] {message}", highlight=False, markup=True, soft_wrap=True)
    return typer.Exit(int(code))


def _kb():
    from triage import api

    try:
        return api.load_kb(_state["kb_dirs"])
    except api.TriageError as exc:
        raise fail(str(exc)) from None


def _progress(message: str):
    """A spinner on stderr while long work runs, only when a person is watching the terminal."""
    import contextlib

    if not sys.stderr.isatty():
        return contextlib.nullcontext()
    return _err().status(message, spinner="dots")


def _print_json(doc) -> None:
    import json

    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"triage {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    kb: Optional[List[str]] = typer.Option(
        None, "--kb", metavar="DIR",
        help="Extra knowledge folder layered over the built-in one (repeatable; also TRIAGE_KB_PATH).",
    ),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    _state["kb_dirs"] = list(kb or [])


# -- explain / search ------------------------------------------------------------------------
@app.command()
def explain(
    node_id: str = typer.Argument(..., metavar="ID", help="A cause (O9, L3, S-nan), question (Q-start) or probe name."),
    as_json: bool = typer.Option(False, "--json", help="Print the node as one JSON document."),
) -> None:
    """Show one node as a card: symptoms, why, the knob with its range, what to expect, what next."""
    from triage import api

    kb = _kb()
    try:
        node = api.explain(kb, node_id)
    except api.UnknownID as exc:
        raise fail(str(exc)) from None
    if as_json:
        from triage.render.card import node_json

        _print_json(node_json(kb, node))
        return
    from triage.render.card import render_node

    render_node(_out(), kb, node)


@app.command()
def search(
    text: List[str] = typer.Argument(..., metavar="TEXT", help="Words, a symptom in plain language, or an error line."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, metavar="N", help="How many results."),
    as_json: bool = typer.Option(False, "--json", help="Print the ranking as one JSON document."),
) -> None:
    """Rank causes and questions by relevance to TEXT (titles, symptoms, mechanisms, knobs, error text)."""
    from triage import api

    kb = _kb()
    query = " ".join(text)
    hits = api.search(kb, query, limit=limit)
    if as_json:
        _print_json({
            "query": query,
            "results": [
                {"id": h.node.id, "kind": h.node.kind, "title": h.node.title, "score": h.score,
                 "matched": h.terms, **({"error_pattern": h.error_match} if h.error_match else {})}
                for h in hits
            ],
        })
        return
    if not hits:
        _err().print(f"nothing in the knowledge base matches {query!r}")
        return
    from rich.table import Table

    table = Table(box=None, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("ID", style="bold", no_wrap=True)
    table.add_column("kind", style="dim")
    table.add_column("title")
    table.add_column("score", justify="right", style="dim")
    for h in hits:
        title = h.node.title + ("  [yellow](error text matches)[/]" if h.error_match else "")
        table.add_row(h.node.id, h.node.kind, title, f"{h.score:.1f}")
    out = _out()
    out.print(table)
    out.print(f"\n[dim]more: triage explain {hits[0].node.id}[/]", highlight=False)


# -- checklist ---------------------------------------------------------------------------------
@app.command()
def checklist(
    name: Optional[str] = typer.Argument(None, metavar="[NAME]", help="Which checklist (leave out to list them)."),
    fmt: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help="text, md (GitHub task list), html (for paper) or pdf."),
    output: Optional[str] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write to FILE (pdf default: NAME.pdf)."),
    paper: Optional[str] = typer.Option(None, "--paper", metavar="SHEET", help="a4 or letter: the sheet for html and pdf (pdf default a4)."),
) -> None:
    """Print a checklist (pre-flight, first 100 steps, post-mortem, one per domain) for the terminal, GitHub or paper."""
    from triage import checklists
    from triage.render.pdf import PdfFailed, PdfUnavailable

    kb = _kb()
    if name is None:
        from rich.table import Table

        table = Table(box=None, header_style="bold", pad_edge=False)
        for col in ("NAME", "items", "title"):
            table.add_column(col, no_wrap=col != "title", style="bold" if col == "NAME" else None)
        for cl in checklists.all_checklists(kb):
            table.add_row(cl.id, str(len(cl.items)), cl.title)
        _out().print(table)
        return
    try:
        cl = checklists.load(kb, name)
        if fmt == "text":
            checklists.print_text(_out(), cl)
            return
        written = checklists.export(cl, fmt, output, paper)
    except (checklists.UnknownChecklist, ValueError, PdfUnavailable, PdfFailed, OSError) as exc:
        raise fail(str(exc).strip("'\"")) from None
    if written is not None:
        _err().print(f"wrote {written}", highlight=False)
# -- end checklist -----------------------------------------------------------------------------


# -- ask ---------------------------------------------------------------------------------------
@app.command()
def ask(
    log: Optional[List[str]] = typer.Option(None, "--log", metavar="PATH", help="A metric log or crash log: questions it answers are not asked (repeatable)."),
    evidence: Optional[List[str]] = typer.Option(None, "--evidence", metavar="FILE", help="A probe result (JSON from `triage probe run`): its answers count as evidence (repeatable)."),
    answers: Optional[str] = typer.Option(None, "--answers", metavar="FILE", help="Replay answers from YAML (`Q-start: nan`, optional `not_it: [IDs]`) without prompts; unlisted questions get \"don't know\"."),
    domain: Optional[str] = typer.Option(None, "--domain", metavar="D", help="What is being trained: llm, dpo, rlhf (grpo, ppo-llm), vision-cls, detection, segmentation, diffusion, rl, vlm, distillation, other."),
    save: Optional[str] = typer.Option(None, "--save", metavar="FILE", help="Save the transcript as .md, .json or .html after every answer (a .md/.html keeps a resumable .json beside it)."),
    resume: Optional[str] = typer.Option(None, "--resume", metavar="FILE", help="Continue a saved session (.json)."),
) -> None:
    """Guided diagnosis: one question at a time until the top cause is clear, then its card and the knob.

    Stops asking when no question would separate the candidates any more, or when the top cause
    holds >= 60% and is >= 3x the runner-up. Ctrl-C saves the session and prints the resume command.
    """
    import shlex

    from triage.engine import session as S
    from triage.engine import transcript

    if not answers and not sys.stdin.isatty():
        raise fail("triage ask needs a terminal to ask questions; replay answers with --answers FILE, or read a log with `triage scan`")
    kb = _kb()
    try:
        if save:
            transcript.check_path(save)
        diag, notes = S.prepare(kb, logs=list(log or []), evidence=list(evidence or []), domain=domain, resume=resume)
        replay = S.load_answers_file(answers, diag.model) if answers else None
    except (S.AskError, transcript.TranscriptError) as exc:
        raise fail(str(exc)) from None
    interactive = replay is None
    prompter = S.QuestionaryPrompter() if interactive else S.AnswersPrompter(replay)
    sess = S.Session(
        kb, prompter, _out(), diagnosis=diag, save=save,
        session_file=S.session_file_for(save, resume, interactive), notes=notes,
        command="triage ask " + shlex.join(sys.argv[2:] if sys.argv[1:2] == ["ask"] else sys.argv[1:]),
    )
    try:
        sess.run()
    except S.SessionInterrupted as exc:
        err = _err()
        err.print("interrupted", highlight=False)
        if exc.path:
            err.print(f"session saved; continue with: triage ask --resume {shlex.quote(exc.path)}", highlight=False, soft_wrap=True)
        raise typer.Exit(int(ExitCode.INTERRUPTED)) from None
    if replay is not None:
        unused = prompter.unused()
        if unused:
            _err().print(f"note: the engine never asked {', '.join(unused)} from {answers} (not reached, or answered by evidence)", highlight=False, soft_wrap=True)
# -- end ask -----------------------------------------------------------------------------------


# -- scan ----------------------------------------------------------------------------------------
def _scan_one(path: str, fmt: Optional[str], kb_dirs: list, describe: Optional[str]) -> dict:
    """Worker for `scan` (top level so --jobs can run it in another process)."""
    from triage import api

    _state["kb_dirs"] = kb_dirs
    try:
        doc = api.scan(path, kb=api.load_kb(kb_dirs), fmt=fmt, describe=describe)
    except api.TriageError as exc:
        return {"error": str(exc), "sources": [{"path": path}]}
    except OSError as exc:
        return {"error": f"{path}: {exc.strerror or exc}", "sources": [{"path": path}]}
    from triage.render.scan import summary_line

    out = api.public(doc)
    out["_summary"] = summary_line(doc)
    return out


@app.command()
def scan(
    paths: List[str] = typer.Argument(..., metavar="PATH...", help="Log files or run folders; '-' reads stdin. A probe result JSON works too."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", metavar="FORMAT", help="Force the log format instead of sniffing it (see `triage inspect --help`)."),
    as_json: bool = typer.Option(False, "--json", help="Print exactly one JSON document (an array for several paths)."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, metavar="N", help="Scan several paths in parallel."),
    describe: Optional[str] = typer.Option(None, "--describe", "-d", metavar="TEXT", help="Add what you see in plain words, e.g. 'DPO margins stuck at zero'."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show every ranked cause, and full views for several paths."),
    report: Optional[str] = typer.Option(None, "--report", metavar="FILE", help="Also write a shareable report: FILE.html (offline, with charts) or FILE.md."),
    merge: bool = typer.Option(False, "--merge", help="The PATHs are one run split over files (e.g. a resumed job): scan them as one."),
) -> None:
    """Read training logs, run the detectors, match error text and rank the likely causes.

    Exit status: 0 healthy, 1 problems found, 2 unreadable input or bad usage.
    """
    from triage import api

    kb = _kb()
    if report and not report.lower().endswith((".html", ".htm", ".md", ".markdown")):
        raise fail(f"--report {report}: use a .html or .md file name")
    if "-" in paths and len(paths) > 1:
        raise fail("'-' (stdin) can only be scanned on its own")
    merged = None
    if merge and len(paths) > 1:
        try:
            runs = [api.read_input(p, fmt)[0] for p in paths]
        except api.TriageError as exc:
            raise fail(str(exc)) from None
        merged = api.merge_runs(runs)
        paths = [merged.path]
    if len(paths) == 1:
        path = paths[0]
        try:
            with _progress(f"reading {path} and running the detectors"):
                doc = api.scan(path, kb=kb, fmt=fmt, describe=describe, run=merged)
        except api.TriageError as exc:
            raise fail(str(exc)) from None
        except OSError as exc:
            raise fail(f"{path}: {exc.strerror or exc}") from None
        if as_json:
            _print_json(api.public(doc))
        else:
            from triage.render.scan import render_scan

            render_scan(_out(), doc, verbose=verbose)
        if report:
            try:
                written = api.write_report(doc, report, kb=kb)
            except (api.TriageError, OSError) as exc:
                raise fail(str(exc)) from None
            _err().print(f"report written to {written}", highlight=False)
        raise typer.Exit(int(ExitCode.OK if doc["healthy"] else ExitCode.PROBLEMS))

    if report:
        raise fail("--report takes one PATH (scan the runs one by one to get one report each)")
    docs: list = [None] * len(paths)
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(jobs, len(paths))) as pool:
            futures = {pool.submit(_scan_one, p, fmt, _state["kb_dirs"], describe): i for i, p in enumerate(paths)}
            for fut, i in futures.items():
                docs[i] = fut.result()
    else:
        docs = [_scan_one(p, fmt, _state["kb_dirs"], describe) for p in paths]
    errors = [d for d in docs if "error" in d]
    if as_json:
        _print_json([{k: v for k, v in d.items() if not k.startswith("_")} for d in docs])
    else:
        out = _out()
        for d in docs:
            if "error" in d:
                _err().print(f"[bold red]error:[/] {d['error']}", highlight=False)
            else:
                style = "green" if d["healthy"] else "red"
                out.print(f"[{style}]{'ok ' if d['healthy'] else 'bad'}[/] {d['_summary']}", highlight=False, soft_wrap=True)
    if errors:
        raise typer.Exit(int(ExitCode.ERROR))
    raise typer.Exit(int(ExitCode.OK if all(d["healthy"] for d in docs) else ExitCode.PROBLEMS))


# -- inspect (log readers, issue 3) ----------------------------------------------------------------
class _ListsFormats(typer.core.TyperCommand):
    """A command whose help lists the log formats from the reader registry. The registry imports
    every reader (numpy included), so the list is made when the help is shown, not at start-up."""

    def format_help(self, ctx, formatter) -> None:
        from triage.ingest.registry import format_option_help, formats_epilog

        for param in self.params:
            if param.name == "fmt":
                param.help = format_option_help()
        self.epilog = formats_epilog()
        super().format_help(ctx, formatter)


@app.command(cls=_ListsFormats)
def inspect(
    paths: List[str] = typer.Argument(..., metavar="PATH...", help="Log files or run folders; '-' reads stdin."),
    fmt: Optional[str] = typer.Option(
        None, "--format", "-f", metavar="FORMAT",
        help="Force the format instead of sniffing it (the formats are listed below).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print what was read as one JSON document."),
) -> None:
    """Show what the log readers found: format, rows, steps, and each metric's first/last/min/max/NaN."""
    from triage.ingest import IngestError, read_run

    if "-" in paths and len(paths) > 1:
        raise fail("'-' (stdin) can only be inspected on its own")
    from triage.engine.evidence import is_probe_result

    runs = []
    probes = []  # probe results are shown as verdicts, not as a one-row metrics log
    for p in paths:
        probe = is_probe_result(p) if fmt is None else None
        if probe is not None:
            probes.append({"path": p, "format": "probe-result", "probe": probe.get("probe"),
                           "status": probe.get("status"), "message": probe.get("message"),
                           "answers": probe.get("answers")})
            continue
        try:
            runs.append(read_run(p, fmt))
        except IngestError as exc:
            raise fail(str(exc)) from None
    if as_json:
        from triage.render.inspect import inspect_json

        doc = inspect_json(runs)
        if probes:
            doc["probes"] = probes
        _print_json(doc)
        return
    from rich.markup import escape

    from triage.render.inspect import inspect_table

    console = _out()
    for pr in probes:
        answers = ", ".join(f"{k}={v}" for k, v in (pr["answers"] or {}).items()) or "no answers"
        console.print(f"[bold]{escape(str(pr['path']))}[/]  probe result: {escape(str(pr['probe']))} "
                      f"[bold]{escape(str(pr['status']))}[/] ({escape(answers)})"
                      + (f"\n  {escape(str(pr['message']))}" if pr.get("message") else ""), highlight=False)
    if runs:
        inspect_table(runs, console)
# -- end inspect -----------------------------------------------------------------------------------


# -- watch ---------------------------------------------------------------------------------------
@app.command()
def watch(
    path: str = typer.Argument(..., metavar="PATH", help="The log file a running job is writing."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", metavar="FORMAT", help="Force the log format instead of sniffing it (see `triage inspect --help`)."),
    interval: float = typer.Option(2.0, "--interval", min=0.05, metavar="SECONDS", help="Seconds between checks (more on big files)."),
    stop_after: Optional[float] = typer.Option(None, "--stop-after", min=0.0, metavar="SECONDS", help="Stop after this many seconds (for scripts)."),
) -> None:
    """Follow a live log: report each new finding once, and a summary with the likely causes on Ctrl-C.

    Exit status: 0 nothing found, 1 findings, 2 the file cannot be read.
    """
    import os
    import time

    from triage.engine.watch import Watcher

    kb = _kb()
    if path == "-":
        raise fail("watch needs a file path (it re-reads the file as it grows); use `triage scan -` for stdin")
    if not os.path.exists(path):
        raise fail(f"{path}: no such file (start the job first, or check the path)")
    out = _out()
    err = _err()
    watcher = Watcher(path, kb, fmt=fmt, interval=interval)
    err.print(f"[dim]watching {path} (Ctrl-C for the summary)[/]", highlight=False)
    start = time.monotonic()
    interrupted = False
    try:
        while True:
            for f in watcher.poll():
                where = f" [dim](step {f.first_step:g})[/]" if f.first_step is not None else ""
                out.print(f"[red]●[/] {f.summary}{where}", highlight=False)
            if stop_after is not None and time.monotonic() - start >= stop_after:
                break
            time.sleep(watcher.wait_time())
    except KeyboardInterrupt:
        interrupted = True
    findings = watcher.findings()
    st = watcher.state
    if st.reads == 0:
        raise fail(f"{path}: could not be read as a training log")
    err.print(f"\n[bold]summary[/]: {st.rows:,} rows read {st.reads} time(s), {len(findings)} finding(s)", highlight=False)
    if findings:
        from triage import api

        doc = api.scan(path, kb=kb, run=watcher.run)  # the same ranking scan gives, on what was read last
        for c in doc["causes"][:3]:
            out.print(f"  [bold cyan]{c['id']}[/]  {c['title']}  [dim]triage explain {c['id']}[/]", highlight=False)
    if interrupted:
        raise typer.Exit(int(ExitCode.INTERRUPTED))
    raise typer.Exit(int(ExitCode.PROBLEMS if findings else ExitCode.OK))


# -- probe ---------------------------------------------------------------------------------------
probe_app = typer.Typer(
    help="Standalone checks to run against your own training code (list, show, export, run).",
    no_args_is_help=True,
)
app.add_typer(probe_app, name="probe", short_help="Scripts for the GPU box that answer what logs cannot.")


def _probe_error(exc) -> typer.Exit:
    return fail(str(exc))


@probe_app.command("list")
def probe_list(as_json: bool = typer.Option(False, "--json", help="Print the probes as one JSON document.")) -> None:
    """List the probes, what each checks and which questions its result answers."""
    from triage import probes

    infos = probes.list_probes(_state["kb_dirs"])
    if as_json:
        _print_json([{"name": i.name, "title": i.title, "checks": i.checks, "needs": i.needs, "answers": i.answers}
                     for i in infos])
        return
    from rich.table import Table

    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column("probe", style="bold", no_wrap=True)
    table.add_column("title")
    table.add_column("answers", style="dim")
    for i in infos:
        table.add_row(i.name, i.title, ", ".join(i.answers))
    out = _out()
    out.print(table)
    out.print("\n[dim]more: triage probe show NAME; run: triage probe run NAME --setup FILE.py:FUNC[/]", highlight=False)


@probe_app.command("show")
def probe_show(
    name: str = typer.Argument(..., metavar="NAME", help="A probe name from `triage probe list`."),
    as_json: bool = typer.Option(False, "--json", help="Print the probe as one JSON document."),
) -> None:
    """What a probe checks, what its setup needs, which questions it answers, and how to run it."""
    from triage import probes

    try:
        info = probes.get(name, _state["kb_dirs"])
    except probes.ProbeError as exc:
        raise _probe_error(exc) from None
    if as_json:
        _print_json({"name": info.name, "title": info.title, "checks": info.checks, "needs": info.needs,
                     "optional": info.optional, "answers": info.answers, "script": str(info.path), "usage": info.usage})
        return
    out = _out()
    out.print(f"[bold]{info.name}[/] - {info.title}", highlight=False, soft_wrap=True)
    out.print(f"checks:  {info.checks}", highlight=False, markup=False, soft_wrap=True)
    out.print(f"needs:   {', '.join(info.needs) or '-'} (keys of the dict make_setup() returns)", highlight=False, markup=False, soft_wrap=True)
    if info.optional:
        out.print(f"uses:    {', '.join(info.optional)} when present", highlight=False, markup=False, soft_wrap=True)
    out.print(f"answers: {', '.join(info.answers) or '-'}", highlight=False, markup=False, soft_wrap=True)
    out.print(f"script:  {info.path}", highlight=False, markup=False, soft_wrap=True)
    out.print(f"run:     triage probe run {info.name} --setup my_setup.py:make_setup --out {info.name}.json", highlight=False, markup=False, soft_wrap=True)
    out.print(f"  or, without triage: python probe_{info.name}.py --setup my_setup.py:make_setup --out {info.name}.json"
              f"   (triage probe export {info.name})", highlight=False, markup=False, soft_wrap=True)


@probe_app.command("export")
def probe_export(
    name: str = typer.Argument("all", metavar="NAME", help="A probe name, or 'all' (default) for every probe."),
    dest: str = typer.Option(".", "--output", "-o", metavar="DIR", help="Folder to copy the standalone script(s) into."),
) -> None:
    """Copy standalone probe script(s) (stdlib + torch only) to carry to the GPU box."""
    from triage import probes

    try:
        paths = probes.export(name, dest)
    except probes.ProbeError as exc:
        raise _probe_error(exc) from None
    except OSError as exc:
        raise fail(f"cannot write to {dest}: {exc.strerror or exc}") from None
    for p in paths:
        sys.stdout.write(f"{p}\n")


@probe_app.command("run")
def probe_run(
    name: str = typer.Argument(..., metavar="NAME", help="A probe name from `triage probe list`."),
    setup: str = typer.Option(..., "--setup", metavar="FILE:FUNC", help="Python file and function returning the setup dict."),
    out: Optional[str] = typer.Option(None, "--out", metavar="FILE", help="Write the JSON result here (feed it to `triage scan` or `triage ask --evidence`)."),
    max_steps: Optional[int] = typer.Option(None, "--max-steps", min=0, metavar="N", help="Step budget (each probe has its own default)."),
    timeout: Optional[float] = typer.Option(None, "--timeout", min=1, metavar="S", help="Seconds before the probe gives up (default 300)."),
    device: Optional[str] = typer.Option(None, "--device", metavar="DEVICE", help="Override the device (default: setup['device'], else cuda if available, else cpu)."),
) -> None:
    """Run one probe on your setup in a subprocess, exactly as `python probe_NAME.py` would on the GPU box.

    Exit status: 0 pass or inconclusive, 1 the probe found a problem, 2 setup or probe error.
    """
    from triage import probes

    try:
        outcome = probes.run(name, setup, out=out, max_steps=max_steps, timeout=timeout, device=device)
    except probes.ProbeError as exc:
        raise _probe_error(exc) from None
    if outcome.returncode not in (0, 1):
        raise typer.Exit(int(ExitCode.ERROR))  # the script already printed its one-line error
    if outcome.result is None:
        raise fail(f"probe {name} wrote no result")
    if outcome.out is not None:
        _err().print(f"result written to {outcome.out}", highlight=False, soft_wrap=True)
    raise typer.Exit(int(ExitCode.PROBLEMS if outcome.result["status"] == "fail" else ExitCode.OK))
# -- end probe -----------------------------------------------------------------------------------


# -- kb ----------------------------------------------------------------------------------------
@kb_app.command("check")
def kb_check(
    as_json: bool = typer.Option(False, "--json", help="Print problems as one JSON document."),
) -> None:
    """Validate every node: schema, IDs, links, reachability, cycles, knobs, fixtures, regexes."""
    from triage.kb.base import KnowledgeBase
    from triage.kb.validate import check

    kb = KnowledgeBase.load(_state["kb_dirs"], use_cache=False)
    problems = check(kb)
    errors = [p for p in problems if p.severity == "error"]
    warnings = [p for p in problems if p.severity != "error"]
    if as_json:
        _print_json({
            "ok": not errors,
            "nodes": len(kb.nodes),
            "problems": [{"path": p.path, "line": p.line, "id": p.node, "severity": p.severity, "message": p.message} for p in problems],
        })
    else:
        err = _err()
        for p in problems:
            err.print(p.format(), highlight=False, markup=False, soft_wrap=True)
        counts: dict[str, int] = {}
        for node in kb.nodes.values():
            counts[node.kind] = counts.get(node.kind, 0) + 1
        summary = ", ".join(f"{n} {k}s" for k, n in sorted(counts.items()))
        verdict = "ok" if not errors else f"{len(errors)} error(s)"
        extra = f", {len(warnings)} warning(s)" if warnings else ""
        err.print(f"{verdict}{extra}: {summary}", highlight=False)
    if errors:
        raise typer.Exit(int(ExitCode.ERROR))


@kb_app.command("list")
def kb_list(
    kind: Optional[str] = typer.Option(None, "--kind", metavar="KIND", help="Only this kind: cause, symptom, detector, probe, checklist."),
    as_json: bool = typer.Option(False, "--json", help="Print the list as one JSON document."),
) -> None:
    """List every node with its kind, family and title."""
    kb = _kb()
    nodes = sorted(kb.nodes.values(), key=lambda n: (n.kind, n.id))
    if kind:
        nodes = [n for n in nodes if n.kind == kind]
    if as_json:
        _print_json([
            {"id": n.id, "kind": n.kind, "family": n.get("family"), "title": n.title,
             "domains": [str(d) for d in (n.get("domains") or [])], "path": n.path}
            for n in nodes
        ])
        return
    from rich.table import Table

    table = Table(box=None, header_style="bold", pad_edge=False)
    for col in ("ID", "kind", "family", "title"):
        table.add_column(col, no_wrap=col != "title", style="bold" if col == "ID" else None)
    for n in nodes:
        table.add_row(n.id, n.kind, str(n.get("family") or ""), n.title)
    _out().print(table)


@kb_app.command("graph")
def kb_graph(
    fmt: str = typer.Option("mermaid", "--format", "-f", metavar="FORMAT", help="mermaid, dot or json."),
) -> None:
    """Print the decision graph (questions -> follow-ups -> causes) for drawing or tooling."""
    from triage import api

    if fmt not in ("mermaid", "dot", "json"):
        raise fail(f"unknown graph format {fmt!r}: use mermaid, dot or json")
    sys.stdout.write(api.graph(_kb()).dumps(fmt))


# -- help listing: the order a person reaches for them, one short line each -------------------
_SHORT = {
    "scan": "Read logs, find problems, rank the likely causes.",
    "ask": "Guided questions that end at the knob.",
    "watch": "Follow a live log and report new findings.",
    "inspect": "Show what was read from a log.",
    "explain": "One cause as a card: why, knob, expect, next.",
    "search": "Find causes by words or an error line.",
    "checklist": "Printable pre-flight and per-domain checklists.",
}
_ORDER = list(_SHORT)


def _command_name(info) -> str:
    return info.name or (info.callback.__name__.replace("_", "-") if info.callback else "")


for _info in app.registered_commands:
    if _command_name(_info) in _SHORT and not _info.short_help:
        _info.short_help = _SHORT[_command_name(_info)]
app.registered_commands.sort(key=lambda i: _ORDER.index(_command_name(i)) if _command_name(i) in _ORDER else len(_ORDER))


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        _err().print("interrupted")
        sys.exit(int(ExitCode.INTERRUPTED))
    except BrokenPipeError:  # `triage kb list | head`
        sys.stderr.close()
        sys.exit(0)
