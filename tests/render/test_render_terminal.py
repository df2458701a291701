"""Terminal output that survives pipes and narrow terminals.

Piped: one logical line per item whatever COLUMNS says, no trailing blanks, knobs whole and
flush left. In a pseudo-terminal 60 to 120 columns wide: numbers never cut, charts and tables
inside the width (or a list where a table cannot fit).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from triage.kb.base import KnowledgeBase
from triage.render.console import TrimmedOutput, out_console

ROOT = Path(__file__).resolve().parents[2]
RUN = str(ROOT / "bench" / "corpus" / "runs" / "o16-mlp-nll")
REPLAY = str(ROOT / "tests" / "ask" / "replays" / "nan-fp16-overflow.yaml")
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def triage_bin() -> str:
    here = Path(sys.executable).parent / "triage"
    return str(here) if here.exists() else (shutil.which("triage") or "")


needs_bin = pytest.mark.skipif(not triage_bin(), reason="needs the installed triage script")


def piped(*args: str, columns: str = "80", process: bool = False) -> subprocess.CompletedProcess:
    """The CLI with stdout not a terminal, as `triage ... | grep` sees it (in this process, or
    the installed script in a real pipe). COLUMNS=80 is what a shell may export: it must not
    bring the hard wrap back."""
    env = {"COLUMNS": columns, "NO_COLOR": "1", "FORCE_COLOR": None, "TRIAGE_SESSION_DIR": "/nonexistent/x"}
    if process:
        full = {**os.environ, **{k: v for k, v in env.items() if v is not None}}
        full.pop("FORCE_COLOR", None)
        return subprocess.run([triage_bin(), *args], capture_output=True, text=True, env=full, timeout=120, cwd=ROOT)
    from typer.testing import CliRunner

    from triage.cli import app

    result = CliRunner().invoke(app, list(args), env=env)
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


# -- the console ------------------------------------------------------------------------------------
def test_trimmed_output_drops_blanks_before_each_newline_and_keeps_colour_codes():
    buf = io.StringIO()
    out = TrimmedOutput(buf)
    out.write("a  \x1b[1m \x1b[0m  \nb ")
    out.write(" c\t\nend  ")
    out.flush()
    out.write("\n")
    assert buf.getvalue() == "a\x1b[1m\x1b[0m\nb  c\nend\n"


def test_pipe_console_never_wraps_and_terminal_console_does():
    long = "word " * 60
    buf = io.StringIO()
    out_console(buf, terminal=False).print(long)
    assert buf.getvalue() == long.rstrip() + "\n"
    buf = io.StringIO()
    out_console(buf, width=60, terminal=True).print(long)
    assert all(len(line) <= 60 for line in buf.getvalue().splitlines()) and buf.getvalue().count("\n") > 4


# -- pipes --------------------------------------------------------------------------------------------
@needs_bin
def test_kb_list_piped_gives_whole_lines_to_grep(kb):
    result = piped("kb", "list", process=True)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    by_id = {line.split()[0]: line for line in lines[1:] if line.strip()}
    assert len(by_id) == len(kb.nodes)
    for node in kb.nodes.values():
        assert by_id[node.id].endswith(node.title), (node.id, by_id[node.id])
    lora = [line for line in lines if "lora" in line.lower()]
    assert lora and all(line.split()[0] in kb.nodes for line in lora)  # no fragments of wrapped titles


@needs_bin
@pytest.mark.parametrize("args", [
    ("checklist", "preflight"), ("checklist",), ("kb", "list"), ("explain", "O4"), ("explain", "Q-start"),
    ("explain", "det-gradnorm-growing"), ("scan", RUN), ("inspect", RUN), ("search", "nan", "loss"),
    ("probe", "list"), ("ask", "--answers", REPLAY),
])
def test_no_line_ends_in_blanks(args):
    result = piped(*args)
    assert result.returncode in (0, 1), result.stderr
    assert result.stdout.strip()
    bad = [n for n, line in enumerate(result.stdout.splitlines(), 1) if line != line.rstrip()]
    assert bad == [], f"{len(bad)} line(s) end in blanks, first: {bad[:5]}"


@needs_bin
def test_scan_piped_one_line_per_finding_and_full_knobs(kb):
    doc = json.loads(piped("scan", "--json", RUN).stdout)
    text = piped("scan", RUN).stdout
    lines = text.splitlines()
    for n, f in enumerate(doc["findings"], 1):
        assert any(line.startswith(f"  {n}. {f['summary']}") for line in lines), f["summary"]
    assert "…" not in text  # no knob or title cut short
    for c in doc["causes"][:5]:
        knob = c["fix"][0]["knob"].strip().splitlines()
        start = next(i for i, line in enumerate(lines) if line.endswith("knob  " + knob[0].strip()))
        assert [line.strip() for line in lines[start + 1:start + len(knob)]] == [k.strip() for k in knob[1:]]


@needs_bin
def test_explain_prints_every_knob_line_flush_left_without_a_border(kb):
    text = piped("explain", "O4").stdout
    assert not re.search(r"[│╭╮╰╯]", text)
    assert text.splitlines()[0] == f"O4 · {kb['O4'].title}"
    lines = text.splitlines()
    for fix in kb["O4"].get("fix"):
        knob = str(fix["knob"]).strip("\n").splitlines()
        start = lines.index(knob[0])  # the first column: copies without margins
        assert lines[start:start + len(knob)] == knob


@needs_bin
def test_explain_start_question_summarises_instead_of_listing_every_id():
    text = piped("explain", "Q-start").stdout
    ids = re.findall(r"\b(?:Q-[a-z0-9-]+|(?:S|PB|M|D|C|DP|MY)-[a-z0-9-]+|(?:L|V|DF|R|X|O)[0-9]{1,2})\b", text)
    assert len(ids) <= 30, len(ids)  # was about 150
    assert re.search(r"points to: \d+ causes", text) and "--json" in text


# -- narrow terminals -----------------------------------------------------------------------------------
pexpect = pytest.importorskip("pexpect")


def in_terminal(columns: int, *args: str) -> str:
    env = {**os.environ, "TERM": "xterm-256color", "NO_COLOR": "1"}
    env.pop("COLUMNS", None)
    child = pexpect.spawn(triage_bin(), list(args), env=env, dimensions=(400, columns), encoding="utf-8",
                          timeout=60, cwd=str(ROOT))
    text = child.read()
    child.close()
    text = ANSI.sub("", text).replace("\r\n", "\n")
    return "\n".join(line.split("\r")[-1] for line in text.split("\n"))  # drop the spinner's redraws


@needs_bin
@pytest.mark.parametrize("columns", [60, 100])
def test_inspect_never_cuts_a_number(columns):
    from triage.render.inspect import _fmt

    doc = json.loads(piped("inspect", "--json", RUN).stdout)
    text = in_terminal(columns, "inspect", RUN)
    lines = text.splitlines()
    assert all(len(line) <= columns for line in lines), max(lines, key=len)
    assert not re.search(r"\d…|…\d|\.…", text)
    tokens = set(text.split())
    for m in doc["runs"][0]["metrics"]:
        for key in ("first", "last", "min", "max"):
            assert _fmt(m[key]) in tokens, (columns, m["name"], key, _fmt(m[key]))


@needs_bin
@pytest.mark.parametrize("columns", [60])
def test_scan_chart_fits_the_terminal(columns):
    text = in_terminal(columns, "scan", RUN)
    chart = [line for line in text.splitlines() if re.search(r"[┤│▼█]", line) or line.strip().startswith("step ")]
    assert len(chart) >= 8
    assert all(len(line) <= columns for line in chart), max(chart, key=len)
    knob = next(line for line in text.splitlines() if "knob  loss = F.nll_loss" in line)
    assert knob.endswith("targets)")  # code is never wrapped by triage (the terminal folds it)


# -- ask menus ------------------------------------------------------------------------------------------
def test_menu_labels_wrap_with_a_hanging_indent():
    from triage.render.session import MENU_INDENT_SHORTCUTS, option_title, prompt_message

    label = "Classic reinforcement learning (gym environments, SB3, DQN, SAC, PPO) with a custom reward wrapper"
    wrapped = option_title(label, 60)
    lines = wrapped.split("\n")
    assert len(lines) >= 2 and all(len(line) + MENU_INDENT_SHORTCUTS <= 60 for line in lines[:1])
    assert all(line.startswith(" " * MENU_INDENT_SHORTCUTS) and len(line) < 60 for line in lines[1:])
    assert " ".join(line.strip() for line in lines) == label  # words whole, none lost
    msg = prompt_message("Does every trainable parameter of the model appear in the optimizer's param groups?", 60,
                         tail="(↑/↓ or the number, then Enter)")
    assert all(len(line) < 60 for line in msg.split("\n"))


def test_questionary_menu_gets_the_wrapped_labels(monkeypatch):
    import shutil as sh

    from triage.engine import session as S
    from triage.render.session import QuestionaryPrompter

    seen = {}

    class Fake:
        def __init__(self, message, choices, **kw):
            seen["message"], seen["choices"] = message, choices

        def unsafe_ask(self):
            return "x"

    questionary = pytest.importorskip("questionary")
    monkeypatch.setattr(questionary, "select", Fake)
    monkeypatch.setattr(sh, "get_terminal_size", lambda *a, **k: os.terminal_size((60, 40)))
    prompter = QuestionaryPrompter()
    label = "Something else entirely: audio, tabular data, speech recognition or a custom architecture"
    prompter._select("What kind of training is this, and what does the model learn from?", [S.Option("x", label)])
    title = seen["choices"][0].title
    assert "\n" in title and all(len(line) < 60 - 5 for line in title.split("\n"))
