"""Reading rules drawn from the wild19/wild20 collections (after their first reads): dashes between
words, nested bare counters, launcher prefixes, syslog-escaped redraws, counters with thousands
separators, elided table rows, single-dash Markdown rules, bars with no blocks under a header,
output kept as comments, YAML entries with comments, pretty-printed JSON records and PSNR/SSIM."""

from __future__ import annotations

import math

from written_log import read_written as _read


def test_a_double_dash_between_words_separates_the_counter_from_the_metric(tmp_path):
    lines = [f"{k * 100} steps -- validation loss {2.0 - k / 10:.2f}" for k in range(1, 6)]
    lines += [f"{k * 100} steps \u2014 validation loss {1.5 - k / 10:.2f}" for k in range(6, 9)]  # an em dash
    run = _read(tmp_path, lines)
    assert list(run.get("eval/loss").steps) == [k * 100 for k in range(1, 9)]
    assert "loss" not in run.series


def test_two_bare_counters_closed_by_bars_are_the_epoch_then_the_step(tmp_path):
    lines = [f"2|{s}|Loss: {1.2 - s / 1000:.4f}:  40%|####      | {s - 99}/250 [01:00<01:30,  1.50s/it]"
             for s in range(140, 146)]
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert list(loss.steps) == list(range(140, 146))
    assert math.isclose(loss.values[-1], 1.2 - 145 / 1000)


