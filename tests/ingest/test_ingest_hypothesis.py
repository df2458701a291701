"""Property tests: random and mangled input never crashes a text reader, and every line is accounted for."""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from triage.ingest import IngestError
from triage.ingest import csvlog, jsondoc, jsonl, textlog
from triage.ingest.builder import to_float
from triage.ingest.source import Source

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                          HealthCheck.too_slow])

floats = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6))
keys = st.sampled_from(["step", "loss", "eval_loss", "grad_norm", "learning_rate", "epoch", "reward", "_step",
                        "train/loss", "val_acc", "note", "memory/max_allocated (GiB)", "rewards/margins"])
values = st.one_of(floats, st.none(), st.booleans(), st.text(max_size=8),
                   st.sampled_from(["nan", "NaN", "inf", "-inf", "Infinity", "1e-3", "  2.5 ", ""]),
                   st.lists(st.integers(), max_size=2), st.dictionaries(st.sampled_from(["a", "b"]), floats, max_size=2))
rows = st.dictionaries(keys, values, max_size=6)


def _mangle(line: str, how: int, cut: int) -> str:
    if how == 0:
        return line
    if how == 1:
        return line[: cut % (len(line) + 1)]  # truncated
    if how == 2:
        return line + "\r"
    if how == 3:
        return "\ufeff" + line
    if how == 4:
        return ""
    if how == 5:
        return line.replace(":", "", 1)
    if how == 6:
        return "[" + line
    return line * 2


mangled_lines = st.lists(st.tuples(rows, st.integers(0, 7), st.integers(0, 200)), max_size=25)


def _src(tmp_path, name: str, data: bytes) -> Source:
    p = tmp_path / name
    p.write_bytes(data)
    return Source.from_path(p)


def _check(run):
    for s in run.series.values():
        assert len(s.steps) == len(s.values)
        assert s.values.dtype == np.float64
        if s.epochs is not None:
            assert len(s.epochs) == len(s.values)
    assert run.meta["rows"] >= 0 and all(v > 0 for v in run.meta["skipped"].values())


@SETTINGS
@given(lines=mangled_lines)
# rows of equal length but other keys, none a metric: each was once counted twice as "no metrics"
@example(lines=[({"step": 0.0}, 0, 0), ({"loss": None}, 0, 0), ({}, 0, 0)])
def test_jsonl_never_crashes_and_counts_every_line(tmp_path, lines):
    text_lines = [_mangle(json.dumps(r, allow_nan=True), how, cut) for r, how, cut in lines]
    data = "\n".join(text_lines).encode()
    run = jsonl.read(_src(tmp_path, "x.jsonl", data))
    _check(run)
    lines = data.split(b"\n") if data else []
    if lines and not lines[-1].strip():
        lines.pop()  # the end of the file: its last newline (and any blanks after it) ends a line, it is not one
    # every line is a row or a skipped line (with its reason): a reader that drops one fails here
    assert run.meta["rows"] + sum(run.meta["skipped"].values()) == len(lines), (lines, run.meta["skipped"])


@SETTINGS
@given(data=st.binary(max_size=400))
def test_jsonl_random_bytes(tmp_path, data):
    _check(jsonl.read(_src(tmp_path, "x.jsonl", data)))


@SETTINGS
@given(lines=st.lists(st.text(max_size=80), max_size=30))
def test_text_reader_random_lines(tmp_path, lines):
    _check(textlog.read(_src(tmp_path, "x.log", "\n".join(lines).encode())))


line_templates = st.sampled_from([
    "step {i}/100 | loss {v} (+nanz)| norm {v} (+1.0z)| lr {v} | 12.0 ms | 30.1% bf16 MFU | 1000 tok/s",
    "s:{i} trl:{v} lr:{v} norm:{v}", "s:{i} tel:{v}", "iter {i}: loss {v}, time 10.0ms, mfu 3.0%",
    " iteration {i}/ 100 | lm loss: {v} | loss scale: {v} | grad norm: {v} |",
    "Step {i} | loss:{v} lr:{v}", "step:{i} - actor/pg_loss:{v} - critic/score/mean:{v}",
    "{{'loss': {v}, 'learning_rate': {v}, 'epoch': {v}}}", "{{'loss': '{v}', 'epoch': '{v}'}}",
    "Epoch {i}/10", "10/10 [====] - 1s - loss: {v} - accuracy: {v} - val_loss: {v}",
    "| rollout/ | |", "|    ep_rew_mean | {v} |", "-------------------", "Traceback (most recent call last):",
    "  File \"x.py\", line {i}, in f", "ValueError: {v}", "[deepspeed] OVERFLOW! reducing to {v}",
    " {i}%|██ | {i}/100 [00:01<00:01, 1.0it/s]", "WARNING: {v}", "Killed",
])
tokens = st.one_of(floats.map(str), st.sampled_from(["nan", "inf", "-inf", "NaN", "1e-05", "x", ""]))


@SETTINGS
@given(parts=st.lists(st.tuples(line_templates, st.integers(0, 10**6), tokens, st.integers(0, 7), st.integers(0, 99)),
                      max_size=40))
def test_text_dialects_mangled(tmp_path, parts):
    lines = [_mangle(t.format(i=i, v=v), how, cut) for t, i, v, how, cut in parts]
    run = textlog.read(_src(tmp_path, "x.log", "\n".join(lines).encode()))
    _check(run)
    for e in run.events:
        assert e.kind in ("traceback", "error", "warning", "overflow", "info")


csv_cells = st.one_of(floats.map(str), st.sampled_from(["", "nan", " 1.5 ", "abc", '"q,uoted"']))


@SETTINGS
@given(header=st.lists(st.sampled_from(["epoch", "step", "train_loss", "val_loss", "lr-Adam", "r", "l", "t",
                                        "train/box_loss", "time/total_timesteps", "x"]), min_size=1, max_size=6),
       body=st.lists(st.lists(csv_cells, max_size=8), max_size=20), comment=st.booleans())
def test_csv_mangled(tmp_path, header, body, comment):
    text = ("#{\"t_start\": 1.0}\n" if comment else "") + ",".join(header) + "\n"
    text += "\n".join(",".join(r) for r in body)
    try:
        run = csvlog.read(_src(tmp_path, "x.csv", text.encode()))
    except IngestError:
        return
    _check(run)


@SETTINGS
@given(doc=st.one_of(st.dictionaries(st.sampled_from(["log_history", "x", "lm loss"]),
                                     st.one_of(st.lists(rows, max_size=5), rows, floats), max_size=3),
                     st.lists(rows, max_size=5)))
def test_json_documents(tmp_path, doc):
    try:
        run = jsondoc.read(_src(tmp_path, "x.json", json.dumps(doc, allow_nan=True).encode()))
    except IngestError as exc:
        assert "\n" not in str(exc)
        return
    _check(run)


@given(v=st.one_of(floats, st.text(max_size=10), st.none(), st.booleans()))
def test_to_float_total(v):
    f = to_float(v)
    assert f is None or isinstance(f, float)
    if isinstance(v, float) and math.isnan(v):
        assert math.isnan(f)
