"""Shared pieces of the sweep tests: generated sweeps (bench/sweep.py's generator) with and without a
config key behind their failures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sweepgen import BENCH  # noqa: E402


@pytest.fixture(scope="session")
def separable_sweep(tmp_path_factory) -> tuple[Path, dict]:
    """36 runs in three formats; every run with lr >= 3e-3 diverges, a few others fail at random."""
    root = tmp_path_factory.mktemp("separable")
    truth = BENCH.make_sweep(root, 36, seed=3, formats=["jsonl", "lightning_csv", "hf_state"], rows=(200, 400))
    return root, truth


@pytest.fixture(scope="session")
def random_sweep(tmp_path_factory) -> tuple[Path, dict]:
    """36 runs where divergence is drawn at random, whatever the config."""
    root = tmp_path_factory.mktemp("random")
    truth = BENCH.make_sweep(root, 36, seed=4, separable=False, formats=["jsonl", "lightning_csv", "hf_state"],
                             rows=(200, 400))
    return root, truth
