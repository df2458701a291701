"""Line-shape rules the wild corpus asked for (fifteenth round of review), each tried on a short log
written for the test in the style of the prints that needed it."""

from __future__ import annotations

import math

from triage.ingest.aliases import table
from written_log import read_written as _read, series_values as _vals


def test_a_tqdm_redraw_cut_at_the_terminal_width_keeps_its_whole_postfix_items(tmp_path):
    """A tqdm bar pasted from a narrow terminal (`... [00:07<00:00,  6.72it/s, loss=nan, acc=10, to`): the
    time bracket never closes; the items before the last one are whole, the last may be cut short. A
    `Validate Epoch` bar's values are the evaluation's."""
    lines = ["Train Epoch #1: 100%|#| 391/391 [01:01<00:00,  6.38it/s, loss=2.31, acc=",
             "Validate Epoch #1 : 100%|#| 50/50 [00:07<00:00,  6.72it/s, loss=2.30, acc=10, to"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.31]
    assert _vals(run, "eval/loss") == [2.30]
    assert _vals(run, "eval/accuracy") == [10.0]


def test_a_state_dict_printed_behind_a_bar_leaves_the_bar_its_record(tmp_path):
    """`print(scheduler.state_dict())` with no newline after a tqdm redraw (`...s/it, lr=3e-5,
    step_loss=0.09]{'base_lrs': [3e-05], 'last_epoch': 0, ...}`): the dict names no metric, the bar's
    postfix is the step's record."""
    tail = "{'base_lrs': [3e-05], 'last_epoch': 0, 'verbose': False, '_step_count': 1, '_last_lr': [3e-05]}"
    lines = []
    for i, loss in enumerate((0.09, 0.18, 0.08, 0.39), start=2):
        lines.append(f"Steps:  {i}0%|####      | {i}/10 [00:0{i}<00:20,  2.55s/it, lr=3e-5, step_loss={loss}]" + tail)
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "loss") == [0.09, 0.18, 0.08, 0.39]
    assert _vals(run, "learning_rate") == [3e-5] * 4


def test_a_name_in_parentheses_after_a_verb_is_the_whole_name(tmp_path):
    """`step 63/64 completed (loss: 0.19)`: the parenthesis opens the value's own name; the word before
    it (`completed`, `done`) says what happened and is no part of the name."""
    lines = [f"Training Epoch: 1/3, step {i}/64 completed (loss: 0.{9 - i})" for i in range(1, 5)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.8, 0.7, 0.6, 0.5]
    assert not any("completed" in k for k in run.series)


def test_a_clause_led_by_a_split_name_gives_its_bare_names_that_split(tmp_path):
    """`Epoch 85: train loss 1.226, acc: 70.3%; val loss: 1.027, acc 74.3%; use 26.5 mins.`: the clause
    after `;` that opens with `val loss` is the validation's, its bare `acc` too; the next clause is
    neither's."""
    lines = [f"Epoch {e}: train loss 1.2{e % 10}, acc: 70.{e % 10}%; val loss: 1.0{e % 10}, acc 74.{e % 10}%; "
             f"use 26.4 mins." for e in range(85, 89)]
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [70.5, 70.6, 70.7, 70.8]
    assert _vals(run, "eval/accuracy") == [74.5, 74.6, 74.7, 74.8]
    assert _vals(run, "eval/loss") == [1.05, 1.06, 1.07, 1.08]
    assert not any(k.startswith("eval/") and "use" in k for k in run.series)


def test_an_evaluator_heading_makes_the_lines_below_it_the_evaluations(tmp_path):
    """An evaluator object's report (`BinaryClassificationEvaluator: Evaluating the model on the dev
    dataset after epoch 1:`, then `Accuracy: 91.00 (Threshold: 0.41)`, `F1: ...`, one metric a line):
    every score under the heading is the evaluation's."""
    lines = ["CEBinaryClassificationEvaluator: Evaluating the model on my-dev dataset after epoch 1:",
             "Accuracy: 91.00 (Threshold: 0.4118)",
             "F1: 88.00 (Threshold: 0.4118)",
             "Precision: 87.00",
             "Recall: 89.00"]
    run = _read(tmp_path, lines)
    for name, v in (("eval/accuracy", 91.0), ("eval/f1", 88.0), ("eval/precision", 87.0), ("eval/recall", 89.0)):
        assert _vals(run, name) == [v]


