"""Reader rules from the thirty-second round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_stats_dump_in_tabbed_columns_under_a_counter_line_is_one_row(tmp_path):
    """A multi-agent RL logger's periodic summary: a title line holding only the counters
    (`[INFO 10:00:01] my_main Recent Stats | t_env:   20480 | Episode:   64`), then the statistics
    laid out four to a line, each `name:` padded to a column and a tab between pairs. The lines under
    the title are one record, counted once; progress lines (`t_env: 2000 / 500000`) are no rows."""
    lines = ["[INFO 10:00:00] my_main Beginning training for 500000 timesteps"]
    for k in range(1, 4):
        lines += [f"[INFO 10:0{k}:00] my_main t_env: {k * 10000 - 300} / 500000",
                  f"[INFO 10:0{k}:01] my_main Recent Stats | t_env: {k * 10240:>10} | Episode: {k * 32:>8}",
                  f"critic_loss:{'':>14}{0.5 / k:.4f}\tep_length_mean:{'':>10}{100 + k:.4f}\t"
                  f"return_mean:{'':>14}{1.5 * k:.4f}\tq_taken_mean:{'':>11}{0.1 * k:.4f}",
                  f"test_return_mean:{'':>9}{1.2 * k:.4f}\ttest_return_std:{'':>10}{0.3:.4f}\t"
                  f"pg_loss:{'':>18}{0.02 / k:.4f}\t"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "episode_reward") == [1.5, 3.0, 4.5]
    assert _vals(run, "eval/episode_reward") == [1.2, 2.4, 3.6]


def test_bare_list_of_a_steps_numbers_is_a_row(tmp_path):
    """A training script that hands its logger a plain list of the step's numbers, no names
    (`INFO:run:[nan, 2.51, 83.04, 0.99, inf, 28400, 0.000199]`: the loss terms, then the global step
    and the learning rate), each after a `Train Epoch: 5 [40%]` progress line: every list is a row of
    unnamed values, non-finite ones kept; a list of whole numbers only is no row."""
    lines = ["INFO:run:Shapes: [3, 64, 128]"]
    for k in range(4):
        lines += [f"INFO:run:Train Epoch: 5 [{20 * k + 10}%]",
                  f"INFO:run:[nan, {2.5 + k / 10:.2f}, {83.0 + k:.4f}, 0.9958, inf, {28400 + 200 * k}, 0.000199]"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "value_2") == [2.5, 2.6, 2.7, 2.8]
    assert _vals(run, "value_6") == [28400, 28600, 28800, 29000]
    assert all(v != v for v in _vals(run, "value_1"))


def test_values_in_a_raised_exceptions_message_are_the_last_row(tmp_path):
    """A training loop that guards against a non-finite loss by raising with the step's values as
    the message (`ValueError: loss=nan, policy_loss=nan, entropy_loss=nan`) at the foot of a
    traceback: those values are the run's last reading, one row after the summary lines; an
    exception whose message is prose (`ValueError: bad shape (3, 4)`) gives no row."""
    stamp = "2019-02-15 15:37:57,825 INFO     "
    lines = [stamp + "steps_per_s=25.76, loss=-0.1758, entropy=5.023, advantage=0.018",
             stamp + "iteration 27/10000",
             "Traceback (most recent call last):",
             '  File "train.py", line 646, in train',
             "    raise ValueError(msg)",
             "ValueError: loss=nan, policy_loss=nan, entropy_loss=nan"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    loss = _vals(run, "loss")
    assert loss[0] == -0.1758 and loss[-1] != loss[-1]
    prose = _read(tmp_path, lines[:-1] + ["ValueError: bad shape (3, 4), loss=2 expected"], name="prose.log")
    assert prose.meta["rows"] == 1
