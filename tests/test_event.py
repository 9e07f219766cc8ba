from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_one_error, run_dealer
from test_results_support import EVENT_TOML, dealer_at

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
    ('name = "东风队"', 'nome = "东风队"',
     "teams[0]: unknown key(s) nome (known: club, contact, id, leader, mixed_club, name, player_ids, players, seed)"),
    ("boards_per_set = 16", "board_per_set = 12", "event: unknown key(s) board_per_set"),
    ('# kitty_mode = "in-hand" ', 'kitty_mod = "separate" ', "event: unknown key(s) kitty_mod"),
    ('name = "东风队"', 'name = "东风队"\nmixed_club = "no"', "teams[0].mixed_club: expected true or false, got 'no'"),
    ('{ id = "1", home = "T1", away = "T2", set = 1 }', '{ id = "R1:M1", home = "T1", away = "T2", set = 1 }',
     "rounds[0].matches[0].id: 'R1:M1' must be 1 to 16 letters"),
    ('{ id = "1", home = "T1", away = "T2", set = 1 }', '{ id = "第1场", home = "T1", away = "T2", set = 1 }',
     "rounds[0].matches[0].id: '第1场' must be 1 to 16 letters"),
    ('{ id = "1", home = "T1", away = "T2", set = 1 }', '"x"',
     "rounds[0].matches[0]: expected a table like"),
    ('{ id = "1", home = "T1", away = "T2", set = 1 }', '{ id = "1", home = "T1", away = "T2", set = 1, table = "A" }',
     "rounds[0].matches[0]: unknown key(s) table"),
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


@pytest.mark.parametrize(("text", "message"), [
    ("rounds = [1, 2]\n", "rounds[0]: expected a table like"),
    ("teams = [1, 2]\n", "teams[0]: expected a table like"),
    ("teams = 3\n", "teams: expected a list, got 3"),
    ("[extra]\nx = 1\n", "the event file: unknown key(s) extra"),
])
def test_malformed_tables_are_named_not_crashed_on(text: str, message: str) -> None:
    base = demo_event_text().split("[schedule]")[0]
    with pytest.raises(FileProblem) as error:
        load_event_text(text + base, "my-event.toml")
    assert message in str(error.value)


def test_not_toml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileProblem, match=r"bad\.toml: not valid TOML"):
        load_event_text("[event\n", "bad.toml")
    with pytest.raises(FileProblem, match="no such event file"):
        load_event(tmp_path / "absent.toml")


def test_event_file_leniencies(tmp_path: Path) -> None:
    """An event file saved with a UTF-8 BOM reads; a match ``id = true``, a date with a
    time and a team playing itself are refused naming the key; nothing is written."""
    bom = tmp_path / "bom.toml"
    bom.write_bytes(b"\xef\xbb\xbf" + EVENT_TOML.encode("utf-8"))
    assert dealer_at(tmp_path, "deal", bom).exit_code == 0
    assert dealer_at(tmp_path, "results", "missing", bom).exit_code == 0
    cases = {
        "id-true": (EVENT_TOML.replace('{ id = "1", home', "{ id = true, home"), "rounds[0].matches[0].id"),
        "datetime": (EVENT_TOML.replace('name = "Hand-worked match"',
                                        'name = "Hand-worked match"\ndate = 2026-12-05T10:00:00'), "event.date"),
        "plays-itself": (EVENT_TOML.replace('home = "X", away = "Y"', 'home = "X", away = "X"'),
                         "cannot play itself"),
    }
    for name, (text, expected) in cases.items():
        path = tmp_path / f"{name}.toml"
        path.write_text(text, encoding="utf-8")
        for args in (("deal", path, "--boards-dir", tmp_path / name), ("results", "missing", path)):
            result = run_dealer(*args) if args[0] == "deal" else dealer_at(tmp_path, *args)
            assert_one_error(result, str(path), expected)
            assert "plays twice" not in result.output
        assert not (tmp_path / name).exists()
