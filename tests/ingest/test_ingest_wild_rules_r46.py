"""Reading rules for printed styles met in real training logs (round 46)."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_bar_format_with_count_first_and_elapsed_only(tmp_path):
    """Style: a tqdm bar with a custom bar_format that puts the count in brackets before the bar and
    shows only the time spent, then the postfix (`[2000/2000]: 100%|####| [10:02, latency=12.5,
    loss=0.93]`): each finished bar is a record of its postfix values."""
    run = _read(tmp_path, [
        "[2000/2000]: 100%|##############################| [10:02, latency=12.5000, loss=0.9310]",
        "[2000/2000]: 100%|##############################| [10:05, latency=11.2500, loss=0.9120]",
        "[2000/2000]: 100%|##############################| [10:01, latency=13.0000, loss=0.9005]",
    ])
    assert _vals(run, "loss") == [0.931, 0.912, 0.9005]
    assert run.meta["rows"] == 3


def test_counter_glued_to_its_number_after_a_preposition(tmp_path):
    """Style: a test print that names the pass it was measured after with the counter's word glued to
    the number (`Test accuracy after epoch41:  71.2`): the number is the epoch, not part of a name."""
    run = _read(tmp_path, [
        "Test set Top1 Accuracy(%) after epoch41:  71.204",
        "Test set Top1 Accuracy(%) after epoch42:  71.530",
        "Test set Top1 Accuracy(%) after epoch43:  71.618",
    ])
    assert _vals(run, "eval/accuracy") == [71.204, 71.53, 71.618]
    assert run.meta["rows"] == 3


def test_text_wrapped_in_bare_html_tags_is_read(tmp_path):
    """Style: a pasted table kept between `<html><body>` and `</body></html>` with no head and no other
    markup: the lines inside are a log, not a saved web page."""
    run = _read(tmp_path, [
        "<html>",
        "<body>",
        "",
        "Step | Training Loss | Validation Loss",
        "-- | -- | --",
        "100 | 3.120000 | 3.400000",
        "200 | 2.810000 | 3.150000",
        "300 | 2.550000 | 3.020000",
        "",
        "</body>",
        "</html>",
    ], name="table.txt")
    assert _vals(run, "loss") == [3.12, 2.81, 2.55]
    assert _vals(run, "eval/loss") == [3.4, 3.15, 3.02]


def test_tab_separated_level_then_logger_name_is_a_prefix(tmp_path):
    """Style: python logging with `%(asctime)s\\t%(levelname)s\\t%(name)s\\t%(message)s` (tab-separated
    fields, the logger's dotted name after the level): the name is no part of the message, so a
    torchvision-style `Epoch: [3]  [ 200/500]` line keeps its epoch and batch."""
    run = _read(tmp_path, [
        "2021-03-01 10:00:00,100\tINFO\tpkg.misc.log\tEpoch: [0]  [   0/500]  lr: 0.1  loss: 6.9000 (6.9000)",
        "2021-03-01 10:05:00,100\tINFO\tpkg.misc.log\tEpoch: [0]  [ 400/500]  lr: 0.1  loss: 5.1000 (5.8000)",
        "2021-03-01 10:10:00,100\tINFO\tpkg.misc.log\tEpoch: [1]  [   0/500]  lr: 0.1  loss: 4.8000 (4.8000)",
        "2021-03-01 10:15:00,100\tINFO\tpkg.misc.log\tEpoch: [1]  [ 400/500]  lr: 0.1  loss: 4.2000 (4.5000)",
    ])
    assert _vals(run, "loss") == [6.9, 5.1, 4.8, 4.2]
    assert [float(s) for s in run.get("loss").steps] == [0.0, 400.0, 500.0, 900.0]
    assert run.meta["duplicates"] == 0


def test_bracketed_names_then_array_of_values(tmp_path):
    """Style: the names of a step's values in one bracketed list, then the values as numpy prints an
    array (`Global Step : 120, [Total Loss, KL Loss, Reg Loss] : [  nan   nan 2.301]`): each name
    takes the value in its place."""
    run = _read(tmp_path, [
        "Global Step : 100, [Total Loss, KL Loss, Reg Loss] : [ 4.12   1.05 2.301]",
        "Global Step : 200, [Total Loss, KL Loss, Reg Loss] : [   nan    nan 2.3145]",
        "Global Step : 300, [Total Loss, KL Loss, Reg Loss] : [   nan    nan 2.2744]",
    ])
    loss = _vals(run, "loss")
    assert loss[0] == 4.12 and math.isnan(loss[1]) and math.isnan(loss[2])
    assert _vals(run, "Reg_Loss") == [2.301, 2.3145, 2.2744]
    assert [float(s) for s in run.get("loss").steps] == [100.0, 200.0, 300.0]


def test_count_before_a_timing_name_is_no_step(tmp_path):
    """Style: the time a block of steps took, the block's size before the name (`100 Step Time : 143.4`
    after each `Global Step : N, loss: x` line): the count is how many steps were timed, not the
    step, so the log stays one run."""
    run = _read(tmp_path, [
        "Global Step : 1100, loss: 2.40",
        "100 Step Time : 143.40",
        "Global Step : 1200, loss: 2.31",
        "100 Step Time : 142.97",
        "Global Step : 1300, loss: 2.27",
        "100 Step Time : 142.70",
    ])
    assert _vals(run, "loss") == [2.4, 2.31, 2.27]
    assert "runs" not in run.meta
    assert run.meta["restarts"] == 0


def test_bn_calibration_pass_is_an_evaluation(tmp_path):
    """Style: slimmable-network trainers score a `bn_calibration` pass (BN statistics re-estimated, no
    weights trained) between the train and val lines of an epoch (`Epoch 7/100 bn_calibration:
    loss: 1.99`): its loss is no training loss."""
    run = _read(tmp_path, [
        "Epoch 7/100 Iter 500/500 train: loss: 3.4846, top1_error: 0.5786",
        "Epoch 7/100 bn_calibration: loss: 1.9954, top1_error: 0.4417",
        "Epoch 7/100 val: loss: 1.6668, top1_error: 0.3891",
        "Epoch 8/100 Iter 500/500 train: loss: 3.3012, top1_error: 0.5602",
        "Epoch 8/100 bn_calibration: loss: 1.9107, top1_error: 0.4301",
        "Epoch 8/100 val: loss: 1.6021, top1_error: 0.3770",
    ])
    assert _vals(run, "loss") == [3.4846, 3.3012]
    assert _vals(run, "eval/loss")[-1] == 1.6021


def test_unchanged_nan_description_redraws_are_records(tmp_path):
    """Style: tqdm's set_description called every batch with a diverged run's values (`Epoch 1/2 -
    avg_loss: nan - cosine_loss: 10.000000: 46%|▍| 876/1905 [04:07<04:47, 3.5it/s]`): the text stays
    the same from one redraw to the next because nan stays nan, and each redraw is still a record."""
    run = _read(tmp_path, [
        "Epoch 1/2 - lr: 0.000092 - avg_loss: nan - cosine_loss: 10.000000:  46%|▍| 876/1905 [04:07<04:47,  3.5it/s]",
        "Epoch 1/2 - lr: 0.000092 - avg_loss: nan - cosine_loss: 10.000000:  46%|▍| 878/1905 [04:07<04:48,  3.5it/s]",
    ])
    assert run.meta["rows"] == 2
    assert all(math.isnan(v) for v in _vals(run, "loss"))


def test_counter_back_at_its_first_count_below_where_the_file_opened_is_a_new_run(tmp_path):
    """Style: two Keras fit() outputs pasted one after the other, the first pasted from `Epoch 2/50` on,
    the second from `Epoch 1/50`: the epoch going back to its very first count starts a second run
    placed after the first, not a resume that overwrites its epochs."""
    lines = []
    for e, loss in [(2, 11.15), (3, 10.70), (4, 10.41), (5, 10.29)]:
        lines += [f"Epoch {e}/50", f"100/100 [==============================] - 2s 8ms/step - loss: {loss:.4f}"]
    for e, loss in [(1, -2905.1), (2, -2872.4)]:
        lines += [f"Epoch {e}/50", f"120/120 [==============================] - 4s 16ms/step - loss: {loss:.4f}"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [11.15, 10.7, 10.41, 10.29, -2905.1, -2872.4]
    assert run.meta["runs"] == 2


def test_metric_spellings_of_nas_and_ocr_trainers(tmp_path):
    """Style: DARTS-family `Objs:` (the running mean of the objective, the loss), AutoDL's spelled-out
    `Accuracy@1=` / `Accuracy@5=`, and crnn.pytorch's misspelt `accuray` on its test line."""
    run = _read(tmp_path, [
        "Train Step: 000 Objs: 3.854694e-02 Acc: 100.000000",
        "Train Step: 050 Objs: 1.033505e-01 Acc: 97.763480",
        "Train Step: 100 Objs: 9.169728e-02 Acc: 98.174505",
    ])
    assert _vals(run, "loss") == [0.03854694, 0.1033505, 0.09169728]
    run = _read(tmp_path, ["Loss=1.238, Accuracy@1=56.10%, Accuracy@5=95.49%",
                           "Loss=3.963, Accuracy@1=10.88%, Accuracy@5=66.97%"], name="summary.txt")
    assert _vals(run, "accuracy") == [56.1, 10.88]
    assert _vals(run, "accuracy_top5") == [95.49, 66.97]
    run = _read(tmp_path, ["[0/25][20/60] Loss: 19.72", "[0/25][40/60] Loss: 19.14",
                           "Test loss: 19.685625, accuray: 0.000000", "[1/25][20/60] Loss: 19.40"], name="crnn.txt")
    assert _vals(run, "eval/accuracy") == [0.0]


