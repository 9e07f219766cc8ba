"""Reliability review 3, defects 2 and 8, through the command line.

Defect 2: the key derives every set, so ``dealer release --key`` is accepted only once the event
is over: every round its format needs paired and complete (forfeits count), or the end declared
by the director (``dealer round end``), and every dealt set released or declared unused
(``dealer release --set N --unused``). Defect 8: an event's folder holds one kind of event
(boards or a level race): an event file of the other kind with the same id is refused, naming
what the folder holds, by every command.
"""

from __future__ import annotations

import json
import sqlite3
from importlib import resources
from pathlib import Path

from conftest import Outcome, run_dealer

from dealer.app.session import event_as_played
from dealer.demo import sample_levels_csv, sample_round_csv
from dealer.files import load_event
from dealer.store.folder import EventFolder
from dealer.store.migrations import SCHEMA_VERSION

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

#: A Swiss of four teams and three rounds on 2-board sets (quick to play through).
SMALL_SWISS = "\n".join([
    "[event]", 'id = "small"', 'name = "Small Swiss"', 'profile = "official-2002"', "decks = 2",
    "boards_per_set = 2", "", "[format]", 'kind = "swiss"', "rounds = 3", 'first_round = "split"', "",
    *(line for n in range(1, 5) for line in ("[[teams]]", f'id = "S{n}"', f"seed = {n}", "")),
])


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


def releases(boards: Path, event_id: str) -> list[tuple[object, ...]]:
    return [row[2:4] for row in db_rows(boards, event_id) if row[0] == "releases"]


def play_round(tmp_path: Path, event_file: Path, boards: Path, number: int, drop: int = 0) -> None:
    """Pair round ``number`` and import its invented results (less the last ``drop`` rows)."""
    assert at(boards, "round", "pair", event_file, "--round", number).exit_code == 0
    event = load_event(event_file)
    lines = sample_round_csv(event_as_played(event, EventFolder.of(event, boards)), number).splitlines()
    csv = tmp_path / f"round-{number}.csv"
    csv.write_text("\n".join(lines[:len(lines) - drop]) + "\n", encoding="utf-8")
    imported = at(boards, "results", "import", event_file, csv)
    assert imported.exit_code == 0, imported.output


def small_swiss(tmp_path: Path) -> tuple[Path, Path]:
    event_file = tmp_path / "small.toml"
    event_file.write_text(SMALL_SWISS, encoding="utf-8")
    boards = tmp_path / "boards"
    assert at(boards, "deal", event_file).exit_code == 0
    return event_file, boards


# --- defect 2: the key only once the event is over ---------------------------------------------


def test_defect_2_the_key_of_a_swiss_is_refused_before_round_1(tmp_path: Path) -> None:
    """The review's case: the Swiss demo dealt, nothing paired: the key is refused (it would
    deal every board of the four rounds to come), naming the rounds and the sets left; nothing is
    stored and the site shows no key."""
    event_file = tmp_path / "swiss.toml"
    event_file.write_text(data_file("demo-swiss.toml"), encoding="utf-8")
    boards = tmp_path / "boards"
    assert at(boards, "deal", event_file).exit_code == 0
    before = db_rows(boards, "demo-swiss")
    line = one_error(at(boards, "release", event_file, "--key", "--reason", "before round 1"))
    assert "rounds 1 to 4 not paired" in line, line
    assert "sets 1, 2, 3, 4 neither released nor declared unused" in line, line
    assert db_rows(boards, "demo-swiss") == before
    site = tmp_path / "site"
    assert at(boards, "site", event_file, "--no-pdf", "--out", site).exit_code == 0
    assert not (site / "downloads" / "boards" / "deal.key").exists()
    assert json.loads((site / "verify.json").read_text(encoding="utf-8"))["key"] is None


