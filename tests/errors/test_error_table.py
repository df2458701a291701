"""The table of real error messages (messages.yaml): well formed, and triage ranks each thread's
resolution first, at least as often as measured when the table was built.

Measured (see tests/errors/errtable.py): the tuned part 100% first / 100% in the top 3 (138
messages), the held-out part 97.0% / 97.0% (67 messages, never used for tuning). The floors below sit
a few messages under those numbers so that one new, honest tie does not fail the suite, while a
regression in the patterns or the ranking does.
"""

from __future__ import annotations

import re

import pytest

from errtable import load_table, run_table, score
from triage.api import load_kb

TUNED_FIRST, TUNED_TOP3 = 0.97, 0.97
HELD_FIRST, HELD_TOP3 = 0.92, 0.92

# one or more per kind of message, chosen to cover every cause the table expects first
REPRESENTATIVE = [
    "device-transformer-masks", "onecycle-stepped-past-total-growsp", "version-evaluation-strategy-old-release", "monitor-lightning-val-loss-name", "nan-guard-hydrology-lstm", "device-trainer-notebook", "shape-datasetgan-latent", "shape-anomaly-features",
    "bce-size-book-view-as", "bce-size-wnet-deprecated", "dtype-numpy-features-mm", "dtype-class-weight-double",
    "inplace-lio-version", "inplace-tsan-clone", "backward-twice-vae-attr", "half-cpu-self-llm",
    "build-not-compiled-mobileagent", "build-no-kernel-k80", "oom-mass-finetune", "oom-seq2seq-trainer",
    "oom-taggui-expandable", "nccl-timeout-basicsr", "nccl-p2p-socket-ifname", "nccl-p2p-two-nodes",
    "ddp-unused-lane-detection", "assert-nclasses-unet", "assert-nclasses-widedeep", "pad-trl-readme",
    "pad-gpt2-batch-encode", "embed-index-add-tokens", "strict-load-pytorch-unexpected-module",
    "nograd-lightning-optimizer", "sizemm-efficientdet-classes", "gated-flux-pulid", "unscale-fp16-d3po-unet",
    "collate-trmisr-nonsquare", "shm-protenix-docker", "bn1-dfanet", "zip-latex-ocr-redownload",
    "weights-only-yoloworld", "lora-targets-lmflow-bloom", "nolabels-mezo", "ram-momentum-gs",
    "ram-yolov5-jetson-killed", "dummyoptim-qwen-vl-qlora", "deser-social-nav-map-location",
    "bf16-vllm-v100", "cuda-illegal-regtr", "collate-pil-aicity", "scalar-gan-geometry-mean", "childfailed-minigpt4",
    "childfailed-mmhuman3d-sigkill", "compile-infinity-triton", "quant-firefly-torchrun", "meta-dove-shards",
    "metric-optuna-argmax", "dim1-lightly-last-batch", "empty-stack-sunet-val", "resize-basicpbc-shapes",
    "zero-offload-lmflow-adamw",
]


@pytest.fixture(scope="module")
def kb():
    return load_kb()


@pytest.fixture(scope="module")
def outcomes(kb):
    return {o.id: o for o in run_table(kb)}


def test_the_table_is_well_formed(kb):
    table = load_table()
    assert len(table) >= 150
    ids = [e["id"] for e in table]
    assert len(set(ids)) == len(ids), "message ids repeat"
    assert len({e["source"] for e in table}) == len(table), "a thread is used twice"
    for e in table:
        assert set(e) == {"id", "message", "source", "expected", "resolution", "confirmed", "held_out"}, e["id"]
        assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+/(issues|pull)/\d+", e["source"]), e["id"]
        assert e["message"].strip() and e["resolution"].strip(), e["id"]
        assert isinstance(e["confirmed"], bool) and isinstance(e["held_out"], bool), e["id"]
        for cid in e["expected"]:
            assert cid in kb.nodes and kb.nodes[cid].kind == "cause", f"{e['id']}: unknown cause {cid}"
    held = sum(e["held_out"] for e in table)
    assert abs(held - len(table) / 3) <= 2, "about a third of the table is held out"


def test_the_tuned_part_ranks_the_resolution_first(outcomes):
    tuned = [o for o in outcomes.values() if not o.held_out]
    first, top3 = score(tuned)
    misses = [(o.id, o.expected, o.ranked[:3]) for o in tuned if not o.top1]
    assert first >= TUNED_FIRST and top3 >= TUNED_TOP3, misses


def test_the_held_out_part_stays_at_its_measured_level(outcomes):
    held = [o for o in outcomes.values() if o.held_out]
    first, top3 = score(held)
    assert first >= HELD_FIRST and top3 >= HELD_TOP3, f"held-out first {first:.1%}, top-3 {top3:.1%}"


@pytest.mark.parametrize("message_id", REPRESENTATIVE)
def test_a_representative_message_points_at_its_resolution(outcomes, message_id):
    o = outcomes[message_id]
    assert not o.held_out, "the per-message checks use the tuned part only"
    assert o.top1, f"{message_id}: expected {o.expected}, ranked {o.ranked[:4]}"


def test_the_representative_subset_covers_every_expected_cause(outcomes):
    tuned_causes = {o.expected[0] for o in outcomes.values() if not o.held_out}
    covered = {outcomes[m].expected[0] for m in REPRESENTATIVE}
    assert tuned_causes <= covered, sorted(tuned_causes - covered)
