"""Registration (dealer init, teams import / list) and withdrawals (teams withdraw / rejoin),
through the command line as a director runs them: a seed-002 event of 12 teams registered from an
XLSX sheet with Chinese headers, every refusal naming row, column and value and writing nothing,
and a team withdrawn after round 2 that is not paired in round 3 while its results stay."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import Outcome, run_dealer
from registration_support import HEADER, init_event, sheet_rows, write_xlsx

from dealer.adjustments import Adjustments, Withdrawal
from dealer.event import Match, Round
from dealer.files import load_event_text
from dealer.levels import LevelColumns, score_levels
from dealer.standings import standings


def _ok(*args: object) -> Outcome:
    outcome = run_dealer(*args)
    assert outcome.exit_code == 0, outcome.output
    return outcome


def _report(event: Path, boards: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_ok("report", event, "--json", "--boards-dir", boards).stdout)
    return data


def test_a_seed_002_registration_xlsx_with_chinese_headers_sets_up_the_event(tmp_path: Path) -> None:
    event, boards = init_event(tmp_path, write_xlsx(tmp_path / "报名表.xlsx", sheet_rows()))
    text = event.read_text(encoding="utf-8")
    assert 'teams_file = "ruc.teams.toml"' in text and "# " in text  # commented, the teams beside it
    listed = json.loads(_ok("teams", "list", event, "--json", "--boards-dir", boards).stdout)["teams"]
    assert [t["id"] for t in listed] == [f"A{i:02d}" for i in range(1, 13)]
    first = listed[0]
    assert (first["name"], first["club"], first["leader"], first["players"], first["seed"], first["contact"],
            first["mixed_club"]) == ("东风队", "法学院", "领队1", ["选手1甲", "选手1乙", "选手1丙", "选手1丁"], 1,
                                     "13800000001", False)
    assert [t["id"] for t in listed if t["mixed_club"]] == ["A05", "A10"]
    shown = _ok("teams", "list", event, "--boards-dir", boards).stdout
    assert "A05 昆仑队: 选手5甲、选手5乙、选手5丙、选手5丁" in shown and "formed across clubs" in shown
    # The event file validates and runs as its kind needs: a level race pairs round 1.
    _ok("rules", "explain", "renmin-shuangsheng")
    paired = _ok("round", "pair", event, "--round", "1", "--boards-dir", boards).stdout
    assert "stored round 1: 6 match(es), 0 bye(s)" in paired
    # Importing the same sheet again changes nothing, also after the first pairing.
    again = _ok("teams", "import", event, tmp_path / "报名表.xlsx", "--boards-dir", boards).stdout
    assert "nothing changed" in again


def test_init_writes_a_boards_event_that_commits_and_refuses_to_overwrite(tmp_path: Path) -> None:
    event = tmp_path / "city.toml"
    boards = str(tmp_path / "boards")
    Path(boards).mkdir(exist_ok=True)  # a given --boards-dir must exist (a mistyped one is refused)
    csv = tmp_path / "teams.csv"
    csv.write_text("id,name,club,players\nBJ,北京队,北京,张伟、王芳、李娜、刘洋\nSH,上海队,上海,陈静;杨磊;赵敏;黄勇\n"
                   "TJ,天津队,天津,周杰/吴刚/郑爽/孙丽\nCQ,重庆队,重庆,\n", encoding="gbk")
    _ok("init", event, "--profile", "official-2002", "--format", "round-robin", "--teams", csv,
        "--boards-dir", boards)
    _ok("commit", event, "--boards-dir", boards)
    listed = json.loads(_ok("teams", "list", event, "--json", "--boards-dir", boards).stdout)["teams"]
    assert listed[1]["players"] == ["陈静", "杨磊", "赵敏", "黄勇"] and listed[3]["players"] == []
    before = event.read_bytes()
    refused = run_dealer("init", event, "--profile", "official-2002", "--boards-dir", boards)
    assert refused.exit_code == 2 and "already there" in refused.stderr
    assert event.read_bytes() == before


def _bad(rows: list[list[Any]], row: int, value: str, header: list[str] = HEADER) -> tuple[list[list[Any]], int, str,
                                                                                        list[str]]:
    return rows, row, value, header


#: The sheet with an ID column (证件号): team i's players have IDs 11000i01 … 11000i04.
ID_HEADER = [*HEADER, "证件号"]


def with_ids(rows: list[list[Any]]) -> list[list[Any]]:
    return [[*row, "、".join(f"11{i:04d}{n:02d}" for n in range(1, 5))] for i, row in enumerate(rows, start=1)]


def _same_person_on_two_teams() -> list[list[Any]]:
    rows = with_ids(sheet_rows())
    rows[6][8] = "11000701、11000302、11000703、11000704"  # the ID of A03's 选手3乙 (row 4) on A07
    return rows


def _ids_miscounted() -> list[list[Any]]:
    rows = with_ids(sheet_rows())
    rows[2][8] = "11000301、11000302"
    return rows


def _same_id() -> list[list[Any]]:
    rows = sheet_rows()
    rows[9][0] = "A02"
    return rows


def _same_name() -> list[list[Any]]:
    rows = sheet_rows()
    rows[11][1] = "长城队"
    return rows


def _no_flag() -> list[list[Any]]:
    rows = sheet_rows()
    rows[4][7] = ""
    return rows


@pytest.mark.parametrize(("rows", "expected"), [
    (_same_person_on_two_teams(), ['row 8, column I "证件号"', "'11000302'",
                                   "the same player (same ID) registered on two teams", "team A03 (row 4)"]),
    (_ids_miscounted(), ['row 4, column I "证件号"', "2 ID(s) for 4 player(s)"]),
    (_same_id(), ['row 11, column A "队号"', "'A02'", "id used twice: also row 3"]),
    (_same_name(), ['row 13, column B "队名"', "'长城队'", "name used twice: also row 3"]),
    (_no_flag(), ['row 6, column H "跨分会"', "no mixed_club: profile renmin-shuangsheng requires it"]),
    ([r[:7] for r in sheet_rows()], ["required column mixed_club (跨分会) is missing",
                                "profile renmin-shuangsheng requires it"]),
])
def test_a_refused_sheet_names_row_column_and_value_and_writes_nothing(
        tmp_path: Path, rows: list[list[Any]], expected: list[str]) -> None:
    header = ID_HEADER if len(rows[0]) == len(ID_HEADER) else HEADER if len(rows[0]) == len(HEADER) else HEADER[:7]
    event, boards = init_event(tmp_path)
    teams = tmp_path / "ruc.teams.toml"
    refused = run_dealer("teams", "import", event, write_xlsx(tmp_path / "bad.xlsx", rows, header),
                         "--boards-dir", boards)
    assert refused.exit_code == 2, refused.output
    assert "bad.xlsx" in refused.stderr
    for text in expected:
        assert text in refused.stderr, refused.stderr
    assert not teams.exists()  # nothing half-written
    # With a registration in place, a refused sheet leaves it byte for byte.
    _ok("teams", "import", event, write_xlsx(tmp_path / "good.xlsx", sheet_rows(11)), "--boards-dir", boards)
    before = teams.read_bytes()
    assert run_dealer("teams", "import", event, tmp_path / "bad.xlsx", "--boards-dir", boards).exit_code == 2
    assert teams.read_bytes() == before


def test_namesakes_on_two_teams_are_two_players_told_apart_by_their_team(tmp_path: Path) -> None:
    """Issue 38 (live event review §13): 张伟 on two teams is accepted, in one sheet and in a late
    entry; the same person (the same 证件号) on another team is refused, in the sheet and against
    the registration; line-ups and warnings name a player within the team."""
    rows = with_ids(sheet_rows(10))
    rows[0][4] = "张伟、选手1乙、选手1丙、选手1丁"
    rows[1][4] = "张伟、选手2乙、选手2丙、选手2丁"
    event, boards = init_event(tmp_path, write_xlsx(tmp_path / "a.xlsx", rows, ID_HEADER))
    listed = json.loads(_ok("teams", "list", event, "--json", "--boards-dir", boards).stdout)["teams"]
    assert [t["players"][0] for t in listed[:2]] == ["张伟", "张伟"]
    assert listed[0]["player_ids"] == ["11000101", "11000102", "11000103", "11000104"]
    # A late entry: a third 张伟 (another ID) is accepted; A02's 张伟 (his ID) on a new team is not.
    late = [[*sheet_rows(11)[10], "张伟、丙、丁、戊"]]
    late[0][4] = "张伟、乙、丙、丁"
    late[0][8] = "99000001、99000002、99000003、99000004"
    _ok("teams", "import", event, write_xlsx(tmp_path / "late.xlsx", late, ID_HEADER), "--boards-dir", boards)
    twelfth = [[*sheet_rows(12)[11], "11000201、99000012、99000013、99000014"]]
    twelfth[0][4] = "张伟、己、庚、辛"
    refused = run_dealer("teams", "import", event, write_xlsx(tmp_path / "dup.xlsx", twelfth, ID_HEADER),
                         "--boards-dir", boards)
    assert refused.exit_code == 2, refused.output
    assert 'row 2, column I "证件号"' in refused.stderr and "'11000201'" in refused.stderr
    assert "the player with this ID is already registered on team A02" in refused.stderr
    # Each 张伟 plays for his own team.
    _ok("round", "pair", event, "--round", "1", "--boards-dir", boards)
    _ok("lineup", event, "--round", 1, "--team", "A01", "--table", 1, "张伟,选手1乙", "--table", 2, "选手1丙,选手1丁",
        "--boards-dir", boards)
    _ok("lineup", event, "--round", 1, "--team", "A02", "--table", 1, "张伟,选手2乙", "--table", 2, "选手2丙,选手2丁",
        "--boards-dir", boards)
    shown = json.loads(_ok("lineup", event, "--round", 1, "--json", "--boards-dir", boards).stdout)
    assert "张伟" in json.dumps(shown, ensure_ascii=False)


def test_a_row_that_says_otherwise_than_the_registration_is_refused_by_name(tmp_path: Path) -> None:
    event, boards = init_event(tmp_path, write_xlsx(tmp_path / "a.xlsx", sheet_rows(10)))
    changed = sheet_rows(10)
    changed[1][3] = "别人"
    refused = run_dealer("teams", "import", event, write_xlsx(tmp_path / "b.xlsx", changed), "--boards-dir", boards)
    assert refused.exit_code == 2
    assert 'row 3, column D "领队"' in refused.stderr and "team 'A02' is registered with leader '领队2'" \
        in refused.stderr and "--replace" in refused.stderr
    _ok("teams", "import", event, tmp_path / "b.xlsx", "--replace", "--boards-dir", boards)
    listed = json.loads(_ok("teams", "list", event, "--json", "--boards-dir", boards).stdout)["teams"]
    assert listed[1]["leader"] == "别人"


def test_late_entries_are_accepted_before_the_first_pairing_and_refused_after_it(tmp_path: Path) -> None:
    event, boards = init_event(tmp_path, write_xlsx(tmp_path / "first.xlsx", sheet_rows(10)))
    late = _ok("teams", "import", event, write_xlsx(tmp_path / "late.xlsx", sheet_rows(12)[10:]),
               "--boards-dir", boards)
    assert "registered 2 team(s) (A11, A12)" in late.stdout and "12 team(s)" in late.stdout
    _ok("round", "pair", event, "--round", "1", "--boards-dir", boards)
    teams = (tmp_path / "ruc.teams.toml").read_bytes()
    extra = [["A13", "雪山队", "法学院", "领队13", "甲、乙、丙、丁", None, "", "否"]]
    refused = run_dealer("teams", "import", event, write_xlsx(tmp_path / "later.xlsx", extra), "--boards-dir", boards)
    assert refused.exit_code == 2
    assert "late entry refused (A13): round 1 was paired" in refused.stderr
    assert (tmp_path / "ruc.teams.toml").read_bytes() == teams


def _enter_round(tmp_path: Path, event: Path, boards: str, number: int) -> list[dict[str, Any]]:
    """Every match of round ``number``: the home side climbs to 5 at table 1 and 3 at table 2
    against 2 and 2 (it wins by 4 levels), except match 1, a draw (4:4 and 2:2)."""
    matches: list[dict[str, Any]] = json.loads(_ok("round", "show", event, "--round", number, "--json",
                                                   "--boards-dir", boards).stdout)["matches"]
    rows = ["round,match,table,home_level,away_level"]
    for m in matches:
        if m["match"] == "1":
            rows += [f"{number},1,1,4,4", f"{number},1,2,2,2"]
        else:
            rows += [f"{number},{m['match']},1,5,2", f"{number},{m['match']},2,3,2"]
    csv = tmp_path / f"r{number}.csv"
    csv.write_text("\n".join(rows) + "\n", encoding="utf-8")
    _ok("results", "import", event, csv, "--boards-dir", boards)
    return matches


def test_a_team_withdrawn_after_round_2_is_not_paired_in_round_3_and_keeps_its_results(tmp_path: Path) -> None:
    event, boards = init_event(tmp_path, write_xlsx(tmp_path / "报名表.xlsx", sheet_rows()))
    played: dict[int, list[dict[str, Any]]] = {}
    for number in (1, 2):
        _ok("round", "pair", event, "--round", number, "--boards-dir", boards)
        played[number] = _enter_round(tmp_path, event, boards, number)
    before = {s["team"]: s for s in _report(event, boards)["standings"]}
    # Withdrawing after round 1 is refused: round 2 is paired.
    early = run_dealer("teams", "withdraw", event, "A07", "--after-round", "1", "--reason", "走了",
                       "--boards-dir", boards)
    assert early.exit_code == 2 and "round 2 is already paired" in early.stderr
    said = _ok("teams", "withdraw", event, "A07", "--after-round", "2", "--reason", "全队返校",
               "--boards-dir", boards).stdout
    assert "not paired from round 3" in said and "its played results stay" in said
    assert "counts the match points it earned before it left (profile renmin-shuangsheng)" in said
    again = run_dealer("teams", "withdraw", event, "A07", "--after-round", "2", "--reason", "x",
                       "--boards-dir", boards)
    assert again.exit_code == 2 and "already withdrawn" in again.stderr
    third = _ok("round", "pair", event, "--round", "3", "--boards-dir", boards).stdout
    assert "stored round 3: 5 match(es), 1 bye(s)" in third
    round_3 = json.loads(_ok("round", "show", event, "--round", "3", "--json", "--boards-dir", boards).stdout)
    assert all("A07" not in (m["home"], m["away"]) for m in round_3["matches"])
    assert "A07" not in round_3["byes"]
    played[3] = _enter_round(tmp_path, event, boards, 3)
    report = _report(event, boards)
    after = {s["team"]: s for s in report["standings"]}
    # Its played results stay: what it had after round 2, by hand from its two matches.
    a07 = after["A07"]
    assert (a07["played"], a07["match_points"], a07["level_points_for"], a07["level_points_against"]) == \
        (before["A07"]["played"], before["A07"]["match_points"], before["A07"]["level_points_for"],
         before["A07"]["level_points_against"])
    mine = [(m, n) for n, ms in played.items() for m in ms if "A07" in (m["home"], m["away"])]
    assert a07["played"] == len(mine) == 2
    by_hand = sum(1 if m["match"] == "1" else (2 if m["home"] == "A07" else 0) for m, _n in mine)
    assert a07["match_points"] == by_hand
    # Every team's 场分 and 对手分 by hand from the three rounds (a draw 1 each, a win 2, the
    # round-3 bye a win): A07's opponents count A07's points as played (the profile's rule).
    points = dict.fromkeys(after, 0)
    met: dict[str, list[str]] = {team: [] for team in after}
    for matches in played.values():
        for m in matches:
            home, away = m["home"], m["away"]
            points[home] += 1 if m["match"] == "1" else 2
            points[away] += 1 if m["match"] == "1" else 0
            met[home].append(away)
            met[away].append(home)
    for team in round_3["byes"]:
        points[team] += 2
    for team, line in after.items():
        assert line["match_points"] == points[team], team
        assert line["tie_breaks"]["opponents_match_points"] == sum(points[o] for o in met[team]), team
    assert report["withdrawn_opponents"] == "as-played"
    assert {"round": 2, "team": "A07", "kind": "withdrawal", "back_from": None, "reason": "全队返校",
            "back_reason": ""} in report["adjustments"]
    listed = json.loads(_ok("teams", "list", event, "--json", "--boards-dir", boards).stdout)["teams"]
    assert [t["id"] for t in listed if t["withdrawn"]] == ["A07"]
    # Shown on the reports (footnote) and audited like any action.
    out = tmp_path / "reports"
    _ok("report", event, "--format", "csv", "--lang", "en", "--out", out, "--boards-dir", boards)
    notes = (out / "adjustments.csv").read_text(encoding="utf-8-sig")
    assert "A07 withdrew after R2: not paired since, played results kept" in notes and "全队返校" in notes
    _ok("results", "audit", event, "--boards-dir", boards)
    # The players' site lists it with the forfeits; no contact detail reaches a public page.
    site = tmp_path / "site"
    _ok("site", event, "--no-pdf", "--out", site, "--boards-dir", boards)
    page = (site / "en" / "standings.html").read_text(encoding="utf-8")
    assert "<li>A07: withdrew after round 2, not paired since — 全队返校</li>" in page
    assert not [p for p in site.rglob("*") if p.is_file() and b"1380000" in p.read_bytes()]


def test_a_withdrawn_team_rejoins_from_a_round_not_yet_paired(tmp_path: Path) -> None:
    event, boards = init_event(tmp_path, write_xlsx(tmp_path / "报名表.xlsx", sheet_rows()))
    _ok("teams", "withdraw", event, "A12", "--after-round", "0", "--reason", "未到", "--boards-dir", boards)
    first = _ok("round", "pair", event, "--round", "1", "--boards-dir", boards).stdout
    assert "stored round 1: 5 match(es), 1 bye(s)" in first and "A12" not in first
    refused = run_dealer("teams", "rejoin", event, "A12", "--from-round", "1", "--reason", "到了",
                         "--boards-dir", boards)
    assert refused.exit_code == 2 and "from round 2 to 5" in refused.stderr
    _ok("teams", "rejoin", event, "A12", "--from-round", "2", "--reason", "到了", "--boards-dir", boards)
    _enter_round(tmp_path, event, boards, 1)
    second = _ok("round", "pair", event, "--round", "2", "--boards-dir", boards).stdout
    assert "stored round 2: 6 match(es), 0 bye(s)" in second and second.count("A12") == 1


def test_a_knockout_takes_no_withdrawal(tmp_path: Path) -> None:
    event = tmp_path / "cup.toml"
    boards = str(tmp_path / "boards")
    Path(boards).mkdir(exist_ok=True)  # a given --boards-dir must exist (a mistyped one is refused)
    _ok("init", event, "--profile", "renmin-shuangsheng", "--format", "knockout", "--result", "levels",
        "--teams", write_xlsx(tmp_path / "t.xlsx", sheet_rows(4)), "--boards-dir", boards)
    refused = run_dealer("teams", "withdraw", event, "A01", "--after-round", "0", "--reason", "x",
                         "--boards-dir", boards)
    assert refused.exit_code == 2 and "dealer results forfeit" in refused.stderr


ROBIN = """
[event]
id = "robin"
name = "Robin"
profile = "renmin-shuangsheng"
result = "levels"
tables = 2
[format]
kind = "round-robin"
""" + "".join(f'[[teams]]\nid = "T{i}"\nname = "Team {i}"\nmixed_club = false\n' for i in range(1, 5))


def test_a_round_robin_keeps_its_table_and_a_withdrawn_teams_opponent_has_a_bye(tmp_path: Path) -> None:
    event = tmp_path / "robin.toml"
    event.write_text(ROBIN, encoding="utf-8")
    boards = str(tmp_path / "boards")
    (tmp_path / "boards").mkdir()
    _ok("round", "pair", event, "--round", "1", "--boards-dir", boards)
    _enter_round(tmp_path, event, boards, 1)
    _ok("teams", "withdraw", event, "T4", "--after-round", "1", "--reason", "left", "--boards-dir", boards)
    _ok("round", "pair", event, "--round", "2", "--boards-dir", boards)
    second = json.loads(_ok("round", "show", event, "--round", "2", "--json", "--boards-dir", boards).stdout)
    assert len(second["matches"]) == 1 and "T4" not in second["byes"] and len(second["byes"]) == 1
    assert "T4" not in (second["matches"][0]["home"], second["matches"][0]["away"])


def test_the_excluded_rule_leaves_a_withdrawn_opponent_out_of_opponents_match_points() -> None:
    """A profile whose ``withdrawal.opponents_match_points`` is ``excluded``: A's 对手分 leave out
    B, which beat C and then withdrew; as played, they count B's 2."""
    event = dataclasses.replace(load_event_text(ROBIN, "rule.toml"), rounds=(
        Round(1, (Match(1, "1", "T1", "T2", 1, 1), Match(1, "2", "T3", "T4", 1, 2))),))
    rows = [(1, "1", 1, "4", "2", None), (1, "1", 2, "3", "2", None),   # T1 beats T2
            (1, "2", 1, "2", "5", None), (1, "2", 2, "2", "3", None)]   # T4 beats T3
    gone = Adjustments(withdrawals=(Withdrawal("T4", 1, "left"),))
    as_played = {s.team: s for s in standings(score_levels(event, LevelColumns.from_rows(rows), gone))}
    assert as_played["T3"].tie_values["opponents_match_points"] == 2
    excluded = dataclasses.replace(event, profile=dataclasses.replace(event.profile, withdrawn_opponent="excluded"))
    left_out = {s.team: s for s in standings(score_levels(excluded, LevelColumns.from_rows(rows), gone))}
    assert left_out["T3"].tie_values["opponents_match_points"] == 0
    assert left_out["T2"].tie_values["opponents_match_points"] == 2  # T1 is not withdrawn


