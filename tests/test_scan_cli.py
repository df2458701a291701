"""`triage scan` and `triage watch` as a user and a script see them: output, JSON contract, exit codes."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from triage.cli import app

runner = CliRunner()
CONTRACT_KEYS = {"version", "sources", "findings", "causes", "unanswered", "healthy"}


def write_jsonl(path: Path, n: int = 300, nan_from: int | None = None, gn_high: bool = False, lr_flat: bool = False) -> Path:
    lines = []
    for i in range(1, n + 1):
        loss = 2.3 * math.exp(-i / 80) + 0.3 + 0.01 * math.sin(i)
        if nan_from is not None and i >= nan_from:
            loss = float("nan")
        gn = 40.0 + 5 * math.sin(i) if gn_high and i > 50 else 1.0 + 0.1 * math.cos(i)
        lr = 1e-4 if lr_flat else 1e-4 * min(1.0, i / 30)
        row = {"step": i, "loss": loss, "grad_norm": gn, "learning_rate": lr}
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")
    return path


def scan_json(*args: str, input: str | None = None):
    result = runner.invoke(app, ["scan", *args, "--json"], input=input)
    return result, (json.loads(result.stdout) if result.stdout.strip() else None)


def test_healthy_run_exits_0_with_empty_causes(tmp_path):
    result, doc = scan_json(str(write_jsonl(tmp_path / "ok.jsonl")))
    assert result.exit_code == 0, result.output
    assert set(doc) == CONTRACT_KEYS
    assert doc["healthy"] is True and doc["causes"] == [] and doc["findings"] == []
    src = doc["sources"][0]
    assert src["rows"] == 300 and src["skipped"] == 0 and {"loss", "grad_norm", "learning_rate"} <= set(src["metrics"])


def test_nan_run_exits_1_with_finding_and_ranked_causes(tmp_path):
    result, doc = scan_json(str(write_jsonl(tmp_path / "nan.jsonl", nan_from=201)))
    assert result.exit_code == 1
    assert doc["healthy"] is False
    nan = [f for f in doc["findings"] if f["detector"] == "det-loss-nan"]
    assert nan and nan[0]["first_step"] == 201 and "first at step 201" in nan[0]["summary"]
    assert set(nan[0]) == {"detector", "symptom", "answer", "metric", "first_step", "last_step", "summary"}
    assert doc["causes"], "a NaN run gets ranked causes"
    top = doc["causes"][0]
    assert set(top) == {"id", "title", "score", "aliases", "evidence", "fix"}
    assert top["fix"] and top["fix"][0]["knob"] and top["evidence"]
    scores = [c["score"] for c in doc["causes"]]
    assert scores == sorted(scores, reverse=True)
    assert all(c["evidence"] for c in doc["causes"]), "causes only appear with evidence for them"


def test_human_view_shows_numbers_chart_and_next_command(tmp_path):
    path = write_jsonl(tmp_path / "gn.jsonl", gn_high=True)
    result = runner.invoke(app, ["scan", str(path)], env={"COLUMNS": "120", "NO_COLOR": "1"})
    assert result.exit_code == 1
    out = result.output
    assert "grad_norm > 10 on" in out and "Most likely causes" in out
    assert "triage explain" in out and "▼" in out  # the chart marks the anomaly


def test_traceback_text_is_matched_to_its_cause(tmp_path):
    crash = tmp_path / "crash.log"
    crash.write_text(
        "Traceback (most recent call last):\n"
        '  File "train.py", line 88, in <module>\n'
        "    loss.backward()\n"
        "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n"
    )
    result, doc = scan_json(str(crash))
    assert result.exit_code == 1
    assert doc["causes"][0]["id"] == "O3"
    assert any("error text" in e for e in doc["causes"][0]["evidence"])


def test_stdin_is_read_with_dash(tmp_path):
    text = "ValueError: Asking to pad but the tokenizer does not have a padding token.\n"
    result, doc = scan_json("-", input=text)
    assert result.exit_code == 1
    assert {"L3", "S-pad-token-config"} & {c["id"] for c in doc["causes"][:2]}


def test_description_in_words_ranks_through_search(tmp_path):
    note = tmp_path / "note.txt"
    note.write_text("my DPO reward margins are stuck at zero and accuracies sit at 0.5\n")
    result, doc = scan_json(str(note))
    assert result.exit_code == 1
    assert "L9" in [c["id"] for c in doc["causes"][:3]]


def test_unreadable_file_exits_2_with_one_line(tmp_path):
    result = runner.invoke(app, ["scan", str(tmp_path / "missing.jsonl")])
    assert result.exit_code == 2
    lines = [l for l in result.output.splitlines() if l.strip()]
    assert len(lines) == 1 and "missing.jsonl" in lines[0]
    assert "Traceback" not in result.output


def test_several_paths_give_an_array_and_one_line_each(tmp_path):
    a = write_jsonl(tmp_path / "a.jsonl")
    b = write_jsonl(tmp_path / "b.jsonl", nan_from=150)
    result, docs = scan_json(str(a), str(b), "--jobs", "2")
    assert result.exit_code == 1
    assert isinstance(docs, list) and len(docs) == 2
    assert docs[0]["healthy"] is True and docs[1]["healthy"] is False
    human = runner.invoke(app, ["scan", str(a), str(b)], env={"NO_COLOR": "1"})
    lines = [l for l in human.output.splitlines() if l.strip()]
    assert len(lines) == 2 and "healthy" in lines[0] and "finding" in lines[1]


def test_probe_result_feeds_the_diagnosis(tmp_path):
    result_file = tmp_path / "result.json"
    result_file.write_text(json.dumps({
        "probe": "optimizer_coverage", "version": "1", "status": "fail",
        "answers": {"Q-weights-change": "no"}, "measurements": {"missing": ["head.weight"]},
        "message": "2 trainable tensors are not in the optimizer",
    }))
    result, doc = scan_json(str(result_file))
    assert doc["sources"][0]["format"] == "probe-result"
    assert "O2" in [c["id"] for c in doc["causes"][:3]]


@pytest.mark.slow
def test_watch_reports_new_findings_once_from_a_growing_log(tmp_path):
    path = tmp_path / "live.jsonl"
    path.write_text("")
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "triage", "watch", str(path), "--interval", "0.2", "--stop-after", "6"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    with open(path, "a") as fh:
        for i in range(1, 401):
            loss = "NaN" if i > 300 else f"{2.3 * math.exp(-i / 80) + 0.3:.4f}"
            row = f'{{"step": {i}, "loss": {loss}, "grad_norm": 1.0}}\n'
            if i % 100 == 0:  # the job is caught mid-line: the watcher must wait for the rest
                fh.write(row[:12])
                fh.flush()
                time.sleep(0.6)
                fh.write(row[12:])
            else:
                fh.write(row)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert out.count("loss is NaN") == 1, out
    assert "summary" in err


def test_merge_scans_a_resumed_run_as_one(tmp_path):
    full = write_jsonl(tmp_path / "full.jsonl", n=300, nan_from=260).read_text().splitlines()
    first = tmp_path / "part1.jsonl"
    second = tmp_path / "part2.jsonl"
    first.write_text("\n".join(full[:200]) + "\n")
    second.write_text("\n".join(full[180:]) + "\n")  # the resumed job repeats steps 181-200
    result, doc = scan_json(str(first), str(second), "--merge")
    assert isinstance(doc, dict), "one document for one merged run"
    assert doc["sources"][0]["rows"] == 320
    nan = [f for f in doc["findings"] if f["detector"] == "det-loss-nan"]
    assert nan and nan[0]["first_step"] == 260
    assert result.exit_code == 1


SAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "samples"


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is not beside this checkout")
@pytest.mark.parametrize(
    ("sample", "expect"),
    [
        # benign look-alikes from real runs must stay quiet
        ("llmc/llmc_stdout_gpt2_train.11672114.log", None),  # '(+nanz)' is not a NaN loss
        ("sb3/sb3_progress.csv", None),  # NaN / float-noise explained variance with constant returns
        ("megatron/megatron_golden_values_bert_tp2_pp2_resume_2nd.json", None),  # "nan" placeholders
        ("megatron/megatron_golden_values_bert_tp1_pp2.json", None),  # 50 early steps falling slowly
        ("tensorboard/events.out.tfevents.1585769947.cvp", None),  # a toy loss that drops 5 decades at once
        ("lightning_csv/slm_training_version_10_metrics.csv", None),
        ("trl_sft/tinyllama_sft_trainer_state.json", None),
        # real problems are found
        ("hf_trainer_state/trainer_state_multi_eval_overfit.json", "S-overfit"),  # six named eval sets
        ("trl_grpo/chaos_economy_grpo_trainer_state.json", "S-completions-clipped"),
    ],
)
def test_real_samples(sample, expect):
    result, doc = scan_json(str(SAMPLES / sample))
    if expect is None:
        assert doc["healthy"], [f["summary"] for f in doc["findings"]]
        assert result.exit_code == 0
    else:
        assert result.exit_code == 1
        assert doc["causes"] and doc["causes"][0]["id"] == expect, [c["id"] for c in doc["causes"][:3]]


def test_a_log_with_no_metrics_says_so(tmp_path):
    path = tmp_path / "progress.jsonl"
    path.write_text('{"current_steps": 1, "total_steps": 10, "percentage": 10.0}\n' * 5)
    result = runner.invoke(app, ["scan", str(path)], env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert result.exit_code == 3  # nothing was read: not "healthy", and not unreadable either
    assert "no metrics or error lines found" in result.output and "No problems found" not in result.output


@pytest.mark.parametrize("content, says", [
    ("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n" * 10,
     "no metrics or error lines found"),
    ("2024-01-01 10:00:00 INFO starting\n2024-01-01 10:00:01 INFO loading data\n", "no metrics or error lines found"),
    ("version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab\nsize 1234\n", "git-lfs pointer"),
    ("<!DOCTYPE html>\n<html><head><title>run</title></head><body>loss 2.3</body></html>\n", "HTML"),
])
def test_what_is_not_a_log_exits_2_and_says_what_it_is(tmp_path, content, says):
    path = tmp_path / "events.out.tfevents.1700000000.host"
    path.write_text(content)
    result = runner.invoke(app, ["scan", str(path)], env={"NO_COLOR": "1", "COLUMNS": "200"})
    # 3: read, but nothing in it (no metric, no error line); 2: not a log at all
    assert result.exit_code == (3 if "no metrics" in says else 2), result.output
    assert says in result.output and "Most likely causes" not in result.output


def test_a_short_note_is_read_as_a_description(tmp_path):
    path = tmp_path / "note.txt"
    path.write_text("My loss goes to nan after three epochs when I raise the learning rate with fp16.\n")
    result = runner.invoke(app, ["scan", str(path)], env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert result.exit_code == 1, result.output
    assert "Most likely causes" in result.output


def test_a_printed_nan_loss_is_read_not_healthy(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("".join(f"step {i} | loss {2.3 - i * 0.01:.3f} | lr 3e-4\n" for i in range(1, 30))
                    + "step 30 | loss nan | lr 3e-4\nstep 31 | loss nan | lr 3e-4\n")
    result = runner.invoke(app, ["scan", "--json", str(path)], env={"NO_COLOR": "1", "COLUMNS": "200"})
    assert result.exit_code == 1, result.output
