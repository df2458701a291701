"""Reading rules the wild3 collection asked for (fourth round), each on a small synthetic log in the
style of the prints that needed it (never a copy of one)."""

from __future__ import annotations

import math

import pytest

from triage.ingest import printed, read_run
from triage.ingest.aliases import table


def _read(tmp_path, lines, name="train.log"):
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return read_run(p)


@pytest.mark.parametrize("text, want", [
    ("1.#QNAN000", "nan"), ("-1.#IND", "nan"), ("1.#INF00", "inf"), ("-1.#INF", "-inf"), ("1.#SNAN", "nan"),
])
def test_the_msvc_runtime_spellings_of_nan_and_infinity(text, want):
    """Windows C runtimes print NaN as `1.#QNAN` / `-1.#IND` and infinity as `1.#INF`: never 1.0."""
    got = printed.to_number(text)
    assert (math.isnan(got) and want == "nan") or got == float(want)


def test_an_msvc_nan_in_a_printed_log_is_a_nan_loss(tmp_path):
    lines = [f"Epoch[1 of 1]-Minibatch[{i}]: SamplesSeen = 500; loss = {v}; TotalTime = 2.1s"
             for i, v in ((1, "2.5"), (2, "2.25"), (3, "1.#QNAN000"))]
    loss = _read(tmp_path, lines).get("loss")
    assert loss is not None and math.isnan(loss.values[-1]) and loss.values[0] == 2.5


@pytest.mark.parametrize("key, name", [
    ("TrainLossPerSample", "loss"),      # CamelCase with a `per <unit>` tail
    ("loss per token", "loss"),
    ("Tot Loss", "loss"),                # `tot` abbreviates total
    ("Mean Training loss", "loss"),      # a modifier before the split word
    ("Mean Val loss", "eval/loss"),
    ("Accu", "accuracy"),
])
def test_more_spellings_of_loss_and_accuracy(key, name):
    assert table().resolve(key).name == name


def test_per_alone_is_not_cut(tmp_path):
    assert table().resolve("per_device_train_batch_size").name != "per"


def test_a_split_named_alone_is_its_loss_only_when_nothing_else_is(tmp_path):
    """`<step> train <loss>` / `<step> val <loss>` (nothing else names a loss) keep their reading."""
    lines = [f"{s} train {3.0 - s / 100:.4f}" for s in range(0, 50, 10)] + ["40 val 2.7"]
    run = _read(tmp_path, lines)
    assert run.get("loss") is not None and run.get("eval/loss") is not None


def test_a_split_named_alone_beside_the_loss_is_that_splits_score(tmp_path):
    """`Epoch 3, Loss: 1.42` then `Train: 0.55, Val: 0.53, Test: 0.47`: the bare splits score each
    split (accuracy), never a second loss; `Val: 61.3%` likewise."""
    lines = []
    for ep in range(1, 5):
        lines += [f"Epoch {ep:02d}, Loss: {2.0 - ep / 10:.4f}", f"Train: {0.5 + ep / 100:.4f}, Val: {0.48 + ep / 100:.4f}, Test: {0.45 + ep / 100:.4f}"]
    run = _read(tmp_path, lines)
    assert run.get("eval/loss") is None
    assert run.get("eval/accuracy") is not None and math.isclose(run.get("eval/accuracy").values[0], 0.49)
    assert run.get("loss") is not None and math.isclose(run.get("loss").values[0], 1.9)
    pct = _read(tmp_path, [line for ep in range(1, 5) for line in (f"Epoch {ep:02d}, Loss: {2.0 - ep / 10:.4f}", f"Val: {60 + ep}.31%,")],
                name="pct.log")
    assert pct.get("eval/loss") is None and pct.get("eval/accuracy") is not None
