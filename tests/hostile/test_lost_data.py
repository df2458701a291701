"""Issue 16, "Lost or wrong data": every value a log holds is read as what it is, or counted as
left out; nothing is dropped silently and nothing is made up."""

from __future__ import annotations

import gzip
import json
import math
import struct

import numpy as np
import pytest

from hostile_helpers import REPO, cli, cli_json, event_file, inspect_run, metric
from triage.ingest import IngestError, read_run


# -- JSON Lines ----------------------------------------------------------------------------------
def test_bare_nan_and_inf_from_an_fstring_are_nan_values_not_dropped_rows(tmp_path):
    """f'{{"loss": {loss}}}' writes nan / inf / -inf: those rows are the whole point of the log."""
    p = tmp_path / "train.jsonl"
    p.write_text("".join(f'{{"step": {s}, "loss": {v}}}\n' for s, v in
                         [(1, 2.0), (2, 1.5), (3, float("nan")), (4, float("inf")), (5, float("-inf")),
                          (6, "nan(ind)"), (7, "-nan"), (8, "Inf")]))
    run = read_run(p)
    loss = run.get("loss")
    assert loss.steps.tolist() == [1, 2, 3, 4, 5, 6, 7, 8]
    assert run.meta["skipped"] == {}
    assert loss.nan_count() == 3 and loss.inf_count() == 3
    assert loss.values[3] == math.inf and loss.values[4] == -math.inf
    code, out = cli("scan", str(p))
    assert code == 1, out  # a run that went NaN is not healthy


def test_bare_nan_in_a_string_value_is_left_alone(tmp_path):
    p = tmp_path / "log.jsonl"
    p.write_text('{"step": 1, "loss": 1.0, "msg": "loss: nan, stopping"}\n{"step": 2, "loss": nan, "msg": "x"}\n')
    run = read_run(p)
    assert run.get("loss").values[0] == 1.0 and math.isnan(run.get("loss").values[1])
    assert run.meta["skipped"] == {}


@pytest.mark.parametrize("odd", ['we\\\\ird', 'quo\\"te', 'ctl\\u0001', 'sur\\ud800'])
def test_one_odd_key_does_not_reject_the_file(tmp_path, odd):
    """A key msgspec cannot name a struct field after (backslash, quote, control character, lone
    surrogate) sends the file to the generic reader; every row is still read."""
    p = tmp_path / "log.jsonl"
    lines = [json.dumps({"step": i, "loss": 2.0 - i / 10}) for i in range(20)]
    lines.insert(10, '{"step": 10.5, "%s": 1.0, "loss": 1.0}' % odd)
    p.write_text("\n".join(lines) + "\n")
    run = read_run(p)
    assert len(run.get("loss")) == 21 and run.meta["rows"] == 21
    code, out = cli("inspect", "--json", str(p))  # every name survives --json
    assert code == 0, out


def test_a_key_whose_first_value_is_a_bool_keeps_its_later_numbers(tmp_path):
    p = tmp_path / "log.jsonl"
    rows = [{"step": 0, "grad_norm": True, "loss": 1.0}] + [{"step": i, "grad_norm": float(i), "loss": 1.0}
                                                           for i in range(1, 5)]
    rows += [{"step": 5, "grad_norm": [1, 2], "loss": 1.0}, {"step": 6, "grad_norm": 6.0, "loss": 1.0}]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    g = read_run(p).get("grad_norm")
    assert g.steps.tolist() == [1, 2, 3, 4, 6] and g.values.tolist() == [1, 2, 3, 4, 6]


def test_a_later_true_is_not_one(tmp_path):
    p = tmp_path / "log.jsonl"
    rows = [{"step": i, "grad_norm": 0.5, "loss": 1.0} for i in range(5)] + [{"step": 5, "grad_norm": True, "loss": 1.0}]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    g = read_run(p).get("grad_norm")
    assert 1.0 not in g.values.tolist() and len(g) == 5


def test_a_json_rows_document_with_a_bool_first(tmp_path):
    p = tmp_path / "rows.json"
    p.write_text(json.dumps([{"step": 0, "acc": False}] + [{"step": i, "acc": i / 10} for i in range(1, 4)]))
    assert read_run(p).get("accuracy").values.tolist() == [0.1, 0.2, 0.3]


def test_latin1_string_values_do_not_drop_rows(tmp_path):
    p = tmp_path / "log.jsonl"
    p.write_bytes(b"".join(b'{"step": %d, "loss": %d.5, "run": "caf\xe9"}\n' % (i, i) for i in range(30)))
    run = read_run(p)
    assert len(run.get("loss")) == 30 and run.meta["skipped"] == {}


