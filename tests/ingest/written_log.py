"""Write a log for a reader test and read it back: the reader tests build their logs line by line in
the style of the prints that asked for a rule."""

from __future__ import annotations

from triage.ingest import read_run


def read_written(tmp_path, lines, name="train.log"):
    """The run read from `lines` written to tmp_path/name, one per line."""
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return read_run(p)


def read_text(tmp_path, text, name="train.log"):
    """The run read from `text` written as it is (a paste kept whole) to tmp_path/name."""
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return read_run(p)


def series_values(run, name):
    """The values of one series as plain floats."""
    return [float(v) for v in run.get(name).values]
