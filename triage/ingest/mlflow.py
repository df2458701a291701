"""MLflow tracking stores: the file store (``mlruns/<experiment>/<run>/metrics/<key>`` with lines
``<timestamp_ms> <value> <step>[ <dataset> <digest>]``) and the SQLite store (``mlflow.db``, table
``metrics``). Values are Python ``str(float)``, so ``nan``/``inf`` appear literally and are kept.
When a store holds several runs, the most recent one is read and the others are named in a warning.
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

from triage.ingest import aliases as _aliases
from triage.ingest.builder import NAN, RunBuilder, to_float
from triage.ingest.contract import Found, Layout, Reader, register
from triage.ingest.errors import IngestError
from triage.ingest.run import Run
from triage.ingest.source import HEAD_BYTES, Source

_RUN_ID_LEN = 32


def _yaml_scalar(path: Path, key: str) -> str | None:
    """A top-level scalar from a small meta.yaml without a YAML parser."""
    try:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith(key + ":"):
                return line.split(":", 1)[1].strip().strip("'\"") or None
    except OSError:
        return None
    return None


def is_run_dir(p: Path) -> bool:
    return (p / "metrics").is_dir() and (p / "meta.yaml").is_file()


def find_runs(root: Path) -> list[Path]:
    """Run folders under an mlruns tree, an experiment folder or a run folder."""
    if is_run_dir(root):
        return [root]
    runs = []
    for exp in sorted(root.iterdir()) if root.is_dir() else []:
        if exp.name.startswith(".") or not exp.is_dir():
            continue
        if is_run_dir(exp):
            runs.append(exp)
            continue
        if (exp / "meta.yaml").is_file() or exp.name.isdigit():
            for run in sorted(exp.iterdir()):
                if run.is_dir() and is_run_dir(run):
                    runs.append(run)
    return runs


def _start_time(run: Path) -> float:
    v = to_float(_yaml_scalar(run / "meta.yaml", "start_time"))
    if v is not None:
        return v
    try:
        return run.stat().st_mtime * 1000
    except OSError:
        return 0.0


def read_file_store(root: Path, label: str) -> Run:
    runs = find_runs(root)
    if not runs:
        raise IngestError(label, "no MLflow run (no <experiment>/<run>/metrics folder) under this path")
    runs.sort(key=_start_time)
    run = runs[-1]
    b = RunBuilder(label, "mlflow", source="mlflow")
    if len(runs) > 1:
        others = ", ".join(r.name for r in runs[:-1][-5:])
        b.warn(f"{len(runs)} MLflow runs here; read the latest ({run.name}); others: {others}")
    b.meta["mlflow_run"] = {"run_id": run.name, "experiment": run.parent.name,
                            "status": _yaml_scalar(run / "meta.yaml", "status"),
                            "run_name": _yaml_scalar(run / "meta.yaml", "run_name")}
    mdir = run / "metrics"
    points: list = []
    for dirpath, _dirs, files in os.walk(mdir):
        for fn in files:
            fp = Path(dirpath) / fn
            key = fp.relative_to(mdir).as_posix()
            try:
                text = fp.read_text(encoding="utf-8", errors="replace")
            except OSError as exc:
                b.warn(f"{fp}: cannot read ({exc.strerror or exc})")
                continue
            _metric_lines(b, text, key, points, (2, 3, 5))
    _emit_points(b, points)
    return b.build()


def _metric_lines(b: RunBuilder, text: str, key: str, points: list, lengths: tuple[int, ...]) -> None:
    """Append a metric file's `timestamp value [step [...]]` lines to `points` as (step, ts, key, value);
    a line with another number of fields, or one that is not numbers, is skipped and counted. A line
    with no step (two fields) is at step 0."""
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        if len(parts) not in lengths:
            b.skip("malformed metric line")
            continue
        ts = to_float(parts[0])
        val = to_float(parts[1])
        step = to_float(parts[2]) if len(parts) >= 3 else 0.0
        if val is None or ts is None or step is None:
            b.skip("malformed metric line")
            continue
        points.append((step, ts, key, val))


def _emit_points(b: RunBuilder, points: list) -> None:
    # lines are in append order: sort by (step, timestamp) so the last write of a step wins
    points.sort(key=lambda p: (p[0], p[1]))
    steps = set()
    for step, ts, key, val in points:
        b.add(key, val, step, NAN, ts / 1000.0)
        steps.add(step)
        b.row += 1
    b.meta["rows"] = len(steps)


def read_sqlite(path: Path, label: str) -> Run:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise IngestError(label, f"cannot open SQLite database ({exc})") from None
    try:
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as exc:
            raise IngestError(label, f"not an SQLite database ({exc})") from None
        if "metrics" not in tables:
            raise IngestError(label, "SQLite database has no MLflow `metrics` table")
        run_id = None
        if "runs" in tables:
            row = con.execute("SELECT run_uuid FROM runs ORDER BY start_time DESC LIMIT 1").fetchone()
            run_id = row[0] if row else None
            n = con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        else:
            n = 0
        if run_id is None:
            row = con.execute("SELECT run_uuid FROM metrics ORDER BY timestamp DESC LIMIT 1").fetchone()
            run_id = row[0] if row else None
        b = RunBuilder(label, "mlflow_sqlite", source="mlflow")
        if run_id is None:
            b.warn("the MLflow database holds no metrics")
            return b.build()
        if n > 1:
            b.warn(f"{n} MLflow runs in the database; read the latest ({run_id})")
        b.meta["mlflow_run"] = {"run_id": run_id}
        cols = {r[1] for r in con.execute("PRAGMA table_info(metrics)")}
        nan_col = ", is_nan" if "is_nan" in cols else ", 0"
        points = []
        for key, value, ts, step, is_nan in con.execute(
                f"SELECT key, value, timestamp, step{nan_col} FROM metrics WHERE run_uuid = ?", (run_id,)):
            v = NAN if is_nan else to_float(value)
            if v is None:
                b.skip("non-numeric value")
                continue
            points.append((float(step or 0), float(ts or 0), str(key), v))
        _emit_points(b, points)
        return b.build()
    except sqlite3.Error as exc:
        raise IngestError(label, f"SQLite error ({exc})") from None
    finally:
        con.close()


# ---------------------------------------------------------------------------- the reader contract
SQLITE_MAGIC = b"SQLite format 3\x00"


# One line of a file store's metric file: `<timestamp ms> <value> <step>`, MLflow 2 adding `<dataset> <digest>`
_METRIC_LINE = re.compile(rb"^\d{10,13} (?:[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+)|nan|-?inf|NaN|-?Infinity) "
                          rb"-?\d+(?: \S+ \S+)?\r?$")


def _sniff_metric_file(src: Source) -> float:
    """A metric file of a file store on its own (`mlruns/<exp>/<run>/metrics/loss`): every line of
    its head is one point."""
    head = src.head()
    if not head[:1].isdigit():
        return 0.0
    lines = head.split(b"\n")
    if len(head) == HEAD_BYTES or not head.endswith(b"\n"):
        lines = lines[:-1]  # (the last line may be cut)
    lines = [ln for ln in lines if ln.strip()]
    if not lines or not all(_METRIC_LINE.match(ln) for ln in lines[:50]):
        return 0.0
    return 0.9


def _read_metric_file(src: Source) -> Run:
    """One metric file: its points under the metric's key, which is the file's name (a name that is no
    known metric as it stands is read by the known metric its words end with)."""
    key = src.name
    known = _aliases.table().resolve(key)
    if not known.known:
        from triage.ingest.csvlog import metric_suffix

        key = metric_suffix(key) or key
    b = RunBuilder(src.path, "mlflow", source="mlflow")
    points: list = []
    _metric_lines(b, src.text(), key, points, (3, 5))  # (alone, a file must give its steps)
    _emit_points(b, points)
    return b.build()


def _read_store(src: Source) -> Run:
    """`--format mlflow` on a file: the store it sits in (a run's meta.yaml, a metric file)."""
    if src.fs_path is None:
        raise IngestError(src.path, "an MLflow file store is a directory (mlruns/)")
    root = src.fs_path
    if root.is_file() and not is_run_dir(root.parent.parent) and _sniff_metric_file(src):
        return _read_metric_file(src)  # a metric file copied out of its store
    if root.is_file():
        root = root.parent
    if (root / "mlruns").is_dir():
        root = root / "mlruns"
    return read_file_store(root, src.path)


def _read_store_dir(root: Path, label: str) -> Run:
    return read_file_store(root / "mlruns" if (root / "mlruns").is_dir() else root, label)


def _find_store(root: Path) -> Found | None:
    """mlruns/ inside the folder, or the folder is mlruns/, an experiment or a run."""
    if (root / "mlruns").is_dir() and find_runs(root / "mlruns"):
        store = root / "mlruns"
    elif is_run_dir(root) or (root.name == "mlruns" and find_runs(root)) or (
            (root / "meta.yaml").is_file() and find_runs(root)):
        store = root
    else:
        return None
    return Found.folder(store, lambda label: read_file_store(store, label))


def _read_db(src: Source) -> Run:
    if src.fs_path is None or src.gz:
        raise IngestError(src.path, "an MLflow SQLite store must be a file on disk")
    return read_sqlite(src.fs_path, src.path)


def _find_db(root: Path) -> Found | None:
    return Found.file(root / "mlflow.db", "mlflow_sqlite") if (root / "mlflow.db").is_file() else None


register(Reader(
    "mlflow", "MLflow file store (mlruns/<experiment>/<run>/metrics)",
    _sniff_metric_file,  # a store is a folder, found by its layout; one metric file of it is sniffed
    _read_store, priority=85, read_dir=_read_store_dir, sniff_max=0.9,
    layouts=(Layout(10, "mlruns/", _find_store),),
))
register(Reader(
    "mlflow_sqlite", "MLflow SQLite tracking store (mlflow.db)",
    lambda src: 1.0 if src.head().startswith(SQLITE_MAGIC) else 0.0, _read_db, priority=86,
    layouts=(Layout(20, "mlflow.db", _find_db),),
))
