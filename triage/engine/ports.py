"""The two ports of a `triage ask` session: how it asks (`Prompter`, with the `Option`s of a menu
and the control values beside the answers) and what it shows (`Display`, fed typed events).

The session (triage.engine.session) talks to the person only through these, so it runs the same
with questionary menus and a rich terminal (triage.render.session), an answers file, or a test that
records the events; the engine itself never prints. The event types are data: a display decides
how each looks, and the views import them from here, never the session itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from triage.engine.diagnosis import Answer, Candidate, Model, TextEvidence
from triage.kb.base import KnowledgeBase

# control choices offered beside the answers (answer values are [a-z0-9-], so no clash)
BACK, CANDIDATES, FINISH, QUIT, NOT_IT, DONE = ":back", ":candidates", ":finish", ":quit", ":not-it", ":done"
NOT_APPLICABLE_CHOICE, TEXT = ":n/a", ":text"  # "not applicable", and free text (an error line or words)


def text_reply(text: str) -> str:
    """What a prompter returns for free text typed at a question (see TEXT)."""
    return f"{TEXT}:{text}"


def typed_text(choice: str) -> str | None:
    """The free text in a prompter's reply, or None when the reply is not free text."""
    return choice[len(TEXT) + 1:] if isinstance(choice, str) and choice.startswith(TEXT + ":") else None


# -- prompters -----------------------------------------------------------------------------------
class Option:
    """One choice in a menu: an answer value (or a control such as BACK) and its label."""

    __slots__ = ("value", "label", "control")

    def __init__(self, value: str, label: str, control: bool = False):
        self.value, self.label, self.control = value, label, control

    def __repr__(self) -> str:
        return f"Option({self.value!r}, {self.label!r}{', control=True' if self.control else ''})"


class Prompter(Protocol):
    """How a session asks. `interactive` prompters get the views printed before each prompt."""

    interactive: bool

    def ask(self, question: str, message: str, options: list[Option]) -> str:
        """The value of the chosen option (an answer value, UNKNOWN or a control such as BACK)."""

    def finish(self, top: list[Candidate], options: list[Option]) -> str:
        """At the end: NOT_IT, DONE, BACK, CANDIDATES or QUIT."""


# -- what a session shows -------------------------------------------------------------------------
@dataclass(frozen=True)
class Intro:
    """Before the first question: the evidence already known (logs, probes, config, defaults; then
    error text), notes for the person, the answers given before (a file, a resumed session) and the
    causes already ruled out."""

    model: Model
    evidence: list[Answer]
    notes: list[str]
    text: list[TextEvidence]
    answered: list[Answer]
    excluded: list[str]


@dataclass(frozen=True)
class Asking:
    """A question is about to be asked (`number`: its place among the person's answers). `echo`:
    nobody is at a prompt (an answers file), so the question itself is shown too."""

    model: Model
    question: str
    number: int
    echo: bool


@dataclass(frozen=True)
class Answered:
    """An answer given without a prompt (from an answers file), echoed under its question."""

    model: Model
    answer: Answer


@dataclass(frozen=True)
class TextMatched:
    """Free text typed at a question was matched against error patterns and cause descriptions:
    the causes it points to (empty: nothing matched, the questions go on)."""

    causes: list[str]


@dataclass(frozen=True)
class Differential:
    """The ranked candidates so far, with why each is there (the person asked to see them)."""

    ranked: list[Candidate]
    excluded: list[str]


@dataclass(frozen=True)
class End:
    """The end of the questions: the causes that get a card, then the runners-up in one line each
    (an empty `cards`: every cause was ruled out)."""

    kb: KnowledgeBase
    cards: list[Candidate]
    rest: list[Candidate] = field(default_factory=list)


@dataclass(frozen=True)
class RuledOut:
    """The person said "not it" to the top cause; the questions go on without it."""

    cause: str


@dataclass(frozen=True)
class TookBack:
    """The person's last answer was taken back (None: there was nothing to take back)."""

    model: Model
    answer: Answer | None


@dataclass(frozen=True)
class Saved:
    """The finished session was saved: the file asked for, and the resumable .json when it differs."""

    path: str
    also: str | None = None


@dataclass(frozen=True)
class Quit:
    """The person quit: the ranking so far (empty when nothing was answered), and the file to
    resume from (None when nothing was saved)."""

    top: list[Candidate]
    resume: str | None


@dataclass(frozen=True)
class SaveFailed:
    """The session could not be saved (said once; the session goes on)."""

    message: str


class Display(Protocol):
    """Where a session's events go. triage.render.session.RichDisplay draws them in a terminal;
    `QuietDisplay` drops them; a test can keep them in a list."""

    def show(self, event) -> None:
        """Show one event (Intro, Asking, Answered, TextMatched, Differential, End, RuledOut,
        TookBack, Saved, Quit or SaveFailed)."""


class QuietDisplay:
    """A display that shows nothing: for callers that want only the outcome (the MCP server)."""

    def show(self, event) -> None:
        return None
