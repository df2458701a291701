"""Whole-document JSON logs: HF ``trainer_state.json`` (and TRL/axolotl/LLaMA-Factory/Unsloth variants),
Megatron CI golden values, a JSON array of row objects, or a dict of equal-length columns.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from triage.ingest import jsonl as _jsonl
from triage.ingest.builder import NAN, RunBuilder, to_float
from triage.ingest.contract import Found, Layout, Reader, latest, register
from triage.ingest.errors import IngestError
from triage.ingest.run import Run
from triage.ingest.source import Source, strip_bom

_STATE_META = ("global_step", "max_steps", "logging_steps", "eval_steps", "save_steps", "num_train_epochs",
               "train_batch_size", "best_metric", "best_global_step", "best_model_checkpoint", "epoch",
               "num_input_tokens_seen", "total_flos")


MAX_DEPTH = 200  # no log nests deeper; a deeper document is refused before any recursive parser sees it


def load(src: Source, final: bool = False):
    """The document, parsed. Raises IngestError: final (no reading as text after) when the file is
    surely JSON gone wrong (too deep, or cut short) or when `final` says the format is certain."""
    data = strip_bom(src.read_bytes())
    if not data.strip():
        raise IngestError(src.path, "empty file")
    depth = nesting(data)
    if depth > MAX_DEPTH:
        raise IngestError(src.path, f"JSON nested more than {MAX_DEPTH} levels deep ({depth:,}); no "
                                    "training log looks like this, so it is not read", final=True)
    try:
        return _jsonl._loads_fast(_jsonl._quote_nonfinite(data)) if _jsonl._ms else json.loads(data)
    except (ValueError, RecursionError):
        pass
    try:
        return json.loads(data.decode("utf-8", "replace"))
    except RecursionError:
        raise IngestError(src.path, "JSON nested too deeply", final=True) from None
    except ValueError as exc:
        open_at = unclosed(data)
        # cut short only when the parse ran to the end (`[2019/06/24 ...` log lines fail at once)
        if open_at and getattr(exc, "pos", 0) >= len(data.rstrip()) - 2:
            saved = _complete_history(data)
            if saved:  # a trainer_state.json cut short: its whole log entries are read, the cut one is not
                return {"log_history": saved, "_cut_short": len(data)}
            raise IngestError(src.path, f"the JSON document is cut short: it ends after {len(data):,} bytes "
                                        f"with {open_at} still open (a file copied while it was being "
                                        "written?); nothing was read from it", final=True) from None
        raise IngestError(src.path, f"not valid JSON ({exc.__class__.__name__}: {exc})", final=final) from None


def _complete_history(data: bytes) -> list | None:
    """The whole entries of a `log_history` list in a JSON document cut short (a trainer_state.json
    copied while it was written, or cut to a size), in order; None when there are none."""
    at = data.find(b'"log_history"')
    if at < 0:
        return None
    text = data[at:].decode("utf-8", "replace")
    i = text.find("[")
    if i < 0:
        return None
    dec, out, i = json.JSONDecoder(), [], i + 1
    while True:
        while i < len(text) and text[i] in " \t\r\n,":
            i += 1
        if i >= len(text) or text[i] == "]":
            break
        try:
            entry, i = dec.raw_decode(text, i)
        except ValueError:
            break  # the entry the cut went through
        out.append(entry)
    return out or None


_STRINGS = None


def _strip_strings(data: bytes) -> bytes:
    """`data` without its complete JSON strings (so brackets inside them do not count)."""
    global _STRINGS
    import re

    if _STRINGS is None:
        _STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
    return _STRINGS.sub(b'""', data)


def nesting(data: bytes) -> int:
    """The deepest bracket nesting of a JSON text (strings left out), in C-speed passes: a
    document of 100,000 `[` is measured, not recursed into."""
    if data.count(b"[") + data.count(b"{") <= MAX_DEPTH:
        return 0
    import numpy as np

    bare = np.frombuffer(_strip_strings(data), dtype=np.uint8)
    step = np.zeros(256, dtype=np.int8)
    step[ord("[")] = step[ord("{")] = 1
    step[ord("]")] = step[ord("}")] = -1
    depth = np.cumsum(step[bare], dtype=np.int64)
    return int(depth.max()) if len(depth) else 0


def unclosed(data: bytes) -> str | None:
    """'an object' / 'an array' / 'a string' when the text stops inside one (a truncated file),
    else None (the JSON is wrong some other way)."""
    bare = _strip_strings(data)
    if bare.count(b'"') % 2:
        return "a string"
    stack = []
    for ch in bare.translate(None, delete=bytes(c for c in range(256) if c not in b"[]{}")):
        if ch in b"[{":
            stack.append(ch)
        elif stack:
            stack.pop()
    if not stack:
        return None
    return "an object" if stack[-1] == ord("{") else "an array"


def kind_of(doc) -> str | None:
    if isinstance(doc, dict):
        if isinstance(doc.get("log_history"), list):
            return "hf_state"
        if isinstance(doc.get("iterations"), list) and isinstance(doc.get("meta"), dict) \
                and isinstance(doc["meta"].get("learn_metrics"), list):
            return "catboost"
        if doc and all(isinstance(v, dict) and isinstance(v.get("values"), dict) for v in doc.values()):
            return "megatron_golden"
        if doc and all(isinstance(v, dict) and isinstance(v.get("values"), list) and isinstance(v.get("steps"), list)
                       for v in doc.values()):
            return "json_series"
        if _point_lists(doc) is not None:
            return "json_point_lists"
        if doc and all(isinstance(v, list) for v in doc.values()):
            lens = {len(v) for v in doc.values()}
            if len(lens) == 1:
                return "json_columns"
        flat = _grouped_columns(doc)
        if flat is not None:
            return "json_grouped_columns"
        if _history_group(doc) is not None:
            return "json_history_group"
        if _record_list(doc) is not None:
            return "json_record_list"
        return None
    if isinstance(doc, list) and doc and sum(isinstance(r, dict) for r in doc[:100]) > 0:
        return "json_rows"
    return None


def read(src: Source, fmt: str | None = None, doc=None) -> Run:
    if doc is None:
        doc = load(src, final=fmt == "hf_state" and b'"log_history"' in strip_bom(src.head()))
    kind = kind_of(doc)
    if fmt == "hf_state" and kind != "hf_state":
        raise IngestError(src.path, "not a trainer_state.json (no log_history list)")
    if kind == "hf_state":
        return read_state(src, doc)
    if kind == "megatron_golden":
        return read_golden(src, doc)
    if kind == "json_series":
        return read_series(src, doc)
    if kind == "catboost":
        return read_catboost(src, doc)
    if kind == "json_point_lists":
        return read_point_lists(src, _point_lists(doc) or {})
    if kind in ("json_rows", "json_record_list"):
        b = RunBuilder(src.path, "json", source="jsonl")
        ctx = _jsonl._Ctx(b, null_is_nan=False)
        _jsonl._emit(ctx, doc if kind == "json_rows" else _record_list(doc) or [], 1)
        ctx.finish()
        return b.build()
    if kind in ("json_columns", "json_grouped_columns", "json_history_group"):
        cols = doc if kind == "json_columns" else (_grouped_columns(doc) if kind == "json_grouped_columns"
                                                   else _history_group(doc)) or {}
        rows = [dict(zip(cols, vals)) for vals in zip(*cols.values())]
        b = RunBuilder(src.path, "json", source="jsonl")
        ctx = _jsonl._Ctx(b, null_is_nan=False)
        _jsonl._emit(ctx, rows, 1)
        ctx.finish()
        return b.build()
    if isinstance(doc, dict):
        # a single JSON object: one row
        b = RunBuilder(src.path, "json", source="jsonl")
        ctx = _jsonl._Ctx(b, null_is_nan=False)
        _jsonl._emit(ctx, [doc], 1)
        ctx.finish()
        run = b.build()
        if run.series and _names_a_metric(run):
            return run
    raise IngestError(src.path, "JSON document with no metrics (expected trainer_state.json, rows or columns)")


def _names_a_metric(run: Run) -> bool:
    """A lone JSON object is one row of results only when one of its numbers is named as a metric of a
    model (`{"eval_loss": 0.41, "params": {...}}`); an export of some other record (a cyclist's weekly
    hours and stress scores, a build's sizes) has numbers under names no run logs."""
    from triage.ingest.printed import known_key

    return any(known_key(name, loose=True) or known_key(name.rsplit("/", 1)[-1], loose=True) for name in run.series)


_AXIS_PLURALS = {"epochs": "epoch", "steps": "step", "iterations": "iteration"}  # a column of the axis' values


def _grouped_columns(doc: dict) -> dict | None:
    """A history saved with its columns under a group (`{"epochs": [...], "metrics": {"loss": [...],
    "val_loss": [...]}}`): the columns as one flat dict (`metrics/loss`), when every list has one
    length and there are two or more; None for any other shape."""
    flat: dict = {}
    for k, v in doc.items():
        if isinstance(v, list):
            flat[_AXIS_PLURALS.get(str(k), str(k))] = v
        elif isinstance(v, dict) and v and all(isinstance(x, list) for x in v.values()):
            flat.update({f"{k}/{k2}": x for k2, x in v.items()})
        else:
            return None
    if len(flat) < 2 or len({len(v) for v in flat.values()}) != 1 or not any(isinstance(v, dict) for v in doc.values()):
        return None
    return flat


def _history_group(doc: dict) -> dict | None:
    """A run report that keeps the per-epoch history beside its settings and final scores (`{"model_info":
    {...}, "final_metrics": {...}, "training_history": {"loss": [...], "val_loss": [...]}}`, a Keras
    `History.history` saved inside a summary): the one group of two or more equal-length lists of numbers,
    at least two long and naming a metric, read as the columns. None when there is no such group or more
    than one."""
    from triage.ingest.printed import known_key

    found = None
    for v in doc.values():
        if not isinstance(v, dict) or len(v) < 2 or not all(isinstance(x, list) for x in v.values()):
            continue
        if len({len(x) for x in v.values()}) != 1 or len(next(iter(v.values()))) < 2 \
                or not all(type(n) in (int, float) for x in v.values() for n in x) \
                or not any(known_key(str(k)) for k in v):
            continue
        if found is not None:
            return None
        found = {_AXIS_PLURALS.get(str(k), str(k)): x for k, x in v.items()}
    return found


def _record_list(doc: dict) -> list | None:
    """A run report that keeps its per-epoch records as a list beside its settings and best scores
    (`{"seed": 42, "best": {...}, "epochs": [{"epoch": 1, "train_loss": 0.65, ...}, ...]}`): that list,
    when it is the document's one list of two or more objects with numbers naming a metric. None
    otherwise (the whole object is then one row)."""
    from triage.ingest.printed import known_key

    found = None
    for v in doc.values():
        if not isinstance(v, list) or len(v) < 2 or not all(isinstance(r, dict) for r in v):
            continue
        if not any(type(x) in (int, float) and known_key(str(k)) for r in v[:10] for k, x in r.items()):
            continue
        if found is not None:
            return None
        found = v
    return found


def read_state(src: Source, doc: dict) -> Run:
    """HF ``trainer_state.json``: ``log_history`` rows; the summary row goes to meta, not to series.

    TRL >= 1.0 writes ``null`` for a metric that was NaN on every process, so null is read as NaN here.
    """
    b = RunBuilder(src.path, "hf_state", source="hf_state")
    rows = doc.get("log_history") or []
    keep, closing = [], []
    for r in rows:
        if not isinstance(r, dict):
            b.skip("not an object")
            continue
        if _is_summary(r):
            for k, v in r.items():
                f = to_float(v)
                if f is not None and k not in ("step", "epoch"):
                    b.summary[str(k)] = f
            closing.append(r)
            continue
        keep.append(r)
    if not keep and closing:
        # a run shorter than its logging interval (logging_steps 500, max_steps 69) logs nothing but the closing
        # summary: its train_loss, the mean over the whole run, is then the run's one reading of its loss
        keep = [{k: v for k, v in closing[-1].items() if k in ("step", "epoch", "train_loss")}]
        b.warn("the log history holds only the closing summary (the run was shorter than its logging interval): "
               "its train_loss, the mean over the whole run, is read as the one loss point")
        b.skip("summary row", len(closing) - 1)
    else:
        b.skip("summary row", len(closing))
    ctx = _jsonl._Ctx(b, null_is_nan=True)
    if keep:
        _jsonl._emit(ctx, keep, 1)
    ctx.finish()
    b.meta["state"] = {k: _plain(doc.get(k)) for k in _STATE_META if k in doc}
    b.meta["x_axis"] = "optimizer_step"
    if "_cut_short" in doc:
        b.warn(f"the JSON document is cut short after {doc['_cut_short']:,} bytes (a file copied while it was being "
               f"written?): its {len(rows):,} whole log_history entries were read, the one the cut went through was not")
    run = b.build()
    return run


def _plain(v):
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return v if isinstance(v, (int, float, str, bool)) or v is None else str(v)


def _is_summary(r: dict) -> bool:
    if "loss" in r:
        return False
    if "train_runtime" in r or "train_samples_per_second" in r:
        return True
    return "train_loss" in r and "total_flos" in r


def read_series(src: Source, doc: dict) -> Run:
    """One series per metric, each with its own steps (Sacred's `metrics.json`:
    ``{"training.loss": {"steps": [...], "values": [...], "timestamps": [...]}}``)."""
    b = RunBuilder(src.path, "json", source="jsonl")
    steps_seen: set[float] = set()
    for name, spec in doc.items():
        steps, values = spec["steps"], spec["values"]
        if len(steps) != len(values):
            b.warn(f"{name}: {len(steps)} steps for {len(values)} values; the values past the shorter list are skipped")
        _add_points(b, str(name), zip(steps, values), steps_seen)
    b.meta["rows"] = len(steps_seen)
    return b.build()


_POINT_STEP = ("step", "global_step", "iteration", "iter", "epoch", "x")
_POINT_VALUE = ("value", "y", "val")


def _point_list(v) -> bool:
    """A list of one metric's points, each with its own step: `{"step": 3, "value": 0.41}` objects (a
    scalar export written by a script) or TensorBoard's `[wall_time, step, value]` rows (its JSON download)."""
    if not isinstance(v, list) or len(v) < 2:
        return False
    head = v[:20]
    if all(isinstance(p, dict) for p in head):
        return all(any(k in p for k in _POINT_STEP) and any(k in p for k in _POINT_VALUE) for p in head)
    return all(isinstance(p, list) and len(p) == 3 and all(type(x) in (int, float) for x in p) for p in head)


def _point_lists(doc: dict) -> dict | None:
    """Metrics kept one list of points per name (`{"metrics": {"loss": [{"step": 0, "value": 2.3}, ...],
    "lr": [...]}, "run": "..."}`, or the name -> points dict on its own): that dict, when every list in
    it is a point list and there is at least one; the group may sit beside the run's settings and
    summaries. None for any other shape."""
    groups = [doc] + [v for v in doc.values() if isinstance(v, dict)]
    found = None
    for g in groups:
        lists = [v for v in g.values() if isinstance(v, list)]
        if not lists or not all(_point_list(v) for v in lists):
            continue
        if g is doc and any(isinstance(v, dict) for v in doc.values()):
            continue  # points beside nested groups: not one flat set of series
        if found is not None:
            return None
        found = {k: v for k, v in g.items() if isinstance(v, list)}
    return found


def read_point_lists(src: Source, series: dict) -> Run:
    """One series per metric, each a list of points with its own steps (see `_point_list`)."""
    b = RunBuilder(src.path, "json", source="jsonl")
    steps_seen: set[float] = set()
    for name, points in series.items():
        pairs = []
        for p in points:
            if isinstance(p, dict):
                step = next((p[k] for k in _POINT_STEP if k in p), None)
                pairs.append((step, next((p[k] for k in _POINT_VALUE if k in p), None)))
            elif isinstance(p, list) and len(p) == 3:
                pairs.append((p[1], p[2]))  # TensorBoard's rows: wall time, step, value
            else:
                b.skip("not a point of a metric's list")
        _add_points(b, str(name), pairs, steps_seen)
    b.meta["rows"] = len(steps_seen)
    return b.build()


def read_catboost(src: Source, doc: dict) -> Run:
    """CatBoost's ``catboost_training.json``: ``meta`` names the metrics (``learn_metrics``,
    ``test_metrics``), each of ``iterations`` holds their values per set, in that order. The learn
    set is training; the eval set CatBoost calls ``test`` is a held-out one."""
    meta = doc["meta"]

    def names(key: str) -> list[str]:
        return [str(m.get("name")) if isinstance(m, dict) else str(m) for m in meta.get(key) or []]

    learn, test = names("learn_metrics"), names("test_metrics")
    rows = []
    for it in doc["iterations"]:
        if not isinstance(it, dict):
            continue
        row: dict = {"iteration": it.get("iteration")}
        for key, prefix, cols in (("learn", "", learn), ("test", "eval_", test), ("validation", "eval_", test)):
            vals = it.get(key)
            if isinstance(vals, list):
                row.update({prefix + n: v for n, v in zip(cols, vals)})
        rows.append(row)
    b = RunBuilder(src.path, "json", source="jsonl")
    ctx = _jsonl._Ctx(b, null_is_nan=False)
    if rows:
        _jsonl._emit(ctx, rows, 1)
    ctx.finish()
    return b.build()


def _add_points(b: RunBuilder, name: str, points, steps_seen: set[float], placeholder: bool = False) -> None:
    """Add (step, value) pairs of one metric; a value that is no number is skipped and counted
    (`placeholder`: the string "nan" stands for a step with no value, not a NaN)."""
    for step, value in points:
        if placeholder and isinstance(value, str) and value.strip().lower() == "nan":
            b.skip("golden-value placeholder")
            continue
        f, at = to_float(value), to_float(step)
        if f is None:
            b.skip("non-numeric value")
            continue
        b.add(name, f, NAN if at is None else at)
        if at is not None:
            steps_seen.add(at)


def read_golden(src: Source, doc: dict) -> Run:
    """Megatron CI golden values: ``{"lm loss": {"start_step", "end_step", "step_interval", "values": {...}}}``.

    The string ``"nan"`` is a placeholder for a step with no golden value, not a NaN loss: skipped, counted.
    """
    b = RunBuilder(src.path, "megatron_golden", source="megatron_golden")
    steps_seen: set[float] = set()
    for name, spec in doc.items():
        _add_points(b, str(name), (spec.get("values") or {}).items(), steps_seen, placeholder=True)
    b.meta["rows"] = len(steps_seen)
    b.meta["x_axis"] = "iteration"
    return b.build()


# ---------------------------------------------------------------------------- the reader contract
def _json_doc_start(head: bytes) -> bool:
    return head.lstrip()[:1] in (b"{", b"[")


def _json_lines_head(h: bytes) -> bool:
    """Whether a file's head opens as JSON Lines: a whole object on the first line, another on the next."""
    first, _, rest = h.lstrip().partition(b"\n")
    return first.rstrip().endswith(b"}") and rest.lstrip()[:1] == b"{"


def _sniff_state(src: Source) -> float:
    h = strip_bom(src.head())
    if not _json_doc_start(h):
        return 0.0
    if _json_lines_head(h):
        return 0.0  # JSON Lines: ms-swift's logging.jsonl ends with a record that holds the whole log_history
    if b'"log_history"' in h:
        return 0.95
    return 0.6 if src.name == "trainer_state.json" else 0.0


def _sniff_golden(src: Source) -> float:
    h = strip_bom(src.head())
    return 0.9 if _json_doc_start(h) and b'"start_step"' in h and b'"values"' in h else 0.0


def _sniff_json(src: Source) -> float:
    h = strip_bom(src.head()).lstrip()
    if h[:1] == b"[":
        nxt = h[1:].lstrip()[:1]
        return 0.6 if nxt and (nxt in b'{["-]' or nxt.isdigit()) else 0.0
    if h[:1] == b"{":
        first = h.split(b"\n", 1)[0].rstrip()
        if _json_lines_head(h):
            return 0.1  # JSON Lines
        if src.name.endswith(".json"):
            # one object in a `.json` file is a JSON document (JSON Lines end in .jsonl): above the
            # 0.5 JSON Lines gives a single line, so a saved History's columns are read as columns
            return 0.55
        return 0.5 if not first.endswith(b"}") else 0.2
    return 0.0


def _find_state(root: Path) -> Found | None:
    """trainer_state.json in the folder, else in its latest checkpoint-N/."""
    if (root / "trainer_state.json").is_file():
        return Found.file(root / "trainer_state.json", "hf_state")
    ckpts = [p for p in root.glob("checkpoint-*") if (p / "trainer_state.json").is_file()]
    if not ckpts:
        return None
    pick = latest(ckpts)
    return Found.file(pick / "trainer_state.json", "hf_state",
                      [f"read {pick.name}/trainer_state.json (the latest checkpoint)"])


# a file sniffed as JSON that does not read as one is read as text: its error lines still count
register(Reader(
    "hf_state", "Hugging Face trainer_state.json (Trainer, TRL, axolotl, Unsloth)",
    _sniff_state, lambda src: read(src, fmt="hf_state"), priority=70, aliases=("trainer_state",),
    fallback="text", layouts=(Layout(50, "trainer_state.json, checkpoint-*/trainer_state.json", _find_state),),
))
register(Reader(
    "megatron_golden", "Megatron-LM CI golden values JSON", _sniff_golden, read, priority=68, fallback="text",
))
register(Reader(
    "json", "a JSON document: rows, columns, per-metric series (Sacred) or point lists (scalar exports), CatBoost's training JSON or one of the above", _sniff_json, read, priority=50,
    suffixes=(".json",), fallback="text",
))
