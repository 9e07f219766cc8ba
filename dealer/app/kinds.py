"""The result kinds, one per event's ``result``: board results and a level race's table results.

One import, add, correct, withdraw and history path serves both (:mod:`dealer.app.results`), and
one table's page (:mod:`dealer.app.live`, :mod:`dealer.app.table_view`); where the kinds differ it
is here, as one class each, the way python-chess registers its variants: the faces and the use
cases ask the kind (:func:`kind_of`) instead of testing which it is. The store's half of a kind
(its table, slot, scoring columns) is :class:`dealer.store.schema.ResultTable`.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar

from dealer.app import validate
from dealer.attribution import Misattributed, attribution_problems
from dealer.errors import Phrase, Problem, UserError, quote
from dealer.event import Event, Match
from dealer.formats.columns import TRAVELLERS, Layout, RawRow
from dealer.scoring import TABLES
from dealer.store.db import ResultsStore
from dealer.store.rows import Entry, LevelEntry, StoredRow
from dealer.store.schema import BOARDS, LEVELS, ResultTable
from dealer.words import local_time

Slot = tuple[Any, ...]
Values = Mapping[str, str | None]

#: A level race's table holds one result: its sheet's one slot, by this name (the table's page
#: posts it, the live tables keep it).
LEVEL_SLOT = "levels"


class ResultKind(ABC):
    """What differs between the kinds of result, for the one path of :mod:`dealer.app.results`
    and the one table's page."""

    name: ClassVar[str]  #: the event's ``result``
    table: ClassVar[ResultTable[Any, Any, Any]]  #: the store's table of it
    layout: ClassVar[Layout]  #: a result file's header spellings and required fields
    #: The field a refused duplicate names (and without which an entry shows no value).
    value_field: ClassVar[str]
    #: The fields only this kind of result has.
    own_fields: ClassVar[tuple[str, ...]]
    #: What a table's page types for one result (the rest of an entry is the sheet's).
    typed_fields: ClassVar[tuple[str, ...]]
    #: Whether a correction can say which value it expects to replace (points, or ``withdrawn``).
    expect_current: ClassVar[bool]
    #: The fields a correction keeps from the stored result when it is not told them (the stored
    #: row's columns of the same names); all but the note can be what a correction changes.
    kept: ClassVar[tuple[str, ...]]
    #: A round's result template: its columns (fields of :attr:`layout`, in the order a scorer
    #: fills them).
    template: ClassVar[tuple[str, ...]]

    # --- one entry, as the results path reads it ------------------------------------------------

    @abstractmethod
    def validate(self, event: Event, source: str | None, row: RawRow,
                 check_plausible: bool) -> tuple[Any, list[Problem]]:
        """One row or entry checked against the event: the entry, or the problems
        (``check_plausible``: refuse implausible points; a level race has no such bound)."""

    @abstractmethod
    def stored_slot(self, values: Values) -> Slot:
        """One result's slot as an entry names it, read without the event (a withdrawal reaches
        results of matches the event file no longer has)."""

    @abstractmethod
    def stored_match(self, values: Values) -> tuple[int, str]:
        """The round and match an entry names, read without the event."""

    @abstractmethod
    def withdrawal(self, row: sqlite3.Row, note: str | None, entered_by: str | None) -> Any:
        """The entry that withdraws a stored row."""

    @abstractmethod
    def slot_text(self, slot: Slot) -> Phrase: ...

    @abstractmethod
    def stored_value(self, row: sqlite3.Row) -> Phrase:
        """A stored row's value (points, final levels, or withdrawn)."""

    @abstractmethod
    def misattributed(self, event: Event, store: ResultsStore,
                      matches: set[tuple[int, str]] | None) -> list[Misattributed]:
        """Matches whose stored results the event file, as edited, credits to other teams or boards."""

    @abstractmethod
    def slots(self, event: Event, match: Match) -> list[dict[str, str | int]]:
        """One match's slots for a round's result template, pre-filled (field → value; the rest
        left to fill in)."""

    @abstractmethod
    def asked_table(self, text: str | None) -> str | int | None:
        """A table as a command names it (``history --table``), as the store holds it; refused
        naming the field when it is not one."""

    @abstractmethod
    def history_value(self, row: StoredRow) -> Phrase | str:
        """A stored row's value in the audit trail's line."""

    @abstractmethod
    def history_line(self, row: StoredRow, value: Phrase | str, trail: Mapping[str, object]) -> Phrase:
        """One line of the audit trail (``results history``): where, the value, ``trail``."""

    # --- a table's sheet (dealer serve) ---------------------------------------------------------

    @abstractmethod
    def sheet_slots(self, event: Event, match: Match) -> tuple[str, ...]:
        """The results each table of ``match`` holds, as its sheet names them."""

    @abstractmethod
    def board_of(self, slot: str) -> int | None:
        """The board a sheet's slot is; ``None``: the table's one result (a level race)."""

    @abstractmethod
    def sheet_values(self, event: Event, match: Match, table: str, slot: str) -> dict[str, str | None]:
        """One result of a sheet as the results path reads an entry, without what is typed: the
        round, match, table and what the schedule fixes (board, teams, declarer, level)."""

    @abstractmethod
    def sides(self, match: Match, table: str) -> dict[str, str]:
        """Each team's side at a table of ``match`` (team → ``NS``/``EW``); none where the teams
        sit as no sides (a level race)."""

    @abstractmethod
    def sheet_stored_slot(self, round_number: int, match: str, table: str, slot: str) -> Slot:
        """The store's slot of a sheet's result (:attr:`ResultTable.slot`'s columns)."""

    @abstractmethod
    def twin_slot(self, round_number: int, match: str, table: str, slot: str) -> Slot | None:
        """The store's slot of the same deal at the match's other table (its result is compared:
        shown once both are in, flagged when far apart); ``None``: no table plays this one's deal."""

    # --- shared -------------------------------------------------------------------------------------

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

    def typed(self, values: Mapping[str, Any]) -> dict[str, str | None]:
        """What a table's page typed for one result (:attr:`typed_fields`), blank as ``None``."""
        return {name: str(values.get(name) or "").strip() or None for name in self.typed_fields}

    def history_text(self, row: StoredRow, zone: str | None) -> Phrase:
        """A stored row as the audit trail says it: where, its value, whether it is current, when
        (in the event's ``zone``), by whom, from where, and what it replaced."""
        source_row = row["source_row"]
        trail = {
            "state": Phrase("said_history.current" if row.current else "said_history.superseded"),
            "at": local_time(row["entered_at"], zone), "by": row.entered_by or "-",
            "source": Phrase.of("said_history.source_row", source=row.source, row=source_row) if source_row
            else row.source,
            "supersedes": "" if row["supersedes"] is None else
            Phrase.of("said_history.supersedes", id=row["supersedes"], reason=row["reason"]),
        }
        value = Phrase("said_history.withdrawn") if row.withdrawn else self.history_value(row)
        return self.history_line(row, value, trail)