def test_an_event_file_listing_its_teams_is_never_rewritten_by_an_import(tmp_path: Path) -> None:
    event = tmp_path / "robin.toml"
    event.write_text(ROBIN, encoding="utf-8")
    boards = str(tmp_path / "boards")
    Path(boards).mkdir(exist_ok=True)  # a given --boards-dir must exist (a mistyped one is refused)
    refused = run_dealer("teams", "import", event, write_xlsx(tmp_path / "t.xlsx", sheet_rows(4)),
                         "--boards-dir", boards)
    assert refused.exit_code == 2 and 'names no teams_file: add the line teams_file = "teams.toml" under [event]' \
        in refused.stderr
    assert event.read_text(encoding="utf-8") == ROBIN
    both = ROBIN.replace('tables = 2\n', 'tables = 2\nteams_file = "robin.teams.toml"\n')
    event.write_text(both, encoding="utf-8")
    twice = run_dealer("teams", "list", event, "--boards-dir", boards)
    assert twice.exit_code == 2 and "lists [[teams]] and names a teams_file" in twice.stderr


SCHEMA_7_ACTIONS = """
    CREATE TABLE actions (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('pair', 'undo', 'forfeit', 'late', 'end')),
        round INTEGER NOT NULL CHECK (round >= 1),
        data TEXT NOT NULL,
        reason TEXT,
        undoes INTEGER REFERENCES actions (id),
        entered_by TEXT,
        at TEXT NOT NULL,
        seq INTEGER,
        chain TEXT,
        CHECK ((kind = 'undo') = (undoes IS NOT NULL)),
        CHECK (kind != 'end' OR length(trim(coalesce(reason, ''))) > 0)
    )"""


