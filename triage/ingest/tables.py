"""Printed tables whose columns are placed by character position, not by splitting cells.

The cell-splitting table reader in ``textlog`` takes a header's names from its cells (split on a tab,
a pipe or two blanks) and a row's values in the same order. Three everyday shapes need the columns'
places on the line instead:

* a header over a *rule line* (``E    #       LOSS TOK2VEC  LOSS NER`` over ``---  ------  ------------``;
  tabulate's and Ray Tune's ``+-----+-----+``; a box-drawn ``├──────┤``): each run of dashes is one
  column and its name is the header text above the run, blanks and all (``LOSS TOK2VEC`` is one name);
  a rule of one run (a box border) leaves the columns to the header's own two-blank cells;
* a header printed over *two lines* (``average  since  example`` over ``loss     last   counter``): each
  word of one line joins the column of the other line it stands under;
* rows whose *text cells* (a trial name, a status) stand beside the numbers: text labels the row,
  numbers are its values.

A row's cells go to the column whose stretch of the line they overlap most (the stretches meet halfway
between two columns), so a right-aligned number under a left-aligned name, an empty cell or a name
longer than its numbers all land where the eye puts them. Names then pass through the knowledge's
header entries (metrics.yaml ``headers``: ``columns`` rename a header's first columns, ``rename``
renames names one by one), e.g. a tool's one-letter epoch column.

Only a line without numbers can open a table here, and only when the line under it confirms it (a rule,
or a second header line standing column for column under it), so a log without tables pays nothing
but a look at its lines without numbers.
"""

from __future__ import annotations

import re

from triage.ingest import aliases as _aliases
from triage.ingest import printed

# A rule line: dashes (ASCII, box-drawing, `=`), with only blanks, pipes, corners and crossings between.
_RULE = re.compile(r"^[\s|+:\-─━═=┼┬┴├┤╞╡╪╫╭╮╰╯┌┐└┘│┃╇╈╋┠┨┝┥╟╢╤╧┏┓┗┛┳┻┡┩┣┫]*$")
_DASHES = re.compile(r"[-─━═=:]{2,}")
_BORDERS = str.maketrans({c: " " for c in "|│┃"})
_WORD = re.compile(r"\S+")
_NUMBERISH = re.compile(r"^[-+(]?\.?\d")  # a word that is a number: a header has none
_VALUE = re.compile(r"^([-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf|infinity))"
                    r"(?:/\d+)?(?:%|[A-Za-z]{1,2})?$", re.I)  # `0.93`, `70/100` (an epoch), `6.73G`, `93.1%`
_CELL_WORDS = 4  # a header name has at most this many words; more is a sentence
_MAX_COLUMNS = 40
# Words that keep a line from reading as a key in prose (`batch size: 32` is a setting) but are plain nouns
# inside a column name (`Step size`, `Num samples`): in the header of a table with a counter column they
# make no sentence.
_NAME_NOUNS = frozenset({"size", "number", "num", "version", "seed", "set"})


class Positional(list):
    """A table header: its column names (a list, as textlog's headers are) and where each column
    stands on the line (`spans`, half-open character ranges in the line's own coordinates)."""

    def __init__(self, names: list[str], spans: list[tuple[int, int]]):
        super().__init__(names)
        self.spans = spans
        self.labels: dict[str, None] = {}  # the rows' labels (their first text cell), in order
        # each column owns the stretch of the line up to halfway to its neighbours
        self.edges = [(spans[i][1] + spans[i + 1][0]) / 2 for i in range(len(spans) - 1)]


_ITEM_NAME_CELLS = frozenset({"name", "term", "key", "parameter", "param", "option", "setting"})
# A search's per-trial iteration count (Ray Tune's `iter`): each trial counts its own from the start
TRIAL_ITERS = frozenset({"iter", "iters", "iteration", "iterations", "training_iteration", "epoch", "epochs"})
_KNOB_CELLS = frozenset({"hyperparameter", "hyperparameters", "hyperparam", "hparam", "hparams", "knob"})
_INDEX_CELLS = frozenset({"index", "idx", "id", "#", "no", "no."})
_TENSOR_NAME_CELLS = frozenset({"layer", "module", "tensor", "variable", "weight"})


