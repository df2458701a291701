"""Reader rules from the twenty-eighth round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_indented_json_settings_with_a_nested_object_behind_a_logger_prefix(tmp_path):
    """`json.dumps(params, indent=2)` logged as `INFO [train.py:960] (0/3) {`, one entry per line, with a
    named object inside it (`"env_info": {`) and a number-valued setting after it (`"weight_decay": 1e-06,`):
    every line up to the closing brace is the run's settings, on every rank that prints it."""
    lines = []
    for rank in range(3):
        lines += [f"2024-05-01 10:00:0{rank},100 INFO [train.py:958] ({rank}/3) Training started",
                  f"2024-05-01 10:00:0{rank},101 INFO [train.py:960] ({rank}/3) {{",
                  '  "best_train_loss": Infinity,', '  "best_valid_loss": Infinity,', '  "env_info": {',
                  '    "hostname": "node1",', '    "torch-cuda-available": true', "  },",
                  '  "lr_factor": 5.0,', '  "weight_decay": 1e-06,', '  "world_size": 3', "}"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 0 and not run.series

    # the same object with a step counter after it: the metric lines still read
    lines += [f"2024-05-01 10:01:0{k},000 INFO [train.py:500] (0/3) Epoch 0, batch {k * 50}, loss[loss=0.{9 - k}]"
              for k in range(1, 4)]
    run = _read(tmp_path, lines)
    assert "weight_decay" not in run.series and _vals(run, "loss") == [0.8, 0.7, 0.6]


def test_commented_header_whose_names_hold_digits(tmp_path):
    """A fixed-width learning curve whose header is a comment and whose names carry digits (DeePMD's older
    `# batch      l2_tst    l2_trn         lr`): the comment is the table's header, not a heading."""
    lines = ["# batch      l2_tst    l2_trn         lr"] \
        + [f"    {b * 100:>3}    {3.8 - b:.2e}  {3.9 - b:.2e}    1.0e-03" for b in range(3)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "l2_tst") == [3.8, 2.8, 1.8] and _vals(run, "learning_rate") == [0.001] * 3


def test_table_pasted_inside_quote_marks(tmp_path):
    """A table quoted in an issue with the quote marks kept (`" #  step  rmse_trn  lr` ... `500  5.81e+00
    1.0e-03"`): the opening mark does not hide the header and the closing one does not cost the last cell."""
    lines = ['" #  step      rmse_trn    rmse_e_trn         lr'] \
        + [f"    {s * 100:>3}      {9.0 - s:.2e}      {0.6 - s / 10:.2e}    1.0e-03" for s in range(3)]
    lines[-1] += '"'
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "learning_rate") == [0.001] * 3 and _vals(run, "rmse_e_trn")[-1] == 0.4


def test_sentence_right_under_a_header_keeps_the_table(tmp_path):
    """A header pasted with its padding and `#` lost, then the note the tool prints under it
    (`If there is no available reference data, rmse_*_{val,trn} will print nan`) and an elision: the rows
    below still go by the header's names."""
    lines = ["step rmse_val rmse_trn lr",
             "If there is no available reference data, rmse_*_{val,trn} will print nan", "......"] \
        + [f"{s} {0.5 + s / 1000:.2e} {0.9 - s / 1000:.2e} 1.1e-08" for s in (1000, 2000, 3000)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3 and "value_1" not in run.series
    assert _vals(run, "learning_rate") == [1.1e-08] * 3
    assert [float(s) for s in run.get("learning_rate").steps] == [1000.0, 2000.0, 3000.0]


def test_evaluation_with_no_epoch_before_training_stays_first(tmp_path):
    """An evaluation printed before the first epoch with its counter unset (`Epoch None: loss=0.0075, ...`,
    MACE's `Initial: head: Default, loss=...`): the point keeps its place at the start of the series instead of
    sorting after the last epoch."""
    lines = ["INFO: Started training", "INFO: Epoch None: loss=0.0075, RMSE_E_per_atom=298.7 meV"] \
        + [f"INFO: Epoch {e}: loss=0.00{5 - e // 2}, RMSE_E_per_atom={140 - e}.0 meV" for e in (0, 2, 4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.0075, 0.005, 0.004, 0.003]
    assert [float(s) for s in run.get("loss").steps][1:] == [0.0, 2.0, 4.0]


def test_first_group_rate_spelled_lr_0(tmp_path):
    """Chemprop's bar postfix `Loss = 7.7e-01, PNorm = 34.67, GNorm = 6.21, lr_0 = 7.1875e-04`: `lr_0` is the
    rate of the first parameter group, the run's learning rate."""
    lines = [f"Epoch {e} Loss = 7.{7 - e}e-01, PNorm = 34.6{e}, lr_0 = {7 - e}.0e-04" for e in range(3)]
    run = _read(tmp_path, lines)
    assert _vals(run, "learning_rate") == [7e-04, 6e-04, 5e-04]


def test_rate_change_noted_in_a_table_rows_last_cell(tmp_path):
    """A pipe table whose last cell carries a note behind its own word (`  9 |  53.9 |  0.0020 |  0.0104 |  no
    LR -> 1.50e-04`): the note's rate is read with the row, and the row keeps its other columns."""
    lines = ["  Epoch |  Duration(s) |   Train loss |     Dev loss |  Best", "-" * 60,
             "      0 |         54.5 |       0.0865 |       0.0279 |   yes"] \
        + [f"      {e} |         53.9 |       0.00{e} |       0.010{e} |    no LR -> {e}.50e-04 " for e in (1, 2)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3 and _vals(run, "eval/loss") == [0.0279, 0.0101, 0.0102]
    assert _vals(run, "learning_rate") == [1.5e-04, 2.5e-04]


def test_split_set_to_a_data_set_name_heads_its_pairs(tmp_path):
    """PyTorch-Kaldi's epoch line `ep=000 tr=['TIMIT_tr'] loss=0.139 err=0.999 valid=TIMIT_dev loss=0.076
    err=1.000`: `valid=` names the held-out set the pairs after it score; the set's name is no part of their keys."""
    lines = [f"ep={e:03d} tr=['TIMIT_tr'] loss=0.{9 - e}00 err=0.{5 - e}00 valid=TIMIT_dev loss=0.{8 - e}50 "
             f"err=0.{6 - e}00 time(s)=4{e}" for e in range(3)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == [0.9, 0.8, 0.7] and _vals(run, "eval/loss") == [0.85, 0.75, 0.65]
    assert not any("TIMIT" in name for name in run.series)
