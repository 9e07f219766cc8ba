"""Reports and imports at scale: the size rules of the report (issue 11), the trump played on the
match sheets (issue 10 item 9), and the columnar import path storing exactly what the row path does."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from conftest import report_of
from test_results_support import HEADER, db_path, hand_rows, run, write_csv, write_event

import dealer.report as report
from dealer.files import load_event
from dealer.store.folder import EventFolder

TRUMPS = ["S", "♥", "梅花", "d", "NT"]  # as a scorer types them: stored as S H C D NT


def _with_trumps(rows: list[list[object]]) -> list[list[object]]:
    return [[*row, TRUMPS[i % len(TRUMPS)] if i % 3 else ""] for i, row in enumerate(rows)]


def _imported(tmp_path: Path) -> tuple[Path, str]:
    event_path = write_event(tmp_path)
    boards = str(tmp_path / "boards")
    rows = _with_trumps([*hand_rows(), [1, "2", "A", 1, 40], [1, "2", "B", 1, 0]])
    path = write_csv(tmp_path / "t.csv", [*HEADER, "trump"], rows)
    result = run("results", "import", str(event_path), str(path), "--boards-dir", boards)
    assert result.exit_code == 0, result.output
    return event_path, boards


def test_match_sheets_show_the_trump_each_table_played_in_every_format(tmp_path: Path) -> None:
    event_path, boards = _imported(tmp_path)
    out = tmp_path / "rep"
    result = run("report", str(event_path), "--out", str(out), "--boards-dir", boards, "--lang", "en",
                 "--format", "html,csv,xlsx,json")
    assert result.exit_code == 0, result.output
    expected = {}  # (board, table) → trump, from the file as imported
    stored = sqlite3.connect(db_path(tmp_path)).execute("SELECT board, tbl, trump FROM results WHERE match = '1'")
    for board, table, trump in stored:
        expected[(board, table)] = trump
    assert {t for t in expected.values() if t} == {"S", "H", "C", "D", "NT"}
    with (out / "boards.csv").open(encoding="utf-8-sig") as stream:
        lines = [r for r in csv.DictReader(stream) if r["match"] == "1"]
    assert {(int(r["board"]), t): r[f"{t}_trump"] or None for r in lines for t in "AB"} == expected
    sheet = pd.read_excel(out / "hand-results.xlsx", sheet_name="R1-M1", dtype=str, keep_default_na=False)
    assert {(int(b), t): sheet.loc[i, f"{t}_trump"] or None
            for i, b in enumerate(sheet["board"]) for t in "AB"} == expected
    data = json.loads((out / "hand-results.json").read_text(encoding="utf-8"))
    columns = data["sheet_columns"]
    first = next(s for s in data["sheets"] if s["match"] == "1")
    assert {(b[columns.index("board")], t): b[columns.index(f"{t}_trump")]
            for b in first["boards"] for t in "AB"} == expected
    html = (out / "hand-results.html").read_text(encoding="utf-8")
    sheet_html = html.split('id="r1-m1"', 1)[1].split("</table>", 1)[0]
    assert sheet_html.count("<th>Trump</th>") == 2
    board_1 = sheet_html.split("<tr><td>1</td>", 1)[1].split("</tr>", 1)[0]  # N declares; A 0, B 80
    assert board_1.startswith(f"<td>N</td><td>2</td><td>0</td><td>{expected[(1, 'A')] or ''}</td>")
    # `dealer report --json` has the sheets too; report_json() only when asked (the site reads it).
    printed = json.loads(run("report", str(event_path), "--json", "--boards-dir", boards).output)
    assert printed["sheets"] == data["sheets"]
    built = report_of(load_event(event_path), EventFolder("hand", Path(boards)))
    assert "sheets" not in report.report_json(built)
    assert report.report_json(built, sheets=True)["sheets"] == data["sheets"]
    # The CSV files are the tables' names (and boards.csv), known without making the tables.
    assert sorted(f"{name}.csv" for name in report.table_names(built)) == sorted(
        p.name for p in out.glob("*.csv"))


def test_a_large_event_gets_team_results_round_pages_and_round_sheets(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The size rules, with limits made small: 4 teams over a cross-table of 3, 2 matches over
    sheets in the document for 1; the PDF lists 2 lines of standings."""
    event_path, boards = _imported(tmp_path)
    monkeypatch.setattr(report, "CROSS_TABLE_TEAMS", 3)
    monkeypatch.setattr(report, "SHEETS_IN_DOCUMENT", 1)
    monkeypatch.setattr(report, "XLSX_MATCH_SHEETS", 1)
    monkeypatch.setattr(report, "PDF_STANDINGS_ROWS", 2)
    out = tmp_path / "rep"
    result = run("report", str(event_path), "--out", str(out), "--boards-dir", boards, "--lang", "en",
                 "--format", "html,pdf,csv,xlsx,json")
    assert result.exit_code == 0, result.output
    assert not (out / "crosstable.csv").exists()
    with (out / "team-results.csv").open(encoding="utf-8-sig") as stream:
        team_rows = list(csv.reader(stream))
    assert team_rows[0] == ["Rank", "Team", "Name", "Round 1"]
    assert next(r for r in team_rows if r[1] == "H")[3] == "V 33:27 (2)"  # HOME_TOTAL : AWAY_TOTAL
    html = (out / "hand-results.html").read_text(encoding="utf-8")
    assert "More than 3 teams" in html and "More than 1 matches played" in html
    assert 'href="hand-results-round-01.html"' in html and 'class="sheet"' not in html
    page = (out / "hand-results-round-01.html").read_text(encoding="utf-8")
    assert page.count('class="sheet"') == 2 and 'href="hand-results.html"' in page
    book = openpyxl.load_workbook(out / "hand-results.xlsx", read_only=True)
    assert "boards-R1" in book.sheetnames and "R1-M1" not in book.sheetnames and "crosstable" not in book.sheetnames
    assert len(list(book["boards-R1"].iter_rows(values_only=True))) == 1 + 2 * 16
    from pypdf import PdfReader

    text = "".join(page.extract_text() for page in PdfReader(out / "hand-results.pdf").pages)
    assert "first 2 of the standings (4 teams)" in " ".join(text.split())
    built = report_of(load_event(event_path), EventFolder("hand", Path(boards)))
    assert sorted(f"{name}.csv" for name in report.table_names(built)) == sorted(p.name for p in out.glob("*.csv"))
    # The same figures as the small report: only the layout changed.
    with (out / "boards.csv").open(encoding="utf-8-sig") as stream:
        assert sum(1 for _ in csv.reader(stream)) == 1 + 2 * 16
    # `--json` of a large event: the same JSON as the report's file, printed compact.
    printed = run("report", str(event_path), "--json", "--boards-dir", boards).output
    assert printed.count("\n") == 1 and json.loads(printed) == json.loads(
        (out / "hand-results.json").read_text(encoding="utf-8"))


def test_a_bad_row_gets_the_row_by_row_message(tmp_path: Path) -> None:
    """Any problem sends the file down the row path: the message names the file, row, column and value."""
    event_path = write_event(tmp_path)
    rows = hand_rows()
    rows[5] = [1, "1", "A", 3, 33]  # not a multiple of 5
    path = write_csv(tmp_path / "bad.csv", HEADER, rows)
    result = run("results", "import", str(event_path), str(path), "--boards-dir", str(tmp_path / "boards"))
    assert result.exit_code == 2
    assert "bad.csv" in result.output and "row 7" in result.output and "33" in result.output
    assert "multiple of 5" in result.output
    assert not db_path(tmp_path).exists() or not sqlite3.connect(db_path(tmp_path)).execute(
        "SELECT count(*) FROM results").fetchone()[0]
