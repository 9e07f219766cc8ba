"""Results database and import: every validation class, re-import, encodings, corrections."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import assert_one_error, report_of
from test_results_support import (
    HEADER,
    db_path,
    db_state,
    dealer_at,
    hand_rows,
    run,
    scored_hand_event,
    write_csv,
    write_event,
)

from dealer.app import EventSession
from dealer.app.results import missing
from dealer.files import load_event
from dealer.formats.qr import score_sheet_payload, traveller_payload
from dealer.store.folder import EventFolder
from dealer.store.migrations import SCHEMA_VERSION
from dealer.store.schema import BOARDS

FULL_HEADER = [*HEADER, "trump", "declarer", "level", "ns_team", "ew_team", "note", "entered_by"]
GOOD = [1, "1", "A", 1, 30, "S", "N", "2", "V", "H", "", "lee"]  # board 1: N declares, level 2


@pytest.fixture
def seeded(tmp_path: Path) -> Path:
    """The hand event with round 1 match 1 table A boards 1-4 already stored."""
    event_path = write_event(tmp_path)
    seed = write_csv(tmp_path / "seed.csv", HEADER, [r for r in hand_rows() if r[2] == "A" and r[3] <= 4])
    result = run("results", "import", str(event_path), str(seed), "--boards-dir", str(tmp_path / "boards"))
    assert result.exit_code == 0, result.output
    return event_path


def _import(tmp_path: Path, event_path: Path, *files: Path):  # type: ignore[no-untyped-def]
    return run("results", "import", str(event_path), *map(str, files), "--boards-dir", str(tmp_path / "boards"))


# (what is wrong, the row after GOOD, the column letter and header, the value, expected text)
CASES = [
    ("points not a multiple of 5", [1, "1", "B", 1, 37, "", "", "", "", "", "", ""],
     'E "defenders_points"', "'37'", "multiple of 5"),
    ("implausible points", [1, "1", "B", 1, 905, "", "", "", "", "", "", ""],
     'E "defenders_points"', "'905'", "expected -200 to 400"),
    ("board not in the set", [1, "1", "B", 17, 30, "", "", "", "", "", "", ""],
     'D "board"', "'17'", "expected 1 to 16"),
    ("table not A/B", [1, "1", "C", 2, 30, "", "", "", "", "", "", ""],
     'C "table"', "'C'", "table must be A or B"),
    ("match not in the round", [1, "9", "B", 2, 30, "", "", "", "", "", "", ""],
     'B "match"', "'9'", "not in round 1 (matches: 1, 2)"),
    ("round not in the event", [4, "1", "B", 2, 30, "", "", "", "", "", "", ""],
     'A "round"', "'4'", "round 4 is not in the event (rounds: 1)"),
    ("declarer differs from the schedule", [1, "1", "B", 2, 30, "", "N", "", "", "", "", ""],
     'G "declarer"', "'N'", "the schedule has declarer E for set 1 board 2"),
    ("level differs from the schedule", [1, "1", "B", 2, 30, "", "", "K", "", "", "", ""],
     'H "level"', "'K'", "the schedule has level 3 for set 1 board 2"),
    ("seating disagrees with home/away", [1, "1", "B", 2, 30, "", "", "", "V", "H", "", ""],
     'I "ns_team"', "'V'", "at table B of round 1 match 1 N-S is H (the home team"),
    ("unknown trump", [1, "1", "B", 2, 30, "X", "", "", "", "", "", ""],
     'F "trump"', "'X'", "expected S H C D NT"),
    ("not a number", [1, "1", "B", "two", 30, "", "", "", "", "", "", ""],
     'D "board"', "'two'", "expected the board number as a whole number"),
    ("exponent notation", [1, "1", "B", 2, "5e1", "", "", "", "", "", "", ""],
     'E "defenders_points"', "'5e1'", "expected the defenders' points as a whole number"),
    ("fraction", [1, "1", "B", 2, "50.5", "", "", "", "", "", "", ""],
     'E "defenders_points"', "'50.5'", "expected the defenders' points as a whole number"),
    ("beyond the absolute bound", [1, "1", "B", 2, 10**8, "", "", "", "", "", "", ""],
     'E "defenders_points"', f"'{10**8}'", "beyond the absolute bound of -2000 to 2000"),
    ("too many digits", [1, "1", "B", 2, 10**24, "", "", "", "", "", "", ""],
     'E "defenders_points"', f"'{10**24}'", "has 25 digits; expected a whole number of at most 9"),
]


@pytest.mark.parametrize(("what", "bad", "column", "value", "expected"), CASES, ids=[c[0] for c in CASES])
def test_validation_class_rejects_the_whole_file(
    tmp_path: Path, seeded: Path, what: str, bad: list[object], column: str, value: str, expected: str
) -> None:
    before = db_state(tmp_path)
    path = write_csv(tmp_path / "slips.csv", FULL_HEADER, [GOOD, bad])
    result = _import(tmp_path, seeded, path)
    assert result.exit_code == 2, what
    message = result.output
    assert f"{path}: row 3, column {column}: value {value}:" in message, message
    assert expected in message, message
    assert "rejected, nothing imported (1 of 2 row(s) with problems" in message
    assert db_state(tmp_path) == before  # the good row did not go in either


def test_duplicate_rows_in_file_and_against_database(tmp_path: Path, seeded: Path) -> None:
    before = db_state(tmp_path)
    twice = write_csv(tmp_path / "twice.csv", HEADER, [[1, "1", "B", 5, 30], [1, "1", "B", 5, 35]])
    result = _import(tmp_path, seeded, twice)
    assert result.exit_code == 2
    assert f"{twice}: row 3: duplicate row: round 1 match 1 table B board 5 is already in row 2" in result.output
    # Board 1 at A is stored with 0 points; a different value is a duplicate, not an overwrite.
    clash = write_csv(tmp_path / "clash.csv", HEADER, [[1, "1", "B", 6, 30], [1, "1", "A", 1, 10]])
    result = _import(tmp_path, seeded, clash)
    assert result.exit_code == 2
    assert (f"{clash}: row 3: duplicate: round 1 match 1 table A board 1 already has 0 points"
            in result.output)
    assert "this row says 10 points" in result.output
    assert "dealer results correct" in result.output
    assert db_state(tmp_path) == before


def test_header_problems(tmp_path: Path, seeded: Path) -> None:
    before = db_state(tmp_path)
    header = ["round", "match", "table", "board", "defender_points"]
    path = write_csv(tmp_path / "h.csv", header, [[1, "1", "B", 5, 30]])
    result = _import(tmp_path, seeded, path)
    assert result.exit_code == 2
    assert f'{path}: row 1, column E "defender_points": unknown column name' in result.output
    assert "required column defenders_points (防守方得分) is missing" in result.output
    assert db_state(tmp_path) == before


def test_reimport_is_a_no_op_that_says_so(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    path = write_csv(tmp_path / "all.csv", HEADER, hand_rows())
    assert _import(tmp_path, event_path, path).exit_code == 0
    before = db_state(tmp_path)
    result = _import(tmp_path, event_path, path)
    assert result.exit_code == 0
    assert "nothing changed: all 32 row(s) are already recorded" in result.output
    assert db_state(tmp_path) == before
    # A longer file with the same rows adds only the new ones.
    more = write_csv(tmp_path / "more.csv", HEADER, [*hand_rows(), [1, "2", "A", 1, 50]])
    result = _import(tmp_path, event_path, more)
    assert "imported 1 row(s), 32 already recorded (skipped)" in result.output


def test_reimport_after_a_correction_keeps_the_correction(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    boards = str(tmp_path / "boards")
    path = write_csv(tmp_path / "all.csv", HEADER, hand_rows())
    assert _import(tmp_path, event_path, path).exit_code == 0
    slot = ["--round", "1", "--match", "1", "--table", "A", "--boards-dir", boards]
    assert run("results", "correct", str(event_path), *slot, "--board", "1", "--points", "160",
               "--reason", "slip misread").exit_code == 0
    assert run("results", "correct", str(event_path), *slot, "--board", "2", "--withdraw",
               "--reason", "wrong match").exit_code == 0
    before = db_state(tmp_path)
    result = _import(tmp_path, event_path, path)
    assert result.exit_code == 0, result.output
    assert (f"{path}: nothing changed, 30 already recorded; 2 row(s) were corrected since: "
            "kept the corrections") in result.output
    assert db_state(tmp_path) == before
    # A longer file adds its new rows and still keeps the corrections.
    more = write_csv(tmp_path / "more.csv", HEADER, [*hand_rows(), [1, "2", "A", 1, 50]])
    result = _import(tmp_path, event_path, more)
    assert result.exit_code == 0, result.output
    assert ("imported 1 row(s), 30 already recorded (skipped); 2 row(s) were corrected since: "
            "kept the corrections") in result.output
    event = load_event(event_path)
    with EventSession.open(event, EventFolder(event.id, Path(boards)), write=True) as store_session:
        store = store_session.writable_store()
        assert [r["defenders_points"] for r in store.history(BOARDS, 1, "1", "A", 1) if r.current] == [160]
        assert [r.withdrawn for r in store.history(BOARDS, 1, "1", "A", 2) if r.current] == [True]
    # A value neither current nor corrected away is still a duplicate.
    other = write_csv(tmp_path / "other.csv", HEADER, [[1, "1", "A", 1, 80]])
    result = _import(tmp_path, event_path, other)
    assert result.exit_code == 2 and "already has 160 points" in result.output


def test_gbk_chinese_headers_and_xlsx_import_the_same_rows(tmp_path: Path) -> None:
    import pandas as pd

    rows = [[r[0], r[1], r[2], r[3], r[4], "无主" if r[3] % 2 else "黑桃", "", "", "", "", "样例", "张伟"]
            for r in hand_rows()]
    zh_header = ["轮次", "场次", "桌", "牌号", "防守方得分", "将牌", "庄家", "级数", "南北", "东西", "备注", "记分员"]
    variants = {
        "utf8": write_csv(tmp_path / "utf8.csv", FULL_HEADER, rows),
        "utf8-bom": write_csv(tmp_path / "bom.csv", FULL_HEADER, rows, encoding="utf-8-sig"),
        "gbk": write_csv(tmp_path / "gbk.csv", zh_header, rows, encoding="gbk"),
    }
    xlsx = tmp_path / "slips.xlsx"
    pd.DataFrame(rows, columns=zh_header).to_excel(xlsx, index=False, engine="openpyxl")
    variants["xlsx"] = xlsx
    assert "无主".encode("gbk") in variants["gbk"].read_bytes()

    stored = {}
    for name, path in variants.items():
        folder = tmp_path / name
        folder.mkdir()
        event_path = write_event(folder)
        result = _import(folder, event_path, path)
        assert result.exit_code == 0, (name, result.output)
        conn = sqlite3.connect(db_path(folder))
        stored[name] = conn.execute(
            "SELECT round, match, tbl, board, defenders_points, trump, note, entered_by FROM results"
            " ORDER BY round, match, tbl, board").fetchall()
        conn.close()
    assert len(stored["utf8"]) == 32
    assert stored["utf8"][0][5:] == ("NT", "样例", "张伟")
    assert stored["utf8"] == stored["utf8-bom"] == stored["gbk"] == stored["xlsx"]


def test_add_with_qr_correct_and_history(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    boards = str(tmp_path / "boards")
    path = write_csv(tmp_path / "all.csv", HEADER, hand_rows())
    assert _import(tmp_path, event_path, path).exit_code == 0
    event = load_event(event_path)
    folder = EventFolder(event.id, Path(boards))
    assert report_of(event, folder).scored.score(1, "1").home_levels == 33

    # Entering board 1 at table A again with another value is refused.
    result = run("results", "add", str(event_path), "--qr", traveller_payload("hand", 1, "1", 1),
                 "--table", "A", "--points", "160", "--boards-dir", boards)
    assert result.exit_code == 2 and "already has 0 points" in result.output
    # A correction: board 1 at A was 160, not 0 (defenders N-S... the declarer N-S side fails).
    result = run("results", "correct", str(event_path), "--round", "1", "--match", "1", "--table", "A",
                 "--board", "1", "--points", "160", "--reason", "slip misread", "--by", "王芳",
                 "--boards-dir", boards)
    assert result.exit_code == 0, result.output
    assert "0 points → 160 points" in result.output
    score = report_of(event, folder).scored.score(1, "1")
    # Board 1: A 160 → defenders E-W (home) +2; B 80 上台. Home 33 + 2, away 27 - 3.
    assert (score.home_levels, score.away_levels) == (35, 24)

    hist = run("results", "history", str(event_path), "--round", "1", "--match", "1", "--table", "A",
               "--board", "1", "--boards-dir", boards)
    lines = hist.output.strip().splitlines()
    assert len(lines) == 2
    assert "[superseded]" in lines[0] and "   0" in lines[0]
    assert "[current]" in lines[1] and "160" in lines[1] and "reason: slip misread" in lines[1]
    assert "by 王芳" in lines[1]
    with EventSession.open(event, folder, write=True) as store_session:
        store = store_session.writable_store()
        rows = store.history(BOARDS, 1, "1", "A", 1)
        assert [r["defenders_points"] for r in rows] == [0, 160] and rows[1].supersedes == rows[0].id
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            store.conn.execute("UPDATE results SET defenders_points = 5")
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            store.conn.execute("DELETE FROM results")

    # Adding through a score-sheet QR (table from the payload) to match 2.
    result = run("results", "add", str(event_path), "--qr", score_sheet_payload("hand", 1, "2", "B"),
                 "--board", "3", "--points", "45", "--trump", "红桃", "--boards-dir", boards)
    assert result.exit_code == 0 and "added round 1 match 2 table B board 3" in result.output
    result = run("results", "add", str(event_path), "--qr", score_sheet_payload("other", 1, "2", "B"),
                 "--board", "3", "--points", "45", "--boards-dir", boards)
    assert result.exit_code == 2 and "belongs to event 'other'" in result.output
    # Withdraw, then correct again.
    result = run("results", "correct", str(event_path), "--round", "1", "--match", "2", "--table", "B",
                 "--board", "3", "--withdraw", "--reason", "wrong match", "--boards-dir", boards)
    assert result.exit_code == 0 and "→ withdrawn" in result.output
    result = run("results", "correct", str(event_path), "--round", "1", "--match", "2", "--table", "B",
                 "--board", "9", "--points", "45", "--reason", "x", "--boards-dir", boards)
    assert result.exit_code == 2 and "has no result to correct" in result.output


def test_missing_lists_boards_and_tables_per_match(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    rows = [r for r in hand_rows() if not (r[3] in (3, 4) and r[2] == "B")]
    assert _import(tmp_path, event_path, write_csv(tmp_path / "a.csv", HEADER, rows)).exit_code == 0
    result = run("results", "missing", str(event_path), "--round", "1", "--boards-dir", str(tmp_path / "boards"))
    assert "round 1 match 1 (H v V): 2 missing: table B boards 3 4" in result.output
    assert "round 1 match 2 (X v Y): 32 missing: all boards at both tables" in result.output


def test_missing_without_a_database_creates_none(tmp_path: Path) -> None:
    event = load_event(write_event(tmp_path))
    with EventSession.open(event, EventFolder(event.id, tmp_path / "boards")) as session:
        reports = missing(session, 1)
    assert [r.text() for r in reports] == [
        "round 1 match 1 (H v V): 32 missing: all boards at both tables",
        "round 1 match 2 (X v Y): 32 missing: all boards at both tables",
    ]
    assert not db_path(tmp_path).exists()


def test_schema_version_and_newer_database_refused(tmp_path: Path) -> None:
    event = load_event(write_event(tmp_path))
    with EventSession.open(event, EventFolder(event.id, tmp_path / "boards"), write=True) as store_session:
        store = store_session.writable_store()
        conn = store.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    result = run("results", "missing", str(write_event(tmp_path)), "--boards-dir", str(tmp_path / "boards"))
    assert result.exit_code == 2 and "newer than this program" in result.output


def test_implausible_value_needs_explicit_acceptance(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    args = ["results", "add", str(event_path), "--round", "1", "--match", "2", "--table", "A",
            "--board", "2", "--points", "480", "--boards-dir", str(tmp_path / "boards")]
    result = run(*args)
    assert result.exit_code == 2
    assert "--points: value '480': implausible" in result.output
    assert "with --accept-implausible" in result.output
    assert db_state(tmp_path) == [r for r in db_state(tmp_path) if r[0] == "meta"]
    result = run(*args, "--accept-implausible")
    assert result.exit_code == 0 and "480 points" in result.output


def test_absolute_bound_holds_even_with_accept_implausible(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    args = ["results", "add", str(event_path), "--round", "1", "--match", "2", "--table", "A",
            "--board", "2", "--boards-dir", str(tmp_path / "boards"), "--accept-implausible"]
    for points in ("1000000000000000000000000", "-2005", "2005"):
        result = run(*args, "--points", points)
        assert result.exit_code == 2, result.output
        assert (f"--points: value '{points}': " in result.output)
        assert ("beyond the absolute bound of -2000 to 2000 (10 × the 200 points of 2 decks); not "
                "accepted, even as an implausible result" in result.output
                or "has 25 digits" in result.output)
    assert [r for r in db_state(tmp_path) if r[0] == "results"] == []
    result = run(*args, "--points", "2000")
    assert result.exit_code == 0 and "2000 points" in result.output


def test_whole_numbers_only_but_spreadsheet_floats_are_fine(tmp_path: Path) -> None:
    import openpyxl

    event_path = write_event(tmp_path)
    # "50.0" (a numeric cell saved as text) and a float cell of an XLSX file are whole numbers.
    text = write_csv(tmp_path / "text.csv", HEADER, [[1, "1", "A", 1, "50.0"], [1, "1", "A", 2, "-5"]])
    assert _import(tmp_path, event_path, text).exit_code == 0
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(HEADER)
    sheet.append([1.0, "1", "B", 1.0, 35.0])
    book.save(tmp_path / "floats.xlsx")
    result = _import(tmp_path, event_path, tmp_path / "floats.xlsx")
    assert result.exit_code == 0, result.output
    conn = sqlite3.connect(db_path(tmp_path))
    stored = conn.execute("SELECT tbl, board, defenders_points FROM results ORDER BY id").fetchall()
    conn.close()
    assert stored == [("A", 1, 50), ("A", 2, -5), ("B", 1, 35)]
    result = run("results", "add", str(event_path), "--round", "1", "--match", "1", "--table", "B",
                 "--board", "2", "--points", "5e1", "--boards-dir", str(tmp_path / "boards"))
    assert result.exit_code == 2
    assert "value '5e1': expected the defenders' points as a whole number" in result.output


def test_results_missing_and_report_create_no_database(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    boards = str(tmp_path / "boards")
    result = run("results", "missing", str(event_path), "--boards-dir", boards)
    assert result.exit_code == 0, result.output
    assert "table result(s) missing" in result.output
    assert run("report", str(event_path), "--json", "--boards-dir", boards).exit_code == 0
    assert not db_path(tmp_path).exists()


# --- corrections that name the value they replace (found by the reliability reviews) -------------


def test_a_correction_can_require_the_value_it_replaces(tmp_path: Path) -> None:
    """Concurrent corrections of one slot each supersede the last (last writer wins);
    ``--expect-current`` makes a correction refuse when the stored value is not the one the
    scorer saw, and stores nothing."""
    event = scored_hand_event(tmp_path, hand_rows())
    slot = ["--round", 1, "--match", 1, "--table", "A", "--board", 2]  # stored: 35 (HAND[2])
    first = dealer_at(tmp_path, "results", "correct", event, *slot, "--points", 40, "--reason", "slip A",
                      "--expect-current", 35)
    assert first.exit_code == 0, first.output
    stored = db_state(tmp_path)
    second = dealer_at(tmp_path, "results", "correct", event, *slot, "--points", 45, "--reason", "slip B",
                       "--expect-current", 35)
    assert_one_error(second, "--expect-current", "now has 40 points", "changed meanwhile")
    assert db_state(tmp_path) == stored


def test_whole_match_withdraw_and_expect_current_parse_their_values(tmp_path: Path) -> None:
    """A whole-match withdrawal with a round number of 11 digits is one error; --expect-current
    reads a number as typed (+35 is 35) and is refused for a whole match."""
    event = scored_hand_event(tmp_path, hand_rows())
    stored = db_state(tmp_path)
    assert_one_error(dealer_at(tmp_path, "results", "correct", event, "--round", "99999999999", "--match", 1,
                               "--withdraw", "--reason", "x"), "--round", "round number")
    assert_one_error(dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--withdraw",
                               "--reason", "x", "--expect-current", 35), "--expect-current", "--table")
    assert db_state(tmp_path) == stored
    ok = dealer_at(tmp_path, "results", "correct", event, "--round", 1, "--match", 1, "--table", "A", "--board", 2,
                   "--points", 40, "--reason", "x", "--expect-current", "+35")
    assert ok.exit_code == 0, ok.output
