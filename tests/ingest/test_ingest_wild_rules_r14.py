"""Line-shape rules the wild corpus asked for (fourteenth round of review), each tried on a short log
written for the test in the style of the prints that needed it."""

from __future__ import annotations

from written_log import read_written as _read


def test_single_letter_precision_and_recall_before_map_in_a_yolo_table(tmp_path):
    """A YOLO-family results table with its own header (`|epoch|mem|box|obj|cls|total|targets|img_size|P|R|mAP|F1|`,
    a Markdown table made from results.txt): `P` and `R` just before `mAP` are the validation set's
    precision and recall, not two unknown one-letter names."""
    lines = ["|epoch|mem|box|obj|cls|total|targets|img_size|P|R|mAP|F1|",
             "|-|-|-|-|-|-|-|-|-|-|-|-|"]
    for i, ep in enumerate(range(10, 14)):
        lines.append(f"|{ep}/99|4.1G|2.{9 - i}|1.5|1.1|5.{5 - i}|  7| 416|0.4{i}|0.5{i}|0.3{i}|0.45|")
    run = _read(tmp_path, lines, "results.md")
    assert run.meta["rows"] == 4
    assert [float(v) for v in run.get("eval/precision").values] == [0.40, 0.41, 0.42, 0.43]
    assert [float(v) for v in run.get("eval/recall").values] == [0.50, 0.51, 0.52, 0.53]
    assert "P" not in run.series and "R" not in run.series
    assert run.get("eval/map") is not None


def test_hf_dicts_printed_before_any_progress_bar_are_placed_by_their_epoch(tmp_path):
    """HF Trainer console output whose excerpt opens on dict lines, before the first tqdm redraw (the
    first-step log, then one more): with no bar to give them a step they would stack on one; the first
    dict with both a step and an epoch gives the steps per epoch that places them, so the first loss
    keeps its own point."""
    bar = "{:3d}%|##        | {}/1000 [02:17<1:06:12,  1.30s/it]"
    lines = ["{'loss': 9.5, 'learning_rate': 1e-08, 'epoch': 0.0}",
             "{'loss': 8.25, 'learning_rate': 2e-08, 'epoch': 0.1}",
             bar.format(10, 100) + "[INFO|trainer.py:3081] 2025-07-22 15:49:49,910 >> ***** Running Evaluation *****",
             "{'eval_loss': 7.5, 'eval_runtime': 14.2, 'epoch': 0.1}",
             "{'loss': 7.0, 'learning_rate': 3e-08, 'epoch': 0.2}",
             bar.format(20, 200),
             "{'loss': 6.5, 'learning_rate': 4e-08, 'epoch': 0.3}"]
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert [float(v) for v in loss.values] == [9.5, 8.25, 7.0, 6.5]
    assert float(loss.steps[0]) < float(loss.steps[1]) < float(loss.steps[2])
    assert run.get("eval/loss") is not None and run.meta["rows"] + run.meta.get("joined_lines", 0) == 5


def test_hf_dicts_whose_epochs_cannot_tell_their_steps_apart_keep_their_place(tmp_path):
    """The same, where the epoch is printed too coarsely (two dicts at `0.24`): the epoch gives no
    distinct step, so the dict before the bars stays where it was (the log's start), and no loss is lost."""
    lines = ["{'loss': 0.66, 'learning_rate': 0.000177, 'epoch': 0.24}",
             " 24%|##        | 2564/10485 [3:15:13<10:06:35,  4.59s/it]",
             " 24%|##        | 2565/10485 [3:15:17<10:03:00,  4.57s/it]",
             "{'loss': 0.80, 'learning_rate': 0.000176, 'epoch': 0.24}",
             " 24%|##        | 2566/10485 [3:15:22<10:03:32,  4.57s/it]",
             "{'loss': 4.27, 'learning_rate': 0.000175, 'epoch': 0.25}"]
    run = _read(tmp_path, lines)
    assert [float(v) for v in run.get("loss").values] == [0.66, 0.80, 4.27]


