"""The detectors' fast paths give what the plain numpy calls give."""

import math

import numpy as np

from triage.detect.checks import _MEDIAN_BLOCKS, _running_median, intersect_steps


def test_intersect_steps_is_intersect1d():
    rng = np.random.default_rng(3)
    for trial in range(2000):
        a = np.unique(rng.integers(0, 300, rng.integers(0, 80))).astype(float)
        b = np.unique(rng.integers(0, 300, rng.integers(0, 400))).astype(float)
        if trial % 4 == 0:  # not increasing: repeats and disorder take numpy's own path
            b = rng.integers(0, 60, rng.integers(0, 40)).astype(float)
        if trial % 7 == 0:
            a, b = b, a
        want = np.intersect1d(a, b, return_indices=True)
        got = intersect_steps(a, b)
        for w, g in zip(want, got):
            assert np.array_equal(w, g), (a, b)


def _block_median_reference(y: np.ndarray, k: int) -> np.ndarray:
    """The running median's wide-window form, written with nanmedian over NaN-padded blocks."""
    n = len(y)
    b = int(math.ceil(k / _MEDIAN_BLOCKS))
    m = int(math.ceil(n / b))
    blocks = np.concatenate([y, np.full(m * b - n, np.nan)]).reshape(m, b)
    return np.repeat(_running_median(np.nanmedian(blocks, axis=1), _MEDIAN_BLOCKS), b)[:n]


def test_wide_running_median_matches_its_definition():
    rng = np.random.default_rng(5)
    for n in (1_000, 4_099, 20_011):
        y = rng.normal(size=n).cumsum()
        for k in (4 * _MEDIAN_BLOCKS + 1, n // 7, n // 3):  # (wider than 4 blocks: the block form)
            assert np.array_equal(_running_median(y, k), _block_median_reference(y, k))
        y[7] = np.nan  # a NaN keeps the NaN-aware path
        assert np.array_equal(_running_median(y, n // 7), _block_median_reference(y, n // 7), equal_nan=True)
