"""Reader rules from the twenty-fourth round on the wild corpus: each test writes a small log in the
print style that asked for the rule and checks what the reader makes of it."""

from __future__ import annotations

from written_log import read_written as _read, series_values as _vals


def test_per_device_and_per_sec_rates_are_throughput(tmp_path):
    """MaxText's `completed step` line names its rate `Tokens/s/device`; nanotron's iteration line
    `tokens_per_sec`: both are the run's throughput."""
    lines = [f"completed step: {i}, seconds: 5.66{i}, TFLOP/s/device: 134.9{i}, Tokens/s/device: 867{i}.2, "
             f"total_weights: 196608, loss: 10.{9 - i}" for i in range(4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "throughput") == [8670.2, 8671.2, 8672.2, 8673.2]
    lines = [f"01/17/2024 13:47:27 [INFO|DP=0|PP=0|TP=0|host-1]: iteration: {990 + i} / 1000 | "
             f"elapsed_time_per_iteration_ms: 41.{i} | tokens_per_sec: 15.{i}K | lm_loss: 10.6 | lr: 1e-05"
             for i in range(3)]
    run = _read(tmp_path, lines, name="nanotron.log")
    assert _vals(run, "throughput") == [15.0, 15.1, 15.2]


def test_estimator_and_clu_rates_are_throughput(tmp_path):
    """TF Estimator's `examples/sec` and clu's `steps_per_sec` (Flax examples, `[124] steps_per_sec=2.04`)."""
    lines = ["INFO:tensorflow:examples/sec: 11.7567", "INFO:tensorflow:loss = 2.31, step = 100",
             "INFO:tensorflow:examples/sec: 12.0012", "INFO:tensorflow:loss = 2.12, step = 200",
             "INFO:tensorflow:examples/sec: 11.9034", "INFO:tensorflow:loss = 2.05, step = 300"]
    run = _read(tmp_path, lines)
    assert _vals(run, "throughput") == [11.7567, 12.0012, 11.9034]
    lines = [f"INFO:absl:[{124 * i}] steps_per_sec=2.0{i}" for i in range(1, 4)] \
        + ["INFO:absl:[500] train_accuracy=0.98, train_loss=0.0619"]
    run = _read(tmp_path, lines, name="clu.log")
    assert _vals(run, "throughput") == [2.01, 2.02, 2.03]


def test_composer_language_cross_entropy_is_the_loss(tmp_path):
    """Composer's per-metric logger (`[metric][batch=N]: metrics/train/LanguageCrossEntropy: 2.1`): the
    language model's cross-entropy is its training loss."""
    lines = []
    for n, (ce, ppl) in enumerate([(2.31, 10.07), (2.12, 8.33), (2.05, 7.77)], 1):
        lines += [f"[metric][batch={n}]: metrics/train/LanguageCrossEntropy: {ce} ",
                  f"[metric][batch={n}]: metrics/train/Perplexity: {ppl} "]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.31, 2.12, 2.05]
    assert _vals(run, "perplexity") == [10.07, 8.33, 7.77]


