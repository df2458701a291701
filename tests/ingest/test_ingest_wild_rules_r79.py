"""Reader rules for object-detection evaluation prints: pycocotools' summary behind a launcher's rank
counter, detectron2's `copypaste:` lines, and mmseg's pixel accuracy of the decode head."""

from __future__ import annotations

from written_log import read_written as _read
from written_log import series_values as _vals


def test_coco_summary_behind_rank_counter(tmp_path):
    """Style: srun heads every line with the rank (`0: `), and pycocotools' summary opens with a blank of its
    own, so the line reads `0:  Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.412`."""
    lines = ["0: IoU metric: bbox"]
    for kind, iou, area, dets, v in (("Precision  (AP)", "0.50:0.95", "   all", 100, 0.412),
                                     ("Precision  (AP)", "0.50     ", "   all", 100, 0.603),
                                     ("Recall     (AR)", "0.50:0.95", "   all", "  1", 0.331)):
        lines.append(f"0:  Average {kind} @[ IoU={iou} | area={area} | maxDets={dets} ] = {v:.3f}")
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/map") == [0.412]
    assert _vals(run, "eval/map50") == [0.603]


def test_detectron2_copypaste_lines(tmp_path):
    """Style: detectron2's `copypaste: Task: bbox`, then `copypaste: AP,AP50,AP75,APs,APm,APl` and a line of
    as many values with commas, each behind the logger's `[date time d2.evaluation.testing]:` head."""
    head = "[03/14 09:12:40 d2.evaluation.testing]: copypaste: "
    lines = ["[03/14 09:12:00 d2.utils.events]:  eta: 0:01:00  iter: 499  total_loss: 0.912  lr: 0.0025  max_mem: 2100M",
             head + "Task: bbox",
             head + "AP,AP50,AP75,APs,APm,APl",
             head + "21.5012,40.1177,20.8830,-1.0000,12.4410,27.0925"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/map") == [21.5012]
    assert _vals(run, "eval/map_small") == [-1.0]
    assert _vals(run, "loss") == [0.912]


def test_detectron2_copypaste_repeating_the_table_is_one_evaluation(tmp_path):
    """Style: detectron2 prints the summary as a Markdown table (three decimals), then the same values again on
    its `copypaste:` lines: one evaluation, not two."""
    lines = ["[05/25 03:20:00] d2.utils.events INFO:  eta: 0:00:10  iter: 999  total_loss: 0.631  lr: 0.002",
             "[05/25 03:20:33] d2.evaluation.coco_evaluation INFO: Evaluation results for bbox: ",
             "|   AP   |  AP50  |  AP75  |  APs   |  APm   |  APl   |",
             "|:------:|:------:|:------:|:------:|:------:|:------:|",
             "| 35.740 | 55.984 | 38.229 | 19.415 | 40.684 | 48.670 |",
             "[05/25 03:20:33] d2.evaluation.testing INFO: copypaste: Task: bbox",
             "[05/25 03:20:33] d2.evaluation.testing INFO: copypaste: AP,AP50,AP75,APs,APm,APl",
             "[05/25 03:20:33] d2.evaluation.testing INFO: copypaste: 35.7403,55.9835,38.2289,19.4153,40.6835,48.6696"]
    run = _read(tmp_path, lines)
    assert len(_vals(run, "eval/map")) == 1
    assert abs(_vals(run, "eval/map")[0] - 35.74) < 1e-2


def test_mmseg_decode_acc_seg_is_accuracy(tmp_path):
    """Style: MMSegmentation 0.x IterBasedRunner lines `Iter [50/160000] lr: 1.0e-02, ..., decode.loss_ce: 0.41,
    decode.acc_seg: 88.1, loss: 0.41`: the decode head's pixel accuracy is the run's accuracy."""
    lines = [f"2022-10-27 17:31:{10 + i:02d},955 - mmseg - INFO - Iter [{50 * (i + 1)}/160000]\tlr: 1.000e-02, "
             f"eta: 3 days, 1:00:00, time: 0.150, data_time: 0.010, memory: 970, decode.loss_ce: {0.5 - 0.05 * i:.4f}, "
             f"decode.acc_seg: {80.0 + i:.4f}, loss: {0.5 - 0.05 * i:.4f}" for i in range(4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [80.0, 81.0, 82.0, 83.0]
    assert _vals(run, "loss")[0] == 0.5


def test_pm2_process_prefix_is_dropped(tmp_path):
    """Style: a training console kept by pm2, every line headed by the process's id and padded name
    (`0|det      | 4200: 0.81, 0.93 avg, 0.001000 rate, 3.2 seconds, 268800 images`, darknet's summary)."""
    lines = []
    for it in (4200, 4201, 4202):
        lines.append("0|det      | Region 82 Avg IOU: 0.71, Class: 0.98, Obj: 0.91, No Obj: 0.002, .5R: 0.9, .75R: 0.5,  count: 12")
        lines.append(f"0|det      | {it}: {0.81 - 0.01 * (it - 4200):.2f}, 0.93 avg, 0.001000 rate, 3.2 seconds, "
                     f"{64 * it} images")
        lines.append("0|det      | Loaded: 0.000030 seconds")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.81, 0.80, 0.79]
    assert [float(s) for s in run.get("loss").steps] == [4200.0, 4201.0, 4202.0]


def test_best_so_far_dict_is_no_new_record(tmp_path):
    """Style: RT-DETR after each evaluation prints the COCO summary, then `best_stat:  {'epoch': 3,
    'coco_eval_bbox': 0.21}`: the best evaluation so far told again, not a record of its own."""
    lines = ["IoU metric: bbox",
             " Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = 0.210",
             " Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = 0.388",
             "best_stat:  {'epoch': 3, 'coco_eval_bbox': 0.2101}"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/map") == [0.21]
    assert "coco_eval_bbox" not in run.series


def test_basicsr_best_so_far_tail_is_dropped(tmp_path):
    """Style: BasicSR's validation block, `Validation Set5` then `<TAB> # psnr: 30.1234<TAB>Best: 30.4000 @ 5000 iter`:
    the tail restates the best value and its iteration; the value is the line's first number."""
    lines = ["2023-05-01 10:00:00,000 INFO: Validation Set5",
             "\t # psnr: 30.1234\tBest: 30.4000 @ 5000 iter",
             "2023-05-01 10:05:00,000 INFO: [train..][epoch:  3, iter:   6,100, lr:(2.000e-04,)] "
             "[eta: 1:00:00, time (data): 0.500 (0.010)] l_pix: 2.5000e-02"]
    run = _read(tmp_path, lines)
    assert _vals(run, "psnr") == [30.1234]
    assert "@" not in run.series


def test_terminal_hard_wrap_is_joined(tmp_path):
    """Style: a log copied from a terminal that cut every long line at its width (here 100 columns), the rest
    of the line on the next one, even inside a name (`loss_o` / `bjectness: 0.0655`)."""
    lines = []
    for it, loss in ((100, 0.91), (120, 0.88), (140, 0.86)):
        full = (f"2019-01-26 23:19:39,610 trainer INFO: eta: 1 day, 2:00:00  iter: {it}  loss: {loss:.4f} (0.9000)  "
                f"loss_objectness: 0.0655 (0.1181)  lr: 0.001250  max mem: 3807")
        lines.extend([full[:100], full[100:]])
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.91, 0.88, 0.86]
    assert _vals(run, "loss_objectness") == [0.0655] * 3
    assert [float(s) for s in run.get("loss").steps] == [100.0, 120.0, 140.0]


def test_bar_cut_after_its_share_with_closing_pipe_or_message(tmp_path):
    """Style: a tqdm bar whose description holds the values (`Step: 585. Epoch: 1/100. ... Total loss: 3.67099:
    100%|█| `), cut at the terminal's edge after the closing `|`, or with a message printed into it
    (`41%|▍| checkpoint...`): the values before the bar are the record."""
    lines = ["Step: 100. Epoch: 0/50. Iteration: 100/200. Cls loss: 5.10000. Reg loss: 0.02000. Total loss: 5.12000:  50%|▌| ",
             "Step: 150. Epoch: 0/50. Iteration: 150/200. Cls loss: 4.00000. Reg loss: 0.02000. Total loss: 4.02000:  75%|▋| checkpoint...",
             "Step: 199. Epoch: 0/50. Iteration: 200/200. Cls loss: 3.00000. Reg loss: 0.01000. Total loss: 3.01000: 100%|█|"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [5.12, 4.02, 3.01]
