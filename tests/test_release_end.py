"""Reliability review 3, defect 8, through the command line: an event's folder holds one kind
of event (boards or a level race): an event file of the other kind with the same id is refused,
naming what the folder holds, by every command.
"""

from __future__ import annotations

import sqlite3
from importlib import resources
from pathlib import Path

from conftest import Outcome, run_dealer

from dealer.demo import sample_levels_csv
from dealer.files import load_event
from dealer.folder import EventFolder
from dealer.results.rounds import load_scheduled

#: The review's level-race event file over the demo's id (defect 8).
LEVELS_OVER_DEMO = """[event]
id = "demo"
name = "x"
profile = "official-2002"
decks = 2
result = "levels"
tables = 2
[format]
kind = "round-robin"
[[teams]]
id = "T1"
[[teams]]
id = "T2"
[[teams]]
id = "T3"
[[teams]]
id = "T4"
"""


def data_file(name: str) -> str:
    return (resources.files("dealer") / "data" / name).read_text(encoding="utf-8")


def at(boards: Path, *args: object) -> Outcome:
    return run_dealer(*args, "--boards-dir", boards)


def one_error(outcome: Outcome) -> str:
    """The refusal's one ``error:`` line (exit 2, no traceback)."""
    assert outcome.exit_code == 2, outcome.output
    errors = [line for line in outcome.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, outcome.stderr
    assert "Traceback" not in outcome.output
    return errors[0]


def db_rows(boards: Path, event_id: str) -> list[tuple[object, ...]]:
    """Every row of every table of the event's results database (what a refusal must not change)."""
    path = boards / event_id / "results.sqlite"
    if not path.exists():
        return []
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return [(table, *row) for table in tables for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1")]
    finally:
        conn.close()


# --- defect 8: a folder holds one kind of event ------------------------------------------------


def dealt_demo(tmp_path: Path) -> Path:
    """The review's folder: the demo dealt, the sample travellers in, set 1 released."""
    event_file = tmp_path / "demo.toml"
    event_file.write_text(data_file("demo-event.toml"), encoding="utf-8")
    boards = tmp_path / "boards"
    assert at(boards, "deal", event_file).exit_code == 0
    with resources.as_file(resources.files("dealer") / "data" / "sample-travellers.csv") as path:
        assert at(boards, "results", "import", event_file, path).exit_code == 0
    assert at(boards, "release", event_file, "--set", 1, "--reason", "r1").exit_code == 0
    return boards


def test_defect_8_a_level_race_file_over_a_dealt_boards_folder_is_refused(tmp_path: Path) -> None:
    """The review's case: `site` (was exit 70), `report` (was "no results yet"), `round pair`
    (was stored) and `results add` are refused naming what the folder holds; nothing changes."""
    boards = dealt_demo(tmp_path)
    levels = tmp_path / "lv.toml"
    levels.write_text(LEVELS_OVER_DEMO, encoding="utf-8")
    before = db_rows(boards, "demo")
    for args in (("site", levels, "--no-pdf", "--out", tmp_path / "s"), ("report", levels, "--json"),
                 ("round", "pair", levels, "--round", 1), ("results", "missing", levels),
                 ("print", "pairings", levels, "--round", 1)):
        line = one_error(at(boards, *args))
        assert "dealt boards event" in line and "commitment.json" in line and "level race" in line, (args, line)
    assert db_rows(boards, "demo") == before
    assert not (tmp_path / "s").exists()


def test_defect_8_the_database_alone_still_tells_a_boards_event(tmp_path: Path) -> None:
    """The deal's files moved away, the results database still holds board results: refused,
    naming them."""
    boards = dealt_demo(tmp_path)
    bare = tmp_path / "bare"
    (bare / "demo").mkdir(parents=True)
    (boards / "demo" / "results.sqlite").rename(bare / "demo" / "results.sqlite")
    levels = tmp_path / "lv.toml"
    levels.write_text(LEVELS_OVER_DEMO, encoding="utf-8")
    line = one_error(at(bare, "round", "pair", levels, "--round", 1))
    assert "191 board result(s)" in line and "boards event" in line, line


def test_defect_8_a_boards_file_over_a_level_race_folder_is_refused(tmp_path: Path) -> None:
    """The converse: the level-race demo paired (before any result: its kind is remembered) and
    then scored; a boards event file of the same id is refused by `deal` (nothing written),
    `report` and `results import`."""
    levels = tmp_path / "levels.toml"
    levels.write_text(data_file("demo-levels.toml"), encoding="utf-8")
    boards = tmp_path / "boards"
    boards.mkdir()
    assert at(boards, "round", "pair", levels, "--round", 1).exit_code == 0
    same_id = tmp_path / "boards-event.toml"
    same_id.write_text(data_file("demo-event.toml").replace('id = "demo" ', 'id = "demo-levels" ', 1),
                       encoding="utf-8")
    assert load_event(same_id).id == "demo-levels"
    line = one_error(at(boards, "deal", same_id))
    assert "level race" in line and "round(s) 1 paired" in line, line
    assert sorted(p.name for p in (boards / "demo-levels").iterdir() if not p.name.endswith(("-wal", "-shm"))) == \
        ["results.sqlite"]
    event = load_event(levels)
    csv = tmp_path / "r1.csv"
    csv.write_text(sample_levels_csv(load_scheduled(event, EventFolder.of(event, boards)), 1), encoding="utf-8")
    assert at(boards, "results", "import", levels, csv).exit_code == 0
    before = db_rows(boards, "demo-levels")
    for args in (("report", same_id, "--json"), ("results", "import", same_id, csv)):
        line = one_error(at(boards, *args))
        assert "level race" in line and "table result(s)" in line, (args, line)
    assert db_rows(boards, "demo-levels") == before
    assert at(boards, "results", "audit", levels).exit_code == 0
