"""Penalties and warnings through the command line (issue 22, item 4; review finding 15): a
seed-000 boards event's points penalty applied before the conversion, shown beside the table
result on the match sheet and footnoted in every format and on the site, then withdrawn; a
seed-001 劳改 choice; a seed-002 level race whose second warning the tool escalates to 判本盘负 +
罚一级, with a 小分 deduction, the standings worked out by hand; the audit naming a tampered
penalty row. Every expected value is worked out by hand in the comments."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import openpyxl
from conftest import event_file, report_json_of, run_dealer
from print_support import page_texts
from test_levels import SEED_002 as LEVEL_RACE_002

from dealer.store import schema

# Seed 000 (official-2002, two decks): one match of two boards. Board 1 is declared by North,
# board 2 by East. Table A: home (BJ) sits E-W; table B: home sits N-S.
SEED_000 = """
[event]
id = "pen000"
name = "Seed 000 penalties"
profile = "official-2002"
decks = 2
boards_per_set = 2
sets = 1

[schedule]
declarer_rotation = ["N", "E", "S", "W"]
levels = ["2"]

[[teams]]
id = "BJ"
name = "北京"
[[teams]]
id = "SH"
name = "上海"

[[rounds]]
number = 1
[[rounds.matches]]
id = "1"
home = "BJ"
away = "SH"
set = 1
"""


def _ok(*args: object) -> str:
    code, out, err = run_dealer(*args)
    assert code == 0, out + err
    return out


def _tamper(path: Path, sql: str) -> None:
    """Change the database outside the tool, its guard put back as the tool writes it (so the
    audit can find the row only by its link)."""
    conn = sqlite3.connect(path)
    conn.execute("DROP TRIGGER penalties_no_update")
    conn.execute(sql)
    conn.execute(schema.TRIGGERS["penalties_no_update"])
    conn.commit()
    conn.close()


def test_seed_000_points_penalty_before_the_conversion_is_footnoted_and_withdrawn(tmp_path: Path) -> None:
    event, boards = event_file(tmp_path, SEED_000)
    _ok("deal", event, "--boards-dir", boards)
    for table in ("A", "B"):
        for board in (1, 2):
            _ok("results", "add", event, "--round", 1, "--match", 1, "--table", table, "--board", board,
                "--points", 120, "--boards-dir", boards)
    # Every table 120: the defenders go up 1 (120–155). Board 1 (N declares): A, BJ (E-W) defends
    # +1; B, SH (E-W) defends +1. Board 2 (E declares): A, SH (N-S) +1; B, BJ (N-S) +1. 2 : 2, a draw.
    before = report_json_of(event, boards)["matches"][0]
    assert (before["home_level_points"], before["away_level_points"], before["home_match_points"]) == (2, 2, 1)

    # A card taken back at table A board 1: 10 points off BJ, which defends there. 120 − 10 = 110,
    # 上台 (80–115): nothing. BJ 1 : SH 2, SH wins 2–0.
    out = _ok("results", "penalty", event, "--round", 1, "--match", 1, "--team", "BJ", "--table", "A",
              "--board", 1, "--points", -10, "--reason", "card taken back", "--by", "Referee Li",
              "--boards-dir", boards)
    note = "R1 M1: BJ -10 points before the conversion at table A, board 1 — card taken back (by Referee Li)"
    assert out.strip() == f"penalty #1 recorded: {note}"
    data = report_json_of(event, boards)
    match = data["matches"][0]
    assert (match["home_level_points"], match["away_level_points"]) == (1, 2)
    assert (match["home_match_points"], match["away_match_points"]) == (0, 2)
    assert [s["team"] for s in data["standings"]] == ["SH", "BJ"]
    assert data["adjustments"] == [{
        "round": 1, "match": "1", "team": "BJ", "kind": "penalty", "penalty": "points", "value": -10, "table": "A",
        "board": 1, "choice": None, "warning": None, "id": 1, "by": "Referee Li", "reason": "card taken back"}]

    # The match sheet keeps the table result (120 at A) and shows the penalty below it; the
    # level points read the penalized 110 (A: E-W 0).
    rep = tmp_path / "rep"
    _ok("report", event, "--out", rep, "--lang", "en", "--boards-dir", boards)
    sheet_json = report_json_of(event, boards)["sheets"][0]
    assert sheet_json["penalties"] == [1]
    assert sheet_json["boards"][0][3] == 120  # A_points as entered (sheet_columns)
    html = (rep / "pen000-results.html").read_text(encoding="utf-8")
    sheet = html[html.index('<div class="sheet">'):]
    sheet = sheet[:sheet.index("</div>")]
    assert f'<ol class="notes penalties"><li>{note}</li></ol>' in sheet
    first_line = sheet[sheet.index("<td>1</td>"):].split("</tr>")[0]
    assert "<td>120</td>" in first_line, first_line
    assert (rep / "adjustments.csv").read_text(encoding="utf-8-sig").splitlines()[1] == f'"{note}"'
    book = openpyxl.load_workbook(rep / "pen000-results.xlsx")
    assert [c.value for c in book["adjustments"]["A"]][1] == note
    pdf = "\n".join(page_texts(rep / "pen000-results.pdf"))
    assert pdf.count("before the conversion at table A, board 1") == 2  # the sheet and the footnotes

    # The site: the match page and the standings, in both languages.
    _ok("site", event, "--out", tmp_path / "site", "--no-pdf", "--boards-dir", boards)
    assert note in (tmp_path / "site" / "en" / "match-1-1.html").read_text(encoding="utf-8")
    assert note in (tmp_path / "site" / "en" / "standings.html").read_text(encoding="utf-8")
    zh = "第 1 轮第 1 场：BJ 换算前 -10 分（A 桌第 1 副） — card taken back（Referee Li）"
    assert zh in (tmp_path / "site" / "match-1-1.html").read_text(encoding="utf-8")

    # The audit covers the penalty: clean, then a tampered row named.
    assert "audit passed" in _ok("results", "audit", event, "--boards-dir", boards)
    db = boards / "pen000" / "results.sqlite"
    saved = db.read_bytes()
    _tamper(db, "UPDATE penalties SET data = replace(data, '-10', '-5') WHERE id = 1")
    code, out, err = run_dealer("results", "audit", event, "--boards-dir", boards)
    # Links 1–8: four additions (an import and its row each); the penalty is link 9.
    assert code == 1 and "penalties #1 (link 9): edited" in err, out + err
    db.write_bytes(saved)

    # --withdraw appends its undo: the draw again, no footnote, the audit clean.
    out = _ok("results", "penalty", event, "--round", 1, "--team", "BJ", "--withdraw", "--reason", "misapplied",
              "--by", "Referee Li", "--boards-dir", boards)
    assert out.strip() == "round 1: withdrew 1 penalty record(s) of BJ (reason: misapplied)"
    data = report_json_of(event, boards)
    assert (data["matches"][0]["home_level_points"], data["matches"][0]["away_level_points"]) == (2, 2)
    assert data["adjustments"] == []
    assert "audit passed" in _ok("results", "audit", event, "--boards-dir", boards)
    code, _out, err = run_dealer("results", "penalty", event, "--round", 1, "--team", "BJ", "--withdraw",
                                 "--reason", "again", "--by", "x", "--boards-dir", boards)
    assert code == 2 and "team 'BJ' has no penalty in force in round 1" in err, err


def test_a_penalty_is_refused_by_name_where_the_event_cannot_apply_it(tmp_path: Path) -> None:
    event, boards = event_file(tmp_path, SEED_000)
    _ok("deal", event, "--boards-dir", boards)
    common = ("--round", 1, "--team", "BJ", "--reason", "x", "--by", "y", "--boards-dir", boards)
    for args, said in (
        (("--points", -10, "--board", 1), "--table: a points penalty names its table"),
        (("--points", -10, "--table", "A"), "--board: a points penalty names its board"),
        (("--points", -7, "--table", "A", "--board", 1), "--points: -7 points: a points penalty is a multiple of 5"),
        (("--points", -10, "--table", "C", "--board", 1), "--table: no table C: a match has tables A, B"),
        (("--lose-board", "--table", "A", "--board", 1, "--as-points", 7), "--as-points: 7: a lost board"),
        (("--levels", -1, "--net-levels", -2), "give exactly one penalty"),
        (("--match-points", 0,), "--match-points: a match_points penalty needs an amount other than 0"),
    ):
        code, _out, err = run_dealer("results", "penalty", event, *args, *common)
        assert code == 2 and said in err, (args, err)
    code, _out, err = run_dealer("results", "penalty", event, "--round", 1, "--team", "BJ", "--levels", 1,
                                 "--reason", "x", "--boards-dir", boards)
    assert code == 2 and "--by" in err  # who gives it is always said
    db = boards / "pen000" / "results.sqlite"
    assert not db.exists() or sqlite3.connect(db).execute("SELECT count(*) FROM penalties").fetchone()[0] == 0


# Seed 001 (four-deck-2v2): a level race of 5 tables, every side from 3, the match won on tables
# (5场3胜, win 3 / loss 1). Levels climbed (from 3): 3→0, 4→1 … 10→7, J→8, Q→9, K→10.
SEED_001 = """
[event]
id = "pen001"
name = "Seed 001 劳改"
profile = "four-deck-2v2"
decks = 4
result = "levels"
tables = 5

