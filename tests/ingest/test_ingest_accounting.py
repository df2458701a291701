"""Every line of a printed log is accounted for: a row, an event, a setting, prose, counters, or a line counted
as skipped with its reason (bench/dropped.py audits this over whole corpora; these logs are made up here, in
several print styles, none copied from a real log)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from triage.ingest import read_run
from triage.ingest import textlog

_BENCH = Path(__file__).resolve().parents[2] / "bench" / "dropped.py"


@pytest.fixture(scope="module")
def audit():
    spec = importlib.util.spec_from_file_location("bench_dropped", _BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_PIPES = """\
2024-05-01 10:00:00 INFO Starting training
seed: 42
Model(
  (encoder): Linear(in_features=128, out_features=64, bias=True)
  (dropout): Dropout(p=0.1, inplace=False)
)
step 10 | loss 2.301 | lr 1.0e-04
step 20 | loss 2.114 | lr 1.0e-04
step 30 | loss 1.987 | lr 1.0e-04
Train - Total: 1.99, Surface: 1.20, Upper Air: 0.79
step 40 | loss 1.850 | lr 1.0e-04
epoch 1 took 12.5s, speed: 0.31s/iter
step 50 | loss 1.701 | lr 1.0e-04
New best accuracy: 0.61, saving model
Traceback (most recent call last):
  File "train.py", line 12, in <module>
    loss = step(batch)
RuntimeError: CUDA out of memory
"""

_BLOCKS = """\
==== Epoch 1 ====
train_loss: 0.912
train_acc: 0.55
==== Epoch 2 ====
train_loss: 0.701
train_acc: 0.63
Expected: 0.032 Actual: 0.014
==== Epoch 3 ====
train_loss: 0.644
train_acc: 0.68
0.52 0.61 0.66
Done.
"""

_BARS = """\
Epoch 1/3
 1/20 [>.............................] - ETA: 9s - loss: 1.2000 - accuracy: 0.3000
10/20 [==============>...............] - ETA: 4s - loss: 1.0500 - accuracy: 0.4100
20/20 [==============================] - 8s 400ms/step - loss: 0.9800 - accuracy: 0.4500 - val_loss: 1.0100 - val_accuracy: 0.4400
Epoch 2/3
 1/20 [>.............................] - ETA: 9s - loss: 0.9000 - accuracy: 0.5000
20/20 [==============================] - 8s 400ms/step - loss: 0.8100 - accuracy: 0.5600 - val_loss: 0.9000 - val_accuracy: 0.5200
Epoch 3/3
20/20 [==============================] - 8s 400ms/step - loss: 0.7000 - accuracy: 0.6200 - val_loss: 0.8500 - val_accuracy: 0.5800
"""

_EQUALS = """\
[rank0] iter=100 loss=3.10 grad_norm=1.2 tokens/s=5120
[rank0] iter=200 loss=2.80 grad_norm=1.1 tokens/s=5180
[rank0] gpu_mem_reserved=23.5GB free=1.2GB
[rank0] iter=300 loss=2.61 grad_norm=0.9 tokens/s=5160
[rank0] checkpoint written to ckpt_300.pt
[rank0] iter=400 loss=2.47 grad_norm=0.9 tokens/s=5175
"""


# a settings block printed before training, some of its names unknown to the alias table (the block spans them), and
# a block of scores that the dict printed after it repeats
_SETTINGS_BLOCK = """\
Optimizer group 0:
    lr: 0.02
    momentum: 0.95
    dampening: 0
    weight_decay: 0.0001
    nesterov: False
