"""The per-run work of a sweep: one pure function, a run reference in, the run's result out.

`scan_ref` reads the run, runs the same diagnosis as `triage scan` (triage.api.scan), and returns a
small record: the run's public `scan --json` document, its config, its verdict and a thinned copy
of the one series a report charts (a few dozen points). The run's series stay in the worker; only
the record travels, so the driver never holds a run's data.

It is pure in the sense that matters for executors: the result depends only on the reference and
the knowledge base, nothing is shared between runs except caches that do not change results (the
loaded knowledge base and MLflow clients, one per process or thread), and it never raises: an
unreadable run comes back as a record with an `error`.
"""

from __future__ import annotations

import math
import threading
import time
from pathlib import Path

from triage.sweep.refs import MLFLOW, PATH, TUNE, RunRef

CHART_POINTS = 64
_KB: dict = {}
_LOCAL = threading.local()  # MLflow clients: one per thread (each holds an HTTP session)


def knowledge(kb_dirs: tuple = ()):
    """The knowledge base, loaded once per process (a worker scans many runs with it)."""
    return _loaded(kb_dirs)[0]


def _loaded(kb_dirs: tuple = ()):
    """(knowledge base, its compiled engine model), made once per process. The model holds only the
    knowledge in table form and a memo of its likelihood tables, so sharing it between runs changes
    no result; building it for every run was half the cost of scanning a broken one."""
    key = tuple(kb_dirs)
    pair = _KB.get(key)
    if pair is None:
        from triage import api
        from triage.engine.diagnosis import Model

        kb = api.load_kb(list(key))
        pair = _KB[key] = (kb, Model(kb))
    return pair


def _client(uri: str):
    clients = getattr(_LOCAL, "clients", None)
    if clients is None:
        clients = _LOCAL.clients = {}
    if uri not in clients:
        from triage.sweep.sources import mlflow_client

        clients[uri] = mlflow_client(uri)
    return clients[uri]


def _extra_config(run, folder: Path) -> None:
    """Configs the ordinary readers do not look for: a W&B run's files/config.yaml, an MLflow
    file-store run's params/ (existing keys win)."""
    from triage.ingest.mlflow import is_run_dir
    from triage.sweep.loaders import mlflow_store_params, wandb_config

    extra = mlflow_store_params(folder) if is_run_dir(folder) else wandb_config(folder)
    if extra:
        merged = dict(extra)
        merged.update(run.meta.get("config") or {})
        run.meta["config"] = merged


def _scan_document(ref: RunRef, kb, model) -> dict:
    from triage import api

    if ref.kind == PATH:
        folder = Path(ref.locator)
        if folder.is_dir() and ((folder / "files" / "config.yaml").is_file() or (folder / "params").is_dir()):
            run, _raw = api.read_input(ref.locator)
            _extra_config(run, folder)
            return api.scan(ref.locator, kb=kb, run=run, model=model)
        return api.scan(ref.locator, kb=kb, model=model)
    if ref.kind == TUNE:
        from triage.ingest.errors import IngestError
        from triage.sweep.loaders import read_tune_trial

        try:
            run = read_tune_trial(ref.locator)
        except IngestError as exc:
            raise api.TriageError(str(exc)) from None
        return api.scan(ref.locator, kb=kb, run=run, model=model)
    if ref.kind == MLFLOW:
        from triage.sweep.loaders import read_mlflow_run

        return api.scan(ref.label, kb=kb, run=read_mlflow_run(ref, _client(ref.uri)), model=model)
    raise api.TriageError(f"unknown kind of run reference {ref.kind!r}")


