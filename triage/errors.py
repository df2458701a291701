"""The root of every error a person using triage can see, and the command line's exit codes.

Anything that goes wrong because of the input (a log that cannot be read, a knowledge file with a
typo, an unknown ID, a file that cannot be written, a sweep with no runs) raises a subclass of
`TriageError`. Its `str()` is one line that names what is wrong and, where it helps, what to do,
and its `exit_code` is the status the command line ends with. The CLI turns a `TriageError` into
`error: <message>` on stderr in one place (the command group in triage/cli.py); the library
raises it and never prints.

A bug is not a TriageError: it stays a traceback, so it gets reported rather than explained away.

This module imports nothing else of triage, so every layer can raise these (tests/test_layers.py).
"""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """The exit status of every command (each command's --help says which it uses)."""

    OK = 0  # healthy, nothing found, done
    PROBLEMS = 1  # scan/sweep/watch/diff/probe run found problems; search matched nothing
    ERROR = 2  # bad usage, unreadable input, a knowledge error, a file that cannot be written
    NOTHING_READ = 3  # scan read the input but it held nothing to diagnose
    INTERRUPTED = 130  # Ctrl-C
    TERMINATED = 143  # SIGTERM or SIGHUP


class TriageError(Exception):
    """A user-facing error: a one-line message and the exit code of the command that hit it."""

    exit_code: int = ExitCode.ERROR

    @property
    def one_line(self) -> str:
        """The message on one line (the lines of a reason that spans several are joined with spaces)."""
        return " ".join(line.strip() for line in str(self).splitlines() if line.strip()) or type(self).__name__


__all__ = ["ExitCode", "TriageError"]
