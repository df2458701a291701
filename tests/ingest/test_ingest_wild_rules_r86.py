"""Line-shape rules the wild corpus asked for (round r86), each tried on a short log written for the
test in the style of the prints that needed it."""

from __future__ import annotations

import pytest

from written_log import read_written as _read
from written_log import series_values as _vals


def _kitti_block(cls, kind, ious, rows):
    lines = [f"{cls} {kind}@{ious}:"]
    for view, vals in rows:
        lines.append(f"{view:<4} AP:" + ", ".join(f"{v:.4f}" for v in vals))
    return lines


@pytest.mark.parametrize("name", ["results.txt", "eval.log"])
def test_kitti_evaluation_blocks_are_one_record_per_view_line(tmp_path, name):
    """KITTI's detection evaluation (`Car AP@0.70, 0.70, 0.70:` then `bbox AP:..`, `bev  AP:..`,
    `3d   AP:..`, `aos  AP:..` with easy, moderate, hard): each view line is one evaluation record, its
    APs named as detection scores (`eval/<class>_<view>_<difficulty>[_R40]@<IoU>/map`, the orientation
    similarity as `/aos`); the commas do not make the block a CSV file."""
    lines = _kitti_block("Truck", "AP", "0.70, 0.70, 0.70",
                         [("bbox", (81.5, 72.25, 70.0)), ("bev", (60.0, 55.5, 50.0)), ("3d", (40.0, 33.3, 30.1)),
                          ("aos", (80.0, 70.0, 68.0))])
    lines += _kitti_block("Truck", "AP_R40", "0.70, 0.50, 0.50",
                          [("bbox", (83.0, 73.0, 71.0)), ("bev", (65.0, 58.0, 52.0)), ("3d", (45.0, 37.0, 33.0))])
    run = _read(tmp_path, lines, name=name)
    assert run.meta["rows"] == 7
    assert _vals(run, "eval/Truck_3d_moderate@0.70/map") == [33.3]
    assert _vals(run, "eval/Truck_bev_easy@0.70/map") == [60.0]
    assert _vals(run, "eval/Truck_hard@0.70/aos") == [68.0]
    assert _vals(run, "eval/Truck_3d_hard_R40@0.50/map") == [33.0]
    assert _vals(run, "eval/Truck_bbox_easy_R40@0.70/map") == [83.0]


def test_kitti_block_behind_a_logger_prefix_and_without_its_head(tmp_path):
    """A head line behind a logger's level (`INFO  Van AP(Average Precision)@0.50, 0.25, 0.25:`) still
    names the block; view lines above any head (a paste that starts mid-block) keep the view's name."""
    lines = ["3d   AP:0.0000, 0.0000, 0.0000",
             "2024-01-02 10:00:00,000   INFO  Van AP(Average Precision)@0.50, 0.25, 0.25:",
             "bbox AP:12.5000, 11.0000, 10.2500",
             "3d   AP:1.0000, 0.5000, 0.2500"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "eval/3d_easy/map") == [0.0]
    assert _vals(run, "eval/Van_bbox_moderate@0.50/map") == [11.0]
    assert _vals(run, "eval/Van_3d_hard@0.25/map") == [0.25]


def test_a_csv_file_with_a_colon_in_its_first_column_stays_a_csv(tmp_path):
    """The printed-pair test only keeps non-CSV names from the CSV reader: a `.csv` whose first column
    holds clock times is still read as a table."""
    lines = ["time,step,loss"] + [f"10:0{i}:00,{i},{1.0 / (i + 1):.3f}" for i in range(5)]
    run = _read(tmp_path, lines, name="metrics.csv")
    assert run.meta["rows"] == 5
    assert _vals(run, "loss")[0] == 1.0