step 10 | loss 2.301 | lr 2.0e-02
step 20 | loss 2.114 | lr 2.0e-02
step 30 | loss 1.987 | lr 2.0e-02
Other metrics:
   num_tokens: 10813.0000
   completions/mean_length: 53.3500
   completions/min_length: 35.3000
{'loss': 1.85, 'num_tokens': 10813.0, 'completions/mean_length': 53.35, 'completions/min_length': 35.3, 'epoch': 0.1}
step 40 | loss 1.850 | lr 2.0e-02
"""


@pytest.mark.parametrize("name,text", [("pipes.log", _PIPES), ("blocks.log", _BLOCKS), ("bars.log", _BARS),
                                       ("equals.log", _EQUALS), ("settings_block.log", _SETTINGS_BLOCK)])
def test_no_line_is_dropped_silently(audit, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    fmt, outcomes, trace = audit.audit_file(path)
    silent = [trace.lines[ln - 1] for ln, what in outcomes.items() if what in ("silent", "dropped?")]
    assert silent == []
    assert "row" in outcomes.values()  # (the log's records are read, not counted away)


def test_unread_values_are_counted_by_what_they_are(tmp_path):
    path = tmp_path / "pipes.log"
    path.write_text(_PIPES, encoding="utf-8")
    run = read_run(path)
    skipped = run.meta["skipped"]
    assert skipped.get(textlog._UNREAD_STRUCTURE) == 2  # the two layers of the model's repr
    assert skipped.get(textlog._BEST_SKIP) == 1  # `New best accuracy: 0.61, saving model`
    assert skipped.get(textlog._UNREAD_NAMED, 0) >= 1  # `Train - Total: 1.99, ...`: names no metric
    assert run.get("loss").values.tolist() == [2.301, 2.114, 1.987, 1.850, 1.701]


def test_lines_of_numbers_and_messages_are_counted(tmp_path):
    path = tmp_path / "blocks.log"
    path.write_text(_BLOCKS, encoding="utf-8")
    skipped = read_run(path).meta["skipped"]
    assert skipped.get(textlog._UNREAD_NUMBERS) == 1  # `0.52 0.61 0.66`: no names, no header
    assert skipped.get(textlog._UNREAD_NAMED) == 1  # `Expected: 0.032 Actual: 0.014`


@pytest.mark.parametrize("line,kind", [
    ("Loading data from /data/train.jsonl", "prose"),
    ("Using 4 GPUs", "prose"),  # (no `:`/`=` and no metric name before the number)
    ("torch: 2.1.0, python 3.10", "prose"),  # (versions are no numbers)
    ("Saved model_3.pth at 2024-05-01 12:00:00", "prose"),  # (a file's name, a date and a clock time)
    ("Training:  24%|██▎       | 103/435 [00:31<56:25, 10.20s/it]", "prose"),  # (a bar's own parts)
    ("Epoch 3/10", "counters"),
    ("begin training epoch 3", "counters"),
    ("step: 120, global_step=120", "counters"),
    ("loss 2.31", "values"),  # (a metric the alias table knows, then its number)
    ("Total: 1.99, Surface: 1.20", "values"),
    ("eps=1e-05 momentum=0.1", "values"),
    ("Epoch 1: 100%|███| 10/10 [00:01<00:00, 9.1it/s, loss=0.5]", "values"),  # (the bar's postfix)
    ("0.52  0.61  0.66", "values"),  # (a row of numbers)
    ("loss: nan", "values"),
])
def test_classification(audit, line, kind):
    assert audit.classify_line(line) == kind


def test_account_outcomes(audit):
    from triage.ingest.linetrace import LineTrace

    t = LineTrace()
    t.lines = ["step 1 loss 2.0", "", "Namespace(lr=0.1)", "lr: 0.1", "seed: 3", "some words", "epoch 2",
               "Traceback (most recent call last):", "x = 1"]
    t.rows = [1]
    t.skips = {3: ["a setting"]}
    t.settings = {4}
    t.events = {8, 9}
    out = audit.account(t)
    assert out == {1: "row", 3: "skipped", 4: "settings", 5: "silent", 6: "prose", 7: "counters", 8: "event",
                   9: "event"}


_TOTALS = """\
Epoch 1/3
  Train - Total: 2.500000, Sea: 1.250000, Land: 1.250000
  Valid - Total: 2.000000, Sea: 1.100000, Land: 0.900000
Epoch 2/3
  Train - Total: 1.800000, Sea: 1.000000, Land: 0.800000
  Valid - Total: 1.700000, Sea: 0.950000, Land: 0.750000
Epoch 3/3
  Train - Total: 1.500000, Sea: 0.800000, Land: 0.700000
  Valid - Total: 1.650000, Sea: 0.900000, Land: 0.750000
"""


def test_a_total_that_sums_its_unnamed_parts_is_the_loss(tmp_path):
    path = tmp_path / "totals.log"
    path.write_text(_TOTALS, encoding="utf-8")
    run = read_run(path)
    assert run.get("loss").values.tolist() == [2.5, 1.8, 1.5]
    assert run.get("eval/loss").values.tolist() == [2.0, 1.7, 1.65]


@pytest.mark.parametrize("line", [
    "Train - Total: 2.5, Sea: 1.0, Land: 1.0",  # (the parts do not add up to it)
    "Train - Total: 12.5, Data: 2.5, Compute: 10.0",  # (a pass's time split in its phases)
    "Train - Total: 3.5, loss_cls: 1.5, loss_box: 2.0",  # (parts that are metrics of their own)
    "Test: Total: 10, Correct: 7, Wrong: 3",  # (counts, no loss)
])
def test_a_total_is_no_loss_otherwise(line):
    from triage.ingest import printed

    assert "loss:" not in printed.clean(line)
