"""Writing the files a person asks for (`scan --report`, `ask --save`, `checklist -o`,
`probe export -o`): checked before any work, written whole or not at all.

* The target is checked first: not a folder, its folder exists (missing folders are never made:
  a typo must not plant a tree), the folder is writable, and an existing file is replaced only
  when the command says so (`force`). `check_target` raises `OutputError` (one line).
* The text goes to a temporary file beside the target, which is then renamed over it, so a
  failure or an interruption leaves the old file or nothing, never half a file or a stray
  temporary file.
* The file gets the mode a new file of the person's gets (0666, or 0777 for a script, less the
  umask): reports are meant to be shared, unlike triage's private caches (0600).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from triage.errors import TriageError


class OutputError(TriageError, ValueError):
    """A target that cannot be written; the message is one line naming it."""


def umask() -> int:
    """The process umask, read without changing it where /proc tells it (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_target(path: str | os.PathLike, *, force: bool = True, what: str = "output") -> Path:
    """The target as a Path, or OutputError saying why it cannot be written."""
    p = Path(path)
    if str(path).endswith(os.sep) or p.is_dir():
        raise OutputError(f"{what} {path}: is a folder; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"{what} {path}: folder {parent} does not exist (create it first; it is not made for you)")
    try:  # the real test (permissions, a read-only mount, a full disk): make a file there and remove it
        fd, probe = tempfile.mkstemp(dir=parent, prefix=f".{p.name}.", suffix=".check")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise OutputError(f"{what} {path}: cannot write in folder {parent} ({exc.strerror or exc})") from None
    if p.exists() and not force:
        raise OutputError(f"{what} {path}: the file exists; add --force to replace it")
    return p


def write_text(path: str | os.PathLike, text: str, *, executable: bool = False, what: str = "output",
               fsync: bool = False) -> Path:
    """Write `text` to `path` atomically with a shareable mode (see the module docstring)."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{p.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"{what} {path}: cannot write ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, (0o777 if executable else 0o666) & ~umask())
        os.replace(tmp, p)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OutputError(f"{what} {path}: cannot write ({exc.strerror or exc})") from None
        raise
    return p
