"""Round r103 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from written_log import read_text


def test_training_loss_spelt_two_ways_is_one_series(tmp_path):
    # an audio trainer prints `Train Loss 0.41` on its progress lines every few batches and `train_loss: 0.39` in
    # the block it prints after each epoch's evaluation: one training loss, read in line order
    lines = []
    for epoch in range(1, 4):
        for b in (20, 40):
            lines.append(f"Epoch: [{epoch}][{b}/50]\tData Time 0.010\tTrain Loss {1.0 / (epoch + b / 50):.4f}\t")
        lines += ["start validation", f"acc: {0.5 + 0.1 * epoch:.6f}", f"train_loss: {0.9 / epoch:.6f}",
                  f"valid_loss: {1.1 / epoch:.6f}", "validation finished"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    loss = run.series["loss"]
    assert "Train_Loss" not in run.series
    assert float(loss.values[0]) == round(1.0 / 1.4, 4)
    assert float(loss.values[-1]) == round(0.9 / 3, 6)
    assert len(loss) == 9
    assert any("spelt two ways" in str(w) for w in run.meta.get("warnings", []))


def test_training_loss_printed_twice_at_each_step_keeps_the_sharper_copy(tmp_path):
    # `Loss: 0.326567` and `loss:0.327` at the same iteration are one value printed twice, not two cadences
    lines = []
    for i in range(5):
        v = 0.3 + 0.1234567 * i
        lines += [f"Train Epoch: 2 [{400 * i}/8000 (5%)]     Loss: {v:.6f}", f"grad_norm: 4.1 iteration: {10 + 5 * i}",
                  f"loss_a:0.134  loss_b:0.135  loss:{v:.3f}  "]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert float(run.series["loss"].values[-1]) == round(0.3 + 0.1234567 * 4, 6)


def test_two_spellings_on_one_line_stay_apart(tmp_path):
    # a bar's `loss=` beside its `Loss=` on the same lines is no single name printed at two cadences
    text = "".join(f"step {i}: loss={1.0 / (i + 1):.4f} Loss={2.0 / (i + 1):.4f}\n" for i in range(6))
    run = read_text(tmp_path, text)
    assert not any("spelt two ways" in str(w) for w in run.meta.get("warnings", []))


def test_framework_and_convention_spellings_in_the_alias_table(tmp_path):
    # detectron2's metrics.json: the box head's classification accuracy is the run's accuracy when no mask head logs one
    text = "".join('{"iteration": %d, "total_loss": %.3f, "fast_rcnn/cls_accuracy": %.3f, "lr": 0.001}\n'
                   % (20 * (i + 1), 1.5 - 0.1 * i, 0.8 + 0.02 * i) for i in range(5))
    run = read_text(tmp_path, text, name="metrics.json")
    assert list(run.series["accuracy"].values)[:2] == [0.8, 0.82]
    text = "".join('{"iteration": %d, "total_loss": %.3f, "fast_rcnn/cls_accuracy": %.3f, "mask_rcnn/accuracy": %.3f}\n'
                   % (20 * (i + 1), 1.5 - 0.1 * i, 0.8 + 0.02 * i, 0.6 + 0.01 * i) for i in range(5))
    run = read_text(tmp_path, text, name="metrics.json")
    assert list(run.series["accuracy"].values)[:2] == [0.6, 0.61]
    # a Spearman coefficient by its letter; a rejected reward in the singular; AlphaZero-style explained variance
    run = read_text(tmp_path, "epoch,eval_loss,eval_spearman_rho\n" + "".join(
        f"{i},{1.0 - 0.1 * i:.2f},{0.1 * i:.2f}\n" for i in range(1, 5)), name="log.csv")
    assert "eval/spearman" in run.series
    text = "".join('{"step": %d, "dpo_loss": %.3f, "chosen_reward": %.3f, "rejected_reward": %.3f}\n'
                   % (i, 0.69 - 0.01 * i, 0.01 * i, -0.02 * i) for i in range(5))
    run = read_text(tmp_path, text, name="metrics.jsonl")
    assert {"rewards/chosen", "rewards/rejected"} <= set(run.series)
    text = "".join(f"kl:0.0{i + 1},lr_multiplier:1.000,loss:{5.3 - 0.1 * i:.2f},entropy:4.3,"
                   f"explained_var_old:{0.01 * i:.3f},explained_var_new:{0.1 + 0.01 * i:.3f}\n" for i in range(5))
    run = read_text(tmp_path, text)
    assert list(run.series["explained_variance"].values)[:2] == [0.0, 0.01]
