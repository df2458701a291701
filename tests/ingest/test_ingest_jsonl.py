"""JSON Lines reader: every NaN spelling, broken lines, encodings, gzip, stdin, the parallel path."""

from __future__ import annotations

import gzip
import io
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from triage.ingest import IngestError, read_run
from triage.ingest import jsonl as jsonl_mod


def _write(tmp_path, text: str | bytes, name: str = "log.jsonl"):
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def test_nan_spellings_are_values(tmp_path):
    p = _write(tmp_path, "\n".join([
        '{"step": 1, "loss": NaN}', '{"step": 2, "loss": "nan"}', '{"step": 3, "loss": "NaN"}',
        '{"step": 4, "loss": Infinity}', '{"step": 5, "loss": -Infinity}', '{"step": 6, "loss": "inf"}',
        '{"step": 7, "loss": "-inf"}', '{"step": 8, "loss": "1e3"}', '{"step": 9, "loss": 0.5}']) + "\n")
    v = read_run(p).get("loss").values
    assert np.isnan(v[:3]).all()
    assert v[3] == math.inf and v[4] == -math.inf and v[5] == math.inf and v[6] == -math.inf
    assert v[7] == 1000.0 and v[8] == 0.5


def test_null_is_missing_in_generic_jsonl_but_nan_in_trainer_state(tmp_path):
    p = _write(tmp_path, '{"step": 1, "loss": 1.0}\n{"step": 2, "loss": null, "acc": 0.5}\n')
    run = read_run(p)
    assert run.get("loss").steps.tolist() == [1]
    state = {"log_history": [{"step": 1, "reward": 0.5, "loss": 0.1}, {"step": 2, "reward": None, "loss": 0.1}]}
    q = tmp_path / "trainer_state.json"
    q.write_text(json.dumps(state))
    r = read_run(q).get("reward")
    assert r.steps.tolist() == [1, 2] and math.isnan(r.values[1])  # TRL >= 1.0 writes an all-NaN metric as null


def test_crlf_bom_blank_and_bad_lines(tmp_path):
    text = '\ufeff{"step": 1, "loss": 1.0}\r\n\r\n{"step": 2, "loss": 0.9}\r\ngarbage\r\n[1]\r\n7\r\n{"step": 3, "loss": 0.8}\r\n'
    run = read_run(_write(tmp_path, text))
    assert run.get("loss").values.tolist() == [1.0, 0.9, 0.8]
    assert run.meta["skipped"] == {"blank line": 1, "not JSON": 1, "not an object": 2}
    assert run.meta["rows"] == 3


def test_truncated_last_line_is_counted(tmp_path):
    run = read_run(_write(tmp_path, '{"step": 1, "loss": 1.0}\n{"step": 2, "lo'))
    assert run.meta["skipped"] == {"truncated last line": 1}
    assert run.get("loss").values.tolist() == [1.0]


def test_string_floats_and_non_numeric_keys(tmp_path):
    run = read_run(_write(tmp_path, '{"step": "1", "loss": "2.5", "eta": "0:01:02", "ok": true, "tags": [1]}\n'))
    assert run.get("loss").values.tolist() == [2.5] and run.get("loss").steps.tolist() == [1]
    assert set(run.metrics()) == {"loss"}
    assert "eta" in run.meta["non_numeric_keys"]


def test_huge_line_is_skipped(tmp_path, monkeypatch):
    monkeypatch.setattr(jsonl_mod, "MAX_LINE", 1000)
    monkeypatch.setattr(jsonl_mod, "BLOCK", 256)
    big = '{"step": 2, "blob": "' + "x" * 5000 + '"}'
    run = read_run(_write(tmp_path, '{"step": 1, "loss": 1.0}\n' + big + '\n{"step": 3, "loss": 0.5}\n'))
    assert run.get("loss").steps.tolist() == [1, 3]
    assert run.meta["skipped"].get("line too long") == 1


