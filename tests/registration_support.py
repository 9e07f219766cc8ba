"""Helpers for the registration tests (test_teams.py, test_event_operations.py): a seed-002
registration sheet of up to 12 teams with Chinese headers, written as XLSX with openpyxl, and the
``dealer init`` that sets an event up from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openpyxl
from conftest import run_dealer

NAMES = ["东风队", "长城队", "黄河队", "泰山队", "昆仑队", "珠江队", "阿里山队", "北斗队", "长江队", "华山队",
         "峨眉队", "天山队"]
CLUBS = ["数学学院", "法学院", "经济学院", "新闻学院"]
HEADER = ["队号", "队名", "单位/分会", "领队", "选手", "种子", "联系方式", "跨分会"]


def sheet_rows(count: int = 12) -> list[list[Any]]:
    """Team ``i`` is A0i, named NAMES[i - 1], its players 选手i甲 … 选手i丁; the first four are
    seeded, every fifth is formed across clubs (跨分会)."""
    return [[f"A{i:02d}", NAMES[i - 1], CLUBS[i % 4], f"领队{i}", "、".join(f"选手{i}{c}" for c in "甲乙丙丁"),
             i if i <= 4 else None, f"1380000{i:04d}", "是" if i % 5 == 0 else "否"]
            for i in range(1, count + 1)]


def write_xlsx(path: Path, rows: list[list[Any]], header: list[str] = HEADER) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "报名表"
    sheet.append(header)
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


def init_event(tmp_path: Path, sheet: Path | None = None, *more: str) -> tuple[Path, str]:
    """``dealer init ruc.toml --profile renmin-shuangsheng --result levels [--teams SHEET] MORE…``
    in tmp_path; returns the event file and the --boards-dir to give every command."""
    event = tmp_path / "ruc.toml"
    boards = str(tmp_path / "boards")
    Path(boards).mkdir(exist_ok=True)  # a given --boards-dir must exist (a mistyped one is refused)
    outcome = run_dealer("init", event, "--profile", "renmin-shuangsheng", "--result", "levels",
                         *(["--teams", sheet] if sheet else []), *more, "--boards-dir", boards)
    assert outcome.exit_code == 0, outcome.output
    return event, boards
