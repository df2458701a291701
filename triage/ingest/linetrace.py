"""What became of each line of a printed log in one read of the text reader: the accounting audit's hook.

``bench/dropped.py`` hands a `LineTrace` to ``textlog.read(src, trace=...)``; an ordinary read passes none
and pays one ``is None`` test a line read the slow way (the bulk path is never traced: a traced read goes
the slow way, which reads every log as the bulk path does). The trace only watches; it changes no result.

Per line of the reader's lines (after rank tags, wrapped lines and pasted line numbers are undone) it
notes the skip reasons counted while that line was read, whether reading it changed the reader's state,
which lines were read as the rest of an earlier line, which lines gave a record, and, after the pass,
which records became rows, which lines hold events or settings, and what the passes after the reading
(echoes, repeats, one-off lines) removed, merged and counted.
"""

from __future__ import annotations

from typing import Any, Callable


class LineTrace:
    def __init__(self) -> None:
        self.lines: Any = []  # the reader's lines, 1-based in every field below
        self.at = 0  # the line being read (0 outside the pass)
        self.phase = "before"  # "before" | "pass" | "after" (the passes over the records) | "misses" | "emit"
        self.skips: dict[int, list[str]] = {}  # line -> the reasons counted while it was read
        self.loose: dict[str, dict[str, int]] = {}  # phase -> reason -> count, for skips outside the pass
        self.joined: dict[int, int] = {}  # a line read as the rest of an earlier line -> that line
        self.folded: dict[int, set[int]] = {}  # a line read as more of a record -> that record's first line
        self.changed: set[int] = set()  # lines whose reading changed the reader's state
        self.gave: dict[int, set[int]] = {}  # a line whose reading added records -> those records' lines
        self.read: list[int] = []  # the lines of the records when the pass ended (one entry per record)
        self.rows: list[int] = []  # the lines of the records that became rows
        self._merged0 = self._counted0 = 0
        self.read_values: list[dict] = []  # the values of those records
        self.folded_after: set[int] = set()  # lines of records the passes after the reading folded into others
        self.merged = 0  # further printed lines the passes after the reading folded into a record
        self.counted_after = 0  # skips the passes after the reading counted
        self.events: set[int] = set()
        self.event_lines: set[int] = set()  # lines whose reading closed an event, and the lines back to its start
        self.settings: set[int] = set()  # lines read as the run's settings (a config block's entries)
        self.near: set[int] = set()  # lines counted as a record whose values read as no number
        self.unread: dict[int, str] = {}  # lines read as no record but holding values -> the reason counted

    def skipper(self, skip: Callable[..., None]) -> Callable[..., None]:
        """The builder's `skip`, noting each count against the line being read (or the phase)."""
        def traced(reason: str, n: int = 1) -> None:
            skip(reason, n)
            if not n:
                return
            if self.phase == "pass" and self.at:
                self.skips.setdefault(self.at, []).extend([reason] * n)
            else:
                ph = self.loose.setdefault(self.phase, {})
                ph[reason] = ph.get(reason, 0) + n

        return traced

    def lines_in(self) -> dict[int, int]:
        """The reader's `lines_in` (printed lines folded into a record, by the record's first line) that
        also notes, during the pass, which line was being read when a record took more lines."""
        trace = self

        class Folded(dict):
            def __setitem__(self, key: int, value: int) -> None:
                if trace.phase == "pass" and trace.at:
                    trace.folded.setdefault(trace.at, set()).add(int(key))
                super().__setitem__(key, value)

        return Folded()

    def after_line(self, ln: int, joined: int, before: tuple, mark: tuple, records: list, events: list) -> None:
        """Line `ln` was read (with the lines up to `joined` as its rest): what its reading changed."""
        if len(events) > before[2]:  # (an event that closed on this line: a traceback holds the lines up to it)
            first = min((ev.line for ev in events[before[2]:] if ev.line is not None), default=ln)
            self.event_lines.update(range(min(first, ln), ln + 1))
        for k in range(ln + 1, joined + 1):
            self.joined[k] = ln
        if mark != before[0]:
            self.changed.add(ln)
        if len(records) > before[1]:
            self.gave[ln] = {int(rec.line) for rec in records[before[1]:]}
        self.at = 0

    def _snapshot(self, records: list, lines_in: dict) -> tuple[list[int], int, int]:
        lines = [int(rec.line) for rec in records]
        return lines, sum(n - 1 for n in lines_in.values()), sum(sum(ph.values()) for ph in self.loose.values())

    def pass_ended(self, records: list, lines_in: dict) -> None:
        self.phase = "after"
        self.read, self._merged0, self._counted0 = self._snapshot(records, lines_in)
        self.read_values = [dict(rec.values) for rec in records]

    def passes_ended(self, records: list, lines_in: dict) -> None:
        self.rows, merged, counted = self._snapshot(records, lines_in)
        # a record the passes folded into another (a lone duration into its epoch's record) left its values there
        kept = {(str(k), repr(v)) for rec in records for k, v in rec.values.items()}
        self.folded_after = {line for line, values in zip(self.read, self.read_values)
                             if values and all((str(k), repr(v)) in kept for k, v in values.items())}
        self.merged, self.counted_after = merged - self._merged0, counted - self._counted0
        self.phase = "misses"

    def read_ended(self, events: list, settings: set[int]) -> None:
        self.events = set(self.event_lines)
        for ev in events:  # (an event printed over lines, a traceback, holds them all)
            if ev.line is not None:
                self.events.update(range(int(ev.line), int(ev.line) + 1 + ev.text.count("\n")))
        self.settings = set(settings)
        self.phase = "done"
