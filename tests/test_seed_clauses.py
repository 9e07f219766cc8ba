"""The seed rule texts' clauses that issue 38 found unmodelled, each by a test naming its clause
(../shared/reviews/capabilities-4.md, "Seed rule texts"): seed 000 第二十四条's best of three games
a round (三局两胜), seed 001 一.2's 2.5-hour round, seed 002 七.1–2's combined rulings (判负 +
罚两级, 下台 + 罚两级) given as one decision, seed 003 第三条's must-play levels (2、J、A必打).
Expected values are worked out by hand in the comments, or compared with the same event played
without the clause."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from conftest import event_file as _event_file
from conftest import report_json_of, run_dealer
from test_penalties import SEED_002, SEED_002_ROWS

from dealer.app.session import EventSession
from dealer.race import advance
from dealer.resources import data_path, load_profile

SEEDS = Path("/work/shared/seeds")


def event_file(folder: Path, text: str) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    return _event_file(folder, text)


def _ok(*args: object) -> str:
    code, out, err = run_dealer(*args)
    assert code == 0, out + err
    return out


def _points(event: Path, boards: Path) -> list[tuple[int, str, int, int]]:
    return [(m["round"], m["match"], m["home_match_points"], m["away_match_points"])
            for m in report_json_of(event, boards)["matches"]]


# --- seed 000 第二十四条 一、计局制: 以赛三局（三局两胜）为赛一轮，胜者记2分，负者记0分 --------------

BEST_OF_THREE = """
[event]
id = "bo3"
name = "计局制 三局两胜"
profile = "official-2002"
result = "levels"
tables = 2

