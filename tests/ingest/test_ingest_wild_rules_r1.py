"""Reading rules the wild corpus asked for (table cells, recaps, notices, key spellings), each checked
on a small log written here in the style of the prints that needed it."""

from __future__ import annotations

import math

from triage.ingest import printed
from triage.ingest.aliases import table
from written_log import read_written as _read


def test_bracketed_list_cell_under_a_table_header_is_the_sum_of_its_terms(tmp_path):
    """DeepXDE's console table: `Step  Train loss  Test loss  Test metric`, each loss a list of terms."""
    lines = ["Step      Train loss                        Test loss                         Test metric"]
    for i, (a, b) in enumerate([(4.0, 2.0), (2.5, 1.5), (1.0, 0.5)]):
        lines.append(f"{i * 500:<9} [{a:.2e}, {b:.2e}]          [{a / 2:.2e}, {b / 2:.2e}]          []")
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [6.0, 4.0, 1.5]
    assert list(run.get("loss").steps) == [0, 500, 1000]
    assert list(run.get("eval/loss").values) == [3.0, 2.0, 0.75]


def test_indented_recap_under_a_best_model_heading_is_not_a_row(tmp_path):
    """DeepXDE's closing `Best model at step N:` with the best row's losses indented under it."""
    lines = ["Step      Train loss    Test loss",
             "0         [3.10e+01]    [3.30e+01]",
             "100       [1.20e+01]    [1.40e+01]",
             "200       [nan]         [nan]",
             "",
             "Best model at step 100:",
             "  train loss: 1.20e+01",
             "  test loss: 1.40e+01"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    vals = list(run.get("loss").values)
    assert vals[:2] == [31.0, 12.0] and math.isnan(vals[2])


def test_a_comment_under_a_commented_header_keeps_the_table(tmp_path):
    """DeePMD-kit's lcurve.out: a `#` header, then a `#` note line, then the rows."""
    lines = ["#  step      rmse_val    rmse_trn         lr",
             "# the rmse of a set with no reference data prints as nan",
             "      0      4.10e-01    3.90e-01    1.0e-03",
             "    100      3.20e-01    2.80e-01    8.0e-04",
             "    200      2.50e-01    2.10e-01    6.0e-04"]
    run = _read(tmp_path, lines, "lcurve.out")
    assert list(run.get("learning_rate").values) == [1e-3, 8e-4, 6e-4]
    assert list(run.get("learning_rate").steps) == [0, 100, 200]


def test_two_snake_case_names_one_blank_apart_are_two_columns(tmp_path):
    """Fixed-width headers where a long name leaves one blank before the next (`rmse_e_val rmse_e_trn`)."""
    lines = ["#  step      rmse_val    rmse_trn   rmse_e_val rmse_e_trn         lr",
             "      0      4.10e-01    3.90e-01     1.10e-01   1.00e-01    1.0e-03",
             "    100      3.20e-01    2.80e-01     9.00e-02   8.00e-02    8.0e-04"]
    run = _read(tmp_path, lines, "lcurve.out")
    assert list(run.get("learning_rate").values) == [1e-3, 8e-4]
    assert list(run.get("rmse_e_trn").values) == [0.1, 0.08]


def test_early_stopping_new_best_lines_are_read_when_nothing_else_gives_the_metric(tmp_path):
    """PyTorch Lightning's EarlyStopping callback: `Metric val/acc improved by D >= min_delta = 0.0. New best score: V`."""
    lines = ["Metric val/accuracy improved. New best score: 0.310",
             "Metric val/accuracy improved by 0.090 >= min_delta = 0.0. New best score: 0.400",
             "Metric val/accuracy improved by 0.050 >= min_delta = 0.0. New best score: 0.450"]
    run = _read(tmp_path, lines)
    assert list(run.get("eval/accuracy").values) == [0.31, 0.4, 0.45]


def test_early_stopping_new_best_lines_repeat_a_metric_printed_elsewhere(tmp_path):
    """The same callback beside epoch lines that print the monitored metric: the notices add nothing."""
    lines = []
    for e, acc in enumerate([0.3, 0.4, 0.5]):
        lines.append(f"Epoch {e}: loss={1 - acc:.2f} val_accuracy={acc:.2f}")
        lines.append(f"Metric val_accuracy improved by 0.100 >= min_delta = 0.0. New best score: {acc:.3f}")
    run = _read(tmp_path, lines)
    assert len(run.get("eval/accuracy").values) == 3


def test_cycle_is_a_counter_also_after_a_preposition(tmp_path):
    """Self-play and active-learning loops: `after cycle=N avg(utility)=... avg(num_wins)=...`."""
    lines = [f"after cycle={c} mean_reward={10 + c}.5" for c in range(4)]
    run = _read(tmp_path, lines)
    s = run.get("episode_reward")
    assert list(s.steps) == [0, 1, 2, 3]
    assert list(s.values) == [10.5, 11.5, 12.5, 13.5]


def test_an_aggregate_written_as_a_call_keeps_the_name_inside(tmp_path):
    """`avg(utility)=270.1 avg(num_wins)=0.35`: two metrics, not two values of `avg`."""
    assert printed.call_keys("step=3 avg(utility)=270.1 avg(num_wins)=0.35") == "step=3 avg_utility = 270.1 avg_num_wins = 0.35"
    assert printed.call_keys("loss(x, y) = 0.0913") == "loss = 0.0913"
    lines = [f"step={c} avg(utility)={200 + c}.0 avg(num_wins)=0.{c + 1}" for c in range(3)]
    run = _read(tmp_path, lines)
    assert list(run.get("avg_utility").values) == [200.0, 201.0, 202.0]
    assert list(run.get("avg_num_wins").values) == [0.1, 0.2, 0.3]


def test_meanrew_is_the_mean_episode_return():
    """rllab-style tabular loggers print `MeanRew: -257.4 +- 63.2` beside MaxRew and MeanLen."""
    assert table().resolve("MeanRew", "text").name == "episode_reward"


def test_a_value_kept_per_policy_in_a_one_entry_list_is_read(tmp_path):
    """Sample Factory: `Avg episode reward: [(0, '-1.416')]` (policy id, value as a string)."""
    lines = [f"step {i * 100} Avg episode reward: [(0, '{-1.5 + i / 10:.3f}')]" for i in range(3)]
    run = _read(tmp_path, lines)
    assert list(run.get("episode_reward").values) == [-1.5, -1.4, -1.3]


def test_value_before_its_name_with_the_scored_metric_in_parentheses(tmp_path):
    """AutoGluon: `<TAB>0.4825<TAB> = Validation score   (roc_auc)`; runtimes with a unit are not rows."""
    lines = []
    for name, v in [("LightGBM", 0.61), ("CatBoost", 0.64), ("XGBoost", 0.66)]:
        lines += [f"Fitting model: {name} ...", f"\t{v}\t = Validation score   (accuracy)",
                  "\t0.42s\t = Training   runtime", "\t0.02s\t = Validation runtime"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("eval/accuracy").values) == [0.61, 0.64, 0.66]


def test_a_minus_before_the_scored_metric_negates_the_value(tmp_path):
    """AutoGluon's higher-is-better form of an error: `-2.5882 = Validation score (-root_mean_squared_error)`."""
    lines = [f"\t-{v}\t = Validation score   (-mean_loss)" for v in (2.5, 2.25, 2.0)]
    run = _read(tmp_path, lines)
    names = [k for k in run.series if "mean_loss" in k or k.endswith("loss")]
    assert names
    assert list(run.series[names[0]].values) == [2.5, 2.25, 2.0]


def test_cur_metric_heading_marks_an_evaluation_line(tmp_path):
    """PaddleOCR: train lines `epoch: [1/2], global_step: N, ... acc: ...` and eval lines `cur metric, acc: ...`."""
    lines = []
    for i in range(1, 4):
        lines.append(f"[2024/06/12 20:0{i}:00] ppocr INFO: epoch: [1/2], global_step: {i * 100}, lr: 0.000500, "
                     f"acc: 0.{40 + i}, loss: {3 - i / 2:.2f}")
    lines.append("[2024/06/12 20:05:00] ppocr INFO: cur metric, acc: 0.4975, norm_edit_dis: 0.81")
    run = _read(tmp_path, lines)
    assert list(run.get("accuracy").values) == [0.41, 0.42, 0.43]
    assert list(run.get("eval/accuracy").values) == [0.4975]


def test_a_mean_and_its_spread_inside_a_block_belong_to_the_block(tmp_path):
    """rllab/DeepRM blocks: `Iteration: <TAB> N` then one `Key: <TAB> value` per line, means with `+- std`."""
    lines = []
    for it in range(3):
        lines += [f"Iteration: \t {it}", f"Loss:     \t {0.5 - it / 10:.2f}",
                  f"MeanRew: \t {-250 + it * 5}.5 +- 60.25", "MeanLen: \t 160.5 +- 13.25", "-----------------"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert list(run.get("episode_reward").values) == [-250.5, -245.5, -240.5]
    assert list(run.get("loss").steps) == [0, 1, 2]
