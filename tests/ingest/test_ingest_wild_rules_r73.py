"""Reader rules for physics-informed, optical-flow and model-compression outputs (round 73): each test writes a
short log in one style and checks what the reader takes from it."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_headerless_numeric_table_with_each_line_written_twice(tmp_path):
    """A `numpy.savetxt` loss history (`%.18e`, a step then unnamed loss terms) in which every step after the
    first is written on two identical lines: the repeat is the same row again, not numbers of something else,
    so every line is read and the terms keep their column names."""
    lines = ["# step, loss_train, loss_test, metrics_test"]
    rows = [(0, 0.9, 0.8), (100, 0.5, 0.45), (200, 0.3, 0.28), (300, 0.2, 0.19)]
    for i, (step, a, b) in enumerate(rows):
        line = f"{float(step):.18e} {a:.18e} {b:.18e}"
        lines += [line] if i == 0 else [line, line]
    run = _read(tmp_path, lines, name="loss.dat")
    assert run.meta["rows"] == 7
    assert _vals(run, "value_1") == [0.9, 0.5, 0.3, 0.2]
    assert [float(s) for s in run.get("value_2").steps] == [0.0, 100.0, 200.0, 300.0]


def test_headerless_rows_of_bracketed_loss_terms(tmp_path):
    """A physics-informed trainer's table pasted without its `Step  Train loss  Test loss  Test metric` header
    (`1000      [1.61e-05, 3.21e-02]    [1.63e-05, 0.00e+00]    []`): the step, then the train terms, the
    test terms and the metrics, each a bracketed list; the terms add up to the train and the test loss, an
    empty metric list holds nothing."""
    lines = [
        "0         [2.00e-02, 7.00e+01]    [2.10e-02, 0.00e+00]    []  ",
        "1000      [1.50e-02, 3.00e-02]    [1.60e-02, 0.00e+00]    []  ",
        "2000      [1.00e-02, 5.00e-03]    [1.20e-02, 0.00e+00]    []  ",
    ]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert [round(v, 6) for v in _vals(run, "loss")] == [70.02, 0.045, 0.015]
    assert [round(v, 6) for v in _vals(run, "eval/loss")] == [0.021, 0.016, 0.012]
    assert [float(s) for s in run.get("loss").steps] == [0.0, 1000.0, 2000.0]
    assert not any("metric" in name for name in run.series)


def test_step_and_rate_in_brackets_then_unnamed_values(tmp_path):
    """An optical-flow trainer's summary row (`[   100,  0.0000078]     2.7651,     0.4100, ...`): the step
    and the learning rate in brackets, then the running means of metrics it never names, comma-separated;
    a diverged run prints nan in each cell."""
    lines = [
        "[   100,  0.0000080]     9.1000,     0.1000,     0.3000,     0.4000, ",
        "[   200,  0.0000160]     6.2000,     0.2000,     0.5000,     0.6000, ",
        "[   300,  0.0000240]        nan,        nan,        nan,        nan",
    ]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "learning_rate") == [8e-06, 1.6e-05, 2.4e-05]
    assert _vals(run, "value_1")[:2] == [9.1, 6.2]
    assert math.isnan(_vals(run, "value_4")[2])
    assert [float(s) for s in run.get("value_1").steps] == [100.0, 200.0, 300.0]


def test_top1acc_in_a_results_repr(tmp_path):
    """A sparsification library's per-epoch results repr (`ModuleRunResults(__loss__=0.144, top1acc=96.875,
    top5acc=99.479)`): `top1acc` and `top5acc`, spelled as one word each, are the top-1 and top-5 accuracy."""
    lines = [f"Epoch {e} training results: ModuleRunResults(__loss__={loss}, top1acc={a1}, top5acc={a5})"
             for e, (loss, a1, a5) in enumerate([(0.9, 70.5, 90.25), (0.5, 85.0, 97.5), (0.3, 91.5, 99.0)])]
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [70.5, 85.0, 91.5]
    assert _vals(run, "accuracy_top5") == [90.25, 97.5, 99.0]


def test_wikitext_perplexity_of_a_pruned_model(tmp_path):
    """A pruning script's closing score (`wikitext perplexity 7.72`) after its running per-sample figures: the
    perplexity on WikiText's held-out split is an evaluation's perplexity."""
    lines = ["nsamples 333", "sample 50, Perplexity 5.02", "sample 100, Perplexity 5.31",
             "wikitext perplexity 7.72"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/perplexity") == [7.72]


def test_summary_table_with_a_label_per_row(tmp_path):
    """A tracking benchmark's summary table (`MOT17-02   10.5%  23.7%  -23.8%  0.347`): each row opens with the
    item it scores, in a first column the header above leaves unnamed (a DataFrame with a string index printed
    whole); the label is no cell of the table, the numbers under the header's names are the row."""
    lines = [
        "           Rcll   Prcn   MOTA   MOTP",
        "SEQ-02     10.5%  23.7%  -23.8% 0.347",
        "SEQ-04     14.6%  28.9%  -21.4% 0.276",
        "OVERALL     9.2%  20.4%  -26.8% 0.302",
    ]
    run = _read(tmp_path, lines, name="eval.txt")
    assert run.meta["rows"] == 3
    assert _vals(run, "MOTA") == [-23.8, -21.4, -26.8]
    assert _vals(run, "MOTP") == [0.347, 0.276, 0.302]


def test_one_line_shape_measured_in_one_print_is_measured_in_all(tmp_path):
    """A quantiser's per-module report with no counter (`... INFO [pkg.gptq] avg loss: Nan`), pasted from two
    runs with prose between them: the NaN shows the line to be a measurement, so the same line with a finite
    value (`avg loss: 108.36`) is one too, not a setting quoted once."""
    lines = [
        "2024-03-09 10:49:58 INFO [pkg.base] Quantizing self_attn.q_proj in layer 26/40...",
        "2024-03-09 10:49:59 INFO [pkg.gptq] avg loss: Nan",
        "after going back to the previous release:",
        "2024-03-09 10:53:16 INFO [pkg.base] Quantizing mlp.up_proj in layer 39/40...",
        "2024-03-09 10:53:18 INFO [pkg.gptq] avg loss: 108.36",
    ]
    run = _read(tmp_path, lines)
    values = _vals(run, "loss")
    assert len(values) == 2
    assert math.isnan(values[0]) and values[1] == 108.36
