from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_helpers import SETUPS, load_script  # noqa: E402


@pytest.fixture
def probe(tmp_path, capsys):
    """probe(NAME, SETUP_FUNC, *extra_args) -> (exit_code, result dict or None, stdout, stderr), run in-process."""
    def run(name: str, setup: str, *extra: str, setup_file: Path = SETUPS):
        out = tmp_path / f"{name}-{setup}.json"
        code = load_script(name).main(["--setup", f"{setup_file}:{setup}", "--out", str(out), "--timeout", "60", *extra])
        captured = capsys.readouterr()
        result = json.loads(out.read_text()) if out.exists() else None
        return code, result, captured.out, captured.err
    return run


@pytest.fixture(autouse=True, scope="session")
def _one_thread():
    """Tiny models run faster on one thread than on many (thread start-up dominates)."""
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)
