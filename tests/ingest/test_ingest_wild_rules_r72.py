"""Reader rules for evaluation and adversarial-training outputs (round 72): each test writes a short log in
one style and checks what the reader takes from it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_csv_rows_ending_in_a_separator(tmp_path):
    """A comma-and-space table saved as .txt whose rows each end with a comma (`0, 26.0, 158.2, ...,
    Aug16-15:41:04,`): the empty cell past the header's last column is no extra column, so the file is
    read as a table, one row per epoch, without a warning about ragged rows."""
    lines = ["epoch, train_loss, test_loss, train_acc, test_acc, time"]
    for e, (tr, te) in enumerate([(3.1, 3.4), (2.6, 2.9), (2.2, 2.7)]):
        lines.append(f"{e}, {tr:.5f}, {te:.5f}, {40 + e:.3f}, {38 + e:.3f}, Jan0{e + 1}-10:00:00,")
    run = _read(tmp_path, lines, name="log.txt")
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == [3.1, 2.6, 2.2]
    assert _vals(run, "eval/loss") == [3.4, 2.9, 2.7]
    assert not run.meta.get("warnings")


def test_flag_closing_a_sentence_before_the_counter(tmp_path):
    """A logging line that opens with a flag and its truth value as a sentence of its own (`Backdoor False.
    Epoch:    30. Accuracy: 95.10 | Loss: 0.17`): the flag is a setting, not the first words of a counter's
    name, so the epoch is read and both lines are rows."""
    lines = [
        "2023-09-24 11:08:14 - WARNING  - Poisoned False. Epoch:    30. Accuracy: 95.10 | Loss: 0.17",
        "2023-09-24 11:09:14 - WARNING  - Poisoned False. Epoch:    31. Accuracy: 95.40 | Loss: 0.15",
        "2023-09-24 11:09:16 - WARNING  - Poisoned True . Epoch:    32. Accuracy: 10.55 | Loss: 5.76",
    ]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == [0.17, 0.15, 5.76]
    assert not any("Poisoned" in name for name in run.series)


def test_clean_loss_and_accuracy_abbreviated(tmp_path):
    """Adversarial training's test print with `cln` for clean (`Test set: avg cln loss: 2.3025, cln acc:
    1000/10000 (10%)`) beside the same print for the attacked inputs: the clean loss and accuracy are the
    evaluation's loss and accuracy."""
    lines = []
    for epoch, (tr, te) in enumerate([(2.42, 2.31), (2.10, 2.05)], start=1):
        lines += [f"Train Epoch: {epoch} [0/50000 (0%)]\tLoss: {tr:.6f}", "",
                  f"Test set: avg cln loss: {te:.4f}, cln acc: 4000/10000 (40%)", "",
                  "Test set: avg adv loss: 2.9000, adv acc: 1000/10000 (10%)", ""]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [2.31, 2.05]
    assert _vals(run, "eval/accuracy") == [0.4, 0.4]


def test_held_out_accuracy_not_taken_for_the_training_one(tmp_path):
    """A log with no training accuracy whose one unknown accuracy opens with the test split's word
    (`Test set: ... adv acc: ...` read as `test_adv_acc`): that accuracy is no training accuracy, so it
    keeps its own name rather than standing in as `accuracy`."""
    lines = []
    for epoch in (1, 2):
        lines += [f"Train Epoch: {epoch} [0/50000 (0%)]\tLoss: 2.30{epoch}", "",
                  "Test set: avg adv loss: 2.9000, adv acc: 1000/10000 (10%)", ""]
    run = _read(tmp_path, lines)
    assert "accuracy" not in run.series
    assert _vals(run, "loss") == [2.301, 2.302]


def test_round_and_results_dict(tmp_path):
    """A federated-learning logger's dicts whose scores sit under a `Results_...` key beside the round and
    the role (`INFO: {'Role': 'Server #', 'Round': 1, 'Results_raw': {'test_acc': 0.11, ...}}`): the
    round is the step, the client's training scores and the server's test scores are rows."""
    lines = [
        "2024-04-29 16:42:48,817 (client:357) INFO: {'Role': 'Client #1', 'Round': 0, 'Results_raw': "
        "{'train_avg_loss': 1.446, 'train_total': 50000, 'train_acc': 0.486}}",
        "2024-04-29 16:42:48,820 (server:344) INFO: Server: Starting evaluation at the end of round 0.",
        "2024-04-29 16:42:50,445 (server:960) INFO: {'Role': 'Server #', 'Round': 1, 'Results_raw': "
        "{'test_avg_loss': 2.301, 'test_total': 10000, 'test_acc': 0.11}}",
    ]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 2
    assert _vals(run, "accuracy") == [0.486]
    assert _vals(run, "eval/accuracy") == [0.11]
    assert [float(s) for s in run.get("eval/accuracy").steps] == [1.0]


def test_epoch_and_total_bracketed_after_the_colon(tmp_path):
    """A classification loop's epoch header with the counter and its total in brackets after the colon,
    split by a bar or a slash (`Epoch: [1 | 20] LR: 0.100000`), above a progress bar's summary whose
    `(56/56)` counts the epoch's batches: the bracket's first number is the epoch."""
    lines = [
        "Epoch: [1 | 20] LR: 0.100000",
        "Processing |################################| (56/56) | Total: 0:00:03 | Loss: 0.0897 | top1:  52.8383",
        "",
        "Epoch: [2 | 20] LR: 0.100000",
        "Processing |################################| (56/56) | Total: 0:00:03 | Loss: 0.0334 | top1:  57.3866",
        "",
        "Epoch: [3/20] LR: 0.010000",
        "Processing |################################| (56/56) | Total: 0:00:03 | Loss: 0.0134 | top1:  57.7900",
    ]
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert [float(v) for v in loss.values] == [0.0897, 0.0334, 0.0134]
    assert loss.epochs is not None and [float(e) for e in loss.epochs] == [1.0, 2.0, 3.0]
