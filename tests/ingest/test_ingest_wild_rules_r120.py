"""Rules that bench/styles.py's wider choices (r119) still showed missing after r119, each in a print style of its own."""

from __future__ import annotations

from triage.ingest import read_run


def test_each_value_before_its_name_after_the_counter(tmp_path):
    # `it 40 ; 1.873 ce loss ; 2.0e-04 learning rate ; 41.5% top-1`: every field a value, then its name
    p = tmp_path / "train.log"
    lines = []
    for i in range(1, 9):
        lines.append(f"it {40 * i} ; {2.5 - 0.1 * i:.3f} ce loss ; {2e-4 * i:.1e} learning rate ; {30 + i:.1f}% top-1")
        if i % 4 == 0:
            lines.append(f"{2.6 - 0.1 * i:.3f} valid loss")
    p.write_text("\n".join(lines) + "\n")
    run = read_run(str(p))
    assert len(run.series["loss"].values) == 8
    assert run.series["loss"].values[0] == 2.4
    assert "learning_rate" in run.series
    assert len(run.series["eval/loss"].values) == 2
    # one field after its counter: `Epoch 3 - 0.412 NLL`
    q = tmp_path / "b.log"
    q.write_text("".join(f"Epoch {e} - {1.0 / e:.3f} mean loss\n" for e in range(1, 6)))
    assert len(read_run(str(q)).series["loss"].values) == 5


def test_a_count_named_after_its_value_is_no_metric(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("loading data | 5000 images | 12 classes\n" + "".join(f"step {i} | loss {1.0 / i:.3f}\n"
                                                                       for i in range(1, 5)))
    run = read_run(str(p))
    assert len(run.series["loss"].values) == 4
