"""Every line left out is counted by reason: a record's line whose value reads as no number, a line of control
bytes. The rows read are the same; only the count of what was left out is new."""

from __future__ import annotations

from triage.ingest import read_run


def _skipped(path):
    run = read_run(str(path))
    return run, run.meta.get("skipped") or {}


def test_a_record_line_whose_value_is_no_number_is_counted(tmp_path):
    p = tmp_path / "train.log"
    good = [f"iter {i} | loss {3.0 - i / 10:.3f}" for i in range(1, 9)]
    bad = ["iter 9 | loss n/a", "iter 10 | loss 1.2.3", "iter 11 | loss --"]
    p.write_text("\n".join(good[:4] + bad[:2] + good[4:] + bad[2:]) + "\n")
    run, sk = _skipped(p)
    assert len(run.series["loss"]) == 8
    assert sk.get("a record whose values read as no number") == 3, sk


def test_a_dict_line_with_a_string_metric_and_control_bytes_are_counted(tmp_path):
    p = tmp_path / "out.txt"
    lines = [f"{{'loss': {1.0 / i:.4f}, 'epoch': {i}}}" for i in range(1, 7)]
    lines.insert(3, "{'loss': 'pending', 'epoch': 3.5}")
    lines.insert(5, "\x02\x03\x04 debris")
    p.write_text("\n".join(lines) + "\n")
    run, sk = _skipped(p)
    assert len(run.series["loss"]) == 6
    assert sk.get("a record whose values read as no number") == 1 and sk.get("a line with control bytes") == 1, sk


def test_prose_beside_records_is_not_counted_as_unread(tmp_path):
    p = tmp_path / "train.log"
    lines = [f"step {i} loss {2.0 - i / 20:.3f}" for i in range(1, 11)]
    lines.insert(5, "step 5 done, saving a checkpoint to ckpt/")  # another shape: a note, not a record's line
    p.write_text("\n".join(lines) + "\n")
    _, sk = _skipped(p)
    assert "a record whose values read as no number" not in sk, sk

