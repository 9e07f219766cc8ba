"""The round loop through the command line: a seed-002 Swiss from the first pairing to the prize
list (pinyin round 1, five rounds, a forfeit by lateness, a lateness deduction), a knockout and a
round robin, and the refusals a director meets (a round undone, a forced rematch, a previous
round with missing results)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import Outcome, run_dealer
from print_support import page_texts

from dealer.resources import demo_event_text
from dealer.tournament.round_robin import berger_table

# Seed 002 (人大双升): 2/1/0, 小分 then 对手分 then mixed club first. One board a round keeps the
# hand arithmetic short: board 1 is declared by North, so at table A the away team declares and
# at table B the home team does.
SWISS = """\
[event]
id = "seed002"
name = "人大双升 five rounds"
profile = "renmin-shuangsheng"
decks = 2
boards_per_set = 1

[format]
kind = "swiss"
rounds = 5
first_round = "pinyin"

[[teams]]
id = "T1"
name = "安徽"
[[teams]]
id = "T2"
name = "北京"
mixed_club = true
[[teams]]
id = "T3"
name = "重庆"
[[teams]]
id = "T4"
name = "大连"
[[teams]]
id = "T5"
name = "鄂尔多斯"
[[teams]]
id = "T6"
name = "福州"

[[prizes]]
name = "一等奖"
teams = 1
[[prizes]]
name = "二等奖"
teams = 2
"""

# Every pair's result, worked out before play: (winner, net levels) or None for a draw. Six
# teams and five rounds without a rematch make a complete round robin, so the totals below do
# not depend on the order the Swiss pairs them in.
OUTCOMES: dict[frozenset[str], tuple[str, int] | None] = {
    frozenset({"T1", "T2"}): None,
    frozenset({"T1", "T3"}): ("T1", 3),
    frozenset({"T1", "T4"}): ("T4", 1),
    frozenset({"T1", "T5"}): ("T1", 1),
    frozenset({"T1", "T6"}): ("T1", 2),
    frozenset({"T2", "T3"}): ("T2", 3),
    frozenset({"T2", "T4"}): ("T2", 3),
    frozenset({"T2", "T5"}): ("T5", 2),
    frozenset({"T2", "T6"}): ("T2", 3),
    frozenset({"T3", "T4"}): ("T3", 2),
    frozenset({"T3", "T5"}): None,
    frozenset({"T3", "T6"}): ("T3", 2),
    frozenset({"T4", "T5"}): ("T4", 2),
    frozenset({"T4", "T6"}): ("T6", 1),
    frozenset({"T5", "T6"}): ("T5", 1),  # not played: T6 is 20 minutes late in round 1
}
#: Defenders' points that give the declarer 3, 2 or 1 levels (renmin-shuangsheng); 80: 上台, none.
DECLARER_WINS = {3: 0, 2: 5, 1: 40}
NOTHING = 80


def _run(*args: object) -> Outcome:
    return run_dealer(*args)


def _ok(*args: object) -> Outcome:
    outcome = _run(*args)
    assert outcome.exit_code == 0, outcome.output
    return outcome


def _event(tmp_path: Path, text: str = SWISS) -> tuple[str, str]:
    path = tmp_path / "event.toml"
    path.write_text(text, encoding="utf-8")
    boards = str(tmp_path / "boards")
    _ok("deal", path, "--boards-dir", boards)
    return str(path), boards


def _round(event: str, boards: str, number: int) -> dict[str, Any]:
    shown = _ok("round", "show", event, "--round", number, "--json", "--boards-dir", boards)
    data: dict[str, Any] = json.loads(shown.stdout)
    return data


def _rows(match: dict[str, Any], number: int) -> list[str]:
    """The two tables' results of a one-board match from :data:`OUTCOMES`."""
    home, away = match["home"], match["away"]
    outcome = OUTCOMES[frozenset({home, away})]
    # Table A: away declares; table B: home declares.
    points = {"A": NOTHING, "B": NOTHING}
    if outcome is not None:
        winner, net = outcome
        points["B" if winner == home else "A"] = DECLARER_WINS[net]
    return [f"{number},{match['match']},{table},1,{points[table]}" for table in ("A", "B")]


def _play(tmp_path: Path, event: str, boards: str, number: int, skip: set[str] = frozenset()) -> None:  # type: ignore[assignment]
    data = _round(event, boards, number)
    rows = [row for m in data["matches"] if m["match"] not in skip for row in _rows(m, number)]
    csv = tmp_path / f"round-{number}.csv"
    csv.write_text("round,match,table,board,defenders_points\n" + "\n".join(rows) + "\n", encoding="utf-8")
    _ok("results", "import", event, csv, "--boards-dir", boards)


