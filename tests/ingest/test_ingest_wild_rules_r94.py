"""Round r94 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from triage.ingest import read_run

_OLD_CAFFE = """\
I0301 10:00:00.000001  4242 solver.cpp:232] Iteration 0, Testing net (#0)
I0301 10:00:05.000001  4242 solver.cpp:270] Test score #0: 0.12
I0301 10:00:05.000002  4242 solver.cpp:270] Test score #1: 2.25
I0301 10:00:05.100000  4242 solver.cpp:195] Iteration 0, loss = 2.31
I0301 10:00:05.100001  4242 solver.cpp:365] Iteration 0, lr = 0.01
I0301 10:00:20.100000  4242 solver.cpp:195] Iteration 100, loss = 1.9
I0301 10:00:20.100001  4242 solver.cpp:365] Iteration 100, lr = 0.01
I0301 10:00:35.100000  4242 solver.cpp:195] Iteration 200, loss = 1.7
I0301 10:00:35.100001  4242 solver.cpp:365] Iteration 200, lr = 0.01
I0301 10:00:35.200000  4242 solver.cpp:232] Iteration 200, Testing net (#0)
I0301 10:00:40.000001  4242 solver.cpp:270] Test score #0: 0.35
I0301 10:00:40.000002  4242 solver.cpp:270] Test score #1: 1.8
"""


def test_old_caffe_test_scores_before_the_first_loss_are_read_at_their_iteration(tmp_path):
    # old Caffe tests the net at iteration 0 before it prints any loss: the scores under `Iteration 0,
    # Testing net (#0)` are that iteration's evaluation, not settings printed before training
    p = tmp_path / "caffe.INFO"
    p.write_text(_OLD_CAFFE)
    run = read_run(str(p))
    score0 = [k for k in run.series if k.startswith("eval/") and k.endswith("0")]
    assert len(score0) == 1
    s = run.series[score0[0]]
    assert list(s.steps) == [0.0, 200.0]
    assert list(s.values) == [0.12, 0.35]
    assert list(run.series["loss"].values) == [2.31, 1.9, 1.7]
    assert "a setting printed before training (`BASE_LR: 0.02`)" not in run.meta.get("skipped", {})


def test_counter_line_naming_the_test_pass_heads_its_scores(tmp_path):
    # `Iteration 250, Testing net (#0)` is a counter line whose values follow a line each: the scores are
    # at iteration 250, not at the last loss line's iteration
    p = tmp_path / "caffe2.INFO"
    p.write_text(_OLD_CAFFE.replace("Iteration 200, Testing net", "Iteration 250, Testing net"))
    run = read_run(str(p))
    score1 = [k for k in run.series if k.startswith("eval/") and k.endswith("1")]
    assert len(score1) == 1
    assert list(run.series[score1[0]].steps) == [0.0, 250.0]
    assert list(run.series[score1[0]].values) == [2.25, 1.8]
