"""Reading rules the wild3 collection asked for (fourth round), each on a small synthetic log in the
style of the prints that needed it (never a copy of one)."""

from __future__ import annotations

import math

import pytest

from triage.ingest import printed
from triage.ingest.aliases import table
from written_log import read_written as _read


@pytest.mark.parametrize("text, want", [
    ("1.#QNAN000", "nan"), ("-1.#IND", "nan"), ("1.#INF00", "inf"), ("-1.#INF", "-inf"), ("1.#SNAN", "nan"),
])
def test_the_msvc_runtime_spellings_of_nan_and_infinity(text, want):
    """Windows C runtimes print NaN as `1.#QNAN` / `-1.#IND` and infinity as `1.#INF`: never 1.0."""
    got = printed.to_number(text)
    assert (math.isnan(got) and want == "nan") or got == float(want)


def test_an_msvc_nan_in_a_printed_log_is_a_nan_loss(tmp_path):
    lines = [f"Epoch[1 of 1]-Minibatch[{i}]: SamplesSeen = 500; loss = {v}; TotalTime = 2.1s"
             for i, v in ((1, "2.5"), (2, "2.25"), (3, "1.#QNAN000"))]
    loss = _read(tmp_path, lines).get("loss")
    assert loss is not None and math.isnan(loss.values[-1]) and loss.values[0] == 2.5


@pytest.mark.parametrize("key, name", [
    ("TrainLossPerSample", "loss"),      # CamelCase with a `per <unit>` tail
    ("loss per token", "loss"),
    ("Tot Loss", "loss"),                # `tot` abbreviates total
    ("Mean Training loss", "loss"),      # a modifier before the split word
    ("Mean Val loss", "eval/loss"),
    ("Accu", "accuracy"),
])
def test_more_spellings_of_loss_and_accuracy(key, name):
    assert table().resolve(key).name == name


def test_per_alone_is_not_cut(tmp_path):
    assert table().resolve("per_device_train_batch_size").name != "per"


def test_a_split_named_alone_is_its_loss_only_when_nothing_else_is(tmp_path):
    """`<step> train <loss>` / `<step> val <loss>` (nothing else names a loss) keep their reading."""
    lines = [f"{s} train {3.0 - s / 100:.4f}" for s in range(0, 50, 10)] + ["40 val 2.7"]
    run = _read(tmp_path, lines)
    assert run.get("loss") is not None and run.get("eval/loss") is not None


def test_a_split_named_alone_beside_the_loss_is_that_splits_score(tmp_path):
    """`Epoch 3, Loss: 1.42` then `Train: 0.55, Val: 0.53, Test: 0.47`: the bare splits score each
    split (accuracy), never a second loss; `Val: 61.3%` likewise."""
    lines = []
    for ep in range(1, 5):
        lines += [f"Epoch {ep:02d}, Loss: {2.0 - ep / 10:.4f}", f"Train: {0.5 + ep / 100:.4f}, Val: {0.48 + ep / 100:.4f}, Test: {0.45 + ep / 100:.4f}"]
    run = _read(tmp_path, lines)
    assert run.get("eval/loss") is None
    assert run.get("eval/accuracy") is not None and math.isclose(run.get("eval/accuracy").values[0], 0.49)
    assert run.get("loss") is not None and math.isclose(run.get("loss").values[0], 1.9)
    pct = _read(tmp_path, [line for ep in range(1, 5) for line in (f"Epoch {ep:02d}, Loss: {2.0 - ep / 10:.4f}", f"Val: {60 + ep}.31%,")],
                name="pct.log")
    assert pct.get("eval/loss") is None and pct.get("eval/accuracy") is not None


