"""Reading traveller files (CSV, XLSX) and validating result rows against the event (DESIGN §8).

Every problem names the file, the row as a spreadsheet shows it (header row 1, first data row
2), the column (letter and header as written) and the value, and says what was expected. A file
goes in whole or not at all: it is read and validated first, then checked against the database
and inserted inside one ``BEGIN IMMEDIATE`` transaction.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dealer.cards import LEVELS, SEATS, normalize_level
from dealer.event import Event
from dealer.files import FileProblem
from dealer.results.db import Entry, insert_batch, transaction

#: Canonical field → accepted header spellings (compared after :func:`_header_key`).
COLUMNS: dict[str, tuple[str, ...]] = {
    "round": ("round", "轮次", "轮"),
    "match": ("match", "场次", "场"),
    "table": ("table", "桌", "桌次"),
    "board": ("board", "牌号"),
    "defenders_points": ("defenders_points", "防守方得分", "points"),
    "trump": ("trump", "将牌", "主牌"),
    "declarer": ("declarer", "庄家"),
    "level": ("level", "级数", "级牌"),
    "ns_team": ("ns_team", "南北", "南北队"),
    "ew_team": ("ew_team", "东西", "东西队"),
    "note": ("note", "备注"),
    "entered_by": ("entered_by", "记分员"),
}
REQUIRED = ("round", "match", "table", "board", "defenders_points")

_TRUMPS: dict[str, str] = {}
for _code, _names in {
    "S": ("S", "♠", "♤", "SPADE", "SPADES", "黑桃", "黑"),
    "H": ("H", "♥", "♡", "HEART", "HEARTS", "红桃", "红心", "红"),
    "C": ("C", "♣", "♧", "CLUB", "CLUBS", "梅花", "草花", "梅"),
    "D": ("D", "♦", "♢", "DIAMOND", "DIAMONDS", "方块", "方片", "方"),
    "NT": ("NT", "N/T", "NOTRUMP", "NOTRUMPS", "NO TRUMP", "NO-TRUMP", "无主", "无将"),
}.items():
    for _name in _names:
        _TRUMPS[_name] = _code
TRUMP_EXPECTED = "S H C D NT (or ♠ ♥ ♣ ♦, 黑桃 红桃 梅花 方块, 无主)"

_SEATS = {"N": "N", "E": "E", "S": "S", "W": "W", "北": "N", "东": "E", "南": "S", "西": "W",
          "NORTH": "N", "EAST": "E", "SOUTH": "S", "WEST": "W"}
_TABLES = {"A": "A", "B": "B"}


def _header_key(text: str) -> str:
    return text.replace("\ufeff", "").strip().lower().replace(" ", "_").replace("-", "_")


_HEADER_LOOKUP = {_header_key(name): key for key, names in COLUMNS.items() for name in names}


def column_letter(index: int) -> str:
    """Spreadsheet letter of a 0-based column index (0 → A, 26 → AA)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


@dataclass(frozen=True)
class Problem:
    """One rejected value; ``str()`` gives the whole message."""

    source: str
    row: int | None
    column: str | None  # e.g. 'E "defenders_points"' or '--points'
    value: str | None
    message: str

    def __str__(self) -> str:
        parts = []
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.column is not None:
            parts.append(f"column {self.column}")
        where = ": ".join([self.source, ", ".join(parts)]) if parts else self.source
        value = f" value {self.value!r}:" if self.value is not None else ""
        return f"{where}:{value} {self.message}"


class Rejected(Exception):
    """A file or entry was rejected; nothing of it was stored."""

    def __init__(self, source: str, problems: Sequence[Problem], rows: int) -> None:
        self.source = source
        self.problems = list(problems)
        self.rows = rows
        bad_rows = {p.row for p in problems if p.row is not None}
        if bad_rows:
            head = (
                f"{source}: rejected, nothing imported ({len(bad_rows)} of {rows} row(s) with problems,"
                f" {len(problems)} problem(s))"
            )
        else:
            head = f"{source}: rejected, nothing stored ({len(problems)} problem(s))"
        super().__init__("\n".join([head, *(f"  {p}" for p in problems)]))


@dataclass(frozen=True)
class Cell:
    value: str
    column: str  # label for messages


@dataclass(frozen=True)
class RawRow:
    number: int  # as the spreadsheet shows it
    cells: Mapping[str, Cell]


@dataclass
class ParsedFile:
    source: str
    sha256: str
    rows: list[RawRow] = field(default_factory=list)
    sample: bool = False  # the first line is a "# sample data" / "# 样例数据" comment


#: A file whose first non-blank line is a comment starting with one of these holds sample data.
SAMPLE_MARKERS = ("sample data", "样例数据")