def test_seed_002_swiss_from_first_pairing_to_prizes(tmp_path: Path) -> None:
    event, boards = _event(tmp_path)
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    first = _round(event, boards, 1)
    # Pinyin order: 安徽 an, 北京 bei, 重庆 chong (a polyphone: not zhong), 大连 da, 鄂尔多斯 e, 福州 fu.
    assert [(m["home"], m["away"], m["table"], m["set"]) for m in first["matches"]] == [
        ("T1", "T2", 1, 1), ("T3", "T4", 2, 1), ("T5", "T6", 3, 1)]
    assert first["byes"] == [] and first["warnings"] == []

    # T6 arrives 20 minutes late: over 15 minutes forfeits the round (seed 002 §7).
    late = _ok("results", "late", event, "--round", 1, "--team", "T6", "--minutes", 20,
               "--reason", "arrived 20 minutes after the start", "--boards-dir", boards)
    assert "T6 forfeits" in late.stdout
    # 3 minutes costs nothing, but is on record (every report notes it).
    cheap = _ok("results", "late", event, "--round", 1, "--team", "T1", "--minutes", 3,
                "--reason", "stuck at the door", "--boards-dir", boards)
    assert "T1 3 minute(s) late, recorded; it costs nothing" in cheap.stdout
    _play(tmp_path, event, boards, 1, skip={"3"})

    for number in range(2, 6):
        _ok("round", "pair", event, "--round", number, "--boards-dir", boards)
        if number == 2:
            # T2 is 10 minutes late: 5–15 minutes costs the team 2 小分.
            _ok("results", "late", event, "--round", 2, "--team", "T2", "--minutes", 10,
                "--reason", "10 minutes late", "--boards-dir", boards)
        _play(tmp_path, event, boards, number)

    met = [frozenset({m["home"], m["away"]}) for n in range(1, 6) for m in _round(event, boards, n)["matches"]]
    assert len(met) == len(set(met)) == 15  # no rematch: every pair met once

    report = json.loads(_ok("report", event, "--json", "--boards-dir", boards).stdout)
    table = {s["team"]: s for s in report["standings"]}
    # Worked by hand from OUTCOMES, with T5 winning the forfeit by 5 levels at each table (10):
    #   match points: T1 D+W+L+W+W = 7; T2 D+W+W+L+W = 7; T3 L+L+W+D+W = 5; T4 W+L+L+W+L = 4;
    #                 T5 L+W+D+L+W(forfeit) = 5; T6 L+L+L+W+L(forfeit, 0) = 2 (sum 30 = 15 matches × 2)
    #   level points for/against: T1 6/1; T2 9/2; T3 4/6; T4 3/6; T5 12/3; T6 1/17
    #   小分 (net): T1 +5; T2 +7 − 2 (late) = +5; T3 −2; T4 −3; T5 +9; T6 −16
    #   对手分 (all met all): 30 − own match points: T1 23, T2 23, T3 25, T4 26, T5 25, T6 28
    expected = {  # team: (rank, MP, for, against, adjustment, 小分, 对手分, mixed)
        "T2": (1, 7, 9, 2, -2, 5, 23, 1), "T1": (2, 7, 6, 1, 0, 5, 23, 0),
        "T5": (3, 5, 12, 3, 0, 9, 25, 0), "T3": (4, 5, 4, 6, 0, -2, 25, 0),
        "T4": (5, 4, 3, 6, 0, -3, 26, 0), "T6": (6, 2, 1, 17, 0, -16, 28, 0),
    }
    for team, (rank, mp, lp_for, lp_against, adjustment, net, opponents, mixed) in expected.items():
        s = table[team]
        assert (s["rank"], s["match_points"], s["level_points_for"], s["level_points_against"],
                s["adjustment"], s["net_level_points"]) == (rank, mp, lp_for, lp_against, adjustment, net), team
        assert s["tie_breaks"] == {"net_level_points": net, "opponents_match_points": opponents,
                                   "mixed_club": mixed}, team
    # T1 and T2: level on match points, 小分 and 对手分; T2 was formed across clubs: first.
    assert [s["team"] for s in report["standings"]] == ["T2", "T1", "T5", "T3", "T4", "T6"]
    assert report["format"] == "swiss"
    assert report["prizes"] == [{"name": "一等奖", "teams": ["T2"], "tie": None},
                                {"name": "二等奖", "teams": ["T1", "T5"], "tie": None}]
    forfeit = next(m for m in report["matches"] if m["round"] == 1 and m["match"] == "3")
    assert forfeit["forfeited_by"] == ["T6"]
    assert (forfeit["home_level_points"], forfeit["away_level_points"]) == (10, 0)
    kinds = sorted((a["team"], a["kind"]) for a in report["adjustments"])
    assert kinds == [("T1", "net_level_points"), ("T2", "net_level_points"), ("T6", "forfeit")]
    free = next(a for a in report["adjustments"] if a["team"] == "T1")
    assert (free["round"], free["value"], free["minutes"]) == (1, 0, 3)

    # Every report footnotes the adjustments.
    out = tmp_path / "reports"
    _ok("report", event, "--format", "html,csv", "--out", out, "--boards-dir", boards)
    html = (out / "seed002-results.html").read_text(encoding="utf-8")
    assert "arrived 20 minutes after the start" in html and "10 minutes late" in html
    assert "第 1 轮：T1 迟到 3 分钟，不扣分 — stuck at the door" in html
    assert "arrived 20 minutes after the start" in (out / "adjustments.csv").read_text(encoding="utf-8-sig")

    # The audit covers the director's actions: they are in the chain.
    audit = _ok("results", "audit", event, "--boards-dir", boards)
    assert "audit passed" in audit.stdout
    # A sixth round does not exist.
    assert _run("round", "pair", event, "--round", 6, "--boards-dir", boards).exit_code == 2


def test_round_undo_only_while_the_round_has_no_result(tmp_path: Path) -> None:
    event, boards = _event(tmp_path)
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    missing_reason = _run("round", "undo", event, "--round", 1, "--reason", " ", "--boards-dir", boards)
    assert missing_reason.exit_code == 2 and "reason" in missing_reason.stderr
    undone = _ok("round", "undo", event, "--round", 1, "--reason", "wrong team list", "--boards-dir", boards)
    assert "undid round 1" in undone.stdout
    shown = _run("round", "show", event, "--round", 1, "--boards-dir", boards)
    assert shown.exit_code == 2 and "not paired" in shown.stderr
    # Paired again, then played: now it stays.
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    _play(tmp_path, event, boards, 1)
    refused = _run("round", "undo", event, "--round", 1, "--reason", "too late", "--boards-dir", boards)
    assert refused.exit_code == 2 and "has results" in refused.stderr
    assert len(_round(event, boards, 1)["matches"]) == 3
    # Both pairings and the undo are in the audited chain.
    assert "audit passed" in _ok("results", "audit", event, "--boards-dir", boards).stdout


