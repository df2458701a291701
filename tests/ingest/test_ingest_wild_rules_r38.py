"""Reader rules from the thirty-eighth round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read
from written_log import series_values as _vals


def test_scores_grouped_per_output_head_in_a_nested_dict(tmp_path):
    """An evaluation service logging one small dict of scores per output head of the model
    (`Evaluation metrics[v=200]: {'head_a': {'accuracy': 0.71}, 'head_b': {'auc': 0.74}}`) behind a
    logger's stamp: each line is a row, each score a series."""
    lines = ["[2021-03-01 10:00:00,001] [INFO] [service.py:10:start] evaluation started"]
    for i, (acc, auc) in enumerate([(0.71, 0.74), (0.72, 0.75), (0.735, 0.76)], 1):
        lines.append(f"[2021-03-01 10:0{i}:00,120] [INFO] [service.py:88:done] Evaluation metrics[v={i * 200}]: "
                     f"{{'head_a': {{'accuracy': {acc}}}, 'head_b': {{'auc': {auc}}}}}")
    run = _read(tmp_path, lines)
    assert int(run.meta.get("rows") or 0) == 3
    names = set(run.series)
    acc = next(n for n in names if n.endswith("accuracy"))
    auc = next(n for n in names if n.endswith("auc"))
    assert _vals(run, acc) == [0.71, 0.72, 0.735]
    assert _vals(run, auc) == [0.74, 0.75, 0.76]


def test_loss_name_with_its_value_glued_on(tmp_path):
    """A hand-written epoch print that forgot the separator after the loss's name
    (` epoch 3,  mean_loss0.0253, test HR@10: 0.31`): the number after `mean_loss` is the loss."""
    rows = [(1, "0.130139", 0.32), (2, "0.0528188", 0.33), (3, "0.0253366", 0.31), (4, "1.2e-03", 0.30)]
    lines = [f" epoch {e},  mean_loss{loss}, test HR@10: {hr}" for e, loss, hr in rows]
    run = _read(tmp_path, lines)
    assert int(run.meta.get("rows") or 0) == 4
    assert _vals(run, "loss") == [0.130139, 0.0528188, 0.0253366, 0.0012]


def test_table_rows_after_a_bar_that_never_started(tmp_path):
    """A tabular per-epoch print (header, dashed rule, one row per epoch) where each line follows a
    progress bar drawn at 0 of N and never finished (`  0%|          | 0/40 [00:00<?, ?it/s]      2  ...`):
    the bar is no part of the line, the header and the rows are read as the table."""
    bar = "  0%|          | 0/40 [00:00<?, ?it/s]"
    lines = [
        "Loading weights: done",
        bar + "  epoch    train_loss      lr      dur",
        "-------  ------------  ------  -------",
        "      1        0.5210  0.0003  9.1200",
        bar + "      2        0.2104  0.0003  8.4410",
        bar + "      3        0.0911  0.0002  8.2001",
    ]
    run = _read(tmp_path, lines)
    assert int(run.meta.get("rows") or 0) == 3
    assert _vals(run, "loss") == [0.521, 0.2104, 0.0911]
    assert _vals(run, "learning_rate") == [0.0003, 0.0003, 0.0002]


def test_one_iteration_line_does_not_pin_every_epoch_to_its_step(tmp_path):
    """A trainer that heads each epoch (`Training epoch: 2`, `Eval epoch: 2`) and prints per-epoch means,
    with a single `Iter 0 Done. | loss: ... | lr: ...` line at the start: that one iteration count is
    no axis for the whole log, the later lines sit at their epochs."""
    lines = ["Training epoch: 0", "\tIter 0 Done. | loss: 1.3100 | lr: 0.010000", "\tmean_loss: 1.20", "Done."]
    for e, (m, top1) in enumerate([(1.02, 41.0), (0.91, 0), (0.80, 55.5)], 1):
        lines += [f"Training epoch: {e}", f"\tmean_loss: {m}", "Done."]
        if top1:
            lines += [f"Eval epoch: {e}", f"\tmean_loss: {m + 0.1:.2f}", f"\tTop1: {top1}%", "Done."]
    run = _read(tmp_path, lines)
    assert run.meta.get("step_axis") == "epoch"
    ev = run.get("eval/accuracy")
    assert [float(s) for s in ev.steps] == [1.0, 3.0]
    means = "mean_loss" if "mean_loss" in run.series else "loss"
    assert [float(s) for s in run.get(means).steps] == [0.0, 1.0, 2.0, 3.0]


