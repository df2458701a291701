"""Transcripts: the JSON document, markdown, atomic writes, the environment block, resume."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from triage.engine import transcript
from triage.engine.diagnosis import Diagnosis
from triage.render import transcript as transcript_files
from triage.kb.base import KnowledgeBase


@pytest.fixture(scope="module")
def kb():
    return KnowledgeBase.load()


@pytest.fixture()
def diag(kb):
    d = Diagnosis(kb)
    d.answer("Q-start", "nan", source="log", evidence="loss is NaN from step 1,204")
    d.answer("Q-domain", "llm")
    d.answer("Q-nan-when", "later")
    return d


def test_build_has_answers_sources_causes_fixes_and_environment(diag):
    doc = transcript.build(diag, status="done", command="triage ask")
    assert doc["format"] == transcript.FORMAT and doc["status"] == "done"
    assert [a["question"] for a in doc["answers"]] == ["Q-start", "Q-domain", "Q-nan-when"]
    assert doc["answers"][0]["source"] == "log" and doc["answers"][0]["label"]
    assert doc["evidence"][0]["evidence"] == "loss is NaN from step 1,204"
    assert doc["causes"] and doc["causes"][0]["rank"] == 1 and doc["causes"][0]["fix"][0]["knob"]
    env = doc["environment"]
    assert env["python"] == ".".join(map(str, sys.version_info[:3])) and env["platform"]
    json.dumps(doc)  # JSON-able


def test_json_transcript_resumes_to_the_same_differential(diag, kb, tmp_path):
    path = tmp_path / "s.json"
    transcript.write(transcript.build(diag), path)
    d2 = Diagnosis(kb)
    d2.load_dict(transcript.read(path))
    assert [c.id for c in d2.ranking(limit=5)] == [c.id for c in diag.ranking(limit=5)]
    assert d2.answers["Q-start"].source == "log"


def test_markdown_is_ready_for_a_bug_report(diag, tmp_path):
    path = tmp_path / "report.md"
    transcript_files.write(transcript.build(diag, status="done"), path)
    text = path.read_text()
    for heading in ("## Answers", "## Evidence", "## Ranked causes", "## Fixes for the top causes", "## Environment"):
        assert heading in text
    assert "loss is NaN from step 1,204" in text and "python:" in text and "torch:" in text


def test_atomic_write_replaces_and_leaves_no_temporary_files(tmp_path):
    path = tmp_path / "t.json"
    transcript.atomic_write(path, "one")
    transcript.atomic_write(path, "two")
    assert path.read_text() == "two"
    assert sorted(os.listdir(tmp_path)) == ["t.json"]


def test_a_failed_render_keeps_the_old_file(diag, tmp_path, monkeypatch):
    path = tmp_path / "t.md"
    transcript_files.write(transcript.build(diag), path)
    old = path.read_text()

    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        transcript_files.write(transcript.build(diag), path)
    assert path.read_text() == old
    assert sorted(os.listdir(tmp_path)) == ["t.md"]


def test_unsupported_suffix_and_missing_folder_fail_early(tmp_path):
    with pytest.raises(transcript.TranscriptError, match="md, .json or .html"):
        transcript.check_path(tmp_path / "x.txt")
    with pytest.raises(transcript.TranscriptError, match="does not exist"):
        transcript.check_path(tmp_path / "nope" / "x.md")


def test_html_transcript_is_an_offline_page(diag, tmp_path):
    path = tmp_path / "r.html"
    transcript.check_path(path)
    transcript_files.write(transcript.make(diag), path)
    assert "<html" in path.read_text().lower()


def test_the_engine_writes_only_the_json_and_the_typed_transcript_round_trips(diag, tmp_path):
    """.md and .html are rendered outside the engine; the typed transcript is the saved document."""
    with pytest.raises(transcript.TranscriptError, match="triage.render.transcript"):
        transcript.write(transcript.make(diag), tmp_path / "t.md")
    t = transcript.make(diag, status="done", command="triage ask")
    doc = t.to_json()
    assert transcript.Transcript.from_json(doc).to_json() == doc
    assert transcript_files.to_markdown(doc) == transcript_files.to_markdown(t)


def test_resume_needs_a_json_transcript(tmp_path):
    with pytest.raises(transcript.TranscriptError, match=".json"):
        transcript.read(tmp_path / "x.md")
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(transcript.TranscriptError, match="answers"):
        transcript.read(bad)


def test_autosave_environment_does_not_import_torch():
    code = (
        "import sys; from triage.engine import transcript; env = transcript.environment(full=False);"
        "print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
