"""Reliability review 3 (``/work/shared/reviews/reliability-3.md``), defects 10, 11 and 13,
through the command line.

Each test drives ``dealer`` the way the reviewer did (:func:`conftest.run_dealer`); the level race
is seed 001's (``test_levels.SEED_001``: five tables a match, start 3), the Swiss one the built-in
Swiss demo after two rounds.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from conftest import Outcome, run_dealer
from test_levels import HEADER_ZH, SEED_001, SEED_001_ROWS

REPO = Path(__file__).resolve().parent.parent


# --- helpers ---------------------------------------------------------------------------------


def dealer_at(tmp_path: Path, *args: object) -> Outcome:
    """``dealer ARGS… --boards-dir tmp_path/boards``."""
    return run_dealer(*args, "--boards-dir", tmp_path / "boards")


def assert_one_error(result: Outcome, *texts: str, status: int = 2) -> None:
    """Refused with ``status``: an ``error:`` line naming the texts, no traceback."""
    assert result.exit_code == status, result.output
    assert result.stderr.startswith("error: "), result.output
    assert "Traceback" not in result.output
    for text in texts:
        assert text in result.output, (text, result.output)


def level_race(tmp_path: Path, rows: list[tuple[str, ...]] | None = None, name: str = "levels.toml") -> Path:
    """Seed 001's level race with ``rows`` imported (default: round 1 match 1, five tables)."""
    event = tmp_path / name
    event.write_text(SEED_001, encoding="utf-8")
    (tmp_path / "boards").mkdir(exist_ok=True)
    rows = SEED_001_ROWS[:5] if rows is None else rows
    if rows:
        table = tmp_path / f"rows-{len(rows)}.csv"
        table.write_text(HEADER_ZH + "\n" + "".join(",".join(r) + "\n" for r in rows), encoding="utf-8")
        result = dealer_at(tmp_path, "results", "import", event, table)
        assert result.exit_code == 0, result.output
    return event


