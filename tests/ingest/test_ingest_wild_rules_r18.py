"""Run placement rules the wild corpus asked for (eighteenth round), each tried on a short log written
for the test in the style of the prints that needed it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_a_closing_summary_on_its_own_counter_is_no_second_run(tmp_path):
    """`N-th batch, loss: ...` lines, then `1-th epoch, test acc: ...`: the epoch line's counter is
    lower than the batches', but it names only a metric no batch line named, so it is the summary
    of the run above, placed after it, and the file holds one run."""
    lines = [f"{b}-th batch, loss: {2.3 - b / 300:.4f}" for b in range(0, 500, 50)]
    lines.append("1-th epoch, test acc: 0.0532")
    run = _read(tmp_path, lines)
    assert "run_starts" not in run.meta
    assert _vals(run, "eval/accuracy") == [0.0532]
    assert float(run.get("eval/accuracy").steps[0]) > float(run.get("loss").steps[-1])


def test_a_second_run_that_logs_the_same_metric_is_still_a_run(tmp_path):
    """The same shape, but the last line prints the loss again from step 1: a run that started over
    (and stopped at once), placed after the first and counted as a run of its own."""
    lines = [f"{b}-th batch, loss: {2.3 - b / 300:.4f}" for b in range(0, 500, 50)]
    lines.append("1-th batch, loss: 2.2987")
    run = _read(tmp_path, lines)
    assert run.meta.get("runs") == 2


def test_a_printed_margin_is_no_reward_margin(tmp_path):
    """`Margin 0.000` on a speaker model's printed lines is its angular margin, kept under its own name;
    the `margin` key of a Trainer's JSONL records is the reward model's margin."""
    lines = [f"Epoch: [12][{b}/7540]\tLoss {2.7 + b / 1e4:.4e} ({4.36:.4e})\tAcc@1  42.97 ( 20.35)\tMargin 0.000 (0.000)"
             for b in range(6400, 7100, 100)]
    run = _read(tmp_path, lines)
    assert run.get("rewards/margins") is None and run.get("Margin") is not None
    records = [f'{{"step": {s}, "loss": 0.6{s}, "margin": 0.{s}}}' for s in range(1, 6)]
    run = _read(tmp_path, records, name="trainer_log.jsonl")
    assert _vals(run, "rewards/margins") == [0.1, 0.2, 0.3, 0.4, 0.5]
