"""Standings as a director publishes them: prizes only once they are final, the banner saying
after which round the standings are, a prize boundary inside a shared rank, and a knockout's
standings as its final places (a drawn match saying who went through and why; a third-place
match). Everything through the command line, as a director sees it."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from conftest import Outcome, run_dealer
from print_support import page_texts

NAMES = ["猛虎队", "雄鹰队", "猎豹队", "飞龙队", "海豚队", "骏马队", "白鹤队", "黑熊队"]


def _teams(n: int, prefix: str) -> str:
    return "".join(f'[[teams]]\nid = "{prefix}{i}"\nname = "{NAMES[i - 1]}"\n' for i in range(1, n + 1))


PRIZES = '[[prizes]]\nname = "冠军"\nteams = 1\n[[prizes]]\nname = "亚军"\nteams = 1\n' \
         '[[prizes]]\nname = "季军"\nteams = 1\n'

ROBIN = """\
[event]
id = "rr8"
name = "八队循环赛"
profile = "official-2002"
decks = 2
boards_per_set = 1

[format]
kind = "round-robin"
""" + _teams(8, "R") + PRIZES

KNOCKOUT = """\
[event]
id = "ko6"
name = "淘汰赛"
profile = "official-2002"
decks = 2
boards_per_set = 3

[format]
kind = "knockout"
""" + _teams(6, "K") + PRIZES

#: One board's two tables (A, B) when board 1 is played alone: North declares, so the away team
#: declares at A and the home team at B; 0 points make the declarer 3 levels, 80 nobody any.
HOME_WINS = {1: (80, 0)}
AWAY_WINS = {1: (0, 80)}
#: Three boards, 2:2 in level points, the away team winning two boards to one (boards won 1:2):
#: board 1 (N declares) 40 at A = away +1; board 2 (E declares) 5 at A = home +2; board 3 as 1.
AWAY_ON_BOARDS = {1: (40, 80), 2: (5, 80), 3: (40, 80)}


def _ok(*args: object) -> Outcome:
    outcome = run_dealer(*args)
    assert outcome.exit_code == 0, outcome.output
    return outcome


def _event(tmp_path: Path, text: str) -> tuple[Path, str]:
    path = tmp_path / "event.toml"
    path.write_text(text, encoding="utf-8")
    boards = str(tmp_path / "boards")
    _ok("deal", path, "--boards-dir", boards)
    return path, boards


def _pair(event: Path, boards: str, number: int) -> dict[str, tuple[str, str]]:
    _ok("round", "pair", event, "--round", number, "--boards-dir", boards)
    shown = json.loads(_ok("round", "show", event, "--round", number, "--json", "--boards-dir", boards).stdout)
    return {m["match"]: (m["home"], m["away"]) for m in shown["matches"]}


def _play(tmp_path: Path, event: Path, boards: str, number: int, results: dict[str, dict[int, tuple[int, int]]],
          boards_per_set: int = 1) -> None:
    """Import round ``number``: for each match its boards' (A, B) points; boards not given 80:80."""
    rows = [f"{number},{match},{table},{board},{points.get(board, (80, 80))[index]}"
            for match, points in results.items() for board in range(1, boards_per_set + 1)
            for index, table in enumerate("AB")]
    path = tmp_path / f"round-{number}-{len(list(tmp_path.glob('round-*.csv')))}.csv"
    path.write_text("round,match,table,board,defenders_points\n" + "\n".join(rows) + "\n", encoding="utf-8")
    _ok("results", "import", event, path, "--boards-dir", boards)


def _report(event: Path, boards: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(_ok("report", event, "--json", "--boards-dir", boards).stdout)
    return data


def _csv(path: Path) -> list[list[str]]:
    return list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))


def _pdf_text(path: Path) -> str:
    return "\n".join(page_texts(path)).replace(" ", "")


