"""Line-shape and record rules the wild corpus asked for (third round), each on a small synthetic
log in the style of the prints that needed it (never a copy of one)."""

from __future__ import annotations

import json
import math

from triage.ingest import printed
from triage.ingest.aliases import table
from written_log import read_written as _read


def _jsonl(tmp_path, rows):
    return _read(tmp_path, [json.dumps(r) for r in rows], name="metrics.jsonl")


def test_a_split_field_in_a_json_record_sets_that_records_split(tmp_path):
    rows = []
    for ep in range(1, 4):
        rows.append({"name": "train", "epoch": ep, "step": ep * 100, "average loss": 3.0 - ep / 10})
        rows.append({"name": "validation", "epoch": ep, "step": ep * 100, "average loss": 3.5 - ep / 10})
    run = _jsonl(tmp_path, rows)
    assert run.get("eval/loss") is not None and math.isclose(run.get("eval/loss").values[0], 3.4)
    assert math.isclose(run.get("loss").values[0], 2.9)


def test_a_name_field_that_names_no_split_is_no_split(tmp_path):
    run = _jsonl(tmp_path, [{"name": "resnet50", "step": s, "loss": 1.0 / s} for s in range(1, 5)])
    assert "loss" in run.series and not any(k.startswith("eval/") for k in run.series)


def test_a_step_that_stays_put_while_the_epoch_advances_is_a_pass_count(tmp_path):
    rows = [{"split": "val", "epoch": ep, "iteration": 21.0, "loss": 2.0 - ep / 10} for ep in range(5, 9)]
    run = _jsonl(tmp_path, rows)
    ev = run.get("eval/loss")
    assert list(ev.steps) == [5, 6, 7, 8] and len(ev.values) == 4


def test_a_first_line_cut_inside_its_first_word_is_read_as_the_logs_shape(tmp_path):
    lines = ["poch  2, 150/900; acc:   4.10; xent:  9.50; 310 s elapsed"]
    lines += [f"Epoch  2, {200 + 50 * k}/900; acc:   4.{20 + k}; xent:  9.{40 - k}; {320 + k} s elapsed"
              for k in range(4)]
    run = _read(tmp_path, lines)
    assert "poch" not in run.series
    loss = run.get("loss")
    assert len(loss.values) == 5 and math.isclose(loss.values[0], 9.5)
    assert loss.steps[0] < loss.steps[1]


def test_a_first_line_cut_at_a_word_edge_stays_its_own_line():
    # `acc: 5` above `val acc: 5` lines may be a line of its own: only a cut inside a word is mended
    from triage.ingest.textlog import _TextReader
    from triage.ingest.builder import RunBuilder

    r = _TextReader(RunBuilder("x.log", "text"))
    for ln, line in enumerate(["acc: 0.5", "val acc: 0.6", "val acc: 0.7"], 1):
        r.segment(ln, line)
    r.tidy()
    assert r.records[0].template == "acc: #"


def test_glued_durations_are_not_values():
    plan = printed.parse(printed.clean("Tot: 41m50s | Rem: 10h28s | Step: 35s649ms | loss: 0.5"))
    assert [(s.role, s.key) for s in plan.slots if s.role != "skip"] == [("value", "loss")]


def test_redraw_debris_after_a_closed_group_is_cut():
    assert printed.clean("Depth Loss: 0.1365 (0.0447)9)") == "Depth Loss: 0.1365 (0.0447)"
    assert printed.clean("Depth Loss: nan (nan)n))n)31)2)") == "Depth Loss: nan (nan)"
    assert printed.clean("acc (top1) 0.5 (avg)") == "acc (top1) 0.5 (avg)"  # balanced: untouched


def test_a_whitespace_table_header_with_digits_in_its_names(tmp_path):
    lines = ["Epoch: 003 - 010", "=" * 40, "      d1      d2   abs_rel     rmse",
             "  0.9085  0.9870    0.1018   0.3511", "=" * 40]
    run = _read(tmp_path, lines)
    assert math.isclose(run.get("d1").values[0], 0.9085) and math.isclose(run.get("abs_rel").values[0], 0.1018)


def test_a_bare_bracketed_counter_opening_a_line_is_the_step(tmp_path):
    lines = [f"[{k * 1000}/50000] Train loss: {1 - k / 10:.4f}, Valid loss: {1.2 - k / 10:.4f}" for k in range(1, 5)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [1000, 2000, 3000, 4000]


def test_two_bare_bracketed_counters_are_epoch_then_batch():
    plan = printed.parse("[1/25][300/3183] Loss: 22.85")
    assert [s.role for s in plan.slots] == ["epoch", "total", "batch", "total", "value"]


def test_a_metric_the_log_keeps_a_best_of_is_the_evaluations(tmp_path):
    lines = []
    for k in range(1, 4):
        lines += [f"[{k * 100}/1000] Train loss: 0.{50 - k}, Valid loss: 0.{60 + k}",
                  f"Current_accuracy : {80 + k}.5, Current_norm_ED : 0.8{k}",
                  f"Best_accuracy    : {80 + k}.5, Best_norm_ED    : 0.8{k}"]
    run = _read(tmp_path, lines)
    assert "eval/accuracy" in run.series and "accuracy" not in run.series
    assert "loss" in run.series


def test_a_best_on_a_line_that_names_its_split_labels_nothing_else(tmp_path):
    lines = []
    for k in range(1, 4):
        lines += [f"Epoch {k} - loss={1 - k / 10:.2f} ppl={3 - k / 10:.2f}",
                  f"Validation - loss={1.2 - k / 10:.2f} ppl={3.3 - k / 10:.2f} best_loss=1.0 best_ppl=3.0"]
    run = _read(tmp_path, lines)
    assert "loss" in run.series and "eval/loss" in run.series


def test_a_cocoeval_stats_array_is_twelve_metrics(tmp_path):
    rows = [{"epoch": ep, "train_loss": 5.0 - ep, "test_loss": 6.0 - ep,
             "test_coco_eval_bbox": [0.1 * ep, 0.2 * ep] + [0.01] * 10} for ep in range(3)]
    run = _jsonl(tmp_path, rows)
    assert math.isclose(run.get("eval/map").values[-1], 0.2)
    assert math.isclose(run.get("eval/map50").values[-1], 0.4)
    assert "eval/mar_100" in run.series


def test_time_beside_data_time_is_the_iteration_time(tmp_path):
    rows = [{"iteration": s, "data_time": 0.01, "time": 0.5 + s / 1000, "total_loss": 1.0 / s} for s in range(19, 100, 20)]
    run = _jsonl(tmp_path, rows)
    assert "step_time" in run.series and "time" not in run.series
    run2 = _jsonl(tmp_path, [{"step": s, "time": 1.7e9 + s, "loss": 1.0} for s in range(5)])
    assert "step_time" not in run2.series


def test_a_test_prefix_on_an_evaluation_only_metric():
    res = table().resolve("test_map50")
    assert res.known and res.name == "eval/test/map50" and res.split == "eval:test"
