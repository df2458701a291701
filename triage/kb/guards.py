"""Limits on what a knowledge file (the built-in one, or a user's overlay from --kb or
TRIAGE_KB_PATH) can make triage do: knowledge is data, and data must not be able to hang a scan
or fill memory.

* Error patterns (`errors:` of a cause) are regular expressions run on every error line of a log.
  Python's engine backtracks, so a pattern with a quantifier inside a quantifier (`(a+)+`,
  `(\\w+\\s?)*`) or a repeated alternation whose branches can match the same text (`(a|ab)*`)
  takes exponential time on a line that almost matches. `regex_problem` finds those shapes in the
  parsed pattern; `triage kb check` reports them as errors and the matcher never runs them
  (`compile_error_pattern`). Every line is also cut to MAX_MATCH_CHARS before matching, which
  bounds the polynomial cases (`.*a.*b`) too.
* YAML aliases (`*name`) share one value between several places; nested ones ("billion laughs")
  make a small file stand for a huge tree that explodes when the search index walks it.
  `expanded_size` counts the values a document stands for, aliases expanded, and a file past
  MAX_YAML_VALUES is refused.
"""

from __future__ import annotations

import re

try:  # Python 3.11+
    from re import _constants as _sre_c  # type: ignore[attr-defined]  # private, absent from the stubs
    from re import _parser as _sre_p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _sre_c  # type: ignore[no-redef]
    import sre_parse as _sre_p  # type: ignore[no-redef]

MAX_MATCH_CHARS = 4096  # an error line longer than this is matched on its first 4096 characters
MAX_YAML_VALUES = 200_000  # values one knowledge file may stand for, aliases expanded

_REPEATS = (_sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT, getattr(_sre_c, "POSSESSIVE_REPEAT", None))
_ANY = object()  # "any character" in a first-character set


def regex_problem(pattern: str) -> str | None:
    """Why `pattern` can take exponential time, or None. It does not need to compile first: a
    pattern that does not parse is not judged here (kb check says it does not compile)."""
    try:
        tree = _sre_p.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    try:
        return _walk(tree, set(), False)
    except RecursionError:
        return "nested too deeply to check"


def _unbounded(lo: int, hi) -> bool:
    return hi is _sre_c.MAXREPEAT or (isinstance(hi, int) and hi > 16)


_NON_ASCII = -1  # stands for every character past ASCII in a character set
_DIGITS = frozenset(range(48, 58))
_WORD = frozenset(range(65, 91)) | frozenset(range(97, 123)) | _DIGITS | {95, _NON_ASCII}
_SPACE = frozenset((9, 10, 11, 12, 13, 32, _NON_ASCII))
_CATEGORIES = {"CATEGORY_DIGIT": _DIGITS, "CATEGORY_WORD": _WORD, "CATEGORY_SPACE": _SPACE}


def _overlap(a, b) -> bool:
    return bool(a) and bool(b) and (a is _ANY or b is _ANY or bool(a & b))


def _union(a, b):
    return _ANY if a is _ANY or b is _ANY else (a | b)


def _walk(seq, follow, nested: bool) -> str | None:
    """Look for an unbounded repeat, inside another one, whose characters can also be taken by
    what follows it (the rest of the loop body, or the next turn of the loop around it): the
    engine can then split one run of characters between the loops in exponentially many ways
    (`(a+)+`, `(x+x+)+`, `(\\w+\\s?)*`). `(\\d+\\.)+` is fine: a digit run always ends at its dot.
    `follow`: the characters that can come right after `seq`."""
    seq = list(seq)
    for k, (op, av) in enumerate(seq):
        rest, rest_empty = _seq_first(seq[k + 1:])
        after = _union(rest, follow) if rest_empty else rest
        found = None
        if op in _REPEATS and op is not None:
            lo, hi, sub = av
            if _unbounded(lo, hi):
                chars = _chars(sub)
                if nested and _overlap(chars, after):
                    return ("a quantifier inside a quantifier over the same characters (like `(a+)+`): "
                            "exponential time on a line that almost matches")
                body, _ = _seq_first(sub)
                found = _overlapping_branches(sub) or _walk(sub, _union(body, after), True)
            else:
                found = _walk(sub, after, nested)
        elif op is _sre_c.SUBPATTERN:
            found = _walk(av[-1], after, nested)
        elif op is _sre_c.BRANCH:
            for branch in av[1]:
                found = found or _walk(branch, after, nested)
        elif op in (_sre_c.ASSERT, _sre_c.ASSERT_NOT):
            found = _walk(av[1], _ANY, nested)
        if found:
            return found
    return None


def _seq_first(seq):
    """(characters a sequence can start with, whether it can match nothing)."""
    out: set | object = set()
    for op, av in seq:
        first, empty = _item_first(op, av)
        out = _union(out, first)
        if not empty:
            return out, False
    return out, True


