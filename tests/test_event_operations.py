"""Issue 22's first "done when", end to end through the command line: a seed-002 event
(renmin-shuangsheng, a level race of two tables a match, Swiss) of 12 teams set up with ``dealer
init --teams`` from a registration XLSX with Chinese headers, run for 3 rounds with every team's
line-up recorded every round, the level results imported as CSV, one player's second warning
escalated by the tool to 判本盘负 + 罚一级, one 小分 deduction, one withdrawal after round 2, and
the final standings (场分, 小分, 对手分 and the order) worked out by hand from the entered data;
the audit passes, and names a penalty row tampered with in the SQLite file."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from conftest import run_dealer
from registration_support import init_event, sheet_rows, write_xlsx

from dealer.store import schema

# Each round's pairing as the tool makes it (round 1: 拼音 order of the team names, seed 002;
# then Swiss by the standings), and what each match's two tables ended on: (home, away) →
# (table 1 home level, table 1 away level, table 2 home, table 2 away). Every side starts at 2,
# so a level climbed is the level less 2 (J 9, Q 10, K 11, A 12); a match is won on the net
# levels over both tables (win 2, draw 1, loss 0).
ROUNDS: dict[int, dict[tuple[str, str], tuple[str, str, str, str]]] = {
    1: {
        ("A07", "A08"): ("6", "4", "5", "3"),    # 4:2, 3:1 → 7:3, A07 wins
        ("A02", "A09"): ("8", "5", "4", "4"),    # 6:3, 2:2 → 8:5, A02 wins
        ("A01", "A11"): ("3", "7", "6", "6"),    # 1:5, 4:4 → 5:9, A11 wins
        ("A03", "A10"): ("5", "5", "7", "7"),    # 3:3, 5:5 → 8:8, a draw
        ("A05", "A04"): ("9", "6", "3", "5"),    # 7:4, 1:3 → 8:7, A05 wins
        ("A12", "A06"): ("4", "10", "J", "5"),   # 2:8, 9:3 → 11:11, a draw
    },
    2: {
        ("A11", "A07"): ("A", "5", "3", "6"),    # 12:3, 1:4 → 13:7, A11 wins
        ("A02", "A05"): ("7", "7", "4", "9"),    # 5:5, 2:7 → 7:12, A05 wins
        ("A10", "A12"): ("Q", "8", "5", "5"),    # 10:6, 3:3 → 13:9, A10 wins
        # 4:5, 6:5 → 10:10 as played; 选手3甲's second warning takes a level off A03 at table 1
        # (4:4): 10:9, A06 wins.
        ("A06", "A03"): ("6", "7", "8", "7"),
        ("A04", "A09"): ("10", "6", "2", "3"),   # 8:4, 0:1 → 8:5, A04 wins
        ("A08", "A01"): ("5", "5", "6", "6"),    # 3:3, 4:4 → 7:7, a draw
    },
    3: {  # A12 withdrew after round 2; A09 has the bye (a win, no levels)
        ("A05", "A11"): ("9", "8", "4", "5"),    # 7:6, 2:3 → 9:9, a draw
        ("A10", "A06"): ("7", "9", "6", "6"),    # 5:7, 4:4 → 9:11, A06 wins
        ("A07", "A04"): ("8", "5", "3", "3"),    # 6:3, 1:1 → 7:4, A07 wins
        ("A01", "A02"): ("4", "6", "5", "5"),    # 2:4, 3:3 → 5:7, A02 wins
        ("A03", "A08"): ("6", "4", "3", "3"),    # 4:2, 1:1 → 5:3, A03 wins
    },
}
BYES = {1: [], 2: [], 3: ["A09"]}
# Who of a team's four registered players (选手N甲 … 选手N丁) sits at table 1 and at table 2.
SPLITS = {1: ("甲乙", "丙丁"), 2: ("甲丙", "乙丁"), 3: ("甲丁", "乙丙")}

# By hand, from ROUNDS (for : against is a team's levels climbed over its tables, R1 + R2 + R3).
#   A11  W W D  2+2+1 = 5   9:5 + 13:7 + 9:9 = 31:21, 小分 +10   对手 A01 1 + A07 4 + A05 5 = 10
#   A05  W W D  5           8:7 + 12:7 + 9:9 = 29:23, +6         A04 2 + A02 4 + A11 5 = 11
#   A06  D W W  5           11:11 + 10:9 + 11:9 = 32:29, +3      A12 1 + A03 3 + A10 3 = 7
#   A02  W L W  4           8:5 + 7:12 + 7:5 = 22:22, 0          A09 2 + A05 5 + A01 1 = 8
#   A07  W L W  4           7:3 + 7:13 + 7:4 = 21:20, +1, −2 (the 小分 deduction) = −1
#                                                                A08 1 + A11 5 + A04 2 = 8
#   A10  D W L  3           8:8 + 13:9 + 9:11 = 30:28, +2        A03 3 + A12 1 + A06 5 = 9
#   A03  D L W  3           8:8 + 9:10 + 5:3 = 22:21, +1         A10 3 + A06 5 + A08 1 = 9
#   A04  L W L  2           7:8 + 8:5 + 4:7 = 19:20, −1          A05 5 + A09 2 + A07 4 = 11
#   A09  L L bye 0+0+2 = 2  5:8 + 5:8 + 0:0 = 10:16, −6          A02 4 + A04 2 (the bye: none) = 6
#   A12  D L —  1           11:11 + 9:13 = 20:24, −4             A06 5 + A10 3 = 8
#   A01  L D L  1           5:9 + 7:7 + 5:7 = 17:23, −6          A11 5 + A08 1 + A02 4 = 10
#   A08  L D L  1           3:7 + 7:7 + 3:5 = 13:19, −6          A07 4 + A01 1 + A03 3 = 8
# The order: 场分, then 小分, then 对手分 (the profile's chain). On 5: A11 10, A05 6, A06 3. On
# 4: A02 0 above A07 −1 (without the deduction A07's +1 would put it first). On 3: A10 2, A03
# 1. On 2: A04 −1, A09 −6. On 1: A12 −4; A01 and A08 both −6, 对手分 A01 10 above A08 8.
# A12's opponents count the match point it earned before it left (the profile's "as-played").
EXPECTED = [  # team, 场分, levels for, levels against, 小分, adjustment, 对手分
    ("A11", 5, 31, 21, 10, 0, 10),
    ("A05", 5, 29, 23, 6, 0, 11),
    ("A06", 5, 32, 29, 3, 0, 7),
    ("A02", 4, 22, 22, 0, 0, 8),
    ("A07", 4, 21, 20, -1, -2, 8),
    ("A10", 3, 30, 28, 2, 0, 9),
    ("A03", 3, 22, 21, 1, 0, 9),
    ("A04", 2, 19, 20, -1, 0, 11),
    ("A09", 2, 10, 16, -6, 0, 6),
    ("A12", 1, 20, 24, -4, 0, 8),
    ("A01", 1, 17, 23, -6, 0, 10),
    ("A08", 1, 13, 19, -6, 0, 8),
]


def _ok(*args: object) -> str:
    code, out, err = run_dealer(*args)
    assert code == 0, out + err
    return out


def _show(event: Path, boards: str, number: int) -> dict[str, Any]:
    shown: dict[str, Any] = json.loads(_ok("round", "show", event, "--round", number, "--json",
                                           "--boards-dir", boards))
    return shown


def _report(event: Path, boards: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_ok("report", event, "--json", "--boards-dir", boards))
    return data


def _lineups(event: Path, boards: str, number: int, teams: list[str]) -> None:
    first, second = SPLITS[number]
    for team in teams:
        n = int(team[1:])
        out = _ok("lineup", event, "--round", number, "--team", team,
                  "--table", "1", ",".join(f"选手{n}{c}" for c in first),
                  "--table", "2", ",".join(f"选手{n}{c}" for c in second), "--boards-dir", boards)
        assert f"line-up of {team} recorded" in out, out


def _import(tmp_path: Path, event: Path, boards: str, number: int, matches: list[dict[str, Any]]) -> None:
    """Round ``number``'s results as a CSV with Chinese headers, each match's row found by its pair."""
    rows = ["轮次,场次,桌,主队级数,客队级数"]
    for m in matches:
        t1_home, t1_away, t2_home, t2_away = ROUNDS[number][(m["home"], m["away"])]
        rows += [f"{number},{m['match']},1,{t1_home},{t1_away}", f"{number},{m['match']},2,{t2_home},{t2_away}"]
    path = tmp_path / f"round-{number}.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert f"imported {2 * len(matches)} row(s)" in _ok("results", "import", event, path, "--boards-dir", boards)


def _play(tmp_path: Path, event: Path, boards: str, number: int, between: Any = None) -> None:
    """Pair round ``number`` (as ROUNDS has it), record every playing team's line-up, call
    ``between`` (the director's rulings before the slips come back), import the results."""
    said = _ok("round", "pair", event, "--round", number, "--boards-dir", boards)
    assert f"stored round {number}: {len(ROUNDS[number])} match(es), {len(BYES[number])} bye(s)" in said
    shown = _show(event, boards, number)
    assert [(m["home"], m["away"]) for m in shown["matches"]] == list(ROUNDS[number])
    assert shown["byes"] == BYES[number]
    _lineups(event, boards, number, [t for m in shown["matches"] for t in (m["home"], m["away"])])
    if between is not None:
        between()
    _import(tmp_path, event, boards, number, shown["matches"])


def _standings(event: Path, boards: str) -> list[tuple[Any, ...]]:
    return [(s["team"], s["match_points"], s["level_points_for"], s["level_points_against"], s["net_level_points"],
             s["adjustment"], s["tie_breaks"]["opponents_match_points"]) for s in _report(event, boards)["standings"]]


def test_a_seed_002_swiss_of_12_teams_run_for_3_rounds_with_every_operation(tmp_path: Path) -> None:
    event, boards = init_event(tmp_path, write_xlsx(tmp_path / "报名表.xlsx", sheet_rows()), "--format", "swiss")
    listed = json.loads(_ok("teams", "list", event, "--json", "--boards-dir", boards))["teams"]
    assert len(listed) == 12 and listed[2]["players"] == ["选手3甲", "选手3乙", "选手3丙", "选手3丁"]
    warn = ("results", "warn", event, "--team", "A03", "--player", "选手3甲", "--by", "裁判长", "--boards-dir", boards)

    # Round 1: 选手3甲 (A03, at table 1 with 选手3乙) is warned: §六, 违例者第一次给予警告.
    def first_warning() -> None:
        out = _ok(*warn, "--round", 1, "--reason", "自言自语评论牌力")
        assert "warning no. 1 of player 选手3甲 (A03)" in out and "nothing else applied" in out

    _play(tmp_path, event, boards, 1, first_warning)

    # Round 2: 选手3甲 again (now at table 1 with 选手3丙): 第二次判本盘负并罚一级, applied by the
    # tool at the table the line-up puts the player, and named in its message.
    def second_warning() -> None:
        out = _ok(*warn, "--round", 2, "--reason", "拨弄已出过的牌")
        assert out.strip() == (
            "warning #2 recorded in round 2: warning no. 2 of player 选手3甲 (A03) — 拨弄已出过的牌. Profile "
            "renmin-shuangsheng, warning no. 2: applied board lost (判本盘负) at table 1; -1 level(s) after the "
            "conversion at table 1")

    _play(tmp_path, event, boards, 2, second_warning)
    matches = {(m["round"], m["home"]): m for m in _report(event, boards)["matches"]}
    penalized = matches[(2, "A06")]  # 10:9 after the level off A03 (10:10 as played)
    assert (penalized["home_level_points"], penalized["away_level_points"]) == (10, 9)
    assert (penalized["home_match_points"], penalized["away_match_points"]) == (2, 0)

    # A12 withdraws after round 2: not paired in round 3 (11 teams: 5 matches and a bye).
    said = _ok("teams", "withdraw", event, "A12", "--after-round", 2, "--reason", "全队返校", "--boards-dir", boards)
    assert "not paired from round 3" in said and "its played results stay" in said

    # Round 3, and a 小分 deduction for A07 (a director's ruling: two levels off its 小分).
    def deduction() -> None:
        out = _ok("results", "penalty", event, "--round", 3, "--team", "A07", "--net-levels", -2, "--reason",
                  "记分表未按时交回", "--by", "裁判长", "--boards-dir", boards)
        assert out.startswith("penalty #5 recorded: R3 M3: A07"), out

    _play(tmp_path, event, boards, 3, deduction)
    for team in ("A12", "A09"):  # the withdrawn team and the bye have no match to line up for
        n = int(team[1:])
        code, _out, err = run_dealer("lineup", event, "--round", 3, "--team", team, "--table", "1",
                                     f"选手{n}甲,选手{n}乙", "--table", "2", f"选手{n}丙,选手{n}丁",
                                     "--boards-dir", boards)
        assert code == 2 and f"team '{team}' has no match in round 3" in err, err

    # The final standings, as worked out by hand above.
    assert _standings(event, boards) == EXPECTED
    data = _report(event, boards)
    assert len(data["lineups"]) == 12 + 12 + 10
    assert {(x["round"], x["team"]): x["tables"] for x in data["lineups"]}[(2, "A03")] == [
        {"table": "1", "players": ["选手3甲", "选手3丙"]}, {"table": "2", "players": ["选手3乙", "选手3丁"]}]
    # Every ruling is footnoted: the warning's two steps (naming it), the deduction, the withdrawal.
    notes = [(a["round"], a["team"], a["kind"], a.get("penalty"), a.get("warning")) for a in data["adjustments"]]
    assert notes == [(2, "A12", "withdrawal", None, None), (2, "A03", "penalty", "board", 2),
                     (2, "A03", "penalty", "levels", 2), (3, "A07", "penalty", "net_levels", None)], notes

    # … and on the report's match sheet and the players' site (its match page and standings).
    level = ("R2 M4: A03 -1 level(s) after the conversion at table 1 (escalation of warning #2) — 拨弄已出过的牌 "
             "(by 裁判长)")
    small = "R3 M3: A07 -2 net level point(s) (小分) in the standings — 记分表未按时交回 (by 裁判长)"
    _ok("report", event, "--format", "html", "--out", tmp_path / "rep", "--lang", "en", "--boards-dir", boards)
    html = (tmp_path / "rep" / "ruc-results.html").read_text(encoding="utf-8")
    assert html.count(level) == 2 and small in html  # the match sheet and the footnotes
    _ok("site", event, "--out", tmp_path / "site", "--no-pdf", "--boards-dir", boards)
    assert level in (tmp_path / "site" / "en" / "match-2-4.html").read_text(encoding="utf-8")
    standings_page = (tmp_path / "site" / "en" / "standings.html").read_text(encoding="utf-8")
    assert level in standings_page and small in standings_page

    # The audit passes; a penalty row changed in the SQLite file (its guard dropped and put back)
    # is named by its table, id and link.
    assert "audit passed" in _ok("results", "audit", event, "--boards-dir", boards)
    db = tmp_path / "boards" / "ruc" / "results.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER penalties_no_update")
    conn.execute("UPDATE penalties SET data = replace(data, '-2', '0') WHERE kind = 'net_levels'")
    conn.execute(schema.TRIGGERS["penalties_no_update"])
    conn.commit()
    conn.close()
    code, out, err = run_dealer("results", "audit", event, "--boards-dir", boards)
    assert code == 1 and re.search(r"penalties #5 \(link \d+\): edited", err), out + err


