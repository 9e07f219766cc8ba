"""The results database: SQLite beside the event's board data (``boards/<event>/results.sqlite``).

* WAL journal, foreign keys on, a busy timeout, and every write in one ``BEGIN IMMEDIATE``
  transaction: concurrent writers queue instead of failing, a killed process leaves nothing
  half-written.
* Append-only: triggers refuse ``UPDATE`` and ``DELETE`` on the stored rows. A correction is a
  new row that ``supersedes`` the current one and records who, when and why; the current value
  of a slot (round, match, table, board) is the row nobody supersedes.
* Versioned schema (``PRAGMA user_version``) with forward migrations in :data:`MIGRATIONS`.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from dealer.event import Event
from dealer.files import FileProblem, boards_dir

DB_NAME = "results.sqlite"
BUSY_TIMEOUT_S = 60.0

MIGRATIONS: tuple[str, ...] = (
    # 1: imports, results (append-only, corrections by supersession), event identity.
    """
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE imports (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL,          -- file path, 'add' or 'correct'
        sha256 TEXT,                   -- content hash of an imported file
        kind TEXT NOT NULL CHECK (kind IN ('file', 'add', 'correct')),
        rows_added INTEGER NOT NULL,
        rows_skipped INTEGER NOT NULL,
        entered_by TEXT,
        at TEXT NOT NULL
    );
    CREATE TABLE results (
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
    );
    CREATE UNIQUE INDEX results_first_entry ON results (round, match, tbl, board)
        WHERE supersedes IS NULL;
    CREATE INDEX results_slot ON results (round, match, tbl, board);
    CREATE TRIGGER results_no_update BEFORE UPDATE ON results
        BEGIN SELECT RAISE(ABORT, 'results are append-only: use a correction'); END;
    CREATE TRIGGER results_no_delete BEFORE DELETE ON results
        BEGIN SELECT RAISE(ABORT, 'results are append-only: nothing is deleted'); END;
    CREATE TRIGGER imports_no_update BEFORE UPDATE ON imports
        BEGIN SELECT RAISE(ABORT, 'the import log is append-only'); END;
    CREATE TRIGGER imports_no_delete BEFORE DELETE ON imports
        BEGIN SELECT RAISE(ABORT, 'the import log is append-only'); END;
    CREATE VIEW current_results AS
        SELECT r.* FROM results r
        WHERE NOT EXISTS (SELECT 1 FROM results s WHERE s.supersedes = r.id);
    """,
    # 2: imports.sample: the file said it is sample data (first line "# sample data" / "# 样例数据").
    # Databases made before it: the demo's sample file (sample-travellers.csv) was the only one.
    """
    ALTER TABLE imports ADD COLUMN sample INTEGER NOT NULL DEFAULT 0 CHECK (sample IN (0, 1));
    DROP TRIGGER imports_no_update;
    UPDATE imports SET sample = 1 WHERE kind = 'file' AND source LIKE '%sample-travellers.csv';
    CREATE TRIGGER imports_no_update BEFORE UPDATE ON imports
        BEGIN SELECT RAISE(ABORT, 'the import log is append-only'); END;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

RESULT_FIELDS = (
    "round", "match", "tbl", "board", "defenders_points", "withdrawn", "trump", "declarer",
    "level", "ns_team", "ew_team", "note", "entered_by",
)


class ResultsError(Exception):
    """A request against the results database cannot be done; the message says why."""


@dataclass(frozen=True)
class Entry:
    """One result row to store (points already validated)."""

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
    note: str | None
    entered_by: str | None
    entered_at: str
    source: str
    source_row: int | None
    supersedes: int | None
    reason: str | None
    current: bool


def results_path(event: Event, root: str | Path = "boards") -> Path:
    return boards_dir(event, root) / DB_NAME


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")


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


def connect_existing(path: str | Path, event_id: str) -> sqlite3.Connection | None:
    """:func:`connect` to the database if it exists; ``None`` (and nothing created) if not."""
    return connect(path, event_id) if Path(path).exists() else None


