"""Which config keys separate broken runs from healthy ones, stated with the counts behind them.

For one group of broken runs (those sharing a top cause, or all broken runs) against the healthy
runs, every config key is tried as a rule of one of three shapes:

* ``key >= t`` or ``key <= t`` for a numeric key, `t` one of the group's own values;
* ``key = v`` for a text or boolean key, or a numeric key with few values (batch size 8 of 4, 8, 16).

A rule's table is (group runs matching: a of nG; healthy runs matching: b of nH). Per key the rule
with the best a/nG - b/nH (Youden's J) is kept. Picking the best of many rules finds a good-looking
one by chance in small or random sweeps, so a rule is only claimed when it passes a one-sided
Fisher exact test after a Bonferroni correction for every rule tried over every key
(p * rules_tried <= ALPHA), and it splits exactly or nearly (J >= MIN_J, a/nG >= MIN_COVER).
When none passes, none is claimed, and the reason says whether the sweep was too small for any
rule to be told from chance. Runs without the key match no rule (they count in nG or nH all the
same). Keys that cannot separate anything (one value, or a different text value on every run)
are not tried and do not count against the others.

The thresholds of "nearly" (MIN_J, MIN_COVER) only decide what is worth saying; the counts are
always given, so the reader judges the rule by its numbers.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field

ALPHA = 0.01  # family-wise chance of claiming a rule that is chance
MIN_J = 0.6  # a/nG - b/nH: most of the group matches, few healthy runs do
MIN_COVER = 0.75  # at least three in four of the group's runs match
FEW_VALUES = 6  # a numeric key with at most this many values is also tried value by value
MAX_RULES = 3  # rules reported per group


def _number(v) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v) if math.isfinite(float(v)) else None
    if isinstance(v, str):
        try:
            f = float(v.strip())
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    return None


def fmt_value(v) -> str:
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))
        return f"{v:.4g}"
    return str(v)


def fisher_greater(a: int, n_group: int, n_healthy: int, k: int) -> float:
    """P(X >= a) for X hypergeometric: `k` runs match among n_group + n_healthy, n_group drawn.
    Summed in log space, stopping once the terms no longer matter."""
    n_all = n_group + n_healthy
    hi = min(n_group, k)
    if a > hi:
        return 0.0
    if a <= max(0, k - n_healthy):
        return 1.0

    def lcomb(n: int, r: int) -> float:
        return math.lgamma(n + 1) - math.lgamma(r + 1) - math.lgamma(n - r + 1)

    base = lcomb(n_all, n_group)
    total, peak = 0.0, -math.inf
    for x in range(a, hi + 1):
        term = lcomb(k, x) + lcomb(n_all - k, n_group - x) - base
        peak = max(peak, term)
        total += math.exp(term)
        if term < peak - 40:  # below e^-40 of the largest term: the rest cannot change the sum
            break
    return min(1.0, total)


@dataclass
class Rule:
    key: str
    op: str  # ">=", "<=", "="
    value: object
    a: int  # group runs that match
    n_group: int
    b: int  # healthy runs that match
    n_healthy: int
    p: float = 1.0
    p_adjusted: float = 1.0
    healthy_range: tuple | None = None  # (min, max) of the healthy runs' values, numeric keys

    @property
    def j(self) -> float:
        return self.a / self.n_group - self.b / self.n_healthy

    @property
    def exact(self) -> bool:
        return self.a == self.n_group and self.b == 0

    def sentence(self, label: str) -> str:
        cond = f"{self.key} {self.op} {fmt_value(self.value)}"
        lead = f"all {self.n_group:,} {label} runs have" if self.a == self.n_group else \
            f"{self.a:,} of the {self.n_group:,} {label} runs have"
        if self.b == 0:
            tail = f"none of the {self.n_healthy:,} healthy runs do"
        else:
            tail = f"{self.b:,} of the {self.n_healthy:,} healthy runs {'does' if self.b == 1 else 'do'} too"
        text = f"{lead} {cond}; {tail}"
        if self.healthy_range is not None and self.op != "=":
            lo, hi = self.healthy_range
            text += f" (healthy: {fmt_value(lo)}" + (f" to {fmt_value(hi)})" if hi != lo else ")")
        return text

    def to_dict(self, label: str) -> dict:
        return {"key": self.key, "op": self.op, "value": self.value, "group_matching": self.a,
                "group_runs": self.n_group, "healthy_matching": self.b, "healthy_runs": self.n_healthy,
                "exact": self.exact, "p_value": self.p, "p_adjusted": min(1.0, self.p_adjusted),
                "healthy_range": list(self.healthy_range) if self.healthy_range else None,
                "sentence": self.sentence(label)}


@dataclass
class Separation:
    """The finding for one group: the rules that hold, or why none is claimed."""

    group: str
    label: str  # how the sentence names the group's runs ("S-lr-too-high", "broken")
    n_group: int
    n_healthy: int
    rules: list[Rule] = field(default_factory=list)
    keys_tried: int = 0
    rules_tried: int = 0
    reason: str = ""

    def sentences(self) -> list[str]:
        if self.rules:
            return [r.sentence(self.label) for r in self.rules]
        return [self.reason]

    def to_dict(self) -> dict:
        return {"group": self.group, "label": self.label, "group_runs": self.n_group, "healthy_runs": self.n_healthy,
                "keys_tried": self.keys_tried, "rules_tried": self.rules_tried,
                "rules": [r.to_dict(self.label) for r in self.rules], "none_because": None if self.rules else self.reason}


def _values(configs: list[dict], key: str) -> list:
    return [c.get(key) for c in configs if c.get(key) is not None]


def _numeric_candidates(key: str, g: list[float], h: list[float], n_group: int, n_healthy: int) -> tuple[Rule | None, int]:
    """The best `key >= t` / `key <= t` rule, t among the group's values, and how many were tried."""
    gs, hs = sorted(g), sorted(h)
    best, tried = None, 0
    for t in sorted(set(gs)):
        for op in (">=", "<="):
            tried += 1
            if op == ">=":
                a, b = len(gs) - bisect_left(gs, t), len(hs) - bisect_left(hs, t)
            else:
                a, b = bisect_right(gs, t), bisect_right(hs, t)
            rule = Rule(key, op, t, a, n_group, b, n_healthy)
            if best is None or (rule.j, rule.a, -rule.b) > (best.j, best.a, -best.b):
                best = rule
    if best is not None and hs:
        best.healthy_range = (hs[0], hs[-1])
    return best, tried