def test_metric_spellings_of_flair_ms_swift_llama_adapter_and_stylegan():
    """Spellings read as their canonical names: flair's `f1-score (micro avg)` (a printed line drops its
    parentheses), ms-swift's `memory(GiB)`, LLaMA-Adapter's `closs` under its split prefixes and
    StyleGAN's `gpumem`."""
    tab = table()
    assert tab.resolve("f1-score micro avg", "text").name == "f1"
    assert tab.resolve("memory(GiB)", "jsonl").name == "memory"
    assert tab.resolve("train_closs", "jsonl").name == "loss"
    assert tab.resolve("val_closs", "jsonl").name == "eval/loss"
    assert tab.resolve("gpumem", "text").name == "memory"


def test_decibels_after_a_value_and_a_bracketed_phrase_heading_a_bar(tmp_path):
    """`[converting LR images to SR images] PSNR: 22.33 dB SSIM: 0.638: 100%|###| 100/100 [...]`: `dB`
    is the PSNR's unit, not a word of the next name, and the bracketed phrase opening the line says what
    the pass does without being part of any name."""
    lines = []
    for i in range(3):
        lines.append(f"[{12 + i}/100] Loss_D: 1.02{i} Loss_G: 0.009{i}: 100%|#####| 13/13 [00:15<00:00,  1.22s/it]")
        lines.append(f"[converting LR images to SR images] PSNR: 22.{i}313 dB SSIM: 0.63{i}1: "
                     "100%|#####| 100/100 [00:33<00:00,  3.03it/s]")
    run = _read(tmp_path, lines)
    psnr = [k for k in run.series if k.endswith("psnr")]
    ssim = [k for k in run.series if k.endswith("ssim")]
    assert len(psnr) == 1 and _vals(run, psnr[0]) == [22.0313, 22.1313, 22.2313]
    assert len(ssim) == 1 and _vals(run, ssim[0]) == [0.6301, 0.6311, 0.6321]


def test_a_caffe_net_output_that_enters_the_loss_is_a_metric(tmp_path):
    """Caffe's `Train net output #0: ctcloss = 0.3 (* 1 = 0.3 loss)`: the weighted-loss tail marks the
    output as a term of the loss, a metric even under a name triage does not know, the test net's one
    printed once included."""
    pre = "I0806 15:36:56.974463 12768 "
    lines = [pre + "solver.cpp:409]     Test net output #0: ctcloss = 2.5 (* 1 = 2.5 loss)"]
    for it in range(0, 800, 200):
        lines.append(pre + f"solver.cpp:231] Iteration {it}, loss = 3.{9 - it // 200}")
        lines.append(pre + f"solver.cpp:249]     Train net output #0: ctcloss = 2.{9 - it // 200} (* 1 = 2.{9 - it // 200} loss)")
        lines.append(pre + f"sgd_solver.cpp:106] Iteration {it}, lr = 0.0001")
    run = _read(tmp_path, lines)
    assert _vals(run, "ctcloss") == [2.9, 2.8, 2.7, 2.6]
    assert _vals(run, "eval/ctcloss") == [2.5]


def test_a_coco_summary_value_in_markdown_bold(tmp_path):
    """pycocotools' summary pasted into an issue with each value in Markdown bold (`... maxDets=100 ] =
    **0.312**`): the value inside the asterisks."""
    lines = [" Average Precision  (AP) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = **0.312**",
             " Average Precision  (AP) @[ IoU=0.50      | area=   all | maxDets=100 ] = **0.501**",
             " Average Precision  (AP) @[ IoU=0.50:0.95 | area= small | maxDets=100 ] = **-1.000**",
             " Average Recall     (AR) @[ IoU=0.50:0.95 | area=   all | maxDets=100 ] = **0.420**"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/map") == [0.312]
    assert _vals(run, "eval/map50") == [0.501]
    assert _vals(run, "eval/map_small") == [-1.0]
    assert _vals(run, "eval/mar_100") == [0.42]


def test_keras_fit_called_in_a_loop_gives_each_call_its_own_epoch(tmp_path):
    """`model.fit(..., epochs=1)` in a loop prints `Epoch 1/1` over every call's bar: each call trains on
    from where the last stopped, so its epoch follows the last one's instead of overwriting it."""
    lines = []
    for i in range(5):
        lines.append("Epoch 1/1")
        lines.append(f"1598/1598 [==============================] - 114s - loss: 0.0{9 - i} - acc: 0.8{i} "
                     f"- val_loss: 0.2{i} - val_acc: 0.5{i}")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5
    assert _vals(run, "loss") == [0.09, 0.08, 0.07, 0.06, 0.05]
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert _vals(run, "eval/accuracy") == [0.50, 0.51, 0.52, 0.53, 0.54]


def test_a_keras_epoch_header_repeated_with_no_finished_bar_between_starts_nothing(tmp_path):
    """The same header printed twice in a row (`Epoch 3/10` echoed by two loggers) is one epoch: only a
    header after its epoch's finished bar starts another `fit()` call."""
    lines = ["Epoch 1/10", "10/10 [==============================] - 4s - loss: 0.50",
             "Epoch 2/10", "Epoch 2/10", "10/10 [==============================] - 4s - loss: 0.40",
             "Epoch 3/10", "10/10 [==============================] - 4s - loss: 0.30"]
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0]


