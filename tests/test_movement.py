"""Shared copies of a set across a round's matches (issue 37): the movement as data, the event's
``copies`` setting, ``dealer round show --json`` and ``dealer round copies``.

The movement's rules are checked twice: by :func:`dealer.tournament.movement.check_movement` on the
objects, and by :func:`check_json` here on what ``round show --json`` prints, written from the
issue's rules and not through the code under test."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_one_error
from conftest import run_dealer as run

from dealer.tournament.movement import (
    Movement,
    MovementError,
    Place,
    Play,
    TablePlan,
    check_movement,
    exchange_movement,
    resolve_copies,
    round_movement,
    shared_movement,
)

BOARDS = list(range(1, 17))


def tables_of(count: int) -> list[tuple[str, str]]:
    """``count`` tables (an even number) as a round's matches hold them: 1A, 1B, 2A, …"""
    return [(str(m), t) for m in range(1, count // 2 + 1) for t in ("A", "B")]


def swiss_text(teams: int, copies: str | None, boards: int = 16, event_id: str = "swiss") -> str:
    lines = ["[event]", f'id = "{event_id}"', 'name = "Swiss"', 'date = "2026-12-06"',
             'profile = "renmin-shuangsheng"', "decks = 2", f"boards_per_set = {boards}"]
    if copies is not None:
        lines.append(f"copies = {copies}")
    lines += ["", "[format]", 'kind = "swiss"', "rounds = 2", 'first_round = "pinyin"', ""]
    for i in range(1, teams + 1):
        lines += ["[[teams]]", f'id = "T{i}"', f'name = "Team {i:02d}"']
    return "\n".join(lines) + "\n"


def check_json(movement: dict[str, Any], boards: list[int], table_names: list[str]) -> list[str]:
    """The issue's rules on the printed movement: every table plays every board of the set exactly
    once; a copy of a board is at one table a stanza; a table's wallets go where they are played
    next (and come from where they were); no table waits more than one stanza."""
    problems = []
    if sorted(t["name"] for t in movement["tables"]) != sorted(table_names):
        problems.append("not every table of the round")
    at: dict[tuple[int, int, int], str] = {}  # (board, copy, stanza) -> table or relay
    for table in movement["tables"]:
        played = sorted(b for p in table["plays"] for b in p["boards"])
        if played != boards:
            problems.append(f"{table['name']} plays {played}")
        stanzas = [p["stanza"] for p in table["plays"]]
        if len(set(stanzas)) != len(stanzas):
            problems.append(f"{table['name']} plays twice in a stanza")
        if movement["stanzas"] - len(stanzas) > 1:
            problems.append(f"{table['name']} waits {movement['stanzas'] - len(stanzas)} stanzas")
        for p in table["plays"]:
            if not 1 <= p["copy"] <= movement["copies"]:
                problems.append(f"{table['name']} copy {p['copy']}")
            for b in p["boards"]:
                key = (b, p["copy"], p["stanza"])
                if key in at:
                    problems.append(f"board {b} copy {p['copy']} at {at[key]} and {table['name']} "
                                    f"in stanza {p['stanza']}")
                at[key] = table["name"]
    for relay in movement["relays"]:
        for held in relay["holds"]:
            if held is not None:
                for b in held["boards"]:
                    key = (b, held["copy"], held["stanza"])
                    if key in at:
                        problems.append(f"board {b} copy {held['copy']} twice in stanza {held['stanza']}")
                    at[key] = relay["name"]
    for table in movement["tables"]:
        for p in table["plays"]:
            first = p["boards"][0]
            nxt = at.get((first, p["copy"], p["stanza"] + 1))
            before = at.get((first, p["copy"], p["stanza"] - 1))
            if p["to"] != nxt:
                problems.append(f"{table['name']} stanza {p['stanza']}: to {p['to']}, next at {nxt}")
            if p["from"] != before:
                problems.append(f"{table['name']} stanza {p['stanza']}: from {p['from']}, before at {before}")
    if movement["wallets"] != movement["copies"] * len(boards):
        problems.append("wallets are not every board of every copy")
    return problems


@pytest.mark.parametrize("tables", [2, 4, 8, 12, 20, 22, 40])
@pytest.mark.parametrize("boards", [4, 8, 12, 16, 24])
def test_every_shared_movement_keeps_the_rules(tables: int, boards: int) -> None:
    numbers = list(range(1, boards + 1))
    minimum = -(-tables // boards)
    for copies in ["auto", *range(minimum, tables + 2)]:
        movement = shared_movement(tables_of(tables), numbers, copies)
        assert check_movement(movement, numbers) == [], (tables, boards, copies)
        groups = len(movement.groups)
        assert movement.stanzas == groups  # every table plays every group, one a stanza, no wait
        assert movement.copies * groups >= tables
        assert len(movement.relays) == movement.copies * groups - tables
        if copies != "auto":
            assert movement.copies <= copies  # never more than asked
            assert groups == -(-tables // copies)


def test_too_few_copies_are_refused_naming_the_minimum() -> None:
    with pytest.raises(MovementError) as refused:
        shared_movement(tables_of(40), BOARDS, 2)
    assert refused.value.minimum == 3  # 40 tables, 16 boards: 3 copies give 14 groups
    assert check_movement(shared_movement(tables_of(40), BOARDS, 3), BOARDS) == []


def test_the_twenty_table_round() -> None:
    """The issue's example: 20 tables of a 16-board set."""
    assert resolve_copies(2, 20, 16) == (2, 10)
    two = shared_movement(tables_of(20), BOARDS, 2)
    assert (two.copies, two.stanzas, two.wallets, len(two.relays)) == (2, 10, 32, 0)
    auto = shared_movement(tables_of(20), BOARDS, "auto")
    assert (auto.copies, len(auto.groups), auto.wallets, len(auto.relays)) == (3, 7, 48, 1)
    assert min(len(g) for g in auto.groups) >= 2  # "auto": groups of two boards or more
    assert len(shared_movement(tables_of(20), BOARDS, 4).groups) == 5
    default = round_movement(tables_of(20), BOARDS, None)
    assert (default.copies, default.stanzas, default.wallets) == (10, 2, 160)


def legacy_runs(boards: list[int], stanzas: int) -> dict[str, list[list[int]]]:
    """Today's table cards, worked out from pages.toml's description: the set cut into `stanzas`
    runs; in each pair of runs A plays the first while B plays the second, then they exchange."""
    count = max(2, min(stanzas, len(boards) - len(boards) % 2))
    size, extra = divmod(len(boards), count)
    runs, start = [], 0
    for i in range(count):
        runs.append(boards[start:start + size + (i < extra)])
        start += size + (i < extra)
    a: list[list[int]] = []
    b: list[list[int]] = []
    for i in range(0, count, 2):
        a += [runs[i], runs[i + 1]]
        b += [runs[i + 1], runs[i]]
    return {"A": a, "B": b}


@pytest.mark.parametrize("boards", [2, 3, 7, 8, 16, 17, 32])
@pytest.mark.parametrize("runs", [2, 4, 6])
def test_the_default_is_todays_exchange(boards: int, runs: int) -> None:
    numbers = list(range(1, boards + 1))
    movement = exchange_movement(tables_of(6), numbers, runs)
    assert check_movement(movement, numbers) == []
    expected = legacy_runs(numbers, runs)
    for plan in movement.tables:
        match, table = plan.key
        assert [list(p.boards) for p in plan.plays] == expected[table]
        assert {p.copy for p in plan.plays} == {int(match)}  # one copy a match
        other = 2 * (int(match) - 1) + (1 if table == "A" else 0)
        assert plan.plays[0].target == Place("table", other)  # the first run goes to the other table


def test_the_checker_finds_each_broken_rule() -> None:
    good = shared_movement(tables_of(8), BOARDS, 2)
    assert check_movement(good, BOARDS) == []

    def broken(table: int, stanza: int, **change: Any) -> Movement:
        plans = list(good.tables)
        plays = list(plans[table].plays)
        old = plays[stanza]
        plays[stanza] = Play(**{**old.__dict__, **change})
        plans[table] = TablePlan(plans[table].key, tuple(plays))
        return Movement(good.shared, good.copies, good.groups, good.stanzas, tuple(plans), good.relays)

    other = good.tables[0].plays[1]
    assert any("at two places" in p for p in check_movement(broken(1, 1, copy=other.copy), BOARDS))
    assert any("sends to" in p for p in check_movement(broken(0, 0, target=Place("table", 5)), BOARDS))
    assert any("takes from" in p for p in check_movement(broken(0, 1, source=None), BOARDS))
    assert any("every board once" in p
               for p in check_movement(broken(0, 0, boards=(1,), group=1), BOARDS))
    unbalanced = Movement(True, 1, ((1, 2, 3), (4,)), 2, ())
    assert any("unbalanced" in p for p in check_movement(unbalanced, [1, 2, 3, 4]))
    waiting = Movement(good.shared, good.copies, good.groups, good.stanzas,
                       (TablePlan(("1", "A"), good.tables[0].plays[:-2]), *good.tables[1:]), good.relays)
    assert any("waits 2 stanzas" in p for p in check_movement(waiting, BOARDS))


# --- The event's setting and the commands ------------------------------------------------------


@pytest.fixture(scope="module")
def rounds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """A 20-team Swiss round 1 three ways: the default, copies = 2 and copies = "auto"."""
    root = tmp_path_factory.mktemp("movement")
    made = {}
    for name, copies in (("default", None), ("two", "2"), ("auto", '"auto"')):
        event_file = root / f"{name}.toml"
        event_file.write_text(swiss_text(20, copies, event_id=f"swiss-{name}"), encoding="utf-8")
        boards = root / "boards"
        assert run("deal", event_file, "--boards-dir", boards).exit_code == 0
        paired = run("round", "pair", event_file, "--round", 1, "--boards-dir", boards)
        assert paired.exit_code == 0, paired.output
        made[name] = (event_file, boards)
    return made


def shown(event: tuple[Path, Path]) -> dict[str, Any]:
    event_file, boards = event
    result = run("round", "show", event_file, "--round", 1, "--json", "--boards-dir", boards)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def names_of(data: dict[str, Any]) -> list[str]:
    return [f"{m['table']}{t}" for m in data["matches"] for t in ("A", "B")]


def test_a_twenty_team_round_with_two_copies_shows_a_valid_movement(rounds: dict[str, tuple[Path, Path]]) -> None:
    data = shown(rounds["two"])
    movement = data["movement"]
    assert check_json(movement, BOARDS, names_of(data)) == []
    assert (movement["copies"], movement["wallets"], movement["stanzas"]) == (2, 32, 10)
    # Every stanza: each copy's boards at one table each, never two tables holding one wallet.
    per_stanza: dict[int, list[int]] = defaultdict(list)
    for table in movement["tables"]:
        for p in table["plays"]:
            per_stanza[p["stanza"]] += [b + 100 * p["copy"] for b in p["boards"]]
    for stanza, wallets in per_stanza.items():
        assert sorted(wallets) == sorted(set(wallets)), stanza


def test_auto_fills_at_most_48_wallets(rounds: dict[str, tuple[Path, Path]]) -> None:
    data = shown(rounds["auto"])
    movement = data["movement"]
    assert check_json(movement, BOARDS, names_of(data)) == []
    assert movement["wallets"] <= 48
    assert [r["name"] for r in movement["relays"]] == ["relay 1"]
    assert any(p["to"] == "relay 1" for t in movement["tables"] for p in t["plays"])


def test_the_default_round_shows_todays_exchange(rounds: dict[str, tuple[Path, Path]]) -> None:
    data = shown(rounds["default"])
    movement = data["movement"]
    assert check_json(movement, BOARDS, names_of(data)) == []
    assert (movement["copies"], movement["stanzas"], movement["wallets"], movement["shared"]) == (10, 2, 160, False)
    one = {t["name"]: t for t in movement["tables"]}
    assert [p["boards"] for p in one["1A"]["plays"]] == [BOARDS[:8], BOARDS[8:]]
    assert [p["to"] for p in one["1A"]["plays"]] == ["1B", None]
    assert [p["from"] for p in one["1B"]["plays"]] == [None, "1A"]
    # The plain text is today's: no movement lines for one copy a match.
    event_file, boards = rounds["default"]
    text = run("round", "show", event_file, "--round", 1, "--boards-dir", boards).stdout
    assert "movement" not in text and "relay" not in text


def test_round_show_text_gives_each_tables_movement(rounds: dict[str, tuple[Path, Path]]) -> None:
    event_file, boards = rounds["auto"]
    text = run("round", "show", event_file, "--round", 1, "--boards-dir", boards).stdout
    data = shown(rounds["auto"])["movement"]
    assert f"{data['copies']} copies shared by the tables, {data['wallets']} wallets to fill" in text
    for table in data["tables"]:
        line = next(line for line in text.splitlines() if line.strip().startswith(table["name"] + " "))
        first = table["plays"][0]
        assert f"1) boards {first['boards'][0]}–{first['boards'][-1]} copy {first['copy']} from director" in line
        assert line.count(")") == len(table["plays"])


def test_round_copies_lists_the_choices(rounds: dict[str, tuple[Path, Path]]) -> None:
    event_file, boards = rounds["default"]
    result = run("round", "copies", event_file, "--round", 1, "--json", "--boards-dir", boards)
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert (found["tables"], found["boards"], found["setting"]) == (20, 16, None)
    by = {c["copies_setting"]: c for c in found["choices"]}
    assert by[None]["wallets"] == 160 and by["auto"]["wallets"] == 48 and by[2]["wallets"] == 32
    assert by[2]["stanzas"] == 10 and by["auto"]["relay_stacks"] == 1
    assert min(c["copies"] for c in found["choices"]) == 2  # 1 copy cannot serve 20 tables of 16 boards
    text = run("round", "copies", event_file, "--boards-dir", boards).stdout
    assert "a round of 20 tables" in text and "copies = 2" in text


def test_bad_copies_are_refused(tmp_path: Path) -> None:
    for value, texts in (('"many"', ("event.copies", '"auto"')), ("0", ("event.copies",)),
                         ("1", ("event.copies", "at least 2 copies", "20 tables"))):
        event_file = tmp_path / "e.toml"
        event_file.write_text(swiss_text(20, value), encoding="utf-8")
        result = run("round", "copies", event_file, "--boards-dir", tmp_path / "boards")
        assert_one_error(result, str(event_file), *texts)
        assert not (tmp_path / "boards").exists()  # nothing made for a refusal


def test_a_level_race_takes_no_copies(tmp_path: Path) -> None:
    text = swiss_text(4, "2").replace("boards_per_set = 16\n", 'result = "levels"\ntables = 2\n')
    event_file = tmp_path / "e.toml"
    event_file.write_text(text, encoding="utf-8")
    assert_one_error(run("round", "copies", event_file), "event.copies")


def test_copies_changed_after_dealing_is_refused(tmp_path: Path) -> None:
    event_file = tmp_path / "e.toml"
    event_file.write_text(swiss_text(8, None), encoding="utf-8")
    assert run("deal", event_file, "--boards-dir", tmp_path / "b").exit_code == 0
    event_file.write_text(swiss_text(8, '"auto"'), encoding="utf-8")
    result = run("print", "labels", event_file, "--boards-dir", tmp_path / "b", "--out", tmp_path / "out")
    assert_one_error(result, "copies")
    assert not (tmp_path / "out").exists()


def test_the_command_knows_the_movement_sheet() -> None:
    """cli.py lists the kinds itself (``--help`` imports nothing heavy): the movement sheet too."""
    from dealer.cli import SHARED_PRINT_KINDS
    from dealer.render.writers import SHARED_KINDS, WRITERS

    assert SHARED_PRINT_KINDS == SHARED_KINDS
    assert set(SHARED_KINDS) <= set(WRITERS)


def test_a_relay_sending_elsewhere_is_found() -> None:
    good = shared_movement(tables_of(20), BOARDS, 3)
    relay = good.relays[0]
    wrong = type(relay)(relay.number, relay.holds, (Place("table", 4), *relay.targets[1:]))
    bad = Movement(good.shared, good.copies, good.groups, good.stanzas, good.tables, (wrong,))
    assert check_movement(good, BOARDS) == []
    assert any(p.startswith("relay 1 stanza 1: sends to") for p in check_movement(bad, BOARDS))


FIXED = """\
[event]
id = "fixed"
name = "Fixed"
profile = "official-2002"
boards_per_set = 8
sets = 2
copies = {copies}
[[teams]]
id = "A"
name = "A"
[[teams]]
id = "B"
name = "B"
[[teams]]
id = "C"
name = "C"
[[teams]]
id = "D"
name = "D"
[[teams]]
id = "E"
name = "E"
[[teams]]
id = "F"
name = "F"
[[rounds]]
number = 1
matches = [{{ id = "1", home = "A", away = "B", set = 1 }}, {{ id = "2", home = "C", away = "D", set = 1 }},
           {{ id = "3", home = "E", away = "F", set = 2 }}]
"""


def test_a_fixed_round_on_two_sets_has_a_movement_each(tmp_path: Path) -> None:
    event_file = tmp_path / "fixed.toml"
    event_file.write_text(FIXED.format(copies=1), encoding="utf-8")
    assert run("deal", event_file, "--boards-dir", tmp_path / "b").exit_code == 0
    result = run("round", "show", event_file, "--round", 1, "--json", "--boards-dir", tmp_path / "b")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert "movement" not in data
    by_set = {m["set"]: m for m in data["movements"]}
    assert check_json(by_set[1], list(range(1, 9)), ["1A", "1B", "2A", "2B"]) == []
    assert check_json(by_set[2], list(range(1, 9)), ["3A", "3B"]) == []
    assert (by_set[1]["copies"], by_set[1]["stanzas"], by_set[2]["stanzas"]) == (1, 4, 2)
    event_file.write_text(FIXED.format(copies=0), encoding="utf-8")
    assert_one_error(run("round", "show", event_file, "--round", 1), "event.copies")


def test_round_copies_works_before_dealing(tmp_path: Path) -> None:
    event_file = tmp_path / "e.toml"
    event_file.write_text(swiss_text(12, '"auto"'), encoding="utf-8")
    (tmp_path / "boards").mkdir()  # a boards folder beside the file, the event not dealt in it
    result = run("round", "copies", event_file, "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)
    assert (found["round"], found["tables"], found["setting"]) == (None, 12, "auto")
    assert next(c for c in found["choices"] if c["copies_setting"] == "auto")["wallets"] == 32
    assert list((tmp_path / "boards").iterdir()) == []  # nothing made
