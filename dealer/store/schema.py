"""The results database's tables, declared once as data: the columns each chain link covers, the
keys no second row may repeat, the slot of a first entry; the append-only guards (three triggers
per table: no update, no delete, no replace) and the views of the current results are generated
from that declaration, text for text the statements the tool has always written (the audit
compares them with ``sqlite_master``; ``tests/test_store_schema.py`` holds the frozen reference).

A result kind (:data:`BOARDS`, :data:`LEVELS`) is its table with what the two kinds do not share
said as data: the slot, the columns scoring reads, how a match was seated, the entry it stores.
The migrations that make these tables are in :mod:`dealer.store.migrations`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from dealer.store.rows import Entry, LevelEntry, LevelSeating, Seating


def _sql_text(text: str) -> str:
    """``text`` as an SQL string literal's content (a quote doubled)."""
    return text.replace("'", "''")


@dataclass(frozen=True)
class Table:
    """One append-only table: its guards are generated from this."""

    name: str
    #: The columns each chain link covers, in order (``seq`` and the table name come first); of
    #: ``meta`` (not in the chain), its two columns.
    columns: tuple[str, ...]
    #: The keys no second row may repeat, each as its columns (an ``INSERT OR REPLACE`` that would
    #: conflict on one is refused before its conflict clause deletes anything).
    unique: tuple[tuple[str, ...], ...]
    #: What the guards say when they refuse an update, a delete, a replacing insert.
    no_update: str
    no_delete: str
    no_replace: str
    #: The slot of a first entry: at most one row per slot supersedes nothing (results only).
    first_entry: tuple[str, ...] = ()
    #: Columns of a unique key whose NULL counts as a value (compared with ``IS``).
    null_is_value: frozenset[str] = frozenset()
    chained: bool = True

    @property
    def superseded(self) -> bool:
        """Whether a row is corrected by a later one that ``supersedes`` it (the results)."""
        return "supersedes" in self.columns

    def _conflicts(self) -> list[str]:
        found = []
        for key in self.unique:
            same = " AND ".join(f"{c} IS NEW.{c}" if c in self.null_is_value else f"{c} = NEW.{c}" for c in key)
            found.append(f"EXISTS (SELECT 1 FROM {self.name} WHERE {same})")
        if self.first_entry:
            same = " AND ".join(f"{c} = NEW.{c}" for c in self.first_entry)
            found.append(f"(NEW.supersedes IS NULL AND EXISTS (SELECT 1 FROM {self.name} WHERE {same} "
                         "AND supersedes IS NULL))")
        return found

    def triggers(self) -> dict[str, str]:
        """The table's append-only guards by name, as the tool writes them."""
        t = self.name
        return {
            f"{t}_no_update": f"CREATE TRIGGER {t}_no_update BEFORE UPDATE ON {t} "
                              f"BEGIN SELECT RAISE(ABORT, '{_sql_text(self.no_update)}'); END",
            f"{t}_no_delete": f"CREATE TRIGGER {t}_no_delete BEFORE DELETE ON {t} "
                              f"BEGIN SELECT RAISE(ABORT, '{_sql_text(self.no_delete)}'); END",
            # One EXISTS per constraint, so that each is an index lookup.
            f"{t}_no_replace": f"CREATE TRIGGER {t}_no_replace BEFORE INSERT ON {t} WHEN "
                               + " OR ".join(self._conflicts())
                               + f" BEGIN SELECT RAISE(ABORT, '{_sql_text(self.no_replace)}'); END",
        }

    @property
    def current_view(self) -> str:
        """The view of the rows nobody supersedes (``""`` for a table without corrections)."""
        return "" if not self.superseded else f"current_{self.name}"

    def view(self) -> str:
        t = self.name
        return (f"CREATE VIEW {self.current_view} AS SELECT r.* FROM {t} r "
                f"WHERE NOT EXISTS (SELECT 1 FROM {t} s WHERE s.supersedes = r.id)")


def _append_only(name: str, columns: tuple[str, ...], unique: tuple[tuple[str, ...], ...], says: str,
                 **more: Any) -> Table:
    """A table whose three guards say the same thing."""
    return Table(name, columns, unique, says, says, says, **more)


#: What the guards of both result tables say.
_RESULTS_SAY = ("results are append-only: use a correction", "results are append-only: nothing is deleted",
                "results are append-only: nothing is replaced")

