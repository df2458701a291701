"""Reader rules of session 25, each on lines written in the style that asked for it."""

from __future__ import annotations

from written_log import read_text, read_written, series_values


def test_a_score_printed_only_beside_eval_values_is_the_evaluations(tmp_path):
    # an accelerate-style script logs the evaluation's perplexity next to its loss, once per epoch
    run = read_written(tmp_path, [f"03/02/2025 09:1{i}:00 - INFO - __main__ - epoch {i}: perplexity: {41.0 - 3 * i:.2f} "
                                  f"eval_loss: {3.71 - 0.08 * i:.4f}" for i in range(5)])
    assert "eval/perplexity" in run.series and "perplexity" not in run.series
    assert series_values(run, "eval/perplexity")[:2] == [41.0, 38.0]


def test_an_auc_on_the_evaluation_line_of_a_step_is_the_evaluations(tmp_path):
    lines = []
    for step in range(10, 16):
        lines.append(f"Rank[0], Step {step}, Loss {0.52 - 0.01 * step:.4f}, Latency 18.1 ms, Throughput 3400.2")
        lines.append(f"Rank[0], Step {step}, AUC {0.70 + 0.001 * step:.5f}, Eval_time 0.03 s, Eval_samples 640")
    run = read_written(tmp_path, lines)
    assert "eval/auc" in run.series and "auc" not in run.series


def test_a_score_beside_a_training_loss_stays_training(tmp_path):
    # the accuracy shares its line with the training loss: it is the training accuracy, val_ names the other
    run = read_written(tmp_path, [f"epoch {e}: loss {1.2 - 0.1 * e:.3f} accuracy {0.5 + 0.04 * e:.3f} "
                                  f"val_loss {1.3 - 0.1 * e:.3f}" for e in range(1, 7)])
    assert "accuracy" in run.series and "eval/accuracy" not in run.series


def test_a_loss_under_another_spelling_keeps_its_line_training(tmp_path):
    # `loss_train` beside the score says the line is the epoch's summary, not an evaluation's alone
    run = read_written(tmp_path, [f"Fold 0, Epoch {e}, loss_train: {0.6 - 0.02 * e:.5f}, loss_valid: {0.55 - 0.01 * e:.5f}, "
                                  f"roc_auc: {0.72 + 0.01 * e:.6f}." for e in range(1, 7)])
    assert "auc" in run.series and "eval/auc" not in run.series


def test_an_evaluation_metric_by_nature_does_not_pull_the_scores_beside_it(tmp_path):
    # an NMT step line: `ppl` is training's perplexity; `bleu` is the last dev score, evaluated by nature
    run = read_written(tmp_path, [f"  global step {100 * i} lr 1e-05 step-time 1.48s wps 0.01K ppl {180 - i:.2f} bleu 0.00"
                                  for i in range(1, 8)])
    assert "perplexity" in run.series and "eval/perplexity" not in run.series


def test_a_network_listing_with_shapes_is_no_metric(tmp_path):
    # the network a detector builds, printed layer by layer before a config error ends the run
    lines = ["   layer   filters  size/strd(dil)      input                output"]
    size = 416
    for i in range(12):
        lines.append(f"  {i:2d} conv    {32 * (i % 3 + 1):3d}       3 x 3/ 1    {size} x {size} x  32 ->  {size} x {size} x  64 1.595 BF")
    lines += ["  12 Shortcut Layer: 9,  wt = 0, wn = 0, outputs: 104 x 104 x 128 0.001 BF",
              "  13 route  9 \t\t                           ->   13 x  13 x 512 ",
              "  14 upsample                 2x    13 x  13 x 256 ->   26 x  26 x 256",
              "[yolo] params: iou loss: mse (2), iou_norm: 0.75, obj_norm: 1.00, cls_norm: 1.00, delta_norm: 1.00",
              "Error: l.outputs == params.inputs, filters= in the [convolutional]-layer doesn't correspond to classes="]
    run = read_written(tmp_path, lines)
    assert not run.series


def test_a_csv_of_fastais_recorder_scores_its_metrics_on_the_validation_set(tmp_path):
    # fastai's CSVLogger writes the Learner's metrics after valid_loss, as its printed table does
    rows = "".join(f"{e},{0.8 - 0.05 * e:.4f},{0.45 - 0.01 * e:.4f},{0.88 + 0.005 * e:.4f},{0.12 - 0.005 * e:.4f},04:3{e}\n"
                               for e in range(6))
    run = read_text(tmp_path, "epoch,train_loss,valid_loss,accuracy,error_rate,time\n" + rows, name="history.csv")
    assert {"loss", "eval/loss", "eval/accuracy"} <= set(run.series) and "accuracy" not in run.series


