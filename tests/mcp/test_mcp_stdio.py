"""`triage mcp` driven by the MCP SDK's own client over stdio: the server runs as a subprocess
(`python -m triage mcp`), exactly as an agent's host would start it."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
import anyio  # noqa: E402  (the SDK's own dependency)
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
PAIRS = REPO / "tests" / "fixtures" / "diff" / "pairs"


def write_nan_log(path: Path) -> Path:
    rows = []
    for i in range(1, 301):
        loss = 2.3 * math.exp(-i / 80) + 0.3 + 0.01 * math.sin(i) if i < 200 else float("nan")
        rows.append(json.dumps({"step": i, "loss": loss, "grad_norm": 1.0, "learning_rate": 1e-4}))
    path.write_text("\n".join(rows) + "\n")
    return path


def call(session_steps):
    """Start the server, run `session_steps(session)` (an async function) and return its result."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "triage", "mcp"], cwd=str(REPO),
                                   env={"PYTHONPATH": str(REPO), "NO_COLOR": "1"})

    async def main():
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await session_steps(session)

    return anyio.run(main)


def data(result) -> dict:
    """A tool result's JSON object (structured content, or the text block that carries it)."""
    assert not result.is_error, result.content[0].text if result.content else result
    if getattr(result, "structured_content", None):
        return dict(result.structured_content)
    return json.loads(result.content[0].text)


@pytest.fixture(scope="module")
def transcript(tmp_path_factory):
    """One server session for the whole module (starting Python and the SDK costs seconds)."""
    log = write_nan_log(tmp_path_factory.mktemp("mcp") / "nan.jsonl")

    async def steps(s):
        out = {"tools": [t.name for t in (await s.list_tools()).tools]}
        out["scan"] = data(await s.call_tool("scan", {"path": str(log)}))
        out["scan_missing"] = await s.call_tool("scan", {"path": str(log) + ".missing"})
        out["explain"] = data(await s.call_tool("explain", {"node_id": "O9"}))
        out["explain_unknown"] = await s.call_tool("explain", {"node_id": "O999"})
        out["search"] = data(await s.call_tool("search", {"text": "loss is NaN after a few hundred steps", "limit": 5}))
        out["diff"] = data(await s.call_tool("diff", {"good": str(PAIRS / "accum-1-to-8" / "good"),
                                                      "bad": str(PAIRS / "accum-1-to-8" / "bad")}))
        out["ask0"] = data(await s.call_tool("ask_step", {}))
        first = out["ask0"]["question"]["id"]
        out["ask1"] = data(await s.call_tool("ask_step", {"answers": {first: "nan"}}))
        answers = {first: "nan"}
        step = out["ask1"]
        for _ in range(25):  # answer "don't know" to everything: the engine must still end
            if step["done"]:
                break
            answers[step["question"]["id"]] = "unknown"
            step = data(await s.call_tool("ask_step", {"answers": answers}))
        out["ask_end"], out["ask_answers"] = step, answers
        out["ask_bad"] = await s.call_tool("ask_step", {"answers": {"Q-start": "purple"}})
        out["ask_log"] = data(await s.call_tool("ask_step", {"logs": [str(log)]}))
        return out

    return call(steps)


def test_tools_are_listed(transcript):
    assert set(transcript["tools"]) == {"scan", "explain", "search", "diff", "ask_step"}


def test_scan_returns_the_scan_json(transcript):
    doc = transcript["scan"]
    assert {"version", "sources", "findings", "causes", "unanswered", "healthy"} <= set(doc)
    assert doc["healthy"] is False and any(f["detector"] == "det-loss-nan" for f in doc["findings"])
    assert doc["causes"] and doc["causes"][0]["fix"]


def test_tool_errors_are_one_line_messages(transcript):
    for key, words in (("scan_missing", "no such file"), ("explain_unknown", "did you mean O9"),
                       ("ask_bad", "has no answer 'purple'")):
        result = transcript[key]
        assert result.is_error, key
        text = result.content[0].text
        assert words in text.lower() if words.islower() else words in text, text
        assert "Traceback" not in text


def test_explain_and_search(transcript):
    assert transcript["explain"]["id"] == "O9" and transcript["explain"]["fix"]
    from triage import api

    results = transcript["search"]["results"]
    same = api.search(api.load_kb(), "loss is NaN after a few hundred steps", limit=5)
    assert [r["id"] for r in results] == [h.node.id for h in same] and len(results) == 5


def test_diff_tool(transcript):
    doc = transcript["diff"]
    assert doc["first"]["metric"] == "grad_norm" and doc["causes"][0]["id"] == "O9"


def test_ask_step_walks_to_a_final_ranking(transcript):
    first = transcript["ask0"]
    assert first["done"] is False and first["question"]["id"] == "Q-start"
    assert {"value": "nan", "label": first["question"]["answers"][1]["label"]} in first["question"]["answers"]
    second = transcript["ask1"]
    assert second["answered"][0] == {"question": "Q-start", "answer": "nan", "source": "replay", "evidence": ""}
    assert second["question"]["id"] != "Q-start"
    end = transcript["ask_end"]
    assert end["done"] is True and "question" not in end
    assert end["ranking"] and end["ranking"][0]["fix"] and "next_if_not" in end["ranking"][0]


def test_ask_step_with_a_log_starts_from_its_evidence(transcript):
    step = transcript["ask_log"]
    assert any(a["source"] == "log" for a in step["answered"])
    assert step["done"] or step["question"]["id"] != "Q-start"


def _cli_ask(answers: dict, tmp_path) -> str:
    path = tmp_path / "answers.yaml"
    path.write_text("".join(f"{q}: {v}\n" for q, v in answers.items()))
    proc = subprocess.run([sys.executable, "-m", "triage", "ask", "--answers", str(path)], cwd=REPO,
                          capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_ask_step_asks_what_triage_ask_asks(transcript, tmp_path):
    """The stateless step replays answers like `triage ask --answers FILE`: after the same answers
    the CLI asks the step's next question first, and both end at the same top cause."""
    out = _cli_ask({"Q-start": "nan"}, tmp_path)
    asked = [line.split("? ", 1)[1] for line in out.splitlines() if line.startswith("? ")]
    assert asked and asked[0] == transcript["ask1"]["question"]["question"]
    out = _cli_ask(transcript["ask_answers"], tmp_path)
    assert not [line for line in out.splitlines() if line.startswith("? ")]  # nothing left to ask
    top = transcript["ask_end"]["ranking"][0]["id"]
    assert top in out
