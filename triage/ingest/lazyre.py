"""`re`, with each pattern compiled at its first use instead of at import.

The printed-log readers hold several hundred patterns, and compiling them all took about 80 ms of
every command's start-up, although a JSONL or CSV scan uses none of them and a printed log a part.
A module that writes `from triage.ingest import lazyre as re` keeps its `re.compile(...)` lines as
they are: `compile` returns a `LazyPattern`, which compiles on the first attribute asked of it and
then keeps the compiled pattern's methods on itself, so later calls cost what they cost on a
compiled pattern. The rest of `re` that those modules use is `re`'s own. A match's `.re` is the
compiled pattern, not the LazyPattern: tell patterns apart by their `.pattern`.
"""

from __future__ import annotations

import re as _re
from re import (  # noqa: F401  (re's own, for the modules that import this one as re)
    ASCII, DOTALL, IGNORECASE, MULTILINE, VERBOSE, A, I, M, Match, Pattern, S, X, error, escape, findall,
    finditer, fullmatch, match, search, split, sub, subn,
)

_KEPT = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner",
         "pattern", "flags", "groups", "groupindex")


class LazyPattern:
    """A pattern compiled when first used."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str):
        # only reached while the names above are not yet on the instance
        if name.startswith("__") or name == "_source":
            raise AttributeError(name)
        if name == "pattern":  # (read to build other patterns at import: no need to compile for it)
            return self._source[0]
        compiled = self.compiled()
        return getattr(compiled, name)

    def compiled(self) -> _re.Pattern:
        """The compiled pattern (compiled now if it was not yet)."""
        got = self.__dict__.get("_compiled")
        if got is None:
            got = self.__dict__["_compiled"] = _re.compile(*self._source)
            for name in _KEPT:
                self.__dict__[name] = getattr(got, name)
        return got

    def __repr__(self) -> str:
        return f"LazyPattern({self._source[0]!r})"


def compile(pattern, flags: int = 0):  # noqa: A001  (re.compile's name and signature)
    if isinstance(pattern, LazyPattern):
        return pattern if not flags else LazyPattern(pattern._source[0], pattern._source[1] | flags)
    if isinstance(pattern, _re.Pattern):
        return _re.compile(pattern, flags)
    return LazyPattern(pattern, flags)
