"""`triage sweep`: the command line of a sweep (registered on the app in triage/cli.py).

A command of its own rather than flags on `scan`: `scan --json` is a contract (one document per
PATH, an array for several), and its exit status is about one run; a sweep's output is a different
document (a summary plus every run), its sources need not be paths (`--mlflow URI`), and it has its
own report. Sharing a name would make `scan`'s output shape depend on its flags.
"""

from __future__ import annotations

import sys
from typing import List, Optional

import typer


def sweep(
    ctx: typer.Context,
    paths: Optional[List[str]] = typer.Argument(None, metavar="PATH...", help="Folders of runs (walked for run folders: Ray Tune trials, W&B offline runs, HF/Lightning/TensorBoard/MLflow folders, log files) or log files."),
    mlflow: Optional[str] = typer.Option(None, "--mlflow", metavar="URI", help="Read the runs of an MLflow tracking server (http://host:5000) or any tracking URI (sqlite:///mlflow.db, file:./mlruns)."),
    experiment: Optional[str] = typer.Option(None, "--experiment", metavar="NAME", help="With --mlflow: only this experiment (name or ID; default: every experiment)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, metavar="N", help="Workers: local processes (threads for --mlflow); with --executor ray, the CPUs of a local Ray instance (default: all)."),
    executor: str = typer.Option("local", "--executor", metavar="NAME", help="local (this machine) or ray (a Ray cluster; pip install 'triage[ray]')."),
    address: Optional[str] = typer.Option(None, "--ray-address", metavar="ADDR", help="Join this Ray cluster (e.g. auto, ray://head:10001) instead of starting a local instance; implies --executor ray."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document: every run's scan document, then the sweep summary."),
    report: Optional[str] = typer.Option(None, "--report", metavar="FILE.html", help="Also write an offline HTML report with small charts per cause group."),
    limit: int = typer.Option(40, "--limit", min=1, metavar="N", help="Runs listed in the terminal (the broken ones first when there are more)."),
) -> None:
    """Triage a whole sweep: every run's verdict and top cause, runs grouped by cause, and the
    config keys that separate broken runs from healthy ones.

    Exit status: 0 every run healthy, 1 some run broken or unreadable, 2 no runs or bad usage.
    """
    from triage import api
    from triage.errors import ExitCode
    from triage.sweep import executors
    from triage.sweep.refs import SweepError

    if address:
        executor = "ray"
    if executor not in executors.EXECUTORS:
        raise SweepError(f"--executor {executor}: use local or ray")
    if executor == "ray" and not executors.ray_available():
        raise SweepError(executors.RAY_INSTALL)
    if report and not report.lower().endswith((".html", ".htm")):
        raise SweepError(f"--report {report}: the sweep report is a .html file")
    if report and not _folder_of(report).is_dir():  # say so now, not after the sweep
        raise SweepError(f"--report {report}: folder {_folder_of(report)} does not exist")
    if experiment and not mlflow:
        raise SweepError("--experiment goes with --mlflow URI")
    if not paths and not mlflow:
        raise SweepError("give folders or files of runs (PATH...), or --mlflow URI")
    kb_dirs = tuple(ctx.find_root().params.get("kb") or ())  # the app's --kb folders
    api.load_kb(list(kb_dirs))  # fail early, with the usual message, on a broken knowledge base
    if mlflow:
        _quick_mlflow_failures()
    refs, source = _references(paths or [], mlflow, experiment)
    summary = _run(refs, source, executor, jobs, address, bool(mlflow), as_json, kb_dirs)
    if not as_json:
        from triage.render.console import out_console
        from triage.sweep.views import render_sweep

        render_sweep(out_console(), summary, limit=limit)
    if report:
        from rich.console import Console

        from triage.sweep.views import write_sweep_html

        written = write_sweep_html(summary, report)
        Console(stderr=True).print(f"report written to {written}", highlight=False)
    counts = summary.counts
    raise typer.Exit(int(ExitCode.OK if counts["broken"] == 0 and counts["unreadable"] == 0 else ExitCode.PROBLEMS))


def _folder_of(target: str):
    from pathlib import Path

    parent = Path(target).parent
    return parent if str(parent) else Path(".")


def _quick_mlflow_failures() -> None:
    """The mlflow client retries a request 7 times with doubling waits (minutes against a server
    that is down); a command line says so after a few seconds. Settings the user made are kept."""
    import os

    for var, value in (("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "2"), ("MLFLOW_HTTP_REQUEST_BACKOFF_FACTOR", "1"),
                       ("MLFLOW_HTTP_REQUEST_TIMEOUT", "60")):
        os.environ.setdefault(var, value)


def _references(paths: list[str], mlflow: str | None, experiment: str | None):
    """Every run reference and a line saying where they came from."""
    from triage.sweep.sources import discover, mlflow_refs

    refs: list = []
    where = []
    if paths:
        refs.extend(discover(paths))
        where.append(", ".join(paths))
    if mlflow:
        found = list(mlflow_refs(mlflow, experiment))
        if not found:
            from triage.sweep.refs import SweepError

            raise SweepError(f"--mlflow {mlflow}: no runs" + (f" in experiment {experiment!r}" if experiment else ""))
        refs.extend(found)
        where.append(f"MLflow {mlflow}" + (f" experiment {experiment}" if experiment else ""))
    return refs, "; ".join(where)


def _run(refs: list, source: str, executor: str, jobs: int | None, address: str | None, network: bool, as_json: bool,
         kb_dirs: tuple):
    from triage.sweep.driver import run_sweep
    from triage.sweep.jsonout import JsonStream

    stream = JsonStream(sys.stdout, source) if as_json else None
    with _progress_bar(len(refs)) as advance:
        def on_record(record, kept):
            if stream is not None:
                stream.run(record, kept)
            advance(kept.verdict)

        summary = run_sweep(refs, executor, jobs, kb_dirs, address, network, len(refs),
                            on_record, source, documents=as_json)
    if stream is not None:
        stream.end(summary)
    return summary


class _progress_bar:
    """A rich progress bar on stderr while runs finish (only when a person watches stderr)."""

    def __init__(self, total: int):
        self.total = total
        self.progress = None
        self.counts = {"healthy": 0, "broken": 0, "unreadable": 0}

    def __enter__(self):
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("scanning"), BarColumn(), MofNCompleteColumn(),
                                     TextColumn("{task.fields[counts]}"), TimeElapsedColumn(), TimeRemainingColumn(),
                                     console=Console(stderr=True), transient=True)
            self.progress.start()
            self.task = self.progress.add_task("runs", total=self.total, counts="")
        return self.advance

    def advance(self, verdict: str) -> None:
        self.counts[verdict] = self.counts.get(verdict, 0) + 1
        if self.progress is not None:
            c = self.counts
            self.progress.update(self.task, advance=1,
                                 counts=f"{c['broken']} broken, {c['unreadable']} unreadable")

    def __exit__(self, *exc):
        if self.progress is not None:
            self.progress.stop()
        return False
