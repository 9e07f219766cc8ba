"""The results database: SQLite in the event's folder (``boards/<event>/results.sqlite``).

* WAL journal, foreign keys on, a busy timeout, and every write in one ``BEGIN IMMEDIATE``
  transaction: concurrent writers queue instead of failing, a killed process leaves nothing
  half-written.
* Append-only: triggers refuse ``UPDATE`` and ``DELETE``, and ``INSERT OR REPLACE`` (which
  would delete a row without firing a delete trigger) is refused before it can replace anything.
  A correction is a new row that ``supersedes`` the current one and records who, when and why;
  the current value of a slot (round, match, table, board) is the row nobody supersedes.
* Tamper-evident: every row of the chained tables carries ``seq`` (1, 2, 3 … over all of
  them, in the order the tool wrote them) and ``chain`` = SHA-256(previous chain || the row's
  canonical content). :meth:`ResultsStore.audit` re-walks the chain and names every row edited,
  deleted or added behind the tool's back, and every trigger dropped or changed; every write
  first checks the last link; reports print the chain head, so a rewrite after publication shows
  against the published report.
* Owner-only (0600) whatever the umask; read-only commands open it read-only (``mode=ro``, or
  ``immutable`` on a read-only medium) and never create it.
* Versioned schema (``PRAGMA user_version``) with forward migrations
  (:mod:`dealer.store.migrations`); the tables are declared as data in :mod:`dealer.store.schema`,
  the chain and its audit are :mod:`dealer.store.chain`.
* One API for both result kinds: every result read and write takes the kind's table spec
  (:data:`~dealer.store.schema.BOARDS` or :data:`~dealer.store.schema.LEVELS`).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from operator import itemgetter
from pathlib import Path
from typing import Any

from dealer.errors import EnvironmentProblem, FileProblem, Phrase, UserError, quote
from dealer.files import OWNER_ONLY, make_folder, os_problem
from dealer.store.chain import (
    ENCODER,
    AuditMark,
    AuditReport,
    Finding,
    audit_after,
    audit_walk,
    bulk_links,
    constant,
    database_mark,
    genesis,
    is_link,
    link,
    schema_findings,
)
from dealer.store.live import LiveStore
from dealer.store.migrations import MIGRATIONS, SCHEMA_VERSION
from dealer.store.rows import Action, AppealRow, EntryBatch, LineupRow, PenaltyRow, Release, StoredRow
from dealer.store.schema import (
    ACTION_COLUMNS,
    ALL_LINKS,
    APPEAL_COLUMNS,
    CHAINED,
    IMPORTED,
    LINEUP_COLUMNS,
    LIVE_TABLES,
    PENALTY_COLUMNS,
    RELEASE_COLUMNS,
    RESULT_TABLES,
    TABLE_COLUMNS,
    EntryT,
    ResultTable,
    SeatingT,
    SlotT,
    create_triggers,
    entry_field,
    kind_by_content,
)
from dealer.store.schema import columns as columns_of

BUSY_TIMEOUT_S = 60.0


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


def _entry_columns(kind: ResultTable[Any, Any, Any], entries: Sequence[Any] | EntryBatch
                   ) -> dict[str, Sequence[object]]:
    """The columns ``kind``'s entries give (:attr:`ResultTable.entered`), one list per column:
    from an :class:`EntryBatch` as it holds them, else read off each entry (``withdrawn`` as 0/1)."""
    if isinstance(entries, EntryBatch):
        return {c: getattr(entries, entry_field(c)) for c in kind.entered}
    given: dict[str, Sequence[object]] = {c: [getattr(e, entry_field(c)) for e in entries] for c in kind.entered}
    given["withdrawn"] = [int(e.withdrawn) for e in entries]
    return given


class ResultsStore:
    """The results database of one event, open for writing or read-only."""

    def __init__(self, conn: sqlite3.Connection, path: Path, event_id: str, readonly: bool) -> None:
        self.conn = conn
        self.path = path
        self.event_id = event_id
        self.readonly = readonly
        #: The ``schema_version`` whose guards and views were last found intact (:meth:`check_tail`).
        self._schema_checked: int | None = None
        #: Inside :meth:`batch`: a transaction is a savepoint.
        self._batched = False
        #: Chained rows written through this store (results, actions, …): what was read of them
        #: before is stale once it moves (a session forgets its reports then).
        self.chained_writes = 0

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
                store._checkcolumns_of()
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
                    store._checkcolumns_of()
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
            if version < SCHEMA_VERSION and "chain" in columns_of(conn, "results"):
                self._refuse_changed_chain()
            for number in range(version, SCHEMA_VERSION):
                MIGRATIONS[number](conn)
                conn.execute(f"PRAGMA user_version = {number + 1}")
            if version == 0 and conn.execute("SELECT 1 FROM meta WHERE key = 'event'").fetchone() is None:
                conn.execute("INSERT INTO meta (key, value) VALUES ('event', ?)", (self.event_id,))
                conn.execute("INSERT INTO meta (key, value) VALUES ('created', ?)", (now(),))
            create_triggers(conn)

    def _refuse_changed_chain(self) -> None:
        """``user_version`` was set back by hand on a database that already has the chain: the
        migrations must not re-create guards or links over rows changed outside the tool."""
        report = audit_walk(self.conn, self.event_id)
        if not report.ok:
            shown = "; ".join(f.text() for f in report.findings[:3])
            more = Phrase.of("store.and_more", more=len(report.findings) - 3) if len(report.findings) > 3 else ""
            raise FileProblem("store.schema_set_back", path=self.path, shown=shown, more=more)

    def _checkcolumns_of(self) -> None:
        """Refuse a schema changed by hand (a column renamed or dropped): every query below
        names its columns, and a missing one would fail in the middle of a command."""
        made_by_tool = {**TABLE_COLUMNS, **{t.name: t.columns for t in LIVE_TABLES}}
        for table, made in made_by_tool.items():
            present = columns_of(self.conn, table)
            missing = [c for c in made if c not in present]
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
            by_content = kind_by_content(self.conn)
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
    def batch(self) -> Iterator[None]:
        """One ``BEGIN IMMEDIATE`` … ``COMMIT`` (the last link checked once) around several
        writes: each :meth:`transaction` inside is a savepoint, rolled back alone when it fails.
        Nothing inside is stored before the COMMIT: a write is answered only after it (group
        commit, ``dealer serve``: one fsync for the entries that queued while the last one ran).
        The COMMIT failing stores none of them."""
        with self._transaction(check=True):
            self._batched = True
            try:
                yield
            finally:
                self._batched = False

    @property
    def in_transaction(self) -> bool:
        return self.conn.in_transaction

    @contextmanager
    def _savepoint(self) -> Iterator[None]:
        conn = self.conn
        with _sqlite_errors(self.path):
            conn.execute("SAVEPOINT write")
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                with _sqlite_errors(self.path):
                    conn.execute("ROLLBACK TO write")
                    conn.execute("RELEASE write")
            raise
        with _sqlite_errors(self.path):
            conn.execute("RELEASE write")

    @contextmanager
    def _transaction(self, check: bool) -> Iterator[None]:
        if self.readonly:
            raise FileProblem("store.opened_read_only", path=self.path)  # pragma: no cover - a bug
        if self._batched:
            with self._savepoint():
                yield
            return
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
            # The schema is read again only when its version moved (any connection's change of a
            # guard, a view or a column moves it; read here, inside the write's transaction): it
            # was 30 % of the server's CPU an entry when read before every write.
            version = int(conn.execute("PRAGMA schema_version").fetchone()[0])
            problems = [] if version == self._schema_checked else [f.text() for f in schema_findings(conn)]
            self._schema_checked = version if not problems else None
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
            f"SELECT seq, chain FROM ({ALL_LINKS}) WHERE typeof(seq) = 'integer' ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return 0, genesis(self.event_id)
        return int(row[0]), bytes.fromhex(row[1])

    def insert(
        self,
        kind: ResultTable[EntryT, Any, Any],
        entries: Sequence[EntryT] | EntryBatch,
        *,
        source: str,
        import_kind: str,
        sha256: str | None = None,
        entered_by: str | None = None,
        skipped: int = 0,
        supersedes: Sequence[int | None] | None = None,
        reason: str | None = None,
        sample: bool = False,
    ) -> int:
        """Insert result rows of ``kind`` (inside :meth:`transaction`) with an import record of
        kind ``import_kind`` (``file``, ``add``, ``correct``); its id. ``supersedes``: per row,
        the id of the row it corrects (``reason`` says why).

        ``sample``: the rows are sample data (the file says so), shown with a banner in reports.
        The rows are the links right after their import record, linked in bulk (:func:`bulk_links`)
        and stored with one ``INSERT … SELECT`` from a staged temporary table: the append-only
        triggers and every index check each row as for any insert. Board results may come as
        columns (:class:`EntryBatch`), without an object per row.
        """
        n = len(entries)
        import_id, at, seq, previous = self._insert_import(n, source=source, kind=import_kind, sha256=sha256,
                                                           entered_by=entered_by, skipped=skipped, sample=sample)
        given = _entry_columns(kind, entries)
        with _sqlite_errors(self.path):
            table = kind.table.name
            next_id = int(self.conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0])
            links = list(supersedes) if supersedes is not None else [None] * n
            record: dict[str, Sequence[object]] = {
                "id": range(next_id, next_id + n), "entered_at": [at] * n, "import_id": [import_id] * n,
                "supersedes": links, "reason": [reason if superseded is not None else None for superseded in links]}
            given["entered_by"] = [by or entered_by for by in given["entered_by"]]
            self._insert_linked(table, {c: given[c] if c in given else record[c] for c in kind.table.columns},
                                seq, previous)
        return import_id

    def _insert_linked(self, table: str, columns: dict[str, Sequence[object]], seq: int, previous: bytes) -> None:
        """Insert the rows of ``columns`` (every column of ``CHAINED[table]``) into ``table`` as the
        links after ``seq`` (whose chain value is ``previous``): linked in bulk, stored staged."""
        n = len(columns["id"])
        if any(len(column) != n for column in columns.values()):
            raise ValueError("one value per row in every column")  # pragma: no cover - a bug
        self.chained_writes += 1
        chain = bulk_links(previous, seq + 1, table, [columns[c] for c in CHAINED[table]])
        self._insert_staged(table, {**columns, "seq": range(seq + 1, seq + 1 + n), "chain": chain})

    def _insert_staged(self, table: str, columns: dict[str, Sequence[object]]) -> None:
        """Insert the rows of ``columns`` into ``table`` with one ``INSERT … SELECT`` from a temporary
        table that holds only the columns whose value changes from row to row (the others are
        parameters of the statement)."""
        names = list(columns)  # the first (the id) is always staged: it gives the rows their number
        varying = [name for name in names if name == names[0] or not constant(columns[name])]
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

    def insert_action(self, kind: str, round_number: int, data: dict[str, Any], *, reason: str | None = None,
                      undoes: int | None = None, entered_by: str | None = None) -> int:
        """Append one director's action (inside :meth:`transaction`); its id."""
        row = self._append_chained("actions", ACTION_COLUMNS, {
            "kind": kind, "round": round_number, "data": ENCODER.encode(data), "reason": reason,
            "undoes": undoes, "entered_by": entered_by, "at": now()})
        return int(row["id"])

    def _append_chained(self, table: str, columns: Sequence[str], values: dict[str, Any]) -> dict[str, Any]:
        """Append one row (the next id) to an append-only table of the hash chain: the row as stored."""
        seq, previous = self._last_link()
        self.chained_writes += 1
        row_id = int(self.conn.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0])
        row = {"id": row_id, **values}
        seq += 1
        with _sqlite_errors(self.path):
            self.conn.execute(
                f"INSERT INTO {table} ({', '.join(columns)}, seq, chain) VALUES "
                f"({', '.join(':' + c for c in columns)}, :seq, :chain)",
                {**row, "seq": seq, "chain": link(previous, seq, table, row).hex()})
        return row

    def insert_penalty(self, kind: str, round_number: int, match: str, team: str, data: dict[str, Any], *,
                       reason: str, undoes: int | None = None, entered_by: str | None = None) -> int:
        """Append one penalty, warning or withdrawal (inside :meth:`transaction`); its id."""
        row = self._append_chained("penalties", PENALTY_COLUMNS, {
            "kind": kind, "round": round_number, "match": match, "team": team, "data": ENCODER.encode(data),
            "reason": reason, "undoes": undoes, "entered_by": entered_by, "at": now()})
        return int(row["id"])

    def penalties(self) -> list[PenaltyRow]:
        """The penalties, warnings and withdrawals, oldest first (none in a database made before them)."""
        if not columns_of(self.conn, "penalties"):
            return []
        rows = self._query("SELECT p.*, EXISTS (SELECT 1 FROM penalties u WHERE u.undoes = p.id) AS undone"
                           " FROM penalties p ORDER BY p.id")
        return [PenaltyRow(r["id"], r["kind"], r["round"], r["match"], r["team"], json.loads(r["data"]),
                           r["reason"], r["undoes"], r["entered_by"], r["at"], bool(r["undone"])) for r in rows]

    def insert_appeal(self, round_number: int, team: str, against: str, reason: str, deadline: str | None, *,
                      entered_by: str | None = None) -> int:
        """Append one appeal lodged (inside :meth:`transaction`); its id."""
        row = self._append_chained("appeals", APPEAL_COLUMNS, {
            "kind": "lodge", "round": round_number, "team": team, "against": against, "reason": reason,
            "deadline": deadline, "decides": None, "decision": None, "entered_by": entered_by, "at": now()})
        return int(row["id"])

    def insert_appeal_decision(self, appeal: AppealRow, decision: str, reason: str, *,
                               entered_by: str | None = None) -> int:
        """Append the decision on ``appeal`` (inside :meth:`transaction`); its id."""
        row = self._append_chained("appeals", APPEAL_COLUMNS, {
            "kind": "decide", "round": appeal.round, "team": appeal.team, "against": None, "reason": reason,
            "deadline": None, "decides": appeal.id, "decision": decision, "entered_by": entered_by, "at": now()})
        return int(row["id"])

    def appeals(self) -> list[AppealRow]:
        """The appeals lodged, oldest first, each with its decision (none in a database made before them)."""
        if not columns_of(self.conn, "appeals"):
            return []
        rows = self._query("SELECT a.*, d.decision AS decided, d.entered_by AS decided_by,"
                           " d.reason AS decision_reason, d.at AS decided_at FROM appeals a"
                           " LEFT JOIN appeals d ON d.decides = a.id WHERE a.kind = 'lodge' ORDER BY a.id")
        return [AppealRow(r["id"], r["round"], r["team"], r["against"], r["reason"], r["deadline"],
                          r["entered_by"], r["at"], r["decided"], r["decided_by"], r["decision_reason"],
                          r["decided_at"], number) for number, r in enumerate(rows, start=1)]

    def round_entered_at(self, round_number: int) -> str | None:
        """When the last result in force of round ``round_number`` was stored (``None``: none yet)."""
        times = [str(row[0]) for kind in RESULT_TABLES.values() if columns_of(self.conn, kind.table.name)
                 for row in self._query(f"SELECT max(entered_at) FROM {kind.table.current_view} WHERE round = ?",
                                        (round_number,)) if row[0] is not None]
        return max(times) if times else None

    def insert_release(self, kind: str, set_number: int | None, reason: str, entered_by: str | None = None) -> Release:
        """Append one release (inside :meth:`transaction`)."""
        row = self._append_chained("releases", RELEASE_COLUMNS, {
            "kind": kind, "set_number": set_number, "reason": reason, "entered_by": entered_by, "at": now()})
        return Release(kind, set_number, reason, entered_by, str(row["at"]))

    def insert_lineup(self, round_number: int, team: str, tables: dict[str, list[str]], *,
                      supersedes: int | None = None, reason: str | None = None,
                      entered_by: str | None = None) -> LineupRow:
        """Append one team's line-up for one round (inside :meth:`transaction`); ``supersedes``:
        the id of the line-up it replaces (``reason`` says why)."""
        row = self._append_chained("lineups", LINEUP_COLUMNS, {
            "round": round_number, "team": team, "tables": ENCODER.encode(tables), "supersedes": supersedes,
            "reason": reason, "entered_by": entered_by, "at": now()})
        return LineupRow(int(row["id"]), round_number, team, tables, supersedes, reason, entered_by, str(row["at"]))

    def lineups(self, round_number: int | None = None, *, history: bool = False) -> list[LineupRow]:
        """The current line-up of every team and round (``history``: every stored one, those
        replaced too), oldest first; of one round only, when given. None in a database made
        before line-ups (it is upgraded by its first write)."""
        with _sqlite_errors(self.path):
            if not columns_of(self.conn, "lineups"):
                return []
        where, args = ("", ()) if round_number is None else (" WHERE round = ?", (round_number,))
        rows = self._query(f"SELECT * FROM {'lineups' if history else 'current_lineups'}{where} ORDER BY id", args)
        return [LineupRow(r["id"], r["round"], r["team"], json.loads(r["tables"]), r["supersedes"], r["reason"],
                          r["entered_by"], r["at"]) for r in rows]

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

    def current(self, kind: ResultTable[Any, Any, SlotT], rounds: Sequence[int] | None = None
                ) -> dict[SlotT, sqlite3.Row]:
        """The current row of every slot of ``kind`` (of ``rounds`` only, when given), by slot."""
        where, args = "", list(rounds or ())
        if rounds is not None:
            where = f" WHERE round IN ({','.join('?' * len(args))})"
        slot = itemgetter(*kind.slot)
        return {slot(r): r for r in self._query(f"SELECT * FROM {kind.view}{where}", args)}

    def superseded(self, kind: ResultTable[Any, Any, SlotT], rounds: Sequence[int]
                   ) -> dict[SlotT, list[sqlite3.Row]]:
        """The rows of ``rounds`` a later row supersedes, by slot, oldest first."""
        marks = ",".join("?" * len(rounds))
        table = kind.table.name
        found: dict[SlotT, list[sqlite3.Row]] = {}
        slot = itemgetter(*kind.slot)
        for r in self._query(f"SELECT r.* FROM {table} r WHERE r.round IN ({marks}) AND EXISTS "
                             f"(SELECT 1 FROM {table} s WHERE s.supersedes = r.id) ORDER BY r.id", rounds):
            found.setdefault(slot(r), []).append(r)
        return found

    def current_row(self, kind: ResultTable[Any, Any, SlotT], slot: SlotT) -> sqlite3.Row | None:
        """The current row of one slot of ``kind`` (``None``: nothing stored there)."""
        where = " AND ".join(f"{c} = ?" for c in kind.slot)
        rows = self._query(f"SELECT * FROM {kind.view} WHERE {where}", tuple(slot))
        return rows[0] if rows else None

    def match_rows(self, kind: ResultTable[Any, Any, Any], round_number: int, match: str) -> list[sqlite3.Row]:
        """The current, non-withdrawn rows of one match, in slot order."""
        order = ", ".join(kind.slot[2:])
        return self._query(f"SELECT * FROM {kind.view} WHERE round = ? AND match = ? AND withdrawn = 0"
                           f" ORDER BY {order}", (round_number, match))

    def stored_by_match(self, kind: ResultTable[Any, Any, Any], round_number: int) -> dict[str, int]:
        """How many current, non-withdrawn results each match of a round has."""
        return {str(r[0]): int(r[1]) for r in self._query(
            f"SELECT match, count(*) FROM {kind.view} WHERE round = ? AND withdrawn = 0 GROUP BY match",
            (round_number,))}

    def match_stamp(self, kind: ResultTable[Any, Any, Any], round_number: int, match: str) -> tuple[Any, ...]:
        """Two counts of a match's rows (the last one's id, how many) that change whenever one is
        stored, and the last director's action: what a sheet's page shows of them changes only then."""
        rows = self._query(f"SELECT max(id), count(*) FROM {kind.table.name} WHERE round = ? AND match = ?",
                           (round_number, match))[0]
        return (*rows, self._query("SELECT max(id) FROM actions")[0][0])

    def data_version(self) -> int:
        """SQLite's ``data_version``: it changes when another connection commits."""
        return int(self._query("PRAGMA data_version")[0][0])

    @functools.cached_property
    def live(self) -> LiveStore:
        """Live entry's working tables (``dealer serve``) on this connection."""
        return LiveStore(self.conn)

    def has_sample_rows(self) -> bool:
        """Whether any current result (board or level) came from an import marked as sample data."""
        # From the few sample imports to their rows (not every row to its import).
        rows = " OR ".join(f"EXISTS (SELECT 1 FROM {kind.view} r WHERE r.import_id = i.id AND r.withdrawn = 0)"
                           for kind in RESULT_TABLES.values())
        return bool(self._query(f"SELECT EXISTS (SELECT 1 FROM imports i WHERE i.sample = 1 AND ({rows}))")[0][0])

    def scoring_rows(self, kind: ResultTable[Any, Any, Any]) -> list[tuple[Any, ...]]:
        """What scoring reads (``kind.scoring``: boards (round, match, table, board, defenders'
        points, trump or ``None``), a level race (round, match, table, home level, away level,
        last game's winner)) of every current, non-withdrawn row, as plain tuples (a league has
        hundreds of thousands)."""
        with _sqlite_errors(self.path):
            cursor = self.conn.cursor()
            cursor.row_factory = None
            return cursor.execute(f"SELECT {', '.join(kind.scoring)} FROM {kind.view} WHERE withdrawn = 0").fetchall()

    def seatings(self, kind: ResultTable[Any, SeatingT, Any], rounds: Sequence[int] | None = None) -> list[SeatingT]:
        """How every match was seated as its current results record it, each distinct (boards:
        :class:`Seating` per table, a level race: :class:`LevelSeating` per match); of ``rounds``
        only, when given."""
        where, args = "", list(rounds or ())
        if rounds is not None:
            where = f" AND round IN ({','.join('?' * len(args))})"
        order = ", ".join(c for c in kind.slot if c in kind.seating)
        return [kind.seating_row(*r) for r in self._query(
            f"SELECT DISTINCT {', '.join(kind.seating)} FROM {kind.view} WHERE withdrawn = 0{where} ORDER BY {order}",
            args)]

    def history(self, kind: ResultTable[Any, Any, Any], round_number: int | None = None, match: str | None = None,
                table: str | int | None = None, board: int | None = None) -> list[StoredRow]:
        """Every stored row of ``kind`` (superseded ones included), oldest first, optionally of one
        round, match, table or (boards) board."""
        given = (round_number, match, table, board)
        if any(value is not None for value in given[len(kind.slot):]):
            raise ValueError(f"{kind.name}: a slot is {', '.join(kind.slot)}")  # pragma: no cover - a bug
        where, args = [], []
        for column, value in zip(kind.slot, given, strict=False):
            if value is not None:
                where.append(f"r.{column} = ?")
                args.append(value)
        name = kind.table.name
        sql = (f"SELECT r.*, i.source AS source, NOT EXISTS (SELECT 1 FROM {name} s WHERE s.supersedes = r.id)"
               f" AS is_current FROM {name} r JOIN imports i ON i.id = r.import_id"
               + (" WHERE " + " AND ".join(where) if where else "")
               + f" ORDER BY {', '.join(f'r.{c}' for c in kind.slot)}, r.id")
        out = []
        for r in self._query(sql, args):
            stored = {c: r[c] for c in kind.table.columns}
            stored["withdrawn"] = bool(stored["withdrawn"])
            out.append(StoredRow(stored, r["source"], bool(r["is_current"]), kind.json_names))
        return out

    def last_entry_at(self) -> str | None:
        """When the tool last stored anything (results, an action or a release)."""
        times = [row[0] for table in ("imports", "actions", "releases", "penalties", "lineups", "appeals")
                 if columns_of(self.conn, table)
                 for row in self._query(f"SELECT max(at) FROM {table}") if row[0] is not None]
        return max(times) if times else None

    def chain_head(self) -> str | None:
        """The last link of the chain (hex), which a published report prints; ``None`` if empty."""
        with _sqlite_errors(self.path):
            seq, head = self._last_link()
        return head.hex() if seq else None

    # --- audit ---------------------------------------------------------------------------

    def audit(self, published_head: str | None = None) -> AuditReport:
        """Walk the whole chain: every row edited, deleted or added outside the tool, every guard
        dropped or changed, the event identity; and, given the head a report published, whether
        the results it showed are still the start of the chain.

        The chain has no key: someone who rewrites the database and recomputes every link after
        the rewrite is caught only by a head published before it (``published_head``).
        """
        if published_head is not None and not is_link(published_head.strip().lower()):
            raise UserError("store.not_a_chain_head", field="head", published_head=quote(published_head))
        with self.snapshot(), _sqlite_errors(self.path):  # one state, whatever is stored meanwhile
            report = audit_walk(self.conn, self.event_id)
            found = None if published_head is None else self.conn.execute(
                f"SELECT seq FROM ({ALL_LINKS}) WHERE chain = ?", (published_head.strip().lower(),)).fetchone()
        if published_head is not None:
            wanted = published_head.strip().lower()
            if found is None:
                report.findings.append(Finding(
                    "head", "published head", f"{wanted[:16]}… is not a link of the chain: the results were "
                    "rewritten after it was published"))
            else:
                report.published_link = int(found[0])
        return report

    def audit_mark(self) -> AuditMark | None:
        """Where the chain stands now, as a mark an audit that found nothing can hand on
        (:meth:`require_intact`'s ``audited``); ``None`` while the chain is empty."""
        with _sqlite_errors(self.path):
            return database_mark(self.conn, self.event_id)

    def require_intact(self, refused: object, audited: AuditMark | None = None) -> None:
        """Refuse (``refused``: what is not done) when the audit finds anything: the rows that
        decide what becomes public or how a round is paired (releases, pairings, results) are
        trusted only as links of the chain.

        ``audited``: the mark (:meth:`audit_mark`) of an earlier audit of this database that
        found nothing (the site's last build): then the link it names must still be that link,
        and only the rows after it are walked, with the guards and the meta
        (:func:`~dealer.store.chain.audit_after`); a mark that does not fit this database, or
        anything found, costs the whole walk (:meth:`audit`), whose findings are the ones shown."""
        with self.snapshot():  # one state of the database, whatever is stored meanwhile
            findings = None
            if audited is not None:
                with _sqlite_errors(self.path):
                    findings = audit_after(self.conn, self.event_id, audited)
            if findings is None or findings:
                findings = self.audit().findings
        if not findings:
            return
        shown = "; ".join(f.text() for f in findings[:3])
        more = Phrase.of("store.and_more", more=len(findings) - 3) if len(findings) > 3 else ""
        raise ChangedOutsideTheTool("store.changed_outside", hint="audit", path=self.path, shown=shown, more=more,
                                    refused=refused)

