"""Reading rules for printed styles met in real training logs (round 45)."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_split_word_then_bare_pass_number_is_the_epoch(tmp_path):
    """Style: a per-epoch summary that opens with the split and the pass's number, a comma after it
    (`Train 12, loss: 1.30, train acc: 0.71` then `Test 12, loss: 1.41, test acc: 0.66`): the number is
    the epoch, and the bare `loss` on the test line is the evaluation's loss."""
    run = _read(tmp_path, [
        "Train 12, loss: 1.301200, train acc: 0.710000",
        "Test 12, loss: 1.410500, test acc: 0.660000",
        "Train 13, loss: 1.250300, train acc: 0.725000",
        "Test 13, loss: 1.398800, test acc: 0.671000",
        "Train 14, loss: 1.221900, train acc: 0.733000",
    ])
    assert _vals(run, "loss") == [1.3012, 1.2503, 1.2219]
    assert _vals(run, "eval/loss") == [1.4105, 1.3988]
    assert [float(s) for s in run.get("loss").steps] == [12.0, 13.0, 14.0]
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 5


def test_ordinal_row_label_of_an_r_summary_is_no_number(tmp_path):
    """Style: R's `summary()` of a data frame printed under its column names (`Accuracy  Kappa`), each
    cell a statistic's label and its value (`1st Qu.: NA`, `3rd Qu.: NA`): the ordinal in the label is
    no value, and a summary of nothing but NAs is no metric row."""
    run = _read(tmp_path, [
        "Something is wrong; all the Accuracy metric values are missing:",
        "    Accuracy       Kappa    ",
        " Min.   : NA   Min.   : NA  ",
        " 1st Qu.: NA   1st Qu.: NA  ",
        " Median : NA   Median : NA  ",
        " Mean   :NaN   Mean   :NaN  ",
        " 3rd Qu.: NA   3rd Qu.: NA  ",
        " Max.   : NA   Max.   : NA  ",
        " NA's   :2     NA's   :2    ",
        "Error: Stopping",
    ])
    assert run.meta["rows"] == 0
    assert any(ev.kind == "error" for ev in run.events)


def test_reprex_output_marks_are_dropped(tmp_path):
    """Style: R output pasted as the reprex package renders it, every printed line opening with `#>`
    (`#>   size  decay  RMSE  Rsquared  MAE` over its rows): without the mark the table reads as
    printed, one row a line."""
    run = _read(tmp_path, [
        "fit",
        "#> Neural Network ",
        "#> ",
        "#> 200 samples",
        "#>   2 predictor",
        "#> ",
        "#> Resampling results across tuning parameters:",
        "#> ",
        "#>   size  decay  RMSE      Rsquared    MAE     ",
        "#>   1     0e+00  512.250         NaN  498.100",
        "#>   1     1e-01  509.875  0.41000000  497.300",
        "#>   3     0e+00  505.500  0.45500000  495.900",
    ])
    assert run.meta["rows"] == 3
    assert _vals(run, "rmse") == [512.25, 509.875, 505.5]
    assert _vals(run, "mae") == [498.1, 497.3, 495.9]


def test_continual_learning_metric_paths_name_their_metric(tmp_path):
    """Style: Avalanche's text logger, one `<Metric>_<Over>/<phase>_phase/<stream>_stream/Task000 = v`
    a line under `Epoch 3 ended.`: a training pass's mean (`Loss_Epoch`, `Top1_Acc_Epoch`) is the
    training loss and accuracy, the whole test stream's mean (`Loss_Stream`) its evaluation loss, a
    minibatch's running value keeps its own name."""
    run = _read(tmp_path, [
        "Epoch 0 ended.",
        "\tLoss_Epoch/train_phase/train_stream/Task000 = 0.9120",
        "\tTop1_Acc_Epoch/train_phase/train_stream/Task000 = 0.7010",
        "\tTop1_Acc_MB/train_phase/train_stream/Task000 = 0.6875",
        "-- >> Start of eval phase << --",
        "\tLoss_Stream/eval_phase/test_stream/Task000 = 0.8800",
        "\tTop1_Acc_Stream/eval_phase/test_stream/Task000 = 0.7300",
        "Epoch 1 ended.",
        "\tLoss_Epoch/train_phase/train_stream/Task000 = 0.7020",
        "\tTop1_Acc_Epoch/train_phase/train_stream/Task000 = 0.7790",
        "\tTop1_Acc_MB/train_phase/train_stream/Task000 = 0.8125",
    ])
    assert _vals(run, "loss") == [0.912, 0.702]
    assert _vals(run, "accuracy") == [0.701, 0.779]
    assert any(name.startswith("eval/") and name.endswith("/loss") or name == "eval/loss" for name in run.series)
    assert any(name.startswith("Top1_Acc_MB") for name in run.series)


