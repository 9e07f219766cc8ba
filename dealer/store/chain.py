"""The hash chain over every row the tool writes: each row of the chained tables carries ``seq``
(1, 2, 3 … over all of them, in the order the tool wrote them) and ``chain`` = SHA-256(previous
link || the row's canonical JSON); the first link follows :func:`genesis`, bound to the event.

Here: the encoding (:func:`link`, and :func:`bulk_links` for a batch, exactly :func:`link` of
each row), and the audit's walk with what it finds (:class:`Finding`, :class:`AuditReport`):
every row edited, deleted or added outside the tool, every guard dropped or changed, an import's
rows not what it recorded.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from operator import itemgetter
from typing import Any

from dealer.store.schema import (
    CHAINED,
    GUARDED_TABLE,
    IMPORTED,
    META_KEYS,
    TABLE_COLUMNS,
    TRIGGERS,
    VIEWS,
    columns,
    kind_by_content,
)

CHAIN_TAG = b"shengji-dealer/results-chain/v1\x00"


def genesis(event_id: str) -> bytes:
    """The link before the first row: bound to the event."""
    return hashlib.sha256(CHAIN_TAG + event_id.encode("utf-8")).digest()


ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


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
        text = ENCODER.encode([seq, table, *values])
    except TypeError:  # a BLOB written behind the tool's back
        text = ENCODER.encode([seq, table, *map(_plain, values)])
    return text.encode("utf-8")


def is_link(text: str) -> bool:
    """Whether ``text`` is written as a chain link is (64 lower-case hexadecimal digits)."""
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def constant(column: Sequence[object]) -> bool:
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
    if constant(column):
        return [ENCODER.encode(_plain(column[0]))] * len(column) if len(column) else []
    if type(column[0]) is int and type(column[-1]) is int and all(type(v) is int for v in column):
        return list(map(str, column))  # a whole number's JSON is its decimal form
    try:
        encoded = {value: ENCODER.encode(_plain(value)) for value in set(column)}
    except TypeError:  # an unhashable value: not what the tool stores
        return [ENCODER.encode(_plain(value)) for value in column]
    if {type(value) for value in encoded} - {int, str, type(None)}:  # True == 1 == 1.0: one key
        return [ENCODER.encode(_plain(value)) for value in column]
    return list(map(encoded.__getitem__, column))


def bulk_links(previous: bytes, first_seq: int, table: str, columns: Sequence[Sequence[object]]) -> list[str]:
    """The chain values (hex) of consecutive rows given as columns (in the order of
    ``CHAINED[table]``), the first with link number ``first_seq``: exactly :func:`link` of each row,
    with each column encoded once per distinct value, runs of columns that are the same on every
    row joined once, and the rows joined column-wise."""
    n = len(columns[0]) if columns else 0
    parts: list[Sequence[str]] = [list(map(str, range(first_seq, first_seq + n)))]
    fixed = [f'"{table}"']  # the table name is plain ASCII: encoded as is
    for column in columns:
        if constant(column):
            fixed.append(ENCODER.encode(_plain(column[0])) if n else "null")
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


def link_of(previous: bytes, seq: int, table: str, values: Sequence[object]) -> bytes:
    """:func:`link` of a row given as the values of the columns its link covers, in order (the
    audit reads them so)."""
    return hashlib.sha256(previous + _content(seq, table, values)).digest()


def link(previous: bytes, seq: int, table: str, row: sqlite3.Row | dict[str, Any]) -> bytes:
    """The chain value of a row: SHA-256(previous link || canonical JSON of [seq, table, columns…])."""
    return link_of(previous, seq, table, [row[c] for c in CHAINED[table]])


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
    """What ``results audit`` found walking the chain of stored rows."""

    rows: int
    head: str | None
    findings: list[Finding] = field(default_factory=list)
    #: Where a published head stands in the chain (its link number), when one was given and found.
    published_link: int | None = None

    @property
    def ok(self) -> bool:
        return not self.findings


@dataclass(frozen=True)
class AuditMark:
    """Where an audit that found nothing left the chain: its last link number and that link, with
    what tells the database (the event, when it was made, SQLite's count of its schema changes:
    a guard dropped and made again moves it). A later audit given it walks only the rows after
    it (:func:`audit_after`); the site keeps one in its manifest."""

    event: str
    created: str
    schema: int
    seq: int
    link: str

    def as_json(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: object) -> AuditMark | None:
        """The mark ``data`` holds (as :meth:`as_json` wrote it); ``None`` if it is not one."""
        if not isinstance(data, dict):
            return None
        event, created, schema, seq, link_ = (data.get(k) for k in ("event", "created", "schema", "seq", "link"))
        if not (isinstance(event, str) and isinstance(created, str) and type(schema) is int
                and type(seq) is int and seq >= 1 and isinstance(link_, str) and is_link(link_)):
            return None
        return cls(event, created, schema, seq, link_)


def database_mark(conn: sqlite3.Connection, event_id: str) -> AuditMark | None:
    """The mark of the chain as it stands (``None``: no link yet, or no record of when the
    database was made)."""
    created = conn.execute("SELECT value FROM meta WHERE key = 'created'").fetchone()
    # Each table's last link through its index of seq (not a sort of every link).
    lasts = [row for t in CHAINED if columns(conn, t) for row in conn.execute(
        f"SELECT seq, chain FROM {t} WHERE typeof(seq) = 'integer' ORDER BY seq DESC LIMIT 1")]
    last = max(lasts, key=itemgetter(0), default=None)
    if created is None or last is None or not isinstance(last[1], str) or not is_link(last[1]):
        return None
    schema = int(conn.execute("PRAGMA schema_version").fetchone()[0])
    return AuditMark(event_id, str(created[0]), schema, int(last[0]), last[1])


def audit_after(conn: sqlite3.Connection, event_id: str, mark: AuditMark) -> list[Finding] | None:
    """The audit of a chain already audited up to ``mark``: ``None`` (walk the whole chain:
    :func:`audit_walk`) unless the database is the one marked (its event, when it was made, no
    schema change since: a guard dropped to edit a row and made again moves SQLite's count) and
    the link numbered ``mark.seq`` is still the one marked (a row rewritten before it, its links
    made again, changes it) and the tables hold as many rows as the chain has links (a row added
    or left without a link); else what the full audit's checks find in the guards and the meta,
    and in each row after the mark (its link from the one before, as the full walk checks it) and
    each import after it."""
    created = conn.execute("SELECT value FROM meta WHERE key = 'created'").fetchone()
    if mark.event != event_id or created is None or created[0] != mark.created \
            or int(conn.execute("PRAGMA schema_version").fetchone()[0]) != mark.schema:
        return None
    tables = [t for t in CHAINED if columns(conn, t)]
    at_mark = [r[0] for t in tables for r in conn.execute(f"SELECT chain FROM {t} WHERE seq = ?", (mark.seq,))]
    if at_mark != [mark.link]:
        return None
    counted = conn.execute(  # per table: a count of its pages, the last entry of its seq index
        "SELECT " + " + ".join(f"(SELECT count(*) FROM {t})" for t in tables)
        + ", max(" + ", ".join(f"coalesce((SELECT max(seq) FROM {t}), 0)" for t in tables) + ", 0)").fetchone()
    if counted[0] != counted[1]:
        return None
    findings = schema_findings(conn) + meta_findings(conn, event_id)
    rows = _chained_rows(conn, after=mark.seq)
    linked = sorted((row for row in rows if isinstance(row[0], int)), key=itemgetter(0))
    if len(linked) != len(rows):  # a link number that is not a whole one: the full walk names it
        return None
    chained = _walk(linked, bytes.fromhex(mark.link), mark.seq + 1, findings)
    findings.extend(batch_findings(conn, chained, after=mark.seq))
    return findings


def schema_findings(conn: sqlite3.Connection) -> list[Finding]:
    """Every guard or view dropped, changed or added, and every column the tool did not make."""
    found: list[Finding] = []
    stored = {r["name"]: (r["type"], r["sql"]) for r in conn.execute(
        "SELECT name, type, sql FROM sqlite_master WHERE type IN ('trigger', 'view')")}
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for name, sql in TRIGGERS.items():
        if GUARDED_TABLE[name] not in tables:
            continue  # an older schema, before its migration: see ResultsStore._check_columns
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
        if GUARDED_TABLE[name] in tables and (view is None or " ".join(view[1].split()) != " ".join(sql.split())):
            found.append(Finding("view-changed", f"view {name}", "missing or not the tool's"))
    # A column the tool did not make: its values are outside every link (and would be shown
    # by nothing), so a row could carry them unnoticed. Columns missing: ResultsStore._check_columns.
    for table, made in TABLE_COLUMNS.items():
        if table not in tables:
            continue
        for column in sorted(columns(conn, table) - set(made)):
            found.append(Finding("column-added", f"table {table}", f"column {column} is not the tool's: its "
                                 "values are outside the hash chain"))
    return found


def audit_walk(conn: sqlite3.Connection, event_id: str) -> AuditReport:
    """The whole chain walked (the audit's fast path: every row read as plain tuples)."""
    findings = schema_findings(conn) + meta_findings(conn, event_id)
    rows = _chained_rows(conn)
    linked = sorted((row for row in rows if isinstance(row[0], int) and row[0] >= 1),
                    key=itemgetter(0))
    for seq, table, row_id, _chain, _values in rows:
        if not (isinstance(seq, int) and seq >= 1):
            findings.append(Finding("added", f"{table} #{row_id}", "a row the tool did not write (no "
                                    "chain link)"))
    chained = _walk(linked, genesis(event_id), 1, findings)
    findings.extend(batch_findings(conn, chained))
    head = linked[-1][3] if linked else None
    return AuditReport(len(rows), None if head is None else str(head), findings)


def meta_findings(conn: sqlite3.Connection, event_id: str) -> list[Finding]:
    """The table meta not as the tool wrote it: another event's, keys it does not write, a result
    kind the rows contradict."""
    findings: list[Finding] = []
    meta = {r["key"]: r["value"] for r in conn.execute("SELECT key, value FROM meta")}
    if meta.get("event") != event_id:
        findings.append(Finding("meta", "table meta", f"names event {meta.get('event')!r}, not "
                                f"{event_id!r}: edited, or the database of another event"))
    if not {"event", "created", "chain"} <= set(meta) <= set(META_KEYS):
        findings.append(Finding("meta", "table meta", f"holds {sorted(meta)}; the tool writes "
                                f"{', '.join(META_KEYS)} only"))
    by_content = kind_by_content(conn)
    if "result" in meta and (meta["result"] not in ("boards", "levels")
                             or (by_content is not None and by_content != meta["result"])):
        findings.append(Finding("meta", "table meta", f"says result {meta['result']!r}, but the database holds "
                                f"{by_content or 'no result'}"))
    return findings


Row = tuple[object, str, object, object, tuple[object, ...]]


def _chained_rows(conn: sqlite3.Connection, after: int | None = None) -> list[Row]:
    """Every row of the chained tables (of those with a link number above ``after`` only, when
    given: read through each table's index of ``seq``) as (seq, table, id, chain, the columns its
    link covers), read as plain tuples (a league has 640,000). A database of an older schema
    (checked before its migration) lacks the newer tables."""
    rows: list[Row] = []
    for table in [t for t in CHAINED if columns(conn, t)]:
        cursor = conn.cursor()
        cursor.row_factory = None
        if after is None:
            cursor.execute(f"SELECT * FROM {table}")
        else:
            cursor.execute(f"SELECT * FROM {table} WHERE seq > ?", (after,))
        names = [d[0] for d in cursor.description]
        pick = itemgetter(*(names.index(c) for c in ("seq", "id", "chain")))
        covered = itemgetter(*(names.index(c) for c in CHAINED[table]))
        for r in cursor:
            seq, row_id, chain = pick(r)
            rows.append((seq, table, row_id, chain, covered(r)))
    return rows


def _walk(linked: Sequence[Row], previous: bytes | None, expected_seq: int,
          findings: list[Finding]) -> dict[tuple[str, object], int]:
    """Walk ``linked`` (rows with a link number, in its order, the first expected to be
    ``expected_seq`` and to follow ``previous``): every row edited, deleted or added is added to
    ``findings``; gives (table, id) → link of the rows kept in the chain."""
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
                 if previous is not None and c[3] == link_of(previous, seq, c[1], c[4]).hex()]
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
    return chained


def batch_findings(conn: sqlite3.Connection, chained: dict[tuple[str, object], int],
                   after: int | None = None) -> list[Finding]:
    """What the tool always writes together: an import record, then exactly its rows (as many
    as it says, the links right after its own, entered at its time), corrections and only they
    superseding a row. Catches rows forged with a right link, or cut from the end. ``after``:
    of the imports and rows with a link number above it only (a rebuild's audit after its mark;
    an import before it with rows after it shows as one whose count is wrong)."""
    found: list[Finding] = []
    # (table, row) by import, in link order: an import's rows are board results or level
    # results (the tool never mixes them, but the count covers both).
    # Each row as (table, id, seq, entered_at, supersedes), read as plain tuples (a league has
    # 640,000).
    results: dict[object, list[tuple[str, object, object, object, object]]] = {}
    cursor = conn.cursor()
    cursor.row_factory = None
    where, args = ("", ()) if after is None else (" WHERE seq > ?", (after,))
    imported = [t for t in IMPORTED if columns(conn, t)]
    for table in imported:
        for import_id, *row in cursor.execute(f"SELECT import_id, '{table}', id, seq, entered_at, supersedes "
                                              f"FROM {table}{where} ORDER BY seq", args):
            results.setdefault(import_id, []).append(tuple(row))
    for rows in results.values():
        rows.sort(key=lambda item: item[2] if isinstance(item[2], int) else 0)
    if after is None:
        imports = {row["id"]: row for row in conn.execute("SELECT * FROM imports")}
    else:
        imports = {row["id"]: row for row in conn.execute("SELECT * FROM imports WHERE seq > ?", (after,))}
        old = [i for i in results if i not in imports]
        for first in range(0, len(old), 500):
            part = old[first:first + 500]
            imports.update((row["id"], row) for row in conn.execute(
                f"SELECT * FROM imports WHERE id IN ({','.join('?' * len(part))})", part))
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
