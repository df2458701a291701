"""Line-shape and naming rules the wild corpus asked for, each on a small synthetic log in the style
of the prints that needed it (never a copy of one)."""

from __future__ import annotations

import math

import numpy as np

from triage.ingest import printed
from triage.ingest.aliases import table
from written_log import read_written as _read


def _parse(line):
    plan = printed.parse(printed.clean(line))
    return plan, [(s.role, s.key) for s in plan.slots]


# ------------------------------------------------------------------ prefixes, blocks, bars
def test_loguru_level_and_location_prefix_is_not_part_of_the_message(tmp_path):
    lines = []
    for e in range(1, 4):
        lines.append(f"2024-03-01 10:00:0{e} | INFO     | on_validation_end:88 | EPOCH {e} VAL   - Loss: {2 - e / 10:.3f}, Acc: {50 + e}.0%")
        lines.append(f"2024-03-01 10:00:0{e} | INFO     | mymod:on_train_end:91 - EPOCH {e} TRAIN - Loss: {3 - e / 10:.3f}, Acc: {40 + e}.0%")
    run = _read(tmp_path, lines)
    assert list(run.get("eval/accuracy").values) == [51, 52, 53]
    assert list(run.get("accuracy").values) == [41, 42, 43]
    assert not any("on_" in k for k in run.series)


def test_split_counter_line_opens_a_block_of_blank_separated_pairs(tmp_path):
    lines = []
    for e in range(3):
        lines += [f"TRAIN EPOCH  {e}:", f"loss             {1.5 - e / 10:.6f}", f"accuracy         0.{30 + e}0000",
                  "dtype: float64", "", f"Val epoch {e} has acc 0.25 and loss 1.39", ""]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 6
    assert list(run.get("loss").steps) == [0, 1, 2] and list(run.get("accuracy").values) == [0.3, 0.31, 0.32]