def test_results_block_ends_at_a_pass_heading(tmp_path):
    """Style: `name = value` lines of known metrics at the top of a log (an evaluation's results), then
    `Epoch 30 ended.` and the next pass's `name = value` lines: the heading ends the results block, and
    the lines after it are that epoch's values, not more of the block."""
    run = _read(tmp_path, [
        "\tLoss_Stream/eval_phase/test_stream/Task000 = 0.5383",
        "\tTop1_Acc_Stream/eval_phase/test_stream/Task000 = 0.8644",
        "Epoch 30 ended.",
        "\tLoss_Epoch/train_phase/train_stream/Task000 = 0.1451",
        "\tTop1_Acc_Epoch/train_phase/train_stream/Task000 = 0.9976",
        "Epoch 31 ended.",
        "\tLoss_Epoch/train_phase/train_stream/Task000 = 0.0970",
        "\tTop1_Acc_Epoch/train_phase/train_stream/Task000 = 0.9980",
    ])
    assert _vals(run, "loss") == [0.1451, 0.097]
    assert [float(s) for s in run.get("loss").steps] == [30.0, 31.0]
    assert run.meta["rows"] >= 4


def test_split_with_pass_counts_the_epoch(tmp_path):
    """Style: PaddlePaddle's events, `Pass 0, Batch 100, Cost 0.41` while training and `Test with Pass 0,
    Cost 0.27` after each pass (v2), or `Test:0, Cost:0.27, Accuracy:0.92` (fluid): a pass is an epoch,
    and the test line's cost is the evaluation's loss."""
    run = _read(tmp_path, [
        "Pass 0, Batch 0, Cost 2.310450",
        "Pass 0, Batch 100, Cost 0.498210",
        "Test with Pass 0, Cost 0.420180, {}",
        "Pass 1, Batch 0, Cost 0.455120",
        "Pass 1, Batch 100, Cost 0.371900",
        "Test with Pass 1, Cost 0.350760, {}",
    ])
    assert _vals(run, "eval/loss") == [0.42018, 0.35076]
    assert _vals(run, "loss")[0] == 2.31045
    fluid = _read(tmp_path, [
        "Pass:0, Batch:0, Cost:3.17211, Accuracy:0.04688",
        "Pass:0, Batch:100, Cost:0.40671, Accuracy:0.87500",
        "Test:0, Cost:0.26778, Accuracy:0.92138",
        "Pass:1, Batch:0, Cost:0.25621, Accuracy:0.93750",
        "Pass:1, Batch:100, Cost:0.27148, Accuracy:0.92188",
        "Test:1, Cost:0.15462, Accuracy:0.95738",
    ], name="fluid.log")
    assert _vals(fluid, "eval/loss") == [0.26778, 0.15462]
    assert _vals(fluid, "eval/accuracy") == [0.92138, 0.95738]
    assert not math.isnan(_vals(fluid, "loss")[0])


def test_glog_prefix_with_the_year(tmp_path):
    """Style: Caffe under glog 0.7 or later, whose prefix writes the year before the month and day
    (`I20250403 16:40:55.65 720070 solver.cpp:217] Iteration 9000 (...), loss = 0.21`): the prefix
    is the logger's, the message after it is read as without it."""
    run = _read(tmp_path, [
        "I20250403 16:40:52.338333 720070 solver.cpp:329] Iteration 9000, Testing net (#0)",
        "I20250403 16:40:55.531296 720070 solver.cpp:396]     Test net output #0: accuracy = 0.1109",
        "I20250403 16:40:55.531350 720070 solver.cpp:396]     Test net output #1: loss = 8.02739 (* 1 = 8.02739 loss)",
        "I20250403 16:40:55.650857 720070 solver.cpp:217] Iteration 9000 (11.7357 iter/s, 8.521s/100 iters), loss = 0.209952",
        "I20250403 16:40:55.650914 720070 solver.cpp:236]     Train net output #0: loss = 0.209952 (* 1 = 0.209952 loss)",
        "I20250403 16:41:02.860724 720070 solver.cpp:217] Iteration 9100 (13.8715 iter/s, 7.209s/100 iters), loss = 0.0648483",
        "I20250403 16:41:02.860821 720070 solver.cpp:236]     Train net output #0: loss = 0.0648483 (* 1 = 0.0648483 loss)",
    ])
    assert not any("solver" in name or "cpp" in name for name in run.series)
    assert _vals(run, "loss") == [0.209952, 0.0648483]
    assert _vals(run, "eval/accuracy") == [0.1109]


