"""A small regex highlighter for knobs (Python, YAML, shell one-liners).

Pygments would add about 45 ms to every `triage explain`; knobs are one to five lines, so a
handful of regexes gives the same at a fraction of the start-up cost.
"""

from __future__ import annotations

from rich.text import Text

_RULES = (
    (r"#[^\n]*", "dim italic"),                                   # comments
    (r"(?<![\w.])-?\d+(\.\d+)?([eE][-+]?\d+)?(?![\w.])", "bold magenta"),  # numbers, 1e-4
    (r"\b(True|False|None|true|false|null|import|from|def|return|lambda|with|for|in|if|else|not|and|or)\b", "bold blue"),
    (r"\b[A-Za-z_][\w.]*(?=\()", "bold yellow"),                  # calls: AdamW(...), model.eval()
    (r"\b[A-Za-z_][\w.]*(?=\s*=[^=])", "cyan"),                   # assignments and keyword args
    (r"^\s*[A-Za-z_][\w.-]*(?=:\s)", "cyan"),                     # YAML keys
    (r"(?<!\w)--?[A-Za-z][\w-]*", "cyan"),                        # CLI flags
    (r"'[^'\n]*'|\"[^\"\n]*\"", "green"),                         # strings last: they win
)


def highlight(code: str) -> Text:
    text = Text(code.rstrip("\n"), style="bold")
    for pattern, style in _RULES:
        text.highlight_regex(pattern, style)
    return text
