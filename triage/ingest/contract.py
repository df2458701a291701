"""The reader contract: everything one log format brings, and the registry it joins.

A format module describes itself with a `Reader` (how to sniff a file, how to read it, the folder
layouts it recognises, its `--format` aliases, its tie-break priority and one line of help) and
calls `register` when it is imported. `triage.ingest.registry` imports the format modules once and
does the rest (sniffing, folder discovery, `--format` resolution, the help and README listings)
from what was registered, so adding a format is one module and no edits elsewhere.

This module stays free of heavy imports (no numpy): every format module imports it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # pragma: no cover
    from triage.ingest.run import Run
    from triage.ingest.source import Source


@dataclass(frozen=True)
class Found:
    """What a folder layout picked in a run folder. Build one with `file`, `folder` or `inside`."""

    path: Path
    fmt: str | None = None  # file: its format (None: sniff it)
    read: Callable[[str], "Run"] | None = None  # folder: reads the whole folder; takes the label to report
    descend: bool = False  # inside: look again, inside `path`
    notes: tuple[str, ...] = ()  # warnings for the run (e.g. "3 runs; read the newest")
    after: Callable[["Run"], None] | None = None  # file: adds what sits beside it (W&B's output.log)

    @classmethod
    def file(cls, path: Path, fmt: str | None = None, notes=(), after=None) -> "Found":
        return cls(path, fmt=fmt, notes=tuple(notes), after=after)

    @classmethod
    def folder(cls, path: Path, read: Callable[[str], "Run"], notes=()) -> "Found":
        return cls(path, read=read, notes=tuple(notes))

    @classmethod
    def inside(cls, path: Path, notes=()) -> "Found":
        return cls(path, descend=True, notes=tuple(notes))


@dataclass(frozen=True)
class Layout:
    """One way a format's run folder looks. Folders try every registered layout in increasing
    `order` and the first one that finds something wins, so a layout that is more specific (an
    MLflow store, a W&B run) takes a lower order than one that any folder might match."""

    order: int
    looks_for: str  # a few words for the "no training log found" error and the README
    find: Callable[[Path], Found | None]


@dataclass(frozen=True)
class Reader:
    """One log format."""

    name: str
    description: str  # one line for `inspect --help` and the README
    sniff: Callable[["Source"], float]  # 0..1: how much the input looks like this format (never raises)
    read: Callable[["Source"], "Run"]
    priority: int = 0  # breaks exact sniff ties: the higher wins (specific formats above generic ones)
    aliases: tuple[str, ...] = ()  # other names `--format` accepts
    layouts: tuple[Layout, ...] = ()
    read_dir: Callable[[Path, str], "Run"] | None = None  # `--format NAME` given a folder: (folder, label)
    suffixes: tuple[str, ...] = ()  # file endings a folder's last-resort pick may read as this format
    fallback: str | None = None  # a sniffed file that fails to read as this is read as that format instead
    sniff_max: float = 1.0  # the highest score `sniff` ever gives: a format that cannot win is not asked


FORMATS: dict[str, Reader] = {}  # name -> Reader, in registration order
ALIASES: dict[str, str] = {}  # alias -> name


def register(reader: Reader) -> Reader:
    """Add a format. Names and aliases are case-insensitive and must not clash with one already known
    (re-registering the same name replaces it, so reloading a module is harmless)."""
    name = reader.name.lower()
    if name != reader.name:
        raise ValueError(f"format name {reader.name!r} must be lower case")
    if name in ALIASES:
        raise ValueError(f"format name {name!r} is already an alias of {ALIASES[name]!r}")
    if name in FORMATS:
        unregister(name)
    for alias in reader.aliases:
        a = alias.lower()
        if a in FORMATS or ALIASES.get(a, name) != name:
            raise ValueError(f"alias {alias!r} of {name!r} is already taken")
    FORMATS[name] = reader
    for alias in reader.aliases:
        ALIASES[alias.lower()] = name
    return reader


def unregister(name: str) -> Reader | None:
    """Remove a format and its aliases (for tests and plugins that add one for a while)."""
    reader = FORMATS.pop(name, None)
    for alias in [a for a, n in ALIASES.items() if n == name]:
        del ALIASES[alias]
    return reader


def by_priority() -> list[Reader]:
    """Every format, the one that wins a sniff tie first (ties of priority: registration order)."""
    readers = list(FORMATS.values())
    return sorted(readers, key=lambda r: -r.priority)


def layouts() -> list[tuple[Layout, Reader]]:
    """Every folder layout in the order folders try them."""
    found = [(lay, r) for r in FORMATS.values() for lay in r.layouts]
    return sorted(found, key=lambda pair: pair[0].order)


# ---------------------------------------------------------------- helpers shared by folder layouts
def latest(paths: list[Path]) -> Path:
    """The newest of numbered folders (checkpoint-500, version_3): highest number, then mtime, then name."""

    def key(p: Path):
        m = re.search(r"(\d+)$", p.name)
        try:
            mt = p.stat().st_mtime
        except OSError:
            mt = 0
        return (int(m.group(1)) if m else -1, mt, p.name)

    return max(paths, key=key)


def mtime(p: Path) -> float:
    try:
        return p.stat().st_mtime
    except OSError:
        return 0.0