def test_duplicates_keep_the_last_and_count(tmp_path):
    rows = [{"step": s, "loss": 1.0 / s} for s in range(1, 6)] + [{"step": s, "loss": 9.0} for s in range(3, 8)]
    run = read_run(_write(tmp_path, "\n".join(json.dumps(r) for r in rows)))
    loss = run.get("loss")
    assert loss.steps.tolist() == [1, 2, 3, 4, 5, 6, 7]
    assert loss.values.tolist()[2:] == [9.0] * 5
    assert run.meta["duplicates"] == 3 and run.meta["restarts"] == 1


def test_gzip_and_stdin(tmp_path, monkeypatch):
    text = '{"step": 1, "loss": NaN}\n{"step": 2, "loss": 0.5}\n'
    p = tmp_path / "log.jsonl.gz"
    p.write_bytes(gzip.compress(text.encode()))
    assert read_run(p).get("loss").nan_count() == 1
    for payload in (text.encode(), gzip.compress(text.encode())):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(payload)))
        run = read_run("-")
        assert run.path == "-" and run.format == "jsonl" and run.get("loss").nan_count() == 1


def test_truncated_gzip_reads_what_is_there(tmp_path):
    text = "".join(json.dumps({"step": i, "loss": 1.0}) + "\n" for i in range(2000))
    p = tmp_path / "live.jsonl.gz"
    p.write_bytes(gzip.compress(text.encode())[:-200])
    run = read_run(p)
    assert 0 < len(run.get("loss")) <= 2000


def test_nested_verl_file_logger_null_is_nan(tmp_path):
    text = '{"step": 1, "data": {"actor/entropy": 0.5, "critic/score/mean": null}}\n'
    run = read_run(_write(tmp_path, text))
    assert run.get("entropy").values.tolist() == [0.5]
    assert math.isnan(run.get("reward").values[0])


def test_mmdet2_iter_within_epoch(tmp_path):
    rows = [{"env_info": "x"}]
    for ep in (1, 2):
        for it in (50, 100):
            rows.append({"mode": "train", "epoch": ep, "iter": it, "lr": 0.01, "loss": 1.0 / (ep * it)})
        rows.append({"mode": "val", "epoch": ep, "iter": 100, "lr": 0.01, "bbox_mAP": 0.1 * ep})
    run = read_run(_write(tmp_path, "\n".join(json.dumps(r) for r in rows), "20230101.log.json"))
    assert run.get("loss").steps.tolist() == [50, 100, 150, 200]
    assert run.get("eval/map").steps.tolist() == [100, 200]


def test_parallel_path_equals_sequential(tmp_path, monkeypatch):
    rows = []
    for i in range(1, 3001):
        r = {"step": i, "loss": 1.0 / i, "grad_norm": float("nan") if i % 997 == 0 else 1.0}
        if i % 100 == 0:
            r = {"step": i, "eval_loss": 0.5}
        rows.append(json.dumps(r))
    rows.insert(1500, "broken {")
    p = _write(tmp_path, "\n".join(rows) + "\n")
    seq = read_run(p)
    monkeypatch.setattr(jsonl_mod, "PARALLEL_MIN", 1000)
    monkeypatch.setattr(jsonl_mod, "BLOCK", 4096)
    assert len(jsonl_mod._plan_ranges(jsonl_mod.Source.from_path(p))) > 1
    par = read_run(p)
    assert seq.meta["rows"] == par.meta["rows"] and seq.meta["skipped"] == par.meta["skipped"]
    for name in seq.metrics():
        a, b = seq.get(name), par.get(name)
        assert np.array_equal(a.steps, b.steps) and np.array_equal(a.values, b.values, equal_nan=True)


def _shm_leftovers() -> set[str]:
    import os

    return {n for n in os.listdir("/dev/shm") if n.startswith(f"triage-cols-{os.getpid()}-")} \
        if os.path.isdir("/dev/shm") else set()