def test_a_report_after_round_1_of_7_has_no_prize_list_and_says_which_round(tmp_path: Path) -> None:
    event, boards = _event(tmp_path, ROBIN)
    matches = _pair(event, boards, 1)
    assert len(matches) == 4
    _play(tmp_path, event, boards, 1, {m: HOME_WINS for m in list(matches)[:3]})
    # One match still lacks its results: said apart from the round the standings are after.
    missing = _report(event, boards)
    assert missing["status"] == {"final": False, "after_round": 0, "rounds": 7, "missing_matches": 1,
                                 "ended_early": False, "appeals_pending": 0}
    early = tmp_path / "early"
    _ok("report", event, "--format", "html", "--out", early, "--boards-dir", boards)
    banner = (early / "rr8-results.html").read_text(encoding="utf-8").replace(" ", "")
    assert "临时成绩：第1轮（共7轮）进行中" in banner and "第0/7轮后" not in banner
    _play(tmp_path, event, boards, 1, {list(matches)[3]: HOME_WINS})
    report = _report(event, boards)
    assert report["status"] == {"final": False, "after_round": 1, "rounds": 7, "missing_matches": 0,
                                "ended_early": False, "appeals_pending": 0}
    assert report["prizes"] == []  # four teams lead on 2 points: no champion after round 1 of 7

    out = tmp_path / "reports"
    _ok("report", event, "--format", "html,pdf,csv", "--out", out, "--boards-dir", boards)
    html = (out / "rr8-results.html").read_text(encoding="utf-8")
    pdf = _pdf_text(out / "rr8-results.pdf")
    for text in (html.replace(" ", ""), pdf):
        assert "临时成绩：第1/7轮后" in text and "录取名次在最后一轮结束后公布" in text
        assert "冠军" not in text and "未录入" not in text
    prizes = _csv(out / "prizes.csv")
    assert not any(row[0] in ("冠军", "亚军", "季军") for row in prizes)
    assert prizes[1][0] == "录取名次在最后一轮结束后公布"

    site = tmp_path / "site"
    _ok("site", event, "--out", site, "--boards-dir", boards)
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "临时成绩：第 1/7 轮后" in home and "录取名次在最后一轮结束后公布" in home
    assert "冠军" not in home and "仍有结果未录入" not in home
    english = (site / "en" / "index.html").read_text(encoding="utf-8")
    assert "Provisional: after round 1 of 7" in english and "Prizes are awarded once the last round" in english
    assert json.loads((site / "index.json").read_text(encoding="utf-8"))["prizes"] == []


def _knockout(tmp_path: Path) -> tuple[Path, str]:
    """Six teams, byes to K1 and K2; K4 v K5 drawn 2:2, K5 through on boards won 2:1; then the
    better seeds win; K2 wins the final: places 1 K2, 2 K1, 3 = K5 K6, 5 = K3 K4."""
    event, boards = _event(tmp_path, KNOCKOUT)
    first = _pair(event, boards, 1)
    assert sorted(first.values()) == [("K3", "K6"), ("K4", "K5")]
    _play(tmp_path, event, boards, 1, {m: AWAY_ON_BOARDS if teams == ("K4", "K5") else AWAY_WINS
                                       for m, teams in first.items()}, boards_per_set=3)
    second = _pair(event, boards, 2)
    assert sorted(second.values()) == [("K1", "K5"), ("K2", "K6")]
    _play(tmp_path, event, boards, 2, {m: HOME_WINS for m in second}, boards_per_set=3)
    final = _pair(event, boards, 3)
    assert list(final.values()) == [("K1", "K2")]
    _play(tmp_path, event, boards, 3, {m: AWAY_WINS for m in final}, boards_per_set=3)
    return event, boards


def test_a_knockouts_standings_are_its_places_and_a_drawn_match_says_who_advanced(tmp_path: Path) -> None:
    event, boards = _knockout(tmp_path)
    report = _report(event, boards)
    places = [(p["place"], p["teams"]) for p in report["places"]]
    assert places == [(1, ["K2"]), (2, ["K1"]), (3, ["K5", "K6"]), (5, ["K3", "K4"])]
    assert [(s["rank"], s["team"]) for s in report["standings"]] == [
        (place, team) for place, teams in places for team in teams]
    drawn = next(m for m in report["matches"] if (m["home"], m["away"]) == ("K4", "K5"))
    assert (drawn["home_level_points"], drawn["away_level_points"]) == (2, 2)
    assert drawn["advanced"] == {"team": "K5", "tie_break": "boards_won", "home": 1, "away": 2, "board": None}
    won = next(m for m in report["matches"] if (m["home"], m["away"]) == ("K3", "K6"))
    assert won["advanced"]["team"] == "K6" and won["advanced"]["tie_break"] is None

    out = tmp_path / "reports"
    _ok("report", event, "--format", "html,csv,xlsx", "--out", out, "--boards-dir", boards)
    standings = _csv(out / "standings.csv")
    assert [(row[0], row[1]) for row in standings[1:]] == [
        ("1", "K2"), ("2", "K1"), ("3=", "K5"), ("3=", "K6"), ("5=", "K3"), ("5=", "K4")]
    html = (out / "ko6-results.html").read_text(encoding="utf-8")
    assert "<th>1/4决赛</th><th>半决赛</th><th>决赛</th>" in html
    assert "淘汰赛按名次排列" in html and "名次相同依次比较" not in html
    assert html.count("海豚队 晋级：赢牌副数 2:1") == 2  # the bracket and the match sheet

    site = tmp_path / "site"
    _ok("site", event, "--out", site, "--boards-dir", boards)
    home = json.loads((site / "index.json").read_text(encoding="utf-8"))
    assert [s["team"] for s in home["leaders"]] == ["K2", "K1", "K5", "K6", "K3", "K4"]
    bracket = (site / "bracket.html").read_text(encoding="utf-8")
    assert "<h2>1/4决赛</h2>" in bracket and "<h2>半决赛</h2>" in bracket and "<h2>决赛</h2>" in bracket
    assert "海豚队 晋级：赢牌副数 2:1" in bracket and "2 : 2 <span" in bracket
    assert '<li value="3"><a href="team-k5.html" data-team="K5">海豚队</a>, ' in bracket  # names, not ids
    assert "K5 advance" not in bracket and "海豚队 advance: boards won 2:1" in (
        site / "en" / "bracket.html").read_text(encoding="utf-8")
    sheets = [p.read_text(encoding="utf-8") for p in site.glob("match-1-*.html")]
    assert sum("海豚队 晋级：赢牌副数 2:1" in page for page in sheets) == 1


