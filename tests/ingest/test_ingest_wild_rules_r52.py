"""Reader rules asked for by real logs (round 52): each test writes a log in the style that needed the rule."""

from __future__ import annotations

from written_log import read_written as _read
from written_log import series_values as _vals


def test_slash_pair_of_decimals_is_two_values(tmp_path):
    """`epoch:3,clean:31.20/0.8810,noisy:30.95/0.8702`: each name holds two readings joined by a slash
    (a PSNR and an SSIM). Decimals on both sides are two values, not a count of progress."""
    run = _read(tmp_path, [
        f"epoch:{e},clean:{30 + e * 0.5:.4f}/{0.80 + e * 0.01:.4f},noisy:{29 + e * 0.5:.4f}/{0.78 + e * 0.01:.4f}"
        for e in range(1, 6)
    ])
    assert run.meta["rows"] == 5
    assert sorted(run.series) == ["clean", "clean_2", "noisy", "noisy_2"]
    assert _vals(run, "clean") == [30.5, 31.0, 31.5, 32.0, 32.5]
    assert _vals(run, "clean_2") == [0.81, 0.82, 0.83, 0.84, 0.85]


def test_slash_pair_of_whole_numbers_stays_progress(tmp_path):
    """`iter: 200, evaluated: 40/100`: whole numbers joined by a slash count progress; no value is read
    from them (the decimal-pair rule leaves them alone)."""
    run = _read(tmp_path, [f"iter: {i * 100}, evaluated: {i * 10}/100, loss: {1.0 / i:.3f}" for i in range(1, 5)])
    assert run.meta["rows"] == 4
    assert "evaluated" not in run.series and "evaluated_2" not in run.series


def test_counter_line_right_after_results_banner_dates_the_block(tmp_path):
    """`***** Eval results *****`, then `epoch = 1.0`, then one `eval_x = v` a line each (a Hugging Face
    style final evaluation whose counter line comes first): the values are the banner's one record."""
    pre = "08/29/2021 08:29:05 - INFO - __main__ -   "
    run = _read(tmp_path, [
        pre + "***** Eval results *****",
        pre + "  epoch = 2.0",
        pre + "  eval_sts_spearman = 0.7712",
        pre + "  eval_transfer_avg = 84.31",
        pre + "  eval_sick_spearman = 0.7120",
    ])
    assert run.meta["rows"] == 1
    assert {"eval/sts_spearman", "eval/transfer_avg", "eval/sick_spearman"} <= set(run.series)


def test_name_opening_on_a_digit_before_a_colon(tmp_path):
    """`step 100 epe: 2.31  1px: 0.71  3px: 0.86  5px: 0.90` (optical flow's share of pixels within N px):
    a name such as `1px` opens on its digit; with a colon and a value after it, it is a key, not a number."""
    run = _read(tmp_path, [
        f"step {s} epe: {3.0 - s / 1000:.3f}\t1px: {0.60 + s / 10000:.4f}\t3px: {0.80 + s / 10000:.4f}"
        f"\t5px: {0.85 + s / 10000:.4f}"
        for s in (100, 200, 300, 400)
    ])
    assert run.meta["rows"] == 4
    assert {"1px", "3px", "5px"} <= set(run.series)
    assert _vals(run, "3px") == [0.81, 0.82, 0.83, 0.84]


def test_slash_joined_names_over_slash_joined_decimals(tmp_path):
    """`epoch 3 PSNR/SSIM: 30.12/0.8812` (a restoration model's validation): the name and the value are both
    two joined by a slash; each value takes its own name, never the quotient of the two."""
    run = _read(tmp_path, [f"epoch {e} PSNR/SSIM: {28 + e:.2f}/{0.80 + e / 100:.4f}" for e in range(1, 5)])
    assert run.meta["rows"] == 4
    assert _vals(run, "psnr") == [29.0, 30.0, 31.0, 32.0]
    assert _vals(run, "ssim") == [0.81, 0.82, 0.83, 0.84]


def test_per_item_test_lines_are_measurements(tmp_path):
    """`Testing 0 baby - PSNR: 37.38 dB; SSIM: 0.9601` then one line for each further image, with no step
    anywhere: a test that scores one item a line. The item's name sits before the dash, outside the key,
    and lines of the same names next to each other are results, not settings."""
    items = ("cat", "tree", "lake", "road")
    run = _read(tmp_path, [
        "loading model from runs/sr_x2/models/20000_G.pth",
        *(f"Testing {i} {name:<12}  - PSNR: {30 + i:.2f} dB; SSIM: {0.90 + i / 100:.4f}; PSNR_Y: {31 + i:.2f} dB."
          for i, name in enumerate(items)),
    ])
    assert run.meta["rows"] == 4
    assert {"psnr", "ssim", "PSNR_Y"} <= set(run.series)
    assert _vals(run, "psnr") == [30.0, 31.0, 32.0, 33.0]


def test_bold_span_around_names_and_values(tmp_path):
    """`Iter: 7 **l1: nan g: nan** d: 0.92` (a log pasted into an issue with the failing values set in
    Markdown bold): the marks are the poster's, so the line has the same shape as the unmarked lines."""
    run = _read(tmp_path, [
        "2020-08-09 11:27:36,361 INFO Iter: 1 l1: 0.0577 g: 1.0746 d: 0.9999",
        "2020-08-09 11:33:50,187 INFO Iter: 2 **l1: nan g: nan** d: 0.9203",
        "2020-08-09 11:40:04,448 INFO Iter: 3 **l1: nan g: nan** d: 0.7811",
        "2020-08-09 11:46:16,912 INFO Iter: 4 **l1: nan g: nan** d: 0.8020",
    ])
    assert run.meta["rows"] == 4
    assert _vals(run, "d") == [0.9999, 0.9203, 0.7811, 0.802]
    assert len(run.get("g").values) == 4


def test_reid_cmc_block_under_a_heading(tmp_path):
    """A re-identification test's result block (`mAP: 61.2%`, a `CMC curve` heading, then `Rank-1  : 80.1%`
    and the other ranks a line each) with no counter anywhere: the CMC ranks are scores, and the heading
    line inside the block does not split it."""
    run = _read(tmp_path, [
        "Evaluate only",
        "Extracted features for query set, obtained 3368-by-512 matrix",
        "Computing CMC and mAP",
        "Results ----------",
        "mAP: 61.2%",
        "CMC curve",
        "Rank-1  : 80.1%",
        "Rank-5  : 90.4%",
        "Rank-10 : 93.7%",
        "Rank-20 : 95.9%",
        "------------------",
    ])
    # (five printed lines of scores; the padded ranks, one under the other, may be read as one record of them)
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 5
    assert {"eval/map", "eval/rank1", "eval/rank5", "eval/rank10", "eval/rank20"} <= set(run.series)
    assert _vals(run, "eval/rank1") == [80.1]


def test_settings_with_a_gap_stay_settings(tmp_path):
    """Settings printed one a line with a heading between them (`lr: 0.01`, `Optimizer`, `momentum: 0.9`)
    name no score: the report rule that lets a heading sit inside a block of scores keeps none of them."""
    run = _read(tmp_path, ["lr: 0.01", "Optimizer", "momentum: 0.9", "weight_decay: 0.0005", "batch_size: 64"])
    assert run.meta["rows"] == 0
