"""Where a sweep's runs come from: folder trees walked for run folders, and MLflow tracking servers.

A folder tree is walked top down. A folder is one run when it is a Ray Tune trial (params.json
beside result.json or progress.csv), when one of the registered folder layouts of triage.ingest
recognises it (trainer_state.json, metrics.csv, run-*.wandb, ...), or when it holds TensorBoard
event files; the walk does not go below a run. A layout that would pick the newest of several runs
(a `wandb/` folder, `lightning_logs/`, an `mlruns/` store) is not asked to pick: the walk goes on
and every run in it becomes a run of the sweep. A folder with no run below it whose loose files
look like logs is one run if it holds one such file, else each file is a run (a folder of
`lr=0.1.jsonl`, `lr=0.01.jsonl`, ...).

Symbolic links are not followed (W&B's `latest-run` would count a run twice), nor hidden folders.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable, Iterator

from triage.sweep.refs import MLFLOW, PATH, TUNE, RunRef, SweepError

# Layouts whose pick among several runs the walk replaces with one run per folder.
_WALKED = {"mlflow", "tensorboard"}
_SPLIT_DIRS = {"train", "training", "val", "valid", "validation", "eval", "evaluation", "test"}
_EVENTS = re.compile(r"events\.out\.tfevents\.")
TUNE_RESULTS = ("result.json", "progress.csv")


def is_tune_trial(d: Path) -> bool:
    return (d / "params.json").is_file() and any((d / n).is_file() for n in TUNE_RESULTS)


def _entries(d: Path) -> tuple[list[Path], list[Path]]:
    """(sub-folders, files) of `d`, sorted, without hidden entries or symbolic links."""
    dirs, files = [], []
    try:
        with os.scandir(d) as it:
            for e in it:
                if e.name.startswith(".") or e.is_symlink():
                    continue
                if e.is_dir(follow_symlinks=False):
                    dirs.append(Path(e.path))
                elif e.is_file(follow_symlinks=False):
                    files.append(Path(e.path))
    except OSError:
        return [], []
    return sorted(dirs), sorted(files)


def _layout_run(d: Path) -> bool | None:
    """True: a registered layout reads `d` as one run. None: a layout found several runs inside
    (walk on). False: no layout knows it."""
    from triage.ingest.contract import layouts

    for layout, reader in layouts():
        if reader.name in _WALKED:
            continue
        try:
            found = layout.find(d)
        except OSError:
            continue
        if found is None:
            continue
        return None if found.descend else True
    return False


def _is_tensorboard_run(files: list[Path], dirs: list[Path]) -> bool:
    """Event files in the folder itself, or only in split sub-folders (Keras' train/ and validation/)."""
    if any(_EVENTS.search(f.name) for f in files):
        return True
    with_events = [x for x in dirs if any(_EVENTS.search(f.name) for f in _entries(x)[1])]
    return bool(with_events) and all(x.name.lower() in _SPLIT_DIRS for x in with_events)


def _loose_logs(files: list[Path]) -> list[Path]:
    """Files in a folder that look like logs by their ending (the folder discovery's own rules)."""
    from triage.ingest.registry import _NOT_LOGS, _suffix_ranks

    ranks = _suffix_ranks()
    out = []
    for f in files:
        low = f.name.lower()
        if low in _NOT_LOGS or low.endswith((".config.json", ".config.yaml")) or low == "params.json":
            continue
        if f.suffix.lower() in ranks and f.suffix.lower() != ".gz":
            out.append(f)
    return out


def _walk(d: Path, root: Path, depth: int, out: list[RunRef]) -> None:
    name = d.relative_to(root).as_posix() if d != root else (d.name or str(d))
    if is_tune_trial(d):
        out.append(RunRef(TUNE, str(d), name))
        return
    dirs, files = _entries(d)
    from triage.ingest.mlflow import is_run_dir

    if is_run_dir(d):
        out.append(RunRef(PATH, str(d), name))
        return
    if _is_tensorboard_run(files, dirs):
        out.append(RunRef(PATH, str(d), name))
        return
    layout = _layout_run(d)
    if layout:
        out.append(RunRef(PATH, str(d), name))
        return
    before = len(out)
    if depth > 0:
        for sub in dirs:
            _walk(sub, root, depth - 1, out)
    if len(out) > before or layout is None:
        return
    logs = _loose_logs(files)
    if len(logs) == 1:
        out.append(RunRef(PATH, str(d), name))
    else:
        out.extend(RunRef(PATH, str(f), f.relative_to(root).as_posix()) for f in logs)


def discover(paths: Iterable[str], max_depth: int = 12) -> list[RunRef]:
    """The runs under each path (a file is one run; a folder is walked). Raises SweepError when a
    path does not exist or nothing under the paths looks like a run."""
    out: list[RunRef] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise SweepError(f"{raw}: no such file or directory")
        if p.is_file():
            out.append(RunRef(TUNE if p.name in TUNE_RESULTS and is_tune_trial(p.parent) else PATH,
                              str(p.parent if p.name in TUNE_RESULTS and is_tune_trial(p.parent) else p), p.name))
            continue
        _walk(p, p, max_depth, out)
    seen: set[str] = set()
    unique = [r for r in out if not (r.locator in seen or seen.add(r.locator))]
    if not unique:
        raise SweepError(f"no runs found under {', '.join(map(str, paths))} (looked for run folders and log files: "
                         "a Ray Tune trial, trainer_state.json, metrics.csv, *.jsonl, TensorBoard events, W&B runs, ...)")
    return unique


# ------------------------------------------------------------------------------------ MLflow server
def mlflow_client(uri: str):
    """An MlflowClient for `uri`; SweepError (with the install line) when mlflow is missing."""
    try:
        from mlflow.tracking import MlflowClient
    except ImportError:
        raise SweepError("--mlflow needs the mlflow client: pip install 'triage[mlflow]'") from None
    return MlflowClient(tracking_uri=uri)


def _experiment_ids(client, uri: str, experiment: str | None) -> list[str]:
    if experiment:
        exp = client.get_experiment_by_name(experiment)
        if exp is None and experiment.isdigit():
            exp = client.get_experiment(experiment)
        if exp is None:
            names = [e.name for e in client.search_experiments(max_results=20)]
            raise SweepError(f"--experiment {experiment!r}: no such experiment on {uri}"
                             + (f" (there are: {', '.join(names)})" if names else ""))
        return [exp.experiment_id]
    return [e.experiment_id for e in client.search_experiments(max_results=1000)]


def mlflow_refs(uri: str, experiment: str | None = None, page: int = 1000) -> Iterator[RunRef]:
    """Every run of the experiment (or of all experiments) on a tracking server, page by page.
    The listing carries each run's params and metric names, so a worker only fetches histories."""
    client = mlflow_client(uri)
    try:
        ids = _experiment_ids(client, uri, experiment)
        for exp_id in ids:
            token = None
            while True:
                runs = client.search_runs([exp_id], max_results=page, page_token=token)
                for run in runs:
                    info, data = run.info, run.data
                    yield RunRef(MLFLOW, info.run_id, info.run_name or info.run_id[:12], uri=uri,
                                 experiment=str(exp_id), params=tuple(sorted(data.params.items())),
                                 metric_keys=tuple(sorted(data.metrics)))
                token = runs.token
                if not token:
                    break
    except SweepError:
        raise
    except Exception as exc:  # connection refused, HTTP errors, bad URIs: one line, not a traceback
        raise SweepError(f"--mlflow {uri}: cannot list runs ({_short(exc)})") from None


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = re.sub(r"\s+", " ", text)
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__