def test_a_torchrun_role_and_rank_prefix_is_the_launchers(tmp_path):
    lines = [f"[worker1|5]:3|{s}|Loss: {3.0 - s / 100:.3f}:  10%|#  | {s - 20}/300 [00:30<07:30,  1.60s/it]"
             for s in range(21, 27)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == list(range(21, 27))


def test_syslog_escaped_carriage_returns_split_the_redraws(tmp_path):
    prefix = "[1,mpirank:0,algo-2]<stdout>:"
    lines = [f"{prefix}#015Epoch {e}: 100% 4/4 [00:01<00:00,  3.10it/s, loss={0.9 - e / 10:.2f}, v_num=1]#033[A"
             for e in range(3)]
    lines.append(f"{prefix}#015Epoch 2: 100% 4/4 [00:01<00:00, 3.1it/s, loss=0.70]   "
                 f"#015Epoch 3:   0% 0/4 [00:00<?, ?it/s, loss=0.61]")
    run = _read(tmp_path, lines)
    assert "epoch" not in run.series  # `#015Epoch 0:` was glued, so the epoch read as a metric
    assert run.get("loss").values[-1] == 0.61


def test_a_counter_with_thousands_separators_is_one_number(tmp_path):
    lines = [f"<epoch: 12, iter: 1{k},200, lr:1.000e-04> l_pix: {0.01 + k / 1000:.4e}" for k in range(5)]
    lines.append("<epoch: 12, iter: 15,000> psnr: 2.8415e+01")
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [10200, 11200, 12200, 13200, 14200]  # (`l_pix`, the only loss)
    assert list(run.get("psnr").steps) == [15000]  # a known metric: kept though printed once


def test_an_ellipsis_row_keeps_a_whitespace_table_open(tmp_path):
    lines = ["Step  loss    grad_norm  reward", "1     0.70    1.2        0.1", "2     0.69    1.1        0.2",
             "...", "50    0.31    0.4        0.9"]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [1, 2, 50]


def test_a_markdown_rule_of_single_dashes_keeps_the_pipe_header(tmp_path):
    lines = ["epoch|gpu|box0|total|p|map", "-|-|-|-|-|-"]
    lines += [f"{e}/99|3.1G| {1.5 - e / 10:.2f}| {3.0 - e / 10:.2f}|0.{40 + e}|0.{30 + e}|" for e in range(5)]
    run = _read(tmp_path, lines)
    assert list(run.get("eval/map").values) == [0.30, 0.31, 0.32, 0.33, 0.34]


def test_a_header_drawn_with_a_bar_that_has_no_blocks(tmp_path):
    lines = []
    for e in range(3):
        lines += ["     Epoch   gpu_mem       box       obj     total   targets  img_size",
                  f"      {e}/9     4.1G    0.05{e}    0.03{e}    0.08{e}        11       640: 100% 80/80 [01:00<00:00,  1.3it/s]"]
    lines += ["               Class      Images     Targets           P           R      mAP@.5  mAP@.5:.95: 100% 9/9 [00:05<00:00,  1.6it/s]",
              "                 all         400        1200       0.512       0.634       0.577       0.301"]
    run = _read(tmp_path, lines)
    assert run.get("eval/map50").values[-1] == 0.577


def test_printed_output_kept_as_comments_is_read_but_a_config_comment_is_not(tmp_path):
    lines = ["# 1 epoch is 500 iterations", "# Epoch: 001/005 | Train: 41.000% | Loss: 1.820",
             "# Time elapsed: 1.02 min", "# Epoch: 002/005 | Train: 52.000% | Loss: 1.511",
             "## Results with 5 epochs"]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [1.82, 1.511]
    assert list(run.get("loss").steps) == [1, 2]


def test_yaml_entries_with_comments_are_configuration(tmp_path):
    lines = [f"epoch {e} loss {1.0 - e / 10:.2f}" for e in range(3)]
    lines += ["lr0: 0.01  # initial learning rate", "weight_decay: 0.0005  # optimizer weight decay 5e-4",
              "momentum: 0.937  # SGD momentum"]
    run = _read(tmp_path, lines)
    assert "weight_decay" not in run.series and not any(name.startswith("#") for name in run.series)
    assert run.meta["rows"] == 3


def test_pretty_printed_json_records_are_one_row_each_even_cut_at_the_end(tmp_path):
    lines = ['See my state: `{', '  "global_step": 300,', '  "best_metric": null,', '  "log_history": [']
    for k in range(1, 4):
        lines += ["    {", f'      "epoch": {k / 10},', f'      "loss": {2.0 - k / 10},', f'      "step": {k * 100}',
                  "    },"]
    lines += ["    {", '      "epoch": 0.4,', '      "loss": 1.55,', '      "step": 400']  # the paste stops there
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert run.meta["rows"] == 4
    assert list(loss.values) == [1.9, 1.8, 1.7, 1.55]
    assert list(loss.steps)[:3] == [100, 200, 300]


def test_a_sentence_saying_the_loss_is_nan_is_an_error_not_a_record(tmp_path):
    lines = [f"epoch {e} loss {1.0 - e / 10:.2f}" for e in range(4)] + ["the loss is nan, why?", "Epoch 5: loss is nan"]
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert list(loss.steps) == [0, 1, 2, 3, 5] and math.isnan(loss.values[-1])  # (a counted line is a measurement)
    assert loss.values[3] == 0.7 and run.meta["rows"] == 5  # (the sentence took epoch 3's place)
    assert any(ev.kind == "error" and "why" in ev.text for ev in run.events)


def test_a_counter_line_heads_a_block_of_pairs_through_a_duration(tmp_path):
    lines = ["***** train metrics *****", "  epoch                    =        3.0",
             "  train_loss               =     0.4127", "  train_runtime            = 0:12:07.31",
             "  train_samples_per_second =     21.904", "  train_steps_per_second   =      0.684"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1 and run.get("loss").values[0] == 0.4127


def test_a_logger_format_with_em_dashes_between_its_fields(tmp_path):
    lines = []
    for ep in range(3):
        lines += [f"2021-03-0{ep + 1} 10:00:0{k},100 \u2014 agent.ppo \u2014 INFO \u2014 {name}: {v}"
                  for k, (name, v) in enumerate([("Epoch", ep), ("Average Episode Return", 10 + ep),
                                                 ("Average Value function Loss", 5.0 - ep)])]
    run = _read(tmp_path, lines)
    assert list(run.get("value_loss").values) == [5.0, 4.0, 3.0]
    assert list(run.get("episode_reward").steps) == [0, 1, 2]


def test_a_two_cell_pipe_row_without_its_border_is_a_name_and_its_value(tmp_path):
    lines = []
    for seed in range(3):
        lines += [f"==> runs/hopper/seed/{seed}/stdout <==", f"| ep_reward_mean     | {2.1 + seed / 10:.2f}e+03     |"]
    run = _read(tmp_path, lines)
    assert list(run.get("episode_reward").values) == [2100.0, 2200.0, 2300.0]


def test_a_metrics_dict_over_several_lines_with_a_duration_among_its_numbers(tmp_path):
    lines = ["{", "'best_epoch': 3, ", "'training_duration': '00:10:02', ", "'epoch': 7, ",
             "'training_loss': 0.412, ", "'training_accuracy': 0.83, ", "'validation_loss': 1.9, ",
             "'validation_accuracy': 0.41", "}"]
    run = _read(tmp_path, lines)
    assert run.get("eval/loss").values[0] == 1.9 and run.get("loss").values[0] == 0.412
    assert run.meta["rows"] == 1  # one summary, not a row per line
    settings = _read(tmp_path, ["{", "'optimizer': 'adam', ", "'lr': 0.001, ", "'loss_weight': 1.0, ",
                                "'batch_size': 32", "}"], name="config.log")
    assert not settings.series  # (a config names no two losses or accuracies)
