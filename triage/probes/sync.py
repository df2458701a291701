"""Copy the canonical common block into every standalone probe script.

    python -m triage.probes.sync          # rewrite the block in triage/probes/scripts/probe_*.py
    python -m triage.probes.sync --check  # exit 1 if any copy differs

The scripts must stay standalone (they run on a GPU box without triage installed), so the shared
helpers are duplicated, not imported; this keeps the copies identical.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BLOCK_FILE = HERE / "common_block.py"
SCRIPTS = HERE / "scripts"
START = "# ---- common block"
END = "# ---- end of common block"


def canonical() -> str:
    return BLOCK_FILE.read_text(encoding="utf-8")


def split(text: str) -> tuple[str, str, str]:
    """(before, block, after) of one script; the block includes both marker lines."""
    start = text.index(START)
    end = text.index(END, start)
    end = text.index("\n", end) + 1
    return text[:start], text[start:end], text[end:]


def stale(path: Path) -> bool:
    return split(path.read_text(encoding="utf-8"))[1] != canonical()


def sync(check: bool = False) -> list[Path]:
    changed = []
    block = canonical()
    for path in sorted(SCRIPTS.glob("probe_*.py")):
        before, current, after = split(path.read_text(encoding="utf-8"))
        if current != block:
            changed.append(path)
            if not check:
                path.write_text(before + block + after, encoding="utf-8")
    return changed


if __name__ == "__main__":
    check = "--check" in sys.argv[1:]
    paths = sync(check=check)
    for p in paths:
        print(("stale: " if check else "updated: ") + str(p))
    sys.exit(1 if (check and paths) else 0)
