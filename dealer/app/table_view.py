"""The table's page as one view (``dealer serve``: a table's phone, docs/serve.md).

Everything a table's page shows of its sheet, with the rules that decide it applied here and not
in the page: what a double-entry event hides from the side that has not entered yet, who goes up
how many levels from each board's result (the profile's conversion), the other table's result on
the same deal, the match's result once both its tables are in, why the sheet takes nothing.
:mod:`dealer.serve.pages` words it, as the page and as its JSON twin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dealer.app import live
from dealer.app.kinds import ResultKind, kind_of
from dealer.app.lineups import stored_lineups
from dealer.cards import side_of
from dealer.errors import Phrase
from dealer.event import Event, Match, Team
from dealer.race import level_names

if TYPE_CHECKING:
    from dealer.app.session import EventSession


@dataclass(frozen=True)
class LevelChange:
    """What a board's result does to the levels (升级): ``team`` goes up ``levels`` levels, or,
    ``levels`` 0, the defenders ``team`` take over the deal (上台) and nobody goes up."""

    team: Team
    levels: int


@dataclass(frozen=True)
class BoardResult:
    """One table's result of a board as its sentence says it: who declared from which seat, what
    the defenders took, and the level change."""

    table: str
    seat: str  #: the declarer's
    declarer: Team
    defenders: Team
    points: int
    change: LevelChange


@dataclass(frozen=True)
class TableResult:
    """A level race's table result: each side's final level, the last game's winner if told."""

    home: Team
    away: Team
    home_level: str | None
    away_level: str | None
    last_game: Team | None


@dataclass(frozen=True)
class Board:
    """The board a sheet's slot is, as the schedule deals it: the declarer's seat and team, the level."""

    number: int
    declarer: str
    declarer_team: Team
    level: str


@dataclass(frozen=True)
class SlotView:
    """One result of the sheet as this phone may see it."""

    slot: str
    state: str  #: missing, entered, confirmed, conflict
    #: What was entered, as far as this phone may see it (nothing, in a double-entry event, of an
    #: entry the other side made and nobody confirmed yet).
    fields: Mapping[str, Any]
    flagged: bool
    entered_here: bool  #: this phone made the entry
    disputed: Mapping[str, Any] | None  #: the other side's different values (a conflict), if shown
    board: Board | None  #: ``None``: a level race's table result
    #: What the entry says; ``None``: nothing to show, or a result stored by other means
    #: (:attr:`stored_elsewhere`: a file, ``results add``, a director's correction).
    result: BoardResult | TableResult | None
    stored_elsewhere: bool
    #: The other table's confirmed result on the same deal (``table``, ``defenders_points``),
    #: once this one's is confirmed too, and what it says.
    other_table: Mapping[str, Any] | None
    other_result: BoardResult | None


@dataclass(frozen=True)
class MatchResult:
    """The match's result, once both its tables have every result stored."""

    home: Team
    away: Team
    home_levels: int
    away_levels: int
    home_match_points: float
    away_match_points: float


@dataclass(frozen=True)
class TableView:
    """Everything a table's page shows (:func:`table_view`)."""

    sheet: live.Sheet
    table_name: str  #: as the hall names the table
    double_entry: bool
    scorer: Team
    confirmer: Team
    #: Each side's seats at a boards table (``EW``: the scorer, 第十八条); ``None`` at a level race's.
    scorer_side: str | None
    confirmer_side: str | None
    scorer_players: tuple[str, ...]  #: the pair the team's line-up puts at this table
    confirmer_players: tuple[str, ...]
    slots: tuple[SlotView, ...]
    #: Why the sheet takes no entry (a forfeit, the event declared over); ``None``: it takes them.
    closed_reason: Phrase | None
    match_result: MatchResult | None
    missing: tuple[str, ...]
    all_confirmed: bool
    recap_scorer: bool
    recap_confirmer: bool
    closed: bool  #: both sides confirmed the recap
    locked: bool
    wrong_codes: int
    devices: int
    #: The flags a table is warned of (a device too many); the others are the director's.
    warnings: tuple[str, ...]
    #: A level race's form: the final levels a table can report (过A included).
    level_options: tuple[str, ...]

    @property
    def entered(self) -> list[str]:
        """The results waiting for the other side's confirmation."""
        return [s.slot for s in self.slots if s.state == "entered"]

    @property
    def entered_elsewhere(self) -> int:
        """Results waiting for confirmation that this phone did not enter: it may be the other side's."""
        return sum(1 for s in self.slots if s.state == "entered" and not s.entered_here)


#: The flags a table's page warns of.
TABLE_FLAGS = ("devices",)


