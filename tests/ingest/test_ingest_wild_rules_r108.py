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