def level_rows(tmp_path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(tmp_path / "boards" / "four-deck-levels" / "results.sqlite") as conn:
        return conn.execute("SELECT * FROM level_results ORDER BY id").fetchall()


def current_tables(tmp_path: Path) -> dict[tuple[int, str], list[int]]:
    """(round, match) → the tables with a current (not withdrawn) result."""
    found: dict[tuple[int, str], list[int]] = {}
    with sqlite3.connect(tmp_path / "boards" / "four-deck-levels" / "results.sqlite") as conn:
        for round_number, match, table in conn.execute(
                "SELECT round, match, tbl FROM current_level_results WHERE withdrawn = 0 ORDER BY tbl"):
            found.setdefault((round_number, match), []).append(table)
    return found


# --- 10 and 11: one parser for a level race's round and table ------------------------------------


@pytest.mark.parametrize("text", ["١", "²", "1½", "-1", "0"])
def test_10_11_a_whole_match_withdrawal_reads_the_round_as_add_does(tmp_path: Path, text: str) -> None:
    """`--round ²` was a traceback, `--round ١` withdrew round 1, `-1` said "round 0": each is
    now the refusal `results add` gives, and nothing is stored."""
    event = level_race(tmp_path)
    before = level_rows(tmp_path)
    added = dealer_at(tmp_path, "results", "add", event, "--round", text, "--match", 1, "--table", 1,
                      "--home-level", "5", "--away-level", "3")
    withdrawn = dealer_at(tmp_path, "results", "correct", event, "--round", text, "--match", 1, "--withdraw",
                          "--reason", "x")
    assert_one_error(withdrawn, "--round", repr(text))
    assert "round 0" not in withdrawn.output
    if text in ("-1", "0"):  # whole numbers: no such round (add: not in the event)
        assert_one_error(added, "--round", f"round {text} is not in the event")
        assert "the round number must be 1 or more" in withdrawn.output
    else:  # ASCII or full-width digits, as `results add` and every file read them: ١ and ² are not 1 and 2
        assert_one_error(added, "--round", "expected the round number as a whole number")
        assert "expected the round number as a whole number" in withdrawn.output
    assert level_rows(tmp_path) == before


@pytest.mark.parametrize(("text", "number"), [("３", 3)])
def test_10_11_a_full_width_round_is_the_same_round_for_add_and_a_withdrawal(tmp_path: Path, text: str,
                                                                            number: int) -> None:
    """A Chinese IME's full-width digits: `--round ３` is round 3 for add and for a whole-match
    withdrawal alike (a superscript `²` is refused by both: tests/test_typed_digits.py)."""
    event = level_race(tmp_path)
    added = dealer_at(tmp_path, "results", "add", event, "--round", text, "--match", 1, "--table", 1,
                      "--home-level", "5", "--away-level", "3")
    assert added.exit_code == 0 and f"added round {number} match 1 table 1" in added.output, added.output
    withdrawn = dealer_at(tmp_path, "results", "correct", event, "--round", text, "--match", 1, "--withdraw",
                          "--reason", "x")
    assert withdrawn.exit_code == 0 and f"of round {number} match 1" in withdrawn.output, withdrawn.output


def test_11_a_round_written_as_a_spreadsheet_does_is_the_same_round_everywhere(tmp_path: Path) -> None:
    """`1.0` (a spreadsheet's whole number) is round 1 for add and for a withdrawal alike."""
    event = level_race(tmp_path)
    result = dealer_at(tmp_path, "results", "correct", event, "--round", "1.0", "--match", 1, "--withdraw",
                       "--reason", "entered for the wrong match")
    assert result.exit_code == 0, result.output
    assert "withdrew 5 result(s) of round 1 match 1" in result.output
    assert current_tables(tmp_path) == {}


def test_11_a_table_letter_is_the_same_table_for_add_correct_and_history(tmp_path: Path) -> None:
    """`add --table A` took table 1 while `correct --table A --withdraw` was refused and
    `history --table A` showed every table."""
    event = level_race(tmp_path)
    history = dealer_at(tmp_path, "results", "history", event, "--table", "B")
    assert history.exit_code == 0, history.output
    assert [line.split(":")[0].split()[-1] for line in history.stdout.splitlines()] == ["2"]
    result = dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--table", "A",
                       "--withdraw", "--reason", "x")
    assert result.exit_code == 0, result.output
    assert "corrected round 1 match 1 table 1: home 5 away 3 → withdrawn" in result.output
    assert current_tables(tmp_path) == {(1, "1"): [2, 3, 4, 5]}
    # A full-width letter is the letter (Ｂ is table 2, as B).
    assert dealer_at(tmp_path, "results", "history", event, "--table", "Ｂ").stdout == history.stdout
    for text in ("١", "ı"):  # "ı".upper() is "I": not a letter a table is written with
        before = level_rows(tmp_path)
        assert_one_error(dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1,
                                   "--table", text, "--withdraw", "--reason", "x"), "--table", repr(text))
        assert_one_error(dealer_at(tmp_path, "results", "history", event, "--table", text), "--table")
        assert level_rows(tmp_path) == before


# --- 13: smaller issues ------------------------------------------------------------------------


