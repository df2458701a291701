"""The session loop through the Prompter interface, its inputs, and the `triage ask` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.engine import session as S
from triage.engine.diagnosis import UNKNOWN, Diagnosis
from triage.render import transcript as transcript_files

runner = CliRunner()
GRPO = {"Q-start": "rl-signal", "Q-domain": "rlhf", "Q-grpo-reward": "zero", "Q-grpo-reward-std": "zero"}


class DictPrompter(S.ScriptedPrompter):
    """Answers by question ID (don't know otherwise); control replies come from `script`."""

    def __init__(self, answers: dict[str, str], script: list[str] | None = None, end: list[str] | None = None):
        super().__init__([])
        self.answers = answers
        self.script = list(script or [])
        self.end = list(end or [S.DONE])

    def ask(self, question, message, options):
        self.asked.append(question)
        values = [o.value for o in options]
        assert S.UNKNOWN in values and S.BACK in values and S.CANDIDATES in values and S.QUIT in values
        if self.script:
            return self.script.pop(0)
        return self.answers.get(question, UNKNOWN)

    def finish(self, top, options):
        self.asked.append(":finish")
        if not self.end:
            raise EOFError
        return self.end.pop(0)


def run(kb, console, prompter, **kw):
    sess = S.Session(kb, prompter, console, **kw)
    return sess, sess.run()


def test_a_grpo_session_reaches_the_reward_card(kb, console):
    p = DictPrompter(GRPO)
    sess, out = run(kb, console, p)
    assert out.status == "done" and out.top[0].id == "S-grpo-reward-zero"
    assert p.asked[0] == "Q-start" and p.asked[-1] == ":finish"
    assert len([q for q in p.asked if q.startswith("Q-")]) <= 6
    text = console.text()
    assert "How to check" in text and "Most likely causes" in text and "The knob" in text
    assert "S-grpo-reward-zero" in text


def test_the_stop_rule(kb):
    class C:
        def __init__(self, p):
            self.probability = p

    assert S.clearly_ahead([C(0.7), C(0.2)])
    assert not S.clearly_ahead([C(0.55), C(0.1)])  # not enough mass
    assert not S.clearly_ahead([C(0.62), C(0.3)])  # not far enough ahead
    assert S.clearly_ahead([C(1.0)])


def test_back_undoes_and_show_candidates_shows_why(kb, console):
    p = DictPrompter(GRPO, script=["rl-signal", S.CANDIDATES, S.BACK])
    sess, out = run(kb, console, p)
    # after "back" the start question is asked again
    assert p.asked[:4] == ["Q-start", p.asked[1], p.asked[1], "Q-start"]
    text = console.text()
    assert "Candidates, most likely first" in text and "took back: Q-start" in text
    assert out.top[0].id == "S-grpo-reward-zero"


def test_back_with_nothing_to_undo(kb, console):
    p = DictPrompter(GRPO, script=[S.BACK])
    run(kb, console, p)
    assert "Nothing to take back" in console.text()


def test_finish_early_then_not_it_goes_on(kb, console):
    p = DictPrompter(GRPO, script=["rl-signal", S.FINISH], end=[S.NOT_IT, S.DONE])
    sess, out = run(kb, console, p)
    first_top = p.asked.index(":finish")
    assert first_top == 2  # two questions offered, the second answered with "finish"
    assert len(sess.diag.excluded) == 1
    assert out.top[0].id not in sess.diag.excluded
    assert "ruled out; going on" in console.text()


def test_not_it_on_every_candidate_ends_empty(kb, console):
    class NotIt(DictPrompter):
        def finish(self, top, options):
            return S.NOT_IT

    d = Diagnosis(kb)
    for c in kb.causes[:-2]:
        d.exclude(c.id)
    sess, out = run(kb, console, NotIt(GRPO), diagnosis=d)
    assert out.status == "empty" and "No candidate causes left" in console.text()


def test_quit_saves_and_prints_the_resume_command(kb, console, tmp_path):
    save = tmp_path / "s.md"
    p = DictPrompter(GRPO, script=["rl-signal", S.QUIT])
    sess, out = run(kb, console, p, save=save, session_file=S.session_file_for(str(save), None, True),
                    writer=transcript_files.write)
    assert out.status == "quit"
    doc = json.loads((tmp_path / "s.json").read_text())
    assert doc["status"] == "quit" and doc["answers"][0]["answer"] == "rl-signal"
    assert "## Answers" in save.read_text()
    assert "triage ask --resume" in console.text()


def test_interrupt_saves_and_resume_continues(kb, console, tmp_path):
    path = tmp_path / "s.json"

    class CtrlC(DictPrompter):
        def ask(self, question, message, options):
            if len(self.asked) == 2:
                raise KeyboardInterrupt
            return super().ask(question, message, options)

    with pytest.raises(S.SessionInterrupted) as exc:
        run(kb, console, CtrlC(GRPO), session_file=path)
    assert exc.value.path == str(path)
    doc = json.loads(path.read_text())
    assert doc["status"] == "interrupted" and len(doc["answers"]) == 2

    diag, notes = S.prepare(kb, resume=str(path))
    p = DictPrompter(GRPO)
    sess, out = run(kb, console, p, diagnosis=diag, session_file=path)
    assert "Q-start" not in p.asked and out.top[0].id == "S-grpo-reward-zero"
    assert json.loads(path.read_text())["status"] == "done"


def test_interrupt_before_any_answer_saves_nothing(kb, console, tmp_path):
    class CtrlC(DictPrompter):
        def ask(self, question, message, options):
            raise KeyboardInterrupt

    with pytest.raises(S.SessionInterrupted) as exc:
        run(kb, console, CtrlC({}), session_file=tmp_path / "s.json")
    assert exc.value.path is None and not (tmp_path / "s.json").exists()


def test_autosave_after_every_answer(kb, console, tmp_path):
    path = tmp_path / "s.json"
    seen = []

    class Watch(DictPrompter):
        def ask(self, question, message, options):
            if path.exists():
                seen.append(len(json.loads(path.read_text())["answers"]))
            return super().ask(question, message, options)

    run(kb, console, Watch(GRPO), session_file=path)
    assert seen == list(range(1, len(seen) + 1))


# -- inputs ------------------------------------------------------------------------------------
def test_domain_synonyms(model):
    assert S.resolve_domain(model, "grpo") == "rlhf"
    assert S.resolve_domain(model, "classification") == "vision-cls"
    assert S.resolve_domain(model, "Vision-Cls") == "vision-cls"
    assert S.resolve_domain(model, "SFT") == "llm"
    with pytest.raises(S.AskError, match="unknown domain 'astrology'"):
        S.resolve_domain(model, "astrology")


def test_domain_flag_answers_the_domain_question(kb, console):
    diag, _ = S.prepare(kb, domain="grpo")
    assert diag.answers["Q-domain"].value == "rlhf"
    p = DictPrompter(GRPO)
    run(kb, console, p, diagnosis=diag)
    assert p.asked[0] == "Q-start" and "Q-domain" not in p.asked


def test_back_does_not_take_back_the_domain_flag(kb, console):
    diag, _ = S.prepare(kb, domain="dpo")
    p = DictPrompter(GRPO, script=[S.BACK])
    run(kb, console, p, diagnosis=diag)
    assert "Nothing to take back" in console.text()


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_answers_file_is_validated(model, tmp_path):
    ok = S.load_answers_file(write(tmp_path, "a.yaml", "Q-start: nan\nQ-domain: grpo\nQ-precision: don't know\nnot_it: [S-nan]\n"), model)
    assert ok.answers == {"Q-start": "nan", "Q-domain": "rlhf", "Q-precision": UNKNOWN} and ok.not_it == ["S-nan"]
    with pytest.raises(S.AskError, match=r"Q-start has no answer 'boom'; valid answers: error, nan"):
        S.load_answers_file(write(tmp_path, "b.yaml", "Q-start: boom\n"), model)
    with pytest.raises(S.AskError, match="unknown question 'Q-strat'.*Q-start"):
        S.load_answers_file(write(tmp_path, "c.yaml", "Q-strat: nan\n"), model)
    with pytest.raises(S.AskError, match="not a cause"):
        S.load_answers_file(write(tmp_path, "d.yaml", "Q-start: nan\nnot_it: [Q-start]\n"), model)
    with pytest.raises(S.AskError, match="mapping"):
        S.load_answers_file(write(tmp_path, "e.yaml", "- Q-start\n"), model)
    with pytest.raises(S.AskError, match="not valid YAML"):
        S.load_answers_file(write(tmp_path, "f.yaml", "Q-start: [nan\n"), model)
    nested = S.load_answers_file(write(tmp_path, "g.yaml", "answers: {Q-start: 'no-learning'}\n"), model)
    assert nested.answers == {"Q-start": "no-learning"}


def probe_result(tmp_path, status="fail", answers=None, name="r.json"):
    doc = {"probe": "overfit_one_batch", "version": "1", "status": status,
           "answers": answers if answers is not None else {"Q-overfit-one-batch": "fail"},
           "measurements": {"final_loss": 2.3}, "message": "loss stayed at 2.30 after 200 steps"}
    return write(tmp_path, name, json.dumps(doc))


def test_probe_evidence_is_shown_not_asked(kb, console, tmp_path):
    diag, notes = S.prepare(kb, evidence=[probe_result(tmp_path)])
    a = diag.answers["Q-overfit-one-batch"]
    assert a.source == "probe" and "overfit_one_batch" in a.evidence and not notes
    p = DictPrompter({"Q-start": "no-learning"})
    run(kb, console, p, diagnosis=diag)
    assert "Q-overfit-one-batch" not in p.asked
    assert "answered by a probe" in console.text()


def test_probe_errors_and_inconclusive_results_are_ignored_with_a_note(kb, tmp_path):
    diag, notes = S.prepare(kb, evidence=[probe_result(tmp_path, status="error")])
    assert "Q-overfit-one-batch" not in diag.answers
    assert notes and "status error" in notes[0]


def test_bad_evidence_files(kb, tmp_path):
    with pytest.raises(S.AskError, match="no such evidence file"):
        S.prepare(kb, evidence=[str(tmp_path / "nope.json")])
    with pytest.raises(S.AskError, match="not a JSON probe result"):
        S.prepare(kb, evidence=[write(tmp_path, "x.json", "{nope")])
    with pytest.raises(S.AskError, match="not a probe result, missing probe, status"):
        S.prepare(kb, evidence=[write(tmp_path, "y.json", '{"answers": {}}')])
    with pytest.raises(S.AskError, match="'status' is 'maybe'"):
        S.prepare(kb, evidence=[write(tmp_path, "w.json", '{"probe": "p", "status": "maybe", "answers": {}}')])
    with pytest.raises(S.AskError, match="'answers' must map"):
        S.prepare(kb, evidence=[write(tmp_path, "z.json", '{"probe": "p", "status": "pass", "answers": [1]}')])


def test_probe_answers_this_knowledge_does_not_know_are_ignored_with_a_note(kb, tmp_path):
    diag, notes = S.prepare(kb, evidence=[probe_result(tmp_path, answers={"Q-overfit-one-batch": "maybe", "Q-future": "yes"})])
    assert "Q-overfit-one-batch" not in diag.answers
    assert any("has no answer 'maybe'" in n for n in notes) and any("unknown question Q-future" in n for n in notes)


# -- the command -------------------------------------------------------------------------------
def test_ask_without_a_terminal_exits_2_with_one_line():
    result = runner.invoke(app, ["ask"], input="")
    assert result.exit_code == 2
    assert "needs a terminal" in result.output and "--answers" in result.output


def test_ask_answers_file_runs_without_prompts(tmp_path):
    answers = write(tmp_path, "a.yaml", "\n".join(f"{k}: {v}" for k, v in GRPO.items()))
    save = tmp_path / "report.md"
    result = runner.invoke(app, ["ask", "--answers", answers, "--save", str(save)], input="")
    assert result.exit_code == 0, result.output
    assert "S-grpo-reward-zero" in result.output and "The knob" in result.output
    assert "triage probe export" in result.output or "Probes" not in result.output
    assert save.exists() and (tmp_path / "report.json").exists()
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["causes"][0]["id"] == "S-grpo-reward-zero" and doc["status"] == "done"
    assert {a["source"] for a in doc["answers"]} == {"replay"}


def test_ask_invalid_answer_exits_2_naming_the_question(tmp_path):
    answers = write(tmp_path, "a.yaml", "Q-start: exploded\n")
    result = runner.invoke(app, ["ask", "--answers", answers], input="")
    assert result.exit_code == 2
    assert "Q-start has no answer 'exploded'" in result.output and "valid answers" in result.output


def test_ask_bad_domain_and_bad_save_exit_2(tmp_path):
    answers = write(tmp_path, "a.yaml", "Q-start: nan\n")
    assert runner.invoke(app, ["ask", "--answers", answers, "--domain", "astrology"]).exit_code == 2
    result = runner.invoke(app, ["ask", "--answers", answers, "--save", str(tmp_path / "x.txt")])
    assert result.exit_code == 2 and ".md" in result.output


def test_ask_resume_needs_json(tmp_path):
    answers = write(tmp_path, "a.yaml", "Q-start: nan\n")
    result = runner.invoke(app, ["ask", "--answers", answers, "--resume", str(tmp_path / "x.md")])
    assert result.exit_code == 2 and "--resume needs the .json" in result.output


def test_ask_replays_a_saved_transcript_to_the_same_diagnosis(kb, console, tmp_path):
    path = tmp_path / "s.json"
    _, out = run(kb, console, DictPrompter(GRPO), session_file=path)
    result = runner.invoke(app, ["ask", "--answers", str(path), "--save", str(tmp_path / "again.json")])
    assert result.exit_code == 0, result.output
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["causes"][0]["id"] == out.top[0].id
    assert [a["question"] for a in again["answers"]] == [a["question"] for a in json.loads(path.read_text())["answers"]]


def test_ask_log_answers_questions(kb, tmp_path):
    rows = [f'{{"step": {i}, "loss": {2.5 - i * 0.001}, "grad_norm": 1.0}}' for i in range(1, 300)]
    rows += [f'{{"step": {i}, "loss": NaN, "grad_norm": NaN}}' for i in range(300, 320)]
    log = write(tmp_path, "run.jsonl", "\n".join(rows) + "\n")
    diag, notes = S.prepare(kb, logs=[log])
    from_log = [a for a in diag.answers.values() if a.source == "log"]
    assert from_log and all(a.evidence for a in from_log)
    answers = write(tmp_path, "a.yaml", "Q-start: nan\n")
    result = runner.invoke(app, ["ask", "--log", log, "--answers", answers])
    assert result.exit_code == 0, result.output
    assert "answered from the log" in result.output
    asked = [line for line in result.output.splitlines() if line.startswith("Question ")]
    assert not any(a.question in line for a in from_log for line in asked)  # shown, not asked


def test_ask_log_that_does_not_exist_exits_2(tmp_path):
    answers = write(tmp_path, "a.yaml", "Q-start: nan\n")
    result = runner.invoke(app, ["ask", "--log", str(tmp_path / "nope.jsonl"), "--answers", answers])
    assert result.exit_code == 2 and ("no such log" in result.output or "--log needs" in result.output)
