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
import math
import re
from pathlib import Path

import numpy as np

from triage.ingest import aliases as _aliases
from triage.ingest import printed, tables
from triage.ingest.builder import NAN, RunBuilder, run_shift, split_named_by_path, starts_run, to_float
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
    # SB3 writes `#{json}`; OpenAI baselines' older Monitor wrote `# {json}` (a space after the hash)
    if comment is not None and comment.lstrip("#").lstrip().startswith("{") and {"r", "l"} <= hs:
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
    if h and h[0] == "epoch" and "step" not in hs and h[1:] == sorted(h[1:]):
        # CSVLogger writes `epoch`, then the logs' keys sorted (`sorted(logs.keys())`); a loop of one's own that
        # writes `epoch,loss,accuracy,val_loss,...` in its own order is another writer's table
        return "keras_csv"
    return "csv"


def read(src: Source, fmt: str | None = None) -> Run:
    """Stream the file in blocks of whole lines: memory holds one block and the kept points,
    never the file. Plain numeric blocks are parsed in C (msgspec); a block with quotes, comments,
    ragged rows or words goes through the csv module, cell by cell."""
    stream = src.open()
    try:
        run = _read_stream(src, stream, fmt, split=True)
    finally:
        stream.close()
    if run is None:  # a quote in a file split over processes: a quoted field may cross a cut
        stream = src.open()
        try:
            run = _read_stream(src, stream, fmt, split=False)
        finally:
            stream.close()
    assert run is not None  # a read in one piece always gives a run
    return run


class _Blocks:
    """Whole lines of a binary stream, about BLOCK_BYTES at a time, never cut inside a quoted
    field; line numbers counted as it goes."""

    def __init__(self, stream, start: int = 0, end: int | None = None):
        self.stream = stream
        self.carry = b""
        self.eof = False
        self.first = start == 0  # the file's head: a BOM to drop, the line ends to learn
        self.cr_only = False  # old Mac line ends: every CR is read as a newline
        self.lineno = 0  # lines handed out so far
        self.pos = start  # bytes of the stream read so far (a split read: where this part starts)
        self.end = end  # stop reading here (a split read's part); None: at the end of the stream
        self.quoted = False  # a block held a quote (a split read is then redone in one piece)
        # `;` or a tab for a file separated by one of them: its bytes are read as the comma-separated ones
        self.delimiter: bytes | None = None

    def by_delimiter(self, delimiter: bytes) -> None:
        """Read a `;`-separated file (Excel in locales with a decimal comma, a CSVLogger given
        `separator=';'`) or a tab-separated one as the comma-separated file it stands for: a comma in it
        is a decimal comma (or text), so it turns into a point first, then each delimiter into a comma."""
        self.delimiter = delimiter
        self.carry = _to_comma(self.carry, delimiter)

    def _read(self, n: int) -> bytes:
        if self.end is not None:
            n = min(n, self.end - self.pos)
            if n <= 0:
                return b""
        data = self.stream.read(n)
        self.pos += len(data)
        if self.first:
            self.first = False
            if data.startswith(b"\xef\xbb\xbf"):
                data = data[3:]
            # a CR with no LF anywhere in the first chunk (a CR that ends the chunk may be half a CRLF)
            self.cr_only = b"\r" in data.rstrip(b"\r") and b"\n" not in data
        if self.cr_only:
            data = data.replace(b"\r", b"\n")
        if self.delimiter is not None:
            data = _to_comma(data, self.delimiter)
        return data

    def line(self) -> bytes | None:
        """One line (for the header and the comments before it), without its end."""
        while b"\n" not in self.carry and not self.eof:
            chunk = self._read(1 << 16)
            self.eof = not chunk
            self.carry += chunk
            if len(self.carry) > MAX_HEADER:
                break
        if not self.carry and self.eof:
            return None
        cut = self.carry.find(b"\n")
        if cut < 0:
            out, self.carry = self.carry, b""
        else:
            out, self.carry = self.carry[:cut], self.carry[cut + 1:]
        self.lineno += 1
        return out.rstrip(b"\r")

    def __iter__(self):
        while True:
            data = self.carry
            self.carry = b""
            while not self.eof and (len(data) < BLOCK_BYTES or b"\n" not in data):
                chunk = self._read(BLOCK_BYTES)
                self.eof = not chunk
                data += chunk
            if not data:
                return
            cut = len(data) if self.eof else data.rfind(b"\n") + 1
            if b'"' in data:
                self.quoted = True
            while not self.eof and b'"' in data and data.count(b'"', 0, cut) % 2:  # in a quoted field: read on
                more = self._read(BLOCK_BYTES)
                self.eof = not more
                data += more
                nxt = data.find(b"\n", cut)
                cut = len(data) if self.eof else (nxt + 1 if nxt >= 0 else cut)
                if len(data) > 8 * BLOCK_BYTES:  # an unclosed quote: give up waiting for its end
                    cut = data.rfind(b"\n") + 1 or len(data)
                    break
            body, self.carry = data[:cut], data[cut:]
            first = self.lineno + 1
            self.lineno += _newlines(body) + (0 if body.endswith(b"\n") else 1)
            yield first, body


def _to_comma(data: bytes, delimiter: bytes) -> bytes:
    return data.replace(b",", b".").replace(delimiter, b",")


def semicolon_header(line: str) -> bool:
    """A header separated by `;` and not by commas or tabs (`epoch;loss;val_loss`)."""
    return ";" in line and "," not in line and "\t" not in line


