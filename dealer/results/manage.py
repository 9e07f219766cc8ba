"""Single entries, corrections, history and missing travellers (the scorer's day-to-day work)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dealer.boardsets import check_plan
from dealer.event import Event, Match
from dealer.files import FileProblem
from dealer.qr import PayloadError, ScoreSheetId, TravellerId, parse_payload
from dealer.results.db import (
    Entry,
    connect,
    connect_existing,
    current_row,
    insert_batch,
    results_path,
    scoring_rows,
    transaction,
)
from dealer.results.importer import Cell, Problem, RawRow, Rejected, slot_text, stored_text, validate_row

COMMAND_LINE = "command line"
_FLAGS = {
    "round": "--round", "match": "--match", "table": "--table", "board": "--board",
    "defenders_points": "--points", "trump": "--trump", "declarer": "--declarer",
    "level": "--level", "ns_team": "--ns-team", "ew_team": "--ew-team", "note": "--note",
    "entered_by": "--by",
}


def open_results(event: Event, boards_root: str | Path = "boards") -> sqlite3.Connection:
    check_plan(event, boards_root)  # scoring uses the event's declarers: they must be the dealt ones
    return connect(results_path(event, boards_root), event.id)


def open_existing_results(event: Event, boards_root: str | Path = "boards") -> sqlite3.Connection | None:
    """For read-only commands: the results database if there is one, else ``None`` (none created)."""
    check_plan(event, boards_root)
    return connect_existing(results_path(event, boards_root), event.id)


def apply_qr(event: Event, values: dict[str, str | None], payload: str) -> None:
    """Fill round/match/board or round/match/table from a traveller or score-sheet QR payload."""
    try:
        parsed = parse_payload(payload)
    except PayloadError as error:
        raise Rejected(COMMAND_LINE, [Problem(COMMAND_LINE, None, "--qr", payload, str(error))], 1) \
            from None
    if not isinstance(parsed, TravellerId | ScoreSheetId):
        raise Rejected(COMMAND_LINE, [Problem(
            COMMAND_LINE, None, "--qr", payload,
            "a wallet label does not name a match; scan the traveller or the score sheet")], 1)
    if parsed.event != event.id:
        raise Rejected(COMMAND_LINE, [Problem(
            COMMAND_LINE, None, "--qr", payload,
            f"the slip belongs to event {parsed.event!r}, not {event.id!r}")], 1)
    found: dict[str, str] = {"round": str(parsed.round), "match": parsed.match}
    if isinstance(parsed, TravellerId):
        found["board"] = str(parsed.board)
    else:
        found["table"] = parsed.table
    problems = [
        Problem(COMMAND_LINE, None, _FLAGS[key], values[key],
                f"disagrees with the QR payload, which says {value}")
        for key, value in found.items()
        if values.get(key) not in (None, "") and str(values[key]).strip() != value
    ]
    if problems:
        raise Rejected(COMMAND_LINE, problems, 1)
    values.update(found)


def _entry(event: Event, values: Mapping[str, str | None], check_plausible: bool = True) -> Entry:
    row = RawRow(0, {key: Cell(str(v).strip() if v is not None else "", _FLAGS[key])
                     for key, v in values.items() if key in _FLAGS})
    entry, problems = validate_row(event, COMMAND_LINE, row, check_plausible)
    if entry is None:
        raise Rejected(COMMAND_LINE, problems, 1)
    return entry


def add_result(
    conn: sqlite3.Connection, event: Event, values: Mapping[str, str | None], check_plausible: bool = True
) -> str:
    """Store one new result; a different value for a filled slot needs a correction."""
    entry = _entry(event, values, check_plausible)
    with transaction(conn):
        old = current_row(conn, entry.slot)
        if old is not None:
            if entry.same_result(old):
                return f"nothing changed: {slot_text(entry.slot)} already has {stored_text(old)}"
            raise Rejected(COMMAND_LINE, [Problem(
                COMMAND_LINE, None, "--points", str(entry.defenders_points),
                f"duplicate: {slot_text(entry.slot)} already has {stored_text(old)}; to change it "
                "use `dealer results correct` with --reason")], 1)
        import_id = insert_batch(conn, [entry], source="add", kind="add", entered_by=entry.entered_by)
    return f"added {slot_text(entry.slot)}: {entry.defenders_points} points (import #{import_id})"


def correct_result(
    conn: sqlite3.Connection,
    event: Event,
    values: Mapping[str, str | None],
    reason: str,
    withdraw: bool = False,
    check_plausible: bool = True,
) -> str:
    """Supersede the current result of a slot with a new value (or withdraw it), with a reason."""
    if not reason.strip():
        raise Rejected(COMMAND_LINE, [Problem(COMMAND_LINE, None, "--reason", reason,
                                              "a correction needs a reason")], 1)
    if withdraw:
        values = {**values, "defenders_points": "0"}  # placeholder to pass the identity checks
    entry = _entry(event, values, check_plausible)
    if withdraw:
        entry = Entry(entry.round, entry.match, entry.table, entry.board, None,
                      note=entry.note, entered_by=entry.entered_by, withdrawn=True)
    with transaction(conn):
        old = current_row(conn, entry.slot)
        if old is None:
            raise Rejected(COMMAND_LINE, [Problem(
                COMMAND_LINE, None, None, None,
                f"{slot_text(entry.slot)} has no result to correct; use `dealer results add`")], 1)
        if entry.same_result(old):
            return f"nothing changed: {slot_text(entry.slot)} already has {stored_text(old)}"
        import_id = insert_batch(conn, [entry], source="correct", kind="correct",
                                 entered_by=entry.entered_by, supersedes=[old["id"]],
                                 reason=reason.strip())
    new = "withdrawn" if withdraw else f"{entry.defenders_points} points"
    was = "withdrawn" if old["withdrawn"] else f"{old['defenders_points']} points"
    return f"corrected {slot_text(entry.slot)}: {was} → {new} (import #{import_id}, reason: {reason.strip()})"


@dataclass(frozen=True)
class MissingReport:
    match: Match
    gaps: list[tuple[int, str]]  # (board, table)
    match_boards: int

    def text(self) -> str:
        head = f"round {self.match.round} match {self.match.id} ({self.match.home} v {self.match.away})"
        if not self.gaps:
            return f"{head}: complete"
        boards = self.match_boards
        a = [b for b, t in self.gaps if t == "A"]
        b = [b for b, t in self.gaps if t == "B"]
        if len(a) == len(b) == boards:
            detail = "all boards at both tables"
        else:
            detail = "; ".join(f"table {t} boards {' '.join(map(str, bs))}" for t, bs in (("A", a), ("B", b)) if bs)
        return f"{head}: {len(self.gaps)} missing: {detail}"


def missing(
    conn: sqlite3.Connection | None, event: Event, round_number: int | None = None
) -> list[MissingReport]:
    """Per match, the missing (board, table) results; ``conn=None``: no database yet, all missing."""
    from dealer.scoring import ResultColumns, score_event

    if round_number is not None and event.round(round_number) is None:
        raise FileProblem(f"--round: round {round_number} is not in the event")
    rows = scoring_rows(conn) if conn is not None else []
    scored = score_event(event, ResultColumns.from_rows(rows))
    return [MissingReport(m, gaps, event.boards_per_set) for m, gaps in scored.missing(round_number)]


def missing_results(
    event: Event, boards_root: str | Path = "boards", round_number: int | None = None
) -> list[MissingReport]:
    """:func:`missing` for ``dealer results missing``: opens the database only if it exists."""
    conn = open_existing_results(event, boards_root)
    try:
        return missing(conn, event, round_number)
    finally:
        if conn is not None:
            conn.close()
