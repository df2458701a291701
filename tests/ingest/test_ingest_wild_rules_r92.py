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


def test_result_framed_by_rules_is_a_pair(tmp_path):
    # `#### F1 score: 0.57 ####` after the training lines: the score set off by rules, not a banner's title
    run = _read(tmp_path, "\n".join([
        "epoch 1 loss: 0.90",
        "epoch 2 loss: 0.80",
        "epoch 3 loss: 0.70",
        "######## F1 score: 0.57 ########",
    ]) + "\n")
    assert list(run.series["loss"].values) == [0.90, 0.80, 0.70]
    assert any("f1" in k.lower() for k in run.series)


def test_counter_drawn_as_banner_still_heads_its_block(tmp_path):
    # `---- batch: 010 ----` is a counter's banner (the values under it are that batch's), never a value
    run = _read(tmp_path, "\n".join([
        " ---- batch: 010 ----",
        "mean loss: 0.90",
        " ---- batch: 020 ----",
        "mean loss: 0.80",
        " ---- batch: 030 ----",
        "mean loss: 0.70",
    ]) + "\n")
    assert list(run.series["loss"].values) == [0.90, 0.80, 0.70]
    assert not any("batch" in k for k in run.series)


def test_two_blocks_under_one_heading_count_their_lines_once(tmp_path):
    # a step's heading, its training block, then an evaluation block with no counter of its own: both
    # records start at the heading's line; the printed lines they were read from are 5, not 8
    run = _read(tmp_path, "\n".join([
        "   --> STEP: 10/200 -- GLOBAL_STEP: 5010",
        "     | > gen_loss: 3.20  (3.41)",
        "     | > disc_loss: 1.10  (1.05)",
        "     | > step_time: 0.31  (0.30)",
        " --> EVAL PERFORMANCE",
        "     | > avg_gen_loss: 3.05 (+0.01)",
        "     | > avg_disc_loss: 1.02 (-0.02)",
    ]) + "\n")
    assert run.meta["rows"] + run.meta.get("joined_lines", 0) == 5
