"""Reader rules from the twenty-sixth round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_rich_traceback_box_is_traceback_text(tmp_path):
    """rich's boxed traceback (`│   120 │   │   # scale NaN │`, `│ ❱ 121 │ raise ... │`): the source lines in a
    frame's gutter are code, not `key value` pairs, whether the box is whole or pasted from its middle."""
    frame = ["│ /opt/app/train.py:121 in step                                       │",
             "│                                                                     │",
             "│   119 │   for batch in loader:                                        │",
             "│   120 │   │   # scale NaN                                             │",
             "│ ❱ 121 │   │   raise ValueError(f\"loss 1.5 at step {i}\")              │",
             "│   122 │   │   lr = 0.5                                                │"]
    foot = ["╰─────────────────────────────────────────────────────────────────────╯",
            "ValueError: loss 1.5 at step 3"]
    head = ["╭──────────────── Traceback (most recent call last) ────────────────╮"]
    for lines in (frame[2:] + foot, head + frame + foot):
        run = _read(tmp_path, ["step 1 loss 2.5", "step 2 loss 2.25"] + lines)
        assert run.meta["rows"] == 2 and _vals(run, "loss") == [2.5, 2.25]
        tb = [e for e in run.events if e.kind == "traceback"]
        assert len(tb) == 1 and tb[0].text.endswith("ValueError: loss 1.5 at step 3")
    run = _read(tmp_path, frame[2:] + foot)
    assert run.meta["rows"] == 0

    # a rich table's numbered rows (Lightning's model summary, `│ 0 │ model │`) are no frame
    run = _read(tmp_path, ["┏━━━┳━━━━━━━┳━━━━━━━━┓", "┃   ┃ Name  ┃ Params ┃", "┡━━━╇━━━━━━━╇━━━━━━━━┩",
                           "│ 0 │ model │ 11.2 M │", "│ 1 │ head  │ 5.1 K  │", "└───┴───────┴────────┘"])
    assert not [e for e in run.events if e.kind == "traceback"]


def test_xgboost_round_before_single_spaced_pairs(tmp_path):
    """XGBoost's watchlist line pasted with single blanks (`[10] train-rmse:0.36 eval-rmse:0.84`): the
    bracketed number is the boosting round, not a launcher's rank."""
    lines = [f"[{r}] train-rmspe:0.3{9 - r % 10} eval-rmspe:0.8{r % 10}" for r in range(10, 14)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert [float(s) for s in run.get("eval/rmspe").steps] == [10.0, 11.0, 12.0, 13.0]
    assert _vals(run, "eval/rmspe") == [0.80, 0.81, 0.82, 0.83]


def test_lightgbm_round_before_one_blank(tmp_path):
    """LightGBM's `[100] training's l2: 0.05` with a blank where its tab was (a round past 99 pasted or
    padded so): the bracketed number is still the boosting round."""
    lines = [f"[{r}]\ttraining's l2: 0.0{9 - r // 20}\tvalid_1's l2: 0.2{r // 20}" for r in (20, 40, 60, 80)] \
        + ["[100] training's l2: 0.04\tvalid_1's l2: 0.26"]
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("eval/l2").steps] == [20.0, 40.0, 60.0, 80.0, 100.0]
    assert _vals(run, "eval/l2")[-1] == 0.26


