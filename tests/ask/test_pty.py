"""End to end: the installed `triage ask` in a pseudo-terminal, from the first question to a card."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

from triage.engine.diagnosis import Model  # noqa: E402

ESC = r"(?:\x1b\[[0-9;?]*[A-Za-z])*"
QUESTION = rf"Question \d+{ESC}\s+·\s+{ESC}(Q-[a-z0-9-]+)"
DOWN, ENTER = "\x1b[B", "\r"
WANT = {"Q-start": "rl-signal", "Q-domain": "rlhf", "Q-grpo-reward": "zero", "Q-grpo-reward-std": "zero"}


def triage_binary() -> str | None:
    here = Path(sys.executable).parent / "triage"
    if here.exists():
        return str(here)
    return shutil.which("triage")


pytestmark = pytest.mark.skipif(triage_binary() is None or sys.platform == "win32", reason="needs the installed triage script and a pty")


def spawn(args, tmp_path, **kw):
    env = dict(os.environ, TRIAGE_SESSION_DIR=str(tmp_path / "sessions"), TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    return pexpect.spawn(triage_binary(), args, env=env, encoding="utf-8", timeout=30, dimensions=(50, 120), **kw)


def test_ask_in_a_terminal_from_the_first_question_to_the_card(kb, tmp_path):
    model = Model(kb)
    save = tmp_path / "report.md"
    child = spawn(["ask", "--save", str(save)], tmp_path)
    asked = []
    try:
        for _ in range(25):
            i = child.expect([QUESTION, "Is it one of these"])
            if i == 1:
                break
            qid = child.match.group(1)
            asked.append(qid)
            child.expect("Quit \\(the session is saved")  # the whole menu is on screen
            values = model.values[qid] + ["unknown"]
            index = values.index(WANT.get(qid, "unknown"))
            child.send(DOWN * index + ENTER)
        else:
            pytest.fail(f"no card after {asked}")
        assert asked[0] == "Q-start"
        before = child.before
        assert "Most likely causes" in before and "The knob" in before and "S-grpo-reward-zero" in before
        child.expect("Quit \\(the session is saved")
        child.send(ENTER)  # "Done"
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert "S-grpo-reward-zero" in save.read_text()


def test_ctrl_c_saves_and_prints_the_resume_command(tmp_path):
    child = spawn(["ask", "--domain", "grpo"], tmp_path)
    try:
        child.expect(QUESTION)
        child.expect("Quit \\(the session is saved")
        child.sendcontrol("c")
        child.expect("triage ask --resume (\\S+)")
        path = child.match.group(1).strip()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 130
    assert Path(path).exists() and Path(path).parent == tmp_path / "sessions"


def test_time_to_the_first_question(tmp_path):
    """Recorded, with a loose bound: the 400 ms target is measured by bench/questions.py and the
    report; a loaded CI machine must not fail on it."""
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        child = spawn(["ask"], tmp_path)
        child.expect("What do you see")
        elapsed = time.perf_counter() - t0
        child.sendcontrol("c")
        child.expect(pexpect.EOF)
        child.close()
        best = elapsed if best is None else min(best, elapsed)
    assert best < 3.0
