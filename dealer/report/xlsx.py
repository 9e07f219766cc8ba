"""A streaming XLSX writer: sheets of numbers and text, written row by row into the archive.

The report's board lines of a 2,000-team league are about 6 million cells; openpyxl (even in
write-only mode, with lxml) writes some 30,000 cells a second on the 2-core machine, which is
minutes. This writer emits the same SpreadsheetML (inline strings, whole numbers as numbers, a
bold header row) with one string operation per row, each cell's XML made once per distinct value,
and streams it into the zip archive, so no sheet is ever held whole. Workbooks are read back with
openpyxl and pandas in the tests. Reproducible: every member has the same fixed date, and there
are no document properties (creation or modification times).
"""

from __future__ import annotations

import math
import re
import sys
import zipfile
from collections.abc import Iterable, Sequence
from typing import IO, Any
from xml.sax.saxutils import escape

#: Excel's limits (and the name rules of a sheet).
MAX_ROWS = 1_048_576
MAX_COLUMNS = 16_384
SHEET_NAME_LIMIT = 31
_NAME_FORBIDDEN = re.compile(r"[\[\]:*?/\\]")
#: Characters XML 1.0 cannot hold: replaced (a spreadsheet cell never needs them).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
_STYLES = (
    f'{_HEAD}<styleSheet xmlns="{_MAIN}">'
    '<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font>'
    '<font><b/><sz val="11"/><name val="Calibri"/></font></fonts>'
    '<fills count="2"><fill><patternFill patternType="none"/></fill>'
    '<fill><patternFill patternType="gray125"/></fill></fills>'
    '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>'
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>'
    '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'
    '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>'
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>'
    '</styleSheet>')


#: The time every member of a workbook is stamped with (the zip format's earliest), never the time
#: of writing: two builds of the same data are the same bytes (a site's downloads, a report).
MEMBER_TIME = (1980, 1, 1, 0, 0, 0)
#: Deflate level 1: a league's board lines are millions of cells.
_LEVEL = 1


