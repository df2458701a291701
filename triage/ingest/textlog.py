"""Plain-text training output: stdout captures, ``*.log`` files, pasted tracebacks.

One pass over the lines (and the ``\\r``/backspace redraws inside them) reads a mixed capture whole:

* metric lines in any print style go through the general line grammar (``triage.ingest.printed``),
  parsed once per line template; Keras progress redraws keep only the last one of each epoch;
* dict lines (HF Trainer / TRL / axolotl ``{'loss': 0.7, ...}``, JSON objects), also glued to a tqdm
  bar whose counter gives the step; SB3 ``| key | value |`` blocks; printed tables under a header
  line, or headerless ones described in metrics.yaml ``layouts``;
* events: Python tracebacks (one event per chained block), error and warning lines, DeepSpeed/apex
  loss-scale overflow lines (their value is also a ``loss_scale`` point), resume/checkpoint info lines.

Before the steps are given, lines that are not measurements go: entries of a YAML config dump, a
message that only quotes the numbers printed just before it, one-off banners. Steps come from the
training records' own counters, else epoch plus batch, else rising epochs, else line order
(``meta["step_axis"]``); several runs printed one after another are placed one after another
(``meta["runs"]``). The dialect patterns below only name the format (``llmc``, ``megatron``, ...)
from the head of the file; the reported format is the dialect that contributed most rows.
"""

from __future__ import annotations

import ast
import functools
import json
import math
from triage.ingest import lazyre as re
import warnings
from typing import Callable, NamedTuple

import numpy as np

from triage.ingest import aliases as _aliases
from triage.ingest import printed, printed_bulk, settings, tables
from triage.ingest.builder import NAN, RunBuilder, run_shift, split_named_by_path, starts_run, to_float
from triage.ingest.linetrace import LineTrace
from triage.ingest.run import Run, full_precision
from triage.ingest.source import Source, decode

MAX_TEXT_LINE = 1 << 20  # longer lines are cut for event text and not parsed for metrics

# ---------------------------------------------------------------------------------------- patterns
_NUM = r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|NaN|inf|Inf|Infinity|-?inf)"
_PYDICT_START = re.compile(r"\{\s*'")
_BARE_NONFINITE = re.compile(r"(?<![\w'\"])(-?)(nan|inf|NaN|Infinity)(?![\w'\"])")
_BARE_QUOTED = re.compile(r"'(-?(?:nan|inf|NaN|Infinity))'")  # (a non-finite value parse_pyvalue quoted, bare again)
_TQDM = re.compile(r"(\d+)/(\d+)\s*\[")
_KERAS_EPOCH = re.compile(r"^\s*Epoch\s+(\d+)/(\d+)\s*$")
_KERAS_CALLBACK_EPOCH = re.compile(r"^\s*Epoch \d{5}: ")  # Keras 2's callbacks number the epoch `%05d`
_LLMC_STEP = re.compile(r"^\s*step\s+(\d+)/(\d+)\s*\|(.*)$")
_LLMC_MAIN = re.compile(r"^s:(\d+)((?:\s+[A-Za-z_]\w*:\S+)+)\s*$")
_NANOGPT_ITER = re.compile(r"^\s*iter\s+(\d+):\s*loss\s+(" + _NUM + r")(?:,\s*time\s+(" + _NUM + r")ms)?(?:,\s*mfu\s+(" + _NUM + r")%)?")
_NANOGPT_EVAL = re.compile(r"^\s*step\s+(\d+):\s*train loss\s+(" + _NUM + r"),\s*val loss\s+(" + _NUM + r")")
_MEGATRON_ITER = re.compile(r"\biteration\s+(\d+)\s*/\s*(\d+)\s*\|(.*)$")
_TORCHTUNE = re.compile(r"^\s*Step\s+(\d+)\s*\|\s*(.+)$")
_VERL = re.compile(r"^\s*step:(\d+)\s+-\s+(.*)$")
_SB3_BORDER = re.compile(r"^\s*(?://|#)?-{10,}\s*$")  # (`//-----`: the border pasted behind a comment marker)
_SB3_MEMBER = re.compile(r"^\|\s{3,}[A-Za-z_]\w*\s+\|\s*[-+]?\.?\d[\w.+-]*\s*\|\s*$")  # `|    loss   | 0.351 |`
_SB3_ROW = re.compile(r"^\s*\|\s*(\S[^|]*?)\s*\|\s*([^|]*?)\s*\|\s*$")
# torchrun's `[default0]:` (role, local rank) or `[trainer0|3]:` (role, local rank | global rank), mpirun's
# `[1,0]<stdout>:` (SageMaker's `[1,mpirank:0,algo-1]<stdout>:`), srun's `0: ` (one blank: `12:\tlearn: 0.5`
# or `12:    learn: 0.5`, a tab or its spaces, is a boosting round's counter, as CatBoost prints it)
_LAUNCHER_PREFIX = re.compile(r"^(?:\[(?:default\d+|[A-Za-z_]+\d+\|\d+)\]:|\[\d+,[\w:,.-]*\]<std(?:out|err)>:"
                              r"|\d+: (?![\t ]))")

_RANK_PREFIX = re.compile(r"^(?:\[(?:(?:rank|default)?\d+(?:,\d+)?|[A-Za-z_]+\d+\|\d+|\d+,[\w:,.-]*)\](?:<std(?:out|err)>)?:\s?|\d+:\s)")
# (IPython and Jupyter head theirs with the exception's name: `NotImplementedError    Traceback (most recent call last)`;
# copied from a notebook's output with its colours stripped, the two may run together: `NanLossErrorTraceback (...)`)
_TRACEBACK_START = re.compile(r"^\s*(?:[A-Za-z_][\w.]*(?:Error|Exception|Interrupt)\s*)?Traceback \(most recent call last\)")
_TB_FRAME = re.compile(r'^\s*File "[^"\n]+", line \d+, in \S')
# rich's traceback (`rich.traceback.install()`, Typer, accelerate): a box headed `╭─── Traceback (most recent
# call last) ───╮`, closed by `╰───╯`, then the exception line. Inside it each frame's source lines carry a
# gutter (`│   2158 │ code`, the failing one `│ ❱ 2160 │ code`: the number right-aligned after a 2-wide marker)
# and a `│ path.py:2160 in fn │` location line; an excerpt pasted from the middle of the box starts at either.
_RICH_TB_HEAD = re.compile(r"^[╭┏][─━]+ *Traceback \(most recent call last\) *[─━]+[╮┓]\s*$")
_RICH_TB_FRAME = re.compile(r"^│(?: {3,}| ❱ +)\d+ │|^│ +\S.*\.py:\d+ in [\w<>.]+ *│$")
# a box-drawn table's row of numbers (rich.table's `│   38 │     0.7372 │ 1.00e-03 │`) has the frame's gutter
# shape: a frame's cell after its line number is code, never numbers only
_NUMBER_ROW = re.compile(r"^│(?: *[-+]?(?:\d[\d.,]*(?:[eE][-+]?\d+)?%?|nan|inf) *│){2,}\s*$", re.I)
# IPython's (8.x) traceback: each frame opens at `File /path/to/mod.py:2245, in fn(args)` or `Cell In[19], line 1`,
# its source lines numbered after a gutter and the failing one marked by an arrow (`-> 2245 code`, `----> 1 code`)
_IPY_TB_FRAME = re.compile(r"^(?:-*> *\d+ |File \S[^\n]*:\d+, in \S|Cell In *\[\d*\], line \d+)")
_TRACEBACK_CHAIN = re.compile(r"^\s*(During handling of the above exception|The above exception was the direct cause)")
# `loss_dict = {'loss_cls': nan}`: a variable's name and its container's repr, the whole line
_MESSAGE_DUMP = re.compile(r"^[A-Za-z_]\w*\s*=\s*(?:\{.*\}|\[.*\])\s*$")
_EXC_LINE = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Fault)|KeyboardInterrupt|AssertionError|StopIteration)\b(:.*)?$")
_OVERFLOW = re.compile(
    r"(OVERFLOW!|[Oo]verflow detected|dynamic loss scale overflow|Gradient overflow\.|Reducing dynamic loss scale"
    r"|loss scale already at minimum|Skipping step, loss scaler)"
)
_OVERFLOW_VALUE = re.compile(
    r"(?:reducing to|reducing loss scale to|Reducing dynamic loss scale from\s+" + _NUM + r"\s+to"
    r"|setting loss scale to:?"  # fairseq: `overflow detected, setting loss scale to: 0.25`
    # DeepSpeed with hysteresis: `Attempted loss scale: 65536, but hysteresis is 2. Reducing hysteresis to 1`
    # spends one of its tolerated overflows instead of cutting the scale, which stays what it attempted
    r"|Attempted loss scale:(?=\s*" + _NUM + r",\s*but hysteresis)"
    # apex's old FP16_Optimizer and the trainers that copied it (NVIDIA Tacotron 2): `OVERFLOW! Skipping step.
    # Attempted loss scale: 131072.0` and nothing after it: the scale the skipped step ran at
    r"|Skipping step\.\s+Attempted loss scale:(?=\s*" + _NUM + r"\s*$))\s*(" + _NUM + r")"
)
_EVENT_POINT = "event"  # the source of a record an event line gives (a loss scale; see _prints_loss_scale)
# An exception's message made only of `name=value` pairs of numbers (`ValueError: loss=nan, entropy_loss=nan`)
_RAISED_VALUE = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?nan|[-+]?inf"
_RAISED_PAIRS = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception):\s*((?:[A-Za-z_][\w/.]*\s*=\s*(?:" + _RAISED_VALUE
                           + r")(?:\s*,\s*|\s+|$))+)$", re.I)
_RAISED_PAIR = re.compile(r"([A-Za-z_][\w/.]*)\s*=\s*(" + _RAISED_VALUE + r")", re.I)
_RAISED_TPL = "<exception values>"
# an error rate after `error:` (`Validation error: 1.2%`, `test error: 0.0312`): a metric, not a failure
_RATE_NEXT = r"(?!\s*[-+]?(?:\d+\.\d+(?:[eE][-+]?\d+)?|\d+(?:\.\d+)?\s*%)\s*(?:$|[,;|(]))"  # (`error: 6.07E-4`)
_ERROR = re.compile(
    r"(\b[A-Z]\w*(?:Error|Exception)\b:|\bCUDA error\b|\bout of memory\b|\bOutOfMemory|\bSegmentation fault|core dumped"
    r"|\bNCCL\b.*\b(?:error|timeout|Timeout|WARN)|Watchdog caught collective operation timeout|^\s*Killed\s*$"
    r"|\bERROR\b|\bFATAL\b|\bfatal error\b|CANCELLED AT .* DUE TO|\berror:" + _RATE_NEXT + r"|device-side assert"
    r"|Assertion .* failed"
    r"|\bnan loss\b|(?i:\b(?:loss|cost) (?:is|was|became|has become|exploded to|went to|turned(?: to| into)?)\s*:?\s*[-+]?(?:nan|inf)\b(?!.{0,40}\bskipping))|non-finite loss|[Ll]oss (?:is|in) not finite|detected NaN|\bNaN or Inf found"
    r"|^\s*NaN detected\b|^\s*what\(\):\s|terminate called after throwing"  # a C++ engine's uncaught exception
    r"|Error reported to Coordinator"  # TF 1.x: the exception that stops the training threads
    r"|\b[A-Z]\w*(?:Error|Exception) \(see above for traceback\):"  # TF 1.x's session error, its stack printed before
    r"|^\s*size mismatch for \S+: copying a param with shape"  # PyTorch's load_state_dict refusing a checkpoint
    r"|^\s*Exception raised from \S+ at \S+"  # a C++ exception of PyTorch's core, its frames dumped after
    r"|^\s*Error\b[^:\n]{0,80}:(?:\s|$)" + _RATE_NEXT + ")"  # an except block's print (`Error loading adapter (maybe
    # raw model?): Can't find ...`), R's `Error in `FUN()`:` with its message on the next line
)
_WARNING = re.compile(r"(\b\w*Warning\b|\bWARNING\b|\bWARN\b|\[W\d*\s|^\s*warnings\.warn|\bwarning:"
                      r"|^\s*\(function _?print_stack\)\s*$)")  # the end of an anomaly-mode forward trace
# darknet's region (YOLO) layer prints one line per subbatch (`Region Avg IOU: 0.29, Class: 0.51, Obj: 0.42, ...`,
# v3's `Region 82 Avg IOU: ...`, AlexeyAB's `v3 (mse loss, ...) Region 16 Avg (IOU: ..., GIOU: ...), ..., total_loss = 0.1`):
# diagnostics inside an iteration, whose own line (` 75: 3.12, 3.40 avg loss, 0.001 rate, ...`) is the record
_DARKNET_ITER = re.compile(r"^\s*\d+:\s*[-+]?(?:\d|nan|inf)[^,]*,\s*[-+]?(?:\d|nan|inf)[^,]*\savg(?:\s+loss)?\b", re.I)
_REGION_LAYER = re.compile(r"\bRegion\s+(?:\d+\s+)?Avg\s*\(?\s*IOU\b")
# a line that is only a number (what a lone scalar tensor's repr leaves once unwrapped)
# MATLAB's struct display: the heading naming the struct (`info.val = `), a field holding an array (`error: [0.56 ...`)
_STRUCT_HEAD = re.compile(r"^\s*[A-Za-z]\w*\.([A-Za-z]\w*)\s*=\s*$")
_STRUCT_FIELD = re.compile(r"^\s*([A-Za-z]\w*):\s*\[(.*)$")
_STRUCT_NUMBER = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|NaN|nan|Inf|inf)$")
_LONE_NUMBER = re.compile(r"^\s*[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf)\s*$")
_LONE_TENSOR_RUN = 3  # lone tensor lines in a row before they read as a printed loss
_SKIPPED_STEP = re.compile(r"(?i)^warning\s*:\s*(?:the\s+)?[\w/ .-]{1,40}?\s+(?:is|was|became)\s+(?:nan|inf|non-finite)"
                           r"\s*[,;.]?\s*(?:so\s+)?skipping\b")
# Two named quantities compared in a sentence, each with its number in parentheses (`num_tokens(5221) <
# max_tokens(1024)`, `used(9.1) >= limit(8)`)
_COMPARED = re.compile(r"[A-Za-z_][\w.]*\(\s*[-+]?\d[\d.]*(?:[eE][-+]?\d+)?\s*\)\s*(?:<|>|<=|>=)\s*"
                       r"[A-Za-z_][\w.]*\(\s*[-+]?\d")
# A sample of generated text printed during training (verl's validation samples: `[prompt]`, `[response]`,
# then `[ground_truth]` and `[score]`); its lines run until a reference or score tag
_SAMPLE_OPENS = re.compile(r"(?:^|[\s)\]])\[(?:prompt|response|completion)\](?:\s|$)"
                           r"|\b(?:PROMPT|CONTEXT|RESPONSE|COMPLETION|GENERATION|SAMPLE)_BEGIN\b", re.I)
_SAMPLE_ENDS = re.compile(r"(?:^|[\s)\]])\[(?:ground_truth|score|reward|target|reference)\](?:\s|$)"
                          r"|\b(?:PROMPT|CONTEXT|RESPONSE|COMPLETION|GENERATION|SAMPLE)_END\b", re.I)
_SAMPLE_METRIC_LINE = re.compile(r"(?:^|[\s)\]])step:\d+ - [\w/@-]+:|\{'[\w/@-]+': [-+]?\d")
_SAMPLE_MAX_LINES = 200
# A notice about one checkpoint file, its path last on the line (`Removing checkpoint: /x/m--val_loss=3.05.ckpt`)
# a line about a file (a checkpoint saved, loaded or written): its numbers are the file's (an epoch in its name, a
# score it was kept for, seconds spent writing), not more values of the training line above it
_FILE_EVENT = re.compile(r"(?i)\b(?:checkpoints?|ckpt|sav(?:e|ed|ing)|writ(?:e|ing|ten)|wrote|load(?:ed|ing)?)\b")
_CKPT_FILE_NOTICE = re.compile(r"(?i)\b(?:removing|removed|deleting|deleted|loading|loaded|restoring|restored)\s+"
                               r"(?:the\s+)?(?:old\s+|best\s+|last\s+)?(?:checkpoint|ckpt)s?\s*(?:file\s*)?(?:from\s*|:\s*)?"
                               r"['\"]?[\w.~-]*/[^\s'\"]*['\"]?\s*\.?\s*$")
# fairseq's notice before and after it writes a checkpoint (`Preparing to save checkpoint for epoch 1 @ 695 updates`,
# `saved checkpoint ckpt/checkpoint1.pt (epoch 1 @ 695 updates, score 6.681)`): the epoch and the update count say
# when, the score repeats the validation line printed just before; no record of its own
_CKPT_AT_UPDATES = re.compile(r"(?i)\bcheckpoint\b.*\bepoch \d+ @ \d+ updates\b")
# a launcher's description of each device at start (fairseq's `rank 0: capabilities = 7.5 ; total memory =
# 10.761 GB ; name = NVIDIA GeForce RTX 2080 Ti`): the device's compute capability, memory and model number
_DEVICE_INFO = re.compile(r"(?i)\bcapabilit(?:y|ies)\s*[=:]\s*\d+(?:\.\d*)?\s*[;,|]\s*total\s+memory\s*[=:]")
# Python 2's `print("loss:", loss)` prints the tuple (`('epoch', 3, 'loss:', 0.41)`): quoted words and numbers
# and nothing else, a word first; what it says is its items in a row (`epoch 3 loss: 0.41`)
_PY2_WORD = r"""(?:'[^'\n]*'|"[^"\n]*")"""
_PY2_TUPLE = re.compile(r"^\(\s*" + _PY2_WORD + r"(?:\s*,\s*(?:" + _PY2_WORD
                        + r"|[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)))+\s*,?\s*\)\s*$")
_PY2_ITEM = re.compile(r"""'([^'\n]*)'|"([^"\n]*)"|([^\s,'"()]+)""")


def _py2_tuple(s: str) -> str:
    """The items of a printed tuple in a row, the words without their quotes."""
    return " ".join(next(g for g in m.groups() if g is not None).strip()
                    for m in _PY2_ITEM.finditer(s.strip()[1:-1])).strip()


_KEY_VALUE_ITEM = re.compile(r"\bKey:\s*([A-Za-z_][\w/.@-]*)\s*,\s*Value:\s*(" + _NUM + r")(?=\s*$)", re.I)
# The weights a reward or a loss sums its terms with (`Reward weights: accuracy=0.7, grounding=0.25`,
# `loss coefficients: ce=1.0, kl=0.1`)
_DATED_VALUE = re.compile(r"\b[A-Za-z_]\w*\s*=\s*['\"]?\d{4}-\d\d-\d\dT\d\d:\d\d")  # `target=2006-12-11T18:00`
_DOTTED_SETTING = re.compile(r"(?:^|[\s\]])[A-Za-z_][\w.]* \.{4,} \S")  # `name ....... value` (no number pattern)
_TERM_WEIGHTS = re.compile(r"(?i)^\W{0,4}(?:reward|loss|objective|task)s?[ _-](?:weights?|coefficients?|coeffs?)\s*[:=]\s*"
                           r"[A-Za-z_][\w/.-]*\s*[:=]\s*[-+]?\.?\d")
# LaTeX's maths commands (`\frac{4}{5}`, `\times`, `\sqrt{2}`, `\angle A`, `\boxed{18}`)
_LATEX = re.compile(r"\\(?:d?frac|sqrt|boxed)\{|\\(?:times|cdot|div|pi|theta|angle|circ|infty|leq?|geq?|neq|approx|"
                    r"overline|alpha|sigma)(?![A-Za-z])")
_RUN_SUMMARY_HEAD = re.compile(r"\bwandb:\s+Run summary:\s*$")
_RUN_SUMMARY_ENTRY = re.compile(r"\bwandb:\s+\S.*?\s\S+\s*$")  # (a name may hold blanks: `Time taken: f`)
_INFO = re.compile(
    r"(\b[Rr]esum(?:ing|ed) (?:from|training)|resume_from_checkpoint|[Ll]oading checkpoint|Saving model checkpoint"
    r"|[Cc]ontinuing training from checkpoint|Restarting|Early stopping)"
)

# Words one of the event patterns above needs (lower case); a line with none of them is no event.
_EVENT_HINTS = ("error", "exception", "memory", "segmentation", "dumped", "nccl", "watchdog", "killed", "fatal",
                "cancelled", "assert", "nan", "non-finite", "not finite", "warn", "[w", "resum", "checkpoint", "restarting",
                "early stopping", "overflow", "loss scale", "skipping step", "print_stack", "what():", "terminate called",
                "size mismatch")

DIALECTS = ("hf_stdout", "keras_stdout", "llmc", "nanogpt", "megatron", "torchtune", "verl", "sb3_stdout")


def parse_pydict(text: str) -> dict | None:
    """A Python-repr dict as printed by the HF Trainer, with bare nan/inf made literal-safe."""
    s = text.strip()
    if not s.startswith("{") or not s.endswith("}"):
        return None
    obj = parse_pyvalue(s)
    return obj if isinstance(obj, dict) else None


def parse_pyvalue(text: str):
    """A printed Python literal (a list, a dict), with bare nan/inf made literal-safe; None where it is none."""
    fixed = _BARE_NONFINITE.sub(lambda m: f"'{m.group(1)}{m.group(2)}'", printed.unwrap_scalars(text))
    try:
        return _literal(fixed)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None


def _literal(text: str):
    """ast.literal_eval on text a log printed, quietly: an odd escape in a printed string (`'a\\/b'`) makes the
    parser warn on stderr, which is no concern of the person reading the report."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval(text)


# `name [(1, 0.0758), (2, 0.0649)]`: a metric's name, then its values as (counter, value) pairs
_COUNTED_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|nan|inf"
_COUNTED_PAIR = re.compile(r"\(\s*(\d+)\s*,\s*(" + _COUNTED_NUM + r")\s*\)")
_COUNTED_PAIRS = re.compile(r"(?:^|[\s:|])([A-Za-z][\w./-]*)\s*[:=]?\s*(\[\(\s*\d+\s*,\s*(?:" + _COUNTED_NUM
                        + r")\s*\)(?:\s*,\s*\(\s*\d+\s*,\s*(?:" + _COUNTED_NUM + r")\s*\))*\s*\])[\s`]*$")


_SCORE_PLURALS = frozenset({"losses", "accuracies"})  # (Flower's `losses_distributed`, `accuracies_centralized`)


class _Rec(NamedTuple):
    """One metric record as printed, before the step axis of the whole log is known."""
    line: int
    values: dict
    step: float | None
    epoch: float | None
    batch: float | None
    total: float | None
    label: str  # "eval" | "train" | ""
    source: str  # the alias source (dialect) its keys resolve under
    epoch_row: bool  # a record that stands for a whole epoch (Keras)
    template: str = ""  # the printed line's template ("" for dict lines and tables)


class _Bulk:
    """Lines of one registered line shape in a row, read in bulk (`printed_bulk`); stands in the
    record list where those lines' records would be. Its fields are arrays once `settle` ran."""

    __slots__ = ("shape", "lo", "hi", "line", "fill", "label", "source", "template", "epoch_row",
                 "values", "step", "epoch", "batch", "total")

    def __init__(self, shape: printed_bulk.Shape, lo: int, line: int, fill: float):
        self.shape, self.lo, self.hi, self.line, self.fill = shape, lo, lo, line, fill
        self.label, self.source, self.template, self.epoch_row = shape.plan.label, "text", shape.tpl, False
        self.values: dict = {}
        self.step = self.epoch = self.batch = self.total = None

    def __len__(self) -> int:
        return self.hi - self.lo

    def settle(self) -> None:
        f = printed_bulk.fields(self.shape, self.lo, self.hi)
        self.values, self.step, self.epoch, self.batch, self.total = (
            f["values"], f["step"], f["epoch"], f["batch"], f["total"])
        if self.epoch is None and self.fill == self.fill:  # an epoch printed on an earlier line
            self.epoch = np.full(len(self), self.fill)

    def row(self, k: int) -> dict:
        """The values of line k of the bulk (after `settle`)."""
        return {key: float(v[k]) for key, v in self.values.items()}

    def drop_first(self) -> None:
        """Forget the bulk's first line (after `settle`)."""
        self.lo += 1
        if self.lo < self.hi:
            self.line = self.shape.lines[self.lo]
        self.values = {k: v[1:] for k, v in self.values.items()}
        for f in ("step", "epoch", "batch", "total"):
            a = getattr(self, f)
            if a is not None:
                setattr(self, f, a[1:])


def _n(rec) -> int:
    return len(rec) if type(rec) is _Bulk else 1


def _lines(rec, lines_in: dict[int, int] | None) -> int:
    """The printed lines a record took: a bulk run's lines, or a record read from several lines (a block,
    one key a line; a dict over lines), by `lines_in`; a line dropped is counted as many times as it has lines."""
    return len(rec) if type(rec) is _Bulk else (lines_in.get(rec.line, 1) if lines_in else 1)


class _TextReader:
    def __init__(self, b: RunBuilder, dialect: str = "text"):
        self.b = b
        self.dialect = dialect
        self.warned_at = -2  # the line of the latest `file.py:N: XWarning: ...`
        self.values_first = False  # a line printed each value before its name (`2.31 loss | 3e-4 lr`)
        self.step: float = NAN  # last known training step
        self.epoch: float = NAN
        self.counts: dict[str, int] = {}
        self.bars: dict[int, int] = {}  # tqdm total -> last n
        self.bar_used: dict[int, int] = {}  # tqdm total -> the n that last gave a train dict its step
        self.bar_last: dict[float, float] = {}  # a bar's total -> its last count (a bar that restarts: the next pass)
        self.bar_passes: dict[float, int] = {}  # a bar's total -> how many times it started again
        self.bar_desc: dict[str, list[str]] = {}  # a running bar description's template -> its last numbers
        # a training bar's postfix values that it carries forward (an evaluation's, an epoch's): their last
        # value per bar template, whether an evaluation's bar ran since, and which keys are carried ones
        self.bar_carry: dict[str, dict[str, float]] = {}
        self.bar_validated = False
        self.carried_keys: dict[str, bool] = {}
        self.bar_logged_loss: dict[str, float] = {}  # a Lightning bar's logged training loss: its last value
        self.running_bar_loss = False  # that loss changes from batch to batch beside the bar's own `loss=`
        self.lists_seen: set[tuple[str, ...]] = set()  # the unnamed number lists read so far (their cells)
        self.stale_bar = False  # a train dict found the bar it would take its step from unmoved
        self.dict_step_key = ""  # the key a printed dict names its own step with (`{'step': 10, ...}`)
        self.glued_bars: dict | None = None  # the bars as they stood when a dict glued to a bar was read
        self.train_total: int | None = None
        self.keras_pending: tuple[int, dict] | None = None  # (line, values) of the latest redraw
        self.keras_shift = 0.0  # epochs of earlier `fit()` calls before the one printing now (a fit in a loop)
        self.caller_epoch: tuple[int, float] | None = None  # (line, epoch) of a loop's own `epoch 7` just printed
        # the redraws of a bar, one per line, while no bar has ended yet (a run that died in its first epoch)
        self.keras_trail: list[_Rec] | None = []
        self.keras_total: float | None = None  # the batch count of the latest redraw's bar
        self.keras_epoch_total: float | None = None  # the batch count of the bar that gave the epoch its value
        self.sb3_rows: dict[str, str] | None = None
        self.sb3_group = ""
        self.sb3_start = 0
        self.sb3_seen = False  # a table border was read (a table cut at its top can only come before one)
        self.tb: list[str] | None = None  # traceback lines being collected
        self.tb_line = 0
        self.tb_done = False  # saw the exception line; a chain marker may follow
        self.tb_box = False  # inside a rich traceback's box (every `│` line is the traceback's)
        self.records: list[_Rec] = []
        self.pair_records: list[_Rec] = []  # histories printed as (counter, value) pairs, kept apart until the end
        # a struct shown the way MATLAB displays one (`info.train =`, then `objective: [1.56 1.15 ...]`): its split,
        # the field whose array is being read (name, numbers so far) and the arrays read, by split and field
        self.mat_head: str | None = None
        self.mat_field: tuple[str, list[str]] | None = None
        self.mat_arrays: dict[str, dict[str, list[float]]] = {}
        self.plans: dict[str, printed.Plan] = {}
        self.digit_names: dict[str, set[str]] = {}  # template -> the names with digits its lines printed (plan_of)
        self.tpl_counts: dict[str, int] = {}
        self.header: list[str] | None = None  # the column names of a printed table being read
        self.tables = tables.Tracker()  # header-like lines a rule or a second header line may confirm
        self.block: tuple | None = None  # (line, step, epoch, template) of a counter line whose values follow
        self.block_rec: _Rec | None = None
        self.block_counters: frozenset = frozenset()  # the names of the counters the block's head line holds
        self.ordinary: tuple | None = None  # (tpl, plan, nums) of the last line read as a plain record
        self.open: _Bulk | None = None  # the bulk being extended
        self.synced = -1  # how many lines the open bulk's shape had when the counters were last taken from it
        self.section: set | None = None  # after an evaluation header: the templates training printed
        self.section_loose = False  # the header came before any record: lines naming the loss end it
        # training's passes have counted headings of their own (`=== training epoch 3 ===`) and the evaluation's
        # heading is counted too: the section lasts to the next training heading, lines of training's shape included
        self.section_held = False
        self.train_counted = False  # the last training heading counted its pass
        self.line_total: float | None = None  # the total of training's last counted line (`step 10/614`)
        self.split_cols: list[str] | None = None  # a table whose columns are splits (`Training | Validation`)
        self.split_nrows = 0  # the metric rows the open split table has printed
        self.split_rows: dict = {}
        self.split_line = 0
        self.evaluated: set[str] = set()  # templates read as an evaluation's under a heading
        self.heading = ""  # the split of the last section heading (`Validating`), for the bar that follows it
        self.heading_at = -1  # the line of that heading (`Test scores` right above a dict names the dict's split)
        self.pasted_names: list[str] = []  # the names of detectron2's `copypaste: AP,AP50,...` line
        self.kitti_head: tuple[str, str, list[str]] | None = None  # the KITTI AP block being read: class, AP kind, IoUs
        self.set_list = False  # the lines are a list of one held-out set's results, under a heading naming it
        self.card_summary: list[_Rec] = []  # the records of such a list (a model card's last evaluation)
        self.report = False  # under scikit-learn's classification report (`precision recall f1-score support`)
        # inside a wide pandas DataFrame printed wrapped (a header ending `  \`): "rows" under a block's header,
        # "wrap" after a block whose header wrapped (the next block's header is due), "end" after the last block
        # (pandas' `[5 rows x 44 columns]` may follow), "" outside one
        self.frame = ""
        self.frame_wraps = False
        self.conll_at = -1  # the line of conlleval's `processed N tokens with M phrases; ...` count
        self.under_train: set[str] = set()  # the shapes printed since the last training heading (`Training epoch: 3`)
        self.set_scores = False  # that heading named the training set (`On the training set:`), not a pass
        self.block_label = ""  # the split a block's counter line names (`Eval epoch: 4` heads eval values)
        self.header_line = ""  # the line the current table header was read from, as printed
        self.header_at = -1  # the line number of a header read from a line with no digit
        self.header_read_at = -1  # the line any table header was read on (a blank line may follow it)
        self.table_row_at = -1  # the line the last table row was read on
        self.trial_rows: dict[str, None] = {}  # a search's status table: its trials' names, in order
        self.header_of_trials: list[str] | None = None  # the header those trials were read under
        # an HF model card's results table: the header it is read under and the training loss its last row showed
        self.carried: tuple[int, float] | None = None
        self.header_split = ""  # the split a heading right above the current table header names (`test results:`)
        self.counted: set = set()  # templates of lines that count steps, epochs or batches (training's own)
        self.keyless: set[str] = set()  # one-value record shapes with the key taken out (`_keyless`)
        self.config_indent: int | None = None  # indentation of the header of the config block being read
        self.opt_group = False  # inside a parameter group of an optimizer's printed repr
        self.dict_block: tuple[int, list[str]] | None = None  # a dict printed over several lines: (first line, lines)
        self.dict_tail = False  # a dict printed over more lines than a record holds goes on: its entries are no records
        self.across: list[_Rec] | None = None  # the records of a table printed across: one per counter column
        self.config_lines: set[int] = set()  # lines that are `key: value` entries of a config block
        self.settings: dict = {}  # the run's settings as printed (`Namespace(lr=0.01)`), keyed as written
        self.tensor_lines: set[int] = set()  # lines whose numbers were printed inside a tensor's repr
        self.lr_notices: set[int] = set()  # lines where the schedule said the LR it set (`Updating learning rate to`)
        self.step_head: tuple[int, str] | None = None  # TFLearn's `Training Step: 12  | time: 1.2s`: (line, step)
        self.masks: printed_bulk.Masks | None = None  # the bulk path's masks (big logs)
        self.lines: printed_bulk.Lines | list[str] = []  # the log's lines (a dict's heading is read back from it)
        # tqdm counts not in `bars` yet, in line order: (first, end) spans of lines passed over, (-1, total, n)
        self.pending: list[tuple] = []
        # how many printed lines a record was read from, by the record's first line, where more than one (a block
        # printed a value a line): the record is one row, its lines are said apart (meta `joined_lines`)
        self.lines_in: dict[int, int] = {}
        # of those further lines, the ones of one unknown pair read beside known pairs of their lead (`beside_pairs`):
        # the record still folds into the row of the counter above it at its step (`_emit`)
        self.pair_lines: dict[int, int] = {}
        # printed lines that held more than one print with no redraw between (a bar and what was printed after
        # it, its newline lost): each print is a record, the line one row
        self.glued_lines: set[int] = set()
        self.unplaced: list[int] = []  # lines read the slow way that gave no record, event, setting or count
        self.quiet_segs = 0  # segments read since the count was reset that took a path that changes nothing
        self.first_shape: tuple | None = None  # (template, numbers) of the log's first printed record
        self.best_of: set[str] = set()  # metrics the log keeps a best-so-far of (`Best_accuracy : 60.0`)
        self.recap = False  # inside the indented lines under a `Best model at step 0:` heading
        self.sample_text = 0  # lines read of a model's prompt and answer printed as a sample (`[response] ...`)
        self.run_summary = False  # inside W&B's closing `wandb: Run summary:` block
        self.summary_lines: set[int] = set()  # the lines of that block
        self.stop_best: list[tuple[int, str, float]] = []  # Lightning EarlyStopping's `New best score` lines
        self.region_lines: set[int] = set()  # darknet's per-subbatch region-layer lines
        self.darknet_iters = False  # a darknet iteration line was read (` 75: 3.12, 3.40 avg loss, ...`)
        self.lone_tensors: list[tuple[int, float]] = []  # lines that are one scalar tensor's repr and nothing else
        self.own_counter_at = -1  # the line of the last record read with a counter printed on it
        self.pair_run: tuple | None = None  # (line, record, layout, lines passed over) of a run of one-pair lines
        self.pair_left: list[tuple[int, dict, str, str]] = []  # unknown one-pair lines waiting for a record below (`beside_pairs`)
        self.pair_took: tuple | None = None  # (line, lead, record) of the last record made of one known pair
        self.pair_barred: tuple[int, str] | None = None  # (line, lead) of the last one-pair line naming a known setting
        self.rec_at = 0  # the last line that made a record or went into one
        self.named_next: tuple[int, str] | None = None  # (line, name) of a metric's name whose value is on the next line
        self.last_clean: tuple[int, str, str] = (-2, "", "")  # (line, cleaned text, raw text) of the last line read
        self.lr_ahead: tuple[float, dict] | None = None  # (epoch, values) of an LR notice waiting for its epoch's bar
        self.trace: LineTrace | None = None  # the accounting audit's (bench/dropped.py), else None
        self.folds = 0  # printed lines whose values went into a record opened on an earlier line

    def mark(self) -> tuple:
        """What reading a line may change, for telling that a line changed nothing (tqdm counts aside)."""
        b = self.b
        return (len(self.records), len(b.events), sum(b.meta["skipped"].values()), len(b.meta["warnings"]),
                len(b.summary), _nan_key(self.step), _nan_key(self.epoch), len(self.config_lines),
                len(self.counted), len(self.keyless), len(self.tpl_counts), len(self.counts), self.stale_bar,
                self.train_total, self.header is None, self.section is None, self.block is None,
                self.keras_pending is None, self.sb3_rows is None, self.tb is None, self.config_indent,
                self.dict_block is None, self.named_next is None)

    def read_quiet(self, ln: int, line: str) -> bool:
        """Read one line as the main loop does; True when it changed nothing (a quiet line)."""
        mark = self.mark()
        self.quiet_segs = 0
        if line.endswith("\r"):
            line = line[:-1]
        if len(line) > MAX_TEXT_LINE:
            return False
        line = line.replace("\x00", "")
        if (self.mat_head is not None or "=" in line[-3:]) and self.struct_arrays(line):
            return False
        if self.sb3_line(ln, line) or self.events(ln, line):
            return False
        segs = _segments(line)
        if len(segs) > 1 and "\r" not in line and "\x08" not in line:
            self.glued_lines.add(ln)
        for seg in segs:
            try:
                self.segment(ln, seg)
            except (ValueError, OverflowError, RecursionError, MemoryError):
                return False
        return self.quiet_segs == len(segs) and self.neutral() and self.config_indent is None \
            and self.mark() == mark

    def settle_bars(self) -> None:
        """The tqdm counts of the transparent lines passed over so far and of the lines read after
        them, in line order, into `bars` (only a dict line asks for them)."""
        m = self.masks
        pending, self.pending = self.pending, []
        bar_ids = np.fromiter(m.bar_ids, dtype=np.int64) if m is not None else None
        for p in pending:
            if p[0] < 0:
                self.bars[p[1]] = p[2]
                continue
            lo, hi = p
            pick = m.transparent[lo:hi] & np.isin(m.ids[lo:hi], bar_ids)
            for i in (lo + np.flatnonzero(pick)).tolist():
                line = m.lines[i]
                if line.endswith("\r"):
                    line = line[:-1]
                for seg in _segments(line.replace("\x00", "")):
                    seg = _unlaunch(seg)
                    for t in _TQDM.finditer(seg):
                        if not _byte_bar(seg, t):
                            self.bars[int(t.group(2))] = int(t.group(1))

    def run_summary_line(self, ln: int, s: str) -> None:
        """W&B's closing block (`wandb: Run summary:`, then `wandb:    train/loss 0.21` a metric): the last
        value of each metric, noted so that a log with records of its own keeps them as its summary."""
        if not self.run_summary:
            self.run_summary = True
            return
        if _RUN_SUMMARY_ENTRY.search(s):
            self.summary_lines.add(ln)
        else:
            self.run_summary = False

    def sample_lines(self, s: str) -> bool:
        """A sample the run prints of its model's work (`[prompt] ...`, `[response] Let's think: 16 - 7 = 9
        eggs`, then `[ground_truth] 18` and `[score] 1.0`): the prompt and the answer are text, and the
        numbers in them are the model's words; the sample ends at its reference or score tag, or at a
        metric line printed before it. True when the line is part of the sample."""
        if self.sample_text and (_SAMPLE_METRIC_LINE.search(s) or self.sample_text > _SAMPLE_MAX_LINES):
            self.sample_text = 0
            return False
        self.sample_text = 0 if _SAMPLE_ENDS.search(s) else self.sample_text + 1
        self.b.skip("a sample of the model's prompt and answer (text, not metrics)")
        return True

    def neutral(self) -> bool:
        """No table, traceback, Keras bar, value block or SB3 table in progress: a plain record line
        can be read in bulk."""
        return self.header is None and self.tb is None and self.keras_pending is None \
            and self.block is None and self.sb3_rows is None and self.section is None and self.dict_block is None \
            and self.across is None and not self.sample_text and not self.run_summary

    def open_bulk(self, shape: printed_bulk.Shape, ln: int) -> None:
        self.open = _Bulk(shape, len(shape.lines), ln, self.epoch)
        self.synced = -1
        self.records.append(self.open)
        shape.lines.append(ln)

    def sync_bulk(self, lines: list[str]) -> None:
        """The reader's step and epoch as after the bulk's last line so far (the slow way reads next).
        Once only per stretch of bulk lines: a line read the slow way since may have moved them on."""
        sh = self.open.shape
        if len(sh.lines) == self.synced:
            return
        self.synced = len(sh.lines)
        if sh.counters:
            step, epoch = sh.counters_of(lines[sh.lines[-1] - 1])
            if epoch is not None:
                self.epoch = epoch
            if step is not None:
                self.step = step

    def close_bulk(self, lines: list[str], sync: bool = True) -> None:
        """End the bulk being extended (`sync`: the reader's counters become its last line's)."""
        if sync:
            self.sync_bulk(lines)
        bulk, self.open = self.open, None
        sh = bulk.shape
        bulk.hi = len(sh.lines)
        self.tpl_counts[sh.tpl] = self.tpl_counts.get(sh.tpl, 0) + len(bulk)

    @staticmethod
    def shape_of(seg: str) -> tuple[str, list[str]]:
        """A segment's template and numbers, as `segment` reads them."""
        s = _LAUNCHER_PREFIX.sub("", seg, count=1) if seg[:1] in "[0123456789" else seg
        return printed.shape(printed.clean(s))

    # ------------------------------------------------------------------ events
    def flush_traceback(self) -> None:
        if self.tb:
            text = "\n".join(self.tb).rstrip()
            self.b.event("traceback", text, self.tb_line, _known(self.step))
            self.raised_values()
        self.tb = None
        self.tb_done = False
        self.tb_box = False

    def raised_values(self) -> None:
        """`ValueError: loss=nan, policy_loss=nan, entropy_loss=nan`: a training loop's guard that raised
        with the step's values as its message. Those values are the last reading of the run (the ones that
        stopped it), a record of their own when the message is nothing but `name=value` pairs of numbers and
        names a known metric."""
        assert self.tb is not None
        for k in range(len(self.tb) - 1, 0, -1):
            last = self.tb[k].strip()
            if last:
                break
        else:
            return
        m = _RAISED_PAIRS.match(last)
        if m is None:
            return
        values = {name: to_float(v) for name, v in _RAISED_PAIR.findall(m.group(1))}
        if values and any(printed.known_key(name) for name in values):
            self.records.append(_Rec(self.tb_line + k, values, _known(self.step), None, None, None, "", "text",
                                     False, _RAISED_TPL))
            self.tpl_counts[_RAISED_TPL] = self.tpl_counts.get(_RAISED_TPL, 0) + 1

    def events(self, ln: int, line: str) -> bool:
        """Classify one line as an event; True when it belongs to a traceback being collected."""
        bare = _RANK_PREFIX.sub("", line, count=1) if line[:1] in "[0123456789" else line
        if self.tb is not None:
            if self.tb_box:
                stripped = bare.strip()
                if stripped[:1] in ("│", "╭", "╰"):
                    self.tb.append(line[:4000])
                    if stripped[0] == "╰":  # the box's foot: its exception line follows
                        self.tb_box = False
                    return True
                self.tb_box = False  # (an excerpt cut before the box's foot)
            if self.tb_done:
                if _TRACEBACK_CHAIN.match(bare) or (bare[:1] in "-FC" and _IPY_TB_FRAME.match(bare)):
                    self.tb.append(line)
                    self.tb_done = False
                    return True
                if not bare.strip():
                    self.tb.append(line)
                    return True
                if bare.startswith((" ", "\t")) and len(self.tb) < 400:
                    # an exception message that goes on over indented lines (TensorFlow's `2 root error(s)
                    # found.` lists each error below it, `  (0) Unknown: Failed to get convolution ...`)
                    self.tb.append(line[:4000])
                    return True
                if "=" in bare and self.tb[-1].strip() and _MESSAGE_DUMP.match(bare):
                    # `FloatingPointError: Loss became infinite or NaN at iteration=190!` then `loss_dict =
                    # {'loss_cls': nan}`: a message of two lines whose second shows the variable that tripped
                    # the guard; the values were the exception's, not a logged record
                    self.tb.append(line[:4000])
                    return True
                self.flush_traceback()
            elif "_print_stack" in bare:
                # torch's anomaly mode ends its trace of the forward call so: frames pasted without a header
                # were that warning's (read as one below), a header's traceback is kept
                if _TB_FRAME.match(self.tb[0]):
                    self.tb = None
                    self.tb_done = False
                else:
                    self.flush_traceback()
            elif bare[:1] not in " \t" and bare.strip() and _TB_FRAME.match(self.tb[0]) \
                    and not _EXC_LINE.match(bare) and not _TRACEBACK_START.match(bare):
                self.flush_traceback()  # (frames with no header end at a line that is no frame and no exception)
            else:
                stripped = bare.strip()
                self.tb.append(line[:4000])
                if stripped[:1] == "╭" and _RICH_TB_HEAD.match(stripped):  # a chained rich traceback
                    self.tb_box = True
                    return True
                if bare.startswith((" ", "\t")) or not stripped or stripped.startswith(("^", "~")) \
                        or _TRACEBACK_START.match(bare) or (bare[:1] in "-FC" and _IPY_TB_FRAME.match(bare)):
                    return True
                if _EXC_LINE.match(bare) or ":" in stripped or len(self.tb) > 400:
                    self.tb_done = True
                return True
        if _TRACEBACK_START.match(bare) or 'File "' in bare and _TB_FRAME.match(bare):
            # (a traceback pasted from below its header opens at its first frame: `  File "train.py", line
            # 138, in <module>`, a line nothing but Python's traceback prints)
            self.tb = [line]
            self.tb_line = ln
            self.tb_done = False
            return True
        if "Traceback (most recent call last)" in bare:
            # `... | Loss: 0.000000Traceback (most recent call last):`: stderr's traceback written right after
            # a progress print that had no newline yet; the text before the header is a line of its own
            at = bare.find("Traceback (most recent call last)")
            head = bare[:at]
            if head[-1:].strip() and not "\u2500" <= head[-1] <= "\u257f" \
                    and not head.endswith(("Error", "Exception", "Interrupt")):  # (glued: no blank, no box's rule)
                for seg in _segments(head):
                    try:
                        self.segment(ln, seg)
                    except (ValueError, OverflowError, RecursionError, MemoryError):
                        self.b.skip("unparsable line")
                self.tb = [bare[at:]]
                self.tb_line = ln
                self.tb_done = False
                return True
        text = line.strip()
        if not text:
            return False
        if ln == self.warned_at + 1 and bare[:2] == "  " and bare[2:3] not in (" ", "\t") and "  " not in text:
            # the warnings module prints the source line that warned below its `file.py:41: RuntimeWarning: ...`,
            # indented two blanks (`  return 1 / (1 + np.exp(-x))`): code, no record, no end of a table (a table's
            # row is set out in columns, two blanks or more apart)
            self.b.skip("the source line of a warning")
            return True
        if text[0] in "╭│" or (bare is not line and bare.lstrip()[:1] in ("╭", "│")):
            box = bare.strip()
            if (_RICH_TB_HEAD.match(box) or (_RICH_TB_FRAME.match(box) and not _NUMBER_ROW.match(box))) \
                    and self.header is None \
                    and self.sb3_rows is None:  # (a table's `│ 0 │` rows are no frame)
                self.tb = [line]
                self.tb_line = ln
                self.tb_done = False
                self.tb_box = True
                return True
        low = text.lower()
        if not any(h in low for h in _EVENT_HINTS):  # most lines are metrics: skip the event patterns
            return False
        if _OVERFLOW.search(text):
            m = _OVERFLOW_VALUE.search(text)
            value = to_float(m.group(1)) if m else None
            self.b.event("overflow", _snippet(text, m.start() if m else 0), ln, _known(self.step), value)
            if value is not None:  # DeepSpeed and apex print the loss scale only in these lines
                self.records.append(_Rec(ln, {"loss_scale": value}, _known(self.step), None, None, None, "",
                                         _EVENT_POINT, False))
            return True
        for kind, rx in (("error", _ERROR), ("warning", _WARNING), ("info", _INFO)):
            m = rx.search(text)
            if m:
                self.b.event(kind, _snippet(text, m.start()), ln, _known(self.step))
                # `Warning: loss is NaN, skipping this step`: the training loop's own notice that it
                # dropped a step; the line is that warning, no record (the step's bar has its values)
                if kind == "warning" and ".py:" in text and _PY_WARNING_LINE.match(text):
                    self.warned_at = ln
                    return True  # `/src/nets/loss.py:170: RuntimeWarning: ...`: the file and line that warned, no record
                return kind == "warning" and text[:1] in "Ww" and _SKIPPED_STEP.match(text) is not None
        return False

    # ------------------------------------------------------------------ metric lines
    def keras_done(self) -> bool:
        """The current epoch's Keras bar has finished: a record of the epoch stands last (a redraw still
        running is no finished epoch)."""
        if self.keras_pending:
            return False
        last = self.records[-1] if self.records else None
        return type(last) is _Rec and last.source == "keras" and last.epoch == self.epoch

    def keras_ahead(self, epoch: float, s: str) -> bool:
        """An LR notice naming `epoch` is printed ahead of that epoch's Keras bar: the last record is a
        Keras bar of an earlier epoch (or of none, when `Epoch 2/5` has announced this one), or none was
        read yet and the notice has Keras' `Epoch 00001:` form."""
        last = self.records[-1] if self.records else None
        if last is None:
            return _KERAS_CALLBACK_EPOCH.match(s) is not None
        return type(last) is _Rec and last.source == "keras" \
            and (epoch > last.epoch if last.epoch is not None else epoch == self.epoch)

    def keras_flush(self, end: bool = False) -> None:
        """Keras redraws a progress line per batch; the last one of an epoch is the epoch's value. A
        log whose one bar never ends (the run died or was cut in its first epoch) has no epoch value:
        the redraws printed one per line are then its only record, each a row."""
        trail, self.keras_trail = self.keras_trail, None
        if end and trail and len(trail) > 1 and self.keras_pending and trail[-1].line == self.keras_pending[0]:
            self.records.extend(trail)
            self.keras_pending = None
            return
        if self.keras_pending:
            ln, values = self.keras_pending
            ep = self.epoch if self.epoch == self.epoch else None
            last = self.records[-1] if self.records else None
            total, self.keras_total = self.keras_total, None
            if ep is not None and last is not None and last.source != "keras":
                # the epoch's last bar with a few prints after it (`[INFO] accuracy: 72.32%` under an `evaluate()`
                # bar): a later `evaluate()` bar of that epoch (the test set's, in the next cell) is one more
                back = next((r for r in self.records[-1:-_KERAS_LOOKBACK - 1:-1] if r.source == "keras"), None)
                if back is not None and back.epoch == ep and self._keras_evaluate(back, values, total):
                    last = back
            if ep is not None and last is not None and last.source == "keras" and last.epoch == ep:
                if self._keras_evaluate(last, values, total):
                    # `model.evaluate()` after `fit()`: a bar over another set (its own batch count, no val_
                    # keys) is that set's result, beside the epoch's bar rather than in its place; so is a bar
                    # that ends timed (`0s 2ms/step`) after the epoch's bar ended timed, with other values
                    values = {f"test_{k}": v for k, v in values.items()}
                else:
                    self.records.pop()  # a second finished bar in one epoch: the later one stands
            else:
                self.keras_epoch_total = total
            if self.lr_ahead is not None and self.lr_ahead[0] == ep:
                values = {**self.lr_ahead[1], **values}  # (a bar that prints its own `lr` keeps it)
                self.lr_ahead = None
            self.records.append(_Rec(ln, values, ep, ep, None, None, "", "keras", True))
            self.keras_pending = None

    def _keras_evaluate(self, last: _Rec, values: dict, total) -> bool:
        """Whether a finished Keras bar in the epoch of the bar `last` is `model.evaluate()` after `fit()`."""
        return not any(str(k).lower().startswith("val") for k in values) and (
            (total is not None and self.keras_epoch_total is not None and total != self.keras_epoch_total)
            or _second_timed_bar(last.values, values))

    def segment(self, ln: int, seg: str) -> bool:
        """Read one redraw segment of a line; True when it held metrics."""
        if "`" in seg:
            seg = _unquote(seg)
        if self.split_cols is not None and self.split_row(seg):
            return True
        if self.set_list and seg.strip() and not seg.lstrip().startswith(("- ", "* ", "\u2022 ")):
            self.set_list = False  # (the list ends where its items do; a Hub page draws them `  • Loss: 0.57`)
        s = _unlaunch(seg)
        if self.run_summary or ("Run summary" in s and _RUN_SUMMARY_HEAD.search(s)):
            self.run_summary_line(ln, s)
        if self.sample_text or (("]" in s or "_BEGIN" in s) and _SAMPLE_OPENS.search(s)):
            if self.sample_lines(s):
                return False
        if s[:2] in ("('", '("') and _PY2_TUPLE.match(s):
            s = _py2_tuple(s)  # (`('epoch', 3, 'loss:', 0.41)`: Python 2 printed its arguments as a tuple)
        if "Value:" in s and "Key:" in s:
            # `Key: avg_train_loss, Value: 1.0937`: a results dict printed one item a line, its key and value
            # each labelled; the item is `avg_train_loss: 1.0937`
            s = _KEY_VALUE_ITEM.sub(r"\1: \2", s)
        for marks, found, why in _NO_RECORD:
            if any(m in s for m in marks) and found(s):
                self.b.skip(why)
                return False
        if "...." in s and _DOTTED_SETTING.search(s):
            # `  float16_config ....... enabled=False loss_scale=0.0 hysteresis=2`: DeepSpeed's and Megatron's
            # listing of the run's settings, one name and its value across a dotted leader; never a record
            self.config_lines.add(ln)
            self.b.skip("a setting printed with a dotted leader (a config listing)")
            return False
        if ("eight" in s or "oeff" in s) and _TERM_WEIGHTS.match(s):
            # `Reward weights: accuracy=0.7, grounding=0.25`: how the terms of a reward or a loss are summed,
            # set before the run; a term's name is no measurement of it
            self.config_lines.add(ln)
            self.b.skip("the weights of a reward's or a loss's terms (settings)")
            return False
        if self.report:
            if not s.strip():
                return False  # (a blank line between the report's class rows and its summary rows)
            if _REPORT_ROW.match(s):
                # one evaluation's breakdown by class, printed once with no counter: its `accuracy` row is
                # no training accuracy and no point of the run's curves
                self.b.skip("a row of a classification report (an evaluation broken down by class)")
                return False
            self.report = False
        if self.frame or s[-1:] == "\\" and _FRAME_WRAP_HEAD.match(s):
            if self.frame_line(s):
                return False
        if "support" in s and _REPORT_HEADER.match(s):  # (a report may follow another one)
            self.report = True
            self.header = None
            return False
        if "shape = (" in s and _VAR_LISTING.search(s):
            self.b.skip("a model variable's name and shape (a listing of the graph's variables)")
            return False
        if ("never " in s or "not " in s or "n't " in s or "failed to " in s) and _MISSED_MARK.search(s):
            self.b.skip("a sentence that a value stayed short of a mark (the mark is no measurement)")
            return False
        if "]" in s and s[:1] == " " and _MODULE_ROW.match(s):
            self.b.skip("a row of a model's layer listing (a layer's sizes and arguments)")
            return False
        if ("->" in s or "BF" in s) and _LAYER_SHAPES.search(s):
            self.b.skip("a row of a model's layer listing (a layer's input and output shapes)")
            return False
        if "params:" in s and _SECTION_PARAMS.match(s):
            self.b.skip("a layer's settings printed under its section's name")
            return False
        if "freeMemory" in s and _DEVICE_MEMORY.match(s):
            self.b.skip("a GPU's memory as the framework found the device (hardware, not the run's use)")
            return False
        if s[:12].lstrip()[:10] == "processed " and _CONLL_HEAD.match(s):
            self.conll_at = ln
            return False
        if self.named_next is not None:
            at, name = self.named_next
            self.named_next = None
            if at == ln - 1 and _LONE_NUMBER.match(s):  # (the value under its name: `loss is :` then `0.25`)
                s = f"{name}: {s.strip()}"
        if self.conll_at == ln - 1 and _CONLL_SCORES.match(s):
            s = "[eval] " + s.lstrip()  # (conlleval scores tagged output against the gold tags: an evaluation)
        u = printed.unwrap_scalars(s)
        if u is not s:
            self.tensor_lines.add(ln)
            if _LONE_NUMBER.match(u):  # (`tensor(3.22, device='cuda:0')` alone: `print(loss)`, see lone_tensor_rows)
                self.lone_tensors.append((ln, to_float(u.strip())))
        s = printed.grouped_tuples(printed.call_keys(u))
        if "," in s and s.lstrip()[:1].isalpha():
            s = printed.listed_pairs(s)
        if "lr=[" in s or "lr: [" in s or "rate=[" in s or "rate: [" in s:
            s = _GROUP_RATES.sub(r"\1\2\3", s)
        if ">>>" in s:
            s = _ARROW_RUN.sub(": ", s)
        if "(" in s and _WINDOW_PAREN.search(s):
            s = _unwindowed(s)
        if "[(" in s:
            s = _ONE_POLICY.sub(r"\1", s)
            if "[('" in s or '[("' in s:
                s = _PAIR_LIST.sub(_pairs_as_dict, s)
        if self.recap:
            if s[:1] in (" ", "\t") and s.strip():
                self.b.skip("a best-so-far recap (its values repeat a row already read)")
                return False
            self.recap = False
        if s[:1] in ("B", "b") and _BEST_RECAP.match(s):
            self.recap = True
            return False
        if s[:1] in "Ww" and _SKIPPED_STEP.match(s):  # (the notice glued after a bar's redraw)
            return False
        if ")" in s and ("<" in s or ">" in s) and _COMPARED.search(s):
            # `max_model_len(2048) - num_tokens(5221) < max_tokens(1024). Setting max_tokens: -3173`: a check that
            # compares sizes and says what it did about them; its numbers are lengths and limits, not a record
            self.b.skip("a check's message comparing two quantities (`a(2048) < b(1024)`)")
            return False
        if "objective function for" in s:
            m = _KALDI_OBJF.search(s)
            if m:  # Kaldi's objective is the average log-likelihood per frame: higher is better
                total = m.group(4).rsplit("=", 1)[1] if m.group(4) else m.group(3)
                key = "log_likelihood" if m.group(1) == "output" else f"{m.group(1)} log_likelihood"
                self.records.append(_Rec(ln, {key: to_float(total.strip())}, float(m.group(2)), None, None, None,
                                         "", "text", False, "<kaldi objf>"))
                self.tpl_counts["<kaldi objf>"] = self.tpl_counts.get("<kaldi objf>", 0) + 1
                return True
        if "Region" in s and _REGION_LAYER.search(s):
            self.region_lines.add(ln)  # (see drop_region_lines)
        elif "avg" in s and _DARKNET_ITER.match(s):
            self.darknet_iters = True
        if "elapsed, finished" in s and _ELAPSED_NOTE.search(s):
            self.b.skip("a boosting round's elapsed-time note")
            return False
        if s.endswith(")") and "ccurred at" in s and _RECAP_AT.search(s):
            self.b.skip("a recap of an earlier epoch's value (`Final loss: ... (occurred at epoch 4)`)")
            return False
        if self.opt_group:
            if s[:1] in (" ", "\t") and s.strip():
                self.b.skip("an optimizer's settings (a parameter group of its printed repr)")
                return False
            self.opt_group = False
        if s[:1] == "P" and _OPT_GROUP.match(s):
            self.opt_group = True  # `Parameter Group 0` then `    lr: 0.001`, ...: `print(optimizer)`
            return False
        if "/" in s and "SamplesPerSec=" in s:
            # DeepSpeed's throughput timer: `0/10, RunningAvgSamplesPerSec=28.4, ...` leads with the epoch, then
            # the global step (not a count out of a total)
            s = _DS_TIMER_LEAD.sub(r"epoch=\1 step=\2,", s, count=1)
        if "iterations" in s and " memory (" in s and _MEM_AFTER.search(s):
            # Megatron's memory report, `[Rank 0] (after 10 iterations) memory (MB) | allocated: 7504.1 | ...`:
            # printed once a rank after the first logging interval, the same bytes each time; no record of the
            # run's (as one, it would end the rows of the DeepSpeed lines and iteration record it sits between)
            self.b.skip("a memory report printed once after the first iterations (no training record)")
            return False
        if "={'" in s and "=" in s[s.find("={'") + 3:]:
            # `loss=2.17 grad_norm={'0_default': 2.15, '1_fp32': 0.0} micro_num=16 acc=0.55`: a dict of parts
            # among `key=value` pairs is that key's parts, one pair each; the pairs after it go on
            s = _INLINE_DICT.sub(_inline_dict_pairs, s)
        if "rial " in s and (" finished with value" in s or " pruned" in s):
            done = self.trial_line(ln, s)
            if done is not None:
                return done
        if self.dict_tail:
            if _DICT_TAIL_ENTRY.match(s):
                self.dict_tail = not s.rstrip().rstrip(",").endswith("}")  # (its `}` ends it)
                self.b.skip("an entry of a dict printed over too many lines to be a record (a vocabulary, an index)")
                return False
            self.dict_tail = False
        if self.dict_block is not None or ("{" in s and (_DICT_OPENS.match(s) or _BRACE_ALONE.match(s)
                                                          or _nested_dict_opens(s))):
            return self.dict_line(ln, s)
        if "{" in s and not s.lstrip().startswith("{"):
            bare = printed.clean(s)  # (a logger's prefix before it: glog, `INFO:root:`; `INFO [train.py:960] (0/3) {`)
            if _DICT_OPENS.match(bare) or _BRACE_ALONE.match(bare) or _nested_dict_opens(bare):
                return self.dict_line(ln, bare)
        if "=" in s and (_SETTINGS_REPR.match(s) or "main(" in s and _MAIN_CALL.search(s)
                         or ("ifier(" in s or "essor(" in s) and _ESTIMATOR_REPR.search(s)
                         or ("train(" in s or "fit(" in s) and _TRAIN_CALL.match(s)):
            # `Namespace(batch_size=20, lr=20, ...)`, `INFO  main(rmq_port=5672, batch_size=8, ...)`: the run's settings;
            # `model.train(learning_rate=0.01, patience=10)`: the code that starts training, quoted with its arguments
            self.config_lines.add(ln)
            self.b.skip("a settings object's repr")
            m = _SETTINGS_REPR.match(s) or _MAIN_CALL.search(s) or _TRAIN_CALL.match(s)
            if m is not None:  # (an estimator's repr holds a boosted model's settings, not the run's)
                self.keep_settings(settings.from_call(s[m.start():].lstrip(" \t`>").removeprefix("> ")))
            return False
        if "=" in s and _SETTINGS_WORD.search(s) and self.settings_pairs(ln, s):
            return False  # (the cleaning settings_pairs needs is paid only by lines that name settings)
        if self.config_entry(s):
            self.config_lines.add(ln)
        bars = False
        for m in _TQDM.finditer(s):
            n, total = int(m.group(1)), int(m.group(2))
            if _byte_bar(s, m):
                continue
            if self.pending:  # after counts not read yet: in line order, when they are needed
                self.pending.append((-1, total, n))
            else:
                self.bars[total] = n
            bars = True
        if "[(" in s and self.pair_list(ln, s):
            return True
        i = s.find("{'")
        if i < 0:
            i = s.find('{"')
        if i < 0:
            m = _PYDICT_START.search(s)
            i = m.start() if m else -1
        if i >= 0:
            j = s.rfind("}")
            if j > i:
                d = parse_pydict(s[i: j + 1])
                if d is None and "<" in s and _held_objects(s[i: j + 1]):
                    # `{'lr': 2e-4, 'loss_func': <class 'nets.CrossEntropy'>, 'hidden_size': 247}`: a dict holding
                    # classes or functions names what a run is built from (a search's trial settings), never a record
                    self.config_lines.add(ln)
                    self.b.skip("a settings dict")
                    return False
                if d and not s[:i].strip() and self.under_config_heading(ln) \
                        and not any(printed.names_loss_or_accuracy(str(k)) for k in d):
                    # `Evaluating Config #3 [of 16]:` then ` {'learning_rate': 0.01, 'reg': 1e-05}` on its own line:
                    # the settings a search tries next, printed under the heading that counts them
                    self.config_lines.add(ln)
                    self.b.skip("a settings dict")
                    return False
                if d and s[:i][:1] in ("b", "B") and _BEST_DICT_LEAD.match(s[:i]):
                    # `best_stat:  {'epoch': 0, 'coco_eval_bbox': 3.9e-10}`: the best evaluation so far, told again
                    self.b.skip("a best-so-far dict")
                    return False
                if d and (_SETTINGS_LEAD.search(s[:i]) or ("." in s[:i] and _SETTINGS_FILE_LEAD.search(s[:i]))
                          or _arguments_dict(d)):
                    # `config: {'epochs': 20, 'learning_rate': 0.001}`, `args1.json defaultdict(<class 'str'>, {...})`
                    self.config_lines.add(ln)
                    self.b.skip("a settings dict")
                    self.keep_settings(settings.from_dict(d))
                    return False
                if d and self.history_dict(ln, d):
                    return True
                if d and bars and s[:i].rstrip().endswith("]") \
                        and not any(printed.known_key(str(k), loose=True) for k in d):
                    # `Steps: 20%|██| 2/10 [00:05<00:20, lr=3e-5, loss=0.08]{'base_lrs': [3e-05], ...}`: a state
                    # dict printed behind a bar with no newline between: the bar is the record, not the dict
                    s = s[:i]
                elif d:
                    self.hf_dict(ln, s[:i], d)
                    return True
        if "Average" in s and self.coco_line(ln, s):
            return True
        if "copypaste:" in s and self.copypaste_line(ln, s):
            return True
        if "AP" in s and self.kitti_line(ln, s):
            return True
        if ("pisode" in s or "PISODE" in s) and self.episode_sentence(ln, s):
            return True
        if ("time" in s or "Time" in s) and _TIMING_CELL.match(s):  # IPython's `%%time`: the cell's duration
            self.b.skip("a notebook cell's timing")
            return False
        if _NVIDIA_SMI.search(s):  # the GPU table pasted into bug reports: hardware, not training
            self.b.skip("nvidia-smi table")
            return False
        if "Step:" in s and _XLUA_BAR.search(s):  # Torch7's xlua progress bar: its time per step, not a record
            self.b.skip("a Torch7 progress bar")
            return False
        if "*****" in s and s[:1].isdigit() and not _HAS_DIGIT.search(printed.clean(s)) and self.results_banner(ln, s):
            return False  # (`01/12/2021 16:02:40 - INFO - __main__ -   ***** Eval results *****`: stamped by a logger)
        if not _HAS_DIGIT.search(s):
            if s.rstrip()[-1:] == ":":
                named = _NAME_ABOVE.match(s)
                if named and printed.names_loss_or_accuracy(named.group(1)):
                    self.named_next = (ln, named.group(1))  # (`current training loss is :`: its value comes next)
                    if _SECTION.match(s):
                        # (`Test Error:` over ` Accuracy: 45.2%, Avg loss: 2.15`, PyTorch's quickstart: when no
                        # lone value follows, the split it names heads the line under it)
                        self.section_header(s.strip())
                    return False
            if ("***" in s or "===" in s or "###" in s) and self.results_banner(ln, s):
                return False
            if self.header and _ELISION.match(s):  # `...` where the paste left rows out: the table goes on
                return False
            if self.header and not s.strip() and type(self.header) is _LabelledHeader:
                return False  # a blank line between groups of labelled rows (`l(raw):` ... then `l(filter):` ...)
            if self.header and not s.strip() and ln - 1 in (self.header_read_at, self.table_row_at):
                return False  # one blank line after a header or a row (a paste that spaced its lines)
            if type(self.header) is _SpacedHeader and _DASH_LINE.match(s):
                return False  # `-----` drawn under a header of one-blank names: the rows follow it
            if not (self.header and (_MD_RULE.match(s) or _BOX_RULE.match(s) or _ASCII_RULE.match(s))):
                # (`|---|---|`, `├───┼───┤`, `+-----+-----+` drawn between every two rows)
                # between a header and its rows keep the header
                c = printed.clean(s)
                if c[:1] == '"' and c.count('"') == 1:
                    c = c[1:].lstrip()  # (`"# batch  l2_tst  l2_trn  lr`: a paste opened with a quote mark)
                if self.open_split_table(ln, c):  # AllenNLP's `Training | Validation`, then a row per metric
                    return False
                if self.header and c[:1] == "#" and not _table_header(c.lstrip("#").strip()):
                    # a comment under a header written as a comment (DeePMD's lcurve.out: `#  step  rmse_val ...`
                    # then `# If there is no available reference data, ...`): the table goes on below it
                    return False
                before = self.header
                self.header = _logger_header(s) or self.tables.header(ln, s, self.masks and self.masks.lines) \
                    or _table_header(c) or _spaced_header(c) or _one_column_header(c) \
                    or (_table_header(c.lstrip("#").strip()) if c.startswith("#") else None) \
                    or (_slash_header(c) if " / " in c else None)  # (`Generator error / Discriminator error`)
                if self.header is None and before is not None and self.note_under_header(ln, c):
                    self.header = before
                    return False
                if self.header is None and before is not None and self.table_row_at == ln - 1 and c \
                        and not _SECTION.match(c) and c[:1] not in "-=+|*#" and _PROSE_LINE.search(c):
                    # (`  it suddenly went wrong` typed between a pasted table's rows: words with no number hold
                    # no row and open no table; the rows under them go on under the same header)
                    self.header = before
                    self.table_row_at = ln
                    return False
                self.header_at = ln if self.header is not None else -1
                self.header_read_at = self.header_at
                self.header_line = s
                self.header_split = self.heading_split(ln) if self.header is not None else ""
                # (`#  step  rmse_val  rmse_trn  lr`: a header written as a comment, numpy.savetxt's way)
                if self.header is None and c:
                    self.section_header(c)
                    if _SECTION.match(c):
                        self.heading_at = ln
                if self.header is None and not (c and _SECTION.match(c)):
                    self.quiet_segs += 1  # (a blank line, a line of words that opens nothing)
            return False
        bar = printed._TQDM_BAR.search(s)
        head = _SHARE_DONE.sub("", s[: bar.start()]) if bar else ""  # (`100% 350/350 [...]`: a bar with no blocks)
        if head[:1] == ">":
            head = head.lstrip("> ")  # (the table pasted as a Markdown quote: `>   Class  Images ...`)
        if bar and all(any(ch.isalpha() for ch in word) for word in head.split()):
            # (digits only inside names: `mAP@.5:.95`)
            # a header drawn with a progress bar (Ultralytics: `Class Images ... mAP50-95): 100%|███| 8/8`)
            header = _table_header(printed.clean(head).rstrip(" :"))
            if header:
                self.header = header
                return False
        if "|-" in s and _TREE_SETTING.match(s):  # `  |-   |- lambda_c<TAB>1.0`: one setting of a config
            self.b.skip("a setting of a config drawn as a tree")  # printed as a tree, not a metric
            return False
        c = printed.clean(s)
        if not c:
            self.quiet_segs += 1
            return False
        if c[-3:] in _RULE_ENDS and s.count(c[-3:]) >= 2:
            framed = _FRAMED_RESULT.match(c)
            if framed and not _COUNTER_ONLY.match(printed.shape(framed.group(2))[0]):
                # `-------- Accuracy : 1.0 --------`, `#### F score: 0.57 ####`: one result set off by a rule
                # on both sides is that pair (a counter so drawn stays the banner of its block)
                c = framed.group(2)
        last_ln, last_c, last_s = self.last_clean
        self.last_clean = (ln, c, s)
        if c == last_c and self.block is not None and ln == last_ln + 1 and _second_handler(s, last_s, c):
            # TF 2.x's compat.v1 logging: each message once through absl (`I0816 18:35:17.46 14584 x.py:926]`)
            # and once more through `INFO:tensorflow:`, two prefixes on one message: inside a block of results
            # (`***** Eval results *****`, then one value a line) the copy would open a second record
            self.b.skip("a message printed again by a second logging handler")
            return False
        if '"' in c and c.count('"') == 1 and (c[0] == '"' or c[-1] == '"'):
            c = c.strip('" ')  # (`"# batch  l2_tst  lr`, `500  5.81e+00  1.0e-03"`: a paste inside quote marks)
        if c[:5] in ("time ", "rank=") and _TIMERS_LINE.match(c):  # DeepSpeed's `time (ms) | fwd: 2361.17 | step: 54.67`:
            self.b.skip("a timers line (how long each phase of a step took)")  # `step` is the optimizer
            return False  # step's duration there, never a counter
        if "New best score" in c:
            best = _STOP_BEST.search(c)
            if best:  # read at the end, and only when no other line gives the metric (see stop_best_rows)
                self.stop_best.append((ln, best.group(1), to_float(best.group(2))))
                self.b.skip("an early-stopping notice of a new best")
                return False
        if "Best:" in c and (tail := _BEST_AT_TAIL.search(c)) and tail.start() > 0:
            c = c[:tail.start()]  # BasicSR's `# psnr: 30.12<TAB>Best: 30.40 @ 5000 iter`: the best so far, told again
        if "decreased" in c and (drop := _LOSS_DECREASED.search(c)):
            # the EarlyStopping helper many repositories copy (`Validation loss decreased (13.77 --> 13.62).  Saving
            # model ...`): the new value is the evaluation's loss, read at the end, and only when no other line
            # gives it (see stop_best_rows)
            self.stop_best.append((ln, "val_loss", to_float(drop.group(1))))
            self.b.skip("an early-stopping notice of a new best")
            return False
        if _BEST_NOTICE.search(c):  # `val_loss improved from 0.61 to 0.55, saving model`: the evaluation
            self.b.skip("a best-value notice (its value is the evaluation's, already read)")  # line has it
            return False
        if "==[" in c:  # `train==[266.12=265.91 + 0.20]`: a loss printed as its total and the terms it sums
            c = _SUM_OF_TERMS.sub(r"\1 loss: \2", c)
        if "s]" in c:  # `Epoch 9 [60.6s + 86.3s]:`: how long training and testing took, not a metric
            c = _BRACKET_SECONDS.sub("", c)
        if c[:14] == "Training Step:":
            step_line = _STEP_HEAD.match(c)
            below = self.lines[ln].strip() if step_line and ln < len(self.lines) else ""
            self.step_head = None
            if step_line and below[:1] == "|" and _SAMPLES_SEEN.search(below):
                self.step_head = (ln, step_line.group(1))  # TFLearn's step line over its metrics line
        elif self.step_head and ln == self.step_head[0] + 1:
            seen = _SAMPLES_SEEN.search(c)
            if seen:  # (`| Adam | epoch: 001 | loss: 0.2 -- iter: 64/500`: the count after `iter:` is the samples
                # seen this epoch; the step is the line above's)
                c = f"step: {self.step_head[1]} | " + c[: seen.start()]
            self.step_head = None
        if c[:5] == "kpis\t":  # PaddlePaddle's continuous-evaluation lines: `kpis<TAB>train_cost<TAB>25.504290`
            kpi = _KPI_LINE.match(c)
            if kpi:
                c = f"{kpi.group(1)}: {kpi.group(2)}"
        if ")" in c and _SPLIT_COUNT.search(c):  # `validation(4992) <run name> loss=382.9, ...`: that split's
            c = _SPLIT_COUNT.sub(r"\1: ", c, count=1)  # values; the count is how many samples it scored
        lr = _LR_NOTICE.search(c)
        if lr:  # `Adjusting learning rate of group 0 to 1.0000e-03.`: the schedule's new value, as a pair
            c = c[: lr.start()] + "learning rate: " + c[lr.end():]
            self.lr_notices.add(ln)
        if " = " in c and (c[:1] in _VALUE_LEADS or c[:1] in "nNiI" and _NONFINITE_WORD.match(c.split(None, 1)[0])):
            c = _value_first(s.strip()) or c  # (`nan = Validation rmse score`: a diverged model's score leads too)
        elif "," in c and c[:1] in _VALUE_LEADS:
            c = _values_named_after(c) or c
        if c[-1:].isalnum() or c[-1:] == ")":  # (a name last: maybe each value before its name)
            vf = _fields_value_first(c, self.values_first)
            if vf is not None:
                c, self.values_first = vf, True
        if "mean" in c and "," in c:
            stats = _STATS_OF.match(c)
            if stats:  # `Reward: mean=3.06, min=1.92, max=10.06, std=1.38`: the metric is its mean, not its spread
                c = f"{stats.group(1)}: {stats.group(2)}"
        if _COMMENT.match(c):  # `# 1 epoch is 500 (iteration)` in a config dump, `## MNIST with 100 epoch`:
            if not _commented_output(c):
                head = c.lstrip("# ")
                if "  " in head and not printed.shape(head)[1]:
                    # `# batch  l2_tst  l2_trn  lr`: a header written as a comment whose names hold digits
                    header = _table_header(head)
                    if header:
                        self.header, self.header_line, self.header_at = header, s, ln
                        return False
                self.section_header(head)  # a comment or a heading, never a record
                return False
            c = c[1:].strip()  # `# Epoch: 010/010 | Loss: 2.303`: output pasted as a comment under the code
        if c[:1] in _BAR_BLOCKS and c.lstrip(_BAR_BLOCKS)[:1].isdigit():
            c = c.lstrip(_BAR_BLOCKS)  # (`██184  0.2529  3.6331`: a bar's last blocks left before a table row)
        layout, cells = None, c
        if not self.header:
            layout = _layout_for(c)
            if layout is None and c != s.strip():  # a layout whose first cell the cleaning took for a prefix (`174:`)
                layout = _layout_for(s.strip())
                cells = s.strip() if layout is not None else c
            if layout is not None and "|" in cells:
                cells = cells.replace("|", " ")  # a pipe-drawn headerless row: its cells lie between the pipes
        header = self.header or layout
        if header and header is self.header and type(header) is list and _per_class_row(header, cells):
            return False  # `| vessel | nan | nan |` under `| Class | IoU | Acc |`: one class's score, not a record
        if header and header is self.header and c[:1].isalpha() and type(header) is list \
                and str(header[0]).lower() in _AXIS_WORDS:
            own = _layout_for(c)  # a row that opens with a word under a header whose first column counts (`Epoch`)
            if own is not None:  # is not that table's: a known layout's row (a validation `all` row whose own
                header = layout = own  # header the paste lost, under the training header it followed)
        if header:
            row = tables.row(header, _blank_stamp(s, c), _COUNT_COLUMNS) if type(header) is tables.Positional \
                else _table_row(header, cells, blanks=layout is not None or type(header) is _SpacedHeader)
            if row is None and type(header) is list and header is self.header and len(_cells(cells)) < len(header) \
                    and not printed._TQDM_BAR.search(s):
                # a row with blank cells under a header of two-blank cells: its values go by position (a
                # progress bar drawn between the rows is none: its percentage and count are no cells)
                placed = tables.at_cells(self.header_line, header)
                row = tables.row(placed, s, _COUNT_COLUMNS) if placed is not None else None
            if row is None and header is self.header:
                own = _layout_for(c)  # a known headerless row right under another table's header (Ultralytics'
                if own is not None:  # validation `all` row below the training header whose own header the paste
                    header = own  # lost): read by its own layout; the header above holds for the rows after it
                    row = _table_row(own, c, blanks=True)
            if row is not None:
                values, epoch = row
                step = values.pop("step", None)
                self.table_row_at = ln
                if header is self.header and type(header) is list and _hf_results_table(header):
                    # (a card's results table has a row per evaluation: an eval value on every row is measured anew;
                    # the Trainer writes the card, so the run is the Trainer's)
                    self.b.meta["eval_rows"] = True
                    self.b.meta["writer"] = "hf_model_card"
                    # the Trainer fills its card's Training Loss column with the last training loss it logged
                    # (`No log` before the first): the same value in the next row is that log again, not a new one
                    v = values.get(header[0])
                    if v is not None and self.carried == (id(header), v):
                        del values[header[0]]
                    elif v is not None:
                        self.carried = (id(header), v)
                if type(header) is not tables.Positional and str(header[0]).lower().startswith("trial") \
                        and not any(printed._key_role(str(n)) == "step" and str(n).lower() not in tables.TRIAL_ITERS
                                    for n in header):
                    # `| train_16a8 | TERMINATED | ... |  11 | 0.0074 |` under `| Trial name | status | ... |
                    # iter | loss |`: one row per trial of a search, its `iter` that trial's own count; the
                    # trial's place among the table's trials is the row's step
                    first = _cells(cells)[0].strip() if cells else ""
                    if first and not _TABLE_NUM.match(first):
                        if header is not self.header_of_trials:
                            self.header_of_trials = header
                            self.trial_rows = {}
                        self.trial_rows[first] = None
                        step = float(list(self.trial_rows).index(first))
                if epoch is not None:
                    self.epoch = epoch
                elif step is None and self.epoch == self.epoch and type(header) is tables.Positional:
                    epoch = self.epoch  # `Epoch   4` then the epoch's summary table (no counter of its own)
                label = self.header_split if header is self.header else ""
                self.records.append(_Rec(ln, values, step, epoch, None, None, label, "text", False))
                self.tpl_counts["<table>"] = self.tpl_counts.get("<table>", 0) + 1
                return True
            if _PLACEHOLDER_ROW.match(c):  # `2    --------------`: a pandas row printed with no values yet
                return False
            if self.note_under_header(ln, c):
                return False
            if str(header[0]).lower().startswith("trial") and c.strip()[:1] in ("|", "\u2502"):
                return False  # a trial with no results yet (`│ train_00003   RUNNING   512   0.3 │`): the table goes on
            if not _HAS_TQDM_END.search(c):
                self.header = None
        if c[:1] in "-=*~" and c[-1:] == c[:1] and _BANNER.match(c):
            inner = _BANNER_EDGES.sub("", c)  # `-------- Iteration #50 --------`: a counter drawn as a banner
            if _COUNTER_ONLY.match(printed.shape(inner)[0]):
                c = inner
        if self.block is not None and c[-1:] == "]" and "[" in c:
            c = _mean_of_named_list(c)  # `Pseudo dice [0.0, nan, 0.83]` a line under `Epoch 3`: one value
        tpl, nums = printed.shape(c)
        if self.across is not None:
            if self.across_row(c):
                return True
            self.across = None
        if len(nums) >= 2 and not self.header and c[:1] in _ACROSS_FIRST and _ACROSS_HEAD.match(c):
            self.open_across(ln, c)
            return False
        if not nums and ("|" in c or "\t" in c or "  " in c or "\u2500" in c or "---" in c):
            # a header with digits only inside words; a rule under a header, both behind a stamp with digits
            # (`(TunerInternal pid=1083113) ├──────┤`)
            # (`| AP | AP50 |`, `    d1     d2    abs_rel` over a row of values)
            if self.open_split_table(ln, c):  # (after a logger's timestamp: `... - Training | Validation`)
                return False
            header = self.tables.header(ln, _blank_stamp(s, c), self.masks and self.masks.lines) or _table_header(c)
            if header:
                self.header = header
                self.header_split = self.heading_split(ln)
                self.header_read_at = ln
                return False
        if nums and "\t" in c and c[:1].isalpha() and c.count("\t") >= 2 and _numbered_header_line(c):
            # a header whose numbers are words of its names (`Epoch<TAB>Map<TAB>Map 50<TAB>Mar 100`)
            header = _table_header(c)
            if header:
                self.header = header
                self.header_split = self.heading_split(ln)
                self.header_read_at = ln
                return False
        if not nums and " " in c:
            # (`epoch train loss valid loss f2_opt`; `DEV: loss, acc, f1`: names listed with commas)
            spaced = _spaced_header(c) or (_comma_header(c) if ", " in c else None)
            if spaced:
                self.header = spaced
                self.header_split = self.heading_split(ln)
                return False
        if not self.header and "|" in c and _PIPE_NUMBERS.match(c):
            c = " ".join(_PIPE_CELL.findall(c))  # `|  150|  16300|5.0e-05|  1.1553|`: a table row whose header
            pipes = True  # is not in the log; its integer cells are counters or counts, as much as its floats
        else:
            pipes = False
        if not self.header and (pipes or _BARE_PAIR.match(c)):  # `76930 2.6496577`: a counter and one unnamed value
            step, *values = _PAIR_SEP.split(c)  # (or a few: a headerless table, `129984  43765.42  1.7798  0.001`)
            if float(step).is_integer():
                named = {"value": to_float(values[0])} if len(values) == 1 else \
                    {f"value_{i}": to_float(v) for i, v in enumerate(values, 1) if not v.startswith(_PLACEHOLDER)}
                if not named:  # (a row of placeholders only: nothing computed on that line)
                    return False
                self.records.append(_Rec(ln, named, float(step), None, None, None, "", "text", False, _PAIR))
                self.tpl_counts[_PAIR] = self.tpl_counts.get(_PAIR, 0) + 1
                return True
        if not self.header and "[" in c and c[:1].isdigit() and _LISTS_ROW.match(c):
            # `1000   [1.61e-05, 3.21e-02]   [1.63e-05, 0.00e+00]   []`: a physics-informed net's table of a
            # step, then its train terms, its test terms and its metrics, each a bracketed list, pasted without
            # the `Step  Train loss  Test loss  Test metric` header above it: read under that header
            step, *lists = _LIST_CELLS.findall(c)
            named = {}
            for name, cell in zip(_LISTS_ROW_NAMES, lists):
                total = _list_total(cell)
                if total is not None:
                    named[name] = total
            if named:
                self.records.append(_Rec(ln, named, float(step), None, None, None, "", "text", False, _LISTS_TPL))
                self.tpl_counts[_LISTS_TPL] = self.tpl_counts.get(_LISTS_TPL, 0) + 1
                return True
        if not self.header and c[:1].isdigit() and _EPOCH_ITER_ROW.match(c):
            epoch, step, *values = c.split()  # `3   4800   7.69427   0   0.00995887`: Chainer's PrintReport
            if int(epoch) <= int(step):  # table pasted without its header, the epoch and the iteration first
                named = {f"value_{i}": to_float(v) for i, v in enumerate(values, 1)}
                self.records.append(_Rec(ln, named, float(step), float(epoch), None, None, "", "text", False,
                                         _EPOCH_ITER_TPL))
                self.tpl_counts[_EPOCH_ITER_TPL] = self.tpl_counts.get(_EPOCH_ITER_TPL, 0) + 1
                return True
        if not self.header and "/" in c and ":" in c:
            m = _COUNT_VALUE.match(c)
            if m:  # `  10000/ 200000: 2.0576`: a loop's count of its total, then one unnamed value
                self.records.append(_Rec(ln, {"value": to_float(m.group(2))}, float(m.group(1)), None, None, None, "",
                                         "text", False, _COUNT_VALUE_TPL))
                self.tpl_counts[_COUNT_VALUE_TPL] = self.tpl_counts.get(_COUNT_VALUE_TPL, 0) + 1
                return True
        if c[:1] == "[" and not self.header and "] " in c:
            m = _STEP_RATE_ROW.match(c)
            if m:  # `[   100,  0.0000078]     2.7651,     0.4100, ...`: the step and the rate it trained at in
                # brackets, then the running means of unnamed metrics, comma-separated (RAFT's Logger and its
                # forks print a row per summary this way, the names only in their code)
                named = {"learning_rate": to_float(m.group(2))}
                for i, v in enumerate(_PAIR_SEP.split(m.group(3).strip(" ,")), 1):
                    named[f"value_{i}"] = to_float(v)
                self.records.append(_Rec(ln, named, float(m.group(1)), None, None, None, "", "text", False,
                                         _STEP_RATE_TPL))
                self.tpl_counts[_STEP_RATE_TPL] = self.tpl_counts.get(_STEP_RATE_TPL, 0) + 1
                return True
        if c[:1] == "[" and c[-1:] == "]" and not self.header and _NUMBER_LIST.match(c) and _LIST_POINT.search(c):
            # `[nan, nan, 83.04, 0.9958, inf, 28400, 0.000199]`: a logger handed a list of the step's numbers
            # (VITS and its forks: the loss terms, then the global step and the learning rate), no names
            cells = _PAIR_SEP.split(c[1:-1].strip())
            key = tuple(cells)
            if key in self.lists_seen and not all(v.lower().lstrip("+-") in ("nan", "inf") for v in cells):
                # the same list again, every cell as before (`[775.0, 391.0, 206.0, 72.0]` before each
                # evaluation): the counts of a fixed set (its samples per class), no new reading
                self.b.skip("an unnamed number list printed again unchanged")
                return False
            self.lists_seen.add(key)
            named = {f"value_{i}": to_float(v) for i, v in enumerate(cells, 1)}
            epoch = self.epoch if self.epoch == self.epoch else None
            self.records.append(_Rec(ln, named, None, epoch, None, None, "", "text", False, _LIST_TPL))
            self.tpl_counts[_LIST_TPL] = self.tpl_counts.get(_LIST_TPL, 0) + 1
            return True
        if ")" in c and _PAREN_TAIL.match(c):  # `0.163s)`: the end of a line hard-wrapped inside its parentheses
            self.b.skip("the wrapped end of the line before")
            return False
        if "ms " in c and _PHASE_TIMES.match(c):  # `Speed: 0.1ms preprocess, 15.9ms inference, 0.0ms loss, ...`
            self.b.skip("a speed report (how long each phase took per item)")
            return False
        plan, tpl = self.plan_of(c, tpl)
        if not plan.slots:
            if _SECTION.match(c) or c.endswith(":") and _set_heading(c):
                self.section_header(c)  # `Validating` behind a stamp with digits: a heading all the same
            else:
                self.quiet_segs += 1
            return False
        rec = printed.apply(plan, nums)
        if rec is None:
            self.b.skip("numbers did not line up with the line's template")
            return False
        if not rec.label and "@1" in s and _TOPK_SUMMARY.search(s):
            rec.label = "eval"  # ` * Acc@1 71.8 Acc@5 90.2`: the summary the ImageNet example's validate() prints
        if not rec.values and rec.epoch is not None and rec.step is None and rec.batch is None \
                and not self.records and _EPOCHS_SETTING.match(c):
            # `Epochs: 3` alone among the run's settings (`Learning rate: 2e-4` on the next line): the plural
            # names how many epochs the run is set to, not the epoch the lines below it belong to
            self.b.skip("the number of epochs the run is set to (a setting, not a counter)")
            return False
        if not rec.values and (rec.epoch is not None or rec.step is not None or rec.batch is not None) \
                and ("," in c or ":" in c) and not self.header:
            counted = _COUNTED_ROW.search(c)
            if counted:  # `epoch, 0040, 0.015912, 0.017028`: a counter, then a row of values the log never names
                cells = _PAIR_SEP.split((counted.group(1) or counted.group(2)).strip(" ,"))
                named = {"value": to_float(cells[0])} if len(cells) == 1 else \
                    {f"value_{i}": to_float(v) for i, v in enumerate(cells, 1)}
                self.records.append(_Rec(ln, named, rec.step, rec.epoch, rec.batch, None, "", "text", False,
                                         _COUNTED_TPL))
                self.tpl_counts[_COUNTED_TPL] = self.tpl_counts.get(_COUNTED_TPL, 0) + 1
                return True
        if lr and list(rec.values) == ["learning rate"] and rec.step is None and rec.epoch is not None \
                and self.keras_pending is None and self.keras_ahead(rec.epoch, s):
            # Keras' LearningRateScheduler announces the rate as the epoch begins (`Epoch 00002:
            # LearningRateScheduler setting learning rate to 0.001.`), before that epoch's bar: it joins that bar
            self.lr_ahead = (rec.epoch, dict(rec.values))
            return True
        if lr and list(rec.values) == ["learning rate"] and rec.step is None and self.records \
                and type(self.records[-1]) is _Rec:
            last = self.records[-1]  # the LR the schedule set after that record's pass: one record with it
            tab = _aliases.table()
            if not any(tab.resolve(str(k), last.source).name == "learning_rate" for k in last.values):
                last.values.update(rec.values)
                self.joined(last)  # (its own printed line, said apart: the record stays one row)
            return True  # (a record that printed its LR already has it: Keras `- lr: 0.0010`)
        if plan.sizes and _drop_sizes(plan, nums, rec) and not rec.values:
            return False
        if plan.progress == "tqdm":
            done = self.bar_done(ln, c)
            if not done:
                self.quiet_segs += 1  # a redraw, not a finished bar with metrics
            return done
        if plan.axes_only and self.pair_run is not None and self.dates_pair_run(ln, tpl, rec):
            return True
        if plan.axes_only:
            km = _KERAS_EPOCH.match(c) if rec.epoch is not None and c[:1] == "E" else None
            if km is not None and km.group(1) == km.group(2) == "1" and self.caller_epoch is not None \
                    and ln - self.caller_epoch[0] <= 2:
                # `epoch 7` then Keras's `Epoch 1/1`: a loop that calls `fit()` for one epoch and counts the
                # calls itself; its counter places the epoch (each call's own restarts at 1)
                rec.epoch = self.caller_epoch[1]
                self.caller_epoch = None
                self.keras_shift = 0.0
                self.epoch = rec.epoch
            elif rec.epoch is not None:
                self.caller_epoch = (ln, rec.epoch) if km is None and rec.step is None else None
                if self.keras_shift and km is not None:
                    rec.epoch += self.keras_shift
                if rec.epoch == self.epoch and c[:1] == "E" and _KERAS_EPOCH.match(c) and self.keras_done():
                    # `Epoch 1/1` again once that epoch's bar finished: `fit()` called in a loop, each call
                    # training on from where the last one stopped: its epochs follow the last one's
                    printed_epoch = rec.epoch - self.keras_shift
                    self.keras_shift = self.epoch - printed_epoch + 1
                    rec.epoch = self.epoch + 1
                elif self.keras_pending and rec.epoch != self.epoch:
                    self.keras_flush()
                self.epoch = rec.epoch
            if rec.step is not None:
                self.step = rec.step
            # a line that is only a counter (`[step=1/15000,epoch=0]`) may head values printed one per line
            counters = frozenset(sl.key.lower() for sl in plan.slots if sl.role in ("step", "epoch", "batch"))
            if _COUNTER_ONLY.match(tpl) and self.block is not None and self.block_rec is not None \
                    and self.block[1] is None and self.block[2] is None and not self.block_counters:
                self.date_block(rec.step, rec.epoch)  # `***** Eval results *****`, values, `global_step = 312`
            elif _COUNTER_ONLY.match(tpl) and self.block is not None and self.block_rec is None \
                    and self.block[1] is None and self.block[2] is None and not self.block_counters \
                    and _BANNER.match(self.block[3][7:]) and ln == self.block[0] + 1 \
                    and rec.step is None and rec.epoch is not None:
                # `***** Eval results *****` then `epoch = 1.0` first (HF's metrics block, its names sorted): the
                # epoch dates the banner's block, whose values follow it a line each
                self.block = (self.block[0], rec.step, rec.epoch, self.block[3], rec.batch, rec.total)
                self.block_counters = counters
            elif _COUNTER_ONLY.match(tpl):
                epoch = rec.epoch
                if epoch is None and rec.step is None and rec.batch is not None and not math.isnan(self.epoch):
                    epoch = self.epoch  # (`---- batch: 010 ----` under `**** EPOCH 002 ****`: a batch of that epoch)
                self.block = (ln, rec.step, epoch, "<block>" + tpl, rec.batch, rec.total)
                self.block_rec = None
                self.block_counters = counters
                self.block_label = plan.label or ""
            elif self.block is not None and self.block_rec is not None and counters != self.block_counters \
                    and self.block[3] != _RESULTS_TPL:
                # `Total timesteps: 2457600` inside an iteration's block counts env steps: the block goes on (a
                # results file's block ends at a counter: `Epoch 30 ended.` heads the next pass's values)
                pass
            else:
                self.block = None
                self.block_rec = None
            if plan.label and _SECTION.match(c) and (plan.label == "train" or self.under_train):
                # `Training epoch: 14` heads training's lines, then `Eval epoch: 14` the evaluation's
                self.section_header(c, counter=True)
            elif plan.label == "eval" and _SECTION.match(c):
                self.section_header(c)  # `Validation at epoch 5` over the evaluation's lines
            elif not plan.label and "valuator" in c and _EVALUATOR_HEADING.match(c):
                self.section_header(c)
            return False
        if plan.keys == 1 and not plan.counter and " = " in c and _RESULT_LINE.match(c) and rec.values \
                and (self.block is None and not self.records and _names_evaluation(rec.values) or self.block is not None
                     and self.block[3] == _RESULTS_TPL and self.block_rec is not None
                     and not self.block_rec.values.keys().isdisjoint(rec.values)):
            # `eval_loss = 0.61`, `eval_matthews_correlation = 0.0`, `epoch = 3.0` before any record: a results
            # file (HF's and BERT's `eval_results.txt`, one `name = value` a line) is one record; a name it
            # already holds opens the next file's (several pasted one after another)
            self.block = (ln, None, None, _RESULTS_TPL)
            self.block_rec = None
            self.block_counters = frozenset()
            self.block_label = ""
        block, self.block = self.block, None
        if block is not None and not plan.is_record and (not _ONE_PAIR.match(tpl) or not plan.keys):
            # (`Computation: 159372 steps/s (collection: 0.5s, ...)` inside the block; `train_runtime = 0:02:59.80`,
            # a pair whose value is no metric)
            self.block = block
            return False
        if block is not None and not plan.counter and (plan.keys == 1 and _ONE_PAIR.match(tpl)
                                                       or plan.keys > 1 and _stats_columns(c, rec)) \
                and not (self.block_rec is not None and not self.block_rec.values.keys().isdisjoint(rec.values)):
            # (a name the block already holds opens the next pass: the block is over)
            # `[step=1/15000,epoch=0]` then `train/CrossEntropyLoss=2.998`, one value a line: one record
            if self.block_rec is None:
                # (`Eval epoch: 4` then `mean_loss: 5.99`, `Top1: 0.00%`: the heading's split is the block's)
                batch, total = block[4:6] if len(block) > 4 else (None, None)  # (a header that counts batches)
                self.block_rec = _Rec(block[0], {}, block[1], block[2], batch, total, rec.label or self.block_label,
                                      "text", False, block[3])
                self.records.append(self.block_rec)
                self.tpl_counts[block[3]] = self.tpl_counts.get(block[3], 0) + 1
            if self.block_rec.values:
                self.joined(self.block_rec)
            # (the line's shape recurs in the log even when each print joins its block: a lone print of it
            # before the first block, an excerpt's cut tail of the pass before, is that reading, no setting)
            self.tpl_counts[tpl] = self.tpl_counts.get(tpl, 0) + 1
            if rec.label == "eval" and self.block_rec.label != "eval":
                # `Val IoU: 0.0` in an epoch's block of training and validation lines: the split its line
                # named stays with the name once the line joins the block
                self.block_rec.values.update({f"val_{k}": v for k, v in rec.values.items()})
            else:
                self.block_rec.values.update(rec.values)
            self.block = block
            return True
        joined_one = self.block_rec is not None  # (the block took lines of one value: a repeat is what ended it)
        self.block_rec = None
        if block is not None and block[1] is not None and rec.step is None and rec.batch is None \
                and not plan.counter and plan.is_record and plan.keys > 1 and not joined_one:
            # `[Step 10/11940] [Epoch 0/30]` over indented lines of several values each (`loss: 14.9, time: 0.39`,
            # `abs_rel: 0.0, lr: 0.01`): the lines under a heading that only counts are at the heading's step
            rec.step = block[1]
            self.block = block
        shape = _keyless(tpl, plan)
        if not plan.is_record and plan.keys >= 2 and not plan.counter and not plan.prose and not plan.progress \
                and not rec.label and ln not in self.config_lines and not _FILE_EVENT.search(s) \
                and self.continues_counted(ln, rec):
            return True
        if not plan.is_record and not (shape and shape in self.keyless):
            if plan.keys == 0 and any(sl.role == "skip" and sl.key and printed._BEST.match(sl.key) for sl in plan.slots):
                # `Best_accuracy : 60.0`: the best value so far of a metric the log prints, no reading of its own
                self.b.skip(_BEST_SKIP)
                return False
            if plan.keys == 0:
                self.section_header(c)
            if self.join_pair_run(ln, s, tpl, plan, rec):
                return True
            return self.beside_pairs(ln, s, c, tpl, plan, rec)
        if shape:  # `Train net output #1: loss_bbox = 0.05 (* 1 = 0.05 loss)`: any name in its place is a metric
            self.keyless.add(shape)
        if plan.part and self.merge_part(plan.part, rec, tpl):
            return True
        if self.set_list and not rec.label and rec.step is None and rec.epoch is None:
            # `- Loss: inf` under `It achieves the following results on the evaluation set:`: a model card's
            # summary of its last evaluation, which the card's results table holds with its step
            self.b.skip(_CARD_SUMMARY_SKIP)
            self.card_summary.append(_Rec(ln, dict(rec.values), None, None, None, None, "eval", "text", False, tpl))
            return False
        if self.section is not None:
            if self.section_held and tpl in self.section and not rec.label:
                # (`=== validate epoch 2 ===` then `Epoch 1 | avg_loss = 0.53`, the line training printed under
                # `=== training epoch 2 ===`: the same print, called on the held-out set)
                rec.label = "eval"
            elif tpl in self.section and not (rec.total is not None and self.line_total is not None
                                              and rec.total != self.line_total and not rec.label):
                self.section = None  # a line of training again: the evaluation is over
            elif tpl in self.section:  # (PaddlePaddle's hapi: `Eval begin...`, then `step 10/88 - loss: ...`
                rec.label = "eval"     # in training's own shape, counting the eval set's 88 batches, not 614)
            elif not rec.label and self.section_loose and any(
                    _aliases.table().resolve(str(k), "text").name == "loss" for k in rec.values) \
                    and not self.in_eval_pairs(ln, plan, rec, tpl):
                self.section = None  # (`Evaluating the initial model` and then training's own lines)
            elif not rec.label:
                rec.label = "eval"
                self.evaluated.add(tpl)
        if rec.epoch is None and self.epoch == self.epoch:
            rec.epoch = self.epoch
        if plan.progress == "keras" and _timings_only(rec.values):
            # `200/200 [=====] - 6s 30ms/step - batch_cost: 0.029 - reader cost: 0.001`: an evaluation's bar
            # that times its batches and measures nothing (its scores come on a line of their own)
            self.b.skip("a progress bar of timings only")
            return False
        if plan.progress == "keras":
            self.keras_pending = (ln, rec.values)
            self.keras_total = rec.total
            trail = self.keras_trail
            if trail is not None:
                if trail and trail[-1].line == ln:
                    trail.pop()  # (redraws one carriage return apart: the line shows its last)
                trail.append(_Rec(ln, rec.values, None, rec.epoch, rec.batch, rec.total, "", "keras", False))
            if rec.batch is not None and rec.batch == rec.total:  # the epoch's last redraw: its value
                self.keras_flush()
            return True
        if self.keras_pending:
            self.keras_flush()
        if rec.epoch is not None:
            self.epoch = rec.epoch
        if rec.step is not None:
            self.step = rec.step
        if not self.records:  # the log's first record: its line may be an excerpt's cut first line
            self.first_shape = (tpl, nums)
        elif len(rec.values) <= 2 and self.joins_pass_time(rec, tpl):
            return True
        elif len(rec.values) == 2 and not plan.counter and self.sums_up_timing(rec):
            self.b.skip("a phase's whole time and rate, after step lines that print both")
            return False
        if self.join_pair_run(ln, s, tpl, plan, rec):
            return True
        if not rec.label and len(rec.values) >= 2 and ("al" in c or "AL" in c or "rain" in c or "RAIN" in c):
            _held_out_accuracy(rec.values)
        self.records.append(_Rec(ln, rec.values, rec.step, rec.epoch, rec.batch, rec.total, rec.label,
                                 "text", False, tpl))
        self.tpl_counts[tpl] = self.tpl_counts.get(tpl, 0) + 1
        if plan.counter:
            self.own_counter_at = ln
        if self.pair_run is not None and self.pair_run[0] == ln:
            self.pair_run = (ln, self.records[-1], self.pair_run[2], [])
        if self.pair_left or plan.keys == 1 and len(rec.values) == 1 and not plan.counter and rec.step is None:
            self.pairs_above(ln, s, c, tpl, plan)
        if (rec.step is not None or rec.epoch is not None) and _BANNER.match(c):
            # `***** Episode 31455, Mean R = 28911.0 *****` then `KL: nan`, `PolicyLoss: 0.3` a line each: a
            # banner heads the block of its pass, whose one-value lines belong to the banner's record
            self.block = (ln, rec.step, rec.epoch, "<block>" + tpl)
            self.block_rec = self.records[-1]
            self.block_counters = frozenset(sl.key.lower() for sl in plan.slots if sl.role in ("step", "epoch"))
        if rec.step is not None or rec.epoch is not None or rec.batch is not None:
            self.counted.add(tpl)
        if rec.total is not None and rec.label != "eval":
            self.line_total = rec.total  # how many batches training's own lines count to
        if self.heading == "train" and self.section is None:
            self.under_train.add(tpl)
        if not bars and self.header is None and self.section is None and ln not in self.config_lines:
            self.ordinary = (tpl, plan, nums)
        return True

    def frame_line(self, s: str) -> bool:
        """A line of a wide pandas DataFrame that pandas printed wrapped: the header of each block of columns
        but the last ends in `  \\`, the rows open on their index, a blank line parts the blocks. A frame of data
        (`df.head()` of a data set) is no record; True when the line was one of the frame's and is skipped."""
        if not self.frame:  # (the opening header, matched by the caller)
            self.frame, self.frame_wraps = "rows", True
        elif not s.strip():
            if self.frame == "rows":
                self.frame = "wrap" if self.frame_wraps else "end"
            return True
        elif self.frame in ("end", "rows") and _FRAME_SIZE.match(s):
            self.frame = ""
        elif self.frame == "wrap" and s[:1] in " \t":
            self.frame, self.frame_wraps = "rows", s.rstrip()[-1:] == "\\"
        elif self.frame == "rows" and _FRAME_ROW.match(s):
            pass  # (its index, then its cells two blanks or more apart)
        else:
            self.frame = ""
            return False
        self.b.skip("a wide pandas DataFrame printed wrapped (data, not a record)")
        return True

    def joined(self, rec: _Rec) -> None:
        """One more printed line's values went into `rec`: the record stays one row at its step."""
        _more_lines(self.lines_in, rec.line)
        self.folds += 1

    def pair_joined(self, rec: _Rec) -> None:
        """`joined`, for a line of one unknown pair read with the known pair beside it (`beside_pairs`)."""
        self.joined(rec)
        self.pair_lines[rec.line] = self.pair_lines.get(rec.line, 0) + 1

    def continues_counted(self, ln: int, rec: printed.Record) -> bool:
        """`iter 100, loss: 2.41` then `rpn_cls: 0.71, rpn_box: 0.005, rcnn_cls: 1.73`: a line of named values
        with no counter of its own, printed right under a counted record (one line of notes between them at
        most), goes on with that record: its names, new to the record, are the same step's parts. True when
        the values joined it, or when that record was read in bulk (the line is then counted as skipped)."""
        if not self.records:
            return False
        last = self.records[-1]
        if ln - last.line > 2 or ln <= last.line:
            return False
        if type(last) is _Bulk:
            if self.open is not last:
                return False
            self.b.skip("values under a counted line read in bulk (no counter of their own)")
            return True
        if last.line != self.own_counter_at:  # (a counter of its own, not an epoch carried from a line above)
            return False
        if not last.values or not last.values.keys().isdisjoint(rec.values):
            return False
        last.values.update(rec.values)
        self.joined(last)
        return True

    def join_pair_run(self, ln: int, s: str, tpl: str, plan: printed.Plan, rec: printed.Record) -> bool:
        """`value_loss/Average      nan`, `prior_entropy/Average   nan`, ...: lines of one name and one value
        each, one right under the other, with no counter on any, are one record, as they are under a
        counter's heading: a record printed as a block, one key a line (a summary block, a tabular dump
        whose heading was cut off, an evaluation's scores `acc = 0.87`, `f1 = 0.90` a line each), whether
        or not their values line up in one column (a name's length says nothing of when it was measured).
        The run opens on a line read as a record when the line before made no record of its own (a blank
        line, a rule, a fence or a heading above it, or the log's start), and takes the next such lines
        that are records; a line of one name the alias table does not know lets the run go on past it,
        and is part of the record when a line of the run follows it (`grad_norm_0` between two losses of a
        step's dump; `set_size=4445` after `Training accuracy = 8.47%` stays a setting). A name the run
        already holds opens the next record (the next dump of the same block); a counter, another layout
        (rows of several pairs after one-pair lines) or any other line ends it, but one rule drawn inside
        the block (rsl_rl's `-----` above an iteration's times) does not. Only before any counter was
        read: after that, lines keep the shape the log's counters and records give them (a counter's
        heading makes such lines a block of its own). True when the line joined the run."""
        one = not plan.counter and rec.step is None and self.step != self.step and self.epoch != self.epoch \
            and (plan.keys == 1 and len(rec.values) == 1 and _ONE_PAIR.match(tpl) is not None
                 or plan.keys > 1 and _stats_columns(s, rec))  # (PyMARL's `return_mean:    1.72<TAB>...` rows)
        run, self.pair_run = self.pair_run, None
        if not one:
            return False
        where = "stats" if plan.keys > 1 else "pair"  # (rows of a stats dump, or lines of one pair each)
        after_run = run is not None and self.records and self.records[-1] is run[1] \
            and (run[0] == ln - 1 or run[0] == ln - 2 and _DASH_LINE.match(self.lines[ln - 2]) is not None)
        if after_run and run[2] == where and not plan.is_record:
            # (passed over: the run goes on below it, and the line joins the record once a line of the run follows)
            self.pair_run = (ln, run[1], where, run[3] + [(ln, rec.values)])
            return False
        if after_run and run[2] == where and run[1].label == rec.label \
                and run[1].values.keys().isdisjoint(rec.values):
            for at, values in run[3]:
                if run[1].values.keys().isdisjoint(values):
                    run[1].values.update(values)
                    self.joined(run[1])
                    if at in self.unplaced:
                        self.unplaced.remove(at)
            run[1].values.update(rec.values)
            self.joined(run[1])
            self.pair_run = (ln, run[1], where, [])
            return True
        # (the run's record ends here: a name it holds opens the next one, as a line under a blank line does)
        if plan.is_record and (not self.records or self.rec_at != ln - 1 or after_run and run[2] == where):
            self.pair_run = (ln, None, where, [])  # (the record this line makes opens a run)
        return False

    def beside_pairs(self, ln: int, s: str, c: str, tpl: str, plan: printed.Plan, rec: printed.Record) -> bool:
        """`Rsum: 113.3` under `R@1: 4.2` ... `R@100: 68.8`, `GPUUtil/0: 94.6` among tensorpack's monitor lines: a line
        of one name and one value whose name the alias table does not know, printed with the same lead (the
        timestamp, logger and indent, digits aside) as the one-pair lines next to it that are records, is read as
        they are: a record when the line above made one of that lead (lines of that lead only between), else held
        until the next such line makes one (`pairs_above`). Only once a counter was read (before that,
        `join_pair_run` reads such runs). True when the line is to be read as a record."""
        if plan.keys != 1 or len(rec.values) != 1 or plan.counter or plan.prose or plan.progress \
                or rec.step is not None or (self.step != self.step and self.epoch != self.epoch) \
                or _ONE_PAIR.match(tpl) is None or _PAIR_SEP.search(tpl) is None \
                or not _scores_name(str(next(iter(rec.values)))):
            return False  # (a line of the lead that is no such pair is passed over: `same_lead` sees the block whole)
        lead = self.pair_lead(s, c, rec)
        barred = self.pair_barred
        if barred is not None and barred[1] == lead and self.same_lead(barred[0], ln, lead):
            return False  # (`LR: 0.09` then `th: 3.0`: a block that lists a setting may list more)
        took = self.pair_took
        if took is not None and self.records and self.records[-1] is took[2] and took[1] == lead \
                and self.rec_at == took[0] and self.same_lead(took[0], ln, lead) \
                and took[2].values.keys().isdisjoint(rec.values):
            took[2].values.update(rec.values)
            self.pair_joined(took[2])
            self.pair_took = (ln, lead, took[2])
            return True
        if self.pair_left and (self.pair_left[-1][2] != lead or not self.same_lead(self.pair_left[-1][0], ln, lead)):
            self.pair_left = []
        self.pair_left.append((ln, rec.values, lead, tpl))
        return False

    def pairs_above(self, ln: int, s: str, c: str, tpl: str, plan: printed.Plan) -> None:
        """A record made of one pair on this line: the lines of one unknown pair right above it with the same lead
        (`beside_pairs`) are records of their own beside it, and the lines of that lead right under it may be."""
        left, self.pair_left, self.pair_took = self.pair_left, [], None
        if plan.keys != 1 or plan.counter or len(plan.slots) != 1:
            return
        rec = self.records[-1]
        tab = _aliases.table()
        lead = self.pair_lead(s, c, rec)
        if any(tab.resolve(str(k), "text").name in _SETTING_CANON for k in rec.values):
            self.pair_barred = (ln, lead)  # (`lr: 0.02` then `dampening: 0`: an optimizer's settings, no scores)
            return
        if left and left[-1][2] == lead and self.same_lead(left[-1][0], ln, lead):
            for at, values, _, _ in left:
                if rec.values.keys().isdisjoint(values):
                    rec.values.update(values)
                    self.pair_joined(rec)
                    if self.trace is not None:  # (a line above the record's first: the audit's span misses it)
                        self.trace.folded.setdefault(at, set()).add(rec.line)
                    if at in self.unplaced:
                        self.unplaced.remove(at)
        self.pair_took = (ln, lead, rec)

    def pair_lead(self, s: str, c: str, rec: printed.Record) -> str:
        """The lead a block's one-pair lines share (`_pair_lead`), the split their words name (`eval` lines are no
        training's) and the counters read so far (a heading's new epoch between two lines parts their blocks)."""
        return f"{_pair_lead(s, c)}\0{rec.label}\0{self.step!r}/{self.epoch!r}"

    def same_lead(self, first: int, ln: int, lead: str) -> bool:
        """Every line strictly between `first` and `ln` is a name and a value printed with `lead`'s lead (a blank
        line, a sentence or a dict breaks the block)."""
        head = lead.split("\0")[0]
        for at in range(first + 1, ln):
            raw = self.lines[at - 1]
            clean = printed.clean(raw)
            if _PAIR_LINE.match(clean) is None or _pair_lead(raw, clean) != head:
                return False
        return True

    def in_eval_pairs(self, ln: int, plan: printed.Plan, rec: printed.Record, tpl: str) -> bool:
        """`loss: 0.512` right under `wer: 0.123`, `cer: 0.0456` that an evaluation's heading (`Evaluating on the
        test set`) labelled: a line of one pair and no counter that goes on a run of one-pair lines of the
        evaluation, a name the run does not hold yet, is more of that evaluation's block; the loss it names was
        measured on the same data, not by a training that starts under the heading (training's lines come after
        the block, or count their steps). Only where the block so far is scores the alias table knows: a learning
        rate above the loss (`-> lr: 1e-06`, `-> loss: 12.8` of a client's fit) is training's own record."""
        run = self.pair_run
        return run is not None and run[0] == ln - 1 and run[1] is not None and bool(self.records) \
            and self.records[-1] is run[1] and run[1].label == "eval" and not plan.counter and rec.step is None \
            and rec.epoch is None and plan.keys == 1 and len(rec.values) == 1 and _ONE_PAIR.match(tpl) is not None \
            and run[1].values.keys().isdisjoint(rec.values) and _scores_only(run[1].values)

    def dates_pair_run(self, ln: int, tpl: str, rec: printed.Record) -> bool:
        """`- psnr_sem: 5.55`, `- lr: 0.0001`, then `- step: 1000` and a blank line: a counter alone on the
        line right under a run of one-pair lines, with nothing after it that it could head (a blank line,
        words, the end of the log), is the step of the record the run printed (a summary's keys listed
        with the step among them). True when it dated that record."""
        run = self.pair_run
        if run[0] != ln - 1 or run[1] is None or not self.records or self.records[-1] is not run[1] \
                or run[1].step is not None or run[1].epoch is not None or not _COUNTER_ONLY.match(tpl) \
                or (rec.step is None and rec.epoch is None):
            return False
        after = self.lines[ln] if ln < len(self.lines) else ""
        if _HAS_DIGIT.search(after):
            return False  # (`Epoch 2` over the next values: a heading, not this record's step)
        self.records[-1] = run[1]._replace(step=rec.step, epoch=rec.epoch)  # (the line is its axis: no value of it)
        self.pair_run = None
        if rec.step is not None:
            self.step = rec.step
        if rec.epoch is not None:
            self.epoch = rec.epoch
        return True

    def sums_up_timing(self, rec: printed.Record) -> bool:
        """`Time cost=17408.26 s, Thoughput=15.15 samples/s` with no counter, after step lines that each print
        the same two names (`Batch: 32799/32986, Loss=0.59, ... Time cost=103.9 Thoughput=15.40 samples/s`): how
        long a whole phase took and its mean rate (all of training, or the prediction after it), no step's
        reading. Only a duration and a rate, both names already on the step record just before it."""
        last = self.records[-1]
        if type(last) is not _Rec or last.source != "text" or (last.step is None and last.batch is None) \
                or rec.label or not rec.values.keys() <= last.values.keys():
            return False
        kinds = set()
        tab = _aliases.table()
        for k in rec.values:
            kinds.add("time" if _is_pass_time(str(k)) else
                      "rate" if tab.resolve(str(k), "text").name == "throughput" else "other")
        return kinds == {"time", "rate"}

    def joins_pass_time(self, rec: printed.Record, tpl: str) -> bool:
        """`Epoch[4] Train-accuracy=0.55` then `Epoch[4] Time cost=20670.7`: a line that gives only how
        long the pass took, opening with the same counter as the record of that pass just before it,
        is part of that record (its duration), not a reading of its own. True when joined to it."""
        last = self.records[-1]
        if type(last) is not _Rec or last.source != "text" or (rec.label or "") != (last.label or "") \
                or rec.epoch is None or rec.epoch != last.epoch or rec.step not in (None, last.step) \
                or not all(_is_pass_time(str(k)) for k in rec.values) \
                or not last.values.keys().isdisjoint(rec.values) \
                or "#" not in _shared_lead(tpl, last.template):  # (the costly test last)
            return False
        last.values.update(rec.values)
        return True

    def open_split_table(self, ln: int, c: str) -> bool:
        """True when the cleaned line `c` heads a table whose columns are the splits."""
        splits = _split_columns(c)
        if splits:
            self.split_cols, self.split_rows, self.split_line = splits, {}, ln
            self.split_nrows = 0
        return splits is not None

    def split_row(self, seg: str) -> bool:
        """One `name | train value | validation value` row of a table whose columns are splits; a
        line of any other shape closes the table, whose rows are one record (one epoch's)."""
        cols = self.split_cols or []
        cells = _cells(printed.clean(seg))
        if len(cells) == len(cols) + 1 and _NAME_CELL.match(cells[0]) \
                and all(_NUM_OR_NA.match(c) for c in cells[1:]):
            for split, cell in zip(cols, cells[1:]):
                if cell.upper() not in ("N/A", "NA", "-"):
                    key = cells[0] if split == "train" else f"{split} {cells[0]}"
                    self.split_rows[key] = to_float(cell)
            self.split_nrows += 1
            return True
        self.close_split_table()
        return False

    def close_split_table(self) -> None:
        if self.split_rows:
            ep = self.epoch if self.epoch == self.epoch else None
            self.records.append(_Rec(self.split_line, dict(self.split_rows), None, ep, None, None, "", "text", False,
                                     "<split table>"))
            self.tpl_counts["<split table>"] = self.tpl_counts.get("<split table>", 0) + 1
            if self.split_nrows > 1:  # (a metric a row: the record is one row, its printed lines said apart)
                _more_lines(self.lines_in, self.split_line, self.split_nrows - 1)
        self.split_cols, self.split_rows = None, {}

    def tidy(self) -> None:
        """Corrections that need the whole log read: a cut first line, the split of best-tracked metrics."""
        self.close_split_table()
        if self.mat_arrays and not self.records and not self.pair_records:
            self.struct_records()
        if self.pair_records and not self.records:
            # a history printed at the end of a run restates what its progress lines said: it is the
            # log's reading only where no progress line was printed (or kept in the excerpt)
            self.records.extend(self.pair_records)
        self.mend_cut_first()
        self.rename_running_bar_loss()
        self.label_best_tracked()
        self.label_eval_summaries()
        self.stop_best_rows()
        self.lone_tensor_rows()
        self.drop_region_lines()
        self.tables.warn(self.b)  # rows of one table that are different trials

    def stop_best_rows(self) -> None:
        """Lightning's EarlyStopping prints `Metric val/accuracy improved by 0.110 >= min_delta = 0.0.
        New best score: 0.278` each time the monitored metric improves: at that moment the best is
        the metric's current value. When the log prints the metric nowhere else (the progress bar
        cut or redrawn away) these lines are its only reading; otherwise they repeat it."""
        if not self.stop_best:
            return
        tab = _aliases.table()
        read = {tab.resolve(str(k), "text").name for rec in self.records for k in rec.values}
        kept = [_Rec(ln, {key: value}, None, None, None, None, "", "text", False, "<best score>")
                for ln, key, value in self.stop_best if tab.resolve(key, "text").name not in read]
        if kept:
            self.tpl_counts["<best score>"] = self.tpl_counts.get("<best score>", 0) + len(kept)
            self.records = sorted(self.records + kept, key=lambda r: r.line)

    def drop_region_lines(self) -> None:
        """darknet's region (YOLO) layer prints a line per subbatch inside each iteration; the iteration's
        own line (` 75: 3.12, 3.40 avg loss, 0.001 rate, ...`) is its record. Where the log has such lines
        the region lines are diagnostics, not rows; where it has none (an excerpt of region lines only)
        they are all the log says."""
        if not self.darknet_iters or not self.region_lines:
            return
        kept = [r for r in self.records if type(r) is not _Rec or r.line not in self.region_lines]
        if len(kept) < len(self.records):
            self.b.skip("a detection layer's per-subbatch diagnostics (darknet's `Region Avg IOU: ...`)",
                        len(self.records) - len(kept))
            self.records = kept

    def lone_tensor_rows(self) -> None:
        """`print(loss)` in a training loop writes the loss as a scalar tensor's repr, one per line
        (`tensor(3.2207, device='cuda:0')`); the repr names the loss function only while autograd still
        tracks it. A run of such lines, one after the other, in a log where nothing else is read as a
        loss, is the loss curve: that is what a loop prints every step without a name."""
        if len(self.lone_tensors) < _LONE_TENSOR_RUN:
            return
        tab = _aliases.table()
        if any(tab.resolve(str(k), "text").name == "loss" for rec in self.records for k in rec.values):
            return
        runs: list[list[tuple[int, float]]] = []
        for ln, v in self.lone_tensors:
            if runs and ln - runs[-1][-1][0] <= 1:
                runs[-1].append((ln, v))
            else:
                runs.append([(ln, v)])
        kept = [_Rec(ln, {"loss": v}, None, None, None, None, "", "text", False, "<printed tensor>")
                for run in runs if len(run) >= _LONE_TENSOR_RUN for ln, v in run]
        if kept:
            self.tpl_counts["<printed tensor>"] = self.tpl_counts.get("<printed tensor>", 0) + len(kept)
            self.records = sorted(self.records + kept, key=lambda r: r.line)

    def label_eval_summaries(self) -> None:
        """A line with no split and no counter of its own right after an evaluation's records, naming
        only metrics those records named, sums that evaluation up (PyTorch's ImageNet example: `Test:
        [190/196] ... Acc@1 76.1 (75.9)` lines, then ` * Acc@1 75.912 Acc@5 92.810`): it is the evaluation's."""
        prev = None
        for i, rec in enumerate(self.records):
            if type(rec) is not _Rec:
                prev = None
                continue
            if prev is not None and prev.label == "eval" and not rec.label and rec.values \
                    and rec.step is None and rec.batch is None and rec.step != prev.step \
                    and {_base_name(str(k)) for k in rec.values} <= {_unsplit(str(k)) for k in prev.values}:
                lead = _SPLIT_LEAD.match(str(next(iter(prev.values))).strip())
                values = {f"{lead.group().strip(' _/')} {k}": v for k, v in rec.values.items()} if lead else rec.values
                rec = self.records[i] = rec._replace(label="eval", values=values)  # (its epoch is the pass's)
            prev = rec

    def label_best_tracked(self) -> None:
        """A metric the log keeps a best-so-far of is a held-out one: a best value is kept to pick a
        checkpoint, and that is done on validation numbers. A line with no split of its own whose every
        metric has such a best (`Current_accuracy : 60.04, Current_norm_ED : 0.82` over `Best_accuracy :
        60.04, Best_norm_ED : 0.82`) is the evaluation's."""
        if not self.best_of:
            return
        for i, rec in enumerate(self.records):
            plan = self.plans.get(rec.template) if isinstance(rec, _Rec) else rec.shape.plan
            if rec.label or not rec.template or not len(rec.values) or plan is None or plan.counter:
                continue  # (a line with a counter of its own is a training record)
            if all(_base_name(str(k)) in self.best_of for k in rec.values):
                if isinstance(rec, _Rec):
                    self.records[i] = rec._replace(label="eval")
                else:
                    rec.label = "eval"

    def mend_cut_first(self) -> None:
        """An excerpt whose first line was cut inside its first word (`poch  1, 12850/37527; acc: ...`
        above lines that all begin `Epoch  1, ...`): that line is one of the log's repeated shape, cut.
        Read alone it makes a key of the word's rest (`poch`) and loses its counters; read with the
        whole shape's plan (same numbers, in the same places) it is the record it was printed as."""
        if self.first_shape is None or not self.records:
            return
        tpl, nums = self.first_shape
        first = self.records[0]
        if first.template != tpl or _n(first) != 1 or self.tpl_counts.get(tpl) != 1 or not tpl[:1].isalpha():
            return
        for full, count in sorted(self.tpl_counts.items(), key=lambda kv: -kv[1]):
            if count < 2 or len(full) <= len(tpl) or not full.endswith(tpl) or not full[-len(tpl) - 1].isalpha():
                continue  # (a cut at a word's edge may be a different line: `acc: 5` under `val acc: 5`)
            plan = self.plans.get(full)
            rec = printed.apply(plan, nums) if plan is not None else None
            if rec is None or not rec.values:
                continue
            epoch = rec.epoch if rec.epoch is not None else (first.epoch if type(first) is _Rec else None)
            self.records[0] = _Rec(first.line, rec.values, rec.step, epoch, rec.batch, rec.total, rec.label,
                                   "text", False, full)
            del self.tpl_counts[tpl]
            self.tpl_counts[full] += 1
            if rec.step is not None or rec.epoch is not None or rec.batch is not None:
                self.counted.add(full)
            self.b.warn(f"line {first.line} is cut at its start: read as the log's `{full[:40]}` lines")
            return

    def open_across(self, ln: int, c: str) -> None:
        """`epoch 8 epoch 50 epoch 100 epoch 200`: the header of a table printed across, a column per
        counter value; each row under it (`training loss 2.9 1.18 .98 .75`) gives one name a value in
        every column, so each column is one record."""
        word = c.split()[0].lower()
        counts = [float(n) for n in _DIGIT_RUN.findall(c)]
        self.across = []
        for n in counts:
            is_epoch = word.startswith("ep")
            rec = _Rec(ln, {}, None if is_epoch else n, n if is_epoch else None, None, None, "", "text", False)
            self.records.append(rec)
            self.across.append(rec)

    def across_row(self, c: str) -> bool:
        """One row of a table printed across: a name, then exactly one number per column."""
        assert self.across is not None
        words = c.split()
        k = len(self.across)
        if len(words) <= k or not words[0][:1].isalpha():
            return False
        cells = [to_float(w) for w in words[-k:]]
        name = " ".join(words[:-k]).strip(" :-")
        if not name or any(v is None for v in cells) or to_float(words[-k - 1]) is not None:
            return False
        for rec, v in zip(self.across, cells):
            rec.values[name] = v
        self.tpl_counts["<table>"] = self.tpl_counts.get("<table>", 0) + 1
        return True

    def merge_part(self, part: str, rec: printed.Record, tpl: str) -> bool:
        """`FOREST: precision: 0.5%; recall: 0.4%; FB1: 0.45` right after a record that printed the same
        metrics for all the data (conlleval's overall line): one part's breakdown of that record; its
        values join it as `<metric>/<part>`. True when merged."""
        last = self.records[-1] if self.records else None
        if type(last) is not _Rec or not last.template or rec.step is not None or rec.batch is not None \
                or not rec.values or not set(rec.values) <= set(last.values):
            return False
        last.values.update({f"{k}/{part}": v for k, v in rec.values.items()})
        self.joined(last)
        self.tpl_counts[tpl] = self.tpl_counts.get(tpl, 0) + 1
        return True

    def dict_line(self, ln: int, s: str) -> bool:
        """A dict printed over several lines (`pprint(vars(args))`, a metrics dict too long for one
        line): its lines are gathered and read as one dict when it closes. A dict of numbers is a
        record; one that holds settings (strings, booleans, None, objects) is the run's
        configuration, and none of its lines is a record."""
        if self.dict_block is not None and self.dict_block[1] and _BRACE_ALONE.match(self.dict_block[1][0]) \
                and _NESTED_OPEN.search(s) and not _NESTED_DICT_ENTRY.match(s):
            # (`"log_history": [`, `[{`: the object holds a list of records; each record inside it opens anew.
            # A named object inside it (`"env_info": {`) is one of its entries: the gathering goes on)
            first, parts = self.dict_block
            self.dict_block = None
            self.config_lines.update(range(first, ln))
            if _BRACE_ALONE.match(s):
                return self.dict_line(ln, s)
            return False
        if self.dict_block is None:
            self.dict_block = (ln, [])
        first, parts = self.dict_block
        parts.append(s.strip())
        text = " ".join(parts)
        if text.endswith("},"):  # (one record of a JSON list, its comma after it)
            text = text[:-1]
        if (not text.endswith("}") or text.count("{") > text.count("}")) and len(parts) < _DICT_MAX_LINES:
            return False  # (`'features': [{'name': 'topo'},`: a nested dict closes, the outer one goes on)
        self.dict_block = None
        if len(parts) >= _DICT_MAX_LINES and not text.endswith("}"):
            # (`pprint(tokenizer.word_index)`: a thousand `'word': 607,` lines; those past the cut are its entries too)
            self.dict_tail = True
        return self.close_dict(first, ln, text, len(parts))

    def close_dict(self, first: int, ln: int, text: str, n: int) -> bool:
        """Read the gathered lines of a dict as one: a record when every value is a number."""
        if self.dict_record(first, ln, text, n):
            last = self.records[-1] if self.records else None
            if type(last) is _Rec and last.line == first and n > 1:
                # (its lines that hold a number, one entry a line, count as the record's printed lines)
                held = sum(1 for k in range(first, min(ln, len(self.lines)) + 1)
                           if _HAS_DIGIT.search(str(self.lines[k - 1]).split(":", 1)[-1]))
                if held > 1:
                    _more_lines(self.lines_in, first, held - 1)
            return True
        return False

    def dict_record(self, first: int, ln: int, text: str, n: int) -> bool:
        d = parse_pydict(text)
        if d is None:
            d = _json_object(text)  # pretty-printed JSON (`json.dumps(state, indent=2)`): `null`, `true`
        if d:  # (a bare nan or inf was quoted to parse: it is the number it spells)
            d = {k: float(v) if isinstance(v, str) and _NONFINITE_WORD.match(v) else v for k, v in d.items()}
        if d and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in d.values()) \
                and not self.settings_heading(first):
            self.hf_dict(first, "", d)
            return True
        quoted = _quoted_numbers(d) if d else None
        if quoted is not None:
            self.hf_dict(first, "", quoted)
            return True
        nums = {k: v for k, v in (d or {}).items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if sum(printed.names_loss_or_accuracy(str(k)) for k in nums) >= 2 \
                and not any(isinstance(v, (bool, dict)) for v in (d or {}).values()):
            # a metrics summary with a few words among its numbers (AllenNLP's metrics.json: `'training_duration':
            # '00:08:37'`): settings name no two losses or accuracies, measurements do
            self.hf_dict(first, "", nums)
            return True
        self.config_lines.update(range(first, ln + 1))
        self.b.skip("a settings dict printed over several lines", n)
        return False

    def note_under_header(self, ln: int, c: str) -> bool:
        """A sentence printed on the line right under a header read from a line of names, before any row
        (DeePMD's `If there is no available reference data, rmse_*_{val,trn} will print nan` pasted
        with its `#` lost): the table goes on below it. Its only numbers are spelled as words."""
        if self.header_at != ln - 1 or c.count(" ") < 4 or _SECTION.match(c) or any(ch.isdigit() for ch in c):
            return False
        self.header_at = ln
        return True

    def heading_split(self, ln: int) -> str:
        """`eval information (... on the test data ...) :` then `epoch  loss  precision  recall  f1` and its
        rows: a heading with no number, ended by a colon right above a table's header, that names a held-out
        split makes the table's rows that split's ("" when there is no such heading)."""
        if ln < 2 or ln - 1 > len(self.lines):
            return ""
        above = self.lines[ln - 2].strip()
        if not above.endswith(":") or printed.shape(printed.clean(above))[1]:
            return ""
        return "eval" if printed._split_of(above.lower().split()) == "eval" else ""

    def settings_heading(self, first: int) -> bool:
        """The line right above a dict printed over several lines names it the run's settings
        (`Starting training iteration 1, params:` then a JSON block of alpha, epochs, learning_rate)."""
        if first < 2 or first - 1 > len(self.lines):
            return False
        above = self.lines[first - 2].rstrip()
        return above[-1:] in (":", "=") and _SETTINGS_LEAD.search(above) is not None

    def under_config_heading(self, ln: int) -> bool:
        """The line above heads one of several configs a search tries (`Evaluating Config #3 [of 16]:`,
        `Trial 4/20:`, `Hyperparameters 2:`): the numbered config, then a colon."""
        if ln < 2 or ln - 1 > len(self.lines):
            return False
        above = self.lines[ln - 2].rstrip()
        return above[-1:] == ":" and _CONFIG_HEADING.search(above) is not None

    def close_cut_dict(self, ln: int) -> None:
        """A dict the end of the log cut before its `}` (a paste that stops mid-record): the entries
        it printed whole are a record when each is a number; else its lines were not metrics."""
        first, parts = self.dict_block
        self.dict_block = None
        entries = [p for p in parts[1:] if p]
        if parts and parts[0][:1] == "{" and len(parts[0]) > 1 and _JSON_NUMBER_ENTRY.match(parts[0][1:].strip()):
            entries = [parts[0][1:].strip()] + entries  # (`{'loss': 0.41,` : the brace opens the first entry's line)
            parts = ["{"] + parts
        if parts and parts[0] in ("{", "[{", "[ {") and entries \
                and all(_JSON_NUMBER_ENTRY.match(p) for p in entries):
            text = "{" + " ".join(entries).rstrip(",") + "}"
            if self.close_dict(first, ln, text, len(parts)):
                return
        else:
            self.b.skip("a dict printed over several lines that never closes", len(parts))

    def settings_pairs(self, ln: int, s: str) -> bool:
        """`Config: model=TextCNN, lr=0.001, label_smoothing=0.1, batch_size=32` (after a logger's prefix, if
        any): a settings word, a colon, then `name=value` pairs is the run's settings, never a record. True when
        the line was one (kept as settings and counted as skipped)."""
        bare = printed.clean(s)
        m = _SETTINGS_PAIRS_LEAD.match(bare)
        if m is None:
            return False
        found = settings.from_pairs(bare[m.end():])
        if len(found) < 2 or any(printed.names_loss_or_accuracy(str(k)) for k in found):
            return False  # (`params: loss=2.5, acc=0.8`: pairs that name a loss or a score are a record)
        self.config_lines.add(ln)
        self.b.skip("a line of settings")
        self.keep_settings(found)
        return True

    def keep_settings(self, found: dict) -> None:
        """Settings the log printed (a `Namespace(...)`, an `args: {...}` dict): the first value of each key
        is kept, the run's config as it started (meta `config`, read like a config file beside the log)."""
        for key, value in found.items():
            if len(self.settings) >= settings.MAX_KEYS:
                break
            self.settings.setdefault(key, value)

    def config_entry(self, s: str) -> bool:
        """True for an indented `KEY: value` line under a `SECTION:` line of a YAML config dump
        (`SOLVER:` / `  BASE_LR: 0.00035`). A header that names a split or results (`Validation:`,
        `Results:`) opens no config block: the lines under it may be metrics. A `key: value  # why`
        line is a config file's entry at any indent: a printed metric never carries a YAML comment."""
        if "#" in s and _YAML_COMMENTED.match(s):
            return True
        if "***" in s and _RUN_BANNER.match(s):  # `  ***** Running training *****`: the lines under it, as
            indent = len(s) - len(s.lstrip())  # indented as it or more, list the run's settings
            self.config_indent = max(indent - 1, 0)
            self.block = None  # (and the banner ends a block of results above it: `***** eval metrics *****`)
            self.block_rec = None
            return False
        if "raining" in s and _TRAINING_START_HEAD.match(s):  # `INFO: Starting training:` then, indented below
            self.config_indent = len(s) - len(s.lstrip())  # it, `Epochs: 5`, `Batch size: 4`: the run's plan
            return False
        m = _YAML_HEAD.match(s)
        if m:
            word = m.group(2).lower()
            if word in printed.SPLIT_EVAL or word in printed.SPLIT_TRAIN or word in _RESULT_WORDS \
                    or printed._key_role(word) != "value":  # (`Epoch:` heads values too)
                self.config_indent = None
            elif self.config_indent is None or len(m.group(1)) <= self.config_indent:
                self.config_indent = len(m.group(1))
            return False
        if self.config_indent is None or not s.strip():
            return False
        indent = len(s) - len(s.lstrip())
        if indent > self.config_indent:
            if " = " in s:
                m = _BANNER_SETTING.match(s)
                if m is not None:  # `  Gradient Accumulation steps = 4` under the Trainer's `***** Running training *****`
                    self.keep_settings({settings.banner_key(m.group(1)): settings.number(m.group(2))})
                    return True
            return _YAML_ENTRY.match(s) is not None
        self.config_indent = None
        return False

    def section_header(self, c: str, counter: bool = False) -> None:
        """`Validation at epoch 5`, `Evaluating...`: the lines after it whose shape training never
        printed are the evaluation's (a line of training's own shape ends it). When training has
        headings of its own (`Training epoch: 14` ... `Eval epoch: 14`), training's shapes are the
        ones printed under them (an excerpt may open in the middle of an evaluation)."""
        m = _SECTION.match(c) or _set_heading(c) or _EVALUATOR_HEADING.match(c)
        if m is None:
            return
        self.heading = "train" if m.group(1).lower().startswith("train") else "eval"
        self.section_held = False
        if self.heading == "train":
            self.train_counted = counter
        if self.heading == "eval" and self.block is not None and self.block_rec is not None \
                and self.block_rec.label != "eval":
            # (`--> STEP: 49/406` over `| > loss_disc: 2.60`, then `> EVALUATION` over `| > avg_loss_disc: 2.73`:
            # the heading ends the training lines' record; the lines under it are the evaluation's, at that step)
            self.block_rec = None
            self.block_label = "eval"
        # `It achieves the following results on the evaluation set:` (a model card): the list under it
        self.set_list = self.heading == "eval" and m.re.pattern == _SET_HEADING.pattern and c.rstrip().endswith(":")
        if m.group(1).lower().startswith("train"):
            self.section = None
            self.under_train = set()
            # `On the training set:` then `Accuracy: 0.95`, `On the test set:` then `Accuracy: 0.91`: the
            # scores of a finished model, set by set; the shapes under the training set's heading are no
            # line of training's own
            self.set_scores = m.re.pattern == _SET_HEADING.pattern
        elif counter and self.under_train:
            self.section = set(self.under_train)
            self.section_held = self.train_counted
        elif self.counted or (_OWN_HEADING.match(c) and not _YAML_HEAD.match(c)) or _EVALUATOR_HEADING.match(c):
            # once training printed a counted line to tell its lines apart; before that only a heading that
            # is no config key (`evaluate:dev`, `Validating`; a `TEST:` block of a config dump opens none)
            self.section = set(self.tpl_counts) - self.evaluated  # (the last evaluation's lines are not training's)
            if self.set_scores and m.re.pattern == _SET_HEADING.pattern:
                self.section -= self.under_train
            # before any record a heading cannot be told from a log that opens with one evaluation and
            # then trains: it holds for the lines that name no training loss (`recall: 0.0, hmean: 0.0`)
            self.section_loose = not self.tpl_counts

    def bar_done(self, ln: int, line: str) -> bool:
        """A finished progress bar whose description or postfix carries metrics is a record
        (`Train Epoch: 2 Loss: 4.5 Acc@1 14.6: 100%|███| 10010/10010 [59:42<00:00, loss=4.5]`):
        its last redraw is the summary of the pass. An unfinished redraw is a record through its
        postfix (`Steps: 1%| | 1/100 [00:09<16:00, 9.70s/it, loss=nan, lr=1e-6]`: tqdm's
        set_postfix, called with the step's values), or through a description that counts its own
        steps (`step 10/36 completed (loss: 0.52): 33%|██| 3/9`) or whose values change from one redraw
        to the next (set_description each batch); the bar's counter is the step only
        when nothing else gives one (or the batch of the epoch its description names). The counter
        itself is never a value."""
        m = _BAR_COUNT.search(line)
        lead = None
        if not m:
            # a bar_format that shows the count first and only the time spent in the brackets
            # (`[500/500]: 100%|####| [52:29, loss=1.55]`): the same count, the same postfix
            lead = _LEAD_BAR_COUNT.search(line) or _POSTFIX_IN_BAR.search(line)
            if lead is None:
                # a redraw cut right after its count (`acc: 0.51:   0%| | 1/42622`): the paste or the terminal
                # lost the time part; the count and the description are whole
                m = _CUT_BAR_COUNT.search(line)
                if m is None:
                    return False
            else:
                m = lead
        done = m.group(1) == m.group(2)
        desc = line[: (lead or printed._TQDM_BAR.search(line)).start()].rstrip(" :|-")
        eval_bar = desc[:1] in "VvEeTt" and printed._split_of(desc.split()[:1]) == "eval"
        if eval_bar:
            self.bar_validated = True  # (`Validation DataLoader 0: 40%|..`: an evaluation runs now)
        tail = line[m.end():]
        # the time part `[00:09<16:00, 9.70s/it, loss=nan]` opened inside the counter's match
        if lead is not None and lead.re.pattern == _POSTFIX_IN_BAR.pattern:  # (the time part closes the line, after the postfix)
            post = tail[: tail.rfind(" [")]
        elif "]" in tail:
            post = tail[: tail.rfind("]")]
        else:  # a redraw cut at the terminal's width (`..., loss=nan, top1=`): its last item may be cut short
            post = tail[: tail.rfind(",")] if "," in tail else ""
        # tqdm's set_postfix: `loss=0.23`; set_postfix_str with a name then its value: `Loss 6.2739`
        # (an item whose value is a tuple or a list, `recall_0.3=(0, 8) / 931`, is counts, not one reading)
        # (Lightning's bar shows its logger's version, `v_num=13`: which run this is, no reading of it)
        post = ", ".join(_DASHED_ITEM.sub(r"\1=", p) for p in _postfix_items(post)
                         if (("=" in p and not _LISTED_ITEM.search(p)) or _NAMED_ITEM.match(p) or _DASHED_ITEM.match(p))
                         and not p.lstrip().startswith("v_num="))
        heading = self.heading if done else ""
        if done:
            self.heading = ""  # the pass under the heading is over
        if not done and not (post and _HAS_DIGIT.search(post)) and not _HAS_DIGIT.search(desc):
            return False
        values: dict = {}
        rec = None
        axes = None  # a description that only counts (`Epoch 41/250: 100%|...| [..., DF=nan, G=nan]`)
        for part in (desc, post):
            if not part or not _HAS_DIGIT.search(part):
                continue
            tpl, nums = printed.shape(part)
            plan, tpl = self.plan_of(part, tpl)
            got = printed.apply(plan, nums)
            if got is not None and part is desc and plan.axes_only:
                axes = got
            if got is not None and part is desc and _split_counter(got):
                # `Train    21: 100%|███| 7673/7673`: the split's name, then the pass it counts (an epoch)
                axes = printed.Record({}, epoch=next(iter(got.values.values())), label=got.label)
                continue
            named = not done and part is desc and not plan.prose and _colon_named(tpl, nums, plan)
            if got is None or not (plan.is_record or named):
                continue
            if not done and part is desc and got.step is None:
                if not plan.known and not named:
                    continue  # (unnamed numbers before a running bar: a table row without its header)
                # `loss=0.52 lr=0.01: 33%|██| 3/9` (set_description each batch) is a record per redraw; a
                # description that did not change since the last redraw is a label (the last epoch's
                # score shown while the next one runs): neither redraw is a value. A value gone to nan or
                # inf stays so on every redraw of a diverged run: that sameness says nothing about staleness
                prev, self.bar_desc[tpl] = self.bar_desc.get(tpl), nums
                if prev == nums and not any(n[-3:].lower() in ("nan", "inf") for n in nums):
                    last = self.records[-1] if self.records else None
                    if type(last) is _Rec and last.template.startswith("<bar>") and last.line < ln \
                            and last.values == got.values:
                        self.records.pop()
                    continue
            values.update(got.values)
            rec = rec or got
        if rec is not None and values and not eval_bar:
            self.carry_forward(printed.shape(desc)[0], values)
            if "loss" in values and not done and not self.running_bar_loss and "v_num=" in tail:
                self.logged_beside_running(values)
        if rec is None or not values:
            return False
        if axes is not None and rec.step is None and rec.epoch is None:
            rec.step, rec.epoch = axes.step, axes.epoch  # the postfix's values belong to the pass it counts
        # the split named first (`Valid Epoch 3: 45%|..`) or last, after the pass's counter (`Epoch 3 - val: 100%|..`,
        # `Epoch 1/50 [Valid]: 100%|..`)
        label = rec.label or printed._split_of(desc.split()[:2]) or printed._split_of(desc.split()[-1:]) or heading
        passes = False  # the step is the bar's own count within a pass the reader numbers itself
        if label != "eval" and rec.step is None and (not done or float(m.group(2)) in self.bar_last):
            dplan = printed.parse(desc) if _HAS_DIGIT.search(desc) else None
            dr = printed.apply(dplan, printed.shape(desc)[1]) if dplan is not None else None
            n = float(m.group(1))
            total = float(m.group(2)) if m.group(2) else None  # (None: the total was cut off, `| 1024/`)
            if dr is not None and dr.epoch is not None:
                rec.epoch, rec.batch, rec.total = dr.epoch, n, total  # `Epoch 3: 45%|..| 450/1000`
            elif dr is not None and dr.step is not None:
                rec.step = dr.step
            elif total is not None and (self.epoch != self.epoch or n >= self.bar_last.get(total, math.inf)):
                # the bar's counter alone: each time it starts again is the next pass over the data. A bar
                # read so that goes on counting past a line that names an epoch (`steps: 18/96` ... `epoch is
                # incremented ... epoch: 4` ... `steps: 19/96`) counts the whole run: the epoch is no pass of it
                rec.epoch, rec.batch, rec.total, passes = self.bar_pass(total, n), n, total, True
            else:
                rec.step = n
        tpl = "<bar>" + printed.shape(desc)[0] + ("<running>" if passes or not done else "")
        if not passes:  # (a pass the reader counted is no epoch the log printed)
            if rec.epoch is None and self.epoch == self.epoch:
                rec.epoch = self.epoch
            if rec.epoch is not None:
                self.epoch = rec.epoch
            if rec.step is not None:
                self.step = rec.step
            self.tpl_counts[tpl] = self.tpl_counts.get(tpl, 0) + 1
        self.records.append(_Rec(ln, values, rec.step, rec.epoch, rec.batch, rec.total, label, "text", False, tpl))
        return True

    def logged_beside_running(self, values: dict) -> None:
        """Lightning (before 2.0) puts its own `loss=` on the training bar: the mean of the last batches'
        losses (a running window), beside what the module logs with `prog_bar=True` (`train_loss=`). A logged
        training loss that changes from one redraw of a running bar to the next is logged every step: it is
        the loss the user asked for, each batch's own, where the bar's `loss=` lags and smooths its spikes (a
        loss logged once an epoch, shown unchanged on every redraw, leaves the running one the step curve)."""
        for k, v in values.items():
            if k != "loss" and _TRAIN_LOSS_NAME.match(str(k)):
                before, self.bar_logged_loss[k] = self.bar_logged_loss.get(k), v
                if before is not None and before != v and before == before:
                    self.running_bar_loss = True

    def rename_running_bar_loss(self) -> None:
        """The bar's own running `loss=` is kept apart, as `running loss`, once the logged one is known to
        be the step's (see logged_beside_running)."""
        if not self.running_bar_loss:
            return
        for rec in self.records:
            if type(rec) is _Rec and rec.template.startswith("<bar>") and "loss" in rec.values \
                    and any(k != "loss" and _TRAIN_LOSS_NAME.match(str(k)) for k in rec.values):
                vals = dict(rec.values)
                rec.values.clear()
                rec.values.update({("running loss" if k == "loss" else k): v for k, v in vals.items()})

    def carry_forward(self, bar: str, values: dict) -> None:
        """Lightning's training bar shows every value logged with `prog_bar=True` on each redraw until it is
        logged again: a validation's `val_loss=0.52` (and an epoch's `train_loss_epoch=`) stays on the bar
        through the next epoch's batches. Such a value is one reading, made where it first appeared: a redraw
        that repeats it unchanged is no new point. It is new where it changed, or where an evaluation's own bar
        (`Validation DataLoader 0: ..`) ran since the last redraw (a validation that scored the same)."""
        last = self.bar_carry.setdefault(bar, {})
        fresh, self.bar_validated = self.bar_validated, False
        for k in list(values):
            carried = self.carried_keys.get(k)
            if carried is None:
                name = _aliases.table().resolve(str(k), "text").name
                carried = self.carried_keys[k] = name.startswith("eval/") or str(k).endswith("_epoch")
            if not carried:
                continue
            v, before = values[k], last.get(k)
            last[k] = v
            if not fresh and before is not None and (before == v or before != before and v != v):
                del values[k]

    def plan_of(self, c: str, tpl: str) -> tuple[printed.Plan, str]:
        """The plan of a cleaned line and the template its records go under. A template folds the
        digits inside words (`ckpt-100` and `ckpt-200` are one shape), so a plan whose keys hold
        digits (`Top1: 78.9%` and `Top5: 96.0%`) is kept under the line's literal shape instead:
        the second line must not borrow the first one's name."""
        plan = self.plans.get(tpl)
        if plan is None:
            plan = self.plans[tpl] = printed.parse(c)
            self.best_of.update(_best_tracked(plan))
        if "9" in tpl and any(any(ch.isdigit() for ch in sl.key) for sl in plan.slots):
            # a name's digits take a few values (`Top1`, `Top5`, `loss_2`); digits that take more than
            # DIGIT_NAMES_KEPT values are a counter inside a path or a word (`part-4096.parquet`), and a plan
            # per value would grow with the log: from there on the template's plan serves
            seen = self.digit_names.setdefault(tpl, set())
            if len(seen) > DIGIT_NAMES_KEPT:
                return plan, tpl
            literal, printed_as, named = tpl, None, False
            # the digits of a metric's own name come back (`Top5`), and those of any name whose digit runs
            # are short (`grad_l1_norm` beside `grad_l2_norm`: two names, not one); others stay folded
            for sl in plan.slots:
                if any(ch.isdigit() for ch in sl.key) and (printed.known_key(sl.key, loose=True)
                                                           or _SHORT_DIGITS_ONLY.match(sl.key)):
                    printed_as = printed_as or printed.skeleton(c)
                    folded = printed.fold_digits(sl.key)
                    m = re.search(re.escape(folded).replace("9", r"\d+"), printed_as)
                    if m is None:
                        continue
                    seen.add(m.group())
                    literal = literal.replace(folded, m.group(), 1)
                    named = True
            if named and literal == tpl:
                literal += "\x00"  # (a name whose digits are all 9s, `head9_loss`, spells the template: its own plan)
            if literal != tpl:
                own = self.plans.get(literal)
                if own is None:
                    own = self.plans[literal] = printed.parse(c)
                    self.best_of.update(_best_tracked(own))
                return own, literal
        return plan, tpl

    def bar_pass(self, total: float, n: float) -> float:
        """Which pass of the bar of this total a redraw at count n belongs to (0 first): a count
        lower than the last one starts the next pass."""
        last = self.bar_last.get(total)
        k = self.bar_passes.get(total, 0) + (1 if last is not None and n < last else 0)
        self.bar_passes[total], self.bar_last[total] = k, n
        return float(k)

    def struct_arrays(self, line: str) -> bool:
        """MATLAB's display of a struct of per-epoch histories (MatConvNet's `info`): a heading `info.train =`
        names the struct (its last part the split), then one field a line, `objective: [1.5653 1.1478 ...]`,
        an array wrapped over as many lines as it takes up to its `]`. Each array holds a value per epoch
        (its index). Fields that are no numbers (`speed: [1x20 double]`) are passed over; any other line
        ends the struct. True when the line belonged to it (it is read at the end, see `tidy`)."""
        if self.mat_field is not None:
            name, nums = self.mat_field
            body, closed = (line.split("]", 1)[0], True) if "]" in line else (line, False)
            nums.extend(body.replace(",", " ").split())
            if closed:
                self.mat_field = None
                self.mat_array_done(name, nums)
            return True
        m = _STRUCT_HEAD.match(line)
        if m is not None:
            self.mat_head = printed._split_of([m.group(1)]) or "train"
            return True
        if self.mat_head is None:
            return False
        if not line.strip():
            return True
        m = _STRUCT_FIELD.match(line)
        if m is None:
            self.mat_head = None
            return False
        body = m.group(2)
        if "]" in body:
            self.mat_array_done(m.group(1), body.split("]", 1)[0].replace(",", " ").split())
        else:
            self.mat_field = (m.group(1), body.replace(",", " ").split())
        return True

    def mat_array_done(self, name: str, nums: list[str]) -> None:
        if len(nums) < 2 or not all(_STRUCT_NUMBER.match(n) for n in nums):
            return  # (`[1x20 double]`: the display's summary of an array too wide to print, no values)
        if all(n.lstrip("+-").isdigit() for n in nums):
            return  # (`layers: [64 128 256]`: whole numbers alone are sizes or ids, no epoch's readings)
        self.mat_arrays.setdefault(self.mat_head or "train", {})[name] = [printed.to_number(n) for n in nums]

    def struct_records(self) -> None:
        """The arrays of MATLAB struct displays as records, one per epoch (an evaluated split's fields under
        its prefix, `val_objective`): only in a log that had no other record (the struct restates, at the
        end of a run, what its epoch lines said)."""
        rows: dict[int, dict[str, float]] = {}
        for label, fields in self.mat_arrays.items():
            pre = "val_" if label == "eval" else ""
            for k, v in fields.items():
                for e, x in enumerate(v):
                    rows.setdefault(e, {})[pre + k] = x
        for e in sorted(rows):
            self.records.append(_Rec(0, rows[e], None, float(e + 1), None, None, "", "text", False, "<struct>"))
        self.mat_arrays = {}

    def pair_list(self, ln: int, s: str) -> bool:
        """A metric's history printed as a list of (counter, value) pairs after its name (Flower's
        `losses_distributed [(1, 0.0758), (2, 0.0649), (3, 0.0707)]`): a record per pair, the counter
        its step. Only for a name that is a metric and counters that go up; True when the line was that.
        The pairs count only in a log with no other record (`tidy`)."""
        m = _COUNTED_PAIRS.search(s)
        if m is None or not (printed.known_key(m.group(1), loose=True)
                             or not _SCORE_PLURALS.isdisjoint(_aliases.tokens(m.group(1)))):
            return False  # (`milestones [(10, 0.1), (20, 0.01)]`: a schedule's settings, no metric)
        pairs = [(float(k), printed.to_number(v)) for k, v in _COUNTED_PAIR.findall(m.group(2))]
        if len(pairs) < 2 or any(b[0] <= a[0] for a, b in zip(pairs, pairs[1:])):
            return False
        for k, v in pairs:
            self.pair_records.append(_Rec(ln, {m.group(1): v}, k, None, None, None, "", "text", False))
        return True

    def history_dict(self, ln: int, d: dict) -> bool:
        """Keras's `print(history.history)`: `loss` and every other value a list of numbers, one per
        epoch, all of one length: a record per epoch. True when the dict was that. (cuda-convnet's
        `{'logprob': [cost, error]}` holds two numbers of one batch, and no `loss`.)"""
        cols = [v for v in d.values() if isinstance(v, list)]
        if "loss" not in d or len(cols) != len(d) or not cols or len({len(v) for v in cols}) != 1 or len(cols[0]) < 2 \
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for v in cols for x in v):
            return False
        for e in range(len(cols[0])):
            self.records.append(_Rec(ln, {str(k): float(v[e]) for k, v in d.items()}, None, float(e + 1), None,
                                     None, "", "keras", True))
        return True

    def hf_dict(self, ln: int, before: str, d: dict) -> None:
        if self.pending:
            self.settle_bars()
        step = NAN
        m = None
        for m in _TQDM.finditer(before):  # noqa: B007 - keeps the last match
            pass
        if _index_map(d):  # `{'dog': '0', 'rooster': '1', ...}`: class names and the indices they are given
            self.config_lines.add(ln)
            self.b.skip("a map of labels to their indices")
            return
        if len(d) == 1 and isinstance(next(iter(d.values())), dict) \
                and _SETTINGS_LEAD.search(str(next(iter(d))).strip()):
            # `{'config': {'lr': 0.002, 'aux_loss_coef': 100.0}}`: the run's settings under a settings word
            self.config_lines.add(ln)
            self.b.skip("a settings dict")
            self.keep_settings(settings.from_dict(d))
            return
        # `{'train': 40058, 'test': 12032}`: a split word with a whole number is the split's size
        d = {k: v for k, v in d.items() if not (type(v) is int and printed._split_of([str(k)]))}
        if d and all(str(k) in _SPACY_PARTS and type(v) is float for k, v in d.items()):
            d = {f"loss_{k}": v for k, v in d.items()}  # spaCy's `print(losses)`: each component's loss
        res_key = "results" if "results" in d else next(
            (k for k in d if type(k) is str and k[:7].lower() == "results" and type(d[k]) is dict), None)
        res = d.get(res_key) if res_key is not None else None
        if type(res) is dict and res and all(type(v) in (int, float) for v in res.values()) \
                and not any(printed.known_key(str(k), loose=True) for k in d if k != res_key):
            # a metric report whose numbers sit under `results` (StyleGAN's metric-*.jsonl lines:
            # `{"results": {"fid50k_full": 8.2e+51}, "metric": ..., "total_time": 506.3, ...}`, or a federated
            # server's `{'Role': 'Server #', 'Round': 1, 'Results_raw': {'test_acc': 0.11}}`); the rest is bookkeeping
            d = {**{_RESULT_COUNTERS[k]: d[k] for k in _RESULT_COUNTERS if k in d}, **res}
        elif d and all(type(v) is dict and v and all(type(x) in (int, float) for x in v.values())
                       for v in d.values()):
            # a report per output head, each its own small dict of scores (`{'logits': {'accuracy': 0.77},
            # 'probs': {'auc': 0.79}}`): each score keeps its head's name in front
            d = {f"{k}/{k2}": x for k, v in d.items() for k2, x in v.items()}
        if not any(printed.known_key(str(k), loose=True) for k in d) and not self.names_metric_before(before):
            self.b.skip("a dict with no metric in it")  # `{'train': 40058, 'test': 12032}`: sizes
            return
        is_eval = any(str(k).startswith(("eval_", "test_")) for k in d)
        if m is not None:
            n, total = int(m.group(1)), int(m.group(2))
            # a finished bar glued to a dict with no epoch and no loss (`100% 31/31 [00:08<00:00]{'mr': 1460.9,
            # 'mrr': 0.004}`, a metric function printing after its evaluation loop) counts evaluation batches:
            # the trainer's own dicts always carry their epoch, so that bar is no training counter
            if not is_eval and n == total and "epoch" not in d \
                    and not any("loss" in str(k).lower() for k in d):
                is_eval = True
            if not is_eval:
                self.train_total = total
                self.glued_bars = dict(self.bars)  # (a dict after it, no bar redrawn between, is a later log)
            if not is_eval or total == self.train_total:
                step = float(n)
        if step != step:
            total = None
            if self.train_total is not None and self.train_total in self.bars:
                total = self.train_total
            elif not is_eval and any(n < t for t, n in self.bars.items()):
                # the bar with the largest total is the training bar; a bar that already ran to its end (an
                # evaluation loop, a dataset `map`) is none: a training log line comes while its bar runs
                total = max(t for t, n in self.bars.items() if n < t)
                self.train_total = total
            if total is not None:
                n = self.bars[total]
                moved = self.bar_used.get(total) != n and self.glued_bars != self.bars
                if is_eval or moved or "train_runtime" in d:
                    step = float(n)
                    if not is_eval:
                        self.bar_used[total] = n
                else:  # a bar that did not move since the last dict (a finished `map` bar): not its step
                    self.stale_bar = True
        for key in ("Step", "step", "global_step"):  # (mlx-vlm's `{'Step': 10, 'Loss': '3.4376', ...}`)
            if key in d:
                f = _dict_number(d[key])
                if f is not None:
                    step = f
                    self.dict_step_key = self.dict_step_key or key
        done = d.get("global_step/max_steps")  # ms-swift: the step and its total as one string, `'5/100'`
        if step != step and type(done) is str and done.partition("/")[0].strip().isdigit():
            step = float(done.partition("/")[0])
        ep = _dict_number(d.get("epoch"))
        if ep is None:  # (`"epoch": "10/50"`, `"cur_epoch": "5/20"`: the epoch and how many there are)
            ep = _dict_count(d.get("epoch"))
            if ep is None:
                ep = _dict_count(d.get("cur_epoch"))
        batch = total_batches = None
        if step != step:  # PySlowFast's json_stats: the iteration, quoted, alone or with its total (`"iter":
            it = d.get("iter", d.get("cur_iter"))  # "90/159"`, `"cur_iter": "10"`); with its total, beside an
            f = _dict_count(it)  # epoch, it counts the batches of that epoch; beside an epoch without its total,
            tail = it.partition("/")[2] if type(it) is str else ""  # it may start again each epoch: the epoch
            if f is not None and ep is not None and tail:  # alone places the record
                batch, total_batches = f, float(tail)
            elif f is not None and ep is None:
                step = f
        lead = self.lead_values(before) if m is None and _HAS_DIGIT.search(before) else None
        if lead is not None:  # `Epoch 201 train_vae_loss 0.0397: {'recons_loss': ..., 'kl_loss': ...}`
            d = {**lead.values, **d}
            if ep is None and lead.epoch is not None:
                ep = lead.epoch
            if step != step and lead.step is not None:
                step = lead.step
        if ep is not None:
            self.epoch = ep
        if step == step:
            self.step = step
        # (a step's record may carry the runtime too, LLaMA-Factory's throughput logging: it still has the
        # step's loss and optimizer state, which the closing summary never prints)
        # (a dict that names its step, `{'Round': 0, 'Results_raw': {'train_loss': ...}}`, is that step's record)
        summary = ("train_runtime" in d and not _step_state(d)) or ("train_loss" in d and "loss" not in d
                                                                     and not is_eval and not _epoch_average(d)
                                                                     and "step" not in d and not _held_out_beside(d)
                                                                     and type(d.get("epoch")) is not int)
        vals = {k: v for k, v in d.items() if k not in ("epoch", "step", "Step", "global_step", "total_flos")}
        if done is not None:  # ms-swift 2.x's `acc` is the token accuracy its 3.x calls `token_acc`
            vals = {_aliases.SWIFT_ACC.get(k, k): v for k, v in vals.items()}
        if summary:
            for k, v in vals.items():
                f = to_float(v)
                if f is not None:
                    self.b.summary[str(k)] = f
            self.counts["hf_stdout"] = self.counts.get("hf_stdout", 0) + 1
            return
        # (`dev | avg_loss: 2.17 | {'rougeL': 19.8}`: a split named before the dict is the whole line's)
        label = lead.label if lead is not None else ""
        if not label and not before.strip() and self.heading_at == ln - 1:
            label = self.heading  # `Test scores` on the line above the dict: the dict is that split's
        elif not label and self.heading == "eval" and not self.records and _RESULTS_WORD.search(before) \
                and not _HAS_DIGIT.search(printed.clean(before)) \
                and not any(str(k).lower().startswith("train") for k in vals):
            # `***** Running evaluation *****`, its settings and bar, then `Results: {'exact': 0.33, 'f1': 7.1}`:
            # a log that so far only evaluated; the results dict it ends with is that evaluation's
            label = "eval"
        self.records.append(_Rec(ln, vals, step if step == step else None, ep, batch, total_batches, label, "hf_stdout",
                                 False))
        self.counts["hf_stdout"] = self.counts.get("hf_stdout", 0) + 1

    def coco_line(self, ln: int, s: str) -> bool:
        """One line of pycocotools' evaluation summary (`Average Precision  (AP) @[ IoU=0.50:0.95 |
        area=   all | maxDets=100 ] = 0.000`): one evaluation value, named as the COCO summary table names
        its columns, at the run's current counter. True when the line was that."""
        m = _COCO_SUMMARY.match(s)
        if m is None:
            return False
        kind, iou, area, dets, value = m.groups()
        if kind == "AP":
            name = "eval/map" + {"0.50:0.95": "", "0.50": "50", "0.5": "50", "0.75": "75"}.get(iou, "@" + iou)
            if area != "all":
                name += "_" + area
        else:  # recall: by how many detections an image may keep, or by object size
            name = f"eval/mar_{dets}" if area == "all" else f"eval/mar_{area}"
        ep = self.epoch if self.epoch == self.epoch else None
        step = self.step if self.step == self.step else None
        self.records.append(_Rec(ln, {name: to_float(value)}, step, ep, None, None, "eval", "text", False))
        self.tpl_counts["<coco>"] = self.tpl_counts.get("<coco>", 0) + 1
        return True

    def copypaste_line(self, ln: int, s: str) -> bool:
        """detectron2's `copypaste:` lines (printed after each evaluation, for pasting into a sheet): one
        lists the summary's names with commas (`copypaste: AP,AP50,AP75,APs,APm,APl`), the next their values
        in the same order. The values are one evaluation, named as the knowledge names that header."""
        m = _COPYPASTE.search(s)
        if m is None:
            return False
        cells = m.group(1).split(",")
        if not _NUM_CELL.match(cells[0]):
            self.pasted_names = cells
            return True
        if len(cells) != len(self.pasted_names):
            return False
        names = self.pasted_names
        joined = " ".join(names)
        for rx, columns in _aliases.table().headers:
            if rx.match(joined) and len(columns) == len(names):
                names = list(columns)
                break
        else:
            names = ["eval/" + n if not n.startswith("eval/") else n for n in names]
        self.pasted_names = []
        vals = {n: to_float(v) for n, v in zip(names, cells) if n != "-"}
        if self.pasted_before(vals):
            return True
        ep = self.epoch if self.epoch == self.epoch else None
        step = self.step if self.step == self.step else None
        self.records.append(_Rec(ln, vals, step, ep, None, None, "eval", "text", False))
        self.tpl_counts["<copypaste>"] = self.tpl_counts.get("<copypaste>", 0) + 1
        return True

    def kitti_line(self, ln: int, s: str) -> bool:
        """KITTI's object-detection evaluation, as its official evaluator and OpenPCDet/mmdet3d print it: a
        block head naming the class, the AP definition and the IoU each view is matched at (`Car AP@0.70, 0.70,
        0.70:`, `Pedestrian AP_R40@0.50, 0.25, 0.25:`), then one line per view with the easy, moderate and hard
        AP (`bbox AP:90.1, 88.2, 87.0`, `3d   AP:...`, `aos  AP:...`). Each view line is one evaluation record,
        its values named by class, view, AP definition, difficulty and IoU. True when the line was that."""
        m = _KITTI_HEAD.search(s)
        if m is not None:
            cls, kind, ious = m.groups()
            self.kitti_head = (cls, kind or "", [x.strip() for x in ious.split(",")])
            self.tpl_counts["<kitti>"] = self.tpl_counts.get("<kitti>", 0) + 1
            return True
        m = _KITTI_VIEW.match(s)
        if m is None:
            return False
        view, *cells = m.groups()
        view = view.lower()
        cls, kind, ious = self.kitti_head or ("", "", [])
        iou = ious[{"bbox": 0, "bev": 1, "3d": 2}.get(view, 0)] if len(ious) == 3 else ""
        # `eval/Car_3d_moderate_R40@0.70/map`: the AP of one class, view, difficulty and IoU, under the name of
        # the detection score (the orientation similarity, `aos`, under its own)
        where = (cls + "_" if cls else "") + ("" if view == "aos" else view + "_")
        metric = "aos" if view == "aos" else "map"
        vals = {f"eval/{where}{d}{kind}{'@' + iou if iou else ''}/{metric}": to_float(v)
                for d, v in zip(("easy", "moderate", "hard"), cells)}
        ep = self.epoch if self.epoch == self.epoch else None
        step = self.step if self.step == self.step else None
        self.records.append(_Rec(ln, vals, step, ep, None, None, "eval", "text", False))
        self.tpl_counts["<kitti>"] = self.tpl_counts.get("<kitti>", 0) + 1
        return True

    def pasted_before(self, vals: dict[str, float]) -> bool:
        """The copypaste values repeat the summary table detectron2 printed just before them (`|  AP  |
        AP50 |` with three decimals): the last record that holds the first name holds the same values."""
        first = next(iter(vals))
        for rec in reversed(self.records[-400:]):
            if first in rec.values:
                return all(abs(rec.values.get(k, math.inf) - v) <= 1e-3 * max(1.0, abs(v))
                           for k, v in vals.items() if v == v)
        return False

    def episode_sentence(self, ln: int, s: str) -> bool:
        """An RL episode told in words (`Train episode of length 1000 with return 13.9.`, `Episode has 151
        steps and return 6.1.`): the episode's return and length, at the run's current counter; an
        episode the line says was a test or an evaluation is the eval split's. True when it was that."""
        m = _EPISODE_SENTENCE.match(printed.clean(s))
        if m is None:
            return False
        split, length, value = m.groups()
        pre = "eval/" if split else ""
        ep = self.epoch if self.epoch == self.epoch else None
        step = self.step if self.step == self.step else None
        values = {pre + "episode_reward": to_float(value), pre + "episode_length": to_float(length)}
        self.records.append(_Rec(ln, values, step, ep, None, None, "eval" if split else "", "text", False))
        self.tpl_counts["<episode>"] = self.tpl_counts.get("<episode>", 0) + 1
        return True

    def trial_line(self, ln: int, s: str) -> bool | None:
        """A search trial's end as a tuner logs it (`Trial 7 finished with value: 0.93 and parameters: {...}.
        Best is trial 3 with value: 0.95.`): one row at the trial's number holding the objective it
        returned, unnamed (the user's own function); the parameters are the trial's settings and the best
        so far repeats an earlier row. A trial stopped early (`Trial 8 pruned.`) returned nothing. True when
        the line was a finished trial, False when a pruned one (skipped), None when neither."""
        m = _TRIAL_DONE.search(s)
        if m is None:
            if _TRIAL_PRUNED.search(s):
                self.b.skip("a trial stopped early by the search (no objective value)")
                return False
            return None
        values = {"trial_value": to_float(m.group(2))}
        self.records.append(_Rec(ln, values, float(m.group(1)), None, None, None, "", "text", False, "<trial>"))
        self.tpl_counts["<trial>"] = self.tpl_counts.get("<trial>", 0) + 1
        return True

    def results_banner(self, ln: int, s: str) -> bool:
        """`***** Eval results *****`: a banner that names results heads a block of one-value lines
        (`eval_accuracy = 0.1`, `loss = 2.37`), one record. True when the line was that."""
        c = printed.clean(s)
        if not (_BANNER.match(c) or c[:3] in _FILLS and _GLUED_BANNER.match(c)) or not _RESULTS_WORD.search(c):
            return False
        self.block = (ln, None, None, "<block>" + printed.shape(c)[0])
        self.block_rec = None
        self.block_counters = frozenset()
        # (`***** Eval results *****`, `***** test metrics *****`: the banner names the split its values measured)
        self.block_label = "eval" if _EVAL_BANNER_WORD.search(c) else ""
        return True

    def date_block(self, step: float | None, epoch: float | None) -> None:
        """A counter printed among a block's values (`global_step = 312` in TF's Eval results) is the
        block's own step: its record takes it and the block goes on."""
        old = self.block_rec
        new = old._replace(step=step, epoch=epoch)
        for i in range(len(self.records) - 1, -1, -1):
            if self.records[i] is old:
                self.records[i] = new
                break
        self.block_rec = new
        self.block = (self.block[0], step, epoch, self.block[3])

    def names_metric_before(self, before: str) -> bool:
        """The words before a dict name a metric of their own (`FDE: 3.58 {'stage_one_recall': 0.97}`):
        the line is a record even when none of the dict's keys is a metric's name."""
        if not before.strip() or not _HAS_DIGIT.search(before) or _TQDM.search(before):
            return False
        lead = self.lead_values(before)
        return lead is not None and any(printed.known_key(str(k), loose=True) for k in lead.values)

    def lead_values(self, before: str) -> printed.Record | None:
        """The named values printed on a line before its dict (`Epoch 201 train_vae_loss 0.0397:`): the
        dict holds the parts, the words before it the whole and the counter; None when they name none."""
        c = printed.clean(before).rstrip(" :=-|")
        if not c:
            return None
        tpl, nums = printed.shape(c)
        plan, tpl = self.plan_of(c, tpl)
        if not plan.is_record and not plan.axes_only:
            return None
        return printed.apply(plan, nums)

    def sb3_line(self, ln: int, line: str) -> bool:
        if line[:1] == "|" and ln <= 3 and not self.sb3_seen and self.sb3_rows is None and not self.records \
                and self.header is None and _SB3_MEMBER.match(line):
            # a paste that starts inside a table (its top border and group rows cut off): the rows up to
            # the first border are that table's tail, one record without a step counter
            self.sb3_rows = {}
            self.sb3_group = ""
            self.sb3_start = ln
            self.sb3_seen = True
        if _SB3_BORDER.match(line):
            self.sb3_seen = True
            if self.sb3_rows is None:
                self.sb3_rows = {}
                self.sb3_group = ""
                self.sb3_start = ln
            else:
                rows = self.sb3_rows
                self.sb3_rows = None
                if rows:
                    step = to_float(rows.get("time/total_timesteps", rows.get("total_timesteps")))
                    # (stable-baselines 2 prints its keys with no group: `| total_timesteps | 1166190 |`)
                    if step is not None:
                        self.step = step
                    cut = self.records[0] if len(self.records) == 1 and self.records[0].step is None \
                        and self.records[0].source == "sb3" else None
                    if cut is not None and step is not None:
                        # the table cut at its top had no group rows: its keys take the groups this one shows
                        groups = {k.rsplit("/", 1)[1]: k for k in rows if "/" in k}
                        cut.values.update({groups[k]: cut.values.pop(k) for k in list(cut.values) if k in groups})
                    self.records.append(_Rec(self.sb3_start, rows, step, None, None, None, "", "sb3", False))
                    self.counts["sb3_stdout"] = self.counts.get("sb3_stdout", 0) + 1
                else:  # a border that opens the next table right away
                    self.sb3_rows = {}
                    self.sb3_start = ln
            return True
        if self.sb3_rows is not None:
            m = _SB3_ROW.match(line)
            if not m:
                self.sb3_rows = None
                return False
            key, val = m.group(1), m.group(2)
            if key.endswith("/") and not val:
                self.sb3_group = key
            else:
                self.sb3_rows[self.sb3_group + key.strip()] = val
            return True
        return False


def _held_out_accuracy(values: dict) -> None:
    """One accuracy with no split word on a line that shows it was measured on held-out data: the line's
    only loss is the validation loss (`Epoch 3/100, Acc=0.8735, Val Loss=0.3865, lr=0.0100`: a training pass
    that printed its accuracy would print its loss too), or the line names its other accuracy for training
    (`Loss: 0.003 , Training acc: 99.9 , Natural accuracy: 94.2`). The bare accuracy's key gets the
    validation prefix, in place; a line with a named validation accuracy keeps its keys."""
    tab = _aliases.table()
    bare = None
    held_out_loss = train_loss = train_acc = False
    for k in values:
        r = tab.resolve(str(k), "text")
        if r.name == "eval/accuracy" or r.split != "train" and r.split != "eval":
            return
        if r.name == "eval/loss":
            held_out_loss = True
        elif r.name == "accuracy" and r.quality <= _aliases.NORMALISED:
            if bare is not None:
                return
            bare = k
        elif r.name == "accuracy" and "rain" in str(k).lower():
            train_acc = True
        elif r.split == "train" and printed.names_loss_or_accuracy(str(k)):
            train_loss = True  # (a training loss on the line: its bare accuracy is training's, unless named apart)
    if bare is not None and (train_acc or held_out_loss and not train_loss):
        items = list(values.items())
        values.clear()
        values.update((f"val_{k}" if k == bare else k, v) for k, v in items)


def _step_state(d: dict) -> bool:
    """A dict with a step's own loss beside its learning rate or gradient norm: one step's record."""
    return "loss" in d and any(k in d for k in ("learning_rate", "grad_norm", "lr"))


def _epoch_average(d: dict) -> bool:
    """An end-of-epoch record of a `train_`-prefixed dict (fairseq's `[train]` line: `train_loss`,
    `train_lr`, `train_gnorm`): it carries the optimizer's state at the epoch's end (a learning rate or
    a gradient norm), which a run's closing summary (`train_loss` with its runtime) never does."""
    return any(str(k) in ("train_lr", "train_gnorm", "train_grad_norm", "train_learning_rate") for k in d)


def _held_out_beside(d: dict) -> bool:
    """A `train_loss` dict that holds the held-out set's loss too (Raster Vision's and many hand-written
    loops' `metrics: {'epoch': 3, 'train_loss': 0.29, 'val_loss': 0.28, ...}`): one epoch's record,
    which a run's closing summary (`train_loss` with its runtime) never is."""
    return any(str(k).startswith(("val_", "valid_", "validation_", "dev_")) for k in d)


def _split_counter(got: printed.Record) -> bool:
    """A bar description of a split's name and one whole number (`Train    21`, `Valid 3`): the pass's
    counter, not a value of a metric named after the split."""
    if len(got.values) != 1 or got.step is not None or got.epoch is not None:
        return False
    (key, value), = got.values.items()
    return str(key).lower() in _SPLIT_ONLY and isinstance(value, (int, float)) and float(value).is_integer()


_SPLIT_ONLY = frozenset({"train", "training", "valid", "validation", "val", "eval", "evaluate", "evaluation", "test",
                         "testing"})


def _prints_loss_scale(kept: list) -> bool:
    """Whether the log has records of its own beside its overflow notices (fairseq's stats lines, apex's
    `Train iter 16 loss 49.3`, DeepSpeed-Chat's `epoch: 0|step: 3721|...`): a notice is then a point of its
    event but no row of its own (a skipped step is no step the log printed). A log made only of notices
    (a paste of DeepSpeed's or apex's overflow lines) has them as its rows."""
    return any(rec.source != _EVENT_POINT for rec, _ in kept)


# a bar's postfix item of words and then one number (`Loss 6.2739`, `Val Loss 44.78`), a rate never (`1.61 batches/s`)
_NAMED_ITEM = re.compile(r"^\s*[A-Za-z][A-Za-z_./@-]*(?: [A-Za-z][A-Za-z_./@-]*){0,3}:? [-+]?(?:\d*\.?\d+(?:e[-+]?\d+)?|nan|inf)%?\s*$",
                         re.I)

# a postfix item joined by a spaced dash (`dice_loss - 0.2156`: segmentation_models.pytorch's epoch runner
# writes its meters so); the dash is the separator, never the value's sign
_DASHED_ITEM = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_./@-]*) - (?=[-+]?(?:\d*\.?\d+(?:e[-+]?\d+)?|nan|inf)\s*$)", re.I)


_LISTED_ITEM = re.compile(r"=\s*[(\[]")


def _postfix_items(post: str) -> list[str]:
    """A bar's postfix cut at the commas between its items, not those inside an item's brackets
    (`shape=torch.Size([80, 3, 32, 32]), LR=0.00012` is two items)."""
    if "(" not in post and "[" not in post:
        return post.split(",")
    items, depth, start = [], 0, 0
    for i, ch in enumerate(post):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            items.append(post[start:i])
            start = i + 1
    items.append(post[start:])
    return items


_CURRENT = re.compile(r"(?i)^(?:current|curr|cur|latest|now)[\s_/-]+")


def _base_name(key: str) -> str:
    """A metric's name without `current`/`best` and spelling (`Current_norm_ED` -> `norm_ed`)."""
    key = printed._BEST.sub("", _CURRENT.sub("", key.strip()))
    return re.sub(r"[\s\-/]+", "_", key.strip(" _:")).lower()


_SPLIT_LEAD = re.compile(r"(?i)^(?:test|testing|val|valid|validation|eval|evaluation|dev)[\s_/]+")


def _unsplit(key: str) -> str:
    """A metric's base name without the split word the reader put before it (`test Acc@1` -> `acc@1`)."""
    return _base_name(_SPLIT_LEAD.sub("", key.strip()))


def _best_tracked(plan: printed.Plan) -> set[str]:
    """The metrics a line with no split of its own keeps the best value of (its `Best_<metric>` keys,
    which it never reads; on a `Validation - ... best_loss=` line the split is already said)."""
    if plan.label:
        return set()
    return {_base_name(sl.key) for sl in plan.slots if sl.key and printed._BEST.match(sl.key)}


def _snippet(text: str, at: int, width: int = 1000) -> str:
    """The line, or for a very long one the part around the match."""
    if len(text) <= width:
        return text
    start = max(0, at - width // 5)
    return ("..." if start else "") + text[start:start + width] + "..."


def _known(x: float) -> float | None:
    return None if x != x else x


def _nan_key(x):
    return "nan" if x != x else x


def _unlaunch(seg: str) -> str:
    """A redraw segment without the launcher's prefix (`[default0]:`, `[1,0]<stdout>:`, `0: `). A darknet
    iteration line (`1012: 3.25, 3.40 avg, 0.001 rate, ...`) opens with its iteration, which is no rank."""
    if seg[:1] not in "[0123456789" or ("avg" in seg and _DARKNET_ITER.match(seg)):
        return seg
    return _LAUNCHER_PREFIX.sub("", seg, count=1)


_KERAS_LOOKBACK = 4  # records printed after an epoch's last Keras bar that a later bar of that epoch looks past


def _second_timed_bar(last: dict, values: dict) -> bool:
    """Two finished Keras bars in one epoch, each closed with its time per step (`16s 24ms/step`, where
    a redraw still running shows `ETA: 0s`), their values apart: the second is not the first one redrawn
    but another call's bar (`evaluate()` over a set of the same batch count)."""
    timed = [k for k in values if str(k).startswith("step_time")]
    if not timed or not any(str(k).startswith("step_time") for k in last):
        return False
    shared = [k for k in values if k in last and not str(k).startswith("step_time")]
    return bool(shared) and any(values[k] != last[k] for k in shared)


def _second_handler(s: str, last: str, c: str) -> bool:
    """`s` and the line `last` before it print one message `c` under two logger prefixes of different
    shapes (absl's `I0816 18:35:17.464866 14584 run.py:926]` and `INFO:tensorflow:`): one message that two
    handlers wrote. Prefixes of one shape that differ only in their digits (a timestamp) are two messages."""
    at, last_at = s.find(c), last.find(c)
    if at <= 0 or last_at <= 0:
        return False
    return printed.fold_digits(s[:at]).strip() != printed.fold_digits(last[:last_at]).strip()


def _listed_records(line: str) -> list[str] | None:
    """A history printed whole as a list of records (`print(history)`: `[{'epoch': 1, 'loss': 2.31}, {'epoch': 2,
    ...}]`): each dict one record, as if printed on a line of its own; None unless every item is a dict of the same
    keys, at least two of them (a list of one dict, or of dicts of other keys, is some other value)."""
    obj = parse_pyvalue(line.strip())
    if not isinstance(obj, list) or len(obj) < 2 or not all(isinstance(d, dict) and d for d in obj):
        return None
    keys = set(obj[0])
    if any(set(d) != keys for d in obj[1:]):
        return None
    return [_BARE_QUOTED.sub(r"\1", repr(d)) for d in obj]


def _segments(line: str) -> list[str]:
    """The redraw segments of a line (`\\r`, backspaces), or the log lines pasted into it without
    their newlines; else the line itself."""
    if "Warning: " in line:
        m = _GLUED_WARNING.search(line)
        if m:  # Python's warnings go to stderr: one may land right after a bar's redraw, with no newline
            return _segments(line[: m.start()]) + [line[m.start():]]
    if "\r" in line or "\x08" in line:  # (each redraw may have a print glued after its bar: split that too)
        return [p for s in _SPLIT_REDRAWS.split(line) if s.strip() for p in _segments(s)]
    if line[:2] == "[{" and line.rstrip()[-2:] == "}]":
        recs = _listed_records(line)
        if recs:
            return recs
    if len(line) > 120 and len(_STAMP.findall(line)) > 1:
        return [s for s in _STAMP_SPLIT.split(line) if s.strip()]
    if line[:1].isalpha() and line.count(line[:5]) > 1:
        m = _REPEATED_LEAD_COUNTER.match(line)
        if m:  # `Epoch: 456 cost time: 3.1 Epoch: 456, Steps: 22 | ...`: two prints of one epoch, the newline lost
            head: list[str] = []
            while m and len(head) < _MAX_GLUED:  # (a loop, not recursion: a line may repeat one print thousands of times)
                head.append(line[: m.end()])
                line = line[m.end():]
                m = _REPEATED_LEAD_COUNTER.match(line) if line.count(line[:5]) > 1 else None
            return head + ([line] if m else _segments(line))
    if line[:1] == "[" and "][" in line:  # a record glued to the next one (its newline lost in a paste):
        head = []  # `[Epoch 11/11] [Batch 3861] [...][Epoch 11/11] [Batch 3871] [...]`
        capped = True
        while len(head) < _MAX_GLUED:
            m = _LEAD_COUNTER_TAG.match(line)
            cut = line.find("][" + m.group(1), m.end()) if m else -1
            if not (cut > 0 and _LEAD_COUNTER_TAG.match(line, cut + 1)):
                capped = False
                break
            head.append(line[: cut + 1])
            line = line[cut + 1:]
        if head:
            return head + ([line] if capped else _segments(line))
    if "<" in line and "]" in line:
        # tqdm writes its bar to stderr without a newline: a print that follows glues onto the bar
        # (`26%|███| 6399993/25000000 [16:22:11<48:18:45, 106.94it/s]INFO:agent:avg_r: 0.0000, ...`), and
        # a bar's caller may write its metrics after it (`... [53:05<2:23:32, 58.99s/ep] TrnAcc=0.045 ...`)
        cuts = [m.end() for m in _GLUED_AFTER_BAR.finditer(line)]
        if cuts:
            return [p for p in (line[a:b] for a, b in zip([0] + cuts, cuts + [len(line)])) if p.strip()]
    elif "]" in line and "/" in line and " [" in line:
        m = _GLUED_AFTER_OPEN_BAR.search(line)
        if m:  # a bar with no total (`1200it [20:40, 1.03s/it, loss=nan]`) and a message glued after it
            return [line[: m.end()]] + _segments(line[m.end():].lstrip())
    if "global step" in line:
        m = _GLUED_CHECKPOINT_NOTE.search(line)
        if m:  # Lightning's ModelCheckpoint note written into a bar's redraw (`..., v_num=Epoch 0, global step 51:
            # 'val_accuracy' reached 0.02 (best 0.02), saving model to ...`): the score it names is one more value
            # of the bar's own record (the step it counts is the optimizer's, not the bar's)
            bar = line[: m.start()].rstrip()
            if m.group(1):
                bar = f"{bar}, {m.group(1)}={m.group(2)}]"
            return _segments(bar)
    if "ETA:" in line:  # mmcv's bar (`[>>>>] 50/50, 163.1 task/s, elapsed: 0s, ETA:     0s`) with a log line glued on
        m = _MMCV_BAR_END.search(line)
        if m and m.end() < len(line):
            return [line[: m.end()], line[m.end():]]
        m = _KERAS_CALLBACK_GLUED.search(line)
        if m:  # a Keras callback's message right after a bar's last value (`loss: 44.41Batch 3: Invalid loss`)
            return [line[: m.start()], line[m.start():]]
    if ("ETA:" in line or "/step" in line) and "]" in line:
        m = _KERAS_VALUE_GLUED.match(line)
        if m:  # the model's own print right after the bar's last value (`- loss: 718.5894mf:[16]`)
            return [line[: m.end()], line[m.end():]]
    return [line]


# rsyslog (and the SageMaker / CloudWatch captures built on it) writes a control character as `#` and its
# three octal digits: `#015` for the carriage return of a progress-bar redraw, `#033` for the ESC of a colour
_SYSLOG_ESCAPE = re.compile(r"#(0[0-3][0-7])")
# a line opening on a counter (`Epoch: 456`) that names the same counter at the same value again further on:
# where the second one starts, a second message begins
_MAX_GLUED = 16  # prints split off one line at most (a paste loses a few newlines; the rest stays one segment)
_REPEATED_LEAD_COUNTER = re.compile(r"([A-Za-z]+):?\s?(\d+)\b[^\n]*?\s(?=\1:?\s?\2\b)")
# a bracketed counter opening a record (`[Epoch 11/11]`, `[Iter: 40]`)
_LEAD_COUNTER_TAG = re.compile(r"\[([A-Za-z]+)\s*:?\s*\d")
_MMCV_BAR_END = re.compile(r"^\[[>\s]*\]\s*\d+/\d+,.*?ETA:\s*\d+s(?=\S)")
# A `warnings.warn` message (`/path/to/mod.py:233: UserWarning: ...`) that starts after a closing
# bracket or bar character rather than at a line's start.
# A line as Python's warnings module writes it: the source file, its line, the warning's class, the message
_PY_WARNING_LINE = re.compile(r"^\s*(?:[A-Za-z]:)?[\w./\\~-]*\.py:\d+: [A-Z]\w*Warning: ")
_GLUED_WARNING = re.compile(r"(?:(?<=[\])|>])|(?<=[\])|>] ))(?=(?:[A-Za-z]:)?[\w./\\~-]*\.py:\d+: [A-Z]\w*Warning: )")
_KERAS_CALLBACK_GLUED = re.compile(r"(?<=\d)(?=(?:Batch|Epoch) \d+: [A-Z])")
# Keras draws its bar with no newline at the end, so whatever the model prints next starts right after the bar's
# last value: the value ends where a letter begins (not the `e` of an exponent)
_KERAS_VALUE_GLUED = re.compile(r"^\s*\d+/\d+\s+\[[=>.]*\].* - [A-Za-z][\w/]*: (?:[-+]?\d+\.\d+(?:[eE][-+]?\d+)?|nan|inf)"
                                r"(?=[A-DF-Za-df-z])")


# a tqdm time block (`[16:22:11<48:18:45, 106.94it/s]`) with text glued right after it
# (or a record the caller wraps in angle brackets, `...1.46it/s]<epoch:8, iter:7570, loss_d:0.70>`, or a
# logger's dated line: `...3.80it/s]2020-09-10 11:52:14,447 INFO: ...`; or a loop's `print(step, loss, sep=", ")`:
# `...12.12s/it]10, 2.2398`)
# (a bar cut short inside its time block, its `]` never written, by a logger's dated line: `[00:00<?, ?it/s[2024-11-29
# 07:06:01,711] [INFO] ...`)
# tqdm's bar over an iterable of unknown length (`Epoch 12: : 1200it [20:40,  1.03s/it, loss=nan, v_num=0]`: a count,
# the elapsed time and the rate, no `<`) with a message glued after it (`   Monitored metric val_loss = nan is not
# finite.`, Lightning's callbacks write while the bar is drawn): the message starts with a capitalized word
_GLUED_AFTER_OPEN_BAR = re.compile(r"(?<=\d)[A-Za-z]{1,8} \[\d[\d:]*,\s*[\d.?]+\s*[A-Za-z]*/[A-Za-z]+(?:,[^\[\]]{0,400})?\]"
                                   r"(?=\s*[A-Z][a-z])")
# Lightning's ModelCheckpoint, verbose: `Epoch 0, global step 51: 'val_accuracy' reached 0.02055 (best 0.02055), saving
# model to ...` (or `... was not in top 3`), found after other text on the line (a bar it interrupted)
_GLUED_CHECKPOINT_NOTE = re.compile(r"(?<=\S)Epoch \d+, global step \d+: (?:['\"]?([A-Za-z][\w/@.-]*)['\"]? reached "
                                    r"(" + _NUM + r")\b)?")
_GLUED_AFTER_BAR = re.compile(r"\[\d[\d:]*<[\d:?]*(?:,[^\[\]]{0,80})?\](?=[A-Za-z\[]|<[A-Za-z]\w*[=:]|\d{4}-\d\d-\d\d[ T]\d|\s*[A-Za-z][\w/@.-]*\s*[=:]\s*[-+.\d]"
                              r"|\d{1,9},\s?[-+]?(?:\d*\.\d|nan|inf))"
                              r"|\[\d[\d:]*<[\d:?]*,\s*[?\d.]+\s*[A-Za-z]*/[A-Za-z]+(?=\[\d{4}-\d\d-\d\d[ T]\d)")


_MAX_UNPLACED = 50_000  # lines kept for the end-of-read check below (a longer tail of them goes unchecked)
_MAX_LOOKED = 5_000  # of which at most this many are parsed again (about 40 us each)
_UNREAD_VALUE = "a record whose values read as no number"


def _placed_back(r: _TextReader, took: tuple) -> None:
    """A record or an event that closed on this line and opens on an earlier one (a block of a value a line,
    a logger's table, a dict printed over lines, a traceback): the lines between are its, not unplaced."""
    first = min([int(rec.line) for rec in r.records[took[0]:]]
                + [ev.line for ev in r.b.events[took[1]:] if ev.line is not None], default=0)
    while r.unplaced and first and r.unplaced[-1] >= first:
        r.unplaced.pop()


def _near_misses(r: _TextReader, lines, masks, b: RunBuilder) -> None:
    """Lines printed in the shape of the log's records save that a value in them is no number (`step 3
    loss abc`, `step 9 loss --`, `loss 1.2.3` among `step N loss X` lines): a record the run printed and
    triage could not read, counted as skipped rather than dropped unsaid. A line's shape must match a
    record shape seen twice or more word for word, but for the values it could not read."""
    if not r.unplaced:
        return
    shapes: dict[int, list[list[str]]] = {}
    for tpl, n in r.tpl_counts.items():
        if n >= 2 and "#" in tpl and tpl[:1] != "<":
            words = tpl.split()
            shapes.setdefault(len(words), []).append(words)
    # (a line in a record's shape holds that shape's longest word: lines without any are not looked at)
    anchors = set()
    for group in shapes.values():
        for words in group:
            literal = [w.strip(":=|,;[]()") for w in words if "#" not in w and "9" not in w]
            if literal:
                anchors.add(max(literal, key=len))
    anchors.discard("")
    found = 0
    looked = 0
    seen: dict[int, bool] = {}
    unread: dict[int, str] = {}  # a line shape's reason to be counted ("" for none)
    quiet_done: set[int] = set()
    for ln in r.unplaced:
        line = lines[ln - 1]
        if len(line) > 2000:
            continue
        if _CONTROL.search(line):
            b.skip("a line with control bytes")  # (binary debris in a text log: no text to read)
            continue
        mid = int(masks.ids[ln - 1]) if masks is not None else -1
        if mid in seen and mid >= 0:
            hit = seen[mid]
        elif not shapes or looked >= _MAX_LOOKED or not any(a in line for a in anchors):
            hit = False  # (no record shape to compare with, or no word of one in the line)
        else:
            looked += 1
            c = printed.clean(line.rstrip("\r"))
            tpl = printed.shape(c)[0]
            words = tpl.split()
            hit = tpl not in r.tpl_counts and any(_unread_values(words, rec) for rec in shapes.get(len(words), ()))
            seen[mid] = hit
        if hit:
            found += 1
            if r.trace is not None:
                r.trace.near.add(ln)
        else:
            why = unread.get(mid) if mid >= 0 else None
            if why is None:
                why = _unread_reason(line)
                if mid >= 0:
                    unread[mid] = why
            if why and masks is not None and mid in masks.quiet:
                if mid not in quiet_done:  # (a line of a quiet shape passed over stands for them all)
                    quiet_done.add(mid)
                    b.skip(why, int(np.count_nonzero(masks.ids == mid)))
            elif why:
                b.skip(why)
                if r.trace is not None:
                    r.trace.unread[ln] = why
    if found and masks is not None:
        # (a shape that changed nothing was passed over after its first line: its other lines are the same miss)
        for mid, hit in seen.items():
            if hit and mid in masks.quiet:
                found += int(np.count_nonzero(masks.ids == mid)) - 1
    b.skip(_UNREAD_VALUE, found)


# a line read as no record that still holds values (printed.value_pairs) is counted, by what it is
_UNREAD_STRUCTURE = "a model's printed structure (`(fc): Linear(in_features=512, ...)`)"
_UNREAD_BAR = "a progress bar's redraw or count (no record of its own)"
_UNREAD_NUMBERS = "a line of numbers with no names (no table header above it)"
_UNREAD_TIMING = "a timing (how long a pass took or has left, how fast it ran)"
_UNREAD_NAMED = "a line of values that reads as no record (a message, a setting, names that are no metric)"
_MODULE_REPR = re.compile(r"^\s*\(\w+\):\s*[A-Z]\w*[(<]|\b(?:in|out)_(?:features|channels)=")
_BEST_WORD = re.compile(r"(?i)\bbest\b")
_TIMING_NAME = re.compile(r"(?i)(?:time|speed|eta|elaps\w*|taken|cost|duration|secs?|seconds)$")
_BARRED = re.compile(r"\d%\s*\||\[[=>.\-#█━ ]{4,}\]|━{3,}|\bETA:")


def _pair_lead(raw: str, clean: str) -> str:
    """What a line prints before its cleaned text (timestamp, logger, indent), digits masked: the lead a block's
    lines share."""
    head = clean.lstrip()[:6]
    at = raw.find(head) if head else -1
    return _ANY_DIGIT.sub("#", raw[:at]) if at >= 0 else "?"


_ANY_DIGIT = re.compile(r"\d")
_PAIR_LINE = re.compile(r"(?i)\s*[^\s:=|{}\[\]'\"][^:=|{}]{0,80}[:=|]\s*[-+]?(?:\d|\.\d|nan|inf)")  # (`name: 0.5`)
_PAIR_SEP = re.compile(r"[:=|]\s*#")  # (`start 23 epoch` names no value: a pair is written with its separator)
# words that make an unknown pair's name a setting, a duration, a count or a resource, no score of the block beside it
_NO_SCORE_WORDS = printed._SETTING_WORDS | {"time", "elapsed", "taken", "duration", "secs", "seconds", "speed", "eta",
                                            "epoch", "epochs", "step", "steps", "iter", "iters", "iteration", "batch",
                                            "memory", "mem", "samples", "decay", "lr"}
_SETTING_CANON = {"learning_rate", "weight_decay"}  # known names of settings: no block of scores is anchored on them
_NAME_WORDS = re.compile(r"[A-Za-z]+")


def _scores_name(name: str) -> bool:
    """Whether an unknown pair's name may be a score (`Rsum`, `GPUUtil/0`, `false_negative`): no word of it names a
    setting, a duration, a counter or memory (`Time taken`, `num_negs`, `one epoch train`, `Peak Memory Usage`)."""
    return _NO_SCORE_WORDS.isdisjoint(w.lower() for w in _NAME_WORDS.findall(name))


def _unread_reason(line: str) -> str:
    """The reason a line the reader took nothing from is counted as skipped, or "" when it holds no value
    (prose, rules, headers, counters alone: `printed.holds_values`)."""
    if len(line) > 2000 or not any(ch.isdigit() for ch in line):
        return ""
    pairs = printed.value_pairs(line)
    if not any(not name or not printed.counter_name(name) for name, _ in pairs):
        return ""
    if _MODULE_REPR.search(line):
        return _UNREAD_STRUCTURE
    if _BARRED.search(line):
        return _UNREAD_BAR
    if not any(name for name, _ in pairs):
        return _UNREAD_NUMBERS
    if _BEST_WORD.search(line):
        return _BEST_SKIP
    if all(not name or printed.counter_name(name) or _TIMING_NAME.search(name) for name, _ in pairs):
        return _UNREAD_TIMING
    return _UNREAD_NAMED


_CONTROL = re.compile(r"[\x01-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f]")  # C0 controls other than tab, CR, LF and ESC


def _unread_values(words: list[str], rec: list[str]) -> bool:
    """Whether a line's template is a record's template with one value or more that is no number in place
    of the record's numbers (`loss abc` for `loss #`, `acc=--,` for `acc=#,`); every other word the same."""
    odd = 0
    for w, t in zip(words, rec):
        if w == t:
            continue
        i = t.find("#")
        if i < 0 or "#" in w:
            return False
        head, tail = t[:i], t[i + 1:]
        if "#" in tail or not (w.startswith(head) and w.endswith(tail)) or len(w) <= len(head) + len(tail):
            return False
        odd += 1
    return odd > 0


def _quiet_holds(masks: printed_bulk.Masks, r: _TextReader, path: str) -> bool:
    """Read a few passed-over lines of every quiet mask again, each by a fresh reader: all must change
    nothing, or the bulk path's reading is not to be trusted."""
    for mid in masks.quiet:
        for i in masks.samples(mid, printed_bulk._CHECKS):
            t = _TextReader(RunBuilder(path, "text", source="text"), r.dialect)
            if not t.read_quiet(i + 1, masks.lines[i]):
                return False
    return True



def _shared_lead(a: str, b: str) -> str:
    """The words two templates open with alike (`Node[9] Epoch[#]`)."""
    out = []
    for x, y in zip(a.split(" "), b.split(" ")):
        if x != y:
            break
        out.append(x)
    return " ".join(out)


_PASS_TIME_WORDS = frozenset({"time", "cost", "elapsed", "duration", "took", "epoch", "total", "sec", "secs",
                              "seconds", "s"})


@functools.lru_cache(maxsize=4096)
def _is_pass_time(key: str) -> bool:
    """A name that says how long something took (`Time cost`, `cost time`, `epoch_time`), nothing else."""
    words = set(re.split(r"[\W_]+", key.lower())) - {""}
    return bool(words) and words <= _PASS_TIME_WORDS and bool(words & {"time", "cost", "elapsed", "duration"})


DIGIT_NAMES_KEPT = 64  # names told apart by their digits per template (plan_of): 64 layers' `loss_layer12` fit
_SHORT_DIGITS_ONLY = re.compile(r"^(?:[^\d]|(?<!\d)\d{1,2}(?!\d))+$")  # `l1_norm`, `loss_2`; never `ckpt-100`
_COMMENT = re.compile(r"^#+\s")
# `# Epoch-time 355.16s Eval AUC 0.982286.`: an evaluation's result printed as a comment, the split word,
# the metric, its number (a config's comment says how to set a run, never what a held-out set scored).
_EVAL_RESULT = re.compile(r"(?i)\b(?:eval|val|valid|validation|test|dev)\s+([A-Za-z][\w@-]*)\s+[-+]?\d*\.\d+")
_OUTPUT_PAIR = re.compile(r"([A-Za-z][\w /.-]{0,40}?)\s*[:=]\s*[-+]?(?:\d|\.\d|nan\b|inf\b)", re.I)


def _commented_output(c: str) -> bool:
    """`# Epoch: 001/010 | Loss: 2.520`: a notebook's or a README's printed output, kept as comments
    under the code that printed it. One `#` (a Markdown heading has more), then a metric triage knows
    named with `:` or `=` before its number; a comment of a config (`# 1 epoch is 500`) names none."""
    if c[1:2] == "#":
        return False
    head = c[1:].lstrip()
    if head[:1] == "E" and _KERAS_EPOCH.match(head):
        return True  # `# Epoch 2/10` (`#    Epoch 2/10` indented): Keras's header over the commented-out progress line
    return any(printed.known_key(m.group(1).strip(), loose=True) for m in _OUTPUT_PAIR.finditer(c)) \
        or any(printed.known_key(m.group(1), loose=True) for m in _EVAL_RESULT.finditer(c))


# A checkpoint or early-stopping callback announcing a new best (Keras `val_loss improved from inf to
# 0.61`, `did not improve from 0.61`; the EarlyStopping helper many repositories copy prints
# `Validation loss decreased (inf --> 0.61)`): the value repeats the evaluation line before it.
# (`rank=0 time (ms) | forward: 652.41 | ... | step: 1172.13`: DeepSpeed's wall-clock breakdown, one line a rank)
# A report of the time each phase took per item, every value in milliseconds with its phase named after it
# (Ultralytics and YOLOv5 after validating: `Speed: 0.1ms preprocess, 15.9ms inference, 0.0ms loss, ...`)
_PHASE_TIMES = re.compile(r"^[A-Za-z][\w ]{0,20}:\s*\d[\d.]*\s*ms\s+[A-Za-z][\w-]*(?:,\s*\d[\d.]*\s*ms\s+[A-Za-z][\w-]*)+")
_TIMERS_LINE = re.compile(r"^(?:rank=\d+\s+)?time \((?:ms|s|sec|us)\)\s*\|\s*[A-Za-z_][\w-]*\s*:\s*\d")
_STOP_BEST = re.compile(r"\bMetric\s+(\S+)\s+improved\b.*?New best score:\s*(" + _NUM + r")")
# pycocotools' summary, one line per value: `Average Recall     (AR) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = -1.000`
# (under srun every line is headed by the rank, `0: `; pycocotools' own leading blank makes that `0:  Average`)
_COCO_SUMMARY = re.compile(r"^(?:\d{1,4}:)?\s*Average\s+(?:Precision|Recall)\s+\((AP|AR)\)\s*@\[\s*IoU\s*=\s*([\d.:]+)\s*\|"
                           r"\s*area\s*=\s*(\w+)\s*\|\s*maxDets\s*=\s*(\d+)\s*\]\s*=\s*"
                           # (a value in Markdown bold, `= **0.000**`, as a paste into an issue marks it)
                           r"(?:\*\*)?(-?\d+(?:\.\d+)?)(?:\*\*)?\s*$")
# detectron2's evaluation summary for pasting: `copypaste: AP,AP50,AP75` then `copypaste: 35.74,55.98,38.23`
# (the `Task: bbox` line between them names no values)
_COPYPASTE = re.compile(r"\bcopypaste:\s*((?:[A-Za-z][\w@.:-]*|-?\d+(?:\.\d+)?|nan)(?:,(?:[A-Za-z][\w@.:-]*|-?\d+(?:\.\d+)?|nan))+)\s*$")
# KITTI's evaluation blocks: `Car AP@0.70, 0.70, 0.70:` (or `AP_R40@`, `AP(Average Precision)@`, behind a logger's
# prefix), then `bbox AP:90.1, 88.2, 87.0` / `bev  AP:...` / `3d   AP:...` / `aos  AP:...` (easy, moderate, hard)
_KITTI_HEAD = re.compile(r"(?:^|\s)([A-Z][A-Za-z_-]{0,30})\s+AP(_R\d{1,2})?(?:\s*\(Average Precision\))?@"
                         r"(\d+(?:\.\d*)?(?:,\s*\d+(?:\.\d*)?){2}):?\s*$")
_KITTI_VIEW = re.compile(r"^\s*(?:INFO\s+)?(bbox|bev|3d|aos)\s+AP\s*:\s*(-?\d+(?:\.\d*)?|nan),\s*(-?\d+(?:\.\d*)?|nan),"
                         r"\s*(-?\d+(?:\.\d*)?|nan)\s*$", re.I)
_NUM_CELL = re.compile(r"^(?:-?\d+(?:\.\d+)?|nan)$")
# The label of a dict that restates the best evaluation so far (RT-DETR's `best_stat:`), not a new record
_BEST_DICT_LEAD = re.compile(r"(?i)best(?:[_ ](?:stat|stats|metrics?|results?|scores?))?\s*[:=]?\s*$")
# BasicSR's validation lines end with the best value so far and the iteration it was reached at
_BEST_AT_TAIL = re.compile(r"\s+Best:\s*" + _NUM + r"\s*@\s*[\d,]+\s*iter\w*\s*$")
_LOSS_DECREASED = re.compile(r"(?i)\b(?:validation|valid|val)[ _]loss\s+decreased\s*\(\s*" + _NUM + r"\s*-+>\s*("
                             + _NUM + r")\s*\)")
_BEST_NOTICE = re.compile(r"(?i)\b(?:improved\s+from\s+\S+\s+to|did\s+not\s+improve\s+from|"
                          r"(?:decreased|increased|improved)\s*\(\s*\S+\s*-+>|"
                          r"is\s+(?:improving|not\s+improving)\s+[\w/@.-]+\s*:\s*\S+\s*-+>|"  # `Model is improving acc: 44.6 --> 71.3.`
                          r"\bbest\s+[\w ]{1,20}?\s+was|"  # Tesseract's `2 Percent improvement time=-28864, best error was 7.024 @ 39917`
                          r"\bsav(?:e|ed|ing)\s+best|"  # `step 2000 , save best 10.22, ./best_ckpt`: a checkpoint kept for its score
                          # `Saving model at Epoch 3 with Validation Accuracy: 38.96%`: the score the checkpoint was kept for
                          r"\bsav(?:e|ed|ing)\s+(?:the\s+)?(?:best\s+)?(?:model|checkpoint)\b[^:=]{0,40}?\bwith\s+[A-Za-z][\w ]{0,40}?[:=])"
                          r"\s*[-+]?(?:\d|\.\d|inf\b|nan\b)")
# A config printed as a tree, each level drawn as `|-` (`  |-   |- batch_size<TAB>128`): one name and its setting
_TREE_SETTING = re.compile(r"^\s*(?:\|-\s*)+[A-Za-z_][\w.\-]*\s+\S+\s*$")
# The heading over an indented recap of the best row so far (DeepXDE's `Best model at step 0:` then
# `  train loss: 5.47e+03`): the lines under it repeat values a row already gave.
_BEST_RECAP = re.compile(r"(?i)^best\s+(?:model|result|checkpoint|score)s?\s+(?:at|@|in|of)\s+(?:step|epoch|iter|iteration)"
                         r"\s*\d+\s*:\s*$")
# LightGBM's CLI after each round: `3.704867 seconds elapsed, finished iteration 1` (older builds: `finished
# 998 iteration`): the wall clock since training began, a progress note beside the round's metric lines
_ELAPSED_NOTE = re.compile(r"(?i)\b\d+(?:\.\d+)?\s+seconds?\s+elapsed,\s+finished\s+(?:iterations?\s+\d+|\d+\s+iterations?)\s*$")
# A value the end of training repeats from the epoch it came from (GluonTS: `Final loss: -0.398 (occurred at
# epoch 4)`, after the best epoch's parameters are loaded back): that epoch's row already has it
_RECAP_AT = re.compile(r"(?i)\b(?:final|best)\s+[\w ]{1,40}?\s*[:=]\s*\S+\s*\(occurred at (?:epoch|step|iter|iteration)"
                       r"\s*\d+\)$")
# A total and the terms it adds up, under a split's name (the NGCF/KGAT family of recommenders prints
# `train==[total=bpr + kg + l2]`): the total is that split's loss.
_SUM_OF_TERMS = re.compile(r"\b([A-Za-z]\w*)\s*==\[\s*(" + _NUM + r")\s*=\s*" + _NUM + r"(?:\s*\+\s*" + _NUM + r")+\s*\]")
# Durations in square brackets, one or a sum of several (`[305.4s + 92.5s]`)
# A KPI line (`kpis`, the name, the value, tab-separated): the word `kpis` marks the line, it is no part of the name
_STEP_HEAD = re.compile(r"^Training Step:\s*(\d+)\s*\|")
_SAMPLES_SEEN = re.compile(r"\s*--\s*iter:\s*\d+\s*/\s*\d+\s*$")
_KPI_LINE = re.compile(r"^kpis\t+([A-Za-z_][\w./-]*)\t+(\S+)\s*$")
# A split word with the number of samples it was scored on glued to it in parentheses, then (maybe) the run's
# name, one blank-free token with digits in it, then the first `key=` or `key:` value of the split
_SPLIT_COUNT = re.compile(r"(?i)(?<![\w/])(val|valid|validation|eval|evaluation|test|testing|dev)\(\d+\)\s+"
                          r"(?:(?=[^\s=]*\d)[^\s=]{8,}\s+)?(?=[A-Za-z_][\w/.-]*\s*[=:]\s*[-+]?(?:\d|\.\d|nan|inf))")
_BRACKET_SECONDS = re.compile(r"\s*\[\s*\d+(?:\.\d+)?s(?:\s*\+\s*\d+(?:\.\d+)?s)*\s*\]")
# A learning-rate schedule announcing its next value: PyTorch schedulers with verbose on (`Adjusting
# learning rate of group 0 to 1.0000e-03.`), ReduceLROnPlateau (`reducing learning rate of group 0 to
# 1e-04`, Keras `ReduceLROnPlateau reducing learning rate to 0.0001.` and `LearningRateScheduler setting
# learning rate to 0.001.`), the Informer/Time-Series-Library
# loop (`Updating learning rate to 0.0001`), `lr set to 0.01`: the phrase is one name, `to` its `:`.
_LR_NOTICE = re.compile(
    r"(?i)(?:\b(?:(?:ReduceLROnPlateau|LearningRateScheduler)\s+)?(?:updating|update|adjusting|adjust|reducing|reduce|setting|set|decaying|decay|"
    r"decreasing|decrease|lowering|lower|changing|change|dropping|drop|annealing|anneal|new)\s+(?:the\s+)?)?"
    r"\b(?:learning[ _-]?rate|lr)"
    r"(?:\s+of\s+(?:param(?:eter)?\s+)?group\s+\d+)?"
    r"(?:\s+(?:is\s+|was\s+|has\s+been\s+)?(?:set|changed|updated|decayed|reduced|adjusted|lowered|dropped|annealed))?"
    r"\s+(?:to:?|->|-->|=>)\s+(?:(?:lr|learning[ _-]?rate)\s*[:=]\s*)?(?=[-+]?(?:\d|\.\d))"  # (`to lr: 1.1e-4`, `to:  0.01`)
    # (FuxiCTR: `Reduce learning rate on plateau: 0.000001`, the value it reduced the rate to)
    r"|\breduc(?:e|ed|ing)\s+(?:the\s+)?(?:learning[ _-]?rate|lr)\s+on\s+plateau\s*:\s*(?=[-+]?(?:\d|\.\d))")
# The first line of a dict printed over several lines (`{'atom_fea_len': 64,`)
_DICT_OPENS = re.compile(r"""^\s*\{\s*['"][^'"]+['"]\s*:\s*[^{}]*,\s*$""")
# The first line of a nested dict pretty-printed over several lines (pprint of a config tree, `{'actor': {'lr':
# 1e-06,`): it opens more braces than it closes, and its entries go on below it
_NESTED_DICT_OPENS = re.compile(r"""^\s*\{\s*['"][^'"]+['"]\s*:\s*\{.*,\s*$""")
_DICT_MAX_LINES = 400
# one entry of a long pprint'ed dict, or its end: ` 'word': 607,`, ` 12: 'word',`, ` ...}`
_DICT_TAIL_ENTRY = re.compile(r"""^\s*(?:(?:'[^']*'|"[^"]*"|-?\d+)\s*:\s*\S[^\n]*?,|[^{}]*\}+),?\s*$""")
_BRACE_ALONE = re.compile(r"^\s*(?:\[\s*|,\s*)?\{\s*$")  # `{` alone on its line: JSON printed with an indent
_NESTED_OPEN = re.compile(r"[\[{]\s*$")
_NESTED_DICT_ENTRY = re.compile(r"""^\s*['"][^'"]+['"]\s*:\s*\{\s*$""")  # `  "env_info": {` inside a printed object
_JSON_NUMBER_ENTRY = re.compile(r"""^['"][^'"]+['"]\s*:\s*(?:""" + _NUM + r"""|['"]?(?:nan|NaN|-?Infinity|-?inf)['"]?)\s*,?$""")


def _nested_dict_opens(s: str) -> bool:
    """The first line of a nested dict that pprint wrapped (`{'actor_rollout_ref': {'actor': {'clip_ratio': 0.2,`):
    its braces are still open at the line's end."""
    return s.count("{") > s.count("}") and _NESTED_DICT_OPENS.match(s) is not None


def _json_object(text: str) -> dict | None:
    """A JSON object's text as a dict, or None (no traceback on bad input)."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None

_NONFINITE_WORD = re.compile(r"^[-+]?(?:nan|inf|infinity)$", re.I)
# A value printed before its name (AutoGluon: `<TAB>-2.5882<TAB> = Validation score   (-root_mean_squared_error)`);
# a value with a unit (`0.42s = Training runtime`) is a duration and stays as it is
_VALUE_FIRST = re.compile(r"^(" + _NUM + r")\s*=\s*([A-Za-z][A-Za-z_ ]*?)\s*(?:\(\s*(-?)([A-Za-z_][\w@.\-]*)\s*\))?\s*$")
_VALUE_LEADS = frozenset("0123456789-+.")


# One item of a line that prints each value before its name (`10.5008 loss`, `8.83 GB used`, `18.70 s`)
_VALUE_THEN_NAME = re.compile(r"^\s*(" + _NUM + r")(?:\s*([A-Za-z%]{1,3}(?:/[A-Za-z]+)?)(?=\s|$))?\s*([A-Za-z][\w/]*(?:\s[A-Za-z][\w/]*)?)?\s*$")


def _values_named_after(line: str) -> str | None:
    """`10.5008 loss, 0.0000167 LR, 8.83 GB used, 18.70 s` as `loss: 10.5008, LR: 0.0000167, used: 8.83 GB,
    18.70 s`: a line whose every comma-separated item is a value, its unit, then its name, with a metric
    triage knows among the names."""
    items = line.split(",")
    if len(items) < 2:
        return None
    out, named = [], []
    for item in items:
        m = _VALUE_THEN_NAME.match(item)
        if m is None:
            return None
        value, unit, name = m.groups()
        if unit and not name and printed.unit_of(unit) == "":
            unit, name = None, unit  # (`0.5 acc`: a short name, not a unit)
        if name:
            named.append(name)
            out.append(f"{name}: {value}" + (f" {unit}" if unit else ""))
        else:
            out.append(f"{value} {unit}" if unit else value)
    if len(named) < 2 or not printed.known_key(named[0], loose=True):
        return None
    return ", ".join(out)


# One field of a line that prints each value before its name, its fields split by a separator (`2.31 train loss`,
# `3.0e-04 lr-AdamW`, `81.2% acc`, `2.31 Loss (train)`, `0.52s time`): a number, a unit or a percent sign, then a name
# of a word or two (letters first; a split in parentheses may close it)
_FIELD_VALUE_NAME = re.compile(r"^\s*(" + _NUM + r")(%|[A-Za-z]{1,3}(?=\s|$))?\s+([^\W\d_][\w/@.-]{0,40}"
                               r"(?:\s[^\W\d_][\w/@.-]{0,40})?(?:\s\([^\W\d_]\w{0,15}\))?)\s*$")
# The field that carries the line's counter before the first value (`Step 10: 2.31 loss`, `[12/300] 2.31 loss`)
_COUNTER_THEN_FIELD = re.compile(r"^(.{1,60}?(?::|\]|\)))\s+(" + _NUM + r"%?\s+[^\W\d_].{0,60})$")
_FIELD_SEPS = (" | ", "; ", ", ", " - ", "\t")


_NAME_THEN_VALUE = re.compile(r"^\s*([^\W\d_][\w./-]{0,40}(?:\s[^\W\d_][\w./-]{0,40})?)\s*[:=]?\s*" + _NUM + r"(?![\w.])")


def _metric_pair(item: str) -> bool:
    """The item opens with a metric's name, then its value (`loss 2.31`, `lr: 3e-4`), a counter's not (`step 10`)."""
    m = _NAME_THEN_VALUE.match(item)
    return m is not None and printed.known_key(m.group(1)) and m.group(1).lower() not in printed.COUNTER_NAMES \
        and _aliases.table().resolve(m.group(1), "text").name != "epoch"


def _fields_value_first(line: str, seen: bool) -> str | None:
    """`Step 10: 2.31 train loss | 3.0e-04 lr | 81.2% acc` as `Step 10: train loss: 2.31 | lr: 3.0e-04 | acc: 81.2%`:
    a line whose fields, split by one separator, each print a value and then its name, after the fields of its
    counter (one field is enough after a counter, two without one), a metric triage knows among their names. Once a
    line was so read (`seen`), a line of one such field alone is read too (the evaluation's `2.41 val loss`)."""
    for sep in _FIELD_SEPS:
        if sep not in line:
            continue
        items = line.split(sep)
        k, out, known = len(items), [], False
        while k > 0:
            m = _FIELD_VALUE_NAME.match(items[k - 1])
            if m is None:
                break
            value, unit, name = m.groups()
            first, _, rest = name.partition(" ")
            if unit and unit != "%" and printed.unit_of(unit) == "" and not (printed.unit_of(name) and unit in ("k", "K", "M")):
                break  # (`2.31 e loss`: no unit; `12.5k tok/s` a rate in thousands)
            if (not unit or unit in ("k", "K", "M")) and printed.unit_of(first):
                # (`4621.47 ms`, `113446 tok/s`, `10.2 GiB mem`: a unit first)
                if not rest:
                    out.append(items[k - 1].strip())
                    k -= 1
                    continue
                unit, name = first, rest
            known = known or printed.known_key(name, loose=True)
            out.append(f"{name}: {value}{unit or ''}" if unit == "%" else
                       f"{name}: {value} {unit}" if unit else f"{name}: {value}")
            k -= 1
        if k == len(items) or not known:
            continue
        head = items[:k]
        if head:  # (the counter glued to the first value: `Step 10: 2.31 loss`)
            m = _COUNTER_THEN_FIELD.match(head[-1])
            f = _FIELD_VALUE_NAME.match(m.group(2)) if m else None
            if f is not None and not (f.group(2) and f.group(2) != "%"):
                head[-1] = m.group(1)
                out.append(f"{f.group(3)}: {f.group(1)}{f.group(2) or ''}")
        if not head and len(out) < 2:
            continue
        if any(_FIELD_VALUE_NAME.match(h) or _metric_pair(h) for h in head):
            # (a field before the counter that reads as one, or a metric's own `name value` before: the order
            # is the usual one, a value with its unit after it, `| 30.8% bf16 MFU`, is no name of its own)
            continue
        return sep.join(head + out[::-1])
    if seen:  # (a line of one field, once the log was seen to print so: `2.41 val loss`, `Step 5: 2.41 val loss`)
        m = _COUNTER_THEN_FIELD.match(line)
        f = _FIELD_VALUE_NAME.match(m.group(2) if m else line)
        if f is not None and not (f.group(2) and f.group(2) != "%") and printed.known_key(f.group(3), loose=True):
            return (m.group(1) + " " if m else "") + f"{f.group(3)}: {f.group(1)}{f.group(2) or ''}"
    return None


def _timings_only(values: dict) -> bool:
    """Every value is how long something took (`step_time`, `batch_cost`, `reader cost`, `data_time`)."""
    tab = _aliases.table()
    for k in values:
        name = tab.resolve(str(k), "text").name
        if name not in ("step_time", "data_time") and not name.lower().endswith(("_cost", "_time")):
            return False
    return bool(values)


def _value_first(line: str) -> str | None:
    """`0.4825 = Validation score (roc_auc)` as `Validation roc_auc: 0.4825`: the word `score` only
    says that the name in parentheses is what was scored. A name written with a minus
    (`-root_mean_squared_error`, AutoGluon's higher-is-better form of an error) holds the value negated."""
    m = _VALUE_FIRST.match(line)
    if not m:
        return None
    value, name, minus, metric = m.groups()
    if metric:
        name = re.sub(r"(?i)\s*\bscore\b", "", name).strip()
        name = f"{name} {metric}".strip()
        if minus:
            value = value[1:] if value.startswith("-") else "-" + value.lstrip("+")
    return f"{name}: {value}"


# A value kept per policy as a list of (policy id, value) pairs, the value a string (Sample Factory's
# `Avg episode reward: [(0, '-1.416')]`): with one policy, the value is the metric's
# a learning rate printed once per parameter group (DeepSpeed's `lr=[3.2e-08, 3.2e-08]`): when every group has the
# same rate, that rate is the run's
_GROUP_RATES = re.compile(r"(?<![\w.])(lr|learning_rate)(\s*[=:]\s*)\[\s*(" + _NUM + r")(?:\s*,\s*\3)+\s*\]")
# a run of `>` between the heading and the values (`***** Evaluation original ***** >>>> meanIOU: 73.50`):
# a separator, as a colon would be (never at the line's start, where `>>>` is a Python prompt)
_ARROW_RUN = re.compile(r"(?<=[\w*\]])\s+>{3,}\s+")
# The window of a running statistic in parentheses between its name and its value (`Avg Reward (100): 1.00`,
# `Average Reward (last 100): 21.65`, `mean score (over 10 episodes): 3.1`): how many points the mean takes, part
# of the name, never the value
_WINDOW_PAREN = re.compile(r"(?i)(?<=[A-Za-z])\s?\((last |past |over |over the last |over last |window |of last |)\d+"
                           r"(?: ?(?:episodes?|eps?|games?|steps?|iters?|iterations?|batches|runs?|rounds?|epochs?|updates?))?\)"
                           r"(?=\s*[:=]\s*[-+]?\.?\d)")
_AVERAGED_NAME = re.compile(r"(?i)\b(?:avg|average|mean|moving|running|rolling|smoothed?)\b[\w ]{0,30}$")


def _unwindowed(s: str) -> str:
    """The line with each window of a running statistic taken out of its name (`Avg Reward (100): 1.00` as
    `Avg Reward: 1.00`): a bare count in parentheses only after a name that says it is a mean; a count with
    `last`, `past`, `over` or `window` after any name."""
    def cut(m: re.Match) -> str:
        if m.group(1) or _AVERAGED_NAME.search(s, max(0, m.start() - 40), m.start()):
            return ""
        return m.group(0)
    return _WINDOW_PAREN.sub(cut, s)


_ONE_POLICY = re.compile(r"\[\(\d+,\s*'(" + _NUM + r")'\)\]")


# Named values printed as a list of (name, value) pairs (`statistics:[('average_q', 0.5), ('n_updates', 0)]`,
# pfrl's train_agent): the dict they would be, with the names as its keys
_PAIR_ITEM = r"""\(\s*['"][A-Za-z_][\w./ -]{0,60}['"]\s*,\s*(?:""" + _NUM + r"""|nan|-?inf)\s*\)"""
_PAIR_LIST = re.compile(r"\[\s*" + _PAIR_ITEM + r"(?:\s*,\s*" + _PAIR_ITEM + r")*\s*\]")


def _inline_dict_pairs(m: re.Match) -> str:
    """`grad_norm={'a': 1.5, 'b': 0.0}` as `grad_norm/a=1.5 grad_norm/b=0.0`."""
    name = m.group(1)
    return " ".join(f"{name}/{k}={v}" for k, v in _INLINE_ITEM.findall(m.group(2)))


def _pairs_as_dict(m: re.Match) -> str:
    try:
        items = _literal(_BARE_NONFINITE.sub(lambda x: f"'{x.group(1)}{x.group(2)}'", m.group(0)))
    except (ValueError, SyntaxError):
        return m.group(0)
    return "{" + ", ".join(f"{k!r}: {v}" for k, v in items) + "}"


def _unquote(seg: str) -> str:
    """A line of a paste wrapped in Markdown backticks: the one backtick that opens or closes the
    quote (a one-line quote, or the first and last lines of a quote over several) is not the log's."""
    body = seg.strip()
    if body.count("`") == 1 and (body[0] == "`" or body[-1] == "`"):
        return body.strip("`")
    if body.count("`") == 2 and body[0] == "`" and body[-1] == "`" and len(body) > 2:
        return body[1:-1]
    if "|" in seg:  # `| MRR | `0.0409` | `0.1480` |`: a Markdown table whose numbers are set as inline code
        return _CODE_NUMBER.sub(r"\1", seg)
    return seg


_CODE_NUMBER = re.compile(r"`\s*(" + _NUM + r")\s*`")


# The repr of a settings object: argparse's `Namespace(...)`, `TrainingArguments(...)`, `ModelConfig(...)`
# The name a settings dict is printed under (`config: {...}`, `hparams = {...}`, `Training args: {...}`); an
# optimizer's or a schedule's config is one too (Keras model cards: `- optimizer: {'name': 'Adam', 'learning_rate': 5e-05}`)
# the words that name a run's settings (`config:`, `args =`, `hyper-parameters -`)
_SETTINGS_NAMES = (r"config|configs|configuration|args|arguments|hparams|hyperparameters|hyper-parameters|params|"
                   r"parameters|settings|options|opts|cfg|kwargs")
_SETTINGS_LEAD = re.compile(r"(?i)(?:\b(?:" + _SETTINGS_NAMES + r"|"
                            r"optimizer|optimiser|optim|scheduler|lr_scheduler)"
                            r"|(?:参数|配置|设置|超参数?)(?:配置|设置)?)\s*[:=]?\s*$")  # (and in Chinese: `参数配置:`)
# a settings file's name before the dict read from it (`args1.json defaultdict(<class 'str'>, {...})`, `config.yaml:`)
_SETTINGS_FILE_LEAD = re.compile(r"(?i)\b(?:config|configs|configuration|args|arguments|hparams|hyperparameters|params|"
                                 r"parameters|settings|options|opts|cfg)[\w-]*\.(?:json|ya?ml|toml)\s*[:=]?\s*"
                                 r"(?:(?:defaultdict|OrderedDict|dict)\((?:<class '\w+'>,\s*)?)?$")
# Keys a script's command-line arguments hold and a metric record never does alone
_ARGUMENT_KEYS = frozenset({"batch_size", "seed", "epochs", "num_epochs", "n_epochs", "lr", "learning_rate", "data_path",
                            "save_dir", "output_dir", "img_size", "image_size", "weight_decay", "num_workers"})


# An object's repr inside a printed dict: `<class 'pkg.Relu'>`, `<function relu at 0x7f..>`, `<object at 0x..>`
_OBJECT_REPR = re.compile(r":\s*<(?:class|function|built-in function|enum|module)\b|:\s*<[\w.]+ object at 0x")
_DICT_KEY = re.compile(r"['\"]([^'\"]+)['\"]\s*:")


# The heading over one config of a search, numbered (`Evaluating Config #3 [of 16]:`, `Trial 4/20:`)
_CONFIG_HEADING = re.compile(r"(?i)\b(?:config(?:uration)?|hyper-?param(?:eter)?s|param(?:eter)?s|settings?|trial|"
                             r"combination)\s*#?\s*\d+\s*(?:(?:/|of)\s*\d+|\[\s*of\s+\d+\s*\])?\s*:$")


def _held_objects(text: str) -> bool:
    """A printed dict whose values include an object's repr (a class, a function) and whose keys name no
    loss or accuracy: what the run is made of (its settings), not what it measured."""
    if _OBJECT_REPR.search(text) is None:
        return False
    return not any(printed.names_loss_or_accuracy(k) for k in _DICT_KEY.findall(text))


def _arguments_dict(d: dict) -> bool:
    """`{'batch_size': 2, 'data_path': './data', 'epochs': 300, 'lr': 0.0001, 'seed': 2988}` printed with no
    name before it (`print(vars(args))`): several argument keys, a text or yes/no value among them, and no
    key naming a loss or an accuracy: the run's settings, not a record."""
    if len(d) < 4 or sum(1 for k in d if str(k).lower() in _ARGUMENT_KEYS) < 3:
        return False
    if not any(type(v) in (str, bool) for v in d.values()):
        return False
    return not any(printed.names_loss_or_accuracy(str(k)) for k in d)


# the entry function's call logged with its keyword arguments (`main(rmq_host=..., epochs=4, batch_size=8)`)
_TRAIN_CALL = re.compile(r"^\s*(?:>>>\s*)?(?:[A-Za-z_]\w*\s*=\s*)?[A-Za-z_][\w.]*\.(?:train|fit)\((?:[^()=]*,\s*)?\w+\s*=")
_MAIN_CALL = re.compile(r"(?:^|\s)main\(\w+=[^,()]*,\s*\w+=")
# A fitted estimator's repr (`retrained model: LGBMClassifier(colsample_bytree=0.64, learning_rate=1.0,`,
# scikit-learn's `RandomForestRegressor(max_depth=8)`): the hyperparameters it was built with
_ESTIMATOR_REPR = re.compile(r"\b[A-Z]\w*(?:Classifier|Regressor)\(\w+=")
# a line of settings as `name=value` pairs after a settings word and a colon (`Config: lr=0.001, batch_size=32`,
# `hyperparameters - lr=3e-4 wd=0.01`)
_SETTINGS_WORD = re.compile(r"(?i)(?:" + _SETTINGS_NAMES + r")\s*[:\-]")  # (its lead, looked for anywhere: a cheap first test)
_SETTINGS_PAIRS_LEAD = re.compile(r"(?i)^\s*(?:" + _SETTINGS_NAMES + r")\s*[:\-]\s*(?=[A-Za-z_][\w.\-]{0,80}\s*=[^=])")
_SETTINGS_REPR = re.compile(r"^\s*`?(?:Namespace|[A-Z]\w*(?:Config|Arguments|Args|Params|Options|Settings))\(\w+=")
# A YAML mapping key that opens a block (`SOLVER:`, `  TRANS:`) and an entry of one (`  BASE_LR: 0.00035`).
_OPT_GROUP = re.compile(r"^Parameter Group \d+\s*$")  # torch.optim.Optimizer.__repr__'s group heading
# A heading announcing training, ending in a colon (after a logger's level, if any): the indented
# `Key: value` lines under it are the run's settings
_TRAINING_START_HEAD = re.compile(r"^\s*(?:[A-Z]+:(?:[\w.]+:)?\s*)?(?:Starting|Start|Begin(?:ning)?)\s+training"
                                  r"(?:\s+with)?\s*:\s*$", re.I)
_YAML_HEAD = re.compile(r"^(\s*)([A-Za-z_][\w.\-/]*):\s*$")
_YAML_COMMENTED = re.compile(r"^\s*[A-Za-z_][\w.\-]*:\s*[^\s#]+\s+#(?:\s|$)")  # `lr0: 0.01  # initial learning rate`
# The banner over the settings a trainer lists before it starts (HF Trainer, diffusers and Dreambooth scripts)
_RUN_BANNER = re.compile(r"^\s*\*{3,}\s*Running\s+(?:training|evaluation|prediction)\s*\*{3,}\s*$", re.I)
_YAML_ENTRY = re.compile(r"^\s+[A-Za-z_][\w.\-/ ]*:\s*\S")
# a setting of the Trainer's run banner: `  Instantaneous batch size per device = 8`, `  Total train batch size (w.
# parallel, distributed & accumulation) = 32`, `  Num examples = 1,000`
_BANNER_SETTING = re.compile(r"^\s+([A-Z][A-Za-z ]{0,60}?[a-z])(?:\s*\([^()]{0,80}\))?\s+=\s+(\d[\d,]{0,20}(?:\.\d+)?)\s*$")
_RESULT_WORDS = {"result", "results", "metric", "metrics", "summary", "scores", "score", "stats", "statistics"}
# A line cut in two by a terminal or a paste: the next line opens with the separator of the key this one
# ends with (`...; xent: 12.71; lr` then `: 1.00000; 16410/16179 tok/s;`).
# Or inside a number: `...; lr: 1` then `.00000; 16639/16627 tok/s;`.
_WRAP_TAIL = re.compile(r"^\s*[:=]\s*[-+]?(?:\d|\.\d|nan\b|inf\b)", re.I)
_WRAP_HEAD = re.compile(r"\d.*[A-Za-z_]\s*$")
_WRAP_IN_NUMBER = (re.compile(r"\d.*[:=]\s*[-+]?\d+$"), re.compile(r"^\.\d+(?:[eE][-+]?\d+)?[;,|\s]"))
# (`... time: 1.067, memory: 3818,` then ` loss_cls: 0.1310, acc: 97.4199, loss: 0.6745`: a record wrapped after
# a pair's comma; the next line has no logger prefix of its own and opens with the following pairs)
_WRAP_AFTER_PAIR = (re.compile(r"[A-Za-z_]\w*\s*[:=]\s*[-+]?(?:\d[\d.]*(?:[eE][-+]?\d+)?|nan|inf),$", re.I),
                    re.compile(r"^[ \t]+[A-Za-z_][\w/.-]*\s*[:=]\s*[-+]?(?:\d|\.\d|nan\b|inf\b)"
                               r"[^,]*,\s*[A-Za-z_][\w/.-]*\s*[:=]", re.I))

# (` step210    image_name:b'x.jpg' |` then an indented `rpn_loc_loss:0.0178 |  rpn_cla_loss:1.3777 |` and more such
# lines: a record laid out as a block; the next line has no prefix of its own and opens with a `key:value` pair)
# A Megatron-style iteration record's head (`iteration 5/50 |`, maybe behind a rank tag `[default7]:`)
_ITERATION_HEAD = re.compile(r"^\s*(?:\[[\w .:-]{1,40}\]:?\s*)?iteration\s+\d+\s*/\s*\d+\s*\|", re.I)
# A `name: number` pair, the name maybe of several words, opening a line (`learning rate: 1.35E-04 |`)
_WRAP_BAR_PAIR = re.compile(r"^[A-Za-z][\w ()/.-]{0,50}?:\s*[-+]?(?:\d|\.\d|nan\b|inf\b)", re.I)
_WRAP_AFTER_BAR = re.compile(r"^[ \t]+[A-Za-z_][\w/.-]*\s*[:=]\s*[-+]?(?:\d|\.\d|nan\b|inf\b)[^|]*\|", re.I)


# (`30/30 [===] - 18s - loss: 7.97 - acc: 0.50 - val_loss: ` then `7.97 - val_acc: 0.50`: a record cut after a key's
# colon, its value opening the next line; the line before holds a pair already, the next goes on with pairs or ends)
_WRAP_AFTER_KEY = (re.compile(r"[A-Za-z_]\w*\s*[:=]\s*[-+]?(?:\d|\.\d|nan\b|inf\b).*[A-Za-z_]\w*\s*[:=]\s*$", re.I),
                   re.compile(r"^[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+|nan|inf)\s*(?:$|[-,;|]\s*[A-Za-z_][\w/.]*\s*[:=])",
                              re.I))


def _stats_columns(line: str, rec: printed.Record) -> bool:
    """A line of several `name: value` pairs laid out in columns (a tab between pairs, or each value padded
    out to a column) with no counter and no split of its own: one row of a statistics dump that a counter
    line heads (PyMARL's `Recent Stats | t_env: 11846 | Episode: 32`, then `return_mean:    1.7250<TAB>...`
    lines), a part of the head's record rather than a record of its own."""
    return not rec.label and rec.step is None and rec.epoch is None and rec.batch is None \
        and ("\t" in line or _PADDED_PAIR.search(line) is not None)


_PADDED_PAIR = re.compile(r"[A-Za-z_]\w*:\s{4,}[-+]?(?:\d|\.\d|nan|inf)", re.I)


def _drop_sizes(plan: printed.Plan, nums: list[str], rec: printed.Record) -> bool:
    """Drop the values of a lone split word that are whole numbers (`train=11200, val=1400`: the
    sizes of the splits); `train: 0.52, val: 0.61` stays. True when one was dropped."""
    dropped = False
    for slot, text in zip(plan.slots, nums):
        if slot.role == "value" and slot.key in plan.sizes and text.replace(",", "").isdigit():
            rec.values.pop(slot.key, None)
            dropped = True
    return dropped


def _keyless(tpl: str, plan: printed.Plan) -> str:
    """A one-value line's template with its key cut out, when enough words stay around it to be a
    line shape of its own (`Train net output #: <key> = # (* # = # loss)`; not `<key>: #`): a line
    of that shape whose name the alias table does not know (`cls_lost_my`) is a metric as its
    neighbours are. "" otherwise."""
    keys = [sl.key for sl in plan.slots if sl.role == "value"]
    if len(keys) != 1 or plan.prose or plan.progress or not keys[0] or keys[0] not in tpl:
        return ""
    shape = tpl.replace(keys[0], "\0", 1)
    if "loss)" in shape:
        # (Caffe prints a weighted-loss tail only after the outputs that enter the loss: `Test net output #0:
        # loss1/loss1 = 8.29 (* 0.3 = 2.49 loss)` and `Test net output #1: loss1/top-1 = 0.131` are one print)
        shape = printed.WEIGHTED_LOSS_TAIL.sub("", shape).rstrip()
    return shape if len(_WORDS.findall(shape)) >= 3 else ""


_WORDS = re.compile(r"[A-Za-z]{2,}")


def _rest_of_cut(following: str) -> bool:
    """`following` begins like the rest of a line cut in two (`_wrapped`'s test of the second line)."""
    first = following[:1]
    if first == ".":
        return _WRAP_IN_NUMBER[1].match(following) is not None
    return first in " \t:=" and _WRAP_TAIL.match(following) is not None


# A record of `name: value` pairs hard-wrapped inside a name: the line ends on a pair's value, its separator and
# the start of the next name (Megatron's `... (s): 105.16 | learning` then ` rate: 4.475E-05 | ...`, fairseq's
# `..., bsz=16, num_update` then `s=809, lr=...`); the next line opens with the rest of that name, its `:` or
# `=` and a number. A paste wraps at a terminal's or a page's width: a short line is never taken as cut.
_NAME_CUT_HEAD = re.compile(r"[:=]\s*[-+]?(?:\d[\d.]*(?:[eE][-+]?\d+)?|nan|inf)\s*$", re.I)
_NAME_CUT_TAIL = re.compile(r"\s*[A-Za-z_][A-Za-z_ ]{0,40}")
_NAME_CUT_REST = re.compile(r"^\s*[A-Za-z_][\w ()/-]{0,40}?\s*[:=]\s*[-+]?(?:\d|\.\d|nan\b|inf\b)[^|,]*(?:[|,]|$)", re.I)
_NAME_CUT_MIN = 60


def _name_cut(line: str, following: str) -> bool:
    """`line` ends inside a name whose rest opens `following` (see _NAME_CUT_HEAD)."""
    t = line.rstrip()
    if len(t) < _NAME_CUT_MIN or not (t[-1:].isalpha() or t[-1:] == "_") or following[:1] in "[<({#":
        return False
    k = max(t.rfind("|"), t.rfind(","))
    return 0 < k and len(t) - k <= 42 and _NAME_CUT_TAIL.fullmatch(t, k + 1) is not None \
        and _NAME_CUT_HEAD.search(t, max(0, k - 48), k) is not None and _NAME_CUT_REST.match(following) is not None


# A line cut at the console's width inside the unit of a rate (`Speed: 566.06 sa` then `mples/sec   Train-Accuracy=0`,
# `572.39 samples/se` then `c   Train-Accuracy=0`): the number, a blank, the start of the unit; the next line opens
# with the unit's rest, then the line's remaining pairs
_UNIT_CUT = re.compile(r"\d\s+([A-Za-z/]{1,16})$")
_RATE_UNIT = re.compile(r"[A-Za-z]{1,12}/(?:s|sec|second|it|step|batch)")


def _unit_cut(line: str, following: str) -> bool:
    """`line` ends inside a rate's unit whose rest opens `following` (see _UNIT_CUT)."""
    if len(line) < _NAME_CUT_MIN or line[-1:].isspace():
        return False
    m = _UNIT_CUT.search(line)
    head = following.split(None, 1)
    return m is not None and len(head) == 2 and _RATE_UNIT.fullmatch(m.group(1) + head[0]) is not None \
        and ("=" in head[1] or ":" in head[1])


def _name_cut_gap(line: str, following: str) -> str:
    """The blank the cut took: kept where the next line opens with one, or where the names are words with
    blanks between them (`| number of nan` + `iterations:`); none inside one identifier (`num_update` + `s=`)."""
    t = line.rstrip()
    k = max(t.rfind("|"), t.rfind(","))
    return " " if following[:1] in " \t" or t[k] == "|" or " " in t[k + 1:].strip() else ""


def _wrapped(line: str, following: str) -> bool:
    """`following` is the rest of `line`, cut after its last key or inside its last number, or after the
    comma that closes one of its `key: value` pairs (the next pairs then open the indented line below)."""
    first = following[:1]
    if line[:1] in "LVW" and _kaldi_wrapped(line, following):
        return True
    if first == ".":
        return _WRAP_IN_NUMBER[1].match(following) is not None and _WRAP_IN_NUMBER[0].search(line) is not None
    if first in _VALUE_LEADS and line[-3:].rstrip()[-1:] in (":", "="):  # `... - val_loss: ` + `7.97 - val_acc: 0.5`
        return _WRAP_AFTER_KEY[0].search(line) is not None and _WRAP_AFTER_KEY[1].match(following) is not None
    if _name_cut(line, following):
        return True
    if first in "'\"" and following[1:3] == ": " and following.rstrip()[-1:] == "}":
        # `{'loss': 0.0, ..., 'completions/max_terminated` + `_length': 578.0, 'epoch': 1.5}`: a dict printed
        # on one line, its newline landing inside a key
        return _dict_cut(line)
    if first.isalpha() and line[-1:].isalpha() and _unit_cut(line, following):
        return True
    if line[-1:] == "|" and first.isalpha() and _ITERATION_HEAD.match(line) and _WRAP_BAR_PAIR.match(following):
        # `iteration 5/50 | elapsed time per iteration: 21392.5 ms |` + `learning rate: 1.35E-04 | ...`: a
        # Megatron iteration record broken at its `|` separators, its named values on the lines below
        return True
    if first not in " \t:=":
        return " / " in line and _slash_wrapped(line, following)
    if _WRAP_TAIL.match(following) is not None:
        return _WRAP_HEAD.search(line) is not None
    line = line.rstrip()
    if line[-1:] == "|":  # one step's pairs printed over several lines, each but the last ending in `|`
        return _WRAP_AFTER_BAR.match(following) is not None and ":" in line
    return line[-1:] == "," and _WRAP_AFTER_PAIR[0].search(line) is not None \
        and _WRAP_AFTER_PAIR[1].match(following) is not None


# Kaldi's log prefix: the severity, then (program:Function():file.cc:line)
_KALDI_PREFIX = re.compile(r"^(?:LOG|WARNING|VLOG\[\d+\]) \([\w.-]+(?:\[[\w.:-]+\])?:[\w:~<>]+\(\):[\w.-]+:\d+\) ")
# its objective-function report: `... for 'output' for minibatches 40-49 is -35.0044 over 19538 frames.` (chain
# models add their penalty terms: `is -0.0712 + -0.0125 = -0.0837 over 5120 frames.`)
_OBJF_NUM = r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|nan|inf)"
_KALDI_OBJF = re.compile(r"\bobjective function for '([\w.-]+)' for minibatches \d+-(\d+) is (" + _OBJF_NUM + r")"
                         r"((?:\s*\+\s*" + _OBJF_NUM + r")*\s*=\s*" + _OBJF_NUM + r")? over \d+ frames")


def _dict_cut(line: str) -> bool:
    """`line` opens a dict and stops inside one of its quoted keys (after an entry's comma, within a name)."""
    i = line.find("{'")
    if i < 0:
        i = line.find('{"')
    if i < 0 or "}" in line[i:]:
        return False
    tail = line.rstrip()
    q = tail[i + 1]
    return tail.count(q, i) % 2 == 1 and tail[-1:] not in (q, ",", ":") and _DICT_CUT_KEY.search(tail) is not None


# The end of a line cut inside a dict's quoted key: `, 'completions/max_terminated`
_DICT_CUT_KEY = re.compile(r"""[,{]\s*['"][\w/.@-]+$""")


def _kaldi_wrapped(line: str, following: str) -> bool:
    """A Kaldi log message hard-wrapped by the paste it came in: the line opens with Kaldi's prefix (or
    goes on such a message) and has not ended its sentence; the next line opens no message of its own."""
    t = line.rstrip()
    return t[-1:] not in ".:" and _KALDI_PREFIX.match(line) is not None \
        and _KALDI_PREFIX.match(following) is None and following.strip() != ""


def _slash_wrapped(line: str, following: str) -> bool:
    """One report of `name value / name value / ...` pairs wrapped over lines (DreamerV3's): `line`
    ends after a pair's ` /` and `following` opens on the next pair, or `line` ends in a name whose
    value opens `following` (`... / train/opt_loss` + `1.4e4 / train/opt_grad_norm 2.5 /`)."""
    t = line.rstrip()
    if t[-2:] == " /":
        return _SLASH_PAIR_LEAD.match(following) is not None and _SLASH_PAIR_LEAD.match(t) is not None
    return _SLASH_KEY_TAIL.search(t) is not None and _SLASH_VALUE_LEAD.match(following) is not None


_SLASH_PAIR_LEAD = re.compile(r"^\s*[A-Za-z_][\w/.@-]*\s+[-+]?(?:\d|\.\d|nan\b|inf\b)", re.I)
_SLASH_KEY_TAIL = re.compile(r"\s[-+]?(?:\d[\w.+-]*|nan|inf)\s+/\s+[A-Za-z_][\w/.@-]*$", re.I)
_SLASH_VALUE_LEAD = re.compile(r"^\s*[-+]?(?:\d|\.\d|nan\b|inf\b)\S*\s+/(?:\s|$)", re.I)


# (`Starting train loop`, `Begin validation`: a verb that opens the phase before its name)
_SECTION = re.compile(r"(?i)^[\W_]*(?:(?:start|starting|begin|beginning)\s+(?:the\s+)?)?"
                      r"(validation|validating|validate|evaluation|evaluating|evaluate|eval|testing|test|valid|"
                      r"training|train)\b(?![-_/])")
# A heading that names the held-out set inside a short sentence (`Checking accuracy on the val set`,
# `Evaluating model on validation data...`): what follows it is that set's
_SET_HEADING = re.compile(r"(?i)^(?!.*\d)(?:\S+\s+){0,5}(?:on|for|over)\s+(?:the\s+)?"
                          r"(validation|valid|val|test|dev|eval|evaluation|held[- ]out|training|train)\s+"
                          r"(?:set|data|dataset|split)\b")
# The line the PyTorch ImageNet example's validate() (and the trainers copied from it) ends an evaluation with: a
# star, then the held-out set's average top-1 (and top-5) accuracy (` * Acc@1 71.8 Acc@5 90.2`, ` * Prec@1 10.0`)
_TOPK_SUMMARY = re.compile(r"(?:^|\s)\*\s+(?:Acc|Prec)@1\b")
# The last sentence of a line of prose, after a full stop and a space (`... on an unknown dataset. It achieves`)
_LAST_SENTENCE = re.compile(r"[.!?]\s+([A-Z][^.!?]*)$")


def _set_heading(c: str) -> re.Match | None:
    """`_SET_HEADING` on the line, or on its last sentence when the line is a paragraph kept on one line
    that ends in that heading (a model card as its Hub page shows it: `This model is a fine-tuned version
    of t5-base on an unknown dataset. It achieves the following results on the evaluation set:`)."""
    m = _SET_HEADING.search(c)
    if m is None and c.rstrip().endswith(":"):
        tail = _LAST_SENTENCE.search(c)
        m = _SET_HEADING.search(tail.group(1)) if tail is not None else None
    return m


# An evaluator object's log line that opens its report (`BinaryClassificationEvaluator: Evaluating the model on
# the dev dataset after epoch 1:`): the lines after it are its scores
_EVALUATOR_HEADING = re.compile(r"(?i)^\w*evaluator\s*:\s*(evaluating|validating|testing)\b[^=|]*$")
# A line that is an evaluation heading and nothing else (`evaluate:dev`, `Evaluating on the test set...`).
_OWN_HEADING = re.compile(r"(?i)^[=\-*#\s]*(?:validation|validating|evaluation|evaluating|evaluate|eval|testing|test|valid)"
                          r"\b[\s:\-]*(?:on\s+(?:the\s+)?)?(?:[A-Za-z]+(?:\s+set)?)?[\s.:=\-*#]*$"
                          # (`Evaluating mAP by pycocotools.`, `Validating hmean-iou...`: a gerund and a few words)
                          r"|^[=\-*#\s]*(?:evaluating|validating|testing)\b[^:=\d|]{0,60}?[.\u2026]*\s*$")
# (a date a name is given, `target=2006-12-11T18:00:00`, is a value on the line, not the stamp of a log line glued on)
_STAMP = re.compile(r"(?<![=\d])\[?\d{4}[-/]\d{1,2}[-/]\d{1,2}[ T_]\d{1,2}:\d{2}:\d{2}")
_STAMP_SPLIT = re.compile(r"(?<=[^\s=])\s*(?=\[?\d{4}[-/]\d{1,2}[-/]\d{1,2}[ T_]\d{1,2}:\d{2}:\d{2})")
_PROSE_LINE = re.compile(r"[A-Za-z]{2,}[,.]?\s+[A-Za-z]{2,}|[\u3040-\u30ff\u4e00-\u9fff]{3}")  # words, not one name
_HAS_DIGIT = re.compile(r"\d|(?<![A-Za-z])(?:[Nn]a[Nn]|NAN|[Ii]nf|INF)(?![A-Za-z])")  # `val loss nan` has a value
# IPython's `%time` / `%%time` output: `CPU times: user 5min 12s, sys: 614 ms, total: 5min 12s`, `Wall time: 1min 25s`.
_TIMING_CELL = re.compile(r"^\s*(?:CPU times: user\s+\d|Wall time:\s+\d)")
# the header of a block of a wide pandas DataFrame that pandas wrapped: blanks where the index stands, then
# two or more column names (no value among them), then `  \` (`   source  target  value  type  \`)
_FRAME_WRAP_HEAD = re.compile(r"^[ \t]+[^\s\d.+-][^\s=:]*(?:[ \t]+[^\s=:]+)+[ \t]{2,}\\$")
_FRAME_ROW = re.compile(r"^[^\s:=|]+[ \t]{2,}[^\s:=|]+(?:[ \t]+[^\s:=|]+)*[ \t]*$")  # `3  69.29  24.65  ...`
_FRAME_SIZE = re.compile(r"^\[\d+ rows x \d+ columns\]\s*$")  # pandas' note of a truncated frame's size
# scikit-learn's `classification_report`: its fixed header, then a row per class and its summary rows
# (`accuracy  0.90  252`, `macro avg  0.48  0.40  0.41  252`), the label first and the class count (support) last
_REPORT_HEADER = re.compile(r"^\s*precision\s+recall\s+f1-score\s+support\s*$")
_REPORT_ROW = re.compile(r"^\s*\S(?:.*\S)?\s{2,}(?:(?:[-+]?\d*\.?\d+(?:[eE][-+]?\d+)?|nan)\s+){0,3}\d+\s*$")
# The CoNLL shared tasks' conlleval script: a count of what it scored, then the scores over all the data
# (`accuracy:  97.2%; precision:  88.1%; recall:  87.5%; FB1:  87.8`): an evaluation's by what the script is
_CONLL_HEAD = re.compile(r"^\s*processed \d+ tokens with \d+ phrases; found: \d+ phrases; correct: \d+\.?\s*$")
_CONLL_SCORES = re.compile(r"^\s*accuracy:\s*[\d.]+%;\s*precision:")
# a sentence that a value stayed short of a mark (`Accuracy never reached 0.7`, `loss did not fall below 0.1`):
# the number is the mark set in advance, not a measurement
_MISSED_MARK = re.compile(r"(?i)(?:\b(?:never|not|failed to)|n't)\s+(?:yet\s+)?(?:reach(?:ed)?|exceed(?:ed)?|hit|"
                          r"f[ae]ll(?:en)?|drop(?:ped)?|r[io]se(?:n)?)\s+(?:above\s+|below\s+|over\s+|"
                          r"under\s+|to\s+)?[-+]?\.?\d")
# a row of a model's layer listing: its index, sizes and counts, the layer's class by its module path and the
# arguments it was built with (` 4   -1  2   29184  models.common.C3   [64, 64, 2]`, YOLO's model summary)
_MODULE_ROW = re.compile(r"^\s*\d+\s.*\s(?:[A-Za-z_]\w*\.)+[A-Z]\w*\s+\[.*\]\s*$")
# a layer's output shape in a network listing: a 3-D shape after the arrow from its input, or before the
# layer's cost in billions of flops (Darknet: `  0 conv  32  3 x 3/ 1  416 x 416 x 3 ->  416 x 416 x 32 0.299 BF`,
# `  83 route  79  ->  13 x 13 x 512`, `Shortcut Layer: 1, ..., outputs: 208 x 208 x 64 0.003 BF`)
_LAYER_SHAPES = re.compile(r"->\s*\d+\s*x\s*\d+\s*x\s*\d+|\d+\s*x\s*\d+\s*x\s*\d+\s+\d+(?:\.\d*)?\s*BF\b")
# a config section's settings echoed as the network is built (`[yolo] params: iou loss: mse (2), iou_norm: 0.75`)
_SECTION_PARAMS = re.compile(r"^\s*\[\w+\]\s+params:")
# TensorFlow's listing of a graph's variables (`name = bert/pooler/dense/bias:0, shape = (768,)`): no metric
_VAR_LISTING = re.compile(r"\bname\s*=\s*[\w/.-]+:\d+,\s*shape\s*=\s*\([\d,\s]*\)")
# TensorFlow 1.x's properties of a GPU it found (`totalMemory: 31.75GiB freeMemory: 31.44GiB`): hardware, no metric
_DEVICE_MEMORY = re.compile(r"^\s*totalMemory:\s*[\d.]+\s*[KMGT]i?B\s+freeMemory:\s*[\d.]+\s*[KMGT]i?B\s*$")
# The header of a table printed across (a column per counter value): `epoch 8 epoch 50 epoch 100`
_ACROSS_HEAD = re.compile(r"(?i)^(epoch|step|iter|iteration)\s*[:#]?\s*\d+(?:\s*[,|]?\s*\1\s*[:#]?\s*\d+)+\s*$")
_ACROSS_FIRST = frozenset("eEsSiI")
_DIGIT_RUN = re.compile(r"\d+")
# Torch7's `xlua.progress` bar: `[======= 136/136 =====>]  Tot: 1m13s | Step: 646ms` (`ETA:` while it runs)
_XLUA_BAR = re.compile(r"\d+/\d+\s*=*>?\]\s+(?:Tot|ETA):\s*\S+\s*\|\s*Step:\s*\d")
_NVIDIA_SMI = re.compile(r"^\s*\|.*(?:\d+MiB\s*/\s*\d+MiB|NVIDIA-SMI|Persistence-M|\bNVIDIA\b.*\b(?:On|Off)\s*\|)")
# (a split word may open it: `TRAIN EPOCH 3:`, `Validation epoch 2`)
# A line of a whole counter and one number with a point (or nan/inf), nothing else: `76930 2.6496577`;
# or a few such numbers after the counter (a table with no header: lcurve files, `numpy.savetxt` with
# `%.18e`, where the counter is written as a float too: `1.000000000000000000e+03`).
# (or comma-separated, a headerless CSV row: `23,3.9771`, `10, 2.2398`)
# (a cell of dashes alone, `----`, holds the place of a value that line did not compute: a loop printing a
# fixed row of terms, some of them only on alternate iterations, up to a few dozen)
_BARE_PAIR = re.compile(r"^(?:\d{1,9}|\d\.\d+e\+\d{1,2})(?:(?:\s*,\s*|\s+)(?:[-+]?(?:\d*\.\d+(?:[eE][-+]?\d+)?|nan|inf)"
                        r"|-{2,}(?=\s|$))){1,48}$", re.I)
_PLACEHOLDER = "--"
_PAIR_LINE = re.compile(r"(?i)\s*[^\s:=|{}\[\]'\"][^:=|{}]{0,80}[:=|]\s*[-+]?(?:\d|\.\d|nan|inf)")  # (`name: 0.5`)
_PAIR_SEP = re.compile(r"\s*,\s*|\s+")
# A row of a headerless table whose first two cells are whole numbers, an epoch and the iteration within the run
# (not below the epoch: it counts on), then three or more numbers, one of them at least with a point; the
# other cells may be whole (an accuracy of `0`)
_EPOCH_ITER_ROW = re.compile(r"^\d{1,6}\s+\d{1,9}(?=.*\s[-+]?\d*\.\d)(?:\s+(?:[-+]?(?:\d+(?:\.\d*)?|\.\d+)"
                             r"(?:[eE][-+]?\d+)?|nan|inf)){3,12}$", re.I)
_EPOCH_ITER_TPL = "<epoch> <iteration> <values>"
# A whole-number step, then two or three bracketed lists of numbers (the last may be empty) and nothing else
_LIST_OF_NUMS = r"\[\s*(?:" + _NUM + r"(?:\s*,\s*" + _NUM + r")*)?\s*\]"
_LISTS_ROW = re.compile(r"^\d{1,9}(?:\s+" + _LIST_OF_NUMS + r"){2,3}\s*$")
_LIST_CELLS = re.compile(r"^\d+|\[[^\]]*\]")
_LISTS_ROW_NAMES = ("Train loss", "Test loss", "Test metric")
_LISTS_TPL = "<step> [<train terms>] [<test terms>] [<metrics>]"
_PAIR = "<pair>"
# A counter's name and number (an aside in parentheses may follow it), then only unnamed values, after a
# comma or a colon and comma-separated, to the end of the line (`epoch, 0040, 0.0159, 0.0170`,
# `Step 4658 (213 ms): -1675.1.`)
_COUNTED_VALUE = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|[-+]?nan|[-+]?inf"
# (or after the counter's own colon, blank-separated: `batch: 387 nan 0.6595 0.7270`, two values or more)
_COUNTED_ROW = re.compile(r"(?i)(?:^|,\s)(?:epoch|step|iter|iteration)\s*,?\s*\d+(?:\s*\([^()]*\))?\s*[,:]\s*"
                          r"((?:" + _COUNTED_VALUE + r")(?:\s*,\s*(?:" + _COUNTED_VALUE + r")){0,11})\.?\s*$"
                          r"|^(?:epoch|step|iter|iteration|batch)\s*:\s*\d+\s+((?:" + _COUNTED_VALUE + r")(?:\s+(?:"
                          + _COUNTED_VALUE + r")){1,11})\s*$")
_COUNTED_TPL = "<counter>, <values>"
# A bracketed list of three numbers or more and nothing else, one of them at least with a point or not finite
# (a list of whole numbers alone is ids, sizes or a shape, never a step's values)
_NUMBER_LIST = re.compile(r"^\[\s*(?:" + _COUNTED_VALUE + r")(?:\s*,\s*(?:" + _COUNTED_VALUE + r")){2,31}\s*,?\s*\]$", re.I)
_LIST_POINT = re.compile(r"\d\.\d|\bnan\b|\binf\b", re.I)
_LIST_TPL = "[<values>]"
# A step and a rate below 1 in brackets, then one to a dozen unnamed values, comma-separated, to the line's end
_STEP_RATE_ROW = re.compile(r"^\[\s*(\d{1,9}),\s*(0?\.\d+(?:[eE]-\d+)?|\d\.\d+[eE]-\d+)\]\s+((?:" + _COUNTED_VALUE
                            + r")(?:\s*,\s*(?:" + _COUNTED_VALUE + r")){0,11})\s*,?\s*$", re.I)
_STEP_RATE_TPL = "[<step>, <lr>] <values>"
# A row of a `|`-ruled table of numbers only, the first an integer (`| 150| 16300|5.0113e-05| 1.1553|`)
_PIPE_NUMBERS = re.compile(r"^\|?\s*\d{1,9}\s*(?:\|\s*[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+|nan|inf)%?\s*){2,12}\|?$",
                           re.I)
_PIPE_CELL = re.compile(r"[^|\s%]+")
# One name's statistics over a pass's episodes or samples, its mean first: `Steps:  mean=1000.0, min=1000.0, ...`
_STATS_OF = re.compile(r"^([A-Za-z][\w /.-]{0,40}?)\s*:\s*mean\s*[=:]\s*(\S+?),(?:\s*(?:min|max|std|median|stdev)"
                       r"\s*[=:]\s*\S+?,?)+\s*$", re.I)
_COUNT_VALUE = re.compile(r"^(\d{1,9})\s*/\s*\d{1,9}\s*:\s*([-+]?(?:\d*\.\d+(?:[eE][-+]?\d+)?|nan|inf))$", re.I)
_COUNT_VALUE_TPL = "<count>/<total>: <value>"
# Megatron's memory report after the first logging interval: `(after 10 iterations) memory (MB) | allocated: ...`
_MEM_AFTER = re.compile(r"\bafter \d{1,12} iterations\)?\s+memory \((?:MB|GB|MiB|GiB)\)\s*\|")
# DeepSpeed's throughput timer line: `<epoch>/<global step>, RunningAvgSamplesPerSec=...`
_DS_TIMER_LEAD = re.compile(r"(?<![\w/.])(\d{1,6})/(\d{1,12}),(?=\s*(?:RunningAvg|Curr)SamplesPerSec=)")
# A dict of numbers as one value among `key=value` pairs (`grad_norm={'0_default': 2.1, '1_fp32': 0.0}`)
_INLINE_DICT = re.compile(r"(?<![^\s,;|])([A-Za-z_][\w/.-]*)=\{((?:\s*'[^'{}]{1,60}'\s*:\s*" + _NUM + r"\s*,?)+)\}(?=[\s,;|]|$)")
_INLINE_ITEM = re.compile(r"'([^'{}]{1,60})'\s*:\s*(" + _NUM + r")")
# A hyperparameter search's trial ending (Optuna's study log): `Trial 12 finished with value: 0.25 and
# parameters: {...}`; one trial stopped early by the pruner: `Trial 13 pruned.`
_TRIAL_DONE = re.compile(r"\bTrial (\d{1,9}) finished with value:\s*(" + _NUM + r")(?=[\s.,]|$)")
_TRIAL_PRUNED = re.compile(r"\bTrial \d{1,9} pruned\b")
# An episode's end told in a sentence: its length in steps and its return (or reward), the episode
# maybe named a test or evaluation one (`Test episode of length 1000 with return 29.2.`)
_EPISODE_SENTENCE = re.compile(r"(?i)^\s*(?:train(?:ing)?\s+|(test|eval|evaluation)\s+)?episode\s+"
                               r"(?:of\s+length|has|had|lasted|ran(?:\s+for)?)\s+(\d+)(?:\s+steps?)?\s*,?\s+"
                               r"(?:with|and)\s+(?:a\s+)?(?:total\s+)?(?:return|reward)\s+(?:of\s+)?(" + _NUM + r")\.?\s*$")
# A banner: a line between two runs of one decoration character (`***** Episode 3, Mean R = 2.1 *****`).
# spaCy's trainable pipeline components: the keys of the `losses` dict its training loop fills
_SPACY_PARTS = frozenset({"tagger", "parser", "ner", "textcat", "textcat_multilabel", "tok2vec", "transformer",
                          "senter", "morphologizer", "entity_linker", "trainable_lemmatizer", "spancat",
                          "span_finder", "beam_ner", "beam_parser"})
_BANNER = re.compile(r"^([*=#~-])\1{2,}\s.*\S\s+\1{3,}$")
# one `name: value` pair between two rules of one fill (`---- Error : 0.0 ----`; the cleaned line may have lost the first)
_FRAMED_RESULT = re.compile(r"^(?:([-=#*~])\1{2,}\s+)?([A-Za-z][\w/.()-]*(?: [\w/.()-]+){0,3} ?[:=] *"
                            r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+|nan|inf)%?)\s+([-=#*~])\3{2,}$")
_RULE_ENDS = frozenset(ch * 3 for ch in "-=#*~")
_BANNER_EDGES = re.compile(r"^([*=#~-])\1{2,}\s+|\s+([*=#~-])\2{2,}$")
# a banner whose title touches its fill on both sides (DL4J's `=====Scores=====` over Evaluation.stats())
_GLUED_BANNER = re.compile(r"^([*=#~-])\1{2,}[A-Za-z][A-Za-z ]{0,40}[A-Za-z]\1{3,}$")
_FILLS = frozenset(ch * 3 for ch in "*=#~-")
_RESULTS_WORD = re.compile(r"(?i)\b(?:results?|metrics|scores|summary)\b")
_EVAL_BANNER_WORD = re.compile(r"(?i)\b(?:eval|evaluation|val|valid|validation|test|dev|pred|predict|prediction)\b")
# A line that is only a number (with its unit) closing a parenthesis: a hard-wrapped line's tail
# (`Computation: 14963 steps/s (collection: 6.407s, learning` / `0.163s)`), no record of its own.
_PAREN_TAIL = re.compile(r"^[-+]?\d+(?:\.\d+)?\s*[A-Za-z%]{0,3}\)+[.,;]?$")
# A settings line naming the run's epoch count in the plural, the number alone after it (`Epochs: 3`, after
# an emoji or a bullet as setup prints often have them, maybe behind the logger's name in brackets)
_EPOCHS_SETTING = re.compile(r"(?i)^(?:\[[\w.]+\]\s*[-:]?\s*)?[^\w\s]{0,3}\s*(?:num(?:ber)?[_ ](?:of[_ ])?|total[_ ])?epochs\s*[:=]\s*\d+\s*$")
# (the reason a line holding only the best value so far of a metric is counted under)
_BEST_SKIP = "a best-so-far value (the best of a metric the log prints, not a reading of its own)"
_COUNTER_ONLY = re.compile(r"^[\[(]?\s*(?:(?:train|training|val|valid|validation|eval|evaluation|test|learning)(?:\s+|-+)"
                           r"(?:(?:metrics|results|stats|statistics)\s+(?:at|for|@)\s+)?)?"  # (`Eval metrics at step 6:`)
                           # (a stats dump's title before its counters, after the logger's name: PyMARL's
                           # `my_main Recent Stats | t_env: 11846 | Episode: 32`)
                           r"(?:(?:[\w.]+\s+)?(?:recent\s+)?(?:stats|statistics)\s*\|\s*)?"
                           # (`train---epoch : 51 ,  global step : 24356` over one `name : value` line a metric)
                           r"(?:(?:step|iter|iteration|epoch|global[_ ]step|current[_ ]step|it|ep|batch|t_env|episode)\s*[=:]?\s*"
                           # (the count bare or in brackets, more counts in brackets after it: `Epoch [1/3], Step [10/50]`,
                           # MMCV's `Epoch [1][10/250]`)
                           r"(?:#(?:/#)?|\[\s*#(?:\s*/\s*#)?\s*\])(?:\s*\[\s*#(?:\s*/\s*#)?\s*\])*"
                           r"(?:[,\s|]|--|\]\s*\[)*){1,3}"  # (`[Step 10/11940] [Epoch 0/30]`: a bracket each)
                           r"[\])]?:?"  # (`[batch=1/100]:` over indented `Train <name>: <value>` lines)
                           # (then the pass it starts: Caffe's `Iteration 400, Testing net (#0)` over its scores;
                           # the shape writes the net's index `(#0)` as `(#9)`)
                           r"(?:\s*(?:testing|evaluating|validating)(?:\s+net)?(?:\s*\(#9\))?\.{0,3})?"
                           r"(?:\s*\[[A-Za-z][\w.-]*\])?$"  # (then the data set's tag: `[nyudv2]`)
                           # (`[10/400]` alone: a count and its total over the values; `[5,   210]`: the epoch
                           # and the batch, the PyTorch tutorial's counter)
                           r"|^\[\s*#\s*[/,]\s*#\s*\]:?$",
                           re.I)
# `loss=2.3`, `System/Peak GPU Memory (MB)=111,478`, `loss             1.356284` (a pandas Series row)
def _names_evaluation(values: dict) -> bool:
    """Every name is a metric of an evaluation set (`eval_loss`, `eval_accuracy`)."""
    tab = _aliases.table()
    return all(tab.resolve(str(k), "text").split.startswith("eval") for k in values)


# A results file's line: one name, ` = `, its number, nothing else
_RESULT_LINE = re.compile(r"^[A-Za-z_][\w./-]*(?: [A-Za-z_][\w./-]*){0,3}\s=\s" + _NUM + r"$")
_RESULTS_TPL = "<block><results>"
_TF_NODE = re.compile(r"^\s*\[\[(?:\{\{)?node ")  # TensorFlow's `[[node X ...]]`, `[[{{node X}}]]` in an error


# Lines that hold numbers but are no record, each looked for only where a cheap substring shows it may be there:
# (substrings, the test, why the line is skipped)
_NO_RECORD = (
    # `Removing checkpoint: /ckpts/gpt--val_loss=3.05-step=15000.ckpt`: the numbers are the file's name, written when
    # the checkpoint was saved; the line only says what happened to the file
    (("heckpoint", "ckpt"), _CKPT_FILE_NOTICE.search, "a checkpoint file loaded or removed (its name is no record)"),
    ((" @ ",), _CKPT_AT_UPDATES.search, "a checkpoint notice (its epoch and update count say when it was written)"),
    (("apabilit",), _DEVICE_INFO.search, "a device described at start (capability, memory, name)"),
    # `index=361 -> time_idx=366 | input=2006-04-01T00:00:00, target=2006-04-01T06:00:00, dt=6.0h`: a name given a
    # calendar date and time describes a sample of the data (a forecast's input and target times), not training
    (("=",), _DATED_VALUE.search, "a data sample described by its dates"),
    # `[[node CheckNumerics (defined at trainer.py:322) = CheckNumerics[T=DT_FLOAT, ...
    # _device="/job:localhost/replica:0/task:0/device:GPU:0"](...)]]`: the op a TensorFlow error names (its
    # device's task and replica numbers are no values)
    (("[[",), _TF_NODE.match, "the op node of a TensorFlow error report"),
    # `V = \frac{4\pi}{3} \times 27`: maths typed in LaTeX (a prompt, a model's answer), never a record
    (("\\",), _LATEX.search, "maths written in LaTeX (a prompt or an answer, not metrics)"),
)
_ONE_PAIR = re.compile(r"^[\w/.()\-]+(?: [\w/.()\-]+){0,3}(?: ?#\d{1,3})?\s*(?:[:=]\s*|\|\s*|\s)#\s*(?:(?:\+-|\+/-|±)\s*#\s*)?"
                       r"[%\w/]{0,8}(?:\s*\((?:#|[A-Za-z][\w/.-]*[:=]?\s*#(?:[,;]\s*[A-Za-z][\w/.-]*[:=]?\s*#){0,5})\))?(?:\s*\|)?$")
# (a row of a borderless two-column table is one too, its cells between pipes: baselines' `| EpRewMean | -8.5 |`
# under `Iteration 3025`, the cleaning having taken its first pipe; an output's index may follow the name: old
# Caffe's `Test score #1: 2.30`;
# `MeanRew: -257.4 +- 63.2`: a mean and its spread are one pair; `loss: 0.36 (0.35)`: a value and its running
# mean, or its change since the last evaluation, are one too; so are a loss and its terms in parentheses,
# `loss: 2.51 (ce 2.26, kl 0.25)`)
_STEP_WORD = re.compile(r"(?i)\b(?:step|iter(?:ation)?|it)\b[\s:=#]*\d")  # a running bar's description that counts steps
_TRAIN_LOSS_NAME = re.compile(r"(?i)^(?:train|training)[\s_/-]+loss(?:[\s_/-]+step)?$")  # a logged training loss
_BAR_COUNT = re.compile(r"(\d+)/(\d+)\s*\[[\d:]+<[\d:?]+")
_LEAD_BAR_COUNT = re.compile(r"\[(\d+)/(\d+)\]:?\s*\d{1,3}%\|[^|]*\|\s*\[[\d:]+(?=[,\]])")
# PyTorch Ignite's ProgressBar (`Epoch [1/250]: [18/781]   2%|▍     , total_loss=nan [00:10<08:12]`): the count
# before the bar, the postfix right after the bar's fill (no closing `|`), then the time part
_POSTFIX_IN_BAR = re.compile(r"\[(\d+)/(\d+)\]:?\s*\d{1,3}%\|[^|\[\],]*(?=,[^\[\]]*=[^\[\]]*\s\[[\d:]+<[\d:?]+\]\s*$)")
# (the cut may fall inside the count itself, `100%|█| 1024/`: the total is lost, the count is whole)
_CUT_BAR_COUNT = re.compile(r"\|\s*(\d+)/(\d*)(?:\.\d+)?\s*$")
_SPLIT_REDRAWS = re.compile(r"\r|\x08+")


def read(src: Source, fmt: str | None = None, bulk: bool = True, trace: LineTrace | None = None) -> Run:
    """The run a printed log holds. `trace` (the accounting audit's, bench/dropped.py) notes what became of
    each line; it reads the slow way and changes nothing else."""
    if trace is not None:
        bulk = False
    if bulk and b"]:" in src.head() and _several_ranks(src.head().decode("utf-8", "replace").split("\n")):
        bulk = False  # (rank tags differ in their digits only: one line shape for every rank; read the slow way)
    raw = src.read_mapped() if bulk else src.read_bytes()  # (a big file is mapped: the bulk path copies nothing)
    dialect = fmt if fmt and fmt != "text" else sniff(src.head())[0]
    b = RunBuilder(src.path, fmt or "text", source="text")
    r = _TextReader(b, dialect)
    if trace is not None:
        b.skip = trace.skipper(b.skip)  # type: ignore[method-assign]
        r.trace, r.lines_in = trace, trace.lines_in()
    masks = None
    if bulk:
        try:
            masks = printed_bulk.Masks.of(raw, printed_bulk.MIN_LINES)
        except (ValueError, MemoryError):
            masks = None
    lines: printed_bulk.Lines | list[str]
    if masks is not None:
        lines = masks.lines  # decoded one at a time, when the slow way reads them
    else:
        split = decode(raw if isinstance(raw, bytes) else raw[:]).split("\n")
        if split and split[-1] == "":
            split.pop()
        lines = _decimal_commas(_unprompted(_unnumbered(_unwrapped(_unpm2(_ranked_only(split, b))))))
    del raw
    r.masks = masks
    r.lines = lines
    if trace is not None:
        trace.lines, trace.phase = lines, "pass"
    shapes: dict[int, printed_bulk.Shape] = {}
    open_shape = None
    n = len(lines)
    ln = 0
    joined = 0  # a line already read as the end of the line before it
    shell = False  # the line before ended in ` \`: this one goes on with a shell command
    while ln < n:
        ln += 1
        if ln <= joined:
            continue
        if trace is not None:
            trace.at, traced = ln, (r.mark(), len(r.records), len(b.events))
        quiet_try = False
        if masks is not None:
            i = ln - 1
            free = r.config_indent is None  # (a config block being read: every line counts)
            if free and masks.transparent[i] and r.neutral():
                end = masks.passed(i)  # lines that change nothing: passed over, their bars noted
                if masks.bar_ids:
                    r.pending.append((i, end))
                ln = end
                continue
            sh = shapes.get(int(masks.ids[i])) if shapes else None
            if sh is not None and sh is not open_shape and not r.neutral():
                sh = None
            if sh is not None:
                run = masks.run(i, free)
                if int(run[-1]) + 1 < n and _wrapped(lines[int(run[-1])], lines[int(run[-1]) + 1]):
                    run = run[:-1]  # the run's last line goes on in the next one: the slow way joins them
                if not len(run):
                    sh = None
            if sh is not None:
                if sh is not open_shape:
                    if r.open is not None:
                        r.close_bulk(lines)
                    r.open_bulk(sh, ln)
                    open_shape = sh
                    sh.lines.pop()
                sh.lines.extend(run + 1)
                last = int(run[-1])
                if last > i and masks.bar_ids:
                    r.pending.append((i, last + 1))
                ln = last + 1
                continue
            quiet_try = free and not shapes.get(int(masks.ids[i])) and r.neutral() and masks.worth_quiet(i)
        line = lines[ln - 1]
        if r.open is not None:  # the slow way reads the line; the bulk may go on after it
            r.sync_bulk(lines)
            before = (len(r.records), r.epoch)
        if quiet_try:
            mark = r.mark()
            r.quiet_segs = 0
        if line.endswith("\r"):
            line = line[:-1]
        if len(line) > MAX_TEXT_LINE:
            b.skip("line too long")
            line = line[:MAX_TEXT_LINE]
        if "\x00" in line:
            line = line.replace("\x00", "")
        if "#0" in line:  # syslog's escaped control characters (`#015` a carriage return, `#033` ESC)
            line = _SYSLOG_ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), line)
        if ln < n and _wrapped(line, lines[ln]):  # `...; lr` + `: 1.00000; 16410/16179 tok/s`
            # (no blank: `lr` + `: 1.0`, `lr: 1` + `.00000`; one after a pair's comma or a `|`)
            line = line.rstrip()
            if _name_cut(line, lines[ln]):  # (`| learning` + ` rate: 4.4E-05 |`: the name's blank, if it had one)
                line = line + _name_cut_gap(line, lines[ln]) + lines[ln].strip()
            else:
                line = line + (" " if line[-1:] in ",|:=/" or line[-1:].isalpha() and lines[ln].strip()[:1] in _VALUE_LEADS
                               or line[:1] in "LVW" and _KALDI_PREFIX.match(line) else "") + lines[ln].strip()
            joined = ln + 1
            while joined < n and joined - ln < 32:
                if _name_cut(line, lines[joined]):  # (a record wrapped over three lines or more)
                    line = line + _name_cut_gap(line, lines[joined]) + lines[joined].strip()
                elif (line[-1:] == "|" or " / " in line or line[:1] in "LVW" and _KALDI_PREFIX.match(line)) \
                        and _wrapped(line, lines[joined]):
                    line = line + " " + lines[joined].strip()  # (a block of `key:value |` lines: one record)
                else:
                    break
                joined += 1
            quiet_try = False
        new = None
        took = (len(r.records), len(b.events), sum(b.meta["skipped"].values()), r.folds)
        command = (shell or line[-1:] == "\\" and line[-2:-1] in (" ", "\t")) and r.tb is None \
            and (shell or not _FRAME_WRAP_HEAD.match(line))  # (a wide pandas frame's wrapped header: no command)
        shell = command and line[-1:] == "\\"
        if command:
            # `torchrun ... \` / `  --lr 1e-4 \` / `  --seed 42`: a launch command broken over lines with
            # shell continuations; its options are the run's settings, never a record
            b.skip("a shell command continued over lines")
        elif (r.mat_head is not None or "=" in line[-3:]) and r.struct_arrays(line):
            quiet_try = False  # (a line of a MATLAB struct display: read at the end, see `struct_records`)
        elif not r.sb3_line(ln, line) and not r.events(ln, line):
            segs = _segments(line)
            r.ordinary = None
            if len(segs) > 1 and "\r" not in line and "\x08" not in line:
                r.glued_lines.add(ln)
            for seg in segs:
                try:
                    r.segment(ln, seg)
                except (ValueError, OverflowError, RecursionError, MemoryError) as exc:  # never crash on a line
                    b.skip(f"unparsable line ({type(exc).__name__})")
                    quiet_try = False
            if masks is not None and r.ordinary is not None and len(segs) == 1 \
                    and int(masks.ids[ln - 1]) not in shapes and joined <= ln \
                    and not any(h in line.lower() for h in _EVENT_HINTS):
                new = printed_bulk.register(line, *r.ordinary)
                if new is not None:
                    shapes[int(masks.ids[ln - 1])] = new
            if quiet_try and r.quiet_segs == len(segs) and new is None and r.neutral() \
                    and r.config_indent is None and r.mark() == mark and not _rest_of_cut(lines[ln - 1]):
                masks.add_quiet(ln - 1, any(_TQDM.search(seg) for seg in segs),
                                _WRAP_HEAD.search(line) is not None or _WRAP_IN_NUMBER[0].search(line) is not None)
        if len(r.records) != took[0] or r.folds != took[3]:
            r.rec_at = ln
        if r.unplaced and (len(r.records) > took[0] or len(b.events) > took[1]):
            _placed_back(r, took)
        if joined <= ln and len(r.unplaced) < _MAX_UNPLACED and ln not in r.config_lines \
                and took == (len(r.records), len(b.events), sum(b.meta["skipped"].values()), r.folds):
            r.unplaced.append(ln)  # (no record, event or count came of it: `step 3 loss abc` is checked at the end)
        if r.open is not None and (len(r.records) != before[0] or not r.neutral()
                                   or not (r.epoch == before[1] or r.epoch != r.epoch and before[1] != before[1])):
            r.close_bulk(lines, sync=False)  # a record, a new epoch or a table came in between
            open_shape = None
        if new is not None and r.open is None and r.neutral() and r.records and r.records[-1].line == ln:
            r.records.pop()  # the line that registered a shape opens its bulk: one block per column
            r.tpl_counts[new.tpl] -= 1
            r.open_bulk(new, ln)
            open_shape = new
        if trace is not None:
            trace.after_line(ln, joined, traced, r.mark(), r.records, b.events)
    if r.open is not None:
        r.close_bulk(lines)
    if masks is not None and not _quiet_holds(masks, r, src.path):
        return read(src, fmt, bulk=False)  # a quiet line that is not: read the whole log the slow way
    for sh in shapes.values():
        if sh.lines:
            printed_bulk.convert(sh, masks, lines, r.shape_of)
            if sh.failed:  # a cut that does not read like the slow way: read the whole log the slow way
                return read(src, fmt, bulk=False)
    for rec in r.records:
        if type(rec) is _Bulk:
            rec.settle()
            if not rec.label and len(rec.values) >= 2:
                _held_out_accuracy(rec.values)  # (as the slow way reads the line)
    r.flush_traceback()
    r.keras_flush(end=True)
    if r.dict_block is not None:  # a dict that never closed
        r.close_cut_dict(n)
    if r.sb3_rows:  # a logger table the paste cut before its bottom border: the rows it printed are a record
        r.sb3_line(n + 1, "-" * 40)
    if trace is not None:
        trace.pass_ended(r.records, r.lines_in)
    r.tidy()
    if r.stale_bar:
        r.records = _hf_by_epoch(r.records)
    r.records = _hf_before_bars(r.records)
    r.records = _drop_bar_echoes(r.records, b)
    r.records = _drop_echoes(r.records, r.plans, b, r.lines_in)
    r.records = _fold_repeats(r.records, r.lines_in)
    r.records = _drop_logger_echoes(r.records, lines, b, r.lines_in)
    r.records = _drop_previews(r.records, r.plans, b, r.lines_in)
    r.records = _split_said_twice(r.records, r.plans)
    if _PAIR in r.tpl_counts:
        r.records = _bare_pairs(r.records, b)
    if "<table>" in r.tpl_counts:
        r.records = _table_gaps(r.records, b)
    summary_recs: list = []
    if r.summary_lines:
        summary_recs = [rec for rec in r.records if type(rec) is _Rec and rec.line in r.summary_lines]
        r.records = _summary_apart(r.records, r.summary_lines, b)
    error_lines = {ev.line for ev in b.events if ev.kind == "error" and ev.line is not None}
    lr_notices = r.lr_notices if len(r.lr_notices) >= 2 else frozenset()
    if summary_recs and len(summary_recs) == len(r.records) and len({rec.label for rec in summary_recs}) == 1:
        # a log that holds nothing but W&B's run summary: the last values of what the run logged, every entry
        # a tag of `wandb.log` (`eval/success_once` as much as `eval/return`), no settings; one row
        r.records = [_summary_row(summary_recs, r.lines_in)]
    else:
        r.records = _drop_one_offs(r.records, r.tpl_counts, b, r.config_lines, r.tensor_lines, lr_notices,
                                   error_lines, r.lines_in)
    if not r.records and summary_recs and b.meta["skipped"].get(_SUMMARY_SKIP):
        # the records beside the summary were all settings: the summary is then all the run logged, its one row
        _unskip(b, _SUMMARY_SKIP, len(summary_recs))
        r.records = _drop_one_offs(summary_recs, r.tpl_counts, b, r.config_lines, r.tensor_lines, lr_notices,
                                   error_lines, r.lines_in)
    if r.card_summary:
        r.records = _card_summary_after(r.records, r.card_summary, b, r.lines_in)
    r.records = _join_heading_times(r.records)
    r.records = _fold_lone_times(r.records)
    r.records = _fold_lone_rates(r.records, lines, b, r.lines_in)
    r.records = _second_lines(r.records)
    r.records = _epochs_printed_after(r.records)
    r.records = _boosting_objective(r.records, lines)
    r.records = _summaries_at_a_logged_step(r.records)
    if trace is not None:
        trace.passes_ended(r.records, r.lines_in)
    _near_misses(r, lines, masks, b)
    if trace is not None:
        trace.phase = "emit"
    axis = _emit(r.records, b, r.lines_in, r.glued_lines, r.pair_lines)
    if trace is not None:
        trace.read_ended(b.events, r.config_lines)
    # an SB3 / baselines `| key | value |` table printed a value a line: one row, its further lines said apart
    table_lines = sum(len(rec.values) - 1 for rec in r.records if type(rec) is _Rec and rec.source == "sb3")
    if table_lines > 0:
        _count_joined(b, table_lines)
    if r.records:
        printed_rows = sum(_n(rec) for rec in r.records if rec.source not in ("hf_stdout", "sb3", "keras"))
        if printed_rows:
            # rows of the general reader are named after the sniffed tool; dict, SB3 and Keras rows count apart
            own = dialect not in ("text", "hf_stdout", "sb3_stdout", "keras_stdout")
            r.counts[dialect if own else "text"] = printed_rows
        if any(rec.source == "keras" for rec in r.records):
            r.counts["keras_stdout"] = sum(1 for rec in r.records if rec.source == "keras")
        b.meta["step_axis"] = axis
        if axis == "line order":
            b.warn("no step or epoch counter on the metric lines: points are numbered in line order")
    if r.counts:
        best = max(r.counts, key=lambda k: r.counts[k])
        b.format = fmt or best
        b.meta["dialects"] = dict(sorted(r.counts.items(), key=lambda kv: -kv[1]))
    b.meta["lines"] = len(lines)
    if r.dict_step_key:  # (framework recognition: the HF Trainer's printed dicts never carry their step)
        b.meta["axis_keys"] = [r.dict_step_key]
    if r.settings:
        b.meta["config"] = {**r.settings, **(b.meta.get("config") or {})}
        b.meta.setdefault("config_path", f"{src.name} (printed settings)")
    if len(b.cols) == 1 and src.fs_path is not None and src.name.lower().endswith((".tsv", ".csv")):
        # a table file of one metric (DVCLive's `step<TAB>loss`): its path may name the split
        (key,) = b.cols
        named = split_named_by_path(key, src.fs_path, src.name)
        if named != key:
            b.cols[named] = b.cols.pop(key)
    return b.build()




_SHARE_DONE = re.compile(r"\s\d{1,3}%\s*$")  # a progress bar's share done, just before its count
# (a bar's end after a table row: tqdm's `13/13 [00:13<00:00`, or Ultralytics 8.3's own `1% ━─────── 5/6848`,
# whose first redraws print their elapsed time two blanks after the count, before any rate: `0/6848  1.2s`)
_HAS_TQDM_END = re.compile(r"\d+/\d+\s*\[[\d:<?]+|(?<![\d.])\d+%\s+[━╸╺─]{3,}\s+\d+/\d+")
_HEADER_CELL = re.compile(r"^[A-Za-z_][\w./()\-@%:]*(?: (?:/|%|[A-Za-z_@][\w./()\-@%:]*|\([A-Za-z%µμÅ°]{1,8}(?:/[A-Za-z%µμÅ°²³]{1,8})?\))){0,4}(?<!:)$")
# (`Train Loss`, `mAP@.5:.95`, `rewards / match_format_exactly` (a notebook table's group / name), `Time cost (sec)`:
# a name and its unit, a ratio of two units too: `Energy_RMSE (eV/atom)`, `Force_MAE (eV/Å)`, `Speed (tok/s)`)
# a column whose name has a whole number among its later words: a cutoff or a level of the score (the
# HF Trainer's titles of `map_50`, `mar_100`, `top_5_accuracy`: `Map 50`, `Mar 100`, `Top 5 Accuracy`)
_HEADER_CELL_NUMBERED = re.compile(r"^[A-Za-z_][\w./()\-@%:]*(?: (?:\d{1,4}|[A-Za-z_@][\w./()\-@%:]*)){1,4}(?<!:)$")
# (a counter's word with its number is a data row's, `Epoch 1<TAB>Batch 20`, never a column's name)
_COUNTER_WORDS = frozenset({"epoch", "step", "iter", "iteration", "batch", "round", "fold", "run", "trial",
                            "episode", "update", "it", "ep", "global_step", "generation", "gen"})
# Table columns that count things (images, boxes, input size): bookkeeping, not metrics.
# Columns that give the wall-clock time a row was written (DVCLive's `timestamp`, TensorBoard's `Wall time`)
_CLOCK_COLUMNS = frozenset({"timestamp", "wall time", "wall_time", "walltime", "time_stamp"})
_COUNT_COLUMNS = {"instances", "images", "labels", "targets", "size", "img_size", "imgsz", "class", "samples"}
_ELISION = re.compile(r"^\s*\|?\s*(?:\.{3,}|\u2026|\u22ee)(?:\s*\|?\s*(?:\.{3,}|\u2026|\u22ee))*\s*\|?\s*$")  # `...`, `…`, `⋮`
# (`-- | --`: a notebook table copied as text; a cell's dashes may come apart, `--     -- | --`, when the
# rule under an index column and the first named one lost their pipe in the copy)
_MD_RULE = re.compile(r"^\s*\|?(?:\s*:?-+:?(?:\s+:?-+:?)*\s*\|)+\s*(?::?-+:?(?:\s+:?-+:?)*)?\s*$")
_BOX_RULE = re.compile(r"^\s*[+|:\-─━═┄┈╌┼╪┿╋╬├┤╞╡╘╛╒╕└┘┌┐┬┴╤╧┝┥┠┨╟╢╠╣\s]*[─━═┼╪┿╋╬]{3,}[+|:\-─━═┼╪┿╋╬├┤╞╡╘╛╒╕└┘┌┐┬┴╤╧┝┥┠┨╟╢╠╣\s]*$")
_ASCII_RULE = re.compile(r"^\s*\+(?:[-=]{2,}\+)+\s*$")
_CELL_SPLIT = re.compile(r"\s*[|\t]\s*|\s{2,}")
_DASH_LINE = re.compile(r"^\s*[-=]{3,}\s*$")  # one unbroken rule of dashes


_PLACEHOLDER_ROW = re.compile(r"^\d+\s+-{3,}(?:\s+-{3,})*\s*$")
_NAME_CELL = re.compile(r"^[A-Za-z_][\w./@-]*$")
_NUM_OR_NA = re.compile(r"^(?:[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[Nn]a[Nn]|[-+]?[Ii]nf|N/A|NA|-)$")
_SPLIT_NAMES_OF = {"training": "train", "train": "train", "validation": "validation", "valid": "validation",
                   "val": "validation", "test": "test", "testing": "test", "dev": "validation"}


_NUMBERED = re.compile(r"^\s*(\d{1,7})(?:[ \t]+|$)")


def _unnumbered(lines: list[str]) -> list[str]:
    """A log pasted with its line numbers (`510       Epoch    GPU_mem`, ` 511      90/300   17G   1.757`): when every
    line starts with a number one more than the line before's, and some of those lines hold only words
    past it (a header, a blank), the numbers belong to the paste and are dropped. A log whose every line
    holds numbers after its count (`1 loss 0.52`) keeps the count: it may be the step."""
    if len(lines) < 4 or not lines[0].lstrip()[:1].isdigit():
        return lines
    rests = []
    first = None
    for i, line in enumerate(lines):
        m = _NUMBERED.match(line)
        if m is None:
            return lines
        if first is None:
            first = int(m.group(1)) - i
        elif int(m.group(1)) - i != first:
            return lines
        rests.append(line[m.end():])
    if not any(not _HAS_DIGIT.search(r) for r in rests) or not any(_HAS_DIGIT.search(r) for r in rests):
        return lines
    return rests


_STAMP_FIRST = frozenset("0123456789[")


def _wrap_head(line: str) -> int:
    """What a line opens with, in kind: 0 a digit, 1 a letter, 2 a blank, 3 anything else."""
    ch = line[:1]
    return 0 if ch.isdigit() else 1 if ch.isalpha() else 2 if ch in " \t" else 3


def _unwrapped(lines: list[str]) -> list[str]:
    """A log copied from a terminal that hard-wrapped it: the long lines are cut at the terminal's width
    (`... loss_o` then `bjectness: 0.0655 ...`). Where the longest lines, 80 wide or more, share one length
    (two at least), and most of them open with a stamp (a date's digit, a `[`) and are followed by a line that
    opens with a letter or a blank (the cut's rest, no stamp of its own), each such pair is one line again.
    The rest opens in lower case (`bjectness`, ` avg loss`): a line of its own (`Epoch 2/10`) seldom does."""
    if len(lines) < 4:
        return lines
    widths: dict[int, int] = {}
    for line in lines:
        if len(line) >= 80:
            widths[len(line)] = widths.get(len(line), 0) + 1
    if not widths:
        return lines
    width, count = max(widths.items(), key=lambda kv: kv[1])
    if count < 2 or max(widths) != width:  # (no line is longer than the terminal is wide)
        return lines
    cut = [i for i, line in enumerate(lines[:-1]) if len(line) == width and line[:1] in _STAMP_FIRST
           and _wrap_head(lines[i + 1]) in (1, 2) and lines[i + 1].lstrip()[:1].islower()
           and (lines[i + 1][:1] in " \t" or line[-1:].isalnum() or line[-1:] == "_")]
    if len(cut) < 2 or 2 * len(cut) < count:
        return lines
    at = set(cut)
    rests = {i + 1 for i in cut}
    # a cut's rest opens with a word no other line opens with (`dev | avg_loss` that also follows a short
    # line is a line of its own)
    heads = {line.split(None, 1)[0] for j, line in enumerate(lines) if j not in rests and line.strip()}
    if any(lines[i + 1].split(None, 1)[0] in heads for i in cut):
        return lines
    joined: list[str] = []
    i = 0
    while i < len(lines):
        if i in at:
            joined.append(lines[i] + lines[i + 1])
            i += 2
        else:
            joined.append(lines[i])
            i += 1
    return joined


# pm2 (a Node process manager that also keeps Python jobs) heads each line of a process's log with the
# process's id and name, the name padded to a column: `0|yolo     | 10313: 0.576849, 0.677636 avg, ...`
_PM2_PREFIX = re.compile(r"^\d{1,4}\|[\w.@-]{1,40} *\| ?")


def _unpm2(lines: list[str]) -> list[str]:
    """Lines captured by pm2: where the first line with text opens with the process's `id|name  |` and so
    do at least three quarters of the lines with text (three at least), that head is dropped from each."""
    first = next((line for line in lines[:50] if line.strip()), "")
    if not first[:1].isdigit() or "|" not in first[:8]:
        return lines
    m = _PM2_PREFIX.match(first)
    if m is None:
        return lines
    head = first[:first.index("|", first.index("|") + 1) + 1]
    texts = [line for line in lines if line.strip()]
    marked = sum(1 for line in texts if line.startswith(head))
    if marked < 3 or 4 * marked < 3 * len(texts):
        return lines
    return [line[len(head):].removeprefix(" ") if line.startswith(head) else line for line in lines]


_REPREX_MARK = "#>"


_RANK_TAG = re.compile(r"^\[(?:rank|default)(\d{1,4})\]:")
_RANK_SKIP = "a line another data-parallel rank printed (rank 0's own line is read)"
# (what one rank alone may print: its own error, its traceback, a warning; those lines stay)
_RANK_KEEPS = re.compile(r"Error|Exception|Traceback|error:|[Ww]arning|File \"|Killed|Signal|CUDA|NCCL|OOM")


def _several_ranks(lines: list[str]) -> bool:
    """Rank 0 and at least one other rank tag their lines (`[rank0]:`, `[rank1]:`)."""
    ranks = {m.group(1) for line in lines if line[:1] == "[" for m in [_RANK_TAG.match(line)] if m}
    return len(ranks) >= 2 and "0" in ranks


def _ranked_only(lines: list[str], b: RunBuilder) -> list[str]:
    """A data-parallel run whose every process prints: torchrun and PyTorch tag each line with the rank
    that wrote it (`[rank1]:`, `[default1]:` under `--tee`), and the ranks print the same record,
    each its own copy or its own share of the batch. Where rank 0's lines are tagged and so are another
    rank's, the others are left blank (counted as skipped, line numbers kept): rank 0's lines are the
    run's, as rank-zero logging would have printed them. Untagged lines stay, and so do another rank's
    errors, tracebacks and warnings (a rank may fail alone)."""
    if not _several_ranks(lines):
        return lines
    out = []
    for line in lines:
        m = _RANK_TAG.match(line) if line[:1] == "[" else None
        if m and m.group(1) != "0" and not _RANK_KEEPS.search(line, m.end()):
            b.skip(_RANK_SKIP)
            out.append("")
        else:
            out.append(line)
    return out


# A number spelled with a decimal comma that no group of thousands could be: one or two digits after the comma, four
# or more, or a power of ten after them (`2,31`, `0,11199`, `2,509e+00`); never one of a list (`1,2,3`) nor a CSV
# row's cell before a decimal (`10,2.25`), an MPI rank's tag (`[1,15]<stdout>:`) or a date joined to its time
# (`2024-10-10,14:21:10`)
_COMMA_DECIMAL = re.compile(r"(?<![\w.,\[-])[-+]?\d+,(?:\d{1,2}|\d{4,}|\d+[eE][-+]?\d+)(?![\w.:]|,\d)")
# any number with a comma inside (three digits after it too: `2,547` in such a log is 2.547)
_COMMA_NUMBER = re.compile(r"(?<![\w.,\[-])([-+]?\d+),(\d+(?:[eE][-+]?\d+)?)(?![\w.:]|,\d)")
# groups of thousands no decimal comma could be: two groups or more (`1,234,567`), or a decimal point after one
_THOUSANDS = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3}){2,}(?!\d)|(?<![\w.,])\d{1,3},\d{3}\.\d")


def _decimal_commas(lines: list[str]) -> list[str]:
    """A log that spells its numbers with a decimal comma (`loss 2,5272 ; lr 3,75e-05`), told by the whole log's
    spelling: three numbers at least whose comma no group of thousands could hold, and no number anywhere with
    groups of thousands. Then every number with a comma is a decimal one (`2,547` too, where one line alone could
    not tell), written with a point."""
    text = "\n".join(lines)
    if "," not in text:
        return lines
    found = _COMMA_DECIMAL.finditer(text)
    if next(found, None) is None or next(found, None) is None or next(found, None) is None:
        return lines
    if _THOUSANDS.search(text):
        return lines
    return [_COMMA_NUMBER.sub(r"\1.\2", line) if "," in line else line for line in lines]


def _unprompted(lines: list[str]) -> list[str]:
    """R output as the reprex package (and knitr set to `comment = "#>"`) writes it: every line the
    code printed opens with `#>` and one blank, the code itself does not. Where such lines are at least
    three and a third of the lines with text, the mark is dropped from them and the output reads as
    printed (a table's columns stay where they were)."""
    marked = sum(1 for line in lines if line[:2] == _REPREX_MARK)
    if marked < 3 or 3 * marked < sum(1 for line in lines if line.strip()):
        return lines
    return [line[3:] if line[:3] == "#> " else line[2:] if line[:2] == _REPREX_MARK else line for line in lines]


def _one_column_header(line: str) -> list[str] | None:
    """The name over a column of bare numbers (a one-column CSV, `losses` then a value per line):
    one word the alias table knows as a metric."""
    word = line.strip().strip(",;")
    if not _NAME_CELL.match(word) or not printed.known_key(word, loose=True):
        return None
    return [word]


def _split_columns(line: str) -> list[str] | None:
    """The splits a table's columns stand for, when its header names nothing else (`Training |
    Validation`): 'train', 'validation', 'test'."""
    cells = _cells(line)
    if not 2 <= len(cells) <= 3 or "|" not in line:
        return None
    splits = [_SPLIT_NAMES_OF.get(c.strip().lower()) for c in cells]
    return [str(x) for x in splits] if all(splits) and len(set(splits)) == len(splits) else None


def _cells(line: str) -> list[str]:
    return [c for c in _CELL_SPLIT.split(line.strip().strip("|").strip()) if c]


# The first column of a table that breaks a score down by class (mmseg's and mmdet's per-class tables; the
# nuScenes detection benchmark's `Object Class  AP  ATE ...`, which mmdet3d prints at every evaluation)
_CLASS_COLUMNS = {"class", "classes", "category", "categories", "class_name", "class name", "object class",
                  "object_class", "category_name", "category name"}
# A row of such a table that sums the classes up, not one class (`all`, `mean`): a record
_ALL_CLASSES = {"all", "mean", "average", "avg", "overall", "total", "summary"}


def _per_class_row(header: list[str], line: str) -> bool:
    """A row of a per-class table (a `Class` column first) that names one class: its scores are that class's
    breakdown at one evaluation, not a point of the run (its summary line carries the run's metrics)."""
    if not header or header[0].lower() not in _CLASS_COLUMNS:
        return False
    cells = _cells(line)
    if len(cells) < 2:
        return False
    first = cells[0].strip().lower()
    if first in _ALL_CLASSES or _TABLE_NUM.match(first):
        return False
    return all(_TABLE_NUM.match(c.strip()) or c.strip() in ("-", "") for c in cells[1:])


def _blank_stamp(s: str, c: str) -> str:
    """The line with the logger's prefix the cleaning dropped (`02/18-02:53:26.942 `) turned to blanks: a
    table printed through a logger keeps its columns where they were, and the stamp is no cell of it."""
    if not c or len(c) >= len(s.strip()):
        return s
    if "<?" in s:  # a bar drawn before its first step, the header printed after it: the header starts where the bar did
        idle = printed._IDLE_BAR.match(s)
        if idle is not None:
            return s[idle.end():]
    m = printed._PREFIX.match(s)
    if m is None or not m.end() or not _HAS_DIGIT.search(m.group()):
        return s
    return " " * m.end() + s[m.end():]


def _layout_for(line: str) -> list[str] | None:
    """The column names of a known headerless table (metrics.yaml `layouts`) this line belongs to."""
    from triage.ingest.aliases import table

    for rx, columns in table().layouts:
        if rx.match(line) and len(_layout_cells(line)) == len(columns):
            return columns
    return None


def _layout_cells(line: str) -> list[str]:
    """A headerless row's cells: split on blanks, and on `|` where the row is drawn as a pipe table
    (`|   149|   1000|  0.017|`), whose pipes are no cells of their own."""
    return line.replace("|", " ").split() if "|" in line else line.split()


def _logger_header(line: str) -> list[str] | None:
    """Torch7's optim.Logger file: `% <name>\t<name>\t` over tab-separated columns of numbers (one
    column is a table too: the `%` line names it)."""
    if not line.startswith("% ") or "\t" not in line:
        return None
    names = [n.strip() for n in line[2:].split("\t") if n.strip()]
    return names if names and all(_HEADER_CELL.match(n) or _QUALIFIED_CELL.match(n) for n in names) else None


_QUALIFIED_CELL = re.compile(r"^[A-Za-z_][\w ./\-@%]*\([\w ./\-@%]*\)$")  # `mean class accuracy (train set)`


class _LabelledHeader(list):
    """Column names over rows that each open with a label and a colon (OpenKE's `metric:  MRR  MR` over
    `l(raw):  0.0007  7469.4`)."""


# The first cell of a header whose rows open with a label and a colon (`l(raw):  0.0007  7469.4`): one word
_LABEL_HEAD = re.compile(r"^[A-Za-z_]\w{0,20}:$")


def _numbered_column(cell: str) -> bool:
    """`Map 50`, `Mar 100`: a column's name with a whole number among its later words, not a counter and
    its value (`Epoch 1`)."""
    return bool(_HEADER_CELL_NUMBERED.match(cell)) and cell.split(" ", 1)[0].lower() not in _COUNTER_WORDS


_NUMBERED_WORD = re.compile(r"(?:^|[\t ])\d{1,4}(?=[\t ]|$)")


def _numbered_header_line(line: str) -> bool:
    """Every number on the line is a whole word of a tab-separated cell that opens with a name (`Map 50`),
    never a cell of its own (a row's value) nor a number with a point."""
    for cell in line.split("\t"):
        cell = cell.strip()
        if cell and (not cell[:1].isalpha() or any(ch.isdigit() for ch in cell) and not _NUMBERED_WORD.search(cell)):
            return False
    return True


def _table_header(line: str) -> list[str] | None:
    """Column names of a printed table (`step<TAB>loss`, `Epoch  GPU_mem  box_loss ...`,
    `| epoch | loss |`): two or more single-word cells and nothing else."""
    if line[:3] in ("***", "===", "###"):  # `*******train_loss,train_acc,valid_loss**********`: names in a
        bare = line.strip().strip("*=#").strip()  # banner, a comma between them
        if "," in bare and " " not in bare:
            line = "\t".join(bare.split(","))
    if ", " in line and line[:1].isalpha():
        listed = _comma_header(line)
        if listed is not None:
            return listed
    cells = _cells(line)
    if len(cells) >= 3 and cells[0][-1:] == ":" and _LABEL_HEAD.match(cells[0]):
        cells[0] = cells[0][:-1]  # `metric:  MRR  MR  hit@10`: the name of the row-label column, a colon after it
        labelled = True
    else:
        labelled = False
    if len(cells) < 2 or len(cells) > 40 or not all(_HEADER_CELL.match(c) or _numbered_column(c) for c in cells) \
            or all(not _HEADER_CELL.match(c) for c in cells):
        return None
    if labelled:  # (its rows may come in groups a blank line apart: the header stays over them)
        named = _table_header("\t".join(cells))
        return _LabelledHeader(named) if named else None
    cells = [c.replace(" / ", "/") for c in cells]  # `rewards / match_format` is the name `rewards/match_format`
    from triage.ingest.aliases import table

    joined = " ".join(cells)
    for rx, columns in table().headers:  # a header the knowledge renames as a whole (or its first columns:
        if rx.match(joined) and len(columns) <= len(cells):  # the tool's own columns, then the run's)
            return list(columns) + cells[len(columns):]
        if rx.match(joined) and len(columns) == len(joined.split()):  # (two names one blank apart: `mAP@.5 mAP@.5:.95`)
            return list(columns)
    for rx, mapping in table().renames:  # names the knowledge renames one by one (`P R mAP`: YOLO's precision, recall)
        if rx.match(joined):
            cells = [mapping.get(c, c) for c in cells]
    # a phrase is not a column name (`Size` alone is: YOLO's image-size column), except in the results table
    # of an HF model card, whose Trainer title-cases each metric's key (`partial_match_f1_no_values` is the
    # column `Partial Match F1 No Values`)
    if any(" " in c and not _RATE_CELL.match(c) and any(w in printed._STOP for w in c.lower().split()) for c in cells) \
            and not _hf_results_table(cells) or all(c.lower() in printed._STOP for c in cells):
        return None
    if tables.settings_listing(cells):
        return None
    return tables.scored_on_eval(cells)


# A metric's name alone on its line before a colon, its value on the next (`current training loss is :`)
_NAME_ABOVE = re.compile(r"^\s*([A-Za-z][A-Za-z_ ]{0,40}?)(?:\s+(?:is|are|was|=))?\s*:\s*$")
# Names listed with commas, after the split they measure (`DEV: loss, acc, precision, recall, f1`)
_COMMA_NAMES = re.compile(r"^(?:([A-Za-z]+):\s*)?([A-Za-z_][\w@/.%-]*(?:,\s*[A-Za-z_][\w@/.%-]*)+)\s*$")


def _comma_header(line: str) -> _SpacedHeader | None:
    """A line that lists metric names with commas, a split's name and a colon before them if any
    (`DEV: loss, acc, precision, recall, f1`, `loss, acc, f1`), heads the line of numbers printed under
    it, one per name, a blank apart. A phrase's commas never stand between names the table knows
    each of: at least half the names must be metrics, and a split's label must be one."""
    m = _COMMA_NAMES.match(line.strip())
    if m is None:
        return None
    split, listed = m.groups()
    if split is not None and split.lower() not in _SPLIT_NAMES:
        return None
    names = [n.strip() for n in listed.split(",")]
    if len(names) < 2 or len(set(names)) < len(names) \
            or 2 * sum(printed.known_key(n, loose=True) for n in names) < len(names) \
            or any(n.lower() in _AXIS_WORDS for n in names):
        return None
    return _SpacedHeader(f"{split} {n}" if split else n for n in names)


# A rate's column name (`Samples Per Second`, `tokens per sec`): `per` between two words names a unit,
# not prose.
_RATE_CELL = re.compile(r"(?i)^[a-z_]+ per [a-z_]+$")


class _SpacedHeader(list):
    """Column names that one blank separates (fastai's `epoch train_loss valid_loss accuracy time`):
    its rows split on every blank run too."""


_SPLIT_NAMES = frozenset({"train", "training", "valid", "val", "validation", "test", "eval", "dev"})
_AXIS_WORDS = frozenset({"epoch", "step", "iter", "iteration", "it", "episode", "steps", "epochs"})
_SPACED_NAME = re.compile(r"^[A-Za-z_][\w./%@-]*$")
_DURATION_CELL = re.compile(r"^\(?\d+:\d{2}(?::\d{2})?\)?$")


# The parts of a compound column name that make it a measurement (`RMSE-F-Test`, `L2Reg-Loss`)
_METRIC_PARTS = frozenset({"loss", "rmse", "mae", "mse", "error", "acc", "accuracy", "train", "test", "val", "valid"})
_COMPOUND_CUT = re.compile(r"[-_/.]")


def _spaced_header(line: str) -> _SpacedHeader | None:
    """A header of single-blank-separated names: an axis first (`epoch`), then two or more names
    the alias table knows as metrics (`train_loss valid_loss`). Prose never opens with an axis word
    followed only by metric names.

    The results table of an HF model card copied without its pipes opens with the training loss
    before the axis (`Training Loss Epoch Step Validation Loss Accuracy`): a split-named loss of two
    words, then an axis word, opens a header as well. Two words that name nothing alone but do
    together (`Gen Len`) are one column."""
    words = line.split()
    first = words[0].lower() if words else ""
    if not 3 <= len(words) <= 40 or (first not in _AXIS_WORDS and first not in _SPLIT_NAMES) \
            or not all(_SPACED_NAME.match(w) for w in words):
        return None
    tab = _aliases.table()
    merged: list[str] = []  # (fastai 1.0's first tables: `epoch train loss valid loss accuracy`, names of two words)
    # (a split's name followed by a word that is neither a split nor an axis names that split's column, known
    # or not: a model card's `Epochs Train Loss Train Fp ... Validation Recall`, one blank between all words)
    for w in words:
        if merged and merged[-1].lower() in _SPLIT_NAMES and (
                tab.resolve(f"{merged[-1]} {w}", "text").known
                or (w.lower() not in _SPLIT_NAMES and w.lower() not in _AXIS_WORDS and "_" not in merged[-1])):
            merged[-1] = f"{merged[-1]}_{w}"
        elif merged and not _name_alone(merged[-1], tab) and not _name_alone(w, tab) \
                and tab.resolve(f"{merged[-1]} {w}", "text").known:
            merged[-1] = f"{merged[-1]}_{w}"
        else:
            merged.append(w)
    words = merged
    if words[0].lower() not in _AXIS_WORDS and not (
            len(words) >= 3 and words[1].lower() in _AXIS_WORDS and tab.resolve(words[0], "text").name == "loss"):
        return None
    known = sum(1 for w in words if tab.resolve(w, "text").known and w.lower() not in _AXIS_WORDS)
    if known == 1:  # (`Step Total-Loss L1Reg-Loss RMSE-E-Train RMSE-E-Test`: one name the table knows, the others
        # compounds whose parts say what they are, a loss or an error on a split: a header still)
        rest = [w for w in words[1:] if not tab.resolve(w, "text").known]
        if len(rest) >= 2 and all(_METRIC_PARTS & set(_COMPOUND_CUT.split(w.lower())) for w in rest):
            known = 2
    return _SpacedHeader(tables.scored_on_eval(words)) if known >= 2 else None


def _hf_results_table(header: list) -> bool:
    """Whether a table header is the results table of a Hugging Face model card (`Training Loss | Epoch |
    Step | Validation Loss | ...`): the training loss first, a step column and a validation loss."""
    names = [str(n).strip().lower() for n in header]
    return len(names) >= 3 and names[0] == "training loss" and "step" in names and "validation loss" in names


def _name_alone(word: str, tab) -> bool:
    """Whether one word of a spaced header names a column by itself (a metric or an axis)."""
    return word.lower() in _AXIS_WORDS or word.lower() in _SPLIT_NAMES or tab.resolve(word, "text").known


class _SlashHeader(list):
    """Column names with ` / ` between them (`Generator error / Discriminator error`): its rows put
    the same ` / ` between their numbers (`0.7596 / 0.5977`)."""


_SLASH_SPLIT = re.compile(r"\s+/\s+")


def _slash_header(line: str) -> _SlashHeader | None:
    """A header of two to six names the alias table knows, one ` / ` between each two; a pair of
    names like that over numbers in the same shape is a small table, not a ratio."""
    if "|" in line or "\t" in line:
        return None
    cells = _SLASH_SPLIT.split(line.strip())
    if not 2 <= len(cells) <= 6 or not all(_HEADER_CELL.match(c) for c in cells):
        return None
    tab = _aliases.table()
    resolved = [tab.resolve(c, "text") for c in cells]
    if not all(r.known and r.name not in tab.axis_keys for r in resolved):
        return None
    return _SlashHeader(cells)


_CELL_NOTE = re.compile(r"([A-Za-z][\w. ]*?)\s*(?:->|:)\s*(" + _NUM + r")\s*$")  # `LR -> 1.50e-04` in a cell


def _table_row(header: list[str], line: str, blanks: bool = False) -> tuple[dict, float | None] | None:
    """One row under a header: as many cells as names, most of them numbers (`70/1000` under
    `Epoch` is the epoch; `6.73G` is 6.73). A headerless layout splits on every blank run."""
    if type(header) is _SlashHeader:
        cells = _SLASH_SPLIT.split(line.strip())
        if len(cells) != len(header) or not all(_TABLE_NUM.match(c) for c in cells):
            return None
    else:
        if blanks and "No log" in line:  # HF's Trainer writes `No log` where no training loss was logged yet:
            line = line.replace("No log", "-")  # one empty cell, not two words
        cells = line.split() if blanks else _cells(line)
    labelled = line.split() if line[:1].isalpha() else ()  # a summary of one row per item (`SEQ-02  10.5%
    # 23.7%  -23.8%`): the item's name first, in a column the header leaves unnamed (a DataFrame with a string
    # index prints so), then only numbers
    if len(labelled) == len(header) + 1 > 2 and labelled[0][-1] not in ":=" and not printed._split_of(labelled[:1]) \
            and all(_TABLE_NUM.match(w) for w in labelled[1:]):
        cells = list(labelled[1:])
    split = ""
    if len(labelled) == len(header) + 1 > 2 and printed._split_of(labelled[:1]) \
            and all(_TABLE_NUM.match(w) for w in labelled[1:]):
        # `Train   178.69   81.15   0.82` and `Valid   183.63   91.98   0.92` under one header of metric names (SevenNet's
        # epoch table): the row's first word, in the column the header leaves unnamed, is the split it measured
        cells, split = list(labelled[1:]), printed._split_of(labelled[:1])
    if len(cells) < len(header) and not blanks:
        spaced = line.split()  # `1 52.376` under `Step   Loss`: numbers one blank apart
        if len(spaced) == len(header) and all(_NUM_OR_NA.match(w) for w in spaced):
            cells = spaced
    if len(cells) < len(header):
        header = _without_val_columns(header, len(cells))
        if header is None:
            return None
    if len(cells) > len(header) and not blanks:
        header = _snake_split(header, len(cells))
    while len(cells) > len(header) and _DURATION_CELL.match(cells[-1]):
        cells = cells[:-1]  # a time column the header does not name (fastai v1's `(00:13)`)
    if len(cells) > len(header) and not _HAS_DIGIT.search(cells[-1]):
        kept = cells[:-1]  # a note after a row of numbers (`← best`, `*`): the row is its numbers
        while len(kept) > len(header) and not _HAS_DIGIT.search(kept[-1]):
            kept = kept[:-1]
        if len(kept) == len(header) and all(_TABLE_NUM.match(c.strip()) for c in kept):
            cells = kept
    if len(cells) == len(header) + 1 and cells[0].isdigit() and line[:1].isdigit() \
            and any(printed.known_key(n, loose=True) for n in header):
        cells = cells[1:]  # pandas prints a DataFrame's index before its columns, with no name over it
    cells = cells[: len(header)] if len(cells) > len(header) and _HAS_TQDM_END.search(line) else cells
    if len(cells) != len(header):
        return None
    values: dict = {}
    epoch = None
    dropped = 0  # number cells of columns not kept (a `-` column holds a number too)
    # (a note behind the last cell's own word is read only in a row whose other cells are all numbers)
    noted = " " in cells[-1].strip() and all(_TABLE_NUM.match(c.strip()) for c in cells[:-1])
    for i, (name, cell) in enumerate(zip(header, cells)):
        cell = cell.replace("**", "").replace("__", "").strip().rstrip(",;")  # Markdown bold: `**76.15%** ⭐`; `0.93,`
        if cell[:1] == "[" and cell[-1:] == "]":
            total = _list_total(cell)  # `[1.45e+02, 3.45e+04]`: one loss term per entry
            if total is None:
                continue
            cell = repr(total)
        if " " in cell:
            own, rest = cell.split(None, 1)
            note = _CELL_NOTE.match(rest) if noted and i == len(cells) - 1 and rest[:1].isalpha() else None
            if note:  # `no LR -> 1.50e-04` (the LR notice reads it `learning rate: 1.50e-04`) behind the last
                values[note.group(1)] = printed.to_number(note.group(2))  # cell's own word: the new rate
            cell = own
            if own[-1:] == ":" and printed.unit_of(own[:-1]).endswith("/s") and rest[:1] in _VALUE_LEADS:
                # `images/sec: 492.6 +/- 0.0 (jitter = 0.0)` under `Img/sec` (tf_cnn_benchmarks): the cell
                # names its rate's unit again, then the value, then how much it varies
                cell = rest.split(None, 1)[0]
        m = _TABLE_NUM.match(cell.split(":")[0].strip())
        if not m:
            if cell in _NA_CELLS:
                dropped += 1  # (`NA`, `N/A`: R's and pandas' word for a cell with no value; the row is a row still)
            continue
        v = printed.to_number(m.group(1))
        if name == "-" or name.lower() in _COUNT_COLUMNS or (name.lower() in _CLOCK_COLUMNS and abs(v) >= 1e8):
            dropped += 1  # (a clock column, Unix seconds or milliseconds: when the row was written, not a metric)
            continue
        if printed._key_role(name) == "epoch":
            epoch = v
        elif printed._key_role(name) == "step":
            values["step"] = v
        else:
            values[name] = v
    if not values or len(values) + (epoch is not None) + dropped < max(min(2, len(header)), len(header) // 2):
        return None
    if split == "eval":
        values = {f"val_{k}" if k != "step" else k: v for k, v in values.items()}
    return values, epoch


# (an ordinal, `1st`, `3rd`: the label of a summary's row, R's `1st Qu.:`, not a number)
_TABLE_NUM = re.compile(r"^(" + printed.NUM_BODY + r")(?!st$|nd$|rd$|th$)(?:/\d+)?[A-Za-z%]{0,3}$")
# The blocks a progress bar is drawn with: a redraw the paste kept in part leaves them glued before a row
_BAR_BLOCKS = "\u2588\u2589\u258a\u258b\u258c\u258d\u258e\u258f"
_NA_CELLS = frozenset({"NA", "N/A", "n/a", "<NA>"})
_LIST_ITEM = re.compile(r"^" + _NUM + r"$")


_VAL_PARTS = frozenset({"val", "valid", "tst", "test"})
_TRN_PARTS = ("trn", "train")


def _without_val_columns(header: list[str], width: int) -> list[str] | None:
    """A header that names each error twice, a validation and a training column (`rmse_val
    rmse_trn`, `l2_tst l2_trn`), over rows that are narrower by just the validation columns: a
    trainer with no validation data left them out of its rows (DeePMD's v3 lcurve.out keeps the
    full header), so the rows hold the other names in order. Any other shortfall: None."""
    lowered = {n.lower() for n in header}
    keep = []
    for name in header:
        parts = name.lower().split("_")
        at = next((i for i, p in enumerate(parts) if p in _VAL_PARTS), None)
        if at is not None and any("_".join(parts[:at] + [t] + parts[at + 1:]) in lowered for t in _TRN_PARTS):
            continue
        keep.append(name)
    if len(keep) != width or len(keep) == len(header):
        return None
    return keep


def _snake_split(header: list[str], width: int) -> list[str]:
    """A header whose columns two blanks part except where a name fills its column and one blank is
    left (`step  rmse_val  rmse_lc_val rmse_lc_trn  lr`), over rows with a cell for each name: the
    cells that hold two snake_case names (or two counters' names) are two columns. A phrase (`Train
    loss`) stays one."""
    if not any(" " in n for n in header):
        return header
    words = [w for n in header for w in n.split(" ")]
    if len(words) != width or not all("_" in w or printed._key_role(w) in ("step", "epoch", "batch")
                                      for n in header if " " in n for w in n.split(" ")):
        return header  # (`# Epoch batch  loss ...`: two counters are two columns too, NequIP's batch table)
    return words


# One name, then a bracketed list of numbers, one per class (nnU-Net's `Pseudo dice [0.0, nan, 0.83]`, v1's
# `Average global foreground Dice: [0.87, 0.0009]`; numpy's `[np.float32(0.71), np.float32(0.02)]`)
_LIST_VALUE = r"(?:np\.float(?:16|32|64)\()?" + _NUM + r"\)?"
_NAMED_LIST = re.compile(r"^([A-Za-z][\w()./-]*(?: [\w()./-]+){0,5}):? ?\[\s*(" + _LIST_VALUE + r"(?:\s*,\s*"
                         + _LIST_VALUE + r"){0,63})\s*,?\s*\]$")
_LIST_WRAP = re.compile(r"np\.float(?:16|32|64)\(|\)")


def _mean_of_named_list(c: str) -> str:
    """`Pseudo dice [0.0, nan, 0.83]` (a metric per class, printed a line under an epoch's heading with its
    other values one a line): the line as `Pseudo dice: <mean>`, the mean of the classes that have a value
    (a class absent from the validation cases scores nan; all nan is nan). Any other line is returned as is."""
    m = _NAMED_LIST.match(c)
    if m is None:
        return c
    vals = [to_float(x) for x in _LIST_WRAP.sub("", m.group(2)).split(",")]
    if any(v is None for v in vals):
        return c
    finite = [v for v in vals if v == v]
    mean = sum(finite) / len(finite) if finite else NAN
    return f"{m.group(1)}: {mean:.6g}"


def _list_total(cell: str) -> float | None:
    """A cell that holds a bracketed list of numbers (a physics-informed net prints one term per
    equation and boundary condition: `[1.2e+02, 3.4e+01]`): the terms add up to the objective the
    optimiser follows; one term is the value itself. An empty list (`[]`) holds nothing."""
    items = [x.strip() for x in cell[1:-1].split(",")]
    if not items or not all(_LIST_ITEM.match(x) for x in items):
        return None
    return float(sum(printed.to_number(x) for x in items))


def _rising(records: list[_Rec]) -> bool:
    """Epochs that can serve as the step: present, and never repeated by two train records of one
    kind of line (HF prints a fractional epoch on every dict; several dicts at epoch 0.53 need line
    order). A drop is a new run or a resume; records of other lines may share an epoch, and so may the
    records of two runs (the epoch counter of the train lines went back between them: a script re-run and
    appended to the same log prints its closing `Training complete` line at epoch 90 every time)."""
    last: dict[str, float] = {}
    prev = None  # the epoch of the last train record
    for rec in records:
        if rec.epoch is None or rec.label == "eval":
            continue
        e_first = float(rec.epoch[0]) if type(rec) is _Bulk else rec.epoch
        if prev is not None and e_first < prev:
            last.clear()  # (a new run, or a resume: what came before is another pass)
        prev = float(rec.epoch[-1]) if type(rec) is _Bulk else rec.epoch
        # by the line's template and its keys (`Top1: 78.9%` and `Top5: 96.0%` share a template)
        kind = (rec.template or rec.source) + ":" + ",".join(sorted(map(str, rec.values)))
        if type(rec) is _Bulk:
            e = rec.epoch
            if last.get(kind) == e[0] or bool((e[1:] == e[:-1]).any()):
                return False
            last[kind] = float(e[-1])
            continue
        if last.get(kind) == rec.epoch:
            return False
        last[kind] = rec.epoch
    return bool(last)


def _drop_echoes(records: list, plans: dict, b: RunBuilder, lines_in: dict[int, int] | None = None) -> list:
    """A printed line with no counter of its own whose every number repeats a value of the record
    just before it, under names that are no metric or quote its metric in other words, echoes that
    record (`Epoch 3 - Val Loss: 2.31` then `保存最佳模型 (val_loss=2.31)`, "saving the best model"):
    it is not a second measurement."""
    from triage.ingest.aliases import table

    keep: list = []
    prev: dict | None = None  # the values of the last record kept (its last line for a bulk)
    prev_tpl = prev_label = None
    prev_at: tuple = (None, None)  # that record's epoch and step
    prev_keras_eval = False  # whether that record is a Keras `evaluate()` bar after `fit()`
    for rec in records:
        tpl = rec.template
        plan = plans.get(tpl) if tpl and type(rec) is _Rec else (rec.shape.plan if type(rec) is _Bulk else None)
        first = rec.row(0) if type(rec) is _Bulk and len(rec) else rec.values
        # (`New best model saved! Epoch: 1, val_acc: 0.87` after `Epoch 1/5 | ... | val_acc: 0.87`: a notice
        # of the best model repeats the pass's counter and its metric's own name, and is an echo too)
        notice = type(rec) is _Rec and plan is not None and _BEST_SAVED.search(tpl) is not None \
            and rec.epoch == prev_at[0] and rec.step in (None, prev_at[1])
        if plan is not None and (not plan.counter or notice) and prev and tpl != prev_tpl and first \
                and (_echoes(first, rec.label, prev, prev_label, table(), same_name=notice)
                     or (prev_keras_eval and _evaluate_echo(first, prev, table()))):
            b.skip("a line that repeats the values printed just before it")
            if type(rec) is _Rec:
                if lines_in is not None and type(keep[-1]) is _Rec:
                    # (the echo is one more printed line of the record it repeats: `total loss: 4.6e7` then
                    # `totalloss: 4.6e7`, one reading the log printed twice)
                    _more_lines(lines_in, keep[-1].line)
                continue
            rec.drop_first()
            if not len(rec):
                continue
        keep.append(rec)
        if type(rec) is _Bulk:
            prev = rec.row(len(rec) - 1) if len(rec) else prev
        elif rec.values:
            prev = rec.values
        prev_tpl, prev_label = tpl, rec.label
        prev_at = (None, None) if type(rec) is _Bulk else (rec.epoch, rec.step)
        prev_keras_eval = type(rec) is _Rec and rec.source == "keras" and bool(rec.values) \
            and all(str(k).startswith("test_") for k in rec.values)
    return keep


def _evaluate_echo(values: dict, bar: dict, tab) -> bool:
    """`print('loss=', score[0])`, `print('accuracy=', score[1] * 100, '%')` under a Keras `evaluate()` bar
    (`313/313 [====] - loss: 0.0531 - accuracy: 0.9836`): each value is the bar's value of that metric at
    full precision (or as a percentage), printed again by the notebook; not a training reading."""
    shown = {tab.resolve(str(k)[5:], "text").name: to_float(v) for k, v in bar.items()}
    for k, v in values.items():
        f, want = to_float(v), shown.get(tab.resolve(str(k), "text").name)
        if f is None or want is None or f != f or want != want:
            return False
        if not any(abs(x - want) <= max(5e-5, 1e-4 * abs(want)) for x in (f, f / 100)):
            return False
    return True


def _fold_repeats(records: list, lines_in: dict[int, int]) -> list:
    """A printed record right after one of the same shape, counter and values is that record printed
    again: TensorFlow's `INFO:tensorflow:Step 5800 ... loss=3.884` then absl's `I1029 ... model_lib_v2.py:652]
    Step 5800 ... loss=3.884` (one message, two log handlers). It is one record, the second copy one more
    of its printed lines. Only named lines that carry a counter (a step, epoch or batch): rows of bare numbers
    (a headerless table, `<pair>` lines) written twice stay rows, as the file has them."""
    keep: list = []
    for rec in records:
        last = keep[-1] if keep else None
        if type(rec) is _Rec and type(last) is _Rec and rec.values and rec.template and "<" not in rec.template \
                and rec.line != last.line \
                and (rec.step is not None or rec.epoch is not None or rec.batch is not None) \
                and rec.template == last.template and rec.step == last.step and rec.epoch == last.epoch \
                and rec.batch == last.batch and rec.label == last.label and _same_values(rec.values, last.values):
            _more_lines(lines_in, last.line, lines_in.pop(rec.line, 1))
            continue
        keep.append(rec)
    return keep


_LOGGER_ECHO = "a line printed twice in a row by two loggers (the same message under another prefix)"
_PREFIX_DIGITS = re.compile(r"\d+")


def _drop_logger_echoes(records: list, lines: list[str], b: RunBuilder, lines_in: dict[int, int]) -> list:
    """A record with no counter of its own printed on the line right after one of the same shape and values,
    the two lines told apart only by the prefix before the message, of another shape (`INFO:tensorflow:
    examples/sec: 11.7` then absl's `I0402 11:01:06.012281 1401 tpu_estimator.py:2308] examples/sec: 11.7`:
    a message written through two log handlers): the second copy is an echo, skipped. Copies with a counter
    are folded by `_fold_repeats`; the same line under a prefix of the same shape (a time stamp that moved
    on) is two readings, as printed."""
    keep: list = []
    for rec in records:
        last = keep[-1] if keep else None
        if type(rec) is _Rec and type(last) is _Rec and rec.values and rec.template and "<" not in rec.template \
                and rec.step is None and rec.epoch is None and rec.batch is None \
                and rec.template == last.template and last.step is None and last.epoch is None \
                and last.batch is None and rec.label == last.label \
                and rec.line == last.line + lines_in.get(last.line, 1) and 0 < rec.line <= len(lines) \
                and _same_values(rec.values, last.values) and _other_prefix(lines[last.line - 1], lines[rec.line - 1]):
            b.skip(_LOGGER_ECHO, lines_in.pop(rec.line, 1))
            continue
        keep.append(rec)
    return keep


def _other_prefix(a: str, c: str) -> bool:
    """Two printed lines that hold the same message after prefixes of different shapes (their digits
    aside): one message written by two loggers."""
    a, c = a.rstrip(), c.rstrip()
    if printed.clean(a).strip() != printed.clean(c).strip():
        return False
    n = 0
    m = min(len(a), len(c))
    while n < m and a[-1 - n] == c[-1 - n]:
        n += 1
    if n == 0 or n == m:
        return False
    return _PREFIX_DIGITS.sub("#", a[:-n]).strip() != _PREFIX_DIGITS.sub("#", c[:-n]).strip()


def _count_joined(b: RunBuilder, n: int) -> None:
    """`n` more printed lines went into records read from earlier lines (meta `joined_lines`)."""
    b.meta["joined_lines"] = b.meta.get("joined_lines", 0) + n


def _more_lines(lines_in: dict[int, int], line: int, n: int = 1) -> None:
    """`n` more printed lines went into the record that starts at `line` (it was read from one line so far)."""
    lines_in[line] = lines_in.get(line, 1) + n


def _same_values(a: dict, b: dict) -> bool:
    """The same names with the same numbers (a NaN the same as a NaN: `loss=nan` printed twice)."""
    if a.keys() != b.keys():
        return False
    for k, v in a.items():
        w = b[k]
        if v != w and not (isinstance(v, float) and isinstance(w, float) and v != v and w != w):
            return False
    return True


def _drop_previews(records: list, plans: dict, b: RunBuilder, lines_in: dict[int, int]) -> list:
    """Lines with no counter printed just before a dict record, each value under a key of that dict and
    equal to its value as far as the line rounds it (`num_tokens: 430669.0000`, `completions/mean_length:
    142.7391` above `{'num_tokens': 430669.0, 'completions/mean_length': 142.7390625, ...}`): a digest the
    trainer prints of the record it is about to log, not records of their own."""
    drop: set[int] = set()
    for k, rec in enumerate(records):
        if type(rec) is not _Rec or rec.template or rec.source != "hf_stdout" or len(rec.values) < 4:
            continue
        j = k - 1
        while j >= 0:
            prev = records[j]
            plan = plans.get(prev.template) if type(prev) is _Rec and prev.template else None
            if plan is None or plan.counter \
                    or not prev.values or not all(_rounds_to(v, rec.values.get(key)) for key, v in prev.values.items()):
                break
            j -= 1
        # (a digest lists several, maybe read as one record of its lines; one line before a dict may be a
        # notice of its own)
        if sum(len(records[i].values) for i in range(j + 1, k)) >= 2:
            drop.update(range(j + 1, k))
    if not drop:
        return records
    b.skip("a digest of the dict record printed after it", sum(lines_in.get(records[i].line, 1) for i in drop))
    return [rec for i, rec in enumerate(records) if i not in drop]


def _rounds_to(printed_value, full) -> bool:
    """`printed_value` is `full` as a line rounds it (to four decimals or finer)."""
    a, f = to_float(printed_value), to_float(full)
    if a is None or f is None or a != a or f != f:
        return False
    return abs(a - f) <= max(5e-5, 1e-4 * abs(f))


# A notice that the best model so far was saved (`New best model saved!`, `Saving best model`, `新最佳模型已保存`)
_BEST_SAVED = re.compile(r"(?i)\bbest\s+model\b|最[佳优][^\s|:,]{0,6}?模型")  # (`最优扩散模型`: the best diffusion model)


def _drop_bar_echoes(records: list, b: RunBuilder) -> list:
    """A finished progress bar's postfix (`190/190 [03:08<00:00, train_loss=0.945]`) is the pass's
    running value; when the next record is a summary line that prints every one of its values again
    under the same metric (`epoch: 1 - train loss: 9.45e-01 - valid loss: 1.23`), the summary is the
    record and the bar a copy of part of it."""
    from triage.ingest.aliases import table

    tab = table()
    keep: list = []
    for k, rec in enumerate(records):
        nxt = records[k + 1] if k + 1 < len(records) else None
        if type(rec) is _Rec and rec.template.startswith("<bar>") and not rec.template.endswith("<running>") \
                and type(nxt) is _Rec and not nxt.template.startswith("<bar>") and rec.values \
                and _repeated_in(rec, nxt, tab):
            b.skip("a progress bar's values printed again by the summary after it")
            continue
        keep.append(rec)
    return keep


def _repeated_in(rec: _Rec, later: _Rec, tab) -> bool:
    """Every value of `rec` is in `later` under a key of the same canonical metric."""
    names: dict[str, set] = {}
    for k, v in later.values.items():
        f = to_float(v)
        if f is not None:
            names.setdefault(tab.resolve(_emit_key(str(k), later.label), "text").name, set()).add(f)
    for k, v in rec.values.items():
        f = to_float(v)
        if f is None or f not in names.get(tab.resolve(_emit_key(str(k), rec.label), "text").name, ()):
            return False
    return True


def _echoes(values: dict, label: str, prev: dict, prev_label: str, tab, same_name: bool = False) -> bool:
    """Every value equals a value of `prev`, under a key that names no metric or quotes that value's
    metric in other words (`保存最佳模型 (val_loss=2.31)` after `Val Loss: 2.31`). The same key spelled
    the same way on another line shape is a record of its own (Caffe's `Train net output #0: loss`),
    unless `same_name` (a best-model notice, which quotes the name as it is). Zeros under other names
    prove nothing: two metrics both at 0.0 (`Average loss: 0.0000` then `error= 0.0%, loss= 0.0000`)
    agree by chance."""
    before: dict[float, list[str]] = {}
    for k, v in prev.items():
        f = to_float(v)
        if f is not None and f == f:
            before.setdefault(f, []).append(str(k))
    if not any(to_float(v) for v in values.values()) \
            and {str(k).lower() for k in values}.isdisjoint(str(k).lower() for k in prev):
        return False
    for k, v in values.items():
        f = to_float(v)
        if f is None or f not in before:
            return False
        key = str(k)
        res = tab.resolve(_emit_key(key, label), "text")
        if not res.known:
            continue
        same = [p for p in before[f] if tab.resolve(_emit_key(p, prev_label), "text").name == res.name]
        if not same or (not same_name and any(p.lower() == key.lower() for p in same)):
            return False
    return True


def _emit_key(key: str, label: str) -> str:
    """The key a record's value is added under: an evaluation line's keys get `eval/` unless they
    name their own split."""
    return "eval/" + key if label == "eval" and not printed.SPLIT_WORDS.search(key) else key


def _join_heading_times(records: list) -> list:
    """`Step 2800 (epoch 3.26), 16.1 ms` then `Minibatch loss: 2.458`, `Validation error: 1.2%` (lines with
    no counter): a counter line that gives only how long its pass took heads the lines below it. Its
    duration and counters go to the first of them, not a reading of its own."""
    out = []
    skip = False
    for i, rec in enumerate(records):
        if skip:
            skip = False
            continue
        nxt = records[i + 1] if i + 1 < len(records) else None
        if type(rec) is _Rec and type(nxt) is _Rec and rec.source == "text" and nxt.source == "text" \
                and (rec.step is not None or rec.epoch is not None) and rec.values \
                and nxt.step is None and nxt.epoch is None and nxt.batch is None and rec.label == nxt.label \
                and all(_is_pass_time(str(k)) or _TIME_WITH_UNIT.match(str(k)) for k in rec.values) \
                and rec.values.keys().isdisjoint(nxt.values):
            out.append(nxt._replace(values={**rec.values, **nxt.values}, step=rec.step, epoch=rec.epoch,
                                    batch=rec.batch, total=rec.total))
            skip = True
            continue
        out.append(rec)
    return out


_TIMED_PHASES = frozenset({"inference", "train", "training", "eval", "evaluation", "test", "testing", "val",
                           "valid", "validation", "epoch", "total", "wall", "run", "time", "cost", "secs", "sec", "s"})


def _lone_time_key(key: str) -> bool:
    """A name that says only how long a pass or a phase of it took (`cost time`, `Inference Time`, `Time`)."""
    if _is_pass_time(key) or _TIME_WITH_UNIT.match(key):
        return True
    words = [w for w in re.split(r"[\W_]+", key.lower()) if w]
    return len(words) >= 2 and words[-1] == "time" and set(words) <= _TIMED_PHASES


def _fold_lone_times(records: list) -> list:
    """Lines that give nothing but a duration within an epoch: one with no counter of its own (`Time:
    33534.0` after the epoch's last lines) is part of the record just before it when that is of the same
    epoch; one that names the phase it timed beside its counter (`Epoch: 30, Inference Time: 7.65 secs`)
    is part of that epoch's record just after it. The time of a whole pass printed with its counter
    (`Epoch: 1 cost time: 3.88`, `Time taken for 1 epoch: 29.0 secs`) stays a reading of its own, as does
    any line whose neighbour is of another epoch or already has the name."""
    out: list = []
    i, n = 0, len(records)
    while i < n:
        rec = records[i]
        if type(rec) is not _Rec or rec.source != "text" or not rec.values or rec.epoch is None \
                or rec.step is not None or rec.batch is not None \
                or not all(_lone_time_key(str(k)) for k in rec.values):
            out.append(rec)
            i += 1
            continue
        prev = out[-1] if out else None
        nxt = records[i + 1] if i + 1 < n else None
        own = rec.template.count("#") > len(rec.values)  # (it prints its own counter: `Epoch: 3 cost time: #`)
        if own:
            prev = None  # (a pass's own closing line, `Time taken for 1 epoch: 29.0 secs`, is a reading)
            if all(_is_pass_time(str(k)) for k in rec.values):
                nxt = None  # (`Epoch: 3 cost time: 91.2`: the time of the whole pass, before its summary)
        if type(prev) is _Rec and prev.source == "text" and prev.epoch == rec.epoch \
                and rec.label in ("", prev.label) and prev.values.keys().isdisjoint(rec.values):
            out[-1] = prev._replace(values={**prev.values, **rec.values})
        elif type(nxt) is _Rec and nxt.source == "text" and nxt.epoch == rec.epoch \
                and rec.label in ("", nxt.label) and nxt.values.keys().isdisjoint(rec.values):
            out.append(nxt._replace(values={**nxt.values, **rec.values}))
            i += 1
        else:
            out.append(rec)
        i += 1
    return out


_COUNT_BEFORE = re.compile(r"^\S*\[\d+\]\s")  # (`INFO:absl:[96] steps_per_sec=...`: the step in brackets)
_RATE_AGAIN = "a rate printed again before the next record (no counter of its own; its step's row has its rate)"


def _fold_lone_rates(records: list, lines: list[str], b: RunBuilder, lines_in: dict[int, int]) -> list:
    """Lines that give nothing but how fast training runs, with no counter of their own (TF's hooks:
    `global_step/sec: 2.09`, `examples/sec: 11.7`, beside `loss = 48.2, step = 1001` lines), are part of a
    step's row, not rows of their own. Where the log's first such line comes before any counter, on the line
    right before a record with one, the log prints each rate before its step's line: a rate then goes with
    the record on the very next line when that has a counter and no rate. Otherwise a rate is read at the
    step of the record before it (it joins that step's row) unless that row has its rate already: it is then
    a second reading of the rate at a step that has one, skipped. The same rate line written again on the
    next line (two log handlers of one format) is one more printed line of it. A rate before any counter,
    and not right before a record, stays a row of its own. A rate whose message follows a count in brackets
    (clu's `[96] steps_per_sec=0.78`) prints its step: it is none of these."""
    from triage.ingest.aliases import table

    def rate(rec) -> frozenset:
        if type(rec) is not _Rec or rec.source != "text" or not rec.values \
                or rec.step is not None or rec.epoch is not None or rec.batch is not None:
            return frozenset()
        names = frozenset(table().resolve(_emit_key(str(k), rec.label), "text").name for k in rec.values)
        if names != {"throughput"} or 0 < rec.line <= len(lines) and _COUNT_BEFORE.search(lines[rec.line - 1]):
            return frozenset()
        return names

    def after(rec) -> int:
        return rec.line + lines_in.get(rec.line, 1)

    if not any(type(rec) is _Rec and rec.step is None and rec.epoch is None and rec.batch is None
               and rec.values and rate(rec) for rec in records):
        return records
    out: list = []
    held: list = []  # the keys of the current step's row (since the last record with a counter)
    counted = False  # whether a record with a counter came before
    forward: bool | None = None  # whether the log prints each rate before its step's line
    n = len(records)
    i = 0
    while i < n:
        rec = records[i]
        names = rate(rec)
        if not names:
            if type(rec) is _Bulk or rec.step is not None or rec.epoch is not None or rec.batch is not None:
                counted, held = True, list(rec.values)
            else:
                held.extend(rec.values)
            out.append(rec)
            i += 1
            continue
        last = out[-1] if out else None
        if type(last) is _Rec and last.template == rec.template and after(last) == rec.line \
                and rate(last) and _same_values(last.values, rec.values):
            _count_joined(b, lines_in.get(rec.line, 1))
            i += 1
            continue
        labels = ("", rec.label)
        nxt = records[i + 1] if i + 1 < n else None
        ahead = type(nxt) is _Rec and nxt.step is not None and after(rec) == nxt.line and nxt.label in labels \
            and not any(table().resolve(_emit_key(str(k), nxt.label), "text").name in names for k in nxt.values)
        if forward is None:
            forward = ahead and not counted
        has = counted and any(table().resolve(_emit_key(str(k), lab), "text").name in names
                              for k in held for lab in labels)
        if forward and ahead:
            counted, held = True, list(nxt.values) + list(rec.values)
            out.append(nxt._replace(values={**rec.values, **nxt.values}))
            _count_joined(b, lines_in.get(rec.line, 1))
            i += 1
        elif has:
            b.skip(_RATE_AGAIN, lines_in.get(rec.line, 1))
        else:
            held.extend(rec.values)
            out.append(rec)
        i += 1
    return out


_TIME_WITH_UNIT = re.compile(r"^(?:step_|epoch_|iter_)?time_(?:ms|s|sec|min)$")  # (a bare duration's generated name)


def _dict_number(v: object) -> float | None:
    """A dict's counter as a number: newer HF Trainer and TRL releases print every logged value as a
    formatted string (`{'loss': '3.625', 'epoch': '0.0179'}`), so a quoted number counts too."""
    f = to_float(v)
    if f is None and type(v) is str:
        try:
            f = float(v)
        except ValueError:
            return None
    return f


def _dict_count(v: object) -> float | None:
    """A counter a dict holds as a whole number, or as a string of one with its total after a slash
    (`10`, `"10"`, `"10/50"`); None for anything else."""
    if type(v) is int:
        return float(v)
    if type(v) is str:
        head, _, tail = v.partition("/")
        if head.strip().isdigit() and (not tail or tail.strip().isdigit()):
            return float(head)
    return None


_BYTE_RATE = re.compile(r"[^\]\n]{0,60}?\d(?:\.\d*)?\s?[kKMGT]?i?B/s\b")


def _byte_bar(s: str, m: re.Match) -> bool:
    """A bar that counts bytes (`config.json: 100% 608/608 [00:00<00:00, 4.53MB/s]`, a download or an
    upload: its rate is in B/s, kB/s, MB/s): its counter is a file's size, not a step of the run."""
    return _BYTE_RATE.match(s, m.end()) is not None


_TRAIN_WORDS = ("training", "train")


def _split_said_twice(records: list, plans: dict) -> list:
    """A loop that names its split in its metric names (`step 4 | training loss = 2.05`) reads as the
    training split's `loss` (the line's one split word labels the line); where the same line also
    prints an evaluation's values (`step 5 | training loss = 1.93 | validation loss = 2.12`), the
    names keep their split words. The training loss there is the same series: the key is read as the
    labelled lines read it, so one metric does not become two. Only where a training-labelled template
    prints that very spelling (`iter 10: loss 9.89` beside `step 0: train loss 10.95, val loss 10.95`,
    nanoGPT's estimate over evaluation batches, stays its own series)."""
    said: dict[str, str] = {}  # `training loss` -> `loss`, from the templates labelled train
    for tpl, plan in plans.items():
        if plan.label != "train" or not tpl:
            continue
        low = tpl.lower()
        for sl in plan.slots:
            if sl.role == "value" and sl.key:
                for w in _TRAIN_WORDS:
                    spelt = f"{w} {sl.key}".lower()
                    if spelt in low or f"{w}_{sl.key}".lower() in low:
                        said[spelt] = said[spelt.replace(" ", "_")] = sl.key
    if not said:
        return records
    out = []
    for rec in records:
        if type(rec) is _Rec and rec.template and not rec.label and any(str(k).lower() in said for k in rec.values):
            values = {said.get(str(k).lower(), k): v for k, v in rec.values.items()}
            if len(values) == len(rec.values):
                rec = rec._replace(values=values)
        out.append(rec)
    return out


def _hf_by_epoch(records: list) -> list:
    """HF dict lines whose progress bar stood still between them (the bar of a finished dataset `map`,
    not the trainer's) have no step of their own: when every one of them prints its epoch, the
    epochs place them all (a step on some and not on others would stack the rest on one step). A dict
    with neither (a script's own closing `{'mcq_acc': 0.84, 'n_eval': 300}`) does not stand in the way."""
    hf = [rec for rec in records if type(rec) is _Rec and rec.source == "hf_stdout"]
    if not hf or any(rec.epoch is None and rec.step is not None for rec in hf) \
            or all(rec.epoch is None for rec in hf):
        return records
    return [rec._replace(step=None) if type(rec) is _Rec and rec.source == "hf_stdout" else rec
            for rec in records]


def _once(rows: list) -> list:
    """The rows' counters with a line written twice over counted once (DeepXDE's loss.dat writes each display
    step twice over in some runs: the same counter, the same numbers, one line after the other)."""
    return [rec.step for i, rec in enumerate(rows)
            if not i or rec.step != rows[i - 1].step or rec.values != rows[i - 1].values]


def _rises(steps: list) -> bool:
    """The counter always rises but for going back to where it began (a resumed run appended to the same file)."""
    return all(a < z or z <= steps[0] for a, z in zip(steps, steps[1:])) and steps[-1] > steps[0]


# the counters kept beside a report's `results` (a federated round is the run's step)
_RESULT_COUNTERS = {"step": "step", "global_step": "global_step", "epoch": "epoch", "round": "step", "Round": "step"}


def _index_map(d: dict) -> bool:
    """Every value a whole number (or one quoted), together each index from 0 once (`{'dog': '0',
    'rooster': '1', 'pig': '2', ...}`, a dataset's `class_to_idx`): labels and the indices they get,
    no measurement."""
    if len(d) < 4:
        return False
    idx = set()
    for v in d.values():
        if type(v) is int:
            idx.add(v)
        elif type(v) is str and v.isdigit():
            idx.add(int(v))
        else:
            return False
    return idx == set(range(len(d)))


def _quoted_numbers(d: dict) -> dict | None:
    """A record exported with every value a quoted number (`"loss": "0.6874", "learning_rate": "3.62E-06"`:
    a log history re-written for a dashboard, or newer HF releases): its numbers, when every value
    reads as one and a key names a loss or an accuracy; a settings dict quotes words too, and names
    neither (`"lr": "1e-4"` alone is a setting)."""
    if not all(type(v) is str for v in d.values()) or not any(printed.names_loss_or_accuracy(str(k)) for k in d):
        return None
    out = {}
    for k, v in d.items():
        try:
            out[k] = float(v)
        except ValueError:
            return None
    return out


def _hf_eval(rec: _Rec) -> bool:
    return any(str(k).startswith(("eval_", "test_")) for k in rec.values)


def _hf_before_bars(records: list) -> list:
    """HF dict lines printed before the log shows any progress bar (an excerpt that starts mid-run,
    or `logging_first_step` before the first redraw) have no step, and would all stack on the first
    one. When they print their epoch, the first dict that has both a step and an epoch gives the rate
    of steps per epoch, and that rate places them."""
    head = []
    for i, rec in enumerate(records):
        if type(rec) is not _Rec or rec.source != "hf_stdout":
            continue
        if rec.step is None:
            if rec.epoch is None or not math.isfinite(rec.epoch):  # (an epoch printed as nan places nothing)
                return records
            head.append(i)
            continue
        if not head or rec.epoch is None or not math.isfinite(rec.epoch) or not math.isfinite(rec.step) \
                or rec.epoch <= 0 or rec.step <= 0:
            return records
        rate = rec.step / rec.epoch
        placed = [float(round(records[j].epoch * rate)) for j in head]
        trains = [st for j, st in zip(head, placed) if not _hf_eval(records[j])]
        trains += [] if _hf_eval(rec) else [rec.step]
        if any(b <= a for a, b in zip(trains, trains[1:])):
            return records  # (epochs printed too coarsely to tell the steps apart: no place to give)
        out = list(records)
        for j, st in zip(head, placed):
            out[j] = records[j]._replace(step=st)
        return out
    return records


def _table_gaps(records: list, b: RunBuilder) -> list:
    """A table that two kinds of rows share (`Step  Train loss  Valid loss`: a training row fills one
    column, a validation row the other) writes `nan` in the cells a row has nothing for. When every row
    fills some of the columns that are ever NaN, leaves the rest NaN, and two rows fill either the same of
    those columns or none in common, each NaN is an empty cell, not a value that went NaN."""
    rows = [rec for rec in records if type(rec) is _Rec and not rec.template and rec.source == "text"]
    if len(rows) < 4 or any(rec.values.keys() != rows[0].values.keys() for rec in rows):
        return records
    gaps = {k for rec in rows for k, v in rec.values.items() if isinstance(v, float) and math.isnan(v)}
    if not gaps:
        return records
    kinds = set()
    for rec in rows:
        filled = frozenset(k for k in gaps if math.isfinite(rec.values[k]))
        if not filled or any(not math.isnan(rec.values[k]) for k in gaps - filled):
            return records  # (a row with no value, or an infinity: a measurement, no empty cell)
        kinds.add(filled)
    if len(kinds) < 2 or any(x != y and x & y for x in kinds for y in kinds):
        return records
    b.skip("an empty cell written as nan (a table whose rows fill different columns)",
           sum(math.isnan(rec.values[k]) for rec in rows for k in gaps))
    empty = {id(rec) for rec in rows}
    return [rec._replace(values={k: v for k, v in rec.values.items() if not (k in gaps and math.isnan(v))})
            if id(rec) in empty else rec for rec in records]


def _bare_pairs(records: list, b: RunBuilder) -> list:
    """Lines of a counter and one unnamed number (`0 1.0472`, `76930 2.6497`: a loop that prints `i` and
    its value) are the log's one series, named `value`, when they are all it holds: three or more, the
    counter always rising but for going back to where it began (a resumed run appended to the same file).
    Beside named records, or out of order, they are numbers of something else."""
    pairs = [rec for rec in records if type(rec) is _Rec and rec.template == _PAIR]
    steps = [rec.step for rec in pairs]
    if len(pairs) >= 3 and len(pairs) == len(records) and len(set(steps)) == 1:
        inner = [rec.values.get("value_1") for rec in pairs]
        if all(isinstance(v, float) and v.is_integer() for v in inner) and _rises(inner):
            # the first column holds while the second, an integer, rises (`epoch  iteration  lr  loss`): the
            # first is the epoch, the second the count
            records = pairs = [rec._replace(values={k: x for k, x in rec.values.items() if k != "value_1"},
                                            step=rec.values["value_1"], epoch=rec.step) for rec in pairs]
            steps = [rec.step for rec in pairs]
    if len(pairs) >= 3 and len(pairs) == len(records) and _rises(_once(pairs)):
        return records
    b.skip("lines of two bare numbers beside other records (no series of their own)", len(pairs))
    return [rec for rec in records if not (type(rec) is _Rec and rec.template == _PAIR)]


# Knobs of the optimiser and its schedule that a trainer is given, never measures
_OPTIMISER_KNOBS = frozenset({"learning_rate", "weight_decay", "momentum"})
_SCHEDULE_KNOB = re.compile(r"(?i)^(?:t_max|t_0|t_mult|beta_?[12]|eps|epsilon|gamma|step_size|warmup(?:_\w+)?|"
                            r"batch_size|train_batch_size|eval_batch_size|val_batch_size)$")


def _colon_named(tpl: str, nums: list, plan) -> bool:
    """Every number of a bar's description follows its own name and a colon (`ELBO: nan, ELBO (val): nan`):
    values the loop passed to set_description, named by the run even when triage knows none of the
    names. Bare numbers before a bar (a table row cut from its header) have no such names."""
    return bool(nums) and tpl.count(": #") == len(nums) == plan.keys \
        and all(slot.role == "value" and slot.key for slot in plan.slots)


def _settings_notes(records: list) -> bool:
    """Every record a printed line with no step, epoch or batch counter, every name on it a knob
    of the optimiser or its schedule (`lr = 0.0001, weight decay = 0.001, ... T_max = 20`), and
    some line naming a knob other than the learning rate: notes that list the settings of several
    runs, with nothing measured. (Counterless lines of the learning rate alone may be a schedule.)"""
    from triage.ingest.aliases import table

    tab = table()
    beyond_lr = False
    for rec in records:
        if type(rec) is not _Rec or not rec.template or not rec.values \
                or rec.step is not None or rec.epoch is not None or rec.batch is not None:
            return False
        for key in rec.values:
            name = tab.resolve(str(key), "text").name
            if name == "learning_rate":
                continue
            if name not in _OPTIMISER_KNOBS and not _SCHEDULE_KNOB.match(str(key).strip().replace(" ", "_")):
                return False
            beyond_lr = True
    return beyond_lr


def _scores_only(values: dict) -> bool:
    """Every name a metric the alias table knows, none a loss or an optimizer's setting (`wer`, `cer`, `dice`)."""
    tab = _aliases.table()
    names = [tab.resolve(str(k), "text").name for k in values]
    return bool(names) and all(printed.known_key(str(k)) for k in values) \
        and not any(n in _OPTIMISER_KNOBS or n == "loss" or _SCHEDULE_KNOB.match(str(k)) for n, k in zip(names, values))


def _one_off_counters(printed_recs: list, most: int) -> bool:
    """Every line shape printed once, none naming a metric triage knows, in a log of no other records:
    a counter among them is a size or a plan (`Starting training: history_window=30, epochs=50`, `Data
    shapes -> nodes: 2378, timesteps: 752`), not a step the run reached."""
    return most < 2 and len(printed_recs) <= 8 \
        and not any(printed.known_key(str(k), loose=True) for rec in printed_recs for k in rec.values)


_LONE_SETTINGS = "lone settings with no step counter (not a metric log)"


def _drop_one_offs(records: list[_Rec], counts: dict[str, int], b: RunBuilder,
                   config_lines: set[int] = frozenset(), tensor_lines: set[int] = frozenset(),
                   lr_notices: set[int] | frozenset = frozenset(),
                   error_lines: set[int] | frozenset = frozenset(),
                   lines_in: dict[int, int] | None = None) -> list[_Rec]:
    """A line shape printed once in a log whose metrics repeat is a setting or a banner
    (`num_parameters: 124475904`, `allocating 237 MiB`), unless it names a known metric
    (`Test accuracy: 0.98` at the end of a run). A loss or an accuracy whose number was printed
    inside a tensor's repr (`action_accuracy:  tensor(0., device='cuda:0')`) was computed by the
    run, never typed in as a setting: it stays even alone."""
    if config_lines:  # a config dump printed once or twice (a metric block under a header repeats)
        kept = [rec for rec in records if not (rec.line in config_lines and counts.get(rec.template, 0) <= 2)]
        if len(kept) < len(records):
            kept_ids = {id(rec) for rec in kept}
            b.skip("a setting in a config dump", sum(_lines(rec, lines_in) for rec in records if id(rec) not in kept_ids))
            records = kept
    if records and _settings_notes(records):
        b.skip("lines that list runs' settings and nothing measured (notes, not a metric log)",
               sum(_lines(rec, lines_in) for rec in records))
        return []
    printed_recs = [rec for rec in records if rec.template]
    most = max((counts.get(rec.template, 0) for rec in printed_recs), default=0)
    if printed_recs and (not any(rec.step is not None or rec.epoch is not None or rec.batch is not None
                                 for rec in printed_recs) or _one_off_counters(printed_recs, most)) \
            and (most < 2 or (most < 3 and not any(printed.known_key(str(k)) for rec in printed_recs
                                                   for k in rec.values))):
        varying_losses = _varying_losses(printed_recs)
        # nothing repeats and nothing counts steps: settings quoted in prose (`learning_rate: 2e-4`), or a
        # banner's numbers (`| 4MiB / 81920MiB | 0% Default |`); but a line of an evaluation whose every
        # name is a metric (`**Test - WER: 0.21, CER: 3.5, loss: 25.2**`) is the result of a test run
        def measured(rec) -> bool:  # (a progress bar's metrics are no setting)
            return not rec.template or rec.template.startswith("<bar>") or _evaluation_result(rec) or _loss_record(rec) \
                or _split_named_result(rec) \
                or _results_block(rec) \
                or _nonfinite_metric(rec) or _split_measurement(rec) or _computed_list(rec) or _running_summary(rec) \
                or _split_led_scores(rec) or _result_measurement(rec) or rec.template in varying_losses \
                or (rec.line in tensor_lines and all(printed.names_loss_or_accuracy(str(k)) for k in rec.values))

        # (of the lines no other rule keeps, a block of scores printed together is an evaluation's report)
        report = _score_report_lines([rec for rec in printed_recs if not measured(rec)])
        listing = _per_item_lines(printed_recs)
        # a line shape that one print shows to be a measurement (`avg loss: nan`) is one in its other prints
        # too (`avg loss: 108.36` from the same call, a second run pasted below the first)
        measured_shapes = {rec.template for rec in printed_recs if measured(rec)}

        def kept(rec) -> bool:
            return rec.line in report or rec.line in listing or rec.template in measured_shapes or measured(rec)

        lone = [rec for rec in printed_recs if not kept(rec)]
        if lone:
            b.skip(_LONE_SETTINGS, sum(_lines(rec, lines_in) for rec in lone))
        return [rec._replace(label=rec.label or "eval") if rec.line in report and not measured(rec) else rec
                for rec in records if kept(rec)]
    # (printed once, or twice: TF 1.x writes each message through absl and through logging; or as often as
    # there are ranks, when the log's error level marks it: `ERROR:tensorflow:Model diverged with loss = NaN.` from
    # each worker, some with absl's `E0526 ...]` prefix)
    alarmed = {rec.template for rec in records if rec.line in error_lines and rec.template} if error_lines else ()
    said = [rec for rec in records if rec.template and (counts.get(rec.template, 0) <= 2 or rec.template in alarmed)
            and _says_nonfinite(rec)]
    if said:  # (its error event keeps it; a log of nothing else has no metrics)
        b.skip("a sentence saying a metric is NaN (an error message, read as one)",
               sum(_lines(rec, lines_in) for rec in said))
        records = [rec for rec in records if not any(rec is r for r in said)]
    # records that repeat: printed lines of one shape, and dict, SB3 and table records (a log whose metrics
    # are dicts is a metric log too: its one-off printed lines are banners)
    repeated = sum(n for n in counts.values() if n >= 3) + sum(_n(rec) for rec in records if not rec.template)
    if repeated < 3:
        return records
    counted = [rec.line for rec in records if rec.step is not None or rec.epoch is not None or rec.batch is not None]
    # where the metric lines start: the first line with a counter, or where nothing counts, the first line
    # of a shape printed three times or more (a config echo before it is settings: `lr : 0.001`)
    first_counted = min(counted, default=0) or min(
        (rec.line for rec in records if rec.template and counts.get(rec.template, 0) >= 3), default=0)
    keep = []
    recurring: set[str] | None = None  # the names the log's repeated lines print (found when first needed)
    for rec in records:
        # (a line whose shape says its value enters the loss, Caffe's `(* 1 = 0.3 loss)`, is a metric)
        term = rec.template and "loss)" in rec.template and printed.WEIGHTED_LOSS_TAIL.search(rec.template)
        if rec.template and counts.get(rec.template, 0) == 1 and not term \
                and not any(printed.known_key(str(k), loose=True) for k in rec.values) \
                and not (rec.label == "eval" and any(printed.names_score(str(k)) for k in rec.values)):
            if recurring is None:
                recurring = {str(k) for r in records if r.template and counts.get(r.template, 0) >= 3
                             for k in r.values}
            # (one name alone is kept where the line counts steps and the repeated lines measure that name: a
            # reading whose trailing note changed the line's shape, Marian's `[valid] Ep. 1 : Up. 20000 :
            # translation : 0.3 : stalled 1 times` after the same name's `... : new best` lines)
            if type(rec) is not _Rec or not {str(k) for k in rec.values} <= recurring \
                    or (len(rec.values) < 2 and rec.step is None):
                b.skip("one-off line with no known metric (a setting or a banner)", _lines(rec, lines_in))
                continue
            # the names the repeated lines measure, printed once in a shape of their own: a reading, which no
            # setting is (`0: learn: 56.3 test: 56.0 ... total: 151ms` above lines that end in `12.5s`); at a
            # point those lines already reached (`g 2.55 d 3.13 ad 1.04| step 6640` under bars of `Avg : g 1.35
            # d 0.00 ad 0.00| step 6640`) it is another pass over other data, the evaluation
            again = rec.step is not None and _step_reached(records, counts, rec)
            keep.append(rec._replace(label="eval") if again and not rec.label else rec)
            continue
        if rec.template and counts.get(rec.template, 0) <= 2 and rec.line < first_counted and not term \
                and rec.step is None and rec.epoch is None and rec.batch is None \
                and not any(printed.names_loss_or_accuracy(str(k)) for k in rec.values) \
                and not _evaluation_result(rec) and not _split_named_result(rec) and rec.line not in lr_notices \
                and not _held_out_echo(rec, records, counts) \
                and not (rec.label == "eval" and all(printed.names_score(str(k)) for k in rec.values)):
            # (`network-snapshot-005734  fid50k_full 46.56` is a score; `Updating learning rate to 1e-3`, a notice
            # the schedule prints again at each change, is the LR the first pass trains with, not a setting; old
            # Caffe's `Test score #0: 0.1` is what the test net scored at iteration 0, before the first loss)
            b.skip("a setting printed before training (`BASE_LR: 0.02`)", _lines(rec, lines_in))
            continue
        keep.append(rec)
    return keep


# a name's evaluation prefix (`valid_cost`, `val-kl`, `test recon`): the quantity measured on held-out data
_HELD_OUT_PREFIX = re.compile(r"(?i)^(?:best_)?(?:val|valid|validation|eval|test|dev)[_ -]")


def _held_out_echo(rec, records: list, counts: dict[str, int]) -> bool:
    """A line before training whose every name is an evaluation's (`valid_cost: -0.07, valid_recon: -0.07,
    valid_kl: 0.0`) and whose names, the prefix taken off, are two or more of those the repeated training
    lines print (`cost`, `recon`, `kl`): the same quantities measured on held-out data before the steps
    go on. A setting is never named after the split it is measured on."""
    if type(rec) is not _Rec or len(rec.values) < 2 \
            or not all(_HELD_OUT_PREFIX.match(str(k)) for k in rec.values):
        return False
    repeated = {str(k).lower() for r in records if r.template and counts.get(r.template, 0) >= 3 for k in r.values}
    return sum(_HELD_OUT_PREFIX.sub("", str(k)).lower() in repeated for k in rec.values) >= 2


def _running_summary(rec) -> bool:
    """A score given with the run's statistics of it, each tagged (`accuracy: 75.95 (last), 63.96 (average),
    79.44 (best)`): a reading taken again and again over the run, its latest value first; a setting has no
    last, average and best."""
    return type(rec) is _Rec and "(last)" in rec.template and bool(_LAST_THEN_STATS.search(rec.template)) \
        and all(printed.names_loss_or_accuracy(str(k)) or _report_score(str(k)) for k in rec.values)


_LAST_THEN_STATS = re.compile(r"#\s*\(last\)\s*,\s*#\s*\((?:average|mean|avg|best|max|min)\)")


# a word that makes a name a run's result (`Final policy loss`, `Overall accuracy`, `Average error`)
_RESULT_WORD = re.compile(r"(?i)^(?:final|overall|average|avg|mean)\b")


def _result_measurement(rec) -> bool:
    """A printed record whose every key is a loss, an accuracy or an error and either opens with a word that
    makes it the run's result (`Final policy loss: 42.306183`) or sits on a line of an evaluation (AutoML's
    `estimator rf's error=0.2100` of the learner just tried): a measurement even printed once, with no counter.
    A setting is never a run's final loss, nor an evaluation's error."""
    if type(rec) is not _Rec or not rec.values:
        return False
    return all(printed.names_loss_or_accuracy(str(k)) and (rec.label == "eval" or _RESULT_WORD.match(str(k)))
               for k in rec.values)


def _varying_losses(printed_recs: list) -> set[str]:
    """The line shapes printed two or more times that name a loss, an accuracy or an error and print other
    values each time (`lossG_G is 810.52466 respectively.` then `lossG_G is 1582.49902 respectively.` in a
    report block every 100 iterations): a quantity measured again and again. A setting echoed twice (a config
    printed by two loggers) prints the same value both times."""
    seen: dict[str, set[tuple]] = {}
    for rec in printed_recs:
        if type(rec) is _Rec and rec.values and any(printed.names_loss_or_accuracy(str(k)) for k in rec.values):
            seen.setdefault(rec.template, set()).add(tuple(rec.values.values()))
    return {tpl for tpl, values in seen.items() if len(values) >= 2}


def _computed_list(rec) -> bool:
    """A list of numbers with no names (`[2.905947208404541, 1.910929560661316, 5.491055011749268, 200,
    0.0002992]`, a VITS-style logger's loss terms, step and rate) three or more of them printed with a
    double's full digits: values the run computed, even printed once; a list in a config is typed short."""
    return type(rec) is _Rec and rec.template == _LIST_TPL \
        and sum(full_precision(v) for v in rec.values.values()) >= 3


def _step_reached(records: list, counts: dict[str, int], rec: _Rec) -> bool:
    """Some line of a repeated shape, other than `rec`, printed the same step (and epoch) as `rec`."""
    for r in records:
        if r is rec or not r.template or counts.get(r.template, 0) < 3 or r.step is None:
            continue
        if type(r) is _Bulk:
            hit = np.asarray(r.step) == rec.step
            if r.epoch is not None and rec.epoch is not None:
                hit &= np.asarray(r.epoch) == rec.epoch
            if hit.any():
                return True
        elif r.step == rec.step and (r.epoch is None or rec.epoch is None or r.epoch == rec.epoch):
            return True
    return False


# CatBoost's round line, `250:\tlearn: 0.274\ttest: 0.291\tbest: 0.291 (250)\ttotal: 49.2s\tremaining: 2m 26s`:
# the eval metric on the learn set and on the eval set (CatBoost calls it `test`), and the best eval value so far
# with the round it was reached at. The metric is unnamed; its direction is in `best`
_BOOST_BEST = re.compile(r"\b(?:test|validation):\s*(" + _NUM + r")\s+best:\s*(" + _NUM + r")\s*\(\d+\)")
_BOOST_KEYS = frozenset({"learn", "test", "validation"})


def _boosting_objective(records: list, lines) -> list:
    """CatBoost's round lines print the eval metric unnamed (`learn: 0.65  test: 0.65  best: 0.65 (0)`); it is
    the loss function unless the run names another metric. The best value so far says which way it goes: a
    best that only falls (or stays below the round's own value) is a metric minimised, a loss, read as the
    training loss (learn) and the held-out loss (test); a best that only rises is a score and keeps its
    printed names (`learn: 0.95  test: 0.82  best: 0.84 (1)` is an AUC)."""
    rounds = [i for i, rec in enumerate(records)
              if type(rec) is _Rec and rec.values and set(rec.values) <= _BOOST_KEYS and "best: # (#)" in rec.template]
    if not rounds:
        return records
    falls = rises = 0
    prev = None  # (step, best) of the round before
    for i in rounds:
        rec = records[i]
        m = _BOOST_BEST.search(lines[rec.line - 1])
        if m is None:
            continue
        test, best = to_float(m.group(1)), to_float(m.group(2))
        if test is None or best is None or best != best or test != test:
            continue
        falls += best < test
        rises += best > test
        if prev is not None and rec.step is not None and prev[0] is not None and rec.step > prev[0]:
            falls += best < prev[1]
            rises += best > prev[1]
        prev = (rec.step, best)
    if not falls or rises:
        return records
    names = {"learn": "loss", "test": "eval_loss", "validation": "eval_loss"}
    out = list(records)
    for i in rounds:
        rec = out[i]
        out[i] = rec._replace(values={names[k]: v for k, v in rec.values.items()})
    return out


def _summaries_at_a_logged_step(records: list) -> list:
    """fairseq ends each epoch with its training summary (`train | epoch 001 | loss 3.31 | ... | num_updates 2592`),
    the epoch's means, at the update count of the epoch's end. Where the last logged batch's line stands at that same
    count (an epoch whose length is a multiple of the logging interval), the summary's mean must not replace that
    step's own value: the line's shape is then known to be the pass's summary, and each of its lines keeps the
    metrics the step lines print as the epoch's (`loss` as `loss_epoch`), at its own count. A summary is a line of
    another shape than the step's, printed again each pass and at most half as often, right after that step's record
    (an evaluation's record between them aside); where no summary meets a step line's count, all is read as before."""
    if len(records) < 4:
        return records
    counts: dict[str, int] = {}
    for rec in records:
        if type(rec) is _Rec and rec.step is not None:
            counts[rec.template] = counts.get(rec.template, 0) + 1
    if len(counts) < 2:
        return records
    tab = _aliases.table()
    names: dict[str, str] = {}

    def name(k: str) -> str:
        n = names.get(k)
        if n is None:
            n = names[k] = tab.resolve(str(k), "text").name
        return n

    # (a line that prints an evaluation's values too is the evaluation's: nanoGPT's `step 250: train loss 2.31, val
    # loss 2.40` estimates the training loss beside the validation loss, it is no pass's summary)
    eval_lines = {rec.line for rec in records if type(rec) is _Rec and (
        rec.label == "eval" or any(name(k).startswith("eval/") for k in rec.values))}
    summaries: dict[str, set[str]] = {}  # a summary's shape -> the metrics the step lines beside it print
    last = None  # the last training record with a step
    for rec in records:
        if type(rec) is not _Rec or rec.step is None or rec.source != "text" or rec.label == "eval" \
                or rec.line in eval_lines:
            continue
        prev, last = last, rec
        if prev is None or prev.step != rec.step or prev.template == rec.template or counts[rec.template] < 2 \
                or 2 * counts[rec.template] > counts[prev.template]:
            continue  # (a summary recurs, a pass at a time: a one-off line of another shape is none)
        held = {name(k) for k in prev.values} & {name(k) for k in rec.values}
        if held:
            summaries.setdefault(rec.template, set()).update(held)
            last = prev
    if not summaries:
        return records
    out = list(records)
    for i, rec in enumerate(out):
        if type(rec) is _Rec and rec.template in summaries and rec.label != "eval":
            held = summaries[rec.template]
            out[i] = rec._replace(values={(f"{k}_epoch" if name(k) in held else k): v for k, v in rec.values.items()})
    return out


def _second_lines(records: list) -> list:
    """`Epoch [5/6][40/50]  lr: 0.00077, time: 0.522, ...` then `task : ['VEHICLE'], loss: 29.3, hm_loss: 17.3`
    on the next line, for every logged iteration (Det3D, CenterPoint): the line with no counter of its own
    is the second line of the counted one before it and is read at its iteration (it would otherwise
    stand for the whole epoch, and every iteration's second line would land on the epoch's end). Taken
    so when each line of that shape follows, on the next line, a counted line of one shape that names
    none of its keys, at least twice and at two different counts (a summary printed after an epoch's
    last batch follows the same count each time)."""
    if len(records) < 4:
        return records
    follows: dict[str, list[int]] = {}  # a shape with no counter -> indices of its records
    lead: dict[str, str | None] = {}  # that shape -> the one shape of counted line before it (None: mixed)
    for i, rec in enumerate(records):
        if type(rec) is not _Rec or rec.source != "text" or rec.step is not None or rec.batch is not None \
                or not rec.template or rec.template in lead and lead[rec.template] is None:
            continue
        prev = records[i - 1] if i else None
        ok = type(prev) is _Rec and prev.source == "text" and prev.line + 1 == rec.line \
            and (prev.step is not None or prev.batch is not None) and prev.epoch == rec.epoch \
            and prev.label == rec.label and prev.values.keys().isdisjoint(rec.values)
        if ok and rec.template not in lead:  # (once a shape: a line that prints its own counter is no second line)
            ok = not printed.parse(rec.template.replace("#", "0")).counter
        if not ok or lead.setdefault(rec.template, prev.template) != prev.template:
            lead[rec.template] = None
            continue
        follows.setdefault(rec.template, []).append(i)
    out = None
    for tpl, idx in follows.items():
        if lead.get(tpl) is None or len(idx) < 2:
            continue
        counts = {(records[i - 1].step, records[i - 1].batch) for i in idx}
        if len(counts) < 2:
            continue
        out = out or list(records)
        for i in idx:
            prev = records[i - 1]
            out[i] = out[i]._replace(step=prev.step, batch=prev.batch, total=prev.total)
    return records if out is None else out


def _epochs_printed_after(records: list) -> list:
    """`Step: 0, Loss: ...` ... `Step: 600, Loss: ...`, then `Epoch: 0 -- Average training Loss: ...`, and the
    step counter starts again: a loop that names its epoch only once the epoch is over. Each run of counted
    lines belongs to the epoch printed after it, not to the one before (which they would inherit), so that
    the epochs' restarting counters follow one another instead of overwriting each other."""
    if len(records) < 6 or any(type(rec) is not _Rec for rec in records):
        return records
    runs: list[list[int]] = [[]]  # indices of counted records, a run per epoch
    closing: list[float] = []  # the epoch each run is closed by
    for i, rec in enumerate(records):
        counted = rec.step is not None or rec.batch is not None
        if counted:
            if len(runs) == len(closing) + 1:
                runs[-1].append(i)
            else:
                runs.append([i])
        elif rec.epoch is not None and runs[-1] and len(runs) == len(closing) + 1:
            closing.append(rec.epoch)
    if not closing or any(not run for run in runs[:len(closing)]):
        return records
    if any(b - a != 1 for a, b in zip(closing, closing[1:])):
        return records

    def counter(rec):
        return rec.step if rec.step is not None else rec.batch

    for k, run in enumerate(runs):
        before = closing[k - 1] if k else None
        if any(records[i].epoch != before for i in run):
            return records  # (the lines already carry an epoch of their own)
        if k + 1 < len(runs) and counter(records[runs[k + 1][0]]) > counter(records[run[-1]]):
            return records  # (a counter that goes on across epochs needs no epoch to place it)
    out = list(records)
    for k, run in enumerate(runs):
        ep = closing[k] if k < len(closing) else closing[-1] + 1
        for i in run:
            out[i] = out[i]._replace(epoch=ep)
    return out


_SUMMARY_SKIP = "W&B's run summary (the last values, kept as the summary)"


_CARD_SUMMARY_SKIP = "a summary of the last evaluation (a list under a heading naming the set)"


def _card_summary_after(records: list, summary: list[_Rec], b: RunBuilder, lines_in: dict[int, int]) -> list:
    """A model card's `It achieves the following results on the evaluation set:` list repeats a row of
    its results table (the last, or the best one's where the Trainer loaded the best model at the end),
    and is dropped; a list whose value went non-finite where the table's last row is finite (`- Loss:
    nan` over a last validation loss of 2.27: the table was cut, or the run evaluated once more after
    it) is the run's last evaluation, read at the table's last step."""
    rows = [rec for rec in records if type(rec) is _Rec and not rec.template and rec.step is not None
            and rec.line > summary[-1].line]
    if not rows:
        return records
    last = rows[-1]
    tab = _aliases.table()
    held: dict[str, tuple[str, float]] = {}  # the row's value of each metric, under its column's name
    for k, v in last.values.items():
        got = tab.resolve(str(k), "text")
        base = got.name.removeprefix("eval/")
        if base not in held or got.split == "eval":  # (`Validation Loss` over `Training Loss`)
            held[base] = (k, v)
    said = False
    kept = []
    for rec in summary:
        values = {}
        for k, v in rec.values.items():
            col, was = held.get(tab.resolve(str(k), "text").name.removeprefix("eval/"), (k, None))
            values[col] = v  # (`- Loss:` is the table's `Validation Loss`)
            if was is not None and math.isfinite(was) and not math.isfinite(v):
                said = True
        kept.append(rec._replace(values=values, step=last.step, epoch=last.epoch, label=last.label))
    if not said:
        # (the list's lines are printed lines of the row they repeat: one more line each of that record)
        wanted = [v for rec in summary for v in rec.values.values()]
        for row in reversed(rows):
            have = list(row.values.values())
            if wanted and all(any(v == w for w in have) for v in wanted):
                _more_lines(lines_in, row.line, len(summary))
                break
        return records
    _unskip(b, _CARD_SUMMARY_SKIP, len(summary))
    at = records.index(last) + 1
    return records[:at] + kept + records[at:]


def _unskip(b: RunBuilder, reason: str, n: int) -> None:
    """Take back `n` lines once counted as skipped for `reason`."""
    sk = b.meta["skipped"]
    left = sk.get(reason, 0) - n
    if left > 0:
        sk[reason] = left
    else:
        sk.pop(reason, None)


def _summary_row(recs: list[_Rec], lines_in: dict[int, int]) -> _Rec:
    """The records of W&B's run summary as its one row, at the first one's line (the further lines said
    apart in `lines_in`)."""
    values: dict = {}
    extra = 0
    for rec in recs:
        values.update(rec.values)
        if rec is not recs[0]:
            extra += lines_in.pop(rec.line, 1)
    if extra:
        _more_lines(lines_in, recs[0].line, extra)
    return recs[0]._replace(values=values)


def _summary_apart(records: list, lines: set[int], b: RunBuilder) -> list:
    """The values of W&B's run summary are the last ones the run logged: beside records of the run's own
    they are its summary, not another row; a log that holds nothing else keeps them as its one record."""
    inside = [rec for rec in records if type(rec) is _Rec and rec.line in lines]
    if not inside or len(inside) == len(records):
        return records
    for rec in inside:
        for k, v in rec.values.items():
            f = to_float(v)
            if f is not None:
                b.summary[str(k)] = f
    b.skip(_SUMMARY_SKIP, len(inside))
    return [rec for rec in records if not (type(rec) is _Rec and rec.line in lines)]


def _nonfinite_metric(rec) -> bool:
    """A metric triage knows, printed as NaN or inf (`===> Average train loss: nan`): no setting is
    ever NaN, so even alone and uncounted it is a measurement. A sentence that says so (`loss is nan`,
    `Model diverged with loss = NaN.`) is an error message, read as one."""
    if type(rec) is not _Rec or any(w.strip(".,:;=") in printed._STOP for w in rec.template.lower().split()):
        return False
    return any(
        isinstance(v, float) and not math.isfinite(v)
        and (printed.known_key(str(k), loose=True) or printed.statistic_of_known(str(k)))
        for k, v in rec.values.items())


def _says_nonfinite(rec) -> bool:
    """`loss is nan, how????`: a sentence (its words hold a copula or a preposition) with no counter,
    whose only number is a NaN or an infinity, tells of the failure in words; the error event keeps
    it. Among a log's metric records it is no measurement of its own (`Epoch 5: loss is nan` is)."""
    if type(rec) is not _Rec or len(rec.values) != 1:
        return False
    v = next(iter(rec.values.values()))
    return isinstance(v, float) and not math.isfinite(v) \
        and any(w.strip(".,:;=?!") in printed._STOP for w in rec.template.lower().split()) \
        and not printed.parse(rec.template.replace("#", "0")).counter  # (the record's epoch may be an earlier line's)


def _loss_record(rec) -> bool:
    """A printed record that names the loss itself among three or more values (`loss: nan,
    cls_pos_loss: nan, loc_loss: nan`), or holds a NaN or an infinity among them: a measurement,
    even with no counter and no repeat; a setting quoted in prose names one value, not a loss and
    its terms, and is never NaN. Two values are enough when one is the loss itself and the other an
    accuracy or a loss too (`Loss: 5.70, Accuracy: 0.0167` quoted after a sentence): a pair of scores of
    one model, where a quoted setting would name a knob."""
    if type(rec) is not _Rec or len(rec.values) < 2:
        return False
    if len(rec.values) == 2:
        tab = _aliases.table()
        return all(printed.names_loss_or_accuracy(str(k)) for k in rec.values) and any(
            tab.resolve(str(k), "text").name == "loss" for k in rec.values)
    if any(isinstance(v, float) and not math.isfinite(v) for v in rec.values.values()):
        return True  # (`D_loss: nan, D_loss_grad_norm: nan, D_lr: 0.0019`: no setting is ever NaN)
    scored = [k for k in rec.values if printed.names_loss_or_accuracy(str(k))]
    if len(scored) == len(rec.values):
        return True  # (`loss_disc=2.58, loss_gen=3.31, loss_fm=13.2`: a GAN's terms, with no total among them)
    if len(scored) >= 2 and _timings_only({k: v for k, v in rec.values.items() if k not in scored}):
        return True  # (`Gen Loss Total: 37.2, Mel Error: 1.79, s/b: 1.85`: the terms and the batch's time)
    tab = _aliases.table()
    return any(r.name == "loss" and r.quality <= _aliases.NORMALISED for r in (tab.resolve(str(k), "text") for k in rec.values))


# Canonical names of scores an evaluation reports (besides losses and accuracies, which their words name)
_REPORT_SCORES = frozenset({"precision", "recall", "f1", "miou", "iou", "auc", "dice", "bleu", "mae", "rmse", "mse",
                            "perplexity", "wer", "cer", "map", "r2", "rank1", "rank5", "rank10", "rank20"})


def _report_score(key: str) -> bool:
    """The key names a score of a model's quality (`Mean IoU`, `F1`, `Overall Acc`), never a knob or a size."""
    if printed.names_loss_or_accuracy(key):
        return True
    found = _aliases.table().resolve(key, "text")
    if key.lower() in _REPORT_SCORES or (found.quality <= _aliases.PREFIXED
                                         and found.name.removeprefix("eval/") in _REPORT_SCORES):
        return True
    # a score of one class or one level: the class's index after it (`iou_1`, `F1_0`, `precision_0`), or
    # the level before it (`pixel_auroc`, `instance_auroc`); a mean score spelt with an `m` (`mf1`)
    words = [w for w in _SCORE_WORD_SPLIT.split(key) if w]
    while len(words) > 1 and words[-1].isdigit():
        words.pop()
    if not words:
        return False
    if len(words) > 1 or words[0] != key:
        return _report_score(words[-1])
    return len(key) > 2 and key[0] in "mM" and _report_score(key[1:])


_SCORE_WORD_SPLIT = re.compile(r"[_\s]+")


def _score_report_lines(recs: list) -> set[int]:
    """Lines of a report of scores with no counter anywhere (`Accuracy: 0.91`, `Precision: 0.82`, `Recall:
    0.73`, `F1: 0.75`, a line each, or read as one record): three or more scores, no name twice, on lines
    next to each other with nothing else between them. A run's settings are knobs and sizes, which no score
    name spells; a block of scores is what an evaluation printed when it finished."""
    out: set[int] = set()
    group: list = []

    def close() -> None:
        names = [str(k) for rec in group for k in rec.values]
        if len(names) >= 3 and len(set(names)) == len(names) and all(_report_score(k) for k in names):
            out.update(rec.line for rec in group)

    for rec in recs:
        if type(rec) is not _Rec or rec.step is not None or rec.epoch is not None or not rec.values:
            close()
            group = []
            continue
        if group and rec.line - group[-1].line > 1 + (rec.line - group[-1].line == 2 and _heading_gap(group)):
            close()
            group = []
        group.append(rec)
    close()
    return out


def _heading_gap(group: list) -> bool:
    """One line may sit inside a report of scores when it is the heading of what follows (`mAP: 28.9%`, `CMC
    curve`, `Rank-1  : 53.9%`): the scores before it are few (one or two), the block goes on after it."""
    return len(group) <= 2


def _per_item_lines(recs: list) -> set[int]:
    """Lines of a test that scores one item a line (`Testing 0 baby - PSNR: 37.4 dB; SSIM: 0.96`, then the
    next image's): three or more lines next to each other with the same two or more names, one of them a
    metric triage knows, with no counter. Their shapes differ only by the item's name; a setting is never
    printed again and again under the same names."""
    out: set[int] = set()
    group: list = []

    def close() -> None:
        if len(group) >= 3 and any(printed.known_key(str(k)) for k in group[0].values):
            out.update(rec.line for rec in group)

    for rec in recs:
        if type(rec) is not _Rec or rec.step is not None or rec.epoch is not None or len(rec.values) < 2:
            close()
            group = []
            continue
        if group and (rec.line != group[-1].line + 1 or rec.values.keys() != group[-1].values.keys()):
            close()
            group = []
        group.append(rec)
    close()
    return out


def _results_block(rec) -> bool:
    """The values under a banner that names them results (`***** Eval results *****` then `auc = 0.58`
    a line each): what a finished evaluation or prediction measured, never settings."""
    return type(rec) is _Rec and rec.template.startswith("<block>") and bool(_BANNER.match(rec.template[7:])) \
        and bool(_RESULTS_WORD.search(rec.template))


def _split_measurement(rec) -> bool:
    """A printed record whose every key is a loss or an accuracy of a named split (`Train Accuracy: 0.00%`,
    `Valid Loss: NaN`): a measurement of that split, never a setting, even printed once."""
    if type(rec) is not _Rec or not rec.values:
        return False
    return all(printed.SPLIT_WORDS.search(str(k)) and printed.names_loss_or_accuracy(str(k)) for k in rec.values)


# An evaluated split's word standing alone inside a phrase (`Sintel val clean epe`)
_EVAL_SPLIT_WORD = re.compile(r"(?i)^(?:val|valid|validation|eval|evaluation|test|testing|dev)$")


def _split_led_scores(rec) -> bool:
    """A one-off line of several scores whose first name is a phrase naming the evaluated split and,
    as its last word, a metric triage knows (`Sintel val clean epe: 1.38  1px: 0.90  3px: 0.96`, a
    benchmark's result per dataset): what an evaluation measured, even when the names after it (the
    thresholds' scores) are none the alias table knows. A setting is never said of a split."""
    if type(rec) is not _Rec or len(rec.values) < 2:
        return False
    words = str(next(iter(rec.values))).split()
    if len(words) < 2 or not any(_EVAL_SPLIT_WORD.match(w) for w in words[:-1]) \
            or not printed.known_key(words[-1]):
        return False
    tab = _aliases.table()
    return not any(tab.resolve(str(k), "text").name in _PREFIXED_KNOBS for k in rec.values)


# Canonical names that a prefixed key may resolve to which are knobs, not measurements (`train_lr: 0.1`)
_PREFIXED_KNOBS = frozenset({"learning_rate", "weight_decay", "momentum"})


def _split_named_result(rec) -> bool:
    """A one-off training line whose values carry their split's prefix (easytorch's `Result <train>:
    [train_time: 312.4 (s), lr: 1.00e-04, train_MAE: 2.73, train_RMSE: 5.48]`): two or more keys name a
    metric with `train_` before it and every key is one the alias table knows. A setting is never
    written with the split it is measured on."""
    if type(rec) is not _Rec or rec.label != "train" or len(rec.values) < 2:
        return False
    tab = _aliases.table()
    found = [tab.resolve(str(k), "text") for k in rec.values]
    if not all(r.quality <= _aliases.PREFIXED and r.name not in tab.axis_keys for r in found):
        return False
    return sum(r.quality == _aliases.PREFIXED and r.split == "train" and r.name not in _PREFIXED_KNOBS
               for r in found) >= 2


def _evaluation_result(rec) -> bool:
    """A printed record of an evaluation (its line or its heading names the split) whose every key is
    a metric the alias table knows: a measurement even when it is the log's only line."""
    if type(rec) is not _Rec or not rec.values:
        return False
    tab = _aliases.table()

    def own_split(k: str) -> bool:  # the key names an evaluation metric by itself (`val_categorical_accuracy`)
        r = tab.resolve(k, "text")  # (`eval_epoches: 2000` is a setting)
        return r.quality <= _aliases.PREFIXED and r.split.startswith("eval") and r.name.rsplit("/", 1)[-1] not in tab.axis_keys

    if rec.label == "eval":  # (a test line's keys carry `test ` before the metric's name; or their split's
        # prefix: `Result <val>: [val_MAE: 2.74, val_RMSE: 5.29]`)
        return all(printed.known_key(str(k)[5:] if str(k).startswith("test ") else str(k)) or own_split(str(k))
                   for k in rec.values)
    return all(own_split(str(k)) for k in rec.values)


def _per_epoch_steps(records: list) -> float:
    """Step counters that start again with every epoch (`epoch: 2/300, iter: 10/47`): the counter only
    goes back where the epoch goes forward, at least once. Returns the largest count (0: not so)."""
    eps, steps = [], []
    for rec in records:
        if rec.step is None or rec.epoch is None or rec.label == "eval":
            continue
        if type(rec) is _Bulk:
            eps.append(rec.epoch)
            steps.append(rec.step)
        else:
            eps.append(np.array([rec.epoch]))
            steps.append(np.array([rec.step]))
    if not steps:
        return 0.0
    e, st = np.concatenate(eps), np.concatenate(steps)
    back = st[1:] < st[:-1]
    if not (bool(back.any()) and bool((e[1:][back] > e[:-1][back]).all())):
        return 0.0
    top = float(st.max())
    if float(st.min()) == 0.0:
        # counted from 0 (`epoch 0 and iteration 0, 500, 1000`): an epoch runs past its largest count
        # by one logging interval, or the next epoch's 0 would land on this one's last count
        d = np.diff(st)
        gaps = d[(d > 0) & (e[1:] == e[:-1])]
        top += float(np.min(gaps)) if len(gaps) else 1.0
    return top or 1.0


def _as_batch(rec, per_epoch: float):
    """A record whose step counter counts batches within its epoch; without a printed total, an
    epoch is as long as the largest count seen."""
    if rec.step is None or rec.epoch is None or rec.label == "eval":
        return rec
    if type(rec) is _Bulk:
        rec.batch, rec.step = rec.step, None
        if rec.total is None:
            rec.total = np.full(len(rec), per_epoch)
        return rec
    return rec._replace(batch=rec.step, step=None, total=rec.total or per_epoch)


def _any(total) -> bool:
    """A record's total is usable: a nonzero number (or, for a bulk, one nonzero)."""
    if isinstance(total, np.ndarray):
        return bool(total.any())
    return bool(total)


def _place_runs(raw: np.ndarray, train: np.ndarray, last_is_summary: bool = False,
                totals: Callable[[], np.ndarray | None] | None = None,
                first_printed: float | None = None) -> tuple[np.ndarray, list[float]]:
    """Several runs printed into one file one after the other (a script that trains three models, a
    log appended to by every launch): the training counter starts again from its beginning. A
    counter that drops to the file's first step, or below a tenth of where its run got to, and goes
    on from there starts a new run, placed after the one before; a smaller step back is a resume
    from a checkpoint, which re-logs steps already seen (the builder keeps their last values); a
    lone low step the counter does not go on from is a stray line. `last_is_summary`: the last
    record names no metric any record before it did (`1-th epoch, test acc: 0.05` after the
    `N-th batch, loss: ...` lines): when it is the one that drops, it is a summary printed at the
    end on another counter, placed after the run it sums up, not a run of its own. `totals` gives the
    count each record's counter runs to (`[5/30]`: 30; NaN where none is printed), called only when the
    counter drops (a million-line log that never does pays nothing for it): a counter that ran
    to its end, or one that counts to another total, finished its loop, so a drop after it starts a
    new run whatever step it drops to (a script fitting several models for 6 and then 30 epochs).
    `first_printed`: the first counter a line printed, when the lines before it were placed at step 0
    (a run that crashed before its first epoch line still printed its closing line): a counter back at it
    is back at the file's first step. Returns
    the steps where they go on the file's axis and where each new run starts on it."""
    ok = train & np.isfinite(raw)
    every = bool(ok.all())  # (the common case: no copy of the steps, no index of them)
    ti = None if every else np.flatnonzero(ok)  # the training steps, in file order
    if (len(raw) if every else len(ti)) < 3:
        return raw.copy(), []
    s = raw if every else raw[ti]
    drops = (np.flatnonzero(s[1:] < s[:-1]) + 1).tolist()
    if not drops:  # the counter never goes back: one run, nothing to place
        return raw, []
    every_total = totals() if totals is not None else None
    tot = None if every_total is None else _carried(every_total if every else every_total[ti])
    placed = raw.copy()
    gap = _first_rise(s)  # the spacing a new run is placed with
    first = s[0]
    if first_printed is not None and first < first_printed:
        # (the printed counter opened at its first count: within one of its own spacings of 0, `Epoch 20/200`
        # every 20th epoch, and not a setting read as a counter before the lines that count from 1)
        j = int(np.argmax(s >= first_printed))
        if first_printed <= _first_rise(s[j:]):
            first = first_printed
    starts: list[float] = []
    start = 0
    for k in drops:
        # (a resume, or a stray low step, is no new run; a file that opens at its first count starts again there,
        # and so does a counter back at its very first count, below where the file opened: `Epoch 1/100` after a
        # paste that opened at `Epoch 2/100`)
        if not (starts_run(s, k, first, gap, float(s[start:k].max())) or _loop_ended(s, tot, k)):
            continue
        p = k if ti is None else int(ti[k])
        before = placed[:p]
        top = float(np.max(before[np.isfinite(before)], initial=0.0))
        shift = run_shift(top, gap, float(s[k]))
        if shift is None:
            continue  # (steps near the float limit: nowhere to place a run after them)
        placed[p:] = raw[p:] + shift
        start = k
        if last_is_summary and k == len(s) - 1 and p == len(raw) - 1:
            continue  # (placed after its run, and no run of its own)
        starts.append(float(top + gap))
    return placed, starts


def _carried(tot: np.ndarray) -> np.ndarray:
    """Each record's counter total, or the last one printed before it (a line between two counted lines
    that prints a score of its own, `smape score: 26.6`, is still inside that loop)."""
    at = np.where(np.isfinite(tot), np.arange(len(tot)), 0)
    return tot[np.maximum.accumulate(at)]


def _loop_ended(s: np.ndarray, tot: np.ndarray | None, k: int) -> bool:
    """Whether the counter's drop at `k` follows a loop that ended: the two records count to different
    totals (another loop), or the one before counted to its printed total and the counter goes on from
    the drop below where it stood (a resume re-logs steps of a loop that had not ended, with the same
    total; a lone low step the counter does not go on from is a stray line)."""
    if tot is None or not (np.isfinite(tot[k - 1]) and np.isfinite(tot[k])):
        return False
    if tot[k] != tot[k - 1]:
        return True
    return bool(s[k - 1] >= tot[k - 1]) and not (k + 1 < len(s) and s[k + 1] >= s[k - 1])


def _last_is_summary(kept: list) -> bool:
    """Whether the last record names only metrics no record before it named (a closing summary on a
    counter of its own). Column blocks (vals None) and single-record logs are not summaries."""
    if len(kept) < 2 or kept[-1][1] is None:
        return False
    last = {k for k, _ in kept[-1][1]}
    for rec, vals in kept[:-1]:
        names = {k for k, _ in vals} if vals is not None else {str(k) for k in rec.values}
        if names & last:
            return False
    return True


def _first_rise(s: np.ndarray) -> float:
    """The first positive step between neighbours of `s` (1.0 when it never rises), looked for in
    growing windows: a million steps need not all be differenced to find the first."""
    j, c = 0, 64
    while j < len(s) - 1:
        d = np.diff(s[j:j + c + 1])
        up = np.flatnonzero(d > 0)
        if len(up):
            return float(d[up[0]])
        j += c
        c *= 4
    return 1.0


def _epoch_length(records: list) -> float | None:
    """The batches (or samples) of one epoch: the total most training lines print with their batch
    counter (`[640/9024]`). A line printing another total (`[5600/5640]`, a last partial batch counted
    against another size) is placed by its own fraction of the epoch."""
    counts: dict[float, int] = {}
    for rec in records:
        if rec.label == "eval" or rec.batch is None or rec.total is None or rec.epoch is None:
            continue
        if type(rec) is _Bulk:
            vals, ns = np.unique(rec.total, return_counts=True)
            for v, c in zip(vals.tolist(), ns.tolist()):
                counts[v] = counts.get(v, 0) + c
        elif rec.total:
            counts[rec.total] = counts.get(rec.total, 0) + 1
    counts.pop(0.0, None)
    return max(counts, key=lambda t: (counts[t], t)) if counts else None


def _bulk_steps(rec: _Bulk, axis: str, step: float, last_total, e0: float, i: int, length: float | None,
                state: list):
    """`_emit`'s step rules for a bulk, over arrays. Returns (steps, step, last_total, i) after it;
    state[0] is the epoch of the last line with a batch counter."""
    n = len(rec)
    ep, total = rec.epoch, rec.total
    if axis == "explicit":
        steps = rec.step if rec.step is not None else np.full(n, step)
    elif axis == "epoch+batch":
        if ep is not None and rec.batch is not None and total is not None and bool((total != 0).all()):
            state[0] = float(ep[-1]) if n else state[0]
            if length:
                steps = (ep - e0) * length + np.where(total == length, rec.batch, rec.batch * length / total)
                last_total = length
            else:
                steps = (ep - e0) * total + rec.batch
                last_total = float(total[-1])
        else:  # rare shapes: row by row, as `_emit` does
            steps = np.empty(n)
            for k in range(n):
                t = None if total is None else float(total[k])
                if t:
                    last_total = length or t
                if ep is not None and rec.batch is not None and t:
                    step = _epoch_step(float(ep[k]), e0, float(rec.batch[k]), t, length)
                    state[0] = float(ep[k])
                elif ep is not None and last_total:
                    step = _epoch_edge(float(ep[k]), e0, last_total, state[0])
                steps[k] = step
    elif axis == "epoch":
        steps = ep if ep is not None else np.full(n, step)
    else:
        steps = np.arange(i + 1, i + n + 1, dtype=np.float64)
    steps = np.asarray(steps, dtype=np.float64)
    return steps, (float(steps[-1]) if n else step), last_total, i + n


def _epoch_edge(ep: float, e0: float, length: float, batch_epoch: float) -> float:
    """Where a line of epoch `ep` with no batch counter goes: after the epoch's batch lines, the
    epoch's end (a summary); before them, its start (`Starting epoch 3`, the learning rate of it)."""
    return (ep - e0 + (1 if ep == batch_epoch else 0)) * length


def _epoch_step(ep: float, e0: float, batch: float, total: float, length: float | None) -> float:
    """The step of batch `batch` of `total` in epoch `ep` (epochs of `length` batches when known)."""
    if not length:
        return (ep - e0) * total + batch
    return (ep - e0) * length + (batch if total == length else batch * length / total)


def _drop_constant_steps(records: list) -> list:
    """A step that one kind of line prints unchanged while its epoch moves on is a size, not a
    counter (`Epoch: 3, Steps: 281 | Train Loss: ...`: the steps each epoch has). Lines that differ
    only in a duration's unit are one kind (Keras `128/128 - 5s - ... - 5s/epoch`, then `... - 358ms/epoch`)."""
    seen: dict[str, tuple[set, set, int, float | None, bool]] = {}
    for rec in records:
        if type(rec) is not _Rec or rec.step is None or rec.epoch is None or not rec.template:
            continue
        kind = _TIME_UNIT_TPL.sub("#t", rec.template)
        steps, epochs, n, last, again = seen.get(kind, (set(), set(), 0, None, False))
        steps.add(rec.step)
        epochs.add(rec.epoch)
        # (the epoch moves on from line to line; a run appended after another counts its epochs again)
        seen[kind] = (steps, epochs, n + 1, rec.epoch, again or rec.epoch == last)
    sizes = {tpl for tpl, (steps, epochs, n, _, again) in seen.items()
             if n >= 2 and len(steps) == 1 and len(epochs) >= 2 and not again}
    if not sizes:
        return _drop_lone_step(records)
    return [rec._replace(step=None) if type(rec) is _Rec and rec.template
            and _TIME_UNIT_TPL.sub("#t", rec.template) in sizes else rec for rec in records]


def _drop_lone_step(records: list) -> list:
    """One step value on the few lines that print a step at all, inside epochs the log's headings count on:
    (`Training epoch: 0`, `Iter 0 Done. | loss: 1.4`, then only `mean_loss: ...` lines, epoch after epoch)
    that step orders nothing; every line is placed by its epoch."""
    stepped = [rec for rec in records if type(rec) is not _Rec or rec.step is not None]
    if not stepped or len(stepped) * 2 > len(records) or any(type(rec) is not _Rec for rec in stepped):
        return records
    if len({rec.step for rec in stepped}) != 1 or any(rec.epoch is None for rec in stepped):
        return records
    if len({rec.epoch for rec in records if rec.epoch is not None}) < 3:
        return records
    return [rec._replace(step=None) if rec.step is not None else rec for rec in records]


_TIME_UNIT_TPL = re.compile(r"#(?:[mµu]?s|ns|min|h)(?![A-Za-z])")  # a duration in a template, its unit folded


def _emit(records: list[_Rec], b: RunBuilder, lines_in: dict[int, int] | None = None,
          glued: set[int] | None = None, pair_lines: dict[int, int] | None = None) -> str:
    """Give every record its step (explicit, epoch plus batch, epoch, or line order) and add it. A record
    read from several printed lines (`lines_in`, by its first line) is one row; its further lines are counted
    in meta `joined_lines`. Records read from one printed line that held several prints glued together
    (`glued`: a bar and the print after it) are that line's one row. A record's further lines that are lines of one
    unknown pair read beside a known one (`pair_lines`) leave it a one-line record for the fold by step."""
    if not records:
        return ""
    records = _drop_constant_steps(records)
    per_epoch = _per_epoch_steps(records)
    if per_epoch:
        records = [_as_batch(rec, per_epoch) for rec in records]
    # an evaluation line's own counter (`Val Step[100/32]`, `Test: [10/50]`) counts its batches: it is
    # the axis only when training lines count nothing themselves
    train_counts = any(rec.label != "eval" and (rec.epoch is not None or rec.batch is not None)
                       for rec in records)
    if any(rec.step is not None and (rec.label != "eval" or not train_counts) for rec in records):
        # (Keras' finished bars carry their epoch as the step: rows that are all epochs are epochs)
        axis = "epoch" if all(rec.source == "keras" for rec in records if rec.step is not None) else "explicit"
    elif any(rec.batch is not None and _any(rec.total) and rec.epoch is not None for rec in records):
        axis = "epoch+batch"
    elif _rising(records):
        axis = "epoch"
    else:
        axis = "line order"
    e0 = min((float(rec.epoch.min()) if type(rec) is _Bulk else rec.epoch
              for rec in records if rec.epoch is not None), default=0.0)
    length = _epoch_length(records) if axis == "epoch+batch" else None
    last_total = length  # (an epoch's line before any batch line is placed at the epoch's end too)
    step = NAN
    # what is printed before the first counter (a val loss at start) is step 0
    if axis == "explicit":
        first = next(rec.step for rec in records if rec.step is not None)
        first = float(first[0]) if isinstance(first, np.ndarray) else first
        step = 0.0 if first > 0 else NAN
    elif axis in ("epoch+batch", "epoch"):
        rec = next(rec for rec in records if rec.epoch is not None)
        first = float(rec.epoch[0]) if type(rec) is _Bulk else rec.epoch
        batch = None if rec.batch is None else float(rec.batch[0]) if type(rec) is _Bulk else rec.batch
        step = 0.0 if first > (e0 if axis == "epoch+batch" else 0) or (axis == "epoch+batch" and batch) else NAN
    printed_first = first if axis in ("explicit", "epoch") and step == 0.0 else None
    # pass 1: each record's step as printed (records with no value take none)
    state = [NAN]  # the epoch of the last line with a batch counter
    kept: list = []
    steps: list[np.ndarray] = []
    i = 0
    for rec in records:
        if type(rec) is _Bulk:
            st, step, last_total, i = _bulk_steps(rec, axis, step, last_total, e0, i, length, state)
            if len(rec):
                kept.append((rec, None))
                steps.append(st)
            continue
        i += 1
        if axis == "explicit":
            if rec.step is not None:
                step = rec.step
        elif axis == "epoch+batch":
            if rec.total:
                last_total = length or rec.total
            if rec.epoch is not None and rec.batch is not None and rec.total:
                step = _epoch_step(rec.epoch, e0, rec.batch, rec.total, length)
                state[0] = rec.epoch
            elif rec.epoch is not None and last_total:
                step = _epoch_edge(rec.epoch, e0, last_total, state[0])
        elif axis == "epoch":
            if rec.epoch is not None:
                step = rec.epoch
        else:
            step = float(i)
        vals = [(str(k), f) for k, f in ((k, to_float(v)) for k, v in rec.values.items()) if f is not None]
        if vals:
            kept.append((rec, vals))
            steps.append(np.array([step], dtype=np.float64))
        elif rec.values:
            b.skip(_UNREAD_VALUE)  # (`{"step": 7, "loss": "x"}`: its one value reads as no number)
    if not kept:
        return axis
    # pass 2: runs printed one after another go one after another
    raw = np.concatenate(steps)
    train = np.concatenate([np.full(len(st), rec.label != "eval") for (rec, _), st in zip(kept, steps)])
    def totals() -> np.ndarray | None:
        if axis != "explicit":
            return None
        return np.concatenate([np.full(len(st), NAN if vals is None or not rec.total else float(rec.total))
                               for (rec, vals), st in zip(kept, steps)])

    placed, runs = _place_runs(raw, train, _last_is_summary(kept), totals,
                               printed_first)
    # pass 3: add
    at = 0
    scale_printed = None  # whether the log's own records print the loss scale (then a notice's is no row)
    counted_lines: set[int] = set()  # the first lines whose further printed lines were counted
    # one logical row printed over consecutive lines (an epoch's heading then its loss line, training's line
    # then evaluation's at the same step): lines at one step that name no metric twice are one row, their
    # further lines said apart in meta `joined_lines` (only in a log of one-line records: where the reader
    # already joined records printed over several lines, `joined_lines` says those lines alone)
    pair_lines = pair_lines or {}
    by_step = not lines_in or all(n - pair_lines.get(line, 0) <= 1 for line, n in lines_in.items())
    row_step, row_keys = NAN, set()
    row_line = -1  # the printed line of the last record counted or joined
    for rec, vals in kept:
        if vals is None:
            n = len(rec)
            where = placed[at:at + n]
            rows = np.arange(b.row, b.row + n, dtype=np.int64)
            for k, v in rec.values.items():
                b.add_block(_emit_key(str(k), rec.label), rows, where, v, rec.epoch, None, source=rec.source)
            b.row += n
            keys = {_emit_key(str(k), rec.label) for k in rec.values}
            # (a bulk's lines share one shape: only its first line can end the row before it)
            if n and by_step and float(where[0]) == row_step and row_keys.isdisjoint(keys):
                _count_joined(b, 1)
                b.meta["rows"] += n - 1
                row_keys = row_keys | keys if n == 1 else keys
            else:
                b.meta["rows"] += n
                row_keys = keys
            row_step = float(where[-1]) if n else NAN
            b.note_steps(where)  # (the builder keeps nothing of it: no copy without the NaN steps)
            at += n
            continue
        where = float(placed[at])
        epoch = NAN if rec.epoch is None else rec.epoch
        for key, f in vals:
            b.add(_emit_key(key, rec.label), f, where, epoch, NAN, source=rec.source)
        b.row += 1
        if rec.source == _EVENT_POINT and scale_printed is None:
            scale_printed = _prints_loss_scale(kept)
        if rec.source != _EVENT_POINT or not scale_printed:
            keys = {_emit_key(key, rec.label) for key, _ in vals}
            if glued and rec.line == row_line and rec.line in glued and rec.step is None and rec.batch is None:
                row_keys |= keys  # (a print with no counter of its own glued after a record: its line's one row)
            elif rec.line == row_line and where == row_step and keys <= row_keys:
                # (a bar redrawn with `\r` on its line at the same step, its postfix updated: the same row, the
                # redraw one more of its printed lines)
                _count_joined(b, 1)
            elif by_step and where == row_step and row_keys.isdisjoint(keys):
                row_keys |= keys
                _count_joined(b, 1)
            else:
                row_step, row_keys = where, keys
                b.meta["rows"] += 1
            row_line = rec.line
            if lines_in and rec.line in lines_in and rec.line not in counted_lines:
                # (a block printed a value a line: one row at its step; its further lines said apart; two records
                # opened under one heading, training's and then evaluation's, share its line: counted once)
                counted_lines.add(rec.line)
                _count_joined(b, lines_in[rec.line] - 1)
        b.note_step(where)
        at += 1
    if runs:
        b.restarts(runs)
    return axis


@functools.lru_cache(maxsize=8)  # every text dialect asks about the same head
def sniff(head: bytes) -> tuple[str, float]:
    """(dialect, score) for the head of a text file."""
    try:
        text = head.decode("utf-8", errors="replace")
    except Exception:  # pragma: no cover
        return "text", 0.0
    lines = text.split("\n")[:400]
    votes = {d: 0 for d in DIALECTS}
    for line in lines:
        for seg in _SPLIT_REDRAWS.split(line):
            if "{'" in seg and "}" in seg:
                votes["hf_stdout"] += 1
            elif _KERAS_EPOCH.match(seg):
                votes["keras_stdout"] += 2
            elif _LLMC_STEP.match(seg) or _LLMC_MAIN.match(seg):
                votes["llmc"] += 1
            elif _NANOGPT_ITER.match(seg) or _NANOGPT_EVAL.match(seg):
                votes["nanogpt"] += 1
            elif _MEGATRON_ITER.search(seg):
                votes["megatron"] += 1
            elif _TORCHTUNE.match(seg):
                votes["torchtune"] += 1
            elif _VERL.match(seg):
                votes["verl"] += 1
            elif _SB3_ROW.match(seg) and "/" in seg:
                votes["sb3_stdout"] += 1
    best = max(votes, key=lambda d: votes[d])
    if votes[best] == 0:
        printable = sum(1 for ch in text[:4000] if ch.isprintable() or ch in "\r\n\t")
        return "text", 0.2 if text and printable / max(1, len(text[:4000])) > 0.9 else 0.0
    return best, min(0.8, 0.4 + 0.05 * votes[best])


# ---------------------------------------------------------------------------- the reader contract
# Registration only: the dialects above join the format registry (see triage/ingest/contract.py).
from triage.ingest.contract import Reader, register  # noqa: E402
from triage.ingest.source import is_binary  # noqa: E402


def _sniff_as(dialect: str):
    def sniff_dialect(src: Source) -> float:
        h = src.head()
        if is_binary(h):
            return 0.0
        d, score = sniff(h)
        if dialect == "text":  # any text is `text`, but only as the last resort
            return min(score, 0.25) if score else (0.05 if h.strip() else 0.0)
        return score if d == dialect else 0.0

    return sniff_dialect


for _d, _priority, _desc, _names in (
        ("hf_stdout", 20, "HF Trainer / TRL / axolotl stdout (dict lines)", ()),
        ("keras_stdout", 19, "Keras fit() stdout", ()),
        ("llmc", 18, "llm.c stdout and main.log", ("llm.c",)),
        ("nanogpt", 17, "nanoGPT stdout", ()),
        ("megatron", 16, "Megatron-LM / Megatron-DeepSpeed stdout", ()),
        ("torchtune", 15, "torchtune DiskLogger / stdout", ()),
        ("verl", 14, "verl console logger", ()),
        ("sb3_stdout", 13, "Stable-Baselines3 stdout tables", ()),
        ("text", 0, "any other text: printed metric lines, tables, tracebacks, errors, warnings", ("stdout", "log"))):
    register(Reader(_d, _desc, _sniff_as(_d), functools.partial(read, fmt=None if _d == "text" else _d),
                    priority=_priority, aliases=_names, sniff_max=0.8,
                    suffixes=(".log", ".txt", ".out", ".err") if _d == "text" else ()))
