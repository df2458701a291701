"""The reader contract: a format module that registers itself is sniffed, taken by `--format` (and its
aliases), found in run folders and listed in `inspect --help` with no edit anywhere else; the README's
list of formats is the registry's."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.cli import app
from triage.ingest import IngestError, read_run
from triage.ingest import registry
from triage.ingest.contract import FORMATS, Reader, register, unregister
from triage.ingest.source import Source

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "logs"

# A whole format in one module, as a contributor would write it: a header line, then "step loss" rows.
TOY_MODULE = '''
"""Toy trainer logs: a '#toylog' line, then one 'step loss' pair per line."""
from triage.ingest.builder import RunBuilder
from triage.ingest.contract import Found, Layout, Reader, register


def sniff(src):
    return 1.0 if src.head().startswith(b"#toylog") else 0.0


def read(src):
    b = RunBuilder(src.path, "toylog")
    for line in src.text().splitlines()[1:]:
        step, loss = line.split()
        b.add("loss", float(loss), float(step))
        b.end_row(True, float(step))
    return b.build()


def find(root):
    runs = sorted(root.glob("*.toy"))
    if not runs:
        return None
    return Found.file(runs[-1], "toylog", [f"{len(runs)} toy runs; read {runs[-1].name}"] if len(runs) > 1 else [])


register(Reader("toylog", "Toy trainer log (a #toylog header line)", sniff, read, priority=75,
                aliases=("toy", "toy-trainer"), layouts=(Layout(45, "*.toy", find),)))
'''
TOY_LOG = "#toylog\n1 2.50\n2 2.25\n3 2.00\n"


@pytest.fixture
def toy(tmp_path):
    """Import the toy module (it registers itself); unregister it afterwards."""
    path = tmp_path / "toylog_reader.py"
    path.write_text(TOY_MODULE)
    spec = importlib.util.spec_from_file_location("toylog_reader", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    unregister("toylog")
    sys.modules.pop("toylog_reader", None)


def test_a_registered_module_is_sniffed(toy, tmp_path):
    log = tmp_path / "train.log"  # a .log name and a text reader that would read it too: content decides
    log.write_text(TOY_LOG)
    assert registry.sniff(Source.from_path(log)) == "toylog"
    run = read_run(log)
    assert run.format == "toylog" and run.meta["rows"] == 3
    assert list(run.get("loss").values) == [2.5, 2.25, 2.0]


def test_a_registered_module_takes_format_and_its_aliases(toy, tmp_path):
    log = tmp_path / "headerless.txt"
    log.write_text(TOY_LOG.replace("#toylog", "#"))  # no header: only --format makes it a toy log
    assert registry.sniff(Source.from_path(log)) != "toylog"
    for name in ("toylog", "toy", "Toy-Trainer"):
        assert read_run(log, fmt=name).format == "toylog"
    result = runner.invoke(app, ["inspect", "--json", "--format", "toy", str(log)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["runs"][0]["format"] == "toylog"


def test_a_registered_layout_is_found_in_folders_in_its_order(toy, tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "a.toy").write_text(TOY_LOG)
    (run_dir / "b.toy").write_text(TOY_LOG)
    # without the toy layout the folder's last-resort pick (or trainer_state.json, order 50) would win
    (run_dir / "metrics.jsonl").write_text('{"step": 1, "loss": 9.0}\n{"step": 2, "loss": 8.0}\n')
    (run_dir / "trainer_state.json").write_text('{"log_history": [{"step": 1, "loss": 9.0}]}')
    run = read_run(run_dir)
    assert run.format == "toylog" and run.meta["file"] == str(run_dir / "b.toy")
    assert "2 toy runs; read b.toy" in run.meta["warnings"]
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(IngestError, match=r"looked for .*\*\.toy"):
        read_run(empty)


def test_a_registered_module_is_listed_in_inspect_help(toy):
    out = " ".join(runner.invoke(app, ["inspect", "--help"]).stdout.split())  # unwrapped
    assert "toylog Toy trainer log (a #toylog header line) [also: toy, toy-trainer]" in out
    assert re.search(r"--format FORMAT Force the format [^.]*\btoylog\b", out)


def test_unregistering_removes_it_everywhere(toy, tmp_path):
    log = tmp_path / "train.log"
    log.write_text(TOY_LOG)
    unregister("toylog")
    assert registry.sniff(Source.from_path(log)) != "toylog"
    with pytest.raises(IngestError, match="unknown format 'toy'"):
        read_run(log, fmt="toy")
    assert "toylog" not in runner.invoke(app, ["inspect", "--help"]).stdout


def test_folders_passed_through_keep_their_notes(tmp_path):
    """wandb/ holding two runs: the newer is read, W&B's output.log beside it adds its errors, and the
    note saying which run was read survives the step into the run folder."""
    import shutil

    src = next((FIXTURES / "wandb").glob("offline-run-*/run-*.wandb"))
    for name in ("offline-run-20250101_000000-aaaa", "offline-run-20260101_000000-bbbb"):
        (tmp_path / "wandb" / name / "files").mkdir(parents=True)
        shutil.copy(src, tmp_path / "wandb" / name / src.name)
    newer = tmp_path / "wandb" / "offline-run-20260101_000000-bbbb"
    (newer / "files" / "output.log").write_text("Traceback (most recent call last):\nRuntimeError: CUDA error\n")
    run = read_run(tmp_path)
    assert run.format == "wandb" and run.meta["file"].startswith(str(newer))
    assert "2 W&B runs; read offline-run-20260101_000000-bbbb" in run.meta["warnings"]
    assert run.meta["events_from"] == str(newer / "files" / "output.log") and run.events


def _reader(name: str, priority: int, magic: bytes = b"#tie", **kw) -> Reader:
    def read(src):
        from triage.ingest.run import Run

        return Run(src.path, name)

    return Reader(name, f"{name} test format", lambda src: 0.7 if src.head().startswith(magic) else 0.0, read,
                  priority=priority, **kw)


@pytest.mark.parametrize("order", [("tie_low", "tie_high"), ("tie_high", "tie_low")])
def test_equal_sniff_scores_go_to_the_higher_priority_whatever_the_import_order(tmp_path, order):
    log = tmp_path / "tie.log"
    log.write_text("#tie\n")
    try:
        for name in order:
            register(_reader(name, 61 if name == "tie_high" else 59))
        assert registry.sniff(Source.from_path(log)) == "tie_high"
    finally:
        for name in order:
            unregister(name)


def test_a_sniffed_file_that_fails_to_read_falls_back_only_when_the_format_says_so(tmp_path):
    log = tmp_path / "crash.log"
    log.write_text("#brittle\nTraceback (most recent call last):\nRuntimeError: CUDA out of memory\n")

    def broken(src):
        raise IngestError(src.path, "not really a brittle log")

    try:
        register(Reader("brittle", "test", lambda src: 0.99, broken, priority=99))
        with pytest.raises(IngestError, match="not really a brittle log"):
            read_run(log)
        register(Reader("brittle", "test", lambda src: 0.99, broken, priority=99, fallback="text"))
        run = read_run(log)
        assert run.format != "brittle" and any(e.kind in ("traceback", "error") for e in run.events)
    finally:
        unregister("brittle")


def test_names_and_aliases_cannot_clash():
    with pytest.raises(ValueError, match="alias 'tb'"):
        register(_reader("clash", 1, aliases=("tb",)))
    with pytest.raises(ValueError, match="already an alias"):
        register(_reader("ndjson", 1))
    with pytest.raises(ValueError, match="lower case"):
        register(_reader("Clash", 1))
    assert "clash" not in FORMATS


def test_every_registered_format_keeps_the_contract():
    heads = [b"", b"\x00\x01\x02binary\xff" * 20, b'{"step": 1, "loss": 2}\n', b"step,loss\n1,2\n", b"hello\n"]
    orders = [layout.order for layout, _ in registry.layouts()]
    assert len(orders) == len(set(orders)), "two folder layouts share an order: which wins would be arbitrary"
    for reader in FORMATS.values():
        assert reader.description and "\n" not in reader.description, reader.name
        assert not set(reader.aliases) & set(FORMATS), reader.name
        if reader.fallback is not None:
            assert reader.fallback in FORMATS, reader.name
        for head in heads:
            score = reader.sniff(Source("x.bin", None, head))
            assert 0.0 <= score <= 1.0, (reader.name, head[:10], score)
    assert registry.sniff(Source("-", None, b"\x00\x01\x02binary\xff" * 20)) == "binary"


README_BLOCK = re.compile(r"<!-- formats:begin.*?-->\n(.*?)\n<!-- formats:end -->", re.S)


def test_readme_lists_exactly_the_registered_formats():
    m = README_BLOCK.search((REPO / "README.md").read_text(encoding="utf-8"))
    assert m, "README.md lost its <!-- formats:begin --> ... <!-- formats:end --> block"
    assert m.group(1) == registry.readme_table(), (
        "README.md's list of formats differs from the registry: paste the output of "
        "`python -m triage.ingest.registry` between the formats markers")


def test_help_lists_every_registered_format_with_its_aliases():
    out = " ".join(runner.invoke(app, ["inspect", "--help"]).stdout.split())  # unwrapped
    for reader in FORMATS.values():
        also = f" [also: {', '.join(reader.aliases)}]" if reader.aliases else ""
        assert f" {reader.name} {reader.description}{also}" in out, reader.name
