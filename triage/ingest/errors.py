"""Errors raised by the readers. Kept free of heavy imports: the CLI imports this at start-up."""

from __future__ import annotations

from pathlib import Path

from triage.errors import TriageError


class IngestError(TriageError):
    """A file (or directory) that cannot be read as a run. ``str()`` is one line: ``PATH: reason``."""

    def __init__(self, path: str | Path, reason: str, final: bool = False):
        self.path = str(path)
        self.reason = " ".join(str(reason).split())  # always one line
        # final: the input is surely this format and broken (a cut-short trainer_state.json), so it
        # is not read again as plain text, whose "metrics" would be pieces of the JSON
        self.final = final
        super().__init__(f"{self.path}: {self.reason}")
