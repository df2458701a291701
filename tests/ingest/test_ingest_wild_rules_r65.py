"""Reader rules for print styles met in the wild corpus (round 65): each test writes a log of its own
in the style that asked for the rule."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_boxed_table_column_named_with_a_noun_stop_word(tmp_path):
    """A solver's progress table drawn with `+----+` borders whose header holds a two-word column
    named with a noun the prose filter also knows (`| Iteration | Passes | Step size | ... |`, L-BFGS
    tables of logistic-regression toolkits): `Step size` is a column's name, not a sentence, so
    the table's rows are read."""
    rule = "+-----------+----------+-----------+--------------+-------------------+---------------------+"
    lines = ["Starting L-BFGS", rule,
             "| Iteration | Passes   | Step size | Elapsed Time | Training Accuracy | Validation Accuracy |",
             rule]
    for it, (size, acc, val) in enumerate((("NaN", 0.12, 0.10), ("0.25", 0.31, 0.28), ("0.5", 0.44, 0.40))):
        lines.append(f"| {it:<9} | {it * 3 + 1:<8} | {size:<9} | {10.5 * (it + 1):<12.6f} | {acc:<17.6f} | {val:<19.6f} |")
    lines.append(rule)
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [0.12, 0.31, 0.44]
    assert _vals(run, "eval/accuracy") == [0.10, 0.28, 0.40]
    assert run.meta["rows"] == 3
    # without a counter column the same nouns mark a run's settings drawn as a table
    box = "+------------+--------+--------------+"
    run = _read(tmp_path, [box, "| Batch size |   LR   | Sequence Len |", box, "|    100     | 0.0001 |     1000     |",
                           box, "| Epoch: 1 | Loss: 0.52 |", "| Epoch: 2 | Loss: 0.41 |"], name="settings.log")
    assert "Batch_size" not in run.series and "learning_rate" not in run.series
    assert _vals(run, "loss") == [0.52, 0.41]
    # a column whose name reads as a phrase of prose still keeps the line from being a header
    run = _read(tmp_path, ["+------+--------------+", "| step | saved to the |", "+------+--------------+",
                           "| 1    | 2            |"], name="prose.log")
    assert "saved to the" not in run.series


def test_loss_and_accuracy_quoted_after_a_sentence_lead(tmp_path):
    """An issue quotes a run's loss and accuracy after a sentence that differs from line to line (`At
    the start, I get: Loss: 5.70, Accuracy: 0.0167.`, then `At the end, I get: ...`): no counter and no
    line shape twice, but a pair of the loss itself and an accuracy is a measurement, never a setting."""
    lines = ["At the start, I get: Loss: 5.70, Accuracy: 0.0167.",
             "At the end, I get:        Loss: 4.10, Accuracy: 0.0520."]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [5.70, 4.10]
    assert _vals(run, "accuracy") == [0.0167, 0.0520]
    # a lone knob quoted in prose is still no measurement
    run = _read(tmp_path, ["With that change, we set: learning rate: 0.001, momentum: 0.9"], name="knobs.log")
    assert "learning_rate" not in run.series


def test_blank_line_between_header_and_its_row(tmp_path):
    """A whitespace-aligned results table pasted into an issue with a blank line between the header
    and its row (DomainBed's `env0_in_acc   env0_out_acc ... loss   step   step_time`, then an empty
    line, then the numbers): one blank line under a header keeps the header for the rows below."""
    lines = ["env0_in_acc   env0_out_acc  epoch         loss          step          step_time", "",
             "0.8377059182  0.8239608802  10.000000000  0.1555880866  300           0.5439552005",
             "0.8512340967  0.8299363057  20.000000000  0.0955880866  600           0.5339552005"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.1555880866, 0.0955880866]
    assert [float(s) for s in run.get("loss").steps] == [300.0, 600.0]


def test_spanish_split_words_after_the_loss(tmp_path):
    """A Spanish-language script names the split after the loss (`Epoch 10: loss entrenamiento=0.0086,
    loss validación=0.0092, exactitud=54.3%`): the alias table reads them as the training and the
    validation loss."""
    lines = [f"{k * 20}% Epoch {k * 10}: loss entrenamiento={0.0090 - k * 0.0002:.4f}, "
             f"loss validación={0.0095 - k * 0.0001:.4f}, exactitud={50 + k:.4f}%" for k in range(1, 5)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.0088, 0.0086, 0.0084, 0.0082]
    assert _vals(run, "eval/loss") == [0.0094, 0.0093, 0.0092, 0.0091]


def test_rouge_scores_printed_as_an_epoch_dict(tmp_path):
    """A custom summarisation loop prints each epoch's ROUGE as a dict (`Epoch 0: {'rouge1': 5.63,
    'rouge2': 1.16, 'rougeL': 5.48, 'rougeLsum': 5.50}`, the Hugging Face course's Accelerate loop), with no
    loss: the alias table knows ROUGE-1, ROUGE-2 and ROUGE-L as metrics, so the dicts are records."""
    lines = [f"Epoch {e}: {{'rouge1': {5.5 + e}, 'rouge2': {1.5 + e}, 'rougeL': {5.0 + e}, 'rougeLsum': {5.25 + e}}}"
             for e in range(4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "rouge1") == [5.5, 6.5, 7.5, 8.5]
    assert _vals(run, "rouge2") == [1.5, 2.5, 3.5, 4.5]
    assert run.meta["rows"] == 4


def test_metric_history_as_counter_value_pairs(tmp_path):
    """A federated-learning server logs each metric's history as a list of (round, value) pairs after
    its name (Flower's `app_fit: losses_distributed [(1, 0.0758), (2, 0.0649), (3, 0.0707)]`, with empty
    lists for metrics it did not collect): one record per pair, the round its step, where the log holds
    no progress line (the history restates those). A list of pairs under a name that is no metric (a
    schedule's milestones) stays unread."""
    stamp = "INFO flower 2022-05-02 10:11:12,345 | app.py:{} | app_fit: "
    lines = [stamp.format(109) + "losses_distributed [(1, 0.912), (2, 0.634), (3, 0.518), (4, 0.477)]",
             stamp.format(110) + "accuracies_distributed []",
             stamp.format(111) + "losses_centralized []"]
    run = _read(tmp_path, lines)
    assert _vals(run, "losses_distributed") == [0.912, 0.634, 0.518, 0.477]
    assert [float(s) for s in run.get("losses_distributed").steps] == [1.0, 2.0, 3.0, 4.0]
    run = _read(tmp_path, ["milestones [(10, 0.1), (20, 0.01)]", "loss: 0.5", "loss: 0.4"], name="sched.log")
    assert "milestones" not in run.series
    # beside a progress line, the end-of-run history adds nothing
    run = _read(tmp_path, ["Round 1, loss: 0.912", "Round 2, loss: 0.634", lines[0]], name="progress.log")
    assert "losses_distributed" not in run.series and _vals(run, "loss") == [0.912, 0.634]
