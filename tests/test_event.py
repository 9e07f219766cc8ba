from __future__ import annotations

from pathlib import Path

import pytest

from dealer.event import Event
from dealer.files import FileProblem, load_event, load_event_text
from dealer.resources import demo_event_text


def test_demo_event(event: Event) -> None:
    assert (event.id, event.decks, event.hand, event.kitty, event.kitty_mode) == (
        "demo", 2, 25, 8, "in-hand")
    assert len(event.teams) == 4 and len(event.rounds) == 3 and event.sets == 3
    assert [event.copies_needed(s) for s in (1, 2, 3)] == [2, 2, 2]
    assert event.profile.id == "official-2002"


def test_default_schedule_rotates_declarers_and_cycles_levels(event: Event) -> None:
    boards = event.set_boards(1)
    assert [b.declarer for b in boards[:5]] == ["N", "E", "S", "W", "N"]
    assert [b.level for b in boards[:13]] == [
        "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert boards[13].level == "2"  # board 14 starts again at 2


def test_overrides_per_board_and_per_set() -> None:
    text = demo_event_text().replace(
        "# overrides = [",
        'overrides = [{ board = 16, level = "A" }, { set = 2, board = 1, declarer = "W", level = "J" }]\n#',
    )
    event = load_event_text(text, "x.toml")
    assert all(event.board(s, 16).level == "A" for s in (1, 2, 3))
    assert (event.board(2, 1).declarer, event.board(2, 1).level) == ("W", "J")
    assert (event.board(1, 1).declarer, event.board(1, 1).level) == ("N", "2")


def test_table_seating(event: Event) -> None:
    match = event.rounds[0].matches[0]
    assert match.seats("A") == {"NS": match.away, "EW": match.home}
    assert match.seats("B") == {"NS": match.home, "EW": match.away}


@pytest.mark.parametrize(("old", "new", "message"), [
    ('profile = "official-2002"', 'profile = "nope"', "event.profile: unknown rule profile 'nope'"),
    ("decks = 2 ", "decks = 4 ", "event.decks: profile official-2002 supports 1, 2, 3 deck(s), not 4"),
    ('id = "demo"', 'id = "Demo Cup"', "event.id: 'Demo Cup' must be lower-case"),
    ("boards_per_set = 16", "boards_per_set = 0", "event.boards_per_set: expected a whole number"),
    ('date = "2026-12-05"', 'date = "5.12.2026"', "event.date: expected YYYY-MM-DD"),
    ('{ id = "1", home = "T1", away = "T2", set = 1 }', '{ id = "1", home = "T9", away = "T2", set = 1 }',
     "rounds[0].matches[0].home: team 'T9' is not among the teams"),
    ('{ id = "2", home = "T3", away = "T4", set = 1 }', '{ id = "2", home = "T3", away = "T4", set = 7 }',
     "rounds[0].matches[1].set: expected a whole number from 1 to 3, got 7"),
    ('{ id = "2", home = "T3", away = "T4", set = 1 }', '{ id = "2", home = "T3", away = "T1", set = 1 }',
     "rounds[0].matches[1].away: team 'T1' plays twice in round 1"),
    ('declarer_rotation = ["N", "E", "S", "W"]', 'declarer_rotation = ["N", "X"]',
     "schedule.declarer_rotation[1]: expected a seat N, E, S or W, got 'X'"),
    ('"Q", "K", "A"]', '"Q", "K", "1"]', "schedule.levels[12]: expected a level"),
    ("# kitty = 8 ", "kitty = 5 ", "event.kitty: kitty of 5 cards not allowed"),
    ('name = "东风队"', 'nome = "东风队"', None),  # unknown team keys are tolerated
])
def test_errors_name_the_key(old: str, new: str, message: str | None) -> None:
    text = demo_event_text()
    assert old in text
    broken = text.replace(old, new, 1)
    if message is None:
        load_event_text(broken, "my-event.toml")
        return
    with pytest.raises(FileProblem) as error:
        load_event_text(broken, "my-event.toml")
    assert str(error.value).startswith("my-event.toml: ")
    assert message in str(error.value)


def test_not_toml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileProblem, match=r"bad\.toml: not valid TOML"):
        load_event_text("[event\n", "bad.toml")
    with pytest.raises(FileProblem, match="cannot read the event file"):
        load_event(tmp_path / "absent.toml")
