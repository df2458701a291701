"""A Jupyter notebook is read by what its code cells printed, never by its metadata."""

from __future__ import annotations

import json
import math

import pytest

from triage.ingest import IngestError, read_run


def _nb(cells, nbformat=4):
    return {"cells": cells, "metadata": {"language_info": {"codemirror_mode": {"version": 3}}},
            "nbformat": nbformat, "nbformat_minor": 2}


def _code(*outputs):
    return {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["train()"], "outputs": list(outputs)}


def _stream(lines):
    return {"output_type": "stream", "name": "stdout", "text": [line + "\n" for line in lines]}


def test_the_printed_training_log_inside_a_notebook_is_read(tmp_path):
    lines = [f"Iter {k * 100}, Minibatch Loss= {2.5 / (k + 1):.6f}, Training Accuracy= {0.1 + k / 20:.5f}" for k in range(10)]
    nb = _nb([{"cell_type": "markdown", "metadata": {}, "source": ["# RNN"]},
              _code(_stream(lines[:5])), _code(_stream(lines[5:]), {"output_type": "execute_result", "execution_count": 2,
                                                                     "data": {"text/plain": ["0.8828"]}, "metadata": {}})])
    p = tmp_path / "rnn.ipynb"
    p.write_text(json.dumps(nb), encoding="utf-8")
    run = read_run(p)
    assert run.format == "notebook"
    assert list(run.get("loss").steps) == [k * 100 for k in range(10)]
    assert math.isclose(run.get("accuracy").values[-1], 0.55)
    assert not any(k.startswith(("metadata", "nbformat")) for k in run.series)


def test_an_nbformat3_notebook_and_a_failed_cell(tmp_path):
    nb = {"nbformat": 3, "worksheets": [{"cells": [
        {"cell_type": "code", "outputs": [{"output_type": "stream", "stream": "stdout",
                                            "text": [f"Epoch: {e:03d} | AvgCost: {c}\n" for e, c in ((1, "nan"), (2, "nan"))]},
                                           {"output_type": "pyerr", "ename": "ValueError", "evalue": "loss is nan",
                                            "traceback": ["\x1b[0;31mValueError\x1b[0m: loss is nan"]}]}]}]}
    p = tmp_path / "old.ipynb"
    p.write_text(json.dumps(nb), encoding="utf-8")
    run = read_run(p)
    assert math.isnan(run.get("loss").values[-1])
    assert any(ev.kind in ("traceback", "error") for ev in run.events)


def test_a_notebook_that_printed_nothing_says_so(tmp_path):
    p = tmp_path / "empty.ipynb"
    p.write_text(json.dumps(_nb([_code()])), encoding="utf-8")
    with pytest.raises(IngestError, match="printed nothing"):
        read_run(p)


def _trainer_table(rows):
    """The progress table HF Trainer displays in a notebook: HTML, with only the object's repr as text."""
    head = "".join(f"<th>{h}</th>" for h in ("Step", "Training Loss", "Validation Loss", "Accuracy"))
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    html = (f"<div><progress value='300' max='300'></progress> [300/300 00:41, Epoch 3/3]</div>"
            f"<table border='1' class='dataframe'><thead><tr style='text-align: left;'>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table><p>")
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/html": [html], "text/plain": ["<IPython.core.display.HTML object>"]}}


def test_the_html_progress_table_of_a_notebook_trainer_is_read(tmp_path):
    table = _trainer_table([(100, "No log", "1.170000", "0.78"), (200, "0.500000", "1.200000", "0.79"),
                            (300, "0.400000", "1.300000", "0.80")])
    final = {"output_type": "execute_result", "execution_count": 3, "metadata": {},
             "data": {"text/plain": ["{'eval_loss': 1.3, 'eval_accuracy': 0.8, 'eval_runtime': 2.0, 'epoch': 3.0}"]}}
    pip = {"output_type": "stream", "name": "stdout", "text": ["\x1b[K     |████████████████| 163 kB 15.5 MB/s \n"]}
    nb = _nb([_code(pip), _code(table), _code(final)])
    p = tmp_path / "ft.ipynb"
    p.write_text(json.dumps(nb), encoding="utf-8")
    run = read_run(p)
    assert list(run.get("eval/loss").values) == [1.17, 1.2, 1.3]   # the table and the final dict: one series
    assert list(run.get("loss").steps) == [200, 300]
    assert "kB" not in run.series                                    # a download bar is no metric


def test_two_evaluations_at_their_own_cadences_stay_two_series(tmp_path):
    lines = []
    for i in range(1, 7):
        lines.append(f"step {i * 10}: loss {2 - i / 10:.3f}, val loss {2.1 - i / 10:.3f}")
        if i % 2 == 0:
            lines.append(f"step {i * 10}: validation loss {2.5 - i / 10:.3f}")
    p = tmp_path / "two.log"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = read_run(p)
    assert len(run.get("eval/loss")) == 6  # never a mix of the two


def test_an_evaluation_in_percent_and_one_in_fractions_are_never_joined(tmp_path):
    lines = [f"epoch {e} val/accuracy: {0.70 + e / 100:.3f}" for e in range(1, 6)]
    lines += [f"epoch {e} eval/Acc: {70 + e:.1f}" for e in range(6, 9)]
    p = tmp_path / "pct.log"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = read_run(p)
    assert max(run.get("eval/accuracy").values) < 1