def tab_header(line: str) -> bool:
    """A header separated by tabs and not by commas or `;` (`step<TAB>loss<TAB>val_loss`, a `.tsv` or
    SpinningUp's `progress.txt`): a cell left empty (no evaluation at that step) is then a tab next to
    another, which only a delimiter-aware reader keeps in its column."""
    return "\t" in line.strip() and "," not in line and ";" not in line


_EMPTY_TAB_CELL = re.compile(r"\t(?=\t|\s*$)|^\t")


def _newlines(body: bytes) -> int:
    """How many LF bytes (numpy's vector compare is some 5x faster than bytes.count here)."""
    return int(np.count_nonzero(np.frombuffer(body, dtype=np.uint8) == 10))


BLOCK_BYTES = 512 << 10  # about 15,000 rows: parsing a block briefly costs ~16x its size
MAX_HEADER = 1 << 26


def _read_stream(src: Source, stream, fmt: str | None, split: bool, by_split: bool = True) -> Run | None:
    """The run, or None when a split read met a quote (the caller reads the file in one piece).
    `by_split`: a column naming each row's split (`epoch,set,loss` with `train`/`valid` rows) may
    spread the rows over per-split columns (off for the second read of a file where it did not)."""
    blocks = _Blocks(stream)
    comment = None
    text = ""
    while True:
        raw = blocks.line()
        if raw is None:
            raise IngestError(src.path, "CSV file has no header")
        text = raw.decode("utf-8", "replace")
        if not text.strip():
            continue
        if text.lstrip().startswith("#"):
            if comment is None:
                comment = text.strip()
            continue
        break
    delimiter = ";" if semicolon_header(text) else "\t" if tab_header(text) else None
    if delimiter is not None:
        text = text.replace(delimiter, ",")
        blocks.by_delimiter(delimiter.encode())
        split = False  # (the parts would read their bytes as they stand)
    try:
        header = next(csv.reader([text]))
    except (StopIteration, csv.Error) as exc:
        raise IngestError(src.path, f"CSV file has no readable header ({exc})") from None
    header = [c.strip().strip('"').strip() for c in header]
    if len(header) >= 4 and 2 * sum(1 for c in header if not c) > len(header):
        # most columns unnamed: a spreadsheet's merged headings over a hand-kept sheet (`,,,seed,Adapter,,,`);
        # a logger names every column it writes (pandas leaves at most its index's blank)
        raise IngestError(src.path, "CSV header leaves most columns unnamed (a spreadsheet, not a metric log)")
    tag = tensorboard_export_tag(header, src.name)
    if tag:
        header = header[:2] + [tag]
    header = split_from_path(header, src)
    # (fastai's CSVLogger writes the Learner's metrics after `valid_loss`: they are the validation set's)
    header = tables.scored_on_eval(header)
    dialect = fmt if fmt in DIALECTS and fmt != "csv" else dialect_of(header, comment, src.name)
    b = RunBuilder(src.path, dialect, source=dialect)
    if dialect == "wandb_csv":
        _read_wandb(b, header, _text_rows(blocks))
        return b.build()
    long = _long_layout(header)
    if long is not None:
        _read_long(b, long, _text_rows(blocks))
        return b.build()
    col = _split_column(header) if by_split else None
    if col is not None:
        run = _read_by_split(src, blocks, header, col, dialect)
        if run is not None:
            return run
        again = src.open()  # a column of other words (or numbers): read the file as it stands
        try:
            return _read_stream(src, again, fmt, split, by_split=False)
        finally:
            again.close()
    plan = _Plan(header, dialect, comment)
    ranges = _split(src, blocks) if split and dialect != "sb3_monitor" else None  # monitor: steps add up
    if ranges:
        plan.place = False  # (each part would place its own runs: a file read in parts keeps its steps as written)
        if not _read_split(src, blocks, plan, b, ranges, (header, dialect, comment)):
            return None
    else:
        _read_blocks(blocks, plan, b)
    plan.finish(b)
    axes = [c for c in header if c and c.strip().lower() in ("epoch", "step", "global_step", "iteration", "iter")]
    if axes:  # (framework recognition: which counters the table itself names, as spelled)
        b.meta["axis_keys"] = axes
    if dialect == "sb3_monitor":
        b.meta["x_axis"] = "env_steps"
    elif dialect in ("ultralytics", "keras_csv") and not plan.done_grows:
        b.meta["x_axis"] = "epoch"
    elif dialect == "sb3_progress":
        b.meta["x_axis"] = "env_steps"
    return b.build()


# ---------------------------------------------------------------------------- a split per row
# `epoch,set,loss,acc` with `train` and `valid` rows: read as one table, the valid row of an epoch
# would land on the train row's names. The rows are spread over columns of their own split instead
# (train under the plain names, validation under `eval/`, test under `eval/test/`).
_SPLIT_COLUMNS = ("set", "split", "phase", "mode", "stage")
_SPLIT_PREFIX = {"train": "", "val": "eval/", "valid": "eval/", "validation": "eval/", "eval": "eval/",
                 "test": "eval/test/"}


def _axis_names() -> set[str]:
    """The column names (lower case) the alias table reads as a step, an epoch, a clock or nothing: no metric."""
    table = _aliases.table()
    return {k.lower() for kind in ("step", "epoch", "wall", "ignore") for k in table.axes[kind]}


def _split_column(header: list[str]) -> int | None:
    """The one column whose name says it holds each row's split, else None."""
    hits = [i for i, h in enumerate(header) if h.strip().lower() in _SPLIT_COLUMNS]
    return hits[0] if len(hits) == 1 else None


