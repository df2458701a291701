"""CSV metric logs, read by header name (column order differs between versions):

* Lightning ``CSVLogger`` ``metrics.csv`` (sparse: train and val rows share a step; ``_step``/``_epoch``
  forks; old files keep insertion order),
* Keras ``CSVLogger`` (``epoch,loss,accuracy,val_loss,...``; the epoch is the x-axis),
* SB3 ``progress.csv`` (x-axis ``time/total_timesteps``; ``train/entropy_loss`` is -entropy) and
  ``monitor.csv`` (``#{json}`` header, then ``r,l,t`` per episode; step = cumulative env steps),
* Ultralytics ``results.csv`` (old files pad names and values to 23 characters; epoch is the x-axis;
  ``loss``/``eval/loss`` are the sums of the ``train/*_loss``/``val/*_loss`` components),
* W&B UI export (``"Step","<run> - <metric>","<run> - <metric>__MIN",...``: the first run is read),
* any other CSV with a header and numeric columns.

An empty cell means "not logged at this row", never NaN; ``nan``/``inf`` cells are kept as values.
"""

from __future__ import annotations

import csv
import functools
import io
import json
from pathlib import Path

from triage.ingest import aliases as _aliases
from triage.ingest.builder import NAN, RunBuilder, to_float
from triage.ingest.contract import Found, Layout, Reader, latest, register
from triage.ingest.errors import IngestError
from triage.ingest.run import Run
from triage.ingest.source import Source, is_binary

DIALECTS = ("lightning_csv", "keras_csv", "sb3_progress", "sb3_monitor", "ultralytics", "wandb_csv", "csv")
_ULTRA_KEYS = ("train/box_loss", "train/cls_loss", "metrics/mAP50(B)", "metrics/mAP50-95(B)", "lr/pg0",
               "metrics/accuracy_top1", "train/seg_loss", "metrics/mAP_0.5", "train/obj_loss")

csv.field_size_limit(1 << 26)


def dialect_of(header: list[str], comment: str | None, name: str = "") -> str:
    h = [c.strip() for c in header]
    hs = set(h)
    if comment is not None and comment.startswith("#{") and {"r", "l"} <= hs:
        return "sb3_monitor"
    if {"r", "l", "t"} <= hs and name.endswith("monitor.csv"):
        return "sb3_monitor"
    if sum(1 for c in h if " - " in c) >= 1 and (any(c.endswith(("__MIN", "__MAX")) for c in h)
                                                 or h[0] in ("Step", "_step", "step")):
        if any(" - " in c for c in h[1:]):
            return "wandb_csv"
    if "time/total_timesteps" in hs or sum(1 for c in h if c.startswith(("rollout/", "time/"))) >= 2:
        return "sb3_progress"
    if "epoch" in hs and any(k in hs for k in _ULTRA_KEYS):
        return "ultralytics"
    if "step" in hs and ("epoch" in hs or any(c.endswith(("_step", "_epoch")) for c in h)):
        return "lightning_csv"
    if h and h[0] == "epoch" and "step" not in hs:
        return "keras_csv"
    return "csv"


