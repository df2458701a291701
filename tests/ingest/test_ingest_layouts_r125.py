"""Round r125 reading rules (whole-line layouts of real tools, bench/styles.py --layouts), each on small synthetic
lines in a style of its own."""
from __future__ import annotations

from written_log import read_text


def _bar(pass_no: int, k: int, total: int, post: list[str]) -> str:
    return f"pass {pass_no}: {100 * k // total:3d}%|{'#' * (10 * k // total):<10}| {k}/{total} [00:01<00:02, 3.3it/s, " \
        + ", ".join(post) + "]"


def test_a_bar_postfix_carries_an_evaluation_forward_as_one_point(tmp_path):
    # a score the evaluation logged stays on the training bar through the next pass's redraws: one point, at the
    # redraw where it first showed, however many redraws repeat it
    redraws, score = [], None
    for p in range(3):
        for k in range(1, 5):
            post = ["v_num=7", f"wer={2.0 - 0.1 * (4 * p + k):.3f}"] + ([f"dev_wer={score:.3f}"] if score else [])
            redraws.append(_bar(p, k, 4, post))
        score = 1.9 - 0.2 * p
        redraws.append(_bar(p, 4, 4, ["v_num=7", f"wer={2.0 - 0.1 * (4 * p + 4):.3f}", f"dev_wer={score:.3f}"]))
    run = read_text(tmp_path, "\r" + "\r".join(redraws) + "\n")
    ev = run.series["eval/wer"]
    assert [round(float(v), 3) for v in ev.values] == [1.9, 1.7, 1.5]


def test_an_evaluation_bar_between_redraws_makes_an_unchanged_score_a_new_point(tmp_path):
    # the same score twice in a row is two evaluations when the evaluation's own bar ran between them
    text = ""
    for p in range(3):
        post = ["v_num=2", f"train_loss={1.0 - 0.1 * p:.3f}"] + (["val_acc=0.100"] if p else [])
        text += "\r" + "\r".join(_bar(p, k, 3, post) for k in range(1, 4)) + "\n"
        text += "\r".join(f"Validating: {50 * k:3d}%|{'#' * (5 * k):<10}| {k}/2 [00:00<00:00, 9.0it/s]"
                          for k in range(3)) + "\n"
        text += "\r" + _bar(p, 3, 3, ["v_num=2", f"train_loss={1.0 - 0.1 * p:.3f}", "val_acc=0.100"])
    run = read_text(tmp_path, text + "\n")
    assert len(run.series["eval/accuracy"].values) == 3


def test_a_logged_step_loss_keeps_the_name_over_the_bars_running_loss(tmp_path):
    # the bar's own `loss=` (a running mean the trainer adds) beside the module's `train_loss=`, which changes on
    # every redraw: the logged one is the training loss; the running mean is kept apart
    redraws = []
    for k in range(1, 9):
        redraws.append(_bar(0, k, 8, [f"loss={3.0 - 0.05 * k:.3g}", "v_num=0", f"train_loss={2.0 - 0.2 * k:.3f}"]))
    run = read_text(tmp_path, "\r" + "\r".join(redraws) + "\n")
    loss = run.series["loss"]
    assert round(float(loss.values[0]), 3) == 1.8 and round(float(loss.values[-1]), 3) == 0.4
    assert len(loss.values) == 8


def test_a_pass_summary_at_the_last_batchs_step_keeps_that_steps_own_loss(tmp_path):
    # each pass ends with its mean, printed at the update count of the pass's last batch, which was logged too: the
    # step keeps the batch's loss, the pass's mean is the epoch's (every pass's, one of them at a count of its own)
    lines, it = [], 0
    for p in range(1, 4):
        for k in range(1, 5):
            it += 1
            lines.append(f"[pass {p}] batch {k}/4 :: updates {it} :: loss {2.0 - 0.1 * it:.3f} :: gnorm 0.{k}1")
        lines.append(f"[pass {p}] done :: updates {it + (p == 3)} :: loss {2.0 - 0.1 * it + 0.15:.3f} :: gnorm 0.99")
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    loss = run.series["loss"]
    assert len(loss.values) == 12
    assert [round(float(v), 3) for v in loss.values[3::4]] == [1.6, 1.2, 0.8]
    assert [round(float(v), 3) for v in run.series["loss_epoch"].values] == [1.75, 1.35, 0.95]
    # no summary at a batch line's count: the summaries are read as they were, at their own counts
    lines = [ln.replace(f"updates {u} :: loss", f"updates {u + 1} :: loss") if "done" in ln else ln
             for ln, u in zip(lines, [0] * 4 + [4] + [0] * 4 + [8] + [0] * 4 + [12])]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert "loss_epoch" not in run.series


def test_a_training_split_word_before_an_unknown_metric_printed_for_the_evaluation_too(tmp_path):
    # a metric the alias table does not know, printed for both sets: the training one reads as the metric itself,
    # as the evaluation's reads as eval/<metric>; a phrase of the training's own (its time) is left as it was
    lines = [f"iter {i} :: training's wape={0.6 - 0.1 * i:.2f} :: val's wape={0.7 - 0.1 * i:.2f} :: training time={3 * i}s"
             for i in range(1, 5)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert {"wape", "eval/wape"} <= set(run.series) and "training_wape" not in run.series
    assert round(float(run.series["wape"].values[0]), 2) == 0.5
    assert not any(k in run.series for k in ("time", "eval/time"))
    # alone (no evaluation prints it), the training-side name is kept whole
    run = read_text(tmp_path, "\n".join(ln.split(" :: val's")[0] for ln in lines) + "\n")
    assert "wape" not in run.series