def _member(name: str) -> zipfile.ZipInfo:
    """A member as ``ZipFile.open(name, "w")`` makes one (deflated, mode 0600), at :data:`MEMBER_TIME`."""
    info = zipfile.ZipInfo(name, date_time=MEMBER_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o600 << 16
    # The member's own deflate level (read by open() and writestr()); public from Python 3.13.
    setattr(info, "compress_level" if sys.version_info >= (3, 13) else "_compresslevel", _LEVEL)
    return info


def _text_cell(text: str, style: str = "") -> str:
    text = _NOT_XML.sub("\ufffd", text)
    space = ' xml:space="preserve"' if text != text.strip() else ""
    return f'<c t="inlineStr"{style}><is><t{space}>{escape(text)}</t></is></c>'


def cell_xml(value: Any) -> str:
    """One cell: ``None`` empty, a whole number or a finite float (a datum, a butler) a number,
    anything else text (never a formula)."""
    if value is None or value == "":
        return "<c/>"
    if type(value) is int:
        return f"<c><v>{value}</v></c>"
    if type(value) is float and math.isfinite(value):
        return f"<c><v>{value!r}</v></c>"
    return _text_cell(str(value))


class _Cells(dict[Any, str]):
    """Value → its cell's XML, made the first time it is asked for."""

    def __missing__(self, value: Any) -> str:
        cell = cell_xml(value)
        if len(self) < 200_000:
            self[value] = cell
        return cell


class Workbook:
    """An XLSX file written sheet by sheet (one open sheet at a time) into ``stream``."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._zip = zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=_LEVEL)
        self._names: list[str] = []
        self._cache = _Cells()
        self._part: IO[bytes] | None = None
        self._rows = 0

    def sheet_name(self, wanted: str) -> str:
        """``wanted`` as a sheet name Excel accepts, unique in the workbook."""
        name = _NAME_FORBIDDEN.sub("_", wanted).strip("'")[:SHEET_NAME_LIMIT] or "sheet"
        base, n = name, 1
        while name.casefold() in {known.casefold() for known in self._names}:
            n += 1
            suffix = f"~{n}"
            name = base[:SHEET_NAME_LIMIT - len(suffix)] + suffix
        return name

    def add_sheet(self, name: str, head: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
        """Write one sheet: a bold header row, then ``rows`` (whole numbers as numbers, text as
        text, ``None`` empty); its name as given to Excel."""
        name = self.open_sheet(name, head)
        self.write_rows(rows)
        self.close_sheet()
        return name

    def open_sheet(self, name: str, head: Sequence[str]) -> str:
        """Start a sheet (the one before is closed) with its bold header row; its name."""
        if self._part is not None:
            self.close_sheet()
        name = self.sheet_name(name)
        self._names.append(name)
        self._part = self._zip.open(_member(f"xl/worksheets/sheet{len(self._names)}.xml"), "w", force_zip64=True)
        self._rows = 1
        header = "".join(_text_cell(h, ' s="1"') if h else "<c/>" for h in head)
        self._part.write(f'{_HEAD}<worksheet xmlns="{_MAIN}"><sheetData><row>{header}</row>'.encode())
        return name

    def write_rows(self, rows: Iterable[Sequence[Any]]) -> None:
        """Rows of the open sheet."""
        part, get = self._part, self._cache.__getitem__
        if part is None:
            raise ValueError("no sheet is open")  # pragma: no cover - a bug
        chunk: list[str] = []
        for row in rows:
            self._rows += 1
            if self._rows > MAX_ROWS or len(row) > MAX_COLUMNS:
                raise ValueError(f"sheet {self._names[-1]}: beyond the {MAX_ROWS:,} rows or {MAX_COLUMNS:,} "
                                 "columns of a spreadsheet")  # pragma: no cover - the report splits first
            chunk.append("<row>" + "".join(map(get, row)) + "</row>")
            if len(chunk) >= 2000:
                part.write("".join(chunk).encode())
                chunk.clear()
        part.write("".join(chunk).encode())

    def close_sheet(self) -> None:
        if self._part is not None:
            self._part.write(b"</sheetData></worksheet>")
            self._part.close()
            self._part = None

    def close(self) -> None:
        self.close_sheet()
        sheets = "".join(f'<sheet name="{escape(n, {chr(34): "&quot;"})}" sheetId="{i}" r:id="rId{i}"/>'
                         for i, n in enumerate(self._names, start=1))

        def write(name: str, text: str) -> None:
            self._zip.writestr(_member(name), text)

        write("xl/workbook.xml", f'{_HEAD}<workbook xmlns="{_MAIN}" xmlns:r="{_REL}"><sheets>{sheets}</sheets>'
                                 "</workbook>")
        rels = "".join(f'<Relationship Id="rId{i}" Type="{_REL}/worksheet" Target="worksheets/sheet{i}.xml"/>'
                       for i in range(1, len(self._names) + 1))
        rels += f'<Relationship Id="rId{len(self._names) + 1}" Type="{_REL}/styles" Target="styles.xml"/>'
        write("xl/_rels/workbook.xml.rels", f'{_HEAD}<Relationships xmlns="{_PKG_REL}">{rels}</Relationships>')
        write("xl/styles.xml", _STYLES)
        kinds = "application/vnd.openxmlformats-officedocument.spreadsheetml"
        overrides = "".join(f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="{kinds}.worksheet+xml"/>'
                            for i in range(1, len(self._names) + 1))
        write("[Content_Types].xml",
              f'{_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
              '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
              '<Default Extension="xml" ContentType="application/xml"/>'
              f'<Override PartName="/xl/workbook.xml" ContentType="{kinds}.sheet.main+xml"/>'
              f'<Override PartName="/xl/styles.xml" ContentType="{kinds}.styles+xml"/>{overrides}</Types>')
        write("_rels/.rels", f'{_HEAD}<Relationships xmlns="{_PKG_REL}"><Relationship Id="rId1" '
                             f'Type="{_REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>')
        self._zip.close()