def test_layer_listing_rows_with_module_paths_are_no_metrics(tmp_path):
    """A detector's model summary printed before training: one row per layer with its index, where its input
    comes from, a repeat count, a parameter count, the layer's class as a module path and its arguments
    (`  2   -1  1   4800  models.common.C3   [32, 32, 1]`). None of it is a metric; the epoch lines after it are."""
    lines = ["                 from  n    params  module                                  arguments"]
    layers = [("-1", 1, 1760, "models.common.Conv", "[3, 16, 6, 2, 2]"),
              ("-1", 1, 4672, "models.common.Conv", "[16, 32, 3, 2]"),
              ("-1", 1, 4800, "models.common.C3", "[32, 32, 1]"),
              ("-1", 1, 0, "torch.nn.modules.upsampling.Upsample", "[None, 2, 'nearest']"),
              ("[-1, 2]", 1, 0, "models.common.Concat", "[1]")]
    for i, (src, n, params, mod, args) in enumerate(layers * 3):
        lines.append(f"{i:>3}{src:>17}{n:>3}{params:>10}  {mod:<40}{args}")
    lines.append("Model Summary: 5 layers, 11232 parameters, 11232 gradients")
    for e, loss in enumerate([0.91, 0.72, 0.60], 1):
        lines.append(f"epoch {e} loss: {loss}")
    run = _read(tmp_path, lines)
    assert not any("models" in name or "Conv" in name for name in run.series)
    assert int(run.meta.get("rows") or 0) == 3
    assert _vals(run, "loss") == [0.91, 0.72, 0.6]


def test_log_pasted_with_its_line_numbers(tmp_path):
    """A console excerpt copied from a viewer that numbers its lines (`310       Epoch    GPU_mem ...`,
    ` 311      40/100   6.1G   1.21 ...`): every line starts with a count one more than the line before,
    headers and blank lines included. The counts are the paste's, the epochs and values are the run's."""
    body = []
    for e, (box, p) in enumerate([(1.31, 0.52), (1.22, 0.58), (float("nan"), 0.58)], 40):
        box_s = "nan" if box != box else f"{box}"
        body += ["      Epoch    GPU_mem   box_loss   cls_loss  Instances       Size",
                 f"     {e}/100      6.1G   {box_s:>8}   {box_s:>8}         12        640: 100%| 50/50 [00:30<00:00,  1.6it/s]",
                 "                 Class     Images  Instances      Box(P          R      mAP50  mAP50-95): 100%| 9/9",
                 f"                   all        300        410      {p}      0.411      0.455      0.231",
                 ""]
    lines = [f"{310 + i:>4} {line}" for i, line in enumerate(body)]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/precision") == [0.52, 0.58, 0.58]
    assert [float(s) for s in run.get("eval/precision").steps] == [40.0, 41.0, 42.0]
    assert not any(name in ("G", "all") for name in run.series)


def test_numbered_lines_that_all_hold_values_keep_their_count(tmp_path):
    """`1 loss 0.52`, `2 loss 0.48`, ...: a count on every line and values after each: the count may be the
    step, so it is no paste numbering to drop."""
    lines = [f"{i} loss {v}" for i, v in enumerate([0.52, 0.48, 0.44, 0.41, 0.39], 1)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.52, 0.48, 0.44, 0.41, 0.39]
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_sentence_that_a_metric_never_reached_a_mark_is_no_value(tmp_path):
    """A callback's closing message after an epoch table (`*alert* Accuracy never reached 0.9 :(`): the
    number is the mark the callback watched for, never a measured accuracy."""
    lines = ["  epoch    train_loss    valid_acc    valid_loss     dur",
             "-------  ------------  -----------  ------------  ------"]
    for e, (tl, va, vl) in enumerate([(0.69, 0.61, 0.68), (0.67, 0.63, 0.66), (0.65, 0.66, 0.64)], 1):
        lines.append(f"{e:>7}        {tl:.4f}       {va:.4f}        {vl:.4f}  0.0210")
    lines += ["~" * 40, "*alert* Accuracy never reached 0.9 :( #training", "~" * 40]
    run = _read(tmp_path, lines)
    assert int(run.meta.get("rows") or 0) == 3
    assert _vals(run, "eval/accuracy") == [0.61, 0.63, 0.66]
    assert all(len(run.get(name).values) == 3 for name in run.series)