def test_defect_2_the_key_waits_for_every_round_and_set(tmp_path: Path) -> None:
    """Mid-event (round 2 of 3 played, its sets released) the key is refused naming round 3;
    with round 3 paired and one slip missing, naming the match; complete, with a set not
    released, naming the set; then accepted."""
    event_file, boards = small_swiss(tmp_path)
    for number in (1, 2):
        play_round(tmp_path, event_file, boards, number)
        assert at(boards, "release", event_file, "--set", number, "--reason", f"round {number}").exit_code == 0
    line = one_error(at(boards, "release", event_file, "--key", "--reason", "too early"))
    assert "round 3 not paired" in line and "set 3 neither released nor declared unused" in line, line
    assert "round 1" not in line and "round 2" not in line, line
    play_round(tmp_path, event_file, boards, 3, drop=1)
    line = one_error(at(boards, "release", event_file, "--key", "--reason", "too early"))
    assert "round 3 match" in line and "1 result(s) missing" in line and "not paired" not in line, line
    missing = at(boards, "results", "missing", event_file, "--round", 3).stdout
    slot = next(row for row in missing.splitlines() if "missing:" in row)
    table, board = slot.split("table ")[1].split(" boards ")
    match = slot.split(" match ")[1].split(" ")[0]
    assert at(boards, "results", "add", event_file, "--round", 3, "--match", match, "--table", table,
              "--board", board.strip(), "--points", 40).exit_code == 0
    line = one_error(at(boards, "release", event_file, "--key", "--reason", "over"))
    assert line.endswith("unused --reason …`)") or "set 3 neither released nor declared unused" in line, line
    assert "round" not in line.split("(")[0].replace("released", ""), line
    assert at(boards, "release", event_file, "--set", 3, "--reason", "round 3").exit_code == 0
    done = at(boards, "release", event_file, "--key", "--reason", "event over")
    assert done.exit_code == 0 and "released the key" in done.stdout, done.output
    assert ("key", None) in releases(boards, "small")


def test_defect_2_an_early_end_declared_with_a_reason_and_an_unused_set(tmp_path: Path) -> None:
    """The director ends a Swiss after round 2 of 3 (`dealer round end`, in the hash chain):
    round 3 can no longer be paired; the key still needs set 3 released or declared unused;
    an unused set is never released as played, and the site shows it as unused (no hands); the
    end cannot be withdrawn once the key is out."""
    event_file, boards = small_swiss(tmp_path)
    for number in (1, 2):
        play_round(tmp_path, event_file, boards, number)
        assert at(boards, "release", event_file, "--set", number, "--reason", f"round {number}").exit_code == 0
    one_error(at(boards, "round", "end", event_file, "--reason", " "))
    ended = at(boards, "round", "end", event_file, "--reason", "hall closed", "--by", "TD")
    assert ended.exit_code == 0 and "after round 2" in ended.stdout, ended.output
    again = at(boards, "round", "end", event_file, "--reason", "twice")
    assert again.exit_code == 0 and "nothing changed" in again.stdout
    assert "declared over" in one_error(at(boards, "round", "pair", event_file, "--round", 3))
    assert "declared over" in one_error(at(boards, "round", "undo", event_file, "--round", 2, "--reason", "x"))
    line = one_error(at(boards, "release", event_file, "--key", "--reason", "over"))
    assert "set 3 neither released nor declared unused" in line and "not paired" not in line, line
    # An unused set: not together with --accept-missing or --key; stored once; never released.
    one_error(at(boards, "release", event_file, "--set", 3, "--unused", "--reason", "x", "--accept-missing"))
    one_error(at(boards, "release", event_file, "--key", "--unused", "--reason", "x"))
    assert "round 1" in one_error(at(boards, "release", event_file, "--set", 1, "--unused", "--reason", "x"))
    unused = at(boards, "release", event_file, "--set", 3, "--unused", "--reason", "round 3 not played")
    assert unused.exit_code == 0 and "unused" in unused.stdout, unused.output
    assert "nothing changed" in at(boards, "release", event_file, "--set", 3, "--unused", "--reason", "y").stdout
    assert "unused" in one_error(at(boards, "release", event_file, "--set", 3, "--reason", "played after all",
                                    "--accept-missing"))
    assert at(boards, "release", event_file, "--key", "--reason", "event over").exit_code == 0
    assert "key" in one_error(at(boards, "round", "end", event_file, "--withdraw", "--reason", "resume"))
    assert at(boards, "results", "audit", event_file).exit_code == 0
    site = tmp_path / "site"
    assert at(boards, "site", event_file, "--no-pdf", "--out", site).exit_code == 0
    verify = json.loads((site / "verify.json").read_text(encoding="utf-8"))
    assert verify["key"] is not None
    assert [(s["set"], s["released"], s.get("unused", {}).get("reason")) for s in verify["sets"]] == \
        [(1, True, None), (2, True, None), (3, False, "round 3 not played")]
    assert not list(site.glob("board-3-*")) and list(site.glob("board-2-*"))
    assert "set-03.json" not in verify["verify_command"]


