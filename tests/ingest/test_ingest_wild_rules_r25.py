"""Reader rules from the twenty-fifth round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_lerobot_grdn_is_the_gradient_norm(tmp_path):
    """LeRobot's console line shortens the gradient norm to `grdn` (`loss:0.412 grdn:2.918 lr:3.0e-07`)."""
    lines = [f"INFO 2025-03-02 10:1{i}:05 ot_train.py:280 step:{(i + 1) * 50} smpl:{(i + 1) * 2}K ep:0 epch:0.0{i} "
             f"loss:0.41{i} grdn:2.9{i} lr:3.0e-07 updt_s:1.250 data_s:0.011" for i in range(3)]
    run = _read(tmp_path, lines)
    assert _vals(run, "grad_norm") == [2.9, 2.91, 2.92]
    assert _vals(run, "loss") == [0.41, 0.411, 0.412]


def test_shell_command_continued_over_lines_is_no_record(tmp_path):
    """A launch command broken over lines with ` \\` continuations (`--steps=50000 --batch_size=16`,
    `  --epochs 100 \\`, `  --lr 3e-4 \\`): its options are settings, and the last line, with no
    backslash, still belongs to it."""
    lines = ["torchrun --nproc_per_node=2 train.py \\", "  --epochs 100 \\", "  --lr 3e-4 \\",
             "  --weight_decay 0.01 \\", "  --steps=50000 --batch_size=16 --policy.device=cuda", ""]
    lines += [f'{{"train_lr": 1.{i}e-04, "train_loss": 0.9{5 - i}, "epoch": {i}}}' for i in range(4)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert run.meta["restarts"] == 0
    assert "weight_decay" not in run.series
    assert [float(s) for s in run.get("loss").steps] == [0.0, 1.0, 2.0, 3.0]


def test_list_of_name_value_pairs_is_a_record(tmp_path):
    """pfrl's train_agent prints its statistics as a list of (name, value) pairs
    (`statistics:[('average_q', 0.12), ('average_loss', 0.5), ('n_updates', 40)]`)."""
    lines = []
    for i in range(3):
        lines.append(f"INFO:pfrl.experiments.train_agent:outdir:results/run1 step:{(i + 1) * 20} episode:{i} R:{i + 1}.5")
        lines.append(f"INFO:pfrl.experiments.train_agent:statistics:[('average_q', 0.1{i}), "
                     f"('average_loss', {'nan' if i == 2 else f'0.4{i}'}), ('n_updates', {i * 10}), ('rlen', {(i + 1) * 20})]")
    run = _read(tmp_path, lines)
    loss = _vals(run, "loss")
    assert loss[:2] == [0.4, 0.41] and math.isnan(loss[2])
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 6


def test_bracketed_step_before_slashed_pairs(tmp_path):
    """Dreamer's console line: the step in brackets, then `name value` pairs split by ` / `
    (`[20000] model_loss 31.5 / actor_loss -2.1 / fps 8.2`); the number is the step, not a rank."""
    lines = [f"[{(i + 2) * 10000}] model_loss 3{i}.5 / image_loss 2{i}.0 / actor_loss -2.{i} / model_grad_norm 1{i}.4"
             for i in range(3)]
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("model_loss").steps] == [20000.0, 30000.0, 40000.0]
    assert _vals(run, "model_loss") == [30.5, 31.5, 32.5]


def test_episode_told_in_a_sentence(tmp_path):
    """An RL episode's end in words (`Train episode of length 500 with return 12.5.`, `Test episode ...`,
    `Episode has 87 steps and return 3.25.`): its return and length; a test episode is the eval split's."""
    lines = ["[1000] model_loss 12.0 / value_loss 1.5 / actor_loss -0.5",
             "Test episode of length 500 with return 7.25.",
             "Train episode of length 500 with return 12.5.",
             "[2000] model_loss 11.0 / value_loss 1.4 / actor_loss -0.7",
             "Episode has 87 steps and return 3.25."]
    run = _read(tmp_path, lines)
    assert _vals(run, "episode_reward") == [12.5, 3.25]
    assert _vals(run, "eval/episode_reward") == [7.25]
    assert _vals(run, "episode_length") == [500.0, 87.0]
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 5


def test_chinese_ordinal_counter(tmp_path):
    """A counter written as a Chinese ordinal before the values (`第50次训练 >>> [训练集] 准确率为 0.81 >>> loss 0.2`,
    the 50th training pass), with the validation line indented under it."""
    lines = []
    for i in range(3):
        lines.append(f"第{(i + 1) * 50}次训练 >>> [训练集] 准确率为 0.8{i} >>> loss 0.{5 - i}")
        lines.append(f"          >>> [验证集] 准确率为 0.3{i} >>> loss 0.{5 - i}")
    run = _read(tmp_path, lines)
    assert _vals(run, "accuracy") == [0.8, 0.81, 0.82]
    assert [float(s) for s in run.get("accuracy").steps] == [50.0, 100.0, 150.0]
    assert _vals(run, "eval/accuracy") == [0.3, 0.31, 0.32]


