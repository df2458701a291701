"""One error root: every user-facing error is a triage.errors.TriageError carrying its exit code,
the old import paths still name the same classes, and the command line turns any of them into one
`error:` line and that exit code in one place (triage.cli._Commands)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.errors import ExitCode, TriageError

ROOT = Path(__file__).resolve().parents[1]

# (module, class, exit code): the user-facing errors, by the paths callers import them from
USER_FACING = [
    ("triage.api", "TriageError", 2), ("triage.api", "NothingRead", 3), ("triage.api", "UnknownID", 2),
    ("triage.api", "KnowledgeInvalid", 2), ("triage.ingest", "IngestError", 2), ("triage.ingest.errors", "IngestError", 2),
    ("triage.kb.loader", "KnowledgeError", 2), ("triage.engine.diff", "DiffError", 2), ("triage.engine.gate", "GateError", 2),
    ("triage.engine.session", "AskError", 2), ("triage.engine.transcript", "TranscriptError", 2),
    ("triage.sweep.refs", "SweepError", 2), ("triage.probes", "ProbeError", 2), ("triage.probes", "ProbeResultError", 2),
    ("triage.ingest.probe_result", "ProbeResultError", 2), ("triage.writeout", "OutputError", 2),
    ("triage.notify", "NotifyError", 2), ("triage.checklists", "UnknownChecklist", 2), ("triage.checklists", "ChecklistError", 2),
    ("triage.render.pdf", "PdfUnavailable", 2), ("triage.render.pdf", "PdfFailed", 2),
    ("triage.mcp_server", "SDKMissing", 2), ("triage.mcp_server", "ToolFailure", 2),
]

# Exceptions that are not errors a person sees: control flow inside one module, Ctrl-C with a
# saved session, and the standalone probe scripts' own (they run without triage on a GPU box).
NOT_USER_FACING = {"_NotPlain", "_Bad", "_NextQuestion", "SessionInterrupted", "Terminated", "SetupError", "ProbeTimeout"}


@pytest.mark.parametrize("module, name, code", USER_FACING, ids=[f"{m}.{n}" for m, n, _ in USER_FACING])
def test_user_facing_errors_derive_from_the_root(module, name, code):
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, TriageError) and cls.exit_code == code


def test_old_paths_name_the_same_classes():
    from triage import api, errors, probes
    from triage.ingest import probe_result

    assert api.TriageError is errors.TriageError
    assert probes.ProbeResultError is probe_result.ProbeResultError
    assert issubclass(TriageError, Exception) and ExitCode.ERROR == 2 and ExitCode.NOTHING_READ == 3


def _exception_classes():
    """Every class in triage/ that derives (by name) from an exception class."""
    for path in sorted((ROOT / "triage").rglob("*.py")):
        if "probes/scripts" in path.as_posix():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [getattr(b, "id", getattr(b, "attr", "")) for b in node.bases]
                if any(b.endswith(("Error", "Exception", "Failure", "Missing", "Unavailable", "Failed"))
                       or b in ("Exception", "BaseException") for b in bases):
                    yield path, node.name


def test_every_exception_class_is_a_triage_error_or_named_as_internal():
    listed = {name for _, name, _ in USER_FACING}
    stray = [f"{p.relative_to(ROOT)}: {name}" for p, name in _exception_classes()
             if name not in listed and name not in NOT_USER_FACING]
    assert not stray, ("exception classes that are neither TriageErrors (list them in USER_FACING with their exit "
                       f"code) nor internal (NOT_USER_FACING): {stray}")


# -- the one handler ---------------------------------------------------------------------------------
runner = CliRunner()


def test_an_error_is_one_line_with_its_exit_code(tmp_path):
    result = runner.invoke(app, ["explain", "NO-SUCH-ID"])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: unknown ID 'NO-SUCH-ID'")


def test_nothing_read_keeps_its_own_code(tmp_path):
    note = tmp_path / "note.txt"
    note.write_text("x\n", encoding="utf-8")
    assert runner.invoke(app, ["scan", str(note)]).exit_code == 3


def test_a_message_is_printed_as_written_not_as_markup(tmp_path):
    """A path with brackets is not rich markup: `[such]` stays in the message."""
    missing = tmp_path / "no[such].log"
    result = runner.invoke(app, ["scan", str(missing)])
    assert result.exit_code == 2 and f"error: {missing}: no such file" in result.stderr
