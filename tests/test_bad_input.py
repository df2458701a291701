"""Input that is not a plain file of log lines: named pipes, one enormous line, random bytes.
Each gives a result or a one-line error with exit 2; none gives a traceback or hangs."""

from __future__ import annotations

import os
import threading

import pytest
from typer.testing import CliRunner

from triage.cli import app

runner = CliRunner()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_a_named_pipe_is_read_like_stdin(tmp_path):
    fifo = tmp_path / "live.log"
    os.mkfifo(fifo)

    def write():
        with open(fifo, "w") as fh:
            for i in range(1, 80):
                fh.write(f"step {i} | loss {2.5 - i * 0.01:.3f}\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    result = runner.invoke(app, ["scan", "--json", str(fifo)])
    writer.join(timeout=10)
    assert result.exit_code in (0, 1), result.output
    assert '"rows": 79' in result.output


def test_one_enormous_line_is_counted_not_read(tmp_path):
    from triage.ingest.textlog import MAX_TEXT_LINE

    p = tmp_path / "one.log"
    p.write_text("loss 2.3 " * (MAX_TEXT_LINE // 9 + 1000))
    result = runner.invoke(app, ["inspect", "--json", str(p)])
    assert result.exit_code == 0 and '"line too long": 1' in result.output


def test_random_bytes_are_named_not_parsed(tmp_path):
    p = tmp_path / "weights.bin"
    p.write_bytes(bytes(range(256)) * 4000)
    result = runner.invoke(app, ["scan", str(p)])
    assert result.exit_code == 2 and "binary" in result.output and "Traceback" not in result.output
