"""Reader rules for result lines of hyper-parameter searches and RL evaluation loggers (round 70): each
test writes a short log in one style and checks what the reader takes from it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_finished_word_before_result_pair(tmp_path):
    """A search trial's result line, python logging then `Finished precision@5 = 0.2841`: the word saying
    the stage finished is no part of the metric's name."""
    lines = [
        "2021-03-02 10:00:01,100 INFO recsys: Training model...",
        "2021-03-02 10:12:40,220 INFO recsys: Finished precision@5 = 0.2841",
        "2021-03-02 10:12:41,010 INFO recsys: Training model...",
        "2021-03-02 10:25:13,480 INFO recsys: Finished precision@5 = 0.3017",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/precision@5") == [0.2841, 0.3017]


def test_bracketed_logger_fields_arrow_hash_step_and_gym_env(tmp_path):
    """`[asctime][logger][LEVEL][file.py>func] ==> #N  Test Mean Score of <Gym id>: v (max: .., min: ..)`:
    the bracketed fields and the arrow lead the message, `#N` is the training step, and the Gym
    environment id after `of` names the environment, not a part of the metric."""
    lines = [
        "[2023-01-05 08:00:00,100][train_eval][INFO][log.py>_log] ==> #0          Test Mean Score of BreakoutNoFrameskip-v4: 12.5       (max: 20.0      , min:4.0       , std: 5.1)",
        "[2023-01-05 09:10:00,200][train_eval][INFO][log.py>_log] ==> #5000       Test Mean Score of BreakoutNoFrameskip-v4: 48.25      (max: 71.0      , min:30.0      , std: 11.9)",
        "[2023-01-05 10:20:00,300][train_eval][INFO][log.py>_log] ==> #10000      Test Mean Score of BreakoutNoFrameskip-v4: 90.0       (max: 120.0     , min:61.0      , std: 17.3)",
    ]
    run = _read(tmp_path, lines)
    (name,) = [n for n in run.series if "score" in n.lower()]
    assert _vals(run, name) == [12.5, 48.25, 90.0]
    assert [float(s) for s in run.get(name).steps] == [0.0, 5000.0, 10000.0]


def test_chinese_name_glued_to_its_value(tmp_path):
    """A meter line whose Chinese names carry their values glued on, running means in full-width
    parentheses (`损失0.4813（0.5120）`): each name is read with its own value."""
    lines = [
        "2022-05-01 10:00:00-INFO-训练-时期：[0] [0/300]时间1.204（1.204）数据0.310（0.310）损失2.3051（2.3051）",
        "2022-05-01 10:01:00-INFO-训练-时期：[0] [10/300]时间0.981（1.002）数据0.004（0.031）损失1.8722（2.0417）",
        "2022-05-01 10:02:00-INFO-训练-时期：[0] [20/300]时间0.975（0.990）数据0.003（0.017）损失1.5120（1.8394）",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.3051, 1.8722, 1.512]


def test_top_k_cutoff_spaced_from_its_name(tmp_path):
    """`Prec @ 1 71.250 (70.016)  Prec @ 5 90.625 (89.950)`: the cutoff set apart from `Prec` by blanks
    still names one top-k metric each, never `Prec @` with the cutoff as its value."""
    lines = [
        "Epoch: [3][100/500]\tLoss 1.2034 (1.2511)\tPrec @ 1 71.250 (70.016)\tPrec @ 5 90.625 (89.950)",
        "Epoch: [3][200/500]\tLoss 1.1502 (1.2207)\tPrec @ 1 72.500 (70.844)\tPrec @ 5 91.406 (90.230)",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.2034, 1.1502]
    assert _vals(run, "accuracy_top5") == [90.625, 91.406]
    assert not [n for n in run.series if "@" in n and not n.endswith(("1", "5"))]


def test_sampler_counts_are_not_metrics(tmp_path):
    """A GRPO loop's per-step notice `Step 3: generating 4 candidates for prompt 1/1...` counts what the
    sampler drew; only the periodic `GRPO step N/M | loss: ... | kl: ...` line is a record."""
    lines = []
    for k in range(1, 21):
        lines += [f"  Step {k}: generating 4 candidates for prompt 1/1...",
                  f"  Generated 4 candidates in {100 + k}.5s, rendering..."]
        if k % 10 == 0:
            lines.append(f"GRPO step {k}/200 | loss: 0.00{k // 10} | KL: 0.0002 | lr: 0.000001")
    run = _read(tmp_path, lines)
    assert not [n for n in run.series if "generat" in n]
    assert _vals(run, "loss") == [0.001, 0.002]