#: Board results: one row per (round, match, table, board) entry; a correction supersedes it.
RESULTS = Table(
    "results",
    ("id", "round", "match", "tbl", "board", "defenders_points", "withdrawn", "trump", "declarer", "level",
     "ns_team", "ew_team", "played_set", "note", "entered_by", "entered_at", "import_id", "source_row",
     "supersedes", "reason"),
    (("id",), ("seq",), ("supersedes",)), *_RESULTS_SAY, first_entry=("round", "match", "tbl", "board"))
#: The import log: every file, addition and correction, with the rows it added.
IMPORTS = _append_only(
    "imports", ("id", "source", "sha256", "kind", "rows_added", "rows_skipped", "entered_by", "at", "sample"),
    (("id",), ("seq",)), "the import log is append-only")
#: The director's actions (round pairings and their undoing, forfeits, lateness, the event's
#: end): one row each.
ACTIONS = _append_only(
    "actions", ("id", "kind", "round", "data", "reason", "undoes", "entered_by", "at"),
    (("id",), ("seq",), ("undoes",)), "the director's actions are append-only")
#: A level race's table results (``result = "levels"``): the final level of each side, the last
#: game's winner (``home``/``away``, for a tie) and, optionally, the games won.
LEVEL_RESULTS = Table(
    "level_results",
    ("id", "round", "match", "tbl", "home_level", "away_level", "last_game", "home_games", "away_games",
     "withdrawn", "home_team", "away_team", "note", "entered_by", "entered_at", "import_id", "source_row",
     "supersedes", "reason"),
    (("id",), ("seq",), ("supersedes",)), *_RESULTS_SAY, first_entry=("round", "match", "tbl"))
#: What the director made public (``dealer release``): a board set's hands (``kind`` "set") or
#: the key (``kind`` "key", no set), each once, with when and why; and the sets declared unused
#: (``kind`` "unused": never shown as played, public only through the key).
RELEASES = _append_only(
    "releases", ("id", "kind", "set_number", "reason", "entered_by", "at"),
    (("id",), ("seq",), ("kind", "set_number")), "releases are append-only",
    null_is_value=frozenset({"set_number"}))
#: The director's penalties and warnings (``dealer results penalty`` / ``warn``): one row each, a
#: withdrawal (``kind`` "undo") naming the row it undoes; what each does is in ``data``.
PENALTIES = _append_only(
    "penalties", ("id", "kind", "round", "match", "team", "data", "reason", "undoes", "entered_by", "at"),
    (("id",), ("seq",), ("undoes",)), "penalties are append-only: withdraw one with --withdraw")
#: Line-ups (上场名单): the pair of a team's registered players at each table of its match in one
#: round (``tables``: JSON, table → players); a change before the round's first result is a row
#: that ``supersedes`` the one it replaces, with the reason.
LINEUPS = Table(
    "lineups", ("id", "round", "team", "tables", "supersedes", "reason", "entered_by", "at"),
    (("id",), ("seq",), ("supersedes",)), "line-ups are append-only: record a change",
    "line-ups are append-only: nothing is deleted", "line-ups are append-only: nothing is replaced",
    first_entry=("round", "team"))
#: Appeals (申诉 → 仲裁, ``dealer results appeal``): an appeal lodged (``kind`` "lodge") and the
#: decision on it (``kind`` "decide", naming it in ``decides``), one row each.
APPEALS = _append_only(
    "appeals", ("id", "kind", "round", "team", "against", "reason", "deadline", "decides", "decision",
                "entered_by", "at"),
    (("id",), ("seq",), ("decides",)), "appeals are append-only: an appeal is decided once")
#: The event's identity, when the database was made, the chain's tag, the result kind: fixed.
META = _append_only("meta", ("key", "value"), (("key",),), "meta is fixed", chained=False)

#: Every chained table, in the order the chain's readers take them (a link number two rows
#: share is reported in this order).
CHAINED_TABLES = (IMPORTS, RESULTS, ACTIONS, LEVEL_RESULTS, RELEASES, PENALTIES, LINEUPS, APPEALS)
#: Every table the tool guards, in the order its guards are made and checked.
GUARDED_TABLES = (RESULTS, IMPORTS, ACTIONS, LEVEL_RESULTS, RELEASES, PENALTIES, LINEUPS, APPEALS, META)

