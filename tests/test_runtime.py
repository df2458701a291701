"""triage.runtime: the command line asks numpy's BLAS for one thread; a probe gets the user's environment."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def _in_fresh_process(code: str, env: dict[str, str]) -> str:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          check=True, env=env).stdout.strip()


def test_the_command_line_asks_for_one_blas_thread_and_a_child_gets_the_users_environment():
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = _in_fresh_process("""
        import os
        from triage.runtime import one_blas_thread, user_env
        one_blas_thread()
        print(os.environ.get("OPENBLAS_NUM_THREADS"), "OPENBLAS_NUM_THREADS" in user_env())
    """, env)
    assert out == "1 False"


def test_a_users_own_setting_is_kept_and_passed_on():
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "4"}
    out = _in_fresh_process("""
        import os
        from triage.runtime import one_blas_thread, user_env
        one_blas_thread()
        print(os.environ["OPENBLAS_NUM_THREADS"], user_env()["OPENBLAS_NUM_THREADS"])
    """, env)
    assert out == "4 4"


def test_nothing_is_set_once_numpy_is_loaded():
    """Too late to matter: numpy's thread pool exists, and a later setting would only reach children."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    out = _in_fresh_process("""
        import os
        import numpy
        from triage.runtime import one_blas_thread
        one_blas_thread()
        print(os.environ.get("OPENBLAS_NUM_THREADS"))
    """, env)
    assert out == "None"
