"""Reader rules for print styles of hyperparameter searches, neural rendering and large-scale pretraining."""

from __future__ import annotations

from written_log import read_written as _read
from written_log import series_values as _vals


def test_search_trial_lines_one_row_per_finished_trial(tmp_path):
    """Style: a tuner's study log, `[I <time>] Trial N finished with value: X and parameters: {...}. Best is
    trial M with value: Y.`, with `Trial N pruned.` lines between: each finished trial is one row at its
    number, holding the objective it returned; pruned trials and the parameters are no rows."""
    lines = ["[I 2023-05-01 10:00:00,000] A new study created in memory with name: demo-study"]
    vals = [0.61, 0.55, 0.58, 0.52]
    for i, v in enumerate(vals):
        lines.append(f"[I 2023-05-01 10:00:0{i},100] Trial {i} finished with value: {v} and parameters: "
                     f"{{'lr': 0.0{i + 1}, 'depth': {i + 3}}}. Best is trial 0 with value: 0.61.")
        lines.append(f"[I 2023-05-01 10:00:0{i},500] Trial {i + 10} pruned.")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "trial_value") == vals
    assert [float(s) for s in run.get("trial_value").steps] == [0.0, 1.0, 2.0, 3.0]
    assert set(run.series) == {"trial_value"}


def test_trial_status_table_one_row_per_trial(tmp_path):
    """Style: a search's status table (`| Trial name | status | loc | ... | iter | loss | acc |`), every trial
    run for the same number of iterations: each trial is one row, in the table's order, not one point
    at the shared `iter` value; a row whose value drifted off its column is read by its rules."""
    lines = [
        "+--------------+------------+-------+------+--------+------------------+-----------+",
        "| Trial name   | status     | loc   |   bs |   iter |   total time (s) |      loss |",
        "|--------------+------------+-------+------+--------+------------------+-----------|",
        "| run_fn_00000 | TERMINATED |       |   32 |     10 |    51.2  | 0.412 |",
        "| run_fn_00001 | TERMINATED |       |   64 |     10 |    48.9  | 0.388 |",
        "| run_fn_00002 | TERMINATED |       |   16 |     10 |    55.0  | 0.455 |",
        "+--------------+------------+-------+------+--------+------------------+-----------+",
    ]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == [0.412, 0.388, 0.455]


def test_double_spaced_trial_table_keeps_its_rows(tmp_path):
    """Style: a pasted `|`-ruled trial table with a blank line after every line (`| Trial name | status |
    ... | loss |`, blank, row, blank, row): the blank lines do not end the table, and each trial is a row
    even when several trials share an `iter` value."""
    rows = [("t_a1", 3, 1, "nan"), ("t_b2", 4, 11, "0.0071"), ("t_c3", 3, 1, "0.0030"), ("t_d4", 2, 4, "nan")]
    lines = ["+--------+------------+------+--------+----------+", "",
             "| Trial name | status     |   bs |   iter |     loss |", ""]
    for name, bs, it, loss in rows:
        lines += [f"| {name}   | TERMINATED |    {bs} |     {it:>2} | {loss:>8} |", ""]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    got = _vals(run, "loss")
    assert got[1] == 0.0071 and got[2] == 0.003
    assert got[0] != got[0] and got[3] != got[3]


