"""Reading rules of round r124 (each test in a made-up log of the style that asked for the rule)."""

from __future__ import annotations

from triage.ingest import printed
from written_log import read_written as _read, series_values as _vals


def test_a_block_dropped_as_settings_counts_each_of_its_lines(tmp_path):
    """Style: a closing summary printed once as a block, `name: value` a line, with no counter and nothing the run
    measured before it: dropped as lone settings, every one of its three lines counted as skipped, not one."""
    run = _read(tmp_path, ["Run summary", "grad_norm: 1.5", "throughput: 120.5", "memory: 3.2"])
    assert run.meta["rows"] == 0
    assert sum(run.meta["skipped"].values()) == 3, run.meta["skipped"]


def test_a_loss_in_an_evaluation_block_is_a_reading(tmp_path):
    """Style: `Evaluating on the test set`, then `wer: 0.211`, `cer: 0.094`, `loss: 0.734` a line each: the loss is
    more of the evaluation's block (eval/loss beside eval/wer), not a setting printed once."""
    run = _read(tmp_path, ["Evaluating on the test set", "wer: 0.211", "cer: 0.094", "loss: 0.734"])
    assert _vals(run, "eval/wer") == [0.211] and _vals(run, "eval/loss") == [0.734]
    assert not run.meta.get("skipped")


def test_a_loss_after_training_lines_under_an_evaluation_block(tmp_path):
    """The same block after training's step lines: the training loss stays training's, the block's the eval's."""
    run = _read(tmp_path, [f"step {i} loss {2.5 - i / 10:.2f}" for i in range(1, 5)]
                + ["Evaluating on the test set", "wer: 0.211", "cer: 0.094", "loss: 0.734"])
    assert _vals(run, "loss") == [2.4, 2.3, 2.2, 2.1]
    assert _vals(run, "eval/loss") == [0.734]


def test_a_split_count_in_a_time_is_no_metric(tmp_path):
    """Style: a JVM logger's `Solver$:88 - [Epoch 2 512/9000][Iteration 7] Train 256 in 0.81seconds. Loss is 0.93.`:
    `Train 256` counts the records the step went through, not a training score, and `Solver$:88` is where the
    logging call sits, no metric."""
    lines = [f"2021-03-04 10:00:0{i} INFO  Solver$:88 - [Epoch 2 {512 + 256 * i}/9000][Iteration {7 + i}] "
             f"Train 256 in 0.8{i}seconds. Throughput is 31{i}.5 records/second. Loss is 0.9{3 - i}." for i in range(3)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.93, 0.92, 0.91]
    assert "accuracy" not in run.series and not any("Solver" in k or k == "Train" for k in run.series), sorted(run.series)
    assert printed.clean("Foo$Bar$:12 - loss: 0.5") == "loss: 0.5"
    assert printed.clean("Test 40 in 2.5s, acc: 0.8") == "Test in 2.5s, acc: 0.8"