def test_counter_then_blank_separated_unnamed_values(tmp_path):
    """A loop that prints its counter and then bare numbers (`batch: 387 nan 0.6596 0.7270`): one row per
    line, the values unnamed columns, a NaN among them kept."""
    lines = [f"batch: {b} {'nan' if b > 11 else f'0.6{b}'} 0.7{b} 0.5{b}" for b in range(10, 14)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    v = _vals(run, "value_1")
    assert v[:2] == [0.61, 0.611]
    assert all(x != x for x in v[2:]) and _vals(run, "value_2") == [0.71, 0.711, 0.712, 0.713]


def test_dash_cells_hold_places_in_a_headerless_row(tmp_path):
    """A loop printing its iteration and a fixed row of unnamed terms, `----` where a term was not computed
    that iteration (generator and discriminator terms on alternate lines): each dash cell keeps its
    column's place, and a row of dashes alone is no row."""
    gen = " ".join(["0.25", "nan"] * 10) + " " + " ".join(["----"] * 8)
    disc = " ".join(["----"] * 20) + " " + " ".join(["nan"] * 8)
    lines = [f"2022-05-08 16:27:0{i},927 {500 + i} {gen if i % 2 == 0 else disc}" for i in range(6)]
    lines.insert(0, "2022-05-08 16:27:00,100 499 " + " ".join(["----"] * 28))
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 6
    assert [float(s) for s in run.get("value_1").steps] == [500.0, 502.0, 504.0]
    assert _vals(run, "value_1") == [0.25, 0.25, 0.25]
    assert [float(s) for s in run.get("value_28").steps] == [501.0, 503.0, 505.0]


def test_quoted_metric_name_before_equals(tmp_path):
    """MXNet-style trainers (GluonTS) quote the metric's name: `Epoch[3] Evaluation metric 'epoch_loss'=0.42`."""
    lines = []
    for e, v in enumerate([0.9, 0.7, 0.5]):
        lines += [f"Epoch[{e}] Learning rate is 0.001", f"Epoch[{e}] Evaluation metric 'epoch_loss'={v}"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.9, 0.7, 0.5]


def test_final_value_recapping_an_epoch_is_no_row(tmp_path):
    """`Final loss: 0.5 (occurred at epoch 2)` at the end (GluonTS, after loading the best epoch back)
    repeats the value of that epoch's row: it is no row and takes no name from it."""
    lines = [f"Epoch[{e}] Evaluation metric 'epoch_loss'={v}" for e, v in enumerate([0.9, 0.7, 0.5])]
    lines += ["Loading parameters from best epoch (2)", "Final loss: 0.5 (occurred at epoch 2)"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3 and _vals(run, "loss") == [0.9, 0.7, 0.5]


def test_lightgbm_elapsed_note_is_no_row(tmp_path):
    """LightGBM's CLI prints `N seconds elapsed, finished iteration K` after each round's metric line: a
    progress note, not a metric named after the `[LightGBM] [Info]` tag before it."""
    lines = []
    for i, auc in enumerate([0.71, 0.72, 0.73], 1):
        lines += [f"[LightGBM] [Info] Iteration:{i}, valid_1 auc : {auc}",
                  f"[LightGBM] [Info] {3.5 * i:.6f} seconds elapsed, finished iteration {i}"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3 and sorted(run.series) == ["eval/auc"]


def test_ranking_cutoff_as_call_argument(tmp_path):
    """FuxiCTR / RecBox evaluations name a ranking metric's cutoff like a call's argument
    (`[Metrics] NDCG(k=20): 0.228 - Recall(k=50): 0.382`): the metric at that cutoff, `ndcg@20`."""
    lines = [f"2021-01-25 07:49:4{e},177 P8266 INFO [Metrics] NDCG(k=20): 0.2{e} - Recall(k=50): 0.3{e}"
             for e in range(1, 4)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "eval/ndcg@20") == [0.21, 0.22, 0.23] and _vals(run, "eval/recall@50") == [0.31, 0.32, 0.33]


def test_lightning_checkpoint_reached_line(tmp_path):
    """Lightning's ModelCheckpoint with verbose on: `Epoch 0, global step 50: 'val_loss' reached 3.79987
    (best 3.79987), saving model to '...ckpt' as top 1` is the monitored metric at that step (the best
    so far and the `top 1` are not values of their own); a `was not in top 1` line has none."""
    lines = []
    for e, v in enumerate([3.8, 3.75, 3.5]):
        lines.append(f"Epoch {e}, global step {50 * (e + 1)}: 'val_loss' reached {v} (best {v}), saving model to "
                     f"'/runs/ckpt/epoch={e}-step={50 * (e + 1)}.ckpt' as top 1")
    lines.append("Epoch 3, global step 200: 'val_loss' was not in top 1")
    run = _read(tmp_path, lines)
    assert sorted(run.series) == ["eval/loss"] and _vals(run, "eval/loss") == [3.8, 3.75, 3.5]
    assert [float(s) for s in run.get("eval/loss").steps] == [50.0, 100.0, 150.0]


def test_overwide_number_belongs_to_the_first_column_it_covers(tmp_path):
    """scikit-learn's verbose boosting table (`Iter  Train Loss  Remaining Time`, right-aligned fields): a
    loss too large for its field runs on past the next column's name, and the time cell is left blank.
    The number is the loss, the first column whose name it runs under."""
    big = "1071057062185277527192667544912333682394851905403317706031104.0000"
    lines = ["      Iter       Train Loss   Remaining Time "]
    lines += [f"{i:>10d} {v:>16.4f} {t:>16s}" for i, v, t in [(1, 5313.1014, "22.51s"), (2, 5170.8669, "21.21s")]]
    lines += [f"{i:>10d} {big:>16s} {'':>16s}" for i in (3, 4)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "loss") == [5313.1014, 5170.8669, float(big), float(big)]


def test_dict_under_a_params_heading_is_settings(tmp_path):
    """A hyper-parameter search logging `Starting training iteration 1, params:` and then the trial's
    parameters as an indented JSON block of numbers: the block is settings, not a record."""
    lines = []
    for t, (alpha, lr) in enumerate([(0.004, 0.5), (0.006, 0.25)], 1):
        lines += [f"2017-01-20 21:10:0{t},363 INFO __main__: Starting training iteration {t}, params:", "{",
                  f'    "alpha": {alpha},', '    "epochs": 45,', f'    "learning_rate": {lr}', "}",
                  f"2017-01-20 21:25:2{t},518 INFO trainer: epoch {t} loss: 0.{t}"]
    run = _read(tmp_path, lines)
    assert "learning_rate" not in run.series and "alpha" not in run.series
    assert _vals(run, "loss") == [0.1, 0.2]


def test_hours_and_minutes_duration_is_one_cell(tmp_path):
    """CatBoost's `remaining: 1h 40m` (whole minutes, no seconds) beside `remaining: 1h 39m 38s`: one
    duration either way, so the line keeps the shape of its neighbours and stays a row."""
    rem = ["1h 39m 38s", "1h 39m 21s", "1h 40m", "1h 40m 22s"]
    lines = [f"{34 + i}:\tlearn: 0.95{i}\ttest: 0.82{i}\tbest: 0.8356 (1)\ttotal: 1{i}.5s\tremaining: {r}"
             for i, r in enumerate(rem)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert [float(s) for s in run.get("learn").steps] == [34.0, 35.0, 36.0, 37.0]


def test_reduce_lr_on_plateau_notice(tmp_path):
    """FuxiCTR's `Reduce learning rate on plateau: 0.000001` (after a `Monitor(max) STOP` line): the
    learning rate the schedule set."""
    lines = ["2020-02-27 03:08:09,661 P590 INFO Train loss: 0.436594",
             "2020-02-27 03:08:09,661 P590 INFO ************ Epoch=23 end ************",
             "2020-02-27 06:31:51,513 P590 INFO Reduce learning rate on plateau: 0.000001",
             "2020-02-27 06:31:51,577 P590 INFO Train loss: 0.436397",
             "2020-02-27 06:31:51,577 P590 INFO ************ Epoch=24 end ************"]
    run = _read(tmp_path, lines)
    assert _vals(run, "learning_rate") == [1e-06]


def test_dict_after_a_settings_file_name_is_settings(tmp_path):
    """`args1.json defaultdict(<class 'str'>, {'img_size': [256, 256], 'diffusion_lr': 0.0001, ...})`: the
    settings read from a file named for them, not a record of the run."""
    lines = ["args1.json defaultdict(<class 'str'>, {'img_size': [256, 256], 'Batch_Size': 4, 'EPOCHS': 3000, "
             "'diffusion_lr': 0.0001, 'seg_lr': 1e-05, 'save_imgs': True, 'arg_num': '1'})",
             "Epoch:0, Train loss: 0.52:", "Epoch:1, Train loss: 0.48:"]
    run = _read(tmp_path, lines)
    assert sorted(run.series) == ["loss"] and _vals(run, "loss") == [0.52, 0.48]


def test_warning_that_a_step_was_skipped_is_no_row(tmp_path):
    """`Warning: loss is NaN, skipping this step`, alone on its lines and glued after a bar's redraw (a
    diffusers script that drops non-finite steps): a warning, not a row; the bar keeps its own values."""
    lines = ["Warning: loss is NaN, skipping this step"]
    for n in (1299, 1300, 1301):
        lines += [f"Steps:   2%|▏         | {n}/82400 [31:29<30:59:03,  1.38s/it, loss=nan, lr=1e-5]"
                  "Warning: loss is NaN, skipping this step", "Warning: loss is NaN, skipping this step"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert [float(s) for s in run.get("loss").steps] == [1299.0, 1300.0, 1301.0]
    assert any(e.kind == "warning" for e in run.events)


def test_entries_under_a_running_training_banner_are_settings(tmp_path):
    """Dreambooth's header (`  ***** Running training *****`, then `  Num Epochs = 100`, `  EMA: False`,
    `  LR: 1e-06`, all at the banner's own indent): the run's settings, not a record at step 0."""
    lines = ["  ***** Running training *****", "  Num Epochs = 100", "  Text Encoder Epochs: 65", "  EMA: False",
             "  LR: 1e-06", "Steps:   0%| | 1/3000 [00:08<6:44:13,  8.09s/it, loss=0.0584, lr=1e-6]",
             "Steps:   0%| | 2/3000 [00:16<6:44:13,  8.09s/it, loss=0.0571, lr=1e-6]"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2 and "LR" not in run.series
    assert [float(s) for s in run.get("learning_rate").steps] == [1.0, 2.0]


def test_var_total_norm_is_the_gradient_norm(tmp_path):
    """VAR's training line shortens the gradients' total norm to `tnm`
    (`[Ep]: [   0/200]  [ 417/1669]  eta: 0:28:12  tlr: 2e-05  tnm: 0.16  Lm: 8.184 (8.184)`)."""
    lines = [f"[Ep]: [   0/200]  [{i:>4}/1669]  eta: 0:28:12  tlr: 2e-05  tnm: 0.{i % 9 + 1}  Lm: 8.1{i % 9} (8.1)"
             for i in (0, 417, 834)]
    run = _read(tmp_path, lines)
    assert _vals(run, "grad_norm") == [0.1, 0.4, 0.7]
