"""The general printed-log line parser: name/value pairs out of any everyday print style.

No regex per tool. A line is cleaned (ANSI colours, timestamps, log levels, logger names and rank
prefixes go), cut into tokens (numbers in every spelling, words, separators), and read with one
small grammar:

* ``key <sep> value`` where the key is one to three words and ``<sep>`` is nothing, ``:`` or ``=``
  (``loss 2.31``, ``Loss: 2.31``, ``loss=2.31``, ``Train loss 2.31``, ``lm loss: 2.31``);
* pairs are separated by whitespace, ``|``, ``,``, ``;`` or `` - ``;
* counters give the step axis: ``step 10/2000``, ``Epoch 1/3``, ``Iter 10:``, ``[1,    10]``,
  ``Epoch [1][50/7330]``, ``Train: 0 [  50/1251 (4%)]``; a bare integer that opens a line is a step;
* a value in parentheses right after a value is a running average or a z-score and is skipped;
* a unit after a value (``ms``, ``%``, ``tok/s``, ``GB``) stays with it, and names an unnamed value
  (``| 4621.47 ms |``, ``29.2% bf16 MFU``);
* ``key: N/M`` that is not a counter is the fraction N/M (``Accuracy: 9800/10000``);
* a label that no number follows (``Validation:``, ``Test set:``, ``[eval]``) marks the line's split;
  ``Losses:`` makes the unknown keys after it parts of the loss (``total 15.1`` is the total loss);
* a value with no key before it may be named by metric words after it (``3438 src tok/s;``); a whole
  number before a counter word and more words counts them (``1 epoch average loss``): no value;
* ``<metric> of|for <part>`` is that part's metric (``Accuracy of plane``: ``Accuracy/plane``);
* two pass times of different splits (``| train 2.9s | Acc 45% | infer 5.5s``) split the line: the
  values before the evaluation's time are the evaluation's.

Everything the grammar decides depends only on the line's *template* (the line with every number
replaced by ``#`` and runs of blanks folded), so a parse is computed once per template and then
applied to every line of that template by picking its numbers out by position: that is what makes a
million-line log cheap, and what the bulk path (``triage.ingest.printed_bulk``) relies on.
"""

from __future__ import annotations

from triage.ingest import lazyre as re
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

# A number in every everyday spelling; never the digits glued to a word (mAP50, top1, fp16).
NUM_BODY = (
    r"\d{4}-\d{2}-\d{2}(?:[T_]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\d-])"  # dates (skipped)
    r"|\d{1,2}:\d{2}(?::\d{2})?\s?(?:AM|PM|am|pm)(?![A-Za-z])"  # a clock time with its 12-hour marker (skipped)
    r"|\d+\s?days?,\s*\d{1,2}:\d{2}:\d{2}|\d+:\d{2}(?::\d{2})?(?:\.\d+)?(?![\d:])"  # durations (skipped)
    r"|\d+(?:h|m)(?:\d+(?:ms|m|s))+(?!\w)|\d+s\d+ms(?!\w)"  # glued durations `41m50s`, `10h28s`, `35s649ms` (skipped)
    r"|[-+]?1\.#(?:QNAN|SNAN|IND|INF)\d*"  # the MSVC runtime's NaN and infinity (`1.#QNAN000`, `-1.#IND`)
    r"|[-+]?(?:\d{1,3}(?:,\d{3})+(?![\d,])(?:\.\d+)?|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?"
    r"|(?:[Nn]a[Nn]|NAN|[Ii]nf(?:inity)?|INF)(?:\.0\b|x+(?=[\s,;|)\]]|\Z))?(?![A-Za-z]))"  # (Lightning's bar: `train_loss=inf.0`)
    r"|[-+]?\.(?:nan|NaN|NAN|inf|Inf|INF)(?![\w.])"  # YAML's spelling (`episode_reward_mean: .nan`, `-.inf`)
)  # (`nanxxx`: a float format with fill `x`, `{:x<6f}` as PaddleOCR prints, pads only nan/inf, which are short)
_UNIT_AHEAD = (r"(?=(?:ms|us|s|sec|min|h|GB|GiB|Gb|G|MB|MiB|Mb|M|KB|kB|K|B|x(?!\d)|it/s|s/it|ms/step|s/step|tok/s)"
               r"(?![A-Za-z]))")  # (`32x64` is a shape, not 32 times)
# (the end of an IoU range in a detection metric's name, `mAP@0.50:0.95` / `AP@[.5:.95]`, is no value)
_IN_IOU_RANGE = r"(?<!@\d:)(?<!@\.\d:)(?<!@\d\.\d:)(?<!@\d\.\d\d:)(?<!@\[)(?<!@\[\.\d:)(?<!@\[\d\.\d:)(?<!@\[\d\.\d\d:)"
NUM = r"(?<![\w.@#])(?<!\w-)(?<![^\W\d]/)" + _IN_IOU_RANGE + r"(?:" + NUM_BODY + r")(?:(?![\w]|\.\d|\.[A-Za-z]{2,4}\b)|" + _UNIT_AHEAD + ")"
# (`200001.jpg`, `model_3.pth`: a file's name, never a value)
NUM_RE = re.compile(NUM)
_NUM_FULL = re.compile(NUM_BODY + r"\Z")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

# `Epoch: [1 | 20]`, `Epoch: [3/90]`: the counter and its total in brackets after the colon (not `Epoch: [0][10/500]`)
_BRACKETED_OF_TOTAL = re.compile(r"(?i)\b(epoch|iter|iteration|step|round)\s*:\s*\[\s*(\d{1,9})\s*(?:/|\|)\s*(\d{1,9})\s*\](?!\s*\[)")
# `Backdoor False. Epoch: 30.`: a flag and its truth value closing a sentence before the counter; a setting
_FLAG_SENTENCE = re.compile(r"(?<![\w.=:])([A-Z][A-Za-z_-]{0,30}) (True|False) ?\.\s+(?=[A-Z])")
_SPLIT_ABBREV = re.compile(r"^(Val|val|VAL|Valid|Eval|eval|Test|test|Train|train)\.\s+(?=[A-Za-z])")

# a direction written with an arrow inside a name (`MT a->b valid_err=53.3`, `en->de bleu: 27.1`: the pair of
# languages, or of domains, a model maps between): one word, its ends joined by a hyphen
_PLAIN_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"  # a signed number, decimal or scientific (no nan/inf)
_NAME_ARROW = re.compile(r"\b([A-Za-z]{1,12})->([A-Za-z]{1,12})\b")
# a split word, a bare whole number and a comma, then named values: `Train 240, loss: 1.34, train acc: 0.99`
_SPLIT_THEN_COUNT = re.compile(r"^(Train|train|TRAIN|Training|Test|test|TEST|Testing|Val|val|VAL|Valid|Validation|Eval"
                               r"|Evaluation)(?:\s+|\s*:\s*)(\d{1,6}),\s*([A-Za-z][\w ]{0,30}?)\s*[:=]\s*[-+]?(?:\d|\.\d|nan|inf)")
# the names of a line's values listed first, an arrow, then the values in that order (`train, round, loss, acc
# ===> 003, 0.82, 0.39,`): a split word may lead the names with no value of its own
_NAMES_THEN_VALUES = re.compile(r"(?:^|(?<=[:|\]])\s+)([A-Za-z_][\w/.@-]*(?:\s*,\s*[A-Za-z_][\w/.@-]*){1,15})\s*(?:=+>|-+>)\s*"
                                r"(" + _PLAIN_NUM + r"(?:\s*,\s*(?:" + _PLAIN_NUM + r"|[-+]?(?:nan|inf))){0,15})\s*,?\s*$", re.I)

# the names in one bracketed list, then their values in a second, as numpy prints an array (`[Total Loss, KL Loss,
# Reg Loss] : [  nan   nan 2.301]`, `[loss, acc] = [0.52, 0.81]`): the same pairs, each name with its value
_BRACKETED_NAMES_VALUES = re.compile(
    r"\[([A-Za-z_][\w /.@-]*(?:,\s*[A-Za-z_][\w /.@-]*){1,15})\]\s*[:=]\s*"
    r"\[\s*((?:" + _PLAIN_NUM + r"|[-+]?nan|[-+]?inf)"
    r"(?:(?:\s*,\s*|\s+)(?:" + _PLAIN_NUM + r"|[-+]?nan|[-+]?inf)){1,15})\s*\]$")


def _paired(names: list[str], values: list[str], sep: str) -> str | None:
    """`name<sep>value, ...` for names and values listed apart, or None when their counts differ."""
    if len(names) != len(values):
        return None
    return ", ".join(f"{n}{sep}{v}" for n, v in zip(names, values))


def _bracketed_names_values(line: str) -> str:
    m = _BRACKETED_NAMES_VALUES.search(line)
    if m is None:
        return line
    pairs = _paired([n.strip() for n in m.group(1).split(",")], m.group(2).replace(",", " ").split(), ": ")
    return line if pairs is None else line[: m.start()] + pairs


def _names_then_values(line: str) -> str:
    m = _NAMES_THEN_VALUES.search(line)
    if m is None:
        return line
    names = [n.strip() for n in m.group(1).split(",")]
    values = [v.strip() for v in m.group(2).split(",")]
    split = ""
    if len(names) == len(values) + 1 and names[0].lower() in _SPLIT_LEADS:
        split, names = names[0] + " ", names[1:]
    pairs = _paired(names, values, ": ") if len(values) >= 2 else None
    return line if pairs is None else split + pairs

# how many steps a time was taken over, before the time's name (`100 Step Time : 143.4`, the seconds of the last
# 100 steps): a tally, never the step the line belongs to
_COUNT_BEFORE_TIMING = re.compile(r"(?i)^\d+\s+(?=(?:steps?|iters?|iterations?|batch(?:es)?)\s+time\s*[:=])")


_HASH_COUNTER = re.compile(r"^#\d+(?:/\d+)?(?=[\s,:\-|])")
# A number sign between a counter's name and its number (`Iteration #50`, `Episode #12:`): the counter
# A counter's name glued to its number at the start of a line (`epoch0, iter10, loss: 0.71`, `Epoch12 loss 0.5`):
# the name and the count, as `epoch 0`; a word that goes on after the digits (`step1_model`) is no counter
_GLUED_COUNTER = re.compile(r"(?i)(?<![\w./-])(epoch|iter|iteration|step|episode|batch)-?(\d{1,9})(?=[,;:|]|\s|$)")
# An epoch and the batch (or iteration, or step) inside it, each a letter or two glued to its count, at the start
# of a line or after its tag (`e3 b45/100 loss 2.31`, `ep2 it300: ...`): one letter alone is no counter, the pair of them is
_SHORT_EPOCH_BATCH = re.compile(r"(?:^|(?<=[\s\]|:]))[eE][pP]?(\d{1,6})[\s,|]+([bB]|[iI][tT]?|[sS])(\d{1,9}(?:/\d{1,9})?)(?=[\s,;:|]|$)")
_SHORT_COUNTER = {"b": "batch", "i": "iter", "it": "iter", "s": "step"}


def _short_epoch_batch(m: re.Match) -> str:
    return f"epoch {m.group(1)} {_SHORT_COUNTER[m.group(2).lower()]} {m.group(3)}"


# Two counters under one slashed name, their values slashed the same way (`epoch/iter: 5/3539`, `Epoch/Step
# 3/120`): the epoch, then the step inside the run; the second number is no total of the first.
# One bracket holding two counters of totals split by a colon (CREStereo: `[2/100:5/500] ==> loss:26.19`,
# epoch 2 of 100, iteration 5 of 500): the two bracketed counters MMCV prints (`[2/100][5/500]`)
_EPOCH_COLON_ITER = re.compile(r"\[\s*(\d+\s*/\s*\d+)\s*:\s*(\d+\s*/\s*\d+)\s*\]")
_SLASHED_COUNTERS = re.compile(r"(?i)\b(epoch|ep)\s*/\s*(iter|iteration|step|batch)\s*[:=]?\s*(\d+)\s*/\s*(\d+)\b")
# `[lfw][6000]XNorm: 38.36`, `[6000]Accuracy-Highest: 0.515` (InsightFace's verification report): a test
# set's name in brackets, then the step in brackets glued to the metric's name
# (behind a logger's stamp and dash too: `Training: 2021-09-03 04:06:46,999-[lfw][2000]XNorm: 9.46`)
_SET_AND_STEP = re.compile(r"^(.{0,40}?\d\d:\d\d:\d\d(?:[,.]\d+)?\s*-\s*)?\[([A-Za-z][\w.-]*)\]\[(\d+)\](?=[A-Za-z])")
_GLUED_STEP = re.compile(r"^\[(\d+)\](?=[A-Za-z][\w-]*:\s*[-+]?(?:\d|\.\d|nan|inf))")
# A name that opens with the counter and its number, joined by underscores (`iter_200_AUC_all is 0.91`,
# `epoch_3_val_acc: 0.8`, the word sometimes missing its first `e`, `itration_200`): the count the value was
# measured at, then the metric's own name
_COUNTER_IN_NAME = re.compile(r"(?i)^(epoch|ite?ration|iter|step|episode)_(\d{1,9})_(?=[A-Za-z])")
# the same glued counter inside a line, after the word that says when (`Test set Top1 Accuracy(%) after
# epoch116:  68.3`, `loss at iter500: 0.2`): the count the value was measured at (either may join the count
# with a hyphen: `Epoch-3 lr: 0.00025`, `finished eval of epoch-3`)
_GLUED_COUNTER_AFTER = re.compile(r"(?i)\b(after|at|of|in|for|on)\s+(epoch|iter|iteration|step|episode)-?(\d{1,9})"
                                  r"(?=[,;:|)]|\s|$)")
# a loss's name with its value written straight after it, no blank or sign between (`mean_loss0.130139,`,
# LightGCN's `loss0.545-|Sample:10.23|`: a dash before the next item's bar)
_GLUED_LOSS = re.compile(r"(?<![\w./-])((?:[A-Za-z][A-Za-z_]*)?[Ll]oss)(\d*\.\d+(?:[eE][-+]?\d+)?|nan|inf)(?=-?[,;|]|\s|$)")
# a bar drawn before its first step (`  0%|          | 0/65 [00:00<?, ?it/s]`) with the next print glued after it:
# the bar holds nothing yet, the text after it is the line
_IDLE_BAR = re.compile(r"^\s*(?:0%\|[^|]*\|\s*)?0/\d+\s*\[00:00<\?,\s*\?[A-Za-z]*/s\]\s*(?=\S)")
_NAMED_HASH = re.compile(r"(?i)\b(epoch|iter|iteration|step|episode|update|round|generation|trial)\s*#(?=\d)")
_LINE_NUMBER = re.compile(r"^ *\d+ +(?=\S)")
_CLOCK = re.compile(r"\[?\d{1,4}[-/:]\d{2}[-/:]\d{2}")  # a timestamp (a line number before one is no value)
_CARET_ANSI = re.compile(r"\^\[\[[0-9;?]*[A-Za-z]")
_ARROW_ANSI = re.compile("\u2190\\[[0-9;?]*[A-Za-z]")
# colour codes whose ESC byte was lost in a paste (`[32m[0705 13:50:41 @monitor.py:467][0m lr: 0.001`): the
# bracket, the SGR numbers and `m` are left; taken only on a line that also holds the reset `[0m`
_BARE_SGR = re.compile(r"\[(?:\d{1,3}(?:;\d{1,3}){0,4})?m")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\x1b[=>]")

# Line prefixes that carry no metric: timestamps, levels, logger names, ranks, glog headers.
_PREFIX = re.compile(
    r"""^\s*(?:
      \[\d{4}-\d{2}-\d{2}[T\s]\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\s+[A-Za-z_][\w.-]*\]  # `[2025-10-20 20:55:02 alexnet]` (Swin-style loggers)
    | \[[A-Za-z_][\w.-]*:\s\d{1,2}-\d{1,2}\s\d{1,2}:\d{2}:\d{2}\]\s+\{\d+\}(?=\s)  # `[%(name)s: %m-%d %H:%M:%S] {%(lineno)d}` (FLAML)
    | \[\d{4}-\d{2}-\d{2}\s\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?:[\w.()-]+(?::[\w.()-]+)*\]  # `[%(asctime)s:%(name)s:%(host)s]`, one bracket
    | \[\s?(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\s?:\s?\d{4}-\d{2}-\d{2}\s\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\s?\]  # `[ INFO : 2025-06-14 04:05:47,255 ]`
    | \[(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL):\d+\s[\w.-]+:\d+\s\d{4}-\d{2}-\d{2}\s\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\]  # TorchBeast's `[%(levelname)s:%(process)d %(module)s:%(lineno)d %(asctime)s]`
    | \([\w./-]+\.py\s+\d+\)\s*:?  # `(main.py 186):` the file and line the logger names
    | \S+\s-\s(?=\([\w.-]+:\d+\)\s-\s)  # `%(name)s - (%(filename)s:%(lineno)d) - `: the logger's name before
                                      # where the call sits (ManiSkill2-Learn: `Env-v0-train - (train_rl.py:374) - INFO`)
    | \([A-Za-z_][\w.]*:\d+\)(?=\s)  # `(%(module)s:%(lineno)d)`: `(base_trainer:831)`, a source line, no value
    | \[?\d{3,4}[-/]\d{1,2}[-/]\d{1,2}(?:[T\s_]|,(?=\d{1,2}:\d{2}:\d{2}\s))\d{1,2}:\d{2}(?::\d{2}(?:[.,](?:\d+|%f))?)?(?:\s?(?:Z|[+-]\d{2}:?\d{2}|UTC))?\]?  # (`024-07-17 ...`: a paste that cut the year's first digit)
    | \[?(?:19|20)\d{6}[-_T\s]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\]?(?=\s)  # `%Y%m%d-%H:%M:%S`: `20200204-20:09:01`
    | \[?(?:19|20)\d{2}-\d{2}-\d{2}[-_]\d{2}-\d{2}(?:-\d{2})?\]?:?(?=\s)  # dashes only, `%Y-%m-%d-%H-%M`: `2020-05-28-20-43:`
    | \[?\d{1,2}[-/]\d{1,2}(?:[-/]\d{2,4})?[\s_]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:[A-Za-z_][\w.]*)?\]?:?
    | \d{1,2}/\d{1,2}-\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?=\s)  # datefmt `%m/%d-%H:%M:%S`: `02/18-02:53:26.942`
    | \[?\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\]?
    | \[\d{1,2}\.\d{1,2}\.\d{2,4}\|\d{1,2}:\d{2}(?::\d{2})?\]  # strftime `[%m.%d.%y|%X]`: `[03.24.23|09:56:31]`
    | \d{2}:\d{2}:(?=\s)  # a clock to the minute, `%H:%M:` (`[INFO] 09:31: ...`)
    | \[?\s?(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),?\s+)?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{1,2},?
      (?:\s+\d{4})?\s+\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s+\d{4})?\s?\]?  # time.asctime(): `[ Tue Nov 14 00:36:21 2023 ]`
    | \d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{1,2}:\d{2}(?::\d{2})?  # `12 Nov 21:12` (RecBole)
    | (?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),?\s+)?\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{4}
      \s+\d{1,2}:\d{2}:\d{2}  # datefmt `%a, %d %b %Y %H:%M:%S`: `Mon, 15 May 2023 00:04:19`
    | [\w.-]+\.py\[line:\s*\d+\]  # `%(filename)s[line:%(lineno)d]`: `train.py[line:31]`
    | \[[A-Za-z_][\w.-]*\](?=\[(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\])  # the logger's name before its bracketed level
    | \[[\w.-]+\.py>[\w<>]+\]  # `[%(filename)s>%(funcName)s]`: `[log.py>_log]`, where the call sits
    | \[[\w./-]+\.py:\d+(?::[\w<>.]+)?\](?:\s+\(\d+/\d+\))?  # icefall / k2: `[finetune.py:1142] (5/8)` (file:line, rank/world);
                                                           # DeepSpeed's `[timer.py:199:stop]` (file:line:function)
    | \[\d{4}\s+\d{1,2}:\d{2}:\d{2}\s+@[\w.-]+:\d+\]  # tensorpack's `[0227 18:54:41 @monitor.py:233]`
    | (?:[\w.-]+\s+-\s+)?\S+\.py\s+:\s+[\w<>]+\s+\[\d+\]\s+-(?=\s)  # `train - /x/trainer.py : train_step [27] -`
    | \[\s*(?:\d{1,3}%|-{4,})\s*\](?=\s)  # xLearn's progress cell before its table (`[   10%      ]     1   0.52`, `[------------] Epoch`)
    | `+(?=\S)  # the backtick of a Markdown code span the paste opened on the first log line
    | >+\s  # a Markdown quote
    | \+(?=\.*[IWEF]\d{4}\s|\[?\d{4}-\d{2}-\d{2}[T\s])  # a diff hunk's added line: `+` before a stamped log line
    | \*\s  # a Markdown bullet
    | \.{3,}(?=[IWEF]\d{4}\s)  # glog after the progress dots of a pass (`.....I0305 23:00:29.7 35 Trainer.cpp:182]`)
    | [IWEF]\d{4}(?:\d{4})?\s+\d{1,2}:\d{2}:\d{2}\.\d+\s+\d+\s+[\w./-]+:\d+\]  # (glog 0.7 on writes the year too: `I20250403 16:40:52.33 72 solver.cpp:217]`)
    | [IWEF]\s+[\w./-]+\.(?:cc|cpp|h|py):\d+\]
    | LOG\((?:INFO|WARNING|ERROR|FATAL)\)(?=\s)  # sentencepiece's level after its source place (`trainer.cc(580) LOG(INFO)`)
    | [IWE]\s(?=(?:Training|Validation|Validating|Test|Testing|Evaluation|Evaluating)\b)  # DeepSpeech's level letter
    | [IWE]\s(?=[A-Z][A-Za-z]{1,}:\s*[-+]?(?:\d|\.\d|nan|inf))  # (and before its report's metric: `I WER: 1.000000, loss: 21.9`)
    | (?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL|NOTICE|TRACE|SUCCESS)\s*\|\s*[\w.<>-]+(?::[\w.<>-]+)*:\d+\s*(?:\||-(?=\s))
    | (?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\s*\|\s*(?!(?i:train|training|val|valid|validation|eval|evaluation|test|testing|dev)\b)
      [A-Za-z_][\w.<>-]*\s*\|(?=\s+[^\s\d.+-])  # `%(levelname)s | %(name)s | ` (a split's name there labels the line)
    | (?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL):[A-Za-z_][\w.-]*:  # logging's default format: `INFO:tensorflow:`, `INFO:my-run:`
    | (?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\t[\w.<>-]+\t  # fields split by tabs, `%(levelname)s\t%(name)s\t`
    | \[\s+(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL|NOTICE|TRACE)\s*\]  # a level padded to its width, `[%(levelname)8s]`: `[    INFO]`
    | \[?(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL|NOTICE|TRACE)\]?(?=[\s:\]|-])
    | \S+\s-\s(?=(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\s-\s)
    # (`[5]:` or `[86]` before a tab or a tab's spaces is a boosting round's counter (LightGBM's R package,
    # XGBoost), not a rank; so is one before XGBoost's `set-metric:value` pairs printed with one blank
    # after it, `[10] train-rmse:0.36 eval-rmse:0.84`)
    | \[(?:(?:rank|Rank|RANK|default|worker|GPU|gpu)\s?\d+(?:[,/]\d+)?\]
         |\s?\d+(?:,\d+)?\](?!\t|\s{2,}|:\s{2,}|:\t|\s[A-Za-z]\w*-[\w@.-]+:[-+.\d]))(?:<std(?:out|err)>)?:?
    | \[[\w.-]+/(?:Main|Spawn|Fork)?(?:Process|Thread)(?:-\d+)?\](?=\s)  # `[%(name)s/%(processName)s]`: `[app/MainProcess]`
    | \[[A-Za-z][\w-]*(?:\.|://)[A-Za-z][\w-]*(?:[./][A-Za-z][\w-]*)*\](?=\s)  # a Java logger's thread or actor
                                                                         # (`[akka://Tracker/user/Handler]`)
    | \((?:pid=\d+|\w+\s+pid=\d+)[^)]*\)
    | (?:rank|Rank)\s?\d+:
    | \[\d+,mpirank:\d+(?:,[\w.-]+)?\](?:<std(?:out|err)>)?:?  # OpenMPI's --tag-output: `[1,mpirank:5,algo-1]<stderr>:`
    | \d+\s+(?=\[(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\])  # a process id before the level: `93253 [INFO]`
    | P\d+\s+(?=(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\s)  # `P%(process)d %(levelname)s`: `P3047876 INFO`
    | \d+: (?![\t ])  # srun's rank (`5:\t`, `100:    `: a tab or its spaces after it: a boosting round's counter)
    | [\w.-]+:\d+(?=\t)
    | [\w.-]+:\d+(?=\s+(?:[\w.-]+:\d+\s+)?(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\b)  # `host:0  olmo.train:908  INFO`
    | [A-Za-z_][\w.]*\.py:\s+\d+(?::|\]:?)(?=\s)  # a padded line number, `%(filename)s: %(lineno)4d:` (`logging.py:   99:`,
                                          # `[INFO: logging.py:   67]:`): where the call sits in the source, no step
    | [A-Za-z_][\w.]*\.py:\d+
    | [A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+(?::\d+)?(?=\s*[:\]\-|\u2013\u2014])
    | [\u2013\u2014](?=\s)  # `%(asctime)s \u2014 %(name)s \u2014 %(levelname)s \u2014 %(message)s`: the dash between fields
    | root(?=:)
    | wandb:(?=\s)  # the W&B client's console lines (`wandb:     loss 2.31` under `wandb: Run summary:`)
    | __main__(?=\s+-\s)  # `%(levelname)s - %(name)s - %(message)s` from the script's own logger: `INFO - __main__ - `
    | [\w.-]+\t(?:INFO|WARNING|WARN|DEBUG|ERROR|CRITICAL)\t  # fields split by tabs, `%(name)s\t%(levelname)s\t`
    | -(?!\.?\d)  # a dash between fields; one right before a digit is the sign of a number (`-3.25\t-6.67`)
    | [:|\]]
    )\s*""",
    re.X,
)

