"""Reading rules asked for by real logs (round 5), each checked on a short log written for the test
in the style that needed it."""

from __future__ import annotations

import math

from triage.ingest.aliases import table
from written_log import read_written as _read


def test_trainer_dicts_that_also_carry_the_runtime_are_step_records(tmp_path):
    """HF-Trainer dict lines with throughput logging switched on (LLaMA-Factory): every step's dict
    has `train_runtime` beside its loss and learning rate; only the closing dict is the summary."""
    lines = []
    for i in range(1, 5):
        lines.append(f"{{'loss': {2.0 - i / 10:.4f}, 'grad_norm': {1.5 + i / 100:.4f}, 'learning_rate': 1e-05, "
                     f"'epoch': {i / 4:.2f}, 'num_input_tokens_seen': {1000 * i}, 'train_runtime': {60.5 * i:.2f}, "
                     f"'train_tokens_per_second': 16.5}}")
    lines.append("{'train_runtime': 250.1, 'train_samples_per_second': 3.2, 'train_steps_per_second': 0.02, "
                 "'train_loss': 1.75, 'epoch': 1.0}")
    run = _read(tmp_path, lines)
    assert [round(float(v), 4) for v in run.get("loss").values] == [1.9, 1.8, 1.7, 1.6]
    assert run.meta.get("summary", {}).get("train_loss") == 1.75


def test_dict_after_a_bar_glued_dict_does_not_take_that_bars_step(tmp_path):
    """HF-Trainer style: the first dict is glued to the end of a progress bar, the next one is printed
    on its own line before the bar moves again: it is the next log, not a second value at the bar's step."""
    lines = [
        "  0%|          | 1/200 [00:20<1:06:00, 20.00s/it]{'loss': 12.5, 'grad_norm': 3.1, 'learning_rate': 1e-05, 'epoch': 0.1}",
        "{'loss': 0.0, 'grad_norm': 2.9, 'learning_rate': 2e-05, 'epoch': 0.2}",
        "  5%|5         | 10/200 [03:20<1:03:00, 20.00s/it]",
    ]
    run = _read(tmp_path, lines)
    assert [float(v) for v in run.get("loss").values] == [12.5, 0.0]


def test_bar_whose_postfix_lost_its_closing_bracket_is_read(tmp_path):
    """A tqdm bar, the last line of a paste or an interrupted run, cut before the `]` that closes the
    postfix: its `name=value` items are still the step's values; a cut inside a name reads nothing."""
    run = _read(tmp_path, ["Steps:  40%|####      | 200/500 [10:00<15:00, 3.00s/it, lr=3e-5, step_loss=nan"])
    assert math.isnan(float(run.get("loss").values[-1]))
    assert float(run.get("learning_rate").values[-1]) == 3e-5
    cut = _read(tmp_path, ["Epoch 3/10:  50%|#####     | 50/100 [00:10<00:10, 5.00it/s, critic_loss=2.2e+5, a"],
                name="cut.log")
    assert "loss" not in cut.series and not any(k.startswith("critic") for k in cut.series)


def test_headerless_comma_rows_of_a_counter_and_values(tmp_path):
    """`print(f"{epoch},{loss}")` into a file with no header (and a run resumed into the same file, its
    counter starting over): one unnamed series placed by the counter."""
    lines = [f"{e},{5 - e / 10:.4f}" for e in range(1, 6)] + [f"{e},{4.5 - e / 10:.4f}" for e in range(1, 8)]
    run = _read(tmp_path, lines, name="curve.txt")
    assert run.meta["rows"] == 12
    assert len(run.get("value").values) == 12
    wide = _read(tmp_path, [f"{e},{3 - e / 10:.3f},{3.2 - e / 10:.3f},{10 + e}.5" for e in range(10, 15)],
                 name="wide.txt")
    assert wide.meta["rows"] == 5 and {"value_1", "value_2", "value_3"} <= set(wide.series)