def test_pairing_refuses_over_an_incomplete_previous_round(tmp_path: Path) -> None:
    event, boards = _event(tmp_path)
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    _play(tmp_path, event, boards, 1, skip={"2"})
    refused = _run("round", "pair", event, "--round", 2, "--boards-dir", boards)
    assert refused.exit_code == 2
    assert "round 1 has missing results" in refused.stderr and "match 2 (T3 v T4)" in refused.stderr
    assert "--allow-incomplete" in refused.stderr
    assert _run("round", "show", event, "--round", 2, "--boards-dir", boards).exit_code == 2  # nothing stored
    out_of_order = _run("round", "pair", event, "--round", 3, "--boards-dir", boards)
    assert out_of_order.exit_code == 2 and "round 2 is not paired yet" in out_of_order.stderr
    paired = _ok("round", "pair", event, "--round", 2, "--allow-incomplete", "--boards-dir", boards)
    assert "paired with 1 match(es) of round 1 incomplete" in paired.stderr
    assert _round(event, boards, 2)["warnings"] == ["paired with 1 match(es) of round 1 incomplete"]


REMATCH = """\
[event]
id = "rematch"
name = "Three rounds of four"
profile = "official-2002"
decks = 2
boards_per_set = 1

[format]
kind = "swiss"
rounds = 4
first_round = "split"

[[teams]]
id = "A"
name = "A"
[[teams]]
id = "B"
name = "B"
[[teams]]
id = "C"
name = "C"
[[teams]]
id = "D"
name = "D"
"""


def _draws(tmp_path: Path, event: str, boards: str, number: int) -> None:
    data = _round(event, boards, number)
    rows = [f"{number},{m['match']},{t},1,{NOTHING}" for m in data["matches"] for t in ("A", "B")]
    csv = tmp_path / f"draws-{number}.csv"
    csv.write_text("round,match,table,board,defenders_points\n" + "\n".join(rows) + "\n", encoding="utf-8")
    _ok("results", "import", event, csv, "--boards-dir", boards)


def test_a_forced_rematch_is_stored_only_when_accepted(tmp_path: Path) -> None:
    """Four teams have three opponents each: round 4 must repeat a pairing."""
    event, boards = _event(tmp_path, REMATCH)
    for number in (1, 2, 3):
        paired = _ok("round", "pair", event, "--round", number, "--boards-dir", boards)
        assert "warning" not in paired.stderr
        _draws(tmp_path, event, boards, number)
    refused = _run("round", "pair", event, "--round", 4, "--boards-dir", boards)
    assert refused.exit_code == 2
    assert "meet again" in refused.stderr and "--accept-warnings" in refused.stderr
    in_zh = _run("--lang", "zh", "round", "pair", event, "--round", 4, "--boards-dir", boards)
    assert in_zh.exit_code == 2 and "再次相遇" in in_zh.stderr and "第 4 轮未保存" in in_zh.stderr
    assert _run("round", "show", event, "--round", 4, "--boards-dir", boards).exit_code == 2
    _ok("round", "pair", event, "--round", 4, "--accept-warnings", "--boards-dir", boards)
    stored = _round(event, boards, 4)
    assert len(stored["warnings"]) == 2 and all("meet again" in w for w in stored["warnings"])


def test_split_first_round_and_the_readable_show(tmp_path: Path) -> None:
    event, boards = _event(tmp_path, REMATCH)
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    first = _round(event, boards, 1)
    assert [(m["home"], m["away"]) for m in first["matches"]] == [("A", "C"), ("D", "B")]
    shown = _ok("round", "show", event, "--round", 1, "--boards-dir", boards).stdout
    assert "match   1  tables 1A/1B" in shown and "A A  v  C C" in shown


KNOCKOUT = """\
[event]
id = "cup"
name = "Knockout cup"
profile = "official-2002"
decks = 2
boards_per_set = 1

[format]
kind = "knockout"
elimination = "single"

[[teams]]
id = "K1"
name = "One"
[[teams]]
id = "K2"
name = "Two"
[[teams]]
id = "K3"
name = "Three"
[[teams]]
id = "K4"
name = "Four"
[[teams]]
id = "K5"
name = "Five"
"""


