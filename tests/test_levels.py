"""Level races (result = "levels", seeds 001 and 002): events, import (CSV and XLSX), validation,
corrections, scoring into standings, the report's JSON, place points and the championship.

Every expected value is worked out by hand in the comments. Level indexes: with start 2
(seed 002) 2→0 … 10→8, J→9, Q→10, K→11, A→12, 过A→13; with start 3 (seed 001) one less.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest
from conftest import assert_one_error, event_file, report_json_of, run_dealer
from test_results_support import dealer_at

from dealer.app.rounds import record_forfeit
from dealer.app.session import EventSession
from dealer.report import report_json

SEED_002 = """
[event]
id = "renmin-levels"
name = "双升积分赛（计时制）"
profile = "renmin-shuangsheng"
result = "levels"
tables = 2

[[teams]]
id = "T1"
name = "东风队"
[[teams]]
id = "T2"
name = "长城队"
[[teams]]
id = "T3"
name = "黄河队"
[[teams]]
id = "T4"
name = "泰山队"

[[rounds]]
number = 1
matches = [{ id = "1", home = "T1", away = "T2" }, { id = "2", home = "T3", away = "T4" }]
[[rounds]]
number = 2
matches = [{ id = "1", home = "T1", away = "T3" }, { id = "2", home = "T2", away = "T4" }]
"""

# Seed 002: start 2. Per table (home level, away level) → climbed home, away; net = home − away.
SEED_002_ROWS = [
    # R1 M1 T1 v T2: K v 8 → 11, 6 (+5); 5 v 9 → 3, 7 (−4). Net +1: T1 wins 2–0. T1 14, T2 13.
    ("1", "1", "1", "K", "8", ""), ("1", "1", "2", "5", "9", ""),
    # R1 M2 T3 v T4: A v 过A → 12, 13 (−1); 10 v 9 → 8, 7 (+1). Net 0: a draw 1–1. T3 20, T4 20.
    ("1", "2", "1", "A", "过A", ""), ("1", "2", "2", "10", "9", ""),
    # R2 M1 T1 v T3: 6 v 6 → 4, 4 (0); J v Q → 9, 10 (−1). Net −1: T3 wins. T1 13, T3 14.
    ("2", "1", "1", "6", "6", "主"), ("2", "1", "2", "J", "Q", ""),
    # R2 M2 T2 v T4: Q v 10 → 10, 8 (+2); 3 v 4 → 1, 2 (−1). Net +1: T2 wins. T2 11, T4 10.
    ("2", "2", "1", "Q", "10", ""), ("2", "2", "2", "3", "4", ""),
]
# Match points (2 / 1 / 0): T1 2 + 0 = 2; T2 0 + 2 = 2; T3 1 + 2 = 3; T4 1 + 0 = 1.
# 小分 (net levels): T1 +1 − 1 = 0; T2 −1 + 1 = 0; T3 0 + 1 = +1; T4 0 − 1 = −1.
# T1 and T2 are level on 2 points and 0 小分: 对手分 decides. T1 met T2 (2) and T3 (3): 5;
# T2 met T1 (2) and T4 (1): 3. So T3, T1, T2, T4.
SEED_002_STANDINGS = [
    # team, match points, levels for, against, net, 对手分
    ("T3", 3, 20 + 14, 20 + 13, 1, 2 + 1),  # opponents T4 (1) and T1 (2)
    ("T1", 2, 14 + 13, 13 + 14, 0, 5),
    ("T2", 2, 13 + 11, 14 + 10, 0, 3),
    ("T4", 1, 20 + 10, 20 + 11, -1, 3 + 2),  # opponents T3 (3) and T2 (2)
]

SEED_001 = """
[event]
id = "four-deck-levels"
name = "四副牌升级团体赛"
profile = "four-deck-2v2"
decks = 4
result = "levels"
tables = 5

[[teams]]
id = "U1"
name = "一队"
[[teams]]
id = "U2"
name = "二队"
[[teams]]
id = "U3"
name = "三队"
[[teams]]
id = "U4"
name = "四队"

