"""The rows the results store takes and gives: validated entries to store (board results as
:class:`Entry` or, in bulk, :class:`EntryBatch`; a level race's table results as
:class:`LevelEntry`), and what it reads back (:class:`StoredRow`, :class:`Seating`,
:class:`LevelSeating`, :class:`Action`, :class:`Release`). No I/O here."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from dealer.errors import Phrase


@dataclass(frozen=True)
class Entry:
    """One result row to store (validated), with the match's seating and set when played."""

    round: int
    match: str
    table: str
    board: int
    defenders_points: int | None
    trump: str | None = None
    declarer: str | None = None
    level: str | None = None
    ns_team: str | None = None
    ew_team: str | None = None
    played_set: int | None = None
    note: str | None = None
    entered_by: str | None = None
    source_row: int | None = None
    withdrawn: bool = False

    @property
    def slot(self) -> tuple[int, str, str, int]:
        return (self.round, self.match, self.table, self.board)

    def same_result(self, row: sqlite3.Row) -> bool:
        """Whether a stored row already records this result (notes and names aside)."""
        return (
            bool(row["withdrawn"]) == self.withdrawn
            and row["defenders_points"] == self.defenders_points
            and (self.trump is None or row["trump"] == self.trump)
            and (self.declarer is None or row["declarer"] == self.declarer)
            and (self.level is None or row["level"] == self.level)
        )

    def value_text(self) -> Phrase:
        return Phrase("value.withdrawn") if self.withdrawn else Phrase.of("value.points", points=self.defenders_points)


#: The fields of an :class:`Entry` kept per row in an :class:`EntryBatch`.
ENTRY_FIELDS = ("round", "match", "table", "board", "defenders_points", "trump", "declarer", "level",
                "ns_team", "ew_team", "played_set", "note", "entered_by", "source_row", "withdrawn")


@dataclass
class EntryBatch:
    """Validated result rows as columns, one list per field of :class:`Entry` (``withdrawn`` as
    0/1): what an import stores, without an object per row."""

    round: list[int]
    match: list[str]
    table: list[str]
    board: list[int]
    defenders_points: list[int | None]
    trump: list[str | None]
    declarer: list[str | None]
    level: list[str | None]
    ns_team: list[str | None]
    ew_team: list[str | None]
    played_set: list[int | None]
    note: list[str | None]
    entered_by: list[str | None]
    source_row: list[int | None]
    withdrawn: list[int]

    @classmethod
    def from_entries(cls, entries: Sequence[Entry]) -> EntryBatch:
        columns: dict[str, Any] = {name: [getattr(e, name) for e in entries] for name in ENTRY_FIELDS}
        columns["withdrawn"] = [int(e.withdrawn) for e in entries]
        return cls(**columns)

    def __len__(self) -> int:
        return len(self.round)

    def slots(self) -> list[tuple[int, str, str, int]]:
        return list(zip(self.round, self.match, self.table, self.board, strict=True))

    def entry(self, i: int) -> Entry:
        """Row ``i`` as an :class:`Entry`."""
        values = {name: getattr(self, name)[i] for name in ENTRY_FIELDS}
        return Entry(**{**values, "withdrawn": bool(values["withdrawn"])})

    def take(self, rows: Sequence[int]) -> EntryBatch:
        """The rows ``rows`` (indexes, in that order)."""
        return EntryBatch(*([column[i] for i in rows] for column in (getattr(self, n) for n in ENTRY_FIELDS)))


@dataclass(frozen=True)
class LevelEntry:
    """One table's result of a level-race match to store (validated): the final levels of the
    home and away sides (``过A``: one past A), the last game's winner (``home``/``away``)."""

    round: int
    match: str
    table: int
    home_level: str | None
    away_level: str | None
    last_game: str | None = None
    home_games: int | None = None
    away_games: int | None = None
    home_team: str | None = None
    away_team: str | None = None
    note: str | None = None
    entered_by: str | None = None
    source_row: int | None = None
    withdrawn: bool = False

    @property
    def slot(self) -> tuple[int, str, int]:
        return (self.round, self.match, self.table)

    def same_result(self, row: sqlite3.Row) -> bool:
        """Whether a stored row already records this result (notes and names aside; games and
        the last game's winner only where this entry gives them)."""
        return (
            bool(row["withdrawn"]) == self.withdrawn
            and row["home_level"] == self.home_level and row["away_level"] == self.away_level
            and (self.last_game is None or row["last_game"] == self.last_game)
            and (self.home_games is None or row["home_games"] == self.home_games)
            and (self.away_games is None or row["away_games"] == self.away_games)
        )

    def value_text(self) -> Phrase:
        if self.withdrawn:
            return Phrase("value.withdrawn")
        return level_value_text(self.home_level, self.away_level, self.last_game)


