"""Reader rules for a search's per-config settings dicts (objects among the values, or under a numbered
config heading) and Python warnings-module lines between metric lines."""

from __future__ import annotations

from written_log import read_written as _read
from written_log import series_values as _vals


def _search_log(dict_line) -> list[str]:
    lines = []
    for c in range(1, 4):
        lines.append(f"Trying Config #{c} [of 3]:")
        lines.append(dict_line(c))
        lines += [f"(Epoch {e} / 8) train loss: {1.5 - 0.1 * e:.4f}; val loss: {1.6 - 0.05 * e:.4f}"
                  for e in range(1, 7)]
        lines += [f"Stopping early at epoch {6}!", ""]
    return lines


def test_settings_dict_holding_classes_is_no_record(tmp_path):
    """Style: a random search printing each trial's settings as a Python dict whose values include classes
    (`{'lr': 2e-4, 'loss_fn': <class 'nets.CrossEntropy'>, 'units': 128}`) before that trial's epochs: the dict
    names what the network is built from, so none of its numbers become a series."""
    lines = _search_log(lambda c: f"  {{'lr': 0.000{c}, 'loss_fn': <class 'nets.loss.CrossEntropy'>, "
                                  f"'act': <class 'nets.layers.Tanh'>, 'units': {64 * c}, 'depth': 2}}")
    run = _read(tmp_path, lines)
    assert set(run.series) == {"loss", "eval/loss"}
    assert run.meta["skipped"].get("a settings dict") == 3
    assert len(_vals(run, "loss")) == 18


def test_plain_dict_under_a_numbered_config_heading_is_settings(tmp_path):
    """Style: a grid search printing `Trying Config #2 [of 3]:` and on the next line the config as a plain
    dict of numbers (`{'lr': 0.01, 'weight_decay': 1e-05}`): under a heading that counts configs the dict is
    the config tried, not a record; the epochs under each heading start a run of their own."""
    lines = _search_log(lambda c: f" {{'lr': 0.0{c}, 'weight_decay': 1e-0{c + 2}}}")
    run = _read(tmp_path, lines)
    assert set(run.series) == {"loss", "eval/loss"}
    assert run.meta["skipped"].get("a settings dict") == 3
    assert run.meta.get("runs") == 3


def test_python_warnings_line_is_no_metric(tmp_path):
    """Style: numpy's RuntimeWarning as Python's warnings module prints it between two epoch lines
    (`/src/nets/loss.py:170: RuntimeWarning: divide by zero encountered in log`, then the source line):
    a warning event, not a series named after the file with the line number as its value."""
    lines = [f"(Epoch {e} / 6) train loss: {2.0 - 0.1 * e:.4f}; val loss: {2.1 - 0.1 * e:.4f}" for e in range(1, 6)]
    lines[3:3] = ["/src/nets/loss.py:170: RuntimeWarning: divide by zero encountered in log",
                  "  loss = -y * np.log(p)"]
    run = _read(tmp_path, lines)
    assert set(run.series) == {"loss", "eval/loss"}
    assert _vals(run, "loss") == [1.9, 1.8, 1.7, 1.6, 1.5]
    assert any(ev.kind == "warning" and "RuntimeWarning" in ev.text for ev in run.events)


def test_ordinal_epoch_inside_a_metric_sentence(tmp_path):
    """Style: a training function's own sentence with the epoch as an English ordinal
    (`Average loss in 74th epoch was : 1.1256`): `74th epoch` is the counter, the loss is the value."""
    lines = [f"Average loss in {ep}{sfx} epoch was : {loss}"
             for ep, sfx, loss in ((1, "st", 1.4), (2, "nd", 1.2), (3, "rd", 1.1), (4, "th", 1.05))]
    run = _read(tmp_path, lines)
    assert _vals(run, "loss") == [1.4, 1.2, 1.1, 1.05]
    assert [float(s) for s in run.get("loss").steps] == [1.0, 2.0, 3.0, 4.0]
