"""An event's own rules (补充规定, seed 000 第二十三条): a ``[rules]`` table over its profile's
keys, or a profile file of its own, through the command line: scored, ranked, printed by
``dealer rules explain EVENT.toml``, on every report format and the site; a bad rule refused by
file and key.

The event is a level race (seed 002's profile, 2 tables a match, start 2) of 6 teams and 2
listed rounds, so nothing is dealt; every expected value is worked out by hand below.
"""

from __future__ import annotations

import csv
import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from conftest import run_dealer

EVENT = """
[event]
id = "club-cup"
name = "俱乐部杯"
profile = "renmin-shuangsheng"
result = "levels"
tables = 2

[[teams]]
id = "T1"
[[teams]]
id = "T2"
[[teams]]
id = "T3"
[[teams]]
id = "T4"
[[teams]]
id = "T5"
[[teams]]
id = "T6"

[[rounds]]
number = 1
matches = [{ id = "1", home = "T1", away = "T2" }, { id = "2", home = "T3", away = "T4" },
           { id = "3", home = "T5", away = "T6" }]
[[rounds]]
number = 2
matches = [{ id = "1", home = "T1", away = "T3" }, { id = "2", home = "T2", away = "T4" },
           { id = "3", home = "T5", away = "T6" }]
"""
#: The 竞赛规程's own rules: win 3, draw 1, loss 0; teams level on match points are split by lots.
RULES = """
[rules]
match_points = { win = 3, draw = 1, loss = 0 }
tie_breaks = ["lots"]
"""
# Start 2: a level's climbed levels are its distance from 2 (5 → 3, 7 → 5). Net = home − away.
ROWS = [
    # R1 M1 T1 v T2: 5 v 4 (+1), 3 v 3 (0): net +1, T1 wins.
    ("1", "1", "1", "5", "4"), ("1", "1", "2", "3", "3"),
    # R1 M2 T3 v T4 and M3 T5 v T6: the same levels at each table: draws.
    ("1", "2", "1", "4", "4"), ("1", "2", "2", "6", "6"),
    ("1", "3", "1", "3", "3"), ("1", "3", "2", "3", "3"),
    # R2 M1 T1 v T3: 2 v 7 (−5), 3 v 3 (0): net −5, T3 wins.
    ("2", "1", "1", "2", "7"), ("2", "1", "2", "3", "3"),
    # R2 M2 T2 v T4 and M3 T5 v T6: draws.
    ("2", "2", "1", "4", "4"), ("2", "2", "2", "4", "4"),
    ("2", "3", "1", "5", "5"), ("2", "3", "2", "5", "5"),
]
# Win 3 / draw 1 / loss 0: T3 1 + 3 = 4; T1 3 + 0 = 3; T4 1 + 1 = 2; T5 2; T6 2; T2 0 + 1 = 1.
# T4, T5 and T6 are level on 2: lots decide (below). The profile's own 2 / 1 / 0 and chain
# (小分, 对手分, mixed club) give T3 3; T1, T4, T5, T6 2; T2 1, where T1's 小分 (+1 − 5 = −4)
# puts it below T4, T5, T6 (0 each), who then share 2nd (对手分 T4: T3 3 + T2 1 = 4; T5 and T6:
# each other twice, 2 + 2 = 4).
DEFAULT_ORDER = [("T3", 3, 1), ("T4", 2, 2), ("T5", 2, 2), ("T6", 2, 2), ("T1", 2, 5), ("T2", 1, 6)]


def _lots(team: str) -> int:
    """The lots as docs/tournaments.md states them: SHA-256 of the public seed (a level race has
    no commitment: the event id) and the team id, the first 6 bytes, larger first."""
    return int.from_bytes(hashlib.sha256(b"club-cup\x00" + team.encode()).digest()[:6], "big")


def _expected_with_rules() -> list[tuple[str, int, int]]:
    drawn = sorted(["T4", "T5", "T6"], key=_lots, reverse=True)
    return [("T3", 4, 1), ("T1", 3, 2), *((team, 2, 3 + i) for i, team in enumerate(drawn)), ("T2", 1, 6)]


def _setup(tmp_path: Path, text: str) -> tuple[Path, Path]:
    event = tmp_path / "event" / "club-cup.toml"
    event.parent.mkdir(exist_ok=True)
    event.write_text(text, encoding="utf-8")
    results = tmp_path / "tables.csv"
    results.write_text("round,match,table,home_level,away_level\n"
                       + "".join(",".join(row) + "\n" for row in ROWS), encoding="utf-8")
    boards = tmp_path / "boards"
    boards.mkdir()  # a given --boards-dir must exist (a mistyped one is refused, never made)
    code, _out, err = run_dealer("results", "import", event, results, "--boards-dir", boards)
    assert code == 0, err
    return event, boards