def run_with_closed_stdout(*args: object) -> subprocess.CompletedProcess[bytes]:
    """``dealer ARGS`` in a process whose stdout is a pipe nobody reads any more (as after
    ``| head -1`` has exited): every write fails with EPIPE."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        return subprocess.run([sys.executable, "-m", "dealer.cli", *map(str, args)], stdout=write_end,
                              stderr=subprocess.PIPE, env=env, timeout=120, check=False)
    finally:
        os.close(write_end)


def test_13_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    """`dealer results history EVENT | head -1` said "error: … Broken pipe" and exited 2
    ("rejected"): now nothing on stderr, and 141 (128 + SIGPIPE, as a shell reports a command
    the pipe stopped; README, "Exit statuses")."""
    event = level_race(tmp_path)
    for args in (("results", "history", event, "--boards-dir", tmp_path / "boards"), ("rules", "list")):
        done = run_with_closed_stdout(*args)
        assert done.returncode == 141, done.stderr
        assert done.stderr == b""


def championship_file(tmp_path: Path, *events: Path) -> Path:
    path = tmp_path / "championship.toml"
    names = ", ".join(f'"{e.name}"' for e in events)
    path.write_text(f'[championship]\nname = "总成绩"\nevents = [{names}]\n', encoding="utf-8")
    return path


def test_13_the_championship_marks_an_unfinished_event_provisional(tmp_path: Path) -> None:
    """The level race after 2 of its 3 rounds was scored with final place points and nothing
    said: the table and the JSON now say the places are provisional, and why."""
    event = level_race(tmp_path, SEED_001_ROWS[:20])  # rounds 1 and 2 (round 3's matches have no result)
    champ = championship_file(tmp_path, event)
    text = dealer_at(tmp_path, "championship", champ)
    assert text.exit_code == 0, text.output
    assert "provisional" in text.stdout and "four-deck-levels" in text.stdout
    assert "round 3 match 1" in text.stdout and "result(s) missing" in text.stdout
    data = json.loads(dealer_at(tmp_path, "championship", champ, "--json").stdout)
    assert data["provisional"] is True and data["events"][0]["provisional"] is True
    # Round 3 in: final, nothing said.
    table = tmp_path / "round-3.csv"
    table.write_text(HEADER_ZH + "\n" + "".join(",".join(r) + "\n" for r in SEED_001_ROWS[20:]), encoding="utf-8")
    assert dealer_at(tmp_path, "results", "import", event, table).exit_code == 0
    text = dealer_at(tmp_path, "championship", champ)
    assert text.exit_code == 0 and "provisional" not in text.stdout, text.output
    data = json.loads(dealer_at(tmp_path, "championship", champ, "--json").stdout)
    assert data["provisional"] is False and data["events"][0]["provisional"] is False


def test_13_a_round_robin_with_rounds_still_to_pair_is_provisional(tmp_path: Path) -> None:
    """The review's case: the level-race demo (a round robin, rounds paired as it goes) after 2
    of its 3 rounds: every match played so far is complete, yet the places are not final."""
    from dealer.app.session import event_as_played
    from dealer.demo import sample_levels_csv
    from dealer.files import load_event
    from dealer.store.folder import EventFolder

    event = tmp_path / "demo-levels.toml"
    event.write_text((resources.files("dealer") / "data" / "demo-levels.toml").read_text(encoding="utf-8"),
                     encoding="utf-8")
    (tmp_path / "boards").mkdir()
    for number in (1, 2):
        assert dealer_at(tmp_path, "round", "pair", event, "--round", number).exit_code == 0
        loaded = load_event(event)
        rows = tmp_path / f"round-{number}.csv"
        rows.write_text(sample_levels_csv(event_as_played(loaded, EventFolder.of(loaded, tmp_path / "boards")),
                                          number), encoding="utf-8")
        assert dealer_at(tmp_path, "results", "import", event, rows).exit_code == 0
    text = dealer_at(tmp_path, "championship", championship_file(tmp_path, event))
    assert text.exit_code == 0, text.output
    assert "provisional" in text.stdout and "round 3 not paired" in text.stdout


def swiss_after_two_rounds(tmp_path: Path) -> Path:
    """The built-in Swiss demo dealt, rounds 1 and 2 paired and their sample results imported."""
    from dealer.app.session import event_as_played
    from dealer.demo import sample_round_csv
    from dealer.files import load_event
    from dealer.store.folder import EventFolder

    event = tmp_path / "swiss.toml"
    event.write_text((resources.files("dealer") / "data" / "demo-swiss.toml").read_text(encoding="utf-8"),
                     encoding="utf-8")
    assert dealer_at(tmp_path, "deal", event).exit_code == 0
    for number in (1, 2):
        assert dealer_at(tmp_path, "round", "pair", event, "--round", number).exit_code == 0
        loaded = load_event(event)
        rows = tmp_path / f"round-{number}.csv"
        rows.write_text(sample_round_csv(event_as_played(loaded, EventFolder.of(loaded, tmp_path / "boards")),
                                         number), encoding="utf-8")
        assert dealer_at(tmp_path, "results", "import", event, rows).exit_code == 0
    return event


def edited(path: Path, *changes: tuple[str, str]) -> Path:
    text = path.read_text(encoding="utf-8")
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    out = path.with_name("edited-" + path.name)
    out.write_text(text, encoding="utf-8")
    return out


def test_13_a_format_changed_after_pairing_is_said_as_such(tmp_path: Path) -> None:
    """The Swiss demo after 2 rounds made a knockout (sets = 4 keeps the deal's plan): `report`
    and `site` said "--round: a corrected result changed who went through"; no result was
    corrected and neither has --round. Now: the event file's format against the stored pairings."""
    event = swiss_after_two_rounds(tmp_path)
    knockout = edited(event, ('kind = "swiss"', 'kind = "knockout"'), ("rounds = 4 ", "# rounds = 4 "),
                      ('first_round = "pinyin"', '# first_round = "pinyin"'),
                      ("avoid_same_club = true", "# avoid_same_club = true"), ("# sets = 4", "sets = 4"))
    for args in (("report", knockout, "--json"), ("site", knockout, "--no-pdf", "--out", tmp_path / "site"),
                 ("round", "pair", knockout, "--round", 3), ("results", "missing", knockout)):
        result = dealer_at(tmp_path, *args)
        assert_one_error(result, "event file [format]", "knockout", "round 1 was paired as a swiss round")
        assert "--round" not in result.output and "corrected" not in result.output
    assert not (tmp_path / "site").exists()
    # Fewer Swiss rounds than are paired: said the same way.
    fewer = edited(event, ("rounds = 4 ", "rounds = 1 "), ("# sets = 4", "sets = 4"))
    assert_one_error(dealer_at(tmp_path, "report", fewer, "--json"), "event file [format]",
                     "2 rounds are paired", "rounds 1 to 1")


def test_13_a_removed_team_is_labelled_by_the_event_file(tmp_path: Path) -> None:
    """A team removed after it was paired: the refusal named `--teams`, which no command has."""
    event = swiss_after_two_rounds(tmp_path)
    text = event.read_text(encoding="utf-8")
    start = text.index('[[teams]]\nid = "T8"')
    end = text.index("[[teams]]", start + 1) if "[[teams]]" in text[start + 1:] else len(text)
    removed = tmp_path / "removed.toml"
    removed.write_text(text[:start] + text[end:], encoding="utf-8")
    for args in (("report", removed, "--json"), ("round", "pair", removed, "--round", 3)):
        result = dealer_at(tmp_path, *args)
        assert_one_error(result, "event file [[teams]]: ", "'T8'")
        assert "--teams" not in result.output


def test_13_a_level_race_without_its_folder_is_not_said_to_be_undealt(tmp_path: Path) -> None:
    """`site` (and every reading command) of a level race under a missing boards folder said
    "event … was not committed or dealt": a level race is never dealt."""
    event = level_race(tmp_path, [])
    for args in (("site", event, "--no-pdf", "--out", tmp_path / "site"), ("report", event, "--json"),
                 ("results", "history", event), ("results", "missing", event)):
        result = run_dealer(*args, "--boards-dir", tmp_path / "no-such-folder")
        assert_one_error(result, "--boards-dir", "level race", "is the boards folder right?")
        assert "dealt" not in result.output.replace("never dealt", "")


def test_13_past_a_is_written_past_a(tmp_path: Path) -> None:
    """`过` alone was taken as 过A; the docs name 过A and A+: it is refused, with those two."""
    event = level_race(tmp_path, [])
    assert_one_error(dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 1, "--table", 1,
                               "--home-level", "过", "--away-level", "3"),
                     "--home-level", "'过'", "过A", "A+")
    table = tmp_path / "past.csv"
    table.write_text(f"{HEADER_ZH}\n1,1,1,3,过,\n", encoding="utf-8")
    assert_one_error(dealer_at(tmp_path, "results", "import", event, table), "row 2", "'过'", "过A", "A+")
    for spelling in ("过A", "a+", "过 A"):
        added = dealer_at(tmp_path, "results", "add", event, "--round", 1, "--match", 1, "--table", 1,
                          "--home-level", spelling, "--away-level", "3")
        assert added.exit_code == 0 and "home 过A away 3" in added.stdout, added.output