def test_a_running_bar_whose_description_counts_steps_is_a_record_per_step(tmp_path):
    """`Training Epoch: 1/3, step 10/36 completed (loss: 0.52):  33%|███| 3/9 [03:17<06:31, 65.28s/it]`:
    the description names its own step and loss; the bar's 3/9 is neither."""
    lines = [f"Training Epoch: 1/3, step {s}/36 completed (loss: {1.0 / s:.4f}):  33%|█████     | 3/9 [03:17<06:31, 65.28s/it]"
             for s in range(10, 16)]
    loss = _read(tmp_path, lines).get("loss")
    assert loss is not None and list(loss.steps) == [10, 11, 12, 13, 14, 15]
    assert math.isclose(loss.values[0], 0.1)


def test_a_running_bar_whose_description_only_names_the_epoch_is_no_record(tmp_path):
    lines = [f"Epoch 3 loss 0.52:  {p}%|███     | {p}/100 [00:10<00:20, 2.1it/s]" for p in range(10, 60, 10)]
    run = _read(tmp_path, lines + ["Epoch 3 done, loss 0.50"])
    loss = run.get("loss")
    assert loss is not None and len(loss) == 1


def test_one_line_that_names_an_evaluation_metric_by_its_key_is_a_result(tmp_path):
    """`val_categorical_accuracy: 0.352` alone (a tuner's trial summary) is a measurement; a lone
    `eval_epochs: 2000` is a setting."""
    run = _read(tmp_path, ["Trial 3 Complete [00h 00m 28s]", "val_categorical_accuracy: 0.352", "",
                           "Total elapsed time: 00h 01m 27s"])
    assert run.get("eval/accuracy") is not None and math.isclose(run.get("eval/accuracy").values[0], 0.352)
    setting = _read(tmp_path, ["train_epochs:  100000", "eval_epochs:  2000"], name="cfg.txt")
    assert not setting.series


def test_a_darknet_training_line_is_read_by_its_layout(tmp_path):
    """` 174: 933.34, 780.75 avg loss, 0.000000 rate, 3.17 seconds, 11136 images, 17.99 hours left`:
    the iteration is the step, the unnamed value the batch's loss, `rate` the learning rate."""
    lines = [f" {i}: {v}, {v} avg loss, 0.001000 rate, 3.1 seconds, {64 * i} images, 17.9 hours left"
             for i, v in ((174, "933.3"), (175, "971.5"), (176, "-nan"))]
    lines.insert(1, "Loaded: 0.000095 seconds")
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert loss is not None and list(loss.steps) == [174, 175, 176] and math.isnan(loss.values[-1])
    assert run.get("learning_rate").values[0] == 0.001


def test_a_table_whose_header_one_blank_separates(tmp_path):
    """fastai's `epoch train_loss valid_loss error_rate` header, rows with a time cell it does not name."""
    lines = ["Total time: 06:39", "epoch train_loss valid_loss error_rate"]
    lines += [f"{ep} {1.5 - ep / 10:.6f} {1.0 - ep / 20:.6f} {0.5 - ep / 50:.6f} (00:{9 + ep:02d})" for ep in range(1, 6)]
    run = _read(tmp_path, lines)
    assert run.get("loss") is not None and len(run.get("loss")) == 5 and math.isclose(run.get("loss").values[0], 1.4)
    assert run.get("eval/loss") is not None


def test_a_sentence_that_opens_with_an_axis_word_is_no_header(tmp_path):
    run = _read(tmp_path, ["epoch took longer than expected", "step 1 loss 2.0", "step 2 loss 1.9", "step 3 loss 1.8"])
    assert list(run.get("loss").steps) == [1, 2, 3]


def test_a_second_splits_label_mid_line_names_the_keys_after_it(tmp_path):
    """`Training: loss = 1.63, acc = 0.51 | Val: loss = 1.71, acc = 0.47`: one line, two sections."""
    lines = [f"Training: loss = {1.6 - e / 10:.5f}, acc = {0.5 + e / 50:.5f} | Val: loss = {1.7 - e / 20:.5f}, acc = {0.47 + e / 50:.5f}"
             for e in range(5)]
    run = _read(tmp_path, lines)
    assert math.isclose(run.get("loss").values[0], 1.6) and math.isclose(run.get("eval/loss").values[0], 1.7)
    assert math.isclose(run.get("accuracy").values[1], 0.52) and math.isclose(run.get("eval/accuracy").values[1], 0.49)


