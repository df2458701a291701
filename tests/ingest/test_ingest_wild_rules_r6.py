"""Reading rules asked for by the wild13-24, wild26 and wild29 collections (round r6), each on a small
synthetic log written in the style that needed it (never a copy of a corpus file)."""

from __future__ import annotations

import math

from written_log import read_written as _read


def _values(run, name):
    return [round(float(v), 4) for v in run.series[name].values]


def test_a_loss_printed_under_its_criterions_name_is_the_loss(tmp_path):
    """A torchdrug-style engine log names the loss after its criterion and prints only the wall clock
    (`09:12:40   binary cross entropy: 0.6931`), with separator lines between the records."""
    lines = []
    for i, v in enumerate((0.6931, 0.5512, 0.5020, 0.4877)):
        lines += [f"09:1{i}:40   " + ">" * 24, f"09:1{i}:40   binary cross entropy: {v}"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _values(run, "loss") == [0.6931, 0.5512, 0.502, 0.4877]


def test_an_angle_bracket_record_glued_after_a_tqdm_bar_is_read(tmp_path):
    """A GAN trainer prints `<epoch:E, iter:N, name:value, ...>` right after tqdm's bar, with no newline
    between them (`... 2.05it/s]<epoch:3, iter:410, g_loss:4.1, ...>`); the first record has no bar."""
    lines = ["<epoch:3, iter:400, g_loss:5.2000, d_loss:0.6100>, d_weight: 1.0000"]
    for n, (g, d) in ((410, (4.1, 0.58)), (420, (3.7, 0.66)), (430, (3.9, 0.61))):
        lines.append(f" 12%|##        | {n}/3400 [03:10<23:04,  2.05it/s]<epoch:3, iter:{n}, g_loss:{g:.4f}, "
                     f"d_loss:{d:.4f}>, d_weight: 1.0000")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _values(run, "g_loss") == [5.2, 4.1, 3.7, 3.9]
    assert [float(s) for s in run.series["g_loss"].steps] == [400.0, 410.0, 420.0, 430.0]


def test_a_dated_logger_line_glued_after_a_bar_and_its_source_location_in_parentheses(tmp_path):
    """A TensorFlow trainer's logger writes `%(asctime)s (%(module)s:%(lineno)d) %(levelname)s:` lines, the
    first of a batch glued onto tqdm's bar: each line is read, and `(trainer:512)` is no metric."""
    lines = []
    for step, (a, b) in ((1200, (0.0412, 0.731)), (1400, (0.0391, 0.702))):
        lines.append(f"[train]:  12%|#2        | {step}/10000 [01:05<7:39:06,  3.80it/s]"
                     f"2021-03-04 10:11:12,345 (trainer:512) INFO: (Step: {step}) train_duration_loss = {a}.")
        lines.append(f"2021-03-04 10:11:12,346 (trainer:512) INFO: (Step: {step}) train_mel_loss = {b}.")
    run = _read(tmp_path, lines)
    assert "trainer" not in run.series
    assert _values(run, "train_duration_loss") == [0.0412, 0.0391]
    assert _values(run, "train_mel_loss") == [0.731, 0.702]
    assert [float(s) for s in run.series["train_mel_loss"].steps] == [1200.0, 1400.0]


def test_a_run_of_bracketed_numbers_after_a_name_is_a_list_not_its_value(tmp_path):
    """Debug prints of a multi-scale loss write one bracket per scale (`loss: [0.41][0.37][1208]`): the
    list is no loss value; a single bracketed number (`lr: [0.0002]`) still is one."""
    lines = []
    for step, v in ((10, 0.9), (20, 0.8), (30, 0.7)):
        lines.append(f"step {step} loss: [{v}][0.37][1208]")
        lines.append(f"step {step} lr: [0.0002] total: {v + 1}")
    run = _read(tmp_path, lines)
    assert "loss" not in run.series
    assert _values(run, "learning_rate") == [0.0002, 0.0002, 0.0002]


def test_a_dict_of_unknown_keys_after_a_named_metric_is_kept(tmp_path):
    """A trajectory-forecasting evaluation prints its metric first, then a dict of internal statistics
    whose keys name no known metric (`FDE: 3.58 {'stage_one_k': 3.5, 'stage_one_recall': 0.97}`): the
    line is a record, and FDE is the final displacement error."""
    lines = []
    for fde, k in ((6.12, 5.4), (4.40, 4.3), (3.98, 3.9)):
        lines += [f"FDE: {fde} {{'stage_one_k': {k}, 'stage_one_recall': 0.96}}", ""]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _values(run, "fde") == [6.12, 4.4, 3.98]
    assert _values(run, "stage_one_k") == [5.4, 4.3, 3.9]


def test_numbers_in_parentheses_after_a_name_are_its_cutoffs(tmp_path):
    """`MR(2,4,6): (0.75, 0.52, 0.35)` gives one value per cut-off, in order, and `recall(20): 0.12` is
    recall at 20: the numbers between the name and its colon are parameters, never the value."""
    lines = [f"epoch {e} loss {loss} recall(20): {r} MR(2,4,6): ({m}, {m / 2}, {m / 4})"
             for e, loss, r, m in ((1, 0.9, 0.11, 0.8), (2, 0.8, 0.14, 0.6))]
    run = _read(tmp_path, lines)
    assert _values(run, "loss") == [0.9, 0.8]
    got = {name: _values(run, name) for name in run.series}
    recall = next(v for k, v in got.items() if "recall" in k)
    assert recall == [0.11, 0.14]
    assert got["MR@2"] == [0.8, 0.6] and got["MR@6"] == [0.2, 0.15]
    assert not any(math.isclose(v, 20.0) for vals in got.values() for v in vals)


def test_a_shown_tuple_of_names_takes_its_tuple_of_values(tmp_path):
    """Julia's `@show (i, loss(x, y))` prints a tuple of names and a tuple of values
    (`(i, loss(x, y)) = (3, 0.2961 (tracked))`): each name takes the value at its place."""
    lines = ["    loss(x, y) = 0.4012 (tracked)"]
    lines += [f"    (i, loss(x, y)) = ({i}, {0.4 - i / 100:.4f} (tracked))" for i in range(1, 5)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5
    assert _values(run, "loss") == [0.4012, 0.39, 0.38, 0.37, 0.36]


def test_a_bar_cut_at_the_terminal_width_after_an_items_comma_keeps_its_postfix(tmp_path):
    """A Lightning bar whose postfix the terminal cut right after a comma, with no closing bracket
    (`Epoch 0:   7%|7   | 2/28 [00:18<04:04,  0.11it/s, v_num=0, train/mel_loss=nan.0, `): the items
    before the cut are read, `nan.0` is NaN."""
    lines = [f"Epoch {e}:   7%|7         | {b}/28 [00:18<04:04,  0.11it/s, v_num=0, train/mel_loss={v}, "
             f"train/pitch_loss={v}, " for e, b, v in ((0, 1, "19.70"), (0, 2, "nan.0"), (1, 3, "nan.0"))]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    vals = [float(v) for v in run.series["pitch_loss"].values]
    assert vals[0] == 19.7 and all(math.isnan(v) for v in vals[1:])


def test_a_step_header_heads_the_one_value_lines_under_it_with_their_running_means(tmp_path):
    """Coqui TTS's trainer prints `--> STEP: 24/352 -- GLOBAL_STEP: 1024` and then one value a line, each
    with its running mean in parentheses (`     | > loss: 0.912  (0.950)`): the lines belong to that step."""
    lines = []
    for step, loss, gn in ((1024, 0.912, 3.1), (1049, 0.877, 2.9), (1074, 0.861, 2.7)):
        lines += [f"   --> STEP: {step - 1000}/352 -- GLOBAL_STEP: {step}",
                  f"     | > loss: {loss}  ({loss + 0.04:.3f})", f"     | > grad_norm: {gn}  ({gn + 0.5:.2f})"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert [float(s) for s in run.series["loss"].steps] == [1024.0, 1049.0, 1074.0]
    assert _values(run, "loss") == [0.912, 0.877, 0.861]
    assert _values(run, "grad_norm") == [3.1, 2.9, 2.7]