[[rounds]]
number = 1
matches = [{ id = "1", home = "U1", away = "U2" }, { id = "2", home = "U3", away = "U4" }]
[[rounds]]
number = 2
matches = [{ id = "1", home = "U1", away = "U3" }, { id = "2", home = "U2", away = "U4" }]
[[rounds]]
number = 3
matches = [{ id = "1", home = "U1", away = "U4" }, { id = "2", home = "U2", away = "U3" }]
"""


def _five(round_number: str, match: str, tables: list[tuple[str, str, str]]) -> list[tuple[str, ...]]:
    return [(round_number, match, str(i), home, away, last) for i, (home, away, last) in enumerate(tables, 1)]


# Seed 001: start 3 (3→0, 4→1, 5→2, 6→3, 7→4, 10→7, A→11, 过A→12); 5场3胜: the most tables won.
SEED_001_ROWS = [
    # R1 M1 U1 v U2: tables won H H H(tie, last game home) A A → U1 wins 3–2 (3 / 1) though its
    # levels are 2+1+0+0+0 = 3 against 0+0+0+11+7 = 18.
    *_five("1", "1", [("5", "3", ""), ("4", "3", ""), ("3", "3", "home"), ("3", "A", ""), ("3", "10", "")]),
    # R1 M2 U3 v U4: 6 v 3 three times (3 each), 3 v 4 twice (1 each): U3 wins 3–2; 9 v 2.
    *_five("1", "2", [("6", "3", ""), ("6", "3", ""), ("6", "3", ""), ("3", "4", ""), ("3", "4", "")]),
    # R2 M1 U1 v U3: 3 v 5 three times (2 each to U3), 7 v 3 (4 to U1), 3 v 3 last away: U3 4–1; 4 v 6.
    *_five("2", "1", [("3", "5", ""), ("3", "5", ""), ("3", "5", ""), ("7", "3", ""), ("3", "3", "客")]),
    # R2 M2 U2 v U4: 4 v 3 three times (1 each), 3 v 4 twice (1 each): U2 3–2; 3 v 2.
    *_five("2", "2", [("4", "3", ""), ("4", "3", ""), ("4", "3", ""), ("3", "4", ""), ("3", "4", "")]),
    # R3 M1 U1 v U4: 5 v 3 three times (2 each), 3 v 3 last away twice: U1 3–2; 6 v 0.
    *_five("3", "1", [("5", "3", ""), ("5", "3", ""), ("5", "3", ""), ("3", "3", "away"), ("3", "3", "away")]),
    # R3 M2 U2 v U3: 4 v 3 three times (1 each), 3 v 过A (12 to U3), 3 v 3 last away: U2 3–2; 3 v 12.
    *_five("3", "2", [("4", "3", ""), ("4", "3", ""), ("4", "3", ""), ("3", "过A", ""), ("3", "3", "away")]),
]
# Match points (win 3 / loss 1): U1 3 + 1 + 3 = 7; U2 1 + 3 + 3 = 7; U3 3 + 3 + 1 = 7; U4 1 + 1 + 1 = 3.
# Head-to-head among U1, U2, U3 is a circle (U1 beat U2, U2 beat U3, U3 beat U1): 3 + 1 = 4 each.
# Game ratio (levels for / against): U1 (3 + 4 + 6) / (18 + 6 + 0) = 13/24; U2 (18 + 3 + 3) /
# (3 + 2 + 12) = 24/17; U3 (9 + 6 + 12) / (2 + 4 + 3) = 27/9 = 3. So U3, U2, U1, then U4 (4 / 18).
SEED_001_STANDINGS = [("U3", 7, 27, 9), ("U2", 7, 24, 17), ("U1", 7, 13, 24), ("U4", 3, 4, 18)]
HEADER_ZH = "轮次,场次,桌,主队级数,客队级数,末局胜方"


def _csv(rows: list[tuple[str, ...]], header: str = HEADER_ZH, first: str = "") -> str:
    return first + header + "\n" + "".join(",".join(row) + "\n" for row in rows)


def _xlsx(path: Path, rows: list[tuple[str, ...]], header: str = HEADER_ZH) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(header.split(","))
    for row in rows:
        # numbers as numeric cells, as a spreadsheet keeps them
        sheet.append([int(v) if v.isdigit() else (v or None) for v in row])
    book.save(path)
    return path


def _db(boards: Path, event_id: str) -> sqlite3.Connection:
    return sqlite3.connect(boards / event_id / "results.sqlite")


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_seed_002_style_event_standings_by_net_levels_then_opponents(tmp_path: Path, kind: str) -> None:
    event, boards = event_file(tmp_path, SEED_002)
    if kind == "csv":
        results = tmp_path / "round-1-2.csv"
        results.write_text(_csv(SEED_002_ROWS), encoding="utf-8")
    else:
        results = _xlsx(tmp_path / "round-1-2.xlsx", SEED_002_ROWS)
    code, out, err = run_dealer("results", "import", event, results, "--boards-dir", boards)
    assert code == 0, err
    assert "imported 8 row(s)" in out
    data = report_json_of(event, boards)
    assert data["result"] == "levels" and data["format"] == "fixed"
    standings = data["standings"]
    assert isinstance(standings, list)
    got = [(s["team"], s["match_points"], s["level_points_for"], s["level_points_against"],
            s["net_level_points"], s["tie_breaks"]["opponents_match_points"]) for s in standings]
    assert got == SEED_002_STANDINGS
    assert [s["rank"] for s in standings] == [1, 2, 3, 4]
    matches = {(m["round"], m["match"]): m for m in data["matches"]}
    # R1 M2: net 0 → a draw, 1 point each; every match complete with its 2 tables.
    assert (matches[(1, "2")]["home_match_points"], matches[(1, "2")]["away_match_points"]) == (1, 1)
    assert all(m["complete"] and m["boards_counted"] == 2 for m in matches.values())
    # The same keys as a boards event's report (documented shape), plus "result".
    assert set(matches[(1, "1")]) == {"round", "match", "home", "away", "home_level_points", "away_level_points",
                                      "margin", "complete", "boards_counted", "home_match_points",
                                      "away_match_points", "forfeited_by", "advanced"}
    code, out, err = run_dealer("results", "audit", event, "--boards-dir", boards)
    assert code == 0 and "audit passed" in out, err
    # Reports in every cheap format: the tables sheet lists each table.
    code, out, err = run_dealer("report", event, "--format", "csv,html", "--out", tmp_path / "rep",
                                "--boards-dir", boards)
    assert code == 0, err
    tables_csv = (tmp_path / "rep" / "tables.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(tables_csv) == 1 + 8
    assert "1,2,1,T3,T4,A,过A,12,13,-1,,away" in tables_csv  # past A wins the table


def test_seed_002_forfeit_scores_five_levels_a_table(event_from: Callable[..., EventSession]) -> None:
    with event_from(SEED_002, write=True, as_played=False) as session:  # as `dealer results forfeit`
        record_forfeit(session, 2, "2", "T4", "did not come")
    with event_from(SEED_002) as session:
        matches = {(m["round"], m["match"]): m for m in report_json(session.report())["matches"]}
    # 弃权的比赛小分按照每一桌胜方净胜5级计: 2 tables × 5 = 10 levels to T2, a win (2) against 0.
    forfeited = matches[(2, "2")]
    assert (forfeited["home_level_points"], forfeited["away_level_points"]) == (10, 0)
    assert (forfeited["home_match_points"], forfeited["away_match_points"]) == (2, 0)


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_seed_001_style_event_tables_won_head_to_head_game_ratio_place_points(tmp_path: Path, kind: str) -> None:
    event, boards = event_file(tmp_path, SEED_001)
    header = "round,match,table,home_level,away_level,last_game"
    if kind == "csv":
        results = tmp_path / "all.csv"
        results.write_text(_csv(SEED_001_ROWS, header), encoding="utf-8")
    else:
        results = _xlsx(tmp_path / "all.xlsx", SEED_001_ROWS, header)
    code, out, err = run_dealer("results", "import", event, results, "--by", "王芳", "--boards-dir", boards)
    assert code == 0, err
    data = report_json_of(event, boards)
    standings = data["standings"]
    assert isinstance(standings, list)
    assert [(s["team"], s["match_points"], s["level_points_for"], s["level_points_against"])
            for s in standings] == SEED_001_STANDINGS
    by_team = {s["team"]: s for s in standings}
    assert [by_team[t]["tie_breaks"]["head_to_head"] for t in ("U1", "U2", "U3")] == [4, 4, 4]
    assert by_team["U3"]["tie_breaks"]["game_ratio"] == 3
    assert by_team["U2"]["tie_breaks"]["game_ratio"] == pytest.approx(24 / 17)
    matches = {(m["round"], m["match"]): m for m in data["matches"]}
    # Won on tables (3–2) with fewer levels (3 v 18): the tables decide (5场3胜).
    assert (matches[(1, "1")]["home_level_points"], matches[(1, "1")]["away_level_points"]) == (3, 18)
    assert (matches[(1, "1")]["home_match_points"], matches[(1, "1")]["away_match_points"]) == (3, 1)
    # Place points 10 / 7 / 5 / 3 into a championship of this event and its mirror (every table's
    # levels swapped, the last game too): there every match goes the other way. Mirror: U4 wins all
    # (9); U1, U2, U3 lose two of three (5 each), head-to-head still a circle, game ratios inverted:
    # U1 24/13, U2 17/24, U3 9/27 → U4, U1, U2, U3. Totals: U3 10 + 3 = 13, U4 3 + 10 = 13,
    # U2 7 + 5 = 12, U1 5 + 7 = 12; each pair also has the same places (a 1st and a 4th; a 2nd and
    # a 3rd), so they share: 1= U3 U4, 3= U1 U2.
    mirror_text = SEED_001.replace('id = "four-deck-levels"', 'id = "four-deck-mirror"')
    mirror, _ = event_file(tmp_path, mirror_text)
    swap = {"home": "away", "away": "home", "客": "home", "主": "away", "": ""}
    mirrored = [(r, m, t, a, h, swap[last]) for r, m, t, h, a, last in SEED_001_ROWS]
    (tmp_path / "mirror.csv").write_text(_csv(mirrored, header), encoding="utf-8")
    code, _out, err = run_dealer("results", "import", mirror, tmp_path / "mirror.csv", "--boards-dir", boards)
    assert code == 0, err
    (tmp_path / "overall.toml").write_text('[championship]\nname = "总成绩"\n'
                                           'events = ["four-deck-levels.toml", "four-deck-mirror.toml"]\n',
                                           encoding="utf-8")
    code, out, err = run_dealer("championship", tmp_path / "overall.toml", "--json", "--boards-dir", boards)
    assert code == 0, err
    table = json.loads(out)["table"]
    assert [(line["rank"], line["team"], line["total"], line["shared"]) for line in table] == [
        (1, "U3", 13, True), (1, "U4", 13, True), (3, "U1", 12, True), (3, "U2", 12, True)]
    assert table[0]["events"] == {"four-deck-levels": 10, "four-deck-mirror": 3}


def _rejected(tmp_path: Path, rows: list[tuple[str, ...]], message: str, text: str = SEED_002,
              header: str = HEADER_ZH) -> None:
    """Importing ``rows`` is refused with ``message`` naming the row, and nothing is stored."""
    event, boards = event_file(tmp_path, text)
    path = tmp_path / "bad.csv"
    path.write_text(_csv(rows, header), encoding="utf-8")
    code, _out, err = run_dealer("results", "import", event, path, "--boards-dir", boards)
    assert code == 2
    assert message in err, err
    assert "nothing imported" in err
    event_id = "renmin-levels" if text is SEED_002 else "four-deck-levels"
    # A refused first import makes no database at all (the session creates it at its first write).
    assert not (boards / event_id / "results.sqlite").exists()


def test_a_level_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    _rejected(tmp_path, [("1", "1", "1", "K", "Z", "")],
              'bad.csv: row 2, column E "客队级数": value \'Z\': no such level; expected one of 2 3 4 5 6 7 8 9 10 '
              "J Q K A 过A")


def test_a_level_below_the_start_is_refused(tmp_path: Path) -> None:
    # Seed 001 starts at 3: a final level of 2 cannot happen.
    _rejected(tmp_path, [("1", "1", "1", "2", "5", "")],
              "value '2': below the start: every side starts at 3 (profile four-deck-2v2)", text=SEED_001)


def test_a_table_the_match_does_not_have_is_refused(tmp_path: Path) -> None:
    _rejected(tmp_path, [("1", "1", "1", "K", "8", ""), ("1", "1", "3", "K", "8", "")],
              'row 3, column C "桌": value \'3\': the match has no such table: a match of this event is played '
              "at tables 1 to 2")


def test_the_same_slot_twice_is_refused(tmp_path: Path) -> None:
    _rejected(tmp_path, [("1", "1", "2", "K", "8", ""), ("1", "1", "2", "Q", "8", "")],
              "row 3: duplicate row: round 1 match 1 table 2 is already in row 2 of this file")


def test_a_result_for_a_team_that_had_a_bye_is_refused(tmp_path: Path) -> None:
    # A fixed round lists no byes: pair a round robin of 3 teams, so that one team sits out.
    text = SEED_002.split("[[rounds]]")[0].replace("[[teams]]\nid = \"T4\"\nname = \"泰山队\"\n", "") + \
        '[format]\nkind = "round-robin"\n'
    event, boards = event_file(tmp_path, text)
    code, out, err = run_dealer("round", "pair", event, "--round", 1, "--boards-dir", boards)
    assert code == 0, err
    bye = out.split("bye: ")[1].split()[0]
    path = tmp_path / "bye.csv"
    path.write_text(_csv([("1", "2", "1", "K", "8", bye)], "round,match,table,home_level,away_level,home_team"),
                    encoding="utf-8")
    code, _out, err = run_dealer("results", "import", event, path, "--boards-dir", boards)
    assert code == 2
    assert f"value '{bye}': team {bye} had a bye in round 1: it has no match to score" in err
    assert "value '2': match '2' is not in round 1 (matches: 1; bye: " + bye + ")" in err
    with _db(boards, "renmin-levels") as conn:
        assert conn.execute("SELECT count(*) FROM level_results").fetchone()[0] == 0


def test_a_tie_without_the_last_game_is_refused_where_tables_decide(tmp_path: Path) -> None:
    _rejected(tmp_path, [("1", "1", "1", "5", "5", "")],
              "both sides finished on the same level: the last game's winner (末局胜方) decides the table",
              text=SEED_001)


def test_add_correct_withdraw_history_and_audit(tmp_path: Path) -> None:
    event, boards = event_file(tmp_path, SEED_002)
    common = ("--boards-dir", boards)
    code, out, err = run_dealer("results", "add", event, "--round", 1, "--match", 1, "--table", 1,
                                "--home-level", "K", "--away-level", "8", "--by", "王芳", *common)
    assert code == 0 and "added round 1 match 1 table 1: home K away 8" in out, err
    # A different value for the slot: refused, nothing stored; a correction needs a reason.
    code, _out, err = run_dealer("results", "add", event, "--round", 1, "--match", 1, "--table", 1,
                                 "--home-level", "Q", "--away-level", "8", *common)
    assert code == 2 and "duplicate: round 1 match 1 table 1 already has home K away 8" in err
    code, out, err = run_dealer("results", "correct", event, "--round", 1, "--match", 1, "--table", 1,
                                "--home-level", "Q", "--away-level", "8", "--reason", "sheet misread", *common)
    assert code == 0 and "home K away 8 → home Q away 8" in out, err
    # Board flags are refused for a level race.
    code, _out, err = run_dealer("results", "add", event, "--round", 1, "--match", 1, "--table", 2,
                                 "--points", "40", *common)
    assert code == 2 and "--points: not a field of a level race" in err
    code, out, err = run_dealer("results", "history", event, *common)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2 and "[superseded]" in lines[0] and "supersedes #1, reason: sheet misread" in lines[1]
    code, out, err = run_dealer("results", "correct", event, "--round", 1, "--match", 1, "--withdraw",
                                "--reason", "wrong match", *common)
    assert code == 0 and "withdrew 1 result(s)" in out, err
    assert report_json_of(event, boards)["no_results_yet"] is True
    # Append-only: the database refuses an edit, and an edit made behind its back is found.
    with _db(boards, "renmin-levels") as conn:
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            conn.execute("UPDATE level_results SET home_level = 'A' WHERE id = 1")
        conn.execute("DROP TRIGGER level_results_no_update")
        conn.execute("UPDATE level_results SET home_level = 'A' WHERE id = 1")
    code, out, err = run_dealer("results", "audit", event, *common)
    assert code == 1 and "level_results #1 (link 2): edited" in err


def test_a_level_race_is_not_dealt(tmp_path: Path) -> None:
    event, boards = event_file(tmp_path, SEED_002)
    for command in ("deal", "commit"):
        code, _out, err = run_dealer(command, event, "--boards-dir", boards)
        assert code == 2 and "is a level race" in err and "nothing to commit or deal" in err
    assert not (boards / "renmin-levels").exists()
    bad = tmp_path / "bad.toml"
    bad.write_text(SEED_002.replace("tables = 2", "tables = 2\nboards_per_set = 16"), encoding="utf-8")
    code, _out, err = run_dealer("report", bad, "--json", "--boards-dir", boards)
    assert code == 2 and "event.boards_per_set: a level race" in err
    bad.write_text(SEED_002.replace("tables = 2\n", ""), encoding="utf-8")
    code, _out, err = run_dealer("report", bad, "--json", "--boards-dir", boards)
    assert code == 2 and "event.tables: missing" in err
    bad.write_text(SEED_002.replace('result = "levels"\n', ""), encoding="utf-8")
    code, _out, err = run_dealer("report", bad, "--json", "--boards-dir", boards)
    assert code == 2 and "event.tables: only a level race" in err


def test_a_swiss_level_race_pairs_on_level_results(tmp_path: Path) -> None:
    """The round loop: round 2 of a Swiss pairs on the level results of round 1."""
    head = SEED_002.split("[[rounds]]")[0] + '[format]\nkind = "swiss"\nrounds = 2\n'
    event, boards = event_file(tmp_path, head)
    common = ("--boards-dir", boards)
    code, _out, _err = run_dealer("round", "show", event, "--round", 1, *common)
    assert code == 2
    code, _out, err = run_dealer("round", "pair", event, "--round", 1, *common)
    assert code == 0, err
    first = json.loads(run_dealer("round", "show", event, "--round", 1, "--json", *common).stdout)["matches"]
    # Round 1: both matches won by the home team at both tables.
    rows = [("1", m["match"], str(t), "K", "5", "") for m in first for t in (1, 2)]
    (tmp_path / "r1.csv").write_text(_csv(rows), encoding="utf-8")
    code, _out, err = run_dealer("round", "pair", event, "--round", 2, *common)
    assert code == 2 and "missing results" in err
    assert run_dealer("results", "import", event, tmp_path / "r1.csv", *common).exit_code == 0
    code, _out, err = run_dealer("round", "pair", event, "--round", 2, *common)
    assert code == 0, err
    second = json.loads(run_dealer("round", "show", event, "--round", 2, "--json", *common).stdout)["matches"]
    winners = {m["home"] for m in first}
    # The two winners meet, and so do the two losers.
    assert {frozenset((m["home"], m["away"])) for m in second} == {
        frozenset(winners), frozenset({m["away"] for m in first})}


def test_the_level_race_demo_twice(tmp_path: Path) -> None:
    """`make demo`'s level race: three round-robin rounds of sample table results, imported once
    (the second run changes nothing), reported as sample data, every match complete."""
    from dealer.demo import levels_demo

    first = list(levels_demo(tmp_path / "boards", tmp_path / "output"))
    second = list(levels_demo(tmp_path / "boards", tmp_path / "output"))
    assert sum("imported 10 row(s)" in line for line in first) == 3
    assert sum("nothing changed" in line for line in second) == 3
    assert first[-1] == second[-1] and first[-1].startswith("  place points: ")
    event = tmp_path / "boards" / "demo-levels" / "event.toml"
    data = report_json_of(event, tmp_path / "boards")
    assert data["sample_data"] is True and data["result"] == "levels"
    assert all(m["complete"] for m in data["matches"])


def test_a_level_race_prints_pairings_and_level_sheets_only(tmp_path: Path) -> None:
    from pypdf import PdfReader

    event, boards = event_file(tmp_path, SEED_002)
    out = tmp_path / "out"
    for kind in ("travellers", "labels"):
        code, _out, err = run_dealer("print", kind, event, "--round", 1, "--boards-dir", boards, "--out", out)
        assert code == 2 and "is a level race" in err and "no board papers" in err
        assert "dealer print all EVENT.toml --round N" in err
    for kind in ("score-sheets", "all"):
        code, _out, err = run_dealer("print", kind, event, "--boards-dir", boards, "--out", out)
        assert code == 2 and "one round at a time" in err
    assert not out.exists()
    # One command for the round's paperwork: its pairings and score sheets, and what it left out.
    code, printed, err = run_dealer("print", "all", event, "--round", 1, "--boards-dir", boards,
                                    "--out", tmp_path / "all", "--format", "html")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "all").iterdir()) == [
        "level-sheets-round-01-zh.html", "pairings-round-01-zh.html", "seating-round-01-zh.html"]
    left_out = [line for line in printed.splitlines() if line.startswith("left out: ")]
    assert left_out == [f"left out: {kind}: a level race deals no boards" for kind in (
        "hand records", "wallet labels", "curtain cards", "dealing guide", "travellers", "table cards")] + [
        "left out: team cards: printed once for the event: dealer print team-cards EVENT.toml",
        "left out: results bulletin: no results of an earlier round to post yet: dealer print bulletin EVENT.toml "
        "--round 1 once round 1 is scored"]
    for kind in ("pairings", "score-sheets"):
        code, _printed, err = run_dealer("print", kind, event, "--round", 1, "--boards-dir", boards, "--out", out)
        assert code == 0, err
    sheets = PdfReader(out / "level-sheets-round-01-zh.pdf")
    assert len(sheets.pages) == 2  # one per match of round 1
    text = sheets.pages[0].extract_text()
    assert "升级赛记分表" in text and "东风队" in text and "长城队" in text and "过A" in text
    pairings = PdfReader(out / "pairings-round-01-zh.pdf").pages[0].extract_text()
    assert "每场 2 桌" in pairings and "A 桌" not in pairings


def test_a_level_races_tables_are_named_as_players_find_them(tmp_path: Path) -> None:
    """Round show, the pairings and the score sheets name a level race's tables 1-1/1-2 (match 1)
    and 2-1/2-2, the match 场, and never mention a set; `table_numbers = "sequential"` numbers the
    round's tables 1…4 instead, and a numbering that would not tell tables apart is refused."""
    event, boards = event_file(tmp_path, SEED_002)
    code, shown, err = run_dealer("round", "show", event, "--round", 1, "--boards-dir", boards)
    assert code == 0, err
    assert shown.splitlines()[1:] == ["  match   1  tables 1-1/1-2  T1 东风队  v  T2 长城队",
                                      "  match   2  tables 2-1/2-2  T3 黄河队  v  T4 泰山队"]
    assert "set" not in shown
    zh = run_dealer("--lang", "zh", "round", "show", event, "--round", 1, "--boards-dir", boards).stdout
    assert "第   1 场  1-1/1-2 号桌  T1 东风队" in zh and "套" not in zh
    out = tmp_path / "out"
    code, _printed, err = run_dealer("print", "all", event, "--round", 1, "--boards-dir", boards, "--out", out,
                                     "--format", "html")
    assert code == 0, err
    pairings = (out / "pairings-round-01-zh.html").read_text(encoding="utf-8")
    assert "<th>场</th>" in pairings and "1-1、1-2" in pairings and "2-1、2-2" in pairings
    assert "桌号</th>" in pairings and "套" not in pairings
    sheets = (out / "level-sheets-round-01-zh.html").read_text(encoding="utf-8")
    assert "<b>2-1</b>" in sheets and "<b>2-2</b>" in sheets

    numbered = SEED_002.replace('tables = 2\n', 'tables = 2\ntable_numbers = "sequential"\n')
    event, boards = event_file(tmp_path, numbered)
    shown = run_dealer("round", "show", event, "--round", 1, "--boards-dir", boards).stdout
    assert "match   2  tables 3/4" in shown
    for bad in ("{match}", "{seat}{seq}", "T{seq"):
        event, boards = event_file(tmp_path, SEED_002.replace('tables = 2\n', f'tables = 2\ntable_numbers = "{bad}"\n'))
        code, _out, err = run_dealer("round", "show", event, "--round", 1, "--boards-dir", boards)
        assert code == 2 and "event.table_numbers:" in err and "per-match, sequential" in err, bad