def _ranked(event: Path, boards: Path) -> tuple[dict[str, object], list[tuple[str, int, int]]]:
    code, out, err = run_dealer("report", event, "--json", "--boards-dir", boards)
    assert code == 0, err
    data = json.loads(out)
    return data, [(s["team"], s["match_points"], s["rank"]) for s in data["standings"]]


def test_the_profile_alone_ranks_otherwise(tmp_path: Path) -> None:
    """The control: the same results under the profile's own rules, no 补充规定 anywhere."""
    event, boards = _setup(tmp_path, EVENT)
    data, ranked = _ranked(event, boards)
    assert ranked == DEFAULT_ORDER
    assert data["supplement"] == {} and data["tie_breaks"] == ["net_level_points", "opponents_match_points",
                                                               "mixed_club"]
    code, out, _err = run_dealer("rules", "explain", event, "--lang", "en")
    assert code == 0 and "The event has no supplementary rules" in out


def test_an_events_own_rules_score_rank_and_are_printed(tmp_path: Path) -> None:
    event, boards = _setup(tmp_path, EVENT + RULES)
    data, ranked = _ranked(event, boards)
    assert ranked == _expected_with_rules()
    assert data["profile"] == "renmin-shuangsheng" and data["profile_version"] == 1
    assert data["tie_breaks"] == ["lots"]
    assert data["supplement"] == {"match_points": {"win": 3, "draw": 1, "loss": 0}, "tie_breaks": ["lots"]}
    matches = {(m["round"], m["match"]): m for m in data["matches"]}  # type: ignore[attr-defined]
    assert (matches[(1, "1")]["home_match_points"], matches[(1, "1")]["away_match_points"]) == (3, 0)
    assert (matches[(1, "2")]["home_match_points"], matches[(1, "2")]["away_match_points"]) == (1, 1)

    # rules explain EVENT.toml: the event's own rules first, then the whole profile as it applies.
    code, out, err = run_dealer("rules", "explain", event, "--lang", "en")
    assert code == 0, err
    head = out.split("\n\n")[0].splitlines()
    assert head == ["Rules of the event 俱乐部杯 (club-cup)",
                    "Supplementary rules (what the event changed):",
                    "  match points: win 3, draw 1, loss 0",
                    "  tie-breaks, in order: lots"]
    assert "Rule profile renmin-shuangsheng v1" in out and "bye: 3 match points" in out  # a bye is a win
    code, out, err = run_dealer("rules", "explain", event)  # zh, the default of papers
    assert code == 0 and "补充规定（本赛事对规则的改动）:\n  场分：胜 3，平 1，负 0\n  名次相同依次比较: 抽签" in out

    # Every report format says it beside the profile's id and version.
    folder = tmp_path / "reports"
    code, out, err = run_dealer("report", event, "--format", "html,pdf,csv,xlsx", "--out", folder,
                                "--boards-dir", boards, "--lang", "en")
    assert code == 0, err
    html = (folder / "index.html").read_text(encoding="utf-8") if (folder / "index.html").exists() else \
        next(folder.glob("*.html")).read_text(encoding="utf-8")
    said = "Supplementary rules: match points: win 3, draw 1, loss 0; tie-breaks, in order: lots"
    assert "renmin-shuangsheng v1" in html and said in html
    import pypdf

    pdf = "".join(page.extract_text() for page in pypdf.PdfReader(next(folder.glob("*.pdf"))).pages)
    assert "Supplementary rules" in pdf and "win 3, draw 1, loss 0" in pdf
    with (folder / "rules.csv").open(encoding="utf-8-sig") as stream:
        rows = list(csv.reader(stream))
    assert rows == [["Profile", "Supplementary rules"],
                    ["renmin-shuangsheng v1", "match points: win 3, draw 1, loss 0"],
                    ["renmin-shuangsheng v1", "tie-breaks, in order: lots"]]
    with zipfile.ZipFile(next(folder.glob("*.xlsx"))) as book:
        names = book.read("xl/workbook.xml").decode()
        strings = book.read("xl/sharedStrings.xml").decode() if "xl/sharedStrings.xml" in book.namelist() else \
            "".join(book.read(n).decode() for n in book.namelist() if n.startswith("xl/worksheets/"))
    assert 'name="rules"' in names and "tie-breaks, in order: lots" in strings

    # The site: every page's footer, and the JSON twins carry the changed keys as data.
    site = tmp_path / "site"
    code, out, err = run_dealer("site", event, "--boards-dir", boards, "--out", site, "--no-pdf")
    assert code == 0, err
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "renmin-shuangsheng v1 (人大双升比赛规则) · 补充规定: 场分：胜 3，平 1，负 0; 名次相同依次比较: 抽签" in home
    english = (site / "en" / "standings.html").read_text(encoding="utf-8")
    assert "supplementary rules (补充规定): match points: win 3, draw 1, loss 0" in english
    twin = json.loads((site / "standings.json").read_text(encoding="utf-8"))
    assert twin["event"]["supplement"]["tie_breaks"] == ["lots"]