def test_latin1_lines_after_utf8_blocks(tmp_path, monkeypatch):
    """The typed tier has learnt the keys from UTF-8 lines when a Latin-1 line comes."""
    from triage.ingest import jsonl

    monkeypatch.setattr(jsonl, "FIRST_BLOCK", 256)
    p = tmp_path / "log.jsonl"
    good = b"".join(b'{"step": %d, "loss": 1.0}\n' % i for i in range(40))
    bad = b"".join(b'{"step": %d, "loss": 2.0, "note": "\xe9t\xe9"}\n' % i for i in range(40, 60))
    p.write_bytes(good + bad)
    run = read_run(p)
    assert len(run.get("loss")) == 60


@pytest.mark.parametrize("bom", [True, False])
def test_utf16_jsonl_from_powershell(tmp_path, bom):
    p = tmp_path / "log.jsonl"
    text = "".join(f'{{"step": {i}, "loss": {2 - i / 10}}}\r\n' for i in range(12))
    p.write_bytes(text.encode("utf-16") if bom else text.encode("utf-16-le"))
    run = read_run(p)
    assert run.format == "jsonl" and len(run.get("loss")) == 12 and run.meta["skipped"] == {}


def test_utf16_csv_and_latin1_csv(tmp_path):
    text = "step,loss,note\n" + "".join(f"{i},{1 + i},caf\u00e9\n" for i in range(10))
    a = tmp_path / "a.csv"
    a.write_bytes(text.encode("utf-16"))
    b = tmp_path / "b.csv"
    b.write_bytes(text.encode("latin-1"))
    for p in (a, b):
        run = read_run(p)
        assert run.get("loss").values.tolist() == [1.0 + i for i in range(10)], p


