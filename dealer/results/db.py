"""The results database: SQLite in the event's folder (``boards/<event>/results.sqlite``).

* WAL journal, foreign keys on, a busy timeout, and every write in one ``BEGIN IMMEDIATE``
  transaction: concurrent writers queue instead of failing, a killed process leaves nothing
  half-written.
* Append-only: triggers refuse ``UPDATE`` and ``DELETE``, and ``INSERT OR REPLACE`` (which
  would delete a row without firing a delete trigger) is refused before it can replace anything.
  A correction is a new row that ``supersedes`` the current one and records who, when and why;
  the current value of a slot (round, match, table, board) is the row nobody supersedes.
* Tamper-evident: every row of ``imports`` and ``results`` carries ``seq`` (1, 2, 3 … over both
  tables, in the order the tool wrote them) and ``chain`` = SHA-256(previous chain || the row's
  canonical content). :meth:`ResultsStore.audit` re-walks the chain and names every row edited,
  deleted or added behind the tool's back, and every trigger dropped or changed; every write
  first checks the last link; reports print the chain head, so a rewrite after publication shows
  against the published report.
* Owner-only (0600) whatever the umask; read-only commands open it read-only (``mode=ro``, or
  ``immutable`` on a read-only medium) and never create it.
* Versioned schema (``PRAGMA user_version``) with forward migrations in :data:`MIGRATIONS`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any

from dealer.errors import EnvironmentProblem, FileProblem, Phrase, UserError, quote
from dealer.store.files import OWNER_ONLY, make_folder, os_problem

BUSY_TIMEOUT_S = 60.0
CHAIN_TAG = b"shengji-dealer/results-chain/v1\x00"

#: Append-only guards, by name; checked at every open and by the audit (exact SQL).
TRIGGERS: dict[str, str] = {
    name: sql.strip() for name, sql in {
        "results_no_update": "CREATE TRIGGER results_no_update BEFORE UPDATE ON results "
                             "BEGIN SELECT RAISE(ABORT, 'results are append-only: use a correction'); END",
        "results_no_delete": "CREATE TRIGGER results_no_delete BEFORE DELETE ON results "
                             "BEGIN SELECT RAISE(ABORT, 'results are append-only: nothing is deleted'); END",
        # INSERT OR REPLACE deletes a conflicting row without firing the delete trigger: refuse
        # any insert that would conflict, before the conflict clause applies.
        # (One EXISTS per constraint, so that each is an index lookup.)
        "results_no_replace": "CREATE TRIGGER results_no_replace BEFORE INSERT ON results WHEN "
                              "EXISTS (SELECT 1 FROM results WHERE id = NEW.id) "
                              "OR EXISTS (SELECT 1 FROM results WHERE seq = NEW.seq) "
                              "OR EXISTS (SELECT 1 FROM results WHERE supersedes = NEW.supersedes) "
                              "OR (NEW.supersedes IS NULL AND EXISTS (SELECT 1 FROM results WHERE "
                              "round = NEW.round AND match = NEW.match AND tbl = NEW.tbl AND board = NEW.board "
                              "AND supersedes IS NULL)) "
                              "BEGIN SELECT RAISE(ABORT, 'results are append-only: nothing is replaced'); END",
        "imports_no_update": "CREATE TRIGGER imports_no_update BEFORE UPDATE ON imports "
                             "BEGIN SELECT RAISE(ABORT, 'the import log is append-only'); END",
        "imports_no_delete": "CREATE TRIGGER imports_no_delete BEFORE DELETE ON imports "
                             "BEGIN SELECT RAISE(ABORT, 'the import log is append-only'); END",
        "imports_no_replace": "CREATE TRIGGER imports_no_replace BEFORE INSERT ON imports WHEN "
                              "EXISTS (SELECT 1 FROM imports WHERE id = NEW.id) "
                              "OR EXISTS (SELECT 1 FROM imports WHERE seq = NEW.seq) "
                              "BEGIN SELECT RAISE(ABORT, 'the import log is append-only'); END",
        "actions_no_update": "CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions "
                             "BEGIN SELECT RAISE(ABORT, 'the director''s actions are append-only'); END",
        "actions_no_delete": "CREATE TRIGGER actions_no_delete BEFORE DELETE ON actions "
                             "BEGIN SELECT RAISE(ABORT, 'the director''s actions are append-only'); END",
        "actions_no_replace": "CREATE TRIGGER actions_no_replace BEFORE INSERT ON actions WHEN "
                              "EXISTS (SELECT 1 FROM actions WHERE id = NEW.id) "
                              "OR EXISTS (SELECT 1 FROM actions WHERE seq = NEW.seq) "
                              "OR EXISTS (SELECT 1 FROM actions WHERE undoes = NEW.undoes) "
                              "BEGIN SELECT RAISE(ABORT, 'the director''s actions are append-only'); END",
        "level_results_no_update": "CREATE TRIGGER level_results_no_update BEFORE UPDATE ON level_results "
                                   "BEGIN SELECT RAISE(ABORT, 'results are append-only: use a correction'); END",
        "level_results_no_delete": "CREATE TRIGGER level_results_no_delete BEFORE DELETE ON level_results "
                                   "BEGIN SELECT RAISE(ABORT, 'results are append-only: nothing is deleted'); END",
        "level_results_no_replace": "CREATE TRIGGER level_results_no_replace BEFORE INSERT ON level_results WHEN "
                                    "EXISTS (SELECT 1 FROM level_results WHERE id = NEW.id) "
                                    "OR EXISTS (SELECT 1 FROM level_results WHERE seq = NEW.seq) "
                                    "OR EXISTS (SELECT 1 FROM level_results WHERE supersedes = NEW.supersedes) "
                                    "OR (NEW.supersedes IS NULL AND EXISTS (SELECT 1 FROM level_results WHERE "
                                    "round = NEW.round AND match = NEW.match AND tbl = NEW.tbl "
                                    "AND supersedes IS NULL)) "
                                    "BEGIN SELECT RAISE(ABORT, 'results are append-only: nothing is replaced'); END",
        "releases_no_update": "CREATE TRIGGER releases_no_update BEFORE UPDATE ON releases "
                              "BEGIN SELECT RAISE(ABORT, 'releases are append-only'); END",
        "releases_no_delete": "CREATE TRIGGER releases_no_delete BEFORE DELETE ON releases "
                              "BEGIN SELECT RAISE(ABORT, 'releases are append-only'); END",
        "releases_no_replace": "CREATE TRIGGER releases_no_replace BEFORE INSERT ON releases WHEN "
                               "EXISTS (SELECT 1 FROM releases WHERE id = NEW.id) "
                               "OR EXISTS (SELECT 1 FROM releases WHERE seq = NEW.seq) "
                               "OR EXISTS (SELECT 1 FROM releases WHERE kind = NEW.kind AND "
                               "set_number IS NEW.set_number) "
                               "BEGIN SELECT RAISE(ABORT, 'releases are append-only'); END",
        "meta_no_update": "CREATE TRIGGER meta_no_update BEFORE UPDATE ON meta "
                          "BEGIN SELECT RAISE(ABORT, 'meta is fixed'); END",
        "meta_no_delete": "CREATE TRIGGER meta_no_delete BEFORE DELETE ON meta "
                          "BEGIN SELECT RAISE(ABORT, 'meta is fixed'); END",
        "meta_no_replace": "CREATE TRIGGER meta_no_replace BEFORE INSERT ON meta WHEN "
                           "EXISTS (SELECT 1 FROM meta WHERE key = NEW.key) "
                           "BEGIN SELECT RAISE(ABORT, 'meta is fixed'); END",
    }.items()
}
CURRENT_VIEW = ("CREATE VIEW current_results AS SELECT r.* FROM results r "
                "WHERE NOT EXISTS (SELECT 1 FROM results s WHERE s.supersedes = r.id)")
CURRENT_LEVEL_VIEW = ("CREATE VIEW current_level_results AS SELECT r.* FROM level_results r "
                      "WHERE NOT EXISTS (SELECT 1 FROM level_results s WHERE s.supersedes = r.id)")
#: The views every query reads, checked like the triggers.
VIEWS = {"current_results": CURRENT_VIEW, "current_level_results": CURRENT_LEVEL_VIEW}
#: The table each guard and view is on: one on a table an older schema lacks is checked once the
#: migration made it (a missing chained table is refused when the database is opened).
_GUARDED_TABLE = {name: sql.split(" ON ", 1)[1].split()[0] if " ON " in sql else sql.split(" FROM ", 1)[1].split()[0]
                  for name, sql in {**TRIGGERS, **VIEWS}.items()}

#: The columns each chain link covers, in order (``seq`` and the table name come first).
RESULT_COLUMNS = ("id", "round", "match", "tbl", "board", "defenders_points", "withdrawn", "trump",
                  "declarer", "level", "ns_team", "ew_team", "played_set", "note", "entered_by",
                  "entered_at", "import_id", "source_row", "supersedes", "reason")
IMPORT_COLUMNS = ("id", "source", "sha256", "kind", "rows_added", "rows_skipped", "entered_by", "at",
                  "sample")
#: The director's actions (round pairings and their undoing, forfeits, lateness, the event's
#: end): one row each.
ACTION_COLUMNS = ("id", "kind", "round", "data", "reason", "undoes", "entered_by", "at")
#: A level race's table results (``result = "levels"``): the final level of each side, the last
#: game's winner (``home``/``away``, for a tie) and, optionally, the games won.
LEVEL_COLUMNS = ("id", "round", "match", "tbl", "home_level", "away_level", "last_game", "home_games",
                 "away_games", "withdrawn", "home_team", "away_team", "note", "entered_by", "entered_at",
                 "import_id", "source_row", "supersedes", "reason")
#: What the director made public (``dealer release``): a board set's hands (``kind`` "set") or
#: the key (``kind`` "key", no set), each once, with when and why; and the sets declared unused
#: (``kind`` "unused": never shown as played, public only through the key).
RELEASE_COLUMNS = ("id", "kind", "set_number", "reason", "entered_by", "at")
#: Every chained table and the columns its links cover.
CHAINED: dict[str, tuple[str, ...]] = {"imports": IMPORT_COLUMNS, "results": RESULT_COLUMNS,
                                       "actions": ACTION_COLUMNS, "level_results": LEVEL_COLUMNS,
                                       "releases": RELEASE_COLUMNS}
#: The chained tables whose rows an import record counts.
IMPORTED = ("results", "level_results")
_ALL_LINKS = " UNION ALL ".join(f"SELECT seq, chain FROM {table}" for table in CHAINED)


def _create_triggers(conn: sqlite3.Connection) -> None:
    for name, sql in TRIGGERS.items():
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
        conn.execute(sql)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _migration_1(conn: sqlite3.Connection) -> None:
    """imports, results (append-only, corrections by supersession), event identity."""
    conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    conn.execute("""
        CREATE TABLE IF NOT EXISTS imports (
            id INTEGER PRIMARY KEY,
            source TEXT NOT NULL,          -- file path, 'add' or 'correct'
            sha256 TEXT,                   -- content hash of an imported file
            kind TEXT NOT NULL CHECK (kind IN ('file', 'add', 'correct')),
            rows_added INTEGER NOT NULL,
            rows_skipped INTEGER NOT NULL,
            entered_by TEXT,
            at TEXT NOT NULL
        )""")
    conn.execute("""
        CREATE TABLE IF NOT EXISTS results (
            id INTEGER PRIMARY KEY,
            round INTEGER NOT NULL,
            match TEXT NOT NULL,
            tbl TEXT NOT NULL CHECK (tbl IN ('A', 'B')),
            board INTEGER NOT NULL CHECK (board >= 1),
            defenders_points INTEGER CHECK (defenders_points % 5 = 0),
            withdrawn INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1)),
            trump TEXT,
            declarer TEXT,
            level TEXT,
            ns_team TEXT,
            ew_team TEXT,
            note TEXT,
            entered_by TEXT,
            entered_at TEXT NOT NULL,
            import_id INTEGER NOT NULL REFERENCES imports(id),
            source_row INTEGER,
            supersedes INTEGER UNIQUE REFERENCES results(id),
            reason TEXT,
            CHECK (withdrawn = 1 OR defenders_points IS NOT NULL),
            CHECK (supersedes IS NULL OR (reason IS NOT NULL AND length(trim(reason)) > 0))
        )""")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS results_first_entry ON results (round, match, tbl, board)"
                 " WHERE supersedes IS NULL")
    conn.execute("CREATE INDEX IF NOT EXISTS results_slot ON results (round, match, tbl, board)")
    conn.execute(f"CREATE VIEW IF NOT EXISTS current_results AS {CURRENT_VIEW.split(' AS ', 1)[1]}")


def _migration_2(conn: sqlite3.Connection) -> None:
    """imports.sample: the file said it is sample data (first line "# sample data" / "# 样例数据").
    Databases made before it: the demo's sample file (sample-travellers.csv) was the only one."""
    if "sample" in _columns(conn, "imports"):  # a user_version set back by hand: already done
        return
    conn.execute("ALTER TABLE imports ADD COLUMN sample INTEGER NOT NULL DEFAULT 0 CHECK (sample IN (0, 1))")
    conn.execute("DROP TRIGGER IF EXISTS imports_no_update")
    conn.execute("UPDATE imports SET sample = 1 WHERE kind = 'file' AND source LIKE '%sample-travellers.csv'")


