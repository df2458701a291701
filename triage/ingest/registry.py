"""Sniffing, folder discovery and `--format` resolution over the registered formats, and the
listings (`inspect --help`, README) made from them.

Nothing here names a format: each format module registers a `Reader` (triage/ingest/contract.py)
when it is imported, and the modules are imported once, below. The only fixed names are the two
last resorts: `text` (what any readable input can be read as) and `binary` (what sniffing calls an
input no format claims and no text reader can read).
"""

from __future__ import annotations

import os
import re
import textwrap
from dataclasses import replace
from pathlib import Path

from triage.ingest.contract import ALIASES, FORMATS, Found, Layout, Reader, by_priority, layouts, register, unregister
from triage.ingest.errors import IngestError
from triage.ingest.run import Run
from triage.ingest.source import Source, is_binary, is_stream

# Importing a format module registers its formats.
from triage.ingest import csvlog, dvclive, jsondoc, jsonl, mlflow, notebook, textlog, tfevents, wandb  # noqa: F401

__all__ = ["ALIASES", "FORMATS", "Found", "Layout", "Reader", "register", "unregister", "sniff", "discover",
           "resolve_format", "read_run", "not_a_log", "format_names", "format_option_help", "formats_epilog",
           "readme_table"]

TEXT = "text"


# ---------------------------------------------------------------------------------------- sniffing
def sniff(src: Source) -> str:
    """The best format for an input (never fails: 'text' is the last resort, 'binary' for binary
    input no format claims). Equal scores go to the format of higher priority."""
    head = src.head()
    if not head.strip():
        return TEXT
    best, best_score = None, 0.0
    for reader in by_priority():
        if reader.sniff_max <= best_score:
            continue  # it could only tie, and a tie goes to the format asked first
        try:
            score = reader.sniff(src)
        except Exception:  # a sniffer must never stop reading
            score = 0.0
        if score > best_score:
            best, best_score = reader.name, score
    if best is None:
        return "binary" if is_binary(head) else TEXT
    return best


# ------------------------------------------------------------------------------------- directories
# Files that sit beside training logs but are not logs: configs, tokenizers, run labels.
_NOT_LOGS = {
    "config.json", "hparams.yaml", "config.yaml", "training_args.json", "args.json", "trainer_config.json",
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "generation_config.json",
    "adapter_config.json", "preprocessor_config.json", "label.json", "labels.json", "wandb-summary.json",
    "wandb-metadata.json", "requirements.txt", "meta.yaml", "vocab.json", "merges.txt",
}
_COMPRESSED = (".gz",)


MAX_DESCENT = 8  # run folders nest a few levels (wandb/latest-run/files); deeper is a loop or not a run


def discover(root: Path, label: str, _seen: tuple[str, ...] = ()) -> Found:
    """What to read in a run folder: the first registered layout that finds something, else the one
    log file that looks most like a log. Notes of the folders passed through are kept.

    A layout that cannot look somewhere (a subfolder without permission) or that leads back into
    a folder already passed through (`wandb/latest-run -> ..`) is skipped with a note, and the
    next layout is tried: one bad corner of a folder never stops reading the rest."""
    seen = _seen + (os.path.realpath(root),)
    notes: list[str] = []
    for layout, _reader in layouts():
        try:
            found = layout.find(root)
        except OSError as exc:
            notes.append(f"{_where(exc, root)}: cannot be read ({_reason(exc)}); not looked at for "
                          f"{layout.looks_for}")
            continue
        except RecursionError:
            notes.append(f"{root}: a symlink loop; not followed for {layout.looks_for}")
            continue
        if found is None:
            continue
        if found.descend:
            inner_root = os.path.realpath(found.path)
            if inner_root in seen or len(seen) > MAX_DESCENT:
                notes.append(f"{found.path}: leads back to a folder already looked at (a symlink loop); not followed")
                continue
            try:
                inner = discover(found.path, label, seen)
            except IngestError:
                if len(seen) > 1:
                    raise
                notes.append(f"{found.path}: no training log inside")
                continue
            return replace(inner, notes=tuple(notes) + found.notes + inner.notes)
        return replace(found, notes=tuple(notes) + found.notes)
    try:
        found = _any_log_file(root)
    except OSError as exc:
        raise IngestError(label, f"cannot list {_where(exc, root)} ({_reason(exc)})") from None
    if found is None:
        extra = f"; {notes[0]}" if notes else ""
        raise IngestError(label, f"no training log found in this directory (looked for {_looked_for()}){extra}")
    return replace(found, notes=tuple(notes) + found.notes)