def level_value_text(home: str | None, away: str | None, last_game: str | None) -> Phrase:
    if last_game:
        side = Phrase("value.side_home") if last_game == "home" else Phrase("value.side_away")
        return Phrase.of("value.levels_last", home=home, away=away, last_game=side)
    return Phrase.of("value.levels", home=home, away=away)


@dataclass(frozen=True)
class Action:
    """One of the director's actions as stored; ``undone`` when a later ``undo`` names it."""

    id: int
    kind: str  # "pair", "undo", "forfeit", "late", "end"
    round: int
    data: dict[str, Any]
    reason: str | None
    undoes: int | None
    entered_by: str | None
    at: str
    undone: bool


@dataclass(frozen=True)
class AppealRow:
    """An appeal as stored (``kind`` "lodge") with the decision on it, if any (a "decide" row)."""

    id: int
    round: int
    team: str
    against: str
    reason: str
    deadline: str | None
    entered_by: str | None
    at: str
    decision: str | None = None  # "upheld" or "dismissed"; None while open
    decided_by: str | None = None
    decision_reason: str | None = None
    decided_at: str | None = None
    #: The appeal's number in the event, 1, 2, … in the order lodged (what the papers call it).
    number: int = 0

    @property
    def open(self) -> bool:
        return self.decision is None


@dataclass(frozen=True)
class PenaltyRow:
    """A penalty or warning as stored (``kind`` "undo": a withdrawal naming ``undoes``);
    ``undone`` when a later withdrawal names it."""

    id: int
    kind: str
    round: int
    match: str
    team: str
    data: dict[str, Any]
    reason: str
    undoes: int | None
    entered_by: str | None
    at: str
    undone: bool


@dataclass(frozen=True)
class LineupRow:
    """A team's line-up for one round as stored: table → its players (JSON keys: ``A``/``B``, or
    a level race's table number as text); ``supersedes``: the line-up it replaced."""

    id: int
    round: int
    team: str
    tables: dict[str, list[str]]
    supersedes: int | None
    reason: str | None
    entered_by: str | None
    at: str


@dataclass(frozen=True)
class Release:
    """A board set's hands (``kind`` "set") or the key (``kind`` "key") made public, or a set
    declared unused (``kind`` "unused")."""

    kind: str
    set_number: int | None
    reason: str
    entered_by: str | None
    at: str


@dataclass(frozen=True)
class StoredRow:
    """A stored result row of either kind, superseded ones included: every column of its table
    by name (``withdrawn`` as a bool), the source of its import, and whether it is current.
    ``row["points"]``-style access reads a column (``source`` and ``current`` too)."""

    columns: dict[str, Any]
    source: str
    current: bool
    #: Column → key in :meth:`as_dict` where the kind's JSON names a column otherwise.
    names: Mapping[str, str] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        if name == "source":
            return self.source
        if name == "current":
            return self.current
        return self.columns[name]

    @property
    def id(self) -> int:
        return int(self.columns["id"])

    @property
    def round(self) -> int:
        return int(self.columns["round"])

    @property
    def match(self) -> str:
        return str(self.columns["match"])

    @property
    def table(self) -> Any:
        """The table: ``A``/``B`` (boards) or its number (a level race)."""
        return self.columns["tbl"]

    @property
    def withdrawn(self) -> bool:
        return bool(self.columns["withdrawn"])

    @property
    def entered_by(self) -> str | None:
        return self.columns["entered_by"]  # type: ignore[no-any-return]

    @property
    def entered_at(self) -> str:
        return str(self.columns["entered_at"])

    @property
    def source_row(self) -> int | None:
        return self.columns["source_row"]  # type: ignore[no-any-return]

    @property
    def supersedes(self) -> int | None:
        return self.columns["supersedes"]  # type: ignore[no-any-return]

    @property
    def reason(self) -> str | None:
        return self.columns["reason"]  # type: ignore[no-any-return]

    def as_dict(self) -> dict[str, Any]:
        """The row as JSON shows it: its columns, its source and whether it is current."""
        out = {self.names.get(name, name): value for name, value in self.columns.items()}
        out.update(source=self.source, current=self.current)
        return out


@dataclass(frozen=True)
class Seating:
    """How the current results of one match were entered: table, set, N-S and E-W team."""

    round: int
    match: str
    table: str
    played_set: int | None
    ns_team: str | None
    ew_team: str | None


class LevelSeating(NamedTuple):
    """How the current results of one level-race match were entered: its home and away team."""

    round: int
    match: str
    home_team: str | None
    away_team: str | None
