"""Read training logs of every common format into one canonical `Run`.

    >>> from triage.ingest import read_run
    >>> run = read_run("trainer_state.json")          # or a directory, a .gz file, or '-' for stdin
    >>> run.format, run.metrics(), run.get("loss").values

`FORMATS` maps each format name to its `Reader` (sniff, read, folder layouts, aliases, priority);
`IngestError` is raised for input that cannot be read, and its str is one line: ``PATH: reason``.
A new format is one module that calls `triage.ingest.contract.register` at import and is imported
once by `triage.ingest.registry`; sniffing, `--format`, folder discovery and the format lists in
`inspect --help` and the README all come from what was registered.

This package imports numpy; `triage.ingest` itself stays light until a name below is used, so the
CLI can import it at start-up without paying for numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from triage.ingest.errors import IngestError

if TYPE_CHECKING:  # pragma: no cover
    from triage.ingest.registry import FORMATS, Reader
    from triage.ingest.run import Run, Series, TextEvent

__all__ = ["read_run", "FORMATS", "IngestError", "Run", "Series", "TextEvent", "Reader", "format_names"]


def read_run(path, fmt: str | None = None) -> "Run":
    """Read a file, a directory holding one run, or '-' (stdin) into a canonical Run.

    ``fmt`` overrides sniffing (any name in FORMATS, or an alias such as 'ndjson', 'tb', 'stdout').
    Raises IngestError (one line: 'PATH: reason') when the input cannot be read.
    """
    from triage.ingest.registry import read_run as _read_run

    return _read_run(path, fmt)


def format_names() -> list[str]:
    from triage.ingest.registry import FORMATS as _F

    return sorted(_F)


def __getattr__(name: str):
    if name in ("FORMATS", "Reader"):
        from triage.ingest import registry

        return getattr(registry, name)
    if name in ("Run", "Series", "TextEvent"):
        from triage.ingest import run

        return getattr(run, name)
    raise AttributeError(f"module 'triage.ingest' has no attribute {name!r}")
