"""Reading rules the wild corpus asked for (nineteenth round), each tried on a short log written for
the test in the style of the prints that needed it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_an_episode_lines_average_length_is_the_episode_length(tmp_path):
    """`Episode 10  Last length:  13  Average length: 10.64` (an RL example's episode lines): on a line
    that counts episodes, the average length is the mean length of the episodes."""
    lines = [f"Episode {e}\tLast length: {e + 3:5d}\tAverage length: {e / 2 + 5:.2f}" for e in range(10, 90, 10)]
    run = _read(tmp_path, lines)
    assert _vals(run, "episode_length") == [e / 2 + 5 for e in range(10, 90, 10)]


def test_the_letters_g_and_d_name_a_gans_losses(tmp_path):
    """`G: 2.06 | D: 0.05 | GP: 0.50 | PL: 0.02` glued after a progress bar: values named by the letters
    G and D together are the generator's and the discriminator's losses."""
    lines = [f"{s}/90000 [02:46<81:43:57,  3.27s/it]G: {2 - s / 100:.2f} | D: {s / 1000:.2f} | GP: 0.50 | PL: 0.02"
             for s in range(0, 200, 50)]
    run = _read(tmp_path, lines)
    assert _vals(run, "g_loss") == [2.0, 1.5, 1.0, 0.5]
    assert _vals(run, "d_loss") == [0.0, 0.05, 0.1, 0.15]


def test_a_level_letter_before_a_reports_metric_is_no_part_of_its_name(tmp_path):
    """`I WER: 1.000000, loss: 21.939014, mean edit distance: 1.000000` (a speech toolkit's test
    report, each line opened by its log level's letter): the letter is the logger's, the name is `WER`."""
    lines = []
    for i, loss in enumerate((21.9, 33.2)):
        lines += [f"I WER: 1.000000, loss: {loss}, mean edit distance: 0.9", f'I  - src: "word{i}"', 'I  - res: "i "',
                  "I " + "-" * 60]
    run = _read(tmp_path, lines)
    assert _vals(run, "wer") == [1.0, 1.0]
    assert _vals(run, "loss") == [21.9, 33.2]


def test_iter_before_a_metric_qualifies_it(tmp_path):
    """`Iter loss : 27.8335 - Iter acc: 0.0000` (a logger that names the iteration's values): `Iter`
    qualifies the metric, `Iter acc` is the accuracy."""
    lines = [f"2020-12-01 20:12:{s:02d},410 - train.py[line:103] - INFO: Epoch : 1/20 - Iter : {6500 + s}/6672 - "
             f"Iter loss : {7 + s / 10:.4f} - Iter acc: {s / 1000:.4f} - Num correct: {s}" for s in range(5)]
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [0.0, 0.001, 0.002, 0.003, 0.004]


def test_rew_on_an_rl_trainers_bar_is_the_episode_reward(tmp_path):
    """`Epoch #1: 222it [02:03, 1.79it/s, env_step=222, len=30, loss=89340.694, ..., rew=2223.09]`: an RL
    trainer's bar abbreviates the collected episodes' mean return to `rew`."""
    lines = [f"Epoch #{e}: 222it [02:03,  1.79it/s, env_step={222 * e}, len=30, loss={100 - e}.5, loss/vf={200 - e}.5, "
             f"n/ep=1, n/st=30, rew={1000 + e}.25]" for e in range(1, 4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "episode_reward") == [1001.25, 1002.25, 1003.25]


def test_an_estimators_saved_dict_is_the_evaluations(tmp_path):
    """`Saving dict for global step 0: accuracy = 0.0, accuracy_top_5 = 0.0, global_step = 0, loss = 0.0`:
    TF Estimator prints each evaluation's results in that line, so its bare names are the evaluation's."""
    lines = ["I0130 18:50:56.298961 70366661200528 tf_logging.py:115] Done running local_init_op.",
             "I0130 18:50:57.163749 70366661200528 tf_logging.py:115] Saving dict for global step 400: accuracy = 0.25, "
             "accuracy_top_5 = 0.5, global_step = 400, loss = 1.75"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/accuracy") == [0.25]
    assert _vals(run, "eval/loss") == [1.75]
    assert run.get("loss") is None


def test_an_exception_line_is_no_metric(tmp_path):
    """`KeyError: 8` at the end of a traceback after a Trainer's logged dicts: the exception's argument,
    not a series named `KeyError`."""
    lines = ["{'loss': 0.7033, 'grad_norm': 2.27, 'learning_rate': 1e-05, 'epoch': 0.0}",
             "{'loss': 0.6705, 'grad_norm': 8.05, 'learning_rate': 2e-05, 'epoch': 0.0}",
             "Traceback (most recent call last):",
             '  File "train.py", line 188, in <module>',
             "    main()",
             "KeyError: 8"]
    run = _read(tmp_path, lines)
    assert run.get("KeyError") is None
    assert _vals(run, "loss") == [0.7033, 0.6705]


def test_a_count_of_episodes_is_no_step(tmp_path):
    """`50 episodes - episode_reward: -647.876 [-1498.992, -128.003] - loss: 1.600` (an interval
    logger's summary): the number counts the interval's episodes, it is the same every time and no step."""
    lines = []
    for k, loss in enumerate((0.8, 1.6, 3.5), start=1):
        lines += [f"Interval {k} ({(k - 1) * 10000} steps performed)",
                  "10000/10000 [==============================] - 45s - reward: -6.6935",
                  f"50 episodes - episode_reward: -{1300 - 300 * k}.5 [-1778.884, -888.810] - loss: {loss} - mean_q: -31.1",
                  ""]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.8, 1.6, 3.5]


def test_a_progress_cell_before_a_table_and_a_unit_in_a_column_name(tmp_path):
    """`[   10%      ]     1     nan     nan     0.500000     11.07` under `[------------] Epoch   Train
    log_loss   Test log_loss   Test AUC   Time cost (sec)` (a factorisation-machine library's table):
    the bracketed progress cell is no column, and `Time cost (sec)` is one column's name and unit."""
    lines = ["[------------] Epoch      Train log_loss       Test log_loss            Test AUC     Time cost (sec)"]
    lines += [f"[   {10 * e}%      ]     {e}            {0.7 - e / 100:.6f}            {0.71 - e / 100:.6f}"
              f"            0.500000               11.{e:02d}" for e in range(1, 5)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.69, 0.68, 0.67, 0.66]
    assert _vals(run, "eval/loss") == [0.70, 0.69, 0.68, 0.67]
    assert _vals(run, "eval/auc") == [0.5] * 4


def test_a_print_glued_to_a_redrawn_bar_is_read(tmp_path):
    """A carriage-return progress bar whose last redraw has the epoch's summary printed right after it
    (`100%|##########| 1568/1568 [00:24<00:00, 63.84it/s]epoch   0 | train_loss: 12.43202 | ...`)."""
    lines = []
    for e, loss in enumerate((12.43202, 5.88519, 2.5)):
        lines.append(f"\r  0%|          | 0/1568 [00:00<?, ?it/s]\r 50%|#####     | 784/1568 [00:12<00:12, 61.00it/s]"
                     f"\r100%|##########| 1568/1568 [00:24<00:00, 63.84it/s]epoch   {e} | train_loss: {loss} | "
                     f"test_loss: 0.00000 | acc_day: 0.94834")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [12.43202, 5.88519, 2.5]
    assert _vals(run, "eval/loss") == [0.0, 0.0, 0.0]


def test_a_source_line_with_an_augmented_assignment_is_no_record(tmp_path):
    """A deprecation warning quotes its source line (`  total_epoch_loss += loss.data[0]`): code, not a
    value named `loss.data`."""
    lines = []
    for it in range(0, 4000, 1000):
        lines += ["run.py:198: UserWarning: invalid index of a 0-dim tensor. Use tensor.item() to convert a 0-dim tensor",
                  "  t_loss += loss.data[0]",
                  f"[0,  {it:4d}] RMSE: {8.08 - it / 1000:.4f}"]
    run = _read(tmp_path, lines)
    assert run.get("loss.data") is None
    assert len(_vals(run, "rmse")) == 4


def test_the_things_a_number_counts_are_no_part_of_the_next_name(tmp_path):
    """`0 completed epochs, 100 batches Average training batch loss: nan  Validation loss: nan` (plain
    prints every 100 batches): `batches` belongs to the count before it, the next name is the loss."""
    lines = [f"0 completed epochs, {b} batches Average training batch loss: {1 / b:.6f}        Validation loss: 0.9"
             f"    Validation accuracy: 0.338244" for b in range(100, 500, 100)]
    run = _read(tmp_path, lines)
    assert run.get("loss") is not None
    assert run.get("eval/accuracy") is not None


def test_a_script_command_with_one_dash_options_is_no_record(tmp_path):
    """`python train.py -layers 4 -learning_rate 2 -train_steps 1000` (a toolkit whose options take one
    dash): the command that started the run, its numbers are settings, not a first record."""
    lines = ["python train.py -gpuid 0 -encoder_type transformer -train_steps 100000 -layers 4 -learning_rate 2 -rnn_size 512",
             ""]
    lines += [f"[2018-08-01 18:29:48,221 INFO] Step {s}/100000; acc:   {s / 100:.2f}; ppl: {900 - s:.2f}; xent: {7 - s / 100:.2f}; "
              f"lr: 2.00000; 4132/2064 tok/s;     52 sec" for s in (50, 100, 150)]
    run = _read(tmp_path, lines)
    assert run.get("learning_rate") is not None
    assert [float(s) for s in run.get("loss").steps] == [50.0, 100.0, 150.0]
    assert run.get("layers") is None and run.get("train_steps") is None


def test_a_model_cards_results_list_is_no_training_loss(tmp_path):
    """A generated model card: `It achieves the following results on the evaluation set:` over `- Loss: inf`
    and `- Wer: 0.9997`, then the results table. The list sums up the last evaluation (the table has it with
    its step): its `Loss` is no first training loss."""
    lines = ["# wav2vec2-demo", "", "It achieves the following results on the evaluation set:", "- Loss: inf",
             "- Wer: 0.9997", "", "## Training results", "",
             "| Training Loss | Epoch | Step  | Validation Loss | Wer    |",
             "|:-------------:|:-----:|:-----:|:---------------:|:------:|"]
    lines += [f"| {0.5 / k:.4f}        | {k}.03  | {500 * k}   | inf             | 0.9997 |" for k in range(1, 5)]
    run = _read(tmp_path, lines, name="README.md")
    assert _vals(run, "loss") == [0.5, 0.25, 0.1667, 0.125]
    assert [float(s) for s in run.get("eval/loss").steps] == [500.0, 1000.0, 1500.0, 2000.0]


def test_the_entry_functions_logged_call_holds_settings(tmp_path):
    """`INFO     main(rmq_host=..., rmq_port=5672, batch_size=8, learning_rate=1e-05)`: a script that logs its
    entry function's call logs its settings, not a record."""
    lines = ["2019-02-03 08:08:55,542 INFO     main(rmq_host=localhost, rmq_port=5672, epochs=4 seq_per_epoch=32, "
             "batch_size=8, seq_len=256 learning_rate=1e-05, pretrained_model=None, entropy_coef=0.0001)"]
    for it in (19, 20):
        lines.append(f"2019-02-03 08:09:{it},535 INFO     iteration {it}/10000")
        lines += [f"2019-02-03 08:09:{it},984 INFO      epoch {e}/4" for e in range(1, 5)]
        lines.append(f"2019-02-03 08:09:{it},256 INFO     steps_per_s=321.15, avg_weight_age=2.8, loss=0.{it}, entropy=7.5")
    run = _read(tmp_path, lines)
    assert run.get("rmq_port") is None and run.get("batch_size") is None
    assert _vals(run, "loss") == [0.19, 0.2]
