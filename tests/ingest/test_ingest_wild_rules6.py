"""Reading rules drawn from the wild6 collection's first read (each true of printed logs in general)."""

from __future__ import annotations

import math

from triage.ingest.textlog import _segments
from written_log import read_written as _read


def test_gradient_boosting_rounds_read_with_their_round_as_the_step(tmp_path):
    """LightGBM `[1]<TAB>training's binary_logloss: ...` and XGBoost `[0]<TAB>train-logloss:...`."""
    lgb = _read(tmp_path, [f"[{k}]\ttraining's binary_logloss: {0.7 - k / 100:.4f}\tvalid_1's binary_logloss: "
                           f"{0.71 - k / 200:.4f}\tvalid_1's auc: {0.6 + k / 100:.3f}" for k in range(1, 6)])
    assert list(lgb.get("loss").steps) == [1, 2, 3, 4, 5]
    assert math.isclose(lgb.get("eval/loss").values[-1], 0.685)
    assert lgb.get("eval/auc") is not None
    xgb = _read(tmp_path, [f"[{k}]\ttrain-logloss:{0.6 - k / 50:.4f}\teval-logloss:{0.62 - k / 80:.4f}" for k in range(4)])
    assert list(xgb.get("eval/loss").steps) == [0, 1, 2, 3]


def test_a_rank_prefix_is_still_a_prefix(tmp_path):
    run = _read(tmp_path, [f"[0] step {k} loss {1 / k:.3f}" for k in range(1, 5)])
    assert list(run.get("loss").steps) == [1, 2, 3, 4]


def test_asctime_stamps_are_prefixes_and_each_top_k_keeps_its_name(tmp_path):
    """`[ Tue Nov 14 00:36:21 2023 ]` before every line; `Top1:` and `Top5:` lines share one template."""
    lines = []
    for e in range(1, 4):
        lines += [f"[ Tue Nov 14 00:{e:02d}:21 2023 ] Training epoch: {e}",
                  f"[ Tue Nov 14 00:{e:02d}:30 2023 ] \tMean training loss: {1 / e:.4f}.  Mean training acc: {50 + e}.00%.",
                  f"[ Tue Nov 14 00:{e:02d}:31 2023 ] Eval epoch: {e}",
                  f"[ Tue Nov 14 00:{e:02d}:40 2023 ] \tMean test loss of 258 batches: {1.2 / e:.4f}.",
                  f"[ Tue Nov 14 00:{e:02d}:40 2023 ] \tTop1: {40 + e}.00%",
                  f"[ Tue Nov 14 00:{e:02d}:40 2023 ] \tTop5: {80 + e}.00%"]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [1, 2, 3]
    assert list(run.get("eval/accuracy").values) == [41, 42, 43]
    assert list(run.get("eval/accuracy_top5").values) == [81, 82, 83]
    assert run.get("eval/test/loss") is not None or run.get("eval/loss") is not None


def test_a_print_glued_after_a_progress_bar_is_its_own_line():
    line = " 26%|███▊  | 6399993/25000000 [16:22:11<48:18:45, 106.94it/s]INFO:agent:avg_r: 0.0000, avg_l: 0.000135"
    assert _segments(line) == [" 26%|███▊  | 6399993/25000000 [16:22:11<48:18:45, 106.94it/s]",
                               "INFO:agent:avg_r: 0.0000, avg_l: 0.000135"]
    postfix = "Epoch 1: 10%|#  | 10/100 [00:01<00:09, 9.8it/s, loss=0.5]"
    assert _segments(postfix) == [postfix]


def test_markdown_quote_and_code_span_marks_are_no_part_of_the_line(tmp_path):
    run = _read(tmp_path, ["`1: loss: 6.4467", "2: loss: 6.2690", "3: loss: 6.2375"])
    assert math.isclose(run.get("loss").values[0], 6.4467)
    quoted = _read(tmp_path, [f"> step {k} loss {2 / k:.3f}" for k in range(1, 4)])
    assert list(quoted.get("loss").steps) == [1, 2, 3]


