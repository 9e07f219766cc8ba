"""Seeded fuzz test of ``dealer results import``: a few hundred mutated traveller files.

Every case is built from its own ``random.Random(f"{SEED}:{index}")``, so one case is reproduced
alone (``FUZZ_CASE=17 pytest tests/test_fuzz_travellers.py``) and a failure names the seed, the
case and its mutations (``FUZZ_SEED`` and ``FUZZ_CASES`` run other or more cases).

A case is a traveller of the hand-worked event (CSV or XLSX) whose rows are the *truth*: one
fixed result per slot (the hand-worked points for match 1, seeded ones for match 2). Mutations
are structured (on the table: a header renamed, a row duplicated, a number of thousands of digits
…), each known to keep the file valid or to make it invalid, or on the bytes (flips, truncation,
a BOM, another encoding part-way), whose effect is unknown.

Each case is imported into the same starting database (match 1, table A, boards 1-8 stored,
copied afresh per case) through the one CLI helper, and:

* the command never fails with a traceback (``run_dealer`` fails the test on exit 70), and exits
  0 or 2 (3 is for machine refusals, which a file cannot cause);
* after a non-zero exit the database is exactly as before (no partial write);
* after exit 0 nothing stored before changed, and the results grew by exactly the rows the command
  says it imported, in one import record, none of them for a slot that already had a result;
* a file known to be valid is imported (exit 0) and adds exactly its rows that were not stored;
  a file known to be invalid is refused (exit 2).
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import random
import re
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import openpyxl
from test_results_support import HAND, HEADER, db_path, db_state, run, write_csv, write_event

from dealer.event import Event
from dealer.files import load_event
from dealer.formats.columns import COLUMNS, REQUIRED

#: Fixed, so that a failure is reproduced; FUZZ_SEED and FUZZ_CASES explore further (a failure
#: message names the seed).
SEED = int(os.environ.get("FUZZ_SEED", "20260530"))
CASES = int(os.environ.get("FUZZ_CASES", "300"))
XLSX_SHARE = 0.35

Slot = tuple[int, str, str, int]  # round, match, table, board
Stored = tuple[int, str, str, int, int]  # the slot and the defenders' points

_truth_rng = random.Random(f"{SEED}:truth")
#: The one result of every slot of the event: (points, trump).
TRUTH: dict[Slot, tuple[int, str]] = {}
for _board, (_a, _b, *_rest) in HAND.items():
    for _table, _points in (("A", _a), ("B", _b)):
        TRUTH[(1, "1", _table, _board)] = (_points, _truth_rng.choice("SHCD") if _board % 5 else "NT")
for _board in range(1, 17):
    for _table in ("A", "B"):
        TRUTH[(1, "2", _table, _board)] = (5 * _truth_rng.randrange(-20, 60), _truth_rng.choice(["S", "H", "NT"]))
#: Stored before every case (with their trump).
SEEDED: list[Slot] = [(1, "1", "A", board) for board in range(1, 9)]

OPTIONAL = ["trump", "declarer", "level", "ns_team", "ew_team", "note", "entered_by"]
TRUMP_SPELLINGS = {"S": ["S", "s", "♠", "黑桃", "spades"], "H": ["H", "♥", "红桃", "Heart"],
                   "C": ["C", "♣", "梅花"], "D": ["D", "♦", "方块"], "NT": ["NT", "nt", "无主", "No Trump"]}
SEAT_SPELLINGS = {"N": ["N", "北", "North"], "E": ["E", "东", "east"], "S": ["S", "南", "SOUTH"], "W": ["W", "西"]}
NOTES = ["", "ok", "样例", "late slip", "桌 A, 第 2 副", 'said "fine"', "x; y\tz"]
XLSX_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


@dataclass
class Table:
    """A traveller as rows of cells: ``lines[header]`` is the header; ``data`` the indexes of the
    data rows (the others are blank or comment rows)."""

    lines: list[list[object]]
    header: int
    data: list[int]
    truth: dict[int, Stored] = field(default_factory=dict)  # data row index → what it records

    def column(self, name: str) -> int | None:
        fields = [_field_of(str(cell)) for cell in self.lines[self.header]]
        return fields.index(name) if name in fields else None

    def insert_line(self, at: int, cells: list[object]) -> None:
        self.lines.insert(at, cells)
        self.header += at <= self.header
        self.data = [i + (at <= i) for i in self.data]
        self.truth = {i + (at <= i): t for i, t in self.truth.items()}

    def table_rows(self) -> list[list[object]]:
        """The header and the data rows (column changes leave blank and comment rows alone)."""
        return [self.lines[self.header], *(self.lines[i] for i in self.data)]

    def add_column(self, name: str) -> int:
        """Append a column (the rows padded to one width first); its index."""
        rows = self.table_rows()
        width = max(len(row) for row in rows)
        for row in rows:
            row.extend([""] * (width - len(row)))
        for row in rows:
            row.append(name if row is rows[0] else "")
        return width


def _field_of(name: str) -> str:
    key = name.replace("\ufeff", "").strip().lower().replace(" ", "_").replace("-", "_")
    return next((f for f, names in COLUMNS.items() if key in names), "")


@dataclass
class Case:
    index: int
    mutations: list[str]
    suffix: str
    data: bytes
    expect: str  # valid, invalid or unknown
    rows: set[Stored]  # what a valid file records

    def label(self) -> str:
        return f"seed {SEED} case {self.index} ({self.suffix}, expected {self.expect}): {', '.join(self.mutations)}"


class Maker:
    """Builds one case from its own random generator."""

    def __init__(self, rng: random.Random, event: Event) -> None:
        self.rng = rng
        self.event = event
        self.mutations: list[str] = []
        self.expect = "valid"
        self.xlsx = rng.random() < XLSX_SHARE

    # --- the valid table ---------------------------------------------------------------------

    def cell(self, field_name: str, slot: Slot) -> object:
        rng, (round_, match_id, table, board) = self.rng, slot
        points, trump = TRUTH[slot]
        match = self.event.rounds[0].match(match_id)
        assert match is not None
        board_conditions = self.event.board(match.set, board)
        seats = match.seats(table)
        team = {t.id: t for t in self.event.teams}
        if field_name == "round":
            return rng.choice([round_, str(round_), f" {round_} "])
        if field_name == "match":
            return match_id
        if field_name == "table":
            return rng.choice([table, table.lower()])
        if field_name == "board":
            return rng.choice([board, str(board)])
        if field_name == "defenders_points":
            return rng.choice([points, str(points), f"{points}.0"])
        if field_name == "trump":
            return rng.choice(TRUMP_SPELLINGS[trump])
        if field_name == "declarer":
            return rng.choice(SEAT_SPELLINGS[board_conditions.declarer])
        if field_name == "level":
            return board_conditions.level
        if field_name in ("ns_team", "ew_team"):
            chosen = team[seats["NS" if field_name == "ns_team" else "EW"]]
            return rng.choice([chosen.id, chosen.name])
        if field_name == "note":
            return rng.choice(NOTES)
        return rng.choice(["lee", "王芳", ""])

    def header_name(self, field_name: str) -> str:
        return self.rng.choice([*COLUMNS[field_name], field_name.upper()])

    def table(self) -> Table:
        rng = self.rng
        fields = ["round", "match", "table", "board", "defenders_points",
                  *rng.sample(OPTIONAL, rng.randrange(len(OPTIONAL) + 1))]
        rng.shuffle(fields)
        slots = rng.sample(sorted(TRUTH), rng.randrange(1, 13))
        lines: list[list[object]] = [[self.header_name(f) for f in fields]]
        truth: dict[int, Stored] = {}
        for slot in slots:
            truth[len(lines)] = (*slot, TRUTH[slot][0])
            lines.append([self.cell(f, slot) for f in fields])
        return Table(lines, 0, list(truth), truth)

    # --- structured mutations: (name, keeps the file valid?, change) ----------------------------

    def some_row(self, table: Table) -> int:
        return self.rng.choice(sorted(table.truth))

    def required_column(self, table: Table) -> int | None:
        """A required column still in the table (an earlier mutation may have removed some)."""
        present = [column for f in REQUIRED if (column := table.column(f)) is not None]
        return self.rng.choice(present) if present else None

    def set_cell(self, table: Table, row: int, field_name: str, value: object) -> bool:
        column = table.column(field_name)
        if column is None:
            return False
        line = table.lines[row]
        line.extend([""] * (column + 1 - len(line)))
        line[column] = value
        return True

    def mutate(self, table: Table) -> None:
        rng = self.rng
        valid: list[Callable[[Table], None]] = [
            self.blank_and_comment_lines, self.multi_line_note, self.control_characters, self.formula_note,
            self.empty_optional, self.extra_empty_column, self.header_alias, self.remove_optional,
            self.padding_and_zeros, self.sample_marker, self.leading_empty_column, self.full_width_digits,
        ]
        invalid: list[Callable[[Table], None]] = [
            self.duplicated_row, self.another_match, self.another_round, self.huge_number, self.unicode_digits,
            self.not_multiple_of_5, self.conflicting_points, self.empty_required, self.unknown_column,
            self.stray_value, self.header_typo, self.header_duplicate, self.remove_required, self.long_note,
            self.table_c, self.wrong_declarer, self.header_only,
        ]
        chosen = [rng.choice(valid if rng.random() < 0.5 else invalid)
                  for _ in range(rng.choice([0, 1, 1, 1, 2, 2, 3]))]
        # The valid ones first: a later one could undo an invalid one (a long note replaced).
        for change in sorted(chosen, key=lambda change: change in invalid):
            change(table)
            if change == self.header_only:
                break  # no row left to change

    def note(self, table: Table, row: int, text: str) -> None:
        if table.column("note") is None:
            table.add_column(self.header_name("note"))
        self.set_cell(table, row, "note", text)

    def blank_and_comment_lines(self, table: Table) -> None:
        self.mutations.append("blank/comment lines")
        for _ in range(self.rng.randrange(1, 4)):
            line: list[object] = self.rng.choice([[], [""] * 3, ["# round 1"], ["# 第一轮; table A", "x"],
                                                  ["# a, b\tc"], ['# "quoted" note']])
            table.insert_line(self.rng.randrange(len(table.lines) + 1), list(line))

    def multi_line_note(self, table: Table) -> None:
        self.mutations.append("multi-line quoted note")
        self.note(table, self.some_row(table), self.rng.choice(["two\nlines", "a\r\nb\r\nc", "\n"]))

    def control_characters(self, table: Table) -> None:
        self.mutations.append("control characters in a note")
        text = self.rng.choice(["\x1b]0;title\x07", "\x7f\x85\u202eabc", "tab\there", "\x01\x02"])
        self.note(table, self.some_row(table), XLSX_ILLEGAL.sub("", text) if self.xlsx else text)

    def formula_note(self, table: Table) -> None:
        self.mutations.append("formula-looking note")
        formulas = ["=1+1", "+SUM(A1:A2)", "@cmd", "-2+3", '=HYPERLINK("x")']
        self.note(table, self.some_row(table), self.rng.choice(formulas))

    def empty_optional(self, table: Table) -> None:
        self.mutations.append("empty optional cell")
        present = [f for f in OPTIONAL if table.column(f) is not None]
        if present:
            self.set_cell(table, self.some_row(table), self.rng.choice(present), "")

    def extra_empty_column(self, table: Table) -> None:
        self.mutations.append("extra column without header or values")
        rows = table.table_rows()
        at = self.rng.randrange(max(len(row) for row in rows) + 1)
        for row in rows:
            row.insert(min(at, len(row)), "")

    def header_alias(self, table: Table) -> None:
        self.mutations.append("header renamed to another spelling")
        header = table.lines[table.header]
        i = self.rng.randrange(len(header))
        name = _field_of(str(header[i]))
        if name:
            header[i] = self.rng.choice([*COLUMNS[name], f" {name.title()} ", name.replace("_", " ").upper(),
                                         name.replace("_", "-")])

    def remove_optional(self, table: Table) -> None:
        self.mutations.append("optional column removed")
        present = [column for f in OPTIONAL if (column := table.column(f)) is not None]
        if present:
            column = self.rng.choice(present)
            for row in table.table_rows():
                if len(row) > column:
                    del row[column]

    def padding_and_zeros(self, table: Table) -> None:
        self.mutations.append("padding and leading zeros")
        row = self.some_row(table)
        _, _, table_letter, board, points = table.truth[row]
        self.set_cell(table, row, "board", f"0{board}")
        self.set_cell(table, row, "table", f"  {table_letter} ")
        self.set_cell(table, row, "defenders_points", f"{'-' if points < 0 else ''}00{abs(points)}")

    def sample_marker(self, table: Table) -> None:
        self.mutations.append("sample-data marker")
        table.insert_line(0, ["# sample data: invented"])

    def leading_empty_column(self, table: Table) -> None:
        self.mutations.append("header not in row 1 / column A")
        for row in table.table_rows():
            row.insert(0, "")
        table.insert_line(0, [])

    def invalid(self, name: str) -> None:
        self.mutations.append(name)
        self.expect = "invalid" if self.expect != "unknown" else "unknown"

    def duplicated_row(self, table: Table) -> None:
        self.invalid("duplicated row")
        row = self.some_row(table)
        table.lines.append(list(table.lines[row]))
        table.data.append(len(table.lines) - 1)
        table.truth[len(table.lines) - 1] = table.truth[row]

    def another_match(self, table: Table) -> None:
        self.invalid("row of a match not in the round")
        self.set_cell(table, self.some_row(table), "match", self.rng.choice(["9", "3", "1a"]))

    def another_round(self, table: Table) -> None:
        self.invalid("row of another round")
        self.set_cell(table, self.some_row(table), "round", self.rng.choice([2, 0, -1]))

    def huge_number(self, table: Table) -> None:
        self.invalid("huge number")
        digits = self.rng.choice([10, 600, 4301, 5000])
        value: object = "5" * digits
        if self.xlsx and digits < 20 and self.rng.random() < 0.5:
            value = int(value)  # type: ignore[call-overload]
        self.set_cell(table, self.some_row(table), self.rng.choice(["round", "board", "defenders_points"]), value)

    def full_width_digits(self, table: Table) -> None:
        """A Chinese IME's full-width points (NFKC: the same number)."""
        self.mutations.append("full-width digits")
        row = self.some_row(table)
        points = table.truth[row][4]
        text = ("－" if points < 0 else "") + "".join(chr(0xFF10 + int(d)) for d in str(abs(points)))
        self.set_cell(table, row, "defenders_points", text)

    def unicode_digits(self, table: Table) -> None:
        self.invalid("Unicode digits")
        row = self.some_row(table)
        zero = self.rng.choice([0x660, 0x966])  # Arabic-Indic, Devanagari (full-width ones are read: NFKC)
        points = table.truth[row][4]
        text = "".join(chr(zero + int(d)) for d in str(abs(points) or 5))
        self.set_cell(table, row, self.rng.choice(["defenders_points", "board"]), text)

    def not_multiple_of_5(self, table: Table) -> None:
        self.invalid("points not a multiple of 5")
        row = self.some_row(table)
        self.set_cell(table, row, "defenders_points", table.truth[row][4] + self.rng.choice([1, 2, 3, 4]))

    def conflicting_points(self, table: Table) -> None:
        self.invalid("other points for a stored slot")
        round_, match, table_letter, board = self.rng.choice(SEEDED)
        points = TRUTH[(round_, match, table_letter, board)][0] + 5 * self.rng.choice([-2, -1, 1, 2])
        cells = {"round": round_, "match": match, "table": table_letter, "board": board, "defenders_points": points}
        header = table.lines[table.header]
        table.lines.append([cells.get(_field_of(str(name)), "") for name in header])
        table.data.append(len(table.lines) - 1)

    def empty_required(self, table: Table) -> None:
        self.invalid("empty required cell")
        self.set_cell(table, self.some_row(table),
                      self.rng.choice(["round", "match", "table", "board", "defenders_points"]), "")

    def unknown_column(self, table: Table) -> None:
        self.invalid("unknown column")
        column = table.add_column("comment")
        for row in table.data:
            table.lines[row][column] = "x"

    def stray_value(self, table: Table) -> None:
        self.invalid("value under a column without a header")
        row = self.some_row(table)
        table.lines[row].extend([""] * self.rng.randrange(3) + ["STRAY"])

    def header_typo(self, table: Table) -> None:
        self.invalid("required header misspelt")
        header = table.lines[table.header]
        column = self.required_column(table)
        if column is None:
            return  # none left: the file is invalid already
        header[column] = self.rng.choice(["defender_points", "rnd", "board no", "轮数"])

    def header_duplicate(self, table: Table) -> None:
        self.invalid("header duplicated")
        column = self.rng.randrange(len(table.lines[table.header]))
        if not _field_of(str(table.lines[table.header][column])):
            column = table.column("round") or 0
        rows = table.table_rows()
        width = max(len(row) for row in rows)
        for row in rows:
            row.extend([""] * (width - len(row)))
            row.append(row[column])

    def remove_required(self, table: Table) -> None:
        self.invalid("required column removed")
        column = self.required_column(table)
        if column is None:
            return
        for row in table.table_rows():
            if len(row) > column:
                del row[column]

    def long_note(self, table: Table) -> None:
        self.invalid("note of more than 500 characters")
        self.note(table, self.some_row(table), "备" * self.rng.choice([501, 2000]))

    def table_c(self, table: Table) -> None:
        self.invalid("table C")
        self.set_cell(table, self.some_row(table), "table", "C")

    def wrong_declarer(self, table: Table) -> None:
        self.invalid("declarer not the schedule's")
        row = self.some_row(table)
        _, match_id, _, board, _ = table.truth[row]
        match = self.event.rounds[0].match(match_id)
        assert match is not None
        right = self.event.board(match.set, board).declarer
        seat = self.rng.choice([s for s in "NESW" if s != right])
        if table.column("declarer") is None:
            table.add_column("declarer")
        self.set_cell(table, row, "declarer", seat)

    def header_only(self, table: Table) -> None:
        self.invalid("header only")
        header = table.lines[table.header]
        table.lines = [line for i, line in enumerate(table.lines) if i not in table.data]
        table.header = next(i for i, line in enumerate(table.lines) if line is header)
        table.data, table.truth = [], {}

    # --- writing ---------------------------------------------------------------------------------

    def csv_bytes(self, table: Table) -> bytes:
        rng = self.rng
        delimiter = rng.choice([",", ",", ";", "\t"])
        stream = io.StringIO()
        writer = csv.writer(stream, delimiter=delimiter, lineterminator=rng.choice(["\n", "\r\n"]))
        for line in table.lines:
            writer.writerow(line)
        text = stream.getvalue()
        encoding = rng.choice(["utf-8"] * 4 + ["utf-8-sig"] * 2 + ["gbk"] * 2 + ["utf-16"])
        self.mutations.append(f"CSV {encoding}, delimiter {delimiter!r}")
        if encoding == "utf-16":
            self.expect = "invalid" if self.expect != "unknown" else "unknown"
        if "\x00" in text:
            self.expect = "invalid" if self.expect != "unknown" else "unknown"
        if encoding == "gbk":
            try:
                data = text.encode("gbk")
            except UnicodeEncodeError:
                data = text.encode("gb18030")
            if not data.isascii():
                try:
                    data.decode("utf-8")  # GBK bytes that happen to be UTF-8: read as UTF-8
                    self.expect = "unknown"
                except UnicodeDecodeError:
                    pass
            return data
        return text.encode(encoding)

    def xlsx_bytes(self, table: Table) -> bytes:
        rng = self.rng
        book = openpyxl.Workbook()
        book.remove(book.active)
        extra = rng.choice(["none", "none", "none", "hidden stale sheet first", "empty visible sheet first",
                            "second visible sheet with data"])
        self.mutations.append(f"XLSX, {extra}")
        if extra == "hidden stale sheet first":
            old = book.create_sheet("old")
            old.append(HEADER)
            old.append([1, "1", "A", 1, TRUTH[(1, "1", "A", 1)][0] + 10])
            old.sheet_state = rng.choice(["hidden", "veryHidden"])
        if extra == "empty visible sheet first":
            book.create_sheet("notes")
        sheet = book.create_sheet("results")
        for line in table.lines:
            sheet.append(line)
        if extra == "second visible sheet with data":
            book.create_sheet("more").append(["anything"])
            self.expect = "invalid" if self.expect != "unknown" else "unknown"
        stream = io.BytesIO()
        book.save(stream)
        return stream.getvalue()

    # --- byte mutations: their effect is unknown ---------------------------------------------------

    def bytes_mutation(self, data: bytes) -> bytes:
        rng = self.rng
        kind = rng.choice(["byte flips", "truncation", "BOM inserted", "encoding switch part-way",
                           "chunk repeated", "chunk deleted"] if not self.xlsx else
                          ["byte flips", "truncation", "chunk deleted"])
        self.mutations.append(kind)
        self.expect = "unknown"
        if not data:
            return b"\xef\xbb\xbf"
        buffer = bytearray(data)
        if kind == "byte flips":
            for _ in range(rng.randrange(1, 9)):
                buffer[rng.randrange(len(buffer))] ^= rng.randrange(1, 256)
            return bytes(buffer)
        if kind == "truncation":
            return data[: rng.randrange(len(data))]
        if kind == "BOM inserted":
            at = rng.choice([0, 0, rng.randrange(len(data))])
            return data[:at] + rng.choice([codecs.BOM_UTF8, codecs.BOM_UTF16_LE]) + data[at:]
        start = rng.randrange(len(data))
        end = min(len(data), start + rng.randrange(1, 200))
        if kind == "encoding switch part-way":
            try:
                part = data[start:].decode("utf-8").encode(rng.choice(["gb18030", "utf-16-le", "latin-1"]),
                                                           errors="replace")
            except UnicodeDecodeError:
                part = data[start:]
            return data[:start] + part
        if kind == "chunk repeated":
            return data[:end] + data[start:end] + data[end:]
        return data[:start] + data[end:]

    def case(self, index: int) -> Case:
        rng = self.rng
        table = self.table()
        if rng.random() < 0.04:
            self.mutations.append("empty file")
            self.expect = "invalid"
            data = b"" if not self.xlsx else self.xlsx_bytes(Table([], 0, []))
        else:
            self.mutate(table)
            data = self.xlsx_bytes(table) if self.xlsx else self.csv_bytes(table)
        if rng.random() < 0.25:
            data = self.bytes_mutation(data)
        if not self.mutations:
            self.mutations.append("none")
        rows = set(table.truth.values())
        return Case(index, self.mutations, ".xlsx" if self.xlsx else ".csv", data, self.expect, rows)


