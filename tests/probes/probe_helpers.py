"""Shared paths and the in-process script loader for the probe tests (imported by conftest and the tests)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETUPS = HERE / "probe_setups.py"
SCRIPTS = HERE.parents[1] / "triage" / "probes" / "scripts"
_modules: dict = {}


def load_script(name: str):
    """Import the standalone probe_NAME.py (as exported) once, as a module, to call its main(argv) in-process."""
    if name not in _modules:
        from triage.probes.assemble import runnable

        spec = importlib.util.spec_from_file_location(f"probe_{name}_under_test", runnable(SCRIPTS / f"probe_{name}.py"))
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _modules[name] = module
    return _modules[name]
