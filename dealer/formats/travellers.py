"""Traveller files (CSV, XLSX) as a document: bytes in, the header mapped and the data rows out.

Pure: takes a file's bytes and its name (python-chess's ``pgn.read_game`` takes a handle), never a
path or a database. Every problem names the file, the row as a spreadsheet shows it (header row
1, first data row 2), the column (letter and header as written) and the value, and says what was
expected. Validating the rows against an event and storing them is the application's
(:mod:`dealer.app.validate`, :mod:`dealer.app.results`).
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import functools
import hashlib
import io
import itertools
import operator
import sys
import warnings
import zipfile
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealer.errors import FileProblem, Problem, Rejected, UserError, quote
from dealer.formats.columns import TEXT_LIMIT, TRAVELLERS, Cell, Layout, RawRow, header_key
from dealer.numbers import DIGITS_LIMIT


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
    #: The data rows as read: each row as a spreadsheet numbers it, and its cells (see :meth:`column`).
    numbers: list[int] = field(default_factory=list)
    cells: list[list[str]] = field(default_factory=list)
    sample: bool = False  # the first line is a "# sample data" / "# 样例数据" comment
    sheet: str | None = None  # the sheet read, for a workbook
    #: Field → (column index, column as written: letter and header).
    fields: dict[str, tuple[int, str]] = field(default_factory=dict)

    @functools.cached_property
    def rows(self) -> list[RawRow]:
        """The data rows by field, one :class:`RawRow` each (the row-by-row path)."""
        blanks = {key: Cell("", label) for key, (_i, label) in self.fields.items()}
        mapping = [(key, i, label) for key, (i, label) in self.fields.items()]
        return [RawRow(number, {key: Cell(cells[i], label) if i < len(cells) and cells[i] else blanks[key]
                                for key, i, label in mapping})
                for number, cells in zip(self.numbers, self.cells, strict=True)]

    @functools.cached_property
    def _narrowest(self) -> int:
        return min(map(len, self.cells), default=0)

    def column(self, key: str) -> list[str]:
        """The texts of one field in every data row ("" where the row has none): the columnar path."""
        where = self.fields.get(key)
        if where is None:
            return [""] * len(self.cells)
        i = where[0]
        if i < self._narrowest:
            return list(map(operator.itemgetter(i), self.cells))
        return [cells[i] if i < len(cells) else "" for cells in self.cells]


#: A file whose first non-blank line is a comment starting with one of these holds sample data.
SAMPLE_MARKERS = ("sample data", "样例数据")


def is_sample_marker(first_cell: str) -> bool:
    """Whether the first cell of a file's first line marks the file as sample data."""
    if not first_cell.startswith("#"):
        return False
    return first_cell.lstrip("#").strip().lower().startswith(SAMPLE_MARKERS)



# --- reading -------------------------------------------------------------------------------
#
# A traveller file is read in three steps: its suffix says CSV or XLSX (nothing is read before);
# its bytes are read (a regular file, at most FILE_LIMIT bytes); its rows, as a spreadsheet
# numbers them, go through one table reader (header, comments, data) whatever the format. Every
# failure is a FileProblem naming the file (and the row where there is one) or a Rejected listing
# the problems; nothing the file holds can raise anything else.

#: Limits of one traveller file (docs/results.md, "Limits"), far beyond a real one: a round of a
#: 2,000-team league is about 32,000 rows, 1 MB.
FILE_LIMIT = 32 * 1024 * 1024  #: bytes of a CSV or XLSX file, checked before reading it
ROWS_LIMIT = 200_000  #: data rows (blank and comment rows not counted)
SHEET_ROWS = 1_048_576  #: rows of any kind (a spreadsheet's last row)
COLUMNS_LIMIT = 64  #: columns read: a value further right refuses the file (a traveller has 12)
XLSX_UNPACKED_LIMIT = 128 * 1024 * 1024  #: uncompressed size of all of a workbook's members
XLSX_MEMBERS_LIMIT = 10_000  #: members of a workbook's zip archive
SHEET_CELLS_LIMIT = 16_000_000  #: cells of the sheets read, empty ones included (a blank row: one)

CSV_SUFFIXES = (".csv", ".tsv", ".txt")
XLSX_SUFFIXES = (".xlsx", ".xlsm")
#: The delimiters a CSV file may use, in order of preference when the header has as many of each.
DELIMITERS = (",", "\t", ";")
#: Fed to the CSV reader after the last line: it ends up inside a cell only when a quote opened
#: a cell that never closes. It holds a NUL, which a CSV file cannot (see :func:`_decode`).
_END_OF_FILE = "\x00\ufdd0end of file\ufdd0\x00"


def file_kind(source: str) -> str:
    """``"csv"`` or ``"xlsx"`` from the file's suffix (before anything is read)."""
    path = Path(source)
    suffix = path.suffix.lower()
    if suffix in XLSX_SUFFIXES:
        return "xlsx"
    if suffix in CSV_SUFFIXES:
        return "csv"
    if suffix == ".xls":
        raise FileProblem("import.xls_not_read", path=path)
    raise FileProblem("import.unknown_file_kind", path=path)


def _reason(error: BaseException) -> str:
    """A library's exception as a short, one-line reason."""
    text = " ".join(str(error).split())
    if isinstance(error, ValueError) and text.startswith("Exceeds the limit"):
        return (f"a number of more than {sys.get_int_max_str_digits():,} digits (a whole number has at "
                f"most {DIGITS_LIMIT})")
    text = text if len(text) <= 160 else text[:160] + "…"
    name = type(error).__name__
    name = f"{type(error).__module__}.{name}" if name == "error" else name  # zlib.error, not error
    return f"{name}: {text}" if text else name


def _decode(data: bytes, source: str) -> str:
    """The text of a CSV file: UTF-8 (with or without a byte-order mark), else GBK/GB18030.
    A second byte-order mark (a file saved twice with one) is dropped too."""
    if data.startswith(codecs.BOM_UTF8):
        try:
            return data[len(codecs.BOM_UTF8):].decode("utf-8").lstrip("\ufeff")
        except UnicodeDecodeError as error:
            raise FileProblem(
                "import.bad_utf8_after_bom", source=source, byte=error.start + len(codecs.BOM_UTF8)) from None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise FileProblem("import.utf16_text", source=source)
    if data.startswith(b"PK\x03\x04"):
        raise FileProblem("import.zip_not_csv", source=source)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise FileProblem("import.nul_byte", source=source, byte=nul)
    try:
        return data.decode("utf-8").lstrip("\ufeff")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("gb18030")  # a superset of GBK, as Excel saves CSV in China
    except UnicodeDecodeError as error:
        raise FileProblem("import.not_utf8_nor_gbk", source=source, byte=error.start) from None


def _is_comment(line: str) -> bool:
    return line.lstrip(' \t"').startswith("#")


def _delimiter(text: str) -> str:
    """The delimiter of the header line: the first line that is neither blank nor a ``#``
    comment (a comment may hold any punctuation); the one it holds most of."""
    for line in io.StringIO(text, newline=""):
        if not line.strip(" \t\r\n\"" + "".join(DELIMITERS)) or _is_comment(line):
            continue
        counts = [line.count(d) for d in DELIMITERS]
        return DELIMITERS[counts.index(max(counts))] if max(counts) else ","
    return ","


def _csv_rows(text: str, source: str) -> Iterator[tuple[int, list[str]]]:
    """(row, cells) of every record of a CSV text, numbered as a spreadsheet shows them: a record
    is one row however many lines its quoted cells span; a blank line is a row too."""
    lines = itertools.chain(io.StringIO(text, newline=""), [_END_OF_FILE])
    reader = csv.reader(lines, delimiter=_delimiter(text))
    number = 0
    strip = str.strip
    end = [_END_OF_FILE]
    try:
        for record in reader:
            if record == end:
                return
            number += 1
            if record and record[-1].endswith(_END_OF_FILE):
                raise FileProblem("import.unclosed_quote", source=source, row=number)
            if number > SHEET_ROWS:
                raise FileProblem("import.more_rows_than_a_sheet", source=source, limit=SHEET_ROWS)
            yield number, list(map(strip, record))
    except csv.Error as error:
        if "field larger than field limit" in str(error):
            raise FileProblem("import.cell_too_long", source=source, row=number + 1,
                              length=csv.field_size_limit(), limit=TEXT_LIMIT) from None
        raise FileProblem("import.invalid_csv", source=source, row=number + 1, reason=_reason(error)) from None


#: A document type declaration (and the entities it defines) in any encoding XML allows: no
#: spreadsheet program writes one, and entities are how XML bombs and external-file reads work.
_DTD_MARKS = tuple(mark.encode(encoding) for mark in ("<!DOCTYPE", "<!ENTITY")
                   for encoding in ("utf-8", "utf-16-le", "utf-16-be"))
#: Parts not searched for a DTD: images (an SVG logo may carry one) and binary parts, which
#: openpyxl does not parse. Every other part is, whatever its name.
_NOT_XML_PARTS = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff", ".emf", ".wmf", ".svg", ".bin")


def _check_archive(data: bytes, source: str) -> None:
    """Refuse a workbook that is not a zip archive, unpacks to too much, is damaged or holds a
    DTD, before openpyxl opens it. The declared sizes are checked first (zipfile never unpacks
    a member beyond the size the archive declares for it), then every member is unpacked once,
    in pieces, checking its CRC and looking for a DTD (images aside)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            if len(members) > XLSX_MEMBERS_LIMIT:
                raise FileProblem("import.too_many_parts", source=source, parts=len(members),
                                  limit=XLSX_MEMBERS_LIMIT)
            unpacked = sum(member.file_size for member in members)
            if unpacked > XLSX_UNPACKED_LIMIT:
                raise FileProblem("import.unpacks_too_big", source=source, unpacked=unpacked,
                                  limit=XLSX_UNPACKED_LIMIT)
            for member in members:
                xml = not member.filename.lower().endswith(_NOT_XML_PARTS)
                with archive.open(member) as stream:
                    tail = b""
                    while chunk := stream.read(1 << 20):
                        block = tail + chunk
                        if xml and any(mark in block for mark in _DTD_MARKS):
                            raise FileProblem("import.holds_dtd", source=source,
                                              part=quote(member.filename))
                        tail = block[-32:]
    except UserError:
        raise
    except Exception as error:  # BadZipFile, a bad CRC, an unsupported compression or encryption …
        raise FileProblem("import.damaged_archive", source=source, reason=_reason(error)) from None


@contextlib.contextmanager
def _workbook(data: bytes, source: str) -> Iterator[Any]:
    """The workbook, read-only (its sheets are parsed lazily, row by row), closed after use."""
    _check_archive(data, source)
    import openpyxl

    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True, keep_links=False)
    except Exception as error:  # openpyxl raises anything for a damaged workbook
        raise FileProblem("import.unreadable_workbook", source=source, reason=_reason(error)) from None
    try:
        yield book
    finally:
        book.close()


def _cell_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _sheet_rows(sheet: Any, source: str, budget: list[int]) -> Generator[tuple[int, list[str]], None, None]:
    """(row, cells) of every row of a read-only sheet, numbered as the spreadsheet shows them.

    ``iter_rows`` starts at row 1 and yields an empty row for each row the file leaves out, so the
    n-th row yielded is row n (whatever row the sheet's data starts on). The sheet's XML is parsed
    while iterating, so a damaged sheet fails here: said as a problem of the file. ``budget`` is the
    cells still to read (shared by the sheets of a workbook).
    """
    where = f"{source}: sheet {quote(sheet.title)}"
    number = 0
    try:
        sheet.reset_dimensions()  # every row, not only those of the size the file claims
        rows = sheet.iter_rows(values_only=True)
        while True:
            values = next(rows, None)
            if values is None:
                return
            number += 1
            budget[0] -= max(1, len(values))  # a blank row counts as one cell
            if number > SHEET_ROWS:
                raise FileProblem("import.sheet_more_rows_than_a_sheet", where=where, limit=SHEET_ROWS)
            if budget[0] < 0:
                raise FileProblem("import.too_many_cells", where=where,
                                  limit=SHEET_CELLS_LIMIT)
            yield number, [_cell_text(value) for value in values]
    except UserError:
        raise
    except Exception as error:  # openpyxl parses the sheet lazily: any damage shows up here
        raise FileProblem("import.unreadable_row", where=where, row=number + 1, reason=_reason(error)) \
            from None


def _holds_data(sheet: Any, source: str, budget: list[int]) -> bool:
    with contextlib.closing(_sheet_rows(sheet, source, budget)) as rows:
        return any(any(cells) for _, cells in rows)


def _choose_sheet(book: Any, source: str, name: str | None, budget: list[int]) -> Any:
    """The sheet named ``name``, else the one visible sheet that holds data (or the first visible
    one when none does). A hidden sheet is never read; several visible sheets with data are
    refused rather than one of them silently ignored."""
    sheets = list(book.worksheets)
    visible = [s for s in sheets if s.sheet_state == "visible"]
    names = ", ".join(quote(s.title) for s in visible) or "none"
    if name is not None:
        chosen = next((s for s in sheets if s.title == name), None) or next(
            (s for s in sheets if s.title.strip().casefold() == name.strip().casefold()), None)
        if chosen is None:
            raise FileProblem("import.no_such_sheet", field="sheet", source=source, name=quote(name),
                              names=names)
        if chosen.sheet_state != "visible":
            raise FileProblem("import.hidden_sheet", field="sheet", source=source,
                              name=quote(chosen.title), names=names)
        return chosen
    if not visible:
        raise FileProblem("import.no_visible_sheet", source=source)
    with_data = [s for s in visible if _holds_data(s, source, budget)]
    if len(with_data) > 1:
        listed = ", ".join(quote(s.title) for s in with_data)
        raise FileProblem("import.several_sheets_with_data",
                          field="sheet", source=source, count=len(with_data), sheets=listed)
    return with_data[0] if with_data else visible[0]


@dataclass
class _Header:
    row: int
    mapping: dict[int, tuple[str, str]]  # column index → (field, column as written)
    named: set[int]  # indexes of the columns with a name (known or not)
    problems: list[Problem]



def _read_header(source: str, row: int, header: list[str], layout: Layout = TRAVELLERS) -> _Header:
    columns = layout.columns
    problems: list[Problem] = []
    mapping: dict[int, tuple[str, str]] = {}
    seen: dict[str, str] = {}
    for i, name in enumerate(header):
        if not name:
            continue
        label = f'{column_letter(i)} "{name}"'
        key = layout.lookup.get(header_key(name))
        if key is None:
            known = ", ".join(f"{k} ({columns[k][1]})" for k in columns)
            problems.append(Problem(source, row, None, label, None,
                                    "import.unknown_column", params={"known": known}))
        elif key in seen:
            problems.append(Problem(source, row, key, label, None,
                                    "import.duplicate_column", params={"name": key, "seen": seen[key]}))
        else:
            seen[key] = label
            mapping[i] = (key, label)
    for key in layout.required:
        if key not in seen:
            problems.append(Problem(source, row, key, None, None,
                                    "import.required_column_missing", params={"name": key,
                                                                              "columns": columns[key][1]}))
    return _Header(row, mapping, {i for i, name in enumerate(header) if name}, problems)


def _last_value(cells: list[str]) -> int:
    """Index of the last non-empty cell; -1 for a blank row."""
    for i in range(len(cells) - 1, -1, -1):
        if cells[i]:
            return i
    return -1


def _read_table(rows: Iterable[tuple[int, list[str]]], source: str, sha256: str,
                sheet: str | None = None, layout: Layout = TRAVELLERS) -> ParsedFile:
    """The data rows of a file's rows: blank rows and ``#`` comment rows are skipped, the first
    other row is the header. Raises :class:`Rejected` for an unusable header or a value in a
    column without a header (one problem per row), :class:`FileProblem` beyond a limit."""
    parsed = ParsedFile(source, sha256, sheet=sheet)
    header: _Header | None = None
    problems: list[Problem] = []
    data_rows = 0
    first = True
    named_before = 0  # every column before this one has a header: no stray value can be there
    for number, cells in rows:
        last = len(cells) - 1 if cells and cells[-1] else _last_value(cells)
        if last < 0:
            continue
        if last >= COLUMNS_LIMIT:
            raise FileProblem("import.value_beyond_last_column", source=source, row=number,
                              column=column_letter(last), last_column=column_letter(COLUMNS_LIMIT - 1),
                              limit=COLUMNS_LIMIT, columns=len(layout.columns))
        if first:
            parsed.sample = is_sample_marker(cells[0])
            first = False
        if cells[0].startswith("#"):
            continue
        if header is None:
            header = _read_header(source, number, cells[: last + 1], layout)
            problems.extend(header.problems)
            while named_before in header.named:
                named_before += 1
            continue
        data_rows += 1
        if data_rows > ROWS_LIMIT:
            raise FileProblem("import.too_many_rows", source=source, limit=ROWS_LIMIT)
        stray = None if last < named_before else \
            next((i for i in range(last + 1) if cells[i] and i not in header.named), None)
        if stray is not None:
            letter = column_letter(stray)
            problems.append(Problem(
                source, number, None, letter, cells[stray],
                "import.value_without_header", params={"letter": letter, "row": header.row}))
        elif not problems:
            parsed.numbers.append(number)
            parsed.cells.append(cells)
    if problems:
        raise Rejected(source, problems, data_rows)
    if header is not None:
        parsed.fields = {key: (i, label) for i, (key, label) in header.mapping.items()}
    return parsed


def parse_file(data: bytes, source: str, sheet: str | None = None, layout: Layout = TRAVELLERS) -> ParsedFile:
    """A traveller file's bytes read: find the header, map its columns, collect the data rows.

    ``source`` names the file (its suffix says CSV or XLSX: :func:`file_kind`); ``sheet`` the
    sheet of an XLSX workbook to read (by default the one visible sheet that holds data). Raises
    :class:`FileProblem` when the file cannot be read or goes beyond a limit, and
    :class:`Rejected` when its header or its columns are not usable.
    """
    kind = file_kind(source)
    digest = hashlib.sha256(data).hexdigest()
    if kind == "csv":
        return _read_table(_csv_rows(_decode(data, source), source), source, digest, layout=layout)
    budget = [SHEET_CELLS_LIMIT]
    with warnings.catch_warnings(), _workbook(data, source) as book:
        # openpyxl warns of what it does not support (extensions, default styles): not the scorer's business
        warnings.simplefilter("ignore")
        chosen = _choose_sheet(book, source, sheet, budget)
        with contextlib.closing(_sheet_rows(chosen, source, budget)) as rows:
            return _read_table(rows, source, digest, chosen.title, layout)


# --- a round's result template (rows out, bytes in the importer's format) -----------------------

#: The formats a result template is written in (:func:`template_bytes`).
TEMPLATE_FORMATS = ("csv", "xlsx")


def header_spelling(layout: Layout, key: str, lang: str) -> str:
    """The header of field ``key`` as a file of ``layout`` spells it in ``lang``: the field's own
    name in English, its first Chinese spelling in Chinese (both read back by :func:`parse_file`)."""
    if lang == "zh":
        return next((name for name in layout.columns[key] if not name.isascii()), key)
    return key


def template_bytes(header: list[str], rows: list[list[str | int]], fmt: str, sheet: str = "results") -> bytes:
    """A result file to fill in: ``header`` and ``rows`` as CSV (UTF-8 with a byte-order mark, as
    a spreadsheet opens Chinese text right) or as an XLSX workbook of one sheet (numbers as
    numeric cells). Read back by :func:`parse_file` as it is."""
    if fmt == "csv":
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\r\n")
        writer.writerow(header)
        writer.writerows(rows)
        return codecs.BOM_UTF8 + text.getvalue().encode("utf-8")
    if fmt != "xlsx":
        raise ValueError(fmt)
    import openpyxl

    book = openpyxl.Workbook()
    worksheet = book.active
    assert worksheet is not None
    worksheet.title = sheet[:31]
    worksheet.append(header)
    for row in rows:
        worksheet.append(row)
    worksheet.freeze_panes = "A2"
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