def make_case(index: int, event: Event) -> Case:
    return Maker(random.Random(f"{SEED}:{index}"), event).case(index)


def _slot(row: tuple[object, ...]) -> tuple[object, ...]:
    return row[2:6]


def _check(case: Case, base: list[tuple[object, ...]], after: list[tuple[object, ...]], exit_code: int,
           stdout: str) -> list[str]:
    """What is wrong with one case's outcome (nothing: an empty list)."""
    if exit_code not in (0, 2):
        return [f"exit status {exit_code}"]
    if exit_code:
        problems = [] if after == base else ["a rejected file changed the database"]
        if case.expect == "valid":
            problems.append("a valid file was refused")
        return problems
    problems = []
    if case.expect == "invalid":
        problems.append("an invalid file was accepted")
    if Counter(base) - Counter(after):
        problems.append("rows stored before changed or vanished")
    added = [row for row in after if row not in set(base)]
    new_results = [row for row in added if row[0] == "results"]
    new_imports = [row for row in added if row[0] == "imports"]
    found = re.search(r"imported (\d+) row\(s\)", stdout)
    said = int(found.group(1)) if found else 0
    if len(new_results) != said or len(new_imports) != (1 if said else 0):
        problems.append(f"said {said} row(s), stored {len(new_results)} in {len(new_imports)} import(s)")
    if {_slot(r) for r in new_results} & {_slot(r) for r in base if r[0] == "results"}:
        problems.append("a result was stored for a slot that already had one")
    if case.expect == "valid":
        expected = {row for row in case.rows if row[:4] not in SEEDED}
        stored = {tuple(r[2:7]) for r in new_results}
        if stored != expected:
            problems.append(f"stored {sorted(stored)}, expected {sorted(expected)}")
    return problems


