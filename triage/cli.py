"""The `triage` command line: parse arguments, call triage.api, render. No diagnosis logic here.

Exit codes: 0 ok / nothing found, 1 `scan` found problems, 2 usage, input or knowledge error,
3 `scan` read the input but found nothing to diagnose in it (no metric, no error line),
130 interrupted, 143 terminated (SIGTERM or SIGHUP). Data goes to stdout, messages to stderr.
"""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from triage import __version__
from triage.errors import ExitCode, TriageError


class _Commands(typer.core.TyperGroup):
    """The app's command group: the one place a user-facing error becomes output. Every such error
    is a TriageError (triage.errors), raised wherever it happens; here it is printed as one line on
    stderr and the program ends with the exit code it carries."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except TriageError as exc:
            _error_line(exc.one_line)
            raise typer.Exit(int(exc.exit_code)) from None


app = typer.Typer(
    cls=_Commands,
    name="triage",
    help=(
        "Tell why a training run is broken and which knob fixes it.\n\n"
        "Start with `triage scan run.log` (read a log), `triage ask` (guided questions) or "
        "`triage explain O9` (one cause, with its fix).\n\n"
        "Exit status: 0 ok (healthy, nothing found), 1 problems found (scan, sweep, watch, diff, "
        "probe run) or nothing matched (search), 2 bad usage, unreadable input or a knowledge error, "
        "3 nothing read (scan), 130 interrupted, 143 terminated. Each command's --help says which it uses."
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
    """stdout: laid out for a terminal, one line per item in a pipe, no trailing blanks."""
    from triage.render.console import out_console

    return out_console()


def _err():
    from rich.console import Console

    return Console(stderr=True)


def _error_line(message: str) -> None:
    """`error: MESSAGE` on stderr, the message as written (a path with brackets is not markup)."""
    from rich.text import Text

    _err().print(Text.assemble(("error:", "bold red"), " ", message), highlight=False, soft_wrap=True)


def _kb():
    from triage import api

    return api.load_kb(_state["kb_dirs"])


def _progress(message: str):
    """A spinner on stderr while long work runs, only when a person is watching the terminal."""
    import contextlib

    if not sys.stderr.isatty():
        return contextlib.nullcontext()
    return _err().status(message, spinner="dots")


def _print_json(doc) -> None:
    import json

    text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a log: escaped, not a crash
        text = json.dumps(doc, indent=2, ensure_ascii=True) + "\n"
    sys.stdout.write(text)


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
    from triage.kb.loader import use_roots  # stdlib only: cheap at start-up

    use_roots(_state["kb_dirs"])  # `inspect` and `watch` read logs without loading the knowledge


# -- explain / search ------------------------------------------------------------------------
@app.command()
def explain(
    node_id: str = typer.Argument(..., metavar="ID", help="A cause (O9, L3, S-nan), question (Q-start) or probe name."),
    as_json: bool = typer.Option(False, "--json", help="Print the node as one JSON document."),
) -> None:
    """Show one node as a card: symptoms, why, the knob with its range, what to expect, what next.

    Exit status: 0 shown, 2 unknown ID or a knowledge error.
    """
    from triage import api

    kb = _kb()
    node = api.explain(kb, node_id)
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
    """Rank causes and questions by relevance to TEXT (titles, symptoms, mechanisms, knobs, error text).

    Exit status: 0 something matched, 1 nothing matched (like grep), 2 a knowledge error.
    """
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
        _err().print(f"nothing in the knowledge base matches {query!r}; try other words, a metric name "
                     "or an error line (`triage kb list` lists every node)", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(int(ExitCode.PROBLEMS))
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
    force: bool = typer.Option(False, "--force", help="Replace the output file if it exists."),
) -> None:
    """Print a checklist (pre-flight, first 100 steps, post-mortem, one per domain) for the terminal, GitHub or paper.

    Exit status: 0 printed or written, 2 unknown checklist, format or paper, a file that cannot be
    written, or no browser for pdf.
    """
    from triage import checklists

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
    cl = checklists.load(kb, name)
    if fmt == "text":
        checklists.print_text(_out(), cl)
        return
    written = checklists.export(cl, fmt, output, paper, force=force)
    if written is not None:
        _err().print(f"wrote {written}", highlight=False)
# -- end checklist -----------------------------------------------------------------------------


# -- ask ---------------------------------------------------------------------------------------
@app.command()
def ask(
    log: Optional[List[str]] = typer.Option(None, "--log", metavar="PATH", help="A metric log or crash log: questions it answers are not asked (repeatable)."),
    evidence: Optional[List[str]] = typer.Option(None, "--evidence", metavar="FILE", help="A probe result (JSON from `triage probe run`): its answers count as evidence (repeatable)."),
    answers: Optional[str] = typer.Option(None, "--answers", metavar="FILE", help="Replay answers from YAML (`Q-start: nan`, optional `not_it: [IDs]`, `text: <error line>`, `n/a`) without prompts; all are known up front, unlisted questions get \"don't know\"."),
    domain: Optional[str] = typer.Option(None, "--domain", metavar="D", help="What is being trained: llm, dpo, rlhf (grpo, ppo-llm), vision-cls, detection, segmentation, diffusion, rl, vlm, distillation, other."),
    save: Optional[str] = typer.Option(None, "--save", metavar="FILE", help="Save the transcript as .md, .json or .html after every answer (a .md/.html keeps a resumable .json beside it)."),
    resume: Optional[str] = typer.Option(None, "--resume", metavar="FILE", help="Continue a saved session (.json)."),
) -> None:
    """Guided diagnosis: one question at a time until the top cause is clear, then its card and the knob.

    What you see, the domain, the training mode and the framework come first (unless a log or
    config settles them). Every prompt also takes "not applicable" and free text (paste an error
    line or describe it). Stops asking when no question would separate the candidates any more, or
    when the top cause holds >= 60%, is >= 3x the runner-up and rests on specific evidence.
    Ctrl-C saves the session and prints the resume command.
    Exit status: 0 the session ended (finished or quit), 2 bad usage, an unreadable log, evidence,
    answers or session file, or no terminal without --answers, 130 interrupted (saved).
    """
    import shlex

    from triage.engine import session as S
    from triage.engine import transcript

    if not answers and not sys.stdin.isatty():
        raise TriageError("triage ask needs a terminal to ask questions; replay answers with --answers FILE, or read a log with `triage scan`")
    kb = _kb()
    if save:
        transcript.check_path(save)
    diag, notes = S.prepare(kb, logs=list(log or []), evidence=list(evidence or []), domain=domain, resume=resume)
    replay = S.load_answers_file(answers, diag.model) if answers else None
    interactive = replay is None
    from triage.render import transcript as transcript_files
    from triage.render.session import QuestionaryPrompter, RichDisplay

    prompter = QuestionaryPrompter() if interactive else S.AnswersPrompter(replay)
    sess = S.Session(
        kb, prompter, RichDisplay(_out()), diagnosis=diag, save=save, writer=transcript_files.write,
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
def _scan_one(path: str, fmt: Optional[str], kb_dirs: list, describe: Optional[str], full: bool = False) -> dict:
    """Worker for `scan` (top level so --jobs can run it in another process). `full` keeps the
    private keys the full view draws from (in this process only)."""
    from triage import api
    from triage.engine.report import Report

    _state["kb_dirs"] = kb_dirs
    try:
        report = api.scan(path, kb=api.load_kb(kb_dirs), fmt=fmt, describe=describe)
    except api.NothingRead as exc:
        return Report.failed(path, str(exc), "nothing read").to_json()
    except api.TriageError as exc:
        return Report.failed(path, str(exc)).to_json()
    except OSError as exc:
        return Report.failed(path, f"{path}: {exc.strerror or exc}").to_json()
    except (RecursionError, MemoryError, ValueError) as exc:  # one bad input never stops the batch
        import os

        if os.environ.get("TRIAGE_DEBUG"):
            raise
        return Report.failed(path, f"{path}: cannot scan ({type(exc).__name__}: {exc})").to_json()
    from triage.render.scan import summary_line

    out = _gate_doc(report)
    out["_summary"] = summary_line(report)
    if full:
        out["_report"] = report  # the full view draws from it (in this process only)
    return out


def _gate_doc(report) -> dict:
    """A report's JSON plus the error matches --fail-on reads (`_errors`, never printed)."""
    out = report.to_json()
    out["_errors"] = [e.to_json() for e in report.error_matches]
    return out


