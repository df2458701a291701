"""The run's settings as a log printed them: `Namespace(lr=0.01, clip_grad=1.0)`, `args: {'lr': 0.01}`.

The text reader already knows such lines are no records; this module turns them into the same flat
`{key: value}` a config file beside the log gives (triage.ingest.sidecar), so the knowledge's config
rules can read them (`clip_grad = 1.0` answers "is gradient clipping on?"). The text is parsed with
`ast`, never run: only literal values are kept (numbers, strings, booleans, None), anything else
(`<class ...>`, a call, a name) is left out.
"""

from __future__ import annotations

import ast
import re
import warnings

MAX_CHARS = 100_000  # a settings line longer than this is not parsed (a pathological line, not a config)
MAX_KEYS = 500
_SCALARS = (str, int, float, bool, type(None))
# an object's repr inside the settings (`model=<class 'nets.Net'>`, `<function relu at 0x7f..>`): not Python, so
# it is read as None when the text does not parse as it stands
_OBJECT = re.compile(r"<[^<>\n]{0,200}>")


def _literal(node: ast.AST):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval(node)


def _parse(text: str) -> ast.AST | None:
    if len(text) > MAX_CHARS:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def from_call(text: str) -> dict:
    """The keyword arguments of a printed call or repr whose values are literals:
    `Namespace(lr=0.01, opt='sgd', model=<...>)` gives {'lr': 0.01, 'opt': 'sgd'}. `text` starts at the
    callee's name; whatever follows the call's closing parenthesis is ignored."""
    end = text.rfind(")")
    for _ in range(4):  # (a `)` inside a trailing comment or a second call: the few before it are tried)
        if end <= 0:
            break
        node = _parse(text[: end + 1])
        if node is None and "<" in text:
            node = _parse(_OBJECT.sub("None", text[: end + 1]))
        while isinstance(node, ast.Call) and not node.keywords and isinstance(node.func, ast.Call):
            node = node.func  # (`main(epochs=4)  (started)` parses as a call of the call)
        if isinstance(node, ast.Call):
            out: dict = {}
            for kw in node.keywords[:MAX_KEYS]:
                if kw.arg is None:
                    continue
                try:
                    value = _literal(kw.value)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    continue
                if isinstance(value, _SCALARS):
                    out[kw.arg] = value
            return out
        end = text.rfind(")", 0, end)
    return {}


def from_dict(data: dict, depth: int = 0) -> dict:
    """A printed settings dict made flat: nested mappings give their innermost keys (as a config file's
    do in triage.ingest.sidecar); only string keys with literal scalar values are kept."""
    out: dict = {}
    if depth > 6:
        return out
    for key, value in list(data.items())[:MAX_KEYS]:
        if not isinstance(key, str):
            continue
        if isinstance(value, dict):
            for k, v in from_dict(value, depth + 1).items():
                out.setdefault(k, v)
        elif isinstance(value, _SCALARS):
            out[key] = value
    return out


# the Trainer's run banner names its settings in words; the config keys they are (TrainingArguments' names)
_BANNER_KEYS = {"num_epochs": "num_train_epochs", "instantaneous_batch_size_per_device": "per_device_train_batch_size",
                "total_optimization_steps": "max_steps"}


def banner_key(words: str) -> str:
    """`Gradient Accumulation steps` -> gradient_accumulation_steps; `Num Epochs` -> num_train_epochs."""
    key = re.sub(r"\W+", "_", words.strip().lower()).strip("_")
    return _BANNER_KEYS.get(key, key)


def number(text: str) -> int | float:
    """`1,000` -> 1000, `0.5` -> 0.5."""
    text = text.replace(",", "")
    return float(text) if "." in text else int(text)


# `name=` in a line of settings (`lr=0.001, adam_eps=1e-08, model=TextCNN k=2,3,4`): a name after the line's start,
# a blank, a comma, a semicolon or a parenthesis, then `=` (never `==`)
_PAIR_AT = re.compile(r"(?:^|(?<=[\s,;(]))([A-Za-z_][\w.\-]{0,80})\s*=(?!=)")
MAX_VALUE = 200  # a value longer than this is no setting's


def from_pairs(text: str) -> dict:
    """The `name=value` pairs of a printed line of settings (`Config: lr=0.001, batch_size=32, model=TextCNN`):
    each value is the text up to the next `name=`, without its trailing separators. A literal number, boolean
    or None keeps its type (`1e-08`, `True`); other short text is kept as it stands (`TextCNN`, `2,3,4`)."""
    if len(text) > MAX_CHARS:
        return {}
    found = list(_PAIR_AT.finditer(text))
    out: dict = {}
    for i, m in enumerate(found[:MAX_KEYS]):
        end = found[i + 1].start() if i + 1 < len(found) else len(text)
        raw = text[m.end():end].strip().rstrip(",;").strip()
        if not raw or len(raw) > MAX_VALUE:
            continue
        node = _parse(raw)
        value = None
        if node is not None:
            try:
                value = _literal(node)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                value = None
        literal = isinstance(value, _SCALARS) and (value is not None or raw == "None")
        out.setdefault(m.group(1), value if literal else raw.strip("'\""))
    return out
