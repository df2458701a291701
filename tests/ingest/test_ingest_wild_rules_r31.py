"""Reading rules for print styles met in real logs (round 31): each log is written here in the style
the rule is about."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_classification_report_rows_are_no_records(tmp_path):
    """scikit-learn's `classification_report` printed after the epoch lines: a row per class, then
    `accuracy`, `macro avg` and `weighted avg`. Its accuracy row is no training accuracy and adds no
    point: the epoch lines' `train_acc` stays the run's accuracy, and the epoch lines after the report
    are read again."""
    lines = [f"[run] epoch {e}: train_loss={1.0 / (e + 1):.4f} train_acc={0.6 + 0.05 * e:.3f} val_acc={0.7 + 0.02 * e:.3f}"
             for e in range(4)]
    lines += [
        "              precision    recall  f1-score   support",
        "",
        "         cat       0.80      0.40      0.53        10",
        "   stop sign       0.00      0.00      0.00         0",
        "       horse       0.91      0.95      0.93       120",
        "",
        "    accuracy                           0.88       130",
        "   macro avg       0.57      0.45      0.49       130",
        "weighted avg       0.90      0.88      0.88       130",
        "[run] epoch 4: train_loss=0.1500 train_acc=0.800 val_acc=0.790",
    ]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5
    assert _vals(run, "accuracy") == [0.6, 0.65, 0.7, 0.75, 0.8]
    assert [float(s) for s in run.get("loss").steps] == [0.0, 1.0, 2.0, 3.0, 4.0]  # (read again after it)
    assert len(_vals(run, "eval/accuracy")) == 5
    assert "train_acc" not in run.series


def test_bracketed_step_heading_over_indented_value_lines(tmp_path):
    """`[Step 10/11940] [Epoch 0/30]  [nyudv2]` (each counter in its own bracket, then the data set's tag)
    heads tab-indented lines of several values each: those lines are at the heading's step."""
    lines = []
    for step, loss in ((10, 14.9), (20, 14.2), (30, 13.8)):
        lines += [f"[Step {step}/11940] [Epoch 0/30]  [nyudv2]",
                  f"\t\tloss: {loss},    time: 0.395,    eta: 1:18:39",
                  f"\t\tmetric_loss: {loss / 3:.3f}, \t\tnormal_loss: {loss / 2:.3f}, \t\tabs_rel: 0.000000, ",
                  "\t\tgroup0_lr: 0.009993,       group1_lr: 0.009993, "]
    run = _read(tmp_path, lines)
    assert run.meta["step_axis"] == "explicit"
    assert [float(s) for s in run.get("loss").steps] == [10.0, 20.0, 30.0]
    assert _vals(run, "loss") == [14.9, 14.2, 13.8]
    assert [float(s) for s in run.get("metric_loss").steps] == [10.0, 20.0, 30.0]


def test_plain_step_heading_over_lines_of_several_values(tmp_path):
    """`Iteration 500` alone on a line, then lines of several pairs each with no counter of their own:
    the heading's count is their step (as an `Epoch 3` heading gives them its epoch)."""
    lines = []
    for it in (500, 1000, 1500):
        lines += [f"Iteration {it}",
                  f"  loss: {3000 / it:.3f}, acc: {0.5 + it / 10000:.3f}",
                  "  grad_norm: 1.5, lr: 0.001"]
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("loss").steps] == [500.0, 1000.0, 1500.0]
    assert [float(s) for s in run.get("grad_norm").steps] == [500.0, 1000.0, 1500.0]


def test_tensorflow_variable_listing_is_no_metric(tmp_path):
    """TF 1.x estimators list the graph's variables (`INFO:absl:  name = crf_loss/transitions:0, shape = (9, 9)`):
    a name with `loss` in it and a shape are no loss value, whatever the listing holds."""
    lines = ["INFO:absl:**** Trainable Variables ****",
             "INFO:absl:  name = bert/embeddings/word_embeddings:0, shape = (30522, 768), *INIT_FROM_CKPT*",
             "INFO:absl:  name = bert/pooler/dense/bias:0, shape = (768,), *INIT_FROM_CKPT*",
             "INFO:absl:  name = crf_loss/transitions:0, shape = (9, 9)"]
    lines += [f"INFO:tensorflow:loss = {2.0 - 0.1 * i:.2f}, step = {100 * i}" for i in range(1, 6)]
    run = _read(tmp_path, lines)
    assert not any("crf" in name or name == "shape" for name in run.series)
    assert _vals(run, "loss") == [1.9, 1.8, 1.7, 1.6, 1.5]


def test_tensorflow_device_memory_is_no_metric(tmp_path):
    """TF 1.x describes each GPU it finds over several lines, one of them `totalMemory: 31.75GiB
    freeMemory: 31.44GiB`: the card's size, not memory the run used."""
    lines = ["2021-09-06 13:36:34.564767: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1432] "
             "Found device 0 with properties: ",
             "name: Tesla V100-SXM2-32GB major: 7 minor: 0 memoryClockRate(GHz): 1.53",
             "pciBusID: 0000:00:08.0",
             "totalMemory: 31.75GiB freeMemory: 31.44GiB"]
    lines += [f"step {10 * i}: loss = {1.0 / i:.3f}" for i in range(1, 6)]
    run = _read(tmp_path, lines)
    assert "memory" not in run.series and "freeMemory" not in run.series
    assert len(_vals(run, "loss")) == 5


def test_conlleval_summary_is_an_evaluation(tmp_path):
    """conlleval's output alone in a log: `processed N tokens with M phrases; ...` then
    `accuracy:  69.18%; precision:   0.00%; recall:   0.00%; FB1:   0.00`. The scores are an evaluation's
    (the script compares predicted tags with the gold ones); FB1 is the F1 score."""
    lines = ["***** Running prediction *****",
             "processed 2330 tokens with 0 phrases; found: 0 phrases; correct: 0.",
             "accuracy:  69.18%; precision:   0.00%; recall:   0.00%; FB1:   0.00"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    assert _vals(run, "eval/accuracy") == [69.18]
    assert _vals(run, "eval/f1") == [0.0]
    assert "accuracy" not in run.series
