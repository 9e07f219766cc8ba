"""The results database's migrations, forward only (``PRAGMA user_version`` counts those done).

Each runs once, in order, inside the transaction that opens the database for writing; their
effect is fixed: old databases (built by earlier versions, kept by directors) must open, upgrade
and audit clean. The tables' guards are made again after the last (:func:`schema.create_triggers`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from dealer.errors import FileProblem
from dealer.store.chain import CHAIN_TAG, genesis, link
from dealer.store.schema import ACTION_COLUMNS, RELEASE_COLUMNS, TRIGGERS, VIEWS, columns, kind_by_content


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
    view = VIEWS["current_results"].split(" AS ", 1)[1]
    conn.execute(f"CREATE VIEW IF NOT EXISTS current_results AS {view}")


def _migration_2(conn: sqlite3.Connection) -> None:
    """imports.sample: the file said it is sample data (first line "# sample data" / "# 样例数据").
    Databases made before it: the demo's sample file (sample-travellers.csv) was the only one."""
    if "sample" in columns(conn, "imports"):  # a user_version set back by hand: already done
        return
    conn.execute("ALTER TABLE imports ADD COLUMN sample INTEGER NOT NULL DEFAULT 0 CHECK (sample IN (0, 1))")
    conn.execute("DROP TRIGGER IF EXISTS imports_no_update")
    conn.execute("UPDATE imports SET sample = 1 WHERE kind = 'file' AND source LIKE '%sample-travellers.csv'")


def _migration_3(conn: sqlite3.Connection) -> None:
    """results.played_set (the set a result was played on; its seating is ns_team/ew_team); the
    hash chain (seq, chain) over both tables, linked for the rows already there; triggers that
    refuse INSERT OR REPLACE, and meta made append-only."""
    relink = "chain" not in columns(conn, "results")  # not when user_version was set back by hand
    if relink and conn.execute("SELECT 1 FROM meta WHERE key = 'chain'").fetchone() is not None:
        # The chain was made once: its columns were removed outside the tool. Linking the rows
        # afresh would launder whatever was changed with them.
        raise FileProblem("store.chain_columns_gone", hint="audit")
    for table, column, kind in (("results", "played_set", "INTEGER"), ("results", "seq", "INTEGER"),
                                ("results", "chain", "TEXT"), ("imports", "seq", "INTEGER"),
                                ("imports", "chain", "TEXT")):
        if column not in columns(conn, table):
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
    view = VIEWS["current_level_results"].split(" AS ", 1)[1]
    conn.execute(f"CREATE VIEW IF NOT EXISTS current_level_results AS {view}")


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
    kind = kind_by_content(conn)
    if kind is not None and conn.execute("SELECT 1 FROM meta WHERE key = 'result'").fetchone() is None:
        conn.execute("INSERT INTO meta (key, value) VALUES ('result', ?)", (kind,))


def _migration_8(conn: sqlite3.Connection) -> None:
    """Withdrawals (``dealer teams withdraw`` / ``rejoin``): actions of kind ``withdraw`` (its
    round: the first round the team misses) and ``rejoin`` (its round: the first it plays
    again), each with a reason."""
    _rebuild(conn, "actions", """
        CREATE TABLE actions (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('pair', 'undo', 'forfeit', 'late', 'end', 'withdraw', 'rejoin')),
            round INTEGER NOT NULL CHECK (round >= 1),
            data TEXT NOT NULL,
            reason TEXT,
            undoes INTEGER REFERENCES actions (id),
            entered_by TEXT,
            at TEXT NOT NULL,
            seq INTEGER,
            chain TEXT,
            CHECK ((kind = 'undo') = (undoes IS NOT NULL)),
            CHECK (kind NOT IN ('end', 'withdraw', 'rejoin') OR length(trim(coalesce(reason, ''))) > 0)
        )""", ACTION_COLUMNS, ("CREATE UNIQUE INDEX actions_seq ON actions (seq)",
                               "CREATE UNIQUE INDEX actions_undoes ON actions (undoes)"))