class BoardResults(ResultKind):
    """计副制: each table's result of each board (the defenders' points), both tables of a match
    playing the same deals."""

    name = "boards"
    table = BOARDS
    layout = TRAVELLERS
    value_field = "defenders_points"
    own_fields = ("board", "defenders_points", "trump", "declarer", "level", "ns_team", "ew_team")
    typed_fields = ("defenders_points", "trump")
    expect_current = True
    kept = ("defenders_points", "trump", "declarer", "level", "note")
    template = ("round", "match", "table", "board", "ns_team", "ew_team", "declarer", "level", "defenders_points",
                "trump", "note")

    def validate(self, event: Event, source: str | None, row: RawRow,
                 check_plausible: bool) -> tuple[Entry | None, list[Problem]]:
        return validate.validate_row(event, source, row, check_plausible)

    def stored_slot(self, values: Values) -> Slot:
        return validate.board_stored_slot(values)

    def stored_match(self, values: Values) -> tuple[int, str]:
        return validate.board_stored_match(values)

    def withdrawal(self, row: sqlite3.Row, note: str | None, entered_by: str | None) -> Entry:
        return Entry(row["round"], row["match"], row["tbl"], row["board"], None, ns_team=row["ns_team"],
                     ew_team=row["ew_team"], played_set=row["played_set"], note=note, entered_by=entered_by,
                     withdrawn=True)

    def slot_text(self, slot: Slot) -> Phrase:
        return validate.board_slot_text((slot[0], slot[1], slot[2], slot[3]))

    def stored_value(self, row: sqlite3.Row) -> Phrase:
        return validate.board_stored_value(row)

    def misattributed(self, event: Event, store: ResultsStore,
                      matches: set[tuple[int, str]] | None) -> list[Misattributed]:
        if matches is None:
            return attribution_problems(event, store.seatings(BOARDS))
        rounds = sorted({round_number for round_number, _ in matches})
        return attribution_problems(event, [s for s in store.seatings(BOARDS, rounds)
                                            if (s.round, s.match) in matches])

    def slots(self, event: Event, match: Match) -> list[dict[str, str | int]]:
        """Every board of both tables of ``match``: teams by name as they sit, the scheduled
        declarer and level."""
        names = {t.id: t.name for t in event.teams}
        slots: list[dict[str, str | int]] = []
        for table in TABLES:
            seats = match.seats(table)
            for board in event.set_boards(match.set):
                slots.append({"round": match.round, "match": match.id, "table": table, "board": board.number,
                              "ns_team": names[seats["NS"]], "ew_team": names[seats["EW"]],
                              "declarer": board.declarer, "level": board.level})
        return slots

    def asked_table(self, text: str | None) -> str | None:
        if text is None:
            return None
        if text.strip().upper() not in TABLES:
            raise UserError("cli.table_not_a_or_b", field="table", table=quote(text))
        return text.strip().upper()

    def history_value(self, row: StoredRow) -> str:
        return f"{row['defenders_points']:>4}"

    def history_line(self, row: StoredRow, value: Phrase | str, trail: Mapping[str, object]) -> Phrase:
        return Phrase.of("said_history.board_line", id=row.id, round=row.round, match=row.match, table=row.table,
                         board=row["board"], value=value, **trail)

    def sheet_slots(self, event: Event, match: Match) -> tuple[str, ...]:
        return tuple(str(b.number) for b in event.set_boards(match.set))

    def board_of(self, slot: str) -> int:
        return int(slot)

    def sheet_values(self, event: Event, match: Match, table: str, slot: str) -> dict[str, str | None]:
        board = event.board(match.set, int(slot))
        seats = match.seats(table)
        return {"round": str(match.round), "match": match.id, "table": table, "board": slot,
                "ns_team": event.team(seats["NS"]).name, "ew_team": event.team(seats["EW"]).name,
                "declarer": board.declarer, "level": board.level}

    def sides(self, match: Match, table: str) -> dict[str, str]:
        return {team: side for side, team in match.seats(table).items()}

    def sheet_stored_slot(self, round_number: int, match: str, table: str, slot: str) -> Slot:
        return (round_number, match, table, int(slot))

    def twin_slot(self, round_number: int, match: str, table: str, slot: str) -> Slot:
        return (round_number, match, "B" if table == "A" else "A", int(slot))


