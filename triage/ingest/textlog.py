"""Plain-text training output: stdout captures, ``*.log`` files, pasted tracebacks.

One pass over the lines (and the ``\\r``/backspace redraws inside them) applies every dialect's
line parser, so a mixed capture (HF dicts + DeepSpeed overflow lines + a traceback) is read whole:

* HF Trainer / TRL / axolotl dict lines (``{'loss': 0.7, ...}``; transformers 5 quotes every float),
  also glued to a tqdm bar; the step comes from the bar (``890/1352``) when there is one;
* Keras ``fit()`` (``Epoch 3/10`` then ``... - loss: 0.41 - accuracy: 0.87 - val_loss: ...``, progress-bar
  redraws included: the last redraw of an epoch is its value);
* llm.c (``step 1/19560 | loss 11.01 (+nanz)| norm ...``, ``s:250 tel:6.15``), nanoGPT (``iter 100: loss``,
  ``step 250: train loss ..., val loss ...``), Megatron (``iteration 3/ 7629408 | lm loss: ... |``),
  torchtune (``Step 12 | loss:2.1 lr:...``), verl console (``step:12 - actor/pg_loss:0.01 - ...``),
  SB3 ASCII tables, NeMo/tqdm postfixes are left alone (too ambiguous);
* events: Python tracebacks (one event per chained block), error and warning lines, DeepSpeed/apex
  loss-scale overflow lines (value = the new scale), resume/checkpoint info lines.

The reported format is the dialect that contributed most rows (``text`` when none did).
"""

from __future__ import annotations

import ast
import functools
import re
from typing import Any

from triage.ingest.builder import NAN, RunBuilder, to_float
from triage.ingest.run import Run
from triage.ingest.source import Source

MAX_TEXT_LINE = 1 << 20  # longer lines are cut for event text and not parsed for metrics

# ---------------------------------------------------------------------------------------- patterns
_NUM = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|NaN|inf|Inf|Infinity|-?inf)"
_PYDICT_START = re.compile(r"\{\s*'")
_BARE_NONFINITE = re.compile(r"(?<![\w'\"])(-?)(nan|inf|NaN|Infinity)(?![\w'\"])")
_TQDM = re.compile(r"(\d+)/(\d+)\s*\[")
_KERAS_EPOCH = re.compile(r"^\s*Epoch\s+(\d+)/(\d+)\s*$")
_KERAS_PAIR = re.compile(r"(?:^|\s-\s|\s)([A-Za-z_][\w/.]*):\s(" + _NUM + r")(?=\s|$)")
_KERAS_PROGRESS = re.compile(r"^\s*(\d+)/(\d+)\s+(?:\[[=>.\s]*\]|[━─\s]+)")
_LLMC_STEP = re.compile(r"^\s*step\s+(\d+)/(\d+)\s*\|(.*)$")
_LLMC_MAIN = re.compile(r"^s:(\d+)((?:\s+[A-Za-z_]\w*:\S+)+)\s*$")
_LLMC_VAL = re.compile(r"^\s*val loss\s+(" + _NUM + r")\s*$")
_LLMC_HS = re.compile(r"HellaSwag:\s*\d+/\d+\s*=\s*(" + _NUM + r")")
_NANOGPT_ITER = re.compile(r"^\s*iter\s+(\d+):\s*loss\s+(" + _NUM + r")(?:,\s*time\s+(" + _NUM + r")ms)?(?:,\s*mfu\s+(" + _NUM + r")%)?")
_NANOGPT_EVAL = re.compile(r"^\s*step\s+(\d+):\s*train loss\s+(" + _NUM + r"),\s*val loss\s+(" + _NUM + r")")
_MEGATRON_ITER = re.compile(r"\biteration\s+(\d+)\s*/\s*(\d+)\s*\|(.*)$")
_MEGATRON_VAL = re.compile(r"validation loss at iteration\s+(\d+)\s*(?:on [\w ]+ set\s*)?\|(.*)$")
_TORCHTUNE = re.compile(r"^\s*Step\s+(\d+)\s*\|\s*(.+)$")
_KV_COLON = re.compile(r"([A-Za-z_][\w/.\-]*):(" + _NUM + r")(?=\s|$)")
_VERL = re.compile(r"^\s*step:(\d+)\s+-\s+(.*)$")
_SB3_BORDER = re.compile(r"^\s*-{10,}\s*$")
_SB3_ROW = re.compile(r"^\s*\|\s*(\S[^|]*?)\s*\|\s*([^|]*?)\s*\|\s*$")
_AXOLOTL_MEM = re.compile(r"cuda memory usage while training:\s*(" + _NUM + r")\s*GB")
_LAUNCHER_PREFIX = re.compile(r"^(?:\[default\d+\]:|\[\d+,\d+\]<std(?:out|err)>:|\d+:\s)")