def _thin(series, points: int):
    """(step, value) pairs, about `points` of them: each bucket's lowest and highest finite point
    (so a spike survives) and the first NaN/Inf points. Vectorised: it runs once per run."""
    import numpy as np

    steps, values = series.steps, series.values
    n = len(values)
    if n > points:
        buckets = max(1, points // 2)
        size = -(-n // buckets)
        pad = buckets * size - n
        finite = np.isfinite(values)
        lo = np.concatenate([np.where(finite, values, np.inf), np.full(pad, np.inf)]).reshape(buckets, size)
        hi = np.concatenate([np.where(finite, values, -np.inf), np.full(pad, -np.inf)]).reshape(buckets, size)
        base = np.arange(buckets) * size
        ilo, ihi = base + lo.argmin(axis=1), base + hi.argmax(axis=1)
        ok = np.isfinite(lo.min(axis=1))
        keep = np.concatenate([[0, n - 1], ilo[ok], ihi[ok], np.flatnonzero(~finite)[:3]])
        idx = np.unique(keep[keep < n])
        steps, values = steps[idx], values[idx]
    xs = steps if np.isfinite(steps).all() else np.arange(len(values), dtype=float)
    return [(float(x), float(y)) for x, y in zip(xs.tolist(), values.tolist())]


def chart_series(doc: dict, points: int = CHART_POINTS, most: int = 4) -> list:
    """[(metric, points), ...]: the series the run's findings name (the first finding's first), then
    the loss, at most `most`, each thinned to about `points` points. Several, so a report can draw
    the same metric for every run of a group."""
    from triage.render.scan import chart_target

    first, _mark = chart_target(doc)
    run = doc.get("_run")
    if first is None or run is None:
        return []
    names = [first.name]
    for f in doc.get("findings") or []:
        s = run.get(f.get("metric") or "")
        if s is not None and len(s) > 1 and s.name not in names:
            names.append(s.name)
    loss = run.get("loss")
    if loss is not None and len(loss) > 1 and "loss" not in names:
        names.append("loss")
    return [(name, _thin(run.get(name), points)) for name in names[:most]]


def _plain_config(config: dict) -> dict:
    """Scalar settings only, long text cut: the config is what the driver keeps per run."""
    out = {}
    for k, v in (config or {}).items():
        if isinstance(v, float) and not math.isfinite(v):
            v = str(v)
        if isinstance(v, str) and len(v) > 120:
            v = v[:117] + "..."
        if isinstance(v, (str, int, float, bool)) or v is None:
            out[str(k)] = v
    return out


def slim(doc: dict) -> dict:
    """The part of a scan document the sweep's summary reads (verdict, top cause, first finding,
    rows and format): what a worker sends back when no one asked for the whole document."""
    src = (doc.get("sources") or [{}])[0]
    return {"healthy": doc.get("healthy"), "causes": [{k: c.get(k) for k in ("id", "title")} for c in doc.get("causes", [])[:1]],
            "findings": [{"summary": f.get("summary")} for f in doc.get("findings", [])[:1]],
            "n_findings": len(doc.get("findings") or []), "probes": doc.get("probes") or [],
            "sources": [{"rows": src.get("rows"), "format": src.get("format")}]}


def scan_ref(ref: RunRef, kb_dirs: tuple = (), index: int = 0, charts: bool = True, documents: bool = True) -> dict:
    """Scan one run. Returns {index, id, name, source, config, scan, error, cpu_ms, _series}; `scan`
    is the run's public `scan --json` document (None when the run could not be read), or only its
    `slim` part when `documents` is False (the driver then moves a tenth of the bytes)."""
    from triage import api

    start = time.thread_time()  # this thread only: right for threads and processes alike
    record = {"index": index, "id": ref.label, "name": ref.name, "source": ref.kind, "config": {},
              "scan": None, "error": None}
    try:
        doc = _scan_document(ref, *_loaded(kb_dirs))
        run = doc.get("_run")
        record["config"] = _plain_config(run.config if run is not None else {})
        record["_series"] = chart_series(doc) if charts else []
        record["scan"] = api.public(doc) if documents else slim(doc)
    except api.TriageError as exc:
        record["error"] = str(exc)
    except OSError as exc:
        record["error"] = f"{ref.label}: {exc.strerror or exc}"
    except Exception as exc:  # a reader or a server failing on one run must not stop the sweep
        from triage.sweep.sources import _short

        record["error"] = f"{ref.label}: {_short(exc)}"
    record["cpu_ms"] = (time.thread_time() - start) * 1000.0
    return record


def scan_chunk(chunk: list, kb_dirs: tuple = (), charts: bool = True, documents: bool = True) -> list[dict]:
    """Scan (index, ref) pairs one after the other: the unit an executor ships to a worker."""
    return [scan_ref(ref, kb_dirs, index, charts, documents) for index, ref in chunk]
