"""Reader rules for print styles seen in logs of TTS/vocoder trainers, bioinformatics models and
notebook pastes: logger prefixes split by tabs or naming a process, result banners behind a logger's
stamp, tables whose empty cells are written `nan` or `NA`, and code lines quoting training calls."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_tab_separated_logger_fields_are_a_prefix(tmp_path):
    """Style: python logging with `%(asctime)s<TAB>%(name)s<TAB>%(levelname)s<TAB>%(message)s` (VITS forks)."""
    lines = [f"2024-03-01 10:00:0{i},100\tvoice\tINFO\tepoch: {i}, loss_gen: 2.{i}, loss_mel: 1{i}.5" for i in range(1, 5)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "g_loss") == [2.1, 2.2, 2.3, 2.4]
    assert not any("INFO" in k or "voice" in k for k in run.series)


def test_a_lone_line_of_loss_terms_is_a_measurement(tmp_path):
    """Style: one console line of a GAN's loss terms and no step (`loss_disc=2.5, loss_gen=3.1, loss_fm=12.0`)."""
    run = _read(tmp_path, ["loss_disc=2.514, loss_gen=3.120, loss_fm=12.004,loss_mel=21.330, loss_kl=1.750 "])
    assert run.meta["rows"] == 1
    assert _vals(run, "g_loss") == [3.12]
    assert _vals(run, "loss_mel") == [21.33]


def test_a_stamped_results_banner_heads_one_record(tmp_path):
    """Style: `MM/DD/YYYY HH:MM:SS - INFO - __main__ -   ***** Eval results *****`, then `acc = 0.9` a line each."""
    lines = []
    for stamp, acc in (("03/02/2022 11:20:31", "0.71"), ("03/02/2022 12:05:47", "0.74")):
        lines += [f"{stamp} - INFO - __main__ -   ***** Eval results  *****",
                  f"{stamp} - INFO - __main__ -     acc = {acc}",
                  f"{stamp} - INFO - __main__ -     f1 = 0.6",
                  f"{stamp} - INFO - __main__ -     mcc = 0.3"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert _vals(run, "eval/accuracy") == [0.71, 0.74]


def test_values_under_a_results_banner_are_kept_even_unknown(tmp_path):
    """Style: two banner blocks (`***** Eval results *****`, `***** Pred results *****`) whose names include
    one the alias table does not know (`aupr`), no other record in the log."""
    lines = []
    for head in ("Eval", "Pred"):
        lines += [f"***** {head} results *****", "  acc = 0.52", "  aupr = 0.55", "  recall = 1.0", ""]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert _vals(run, "eval/aupr") == [0.55, 0.55]


def test_a_logger_name_with_its_process_name_is_a_prefix(tmp_path):
    """Style: `%(asctime)s %(levelname)s [%(name)s/%(processName)s] %(module)s.%(funcName)s : ` before a table."""
    head = "2024-05-06 09:00:00,001 INFO [app/MainProcess] model.log_table : "
    lines = [head + "Step\tTrain loss\tValid loss"] + [head + f"{s}\t{t}\t{v}" for s, t, v in
                                                      ((100, "0.9", "0.8"), (200, "0.7", "0.6"), (300, "0.5", "0.4"))]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [100, 200, 300]
    assert _vals(run, "eval/loss") == [0.8, 0.6, 0.4]


def test_nan_cells_of_rows_that_fill_different_columns_are_empty(tmp_path):
    """Style: one table of training rows and validation rows, each leaving the other's column `nan`."""
    rows = [(1000, "nan", "1.40"), (1500, "1.62", "nan"), (2000, "nan", "1.10"), (3000, "nan", "0.95"),
            (3100, "1.21", "nan"), (4000, "nan", "0.83")]
    run = _read(tmp_path, ["Step\tTrain loss\tValid loss"] + [f"{s}\t{t}\t{v}" for s, t, v in rows])
    assert _vals(run, "loss") == [1.62, 1.21]
    assert list(run.get("loss").steps) == [1500, 3100]
    assert _vals(run, "eval/loss") == [1.40, 1.10, 0.95, 0.83]


def test_a_nan_in_a_row_that_fills_every_column_stays(tmp_path):
    """Style: a table where every row fills both columns until the loss goes `nan`: a real NaN, kept."""
    rows = [(100, "1.5", "1.4"), (200, "1.2", "1.1"), (300, "nan", "1.0"), (400, "nan", "nan")]
    run = _read(tmp_path, ["Step\tTrain loss\tValid loss"] + [f"{s}\t{t}\t{v}" for s, t, v in rows])
    assert math.isnan(_vals(run, "loss")[-1])


def test_na_cells_leave_the_row_a_row(tmp_path):
    """Style: a blank-aligned table of `loss  average_precision  roc_auc` whose scores are `NA` (R, pandas)."""
    lines = ["loss    average_precision       roc_auc", "0.31     NA      NA", "0.22     NA      NA",
             "0.17     0.61      0.72"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == [0.31, 0.22, 0.17]


def test_a_logging_default_prefix_whose_name_has_a_hyphen(tmp_path):
    """Style: `INFO:<run-name>:loss_disc=...` (logging's default format, the logger named after a run with a
    hyphen, here one holding the word `test`): the name is no split."""
    lines = ["INFO:voice-test:loss_disc=3.3, loss_gen=3.6, loss_fm=10.6, loss_mel=24.8",
             "INFO:voice-test:loss_disc=3.1, loss_gen=3.4, loss_fm=10.1, loss_mel=23.4"]
    run = _read(tmp_path, lines)
    assert _vals(run, "g_loss") == [3.6, 3.4]
    assert not any(k.startswith("eval/") for k in run.series)


def test_a_wall_clock_field_in_a_step_heading(tmp_path):
    """Style: Coqui trainer's `--> TIME: 2024-11-01 07:59:12 -- STEP: 199/406 -- GLOBAL_STEP: 100200`
    heading, then `| > name: value  (average)` lines."""
    lines = []
    for i, g in ((199, 100200), (224, 100225)):
        lines += [f"   --> TIME: 2024-11-01 08:0{i % 10}:12 -- STEP: {i}/406 -- GLOBAL_STEP: {g}",
                  f"     | > loss_disc: 2.{i % 10}  (2.35)", f"     | > loss_gen: 3.{i % 10}  (3.20)"]
    run = _read(tmp_path, lines)
    assert list(run.get("g_loss").steps) == [100200, 100225]
    assert _vals(run, "loss_disc") == [2.9, 2.4]


def test_a_quoted_training_call_is_settings(tmp_path):
    """Style: a notebook paste that quotes `model.train(learning_rate=0.01, min_epochs=200, patience=10)` above
    the run's progress bar."""
    lines = ["model.train(learning_rate=0.01, min_epochs=200, early_stop=True, patience=10)", "",
             "Epoch Loss:116.851:   3%|▎         | 27/800 [01:17<36:48,  2.86s/it]"]
    run = _read(tmp_path, lines)
    assert "patience" not in run.series and "min_epochs" not in run.series
    assert _vals(run, "loss") == [116.851]