def table_view(session: EventSession, sheet: live.Sheet, device: live.Device, *,
               double_entry: bool = False) -> TableView:
    """The table's page of ``sheet`` as ``device`` may see it; ``double_entry``: the other side
    enters on its own, without seeing the first entry."""
    event = session.event
    kind = kind_of(event)
    state = live.sheet_state(session, sheet)
    slots = tuple(_slot_view(session, kind, sheet, slot, device, double_entry) for slot in _in_playing_order(
        event, sheet, kind, list(state.slots.values())))
    lineups = stored_lineups(session.store)
    players = {}
    for team in (sheet.scorer, sheet.confirmer):
        lineup = lineups.get(sheet.id.round, team)
        players[team] = tuple(lineup.pair(sheet.id.table)) if lineup is not None else ()
    sides = kind.sides(sheet.match, sheet.id.table)
    closed = live.closed_reason(session, sheet)
    return TableView(
        sheet=sheet, table_name=event.table_names(sheet.match).get(sheet.id.table, sheet.id.table),
        double_entry=double_entry, scorer=event.team(sheet.scorer), confirmer=event.team(sheet.confirmer),
        scorer_side=sides.get(sheet.scorer), confirmer_side=sides.get(sheet.confirmer),
        scorer_players=players[sheet.scorer], confirmer_players=players[sheet.confirmer], slots=slots,
        closed_reason=closed, match_result=None if closed is not None else match_result(session, sheet),
        missing=tuple(state.missing), all_confirmed=state.all_confirmed, recap_scorer=state.recap_scorer,
        recap_confirmer=state.recap_confirmer, closed=state.closed, locked=state.locked,
        wrong_codes=state.wrong_codes, devices=state.devices,
        warnings=tuple(f["kind"] for f in state.flags if f["kind"] in TABLE_FLAGS),
        level_options=tuple(level_names(event.profile.level_race.start)) if event.levels else ())


def _in_playing_order(event: Event, sheet: live.Sheet, kind: ResultKind,
                      slots: list[live.SlotState]) -> list[live.SlotState]:
    """A boards sheet's slots in the order its table plays the boards (the set's order unless the
    round's tables share copies: :meth:`dealer.event.Event.playing_order`)."""
    if event.levels or event.copies is None:
        return slots
    order = event.playing_order(sheet.id.round, sheet.match.set, sheet.id.match, sheet.id.table)
    rank = {number: place for place, number in enumerate(order)}
    return sorted(slots, key=lambda s: rank.get(kind.board_of(s.slot) or 0, len(rank)))


def _slot_view(session: EventSession, kind: ResultKind, sheet: live.Sheet, s: live.SlotState,
               device: live.Device, double_entry: bool) -> SlotView:
    event = session.event
    here = s.device == device.id if s.device else False
    # double entry: the other side enters on its own, without seeing the first entry
    hidden = double_entry and s.state in ("entered", "conflict") and not here
    fields = {} if hidden else s.fields
    number = kind.board_of(s.slot)
    board = None
    if number is not None:
        conditions = event.board(sheet.match.set, number)
        declarer = sheet.match.seats(sheet.id.table)[side_of(conditions.declarer)]
        board = Board(number, conditions.declarer, event.team(declarer), conditions.level)
    # an entry always gives the kind's value; a result stored by other means shows no entry
    stored_elsewhere = bool(fields) and kind.value_field not in fields
    result: BoardResult | TableResult | None = None
    if fields and not stored_elsewhere:
        result = table_result(event, sheet.match, fields) if number is None else \
            board_result(event, sheet.match, sheet.id.table, number, int(fields["defenders_points"]))
    other = live.other_table(session, sheet, s.slot) if s.state == "confirmed" else None
    other_result = None
    if other is not None and number is not None:
        # the other table's teams sit the other way round: its sentence names them as they sat there
        other_result = board_result(event, sheet.match, str(other["table"]), number, int(other["defenders_points"]))
    return SlotView(s.slot, s.state, fields, s.flagged, here, None if hidden else s.disputed, board, result,
                    stored_elsewhere, other, other_result)


def board_result(event: Event, match: Match, table: str, board: int, points: int) -> BoardResult:
    """A board's result at ``table`` of ``match``: its teams as they sit there, and the level
    change the event's profile gives ``points``."""
    conditions = event.board(match.set, board)
    seats = match.seats(table)
    declarer_side = side_of(conditions.declarer)
    declarer = event.team(seats[declarer_side])
    defenders = event.team(seats["EW" if declarer_side == "NS" else "NS"])
    levels = event.profile.level_points(event.decks, points)
    change = LevelChange(declarer, levels.declarer_levels) if levels.declarer_levels else \
        LevelChange(defenders, levels.defenders_levels)
    return BoardResult(table, conditions.declarer, declarer, defenders, points, change)


def table_result(event: Event, match: Match, fields: Mapping[str, Any]) -> TableResult:
    """A level race's table result as entered: the final levels, the last game's winner."""
    home, away = event.team(match.home), event.team(match.away)
    last = fields.get("last_game")
    return TableResult(home, away, fields.get("home_level"), fields.get("away_level"),
                       home if last == "home" else away if last else None)


def match_result(session: EventSession, sheet: live.Sheet) -> MatchResult | None:
    """The match's result for its two teams' sheets, once both its tables have every result
    stored (before: ``None``): each team's level points and match points."""
    if sheet.id.match not in live.matches_done(session, sheet.id.round):
        return None
    score = session.scored().score(sheet.id.round, sheet.id.match)
    if not score.complete:
        return None
    event = session.event
    return MatchResult(event.team(score.home), event.team(score.away), score.home_levels, score.away_levels,
                       score.home_match_points, score.away_match_points)