def test_a_schema_7_database_is_upgraded_and_then_takes_a_withdrawal(tmp_path: Path) -> None:
    """A database whose actions table predates withdrawals (schema 7): the next command upgrades
    it (migration 8), every row and link kept, and the withdrawal is stored and audited."""
    import sqlite3

    from dealer.store.migrations import SCHEMA_VERSION
    from dealer.store.schema import TRIGGERS

    event, boards = init_event(tmp_path, write_xlsx(tmp_path / "报名表.xlsx", sheet_rows()))
    _ok("round", "pair", event, "--round", "1", "--boards-dir", boards)
    path = tmp_path / "boards" / "ruc" / "results.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN")
        conn.execute("ALTER TABLE actions RENAME TO old_actions")
        conn.execute(SCHEMA_7_ACTIONS)
        conn.execute("INSERT INTO actions SELECT * FROM old_actions")
        conn.execute("DROP TABLE old_actions")
        conn.execute("CREATE UNIQUE INDEX actions_seq ON actions (seq)")
        conn.execute("CREATE UNIQUE INDEX actions_undoes ON actions (undoes)")
        for name, sql in TRIGGERS.items():
            if name.startswith("actions_"):
                conn.execute(sql)
        conn.execute("PRAGMA user_version = 7")
        conn.execute("COMMIT")
        old = conn.execute("SELECT * FROM actions ORDER BY id").fetchall()
    finally:
        conn.close()
    _ok("teams", "withdraw", event, "A03", "--after-round", "1", "--reason", "生病", "--boards-dir", boards)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        rows = conn.execute("SELECT * FROM actions ORDER BY id").fetchall()
    finally:
        conn.close()
    assert rows[:len(old)] == old and [r[1] for r in rows[len(old):]] == ["withdraw"]
    _ok("results", "audit", event, "--boards-dir", boards)


