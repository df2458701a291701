"""Reading rules drawn from the wild23/wild24 collections: NaN padded by an `x`-filled float format,
a diff hunk's `+` before stamped log lines, a split word (with `result` or a `(tag)`) opening a line's
first key, a tagged split before its counters (`Test (EMA): [ 10/50]`), `[%m.%d.%y|%X]` stamps, the
split of a counter heading over the one-value lines of its block, a `best ...,` heading over best-so-far
values and the `train nnl` spelling of a training NLL. Every log here is written for the test."""

from __future__ import annotations

import math

from triage.ingest import printed
from written_log import read_written as _read


def test_nan_padded_with_x_fill_is_nan_and_keeps_its_key(tmp_path):
    # `'{:x<6f}'.format(float('nan'))` prints `nanxxx`: the loss is nan, and the next key stays its own
    lines = [f"[2022/01/0{i} 10:00:00] app INFO: epoch: [1/50], global_step: {i * 10}, lr: 0.001000, "
             f"loss: {'nanxxx' if i > 2 else f'{3 - i * 0.1:.6f}'}, avg_reader_cost: 0.0{i}000 s"
             for i in range(1, 6)]
    run = _read(tmp_path, lines)
    loss = run.get("loss").values
    assert len(loss) == 5 and loss[0] == 2.9 and all(math.isnan(v) for v in loss[2:])
    assert "avg_reader_cost" in run.series
    assert math.isnan(printed.to_number("nanxxx")) and math.isinf(printed.to_number("infxx"))


def test_diff_hunk_plus_before_glog_lines_is_no_part_of_the_line(tmp_path):
    lines = [f"+I0101 10:00:{i:02d}.000000  42 Worker.cpp:88]  Batch={i * 50} loss={2 - i * 0.1:.4f} "
             f"acc={0.5 + i * 0.01:.3f}" for i in range(1, 6)]
    lines.append("+I0101 10:00:09.000000  42 Worker.cpp:99]  Test samples=500 loss=1.8800")
    run = _read(tmp_path, lines)
    assert "Worker.cpp" not in run.series and "eval/loss" in run.series
    assert list(run.get("loss").values)[-1] == 1.5


def test_split_word_opening_the_first_key_names_the_line_split(tmp_path):
    lines = []
    for s in range(1, 5):
        lines.append(f"INFO step {s * 100}, Batch Loss: {4 - s * 0.3:.4f}, lr: 0.0005")
        if s % 2 == 0:
            lines.append(f"INFO Evaluation result (beam) loss: {3.5 - s * 0.1:.2f}, ppl: {30 - s:.2f}, "
                         f"evaluation: 1.2[sec]")
    run = _read(tmp_path, lines)
    assert list(run.get("eval/loss").values) == [3.3, 3.1]
    assert "eval/perplexity" in run.series
    assert len(run.get("loss").values) == 4


