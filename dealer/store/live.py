"""Live entry's working tables (``dealer serve``, docs/serve.md), declared in
:mod:`dealer.store.schema` (:data:`~dealer.store.schema.LIVE_TABLES`): every statement on them is
here, as a named method; the rules are in :mod:`dealer.app.live`.

A sheet is named by its key, ``(round, match, table)``. Values that are structured (an entry's
fields, a flag's detail, a nonce's outcome) are kept as JSON text and given back as read.
Nothing here opens a transaction: the use case that writes holds one
(:meth:`~dealer.store.db.ResultsStore.transaction`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealer.store.schema import (
    LIVE_DEVICES,
    LIVE_DIRECTORS,
    LIVE_ENTRIES,
    LIVE_FLAGS,
    LIVE_LOG,
    LIVE_NONCES,
    LIVE_SHEETS,
    LIVE_WRITERS,
    WorkingTable,
)

#: A sheet: (round, match, table).
SheetKey = tuple[int, str, str]
#: Where a log row or a flag applies: a sheet, or nowhere (a director's action on the event).
Where = tuple[int | None, str | None, str | None]
#: The sheet's columns, in every table that has them.
_SHEET = "round = ? AND match = ? AND tbl = ?"
#: What a user agent is kept to.
AGENT_CHARS = 200


def _json(value: object, sort_keys: bool = False) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=sort_keys)


@dataclass(frozen=True)
class LiveEntry:
    """One row of ``live_entries``: what a device typed for one result of a sheet."""

    id: int
    slot: str
    generation: int
    fields: dict[str, Any]
    device: str
    at: str
    state: str  #: entered, confirmed, conflict, replaced

    @classmethod
    def of(cls, row: sqlite3.Row) -> LiveEntry:
        return cls(int(row["id"]), row["slot"], int(row["generation"]), json.loads(row["fields"]), row["device"],
                   row["at"], row["state"])


@dataclass(frozen=True)
class SheetRow:
    """A sheet's row of ``live_sheets`` (a sheet never written has none: generation 1, unlocked)."""

    generation: int = 1
    wrong_codes: int = 0
    locked_at: str | None = None
    recap_scorer_at: str | None = None
    recap_confirmer_at: str | None = None

    @classmethod
    def of(cls, row: sqlite3.Row | None) -> SheetRow:
        if row is None:
            return cls()
        return cls(int(row["generation"]), int(row["wrong_codes"]), row["locked_at"], row["recap_scorer_at"],
                   row["recap_confirmer_at"])


