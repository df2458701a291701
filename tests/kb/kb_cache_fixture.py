"""The private cache-folder fixture of the knowledge-cache tests (imported by them: a conftest.py here would
shadow the top-level one that other test folders import from)."""

from __future__ import annotations

from pathlib import Path

import pytest

from triage.kb import loader


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """A cache folder of the test's own (it does not exist yet), with caching on and no user knowledge roots."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(loader.CACHE_ENV, str(folder))
    monkeypatch.delenv("TRIAGE_NO_CACHE", raising=False)
    monkeypatch.delenv(loader.KB_ENV, raising=False)
    return folder