def test_knockout_of_five_teams_to_its_places(tmp_path: Path) -> None:
    """Five teams in a bracket of eight: seeds 1–3 have round-1 byes; four matches in all. A
    drawn match goes to the better seed (the profile's last knockout tie-break)."""
    event, boards = _event(tmp_path, KNOCKOUT)
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    first = _round(event, boards, 1)
    assert [(m["home"], m["away"], m["slot"]) for m in first["matches"]] == [("K4", "K5", "W1-2")]
    assert sorted(first["byes"]) == ["K1", "K2", "K3"]
    refused = _run("round", "pair", event, "--round", 2, "--boards-dir", boards)
    assert refused.exit_code == 2 and "missing results" in refused.stderr
    # K5 (away) declares at table A and makes 3 levels; table B nothing: K5 wins 3:0.
    (tmp_path / "r1.csv").write_text("round,match,table,board,defenders_points\n1,1,A,1,0\n1,1,B,1,80\n",
                                     encoding="utf-8")
    _ok("results", "import", event, tmp_path / "r1.csv", "--boards-dir", boards)
    _ok("round", "pair", event, "--round", 2, "--boards-dir", boards)
    second = _round(event, boards, 2)
    assert sorted((m["home"], m["away"]) for m in second["matches"]) == [("K1", "K5"), ("K2", "K3")]
    _draws(tmp_path, event, boards, 2)  # both drawn: the better seeds K1 and K2 go through
    _ok("round", "pair", event, "--round", 3, "--boards-dir", boards)
    final = _round(event, boards, 3)
    assert [(m["home"], m["away"], m["slot"]) for m in final["matches"]] == [("K1", "K2", "W3-1")]
    (tmp_path / "r3.csv").write_text("round,match,table,board,defenders_points\n3,1,A,1,0\n3,1,B,1,80\n",
                                     encoding="utf-8")
    _ok("results", "import", event, tmp_path / "r3.csv", "--boards-dir", boards)
    report = json.loads(_ok("report", event, "--json", "--boards-dir", boards).stdout)
    assert report["places"] == [{"place": 1, "teams": ["K2"]}, {"place": 2, "teams": ["K1"]},
                                {"place": 3, "teams": ["K3", "K5"]}, {"place": 5, "teams": ["K4"]}]
    played = [m for m in report["matches"]]
    assert len(played) == 4  # n − 1 matches
    # A knockout's standings are its places; the drawn semi-finals say who went through and why.
    assert [(s["rank"], s["team"], s["shared"]) for s in report["standings"]] == [
        (1, "K2", False), (2, "K1", False), (3, "K3", True), (3, "K5", True), (5, "K4", False)]
    drawn = next(m for m in report["matches"] if m["round"] == 2 and "K5" in (m["home"], m["away"]))
    assert drawn["advanced"] == {"team": "K1", "tie_break": "higher_seed", "home": 1, "away": 5, "board": None}
    html = tmp_path / "html"
    _ok("report", event, "--format", "html", "--out", html, "--boards-dir", boards)
    text = (html / "cup-results.html").read_text(encoding="utf-8")
    assert "<th>1/4决赛</th><th>半决赛</th><th>决赛</th>" in text  # a bracket of 8
    assert text.count("One 晋级：种子序号 1:5，序号靠前者胜") == 2  # the bracket and the match sheet


ROBIN = """\
[event]
id = "robin"
name = "Round robin"
profile = "official-2002"
decks = 2
boards_per_set = 1

[format]
kind = "round-robin"
cycles = 2
""" + "".join(f'[[teams]]\nid = "R{i}"\nname = "Team {i}"\n' for i in range(1, 6))


def test_round_robin_rounds_are_the_berger_table(tmp_path: Path) -> None:
    """Five teams: the six-player Berger table, the sixth number a bye; a double round robin
    has ten rounds and ten sets, the second cycle mirrored."""
    event, boards = _event(tmp_path, ROBIN)
    table = berger_table(6)
    for number in range(1, 11):
        _ok("round", "pair", event, "--round", number, "--allow-incomplete", "--boards-dir", boards)
        data = _round(event, boards, number)
        berger = table[(number - 1) % 5]
        expected = [(f"R{h}", f"R{a}") if number <= 5 else (f"R{a}", f"R{h}")
                    for h, a in berger if 6 not in (h, a)]
        assert [(m["home"], m["away"]) for m in data["matches"]] == expected
        assert all(m["set"] == number for m in data["matches"])
        bye = next(h if a == 6 else a for h, a in berger if 6 in (h, a))
        assert data["byes"] == [f"R{bye}"]
    assert _run("round", "pair", event, "--round", 11, "--boards-dir", boards).exit_code == 2


def test_paired_event_file_refuses_listed_rounds_and_stray_keys(tmp_path: Path) -> None:
    listed = SWISS + '\n[[rounds]]\nnumber = 1\nmatches = [{ id = "1", home = "T1", away = "T2" }]\n'
    path = tmp_path / "listed.toml"
    path.write_text(listed, encoding="utf-8")
    refused = _run("deal", path, "--boards-dir", tmp_path / "b")
    assert refused.exit_code == 2 and "paired as it goes" in refused.stderr
    stray = SWISS.replace('first_round = "pinyin"', 'first_round = "pinyin"\nelimination = "double"')
    path.write_text(stray, encoding="utf-8")
    refused = _run("deal", path, "--boards-dir", tmp_path / "b")
    assert refused.exit_code == 2 and "elimination" in refused.stderr and "do not apply" in refused.stderr
    few = SWISS.replace('boards_per_set = 1', 'boards_per_set = 1\nsets = 3')
    path.write_text(few, encoding="utf-8")
    refused = _run("deal", path, "--boards-dir", tmp_path / "b")
    assert refused.exit_code == 2 and "sets = 3 is too few" in refused.stderr


def test_fixed_events_have_nothing_to_pair(tmp_path: Path, dealt: Any) -> None:
    _event_dealt, root = dealt
    path = tmp_path / "demo.toml"
    path.write_text(demo_event_text(), encoding="utf-8")
    refused = _run("round", "pair", path, "--round", 1, "--boards-dir", root)
    assert refused.exit_code == 2 and "format fixed" in refused.stderr
    shown = json.loads(_ok("round", "show", path, "--round", 2, "--json", "--boards-dir", root).stdout)
    movement = shown.pop("movement")  # one copy a match: each match's exchange (docs/tournaments.md)
    assert (movement["copies"], movement["stanzas"], movement["shared"]) == (2, 2, False)
    assert shown == {"round": 2, "matches": [
        {"match": "1", "home": "T1", "away": "T3", "set": 2, "table": 1},
        {"match": "2", "home": "T4", "away": "T2", "set": 2, "table": 2}], "byes": [], "warnings": []}