def is_sample_marker(first_cell: str) -> bool:
    """Whether the first cell of a file's first line marks the file as sample data."""
    if not first_cell.startswith("#"):
        return False
    return first_cell.lstrip("#").strip().lower().startswith(SAMPLE_MARKERS)


@dataclass(frozen=True)
class ImportReport:
    source: str
    added: int
    skipped: int  # rows equal to the current value of their slot
    import_id: int | None
    corrected: int = 0  # rows equal to a value a correction has since superseded (kept the correction)
    sample: bool = False  # recorded as sample data

    def summary(self) -> str:
        kept = (f"{self.corrected} row(s) were corrected since: kept the corrections"
                if self.corrected else "")
        if not self.added:
            if self.corrected:
                recorded = f", {self.skipped} already recorded" if self.skipped else ""
                return f"{self.source}: nothing changed{recorded}; {kept}"
            return (f"{self.source}: nothing changed: all {self.skipped} row(s) are already recorded"
                    if self.skipped else f"{self.source}: no result rows in the file")
        extra = f", {self.skipped} already recorded (skipped)" if self.skipped else ""
        extra += f"; {kept}" if kept else ""
        marked = ", marked as sample data" if self.sample else ""
        return f"{self.source}: imported {self.added} row(s){extra} (import #{self.import_id}{marked})"


# --- reading -------------------------------------------------------------------------------


def _decode(data: bytes, source: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="strict")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("gb18030")  # a superset of GBK, as Excel saves CSV in China
    except UnicodeDecodeError:
        raise FileProblem(f"{source}: the file is neither UTF-8 nor GBK text") from None


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _table_rows(path: Path, data: bytes) -> list[tuple[int, list[str]]]:
    """(spreadsheet row number, cell texts) of every row of a CSV or XLSX file."""
    source = str(path)
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        try:
            import openpyxl

            book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        except Exception as error:
            raise FileProblem(f"{source}: not a readable XLSX workbook: {error}") from None
        sheet = book.worksheets[0]
        first = sheet.min_row or 1
        rows = [
            (first + i, [_cell_text(v) for v in values])
            for i, values in enumerate(sheet.iter_rows(values_only=True))
        ]
        book.close()
        return rows
    if path.suffix.lower() not in (".csv", ".txt", ".tsv"):
        raise FileProblem(f"{source}: expected a .csv or .xlsx file")
    text = _decode(data, source)
    first_line = text.split("\n", 1)[0]
    delimiter = "," if "," in first_line or not ("\t" in first_line or ";" in first_line) else (
        "\t" if "\t" in first_line else ";")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        return [(reader.line_num, [c.strip() for c in row]) for row in reader]
    except csv.Error as error:
        raise FileProblem(f"{source}: not valid CSV (line {reader.line_num}): {error}") from None


def read_file(path: str | Path) -> ParsedFile:
    """Read a traveller file: find the header, map its columns, collect the data rows.

    Raises :class:`FileProblem` when the file cannot be read and :class:`Rejected` when its
    header is not usable.
    """
    path = Path(path)
    source = str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise FileProblem(f"{source}: cannot read the file: {error.strerror}") from None
    lines = [(n, cells) for n, cells in _table_rows(path, data) if any(cells)]  # no blank rows
    table = [(n, cells) for n, cells in lines if not cells[0].startswith("#")]  # nor # comments
    parsed = ParsedFile(source, hashlib.sha256(data).hexdigest(),
                        sample=bool(lines) and is_sample_marker(lines[0][1][0]))
    if not table:
        return parsed
    header_row, header = table[0]
    problems: list[Problem] = []
    mapping: dict[int, tuple[str, str]] = {}
    seen: dict[str, str] = {}
    for i, name in enumerate(header):
        if not name:
            continue
        label = f'{column_letter(i)} "{name}"'
        key = _HEADER_LOOKUP.get(_header_key(name))
        if key is None:
            known = ", ".join(f"{k} ({COLUMNS[k][1]})" for k in COLUMNS)
            problems.append(Problem(source, header_row, label, None,
                                    f"unknown column name; expected one of: {known}"))
        elif key in seen:
            problems.append(Problem(source, header_row, label, None,
                                    f"column {key} appears twice (also {seen[key]})"))
        else:
            seen[key] = label
            mapping[i] = (key, label)
    for key in REQUIRED:
        if key not in seen:
            problems.append(Problem(source, header_row, None, None,
                                    f"required column {key} ({COLUMNS[key][1]}) is missing"))
    if problems:
        raise Rejected(source, problems, len(table) - 1)
    for number, cells in table[1:]:
        row: dict[str, Cell] = {}
        for i, (key, label) in mapping.items():
            row[key] = Cell(cells[i] if i < len(cells) else "", label)
        parsed.rows.append(RawRow(number, row))
    return parsed


# --- validation ----------------------------------------------------------------------------


