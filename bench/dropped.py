#!/usr/bin/env python
"""Account for every line of printed logs: no line with a value in it may vanish without a count.

    python bench/dropped.py PATH... [--show 3] [--top 40] [--json FILE] [--list FILE]

Every file under each PATH that the reader registry reads as printed text (the `text` reader and its
dialects: HF stdout, Keras, llm.c, nanoGPT, Megatron, torchtune, verl, SB3 stdout) is read once more by
the text reader with a `LineTrace` (triage/ingest/linetrace.py), which notes what became of each line.
Each non-blank line of the reader's lines (after rank tags, wrapped lines and pasted line numbers are
undone) is then accounted as exactly one of:

  row        it gave a record that became a metric row (or is part of one: the rest of a wrapped line, a
             line of a block or table whose record closed later, a line folded into a record);
  event      it is (part of) an error, warning, traceback, overflow or info event;
  skipped    a skip was counted while it was read, or it was counted as a record in the log's shape
             whose values read as no number;
  settings   it was read as an entry of the run's settings (a config block);
  dropped    it gave a record that the passes after the reading removed (echoes, previews, one-off
             lines); counted when those passes counted or merged as many lines as they removed;
  prose      it holds no name/value pair (below);
  counters   its only pairs are counters (`Epoch 3`, `step: 120`): the step axis, no measurement;
  silent     a name/value pair that none of the above accounts for: a value dropped without a count.

A *name/value pair* (`triage.ingest.printed.value_pairs`, the definition the reader counts its unread lines
by) is, on the line as the reader cleans it (colours, timestamps, levels and logger
names gone): a name (a word that opens with a letter, then letters, digits or ``_ . / @ % -``) joined to
a number by ``:`` or ``=`` (blanks allowed around them: ``Total: 1.99``, ``loss=nan``); or a name the alias
table knows as a metric, or a counter word, followed by a number after blanks (``loss 2.31``, ``epoch 3``).
A number is a decimal, scientific or nan/inf spelling, optionally with a unit (``%``, ``ms``, ``s``,
``it/s``, ``GB``); never part of a date, a clock time, a version (``2.1.0``) or a word (``fp16``,
``model_3.pth``). A line of two numbers or more and nothing else (a table's row) counts as values too. A progress bar's own
parts (tqdm's share done, bar, count, times and rate) are no values; its postfix (``loss=0.52``) is.
Every other line is *prose*: text, bars with no values, rules, headers, file paths.

It prints the totals by outcome, the files with silent lines, and the silent lines grouped by their
template (the line with every number as ``#``), largest first, with an example of each (``--show`` per
group). ``--list FILE`` writes every silent line (path, line number, text). Exit status 0 always.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from triage.ingest import printed, registry, textlog  # noqa: E402
from triage.ingest.linetrace import LineTrace  # noqa: E402
from triage.ingest.source import Source  # noqa: E402

TEXT_FORMATS = frozenset({"text", "hf_stdout", "keras_stdout", "llmc", "nanogpt", "megatron", "torchtune", "verl",
                          "sb3_stdout"})
OUTCOMES = ("row", "event", "skipped", "settings", "dropped", "prose", "counters", "silent")
_TEMPLATE_NUM = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_BAR_GLYPHS = re.compile(r"[=>.\-#█━─╸╺ ]{4,}")


def classify_line(line: str) -> str:
    """`prose`, `counters` or `values` for a line the reader gave no outcome (the definition is the
    reader's own, `triage.ingest.printed.value_pairs`, the one it counts unread lines by)."""
    got = printed.value_pairs(line)
    if not got:
        return "prose"
    if all(name and printed.counter_name(name) for name, _ in got):
        return "counters"
    return "values"


def template(line: str) -> str:
    c = _BAR_GLYPHS.sub(" ~ ", printed.clean(line).strip())
    return re.sub(r"\s+", " ", _TEMPLATE_NUM.sub("#", c))[:160]


def account(trace: LineTrace) -> dict[int, str]:
    """The outcome of each non-blank line of a traced read (see the module's docstring)."""
    lines = trace.lines
    n = len(lines)
    rows = Counter(trace.rows)
    row_lines: set[int] = set(rows) | trace.folded_after
    # a record that closed on a later line (a block, a table, a dict over lines) spans the lines between; so does a
    # record whose values all went into a later row (a block echoed by the dict that follows it)
    for at, recs in [*trace.gave.items(), *trace.folded.items()]:
        for first in recs:
            if (first in rows or first in trace.folded_after) and first < at:
                row_lines.update(range(first, at + 1))
            elif first in rows or first in trace.folded_after:
                row_lines.add(at)
    dropped = Counter(line for line in trace.read if line not in trace.folded_after) - rows
    after_counted = sum(dropped.values()) <= trace.merged + trace.counted_after
    event_lines: set[int] = set()
    for ev_line in trace.events:
        event_lines.add(ev_line)
    gave_lines = {first for recs in trace.gave.values() for first in recs} | set(trace.gave)
    # a line read as more of a record that a pass then removed (a digest's block of lines) went with it, and so did
    # the lines between (a block's lines of a name the alias table does not know, which the record spans)
    folded_into = {at: recs for at, recs in trace.folded.items() if at not in recs}
    for at, recs in list(folded_into.items()):
        for first in recs:
            for k in range(first + 1, at):
                if k not in trace.gave and k not in trace.folded:
                    folded_into.setdefault(k, set()).add(first)
    out: dict[int, str] = {}
    for ln in range(1, n + 1):
        text = lines[ln - 1]
        if not text.strip():
            continue
        home = trace.joined.get(ln, ln)
        if home in row_lines or ln in row_lines:
            out[ln] = "row"
        elif home in event_lines:
            out[ln] = "event"
        elif home in trace.skips or ln in trace.near or home in trace.near or home in trace.unread:
            out[ln] = "skipped"
        elif home in trace.settings:
            out[ln] = "settings"
        elif (home in dropped or home in gave_lines or not dropped.keys().isdisjoint(folded_into.get(home, ()))) \
                and after_counted:
            out[ln] = "dropped"
        else:
            kind = classify_line(text)
            if kind == "values" and (home in dropped or home in gave_lines):
                kind = "dropped?"
            out[ln] = {"prose": "prose", "counters": "counters"}.get(kind, "silent" if kind == "values" else kind)
    return out


def audit_file(path: Path) -> tuple[str, dict[int, str], LineTrace] | None:
    """(format, outcomes, trace) of one file the registry reads as printed text, else None."""
    try:
        src = Source.from_path(path)
        if src.size() == 0 or registry.not_a_log(src.head()):
            return None
        fmt = registry.sniff(src)
    except Exception:
        return None
    if fmt not in TEXT_FORMATS:
        return None
    trace = LineTrace()
    try:
        textlog.read(src, fmt=None if fmt == "text" else fmt, trace=trace)
    except Exception as exc:  # a reader failure is the reader's business: say it, go on
        print(f"  {path}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None
    return fmt, account(trace), trace


def files_under(paths: list[str], exclude: list[str]) -> list[Path]:
    out = []
    for p in paths:
        root = Path(p)
        found = [root] if root.is_file() else sorted(q for q in root.rglob("*") if q.is_file())
        for q in found:
            s = str(q)
            if any(x in s for x in exclude):
                continue
            out.append(q)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", help="files or folders (folders are walked)")
    ap.add_argument("--exclude", action="append", default=[], help="leave out paths containing this (repeatable)")
    ap.add_argument("--top", type=int, default=40, help="groups of silent lines to print")
    ap.add_argument("--show", type=int, default=2, help="example lines per group")
    ap.add_argument("--json", help="write the totals, per-file counts and groups as JSON")
    ap.add_argument("--list", help="write every silent line (path<TAB>line<TAB>text)")
    a = ap.parse_args(argv)
    totals: Counter = Counter()
    per_file: dict[str, Counter] = {}
    groups: dict[str, list[tuple[str, int, str]]] = defaultdict(list)
    audited = 0
    for path in files_under(a.paths, a.exclude):
        got = audit_file(path)
        if got is None:
            continue
        audited += 1
        _, outcomes, trace = got
        c = Counter(outcomes.values())
        totals.update(c)
        if c["silent"] or c["dropped?"]:
            per_file[str(path)] = c
        for ln, what in outcomes.items():
            if what in ("silent", "dropped?"):
                text = trace.lines[ln - 1]
                groups[("(read, then removed) " if what == "dropped?" else "") + template(text)].append(
                    (str(path), ln, text))
    print(f"{audited} printed logs, {sum(totals.values())} non-blank lines")
    for k in (*OUTCOMES, "dropped?"):
        if totals[k]:
            print(f"  {k:10s} {totals[k]:8d}")
    silent = totals["silent"] + totals["dropped?"]
    print(f"silent: {silent} lines in {len(per_file)} files")
    ranked = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    for tpl, hits in ranked[:a.top]:
        files = len({p for p, _, _ in hits})
        print(f"\n{len(hits):6d} lines, {files} files: {tpl}")
        for p, ln, text in hits[:a.show]:
            print(f"        {p}:{ln}: {text.strip()[:200]}")
    if a.list:
        with open(a.list, "w", encoding="utf-8") as f:
            for _tpl, hits in ranked:
                for p, ln, text in hits:
                    f.write(f"{p}\t{ln}\t{text.strip()[:300]}\n")
    if a.json:
        doc = {"files": audited, "totals": dict(totals), "silent": silent, "silent_files": len(per_file),
               "per_file": {p: dict(c) for p, c in per_file.items()},
               "groups": [{"template": t, "lines": len(h), "files": len({p for p, _, _ in h}),
                           "examples": [f"{p}:{ln}: {x.strip()[:200]}" for p, ln, x in h[:a.show]]}
                          for t, h in ranked]}
        Path(a.json).write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