_RANK_PREFIX = re.compile(r"^(?:\[(?:rank|default)?\d+(?:,\d+)?\](?:<std(?:out|err)>)?:\s?|\d+:\s)")
_TRACEBACK_START = re.compile(r"^\s*Traceback \(most recent call last\):")
_TRACEBACK_CHAIN = re.compile(r"^\s*(During handling of the above exception|The above exception was the direct cause)")
_EXC_LINE = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Fault)|KeyboardInterrupt|AssertionError|StopIteration)\b(:.*)?$")
_OVERFLOW = re.compile(
    r"(OVERFLOW!|[Oo]verflow detected|dynamic loss scale overflow|Gradient overflow\.|Reducing dynamic loss scale"
    r"|loss scale already at minimum|Skipping step, loss scaler)"
)
_OVERFLOW_VALUE = re.compile(
    r"(?:reducing to|reducing loss scale to|Reducing dynamic loss scale from\s+" + _NUM + r"\s+to)\s+(" + _NUM + r")"
)
_ERROR = re.compile(
    r"(\b[A-Z]\w*(?:Error|Exception)\b:|\bCUDA error\b|\bout of memory\b|\bOutOfMemory|\bSegmentation fault|core dumped"
    r"|\bNCCL\b.*\b(?:error|timeout|Timeout|WARN)|Watchdog caught collective operation timeout|^\s*Killed\s*$"
    r"|\bERROR\b|\bFATAL\b|\bfatal error\b|CANCELLED AT .* DUE TO|\berror:|device-side assert|Assertion .* failed"
    r"|\bnan loss\b|loss is nan|Loss is NaN|non-finite loss|detected NaN|\bNaN or Inf found)"
)
_WARNING = re.compile(r"(\b\w*Warning\b|\bWARNING\b|\bWARN\b|\[W\d*\s|^\s*warnings\.warn|\bwarning:)")
_INFO = re.compile(
    r"(\b[Rr]esum(?:ing|ed) (?:from|training)|resume_from_checkpoint|[Ll]oading checkpoint|Saving model checkpoint"
    r"|[Cc]ontinuing training from checkpoint|Restarting|Early stopping)"
)

DIALECTS = ("hf_stdout", "keras_stdout", "llmc", "nanogpt", "megatron", "torchtune", "verl", "sb3_stdout")


def parse_pydict(text: str) -> dict | None:
    """A Python-repr dict as printed by the HF Trainer, with bare nan/inf made literal-safe."""
    s = text.strip()
    if not s.startswith("{") or not s.endswith("}"):
        return None
    fixed = _BARE_NONFINITE.sub(lambda m: f"'{m.group(1)}{m.group(2)}'", s)
    try:
        obj = ast.literal_eval(fixed)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None
    return obj if isinstance(obj, dict) else None


