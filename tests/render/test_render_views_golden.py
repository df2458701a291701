"""What a person reads, pinned as golden text: the terminal view of `scan` (piped and laid out for
a terminal), the Markdown and HTML reports, and an `ask` replay with its saved transcripts.

The goldens were captured from the code before the renderers moved from the engine's dict to the
typed `Report` (and before the ask loop printed through a display port), so that move cannot
change what users see. Times and the environment block are masked. Regenerate on purpose with
`TRIAGE_UPDATE_GOLDEN=1 pytest tests/render/test_render_views_golden.py` and review the diff.
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.cli import app

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "views"
UPDATE = os.environ.get("TRIAGE_UPDATE_GOLDEN") == "1"
ENV = {"NO_COLOR": "1"}
runner = CliRunner()

BROKEN = "bench/corpus/runs/o2-mlp-a"
ERRORS = "tests/fixtures/logs/synthetic/deepspeed_hf4.log"
HF_NAN = "tests/fixtures/logs/hf/trainer_state_nan.json"
HEALTHY = "bench/corpus/runs/healthy-cnn-08"
PIPED = {
    "broken": [BROKEN],
    "broken-verbose": ["-v", BROKEN],
    "errors": [ERRORS],
    "hf-nan": [HF_NAN],
    "healthy": [HEALTHY],
    "probe-fail": ["tests/golden/inputs/probe_fail.json"],
    "note": ["tests/golden/inputs/note.txt"],
    "several": [HEALTHY, BROKEN, "tests/golden/inputs/probe_fail.json"],
    "several-verbose": ["-v", HEALTHY, BROKEN],
}
REPORTS = {"broken": BROKEN, "errors": ERRORS, "hf-nan": HF_NAN, "healthy": HEALTHY}


def check(name: str, text: str) -> None:
    """Compare `text` with the golden file `name` (written when missing or on TRIAGE_UPDATE_GOLDEN=1)."""
    path = GOLDEN / name
    if UPDATE or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"{path} was missing and has been written; review it and run again")
    assert text == path.read_text(encoding="utf-8")


def mask(text: str, tmp: Path | None = None) -> str:
    """Times, the environment and temporary folders out of a view: what varies between runs."""
    if tmp is not None:
        text = text.replace(str(tmp), "<tmp>")
    text = re.sub(r"command: (`|<code>)[^\n]*?(`|</code>)", "command: <command>", text)  # the test runner's argv
    text = re.sub(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(:\d\d)?([+-]\d{4}| UTC)?", "<time>", text)
    text = re.sub(r"(## Environment\n).*?(\n## |\Z)", r"\1<env>\n\2", text, flags=re.S)
    text = re.sub(r"(<h2 id=\"environment\">Environment</h2>\n<pre[^>]*>).*?(</pre>)", r"\1<env>\2", text, flags=re.S)
    return text


@pytest.fixture(autouse=True)
def _at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize("name", sorted(PIPED))
def test_scan_piped_view(name):
    result = runner.invoke(app, ["scan", *PIPED[name]], env=ENV)
    check(f"scan-{name}.txt", f"exit {result.exit_code}\n{result.stdout}")


@pytest.mark.parametrize("name", ["broken", "errors"])
def test_scan_terminal_view_at_100_columns(name):
    from triage import api
    from triage.render.console import out_console
    from triage.render.scan import render_scan

    buf = io.StringIO()
    render_scan(out_console(file=buf, terminal=True, width=100), api.scan(REPORTS[name]), verbose=False)
    check(f"scan-{name}-100cols.txt", buf.getvalue())


@pytest.mark.parametrize("name", sorted(REPORTS))
@pytest.mark.parametrize("suffix", ["md", "html"])
def test_report_file(name, suffix, tmp_path):
    out = tmp_path / f"report.{suffix}"
    result = runner.invoke(app, ["scan", REPORTS[name], "--report", str(out)], env=ENV)
    assert result.exit_code in (0, 1), result.output
    check(f"report-{name}.{suffix}", mask(out.read_text(encoding="utf-8"), tmp_path))


def test_ask_replay_and_its_transcripts(tmp_path):
    save = tmp_path / "session.md"
    result = runner.invoke(app, ["ask", "--answers", "tests/ask/replays/nan-fp16-overflow.yaml",
                                 "--log", "bench/corpus/runs/fp16-lm-overflow", "--save", str(save)], env=ENV)
    assert result.exit_code == 0, result.output
    check("ask-replay.txt", mask(result.stdout, tmp_path))
    check("ask-transcript.md", mask(save.read_text(encoding="utf-8"), tmp_path))
    doc = json.loads(save.with_suffix(".json").read_text(encoding="utf-8"))
    for key in ("created", "updated", "environment", "command"):
        doc.pop(key)
    check("ask-transcript.json", json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    html = tmp_path / "session.html"
    result = runner.invoke(app, ["ask", "--answers", "tests/ask/replays/nan-fp16-overflow.yaml",
                                 "--log", "bench/corpus/runs/fp16-lm-overflow", "--save", str(html)], env=ENV)
    assert result.exit_code == 0, result.output
    check("ask-transcript.html", mask(html.read_text(encoding="utf-8"), tmp_path))


def test_ask_with_a_probe_and_an_error_line_in_the_answers(tmp_path):
    """A replay whose answers file carries free text, with a probe result as evidence: the intro's
    text-evidence lines, the typed-text echo and the end cards."""
    answers = tmp_path / "answers.yaml"
    answers.write_text("Q-start: error\ntext: 'RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB'\n")
    result = runner.invoke(app, ["ask", "--answers", str(answers), "--evidence", "tests/golden/inputs/probe_fail.json"],
                           env=ENV)
    check("ask-text-and-probe.txt", f"exit {result.exit_code}\n" + mask(result.stdout, tmp_path))
