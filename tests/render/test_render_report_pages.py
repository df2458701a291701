"""Every report type laid out by headless Chromium at 1280 and 800 px, checked on the rendered page.

Scan reports (real runs of bench/corpus plus a crowded chart), an `ask` transcript and a
checklist: no two texts of a chart overlap (anomaly labels, ticks, title, notes), tick labels
are all different, the log scale is named on the y axis, the charts include every series a
finding rests on, the findings table speaks in words, and nothing is wider than the sheet.
Skipped, with the reason, where no Chromium is installed.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage import api
from triage.checklists import load
from triage.cli import app
from triage.kb.base import KnowledgeBase
from triage.render.html import as_report, finding_metrics, render_checklist_html, render_report_html, report_series
from triage.render.pdf import find_browser

from render_browser import SKIP_REASON, measure, text_collisions

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "bench" / "corpus" / "runs"
WIDTHS = (1280, 800)

pytestmark = [pytest.mark.skipif(find_browser() is None, reason=SKIP_REASON),
              pytest.mark.slow]  # one Chromium run for all pages: about 6 s on two cores


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load()


def crowded_doc() -> tuple[dict, dict]:
    """Five findings on one series within 40 steps of each other, and a loss that moves in the
    fourth decimal: the labels must stack and the ticks must still differ."""
    loss = [(s, 2.3101 + 0.0008 * (s % 7) / 7) for s in range(1, 501)]
    titles = ["det-loss-flat", "det-loss-near-ln-c", "det-divergence", "det-loss-spikes", "det-loss-nan"]
    findings = [{"detector": d, "symptom": "Q-loss-shape", "answer": "flat", "metric": "loss",
                 "first_step": 200 + 10 * i, "last_step": 240 + 10 * i, "summary": f"finding {i} on loss"}
                for i, d in enumerate(titles)]
    doc = {"version": "test", "sources": [{"path": "crowded.jsonl", "format": "jsonl", "rows": 500, "skipped": 0,
                                           "metrics": ["loss"]}],
           "findings": findings, "causes": [], "unanswered": [], "healthy": False}
    return doc, {"loss": loss}


def scan_page(kb, run: str) -> tuple[str, dict]:
    doc = api.scan(str(RUNS / run), kb=kb)
    series = report_series(doc)
    return render_report_html(api.public(doc), series, kb=kb), {"doc": api.public(doc), "series": series}


@pytest.fixture(scope="module")
def pages(kb, tmp_path_factory):
    """Every report type, rendered once; measured at both widths in one browser run."""
    built, info = {}, {}
    for run in ("o16-mlp-nll", "o2-mlp-a", "nan-mlp-badbatch"):
        built[f"scan:{run}"], info[f"scan:{run}"] = scan_page(kb, run)
    doc, series = crowded_doc()
    built["scan:crowded"] = render_report_html(doc, series, kb=kb)
    info["scan:crowded"] = {"doc": doc, "series": series}
    out = tmp_path_factory.mktemp("transcript") / "session.html"
    result = CliRunner().invoke(app, ["ask", "--answers", str(ROOT / "tests/ask/replays/dpo-flat-margins.yaml"),
                                      "--log", str(RUNS / "o2-mlp-a"), "--save", str(out)])
    assert result.exit_code == 0, result.output
    built["transcript"] = out.read_text(encoding="utf-8")
    built["checklist"] = render_checklist_html(load(kb, "preflight"))
    return built, info, measure(built, WIDTHS)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("key", ["scan:o16-mlp-nll", "scan:o2-mlp-a", "scan:nan-mlp-badbatch", "scan:crowded",
                                 "transcript", "checklist"])
def test_page_fits_and_no_chart_text_overlaps(pages, key, width):
    page = pages[2][(key, width)]
    assert page["scrollWidth"] <= width, f"{key} at {width}px is {page['scrollWidth']} px wide"
    assert page["overflow"] == [], page["overflow"][:3]
    for chart in page["charts"]:
        assert text_collisions(chart) == [], (key, width, chart["name"])
        for axis in ("ytick", "xtick"):
            ticks = [t["text"] for t in chart["texts"] if t["cls"] == axis]
            assert len(ticks) == len(set(ticks)), (chart["name"], axis, ticks)


@pytest.mark.parametrize("width", WIDTHS)
def test_crowded_labels_stack_inside_the_chart(pages, width):
    chart = pages[2][("scan:crowded", width)]["charts"][0]
    labels = [t for t in chart["texts"] if t["cls"] == "marklabel"]
    assert len(labels) == 5
    tops = {round(t["box"][1]) for t in labels}
    assert len(tops) >= 2  # they could not share one row
    left, right = chart["box"][0], chart["box"][2]
    assert all(left <= t["box"][0] and t["box"][2] <= right + 0.5 for t in labels)
    assert all(t["box"][3] <= chart["plot"][1] + 0.5 for t in labels), "labels sit above the plot, not on the data"


@pytest.mark.parametrize("width", WIDTHS)
def test_log_scale_is_named_on_the_y_axis(pages, width):
    charts = {c["name"]: c for c in pages[2][("scan:o16-mlp-nll", width)]["charts"]}
    grad = charts["grad_norm"]  # 1.3 to 2,300: more than three decades
    ylabel = [t for t in grad["texts"] if t["cls"] == "ylabel"]
    assert [t["text"] for t in ylabel] == ["log scale"]
    box = ylabel[0]["box"]
    assert box[2] <= grad["plot"][0] and (box[3] - box[1]) > (box[2] - box[0]), "vertical, left of the plot"
    assert not any("log" in t["text"] for t in grad["texts"] if t["cls"] == "xlabel")


@pytest.mark.parametrize("key", ["scan:o16-mlp-nll", "scan:o2-mlp-a", "scan:nan-mlp-badbatch"])
def test_the_series_the_findings_rest_on_are_drawn_and_named_in_words(pages, key):
    info = pages[1][key]
    page = pages[2][(key, 1280)]
    drawn = {c["name"] for c in page["charts"]}
    for f in as_report(info["doc"]).findings:
        assert set(finding_metrics(f, list(info["series"]))) <= drawn, f.summary
    assert len(page["findings"]) == len(info["doc"]["findings"])
    for row in page["findings"]:
        assert not re.search(r"\bdet-[a-z]|\bQ-[a-z]", row), row


def test_chance_level_accuracy_is_charted(pages):
    """o2-mlp-a: the loss sits at ln 5 while eval/accuracy sits at 1/5; the accuracy is drawn and shaded."""
    chart = {c["name"]: c for c in pages[2][("scan:o2-mlp-a", 1280)]["charts"]}["eval/accuracy"]
    assert any(t["cls"] == "marklabel" and "classes" in t["text"] for t in chart["texts"])


def test_transcript_speaks_of_your_answers(pages):
    text = pages[0]["transcript"]
    assert "Your answers" in text and ">Findings<" not in text and "finding(s)" not in text
    cards = re.findall(r'<div class="cause" id="cause-([^"]+)"', text)
    probabilities = dict(re.findall(r"<td><b>([^<]+)</b>[^<]*</td><td>(\d+)%</td>", text))
    assert cards and all(int(probabilities.get(c, "100")) >= 10 for c in cards[1:])
    assert not any(math.isclose(int(probabilities.get(c, "100")), 0) for c in cards)