def _migration_3(conn: sqlite3.Connection) -> None:
    """results.played_set (the set a result was played on; its seating is ns_team/ew_team); the
    hash chain (seq, chain) over both tables, linked for the rows already there; triggers that
    refuse INSERT OR REPLACE, and meta made append-only."""
    relink = "chain" not in _columns(conn, "results")  # not when user_version was set back by hand
    if relink and conn.execute("SELECT 1 FROM meta WHERE key = 'chain'").fetchone() is not None:
        # The chain was made once: its columns were removed outside the tool. Linking the rows
        # afresh would launder whatever was changed with them.
        raise FileProblem("store.chain_columns_gone", hint="audit")
    for table, column, kind in (("results", "played_set", "INTEGER"), ("results", "seq", "INTEGER"),
                                ("results", "chain", "TEXT"), ("imports", "seq", "INTEGER"),
                                ("imports", "chain", "TEXT")):
        if column not in _columns(conn, table):
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
    for name in TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    event_id = conn.execute("SELECT value FROM meta WHERE key = 'event'").fetchone()
    previous = genesis(event_id[0] if event_id else "")
    seq = 0
    old_imports = conn.execute("SELECT * FROM imports ORDER BY id").fetchall() if relink else []
    for import_row in old_imports:
        # Old databases: each import's rows follow it, as the tool wrote them.
        seq += 1
        previous = link(previous, seq, "imports", import_row)
        conn.execute("UPDATE imports SET seq = ?, chain = ? WHERE id = ?", (seq, previous.hex(), import_row["id"]))
        for row in conn.execute("SELECT * FROM results WHERE import_id = ? ORDER BY id",
                                (import_row["id"],)).fetchall():
            seq += 1
            previous = link(previous, seq, "results", row)
            conn.execute("UPDATE results SET seq = ?, chain = ? WHERE id = ?", (seq, previous.hex(), row["id"]))
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS results_seq ON results (seq)")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS imports_seq ON imports (seq)")
    if relink:
        conn.execute("INSERT INTO meta (key, value) VALUES ('chain', ?)", (CHAIN_TAG[:-1].decode(),))


def _migration_4(conn: sqlite3.Connection) -> None:
    """actions: the director's round pairings, undos, forfeits and lateness, in the chain."""
    conn.execute("""
        CREATE TABLE IF NOT EXISTS actions (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('pair', 'undo', 'forfeit', 'late')),
            round INTEGER NOT NULL CHECK (round >= 1),
            data TEXT NOT NULL,
            reason TEXT,
            undoes INTEGER REFERENCES actions (id),
            entered_by TEXT,
            at TEXT NOT NULL,
            seq INTEGER,
            chain TEXT,
            CHECK ((kind = 'undo') = (undoes IS NOT NULL))
        )""")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS actions_seq ON actions (seq)")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS actions_undoes ON actions (undoes)")


def _migration_5(conn: sqlite3.Connection) -> None:
    """level_results: a level race's table results, in the chain, append-only like results."""
    conn.execute("""
        CREATE TABLE IF NOT EXISTS level_results (
            id INTEGER PRIMARY KEY,
            round INTEGER NOT NULL,
            match TEXT NOT NULL,
            tbl INTEGER NOT NULL CHECK (tbl >= 1),
            home_level TEXT,
            away_level TEXT,
            last_game TEXT CHECK (last_game IN ('home', 'away')),
            home_games INTEGER CHECK (home_games >= 0),
            away_games INTEGER CHECK (away_games >= 0),
            withdrawn INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1)),
            home_team TEXT,
            away_team TEXT,
            note TEXT,
            entered_by TEXT,
            entered_at TEXT NOT NULL,
            import_id INTEGER NOT NULL REFERENCES imports(id),
            source_row INTEGER,
            supersedes INTEGER UNIQUE REFERENCES level_results(id),
            reason TEXT,
            seq INTEGER,
            chain TEXT,
            CHECK (withdrawn = 1 OR (home_level IS NOT NULL AND away_level IS NOT NULL)),
            CHECK (supersedes IS NULL OR (reason IS NOT NULL AND length(trim(reason)) > 0))
        )""")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS level_results_first_entry ON level_results (round, match, tbl)"
                 " WHERE supersedes IS NULL")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS level_results_seq ON level_results (seq)")
    conn.execute(f"CREATE VIEW IF NOT EXISTS current_level_results AS {CURRENT_LEVEL_VIEW.split(' AS ', 1)[1]}")


def _migration_6(conn: sqlite3.Connection) -> None:
    """releases: the sets whose hands the director made public, and the key, in the chain."""
    conn.execute("""
        CREATE TABLE IF NOT EXISTS releases (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('set', 'key')),
            set_number INTEGER CHECK (set_number >= 1),
            reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
            entered_by TEXT,
            at TEXT NOT NULL,
            seq INTEGER,
            chain TEXT,
            CHECK ((kind = 'set') = (set_number IS NOT NULL))
        )""")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS releases_seq ON releases (seq)")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS releases_once ON releases (kind, coalesce(set_number, 0))")


