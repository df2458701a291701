"""Reader rules from the twenty-second round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_openmmlab_iteration_loop_counts_steps_and_marks_its_evaluation(tmp_path):
    """OpenMMLab's iteration-based loop (mmengine): `Iter(train) [ 50/400]` pads the count inside the
    bracket and is the training step; `Iter(val) [20/20]` counts the evaluation's own batches and
    makes its line's metrics the evaluation's."""
    lines = []
    for it in (50, 100, 150, 200):
        lines.append(f"05/14 10:{it // 10:02d}:00 - mmengine - INFO - Iter(train) [{it:4d}/400]  lr: 1.0000e-02  "
                     f"eta: 0:05:00  time: 0.5000  data_time: 0.0100  memory: 3000  loss: {2.0 - it / 200:.4f}")
    lines.append("05/14 10:21:00 - mmengine - INFO - Iter(val) [20/20]    aAcc: 91.2000  mIoU: 55.4000  "
                 "mAcc: 63.1000  data_time: 0.0050  time: 0.2000")
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("loss").steps] == [50.0, 100.0, 150.0, 200.0]
    assert _vals(run, "loss") == [1.75, 1.5, 1.25, 1.0]
    assert _vals(run, "eval/miou") == [55.4]
    assert "miou" not in run.series


def test_per_class_table_rows_are_no_records(tmp_path):
    """mmseg's `per class results:` grid (`| Class | IoU | Acc |`, one row per class) between the
    training lines and the evaluation summary: a class's row is that class's score, not a point of
    the run; the summary line after the grid is read as before."""
    lines = [
        "06/01 12:00:00 - mmengine - INFO - Iter(train) [ 100/1000]  lr: 1.0000e-03  loss: 0.5000",
        "06/01 12:00:05 - mmengine - INFO - per class results:",
        "06/01 12:00:05 - mmengine - INFO - ",
        "+------------+-------+-------+",
        "|   Class    |  IoU  |  Acc  |",
        "+------------+-------+-------+",
        "| background | 97.10 | 98.30 |",
        "|    road    | 61.40 | 70.20 |",
        "|    car     |  nan  |  nan  |",
        "+------------+-------+-------+",
        "06/01 12:00:05 - mmengine - INFO - Iter(val) [50/50]    aAcc: 96.0000  mIoU: 79.2500  mAcc: 84.2500",
    ]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 2
    assert "IoU" not in run.series and "accuracy" not in run.series
    assert _vals(run, "eval/miou") == [79.25]
    assert _vals(run, "loss") == [0.5]


def test_record_laid_out_over_bar_ended_lines_is_one_record(tmp_path):
    """A step printed as a block (R2CNN-style TF detectors): `step210    image_name:b'x.jpg' |` then
    indented lines of `name:value |` pairs, each but the last ending in `|`: one record per step."""
    lines = []
    for step in (10, 20, 30):
        lines.append(f" 2020-01-05 10:00:{step:02d}: step{step}    image_name:b'img_{step}.jpg' |")
        lines.append(f"                          rpn_loc_loss:0.{step:02d}5 |  rpn_cla_loss:1.{step} |")
        lines.append(f"                          fast_rcnn_total_loss:0.{step} |   attention_loss:0.0{step // 10} |")
        lines.append(f"                          total_loss:{3.0 - step / 10:.1f} |     pre_cost_time:0.8s")
    run = _read(tmp_path, lines)
    assert int(run.meta["rows"]) == 3
    assert [float(s) for s in run.get("loss").steps] == [10.0, 20.0, 30.0]
    assert _vals(run, "loss") == [2.0, 1.0, 0.0]
    assert _vals(run, "rpn_loc_loss") == [0.105, 0.205, 0.305]


def test_uncounted_precision_at_one_summary_is_a_measurement(tmp_path):
    """PyTorch's ImageNet example prints the validation summary ` * Prec@1 10.000 Prec@5 50.000`
    with no counter; an excerpt that opens with it before the `Epoch: [89][0/196]` lines keeps it
    (`Prec@1` names an accuracy through the alias table, never a setting), as the evaluation's
    accuracy: the star line is validate()'s summary."""
    lines = [" * Prec@1 41.250 Prec@5 70.500"]
    for batch in range(0, 50, 10):
        lines.append(f"Epoch: [7][{batch}/196]\tTime 0.400 (0.450)\tData 0.001 (0.050)\tLoss 1.{batch + 10} (1.50)\t"
                     f"Prec@1 45.{batch + 10} (45.00)\tPrec@5 72.{batch + 10} (72.00)")
    run = _read(tmp_path, lines)
    assert int(run.meta["rows"]) == 6
    assert _vals(run, "eval/accuracy") == [41.25]
    assert len(_vals(run, "loss")) == 5


def test_top_k_accuracy_with_a_blank_before_k(tmp_path):
    """`====Epoch: 0/50,top 1 acc: 0.0354====` and `top 5 acc: 0.1235`: the blank between `top` and
    k is no value of its own; the lines hold top-1 and top-5 accuracy."""
    lines = []
    for epoch in range(3):
        lines.append(f"2025-01-06 15:0{epoch}:00,000 INFO: Epoch: {epoch}/50, Iteration step: {epoch * 100 + 50}, "
                     f"loss: {5.0 - epoch:.3f}")
        lines.append(f"2025-01-06 15:0{epoch}:30,000 INFO: ==============Epoch: {epoch}/50,top 1 acc: "
                     f"0.0{epoch + 3}==============")
        lines.append(f"2025-01-06 15:0{epoch}:30,000 INFO: ==============Epoch: {epoch}/50,top 5 acc: "
                     f"0.1{epoch + 3}==============")
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [0.03, 0.04, 0.05]
    assert _vals(run, "accuracy_top5") == [0.13, 0.14, 0.15]
    assert "top" not in run.series