def _equal_candidates(key: str, g: list, h: list, n_group: int, n_healthy: int) -> tuple[Rule | None, int]:
    from collections import Counter

    cg, ch = Counter(map(_norm, g)), Counter(map(_norm, h))
    best, tried = None, 0
    for value, a in cg.items():
        tried += 1
        rule = Rule(key, "=", value, a, n_group, ch.get(value, 0), n_healthy)
        if best is None or (rule.j, rule.a, -rule.b) > (best.j, best.a, -best.b):
            best = rule
    return best, tried


def _norm(v):
    """Values compared as the config spells them: 8 and 8.0 are one value, True stays a bool."""
    if isinstance(v, bool):
        return v
    n = _number(v)
    if n is not None:
        return int(n) if n.is_integer() else n
    return str(v)


def separate(group: str, label: str, group_configs: list[dict], healthy_configs: list[dict]) -> Separation:
    """The config rules that tell this group's runs from the healthy ones (see the module doc)."""
    n_g, n_h = len(group_configs), len(healthy_configs)
    sep = Separation(group, label, n_g, n_h)
    if n_h == 0:
        sep.reason = f"no healthy runs to compare the {n_g} {label} runs with"
        return sep
    if n_g < 2:
        sep.reason = f"one {label} run: nothing to generalise from"
        return sep
    keys = sorted({k for c in group_configs + healthy_configs for k in c})
    best: list[Rule] = []
    for key in keys:
        g, h = _values(group_configs, key), _values(healthy_configs, key)
        if not g:
            continue
        every = g + h
        distinct = {_norm(v) for v in every}
        if len(distinct) < 2:
            continue  # one value everywhere: cannot separate
        numeric = all(_number(v) is not None for v in every)
        candidates: list[Rule] = []
        if numeric:
            rule, n = _numeric_candidates(key, [_number(v) for v in g], [_number(v) for v in h], n_g, n_h)
            sep.rules_tried += n
            candidates.append(rule)
        if not numeric or len(distinct) <= FEW_VALUES:
            if not numeric and len(distinct) == len(every):
                continue  # a different text on every run (names, ids, paths): no value repeats
            rule, n = _equal_candidates(key, g, h, n_g, n_h)
            sep.rules_tried += n
            candidates.append(rule)
        sep.keys_tried += 1
        rule = max((r for r in candidates if r is not None), key=lambda r: (r.j, r.a, -r.b), default=None)
        if rule is not None:
            best.append(rule)
    for rule in best:
        rule.p = fisher_greater(rule.a, n_g, n_h, rule.a + rule.b)
        rule.p_adjusted = rule.p * max(1, sep.rules_tried)
    kept = [r for r in best if r.p_adjusted <= ALPHA and r.j >= MIN_J and r.a / n_g >= MIN_COVER]
    kept.sort(key=lambda r: (r.p, -r.j, r.key))
    sep.rules = kept[:MAX_RULES]
    if not sep.rules:
        sep.reason = _why_none(sep, label)
    return sep


def _why_none(sep: Separation, label: str) -> str:
    if not sep.keys_tried:
        return "no config key to compare (the runs carry no config, or no key varies between them)"
    # the best any rule could do: all of the group and none of the healthy runs
    perfect = fisher_greater(sep.n_group, sep.n_group, sep.n_healthy, sep.n_group)
    what = (f"no config key separates the {sep.n_group:,} {label} runs from the {sep.n_healthy:,} healthy runs "
            f"({sep.keys_tried} key{'s' if sep.keys_tried != 1 else ''} compared")
    if perfect * max(1, sep.rules_tried) > ALPHA:
        return what + (f"; too few runs for any split to stand out from chance: a perfect one would have "
                       f"p = {perfect:.2g}, {min(1.0, perfect * sep.rules_tried):.2g} after correcting for "
                       f"the {sep.rules_tried} rules tried)")
    return what + ")"
