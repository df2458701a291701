"""Round r95 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from triage.ingest import read_run


def _read(tmp_path, text: str, name: str = "train.log"):
    p = tmp_path / name
    p.write_text(text)
    return read_run(str(p))


def test_bare_split_that_falls_with_the_loss_is_that_splits_loss(tmp_path):
    # `it 40 | loss: 2.60 | dev: 2.41`: the split word alone beside the loss, on its scale and falling
    # with it, is the held-out loss (an accuracy would rise while the loss falls)
    rows = [(0, 5.02, 4.71), (40, 3.95, 3.80), (80, 3.31, 3.22), (120, 3.02, 3.05), (160, 2.88, 2.95)]
    text = "".join(f"it {s} | took 1.2m | loss: {a:.2f} | dev: {b:.2f}\n" for s, a, b in rows)
    run = _read(tmp_path, text)
    assert list(run.series["eval/loss"].values) == [4.71, 3.80, 3.22, 3.05, 2.95]
    assert "eval/accuracy" not in run.series


def test_bare_split_on_its_own_line_after_the_loss_lines_is_that_splits_loss(tmp_path):
    # the held-out value printed on a line of its own after some training lines pairs with the loss
    # printed last before it
    text = ""
    loss = 3.9
    for k in range(1, 7):
        for j in range(3):
            loss *= 0.9
            text += f"[{k} {j * 100}/300] loss {loss:.4f} lr 1.0e-04\n"
        text += f"  => valid {loss * 1.1:.4f} | uniq 0.99\n"
    run = _read(tmp_path, text)
    assert len(run.series["eval/loss"].values) == 6
    assert "eval/accuracy" not in run.series


def test_bare_split_that_rises_as_the_loss_falls_stays_an_accuracy(tmp_path):
    # `Loss: 1.42, Val: 0.53`: the bare split moving against the loss scores it the other way
    rows = [(1.42, 0.41), (1.10, 0.52), (0.93, 0.60), (0.81, 0.66), (0.74, 0.70)]
    text = "".join(f"Epoch {i}: Loss: {a:.2f}, Val: {b:.2f}\n" for i, (a, b) in enumerate(rows, 1))
    run = _read(tmp_path, text)
    assert list(run.series["eval/accuracy"].values) == [0.41, 0.52, 0.60, 0.66, 0.70]
    assert "eval/loss" not in run.series


def test_logged_success_averaged_over_episodes_is_the_success_rate(tmp_path):
    # a navigation agent's window metrics print `success` (the share of episodes that reached the goal)
    text = "".join(f"update: {u}\tframes: {u * 128}\tloss: 0.{u}1\tsuccess: 0.{u}00\tspl: 0.0{u}\n"
                   for u in range(1, 5))
    run = _read(tmp_path, text)
    assert list(run.series["success_rate"].values) == [0.1, 0.2, 0.3, 0.4]


def test_sample_stats_rewards_with_min_max_is_the_episode_return(tmp_path):
    # a sampler's stats: `rewards:<mean>[<min>, <max>]` beside `lens:` is the mean return of the episodes
    text = "".join(f"Task-train - INFO - {n}/100000(1%) samples_stats: rewards:{r}[1.0, 60.0], lens:100[100, 100], "
                   f"success:0.{k} critic_loss: 0.2{k} actor_loss: -1.{k}\n"
                   for k, (n, r) in enumerate([(2000, 12.5), (4000, 20.25), (6000, 31.0)]))
    run = _read(tmp_path, text)
    assert list(run.series["episode_reward"].values) == [12.5, 20.25, 31.0]
    assert list(run.series["success_rate"].values) == [0.0, 0.1, 0.2]


def test_status_tag_with_the_pass_duration_names_no_metric(tmp_path):
    # `....[success][98.2 seconds]`: the outcome of a pass and how long it took; the status word is no
    # metric's name (a `success` key would read as a success rate)
    text = ""
    for e in range(1, 6):
        text += f"Start Training {e} Epoch..0%..50%....[success][{90 + e}.5 seconds]\n"
        if e % 2 == 1:
            text += f"Start Evaluating {e} Epoch..0%..50%....BEST_ACC: {60 + e}.0% ({60 + e}.0%)....[success][30.{e} seconds]\n"
    run = _read(tmp_path, text)
    assert not any("success" in k for k in run.series)
    assert list(run.series["accuracy"].values) == [61.0, 63.0, 65.0]


def test_one_regression_head_error_named_after_its_output_is_the_mae(tmp_path):
    # a two-headed model's report: `val_<head>_acc` for the classifier, `val_<head>_mae` for the regressor;
    # the log's only MAE is the model's MAE on that split
    text = "".join(f"EPOCH: {e}.000  val_sex_acc: 0.8{e}  val_height_mae: {9 - e}.5  trn_loss: 0.{6 - e}  "
                   f"val_loss: 0.{7 - e}  ({e * 10}.0s - {50 - e * 10}.0s remaining)\n" for e in range(1, 5))
    run = _read(tmp_path, text)
    assert list(run.series["eval/mae"].values) == [8.5, 7.5, 6.5, 5.5]
    assert list(run.series["eval/accuracy"].values) == [0.81, 0.82, 0.83, 0.84]


def test_two_head_errors_of_one_kind_keep_their_own_names(tmp_path):
    # two regression heads: neither is the model's one MAE
    text = "".join(f"epoch {e} loss 0.{6 - e} age_mae {9 - e}.5 weight_mae {5 - e}.25\n" for e in range(1, 5))
    run = _read(tmp_path, text)
    assert "mae" not in run.series


def test_first_of_two_numbered_xgboost_eval_sets_is_the_training_data(tmp_path):
    # `eval_set=[(X_train, y_train), (X_valid, y_valid)]`: XGBoost numbers them validation_0 and validation_1
    text = "".join(f"[{r}]\tvalidation_0-mae:{5 - r * 0.1:.2f}\tvalidation_1-mae:{6 - r * 0.05:.2f}\n"
                   for r in range(4))
    run = _read(tmp_path, text)
    assert list(run.series["mae"].values) == [5.0, 4.9, 4.8, 4.7]
    assert list(run.series["eval/mae"].values) == [6.0, 5.95, 5.9, 5.85]


def test_one_numbered_xgboost_eval_set_stays_the_evaluation(tmp_path):
    text = "".join(f"[{r}]\tvalidation_0-rmse:{3 - r * 0.1:.2f}\n" for r in range(4))
    run = _read(tmp_path, text)
    assert list(run.series["eval/rmse"].values) == [3.0, 2.9, 2.8, 2.7]


def test_decimal_percent_before_a_glued_column_rule_is_no_progress_bar(tmp_path):
    # `Rank-10: 53.17%| Rank-20: ...`: a bar's share done is a whole percent; a value with decimals before the
    # `|` is a metric with the table's rule glued to it, and the line is the evaluation's record
    text = ("Test Epoch: 2\n"
            "Rank-1: 31.25% | Rank-5: 52.50% | Rank-10: 61.75%| Rank-20: 72.00%| mAP: 28.40%| mINP: 11.20%\n"
            "Test Epoch: 3\n"
            "Rank-1: 33.50% | Rank-5: 54.25% | Rank-10: 63.00%| Rank-20: 73.50%| mAP: 29.90%| mINP: 12.60%\n")
    run = _read(tmp_path, text)
    assert list(run.series["eval/rank1"].values) == [31.25, 33.5]
    assert list(run.series["eval/map"].values) == [28.4, 29.9]


def test_whole_percent_before_a_bar_is_still_a_progress_bar(tmp_path):
    # the tqdm bar itself keeps its reading: its postfix is the record, the share done no metric
    text = "".join(f"Epoch {e}: 100%|██████████| 50/50 [00:03<00:00, 15.2it/s, loss=0.{9 - e}]\n" for e in range(1, 4))
    run = _read(tmp_path, text)
    assert list(run.series["loss"].values) == [0.8, 0.7, 0.6]


def test_a_logs_only_metric_being_the_training_mse_is_its_loss(tmp_path):
    # `Training MSE: 0.41` once an epoch and nothing else: the regression's criterion is what it trains on
    text = "".join(f"-- Epoch {e}\nTraining MSE: {v}\n" for e, v in [(1, 0.93), (2, 0.71), (3, 0.64)])
    run = _read(tmp_path, text)
    assert list(run.series["loss"].values) == [0.93, 0.71, 0.64]


def test_a_bare_mse_beside_other_terms_stays_its_own_metric(tmp_path):
    # `policy 1.7 mse 0.19`: the MSE may be one term of a sum; it is no loss by itself
    text = "".join(f"step {s} policy {p} mse {m}\n" for s, p, m in [(1, 1.7, 0.19), (2, 1.5, 0.18), (3, 1.4, 0.17)])
    run = _read(tmp_path, text)
    assert "loss" not in run.series