def _away_wins_at_odd_tables(tmp_path: Path, event: str, boards: str, number: int) -> None:
    """Table 1, 3, …: the away team declares at A and makes 3 levels; even tables: the home team
    does at B."""
    data = _round(event, boards, number)
    rows = []
    for m in data["matches"]:
        odd = int(m["match"]) % 2 == 1
        rows += [f"{number},{m['match']},A,1,{0 if odd else NOTHING}",
                 f"{number},{m['match']},B,1,{NOTHING if odd else 0}"]
    csv = tmp_path / f"odd-{number}.csv"
    csv.write_text("round,match,table,board,defenders_points\n" + "\n".join(rows) + "\n", encoding="utf-8")
    _ok("results", "import", event, csv, "--boards-dir", boards)


DOUBLE = KNOCKOUT.replace('id = "cup"', 'id = "double"').replace('elimination = "single"', 'elimination = "double"') \
    + '[[teams]]\nid = "K6"\nname = "Six"\n'


def test_double_elimination_of_six_teams(tmp_path: Path) -> None:
    """Six teams, byes to seeds 1 and 2; the winners' champion wins the first final, so no
    second one: 2n − 2 = 10 matches, and round 7 has nothing to play."""
    event, boards = _event(tmp_path, DOUBLE)
    slots = []
    for number in range(1, 7):
        _ok("round", "pair", event, "--round", number, "--boards-dir", boards)
        data = _round(event, boards, number)
        slots += [m["slot"] for m in data["matches"]]
        if number == 1:
            assert sorted(data["byes"]) == ["K1", "K2"]
        if number == 2:
            # Losers' round 1 pairs the round-1 losers; both came from matches with byes beside them.
            assert [s for s in slots if s.startswith("L")] == []  # L1: each loser faces an empty place
        _away_wins_at_odd_tables(tmp_path, event, boards, number)
    assert slots[-1] == "F1" and len(slots) == 10
    nothing = _run("round", "pair", event, "--round", 7, "--boards-dir", boards)
    assert nothing.exit_code == 2 and "nothing to play" in nothing.stderr
    report = json.loads(_ok("report", event, "--json", "--boards-dir", boards).stdout)
    places = [(p["place"], p["teams"]) for p in report["places"]]
    assert places == [(1, ["K5"]), (2, ["K2"]), (3, ["K1"]), (4, ["K4"]), (5, ["K3", "K6"])]


GROUPS = ROBIN.replace('id = "robin"', 'id = "groups"').replace("cycles = 2", "groups = 2") \
    + '[[teams]]\nid = "R6"\nname = "Team 6"\nseed = 1\n'


def test_grouped_round_robin_by_serpentine_with_group_standings(tmp_path: Path) -> None:
    """Six teams in two groups by serpentine on the seeds (R6 is seed 1; then file order):
    A = seeds 1, 4, 5 = R6, R3, R4; B = seeds 2, 3, 6 = R1, R2, R5. Three rounds, a bye a round."""
    event, boards = _event(tmp_path, GROUPS)
    for number in (1, 2, 3):
        _ok("round", "pair", event, "--round", number, "--boards-dir", boards)
        data = _round(event, boards, number)
        groups = {m["group"]: {m["home"], m["away"]} for m in data["matches"]}
        assert groups[0] <= {"R6", "R3", "R4"} and groups[1] <= {"R1", "R2", "R5"}
        assert len(data["byes"]) == 2
        _away_wins_at_odd_tables(tmp_path, event, boards, number)
    report = json.loads(_ok("report", event, "--json", "--boards-dir", boards).stdout)
    assert [g["group"] for g in report["groups"]] == ["A", "B"]
    assert {s["team"] for s in report["groups"][0]["standings"]} == {"R6", "R3", "R4"}
    # Each team played the two others of its group and had one bye (a win: 2 match points).
    assert all(s["played"] == 2 and s["byes"] == 1 for g in report["groups"] for s in g["standings"])
    assert sum(s["match_points"] for g in report["groups"] for s in g["standings"]) == 6 * 2 + 6 * 2


def test_a_team_removed_after_pairing_is_refused_not_a_crash(tmp_path: Path) -> None:
    event, boards = _event(tmp_path)
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    edited = Path(event).read_text(encoding="utf-8").replace('[[teams]]\nid = "T6"\nname = "福州"\n', "")
    Path(event).write_text(edited, encoding="utf-8")
    for command in (("report", event, "--json"), ("round", "pair", event, "--round", 2),
                    ("results", "missing", event)):
        refused = _run(*command, "--boards-dir", boards)
        assert refused.exit_code == 2 and "round 1 match 3 was paired with team 'T6'" in refused.stderr, command


def test_a_round_robin_refuses_a_changed_field(tmp_path: Path) -> None:
    event, boards = _event(tmp_path, ROBIN)
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    Path(event).write_text(Path(event).read_text(encoding="utf-8").replace(
        'name = "Team 5"', 'name = "Team 5"\nseed = 1'), encoding="utf-8")
    refused = _run("round", "pair", event, "--round", 2, "--allow-incomplete", "--boards-dir", boards)
    assert refused.exit_code == 2 and "seeds have changed since round 1" in refused.stderr