def plausible_range(event: Event) -> tuple[int, int]:
    """Defenders' points accepted for the event: −total … 2 × total (total = 100 per deck).

    A profile may set ``plausible_points = [min, max]`` for its own range.
    """
    custom = event.profile.extras.get("plausible_points")
    if isinstance(custom, list) and len(custom) == 2:
        return int(custom[0]), int(custom[1])
    total = 100 * event.decks
    return -total, 2 * total


#: The absolute bound on defenders' points is this many times the points of the pack (100 per
#: deck): beyond it a value is a typing error, and not even ``--accept-implausible`` admits it.
ABSOLUTE_PACKS = 10


def absolute_limit(event: Event) -> int:
    """|defenders' points| allowed at all: :data:`ABSOLUTE_PACKS` × 100 × decks."""
    return ABSOLUTE_PACKS * 100 * event.decks


# A whole number as a person types it, or as a spreadsheet writes an integral numeric cell
# ("50.0"); no exponents ("5e1"), no underscores, no "inf"/"nan".
_WHOLE = re.compile(r"[+-]?\d+(?:\.0+)?")


def _int(text: str) -> int | None:
    text = text.strip().replace("−", "-").replace("＋", "+").replace("－", "-")
    if not _WHOLE.fullmatch(text):
        return None
    return int(text.split(".", 1)[0])


def validate_row(
    event: Event, source: str, row: RawRow, check_plausible: bool = True
) -> tuple[Entry | None, list[Problem]]:
    """Check one row against the event; the entry to store, or the problems.

    ``check_plausible=False`` admits points outside :func:`plausible_range` (an extraordinary
    result the scorer confirms explicitly with ``--accept-implausible``).
    """
    problems: list[Problem] = []
    cells = row.cells

    def cell(key: str) -> Cell:
        return cells.get(key, Cell("", f"--{key.replace('_', '-')}"))

    def problem(key: str, message: str) -> None:
        c = cell(key)
        problems.append(Problem(source, row.number if row.number > 0 else None, c.column,
                                c.value, message))

    def required_int(key: str, what: str) -> int | None:
        text = cell(key).value
        if not text:
            problem(key, f"{what} is missing; expected a whole number")
            return None
        value = _int(text)
        if value is None:
            problem(key, f"expected {what} as a whole number")
        return value

    round_number = required_int("round", "the round number")
    match_id = cell("match").value
    match = None
    rnd = event.round(round_number) if round_number is not None else None
    if round_number is not None and rnd is None:
        numbers = ", ".join(str(r.number) for r in event.rounds)
        problem("round", f"round {round_number} is not in the event (rounds: {numbers})")
    if not match_id:
        problem("match", "the match is missing; expected a match id of the round")
    elif rnd is not None:
        match_id = _cell_text(match_id)
        match = rnd.match(match_id)
        if match is None:
            ids = ", ".join(m.id for m in rnd.matches)
            problem("match", f"match {match_id!r} is not in round {rnd.number} (matches: {ids})")

    table = _TABLES.get(cell("table").value.strip().upper())
    if table is None:
        problem("table", "table must be A or B")

    board = required_int("board", "the board number")
    if board is not None and not 1 <= board <= event.boards_per_set:
        problem("board", f"board {board} is not in the round's set; expected 1 to {event.boards_per_set}")
        board = None

    points = required_int("defenders_points", "the defenders' points")
    if points is not None:
        low, high = plausible_range(event)
        limit = absolute_limit(event)
        if abs(points) > limit:
            problem("defenders_points",
                    f"beyond the absolute bound of -{limit} to {limit} ({ABSOLUTE_PACKS} × the "
                    f"{100 * event.decks} points of {event.decks} decks); not accepted, even with "
                    "--accept-implausible")
            points = None
        elif points % 5:
            problem("defenders_points", "defenders' points must be a multiple of 5")
            points = None
        elif check_plausible and not low <= points <= high:
            problem("defenders_points",
                    f"implausible for profile {event.profile.id} with {event.decks} decks; "
                    f"expected {low} to {high} (a real result beyond: `dealer results add` or "
                    "`correct` with --accept-implausible)")
            points = None

    trump = None
    if cell("trump").value:
        trump = _TRUMPS.get(cell("trump").value.strip().upper())
        if trump is None:
            problem("trump", f"unknown trump suit; expected {TRUMP_EXPECTED}")

    conditions = event.board(match.set, board) if match is not None and board is not None else None
    declarer = None
    if cell("declarer").value:
        declarer = _SEATS.get(cell("declarer").value.strip().upper())
        if declarer is None:
            problem("declarer", f"expected a seat: {' '.join(SEATS)} (北 东 南 西)")
        elif conditions is not None and declarer != conditions.declarer:
            problem("declarer", f"the schedule has declarer {conditions.declarer} for set "
                                f"{conditions.set} board {conditions.number}")
    level = None
    if cell("level").value:
        try:
            level = normalize_level(cell("level").value.strip().upper())
        except ValueError:
            problem("level", f"expected a level: {' '.join(LEVELS)}")
        else:
            if conditions is not None and level != conditions.level:
                problem("level", f"the schedule has level {conditions.level} for set "
                                 f"{conditions.set} board {conditions.number}")

    teams: dict[str, str | None] = {"ns_team": None, "ew_team": None}
    for key, side in (("ns_team", "NS"), ("ew_team", "EW")):
        text = cell(key).value
        if not text:
            continue
        team = next((t.id for t in event.teams if text in (t.id, t.name)), None)
        if team is None:
            problem(key, "not a team of the event (expected a team id or name)")
        elif match is not None and table is not None:
            expected = match.seats(table)[side]
            if team != expected:
                home = "home" if expected == match.home else "away"
                problem(key, f"at table {table} of round {match.round} match {match.id} "
                             f"{side[0]}-{side[1]} is {expected} (the {home} team; A: home E-W, B: home N-S)")
        teams[key] = team

    if problems or round_number is None or match is None or table is None or board is None \
            or points is None:
        return None, problems
    return Entry(
        round=round_number, match=match.id, table=table, board=board, defenders_points=points,
        trump=trump, declarer=declarer, level=level, ns_team=teams["ns_team"],
        ew_team=teams["ew_team"], note=cell("note").value or None,
        entered_by=cell("entered_by").value or None, source_row=row.number if row.number > 0 else None,
    ), []


