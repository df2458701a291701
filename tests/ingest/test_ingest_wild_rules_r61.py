"""Reader rules for print styles met in the wild corpus (round 61): each test writes a log of its own
in the style that asked for the rule."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_heading_with_parenthesised_epoch_then_named_losses(tmp_path):
    """`Model training loss(epoch 2): a_loss: 1.1, b_loss: 0.2, total_loss: 1.3` and its `testing`
    twin: the counter in parentheses is the epoch, and the heading's split word labels the line."""
    lines = []
    for ep in range(3):
        lines.append(f"Net training loss(epoch {ep}): a_loss: {1.2 - ep / 10:.3f}, b_loss: 0.250, "
                     f"total_loss: {1.45 - ep / 10:.3f}")
        lines.append(f"Net testing loss(epoch {ep}): a_loss: {1.3 - ep / 20:.3f}, b_loss: 0.260, "
                     f"total_loss: {1.56 - ep / 20:.3f}")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.45, 1.35, 1.25]
    assert _vals(run, "eval/loss") == [1.56, 1.51, 1.46]
    assert [float(s) for s in run.get("loss").steps] == [0.0, 1.0, 2.0]
    assert not any("epoch" in name.lower() for name in run.series)


def test_split_counter_then_unnamed_loss_and_topk_accuracy(tmp_path):
    """DARTS-family scripts log `train 050 2.030248e+00 24.540441 78.370098`: a split word, the batch
    index, then the running loss in exponent form and the top-1 and top-5 accuracy, none named; the
    pass's closing `train_acc` line, which repeats the top-1 column under that name, stays a row."""
    lines = ["2020-03-01 10:00:00,000 epoch 0 lr 2.500000e-02"]
    for i, (loss, top1, top5) in enumerate([(2.3, 10.5, 50.2), (2.1, 18.25, 61.0), (1.95, 27.0, 72.5)]):
        lines.append(f"2020-03-01 10:0{i + 1}:00,000 train {i * 50:03d} {loss:e} {top1:f} {top5:f}")
    lines.append("2020-03-01 10:04:00,000 train_acc 27.000000")
    lines.append("2020-03-01 10:05:00,000 valid 000 1.900000e+00 30.500000 75.000000")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.3, 2.1, 1.95]
    assert _vals(run, "accuracy")[:3] == [10.5, 18.25, 27.0]
    assert _vals(run, "accuracy_top5") == [50.2, 61.0, 72.5]
    assert _vals(run, "eval/loss") == [1.9]
    assert _vals(run, "eval/accuracy") == [30.5]


def test_shell_traced_command_line_is_no_record(tmp_path):
    """A script run under `set -x` echoes its command with the shell's `+ ` lead (`+ python train.py
    -layers 2 -batch_size 80 -learning_rate 1.0`): the options are settings, not a record."""
    lines = ["+ python train.py -data corpus -layers 2 -rnn_size 512 -batch_size 64 -epochs 10 -learning_rate 1.0",
             "Loading data from 'corpus'"]
    for i in range(1, 4):
        lines.append(f"Epoch  1,   {i * 50:3d}/9000; acc:  {10 + i:5.2f}; ppl: {90 - i * 5:6.2f}; 3000 src tok/s;"
                     f"     {i * 15} s elapsed")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "perplexity") == [85.0, 80.0, 75.0]
    assert "learning_rate" not in run.series and "batch_size" not in run.series


def test_marian_detokenized_bleu_is_validation_bleu(tmp_path):
    """Marian's validation lines name each metric between colons (`[valid] Ep. 1 : Up. 20000 :
    bleu-detok : 7.9485 : new best`): `bleu-detok` is the validation BLEU on detokenized output."""
    lines = ["[2020-01-01 10:00:00] Ep. 1 : Up. 1000 : Sen. 64,000 : Cost 5.10000000 : Time 100.00s : "
             "9000.00 words/s : L.r. 3.0000e-04",
             "[2020-01-01 10:01:00] [valid] Ep. 1 : Up. 1000 : cross-entropy : 120.5 : new best",
             "[2020-01-01 10:02:00] [valid] Ep. 1 : Up. 1000 : bleu-detok : 3.2500 : new best"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/bleu") == [3.25]
    assert _vals(run, "loss") == [5.1]


def _marian_valid(up, name, value, note):
    return f"[2020-01-01 10:00:00] [valid] Ep. 1 : Up. {up} : {name} : {value} : {note}"


def test_early_stopping_stalled_count_is_no_metric(tmp_path):
    """Marian's validation lines end in `: new best` or `: stalled 2 times`: the count of validations
    without improvement is early stopping's bookkeeping, not a measurement."""
    lines = [_marian_valid(u, "perplexity", p, note) for u, p, note in
             [(1000, 300.5, "new best"), (2000, 250.25, "new best"), (3000, 260.0, "stalled 1 times"),
              (4000, 270.0, "stalled 2 times")]]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/perplexity") == [300.5, 250.25, 260.0, 270.0]
    assert not any("stalled" in name for name in run.series)


def test_one_off_line_of_a_recurring_name_at_a_step_is_a_reading(tmp_path):
    """A line printed once whose one name the log's repeated lines measure, at a step of its own
    (`... Up. 4000 : bleu_script : 0.3 : stalled 1 times` after three `... : bleu_script : 40.1 :
    new best` lines): the trailing note changed the line's shape, not what it is."""
    lines = []
    for up, ce, score in [(1000, 7.1, 20.5), (2000, 6.2, 35.0), (3000, 6.0, 40.25)]:
        lines.append(_marian_valid(up, "ce-mean-words", ce, "new best"))
        lines.append(_marian_valid(up, "bleu_script", score, "new best"))
    lines.append(_marian_valid(4000, "ce-mean-words", 6.8, "stalled 1 times"))
    lines.append(_marian_valid(4000, "bleu_script", 0.3, "stalled 1 times"))
    run = _read(tmp_path, lines)
    assert [float(v) for v in run.get("eval/bleu_script").values] == [20.5, 35.0, 40.25, 0.3]

