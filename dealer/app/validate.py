"""Validating one result against the event (DESIGN §8): a traveller row or an entry typed in.

The same rules for a file row and for ``results add`` / ``correct``: problems are named by
*field* (``defenders_points``) and, for a file, by the column as written; the interface says how
the field is called to its user.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from dealer.attribution import Misattributed
from dealer.cards import LEVELS, SEATS, normalize_level
from dealer.errors import Phrase, Problem, Rejected, quote
from dealer.event import Event, Match
from dealer.formats.columns import TEXT_LIMIT, Cell, Layout, RawRow
from dealer.numbers import NotAWholeNumber, fold_typed, read_whole_number, whole_number_or_none
from dealer.race import RACE_LEVELS, SIDES, climbed, level_names, race_level
from dealer.store.db import ResultsStore
from dealer.store.rows import Entry, LevelEntry, level_value_text
from dealer.store.schema import LEVELS as LEVEL_RESULTS
from dealer.words import local_time

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


_EMPTY = Cell("")

#: Fields kept exactly as written (free text); every other field of a result is read after
#: folding (:func:`normal`), and a team's name is tried as written first.
FREE_TEXT = frozenset({"note", "entered_by"})
TEAM_FIELDS = frozenset({"ns_team", "ew_team", "home_team", "away_team", "last_game"})


def normal(text: str | None) -> str:
    """A value as the validators read it: folded by :func:`dealer.numbers.fold_typed` (a Chinese
    IME's full-width "５０", "Ａ" and "１０" are 50, A and 10; a superscript, subscript, circled or
    other compatibility digit stays what it is, and is refused as not a number), surrounding
    space removed. The one place typed and file values are normalised: every field of both kinds
    of result except free text (:data:`FREE_TEXT`)."""
    return fold_typed(text or "").strip()


def _normalised(row: RawRow) -> RawRow:
    """``row`` with every coded field :func:`normal` (the cell's column kept for problems)."""
    cells = {key: cell if key in FREE_TEXT or key in TEAM_FIELDS or cell.value.isascii()
             else Cell(normal(cell.value), cell.column, cell.value) for key, cell in row.cells.items()}
    return RawRow(row.number, cells)


def _normal_values(values: Mapping[str, str | None]) -> dict[str, str | None]:
    """An entry's values (``results correct --withdraw``: no event) with every coded field :func:`normal`."""
    return {key: value if value is None or key in FREE_TEXT else normal(value) for key, value in values.items()}


def _team(event: Event, text: str) -> str | None:
    """The team a slip names (id or name), as written or else :func:`normal`."""
    return event.team_named(text) or event.team_named(normal(text))


def entry_row(values: Mapping[str, object], layout: Layout) -> RawRow:
    """An entry typed in (``results add``), by field, as a row without a file (the fields of a
    result file of ``layout``)."""
    return RawRow(None, {key: Cell("" if value is None else str(value).strip())
                         for key, value in values.items() if key in layout.columns})


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


def not_paired_yet(event: Event, number: int) -> bool:
    """Whether round ``number`` is one of the rounds the event's format pairs as it goes, not
    paired yet (rather than a round the event does not have)."""
    return event.format.paired and event.round(number) is None \
        and 1 <= number <= event.format.rounds_needed(len(event.teams))


def validate_row(
    event: Event, source: str | None, row: RawRow, check_plausible: bool = True
) -> tuple[Entry | None, list[Problem]]:
    """Check one row against the event; the entry to store, or the problems.

    ``check_plausible=False`` admits points outside :func:`plausible_range` (an extraordinary
    result the scorer confirms explicitly).
    """
    problems: list[Problem] = []
    row = _normalised(row)
    cells = row.cells

    def cell(key: str) -> Cell:
        return cells.get(key, _EMPTY)

    def problem(key: str, message: str, hint: str | None = None, **params: object) -> None:
        c = cell(key)
        problems.append(Problem(source, row.number, key, c.column, c.as_written, message, hint, params))

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
            problems.append(Problem(source, row.number, key, c.column, c.as_written, refused.key,
                                    params=refused.params))
            return None

    round_number = required_int("round", "terms.the_round_number")
    match_id = cell("match").value
    match: Match | None = None
    rnd = event.round(round_number) if round_number is not None else None
    if round_number is not None and rnd is None:
        if not_paired_yet(event, round_number):
            problem("round", "result.round_not_paired", round=round_number)
        else:
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
        team = _team(event, text)
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


def board_slot_text(slot: tuple[int, str, str, int]) -> Phrase:
    return Phrase.of("slot.board", round=slot[0], match=slot[1], table=slot[2], board=slot[3])


def stored_phrase(value: Phrase, row: sqlite3.Row, zone: str | None = None) -> Phrase:
    """A stored row's value, with when (in the event's ``zone``) and by whom it was entered."""
    at = local_time(row["entered_at"], zone)
    if row["entered_by"]:
        return Phrase.of("value.stored_by", value=value, at=at, by=row["entered_by"])
    return Phrase.of("value.stored", value=value, at=at)


def board_stored_value(row: sqlite3.Row) -> Phrase:
    """A stored board result's value (its points, or withdrawn)."""
    return Phrase("value.withdrawn") if row["withdrawn"] else Phrase.of("value.points", points=row["defenders_points"])


def board_stored_slot(values: Mapping[str, str | None]) -> tuple[int, str, str, int]:
    """The slot an entry names, read without the event: a withdrawal reaches results of matches
    the event file no longer has."""
    problems: list[Problem] = []
    written, values = values, _normal_values(values)
    numbers: dict[str, int] = {}
    for key in ("round", "board"):
        try:
            what = Phrase("terms.the_round_number") if key == "round" else Phrase("terms.the_board_number")
            numbers[key] = read_whole_number(values.get(key), what, low=1)
        except NotAWholeNumber as refused:
            problems.append(Problem(None, None, key, None, (written.get(key) or "").strip() or None, refused.key,
                                    params=refused.params))
    match = (values.get("match") or "").strip()
    if not match:
        problems.append(Problem(None, None, "match", None, None, "entry.match_missing"))
    table = (values.get("table") or "").strip().upper()
    if table not in ("A", "B"):
        problems.append(Problem(None, None, "table", None, (written.get("table") or "").strip() or None,
                                "result.table_not_a_or_b"))
    if problems:
        raise Rejected(None, problems, 1)
    return numbers["round"], match, table, numbers["board"]


def board_stored_match(values: Mapping[str, str | None]) -> tuple[int, str]:
    """The round and match an entry names (a whole match withdrawn), read without the event."""
    written, values = values, _normal_values(values)
    problems: list[Problem] = []
    round_number = 0
    try:
        round_number = read_whole_number(values.get("round"), Phrase("terms.the_round_number"), low=1)
    except NotAWholeNumber as refused:
        problems.append(Problem(None, None, "round", None, (written.get("round") or "").strip() or None,
                                refused.key, params=refused.params))
    match = (values.get("match") or "").strip()
    if not match:
        problems.append(Problem(None, None, "match", None, None, "result.match_missing"))
    if problems:
        raise Rejected(None, problems, 1)
    return round_number, match


# --- a level race's table results (result = "levels") -------------------------------------

#: Canonical field → accepted header spellings of a level race's result file.
LEVEL_FIELDS: dict[str, tuple[str, ...]] = {
    "round": ("round", "轮次", "轮"),
    "match": ("match", "场次", "场"),
    "table": ("table", "桌", "桌次", "桌号"),
    "home_level": ("home_level", "主队级数", "主队级别"),
    "away_level": ("away_level", "客队级数", "客队级别"),
    "last_game": ("last_game", "末局胜方"),
    "home_games": ("home_games", "主队胜局"),
    "away_games": ("away_games", "客队胜局"),
    "home_team": ("home_team", "主队"),
    "away_team": ("away_team", "客队"),
    "note": ("note", "备注"),
    "entered_by": ("entered_by", "记分员"),
}
LEVEL_LAYOUT = Layout(LEVEL_FIELDS, ("round", "match", "table", "home_level", "away_level"))
#: Most games a side can win at one table in a session (a plausibility bound on the games).
GAMES_LIMIT = 200


def table_slot_text(slot: tuple[int, str, int]) -> Phrase:
    return Phrase.of("slot.table", round=slot[0], match=slot[1], table=slot[2])


def table_stored_value(row: sqlite3.Row) -> Phrase:
    """A stored table result's value (the final levels, or withdrawn)."""
    return Phrase("value.withdrawn") if row["withdrawn"] else \
        level_value_text(row["home_level"], row["away_level"], row["last_game"])


def table_number(text: str | None) -> int | None:
    """A table as written: its number (1 …, as :func:`~dealer.numbers.whole_number` reads it) or
    its ASCII letter (A = 1, B = 2 …); ``None`` for anything else. The one reading of a level
    race's table: files, ``results add``, ``correct``, withdrawals and ``history``."""
    text = normal(text)
    if len(text) == 1 and text.isascii() and text.isalpha():
        return ord(text.upper()) - ord("A") + 1
    number = whole_number_or_none(text)
    return number if number is not None and number >= 1 else None


#: What a table that is not one is told (a withdrawal or ``history``, which need no event).
TABLE_EXPECTED = "expected the table's number (1, 2 …) or its letter (A = 1, B = 2 …)"


def table_stored_slot(values: Mapping[str, str | None], table: bool = True) -> tuple[int, str, int | None]:
    """The slot (round, match, table) or, ``table=False``, the match (table ``None``) an entry
    names, read without the event (a withdrawal reaches results of matches the event file no
    longer has) by the same rules as a file row; :class:`Rejected` naming each bad field."""
    written, values = values, _normal_values(values)
    problems: list[Problem] = []

    def refuse(key: str, message: str, **params: object) -> None:
        problems.append(Problem(None, None, key, None, (written.get(key) or "").strip() or None, message,
                                params=params))

    round_number = None
    try:
        round_number = read_whole_number(values.get("round"), Phrase("terms.the_round_number"), low=1)
    except NotAWholeNumber as refused:
        refuse("round", refused.key, **refused.params)
    match = (values.get("match") or "").strip()
    if not match:
        refuse("match", "result.match_missing")
    number = None
    if table:
        text = (values.get("table") or "").strip()
        number = table_number(text)
        if number is None:
            if not text:
                refuse("table", "level_result.table_missing")
            else:
                refuse("table", "level_result.table_expected")
    if problems or round_number is None:
        raise Rejected(None, problems, 1)
    return round_number, match, number


def validate_level_row(event: Event, source: str | None, row: RawRow) -> tuple[LevelEntry | None, list[Problem]]:
    """Check one table result against the event; the entry to store, or the problems."""
    problems: list[Problem] = []
    row = _normalised(row)
    cells = row.cells
    empty = Cell("")

    def cell(key: str) -> Cell:
        return cells.get(key, empty)

    def problem(key: str, message: str, **params: object) -> None:
        c = cell(key)
        problems.append(Problem(source, row.number, key, c.column, c.as_written, message, params=params))

    for key, value in cells.items():
        if len(value.value) > TEXT_LIMIT:
            problem(key, "result.text_too_long", limit=TEXT_LIMIT, length=len(value.value))
    if problems:
        return None, problems

    def number(key: str, what: str, required: bool = True) -> int | None:
        if not cell(key).value and not required:
            return None
        try:
            return read_whole_number(cell(key).value, Phrase(what))
        except NotAWholeNumber as refused:
            problem(key, refused.key, **refused.params)
            return None

    round_number = number("round", "terms.the_round_number")
    rnd = event.round(round_number) if round_number is not None else None
    if round_number is not None and rnd is None and not_paired_yet(event, round_number):
        problem("round", "result.round_not_paired", round=round_number)
    elif round_number is not None and rnd is None:
        problem("round", "level_result.round_not_in_event", round=round_number,
                rounds=', '.join(str(r.number) for r in event.rounds) or Phrase("terms.none_yet"))
    teams: dict[str, str] = {}
    for key in ("home_team", "away_team"):
        text = cell(key).value
        if not text:
            continue
        team = _team(event, text)
        if team is None:
            problem(key, "result.unknown_team")
        elif rnd is not None and team in rnd.byes:
            problem(key, "level_result.team_had_bye", team=team, round=rnd.number)
        else:
            teams[key] = team
    match: Match | None = None
    match_id = cell("match").value
    if not match_id:
        problem("match", "result.match_missing")
    elif rnd is not None:
        match = rnd.match(match_id)
        if match is None:
            byes = Phrase.of("level_result.byes", teams=", ".join(rnd.byes)) if rnd.byes else ""
            problem("match", "level_result.match_not_in_round", match=quote(match_id), round=rnd.number,
                    matches=', '.join(m.id for m in rnd.matches), byes=byes)
    if match is not None:
        for key, expected in (("home_team", match.home), ("away_team", match.away)):
            if key in teams and teams[key] != expected:
                side = Phrase("terms.home") if key == "home_team" else Phrase("terms.away")
                problem(key, "level_result.wrong_team", side=side, round=match.round, match=match.id,
                        expected=expected, home=match.home, away=match.away)

    table = None
    table_text = cell("table").value
    if not table_text:
        problem("table", "level_result.table_number_missing")
    else:
        table = table_number(table_text)
        if table is None or not 1 <= table <= event.tables:
            problem("table", "level_result.no_such_table", tables=event.tables)
            table = None

    start = event.profile.level_race.start
    levels: dict[str, str] = {}
    for key in ("home_level", "away_level"):
        text = cell(key).value
        if not text:
            problem(key, "level_result.final_level_missing", levels=' '.join(level_names(start)))
            continue
        try:
            level = race_level(text)
        except ValueError:
            if "".join(text.split()) == "过":
                problem(key, "level_result.guo_alone")
            else:
                problem(key, "level_result.no_such_level", levels=' '.join(RACE_LEVELS))
            continue
        if climbed(level, start) < 0:
            problem(key, "level_result.below_start", start=start, profile=event.profile.id,
                    levels=' '.join(level_names(start)))
            continue
        levels[key] = level
    if levels.get("home_level") == levels.get("away_level") == RACE_LEVELS[-1]:
        problem("away_level", "level_result.both_past_a")

    last_game = None
    text = cell("last_game").value
    if text:
        last_game = SIDES.get("".join(normal(text).split()).upper())
        if last_game is None and match is not None:
            team = _team(event, text.strip())
            last_game = "home" if team == match.home else "away" if team == match.away else None
        if last_game is None:
            problem("last_game", "level_result.bad_last_game")
    elif (len(levels) == 2 and levels["home_level"] == levels["away_level"]
          and event.profile.level_race.match_winner in ("tables", "games")
          and cell("home_games").value == cell("away_games").value):
        problem("last_game", "level_result.last_game_missing")
    games: dict[str, int] = {}
    for key in ("home_games", "away_games"):
        won = number(key, "terms.the_games_won", required=False)
        if won is not None and not 0 <= won <= GAMES_LIMIT:
            problem(key, "level_result.games_out_of_range", limit=GAMES_LIMIT)
        elif won is not None:
            games[key] = won
    race = event.profile.level_race
    if race.best_of > 1 and games:
        for key, won in games.items():
            if won > race.games_to_win:
                problem(key, "level_result.games_beyond_best_of", best_of=race.best_of, most=race.games_to_win)
        if games.get("home_games") == games.get("away_games") == race.games_to_win:
            problem("away_games", "level_result.games_beyond_best_of", best_of=race.best_of, most=race.games_to_win)

    if problems or round_number is None or match is None or table is None or len(levels) != 2:
        return None, problems
    return LevelEntry(
        round=round_number, match=match.id, table=table, home_level=levels["home_level"],
        away_level=levels["away_level"], last_game=last_game, home_games=games.get("home_games"),
        away_games=games.get("away_games"), home_team=match.home, away_team=match.away,
        note=cell("note").value or None, entered_by=cell("entered_by").value or None, source_row=row.number,
    ), []


def level_attribution_problems(event: Event, store: ResultsStore,
                               matches: set[tuple[int, str]] | None = None) -> list[Misattributed]:
    """Matches whose stored level results were entered for teams the event no longer has there."""
    found: dict[tuple[int, str], Phrase] = {}
    for round_number, match_id, home, away in store.seatings(LEVEL_RESULTS):
        key = (round_number, match_id)
        if (matches is not None and key not in matches) or key in found:
            continue
        rnd = event.round(round_number)
        match = rnd.match(match_id) if rnd is not None else None
        if match is None:
            found[key] = Phrase("scoring.match_gone")
        elif (home, away) != (match.home, match.away):
            found[key] = Phrase.of("level_result.teams_changed", home=home, away=away, now_home=match.home,
                                   now_away=match.away)
    return [Misattributed(r, m, reason) for (r, m), reason in sorted(found.items())]