def test_counter_and_value_glued_after_a_progress_bar(tmp_path):
    """A loop that prints `step, loss` while a tqdm bar is on screen: the print glues onto the bar's
    redraw (`... 12.00s/it]10, 2.2398`)."""
    lines = [f"{i * 3:3d}%|#         | {i * 10 + 1}/300 [00:{i:02d}<01:00, 12.00s/it]{i * 10}, {2.5 - i / 20:.4f}"
             for i in range(6)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 6
    assert [float(s) for s in run.get("value").steps] == [0, 10, 20, 30, 40, 50]


def test_bar_postfix_items_of_a_name_and_a_value(tmp_path):
    """`set_postfix_str("Loss 6.27, Val Loss 44.8")` (WS-DAN style): postfix items written as words then
    a number, not `name=value`; the bar's rate (`1.61 batches/s`) is no such item."""
    lines = [f"Epoch {e}/300: 100%|##########| 500/500 [10:00<00:00,  1.61 batches/s, Loss {6 - e / 100:.4f}, "
             f"Raw Acc (0.39, 2.49), Val Loss {40 + e / 10:.4f}]" for e in range(5, 9)]
    run = _read(tmp_path, lines)
    assert len(run.get("loss").values) == 4
    assert len(run.get("eval/loss").values) == 4
    assert not any("batches" in k for k in run.series)


def test_translation_eval_keys_with_a_language_pair():
    """XLM-style eval keys: split, language pair, objective, metric (`valid_en-fr_mt_bleu`)."""
    tab = table()
    assert tab.resolve("valid_en-fr_mt_ppl", None).name == "eval/valid_en-fr/perplexity"
    assert tab.resolve("test_de-en_mt_bleu", None).name == "eval/test_de-en/bleu"
    assert tab.resolve("valid_en-fr_mt_acc", None).name == "eval/valid_en-fr/accuracy"


def test_short_accuracy_on_n_images_sentence(tmp_path):
    """`Accuracy on 10,000 test images:  34.48 %` (the tutorial's sentence without `of the network`):
    the split word after the count names the split."""
    lines = ["[1,  100] loss: 2.30", "[1,  200] loss: 2.10",
             "Accuracy on 50,000 train images:  40.8 %", "Accuracy on 10,000 test images:  34.5 %"]
    run = _read(tmp_path, lines)
    assert float(run.get("eval/accuracy").values[-1]) == 34.5
    assert float(run.get("accuracy").values[-1]) == 40.8


def test_gan_and_sts_metric_spellings():
    """Chainer GAN reports (`loss_gen`, `loss_dis`, `gen/loss`) and sentence-similarity evaluators
    (`Pearson`, `Spearman`)."""
    tab = table()
    assert tab.resolve("loss_gen", None).name == "g_loss"
    assert tab.resolve("dis/loss", None).name == "d_loss"
    assert tab.resolve("Spearman", None).name == "eval/spearman"
    assert tab.resolve("Pearson", None).name == "eval/pearson"


def test_keras_verbose2_lines_whose_epoch_time_changes_unit(tmp_path):
    """Keras `fit(verbose=2)` with the per-epoch time (`- 5s/epoch - 43ms/step`): the first epoch's
    time is in seconds, the others in milliseconds; the `64/64` count is the epoch's size either way."""
    lines = ["Epoch 1/20", "64/64 - 6s - loss: 3.2000 - accuracy: 0.1400 - 6s/epoch - 90ms/step"]
    for e in range(2, 6):
        lines += [f"Epoch {e}/20", f"64/64 - 0s - loss: {3.2 - e / 10:.4f} - accuracy: 0.{14 + e} - 350ms/epoch - 5ms/step"]
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("loss").steps] == [1, 2, 3, 4, 5]
    assert float(run.get("loss").values[0]) == 3.2


def test_metric_report_lines_with_values_under_results(tmp_path):
    """StyleGAN-style metric reports, one JSON line per evaluated snapshot, the score nested under
    `results` beside bookkeeping (`total_time`, `num_gpus`, `snapshot_pkl`): the score is read as FID."""
    lines = ["Loading training set...", "Num images:  900"]
    for i in range(4):
        lines += [f"tick {3 * i + k:<5d} kimg {4.0 * (3 * i + k):<7.1f} sec/kimg 37.9  gpumem 10.2  augment 0.0{k}"
                  for k in range(3)]
        lines += ["Evaluating metrics...",
                  f'{{"results": {{"fid50k_full": {30 - i:.3f}}}, "metric": "fid50k_full", "total_time": 500.{i}, '
                  f'"num_gpus": 1, "snapshot_pkl": "network-snapshot-{i * 40:06d}.pkl", "timestamp": 1700000000.{i}}}']
    run = _read(tmp_path, lines)
    assert [float(v) for v in run.get("eval/fid").values] == [30.0, 29.0, 28.0, 27.0]
    assert "num_gpus" not in run.series
