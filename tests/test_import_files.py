"""Reading traveller files: encodings, XLSX sheets and damage, row numbers, delimiters, limits.

One test per defect of the reliability review (defects 6, 8, 9, 10 and the import bullets of 14).
Each checks the message (file, row, column where there is one) and that nothing was stored: the
database is compared whole before and after (``db_state``).
"""

from __future__ import annotations

import codecs
import csv
import os
import re
import threading
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import openpyxl
import pytest
from conftest import Outcome
from test_results_support import HEADER, db_state, hand_rows, run, write_csv, write_event

from dealer.app.result_files import read_file
from dealer.formats import travellers as importer

SAMPLE = hand_rows()[4:8]  # round 1 match 1, boards 3 and 4, tables A and B: not in the seed


@pytest.fixture
def event_path(tmp_path: Path) -> Path:
    """The hand event, dealt, with boards 1 and 2 of match 1 stored (so the database exists)."""
    path = write_event(tmp_path)
    seed = write_csv(tmp_path / "seed.csv", HEADER, hand_rows()[:4])
    assert _import(tmp_path, path, seed).exit_code == 0
    return path


def _import(tmp_path: Path, event: Path, *files: Path | str, options: tuple[str, ...] = ()) -> Outcome:
    return run("results", "import", str(event), *map(str, files), *options,
               "--boards-dir", str(tmp_path / "boards"))


def _refused(tmp_path: Path, event: Path, path: Path | str, *expected: str,
             options: tuple[str, ...] = ()) -> Outcome:
    """Import ``path``: exit 2, each expected text in the output, the database untouched."""
    before = db_state(tmp_path)
    result = _import(tmp_path, event, path, options=options)
    assert result.exit_code == 2, result.output
    for text in expected:
        assert text in result.output, result.output
    assert "Traceback" not in result.output
    assert db_state(tmp_path) == before
    return result


def _results(tmp_path: Path) -> list[tuple[object, ...]]:
    return [row for row in db_state(tmp_path) if row[0] == "results"]


def _book(path: Path, sheets: list[tuple[str, str, list[list[object]]]]) -> Path:
    """A workbook of (title, state, rows) sheets, in that order."""
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, state, rows in sheets:
        sheet = book.create_sheet(title)
        sheet.sheet_state = state
        for row in rows:
            sheet.append(row)
    book.save(path)
    return path


def _patched(source: Path, target: Path, change: Callable[[bytes], bytes],
             member: str = "xl/worksheets/sheet1.xml") -> Path:
    """A copy of a workbook with one member's bytes changed."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            data = old.read(info.filename)
            if info.filename == member:
                changed = change(data)
                assert changed != data, "the change did not apply"
                data = changed
            new.writestr(info.filename, data)
    return target


def _cell_value(coordinate: str, text: str) -> Callable[[bytes], bytes]:
    """Replace a cell of a sheet's XML by a numeric cell holding ``text`` as written."""
    def change(xml: bytes) -> bytes:
        cell = re.compile(rb'<c r="' + coordinate.encode() + rb'"[^>]*?(/>|>.*?</c>)', re.S)
        new, count = cell.subn(b'<c r="' + coordinate.encode() + b'"><v>' + text.encode() + b"</v></c>", xml)
        assert count == 1
        return new
    return change


# --- encodings (defect 6) ---------------------------------------------------------------------


def test_utf8_bom_followed_by_gbk_is_one_line_error_naming_the_byte(tmp_path: Path, event_path: Path) -> None:
    path = tmp_path / "b.csv"
    path.write_bytes(b"\xef\xbb\xbfround,match,table,board,defenders_points,note\n1,1,A,3,5,"
                     + "样例".encode("gbk") + b"\n")
    result = _refused(tmp_path, event_path, path,
                      f"error: {path}: the file starts with a UTF-8 byte-order mark but is not UTF-8 text "
                      "(byte 59)")
    assert len(result.stderr.splitlines()) == 2  # the error and "1 of 1 file(s) rejected"