[rules]
level_race = { match_winner = "games", best_of = 3 }

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
"""


def test_seed_000_article_24_best_of_three_games_a_round_goes_to_the_side_that_won_two(tmp_path: Path) -> None:
    event, boards = event_file(tmp_path, BEST_OF_THREE)
    assert "每轮每桌赛 3 局（3 局 2 胜）" in _ok("rules", "explain", event, "--lang", "zh")
    rows = tmp_path / "r1.csv"
    # M1: T1 ends both tables on the higher level (8 v 5, 6 v 4) but T2 won two games of three at
    # each: T2 takes both tables and the round, 0 : 2.
    # M2: one game each at both tables when time is up (计局制 with 计时制): table 1 to the higher
    # level, T4's 9 v 7; table 2 level 5 each, to the last game's winner, T3: a table each, 1 : 1.
    rows.write_text("轮次,场次,桌,主队级数,客队级数,末局胜方,主队胜局,客队胜局\n"
                    "1,1,1,8,5,,1,2\n1,1,2,6,4,,1,2\n1,2,1,7,9,,1,1\n1,2,2,5,5,主,1,1\n", encoding="utf-8")
    _ok("results", "import", event, rows, "--boards-dir", boards)
    assert _points(event, boards) == [(1, "1", 0, 2), (1, "2", 1, 1)]
    # Without the clause (the profile's 计时制: net levels decide) both go the other way: M1's net
    # levels 3 + 2 to T1 (2 : 0), M2's −2 + 0 to T4 (0 : 2).
    plain, plain_boards = event_file(tmp_path / "plain", BEST_OF_THREE.replace(
        'level_race = { match_winner = "games", best_of = 3 }', "").replace('id = "bo3"', 'id = "plain"'))
    _ok("results", "import", plain, rows, "--boards-dir", plain_boards)
    assert _points(plain, plain_boards) == [(1, "1", 2, 0), (1, "2", 0, 2)]
    # A best-of-three table cannot record three games won, nor two each: the file is refused.
    fresh, fresh_boards = event_file(tmp_path / "fresh", BEST_OF_THREE)
    bad = tmp_path / "bad.csv"
    for games in ("3,0", "2,2"):
        bad.write_text(f"轮次,场次,桌,主队级数,客队级数,末局胜方,主队胜局,客队胜局\n1,1,1,8,5,,{games}\n",
                       encoding="utf-8")
        code, _out, err = run_dealer("results", "import", fresh, bad, "--boards-dir", fresh_boards)
        assert code == 2 and "best of 3 games a round" in err, err


# --- seed 001 一.2: 每局设定时间为2个半小时 ---------------------------------------------------------

def test_seed_001_rule_1_2_a_round_is_two_and_a_half_hours_in_the_profile_and_its_demo() -> None:
    assert "2个半小时" in next(SEEDS.glob("001_*.txt")).read_text(encoding="utf-8")
    profile = load_profile("four-deck-2v2")
    assert profile.round_minutes == 150
    demo = tomllib.loads(data_path("demo-levels.toml").read_text(encoding="utf-8"))
    assert demo["event"]["profile"] == "four-deck-2v2"
    # The demo sets no time of its own, so its timer counts the seed's 150 minutes.
    assert "round_minutes" not in demo["event"] and "timing" not in demo.get("rules", {})


# --- seed 002 七.1–2: 判负，同时罚两级 / 按庄家下台处理，同时罚两级 ---------------------------------

def _notes(event: Path, boards: Path) -> list[str]:
    with EventSession.open(event, boards) as session:
        return session.report().penalty_notes("en")


def _standings(event: Path, boards: Path) -> list[tuple[Any, ...]]:
    return [(s["team"], s["match_points"], s["net_level_points"]) for s in report_json_of(event, boards)["standings"]]


def test_seed_002_rule_7_1_a_wrong_play_found_late_is_one_ruling_board_lost_and_two_levels_off(
        tmp_path: Path) -> None:
    text = next(SEEDS.glob("002_*.txt")).read_text(encoding="utf-8")
    assert "直接判出错牌方负，同时罚两级" in text and "按庄家下台处理，同时罚两级" in text
    rows = tmp_path / "r.csv"
    rows.write_text(SEED_002_ROWS, encoding="utf-8")
    ruled, boards = event_file(tmp_path / "ruled", SEED_002)
    apart, apart_boards = event_file(tmp_path / "apart", SEED_002)
    for event, folder in ((ruled, boards), (apart, apart_boards)):
        _ok("results", "import", event, rows, "--boards-dir", folder)
    common = ("--round", 2, "--team", "T1", "--table", 2, "--reason", "出错牌，两回合后发现", "--by", "裁判长")
    # One command, one decision: both penalties written together, said together.
    out = _ok("results", "penalty", ruled, *common, "--ruling", "revoke_found_late", "--boards-dir", boards)
    assert out.strip() == (
        "ruling revoke_found_late (七.1) given as one decision to T1 in round 2, match 1 (penalties from #1): "
        "board lost (判本盘负) at table 2; -2 level(s) after the conversion at table 2 — 出错牌，两回合后发现")
    # The same penalties given apart (two commands) score the same …
    _ok("results", "penalty", apart, *common, "--lose-board", "--boards-dir", apart_boards)
    _ok("results", "penalty", apart, *common, "--levels", -2, "--boards-dir", apart_boards)
    assert _standings(ruled, boards) == _standings(apart, apart_boards)
    # … but the ruling is one footnote, where apart they are two.
    assert _notes(ruled, boards) == [
        "R2 M1: T1 ruling revoke_found_late: board lost (判本盘负) at table 2; -2 level(s) after the conversion "
        "at table 2 — 出错牌，两回合后发现 (by 裁判长)"]
    assert len(_notes(apart, apart_boards)) == 2
    # Withdrawn as one: the team's penalties of the round.
    _ok("results", "penalty", ruled, "--round", 2, "--team", "T1", "--withdraw", "--reason", "误判", "--by", "裁判长",
        "--boards-dir", boards)
    assert _notes(ruled, boards) == []


def test_seed_002_rule_7_2_a_kitty_miscount_ruling_needs_its_points_in_a_boards_event_and_names_the_rulings(
        tmp_path: Path) -> None:
    rows = tmp_path / "r.csv"
    rows.write_text(SEED_002_ROWS, encoding="utf-8")
    event, boards = event_file(tmp_path, SEED_002)
    _ok("results", "import", event, rows, "--boards-dir", boards)
    code, _out, err = run_dealer("results", "penalty", event, "--round", 1, "--team", "T2", "--table", 1,
                                 "--ruling", "no_such", "--reason", "x", "--by", "裁判长", "--boards-dir", boards)
    assert code == 2 and "profile renmin-shuangsheng has no ruling 'no_such': its rulings are " \
        "revoke_found_late, kitty_miscount" in err
    out = _ok("results", "penalty", event, "--round", 1, "--team", "T2", "--table", 1, "--ruling", "kitty_miscount",
              "--reason", "底牌少一张", "--by", "裁判长", "--boards-dir", boards)
    assert "ruling kitty_miscount (七.2)" in out
    profile = load_profile("renmin-shuangsheng")
    assert profile.rulings["kitty_miscount"].apply == (("board", 0), ("levels", -2))
    # Given with another penalty on the same command line: refused, nothing written.
    code, _out, err = run_dealer("results", "penalty", event, "--round", 1, "--team", "T2", "--table", 1,
                                 "--ruling", "kitty_miscount", "--levels", -1, "--reason", "x", "--by", "裁判长",
                                 "--boards-dir", boards)
    assert code == 2 and "give exactly one penalty" in err


# --- seed 003 第三条: 从2打起，2、J、A必打，先打过A者为胜方 -------------------------------------------

MUST_PLAY = """
[event]
id = "sz"
name = "深圳社区升级赛"
profile = "shenzhen-community"
result = "levels"
tables = 2

