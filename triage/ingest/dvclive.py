"""DVCLive run folders. DVCLive writes one TSV per metric under ``dvclive/plots/metrics/`` (1.x and later:
columns ``timestamp``, ``step`` and the metric) or ``dvclive/scalars/`` (0.x), and the metric's full
name is its path there: ``plots/metrics/eval/acc.tsv`` is ``eval/acc``, while the file's own header may
say only ``acc``. Read as a folder, each file's points land under its path's name; a single TSV copied
out of the folder is an ordinary CSV (its header is all it has).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from triage.ingest.builder import NAN, RunBuilder, to_float
from triage.ingest.contract import Found, Layout, Reader, register
from triage.ingest.errors import IngestError
from triage.ingest.run import Run
from triage.ingest.source import Source

_TABLES = ("plots/metrics", "scalars")  # 1.x and later, then 0.x
_AXES = {"step", "timestamp"}


def metric_dir(root: Path) -> Path | None:
    """The folder of per-metric TSVs in a DVCLive folder, or in a `dvclive/` folder inside `root`."""
    for base in (root, root / "dvclive"):
        for sub in _TABLES:
            d = base / sub
            if d.is_dir() and any(d.rglob("*.tsv")):
                return d
    return None


def read_folder(root: Path, label: str) -> Run:
    mdir = metric_dir(root)
    if mdir is None:
        raise IngestError(label, "no DVCLive metrics (plots/metrics/*.tsv or scalars/*.tsv) under this folder")
    return _read_tables(mdir, label)


def _read_tables(mdir: Path, label: str) -> Run:
    """Every TSV under `mdir`, each metric named by its path there."""
    b = RunBuilder(label, "dvclive", source="dvclive")
    steps: set[float] = set()
    files = sorted(mdir.rglob("*.tsv"))
    for fp in files:
        name = fp.relative_to(mdir).with_suffix("").as_posix()  # `eval/acc`: the path names the metric
        try:
            text = fp.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            b.warn(f"{fp}: cannot read ({exc.strerror or exc})")
            continue
        rows = list(csv.reader(io.StringIO(text), delimiter="\t"))
        if not rows:
            continue
        header = [h.strip() for h in rows[0]]
        cols = [i for i, h in enumerate(header) if h.lower() not in _AXES]
        if "step" not in [h.lower() for h in header] or len(cols) != 1:
            b.skip("a DVCLive TSV without one step and one metric column", len(rows))
            continue
        at_step, at_value = [h.lower() for h in header].index("step"), cols[0]
        for row in rows[1:]:
            if not any(cell.strip() for cell in row):
                continue
            step = to_float(row[at_step]) if len(row) > at_step else None
            value = to_float(row[at_value]) if len(row) > at_value else None
            if step is None or value is None:
                b.skip("malformed metric line")
                continue
            b.add(name, value, step, NAN, NAN)
            steps.add(step)
    b.meta["rows"] = len(steps)
    b.meta["dvclive_files"] = len(files)
    return b.build()


def _find(root: Path) -> Found | None:
    mdir = metric_dir(root)
    if mdir is None:
        return None
    top = mdir.parent.parent if mdir.name == "metrics" else mdir.parent
    return Found.folder(top, lambda label: _read_tables(mdir, label))


def _read(src: Source) -> Run:
    """`--format dvclive` on a file: the DVCLive folder it sits in."""
    if src.fs_path is None:
        raise IngestError(src.path, "a DVCLive log is a folder (dvclive/ with plots/metrics/*.tsv)")
    here = src.fs_path if src.fs_path.is_dir() else src.fs_path.parent
    for folder in (here, *here.parents):
        mdir = metric_dir(folder)
        if mdir is not None:
            return _read_tables(mdir, src.path)
    raise IngestError(src.path, "not inside a DVCLive folder (no plots/metrics/*.tsv or scalars/*.tsv above it)")


register(Reader(
    "dvclive", "DVCLive folder (dvclive/plots/metrics/**/*.tsv, 0.x scalars/*.tsv): each metric named by its path",
    lambda src: 0.0,  # a folder, found by its layout; one of its TSVs on its own is a CSV
    _read, priority=84, read_dir=read_folder, sniff_max=0.0,
    layouts=(Layout(15, "dvclive/plots/metrics/", _find),),
))