def test_a_level_races_forfeit_and_tables_on_the_site_and_report(tmp_path: Path) -> None:
    """A forfeit reads "T4 弃权" on the forfeiter's page and the match page, "对方弃权（胜）" on
    the opponent's, with the recorded reason; a level race's pages count tables reported (已报桌数)
    and name no set, and its report header names no decks."""
    event, boards = event_file(tmp_path, SEED_002)
    results = tmp_path / "round-1-2.csv"
    results.write_text(_csv(SEED_002_ROWS[:2]), encoding="utf-8")
    assert run_dealer("results", "import", event, results, "--boards-dir", boards).exit_code == 0
    code, _out, err = run_dealer("results", "forfeit", event, "--round", 2, "--match", 2, "--team", "T4",
                                 "--reason", "did not come", "--boards-dir", boards)
    assert code == 0, err
    site = tmp_path / "site"
    code, _out, err = run_dealer("site", event, "--no-pdf", "--out", site, "--boards-dir", boards)
    assert code == 0, err
    forfeited = (site / "match-2-2.html").read_text(encoding="utf-8")
    assert "T4 弃权" in forfeited and "弃权原因：did not come" in forfeited
    played = (site / "match-1-1.html").read_text(encoding="utf-8")
    assert "已报桌数 2/2" in played and "已计副数" not in played and "套" not in played
    pages = {team: (site / f"team-{team.lower()}.html").read_text(encoding="utf-8") for team in ("T2", "T4")}
    assert "对方弃权（胜） <span class=\"adj\">(did not come)</span>" in pages["T2"]
    assert "T4 弃权 <span class=\"adj\">(did not come)</span>" in pages["T4"]
    assert "对方弃权" not in pages["T4"]
    round_page = (site / "round-2.html").read_text(encoding="utf-8")
    assert "已报桌数" in round_page and "套" not in round_page and "T4 弃权" in round_page
    english = (site / "en" / "match-2-2.html").read_text(encoding="utf-8")
    assert "T4 forfeited" in english and "Forfeit: did not come" in english
    code, _out, err = run_dealer("report", event, "--format", "html", "--out", tmp_path / "rep",
                                 "--boards-dir", boards)
    assert code == 0, err
    report = (tmp_path / "rep" / "renmin-levels-results.html").read_text(encoding="utf-8")
    assert "decks" not in report and "T4 弃权 — did not come" in report