def test_openseq2seq_misspelt_bleu_line(tmp_path):
    """OpenSeq2Seq's evaluation prints `***     Eval BLUE score: 0.962` (BLEU misspelt) beside
    `***     Validation loss: 9.9562`: the score is the evaluation's BLEU."""
    lines = [
        "***     Validation loss: 9.9562 ",
        "***     Eval BLUE score: 0.962",
        "*** Global step 0: ***     Train loss: 9.7835",
        "*** Global step 100: ***     Train loss: 7.1200",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/bleu") == [0.962]
    assert _vals(run, "loss") == [9.7835, 7.12]


def test_deepspeed_logger_location_with_function_is_no_metric(tmp_path):
    """DeepSpeed's logger writes `[timer.py:199:stop]` (file, line and function) before its message:
    the line number is no value, and `timer.py` no metric."""
    lines = [f"[2023-06-08 19:00:4{i},652] [INFO] [timer.py:199:stop] epoch=0/micro_step={i * 10}/"
             f"global_step={i * 10}, RunningAvgSamplesPerSec=62.9{i}, CurrSamplesPerSec=63.1{i}, "
             f"MemAllocated=21.59GB, MaxMemAllocated=28.8GB" for i in range(1, 4)]
    run = _read(tmp_path, lines)
    assert not any("timer" in name for name in run.series)
    assert [float(s) for s in run.get("memory").steps] == [10.0, 20.0, 30.0]


def test_evaluation_reader_cost_is_no_eval_set(tmp_path):
    """PaddleClas's evaluation steps print `reader_cost: 0.59956 s` beside `batch_cost`: under the
    evaluation's split that is the time spent reading data, not the loss (`cost`) of a set named
    `reader`."""
    lines = [f"2021-01-31 20:30:{i:02d} INFO: epoch:0  , valid step:{i * 10}  , top1: 0.7{i}000, top5: 0.9{i}000, "
             f"loss: 0.{i}5000, lr: 0.000000, batch_cost: 0.69290 s, reader_cost: 0.5995{i} s, ips: 92.36500 images/sec."
             for i in range(1, 5)]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [0.15, 0.25, 0.35, 0.45]
    assert not any(name.startswith("eval/reader/") for name in run.series)


def test_rotated_box_yolov5_table_names_its_loss_terms(tmp_path):
    """YOLOv5 forks for rotated boxes (yolov5_obb, polygon YOLOv5) print `Epoch gpu_mem box obj cls
    theta labels img_size`: box, obj, cls and theta are loss terms, as in YOLOv5's own table."""
    lines = []
    for epoch in range(3):
        lines.append("     Epoch   gpu_mem       box       obj       cls     theta    labels  img_size")
        lines.append(f"     {epoch}/9     1.15G    0.12{epoch}5    0.1685   0.07387    0.2078        92      1024")
    run = _read(tmp_path, lines)
    assert _vals(run, "box_loss") == [0.1205, 0.1215, 0.1225]
    assert _vals(run, "angle_loss") == [0.2078] * 3
    assert "theta" not in run.series


def test_script_logger_name_main_is_a_prefix(tmp_path):
    """`%(asctime)s - %(levelname)s - %(name)s - %(message)s` with the script's own logger prints
    `09-06 15:04:07 - INFO - __main__ - <message>`: `__main__` is the logger's name, not part of the
    message (a settings dict after it is still seen as one)."""
    lines = ["09-06 15:04:07 - INFO - __main__ - {'batch_size': 128, 'model': 'gcn', 'learning_rate': 0.01,",
             " 'weight_decay': 1e-05}"]
    for epoch in range(3):
        lines.append(f"09-06 15:05:0{epoch} - INFO - __main__ - Epoch {epoch}, Train Loss: 0.{9 - epoch}, AUC: 0.7{epoch}")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.9, 0.8, 0.7]
    assert "weight_decay" not in run.series
    assert "learning_rate" not in run.series


def test_pretty_printed_settings_dict_with_nested_dicts_stays_settings(tmp_path):
    """`pprint` of a settings dict whose values hold lists of small dicts (`'features': [{'name':
    'topo'},`): an inner dict's `},` at a line's end closes the inner dict, not the settings; none of
    the settings' numbers is a record."""
    lines = [
        "09-06 15:04:07 - INFO - src.train - Configuration:",
        "09-06 15:04:07 - INFO - src.train - {'batch_method': 'neighbors',",
        " 'batch_size': 128,",
        " 'book_features': [{'degree_log_transform': True,",
        "                    'name': 'topo'},",
        "                   {'name': 'textual_desc'}],",
        " 'dropout': 0.2,",
        " 'learning_rate': 0.01,",
        " 'weight_decay': 1e-05}",
    ]
    lines.append("09-06 15:05:01 - INFO - src.train - Best model found at epoch 0, Val Loss: 0.52, AUC: 0.81")
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [0.52]
    assert "learning_rate" not in run.series and "dropout" not in run.series
