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


def write_standalone(script: Path, target: Path) -> Path:
    """Write the standalone text atomically to `target` (a file path)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(standalone(script))
    os.chmod(tmp, 0o755)
    os.replace(tmp, target)
    return target


def runnable(script: Path) -> Path:
    """A cached standalone copy for `triage probe run` (rebuilt whenever either part changes)."""
    text = standalone(script)
    digest = hashlib.sha1(text.encode()).hexdigest()[:12]
    base = os.environ.get("TRIAGE_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "triage")
    folder = Path(base) / "probes"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        folder = Path(tempfile.gettempdir()) / "triage-probes"
        folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{script.stem}-{digest}.py"
    if not target.exists():
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, target)
    return target
