"""Settings a log printed (`Namespace(...)`, `args: {...}`) become the run's config, parsed and never run."""

from __future__ import annotations

import math

from triage import api
from triage.ingest import read_run, settings


def test_a_namespace_repr_gives_its_literal_keywords():
    got = settings.from_call("Namespace(lr=0.01, batch_size=64, clip_grad=1.0, opt='sgd', model=<class 'nets.Net'>, "
                             "device=device(type='cuda'), betas=(0.9, 0.99))")
    # an object's repr reads as None; a call and a tuple are no scalar settings and are left out
    assert got == {"lr": 0.01, "batch_size": 64, "clip_grad": 1.0, "opt": "sgd", "model": None}


def test_a_call_with_trailing_text_and_a_broken_call():
    assert settings.from_call("main(epochs=4, batch_size=8)  (started)") == {"epochs": 4, "batch_size": 8}
    assert settings.from_call("Namespace(lr=0.01, batch_size=") == {}
    assert settings.from_call("Namespace(lr=" + "(" * 5000 + ")") == {}  # deep nesting: no RecursionError escapes
    assert settings.from_call("Namespace(a=1, " + "b=2, " * 30_000 + "c=3)") == {}  # too long to be a settings line


def test_a_settings_dict_is_flattened_keeping_scalars():
    got = settings.from_dict({"lr": 0.01, "optim": {"name": "adamw", "max_grad_norm": 0.5, "betas": [0.9, 0.99]},
                              3: "x", "tags": ["a"]})
    assert got == {"lr": 0.01, "name": "adamw", "max_grad_norm": 0.5}


def _log(tmp_path, head: str):
    lines = [head] + [f"epoch {i} loss {2.3 * math.exp(-i / 4):.4f}" for i in range(1, 9)]
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_printed_namespace_becomes_the_run_config(tmp_path):
    run = read_run(str(_log(tmp_path, "Namespace(lr=0.001, max_grad_norm=1.0, gradient_accumulation_steps=4)")))
    assert run.config == {"lr": 0.001, "max_grad_norm": 1.0, "gradient_accumulation_steps": 4}
    assert run.meta["config_path"] == "train.log (printed settings)"
    assert list(run.series["loss"].values[:1]) == [round(2.3 * math.exp(-1 / 4), 4)]  # the settings line is no row


def test_printed_args_dict_becomes_the_run_config_and_a_file_beside_it_fills_the_rest(tmp_path):
    path = _log(tmp_path, "args: {'lr': 0.01, 'clip_grad': 0.0, 'epochs': 8}")
    (tmp_path / "config.json").write_text('{"clip_grad": 5.0, "fp16": true}')
    run, _ = api.read_input(str(path))
    # what the run printed wins over a file beside it (the file may be a later edit); the file adds the rest
    assert run.config["clip_grad"] == 0.0 and run.config["fp16"] is True and run.config["lr"] == 0.01


def test_a_search_trials_settings_are_not_the_run_config(tmp_path):
    path = tmp_path / "search.log"
    path.write_text("Evaluating Config #3 [of 16]:\n {'learning_rate': 0.01, 'reg': 1e-05}\n"
                    + "\n".join(f"epoch {i} loss {1.0 / i:.3f}" for i in range(1, 6)) + "\n")
    assert read_run(str(path)).config == {}


def test_printed_clipping_answers_the_clipping_question(tmp_path):
    """A diverging run that printed `clip_grad=1.0`: the config answer is cited from the log itself."""
    lines = ["Namespace(lr=0.5, clip_grad=1.0, optimizer='adam')"]
    for i in range(1, 121):
        loss = 2.3 * math.exp(-i / 30) + 0.4 if i < 60 else 30.0 + 8 * math.sin(i)
        lines.append(f"step {i} | loss {loss:.4f} | grad_norm {1.0 if i < 60 else 250.0 + 40 * math.cos(i):.3f}")
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    doc = api.scan(str(path))
    cited = [a for a in doc["_applied"].config if a["question"] == "Q-ops-grad-clip"]
    assert cited and cited[0]["answer"] == "on" and cited[0]["file"] == "train.log (printed settings)"


