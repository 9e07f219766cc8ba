"""The one root of every expected failure, and the exit statuses of the ``dealer`` command.

Pure: no I/O, no imports from the rest of the package, so the domain modules can raise these too.

Every failure the user can cause or fix (bad input, a refused action, a machine that cannot do
what was asked) is a :class:`UserError`. The command line turns it into a short message and its
:attr:`~UserError.exit_status`, in one place (``dealer.cli``); anything else is a bug, reported
with a traceback and :data:`EXIT_INTERNAL`.

Errors name *fields* (``defenders_points``, ``round``, ``set``), never command-line flags: the
command line maps a field to its flag (``--points``), a form would map it to its input box.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

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

#: How a field is named to the user; the command line passes its own (field → ``--flag``).
FieldLabel = Callable[[str], str]
#: What to do about a hint key (``use_correct`` …); the interface words it, or says nothing.
HintText = Callable[[str], str | None]


def plain_label(name: str) -> str:
    return name


def no_hint(key: str) -> str | None:
    return None


def quote(value: object) -> str:
    """``repr`` of a value for a message, cut to :data:`QUOTE_LIMIT` characters."""
    if not isinstance(value, str):
        text = repr(value)
        return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT] + f"… ({len(text):,} characters)"
    if len(value) <= QUOTE_LIMIT:
        return repr(value)
    return repr(value[:QUOTE_LIMIT]) + f"… ({len(value):,} characters)"


class UserError(Exception):
    """An expected failure: the message says what is wrong and, where it helps, what to do.

    ``field`` names the input the error is about (the command line shows it as its flag);
    ``hint`` is a key of the interface's hints (the command line says which command to use).
    """

    exit_status = EXIT_REJECTED

    def __init__(self, message: str, *, field: str | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.hint = hint

    def lines(self, label: FieldLabel = plain_label, hint: HintText = no_hint) -> list[str]:
        """The message as printed, one or more lines."""
        lines = [f"{label(self.field)}: {self.message}" if self.field else self.message]
        advice = hint(self.hint) if self.hint else None
        return [*lines, advice] if advice else lines


class FileProblem(UserError):
    """A file, folder or package resource cannot be used; the message names it."""


class EnvironmentProblem(UserError):
    """The machine refused: disk full, read-only, permission denied, a database locked too long."""

    exit_status = EXIT_ENVIRONMENT


@dataclass(frozen=True)
class Problem:
    """One rejected value of a file row or an entry.

    ``source`` is the file (``None`` for an entry typed by a person), ``row`` the row as a
    spreadsheet shows it, ``column`` the column as written in the file (letter and header),
    ``field`` the value's field (``defenders_points``), ``hint`` a key of the interface's hints.
    """

    source: str | None
    row: int | None
    field: str | None
    column: str | None
    value: str | None
    message: str
    hint: str | None = None

    def text(self, label: FieldLabel = plain_label, hint: HintText = no_hint) -> str:
        parts = []
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.column is not None:
            parts.append(f"column {self.column}")
        elif self.field is not None and self.source is None:  # an entry: name the field
            parts.append(label(self.field))
        where = ", ".join(parts)
        if self.source is not None:
            where = f"{self.source}: {where}" if where else self.source
        value = f" value {quote(self.value)}:" if self.value is not None else ""
        advice = hint(self.hint) if self.hint else None
        message = f"{self.message}; {advice}" if advice else self.message
        return f"{where}:{value} {message}" if where else f"{value.strip()} {message}".strip()

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
        where = f"{source}: " if source else ""
        bad_rows = {p.row for p in problems if p.row is not None}
        total = len(problems) + more
        if bad_rows:
            head = (f"{where}rejected, nothing imported ({len(bad_rows):,} of {rows:,} row(s) with "
                    f"problems, {total:,} problem(s))")
        else:
            head = f"{where}rejected, nothing stored ({total} problem(s))"
        super().__init__(head)

    def lines(self, label: FieldLabel = plain_label, hint: HintText = no_hint) -> list[str]:
        out = [self.message, *(f"  {p.text(label, hint)}" for p in self.problems)]
        if self.more:
            out.append(f"  … and {self.more:,} more problem(s) not shown")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())