def test_a_table_of_rules_merges_key_by_key_and_a_bye_follows_the_win(tmp_path: Path) -> None:
    """``[rules.match_points] win = 3`` keeps the profile's draw and loss; only what changed is
    listed; a lateness rule replaced as a whole."""
    event, boards = _setup(tmp_path, EVENT + """
[rules]
match_points = { win = 3 }
lateness = [{ min_minutes = 10, net_level_points = -1 }]
forfeit = { winner_levels_per_table = 5 }
""")
    data, _ = _ranked(event, boards)
    # forfeit is the profile's own value: not a change, not listed.
    assert data["supplement"] == {"match_points": {"win": 3, "draw": 1, "loss": 0},
                                  "lateness": [{"min_minutes": 10, "net_level_points": -1}]}
    code, out, err = run_dealer("rules", "explain", event, "--lang", "en")
    assert code == 0, err
    assert "  ≥ 10 minutes late: the team's net level points -1\n" in out.split("\n\n")[0] + "\n"
    assert "5–15 minutes late" not in out
    assert "bye: 3 match points, 0 level points" in out  # the profile's bye is "a win"


@pytest.mark.parametrize(("rules", "said"), [
    ('tie_break = ["lots"]', "rules: unknown key(s) tie_break (known: bye, field, final_place_points, forfeit,"),
    ('tie_breaks = ["coin"]', "rules.tie_breaks: unknown tie-break 'coin' (known: net_level_points,"),
    ('tie_breaks = "lots"', "rules.tie_breaks: expected a list of tie-break names, each once, got 'lots'"),
    ('match_points = { win = "three" }', "rules.match_points.win: expected a whole number from 0 to 100, got 'three'"),
    ("match_points = { win = 1, draw = 1, loss = 1 }", "rules.match_points: a win must be worth more than a loss"),
    ("match_points = { won = 3 }", "rules.match_points: unknown key(s) won (known: draw, loss, win)"),
    ("bye = 3", "rules.bye: expected a table"),
    ("lateness = [{ min_minutes = 5, net_level_points = 2 }]",
     "rules.lateness[0].net_level_points: expected a whole number from -100 to 0, got 2"),
    ("decks = {}", "rules.decks: an event's rules cannot change the profile's identity or deck rules"),
    ('name_zh = "我的规则"', "rules.name_zh: an event's rules cannot change"),
    ("knockout_tie_breaks = []", "rules.knockout_tie_breaks: expected a list of boards_won, countback"),
])
def test_a_bad_rule_is_refused_naming_the_file_and_key(tmp_path: Path, rules: str, said: str) -> None:
    event = tmp_path / "club-cup.toml"
    event.write_text(EVENT + "\n[rules]\n" + rules + "\n", encoding="utf-8")
    for args in (("rules", "explain", event), ("report", event, "--json", "--boards-dir", tmp_path / "boards")):
        code, out, err = run_dealer(*args)
        assert code == 2 and out == "", err
        assert err == f"error: {event}: {said}" or err.startswith(f"error: {event}: {said}"), err
    assert not (tmp_path / "boards").exists()


def _own_profile(base: str = "renmin-shuangsheng", **changes: str) -> str:
    from dealer.resources import _DATA

    text = (_DATA / "profiles" / f"{base}.toml").read_text(encoding="utf-8")
    for old, new in changes.items():
        assert old in text
        text = text.replace(old, new)
    return text