def test_13_two_builds_of_the_same_results_give_the_same_xlsx_bytes(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The XLSX writer stamped its zip members with the time of writing: two reports of the same
    data differed. Here the clock is an hour apart between the two builds."""
    event = level_race(tmp_path, SEED_001_ROWS)
    written = []
    for hour in (0, 1):
        monkeypatch.setattr(time, "time", lambda hour=hour: 1_800_000_000.0 + 3600 * hour)
        out = tmp_path / f"reports-{hour}"
        result = dealer_at(tmp_path, "report", event, "--format", "xlsx", "--out", out)
        assert result.exit_code == 0, result.output
        written.append((out / "four-deck-levels-results.xlsx").read_bytes())
    assert written[0] == written[1]
    with zipfile.ZipFile(tmp_path / "reports-0" / "four-deck-levels-results.xlsx") as book:
        assert book.testzip() is None
        assert {info.date_time for info in book.infolist()} == {(1980, 1, 1, 0, 0, 0)}


def _edit_database(tmp_path: Path, event_id: str, *statements: str) -> None:
    with sqlite3.connect(tmp_path / "boards" / event_id / "results.sqlite") as conn:
        for statement in statements:
            conn.execute(statement)


@pytest.mark.parametrize("table", ["actions", "level_results", "imports", "meta"])
def test_13_the_audit_finds_a_column_added_and_filled(tmp_path: Path, table: str) -> None:
    """A column added to `actions` (or any chained table) and filled was not noticed: its values
    are outside the hash chain. Found, naming the table and the column; writes refuse too."""
    event = level_race(tmp_path)
    forfeit = dealer_at(tmp_path, "results", "forfeit", event, "--round", 1, "--match", 2, "--team", "U4",
                        "--reason", "did not come")
    assert forfeit.exit_code == 0, forfeit.output  # a row of actions
    assert dealer_at(tmp_path, "results", "audit", event).exit_code == 0
    _edit_database(tmp_path, "four-deck-levels", f"ALTER TABLE {table} ADD COLUMN verdict TEXT DEFAULT 'kept'")
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1, audit.output
    assert f"table {table}: column-added: column verdict" in audit.stderr
    assert_one_error(dealer_at(tmp_path, "results", "add", event, "--round", 2, "--match", 1, "--table", 1,
                               "--home-level", "5", "--away-level", "3"), "changed outside the tool",
                     f"table {table}")


def test_13_the_audit_reports_meta_edited_to_another_event(tmp_path: Path) -> None:
    """`meta` edited to another event's id (its guard dropped and put back) gave exit 2 "belongs
    to event …": the audit is the command that must say it, as a finding (exit 1). Every other
    command still refuses the database."""
    from dealer.store.schema import TRIGGERS

    event = level_race(tmp_path)
    _edit_database(tmp_path, "four-deck-levels", "DROP TRIGGER meta_no_update",
                   "UPDATE meta SET value = 'another-event' WHERE key = 'event'", TRIGGERS["meta_no_update"])
    audit = dealer_at(tmp_path, "results", "audit", event)
    assert audit.exit_code == 1, audit.output
    assert "table meta: meta:" in audit.stderr and "'another-event'" in audit.stderr
    assert "1 finding(s)" in audit.stderr  # the chain itself is intact: only meta was edited
    assert_one_error(dealer_at(tmp_path, "report", event, "--json"), "belongs to event 'another-event'")


@pytest.mark.parametrize("head", ["zz", "0000", "g" * 64])
def test_13_a_published_head_that_is_no_link_is_refused_not_called_tampering(tmp_path: Path, head: str) -> None:
    """Found by our own fuzzing: `--head zz` said the database was changed outside the tool."""
    event = level_race(tmp_path)
    refused = dealer_at(tmp_path, "results", "audit", event, "--head", head)
    assert refused.exit_code == 2 and refused.stderr.startswith("error: --head:"), refused.output
