"""The caches keep a few knowledge sets side by side, and never grow without bound."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from triage.ingest import aliases
from triage.kb import loader

import kb_cache_fixture

cache = kb_cache_fixture.cache  # the private cache-folder fixture

pytestmark = pytest.mark.skipif(not loader._CACHE_SUPPORTED, reason="the cache is POSIX only")


def _make_kb(root: Path, title: str) -> Path:
    (root / "causes").mkdir(parents=True)
    (root / "causes" / "t1.yaml").write_text(
        f"id: T1\nkind: cause\ntitle: {title}\nknob:\n  name: lr\n  range: [1, 2]\n", encoding="utf-8")
    return root


def _title(root: Path) -> str:
    (node,) = [n for n in loader.load([str(root)], builtin=False).nodes if n.id == "T1"]
    return node.title


def test_two_knowledge_sets_keep_their_caches(tmp_path, cache, monkeypatch):
    """Switching between two checkouts reads each one's cache: neither is rebuilt at the switch."""
    a, b = _make_kb(tmp_path / "a", "title of set a"), _make_kb(tmp_path / "b", "title of set b")
    assert _title(a) == "title of set a"
    assert _title(b) == "title of set b"
    assert len(list(cache.glob("kb-*.msgpack"))) == 2
    parsed = []
    real = loader._load_root
    monkeypatch.setattr(loader, "_load_root", lambda root, *rest: (parsed.append(root), real(root, *rest)))
    assert _title(a) == "title of set a" and _title(b) == "title of set b"
    assert parsed == []  # both came from their caches


def test_knowledge_caches_are_bounded(tmp_path, cache):
    roots = [_make_kb(tmp_path / f"kb{i}", f"title {i}") for i in range(loader.KB_CACHES_KEPT + 3)]
    for i, root in enumerate(roots):
        _title(root)
        newest = max(cache.glob("kb-*.msgpack"), key=lambda p: p.stat().st_mtime_ns)
        os.utime(newest, ns=(time.time_ns(), time.time_ns() + i))  # (a clock that ticks between writes)
    files = list(cache.glob("kb-*.msgpack"))
    assert len(files) == loader.KB_CACHES_KEPT
    assert _title(roots[-1]) == f"title {len(roots) - 1}"


def test_metric_caches_are_bounded(tmp_path, cache):
    for i in range(loader.METRIC_CACHES_KEPT + 5):
        path = tmp_path / f"m{i}" / "metrics.yaml"
        path.parent.mkdir()
        path.write_text(f"metrics:\n  loss:\n    aliases: [loss_{i}]\n", encoding="utf-8")
        assert aliases._load_cached(path)["metrics"]["loss"]["aliases"] == [f"loss_{i}"]
    assert len(list(cache.glob("metrics-*.msgpack"))) == loader.METRIC_CACHES_KEPT