def test_utf8_with_bom_and_gbk_without_are_still_read(tmp_path: Path, event_path: Path) -> None:
    bom = write_csv(tmp_path / "bom.csv", [*HEADER, "note"], [[*r, "样例"] for r in SAMPLE[:2]],
                    encoding="utf-8-sig")
    gbk = write_csv(tmp_path / "gbk.csv", ["轮次", "场次", "桌", "牌号", "防守方得分", "备注"],
                    [[*r, "样例"] for r in SAMPLE[2:]], encoding="gbk")
    result = _import(tmp_path, event_path, bom, gbk)
    assert result.exit_code == 0, result.output
    assert f"{bom}: imported 2 row(s)" in result.output and f"{gbk}: imported 2 row(s)" in result.output


@pytest.mark.parametrize(("data", "expected"), [
    ("round,match\n".encode("utf-16"), "is UTF-16 text"),
    (b"round,match,table\x00,board\n", "byte 17 is a NUL: not CSV text"),
    (b"round,match\n1,\xff\xff\n", "is neither UTF-8 nor GBK text (byte 14)"),
    (b"PK\x03\x04rest of a zip", "is a zip archive (an XLSX workbook?), not CSV text"),
], ids=["utf-16", "nul", "neither", "zip named csv"])
def test_text_that_is_not_utf8_or_gbk_is_refused_with_the_reason(
        tmp_path: Path, event_path: Path, data: bytes, expected: str) -> None:
    path = tmp_path / "odd.csv"
    path.write_bytes(data)
    _refused(tmp_path, event_path, path, f"error: {path}: ", expected)


# --- numbers of thousands of digits (defect 6) -------------------------------------------------

NUMBER_COLUMNS = {"round": ("A", 0), "board": ("D", 3), "defenders_points": ("E", 4)}


@pytest.mark.parametrize("digits", [450, 4301, 5000])
@pytest.mark.parametrize("field", list(NUMBER_COLUMNS))
@pytest.mark.parametrize("form", ["csv", "xlsx text cell", "xlsx number cell"])
def test_numbers_of_thousands_of_digits_are_a_problem_not_a_traceback(
        tmp_path: Path, event_path: Path, digits: int, field: str, form: str) -> None:
    letter, index = NUMBER_COLUMNS[field]
    huge = "5" * digits
    row: list[object] = list(SAMPLE[0])
    row[index] = huge
    if form == "csv":
        path = write_csv(tmp_path / "huge.csv", HEADER, [SAMPLE[1], row])
    else:
        row[index] = 5 if form == "xlsx number cell" else huge  # written below, as a number
        path = _book(tmp_path / "huge.xlsx", [("results", "visible", [HEADER, SAMPLE[1], row])])
        if form == "xlsx number cell":
            path = _patched(path, tmp_path / "huge-number.xlsx", _cell_value(f"{letter}3", huge))
    if form == "xlsx number cell" and digits > 4300:  # beyond what Python turns into a number
        _refused(tmp_path, event_path, path,
                 f"error: {path}: sheet 'results': cannot read row 3 (or a later one): a number of more "
                 "than 4,300 digits (a whole number has at most 9)")
        return
    header = "defenders_points" if field == "defenders_points" else field
    expected = (f"has {digits} digits; expected a whole number of at most 9" if digits <= 500
                else f"at most 500 characters, got {digits:,}")
    result = _refused(tmp_path, event_path, path,
                      f'{path}: row 3, column {letter} "{header}": value \'55555', expected,
                      "rejected, nothing imported (1 of 2 row(s) with problems")
    assert huge not in result.output  # the value is quoted cut short


# --- XLSX sheets (defect 8) ---------------------------------------------------------------------


def test_openpyxl_read_only_iter_rows_numbers_rows_from_1_with_the_gaps_filled(tmp_path: Path) -> None:
    """What the reader relies on: the n-th row ``iter_rows`` yields is row n of the sheet."""
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.cell(row=5, column=2, value="header")
    sheet.cell(row=9, column=1, value="data")
    book.save(tmp_path / "gaps.xlsx")
    read = openpyxl.load_workbook(tmp_path / "gaps.xlsx", read_only=True)
    sheet = read.worksheets[0]
    assert sheet.min_row == 5  # from the sheet's <dimension>: what the old reader wrongly added
    sheet.reset_dimensions()
    rows = list(sheet.iter_rows(values_only=True))
    read.close()
    assert [i for i, row in enumerate(rows, 1) if any(row)] == [5, 9]
    assert rows[4] == (None, "header") and rows[8] == ("data",)


