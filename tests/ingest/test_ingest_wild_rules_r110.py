"""Reading rules of round r110 (synthetic lines in the styles the wild corpus showed)."""
from triage.ingest import read_run


def _read(tmp_path, text: str):
    p = tmp_path / "log.txt"
    p.write_text(text)
    return read_run(str(p))


def test_counted_line_of_best_scores_only_is_read(tmp_path):
    # a trainer that prints, per epoch, only the best target accuracy so far
    run = _read(tmp_path, "lr = 0.01\nmomentum = 0.9\n"
                          "epoch = 00,  best_top1 = 71.5\nepoch = 01,  best_top1 = 74.25\nepoch = 02,  best_top1 = 74.25\n")
    assert run.meta["rows"] == 3
    (name,) = [k for k in run.series if "top1" in k]
    assert list(run.series[name].values) == [71.5, 74.25, 74.25]


def test_best_notice_after_its_evaluation_stays_unread(tmp_path):
    # `best <metric> ... at step N`: when the best was reached, not a pass of its own
    run = _read(tmp_path, "step 100 dev acc: 0.30\nreached best dev acc: 0.30 at step: 100\n"
                          "step 200 dev acc: 0.35\nreached best dev acc: 0.35 at step: 200\n")
    assert run.meta["rows"] == 2
    assert not any("best" in k for k in run.series)


def test_best_setting_is_not_a_score(tmp_path):
    run = _read(tmp_path, "trial 1, best lr 0.1\ntrial 2, best lr 0.01\n")
    assert not any("lr" in k or "learning" in k for k in run.series)


def test_best_epoch_recap_stays_unread(tmp_path):
    # `Best Epoch = N  Best Loss = x` after a fit: the counter is the best pass's, a recap of a row already read
    run = _read(tmp_path, "  Epoch=0\t loss=0.5\n  Epoch=100\t loss=0.25\n  Best Epoch = 100\tBest Loss = 0.25\n")
    assert run.meta["rows"] == 2
    assert list(run.series) == ["loss"]
