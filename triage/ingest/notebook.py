"""Jupyter notebooks (`.ipynb`): what their code cells printed.

A notebook shared beside a paper or in a bug report keeps the training output inside its JSON: the
`stream` text of each code cell (stdout, stderr), the `text/plain` of results and displays, and the
traceback of a cell that failed. Those texts, in cell order, are a printed log like any other and
are read by the printed-log reader; the notebook's own metadata (`nbformat`, kernel versions) is
never a metric. Both the current layout (`cells`) and nbformat 3 (`worksheets[].cells`, `pyout`)
are read. Its code cells are parsed, never run (triage.ingest.code): the bugs that read plain in
the code are kept on the run as `meta["code_facts"]` for the detectors.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from triage.ingest import code, jsondoc, textlog
from triage.ingest.contract import Reader, register
from triage.ingest.errors import IngestError
from triage.ingest.run import Run
from triage.ingest.source import Source

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _sniff(src: Source) -> float:
    head = src.head()[:65536]
    if src.name.endswith(".ipynb") and head.lstrip()[:1] == b"{":
        return 0.97  # (a notebook whose widget state comes first shows no cell in its first 64 KiB)
    if b'"cells"' not in head and b'"worksheets"' not in head:
        return 0.0
    if b'"nbformat"' in src.head() or b'"cell_type"' in head:
        return 0.97
    return 0.0


class _Tables(HTMLParser):
    """The rows of the HTML tables in a display (the progress tables HF Trainer and fastai draw in a
    notebook keep only `<IPython.core.display.HTML object>` as their plain text)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None
        self.skip = 0  # inside <style> or <script>

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self.skip += 1
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th") and self.rows:
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self.skip = max(0, self.skip - 1)
        elif tag in ("td", "th") and self.cell is not None and self.rows:
            self.rows[-1].append(" ".join("".join(self.cell).split()) or "-")
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None and not self.skip:
            self.cell.append(data)


def _html_tables(html: str) -> str:
    """A display's HTML tables as tab-separated text, one line per row."""
    if "<table" not in html or len(html) > 4_000_000:
        return ""
    parser = _Tables()
    try:
        parser.feed(html)
        parser.close()
    except (ValueError, AssertionError):  # (malformed markup: read what was parsed)
        pass
    return "".join("\t".join(row) + "\n" for row in parser.rows if row)


# W&B's closing display in a notebook: `Run history:` (one sparkline per metric) and `Run summary:`
# (each metric's last logged value, and the last step) as HTML tables of class `wandb`.
_WANDB_RUN_END = re.compile(r"<h3>\s*Run (?:history|summary):\s*</h3>")


def _display_text(data: dict) -> str:
    """What a display shows: its plain text, or its HTML tables when the plain text is only the
    object's repr (`<IPython.core.display.HTML object>`). W&B's run history and summary show again
    what training logged: no record of their own (the summary's last values would be a step more)."""
    plain = _text(data.get("text/plain"))
    stripped = plain.strip()
    if (not stripped or (stripped.startswith("<") and stripped.endswith(">"))) and "text/html" in data:
        html = _text(data.get("text/html"))
        if 'class="wandb"' in html and _WANDB_RUN_END.search(html):
            return plain
        return _html_tables(html) or plain
    return plain


def _text(value) -> str:
    if isinstance(value, list):
        return "".join(str(v) for v in value)
    return value if isinstance(value, str) else ""


def _cells(nb: dict) -> list:
    cells = nb.get("cells")
    if isinstance(cells, list):
        return cells
    out: list = []
    for sheet in nb.get("worksheets") or []:  # nbformat 3
        if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list):
            out.extend(sheet["cells"])
    return out


