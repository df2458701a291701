"""Reader rules for print styles met in real training logs (round 84), each tested on a log written here."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_component_line_under_counted_line_joins_its_record(tmp_path):
    """Style: a detector's trainer prints `[epoch 1][iter 100/5000] loss: 2.41, lr: 1e-3`, then an indented
    line of the loss's parts (`rpn_cls: 0.71, rpn_box: 0.005, rcnn_cls: 1.73, rcnn_box 0.21`) with no counter
    and no `loss` in its names: the parts belong to the counted line's step."""
    lines = []
    for k, (total, parts) in enumerate([(2.41, (0.71, 0.005, 1.73, 0.21)), (1.9, (0.52, 0.004, 1.22, 0.16)),
                                        (1.5, (0.4, 0.003, 0.95, 0.12))], 1):
        lines.append(f"[epoch  1][iter  {k * 100:3d}/5000] loss: {total:.4f}, lr: 1.00e-03")
        lines.append(f"\t\t\tfg/bg=(12/500), time cost: {1.5 + k:.6f}")
        lines.append("\t\t\trpn_cls: %.4f, rpn_box: %.4f, rcnn_cls: %.4f, rcnn_box %.4f" % parts)
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.41, 1.9, 1.5]
    assert _vals(run, "rpn_cls") == [0.71, 0.52, 0.4]
    assert _vals(run, "rcnn_box") == [0.21, 0.16, 0.12]
    assert [float(s) for s in run.get("rpn_cls").steps] == [100.0, 200.0, 300.0]
    assert run.meta["rows"] == 3


def test_results_dict_after_evaluation_banner_is_evaluation(tmp_path):
    """Style: HF's legacy question-answering example evaluating only: `***** Running evaluation *****`, its
    settings and bar, then `Results: {'exact': 0.33, 'f1': 7.12, 'total': 10570}` behind a logger's prefix."""
    run = _read(tmp_path, [
        "06/01/2021 22:55:40 - INFO - __main__ -   ***** Running evaluation  *****",
        "06/01/2021 22:55:40 - INFO - __main__ -     Num examples = 10833",
        "06/01/2021 22:55:40 - INFO - __main__ -     Batch size = 32",
        "06/01/2021 22:57:22 - INFO - __main__ -     Evaluation done in total 102.2 secs (0.0094 sec per example)",
        "06/01/2021 22:58:27 - INFO - __main__ -   Results: {'exact': 0.331, 'f1': 7.122, 'total': 10570}",
    ])
    assert _vals(run, "eval/f1") == [7.122]
    assert "f1" not in run.series


def test_bare_accuracy_beside_validation_loss_is_validation(tmp_path):
    """Style: a pruning tool's per-epoch evaluation line, `Epoch 3/100, Acc=0.8735, Val Loss=0.3865, lr=0.0100`:
    the line's only loss is the validation loss, so its accuracy, with no split word, is measured there too."""
    lines = [f"[04/01 21:4{k}:14 cifar10-resnet56]: Epoch {k}/100, Acc=0.{90 - k}00, Val Loss=0.{30 + k}00, lr=0.0100"
             for k in range(4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/accuracy") == [0.9, 0.89, 0.88, 0.87]
    assert _vals(run, "eval/loss") == [0.3, 0.31, 0.32, 0.33]
    assert "accuracy" not in run.series


def test_bare_accuracy_stays_training_beside_training_loss(tmp_path):
    """Style: Keras-like epoch lines `epoch 1 loss: 0.5 acc: 0.8 val_loss: 0.6`: a training loss on the line
    keeps its bare accuracy training's."""
    run = _read(tmp_path, [f"epoch {k} loss: 0.{5 - k} acc: 0.{6 + k} val_loss: 0.{6 - k}" for k in range(1, 4)])
    assert _vals(run, "accuracy") == [0.7, 0.8, 0.9]
    assert _vals(run, "eval/loss") == [0.5, 0.4, 0.3]


def test_quantization_lr_reads_as_learning_rate(tmp_path):
    """Style: block-wise quantization training lines, `INFO blocks 0 epoch 0 recon_loss:8.6e-06 val_loss:7.6e-06
    quant_lr:5.2e-05 norm:0.00012`: `quant_lr` is the rate the quantization parameters train at."""
    run = _read(tmp_path, [
        f"[2024-08-14 16:3{k}:40 root] (block_ap.py 282): INFO blocks 0 epoch {k} recon_loss:{8 - k}e-06 "
        f"val_loss:{7 - k}e-06 quant_lr:{5 - k}e-05 norm:0.0001" for k in range(3)])
    assert _vals(run, "learning_rate") == [5e-05, 4e-05, 3e-05]
    assert _vals(run, "eval/loss") == [7e-06, 6e-06, 5e-06]


def test_bare_accuracy_beside_training_accuracy_is_held_out(tmp_path):
    """Style: a data-poisoning benchmark's epoch line, `20240801 16:57:32 Epoch: 19 , Loss: 0.003 , Training acc:
    99.944 , Natural accuracy: 94.18 , poison success: False`: with the training accuracy named as such, the
    other accuracy on the line (natural: on clean inputs) is the held-out one."""
    run = _read(tmp_path, [
        f"20240801 1{k}:57:32 Epoch: {19 + 20 * k} , Loss: 0.00{k + 2} , Training acc: 99.{k + 5} , "
        f"Natural accuracy: 94.{k + 1} , poison success: False" for k in range(3)])
    assert _vals(run, "accuracy") == [99.5, 99.6, 99.7]
    assert _vals(run, "eval/accuracy") == [94.1, 94.2, 94.3]
    assert _vals(run, "loss") == [0.002, 0.003, 0.004]


def test_checkpoint_notice_under_a_counted_line_does_not_join_it(tmp_path):
    """Style: fairseq prints its validation line, then `saved checkpoint ... (epoch 2 @ 695 updates, score 9.393)
    (writing took 5.76 seconds)`: the numbers of a line about a file are the file's, not more values of the
    validation record above it (an `@ 695` read as a held-out score once gave an 'accuracy' of 695)."""
    run = _read(tmp_path, [
        "2020-03-23 11:38:13 | INFO | train | epoch 002 | loss 9.803 | nll_loss 8.89 | ppl 474.37 | num_updates 695",
        "2020-03-23 11:38:31 | INFO | valid | epoch 002 | valid on 'valid' subset | loss 9.393 | nll_loss 8.328 | "
        "ppl 321.26 | num_updates 695 | best_loss 9.393",
        "2020-03-23 11:38:37 | INFO | fairseq.checkpoint_utils | saved checkpoint checkpoints/checkpoint2.pt "
        "(epoch 2 @ 695 updates, score 9.393) (writing took 5.761506536975503 seconds)",
        "2020-03-23 11:39:44 | INFO | train | epoch 003 | loss 9.44 | nll_loss 8.44 | ppl 347.28 | num_updates 700",
    ])
    assert _vals(run, "eval/loss") == [9.393]
    assert not any("accuracy" in name for name in run.series)