def _read_by_split(src: Source, blocks: "_Blocks", header: list[str], col: int, dialect: str) -> Run | None:
    """The run with each row's metrics under its split's names; None when a cell of the split
    column is anything but a split word (the column then means something else)."""
    axes = _axis_names()
    kept = [i for i in range(len(header)) if i != col]
    plain = [i for i in kept if not header[i] or header[i].lower().replace(" ", "_") in axes]
    metrics = [i for i in kept if i not in plain]
    rows: list[tuple[str, list[str]]] = []
    for row in _text_rows(blocks):
        if not row or not any(c.strip() for c in row) or row[0].lstrip().startswith("#"):
            continue
        prefix = _SPLIT_PREFIX.get(row[col].strip().lower()) if col < len(row) else None
        if prefix is None:
            return None
        rows.append((prefix, row))
    if not rows:
        return None
    prefixes = list(dict.fromkeys(p for p, _ in rows))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([header[i] for i in plain] + [p + header[i] for p in prefixes for i in metrics])
    blank = [""] * len(metrics)
    for prefix, row in rows:
        cells = [row[i] if i < len(row) else "" for i in plain]
        for p in prefixes:
            cells += [row[i] if i < len(row) else "" for i in metrics] if p == prefix else blank
        writer.writerow(cells)
    wide = io.BytesIO(out.getvalue().encode("utf-8"))
    run = _read_stream(src, wide, dialect if dialect != "csv" else None, split=False, by_split=False)
    if run is not None:
        run.meta["split_column"] = header[col]
    return run


def _read_blocks(blocks: "_Blocks", plan: "_Plan", b: RunBuilder) -> None:
    for first_line, body in blocks:
        vals, present = _parse_block(body, plan, b, first_line)
        if len(vals):
            plan.add(b, vals, present)


# ---------------------------------------------------------------------------- split over processes
# A big plain file is cut at line ends into one part per CPU (the JSONL reader's rule and helpers:
# forked children, arrays handed back through an unlinked shared-memory file, children that die
# with the parent). The parent reads the first part itself; each part's row and line numbers are
# shifted when its columns join the builder, in file order.

def _split(src: Source, blocks: "_Blocks") -> list[tuple[int, int]] | None:
    """Byte ranges of the data rows (after the header), or None to read in one piece."""
    if blocks.cr_only or blocks.eof:
        return None
    from triage.ingest.jsonl import _plan_ranges

    ranges = _plan_ranges(src)
    start = blocks.pos - len(blocks.carry)  # the first data byte not yet handed out
    if len(ranges) < 2 or ranges[0][1] <= max(start, blocks.pos):  # the header reaches past the first cut
        return None
    return [(start, ranges[0][1]), *ranges[1:]]


def _part(path: str, start: int, end: int, layout: tuple) -> dict:
    """Read one byte range of data rows: the builder's raw columns and the plan's counts."""
    b = RunBuilder(path, layout[1], source=layout[1])
    plan = _Plan(*layout)
    plan.place = False
    with open(path, "rb") as fh:
        fh.seek(start)
        blocks = _Blocks(fh, start, end)
        _read_blocks(blocks, plan, b)
    for col in b.cols.values():
        col.flush()
    return {"cols": {key: (col.blocks, col.weights) for key, col in b.cols.items()},
            "kept": b.meta["rows"], "skipped": b.meta["skipped"], "warnings": b.meta["warnings"],
            "rows": plan.row, "lines": blocks.lineno, "quoted": blocks.quoted, "numbers": plan.numbers,
            "words": plan.words, "first_word": plan.first_word, "width_bad": plan.width_bad}


def _fork_part(path: str, start: int, end: int, layout: tuple, shm: int | None) -> tuple[int, int]:
    """A child that reads one range and writes its shipped result to a pipe: (pid, read end)."""
    from triage.ingest.parts import fork_part

    return fork_part(lambda: _part(path, start, end, layout), shm)


def _read_split(src: Source, blocks: "_Blocks", plan: "_Plan", b: RunBuilder, ranges: list[tuple[int, int]],
                layout: tuple) -> bool:
    """Read the first range here and the others in children; False when any part held a quote."""
    from triage.ingest.parts import collect, shm_file, stop_children

    path = str(src.fs_path)
    results: list[dict | None] = [None] * len(ranges)
    children: dict[int, tuple[int, int]] = {}
    shm_fds: dict[int, int | None] = {}
    try:
        for i, (s, e) in enumerate(ranges[1:], 1):
            shm_fds[i] = shm_file()
            try:
                children[i] = _fork_part(path, s, e, layout, shm_fds[i])
            except OSError:  # no more processes: this one reads it
                break
        blocks.end = ranges[0][1]
        _read_blocks(blocks, plan, b)
        if blocks.quoted:
            return False
        for i in list(children):
            pid, fd = children.pop(i)
            results[i] = collect(pid, fd, shm_fds.get(i))
    finally:
        stop_children(children, shm_fds)  # interrupted, or done early: stop the readers still running
    for i, (s, e) in enumerate(ranges):
        if i and results[i] is None:
            results[i] = _part(path, s, e, layout)
    if any(r is not None and r["quoted"] for r in results):
        return False
    _join_parts(b, plan, [r for r in results[1:] if r is not None], blocks.lineno)
    return True