# -- trainer_state.json ------------------------------------------------------------------------------
def test_a_truncated_trainer_state_keeps_its_whole_entries_and_says_it_was_cut(tmp_path):
    """A trainer_state.json cut part-way (copied while it was written, or cut to a size): every whole
    log_history entry before the cut is read, in order, the cut one is not, and a warning says so. A cut
    document with no whole entry at all is still a clear error, never a description."""
    rows = [{"step": s, "loss": 2.0 - s / 100, "learning_rate": 1e-4, "epoch": s / 50} for s in range(1, 60)]
    text = json.dumps({"global_step": 59, "log_history": rows}, indent=2)
    p = tmp_path / "trainer_state.json"
    cut = text[: len(text) * 2 // 3]
    p.write_text(cut)
    run = read_run(p)
    whole = cut.count("}")  # each whole entry closes its own brace; the outer object never closes
    assert run.get("loss").steps.tolist() == [float(s) for s in range(1, whole + 1)]
    assert any("cut short" in w for w in run.meta["warnings"])
    code, out = cli("scan", str(p))
    assert code in (0, 1) and "cut short" in out
    empty = tmp_path / "state2" / "trainer_state.json"
    empty.parent.mkdir()
    empty.write_text(text[:40])
    with pytest.raises(IngestError) as err:
        read_run(empty)
    assert "cut short" in str(err.value)


# -- TensorBoard ---------------------------------------------------------------------------------------
def _tb(tmp_path, data: bytes, name="events.out.tfevents.1.host"):
    p = tmp_path / name
    p.write_bytes(data)
    return read_run(p)


def test_tfevents_data_checksum_drops_a_corrupted_value_and_counts_it(tmp_path):
    data, offsets = event_file(40)
    bad = bytearray(data)
    start = offsets[11] + 12
    length = struct.unpack_from("<Q", data, offsets[11])[0]
    bad[start + length - 2] ^= 0x7F  # inside the float: would read as a huge number
    run = _tb(tmp_path, bytes(bad))
    assert run.meta["skipped"] == {"bad checksum": 1}
    assert max(run.get("loss").values.max(), run.get("grad_norm").values.max()) <= 1.0
    assert len(run.get("loss")) + len(run.get("grad_norm")) == 39


def test_tfevents_flipped_length_resyncs_instead_of_losing_the_rest(tmp_path):
    data, offsets = event_file(300)
    bad = bytearray(data)
    bad[offsets[90] + 1] ^= 0x04  # one bit of a length field, 30% into the file
    run = _tb(tmp_path, bytes(bad))
    assert len(run.get("loss")) + len(run.get("grad_norm")) == 299  # only the record with the bad length
    assert run.meta["skipped"] == {"bad record length": 1}
    assert any("checksum" in w for w in run.meta["warnings"])


def test_tfevents_garbage_between_records_is_passed_over(tmp_path):
    data, offsets = event_file(50)
    cut = offsets[25]
    run = _tb(tmp_path, data[:cut] + b"\x07" * 1000 + data[cut:])
    assert len(run.get("loss")) + len(run.get("grad_norm")) == 50
    assert run.meta["skipped"] == {"bad record length": 1}


def test_tfevents_real_files_pass_their_checksums():
    for p in sorted((REPO / "tests" / "fixtures" / "logs").rglob("events.out.tfevents.*")):
        run = read_run(p)
        assert "bad checksum" not in run.meta["skipped"] and "bad record length" not in run.meta["skipped"], p


# -- CSV -------------------------------------------------------------------------------------------------
def test_csv_cells_that_are_not_numbers_are_counted(tmp_path):
    p = tmp_path / "metrics.csv"
    p.write_text('step,loss,acc,name\n1,2.0,0.5,a\n2,n/a,0.6,b\n3,"1,5",0.7,c\n4,1.2,,d\n5,nan,0.8,e\n')
    run = read_run(p)
    assert run.meta["skipped"] == {"non-numeric cell": 2}
    assert any("'n/a' on line 3" in w for w in run.meta["warnings"])
    assert run.get("loss").steps.tolist() == [1, 4, 5] and math.isnan(run.get("loss").values[-1])
    assert run.meta["non_numeric_keys"] == ["name"]  # a column of words is not a metric, and not "skipped"


def test_csv_decimal_comma_is_named(tmp_path):
    p = tmp_path / "m.csv"
    p.write_text('step,loss\n1,"2,5"\n2,"2,4"\n3,2.3\n')
    run = read_run(p)
    assert run.meta["skipped"] == {"non-numeric cell": 2, "no metrics": 2}
    assert any("decimal comma" in w for w in run.meta["warnings"])


def test_csv_fast_and_careful_paths_agree(tmp_path, monkeypatch):
    """The block parser (C) and the csv module (row by row) read the same numbers, blanks included."""
    from triage.ingest import csvlog

    rng = np.random.default_rng(0)
    lines = ["step,loss,val_loss,lr"]
    for s in range(3000):
        val = f"{rng.random():.6g}" if s % 7 == 0 else ""
        loss = "nan" if s == 1234 else ("inf" if s == 2000 else f"{rng.random():.6g}")
        lines.append(f"{s},{loss},{val},{3e-4:g}")
    p = tmp_path / "m.csv"
    p.write_text("\n".join(lines) + "\n")
    fast = read_run(p)
    monkeypatch.setattr(csvlog, "_fast_block", lambda body, ncols: None)
    careful = read_run(p)
    for name in ("loss", "eval/loss", "learning_rate"):
        a, b = fast.get(name), careful.get(name)
        assert np.array_equal(a.steps, b.steps) and np.array_equal(a.values, b.values, equal_nan=True), name
    assert fast.meta["rows"] == careful.meta["rows"] == 3000


# -- knowledge given with --kb ------------------------------------------------------------------------
def test_metrics_yaml_given_with_kb_names_metrics(tmp_path):
    kb = tmp_path / "mykb"
    kb.mkdir()
    (kb / "metrics.yaml").write_text("metrics:\n  loss:\n    aliases: [zorp_objective]\n")
    p = tmp_path / "log.jsonl"
    p.write_text('{"step": 1, "zorp_objective": 2.0}\n{"step": 2, "zorp_objective": 1.5}\n')
    code, doc = cli_json("--kb", str(kb), "inspect", "--json", str(p))
    assert code == 0 and [m["name"] for m in doc["runs"][0]["metrics"]] == ["loss"]
    code, doc = cli_json("inspect", "--json", str(p))  # and only with it
    assert [m["name"] for m in doc["runs"][0]["metrics"]] == ["zorp_objective"]


# -- restarts ----------------------------------------------------------------------------------------------
def test_scan_mentions_a_restart_that_inspect_counts(tmp_path):
    p = tmp_path / "resumed.jsonl"
    steps = list(range(1, 200)) + list(range(100, 300))
    p.write_text("".join(json.dumps({"step": s, "loss": 2.0 - s / 1000}) + "\n" for s in steps))
    assert inspect_run(p)["restarts"] == 1
    code, out = cli("scan", str(p))
    assert "goes back 1 time" in out and "resumed" in out


# -- gzip -----------------------------------------------------------------------------------------------
def test_gzipped_note_is_read_as_its_text(tmp_path):
    p = tmp_path / "note.txt.gz"
    p.write_bytes(gzip.compress(b"My loss goes to nan after three epochs when I raise the learning rate with fp16.\n"))
    code, out = cli("scan", str(p))
    assert code == 1 and "Most likely causes" in out, out


def test_gzip_jsonl_with_nan(tmp_path):
    p = tmp_path / "log.jsonl.gz"
    p.write_bytes(gzip.compress(b"".join(b'{"step": %d, "loss": %s}\n' % (i, b"nan" if i == 5 else b"1.0")
                                         for i in range(10))))
    assert metric(inspect_run(p), "loss")["nan"] == 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_printed_log(tmp_path, encoding):
    p = tmp_path / "train.log"
    p.write_bytes("".join(f"step {i} | loss {2 - i / 10:.2f}\r\n" for i in range(1, 20)).encode(encoding))
    assert len(read_run(p).get("loss")) == 19