def test_a_keras_history_csv_keeps_its_training_accuracy(tmp_path):
    rows = "".join(f"{e},{0.6 + 0.05 * e:.4f},{1.1 - 0.1 * e:.4f},{0.58 + 0.04 * e:.4f},{1.2 - 0.08 * e:.4f}\n"
                               for e in range(6))
    run = read_text(tmp_path, "epoch,accuracy,loss,val_accuracy,val_loss\n" + rows, name="log.csv")
    assert {"accuracy", "eval/accuracy", "loss", "eval/loss"} <= set(run.series)


def test_a_csv_whose_every_row_stands_at_one_step_keeps_its_rows(tmp_path):
    # a Keras CSVLogger appended by eight fits of one epoch each: `0,...` on every row
    rows = "".join(f"0,{0.76 + 0.02 * i:.4f},{0.71 - 0.08 * i:.4f},{0.87 + 0.01 * i:.4f},{0.41 - 0.04 * i:.4f}\n"
                               for i in range(8))
    run = read_text(tmp_path, "epoch,categorical_accuracy,loss,val_categorical_accuracy,val_loss\n" + rows, name="history.csv")
    assert series_values(run, "loss")[0] == 0.71 and len(run.get("loss")) == 8
    assert run.meta["step_axis"] == "line order"
    assert any("every row stands at step 0" in w for w in run.meta["warnings"])


def test_rows_at_one_step_beside_rows_at_others_still_keep_the_last(tmp_path):
    # the same step printed twice among other steps is a repeat, not a file without an order
    run = read_written(tmp_path, [f"step {s} | loss {2.0 - 0.1 * i:.3f}" for i, s in enumerate([1, 2, 3, 3, 4, 5])])
    assert len(run.get("loss")) == 5


def test_a_negative_number_opening_a_line_keeps_its_sign(tmp_path):
    # a tab-separated logger table whose loss is negative (a hinge objective going unbounded): the dash before
    # the first cell's digits is the number's sign, not a separator after a line prefix
    run = read_written(tmp_path, ["Train Loss\tValid Loss\tTrain Acc\tValid Acc\t"]
                       + [f"-{3.2 + 6.7 * i:.6f}\t-{6.6 + 6.8 * i:.6f}\t18.934912\t19.583820\t" for i in range(6)])
    assert series_values(run, "loss")[0] == -3.2 and series_values(run, "eval/loss")[0] == -6.6
    run = read_text(tmp_path, "loss,val_loss,acc\n" + "".join(f"-{1.5 + i},-{4.25 + i},18.9\n" for i in range(5)),
                    name="train.log")
    assert series_values(run, "loss")[:2] == [-1.5, -2.5]


def test_a_dash_between_a_prefix_and_the_message_is_still_a_separator(tmp_path):
    run = read_written(tmp_path, [f"2024-05-01 10:00:0{i} - INFO - step {10 * i} loss {2.0 - 0.1 * i:.2f}" for i in range(1, 7)])
    assert series_values(run, "loss")[0] == 1.9


def test_a_typographic_minus_is_a_minus(tmp_path):
    # a log copied from a page or notebook rendered as HTML writes U+2212 for the minus sign
    run = read_written(tmp_path, [f"step {i} loss \u2212{1.0 + 0.5 * i:.2f} reward \u2212{3 + i}.0" for i in range(1, 6)])
    assert series_values(run, "loss")[0] == -1.5 and series_values(run, "reward")[0] == -4.0


def test_values_with_thousands_separators_are_one_number(tmp_path):
    # Python's `{:,}` after a name; a line with one comma in it is no CSV row either
    run = read_written(tmp_path, [f"step {i} loss {1234.5 - i:,.1f} tokens {1000000 * i:,}" for i in range(1, 6)])
    assert series_values(run, "loss")[0] == 1233.5 and series_values(run, "tokens")[0] == 1000000.0
    run = read_written(tmp_path, [f"step {i}, loss {1234.5 - i:,.1f}" for i in range(1, 6)])
    assert run.format == "text" and series_values(run, "loss")[-1] == 1229.5


def test_a_value_with_decimals_before_a_counts_noun_is_a_measurement(tmp_path):
    # `2.40 tokens` counts nothing (things are counted whole); the loss is 2.40 and `tokens 1000` the next pair
    run = read_written(tmp_path, [f"step {i} loss {2.5 - 0.1 * i:.2f} tokens {1000 * i}" for i in range(1, 6)])
    assert series_values(run, "loss")[0] == 2.4 and len(run.get("tokens")) == 5
    run = read_written(tmp_path, [f"epoch {i} processed {74542 * i} tokens loss {2.5 - 0.1 * i:.2f}" for i in range(1, 6)])
    assert "tokens" not in run.series and len(run.get("loss")) == 5
