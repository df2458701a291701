"""Small layout pieces shared by the terminal views.

`hang` is a list item with a hanging indent: in a terminal its text wraps under itself, not
under the bullet; in a pipe (see triage.render.console) it stays one line, like everything else.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.markup import render as render_markup
from rich.table import Table
from rich.text import Text


def _text(value: str | Text, markup: bool) -> Text:
    if isinstance(value, Text):
        return value
    return render_markup(value) if markup else Text(value)


def hang(prefix: str | Text, body: str | Text | RenderableType, markup: bool = False) -> Table:
    """`prefix` then `body`, the body's wrapped lines indented to where it starts.

    `markup=True` reads rich markup in string arguments (escape user text first)."""
    grid = Table.grid(padding=0)
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    if isinstance(body, str):
        body = _text(body, markup)
    grid.add_row(_text(prefix, markup), body)
    return grid
