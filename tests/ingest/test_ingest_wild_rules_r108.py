"""Round r108 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from written_log import read_text


def test_a_schedule_notice_merged_into_the_epoch_record_is_one_of_its_printed_lines(tmp_path):
    # a forecasting loop prints its epoch summary, then `Updating learning rate to X` on a line of its own: the
    # rate joins the summary's row (one row at that step) and its line is said apart as one more printed line
    lines = []
    for epoch in (1, 2, 3):
        for it in (50, 100):
            lines.append(f"\titers: {it}, epoch: {epoch} | loss: {1.0 - epoch / 10 - it / 1000:.7f}")
        lines.append(f"Epoch: {epoch}, Steps: 120 | Train Loss: {0.9 - epoch / 10:.7f} "
                     f"Vali Loss: {0.8 - epoch / 10:.7f} Test Loss: {0.85 - epoch / 10:.7f}")
        lines.append(f"Updating learning rate to {0.001 / 2 ** epoch}")
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert len(run.series["learning_rate"]) == 3
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 12, run.meta


def test_a_bar_redrawn_at_the_same_step_with_its_postfix_updated_is_one_row(tmp_path):
    # a Lightning bar redrawn with `\r`: each batch is drawn twice, first with the previous batch's postfix and
    # then with its own; the redraw at the same step is one row (its printed line said apart), not a second row
    parts = ["Epoch 0:   0%|          | 0/300 [00:00<?, ?it/s]"]
    prev = ""
    for b in range(1, 7):
        here = f", v_num=0, train/loss={9.0 - b / 2:.3f}, train/entropy={3.0 + b / 10:.3f}"
        if prev:
            parts.append(f"Epoch 0:   {b // 3}%|          | {b}/300 [00:{b:02d}<10:00,  0.19it/s{prev}]")
        parts.append(f"Epoch 0:   {b // 3}%|          | {b}/300 [00:{b:02d}<10:00,  0.19it/s{here}]")
        prev = here
    run = read_text(tmp_path, "\r".join(parts) + "\n")
    assert len(run.series["loss"]) == 6
    assert run.meta["rows"] == 6, run.meta
    assert [round(float(v), 1) for v in run.series["loss"].values][:2] == [8.5, 8.0]
