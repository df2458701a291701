"""Reader rules for print styles seen in real training logs (round 35): each test writes a small log in
the style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals

_BAR = "\u2588" * 10


def test_bar_postfix_items_joined_by_a_spaced_dash(tmp_path):
    """segmentation_models.pytorch's epoch runner: a finished bar whose postfix writes each meter as
    `name - value` (`train: 100%|...| 46/46 [00:14<00:00, 3.09it/s, dice_loss - 0.41, iou_score - 0.52]`),
    a `valid:` bar of the same shape after it; the dash separates, it is no minus sign."""
    lines = []
    for epoch, (tr, va) in enumerate([(0.41, 0.47), (0.33, 0.40), (0.29, 0.38)]):
        lines += ["", f"Epoch: {epoch}",
                  f"train: 100%|{_BAR}| 46/46 [00:14<00:00,  3.09it/s, dice_loss - {tr}, iou_score - 0.5{epoch}]",
                  f"valid: 100%|{_BAR}| 101/101 [00:04<00:00, 24.7it/s, dice_loss - {va}, iou_score - 0.4{epoch}]",
                  "Model saved!"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.41, 0.33, 0.29]
    assert _vals(run, "eval/loss") == [0.47, 0.40, 0.38]
    assert all(v > 0 for v in _vals(run, "iou_score"))


def test_lone_loss_of_its_own_name_takes_its_evaluated_twin_as_eval_loss(tmp_path):
    """A log whose one loss goes by its own name (`bce_dice_loss`) printed for training and for the
    validation pass: the validation's value of that same name is the evaluation loss."""
    lines = []
    for epoch, (tr, va) in enumerate([(2.09, 1.84), (1.20, 1.21), (0.85, 0.99)]):
        lines += [f"Epoch {epoch} train: bce_dice_loss={tr}, iou={0.1 * (epoch + 1):.1f}",
                  f"Epoch {epoch} valid: bce_dice_loss={va}, iou={0.1 * epoch:.1f}"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.09, 1.20, 0.85]
    assert _vals(run, "eval/loss") == [1.84, 1.21, 0.99]