def slot_text(slot: tuple[int, str, str, int]) -> str:
    return f"round {slot[0]} match {slot[1]} table {slot[2]} board {slot[3]}"


def stored_text(row: sqlite3.Row) -> str:
    value = "withdrawn" if row["withdrawn"] else f"{row['defenders_points']} points"
    by = f" by {row['entered_by']}" if row["entered_by"] else ""
    return f"{value} (entered {row['entered_at'][:19]}{by})"


# --- importing -----------------------------------------------------------------------------


def import_file(
    conn: sqlite3.Connection, event: Event, path: str | Path, entered_by: str | None = None
) -> ImportReport:
    """Import one traveller file in one transaction; raises :class:`Rejected` on any problem."""
    parsed = read_file(path)
    source = parsed.source
    entries: list[Entry] = []
    problems: list[Problem] = []
    first_row: dict[tuple[int, str, str, int], int] = {}
    for raw in parsed.rows:
        entry, row_problems = validate_row(event, source, raw)
        problems.extend(row_problems)
        if entry is None:
            continue
        if entry.slot in first_row:
            problems.append(Problem(
                source, raw.number, None, None,
                f"duplicate row: {slot_text(entry.slot)} is already in row {first_row[entry.slot]} "
                "of this file"))
            continue
        first_row[entry.slot] = raw.number
        entries.append(entry)
    if problems:
        raise Rejected(source, problems, len(parsed.rows))
    if not entries:
        return ImportReport(source, 0, 0, None)
    rounds = sorted({e.round for e in entries})
    with transaction(conn):
        marks = ",".join("?" * len(rounds))
        stored = {
            (r["round"], r["match"], r["tbl"], r["board"]): r
            for r in conn.execute(f"SELECT * FROM current_results WHERE round IN ({marks})", rounds)
        }
        superseded: dict[tuple[int, str, str, int], list[sqlite3.Row]] = {}
        for r in conn.execute(
            f"SELECT r.* FROM results r WHERE r.round IN ({marks}) AND EXISTS "
            "(SELECT 1 FROM results s WHERE s.supersedes = r.id)", rounds,
        ):
            superseded.setdefault((r["round"], r["match"], r["tbl"], r["board"]), []).append(r)
        fresh: list[Entry] = []
        corrected = 0
        for entry in entries:
            old = stored.get(entry.slot)
            if old is None:
                fresh.append(entry)
            elif entry.same_result(old):
                continue
            elif any(entry.same_result(r) for r in superseded.get(entry.slot, ())):
                corrected += 1  # the value a correction replaced: keep the correction
            else:
                problems.append(Problem(
                    source, entry.source_row, None, None,
                    f"duplicate: {slot_text(entry.slot)} already has {stored_text(old)}, this row "
                    f"says {entry.defenders_points} points; to change it use `dealer results correct` "
                    "with --reason"))
        if problems:
            raise Rejected(source, problems, len(parsed.rows))
        skipped = len(entries) - len(fresh) - corrected
        if not fresh:
            return ImportReport(source, 0, skipped, None, corrected)
        import_id = insert_batch(conn, fresh, source=source, kind="file", sha256=parsed.sha256,
                                 entered_by=entered_by, skipped=skipped + corrected,
                                 sample=parsed.sample)
    return ImportReport(source, len(fresh), skipped, import_id, corrected, parsed.sample)
