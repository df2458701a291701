"""Real-looking sessions replayed from tests/ask/replays/*.yaml: each must reach its cause.

A replay is an answers file (`Q-id: answer`, optional `not_it: [IDs]`) plus `expect: {top: ID}`
and a `description`. The engine asks what it asks; questions the file does not answer get
"don't know", exactly as `triage ask --answers FILE` does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.engine import session as S

REPLAYS = sorted((Path(__file__).parent / "replays").glob("*.yaml"))


def test_there_are_a_dozen_replays():
    assert len(REPLAYS) >= 12


@pytest.mark.parametrize("path", REPLAYS, ids=[p.stem for p in REPLAYS])
def test_replay_reaches_the_expected_cause(path, kb, model, console):
    replay = S.load_answers_file(path, model)
    assert replay.expect.get("top"), f"{path.name} needs expect: {{top: ID}}"
    prompter = S.AnswersPrompter(replay)
    out = S.Session(kb, prompter, console).run()
    assert out.status == "done"
    ranked = [c.id for c in out.top]
    assert ranked[0] == replay.expect["top"], f"{path.name}: ranked {ranked}\n{console.text()[-3000:]}"
    for cid in replay.expect.get("excluded", []):
        assert cid not in ranked
    assert replay.expect['top'] in console.text()  # its card was shown (the final view names it above the card)


def test_the_command_replays_the_same_diagnosis(tmp_path):
    path = next(p for p in REPLAYS if p.stem == "dpo-flat-margins")
    out = tmp_path / "t.json"
    result = CliRunner().invoke(app, ["ask", "--answers", str(path), "--save", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["causes"][0]["id"] == "L9"