# Progress bars: their counters are never steps and their postfixes are not records.
# (pip and rich draw theirs first: `━━━━━━━━━━ 1.5/1.5 MB 8.3 MB/s eta 0:00:00`; a bar's share done is a whole
# percent, so a value with decimals before a `|` is a metric with the column rule glued on: `Rank-10: 53.17%| mAP`)
_TQDM_BAR = re.compile(r"\d+/\d+\s*\[\d[\d:]*<[\d:?]*|\|[\s█▉▊▋▌▍▎▏#=>-]*\|\s*\d+/\d+|(?<![\d.])\d+%(?:\||\s+[━╸╺─]{3,}\s+\d+/\d+)"
                       r"|^\s*[━╸╺]{3,}\s")  # (Ultralytics 8.3: `100% ━━━━━━━━━━━━ 13/13 0.9it/s 13.8s`)
# pip's download bar before version 20 (`|████████| 163 kB 15.5 MB/s`): a download, never a metric
_PIP_BAR = re.compile(r"^\s*\|[\s█▉▊▋▌▍▎▏]{3,}\|\s*[\d.]+\s*[kMG]?B\s+[\d.]+\s*[kMG]?B/s\s*$")
# (`804/804 - 2s - loss: 0.55 - accuracy: 0.73 - 635ms/epoch - 2ms/step`: `verbose=2` since TF 2.2, no bar drawn)
_KERAS_BAR = re.compile(r"^\s*\d+/\d+\s+(?:\[[=>.\s]*\]|[━─\s]{3,}|-\s\d+(?:\.\d*)?m?s\s-\s(?=[A-Za-z]))")

# An IoU range inside a detection metric's name (`mAP@0.50:0.95: 0.0`, `AP@[.5:.95]`): part of the
# key, never a value (a range after `@N` is only taken when a separator follows it).
_IOU_RANGE = r"(?:@\[[\d.]+:[\d.]+\]|(?<=\d):\d*\.?\d+(?=\s*[:=]))"

_TOKEN = re.compile(
    # `2_validate.lst-WER:`: a metric named after the data list it was scored on (wav2letter++), a name
    r"(?P<lname>(?<![\w.])\d[\w-]*\.(?:lst|list|tsv|csv)-[A-Za-z][\w-]*(?=:))"
    r"|(?P<fname>(?<![\w.])\d[\w-]*\.[A-Za-z][A-Za-z0-9]{1,3}\b)"  # `200001.jpg`: a file, neither value nor key
    # `3d_train`, `2d_loss`: a name that opens on its digit; so is one that a colon and a value follow (`1px: 0.90`,
    # optical flow's share of pixels within 1 px) where no value goes (`idx: 0loss: 8.4` is a value, then a name)
    r"|(?P<dword>(?<![\w.])(?:\d[A-Za-z]+_[A-Za-z]\w*|(?<![:=]\s)(?<![:=])\d[A-Za-z]{2,}(?=:[ \t]+[-+]?\.?\d)))"
    r"|(?P<num>" + NUM + r")"
    r"|(?P<word>(?:[^\W\d]|[@#])[\w@#]*(?:[./\-@][\w@#]+)*" + _IOU_RANGE + r"?(?:\([A-Za-z]\w*\))?(?:\.(?=\s))?)"
    r"|(?P<dash>\s+(?:-{1,3}|[\u2013\u2014])\s)"  # `-`, `--`, an en or em dash between blanks: a separator
    r"|(?P<sp>\s+)"
    r"|(?P<p>.)",
    re.S,
)

UNITS = {
    "ms": "ms", "s": "s", "sec": "s", "secs": "s", "seconds": "s", "min": "min", "h": "h", "us": "us",
    "%": "%", "it/s": "it/s", "s/it": "s/it", "tok/s": "tok/s", "tokens/s": "tok/s", "tok/sec": "tok/s",
    "tokens/sec": "tok/s", "samples/s": "samples/s", "samples/sec": "samples/s", "img/s": "samples/s",
    "ex/s": "samples/s", "GB": "GB", "G": "GB", "GiB": "GB", "MB": "MB", "MiB": "MB", "M": "M", "K": "K",
    "B": "B", "x": "x", "ms/step": "ms/step", "s/step": "s/step", "/s": "/s", "/sec": "/s", "/step": "/step",
    "/it": "/it", "/iter": "/it", "Gb": "GB", "Mb": "MB", "KB": "K", "kB": "K", "words/s": "tok/s",
    "words/sec": "tok/s", "wps": "tok/s", "tok/sec/gpu": "tok/s",
    "dB": "dB",  # (`PSNR: 22.33 dB SSIM: 0.64`: decibels after a PSNR, never a word of the next name)
}
_RATES = {"tok/s", "samples/s", "it/s"}
# counter words that may follow their count (`000 epoch, 02000 iter,`)
_COUNTER_AFTER = {"epoch", "iter", "iteration", "step"}
# Plural nouns of things a number may count (`processed 74542 tokens`, `found: 16018 phrases`): a size.
_COUNT_NOUNS = {"tokens", "phrases", "words", "sentences", "images", "samples", "examples", "sequences", "items",
                "chars", "characters", "files", "instances", "boxes", "objects", "documents", "utterances",
                "frames", "records", "lines", "pairs", "batches", "episodes", "folds",
                # (what a language model's sampler counts: `generating 2 candidates for prompt 1/1`)
                "candidates", "completions", "generations", "responses", "prompts", "rollouts"}
# Any `<things>/sec` or `<things>/s` is a rate: a unit after a value (`6.25 updates/sec`), never a key.
_RATE_WORD = re.compile(r"^[A-Za-z]+/(?:s|sec|second)$")


def unit_of(word: str) -> str:
    """The unit a word spells (`ms`, `tok/s`, `updates/sec` -> `updates/s`), or ""."""
    u = UNITS.get(word, "")
    if not u and _RATE_WORD.match(word):
        u = word.split("/")[0].lower() + "/s"
    return u


# Vague names of a rate (`Speed: 1293.6 samples/sec`): the rate's unit names it better.
_RATE_KEYS = {"speed", "throughput", "rate"}
_COPULA = {"is", "are", "was", "were", "becomes", "became", "now"}
# A verb of change before `to` and the new value (`loss jumped to 12.5`, `Loss exploded to nan at step 32`):
# the words before it name the metric, the number after `to` is its value
_MOVED = {"went", "exploded", "jumped", "rose", "fell", "dropped", "climbed", "spiked", "grew", "shot", "increased",
          "decreased", "diverged", "blew"}


def _names_then_moved(pending: list[str]) -> bool:
    """The words so far are a metric triage knows followed by a copula (`loss is`) or a verb of change
    and `to` (`loss exploded to`): the number next is that metric's value, even when it is spelled as a
    word (`nan`, `inf`), never a word of a longer phrase."""
    if len(pending) >= 3 and pending[-1].lower() == "to" and pending[-2].lower() in _MOVED:
        head = pending[:-2]
    elif len(pending) >= 2 and pending[-1].lower() in _COPULA:
        head = pending[:-1]
    else:
        return False
    return len(head) <= 3 and known_key(" ".join(head), loose=True)
# What an unnamed value is called by its unit alone (``| 4621.47 ms |``).
_PLAIN_TIME = {"s", "ms", "min", "h"}
UNIT_NAMES = {"ms": "step_time_ms", "s": "step_time_s", "ms/step": "step_time_ms", "s/step": "step_time_s", "tok/s": "tok/s",
              "samples/s": "samples/s", "it/s": "it/s", "s/it": "s/it"}

STEP_WORDS = {"step", "steps", "iter", "iters", "iteration", "iterations", "it", "global_step", "globalstep",
              "update", "updates", "num_updates", "up", "upd", "itr", "batch_step", "total_steps_done", "total_step", "timestep", "timesteps",
              "total timesteps", "total_timesteps", "global step", "train step", "training step", "gstep", "episode", "episodes",
              "训练次数", "迭代次数", "步数", "步",
              "cycle",  # (an outer loop of self-play, active learning or a cyclic schedule: `after cycle=3`)
              "tick",  # (StyleGAN's progress report: `tick 1401  kimg 5738.6  time 1d 06h 06m ...`)
              "iter(train)",  # (OpenMMLab's iteration-based loop: `Iter(train) [ 105/2000]  lr: ...`)
              "t_env",  # (PyMARL and its forks: the environment steps taken so far, `t_env: 11846 / 10000000`)
              "current_step"}  # (beside `global_step:` on TF1 detectors' step line: the step this process is at)
EPOCH_WORDS = {"epoch", "epochs", "ep", "train epoch", "training epoch", "epoch(train)", "epoch(val)",
               "eval epoch", "val epoch", "valid epoch", "test epoch", "轮", "轮次", "训练轮数"}
# (`Iter(val) [120/120]`: OpenMMLab's evaluation loop counts its own batches, not the training's iterations)
BATCH_WORDS = {"batch", "batches", "batch_idx", "minibatch", "mini-batch", "bs_idx", "iter(val)", "iter(test)"}
SPLIT_EVAL = {"val", "vali", "valid", "validation", "eval", "evaluation", "test", "testing", "dev", "cv", "epoch(val)",
              "iter(val)", "iter(test)", "epoch(test)", "val epoch", "eval epoch", "valid epoch", "test epoch", "test set", "validation set", "val set",
              "dev set", "evaluating", "validating", "testing set", "infer", "inference", "valid set", "eval set",
              "evaluation set", "validate", "validate epoch",
              "bn_calibration"}  # (slimmable-network trainers: a pass that re-estimates BN statistics, then scores)
SPLIT_TRAIN = {"train", "training", "epoch(train)", "iter(train)", "train epoch", "training epoch", "train set", "training set"}
_STOP = {"of", "to", "the", "a", "an", "in", "at", "for", "with", "from", "after", "by", "is", "are", "was",
         "were", "be", "and", "or", "on", "this", "that", "it's", "has", "have", "than", "into", "not", "no",
         "will", "would", "should", "we", "you", "i", "my", "our", "saving", "saved", "loading", "loaded",
         "took", "using", "set", "size", "version", "seed", "num", "number", "every", "per", "left", "until"}
# A key that ends in one of these is the size of what a mean was taken over (`over 3310.00 frames`).
_COUNT_PREPOSITIONS = {"over"}
# A key that opens with one of these before `of`/`in` is how far a metric moved, not the metric
# (`Difference of the previous policy loss: -0.007`, `change in loss: 0.02`).
_CHANGE_WORDS = {"difference", "diff", "change", "delta", "improvement", "increase", "decrease", "drop"}
# A metric named with the set it was measured on (`Accuracy on Test-Set`, `loss on the validation set`)
_ON_SET = re.compile(r"(?i)^([A-Za-z][\w-]*(?: [A-Za-z][\w-]*)?) on (?:the )?(?:full |whole |entire )?"
                     r"(train|training|test|val|valid|validation"
                     r"|dev|eval|evaluation|held-out)(?:[-_ ]?(?:set|data|dataset|split|images))?$")
# Words that never name a metric on their own (a line's bookkeeping).
_NOT_METRIC = {"eta", "data", "data_time", "remaining", "elapsed", "max", "min", "gpu", "cpu", "pid", "rank",
               "world", "device", "cuda", "node", "nodes", "len", "length", "id", "idx", "index", "seed",
               "version", "port", "worker", "workers", "line", "file", "done", "left", "total", "got",
               "depth", "max depth", "max_depth",  # (`max depth = 15`: the shape of a boosted tree, not a score)
               "stalled"}  # (`: stalled 2 times`: how many validations in a row have not improved, early stopping's count)


@dataclass
class Slot:
    """What one number of a template is: a value, a step, an epoch, a batch, a fraction part, or nothing."""
    role: str  # value | step | epoch | batch | total | num | den | skip
    key: str = ""
    unit: str = ""


@dataclass
class Plan:
    """The parse of one template: a role for every number, in order, and the line's split label."""
    slots: list[Slot] = field(default_factory=list)
    label: str = ""  # "eval" | "train" | ""
    keys: int = 0  # slots that are values
    prose: bool = False  # reads like a sentence: never a record
    progress: str = ""  # "tqdm" | "keras" | ""
    lead_step: bool = False  # a bare integer opens the line
    known: bool = False  # a value's key is a metric the alias table knows
    counter: bool = False  # the line carries a step, epoch or batch counter
    sizes: tuple = ()  # keys that are a split word alone: a size where the number is whole
    tallies: int = 0  # numbers that count things (`74542 tokens`): sizes, never values
    part: str = ""  # `FOREST: precision: 0.5%; recall: ...`: the part of the data the line's metrics are for
    paren_avgs: tuple = ()  # (value slot, skipped slot) of each `Loss 2.31 (2.45)`: a value and one number after it

    @property
    def is_record(self) -> bool:
        """A metric record: values, not prose, not a progress bar, and either a metric triage knows
        or a counter (a config dump, a model summary or an install log has neither)."""
        return self.keys > 0 and not self.prose and self.progress != "tqdm" and (self.known or self.counter)

    @property
    def axes_only(self) -> bool:
        return self.keys == 0 and any(s.role in ("step", "epoch", "batch") for s in self.slots)


# A scalar printed inside its container: PyTorch `tensor(2.3026, device='cuda:0', grad_fn=<NllLossBackward0>)`,
# TensorFlow `tf.Tensor(0.52, shape=(), dtype=float32)`, NumPy `array(0.52, dtype=float32)` or `np.float64(0.52)`,
# JAX `Array(0.52, dtype=float32)`: `print(loss)` in a training loop writes these. The value is the number inside.
_WRAPPED_SCALAR = re.compile(
    r"(?<![\w.])(?:tf\.Tensor|[Tt]ensor|DeviceArray|Array|array|param|(?:np|numpy)\.(?:float|int)\d*)"
    r"\(\s*(\[\s*)?(\[\s*)?([-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf))"
    r"\s*(?(2)\])\s*(?(1)\])\s*(?:,((?:[^()]|\([^()]*\))*))?\)"  # `[x]` and `[[x]]` hold one value too
)
# TensorFlow's eager repr: `<tf.Tensor: shape=(), dtype=float32, numpy=2.3025851>`
_TF_EAGER = re.compile(r"<tf\.Tensor: [^<>]*?numpy=([-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|nan|inf))>")
_WRAP_HINTS = ("ensor(", "rray(", "np.", "numpy.", "numpy=", "param(")  # (`param(0.09)`: Flux's tracked scalar)
# The autograd node of a loss function (`grad_fn=<NllLossBackward0>`, `<BinaryCrossEntropyWithLogitsBackward0>`)
_LOSS_GRAD_FN = re.compile(r"grad_fn=<\w*(?:Loss|Entropy)\w*Backward\d*>")


def unwrap_scalars(line: str) -> str:
    """The line with every printed scalar container replaced by its number. A line that is one bare
    tensor whose autograd node is a loss function (`print(loss)`) reads as `loss: <number>`."""
    if "(" not in line or not any(h in line for h in _WRAP_HINTS):
        return line
    m = _WRAPPED_SCALAR.fullmatch(line.strip())
    if m and m.group(4) and _LOSS_GRAD_FN.search(m.group(4)):
        return f"loss: {m.group(3)}"
    if "numpy=" in line:
        line = _TF_EAGER.sub(lambda w: w.group(1), line)
    return _WRAPPED_SCALAR.sub(lambda w: w.group(3), line)


# A call shown with its value, as Julia's `@show loss(x, y)` prints it (`loss(x, y) = 0.0913`,
# `accuracy(m, x, label, 0:9) = 0.105`): the function's name is the metric's
_CALL_KEY = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\((?:[^()]|\([^()]*\))*\)\s*=\s*(?=[-+]?(?:\d|\.\d|nan\b|inf\b))", re.I)


def call_keys(line: str) -> str:
    """The line with `name(args) = value` read as `name = value`."""
    if ") =" not in line and ")=" not in line:
        return line
    if ") = (" in line:
        line = _tuple_pairs(line)
    return _CALL_KEY.sub(_call_name, line)


# A tuple of names shown with a tuple of values, as Julia's `@show (i, loss(x, y))` prints it
# (`(i, loss(x, y)) = (3, 0.296 (tracked))`): each name takes the value at its place
_TUPLE_SHOW = re.compile(r"^(\s*)\((.+)\)\s*=\s*\((.+)\)\s*$")