def test_a_four_word_key_stays_in_its_block(tmp_path):
    lines = []
    for s in range(1, 4):
        lines += [f"[step={s}/100,epoch=0]", f"    train/CrossEntropyLoss={3 - s / 10:.2f}",
                  "    System/Peak GPU Memory (MB)=11,478"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert len(run.get("memory")) == 3 and list(run.get("memory").steps) == [1, 2, 3]


def test_pip_progress_lines_are_not_metrics(tmp_path):
    lines = ["Collecting numpy", "  Downloading numpy-1.22.4.whl (16.9 MB)",
             "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 16.9/16.9 MB 14.5 MB/s eta 0:00:00",
             "  Downloading gtn-0.0.0.tar.gz (45 kB)",
             "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 45.9/45.9 kB 520.4 kB/s eta 0:00:00",
             "     ━━━━━━━━━━━━━━━━━━━━╸━━━━━━━━━━━━━━━━━━━ 1.2/2.5 MB 3.1 MB/s eta 0:00:01"]
    assert not _read(tmp_path, lines).series
    # a Keras 3 bar (count first) is still a record
    plan, _ = _parse("32/32 ━━━━━━━━━━━━━━━━━━━━ 1s 3ms/step - accuracy: 0.8700 - loss: 0.4100")
    assert plan.progress == "keras"


def test_a_yaml_config_dump_is_not_metrics_but_a_results_block_is(tmp_path):
    config = ["INFO: Loaded configuration file", "SOLVER:", "  BASE_LR: 0.00035", "  MARGIN: 0.3", "",
              "  WEIGHT_DECAY: 0.0005", "INPUT:", "  PROB: 0.5", "TEST:", "  IMS_PER_BATCH: 128"]
    assert not _read(tmp_path, config + ["INFO: Running with config:"] + config).series
    # a config dump before training does not make metrics of its settings; a results block after it does
    train = [f"Epoch {e} loss {2 - e / 10:.2f}" for e in range(1, 6)]
    run = _read(tmp_path, config + train + ["results:", "  accuracy: 0.87"], "c.log")
    assert sorted(run.series) == ["accuracy", "loss"]


# ------------------------------------------------------------------ HF dict lines
def test_a_finished_dataset_bar_gives_dicts_no_step(tmp_path):
    bar = "Map: 100%|██████████| 7/7 [00:00<00:00, 1809.34 examples/s]"
    dicts = [f"{{'loss': {0.15 + k / 100:.4f}, 'grad_norm': nan, 'learning_rate': 0.0001, 'epoch': {0.04 * (k + 1):.2f}}}"
             for k in range(5)]
    evals = "{'eval_loss': 0.2, 'eval_runtime': 1.5, 'epoch': 0.2}"
    run = _read(tmp_path, [bar] + dicts + [evals])
    loss = run.get("loss")
    assert len(loss) == 5 and list(loss.steps) == [0.04, 0.08, 0.12, 0.16, 0.2]
    assert run.meta["step_axis"] == "epoch" and run.get("eval/loss").steps[0] == 0.2


def test_a_bar_that_moves_between_dicts_still_steps_them(tmp_path):
    lines = []
    for s in (10, 20, 30):
        lines.append(f"{s * 3}%|###       | {s}/100 [00:0{s // 10}<00:10, 9.9it/s]")
        lines.append(f"{{'loss': {2 - s / 100:.2f}, 'learning_rate': 1e-05, 'epoch': {s / 100:.2f}}}")
    assert list(_read(tmp_path, lines).get("loss").steps) == [10, 20, 30]


def test_split_names_with_sizes_and_banners_beside_dicts(tmp_path):
    lines = ["Input shape: torch.Size([2, 32])", "Dataset split: train=11200, val=1400, test=1400",
             "Horizon loss parameters: 3"]
    lines += [f"{{'loss': {9 - k:.1f}, 'epoch': {k + 1}.0}}" for k in range(4)]
    run = _read(tmp_path, lines)
    assert sorted(run.series) == ["loss"] and run.meta["rows"] == 4
    # a split word with a step on its line is the build-nanogpt `<step> val <loss>` print
    run = _read(tmp_path, ["0 val 10.93", "0 train 10.95", "1 train 10.9", "2 train 10.8"], "b.log")
    assert run.get("eval/loss").values[0] == 10.93
    # and with a fraction it is a loss; a dict of whole numbers per split is sizes
    lines = ["{'train': 40058, 'test': 12032}"] + [f"train: 0.5{k}, val: 0.6{k}" for k in range(4)]
    run = _read(tmp_path, lines, "c.log")
    assert list(run.get("eval/loss").values) == [0.6, 0.61, 0.62, 0.63] and "test" not in run.series


# ------------------------------------------------------------------ repeats and several runs
def test_a_message_that_quotes_the_value_just_printed_is_not_a_row(tmp_path):
    lines = []
    for e in range(1, 5):
        lines += [f"Epoch {e}/4 - Train Loss: {4 - e / 2:.4f}, Val Loss: {3 - e / 3:.4f}",
                  f"  保存最佳模型 (val_loss={3 - e / 3:.4f})"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4 and len(run.series) == 2
    # the same key on another line shape is a record of its own (Caffe's net output)
    caffe = []
    for it in (100, 200):
        caffe += [f"I0616 00:24:30.4 10711 solver.cpp:228] Iteration {it}, loss = 87.3365",
                  "I0616 00:24:30.4 10711 solver.cpp:244]     Train net output #0: loss = 87.3365 (* 1 = 87.3365 loss)",
                  f"I0616 00:24:30.4 10711 sgd_solver.cpp:106] Iteration {it}, lr = 0.001"]
    meta = _read(tmp_path, caffe, "caffe.log").meta
    assert meta["rows"] + meta.get("joined_lines", 0) == 6  # (lines at one step: one row, its lines said apart)


def test_runs_printed_one_after_another_are_kept_in_order(tmp_path):
    lines = []
    for run_no, start in enumerate((2.5, 2.0, 1.5)):
        lines.append(f"resnet-{18 * (run_no + 1)} - training")
        lines += [f"Epoch {e}/5 train Loss: {start - e / 10:.4f}" for e in range(1, 6)]
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert len(loss) == 15 and loss.values[0] == 2.4 and loss.values[-1] == 1.0
    assert (np.diff(loss.steps) > 0).all() and run.meta["runs"] == 3
    assert any("3 runs" in w for w in run.meta["warnings"])


def test_a_resume_and_a_stray_low_step_are_not_new_runs(tmp_path):
    resumed = [f"step {s}: loss {5 - s / 100:.3f}" for s in range(0, 101, 10)]
    resumed += [f"step {s}: loss {4 - s / 100:.3f}" for s in range(70, 151, 10)]  # back to a checkpoint
    run = _read(tmp_path, resumed)
    assert "runs" not in run.meta and run.get("loss").steps[-1] == 150
    assert run.get("loss").values[list(run.get("loss").steps).index(80)] == 3.2  # the resumed value
    # a file that opens mid-training (resumed) and resumes again from its first step: still a resume
    mid = [f"step {s}: loss {5 - s / 1e4:.4f}" for s in range(5010, 5250, 10)]
    mid += [f"step {s}: loss {4 - s / 1e4:.4f}" for s in range(5010, 5100, 10)]
    assert "runs" not in _read(tmp_path, mid, "m.log").meta
    stray = [f"Step {s}/ 400; xent: {9 - s / 100:.2f}" for s in range(50, 401, 50)]
    stray.insert(4, "0; xent: 1.00")  # half of a line cut by a paste, read as a count of 0
    run = _read(tmp_path, stray, "b.log")
    assert "runs" not in run.meta and run.get("loss").steps[-1] == 400


def test_a_last_batch_counted_against_another_size_stays_at_the_end_of_its_epoch(tmp_path):
    lines = []
    for e in (1, 2):
        lines += [f"Train Epoch: {e} [{b}/9024 ({100 * b // 9024}%)]\tLoss: {1 - e / 10 - b / 1e5:.6f}"
                  for b in (640, 3200, 8320)]
        lines.append(f"Train Epoch: {e} [5600/5640 (99%)]\tLoss: 0.{e}11111")
        lines.append(f"Test set: Average loss: 0.{e}5, Accuracy: 805/1000 (80%)")
    run = _read(tmp_path, lines)
    loss = run.get("loss")
    assert loss.values[-1] == 0.211111 and (np.diff(loss.steps) > 0).all()
    assert run.get("eval/loss").steps[-1] >= loss.steps[-1]


def test_evaluation_batch_counters_do_not_set_the_training_axis(tmp_path):
    lines = []
    for e in (1, 2):
        lines.append(f"Now training epoch {e}. LR=0.0000{e}")
        lines += [f"Epoch[00{e}/100], Step[{s:04d}/0196], Avg Loss: {1 - s / 1e4:.4f}" for s in (0, 100)]
        lines.append(f"----- Epoch[00{e}/100], Train Loss: 0.9{e}, time: 170.1")
    lines += [f"Val Step[{s:04d}/0032], Avg Loss: 1.3" for s in (0, 10, 20)]
    run = _read(tmp_path, lines)
    assert run.meta["step_axis"] == "epoch+batch"
    assert list(run.get("learning_rate").steps) == [0, 196]  # each epoch's rate at its start
    assert not any(math.isnan(s) for s in run.get("learning_rate").steps)


# ------------------------------------------------------------------ line shapes
def test_a_line_cut_by_the_terminal_is_read_whole(tmp_path):
    lines = ["[2024-01-09 16:24:38,460 INFO] Step 50/ 1000; acc:   4.10; ppl: 3301.25; xent: 12.71; lr",
             ": 1.00000; 16410/16179 tok/s;      5 sec",
             "[2024-01-09 16:24:42,772 INFO] Step 100/ 1000; acc:   4.10; ppl: 2463.68; xent: 10.11; lr: 1.00000; 16245/16274 tok/s;      9 sec",
             "[2024-01-09 16:25:48,849 INFO] Step 150/ 1000; acc:  14.55; ppl: 672.34; xent: 6.51; lr: 1",
             ".00000; 16639/16627 tok/s;     75 sec"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("learning_rate").values) == [1.0, 1.0, 1.0]
    assert list(run.get("throughput").steps) == [50, 100, 150]


def test_values_named_by_the_words_after_them_and_the_batch_after_the_epoch(tmp_path):
    lines = [f"Epoch  1, {b}/37527; acc:   4.48; ppl: 351.75; xent:  {10 - b / 1e4:.2f}; 3599 src tok/s; 3678 tgt tok/s;   9861 s elapsed"
             for b in (12850, 12900, 12950)]
    run = _read(tmp_path, ["poch  1, 12800/37527; acc:   4.00; ppl: 300.0; xent:   9.50; 3000 src tok/s;"] + lines)
    assert run.get("throughput").values[0] == 3000 and len(run.get("throughput")) == 4
    assert run.meta["step_axis"] == "epoch+batch" and run.get("loss").values[0] == 9.5  # the line before the first counter


def test_a_metric_of_one_class(tmp_path):
    _, slots = _parse("Accuracy of plane : 62 %")
    assert slots == [("value", "Accuracy/plane")]
    plan, slots = _parse("\t test acc for 飞机 (airplane) is 78.9%")
    assert plan.label == "eval" and slots == [("value", "acc/飞机_airplane")]
    _, slots = _parse("Accuracy of the network on the 10000 test images: 54 %")
    assert ("value", "test Accuracy") in slots  # the overall one keeps its rule


def test_the_parts_of_a_losses_label(tmp_path):
    lines = [f"[Epoch 0/30, Batch {b}/7329] [Losses: x 0.27, y 0.25, conf 4.3, cls 0.81, total {15 - b:.6f}, "
             f"recall: 0.0{b}, precision: 0.0001]" for b in range(4)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [15, 14, 13, 12]
    assert "recall" in run.series and "conf_loss" in run.series


def test_pass_times_say_which_pass_measured_a_value(tmp_path):
    lines = [f"Epoch {e:02d} loss {3 - e / 10:.4f} | train 2.9s" + (f" | Acc {40 + e}.5% | infer 5.5s" if e % 2 == 0 else "")
             for e in range(1, 7)]
    run = _read(tmp_path, lines)
    assert list(run.get("eval/accuracy").steps) == [2, 4, 6] and "accuracy" not in run.series
    assert len(run.get("loss")) == 6


def test_a_number_that_counts_the_words_after_it(tmp_path):
    _, slots = _parse("- avg_loss : 1 epoch average loss , l : total loss")
    assert all(role == "skip" for role, _ in slots)
    _, slots = _parse("loss 0.5 epoch 3")
    assert slots == [("value", "loss"), ("epoch", "epoch")]
    _, slots = _parse("loss 0.52 batch time 0.3")
    assert slots[0] == ("value", "loss")


def test_a_score_line_names_its_split_and_percent_correct_is_accuracy(tmp_path):
    lines = []
    for it in range(0, 30, 10):
        lines.append(f"iter_dt 110.06ms; iter {it}: train loss {2 - it / 100:.5f}")
    lines += ["train final score: 9216/9500 = 97.01% correct", "test final score: 485/500 = 97.00% correct"]
    run = _read(tmp_path, lines)
    assert run.get("accuracy").values[-1] == 97.01 and run.get("eval/accuracy").values[-1] == 97.0


# ------------------------------------------------------------------ names (knowledge/metrics.yaml)
def test_metric_names_of_printed_logs():
    t = table()
    for key, name in (("loss_net", "loss"), ("timer", "step_time"), ("Avg Reward", "episode_reward"),
                      ("average reward", "episode_reward"), ("bleu", "eval/bleu"), ("BLEU", "eval/bleu"),
                      ("AverageEpRet", "episode_reward"), ("TestEpLen", "eval/episode_length"),
                      ("vf_loss", "value_loss"), ("SamplesPerSec", "throughput")):
        assert t.resolve(key, "text").name == name, key
    assert t.resolve("reward", "text").name == "reward"  # a batch's mean reward (GRPO) stays itself
    assert t.resolve("MaxEpRet").name == "MaxEpRet"  # the best episode is not the mean


def test_episode_counts_the_steps_of_an_rl_print(tmp_path):
    lines = ["INFO:root:"] + [f"INFO:root:Episode {e} | Avg Reward: {5 + e / 10:.2f} | Epsilon: 0.9 | Win Rate: 1.00%"
                              for e in range(0, 50, 10)]
    run = _read(tmp_path, lines)
    assert list(run.get("episode_reward").steps) == [0, 10, 20, 30, 40]


def test_an_unknown_name_in_the_shape_of_known_metric_lines(tmp_path):
    lines = []
    for it in (20, 40, 60):
        lines += [f"I0401 08:05:55.1 5674 solver.cpp:218] Iteration {it} (2.9 iter/s, 6.7s/20 iters), loss = 0.{it}",
                  f"I0401 08:05:55.1 5674 solver.cpp:237]     Train net output #0: loss_bbox = 0.0{it} (* 1 = 0.0{it} loss)",
                  f"I0401 08:05:55.1 5674 solver.cpp:237]     Train net output #1: cls_lost_my = 0.1{it} (* 1 = 0.1{it} loss)"]
    run = _read(tmp_path, lines)
    assert list(run.get("cls_lost_my").values) == [0.12, 0.14, 0.16]
    # a bare `name: value` shape is too plain to vouch for an unknown name
    lines = [f"step {s}: loss {1 - s / 100:.2f}" for s in (1, 2, 3)] + ["lr: 0.1"] + [f"patience: {p}" for p in (3, 2, 1)]
    assert "patience" not in _read(tmp_path, lines, "b.log").series


def test_an_epochs_total_loss_is_not_the_running_loss(tmp_path):
    lines = []
    for e in range(1, 4):
        lines += [f"     Instance: {n}; Time: 0.90s; loss: {900 - n / 10 - e:.4f}; acc: 6063/8986=0.6747" for n in (500, 1000)]
        lines.append(f"Epoch: {e} training finished. Time: 76.96s, speed: 610.56st/s,  total loss: {100000 - e}.59")
    run = _read(tmp_path, lines)
    assert max(run.get("loss").values) < 1000 and run.get("loss").values[-1] == 797.0
    assert "total_loss" in run.series
