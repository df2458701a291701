"""Round r107 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from written_log import read_text

from triage.ingest import printed


def test_per_class_iou_lines_after_an_evaluation_block_are_read(tmp_path):
    # a segmentation evaluation prints its overall scores, then one `mIoU of <class>` line per class: each is
    # that class's score at this evaluation (`<metric>/<class>`), not a one-off setting
    lines = []
    for epoch in (0, 1):
        lines.append(f"**** EPOCH {epoch:03d} ****")
        for b in (10, 20, 30):
            lines += [f" -- {b:03d} / 300 --", f"mean loss: {2.0 - epoch - b / 100:.6f}",
                      f"accuracy: {0.5 + b / 1000:.6f}"]
        lines += ["eval mean loss: 0.812000", "eval accuracy: 0.701000"]
        for k, cls in enumerate(("Boat", "Chair", "Lamp")):
            lines.append(f"eval mIoU of {cls}:\t {0.3 + k / 10 + epoch / 100:.6f}")
        lines.append(f"eval mean mIoU: {0.4 + epoch / 100:.6f}")
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert "eval/miou" in run.series
    for cls in ("Boat", "Chair", "Lamp"):
        assert f"eval/mIoU/{cls}" in run.series, sorted(run.series)
        assert len(run.series[f"eval/mIoU/{cls}"]) == 2
    assert [round(float(v), 2) for v in run.series["eval/mIoU/Chair"].values] == [0.4, 0.41]


def test_slashed_score_keys_of_a_class_are_known_loosely():
    # `IoU/car`, `iou/orig_i`, `dice/liver`: a per-part metric word, then the part it was measured on
    assert printed.known_key("IoU/car", loose=True)
    assert printed.known_key("iou/new_i_224", loose=True)
    assert printed.known_key("dice/liver", loose=True)
    assert not printed.known_key("IoU/car")  # (only loosely: the alias table has no such name)
    assert not printed.known_key("lr/group0", loose=True)  # (not a per-part metric word)
    assert not printed.known_key("map/of_labels", loose=True)


def test_mean_iou_and_dice_of_a_class_name_their_part():
    for line, key in (("mIoU of Airplane: 0.66", "mIoU/Airplane"), ("Dice of liver : 0.91", "Dice/liver")):
        plan = printed.parse(printed.clean(line))
        assert [sl.key for sl in plan.slots if sl.role == "value"] == [key]
        assert plan.known


def test_split_column_table_counts_its_rows_as_joined_lines(tmp_path):
    # AllenNLP's trainer prints each epoch's metrics as a table whose columns are the splits (`Training |
    # Validation`), one metric a row: the epoch is one record, its row lines are said apart as joined lines
    lines = []
    for epoch in range(3):
        lines += [f"2023-01-01 10:0{epoch}:00,000 - INFO - allennlp.training.trainer - Epoch {epoch}/2",
                  "2023-01-01 10:05:00,000 - INFO - allennlp.training.tensorboard_writer -        Training |  Validation",
                  f"2023-01-01 10:05:00,000 - INFO - allennlp.training.tensorboard_writer - loss     |  "
                  f"{0.6 - epoch / 10:.3f}  |  {0.7 - epoch / 20:.3f}",
                  f"2023-01-01 10:05:00,000 - INFO - allennlp.training.tensorboard_writer - accuracy |  "
                  f"{0.7 + epoch / 10:.3f}  |  {0.6 + epoch / 20:.3f}",
                  "2023-01-01 10:05:00,000 - INFO - allennlp.training.tensorboard_writer - cpu_memory_MB |  "
                  "1500.000  |  N/A"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert run.meta["rows"] == 3
    assert run.meta.get("joined_lines") == 6  # (three rows a table: two more printed lines an epoch)
    assert [round(float(v), 2) for v in run.series["eval/loss"].values] == [0.7, 0.65, 0.6]
    assert [round(float(v), 2) for v in run.series["loss"].values] == [0.6, 0.5, 0.4]


_NUSCENES_SUMMARY = ("mAP: {map:.4f}\nmATE: 0.7012\nmASE: 0.2803\nmAOE: 0.5521\nmAVE: 0.6130\nmAAE: 0.2204\n"
                     "NDS: {nds:.4f}\nEval time: 95.3s\n")


def test_nuscenes_detection_summary_names_are_read(tmp_path):
    # the nuScenes devkit's summary after an evaluation, a `name: value` a line with no counter: the detection
    # score and the five true-positive errors are evaluation metrics, not one-off settings
    text = ("Formating bboxes of pts_bbox\nStart to convert detection format...\n"
            "Results writes to /tmp/x/results/pts_bbox/results_nusc.json\nEvaluating bboxes of pts_bbox\n"
            + _NUSCENES_SUMMARY.format(map=0.3012, nds=0.4121))
    run = read_text(tmp_path, text)
    for name in ("eval/map", "eval/nds", "eval/mate", "eval/mase", "eval/maoe", "eval/mave", "eval/maae"):
        assert name in run.series, sorted(run.series)
    assert float(run.series["eval/nds"].values[0]) == 0.4121
    assert float(run.series["eval/maoe"].values[0]) == 0.5521
    # (seven summary lines and the eval time: one evaluation printed as a block, one record of eight lines)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 8


def test_nuscenes_summary_under_epoch_headings(tmp_path):
    text = "".join(f"epoch{e}:\n" + _NUSCENES_SUMMARY.format(map=0.1 * e, nds=0.05 * e) for e in (2, 4))
    run = read_text(tmp_path, text)
    assert [round(float(v), 2) for v in run.series["eval/nds"].values] == [0.1, 0.2]
    assert list(run.series["eval/mate"].steps) == list(run.series["eval/map"].steps)
