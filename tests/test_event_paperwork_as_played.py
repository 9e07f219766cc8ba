"""Issue 38 (part A): a Chinese event's paperwork as it was played, read back from the PDFs.

A 20-team seed-002 Swiss level race (profile renmin-shuangsheng: 2 tables a match, 90 minutes a
round, 20 s a play and 1 min 30 s for the kitty, §八.7) with its organisation, officials,
timetable and prizes in the event file plays two rounds through the command line: round 1 with a
lateness (秦淮队 10 minutes: −2 小分, §八.7), a penalty by a referee of the roster (one from outside
it refused, the roster listed), and an appeal against the penalty lodged and upheld by the
arbitration committee (§八.8), its effect the penalty's withdrawal; round 2 with a forfeit (雁塔队
未到场) and an appeal left open. The booklet (秩序册), both bulletins (成绩公告) and round 2's seating
plan (座位图) are printed and read back.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import Outcome, event_file, report_json_of, run_dealer
from print_support import page_texts

NAMES = ["东方明珠", "长城", "黄河", "泰山", "黄山", "峨眉", "华山", "衡山", "恒山", "嵩山",
         "庐山", "秦淮", "钱塘", "洞庭", "鄱阳", "太湖", "西湖", "漓江", "珠江", "雁塔"]
TEAMS = "".join(f'[[teams]]\nid = "T{i}"\nname = "{name}队"\nmixed_club = {"true" if i % 3 == 0 else "false"}\n'
                for i, name in enumerate(NAMES, start=1))
EVENT = f'''
[event]
id = "renmin-2026"
name = "中国人民大学第十届双升比赛"
date = "2026-12-05"
timezone = "Asia/Shanghai"
profile = "renmin-shuangsheng"
result = "levels"
tables = 2

[format]
kind = "swiss"
rounds = 5

[organization]
host = "中国人民大学校工会"
organizer = "校工会棋牌协会"
co_organizers = ["信息学院分会", "法学院分会"]
venue = "中国人民大学世纪馆二层"
start_times = ["09:00", "11:00", "14:00", "16:00", "2026-12-06 09:00"]
captains_meeting = "2026-12-05 08:30，世纪馆会议室"
arrival_minutes = 5
appeal_minutes = 30
appeal_deposit = "200 元，申诉成立时退还"

[officials]
chief_referee = "王建国"
deputy_referees = ["李明"]
referees = ["赵敏", "孙立"]
arbitration = ["周正", "吴平", "郑华"]

[[prizes]]
name = "一等奖"
teams = 1
[[prizes]]
name = "二等奖"
teams = 2
[[prizes]]
name = "三等奖"
teams = 4

{TEAMS}'''
LEVELS = ["K", "8", "5", "9", "Q", "10", "3", "4", "J", "6", "A", "7", "9", "K", "10", "2", "6", "Q", "8", "5"]
#: A word of the tool's own on a Chinese page: a run of two or more Latin letters (team ids, card
#: levels, 过A and the chain's hex digits are one letter at a time or inside the hash line).
ENGLISH = re.compile(r"[A-Za-z][A-Za-z_]+")


def _ok(*args: object) -> str:
    code, out, err = run_dealer(*args)
    assert code == 0, out + err
    return out


def _results(event: Path, boards: Path, folder: Path, number: int, skip_match: str | None = None) -> None:
    """Round ``number``'s results: its template filled in (every table but ``skip_match``'s) and imported."""
    template = folder / f"r{number}.csv"
    _ok("results", "template", event, "--round", number, "--output", template, "--boards-dir", boards)
    with template.open(encoding="utf-8-sig", newline="") as source:
        rows = list(csv.reader(source))
    filled = [rows[0]]
    for i, row in enumerate(rows[1:]):
        if row[1] == skip_match:
            continue
        row[5], row[6] = LEVELS[(i + number) % len(LEVELS)], LEVELS[(i + 3) % len(LEVELS)]
        filled.append(row)
    done = folder / f"r{number}-filled.csv"
    with done.open("w", encoding="utf-8", newline="") as target:
        csv.writer(target).writerows(filled)
    _ok("results", "import", event, done, "--boards-dir", boards)


def _printed(event: Path, boards: Path, out: Path, kind: str, *args: object) -> tuple[str, list[str]]:
    """``dealer print KIND``: what it said and the PDF's pages' text."""
    said = _ok("print", kind, event, "--out", out, "--boards-dir", boards, *args)
    (pdf,) = out.glob(f"{kind}*.pdf")
    return said, page_texts(pdf)


@dataclass
class Played:
    """What the two rounds said and printed."""

    said: dict[str, str] = field(default_factory=dict)  # a command's output
    refused: dict[str, Outcome] = field(default_factory=dict)  # a refused command's outcome
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)  # the report JSON at a moment
    papers: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # what print said, the pages
    forfeit_match: str = ""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    folder = tmp_path_factory.mktemp("paperwork38")
    event, boards = event_file(folder, EVENT)
    said = Played()
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    # Round 1: T12 秦淮队 10 minutes late: −2 小分 (seed 002 §八.7: 5 to 15 minutes).
    _ok("results", "late", event, "--round", 1, "--team", "T12", "--minutes", 10, "--reason", "秦淮队迟到 10 分钟",
        "--by", "王建国", "--boards-dir", boards)
    # A penalty by someone not on the roster is refused, the roster listed; by a referee it is taken.
    said.refused["by"] = run_dealer("results", "penalty", event, "--round", 1, "--team", "T5", "--net-levels", -1,
                                    "--reason", "交头接耳", "--by", "张三", "--boards-dir", boards)
    _ok("results", "penalty", event, "--round", 1, "--team", "T5", "--net-levels", -1, "--reason", "交头接耳",
        "--by", "赵敏", "--boards-dir", boards)
    _results(event, boards, folder, 1)
    said.reports["before"] = report_json_of(event, boards)
    said.said["lodged"] = _ok("results", "appeal", event, "--round", 1, "--team", "T5",
                              "--against", "第 1 轮对 T5 的判罚", "--reason", "并未交头接耳", "--by", "黄山队领队",
                              "--boards-dir", boards)
    said.reports["during"] = report_json_of(event, boards)
    # Only the arbitration committee decides; the chief referee is refused, naming its members.
    said.refused["decider"] = run_dealer("results", "appeal", event, "--round", 1, "--team", "T5", "--decide",
                                         "upheld", "--by", "王建国", "--reason", "x", "--boards-dir", boards)
    said.said["decided"] = _ok("results", "appeal", event, "--round", 1, "--team", "T5", "--decide", "upheld",
                          "--by", "周正", "--reason", "录像显示无交头接耳", "--boards-dir", boards)
    _ok("results", "penalty", event, "--round", 1, "--team", "T5", "--withdraw", "--reason", "申诉 1 成立",
        "--by", "周正", "--boards-dir", boards)
    said.reports["after"] = report_json_of(event, boards)
    # T19 珠江队 withdraws after round 1 (a bye in round 2: 19 teams). Round 2: T20 雁塔队 does not
    # come: its match is forfeited, the other matches play.
    _ok("teams", "withdraw", event, "T19", "--after-round", 1, "--reason", "珠江队因故退出", "--boards-dir", boards)
    pairing = _ok("round", "pair", event, "--round", 2, "--boards-dir", boards)
    found = re.search(r"match\s+(\d+)\s.*T20 ", pairing)
    assert found, pairing
    match = found.group(1)
    said.forfeit_match = match
    _ok("results", "forfeit", event, "--round", 2, "--match", match, "--team", "T20",
        "--reason", "雁塔队第 2 轮未到场", "--by", "王建国", "--boards-dir", boards)
    _results(event, boards, folder, 2, skip_match=match)
    _ok("results", "appeal", event, "--round", 2, "--team", "T3", "--against", "第 2 轮第 1 场 1 号桌成绩",
        "--reason", "记分有误", "--boards-dir", boards)
    out = folder / "papers"
    for name, kind, args in (("booklet", "booklet", ()), ("bulletin1", "bulletin", ("--round", 1)),
                             ("bulletin2", "bulletin", ("--round", 2)), ("seating2", "seating", ("--round", 2))):
        said.papers[name] = _printed(event, boards, out / name, kind, *args)
    return said


def test_the_booklet_holds_every_section_of_a_chinese_booklet(played: Played) -> None:
    _said, pages = played.papers["booklet"]
    text = "\n".join(pages)
    flat = re.sub(r"\s", "", text)  # a long line wraps where its column ends
    for section in ("秩序册", "竞赛规程", "竞赛组织", "日程", "参赛队及队员", "赛程", "规则与级分表"):
        assert section in text, section
    # 主办/承办/协办 units and the venue
    for line in ("主办单位 中国人民大学校工会", "承办单位 校工会棋牌协会", "协办单位 信息学院分会、法学院分会",
                 "比赛地点 中国人民大学世纪馆二层"):
        assert line in text, line
    # the rules by their text and version in words; the method and the tables of a match
    assert "竞赛规则《中国人民大学“双升”比赛规则》，第1版，2副牌" in flat
    assert "共5轮" in flat and "每场2桌" in flat
    # the timetable: each round's start and its end, 90 minutes later; the captains' meeting
    assert "第 1 轮 2026-12-05 09:00–10:30" in text and "第 5 轮 2026-12-06 09:00–10:30" in text
    assert "领队会议 2026-12-05 08:30，世纪馆会议室" in text
    # the prizes (seed 002 §八.6: 1, 2 and 4 teams)
    assert "一等奖：1 队" in text and "二等奖：2 队" in text and "三等奖：4 队" in text
    # officials
    assert "裁判长 王建国" in text and "副裁判长 李明" in text and "裁判员 赵敏、孙立" in text
    assert "仲裁委员会 周正、吴平、郑华" in text
    # time limits (§八.7), arrival and lateness (§八.7), appeals (§八.8)
    assert "每轮限时90分钟" in flat and "每次出牌不超过20秒" in flat and "庄家扣底牌不超过1分30秒" in flat
    assert "每轮开始前5分钟到场就座" in flat
    assert "迟到5–15分钟：该队小分-2" in flat and "本轮按弃权处理" in flat
    assert "成绩公告后30分钟内提出申诉，由仲裁委员会裁决" in flat and "申诉费：200元" in flat
    # every team
    assert all(f"T{i} {name}队" in text for i, name in enumerate(NAMES, start=1))
    # no English word of the tool's own, no note about the scraped text
    assert ENGLISH.findall(text) == []
    assert "抓取" not in text and "解释" not in text


def test_the_bulletins_say_the_lateness_the_forfeit_and_the_appeals(played: Played) -> None:
    _said, pages1 = played.papers["bulletin1"]
    one = "\n".join(pages1)
    assert "T12 秦淮队 迟到 10 分钟（秦淮队迟到 10 分钟）：小分 -2" in one
    assert "申诉 1：第 1 轮 T5 黄山队，申诉事项：第 1 轮对 T5 的判罚" in one
    assert "裁决：申诉成立（周正，" in one and "录像显示无交头接耳" in one
    assert "临时成绩" not in one  # round 1's own appeal is decided; round 2's does not touch it
    _said, pages2 = played.papers["bulletin2"]
    two = "\n".join(pages2)
    match = played.forfeit_match
    assert f"第 {match} 场：T20 雁塔队 弃权（雁塔队第 2 轮未到场），T17 西湖队 胜。" in two or \
        re.search(rf"第 {match} 场：T20 雁塔队 弃权（雁塔队第 2 轮未到场），T\d+ \S+队 胜。", two)
    assert re.search(rf"^{match} .*T20 雁塔队.*T20（弃权）", two, re.M), two
    assert "申诉 2：第 2 轮 T3 黄河队" in two and "待裁决" in two
    assert "临时成绩：1 项申诉待裁决（申诉 2）" in two
    assert "T19 珠江队 自第 1 轮后退出比赛（珠江队因故退出）。" in two and "T19 珠江队 自第 1 轮后退出" not in one
    for text in (one, two):  # no English word of the tool's own (the chain head is hex digits)
        assert ENGLISH.findall(re.sub(r"\b[0-9a-f]{64}\b", "", text)) == []


def test_the_seating_plan_marks_the_absent_team(played: Played) -> None:
    _said, pages = played.papers["seating2"]
    lines = "\n".join(pages).splitlines()
    absent = [i for i, line in enumerate(lines) if line == "弃权，未到场"]
    assert len(absent) == 2  # both tables of the forfeited match
    assert all(lines[i - 1] == "T20 雁塔队" for i in absent)
    assert sum(1 for line in lines if "雁塔队" in line) == 2
    assert ENGLISH.findall("\n".join(lines)) == []


def test_seed_002_8_8_an_appeal_to_the_arbitration_committee_keeps_the_standings_provisional_until_decided(
        played: Played) -> None:
    """Seed 002 §八.8: a player who disputes a referee's ruling may ask the arbitration committee."""
    refused = played.refused["by"]
    assert refused.exit_code == 2 and "张三" in refused.stderr and "王建国、李明、赵敏、孙立" in refused.stderr
    refused = played.refused["decider"]
    assert refused.exit_code == 2 and "周正、吴平、郑华" in refused.stderr
    before, during, after = (played.reports[k] for k in ("before", "during", "after"))
    assert before["status"]["appeals_pending"] == 0
    assert during["status"]["appeals_pending"] == 1 and not during["status"]["final"]
    (appeal,) = during["appeals"]
    assert appeal["number"] == 1 and appeal["decision"] is None and appeal["deadline"]
    assert after["appeals"][0]["decision"] == "upheld" and after["appeals"][0]["decided_by"] == "周正"
    assert after["status"]["appeals_pending"] == 0
    # the upheld appeal's effect: T5's −1 小分 withdrawn
    net = {s["team"]: s["net_level_points"] for s in during["standings"]}
    net_after = {s["team"]: s["net_level_points"] for s in after["standings"]}
    assert net_after["T5"] == net["T5"] + 1
    assert "appeal 1 recorded" in played.said["lodged"] and "deadline 2026-12-05" in played.said["lodged"]
    assert "appeal 1 upheld" in played.said["decided"]


def test_the_page_counts_printed_match_the_pdfs(played: Played) -> None:
    for name in ("booklet", "bulletin1", "bulletin2", "seating2"):
        said, pages = played.papers[name]
        counted = re.search(r"(\d+) pages?", said)
        assert counted and int(counted.group(1)) == len(pages), (name, said, len(pages))