def test_xlsx_row_numbers_are_the_sheets_when_the_header_is_not_on_row_1(tmp_path: Path,
                                                                       event_path: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "results"
    for j, name in enumerate(HEADER, 1):
        sheet.cell(row=5, column=j, value=name)
    for j, value in enumerate([1, "1", "A", 3, 37], 1):
        sheet.cell(row=6, column=j, value=value)
    for j, value in enumerate([1, "1", "B", 3, 41], 1):  # after two blank rows
        sheet.cell(row=9, column=j, value=value)
    book.save(tmp_path / "offset.xlsx")
    path = tmp_path / "offset.xlsx"
    _refused(tmp_path, event_path, path,
             f"{path}: row 6, column E \"defenders_points\": value '37': defenders' points must be a multiple of 5",
             f"{path}: row 9, column E \"defenders_points\": value '41'")


def test_xlsx_rows_beyond_the_size_the_file_claims_are_read(tmp_path: Path, event_path: Path) -> None:
    path = _book(tmp_path / "book.xlsx", [("results", "visible", [HEADER, *SAMPLE])])
    claimed = _patched(path, tmp_path / "claimed.xlsx",
                       lambda xml: xml.replace(b'<dimension ref="A1:E5"', b'<dimension ref="A1:E2"'))
    result = _import(tmp_path, event_path, claimed)
    assert result.exit_code == 0, result.output
    assert f"{claimed} (sheet 'results'): imported 4 row(s)" in result.output


def test_xlsx_a_hidden_first_sheet_is_never_read(tmp_path: Path, event_path: Path) -> None:
    path = _book(tmp_path / "hidden.xlsx", [
        ("old", "hidden", [HEADER, [1, "1", "A", 3, 10]]),
        ("older", "veryHidden", [HEADER, [1, "1", "A", 3, 15]]),
        ("results", "visible", [HEADER, *SAMPLE]),
    ])
    result = _import(tmp_path, event_path, path)
    assert result.exit_code == 0, result.output
    assert f"{path} (sheet 'results'): imported 4 row(s)" in result.output
    assert (1, "1", "A", 3, SAMPLE[0][4]) in {r[2:7] for r in _results(tmp_path)}
    # Naming a hidden sheet does not read it either.
    _refused(tmp_path, event_path, path, f"error: --sheet: {path}: sheet 'old' is hidden and is not read; "
             "visible sheets: 'results'", options=("--sheet", "old"))


def test_xlsx_several_visible_sheets_with_data_are_refused_naming_them(tmp_path: Path,
                                                                     event_path: Path) -> None:
    path = _book(tmp_path / "two.xlsx", [
        ("empty", "visible", []),
        ("day 1", "visible", [HEADER, *SAMPLE[:2]]),
        ("day 2", "visible", [HEADER, *SAMPLE[2:]]),
    ])
    _refused(tmp_path, event_path, path,
             f"error: --sheet: {path}: 2 sheets hold data ('day 1', 'day 2'); name the one to import")
    result = _import(tmp_path, event_path, path, options=("--sheet", "DAY 2"))  # any case
    assert result.exit_code == 0, result.output
    assert f"{path} (sheet 'day 2'): imported 2 row(s)" in result.output


def test_xlsx_an_unknown_sheet_name_lists_the_visible_sheets(tmp_path: Path, event_path: Path) -> None:
    path = _book(tmp_path / "book.xlsx", [("old", "hidden", [HEADER]), ("a", "visible", [HEADER, *SAMPLE]),
                                          ("b", "visible", [])])
    _refused(tmp_path, event_path, path, f"error: --sheet: {path}: no sheet 'results'; visible sheets: 'a', 'b'",
             options=("--sheet", "results"))


def test_a_sheet_named_for_a_csv_file_is_refused(tmp_path: Path, event_path: Path) -> None:
    path = write_csv(tmp_path / "slips.csv", HEADER, SAMPLE)
    _refused(tmp_path, event_path, path, f"error: --sheet: {path}: a CSV file has no sheets",
             options=("--sheet", "results"))


# --- damaged and hostile workbooks (defects 6 and 10) ---------------------------------------------


def _damaged(tmp_path: Path, kind: str) -> Path:
    good = _book(tmp_path / "good.xlsx", [("results", "visible", [HEADER, *SAMPLE])])
    target = tmp_path / f"{kind}.xlsx"
    if kind == "truncated sheet":
        return _patched(good, target, lambda xml: xml[: len(xml) * 2 // 3])
    if kind == "corrupt sheet":
        return _patched(good, target, lambda xml: xml.replace(b"<row ", b"<row <<", 2))
    if kind == "external entity":
        return _patched(good, target, lambda xml: xml.replace(
            b"<worksheet", b'<!DOCTYPE w [<!ENTITY e SYSTEM "file:///etc/passwd">]><worksheet', 1))
    if kind == "internal entity":
        return _patched(good, target, lambda xml: xml.replace(
            b"<worksheet", b'<!DOCTYPE w [<!ENTITY e "7">]><worksheet', 1).replace(b"<v>1</v>", b"<v>&e;</v>"))
    if kind == "entity in UTF-16 XML":
        return _patched(good, target, lambda xml: xml.decode().replace(
            "<worksheet", '<!DOCTYPE w [<!ENTITY e "7">]><worksheet', 1).encode("utf-16"))
    if kind == "zip not a workbook":
        with zipfile.ZipFile(target, "w") as archive:
            archive.writestr("hello.txt", "hello")
        return target
    if kind == "not a zip":
        target.write_bytes(b"round,match,table,board,defenders_points\n")
        return target
    if kind == "truncated zip":
        target.write_bytes(good.read_bytes()[:2000])
        return target
    if kind == "bad CRC":
        data = bytearray(good.read_bytes())
        at = data.find(b"PK\x01\x02")  # the central directory: damage a member's data before it
        data[at // 2] ^= 0xFF
        target.write_bytes(bytes(data))
        return target
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["truncated sheet", "corrupt sheet", "external entity", "internal entity",
                                  "entity in UTF-16 XML", "zip not a workbook", "not a zip", "truncated zip",
                                  "bad CRC"])
def test_a_damaged_or_hostile_workbook_is_one_line_naming_the_file(tmp_path: Path, event_path: Path,
                                                                   kind: str) -> None:
    path = _damaged(tmp_path, kind)
    result = _refused(tmp_path, event_path, path, f"error: {path}: ")
    assert len(result.stderr.splitlines()) == 2, result.stderr  # the error, "1 of 1 file(s) rejected"
    if "entity" in kind:
        assert "holds a DTD (<!DOCTYPE> or <!ENTITY>)" in result.output
    if kind in ("truncated sheet", "corrupt sheet"):
        assert "sheet 'results': cannot read row" in result.output


def test_a_zip_bomb_is_refused_before_it_is_unpacked(tmp_path: Path, event_path: Path) -> None:
    path = _book(tmp_path / "bomb.xlsx", [("results", "visible", [HEADER, *SAMPLE])])
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as archive, archive.open("xl/media/zeros.bin", "w") as out:
        block = bytes(1 << 20)
        for _ in range(importer.XLSX_UNPACKED_LIMIT // len(block) + 1):
            out.write(block)
    assert path.stat().st_size < 1 << 20
    start = time.monotonic()
    _refused(tmp_path, event_path, path,
             f"error: {path}: the workbook unpacks to ", "bytes; at most 134,217,728 are read")
    assert time.monotonic() - start < 5


# --- CSV row numbers, quotes, delimiters (defects 8 and 9) ----------------------------------------


def test_csv_row_numbers_count_records_and_blank_and_comment_lines(tmp_path: Path, event_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text("# first round\n"                                   # row 1
                    "round,match,table,board,defenders_points,note\n"   # row 2
                    '1,1,A,3,120,"two\nlines"\n'                        # row 3 (two lines)
                    "\n"                                                # row 4
                    "1,1,B,3,37,\n"                                     # row 5
                    "# a comment\n"                                     # row 6
                    '1,1,A,4,"-6",\n', encoding="utf-8")                # row 7
    _refused(tmp_path, event_path, path,
             f"{path}: row 5, column E \"defenders_points\": value '37'",
             f"{path}: row 7, column E \"defenders_points\": value '-6'",
             "(2 of 3 row(s) with problems")


def test_csv_an_unbalanced_quote_names_the_row_where_the_record_starts(tmp_path: Path,
                                                                     event_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text("round,match,table,board,defenders_points,note\n"
                    "1,1,A,3,120,\n"
                    '1,1,B,3,75,"unclosed\n'
                    "1,1,A,4,-5,\n"
                    "1,1,B,4,160,\n", encoding="utf-8")
    result = _refused(tmp_path, event_path, path,
                      f'error: {path}: row 3: a quote (") opens a cell that is never closed')
    assert len(result.stderr.splitlines()) == 2


@pytest.mark.parametrize(("first_line", "delimiter"), [
    ("# round 1", "\t"),
    ("# 第一轮; table A", ","),
    ("# sample data", ";"),
    ("# a, b; c\td", ";"),
], ids=["tab after a plain comment", "comma after a comment with ;", "; after a sample marker",
        "; after a comment with all three"])
def test_csv_delimiter_comes_from_the_header_not_a_comment(tmp_path: Path, event_path: Path,
                                                         first_line: str, delimiter: str) -> None:
    path = tmp_path / "slips.csv"
    lines = [first_line, "", delimiter.join(HEADER), *(delimiter.join(map(str, row)) for row in SAMPLE)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = _import(tmp_path, event_path, path)
    assert result.exit_code == 0, result.output
    assert f"{path}: imported 4 row(s)" in result.output


# --- data under an empty header cell (defect 14) ----------------------------------------------------


@pytest.mark.parametrize("form", ["csv", "xlsx"])
def test_a_value_under_a_column_without_a_header_is_a_problem(tmp_path: Path, event_path: Path,
                                                             form: str) -> None:
    header = [*HEADER, "note", "", "trump"]  # F note, G empty, H trump; I and beyond: no header
    rows: list[list[object]] = [
        [*SAMPLE[0], "", "", "S"],
        [*SAMPLE[1], "", "STRAY", ""],        # under G
        [*SAMPLE[2], "", "", "", "", "far"],  # under J, beyond the header
        [*SAMPLE[3], "fine", "", ""],
    ]
    if form == "csv":
        path = write_csv(tmp_path / "stray.csv", header, rows)
    else:
        path = _book(tmp_path / "stray.xlsx", [("results", "visible", [header, *rows])])
    _refused(tmp_path, event_path, path,
             f"{path}: row 3, column G: value 'STRAY': a value under a column without a header (column G "
             "of the header, row 1, is empty)",
             f"{path}: row 4, column J: value 'far': a value under a column without a header",
             "(2 of 4 row(s) with problems, 2 problem(s))")


# --- files without result rows (defect 14) ---------------------------------------------------------


def _no_rows(tmp_path: Path, kind: str) -> Path:
    if kind == "empty workbook":
        return _book(tmp_path / "empty.xlsx", [("Sheet", "visible", [])])
    if kind == "header-only workbook":
        return _book(tmp_path / "header.xlsx", [("Sheet", "visible", [HEADER]), ("old", "hidden", [HEADER, SAMPLE[0]])])
    texts = {"empty file": "", "header only": ",".join(HEADER) + "\n", "comments only": "# round 1\n# nothing yet\n",
             "whitespace only": "  \n\t\n\r\n   ", "blank rows of delimiters": ",,,,\n , ,\n",
             "header and blank rows": ",".join(HEADER) + "\n,,,,\n\n"}
    path = tmp_path / "nothing.csv"
    path.write_text(texts[kind], encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["empty file", "header only", "comments only", "whitespace only",
                                  "blank rows of delimiters", "header and blank rows", "empty workbook",
                                  "header-only workbook"])
def test_a_file_without_result_rows_is_refused(tmp_path: Path, event_path: Path, kind: str) -> None:
    path = _no_rows(tmp_path, kind)
    _refused(tmp_path, event_path, path,
             f"error: {path}: no result rows in the file (is it the right file?); nothing imported")


# --- limits (defect 10) ----------------------------------------------------------------------------


def test_a_fifo_named_csv_is_refused_without_waiting_for_a_writer(tmp_path: Path, event_path: Path) -> None:
    fifo = tmp_path / "x.csv"
    os.mkfifo(fifo)
    unblocked: list[bool] = []

    def writer() -> None:  # after 5 s, free a reader stuck on the FIFO, so a regression fails, not hangs
        time.sleep(5)
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            unblocked.append(True)
        except OSError:  # nobody reading: as it should be
            pass

    threading.Thread(target=writer, daemon=True).start()
    start = time.monotonic()
    _refused(tmp_path, event_path, fifo, f"error: {fifo}: the traveller file is not a regular file")
    assert time.monotonic() - start < 5 and not unblocked


def test_a_device_is_refused_without_reading_it(tmp_path: Path, event_path: Path) -> None:
    zero = tmp_path / "zero.csv"
    zero.symlink_to("/dev/zero")
    _refused(tmp_path, event_path, zero, f"error: {zero}: the traveller file is not a regular file")
    _refused(tmp_path, event_path, "/dev/zero", "error: /dev/zero: expected a .csv (.tsv, .txt) or .xlsx")


@pytest.mark.parametrize(("name", "expected"), [
    ("slips.xls", "an Excel 97-2003 workbook (.xls) is not read; save it as .xlsx or CSV"),
    ("slips.json", "expected a .csv (.tsv, .txt) or .xlsx (.xlsm) file"),
    ("slips", "expected a .csv (.tsv, .txt) or .xlsx (.xlsm) file"),
])
def test_the_suffix_is_checked_before_reading(tmp_path: Path, event_path: Path, name: str, expected: str) -> None:
    path = tmp_path / name
    os.mkfifo(path)  # reading it would hang: the suffix alone refuses it
    _refused(tmp_path, event_path, path, f"error: {path}: {expected}")


def test_a_folder_named_csv_is_refused(tmp_path: Path, event_path: Path) -> None:
    folder = tmp_path / "slips.csv"
    folder.mkdir()
    _refused(tmp_path, event_path, folder, f"File '{folder}' is a directory")  # said by click
    with pytest.raises(importer.FileProblem, match="the traveller file is a folder, not a file"):
        read_file(folder)


def test_the_file_size_is_checked_before_reading(tmp_path: Path, event_path: Path) -> None:
    for name in ("big.csv", "big.xlsx"):
        path = tmp_path / name
        with path.open("wb") as stream:  # sparse: 32 MiB + 1 byte, nothing written
            stream.truncate(importer.FILE_LIMIT + 1)
        _refused(tmp_path, event_path, path,
                 f"error: {path}: the traveller file is 33,554,433 bytes; at most 33,554,432 are read")


def test_data_rows_per_file_are_limited(tmp_path: Path, event_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert importer.ROWS_LIMIT == 200_000
    monkeypatch.setattr(importer, "ROWS_LIMIT", 3)
    path = write_csv(tmp_path / "rows.csv", HEADER, SAMPLE)
    _refused(tmp_path, event_path, path,
             f"error: {path}: more than 3 data rows; at most 3 are read from one file (split it)")
    # Blank and comment rows do not count.
    path.write_text("# a comment\n\n" + ",".join(HEADER) + "\n\n" + "\n".join(
        ",".join(map(str, r)) for r in SAMPLE[:3]) + "\n# end\n", encoding="utf-8")
    result = _import(tmp_path, event_path, path)
    assert result.exit_code == 0 and "imported 3 row(s)" in result.output, result.output


def test_a_value_beyond_the_column_limit_refuses_the_file(tmp_path: Path, event_path: Path) -> None:
    for name in ("wide.csv", "wide.xlsx"):
        row: list[object] = [*SAMPLE[0], *([""] * 59), "x"]  # column 65: BM
        path = tmp_path / name
        if name.endswith(".csv"):
            write_csv(path, HEADER, [row])
        else:
            _book(path, [("results", "visible", [HEADER, row])])
        _refused(tmp_path, event_path, path, f"error: {path}: row 2, column BM: a value beyond column BL; "
                 "at most 64 columns are read")


def test_cells_are_limited_to_500_characters_in_csv_and_xlsx(tmp_path: Path, event_path: Path) -> None:
    note = "备" * 501
    csv_path = write_csv(tmp_path / "long.csv", [*HEADER, "note"], [[*SAMPLE[0], note]])
    xlsx_path = _book(tmp_path / "long.xlsx", [("results", "visible", [[*HEADER, "note"], [*SAMPLE[0], note]])])
    for path in (csv_path, xlsx_path):
        _refused(tmp_path, event_path, path, f"{path}: row 2, column F \"note\": value '备备",
                 "at most 500 characters, got 501")
    # A CSV cell beyond what the CSV reader holds at all is said in the same terms.
    huge = tmp_path / "huge-cell.csv"
    huge.write_text(",".join(HEADER) + ",note\n1,1,A,3,120," + "x" * (csv.field_size_limit() + 1) + "\n",
                    encoding="utf-8")
    _refused(tmp_path, event_path, huge,
             f"error: {huge}: row 2: a cell of more than 131,072 characters (a cell holds at most 500)")


def test_problems_are_capped_per_file(tmp_path: Path, event_path: Path) -> None:
    path = write_csv(tmp_path / "dups.csv", HEADER, [SAMPLE[0]] * 5000)
    result = _refused(tmp_path, event_path, path,
                      f"error: {path}: rejected, nothing imported (4,999 of 5,000 row(s) with problems, "
                      "4,999 problem(s))",
                      f"{path}: row 3: duplicate row: round 1 match 1 table A board 3 is already in row 2",
                      "  … and 4,949 more problem(s) not shown")
    assert len(result.stderr.splitlines()) <= 55, len(result.stderr.splitlines())


def test_the_limits_are_documented() -> None:
    docs = (Path(__file__).parent.parent / "docs" / "results.md").read_text(encoding="utf-8")
    limits = docs[docs.index("**Limits.**"):]
    for text in (f"{importer.FILE_LIMIT // 2**20} MiB", f"{importer.ROWS_LIMIT:,}", f"{importer.SHEET_ROWS:,}",
                 f"{importer.COLUMNS_LIMIT} (A … BL)", f"{importer.XLSX_UNPACKED_LIMIT // 2**20} MiB",
                 f"{importer.XLSX_MEMBERS_LIMIT:,}", f"{importer.SHEET_CELLS_LIMIT:,}"):
        assert text in limits, text
    assert importer.TEXT_LIMIT == 500 and "500, as for every field" in limits


def test_an_xlsx_sheet_with_rows_beyond_a_spreadsheet_is_refused(tmp_path: Path, event_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importer, "SHEET_ROWS", 1000)  # the real one is 1,048,576: slow to walk
    path = _book(tmp_path / "book.xlsx", [("results", "visible", [HEADER, *SAMPLE])])
    far = _patched(path, tmp_path / "far.xlsx", lambda xml: xml.replace(b'<row r="5"', b'<row r="999999999"')
                   .replace(b'r="A5"', b'r="A999999999"'))
    _refused(tmp_path, event_path, far, f"error: {far}: sheet 'results': more than 1,000 rows, the most a "
             "spreadsheet has")


def test_reading_a_csv_text_numbers_every_record(tmp_path: Path) -> None:
    """The CSV reader on its own: records, blank lines and a file without a final newline."""
    text = 'a,b\r\n\r\n1,"x\r\ny"\r\n2,3'
    assert list(importer._csv_rows(text, "t.csv")) == [(1, ["a", "b"]), (2, []), (3, ["1", "x\r\ny"]),
                                                      (4, ["2", "3"])]
    with pytest.raises(importer.FileProblem, match=r"t.csv: row 2: a quote"):
        list(importer._csv_rows('a,b\n1,"x', "t.csv"))
    assert importer._delimiter("#;;;\n\n a\tb;c\t\n") == "\t"


def test_a_dtd_in_an_image_is_not_a_dtd_in_the_workbook(tmp_path: Path, event_path: Path) -> None:
    path = _book(tmp_path / "logo.xlsx", [("results", "visible", [HEADER, *SAMPLE])])
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("xl/media/image1.svg", '<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
                         '"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg/>')
    result = _import(tmp_path, event_path, path)
    assert result.exit_code == 0 and "imported 4 row(s)" in result.output, result.output


def test_a_double_byte_order_mark_is_dropped(tmp_path: Path, event_path: Path) -> None:
    path = tmp_path / "twice.csv"
    path.write_bytes(codecs.BOM_UTF8 * 2 + ("# round 1\n" + ",".join(HEADER) + "\n" + "\n".join(
        ",".join(map(str, r)) for r in SAMPLE) + "\n").encode())
    result = _import(tmp_path, event_path, path)
    assert result.exit_code == 0 and "imported 4 row(s)" in result.output, result.output