[[teams]]
id = "U1"
name = "机关队"
players = ["甲一", "甲二", "甲三", "甲四", "甲五", "甲六", "甲七", "甲八", "甲九", "甲十"]
[[teams]]
id = "U2"
name = "后勤队"

[[rounds]]
number = 1
matches = [{ id = "1", home = "U1", away = "U2" }]
"""
SEED_001_ROWS = (
    "轮次,场次,桌,主队级数,客队级数,末局胜方\n"
    "1,1,1,8,5,\n"   # 5 v 2: home
    "1,1,2,4,9,\n"   # 1 v 6: away
    "1,1,3,6,7,\n"   # 3 v 4: away; with 劳改 A to home (+2): 5 v 4, home
    "1,1,4,K,Q,\n"   # 10 v 9: home
    "1,1,5,3,10,\n"  # 0 v 7: away
)


def test_seed_001_laogai_choice_is_recorded_and_scored(tmp_path: Path) -> None:
    event, boards = event_file(tmp_path, SEED_001)
    rows = tmp_path / "r1.csv"
    rows.write_text(SEED_001_ROWS, encoding="utf-8")
    _ok("results", "import", event, rows, "--boards-dir", boards)
    match = report_json_of(event, boards)["matches"][0]
    assert (match["home_match_points"], match["away_match_points"]) == (1, 3)  # U2 wins 3 tables to 2
    # 劳改 at table 3 (U2 kept a card back, found after the second trick): U1, the non-offending
    # side, chooses A, 按升二级进入下一盘: +2 levels for U1 at table 3. U1 now wins 3 tables to 2.
    out = _ok("results", "penalty", event, "--round", 1, "--match", 1, "--team", "U1", "--table", 3,
              "--levels", 2, "--choice", "劳改 A: +2 levels (not ±160 points)", "--reason",
              "U2 followed wrong, found after trick 2", "--by", "裁判长", "--boards-dir", boards)
    assert "chosen: 劳改 A: +2 levels (not ±160 points)" in out
    data = report_json_of(event, boards)
    match = data["matches"][0]
    assert (match["home_match_points"], match["away_match_points"]) == (3, 1)
    # Levels: U1 5 + 1 + 3 + 2 + 10 + 0 = 21, U2 2 + 6 + 4 + 9 + 7 = 28.
    assert (match["home_level_points"], match["away_level_points"]) == (21, 28)
    assert data["adjustments"][0]["choice"] == "劳改 A: +2 levels (not ±160 points)"
    assert [s["team"] for s in data["standings"]] == ["U1", "U2"]
    # The level sheet: table 3 still reads 6 v 7 as entered, its climbed levels 3 + 2 = 5 v 4.
    _ok("report", event, "--format", "html", "--out", tmp_path / "rep", "--lang", "en", "--boards-dir", boards)
    html = (tmp_path / "rep" / "pen001-results.html").read_text(encoding="utf-8")
    assert "<tr><td>3</td><td>6</td><td>7</td><td>5</td>\n<td>4</td><td>1</td>" in html
    assert "R1 M1: U1 +2 level(s) after the conversion at table 3, chosen: 劳改 A" in html

    # Seed 001 §8(7): a second warning of a side disqualifies it (counted per team).
    warn = ("results", "warn", event, "--round", 1, "--team", "U1", "--reason", "交头接耳", "--by", "裁判",
            "--boards-dir", boards)
    out = _ok(*warn, "--player", "甲一")
    assert "warning no. 1 of team U1" in out and "names no penalty for it" in out
    code, _out, err = run_dealer(*warn, "--player", "乙一")
    assert code == 2 and "player '乙一' is not registered for team 'U1'" in err
    out = _ok(*warn, "--player", "甲二")
    assert "warning no. 2 of team U1" in out and "applied disqualified (ranked below every other team)" in out
    assert [s["team"] for s in report_json_of(event, boards)["standings"]] == ["U2", "U1"]


# Seed 002 (renmin-shuangsheng): tests/test_levels.py's two rounds of two tables, T1's players registered.
SEED_002 = LEVEL_RACE_002.replace('id = "renmin-levels"', 'id = "pen002"', 1).replace(
    'name = "东风队"\n', 'name = "东风队"\nplayers = ["张三", "李四", "王五", "赵六"]\n', 1)
SEED_002_ROWS = (
    "轮次,场次,桌,主队级数,客队级数,末局胜方\n"
    "1,1,1,K,8,\n1,1,2,5,9,\n"        # T1 v T2: 11 v 6, 3 v 7: net +1, T1 wins
    "1,2,1,A,过A,\n1,2,2,10,9,\n"     # T3 v T4: 12 v 13, 8 v 7: net 0, a draw
    "2,1,1,6,6,主\n2,1,2,J,Q,\n"      # T1 v T3: 4 v 4, 9 v 10: net −1, T3 wins
    "2,2,1,Q,10,\n2,2,2,3,4,\n"       # T2 v T4: 10 v 8, 1 v 2: net +1, T2 wins
)


def test_seed_002_second_warning_is_escalated_and_a_net_level_deduction_ranks_by_hand(tmp_path: Path) -> None:
    event, boards = event_file(tmp_path, SEED_002)
    rows = tmp_path / "r.csv"
    rows.write_text(SEED_002_ROWS, encoding="utf-8")
    _ok("results", "import", event, rows, "--boards-dir", boards)
    warn = ("results", "warn", event, "--team", "T1", "--player", "张三", "--by", "裁判王", "--boards-dir", boards)
    # §六: 违例者第一次给予警告 — logged, nothing else.
    out = _ok(*warn, "--round", 1, "--reason", "自言自语评论牌力")
    assert out.strip() == ("warning #1 recorded in round 1: warning no. 1 of player 张三 (T1) — 自言自语评论牌力. "
                           "Profile renmin-shuangsheng names no penalty for it: nothing else applied")
    # 第二次判本盘负并罚一级: the tool applies the step at table 2 of round 2 and says so.
    code, _out, err = run_dealer(*warn, "--round", 2, "--reason", "拨弄已出过的牌")
    assert code == 2 and "--table: a board penalty names its table" in err  # nothing written
    out = _ok(*warn, "--round", 2, "--table", 2, "--reason", "拨弄已出过的牌")
    assert out.strip() == (
        "warning #2 recorded in round 2: warning no. 2 of player 张三 (T1) — 拨弄已出过的牌. Profile "
        "renmin-shuangsheng, warning no. 2: applied board lost (判本盘负) at table 2; -1 level(s) after the "
        "conversion at table 2")
    # 小分 deduction for T4 in round 2 (a director's ruling, not lateness).
    _ok("results", "penalty", event, "--round", 2, "--team", "T4", "--net-levels", -2, "--reason",
        "score slip handed in late", "--by", "裁判长", "--boards-dir", boards)

    # By hand. R2 M1 T1 v T3 table 2: J v Q → 9 v 10, T1 −1 → 8 v 10: net (4 + 8) − (4 + 10) = −2,
    # T3 still wins. Levels for / against: T1 14 + 12 = 26 / 13 + 14 = 27 (net −1); T3 20 + 14 = 34 /
    # 20 + 12 = 32 (+2); T2 13 + 11 = 24 / 14 + 10 = 24 (0); T4 20 + 10 = 30 / 20 + 11 = 31, −2 小分:
    # −3. Match points unchanged: T3 3, T1 2, T2 2, T4 1. T1 and T2 on 2: 小分 T2 0 > T1 −1, so T2
    # is now above T1 (without the penalties 对手分 put T1 first).
    expected = [  # team, match points, for, against, 小分, adjustment, 对手分
        ("T3", 3, 34, 32, 2, 0, 1 + 2),
        ("T2", 2, 24, 24, 0, 0, 2 + 1),
        ("T1", 2, 26, 27, -1, 0, 2 + 3),
        ("T4", 1, 30, 31, -3, -2, 3 + 2),
    ]

    def standings() -> list[tuple[Any, ...]]:
        return [(s["team"], s["match_points"], s["level_points_for"], s["level_points_against"],
                 s["net_level_points"], s["adjustment"], s["tie_breaks"]["opponents_match_points"])
                for s in report_json_of(event, boards)["standings"]]

    assert standings() == expected
    assert "audit passed" in _ok("results", "audit", event, "--boards-dir", boards)

    # 第三次此轮判负: a third warning loses T1 the match (scored as the forfeit: 5 levels a table
    # to T3); withdrawn, and the standings are as worked out above again.
    out = _ok(*warn, "--round", 2, "--table", 1, "--reason", "不服从裁判")
    assert "warning no. 3: applied match lost (判负), scored as a forfeit" in out
    lost = {(m["round"], m["match"]): m for m in report_json_of(event, boards)["matches"]}[(2, "1")]
    assert lost["forfeited_by"] == ["T1"] and (lost["home_level_points"], lost["away_level_points"]) == (0, 10)
    out = _ok("results", "warn", event, "--round", 2, "--team", "T1", "--player", "张三", "--withdraw",
              "--reason", "wrong player", "--by", "裁判长", "--boards-dir", boards)
    assert out.strip() == ("withdrew warning #6 of 张三 (T1, round 2) and the 1 penalty record(s) it applied "
                           "(reason: wrong player)")
    assert standings() == expected

    # The report's footnotes name the warning each penalty came from; the audit names a tampered row.
    notes = [a for a in report_json_of(event, boards)["adjustments"]]
    assert [(a["penalty"], a["warning"]) for a in notes] == [("board", 2), ("levels", 2), ("net_levels", None)]
    assert "audit passed" in _ok("results", "audit", event, "--boards-dir", boards)
    _tamper(boards / "pen002" / "results.sqlite", "UPDATE penalties SET data = replace(data, '-2', '0') "
            "WHERE kind = 'net_levels'")
    code, out, err = run_dealer("results", "audit", event, "--boards-dir", boards)
    assert code == 1 and re.search(r"penalties #5 \(link \d+\): edited", err), err


def test_the_warning_escalation_is_a_profile_key_an_events_rules_can_change(tmp_path: Path) -> None:
    base = SEED_002.replace('tables = 2\n', 'tables = 2\n\n[rules]\nwarnings = { counted = "team", steps = '
                            '[{ at = 1, apply = [{ kind = "net_levels", amount = -1 }] }] }\n', 1)
    event, boards = event_file(tmp_path, base)
    rows = tmp_path / "r.csv"
    rows.write_text(SEED_002_ROWS, encoding="utf-8")
    _ok("results", "import", event, rows, "--boards-dir", boards)
    out = _ok("results", "warn", event, "--round", 1, "--team", "T2", "--player", "钱七", "--reason", "x", "--by",
              "y", "--boards-dir", boards)
    assert "warning no. 1 of team T2" in out and "applied -1 net level point(s) (小分)" in out
    explained = _ok("rules", "explain", event, "--lang", "en")
    line = "Warnings (counted per team): no. 1 → -1 net level point(s) (小分) in the standings"
    assert explained.count(line) == 2  # the event's own rules (补充规定), then the profile as it applies
    profile = _ok("rules", "explain", "renmin-shuangsheng", "--lang", "en")
    assert "Warnings (counted per player): no. 2 → board lost (判本盘负), -1 level(s) after the conversion; " \
           "no. 3 → match lost (判负), scored as a forfeit" in profile
    bad = base.replace('kind = "net_levels"', 'kind = "fine"')
    event.write_text(bad, encoding="utf-8")
    code, _out, err = run_dealer("rules", "explain", event)
    assert code == 2 and "rules.warnings.steps[0].apply[0].kind: expected one of points" in err, err


SWISS = """
[event]
id = "penswiss"
name = "Swiss"
profile = "renmin-shuangsheng"
decks = 2
boards_per_set = 1

[format]
kind = "swiss"
rounds = 3
first_round = "pinyin"

[[teams]]
id = "T1"
name = "安徽"
[[teams]]
id = "T2"
name = "北京"
[[teams]]
id = "T3"
name = "重庆"
[[teams]]
id = "T4"
name = "大连"
"""


def test_a_round_with_a_penalty_is_not_undone_until_it_is_withdrawn(tmp_path: Path) -> None:
    event, boards = event_file(tmp_path, SWISS)
    _ok("deal", event, "--boards-dir", boards)
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    _ok("results", "penalty", event, "--round", 1, "--team", "T1", "--match-points", -1, "--reason", "x",
        "--by", "y", "--boards-dir", boards)
    undo = ("round", "undo", event, "--round", 1, "--reason", "wrong", "--boards-dir", boards)
    code, _out, err = run_dealer(*undo)
    assert code == 2 and "round 1 has a penalty or warning in force: withdraw it first" in err, err
    _ok("results", "penalty", event, "--round", 1, "--team", "T1", "--withdraw", "--reason", "x", "--by", "y",
        "--boards-dir", boards)
    _ok(*undo)