def test_a_multiline_record_with_every_value_a_quoted_number_is_a_record(tmp_path):
    """A log history re-exported for a dashboard (`const history = [ { "loss": "0.6874", "learning_rate":
    "3.62E-06", "epoch": "0.02" }, ... ];`, every value a quoted string): each object is a record of
    numbers, not a settings dict; an object of quoted numbers that names no loss or accuracy stays a
    setting."""
    lines = ["const model_train = ["]
    for i in range(1, 6):
        lines += ["    {", f'        "loss": "0.{70 - i}",', f'        "grad_norm": "{i}.5",',
                  f'        "learning_rate": "{i}.0E-06",', f'        "epoch": "0.0{i}"', "    },"]
    lines[-1] = "    }"
    lines.append("];")
    run = _read(tmp_path, lines, "history.js")
    assert run.meta["rows"] == 5
    assert [float(v) for v in run.get("loss").values] == [0.69, 0.68, 0.67, 0.66, 0.65]
    assert abs(float(run.get("learning_rate").values[0]) - 1e-06) < 1e-12
    settings = _read(tmp_path, ["{", '  "lr": "0.001",', '  "batch_size": "32"', "}", "epoch 1 loss 0.5",
                                "epoch 2 loss 0.4"], "args.log")
    assert "learning_rate" not in settings.series and "batch_size" not in settings.series


def test_a_torch7_xlua_progress_bar_is_no_record(tmp_path):
    """Torch7's `xlua.progress` bar (`[===== 136/136 =====>]  Tot: 1m13s | Step: 646ms`) before each
    epoch's summary line: a progress display whose time per step is no row of its own."""
    lines = ["Number of parameters:   31576697"]
    for ep in range(1, 5):
        lines += [f" [==================== 136/136 ================>]  Tot: 1m{10 + ep}s | Step: {600 + ep}ms",
                  f"Training Epoch: {ep} Average Loss: {5.0 - ep / 10:.6f} Average Validation WER: 9{ep}.05 "
                  f"Average Validation CER: 6{ep}.10",
                  "Saving model.."]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert [float(v) for v in run.get("loss").values] == [4.9, 4.8, 4.7, 4.6]
    assert not any("time" in name.lower() for name in run.series)


def test_a_launch_time_in_a_loss_log_banner_is_no_value(tmp_path):
    """The loss_log.txt of pix2pix / CycleGAN-style trainers, whose every launch appends a banner with
    `time.ctime()` in parentheses (`==== Training Loss (Fri Jun 21 05:19:51 2024) ====`): the date's
    day and clock are no metric, and the banner is no row."""
    lines = []
    for day in (21, 22):
        lines.append(f"================ Training Loss (Fri Jun {day} 05:19:51 2024) ================")
        for it in (100, 200, 300):
            lines.append(f"(epoch: 1, iters: {it}, time: 0.291, data: 0.002) D_A: 0.{it // 100}11 G_A: 0.146 "
                         f"cycle_A: 0.092")
    run = _read(tmp_path, lines, "loss_log.txt")
    assert run.meta["rows"] == 6
    assert not any("Training" in name or "Jun" in name for name in run.series), sorted(run.series)
    assert len(run.get("D_A").values) == 6


def test_a_scalar_roc_is_the_area_under_the_curve(tmp_path):
    """Graph auto-encoder scripts (`Epoch: 0198 train_loss= 0.40438 val_roc= 0.91772 ...`, then
    `Test ROC score: 0.9230`): a single number called ROC can only be the area under that curve, so
    the validation and test values are the run's AUC, and the test line is read."""
    lines = [f"Epoch: {ep:04d} train_loss= 0.4{ep % 10}438 train_acc= 0.80021 val_roc= 0.9{ep % 10}772 "
             f"val_ap= 0.93526 time= 0.42112" for ep in range(196, 201)]
    lines += ["Optimization Finished!", "Test ROC score: 0.923083293426"]
    run = _read(tmp_path, lines)
    assert len(run.get("eval/auc").values) == 5
    assert [round(float(v), 4) for v in run.get("eval/test/auc").values] == [0.9231]


def test_a_table_printed_across_gives_a_record_per_counter_column(tmp_path):
    """A results table pasted with the epochs across the top (`epoch 8 epoch 50 epoch 100 epoch 200`)
    and one metric a row (`training loss 2.9 1.18 .98 .75`): each column is the record of its epoch,
    and each row's name has a value in every one."""
    lines = ["Results after fine-tuning:", "epoch 5 epoch 10 epoch 20",
             "training loss 2.1 1.4 .9", "validation loss 2.3 1.6 1.2", "accuracy .41 .62 .70", "",
             "the validation loss stays above the training loss."]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    loss = run.get("loss")
    assert [float(v) for v in loss.values] == [2.1, 1.4, 0.9]
    assert [float(x) for x in loss.steps] == [5.0, 10.0, 20.0]
    assert [float(v) for v in run.get("eval/loss").values] == [2.3, 1.6, 1.2]
    assert len(run.get("accuracy").values) == 3
