"""A diagnosis report written to a file: an offline HTML page or GitHub Markdown, by the file name.

Drawing is the renderers' job, so the report file is written here and not by triage.api (which
returns the `Report` and leaves showing it to its caller: the command line, the training callbacks).
"""

from __future__ import annotations

from pathlib import Path

from triage.errors import TriageError


def write_report(report, target: str, kb=None) -> str:
    """Write a `Report` (or its `scan --json` document) to `target`, .html/.htm or .md/.markdown,
    atomically with a shareable mode (triage.writeout). Returns the path written; a bad name or an
    unwritable place is a one-line TriageError."""
    from triage.writeout import OutputError, check_target, write_text

    path = Path(target)
    suffix = path.suffix.lower()
    if suffix in (".html", ".htm"):
        from triage.render.html import render_report_html

        text = render_report_html(report, kb=kb)
    elif suffix in (".md", ".markdown"):
        from triage.render.markdown import render_report_md

        text = render_report_md(report, kb=kb)
    else:
        raise TriageError(f"{target}: a report is .html or .md")
    try:
        check_target(path, what="report")
        write_text(path, text, what="report")
    except OutputError as exc:
        raise TriageError(str(exc)) from None
    return str(path)
