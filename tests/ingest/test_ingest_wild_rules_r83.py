"""Reading rules asked for by real logs (round 83): each test writes a small log in the style that
needed the rule and checks what the reader gets from it."""

from __future__ import annotations

from written_log import read_written as _read
from written_log import series_values as _vals


def test_csv_split_column_spreads_rows_over_splits(tmp_path):
    """CSV whose rows name their split in a column (`epoch,set,loss,acc` with train/valid/test rows):
    the rows of one epoch stay apart, train under the plain names, the others under `eval/`."""
    run = _read(tmp_path, ["epoch,set,loss,acc",
                           "1,train,0.90,0.40", "1,valid,1.10,0.35", "1,test,1.20,0.33",
                           "2,train,0.70,0.55", "2,valid,0.95,0.50", "2,test,1.00,0.48"], name="log.csv")
    assert _vals(run, "loss") == [0.90, 0.70]
    assert _vals(run, "eval/loss") == [1.10, 0.95]
    assert _vals(run, "eval/test/loss") == [1.20, 1.00]
    assert _vals(run, "eval/accuracy") == [0.35, 0.50]


def test_csv_split_column_of_other_values_is_left_alone(tmp_path):
    """CSV with a `mode` column of numbers (not split words): read as one table, as before."""
    run = _read(tmp_path, ["step,mode,loss", "1,0,0.9", "2,1,0.8", "3,0,0.7"], name="log.csv")
    assert _vals(run, "loss") == [0.9, 0.8, 0.7]
    assert "eval/loss" not in run.series


def test_logger_name_before_source_location_and_comma_stamp(tmp_path):
    """Printed lines in the `%(name)s - (%(filename)s:%(lineno)d) - %(levelname)s - %(asctime)s - ` layout with a
    comma between date and time (`Walk-v1-train - (train.py:88) - INFO - 2024-03-02,10:11:12 - 1600/100000(1%)`):
    the prefix carries no metric, the `done/total(pct%)` counter is the step."""
    run = _read(tmp_path, [
        "Walk-v1-train - (train.py:88) - INFO - 2024-03-02,10:11:12 - 1600/100000(1%) critic_loss: 0.51 alpha: 0.20",
        "Walk-v1-train - (train.py:88) - INFO - 2024-03-02,10:14:40 - 3200/100000(3%) critic_loss: 0.42 alpha: 0.18",
    ])
    assert [float(s) for s in run.get("alpha").steps] == [1600.0, 3200.0]
    assert _vals(run, "alpha") == [0.20, 0.18]
    assert not any(".py" in name for name in run.series)


def test_sample_stats_lens(tmp_path):
    """Printed RL sample stats (`lens:150[120, 180], success:0.25`): `lens` is the mean episode length (its
    [min, max] after it is no value of its own)."""
    run = _read(tmp_path, [
        "1000/50000(2%) samples_stats: lens:150[120, 180], success:0.25 actor_loss: -1.2",
        "2000/50000(4%) samples_stats: lens:140[100, 190], success:0.50 actor_loss: -1.6",
    ])
    assert _vals(run, "episode_length") == [150.0, 140.0]


def test_lpips_under_an_evaluation_heading(tmp_path):
    """Printed evaluation blocks of a NeRF trainer (`++> Evaluate at epoch 600 ...` then `PSNR = 24.1` and
    `LPIPS (alex) = 0.21`): LPIPS is a metric of its own, kept beside PSNR."""
    run = _read(tmp_path, ["++> Evaluate at epoch 600 ...", "PSNR = 24.1", "LPIPS (alex) = 0.21",
                           "++> Evaluate at epoch 700 ...", "PSNR = 24.9", "LPIPS (alex) = 0.18"])
    assert _vals(run, "psnr") == [24.1, 24.9]
    assert _vals(run, "lpips") == [0.21, 0.18]
