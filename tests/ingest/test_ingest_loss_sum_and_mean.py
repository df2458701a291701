"""A loss logged both as a total over the samples and as their mean: the mean is the loss."""

from __future__ import annotations

import json

from triage.ingest import read_run


def _write(tmp_path, rows):
    p = tmp_path / "log.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return p


def test_the_mean_keeps_the_name_when_the_other_spelling_is_a_sum(tmp_path):
    rows = [{"round": i, "train_loss": 50000 * (1.4 - 0.1 * i), "train_avg_loss": 1.4 - 0.1 * i, "train_total": 50000}
            for i in range(5)]
    run = read_run(_write(tmp_path, rows))
    assert [round(v, 3) for v in run.get("loss").values] == [1.4, 1.3, 1.2, 1.1, 1.0]


def test_a_running_mean_beside_the_batch_loss_changes_nothing(tmp_path):
    # the two are the same size: which one is the loss is decided as before, not by this rule
    rows = [{"step": i, "train_loss": 1.4 - 0.1 * i, "train_avg_loss": 1.45 - 0.08 * i} for i in range(5)]
    before = read_run(_write(tmp_path, rows)).get("loss").values
    assert [round(v, 3) for v in before] == [1.4, 1.3, 1.2, 1.1, 1.0]