def test_an_event_with_a_profile_file_of_its_own(tmp_path: Path) -> None:
    """``profile = "rules/club.toml"``: a path from the event file's folder (the command run from
    elsewhere), checked as a built-in profile, its own name and version on the report."""
    text = _own_profile(**{'id = "renmin-shuangsheng"': 'id = "club-cup-rules"', "version = 1": "version = 3",
                           'name_en = "Renmin University Shuangsheng contest rules"': 'name_en = "Club cup rules"',
                           "match_points = { win = 2, draw = 1, loss = 0 }":
                           "match_points = { win = 3, draw = 1, loss = 0 }",
                           'tie_breaks = ["net_level_points", "opponents_match_points", "mixed_club"]':
                           'tie_breaks = ["lots"]'})
    (tmp_path / "event" / "rules").mkdir(parents=True)
    (tmp_path / "event" / "rules" / "club.toml").write_text(text, encoding="utf-8")
    event, boards = _setup(tmp_path, EVENT.replace('profile = "renmin-shuangsheng"', 'profile = "rules/club.toml"'))
    data, ranked = _ranked(event, boards)
    assert ranked == _expected_with_rules()
    assert (data["profile"], data["profile_version"], data["supplement"]) == ("club-cup-rules", 3, {})
    code, out, err = run_dealer("rules", "explain", event, "--lang", "en")
    assert code == 0 and "Rule profile club-cup-rules v3: Club cup rules" in out, err

    # The event's rules over its own profile file: listed as changes of that profile.
    event.write_text(event.read_text(encoding="utf-8") + '\n[rules]\ntie_breaks = ["net_level_points", "lots"]\n',
                     encoding="utf-8")
    data, _ = _ranked(event, boards)
    assert data["profile"] == "club-cup-rules" and data["supplement"] == {"tie_breaks": ["net_level_points", "lots"]}


@pytest.mark.parametrize(("file_text", "said"), [
    (None, "event.profile: {path}: no such rule profile file"),
    ("id = [", "event.profile: {path}: not valid TOML"),
    ("KEEP", "event.profile: {path}: id 'renmin-shuangsheng' is a built-in profile's: give the event's own "
             "profile an id of its own"),
    ("match_points = { win = 2, draw = 1, loss = 0 }", "event.profile: {path}: profile mine, decks: the profile "
                                                       "defines no deck rules"),
    ("BANDS", "event.profile: {path}: profile mine, decks.2.bands[0].base: expected a whole number from 0 to 100, "
              "got 'three'"),
])
def test_a_bad_profile_file_is_refused_naming_it(tmp_path: Path, file_text: str | None, said: str) -> None:
    path = tmp_path / "mine.toml"
    if file_text == "KEEP":
        file_text = _own_profile()
    elif file_text == "BANDS":
        file_text = _own_profile(**{'id = "renmin-shuangsheng"': 'id = "mine"',
                                    '{ max = 0,   side = "declarer", base = 3 }':
                                    '{ max = 0,   side = "declarer", base = "three" }'})
    elif file_text is not None and not file_text.startswith("id"):
        file_text = 'id = "mine"\n' + file_text
    if file_text is not None:
        path.write_text(file_text, encoding="utf-8")
    event = tmp_path / "club-cup.toml"
    event.write_text(EVENT.replace('profile = "renmin-shuangsheng"', 'profile = "mine.toml"'), encoding="utf-8")
    code, _out, err = run_dealer("rules", "explain", event)
    assert code == 2, err
    assert err.startswith(f"error: {event}: " + said.format(path=path)), err


def test_a_dealt_boards_event_takes_its_rules_after_the_commitment(dealt: tuple[object, Path], tmp_path: Path) -> None:
    """The rules change no board: the demo, dealt and committed, given ``[rules]`` afterwards,
    still passes the deal's checks, and its matches score 3 / 1 / 0 (the same boards and level
    points as under the profile's 2 / 1 / 0)."""
    from dealer.resources import _DATA, demo_event_text

    _event, root = dealt
    plain, ruled = tmp_path / "plain.toml", tmp_path / "ruled.toml"
    plain.write_text(demo_event_text(), encoding="utf-8")
    ruled.write_text(demo_event_text() + RULES, encoding="utf-8")
    code, out, err = run_dealer("results", "import", ruled, _DATA / "sample-travellers.csv", "--boards-dir", root)
    assert code == 0, err
    reports = {}
    for path in (plain, ruled):
        code, out, err = run_dealer("report", path, "--json", "--boards-dir", root)
        assert code == 0, err
        reports[path] = json.loads(out)
    for before, after in zip(reports[plain]["matches"], reports[ruled]["matches"], strict=True):
        assert (after["home_level_points"], after["away_level_points"]) == \
            (before["home_level_points"], before["away_level_points"])
        three = {2: 3, 1: 1, 0: 0}  # a win, a draw, a loss
        assert (after["home_match_points"], after["away_match_points"]) == \
            (three[before["home_match_points"]], three[before["away_match_points"]])
    assert any(m["home_match_points"] == 3 or m["away_match_points"] == 3 for m in reports[ruled]["matches"])
    assert reports[ruled]["supplement"]["tie_breaks"] == ["lots"]
