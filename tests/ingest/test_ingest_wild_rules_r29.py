"""Reader rules from the twenty-ninth round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_dqn_loop_line_whose_only_known_key_is_the_mean_episode_return(tmp_path):
    """A DQN loop's periodic print, `avg_r: 0.0001, avg_l: 0.000135, avg_q: -0.0018, avg_ep_r: 0.09, ...,
    # game: 300`, glued after a tqdm bar: `avg_ep_r` is the mean episode return, so the line is a metric line."""
    lines = []
    for k in range(1, 5):
        lines.append(f" {k}0%|██        | {k}000/10000 [00:0{k}<00:30, 100.00it/s]INFO:agent:avg_r: 0.00{k}0, "
                     f"avg_l: 0.00{k}5, avg_q: -0.0{k}, avg_ep_r: 0.{k}0, max_ep_r: 1.{k}0, min_ep_r: -0.{k}0, # game: {k * 10}")
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "episode_reward") == [0.1, 0.2, 0.3, 0.4]


def test_per_head_accuracies_on_a_named_split(tmp_path):
    """JiGen-style loggers: `Accuracies on val: class : 96.75` (one heading, then each head's accuracy on the
    split); the `class` head is the classifier's own accuracy, another head keeps its name."""
    lines = []
    for e in range(1, 4):
        lines += [f"0/42 of epoch {e}/3 class : 0.{5 - e} - acc class : 9{e}.00 [bs:128]",
                  f"Accuracies on val: class : 9{e}.50, jigsaw : 3{e}.00",
                  f"Accuracies on test: class : 8{e}.25",
                  "New epoch - lr: 0.0008"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/accuracy") == [91.5, 92.5, 93.5]
    assert _vals(run, "eval/test/accuracy") == [81.25, 82.25, 83.25]
    assert "class" not in {s.removeprefix("eval/") for s in run.series if s.startswith("eval/")}


def test_bracketed_record_glued_to_the_next_one(tmp_path):
    """`[Epoch 2/2] [Batch 30/40] [G - gan: 6.8] [D - real: 0.4][Epoch 2/2] [Batch 40/40] [...]`: two
    records on one line (a newline lost when the log was pasted) are two rows."""
    lines = [f"[Epoch 2/2] [Batch {b}/40] [G - gan: 6.{b // 10}, rec: 0.15] [D - real: 0.4{b // 10}]"
             for b in (0, 10, 20)]
    lines[-1] += "[Epoch 2/2] [Batch 30/40] [G - gan: 6.3, rec: 0.15] [D - real: 0.43]"
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 4
    assert _vals(run, "gan") == [6.0, 6.1, 6.2, 6.3]
    assert [float(s) for s in run.get("gan").steps][-2:] == [20.0, 30.0]


def test_value_set_in_markdown_bold(tmp_path):
    """A log pasted into Markdown with the values that matter set in bold: `loss: **0.412**, acc: **88.1%**`."""
    lines = [f"epoch {e} loss: 0.{9 - e}00, acc: 8{e}.0%" for e in range(1, 4)]
    lines.append("epoch 4 loss: **0.412**, acc: **88.1%**")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.8, 0.7, 0.6, 0.412]
    assert _vals(run, "accuracy")[-1] in (88.1, 0.881)