def test_a_forfeited_match_takes_no_result_until_the_forfeit_is_withdrawn(tmp_path: Path) -> None:
    event, boards = _event(tmp_path)
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    _ok("results", "forfeit", event, "--round", 1, "--match", 3, "--team", "T6", "--reason", "no show",
        "--boards-dir", boards)
    add = ("results", "add", event, "--round", 1, "--match", 3, "--table", "A", "--board", 1, "--points", 80,
           "--boards-dir", boards)
    refused = _run(*add)
    assert refused.exit_code == 2 and "T6 forfeits it" in refused.stderr and "--withdraw" in refused.stderr
    missing = _ok("results", "missing", event, "--round", 1, "--boards-dir", boards).stdout
    assert "round 1 match 3 (T5 v T6): complete" in missing  # a forfeit: nothing to come
    assert _run("round", "undo", event, "--round", 1, "--reason", "x", "--boards-dir", boards).exit_code == 2
    withdrawn = _ok("results", "forfeit", event, "--round", 1, "--team", "T6", "--withdraw", "--reason",
                    "T6 arrived: the director let them play", "--boards-dir", boards)
    assert "withdrew 1 forfeit" in withdrawn.stdout
    _ok(*add)
    report = json.loads(_ok("report", event, "--json", "--boards-dir", boards).stdout)
    assert report["adjustments"] == [] and all(not m["forfeited_by"] for m in report["matches"])
    assert "audit passed" in _ok("results", "audit", event, "--boards-dir", boards).stdout


def test_a_knockout_match_both_teams_forfeited_sends_nobody_through(tmp_path: Path) -> None:
    event, boards = _event(tmp_path, KNOCKOUT)
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    for team in ("K4", "K5"):
        _ok("results", "forfeit", event, "--round", 1, "--match", 1, "--team", team, "--reason", "absent",
            "--boards-dir", boards)
    refused = _run("round", "pair", event, "--round", 2, "--boards-dir", boards)
    assert refused.exit_code == 2 and "no winner for W1-2" in refused.stderr


def test_a_knockout_result_corrected_after_the_next_round_is_refused_in_reports(tmp_path: Path) -> None:
    """K5 beat K4 in round 1 and round 2 paired K1 v K5; a correction giving the match to K4
    would leave the bracket wrong: the report and the next pairing say so instead of placing
    teams by a round they never played."""
    event, boards = _event(tmp_path, KNOCKOUT)
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    (tmp_path / "r1.csv").write_text("round,match,table,board,defenders_points\n1,1,A,1,0\n1,1,B,1,80\n",
                                     encoding="utf-8")
    _ok("results", "import", event, tmp_path / "r1.csv", "--boards-dir", boards)
    _ok("round", "pair", event, "--round", 2, "--boards-dir", boards)
    _draws(tmp_path, event, boards, 2)
    assert _ok("report", event, "--json", "--boards-dir", boards)
    _ok("results", "correct", event, "--round", 1, "--match", 1, "--table", "A", "--board", 1, "--points", 80,
        "--reason", "slip misread", "--boards-dir", boards)
    _ok("results", "correct", event, "--round", 1, "--match", 1, "--table", "B", "--board", 1, "--points", 0,
        "--reason", "slip misread", "--boards-dir", boards)  # now K4 (home) makes 3 levels at B
    for command in (("report", event, "--json"), ("round", "pair", event, "--round", 3)):
        refused = _run(*command, "--boards-dir", boards)
        assert refused.exit_code == 2 and "changed who went through" in refused.stderr, command
        assert "round 2 was paired K1 v K5" in refused.stderr and "K1 v K4" in refused.stderr


def test_the_round_loop_speaks_chinese_or_english(tmp_path: Path) -> None:
    """``dealer --lang zh`` words the round and the missing results in Chinese, with the same
    values; ``--lang en`` says them as the English lines always were."""
    event, boards = _event(tmp_path)
    zh = _ok("--lang", "zh", "round", "pair", event, "--round", 1, "--boards-dir", boards).stdout.splitlines()
    assert zh == ["第 1 轮", "  第   1 场  1A/1B   号桌  第  1 套  T1 安徽  对  T2 北京",
                  "  第   2 场  2A/2B   号桌  第  1 套  T3 重庆  对  T4 大连",
                  "  第   3 场  3A/3B   号桌  第  1 套  T5 鄂尔多斯  对  T6 福州",
                  "  拼音顺序（排序键：先比不带声调的拼音字母，再比声调）：",
                  "     1. anhui (an1 hui1)  T1 安徽", "     2. beijing (bei3 jing1)  T2 北京",
                  "     3. chongqing (chong2 qing4)  T3 重庆", "     4. dalian (da4 lian2)  T4 大连",
                  "     5. eerduosi (e4 er3 duo1 si1)  T5 鄂尔多斯", "     6. fuzhou (fu2 zhou1)  T6 福州",
                  "已保存第 1 轮：3 场，0 个轮空"]
    missing = _ok("--lang", "zh", "results", "missing", event, "--boards-dir", boards).stdout.splitlines()
    assert missing[0] == "第 1 轮第 1 场（T1 对 T2）：缺 2 项：两桌的全部牌"
    assert missing[-1] == "共缺 6 项桌成绩"
    en = _ok("--lang", "en", "round", "show", event, "--round", 1, "--boards-dir", boards).stdout.splitlines()
    assert en[:2] == ["round 1", "  match   1  tables 1A/1B    set  1  T1 安徽  v  T2 北京"]
    missing = _ok("--lang", "en", "results", "missing", event, "--boards-dir", boards).stdout.splitlines()
    assert missing[0] == "round 1 match 1 (T1 v T2): 2 missing: all boards at both tables"
    assert missing[-1] == "6 table result(s) missing"
    undone = _ok("--lang", "en", "round", "undo", event, "--round", 1, "--reason", "wrong file",
                 "--boards-dir", boards)
    assert undone.stdout == "undid round 1 (3 match(es)); reason: wrong file\n"


