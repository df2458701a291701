"""Make a probe's standalone file: its own code with the shared helper block pasted in.

The package keeps one copy of the helpers (common_block.py); every probe script holds only the
two marker lines where they go. `triage probe export` writes the assembled file, and `triage
probe run` runs it, so what runs on the GPU box is exactly what was tested here.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BLOCK_FILE = HERE / "common_block.py"
START = "# ---- common block"
END = "# ---- end of common block"


def split(text: str) -> tuple[str, str]:
    """(before, after) the marker lines of a probe script."""
    start = text.index(START)
    end = text.index(END, start)
    end = text.index("\n", end) + 1
    return text[:start], text[end:]


def standalone(script: Path) -> str:
    """The full text of a probe as a user runs it: stdlib + torch only, no triage import."""
    before, after = split(script.read_text(encoding="utf-8"))
    return before + BLOCK_FILE.read_text(encoding="utf-8") + after


def runnable(script: Path) -> Path:
    """The standalone copy that `triage probe run` runs, written just now into a private folder.

    The folder is `probes` in the cache folder, else `triage-probes-<uid>` in the temporary directory,
    else a new folder from mkdtemp: the first that is a real folder (no symlink followed) owned by this
    user and not writable by group or others (checked on its descriptor, created 0700). The script is
    always written again (a new file, then renamed over the old one), never reused as found: what runs
    is exactly the text assembled here, and nothing that another user could have put beside it.
    """
    data = standalone(script).encode("utf-8")
    name = f"{script.stem}-{hashlib.sha1(data).hexdigest()[:12]}.py"
    for fd, folder in _private_folders():
        if fd is None:  # no descriptor-relative calls here (Windows): the fresh folder, by path
            target = folder / name
            with open(target, "xb") as fh:
                fh.write(data)
            return target
        try:
            _write_new(fd, name, data)
            return folder / name
        except OSError:
            continue
        finally:
            os.close(fd)
    raise OSError("found no private folder to write the probe script to")


def _private_folders():
    """(descriptor, path) of each usable private folder in turn; last a fresh folder from mkdtemp, whose
    descriptor is None where the platform cannot check it."""
    from triage.kb.loader import _cache_dir, open_private_dir

    cache = _cache_dir()
    parent = open_private_dir(cache, create=True)
    if parent is not None:
        try:
            fd = open_private_dir("probes", create=True, dir_fd=parent)
        finally:
            os.close(parent)
        if fd is not None:
            yield fd, cache / "probes"
    uid = os.geteuid() if hasattr(os, "geteuid") else 0
    folder = Path(tempfile.gettempdir()) / f"triage-probes-{uid}"
    fd = open_private_dir(folder, create=True)
    if fd is not None:
        yield fd, folder
    folder = _fresh_folder()  # that name is someone else's, or a symlink: this run gets its own
    yield open_private_dir(folder), folder


def _fresh_folder() -> Path:
    import atexit
    import shutil

    folder = Path(tempfile.mkdtemp(prefix="triage-probes-"))  # mode 0700, made by this process
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _write_new(dir_fd: int, name: str, data: bytes) -> None:
    """Write `data` as `name` in the folder `dir_fd`: a new file (O_EXCL, no symlink followed), renamed
    over whatever had that name."""
    tmp = f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        raise
