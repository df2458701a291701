"""A Hugging Face config beside the log: its label map stays a map, so the class count can be read."""

from __future__ import annotations

import json

from triage.detect.facts import classes_from_config
from triage.ingest.sidecar import load_config


def test_id2label_is_kept_whole(tmp_path):
    cfg = {"vocab_size": 30522, "id2label": {"0": "neg", "1": "neu", "2": "pos"},
           "label2id": {"neg": 0, "neu": 1, "pos": 2}, "hidden_size": 64}
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg))
    flat = load_config(p)
    assert flat["id2label"] == {"0": "neg", "1": "neu", "2": "pos"} and "neg" not in flat

    class Run:
        config = flat

    assert classes_from_config(Run())[0] == 3


def test_the_two_label_default_does_not_override_a_vocabulary(tmp_path):
    flat = {"vocab_size": 50257, "id2label": {"0": "LABEL_0", "1": "LABEL_1"}}

    class Run:
        config = flat

    assert classes_from_config(Run())[0] == 50257