def _swiss_of(teams: list[tuple[str, str, str | None]], first_round: str = "pinyin", avoid: bool = False) -> str:
    lines = ['[event]', 'id = "r1"', 'name = "Round one"', 'profile = "renmin-shuangsheng"', 'decks = 2',
             'boards_per_set = 1', '', '[format]', 'kind = "swiss"', 'rounds = 3',
             f'first_round = "{first_round}"', f'avoid_same_club = {"true" if avoid else "false"}']
    for team_id, name, club in teams:
        lines += ['', '[[teams]]', f'id = "{team_id}"', f'name = "{name}"', *([f'club = "{club}"'] if club else [])]
    return "\n".join(lines) + "\n"


def test_round_one_pairs_in_pinyin_letter_order_and_prints_the_keys(tmp_path: Path) -> None:
    """Seed 002 sorts by pinyin letters: 李白 libai < 黎明 liming < 历史 lishi < 离退休 lituixiu,
    though the first syllables' tones (lí 黎离, lǐ 李, lì 历) would sort them otherwise."""
    teams = [("T1", "黎明队", None), ("T2", "离退休联队", None), ("T3", "李白队", None), ("T4", "历史学院队", None)]
    event, boards = _event(tmp_path, _swiss_of(teams))
    paired = _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    first = _round(event, boards, 1)
    assert [(m["home"], m["away"]) for m in first["matches"]] == [("T3", "T1"), ("T4", "T2")]
    keys = ["libaidui (li3 bai2 dui4)", "limingdui (li2 ming2 dui4)",
            "lishixueyuandui (li4 shi3 xue2 yuan4 dui4)", "lituixiuliandui (li2 tui4 xiu1 lian2 dui4)"]
    assert first["sort_keys"] == [{"team": t, "key": k} for t, k in zip(["T3", "T1", "T4", "T2"], keys, strict=True)]
    assert "1. libaidui (li3 bai2 dui4)  T3 李白队" in paired.stdout
    assert "4. lituixiuliandui (li2 tui4 xiu1 lian2 dui4)  T2 离退休联队" in _ok(
        "round", "show", event, "--round", 1, "--boards-dir", boards).stdout
    out = tmp_path / "out"
    _ok("print", "pairings", event, "--round", 1, "--out", out, "--boards-dir", boards)
    text = page_texts(out / "pairings-round-01-zh.pdf")[0]
    assert "拼音顺序" in text
    for place, (key, team) in enumerate(zip(keys, ["T3 李白队", "T1 黎明队", "T4 历史学院队", "T2 离退休联队"],
                                            strict=True), start=1):
        assert f"{place} {key} {team}" in text
    # Round 2 is paired on the standings: no sort keys.
    _draws(tmp_path, event, boards, 1)
    _ok("round", "pair", event, "--round", 2, "--boards-dir", boards)
    assert "sort_keys" not in _round(event, boards, 2)


CLUBS = [("E1", "经济学院一队", "经济学院"), ("E2", "经济学院二队", "经济学院"), ("S1", "商学院一队", "商学院"),
         ("S2", "商学院二队", "商学院"), ("F", "法学院队", None), ("L", "理学院队", None)]


def test_round_one_keeps_a_clubs_teams_apart(tmp_path: Path) -> None:
    """Pinyin order 法 F, 经济二 E2, 经济一 E1, 理 L, 商二 S2, 商一 S1 pairs 商学院 with itself; the
    nearest swap (S2 with L, one place) separates them, and the round says so."""
    event, boards = _event(tmp_path, _swiss_of(CLUBS, avoid=True))
    paired = _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    first = _round(event, boards, 1)
    assert [(m["home"], m["away"]) for m in first["matches"]] == [("F", "E2"), ("E1", "S2"), ("L", "S1")]
    assert first["warnings"] == ["S2 and L swapped places in the order: two teams of club 商学院 would have met"]
    assert "S2 and L swapped places" in paired.stderr
    # Without avoid_same_club the order stands.
    (tmp_path / "plain").mkdir()
    plain, plain_boards = _event(tmp_path / "plain", _swiss_of(CLUBS))
    _ok("round", "pair", plain, "--round", 1, "--boards-dir", plain_boards)
    assert [(m["home"], m["away"]) for m in _round(plain, plain_boards, 1)["matches"]] == [
        ("F", "E2"), ("E1", "L"), ("S2", "S1")]


def test_round_one_warns_when_no_swap_keeps_a_club_apart(tmp_path: Path) -> None:
    """Three of four teams from one club: one pair of them must meet; the round is stored with a
    warning (nothing for the director to accept: no other draw exists)."""
    teams = [("E1", "经济学院一队", "经济学院"), ("E2", "经济学院二队", "经济学院"), ("E3", "经济学院三队", "经济学院"),
             ("F", "法学院队", None)]
    event, boards = _event(tmp_path, _swiss_of(teams, first_round="split", avoid=True))
    paired = _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    first = _round(event, boards, 1)
    # Seeds E1 E2 | E3 F: E1 v E3, E2 v F (the lower seed home at even tables); any swap that
    # parts E1 and E3 puts E2 with one of them.
    assert [(m["home"], m["away"]) for m in first["matches"]] == [("E1", "E3"), ("F", "E2")]
    assert first["warnings"] == ["E1 and E3 of club 经济学院 meet: no swap in the order separates them"]
    assert "warning: E1 and E3 of club 经济学院 meet" in paired.stderr


