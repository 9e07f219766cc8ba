"""The result kinds, one value per event's ``result``: board results and a level race's table results.

One import, add, correct, withdraw and history path serves both (:mod:`dealer.app.results`); where
the kinds differ it is here, as data and small functions, the way python-chess registers its
variants. The store's half of a kind (its table, slot, scoring columns) is
:class:`dealer.store.schema.ResultTable`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dealer.app import validate
from dealer.attribution import Misattributed, attribution_problems
from dealer.errors import Phrase, Problem
from dealer.event import Event, Match
from dealer.formats.columns import TRAVELLERS, Layout, RawRow
from dealer.store.db import ResultsStore
from dealer.store.rows import Entry, LevelEntry
from dealer.store.schema import BOARDS, LEVELS, ResultTable

Slot = tuple[Any, ...]
Values = Mapping[str, str | None]


@dataclass(frozen=True)
class ResultKind:
    """What differs between the kinds of result, for the one path of :mod:`dealer.app.results`."""

    name: str  #: the event's ``result``
    table: ResultTable[Any, Any, Any]  #: the store's table of it
    layout: Layout  #: a result file's header spellings and required fields
    #: One row or entry checked against the event: the entry, or the problems (``check_plausible``:
    #: refuse implausible points; a level race has no such bound).
    validate: Callable[[Event, str | None, RawRow, bool], tuple[Any, list[Problem]]]
    #: One result's slot as an entry names it, read without the event (a withdrawal reaches
    #: results of matches the event file no longer has).
    stored_slot: Callable[[Values], Slot]
    #: The round and match an entry names, read without the event.
    stored_match: Callable[[Values], tuple[int, str]]
    #: The entry that withdraws a stored row.
    withdrawal: Callable[[sqlite3.Row, str | None, str | None], Any]
    slot_text: Callable[[Slot], Phrase]
    #: A stored row's value (points, final levels, or withdrawn).
    stored_value: Callable[[sqlite3.Row], Phrase]
    #: Matches whose stored results the event file, as edited, credits to other teams or boards.
    misattributed: Callable[[Event, ResultsStore, set[tuple[int, str]] | None], list[Misattributed]]
    #: The field a refused duplicate names, and the fields only this kind of result has.
    value_field: str
    own_fields: tuple[str, ...]
    #: Whether a correction can say which value it expects to replace (points, or ``withdrawn``).
    expect_current: bool
    #: The fields a correction keeps from the stored result when it is not told them (the stored
    #: row's columns of the same names); all but the note can be what a correction changes.
    kept: tuple[str, ...] = ()
    #: A round's result template: its columns (fields of :attr:`layout`, in the order a scorer
    #: fills them) and one match's slots, pre-filled (field → value; the rest left to fill in).
    template: tuple[str, ...] = ()
    slots: Callable[[Event, Match], list[dict[str, str | int]]] = lambda _event, _match: []

    def keep_stored(self, values: Values, row: sqlite3.Row | None) -> dict[str, str | None]:
        """``values`` with every field of :attr:`kept` it does not give taken from the stored
        ``row`` (a correction changes only what it is told; a withdrawn row keeps nothing)."""
        kept = dict(values)
        if row is None or row["withdrawn"]:
            return kept
        for key in self.kept:
            if kept.get(key) is None and row[key] is not None:
                kept[key] = str(row[key])
        return kept

    def changes(self, values: Values) -> bool:
        """Whether a correction's ``values`` give any field of the result (the note aside)."""
        return any(values.get(key) not in (None, "") for key in self.kept if key != "note")

    def stored_text(self, row: sqlite3.Row, zone: str | None = None) -> Phrase:
        """A stored row's value, with when (in the event's ``zone``) and by whom it was entered."""
        return validate.stored_phrase(self.stored_value(row), row, zone)

    def entry_value(self, entry: Any) -> str | None:
        value = getattr(entry, self.value_field)
        return None if value is None else str(value)


def _board_withdrawal(row: sqlite3.Row, note: str | None, entered_by: str | None) -> Entry:
    return Entry(row["round"], row["match"], row["tbl"], row["board"], None, ns_team=row["ns_team"],
                 ew_team=row["ew_team"], played_set=row["played_set"], note=note, entered_by=entered_by,
                 withdrawn=True)


def _table_withdrawal(row: sqlite3.Row, note: str | None, entered_by: str | None) -> LevelEntry:
    return LevelEntry(row["round"], row["match"], row["tbl"], None, None, home_team=row["home_team"],
                      away_team=row["away_team"], note=note, entered_by=entered_by, withdrawn=True)


def _board_misattributed(event: Event, store: ResultsStore,
                         matches: set[tuple[int, str]] | None) -> list[Misattributed]:
    if matches is None:
        return attribution_problems(event, store.seatings(BOARDS))
    rounds = sorted({round_number for round_number, _ in matches})
    return attribution_problems(event, [s for s in store.seatings(BOARDS, rounds) if (s.round, s.match) in matches])


def _board_slots(event: Event, match: Match) -> list[dict[str, str | int]]:
    """Every board of both tables of ``match``: teams by name as they sit, the scheduled declarer
    and level."""
    names = {t.id: t.name for t in event.teams}
    slots: list[dict[str, str | int]] = []
    for table in ("A", "B"):
        seats = match.seats(table)
        for board in event.set_boards(match.set):
            slots.append({"round": match.round, "match": match.id, "table": table, "board": board.number,
                          "ns_team": names[seats["NS"]], "ew_team": names[seats["EW"]],
                          "declarer": board.declarer, "level": board.level})
    return slots


def _table_slots(event: Event, match: Match) -> list[dict[str, str | int]]:
    """Every table of ``match`` (a level race): its teams by name."""
    names = {t.id: t.name for t in event.teams}
    return [{"round": match.round, "match": match.id, "table": table, "home_team": names[match.home],
             "away_team": names[match.away]} for table in range(1, event.tables + 1)]


def _table_slot(values: Values) -> Slot:
    round_number, match, table = validate.table_stored_slot(values)
    return (round_number, match, table)


BOARD_RESULTS = ResultKind(
    "boards", BOARDS, TRAVELLERS, validate.validate_row, validate.board_stored_slot,
    validate.board_stored_match, _board_withdrawal, validate.board_slot_text, validate.board_stored_value,
    _board_misattributed, "defenders_points",
    ("board", "defenders_points", "trump", "declarer", "level", "ns_team", "ew_team"), expect_current=True,
    kept=("defenders_points", "trump", "declarer", "level", "note"),
    template=("round", "match", "table", "board", "ns_team", "ew_team", "declarer", "level", "defenders_points",
              "trump", "note"), slots=_board_slots)
TABLE_RESULTS = ResultKind(
    "levels", LEVELS, validate.LEVEL_LAYOUT, lambda event, source, row, _plausible:
    validate.validate_level_row(event, source, row), _table_slot,
    lambda values: validate.table_stored_slot(values, table=False)[:2], _table_withdrawal,
    validate.table_slot_text, validate.table_stored_value, validate.level_attribution_problems, "home_level",
    ("home_level", "away_level", "last_game", "home_games", "away_games"), expect_current=False,
    kept=("home_level", "away_level", "last_game", "home_games", "away_games", "note"),
    template=("round", "match", "table", "home_team", "away_team", "home_level", "away_level", "last_game",
              "home_games", "away_games", "note"), slots=_table_slots)
#: The kinds by the event's ``result``.
KINDS = {kind.name: kind for kind in (BOARD_RESULTS, TABLE_RESULTS)}


def kind_of(event: Event) -> ResultKind:
    return KINDS[event.result]
