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