def _join_parts(b: RunBuilder, plan: "_Plan", parts: list[dict], line_off: int) -> None:
    """The children's columns and counts, after the parent's own, with rows and lines shifted."""
    row_off = plan.row
    for r in parts:
        shifted: dict[int, np.ndarray] = {}
        for key, (col_blocks, weights) in r["cols"].items():
            for (rows, steps, values, epochs, walls), wts in zip(col_blocks, weights):
                rr = shifted.get(id(rows))
                if rr is None:
                    rr = shifted[id(rows)] = rows + row_off
                b.add_block(key, rr, steps, values, epochs, walls, weights=wts)
        b.meta["rows"] += r["kept"]
        for reason, cnt in r["skipped"].items():
            b.skip(reason, cnt)
        for w in r["warnings"]:
            b.warn(w)
        plan.numbers = [x + y for x, y in zip(plan.numbers, r["numbers"])]
        plan.words = [x + y for x, y in zip(plan.words, r["words"])]
        plan.first_word = [mine if mine is not None or theirs is None else (theirs[0] + line_off, theirs[1])
                           for mine, theirs in zip(plan.first_word, r["first_word"])]
        plan.width_bad += r["width_bad"]
        row_off += r["rows"]
        line_off += r["lines"]
    b.row = plan.row = row_off


def _text_rows(blocks: "_Blocks"):
    """csv rows of the remaining blocks (the W&B export reader takes rows one by one)."""
    for _, body in blocks:
        yield from csv.reader(body.decode("utf-8", "replace").splitlines())


def _rows_are_epochs(epochs) -> bool:
    """Whether an epoch column counts its rows: every cell a whole number and no two neighbouring rows
    with the same epoch (a log with several rows per epoch keeps its rows' order)."""
    if epochs is None or len(epochs) < 2:
        return False
    e = np.asarray(epochs, dtype=float)
    return bool(np.isfinite(e).all() and np.all(e == np.round(e)) and np.all(np.diff(e) != 0))


