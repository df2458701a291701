"""Checklists and reports: knowledge, Markdown (task lists, anchors), HTML, the CLI, and real
printing through headless Chromium checked with poppler's pdftotext (skipped without them)."""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from report_doc import DOC, HEALTHY, series
from triage import checklists
from triage.cli import app
from triage.kb.base import KnowledgeBase
from triage.kb.validate import check
from triage.render.html import render_checklist_html, render_report_html, svg_chart
from triage.render.markdown import github_slug, render_checklist_md, render_report_md
from triage.render.pdf import find_browser, html_to_pdf

EXPECTED = [
    "preflight", "first-100-steps", "post-mortem", "llm", "dpo-grpo", "vision-classification",
    "detection", "segmentation", "diffusion", "classic-rl", "vlm", "distillation",
]

HAVE_PRINT = bool(find_browser()) and bool(shutil.which("pdftotext")) and bool(shutil.which("pdfinfo"))
needs_print = pytest.mark.skipif(not HAVE_PRINT, reason="needs headless chromium and poppler-utils (scripts/test installs them)")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.load(use_cache=False)


@pytest.fixture(scope="module")
def all_lists(kb) -> dict[str, checklists.Checklist]:
    return {cl.id: cl for cl in checklists.all_checklists(kb)}


# -- knowledge ------------------------------------------------------------------------------
def test_every_checklist_is_there_general_ones_first(all_lists):
    assert set(EXPECTED) <= set(all_lists)
    assert list(all_lists)[:3] == ["preflight", "first-100-steps", "post-mortem"]


def test_checklists_pass_kb_check(kb):
    problems = [p for p in check(kb) if "checklists" in p.path]
    assert not problems, "\n".join(p.format() for p in problems)


@pytest.mark.parametrize("name", EXPECTED)
def test_every_item_links_to_existing_nodes(all_lists, name):
    cl = all_lists[name]
    assert cl.items, name
    for item in cl.items:
        assert item.text and item.links, item.number
        assert all(link.known and link.command for link in item.links), (item.number, [l.id for l in item.links])
        causes = [l for l in item.links if l.kind == "cause"]
        assert all(l.url.startswith("https://") for l in causes if l.url), item.number


def test_preflight_covers_the_gates(all_lists):
    text = " ".join(i.text.lower() for i in all_lists["preflight"].items)
    for gate in ("schema sanity", "forward smoke", "loss at initialisation", "overfit one batch",
                 "lr range test", "tiny-data run", "split", "jsonl"):
        assert gate in text, gate


def test_first_100_steps_gives_healthy_ranges(all_lists):
    cl = all_lists["first-100-steps"]
    titles = [s.title for s in cl.sections]
    assert "DPO specifics" in titles and "GRPO specifics" in titles
    ranges = " ".join(i.range for i in cl.items)
    for number in ("0.1-10", "0.001-1.0", "0.05-0.5", "0.15", "0.8", "2^13"):
        assert number in ranges, number


def _write_kb(root: Path, checklist_yaml: str) -> None:
    (root / "checklists").mkdir(parents=True)
    (root / "symptoms").mkdir()
    (root / "symptoms" / "Q-start.yaml").write_text(
        "id: Q-start\nkind: symptom\nquestion: What?\nhelp: Pick.\nanswers:\n"
        "  - {value: a, label: A}\n  - {value: b, label: B}\n", encoding="utf-8")
    (root / "checklists" / "bad.yaml").write_text(checklist_yaml, encoding="utf-8")


def test_validator_names_unknown_item_fields_and_domains(tmp_path):
    _write_kb(tmp_path, "id: bad\nkind: checklist\ntitle: Bad\ndomains: [cooking]\nsections:\n"
                        "  - title: S\n    items:\n      - {text: T, links: [Q-start], colour: red}\n"
                        "      - {text: U, links: [Q-nope]}\n      - {text: V, links: []}\n")
    kb = KnowledgeBase.load([str(tmp_path)], use_cache=False, builtin=False)
    messages = [p.message for p in check(kb) if p.node == "bad"]
    assert any("unknown fields: colour" in m for m in messages), messages
    assert any("unknown domain 'cooking'" in m for m in messages), messages
    assert any("unknown ID 'Q-nope'" in m for m in messages), messages
    assert any("at least one node ID" in m for m in messages), messages


