"""Sniffing skips a format whose highest possible score cannot beat the best so far (`sniff_max`).

That shortcut is only sound when no sniffer ever scores above its declared ceiling: checked here on
every real log and fixture file, and the winner is the same as when every format is asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from triage.ingest.contract import by_priority
from triage.ingest.registry import sniff
from triage.ingest.source import Source

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(p for folder in ("wild/logs/repos", "wild/logs/threads", "wild/logs/more", "fixtures")
               for p in (ROOT / folder).rglob("*") if p.is_file() and p.stat().st_size < 2_000_000)


def _every_format(src: Source) -> str | None:
    best, best_score = None, 0.0
    for reader in by_priority():
        score = reader.sniff(src)
        assert score <= reader.sniff_max, f"{reader.name} scored {score} on {src.name}, above its sniff_max"
        if score > best_score:
            best, best_score = reader.name, score
    return best


def test_there_is_material():
    assert len(FILES) > 100


@pytest.mark.parametrize("chunk", range(4))
def test_ceiling_holds_and_winner_unchanged(chunk):
    for path in FILES[chunk::4]:
        src = Source.from_path(path)
        try:
            full = _every_format(src)
        except (OSError, ValueError):
            continue
        if full is not None:
            assert sniff(src) == full, path