class _Plan:
    """Which column is what, and what is carried from block to block."""

    def __init__(self, header: list[str], dialect: str, comment: str | None):
        table = _aliases.table()
        self.header = header
        self.ncols = len(header)
        self.dialect = dialect
        self.step_col = self.epoch_col = self.wall_col = None
        if dialect == "sb3_progress" and "time/total_timesteps" in header:
            self.step_col = header.index("time/total_timesteps")
        else:
            self.step_col = _first_index(header, table.axes["step"])
        self.epoch_col = _first_index(header, table.axes["epoch"])
        self.wall_col = _first_index(header, table.axes["wall"])
        axis_cols = {c for c in (self.step_col, self.epoch_col, self.wall_col) if c is not None}
        # `epoch,total_steps,train_loss,val_loss`: with no step column, a `total_steps` that grows row
        # by row is the count of steps done so far (the step); a constant one is the planned length
        self.done_col = header.index("total_steps") if self.step_col is None and "total_steps" in header else None
        self.done_grows = False
        ignore = set(table.axes["ignore"])
        self.metric_cols = [(i, k) for i, k in enumerate(header) if i not in axis_cols and k and k not in ignore]
        if dialect == "sb3_monitor":
            self.metric_cols = [(i, k) for i, k in self.metric_cols if k != "t"]
            self.t_col = header.index("t") if "t" in header else None
            self.t_start = _monitor_t_start(comment)
            self.l_col = header.index("l") if "l" in header else None
            self.env_steps = 0.0
        self.ultra = [([i for i, k in self.metric_cols if k.startswith(p) and k.endswith("_loss")], key)
                      for p, key in (("train/", "loss"), ("val/", "eval/loss"))] if dialect == "ultralytics" else []
        # Ultralytics writes 0 in every validation column of an epoch it did not validate (val=False
        # validates the final epoch only): a row with all of them at exactly 0 has no evaluation in it
        self.unvalidated = [i for i, k in self.metric_cols if k.startswith(("val/", "metrics/"))] \
            if dialect == "ultralytics" else []
        self.unvalidated_rows = 0
        self.numbers = [0] * self.ncols  # numeric cells per column
        self.words = [0] * self.ncols  # non-empty cells that are not numbers
        self.first_word: list[tuple[int, str] | None] = [None] * self.ncols
        self.width_bad = 0
        self.row = 0
        # runs appended to one file under one header (Keras CSVLogger(append=True), a progress.csv every
        # launch adds to): the step column starts again from its beginning, each run placed after the one
        # before (as the printed reader places them); a smaller step back is a resume, kept as it is
        self.place = dialect != "sb3_monitor"
        self.first: float | None = None  # the file's first step
        self.gap: float | None = None  # the first rise: the spacing a new run is placed with
        self.prev: float | None = None  # the last finite step read, as written
        self.run_top = -math.inf  # the highest step of the current run, as written
        self.offset = 0.0  # what the current run's steps are moved by
        self.top = -math.inf  # the highest placed step so far
        self.starts: list[float] = []  # where each run after the first begins on the placed axis

    def add(self, b: RunBuilder, vals: np.ndarray, present: np.ndarray) -> None:
        """One block's cells (NaN where absent) -> points, in the builder's row numbering."""
        n = len(vals)
        rows = np.arange(self.row, self.row + n, dtype=np.int64)
        by_col = np.ascontiguousarray(vals.T)  # a column at a time: one copy of the block beats strided slices
        have_by_col = np.ascontiguousarray(present.T)
        # the axes are copied: a view would keep the whole block alive in the builder until it folds
        steps = by_col[self.step_col].copy() if self.step_col is not None else np.full(n, NAN)
        if self.done_col is not None:
            done = by_col[self.done_col]
            if n > 1:
                self.done_grows = bool(np.all(np.diff(done) >= 0) and done[-1] > done[0])
            if self.done_grows:
                steps = done.copy()
        epochs = by_col[self.epoch_col].copy() if self.epoch_col is not None else None
        walls = by_col[self.wall_col].copy() if self.wall_col is not None else None
        per_epoch = False  # one full row per epoch (Keras' CSVLogger)
        if self.dialect == "sb3_monitor":
            lengths = vals[:, self.l_col] if self.l_col is not None else np.zeros(n)
            steps = self.env_steps + np.cumsum(np.where(np.isnan(lengths), 0.0, lengths))
            self.env_steps = float(steps[-1])
            t = vals[:, self.t_col] if self.t_col is not None else np.full(n, NAN)
            walls = self.t_start + t if self.t_start is not None else None
        elif self.dialect in ("ultralytics", "keras_csv") and epochs is not None:
            steps = np.where(np.isnan(steps), epochs, steps)
            per_epoch = self.dialect == "keras_csv"
        elif self.step_col is None and self.done_col is None and _rows_are_epochs(epochs):
            per_epoch = True
            # (no step column, and each row one whole epoch: the epoch is the row's counter, so an epoch
            # column that starts again from its beginning is another run appended under the same header,
            # as with Keras' CSVLogger; a train_loss row at epoch 1 after epoch 50 is no spike)
            steps = epochs.copy()
        if self.place:
            steps = self._placed(steps, stubs=per_epoch)
        if len(self.unvalidated) >= 2:
            cols = self.unvalidated
            idle = present[:, cols].all(axis=1) & (vals[:, cols] == 0).all(axis=1)
            if idle.any():
                self.unvalidated_rows += int(idle.sum())
                present = present.copy()
                present[np.ix_(idle, cols)] = False
                have_by_col = np.ascontiguousarray(present.T)
        got = np.zeros(n, dtype=bool)
        shared: dict[bytes, tuple] = {}
        counts = np.count_nonzero(have_by_col, axis=1).tolist()
        for i, key in self.metric_cols:
            count = counts[i]
            if not count:
                continue
            v = by_col[i]
            if count == n:
                got[:] = True
                b.add_block(key, rows, steps, v.copy(), epochs, walls)
                continue
            have = have_by_col[i]
            got |= have
            sig = have.tobytes()
            ax = shared.get(sig)
            if ax is None:
                ax = shared[sig] = (rows[have], steps[have], None if epochs is None else epochs[have],
                                    None if walls is None else walls[have])
            b.add_block(key, ax[0], ax[1], v[have], ax[2], ax[3])
        for cols, key in self.ultra:
            if cols:
                have = present[:, cols].all(axis=1)
                if have.any():
                    total = vals[:, cols].sum(axis=1)
                    b.add_block(key, rows[have], steps[have], total[have],
                                None if epochs is None else epochs[have], None if walls is None else walls[have])
        kept = int(got.sum())
        b.meta["rows"] += kept
        b.row = self.row = self.row + n
        if kept < n:
            b.skip("no metrics", n - kept)

    def _placed(self, steps: np.ndarray, stubs: bool = False) -> np.ndarray:
        """A block's steps on the file's axis (see `place`). A step that drops to the file's first
        step (when that is at most one spacing) or below a tenth of where its run got to, and that the
        next step goes on from, starts a new run. With `stubs` (one full row per epoch, Keras' CSVLogger):
        the first epoch written twice in a row where a run opens (`0, 0, 1, 2`) is a launch that stopped
        after one epoch, then the next launch, not one epoch written twice."""
        fin = np.isfinite(steps)
        every = bool(fin.all())
        s = steps if every else steps[fin]
        if not len(s):
            return steps
        if self.first is None:
            self.first = float(s[0])
        seq = s if self.prev is None else np.concatenate(([self.prev], s))
        lead = len(seq) - len(s)
        if self.gap is None:
            up = np.flatnonzero(np.diff(seq) > 0)
            if len(up):
                self.gap = float(seq[up[0] + 1] - seq[up[0]])
        drops = (np.flatnonzero(seq[1:] < seq[:-1]) + 1).tolist()
        if stubs and len(seq) > 2:
            again = (np.flatnonzero((seq[1:-1] == seq[:-2]) & (seq[2:] > seq[1:-1])) + 1).tolist()
            again = [k for k in again if seq[k] == self.first and seq[k] <= (self.gap or 1.0)
                     and ((k == 1 and self.prev is None) or k - 1 in drops)]
            if again:
                drops = sorted(drops + again)
        off = None
        if drops:
            gap = self.gap or 1.0
            first = self.first
            run_top, seg = self.run_top, 0
            for k in drops:
                run_top = max(run_top, float(seq[seg:k].max()))
                seg = k
                if seq[k] != seq[k - 1] and not starts_run(seq, k, first, gap, run_top):
                    continue  # a resume (steps already seen, logged again) or a lone low step (a stub run, above, stays)
                x = float(seq[k])
                if off is None:
                    off = np.full(len(seq), self.offset)
                with np.errstate(over="ignore", invalid="ignore"):
                    top = max(self.top, float((seq[:k] + off[:k]).max()))
                shift = run_shift(top, gap, x)
                if shift is None:
                    continue  # (steps near the float limit: nowhere to place a run after them)
                off[k:] = shift
                self.starts.append(top + gap)
                run_top = -math.inf
            self.run_top = max(run_top, float(seq[seg:].max()))
        else:
            self.run_top = max(self.run_top, float(seq.max()))
        self.prev = float(seq[-1])
        if off is None:
            out = s + self.offset if self.offset else s
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                out = (seq + off)[lead:]
            self.offset = float(off[-1])
        self.top = max(self.top, float(out.max()))
        if out is s:
            return steps
        if every:
            return out
        res = steps.copy()
        res[fin] = out
        return res

    def finish(self, b: RunBuilder) -> None:
        if self.starts:
            b.restarts(self.starts)
        if self.width_bad:
            b.warn(f"{self.width_bad} row(s) do not have the header's {self.ncols} columns")
        if self.unvalidated_rows:
            b.warn(f"{self.unvalidated_rows} epoch(s) with every val/ and metrics/ column at 0 were not validated "
                   f"(Ultralytics writes 0 there when val=False): their validation cells are left out")
        text_cols = []
        for i, key in self.metric_cols:
            if not self.words[i]:
                continue
            if not self.numbers[i]:
                text_cols.append(key)  # a column of words (a name, a date): not a metric, not a loss
                continue
            b.skip("non-numeric cell", self.words[i])
            line, cell = self.first_word[i]
            hint = " (a decimal comma?)" if _DECIMAL_COMMA.match(cell) else ""
            b.warn(f"column {key!r}: {self.words[i]:,} cell(s) that are not numbers were left out, "
                   f"the first {cell[:40]!r} on line {line}{hint}")
        if text_cols:
            b.meta["non_numeric_keys"] = sorted(text_cols)