def settings_listing(names: list[str]) -> bool:
    """A header of named items and their settings only (Isaac Lab's `| Index | Name | Weight |`, a listing of
    reward terms): each row describes one item of a configuration, never a measurement of a step. A header
    that names a tensor and its shape (`| Name | Shape | Size | Mean | Std |`, a parameter overview printed
    before training) lists the model's weights, one row a tensor: no step's measurement either."""
    lowered = [str(c).lower() for c in names]
    if lowered and lowered[0] in _KNOB_CELLS:
        # `Hyperparameter |Value |Best Value So Far`: a search's knobs, one a row, with the values a trial
        # tries beside the best found so far; settings, whatever the other columns say
        return True
    if "shape" in lowered and any(c in _ITEM_NAME_CELLS or c in _TENSOR_NAME_CELLS for c in lowered):
        return True
    return any(c in _ITEM_NAME_CELLS for c in lowered) and all(
        c in _ITEM_NAME_CELLS or c in _INDEX_CELLS or c in printed._SETTING_WORDS for c in lowered)


class Tracker:
    """Remembers the header-like lines just read, so that the next line can confirm them as a table
    header (a rule under them, or a second header line)."""

    def __init__(self) -> None:
        self.ln = -1  # the line the header-like lines above end on
        self.above: list[str] = []  # up to two header-like lines, top first
        self.made: list[Positional] = []  # the headers confirmed so far

    def header(self, ln: int, seg: str, lines=None) -> Positional | None:
        """The header that line `ln` (a line without numbers, as printed) completes, or None.
        `lines`: the log's lines (0-based) where the line above may have been passed over unread."""
        above = self.above if self.ln == ln - 1 else None
        self.above, self.ln = [], ln
        if _RULE.match(seg):
            if not _DASHES.search(seg):
                return None
            if above is None and lines is not None and ln >= 2:  # (a quiet line the bulk path passed over)
                prev = str(lines[ln - 2]).rstrip("\r")
                above = [prev] if _header_words(_plain(prev)) else None
            return self._made(_under_rule(above, seg)) if above else None
        if "  " not in seg and "|" not in seg and "│" not in seg:
            return None
        words = _header_words(_plain(seg))
        if not words or len(_cells(words)) < 2:
            return None
        self.above = [seg]
        if above and len(above) == 1:
            joined = _two_lines(above[0], seg)
            if joined is not None:
                self.above = [above[0], seg]
                return self._made(joined)
        return None

    def _made(self, header: Positional | None) -> Positional | None:
        if header is not None and settings_listing(header):
            return None
        if header is not None:
            self.made.append(header)
        return header

    def warn(self, b) -> None:
        """Say so when a table's rows name different things in their first column (Ray Tune:
        one row per trial): their points are read as one run's, side by side on its step axis."""
        labels: dict[str, None] = {}
        for header in self.made:
            labels.update(header.labels)
        if len(labels) > 1:
            some = ", ".join(list(labels)[:3]) + (", ..." if len(labels) > 3 else "")
            b.warn(f"a printed table's rows are labelled {len(labels)} ways by their first column ({some}): "
                   "they are read as points of one run")