class _TextReader:
    def __init__(self, b: RunBuilder):
        self.b = b
        self.step: float = NAN  # last known training step
        self.epoch: float = NAN
        self.counts: dict[str, int] = {}
        self.bars: dict[int, int] = {}  # tqdm total -> last n
        self.train_total: int | None = None
        self.keras_epoch: float | None = None
        self.keras_pending: tuple[int, dict] | None = None  # (line, pairs) of the latest redraw
        self.keras_epochs_seen = 0
        self.sb3_rows: dict[str, str] | None = None
        self.sb3_group = ""
        self.sb3_start = 0
        self.tb: list[str] | None = None  # traceback lines being collected
        self.tb_line = 0
        self.tb_done = False  # saw the exception line; a chain marker may follow

    # ------------------------------------------------------------------ points
    def point(self, dialect: str, line: int, values: dict[str, Any], step: float | None = None,
              epoch: float | None = None, source: str | None = None, null_nan: bool = False) -> None:
        st = self.step if step is None else step
        ep = self.epoch if epoch is None else epoch
        got = False
        for k, v in values.items():
            f = to_float(v, NAN if null_nan else None)
            if f is None:
                continue
            self.b.add(str(k), f, st, ep, NAN, source=source or dialect)
            got = True
        if got:
            self.b.row += 1
            self.b.meta["rows"] += 1
            self.b.note_step(st)
            self.counts[dialect] = self.counts.get(dialect, 0) + 1

    # ------------------------------------------------------------------ events
    def flush_traceback(self) -> None:
        if self.tb:
            text = "\n".join(self.tb).rstrip()
            self.b.event("traceback", text, self.tb_line, _known(self.step))
        self.tb = None
        self.tb_done = False

    def events(self, ln: int, line: str) -> bool:
        """Classify one line as an event; True when it belongs to a traceback being collected."""
        bare = _RANK_PREFIX.sub("", line, count=1) if line[:1] in "[0123456789" else line
        if self.tb is not None:
            if self.tb_done:
                if _TRACEBACK_CHAIN.match(bare):
                    self.tb.append(line)
                    self.tb_done = False
                    return True
                if not bare.strip():
                    self.tb.append(line)
                    return True
                self.flush_traceback()
            else:
                stripped = bare.strip()
                self.tb.append(line[:4000])
                if bare.startswith((" ", "\t")) or not stripped or stripped.startswith(("^", "~")) \
                        or _TRACEBACK_START.match(bare):
                    return True
                if _EXC_LINE.match(bare) or ":" in stripped or len(self.tb) > 400:
                    self.tb_done = True
                return True
        if _TRACEBACK_START.match(bare):
            self.tb = [line]
            self.tb_line = ln
            self.tb_done = False
            return True
        text = line.strip()
        if not text:
            return False
        if _OVERFLOW.search(text):
            m = _OVERFLOW_VALUE.search(text)
            self.b.event("overflow", _snippet(text, m.start() if m else 0), ln, _known(self.step), to_float(m.group(1)) if m else None)
            return False
        for kind, rx in (("error", _ERROR), ("warning", _WARNING), ("info", _INFO)):
            m = rx.search(text)
            if m:
                self.b.event(kind, _snippet(text, m.start()), ln, _known(self.step))
                break
        return False

    # ------------------------------------------------------------------ metric dialects
    def keras_flush(self) -> None:
        if self.keras_pending:
            ln, pairs = self.keras_pending
            ep = self.keras_epoch if self.keras_epoch is not None else NAN
            self.point("keras_stdout", ln, pairs, step=ep, epoch=ep, source="keras")
            self.keras_pending = None

    def segment(self, ln: int, seg: str) -> bool:
        """Parse one redraw segment of a line; True when it held metrics."""
        s = _LAUNCHER_PREFIX.sub("", seg, count=1) if seg[:1] in "[0123456789" else seg
        for m in _TQDM.finditer(s):
            n, total = int(m.group(1)), int(m.group(2))
            self.bars[total] = n
        i = s.find("{'")
        if i < 0:
            m = _PYDICT_START.search(s)
            i = m.start() if m else -1
        if i >= 0:
            j = s.rfind("}")
            if j > i:
                d = parse_pydict(s[i: j + 1])
                if d:
                    self.hf_dict(ln, s[:i], d)
                    return True
        m = _KERAS_EPOCH.match(s)
        if m:
            self.keras_flush()
            self.keras_epoch = float(m.group(1))
            self.keras_epochs_seen += 1
            return True
        if self.keras_epoch is not None and (" - " in s or "━" in s) and ": " in s:
            pairs = {k: v for k, v in _KERAS_PAIR.findall(s) if k not in ("ETA", "eta")}
            if pairs and ("loss" in pairs or any(k.endswith(("loss", "acc", "accuracy")) for k in pairs)):
                self.keras_pending = (ln, pairs)
                return True
        m = _LLMC_STEP.match(s)
        if m:
            self.step = float(m.group(1))
            self.point("llmc", ln, _llmc_fields(m.group(3)), source="llmc")
            return True
        m = _LLMC_MAIN.match(s)
        if m:
            step = float(m.group(1))
            pairs = dict(kv.split(":", 1) for kv in m.group(2).split())
            if "trl" in pairs:
                self.step = step
            self.point("llmc", ln, pairs, step=step, source="llmc")
            return True
        m = _LLMC_VAL.match(s)
        if m:
            self.point("llmc", ln, {"val loss": m.group(1)}, step=_zero_if_nan(self.step), source="llmc")
            return True
        m = _LLMC_HS.search(s)
        if m:
            self.point("llmc", ln, {"eval/hellaswag": m.group(1)}, step=_zero_if_nan(self.step), source="llmc")
            return True
        m = _NANOGPT_ITER.match(s)
        if m:
            self.step = float(m.group(1))
            vals = {"loss": m.group(2)}
            if m.group(3):
                vals["step_time_ms"] = m.group(3)
            if m.group(4):
                vals["mfu"] = m.group(4)
            self.point("nanogpt", ln, vals, source="nanogpt")
            return True
        m = _NANOGPT_EVAL.match(s)
        if m:
            step = float(m.group(1))
            self.point("nanogpt", ln, {"eval/train_loss": m.group(2), "val loss": m.group(3)}, step=step,
                       source="nanogpt")
            return True
        m = _MEGATRON_VAL.search(s)
        if m:
            fields = {f"validation/{k}": v for k, v in _pipe_fields(m.group(2)).items()}
            self.point("megatron", ln, fields, step=float(m.group(1)), source="megatron")
            return True
        m = _MEGATRON_ITER.search(s)
        if m:
            self.step = float(m.group(1))
            self.point("megatron", ln, _pipe_fields(m.group(3)), source="megatron")
            return True
        m = _TORCHTUNE.match(s)
        if m:
            pairs = dict(_KV_COLON.findall(m.group(2)))
            if pairs:
                self.step = float(m.group(1))
                self.point("torchtune", ln, pairs, source="torchtune")
                return True
        m = _VERL.match(s)
        if m:
            pairs = {}
            for part in m.group(2).split(" - "):
                k, sep, v = part.rpartition(":")
                if sep and k:
                    pairs[k.strip()] = v.strip()
            if pairs:
                self.step = float(m.group(1))
                self.point("verl", ln, pairs, source="verl")
                return True
        m = _AXOLOTL_MEM.search(s)
        if m:
            self.point("hf_stdout", ln, {"cuda_memory_gb": m.group(1)}, source="axolotl")
            return True
        return False

    def hf_dict(self, ln: int, before: str, d: dict) -> None:
        step = NAN
        m = None
        for m in _TQDM.finditer(before):
            pass
        is_eval = any(str(k).startswith(("eval_", "test_")) for k in d)
        if m is not None:
            n, total = int(m.group(1)), int(m.group(2))
            if not is_eval:
                self.train_total = total
            if not is_eval or total == self.train_total:
                step = float(n)
        if step != step:
            if self.train_total is not None and self.train_total in self.bars:
                step = float(self.bars[self.train_total])
            elif not is_eval and self.bars:
                # the bar with the largest total is the training bar
                total = max(self.bars)
                self.train_total = total
                step = float(self.bars[total])
        for key in ("step", "global_step"):
            if key in d:
                f = to_float(d[key])
                if f is not None:
                    step = f
        ep = to_float(d.get("epoch"))
        if ep is not None:
            self.epoch = ep
        if step == step:
            self.step = step
        summary = "train_runtime" in d or ("train_loss" in d and "loss" not in d and not is_eval)
        vals = {k: v for k, v in d.items() if k not in ("epoch", "step", "global_step", "total_flos")}
        if summary:
            for k, v in vals.items():
                f = to_float(v)
                if f is not None:
                    self.b.summary[str(k)] = f
            self.counts["hf_stdout"] = self.counts.get("hf_stdout", 0) + 1
            return
        self.point("hf_stdout", ln, vals, step=step, epoch=NAN if ep is None else ep, source="hf_stdout")

    def sb3_line(self, ln: int, line: str) -> bool:
        if _SB3_BORDER.match(line):
            if self.sb3_rows is None:
                self.sb3_rows = {}
                self.sb3_group = ""
                self.sb3_start = ln
            else:
                rows = self.sb3_rows
                self.sb3_rows = None
                if rows:
                    step = to_float(rows.get("time/total_timesteps"))
                    if step is not None:
                        self.step = step
                    self.point("sb3_stdout", self.sb3_start, rows, step=step if step is not None else NAN,
                               source="sb3")
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


