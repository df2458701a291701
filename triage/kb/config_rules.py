"""A question's `config` rules: how the knowledge says a run's config settles an answer
(`gradient_accumulation_steps > 1` answers "is gradient accumulation on?").

Pure functions over the knowledge and a config dict, in the knowledge layer so the engine's
evidence (triage.engine.evidence) and its framework defaults (triage.engine.frameworks) share them
without importing each other.
"""

from __future__ import annotations


def config_rules(kb) -> dict[str, list]:
    """{question: its `config` rules}, for the questions a run's config can answer."""
    return {n.id: n.get("config") for n in kb.by_kind("symptom") if isinstance(n.get("config"), list)}


def _as_number(v) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if f == f else None


def _rule_holds(op: str, v, want) -> bool:
    if op == "null":
        return v is None or (isinstance(v, str) and v.strip().lower() in ("", "none", "null"))
    if op in ("true", "false"):
        if isinstance(v, str):
            v = {"true": True, "yes": True, "false": False, "no": False}.get(v.strip().lower())
        return isinstance(v, bool) and v is (op == "true")
    if op == "in":
        return isinstance(want, list) and str(v).strip().lower() in {str(w).lower() for w in want}
    if op == "==":
        a, b = _as_number(v), _as_number(want)
        return a == b if a is not None and b is not None else str(v).strip().lower() == str(want).lower()
    a = _as_number(v)
    if a is None:
        return False
    b = float(want)
    return {">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b}[op]


def config_answer(rules: list, config: dict) -> tuple[str, str, object] | None:
    """(answer, key, value) from the first rule whose first key present in `config` satisfies it."""
    for rule in rules:
        if not isinstance(rule, dict):
            continue
        key = next((k for k in rule.get("keys") or [] if k in config), None)
        if key is not None and _rule_holds(str(rule.get("op")), config[key], rule.get("value")):
            return str(rule.get("answer")), key, config[key]
    return None