def row(header: Positional, seg: str, skip: frozenset | set = frozenset()) -> tuple[dict, float | None] | None:
    """(values, epoch) of one row under a positional header, or None when the line is no row of it:
    most columns must hold a number. A column named `-` or in `skip` (bookkeeping counts) is read and
    dropped; a column named `step` outranks one that only reads as a counter (`iter`)."""
    cells = _place(header, _words(_plain(seg)))
    if cells is None:
        cells = _ruled_cells(seg, len(header))
    if cells is None:
        return None
    values: dict = {}
    epoch = step = counter = None
    counted_by = ""
    numbers = 0
    label = cells[0].strip() if cells[0] and not _VALUE.match(cells[0].strip()) else None  # (`PPO_..._00001`)
    for name, cell in zip(header, cells):
        if not cell:
            continue
        cell = cell.replace("**", "").strip().rstrip(",;")
        if cell[-1:] == ")" and " (" in cell:  # a running average or the loss's terms after the value: the value
            cell = cell[: cell.index(" (")]
        m = _VALUE.match(cell)
        if not m:
            continue  # a text cell labels the row (a trial's name, its status): no value
        numbers += 1
        if name == "-" or name.lower() in skip:
            continue
        v = printed.to_number(m.group(1))
        role = printed._key_role(name)
        if name == "step":
            step = v
        elif role == "step":
            if counter is None:
                counter, counted_by = v, name.lower()
        elif role == "epoch":
            epoch = v if epoch is None else epoch
        else:
            values[name] = v
    split_row = label is not None and len(label.split()) == 1 and bool(printed._split_of([label]))
    # (a split's row under a header of one metric, `│ train │ 0.0960 │` under `│ combined │ loss │`, holds one
    # number: its label cell names what the number is of)
    least = 1 if split_row and len(header) == 2 else max(2, len(header) // 2)
    if numbers < least or not (values or step is not None or counter is not None):
        return None
    if label is not None and not split_row and str(header[0]).lower().startswith("trial") \
            and (counter is None or counted_by in TRIAL_ITERS) and step is None:
        # `| train_mnist_00002 | TERMINATED | ... |   16 | 0.94 |` under `| Trial name | status | ... | iter |`:
        # a search's status table, one row per trial; its `iter` counts that trial's own iterations, so the
        # trial's place in the table is the row's step
        header.labels[label] = None
        counter = float(list(header.labels).index(label))
    step = step if step is not None else counter
    if split_row:
        # `│ vali │ 1.2190 │ 0.2708 │` under `│ rating │ loss │ accuracy │`: one split's row of the
        # metrics the header names (Ludwig, fastai-style summaries): its values are that split's
        values = {f"{label} {k}": v for k, v in values.items()}
    elif label is not None:
        header.labels[label] = None
    if step is not None:
        values["step"] = step
    return values, epoch


# ------------------------------------------------------------------------------------------ helpers
def _plain(seg: str) -> str:
    """The line as it stands on screen: no colours, tabs as blanks."""
    if "\x1b" in seg:
        seg = printed._ANSI.sub("", seg)
    return seg.expandtabs() if "\t" in seg else seg


def _words(plain: str) -> list[tuple[int, int, str]]:
    """The line's words with their places, table borders taken as blanks and a logger's prefix
    (a timestamp, a level: `printed` strips the same ones) left out."""
    start, n = 0, 0
    while n < 8:
        m = printed._PREFIX.match(plain[start:])
        if not m or not m.end() or m.group().strip() in ("-", ":", "|", "]"):
            break  # (a lone `-` or `|` opens a number or a table row, not a prefix)
        start += m.end()
        n += 1
    text = plain.translate(_BORDERS)
    return [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text, start)]


def _header_words(plain: str) -> list[tuple[int, int, str]] | None:
    """The words of a line that can be (part of) a table header: no numbers, some letters."""
    words = _words(plain)
    if not words or len(words) > _MAX_COLUMNS * _CELL_WORDS:
        return None
    if any(_NUMBERISH.match(w) or w.endswith((":", "=")) or "=" in w for _, _, w in words) \
            or not any(c.isalpha() for _, _, w in words for c in w):
        return None  # (a `key: value` or `key=value` line is a setting, not a column name)
    return words


def _cells(words: list[tuple[int, int, str]]) -> list[list[tuple[int, int, str]]]:
    """Words grouped into cells: two blanks or more end a cell."""
    cells: list[list] = []
    for w in words:
        if cells and w[0] - cells[-1][-1][1] < 2:
            cells[-1].append(w)
        else:
            cells.append([w])
    return cells