def test_the_trainers_run_banner_gives_its_settings(tmp_path):
    """HF Trainer prints its plan under `***** Running training *****`; accumulation, batch size and steps are
    config keys under TrainingArguments' names."""
    path = tmp_path / "stdout.log"
    path.write_text("***** Running training *****\n  Num examples = 1,000\n  Num Epochs = 3\n"
                    "  Instantaneous batch size per device = 8\n"
                    "  Total train batch size (w. parallel, distributed & accumulation) = 32\n"
                    "  Gradient Accumulation steps = 4\n  Total optimization steps = 93\n"
                    + "".join(f"{{'loss': {2.3 - 0.2 * i:.2f}, 'learning_rate': 4e-05, 'epoch': {0.3 * i:.1f}}}\n"
                              for i in range(1, 6)))
    run = read_run(str(path))
    assert run.config == {"num_examples": 1000, "num_train_epochs": 3, "per_device_train_batch_size": 8,
                          "total_train_batch_size": 32, "gradient_accumulation_steps": 4, "max_steps": 93}
    assert len(run.series["loss"]) == 5


def test_name_value_pairs_after_a_settings_word_are_settings():
    got = settings.from_pairs("net=WideCNN widths=8,16,32, lr=0.003, eps=1e-06, smoothing=0.2, amp=False, tag='a b'")
    assert got == {"net": "WideCNN", "widths": "8,16,32", "lr": 0.003, "eps": 1e-06, "smoothing": 0.2, "amp": False,
                   "tag": "a b"}
    assert settings.from_pairs("x=" + "9" * 300 + ", y=2") == {"y": 2}  # a value too long for a setting is left out


def test_a_printed_settings_line_of_pairs_becomes_the_run_config(tmp_path):
    path = _log(tmp_path, "2025-01-02 10:00:00 INFO Hyperparameters: lr=0.0005, weight_decay=0.05, batch_size=64")
    run = read_run(str(path))
    assert run.config == {"lr": 0.0005, "weight_decay": 0.05, "batch_size": 64}
    assert set(run.series) == {"loss"} and run.meta["skipped"].get("a line of settings") == 1  # no record of its own
    # a record that happens to open with a settings-like word and one pair stays a record
    other = _log(tmp_path, "params: loss=2.5")
    assert read_run(str(other)).config == {}


def test_printed_pairs_keep_free_text_values_whole():
    got = settings.from_pairs(" model=GCN(2 layers, hidden 32), lr=0.01, dropout=0.9, scheduler=None, "
                              "window=24, 4 steps, betas=(0.5, 0.999), name='x'")
    # a value runs to the next `name=`: free text stays text, a tuple is no scalar and keeps its text
    assert got == {"model": "GCN(2 layers, hidden 32)", "lr": 0.01, "dropout": 0.9, "scheduler": None,
                   "window": "24, 4 steps", "betas": "(0.5, 0.999)", "name": "x"}


def test_a_settings_word_before_no_pair_opens_no_settings_line(tmp_path):
    run = read_run(str(_log(tmp_path, "config: loss 0.3, lr=0.1")))
    assert run.config == {}


def test_a_printed_config_line_of_pairs_becomes_the_run_config(tmp_path):
    head = "2026-01-01 10:00:00,001 - train - INFO - config: model=MLP 128x2, lr=0.001, label_smoothing=0.9, epochs=8"
    run = read_run(str(_log(tmp_path, head)))
    assert run.config == {"model": "MLP 128x2", "lr": 0.001, "label_smoothing": 0.9, "epochs": 8}
    assert sorted(run.series) == ["loss"]  # none of the settings is read as a metric


def test_a_metrics_line_after_a_settings_word_stays_a_record(tmp_path):
    # pairs that name a loss are measurements, not settings
    lines = [f"args: step={i}, loss={2.3 * math.exp(-i / 4):.4f}, lr=0.001" for i in range(1, 9)]
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(str(path))
    assert "loss" in run.series and not run.config


def test_a_dict_printed_under_a_settings_key_becomes_the_run_config(tmp_path):
    lines = ["{'config': {'model': 'top-1 MoE', 'lr': 0.002, 'aux_loss_coef': 100.0, 'epochs': 10}}"]
    lines += [f"{{'step': {i * 20}, 'loss': {2.3 * math.exp(-i / 4):.4f}}}" for i in range(1, 9)]
    path = tmp_path / "train.log"
    path.write_text("\n".join(lines) + "\n")
    run = read_run(str(path))
    assert run.config == {"model": "top-1 MoE", "lr": 0.002, "aux_loss_coef": 100.0, "epochs": 10}
    assert len(run.series["loss"]) == 8
