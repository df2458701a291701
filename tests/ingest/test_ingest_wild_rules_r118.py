"""Reading rules for printed styles met in real training logs (round 118: a record printed as a block, one
key a line)."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_borderless_two_column_table_under_a_counter_is_one_record(tmp_path):
    """Style: an RL logger's table of one name and one value a row, drawn with pipes but no border lines, under
    a counter line and a line of words (`Iteration 12`, `step size kept`, then `| MeanReturn | 3.1 |` ...): each
    table is one record at the counter's step, a name nobody knows included."""
    lines = [""]
    for it, (ret, ent, kl) in zip((12, 13, 14), [(3.1, 0.91, 0.002), (3.4, 0.88, 0.0017), (2.9, 0.86, math.nan)]):
        lines += [f"Iteration {it}", "step size kept", "",
                  f"| VarExplained | 0.{it}       |",
                  f"| MeanReturn   | {ret}        |",
                  f"| entropy      | {ent}       |",
                  f"| approxkl     | {kl}    |", ""]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("episode_reward").steps) == [12, 13, 14]
    assert _vals(run, "episode_reward") == [3.1, 3.4, 2.9]
    (kl_name,) = [name for name in run.series if "kl" in name]
    assert math.isnan(_vals(run, kl_name)[-1])


def test_padded_dump_after_a_blank_line_is_one_record(tmp_path):
    """Style: a tabular dump of one name and its value padded to a column, printed again after a blank line
    (a quoted `> qLossMean    nan` block, then the same block later): each dump is one record, the second as
    much as the first."""
    lines = []
    for loss, norm in [("nan", "nan"), ("0.0214", "0.0371")]:
        lines += [f"> qLossMean          {loss}",
                  "> qLossSpread        0.5",
                  f"> gradNormMean       {norm}",
                  "> gradNormPeak       0.9",
                  f"> tdErrMean          {norm}", ""]
    run = _read(tmp_path, lines[:-1])
    assert run.meta["rows"] == 2
    assert len(_vals(run, "grad_norm")) == 2
    assert _vals(run, "grad_norm")[1] == 0.0371


def test_a_name_the_block_holds_opens_the_next_one(tmp_path):
    """Style: a dump of names padded to one width and their values, printed again and again with no counter
    and no blank line between (`train_loss    0.52`, `val_loss      0.61`, then `train_loss` again): a name the
    block already holds opens the next record, so each pass is one record, its values at one step."""
    lines = []
    for tr, va in [(0.52, 0.61), (0.44, 0.58), (0.39, 0.57)]:
        lines += [f"train_loss     {tr}", f"val_loss       {va}"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("loss").steps) == list(run.get("eval/loss").steps)
    assert _vals(run, "eval/loss") == [0.61, 0.58, 0.57]


def test_unknown_name_inside_a_block_joins_it_and_a_setting_after_one_stays_out(tmp_path):
    """Style: a step's dump of `| > name:   value  (running mean)` lines whose head line the paste cut off, some
    names the alias table does not know (`disc_norm_0`, `scaler`), between known ones: all one record; a line
    of an unknown name after the block's last known one (`eval_set_size=812` after `Accuracy = 9.1%`) stays
    what it was, no value of the record."""
    lines = []
    for disc, gen in [(2.41, 2.27), (2.38, 2.31)]:
        lines += [f"      | > loss_disc:    {disc:.3f}  (2.50)",
                  "      | > disc_norm_0:  71.20  (27.3)",
                  f"      | > loss_gen:     {gen:.3f}  (2.29)",
                  "      | > scaler:       128.0  (1477.3)",
                  "      | > loss_mel:     16.80  (17.38)",
                  " ", " "]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert _vals(run, "disc_norm_0") == [71.2, 71.2] and "scaler" in run.series
    run = _read(tmp_path, ["INFO:tf:Confusion Matrix:", " [[  0 12]", " [  0 13]]",
                           "INFO:tf:Validation accuracy = 9.1% (N=812)", "INFO:tf:eval_set_size=812"])
    assert "eval_set_size" not in run.series


def test_tab_separated_stats_lines_before_the_first_heading_are_one_record(tmp_path):
    """Style: a MARL stats dump cut above its `Recent Stats | t_env: N | Episode: M` heading, rows of three
    `name:   value` pairs a tab apart, then a whole dump under its heading: two records, not one a row."""
    def dump(ret, loss):
        return ["win_rate_mean:             0.0100\tep_len_mean:               41.5000\tepsilon:                   0.1500",
                f"grad_norm:                 3.1200\tloss:                      {loss}\tq_mean:                    0.5100",
                f"return_mean:               {ret}\treturn_std:                0.8800\ttarget_q_mean:             0.4800"]
    lines = dump("4.2500", "2.0410") + ["", "...", "",
                                        "[INFO 11:02:17] my_main Recent Stats | t_env:    2050114 | Episode:   70311"]
    lines += dump("9.7100", "0.3120")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert _vals(run, "loss") == [2.041, 0.312]
    assert _vals(run, "episode_reward") == [4.25, 9.71]


def test_one_pair_lines_with_a_counter_each_stay_rows(tmp_path):
    """Not a block: one metric a line, each line with its own step (`step 10 loss: 2.3`), stays a row a line;
    so do Keras-style epoch lines and a settings dump before training."""
    run = _read(tmp_path, [f"step {s} loss: {2.5 - s / 100}" for s in range(10, 60, 10)])
    assert run.meta["rows"] == 5
    run = _read(tmp_path, ["learning_rate: 0.001", "batch_size: 32", "weight_decay: 0.01", "",
                           "step 1 loss 2.5", "step 2 loss 2.4", "step 3 loss 2.3"])
    assert run.meta["rows"] == 3
    assert "batch_size" not in run.series


def test_a_step_listed_last_in_a_summary_dates_it(tmp_path):
    """Style: an experiment card's summary, a bullet a key, values padded to a column (`- loss_total:   0.65`,
    ..., `- lr:   0.0001`) with the
    step last among them (`- step: 1000`) and a blank line after: one record at that step; a counter line with
    values under it (`Epoch 2`, then `loss: 0.4`) heads those values instead."""
    lines = ["## Summary", "", "- loss_total:           0.6497", "- loss_rec:             0.4536",
             "- codebook_perplexity:  1.0", "- used_codes:           1.0", "- psnr:                 5.545",
             "- lr:                   0.0001", "- step: 1000", "", "## Artifacts", "", "- checkpoint: `ckpt/run.pt`"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    assert list(run.get("loss").steps) == [1000]
    assert _vals(run, "learning_rate") == [0.0001]
    run = _read(tmp_path, ["loss: 0.52", "acc: 0.81", "Epoch 2", "loss: 0.41", "acc: 0.85", "Epoch 3", "loss: 0.37",
                           "acc: 0.86"])
    assert list(run.get("loss").steps)[-2:] == [2, 3]
