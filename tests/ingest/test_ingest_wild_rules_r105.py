"""Round r105 reading rules, each on small synthetic lines in the style it covers."""
from __future__ import annotations

from written_log import read_text


def test_long_pprinted_vocabulary_is_no_record(tmp_path):
    # `pprint(tokenizer.word_index)` prints a dict of a thousand `'word': index,` lines, past what one record
    # holds: none of its entries, even one whose word names a metric (`'wer': 512`), is a measurement
    words = [f"w{i}" for i in range(900)]
    words[512] = "wer"
    words[700] = "loss"
    lines = ["Epoch 1/2", "loss: 0.9000 - accuracy: 0.5000", "Epoch 2/2", "loss: 0.7000 - accuracy: 0.6000",
             "{'the': 1,"] + [f" '{w}': {i + 2}," for i, w in enumerate(words)] + [" 'end': 999,", " ...}", "41665"]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert "wer" not in run.series
    assert [float(v) for v in run.series["loss"].values] == [0.9, 0.7]
    assert run.meta["skipped"]


def test_lines_after_a_long_dict_read_again(tmp_path):
    lines = ["{" + "'a0': 0,"] + [f" 'a{i}': {i}," for i in range(1, 450)] + [" 'z': 3}"]
    lines += [f"epoch {e} loss {1.0 - 0.1 * e:.2f}" for e in range(4)]
    run = read_text(tmp_path, "\n".join(lines) + "\n")
    assert [round(float(v), 2) for v in run.series["loss"].values] == [1.0, 0.9, 0.8, 0.7]
