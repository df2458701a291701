"""Round r106 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from written_log import read_text


def _megatron_iteration(i: int, loss: float) -> str:
    return (f" iteration {i:8d}/    5000 | consumed samples: {i * 64:12d} | elapsed time per iteration (ms): 812.5 |"
            f" learning rate: {i * 1e-6:.3E} | global batch size:    64 | lm loss: {loss:.6E} | loss scale: 1024.0 |"
            " number of skipped iterations:   0 | number of nan iterations:   0 |")


def test_megatron_memory_report_joins_its_iteration(tmp_path):
    # Megatron prints its memory use once, after the first logging interval (`(after 20 iterations) memory (MB) |
    # allocated: ...`), between DeepSpeed's per-step lines and the iteration record: no record of its own, and it
    # must not keep DeepSpeed's side lines from joining their iteration's rows
    lines = []
    for i in (20, 40, 60):
        lines += [f"[2024-01-01 10:00:{i:02d},100] [INFO] [logging.py:96:log_dist] [Rank 0] step={i}, skipped=0, "
                  f"lr=[{i * 1e-6}, {i * 1e-6}], mom=[(0.9, 0.95), (0.9, 0.95)]",
                  f"[2024-01-01 10:00:{i:02d},130] [INFO] [timer.py:207:stop] 0/{i}, RunningAvgSamplesPerSec=30.5, "
                  "CurrSamplesPerSec=30.1, MemAllocated=6.2GB, MaxMemAllocated=9.8GB"]
        if i == 20:
            lines.append("[Rank 0] (after 20 iterations) memory (MB) | allocated: 6350.25 | max allocated: 10040.5 |"
                         " reserved: 12000.0 | max reserved: 12000.0")
        lines += [_megatron_iteration(i, 9.0 - i / 20),
                  "time (ms) | forward-compute: 250.10 | backward-compute: 540.22 | optimizer: 12.40 | "
                  "batch-generator: 3.10"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert run.meta["rows"] == 3
    assert [float(v) for v in run.series["loss"].values] == [8.0, 7.0, 6.0]
    assert list(run.series["loss"].steps) == [20, 40, 60]
    assert "forward-compute" not in run.series
    assert "allocated" not in run.series


def test_timers_line_with_hyphenated_phases_is_skipped(tmp_path):
    # Megatron's own timers name their phases with hyphens (`forward-compute`, `batch-generator`): the line is
    # how long each phase took, never a record (its `optimizer` is a duration)
    lines = []
    for i in (10, 20, 30):
        lines += [_megatron_iteration(i, 5.0 - i / 10),
                  f"time (ms) | forward-compute: {200 + i}.5 | backward-compute: 400.2 | optimizer: 9.1"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert run.meta["rows"] == 3
    assert not any("compute" in name for name in run.series)
    assert any("timers line" in reason for reason in run.meta["skipped"])


def test_print_glued_after_a_bar_is_the_same_row(tmp_path):
    # Lightning's bar is drawn without a newline, so the validation print that follows lands on the bar's line
    # (`...[12:00<00:00, 2.1it/s, loss=0.1, val_loss=0.4]val_loss 0.38 val/abs_rel 0.38`): two prints, one
    # printed line, one row; the values of both are read
    lines = [f"Epoch {e}: 100%|#########9| 499/500 [04:10<00:00,  2.0it/s, loss={0.2 - 0.01 * e:.3f}, v_num=3, "
             f"val_loss={0.5 - 0.01 * e:.3f}]val_loss {0.49 - 0.01 * e:.4f} val/abs_rel {0.49 - 0.01 * e:.4f} "
             f"val/a1 {0.4 + 0.01 * e:.4f}" for e in range(3)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert run.meta["rows"] == 3
    assert [round(float(v), 2) for v in run.series["loss"].values] == [0.2, 0.19, 0.18]
    assert [round(float(v), 2) for v in run.series["eval/a1"].values] == [0.4, 0.41, 0.42]


def test_records_with_their_own_counters_glued_on_one_line_stay_rows(tmp_path):
    # a paste that lost its newlines: each glued record carries its own counter, so each is a row
    line = "".join(f"[Epoch 2/5] [Batch {b}/90] [loss: {1.0 - b / 100:.3f}]" for b in (10, 20, 30))
    run = read_text(tmp_path, line + "\n")
    assert run.meta["rows"] == 3