def test_a_metric_label_names_the_split_named_values_after_it(tmp_path):
    """`Accs: Train: 0.7351, Val: 0.7079, Test: 0.6753`: each split's accuracy, never a loss."""
    lines = [f"Epoch {e}, Time(s): 11.3 6.5, Best Val loss: {0.95 - e / 100:.4f}, Accs: Train: {0.7 + e / 100:.4f}, "
             f"Val: {0.68 + e / 100:.4f}, Test: {0.66 + e / 100:.4f}" for e in range(1, 6)]
    run = _read(tmp_path, lines)
    assert run.get("loss") is None and run.get("eval/loss") is None
    assert math.isclose(run.get("accuracy").values[0], 0.71) and math.isclose(run.get("eval/accuracy").values[0], 0.69)


def test_dev_and_test_lines_at_one_step_are_two_eval_sets(tmp_path):
    """`DEV : loss 0.0388 - acc 0.5586` then `TEST : loss 0.0407 - acc 0.5521` at one epoch: the test
    line keeps its own names instead of overwriting the dev set's."""
    lines = []
    for ep in range(1, 4):
        lines += [f"epoch {ep} - iter {i}/10 - loss {0.05 - ep / 1000 - i / 10000:.8f}" for i in range(1, 4)]
        lines += [f"EPOCH {ep} done: loss {0.05 - ep / 1000:.4f} - lr 0.1000",
                  f"DEV  : loss {0.04 - ep / 1000:.8f} - acc {0.55 + ep / 100:.4f}",
                  f"TEST : loss {0.041 - ep / 1000:.8f} - acc {0.54 + ep / 100:.4f}"]
    run = _read(tmp_path, lines)
    assert math.isclose(run.get("eval/loss").values[0], 0.039)
    assert math.isclose(run.get("eval/test/loss").values[0], 0.04)


def test_a_lone_test_line_is_the_evaluation(tmp_path):
    """A log whose only held-out set is `test` evaluates on it (`**Test - WER: 0.21, loss: 25.2**`)."""
    run = _read(tmp_path, ["**Test - WER: 0.213015, CER: 3.542373, loss: 25.164192**"])
    assert run.get("eval/loss") is not None and math.isclose(run.get("eval/loss").values[0], 25.164192)


def test_metrics_after_the_validation_loss_of_a_split_named_table_are_the_validations(tmp_path):
    """fastai's recorder: `epoch train_loss valid_loss accuracy time`: the accuracy is measured on
    the validation set; a printed function repr between two tables is no record."""
    lines = ["epoch train_loss valid_loss accuracy time"]
    lines += [f"{e} {2.6 - e / 2:.6f} {7.8 - e * 3:.6f} {0.2 + e / 5:.6f} 00:07" for e in range(3)]
    lines += ["<function fastai.optimizer.Adam(params, lr, mom=0.9, sqr_mom=0.99, eps=1e-05, wd=0.01, decouple_wd=True)>"]
    run = _read(tmp_path, lines)
    assert run.get("eval/accuracy") is not None and math.isclose(run.get("eval/accuracy").values[0], 0.2)
    assert run.get("accuracy") is None and "eps" not in run.series


def test_a_metric_with_named_parts_in_brackets(tmp_path):
    """`predict_loss: [local: 0.6975 | reduced: 0.6919]`: the reduced (all-rank) part is the metric."""
    lines = [f"Epoch: [3]  [{b}/460]  eta: 0:03:07  lr: 0.000100  predict_loss: [local: 0.69{b % 7} | reduced: 0.69{b % 5}]  time: 0.4870"
             for b in range(120, 280, 20)]
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert loss is not None and len(loss) == 8 and math.isclose(loss.values[0], 0.690)


