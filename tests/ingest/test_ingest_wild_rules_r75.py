"""Reader rules for one-metric files whose split only the path names, and other styles met in RL, remote
sensing and classic course logs."""

from __future__ import annotations

from written_log import read_written as _read
from written_log import series_values as _vals


def test_one_metric_tsv_takes_split_from_its_folder(tmp_path):
    """Style: DVCLive's per-metric TSV (`step<TAB>loss`) under `plots/metrics/eval/`: the folder, not the
    column, says the loss is held-out."""
    folder = tmp_path / "plots" / "metrics" / "eval"
    folder.mkdir(parents=True)
    run = _read(folder, ["step\tloss"] + [f"{i}\t{1.5 - 0.1 * i}" for i in range(6)], name="loss.tsv")
    assert set(run.series) == {"eval/loss"}
    assert _vals(run, "eval/loss")[0] == 1.5


def test_one_metric_file_takes_split_from_its_name(tmp_path):
    """Style: a one-metric table saved by hand as `<run>_val_acc.tsv` (`step<TAB>acc`): the split word
    right before the metric's words at the end of the file's name makes it a held-out series; a name with
    no split word stays train, and so does one whose split word sits further back (`val_acc_run2`)."""
    rows = [f"{i}\t{0.5 + 0.05 * i}" for i in range(5)]
    run = _read(tmp_path, ["step\tacc"] + rows, name="mnist_run3_val_acc.tsv")
    assert set(run.series) == {"eval/accuracy"}
    run = _read(tmp_path, ["step\tacc"] + rows, name="mnist_run3_acc.tsv")
    assert set(run.series) == {"accuracy"}
    run = _read(tmp_path, ["step\tacc"] + rows, name="mnist_val_acc_run2.tsv")
    assert set(run.series) == {"accuracy"}


def test_step_line_with_two_counters_heads_one_pair_lines(tmp_path):
    """Style: a TF1 detector's step block, `<date>: global_step:20  current_step:20`, then `per_cost_time:4.5s`
    and one `name:value` loss a line down to `total_losses:`: the two counters make a counter-only line, so
    the block is one row at the global step, with no `current_step` series."""
    lines = []
    for step, total in ((20, 3.5), (40, 2.5)):
        lines += ["*" * 60, f"2021-11-05 09:18:{step // 2}: global_step:{step}  current_step:{step}",
                  "per_cost_time:0.5s", f"cls_loss:{total - 1}", "reg_loss:1.000", f"total_losses:{total}", ""]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert _vals(run, "loss") == [3.5, 2.5]
    assert [float(s) for s in run.get("loss").steps] == [20.0, 40.0]
    assert "current_step" not in run.series


def test_end_of_epoch_line_dates_batch_lines_printed_before_it(tmp_path):
    """Style: a language-model loop in the PyTorch word-language-model layout whose batch lines carry no
    epoch (`|   200/  900 batches | ms/batch 21.59 | loss  2.17 | perplexity 8.78`), each epoch closed by
    `| end of epoch   1 | time: 23.68s | test accuracy  0.00`: `end of epoch N` is the epoch counter, so the
    batch counters of later epochs follow on instead of overwriting the first epoch's."""
    lines = ["-" * 40, "| initialisation | test accuracy  0.00", "-" * 40]
    losses = []
    for ep in (1, 2, 3):
        for k, batch in enumerate((200, 400, 600, 800)):
            loss = round(2.5 - 0.5 * ep - 0.05 * k, 2)
            losses.append(loss)
            lines.append(f"|   {batch}/  900 batches | ms/batch 21.{k}0 | loss  {loss:.2f} | perplexity     4.{k}0")
        lines += ["-" * 40, f"| end of epoch   {ep} | time: 23.68s | test accuracy  0.0{ep}", "-" * 40]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == losses
    assert run.meta["restarts"] == 0
    assert _vals(run, "eval/accuracy") == [0.0, 0.01, 0.02, 0.03]