def test_values_printed_before_their_names(tmp_path):
    """tinygrad's MLPerf step line prints each value before its name (`10.5008 loss, 0.0000167 LR, 8.83 GB
    used, 18.70 s`); the command line that set the run's knobs as environment variables
    (`BS=32 LR=3e-4 python3 train.py`) is no record."""
    lines = ["BS=32 GRADIENT_ACC_STEPS=1 LR=3e-4 WARMUP_STEPS=36 SEQLEN=1024 MODEL=llama3 python3 examples/model_train.py",
             "training llama3"]
    for i, loss in enumerate((10.5008, 10.4828, 10.3733, 10.1558)):
        lines.append(f"{loss} loss, 0.0000{16 + 8 * i} LR, 124.27 GB used, 5.{i}9 s")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "loss") == [10.5008, 10.4828, 10.3733, 10.1558]
    assert _vals(run, "learning_rate")[0] == 0.000016
    assert not any(k in run.series for k in ("BS", "SEQLEN", "WARMUP_STEPS"))


def test_a_keras_style_bar_of_timings_only_is_no_record(tmp_path):
    """PaddleSeg's evaluation bar (`200/200 [=====] - 6s 30ms/step - batch_cost: 0.0290 - reader cost:
    0.001`) times its batches and measures nothing: its scores come on the `[EVAL]` line after it."""
    lines = []
    for it in (100, 200):
        lines.append(f"2021-07-20 22:38:36 [INFO]\t[TRAIN] epoch: 1, iter: {it}/9000, loss: 0.15{it // 100}, "
                     "lr: 0.001296, batch_cost: 0.5659, reader_cost: 0.14579, ips: 7.0680 samples/sec | ETA 13:56:38")
        lines.append("2021-07-20 22:37:33 [INFO]\tStart evaluating (total_samples: 200, total_iters: 200)...")
        lines.append("200/200 [==============================] - 6s 30ms/step - batch_cost: 0.0290 - reader cost: 0.001")
        lines.append("2021-07-20 22:37:38 [INFO]\t[EVAL] #Images: 200 mIoU: 0.5000 Acc: 1.0000 Kappa: 0.1 ")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "loss") == [0.151, 0.152]
    assert _vals(run, "eval/miou") == [0.5, 0.5]


def test_a_tick_counts_the_steps_of_a_stylegan_report(tmp_path):
    """StyleGAN's progress lines (`tick 1401  kimg 5738.6  time 1d 06h 06m  sec/tick 71.0 ... gpumem 8.9
    augment 6.521`) count by tick; the snapshot's score printed before them (`network-snapshot-005734
    time 4m 26s  fid50k_full 46.5633`) is an evaluation, no setting."""
    lines = ["network-snapshot-005734        time 4m 26s       fid50k_full 46.5633"]
    for t in range(1401, 1405):
        lines.append(f"tick {t}  kimg {5738.6 + 4.1 * (t - 1401):.1f}   time 1d 06h 06m   sec/tick 71.0    "
                     f"sec/kimg 17.34   maintenance 0.0  gpumem 8.9   augment 6.5{t - 1400}")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 5
    assert [float(s) for s in run.get("augment").steps] == [1401.0, 1402.0, 1403.0, 1404.0]
    assert _vals(run, "memory") == [8.9] * 4
    assert _vals(run, "eval/fid") == [46.5633]
    assert not math.isnan(_vals(run, "augment")[0])