def test_fcn_mean_iu_is_the_mean_iou(tmp_path):
    """FCN and its ports print the mean IoU as `Mean IU` (the FCN paper's term), indented under a
    testing heading."""
    lines = []
    for epoch in range(3):
        lines += [f"Train Epoch: {epoch} [0/1464 (0%)]\tLoss: 0.{5 - epoch}00000",
                  f"Train Epoch: {epoch} [640/1464 (43%)]\tLoss: 0.{4 - epoch}00000",
                  "Start testing", f"    Accuracy: 8{epoch}.5", f"    Mean IU: 4{epoch}.25"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/miou") == [40.25, 41.25, 42.25]
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 12


def test_batch_counter_heading_an_indented_block_is_one_record(tmp_path):
    """LLM Foundry's console logger: a `[batch=N/T]:` line, then one indented `Train <name>: <value>`
    line per metric; the block is one record."""
    lines = []
    for n, (ce, ppl) in enumerate([(10.9736, 58312.0586), (10.9724, 58243.8086), (10.6459, 42018.5508)], 1):
        lines += [f"[batch={n}/100]:", f"         Train LanguageCrossEntropy: {ce}",
                  f"         Train Perplexity: {ppl}", f"         Train loss/train/total: {ce}"]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert _vals(run, "loss") == [10.9736, 10.9724, 10.6459]
    assert _vals(run, "perplexity") == [58312.0586, 58243.8086, 42018.5508]


def test_ordinal_before_the_counter_in_a_metric_phrase(tmp_path):
    """`loss in step N is X` up to `loss in final step N is X`: the ordinal (`final`, `last`) says which
    step it is; the value after the copula is still the loss."""
    lines = ["$ python mnist.py"] + [f"loss in step {1000 * i} is 0.{9 - i}1234" for i in range(4)] \
        + ["loss in final step 4000 is 0.41234"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [0.91234, 0.81234, 0.71234, 0.61234, 0.41234]
    assert [float(s) for s in run.get("loss").steps][-1] == 4000.0


def test_split_in_parentheses_after_the_epoch_counter(tmp_path):
    """Catalyst's console logger: `0/2 * Epoch 0 (train): ... | loss=2.28` then the same line with
    `(valid)`: the parenthesised split names the line's split."""
    lines = []
    for e, (tr, va) in enumerate([(2.2828, 2.1173), (1.9457, 1.6803)]):
        for split, loss in (("train", tr), ("valid", va)):
            lines.append(f"{e}/2 * Epoch {e} ({split}): _base/lr=0.0010 | _base/momentum=0.9000 | "
                         f"accuracy01={40 + e}.5 | loss={loss}")
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [2.2828, 1.9457]
    assert _vals(run, "eval/loss") == [2.1173, 1.6803]


def test_split_named_before_a_dict_on_its_line(tmp_path):
    """MiniLLM's evaluation line: `dev | avg_loss: 2.17 | {'exact_match': 2.6, 'rougeL': 19.8}`; the
    split named first holds for the values before the dict and inside it."""
    lines = []
    for i, (dev, train) in enumerate([(2.5059, 1.8361), (2.1741, 1.5378), (2.2838, 0.6872)]):
        lines.append(f"dev | avg_loss: {dev} | {{'exact_match': {i}.5, 'rougeL': 1{i}.25}}")
        lines.append(f"[2023-07-24 11:53:25] train | epoch   {i} | Iter:   {1428 * (i + 1)}/ 14290 | "
                     f"global iter:   {1428 * (i + 1)}/ 14290 | loss: {train} | lr: 4.8781e-05")
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [2.5059, 2.1741, 2.2838]
    assert _vals(run, "eval/rougeL") == [10.25, 11.25, 12.25]
    assert _vals(run, "loss") == [1.8361, 1.5378, 0.6872]


def test_split_heading_on_the_line_above_a_dict(tmp_path):
    """DeepChem's evaluation prints `Train scores` and `Test scores`, each above a dict of its scores:
    the heading right above a dict names its split."""
    lines = ["Ending global_step 60: Average loss 8.58614", "TIMING: model fitting took 171.612 s",
             "Train scores", "{'pearson_r2_score': 0.98616547328965853, 'mean_absolute_error': 0.13357798495204282}",
             "Test scores", "{'pearson_r2_score': 0.10152089044344317, 'mean_absolute_error': 2.4077722241215223}"]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [8.58614]
    assert [float(s) for s in run.get("loss").steps] == [60.0]
    assert _vals(run, "pearson_r2_score") == [0.98616547328965853]
    assert _vals(run, "eval/pearson_r2_score") == [0.10152089044344317]


def test_lead_word_before_a_counter(tmp_path):
    """`Ending global_step 60:`, `Starting iteration 5:`: a word saying where in the loop the counter
    is makes no metric of the counter."""
    lines = [f"Ending global_step {20 * i}: Average loss {9 - i}.5" for i in range(1, 4)]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [8.5, 7.5, 6.5]
    assert [float(s) for s in run.get("loss").steps] == [20.0, 40.0, 60.0]


def test_validate_names_the_evaluation_split(tmp_path):
    """Deep Java Library's trainer logs `validate accuracy: 0.92, validate loss: 0.25`: the verb names
    the validation split as the `validate_` prefix does."""
    lines = []
    for e, (acc, loss) in enumerate([(0.9245, 0.25397184), (0.9693, 0.099014595)]):
        lines += [f"[INFO ] - Epoch {e} finished.", f"[INFO ] - train accuracy: 0.8{e}, train loss: 0.3{e}",
                  f"[INFO ] - validate accuracy: {acc}, validate loss: {loss}"]
    run = _read(tmp_path, lines)
    assert _vals(run, "eval/loss") == [0.25397184, 0.099014595]
    assert _vals(run, "eval/accuracy") == [0.9245, 0.9693]


def test_error_metric_in_java_exponent_is_no_failure(tmp_path):
    """`train bounding box error: 6.076591E-4` (Java's exponent, capital E): an error rate read as a
    metric, not an error event."""
    lines = [f"[INFO ] - train loss: 0.0{5 - e}, train class accuracy: 0.97{e}, train bounding box error: {6 - e}.07E-4"
             for e in range(3)]
    run = _read(tmp_path, lines)
    assert not [ev for ev in run.events if ev.kind == "error"]
    assert len(run.get("loss").values) == 3


def test_device_index_is_no_metric(tmp_path):
    """`Running TrainMnist on: cpu(0), epoch: 2.`: the CPU's index names the device the run uses, no metric."""
    lines = ["[INFO ] - Running TrainMnist on: cpu(0), epoch: 2."] + \
        [f"[INFO ] - train accuracy: 0.8{e}, train loss: 0.3{e}" for e in range(3)]
    run = _read(tmp_path, lines)
    assert "cpu" not in run.series
    assert run.meta["rows"] == 3


def test_per_rank_timers_line_gives_no_step(tmp_path):
    """DeepSpeed's wall-clock breakdown with the rank before it (`rank=0 time (ms) | forward: 652.41 | ...
    | step: 1172.13`): `step` is the optimizer step's duration there, never a counter."""
    lines = []
    for it in (34, 35, 36):
        lines += ["[2023-07-25 21:03:17,269] [INFO] [logging.py:96:log_dist] [Rank 0] rank=0 time (ms) | "
                  f"forward: 652.41 | backward: 2164.52 | step: 117{it % 10}.13",
                  f" samples/sec: 7.799 | iteration       {it}/   10000 | elapsed time per iteration (ms): 4103.1 | "
                  f"learning rate: 2.111E-06 | lm_loss: 1.11866{it % 10}E+01 | number of skipped iterations:   0 |"]
    run = _read(tmp_path, lines)
    assert [float(s) for s in run.get("loss").steps] == [34.0, 35.0, 36.0]
    assert run.meta["restarts"] == 0
    assert run.meta["rows"] == 3


def test_wandb_run_summary_is_one_record(tmp_path):
    """The W&B client's closing block: `wandb: Run history:` sparklines (no numbers), then `wandb: Run
    summary:` with one `wandb:  <name> <value>` line per metric: one record."""
    lines = ["wandb: Run history:", "wandb: batch_id ▁▂▃▄▅▆▇█", "wandb:    epoch ▁▁▁▁▁▁▁▁",
             "wandb:     loss ▁       ", "wandb:       lr ███▇▆▄▂▁", "wandb: ", "wandb: Run summary:",
             "wandb: batch_id 127", "wandb:    epoch 0", "wandb:     loss nan", "wandb:       lr 0.0", "wandb: "]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 1
    assert "loss" in run.series and "learning_rate" in run.series


def test_parameter_overview_table_is_no_metric(tmp_path):
    """clu's parameter overview before training (`| Name | Shape | Size | Mean | Std |`): a row per weight
    tensor, no step's measurement."""
    rule = "+-----------------------------+------------+--------+-----------+--------+"
    lines = ["INFO:absl:", rule, "| Name                        | Shape      | Size   | Mean      | Std    |", rule,
             "| params/Dense_0/bias         | (256,)     | 256    | 0.0       | 0.0    |",
             "| params/Dense_0/kernel       | (9, 256)   | 2,304  | -0.000941 | 0.335  |",
             "| params/Dense_1/bias         | (128,)     | 128    | 0.0       | 0.0    |", rule,
             "Total: 2,688"]
    lines += [f"INFO:absl:[{n}] train_accuracy=0.98{n // 100}, train_loss=0.0{9 - n // 100}" for n in (100, 200, 300)]
    run = _read(tmp_path, lines)
    assert run.meta["rows"] == 3
    assert not any(name.lower().startswith(("mean", "std", "size")) for name in run.series)


def test_lone_test_split_fold_leaves_clashing_names_whole(tmp_path):
    """`Test accuracy: 0.95` and `accuracy_test=0.95` on two lines of one step both name the test set's
    accuracy: the first keeps the name, and the other keeps its own key whole (no letters cut off)."""
    lines = ["Step: 100 Learning rate: 0.0000000, Test accuracy: 0.95000, img/sec/core: 41.9",
             "[100] accuracy_test=0.9500000476837158, img_sec_core_test=41.864635, lr=0.000000"]
    run = _read(tmp_path, lines)
    assert "eval/accuracy" in run.series
    assert "accuracy_test" in run.series
    assert "eval/est" not in run.series