def _rebuild(conn: sqlite3.Connection, table: str, create: str, columns: Sequence[str],
             indexes: Sequence[str]) -> None:
    """Make ``table`` again from ``create`` (SQLite cannot change a CHECK constraint in place),
    every row copied as it is (the chain links cover the values, not the table's definition);
    its triggers are dropped with the old table and made again after the migrations."""
    names = ", ".join((*columns, "seq", "chain"))
    conn.execute(f"ALTER TABLE {table} RENAME TO {table}_before_rebuild")
    conn.execute(create)
    conn.execute(f"INSERT INTO {table} ({names}) SELECT {names} FROM {table}_before_rebuild ORDER BY id")
    conn.execute(f"DROP TABLE {table}_before_rebuild")
    for sql in indexes:
        conn.execute(sql)


def _migration_7(conn: sqlite3.Connection) -> None:
    """The end of an event: actions of kind ``end`` (the director declares the event over, with
    a reason; undone like any action), and releases of kind ``unused`` (a set the director
    declares not played: never shown as played, public only through the key)."""
    _rebuild(conn, "actions", """
        CREATE TABLE actions (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('pair', 'undo', 'forfeit', 'late', 'end')),
            round INTEGER NOT NULL CHECK (round >= 1),
            data TEXT NOT NULL,
            reason TEXT,
            undoes INTEGER REFERENCES actions (id),
            entered_by TEXT,
            at TEXT NOT NULL,
            seq INTEGER,
            chain TEXT,
            CHECK ((kind = 'undo') = (undoes IS NOT NULL)),
            CHECK (kind != 'end' OR length(trim(coalesce(reason, ''))) > 0)
        )""", ACTION_COLUMNS, ("CREATE UNIQUE INDEX actions_seq ON actions (seq)",
                               "CREATE UNIQUE INDEX actions_undoes ON actions (undoes)"))
    _rebuild(conn, "releases", """
        CREATE TABLE releases (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('set', 'key', 'unused')),
            set_number INTEGER CHECK (set_number >= 1),
            reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
            entered_by TEXT,
            at TEXT NOT NULL,
            seq INTEGER,
            chain TEXT,
            CHECK ((kind != 'key') = (set_number IS NOT NULL))
        )""", RELEASE_COLUMNS, ("CREATE UNIQUE INDEX releases_seq ON releases (seq)",
                                "CREATE UNIQUE INDEX releases_once ON releases (kind, coalesce(set_number, 0))"))
    kind = _kind_by_content(conn)
    if kind is not None and conn.execute("SELECT 1 FROM meta WHERE key = 'result'").fetchone() is None:
        conn.execute("INSERT INTO meta (key, value) VALUES ('result', ?)", (kind,))


