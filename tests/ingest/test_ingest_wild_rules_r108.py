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


def test_dash_separated_pairs_split_by_pipes_after_an_epoch_counter(tmp_path):
    # `Epoch 3 : Train Loss - 1.89 | Val Loss - 1.69 | Train PPL - 6.6 | Val PPL - 5.4`: a counter, then items of
    # a name, a spaced dash and its value, pipes between the items
    lines = []
    for epoch in range(1, 5):
        lines.append(f"Epoch {epoch} : Train Loss - {4.0 - epoch / 2:.4f} | Val Loss - {3.0 - epoch / 4:.4f} | "
                     f"Train PPL - {50.0 / epoch:.4f} | Val PPL - {20.0 / epoch:.4f}")
        lines.append("Model Saved")
    lines.append("Test Corpus BLEU score: 0.3466")
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert [round(float(v), 2) for v in run.series["loss"].values] == [3.5, 3.0, 2.5, 2.0]
    assert len(run.series["eval/loss"]) == 4
    assert len(run.series["perplexity"]) == 4 and len(run.series["eval/perplexity"]) == 4
    # (NLTK's corpus-level BLEU, printed as `Corpus BLEU score`: the test split's BLEU)
    assert any(name.startswith("eval/") and name.endswith("/bleu") for name in run.series), sorted(run.series)


def test_a_counter_lead_before_dash_pairs_needs_the_pipes():
    from triage.ingest import printed
    assert printed.clean("Epoch 1 | loss - 0.5 | acc - 0.9") == "Epoch 1 | loss: 0.5 | acc: 0.9"
    # (one dash item and no pipe: a sentence, left as it is)
    assert printed.clean("Epoch 1 : we are done - 3 more to go") == "Epoch 1 : we are done - 3 more to go"