def _scan_failed(path: str, exc: Exception, as_json: bool) -> TriageError:
    """An input that cannot be scanned, as the error to raise (an OSError becomes one naming the
    path); with --json, one document still goes to stdout first (its `errors` say which path and
    why), so a pipe into jq never gets nothing."""
    error = exc if isinstance(exc, TriageError) else TriageError(f"{path}: {getattr(exc, 'strerror', None) or exc}")
    if as_json:
        from triage.engine.report import Report

        nothing = error.exit_code == ExitCode.NOTHING_READ
        _print_json(Report.failed(path, error.one_line, "nothing read" if nothing else None).to_json())
    return error


def _scan_exit(kb, docs: list, fail_on) -> int:
    """0/1 by health, or by what --fail-on names (printing why on stderr); see triage.engine.gate."""
    if fail_on is None:
        return int(ExitCode.OK if all(d["healthy"] for d in docs) else ExitCode.PROBLEMS)
    from triage.engine.gate import reasons

    why = [(d["sources"][0].get("path"), r) for d in docs for r in reasons(d, fail_on, kb)]
    for path, r in why:
        _err().print(f"fail-on: {path}: {r}", highlight=False, markup=False, soft_wrap=True)
    return int(ExitCode.PROBLEMS if why else ExitCode.OK)


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
    fail_on: Optional[List[str]] = typer.Option(None, "--fail-on", metavar="WHAT", help="CI gate: exit 1 only when one of these is found (comma-separated or repeated): a severity (error: NaN, OOM, crash text, hang; warning: any finding), a finding kind (nan, unstable, no-learning, ...), a detector ID or a cause ID (ranked with evidence)."),
) -> None:
    """Read training logs, run the detectors, match error text and rank the likely causes.

    Exit status: 0 healthy, 1 problems found, 2 unreadable input or bad usage, 3 nothing read
    (the input holds no metric and no error line). With --fail-on: 1 when something it names is found, 0 when nothing it names is
    (other problems are still reported), 2 unreadable input or an unknown name.
    """
    from triage import api

    kb = _kb()
    gate = None
    if fail_on:
        from triage.engine.gate import parse_fail_on

        gate = parse_fail_on(fail_on, kb)
    if report and not report.lower().endswith((".html", ".htm", ".md", ".markdown")):
        raise TriageError(f"--report {report}: use a .html or .md file name")
    if report:
        from triage.writeout import check_target

        check_target(report, what="--report")  # before the scan, not after it
    if "-" in paths and len(paths) > 1:
        raise TriageError("'-' (stdin) can only be scanned on its own")
    merged = None
    if merge and len(paths) > 1:
        try:
            runs = [api.read_input(p, fmt)[0] for p in paths]
        except api.TriageError as exc:
            raise _scan_failed("+".join(paths), exc, as_json) from None
        merged = api.merge_runs(runs)
        paths = [merged.path]
    if len(paths) == 1:
        path = paths[0]
        try:
            with _progress(f"reading {path} and running the detectors"):
                doc = api.scan(path, kb=kb, fmt=fmt, describe=describe, run=merged)
        except (TriageError, OSError) as exc:
            raise _scan_failed(path, exc, as_json) from None
        if as_json:
            _print_json(doc.to_json())
        else:
            from triage.render.scan import render_scan

            render_scan(_out(), doc, verbose=verbose)
        if report:
            from triage.render.files import write_report

            written = write_report(doc, report, kb=kb)
            _err().print(f"report written to {written}", highlight=False)
        raise typer.Exit(_scan_exit(kb, [_gate_doc(doc)], gate))

    if report:
        raise TriageError("--report takes one PATH (scan the runs one by one to get one report each)")
    docs: list = [None] * len(paths)
    if jobs > 1 and not (verbose and not as_json):  # a full view needs the run, which stays in its process
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(jobs, len(paths))) as pool:
            futures = {pool.submit(_scan_one, p, fmt, _state["kb_dirs"], describe): i for i, p in enumerate(paths)}
            for fut, i in futures.items():
                docs[i] = fut.result()
    else:  # -v: the full view of each path, as for one path (drawn from this process's scans)
        full = verbose and not as_json
        docs = [_scan_one(p, fmt, _state["kb_dirs"], describe, full=full) for p in paths]
    errors = [d for d in docs if "error" in d]
    if as_json:
        _print_json([{k: v for k, v in d.items() if not k.startswith("_")} for d in docs])
    else:
        out = _out()
        for n, d in enumerate(docs):
            if "error" in d:
                _err().print(f"[bold red]error:[/] {d['error']}", highlight=False)
            elif verbose and "_report" in d:
                from triage.render.scan import render_scan

                if n:
                    out.print()
                out.print(f"[bold]== {n + 1}/{len(docs)}[/] {d['_summary']}", highlight=False, soft_wrap=True)
                render_scan(out, d["_report"], verbose=True)
            else:
                style = "green" if d["healthy"] else "red"
                out.print(f"[{style}]{'ok ' if d['healthy'] else 'bad'}[/] {d['_summary']}", highlight=False, soft_wrap=True)
    if any(d.get("outcome") != "nothing read" for d in errors):
        raise typer.Exit(int(ExitCode.ERROR))
    if errors:
        raise typer.Exit(int(ExitCode.NOTHING_READ))
    raise typer.Exit(_scan_exit(kb, docs, gate))


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
    """Show what the log readers found: format, rows, steps, and each metric's first/last/min/max/NaN.

    Exit status: 0 read, 2 a path that cannot be read as a log.
    """
    from triage.ingest import read_run

    if "-" in paths and len(paths) > 1:
        raise TriageError("'-' (stdin) can only be inspected on its own")
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
        runs.append(read_run(p, fmt))
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
    path: str = typer.Argument(..., metavar="PATH", help="The log file (or run folder) a running job is writing; waited for if it does not exist yet."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", metavar="FORMAT", help="Force the log format instead of sniffing it (see `triage inspect --help`)."),
    interval: float = typer.Option(2.0, "--interval", min=0.05, metavar="SECONDS", help="Seconds between checks (more on big files)."),
    stop_after: Optional[float] = typer.Option(None, "--stop-after", min=0.0, metavar="SECONDS", help="Stop after this many seconds (for scripts)."),
    notify: Optional[str] = typer.Option(None, "--notify", metavar="URL", help="Post each new finding once to this webhook (Slack-compatible JSON); env:NAME reads the URL from a variable."),
) -> None:
    """Follow a live log like `tail -F`: report each new finding once with its likely cause and knob, and a summary on Ctrl-C.

    NaN and instability (a growing gradient norm, spikes, divergence) are reported as they
    appear; verdicts about the whole curve (plateaus, chance level, overfitting) in the summary.
    Exit status: 0 nothing found, 1 findings, 2 the file never appeared or cannot be read, 130 interrupted.
    """
    import time

    from rich.markup import escape

    from triage.engine.watch import Watcher, alert_text, describe, lead_for, seen_at

    kb = _kb()
    if path == "-":
        raise TriageError("watch needs a file path (it re-reads the file as it grows); use `triage scan -` for stdin")
    out = _out()
    err = _err()
    notifier = None
    if notify:
        from triage.notify import Notifier

        notifier = Notifier(notify, warn=lambda m: err.print(escape(m), highlight=False))
    watcher = Watcher(path, kb, fmt=fmt, interval=interval,
                      on_note=lambda text: err.print(f"[dim]{escape(text)}[/]", highlight=False))
    err.print(f"[dim]watching {escape(path)} (Ctrl-C for the summary)[/]", highlight=False)
    start = time.monotonic()
    interrupted = False
    try:
        while True:
            for f in watcher.poll():
                known = list(watcher.state.live.reported.values())
                lead = lead_for(kb, watcher.run, known, f)
                at = seen_at(watcher.run)
                first, *rest = describe(f, lead, at=at)
                out.print(f"[red]●[/] {escape(first)}", highlight=False, soft_wrap=True)
                for line in rest:
                    out.print(f"[dim]{escape(line)}[/]", highlight=False, soft_wrap=True)
                if notifier is not None:
                    notifier.post(alert_text(path, f, lead, at=at))
            if stop_after is not None and time.monotonic() - start >= stop_after:
                break
            time.sleep(watcher.wait_time())
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if notifier is not None:
            notifier.close()
    findings = watcher.findings()
    st = watcher.state
    if st.reads == 0:
        if not st.ever_present:
            raise TriageError(f"{path}: no such file (waited {time.monotonic() - start:.0f} s; start the job, or check the path)")
        raise TriageError(f"{path}: could not be read as a training log")
    gone = "; the file is gone" if st.deleted else ""
    err.print(f"\n[bold]summary[/]: {st.rows:,} rows read {st.reads} time(s), {len(findings)} finding(s){gone}", highlight=False)
    for f in findings:
        if f.detector not in st.live.reported:  # a verdict about the whole curve, not reported live
            out.print(f"[yellow]●[/] {escape(f.summary)}", highlight=False)
    if findings:
        from triage import api

        report = api.scan(path, kb=kb, run=watcher.run)  # the same ranking scan gives, on what was read last
        for c in report.causes[:3]:
            out.print(f"  [bold cyan]{c.id}[/]  {escape(c.title)}  [dim]triage explain {c.id}[/]", highlight=False)
    if interrupted:
        raise typer.Exit(int(ExitCode.INTERRUPTED))
    raise typer.Exit(int(ExitCode.PROBLEMS if findings else ExitCode.OK))


