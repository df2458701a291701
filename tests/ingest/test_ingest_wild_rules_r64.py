"""Reader rules for print styles met in the wild corpus (round 64): each test writes a log of its own
in the style that asked for the rule."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_image_quality_score_named_before_the_output_it_measures(tmp_path):
    """A super-resolution evaluation script prints, for each upscaling factor, the PSNR of the model's
    output and of the bicubic baseline, one `name= value` a line (`PSNR_predicted= 33.69`,
    `PSNR_bicubic= 33.70`) between file names and a timing line: the score's name comes first and
    the output it measures after it. Those are readings, not settings."""
    lines = []
    for scale, psnr in ((2, 36.21), (3, 32.47), (4, 30.15)):
        lines += [f"Processing  Set14/img_{k:03d}_x{scale}.mat" for k in range(1, 4)]
        lines += [f"Scale= {scale}", "Dataset= Set14", f"PSNR_predicted= {psnr}",
                  f"PSNR_bicubic= {psnr - 1.5:.2f}", f"It takes average {2.0 + scale / 10}s for processing"]
    run = _read(tmp_path, lines)
    assert _vals(run, "PSNR_predicted") == [36.21, 32.47, 30.15]
    assert _vals(run, "PSNR_bicubic") == [34.71, 30.97, 28.65]
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 6  # (the two scores of each scale)
    # a setting that names the score it weighs stays a setting
    run = _read(tmp_path, ["psnr_weight= 0.5", "ssim_weight= 0.5", "loss: 1.2", "loss: 1.1", "loss: 1.0"],
                name="weights.log")
    assert "psnr_weight" not in run.series and "ssim_weight" not in run.series


def test_optical_flow_end_point_error(tmp_path):
    """An optical-flow trainer's validation lines name the end-point error `EPE` (RAFT, PWC-Net and
    FlowNet ports print `Validation (sintel) EPE: 2.31`, `val epe: 1.38`): the alias table knows it as
    `epe`, a validation metric where the line names the split."""
    lines = []
    for step, epe in ((5000, 4.12), (10000, 3.05), (15000, 2.61)):
        lines.append(f"[step {step}] loss: {epe / 2:.3f}")
        lines.append(f"[step {step}] val EPE: {epe}")
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/epe") == [4.12, 3.05, 2.61]
    assert [float(s) for s in run.get("eval/epe").steps] == [5000.0, 10000.0, 15000.0]