def test_tagged_split_before_its_counters_is_an_evaluation(tmp_path):
    lines = [f"Train: 4 [ {b:3d}/400 ( {b // 4}%)]  Loss: {3 - b / 1000:.4f} (3.0000)  LR: 1.000e-02"
             for b in (0, 100, 200)]
    lines += [f"Test (SWA): [ {b:2d}/40]  Time: 0.020 (0.100)  Loss:  {6 + b / 100:.4f} (6.5000)  "
              f"Acc@1:  0.0000 ( 0.0000)" for b in (0, 20, 40)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [3.0, 2.9, 2.8]
    assert list(run.get("eval/loss").values)[-1] == 6.4  # (the pass's batches read as one evaluation)


def test_counter_heading_split_covers_its_block_under_dotted_stamps(tmp_path):
    lines = []
    for e in range(6):
        lines.append(f"[01.0{e + 1}.24|10:00:00] Training epoch: {e}")
        lines.append(f"[01.0{e + 1}.24|10:00:30] \tmean_loss: {2 - e * 0.1:.4f}")
        lines.append(f"[01.0{e + 1}.24|10:00:31] Done.")
        if e % 3 == 2:
            lines.append(f"[01.0{e + 1}.24|10:00:32] Eval epoch: {e}")
            lines.append(f"[01.0{e + 1}.24|10:00:40] \tmean_loss: {5 - e * 0.1:.4f}")
            lines.append(f"[01.0{e + 1}.24|10:00:40] \tTop1: {10 + e}.00%")
            lines.append(f"[01.0{e + 1}.24|10:00:41] Done.")
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [2.0, 1.9, 1.8, 1.7, 1.6, 1.5]
    assert list(run.get("eval/loss").values) == [4.8, 4.5]


def test_best_heading_marks_its_values_as_best_so_far(tmp_path):
    lines = [f"[2022/01/01 10:00:0{i}] app INFO: epoch: [2/9], global_step: {i * 10}, lr: 0.0001, "
             f"acc: 0.{i}00000, loss: {2 - i * 0.1:.4f}" for i in range(1, 5)]
    lines += ["[2022/01/01 10:01:00] app INFO: cur metric, acc: 0.31, norm_edit_dis: 0.5",
              "[2022/01/01 10:01:00] app INFO: best metric, acc: 0.92, norm_edit_dis: 0.97, best_epoch: 1"]
    run = _read(tmp_path, lines)
    assert 0.92 not in list(run.get("accuracy").values) + list(run.get("eval/accuracy").values)
    assert list(run.get("eval/accuracy").values) == [0.31]
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 5


def test_train_nnl_is_the_training_loss(tmp_path):
    lines = [f"Iter {i * 10:07d} : train nnl {3 - i * 0.2:.3f},  valid error {90 - i}.000%,  "
             f"average gradient norm   {1 + i * 0.1:.3f}" for i in range(1, 6)]
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [2.8, 2.6, 2.4, 2.2, 2.0]


def test_fixed_width_table_rows_with_blank_cells_read_by_position(tmp_path):
    # a report table whose validation columns stay blank on the epochs without a validation pass
    lines = ["epoch       main/loss   validation/main/loss  main/accuracy  validation/main/accuracy  elapsed_time"]
    for e in range(1, 7):
        val_loss = f"{3 - e * 0.1:<22.3f}" if e % 2 == 0 else " " * 22
        val_acc = f"{0.4 + e * 0.01:<26.3f}" if e % 2 == 0 else " " * 26
        lines.append(f"{e:<12d}{5 - e * 0.5:<12.3f}{val_loss}{0.5 + e * 0.05:<15.3f}{val_acc}{e * 1.5:<14.3f}")
    run = _read(tmp_path, lines)
    assert list(run.get("loss").values) == [4.5, 4.0, 3.5, 3.0, 2.5, 2.0]
    assert list(run.get("eval/loss").values) == [2.8, 2.6, 2.4]
    assert list(run.get("eval/accuracy").values) == [0.42, 0.44, 0.46]


def test_a_shape_like_32x64_is_no_value_with_a_times_unit(tmp_path):
    # a layer listing (index, name, output shape) before the epoch table: shapes are no metrics
    lines = ["  #  name    size", "---  ------  ------",
             "  0  input   28x28", "  1  conv1   8x26", "  2  conv2   4x24", "  3  dense   100", "",
             "  epoch    train loss    valid loss    valid acc  dur",
             "-------  ------------  ------------  -----------  -----"]
    lines += [f"{e:7d}  {2 - e * 0.2:12.5f}  {2.1 - e * 0.1:12.5f}  {0.5 + e * 0.01:11.5f}  0.05s" for e in range(1, 5)]
    run = _read(tmp_path, lines)
    assert "conv1" not in run.series and "conv2" not in run.series
    assert list(run.get("loss").values) == [1.8, 1.6, 1.4, 1.2]
    assert printed.NUM_RE.findall("conv 32x64, speedup 2.5x") == ["2.5"]
