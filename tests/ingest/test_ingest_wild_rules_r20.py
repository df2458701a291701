"""Reading rules the wild corpus asked for (twentieth round), each tried on a short log written for
the test in the style of the prints that needed it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_a_slash_joined_generator_and_discriminator_name_two_losses(tmp_path):
    """`Epoch: 001/020 | Batch 000/1272 | Gen/Dis Loss: 2.3317/0.7514` (a GAN loop printing both losses
    in one field): the slash joins the generator's and the discriminator's values, in the order the
    name gives them; it is no fraction."""
    lines = [f"Epoch: 001/005 | Batch {b:03d}/400 | Gen/Dis Loss: {1.5 + b / 100:.4f}/{0.6 - b / 1000:.4f}"
             for b in range(0, 400, 100)]
    run = _read(tmp_path, lines)
    assert _vals(run, "g_loss") == [1.5, 2.5, 3.5, 4.5]
    assert _vals(run, "d_loss") == [0.6, 0.5, 0.4, 0.3]


def test_a_number_signed_count_of_images_is_no_metric(tmp_path):
    """`[EVAL] #Images: 5456 mIoU: 0.5057 Acc: 0.9739 Kappa: 0.9452` (a segmentation toolkit's one
    evaluation line): `#Images` counts the images measured, so the line's other names are all metrics
    and the lone line is an evaluation's result."""
    lines = ["[2025/01/02 10:00:00] INFO: Start evaluating (total_samples: 300, total_iters: 300)...",
             "[2025/01/02 10:01:00] INFO: [EVAL] #Images: 300 mIoU: 0.4210 Acc: 0.9120 Kappa: 0.8800 Dice: 0.5500"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/miou") == [0.421]
    assert _vals(run, "eval/accuracy") == [0.912]
    assert "eval/images" not in run.series


def test_a_step_written_with_its_total_as_one_string_is_the_step(tmp_path):
    """`{"loss": 1.43, ..., "epoch": 0.75, "global_step/max_steps": "8270/11043"}` (an LLM fine-tuning
    tool's logging dicts): the key names a step counter and its total, and the string's count before
    the slash is the record's step; the fractional epoch is not the axis."""
    lines = ['{"loss": %.3f, "acc": 0.6, "learning_rate": 2e-05, "epoch": %.5f, "global_step/max_steps": "%d/1000",'
             ' "percentage": "%d%%", "elapsed_time": "1h 2m 3s"}' % (2 - s / 1000, s / 1000, s, s // 10)
             for s in (500, 505, 510)]
    run = _read(tmp_path, lines, name="logging.jsonl")
    assert [float(x) for x in run.get("loss").steps] == [500.0, 505.0, 510.0]
    assert _vals(run, "loss") == [1.5, 1.495, 1.49]