_DECIMAL_COMMA = re.compile(r"^\s*[-+]?\d+,\d+\s*$")


def _first_index(header: list[str], names) -> int | None:
    for k in names:
        if k in header:
            return header.index(k)
    # (TensorBoard's CSV download writes `Wall time,Step,Value`: the same axes, capitalised and spaced)
    folded = [h.strip().lower().replace(" ", "_") for h in header]
    for k in names:
        if k in folded:
            return folded.index(k)
    return None


def tensorboard_export_tag(header: list[str], name: str) -> str | None:
    """The tag of a TensorBoard CSV download (`run-<run>-tag-<tag>.csv` with `Wall time,Step,Value`):
    the file's name is the only place that names its one series (`/` in a tag is written `_`)."""
    if [h.strip().lower() for h in header] != ["wall time", "step", "value"]:
        return None
    stem = name.rsplit("/", 1)[-1]
    stem = stem[:-4] if stem.lower().endswith(".csv") else stem
    if "-tag-" in stem:
        return stem.split("-tag-", 1)[1]
    return metric_suffix(stem)


def split_from_path(header: list[str], src: Source) -> list[str]:
    """A file of one metric column that names no split takes the split from its path (see
    `builder.split_named_by_path`; a TensorBoard download of `val_<output>_acc` keeps only `Value`)."""
    if src.fs_path is None:
        return header
    axes = _axis_names() | {"wall time"}
    metrics = [i for i, h in enumerate(header) if h and h.lower() not in axes]
    if len(metrics) != 1:
        return header
    i = metrics[0]
    return header[:i] + [split_named_by_path(header[i], src.fs_path, src.name)] + header[i + 1:]


def metric_suffix(stem: str) -> str | None:
    """The words that end a file's name when they name a known metric (a download saved as
    `PPO_explained_variance.csv`: the run's name, then the tag): the longest such ending, else None."""
    words = [w for w in re.split(r"[_\-.\s]+", stem) if w]
    tab = _aliases.table()
    for i in range(len(words)):
        tail = "_".join(words[i:])
        hit = tab.resolve(tail)
        if hit.known and hit.quality <= _aliases.NORMALISED:
            return tail
    return None


_NUMBER_BYTES = b"0123456789.-+eE, \t\r\n"
_NONFINITE_BYTES = b"nNaAiIfFtTyY"
_DECODERS: list = []


def _decode(text: bytes, words: bool = False) -> list:
    """A JSON array of numbers as a list of floats, in C; with `words`, quoted non-finite words
    (`"nan"`) may stand among them (as str: numpy reads them as floats)."""
    if not _DECODERS:
        import msgspec

        _DECODERS.extend((msgspec.json.Decoder(list[float]).decode, msgspec.json.Decoder().decode))
    return _DECODERS[1 if words else 0](text)


_NONFINITE = (b"-Infinity", b"Infinity", b"-inf", b"inf", b"-Inf", b"Inf", b"-nan", b"nan", b"NaN", b"NAN", b"INF",
              b"-INF", b"+inf", b"+Inf")


CAREFUL_BYTES = 64 << 10