def test_names_listed_then_an_arrow_then_the_values(tmp_path):
    """Style: a logger line that lists its values' names, an arrow, then the values in the same order
    (`train, round, loss, acc, auc  ===> 003, 0.82290, 0.39816, 0.38508,`): each value is its name's,
    and a split word leading the names (no value of its own) is the line's split."""
    run = _read(tmp_path, [
        "2020-12-18 11:15:22,720 - run.py - main - L139 ::: val, round, loss, acc ===> 002, 0.88136, 0.54241,",
        "2020-12-18 11:16:03,470 - run.py - main - L133 ::: train, round, loss, acc  ===> 003, 0.82290, 0.39816,",
        "2020-12-18 11:16:20,459 - run.py - main - L139 ::: val, round, loss, acc ===> 003, 0.77909, 0.48353,",
        "2020-12-18 11:17:02,793 - run.py - main - L133 ::: train, round, loss, acc  ===> 004, 0.71339, 0.53043,",
    ])
    assert _vals(run, "loss") == [0.8229, 0.71339]
    assert _vals(run, "eval/loss") == [0.88136, 0.77909]
    assert _vals(run, "accuracy") == [0.39816, 0.53043]


def test_metric_in_a_counter_word_with_no_count_is_the_pass_mean(tmp_path):
    """Style: Torch7 scripts' epoch summary, `avg loss in epoch = 0.53` under `Iter: 2`: the counter's
    word after `in` carries no count (the value is no whole number), so the phrase names the pass's
    mean loss, not an epoch."""
    run = _read(tmp_path, [
        "Iter: 1",
        "avg loss in epoch = 0.734120",
        "total elapsed = 12.5",
        "Iter: 2",
        "avg loss in epoch = 0.612750",
        "total elapsed = 25.1",
    ])
    assert _vals(run, "loss") == [0.73412, 0.61275]
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0]


def test_bold_span_over_several_lines_is_no_part_of_the_names(tmp_path):
    """Style: a printed summary pasted in Markdown bold whose marks open the first line and close the
    last (`**avg loss in epoch = nan` ... `examples/sec = 0.000000**`): the marks are no part of the
    names or the values."""
    run = _read(tmp_path, [
        "Iter: 2",
        "**avg loss in epoch = nan",
        "total elapsed = 0.885171",
        "examples/sec = 12.500000**",
    ])
    assert math.isnan(_vals(run, "loss")[0])
    assert not any("*" in name for name in run.series)
    assert run.meta["rows"] == 1


def test_named_set_tag_before_the_first_name_is_the_split(tmp_path):
    """Style: CNTK's epoch summary, `Finished Epoch[16 of 30]: [Training Set] TrainLossPerSample =
    0.626; EvalErrPerSample = 0.205; ...`: the set named in the tag is the line's split, no part of the
    first metric's name."""
    run = _read(tmp_path, [
        "Finished Epoch[1 of 30]: [Training Set] TrainLossPerSample = 1.52140000; EvalErrPerSample = 0.55120000; "
        "AvgLearningRatePerSample = 4.6875e-005; EpochTime=95.7758",
        "Finished Epoch[2 of 30]: [Training Set] TrainLossPerSample = 1.20410000; EvalErrPerSample = 0.42870000; "
        "AvgLearningRatePerSample = 4.6875e-005; EpochTime=94.3146",
    ])
    assert _vals(run, "loss") == [1.5214, 1.2041]
    assert not any("Set" in name for name in run.series)


def test_unqualified_name_keeps_the_metric_over_its_qualified_variants(tmp_path):
    """Style: a federated run's round summary, `Round 297, Avg Loss 0.322, Loss (local): 0.338, Loss
    (Avg): 2.29, ...`: the names qualified in parentheses are variants (the local models', the averaged
    model's); the loss with no qualifier is the training loss."""
    run = _read(tmp_path, [
        "Round 10, Avg Loss 0.522, Loss (local): 0.498, Acc (local): 80.10, Loss (Avg): 1.95, Acc (Avg): 30.20,",
        "Round 11, Avg Loss 0.503, Loss (local): 0.487, Acc (local): 80.55, Loss (Avg): 1.91, Acc (Avg): 31.05,",
        "Round 12, Avg Loss 0.611, Loss (local): 0.476, Acc (local): 80.90, Loss (Avg): 1.88, Acc (Avg): 31.70,",
    ])
    assert _vals(run, "loss") == [0.522, 0.503, 0.611]
