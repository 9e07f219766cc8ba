"""The columns of a result file and its rows as read: what validating an entry needs, apart from
reading files (:mod:`dealer.formats.travellers`), so that one result typed on the command line or
on a phone does not load the CSV and XLSX readers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

#: Longest text accepted in a free-text field (note, who entered it) and in any cell.
TEXT_LIMIT = 500


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of a result row, with where it was written (a problem names the column)."""

    value: str
    column: str | None = None  # the column as written in a file (letter and header); None for an entry
    written: str | None = None  # the value as written, when ``value`` is it normalised (a problem quotes this)

    @property
    def as_written(self) -> str:
        return self.value if self.written is None else self.written


@dataclass(frozen=True, slots=True)
class RawRow:
    """One row of a result file (or one entry) before validation: its cells by canonical field."""

    number: int | None  # the row as a spreadsheet shows it; None for an entry
    cells: Mapping[str, Cell]



#: Canonical field → accepted header spellings (compared after :func:`header_key`).
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
#: Where a result goes: (round, match, table, board) for a board, (round, match, table) in a level race.


def header_key(text: str) -> str:
    return text.replace("\ufeff", "").strip().lower().replace(" ", "_").replace("-", "_")


class Layout:
    """The columns of one kind of result file: field → accepted header spellings, and the
    required fields (travellers; a level race's table results: :mod:`dealer.app.validate`)."""

    def __init__(self, columns: dict[str, tuple[str, ...]], required: tuple[str, ...]) -> None:
        self.columns = columns
        self.required = required
        self.lookup = {header_key(name): key for key, names in columns.items() for name in names}


TRAVELLERS = Layout(COLUMNS, REQUIRED)
