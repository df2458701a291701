"""Shared paths for the reader tests. Real samples live outside the repo (../shared/samples)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "logs"
SAMPLES = REPO.parent / "shared" / "samples"


@pytest.fixture
def samples() -> Path:
    if not SAMPLES.is_dir():
        pytest.skip("../shared/samples is not here (a fresh clone has no shared folder)")
    return SAMPLES


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES
