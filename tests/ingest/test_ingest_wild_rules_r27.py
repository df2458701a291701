"""Reader rules from the twenty-seventh round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

import json

from written_log import read_written as _read, series_values as _vals


def _notebook(*outputs) -> list[str]:
    """One code cell holding the outputs given, as a saved notebook's JSON (one line)."""
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["trainer.train()"],
            "outputs": list(outputs)}
    return [json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})]


def _stream(lines: list[str]) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": [ln + "\n" for ln in lines]}


def _html(html: str) -> dict:
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/plain": ["<IPython.core.display.HTML object>"], "text/html": [html]}}


def _table(rows: list[tuple]) -> str:
    head = "<tr><th>Step</th><th>Training Loss</th><th>reward</th></tr>"
    body = "".join(f"<tr><td>{s}</td><td>{loss:.6f}</td><td>{r:.6f}</td></tr>" for s, loss, r in rows)
    return f"<table border=\"1\" class=\"dataframe\"><thead>{head}</thead><tbody>{body}</tbody></table>"


def test_grpo_generation_samples_in_a_notebook_are_no_metrics(tmp_path):
    """GRPO reward functions printing a sample each step (`-------------------- Question:` / `Answer:` /
    `Response:` / `Extracted:`, the model's arithmetic in between) beside the trainer's HTML table."""
    samples = []
    for k in range(2, 8):
        samples += ["-------------------- Question:", f"Tom buys {k} pens at $2 each. How much does he pay?",
                    "Answer:", f"{2 * k}", "Response:", "Each pen costs 2, so the total:",
                    f"Total cost: {k} * 2 = {2 * k}", f"If a={k}: m={k + 4}, n={3 * k}", f"<answer>{2 * k}</answer>",
                    "Extracted:", f"{2 * k}"]
    rows = [(1, 0.0001, -0.5), (2, 0.0002, 0.25), (3, 0.0004, 1.5)]
    run = _read(tmp_path, _notebook(_stream(samples), _html(_table(rows))), name="grpo.ipynb")
    assert sorted(run.series) == ["loss", "reward"]
    assert run.meta["rows"] == 3 and _vals(run, "reward") == [-0.5, 0.25, 1.5]
    # a `Question:` with no generated reply after it is left alone
    run = _read(tmp_path, _notebook(_stream(["Question: which optimizer?", "epoch 1 loss 0.5", "epoch 2 loss 0.25"])),
                name="plain.ipynb")
    assert _vals(run, "loss") == [0.5, 0.25]


def test_wandb_run_summary_display_adds_no_step(tmp_path):
    """W&B's closing display in a notebook (`<h3>Run history:</h3>` sparklines, `<h3>Run summary:</h3>` with
    each metric's last value and the last step) after plain `Step 2/2, loss: 0.0050` prints."""
    summary = ("<div class=\"wandb-row\"><div class=\"wandb-col\"><h3>Run history:</h3><br/><table class=\"wandb\">"
               "<tr><td>loss</td><td>▁█</td></tr><tr><td>step</td><td>▁█</td></tr></table><br/></div>"
               "<div class=\"wandb-col\"><h3>Run summary:</h3><br/><table class=\"wandb\">"
               "<tr><td>loss</td><td>0.00496</td></tr><tr><td>step</td><td>2</td></tr></table><br/></div></div>")
    run = _read(tmp_path, _notebook(_stream(["Step 1/2, loss: 0.0010", "Step 2/2, loss: 0.0050"]), _html(summary)),
                name="wb.ipynb")
    assert _vals(run, "loss") == [0.001, 0.005]
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0]


def test_inner_loop_counter_is_not_the_step(tmp_path):
    """`Iteration 1/1, Step 3/500, GRPO iter 1/1, loss: 0.0002`: GRPO from scratch counts the outer
    iteration, the step and the updates on one batch; the step is `Step`, not the inner `GRPO iter`."""
    lines = [f"Iteration 1/1, Step {s}/500, GRPO iter 1/1, loss: {s / 1e4:.4f}" for s in (1, 2, 3)]
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0]
    assert _vals(run, "loss") == [0.0001, 0.0002, 0.0003]


def test_csv_total_steps_that_grows_is_the_step(tmp_path):
    """`epoch,total_steps,train_loss,val_loss` (a row every 50 steps): with no step column, a growing
    `total_steps` counts the steps done; a constant one is the planned length and places nothing."""
    rows = ["epoch,total_steps,train_loss,val_loss", "1,50,0.75,0.70", "1,100,0.70,0.66", "2,150,0.62,0.64",
            "2,200,0.60,0.63"]
    run = _read(tmp_path, rows, name="metrics.csv")
    assert run.meta["rows"] == 4 and _vals(run, "loss") == [0.75, 0.70, 0.62, 0.60]
    assert [float(s) for s in run.get("loss").steps] == [50.0, 100.0, 150.0, 200.0]
    rows = ["epoch,total_steps,train_loss", "1,200,0.75", "2,200,0.70", "3,200,0.62"]
    run = _read(tmp_path, rows, name="metrics.csv")
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0]


def test_ms_swift_step_of_total_string_in_printed_dict(tmp_path):
    """ms-swift's printed log dicts carry the step as one string beside its total
    (`'global_step/max_steps': '5/100'`) and a fractional epoch: the step is the count before the slash."""
    lines = ["{'loss': 2.585, 'grad_norm': 17.1, 'learning_rate': 9.99e-05, 'epoch': 0.02, "
             "'global_step/max_steps': '1/100', 'percentage': '1.00%'}",
             "{'loss': 2.036, 'grad_norm': 1.61, 'learning_rate': 9.94e-05, 'epoch': 0.08, "
             "'global_step/max_steps': '5/100', 'percentage': '5.00%'}"]
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("loss").steps] == [1.0, 5.0]
    assert _vals(run, "loss") == [2.585, 2.036]


def test_scores_under_training_set_and_test_set_headings(tmp_path):
    """`On the training set:` / `Accuracy: 0.95` then `On the test set:` / `Accuracy: 0.91` (the course
    notebooks' predict prints after the cost lines): the second accuracy is the test set's, and does not
    overwrite the training set's."""
    for word in ("training", "train"):
        run = _read(tmp_path, ["Cost after iteration 0: 0.69", "Cost after iteration 1000: 0.31",
                               f"On the {word} set:", "Accuracy: 0.95", "On the test set:", "Accuracy: 0.91"])
        assert _vals(run, "loss") == [0.69, 0.31]
        assert _vals(run, "accuracy") == [0.95]
        assert _vals(run, "eval/accuracy") == [0.91]


def test_variant_title_before_a_sentence_with_a_metric(tmp_path):
    """`With Batch Norm: After training, final accuracy on validation set = 0.0988` beside the same line
    `Without Batch Norm: ...` (a lesson comparing two networks): the title's `With` makes no sentence;
    `Accuracy on full test set = 0.101` is the test set's accuracy."""
    lines = ["Without Batch Norm: After training, final accuracy on validation set = 0.1126",
             "With Batch Norm: After training, final accuracy on validation set = 0.0988",
             "Without Batch Norm: Accuracy on full test set = 0.1135",
             "With Batch Norm: Accuracy on full test set = 0.101"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "eval/accuracy") == [0.1126, 0.0988]
    assert _vals(run, "eval/test/accuracy") == [0.1135, 0.101]