def test_a_prize_boundary_inside_a_shared_place_lists_every_tied_team_or_the_rule(tmp_path: Path) -> None:
    """季军 (one team) falls on 3rd, shared by K5 and K6: the profile's ``prize_ties = "share"``
    gives it to both, and every list says so; ``higher_seed`` gives it to the better seed."""
    event, boards = _knockout(tmp_path)
    report = _report(event, boards)
    assert report["status"]["final"] is True
    assert report["prizes"] == [
        {"name": "冠军", "teams": ["K2"], "tie": None}, {"name": "亚军", "teams": ["K1"], "tie": None},
        {"name": "季军", "teams": ["K5", "K6"], "tie": {"rank": 3, "teams": ["K5", "K6"], "rule": "share",
                                                      "chosen": ["K5", "K6"]}}]
    out = tmp_path / "reports"
    _ok("report", event, "--format", "html,csv", "--out", out, "--boards-dir", boards)
    note = "海豚队、骏马队 并列第 3 名：同获季军"
    assert note in (out / "ko6-results.html").read_text(encoding="utf-8")
    assert [row for row in _csv(out / "prizes.csv") if row[0] == "季军"] == [
        ["季军", "K5", "海豚队", note], ["季军", "K6", "骏马队", note]]
    site = tmp_path / "site"
    _ok("site", event, "--out", site, "--boards-dir", boards)
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "最终成绩" in home and note in home

    # The other rule, named by the event's own rules over its profile: the better seed takes
    # the prize, and the list says so.
    text = event.read_text(encoding="utf-8")
    event.write_text(text.replace("[format]", '[rules]\nprize_ties = "higher_seed"\n\n[format]'), encoding="utf-8")
    seeded = _report(event, boards)
    assert seeded["prizes"][2] == {"name": "季军", "teams": ["K5"], "tie": {
        "rank": 3, "teams": ["K5", "K6"], "rule": "higher_seed", "chosen": ["K5"]}}
    _ok("report", event, "--format", "html,csv", "--out", out, "--boards-dir", boards)
    note = "海豚队、骏马队 并列第 3 名：季军按种子序号给 海豚队"
    assert note in (out / "ko6-results.html").read_text(encoding="utf-8")
    assert [row for row in _csv(out / "prizes.csv") if row[0] == "季军"] == [["季军", "K5", "海豚队", note]]
    english = json.loads(_ok("--lang", "en", "report", event, "--json", "--boards-dir", boards).stdout)
    assert english["prizes"][2]["teams"] == ["K5"]


THIRD = """\
[event]
id = "ko4"
name = "四队淘汰赛"
profile = "official-2002"
decks = 2
boards_per_set = 1

[format]
kind = "knockout"
third_place = true
""" + _teams(4, "K")


def test_a_third_place_match_is_played_in_the_final_round_and_places_3_and_4(tmp_path: Path) -> None:
    event, boards = _event(tmp_path, THIRD)
    first = _pair(event, boards, 1)
    _play(tmp_path, event, boards, 1, {m: HOME_WINS for m in first})
    after_semis = _report(event, boards)
    assert [(s["rank"], s["team"]) for s in after_semis["standings"]] == [(1, "K1"), (1, "K2"), (3, "K3"), (3, "K4")]
    _ok("round", "pair", event, "--round", 2, "--boards-dir", boards)
    shown = json.loads(_ok("round", "show", event, "--round", 2, "--json", "--boards-dir", boards).stdout)
    assert [(m["slot"], m["home"], m["away"]) for m in shown["matches"]] == [("W2-1", "K1", "K2"), ("P3", "K3", "K4")]
    _play(tmp_path, event, boards, 2, {m["match"]: AWAY_WINS for m in shown["matches"]})
    report = _report(event, boards)
    assert [(p["place"], p["teams"]) for p in report["places"]] == [(1, ["K2"]), (2, ["K1"]), (3, ["K4"]), (4, ["K3"])]
    assert [(s["rank"], s["team"], s["shared"]) for s in report["standings"]] == [
        (1, "K2", False), (2, "K1", False), (3, "K4", False), (4, "K3", False)]
    out = tmp_path / "reports"
    _ok("report", event, "--format", "html", "--out", out, "--boards-dir", boards)
    assert "三四名决赛" in (out / "ko4-results.html").read_text(encoding="utf-8")

    double = tmp_path / "double"
    double.mkdir()
    path, boards = _event(double, THIRD.replace("third_place = true", 'elimination = "double"\nthird_place = true'))
    refused = run_dealer("round", "pair", path, "--round", 1, "--boards-dir", boards)
    assert refused.exit_code == 2 and "third-place match needs a single elimination" in refused.stderr