ROBIN8 = ROBIN.replace('id = "robin"', 'id = "rr8"').replace("cycles = 2\n", "").split("[[teams]]")[0] \
    + "".join(f'[[teams]]\nid = "R{i}"\nname = "第{i}队"\n' for i in range(1, 9))


def test_a_round_robin_is_paired_in_full_before_play_and_its_schedule_printed(tmp_path: Path) -> None:
    """Seed 000 §26 publishes the whole 轮次表 before play: a Berger table does not depend on
    results, so no round waits for the one before, and nothing is stored as a warning."""
    event, boards = _event(tmp_path, ROBIN8)
    out = tmp_path / "out"
    early = _run("print", "schedule", event, "--out", out, "--boards-dir", boards)
    assert early.exit_code == 2 and "0 of the 7 rounds are paired" in early.stderr and "--all" in early.stderr
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    second = _ok("round", "pair", event, "--round", 2, "--boards-dir", boards)  # round 1 has no result
    assert "warning" not in second.stderr
    skipped = _run("round", "pair", event, "--round", 4, "--boards-dir", boards)
    assert skipped.exit_code == 2 and "round pair EVENT.toml --all" in skipped.stderr
    paired = _ok("round", "pair", event, "--all", "--boards-dir", boards)
    assert "stored rounds 3 to 7 (20 match(es))" in paired.stdout and "warning" not in paired.stderr
    assert "every round (7) is paired already" in _ok("round", "pair", event, "--all", "--boards-dir", boards).stdout
    table = berger_table(8)
    for number in range(1, 8):
        data = _round(event, boards, number)
        assert data["warnings"] == []
        assert [(m["home"], m["away"], m["set"]) for m in data["matches"]] == [
            (f"R{h}", f"R{a}", number) for h, a in table[number - 1]]
    _ok("print", "schedule", event, "--out", out, "--boards-dir", boards)
    text = " ".join(page_texts(out / "schedule-zh.pdf"))
    assert "轮次表" in text and page_texts(out / "schedule-zh.pdf")[1:] == []  # one sheet
    for number in range(1, 8):
        h, a = table[number - 1][0]
        assert f"第 {number} 轮 场次 主队 客队 套牌 1 R{h} 第{h}队 R{a} 第{a}队 {number}" in " ".join(text.split())
    _ok("print", "schedule", event, "--lang", "en", "--out", out, "--boards-dir", boards)
    english = " ".join(" ".join(page_texts(out / "schedule-en.pdf")).split())
    assert "Schedule" in english and "Round 7 Match Home Away Set 1 R4 第4队 R8 第8队 7" in english
    # --all is for a fixed schedule; a Swiss has none to print ahead.
    (tmp_path / "swiss").mkdir()
    swiss, swiss_boards = _event(tmp_path / "swiss")
    refused = _run("round", "pair", swiss, "--all", "--boards-dir", swiss_boards)
    assert refused.exit_code == 2 and "--all pairs a round robin's whole schedule" in refused.stderr
    refused = _run("print", "schedule", swiss, "--out", out, "--boards-dir", swiss_boards)
    assert refused.exit_code == 2 and "no schedule ahead" in refused.stderr


def test_a_swiss_pairings_sheet_shows_the_points_before_the_round_and_the_halls_tables(tmp_path: Path) -> None:
    """The 对阵表 names the match 场 and its tables 1A/1B (or, with `table_numbers =
    "sequential"`, 1…2M); from round 2 each team's match points / 小分 before the round follow
    its name, the lateness deduction included."""
    event, boards = _event(tmp_path, SWISS.replace('boards_per_set = 1\n', 'boards_per_set = 1\n'
                                                   'table_numbers = "sequential"\n'))
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    _ok("results", "late", event, "--round", 1, "--team", "T2", "--minutes", 10, "--reason", "10 minutes late",
        "--boards-dir", boards)
    _play(tmp_path, event, boards, 1)
    # Round 1 (OUTCOMES): T1–T2 a draw (1 each, 小分 0; T2 −2 late), T3 beats T4 by 2, T5 beats T6 by 1.
    _ok("round", "pair", event, "--round", 2, "--boards-dir", boards)
    out = tmp_path / "out"
    for number in (1, 2):
        _ok("print", "pairings", event, "--round", number, "--format", "html", "--out", out, "--boards-dir", boards)
    first = (out / "pairings-round-01-zh.html").read_text(encoding="utf-8")
    assert "<th>场</th>" in first and "桌号" not in first
    assert "1 号桌" in first and "2 号桌" in first and "6 号桌" in first and "7 号桌" not in first
    assert "(0 / +0)" not in first  # nothing before round 1
    second = (out / "pairings-round-02-zh.html").read_text(encoding="utf-8")
    points = {"T1 安徽": "(1 / +0)", "T2 北京": "(1 / -2)", "T3 重庆": "(2 / +2)", "T4 大连": "(0 / -2)",
              "T5 鄂尔多斯": "(2 / +1)", "T6 福州": "(0 / -1)"}
    for team, shown in points.items():
        assert f"{team} {shown}" in second, team
    assert "本轮前的场分 / 小分" in second
    shown = _ok("round", "show", event, "--round", 2, "--boards-dir", boards).stdout
    assert "match   3  tables 5/6" in shown
