"""The consoles the command line prints through.

Two promises to anyone who pipes triage's output (`| grep`, `| less`, `> report.txt`, a CI log):

* **No hard wrap when stdout is not a terminal.** One logical line per item: a finding, a table
  row, a knob stays on one line, so `triage kb list | grep lora` returns whole rows and a pasted
  knob is not split mid-expression. A terminal wraps at its own width as usual; rich only lays
  out tables and charts for it.
* **No trailing spaces**, in a terminal or not. Rich pads table cells and aligned blocks with
  spaces up to the column edge; those are invisible on screen but make diffs noisy, break
  `grep 'x$'` and end up in pasted bug reports. `TrimmedOutput` drops them as lines are written.
"""

from __future__ import annotations

import re
import sys
from typing import Callable, TextIO

# Wide enough that nothing a renderer prints gets laid out narrower than its content; tables
# and padded blocks are sized to their content (never expanded), so this costs nothing.
NO_WRAP_WIDTH = 10_000

# spaces (and the SGR colour codes a terminal gets between them) before the end of a line
_TRAILING = re.compile(r"(?:[ \t]|\x1b\[[0-9;]*m)+(?=\n)")
_CODES = re.compile(r"\x1b\[[0-9;]*m")
_PENDING = re.compile(r"(?:[ \t]|\x1b\[[0-9;]*m)+\Z")


def _keep_codes(match: re.Match) -> str:
    """Drop the blanks of a trailing run but keep its colour codes (a reset must still happen)."""
    return "".join(_CODES.findall(match.group(0)))


class TrimmedOutput:
    """A text stream that removes trailing blanks from every line written through it.

    `target` is the stream, or a function returning it (so `sys.stdout` is looked up at write
    time, as rich does, and test runners that swap it still capture the output). A run of blanks
    at the very end of one `write` is held back until the next write shows whether a newline
    follows it.
    """

    def __init__(self, target: TextIO | Callable[[], TextIO]):
        self._target = target
        self._held = ""

    @property
    def stream(self) -> TextIO:
        return self._target() if callable(self._target) else self._target

    def write(self, text: str) -> int:
        data = self._held + text
        self._held = ""
        tail = _PENDING.search(data)
        if tail:
            self._held = tail.group(0)
            data = data[: tail.start()]
        data = _TRAILING.sub(_keep_codes, data)
        if data:
            self.stream.write(data)
        return len(text)

    def flush(self) -> None:
        codes = "".join(_CODES.findall(self._held))
        if codes:  # colour codes go out now (a reset must not wait); the blanks wait for what follows
            self.stream.write(codes)
            self._held = _CODES.sub("", self._held)
        self.stream.flush()

    def isatty(self) -> bool:
        try:
            return bool(self.stream.isatty())
        except (AttributeError, ValueError):
            return False

    def fileno(self) -> int:
        return self.stream.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self.stream, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:
        return getattr(self.stream, "errors", None)


def is_terminal(stream: TextIO | None = None) -> bool:
    """Whether output goes to a person's terminal (FORCE_COLOR adds colour, not a terminal)."""
    stream = sys.stdout if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def out_console(file: TextIO | None = None, width: int | None = None, terminal: bool | None = None):
    """The console for data on stdout: laid out for the terminal's width in a terminal, one line
    per item (no wrapping at all) otherwise; trailing blanks removed either way.

    `file`, `width` and `terminal` are for tests and embedding: `terminal=False` gives the pipe
    behaviour, `width` fixes the layout width of a terminal.
    """
    from rich.console import Console

    target = file if file is not None else (lambda: sys.stdout)
    trimmed = TrimmedOutput(target)
    if terminal is None:
        terminal = is_terminal(file)
    if terminal:
        return Console(file=trimmed, soft_wrap=False, width=width)
    return Console(file=trimmed, soft_wrap=True, width=NO_WRAP_WIDTH)


def layout_width(console, cap: int | None = None) -> int:
    """The width to lay a chart or table out in: the console's, at most `cap` (a pipe reports
    NO_WRAP_WIDTH, and a chart 10,000 columns wide helps nobody)."""
    width = int(getattr(console, "width", 80) or 80)
    return min(width, cap) if cap else width


def is_piped(console) -> bool:
    """True for a console made by `out_console` for a pipe (no wrapping, no width)."""
    return int(getattr(console, "width", 0) or 0) >= NO_WRAP_WIDTH
