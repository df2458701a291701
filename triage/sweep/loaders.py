"""Load one run of a sweep as a canonical `Run` with its config: a path (the ordinary readers, plus
the config places that sit beside a W&B or an MLflow file-store run), a Ray Tune trial, an MLflow
run fetched with the official client.

Ray Tune writes each trial's results twice: `result.json` (one JSON object per reported step, the
config nested under "config") and `progress.csv` (the same, flattened). Tune adds bookkeeping keys
of its own (timestamps, host, pid, the iteration counters); they are not training metrics and are
left out. The step is Tune's `training_iteration`.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

from triage.ingest.builder import NAN, RunBuilder, to_float
from triage.ingest.errors import IngestError
from triage.ingest.run import Run

# Keys Ray Tune adds to every result (ray.tune.result), not metrics of the training.
TUNE_BOOKKEEPING = frozenset({
    "config", "done", "trial_id", "experiment_id", "date", "timestamp", "time_this_iter_s", "time_total_s",
    "pid", "hostname", "node_ip", "time_since_restore", "timesteps_since_restore", "iterations_since_restore",
    "training_iteration", "checkpoint_dir_name", "should_checkpoint", "experiment_tag", "warmup_time",
    "timesteps_total", "episodes_total", "num_healthy_workers", "num_in_flight_async_reqs",
    "num_remote_worker_restarts", "perf", "info",
})


def _flat(prefix: str, value, out: dict, depth: int = 0) -> None:
    if isinstance(value, dict) and depth < 4:
        for k, v in value.items():
            _flat(f"{prefix}/{k}" if prefix else str(k), v, out, depth + 1)
    else:
        out[prefix] = value


def _scalar_config(data) -> dict:
    """A config as flat scalar settings (nested keys joined with '/', lists and objects dropped)."""
    flat: dict = {}
    if isinstance(data, dict):
        _flat("", data, flat)
    return {k: v for k, v in flat.items() if isinstance(v, (str, int, float, bool)) or v is None}


def read_tune_trial(folder: str) -> Run:
    """A Tune trial folder: result.json when it is there (it keeps nested metrics), else progress.csv."""
    d = Path(folder)
    b = RunBuilder(folder, "ray_tune", source="ray_tune")
    if (d / "result.json").is_file():
        _tune_json(d / "result.json", b)
        b.meta["file"] = str(d / "result.json")
    elif (d / "progress.csv").is_file():
        _tune_csv(d / "progress.csv", b)
        b.meta["file"] = str(d / "progress.csv")
    else:
        raise IngestError(folder, "a Ray Tune trial without result.json or progress.csv")
    run = b.build()
    config = _tune_params(d)
    if config:
        run.meta["config"] = config
        run.meta["config_path"] = str(d / "params.json")
    return run


def _tune_params(d: Path) -> dict:
    try:
        return _scalar_config(json.loads((d / "params.json").read_text(encoding="utf-8", errors="replace")))
    except (OSError, ValueError):
        return {}


def _tune_row(b: RunBuilder, row: dict) -> None:
    step = to_float(row.get("training_iteration"))
    step = NAN if step is None else step
    wall = to_float(row.get("timestamp"))
    flat: dict = {}
    for k, v in row.items():
        if k in TUNE_BOOKKEEPING or k.startswith("config/"):
            continue
        _flat(k, v, flat)
    got = False
    for k, v in flat.items():
        f = to_float(v)
        if f is None:
            continue
        b.add(k, f, step, NAN, NAN if wall is None else wall)
        got = True
    b.end_row(got, step)


def _tune_json(path: Path, b: RunBuilder) -> None:
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.strip()
            if not line:
                continue
            try:
                row = json.loads(line)  # Python's json reads the bare NaN / Infinity Tune writes
            except ValueError:
                b.skip("malformed JSON line")
                continue
            if isinstance(row, dict):
                _tune_row(b, row)
            else:
                b.skip("not an object")


def _tune_csv(path: Path, b: RunBuilder) -> None:
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        for row in csv.DictReader(fh):
            _tune_row(b, {k: v for k, v in row.items() if k is not None and v not in (None, "")})


# ------------------------------------------------------------------------------------------- MLflow
def typed(text):
    """An MLflow param (always text) as the value it spells: int, float, bool, None or the text."""
    if not isinstance(text, str):
        return text
    s = text.strip()
    low = s.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    try:
        return int(s)
    except ValueError:
        pass
    try:
        v = float(s)
        return v if math.isfinite(v) or low in ("nan", "inf", "-inf") else s
    except ValueError:
        return s


def read_mlflow_run(ref, client) -> Run:
    """One run from a tracking server: every metric's full history (steps and timestamps), the
    params as the config."""
    from triage.ingest.mlflow import _emit_points

    b = RunBuilder(ref.label, "mlflow_server", source="mlflow")
    keys = ref.metric_keys
    params = dict(ref.params)
    if not keys and not params:  # a reference made without the listing: ask for the run
        run = client.get_run(ref.locator)
        keys, params = tuple(run.data.metrics), dict(run.data.params)
    points = []
    for key in keys:
        for m in client.get_metric_history(ref.locator, key):
            v = to_float(m.value)
            if v is None:
                b.skip("non-numeric value")
                continue
            points.append((float(m.step or 0), float(m.timestamp or 0), key, v))
    _emit_points(b, points)
    b.meta["mlflow_run"] = {"run_id": ref.locator, "experiment": ref.experiment, "run_name": ref.name}
    run = b.build()
    run.meta["config"] = {k: typed(v) for k, v in params.items()}
    return run


def mlflow_store_params(run_dir: Path) -> dict:
    """The params of an MLflow file-store run folder: params/<key> files, one value each."""
    out: dict = {}
    pdir = run_dir / "params"
    if not pdir.is_dir():
        return out
    for p in sorted(pdir.rglob("*")):
        if p.is_file():
            try:
                out[p.relative_to(pdir).as_posix()] = typed(p.read_text(encoding="utf-8", errors="replace"))
            except OSError:
                continue
    return out


def wandb_config(run_dir: Path) -> dict:
    """A W&B run folder's files/config.yaml ({key: {value: ...}}), without W&B's own `_wandb` entry."""
    path = run_dir / "files" / "config.yaml"
    if not path.is_file():
        return {}
    try:
        import yaml

        data = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
    except Exception:  # a config is optional: an unreadable one is skipped
        return {}
    if not isinstance(data, dict):
        return {}
    data.pop("_wandb", None)
    data.pop("wandb_version", None)
    unwrapped = {k: (v["value"] if isinstance(v, dict) and "value" in v else v) for k, v in data.items()}
    return _scalar_config(unwrapped)
