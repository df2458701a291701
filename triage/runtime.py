"""Settings of triage's own command-line process that a program it starts for the user must not inherit.

numpy's OpenBLAS starts a thread per core as numpy loads: on a two-core machine that was about 60 ms
of every command that reads a log, more than all of triage's own imports. triage's arithmetic
(elementwise operations, sorts and medians over series) runs no BLAS in parallel, so the command line
asks for one thread. A probe script is the user's program: it is started with the environment as the
user had it (`user_env`).
"""

from __future__ import annotations

import os
import sys

BLAS_THREADS = ("OPENBLAS_NUM_THREADS",)
_OURS: dict[str, str] = {}


def one_blas_thread() -> None:
    """Ask OpenBLAS for one thread, unless the user chose a number or numpy is loaded already."""
    if "numpy" in sys.modules:
        return
    for name in BLAS_THREADS:
        if name not in os.environ:
            os.environ[name] = _OURS[name] = "1"


def user_env() -> dict[str, str]:
    """os.environ without what one_blas_thread set: the environment for a program of the user's."""
    env = dict(os.environ)
    for name, value in _OURS.items():
        if env.get(name) == value:
            del env[name]
    return env
