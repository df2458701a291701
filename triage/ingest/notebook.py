"""Jupyter notebooks (`.ipynb`): what their code cells printed.

A notebook shared beside a paper or in a bug report keeps the training output inside its JSON: the
`stream` text of each code cell (stdout, stderr), the `text/plain` of results and displays, and the
traceback of a cell that failed. Those texts, in cell order, are a printed log like any other and
are read by the printed-log reader; the notebook's own metadata (`nbformat`, kernel versions) is
never a metric. Both the current layout (`cells`) and nbformat 3 (`worksheets[].cells`, `pyout`)
are read.
"""

from __future__ import annotations

import re

from triage.ingest import jsondoc, textlog
from triage.ingest.contract import Reader, register
from triage.ingest.errors import IngestError
from triage.ingest.run import Run
from triage.ingest.source import Source

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _sniff(src: Source) -> float:
    head = src.head()[:65536]
    if b'"cells"' not in head and b'"worksheets"' not in head:
        return 0.0
    if src.name.endswith(".ipynb") or b'"nbformat"' in src.head() or b'"cell_type"' in head:
        return 0.97
    return 0.0


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
                text = _text(data.get("text/plain")) if isinstance(data, dict) else _text(out.get("text"))
            elif kind in ("error", "pyerr"):
                trace = out.get("traceback")
                text = _ANSI.sub("", "\n".join(str(t) for t in trace)) if isinstance(trace, list) else ""
                text = text or f"{out.get('ename', 'Error')}: {out.get('evalue', '')}"
            else:
                continue
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
    return run


register(Reader(
    "notebook", "a Jupyter notebook (.ipynb): the training output its code cells printed", _sniff, read,
    priority=75, aliases=("ipynb", "jupyter"), suffixes=(".ipynb",), fallback="text",
))