def _where(exc: OSError, root: Path) -> str:
    return str(exc.filename) if getattr(exc, "filename", None) else str(root)


def _reason(exc: OSError) -> str:
    from triage.ingest.source import _os_reason

    return _os_reason(exc)


def _suffix_ranks() -> dict[str, int]:
    """File endings a folder's last-resort pick reads: 0 for a structured format's, 1 for the plain
    text's (priority 0) and for compressed files, which are tried after."""
    ranks: dict[str, int] = {s: 1 for s in _COMPRESSED}
    for reader in by_priority():
        for suffix in reader.suffixes:
            ranks[suffix] = min(ranks.get(suffix, 1), 0 if reader.priority > 0 else 1)
    return ranks


def _is_file(p: Path) -> bool:
    try:
        return p.is_file()
    except OSError:  # no permission to look at it: not something we can read
        return False


def _any_log_file(root: Path) -> Found | None:
    ranks = _suffix_ranks()
    files = [p for p in sorted(root.iterdir()) if _is_file(p) and not p.name.startswith(".")
             and p.name.lower() not in _NOT_LOGS and not p.name.lower().endswith((".config.json", ".config.yaml"))]
    logs = [p for p in files if p.suffix.lower() in ranks]
    if not logs:
        return None
    logs.sort(key=lambda p: (ranks[p.suffix.lower()], -_size(p)))
    notes = [f"{len(logs)} candidate files; read {logs[0].name}"] if len(logs) > 1 else []
    return Found.file(logs[0], None, notes)


def _looked_for() -> str:
    named = ", ".join(layout.looks_for for layout, _ in layouts())
    suffixes = sorted(_suffix_ranks().items(), key=lambda kv: kv[1])
    return f"{named}, or any " + ", ".join(f"*{s}" for s, _ in suffixes if s not in _COMPRESSED)


def _size(p: Path) -> int:
    try:
        return p.stat().st_size
    except OSError:
        return 0


# ------------------------------------------------------------------------------------- entry point
def resolve_format(fmt: str | None) -> str | None:
    """A `--format` value (a name or an alias, any case) to a format name; None means sniff."""
    if fmt is None or fmt in ("", "auto"):
        return None
    name = ALIASES.get(fmt.lower(), fmt.lower())
    if name not in FORMATS:
        raise IngestError("--format", f"unknown format {fmt!r}; known: {', '.join(sorted(FORMATS))}")
    return name


def read_run(path, fmt: str | None = None) -> Run:
    label = str(path)
    name = resolve_format(fmt)
    if label != "-" and is_stream(label):  # a named pipe, <(...), /dev/stdin: copied once, then read
        from triage.ingest.source import spool

        tmp = spool(label)
        try:
            run = read_run(tmp, fmt)
        except IngestError as exc:
            raise IngestError(label, exc.reason, exc.final) from None
        finally:
            os.unlink(tmp)
        run.path = label
        return run
    if label != "-":
        p = Path(path)
        if not p.exists():
            raise IngestError(label, "no such file or directory")
        if not os.access(p, os.R_OK):
            raise IngestError(label, "permission denied")
        if p.is_dir():
            return _with_alias_problems(_read_dir(p, label, name))
    src = Source.from_path(path)
    return _with_alias_problems(_read_file(src, name))


def _with_alias_problems(run: Run) -> Run:
    from triage.ingest.aliases import table

    for problem in table().problems:
        run.warn(problem)
    return run


# the tags of a page that only wraps text: a paste kept between `<html><body>` and `</body></html>`
_TAG_NAME = re.compile(rb"<\s*/?\s*([a-z][a-z0-9]*)")
_WRAPPER_TAGS = frozenset((b"html", b"body", b"pre", b"code", b"br", b"p"))


def not_a_log(head: bytes) -> str | None:
    """What a file is when it is plainly not a training log (named, for the error line)."""
    h = head.lstrip()[:512]
    if h.startswith(b"version https://git-lfs.github.com/spec/"):
        return "a git-lfs pointer, not the file itself (fetch it with `git lfs pull`)"
    low = h[:64].lower()
    if low.startswith((b"<!doctype html", b"<html", b"<?xml")) or (low.startswith(b"<") and b"<head" in h.lower()):
        # (plain lines that a paste merely wrapped in `<html><body>`, no head, no other markup, are a log)
        if not (low.startswith(b"<html") and _WRAPPER_TAGS.issuperset(_TAG_NAME.findall(h.lower()))):
            return "an HTML or XML page, not a log (save the raw file, not the page that shows it)"
    if h.startswith((b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"%PDF", b"PK\x03\x04", b"\x7fELF")):
        return "an image, PDF, archive or program, not a log"
    return None