class LiveStore:
    """The live tables of one results database (its connection, its transactions)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def _insert(self, table: WorkingTable, values: Mapping[str, object], tail: str = "") -> sqlite3.Cursor:
        names = list(values)
        unknown = [n for n in names if n not in table.columns]
        assert not unknown, f"{table.name} has no column {unknown}"  # a bug, not an input
        return self.conn.execute(f"INSERT INTO {table.name} ({', '.join(names)}) VALUES"
                                 f" ({', '.join('?' for _ in names)}) {tail}", list(values.values()))

    # --- sheets -------------------------------------------------------------------------------

    def _sheet_row(self, key: SheetKey) -> sqlite3.Row | None:
        row: sqlite3.Row | None = self.conn.execute(f"SELECT * FROM {LIVE_SHEETS.name} WHERE {_SHEET}", key).fetchone()
        return row

    def sheet(self, key: SheetKey) -> SheetRow:
        return SheetRow.of(self._sheet_row(key))

    def generation(self, key: SheetKey) -> int:
        """The sheet's current generation (1 until reprinted or its pairing undone)."""
        row = self.conn.execute(f"SELECT generation FROM {LIVE_SHEETS.name} WHERE {_SHEET}", key).fetchone()
        return int(row[0]) if row else 1

    def made_sheet(self, key: SheetKey) -> SheetRow:
        """The sheet's row, made at its first write."""
        row = self._sheet_row(key)
        if row is not None:
            return SheetRow.of(row)
        self._insert(LIVE_SHEETS, dict(zip(("round", "match", "tbl"), key, strict=True)))
        return SheetRow()

    def count_wrong_code(self, key: SheetKey, lock_after: int, at: str) -> int:
        """One more wrong team code on the sheet (locked at ``lock_after``): the count now."""
        self.made_sheet(key)
        self.conn.execute(f"UPDATE {LIVE_SHEETS.name} SET wrong_codes = wrong_codes + 1, locked_at = CASE WHEN"
                          f" wrong_codes + 1 >= ? THEN ? ELSE locked_at END WHERE {_SHEET}", (lock_after, at, *key))
        return self.sheet(key).wrong_codes

    def unlock(self, key: SheetKey) -> None:
        self.made_sheet(key)
        self.conn.execute(f"UPDATE {LIVE_SHEETS.name} SET wrong_codes = 0, locked_at = NULL WHERE {_SHEET}", key)

    def close_recap(self, key: SheetKey, side: str, at: str) -> bool:
        """One side (``scorer`` or ``confirmer``) confirmed the recap (the first time counts):
        whether both have now."""
        column = {"scorer": "recap_scorer_at", "confirmer": "recap_confirmer_at"}[side]
        self.conn.execute(f"UPDATE {LIVE_SHEETS.name} SET {column} = coalesce({column}, ?) WHERE {_SHEET}",
                          (at, *key))
        row = self.sheet(key)
        return row.recap_scorer_at is not None and row.recap_confirmer_at is not None

    def next_generation(self, key: SheetKey) -> int:
        """A reprint: the sheet's next generation (its number)."""
        self.made_sheet(key)
        self.conn.execute(f"UPDATE {LIVE_SHEETS.name} SET generation = generation + 1 WHERE {_SHEET}", key)
        return self.generation(key)

    def void_sheet(self, key: SheetKey) -> int:
        """An undone pairing: the sheet's next generation, unlocked, no recap (its number)."""
        self._insert(LIVE_SHEETS, {"round": key[0], "match": key[1], "tbl": key[2], "generation": 2},
                     "ON CONFLICT (round, match, tbl) DO UPDATE SET generation = generation + 1, wrong_codes = 0,"
                     " locked_at = NULL, recap_scorer_at = NULL, recap_confirmer_at = NULL")
        return self.generation(key)

    # --- devices and writers ----------------------------------------------------------------------

    def last_seen(self, key: SheetKey, device: str) -> str | None:
        row = self.conn.execute(f"SELECT last_at FROM {LIVE_DEVICES.name} WHERE {_SHEET} AND device = ?",
                                (*key, device)).fetchone()
        return None if row is None else str(row[0])

    def saw(self, key: SheetKey, device: str, at: str, address: str | None, agent: str | None) -> None:
        """``device`` opened the sheet at ``at``."""
        self._insert(LIVE_DEVICES, {"round": key[0], "match": key[1], "tbl": key[2], "device": device,
                                    "first_at": at, "last_at": at, "address": address,
                                    "agent": (agent or "")[:AGENT_CHARS]},
                     "ON CONFLICT (round, match, tbl, device) DO UPDATE SET last_at = excluded.last_at,"
                     " address = excluded.address")

    def last_contact(self, key: SheetKey) -> str | None:
        row = self.conn.execute(f"SELECT max(last_at) FROM {LIVE_DEVICES.name} WHERE {_SHEET}", key).fetchone()
        return None if row[0] is None else str(row[0])

    def add_writer(self, key: SheetKey, generation: int, writer: str, at: str, address: str | None,
                   agent: str | None) -> bool:
        """``writer`` wrote on the sheet's ``generation``: whether it is a new one."""
        added = self._insert(LIVE_WRITERS, {"round": key[0], "match": key[1], "tbl": key[2],
                                            "generation": generation, "writer": writer, "first_at": at,
                                            "address": address, "agent": (agent or "")[:AGENT_CHARS]},
                             "ON CONFLICT DO NOTHING")
        return added.rowcount == 1

    def writers(self, key: SheetKey, generation: int) -> int:
        return int(self.conn.execute(f"SELECT count(*) FROM {LIVE_WRITERS.name} WHERE {_SHEET} AND generation = ?",
                                     (*key, generation)).fetchone()[0])

    # --- entries --------------------------------------------------------------------------------

    def entries(self, key: SheetKey, generation: int) -> list[LiveEntry]:
        """The sheet's entries that count, in order: confirmed ones of any generation (a result,
        whichever sheet confirmed it), the others of ``generation`` not replaced."""
        return [LiveEntry.of(r) for r in self.conn.execute(
            f"SELECT * FROM {LIVE_ENTRIES.name} WHERE {_SHEET} AND (state = 'confirmed' OR (state != 'replaced'"
            " AND generation = ?)) ORDER BY id", (*key, generation))]

    def entered(self, key: SheetKey, generation: int) -> list[LiveEntry]:
        """The sheet's entries of ``generation`` waiting for the other side, in order."""
        return [LiveEntry.of(r) for r in self.conn.execute(
            f"SELECT * FROM {LIVE_ENTRIES.name} WHERE {_SHEET} AND state = 'entered' AND generation = ?"
            " ORDER BY id", (*key, generation))]

    def current_entry(self, key: SheetKey, slot: str, generation: int) -> LiveEntry | None:
        """The slot's last entry that counts: confirmed (any generation), or entered with
        ``generation``."""
        row = self.conn.execute(
            f"SELECT * FROM {LIVE_ENTRIES.name} WHERE {_SHEET} AND slot = ? AND (state = 'confirmed'"
            " OR (state = 'entered' AND generation = ?)) ORDER BY id DESC LIMIT 1",
            (*key, slot, generation)).fetchone()
        return None if row is None else LiveEntry.of(row)

    def add_entry(self, key: SheetKey, slot: str, generation: int, fields: Mapping[str, Any], device: str, at: str,
                  state: str, *, confirmed_by: str | None = None, result_import: int | None = None) -> None:
        self._insert(LIVE_ENTRIES, {
            "round": key[0], "match": key[1], "tbl": key[2], "slot": slot, "generation": generation,
            "fields": _json(fields, sort_keys=True), "device": device, "at": at, "state": state,
            **({"confirmed_by": confirmed_by, "confirmed_at": at, "result_import": result_import}
               if confirmed_by is not None else {})})

    def replace_open(self, key: SheetKey, slot: str) -> None:
        """The slot's entries still open (entered, or in conflict) are replaced by a new one."""
        self.conn.execute(f"UPDATE {LIVE_ENTRIES.name} SET state = 'replaced' WHERE {_SHEET} AND slot = ?"
                          " AND state IN ('entered', 'conflict')", (*key, slot))

    def mark_confirmed(self, entry_id: int, by: str, at: str, result_import: int) -> None:
        self.conn.execute(f"UPDATE {LIVE_ENTRIES.name} SET state = 'confirmed', confirmed_by = ?, confirmed_at = ?,"
                          " result_import = ? WHERE id = ?", (by, at, result_import, entry_id))

    # --- flags ----------------------------------------------------------------------------------

    def raise_flag(self, key: SheetKey, slot: str | None, kind: str, detail: Mapping[str, Any], at: str) -> None:
        """A flag for the director (one per sheet, slot and kind: raised again, its detail is
        the newest)."""
        self._insert(LIVE_FLAGS, {"round": key[0], "match": key[1], "tbl": key[2], "slot": slot or "",
                                  "kind": kind, "detail": _json(detail), "at": at},
                     "ON CONFLICT (round, match, tbl, slot, kind) DO UPDATE SET detail = excluded.detail")

    def clear_conflict(self, key: SheetKey, slot: str, at: str, by: str, reason: str) -> None:
        self.conn.execute(f"UPDATE {LIVE_FLAGS.name} SET cleared_at = ?, cleared_by = ?, reason = ? WHERE {_SHEET}"
                          " AND slot = ? AND kind = 'conflict' AND cleared_at IS NULL", (at, by, reason, *key, slot))

    def clear_flag(self, flag_id: int, at: str, by: str, reason: str) -> bool:
        """Clear an open flag: whether there was one."""
        changed = self.conn.execute(f"UPDATE {LIVE_FLAGS.name} SET cleared_at = ?, cleared_by = ?, reason = ?"
                                    " WHERE id = ? AND cleared_at IS NULL", (at, by, reason, flag_id))
        return changed.rowcount == 1

    def clear_round_flags(self, round_number: int, at: str, by: str | None, reason: str) -> None:
        self.conn.execute(f"UPDATE {LIVE_FLAGS.name} SET cleared_at = ?, cleared_by = ?, reason = ? WHERE round = ?"
                          " AND cleared_at IS NULL", (at, by, reason, round_number))

    def open_flags(self, round_number: int, key: SheetKey | None = None) -> list[dict[str, Any]]:
        """The round's open flags (of one sheet, with ``key``), in order, as rows (detail as JSON text)."""
        if key is None:
            rows = self.conn.execute(f"SELECT * FROM {LIVE_FLAGS.name} WHERE round = ? AND cleared_at IS NULL"
                                     " ORDER BY id", (round_number,))
        else:
            rows = self.conn.execute(f"SELECT * FROM {LIVE_FLAGS.name} WHERE {_SHEET} AND cleared_at IS NULL"
                                     " ORDER BY id", key)
        return [dict(r) for r in rows]

    def open_flag(self, flag_id: int) -> dict[str, Any] | None:
        """An open flag, its detail read; ``None``: no such open flag."""
        row = self.conn.execute(f"SELECT * FROM {LIVE_FLAGS.name} WHERE id = ? AND cleared_at IS NULL",
                                (flag_id,)).fetchone()
        if row is None:
            return None
        found = dict(row)
        found["detail"] = json.loads(found["detail"])
        return found

    # --- nonces and the log ------------------------------------------------------------------------

    def outcome(self, nonce: str) -> dict[str, Any] | None:
        """What the request of a spent nonce did, as stored; ``None``: not spent."""
        row = self.conn.execute(f"SELECT outcome FROM {LIVE_NONCES.name} WHERE nonce = ?", (nonce,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def spend(self, nonce: str, at: str, outcome: Mapping[str, Any]) -> str:
        """Spend a nonce on what its request did: that, as stored (JSON text)."""
        text = _json(outcome)
        self._insert(LIVE_NONCES, {"nonce": nonce, "at": at, "outcome": text})
        return text

    def log(self, at: str, where: Where, action: str, *, slot: str | None = None, device: str | None = None,
            address: str | None = None, agent: str | None = None, detail: object = None) -> None:
        """A row of the live log; ``detail``: text as it is, anything else as JSON."""
        self._insert(LIVE_LOG, {
            "at": at, "round": where[0], "match": where[1], "tbl": where[2], "action": action, "slot": slot,
            "device": device, "address": address, "agent": None if agent is None else agent[:AGENT_CHARS],
            "detail": detail if detail is None or isinstance(detail, str) else _json(detail)})

    def revocations(self, key: SheetKey) -> list[str]:
        """The details of the sheet's revocations (reprints, undone pairings), in order."""
        return [str(r[0]) for r in self.conn.execute(
            f"SELECT detail FROM {LIVE_LOG.name} WHERE {_SHEET} AND action = 'revoke' ORDER BY id", key)]

    def stamp(self, key: SheetKey) -> tuple[Any, ...]:
        """A few counts of the sheet's live rows that change whenever one does (its entries, its
        row, its flags, its writers)."""
        conn = self.conn
        return (
            tuple(conn.execute(f"SELECT max(id), count(*) FROM {LIVE_ENTRIES.name} WHERE {_SHEET}", key).fetchone()),
            tuple(conn.execute(f"SELECT generation, wrong_codes, locked_at, recap_scorer_at, recap_confirmer_at"
                               f" FROM {LIVE_SHEETS.name} WHERE {_SHEET}", key).fetchone() or ()),
            tuple(conn.execute(f"SELECT max(id), count(cleared_at) FROM {LIVE_FLAGS.name} WHERE {_SHEET}",
                               key).fetchone()),
            conn.execute(f"SELECT count(*) FROM {LIVE_WRITERS.name} WHERE {_SHEET}", key).fetchone()[0],
        )

    # --- directors' links -----------------------------------------------------------------------

    def add_director_link(self, link: str, at: str) -> None:
        """A one-time link, by its token's digest."""
        self._insert(LIVE_DIRECTORS, {"link": link, "made_at": at})

    def use_director_link(self, link: str, session: str, expires_at: str, at: str, address: str | None,
                          agent: str | None) -> bool:
        """Spend a link (by its digest) on a session (by its digest): whether it was unused."""
        changed = self.conn.execute(
            f"UPDATE {LIVE_DIRECTORS.name} SET used_at = ?, session = ?, expires_at = ?, address = ?, agent = ?"
            " WHERE link = ? AND used_at IS NULL",
            (at, session, expires_at, address, (agent or "")[:AGENT_CHARS], link))
        return changed.rowcount == 1

    def director_session(self, session: str) -> tuple[str, str] | None:
        """The link and expiry of a director's session (by its digest), or ``None``."""
        row = self.conn.execute(f"SELECT link, expires_at FROM {LIVE_DIRECTORS.name} WHERE session = ?",
                                (session,)).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))
