"""Line-shape rules the wild corpus asked for (ninth round of review), each tried on a short log
written for the test in the style of the prints that needed it."""

from __future__ import annotations

import math

from triage.ingest import read_run
from written_log import read_written as _read


def test_a_round_counter_before_a_tab_is_the_step_not_a_rank(tmp_path):
    """Gradient-boosting verbose output (`12:\\tlearn: 0.51\\ttest: 0.55\\ttotal: 1.2s`, or the tab
    expanded to spaces in a paste): the leading number is the boosting round, unlike srun's `0: `
    rank label, which has a single blank after it."""
    lines = [f"{r}:\tlearn: {0.9 - r / 1000:.4f}\ttest: {0.95 - r / 2000:.4f}\ttotal: {r / 10:.1f}ms\tremaining: 5s"
             for r in range(0, 500, 100)]
    run = _read(tmp_path, lines)
    learn = run.get("learn")
    assert learn is not None and list(learn.steps) == [0, 100, 200, 300, 400]
    spaced = _read(tmp_path, [ln.replace("\t", "      ") for ln in lines], name="pasted.log")
    assert list(spaced.get("learn").steps) == [0, 100, 200, 300, 400]


def test_srun_rank_label_with_one_blank_is_still_a_prefix(tmp_path):
    """srun --label output (`0: step 3 loss 1.2`): the number and one blank are the task's label."""
    run = _read(tmp_path, [f"0: step {s} loss {2.0 - s / 10:.2f}" for s in range(1, 6)])
    assert list(run.get("loss").steps) == [1, 2, 3, 4, 5]


def test_a_full_stop_after_a_values_unit_ends_the_sentence_before_the_next_key(tmp_path):
    """`epoch 3/30 using 598.6s. lr=0.00025`: the `s.` is the duration's unit and a full stop, so
    the next key is `lr`, not `s. lr`."""
    lines = []
    for ep in range(1, 5):
        lines.append(f"epoch {ep}/30 using {590 + ep}.5s. lr=0.000250033")
        lines.append(f"Epoch {ep} done in {12 + ep}.5s. loss={1.0 / ep:.3f}")
    run = _read(tmp_path, lines)
    lr = run.get("learning_rate")
    assert lr is not None and math.isclose(lr.values[0], 0.000250033)
    assert run.get("loss") is not None and math.isclose(run.get("loss").values[-1], 0.25)


def test_a_counter_name_glued_to_its_number_opens_the_line(tmp_path):
    """`epoch0, iter10, loss: 0.71` (an f-string with no blank between the name and the count): the
    epoch and the iteration are counters, and the key is `loss`, not `epoch0 loss`."""
    lines = [f"epoch{ep}, iter{it}, loss: {1.0 - ep / 10 - it / 1000:.4f}" for ep in range(3) for it in range(0, 40, 10)]
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert loss is not None and len(loss.values) == 12
    assert sorted(set(loss.steps)) == list(loss.steps)  # the iteration counts again each epoch: steps still rise
    one = _read(tmp_path, [f"Epoch{ep} loss: {2.0 / ep:.3f}" for ep in range(1, 5)], name="one.log")
    assert list(one.get("loss").steps) == [1, 2, 3, 4]


def test_a_starting_verb_before_a_phase_name_is_still_a_heading(tmp_path):
    """`Validating without train` opens an evaluation; `Starting train loop` turns back to training,
    so the loss lines printed after it are training's, not the evaluation's."""
    lines = ["Validating without train", "epoch 0, pix_acc: 0.01, meanIoU: 0.002", "Starting train loop"]
    lines += [f"epoch 0, iter {it}, loss: {0.7 - it / 1000:.4f}" for it in range(0, 50, 10)]
    run = _read(tmp_path, lines)
    assert run.get("loss") is not None and len(run.get("loss").values) == 5
    assert run.get("eval/loss") is None


def test_an_optimizers_printed_parameter_group_is_settings(tmp_path):
    """`print(optimizer)` each epoch (`RMSprop (` / `Parameter Group 0` / `    lr: 0.0001` ... `)`):
    the group's entries are settings, however often the repr is printed."""
    lines = []
    for ep in range(3):
        lines += ["RMSprop (", "Parameter Group 0", "    alpha: 0.99", "    eps: 1e-08", "    lr: 0.0001",
                  "    momentum: 0", "    weight_decay: 1e-05", ")"]
        lines += [f"epoch {ep} step {ep * 10 + s} loss: {1.0 / (ep * 10 + s + 1):.4f}" for s in range(3)]
    run = _read(tmp_path, lines)
    assert run.get("loss") is not None and len(run.get("loss").values) == 9
    assert run.get("learning_rate") is None and run.get("weight_decay") is None


def test_a_json_report_reads_its_one_list_of_epoch_records(tmp_path):
    """A run report saved as one JSON object (`{"seed": 42, "best": {...}, "epochs": [{"epoch": 1,
    "train_loss": ..., "dev_loss": ...}, ...]}`): the list of epoch records is the history, and the
    best-scores object beside it is no row of its own."""
    import json

    doc = {"seed": 7, "mode": "none", "best": {"accuracy": 0.61, "auc": 0.66, "epoch": 3},
           "epochs": [{"epoch": ep, "train_loss": 1.0 / ep, "dev_loss": 1.2 / ep, "dev_auc": 0.5 + ep / 100}
                      for ep in range(1, 6)]}
    p = tmp_path / "report.json"
    p.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    run = read_run(p)
    assert len(run.get("loss").values) == 5 and len(run.get("eval/loss").values) == 5
    assert list(run.get("loss").steps) == [1, 2, 3, 4, 5]


def test_a_keras_evaluate_bar_after_the_last_epoch_keeps_that_epochs_values(tmp_path):
    """Keras `fit()` then `model.evaluate()`: the evaluate bar (`313/313 ... - loss: 0.10 - accuracy:
    0.97`, its own batch count, no val_ keys) is the test set's result; the last epoch's bar
    (`1563/1563 ...`) keeps its training and validation values."""
    bar = "━" * 20
    lines = []
    for ep, (loss, val) in enumerate([(0.38, 0.13), (0.11, 0.09)], 1):
        lines += [f"Epoch {ep}/2", f"1563/1563 {bar} 2s 1ms/step - loss: {loss:.4f} - accuracy: 0.9{ep} "
                  f"- val_loss: {val:.4f} - val_accuracy: 0.96"]
    lines.append(f"313/313 {bar} 0s 649us/step - loss: 0.1039 - accuracy: 0.9681")
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [0.38, 0.11]
    assert list(run.get("eval/loss").values) == [0.13, 0.09]
    assert any(name.endswith("loss") and math.isclose(s.values[-1], 0.1039)
               for name, s in run.series.items() if name not in ("loss", "eval/loss"))