def test_defect_2_an_end_can_be_withdrawn_before_the_key(tmp_path: Path) -> None:
    """A declared end is undone like a round (an undo row with its reason) while the key is not
    released: round 3 is then paired as usual. A set a round still to come would play cannot be
    declared unused before the end."""
    event_file, boards = small_swiss(tmp_path)
    play_round(tmp_path, event_file, boards, 1)
    line = one_error(at(boards, "release", event_file, "--set", 3, "--unused", "--reason", "x"))
    assert "round 3" in line, line
    one_error(at(boards, "round", "end", event_file, "--withdraw", "--reason", "nothing to withdraw"))
    assert at(boards, "round", "end", event_file, "--reason", "storm").exit_code == 0
    withdrawn = at(boards, "round", "end", event_file, "--withdraw", "--reason", "storm passed")
    assert withdrawn.exit_code == 0, withdrawn.output
    play_round(tmp_path, event_file, boards, 2)
    assert at(boards, "results", "audit", event_file).exit_code == 0


def test_defect_2_a_set_no_round_can_play_may_be_declared_unused_at_any_time(tmp_path: Path) -> None:
    """A spare set (sets beyond the rounds the format needs) is never played: it can be declared
    unused before the event ends; the key still waits for the rounds."""
    event_file = tmp_path / "spare.toml"
    event_file.write_text(SMALL_SWISS.replace("boards_per_set = 2", "boards_per_set = 2\nsets = 4"), encoding="utf-8")
    boards = tmp_path / "boards"
    assert at(boards, "deal", event_file).exit_code == 0
    assert at(boards, "release", event_file, "--set", 4, "--unused", "--reason", "spare").exit_code == 0
    line = one_error(at(boards, "release", event_file, "--key", "--reason", "x"))
    assert "rounds 1 to 3 not paired" in line and "sets 1, 2, 3 neither" in line, line


def test_defect_2_a_fixed_event_needs_every_match_complete_or_its_end(tmp_path: Path) -> None:
    """The demo (fixed, round 3 match 2 misses a slip): every set released (set 3 with
    --accept-missing) is not enough: the key names the match; the end declared, it is released."""
    event_file = tmp_path / "demo.toml"
    event_file.write_text(data_file("demo-event.toml"), encoding="utf-8")
    boards = tmp_path / "boards"
    assert at(boards, "deal", event_file).exit_code == 0
    sample = resources.files("dealer") / "data" / "sample-travellers.csv"
    with resources.as_file(sample) as path:
        assert at(boards, "results", "import", event_file, path).exit_code == 0
    for number in (1, 2, 3):
        released = at(boards, "release", event_file, "--set", number, "--reason", "played", "--accept-missing")
        assert released.exit_code == 0, released.output
    line = one_error(at(boards, "release", event_file, "--key", "--reason", "over"))
    assert "round 3 match 2" in line and "1 result(s) missing" in line, line
    assert at(boards, "round", "end", event_file, "--reason", "the last slip is lost").exit_code == 0
    assert at(boards, "release", event_file, "--key", "--reason", "over").exit_code == 0