def test_words_after_a_rate_name_the_next_value(tmp_path):
    """arcface-pytorch: `train epoch 7 iter 75 1.879 iters/s loss 14.68 acc 0.0`: the number before the
    rate's unit is the speed; `loss` names the number after it, not the speed before it."""
    lines = [f"Tue Oct 16 14:2{i}:41 2018 train epoch 7 iter {75 + 100 * i} 9.{i} iters/s loss 14.{6 + i} acc 0.0"
             for i in range(4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [14.6, 14.7, 14.8, 14.9]


def test_count_then_its_counter_word(tmp_path):
    """`000 epoch, 02000 iter, average time 0.63, loss -403.4`: each count comes before the word of its
    counter, which a comma closes; the iteration is the step (not the epoch number taken as one)."""
    lines = [f"000 epoch, {it:05d} iter, average time 0.6{i}, loss {37.2 - 400 * i}" for i, it in enumerate((0, 2000, 4000))]
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("loss").steps] == [0.0, 2000.0, 4000.0]
    assert _vals(run, "loss")[0] == 37.2


def test_tot_first_among_loss_terms_is_the_loss(tmp_path):
    """CenterNet-family trackers (CenterTrack, FairMOT): `epoch: 1 |tot 8.03 | hm 0.78 | wh 1.38 |`, the
    sum of the loss terms printed first as `tot`."""
    lines = [f"2021-02-23-19-0{e}: epoch: {e} |tot {9 - e}.034 | hm 0.78 | wh 1.38 | tracking 4.7 | time 114.4 | "
             for e in (1, 2, 3)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [8.034, 7.034, 6.034]


def test_class_acc_is_the_accuracy(tmp_path):
    """BEiT-style fine-tuning MetricLogger lines print the batch accuracy as `class_acc: 1.0000 (1.0000)`."""
    lines = [f"Epoch: [3]  [{i * 10:3d}/121]  eta: 0:03:06  lr: 0.000309  loss: 0.01{4 - i} (0.0148)  "
             f"class_acc: 0.9{i}00 (0.9000)  time: 1.6  data: 0.9  max mem: 34435" for i in (1, 2, 3)]
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [0.91, 0.92, 0.93]


def test_generator_total_is_the_generator_loss(tmp_path):
    """neural-enhance: `Epoch #1 at 81.6s, lr=1.00e-05`, then `  - generator total=1.30e+05 prcpt=...`:
    the generator's loss printed as the total of its terms."""
    lines = []
    for e, tot in ((1, "1.30e+05"), (2, "1.09e+05")):
        lines += [f"Epoch #{e} at {81.6 * e:.1f}s, lr=1.00e-04" + " " * 20,
                  f"  - generator total={tot} prcpt=1.29e+05 smthn=6.57e+02 advrs=0.00e+00",
                  "  - discriminator 0.732835 15 -0.732835 15"]
    run = _read(tmp_path, lines)
    assert _vals(run, "g_loss") == [130000.0, 109000.0]


def test_darknet_iteration_line_is_no_rank_prefix(tmp_path):
    """darknet's iteration line opens with `N: ` at the line's very start (`1012: 3.25, 3.40 avg, 0.001 rate,
    1.9 seconds, 6072 images`, the running average written `avg` alone): the count is the iteration,
    not a launcher's rank tag, and the first value is the batch's loss."""
    lines = []
    for it in (1012, 1013, 1014):
        lines.append(f"{it}: {it / 100:.6f}, {it / 90:.6f} avg, 0.001000 rate, 1.947555 seconds, {it * 6} images")
        lines.append("Loaded: 0.000021 seconds")
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("loss").steps] == [1012.0, 1013.0, 1014.0]
    assert _vals(run, "loss") == [10.12, 10.13, 10.14]
    assert _vals(run, "learning_rate") == [0.001] * 3


def test_markdown_rule_whose_cell_dashes_came_apart(tmp_path):
    """A fastai table copied as Markdown text whose rule row lost a pipe (`--     -- | -- | -- | --`):
    the rule is a rule, and the header keeps its column names in place."""
    lines = ["epoch | train_loss | valid_loss | error_rate | time",
             "--         --               | --              | --               | --",
             "0         | 0.139242 | 0.033724 | 0.009472 | 26:43"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.139242]
    assert _vals(run, "eval/loss") == [0.033724]
    assert _vals(run, "eval/error_rate") == [0.009472]  # fastai scores its metrics on the validation set


def test_month_day_dash_clock_stamp_is_a_prefix(tmp_path):
    """A logger datefmt of `%m/%d-%H:%M:%S.%f` (`02/18-02:53:26.942 epoch 3 loss 0.41`): the stamp opens
    the line and carries no value."""
    lines = [f"02/18-02:5{i}:26.942 epoch {i} loss 0.{9 - i}1" for i in range(1, 4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.81, 0.71, 0.61]
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0]


def test_table_printed_through_a_stamped_logger(tmp_path):
    """spaCy's training table with every line, header and rule included, behind the logger's stamp
    (`02/18-02:52:32.282 E    #       LOSS NER  ENTS_F ...`): the columns stand where the header put them."""
    stamp = "02/18-02:5{}:32.282 "
    lines = [stamp.format(0) + "E    #       LOSS NER  ENTS_F  ENTS_P  ENTS_R  SCORE ",
             stamp.format(0) + "---  ------  --------  ------  ------  ------  ------",
             stamp.format(1) + "  0       0    842.20    0.83    0.44    6.68    0.03",
             stamp.format(2) + "  0     800  13137.27   92.45   91.63   93.28    0.93",
             stamp.format(3) + "  0    1600   9326.55   92.85   92.78   92.91    0.93"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/f1") == [0.83, 92.45, 92.85]
    assert [float(s) for s in run.get("eval/f1").steps] == [0.0, 800.0, 1600.0]


def test_sentence_naming_the_split_labels_the_values_after_it(tmp_path):
    """`Validation set. Loss: 0.0000, Accuracy: nan` / `Test set. Loss: ...`: a short sentence naming the
    set scored, then the values; those are the evaluation's, not training's."""
    lines = ["######## Epoch: 1", "Validation set. Loss: 0.0000, Accuracy: nan",
             "Test set. Loss: 0.0000, Accuracy: nan",
             "Train Epoch: 2 [1920/15813 (12%)]       Loss: 0.000446, Accuracy: 100%, Learning rate: 0.100000",
             "Train Epoch: 2 [3840/15813 (24%)]       Loss: 0.000027, Accuracy: 100%, Learning rate: 0.100000"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.000446, 0.000027]
    assert all(v == 0.0 for v in _vals(run, "eval/loss"))
    assert all(math.isnan(v) for v in _vals(run, "eval/accuracy"))


def test_dashed_split_counter_line_heads_one_value_lines(tmp_path):
    """`train---epoch : 51 ,  global step : 24356`, then `loss :  0.0166`, `accuracy : 0.9998`, ... a line
    each, and a rule: the counters head the block, whose lines are one record at that step."""
    lines = ["train:"]
    for i, step in enumerate((24356, 24357, 24358)):
        lines += [f"train---epoch : 51 ,  global step : {step}", f"loss :  0.0{i + 1}6644", f"accuracy : 0.99{i}849",
                  f"f1 : 0.99{i}725", "-" * 36]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert [float(s) for s in run.get("loss").steps] == [24356.0, 24357.0, 24358.0]
    assert _vals(run, "loss") == [0.016644, 0.026644, 0.036644]