class TableResults(ResultKind):
    """计时制, a level race: each table's final levels (and the last game's winner), its tables
    playing no deal in common."""

    name = "levels"
    table = LEVELS
    layout = validate.LEVEL_LAYOUT
    value_field = "home_level"
    own_fields = ("home_level", "away_level", "last_game", "home_games", "away_games")
    typed_fields = own_fields
    expect_current = False
    kept = (*own_fields, "note")
    template = ("round", "match", "table", "home_team", "away_team", *own_fields, "note")

    def validate(self, event: Event, source: str | None, row: RawRow,
                 check_plausible: bool) -> tuple[LevelEntry | None, list[Problem]]:
        return validate.validate_level_row(event, source, row)

    def stored_slot(self, values: Values) -> Slot:
        round_number, match, table = validate.table_stored_slot(values)
        return (round_number, match, table)

    def stored_match(self, values: Values) -> tuple[int, str]:
        return validate.table_stored_slot(values, table=False)[:2]

    def withdrawal(self, row: sqlite3.Row, note: str | None, entered_by: str | None) -> LevelEntry:
        return LevelEntry(row["round"], row["match"], row["tbl"], None, None, home_team=row["home_team"],
                          away_team=row["away_team"], note=note, entered_by=entered_by, withdrawn=True)

    def slot_text(self, slot: Slot) -> Phrase:
        return validate.table_slot_text((slot[0], slot[1], slot[2]))

    def stored_value(self, row: sqlite3.Row) -> Phrase:
        return validate.table_stored_value(row)

    def misattributed(self, event: Event, store: ResultsStore,
                      matches: set[tuple[int, str]] | None) -> list[Misattributed]:
        return validate.level_attribution_problems(event, store, matches)

    def slots(self, event: Event, match: Match) -> list[dict[str, str | int]]:
        """Every table of ``match``: its teams by name."""
        names = {t.id: t.name for t in event.teams}
        return [{"round": match.round, "match": match.id, "table": table, "home_team": names[match.home],
                 "away_team": names[match.away]} for table in range(1, event.tables + 1)]

    def asked_table(self, text: str | None) -> int | None:
        if text is None:
            return None
        number = validate.table_number(text)  # as every entry of a level race reads it
        if number is None:
            raise UserError("cli.bad_level_table", field="table", table=quote(text),
                            expected=Phrase("level_result.table_expected"))
        return number

    def history_value(self, row: StoredRow) -> Phrase:
        if row["last_game"]:
            return Phrase.of("said_history.levels_last", home=row["home_level"], away=row["away_level"],
                             last_game=row["last_game"])
        return Phrase.of("said_history.levels", home=row["home_level"], away=row["away_level"])

    def history_line(self, row: StoredRow, value: Phrase | str, trail: Mapping[str, object]) -> Phrase:
        return Phrase.of("said_history.level_line", id=row.id, round=row.round, match=row.match, table=row.table,
                         value=value, **trail)

    def sheet_slots(self, event: Event, match: Match) -> tuple[str, ...]:
        return (LEVEL_SLOT,)

    def board_of(self, slot: str) -> None:
        return None

    def sheet_values(self, event: Event, match: Match, table: str, slot: str) -> dict[str, str | None]:
        return {"round": str(match.round), "match": match.id, "table": table,
                "home_team": event.team(match.home).name, "away_team": event.team(match.away).name}

    def sides(self, match: Match, table: str) -> dict[str, str]:
        return {}

    def sheet_stored_slot(self, round_number: int, match: str, table: str, slot: str) -> Slot:
        return (round_number, match, int(table))

    def twin_slot(self, round_number: int, match: str, table: str, slot: str) -> None:
        return None


BOARD_RESULTS = BoardResults()
TABLE_RESULTS = TableResults()
#: The kinds by the event's ``result``.
KINDS: dict[str, ResultKind] = {kind.name: kind for kind in (BOARD_RESULTS, TABLE_RESULTS)}
#: What a table's page may type for a result of any kind (a refused entry's form is filled again
#: from it; the console's settling form posts it).
TYPED_FIELDS = tuple(dict.fromkeys(name for kind in KINDS.values() for name in kind.typed_fields))


def kind_of(event: Event) -> ResultKind:
    return KINDS[event.result]