def read(src: Source, fmt: str | None = None) -> Run:
    text = src.text()
    lines = text.splitlines()
    comment = None
    start = 0
    while start < len(lines) and (not lines[start].strip() or lines[start].lstrip().startswith("#")):
        if lines[start].lstrip().startswith("#") and comment is None:
            comment = lines[start].strip()
        start += 1
    if start >= len(lines):
        raise IngestError(src.path, "CSV file has no header")
    rows = csv.reader(io.StringIO("\n".join(lines[start:])))
    try:
        header = next(rows)
    except (StopIteration, csv.Error) as exc:
        raise IngestError(src.path, f"CSV file has no readable header ({exc})") from None
    header = [c.strip().strip('"').strip() for c in header]
    dialect = fmt if fmt in DIALECTS and fmt != "csv" else dialect_of(header, comment, src.name)
    b = RunBuilder(src.path, dialect, source=dialect)
    if dialect == "wandb_csv":
        _read_wandb(b, header, rows)
        return b.build()
    table = _aliases.table()
    step_col = epoch_col = wall_col = None
    if dialect == "sb3_progress" and "time/total_timesteps" in header:
        step_col = header.index("time/total_timesteps")
    else:
        for k in table.axes["step"]:
            if k in header:
                step_col = header.index(k)
                break
    for k in table.axes["epoch"]:
        if k in header:
            epoch_col = header.index(k)
            break
    for k in table.axes["wall"]:
        if k in header:
            wall_col = header.index(k)
            break
    axis_cols = {c for c in (step_col, epoch_col, wall_col) if c is not None}
    ignore = set(table.axes["ignore"])
    metric_cols = [(i, k) for i, k in enumerate(header) if i not in axis_cols and k and k not in ignore]
    if dialect == "sb3_monitor":
        metric_cols = [(i, k) for i, k in metric_cols if k != "t"]
        t_col = header.index("t") if "t" in header else None
        t_start = _monitor_t_start(comment)
        l_col = header.index("l") if "l" in header else None
        env_steps = 0.0
    ultra_train = [i for i, k in metric_cols if k.startswith("train/") and k.endswith("_loss")]
    ultra_val = [i for i, k in metric_cols if k.startswith("val/") and k.endswith("_loss")]
    ncols = len(header)
    width_bad = 0
    lineno = start + 1
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error:
            b.skip("malformed CSV row")
            lineno += 1
            continue
        lineno += 1
        if not row or not any(c.strip() for c in row):
            b.skip("blank line")
            continue
        if row[0].lstrip().startswith("#"):
            b.skip("comment line")
            continue
        if len(row) != ncols:
            width_bad += 1
            if len(row) < ncols and len(row) < max(2, ncols // 2):
                b.skip("wrong number of columns")
                continue
        step = _cell(row, step_col)
        epoch = _cell(row, epoch_col)
        wall = _cell(row, wall_col)
        if dialect == "sb3_monitor":
            length = _cell(row, l_col)
            if length == length:
                env_steps += length
            step = env_steps
            t = _cell(row, t_col)
            wall = t_start + t if (t_start is not None and t == t) else NAN
        elif step != step and dialect in ("ultralytics", "keras_csv") and epoch == epoch:
            step = epoch
        got = False
        for i, k in metric_cols:
            if i >= len(row):
                continue
            cell = row[i]
            if not cell.strip():
                continue
            f = to_float(cell)
            if f is None:
                continue
            b.add(k, f, step, epoch, wall)
            got = True
        if dialect == "ultralytics":
            for cols, key in ((ultra_train, "loss"), (ultra_val, "eval/loss")):
                if cols:
                    if all(i < len(row) and row[i].strip() for i in cols):
                        b.add(key, sum(_cell(row, i) for i in cols), step, epoch, wall)
        b.end_row(got, step)
    if width_bad:
        b.warn(f"{width_bad} row(s) do not have the header's {ncols} columns")
    if dialect == "sb3_monitor":
        b.meta["x_axis"] = "env_steps"
    elif dialect in ("ultralytics", "keras_csv"):
        b.meta["x_axis"] = "epoch"
    elif dialect == "sb3_progress":
        b.meta["x_axis"] = "env_steps"
    return b.build()


def _cell(row: list[str], i: int | None) -> float:
    if i is None or i >= len(row):
        return NAN
    f = to_float(row[i])
    return NAN if f is None else f


def _monitor_t_start(comment: str | None) -> float | None:
    if not comment:
        return None
    try:
        meta = json.loads(comment.lstrip("#"))
    except ValueError:
        return None
    return to_float(meta.get("t_start")) if isinstance(meta, dict) else None


def _read_wandb(b: RunBuilder, header: list[str], rows) -> None:
    """W&B panel export: first column = x-axis, then '<run> - <metric>' (+ __MIN/__MAX) per run."""
    runs: dict[str, list[tuple[int, str]]] = {}
    for i, col in enumerate(header[1:], 1):
        if col.endswith(("__MIN", "__MAX")) or " - " not in col:
            continue
        run, _, metric = col.rpartition(" - ")
        runs.setdefault(run, []).append((i, metric))
    if not runs:
        raise IngestError(b.path, "W&B export has no '<run> - <metric>' columns")
    names = list(runs)
    chosen = names[0]
    if len(names) > 1:
        b.warn(f"W&B export holds {len(names)} runs; read {chosen!r}, not {', '.join(repr(n) for n in names[1:])}")
    b.meta["wandb_run"] = chosen
    b.meta["sampled_export"] = True
    x_name = header[0]
    b.meta["x_axis"] = x_name
    for row in rows:
        if not row or not any(c.strip() for c in row):
            b.skip("blank line")
            continue
        step = _cell(row, 0)
        got = False
        for i, metric in runs[chosen]:
            if i < len(row) and row[i].strip():
                f = to_float(row[i])
                if f is not None and metric not in ("_step", "_runtime", "_timestamp"):
                    b.add(metric, f, step)
                    got = True
        b.end_row(got, step)


@functools.lru_cache(maxsize=8)  # every CSV dialect asks about the same head
def sniff(head: bytes, name: str = "") -> tuple[str, float]:
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    lines = [ln for ln in text.splitlines()[:20]]
    comment = None
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("#")):
        if lines[0].lstrip().startswith("#") and comment is None:
            comment = lines[0].strip()
        lines.pop(0)
    if len(lines) < 1:
        return "csv", 0.0
    try:
        parsed = list(csv.reader(io.StringIO("\n".join(lines[:10]))))
    except csv.Error:
        return "csv", 0.0
    if not parsed or len(parsed[0]) < 2:
        return "csv", 0.0
    header = [c.strip() for c in parsed[0]]
    if any(c.startswith("{") for c in header[:1]):
        return "csv", 0.0
    widths = {len(r) for r in parsed[1:] if r}
    score = 0.5 if (not widths or widths == {len(header)}) else 0.3
    cells = [c for r in parsed[1:] for c in r if c.strip()]
    numeric = sum(1 for c in cells if to_float(c) is not None) / max(1, len(cells))
    wordy = sum(1 for c in header if len(c) > 48 or c.count(" ") > 4)
    if not name.endswith((".csv", ".tsv")) and (not cells or numeric < 0.5 or wordy or widths != {len(header)}):
        return "csv", 0.0
    numeric_header = sum(1 for c in header if to_float(c) is not None)
    if numeric_header > len(header) // 2:
        return "csv", 0.1  # no header row
    if name.endswith((".csv", ".tsv")):
        score += 0.3
    return dialect_of(header, comment, name), score