# -- diff -------------------------------------------------------------------------------
@app.command()
def diff(
    good: str = typer.Argument(..., metavar="GOOD", help="The last good run: a log file or run folder (its config beside it)."),
    bad: str = typer.Argument(..., metavar="BAD", help="The broken run (or the new run, for a regression gate)."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", metavar="FORMAT", help="Force the log format of both runs (see `triage inspect --help`)."),
    as_json: bool = typer.Option(False, "--json", help="Print the comparison as one JSON document."),
    report: Optional[str] = typer.Option(None, "--report", metavar="FILE", help="Also write FILE.html (offline, GOOD and BAD overlaid) or FILE.md."),
    tolerance: Optional[str] = typer.Option(None, "--tolerance", metavar="TOL", help="Regression gate: fail when BAD is worse than GOOD by more than TOL over a window: 5% (relative), abs=0.02, or 5%,abs=0.01 (they add up)."),
    window: int = typer.Option(20, "--window", min=1, metavar="N", help="Points per window for --tolerance (window means, not single noisy points)."),
    metric: Optional[List[str]] = typer.Option(None, "--metric", "-m", metavar="NAME", help="Metric(s) the gate checks (default: every loss, accuracy and reward both runs log)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show every metric, config difference and cause."),
) -> None:
    """Compare a broken run with the last good one: where they part, what changed, and why.

    Aligns both runs by step, finds the first step where they part beyond their own noise and
    which metric parted first, lists the config differences and ranks causes from both.
    Exit status: 0 the runs agree within noise, 1 they part, 2 unreadable input or bad usage.
    With --tolerance: 0 BAD is within tolerance of GOOD, 1 BAD regressed past it.
    """
    from triage import api

    kb = _kb()
    if report and not report.lower().endswith((".html", ".htm", ".md", ".markdown")):
        raise TriageError(f"--report {report}: use a .html or .md file name")
    with _progress("reading both runs and comparing them"):
        doc = api.diff(good, bad, kb=kb, fmt=fmt, tolerance=tolerance, window=window, metrics=metric)
    if as_json:
        _print_json(api.public(doc))
    else:
        from triage.render.diff import render_diff

        render_diff(_out(), doc, kb=kb, verbose=verbose)
    if report:
        from triage.render.diff import write_diff_report

        written = write_diff_report(doc, report, kb=kb)
        _err().print(f"report written to {written}", highlight=False)
    failed = not doc["gate"]["passed"] if doc.get("gate") else doc["parted"]
    raise typer.Exit(int(ExitCode.PROBLEMS if failed else ExitCode.OK))


# -- mcp --------------------------------------------------------------------------------
@app.command()
def mcp() -> None:
    """Serve triage to coding agents over the Model Context Protocol (stdio).

    Tools: scan (a log -> the scan JSON), explain (a node), search (text), diff (two runs)
    and ask_step (answers so far -> the next question or the final ranking; stateless).
    Needs the MCP Python SDK: pip install 'triage[mcp]'.
    Exit status: 0 the client closed the connection, 2 the SDK is not installed.
    """
    from triage.mcp_server import serve

    serve(_state["kb_dirs"])


# -- probe ---------------------------------------------------------------------------------------
probe_app = typer.Typer(
    help="Standalone checks to run against your own training code (list, show, export, run).",
    no_args_is_help=True,
)
app.add_typer(probe_app, name="probe", short_help="Scripts for the GPU box that answer what logs cannot.")


@probe_app.command("list")
def probe_list(as_json: bool = typer.Option(False, "--json", help="Print the probes as one JSON document.")) -> None:
    """List the probes, what each checks and which questions its result answers.

    Exit status: 0 listed, 2 a probe folder that cannot be read.
    """
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
    """What a probe checks, what its setup needs, which questions it answers, and how to run it.

    Exit status: 0 shown, 2 unknown probe.
    """
    from triage import probes

    info = probes.get(name, _state["kb_dirs"])
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
    dest: str = typer.Option(".", "--output", "-o", metavar="DIR", help="Folder to copy the standalone script(s) into (it must exist)."),
    force: bool = typer.Option(False, "--force", help="Replace scripts already in the folder."),
) -> None:
    """Copy standalone probe script(s) (stdlib + torch only) to carry to the GPU box.

    Exit status: 0 copied, 2 unknown probe, a missing folder, or a script already there (without --force).
    """
    from triage import probes

    paths = probes.export(name, dest, force=force)
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

    outcome = probes.run(name, setup, out=out, max_steps=max_steps, timeout=timeout, device=device)
    if outcome.returncode not in (0, 1):
        raise typer.Exit(int(ExitCode.ERROR))  # the script already printed its one-line error
    if outcome.result is None:
        raise probes.ProbeError(f"probe {name} wrote no result")
    if outcome.out is not None:
        _err().print(f"result written to {outcome.out}", highlight=False, soft_wrap=True)
    raise typer.Exit(int(ExitCode.PROBLEMS if outcome.result["status"] == "fail" else ExitCode.OK))
