"""Round r105 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from written_log import read_text


def test_long_pprinted_vocabulary_is_no_record(tmp_path):
    # `pprint(tokenizer.word_index)` prints a dict of a thousand `'word': index,` lines, past what one record
    # holds: none of its entries, even one whose word names a metric (`'wer': 512`), is a measurement
    words = [f"w{i}" for i in range(900)]
    words[512] = "wer"
    words[700] = "loss"
    lines = ["Epoch 1/2", "loss: 0.9000 - accuracy: 0.5000", "Epoch 2/2", "loss: 0.7000 - accuracy: 0.6000",
             "{'the': 1,"] + [f" '{w}': {i + 2}," for i, w in enumerate(words)] + [" 'end': 999,", " ...}", "41665"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert "wer" not in run.series
    assert [float(v) for v in run.series["loss"].values] == [0.9, 0.7]
    assert run.meta["skipped"]


def test_lines_after_a_long_dict_read_again(tmp_path):
    lines = ["{" + "'a0': 0,"] + [f" 'a{i}': {i}," for i in range(1, 450)] + [" 'z': 3}"]
    lines += [f"epoch {e} loss {1.0 - 0.1 * e:.2f}" for e in range(4)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert [round(float(v), 2) for v in run.series["loss"].values] == [1.0, 0.9, 0.8, 0.7]


def test_ultralytics_pose_validation_table_names_both_groups(tmp_path):
    # a pose model's validation table scores the boxes, then the keypoints, under `Box(P R mAP50 mAP50-95)` and
    # `Pose(P R mAP50 mAP50-95)`: the first four are the run's precision, recall and mAPs, the second four the keypoints'
    lines = []
    for e in range(1, 4):
        lines += ["      Epoch    GPU_mem   box_loss  pose_loss  kobj_loss   cls_loss   dfl_loss  Instances       Size",
                  f"       {e}/3       1.9G     {1.2 - 0.1 * e:.3f}     {0.5 - 0.05 * e:.3f}    0.02000     0.4000"
                  f"     0.9000         12        640: 100%|##########| 50/50 [00:20<00:00,  2.5it/s]",
                  "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95)     Pose(P"
                  "          R      mAP50  mAP50-95): 100%|##########| 5/5 [00:01<00:00,  4.1it/s]",
                  f"                   all        100        180      0.{70 + e}0      0.600      0.650      0.400"
                  f"      0.{50 + e}0      0.300      0.350      0.200"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert [round(float(v), 2) for v in run.series["eval/precision"].values] == [0.71, 0.72, 0.73]
    assert [round(float(v), 2) for v in run.series["eval/map"].values] == [0.4, 0.4, 0.4]
    assert not any(name.startswith(("Box(", "Pose(", "mAP50")) for name in run.series)
    pose = [s for name, s in run.series.items() if "pose" in name and "precision" in name]
    assert len(pose) == 1 and round(float(pose[0].values[0]), 2) == 0.51


def test_lightning_bar_version_number_is_no_series(tmp_path):
    # Lightning's progress bar shows the logger's version beside the metrics (`v_num=7`): which run it is, constant
    # along the run; it is no measurement and must not become a series a detector reads as pinned
    lines = [f"Epoch {e}: 100%|##########| 20/20 [00:01<00:00, 15.2it/s, loss={1.5 - 0.2 * e:.3f}, v_num=7, "
             f"val_loss={1.6 - 0.2 * e:.3f}]" for e in range(5)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert "v_num" not in run.series
    assert round(float(run.series["loss"].values[-1]), 2) == 0.7
