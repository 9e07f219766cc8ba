"""Line-ups (``dealer lineup``, issue 22 item 3; newcomer review finding 14): who of a team's
registered players sits at which table, checked, kept in the results chain, refused once the
round has a result; printed on the score sheets and table cards, shown on the site, and the
players' and pairs' records in the report's JSON, worked out by hand.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from conftest import run_dealer
from test_levels import SEED_002, SEED_002_ROWS, _csv

from dealer.store.migrations import MIGRATIONS
from dealer.store.schema import GUARDED_TABLE, TRIGGERS, tables

# SEED_002 (renmin-shuangsheng: start 2, tables = 2) with players for every team.
PLAYERS = {
    "T1": ["张伟", "王芳", "李雷", "韩梅", "赵强"],
    "T2": ["刘洋", "陈静", "杨帆", "周敏"],
    "T3": ["孙一", "孙二", "孙三", "孙四"],
    "T4": ["钱一", "钱二", "钱三", "钱四"],
}


def _event_text() -> str:
    text = SEED_002
    for team, players in PLAYERS.items():
        names = ", ".join(f'"{p}"' for p in players)
        text = text.replace(f'id = "{team}"\n', f'id = "{team}"\nplayers = [{names}]\n', 1)
    return text


def _setup(tmp_path: Path) -> tuple[Path, tuple[str, Path]]:
    event = tmp_path / "seed002.toml"
    event.write_text(_event_text(), encoding="utf-8")
    boards = tmp_path / "boards"
    boards.mkdir()
    return event, ("--boards-dir", boards)


def _lineup(event: Path, common: tuple[str, Path], round_: int, team: str, *tables: tuple[str, str],
            reason: str | None = None) -> tuple[int, str, str]:
    args: list[Any] = ["lineup", event, "--round", round_, "--team", team]
    for table, players in tables:
        args += ["--table", table, players]
    if reason is not None:
        args += ["--reason", reason]
    return run_dealer(*args, *common)


def _import(tmp_path: Path, event: Path, common: tuple[str, Path], round_: str) -> None:
    path = tmp_path / f"round-{round_}.csv"
    path.write_text(_csv([row for row in SEED_002_ROWS if row[0] == round_]), encoding="utf-8")
    code, _out, err = run_dealer("results", "import", event, path, *common)
    assert code == 0, err


def test_a_seed_002_level_race_with_line_ups_for_two_rounds(tmp_path: Path) -> None:
    event, common = _setup(tmp_path)
    # Round 1: every team's two 分队 (T1 v T2, T3 v T4).
    for team, first, second in (("T1", "张伟,王芳", "李雷、韩梅"), ("T2", "刘洋,陈静", "杨帆,周敏"),
                                ("T3", "孙一,孙三", "孙二,孙四"), ("T4", "钱一,钱二", "钱三,钱四")):
        code, out, err = _lineup(event, common, 1, team, ("1", first), ("2", second))
        assert code == 0 and f"line-up of {team} recorded" in out, err
    # A player who is not the team's: refused, naming the option and the player; nothing stored.
    code, _out, err = _lineup(event, common, 2, "T2", ("1", "刘洋,张伟"), ("2", "杨帆,周敏"))
    assert code == 2
    assert "--table: table 1: '张伟' is not a registered player of team T2" in err
    code, out, _err = run_dealer("lineup", event, "--round", 2, *common)
    assert code == 0 and "no line-up recorded yet" in out
    # The same player at both tables, a table missing, a table the match does not have: refused.
    code, _out, err = _lineup(event, common, 2, "T1", ("1", "张伟,王芳"), ("2", "张伟,李雷"))
    assert code == 2 and "'张伟' is named at table 1 and at table 2" in err
    code, _out, err = _lineup(event, common, 2, "T1", ("1", "张伟,王芳"))
    assert code == 2 and "--table: no pair given for table(s) 2" in err
    code, _out, err = _lineup(event, common, 2, "T1", ("1", "张伟,王芳"), ("3", "李雷,韩梅"))
    assert code == 2 and "--table: no table '3' in a match: its tables are 1, 2" in err
    # Round 2 (T1 v T3, T2 v T4); T1 first fields 韩梅, then changes before the round's first result.
    for team, first, second in (("T1", "张伟,韩梅", "李雷,王芳"), ("T2", "杨帆,周敏", "刘洋,陈静"),
                                ("T3", "孙一,孙二", "孙三,孙四"), ("T4", "钱一,钱三", "钱二,钱四")):
        code, out, err = _lineup(event, common, 2, team, ("1", first), ("2", second))
        assert code == 0, err
    code, _out, err = _lineup(event, common, 2, "T1", ("1", "张伟,赵强"), ("2", "李雷,王芳"))
    assert code == 2 and "--reason: team T1 already has a line-up for round 2" in err
    code, out, err = _lineup(event, common, 2, "T1", ("1", "张伟,赵强"), ("2", "李雷,王芳"), reason="韩梅 unwell")
    assert code == 0, err
    assert "changed from (1: 张伟, 韩梅; 2: 李雷, 王芳) to (1: 张伟, 赵强; 2: 李雷, 王芳) (reason: 韩梅 unwell)" in out
    # Round 1's first result: its line-ups can no longer change (seed 002 §八.3).
    _import(tmp_path, event, common, "1")
    code, _out, err = _lineup(event, common, 1, "T1", ("1", "张伟,赵强"), ("2", "李雷,韩梅"), reason="late swap")
    assert code == 2 and "--round: round 1 has had results since" in err
    assert "team T1's line-up cannot change during the round (it stays 1: 张伟, 王芳; 2: 李雷, 韩梅)" in err
    _import(tmp_path, event, common, "2")
    code, out, err = run_dealer("lineup", event, "--round", 2, "--team", "T1", *common)
    assert code == 0 and out.strip() == "round 2 T1: 1: 张伟, 赵强; 2: 李雷, 王芳 (changed 1 time(s))", err

    code, out, err = run_dealer("report", event, "--json", *common)
    assert code == 0, err
    data = json.loads(out)
    lineups = {(x["round"], x["team"]): x for x in data["lineups"]}
    assert len(lineups) == 8 and lineups[(2, "T1")]["changes"] == 1 and lineups[(2, "T1")]["reason"] == "韩梅 unwell"
    assert lineups[(1, "T4")]["tables"] == [{"table": "1", "players": ["钱一", "钱二"]},
                                            {"table": "2", "players": ["钱三", "钱四"]}]
    # By hand (start 2: levels climbed). T1 is home in both rounds:
    #   R1 M1 T1 v T2: table 1 K v 8 → 11 : 6; table 2 5 v 9 → 3 : 7.
    #   R2 M1 T1 v T3: table 1 6 v 6 → 4 : 4; table 2 J v Q → 9 : 10.
    # 张伟 R1 t1 + R2 t1: 11 + 4 = 15 for, 6 + 4 = 10 against. 王芳 R1 t1 + R2 t2: 20 : 16.
    # 李雷 R1 t2 + R2 t2: 3 + 9 = 12 : 7 + 10 = 17. 韩梅 R1 t2 only (changed out of R2): 3 : 7.
    # 赵强 R2 t1 only: 4 : 4.
    players = {(p["team"], p["player"]): (p["rounds_played"], p["levels_for"], p["levels_against"], p["net_levels"])
               for p in data["players"]}
    assert {k: v for k, v in players.items() if k[0] == "T1"} == {
        ("T1", "张伟"): (2, 15, 10, 5), ("T1", "王芳"): (2, 20, 16, 4), ("T1", "李雷"): (2, 12, 17, -5),
        ("T1", "韩梅"): (1, 3, 7, -4), ("T1", "赵强"): (1, 4, 4, 0)}
    # An away side: 孙四 is home at R1 M2 table 2 (10 v 9 → 8 : 7) and away at R2 M1 table 2
    # (J v Q: T3 climbs 10, T1 9): 8 + 10 = 18 for, 7 + 9 = 16 against.
    assert players[("T3", "孙四")] == (2, 18, 16, 2)
    # Pairs, in the team's order of players: 张伟+王芳 R1 t1; 张伟+赵强 R2 t1; 王芳+李雷 R2 t2
    # (entered as 李雷,王芳); 李雷+韩梅 R1 t2.
    pairs = [(p["players"], p["rounds"], p["levels_for"], p["levels_against"]) for p in data["pairs"]
             if p["team"] == "T1"]
    assert pairs == [(["张伟", "王芳"], [1], 11, 6), (["张伟", "赵强"], [2], 4, 4), (["王芳", "李雷"], [2], 9, 10),
                     (["李雷", "韩梅"], [1], 3, 7)]
    # Every line-up is in the hash chain: the audit passes, and names a line-up changed behind its back.
    code, out, err = run_dealer("results", "audit", event, *common)
    assert code == 0 and "audit passed" in out, err
    with sqlite3.connect(tmp_path / "boards" / "renmin-levels" / "results.sqlite") as conn:
        conn.execute("DROP TRIGGER lineups_no_update")
        conn.execute("""UPDATE lineups SET tables = '{"1":["张伟","韩梅"],"2":["李雷","王芳"]}' WHERE id = 9""")
    code, _out, err = run_dealer("results", "audit", event, *common)
    assert code == 1 and "lineups #9 (link" in err and "edited" in err


def test_the_level_race_score_sheet_prints_the_pair_at_each_table(tmp_path: Path) -> None:
    from pypdf import PdfReader

    event, common = _setup(tmp_path)
    assert _lineup(event, common, 1, "T1", ("1", "张伟,王芳"), ("2", "李雷,韩梅"))[0] == 0
    assert _lineup(event, common, 1, "T2", ("2", "刘洋,陈静"), ("1", "杨帆,周敏"))[0] == 0  # in any order
    out = tmp_path / "out"
    code, _printed, err = run_dealer("print", "score-sheets", event, "--round", 1, "--out", out, *common)
    assert code == 0, err
    sheets = PdfReader(out / "level-sheets-round-01-zh.pdf")
    lines = sheets.pages[0].extract_text().splitlines()
    # Each table's row: its name in the hall (match 1's tables 1-1 and 1-2), the home pair, the
    # away pair (上场选手 主队 / 客队).
    assert "上场选手" in "".join(lines)
    assert any(line.startswith("1-1 张伟、王芳 杨帆、周敏") for line in lines), lines
    assert any(line.startswith("1-2 李雷、韩梅 刘洋、陈静") for line in lines), lines
    # Match 2 (T3 v T4) has no line-up: its 上场选手 columns stay blank, to fill in by hand.
    other = sheets.pages[1].extract_text()
    assert "孙" not in other and "钱" not in other


def test_a_boards_score_sheet_and_table_card_show_the_pair_at_that_table(tmp_path: Path) -> None:
    from pypdf import PdfReader

    from dealer.app.dealing import deal_event
    from dealer.files import load_event
    from dealer.store.folder import EventFolder

    event_file = tmp_path / "demo.toml"
    from dealer.resources import demo_event_text

    event_file.write_text(demo_event_text(), encoding="utf-8")
    event = load_event(event_file)
    boards = tmp_path / "boards"
    deal_event(event, EventFolder(event.id, boards))
    common = ("--boards-dir", boards)
    rnd = event.round(1)
    assert rnd is not None
    match = rnd.matches[0]
    home, away = event.team(match.home), event.team(match.away)
    code, out, err = run_dealer("lineup", event_file, "--round", 1, "--team", home.id,
                                "--table", "a", ",".join(home.players[:2]), "--table", "B", ",".join(home.players[2:]),
                                *common)
    assert code == 0 and f"round 1 match {match.id}: line-up of {home.id} recorded" in out, err
    # Tables of a boards match are A and B only.
    code, _out, err = run_dealer("lineup", event_file, "--round", 1, "--team", away.id, "--table", "1",
                                 ",".join(away.players[:2]), "--table", "B", ",".join(away.players[2:]), *common)
    assert code == 2 and "--table: no table '1' in a match: its tables are A, B" in err
    out_dir = tmp_path / "out"
    for kind in ("score-sheets", "table-cards"):
        code, _printed, err = run_dealer("print", kind, event_file, "--set", match.set, "--out", out_dir, *common)
        assert code == 0, err
    sep = "、"
    a_pair, b_pair = sep.join(home.players[:2]), sep.join(home.players[2:])
    sheets = PdfReader(out_dir / f"score-sheets-set-{match.set:02d}-zh.pdf")
    a_text, b_text = (sheets.pages[i].extract_text().replace("\n", "") for i in (0, 1))
    # Table A: the home pair at A, not the pair at B; the away team (no line-up) as its whole team.
    assert f"上场 {a_pair}" in a_text and b_pair not in a_text
    assert sep.join(away.players) in a_text
    assert f"上场 {b_pair}" in b_text and a_pair not in b_text
    cards = PdfReader(out_dir / f"table-cards-set-{match.set:02d}-zh.pdf").pages[0].extract_text().replace("\n", "")
    assert a_pair in cards and b_pair in cards  # card A above, card B below
    # The records of a boards event: a pair's levels are its side's level points at its table
    # (home E-W at A, N-S at B), so the home pairs at A and B add up to the home team's match.
    sample = Path(__file__).resolve().parent.parent / "dealer" / "data" / "sample-travellers.csv"
    code, _out, err = run_dealer("results", "import", event_file, sample, *common)
    assert code == 0, err
    code, out, err = run_dealer("report", event_file, "--json", *common)
    assert code == 0, err
    data = json.loads(out)
    score = next(m for m in data["matches"] if (m["round"], m["match"]) == (1, match.id))
    pairs = {tuple(p["players"]): p for p in data["pairs"] if p["team"] == home.id}
    at_a, at_b = pairs[tuple(home.players[:2])], pairs[tuple(home.players[2:])]
    assert at_a["rounds"] == at_b["rounds"] == [1] and score["boards_counted"] > 0
    assert at_a["levels_for"] + at_b["levels_for"] == score["home_level_points"]
    assert at_a["levels_against"] + at_b["levels_against"] == score["away_level_points"]
    # By the sheet: table A's home (E-W) level points over the counted boards.
    sheet = next(s for s in data["sheets"] if (s["round"], s["match"]) == (1, match.id))
    column = data["sheet_columns"]
    a_ew, a_ns = column.index("A_ew_levels"), column.index("A_ns_levels")
    assert at_a["levels_for"] == sum(b[a_ew] or 0 for b in sheet["boards"] if b[column.index("counted")])
    assert at_a["levels_against"] == sum(b[a_ns] or 0 for b in sheet["boards"] if b[column.index("counted")])


def test_a_database_made_before_line_ups_upgrades_and_takes_them(tmp_path: Path) -> None:
    """A results database of schema 7 (before withdrawals, penalties and line-ups): a command upgrades it
    (migrations 8 to 10) and the audit is clean."""
    event, common = _setup(tmp_path)
    folder = tmp_path / "boards" / "renmin-levels"
    folder.mkdir(mode=0o700)
    path = folder / "results.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:7]:
        migration(conn)
    conn.execute("PRAGMA user_version = 7")
    conn.execute("INSERT INTO meta VALUES ('event', 'renmin-levels'), ('created', '2026-01-01')")
    present = tables(conn)
    for name, sql in TRIGGERS.items():
        if GUARDED_TABLE[name] in present:
            conn.execute(sql)
    assert "lineups" not in present
    conn.close()
    path.chmod(0o600)
    code, out, err = run_dealer("lineup", event, "--round", 1, "--team", "T3", *common)
    assert code == 0 and "no line-up recorded yet" in out, err
    code, out, err = _lineup(event, common, 1, "T3", ("1", "孙一,孙二"), ("2", "孙三,孙四"))
    assert code == 0, err
    code, out, err = run_dealer("results", "audit", event, *common)
    assert code == 0 and "1 row(s) checked" in out and "audit passed" in out, err


def test_the_site_shows_line_ups_on_the_match_page_and_records_on_the_team_page(tmp_path: Path) -> None:
    event, common = _setup(tmp_path)
    assert _lineup(event, common, 1, "T1", ("1", "张伟,王芳"), ("2", "李雷,韩梅"))[0] == 0
    _import(tmp_path, event, common, "1")
    site = tmp_path / "site"
    code, _out, err = run_dealer("site", event, "--out", site, *common)
    assert code == 0, err
    match = json.loads((site / "match-1-1.json").read_text(encoding="utf-8"))
    assert match["lineups"] == [{"table": "1", "home": ["张伟", "王芳"], "away": []},
                                {"table": "2", "home": ["李雷", "韩梅"], "away": []}]
    html = (site / "match-1-1.html").read_text(encoding="utf-8")
    assert "上场名单" in html and "张伟、王芳" in html and "未记录" in html
    assert json.loads((site / "match-1-2.json").read_text(encoding="utf-8"))["lineups"] == []
    team = json.loads((site / "team-t1.json").read_text(encoding="utf-8"))
    # R1 M1 table 1 K v 8 → 11 : 6; table 2 5 v 9 → 3 : 7.
    assert [(r["player"], r["rounds_played"], r["levels_for"], r["levels_against"]) for r in team["player_records"]] \
        == [("张伟", 1, 11, 6), ("王芳", 1, 11, 6), ("李雷", 1, 3, 7), ("韩梅", 1, 3, 7)]
    assert [r["players"] for r in team["pair_records"]] == [["张伟", "王芳"], ["李雷", "韩梅"]]
    assert "队员战绩" in (site / "team-t1.html").read_text(encoding="utf-8")
    # A change of line-up alone rebuilds the match and team pages (their keys hold the line-ups).
    assert _lineup(event, common, 2, "T1", ("1", "张伟,赵强"), ("2", "李雷,王芳"))[0] == 0
    code, _out, err = run_dealer("site", event, "--out", site, *common)
    assert code == 0, err
    match = json.loads((site / "match-2-1.json").read_text(encoding="utf-8"))
    assert match["lineups"][0] == {"table": "1", "home": ["张伟", "赵强"], "away": []}
