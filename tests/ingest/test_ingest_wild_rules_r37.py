"""Reader rules from the thirty-seventh round on the wild corpus (RL fine-tuning logs: GRPO and PPO
trainers, their Ray workers and the samples they print): each test writes a small log in the print
style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def _rows(run) -> int:
    return int(run.meta.get("rows") or 0)


def _steps(n: int, prefix: str = "") -> list[str]:
    return [f"{prefix}step:{i} - actor/pg_loss:{0.05 * i:.3f} - critic/score/mean:{0.4 + 0.01 * i:.3f}"
            for i in range(1, n + 1)]


def test_nested_config_dict_pretty_printed_by_a_ray_worker_is_settings(tmp_path):
    """pprint of a nested config tree under a Ray actor's prefix (`(TaskRunner pid=7) {'actor_rollout_ref':
    {'actor': {'clip_ratio': 0.2,`): the first line opens several dicts at once; the entries below it that
    name metrics (`clip_ratio`, `lr`, `total_epochs`) are settings, not one-off records."""
    p = "(TaskRunner pid=7) "
    lines = [
        p + "{'actor_rollout_ref': {'actor': {'clip_ratio': 0.2,",
        p + "                                 'entropy_coeff': 0.001,",
        p + "                                 'optim': {'lr': 1e-06,",
        p + "                                           'weight_decay': 0.01},",
        p + "                                 'strategy': 'fsdp'},",
        p + "                       'rollout': {'n': 5, 'response_length': 256}},",
        p + " 'critic': {'optim': {'lr': 1e-05,",
        p + "                      'weight_decay': 0.01}},",
        p + " 'trainer': {'total_epochs': 15,",
        p + "             'logger': ['console']}}",
    ] + _steps(3, p)
    run = _read(tmp_path, lines)
    assert _rows(run) == 3
    assert "clip_ratio" not in run.series and "epoch" not in run.series
    assert all(len(s.values) == 3 for s in run.series.values())


def test_check_comparing_two_named_sizes_is_no_record(tmp_path):
    """A rollout server's length check (`max_model_len(2048) - num_tokens(5221) < max_tokens(1024). Setting
    max_tokens: -3173`) before a traceback: the numbers are lengths and limits, so a log of these lines and
    an exception reads no metric rows and keeps its warning and error events."""
    lines = [
        "[WARNING:swift] max_model_len(2048) - num_tokens(1605) < max_tokens(1024). Setting max_tokens: 443",
        "[WARNING:swift] max_model_len(2048) - num_tokens(5221) < max_tokens(1024). Setting max_tokens: -3173",
        "[ERROR:swift] Method execution failed: async_infer",
        "Traceback (most recent call last):",
        '  File "/srv/engine.py", line 40, in run',
        "    params = SamplingParams(**kwargs)",
        "ValueError: max_tokens must be at least 1, got -3173.",
        "[WARNING:swift] max_model_len(2048) - num_tokens(1603) < max_tokens(1024). Setting max_tokens: 445",
    ]
    run = _read(tmp_path, lines)
    assert _rows(run) == 0
    assert not run.series
    assert {"warning", "error"} <= {ev.kind for ev in run.events}


def test_printed_prompt_and_response_sample_is_text(tmp_path):
    """verl's validation sample: `[prompt] ...`, `[response] ...` with the model's worked answer (`3. The
    remainder is 16 - 7 = 9 eggs.`), then `[ground_truth] 18` and `[score] 1.0`. The lines in between are
    the model's words; only the step lines around the sample are rows."""
    lines = _steps(2) + [
        "[prompt] system",
        "You are a helpful assistant.",
        "user",
        "Janet's ducks lay 16 eggs per day. She eats 3 and bakes with 4. How much does she make at $2 each?",
        "[response] Let's break it down:",
        "1. Janet's ducks lay 16 eggs per day.",
        "2. She uses 3 + 4 = 7 eggs.",
        "3. The remainder is 16 - 7 = 9 eggs.",
        "4. Janet sells these 9 eggs at $2 per egg, so 9 * 2 = 18 dollars.",
        "#### 18",
        "[ground_truth] 18",
        "[score] 1.0",
    ] + [f"step:{i} - actor/pg_loss:{0.05 * i:.3f} - critic/score/mean:{0.4 + 0.01 * i:.3f}" for i in (3, 4)]
    run = _read(tmp_path, lines)
    assert _rows(run) == 4
    assert len(run.series) == 2
    assert all(len(s.values) == 4 for s in run.series.values())


def test_generation_between_begin_and_end_markers_is_text(tmp_path):
    """A GRPO script's debug dump: `==== [DEBUG] gen[0] RESPONSE_BEGIN ====`, the generated text (numbers
    and all), then `==== [DEBUG] gen[0] RESPONSE_END ====`; the text between the markers is no record."""
    lines = [f"Epoch:[1/1]({i}/500), Reward: {-1.8 + 0.01 * i:.4f}, Actor Loss: 0.0000, KL_ref: 0.0010"
             for i in range(1, 4)]
    lines += [
        "============ [DEBUG] gen[0] RESPONSE_BEGIN ============",
        "The answer: first 12 apples, then 7 more, total 19.",
        "Score: 19 points, ratio 0.5",
        "============ [DEBUG] gen[0] RESPONSE_END ============",
    ]
    lines += [f"Epoch:[1/1]({i}/500), Reward: {-1.8 + 0.01 * i:.4f}, Actor Loss: 0.0000, KL_ref: 0.0010"
              for i in range(4, 6)]
    run = _read(tmp_path, lines)
    assert _rows(run) == 5
    assert not any("Score" in k or "ratio" in k.lower() for k in run.series)


def test_wandb_run_summary_beside_step_records_is_the_summary(tmp_path):
    """W&B's closing `wandb: Run summary:` block after a run's own records (here under a Ray prefix): the
    last value of each metric, kept as the log's summary and never an extra row."""
    p = "(TaskRunner pid=3) "
    lines = _steps(5, p) + [
        p + "wandb: Run history:",
        p + "wandb:      actor/pg_loss ▁▂▄▆█",
        p + "wandb: ",
        p + "wandb: Run summary:",
        p + "wandb:      actor/pg_loss 0.25",
        p + "wandb: critic/score/mean 0.45",
        p + "wandb: ",
        p + "wandb: 🚀 View run at https://wandb.ai/team/proj/runs/abc",
    ]
    run = _read(tmp_path, lines)
    assert _rows(run) == 5
    assert run.meta.get("summary", {}).get("actor/pg_loss") == 0.25


def test_wandb_run_summary_alone_is_still_read(tmp_path):
    """A paste of only W&B's run summary (`wandb: Run summary:` then `wandb:     loss nan`): with no other
    record in the log the summary is what there is to read."""
    lines = [
        "wandb: Run summary:",
        "wandb: batch_id 127",
        "wandb:    epoch 0",
        "wandb:     loss nan",
        "wandb: ",
    ]
    run = _read(tmp_path, lines)
    assert "loss" in run.series


def test_dict_line_cut_inside_a_key_joins_the_next_line(tmp_path):
    """An HF trainer dict printed on one line whose newline landed inside a key, before its closing quote
    (`..., 'completions/max_terminated_length` then `': 578.0, 'kl': 0.001, 'epoch': 0.3}` on the next line):
    the two lines are one record."""
    rows = [f"{{'loss': 0.0, 'grad_norm': {0.5 - 0.01 * i}, 'learning_rate': 3e-06, 'reward': {i * 0.5}, "
            f"'completions/max_terminated_length': 578.0, 'kl': 0.001, 'epoch': {0.1 * i:.1f}}}" for i in range(1, 4)]
    last = rows[-1]
    cut = last.index("': 578.0")
    lines = rows[:-1] + [last[:cut], last[cut:]]
    run = _read(tmp_path, lines)
    assert _rows(run) == 3
    assert _vals(run, "reward") == [0.5, 1.0, 1.5]


def test_latex_maths_in_a_printed_answer_is_no_record(tmp_path):
    """A GRPO run printing its model's answers in LaTeX (`V = \\frac{4\\pi}{3} \\times 27 = 36\\pi`): the maths
    has numbers and `=` but is text, not a record beside the trainer's dicts."""
    lines = []
    for i in range(1, 4):
        lines.append("Answer: We have $A = \\frac{1}{2} r^2 \\theta = \\frac{9}{2} \\times 4$ so the area is 18.")
        lines.append("V = \\frac{4\\pi}{3} \\times 3^3 = 36\\pi")
        lines.append(f"{{'loss': 0.0, 'grad_norm': {0.3 * i}, 'learning_rate': 5e-06, 'reward': {-3.0 + i}, "
                     f"'kl': 0.0, 'epoch': {0.01 * i:.2f}}}")
    run = _read(tmp_path, lines)
    assert _rows(run) == 3
    assert not any(k in run.series for k in ("frac", "times", "pi"))


def test_reward_term_weights_printed_by_each_rank_are_settings(tmp_path):
    """`Reward weights: accuracy=0.7, grounding=0.25` printed once per rank before training: how the reward's
    terms are summed, so `accuracy` here is a setting and no accuracy series."""
    lines = ["  Reward weights: accuracy=0.7, grounding=0.25, length_penalty_max=0.05" for _ in range(4)]
    lines += [f"{{'loss': 0.004, 'grad_norm': 4.3, 'learning_rate': 1e-06, 'reward': {0.7 + 0.01 * i}, "
              f"'kl': 0.08, 'epoch': {0.02 * i:.2f}}}" for i in range(1, 4)]
    run = _read(tmp_path, lines)
    assert _rows(run) == 3
    assert "accuracy" not in run.series


def test_digest_printed_before_the_dict_it_rounds_is_no_record(tmp_path):
    """A trainer that prints a boxed digest of the metrics it is about to log (`num_tokens: 430669.0000`,
    `completions/mean_length: 142.7391`, between `====` rules) and then the full dict: the digest rounds the
    dict's own values, so each step is one row."""
    lines = []
    for i in range(1, 4):
        mean_len = 140.0 + i + 0.7390625
        lines += [
            "Logging 12 metrics for train mode",
            "=" * 40,
            "Other Metrics:",
            f"   num_tokens: {430669.0 * i:.4f}",
            f"   completions/mean_length: {mean_len:.4f}",
            "   ... and 9 more metrics",
            "=" * 40,
            f"{{'loss': -0.04, 'grad_norm': 0.3, 'learning_rate': 7e-06, 'num_tokens': {430669.0 * i}, "
            f"'completions/mean_length': {mean_len}, 'reward': {1.5 + i}, 'epoch': {0.1 * i:.1f}}}",
        ]
    run = _read(tmp_path, lines)
    assert _rows(run) == 3
    assert _vals(run, "reward") == [2.5, 3.5, 4.5]


def test_results_printed_as_labelled_key_and_value_lines(tmp_path):
    """llama-recipes' closing results, one item a line with the key and the value each labelled (`Key:
    avg_train_loss, Value: 1.0937`, `Key: avg_eval_loss, Value: inf`): each is the item `name: value`, so
    the non-finite evaluation loss is read."""
    lines = [
        "Epoch 1: train_perplexity=2.9854, train_epoch_loss=1.0937, epoch time 3146.01s",
        "Key: avg_train_prep, Value: 2.985416889190674",
        "Key: avg_train_loss, Value: 1.09373939037323",
        "Key: avg_eval_prep, Value: nan",
        "Key: avg_eval_loss, Value: inf",
    ]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [float("inf")]
    assert _vals(run, "loss")[-1] == 1.09373939037323


def test_checkpoint_removed_notice_with_metrics_in_its_file_name(tmp_path):
    """NeMo's top-k checkpointing: `Removing checkpoint: /ckpts/megatron_gpt--val_loss=3.05-step=15000-
    consumed_samples=2880000.0.ckpt` after each new best. The numbers are the old file's name; only the
    checkpoint lines that report the monitored value are rows."""
    lines = []
    for step, loss in ((15900, 3.04824), (16200, 3.04690)):
        lines.append(f"Epoch 0, global step {step}: 'val_loss' reached {loss} (best {loss}), saving model to "
                     f"'/ckpts/megatron_gpt--val_loss={loss:.2f}-step={step}.ckpt' as top 3")
        lines.append("[NeMo I 2024-02-26 06:39:06 nlp_overrides:412] Removing checkpoint: "
                     f"/ckpts/megatron_gpt--val_loss=3.05-step={step - 900}-consumed_samples=2880000.0.ckpt")
    run = _read(tmp_path, lines)
    assert _rows(run) == 2
    assert "consumed_samples" not in run.series