def test_defect_2_a_knockout_is_over_when_its_champion_is_known(tmp_path: Path) -> None:
    """A knockout of four: the key is refused while the final misses a result ("no champion
    yet"), accepted once the final is complete and both sets released."""
    text = "\n".join(["[event]", 'id = "cup"', 'name = "Cup"', 'profile = "official-2002"', "decks = 2",
                      "boards_per_set = 2", "", "[format]", 'kind = "knockout"', "",
                      *(line for n in range(1, 5) for line in ("[[teams]]", f'id = "K{n}"', f"seed = {n}", ""))])
    event_file = tmp_path / "cup.toml"
    event_file.write_text(text, encoding="utf-8")
    boards = tmp_path / "boards"
    assert at(boards, "deal", event_file).exit_code == 0
    play_round(tmp_path, event_file, boards, 1)
    play_round(tmp_path, event_file, boards, 2, drop=1)
    for number in (1, 2):
        released = at(boards, "release", event_file, "--set", number, "--reason", "played", "--accept-missing")
        assert released.exit_code == 0, released.output
    line = one_error(at(boards, "release", event_file, "--key", "--reason", "over"))
    assert "round 2 match 1" in line and "no champion yet" in line, line
    assert at(boards, "results", "add", event_file, "--round", 2, "--match", 1, "--table", "B", "--board", 2,
              "--points", 40).exit_code == 0
    assert at(boards, "release", event_file, "--key", "--reason", "over").exit_code == 0


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
                 ("print", "pairings", levels, "--round", 1), ("check-label", levels, "x")):
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
    csv.write_text(sample_levels_csv(event_as_played(event, EventFolder.of(event, boards)), 1), encoding="utf-8")
    assert at(boards, "results", "import", levels, csv).exit_code == 0
    before = db_rows(boards, "demo-levels")
    for args in (("report", same_id, "--json"), ("results", "import", same_id, csv),
                 ("release", same_id, "--set", 1, "--reason", "x"), ("print", "travellers", same_id)):
        line = one_error(at(boards, *args))
        assert "level race" in line and "table result(s)" in line, (args, line)
    assert db_rows(boards, "demo-levels") == before
    assert at(boards, "results", "audit", levels).exit_code == 0


# --- the schema: migration 7 -------------------------------------------------------------------

#: ``actions`` and ``releases`` as schema 6 made them (before kinds ``end`` and ``unused``).
SCHEMA_6_TABLES = {
    "actions": """CREATE TABLE actions (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('pair', 'undo', 'forfeit', 'late')),
        round INTEGER NOT NULL CHECK (round >= 1),
        data TEXT NOT NULL, reason TEXT, undoes INTEGER REFERENCES actions (id), entered_by TEXT,
        at TEXT NOT NULL, seq INTEGER, chain TEXT,
        CHECK ((kind = 'undo') = (undoes IS NOT NULL)))""",
    "releases": """CREATE TABLE releases (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('set', 'key')),
        set_number INTEGER CHECK (set_number >= 1),
        reason TEXT NOT NULL CHECK (length(trim(reason)) > 0),
        entered_by TEXT, at TEXT NOT NULL, seq INTEGER, chain TEXT,
        CHECK ((kind = 'set') = (set_number IS NOT NULL)))""",
}


def as_schema_6(path: Path) -> None:
    """Turn a current database back into what schema 6 wrote: the old tables (rows, links and
    the tool's triggers kept), no remembered result kind, user_version 6."""
    from dealer.store.schema import TRIGGERS

    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN")
        for table, create in SCHEMA_6_TABLES.items():
            conn.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
            conn.execute(create)
            conn.execute(f"INSERT INTO {table} SELECT * FROM old_{table}")
            conn.execute(f"DROP TABLE old_{table}")
        conn.execute("CREATE UNIQUE INDEX actions_seq ON actions (seq)")
        conn.execute("CREATE UNIQUE INDEX actions_undoes ON actions (undoes)")
        conn.execute("CREATE UNIQUE INDEX releases_seq ON releases (seq)")
        conn.execute("CREATE UNIQUE INDEX releases_once ON releases (kind, coalesce(set_number, 0))")
        for name in TRIGGERS:  # the tables' own went with them
            if name.startswith("meta_"):
                conn.execute(f"DROP TRIGGER {name}")
        conn.execute("DELETE FROM meta WHERE key = 'result'")
        for name, sql in TRIGGERS.items():
            if name.startswith(("actions_", "releases_", "meta_")):
                conn.execute(sql)
        conn.execute("PRAGMA user_version = 6")
        conn.execute("COMMIT")
    finally:
        conn.close()


