"""Round r92: colour codes that lost their ESC byte, one result framed by rules, a block's lines counted once."""
from triage.ingest import read_run


def _read(tmp_path, text):
    p = tmp_path / "train.log"
    p.write_text(text)
    return read_run(str(p))


def test_colour_codes_without_escape_byte_are_no_values(tmp_path):
    # a paste that dropped ESC keeps `[32m` ... `[0m` around a logger's prefix: no metric named by the source file
    run = _read(tmp_path, "\n".join([
        "[32m[0311 08:15:02 @monitor.py:470][0m lr: 0.01",
        "[32m[0311 08:15:02 @monitor.py:470][0m cost: 2.75",
        "[32m[0311 08:15:02 @base.py:290][0m Epoch 4 (global_step 800) finished, time:3 minutes 2 seconds.",
        "[32m[0311 08:21:40 @monitor.py:470][0m lr: 0.01",
        "[32m[0311 08:21:40 @monitor.py:470][0m cost: 2.41",
        "[32m[0311 08:21:40 @base.py:290][0m Epoch 5 (global_step 1000) finished, time:3 minutes 1 second.",
    ]) + "\n")
    assert not any("@" in k or k in ("m", "32m") for k in run.series)
    assert "learning_rate" in run.series


def test_bracket_m_without_reset_is_left_alone(tmp_path):
    # no `[0m` reset on the line: `[5m]` stays text (a duration in brackets), the values read as before
    run = _read(tmp_path, "\n".join([
        "epoch 1 [5m] loss: 0.90",
        "epoch 2 [5m] loss: 0.80",
        "epoch 3 [5m] loss: 0.70",
    ]) + "\n")
    assert list(run.series["loss"].values) == [0.90, 0.80, 0.70]
