"""Issue 16, "Tracebacks": hostile files give one line and a documented exit code, never a
traceback, and one bad input never stops a batch."""

from __future__ import annotations

import json
import os

import pytest

from hostile_helpers import cli, cli_json
from triage.ingest import IngestError, read_run

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def deep(tmp_path):
    p = tmp_path / "deep.json"
    p.write_text(DEEP)
    return p


def test_deep_json_scan_and_inspect(deep):
    for cmd in ("scan", "inspect"):
        code, out = cli(cmd, str(deep))
        assert code == 2 and "nested" in out and "Traceback" not in out, (cmd, out)


def test_deep_json_object_in_a_json_file_is_refused_not_read_as_text(tmp_path):
    p = tmp_path / "run.json"
    p.write_text('{"a":' * 50_000 + "1" + "}" * 50_000)
    with pytest.raises(IngestError) as err:
        read_run(p)
    assert "nested" in str(err.value)


def test_a_deep_jsonl_line_is_counted(tmp_path):
    p = tmp_path / "log.jsonl"
    p.write_text('{"step": 1, "loss": 1.0}\n{"a": ' + DEEP + '}\n{"step": 2, "loss": 0.9}\n')
    run = read_run(p)
    assert len(run.get("loss")) == 2 and run.skipped_total == 1


def test_deep_json_in_ask_evidence_resume_and_answers(deep, tmp_path):
    deep_yaml = tmp_path / "answers.json"
    deep_yaml.write_text(DEEP)
    for args in (["ask", "--evidence", str(deep), "--answers", os.devnull],
                 ["ask", "--resume", str(deep), "--answers", os.devnull],
                 ["ask", "--answers", str(deep_yaml)]):
        code, out = cli(*args)
        assert code == 2 and "Traceback" not in out and out.count("\n") <= 2, (args, out)


def test_deep_json_does_not_stop_a_batch(deep, tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text("".join(json.dumps({"step": s, "loss": 2 - s / 100}) + "\n" for s in range(50)))
    for extra in ([], ["--jobs", "2"]):
        code, docs = cli_json("scan", "--json", *extra, str(deep), str(good))
        assert code == 2
        assert "error" in docs[0] and "nested" in docs[0]["error"]
        assert "error" not in docs[1] and docs[1]["sources"][0]["rows"] == 50


def test_wandb_latest_run_symlink_loop(tmp_path):
    (tmp_path / "wandb").mkdir()
    os.symlink("..", tmp_path / "wandb" / "latest-run")
    code, out = cli("inspect", str(tmp_path))
    assert code == 2 and "no training log" in out and "Traceback" not in out


def test_wandb_latest_run_loop_beside_a_real_run(tmp_path):
    """The loop is passed over and the run folder beside it is read."""
    run_dir = tmp_path / "wandb" / "run-20240101_000000-abc"
    run_dir.mkdir(parents=True)
    (run_dir / "wandb-history.jsonl").write_text("".join(json.dumps({"_step": s, "loss": 1 / (s + 1)}) + "\n"
                                                          for s in range(5)))
    os.symlink("..", tmp_path / "wandb" / "latest-run")
    run = read_run(tmp_path)
    assert len(run.get("loss")) == 5


def test_a_self_referencing_symlink(tmp_path):
    os.symlink("loop", tmp_path / "loop")
    (tmp_path / "train.log").write_text("step 1 loss 2.0\nstep 2 loss 1.9\n")
    run = read_run(tmp_path)
    assert len(run.get("loss")) == 2


def _deny(monkeypatch, folder):
    """Make `folder` unreadable. Root ignores permission bits, so then listing it raises
    PermissionError here the way it does for any other user."""
    if os.geteuid() != 0:
        os.chmod(folder, 0)
        return
    real_scandir, real_listdir, real_stat = os.scandir, os.listdir, os.stat
    target = str(folder)

    def inside(path) -> bool:
        p = os.fspath(path) if not isinstance(path, int) else ""
        return p == target or p.startswith(target + os.sep)

    def scandir(path="."):
        if inside(path):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    def listdir(path="."):
        if inside(path):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_listdir(path)

    def stat(path, *a, **kw):
        if not isinstance(path, int) and os.fspath(path).startswith(target + os.sep):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_stat(path, *a, **kw)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(os, "listdir", listdir)
    monkeypatch.setattr(os, "stat", stat)


def test_an_unreadable_subfolder_is_a_warning(tmp_path, monkeypatch):
    (tmp_path / "train.log").write_text("step 1 loss 2.0\nstep 2 loss 1.9\n")
    locked = tmp_path / "mlruns"
    (locked / "0").mkdir(parents=True)
    try:
        _deny(monkeypatch, locked)
        run = read_run(tmp_path)
    finally:
        monkeypatch.undo()
        os.chmod(locked, 0o755)
    assert len(run.get("loss")) == 2
    assert any("cannot be read" in w and "mlruns" in w for w in run.meta["warnings"]), run.meta["warnings"]


def test_an_unreadable_tensorboard_subfolder_is_counted(tmp_path, monkeypatch):
    from hostile_helpers import event_file

    data, _ = event_file(10)
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "events.out.tfevents.1.host").write_bytes(data)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "events.out.tfevents.2.host").write_bytes(data)
    try:
        _deny(monkeypatch, locked)
        run = read_run(tmp_path)
    finally:
        monkeypatch.undo()
        os.chmod(locked, 0o755)
    assert len(run.get("loss")) == 5
    assert any("locked" in w and "cannot be read" in w for w in run.meta["warnings"]), run.meta["warnings"]


# -- --resume with hand-edited types ------------------------------------------------------------------
@pytest.mark.parametrize("doc, says", [
    ({"answers": [{"question": 5, "answer": "x"}]}, "'question'"),
    ({"answers": [{"question": "Q-start", "answer": {"a": 1}}]}, "'answer'"),
    ({"answers": [{"question": "Q-start", "answer": "nan", "source": 3}]}, "'source'"),
    ({"answers": [], "text": [{"cause": "O9", "weight": "nan"}]}, "'weight'"),
    ({"answers": [], "text": [{"cause": "O9", "weight": float("inf")}]}, None),
    ({"answers": [], "text": [{"cause": "O9", "weight": -1}]}, "'weight'"),
    ({"answers": [], "text": "O9"}, "'text'"),
    ({"answers": [], "excluded": [1, 2]}, "'excluded'"),
    ({"answers": [], "context": ["x"]}, "'context'"),
    ({"answers": [], "context": {"framework": 7}}, "'context.framework'"),
])
def test_resume_with_wrong_types_is_one_line(tmp_path, doc, says):
    p = tmp_path / "session.json"
    p.write_text(json.dumps(doc))  # inf is written as Infinity, which a transcript never holds
    code, out = cli("ask", "--resume", str(p), "--answers", os.devnull)
    assert code == 2 and "Traceback" not in out and "nan%" not in out, out
    assert len(out.strip().splitlines()) == 1
    if says:
        assert says in out