def _read_file(src: Source, name: str | None) -> Run:
    if src.fs_path is not None and src.size() == 0:
        raise IngestError(src.path, "empty file")
    if src.data is not None and not src.data.strip():
        raise IngestError(src.path, "empty input")
    if name is not None:
        return _guard(FORMATS[name].read, src, name)
    what = not_a_log(src.head())
    if what:
        raise IngestError(src.path, what)
    name = sniff(src)
    if name == "binary":
        raise IngestError(src.path, "unrecognised binary file (no known format matches it; "
                                    "`triage inspect --help` lists them)")
    reader = FORMATS[name]
    try:
        return _guard(reader.read, src, name)
    except IngestError as exc:
        # it looked like this format but is not (JSON, CSV): read it as the fallback (text) instead
        if exc.final or reader.fallback is None or is_binary(src.head()):
            raise
        return _guard(FORMATS[reader.fallback].read, src, reader.fallback)


def _guard(fn, src: Source, name: str) -> Run:
    try:
        return fn(src)
    except IngestError:
        raise
    except MemoryError:
        raise IngestError(src.path, "out of memory while reading") from None
    except (OSError, EOFError) as exc:
        raise IngestError(src.path, f"cannot read ({exc.__class__.__name__}: {exc})") from None
    except Exception as exc:  # a reader bug must still end in one line, not a traceback
        if os.environ.get("TRIAGE_DEBUG"):
            raise
        raise IngestError(src.path, f"cannot read as {name} ({exc.__class__.__name__}: {exc})") from None


def _read_dir(root: Path, label: str, name: str | None) -> Run:
    reader = FORMATS.get(name) if name else None
    if reader is not None and reader.read_dir is not None:
        return reader.read_dir(root, label)
    found = discover(root, label)
    if found.read is not None:
        run = found.read(label)
    else:
        run = _read_file(Source.from_path(found.path), name or found.fmt)
        run.meta["file"] = str(found.path)
        if found.after is not None:
            found.after(run)
    run.path = label
    for note in found.notes:
        run.warn(note)
    return run


# ---------------------------------------------------------------------------------------- listings
def format_names() -> list[str]:
    return sorted(FORMATS)


def format_option_help() -> str:
    """The `--format` help of `triage inspect`: every name; aliases and descriptions are in the epilog."""
    return ("Force the format instead of sniffing it: " + ", ".join(r.name for r in by_priority())
            + " (or an alias; see the list below).")


def formats_epilog(width: int = 76) -> str:
    """`inspect --help`'s list of formats, one per entry, in sniff tie-break order. Starts with
    click's no-rewrap marker so the columns survive help formatting."""
    col = max(len(r.name) for r in FORMATS.values()) + 4
    lines = ["Formats (sniffed by content, or forced with --format NAME):", "", "\b"]
    for r in by_priority():
        text = r.description + (f" [also: {', '.join(r.aliases)}]" if r.aliases else "")
        lines.extend(textwrap.wrap(text, width=width, initial_indent=f"  {r.name}".ljust(col),
                                   subsequent_indent=" " * col, break_on_hyphens=False, break_long_words=False))
    return "\n".join(lines)


def readme_table() -> str:
    """The README's list of formats (tests/ingest/test_registry_contract.py keeps them equal)."""
    rows = ["| format | what it reads | `--format` also takes | found in a run folder as |", "|---|---|---|---|"]
    for r in by_priority():
        aliases = ", ".join(f"`{a}`" for a in r.aliases)
        folder = [lay.looks_for for lay in sorted(r.layouts, key=lambda lay: lay.order)]
        if r.suffixes:
            folder.append("any " + ", ".join(f"*{s}" for s in r.suffixes))
        rows.append(f"| `{r.name}` | {_md(r.description)} | {aliases} | {_md('; '.join(folder))} |")
    return "\n".join(rows)


def _md(text: str) -> str:
    """Plain text in a Markdown table cell: no pipes, no angle brackets read as HTML tags."""
    return text.replace("|", "/").replace("<", "&lt;").replace(">", "&gt;").replace("*", "\\*")


if __name__ == "__main__":  # python -m triage.ingest.registry: the README table
    print(readme_table())
