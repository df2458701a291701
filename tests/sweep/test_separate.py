"""The separating-config-key analysis: claims a rule when the counts support it, none otherwise."""

from __future__ import annotations

import math
import random

import pytest

from triage.sweep.separate import ALPHA, fisher_greater, separate


def test_fisher_matches_the_hypergeometric_tail():
    # a perfect split of 7 runs among 30: the one table out of C(30, 7)
    assert fisher_greater(7, 7, 23, 7) == pytest.approx(1 / math.comb(30, 7), rel=1e-9)
    # P(X >= 2) with 3 of 5 drawn, 2 matching among 10: 3 * C(8,1)... by direct count
    direct = sum(math.comb(2, x) * math.comb(8, 5 - x) for x in (2,)) / math.comb(10, 5)
    assert fisher_greater(2, 5, 5, 2) == pytest.approx(direct)
    assert fisher_greater(0, 5, 5, 2) == 1.0


def test_exact_threshold_is_stated_with_counts():
    group = [{"lr": v, "bs": 32} for v in (3e-3, 3e-3, 1e-2, 1e-2, 3e-2, 3e-3, 1e-2)]
    healthy = [{"lr": v, "bs": b} for v, b in zip([1e-4, 3e-4, 1e-3] * 8, [16, 32, 64] * 8)][:23]
    sep = separate("S-lr-too-high", "S-lr-too-high", group, healthy)
    assert sep.rules, sep.reason
    rule = sep.rules[0]
    assert (rule.key, rule.op, rule.value, rule.a, rule.b) == ("lr", ">=", 3e-3, 7, 0)
    assert rule.exact and rule.p_adjusted <= ALPHA
    assert sep.sentences()[0].startswith("all 7 S-lr-too-high runs have lr >= 0.003; none of the 23 healthy runs do")
    assert [r.key for r in sep.rules] == ["lr"], "bs is 32 on every broken run but also on a third of the healthy ones"


def test_near_split_names_the_exceptions():
    group = [{"fp16": True}] * 9 + [{"fp16": False}]
    healthy = [{"fp16": False}] * 28 + [{"fp16": True}]
    sep = separate("S-nan", "S-nan", group, healthy)
    rule = sep.rules[0]
    assert (rule.key, rule.op, rule.value, rule.a, rule.b) == ("fp16", "=", True, 9, 1)
    assert sep.sentences()[0] == "9 of the 10 S-nan runs have fp16 = True; 1 of the 29 healthy runs does too"


def test_too_few_runs_claims_nothing_and_says_why():
    sep = separate("g", "g", [{"lr": 1e-2}, {"lr": 1e-2}], [{"lr": 1e-4}, {"lr": 1e-4}, {"lr": 1e-4}])
    assert not sep.rules
    assert "too few runs" in sep.reason and "a perfect one would have p = 0.1" in sep.reason


def test_no_claim_on_random_sweeps():
    """Configs drawn independently of the outcome: the corrected test keeps chance rules out."""
    claimed = 0
    for seed in range(200):
        rng = random.Random(seed)

        def config():
            return {"lr": rng.choice([1e-4, 3e-4, 1e-3, 3e-3]), "bs": rng.choice([16, 32, 64]),
                    "wd": rng.random(), "opt": rng.choice(["adam", "sgd", "adamw"])}

        sep = separate("g", "g", [config() for _ in range(rng.randint(3, 15))],
                       [config() for _ in range(rng.randint(5, 40))])
        claimed += bool(sep.rules)
    assert claimed <= 2, f"{claimed} of 200 random sweeps got a rule claimed"


def test_keys_that_cannot_separate_are_not_tried():
    group = [{"name": f"run-{i}", "const": 1, "lr": 1e-2} for i in range(8)]
    healthy = [{"name": f"ok-{i}", "const": 1, "lr": 1e-4} for i in range(20)]
    sep = separate("g", "g", group, healthy)
    assert sep.keys_tried == 1 and [r.key for r in sep.rules] == ["lr"]


def test_no_healthy_runs_and_a_single_run():
    assert "no healthy runs" in separate("g", "g", [{"lr": 1}] * 3, []).reason
    assert "one g run" in separate("g", "g", [{"lr": 1}], [{"lr": 2}] * 3).reason