def test_parallel_reader_that_dies_is_replaced_and_leaves_nothing_behind(tmp_path, monkeypatch):
    rows = [json.dumps({"step": i, "loss": 1.0 / i}) for i in range(1, 3001)]
    p = _write(tmp_path, "\n".join(rows) + "\n")
    seq = read_run(p)
    monkeypatch.setattr(jsonl_mod, "PARALLEL_MIN", 1000)
    monkeypatch.setattr(jsonl_mod, "BLOCK", 4096)
    cut = Path(p).read_bytes().index(b"\n", 20000) + 1  # ranges end at line ends
    monkeypatch.setattr(jsonl_mod, "_plan_ranges", lambda src: [(0, cut), (cut, src.size())])

    def crash(*args):
        raise MemoryError("the child ran out of memory")

    from triage.ingest import parts

    monkeypatch.setattr(parts, "ship", crash)  # only a forked child ships; it inherits the patch
    par = read_run(p)
    assert par.meta["rows"] == seq.meta["rows"] == 3000
    assert np.array_equal(par.get("loss").values, seq.get("loss").values)
    assert not _shm_leftovers()


def test_parallel_reader_hands_over_through_shared_memory_and_cleans_up(tmp_path, monkeypatch):
    rows = [json.dumps({"step": i, "loss": 1.0 / i, "lr": 1e-3}) for i in range(1, 3001)]
    p = _write(tmp_path, "\n".join(rows) + "\n")
    cut = Path(p).read_bytes().index(b"\n", 20000) + 1  # ranges end at line ends
    monkeypatch.setattr(jsonl_mod, "_plan_ranges", lambda src: [(0, cut), (cut, src.size())])
    shipped = []
    from triage.ingest import parts

    real = parts.unship
    monkeypatch.setattr(parts, "unship", lambda msg, shm: shipped.append(msg[0]) or real(msg, shm))
    run = read_run(p)
    assert run.meta["rows"] == 3000 and run.get("loss").steps.tolist() == list(range(1, 3001))
    assert shipped == (["file"] if __import__("os").path.isdir("/dev/shm") else ["inline"])
    assert not _shm_leftovers()


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(IngestError) as exc:
        read_run(_write(tmp_path, ""))
    assert "empty file" in str(exc.value) and "\n" not in str(exc.value)
    with pytest.raises(IngestError) as exc:
        read_run(tmp_path / "nope.jsonl")
    assert str(exc.value) == f"{tmp_path / 'nope.jsonl'}: no such file or directory"


def test_binary_garbage_is_one_line_error(tmp_path):
    p = _write(tmp_path, bytes(range(256)) * 20, "blob.bin")
    with pytest.raises(IngestError) as exc:
        read_run(p)
    assert "\n" not in str(exc.value)


# ------------------------------------------------------------------------- the typed tier
def _read_both(p, monkeypatch, block: int = 512):
    """Read `p` with small blocks, once with the typed tier and once with it switched off."""
    monkeypatch.setattr(jsonl_mod, "BLOCK", block)
    used = []
    real = jsonl_mod._typed_block

    def spy(ctx, text, nlines):
        ok = real(ctx, text, nlines)
        used.append(ok)
        return ok

    monkeypatch.setattr(jsonl_mod, "_typed_block", spy)
    typed = read_run(p)
    monkeypatch.setattr(jsonl_mod, "_refresh_typed", lambda ctx: None)
    generic = read_run(p)
    return typed, generic, used


def _same(a, b):
    assert a.meta["rows"] == b.meta["rows"]
    assert a.meta["skipped"] == b.meta["skipped"]
    assert a.meta.get("non_numeric_keys") == b.meta.get("non_numeric_keys")
    assert list(a.series) == list(b.series)
    for key in a.series:
        x, y = a.series[key], b.series[key]
        assert np.array_equal(x.steps, y.steps, equal_nan=True), key
        assert np.array_equal(x.values.view(np.uint64), y.values.view(np.uint64)) or \
            np.array_equal(x.values, y.values, equal_nan=True), key
        assert (x.epochs is None) == (y.epochs is None) or np.isnan(
            (x.epochs if x.epochs is not None else y.epochs)).all(), key
        if x.epochs is not None and y.epochs is not None:
            assert np.array_equal(x.epochs, y.epochs, equal_nan=True), key


