"""Reader rules asked for by real logs (round 53): each test writes a log in the style that needed the rule."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_fastai_table_rows_without_their_header(tmp_path):
    """fastai's fit table pasted with its header row lost (`12  0.2582  0.5887  0.7964  00:03`): the epoch,
    the training loss, the validation loss, the unnamed metrics and the epoch's time in mm:ss."""
    run = _read(tmp_path, [
        f"{e:<10}{0.40 - 0.01 * e:.6f}    {0.55 + 0.02 * e:.6f}    {0.70 + 0.01 * e:.6f}  00:0{e}     "
        for e in range(4)
    ])
    assert run.meta["rows"] == 4
    assert _vals(run, "loss") == [0.4, 0.39, 0.38, 0.37]
    assert _vals(run, "eval/loss") == [0.55, 0.57, 0.59, 0.61]
    assert [float(s) for s in run.get("loss").steps] == [0.0, 1.0, 2.0, 3.0]


def test_bar_blocks_glued_before_a_table_row(tmp_path):
    """`██184       0.252911    3.633142    0.327226  00:00`: the last blocks of a progress bar the paste kept
    stand before the row's epoch; the row and its epoch are read as if they were not there."""
    run = _read(tmp_path, [
        "epoch     train_loss  valid_loss  accuracy  time    ",
    ] + [
        f"\u2588\u2588{e:<10}{0.30 - 0.01 * (e - 180):.6f}    {0.60:.6f}    {0.75:.6f}  00:00     "
        for e in range(180, 184)
    ])
    assert run.meta["rows"] == 4
    assert [float(s) for s in run.get("loss").steps] == [180.0, 181.0, 182.0, 183.0]
    assert _vals(run, "eval/accuracy") == [0.75] * 4


def test_bar_redraw_cut_after_its_count(tmp_path):
    """`Epoch: 3 - loss: 1.3307 - acc: 0.51:   0%| | 1/4262`: a tqdm redraw whose time part
    (`[00:01<10:00, 1.2it/s]`) the paste lost; the metrics its description carries are still read."""
    run = _read(tmp_path, [
        f"Epoch: 3 - loss: {1.5 - 0.1 * i:.4f} - acc: 0.5{i}:   0%| | {i}/4262"
        for i in range(1, 4)
    ])
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == [1.4, 1.3, 1.2]


def test_yolov5_validation_header_cut_at_the_edge(tmp_path):
    """`Class Images Labels P R mAP@.5 mAP@`: YOLOv5's validation header cut at a narrow terminal's edge;
    the `all` row under it holds the precision, recall and both mAPs all the same."""
    run = _read(tmp_path, [
        "     Epoch   gpu_mem       box       obj       cls    labels  img_size",
        "     0/299     3.33G   0.08736   0.07812    0.1614        12      640",
        "               Class     Images     Labels          P          R     mAP@.5 mAP@",
        "                 all         99        120      0.412      0.377      0.301      0.142",
    ])
    assert _vals(run, "eval/precision") == [0.412]
    assert _vals(run, "eval/map") == [0.142]
    assert _vals(run, "box_loss") == [0.08736]


def test_value_named_after_a_shell_word_is_no_command(tmp_path):
    """`loss=0.011| sh degree=3| :  20%|██| 6096/30000 [02:15<08:20, 47.77it/s]`: a bar's description of
    values whose second name opens with `sh`; a command run under environment settings (`BS=32 sh run.sh`)
    is followed by its script, never by another `name=value`."""
    run = _read(tmp_path, [
        f"loss=0.0{i}| sh degree=3| :  20%|\u2588\u2588        | {6000 + 100 * i}/30000 [02:15<08:20, 47.77it/s]"
        for i in range(1, 4)
    ])
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == [0.01, 0.02, 0.03]


def test_yolo_all_row_without_its_header(tmp_path):
    """`all  885  4.79e+03  0.51  0.44  0.428  0.204`: YOLOv5's validation `all` row pasted without its
    header; images, labels, then precision, recall, mAP@0.5 and mAP@0.5:0.95."""
    run = _read(tmp_path, [
        "                all         885    4.79e+03        0.51        0.44       0.428       0.204",
    ])
    assert _vals(run, "eval/precision") == [0.51]
    assert _vals(run, "eval/map50") == [0.428]
    assert _vals(run, "eval/map") == [0.204]


def test_yolo_pose_all_row_under_the_training_header(tmp_path):
    """Ultralytics pose training pasted without its bar lines: each training header is followed straight by
    the validation `all` row (boxes, then keypoints: eight scores), whose own header was lost; the row is
    read by its own layout, not dropped for not fitting the training header."""
    lines = []
    for p in (0.876, 0.966, 0.993):
        lines += [
            "      Epoch    GPU_mem   box_loss  pose_loss  kobj_loss   cls_loss   dfl_loss  Instances       Size",
            f"                   all         20         31      {p}      0.806      0.896      0.365      0.734"
            "      0.677        0.6      0.197",
            "",
        ]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "eval/precision") == [0.876, 0.966, 0.993]
    assert _vals(run, "eval/map") == [0.365] * 3


def test_word_row_under_an_epoch_header_takes_its_own_layout(tmp_path):
    """`all  48  28  0.31  0.22  0.18  0.07` right under Ultralytics' training header (`Epoch GPU_mem box_loss
    ...`, seven names too): a row opening with a word is no row of a table whose first column counts epochs;
    it is the validation `all` row, and the training row above keeps its own losses."""
    run = _read(tmp_path, [
        "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size",
        "      16/30      13.1G      4.513      5.696      1.262         12        576",
        "                   all         48         28       0.31       0.22       0.18       0.07",
        "      Epoch    GPU_mem   box_loss   cls_loss   dfl_loss  Instances       Size",
        "      17/30      13.1G      4.413      5.596      1.252         12        576",
        "                   all         48         28       0.33       0.24       0.19       0.08",
    ])
    assert _vals(run, "box_loss") == [4.513, 4.413]
    assert _vals(run, "eval/map50") == [0.18, 0.19]


def test_speed_report_of_phase_times_is_no_record(tmp_path):
    """`Speed: 0.1ms preprocess, 15.9ms inference, 0.0ms loss, 0.1ms postprocess per image`: how long each
    phase took per image after a validation, every value in milliseconds; its `loss` is a phase, not a value."""
    run = _read(tmp_path, [
        "Epoch 1/3 loss: 0.91",
        "Epoch 2/3 loss: 0.72",
        "Epoch 3/3 loss: 0.64",
        "Speed: 0.1ms preprocess, 15.9ms inference, 0.0ms loss, 0.1ms postprocess per image",
    ])
    assert _vals(run, "loss") == [0.91, 0.72, 0.64]
    assert "eval/loss" not in run.series
    assert run.meta["rows"] == 3