def _migration_9(conn: sqlite3.Connection) -> None:
    """penalties: the director's penalties and warnings, in the chain; a withdrawal is an
    ``undo`` row naming the one it withdraws."""
    conn.execute("""
        CREATE TABLE IF NOT EXISTS penalties (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('points', 'levels', 'board', 'match', 'match_points',
                                               'net_levels', 'disqualify', 'warning', 'undo')),
            round INTEGER NOT NULL CHECK (round >= 1),
            match TEXT NOT NULL,
            team TEXT NOT NULL,
            data TEXT NOT NULL,
            reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
            undoes INTEGER REFERENCES penalties (id),
            entered_by TEXT,
            at TEXT NOT NULL,
            seq INTEGER,
            chain TEXT,
            CHECK ((kind = 'undo') = (undoes IS NOT NULL))
        )""")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS penalties_seq ON penalties (seq)")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS penalties_undoes ON penalties (undoes)")


def _migration_10(conn: sqlite3.Connection) -> None:
    """lineups: who of a team's players sits at which table in a round, in the chain; a change
    supersedes the line-up it replaces (with a reason), as a correction does a result."""
    conn.execute("""
        CREATE TABLE IF NOT EXISTS lineups (
            id INTEGER PRIMARY KEY,
            round INTEGER NOT NULL CHECK (round >= 1),
            team TEXT NOT NULL,
            tables TEXT NOT NULL,
            supersedes INTEGER UNIQUE REFERENCES lineups (id),
            reason TEXT,
            entered_by TEXT,
            at TEXT NOT NULL,
            seq INTEGER,
            chain TEXT,
            CHECK (supersedes IS NULL OR (reason IS NOT NULL AND length(trim(reason)) > 0))
        )""")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS lineups_first_entry ON lineups (round, team)"
                 " WHERE supersedes IS NULL")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS lineups_seq ON lineups (seq)")
    view = VIEWS["current_lineups"].split(" AS ", 1)[1]
    conn.execute(f"CREATE VIEW IF NOT EXISTS current_lineups AS {view}")


def _migration_11(conn: sqlite3.Connection) -> None:
    """Live entry's working state (``dealer serve``, docs/serve.md), outside the chain: what a table
    typed before the other side confirmed it is not a result. A confirmed entry becomes one (the
    results table, in the chain) in the same transaction that marks it confirmed.

    ``live_sheets``: a printed sheet's generation (a reprint revokes the old one), its lock after
    wrong team codes, the recap confirmed by each side. ``live_entries``: every entry, in order
    (``state``: entered, confirmed, conflict, replaced). ``live_nonces``: each form's server nonce,
    used once, with what the request did (a retry gets the same answer and stores nothing).
    ``live_log``: every write, with the sheet, device, address and time. ``live_devices``: who
    opened a sheet, and when last. ``live_flags``: what the director clears before the round closes.
    """
    conn.execute("""
        CREATE TABLE IF NOT EXISTS live_sheets (
            round INTEGER NOT NULL CHECK (round >= 1),
            match TEXT NOT NULL,
            tbl TEXT NOT NULL,
            generation INTEGER NOT NULL DEFAULT 1 CHECK (generation >= 1),
            wrong_codes INTEGER NOT NULL DEFAULT 0,
            locked_at TEXT,
            recap_scorer_at TEXT,
            recap_confirmer_at TEXT,
            PRIMARY KEY (round, match, tbl)
        )""")
    conn.execute("""
        CREATE TABLE IF NOT EXISTS live_entries (
            id INTEGER PRIMARY KEY,
            round INTEGER NOT NULL,
            match TEXT NOT NULL,
            tbl TEXT NOT NULL,
            slot TEXT NOT NULL,
            generation INTEGER NOT NULL,
            fields TEXT NOT NULL,
            device TEXT NOT NULL,
            at TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('entered', 'confirmed', 'conflict', 'replaced')),
            confirmed_by TEXT,
            confirmed_at TEXT,
            result_import INTEGER
        )""")
    conn.execute("CREATE INDEX IF NOT EXISTS live_entries_sheet ON live_entries (round, match, tbl, slot)")
    conn.execute("""
        CREATE TABLE IF NOT EXISTS live_nonces (
            nonce TEXT PRIMARY KEY,
            at TEXT NOT NULL,
            outcome TEXT NOT NULL
        )""")
    conn.execute("""
        CREATE TABLE IF NOT EXISTS live_log (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            round INTEGER,
            match TEXT,
            tbl TEXT,
            action TEXT NOT NULL,
            slot TEXT,
            device TEXT,
            address TEXT,
            agent TEXT,
            detail TEXT
        )""")
    conn.execute("""
        CREATE TABLE IF NOT EXISTS live_devices (
            round INTEGER NOT NULL,
            match TEXT NOT NULL,
            tbl TEXT NOT NULL,
            device TEXT NOT NULL,
            first_at TEXT NOT NULL,
            last_at TEXT NOT NULL,
            address TEXT,
            agent TEXT,
            PRIMARY KEY (round, match, tbl, device)
        )""")
    conn.execute("""
        CREATE TABLE IF NOT EXISTS live_flags (
            id INTEGER PRIMARY KEY,
            round INTEGER NOT NULL,
            match TEXT NOT NULL,
            tbl TEXT NOT NULL,
            slot TEXT,
            kind TEXT NOT NULL CHECK (kind IN ('far-apart', 'devices', 'conflict')),
            detail TEXT NOT NULL,
            at TEXT NOT NULL,
            cleared_at TEXT,
            cleared_by TEXT,
            reason TEXT,
            UNIQUE (round, match, tbl, slot, kind)
        )""")
    # A director's one-time link (its token's SHA-256; used once) and the session it opened
    # (the cookie's SHA-256): neither token is kept in clear.
    conn.execute("""
        CREATE TABLE IF NOT EXISTS live_directors (
            link TEXT PRIMARY KEY,
            made_at TEXT NOT NULL,
            used_at TEXT,
            session TEXT UNIQUE,
            expires_at TEXT,
            address TEXT,
            agent TEXT
        )""")


