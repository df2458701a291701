"""Reading rules the wild corpus asked for (twenty-first round), each tried on a short log written for
the test in the style of the prints that needed it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_a_table_whose_rows_open_with_a_label_and_a_colon(tmp_path):
    """`metric:   MRR   MR   hit@10` over `l(raw):   0.0007   7469.4   0.0006` (a knowledge-graph
    toolkit's link-prediction report, tab-separated): the header's first cell names the label column
    and ends in a colon like every row's label; groups of rows a blank line apart stay under it."""
    lines = ["no type constraint results:",
             "metric:\t\t\t MRR \t\t MR \t\t hit@10 \t hit@1 ",
             "l(raw):\t\t\t 0.120000 \t 512.500000 \t 0.250000 \t 0.060000 ",
             "r(raw):\t\t\t 0.140000 \t 498.250000 \t 0.270000 \t 0.070000 ",
             "",
             "l(filter):\t\t 0.210000 \t 301.750000 \t 0.380000 \t 0.110000 ",
             "r(filter):\t\t 0.230000 \t 288.000000 \t 0.400000 \t 0.120000 "]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "eval/mrr") == [0.12, 0.14, 0.21, 0.23]
    assert _vals(run, "MR") == [512.5, 498.25, 301.75, 288.0]


def test_a_split_word_with_its_sample_count_in_parentheses_labels_the_line(tmp_path):
    """`[train] [INFO] validation(4992) <run name> loss=382.89, loss_ll=64.07` (a pose-estimation
    trainer's periodic check, its logger named `train`): the split word with the number of samples
    glued to it says the line's values are that split's; the count and the run's name (one token
    with digits in it) are no metric, and the training values at the step before keep theirs."""
    lines = ["[2020-01-01 10:00:00,000] [train] [INFO] epoch=1.00 step=100, 20.5 examples/sec lr=0.000100, "
             "loss=50.25, loss_ll=8.5, q=10",
             "[2020-01-01 10:01:00,000] [train] [INFO] epoch=1.01 step=200, 20.6 examples/sec lr=0.000100, "
             "loss=45.75, loss_ll=7.5, q=12",
             "[2020-01-01 10:02:00,000] [train] [INFO] validation(1200) resnet_batch:8_lr:0.001_gpus:2 "
             "loss=40.125, loss_ll=6.25",
             "[2020-01-01 10:03:00,000] [train] [INFO] epoch=1.02 step=300, 20.7 examples/sec lr=0.000100, "
             "loss=44.5, loss_ll=7.25, q=11"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [40.125]
    assert _vals(run, "eval/loss_ll") == [6.25]
    assert _vals(run, "loss") == [50.25, 45.75, 44.5]
    assert _vals(run, "loss_ll") == [8.5, 7.5, 7.25]
    assert not [k for k in run.series if "validation" in k.lower() or "gpus" in k]


def test_an_optimizer_config_dict_in_a_model_card_is_a_setting(tmp_path):
    """`- optimizer: {'name': 'Adam', 'learning_rate': 5e-05, 'beta_1': 0.9, ...}` (a Keras-callback
    model card's hyperparameter list): the dict is the optimizer's configuration, no row of the run
    beside the card's per-epoch results table."""
    lines = ["## Training procedure",
             "",
             "The following hyperparameters were used during training:",
             "- optimizer: {'name': 'Adam', 'learning_rate': 3e-05, 'decay': 0.0, 'beta_1': 0.9, "
             "'beta_2': 0.999, 'epsilon': 1e-07, 'amsgrad': False}",
             "- training_precision: float32",
             "",
             "### Training results",
             "",
             "| Train Loss | Train Accuracy | Validation Loss | Validation Accuracy | Epoch |",
             "|:----------:|:--------------:|:---------------:|:-------------------:|:-----:|",
             "| 0.5100     | 0.7500         | 0.4800          | 0.7700              | 0     |",
             "| 0.4200     | 0.8100         | 0.4500          | 0.7900              | 1     |",
             "| 0.3600     | 0.8400         | 0.4400          | 0.8000              | 2     |"]
    run = _read(tmp_path, lines, name="README.md")
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == [0.51, 0.42, 0.36]
    assert "beta_1" not in run.series and "learning_rate" not in run.series


def test_a_cjk_sentence_that_mentions_a_loss_is_prose(tmp_path):
    """`准备好数据集之后,进行训练, loss = nan` (a user's note in Chinese above a pasted solver log): a
    clause written without blanks is as many words as its characters make, so the line is a sentence
    about the run, not a record; the log's own lines after it are read."""
    lines = ["准备好数据集之后,进行训练, loss = nan",
             "",
             "I1108 13:14:32.594465 5321 solver.cpp:239] Iteration 0 (0 iter/s, 1.4s/100 iters), loss = 6.25",
             "I1108 13:14:32.594565 5321 sgd_solver.cpp:112] Iteration 0, lr = 0.001",
             "I1108 13:15:43.635108 5321 solver.cpp:239] Iteration 100 (1.4 iter/s, 71.0s/100 iters), loss = 5.5",
             "I1108 13:15:43.635491 5321 sgd_solver.cpp:112] Iteration 100, lr = 0.001"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [6.25, 5.5]
    assert [float(s) for s in run.get("loss").steps] == [0.0, 100.0]


def test_kpi_lines_name_their_metric_after_the_kpis_marker(tmp_path):
    """`kpis<TAB>train_acc<TAB>0.000000` under `Time: ...; Iter[1000]; Avg loss: 25.504; ...` (a
    PaddlePaddle model's continuous-evaluation prints): `kpis` marks the line, the name after it is
    the metric's, and the line belongs to the iteration printed before it."""
    lines = []
    for it, (loss, acc) in enumerate([(9.5, 0.125), (8.25, 0.25), (7.0, 0.375)], 1):
        lines += [f"Time: 1564715{it}20.4697154; Iter[{it * 1000}]; Avg loss: {loss}; Avg seq err: 0.900",
                  f"kpis\ttrain_cost\t{loss:.6f}",
                  f"kpis\ttrain_acc\t{acc:.6f}",
                  ""]
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [0.125, 0.25, 0.375]
    assert [float(s) for s in run.get("accuracy").steps] == [1000.0, 2000.0, 3000.0]
    assert _vals(run, "loss") == [9.5, 8.25, 7.0]
    assert not [k for k in run.series if k.startswith("kpis")]


def test_a_time_key_holding_unix_clock_readings_is_no_step_time(tmp_path):
    """`Time: 1564715520.4697154; Iter[1000]; Avg loss: 25.504` (a trainer printing `time.time()`
    under the name `Time`): values near 1.5e9 seconds are dates, not how long a step took, so no
    step time is read from them; the loss on the line is read as ever."""
    lines = [f"Time: {1564715520.25 + 110 * i}; Iter[{1000 * (i + 1)}]; Avg loss: {3.5 - i / 4}" for i in range(4)]
    run = _read(tmp_path, lines)
    assert "step_time" not in run.series
    assert _vals(run, "loss") == [3.5, 3.25, 3.0, 2.75]
    assert any("clock" in w for w in run.meta["warnings"])


def test_a_message_printed_into_a_progress_bar_leaves_its_count_readable(tmp_path):
    """`Epoch 0:   2%|█▋        Building the memory bank.5/218 [00:06<04:30,  1.27s/it, loss=nan]` (a
    message written into a running bar, over its closing `|`): the text between the blocks and the
    count is no part of the count, so the bar state is read like the others."""
    lines = ["Epoch 0:   2%|█▋              Building the memory bank from the features.5/218 "
             "[00:06<04:30,  1.27s/it, loss=0.25]",
             "Epoch 1:   2%|███▏            Building the memory bank from the features.        | 5/218 "
             "[01:34<1:07:23, 18.98s/it, loss=0.125]",
             "Epoch 2:   2%|███▏            Building the memory bank from the features.        | 5/218 "
             "[06:39<4:43:55, 79.98s/it, loss=0.0625]"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.25, 0.125, 0.0625]


def test_a_headerless_table_of_epoch_and_iteration_then_values(tmp_path):
    """`3           4800        7.69427     0              0.00995887` (Chainer's PrintReport table
    pasted without its header line; the validation columns filled only on some rows): the first
    two whole numbers are the epoch and the iteration, the numbers after them unnamed values, a
    bare `0` among them a value too."""
    lines = ["```",
             "2           900         5.25        0              0.00125                                   ",
             "2           1000        5.125       0.0625         0.00125     6.5                    0      ",
             "3           1100        5           0.125          0.00125                                   ",
             "3           1200        4.875       0              0.00125     6.25                   0.25   "]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "value_1") == [5.25, 5.125, 5.0, 4.875]
    assert _vals(run, "value_2") == [0.0, 0.0625, 0.125, 0.0]
    assert [float(s) for s in run.get("value_1").steps] == [900.0, 1000.0, 1100.0, 1200.0]
    assert _vals(run, "value_4") == [6.5, 6.25]


def test_a_key_named_train_loss_keeps_the_loss_over_an_unsplit_spelling(tmp_path):
    """`[Metrics] AUC: 0.804410 - logloss: 0.447085` then `Train loss: 0.461620` each epoch (a CTR
    toolkit's log: the metrics line is the validation's): `Train loss` says it is the training
    loss, so it is read as `loss`; `logloss` keeps its own name."""
    lines = []
    for ep, (auc, ll, tl) in enumerate([(0.80, 0.4475, 0.4625), (0.81, 0.4450, 0.4575), (0.815, 0.4425, 0.4550)], 1):
        lines += [f"2022-01-24 13:10:37,311 P834 INFO ************ Epoch={ep} start ************",
                  f"2022-01-24 13:22:26,208 P834 INFO [Metrics] AUC: {auc:.6f} - logloss: {ll:.6f}",
                  f"2022-01-24 13:22:26,561 P834 INFO Train loss: {tl:.6f}",
                  f"2022-01-24 13:22:26,561 P834 INFO ************ Epoch={ep} end ************"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.4625, 0.4575, 0.455]
    assert _vals(run, "logloss") == [0.4475, 0.445, 0.4425]