# -- Markdown -------------------------------------------------------------------------------
def _md_structure(text: str) -> tuple[list[str], set[str], list[str]]:
    """(task-list item texts, heading anchors, in-page link targets) as a real parser sees them."""
    md = MarkdownIt("commonmark").enable("table")
    tokens = md.parse(text)
    tasks, slugs, targets, seen = [], set(), [], {}
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            inline = tokens[i + 1]
            plain = "".join(c.content for c in inline.children or [] if c.type in ("text", "code_inline"))
            slugs.add(github_slug(plain, seen))
        if tok.type == "list_item_open":
            para = tokens[i + 2] if tokens[i + 1].type == "paragraph_open" else None
            if para is not None and para.content.startswith("[ ] "):
                tasks.append(para.content)
        if tok.type == "inline":
            for child in tok.children or []:
                href = child.attrGet("href") if child.type == "link_open" else None
                if href and href.startswith("#"):
                    targets.append(href[1:])
    return tasks, slugs, targets


@pytest.mark.parametrize("name", EXPECTED)
def test_markdown_task_lists_and_anchors(all_lists, name):
    cl = all_lists[name]
    text = render_checklist_md(cl)
    tasks, slugs, targets = _md_structure(text)
    assert len(tasks) == len(cl.items)
    for task, item in zip(tasks, cl.items):
        assert task.startswith(f"[ ] **{item.number}**"), task[:40]
    assert targets, "no in-page links"
    broken = sorted({t for t in targets if t not in slugs})
    assert not broken, broken
    for link in cl.links:  # every linked node has its own heading
        assert github_slug(link.id) in slugs


def test_github_slug_rules():
    seen: dict[str, int] = {}
    assert github_slug("1. Write down the data inventory", seen) == "1-write-down-the-data-inventory"
    assert github_slug("Q-loss-init", seen) == "q-loss-init"
    assert github_slug("loss_at_init", seen) == "loss_at_init"
    assert github_slug("Q-loss-init", seen) == "q-loss-init-1"


# -- HTML -----------------------------------------------------------------------------------
def _assert_offline(html: str) -> None:
    assert "<script" not in html.lower() and "<link" not in html.lower() and "@import" not in html
    assert not re.search(r"\bsrc\s*=", html), "no external resources"
    assert "url(" not in html


@pytest.mark.parametrize("paper, size", [(None, None), ("a4", "size: A4"), ("letter", "size: letter")])
def test_checklist_html_is_standalone_and_print_ready(all_lists, paper, size):
    cl = all_lists["preflight"]
    html = render_checklist_html(cl, paper=paper)
    _assert_offline(html)
    assert html.count('class="item"') == len(cl.items)
    assert html.count('class="box"') == len(cl.items)
    assert "break-inside: avoid" in html and "@page" in html
    if size:
        assert size in html
    else:
        assert "size:" not in html.split("@page", 1)[1].split("}", 1)[0]
    for link in cl.links:  # each link's address printed as a note
        assert f"[1] {link.url}" in html or f"] {link.url}</li>" in html


def test_report_html_has_charts_marks_and_plan(kb):
    html = render_report_html(DOC, series(), None, kb=kb)
    _assert_offline(html)
    assert html.count("<svg") == 3
    assert html.count('class="mark"') >= 2 and 'class="nonfinite"' in html
    assert "log scale" in html  # grad_norm spans five decades
    plan = checklists.fix_plan(DOC, kb)
    assert [s.knob for s in plan] == ["max_grad_norm: 1.0", "learning_rate: 1e-5"]
    assert plan[0].also_for == ["S-lr-too-high"]
    assert plan[0].verify == " ".join(str(kb["S-grad-explosion"].get("verify")).split())
    assert html.count('id="todo-') == 2
    assert "Verify</dt>" in html and "If not</dt>" in html


