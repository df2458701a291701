"""Round r102 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

import json
import math

from written_log import read_text

from triage.ingest import read_run
from triage.ingest.builder import run_shift


def test_run_shift_is_shared_and_refuses_the_float_limit():
    assert run_shift(10.0, 1.0, 0.0) == 11.0
    assert run_shift(1.5e308, 1.4e308, 0.0) is None  # top + gap overflows
    assert run_shift(1e301, 1.0, 0.0) is None  # no room left to place a run


def test_jsonl_appended_run_placed_after_the_first(tmp_path):
    p = tmp_path / "metrics.jsonl"
    recs = [{"step": s, "loss": 1.0 - 0.1 * i} for i, s in enumerate((10, 20, 30, 10, 20, 30))]
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    run = read_run(str(p))
    assert list(run.series["loss"].steps) == [10, 20, 30, 40, 50, 60]


def test_jsonl_steps_near_the_float_limit_stay_as_written(tmp_path):
    p = tmp_path / "metrics.jsonl"
    p.write_text("".join(json.dumps({"step": s, "loss": 0.5}) + "\n" for s in (1e307, 1.6e308, 0, 1, 2)))
    run = read_run(str(p))
    assert all(math.isfinite(s) for s in run.series["loss"].steps)


def test_split_namespaced_tags_one_a_line_under_an_epoch_heading(tmp_path):
    # `--- round 3 ---` then one `split/tag : value` a line: every tag under a split's namespace is a
    # measurement, whatever its leaf is called (`ctc`, `s2s` here), and the block is one row per round
    text = ""
    for r in range(1, 4):
        text += f"=== epoch {r} ===\n"
        text += f"train/loss   : {3.0 - 0.2 * r:.4f}\n"
        text += f"train/attn   : {1.5 - 0.1 * r:.4f}\n"
        text += f"valid/attn   : {1.7 - 0.1 * r:.4f}\n"
        text += f"valid/wer    : {0.9 - 0.05 * r:.4f}\n"
    run = read_text(tmp_path, text)
    assert [float(v) for v in run.series["eval/attn"].values] == [1.6, 1.5, 1.4]
    assert len(run.series["attn"].values) == 3
    assert run.meta["rows"] == 3


def test_split_namespaced_settings_stay_settings():
    from triage.ingest.printed import _split_namespaced

    assert _split_namespaced("eval/s2s")
    assert _split_namespaced("train/kl_term")
    assert not _split_namespaced("train/batch_size")
    assert not _split_namespaced("train/loss_weight")
    assert not _split_namespaced("train/epoch")
    assert not _split_namespaced("outputs/attn")


def test_wandb_run_summary_alone_keeps_every_logged_tag(tmp_path):
    # a log that is only W&B's closing summary (names right-aligned, values in one column): each entry is
    # something the run logged, even a tag triage has no name for (`eval/solved_rate`), so the summary is
    # one row with all of them and nothing is dropped as a setting
    text = "wandb: Run summary:\n"
    for name, value in (("eval/ep_length", "120"), ("eval/return", "3.5"), ("eval/solved_rate", "0.625"),
                        ("eval/solved_first", "0.75")):
        text += f"wandb: {name:>18} {value}\n"
    text += "wandb: \n"
    run = read_text(tmp_path, text)
    assert float(run.series["eval/solved_rate"].values[-1]) == 0.625
    assert float(run.series["eval/episode_reward"].values[-1]) == 3.5
    assert run.meta["rows"] == 1
    assert not run.meta["skipped"]


def test_misspelt_accurancy_is_accuracy(tmp_path):
    # federated-learning rounds that print `Averaged Test Accurancy` (a misspelling kept in the library's print)
    text = ""
    for r in range(3):
        text += f"----- Round number: {r} -----\nAveraged Train Loss: {2.3 - 0.1 * r:.4f}\n"
        text += f"Averaged Test Accurancy: {0.1 + 0.05 * r:.4f}\n"
    run = read_text(tmp_path, text)
    assert [round(float(v), 2) for v in run.series["eval/accuracy"].values] == [0.1, 0.15, 0.2]