@pytest.mark.parametrize("key, name", [
    ("lr(PiecewiseDecay)", "learning_rate"),   # a qualifier in words after the name
    ("tps", "throughput"),
    ("Fp16 Grad Scale", "loss_scale"),
    ("f1 score", "f1"),
    ("cv_loss", "eval/loss"),                  # WeNet / ESPnet cross-validation set
    ("score loss", "score_loss"),              # `score` qualifies only after a name
    ("total time (s)", "total_time_(s)"),      # a unit in brackets is no qualifier to drop
])
def test_spellings_from_wild4(key, name):
    assert table().resolve(key, "text").name == name


def test_a_bare_split_after_a_metric_and_its_split_is_that_metric(tmp_path):
    """`iter 600: loss train: 2.846, val: 2.861`: the val value is the validation loss."""
    lines = [f"iter {i}: loss train: {3 - i / 1000:.3f}, val: {3.1 - i / 1000:.3f} | iter time: 370.41 ms"
             for i in range(100, 600, 100)]
    run = _read(tmp_path, lines)
    assert math.isclose(run.get("eval/loss").values[0], 3.0) and run.get("eval/accuracy") is None


def test_the_end_of_an_anomaly_mode_trace_is_an_event(tmp_path):
    """torch's anomaly mode ends the forward-call traceback it prints with `(function _print_stack)`."""
    run = _read(tmp_path, ["[TRAIN] Iter: 100 Loss: 0.0067  PSNR: 24.9", "[TRAIN] Iter: 200 Loss: 0.0066  PSNR: 25.0",
                           '  File "run_nerf.py", line 506, in train', "    img2mse = lambda x, y : torch.mean((x - y) ** 2)",
                           " (function _print_stack)"])
    assert any(e.kind == "warning" and "print_stack" in e.text for e in run.events)


def test_lone_lines_that_name_the_loss_and_its_terms_are_measurements(tmp_path):
    """No counter and no line shape printed twice, but `loss: nan, cls_pos_loss: nan, ...`: read;
    a single setting quoted in prose (`learning_rate: 2e-4`) is still left out."""
    lines = ["Kindly help all values are nan", "",
             "INFO - task : ['car'], loss: nan, cls_pos_loss: nan, loc_loss_elem: ['nan', 'nan'], num_pos: 26.66",
             "INFO - task : ['truck', 'bus'], loss: nan, cls_pos_loss: nan, loc_loss_elem: ['nan'], num_pos: 40.48"]
    loss = _read(tmp_path, lines).get("loss")
    assert loss is not None and len(loss) == 2 and math.isnan(loss.values[0])
    prose = _read(tmp_path, ["I trained with learning_rate: 2e-4 and it diverged"], name="prose.txt")
    assert not prose.series


@pytest.mark.parametrize("value, want", [("0000nan", "nan"), ("00000inf", "inf"), ("-0000inf", "-inf"), ("+000nan", "nan")])
def test_a_nan_printed_through_a_zero_filled_width_is_a_nan(tmp_path, value, want):
    """Python's `%07.3f` pads `nan` and `inf` with zeros (`0000nan`): the zeros are fill, not a value of 0."""
    lines = [f"Step {i * 10:7d} ({i * 3.1:.2f}%): loss = {v} EER={0.4 - i * 0.01:.5f}"
             for i, v in ((1, "3.984"), (2, "3.650"), (3, value))]
    loss = _read(tmp_path, lines).get("loss")
    assert loss is not None and loss.values[0] == 3.984
    got = loss.values[-1]
    assert (math.isnan(got) and want == "nan") or got == float(want)


def test_zeros_before_a_number_are_still_the_number(tmp_path):
    lines = [f"step {i} loss = {v}" for i, v in ((1, "0002.50"), (2, "0002.25"), (3, "0001.75"))]
    assert list(_read(tmp_path, lines).get("loss").values) == [2.5, 2.25, 1.75]