def _snippet(text: str, at: int, width: int = 1000) -> str:
    """The line, or for a very long one the part around the match."""
    if len(text) <= width:
        return text
    start = max(0, at - width // 5)
    return ("..." if start else "") + text[start:start + width] + "..."


def _known(x: float) -> float | None:
    return None if x != x else x


def _zero_if_nan(x: float) -> float:
    return 0.0 if x != x else x


def _llmc_fields(rest: str) -> dict[str, str]:
    """`loss 11.01 (+nanz)| norm 15.1 (+nanz)| lr 8.57e-07 | 4621.47 ms | 29.2% bf16 MFU | 113446 tok/s`."""
    out: dict[str, str] = {}
    for part in rest.split("|"):
        p = re.sub(r"\([^)]*z\)", "", part).strip()  # z-scores are not metrics ((+nanz) is not a NaN loss)
        if not p:
            continue
        bits = p.split()
        if len(bits) >= 2 and re.fullmatch(_NUM, bits[1]) and not re.fullmatch(_NUM, bits[0]):
            out[bits[0]] = bits[1]
        elif re.fullmatch(_NUM, bits[0].rstrip("%")):
            unit = " ".join(bits[1:])
            name = {"ms": "step_time_ms", "tok/s": "tok/s"}.get(unit)
            if name is None and "MFU" in unit:
                name = "mfu"
            if name:
                out[name] = bits[0].rstrip("%")
    return out


def _pipe_fields(rest: str) -> dict[str, str]:
    """Megatron `key: value |` fields."""
    out: dict[str, str] = {}
    for part in rest.split("|"):
        k, sep, v = part.rpartition(":")
        if sep and k.strip():
            v = v.strip().split()[0] if v.strip() else ""
            out[" ".join(k.split())] = v
    return out


_SPLIT_REDRAWS = re.compile(r"\r|\x08+")


def read(src: Source, fmt: str | None = None) -> Run:
    text = src.text()
    b = RunBuilder(src.path, fmt or "text", source="text")
    r = _TextReader(b)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for ln, line in enumerate(lines, 1):
        if line.endswith("\r"):
            line = line[:-1]
        if len(line) > MAX_TEXT_LINE:
            b.skip("line too long")
            line = line[:MAX_TEXT_LINE]
        if "\x00" in line:
            line = line.replace("\x00", "")
        if r.sb3_line(ln, line):
            continue
        if r.events(ln, line):
            continue
        if "\r" in line or "\x08" in line:
            segs = [s for s in _SPLIT_REDRAWS.split(line) if s.strip()]
        else:
            segs = [line]
        for seg in segs:
            try:
                r.segment(ln, seg)
            except (ValueError, OverflowError, RecursionError, MemoryError) as exc:  # never crash on a line
                b.skip(f"unparsable line ({type(exc).__name__})")
    r.flush_traceback()
    r.keras_flush()
    if r.counts:
        b.format = fmt or max(r.counts, key=lambda k: r.counts[k])
        b.meta["dialects"] = dict(sorted(r.counts.items(), key=lambda kv: -kv[1]))
    b.meta["lines"] = len(lines)
    return b.build()


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