def test_report_healthy_and_explicit_marks(kb):
    html = render_report_html(HEALTHY, {"loss": [(1, 2.0), (2, 1.5)]}, [{"metric": "loss", "step": 2, "label": "here"}], kb=kb)
    assert "healthy" in html and 'id="todo' not in html and ">here<" in html
    md = render_report_md(HEALTHY, None, None, kb=kb)
    assert "**Healthy:**" in md


def test_svg_chart_survives_odd_input():
    assert "no data" in svg_chart("x", [])
    svg = svg_chart("x", [(0, None), (1, "nan"), (2, 3.0), (3, float("inf"))])
    assert svg.count('class="nonfinite"') == 3
    assert "<svg" in svg_chart("flat", [(i, 1.0) for i in range(10)])
    big = svg_chart("big", [(i, float(i % 7)) for i in range(100_000)])
    assert len(big) < 200_000  # decimated, spikes kept


def test_report_markdown(kb):
    md = render_report_md(DOC, series(), None, kb=kb)
    tasks, slugs, targets = _md_structure(md)
    assert len(tasks) == 2 + len(DOC["unanswered"])
    assert all(t in slugs for t in targets)
    assert "!" in md.split("**loss**", 1)[1].split("```", 2)[1]  # NaN visible in the sparkline
    assert "*Verify:*" in md


# -- CLI ------------------------------------------------------------------------------------
runner = CliRunner()


def test_cli_lists_checklists():
    result = runner.invoke(app, ["checklist"])
    assert result.exit_code == 0
    for name in EXPECTED:
        assert name in result.output