def _kind_by_content(conn: sqlite3.Connection) -> str | None:
    """The result kind the rows show: ``levels`` (a level race's table results), ``boards``
    (board results or releases), or ``None`` (nothing that tells: no result yet)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "level_results" in tables and conn.execute("SELECT 1 FROM level_results LIMIT 1").fetchone():
        return "levels"
    if conn.execute("SELECT 1 FROM results LIMIT 1").fetchone() or \
            ("releases" in tables and conn.execute("SELECT 1 FROM releases LIMIT 1").fetchone()):
        return "boards"
    return None


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _migration_1, _migration_2, _migration_3, _migration_4, _migration_5, _migration_6, _migration_7)
#: What ``meta`` may hold: the event, when the database was made, the chain's tag, and the kind
#: of results the event records (``boards`` or ``levels``; absent in an old database that holds
#: no result yet).
META_KEYS = ("event", "created", "chain", "result")
SCHEMA_VERSION = len(MIGRATIONS)


def genesis(event_id: str) -> bytes:
    """The link before the first row: bound to the event."""
    return hashlib.sha256(CHAIN_TAG + event_id.encode("utf-8")).digest()


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _plain(value: object) -> object:
    """A column value as JSON: what the tool stores as is; anything else (a BLOB written behind
    its back) in a form that cannot be mistaken for it."""
    if value is None or isinstance(value, int | str | float):
        return value
    if isinstance(value, bytes):
        return {"blob": value.hex()}
    return {"value": repr(value)}


def _content(seq: int, table: str, values: Sequence[object]) -> bytes:
    """The canonical JSON of a row: [seq, table, the values of the columns its link covers…]."""
    try:  # plain values (what the tool stores) as they are, in one call of the encoder
        text = _ENCODER.encode([seq, table, *values])
    except TypeError:  # a BLOB written behind the tool's back
        text = _ENCODER.encode([seq, table, *map(_plain, values)])
    return text.encode("utf-8")


def _is_link(text: str) -> bool:
    """Whether ``text`` is written as a chain link is (64 lower-case hexadecimal digits)."""
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def _runs(numbers: Sequence[int]) -> list[tuple[int, int]]:
    """Sorted whole numbers as (first, last) of each run of consecutive ones."""
    runs: list[tuple[int, int]] = []
    for n in numbers:
        if runs and n == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], n)
        else:
            runs.append((n, n))
    return runs


def _constant(column: Sequence[object]) -> bool:
    """Whether every value of ``column`` is the same (and of the same type)."""
    if isinstance(column, range):
        return len(column) <= 1
    if not column:
        return True
    first = column[0]
    return column.count(first) == len(column) and all(type(v) is type(first) for v in set(column))


def _fragments(column: Sequence[object]) -> list[str]:
    """Each value of ``column`` as the JSON :func:`_content` writes for it."""
    if isinstance(column, range):
        return list(map(str, column))
    if _constant(column):
        return [_ENCODER.encode(_plain(column[0]))] * len(column) if len(column) else []
    if type(column[0]) is int and type(column[-1]) is int and all(type(v) is int for v in column):
        return list(map(str, column))  # a whole number's JSON is its decimal form
    try:
        encoded = {value: _ENCODER.encode(_plain(value)) for value in set(column)}
    except TypeError:  # an unhashable value: not what the tool stores
        return [_ENCODER.encode(_plain(value)) for value in column]
    if {type(value) for value in encoded} - {int, str, type(None)}:  # True == 1 == 1.0: one key
        return [_ENCODER.encode(_plain(value)) for value in column]
    return list(map(encoded.__getitem__, column))


def _bulk_links(previous: bytes, first_seq: int, table: str, columns: Sequence[Sequence[object]]) -> list[str]:
    """The chain values (hex) of consecutive rows given as columns (in the order of
    ``CHAINED[table]``), the first with link number ``first_seq``: exactly :func:`link` of each row,
    with each column encoded once per distinct value, runs of columns that are the same on every
    row joined once, and the rows joined column-wise."""
    n = len(columns[0]) if columns else 0
    parts: list[Sequence[str]] = [list(map(str, range(first_seq, first_seq + n)))]
    fixed = [f'"{table}"']  # the table name is plain ASCII: encoded as is
    for column in columns:
        if _constant(column):
            fixed.append(_ENCODER.encode(_plain(column[0])) if n else "null")
            continue
        if fixed:
            parts.append([",".join(fixed)] * n)
            fixed = []
        parts.append(_fragments(column))
    if fixed:
        parts.append([",".join(fixed)] * n)
    sha256 = hashlib.sha256
    out: list[str] = []
    append = out.append
    for values in zip(*parts, strict=True):
        previous = sha256(previous + f"[{','.join(values)}]".encode()).digest()
        append(previous.hex())
    return out


def _link_of(previous: bytes, seq: int, table: str, values: Sequence[object]) -> bytes:
    """:func:`link` of a row given as the values of the columns its link covers, in order (the
    audit reads them so)."""
    return hashlib.sha256(previous + _content(seq, table, values)).digest()


def link(previous: bytes, seq: int, table: str, row: sqlite3.Row | dict[str, Any]) -> bytes:
    """The chain value of a row: SHA-256(previous link || canonical JSON of [seq, table, columns…])."""
    return _link_of(previous, seq, table, [row[c] for c in CHAINED[table]])


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

    def value_text(self) -> str:
        return "withdrawn" if self.withdrawn else f"{self.defenders_points} points"


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

    def value_text(self) -> str:
        if self.withdrawn:
            return "withdrawn"
        return level_value_text(self.home_level, self.away_level, self.last_game)


def level_value_text(home: str | None, away: str | None, last_game: str | None) -> str:
    last = f", last game {last_game}" if last_game else ""
    return f"home {home} away {away}{last}"


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
    id: int
    round: int
    match: str
    table: str
    board: int
    defenders_points: int | None
    withdrawn: bool
    trump: str | None
    declarer: str | None
    level: str | None
    ns_team: str | None
    ew_team: str | None
    played_set: int | None
    note: str | None
    entered_by: str | None
    entered_at: str
    source: str
    source_row: int | None
    supersedes: int | None
    reason: str | None
    current: bool


@dataclass(frozen=True)
class Seating:
    """How the current results of one match were entered: table, set, N-S and E-W team."""

    round: int
    match: str
    table: str
    played_set: int | None
    ns_team: str | None
    ew_team: str | None


@dataclass(frozen=True)
class Finding:
    """One thing the audit found: its kind and where."""

    kind: str  # edited, deleted, added, trigger-missing, trigger-changed, trigger-added, view-changed,
    #            column-added, meta, head
    where: str
    detail: str

    def text(self) -> str:
        return f"{self.where}: {self.kind}: {self.detail}"


@dataclass
class AuditReport:
    rows: int
    head: str | None
    findings: list[Finding] = field(default_factory=list)
    #: Where a published head stands in the chain (its link number), when one was given and found.
    published_link: int | None = None

    @property
    def ok(self) -> bool:
        return not self.findings


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


class ChangedOutsideTheTool(UserError):
    """The results database holds rows or guards the tool did not write (the audit's findings):
    nothing is published or paired from it until the director has looked."""


class DatabaseRefused(EnvironmentProblem):
    """The results database itself refused (locked, disk full, read-only): no file can be stored
    until that is resolved."""


def _translate(error: sqlite3.Error, path: Path) -> UserError:
    """An SQLite failure as a user error naming the database: the machine's or the file's."""
    text = str(error)
    if "locked" in text or "busy" in text:
        return DatabaseRefused("store.locked", path=path, waited=BUSY_TIMEOUT_S)
    if "disk is full" in text or "disk I/O" in text:
        return DatabaseRefused("store.disk_full", path=path)
    if "readonly" in text or "read-only" in text:
        return DatabaseRefused("store.read_only", path=path)
    if "unable to open" in text:
        if not os.access(path.parent, os.W_OK):  # WAL needs its -wal and -shm files next to it
            return DatabaseRefused("store.folder_read_only", path=path)
        return DatabaseRefused("store.cannot_open", path=path, text=text)
    if isinstance(error, sqlite3.IntegrityError):
        return FileProblem("store.refused_change", path=path, text=text)
    return FileProblem("store.unusable", path=path, text=text)


@contextmanager
def _sqlite_errors(path: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as error:
        raise _translate(error, path) from None


def _retry_busy(action: str, conn: sqlite3.Connection) -> None:
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            conn.execute(action)
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _create_owner_only(path: Path) -> None:
    """An empty database file, mode 0600 whatever the umask (SQLite gives its -wal and -shm
    files the same mode)."""
    make_folder(path.parent)
    try:
        handle = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, OWNER_ONLY)
    except FileExistsError:
        return
    except OSError as error:
        raise os_problem(error, path, Phrase("files.do_create_database")) from None
    os.close(handle)
    os.chmod(path, OWNER_ONLY)


class ResultsStore:
    """The results database of one event, open for writing or read-only."""

    def __init__(self, conn: sqlite3.Connection, path: Path, event_id: str, readonly: bool) -> None:
        self.conn = conn
        self.path = path
        self.event_id = event_id
        self.readonly = readonly

    # --- opening -------------------------------------------------------------------------

    @classmethod
    def open(cls, path: str | Path, event_id: str, result: str | None = None) -> ResultsStore:
        """Open for writing, creating (owner-only) and migrating as needed. ``result``: the kind
        of results the event file says the event records (``boards`` or ``levels``): a database
        that holds the other kind is refused, and the kind is remembered (``meta``)."""
        path = Path(path)
        if path.is_dir():
            raise FileProblem("store.folder_in_place", path=path)
        _create_owner_only(path)
        try:
            if os.stat(path).st_mode & 0o077:
                os.chmod(path, OWNER_ONLY)  # made by an earlier version, or by hand
        except OSError:
            pass  # a read-only medium: the open below says so
        with _sqlite_errors(path):
            conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        store = cls(conn, path, event_id, readonly=False)
        try:
            with _sqlite_errors(path):
                conn.row_factory = sqlite3.Row
                conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
                _retry_busy("PRAGMA journal_mode = WAL", conn)
                conn.execute("PRAGMA foreign_keys = ON")
                conn.execute("PRAGMA synchronous = FULL")
                store._migrate()
                store._check_columns()
                store._check_identity()
                store._check_result(result)
                store._remember_result(result)
        except BaseException:
            conn.close()
            raise
        return store

    @classmethod
    def open_existing(cls, path: str | Path, event_id: str, upgrade: bool = True, *,
                      check_identity: bool = True, result: str | None = None) -> ResultsStore | None:
        """Open read-only if the database exists (``None`` otherwise; nothing is created).

        A database of an older schema is first upgraded (a writing open that changes no result),
        unless it cannot be written (a read-only medium): then it is refused, saying so.
        ``check_identity=False`` (the audit only, which reports it as a finding): a database of the
        current schema whose ``meta`` names another event is opened anyway. ``result``: as for
        :meth:`open` (refused when it holds the other kind; nothing stored).
        """
        path = Path(path)
        if not path.exists():
            return None
        if path.is_dir():
            raise FileProblem("store.folder_in_place", path=path)
        quoted = urllib.parse.quote(str(path.resolve()))
        conn = None
        last: sqlite3.Error | None = None
        # mode=ro reads a live database (another process may be writing); on a read-only medium
        # the WAL index cannot be made, and immutable=1 (nothing changes the file) reads it.
        wal = path.with_name(path.name + "-wal")
        uris = [f"file:{quoted}?mode=ro"]
        if not wal.exists() or wal.stat().st_size == 0:
            uris.append(f"file:{quoted}?immutable=1")  # immutable ignores a -wal: only without one
        for uri in uris:
            try:
                conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
                conn.row_factory = sqlite3.Row
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                break
            except sqlite3.Error as error:
                last = error
                if conn is not None:
                    conn.close()
                conn = None
        if conn is None:
            assert last is not None
            if len(uris) == 1:
                raise DatabaseRefused(
                    "store.wal_unreadable", path=path)
            raise _translate(last, path)
        store = cls(conn, path, event_id, readonly=True)
        try:
            with _sqlite_errors(path):
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                if version > SCHEMA_VERSION:
                    raise FileProblem(
                        "store.schema_newer", path=path, version=version, schema_version=SCHEMA_VERSION)
                if version < SCHEMA_VERSION and not upgrade:
                    raise FileProblem(
                        "store.schema_older_read_only", path=path, version=version, schema_version=SCHEMA_VERSION)
                if version >= SCHEMA_VERSION:
                    store._check_columns()
                    if check_identity:
                        store._check_identity()
                    store._check_result(result)
        except BaseException:
            conn.close()
            raise
        if version < SCHEMA_VERSION:
            conn.close()
            try:
                cls.open(path, event_id).close()
            except EnvironmentProblem:
                return cls.open_existing(path, event_id, upgrade=False, result=result)
            return cls.open_existing(path, event_id, upgrade=False, result=result)
        return store

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _migrate(self) -> None:
        conn = self.conn
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise FileProblem(
                "store.schema_newer", path=self.path, version=version, schema_version=SCHEMA_VERSION
            )
        if version == SCHEMA_VERSION:
            return
        with self._transaction(check=False):
            version = conn.execute("PRAGMA user_version").fetchone()[0]  # re-read under the lock
            if version < SCHEMA_VERSION and "chain" in _columns(conn, "results"):
                self._refuse_changed_chain()
            for number in range(version, SCHEMA_VERSION):
                MIGRATIONS[number](conn)
                conn.execute(f"PRAGMA user_version = {number + 1}")
            if version == 0 and conn.execute("SELECT 1 FROM meta WHERE key = 'event'").fetchone() is None:
                conn.execute("INSERT INTO meta (key, value) VALUES ('event', ?)", (self.event_id,))
                conn.execute("INSERT INTO meta (key, value) VALUES ('created', ?)", (now(),))
            _create_triggers(conn)

    def _refuse_changed_chain(self) -> None:
        """``user_version`` was set back by hand on a database that already has the chain: the
        migrations must not re-create guards or links over rows changed outside the tool."""
        report = self._audit()
        if not report.ok:
            shown = "; ".join(f.text() for f in report.findings[:3])
            more = Phrase.of("store.and_more", more=len(report.findings) - 3) if len(report.findings) > 3 else ""
            raise FileProblem("store.schema_set_back", path=self.path, shown=shown, more=more)

    def _check_columns(self) -> None:
        """Refuse a schema changed by hand (a column renamed or dropped): every query below
        names its columns, and a missing one would fail in the middle of a command."""
        for table, columns in (("meta", ("key", "value")),
                               *((name, (*chained, "seq", "chain")) for name, chained in CHAINED.items())):
            missing = [c for c in columns if c not in _columns(self.conn, table)]
            if missing:
                raise FileProblem("store.column_missing", path=self.path, table=table, missing=', '.join(missing))

    def _check_identity(self) -> None:
        stored = self.conn.execute("SELECT value FROM meta WHERE key = 'event'").fetchone()
        if stored is None or stored[0] != self.event_id:
            raise FileProblem(
                "store.other_event", path=self.path, stored=stored[0] if stored else '?', event_id=self.event_id
            )

    def result_kind(self) -> str | None:
        """The kind of results this database holds: ``boards`` or ``levels`` as its rows show
        (they are in the chain), else as remembered (``meta``, which the audit checks against the
        rows) once a director's action is stored (a level race's pairings); ``None`` when nothing
        is stored yet."""
        with _sqlite_errors(self.path):
            by_content = _kind_by_content(self.conn)
            if by_content is not None:
                return by_content
            if self.conn.execute("SELECT 1 FROM actions LIMIT 1").fetchone() is None:
                return None  # nothing stored (a command refused after opening it): nothing to protect
            stored = self.conn.execute("SELECT value FROM meta WHERE key = 'result'").fetchone()
            return str(stored[0]) if stored is not None else None

    def holdings(self) -> str:
        """What the database holds, in words (for a refusal that names it)."""
        parts = []
        with _sqlite_errors(self.path):
            for table, words in (("results", "board result(s)"), ("level_results", "level-race table result(s)"),
                                 ("releases", "release(s)")):
                count = self.conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                if count:
                    parts.append(f"{count:,} {words}")
            paired = sorted({a.round for a in self.actions(("pair",)) if not a.undone})
        if paired:
            parts.append(f"round(s) {', '.join(map(str, paired))} paired")
        return ", ".join(parts) or "no result yet"

    def _check_result(self, result: str | None) -> None:
        """Refuse the database of an event of the other kind (an event file whose id is that of
        another event, or whose ``result`` was changed after play began)."""
        if result is None:
            return
        held = self.result_kind()
        if held is not None and held != result:
            held = "a level race's" if held == "levels" else "a boards event's"
            said = Phrase("store.a_level_race") if result == "levels" else Phrase("store.a_boards_event")
            raise FileProblem("store.other_kind", path=self.path, held=held, holdings=self.holdings(),
                              event_id=self.event_id, said=said)

    def _remember_result(self, result: str | None) -> None:
        """Store the event's result kind once (the first writing open that knows it)."""
        if result is None:
            return
        with _sqlite_errors(self.path):
            if self.conn.execute("SELECT 1 FROM meta WHERE key = 'result'").fetchone() is not None:
                return
        with self._transaction(check=False):  # meta is not in the chain
            if self.conn.execute("SELECT 1 FROM meta WHERE key = 'result'").fetchone() is None:
                self._check_result(result)  # re-read under the lock
                self.conn.execute("INSERT INTO meta (key, value) VALUES ('result', ?)", (result,))

    # --- writing -------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` … ``COMMIT`` after checking the last link; rolled back on any
        exception. SQLite failures become user errors naming the database."""
        with self._transaction(check=True):
            yield

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees the database as it was at its first read (one read
        transaction), whatever is stored meanwhile: a report's checkpoint and its results agree."""
        conn = self.conn
        if conn.in_transaction:  # already inside one
            yield
            return
        with _sqlite_errors(self.path):
            conn.execute("BEGIN")
        try:
            yield
        finally:
            if conn.in_transaction:
                with _sqlite_errors(self.path):
                    conn.execute("COMMIT")

    @contextmanager
    def _transaction(self, check: bool) -> Iterator[None]:
        if self.readonly:
            raise FileProblem("store.opened_read_only", path=self.path)  # pragma: no cover - a bug
        conn = self.conn
        with _sqlite_errors(self.path):
            _retry_busy("BEGIN IMMEDIATE", conn)
        try:
            if check:
                self.check_tail()
            yield
            with _sqlite_errors(self.path):
                conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:  # a failed COMMIT may have ended it already
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass  # the original error says more
            raise

    def check_tail(self) -> None:
        """The cheap check before a write: the guards are in place, no row is missing from the
        count, and the last link is right. :meth:`audit` checks everything."""
        conn = self.conn
        with _sqlite_errors(self.path):
            problems = [f.text() for f in self._schema_findings()]
            # Per table (a count of the table's pages, the last entry of its seq index), not over the
            # union of every link, which reads every row: this runs before every write.
            rows = conn.execute(
                "SELECT " + " + ".join(f"(SELECT count(*) FROM {t})" for t in CHAINED)
                + ", max(" + ", ".join(f"coalesce((SELECT max(seq) FROM {t}), 0)" for t in CHAINED) + ")").fetchone()
            if rows[0] != rows[1]:
                problems.append(f"{rows[0]} rows but the chain has {rows[1]} links")
            elif rows[1]:
                tail = self._rows_by_seq(rows[1] - 1, rows[1])
                previous = bytes.fromhex(tail[0][2]["chain"]) if len(tail) == 2 else genesis(self.event_id)
                seq, table, row = tail[-1]
                if seq != rows[1] or row["chain"] != link(previous, seq, table, row).hex():
                    problems.append(f"the last row ({table} #{row['id']}) is not the one the tool wrote")
                # The last import's rows are the links after its own (the tool writes them so; a row
                # moved elsewhere in the chain breaks the count above or the audit).
                counted = " + ".join(f"(SELECT count(*) FROM {t} r WHERE r.seq > i.seq AND r.import_id = i.id)"
                                     for t in IMPORTED)
                last = conn.execute(f"SELECT id, rows_added, {counted} FROM imports i ORDER BY seq DESC LIMIT 1"
                                    ).fetchone()
                if last is not None and last[1] != last[2]:
                    problems.append(f"import #{last[0]} recorded {last[1]} row(s) and has {last[2]}")
        if problems:
            raise FileProblem("store.counts_changed_outside", hint="audit", path=self.path,
                              problems="; ".join(problems[:3]))

    def _rows_by_seq(self, low: int, high: int) -> list[tuple[int, str, sqlite3.Row]]:
        found = []
        for table in CHAINED:
            for row in self.conn.execute(f"SELECT * FROM {table} WHERE seq BETWEEN ? AND ?", (low, high)):
                found.append((row["seq"], table, row))
        return sorted(found, key=lambda item: item[0])

    def _last_link(self) -> tuple[int, bytes]:
        row = self.conn.execute(
            f"SELECT seq, chain FROM ({_ALL_LINKS}) WHERE typeof(seq) = 'integer' ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return 0, genesis(self.event_id)
        return int(row[0]), bytes.fromhex(row[1])

    def insert_batch(
        self,
        entries: Sequence[Entry] | EntryBatch,
        *,
        source: str,
        kind: str,
        sha256: str | None = None,
        entered_by: str | None = None,
        skipped: int = 0,
        supersedes: Sequence[int | None] | None = None,
        reason: str | None = None,
        sample: bool = False,
    ) -> int:
        """Insert ``entries`` (inside :meth:`transaction`) with an import record; its id.

        ``sample``: the rows are sample data (the file says so), shown with a banner in reports.
        The rows are linked in bulk (:func:`_bulk_links`) and stored with one ``INSERT … SELECT``
        from a staged temporary table: the append-only triggers and every index check each row
        as for any insert.
        """
        batch = entries if isinstance(entries, EntryBatch) else EntryBatch.from_entries(entries)
        n = len(batch)
        conn = self.conn
        import_id, at, seq, previous = self._insert_import(n, source=source, kind=kind, sha256=sha256,
                                                           entered_by=entered_by, skipped=skipped, sample=sample)
        with _sqlite_errors(self.path):
            next_id = int(conn.execute("SELECT coalesce(max(id), 0) + 1 FROM results").fetchone()[0])
            links = list(supersedes) if supersedes is not None else [None] * n
            columns: dict[str, Sequence[object]] = {
                "id": range(next_id, next_id + n), "round": batch.round, "match": batch.match,
                "tbl": batch.table, "board": batch.board, "defenders_points": batch.defenders_points,
                "withdrawn": batch.withdrawn, "trump": batch.trump, "declarer": batch.declarer,
                "level": batch.level, "ns_team": batch.ns_team, "ew_team": batch.ew_team,
                "played_set": batch.played_set, "note": batch.note,
                "entered_by": [by or entered_by for by in batch.entered_by], "entered_at": [at] * n,
                "import_id": [import_id] * n, "source_row": batch.source_row, "supersedes": links,
                "reason": [reason if superseded is not None else None for superseded in links],
            }
            self._insert_linked("results", columns, seq, previous)
        return import_id

    def _insert_linked(self, table: str, columns: dict[str, Sequence[object]], seq: int, previous: bytes) -> None:
        """Insert the rows of ``columns`` (every column of ``CHAINED[table]``) into ``table`` as the
        links after ``seq`` (whose chain value is ``previous``): linked in bulk, stored staged."""
        n = len(columns["id"])
        if any(len(column) != n for column in columns.values()):
            raise ValueError("one value per row in every column")  # pragma: no cover - a bug
        chain = _bulk_links(previous, seq + 1, table, [columns[c] for c in CHAINED[table]])
        self._insert_staged(table, {**columns, "seq": range(seq + 1, seq + 1 + n), "chain": chain})

    def _insert_staged(self, table: str, columns: dict[str, Sequence[object]]) -> None:
        """Insert the rows of ``columns`` into ``table`` with one ``INSERT … SELECT`` from a temporary
        table that holds only the columns whose value changes from row to row (the others are
        parameters of the statement)."""
        names = list(columns)  # the first (the id) is always staged: it gives the rows their number
        varying = [name for name in names if name == names[0] or not _constant(columns[name])]
        fixed = {name: (columns[name][0] if len(columns[name]) else None) for name in names if name not in varying}
        conn = self.conn
        conn.execute("DROP TABLE IF EXISTS temp.staged_rows")
        conn.execute(f"CREATE TEMP TABLE staged_rows ({', '.join(varying)})")
        try:
            conn.executemany(f"INSERT INTO temp.staged_rows VALUES ({', '.join('?' * len(varying))})",
                             zip(*(columns[name] for name in varying), strict=True))
            picked = ", ".join(name if name in varying else f":{name}" for name in names)
            conn.execute(f"INSERT INTO {table} ({', '.join(names)}) SELECT {picked} FROM temp.staged_rows"
                         " ORDER BY rowid", fixed)
        finally:
            conn.execute("DROP TABLE IF EXISTS temp.staged_rows")

    def _insert_import(self, rows: int, *, source: str, kind: str, sha256: str | None, entered_by: str | None,
                       skipped: int, sample: bool) -> tuple[int, str, int, bytes]:
        """Append the import record of ``rows`` rows; (its id, its time, its link number and link)."""
        at = now()
        seq, previous = self._last_link()
        import_id = int(self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM imports").fetchone()[0])
        record = {"id": import_id, "source": source, "sha256": sha256, "kind": kind,
                  "rows_added": rows, "rows_skipped": skipped, "entered_by": entered_by,
                  "at": at, "sample": int(sample)}
        seq += 1
        previous = link(previous, seq, "imports", record)
        with _sqlite_errors(self.path):
            self.conn.execute(
                "INSERT INTO imports (id, source, sha256, kind, rows_added, rows_skipped, entered_by, at, sample,"
                " seq, chain) VALUES (:id, :source, :sha256, :kind, :rows_added, :rows_skipped, :entered_by,"
                " :at, :sample, :seq, :chain)", {**record, "seq": seq, "chain": previous.hex()})
        return import_id, at, seq, previous

    def insert_level_batch(
        self,
        entries: Sequence[LevelEntry],
        *,
        source: str,
        kind: str,
        sha256: str | None = None,
        entered_by: str | None = None,
        skipped: int = 0,
        supersedes: Sequence[int | None] | None = None,
        reason: str | None = None,
        sample: bool = False,
    ) -> int:
        """Insert level results (inside :meth:`transaction`) with an import record; its id. As
        :meth:`insert_batch`: the rows are the links right after their import record."""
        import_id, at, seq, previous = self._insert_import(len(entries), source=source, kind=kind, sha256=sha256,
                                                           entered_by=entered_by, skipped=skipped, sample=sample)
        n = len(entries)
        with _sqlite_errors(self.path):
            next_id = int(self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM level_results").fetchone()[0])
            links = list(supersedes) if supersedes is not None else [None] * n
            columns: dict[str, Sequence[object]] = {
                "id": range(next_id, next_id + n), "round": [e.round for e in entries],
                "match": [e.match for e in entries], "tbl": [e.table for e in entries],
                "home_level": [e.home_level for e in entries], "away_level": [e.away_level for e in entries],
                "last_game": [e.last_game for e in entries], "home_games": [e.home_games for e in entries],
                "away_games": [e.away_games for e in entries], "withdrawn": [int(e.withdrawn) for e in entries],
                "home_team": [e.home_team for e in entries], "away_team": [e.away_team for e in entries],
                "note": [e.note for e in entries], "entered_by": [e.entered_by or entered_by for e in entries],
                "entered_at": [at] * n, "import_id": [import_id] * n, "source_row": [e.source_row for e in entries],
                "supersedes": links, "reason": [reason if superseded is not None else None for superseded in links],
            }
            self._insert_linked("level_results", columns, seq, previous)
        return import_id

    def insert_action(self, kind: str, round_number: int, data: dict[str, Any], *, reason: str | None = None,
                      undoes: int | None = None, entered_by: str | None = None) -> int:
        """Append one director's action (inside :meth:`transaction`); its id."""
        row = self._append_chained("actions", ACTION_COLUMNS, {
            "kind": kind, "round": round_number, "data": _ENCODER.encode(data), "reason": reason,
            "undoes": undoes, "entered_by": entered_by, "at": now()})
        return int(row["id"])

    def _append_chained(self, table: str, columns: Sequence[str], values: dict[str, Any]) -> dict[str, Any]:
        """Append one row (the next id) to an append-only table of the hash chain: the row as stored."""
        seq, previous = self._last_link()
        row_id = int(self.conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0])
        row = {"id": row_id, **values}
        seq += 1
        with _sqlite_errors(self.path):
            self.conn.execute(
                f"INSERT INTO {table} ({', '.join(columns)}, seq, chain) VALUES "
                f"({', '.join(':' + c for c in columns)}, :seq, :chain)",
                {**row, "seq": seq, "chain": link(previous, seq, table, row).hex()})
        return row

    def insert_release(self, kind: str, set_number: int | None, reason: str, entered_by: str | None = None) -> Release:
        """Append one release (inside :meth:`transaction`)."""
        row = self._append_chained("releases", RELEASE_COLUMNS, {
            "kind": kind, "set_number": set_number, "reason": reason, "entered_by": entered_by, "at": now()})
        return Release(kind, set_number, reason, entered_by, str(row["at"]))

    def releases(self) -> list[Release]:
        """What was made public, oldest first."""
        return [Release(r["kind"], r["set_number"], r["reason"], r["entered_by"], r["at"])
                for r in self._query("SELECT * FROM releases ORDER BY id")]

    def actions(self, kinds: Sequence[str] | None = None) -> list[Action]:
        """The director's actions, oldest first (``kinds``: only those)."""
        rows = self._query("SELECT a.*, EXISTS (SELECT 1 FROM actions u WHERE u.undoes = a.id) AS undone"
                           " FROM actions a ORDER BY a.id")
        return [Action(r["id"], r["kind"], r["round"], json.loads(r["data"]), r["reason"], r["undoes"],
                       r["entered_by"], r["at"], bool(r["undone"]))
                for r in rows if kinds is None or r["kind"] in kinds]

    # --- reading -------------------------------------------------------------------------

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with _sqlite_errors(self.path):
            return self.conn.execute(sql, args).fetchall()

    def current_rows(self, rounds: Sequence[int] | None = None) -> dict[tuple[int, str, str, int], sqlite3.Row]:
        if rounds is None:
            rows = self._query("SELECT * FROM current_results")
        else:
            marks = ",".join("?" * len(rounds))
            rows = self._query(f"SELECT * FROM current_results WHERE round IN ({marks})", rounds)
        return {(r["round"], r["match"], r["tbl"], r["board"]): r for r in rows}

    def superseded_rows(self, rounds: Sequence[int]) -> dict[tuple[int, str, str, int], list[sqlite3.Row]]:
        marks = ",".join("?" * len(rounds))
        found: dict[tuple[int, str, str, int], list[sqlite3.Row]] = {}
        for r in self._query(f"SELECT r.* FROM results r WHERE r.round IN ({marks}) AND EXISTS "
                             "(SELECT 1 FROM results s WHERE s.supersedes = r.id)", rounds):
            found.setdefault((r["round"], r["match"], r["tbl"], r["board"]), []).append(r)
        return found

    def current_row(self, slot: tuple[int, str, str, int]) -> sqlite3.Row | None:
        rows = self._query("SELECT * FROM current_results WHERE round = ? AND match = ? AND tbl = ? "
                           "AND board = ?", slot)
        return rows[0] if rows else None

    def current_match_rows(self, round_number: int, match: str) -> list[sqlite3.Row]:
        return self._query("SELECT * FROM current_results WHERE round = ? AND match = ? AND withdrawn = 0"
                           " ORDER BY tbl, board", (round_number, match))

    def has_sample_rows(self) -> bool:
        """Whether any current result (board or level) came from an import marked as sample data."""
        # From the few sample imports to their rows (not every row to its import).
        return bool(self._query(
            "SELECT EXISTS (SELECT 1 FROM imports i WHERE i.sample = 1 AND (EXISTS (SELECT 1 FROM current_results r"
            " WHERE r.import_id = i.id AND r.withdrawn = 0) OR EXISTS (SELECT 1 FROM current_level_results r"
            " WHERE r.import_id = i.id AND r.withdrawn = 0)))")[0][0])

    # --- level results ---------------------------------------------------------------------

    def level_rows(self, rounds: Sequence[int] | None = None, current: bool = True
                   ) -> dict[tuple[int, str, int], list[sqlite3.Row]]:
        """Level rows by slot (round, match, table), oldest first: the current ones, or (``current``
        false) those superseded."""
        view = "current_level_results r" if current else \
            "level_results r WHERE EXISTS (SELECT 1 FROM level_results s WHERE s.supersedes = r.id)"
        where, args = "", list(rounds or ())
        if rounds is not None:
            where = f"{' AND' if not current else ' WHERE'} r.round IN ({','.join('?' * len(args))})"
        found: dict[tuple[int, str, int], list[sqlite3.Row]] = {}
        for r in self._query(f"SELECT r.* FROM {view}{where} ORDER BY r.id", args):
            found.setdefault((r["round"], r["match"], r["tbl"]), []).append(r)
        return found

    def current_level_row(self, slot: tuple[int, str, int]) -> sqlite3.Row | None:
        rows = self._query("SELECT * FROM current_level_results WHERE round = ? AND match = ? AND tbl = ?", slot)
        return rows[0] if rows else None

    def current_level_match_rows(self, round_number: int, match: str) -> list[sqlite3.Row]:
        return self._query("SELECT * FROM current_level_results WHERE round = ? AND match = ? AND withdrawn = 0"
                           " ORDER BY tbl", (round_number, match))

    def level_scoring_rows(self) -> list[tuple[int, str, int, str, str, str | None]]:
        """(round, match, table, home level, away level, last game's winner) of every current,
        non-withdrawn level result."""
        return [(r[0], r[1], r[2], r[3], r[4], r[5]) for r in self._query(
            "SELECT round, match, tbl, home_level, away_level, last_game FROM current_level_results"
            " WHERE withdrawn = 0")]

    def level_seatings(self) -> list[tuple[int, str, str | None, str | None]]:
        """Every distinct (round, match, home team, away team) of the current level results."""
        return [(r[0], r[1], r[2], r[3]) for r in self._query(
            "SELECT DISTINCT round, match, home_team, away_team FROM current_level_results WHERE withdrawn = 0"
            " ORDER BY round, match")]

    def level_history(self, round_number: int | None = None, match: str | None = None,
                      table: int | None = None) -> list[dict[str, Any]]:
        """Every stored level row (superseded ones included), oldest first, with its source and
        whether it is current."""
        where, args = [], []
        for column, value in (("r.round", round_number), ("r.match", match), ("r.tbl", table)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = ("SELECT r.*, i.source AS source, NOT EXISTS (SELECT 1 FROM level_results s WHERE s.supersedes = r.id)"
               " AS is_current FROM level_results r JOIN imports i ON i.id = r.import_id"
               + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY r.round, r.match, r.tbl, r.id")
        out = []
        for r in self._query(sql, args):
            row = {c: r[c] for c in LEVEL_COLUMNS}
            row.update(withdrawn=bool(r["withdrawn"]), source=r["source"], current=bool(r["is_current"]))
            out.append(row)
        return out

    def last_result_id(self) -> int:
        """The id of the last stored board result (0: none): rows after it are new."""
        return int(self._query("SELECT COALESCE(MAX(id), 0) FROM results")[0][0])

    def result_mark(self, row_id: int) -> str:
        """What identifies stored row ``row_id`` ("" when there is none): its chain link, which
        covers every row stored before it, so the same mark later says the rows up to it are the
        very ones seen then."""
        rows = self._query("SELECT chain FROM results WHERE id = ?", (row_id,))
        return str(rows[0][0]) if rows else ""

    def changed_results(self, after: int) -> list[tuple[int, str, str, int, int | None, str | None]]:
        """Each result slot written after row ``after`` (a new result, a correction, a withdrawal:
        any row stored since, and the slot of any row it supersedes) as (round, match, table,
        board, defenders' points, trump), the points and trump of its current, non-withdrawn
        result, ``None`` when it has none now; by row order, as :meth:`scoring_rows_with_trump`."""
        with _sqlite_errors(self.path):
            cursor = self.conn.cursor()
            cursor.row_factory = None
            # A LEFT JOIN keeps the few touched slots as the outer loop (an inner join let SQLite
            # scan every result instead).
            return cursor.execute(
                "WITH touched AS (SELECT round, match, tbl, board FROM results WHERE id > ?1 UNION "
                "SELECT s.round, s.match, s.tbl, s.board FROM results r JOIN results s ON s.id = r.supersedes "
                "WHERE r.id > ?1) "
                "SELECT t.round, t.match, t.tbl, t.board, c.defenders_points, c.trump FROM touched t "
                "LEFT JOIN current_results c ON c.round = t.round AND c.match = t.match AND c.tbl = t.tbl "
                "AND c.board = t.board AND c.withdrawn = 0 ORDER BY c.id", (after,)).fetchall()

    def scoring_rows_with_trump(self) -> list[tuple[int, str, str, int, int, str | None]]:
        """:meth:`scoring_rows` with the trump each table played (``None`` when not recorded)."""
        with _sqlite_errors(self.path):
            cursor = self.conn.cursor()
            cursor.row_factory = None  # plain tuples: a league has hundreds of thousands of rows
            return cursor.execute("SELECT round, match, tbl, board, defenders_points, trump FROM current_results"
                                  " WHERE withdrawn = 0").fetchall()

    def scoring_rows(self) -> list[tuple[int, str, str, int, int]]:
        """(round, match, table, board, defenders' points) of every current, non-withdrawn result."""
        with _sqlite_errors(self.path):
            cursor = self.conn.cursor()
            cursor.row_factory = None
            return cursor.execute("SELECT round, match, tbl, board, defenders_points FROM current_results"
                                  " WHERE withdrawn = 0").fetchall()

    def seatings(self, rounds: Sequence[int] | None = None, after: int | None = None) -> list[Seating]:
        """Every distinct (round, match, table, set, N-S team, E-W team) of the current results
        (of ``rounds`` only, when given; of the rows stored after row ``after`` only, when given)."""
        where, args = "", list(rounds or ())
        if rounds is not None:
            where = f" AND round IN ({','.join('?' * len(args))})"
        if after is not None:
            where += " AND id > ?"
            args.append(after)
        return [Seating(r["round"], r["match"], r["tbl"], r["played_set"], r["ns_team"], r["ew_team"])
                for r in self._query(
                    "SELECT DISTINCT round, match, tbl, played_set, ns_team, ew_team FROM current_results"
                    f" WHERE withdrawn = 0{where} ORDER BY round, match, tbl", args)]

    def history(
        self,
        round_number: int | None = None,
        match: str | None = None,
        table: str | None = None,
        board: int | None = None,
    ) -> list[StoredRow]:
        """Every stored row (superseded ones included), oldest first, optionally for one slot."""
        where, args = [], []
        for column, value in (("r.round", round_number), ("r.match", match), ("r.tbl", table),
                              ("r.board", board)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = (
            "SELECT r.*, i.source AS source, NOT EXISTS (SELECT 1 FROM results s WHERE s.supersedes = r.id)"
            " AS is_current FROM results r JOIN imports i ON i.id = r.import_id"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY r.round, r.match, r.tbl, r.board, r.id"
        )
        return [
            StoredRow(
                r["id"], r["round"], r["match"], r["tbl"], r["board"], r["defenders_points"],
                bool(r["withdrawn"]), r["trump"], r["declarer"], r["level"], r["ns_team"], r["ew_team"],
                r["played_set"], r["note"], r["entered_by"], r["entered_at"], r["source"], r["source_row"],
                r["supersedes"], r["reason"], bool(r["is_current"]),
            )
            for r in self._query(sql, args)
        ]

    def last_entry_at(self) -> str | None:
        """When the tool last stored anything (results, an action or a release)."""
        times = [row[0] for table in ("imports", "actions", "releases") if _columns(self.conn, table)
                 for row in self._query(f"SELECT max(at) FROM {table}") if row[0] is not None]
        return max(times) if times else None

    def chain_head(self) -> str | None:
        """The last link of the chain (hex), which a published report prints; ``None`` if empty."""
        with _sqlite_errors(self.path):
            seq, head = self._last_link()
        return head.hex() if seq else None

    # --- audit ---------------------------------------------------------------------------

    def _schema_findings(self) -> list[Finding]:
        found: list[Finding] = []
        stored = {r["name"]: (r["type"], r["sql"]) for r in self.conn.execute(
            "SELECT name, type, sql FROM sqlite_master WHERE type IN ('trigger', 'view')")}
        tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for name, sql in TRIGGERS.items():
            if _GUARDED_TABLE[name] not in tables:
                continue  # an older schema, before its migration: see _check_columns
            if name not in stored:
                found.append(Finding("trigger-missing", f"trigger {name}", "dropped: the append-only guard "
                                     "is gone"))
            elif " ".join(stored[name][1].split()) != " ".join(sql.split()):
                found.append(Finding("trigger-changed", f"trigger {name}", "its SQL is not the tool's"))
        for name, (kind, _sql) in stored.items():
            if kind == "trigger" and name not in TRIGGERS:
                found.append(Finding("trigger-added", f"trigger {name}", "not one of the tool's"))
        for name, sql in VIEWS.items():
            view = stored.get(name)
            if _GUARDED_TABLE[name] in tables and (view is None or " ".join(view[1].split()) != " ".join(sql.split())):
                found.append(Finding("view-changed", f"view {name}", "missing or not the tool's"))
        # A column the tool did not make: its values are outside every link (and would be shown
        # by nothing), so a row could carry them unnoticed. Columns missing: _check_columns.
        for table, columns in (("meta", ("key", "value")), *((t, (*c, "seq", "chain")) for t, c in CHAINED.items())):
            if table not in tables:
                continue
            for column in sorted(_columns(self.conn, table) - set(columns)):
                found.append(Finding("column-added", f"table {table}", f"column {column} is not the tool's: its "
                                     "values are outside the hash chain"))
        return found

    def audit(self, published_head: str | None = None) -> AuditReport:
        """Walk the whole chain: every row edited, deleted or added outside the tool, every guard
        dropped or changed, the event identity; and, given the head a report published, whether
        the results it showed are still the start of the chain.

        The chain has no key: someone who rewrites the database and recomputes every link after
        the rewrite is caught only by a head published before it (``published_head``).
        """
        if published_head is not None and not _is_link(published_head.strip().lower()):
            raise UserError("store.not_a_chain_head", field="head", published_head=quote(published_head))
        with self.snapshot(), _sqlite_errors(self.path):  # one state, whatever is stored meanwhile
            report = self._audit()
            found = None if published_head is None else self.conn.execute(
                f"SELECT seq FROM ({_ALL_LINKS}) WHERE chain = ?", (published_head.strip().lower(),)).fetchone()
        if published_head is not None:
            wanted = published_head.strip().lower()
            if found is None:
                report.findings.append(Finding(
                    "head", "published head", f"{wanted[:16]}… is not a link of the chain: the results were "
                    "rewritten after it was published"))
            else:
                report.published_link = int(found[0])
        return report

    def require_intact(self, refused: object, results_after: int | None = None) -> None:
        """Refuse (``refused``: what is not done) when the audit finds anything: the rows that
        decide what becomes public or how a round is paired (releases, pairings, results) are
        trusted only as links of the chain. ``results_after``: the caller reads only the board
        results stored after that row (the site's rebuild: those before were checked when it
        read them): then every row of the other tables and those results have their links
        checked, and the guards, instead of walking the whole chain (:meth:`audit`)."""
        with self.snapshot():  # one state of the database, whatever is stored meanwhile
            if results_after is None:
                findings = self.audit().findings
            else:
                with _sqlite_errors(self.path):
                    findings = self._schema_findings() + self._link_findings(results_after)
        if not findings:
            return
        shown = "; ".join(f.text() for f in findings[:3])
        more = Phrase.of("store.and_more", more=len(findings) - 3) if len(findings) > 3 else ""
        raise ChangedOutsideTheTool("store.changed_outside", hint="audit", path=self.path, shown=shown, more=more,
                                    refused=refused)

    def _link_findings(self, results_after: int) -> list[Finding]:
        """The links of every row of the chained tables but the board results, and of the board
        results after row ``results_after``, each checked against the link before it as stored
        (and that no other row has its link number): an edited, forged or misplaced row among
        them is found as the full audit finds it, in time proportional to those rows."""
        conn = self.conn
        picked: list[tuple[str, sqlite3.Row]] = []
        tables = [t for t in CHAINED if _columns(conn, t)]
        for table in tables:
            query = f"SELECT * FROM {table}"
            if table == "results":  # a scan in SQLite's C: the rows without a link are found too
                query += " WHERE id > ? OR typeof(seq) != 'integer'"
            picked.extend((table, row) for row in conn.execute(query, (results_after,) if table == "results" else ()))
        found: list[Finding] = []
        seqs: set[int] = set()
        for table, row in picked:
            seq = row["seq"]
            if isinstance(seq, int) and seq >= 1:
                seqs.update((seq, seq - 1))
            else:
                found.append(Finding("added", f"{table} #{row['id']}", "a row the tool did not write (no chain link)"))
        links: dict[int, list[object]] = {}
        between = " UNION ALL ".join(f"SELECT seq, chain FROM {t} WHERE seq BETWEEN ?1 AND ?2" for t in tables)
        for low, high in _runs(sorted(seqs)):
            for seq, chain in conn.execute(between, (low, high)):
                links.setdefault(seq, []).append(chain)
        for table, row in picked:
            seq = row["seq"]
            if not (isinstance(seq, int) and seq >= 1):
                continue
            where = f"{table} #{row['id']} (link {seq})"
            if len(links.get(seq, ())) > 1:
                found.append(Finding("added", where, f"a second row with link {seq}"))
            before = links.get(seq - 1, [])
            try:
                previous = genesis(self.event_id) if seq == 1 else bytes.fromhex(str(before[0])) \
                    if len(before) == 1 else None
            except ValueError:
                previous = None
            if previous is None:
                found.append(Finding("deleted", where, f"link {seq - 1} before it is missing or not one"))
            elif row["chain"] != link(previous, seq, table, row).hex():
                found.append(Finding("edited", where, "its content is not what the tool wrote"))
        return found

    def _audit(self) -> AuditReport:
        conn = self.conn
        findings = self._schema_findings()
        meta = {r["key"]: r["value"] for r in conn.execute("SELECT key, value FROM meta")}
        if meta.get("event") != self.event_id:
            findings.append(Finding("meta", "table meta", f"names event {meta.get('event')!r}, not "
                                    f"{self.event_id!r}: edited, or the database of another event"))
        if not {"event", "created", "chain"} <= set(meta) <= set(META_KEYS):
            findings.append(Finding("meta", "table meta", f"holds {sorted(meta)}; the tool writes "
                                    f"{', '.join(META_KEYS)} only"))
        by_content = _kind_by_content(conn)
        if "result" in meta and (meta["result"] not in ("boards", "levels")
                                 or (by_content is not None and by_content != meta["result"])):
            findings.append(Finding("meta", "table meta", f"says result {meta['result']!r}, but the database holds "
                                    f"{by_content or 'no result'}"))
        # Every row as (seq, table, id, chain, the columns its link covers), read as plain tuples
        # (a league has 640,000). A database of an older schema (checked before its migration)
        # lacks the newer tables.
        rows: list[tuple[object, str, object, object, tuple[object, ...]]] = []
        for table in [t for t in CHAINED if _columns(conn, t)]:
            cursor = conn.cursor()
            cursor.row_factory = None
            cursor.execute(f"SELECT * FROM {table}")
            names = [d[0] for d in cursor.description]
            pick = itemgetter(*(names.index(c) for c in ("seq", "id", "chain")))
            covered = itemgetter(*(names.index(c) for c in CHAINED[table]))
            for r in cursor:
                seq, row_id, chain = pick(r)
                rows.append((seq, table, row_id, chain, covered(r)))
        linked = sorted((row for row in rows if isinstance(row[0], int) and row[0] >= 1),
                        key=itemgetter(0))
        for seq, table, row_id, _chain, _values in rows:
            if not (isinstance(seq, int) and seq >= 1):
                findings.append(Finding("added", f"{table} #{row_id}", "a row the tool did not write (no "
                                        "chain link)"))
        previous: bytes | None = genesis(self.event_id)  # None: unknown (after a gap)
        expected_seq = 1
        chained: dict[tuple[str, object], int] = {}  # (table, id) → link, of the rows in the chain
        i, count = 0, len(linked)
        while i < count:
            seq = int(linked[i][0])  # type: ignore[call-overload]
            j = i + 1
            while j < count and linked[j][0] == seq:
                j += 1
            candidates = linked[i:j]
            i = j
            if seq > expected_seq:
                first = candidates[0]
                findings.append(Finding("deleted", f"links {expected_seq}–{seq - 1}",
                                        f"{seq - expected_seq} row(s) deleted before {first[1]} #{first[2]}"))
                previous = None  # the deleted row's link is gone: go on from this row's own
            right = [c for c in candidates
                     if previous is not None and c[3] == _link_of(previous, seq, c[1], c[4]).hex()]
            kept = right[0] if right else candidates[0]
            for row in candidates:
                if row is kept and (right or previous is None):
                    continue
                kind, detail = (("added", f"a second row with link {seq}") if right or row is not kept
                                else ("edited", "its content is not what the tool wrote"))
                findings.append(Finding(kind, f"{row[1]} #{row[2]} (link {seq})", detail))
            chained[(kept[1], kept[2])] = seq
            try:
                previous = bytes.fromhex(kept[3])  # type: ignore[arg-type]
            except (TypeError, ValueError):
                previous = None
            expected_seq = seq + 1
        findings.extend(self._batch_findings(chained))
        head = linked[-1][3] if linked else None
        return AuditReport(len(rows), None if head is None else str(head), findings)

    def _batch_findings(self, chained: dict[tuple[str, object], int]) -> list[Finding]:
        """What the tool always writes together: an import record, then exactly its rows (as many
        as it says, the links right after its own, entered at its time), corrections and only they
        superseding a row. Catches rows forged with a right link, or cut from the end."""
        found: list[Finding] = []
        # (table, row) by import, in link order: an import's rows are board results or level
        # results (the tool never mixes them, but the count covers both).
        # Each row as (table, id, seq, entered_at, supersedes), read as plain tuples (a league has
        # 640,000).
        results: dict[object, list[tuple[str, object, object, object, object]]] = {}
        cursor = self.conn.cursor()
        cursor.row_factory = None
        for table in [t for t in IMPORTED if _columns(self.conn, t)]:
            for import_id, *row in cursor.execute(f"SELECT import_id, '{table}', id, seq, entered_at, supersedes "
                                                  f"FROM {table} ORDER BY seq"):
                results.setdefault(import_id, []).append(tuple(row))
        for rows in results.values():
            rows.sort(key=lambda item: item[2] if isinstance(item[2], int) else 0)
        imports = {row["id"]: row for row in self.conn.execute("SELECT * FROM imports")}
        for import_id, rows in results.items():
            if import_id not in imports:
                for table, row_id, *_rest in rows:
                    found.append(Finding("added", f"{table} #{row_id}", f"its import #{import_id} is not "
                                         "in the import log"))
        for import_id, record in imports.items():
            rows = results.get(import_id, [])
            where = f"imports #{import_id}"
            if len(rows) != record["rows_added"]:
                kind = "deleted" if len(rows) < record["rows_added"] else "added"
                found.append(Finding(kind, where, f"recorded {record['rows_added']} row(s), has {len(rows)}"))
            start = chained.get(("imports", import_id))
            links = [chained.get((table, row_id)) for table, row_id, *_rest in rows]
            if start is not None and None not in links and links != list(range(start + 1, start + 1 + len(rows))):
                found.append(Finding("added", where, "its rows are not the links right after it"))
            correction = record["kind"] == "correct"
            for table, row_id, _seq, entered_at, supersedes in rows:
                if entered_at != record["at"]:
                    found.append(Finding("added", f"{table} #{row_id}", f"not entered with import #{import_id}"))
                if (supersedes is not None) != correction:
                    found.append(Finding("added", f"{table} #{row_id}", f"a {record['kind']} import does not "
                                         "supersede rows" if supersedes is not None else
                                         "a correction that supersedes nothing"))
        return found