def test_an_events_own_rules_can_leave_a_withdrawn_team_out_of_opponents_match_points(tmp_path: Path) -> None:
    """补充规定: ``[rules] withdrawal = { opponents_match_points = "excluded" }`` over the profile's
    ``as-played``, stated by ``rules explain EVENT.toml`` and applied to the standings."""
    event = tmp_path / "robin.toml"
    event.write_text(ROBIN + '[rules]\nwithdrawal = { opponents_match_points = "excluded" }\n', encoding="utf-8")
    boards = str(tmp_path / "boards")
    (tmp_path / "boards").mkdir()
    explained = _ok("rules", "explain", event, "--lang", "en").stdout
    assert "its opponents' opponent score leaves it out" in explained
    _ok("round", "pair", event, "--round", "1", "--boards-dir", boards)
    matches = _enter_round(tmp_path, event, boards, 1)
    said = _ok("teams", "withdraw", event, "T4", "--after-round", "1", "--reason", "left", "--boards-dir", boards)
    assert "its opponents' opponent score leaves it out" in said.stdout
    opponent = next(m["away"] if m["home"] == "T4" else m["home"] for m in matches if "T4" in (m["home"], m["away"]))
    standings = {s["team"]: s for s in _report(event, boards)["standings"]}
    assert standings["T4"]["match_points"] > 0  # it earned points, which its opponent does not count
    assert standings[opponent]["tie_breaks"]["opponents_match_points"] == 0


def test_a_late_entry_is_refused_from_any_directory_once_round_1_is_paired(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The registration finds the event's folder from the event file, as every command does: run
    from another directory, with no --boards-dir, it still sees round 1 paired."""
    event, boards = init_event(tmp_path, write_xlsx(tmp_path / "first.xlsx", sheet_rows(10)))
    _ok("round", "pair", event, "--round", "1", "--boards-dir", boards)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    extra = [["A13", "雪山队", "法学院", "领队13", "甲、乙、丙、丁", None, "", "否"]]
    refused = run_dealer("teams", "import", event, write_xlsx(tmp_path / "later.xlsx", extra))
    assert refused.exit_code == 2 and "late entry refused (A13): round 1 was paired" in refused.stderr, refused.output
    listed = json.loads(_ok("teams", "list", event, "--json").stdout)["teams"]
    assert len(listed) == 10 and not (elsewhere / "boards").exists()
