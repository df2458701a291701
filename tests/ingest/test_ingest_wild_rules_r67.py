"""Reader rules for print styles met in the wild corpus (round 67): each test writes a log of its own
in the style that asked for the rule."""

from __future__ import annotations

import math

from written_log import read_written as _read, series_values as _vals


def test_loss_told_in_a_sentence_with_its_step(tmp_path):
    """A training loop's own abort message that names the loss, a verb (a copula or a verb of change
    and `to`) and then the value, at a counted step (`Loss exploded to nan at step 32`, `loss is inf at
    iteration 7`), printed above the run's argument dump: the value after the verb is the loss at that
    step, also when it is spelled as a word (nan, inf), and the line stays an error event."""
    lines = ["Loss exploded to nan at step 32",
             "Exiting due to exception: Loss exploded",
             "",
             "Arguments:",
             "    name:                   run_a",
             "    summary_interval:       2500",
             "    checkpoint_interval:    2000"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    loss = _vals(run, "loss")
    assert len(loss) == 1 and math.isnan(loss[0])
    assert [float(s) for s in run.get("loss").steps] == [32.0]
    assert any(ev.kind == "error" for ev in run.events)
    run = _read(tmp_path, ["loss is inf at iteration 7", "loss went to 4.25 at iteration 9"], name="copula.log")
    assert _vals(run, "loss")[0] == math.inf
    assert _vals(run, "loss")[1] == 4.25
    # a check's message listing what the value must not be is no reading of it
    run = _read(tmp_path, ["step 1 loss 2.5", "step 2 loss 2.4",
                           "Error reported to Coordinator: LossTensor is inf or nan. : Tensor had NaN values"],
                name="check.log")
    assert run.meta["rows"] == 2
    # a sentence with no counter that only says the loss is NaN stays an error message, not a row
    run = _read(tmp_path, ["step 1 loss 2.5", "step 2 loss 2.4", "loss is nan, stopping"], name="prose.log")
    assert _vals(run, "loss") == [2.5, 2.4]


def test_short_top_k_spellings_and_nmi_after_an_evaluating_heading(tmp_path):
    """A deep-metric-learning trainer's evaluation, one score per logged line after an `Evaluating...`
    heading (`NMI: 51.503`, `R@1 : 37.200`, `R@2 : 48.505`): `R@K` is recall at K, `P@K` precision at K,
    `Hits@K` the hit rate at K, and NMI the clustering score of the embeddings, all held-out scores; the
    lines are read beside the epoch's loss line."""
    lines = []
    for ep, (nmi, r1, r4, loss) in enumerate([(40.1, 30.5, 50.25, None), (44.75, 35.5, 55.0, 3.91),
                                              (46.5, 37.0, 57.5, 3.62)]):
        if loss is not None:
            lines.append(f"2021-03-02 10:0{ep}:00,100 Epoch: {ep}, loss: {loss}, time (seconds): 18.50.")
        lines += [f"2021-03-02 10:0{ep}:10,100 **Evaluating...**",
                  f"2021-03-02 10:0{ep}:20,100 NMI: {nmi}",
                  f"2021-03-02 10:0{ep}:21,100 R@1 : {r1}",
                  f"2021-03-02 10:0{ep}:22,100 R@4 : {r4}"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/nmi") == [40.1, 44.75, 46.5]
    assert _vals(run, "eval/recall@1") == [30.5, 35.5, 37.0]
    assert _vals(run, "eval/recall@4") == [50.25, 55.0, 57.5]
    assert _vals(run, "loss") == [3.91, 3.62]
    run = _read(tmp_path, ["epoch 1 loss 0.8 P@5 0.31 Hits@10 0.52", "epoch 2 loss 0.7 P@5 0.36 Hits@10 0.58"], name="kg.log")
    assert _vals(run, "eval/precision@5") == [0.31, 0.36]
    assert _vals(run, "eval/hit@10") == [0.52, 0.58]
