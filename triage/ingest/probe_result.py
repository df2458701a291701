"""The one reader of a probe result: the JSON file a probe script writes (`triage probe run --out`)
and `triage scan`, `triage inspect` and `triage ask --log` take as evidence.

A result is one JSON object: `probe` (its name), `version`, `status` (pass, fail, inconclusive or
error), `answers` ({question ID: answer value}), `measurements` (an object; non-finite numbers are
written as strings) and `message` (one line). `read_result` checks all of it (`strict`, for a file a
probe just wrote) or only what the evidence needs (`probe`, `status`, `answers`, for a file a
person may have edited); `sniff` tells a probe result from a JSON log without raising on a log.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from triage.errors import TriageError

RESULT_STATUSES = ("pass", "fail", "inconclusive", "error")
RESULT_FIELDS = ("probe", "version", "status", "answers", "measurements", "message")
IDENTIFYING = ("probe", "status", "answers")  # a JSON object with these is meant as a probe result
MAX_BYTES = 5_000_000  # a result is a few kilobytes; anything this big is a log


class ProbeResultError(TriageError):
    """A file that is not a valid probe result (the message names the file and the broken field)."""


def read_result(path: str | os.PathLike, strict: bool = True) -> dict:
    """Read and validate one probe result; raise ProbeResultError naming the problem.

    strict: every field of RESULT_FIELDS with its type, answers as strings and no non-finite
    number in the measurements (what a probe script writes). Otherwise only `probe`, `status` and
    `answers` are required (a missing `answers` or null is no answer), and the others are checked
    when present."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ProbeResultError(f"cannot read probe result {p}: {getattr(exc, 'strerror', None) or exc}") from None
    return _validate(_parse(text, p), p, strict)


def sniff(path: str) -> dict | None:
    """The probe result at `path`, or None when it is not one: not a .json file, stdin or a pipe
    (read once, by the log reader), too big, not JSON or not an object with `probe`, `status`
    and `answers`. Such an object that breaks the contract raises ProbeResultError: it is meant
    as a probe result, and reading it as a metrics log instead would only hide the mistake."""
    if path == "-" or not str(path).endswith(".json"):
        return None
    p = Path(path)
    try:
        if not p.is_file() or p.stat().st_size > MAX_BYTES:
            return None
        doc = _parse(p.read_text(encoding="utf-8"), p)
    except (OSError, UnicodeDecodeError, ProbeResultError):
        return None
    if not isinstance(doc, dict) or not all(k in doc for k in IDENTIFYING):
        return None
    return _validate(doc, p, strict=False)


def _parse(text: str, p: Path):
    def no_constants(token: str):
        raise ValueError(f"bare {token} is not JSON")

    try:
        return json.loads(text, parse_constant=no_constants)
    except RecursionError:
        raise ProbeResultError(f"{p} is not a probe result (JSON nested too deeply)") from None
    except ValueError as exc:
        raise ProbeResultError(f"{p} is not valid JSON: {exc}") from None


def _validate(doc, p: Path, strict: bool) -> dict:
    if not isinstance(doc, dict):
        raise ProbeResultError(f"{p}: a probe result is a JSON object with {', '.join(RESULT_FIELDS)}")
    missing = [k for k in (RESULT_FIELDS if strict else IDENTIFYING[:2]) if k not in doc]
    if missing:
        raise ProbeResultError(f"{p}: not a probe result, missing {', '.join(missing)}")
    if not isinstance(doc["probe"], str) or not doc["probe"]:
        raise ProbeResultError(f"{p}: 'probe' must be the probe name")
    if "version" in doc and not isinstance(doc["version"], (str, int)):
        raise ProbeResultError(f"{p}: 'version' must be a string")
    if doc["status"] not in RESULT_STATUSES:
        raise ProbeResultError(f"{p}: 'status' is {doc['status']!r}; expected one of {', '.join(RESULT_STATUSES)}")
    if not strict and doc.get("answers") is None:
        doc["answers"] = {}
    answers = doc["answers"]
    scalar = str if strict else (str, bool, int, float)  # an edited file may say `true` for "yes"
    if not isinstance(answers, dict) or not all(isinstance(k, str) and isinstance(v, scalar) for k, v in answers.items()):
        raise ProbeResultError(f"{p}: 'answers' must map question IDs to answer values (strings)")
    if "measurements" in doc and not isinstance(doc["measurements"], dict):
        raise ProbeResultError(f"{p}: 'measurements' must be an object")
    if "message" in doc and not isinstance(doc["message"], str) and (strict or doc["message"] is not None):
        raise ProbeResultError(f"{p}: 'message' must be a string")
    if strict:
        _check_finite(doc["measurements"], "measurements", p)
    return doc


def _check_finite(obj, where: str, p: Path) -> None:
    if isinstance(obj, float) and not math.isfinite(obj):
        raise ProbeResultError(f"{p}: {where}: non-finite number {obj!r} (probe results write them as strings)")
    if isinstance(obj, dict):
        for k, v in obj.items():
            _check_finite(v, f"{where}.{k}", p)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _check_finite(v, f"{where}[{i}]", p)


__all__ = ["IDENTIFYING", "RESULT_FIELDS", "RESULT_STATUSES", "ProbeResultError", "read_result", "sniff"]
