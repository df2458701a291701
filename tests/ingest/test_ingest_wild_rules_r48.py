"""Reading rules for printed styles met in real training logs (round 48)."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_direction_arrow_inside_a_metric_name(tmp_path):
    """Style: a translation run that validates both directions and writes each with an arrow between
    the two sides (`epoch=3, NMT en->fr valid_bleu=21.4`): the arrow belongs to the name, and each
    direction is its own series."""
    lines = []
    for ep, (x, y) in enumerate([(18.2, 16.0), (20.1, 17.5), (21.4, 18.3)], start=1):
        lines += [f"INFO:root:epoch={ep}", f"INFO:root:epoch={ep}, NMT en->fr valid_bleu={x}",
                  f"INFO:root:epoch={ep}, NMT fr->en valid_bleu={y}"]
    run = _read(tmp_path, lines)
    names = sorted(run.series)
    assert len(names) == 2, names
    fwd = next(n for n in names if "en-fr" in n)
    back = next(n for n in names if "fr-en" in n)
    assert _vals(run, fwd) == [18.2, 20.1, 21.4]
    assert _vals(run, back) == [16.0, 17.5, 18.3]
    assert [float(s) for s in run.get(fwd).steps] == [1.0, 2.0, 3.0]


def test_padded_source_line_number_is_no_step(tmp_path):
    """Style: a logger that writes the file and the padded line number of the call before the message
    (`[03/02 10:00:01][INFO] trainer.py:  212: loss: 1.9, lr: 0.01`, or `[INFO: trainer.py:  212]:`):
    the line number is where the call sits in the source, the same on every line, never a step."""
    run = _read(tmp_path, [
        "[03/02 10:00:01][INFO] trainer.py:  212: loss: 1.90, lr: 0.01",
        "[03/02 10:00:09][INFO] trainer.py:  212: loss: 1.70, lr: 0.01",
        "[INFO: trainer.py:  212]: loss: 1.50, lr: 0.01",
        "[INFO: trainer.py:  212]: loss: 1.40, lr: 0.01",
    ])
    assert _vals(run, "loss") == [1.9, 1.7, 1.5, 1.4]


def test_dict_counters_quoted_with_their_totals(tmp_path):
    """Style: a JSON stats line whose epoch and iteration are strings holding the count and its total
    (`json_stats: {"_type": "train_iter", "epoch": "2/40", "iter": "30/120", "loss": 1.2}`): the
    iteration counts batches within the epoch, so each record keeps its own place."""
    lines = []
    for ep, it, loss in [(2, 30, 1.25), (2, 60, 1.20), (3, 30, 1.10), (3, 60, 1.05)]:
        lines.append(f'[05/01 09:00:{it:02d}][INFO] logging.py:   99: json_stats: {{"_type": "train_iter", '
                     f'"epoch": "{ep}/40", "iter": "{it}/120", "loss": {loss}, "lr": 0.1}}')
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.25, 1.2, 1.1, 1.05]
    steps = [float(s) for s in run.get("loss").steps]
    assert steps == sorted(steps) and len(set(steps)) == 4


def test_mxnet_lossvalue_metric_is_the_loss(tmp_path):
    """Style: MXNet's Speedometer printing a metric that reports the loss output itself, named
    `lossvalue` (`Epoch[0] Batch [10]\tSpeed: 120.5 samples/sec\tlossvalue=0.1745`): the training loss."""
    run = _read(tmp_path, [
        f"INFO:root:Epoch[0] Batch [{b}]\tSpeed: {s} samples/sec\tlossvalue={v}"
        for b, s, v in [(10, 120.5, 0.1745), (20, 640.2, 0.0652), (30, 652.9, 0.0591)]
    ])
    assert _vals(run, "loss") == [0.1745, 0.0652, 0.0591]