def _top_level_items(text: str) -> list[str]:
    """`a, f(b, c), d` cut at the commas outside any bracket."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return items


def _tuple_pairs(line: str) -> str:
    m = _TUPLE_SHOW.match(line)
    if not m:
        return line
    names, values = _top_level_items(m.group(2)), _top_level_items(m.group(3))
    if len(names) < 2 or len(names) != len(values):
        return line
    return m.group(1) + ", ".join(f"{k} = {v}" for k, v in zip(names, values))


# Several metrics of one kind printed as a tuple of names over a tuple of values (GluonCV's style,
# `Loss:(pitch, yaw, roll)/(18.756, 5.663, 16.291)`): each name takes the value at its place
_GROUP_NUM = r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|nan|inf)"
_GROUPED_TUPLE = re.compile(
    r"(?<![\w.])([A-Za-z_][\w@.-]*)\s*[:=]?\s*\(\s*([A-Za-z_][\w@.-]*(?:\s*,\s*[A-Za-z_][\w@.-]*)+)\s*\)"
    r"\s*/\s*\(\s*(" + _GROUP_NUM + r"(?:\s*,\s*" + _GROUP_NUM + r")+)\s*\)")


def _grouped_pairs(m: re.Match) -> str:
    names = [n.strip() for n in m.group(2).split(",")]
    values = [v.strip() for v in m.group(3).split(",")]
    if len(names) != len(values):
        return m.group(0)
    return ", ".join(f"{m.group(1)}_{n}: {v}" for n, v in zip(names, values))


def grouped_tuples(line: str) -> str:
    """The line with `Kind:(a, b)/(x, y)` read as `Kind_a: x, Kind_b: y`."""
    if ")/(" not in line and ") / (" not in line:
        return line
    return _GROUPED_TUPLE.sub(_grouped_pairs, line)


# Names listed before one `=` and their values listed after it, as `print("acc_val, acc =", a, b)` writes
# them (`acc_val, acc = 0.72 0.709`): each name takes the value at its place
_LISTED_PAIRS = re.compile(
    r"^(\s*)([A-Za-z_][\w@./-]*(?:\s*,\s*[A-Za-z_][\w@./-]*)+)\s*[=:]\s*"
    r"(" + _GROUP_NUM + r"(?:\s*,?\s+" + _GROUP_NUM + r")+)\s*$")


def listed_pairs(line: str) -> str:
    """The line with `a, b = x y` read as `a = x, b = y` (as many names as values, or the line as it is)."""
    m = _LISTED_PAIRS.match(line)
    if m is None:
        return line
    pairs = _paired([n.strip() for n in m.group(2).split(",")], m.group(3).replace(",", " ").split(), " = ")
    return line if pairs is None else m.group(1) + pairs


# Aggregates written as a call around the metric's name (`avg(utility)=270.0`, `mean(reward)=1.2`):
# the name inside is the metric, the call says how it was taken
_AGGREGATE_CALL = re.compile(r"(?i)(avg|mean|average|sum|total|max|min|median|std)\(\s*([A-Za-z_][\w.]*)\s*\)")


def _call_name(w: re.Match) -> str:
    agg = _AGGREGATE_CALL.match(w.group(0))
    if agg:
        return f"{agg.group(1)}_{agg.group(2)} = "
    return w.group(1) + " = "


# Full-width punctuation (Chinese and Japanese prints): `Loss：1.98，` reads as `Loss:1.98,`.
_FULL_WIDTH = str.maketrans("：，；（）｜＝【】", ":,;()|=[]")


# How many items a mean was taken over, inside the name (`Mean test loss of 258 batches: 0.69`)
_TALLY_UNITS = (r"(?:batch(?:es)?|samples?|images?|examples?|sequences?|steps?|iterations?|episodes?|utterances?"
                r"|sentences?|tokens?|items?)")
_TALLY_OF = re.compile(r"\s+(?:of|over|on)\s+\d+\s+" + _TALLY_UNITS + r"\b(?=\s*[:=])")
# The same tally as an aside in parentheses, wherever it stands (`Training loss (for 1 batch) at step 0: 70.9`,
# `reward (last 100 episodes): 12.3`): what the value covers, never a value of its own
_TALLY_ASIDE = re.compile(r"\s*\((?:for|of|over|on|per|across|last)\s+\d+\s+" + _TALLY_UNITS + r"\)")
# A progress bar's share done, before its `n/total [elapsed<left` (`Evaluation train: 100% 3/3 [00:03<00:00`,
# tqdm's text form in notebooks and CI logs, with or without the `|███|` bar): how far, never a metric
# (or a bar whose closing `|` a message printed into it wrote over: `2%|█▋   Aggregating the embedding.5/218 [`)
_BAR_PERCENT = re.compile(r"(?<![\w.])\d{1,3}%\s*(?:\|[^|]*\|\s*|\|[^|\d]*)?(?=\d+/\d+\s*\[)")
# A counter written with thousands separators (`iter: 107,400`, `step 1,250 |`, Python's `{:,}`): one number,
# not a count and a list; only after a counter's name, where a comma list of values is never printed
_GROUPED_COUNT = re.compile(r"(?i)(\b(?:global[_ ]?step|steps?|iters?|iterations?|epochs?|episodes?|updates?|batch)"
                            r"\s*[:=#]?\s*)(\d{1,3}(?:,\d{3})+)(?![\d.]|,\d)")
# FLAML's AutoML progress line: `at 5.4s,<TAB>estimator lgbm's best error=0.43,<TAB>best estimator sgd's best error=0.41`
# (older releases: `best lgbm's error=0.43,<TAB>best sgd's error=0.41`): the learner tried is named inside each name
_LEARNER_ERROR = re.compile(r"(?<![\w'])(?:best estimator|estimator|best) [A-Za-z][\w.-]{0,40}'s (?:best )?error=")


def _learner_errors(line: str) -> str:
    """The first learner's error is the trial's (`error`), the second the best of the search so far (`best error`):
    the learners' names stay out of the metric's, one series across the learners tried."""
    return _LEARNER_ERROR.sub("best error=", _LEARNER_ERROR.sub("error=", line, count=1), count=1)


# Which way a metric should go, noted after its name (`acc (higher is better) : 0.49`): not part of it
# a sentence that names a value, then the pass it belongs to: `Loss of 0.0131 on iteration 2`, `loss of 3.2 at step 100`
_VALUE_OF_AT = re.compile(r"^\s*([A-Za-z][\w/.-]*(?: [A-Za-z][\w/.-]*){0,3}) of (" + _PLAIN_NUM + r"|nan|inf|NaN)"
                          r"\s+(?:on|at|after|in|for) (iteration|iter|step|epoch|episode|update|batch) (\d+)\s*[.!]?\s*$")
# a value given in a sentence, `the PSNR is 27.1`, maybe glued to its neighbours (`epoch0:the SSIM is8.08the PSNR is0.002`)
_THE_NAME_IS = re.compile(r"(?:^|(?<=[\s:,;|\d]))[Tt]he ([A-Za-z][\w/@.-]{0,30}) is\s*"
                          r"(" + _PLAIN_NUM + r"|nan|inf)(?=[^\w.]|$|[Tt]he )")
# a super-resolution benchmark and its upscaling factor as a tag before the scores (EDSR and the trainers built on it)
_SCALE_SET_TAG = re.compile(r"^\[[A-Za-z][\w.-]{0,30} [xX]\d{1,2}\]\s*(?=(?:PSNR|SSIM|LPIPS)\b)")
_LAST_AND_BEST = re.compile(r"^\s*([A-Za-z][\w@/.-]{0,30}):\s+last\s*:\s*(" + _PLAIN_NUM + r"|nan|inf)"
                            r"\s+(?:max|min|best)\s*:.*$")
_PID_TAG = re.compile(r"\[(?:P|PID|pid|Pid|process)\s*[:=]\s*\d+\]:?\s*")
_SOURCE_SPOT = re.compile(r"\bfile=\S+\s+line=\d+\b")
# Where the logging call sits in the source, as a logger's format writes it anywhere in its prefix: the file and
# its line (`server.py:89`, `Train.cpp:510`, `ts/train.py:232`), the line in parentheses (`trainer.cc(222)`), after
# the word `line` (`misc.py line 160`, `engine.py line:81`, with the process id after it: `line 160 49892]`),
# after the function (`simple_logger.py log_once [line:14]`) or alone before the bracket closes (`[train.py 155]`).
# A location, never a metric named after the file
_SOURCE_LOCATION = re.compile(
    r"(?<![\w/.-])(?:[\w.-]+/)*[A-Za-z_][\w-]*\.(?:py|pyx|cc|cpp|cxx|cu|c|h|hpp|java|scala|go|rs|lua|jl)"
    r"(?:\s*:\s*\d+(?::[A-Za-z_<>][\w<>]*)?(?![\d.])|\(\d+\)|\s+line\s*:?\s*\d+(?:\s+\d+(?=\]))?"
    r"|(?:\s+[A-Za-z_<>][\w<>]*)?\s*\[line\s*:?\s*\d+\]|\s+\d+(?=\s*[\])]))")
_EMPTIED = re.compile(r"[\[(]\s*[\])]")  # the brackets a location stood in alone
# A JVM logger's class and line (log4j's `%C{1}:%L`), where the class is a Scala object or a nested class, its name
# with a `$` (`DistriOptimizer$:295 - [Epoch 64 ...]`, `com.x.Foo$Bar$:12`): a place in the source, never a metric
_JVM_LOCATION = re.compile(r"(?<![\w$.])(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*\$[\w$]*:\d+(?![\d.])(?:\s+-(?=\s))?")
# A split's word alone before a whole number, then `in` and a duration (BigDL's `Train 1792 in 4.39seconds.`): how
# many records that pass went through in that time, a count, not the split's metric (`Train` is no loss)
_SPLIT_COUNT_IN = re.compile(r"(?i)\b(train|training|test|testing|val|valid|validation|eval|evaluation)\s+\d+\s+in\s+"
                             r"(?=\d+(?:\.\d+)?(?:e[-+]?\d+)?\s*(?:s|secs?|seconds?|ms|mins?|minutes?)\b)")
_SOURCE_EXTS = (".py", ".c", ".h", ".java", ".scala", ".go", ".rs", ".lua", ".jl")
_DIRECTION_NOTE = re.compile(r"(?i)\s*\((?:the\s+)?(?:higher|lower|larger|smaller|bigger)\s+(?:is|=)\s+better\)")
# Lightning's ModelCheckpoint (verbose): `Epoch 0, global step 50: 'val_loss' reached 3.79987 (best 3.79987),
# saving model to '/x/epoch=0-step=50.ckpt' as top 1`
_CKPT_REACHED = re.compile(r"'([A-Za-z][\w/.@-]{0,60})' reached (\S+) \(best [^()\s]+\)(?:, saving model to .*)?$")
# A ranking metric's cutoff written as a call's argument right after its name
_CUTOFF_ARG = re.compile(r"(?<=[A-Za-z0-9_])\(k=(\d{1,5})\)")
# A metric's name in single quotes right before its `=` and value
_QUOTED_NAME_EQ = re.compile(r"'([A-Za-z][\w/.@-]{0,60})'(?==)")
# A boosting round's `[N]` before one set's metric (`[100] training's l2:`, the R package's `[7]: train's l2:`
# with its tab turned into a blank): a tab's place, whatever the blank
_ROUND_BEFORE_POSSESSIVE = re.compile(r"^(\[\d+\]:?) (?=[A-Za-z]\w*'s [\w@.-]+:)")
# R's print() of one string (`[1] "[7]: train's l2:0.0567"`): the vector's index and the quotes are no part
# of the message inside them
_R_PRINTED_STRING = re.compile(r'^\s*\[1\] "(.*)"\s*$')
# `[N]` before `name value / name value / ...` pairs (Dreamer's console line): the step the pairs are
# measured at, kept as a counter the way a tab after it keeps a boosting round's
_STEP_BEFORE_SLASHED = re.compile(r"^(\[\d+\]) (?=[A-Za-z_][\w/.]*\s+[-+]?(?:\d|\.\d|nan|inf)\S*\s+/\s)")
# HTML line breaks at either end of a line (a log kept in Markdown or HTML, `<br>` before each line)
_BREAK_TAG = re.compile(r"(?i)^\s*(?:<br\s*/?>\s*)+|(?:\s*<br\s*/?>)+\s*$")
# `Accuracies on val: class : 96.75, jigsaw : 31.2` (JiGen-style loggers): one heading for the accuracy of each
# head of a model on a split; `class` (or `cls`) is the classifier's own accuracy
_PER_HEAD_ACCURACIES = re.compile(r"(?i)accurac(?:y|ies)\s+on\s+(\w+)\s*:\s*(\w+\s*:\s*[-+]?\d[\d.]*%?"
                                  r"(?:\s*[,;]?\s*\w+\s*:\s*[-+]?\d[\d.]*%?)*)\s*$")
_HEAD_VALUE = re.compile(r"(\w+)\s*:\s*([-+]?\d[\d.]*%?)")


def _per_head_accuracies(line: str) -> str:
    """`Accuracies on val: class : 96.75, jigsaw : 31.2` as `val accuracy: 96.75, val jigsaw accuracy: 31.2`."""
    m = _PER_HEAD_ACCURACIES.match(line)
    if m is None:
        return line
    split = m.group(1)
    parts = []
    for head, value in _HEAD_VALUE.findall(m.group(2)):
        name = "" if head.lower() in ("class", "cls", "classification") else head + " "
        parts.append(f"{split} {name}accuracy: {value}")
    return ", ".join(parts)


# A number set in Markdown bold (`**6.840**`, a table kept in a README): the number alone
_BOLD_NUMBER = re.compile(r"\*\*([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?%?)\*\*")
# A span set in Markdown bold inside a line (`**l1: nan g: nan**`): its text alone; a row of stars is no mark
_BOLD_SPAN = re.compile(r"(?<!\*)\*\*(?=[^\s*])([^*]*?[^\s*])\*\*(?!\*)")
# `of class:` / `for class:` before a class's name (PyTorch's CIFAR-10 tutorial, `Accuracy for class: plane is
# 66.2 %`): the label word goes, leaving the `<metric> for <part>` that names one class's metric
_CLASS_LABEL = re.compile(r"(?i)(?<=\w)\s+(of|for)\s+class\s*:\s*(?=[^\W\d])")
# A note pointed at the value before it (`Mean value_function loss: inf  ← the critic fails first`,
# `loss: 9.1 <-- spike`): the arrow and all after it are the poster's words
_ARROW_NOTE = re.compile(r"(?<=\S)\s+(?:\u2190|\u27f5|<-{1,3})\s.*$")
# A Chinese ordinal counter, `第` + number + what it counts: training passes or iterations (`第10次训练`,
# `第5次迭代`, `第200步`) count steps; rounds and generations (`第3轮`, `第3个epoch`, `第3代`) count epochs
_CJK_ORDINAL = re.compile(r"第\s*(\d+)\s*(?:(次(?:训练|迭代|(?![\u4e00-\u9fff]))|步|回合)|(轮|个\s*epoch|代))")


def _cjk_counter(m: re.Match) -> str:
    return f" {'step' if m.group(2) else 'epoch'} {m.group(1)} "


# A possessive after a name (LightGBM's `training's binary_logloss`, `valid_1's auc`): the name alone
_POSSESSIVE = re.compile(r"(?<=\w)'s(?=\s)")
# A progress bar cut at the terminal's edge right after its share done (`... 576: 100%|█`): no count,
# no timing, nothing of the bar worth reading; the line before it stands alone
# a progress bar drawn with `#` in brackets, then the share done (`[########    ] 45%`): no name, no value
_HASH_BAR = re.compile(r"\[[#\s.>=-]*#{3,}[#\s.>=-]*\]\s*\d{1,3}(?:\.\d+)?%")
# (its closing `|` may be there, `100%|█| `, or a message the code printed into the bar: `70%|▋checkpoint...`)
_CUT_BAR_TAIL = re.compile(r"[\s:]*\d{1,3}%\|[\s█▉▊▋▌▍▎▏#]*(?:\|\s*)?(?:[A-Za-z][\w ]{0,30}\.\.\.\s*)?$")
# A metric's name with the loop's position in brackets between it and its value (`Loss [3, 200]: 2.54`,
# `loss [3/10] = 0.71`, `Loss [65, 200](epoch, minibatch):  2.54`, where the parentheses name the counters):
# the bracket says where, the number after the colon is the value; only at the start of a message
_NAME_BRACKET_POS = re.compile(r"^([A-Za-z][A-Za-z _-]{0,40}?)\s*\[\s*(\d+(?:\s*[,/]\s*\d+){0,2})\s*\]"
                               r"(?:\s*\(\s*([A-Za-z]\w*(?:\s*,\s*[A-Za-z]\w*){0,2})\s*\))?\s*([:=])\s*"
                               r"(?=[-+]?(?:\d*\.\d|nan\b|inf\b))", re.I)


# The epoch and the batch written as two bracketed pairs of a count and its total, side by side (BIT_CD and
# ChangeFormer: `Is_training: True. [3,199][101,445], imps: 204.40, G_loss: 1.19`): the comma in each pair
# parts the count from the total, it groups no digits
_COUNT_PAIRS = re.compile(r"\[\s*(\d+)\s*,\s*(\d+)\s*\]\[\s*(\d+)\s*,\s*(\d+)\s*\]")


def _count_pairs(m: re.Match) -> str:
    e, e_all, i, i_all = (int(g) for g in m.groups())
    if e > e_all or i > i_all or i_all == 0:  # (a count beyond its total is no position in a loop)
        return m.group(0)
    return f"Epoch {e}/{e_all}, batch {i}/{i_all},"


# A message with a scalar tensor's value glued after it in brackets, the whole line (TF 1.x `tf.Print(x, [x],
# "CrossE")` writes `CrossE[472.02966]`): the message names the value; a whole number there is a position
_GLUED_TENSOR = re.compile(r"^([A-Za-z][\w.-]{0,40})\[([-+]?(?:\d*\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|nan|inf))\]$")

# A pass's outcome as a word in brackets, then how long it took in the next bracket (colour console loggers:
# `Start Training 2 Epoch....[success][127.6 seconds]`, `[OK][0.4s]`, `[failed][3.2 s]`): a status and the
# pass's duration, not a metric named by the status word
_STATUS_TAG = re.compile(r"(?i)\[(?:success|successful|succeeded|ok|done|passed|finished|failed|failure|error)\]"
                         r"\[\s*\d+(?:\.\d*)?\s*[A-Za-z]{0,8}\s*\]")

# Open MPI's --tag-output tag (`[1,3]<stdout>:`, job and rank) where it stands inside a line, not at its head
_MPI_TAG_INSIDE = re.compile(r"\[\d+,\d+\]<std(?:out|err)>:")


# A metric's name with the variant it was computed in glued to it in brackets, right before its colon
# (sacreBLEU's tokenizer: `dev bleu[13a]:  20.05`, `chrf[intl]: 51.2`): the bracket qualifies the name, and
# holds a letter (a bracket of digits alone, `loss[3]:`, is a position and is left to the rules for those)
_TAGGED_NAME = re.compile(r"(?<![\w\[])([A-Za-z][\w-]*)\[(?=[\w.+-]*[A-Za-z])[\w.+-]{1,16}\]:")


# A counter given as the range of items a line sums up (CNTK's `Minibatch[ 501-1000]:`, `iters [200-300]`): the
# line reports where the range ends, so the count is its upper bound (a share of the epoch may follow it inside
# the bracket: `Minibatch[   1- 500, 26.67%]`)
_COUNTER_RANGE = re.compile(r"(?i)\b(minibatch(?:es)?|batch(?:es)?|iter(?:ation)?s?|steps?|samples?)\s*"
                            r"\[\s*\d+\s*-\s*(\d+)\s*(?:,\s*\d+(?:\.\d+)?%\s*)?\]")


# One metric shown twice, as its mean over the epoch so far and its value on the last batch (Burn's text
# dashboard: `Train Loss: epoch 0.412 - batch 0.398`, `Valid Accuracy: epoch 91.20 % - batch 90.00 %`): here
# `epoch` and `batch` name the two aggregates, not counters; the epoch's mean is the value to read
_EPOCH_BATCH_PAIR = re.compile(r"(?i)^([A-Za-z][\w ./-]{0,60}?):\s*epoch\s+(" + NUM_BODY + r")\s*(%?)\s*-\s*batch\s+"
                               r"(?:" + NUM_BODY + r")\s*%?\s*$")


# A line's opening tag with a qualifier in parentheses (`[Diff-Val(Test-Normal)]`, `[Val(EMA)]`): the
# qualifier says which variant of the pass, the tag names it
# a short tag in brackets that the metric's name after it begins with (SGAN's `[D] D_data_loss: 1.386`,
# `[G] G_total_loss: 0.693`): the tag says again what the name says
_ECHOED_TAG = re.compile(r"^\[([A-Za-z][A-Za-z0-9]{0,9})\]\s+(?=\1_\w)")
_TAG_QUALIFIER = re.compile(r"^\[([A-Za-z][\w-]*)\([^()\[\]]*\)\]")


# `top 1 acc: 0.035`, `Top 5 Accuracy: 0.17`: top-k accuracy with a blank between `top` and k; the k is part of
# the name, not a value of its own
_TOP_K_SPACED = re.compile(r"(?i)\b(top)\s+(\d{1,2})\s+(?=(?:acc|accuracy|err|error|prec|precision|recall)\b)")


def _position_first(m: re.Match) -> str:
    counts = re.split(r"\s*[,/]\s*", m.group(2))
    names = re.split(r"\s*,\s*", m.group(3)) if m.group(3) else []
    if len(names) == len(counts) and "/" not in m.group(2):
        where = " ".join(f"{n} {c}" for n, c in zip(names, counts))
    else:
        where = f"[{m.group(2)}]"
    return f"{where} {m.group(1).rstrip()}{m.group(4)} "


# Julia's `println((:epoch, e, :trn, l1, :tst, l2))` (Knet's examples): a tuple of symbols, each before its value;
# a Float32 prints its exponent after an `f` (`38.7037f0`, `1.5f-5`) and its NaN as `NaN32`
_JULIA_NUM = r"[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eEf][-+]?\d+)?|NaN(?:16|32)?|Inf(?:16|32)?)"
_JULIA_TUPLE = re.compile(r"\(\s*:[A-Za-z_]\w*\s*,\s*" + _JULIA_NUM + r"(?:\s*,\s*:[A-Za-z_]\w*\s*,\s*" + _JULIA_NUM + r")+\s*\)")
_JULIA_PAIR = re.compile(r":([A-Za-z_]\w*)\s*,\s*(" + _JULIA_NUM + r")")


def _julia_number(text: str) -> str:
    if text[-2:] in ("32", "16") and text.lstrip("+-")[:1] in "NI":
        return text[:-2]
    return text.replace("f", "e") if "f" in text else text


def _julia_pairs(line: str) -> str:
    """The line `(:epoch,8,:trn,38.7f0)` as `epoch = 8, trn = 38.7e0`, or the line as it is."""
    if _JULIA_TUPLE.fullmatch(line) is None:
        return line
    return ", ".join(f"{k} = {_julia_number(v)}" for k, v in _JULIA_PAIR.findall(line))


def _counter_in_name(m: re.Match) -> str:
    word = m.group(1).lower()
    return f"{'iteration' if word.endswith('ation') else word} {m.group(2)} "


# A word saying a stage finished, put before the value it produced (`Finished precision@6 = 0.3168`,
# `Done: loss: 0.52`): the word is no part of the metric's name
_DONE_LEAD = re.compile(r"(?:^|(?<=\s))(?:[Ff]inished|FINISHED|[Cc]ompleted|[Dd]one)[,:]?\s+"
                        r"(?=[A-Za-z][\w@/.-]*\s*[:=]\s*[-+]?(?:\d|\.\d|nan\b|inf\b))")


# The environment a score was measured on, named by its Gym id after the metric (`Test Mean Score of
# PongNoFrameskip-v4: 20.5`, `reward on ALE/Breakout-v5 = 31`): the run's environment, no part of the name
_ENV_ID_AFTER = re.compile(r"\s+(?:of|on|in|for)\s+(?:[A-Za-z][\w.-]*/)?[A-Z][A-Za-z0-9_]*-v\d+(?=\s*[:=])")
# An arrow a logger puts before its message (`==> #10083  Test Mean Score: 3071.9`): a marker, no value
_ARROW_LEAD = re.compile(r"^={1,3}>\s+(?=#?\w)")


# A Chinese metric name printed with its decimal value glued on (`损失0.0613（0.0841）`, loss then its
# running mean): a blank between them, as between any name and its value
_CJK_GLUED_VALUE = re.compile(r"(?<=[\u4e00-\u9fff])(?=[-+]?\d+\.\d)")
# A top-k cutoff set apart from its metric (`Prec @ 1 76.1`, `精确@ 5 92.3`): one name, `Prec@1`
_SPACED_AT_K = re.compile(r"(?<=[A-Za-z\u4e00-\u9fff])\s*@\s+(\d{1,3})(?=\s+[-+]?(?:\d|\.\d|nan\b|inf\b))")


# A counter written as an English ordinal before what it counts (`Average loss in 74th epoch was : 1.12`,
# `the 3rd iteration`): the same counter as `epoch 74`, its word first, then its number
_ORDINAL_COUNTER = re.compile(r"(?<![\w.])(?:the\s+)?(\d+)(?:st|nd|rd|th)\s+(epoch|iteration|iter|step|round|episode)\b",
                              re.I)


# A value after its name's `:` or `=` with a comma before one or two digits (or four and more), in a line that has no
# decimal point anywhere: a locale's decimal comma (`Loss = 2,31`, `acc=81,2%`), never a group of thousands (always
# three digits) nor a list (a list of numbers goes on past the next comma)
_DECIMAL_COMMA = re.compile(r"([:=]\s*)([-+]?\d+),(\d{1,2}|\d{4,})(?![\d,.])")
_DECIMAL_POINT = re.compile(r"\d\.\d")


# a split's loss printed as its total, then the terms it is the sum of, under names that are no metric
# (`Train - Total: 1.994108, Surface: 1.201980, Upper Air: 0.792128`): the total is the split's loss
_TOTAL_OF_PARTS = re.compile(
    r"^(\s*(?:Train|Training|Valid|Validation|Val|Eval|Evaluation|Test|Testing|train|training|valid|validation|val"
    r"|eval|evaluation|test|testing)\s*(?:-|:|\|)\s*)(Total|total|TOTAL)(\s*[:=]\s*)(\d+\.\d+)"
    r"((?:\s*[,;|]\s*[A-Za-z][A-Za-z _-]{0,30}?\s*[:=]\s*\d+\.\d+){2,8})\s*$")
_PHASE_PART = re.compile(r"(?i)\b(?:time|data|load\w*|forward|backward|compute|io|wait|sync|step|comm\w*)\b")
_PART = re.compile(r"([A-Za-z][A-Za-z _-]{0,30}?)\s*[:=]\s*(\d+\.\d+)")


def _total_of_parts(line: str) -> str:
    """The line with its `Total` named the loss, when that value is the sum of the values after it (to the
    rounding they are printed with) and none of those names a metric of its own; else the line as it was."""
    m = _TOTAL_OF_PARTS.match(line)
    if m is None:
        return line
    parts = _PART.findall(m.group(5))
    if any(known_key(name.strip(), loose=True) or _PHASE_PART.search(name) for name, _ in parts):
        # (a loss's parts named as metrics are read as such: the total is no loss of its own; a pass's
        # time split in its phases, `Total: 12.5, Data: 2.5, Compute: 10.0`, is no loss at all)
        return line
    places = max(len(v.split(".")[1]) for v in (m.group(4), *(v for _, v in parts)))
    if abs(float(m.group(4)) - sum(float(v) for _, v in parts)) > len(parts) * 10.0 ** -places:
        return line
    return m.group(1) + "loss" + m.group(3) + m.group(4) + m.group(5)


def clean(line: str) -> str:
    """The line without colours and without the prefixes a logger puts before the message."""
    if "otal" in line and _TOTAL_OF_PARTS.match(line):
        line = _total_of_parts(line)
    if "," in line and _DECIMAL_COMMA.search(line) and not _DECIMAL_POINT.search(line):
        line = _DECIMAL_COMMA.sub(r"\1\2.\3", line)
    if "-v" in line and _ENV_ID_AFTER.search(line):
        line = _ENV_ID_AFTER.sub("", line)
    if "@ " in line and _SPACED_AT_K.search(line):
        line = _SPACED_AT_K.sub(r"@\1", line)
    if ("inished " in line or "one " in line or "ompleted " in line) and _DONE_LEAD.search(line):
        line = _DONE_LEAD.sub("", line)
    if ("th " in line or "st " in line or "nd " in line or "rd " in line) and _ORDINAL_COUNTER.search(line):
        line = _ORDINAL_COUNTER.sub(r"\2 \1", line)  # `loss in 74th epoch was : 1.12`: `loss in epoch 74 ...`
    if "<-" in line or "\u2190" in line:  # `loss: inf  <-- it breaks here`: a note the poster added, no value
        line = _ARROW_NOTE.sub("", line)
    if not line.isascii():
        line = line.translate(_FULL_WIDTH)
        if "第" in line:  # `第10次训练` (the 10th training pass), `第3轮` (the 3rd round): the counter in words
            line = _CJK_ORDINAL.sub(_cjk_counter, line)
        if _CJK_GLUED_VALUE.search(line):
            line = _CJK_GLUED_VALUE.sub(" ", line)
    if '[1] "' in line and line[-1:] in "\" " and (r_str := _R_PRINTED_STRING.match(line)):
        line = r_str.group(1)
    if "'s" in line:
        if line[:1] == "[":  # `[100] training's l2: 0.05`: LightGBM's round, one blank after it (not a rank)
            line = _ROUND_BEFORE_POSSESSIVE.sub("\\1\t", line, count=1)
        if "s error=" in line or "s best error=" in line:  # FLAML: each learner's best error, then the best of all
            line = _learner_errors(line)
        line = _POSSESSIVE.sub("", line)
    if " / " in line and line[:1] == "[":  # `[5000] model_loss 58.6 / image_loss 11.7`: the step (not a rank)
        line = _STEP_BEFORE_SLASHED.sub("\\1\t", line, count=1)
    if "<br" in line or "<BR" in line:  # `<br>[epoch:1] loss: 2.2`: a log pasted into HTML, a break tag a line
        line = _BREAK_TAG.sub("", line)
    if "class" in line and ":" in line:  # `Accuracy for class: plane is 66.2 %`: the class named after its label
        line = _CLASS_LABEL.sub(r" \1 ", line)
    if " of " in line:
        line = _TALLY_OF.sub("", line)
        if line[-1:].isdigit() and _VALUE_OF_AT.match(line):  # `Loss of 0.013 on iteration 2`: the counter first
            line = _VALUE_OF_AT.sub(r"\3 \4 \1: \2", line, count=1)
    if "/" in line and "]" in line and _EPOCH_COLON_ITER.search(line):
        line = _EPOCH_COLON_ITER.sub(r"[\1][\2]", line)  # `[2/100:5/500]`: the epoch of all, then the iteration of the epoch's
    if ("h/" in line or "H/" in line or "p/" in line or "P/" in line) and _SLASHED_COUNTERS.search(line):
        line = _SLASHED_COUNTERS.sub(r"\1: \3  \2: \4", line)
    if " (" in line and _TALLY_ASIDE.search(line):
        line = _TALLY_ASIDE.sub("", line)
    if " is" in line and ("the " in line or "The " in line) and _THE_NAME_IS.search(line):
        line = _THE_NAME_IS.sub(r" \1: \2 ", line).strip()  # `the SSIM is8.08the PSNR is0.002`: a name, a value
    if "last" in line and _LAST_AND_BEST.match(line):  # `AUROC:   last: 0.9106    max: 0.9106     epoch_max: 0`:
        line = _LAST_AND_BEST.sub(r"\1: \2", line, count=1)  # the latest score; the best so far is no new value
    if "better)" in line:
        line = _DIRECTION_NOTE.sub("", line)
    if "' reached " in line:  # Lightning's ModelCheckpoint: the monitored value, without the best so far
        line = _CKPT_REACHED.sub(r"\1: \2", line)  # and the file it saved to
    if "(k=" in line:  # `NDCG(k=20): 0.228` (FuxiCTR, RecBox): a ranking metric's cutoff, `NDCG@20`
        line = _CUTOFF_ARG.sub(r"@\1", line)
    if "'=" in line:  # `Evaluation metric 'epoch_loss'=0.19` (MXNet / GluonTS): the name without its quotes
        line = _QUOTED_NAME_EQ.sub(r"\1=", line)
    if "**" in line:  # `gan1: **6.840**`: a value set in bold in a Markdown paste
        line = _BOLD_NUMBER.sub(r"\1", line)
        if "**" in line:  # `Iter: 2 **l1: nan g: nan** d: 0.92`: names and values set in bold (the poster's mark)
            line = _BOLD_SPAN.sub(r"\1", line)
        if line.count("**") == 1:  # (a bold span over several lines: its marks open the first, close the last)
            bare = line.strip()
            if bare.startswith("**") and bare[2:3] not in ("*", "") or bare.endswith("**") and bare[-3:-2] not in ("*", ""):
                line = line.replace("**", "")  # (`*** Validation loss: 9.9`: a row of stars is no bold mark)
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if "\u2212" in line:  # the typographic minus (U+2212) of a page or notebook rendered as HTML: `loss \u22122.5` is -2.5
        line = line.replace("\u2212", "-")
    if "B/s" in line and _PIP_BAR.match(line):
        return ""
    if " in " in line and _SPLIT_COUNT_IN.search(line):
        line = _SPLIT_COUNT_IN.sub(r"\1 in ", line)
    if "$:" in line and _JVM_LOCATION.search(line):
        line = _JVM_LOCATION.sub(" ", line).strip()
    if "file=" in line and _SOURCE_SPOT.search(line):  # `THCudaCheck FAIL file=/x/THCGeneral.cpp line=405 error=11`:
        return ""  # a check that failed at a place in the source; its numbers are a line and an error code
    if "\u2190[" in line:  # `←[39G`: ESC as a Windows console (code page 437) shows it, copied as text
        line = _ARROW_ANSI.sub("", line)
    if "^[" in line:  # colours written out in caret notation (`^[[32m`), as `cat -v` and some pastes show them
        line = _CARET_ANSI.sub("", line)
    if "[0m" in line:
        line = _BARE_SGR.sub("", line)
    if "<?" in line and line[:line.find("<?")].rstrip()[-5:] == "00:00":
        line = _IDLE_BAR.sub("", line, count=1)
    if "%" in line:
        line = _BAR_PERCENT.sub("", line)
        if "##" in line and "]" in line:  # `Batch:250/250: [##########] 100%  Loss:-0.68`: the bar and its share
            line = _HASH_BAR.sub(" ", line)
        if "%|" in line[-48:]:
            line = _CUT_BAR_TAIL.sub("", line)
    if "," in line and _GROUPED_COUNT.search(line):
        line = _GROUPED_COUNT.sub(lambda m: m.group(1) + m.group(2).replace(",", ""), line)
    prev = None
    n = 0
    while prev != line and n < 8:
        prev = line
        m = _PREFIX.match(line)
        if m and m.end() > 0:
            line = line[m.end():]
        elif line[:1] == "=" and _ARROW_LEAD.match(line):
            line = _ARROW_LEAD.sub("", line, count=1)
        elif line[:2] in ("[P", "[p") and _PID_TAG.match(line):
            line = _PID_TAG.sub("", line, count=1)  # `[P:24512]: => Train: Loss 0.06`: the process that wrote it
        elif n > 0 and line.startswith("# "):
            line = line[2:]  # `2024-07-25 18:05:41.16  # [Train Epoch: 1/20] loss=0.62`: a marker after the stamp
        elif line[:1].isalpha() and (loc := _SOURCE_LOCATION.match(line)) is not None:
            line = line[loc.end():]  # `misc.py line 160 49892] Best mIoU: 0.11`: the call's place, after the stamp
        elif n == 0:
            numbered = _LINE_NUMBER.match(line)  # ` 242 [0227 18:54:41 @x.py:233] lr: 0.1`: a numbered paste
            rest = line[numbered.end():] if numbered else ""
            head = _PREFIX.match(rest) if rest else None
            if rest and (sum(ch.isalnum() for ch in (head.group() if head else "")) >= 3 or _CLOCK.match(rest)):
                line = rest
        n += 1
    line = line.strip()
    if any(ext in line for ext in _SOURCE_EXTS) and _SOURCE_LOCATION.search(line):
        line = _EMPTIED.sub(" ", _SOURCE_LOCATION.sub(" ", line)).strip()  # `INFO flwr <stamp> | server.py:89 | ...`
    if "]<std" in line:  # `Step[1,3]<stdout>:\tImg/sec ...`: mpirun tags each write of a rank, one printed
        line = _MPI_TAG_INSIDE.sub("", line)  # line may be several writes; the tags inside it are no part of it
    if line[:2] == "(:" and line[-1:] == ")":
        line = _julia_pairs(line)
    if line[:3] in ("Acc", "acc", "ACC") and _PER_HEAD_ACCURACIES.match(line):
        line = _per_head_accuracies(line)
    if "]:" in line and _TAGGED_NAME.search(line):  # `dev bleu[13a]:  20.05`: the metric, its variant in brackets
        line = _TAGGED_NAME.sub(r"\1:", line)
    if "][" in line and _STATUS_TAG.search(line):  # `....[success][56.2 seconds]`: an outcome, no metric's name
        line = _STATUS_TAG.sub(" ", line)
    if "][" in line and _COUNT_PAIRS.search(line):  # `[3,199][101,445]`: epoch 3 of 199, batch 101 of 445
        line = _COUNT_PAIRS.sub(_count_pairs, line, count=1)
    if "]" in line and line[:1].isalpha() and _NAME_BRACKET_POS.match(line):
        line = _NAME_BRACKET_POS.sub(_position_first, line, count=1)
    if ("m " in line or "h " in line) and _SPACED_DURATION.search(line):  # (`1h 40m`: hours, minutes)
        line = _SPACED_DURATION.sub(r"\1", line)  # `Epoch Time: 0m 57s` is one duration, `0m57s`
    if ("minute" in line or "hour" in line) and _WORDED_DURATION.search(line):
        line = _WORDED_DURATION.sub(_worded_seconds, line)  # `time:1 minute 49 seconds` is `time:109 seconds`
    if line[-1:].isdigit() and (line[-3:-2] == ":" or (line[-5:-4].isspace() and line[-4:].isdigit())) \
            and ":" in line[-14:]:  # (the two ways the stamp can end: `17:12:50` or `17:12:50 2019`)
        line = _CTIME_TAIL.sub("", line)  # `... gN 0.56, Wed Jul  3 17:12:50 2019`: the time the line was written
    if ("TIME:" in line or "ime:" in line) and _TIME_FIELD.search(line):
        line = _TIME_FIELD.sub("", line, count=1).strip()
    if "(" in line and _CTIME_PAREN.search(line):  # `==== Training Loss (Fri Jun 21 05:19:51 2024) ====`: a
        line = _CTIME_PAREN.sub("", line)  # banner's launch time (pix2pix / CycleGAN loss_log.txt), no value
    if line.endswith(")") and ")" in line[:-1]:
        line = _REDRAW_DEBRIS.sub(r"\1", line)
    if "nan" in line and _NAN_RESIDUE.search(line):
        line = _NAN_RESIDUE.sub(r"\1", line)
    if ("0nan" in line or "0inf" in line) and _ZERO_PADDED_NAN.search(line):
        line = _ZERO_PADDED_NAN.sub(r"\1\2", line)
    if line[:1] == "[" and " x" in line[:40] and _SCALE_SET_TAG.match(line):
        line = _SCALE_SET_TAG.sub("[eval] ", line, count=1)  # `[Set5 x2]\tPSNR: 37.0`: a benchmark at a scale factor
    if line[:1] == "[" and ")]" in line:
        line = _TAG_QUALIFIER.sub(r"[\1]", line, count=1)  # `[Diff-Val(Test-Normal)] Epoch 1`: the tag alone
    if line[:1] == "[" and "] " in line[:14] and _ECHOED_TAG.match(line):
        line = _ECHOED_TAG.sub("", line, count=1)  # `[D] D_total_loss: 1.38`: the tag the name starts with anyway
    if "batch " in line and ": epoch " in line:
        line = _EPOCH_BATCH_PAIR.sub(r"\1: \2\3", line)
    if "-" in line and "[" in line and _COUNTER_RANGE.search(line):
        line = _COUNTER_RANGE.sub(r"\1 \2", line)
    if "op " in line and _TOP_K_SPACED.search(line):
        line = _TOP_K_SPACED.sub(r"\1\2 ", line)
    if "#" in line and _NAMED_HASH.search(line):
        line = _NAMED_HASH.sub(r"\1 ", line)
    if "oss" in line and _glued_loss(line):
        line = _GLUED_LOSS.sub(r"\1 \2", line)
    if _SHORT_EPOCH_BATCH.search(line):
        line = _SHORT_EPOCH_BATCH.sub(_short_epoch_batch, line, count=1)
    if line[:1] in "eEiIsSbB" and _GLUED_COUNTER.match(line):
        line = _GLUED_COUNTER.sub(r"\1 \2", line)
    elif line[:1] in "eEiIsS" and "_" in line[:12] and _COUNTER_IN_NAME.match(line):
        line = _COUNTER_IN_NAME.sub(_counter_in_name, line, count=1)
    if ("poch" in line or "ter" in line or "tep" in line) and _GLUED_COUNTER_AFTER.search(line):
        line = _GLUED_COUNTER_AFTER.sub(r"\1 \2 \3", line)
    if ": [" in line and _BRACKETED_OF_TOTAL.search(line):
        line = _BRACKETED_OF_TOTAL.sub(r"\1 \2/\3", line)
    if ("True" in line or "False" in line) and _FLAG_SENTENCE.search(line):
        line = _FLAG_SENTENCE.sub(r"\1=\2, ", line)  # (the flag, not a word of the next metric's name)
    if line[:1] in "VvEeTt" and "." in line[3:6] and _SPLIT_ABBREV.match(line):
        line = _SPLIT_ABBREV.sub(r"\1 ", line, count=1)  # `Val. Epoch: 0/500.`: the split, abbreviated with a period
    if ">" in line and "," in line and _NAMES_THEN_VALUES.search(line):
        line = _names_then_values(line)
    if " | " in line and " - " in line and _DASHED_PIPED.match(line):  # `kl - nan | lr_multiplier - 2.25`: each
        line = _DASHED_PAIR.sub(r"\1: ", line)  # item a name, a spaced dash, its value; pipes between the items
    if "->" in line and _NAME_ARROW.search(line):
        line = _NAME_ARROW.sub(r"\1-\2", line)
    if line[-1:] == "]" and ", " in line and _BRACKETED_NAMES_VALUES.search(line):
        line = _bracketed_names_values(line)
    if "][" in line[:80] and _SET_AND_STEP.match(line):
        line = _SET_AND_STEP.sub(r"step: \3  \2 ", line, count=1)
    elif line[:1] == "[" and line[1:2].isdigit() and _GLUED_STEP.match(line):
        line = _GLUED_STEP.sub(r"step: \1  ", line, count=1)
    if line[:1] in "TtVvEe":
        lead = _SPLIT_THEN_COUNT.match(line)
        if lead and known_key(lead.group(3), loose=True):  # `Test 12, loss: 1.4`, `Test:0, Cost:0.27`: the split,
            line = f"{lead.group(1)} epoch {lead.group(2)}{line[lead.end(2):]}"  # then its pass, then its values
    if line[:1].isdigit() and "ime" in line and _COUNT_BEFORE_TIMING.match(line):
        line = _COUNT_BEFORE_TIMING.sub("", line, count=1)  # `100 Step Time : 143.4`: the steps the time covers
    if line[:1] == "#" and line[1:2].isdigit() and _HASH_COUNTER.match(line):
        line = "step " + line[1:]  # `#1/1500 - Training Loss: 2.58`: a number sign before the count
    if len(line) > 2 and line[0] == "`" and line[-1] == "`" and "`" not in line[1:-1]:
        line = line[1:-1].strip()  # a line pasted as Markdown inline code
    if "<" in line and line[-1:] != "]":
        if line[-1:] == ",":  # (a bar cut at the terminal's width right after an item's comma)
            cut = line[:-1].rstrip()
            if _OPEN_BAR_TAIL.search(cut):
                line = cut
        if _OPEN_BAR_TAIL.search(line):
            line += "]"  # a bar's postfix cut before its closing bracket (the last redraw of an interrupted run)
    return line


# a tqdm count and timing whose bracket never closes: `204/500 [19:20<2:45:51, 33.62s/it, lr=3e-5, step_loss=nan`
# (its last item whole, `name=value`: a bar cut inside a name, `..., a`, is debris)
_OPEN_BAR_TAIL = re.compile(r"\d+/\d+\s*\[[\d:]+<[\d:?]+,[^\[\]]*?[A-Za-z_]\w*=[-+]?(?:\d[\d.]*(?:e[-+]?\d+)?|nan|inf)[.\d]*$")


_SPACED_DURATION = re.compile(r"(?<![\w.])(\d+[hm])\s(?=\d+(?:\.\d+)?[ms]\b)")
# a duration spelled out in two or more units (`1 minute 49 seconds`, `2 hours 3 minutes`): one length of time
_WORD_UNIT = r"\d+(?:\.\d+)?\s*(?:days?|hours?|minutes?|seconds?)"
_WORDED_DURATION = re.compile(r"(?<![\w.])" + _WORD_UNIT + r"(?:,?\s+(?:and\s+)?" + _WORD_UNIT + r")+\b")
_WORD_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|m|s)")
_UNIT_SECONDS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}


def _glued_loss(line: str) -> bool:
    """Some `oss` in the line has a digit or a point straight after it (a cheap look before the pattern)."""
    i = line.find("oss")
    while i >= 0:
        nxt = line[i + 3:i + 4]
        if nxt.isdigit() or nxt == ".":
            return _GLUED_LOSS.search(line) is not None
        i = line.find("oss", i + 3)
    return False


def _worded_seconds(m: re.Match) -> str:
    """The spelled-out duration as one count of seconds."""
    total = sum(float(n) * _UNIT_SECONDS[u] for n, u in _WORD_PART.findall(m.group()))
    return f"{total:.12g} seconds"
# time.ctime() at the end of a line (`, Wed Jul  3 17:12:50 2019`)
_CTIME_TAIL = re.compile(r"[,;|\s-]*\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
                         r"\s+\d{1,2}\s+\d{1,2}:\d{2}:\d{2}(?:\s+\d{4})?$")
_CTIME_PAREN = re.compile(r"\(\s*(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
                          r"\s+\d{1,2}\s+\d{1,2}:\d{2}:\d{2}(?:\s+\d{4})?\s*\)")
# a field that names the wall clock inside the line (`--> TIME: 2024-11-01 07:59:12 -- STEP: 199/406`): when the
# line was written, no value
_TIME_FIELD = re.compile(r"(?i)\btime:\s*\d{4}-\d{2}-\d{2}[T\s]\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\s*(?:--|\||,)?\s*")
_GLUED_DURATION = re.compile(r"\d+[hms]\d")  # `41m50s`: hours, minutes, seconds run together
# Debris of a longer redraw a carriage return did not wipe: characters glued after a closed group,
# with a `)` no `(` opened (`Depth Loss: 0.1365 (0.0447)9)`, `nan (nan)n))n)31)2)`)
_REDRAW_DEBRIS = re.compile(r"(\([^()]*\))[^\s()][^()]*\)[^(]*$")
# A shorter value redrawn over a longer one without clearing the line (`print(..., end="\r")`): `Loss: nan.08`
# and `Loss: nan08` are `nan` and the tail of the number it overwrote; digits glued to the word are debris
_NAN_RESIDUE = re.compile(r"(?<![\w.])([-+]?nan)\.?\d+(?![\w.])")
# A NaN or infinity printed through a zero-filled width (`%07.3f` gives `0000nan`, `{:08.3f}` gives `-000inf`):
# the fill pads only these short words, so the zeros before them are no digits of the value
_ZERO_PADDED_NAN = re.compile(r"(?<![\w.])([-+]?)0+(nan|inf)(?![\w.])")
_DIGITS = re.compile(r"\d+")
_NUM_SPLIT = re.compile("(" + NUM + ")")


def shape(line: str) -> tuple[str, list[str]]:
    """The line's template (numbers as '#', other digit runs such as `-0.63z` or `ckpt-100` as '9',
    blanks folded) and its numbers in order, from one pass of the number pattern."""
    parts = _NUM_SPLIT.split(line)
    return " ".join(_DIGITS.sub("9", "#".join(parts[::2])).split()), parts[1::2]


def skeleton(line: str) -> str:
    """The line's template with the digits inside words kept as printed (`Top5: #%`)."""
    return " ".join("#".join(_NUM_SPLIT.split(line)[::2]).split())