# -- end probe -----------------------------------------------------------------------------------


# -- kb ----------------------------------------------------------------------------------------
@kb_app.command("check")
def kb_check(
    as_json: bool = typer.Option(False, "--json", help="Print problems as one JSON document."),
) -> None:
    """Validate every node: schema, IDs, links, reachability, cycles, knobs, fixtures, regexes.

    Exit status: 0 no errors (warnings are printed but pass), 2 errors found.
    """
    from triage.detect import PARAMS
    from triage.kb.base import KnowledgeBase
    from triage.kb.validate import check

    kb = KnowledgeBase.load(_state["kb_dirs"], use_cache=False)
    problems = check(kb, check_params=PARAMS)  # the detectors' checks and params, checked against the code
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
    """List every node with its kind, family and title (one line per node, also in a pipe).

    Exit status: 0 listed, 2 a knowledge error.
    """
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
    """Print the decision graph (questions -> follow-ups -> causes) for drawing or tooling.

    Exit status: 0 printed, 2 unknown format or a knowledge error.
    """
    from triage import api

    if fmt not in ("mermaid", "dot", "json"):
        raise TriageError(f"unknown graph format {fmt!r}: use mermaid, dot or json")
    sys.stdout.write(api.graph(_kb()).dumps(fmt))


# -- sweep: the command lives in triage/sweep/command.py -----------------------------
from triage.sweep.command import sweep as _sweep  # noqa: E402

