"""The one root of every expected failure, and the exit statuses of the ``dealer`` command.

Pure: no I/O, no imports from the rest of the package at import time, so the domain modules can
raise these too.

Every failure the user can cause or fix (bad input, a refused action, a machine that cannot do
what was asked) is a :class:`UserError`. The command line turns it into a short message and its
:attr:`~UserError.exit_status`, in one place (``dealer.cli``); anything else is a bug, reported
with a traceback and :data:`EXIT_INTERNAL`.

A message is data: a *key* of the word catalog (``dealer/data/strings.toml``, section
``[messages]``) and its named parameters; a :class:`Wording` (``dealer.words.Words``) says it in
one language. ``str(error)`` and :attr:`UserError.message` say it in English (the catalog is read
then, and only then).

Errors name *fields* (``defenders_points``, ``round``, ``set``), never command-line flags: the
command line maps a field to its flag (``--points``), a form would map it to its input box.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as _field
from typing import Any, Protocol

#: Exit statuses of ``dealer`` (README, "Exit statuses"); each means one thing.
EXIT_OK = 0
EXIT_DIFFERENCE = 1  #: a check (``verify``, ``results audit``) found a difference
EXIT_REJECTED = 2  #: the input or the request was rejected; nothing was changed
EXIT_ENVIRONMENT = 3  #: the machine refused (disk full, read-only, locked database, no font)
EXIT_INTERNAL = 70  #: a bug (sysexits EX_SOFTWARE): a traceback and a request to report it
EXIT_INTERRUPTED = 130  #: stopped by Ctrl-C (128 + SIGINT, as shells say)
EXIT_BROKEN_PIPE = 141  #: the reader of the output went away (``| head``): 128 + SIGPIPE, as shells say

#: Longest piece of a user's value quoted back in a message.
QUOTE_LIMIT = 40

#: The named parameters of a message.
Params = Mapping[str, object]


def quote(value: object) -> str:
    """``repr`` of a value for a message, cut to :data:`QUOTE_LIMIT` characters (the same in
    every language: a parameter, never worded)."""
    if not isinstance(value, str):
        text = repr(value)
        return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + f"… ({len(text):,} characters)"
    if len(value) <= QUOTE_LIMIT:
        return repr(value)
    return repr(value[:QUOTE_LIMIT]) + f"… ({len(value):,} characters)"


@dataclass(frozen=True)
class Phrase:
    """A message inside a message: a catalog key and its parameters, worded in the language of
    the message that holds it (``what=Phrase("terms.round_number")``)."""

    key: str
    params: Params = _field(default_factory=dict, hash=False)

    @classmethod
    def of(cls, key: str, **params: object) -> Phrase:
        return cls(key, params)

    def __str__(self) -> str:
        return _english().text(self.key, self.params)


class Wording(Protocol):
    """How an interface says messages: in one language, naming fields and hints its own way."""

    def text(self, key: str, params: Params | None = None) -> str:
        """The message ``key`` with its parameters (a :class:`Phrase` parameter worded too)."""
        ...

    def label(self, field: str) -> str:
        """How the interface names a field (the command line: its flag)."""
        ...

    def hint(self, key: str) -> str | None:
        """What to do about a hint key (``use_correct`` …), or nothing."""
        ...


def _english() -> Wording:
    from dealer.words import words  # the catalog, read only when a message is worded

    return words("en")


class UserError(Exception):
    """An expected failure: the message says what is wrong and, where it helps, what to do.

    ``key`` is the message's key in the catalog, ``params`` its named parameters; ``field`` names
    the input the error is about (the command line shows it as its flag); ``hint`` is a key of the
    interface's hints (the command line says which command to use).
    """

    exit_status = EXIT_REJECTED

    def __init__(self, key: str, *, field: str | None = None, hint: str | None = None,
                 **params: object) -> None:
        super().__init__(key)
        self.key = key
        self.params: dict[str, object] = params
        self.field = field
        self.hint = hint

    @property
    def message(self) -> str:
        """The message in English, without its field and hint."""
        return _english().text(self.key, self.params)

    def lines(self, words: Wording | None = None) -> list[str]:
        """The message as printed, one or more lines, in the language of ``words`` (English)."""
        words = words or _english()
        message = words.text(self.key, self.params)
        lines = [words.text("errors.on_field", {"field": words.label(self.field), "message": message})
                 if self.field else message]
        advice = words.hint(self.hint) if self.hint else None
        return [*lines, advice] if advice else lines

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:  # across processes, whatever the subclass's __init__
        return _restore, (type(self), self.__dict__.copy())


def _restore(cls: type[UserError], state: dict[str, Any]) -> UserError:
    error = cls.__new__(cls)
    Exception.__init__(error, state.get("key"))
    error.__dict__.update(state)
    return error


class FileProblem(UserError):
    """A file, folder or package resource cannot be used; the message names it."""


class ScoringError(UserError, ValueError):
    """The results cannot be scored against the event (e.g. a row for an unknown match)."""


class EnvironmentProblem(UserError):
    """The machine refused: disk full, read-only, permission denied, a database locked too long."""

    exit_status = EXIT_ENVIRONMENT


@dataclass(frozen=True)
class Problem:
    """One rejected value of a file row or an entry.

    ``source`` is the file (``None`` for an entry typed by a person), ``row`` the row as a
    spreadsheet shows it, ``column`` the column as written in the file (letter and header),
    ``field`` the value's field (``defenders_points``), ``key`` and ``params`` the message,
    ``hint`` a key of the interface's hints.
    """

    source: str | None
    row: int | None
    field: str | None
    column: str | None
    value: str | None
    key: str
    hint: str | None = None
    params: Params = _field(default_factory=dict, hash=False)

    @property
    def message(self) -> str:
        """The message in English, without where and hint."""
        return _english().text(self.key, self.params)

    def text(self, words: Wording | None = None) -> str:
        words = words or _english()
        parts = []
        if self.row is not None:
            parts.append(words.text("errors.row", {"row": self.row}))
        if self.column is not None:
            parts.append(words.text("errors.column", {"column": self.column}))
        elif self.field is not None and self.source is None:  # an entry: name the field
            parts.append(words.label(self.field))
        where = words.text("errors.list_separator").join(parts)
        if self.source is not None:
            where = words.text("errors.in_source", {"source": self.source, "where": where}) if where \
                else self.source
        message = words.text(self.key, self.params)
        advice = words.hint(self.hint) if self.hint else None
        if advice:
            message = words.text("errors.with_hint", {"message": message, "hint": advice})
        if self.value is not None:
            message = words.text("errors.with_value", {"value": quote(self.value), "message": message})
        return words.text("errors.at", {"where": where, "message": message}) if where else message

    def __str__(self) -> str:
        return self.text()


class Rejected(UserError):
    """A file or an entry was rejected as a whole; nothing of it was stored.

    Only the first :data:`SHOWN_PROBLEMS` problems are kept for printing; the count of the rest
    is said.
    """

    SHOWN_PROBLEMS = 50

    def __init__(self, source: str | None, problems: Sequence[Problem], rows: int,
                 more: int = 0) -> None:
        self.source = source
        self.problems = list(problems[: self.SHOWN_PROBLEMS])
        self.more = more + max(0, len(problems) - self.SHOWN_PROBLEMS)
        self.rows = rows
        bad_rows = len({p.row for p in problems if p.row is not None})
        total = len(problems) + more
        key = "errors.rejected_rows" if bad_rows else "errors.rejected"
        super().__init__(key, bad_rows=bad_rows, rows=rows, total=total)

    def lines(self, words: Wording | None = None) -> list[str]:
        words = words or _english()
        head = words.text(self.key, self.params)
        if self.source:
            head = words.text("errors.in_source", {"source": self.source, "where": head})
        out = [head, *(f"  {p.text(words)}" for p in self.problems)]
        if self.more:
            out.append("  " + words.text("errors.more_problems", {"more": self.more}))
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())