def _item_first(op, av):
    if op is _sre_c.LITERAL:
        return {av}, False
    if op is _sre_c.IN:
        return _in_chars(av), False
    if op is _sre_c.AT:
        return set(), True
    if op is _sre_c.SUBPATTERN:
        return _seq_first(av[-1])
    if op is _sre_c.BRANCH:
        out: set | object = set()
        empty = False
        for b in av[1]:
            f, e = _seq_first(b)
            out = _union(out, f)
            empty = empty or e
        return out, empty
    if op in _REPEATS and op is not None:
        f, e = _seq_first(av[2])
        return f, e or av[0] == 0
    if op in (_sre_c.ASSERT, _sre_c.ASSERT_NOT):
        return set(), True
    return _ANY, False


def _chars(seq):
    """Every character a sequence can consume (roughly; _ANY when it is hard to say)."""
    out: set | object = set()
    for op, av in seq:
        if op is _sre_c.LITERAL:
            out = _union(out, {av})
        elif op is _sre_c.IN:
            out = _union(out, _in_chars(av))
        elif op is _sre_c.SUBPATTERN:
            out = _union(out, _chars(av[-1]))
        elif op is _sre_c.BRANCH:
            for b in av[1]:
                out = _union(out, _chars(b))
        elif op in _REPEATS and op is not None:
            out = _union(out, _chars(av[2]))
        elif op in (_sre_c.AT, _sre_c.ASSERT, _sre_c.ASSERT_NOT):
            continue
        else:
            return _ANY
        if out is _ANY:
            return _ANY
    return out


def _in_chars(items):
    chars: set = set()
    for op, av in items:
        if op is _sre_c.LITERAL:
            chars.add(av)
        elif op is _sre_c.RANGE:
            lo, hi = av
            if hi > 127:
                chars.add(_NON_ASCII)
            chars.update(range(lo, min(hi, 127) + 1))
        elif op is _sre_c.CATEGORY and str(av) in _CATEGORIES:
            chars |= _CATEGORIES[str(av)]
        else:  # a negated set or a negated class: nearly anything
            return _ANY
    return chars


def _overlapping_branches(items) -> str | None:
    """A repeated alternation two of whose branches can match the same text (`(a|.b)*`; `(a|a)*`,
    which the parser turns into a choice between two empty branches): the engine tries every way
    of splitting the text between them. `(ab|ac)*` is fine: the parser factors the `a` out."""
    for op, av in items:
        if op is _sre_c.SUBPATTERN:
            found = _overlapping_branches(av[-1])
            if found:
                return found
        elif op is _sre_c.BRANCH:
            firsts = [_seq_first(b) for b in av[1]]
            for i in range(len(firsts)):
                for j in range(i + 1, len(firsts)):
                    (a, a_empty), (b, b_empty) = firsts[i], firsts[j]
                    if _overlap(a, b) or (a_empty and b_empty):
                        return ("a repeated alternation whose branches can match the same text (like `(a|.b)*`): "
                                "exponential time on a line that almost matches")
    return None


class GuardedPattern:
    """A compiled error pattern that only ever sees lines cut to MAX_MATCH_CHARS."""

    __slots__ = ("compiled", "pattern")

    def __init__(self, compiled: re.Pattern):
        self.compiled = compiled
        self.pattern = compiled.pattern

    def search(self, text: str):
        if len(text) > MAX_MATCH_CHARS:
            text = "\n".join(line[:MAX_MATCH_CHARS] for line in text.split("\n"))
        return self.compiled.search(text)


def compile_error_pattern(pattern: str, flags: int = re.MULTILINE) -> GuardedPattern | None:
    """The pattern ready to match, or None when it does not compile or could take exponential time."""
    if regex_problem(pattern):
        return None
    try:
        return GuardedPattern(re.compile(pattern, flags))
    except (re.error, RecursionError, OverflowError, ValueError):
        return None


def expanded_size(doc, limit: int = MAX_YAML_VALUES) -> int:
    """How many values `doc` stands for with every shared value (a YAML alias) counted where it is
    used; stops counting a little past `limit`. Linear in the distinct values, however deep the
    sharing goes."""
    memo: dict[int, int] = {}
    keep: list = []  # keeps the ids in memo from being reused

    def size(obj) -> int:
        if isinstance(obj, dict):
            items = list(obj.keys()) + list(obj.values())
        elif isinstance(obj, (list, tuple, set)):
            items = list(obj)
        else:
            return 1
        key = id(obj)
        hit = memo.get(key)
        if hit is not None:
            return hit
        memo[key] = limit + 1  # a cycle (a recursive alias) counts as too big
        keep.append(obj)
        total = 1
        for item in items:
            total += size(item)
            if total > limit:
                break
        memo[key] = total
        return total

    try:
        return size(doc)
    except RecursionError:
        return limit + 1
