"""Reader rules asked for by real logs (round 57): each test writes a log in the style that needed the rule."""

from __future__ import annotations

import json
import math

import pytest

from triage.ingest import read_run
from triage.ingest.errors import IngestError
from written_log import read_written as _read, series_values as _vals


def test_yaml_spelling_of_nan_and_infinity(tmp_path):
    """`loss: .nan` / `loss: -.inf`: YAML (and so any result dumped through a YAML writer) writes NaN as
    `.nan` and infinity as `.inf`; they are values, not a word."""
    run = _read(tmp_path, [
        "step: 1 loss: 2.31 grad_norm: 4.0",
        "step: 2 loss: .nan grad_norm: .inf",
        "step: 3 loss: -.inf grad_norm: .NaN",
    ])
    vals = _vals(run, "loss")
    assert vals[0] == 2.31 and math.isnan(vals[1]) and vals[2] == float("-inf")
    gn = _vals(run, "grad_norm")
    assert gn[1] == float("inf") and math.isnan(gn[2])
    # a dot joined to a word before it is a file's extension, never a value
    run = _read(tmp_path, [f"step: {i} loss: 0.{9 - i} file: setup.inf" for i in range(1, 4)], "ext.log")
    assert _vals(run, "loss") == [0.8, 0.7, 0.6]
    assert all("inf" not in name for name in run.series)


def test_spread_of_a_known_metric_in_a_yaml_result(tmp_path):
    """`episode_reward_max: .nan` / `episode_reward_min: .nan` beside `episode_reward_mean: .nan`: a result
    dict printed as YAML (RLlib's pretty_print) gives the spread of a metric triage knows under the
    metric's name and the statistic; NaN there is a measurement as much as the mean is."""
    run = _read(tmp_path, [
        "episode_len_mean: .nan",
        "episode_reward_max: .nan",
        "episode_reward_mean: .nan",
        "episode_reward_min: .nan",
        "episodes: 0",
    ])
    for name in ("episode_reward", "episode_reward_max", "episode_reward_min"):
        assert all(math.isnan(v) for v in _vals(run, name)), name


def test_tf_print_message_glued_to_its_tensor(tmp_path):
    """`I tensorflow/core/kernels/logging_ops.cc:64] loss[2.3026]`: TF 1.x `tf.Print(x, [x], "loss")` writes its
    message and then the tensor's value in brackets with nothing between them; the message names the value."""
    run = _read(tmp_path, [
        f"I tensorflow/core/kernels/logging_ops.cc:64] loss[{v}]" for v in ("2.3026", "1.9541", "1.2087", "nan")
    ])
    vals = _vals(run, "loss")
    assert vals[:3] == [2.3026, 1.9541, 1.2087] and math.isnan(vals[3])
    # a whole number in brackets after a word is a position (`Epoch[3]`), not a tensor's value
    run = _read(tmp_path, [f"Epoch[{e}] loss: 0.{9 - e}" for e in range(1, 4)], "pos.log")
    assert "Epoch" not in run.series
    assert _vals(run, "loss") == [0.8, 0.7, 0.6]


def test_lone_json_object_of_no_metric_is_no_run(tmp_path):
    """`{"source": "...", "summaries": {"90d": {"avg_weekly_hours": 11.2, "ctl_end": 65.2}}}`: a single JSON
    object is one row of results only when a number in it is named as a metric; an export of some other
    record is not a training run, however many numbers it holds."""
    p = tmp_path / "history.json"
    p.write_text(json.dumps({
        "generated_at": "2026-01-20T12:00:00", "source": "some API",
        "range": {"earliest": "2024-01-15", "total_months": 24},
        "summaries": {"90d": {"avg_weekly_hours": 11.2, "ctl_start": 55.0, "ctl_end": 65.2, "rest_days": 8}},
    }, indent=2), encoding="utf-8")
    try:
        run = read_run(p)
    except IngestError:
        pass
    else:
        assert not run.series
    # the same shape naming a metric is one row of results
    q = tmp_path / "results.json"
    q.write_text(json.dumps({"model": "m", "eval": {"eval_loss": 0.41, "eval_accuracy": 0.88}}, indent=2),
                 encoding="utf-8")
    run = read_run(q)
    assert any("loss" in name for name in run.series)
    assert pytest.approx(_vals(run, next(n for n in run.series if "loss" in n))) == [0.41]


def test_csv_sheet_with_merged_headings_is_no_run(tmp_path):
    """`,,,seed,Adapter,,,Result,,` over `0.6,Qwen-Base,grct,10,4,,,,,`: a spreadsheet kept by hand and exported
    with its merged headings leaves most columns unnamed; a logger names every column it writes, so the sheet
    is no metric log. A table whose only blank name is its index column is still read."""
    p = tmp_path / "progress.csv"
    p.write_text("\n".join([
        ",,,seed,Adapter,,,Result,,",
        ",,Format,,Tuned,Copied,Published,Computed,Copied,Saved",
        "0.6,Model-Base,grct,10,4,,,,,",
        ",,,200,5,,,,,",
        ",,lct,10,4,,,,,",
        ",,,200,5,,,,,",
    ]) + "\n", encoding="utf-8")
    try:
        run = read_run(p)
    except IngestError:
        pass
    else:
        assert not run.series
    q = tmp_path / "history.csv"
    q.write_text(",epoch,loss,val_loss\n0,1,0.9,1.0\n1,2,0.7,0.8\n2,3,0.5,0.6\n", encoding="utf-8")
    assert _vals(read_run(q), "loss") == [0.9, 0.7, 0.5]