app.command("sweep")(_sweep)


# -- help listing: the order a person reaches for them, one short line each -------------------
_SHORT = {
    "scan": "Read logs, find problems, rank the likely causes.",
    "sweep": "Triage many runs: verdicts, causes, what separates them.",
    "ask": "Guided questions that end at the knob.",
    "watch": "Follow a live log and report new findings.",
    "inspect": "Show what was read from a log.",
    "explain": "One cause as a card: why, knob, expect, next.",
    "search": "Find causes by words or an error line.",
    "checklist": "Printable pre-flight and per-domain checklists.",
    "diff": "Where a broken run parts from a good one, and why.",
    "mcp": "Serve triage to coding agents (Model Context Protocol).",
}
_ORDER = list(_SHORT)


def _command_name(info) -> str:
    return info.name or (info.callback.__name__.replace("_", "-") if info.callback else "")


for _info in app.registered_commands:
    if _command_name(_info) in _SHORT and not _info.short_help:
        _info.short_help = _SHORT[_command_name(_info)]
app.registered_commands.sort(key=lambda i: _ORDER.index(_command_name(i)) if _command_name(i) in _ORDER else len(_ORDER))


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised where the program is, so every `finally` runs: temporary files
    (stdin copies, shared-memory columns) are removed and child processes stopped."""


def _terminate(signum, frame) -> None:
    raise Terminated(signum)


def main() -> None:
    import signal

    from triage.runtime import one_blas_thread

    one_blas_thread()  # (before numpy loads: its thread pool cost more start-up than all of triage's imports)

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _terminate)
    try:
        app()
    except Terminated:
        sys.exit(int(ExitCode.TERMINATED))
    except KeyboardInterrupt:
        _err().print("interrupted")
        sys.exit(int(ExitCode.INTERRUPTED))
    except BrokenPipeError:  # `triage kb list | head`
        sys.stderr.close()
        sys.exit(0)
