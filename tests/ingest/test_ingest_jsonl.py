"""JSON Lines reader: every NaN spelling, broken lines, encodings, gzip, stdin, the parallel path."""

from __future__ import annotations

import gzip
import io
import json
import math
import sys

import numpy as np
import pytest

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