RESULT_COLUMNS = RESULTS.columns
IMPORT_COLUMNS = IMPORTS.columns
ACTION_COLUMNS = ACTIONS.columns
LEVEL_COLUMNS = LEVEL_RESULTS.columns
RELEASE_COLUMNS = RELEASES.columns
PENALTY_COLUMNS = PENALTIES.columns
LINEUP_COLUMNS = LINEUPS.columns
APPEAL_COLUMNS = APPEALS.columns
#: Every chained table and the columns its links cover.
CHAINED: dict[str, tuple[str, ...]] = {t.name: t.columns for t in CHAINED_TABLES}
#: The columns each table has: those its links cover, and the link (``meta``: its two).
TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    META.name: META.columns, **{t.name: (*t.columns, "seq", "chain") for t in CHAINED_TABLES}}
#: The chained tables whose rows an import record counts.
IMPORTED = ("results", "level_results")
ALL_LINKS = " UNION ALL ".join(f"SELECT seq, chain FROM {table}" for table in CHAINED)


@dataclass(frozen=True)
class WorkingTable:
    """A table of live entry's working state (``dealer serve``): outside the chain, since what a
    table typed before the other side confirmed it is not a result (a confirmed entry becomes
    one, in the chain, in the transaction that marks it confirmed). Written and read only by
    :mod:`dealer.store.live`, whose statements name these columns; the migrations that make
    them are 11 and 12."""

    name: str
    columns: tuple[str, ...]
    #: The columns no two rows share.
    key: tuple[str, ...]


#: A printed sheet: its generation (a reprint or an undone pairing makes the next), its lock
#: after wrong team codes, and the recap confirmed by each side.
LIVE_SHEETS = WorkingTable(
    "live_sheets", ("round", "match", "tbl", "generation", "wrong_codes", "locked_at", "recap_scorer_at",
                    "recap_confirmer_at"), ("round", "match", "tbl"))
#: Every entry, in order (``state``: entered, confirmed, conflict, replaced).
LIVE_ENTRIES = WorkingTable(
    "live_entries", ("id", "round", "match", "tbl", "slot", "generation", "fields", "device", "at", "state",
                     "confirmed_by", "confirmed_at", "result_import"), ("id",))
#: Each form's server nonce, spent once, with what its request did (a retry gets that answer).
LIVE_NONCES = WorkingTable("live_nonces", ("nonce", "at", "outcome"), ("nonce",))
#: Every write, with the sheet, device, address and time.
LIVE_LOG = WorkingTable(
    "live_log", ("id", "at", "round", "match", "tbl", "action", "slot", "device", "address", "agent", "detail"),
    ("id",))
#: Who opened a sheet, and when last.
LIVE_DEVICES = WorkingTable(
    "live_devices", ("round", "match", "tbl", "device", "first_at", "last_at", "address", "agent"),
    ("round", "match", "tbl", "device"))
#: What the director clears before the round closes (a conflict, results far apart, devices).
LIVE_FLAGS = WorkingTable(
    "live_flags", ("id", "round", "match", "tbl", "slot", "kind", "detail", "at", "cleared_at", "cleared_by",
                   "reason"), ("id",))
#: A director's one-time link and the session it opened (each token only as its SHA-256).
LIVE_DIRECTORS = WorkingTable(
    "live_directors", ("link", "made_at", "used_at", "session", "expires_at", "address", "agent"), ("link",))
#: The devices that wrote on a sheet, by its generation (a third one raises the devices flag).
LIVE_WRITERS = WorkingTable(
    "live_writers", ("round", "match", "tbl", "generation", "writer", "first_at", "address", "agent"),
    ("round", "match", "tbl", "generation", "writer"))
#: Live entry's working tables: checked for their columns at every open, like the chained ones.
LIVE_TABLES = (LIVE_SHEETS, LIVE_ENTRIES, LIVE_NONCES, LIVE_LOG, LIVE_DEVICES, LIVE_FLAGS, LIVE_DIRECTORS,
               LIVE_WRITERS)