def test_cli_text_and_md(tmp_path):
    result = runner.invoke(app, ["checklist", "first-100-steps"])
    assert result.exit_code == 0 and "[ ]" in result.output and "GRPO specifics" in result.output
    out = tmp_path / "pre.md"
    result = runner.invoke(app, ["checklist", "preflight", "--format", "md", "-o", str(out)])
    assert result.exit_code == 0
    assert out.read_text(encoding="utf-8").count("- [ ] **") == 33 or "- [ ] **1.1**" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("args, message", [
    (["checklist", "nope"], "no checklist named 'nope'"),
    (["checklist", "preflight", "--format", "docx"], "unknown format"),
    (["checklist", "preflight", "--format", "html", "--paper", "a3"], "unknown paper"),
])
def test_cli_errors_exit_2(args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert message in result.output


def test_cli_pdf_without_browser_exits_2(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_CHROMIUM", str(tmp_path / "no-such-browser"))
    result = runner.invoke(app, ["checklist", "preflight", "--format", "pdf", "-o", str(tmp_path / "x.pdf")])
    assert result.exit_code == 2
    assert "apt-get install chromium" in result.output
    assert not (tmp_path / "x.pdf").exists()


# -- printing in a real browser -------------------------------------------------------------
class _Items(HTMLParser):
    """Every top-level `li.item` as its text blocks (the item line, each fact, the links line,
    each note): pdftotext may read a two-column block column by column, so the blocks are
    matched one by one, and all of them must sit on the same page."""

    BLOCKS = {"p", "dt", "dd", "li"}

    def __init__(self) -> None:
        super().__init__()
        self.items: list[list[str]] = []
        self.depth = 0  # li nesting inside the current item

    def handle_starttag(self, tag, attrs):
        if tag == "li" and self.depth == 0:
            if ("class", "item") in attrs:
                self.items.append([""])
                self.depth = 1
            return
        if self.depth:
            if tag == "li":
                self.depth += 1
            if tag in self.BLOCKS:
                self.items[-1].append("")

    def handle_endtag(self, tag):
        if tag == "li" and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.items[-1][-1] += data


def _squash(text: str) -> str:
    """Compare text without whitespace or hyphens: line breaks (and pdftotext's joining of
    words hyphenated at a line end) must not matter."""
    return re.sub(r"[\s\-\u2010\u00ad]+", "", unicodedata.normalize("NFKC", text))


def _pages(pdf: Path) -> list[str]:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    count = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    return [subprocess.run(["pdftotext", "-f", str(n), "-l", str(n), "-enc", "UTF-8", str(pdf), "-"],
                           capture_output=True, text=True, check=True).stdout for n in range(1, count + 1)]


def _assert_printed_whole(html: str, pdf: Path, size_pts: tuple[int, int]) -> list[str]:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    w, h = map(float, re.search(r"Page size:\s+([\d.]+) x ([\d.]+)", info).groups())
    assert (round(w), round(h)) == size_pts
    pages = _pages(pdf)
    squashed = [_squash(p) for p in pages]
    parser = _Items()
    parser.feed(html)
    assert parser.items
    for blocks in parser.items:
        keys = [_squash(b) for b in blocks if _squash(b)]
        first = " ".join(" ".join(blocks).split())[:80]
        assert keys, first
        whole = [n + 1 for n, page in enumerate(squashed) if all(k in page for k in keys)]
        assert whole, f"item missing or split across pages: {first!r} " + str(
            {k[:30]: [n + 1 for n, page in enumerate(squashed) if k in page] for k in keys})
    # the footer counts pages: the last page says "N / N"
    assert f"{len(pages)}/{len(pages)}" in squashed[-1]
    return pages


PAPER_PTS = {"a4": (595, 842), "letter": (612, 792)}


@pytest.fixture(scope="module")
def printed(tmp_path_factory, all_lists):
    """Every checklist on both sheets, printed in parallel: {(name, paper): (html, pdf)}."""
    if not HAVE_PRINT:
        pytest.skip("needs headless chromium and poppler-utils")
    out = tmp_path_factory.mktemp("pdf")
    jobs = {(name, paper): render_checklist_html(all_lists[name], paper=paper) for name in EXPECTED for paper in PAPER_PTS}

    def run(key):
        return key, html_to_pdf(jobs[key], out / f"{key[0]}-{key[1]}.pdf")

    with ThreadPoolExecutor(max_workers=4) as pool:
        return {key: (jobs[key], pdf) for key, pdf in pool.map(run, jobs)}


@needs_print
@pytest.mark.slow
@pytest.mark.parametrize("paper", list(PAPER_PTS))
@pytest.mark.parametrize("name", EXPECTED)
def test_checklist_prints_complete_and_unsplit(printed, all_lists, name, paper):
    html, pdf = printed[(name, paper)]
    pages = _assert_printed_whole(html, pdf, PAPER_PTS[paper])
    items = len(all_lists[name].items)
    assert 1 <= len(pages) <= items // 4 + 2, (name, paper, len(pages))
    assert _squash(all_lists[name].title) in _squash(pages[0])


@needs_print
@pytest.mark.slow
def test_report_prints_with_charts(tmp_path, kb):
    html = render_report_html(DOC, series(), None, kb=kb, paper="a4")
    pdf = html_to_pdf(html, tmp_path / "report.pdf")
    pages = _assert_printed_whole(html, pdf, PAPER_PTS["a4"])
    text = _squash(" ".join(pages))
    assert _squash("91 non-finite (NaN/Inf), first at step 310") in text  # chart text made it to paper
    for cause in DOC["causes"]:
        assert _squash(cause["id"]) in text


@needs_print
@pytest.mark.slow
def test_cli_pdf(tmp_path):
    out = tmp_path / "preflight.pdf"
    result = runner.invoke(app, ["checklist", "preflight", "--format", "pdf", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:5] == b"%PDF-"