# --- seed 001's level race as the other tests' files drive it ------------------------------------


def seed_001_database(tmp_path: Path) -> Path:
    """The results database of seed 001's level race under ``tmp_path/boards``."""
    return tmp_path / "boards" / "four-deck-levels" / "results.sqlite"


def seed_001_race(tmp_path: Path, rows: list[tuple[str, ...]] | None = None) -> Path:
    """Seed 001's level race with ``rows`` imported (default: round 1 match 1, five tables); the
    event file (``tmp_path/four-deck-levels.toml``, its boards folder beside it)."""
    event, boards = event_file(tmp_path, SEED_001)
    rows = SEED_001_ROWS[:5] if rows is None else rows
    if rows:
        table = tmp_path / f"rows-{len(rows)}.csv"
        table.write_text(_csv(rows), encoding="utf-8")
        result = run_dealer("results", "import", event, table, "--boards-dir", boards)
        assert result.exit_code == 0, result.output
    return event


def test_past_a_is_written_past_a(tmp_path: Path) -> None:
    """`过` alone was taken as 过A; the docs name 过A and A+: it is refused, with those two."""
    event = seed_001_race(tmp_path, [])
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


def championship_file(tmp_path: Path, *events: Path) -> Path:
    path = tmp_path / "championship.toml"
    names = ", ".join(f'"{e.name}"' for e in events)
    path.write_text(f'[championship]\nname = "总成绩"\nevents = [{names}]\n', encoding="utf-8")
    return path


def test_the_championship_marks_an_unfinished_event_provisional(tmp_path: Path) -> None:
    """The level race after 2 of its 3 rounds was scored with final place points and nothing
    said: the table and the JSON now say the places are provisional, and why."""
    event = seed_001_race(tmp_path, SEED_001_ROWS[:20])  # rounds 1 and 2 (round 3's matches have no result)
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


def test_a_round_robin_with_rounds_still_to_pair_is_provisional(tmp_path: Path) -> None:
    """As a director meets it: the level-race demo (a round robin, rounds paired as it goes) after 2
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