def test_minibatch_and_episode_return_names():
    from triage.ingest.aliases import table

    t = table()
    assert t.resolve("Minibatch loss", "text").name == "loss"
    assert t.resolve("Episode Return", "text").name == "episode_reward"


def test_a_step_count_that_never_moves_while_the_epoch_does_is_a_size(tmp_path):
    """`Epoch: 3, Steps: 281 | Train Loss: ...`: 281 is how many steps an epoch has, not the step."""
    lines = [f"Epoch: {e}, Steps: 281 | Train Loss: {1 / e:.4f} Vali Loss: {1.1 / e:.4f} Test Loss: {1.2 / e:.4f}"
             for e in range(1, 4)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [1, 2, 3]
    assert math.isclose(run.get("eval/loss").values[0], 1.1)


def test_the_command_line_and_a_settings_dict_are_no_records(tmp_path):
    """`--epoch 300 --batch-size 32 ...` and `pprint(vars(args))` over several lines precede the epochs."""
    lines = ["cgcnn-tr -as cif/ --train-ratio 0.8 --epoch", " 300 --batch-size 32 --workers 10 --learning-rate 0.001",
             "{'atom_fea_len': 64,", " 'batch_size': 32,", " 'device': device(type='cpu'),", " 'epoch': 300.0,",
             " 'learning_rate': 0.001}"]
    lines += [f"INFO: Epoch [{e:03d}/300] - Train Loss: {100 / e:.5f}, Valid Loss: {90 / e:.5f}, LR: [0.001]" for e in range(1, 6)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [1, 2, 3, 4, 5]
    assert not run.meta.get("run_starts")
    assert run.meta["skipped"].get("a settings dict printed over several lines") == 5


def test_a_metrics_dict_printed_over_several_lines_is_one_record(tmp_path):
    lines = []
    for e in (1, 2):
        lines += [f"{{'eval_loss': {0.6 - e / 10},", f" 'eval_accuracy': {0.7 + e / 10},", f" 'epoch': {e}.0}}"]
    run = _read(tmp_path, lines)
    assert list(run.get("eval/loss").steps) == [1, 2]
    assert math.isclose(run.get("eval/accuracy").values[-1], 0.9)


def test_metrics_written_after_a_bar_and_a_name_bar_value_line(tmp_path):
    """`* 27%|##7| 54/200 [53:05<2:23:32, 58.99s/ep] TrnAcc=0.045 ValAcc=0.034 ...` (a Markdown bullet),
    and Trax's `Step 500: train WeightedCategoryCrossEntropy |  0.629` with `Ran 499 train steps in 5.77 secs`."""
    bars = [f"  * {p}%|##7       | {n}/200 [53:05<2:23:32, 58.99s/ep] TrnAcc=0.0{k} ValAcc=0.03{k} TrnLoss=3.9{k} ValLoss=3.91{k}"
            for k, (p, n) in enumerate(((27, 54), (10, 21), (14, 27)))]
    run = _read(tmp_path, ["## CNN()"] + bars)
    assert len(run.get("eval/loss").values) == 3 and run.get("accuracy") is not None
    trax = []
    for step in (1, 500, 1000):
        trax += [f"Step {step:6d}: Ran {max(step - 1, 1)} train steps in 5.77 secs",
                 f"Step {step:6d}: train WeightedCategoryCrossEntropy |  {1 / step:.8f}",
                 f"Step {step:6d}: eval      WeightedCategoryAccuracy |  {0.5 + step / 4000:.8f}"]
    run = _read(tmp_path, trax)
    assert list(run.get("loss").steps) == [1, 500, 1000]
    assert list(run.get("eval/accuracy").steps) == [1, 500, 1000]
    assert sorted(run.series) == ["eval/accuracy", "loss"]


def test_two_splits_joined_by_a_slash_give_one_value_each(tmp_path):
    """`Train/Valid ACC: 0.53/0.40` is two accuracies, not a fraction."""
    run = _read(tmp_path, [f"Epoch: {e:03d} | AvgCost: {1 / (e + 1):.3f} | Train/Valid ACC: 0.{50 + e}/0.{40 + e}"
                           for e in range(5)])
    assert math.isclose(run.get("accuracy").values[0], 0.5)
    assert math.isclose(run.get("eval/accuracy").values[-1], 0.44)


def test_a_swin_style_logger_prefix_is_no_part_of_the_line():
    """`[2025-10-20 20:55:02 alexnet](main.py 186): INFO ...` (coloured): the logger's name, file and line."""
    from triage.ingest import printed

    line = "\x1b[32m[2025-10-20 20:55:02 alexnet]\x1b[0m\x1b[33m(main.py 186)\x1b[0m: INFO Train: [0/50]\tlr 0.000300\tloss 1.9214"
    assert printed.clean(line) == "Train: [0/50]\tlr 0.000300\tloss 1.9214"


def test_a_metric_at_a_counter_then_a_colon_is_that_metric(tmp_path):
    """`Minibatch loss at step 3000: 58.92` (the TF1 Udacity notebooks), as `Score at iteration 100 is 1.39`."""
    lines = []
    for k in range(1, 4):
        lines += [f"Minibatch loss at step {500 * k}: {60 / k:.6f}", f"Minibatch accuracy: {80 + k}.0%",
                  f"Validation accuracy: {70 + k}.0%"]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [500, 1000, 1500]
    assert math.isclose(run.get("loss").values[-1], 20.0)
    assert list(run.get("accuracy").values) == [81, 82, 83]


def test_the_epoch_of_a_best_value_is_not_the_lines_epoch_and_dice_has_a_name(tmp_path):
    """MONAI's `current epoch: 100 current mean dice: 0.0123 best mean dice: 0.0488 at epoch 88`."""
    lines = [f"current epoch: {e} current mean dice: 0.0{e}23 best mean dice: 0.0488 at epoch 1" for e in range(2, 6)]
    run = _read(tmp_path, lines)
    dice = run.get("dice") or run.get("eval/dice")
    assert dice is not None and list(dice.steps) == [2, 3, 4, 5]


def test_a_split_word_before_a_count_of_passes_is_the_epoch_not_a_score(tmp_path):
    """OpenPCDet's `Train:    1/3 ( 33%) [  49/323 ( 15%)]  Loss: 36.77 (81.7)`: epoch 1 of 3, no accuracy."""
    lines = [f"Train:    1/3 ( 33%) [{b:4d}/323 ({b * 100 // 323:3d}%)]  Loss: {500 / (b + 1):.2f} ({600 / (b + 1):.1f})  LR: 1.000e-04"
             for b in (0, 49, 99, 149)]
    run = _read(tmp_path, lines)
    assert run.get("accuracy") is None
    assert len(run.get("loss").values) == 4


def test_a_whole_number_between_a_metric_and_its_decimal_value_is_the_iteration(tmp_path):
    """NVIDIA tacotron2: `Train loss 0 48.220909 Grad Norm 13.484264 5.71s/it`, `Validation loss 0: 37.061010`."""
    lines = [f"Train loss {k} {48 / (k + 1):.6f} Grad Norm {13 / (k + 1):.6f} 5.71s/it" for k in range(6)]
    lines.insert(3, "Validation loss 2: 37.061010")
    run = _read(tmp_path, lines)
    assert list(run.get("loss").steps) == [0, 1, 2, 3, 4, 5]
    assert math.isclose(run.get("loss").values[0], 48.0)
    assert run.get("grad_norm") is not None
    assert math.isclose(run.get("eval/loss").values[0], 37.06101)
