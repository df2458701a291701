"""DVCLive run folders: one TSV per metric, named by its path under plots/metrics (1.x and later) or
scalars (0.x). Written here in the layout DVCLive's `Live.log_metric` produces (the library itself is
not a test dependency)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from triage.ingest import read_run


def _tsv(path: Path, header: list[str], rows: list[list[object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join("\t".join(str(c) for c in r) for r in [header, *rows]) + "\n", encoding="utf-8")


def test_a_dvclive_folder_names_each_metric_by_its_path(tmp_path):
    """`plots/metrics/eval/acc.tsv` says only `acc` in its header: the path makes it the eval accuracy, and
    `train/loss.tsv` the training loss. The run is found from the project folder (dvclive/ inside)."""
    live = tmp_path / "dvclive"
    metrics = live / "plots" / "metrics"
    _tsv(metrics / "train" / "loss.tsv", ["timestamp", "step", "loss"],
         [[1700000000000 + i, i, 2.3 - 0.1 * i] for i in range(5)])
    _tsv(metrics / "eval" / "acc.tsv", ["timestamp", "step", "acc"], [[1700000000100 + i, i, 0.1 * (i + 1)] for i in range(5)])
    (live / "metrics.json").write_text('{"train": {"loss": 1.9}, "eval": {"acc": 0.5}, "step": 4}', encoding="utf-8")
    run = read_run(str(tmp_path))
    assert run.format == "dvclive"
    assert set(run.series) >= {"loss", "eval/accuracy"}
    np.testing.assert_allclose(run.series["loss"].values, [2.3, 2.2, 2.1, 2.0, 1.9])
    np.testing.assert_allclose(run.series["eval/accuracy"].steps, [0, 1, 2, 3, 4])
    assert run.meta["rows"] == 5


def test_a_dvclive_0x_scalars_folder_and_a_bad_file(tmp_path):
    """DVCLive 0.x writes `scalars/<name>.tsv`; a TSV with two metric columns is skipped and counted, not
    guessed at."""
    live = tmp_path / "dvclive"
    _tsv(live / "scalars" / "val_loss.tsv", ["timestamp", "step", "val_loss"], [[1, 0, 0.9], [2, 1, 0.8], [3, 2, 0.85]])
    _tsv(live / "scalars" / "odd.tsv", ["step", "a", "b"], [[0, 1, 2]])
    run = read_run(str(live))
    assert run.format == "dvclive"
    np.testing.assert_allclose(run.series["eval/loss"].values, [0.9, 0.8, 0.85])
    assert run.meta["skipped"].get("a DVCLive TSV without one step and one metric column") == 2
