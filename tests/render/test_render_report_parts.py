"""The pieces of the reports, without a browser: label placement, ticks,
the log axis, plain words, the series drawn, knobs kept whole, and the transcript's wording."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from triage import api
from triage.kb.base import KnowledgeBase
from triage.render.html import (
    _label_width, _nice_ticks, finding_metrics, knob_html, place_labels, render_report_html, report_series, svg_chart,
    tick_labels,
)
from triage.render.markdown import md_knob, render_report_md
from triage.render.transcript import as_transcript, render_transcript_html
from triage.render.transcript import cards as transcript_cards

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "bench" / "corpus" / "runs"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(52, 628), st.floats(0, 300), st.text(min_size=1, max_size=90)), max_size=12))
def test_placed_labels_never_overlap_and_stay_in_the_plot(spans):
    spans = [(a, a + w, t) for a, w, t in spans]
    placed = place_labels(spans, 52, 628)
    boxes = [(x, row, x + _label_width(text)) for x, row, text in placed]
    for i, (x0, r0, x1) in enumerate(boxes):
        assert 52 <= x0 and x1 <= 628 + 1e-6
        for y0, r1, y1 in boxes[i + 1:]:
            assert r0 != r1 or x1 <= y0 or y1 <= x0


@settings(max_examples=200, deadline=None)
@given(st.floats(-1e6, 1e6, allow_nan=False), st.floats(1e-9, 1e3))
def test_tick_labels_are_distinct(lo, span):
    ticks = _nice_ticks(lo, lo + span * max(1.0, abs(lo)) * 1e-3)
    labels = tick_labels(ticks)
    assert len(set(labels)) == len(labels), (ticks, labels)


def test_a_loss_moving_in_the_fourth_decimal_gets_distinct_ticks():
    svg = svg_chart("loss", [(s, 2.3101 + 0.0008 * (s % 7) / 7) for s in range(200)])
    ticks = re.findall(r'class="ytick"[^>]*>([^<]+)<', svg)
    assert len(ticks) >= 3 and len(set(ticks)) == len(ticks), ticks  # was "2.31 / 2.31 / 2.31"


def test_the_log_scale_is_named_on_the_y_axis_not_under_the_x_axis():
    svg = svg_chart("grad_norm", [(s, 10 ** (s / 50)) for s in range(300)])
    assert re.search(r'<text class="ylabel"[^>]*transform="rotate\(-90[^>]*>log scale</text>', svg)
    assert not re.search(r'class="xlabel"[^>]*>[^<]*log', svg)
    assert "log scale" not in svg_chart("loss", [(s, 2 - s / 500) for s in range(300)])


def test_findings_speak_in_words_and_the_chance_accuracy_is_drawn(kb):
    doc = api.scan(str(RUNS / "o2-mlp-a"), kb=kb)
    series = report_series(doc)
    chance = next(f for f in doc.findings if f.detector == "det-loss-near-ln-c")
    assert finding_metrics(chance, list(series)) == ["loss", "eval/accuracy"]
    assert "eval/accuracy" in series
    page = render_report_html(api.public(doc), series, kb=kb)
    table = page.split('<table class="grid findings">', 1)[1].split("</table>", 1)[0]
    text = re.sub(r"<[^>]+>|title=\"[^\"]*\"", " ", table)
    assert not re.search(r"\bdet-[a-z]|\bQ-[a-z]", text)
    assert kb["det-loss-near-ln-c"].title in page and "Growing steadily step after step" in page
    charts = re.findall(r'aria-label="([^"]+)"', page)
    assert charts[:3] == ["grad_norm", "loss", "eval/loss"] and "eval/accuracy" in charts
    md = render_report_md(api.public(doc), series, kb=kb)
    assert "**eval/accuracy**" in md and "| det-" not in md and "Q-loss-shape = " not in md


def test_multi_line_knobs_keep_their_lines():
    knob = "optimizer.zero_grad(set_to_none=True)\nloss.backward()\n    optimizer.step()"
    assert knob_html(knob).startswith('<pre class="knob">') and "\n    optimizer.step()" in knob_html(knob)
    assert md_knob(knob) == ("<code>optimizer.zero_grad(set_to_none=True)<br>loss.backward()<br>"
                             "&nbsp;&nbsp;&nbsp;&nbsp;optimizer.step()</code>")
    assert md_knob("lr: 1e-4") == "`lr: 1e-4`"


def _transcript(probabilities) -> dict:
    causes = [{"rank": i + 1, "id": f"C{i}", "title": f"cause {i}", "probability": p, "prior": "common",
               "support": ["you said so"], "against": [], "fix": [{"knob": f"knob_{i} = 1", "range": "", "expect": ""}],
               "verify": "", "next_if_not": None, "probes": []} for i, p in enumerate(probabilities)]
    return {"triage": "test", "created": "then", "updated": "now", "status": "done", "command": "triage ask",
            "answers": [{"question": "Q-start", "text": "What do you see?", "answer": "nan",
                         "label": "Loss turns NaN", "source": "you", "evidence": ""},
                        {"question": "Q-gradnorm", "text": "What does the gradient norm look like?", "answer": "growing",
                         "label": "Growing", "source": "log", "evidence": "grad_norm grew from 1 to 900"}],
            "text": [], "excluded": [], "evidence": [{"question": "Q-gradnorm", "answer": "growing", "source": "log",
                                                      "evidence": "grad_norm grew from 1 to 900"}],
            "causes": causes, "notes": [], "environment": {"triage": "test"}}


def test_transcript_says_your_answers_and_gives_cards_only_to_likely_causes():
    doc = _transcript([0.81, 0.12, 0.004, 0.0])
    assert [c.id for c in transcript_cards(as_transcript(doc))] == ["C0", "C1"]
    page = render_transcript_html(doc)
    assert "Your answers" in page and "Findings" not in page and "finding(s)" not in page
    assert 'id="cause-C2"' not in page and 'id="cause-C3"' not in page
    assert "Under 1%: C2, C3" in page
    answers = page.split('<table class="grid answers">', 1)[1].split("</table>", 1)[0]
    assert "What do you see?" in answers and "gradient norm" not in answers  # the log's answer is not "yours"
    assert "grad_norm grew from 1 to 900" in page


def test_markdown_transcript_gives_fixes_only_to_likely_causes():
    from triage.render.transcript import to_markdown

    md = to_markdown(_transcript([0.81, 0.12, 0.004, 0.0]))
    assert "### C0:" in md and "### C1:" in md and "### C2:" not in md
