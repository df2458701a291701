"""Round r126-r128 reading rules (logs the reader read less than half of), each on small synthetic lines in a style of
its own."""
from __future__ import annotations

from written_log import read_text


def test_an_unknown_pair_among_known_pairs_of_one_lead_is_read_with_them(tmp_path):
    # `  >> name = value` a line each under an epoch's heading: `spread_k` and `hitsum` (names the alias table does
    # not know) sit above and below known scores printed with the same lead; they are values of the same block.
    # `  :: shards = 8`, printed with another lead, is no value of it
    lines = []
    for epoch in (1, 2):
        lines.append(f"== epoch {epoch} finished ==")
        lines.append(f"  >> spread_k = {0.5 + epoch}")
        lines.append(f"  >> loss = {1.0 / epoch:.3f}")
        lines.append(f"  >> accuracy = {0.4 + 0.1 * epoch:.2f}")
        lines.append(f"  >> hitsum = {30 + epoch}")
        lines.append(f"  :: shards = {8 * epoch}")
        lines.append("")
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert [float(v) for v in run.series["hitsum"].values] == [31.0, 32.0]
    assert [float(v) for v in run.series["spread_k"].values] == [1.5, 2.5]
    assert [float(v) for v in run.series["loss"].steps] == [1.0, 2.0]
    assert "shards" not in run.series
    assert run.meta["rows"] == 2 and run.meta["joined_lines"] == 6


def test_unknown_pairs_before_any_counter_stay_out(tmp_path):
    # with no counter read yet, a `name = value` list above a known pair is a settings list, not a block of scores
    lines = ["  >> workers = 4", "  >> shards = 8", "  >> lr = 0.01", "", "epoch 1 loss 0.9", "epoch 2 loss 0.8"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert "workers" not in run.series and "shards" not in run.series
    assert [float(v) for v in run.series["loss"].values] == [0.9, 0.8]


def test_a_block_of_pairs_under_a_counter_line_stays_its_one_row(tmp_path):
    # `Iter 40: loss 0.05` then `    name: value` lines: the unknown `fuzz_idx` joins the record beside it, and that
    # record still folds into the row of the counter above it (one row a step, its lines said apart)
    lines = []
    for it in (40, 80, 120):
        lines.append(f"Iter {it}: loss {2.0 / it:.4f}")
        lines.append(f"    accuracy: {0.3 + it / 1000:.3f}")
        lines.append(f"    fuzz_idx: {it / 7:.3f}")
        lines.append(f"    recall: {0.2 + it / 1000:.3f}")
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert run.meta["rows"] == 3
    assert [float(v) for v in run.series["fuzz_idx"].steps] == [40.0, 80.0, 120.0]
    assert run.meta["joined_lines"] == 9


def test_durations_counts_and_settings_are_no_scores_of_the_block(tmp_path):
    # `wall time` and `num_shards` beside a known pair are a duration and a setting, and a block that lists a learning
    # rate lists settings (`gain_k` under it is one): none is read into the record beside it
    lines = []
    for it in (40, 80):
        lines.append(f"Iter {it}: loss {2.0 / it:.4f}")
        lines.append(f"    accuracy: {0.3 + it / 1000:.3f}")
        lines.append(f"    wall time: {it / 7:.3f}")
        lines.append(f"    num_shards: {it // 10}")
        lines.append(f"    recall: {0.2 + it / 1000:.3f}")
        lines.append(f"    lr: {0.1 / it}")
        lines.append(f"    gain_k: {it}.5")
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    for name in ("wall time", "num_shards", "gain_k"):
        assert name not in run.series
    assert [float(v) for v in run.series["accuracy"].values] == [0.34, 0.38]


def test_a_heading_with_a_new_count_parts_two_blocks(tmp_path):
    # `hit span: 1.5`, the last line of epoch 1's block (a dict line above it), is no value of epoch 2's record under
    # the next heading, though the lines between share its lead
    lines = []
    for epoch in (1, 2, 3):
        lines.append(f"+++ Train Epoch {epoch} +++")
        lines.append(f"Training loss: {1.0 / epoch:.3f}")
        lines.append(f"{{'Recall@20': {0.1 * epoch:.2f}}}")
        lines.append(f"hit span: {epoch}.5")
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert "hit span" not in run.series
    assert [float(v) for v in run.series["loss"].values] == [1.0, 0.5, 0.333]