# ---------------------------------------------------------------------------- the reader contract
def _sniff_as(dialect: str):
    def sniff_dialect(src: Source) -> float:
        if is_binary(src.head()):
            return 0.0
        d, score = sniff(src.head(), src.name)
        if dialect == "csv":
            return score * 0.9  # any CSV is also `csv`, a little less sure than its own dialect
        return score if d == dialect else 0.0

    return sniff_dialect


def _read_as(dialect: str):
    return lambda src: read(src, fmt=dialect)


def _named(name: str, fmt: str | None = None):
    """A layout that reads `name` in the folder (fmt None: sniffed, as the file may be another dialect)."""

    def find(root: Path) -> Found | None:
        return Found.file(root / name, fmt) if (root / name).is_file() else None

    return find


def _find_monitor(root: Path) -> Found | None:
    monitors = sorted(root.glob("*monitor.csv"))
    if not monitors:
        return None
    notes = [f"{len(monitors)} monitor files; read {monitors[0].name}"] if len(monitors) > 1 else []
    return Found.file(monitors[0], "sb3_monitor", notes)


def _find_version(root: Path) -> Found | None:
    """Lightning's version_N/ folders (also under lightning_logs/): the latest one."""
    versions = [p for p in root.glob("version_*") if p.is_dir()]
    if (root / "lightning_logs").is_dir():
        versions = [p for p in (root / "lightning_logs").glob("version_*") if p.is_dir()] or versions
    if not versions:
        return None
    pick = latest(versions)
    return Found.inside(pick, [f"{len(versions)} Lightning versions; read {pick.name}"] if len(versions) > 1 else [])


_LAYOUTS = {
    "lightning_csv": (Layout(70, "metrics.csv", _named("metrics.csv")),
                      Layout(100, "lightning_logs/version_*", _find_version)),
    "ultralytics": (Layout(80, "results.csv", _named("results.csv")),),
    "sb3_progress": (Layout(85, "progress.csv", _named("progress.csv")),),
    "sb3_monitor": (Layout(90, "*monitor.csv", _find_monitor),),
}
# Each dialect sniffs above plain `csv`, the generic one; only `csv` falls back to text when its read
# fails (a file sniffed as CSV that is not one still has error lines worth reading).
for _d, _priority, _desc, _names in (
        ("lightning_csv", 40, "PyTorch Lightning CSVLogger metrics.csv", ("lightning",)),
        ("keras_csv", 39, "Keras CSVLogger", ("keras",)),
        ("sb3_progress", 38, "Stable-Baselines3 progress.csv", ("sb3",)),
        ("sb3_monitor", 37, "Stable-Baselines3 Monitor monitor.csv", ("monitor",)),
        ("ultralytics", 36, "Ultralytics YOLO results.csv", ("yolo",)),
        ("wandb_csv", 35, "W&B UI panel CSV export", ()),
        ("csv", 30, "any CSV with a header and numeric columns", ())):
    register(Reader(_d, _desc, _sniff_as(_d), _read_as(_d), priority=_priority, aliases=_names,
                    layouts=_LAYOUTS.get(_d, ()), suffixes=(".csv",) if _d == "csv" else (),
                    fallback="text" if _d == "csv" else None))