def test_tuner_hyperparameter_table_is_settings(tmp_path):
    """Style: KerasTuner's per-trial table (`Hyperparameter |Value |Best Value So Far`, one knob a row) before
    the trial's epochs: the table lists settings, so only the epoch lines are rows."""
    lines = ["Search: Running Trial #5", "",
             "Hyperparameter    |Value             |Best Value So Far ",
             "units             |128               |64                ",
             "dropout           |0.2               |0.1               ",
             "learning_rate     |0.001             |0.0005            ", "",
             "Epoch 1/10",
             "20/20 - 2s - loss: 0.9000 - val_loss: 0.8500",
             "Epoch 2/10",
             "20/20 - 1s - loss: 0.7000 - val_loss: 0.7200"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert _vals(run, "loss") == [0.9, 0.7]
    assert not any(k.lower() in ("value", "best_value_so_far", "units", "dropout") for k in run.series)


def test_dict_value_among_key_value_pairs(tmp_path):
    """Style: InternEVO's metrics line, `key=value` pairs with one value a dict of per-group numbers
    (`grad_norm={'0_default': 2.1, '1_fp32': 0.0}`) and more pairs after it: the dict's entries are that
    key's parts and the pairs behind it are read too."""
    lines = [f"2024-11-24 02:35:{i:02d},531 INFO pipeline.py:770 in record_metrics -- tflops=229.6 step={i} "
             f"loss={3.0 - 0.1 * i:.2f} lr=1e-4 loss_scale=16384.0 grad_norm={{'0_default': {1.5 + i / 10}, "
             f"'1_fp32': 0.0}} micro_num=16 acc={0.4 + i / 100:.2f} perplexity={9.0 - i / 10:.1f}" for i in range(1, 4)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == [2.9, 2.8, 2.7]
    assert _vals(run, "accuracy") == [0.41, 0.42, 0.43]
    assert _vals(run, "perplexity") == [8.9, 8.8, 8.7]
    assert _vals(run, "grad_norm/0_default") == [1.6, 1.7, 1.8]


def test_megatron_iteration_record_broken_at_its_bars(tmp_path):
    """Style: a Megatron iteration record pasted over several lines, broken after its `|` separators
    (`iteration 5/50 | elapsed time per iteration: 21392.5 ms |` then `learning rate: ... | global batch
    size: ... |` ...): the lines are one record at the iteration's step."""
    lines = []
    for it, gn in ((5, "1.25"), (6, "nan")):
        lines += [f"iteration {it}/50 | elapsed time per iteration: 21392.5 ms |",
                  "learning rate: 1.350000E-04 | global batch size: 4096 |",
                  f"lm loss: {10.0 - it / 10:.6E} | loss scale: 1.0 | grad norm: {gn} |",
                  "number of skipped iterations: 0 | number of nan iterations: 0"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert [float(s) for s in run.get("loss").steps] == [5.0, 6.0]
    assert _vals(run, "learning_rate") == [1.35e-4, 1.35e-4]
    g = _vals(run, "grad_norm")
    assert g[0] == 1.25 and g[1] != g[1]


def test_deepspeed_throughput_timer_leads_with_epoch_and_step(tmp_path):
    """Style: DeepSpeed's throughput timer line (`[INFO] [timer.py:207:stop] 0/10, RunningAvgSamplesPerSec=28.4,
    CurrSamplesPerSec=28.3, MemAllocated=7.33GB`): `0/10` is the epoch and the global step, so each line
    sits at its own step rather than all at step 0."""
    lines = [f"[2022-09-19 00:2{i}:22,168] [INFO] [timer.py:207:stop] 0/{10 * i}, RunningAvgSamplesPerSec="
             f"{28.0 + i / 10}, CurrSamplesPerSec={28.5 - i / 10}, MemAllocated=7.33GB, MaxMemAllocated=10.71GB"
             for i in range(1, 4)]
    run = _read(tmp_path, lines)
    s = run.get("RunningAvgSamplesPerSec")
    assert [float(x) for x in s.steps] == [10.0, 20.0, 30.0]
    assert _vals(run, "RunningAvgSamplesPerSec") == [28.1, 28.2, 28.3]


def test_box_trial_table_rows_without_results_keep_the_table(tmp_path):
    """Style: Ray Tune's box-drawn status table (`│ Trial name   status   units ... accuracy │`) whose first
    rows are trials still RUNNING with blank result cells: they are no rows, and the finished trials
    below them are still read under the header, also when every line carries the actor's prefix
    (`(TunerInternal pid=1083113) │ ... │`)."""
    lines = [
        "Trial status: 1 TERMINATED | 2 RUNNING",
        "╭──────────────────────────────────────────────────────────────────────────────────────╮",
        "│ Trial name            status         units     dropout     iter     total time (s)     accuracy │",
        "├──────────────────────────────────────────────────────────────────────────────────────┤",
        "│ train_fn_a1b2_00001   RUNNING          512    0.308015                                        │",
        "│ train_fn_a1b2_00002   RUNNING          256    0.205733                                        │",
        "│ train_fn_a1b2_00000   TERMINATED       256    0.338235       10           12.3224        0.9657 │",
        "╰──────────────────────────────────────────────────────────────────────────────────────╯",
    ]
    for prefix in ("", "(TunerInternal pid=1083113) "):
        run = _read(tmp_path, [prefix + line for line in lines])
        assert run.meta["rows"] == 1
        assert _vals(run, "accuracy") == [0.9657]