def test_a_schema_6_database_is_upgraded_with_its_rows_and_links(tmp_path: Path) -> None:
    """An event scored and released under schema 6: the next command upgrades it (migration 7),
    every row and link kept, the audit passing; its kind is then known from its rows (a level
    race's file is refused), and an end and an unused set can be stored."""
    event_file, boards = small_swiss(tmp_path)
    play_round(tmp_path, event_file, boards, 1)
    assert at(boards, "release", event_file, "--set", 1, "--reason", "round 1").exit_code == 0
    path = boards / "small" / "results.sqlite"
    as_schema_6(path)
    old = [row for row in db_rows(boards, "small") if row[0] in ("actions", "releases", "results", "imports")]
    assert at(boards, "report", event_file, "--json").exit_code == 0  # a reading command upgrades it
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION  # 7, then the later ones
        assert conn.execute("SELECT value FROM meta WHERE key = 'result'").fetchone() == ("boards",)
    finally:
        conn.close()
    assert [row for row in db_rows(boards, "small") if row[0] in ("actions", "releases", "results", "imports")] == old
    assert at(boards, "results", "audit", event_file).exit_code == 0
    levels = tmp_path / "lv.toml"
    levels.write_text(LEVELS_OVER_DEMO.replace('id = "demo"', 'id = "small"'), encoding="utf-8")
    assert "boards event" in one_error(at(boards, "report", levels, "--json"))
    assert at(boards, "round", "end", event_file, "--reason", "stopped after round 1").exit_code == 0
    assert at(boards, "release", event_file, "--set", 3, "--unused", "--reason", "not played").exit_code == 0
    assert at(boards, "results", "audit", event_file).exit_code == 0


def test_the_audit_names_a_result_kind_edited_by_hand(tmp_path: Path) -> None:
    """``meta.result`` is not in the chain: edited to the other kind, the audit names it (the rows
    say otherwise), and every command still refuses the level race's file."""
    boards = dealt_demo(tmp_path)
    path = boards / "demo" / "results.sqlite"
    conn = sqlite3.connect(path)
    try:
        conn.execute("DROP TRIGGER meta_no_update")
        conn.execute("UPDATE meta SET value = 'levels' WHERE key = 'result'")
        conn.commit()
    finally:
        conn.close()
    audit = at(boards, "results", "audit", tmp_path / "demo.toml")
    assert audit.exit_code == 1 and "says result 'levels'" in audit.output, audit.output
    levels = tmp_path / "lv.toml"
    levels.write_text(LEVELS_OVER_DEMO, encoding="utf-8")
    one_error(at(boards, "report", levels, "--json"))


def test_defect_8_an_empty_database_left_by_a_refused_command_blocks_nothing(tmp_path: Path) -> None:
    """A refused level-race command (round 2 before round 1) opens the results database of the
    folder, which remembers the kind: with nothing stored in it, a boards event of that id deals."""
    levels = tmp_path / "levels.toml"
    text = (resources.files("dealer") / "data" / "demo-levels.toml").read_text(encoding="utf-8")
    levels.write_text(text.replace('id = "demo-levels"', 'id = "demo"'), encoding="utf-8")
    boards = tmp_path / "b"
    boards.mkdir()
    assert run_dealer("round", "pair", levels, "--round", 2, "--boards-dir", boards).exit_code == 2
    demo = tmp_path / "demo.toml"
    demo.write_text((resources.files("dealer") / "data" / "demo-event.toml").read_text(encoding="utf-8"),
                    encoding="utf-8")
    dealt = run_dealer("deal", demo, "--boards-dir", boards)
    assert dealt.exit_code == 0, dealt.output


def test_defect_2_a_set_declared_unused_is_never_played_whatever_the_event_file_says(tmp_path: Path) -> None:
    """Found by our own fuzzing: a fixed event's round removed from the event file, its set
    declared unused, the key released, the round put back: its results went in and the site
    showed them, though anyone could derive the set from the key."""
    boards = tmp_path / "b"
    text = (resources.files("dealer") / "data" / "demo-event.toml").read_text(encoding="utf-8")
    event_file = tmp_path / "e.toml"
    event_file.write_text(text, encoding="utf-8")
    assert run_dealer("deal", event_file, "--boards-dir", boards).exit_code == 0
    cut = text[:text.index("[[rounds]]\nnumber = 3")]
    event_file.write_text(cut, encoding="utf-8")
    assert run_dealer("release", event_file, "--set", 3, "--unused", "--reason", "round 3 cancelled",
                      "--boards-dir", boards).exit_code == 0
    event_file.write_text(text, encoding="utf-8")
    rows = tmp_path / "r3.csv"
    rows.write_text("round,match,table,board,defenders_points\n3,1,A,1,40\n", encoding="utf-8")
    for args in (("results", "import", event_file, rows), ("report", event_file, "--json"),
                 ("site", event_file, "--no-pdf", "--out", tmp_path / "s")):
        refused = run_dealer(*args, "--boards-dir", boards)
        assert refused.exit_code == 2 and "declared unused" in refused.stderr, (args, refused.output)
    assert not (tmp_path / "s").exists()
