from __future__ import annotations

import io

import pytest
from rich.console import Console

from triage.engine.diagnosis import Model
from triage.kb.base import KnowledgeBase


@pytest.fixture(scope="session")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


@pytest.fixture(scope="session")
def model(kb) -> Model:
    return Model(kb)


@pytest.fixture()
def console():
    """The session's display: the terminal one, printing into a buffer that `.text()` reads back."""
    from triage.render.session import RichDisplay

    buf = io.StringIO()
    display = RichDisplay(Console(file=buf, width=110, color_system=None, force_terminal=False))
    display.text = buf.getvalue  # type: ignore[attr-defined]
    return display


@pytest.fixture(autouse=True)
def _session_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_SESSION_DIR", str(tmp_path / "sessions"))
