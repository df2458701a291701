"""The typed `Report`, the one run -> evidence path, the session's display port and the shared
number formatter and sparkline (the "Structure" issue). The `scan --json` contract itself is pinned
byte for byte by tests/test_scan_json_contract.py; these tests pin what the types promise."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from triage import api
from triage.engine import session as S
from triage.engine.report import Report
from triage.kb.base import KnowledgeBase

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "bench" / "corpus" / "runs" / "o2-mlp-a"
ERRORS = ROOT / "tests" / "fixtures" / "logs" / "synthetic" / "deepspeed_hf4.log"


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return api.load_kb()


@pytest.fixture(scope="module")
def broken(kb) -> Report:
    return api.scan(str(BROKEN), kb=kb)


@pytest.fixture(scope="module")
def with_errors(kb) -> Report:
    return api.scan(str(ERRORS), kb=kb)


# -- evidence records point at what they restate -------------------------------------------------------
def test_finding_evidence_points_at_the_finding_it_restates(broken):
    linked = [(c, e) for c in broken.causes for e in c.evidence if e.finding is not None]
    assert linked, "o2-mlp-a: every top cause rests on findings"
    for cause, e in linked:
        f = broken.findings[e.finding]
        assert (e.question, e.text, e.source) == (f.symptom, f.summary, "log"), cause.id
    # every finding a cause rests on is found, not only the first sentence of an answer
    assert set(broken.causes[0].findings()) == set(range(len(broken.findings)))


def test_error_evidence_points_at_its_error_match(with_errors):
    linked = [e for c in with_errors.causes for e in c.evidence if e.error is not None]
    assert linked
    for e in linked:
        match = with_errors.error_matches[e.error]
        assert e.text.startswith("error text") and match.text[:100] in e.text and e.finding is None


def test_evidence_lines_are_the_ranking_s_own_lines(broken):
    """The JSON evidence is exactly what the engine explains, in its order (no re-formatting)."""
    ranked = {c.id: c for c in broken.diagnosis.ranking(with_evidence_only=True)}
    for cause in broken.causes:
        assert [e.line() for e in cause.evidence] == ranked[cause.id].support


def test_a_json_document_reads_back_into_the_same_document(broken, with_errors):
    for report in (broken, with_errors, Report.failed("gone.log", "gone.log: no such file", "nothing read")):
        doc = report.to_json()
        assert Report.from_json(doc).to_json() == doc


def test_from_json_skips_entries_of_the_wrong_shape():
    report = Report.from_json({"version": "x", "sources": ["junk", {"path": "a.log"}], "findings": [None, 3],
                               "causes": [{"id": "O9", "score": "high", "fix": ["junk", {"knob": "k"}]}],
                               "unanswered": "nope", "healthy": 0})
    assert [s.path for s in report.sources] == ["a.log"] and report.findings == [] and report.unanswered == []
    assert report.causes[0].score is None and [f.knob for f in report.causes[0].fix] == ["k"]


def test_the_mapping_view_keeps_old_callers_working(broken):
    assert broken["causes"] == broken.to_json()["causes"] and broken.get("healthy") is False
    assert broken["_run"] is broken.run and broken["_diag"] is broken.diagnosis
    assert "_run" in broken and set(broken) == set(broken.to_json())


class Strict(Report):
    """A report that refuses the mapping view: what the renderers must never need."""

    def __getitem__(self, key):
        raise AssertionError(f"a renderer indexed the report: [{key!r}]")


def _strict(report: Report) -> Strict:
    return Strict(**{f: getattr(report, f) for f in report.__dataclass_fields__})


def test_renderers_read_attributes_not_the_old_dict(broken, with_errors, kb):
    from triage.render.console import out_console
    from triage.render.html import render_report_html
    from triage.render.markdown import render_report_md
    from triage.render.scan import render_scan, summary_line

    for report in (_strict(broken), _strict(with_errors)):
        buf = io.StringIO()
        render_scan(out_console(file=buf, terminal=True, width=100), report, verbose=True)
        assert "Most likely causes" in buf.getvalue() and report.causes[0].id in summary_line(report)
        assert report.causes[0].id in render_report_html(report, kb=kb)
        assert report.causes[0].id in render_report_md(report, kb=kb)


# -- one run -> evidence path ----------------------------------------------------------------------------
def test_scan_and_ask_log_read_a_log_into_the_same_answers(kb, broken):
    """`scan` and `ask --log` share triage.engine.evidence.apply_run: what scan learns from the log,
    `ask --log` learns too (ask adds what the log answers by showing nothing abnormal)."""
    diag, _ = S.prepare(kb, logs=[str(BROKEN)])
    scanned = {q: (a.value, a.source) for q, a in broken.diagnosis.answers.items()}
    asked = {q: (a.value, a.source) for q, a in diag.answers.items()}
    assert scanned and all(asked.get(q) == v for q, v in scanned.items()), (scanned, asked)


def test_watch_leads_a_finding_to_a_cause_that_rests_on_it(kb, broken):
    from triage.engine.watch import lead_for

    for f in broken.findings:
        lead = lead_for(kb, broken.run, broken.findings, f)
        cause = next((c for c in broken.causes if c.id == lead.cause), None)
        if cause is not None:  # a cause ranked by scan as well: its evidence names this finding
            assert broken.findings.index(f) in cause.findings(), (f.summary, lead.cause)


# -- the display port --------------------------------------------------------------------------------------
class Recorder:
    """A display that keeps the events: a session tested without any console."""

    def __init__(self):
        self.events = []

    def show(self, event) -> None:
        self.events.append(event)


def test_a_session_shows_itself_only_through_events(kb):
    answers = {"Q-start": "rl-signal", "Q-domain": "rlhf", "Q-grpo-reward": "zero", "Q-grpo-reward-std": "zero"}
    display = Recorder()
    out = S.Session(kb, S.AnswersPrompter(S.Replay(answers)), display).run()
    kinds = [type(e).__name__ for e in display.events]
    assert kinds[0] == "Intro" and kinds[-1] == "End" and out.top[0].id == display.events[-1].cards[0].id
    assert display.events[0].answered and all(isinstance(e, (S.Intro, S.Asking, S.Answered, S.End)) for e in display.events)


def test_the_quiet_display_shows_nothing(kb, capsys):
    S.Session(kb, S.AnswersPrompter(S.Replay({"Q-start": "nan"})), S.QuietDisplay()).run()
    assert capsys.readouterr().out == ""


# -- numbers and sparklines ---------------------------------------------------------------------------------
@pytest.mark.parametrize("value, digits, text", [
    (None, 3, ""), (0.0, 3, "0"), (7, 3, "7"), (123456, 3, "123456"), (2.30258, 3, "2.3"), (2.30258, 4, "2.303"),
    (12345.6, 3, "12346"), (123456.7, 3, "1.23e5"), (0.000123, 3, "1.23e-4"), (-0.5, 3, "-0.5"),
    (float("nan"), 3, "nan"), (float("-inf"), 3, "-inf"), (np.float64(0.05), 3, "0.05"),
])
def test_number(value, digits, text):
    from triage.render.numbers import number

    assert number(value, digits) == text


def test_step_text():
    from triage.render.numbers import step_text

    assert [step_text(x) for x in (None, 1204, 1204.0, 12.5)] == ["?", "1,204", "1,204", "12.5"]


def test_sparkline_keeps_nan_visible_and_a_spike_with_peak():
    from triage.render.numbers import sparkline

    assert sparkline([]) == "" and sparkline([1.0, 1.0, 1.0]) == "▅▅▅"
    assert sparkline([1.0, float("nan"), 3.0], 3) == "▁×█"
    spike = [1.0] * 99 + [50.0]
    assert sparkline(spike, 4)[-1] == "▁" and sparkline(spike, 4, peak=True)[-1] == "█"  # a mean hides it
    gap = sparkline([1.0, 2.0, 3.0], 10, steps=[0, 1, 100], nan_mark="!")
    assert len(gap) == 10 and gap[0] != " " and gap[5] == " " and gap[-1] == "█"
    assert sparkline([float("inf")] * 4) == "××××"  # all non-finite: marks, not an error
