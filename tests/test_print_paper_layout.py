"""A 20-team field's wall papers, laid out as a director posts them (live event review 4, §10; issue
38): the 成绩公告 of round 1 fits one A4 page with its signature box under its standings, the 座位图
of round 2 never cuts a table's row across two pages, and ``dealer print`` says the pages each
PDF holds. A level race of 20 teams paired Swiss through the command line, its round 1 entered."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from conftest import run_dealer
from print_support import page_texts

NAMES = ["东方明珠队", "长城队", "黄河队", "泰山队", "昆仑队", "珠江队", "阿里山队", "北斗队", "长江队", "华山队",
         "峨眉队", "天山队", "秦淮队", "西湖队", "洞庭队", "太湖队", "鼓浪屿队", "大雁塔队", "黄鹤楼队", "雁塔队"]
LEVELS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def _ok(*args: object) -> str:
    code, out, err = run_dealer(*args)
    assert code == 0, out + err
    return out


@pytest.fixture(scope="module")
def field(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("twenty")
    lines = ["[event]", 'id = "t20"', 'name = "二十队双升积分赛"', 'profile = "official-2002"', 'result = "levels"',
             "tables = 2", "", "[format]", 'kind = "swiss"', "rounds = 5", ""]
    for i, name in enumerate(NAMES, start=1):
        lines += ["[[teams]]", f'id = "T{i:02d}"', f'name = "{name}"', f'club = "第{i}分会"', ""]
    event = root / "t20.toml"
    event.write_text("\n".join(lines), encoding="utf-8")
    boards = root / "boards"
    boards.mkdir()
    _ok("round", "pair", event, "--round", 1, "--boards-dir", boards)
    matches = json.loads(_ok("round", "show", event, "--round", 1, "--json", "--boards-dir", boards))["matches"]
    draw = random.Random(38)
    rows = ["round,match,table,home_level,away_level,last_game"]
    for m in matches:
        for table in (1, 2):
            home, away = draw.sample(LEVELS, 2)
            rows.append(f"1,{m['match']},{table},{home},{away},")
    (root / "r1.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    _ok("results", "import", event, root / "r1.csv", "--boards-dir", boards)
    _ok("round", "pair", event, "--round", 2, "--boards-dir", boards)
    return event, boards


def _printed(field: tuple[Path, Path], out: Path, *args: object) -> tuple[list[str], str]:
    event, boards = field
    said = _ok("print", *args[:1], event, *args[1:], "--out", out, "--boards-dir", boards)
    (pdf,) = out.glob("*.pdf")
    pages = page_texts(pdf)
    assert f"{pdf}  {len(pages)} page(s)" in said  # the summary counts the PDF's own pages
    return pages, said


def test_the_20_team_bulletin_fits_one_page_with_its_signature_box(field: tuple[Path, Path], tmp_path: Path) -> None:
    pages, _said = _printed(field, tmp_path, "bulletin", "--round", 1)
    assert len(pages) == 1
    (page,) = pages
    assert "第 1 轮后名次" in page and all(f"T{i:02d} {name}" in page for i, name in enumerate(NAMES, start=1))
    # The box signs what is above it: the standings' last row, the chain head, then the box.
    assert page.index("成绩数据链校验值") < page.index("裁判长签名") < page.index("公布时间")
    assert page.index("\n20 T") < page.index("成绩数据链校验值")


def test_a_longer_bulletin_takes_rows_along_rather_than_leave_the_box_alone(field: tuple[Path, Path],
                                                                             tmp_path: Path) -> None:
    """With more text than a page holds (a director's notes, forfeits, penalties), the signature box
    still shares its page with standings rows."""
    event, boards = field
    for team in ("T01", "T02", "T03", "T04", "T05", "T06", "T07", "T08"):
        _ok("results", "penalty", event, "--round", 1, "--team", team, "--net-levels", -1, "--reason",
            "记分表迟交，按补充规定扣一小分：裁判组讨论后决定，赛后张贴于成绩公告之下以示公开", "--by", "裁判长",
            "--boards-dir", boards)
    pages, _said = _printed(field, tmp_path, "bulletin", "--round", 1)
    assert len(pages) == 2
    last = pages[-1]
    # The box shares its page with what it signs: standings rows or the round's notes above it.
    signed = last.split("成绩数据链校验值")[0]
    assert "裁判长签名" in last and re.search(r"^(\d+ T\d\d |第 1 轮第 \d+ 场：T\d\d )", signed, re.MULTILINE), last
    for team in ("T01", "T02", "T03", "T04", "T05", "T06", "T07", "T08"):
        _ok("results", "penalty", event, "--round", 1, "--team", team, "--withdraw", "--reason", "撤回",
            "--by", "裁判长", "--boards-dir", boards)


def test_the_20_team_seating_plan_never_cuts_a_tables_row(field: tuple[Path, Path], tmp_path: Path) -> None:
    event, boards = field
    matches = json.loads(_ok("round", "show", event, "--round", 2, "--json", "--boards-dir", boards))["matches"]
    names = dict(zip((f"T{i:02d}" for i in range(1, 21)), NAMES, strict=True))
    pages, _said = _printed(field, tmp_path, "seating", "--round", 2)
    assert len(pages) == 2  # 20 tables with their pairs' lines do not fit one page
    for m in matches:
        for table in (1, 2):
            # Each table's row: its name and match, then the home and away team, all on one page.
            holding = [page for page in pages if re.search(rf"^{m['match']}-{table} {m['match']} ", page, re.MULTILINE)]
            assert len(holding) == 1, (m, table)
            after = holding[0].split(f"{m['match']}-{table} {m['match']} ", 1)[1]
            assert after.index(f"{m['home']} {names[m['home']]}") < after.index(f"{m['away']} {names[m['away']]}")
