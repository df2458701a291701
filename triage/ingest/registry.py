"""The format registry (name -> reader with `sniff` and `read`), content sniffing and directory discovery."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from triage.ingest import csvlog, jsondoc, jsonl, mlflow, textlog, tfevents, wandb
from triage.ingest.errors import IngestError
from triage.ingest.run import Run
from triage.ingest.source import Source

SQLITE_MAGIC = b"SQLite format 3\x00"


@dataclass(frozen=True)
class Reader:
    name: str
    description: str
    sniff: Callable[[Source], float]  # 0..1: how much the input looks like this format
    read: Callable[[Source], Run]


# ------------------------------------------------------------------------------------ sniffers
def _head_text(src: Source) -> bytes:
    h = src.head()
    return h[3:] if h.startswith(b"\xef\xbb\xbf") else h


_CONTROL = bytes(c for c in range(32) if c not in (9, 10, 12, 13, 27, 8))


def _is_binary(head: bytes) -> bool:
    """Binary, not text in some encoding: NUL bytes (UTF-16 text aside) or many control bytes.
    Text that is not UTF-8 (GBK, Latin-1) is still text: its numbers read the same."""
    h = head[:4096]
    if not h:
        return False
    if h.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    if b"\x00" in h:
        return True
    try:
        h.decode("utf-8")
        return False
    except UnicodeDecodeError as exc:
        if exc.start >= len(h) - 4:  # a cut multibyte char at the end is fine
            return False
    controls = len(h) - len(h.translate(None, _CONTROL))
    return controls > 0.05 * len(h)


def _sniff_tensorboard(src: Source) -> float:
    if "tfevents" in src.name:
        return 1.0
    return 0.9 if tfevents.looks_like(src.head()) else 0.0


def _sniff_wandb(src: Source) -> float:
    return 1.0 if src.head()[:4] == wandb.MAGIC else 0.0


def _sniff_sqlite(src: Source) -> float:
    return 1.0 if src.head().startswith(SQLITE_MAGIC) else 0.0


def _json_doc_start(head: bytes) -> bool:
    t = head.lstrip()
    return t[:1] in (b"{", b"[")


def _sniff_hf_state(src: Source) -> float:
    h = _head_text(src)
    if not _json_doc_start(h):
        return 0.0
    if b'"log_history"' in h:
        return 0.95
    return 0.6 if src.name == "trainer_state.json" else 0.0


def _sniff_golden(src: Source) -> float:
    h = _head_text(src)
    if _json_doc_start(h) and b'"start_step"' in h and b'"values"' in h:
        return 0.9
    return 0.0


def _sniff_json(src: Source) -> float:
    h = _head_text(src).lstrip()
    if h[:1] == b"[":
        nxt = h[1:].lstrip()[:1]
        return 0.6 if nxt and (nxt in b'{["-]' or nxt.isdigit()) else 0.0
    if h[:1] == b"{":
        first = h.split(b"\n", 1)[0].rstrip()
        if first.endswith(b"}") and len(h.split(b"\n", 1)) > 1 and h.split(b"\n", 1)[1].lstrip()[:1] == b"{":
            return 0.1  # JSON Lines
        return 0.5 if src.name.endswith(".json") or not first.endswith(b"}") else 0.2
    return 0.0


def _sniff_jsonl(src: Source) -> float:
    score = jsonl.sniff(src.head())
    if score and src.name.endswith((".jsonl", ".ndjson", ".jsonlines")):
        score = max(score, 0.85)
    return score


def _sniff_wandb_legacy(src: Source) -> float:
    if src.name in ("wandb-history.jsonl", "wandb-events.jsonl"):
        return 0.97
    return 0.0


def _sniff_csv_as(dialect: str) -> Callable[[Source], float]:
    def sniff(src: Source) -> float:
        if _is_binary(src.head()):
            return 0.0
        d, score = csvlog.sniff(src.head(), src.name)
        if dialect == "csv":
            return score * 0.9
        return score if d == dialect else 0.0

    return sniff


def _sniff_text_as(dialect: str) -> Callable[[Source], float]:
    def sniff(src: Source) -> float:
        h = src.head()
        if _is_binary(h):
            return 0.0
        d, score = textlog.sniff(h)
        if dialect == "text":
            return min(score, 0.25) if score else (0.05 if h.strip() else 0.0)
        return score if d == dialect else 0.0

    return sniff


def _read_jsonl_as(fmt: str):
    return lambda src: jsonl.read(src, fmt=fmt)


def _read_csv_as(fmt: str):
    return lambda src: csvlog.read(src, fmt=fmt)


def _read_text_as(fmt: str):
    return lambda src: textlog.read(src, fmt=None if fmt == "text" else fmt)


def _read_tb(src: Source) -> Run:
    if src.fs_path is None:
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".tfevents") as tmp:
            tmp.write(src.read_bytes())
            tmp.flush()
            run = tfevents.read_files(src.path, [(Path(tmp.name), "")])
        return run
    if src.gz:
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".tfevents") as tmp:
            tmp.write(src.read_bytes())
            tmp.flush()
            return tfevents.read_files(src.path, [(Path(tmp.name), "")])
    return tfevents.read_files(src.path, [(src.fs_path, "")])


def _read_wandb(src: Source) -> Run:
    if src.fs_path is None or src.gz:
        import tempfile

        with tempfile.NamedTemporaryFile(suffix=".wandb") as tmp:
            tmp.write(src.read_bytes())
            tmp.flush()
            return wandb.read_wandb(Path(tmp.name), src.path)
    return wandb.read_wandb(src.fs_path, src.path)


def _read_sqlite(src: Source) -> Run:
    if src.fs_path is None or src.gz:
        raise IngestError(src.path, "an MLflow SQLite store must be a file on disk")
    return mlflow.read_sqlite(src.fs_path, src.path)


def _read_mlflow(src: Source) -> Run:
    if src.fs_path is None:
        raise IngestError(src.path, "an MLflow file store is a directory (mlruns/)")
    root = src.fs_path
    if root.is_file():
        root = root.parent
    if (root / "mlruns").is_dir():
        root = root / "mlruns"
    return mlflow.read_file_store(root, src.path)


def _sniff_mlflow(src: Source) -> float:
    return 0.0  # directories only (see discover)


_FORMATS: list[Reader] = [
    Reader("tensorboard", "TensorBoard event file (simple_value, new_style and TF2 tensor scalars)",
           _sniff_tensorboard, _read_tb),
    Reader("wandb", "W&B offline/online transaction log run-<id>.wandb", _sniff_wandb, _read_wandb),
    Reader("mlflow_sqlite", "MLflow SQLite tracking store (mlflow.db)", _sniff_sqlite, _read_sqlite),
    Reader("mlflow", "MLflow file store (mlruns/<experiment>/<run>/metrics)", _sniff_mlflow, _read_mlflow),
    Reader("hf_state", "Hugging Face trainer_state.json (Trainer, TRL, axolotl, Unsloth)", _sniff_hf_state,
           lambda src: jsondoc.read(src, fmt="hf_state")),
    Reader("megatron_golden", "Megatron-LM CI golden values JSON", _sniff_golden, lambda src: jsondoc.read(src)),
    Reader("wandb_legacy", "W&B < 0.10 wandb-history.jsonl / wandb-events.jsonl", _sniff_wandb_legacy,
           _read_jsonl_as("wandb_legacy")),
    Reader("jsonl", "JSON Lines / NDJSON metric log (also gzip and stdin)", _sniff_jsonl, _read_jsonl_as("jsonl")),
    Reader("json", "a JSON document: rows, columns or one of the above", _sniff_json, lambda src: jsondoc.read(src)),
]
for _d, _desc in (("lightning_csv", "PyTorch Lightning CSVLogger metrics.csv"),
                  ("keras_csv", "Keras CSVLogger"),
                  ("sb3_progress", "Stable-Baselines3 progress.csv"),
                  ("sb3_monitor", "Stable-Baselines3 Monitor monitor.csv"),
                  ("ultralytics", "Ultralytics YOLO results.csv"),
                  ("wandb_csv", "W&B UI panel CSV export"),
                  ("csv", "any CSV with a header and numeric columns")):
    _FORMATS.append(Reader(_d, _desc, _sniff_csv_as(_d), _read_csv_as(_d)))
for _d, _desc in (("hf_stdout", "HF Trainer / TRL / axolotl stdout (dict lines)"),
                  ("keras_stdout", "Keras fit() stdout"),
                  ("llmc", "llm.c stdout and main.log"),
                  ("nanogpt", "nanoGPT stdout"),
                  ("megatron", "Megatron-LM / Megatron-DeepSpeed stdout"),
                  ("torchtune", "torchtune DiskLogger / stdout"),
                  ("verl", "verl console logger"),
                  ("sb3_stdout", "Stable-Baselines3 stdout tables"),
                  ("text", "any text: tracebacks, errors, warnings, loss-scale overflow lines")):
    _FORMATS.append(Reader(_d, _desc, _sniff_text_as(_d), _read_text_as(_d)))

FORMATS: dict[str, Reader] = {r.name: r for r in _FORMATS}
ALIASES = {"ndjson": "jsonl", "trainer_state": "hf_state", "tfevents": "tensorboard", "tb": "tensorboard",
           "lightning": "lightning_csv", "keras": "keras_csv", "sb3": "sb3_progress", "monitor": "sb3_monitor",
           "yolo": "ultralytics", "stdout": "text", "log": "text", "llm.c": "llmc", "wandb_history": "wandb_legacy"}


def sniff(src: Source) -> str:
    """The best format for a file (never fails: 'text' is the last resort)."""
    head = src.head()
    if not head.strip():
        return "text"
    scores = []
    for r in _FORMATS:
        try:
            s = r.sniff(src)
        except Exception:  # a sniffer must never stop reading
            s = 0.0
        if s > 0:
            scores.append((s, -_FORMATS.index(r), r.name))
    if not scores:
        return "binary" if _is_binary(head) else "text"
    scores.sort(reverse=True)
    return scores[0][2]


# ---------------------------------------------------------------------------------- directories
_EVENT_RE = re.compile(r"events\.out\.tfevents\.")
_SPLIT_DIRS = {"train": "train/", "training": "train/", "validation": "validation/", "val": "validation/",
               "valid": "validation/", "eval": "eval/", "evaluation": "eval/", "test": "test/"}


def _latest(paths: list[Path]) -> Path:
    def key(p: Path):
        m = re.search(r"(\d+)$", p.name)
        try:
            mt = p.stat().st_mtime
        except OSError:
            mt = 0
        return (int(m.group(1)) if m else -1, mt, p.name)

    return max(paths, key=key)


def _event_files(root: Path, depth: int = 4) -> list[Path]:
    out = []
    root_depth = len(root.parts)
    for dirpath, dirs, files in os.walk(root):
        d = Path(dirpath)
        if len(d.parts) - root_depth >= depth:
            dirs[:] = []
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in files:
            if _EVENT_RE.search(f):
                out.append(d / f)
    return sorted(out)


def discover(root: Path, label: str) -> tuple[str, object, list[str]]:
    """What to read in a directory: (kind, payload, notes)."""
    notes: list[str] = []
    if (root / "mlruns").is_dir() and mlflow.find_runs(root / "mlruns"):
        return "mlflow", root / "mlruns", notes
    if mlflow.is_run_dir(root) or (root.name == "mlruns" and mlflow.find_runs(root)) or (
            (root / "meta.yaml").is_file() and mlflow.find_runs(root)):
        return "mlflow", root, notes
    if (root / "mlflow.db").is_file():
        return "file", (root / "mlflow.db", "mlflow_sqlite"), notes
    wb = sorted(root.glob("run-*.wandb"))
    if wb:
        if len(wb) > 1:
            notes.append(f"{len(wb)} .wandb files; read {wb[-1].name}")
        return "file", (wb[-1], "wandb"), notes
    wb_runs = [p for p in root.iterdir() if p.is_dir() and re.match(r"(offline-)?run-\d{8}_\d{6}-", p.name)
               and any(p.glob("run-*.wandb"))]
    if wb_runs:
        pick = max(wb_runs, key=lambda p: p.name.split("-", 2)[-1] if p.name.startswith("offline") else p.name[4:])
        if len(wb_runs) > 1:
            notes.append(f"{len(wb_runs)} W&B runs; read {pick.name}")
        kind, payload, more = discover(pick, label)
        return kind, payload, notes + more
    if (root / "wandb").is_dir():
        sub = root / "wandb"
        latest = sub / "latest-run"
        if latest.is_dir():
            return discover(latest.resolve(), label)
        runs = [p for p in sub.iterdir() if p.is_dir() and re.match(r"(offline-)?run-", p.name)]
        if runs:
            pick = max(runs, key=lambda p: p.name.split("-", 2)[-1] if p.name.startswith("offline") else p.name[4:])
            if len(runs) > 1:
                notes.append(f"{len(runs)} W&B runs; read {pick.name}")
            return discover(pick, label)
    for cand in (root / "wandb-history.jsonl", root / "files" / "wandb-history.jsonl"):
        if cand.is_file():
            return "file", (cand, "wandb_legacy"), notes
    if (root / "trainer_state.json").is_file():
        return "file", (root / "trainer_state.json", "hf_state"), notes
    ckpts = [p for p in root.glob("checkpoint-*") if (p / "trainer_state.json").is_file()]
    if ckpts:
        pick = _latest(ckpts)
        notes.append(f"read {pick.name}/trainer_state.json (the latest checkpoint)")
        return "file", (pick / "trainer_state.json", "hf_state"), notes
    if (root / "trainer_log.jsonl").is_file():
        return "file", (root / "trainer_log.jsonl", "jsonl"), notes
    if (root / "metrics.csv").is_file():
        return "file", (root / "metrics.csv", None), notes
    for name in ("results.csv", "progress.csv"):
        if (root / name).is_file():
            return "file", (root / name, None), notes
    monitors = sorted(root.glob("*monitor.csv"))
    if monitors:
        if len(monitors) > 1:
            notes.append(f"{len(monitors)} monitor files; read {monitors[0].name}")
        return "file", (monitors[0], "sb3_monitor"), notes
    versions = [p for p in root.glob("version_*") if p.is_dir()]
    if (root / "lightning_logs").is_dir():
        versions = [p for p in (root / "lightning_logs").glob("version_*") if p.is_dir()] or versions
    if versions:
        pick = _latest(versions)
        if len(versions) > 1:
            notes.append(f"{len(versions)} Lightning versions; read {pick.name}")
        kind, payload, more = discover(pick, label)
        return kind, payload, notes + more
    events = _event_files(root)
    if events:
        return "tensorboard", _tb_plan(root, events, notes), notes
    # any single readable log file
    files = [p for p in sorted(root.iterdir()) if p.is_file() and not p.name.startswith(".")
             and p.name.lower() not in _NOT_LOGS and not p.name.lower().endswith((".config.json", ".config.yaml"))]
    logs = [p for p in files if p.suffix.lower() in (".jsonl", ".ndjson", ".json", ".csv", ".log", ".txt", ".out",
                                                        ".gz", ".err")]
    if logs:
        logs.sort(key=lambda p: (p.suffix.lower() not in (".jsonl", ".ndjson", ".json", ".csv"), -_size(p)))
        if len(logs) > 1:
            notes.append(f"{len(logs)} candidate files; read {logs[0].name}")
        return "file", (logs[0], None), notes
    raise IngestError(label, "no training log found in this directory (looked for event files, mlruns, a wandb "
                             "run, trainer_state.json, metrics.csv, results.csv, progress.csv, *.jsonl, *.log)")


# Files that sit beside training logs but are not logs: configs, tokenizers, run labels.
_NOT_LOGS = {
    "config.json", "hparams.yaml", "config.yaml", "training_args.json", "args.json", "trainer_config.json",
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "generation_config.json",
    "adapter_config.json", "preprocessor_config.json", "label.json", "labels.json", "wandb-summary.json",
    "wandb-metadata.json", "requirements.txt", "meta.yaml", "vocab.json", "merges.txt",
}


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


def _tb_plan(root: Path, events: list[Path], notes: list[str]) -> list[tuple[Path, str]]:
    """Which event files form one run, each with a tag prefix."""
    by_dir: dict[Path, list[Path]] = {}
    for e in events:
        by_dir.setdefault(e.parent, []).append(e)
    if len(by_dir) == 1:
        return [(e, "") for e in events]
    # Keras writes train/ and validation/ side by side; torch add_scalars writes sub-runs under the run
    rels = {d: d.relative_to(root) for d in by_dir}
    if root in by_dir or all(len(r.parts) == 1 and r.parts[0].lower() in _SPLIT_DIRS for r in rels.values()):
        plan = []
        for d, files in sorted(by_dir.items()):
            r = rels[d]
            if not r.parts:
                prefix = ""
            elif len(r.parts) == 1 and r.parts[0].lower() in _SPLIT_DIRS:
                prefix = _SPLIT_DIRS[r.parts[0].lower()]
            else:
                prefix = r.as_posix() + "/"
            plan.extend((f, prefix) for f in files)
        return plan
    # several runs (e.g. HF output_dir/runs/<date_host>/): the one written last
    parents: dict[Path, list[Path]] = {}
    for d in by_dir:
        r = rels[d]
        top = root / r.parts[0] if r.parts[0] not in ("runs", "logs", "tb", "tensorboard") or len(r.parts) == 1 \
            else root / r.parts[0] / r.parts[1]
        parents.setdefault(top, []).append(d)
    if len(parents) == 1:
        top = next(iter(parents))
        return _tb_plan(top, [e for e in events if top in e.parents], notes)

    def newest(top: Path) -> float:
        return max(_mtime(e) for d in parents[top] for e in by_dir[d])

    pick = max(parents, key=newest)
    notes.append(f"{len(parents)} TensorBoard runs; read {pick.relative_to(root).as_posix()} (written last)")
    return _tb_plan(pick, [e for e in events if pick in e.parents], notes)


def _mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0


# ---------------------------------------------------------------------------------- entry point
def resolve_format(fmt: str | None) -> str | None:
    if fmt is None or fmt in ("", "auto"):
        return None
    name = ALIASES.get(fmt.lower(), fmt.lower())
    if name not in FORMATS:
        raise IngestError("--format", f"unknown format {fmt!r}; known: {', '.join(sorted(FORMATS))}")
    return name


def read_run(path, fmt: str | None = None) -> Run:
    label = str(path)
    name = resolve_format(fmt)
    if label != "-":
        p = Path(path)
        if not p.exists():
            raise IngestError(label, "no such file or directory")
        if not os.access(p, os.R_OK):
            raise IngestError(label, "permission denied")
        if p.is_dir():
            return _with_alias_problems(_read_dir(p, label, name))
    src = Source.from_path(path)
    return _with_alias_problems(_read_file(src, name))


def _with_alias_problems(run: Run) -> Run:
    from triage.ingest.aliases import table

    for problem in table().problems:
        run.warn(problem)
    return run


def not_a_log(head: bytes) -> str | None:
    """What a file is when it is plainly not a training log (named, for the error line)."""
    h = head.lstrip()[:512]
    if h.startswith(b"version https://git-lfs.github.com/spec/"):
        return "a git-lfs pointer, not the file itself (fetch it with `git lfs pull`)"
    low = h[:64].lower()
    if low.startswith((b"<!doctype html", b"<html", b"<?xml")) or (low.startswith(b"<") and b"<head" in h.lower()):
        return "an HTML or XML page, not a log (save the raw file, not the page that shows it)"
    if h.startswith((b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"%PDF", b"PK\x03\x04", b"\x7fELF")):
        return "an image, PDF, archive or program, not a log"
    return None


def _read_file(src: Source, name: str | None) -> Run:
    if src.fs_path is not None and src.size() == 0:
        raise IngestError(src.path, "empty file")
    if src.data is not None and not src.data.strip():
        raise IngestError(src.path, "empty input")
    what = not_a_log(src.head()) if name is None else None
    if what:
        raise IngestError(src.path, what)
    if name is None:
        name = sniff(src)
        if name == "binary":
            raise IngestError(src.path, "unrecognised binary file (not a TensorBoard, W&B or SQLite log)")
        try:
            return _guard(FORMATS[name].read, src, name)
        except IngestError:
            if name not in ("json", "hf_state", "megatron_golden", "csv") or _is_binary(src.head()):
                raise
            # it looked like JSON/CSV but is not: read it as text (events, dialect lines) instead
            return _guard(FORMATS["text"].read, src, "text")
    return _guard(FORMATS[name].read, src, name)


def _guard(fn, src: Source, name: str) -> Run:
    try:
        return fn(src)
    except IngestError:
        raise
    except MemoryError:
        raise IngestError(src.path, "out of memory while reading") from None
    except (OSError, EOFError) as exc:
        raise IngestError(src.path, f"cannot read ({exc.__class__.__name__}: {exc})") from None
    except Exception as exc:  # a reader bug must still end in one line, not a traceback
        if os.environ.get("TRIAGE_DEBUG"):
            raise
        raise IngestError(src.path, f"cannot read as {name} ({exc.__class__.__name__}: {exc})") from None


def _read_dir(root: Path, label: str, name: str | None) -> Run:
    if name == "mlflow":
        return mlflow.read_file_store(root / "mlruns" if (root / "mlruns").is_dir() else root, label)
    if name == "tensorboard":
        events = _event_files(root)
        if not events:
            raise IngestError(label, "no TensorBoard event files in this directory")
        notes: list[str] = []
        run = tfevents.read_files(label, _tb_plan(root, events, notes))
        for n in notes:
            run.warn(n)
        return run
    kind, payload, notes = discover(root, label)
    if kind == "mlflow":
        run = mlflow.read_file_store(payload, label)  # type: ignore[arg-type]
    elif kind == "tensorboard":
        run = tfevents.read_files(label, payload)  # type: ignore[arg-type]
    else:
        path, fmt = payload  # type: ignore[misc]
        src = Source.from_path(path)
        run = _read_file(src, name or fmt)
        run.meta["file"] = str(path)
        if fmt == "wandb":
            _merge_output_log(run, path.parent / "files" / "output.log")
    run.path = label
    for n in notes:
        run.warn(n)
    return run


def _merge_output_log(run: Run, log: Path) -> None:
    """A W&B run folder keeps the console in files/output.log: add its events (tracebacks, errors)."""
    if not log.is_file():
        return
    try:
        text_run = textlog.read(Source.from_path(log))
    except IngestError:
        return
    run.events.extend(text_run.events)
    if text_run.events:
        run.meta["events_from"] = str(log)