def _migration_12(conn: sqlite3.Connection) -> None:
    """Live entry as a real event uses it. ``live_writers``: the devices that wrote on a sheet
    (entered, confirmed, disputed, closed the recap), by the sheet's generation: a third one
    raises the devices flag, a page view never does. The live log read by sheet (the devices, why
    a sheet was replaced)."""
    conn.execute("""
        CREATE TABLE IF NOT EXISTS live_writers (
            round INTEGER NOT NULL,
            match TEXT NOT NULL,
            tbl TEXT NOT NULL,
            generation INTEGER NOT NULL,
            writer TEXT NOT NULL,
            first_at TEXT NOT NULL,
            address TEXT,
            agent TEXT,
            PRIMARY KEY (round, match, tbl, generation, writer)
        )""")
    conn.execute("CREATE INDEX IF NOT EXISTS live_log_sheet ON live_log (round, match, tbl)")


def _migration_13(conn: sqlite3.Connection) -> None:
    """appeals (申诉 → 仲裁, issue 38): an appeal lodged (``kind`` "lodge": the round, the team,
    what it contests, why, its deadline) and the decision on it (``kind`` "decide", naming the
    appeal in ``decides``: upheld or dismissed, by whom, why), in the chain; one decision an appeal."""
    conn.execute("""
        CREATE TABLE IF NOT EXISTS appeals (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('lodge', 'decide')),
            round INTEGER NOT NULL CHECK (round >= 1),
            team TEXT NOT NULL,
            against TEXT,
            reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
            deadline TEXT,
            decides INTEGER REFERENCES appeals (id),
            decision TEXT CHECK (decision IS NULL OR decision IN ('upheld', 'dismissed')),
            entered_by TEXT,
            at TEXT NOT NULL,
            seq INTEGER,
            chain TEXT,
            CHECK ((kind = 'decide') = (decides IS NOT NULL AND decision IS NOT NULL)),
            CHECK (kind = 'decide' OR (against IS NOT NULL AND length(trim(against)) > 0))
        )""")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS appeals_seq ON appeals (seq)")
    conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS appeals_decides ON appeals (decides)")


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _migration_1, _migration_2, _migration_3, _migration_4, _migration_5, _migration_6, _migration_7,
    _migration_8, _migration_9, _migration_10, _migration_11, _migration_12, _migration_13)
SCHEMA_VERSION = len(MIGRATIONS)
