"""The table's page as one application view (:mod:`dealer.app.table_view`): what a phone may see of
its sheet and what each result does, decided in-process, without the server or a page.

The demo event (official-2002, 2 decks): match 1 of round 1 is T1 东风队 (home) v T2 长城队; at
table A the home team sits E-W, at table B N-S; board 1's declarer is North."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from serve_support import dealt_demo, level_race

from dealer.app import live
from dealer.app.kinds import BOARD_RESULTS, LEVEL_SLOT, TABLE_RESULTS
from dealer.app.results import add_result
from dealer.app.session import EventSession
from dealer.app.table_view import LevelChange, TableResult, board_result, table_view
from dealer.formats.entry import team_code

ONE, TWO, THREE = live.Device("phone-one"), live.Device("phone-two"), live.Device("phone-three")


class Table:
    """One event's session and entry key, and the use cases a table's phones call."""

    def __init__(self, session: EventSession) -> None:
        self.session = session
        session.writable_store()
        key = session.folder.entry_key(create=True)
        assert key is not None
        self.key = key

    def sheet(self, match: str, table: str) -> live.Sheet:
        return live.sheet_of(self.session.event, 1, match, table)

    def write(self, use: Callable[[EventSession], Any]) -> None:
        use(self.session)
        self.session.forget()  # as the server does after every write

    def enter(self, sheet: live.Sheet, slot: str, device: live.Device, *, double_entry: bool = False,
              **typed: str) -> None:
        self.write(lambda s: live.enter(s, sheet, slot, typed, device, secrets.token_hex(8),
                                        double_entry=double_entry))

    def confirm(self, sheet: live.Sheet, slots: list[str], device: live.Device) -> None:
        code = team_code(self.key, self.session.event.id, sheet.confirmer)
        self.write(lambda s: live.confirm(s, self.key, sheet, slots, code, device, secrets.token_hex(8)))


@pytest.fixture
def boards(tmp_path: Path) -> Iterator[Table]:
    with EventSession.open(dealt_demo(tmp_path), write=True) as session:
        yield Table(session)


@pytest.fixture
def levels(tmp_path: Path) -> Iterator[Table]:
    with EventSession.open(level_race(tmp_path), write=True) as session:
        yield Table(session)


def test_a_double_entry_event_shows_an_entry_only_to_the_phone_that_made_it(boards: Table) -> None:
    sheet = boards.sheet("1", "A")
    boards.enter(sheet, "1", ONE, double_entry=True, defenders_points="60")
    mine = table_view(boards.session, sheet, ONE, double_entry=True).slots[0]
    assert mine.state == "entered" and mine.entered_here and dict(mine.fields) == {"defenders_points": 60}
    assert mine.result is not None
    theirs = table_view(boards.session, sheet, TWO, double_entry=True)
    slot = theirs.slots[0]
    # the state shows (a result is waiting), never its value: the other side enters on its own
    assert slot.state == "entered" and not slot.entered_here
    assert dict(slot.fields) == {} and slot.result is None and not slot.stored_elsewhere
    assert theirs.entered == ["1"] and theirs.entered_elsewhere == 1
    # with team codes the other side sees it: it confirms what it reads
    assert dict(table_view(boards.session, sheet, TWO).slots[0].fields) == {"defenders_points": 60}

    boards.enter(sheet, "1", TWO, double_entry=True, defenders_points="65")  # they disagree
    for device in (TWO, THREE):
        conflict = table_view(boards.session, sheet, device, double_entry=True).slots[0]
        assert conflict.state == "conflict" and dict(conflict.fields) == {} and conflict.disputed is None
    first = table_view(boards.session, sheet, ONE, double_entry=True).slots[0]
    assert dict(first.fields) == {"defenders_points": 60} and first.disputed == {"defenders_points": 65}

    boards.enter(sheet, "2", ONE, double_entry=True, defenders_points="40")
    boards.enter(sheet, "2", TWO, double_entry=True, defenders_points="40")  # they agree: confirmed
    agreed = table_view(boards.session, sheet, THREE, double_entry=True).slots[1]
    assert agreed.state == "confirmed" and dict(agreed.fields) == {"defenders_points": 40}


@pytest.mark.parametrize(("points", "team", "levels"), [
    (-5, "T2", 4),    # below zero: the declarers 3 + 1
    (0, "T2", 3),
    (60, "T2", 1),
    (100, "T1", 0),   # 80–115: the defenders take over the deal (上台), nobody goes up
    (160, "T1", 2),   # 120 and up: the defenders 1 + one a 40 points
])
def test_each_board_result_says_who_goes_up_how_many_levels(boards: Table, points: int, team: str,
                                                           levels: int) -> None:
    event = boards.session.event
    match = event.round(1).match("1")
    at_a = board_result(event, match, "A", 1, points)
    assert at_a.seat == "N" and at_a.declarer.id == "T2" and at_a.defenders.id == "T1"  # T2 sits N-S at A
    assert at_a.change == LevelChange(event.team(team), levels)
    at_b = board_result(event, match, "B", 1, points)  # the same deal, the teams the other way round
    assert (at_b.declarer.id, at_b.defenders.id) == ("T1", "T2")
    assert at_b.change.team.id == ("T1" if team == "T2" else "T2") and at_b.change.levels == levels


def test_the_other_tables_result_shows_once_both_are_confirmed_naming_its_teams_as_they_sat(boards: Table) -> None:
    a, b = boards.sheet("1", "A"), boards.sheet("1", "B")
    boards.enter(a, "1", ONE, defenders_points="60")
    boards.confirm(a, ["1"], TWO)
    boards.enter(b, "1", ONE, defenders_points="140")
    assert table_view(boards.session, a, ONE).slots[0].other_table is None  # B's not confirmed yet
    boards.confirm(b, ["1"], TWO)
    slot = table_view(boards.session, a, ONE).slots[0]
    assert slot.other_table == {"table": "B", "defenders_points": 140}
    other = slot.other_result
    assert other is not None and other.table == "B" and other.points == 140
    assert (other.declarer.id, other.defenders.id) == ("T1", "T2")  # at B the home team T1 sits N-S
    assert other.change.team.id == "T2" and other.change.levels == 1  # the defenders: 1 + (140 - 120) // 40
    assert slot.board is not None and slot.board.number == 1 and slot.board.declarer_team.id == "T2"


def test_a_boards_sheet_is_seated_and_a_level_races_is_not(boards: Table, levels: Table) -> None:
    view = table_view(boards.session, boards.sheet("1", "A"), ONE)
    assert (view.scorer.id, view.scorer_side, view.confirmer_side) == ("T1", "EW", "NS")  # East keeps score
    assert [s.slot for s in view.slots] == [str(n) for n in range(1, 17)] and view.level_options == ()
    match = levels.session.event.rounds[0].matches[0]
    race = table_view(levels.session, live.sheet_of(levels.session.event, 1, match.id, "1"), ONE)
    assert (race.scorer.id, race.scorer_side, race.confirmer_side) == (match.home, None, None)
    assert [s.slot for s in race.slots] == [LEVEL_SLOT] and race.slots[0].board is None
    assert "过A" in race.level_options


def test_a_level_races_table_result_and_one_stored_by_the_command_line(levels: Table) -> None:
    event = levels.session.event
    match = event.rounds[0].matches[0]
    first = live.sheet_of(event, 1, match.id, "1")
    levels.enter(first, LEVEL_SLOT, ONE, home_level="8", away_level="8", last_game="away")
    result = table_view(levels.session, first, TWO).slots[0].result
    assert result == TableResult(event.team(match.home), event.team(match.away), "8", "8", event.team(match.away))
    levels.write(lambda s: add_result(s, {"round": "1", "match": match.id, "table": "3", "home_level": "K",
                                          "away_level": "A"}))
    stored = table_view(levels.session, live.sheet_of(event, 1, match.id, "3"), ONE).slots[0]
    # counted, and said as stored by other means (not as levels it cannot show)
    assert stored.state == "confirmed" and stored.stored_elsewhere and stored.result is None


def test_the_kinds_answer_what_a_sheet_holds() -> None:
    assert BOARD_RESULTS.board_of("7") == 7 and TABLE_RESULTS.board_of(LEVEL_SLOT) is None
    assert BOARD_RESULTS.twin_slot(2, "1", "A", "7") == (2, "1", "B", 7)
    assert TABLE_RESULTS.twin_slot(2, "1", "3", LEVEL_SLOT) is None
    assert BOARD_RESULTS.sheet_stored_slot(2, "1", "B", "7") == (2, "1", "B", 7)
    assert TABLE_RESULTS.sheet_stored_slot(2, "1", "3", LEVEL_SLOT) == (2, "1", 3)
    assert BOARD_RESULTS.typed({"defenders_points": " 60 ", "trump": "", "home_level": "8"}) == {
        "defenders_points": "60", "trump": None}
    assert TABLE_RESULTS.typed_fields == TABLE_RESULTS.own_fields