def _sentence(names: list[str]) -> bool:
    """Names that read as prose (`saving the model`), not as column names."""
    if any(len(n.split()) > _CELL_WORDS for n in names):
        return True
    # (a noun such as `size` names a column only in a table that counts steps: `| Iteration | Step size |`;
    # without a counter, `| Batch size | LR |` is a run's settings drawn as a table)
    nouns = _NAME_NOUNS if any(printed._key_role(n) in ("step", "epoch") for n in names) else frozenset()
    return any(" " in n and any(w in printed._STOP and w not in nouns for w in n.lower().split())
               for n in names) \
        or all(n.lower() in printed._STOP for n in names)


def _under_rule(above: list[str], rule: str) -> Positional | None:
    """The header whose names stand over a rule line: one column per run of dashes (or, for a rule of
    one run, per two-blank cell of the header)."""
    runs = [m.span() for m in _DASHES.finditer(_plain(rule))]
    found = [_header_words(_plain(a)) for a in above]
    lines = [w for w in found if w is not None]
    if not lines or len(lines) < len(found):
        return None
    if len(runs) < 2:  # a box border: the header's own cells are the columns
        base = max((_cells(w) for w in lines), key=len)
        runs = [(c[0][0], c[-1][1]) for c in base]
    if not 2 <= len(runs) <= _MAX_COLUMNS:
        return None
    cols = Positional(["-"] * len(runs), runs)
    parts: list[list[str]] = [[] for _ in runs]
    for words in lines:
        for a, z, w in words:
            parts[_column(cols, a, z)].append(w)
    names = [" ".join(p) if p else "-" for p in parts]
    if sum(n != "-" for n in names) < 2 or _sentence(names):
        return None
    return _named(names, runs)


def _two_lines(top: str, bottom: str) -> Positional | None:
    """One header printed over two lines: the line with more cells gives the columns, each word of the
    other joins the column it stands under (overlapping it, a blank either side allowed)."""
    tw, bw = _header_words(_plain(top)), _header_words(_plain(bottom))
    if not tw or not bw:
        return None
    tc, bc = _cells(tw), _cells(bw)
    anchor, other, anchor_top = (tc, bw, True) if len(tc) >= len(bc) else (bc, tw, False)
    if not 3 <= len(anchor) <= _MAX_COLUMNS:
        return None
    spans = [(c[0][0], c[-1][1]) for c in anchor]
    extra: list[list[str]] = [[] for _ in anchor]
    for a, z, w in other:
        hit = [i for i, (s, e) in enumerate(spans) if a < e + 1 and z > s - 1]
        if len(hit) != 1:
            return None  # a word under no column, or under two: not one header
        extra[hit[0]].append(w)
        s, e = spans[hit[0]]
        spans[hit[0]] = (min(s, a), max(e, z))
    if sum(1 for x in extra if x) < 2 or any(spans[i][1] >= spans[i + 1][0] for i in range(len(spans) - 1)):
        return None
    names = []
    for cell, more in zip(anchor, extra):
        own = " ".join(w for _, _, w in cell)
        names.append(" ".join([own] + more if anchor_top else more + [own]))
    if _sentence(names):
        return None
    return _named(names, spans)


def _named(names: list[str], spans: list[tuple[int, int]]) -> Positional | None:
    """The header with the knowledge's renames applied (metrics.yaml `headers`). A header that
    names one column twice (`category  #instances  category  #instances`) folds several records into
    a line (a class histogram printed three pairs wide): no table of one record per row."""
    named = [n for n in names if n != "-"]
    if len(set(named)) < len(named):
        return None
    from triage.ingest.aliases import table

    tab = table()
    joined = " ".join(names)
    for rx, columns in tab.headers:
        if rx.match(joined) and len(columns) <= len(names):
            names = list(columns) + names[len(columns):]
            break
    for rx, mapping in tab.renames:
        if rx.match(joined):
            names = [mapping.get(n, n) for n in names]
    return Positional(names, spans)


