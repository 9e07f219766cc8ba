"""Importing traveller files (CSV, XLSX): read, validate every row (:mod:`.validate`), store.

Every problem names the file, the row as a spreadsheet shows it (header row 1, first data row
2), the column (letter and header as written) and the value, and says what was expected. A file
goes in whole or not at all: it is read and validated first, then checked against the database
and inserted inside one ``BEGIN IMMEDIATE`` transaction.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dealer.errors import FileProblem, Problem, Rejected, UserError
from dealer.event import Event
from dealer.results.db import Entry, ResultsStore
from dealer.results.validate import Cell, RawRow, slot_text, stored_text, validate_row

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
            problems.append(Problem(source, header_row, None, label, None,
                                    f"unknown column name; expected one of: {known}"))
        elif key in seen:
            problems.append(Problem(source, header_row, key, label, None,
                                    f"column {key} appears twice (also {seen[key]})"))
        else:
            seen[key] = label
            mapping[i] = (key, label)
    for key in REQUIRED:
        if key not in seen:
            problems.append(Problem(source, header_row, key, None, None,
                                    f"required column {key} ({COLUMNS[key][1]}) is missing"))
    if problems:
        raise Rejected(source, problems, len(table) - 1)
    for number, cells in table[1:]:
        row: dict[str, Cell] = {}
        for i, (key, label) in mapping.items():
            row[key] = Cell(cells[i] if i < len(cells) else "", label)
        parsed.rows.append(RawRow(number, row))
    return parsed


# --- importing ---------------------------------------------------------------------------


def check_seating(store: ResultsStore, event: Event, matches: set[tuple[int, str]]) -> None:
    """Refuse to add results to a match whose stored results were entered under another seating
    or set than the event file now gives (they would be mixed up)."""
    from dealer.scoring import AttributionError, attribution_problems

    found = attribution_problems(event, [s for s in store.seatings() if (s.round, s.match) in matches])
    if found:
        raise AttributionError(found)


def import_file(
    store: ResultsStore, event: Event, path: str | Path, entered_by: str | None = None
) -> ImportReport:
    """Import one traveller file in one transaction; raises :class:`Rejected` on any problem."""
    parsed = read_file(path)
    source = parsed.source
    entries: list[Entry] = []
    problems: list[Problem] = []
    first_row: dict[tuple[int, str, str, int], int | None] = {}
    for raw in parsed.rows:
        entry, row_problems = validate_row(event, source, raw)
        problems.extend(row_problems)
        if entry is None:
            continue
        if entry.slot in first_row:
            problems.append(Problem(
                source, raw.number, None, None, None,
                f"duplicate row: {slot_text(entry.slot)} is already in row {first_row[entry.slot]} "
                "of this file"))
            continue
        first_row[entry.slot] = raw.number
        entries.append(entry)
    if problems:
        raise Rejected(source, problems, len(parsed.rows))
    if not entries:
        raise FileProblem(f"{source}: no result rows in the file (is it the right file?); nothing imported")
    rounds = sorted({e.round for e in entries})
    with store.transaction():
        check_seating(store, event, {(e.round, e.match) for e in entries})
        stored = store.current_rows(rounds)
        superseded = store.superseded_rows(rounds)
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
                    source, entry.source_row, None, None, None,
                    f"duplicate: {slot_text(entry.slot)} already has {stored_text(old)}, this row "
                    f"says {entry.defenders_points} points", hint="use_correct"))
        if problems:
            raise Rejected(source, problems, len(parsed.rows))
        skipped = len(entries) - len(fresh) - corrected
        if not fresh:
            return ImportReport(source, 0, skipped, None, corrected)
        import_id = store.insert_batch(fresh, source=source, kind="file", sha256=parsed.sha256,
                                       entered_by=entered_by, skipped=skipped + corrected,
                                       sample=parsed.sample)
    return ImportReport(source, len(fresh), skipped, import_id, corrected, parsed.sample)


def import_files(
    store: ResultsStore, event: Event, paths: Sequence[str | Path], entered_by: str | None = None
) -> list[ImportReport | UserError]:
    """Import each file on its own (one rejected file does not stop the others); per file its
    report or the error that rejected it."""
    outcomes: list[ImportReport | UserError] = []
    for path in paths:
        try:
            outcomes.append(import_file(store, event, path, entered_by))
        except (Rejected, FileProblem) as error:
            outcomes.append(error)
    return outcomes