def test_printed_line_in_braces_is_not_json(tmp_path):
    """A progress line drawn between braces and bars (`{| Epoch: 3/50 (200/200) | Loss: 0.4123 | ... | }`)
    is printed text, not a JSON object."""
    lines = ["{| Epoch: 3/50 (200/200) | Loss: 0.4123 | 1.52 steps/s | Step: 12 | }"]
    run = _read(tmp_path, lines)
    assert run.format == "text"
    assert _vals(run, "loss") == [0.4123]


def test_question_quoting_numbers_is_no_record(tmp_path):
    """A question asked in the paste (`训练到Step: 120k时Loss: 0.31，为什么不再下降？`, `Why is the loss stuck at
    0.31?`) quotes numbers from the log; it is not a record."""
    lines = ["训练到Step: 120k时Loss: 0.31，为什么不再下降？", "Why does loss: 0.31 never go down?", "",
             "| Epoch: 3/50 (200/200) | Loss: 0.3100 | 1.52 steps/s | Step: 120 |"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    assert _vals(run, "loss") == [0.31]


def test_reid_minp_is_an_evaluation_metric(tmp_path):
    """A person re-identification test prints `mINP` beside `mAP` (one line each)."""
    lines = ["Epoch: 12; LR, 3.5e-04; id_loss: 1.23;  tri_loss: 0.45;", "Test on Dataset: market,",
             "mINP: 0.2215 ", "mAP: 0.4518 "]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/minp") == [0.2215]
    assert _vals(run, "eval/map") == [0.4518]
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 3


def test_headless_aligned_pairs_are_one_record(tmp_path):
    """Lines of one name and one value each, values in one column, with no heading or counter read
    before them (a tabular dump cut at its top: `value_loss/Average      nan`; the W&B run summary:
    `wandb:   eval/return 2.5`): one record. Names the alias table does not know are passed over."""
    stamp = "2023-05-01 09:00:00.000001  | "
    lines = [stamp + f"{name:<28}{value}" for name, value in
             (("value_loss/Average", "nan"), ("value_loss/Std", "nan"), ("prior_entropy/Average", "nan"),
              ("model_loss/Average", "nan"))]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    lines = ["wandb: Run summary:", "wandb:  eval/episode_len 120", "wandb:      eval/return 2.5",
             "wandb:      eval/reward 0.021", "wandb: "]
    run = _read(tmp_path, lines, name="wandb.log")
    assert run.meta["rows"] == 1
    assert _vals(run, "eval/episode_reward") == [2.5]


def test_unaligned_pairs_are_one_block(tmp_path):
    """One-pair lines whose values do not share a column (`mINP: 0.22` over `mAP: 0.45`), with no counter:
    a record printed as a block, one key a line, like an aligned one (r122; they kept a record each before).
    Both values are read, at one step."""
    run = _read(tmp_path, ["mINP: 0.2215", "mAP: 0.4518"])
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 2
    assert list(run.get("eval/map").values) == [0.4518]


def test_arrow_note_after_a_value_is_dropped(tmp_path):
    """A note the poster pointed at a value (`Mean value_function loss: inf  ← 这里先坏`, `loss: 9.1 <-- spike`)
    is not part of the line: the block under `Learning iteration` keeps its shape."""
    lines = ["Learning iteration 12/500", "Mean value_function loss: inf  ← 这里先坏", "Mean surrogate loss: 0.0012",
             "Mean entropy loss: 1.9870  <-- still high", "Mean reward: -1.25"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    assert _vals(run, "episode_reward") == [-1.25]
    assert _vals(run, "policy_loss") == [0.0012]


def test_slash_pairs_wrapped_over_lines_are_one_record(tmp_path):
    """DreamerV3's report of `name value / name value / ...` wrapped over several lines, one value
    opening a line because its name ended the line above (`... / train/opt_loss` + `2.1e3 / ...`)."""
    lines = ["train/dyn_loss 5.12 / train/rep_loss 5.12 / train/image_loss 812.5 / ",
             "train/reward_loss 0.42 / train/model_opt_loss",
             "2.1e3 / train/model_opt_grad_norm nan / train/model_opt_grad_steps 0 / ",
             "train/policy_ent 2.3 / train/fps 41.2"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    assert _vals(run, "model_opt_loss") == [2100.0]
    assert math.isnan(_vals(run, "model_opt_grad_norm")[0])


def test_html_break_tags_around_lines_are_dropped(tmp_path):
    """A log kept in Markdown with `<br>` before each line (`<br>[epoch:2, mini-batch: 4000] loss: 1.2`)."""
    lines = [f"<br>[epoch:{e}, mini-batch: {b}] loss: {2.0 - e * 0.3 - b / 10000:.3f}" for e in (1, 2) for b in (2000, 4000)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.5, 1.3, 1.2, 1.0]
    assert run.meta["rows"] == 4


def test_per_class_accuracy_with_a_class_label(tmp_path):
    """PyTorch's CIFAR-10 tutorial prints each class's accuracy as `Accuracy for class: plane is 57.3 %`."""
    lines = ["[1,  2000] loss: 2.201", "[1,  4000] loss: 1.876", "Accuracy of the network on the 10000 test images: 52 %",
             "Accuracy for class: plane is 57.3 %", "Accuracy for class: car   is 71.0 %"]
    run = _read(tmp_path, lines)
    assert _vals(run, "Accuracy/plane") == [57.3]
    assert _vals(run, "Accuracy/car") == [71.0]
    assert run.meta["rows"] == 5