def test_mmocr_evaluator_prefixed_scores_in_log_json(tmp_path):
    """Style: MMOCR 0.x `*.log.json` lines, each score named after its evaluator (`"hmean-iou:hmean":
    0.80`, `"hmean-iou:precision"`, `"hmean-iou:recall"`): the detection F-measure, precision and
    recall of the validation pass."""
    run = _read(tmp_path, [
        '{"mode": "train", "epoch": 1, "iter": 5, "lr": 0.007, "loss": 2.41}',
        '{"mode": "train", "epoch": 1, "iter": 10, "lr": 0.007, "loss": 2.30}',
        '{"mode": "val", "epoch": 1, "iter": 10, "lr": 0.007, "hmean-iou:recall": 0.51, '
        '"hmean-iou:precision": 0.62, "hmean-iou:hmean": 0.56}',
    ], name="run.log.json")
    assert _vals(run, "eval/hmean") == [0.56]
    assert _vals(run, "eval/precision") == [0.62]
    assert _vals(run, "eval/recall") == [0.51]


def test_yolov5_2020_header_with_giou_column(tmp_path):
    """Style: YOLOv5's training table of 2020 (`Epoch gpu_mem GIoU obj cls total targets img_size`):
    GIoU, obj and cls are the loss terms, total is the loss."""
    run = _read(tmp_path, [
        "     Epoch   gpu_mem      GIoU       obj       cls     total   targets  img_size",
        "      3/49     2.66G   0.06193    0.0939   0.04484    0.2007       141       640: 100%|████| 7393/7393 "
        "[2:41:07<00:00,  1.31s/it]",
        "      4/49     2.66G   0.06010    0.0921   0.04310    0.1953       133       640: 100%|████| 7393/7393 "
        "[2:40:55<00:00,  1.31s/it]",
    ])
    assert _vals(run, "loss") == [0.2007, 0.1953]
    assert _vals(run, "box_loss") == [0.06193, 0.0601]