def connect(path: str | Path, event_id: str) -> sqlite3.Connection:
    """Open (creating and migrating as needed) the results database of event ``event_id``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    except sqlite3.Error as error:
        raise FileProblem(f"{path}: cannot open the results database: {error}") from None
    conn.row_factory = sqlite3.Row
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        _retry_busy("PRAGMA journal_mode = WAL", conn)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = FULL")
        migrate(conn, event_id, path)
    except sqlite3.DatabaseError as error:
        conn.close()
        raise FileProblem(f"{path}: not a usable results database: {error}") from None
    except BaseException:
        conn.close()
        raise
    return conn


def migrate(conn: sqlite3.Connection, event_id: str, path: Path) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise FileProblem(
            f"{path}: results database schema {version} is newer than this program "
            f"({SCHEMA_VERSION}); update shengji-dealer"
        )
    if version < SCHEMA_VERSION:
        with transaction(conn):
            version = conn.execute("PRAGMA user_version").fetchone()[0]  # re-read under the lock
            for number in range(version, SCHEMA_VERSION):
                for statement in _statements(MIGRATIONS[number]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number + 1}")
            if version == 0:
                conn.execute("INSERT INTO meta (key, value) VALUES ('event', ?)", (event_id,))
                conn.execute("INSERT INTO meta (key, value) VALUES ('created', ?)", (now(),))
    stored = conn.execute("SELECT value FROM meta WHERE key = 'event'").fetchone()
    if stored is None or stored[0] != event_id:
        raise FileProblem(
            f"{path}: this results database belongs to event "
            f"{stored[0] if stored else '?'!r}, not {event_id!r}"
        )


def _statements(script: str) -> list[str]:
    """Split a migration script into statements (triggers keep their inner ``;``)."""
    out: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        code = line.split("--", 1)[0]
        buffer += code
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                out.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        out.append(buffer.strip())
    return out


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` … ``COMMIT``; rolled back on any exception."""
    _retry_busy("BEGIN IMMEDIATE", conn)
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def current_rows(conn: sqlite3.Connection) -> dict[tuple[int, str, str, int], sqlite3.Row]:
    rows = conn.execute("SELECT * FROM current_results").fetchall()
    return {(r["round"], r["match"], r["tbl"], r["board"]): r for r in rows}


def current_row(conn: sqlite3.Connection, slot: tuple[int, str, str, int]) -> sqlite3.Row | None:
    row: sqlite3.Row | None = conn.execute(
        "SELECT * FROM current_results WHERE round = ? AND match = ? AND tbl = ? AND board = ?",
        slot,
    ).fetchone()
    return row


def has_sample_rows(conn: sqlite3.Connection) -> bool:
    """Whether any current result came from an import marked as sample data."""
    return bool(conn.execute(
        "SELECT EXISTS (SELECT 1 FROM current_results r JOIN imports i ON i.id = r.import_id"
        " WHERE i.sample = 1)"
    ).fetchone()[0])


def scoring_rows(conn: sqlite3.Connection) -> list[tuple[int, str, str, int, int]]:
    """(round, match, table, board, defenders' points) of every current, non-withdrawn result."""
    return conn.execute(
        "SELECT round, match, tbl, board, defenders_points FROM current_results WHERE withdrawn = 0"
    ).fetchall()


def insert_batch(
    conn: sqlite3.Connection,
    entries: Sequence[Entry],
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
    """Insert ``entries`` (inside the caller's transaction) with an import record; its id.

    ``sample``: the rows are sample data (the file says so), shown with a banner in reports.
    """
    at = now()
    cursor = conn.execute(
        "INSERT INTO imports (source, sha256, kind, rows_added, rows_skipped, entered_by, at, sample)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (source, sha256, kind, len(entries), skipped, entered_by, at, int(sample)),
    )
    import_id = cursor.lastrowid
    links = supersedes if supersedes is not None else [None] * len(entries)
    conn.executemany(
        "INSERT INTO results (round, match, tbl, board, defenders_points, withdrawn, trump, declarer,"
        " level, ns_team, ew_team, note, entered_by, entered_at, import_id, source_row, supersedes,"
        " reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            (e.round, e.match, e.table, e.board, e.defenders_points, int(e.withdrawn), e.trump,
             e.declarer, e.level, e.ns_team, e.ew_team, e.note, e.entered_by or entered_by, at,
             import_id, e.source_row, link, reason if link is not None else None)
            for e, link in zip(entries, links, strict=True)
        ),
    )
    assert import_id is not None
    return import_id


def history(
    conn: sqlite3.Connection,
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
            bool(r["withdrawn"]), r["trump"], r["declarer"], r["level"], r["note"], r["entered_by"],
            r["entered_at"], r["source"], r["source_row"], r["supersedes"], r["reason"],
            bool(r["is_current"]),
        )
        for r in conn.execute(sql, args)
    ]


def snapshot(conn: sqlite3.Connection) -> list[tuple[object, ...]]:
    """Every row of every table (for tests: the database is unchanged)."""
    out: list[tuple[object, ...]] = []
    for table in ("meta", "imports", "results"):
        out.extend((table, *tuple(r)) for r in conn.execute(f"SELECT * FROM {table} ORDER BY 1"))
    return out