[[teams]]
id = "T1"
name = "东风队"
[[teams]]
id = "T2"
name = "长城队"

[[rounds]]
number = 1
matches = [{ id = "1", home = "T1", away = "T2" }]
"""


def test_seed_003_article_3_must_play_levels_2_j_a_stop_a_climb(tmp_path: Path) -> None:
    assert "2、J、A必" in next(SEEDS.glob("003_*.txt")).read_text(encoding="utf-8")
    must = load_profile("shenzhen-community").level_race.must_play
    assert must == ("2", "J", "A")
    assert [advance("9", 3, must), advance("K", 3, must), advance("A", 1, must), advance("J", 2, must),
            advance("Q", -3, must), advance("9", 3, ())] == ["J", "A", "过A", "K", "9", "Q"]
    rows = tmp_path / "r.csv"
    rows.write_text("轮次,场次,桌,主队级数,客队级数\n1,1,1,9,Q\n1,1,2,5,5\n", encoding="utf-8")  # 7 v 10, 3 v 3
    played = {}
    for name, rules in (("sz", ""), ("free", '\n[rules]\nmust_play_levels = []\n')):
        event, boards = event_file(tmp_path / name, MUST_PLAY.replace('id = "sz"', f'id = "{name}"') + rules)
        _ok("results", "import", event, rows, "--boards-dir", boards)
        # The director awards T1 three levels at the table (a ruling in its favour).
        _ok("results", "penalty", event, "--round", 1, "--team", "T1", "--table", 1, "--levels", 3,
            "--reason", "对方违例，升三级", "--by", "裁判长", "--boards-dir", boards)
        played[name] = _points(event, boards)
    # Must-play: 9 + 3 stops at J (climbed 9) against Q (10), net −1 with table 2's 0: T2 still
    # wins, 0 : 2. Without the clause 9 + 3 is Q: net 0, a draw, 1 : 1 (win 2, draw 1, loss 0).
    assert played == {"sz": [(1, "1", 0, 2)], "free": [(1, "1", 1, 1)]}
