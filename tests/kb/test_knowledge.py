"""The shipped knowledge base: valid, complete, and every node renders."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.detect import PARAMS
from triage.kb.base import KnowledgeBase
from triage.kb.schema import REQUIRED_IDS
from triage.kb.validate import check

runner = CliRunner()
KB = KnowledgeBase.load(use_cache=False)
ALL_IDS = sorted(KB.nodes)


def test_kb_check_passes():
    errors = [p.format() for p in check(KB, check_params=PARAMS) if p.severity == "error"]
    assert errors == [], "\n".join(errors[:40])


def test_kb_list_json_has_every_required_id():
    result = runner.invoke(app, ["kb", "list", "--json"])
    assert result.exit_code == 0, result.output
    listed = {row["id"] for row in json.loads(result.output)}
    missing = [i for i in REQUIRED_IDS if i not in listed]
    assert missing == []


def test_kb_size_and_families():
    causes = KB.causes
    assert len(causes) >= 110
    assert len(KB.symptoms) >= 40
    prefixes = {c.id.split("-")[0] for c in causes if "-" in c.id}
    assert {"S", "PB", "M", "D", "C", "DP"} <= prefixes


def test_seed_cross_links_are_kept():
    def links(i):
        return {str(x) for x in KB[i].get("links") or []}

    assert {"DF2", "DF3", "DF4", "DF5", "DF6"} <= links("DF1")
    assert "V4" in links("V3") and "V3" in links("V4")
    assert "R2" in links("L9") and "L9" in links("R2")


@pytest.mark.parametrize("node_id", ALL_IDS)
def test_explain_renders_every_node(node_id):
    result = runner.invoke(app, ["explain", node_id], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    node = KB[node_id]
    assert node_id in result.output
    if node.kind == "cause":
        first_knob = str(node.get("fix")[0]["knob"]).strip().splitlines()[0].strip()
        assert first_knob[:40] in result.output
        assert "The knob" in result.output and "Why it happens" in result.output


@pytest.mark.parametrize("node_id", ["O9", "L3", "Q-start", "S-nan"])
def test_explain_json_is_one_document(node_id):
    result = runner.invoke(app, ["explain", node_id, "--json"])
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert doc["id"] == node_id


def test_explain_unknown_id_suggests_close_matches():
    result = runner.invoke(app, ["explain", "O99"])
    assert result.exit_code == 2
    assert "unknown ID 'O99'" in result.output and "O9" in result.output


def test_explain_is_case_insensitive():
    result = runner.invoke(app, ["explain", "o9"])
    assert result.exit_code == 0 and "O9" in result.output


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("ValueError: Asking to pad but the tokenizer does not have a padding token", {"L3", "S-pad-token-config"}),
        ("RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn", {"O3"}),
        ("my DPO reward margins are flat and accuracies stuck at 0.5", {"L9"}),
        ("gradient accumulation effective learning rate", {"O9"}),
        ("detection mAP is exactly zero but the loss falls", {"V3"}),
        ("'DummyOptim' object has no attribute 'step'", {"S-deepspeed-single-gpu"}),
    ],
)
def test_search_ranks_the_right_node_near_the_top(query, expected):
    result = runner.invoke(app, ["search", query, "--json", "-n", "3"])
    assert result.exit_code == 0, result.output
    top = [r["id"] for r in json.loads(result.output)["results"]]
    assert expected & set(top), top


@pytest.mark.parametrize("fmt", ["mermaid", "dot", "json"])
def test_graph_formats(fmt):
    result = runner.invoke(app, ["kb", "graph", "--format", fmt])
    assert result.exit_code == 0
    if fmt == "json":
        doc = json.loads(result.output)
        ids = {n["id"] for n in doc["nodes"]}
        assert "Q-start" in ids and "O9" in ids
        assert any(e["from"] == "Q-start" and e["rel"] == "asks" for e in doc["edges"])
    elif fmt == "dot":
        assert result.output.startswith("digraph") and '"Q-start"' in result.output
    else:
        assert result.output.startswith("flowchart") and "n_Q_start" in result.output


def test_graph_unknown_format_exits_2():
    result = runner.invoke(app, ["kb", "graph", "--format", "png"])
    assert result.exit_code == 2