# A sample of what the policy generated, printed at every step by GRPO reward functions (the prints
# `'-' * 20, f"Question:\n{q}", f"Answer:\n{a}", f"Response:\n{r}", f"Extracted:\n{x}"` many RL
# notebooks copy): a question, its reference answer and the model's reasoning, full of numbers that
# are arithmetic (`m=6, n=12`, `Total cost = 24`), never a metric.
_SAMPLE_HEAD = re.compile(r"^[-*=#~ ]*(?:Question|Prompt)\s*:", re.M)
_SAMPLE_REPLY = re.compile(r"^(?:Response|Completion|Generated|Output)\s*:", re.M)
_SAMPLE_END = re.compile(r"^\s*\{\s*['\"]")  # a trainer's logged dict goes on after the sample


def _without_samples(text: str) -> str:
    """The text with its printed generation samples left out: each runs from its `Question:` line
    to the next one, to a logged dict, or to the end of the output (the print ends the sample; the
    trainer's table is an output of its own)."""
    head = _SAMPLE_HEAD.search(text)
    if head is None or _SAMPLE_REPLY.search(text, head.start()) is None:
        return text
    kept: list[str] = []
    inside = False
    for line in text[head.start():].splitlines(keepends=True):
        if _SAMPLE_HEAD.match(line):
            inside = True
        elif inside and _SAMPLE_END.match(line):
            inside = False
        if not inside:
            kept.append(line)
    return text[:head.start()] + "".join(kept)


def outputs_text(nb: dict) -> tuple[str, int]:
    """The text the notebook's code cells printed, in order, and how many cells printed any."""
    parts: list[str] = []
    printed = 0
    for cell in _cells(nb):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        before = len(parts)
        for out in cell.get("outputs") or []:
            if not isinstance(out, dict):
                continue
            kind = out.get("output_type")
            if kind == "stream":
                text = _text(out.get("text"))
            elif kind in ("execute_result", "display_data", "pyout"):
                data = out.get("data")
                text = _display_text(data) if isinstance(data, dict) else _text(out.get("text"))
            elif kind in ("error", "pyerr"):
                trace = out.get("traceback")
                text = _ANSI.sub("", "\n".join(str(t) for t in trace)) if isinstance(trace, list) else ""
                text = text or f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"
            else:
                continue
            if text and kind != "error" and kind != "pyerr":
                text = _without_samples(text)
            if text:
                parts.append(text if text.endswith("\n") else text + "\n")
        printed += len(parts) > before
    return "".join(parts), printed


def read(src: Source) -> Run:
    nb = jsondoc.load(src, final=True)
    if not isinstance(nb, dict) or not _cells(nb):
        raise IngestError(src.path, "a JSON document with no notebook cells")
    text, printed = outputs_text(nb)
    if not text.strip():
        raise IngestError(src.path, "a Jupyter notebook whose code cells printed nothing (run it, then save it, "
                                    "or pass the training log itself)", final=True)
    run = textlog.read(Source(src.path, None, text.encode("utf-8")), None, bulk=False)
    run.format = "notebook"
    run.warn(f"read the output of {printed} code cell{'s' if printed != 1 else ''} of the notebook")
    found, unparsed = code.facts(code_sources(nb))
    if found:
        run.meta["code_facts"] = [f.to_dict() for f in found]
    if unparsed:
        run.warn(f"{unparsed} code cell{'s' if unparsed != 1 else ''} could not be parsed as Python 3 "
                 f"and {'were' if unparsed != 1 else 'was'} not checked for bugs")
    return run


def code_sources(nb: dict) -> list[str]:
    """The source of each code cell, in order (`source` in nbformat 4, `input` in 3)."""
    out = []
    for cell in _cells(nb):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            out.append(_text(cell.get("source", cell.get("input"))))
    return out


register(Reader(
    "notebook", "a Jupyter notebook (.ipynb): the training output its code cells printed, and the bugs plain in "
    "their code (parsed, never run)", _sniff, read,
    priority=75, aliases=("ipynb", "jupyter"), suffixes=(".ipynb",), fallback="text",
))