def fold_digits(text: str) -> str:
    """Digit runs as a template writes them inside words (`Top5` -> `Top9`)."""
    return _DIGITS.sub("9", text)


def _pair_after_comma(k: int, nxt: Callable[..., tuple[int, tuple[str, str] | None]]) -> bool:
    """`22253, T 14594.9, Ltr 0.31`: a whole number, a comma, then a name and its number: the line's
    counter set off by a comma (`3, 64, kernel_size=3` goes on with numbers: a list)."""
    j, name = nxt(k + 1)
    if name is None or name[0] != "word" or not name[1][:1].isalpha():
        return False
    return (nxt(j + 1)[1] or ("", ""))[0] == "num"


def _tokens(line: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for m in _TOKEN.finditer(line):
        kind = m.lastgroup or "p"
        text = m.group()
        if kind == "sp":
            if out and out[-1][0] != "sp":
                out.append(("sp", " "))
            continue
        if kind == "p" and text in ",;|":
            kind = "sep"
        elif kind == "fname":
            kind = "p"
        elif kind in ("dword", "lname"):
            kind = "word"
        out.append((kind, text))
    while out and out[-1][0] == "sp":
        out.pop()
    if "(" in line:
        _unwrap_paren_counter(out)
        _fold_paren_qualifier(out)
    return out


def _fold_paren_qualifier(out: list[tuple[str, str]]) -> None:
    """A word and number in parentheses between two words of a metric's name (`discr (scale 0.5) loss: 1.8`,
    one loss per scale of a multi-scale discriminator) qualify the name: one word of it, not a value of its own."""
    j = 0
    while j + 8 < len(out):
        if out[j][0] == "word" and out[j + 1][0] == "sp" and out[j + 2] == ("p", "(") \
                and out[j + 3][0] == "word" and out[j + 4][0] == "sp" and out[j + 5][0] == "num" \
                and out[j + 6] == ("p", ")") and out[j + 7][0] == "sp" and out[j + 8][0] == "word" \
                and j + 9 < len(out) and out[j + 9] in (("p", ":"), ("p", "=")) \
                and out[j + 3][1].lower() not in _PAREN_COUNTER_WORDS and not out[j + 5][1][-1:].isalpha():
            # (the number stays a token of its own, so the line's numbers still line up with its template)
            out[j + 2:j + 7] = [("word", f"({out[j + 3][1]}"), ("qnum", f"{out[j + 5][1]})")]
        j += 1


# Nouns that, with a number after them at the head of a line, name the item the line scores, not a value
_ITEM_NOUNS = frozenset({"horizon", "class", "category", "fold", "image", "sample"})
_PAREN_COUNTER_WORDS = frozenset({"epoch", "iter", "iteration", "step"})


def _unwrap_paren_counter(out: list[tuple[str, str]]) -> None:
    """A heading whose counter sits in parentheses glued to its words, a colon and named values after it
    (`BMN testing loss(epoch 3): tem_loss: 1.1, total_loss: 1.4`): the parenthesised counter is the
    line's epoch or step, read as if printed `testing loss, epoch 3: ...`, not a value of the heading."""
    for j in range(len(out) - 6):
        if out[j][0] == "word" and out[j + 1] == ("p", "(") and out[j + 2][0] == "word" \
                and out[j + 2][1].lower() in _PAREN_COUNTER_WORDS and out[j + 3][0] == "sp" \
                and out[j + 4][0] == "num" and out[j + 5] == ("p", ")") and out[j + 6] == ("p", ":") \
                and j + 8 < len(out) and out[j + 7][0] == "sp" and out[j + 8][0] == "word":
            out[j + 1:j + 2] = [("sep", ","), ("sp", " ")]
            del out[j + 6]  # (the closing parenthesis, one further on after the insertion)
            return


# Words that may open a counter's name (`Now training epoch 16.`, `Starting epoch 3`, `Going into epoch 8`,
# `Entering epoch 2`: the loop says which pass it begins).
_COUNTER_LEAD = {"now", "start", "starting", "begin", "beginning", "current", "training", "train", "running",
                 "going", "into", "entering"}


# Bracketed words that head a line's values (`[Metrics] AUC: 0.8`, `[Results] ...`) without naming them.
_HEADING_TAGS = {"metrics", "metric", "results", "result", "scores", "stats", "statistics"}
# Caffe's tail after a net output that enters the loss: its weight and its weighted value (`(* 1 = 0.3 loss)`)
WEIGHTED_LOSS_TAIL = re.compile(r"\(\*\s*\S+\s*=\s*\S+\s+loss\)")
# The period of an abbreviated word inside a metric's name (`Acc.`, `Avg.`, `Val.`): the name is the same without it
_ABBREV_DOT = re.compile(r"\b([A-Za-z]{2,5})\.(?=\s|$)")
_SENTENCE_END = re.compile(r"^[a-z]{3,}\.$")  # a lower-case word that ends a sentence (`ended.`), not an abbreviation
_SPLIT_LEADS = {"training", "train", "validation", "validating", "valid", "val", "evaluation", "eval", "test", "testing"}
_AT_WORD = re.compile(r"(?<![^\s])@(?=[a-z])")
# Words that say where in the loop a counter is (`Ending global_step 60`, `Starting iteration 5`): no metric's name.
_STEP_LEAD = frozenset(("ending", "end", "finished", "completed", "starting", "start", "beginning", "begin", "current"))
# Words before `<split> of epoch N`: where in the loop (`finished training of epoch 3`), or that the values
# are the pass's means (`average test of epoch 0: loss 0.53 acc 0.73`)
_PASS_LEAD = _STEP_LEAD | {"average", "avg", "mean"}
_PHRASE_COUNTER = ("at", "after", "@", "in", "for")  # `<metric> at iteration N is X`, `<metric> for epoch N is X`
_OF_COUNTER = frozenset(("step", "iteration", "iter", "episode"))
_COUNTER_ORDINALS = frozenset(("final", "last", "first", "current"))  # `loss in final step 20000 is 0.30`


_BAR_GLYPHS = frozenset("█▉▊▋▌▍▎▏░▒▓#=>-. ")


def _bar_close(toks: list[tuple[str, str]], i: int) -> int:
    """The index after the `]` that closes a progress bar opened at `toks[i]` (`[████▉   ]`, `[====>...]`: three
    or more glyphs and nothing else), or 0 when no bar opens there."""
    glyphs = 0
    for j in range(i + 1, min(len(toks), i + 200)):
        kind, text = toks[j]
        if text == "]":
            return j + 1 if glyphs >= 3 else 0
        if kind not in ("p", "sp", "dash") or not _BAR_GLYPHS.issuperset(text):
            return 0
        glyphs += kind == "p"
    return 0


def _phrase_counter(words: list[str]) -> int:
    """How many words at the end of a key are a counter inside a metric's phrase (`<metric> at step`: 2,
    `<metric> in final step`: 3, the ordinal says which step it is and is no part of the metric's name), or 0."""
    if len(words) >= 3 and words[-2].lower() in _PHRASE_COUNTER:
        return 2
    if len(words) >= 3 and words[-2].lower() == "of" and words[-1].lower() in _OF_COUNTER:
        return 2  # `loss of iteration 20 : 1.57`: the metric of one pass (one counter word, never `of steps`)
    if len(words) >= 4 and words[-2].lower() in _COUNTER_ORDINALS and words[-3].lower() in _PHRASE_COUNTER:
        return 3
    return 0


_CLOSING_LEAD = frozenset(("end", "ending", "finished", "completed"))


def _closes_pass(words: list[str]) -> bool:
    """`| end of epoch   1 | time: 23.68s | valid loss  5.58`: the words that close a pass, then its number
    (a count with its total, `End of epoch 0 / 100`, is read as before: a progress note, no record)."""
    return len(words) == 3 and words[1] == "of" and words[2] == "epoch" and words[0] in _CLOSING_LEAD


def _key_role(key: str) -> str:
    k = key.lower().strip(" :=[]").replace(".", "")
    if "@" in k:
        k = _AT_WORD.sub("@ ", k)  # `Evaluation @epoch 1`: `@` glued to the counter is the word `at`
    words = k.split()
    if k in STEP_WORDS or words and words[-1] in STEP_WORDS and (
            k.endswith((" step", " iter", " iteration")) or _phrase_counter(words)
            or len(words) == 2 and words[0] in _PHRASE_COUNTER  # (`after cycle=3`, `at episode 12`)
            or len(words) == 2 and words[0] in _STEP_LEAD):  # (`Ending global_step 60: Average loss 8.59`)
        return "step"  # (`Total rewards in episode 73 is 3.8`: the counter inside a metric's phrase)
    if k in EPOCH_WORDS or (words and words[-1] in ("epoch", "ep")
                            and (len(words) <= 2 or _COUNTER_LEAD.issuperset(words[:-1])
                                 or _phrase_counter(words)
                                 or len(words) == 3 and words[1] in ("of", "with") and words[0] in _SPLIT_LEADS
                                 or _closes_pass(words)
                                 or len(words) == 4 and words[-2] == "of" and words[0] in _PASS_LEAD
                                 and words[1] in _SPLIT_LEADS)) \
            or (words and words[-1] == "pass" and words[0] in _SPLIT_LEADS
                and (len(words) == 2 or len(words) == 3 and words[1] in ("of", "with"))):
        # (`Validation of Epoch 0 - loss: 188.4`, `Test with Pass 2, Cost 4.15`: the split's pass of that epoch;
        # `finished eval of epoch 3`: that pass, done)
        return "epoch"  # `Epoch 3`, `Train epoch 3`, `Now training epoch 3`
    if k in BATCH_WORDS:
        return "batch"
    return "value"


# A line labelled as the test split's (and as no other held-out split's): its keys are the test set's.
_TEST_LABEL = re.compile(r"(?i)(?<![\w/])test(?:ing)?(?:\s+set)?\s*(?:[:|\]]|-\s)")  # a label: `TEST :`, `Test set:`, `[test]`
_OTHER_EVAL_LABEL = re.compile(r"(?i)(?<![\w/])(?:val|valid|validation|dev|eval|evaluation)(?![\w/])")


# The part of a metric's `[local: x | reduced: y]` that is the metric itself (averaged over ranks).
_WHOLE_PARTS = {"reduced", "global", "all", "avg", "mean", "total"}


def _skip_sp(toks: list, j: int) -> int:
    """The index of the first token at or after `j` that is not a blank run."""
    while j < len(toks) and toks[j][0] == "sp":
        j += 1
    return j


def _named_parts(toks: list, i: int) -> tuple[list[str], int] | None:
    """`[local: 0.69 | reduced: 0.69]` from token i (the `[`): the part names and the index after
    the `]`, when the bracket holds only `name: number` pairs separated by `|`, `,` or `;`."""
    names: list[str] = []
    j, n = _skip_sp(toks, i + 1), len(toks)
    while j < n and toks[j][1] != "]":
        k = _skip_sp(toks, j + 1)
        if toks[j][0] != "word" or k >= n or toks[k][1] not in ":=":
            return None
        k = _skip_sp(toks, k + 1)
        if k >= n or toks[k][0] != "num":
            return None
        names.append(toks[j][1])
        k = _skip_sp(toks, k + 1)
        if k < n and toks[k][1] in "|,;":
            k += 1
        j = _skip_sp(toks, k)
    return (names, j + 1) if j < n and len(names) >= 2 else None


# A label that names the metric of the split-named values after it (`Accs: Train: 0.73, Val: 0.70`).
_FAMILY_WORDS = {"acc": "accuracy", "accs": "accuracy", "accuracy": "accuracy", "accuracies": "accuracy",
                 "f1": "f1", "auc": "auc", "mae": "mae", "rmse": "rmse"}


_EVAL_VERBS = {"evaluating", "evaluate", "evaluated"}
# The verb of a sentence that says which pass a value came from (`Epoch 3 trained with loss: 0.02`, `... evaluated
# with loss: 0.41`): the pass, past or going on
_PASS_DONE = {"trained": "train", "training": "train", "evaluated": "eval", "evaluating": "eval", "validated": "eval",
              "validating": "eval", "tested": "eval", "testing": "eval"}


# A run of CJK ideographs (or kana, or hangul syllables): a clause in a language written without blanks
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{4,}")


def _foreign_clause(words: list[str]) -> bool:
    """Words after a line's last number, every one lower-case letters of an alphabet other than Latin
    (Cyrillic, Greek) and the last ending the sentence: the rest of a sentence that quotes the number.
    English clauses are found by their small words; these scripts have no such list here."""
    for w in words:
        core = w.strip("()[],.;:!?\"'«»")
        if not core or not core.isalpha() or not core.islower() or core.isascii():
            return False
    return True


def _cjk_words(words: list[str]) -> int:
    """About how many words the long CJK runs in `words` hold (two characters a word); runs shorter than
    four characters are left out: a metric's name in those scripts is that short (`损失`, `准确率`)."""
    return sum(len(run) // 2 for w in words for run in _CJK_RUN.findall(w))


def _split_of(words: list[str]) -> str:
    joined = " ".join(w.lower() for w in words)
    bare = [w.lower().strip("[]():") for w in words]
    for i, w in enumerate(bare[:-1]):
        if w in _EVAL_VERBS:  # `Evaluating train: L1 0.04 PSNR 23.8`: the verb's object is the split measured
            nxt = bare[i + 2] if bare[i + 1] in ("on", "the") and i + 2 < len(bare) else bare[i + 1]
            if nxt in SPLIT_TRAIN:
                return "train"
    for w in [joined] + bare:
        if w in SPLIT_EVAL:
            return "eval"
        if w in SPLIT_TRAIN:
            return "train"
    if len(words) == 1 and "-" in words[0]:
        # a tag that ends in the split's name (`[Diff-Val]`, `[Stage2-Train]`: the pass of a part of the model);
        # one that starts with it names a set of the data (`test-clean`), its own key
        last = bare[0].rsplit("-", 1)[1]
        if last in SPLIT_EVAL:
            return "eval"
        if last in SPLIT_TRAIN:
            return "train"
    return ""


_LEAD_FILLER = {"result", "results", "set", "metric", "metrics", "summary", "stats"}


def _lead_split_key(pending: list[str]) -> str:
    """The first key of a line that a split word opens (`Test samples=`, `Evaluation result (greedy) loss:`):
    the words after the split word, less `result`-like filler and `(tag)` qualifiers; empty when none is left."""
    rest = [w for w in pending[1:] if w.lower() not in _LEAD_FILLER and not (w[:1] == "(" and w[-1:] == ")")]
    return " ".join(rest)


# DARTS-family search and train scripts: a split word, the batch's index, then the running loss in
# exponent form and the top-1 and top-5 accuracy (percent), none of them named (`train 050 2.030248e+00
# 24.540441 78.370098`, printed with `'%s %03d %e %f %f'`). The top-1 column is the one those scripts
# print again at the pass's end as `train_acc` / `valid_acc`, and is named so.
_SPLIT_LOSS_TOPK = re.compile(r"^(train|valid|test)\s+\d{1,7}\s+\d\.\d+e[-+]\d+(?:\s+\d{1,3}\.\d+){2}\s*$")


def parse(line: str) -> Plan:
    """Read one cleaned line's template (numbers may be any value: only their positions matter)."""
    if line[:1] in "tv":
        m = _SPLIT_LOSS_TOPK.match(line)
        if m:
            sp = m.group(1)
            return Plan([Slot("step", "step"), Slot("value", f"{sp} loss"), Slot("value", f"{sp}_acc"),
                         Slot("value", f"{sp} top5")], label=_split_of([sp]), keys=3, known=True, counter=True)
    toks = _tokens(line)
    plan = Plan()
    if _TQDM_BAR.search(line):
        plan.progress = "tqdm"
    elif _KERAS_BAR.match(line):
        plan.progress = "keras"
    slots = plan.slots
    pending: list[str] = []  # key words since the last separator
    assigned = False  # pending words were followed by ':' or '='
    prose_words = 0
    value_keys: list[str] = []
    i = 0
    n = len(toks)
    first_pair_seen = False
    bracket_depth = 0
    bracket_nums: list[int] = []  # slot indices of bare numbers inside the current bracket
    bracket_first = False  # the current bracket opens the line
    last_value_slot: int | None = None
    epoch_seen = False
    family: tuple[str, int] | None = None  # a `Losses:` label and the bracket depth it opened at
    paren_split: tuple[str, int] | None = None  # `Val Loss: 1.97 (Acc: 50%)`: the split word the parenthesis's pairs take
    carry: list[str] = []  # `Score at iteration 100 is 1.39`: the name the counter's phrase began with
    carry_assigned = False  # a `:` or `=` right after that phrase's counter
    sections: list[tuple[int, str]] = []  # a second split's label mid-line: (first slot after it, its word)
    best_lead = False  # `best metric, acc: 0.96, ...`: a best-so-far heading opens the line
    clauses: list[int] = []  # the first slot after each `;` (a clause of the line)

    def nxt(j: int, skip_sp: bool = True) -> tuple[int, tuple[str, str] | None]:
        while j < n and skip_sp and toks[j][0] == "sp":
            j += 1
        return (j, toks[j]) if j < n else (j, None)

    while i < n:
        kind, text = toks[i]
        if kind == "word":
            low = text.lower()
            if assigned and pending:
                # `Validation: loss 2.3`: the words before ':' were a label, not a key
                lab = _split_of(pending)
                if lab and lab != plan.label and any(sl.role == "value" for sl in slots):
                    # `Training: loss 1.6 | Val: loss 1.7`, `epoch 1 loss 0.5 acc 0.9 val: loss 0.6`: the
                    # keys after a split's label mid-line are that split's, the ones before it are not
                    sections.append((len(slots), pending[-1]))
                elif lab:
                    plan.label = lab
                elif not slots and len(pending) == 1 and _is_tag(pending[0]):
                    plan.part = pending[0]  # conlleval `PER: precision: 91.2%; ...`: one entity type's metrics
                elif pending[-1].lower() in ("loss", "losses"):
                    family = ("loss", bracket_depth)  # `[Losses: x 0.27, ...]`: the loss's parts follow
                elif pending[-1].lower() in _FAMILY_WORDS:
                    family = (_FAMILY_WORDS[pending[-1].lower()], bracket_depth)  # `Accs: Train: 0.73, Val: 0.70`
                if not slots and len(pending) <= 3 and all(w[:1].isupper() for w in pending):
                    # `With Batch Norm: final accuracy = 0.98`: a title naming the variant the line is about (its
                    # small words are no sentence's)
                    prose_words -= sum(1 for w in pending if w.lower() in _STOP)
                pending = []
                assigned = False
                if lab and toks[i - 1] == ("p", "=") and i + 1 < n and toks[i + 1][0] == "sp":
                    i += 1  # `valid=TIMIT_dev loss=0.076`: the word after the split's `=` names its data set;
                    continue  # the keys after it are the split's, without it
            pending.append(text)
            if len(pending) > 6:
                prose_words += 1
                pending = pending[-6:]
            if low in _STOP:
                prose_words += 1
            i += 1
            continue
        if kind == "p" and text in ":=":
            if pending:
                assigned = True
            elif carry:
                carry_assigned = True  # `Minibatch loss at step 3000: 58.92`: the phrase's value follows
            i += 1
            continue
        if kind == "sep" and text == "|" and pending and not assigned and _lone_number_after(toks, i + 1) \
                and (line.count("|") == 1 or (line.count("|") == 2 and line.rstrip().endswith("|"))):
            # (the cells of a table row are the table's business; a row of two cells, `| ep_reward_mean | 3.89e+03 |`
            # with no border around it (a `tail` of SB's logger table), is a name and its value)
            assigned = True  # `train WeightedCategoryCrossEntropy |  1.338`: the name, a bar, its value
            i += 1
            continue
        if kind == "sep" and text == "," and pending and not assigned and nxt(i + 1)[1] is not None \
                and nxt(i + 1)[1][0] == "num" and known_key(" ".join(pending[-2:]), loose=True) \
                and _lone_number_after(toks, i + 1):
            assigned = True  # `step 10, loss_train, 0.838`: a name, a comma, its value (a CSV-style pair)
            i += 1
            continue
        if kind in ("sep", "dash"):
            if text == ";":
                clauses.append(len(slots))
            if pending and not assigned and not slots and len(pending) <= 2 and _BEST.match(" ".join(pending)):
                best_lead = True  # (its values are the best so far, named after the heading's comma)
            if pending and not assigned and not slots and len(pending) == 2 and _CUR_METRIC.match(" ".join(pending)):
                plan.label = "eval"  # `cur metric, acc: 0.498, norm_edit_dis: 0.815`: PaddleOCR's evaluation line
            elif pending and not assigned:
                lab = _split_of(pending)
                if lab and lab != plan.label and any(sl.role == "value" for sl in slots):
                    sections.append((len(slots), pending[-1]))  # `loss 0.5 | val | loss 0.6`
                elif lab:
                    plan.label = lab
                else:
                    prose_words += max(0, len(pending) - 2)  # `While training with custom data,`
                    if any(ord(ch) >= 0x3000 for w in pending for ch in w):
                        prose_words += _cjk_words(pending)  # `准备好数据集之后,`: a clause written without blanks
            pending = []
            assigned = False
            i += 1
            continue
        if kind == "p" and text == "(" and pending and not assigned and i and toks[i - 1][0] == "word":
            j = i + 1
            while j < n and (toks[j][0] == "num" or toks[j][1] == ","):
                j += 1
            if j > i + 1 and j < n and toks[j][1] == ")" and (nxt(j + 1)[1] or ("", ""))[1] in (":", "="):
                # `MR(2,4,6): (0.76, 0.52, 0.35)`, `recall(20): 0.12`: numbers right after a name and before its
                # `:` are the name's parameters (cut-offs, k), never its value; several take a tuple, in order
                args = [t for k, t in toks[i + 1: j] if k == "num"]
                if len(args) == 1:
                    pending[-1] += "@" + args[0]
                    slots.append(Slot("skip"))
                    i = j + 1
                    continue
                name = " ".join(pending)
                k, tok = nxt(nxt(j + 1)[0] + 1)
                vals = 0
                if tok is not None and tok[1] == "(":
                    k += 1
                    while k < n and (toks[k][0] in ("num", "sp") or toks[k][1] == ","):
                        vals += toks[k][0] == "num"
                        k += 1
                if vals == len(args) and k < n and toks[k][1] == ")":
                    slots.extend(Slot("skip") for _ in args)
                    slots.extend(Slot("value", f"{name}@{a}") for a in args)
                    value_keys.extend(f"{name}@{a}" for a in args)
                    plan.keys += len(args)
                    first_pair_seen = True
                    last_value_slot = len(slots) - 1
                    pending = []
                    i = k + 1
                    continue
        if kind == "p" and text == "(" and pending and i + 2 < n and toks[i + 1][0] == "word" \
                and toks[i + 2][1] == ")":
            pending.append(f"({toks[i + 1][1]})")  # `elapsed time per iteration (ms):`
            i += 3
            continue
        if kind == "p" and text == "(" and pending and not assigned and i + 2 < n and toks[i + 1][0] == "word" \
                and toks[i + 2][1] in (":", "=") and not _split_of([toks[i + 1][1]]) \
                and not known_key(" ".join(pending), loose=True):
            # `step 63/64 completed (loss: 0.19)`: a parenthesis opens a name of its own; the words before
            # it (no metric's name) tell what happened, they are no part of the name
            prose_words += len(pending)
            pending = []
            i += 1
            continue
        if kind == "p" and text == "[" and assigned and len(pending) == 1 and _split_of(pending) \
                and (bar_end := _bar_close(toks, i)):
            # `val:   [███████▉] data=60/60 loss=3.13±0.04` (llama.cpp's llama-finetune): the split word, then
            # its progress bar; the split names every value after the bar
            plan.label = _split_of(pending)
            pending = []
            assigned = False
            i = bar_end
            continue
        if kind == "p" and text == "[" and assigned and _split_of(pending[:1]) \
                and all(w[:1] == "(" for w in pending[1:]) and nxt(i + 1)[1] is not None and nxt(i + 1)[1][0] == "num":
            # `val: [125][0/6]`, `Test (EMA): [ 195/195]`: the split (and its tag), then its counters
            plan.label = _split_of(pending[:1])
            pending = []
            assigned = False
        if kind == "p" and text == "[" and pending and assigned and i + 2 < n and toks[i + 1][0] == "word" \
                and toks[i + 2][1] == "]" and _split_of([toks[i + 1][1]]):
            pending = []  # `7epoch results: [train] loss=15.3, ...`: the words before the split's tag head the line
            assigned = False
        if kind == "p" and text == "[" and pending and assigned and i + 2 < n and toks[i + 1][0] == "num" \
                and toks[i + 2][1] == "]" and known_key(" ".join(pending), loose=True) \
                and (i + 3 >= n or toks[i + 3][1] != "["):
            # `lr: [0.0002]` (a scheduler's get_last_lr()): one group's value (not the first of a run of
            # brackets, `loss: [nan][nan][9747]`, which is a list printed item by item)
            i += 1
            continue
        parts = _named_parts(toks, i) if kind == "p" and text == "[" and pending and assigned else None
        if parts is not None:
            # `predict_loss: [local: 0.6975 | reduced: 0.6919]`: one metric's named parts; the reduced
            # (all-rank) value is the metric's own, the others keep the part's name
            key = " ".join(pending)
            whole = next((w for w in parts[0] if w.lower() in _WHOLE_PARTS), None)
            for word in parts[0]:
                if whole is not None:
                    slots.append(Slot("value", key) if word == whole else Slot("skip"))
                else:
                    slots.append(Slot("value", f"{key} {word}"))
                value_keys.append(key)
            plan.keys += 1
            first_pair_seen = True
            last_value_slot = len(slots) - 1
            pending = []
            assigned = False
            i = parts[1]
            continue
        if kind == "p" and text == "[" and pending and assigned and _pairs_inside(toks, i):
            # `Result <train>: [train_time: 178.5 (s), lr: 1e-3, train_MAE: 65.2]`: a group of named values;
            # the words before it name the group (its split, when they say one), not its first value
            plan.label = plan.label or _split_of([w.strip("<>") for w in pending]) or ""
            pending = []
            assigned = False
            bracket_depth += 1
            i += 1
            continue
        if kind == "p" and text == "[" and pending and assigned and not value_keys and i + 3 < n \
                and toks[i + 1][0] == "word" and toks[i + 2][0] == "sp" and toks[i + 3][0] == "num" \
                and toks[i + 3][1].isdigit() and _key_role(toks[i + 1][1]) in ("step", "epoch"):
            # `Trainer.fit() : [Iter 532 / 762] loss: 0.93`: the words before the colon name the caller that
            # logs, and the bracket after it opens with the loop's counter, so it is no list to skip
            pending = []
            assigned = False
        if kind == "p" and text == "[" and (pending and assigned or i and toks[i - 1][1] == "("):
            # `shape = [3, 256, 256]`, `torch.Size([2, 32])`: a list, not a value: skip to its end (and
            # past the brackets glued on after a value's name: `loss: [nan][nan][9747]` is one list too;
            # after a counter's, `Epoch: [0][5/313]`, the next bracket is the batch)
            glued = _key_role(pending[-1]) == "value"
            counter = _key_role(pending[-1]) if pending and assigned else ""
            k1, t1 = nxt(i + 1)
            k2, t2 = nxt(k1 + 1) if t1 is not None else (k1, None)
            if counter in ("epoch", "step") and t1 is not None and t1[0] == "num" and t1[1].isdigit() \
                    and t2 is not None and t2[1] == "]" and k2 + 1 < n and toks[k2 + 1][1] == "[":
                # `Epoch: [3][10/30]` (PyTorch's ImageNet example): the counter's own bracket, then the batch's
                slots.append(Slot(counter, pending[-1]))
                epoch_seen = epoch_seen or counter == "epoch"
                pending = []
                assigned = False
                i = k2 + 1
                continue
            k3, t3 = nxt(k2 + 1) if t2 is not None and t2[1] == "/" else (k2, None)
            k4, t4 = nxt(k3 + 1) if t3 is not None else (k3, None)
            if counter in ("epoch", "step") and t1 is not None and t1[0] == "num" and t1[1].isdigit() \
                    and t3 is not None and t3[0] == "num" and t3[1].isdigit() and t4 is not None and t4[1] == "]" \
                    and int(t1[1]) <= int(t3[1]):
                # `Epoch: [ 2/200] [   1/   4] d_loss: 66.7` (DCGAN-style prints): the counter's own bracket holds
                # its count of its total; a bracket after it counts the batches of that epoch
                slots.append(Slot(counter, pending[-1]))
                slots.append(Slot("total", pending[-1]))
                epoch_seen = epoch_seen or counter == "epoch"
                pending = []
                assigned = False
                i = k4 + 1
                continue
            j = i + 1
            while j < n and (toks[j][1] != "]" or glued and j + 1 < n and toks[j + 1][1] == "["):
                if toks[j][0] == "num":
                    slots.append(Slot("skip"))
                j += 1
            pending = []
            assigned = False
            i = j + 1
            continue
        if kind == "p" and text in "[(":
            bracket_depth += 1
            if text == "[":
                bracket_first = i == 0  # `[1,    10] loss: 2.3` opens the line; `Linear: 1-10  [1, 1000]` does not
            if pending and text == "[":
                lab = _split_of(pending) if len(pending) == 1 and _key_role(pending[0]) == "value" else ""
                if lab:
                    plan.label = lab
                    pending = []
                elif len(pending) == 1 and "(" in pending[0] and _key_role(pending[0]) != "value":
                    plan.label = _split_of(pending)  # `Iter(val) [120/120]`: the loop's mode names the split
            if text == "(" and not pending and i + 2 < n and toks[i + 1][0] == "word" and toks[i + 2][1] == ")" \
                    and _split_of([toks[i + 1][1]]) and not any(sl.role == "value" for sl in slots):
                # `Epoch 0 (valid): loss=2.1`: the split in parentheses after the counters, before any value
                plan.label = plan.label or _split_of([toks[i + 1][1]])
                bracket_depth -= 1
                i += 3
                continue
            if text == "(" and last_value_slot is not None and not pending and paren_split is None:
                lead = _paren_split_word(slots[last_value_slot], toks, i)
                if lead:
                    # `Val Loss: 1.97 (Acc: 50.5%)`: another metric of the same pass, in parentheses after
                    # the split-named value; it is read under that split (`Val Acc`), not skipped as a mean
                    paren_split = (lead, bracket_depth)
                    i += 1
                    continue
            if text == "(" and last_value_slot is not None and not pending \
                    and not (slots[last_value_slot].role in ("epoch", "step") and _pairs_in_parens(toks, i)):
                # `loss 6.9 (6.9)`: a running average / z-score after a value: skip until ')'
                # (after a counter, `epoch 45 (lr: 0.009)` names its own values: they are read)
                j = i + 1
                depth = 1
                inside = []
                while j < n and depth:
                    if toks[j][1] == "(":
                        depth += 1
                    elif toks[j][1] == ")":
                        depth -= 1
                    elif toks[j][0] == "num":
                        inside.append(len(slots))
                        slots.append(Slot("skip"))
                    j += 1
                if len(inside) == 1 and slots[last_value_slot].role == "value":
                    plan.paren_avgs += ((last_value_slot, inside[0]),)
                bracket_depth -= 1
                i = j
                continue
            i += 1
            continue
        if kind == "p" and text in "])":
            bracket_depth = max(0, bracket_depth - 1)
            if family and bracket_depth < family[1]:
                family = None
            if paren_split and bracket_depth < paren_split[1]:
                paren_split = None
            if text == "]" and bracket_nums and not pending:
                _bracket_counter(slots, bracket_nums, epoch_seen, bracket_first)
                if any(slots[k].role == "epoch" for k in bracket_nums):
                    epoch_seen = True
            if text == "]":
                bracket_nums = []
            if text == "]" and len(pending) == 1 and not assigned and pending[0].lower() in _HEADING_TAGS:
                pending = []  # `[Metrics] AUC: 0.805`: a tag that heads the values, not part of their names
            elif text == "]" and len(pending) >= 3 and not assigned and not slots and toks[0][1] == "[":
                # `[converting LR images to SR images] PSNR: 22.3`: a phrase in brackets opening the line says
                # what the pass does; it heads the values, no word of it is part of their names
                pending = []
            # a bracketed word label: [eval], [val]
            if pending and len(pending) == 1 and _split_of(pending) and not assigned:
                lab = _split_of(pending)
                if lab != plan.label and any(sl.role == "value" for sl in slots):
                    sections.append((len(slots), pending[-1]))  # `[train] loss=1.5, ..., [valid] loss=2.0`
                else:
                    plan.label = lab
                pending = []
            i += 1
            continue
        if kind == "qnum":  # the number of a qualifier inside a name (`discr (scale 0.5) loss`): a word of it
            slots.append(Slot("skip"))
            pending.append(text)
            i += 1
            continue
        if kind == "num" and (":" in text or "day" in text or _DATE.match(text) or _GLUED_DURATION.match(text)):
            # a duration or a date
            slots.append(Slot("skip"))
            pending = []
            assigned = False
            i += 1
            continue
        if kind == "num" and text[-1:].isalpha() and (not pending or pending[-1].lower() in _STOP):
            j2, after = nxt(i + 1)
            # (`Loss is nan at step 32`: the loss's value; `LossTensor is inf or nan`: a check's wording)
            if after is not None and after[0] == "word" \
                    and (after[1].lower() in ("or", "and") or not _names_then_moved(pending)):
                # `number of nan iterations:`: a word here
                slots.append(Slot("skip"))
                pending.append(text)
                i += 1
                continue
        if kind == "num":
            copula = bool(pending) and pending[-1].lower() in _COPULA
            if pending and pending[-1].lower() == "to" and _names_then_moved(pending):
                pending = pending[:-2]  # `Loss exploded to nan at step 32`: the verb and `to` go, as a copula does
                copula = True
            while pending and pending[-1].lower() in _COPULA:  # `val loss is 0.05`: the key is `val loss`
                pending = pending[:-1]
            carried = (copula or carry_assigned) and not pending and bool(carry)
            if carried:
                pending = carry  # `Score at iteration 100 is 1.39`: the value of the phrase's metric
            held, carry = carry, []
            carry_assigned = False
            for k in range(len(pending) - 2, -1, -1):
                if _SENTENCE_END.match(pending[k]) and pending[k + 1][:1].isupper() \
                        and pending[k][:-1] not in SPLIT_EVAL | SPLIT_TRAIN:
                    lead = [w.rstrip(".").lower() for w in pending[: k + 1]]
                    if len(lead) == 2 and lead[1] in _LEAD_FILLER and not plan.label and _split_of(lead[:1]):
                        plan.label = _split_of(lead[:1])  # `Test set. Loss: 0.21`: a sentence naming the split scored
                    pending = pending[k + 1:]  # `episode 12 ended. Score 1.0`: the sentence before the key is not its name
                    break
                if k == 0 and pending[0][-1:] == "." and unit_of(pending[0][:-1]):
                    pending = pending[1:]  # `using 598.6s. lr=0.00025`: the unit of the value before, and a full stop
                    break
            key = " ".join(pending)
            slot_index = len(slots)
            if key and assigned and len(pending) == 1 and _split_of(pending) and slot_index == 0 \
                    and nxt(i + 1)[1] is not None and nxt(i + 1)[1][1] in "[/":
                key_is_split = True  # `Train: 0 [50/1251]`: the split word counts epochs (`train=11200,` is a size)
            else:
                key_is_split = False
            j, after = nxt(i + 1, skip_sp=False)
            jn, noun = nxt(i + 1)
            if _counts_things(text, toks, noun, jn, nxt):
                slots.append(Slot("skip"))  # `processed 74542 tokens`: how many things, not a measurement
                plan.tallies += 1
                if noun is not None and noun[1].lower() == "folds" and not plan.label:
                    plan.label = "eval"  # `Average 10 Folds Accuracy: 0.91`: a k-fold cross-validated score is held out
                pending = []
                assigned = False
                # (the things counted are no part of the next name: `100 batches Average loss: 0.3`)
                i = jn + 1 if noun is not None and noun[1].lower() in _COUNT_NOUNS else i + 1
                continue
            if after and after[1] == "/" and j + 1 < n and toks[j + 1][0] == "word" \
                    and toks[j + 1][1] in ("s", "sec", "step", "it", "iter"):
                toks[j + 1] = ("word", "/" + toks[j + 1][1])  # `100/s`: a rate, the unit is `/s`
                toks.pop(j)
                n -= 1
                after = toks[j]
            if after and after[1] == "/" and j + 2 < n and toks[j + 1][0] == "sp" and toks[j + 2][0] == "num":
                toks.pop(j + 1)  # `iteration 10/ 1000`
                n -= 1
            # N/M: a counter or a fraction
            if after and after[1] == "/" and j + 1 < n and toks[j + 1][0] == "num":
                role = _key_role(key) if key else ""
                if key_is_split and role in ("", "value"):
                    role = "epoch"  # `Train:    1/3 ( 33%) [ 0/323 ...]`: the split word counts its passes, no score
                k3, rate = nxt(j + 2)
                rate_unit = UNITS.get(rate[1], "") if rate is not None and rate[0] == "word" else ""
                if not key and rate_unit in _RATES:
                    # `2954/2927 tok/s` (OpenNMT: source/target): the first rate is the throughput
                    slots.append(Slot("value", UNIT_NAMES[rate_unit], rate_unit))
                    slots.append(Slot("skip"))
                    value_keys.append(UNIT_NAMES[rate_unit])
                    plan.keys += 1
                    first_pair_seen = True
                    last_value_slot = len(slots) - 2
                    pending = []
                    assigned = False
                    i = k3 + 1
                    continue
                pair = _split_pair(pending)
                if pair is not None and role not in ("step", "epoch", "batch"):
                    # `Train/Valid ACC: 0.53/0.40`: one value per split, in the order the name gives them
                    for name in pair:
                        slots.append(Slot("value", name))
                        value_keys.append(name)
                    plan.keys += 2
                elif role in ("step", "epoch", "batch"):
                    if _split_of(pending[:-1]):
                        plan.label = _split_of(pending[:-1])
                    slots.append(Slot(role, key))
                    slots.append(Slot("total", key))
                    if role == "epoch":
                        epoch_seen = True
                elif key and "." in text and "." in toks[j + 1][1] and ":" not in text \
                        and (len(two := pending[-1].split("/")) == 2 and all(two) or not known_key(key, loose=True)):
                    # `dn: 35.62/0.792`, `ValSet: 33.85/0.000`: two readings of one thing (a PSNR and an SSIM)
                    # joined by a slash; a count of progress is whole numbers, never decimals. A name with a slash
                    # of its own names both (`PSNR/SSIM: 30.12/0.8812`)
                    names = (key, key + "_2") if len(two) != 2 or not all(two) \
                        else tuple(" ".join(pending[:-1] + [w]) for w in two)
                    slots.append(Slot("value", names[0]))
                    slots.append(Slot("value", names[1]))
                    value_keys.extend(names)
                    plan.keys += 2
                elif key and known_key(key, loose=True):
                    slots.append(Slot("num", key))  # `Accuracy: 9800/10000`, `HellaSwag: 2441/10042`
                    slots.append(Slot("den", key))
                    value_keys.append(key)
                    plan.keys += 1
                elif key:  # `evaluating: 1080/1256`, `Saving 3/10`: progress, not a value
                    slots.append(Slot("skip"))
                    slots.append(Slot("skip"))
                    if len(pending) > 1 and _split_of(pending[:1]):  # `test final score: 29/500 = 5.8% correct`
                        plan.label = _split_of(pending[:1])
                elif bracket_depth:
                    if not epoch_seen and not value_keys and len(slots) >= 2 and slots[-1].role == "total" \
                            and slots[-2].role == "step" and not slots[-2].key:
                        # `[1/25][300/3183]`: two bare counters, the outer loop's first: epoch, then batch
                        slots[-2].role = "epoch"
                        epoch_seen = True
                    slots.append(Slot("batch" if epoch_seen else "step"))
                    slots.append(Slot("total"))
                elif not first_pair_seen and not value_keys:
                    # `12/100 [====]` (Keras) or a leading `10/2000`: the step of the line
                    slots.append(Slot("batch" if epoch_seen or plan.progress else "step"))
                    slots.append(Slot("total"))
                elif epoch_seen and not value_keys and slots and slots[-1].role in ("epoch", "total"):
                    slots.append(Slot("batch"))  # `Epoch  1, 12850/37527; acc: 4.5`: the batch of the epoch
                    slots.append(Slot("total"))
                else:
                    slots.append(Slot("skip"))
                    slots.append(Slot("skip"))
                first_pair_seen = first_pair_seen or bool(key)
                pending = []
                assigned = False
                last_value_slot = len(slots) - 1
                i = j + 2
                continue
            # unit right after the value (glued or one blank away)
            unit = ""
            k = j
            if after and after[0] == "sp":
                k, after = nxt(j)
            if after and (after[0] == "word" or after[1] == "%"):
                u = "%" if after[1] == "%" else unit_of(after[1]) if after[0] == "word" else ""
                if u:
                    k2, after2 = nxt(k + 1)
                    # a unit is followed by a separator or the end, or (for %) by words that name it
                    if u in ("%", "/s") or after2 is None or after2[0] in ("sep", "dash") or after2[1] in ")]|(:" \
                            or (after2[0] == "word" and not unit_of(after2[1])) \
                            or (after2[0] == "num" and (u in _PLAIN_TIME or u.endswith("/s"))):
                        unit = u  # (Keras `- 125s 552ms/step -`; Sockeye `1293.6 samples/sec 36902.1 tokens/sec`)
                    if unit and after2 is not None and after2[1] == ":" and "/" in after[1]:
                        after3 = nxt(k2 + 1)[1]
                        if after3 is not None and after3[0] == "num":
                            unit = ""  # `loss: 2.2985 samples/sec: 639.7`: a rate's name with its own colon and value
            if not key and not unit and after is not None and after[0] == "word" \
                    and after[1].lower() in _COUNTER_AFTER and not any(sl.role == _key_role(after[1]) for sl in slots):
                k2, after2 = nxt(k + 1)
                if after2 is None or (after2[0] == "sep" and after2[1] in ",;|"):
                    # `000 epoch, 02000 iter, loss 37.2`: the count before its counter's word, which a
                    # comma (or the end) closes, is that counter
                    role = _key_role(after[1])
                    slots.append(Slot(role, after[1]))
                    if role == "epoch":
                        epoch_seen = True
                    first_pair_seen, assigned, pending = True, False, []
                    i = k + 1
                    continue
            if key == "s" and assigned and slot_index == 0:
                key = "step"  # llm.c `s:250 trl:6.15`
            if key and not unit and _counts_words(toks, j):
                slots.append(Slot("skip"))  # `avg_loss : 1 epoch average loss`: it counts the words after it
            elif key and key[:1] == "#" and key[1:].lower() in _COUNT_NOUNS:
                slots.append(Slot("skip"))  # `#Images: 5456`: the number of things measured, a size
            elif key:
                role = "epoch" if key_is_split else "value" if carried else _key_role(key)
                if role in ("step", "epoch") and _phrase_counter(key.split()) and not text.isdigit() \
                        and known_key(" ".join(key.split()[:-_phrase_counter(key.split())]), loose=True):
                    role = "value"  # `avg loss in epoch = nan`: a counter's word with no count, the pass's mean
                    key = " ".join(key.split()[:-_phrase_counter(key.split())])
                if role in ("step", "epoch", "batch") and unit in _PLAIN_TIME:
                    role, key = "value", key + " time"  # `Time taken for 1 epoch: 29.04 secs`: a duration
                elif role == "value" and unit in _PLAIN_TIME and _scores_a_fit(key):
                    key = key + " time"  # `Cost=229 sec`: a loss's word with a time unit is how long it took
                elif role == "value" and unit in ("GB", "MB") and _scores_a_fit(key):
                    # `GPU cost: 3.43 GB`: a loss's word with a size unit is the memory the run holds
                    key = " ".join([w for w in key.split() if not _scores_a_fit(w)] + ["memory"])
                if key_is_split:
                    plan.label = _split_of(pending)
                elif role == "value" and slot_index == 0 and assigned and len(pending) >= 2 and not plan.label \
                        and _split_of(pending[:1]) and _lead_split_key(pending) \
                        and (not known_key(key, loose=True) or _lead_split_key(pending) != " ".join(pending[1:])):
                    # `Test samples=10000 cost=0.21`, `Evaluation result (greedy) loss: 3.78, ppl: 43.9`: a
                    # split word opening the line names the line's split; it (and a `result` or a `(tag)`
                    # after it) is no part of the first key, which glued to them would name no metric
                    plan.label = _split_of(pending[:1])
                    key = _lead_split_key(pending)
                elif role != "value" and len(pending) > 1 and _split_of(pending[:-1]):
                    plan.label = _split_of(pending[:-1])  # `validation loss at iteration 100`
                elif role != "value" and len(pending) == 1 and "(" in pending[0] and _split_of(pending):
                    plan.label = _split_of(pending)  # OpenMMLab's `Epoch(val) [8][1730]`
                if role == "epoch":
                    epoch_seen = True
                if role != "value" and _phrase_counter(pending):
                    # `<metric> at <counter> N is X`: the counter is inside the metric's phrase; the
                    # value after the copula is the metric's (named by the phrase where its head alone
                    # is no metric triage knows: DL4J's `Score at iteration`)
                    head = pending[:-_phrase_counter(pending)]
                    whole = known_key(" ".join(pending), loose=True) and not known_key(" ".join(head), loose=True)
                    carry = list(pending) if whole else head  # (`Nash conv after step 8 is 0.51`: the head, unknown too)
                elif role in ("step", "epoch", "batch") and held and pending[0].lower() in ("and", ","):
                    carry = held  # `Loss at epoch 0 and iteration 500 is 0.22`: the phrase goes on
                if role == "value" and unit in UNIT_NAMES and unit.endswith("/s") and key.lower() in _RATE_KEYS:
                    key = UNIT_NAMES[unit]  # `Speed: 1293.6 samples/sec`: a samples-per-second rate
                if role == "value" and family and bracket_depth >= family[1] and family[0] == "loss" and not known_key(key):
                    key = f"{key} loss"  # under `Losses:`, `x 0.27` is the x loss and `total 15.1` the total loss
                elif role == "value" and family and bracket_depth >= family[1] and len(key.split()) == 1 and _split_of([key]):
                    key = f"{key} {family[0]}"  # under `Accs:`, `Val: 0.70` is the validation accuracy
                if role == "value" and paren_split and bracket_depth >= paren_split[1] and not _split_of(key.split()[:1]):
                    key = f"{paren_split[0]} {key}"
                if role in ("step", "epoch") and pending and pending[0].lower() in ("at", "@") \
                        and any(sl.role == role for sl in slots):
                    role = "skip"  # `best mean dice: 0.0488 at epoch 88`: when the best was, not this line's epoch
                if role == "value" and _counter_then_value(toks, i, text, unit, key, slots, nxt):
                    # `Train loss 0 48.220909 Grad Norm 13.48`: the iteration, then the loss; the next
                    # number is this name's value
                    slots.append(Slot("step", key, unit))
                    first_pair_seen, last_value_slot, assigned = True, slot_index, True
                    i += 1
                    continue
                if role == "value" and slot_index == 0 and not assigned and len(pending) == 1 and text.isdigit() \
                        and pending[0].lower() in _ITEM_NOUNS and after is not None and after[1] == ",":
                    # `Horizon 03, RMSE: 3.01, MAE: 1.37`: the noun and its number say which item (the forecast's
                    # third step ahead, a class, a fold) the line scores; the number is no value of its own
                    slots.append(Slot("skip"))
                    pending = []
                    i += 1
                    continue
                if best_lead and role == "value" and not _BEST.match(key):
                    key = f"best {key}"  # under `best metric,` every value is a best one (`best acc`)
                slots.append(Slot(role, key, unit))
                if role == "value":
                    value_keys.append(key)
                    plan.keys += 1
                first_pair_seen = True
                last_value_slot = slot_index
            elif bracket_depth:
                slots.append(Slot("skip", "", unit))
                if not unit:  # (`[   12.3s]`, `[ 45%]`: a time since the start or a share, no pass's count)
                    bracket_nums.append(slot_index)
            elif not first_pair_seen and slot_index == 0 and not unit \
                    and not (after and after[1] == "," and not (text.isdigit() and _pair_after_comma(k, nxt))):
                slots.append(Slot("step"))  # `0 train 10.98`, `100 2.31 0.5`: a bare leading count
                plan.lead_step = True  # (`3, 64, kernel_size=...` is a list, not a count)
            elif unit:
                # `| 4621.47 ms |` or `29.2% bf16 MFU`: named by the words after it, or by its unit
                name = ""
                kk, w = nxt(k + 1) if k < n else (k, None)
                words = []
                while w is not None and w[0] in ("word", "sp") and len(words) < 3:
                    if w[0] == "word":
                        words.append(w[1])
                    kk += 1
                    w = toks[kk] if kk < n else None
                if w is not None and (w[1] in ":=" or w[0] == "num"):
                    # `6.25 updates/sec perplexity=355.6`, `10.7 iters/s loss 14.68`: the words name the next value
                    words = []
                if words and not unit_of(words[0]):
                    name = " ".join(words)
                    k = kk - 1
                elif unit in _PLAIN_TIME and w is not None and w[0] == "num":
                    name = "-"  # `125s 552ms/step`: the pass's wall time before its per-step time
                name = name or UNIT_NAMES.get(unit, "")
                if name == "-":
                    name = ""
                if name:
                    slots.append(Slot("value", name, unit))
                    value_keys.append(name)
                    plan.keys += 1
                    last_value_slot = slot_index
                else:
                    slots.append(Slot("skip"))
            else:
                named = _named_after(toks, i + 1)
                if named:  # `3438 src tok/s;`: a value named by the metric words after it
                    slots.append(Slot("value", named[0]))
                    value_keys.append(named[0])
                    plan.keys += 1
                    last_value_slot = slot_index
                    k, unit = named[1], "-"
                else:
                    slots.append(Slot("skip"))
            pending = []
            assigned = False
            i = (k + 1) if unit else (i + 1)
            continue
        i += 1
    # keys with stop words are phrases of a sentence, bookkeeping words are not metrics: drop them;
    # a line with nothing else left, or with far more words than pairs, reads as prose
    kept = 0
    counted = any(sl.role in ("step", "epoch", "batch") for sl in slots)
    lone_value = sum(sl.role == "value" for sl in slots) == 1
    for prev, sl in zip([None] + slots[:-1], slots):
        if sl.role == "value" and prev is not None and prev.key and not known_key(sl.key):
            # `Accuracy of the network on the 10000 test images: 54 %` (or `Accuracy on 10,000 test images`):
            # a count inside the sentence cut it in two; the metric opens it and the split is named after the count
            head = prev.key.lower().split()
            lab = _split_of(sl.key.lower().split()[:1])
            if len(head) >= 2 and head[0] in _METRIC_WORDS and head[1] in ("of", "on") and lab:
                sl.key = f"{sl.key.split()[0]} {prev.key.split()[0]}"
                prev.role = "skip"
        if sl.role == "value":
            words = sl.key.split()
            if len(words) == 2 and words[0].lower() == words[1].lower():
                sl.key = words[1]  # icefall's `loss[loss=0.21, ...]`: the group's own value
            elif words and words[-1].lower() in _COUNT_PREPOSITIONS:
                sl.role = "skip"  # `tot_loss[over 792510.56 frames]`: what the mean was taken over
                continue
            elif len(words) >= 3 and words[0].lower() in _CHANGE_WORDS and words[1].lower() in ("of", "in"):
                sl.role = "skip"  # the step-to-step change of a metric, not its value
                continue
        if sl.role in ("value", "num", "den"):
            part = _per_part(sl.key) if sl.role == "value" else None
            if part:  # `Accuracy of plane : 62 %`, `test acc for 马 (horse) is 91.9%`: one class's metric
                sl.key = part[0]
                plan.label = plan.label or part[1]
            words = sl.key.lower().split()
            if sl.role == "value" and len(words) == 2 and words[1] == "set" and _split_of(words):
                # `VALID SET 0 LOSS: 0.17`: the number after a named set is which set, the line is its split's
                plan.label = _split_of(words)
                sl.role = "skip"
                continue
            if sl.role == "value" and len(words) > 2 and words[1] == "set" and _split_of(words[:1]):
                # CNTK's `[Training Set] TrainLossPerSample = 0.63`: the set named before the first name is the line's
                plan.label = plan.label or _split_of(words[:1])
                sl.key = " ".join(sl.key.split()[2:])
                words = words[2:]
            if sl.role == "value" and " on " in sl.key:
                on_set = _ON_SET.match(sl.key)
                if on_set:  # `Accuracy on Test-Set: 94.1%`: the named set's accuracy
                    sl.key = f"{on_set.group(2)} {on_set.group(1)}"
                    words = sl.key.lower().split()
            if any(w in _STOP for w in words) and not known_key(sl.key):
                # `The result of X with Adam is test acc: 76.8%`: the words after the sentence name it
                last = max(i for i, w in enumerate(words) if w in _STOP)
                tail = sl.key.split()[last + 1:]
                if 0 < len(tail) <= 3 and _key_role(" ".join(tail)) == "value" \
                        and not _METRIC_WORDS.isdisjoint(w.lower() for w in tail):
                    # `Epoch 3 evaluated with loss: 0.0004, dice score: 0.61`: a pass named by its verb in the
                    # words cut off (beside `Epoch 3 trained with loss: 0.02`) is the line's split
                    plan.label = plan.label or next((_PASS_DONE[w] for w in words[:last] if w in _PASS_DONE), "")
                    sl.key = " ".join(tail)
                    words = sl.key.lower().split()
                elif tail and "_" in tail[-1] and known_key(tail[-1]):
                    # `finished eval of epoch 3 of valid-set  eval_loss=0.58`: a metric's own identifier closes
                    # the sentence; it names the value by itself
                    sl.key = tail[-1]
                    words = [sl.key.lower()]
            if sl.role == "value" and sl.unit in ("s", "ms", "min", "h") and _split_of(words) and len(words) == 1:
                sl.key += " time"  # `| train 3.2s | infer 5.5s`: how long the pass took
                words.append("time")
            if sl.role == "value" and len(words) == 1 and _split_of(words) and not counted:
                # a split word alone may name a split's size (`train=11200, val=1400`): the reader drops
                # it where its number is whole (on a line that counts steps it is `<step> val <loss>`)
                plan.sizes += (sl.key,)
            if len(words) > 4 and ")" in sl.key and not known_key(sl.key):
                short = _ACRONYM_NAMED.search(sl.key)
                if short:  # `Protocol #1 Error (MPJPE) J_Best: 37.5 mm`: the abbreviation names the metric
                    sl.key = f"{short.group(1)} {short.group(2)}".strip()
                    words = sl.key.lower().split()
            if sl.role == "value" and counted and sl.key.lower() == "total" and lone_value:
                # `[epoch: 3/200, iter: 25/489] total: 1.6404`: the one value a counted line prints is the
                # loss its terms sum to (a count would be whole and sit beside what it counts)
                sl.key = "total loss"
                words = ["total", "loss"]
            if (any(w in _STOP for w in words) or len(words) > 4) and not known_key(sl.key) \
                    or sl.key.lower() in _NOT_METRIC or _BEST.match(sl.key) or _ENV_VAR.match(sl.key) \
                    or ("best" in sl.key.lower() and _BEST_AFTER.search(sl.key)):
                sl.role = "skip"
            elif sl.role != "den":
                kept += 1
                if "." in sl.key and _ABBREV_DOT.search(sl.key):
                    sl.key = _ABBREV_DOT.sub(r"\1", sl.key)  # `Train Acc. 0.97`, `Avg. reward: -19.9`: `Train Acc`
    if not kept and counted and not plan.label:
        best = [sl for sl in slots if sl.role == "skip" and sl.key and _BEST.match(sl.key)
                and _best_of_score(sl.key)]
        opens = next(i for i, sl in enumerate(slots) if sl.role in ("step", "epoch", "batch"))
        if best and all(sl.role != "value" for sl in slots) and opens < slots.index(best[0]) \
                and not _BEST.match(slots[opens].key):
            # (`best psnr: 39.4 @ iter 20000`, `achieve BEST dev acc: 0.31 at global step: 200`: when the best was
            # reached, a notice beside the evaluation's own line, not a line that counts passes; nor is `Best Epoch = 70
            # Best Loss = 5.9e-07`, whose counter is the best one's)
            # `epoch = 03,  best_acc1 = 92.07`: a line that counts passes and prints only the best score so far
            # is the run's one trace of that score; its values are read (under their own `best` names)
            for sl in best:
                sl.role = "value"
            kept = len(best)
    plan.keys = kept
    metric_word = None
    for sl in slots:  # `loss train: 2.846, val: 2.861`: the bare split after `loss train` is that split's loss
        if sl.role != "value":
            continue
        words = sl.key.split()
        if len(words) == 2 and words[0].lower() in _METRIC_WORDS and _split_of(words[1:]):
            metric_word = words[0]
        elif metric_word and len(words) == 1 and _split_of(words):
            sl.key = f"{sl.key} {metric_word}"
    if plan.label == "eval" and _TEST_LABEL.search(line) and not _OTHER_EVAL_LABEL.search(line):
        # `TEST : loss 0.0407 - f-score 0.55`: the test set's (one set beside `DEV :`, not its overwrite)
        _name_split(slots, "test", ("value", "num"))
    for k, start in enumerate(clauses):
        # `train loss 1.22, acc: 70.2%; val loss: 1.02, acc 74.3%; use 26 mins`: a clause whose first name opens
        # with another split than the line's names before it holds that split's values, the bare ones included
        stop = clauses[k + 1] if k + 1 < len(clauses) else len(slots)
        first = next((sl for sl in slots[start:stop] if sl.role == "value"), None)
        word = first.key.split()[0] if first is not None and " " in first.key else ""
        lab = _split_of([word]) if word else ""
        if lab and lab != (plan.label or "train") and any(sl.role == "value" for sl in slots[:start]):
            _name_split(slots[start:stop], word)
    for k, (start, word) in enumerate(sections):  # the keys after a second split's label are that split's
        stop = sections[k + 1][0] if k + 1 < len(sections) else len(slots)
        _name_split(slots[start:stop], word)
    _nested_lead_counters(toks, slots)
    _one_step_counter(slots)
    _one_batch_counter(slots)
    for k, sl in enumerate(slots[:-1]):
        if sl.role == "epoch" and slots[k + 1].role in ("skip", "total") and _closes_pass(sl.key.lower().split()):
            sl.role = "value"  # (`End of epoch 0 / 100  Time Taken: 95 sec`: a progress note with its total, no record)
    _label_by_pass_times(slots)
    if not plan.label:
        _label_from_first_key(plan)
    _per_episode(slots)
    _gan_pair(slots)
    _prf_triple(slots)
    if not plan.label:
        _scores_after_eval(slots)
    if not plan.label and "dict for global step" in line and _ESTIMATOR_EVAL.search(line) \
            and not any(sl.role == "value" and _SPLIT_NAMED.match(sl.key) for sl in slots):
        plan.label = "eval"  # TF Estimator's `Saving dict for global step 0: accuracy = 0.0, loss = 0.0`: an evaluation's results
    plan.known = any(sl.role in ("value", "num") and known_key(sl.key, loose=True) for sl in slots)
    if not plan.known and len(slots) == 1 and slots[0].role == "value" and statistic_of_known(slots[0].key) \
            and line.lstrip().startswith(slots[0].key + ":"):
        plan.known = True  # `episode_reward_max: 200.0` (a result dict as YAML): the spread of a known metric
    if not plan.known and len(slots) == 1 and slots[0].role == "value" and _split_namespaced(slots[0].key):
        plan.known = True  # `eval/ctc   : 4.0990`: a tag under a split's namespace (TensorBoard's, W&B's) is a measured value
    if not plan.known and len(slots) == 1 and line[-1:] == "]" and _GLUED_TENSOR.match(line):
        plan.known = True  # `CrossE[472.02966]`: tf.Print's message, then the tensor's value in brackets (a
        # value the graph computed, whatever the message calls it; `parse` reads the bracket as the name's value)
    if not plan.known and "loss)" in line and WEIGHTED_LOSS_TAIL.search(line):
        plan.known = True  # Caffe's `Train net output #0: ctcloss = 0.3 (* 1 = 0.3 loss)`: a term of the loss
    if not plan.known and plan.label == "eval" and "core" in line \
            and any(sl.role == "value" and names_score(sl.key) for sl in slots):
        plan.known = True  # `val cls score: 0.91`, `Test score: 0.83`: a score measured on a held-out split, no setting
    plan.counter = any(sl.role in ("step", "epoch", "batch") for sl in slots)
    if len(pending) >= 4 and line.rstrip()[-1:] in ".!?" and _foreign_clause(pending):
        prose_words += len(pending)  # `Loss становится NaN на первом (или ранних) батчах обучения.`
    stop_keys = sum(1 for kkey in value_keys for w in kkey.lower().split() if w in _STOP)
    named = [sl.key for sl in slots if sl.role in ("value", "num")]
    if (stop_keys and not kept) or prose_words > max(3, 2 * len(value_keys) + 1):
        # a sentence that ends in two or more metrics triage knows is still their record
        plan.prose = not (len(named) >= 2 and all(known_key(k) for k in named))
    if plan.tallies >= 2 and plan.tallies > kept:
        plan.prose = True  # `processed 74542 tokens with 5600 phrases; found: 16018 phrases`: a tally of the data
    if slots and slots[0].role == "value" and _EXCEPTION_NAME.match(slots[0].key):
        plan.prose = True  # `KeyError: 8`: the exception a traceback ends in, and its argument (no metric)
    if line[:4] in ("Done", "done") and _DONE_IN.match(line):
        plan.prose = True  # `Done, 30.58s`: how long a finished stage (feature extraction, a distance matrix) took
    if _CODE.match(line):
        plan.prose = True  # `return 10`, `for i in range(10):`: source code pasted into a log
    if "--" in line and len(_CLI_OPTION.findall(line)) >= 2:
        plan.prose = True  # `--epoch 300 --batch-size 32 --learning-rate 0.001`: the command that started the run
    if ".py" in line and _SCRIPT_COMMAND.match(line):
        plan.prose = True  # `python train.py -layers 4 -learning_rate 2`: the command that started the run
    if "=" in line and _ENV_COMMAND.match(line):
        plan.prose = True  # `BS=32 LR=3e-4 python3 train.py`: settings passed to the command as its environment
    if line.rstrip()[-1:] in ("?", "\uff1f") and _ASKED.search(line.rstrip()):
        plan.prose = True  # `Step: 229k的时候Loss: 0.2852，一直没有下降，为什么？`: a question about the numbers it quotes
    return plan


# A long description that gives its metric's abbreviation in parentheses, then at most two words (which
# variant): `Mean Per Joint Position Error (MPJPE) P_Agg`; the abbreviation is two or more capitals
_ACRONYM_NAMED = re.compile(r"\(([A-Z][A-Z0-9@-]*[A-Z0-9])\)((?:\s+\S+){0,2})\s*$")


# A stage's end and its duration, nothing else: `Done, 30.58s`, `done in 4.1 sec.`
_DONE_IN = re.compile(r"^[Dd]one\b[\s,:!.]*(?:in\s+|after\s+)?\d[\d.]*\s*(?:s|sec|secs|seconds|ms|min)\.?\s*$")


# A line that ends by asking: a question mark (ASCII or full-width) right after a word, not after a blank
# or a number (`ETA ?` in a progress line is a value not known yet)
_ASKED = re.compile(r"(?:[^\W\d_]|[\u3000-\u303f\uff01-\uff5e])[?\uff1f]+$")


def _nested_lead_counters(toks: list[tuple[str, str]], slots: list[Slot]) -> None:
    """`1|54|Loss: 1.07`: two bare whole numbers, each closed by a bar, open a line of named metrics.
    Counters printed side by side go from the outer loop to the inner one, so the first is the
    epoch and the second the step within the run (torchtune's progress-bar description)."""
    if len(slots) < 3 or slots[0].role != "step" or slots[0].key or slots[1].role != "skip" \
            or not any(sl.role == "value" for sl in slots[2:]):
        return
    lead = [t for t in toks[:5] if t[0] != "sp"][:4]
    if len(lead) == 4 and lead[0][0] == lead[2][0] == "num" and lead[1] == lead[3] == ("sep", "|") \
            and lead[0][1].isdigit() and lead[2][1].isdigit():
        slots[0], slots[1] = Slot("epoch"), Slot("step")


def _counter_then_value(toks, i: int, text: str, unit: str, key: str, slots: list, nxt) -> bool:
    """A whole number right after a metric's name and right before a decimal one (`Train loss 0
    48.220909`, `Validation loss 0: 37.06`) counts the iterations; the decimal is the metric. Only
    where the line has no counter of its own."""
    if unit or not text.isdigit() or not key or any(sl.role in ("step", "epoch", "batch") for sl in slots):
        return False
    j, tok = nxt(i + 1)
    if tok is not None and tok[1] == ":":
        j, tok = nxt(j + 1)
    if tok is None or tok[0] != "num" or not any(ch in tok[1] for ch in ".eE"):
        return False
    _, after = nxt(j + 1)
    return (after is None or after[1] != "/") and known_key(key, loose=True)


def _split_pair(words: list[str]) -> tuple[str, str] | None:
    """`Train/Valid ACC` -> (`Train ACC`, `Valid ACC`): a name that joins two splits with a slash."""
    for i, w in enumerate(words):
        a, sep, b = w.partition("/")
        if sep and _split_of([a]) and _split_of([b]) and _split_of([a]) != _split_of([b]):
            rest = " ".join(words[:i] + words[i + 1:])
            if rest:
                return f"{a} {rest}", f"{b} {rest}"
        if sep and {a.lower(), b.lower()} & _GAN_GEN and {a.lower(), b.lower()} & _GAN_DIS:
            rest = " ".join(words[:i] + words[i + 1:])
            if rest:  # `Gen/Dis Loss: 2.33/0.75`: the generator's and the discriminator's, in the name's order
                return f"{a} {rest}", f"{b} {rest}"
    return None


_GAN_GEN = frozenset(("g", "gen", "generator"))
_GAN_DIS = frozenset(("d", "dis", "disc", "discriminator", "critic"))


def _counts_things(number: str, toks: list[tuple[str, str]], noun, jn: int, nxt) -> bool:
    """The number before `noun` (at token jn) counts things: `74542 tokens`, `499 train steps`. Things are
    counted in whole numbers, or with a magnitude after them (`1.2M tokens`): a value with decimals before a
    count's noun is a measurement whose name comes after it (`loss 2.40 tokens 1000`)."""
    if noun is None or noun[0] != "word" or ("." in number and not number[-1:].isalpha()):
        return False
    if noun[1].lower() in _COUNT_NOUNS:
        return not (jn + 1 < len(toks) and toks[jn + 1][1] == "/")  # (`tokens/s` is a rate's unit)
    if _split_of([noun[1]]):  # `Ran 499 train steps in 5.77 secs`: a split's steps, counted
        _, after = nxt(jn + 1)
        return after is not None and after[0] == "word" and after[1].lower() in ("steps", "iterations")
    return False


def _lone_number_after(toks: list[tuple[str, str]], j: int) -> bool:
    """The tokens from j are one number and then the end of the line or a separator."""
    j = _skip_sp(toks, j)
    if j >= len(toks) or toks[j][0] != "num":
        return False
    j = _skip_sp(toks, j + 1)
    return j >= len(toks) or toks[j][0] == "sep"


_CLI_OPTION = re.compile(r"(?:^|\s)--[A-Za-z][\w-]*(?:[\s=]|$)")
# A command line that sets environment variables before the program it runs (`BS=32 LR=3e-4 python3 train.py`)
# A command that runs a Python script with options of one dash (`python train.py -gpuid 0 -learning_rate 2`)
# (the shell's trace or prompt may lead it: `+ python train.py ...` under `set -x`, `$ python train.py ...`)
_SCRIPT_COMMAND = re.compile(r"^\s*(?:[+$]+\s+)?(?:python[\d.]*|torchrun|deepspeed)\s+(?:-\w\s+)?[\w./-]+\.py(?:\s+-{1,2}[A-Za-z]|\s*$)")
# (the program is followed by its script or options, never by another `name=value`: `loss=0.01, sh degree=3`
# is a bar's description of two values whose second name opens with the word `sh`)
_ENV_COMMAND = re.compile(r"^\s*(?:[A-Za-z_]\w*=\S*\s+)+(?:python[\d.]*|torchrun|accelerate|deepspeed|bash|sh|"
                          r"srun|mpirun|CUDA_VISIBLE_DEVICES=\S*)(?:\s(?![\w ]*=)|$)")


_NOT_PART = {"result", "results", "metric", "metrics", "summary", "score", "scores", "stats", "statistics",
             "overall", "total", "all", "avg", "average", "mean", "final", "best", "note", "warning"}


def _is_tag(word: str) -> bool:
    """An upper-case tag naming a part of the data (`PER`, `FOREST`, `B-LOC`), not a metric, a
    counter, a split or a log level: what opens a per-class line of metrics."""
    w = word.strip("()[]")
    return len(w) >= 2 and w.isupper() and w.replace("-", "").replace("_", "").isalpha() \
        and _key_role(w) == "value" and not known_key(w, loose=True) and w.lower() not in _NOT_METRIC \
        and w.lower() not in _NOT_PART and w not in ("INFO", "WARNING", "WARN", "DEBUG", "ERROR", "CRITICAL", "NOTICE", "TRACE", "SUCCESS")


def _per_part(key: str) -> tuple[str, str] | None:
    """(`<metric>/<part>`, split) for a metric of one part of the data (`Accuracy of plane`,
    `test acc for 鸟 (bird)`): a metric word, `of`/`for`, then one to three words naming the part."""
    words = key.split()
    low = [w.lower() for w in words]
    j = next((i for i, w in enumerate(low) if w in ("of", "for")), -1)
    if j < 1 or j > 2 or not 1 <= len(words) - j - 1 <= 3 or low[j - 1] not in _PART_METRICS:
        return None
    lab = _split_of(words[:1]) if j == 2 else ""
    if j == 2 and not lab:
        return None
    tail = [w.strip("()") for w in words[j + 1:]]
    if any(not w or w.lower() in _STOP or w.lower() in ("of", "for") or any(c.isdigit() for c in w) for w in tail):
        return None
    return f"{words[j - 1]}/{'_'.join(tail)}", lab


_PART_METRICS = {"loss", "acc", "accuracy", "err", "error", "precision", "recall", "f1", "iou", "ap", "miou", "dice"}


def _counts_words(toks: list[tuple[str, str]], j: int) -> bool:
    """The tokens from toks[j] are a counter word and more words up to a separator or the end
    (`1 epoch average loss ,`, `5 epochs in total`): a phrase the number counts, not the next key
    (`0.5 epoch 3`, `0.52 batch time 0.3`)."""
    while j < len(toks) and toks[j][0] == "sp":
        j += 1
    if j >= len(toks) or toks[j][0] != "word" or _key_role(toks[j][1]) not in ("step", "epoch", "batch"):
        return False
    words = 0
    j += 1
    while j < len(toks) and toks[j][0] in ("word", "sp"):
        words += toks[j][0] == "word"
        j += 1
    return words > 0 and (j >= len(toks) or toks[j][0] in ("sep", "dash"))


def _named_after(toks: list[tuple[str, str]], j: int) -> tuple[str, int] | None:
    """(name, index of its last word) when the words from toks[j] up to the next separator (or the
    end) are a metric the alias table names (`3438 src tok/s;`, `0.93 acc |`), else None."""
    words: list[str] = []
    last = j
    while j < len(toks) and toks[j][0] in ("word", "sp") and len(words) <= 3:
        if toks[j][0] == "word":
            words.append(toks[j][1])
            last = j
        j += 1
    if not words or len(words) > 3 or (j < len(toks) and toks[j][0] not in ("sep", "dash")):
        return None
    name = " ".join(words)
    return (name, last) if _key_role(name) == "value" and known_key(name) else None


# A line of Python source: a statement keyword in lower case, then a blank, not a key (`return: 5`).
_CODE = re.compile(r"^(?:return|yield|assert|raise|import|def|class|while|if|elif|with|lambda|del)"
                   r" (?![:=])|^for \w+(?:, \w+)* in |^from [\w.]+ import |^\w+(?:\.\w+)* = [\w.]+\(|^print\("
                   r"|^\s*[A-Za-z_]\w*(?:\.\w+)*(?:\[[^\]]*\])? [-+*/]= [A-Za-z_]"  # `total_loss += loss.data[0]`
                   r"|^<(?:function|bound method|class|built-in function|module|functools\.partial)[ (]")  # a repr


def _name_split(slots: list[Slot], word: str, roles: tuple[str, ...] = ("value",)) -> None:
    """Put the split `word` before the keys of these slots that do not name a split of their own."""
    for sl in slots:
        if sl.role in roles and not SPLIT_WORDS.search(sl.key):
            sl.key = f"{word} {sl.key}"


def _label_by_pass_times(slots: list[Slot]) -> None:
    """`loss 2.43 | train 2.9s | Acc 45.8% | infer 5.5s`: when a line times two passes of different
    splits, each pass's time closes its group: the values before `infer 5.5s` (back to the previous
    pass time) were measured by that evaluation."""
    times = [(k, _split_of(sl.key.split()[:1])) for k, sl in enumerate(slots)
             if sl.role == "value" and sl.unit in _PLAIN_TIME and len(sl.key.split()) == 2
             and sl.key.endswith(" time") and _split_of(sl.key.split()[:1])]
    if len({lab for _, lab in times}) < 2:
        return
    start = 0
    for k, lab in times:
        for sl in slots[start:k]:
            if lab == "eval" and sl.role == "value" and not SPLIT_WORDS.search(sl.key):
                sl.key = "val " + sl.key
        start = k + 1


_EPISODE_WORDS = {"episode", "episodes", "ep", "eps_num", "game", "games"}
_EPISODE_VALUES = {"reward", "rewards", "return", "returns", "score", "total reward", "total_reward", "ep_reward"}
_EPISODE_MEANS = {"avg", "average", "mean", "running avg", "running average", "running mean"}
# a mean of the episodes' scores named with what it averages, maybe with its window (`Average100 Score`)
_EPISODE_MEAN_OF = re.compile(r"^(?:running[ _])?(?:avg|average|mean)[ _]?(?:\d{1,5}[ _]?)?(?:score|reward|return)s?$")
# the mean length of the episodes so far (`Episode 10  Last length: 13  Average length: 10.64`)
_EPISODE_MEAN_LENGTHS = {"avg length", "average length", "mean length", "avg len", "average len", "mean len",
                         "running length", "running avg length", "running average length"}


def _pairs_inside(toks: list, i: int) -> bool:
    """The bracket opened at toks[i] holds `name: value` pairs (a group), not bare numbers (a list)."""
    for j in range(i + 1, min(len(toks) - 1, i + 400)):
        kind, text = toks[j]
        if text == "]":
            return False
        if kind == "word" and toks[j + 1][1] in (":", "=") and j + 2 < len(toks) \
                and (toks[j + 2][0] == "num" or toks[j + 2][0] == "sp" and j + 3 < len(toks) and toks[j + 3][0] == "num"):
            return True
    return False


def _pairs_in_parens(toks: list, i: int) -> bool:
    """The parenthesis opened at toks[i] holds a `name: value` pair before it closes."""
    for j in range(i + 1, min(len(toks) - 2, i + 40)):
        if toks[j][1] == ")":
            return False
        if toks[j][0] == "word" and toks[j + 1][1] in (":", "=") \
                and (toks[j + 2][0] == "num" or toks[j + 2][0] == "sp" and j + 3 < len(toks) and toks[j + 3][0] == "num"):
            return True
    return False


# Words that make a parenthesis after a value its running statistic (`loss 0.52 (avg: 0.61)`), not another metric
_PAREN_STATS = frozenset({"avg", "average", "mean", "ema", "running", "smooth", "smoothed", "moving", "median",
                          "global", "std", "min", "max", "best", "last", "cur", "current", "val", "value"})


def _paren_split_word(prev: Slot, toks: list, i: int) -> str:
    """The split word of a split-named value (`Val Loss`) that the parenthesis opened at toks[i] right after
    it extends: it holds `name: value` (`(Acc: 50.5%)`) where the name is one metric of its own, known to the
    alias table and not the value's running statistic. '' otherwise."""
    if prev.role != "value" or not prev.key:
        return ""
    words = prev.key.split()
    if len(words) < 2 or not _split_of(words[:1]):
        return ""
    j = i + 1
    if j < len(toks) and toks[j][0] == "sp":
        j += 1
    if j + 2 >= len(toks) or toks[j][0] != "word" or toks[j + 1][1] not in (":", "="):
        return ""
    name = toks[j][1]
    if name.lower() in _PAREN_STATS or _split_of([name]) or name.lower() in (w.lower() for w in words[1:]) \
            or _key_role(name) != "value" or not known_key(name):
        return ""
    return words[0]


def _per_episode(slots: list) -> None:
    """`Episode 120, Reward: 35.0`: a line that counts episodes prints what each episode returned.
    Its plain `reward` (or `return`, `score`) is the episode's reward, not the per-sample reward of
    an RLHF batch that the bare name means elsewhere."""
    if not any(sl.role in ("step", "epoch", "skip") and sl.key.lower().strip(" :=#[]") in _EPISODE_WORDS for sl in slots):
        return
    # (a named mean beside the episode's own return keeps its name: `Return: 3.0, Mean Return (100): 1.75`)
    own = any(sl.role == "value" and sl.key.lower().strip(" :=") in _EPISODE_VALUES for sl in slots)
    for sl in slots:
        if sl.role == "value" and sl.key.lower().strip(" :=") in _EPISODE_VALUES:
            sl.key = "episode reward"  # (`Total reward`, `Score`, `return`: what the episode returned)
        elif sl.role == "value" and (sl.key.lower().strip(" :=.") in _EPISODE_MEANS
                                     or not own and _EPISODE_MEAN_OF.match(sl.key.lower().strip(" :=."))):
            sl.key = "average reward"  # (`Episode 300  Avg: -19.23`: the running mean of the episodes' returns;
            # `Episode 100\tAverage Score: 13.03`, `Average100 Score`: the mean of the last N episodes' scores)
        elif sl.role == "value" and sl.key.lower().strip(" :=.") in _EPISODE_MEAN_LENGTHS:
            sl.key = "average episode length"  # (how many steps the episodes lasted, on average)


_EXCEPTION_NAME = re.compile(r"^[A-Z]\w*(?:Error|Exception)$")
# TF Estimator writes the metrics of each evaluation as one line (`Saving dict for global step 312: ...`)
_ESTIMATOR_EVAL = re.compile(r"\bSaving dict for global step\b")
_SPLIT_NAMED = re.compile(r"(?i)^(?:eval|val|valid|validation|test|dev|train|training)[_/\s-]")
# A tag under a split's namespace, TensorBoard's and W&B's convention (`train/ctc`, `eval/s2s`, `val/psnr_y`): the
# split says it was measured on that data, whatever its leaf is called
_SPLIT_TAG = re.compile(r"(?i)^(?:eval|val|valid|validation|test|dev|train|training)/([A-Za-z][A-Za-z0-9_@.-]{0,40})$")


def _split_namespaced(key: str) -> bool:
    """A split-namespaced tag (`_SPLIT_TAG`) whose leaf is no setting (`train/batch_size`, `train/loss_weight`)."""
    m = _SPLIT_TAG.match(key)
    if m is None:
        return False
    leaf = set(re.split(r"[_.-]", m.group(1).lower()))
    return _SETTING_WORDS.isdisjoint(leaf) and _key_role(m.group(1)) == "value" \
        and leaf.isdisjoint({"size", "batch", "epochs", "steps", "seed", "workers", "lr_decay", "dir", "path"})


def _gan_pair(slots: list) -> None:
    """`G: 2.06 | D: 0.05 | GP: 0.50`: a line that prints values named by the letters G and D (both)
    prints a GAN's generator and discriminator losses, as its training loops abbreviate them."""
    keys = [sl.key for sl in slots if sl.role == "value"]
    if "G" not in keys or "D" not in keys:
        return
    for sl in slots:
        if sl.role == "value" and sl.key in ("G", "D"):
            sl.key += " loss"


def _prf_triple(slots: list) -> None:
    """`acc: 0.97, p: 0.78, r: 0.73, f: 0.75`: a line that prints values named by the letters P, R and F
    (all three) prints a precision, a recall and their F-score, as NER and tagging tools abbreviate them."""
    def letter(key: str) -> str:  # (`test p`: the split word the line's label put before it)
        words = key.lower().split()
        return words[-1] if all(w in _PRF_SPLITS for w in words[:-1]) else ""

    keys = {letter(sl.key) for sl in slots if sl.role == "value"}
    if not {"p", "r"} <= keys or not keys & {"f", "f1"}:
        return
    full = {"p": "precision", "r": "recall", "f": "f1"}
    for sl in slots:
        if sl.role == "value" and letter(sl.key) in full:
            sl.key = sl.key[:-1] + full[letter(sl.key)]


_PRF_SPLITS = {"train", "training", "dev", "val", "valid", "validation", "test", "testing", "eval"}


def _label_from_first_key(plan: Plan) -> None:
    """`test Loss: 2.4 Top-1 Acc: 4.1`: a split word that opens the first key names the line's split
    when no other key on the line names its own (`train loss 2.1, val loss 2.3` keeps both)."""
    slots = [sl for sl in plan.slots if sl.role in ("value", "num", "den")]
    keys = [sl.key.split() for sl in slots if sl.role != "den"]
    # (`Sample 1, validation pixAcc: 95.1%, mIoU: 33.2%`: the first key that names a metric opens it;
    # a count before it names none)
    lead = 0
    while lead < len(keys) - 2 and len(keys[lead]) == 1 and not _split_of(keys[lead]) \
            and not known_key(keys[lead][0], loose=True):
        lead += 1
    keys = keys[lead:]
    if len(keys) < 2 or len(keys[0]) < 2:
        return
    lab = _split_of(keys[0][:1])
    if lab and not any(_split_of(k) or SPLIT_WORDS.search(" ".join(k)) for k in keys[1:]):
        plan.label = lab
        first = " ".join(keys[0])
        for sl in slots:
            if sl.key == first:
                sl.key = " ".join(keys[0][1:])


# What a model scores on data it was not fitted to (an image's quality, a classifier's or a regressor's
# error, a ranking's area): printed after the held-out loss with no split word, it is that split's too
_HELD_OUT_SCORES = frozenset(("accuracy", "psnr", "ssim", "lpips", "auc", "f1", "macro_f1", "dice", "miou", "iou",
                              "mae", "rmse", "precision", "recall", "wer", "cer", "bleu", "perplexity", "map"))


def _scores_after_eval(slots: list[Slot]) -> None:
    """`Epoch 1 | Train Loss: 0.09 | Val Loss: 0.05 | PSNR: 31.15`: on a line whose keys name the training
    split, then a held-out one, a score after the held-out key that names no split of its own is measured on
    that held-out split (the training pass prints its loss; the scores come from the evaluation after it).
    Only scores (PSNR, accuracy, AUC, F1, ...), never a rate, a time or a count; a later split word ends it."""
    from triage.ingest.aliases import table

    tab = table()
    seen_train = False
    held_out = ""
    for sl in slots:
        if sl.role not in ("value", "num"):
            continue
        split = _split_of(sl.key.split()) if SPLIT_WORDS.search(sl.key) else ""
        word = sl.key.split()[0]
        if not split and " " in sl.key:
            # a loss whose split word is one the alias table knows but the split words do not (another
            # language's: `loss entrenamiento=..`, `loss validación=..`): the table says which split it names
            name = tab.resolve(sl.key, "text").name
            split, word = {"loss": ("train", word), "eval/loss": ("eval", "val")}.get(name, ("", word))
        if split == "train":
            seen_train, held_out = True, ""
        elif split == "eval":
            held_out = word if seen_train and " " in sl.key else ""
        elif held_out and tab.resolve(sl.key, "text").name in _HELD_OUT_SCORES:
            sl.key = f"{held_out} {sl.key}"


# A split word inside a key (`val_loss`, `Loss/train`, `valLoss`): the key names its own split.
SPLIT_WORDS = re.compile(r"(?i)(?:^|[\W_])(?:val|vali|valid|validation|eval|evaluation|test|testing|dev|cv|train|training)(?:$|[\W_])"
                         r"|^(?:val|eval|test|train)[A-Z]")


def _best_of_score(key: str) -> bool:
    """`best_acc1`, `best val loss`: a best-so-far key whose rest names a score the alias table knows (not a
    setting: `best lr` is the learning rate a search picked)."""
    from triage.ingest.aliases import table

    rest = _BEST.sub("", key, count=1).strip(" _-/:")
    return bool(rest) and known_key(rest, loose=True) and table().resolve(rest, "text").name != "learning_rate"


_KNOWN: list = [None, {}]  # (the alias table the answers below are for, {(key, loose): known_key's answer})


def known_key(key: str, loose: bool = False) -> bool:
    """True when the alias table (knowledge/metrics.yaml) names this key: directly, or with `loose`
    also by its words (`Test accuracy`, `Average loss`). Remembered per table: a log asks about the
    same few names on line after line."""
    from triage.ingest.aliases import table

    tab = table()
    if _KNOWN[0] is not tab or len(_KNOWN[1]) > 65_536:
        _KNOWN[0], _KNOWN[1] = tab, {}
    said = _KNOWN[1].get((key, loose))
    if said is None:
        said = _KNOWN[1][(key, loose)] = bool(_known_key(tab, key, loose))
    return said


def _known_key(tab, key: str, loose: bool) -> bool:
    if tab.resolve(key, "text").quality <= (3 if loose else 1):  # printed keys resolve as text
        return True
    # loosely, a key with a loss or an accuracy in its words is one (`loss_bbox`, `rpn_cls_loss`), unless
    # it names a setting of one (`BBOX_REG_LOSS_WEIGHT`, `focal_loss_alpha`)
    return loose and not (key.isupper() and "_" in key) and names_loss_or_accuracy(key) \
        or loose and _qualified_score(key) \
        or loose and "/" in key and key.split("/", 1)[0].lower() in _PART_METRICS  # `IoU/car`: one class's score


_STAT_SUFFIX = re.compile(r"[_ ](?:max|min|std|mean|median)$", re.I)


def names_score(key: str) -> bool:
    """The key's last word is `score` (`cls score`, `Score`): on a line that names an evaluation split,
    what the model scored there. An output's index may follow (old Caffe's `Test score #1: 2.30`: the test
    net's outputs by number, in the order the net declares them)."""
    if key[-1:].isdigit() and "#" in key:
        m = _OUTPUT_INDEX.search(key)
        key = key[: m.start()] if m else key
    return key[-5:].lower() == "score" and (len(key) == 5 or key[-6] in " _-")


_OUTPUT_INDEX = re.compile(r" ?#\d{1,3}$")


def statistic_of_known(key: str) -> bool:
    """A spread statistic of a metric the table knows, its name then the statistic (RLlib's result writes
    `episode_reward_max` and `episode_reward_min` beside `episode_reward_mean`). Printed alone it may be a
    best-so-far note (`roc_auc_max (0.72 --> 0.78)`), so callers take it only where a setting cannot be."""
    from triage.ingest.aliases import table

    m = _STAT_SUFFIX.search(key)
    return m is not None and m.start() > 0 and table().resolve(key[:m.start()], "text").quality <= 1


# Scores that a key names at one level of detail (`pixel_auroc`, `instance_auroc`, `image_f1`), and scores
# that it names for one class, the class's index after it (`iou_1`, `F1_0`, `precision_0`, `recall_1`)
_LEVEL_SCORES = frozenset({"auc", "auroc", "f1", "dice"})
_CLASS_SCORES = _LEVEL_SCORES | {"iou", "precision", "recall", "acc"}
# Image-quality scores named first and then the output they measure, an evaluation comparing a model with a
# baseline on the same images (`PSNR_predicted` beside `PSNR_bicubic`, `ssim_sr`, `psnr_restored`)
_LEAD_SCORES = frozenset({"psnr", "ssim"})


# A detection or retrieval score at an overlap or score threshold written as a fraction after its name, with
# perhaps the stage or head it scores between (`recall_0.5`, `AP@0.75`, `recall_rcnn_0.3`, `mAP_0.5`)
_AT_OVERLAP = re.compile(r"(?i)^(?:m?ap|recall|precision|f1|iou|auc)(?:_[a-z][a-z0-9]*)?[_@ ](?:0\.\d{1,3}|1\.0)$")


def _qualified_score(key: str) -> bool:
    """The key is a score of a model's quality narrowed to a level or a class; a setting never names one."""
    from triage.ingest.aliases import tokens

    words = tokens(key)
    if len(words) < 2 or not _SETTING_WORDS.isdisjoint(words):
        return False
    if key[-1:].isdigit() and _AT_OVERLAP.match(key):
        return True
    if words[-1].isdigit():
        return len(words) == 2 and words[0] in _CLASS_SCORES
    if len(words) == 2 and words[0] in _LEAD_SCORES and words[1].isalpha():
        return True
    return words[-1] in _LEVEL_SCORES


def _scores_a_fit(key: str) -> bool:
    """The key names a loss or an accuracy, by its words or as the alias table reads it (`cost`)."""
    if names_loss_or_accuracy(key):
        return True
    from triage.ingest.aliases import table

    return table().resolve(key, "text").name.removeprefix("eval/") in ("loss", "accuracy", "error")


def names_loss_or_accuracy(key: str) -> bool:
    """The key is a loss, an accuracy, an error or a perplexity by its words (a measurement, never a setting)."""
    from triage.ingest.aliases import tokens

    words = tokens(key)
    if not _SETTING_WORDS.isdisjoint(words):
        return False
    if not _METRIC_WORDS.isdisjoint(words):
        return True
    if any(w[-1:].isdigit() and w.rstrip("0123456789") in _METRIC_WORDS for w in words):
        return True  # `ae_loss1`, `acc2`: one of several terms (heads, outputs) numbered in the order the code sums them
    if "oss" in key and any(_GLUED_LOSS_WORD.match(w) for w in words):
        return True  # `aeloss`, `discloss`, `klloss`: a short lower-case name of a term glued to `loss`
    if "@" in key or any(ch.isdigit() for ch in key):  # `Prec@1`, `top1`: the alias table names an accuracy
        from triage.ingest.aliases import table

        name = table().resolve(key, "text").name
        return name.removeprefix("eval/") in _ACCURACY_NAMES
    return False


_ACCURACY_NAMES = {"accuracy", "accuracy_top5"}
# items split by pipes, each a name, a spaced dash and one number (`Game - 104 | data length - 21`)
_DASH_ITEM = r"[A-Za-z][\w ]*? - (?:[-+]?\d[\d.]*(?:e[-+]?\d+)?|nan|inf)"
# (a counter may lead them, closed by a colon or a pipe: `Epoch 3 : Train Loss - 1.89 | Val Loss - 1.69`)
_DASHED_PIPED = re.compile(r"\s*(?:[A-Za-z]+ ?:? ?\d+(?:/\d+)? ?[:|] ?)?" + _DASH_ITEM
                           + r"(?:\s*\|\s*" + _DASH_ITEM + r")+\s*$", re.I)
_DASHED_PAIR = re.compile(r"([A-Za-z][\w ]*?) - (?=[-+]?\d|nan|inf)", re.I)
_GLUED_LOSS_WORD = re.compile(r"[a-z]{2,6}loss$")


# `Best Valid accuracy: 51%`, `best_val_loss`: the best value so far repeats one already printed
# A launcher's environment echoed at start (`0 - SLURM_JOB_ID: 7151661`, `WORLD_SIZE=8`): settings, never metrics
_ENV_VAR = re.compile(r"(?:SLURM|PMI|OMPI|PBS|LSB|NCCL|CUDA|OMP|MKL|TORCHELASTIC|MASTER|GROUP|ROLE)_[A-Z0-9_]+$"
                      r"|(?:RANK|WORLD_SIZE|LOCAL_RANK|LOCAL_WORLD_SIZE|NODE_RANK)$")
# The heading PaddleOCR and PaddleDetection print before each evaluation's scores (`cur metric, acc: ...`;
# `best metric, ...` then repeats the best of them)
_CUR_METRIC = re.compile(r"(?i)^(?:cur|current)\s+metrics?$")
_BEST = re.compile(r"(?i)^(?:(?:achieve[ds]?|reach(?:ed|es)?|new|found)\s+)?(?:best|max_so_far|lowest|highest)(?:[\s_/-]|$)"
                   r"|^[^\x00-\x7f]{0,4}最[优佳]"  # (`最优验证集损失`, `记录的最优...`: the best, in Chinese)
                   # `Max accuracy: 77.08%`, `max_mAP`: the top of a score checkpoints are picked by, so far
                   r"|^max(?:imum)?[\s_]+(?=(?:acc|accuracy|acc@?1|top-?1|f1|map|miou|iou|dice|auc|bleu)(?![A-Za-z]))")
# ... or after it (Ignite's `Key metric: train_mean_dice best value: 0.41 at epoch: 20`)
_BEST_AFTER = re.compile(r"(?i)[\s_]best[\s_]+(?:value|score)$")
_METRIC_WORDS = {"loss", "acc", "accuracy", "err", "error", "perplexity", "ppl"}
_SETTING_WORDS = {"weight", "weights", "alpha", "beta", "gamma", "coef", "coeff", "factor", "type", "freq",
                  "power", "num", "classes", "eps", "scale", "thresh", "threshold", "margin", "fn", "func",
                  "function", "name", "mode", "reduction", "temperature", "smoothing", "multiplier", "mult",
                  "coefficient", "interval", "every", "clip", "cap", "parameters", "params"}


_ZERO_COMMA = re.compile(r"[-+]?0,\d+$")


def _bracket_counter(slots: list[Slot], idx: list[int], epoch_seen: bool, first: bool = True) -> None:
    """Bare numbers in brackets: `[1,    10]` opening a line is (epoch, batch) (a shape `[1, 1000]` in
    a model summary is not); `[1]` after Epoch is the epoch."""
    if len(idx) == 2 and not epoch_seen and first:
        slots[idx[0]].role = "epoch"
        slots[idx[1]].role = "batch"
    elif len(idx) == 1 and (epoch_seen or first):
        slots[idx[0]].role = "batch" if epoch_seen else "epoch"


def to_number(text: str) -> float:
    # a group of thousands never opens with 0: `0,523` (or `-0,5`) is a decimal comma, not 523
    t = text.replace(",", ".", 1) if _ZERO_COMMA.match(text) else text.replace(",", "")
    try:
        return float(t)
    except ValueError:
        low = t.lower().lstrip("+")
        low = low.rstrip("x") if low.endswith("x") else low  # `nanxxx`, `infxxx`: x-filled format
        low = low[:1] + low[2:] if low.startswith("-.") else low[1:] if low.startswith(".") else low  # YAML `-.inf`
        if low.lstrip("-") in ("nan", "nan.0"):
            return float("nan")
        if low.lstrip("-").startswith("inf"):
            return float("-inf") if low.startswith("-") else float("inf")
        if "#" in low:  # MSVC: 1.#QNAN, 1.#IND (NaN), 1.#INF
            return (float("-inf") if low.startswith("-") else float("inf")) if "#inf" in low else float("nan")
        raise


@dataclass
class Record:
    values: dict[str, float]
    step: float | None = None
    epoch: float | None = None
    batch: float | None = None
    total: float | None = None
    label: str = ""


def _one_step_counter(slots: list[Slot]) -> None:
    """Two step counters on one line: the one `_step_rank` puts first is the line's step, the
    other is dropped (a counter followed by its total is a place within a pass)."""
    at = [k for k, sl in enumerate(slots) if sl.role == "step"]
    if len(at) < 2:
        return

    def rank(k: int) -> int:
        if k + 1 < len(slots) and slots[k + 1].role == "total":
            return 4 if _inner_loop(slots[k].key) else 3
        return _step_rank(slots[k].key)

    best = min(at, key=lambda k: (rank(k), -k))  # (a tie: the later one, as before)
    lead = at[0]
    if slots[lead].key.lower().strip(" :=#[]") in _EPISODE_WORDS and best != lead \
            and any(sl.role == "value" for sl in slots[lead:best]):
        # `Episode: 5/100, Reward: 12.0, Step: 12`: a step count printed after the episode's own values is how
        # long that episode ran, not the run's step; the episode counter is
        best = lead
    for k in at:
        if k != best:
            slots[k].role = "skip"
            if k + 1 < len(slots) and slots[k + 1].role == "total":
                slots[k + 1].role = "skip"


def _one_batch_counter(slots: list[Slot]) -> None:
    """`Epoch: [1/50][1250/11134] Data 0.000 (0.001) Batch 0.450 (0.447)`: two batch counters on one line, one a
    count of its total in brackets and one a word with no total: the bracketed count is the batch; the word
    names how long a batch took (semseg's and the ImageNet example's AverageMeters), no counter."""
    at = [k for k, sl in enumerate(slots) if sl.role == "batch"]
    if len(at) < 2:
        return
    counted = [k for k in at if k + 1 < len(slots) and slots[k + 1].role == "total"]
    if len(counted) != 1:
        return
    for k in at:
        if k != counted[0]:
            slots[k].role = "skip"


_MAIN_LOOP_WORDS = frozenset({"global", "total", "train", "training", "overall", "current", "cur", "optimizer", "opt"})


def _inner_loop(key: str) -> bool:
    """A counter named for one phase of a step (`GRPO iter 1/4`, `PPO epoch 2/4`, `inner step 3/5`):
    the updates an algorithm repeats on one batch, not the run's step, beside `Step 12/500`."""
    words = key.lower().split()
    return len(words) > 1 and words[0] not in _MAIN_LOOP_WORDS


def _step_rank(key: str) -> int:
    """Which of two step counters on one line is the log's step: a global count first, then the
    iteration (`iter 101 step 50`: litgpt counts micro-batches by iter and optimizer steps by step;
    the iteration never repeats), then any other."""
    k = key.lower().split()[-1] if key.strip() else ""
    if k in ("global_step", "globalstep", "gstep", "total_steps_done") or key.lower().startswith("global"):
        return 0
    if k in ("iter", "iters", "iteration", "iterations", "it", "itr"):
        return 1
    return 2


def apply(plan: Plan, nums: list[str]) -> Record | None:
    """The values of one line, given its template's plan and its numbers in order."""
    if len(nums) != len(plan.slots):
        return None
    rec = Record({}, label=plan.label)
    pending_num: tuple[str, float] | None = None
    for slot, text in zip(plan.slots, nums):
        role = slot.role
        if role == "skip":
            continue
        try:
            v = to_number(text)
        except ValueError:
            continue
        if role == "value":
            rec.values[slot.key] = v
        elif role == "step":
            rec.step = v
        elif role == "epoch":
            rec.epoch = v
        elif role == "batch":
            rec.batch = v
        elif role == "total":
            if rec.total is None or slot.key == "" or _key_role(slot.key) in ("batch", "step"):
                rec.total = v
        elif role == "num":
            pending_num = (slot.key, v)
        elif role == "den" and pending_num is not None:
            key, num = pending_num
            rec.values[key] = num / v if v else float("nan")
            pending_num = None
    if len(plan.paren_avgs) >= 2:
        _sums_to_means(plan, nums, rec)
    return rec


def _decimals_step(text: str) -> float:
    """Half the last printed place of a number (`1.9497` -> 0.00005): how far rounding may have moved it."""
    t = text.rstrip("%")
    dot = t.find(".")
    return 0.5 * 10.0 ** -(len(t) - dot - 1) if dot >= 0 and t[dot + 1:].isdigit() else 0.5


def _sums_to_means(plan: Plan, nums: list[str], rec: Record) -> None:
    """`Loss:140.3778(1.9497) Top1:4913.281(68.240%) Top5:6062.500(84.201%)`: a meter prints its value and
    its running average in brackets (`val (avg)`), and the value, the current batch's, is what the line
    reads. But where every such pair on the line has one ratio, a whole number n (here 72) the same for a
    loss and its accuracies, the values are the meters' running sums over n batches (sum = n x avg; a
    batch's own loss and accuracy are never one multiple of their averages): the averages in brackets are
    then the line's values. Rounding of both printed numbers is allowed for; a bracket of zero decides nothing."""
    lo, hi = 0.0, float("inf")
    pairs = []
    for vi, ai in plan.paren_avgs:
        if vi >= len(nums) or ai >= len(nums) or plan.slots[vi].role != "value" or plan.slots[ai].role != "skip":
            return
        try:
            v, a = to_number(nums[vi]), to_number(nums[ai])
        except ValueError:
            return
        if not (a > 0 and v > 0) or v != v or a == float("inf") or v == float("inf"):
            return
        dv, da = _decimals_step(nums[vi]), _decimals_step(nums[ai])
        if da >= a:
            return
        lo, hi = max(lo, (v - dv) / (a + da)), min(hi, (v + dv) / (a - da))
        pairs.append((plan.slots[vi].key, a))
    n = math.ceil(lo - 1e-9)
    if hi < lo or hi - lo > 0.5 or n < 2 or n > hi + 1e-9:
        return  # (no shared ratio, one too loose to say, or 1: the value and its average agree anyway)
    for key, a in pairs:
        rec.values[key] = a


def unplaced_values(lines: Iterable[str], limit: int = 20_000) -> tuple[int, str, list[str]] | None:
    """For a log that read no record: the largest group of lines (at least 3, among the first `limit`, not
    all alike) that print two values or more in one shape, none under a metric name triage knows and none on a counter
    (`seed 0, valid best 0.83, test 0.81` a line per seed). Returns (lines in the group, its first
    line, the names it prints), or None. It explains the empty reading; it reads nothing itself."""
    groups: dict[str, list] = {}
    for i, line in enumerate(lines):
        if i >= limit:
            break
        if len(line) > 2000 or not any(ch.isdigit() for ch in line):
            continue
        c = clean(line)
        tpl = shape(c)[0]
        g = groups.get(tpl)
        if g is None:
            plan = parse(c)
            names = [s.key for s in plan.slots if s.role == "value"]
            if len(names) < 2 or plan.prose or plan.progress or plan.is_record:
                groups[tpl] = [0, "", [], set()]  # (a shape with nothing to say: counted nowhere)
                continue
            g = groups[tpl] = [0, line.strip(), names, set()]
        if g[1]:
            g[0] += 1
            if len(g[3]) < 2:
                g[3].add(c)
    # (a group whose lines are all alike, a setting printed again at each launch, measures nothing)
    best = max((g for g in groups.values() if len(g[3]) >= 2), key=lambda g: g[0], default=None)
    if best is None or best[0] < 3:
        return None
    return best[0], best[1], best[2]


# ---------------------------------------------------------------------------------- values left unread
# What counts as a value on a line the reader took nothing from (the accounting of skipped lines, and
# bench/dropped.py's audit of it). A *name/value pair* is a name (a word that opens with a letter) joined to
# a number by `:` or `=` (`Total: 1.99`, `loss=nan`), or a metric name the alias table knows, or a counter
# word, then blanks and a number (`loss 2.31`, `epoch 3`). A number is a decimal, scientific or nan/inf
# spelling, a unit allowed after it (`%`, `ms`, `it/s`, `GB`); never part of a date, a clock time, a version
# (`2.1.0`) or a word (`fp16`, `model_3.pth`). A line of two numbers or more and nothing else counts too. A
# progress bar's own parts (share done, bar, count, times, rate) are no values; its postfix is.
COUNTER_NAMES = frozenset({
    "epoch", "epochs", "step", "steps", "iter", "iters", "iteration", "iterations", "it", "batch", "batches", "round",
    "rounds", "episode", "episodes", "ep", "global_step", "globalstep", "update", "updates", "generation", "gen",
    "fold", "trial", "run", "stage", "phase", "cycle", "idx", "index", "n_iter", "num_steps", "total_steps",
    "max_steps", "num_epochs", "total"})
_V_NUMBER = (r"[-+]?(?:\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|[Nn]a[Nn]|NAN|[Ii]nf(?:inity)?|INF)"
             r"(?:/\d+)?"  # (a counter's total: `1/10`)
             r"(?:\s?(?:%|ms|us|s|sec|min|h|GB|GiB|MB|MiB|KB|it/s|s/it|tok/s|x)(?![A-Za-z]))?"
             r"(?![\w.:/-]*\w)")  # (`2.1.0`, `12:30`, `2023-01`, `fp16`, `3.pth`: no number of its own)
_V_NAME = r"[A-Za-z][\w./@%-]*"
_V_JOINED = re.compile(r"(?<![\w./@%-])(" + _V_NAME + r")\s*[:=]\s*(" + _V_NUMBER + r")")
_V_SPACED = re.compile(r"(?<![\w./@%-])(" + _V_NAME + r"(?: [A-Za-z][\w/-]*)?)\s+(" + _V_NUMBER + r")")
_V_ONLY_NUMBERS = re.compile(r"^[\s|,;]*(?:" + _V_NUMBER + r")(?:[\s|,;]+(?:" + _V_NUMBER + r"))+[\s|,;]*$")
_V_NUMBERS = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
# a progress bar's own parts: tqdm's share done and bar, its count, its times and rate; a bar drawn in brackets
# (`[=====>....]`, `[>>>-----]`) with its count, rate, elapsed time and ETA
_V_BAR = re.compile(r"\d{1,3}%\s*\|[^|]*\||\b\d+/\d+(?=\s*\[)|\[[\d:]+<[\d:?]*(?:,\s*[\d.?]+\s*(?:s/it|it/s))?"
                    r"|\[[=>.\-#█━ ]{4,}\]\s*(?:\d+/\d+)?|[\d.]+\s*(?:task|it|samples?|steps?)/s\b")


def value_pairs(line: str) -> list[tuple[str, str]]:
    """The name/value pairs of a printed line (see above), as (name, number); ("", number) for a line of
    numbers alone."""
    c = clean(line)
    if "/" in c or "[" in c or "%" in c:
        c = _V_BAR.sub(" ", c)
    out: list[tuple[int, str, str]] = []
    taken: set[int] = set()
    for m in _V_JOINED.finditer(c):
        out.append((m.start(), m.group(1).rstrip("./-"), m.group(2)))
        taken.add(m.start(2))
    for m in _V_SPACED.finditer(c):
        if m.start(2) in taken:
            continue
        words = m.group(1).split(" ")
        for k in range(len(words)):  # the longest known name that ends right before the number
            cand = " ".join(words[k:]).rstrip("./-")
            if cand.lower() in COUNTER_NAMES or known_key(cand, loose=True):
                out.append((m.start(), cand, m.group(2)))
                taken.add(m.start(2))
                break
    if not out and _V_ONLY_NUMBERS.match(c):
        return [("", n) for n in _V_NUMBERS.findall(c)]
    return [(name, num) for _, name, num in sorted(out)]


def counter_name(name: str) -> bool:
    """A counter's name, alone or as the last word (`epoch`, `global_step`, `training epoch`)."""
    low = name.lower().replace("-", "_")
    return low.replace(" ", "_") in COUNTER_NAMES or low.rsplit(" ", 1)[-1] in COUNTER_NAMES


def holds_values(line: str) -> bool:
    """Whether a printed line holds a value that is not a counter (a name/value pair, or numbers alone)."""
    return any(not name or not counter_name(name) for name, _ in value_pairs(line))
