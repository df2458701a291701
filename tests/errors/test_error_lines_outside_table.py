"""Error lines checked beside the table in messages.yaml (which holds issue-thread messages only, a third
of them held out): lines from committed logs, and lines met while tuning on the wild corpus."""

from __future__ import annotations

import pytest

from triage import api

CASES = [
    # Keras 3's categorical cross-entropy given class indices
    ("ValueError: Arguments `target` and `output` must have the same rank (ndim). Received: target.shape=(32,), "
     "output.shape=(32, 10)", "O14"),
    # verl's built-in scorer reached for a data source it has no rule for
    ('  File "/root/verl/verl/utils/reward_score/__init__.py", line 37, in _default_compute_score\n'
     "    raise NotImplementedError\nNotImplementedError", "S-reward-import"),
    # a training loop's own NaN guard
    ("    raise ValueError(' [x] nan loss ')\nValueError:  [x] nan loss", "S-nan"),
    # a fitting loop that stops on a NaN loss, and GluonTS's trainer skipping a batch whose loss was NaN
    ("NaN loss value, stopping!", "S-nan"),
    # a trainer's own stop message, and a TF1 loop printing its cost under glog's prefix
    ("Loss exploded to nan at step 118", "S-nan"),
    # numpy sampling from a NaN policy; a distribution whose constraint has arguments; an error quoting NaN
    # values; a program's own check on a computed value; GPT-NeoX's overflow monitor
    ("ValueError: probabilities contain NaN", "S-nan"),
    ("\u250c Warning: First function call produced NaNs. Exiting.\n\u2514 @ SciMLBase ~/.julia/packages/SciMLBase/x/src/utils.jl:620",
     "S-nan"),
    ("ValueError: Expected parameter logits (Tensor of shape (64, 9)) of distribution Categorical(logits: "
     "torch.Size([64, 9])) to satisfy the constraint IndependentConstraint(Real(), 1), but found invalid values:",
     "S-nan"),
    ("AssertionError: {'action': array([nan, nan, nan, nan], dtype=float32), 'reset': False}", "S-nan"),
    ('Traceback (most recent call last):\n  File "evaluate.py", line 88, in score\n    raise Exception("Anomaly score '
     'is NaN")\nException: Anomaly score is NaN', "S-nan"),
    ("Exception: Skipped 50 iterations in a row due to Overflow - Exiting training.", "S-fp16-overflow"),
    ("E0311 10:02:51.120331 5121 train_net.py:140] cost is: nan", "S-nan"),
    ("WARNING:gluonts.trainer:Batch [2] of Epoch[0] gave NaN loss and it will be ignored", "S-nan"),
    ("gluonts.core.exception.GluonTSUserError: Got NaN in first epoch. Try reducing initial learning rate.", "S-nan"),
    # an empty dataset: PyTorch's ConcatDataset and RandomSampler given nothing, caret with no resample scored
    ("    assert len(datasets) > 0, 'datasets should not be an empty iterable'\nAssertionError: datasets should not be "
     "an empty iterable", "PB-data-inventory"),
    ("ValueError: num_samples should be a positive integer value, but got num_samples=0", "PB-data-inventory"),
    ("Something is wrong; all the Accuracy metric values are missing:\nError: Stopping", "PB-data-inventory"),
    # a loop's own assertion that the loss is not NaN, quoted in its traceback
    ('  File "train.py", line 88, in train\n    assert not np.isnan(loss_value), "loss is nan"\nAssertionError: loss is nan',
     "S-nan"),
    # a factorisation loop stopping on a NaN objective
    ("RuntimeError: Training diverged and returned NaN.", "S-nan"),
    # audio files that will not decode (soundfile / libsndfile, and ffmpeg behind torchaudio)
    ("[rank1]: soundfile.LibsndfileError: <exception str() failed>", "DP-corrupt-samples"),
    ("soundfile.LibsndfileError: Error opening 'clip_0412.wav': File contains data in an unknown format.",
     "DP-corrupt-samples"),
    ("RuntimeError: Failed to open the input \"/data/a.mp3\" (Invalid data found when processing input).",
     "DP-corrupt-samples"),
    # an infinity written into a half tensor
    ("RuntimeError: value cannot be converted to type Half without overflow: -inf", "S-fp16-overflow"),
    # FastChat / LLaVA preprocessing: the conversation template's spans disagree with the tokenizer, so the
    # sample's labels are all masked
    ("WARNING: tokenization mismatch: 41 vs. 42. (ignored)", "S-chat-template-boundary"),
]


@pytest.mark.parametrize("message, cause", CASES)
def test_an_error_line_points_at_its_cause(tmp_path, message, cause):
    p = tmp_path / "pasted.txt"
    p.write_text(message + "\n", encoding="utf-8")
    assert [c["id"] for c in api.scan(str(p))["causes"]][0] == cause


def test_a_checkpoint_write_that_fails_part_way(tmp_path):
    """torch.save failing mid-write (a full disk) points at checkpoints and how they are written."""
    p = tmp_path / "pasted.txt"
    p.write_text("RuntimeError: [enforce fail at inline_container.cc:815] . PytorchStreamWriter failed writing file "
                 "data/721: file write failed\n", encoding="utf-8")
    assert {c["id"] for c in api.scan(str(p))["causes"][:2]} == {"PB-checkpoint-pair", "C-atomic-save"}


def test_a_message_retyped_in_lower_case_still_matches(tmp_path):
    """A report whose author retyped the error in lower case: a paste with no metrics is matched again
    without regard to case when nothing matches as written."""
    p = tmp_path / "pasted.txt"
    p.write_text("runtimeerror: cuda out of memory. tried to allocate 2.00 gib\n", encoding="utf-8")
    assert [c["id"] for c in api.scan(str(p))["causes"]][0] == "S-oom"


def test_a_logs_own_lines_keep_their_case(tmp_path):
    """The lines of a metrics log are the program's own: a lower-case phrase there is not an error message."""
    p = tmp_path / "train.log"
    p.write_text("".join(f"step {i} loss {2.0 - i / 100:.3f} | cuda out of memory checks: 0\n" for i in range(1, 40)),
                 encoding="utf-8")
    assert "S-oom" not in [c["id"] for c in api.scan(str(p))["causes"]]


def test_a_long_text_is_a_programs_output_and_keeps_its_case(tmp_path):
    """A text of more than PASTED_LINES lines is no message a person retyped: its lines are matched as written
    only (and not twice), so a lower-case phrase among them is no error message; a short paste still folds."""
    from triage.engine.evidence import PASTED_LINES

    filler = [f"worker {i % 4} wrote shard {i} of the archive" for i in range(PASTED_LINES)]
    long = tmp_path / "long.txt"
    long.write_text("\n".join([*filler, "runtimeerror: cuda out of memory. tried to allocate 2.00 gib"]) + "\n",
                    encoding="utf-8")
    try:
        ranked = [c["id"] for c in api.scan(str(long))["causes"]]
    except api.TriageError:
        ranked = []
    assert "S-oom" not in ranked
    short = tmp_path / "short.txt"
    short.write_text("\n".join([*filler[:5], "runtimeerror: cuda out of memory. tried to allocate 2.00 gib"]) + "\n",
                     encoding="utf-8")
    assert [c["id"] for c in api.scan(str(short))["causes"]][0] == "S-oom"