def test_fuzzed_travellers_are_imported_whole_or_not_at_all(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    event = load_event(event_path)
    boards = str(tmp_path / "boards")
    # Stored with everything a valid file may say of them (else a file saying more is a conflict).
    seed_rows = [[*slot, *TRUTH[slot], event.board(1, slot[3]).declarer, event.board(1, slot[3]).level]
                 for slot in SEEDED]
    seed = write_csv(tmp_path / "seed.csv", [*HEADER, "trump", "declarer", "level"], seed_rows)
    assert run("results", "import", str(event_path), str(seed), "--boards-dir", boards).exit_code == 0
    database = db_path(tmp_path)
    pristine = tmp_path / "pristine"
    pristine.mkdir()
    for part in database.parent.glob("results.sqlite*"):
        shutil.copy2(part, pristine / part.name)
    base = db_state(tmp_path)
    cases_dir = tmp_path / "cases"
    cases_dir.mkdir()

    only = os.environ.get("FUZZ_CASE")
    indexes = [int(only)] if only else range(CASES)
    failures: list[str] = []
    expected = Counter[str]()
    start = time.monotonic()
    for index in indexes:
        case = make_case(index, event)
        expected[case.expect] += 1
        path = cases_dir / f"case-{index:03}{case.suffix}"
        path.write_bytes(case.data)
        for part in database.parent.glob("results.sqlite*"):
            part.unlink()
        for part in pristine.iterdir():
            shutil.copy2(part, database.parent / part.name)
        try:
            result = run("results", "import", str(event_path), str(path), "--boards-dir", boards)
        except Exception as error:  # a traceback (run_dealer re-raises it or fails on exit 70)
            text = str(error)
            text = text[: text.find("internal error")] if "internal error" in text else text
            failures.append(f"{case.label()}: {type(error).__name__}:\n" + "\n".join(text.splitlines()[-12:]))
            continue
        for problem in _check(case, base, db_state(tmp_path), result.exit_code, result.stdout):
            failures.append(f"{case.label()}: {problem}\n{result.output[-1500:]}")
    elapsed = time.monotonic() - start
    print(f"{len(indexes)} cases ({dict(expected)}) in {elapsed:.1f} s")
    assert not failures, (f"{len(failures)} failing case(s) (FUZZ_CASE=<case> reruns one):\n"
                          + "\n\n".join(failures[:10]))
    if not only:
        assert min(expected.values()) >= 30, expected  # the generator makes each kind of case