def test_a_warning_applies_its_step_at_the_table_the_line_up_puts_the_player(tmp_path: Path) -> None:
    """Found by the scenario above: a warned player's table was asked for though the line-up
    says it, and any table was taken, so 罚一级 could land on the other pair's table. Now the
    step applies where the line-up seats the player; a table that differs is refused by name."""
    from test_lineups import _lineup, _setup

    event, common = _setup(tmp_path)  # SEED_002 with players: round 1 T1 v T2, T3 v T4
    assert _lineup(event, common, 1, "T1", ("1", "张伟,王芳"), ("2", "李雷,韩梅"))[0] == 0
    warn = ("results", "warn", event, "--round", 1, "--team", "T1", "--by", "裁判长", *common)
    _ok(*warn, "--player", "李雷", "--reason", "first")
    code, _out, err = run_dealer(*warn, "--player", "李雷", "--table", 1, "--reason", "second")
    assert code == 2 and ("--table: table 1: '李雷' plays at table 2 in round 1 (the line-up of T1: 1: 张伟, 王芳; "
                          "2: 李雷, 韩梅)") in err, err
    out = _ok(*warn, "--player", "李雷", "--reason", "second")
    assert "applied board lost (判本盘负) at table 2; -1 level(s) after the conversion at table 2" in out, out
    # A player in no line-up of the round (T1's 赵强 sits out) still names the table.
    _ok(*warn, "--player", "赵强", "--reason", "first")
    code, _out, err = run_dealer(*warn, "--player", "赵强", "--reason", "second")
    assert code == 2 and "--table: a board penalty names its table" in err, err