def test_typed_tier_reads_exactly_what_the_generic_tier_reads(tmp_path, monkeypatch):
    lines = []
    for i in range(1, 400):
        r = {"step": i, "epoch": i / 100, "loss": 2.0 / i, "grad_norm": 1.0 + i % 7}
        if i % 50 == 0:
            r = {"step": i, "eval_loss": 0.3, "eval_acc": 0.9}  # a second layout in the same blocks
        if i % 61 == 0:
            r["loss"] = float("nan")
        if i % 67 == 0:
            r["grad_norm"] = float("inf")
        if i % 71 == 0:
            r["loss"] = "0.25"  # a string-typed float
        if i % 89 == 0:
            r = {"step": i, "loss": 0.1, "lr": 1e-4}  # a new key: the block goes the generic way
        if i % 97 == 0:
            r = {"epoch": 3.0, "loss": 0.2}  # no step key
        lines.append(json.dumps(r))
    lines[200] = '{"step": 201, "loss": 0.1, "note": "warmup done"}'  # a string value
    lines[300] = "{broken"
    p = _write(tmp_path, "\n".join(lines) + "\n")
    typed, generic, used = _read_both(p, monkeypatch)
    assert sum(used) >= 5 and not all(used)  # the typed tier read most blocks, fell back on a few
    _same(typed, generic)
    assert typed.meta["skipped"] == {"not JSON": 1}
    assert typed.get("loss").nan_count() >= 5


def test_typed_tier_keeps_absent_apart_from_nan(tmp_path, monkeypatch):
    rows = [{"step": i, "loss": float("nan") if i % 3 == 0 else 1.0} if i % 2 else {"step": i, "acc": 0.5}
            for i in range(1, 200)]
    p = _write(tmp_path, "\n".join(json.dumps(r) for r in rows) + "\n")
    typed, generic, used = _read_both(p, monkeypatch, block=256)
    assert any(used)
    _same(typed, generic)
    loss = typed.get("loss")
    assert loss.steps.tolist() == [i for i in range(1, 200) if i % 2]  # absent rows are not NaN points
    assert loss.nan_count() == sum(1 for i in range(1, 200) if i % 2 and i % 3 == 0)


def test_typed_tier_gives_way_on_blank_and_truncated_lines(tmp_path, monkeypatch):
    lines = [json.dumps({"step": i, "loss": 1.0 / i}) for i in range(1, 300)]
    lines[150] = ""
    text = "\n".join(lines) + '\n{"step": 300, "lo'
    p = _write(tmp_path, text)
    typed, generic, _ = _read_both(p, monkeypatch, block=256)
    _same(typed, generic)
    assert typed.meta["skipped"] == {"blank line": 1, "truncated last line": 1}


row_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6),
                       st.sampled_from(["nan", "NaN", "Infinity", "-inf", "0.5", "x", None, True]))
typed_rows = st.lists(st.tuples(st.dictionaries(st.sampled_from(["step", "loss", "acc", "epoch", "lr", "train/x"]),
                                                row_values, max_size=5),
                                st.integers(0, 9)), min_size=1, max_size=60)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=typed_rows)
def test_typed_tier_property(tmp_path, monkeypatch, rows):
    """Whatever the rows, the typed tier and the generic tier read the same run."""
    out = []
    for r, how in rows:
        line = json.dumps(r, allow_nan=True)
        if how == 1:
            line = line.replace("NaN", "nan")  # invalid JSON: counted by both tiers
        elif how == 2:
            line = ""
        elif how == 3:
            line = line + "\r"
        out.append(line)
    p = _write(tmp_path, "\n".join(out) + "\n")
    typed, generic, _ = _read_both(p, monkeypatch, block=128)
    _same(typed, generic)



def test_a_resume_is_recorded_where_the_step_went_back(tmp_path):
    # logged to step 60, resumed from the checkpoint at step 50: the run says where, for the checks
    # that judge a resume (the LR or the loss starting over at that step)
    rows = [{"step": t, "loss": 2.0 / t} for t in range(1, 61)] + [{"step": t, "loss": 2.0 / t} for t in range(50, 71)]
    p = tmp_path / "metrics.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    run = read_run(p)
    assert run.meta["restarts"] == 1
    assert run.meta["resumed_at"] == [[50.0, 60.0]]
    assert any("a resumed or restarted run: 60 -> 50" in w for w in run.meta["warnings"])
    assert list(run.get("loss").steps) == list(range(1, 71))