def at_cells(seg: str, names: list[str]) -> Positional | None:
    """A cell-split header (names two blanks apart, as printed on `seg`) placed by position, for a row
    that left some cells blank (Chainer's PrintReport leaves a validation column empty on the epochs
    it did not validate): None when the line's cells are not the names' count."""
    words = _header_words(_plain(seg))
    cells = _cells(words) if words else []
    if len(cells) != len(names) or len(cells) < 2:
        return None
    return Positional(list(names), [(c[0][0], c[-1][1]) for c in cells])


def _column(cols: Positional, a: int, z: int) -> int:
    """The column whose stretch of the line the range a..z overlaps most."""
    lo = -1e18
    best, most = 0, -1.0
    for i in range(len(cols.spans)):
        hi = cols.edges[i] if i < len(cols.edges) else 1e18
        over = min(z, hi) - max(a, lo)
        if over > most:
            best, most = i, over
        lo = hi
    return best


def _ruled_cells(seg: str, n: int) -> list[str] | None:
    """A `|`-ruled row's cells by order, blank ones kept, when it has one per column: a row whose values
    lost their places under the header (a hand-trimmed paste) still keeps its rules."""
    s = seg.strip()
    for rule in ("|", "\u2502"):
        if len(s) > 2 and s[0] == rule and s[-1] == rule:
            cells = [c.strip() for c in s[1:-1].split(rule)]
            return cells if len(cells) == n else None
    return None


def _place(header: Positional, words: list[tuple[int, int, str]]) -> list[str] | None:
    """A row's words as one cell per column, by place; by order when two numbers meet in one column
    but the row has exactly one word per column (a paste that lost its alignment)."""
    cells: list[list[str]] = [[] for _ in header]
    clash = False
    for a, z, w in words:
        i = _column(header, a, z)
        if z - a > 12:  # a number too wide for its column (`1071057062...104.0000`) runs on under the whole
            over = [j for j, (lo, hi) in enumerate(header.spans) if a <= lo and hi <= z]  # of two names or
            if len(over) > 1 and not cells[over[0]]:  # more: it is the value of the first of them
                i = over[0]
        if cells[i] and (_VALUE.match(w) or _VALUE.match(cells[i][-1]) and w[:1] != "("):
            clash = True  # (`2.31 (2.45)`, `2.31 (ce 2.08, kl 0.23)`: a value and an aside on it, one cell)
        cells[i].append(w)
    if not clash:
        return [" ".join(c) for c in cells]
    if len(words) == len(header):
        return [w for _, _, w in words]
    return None


def scored_on_eval(names: list[str]) -> list[str]:
    """A table that names its losses by split (`train_loss valid_loss accuracy`, fastai's recorder)
    prints the metrics after the validation loss for the validation set: they get its split (printed or
    written by its CSVLogger as `epoch,train_loss,valid_loss,accuracy,time`). So
    does a table with a validation loss and no training loss at all (the results table of an HF
    model card, `Epoch | Step | Validation Loss | Accuracy`): every score it holds is an evaluation's."""
    tab = _aliases.table()
    res = [tab.resolve(n, "text") for n in names]
    trains = [i for i, r in enumerate(res) if r.name == "loss" and printed.SPLIT_WORDS.search(names[i])]
    evals = [i for i, r in enumerate(res) if r.name == "eval/loss"]
    if not evals or (evals[0] < trains[0] if trains else any(r.name == "loss" for r in res)):
        return names
    out = list(names)
    for i in range(evals[0] + 1, len(names)):
        if res[i].known and res[i].split == "train" and not printed.SPLIT_WORDS.search(names[i]) \
                and res[i].name not in tab.axis_keys and not res[i].name.endswith("time"):
            out[i] = "valid_" + names[i]
    return out