#: Append-only guards, by name; checked at every open and by the audit (exact SQL).
TRIGGERS: dict[str, str] = {name: sql for t in GUARDED_TABLES for name, sql in t.triggers().items()}
#: The views every query reads, checked like the triggers.
VIEWS: dict[str, str] = {t.current_view: t.view() for t in GUARDED_TABLES if t.superseded}
#: The table each guard and view is on: one on a table an older schema lacks is checked once the
#: migration made it (a missing chained table is refused when the database is opened).
GUARDED_TABLE: dict[str, str] = {
    **{name: t.name for t in GUARDED_TABLES for name in t.triggers()},
    **{t.current_view: t.name for t in GUARDED_TABLES if t.superseded}}

#: What ``meta`` may hold: the event, when the database was made, the chain's tag, and the kind
#: of results the event records (``boards`` or ``levels``; absent in an old database that holds
#: no result yet).
META_KEYS = ("event", "created", "chain", "result")

#: The columns of a stored result row that its import, not its entry, gives.
RECORD_COLUMNS = ("id", "entered_at", "import_id", "supersedes", "reason")

EntryT = TypeVar("EntryT", Entry, LevelEntry)
SeatingT = TypeVar("SeatingT", Seating, LevelSeating)
#: A slot: (round, match, table, board) of a board result, (round, match, table) of a level race's.
SlotT = TypeVar("SlotT", tuple[int, str, str, int], tuple[int, str, int])


@dataclass(frozen=True)
class ResultTable(Generic[EntryT, SeatingT, SlotT]):
    """A result kind as the store keeps it: its table, and where the kinds differ, as data."""

    #: The event's ``result``: ``boards`` or ``levels``.
    name: str
    table: Table
    #: The columns of a slot, the unit a correction supersedes.
    slot: tuple[str, ...]
    #: What scoring reads of every current, non-withdrawn row, in order.
    scoring: tuple[str, ...]
    #: How a match was seated, as the current rows record it (one of each, distinct).
    seating: tuple[str, ...]
    seating_row: Callable[..., SeatingT]
    #: The entry it stores (a field per column its entries give; ``table`` is column ``tbl``).
    entry: type[EntryT]
    #: Column → key, where the kind's JSON (``results history --json``) names a column otherwise.
    json_names: Mapping[str, str] = field(default_factory=dict)

    @property
    def view(self) -> str:
        return self.table.current_view

    @property
    def entered(self) -> tuple[str, ...]:
        """The columns an entry gives (the others come with its import)."""
        return tuple(c for c in self.table.columns if c not in RECORD_COLUMNS)


def entry_field(column: str) -> str:
    """The field of an entry that gives ``column``."""
    return "table" if column == "tbl" else column


#: Board results: N-S and E-W teams and the set each table played; points, trump, declarer, level.
BOARDS: ResultTable[Entry, Seating, tuple[int, str, str, int]] = ResultTable(
    "boards", RESULTS, ("round", "match", "tbl", "board"),
    scoring=("round", "match", "tbl", "board", "defenders_points", "trump"),
    seating=("round", "match", "tbl", "played_set", "ns_team", "ew_team"), seating_row=Seating, entry=Entry,
    json_names={"tbl": "table"})
#: A level race's table results: home and away teams per match; the final levels, games won.
LEVELS: ResultTable[LevelEntry, LevelSeating, tuple[int, str, int]] = ResultTable(
    "levels", LEVEL_RESULTS, ("round", "match", "tbl"),
    scoring=("round", "match", "tbl", "home_level", "away_level", "last_game", "home_games", "away_games"),
    seating=("round", "match", "home_team", "away_team"), seating_row=LevelSeating, entry=LevelEntry)
#: The result kinds by the event's ``result``.
RESULT_TABLES: dict[str, ResultTable[Any, Any, Any]] = {kind.name: kind for kind in (BOARDS, LEVELS)}


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """The columns ``table`` has (none: no such table)."""
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def create_triggers(conn: sqlite3.Connection) -> None:
    for name, sql in TRIGGERS.items():
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        conn.execute(sql)


def kind_by_content(conn: sqlite3.Connection) -> str | None:
    """The result kind the rows show: ``levels`` (a level race's table results), ``boards``
    (board results or releases), or ``None`` (nothing that tells: no result yet)."""
    present = tables(conn)
    if "level_results" in present and conn.execute("SELECT 1 FROM level_results LIMIT 1").fetchone():
        return "levels"
    if conn.execute("SELECT 1 FROM results LIMIT 1").fetchone() or \
            ("releases" in present and conn.execute("SELECT 1 FROM releases LIMIT 1").fetchone()):
        return "boards"
    return None

