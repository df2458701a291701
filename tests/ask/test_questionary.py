"""The interactive session: questionary menus driven through prompt_toolkit's pipe input."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("questionary")
from prompt_toolkit.input import create_pipe_input  # noqa: E402
from prompt_toolkit.output import DummyOutput  # noqa: E402

from triage.engine import session as S  # noqa: E402
from triage.render.session import QuestionaryPrompter  # noqa: E402

DOWN, ENTER = "\x1b[B", "\r"
WANT = {"Q-start": "rl-signal", "Q-domain": "rlhf", "Q-grpo-reward": "zero", "Q-grpo-reward-std": "zero"}


class PipedPrompter(QuestionaryPrompter):
    """Types the keys for one menu into the pipe right before that menu runs."""

    def __init__(self, pipe, choose):
        super().__init__(input=pipe, output=DummyOutput())
        self.pipe = pipe
        self.choose = choose  # (key, options) -> the value to pick
        self.log: list[tuple[str, str]] = []

    def _keys(self, key, options):
        value = self.choose(key, options)
        self.log.append((key, value))
        index = [o.value for o in options].index(value)
        self.pipe.send_text(DOWN * index + ENTER)

    def ask(self, question, message, options):
        self._keys(question, options)
        return super().ask(question, message, options)

    def finish(self, top, options):
        self._keys(":finish", options)
        return super().finish(top, options)


def by_question(answers, end=(S.DONE,)):
    end = list(end)

    def choose(key, options):
        if key == ":finish":
            return end.pop(0)
        return answers.get(key, S.UNKNOWN)

    return choose


def test_menus_drive_the_session_to_the_card(kb, console, tmp_path):
    with create_pipe_input() as pipe:
        p = PipedPrompter(pipe, by_question(WANT))
        out = S.Session(kb, p, console, session_file=tmp_path / "s.json").run()
    assert out.status == "done" and out.top[0].id == "S-grpo-reward-zero"
    assert p.log[0] == ("Q-start", "rl-signal") and p.log[-1] == (":finish", S.DONE)
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["answers"][0] == {**doc["answers"][0], "question": "Q-start", "answer": "rl-signal", "source": "you"}


def test_dont_know_back_and_candidates_from_the_menu(kb, console):
    script = [S.UNKNOWN, S.BACK, S.CANDIDATES]

    def choose(key, options):
        if script:
            return script.pop(0)
        return by_question(WANT)(key, options)

    with create_pipe_input() as pipe:
        p = PipedPrompter(pipe, choose)
        out = S.Session(kb, p, console).run()
    keys = [k for k, _ in p.log]
    # don't know on Q-start, then back on the next question, then Q-start again with "show candidates"
    assert keys[0] == "Q-start" and keys[2] == "Q-start" and keys[3] == "Q-start"
    assert "Candidates, most likely first" in console.text()
    assert out.top[0].id == "S-grpo-reward-zero"


def test_not_it_from_the_end_menu(kb, console):
    with create_pipe_input() as pipe:
        p = PipedPrompter(pipe, by_question(WANT, end=[S.NOT_IT, S.DONE]))
        out = S.Session(kb, p, console).run()
    assert "S-grpo-reward-zero" not in [c.id for c in out.top]


def test_ctrl_c_in_a_menu_interrupts_the_session(kb, console, tmp_path):
    class CtrlC(PipedPrompter):
        def ask(self, question, message, options):
            if self.log:
                self.pipe.send_text("\x03")  # Ctrl-C
                return QuestionaryPrompter.ask(self, question, message, options)
            return super().ask(question, message, options)

    with create_pipe_input() as pipe:
        p = CtrlC(pipe, by_question(WANT))
        with pytest.raises(S.SessionInterrupted) as exc:
            S.Session(kb, p, console, session_file=tmp_path / "s.json").run()
    assert exc.value.path == str(tmp_path / "s.json")
    assert json.loads((tmp_path / "s.json").read_text())["status"] == "interrupted"


def test_free_text_from_the_menu(kb, console):
    """Choosing "Type it" opens a text prompt; the typed error line is matched like `triage scan`."""
    line = "RuntimeError: CUDA error: device-side assert triggered"

    class Typing(PipedPrompter):
        def _keys(self, key, options):
            if key == "Q-start" and not self.log:
                self.log.append((key, S.TEXT))
                index = [o.value for o in options].index(S.TEXT)
                self.pipe.send_text(DOWN * index + ENTER + line + ENTER)
                return
            super()._keys(key, options)

    with create_pipe_input() as pipe:
        p = Typing(pipe, by_question({"Q-domain": "vision-cls"}))
        sess = S.Session(kb, p, console)
        sess.run()
    assert p.log[0] == ("Q-start", S.TEXT)
    assert sess.diag.answers["Q-start"].value == "error"  # the error line answered what you see
    assert any("device-side assert" in t.evidence for t in sess.diag.text)
