"""No pattern of the log readers takes exponential time on a line that nearly matches it.

A printed log can hold anything: a chat template's token ids as one long bracketed list once made a
number-list pattern backtrack for minutes, because its number form could split one run of digits between
two loops. Every compiled pattern at module level in triage is run here on rows built to almost
match the shapes the readers look for (many numbers or name/value pairs with every common separator,
inside every common bracket, ending on a character that breaks the match), each call under a time limit
far above what a linear match needs."""

from __future__ import annotations

import importlib
import pkgutil
import re
import signal

import pytest

import triage
from triage.ingest.lazyre import LazyPattern

LIMIT_S = 2.0  # a linear match of a 1,000-character line takes microseconds

UNITS = ["1", "123456", "1.5", "1e-5", "nan", "ab1", "loss"]
SEPARATORS = [", ", ",", " ", "  ", " | ", ": ", "=", "; ", " - ", "/", ".", "\t", "'"]
BRACKETS = [("", ""), ("[", "]"), ("(", ")"), ("{", "}"), ("| ", " |")]


def _near_misses() -> list[str]:
    rows = [a + sep.join([u] * 45) + b + end for u in UNITS for sep in SEPARATORS for a, b in BRACKETS
            for end in ("!", "")]
    for name, value in (("loss", "1.5"), ("step", "10"), ("x", "0.5e-3")):
        for kv, between in ((": ", ", "), ("=", " "), (" ", " | "), (" = ", ", "), ("=", ",")):
            rows += [between.join(f"{name}{i}{kv}{value}" for i in range(30)) + end for end in ("!", ":", "")]
    rows += [c * 200 + "x" for c in ("1", " ", "-", "=", "1.", "1 ", "a")]
    return rows


def _patterns() -> list[tuple[str, re.Pattern]]:
    """The readers' patterns, and those of every other module that reads a log's text (the error and
    warning matchers, the engine, the renderers), compiled at module level (those compiled at their
    first use, triage.ingest.lazyre, compiled here)."""
    found = []
    for info in pkgutil.walk_packages(triage.__path__, "triage."):
        if info.name.startswith(("triage.cli", "triage.__main__")):
            continue  # (the command line: imports the interactive prompt, reads no log text itself)
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, LazyPattern):
                value = value.compiled()
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                found.append((f"{info.name[len('triage.'):]}.{name}", value))
    return found


class _TooSlow(Exception):
    pass


def _alarm(*_):
    raise _TooSlow


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs a POSIX interval timer")
def test_no_reader_pattern_backtracks_on_a_near_miss():
    rows = _near_misses()
    patterns = _patterns()
    assert len(patterns) > 100  # the readers' patterns were found
    slow = []
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        for where, pattern in patterns:
            for row in rows:
                try:
                    signal.setitimer(signal.ITIMER_REAL, LIMIT_S)
                    pattern.search(row)
                    signal.setitimer(signal.ITIMER_REAL, 0)
                except _TooSlow:
                    slow.append(f"{where} on {row[:60]!r}")
                    break
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert not slow, slow