def _parse_block(body: bytes, plan: _Plan, b: RunBuilder, first_line: int):
    """(values n x ncols with NaN where absent, present mask) of one block. A block the fast
    parser refuses is halved (at a line end) until the pieces parse or are small, so one odd line
    sends only its neighbourhood the careful way."""
    fast = _fast_block(body, plan.ncols)
    if fast is not None:
        vals, present = fast
        plan.numbers = [x + int(c) for x, c in zip(plan.numbers, present.sum(axis=0))]
        return vals, present
    if len(body) > CAREFUL_BYTES and b'"' not in body:
        mid = body.find(b"\n", len(body) // 2) + 1
        if 0 < mid < len(body):
            v1, p1 = _parse_block(body[:mid], plan, b, first_line)
            v2, p2 = _parse_block(body[mid:], plan, b, first_line + body.count(b"\n", 0, mid))
            return np.concatenate([v1, v2]), np.concatenate([p1, p2])
    return _careful_block(body, plan, b, first_line)


def _fast_block(body: bytes, ncols: int):
    """A block of plain numbers (no quotes, every line ncols cells, no blank or comment line) in
    C; None when the block is anything else.

    Only the non-empty cells are parsed: Lightning's sparse files are mostly empty cells, so the
    block is compacted (newlines become commas, runs of commas one comma) into one JSON array of
    just the numbers, and the empties are known from where the delimiters stand."""
    if ncols < 2:
        return None
    rest = body.translate(None, _NUMBER_BYTES)
    if rest and rest.translate(None, _NONFINITE_BYTES):  # a letter that is in no number: words, quotes
        return None
    if b"\r" in body:
        body = body.replace(b"\r\n", b"\n")
        if b"\r" in body:  # a lone CR: a line end to the csv module, whitespace to the C parser
            return None
    body = body.rstrip(b"\n")
    if not body:
        return None
    a = np.frombuffer(body, dtype=np.uint8)
    is_delim = (a == 44) | (a == 10)
    delim = np.flatnonzero(is_delim)  # where each cell but the last ends
    newline = np.flatnonzero(a[delim] == 10)
    nlines = len(newline) + 1
    if len(delim) + 1 != nlines * ncols:
        return None
    if len(newline) and ((newline + 1) % ncols != 0).any():  # a line with more or fewer cells
        return None
    next_delim = np.empty(len(a) + 1, dtype=bool)  # is the byte after each one a delimiter (or the end)
    next_delim[:-1] = is_delim
    next_delim[-1] = True
    present = np.empty(len(delim) + 1, dtype=bool)  # a cell is empty when a delimiter follows its start
    present[0] = not next_delim[0]
    present[1:] = ~next_delim[delim + 1]
    kept = a[~(is_delim & next_delim[1:])]  # drop each delimiter that another one (or the end) follows
    kept[kept == 10] = 44
    text = kept.tobytes()
    if text[:1] == b",":  # the first cell was empty
        text = text[1:]
    if rest:  # nan, inf, Infinity: quoted, as strings numpy reads as floats
        text = _quote_words(text)
    try:
        flat = _decode(b"[" + text + b"]", words=bool(rest))
    except ValueError:  # a cell the C parser does not take (`1.`, `.5`, `01`): the careful way
        return None
    count = int(np.count_nonzero(present))
    if len(flat) != count:
        return None
    vals = np.full(nlines * ncols, NAN)
    try:
        vals[present] = np.array(flat, dtype=np.float64) if rest else np.fromiter(flat, np.float64, count)
    except (ValueError, TypeError, OverflowError):  # a quoted word that is not a number after all
        return None
    return vals.reshape(nlines, ncols), present.reshape(nlines, ncols)


def _quote_words(text: bytes) -> bytes:
    """Quote the non-finite spellings standing as whole cells in a comma-joined block."""
    for word in _NONFINITE:
        if word in text:
            text = text.replace(b"," + word + b",", b',"' + word + b'",')
            text = text.replace(b"," + word + b",", b',"' + word + b'",')  # two in a row
            if text.startswith(word + b","):
                text = b'"' + word + b'"' + text[len(word):]
            if text.endswith(b"," + word):
                text = text[: -len(word)] + b'"' + word + b'"'
    return text


def _careful_block(body: bytes, plan: _Plan, b: RunBuilder, first_line: int):
    """The csv module, row by row: quotes, comments, blank and ragged rows, words in cells."""
    ncols = plan.ncols
    out_vals: list[list[float]] = []
    out_have: list[list[bool]] = []
    text = body.decode("utf-8", "replace").splitlines()
    reader = csv.reader(text)
    lineno = first_line
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error:
            b.skip("malformed CSV row")
            lineno = first_line + reader.line_num
            continue
        line = lineno
        lineno = first_line + reader.line_num
        if not row or not any(c.strip() for c in row):
            b.skip("blank line")
            continue
        if row[0].lstrip().startswith("#"):
            b.skip("comment line")
            continue
        if _width(row, ncols) != ncols:
            plan.width_bad += 1
            if len(row) < ncols and len(row) < max(2, ncols // 2):
                b.skip("wrong number of columns")
                continue
        vals = [NAN] * ncols
        have = [False] * ncols
        for i, cell in enumerate(row[:ncols]):
            if not cell.strip():
                continue
            f = to_float(cell)
            if f is None and "(" in cell:
                f = _wrapped_cell(cell)
            if f is None:
                plan.words[i] += 1
                if plan.first_word[i] is None:
                    plan.first_word[i] = (line, cell.strip())
                continue
            plan.numbers[i] += 1
            vals[i] = f
            have[i] = True
        out_vals.append(vals)
        out_have.append(have)
    if not out_vals:
        return np.empty((0, ncols)), np.empty((0, ncols), dtype=bool)
    return np.array(out_vals, dtype=np.float64), np.array(out_have, dtype=bool)


def _wrapped_cell(cell: str) -> float | None:
    """A cell that holds a scalar as its container prints it (`tensor(10.529, grad_fn=<...>)`,
    `np.float64(0.52)`: a list of tensors written out with `csv` or pandas): the number inside."""
    m = printed._WRAPPED_SCALAR.fullmatch(cell.strip())
    return to_float(m.group(3)) if m else None


def _cell(row: list[str], i: int | None) -> float:
    if i is None or i >= len(row):
        return NAN
    f = to_float(row[i])
    return NAN if f is None else f


def _monitor_t_start(comment: str | None) -> float | None:
    if not comment:
        return None
    try:
        meta = json.loads(comment.lstrip("#").strip())
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


def _long_layout(header: list[str]) -> tuple[int, str, int, int] | None:
    """A long-format table, one metric per row (`Epoch,Loss,Value` then `0,recon_loss,71.0`, as pandas'
    `melt` writes it): three columns, one a step or epoch axis, one named `value`, the third holding the
    metric's name. Returns (axis column, axis kind, name column, value column)."""
    if len(header) != 3:
        return None
    folded = [h.strip().lower() for h in header]
    if "value" not in folded or folded.count("value") != 1:
        return None
    table = _aliases.table()
    axis = None
    for kind in ("step", "epoch"):
        i = _first_index(header, table.axes[kind])
        if i is not None and folded[i] != "value":
            axis = (i, kind)
            break
    if axis is None:
        return None
    value_col = folded.index("value")
    (name_col,) = {0, 1, 2} - {axis[0], value_col}
    if folded[name_col] in table.axis_keys or folded[name_col].replace(" ", "_") in table.axis_keys:
        return None  # (`Wall time,Step,Value`: TensorBoard's export of one tag, its name in the file's name)
    return axis[0], axis[1], name_col, value_col


def _read_long(b: RunBuilder, layout: tuple[int, str, int, int], rows) -> None:
    """Each row one metric's value at its step or epoch; a row whose name cell is a number is no
    long-format row (skipped)."""
    axis_col, kind, name_col, value_col = layout
    b.meta["long_format"] = True
    for row in rows:
        if len(row) < 3 or not any(c.strip() for c in row):
            b.skip("blank line")
            continue
        name = row[name_col].strip()
        at = to_float(row[axis_col])
        v = to_float(row[value_col])
        if not name or to_float(name) is not None or v is None:
            b.skip("no metrics")
            continue
        if kind == "epoch":
            b.add(name, v, epoch=NAN if at is None else at)
        else:
            b.add(name, v, NAN if at is None else at)
        b.end_row(True, at)


# a name given its value on a printed line (`loss = 0.52`, `step: 10`): a cell of a CSV holds no such pair
_PRINTED_PAIR = re.compile(r"[A-Za-z]\s*(?::|=)\s*[-+]?(?:\d|\.\d|nan\b|inf\b)"
                           # ... or a name and its number a blank apart, the cell ending there (`step 2 loss 1` of
                           # `step 2 loss 1,232.5`: a printed line whose value has thousands separators)
                           r"|[A-Za-z_][\w/.-]*\s+[-+]?(?:\d|\.\d)[\d.eE+-]*\s*$", re.I)


def _width(row: list[str], header_width: int) -> int:
    """A row's width, not counting empty cells past the header's last column: a writer that ends
    every row with its separator (`0, 26.0, 45.7,`) leaves one empty cell more than the header names."""
    n = len(row)
    while n > header_width and not row[n - 1].strip():
        n -= 1
    return n


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
    delimiter = ";" if semicolon_header(lines[0]) else "\t" if tab_header(lines[0]) else None
    if delimiter == "\t":
        width = len(lines[0].rstrip("\r\n").split("\t"))
        rows = [ln.rstrip("\r\n") for ln in lines[1:] if ln.strip()]
        if not any(_EMPTY_TAB_CELL.search(ln) for ln in rows) or any(len(r.split("\t")) != width for r in rows):
            # (every cell filled: the text reader reads the columns as printed, with the table layouts it
            # knows; a tab-separated file only needs this reader where a cell is left empty, and only when
            # every row has the header's cells: Flair's loss.tsv writes one tab too many after its loss)
            return "csv", 0.0
    if delimiter is not None:
        lines = [ln.replace(",", ".").replace(delimiter, ",") for ln in lines]
    try:
        parsed = list(csv.reader(io.StringIO("\n".join(lines[:10]))))
    except csv.Error:
        return "csv", 0.0
    if not parsed or len(parsed[0]) < 2:
        return "csv", 0.0
    header = [c.strip() for c in parsed[0]]
    if any(c.startswith("{") for c in header[:1]):
        return "csv", 0.0
    widths = {_width(r, len(header)) for r in parsed[1:] if r}
    score = 0.5 if (not widths or widths == {len(header)}) else 0.3
    cells = [c for r in parsed[1:] for c in r if c.strip()]
    numeric = sum(1 for c in cells if to_float(c) is not None) / max(1, len(cells))
    wordy = sum(1 for c in header if len(c) > 48 or c.count(" ") > 4)
    if not name.endswith((".csv", ".tsv")) and (not cells or numeric < 0.5 or wordy or widths != {len(header)}):
        return "csv", 0.0
    firsts = [r[0] for r in parsed[1:] if r]
    paired = sum(1 for c in firsts if _PRINTED_PAIR.search(c))
    if not name.endswith((".csv", ".tsv")) and firsts and (
            (_PRINTED_PAIR.search(header[0]) and paired == len(firsts)) or 2 * paired > len(firsts)):
        # `Iteration 02000: loss = nan,nan`: printed lines whose values a comma joins; also when most rows under
        # a head line are such (KITTI's `Car AP@0.70, 0.70, 0.70:` over `bbox AP:90.1, 88.2, 87.0`)
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
