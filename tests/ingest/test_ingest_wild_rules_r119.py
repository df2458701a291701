"""Rules that bench/styles.py's wider choices (r119) showed missing, each in a print style of its own."""

from __future__ import annotations

from triage.ingest import read_run


def test_german_and_more_chinese_metric_names(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("".join(f"Schritt {i}: Trainingsverlust={2.0 / i:.3f} Lernrate=1e-3 Genauigkeit={0.1 * i:.2f} "
                         f"梯度范数={0.5 + 0.1 * i:.2f}\n" for i in range(1, 6)))
    run = read_run(str(p))
    assert {"loss", "learning_rate", "accuracy", "grad_norm"} <= set(run.series)
    assert len(run.series["loss"].values) == 5
