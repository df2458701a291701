"""Rules that bench/styles.py's second set of choices still showed missing once the first rules for it had landed, each in a print style of its own."""

from __future__ import annotations

from written_log import read_written


def test_each_value_before_its_name_after_the_counter(tmp_path):
    # `it 40 ; 1.873 ce loss ; 2.0e-04 learning rate ; 41.5% top-1`: every field a value, then its name
    lines = []
    for i in range(1, 9):
        lines.append(f"it {40 * i} ; {2.5 - 0.1 * i:.3f} ce loss ; {2e-4 * i:.1e} learning rate ; {30 + i:.1f}% top-1")
        if i % 4 == 0:
            lines.append(f"{2.6 - 0.1 * i:.3f} valid loss")
    run = read_written(tmp_path, lines)
    assert len(run.series["loss"].values) == 8
    assert run.series["loss"].values[0] == 2.4
    assert "learning_rate" in run.series
    assert len(run.series["eval/loss"].values) == 2
    # one field after its counter: `Epoch 3 - 0.412 NLL`
    other = read_written(tmp_path, [f"Epoch {e} - {1.0 / e:.3f} mean loss" for e in range(1, 6)], "b.log")
    assert len(other.series["loss"].values) == 5


def test_a_count_named_after_its_value_is_no_metric(tmp_path):
    run = read_written(tmp_path, ["loading data | 5000 images | 12 classes",
                                  *(f"step {i} | loss {1.0 / i:.3f}" for i in range(1, 5))])
    assert len(run.series["loss"].values) == 4


def test_a_log_spelled_with_decimal_commas_reads_every_comma_as_the_point(tmp_path):
    # `Durchlauf 3 | Fehler 2,417 | Rate 1,5e-04`: after `|`, and `2,417` (three digits) too, once the log's other
    # numbers show the comma is its decimal mark
    vals = [2.417, 2.05, 1.812, 1.6, 1.437, 1.31]
    run = read_written(tmp_path, [f"Durchlauf {i + 1} | loss {v:.4g} | lr {1.5e-4 * (i + 1):.1e} | acc {0.1 * (i + 1):.2f}"
                                  .replace(".", ",") for i, v in enumerate(vals)])
    assert list(run.series["loss"].values) == vals
    assert run.series["learning_rate"].values[0] == 1.5e-4


def test_groups_of_thousands_stay_whole_numbers(tmp_path):
    # a step counted with thousands separators, values with decimal points: no comma is a decimal one
    run = read_written(tmp_path, [f"step {1000 * i:,} ; loss {2.0 / i:.3f} ; tokens {1_234_567 * i:,}" for i in range(1, 6)])
    assert list(run.series["loss"].steps) == [1000.0, 2000.0, 3000.0, 4000.0, 5000.0]
    # (a comma both ways)
    other = read_written(tmp_path, [f"samples 1,{100 + i:03d} ; loss 0,{50 - i}" for i in range(4)], "b.log")
    assert "loss" in other.series


def test_a_box_drawn_table_whose_cells_carry_an_aside(tmp_path):
    # rich.table rows whose cells hold the value, then its running mean or its terms in parentheses
    rows = ["Run 7 starting", "┏━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━┓",
            "┃ iter  ┃ train loss               ┃ acc            ┃", "┡━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━┩"]
    for i in range(1, 7):
        rows.append(f"│ {50 * i:<5} │ {3.0 / i:<24.4f} │ {0.1 * i:.3f} ({0.09 * i:.3f})  │".replace(
            f"{3.0 / i:<24.4f}", f"{3.0 / i:.4f} (tok {2.9 / i:.3f}, aux {0.1 / i:.3f})".ljust(24)))
    rows.append("└───────┴──────────────────────────┴────────────────┘")
    run = read_written(tmp_path, rows)
    assert len(run.series["loss"].values) == 6
    assert run.series["loss"].values[-1] == 0.5
    assert len(run.series["accuracy"].values) == 6


def test_the_source_line_under_a_warning_does_not_end_a_table(tmp_path):
    rows = ["   epoch      loss    val_loss"]
    for e in range(1, 7):
        rows.append(f"{e:8d}  {1.0 / e:8.4f}  {1.2 / e:10.4f}")
        if e == 2:
            rows += ["/opt/lib/sched.py:88: UserWarning: step() called before optimizer.step()",
                     "  warnings.warn(msg % (3, 4))"]
    run = read_written(tmp_path, rows)
    assert len(run.series["loss"].values) == 6
    assert len(run.series["eval/loss"].values) == 6
