"""Validating one result against the event (DESIGN §8): a traveller row or an entry typed in.

The same rules for a file row and for ``results add`` / ``correct``: problems are named by
*field* (``defenders_points``) and, for a file, by the column as written; the interface says how
the field is called to its user.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass

from dealer.cards import LEVELS, SEATS, normalize_level
from dealer.errors import Phrase, Problem, quote
from dealer.event import Event, Match
from dealer.numbers import NotAWholeNumber, read_whole_number
from dealer.store.rows import Entry

#: Longest text accepted in a free-text field (note, who entered it) and in any cell.
TEXT_LIMIT = 500

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

#: Fields of a result, in the order problems are reported.
FIELDS = ("round", "match", "table", "board", "defenders_points", "trump", "declarer", "level",
          "ns_team", "ew_team", "note", "entered_by")


@dataclass(frozen=True, slots=True)
class Cell:
    value: str
    column: str | None = None  # the column as written in a file (letter and header); None for an entry


@dataclass(frozen=True, slots=True)
class RawRow:
    number: int | None  # the row as a spreadsheet shows it; None for an entry
    cells: Mapping[str, Cell]


_EMPTY = Cell("")


def entry_row(values: Mapping[str, object]) -> RawRow:
    """An entry typed in (``results add``), by field, as a row without a file."""
    return RawRow(None, {key: Cell("" if value is None else str(value).strip())
                         for key, value in values.items() if key in FIELDS})


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
#: deck): beyond it a value is a typing error, and not even an explicit acceptance admits it.
ABSOLUTE_PACKS = 10


def absolute_limit(event: Event) -> int:
    """|defenders' points| allowed at all: :data:`ABSOLUTE_PACKS` × 100 × decks."""
    return ABSOLUTE_PACKS * 100 * event.decks


def validate_row(
    event: Event, source: str | None, row: RawRow, check_plausible: bool = True
) -> tuple[Entry | None, list[Problem]]:
    """Check one row against the event; the entry to store, or the problems.

    ``check_plausible=False`` admits points outside :func:`plausible_range` (an extraordinary
    result the scorer confirms explicitly).
    """
    problems: list[Problem] = []
    cells = row.cells

    def cell(key: str) -> Cell:
        return cells.get(key, _EMPTY)

    def problem(key: str, message: str, hint: str | None = None, **params: object) -> None:
        c = cell(key)
        problems.append(Problem(source, row.number, key, c.column, c.value, message, hint, params))

    for key, value in cells.items():
        if len(value.value) > TEXT_LIMIT:
            problem(key, "result.text_too_long", limit=TEXT_LIMIT, length=len(value.value))
    if problems:
        return None, problems

    def required_int(key: str, what: str) -> int | None:
        try:
            return read_whole_number(cell(key).value, Phrase(what))
        except NotAWholeNumber as refused:
            c = cell(key)
            problems.append(Problem(source, row.number, key, c.column, c.value, refused.key, params=refused.params))
            return None

    round_number = required_int("round", "terms.the_round_number")
    match_id = cell("match").value
    match: Match | None = None
    rnd = event.round(round_number) if round_number is not None else None
    if round_number is not None and rnd is None:
        numbers = ", ".join(str(r.number) for r in event.rounds)
        problem("round", "result.round_not_in_event", round=round_number, rounds=numbers)
    if not match_id:
        problem("match", "result.match_missing")
    elif rnd is not None:
        match = rnd.match(match_id)
        if match is None:
            ids = ", ".join(m.id for m in rnd.matches)
            problem("match", "result.match_not_in_round", match=quote(match_id), round=rnd.number, matches=ids)

    table = _TABLES.get(cell("table").value.strip().upper())
    if table is None:
        problem("table", "result.table_not_a_or_b")

    board = required_int("board", "terms.the_board_number")
    if board is not None and not 1 <= board <= event.boards_per_set:
        problem("board", "result.board_not_in_set", board=board, boards=event.boards_per_set)
        board = None

    points = required_int("defenders_points", "terms.the_defenders_points")
    if points is not None:
        low, high = plausible_range(event)
        limit = absolute_limit(event)
        if abs(points) > limit:
            problem("defenders_points",
                    "result.points_beyond_bound", limit=limit, packs=ABSOLUTE_PACKS, pack_points=100 * event.decks,
                    decks=event.decks)
            points = None
        elif points % 5:
            problem("defenders_points", "result.points_not_multiple_of_5")
            points = None
        elif check_plausible and not low <= points <= high:
            problem("defenders_points",
                    "result.points_implausible", hint="accept_implausible", profile=event.profile.id,
                    decks=event.decks, low=low, high=high)
            points = None

    trump = None
    if cell("trump").value:
        trump = _TRUMPS.get(cell("trump").value.strip().upper())
        if trump is None:
            problem("trump", "result.unknown_trump", expected=TRUMP_EXPECTED)

    conditions = event.board(match.set, board) if match is not None and board is not None else None
    declarer = None
    if cell("declarer").value:
        declarer = _SEATS.get(cell("declarer").value.strip().upper())
        if declarer is None:
            problem("declarer", "result.not_a_seat", seats=' '.join(SEATS))
        elif conditions is not None and declarer != conditions.declarer:
            problem("declarer", "result.declarer_not_scheduled", declarer=conditions.declarer, set=conditions.set,
                    board=conditions.number)
    level = None
    if cell("level").value:
        try:
            level = normalize_level(cell("level").value.strip().upper())
        except ValueError:
            problem("level", "result.not_a_level", levels=' '.join(LEVELS))
        else:
            if conditions is not None and level != conditions.level:
                problem("level", "result.level_not_scheduled", level=conditions.level, set=conditions.set,
                        board=conditions.number)

    for key, side in (("ns_team", "NS"), ("ew_team", "EW")):
        text = cell(key).value
        if not text:
            continue
        team = event.team_named(text)
        if team is None:
            problem(key, "result.unknown_team")
        elif match is not None and table is not None:
            expected = match.seats(table)[side]
            if team != expected:
                home = Phrase("terms.home") if expected == match.home else Phrase("terms.away")
                pair = Phrase("terms.ns") if side == "NS" else Phrase("terms.ew")
                problem(key, "result.team_not_at_seat", table=table, round=match.round, match=match.id,
                        seats=pair, expected=expected, home=home)

    if problems or round_number is None or match is None or table is None or board is None \
            or points is None:
        return None, problems
    seats = match.seats(table)
    return Entry(
        round=round_number, match=match.id, table=table, board=board, defenders_points=points,
        trump=trump, declarer=declarer, level=level, ns_team=seats["NS"], ew_team=seats["EW"],
        played_set=match.set, note=cell("note").value or None,
        entered_by=cell("entered_by").value or None, source_row=row.number,
    ), []


def slot_text(slot: tuple[int, str, str, int]) -> str:
    return f"round {slot[0]} match {slot[1]} table {slot[2]} board {slot[3]}"


def stored_text(row: sqlite3.Row) -> str:
    value = "withdrawn" if row["withdrawn"] else f"{row['defenders_points']} points"
    by = f" by {row['entered_by']}" if row["entered_by"] else ""
    return f"{value} (entered {row['entered_at'][:19]}{by})"
