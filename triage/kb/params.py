"""Typed parameters for the generic checks: the schema language of a detector's `params:`.

Every check declares its parameters as a read-only dataclass (a `@params` subclass of `Params`): the fields are
exactly the keys a detector's `params:` may hold, with their types and defaults. `parse` builds the
dataclass from the YAML mapping by keyword and returns every problem it finds (an unknown key, a
value of the wrong type, a choice that is not allowed), so `triage kb check` can name the file and
line, and a typo such as `min_cuont: 2` fails instead of silently falling back to the default.

It lives in the knowledge layer because it validates knowledge: the validator (triage.kb.validate)
parses each detector's params with it, given the check registry (triage.detect.PARAMS) by its
caller, and the checks (triage.detect.checks) declare their parameters with it.
"""

from __future__ import annotations

import dataclasses
import difflib
import typing
from dataclasses import dataclass
from typing import Any, Literal, NewType, Optional, Union

# A list of canonical metric names (one name is accepted too): the series a check reads besides its own.
Names = tuple[str, ...]
# An answer value of the detector's question (YAML reads bare yes/no as booleans: they are answers too).
Answer = NewType("Answer", str)


@dataclass(frozen=True)
class ParamProblem:
    """One thing wrong with a detector's params: the key it is about and what is wrong."""

    key: str
    message: str


def _fields(obj: Any) -> tuple[dataclasses.Field, ...]:
    """The fields of a params dataclass (made by `params`, which type checkers do not follow)."""
    return dataclasses.fields(obj)


def params(cls):
    """Make `cls` a params dataclass: its annotated fields (with their defaults) are the keys a
    detector may set. Read-only once built. The generated methods of a frozen dataclass cost
    about a millisecond per class at import; these classes share the base's instead, so a
    scan's start-up does not pay for thirty of them."""
    return dataclass(init=False, repr=False, eq=False)(cls)


@params
class Params:
    """Base of every check's parameters; a check with no parameters uses it as is."""

    def __init__(self, **values: object) -> None:
        for f in _fields(self):
            if f.name in values:
                value = values.pop(f.name)
            elif f.default is not dataclasses.MISSING:
                value = f.default
            else:
                raise TypeError(f"{type(self).__name__} needs `{f.name}`")
            object.__setattr__(self, f.name, value)
        if values:
            raise TypeError(f"{type(self).__name__} has no field(s) {', '.join(sorted(values))}")

    def __setattr__(self, name: str, value: object) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}: params are read-only")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}: params are read-only")

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in _fields(self))
        return f"{type(self).__name__}({inner})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, f.name) == getattr(other, f.name) for f in _fields(self))

    __hash__ = None  # type: ignore[assignment]

    def problems(self) -> list[ParamProblem]:
        """Rules between fields (a target or a way to work it out); none by default."""
        return []


@params
class WindowParams(Params):
    """Which part of the series a check looks at: `skip_first` points (a fraction below 1, or a
    count), then `window` (all, head or tail) of `window_fraction` of what is left."""

    window: Literal["all", "head", "tail"] = "all"
    window_fraction: float = 0.5
    skip_first: float = 0.0


def field_names(cls: type[Params]) -> list[str]:
    return [f.name for f in _fields(cls)]


def _hints(cls: type[Params]) -> dict[str, object]:
    """{field: its type}. The annotations are strings (postponed evaluation); each distinct
    string is evaluated once in the module that declares the class, not once per field."""
    cached = _HINTS.get(cls)
    if cached is None:
        import sys

        cached = {}
        for f in _fields(cls):
            tp = f.type
            if isinstance(tp, str):
                owner = next(k for k in cls.__mro__ if f.name in getattr(k, "__annotations__", {}))
                key = (owner.__module__, tp)
                if key not in _TYPES:
                    _TYPES[key] = eval(tp, vars(sys.modules[owner.__module__]))  # noqa: S307 - our own annotations
                tp = _TYPES[key]
            cached[f.name] = tp
        _HINTS[cls] = cached
    return cached


_HINTS: dict[type, dict[str, object]] = {}
_TYPES: dict[tuple[str, str], object] = {}


def parse(cls: type[Params], raw: object) -> tuple[Params | None, list[ParamProblem]]:
    """The params dataclass built from a YAML mapping, and every problem found on the way.
    With any problem the dataclass is None: a detector never runs on half-understood params."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        return None, [ParamProblem("params", "`params` must be a mapping of parameter names to values")]
    names = field_names(cls)
    hints = _hints(cls)
    problems: list[ParamProblem] = []
    values: dict[str, object] = {}
    for key, value in raw.items():
        key = str(key)
        if key not in names:
            problems.append(ParamProblem(key, _unknown(key, names)))
            continue
        ok, converted, why = _coerce(value, hints[key])
        if not ok:
            problems.append(ParamProblem(key, f"parameter `{key}` must be {why}, not {value!r}"))
            continue
        values[key] = converted
    for f in _fields(cls):
        if f.name not in values and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            problems.append(ParamProblem(f.name, f"missing parameter `{f.name}`"))
    if problems:
        return None, problems
    params = cls(**values)
    problems = params.problems()
    return (None, problems) if problems else (params, [])


def _unknown(key: str, names: list[str]) -> str:
    hint = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    guess = f"; did you mean `{hint[0]}`?" if hint else ""
    allowed = ", ".join(names) if names else "none"
    return f"unknown parameter `{key}`{guess} (allowed: {allowed})"


def _coerce(value: object, tp: object) -> tuple[bool, object, str]:
    """(ok, the value as the field holds it, what was expected in words)."""
    origin = typing.get_origin(tp)
    if origin is Union:  # Optional[X]: None is allowed
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        if value is None:
            return True, None, ""
        return _coerce(value, inner[0]) if len(inner) == 1 else (False, value, "one of several types")
    if tp is Answer:
        if isinstance(value, bool):
            return True, "yes" if value else "no", ""
        return (True, str(value).strip(), "") if isinstance(value, str) and value.strip() else (False, value, "an answer value")
    if origin is Literal:
        choices = typing.get_args(tp)
        return (True, value, "") if value in choices else (False, value, "one of " + ", ".join(map(str, choices)))
    if origin is tuple and typing.get_args(tp)[:1] == (int,):  # whole numbers (tuple[int, ...])
        if isinstance(value, list) and value and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            return True, tuple(value), ""
        return False, value, "a list of whole numbers"
    if origin is tuple:  # Names
        if isinstance(value, str) and value:
            return True, (value,), ""
        if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
            return True, tuple(value), ""
        return False, value, "a metric name or a list of metric names"
    if tp is bool:
        return (True, value, "") if isinstance(value, bool) else (False, value, "true or false")
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return (True, value, "") if ok else (False, value, "a whole number")
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return True, float(value), ""
        return False, value, "a number"
    if tp is str:
        return (True, value, "") if isinstance(value, str) and value else (False, value, "a non-empty string")
    return False, value, f"a {tp}"  # pragma: no cover - a field type this parser does not know


__all__ = ["Answer", "Names", "Optional", "ParamProblem", "Params", "WindowParams", "field_names", "params", "parse"]
