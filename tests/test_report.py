"""Reports: HTML, PDF, CSV, XLSX and JSON from the results database; the demo's scoring step."""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import assert_one_error, report_of
from test_levels import SEED_001_ROWS, seed_001_race
from test_results_support import (
    EVENT_TOML,
    HEADER,
    db_path,
    dealer_at,
    hand_rows,
    run,
    scored_hand_event,
    write_csv,
    write_event,
)

from dealer.app.session import EventSession
from dealer.demo import score_demo
from dealer.files import load_event, load_event_text
from dealer.report import report_json
from dealer.resources import demo_event_text
from dealer.store import migrations
from dealer.store.folder import EventFolder

#: The schema version 0.1.0 created (migration 1 of that version), to test upgrades from it.
SCHEMA_0_1 = """    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE imports (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL,          -- file path, 'add' or 'correct'
        sha256 TEXT,                   -- content hash of an imported file
        kind TEXT NOT NULL CHECK (kind IN ('file', 'add', 'correct')),
        rows_added INTEGER NOT NULL,
        rows_skipped INTEGER NOT NULL,
        entered_by TEXT,
        at TEXT NOT NULL
    );
    CREATE TABLE results (
        id INTEGER PRIMARY KEY,
        round INTEGER NOT NULL,
        match TEXT NOT NULL,
        tbl TEXT NOT NULL CHECK (tbl IN ('A', 'B')),
        board INTEGER NOT NULL CHECK (board >= 1),
        defenders_points INTEGER CHECK (defenders_points % 5 = 0),
        withdrawn INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1)),
        trump TEXT,
        declarer TEXT,
        level TEXT,
        ns_team TEXT,
        ew_team TEXT,
        note TEXT,
        entered_by TEXT,
        entered_at TEXT NOT NULL,
        import_id INTEGER NOT NULL REFERENCES imports(id),
        source_row INTEGER,
        supersedes INTEGER UNIQUE REFERENCES results(id),
        reason TEXT,
        CHECK (withdrawn = 1 OR defenders_points IS NOT NULL),
        CHECK (supersedes IS NULL OR (reason IS NOT NULL AND length(trim(reason)) > 0))
    );
    CREATE UNIQUE INDEX results_first_entry ON results (round, match, tbl, board)
        WHERE supersedes IS NULL;
    CREATE INDEX results_slot ON results (round, match, tbl, board);
    CREATE TRIGGER results_no_update BEFORE UPDATE ON results
        BEGIN SELECT RAISE(ABORT, 'results are append-only: use a correction'); END;
    CREATE TRIGGER results_no_delete BEFORE DELETE ON results
        BEGIN SELECT RAISE(ABORT, 'results are append-only: nothing is deleted'); END;
    CREATE TRIGGER imports_no_update BEFORE UPDATE ON imports
        BEGIN SELECT RAISE(ABORT, 'the import log is append-only'); END;
    CREATE TRIGGER imports_no_delete BEFORE DELETE ON imports
        BEGIN SELECT RAISE(ABORT, 'the import log is append-only'); END;
    CREATE VIEW current_results AS
        SELECT r.* FROM results r
        WHERE NOT EXISTS (SELECT 1 FROM results s WHERE s.supersedes = r.id);
"""


def _imported(tmp_path: Path) -> tuple[Path, str]:
    event_path = write_event(tmp_path)
    boards = str(tmp_path / "boards")
    rows = [r for r in hand_rows() if not (r[3] == 16 and r[2] == "B")]
    rows += [[1, "2", "A", 1, 40], [1, "2", "B", 1, 0]]
    result = run("results", "import", str(event_path), str(write_csv(tmp_path / "t.csv", HEADER, rows)),
                 "--boards-dir", boards)
    assert result.exit_code == 0, result.output
    return event_path, boards


def test_report_writes_every_format(tmp_path: Path) -> None:
    import pandas as pd

    event_path, boards = _imported(tmp_path)
    out = tmp_path / "reports"
    result = run("report", str(event_path), "--out", str(out), "--boards-dir", boards, "--lang", "en")
    assert result.exit_code == 0, result.output
    html = (out / "hand-results.html").read_text(encoding="utf-8")
    assert "Ties broken by: MP → net level points → level points won → head-to-head" in html
    assert "主队" in html and "official-2002" in html and "(provisional)" in html
    assert (out / "hand-results.pdf").read_bytes().startswith(b"%PDF")
    with (out / "standings.csv").open(encoding="utf-8-sig") as stream:
        standings = list(csv.reader(stream))
    assert standings[0][:8] == ["Rank", "Team", "Name", "MP", "LP for", "LP against", "Net LP", "Played"]
    # Board 16 at B is missing: H 33 - 3 = 30, V 27 - 1 = 26 over 15 boards; X v Y: board 1 only.
    assert standings[1][:8] == ["1", "H", "主队", "2", "30", "26", "4", "1"]
    with (out / "boards.csv").open(encoding="utf-8-sig") as stream:
        boards_rows = list(csv.DictReader(stream))
    last = next(r for r in boards_rows if r["match"] == "1" and r["board"] == "16")
    assert last["A_points"] == "125" and last["B_points"] == "" and last["counted"] == "0"
    assert last["home_running"] == "30" and last["away_running"] == "26"
    sheet = pd.read_excel(out / "hand-results.xlsx", sheet_name="matches")
    assert list(sheet.iloc[0][["Home LP", "Away LP", "Margin"]]) == [30, 26, 4]
    cross = pd.read_excel(out / "hand-results.xlsx", sheet_name="crosstable", index_col=0)
    assert cross.loc["H", "V"] == "30:26 (2)*"


def test_report_json_and_a_correction_changes_it(tmp_path: Path) -> None:
    event_path, boards = _imported(tmp_path)
    before = json.loads(run("report", str(event_path), "--json", "--boards-dir", boards).output)
    assert set(before["standings"][0]) == {"rank", "team", "match_points", "level_points_for",
                                          "level_points_against", "net_level_points", "played", "byes",
                                          "adjustment", "shared", "tie_breaks"}
    assert set(before["standings"][0]["tie_breaks"]) == {"net_level_points", "level_points_for"}
    m1 = before["matches"][0]
    assert m1 == {**m1, "round": 1, "match": "1", "home": "H", "away": "V", "home_level_points": 30,
                  "away_level_points": 26, "margin": 4, "complete": False}
    # Match 2, board 1 (N declares): A 40 → N-S (away Y) +1; B 0 → N-S (home X) +3.
    m2 = before["matches"][1]
    assert (m2["home_level_points"], m2["away_level_points"], m2["margin"]) == (3, 1, 2)
    result = run("results", "correct", str(event_path), "--round", "1", "--match", "2", "--table", "A",
                 "--board", "1", "--points", "-120", "--reason", "sign missed", "--boards-dir", boards)
    assert result.exit_code == 0, result.output
    after = json.loads(run("report", str(event_path), "--json", "--boards-dir", boards).output)
    m2 = after["matches"][1]
    # A -120 → declarer N-S (away Y) 3 + 3 = 6.
    assert (m2["home_level_points"], m2["away_level_points"], m2["margin"]) == (3, 6, -3)
    assert next(s for s in after["standings"] if s["team"] == "Y")["match_points"] == 2
    history = run("results", "history", str(event_path), "--round", "1", "--match", "2", "--boards-dir", boards)
    assert "reason: sign missed" in history.output and "[superseded]" in history.output


@pytest.mark.slow
def test_demo_scoring_step_twice(tmp_path: Path) -> None:
    event = load_event_text(demo_event_text(), "demo")
    from dealer.app.dealing import deal_event

    folder = EventFolder(event.id, tmp_path / "boards", tmp_path / "output")
    deal_event(event, folder)
    first = list(score_demo(event, folder))
    assert "imported 191 row(s)" in first[0]
    assert any("round 3 match 2 (T2 v T3): 1 missing: table B boards 16" in line for line in first)
    second = list(score_demo(event, folder))
    assert "nothing changed: all 191 row(s) are already recorded" in second[0]
    folder = tmp_path / "output" / "demo" / "reports"
    html = (folder / "demo-results.html").read_text(encoding="utf-8")
    assert "样例数据" in html
    assert (folder / "demo-results.pdf").exists() and (folder / "standings.csv").exists()
    # Player names under the match sheets; the time as local date and time with its offset.
    assert "东风队: 张伟、王芳、李娜、刘洋 · 长城队: 陈静、杨帆、赵磊、黄敏" in html
    assert re.search(r"生成时间: \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(UTC[+-]\d{2}:\d{2}\)", html)
    # Every standings column says something for some team (an unneeded tie-break is dropped).
    with (folder / "standings.csv").open(encoding="utf-8-sig") as stream:
        head, *rows = list(csv.reader(stream))
    assert all(any(row[i] for row in rows) for i in range(len(head)) if head[i])


def _sample_flag(tmp_path: Path, event_path: Path) -> bool:
    out = run("report", str(event_path), "--json", "--boards-dir", str(tmp_path / "boards"))
    assert out.exit_code == 0, out.output
    return bool(json.loads(out.output)["sample_data"])


def test_sample_banner_comes_from_the_files_marker_not_from_notes(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    boards = str(tmp_path / "boards")
    # A real slip whose note happens to say "sample" (the scorer kept a sample board aside).
    noted = write_csv(tmp_path / "noted.csv", [*HEADER, "note"], [[1, "1", "A", 1, 0, "样例 sample kept"]])
    assert run("results", "import", str(event_path), str(noted), "--boards-dir", boards).exit_code == 0
    assert not _sample_flag(tmp_path, event_path)
    # A marker comment that is not the first line does not count either.
    late = tmp_path / "late.csv"
    late.write_text("round,match,table,board,defenders_points\n# sample data\n1,1,B,1,80\n",
                    encoding="utf-8")
    assert run("results", "import", str(event_path), str(late), "--boards-dir", boards).exit_code == 0
    assert not _sample_flag(tmp_path, event_path)
    # A file whose first line says so is recorded as sample data, in either language.
    for name, marker in (("en.csv", "# Sample data: invented"), ("zh.csv", "# 样例数据 / invented")):
        board = 2 if name == "en.csv" else 3
        path = tmp_path / name
        path.write_text(f"{marker}\nround,match,table,board,defenders_points\n1,2,A,{board},40\n",
                        encoding="utf-8")
        result = run("results", "import", str(event_path), str(path), "--boards-dir", boards)
        assert result.exit_code == 0 and "marked as sample data" in result.output, result.output
    assert _sample_flag(tmp_path, event_path)
    conn = sqlite3.connect(db_path(tmp_path))
    flags = dict(conn.execute("SELECT source, sample FROM imports").fetchall())
    conn.close()
    assert {Path(k).name: v for k, v in flags.items()} == {
        "noted.csv": 0, "late.csv": 0, "en.csv": 1, "zh.csv": 1}
    # Once every sample row is corrected, no current row is sample data: no banner.
    for board in (2, 3):
        assert run("results", "correct", str(event_path), "--round", "1", "--match", "2", "--table",
                   "A", "--board", str(board), "--withdraw", "--reason", "demo rows",
                   "--boards-dir", boards).exit_code == 0
    assert not _sample_flag(tmp_path, event_path)


def test_migration_marks_the_demo_sample_import_of_an_older_database(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    path = db_path(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(SCHEMA_0_1)
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO meta VALUES ('event', 'hand'), ('created', '2024-01-01')")
    for number, source in ((1, "/x/dealer/data/sample-travellers.csv"), (2, "round1.csv")):
        conn.execute("INSERT INTO imports (id, source, kind, rows_added, rows_skipped, at)"
                     " VALUES (?, ?, 'file', 1, 0, '2024-01-01')", (number, source))
        conn.execute("INSERT INTO results (round, match, tbl, board, defenders_points, entered_at,"
                     " import_id) VALUES (1, ?, 'A', 1, 0, '2024-01-01', ?)", (str(number), number))
    conn.close()
    event = load_event(event_path)
    folder = EventFolder(event.id, tmp_path / "boards")
    data = report_of(event, folder)  # upgrades the schema (no result changes), then reads
    assert data.sample
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == migrations.SCHEMA_VERSION
    assert conn.execute("SELECT id, sample FROM imports ORDER BY id").fetchall() == [(1, 1), (2, 0)]
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):  # the trigger is back
        conn.execute("UPDATE imports SET sample = 0")
    conn.close()


def test_report_without_results_creates_no_database(tmp_path: Path) -> None:
    event_path = write_event(tmp_path)
    boards = str(tmp_path / "boards")
    result = run("report", str(event_path), "--json", "--boards-dir", boards)
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["no_results_yet"] is True and payload["sample_data"] is False
    assert [(s["played"], s["match_points"]) for s in payload["standings"]] == [(0, 0)] * 4
    out = tmp_path / "reports"
    result = run("report", str(event_path), "--format", "html,csv", "--out", str(out), "--boards-dir",
                 boards, "--lang", "en")
    assert result.exit_code == 0, result.output
    assert "No results yet" in (out / "hand-results.html").read_text(encoding="utf-8")
    assert not db_path(tmp_path).exists()
    # Once there are results the note goes.
    _imported(tmp_path)
    payload = json.loads(run("report", str(event_path), "--json", "--boards-dir", boards).output)
    assert payload["no_results_yet"] is False


def test_report_strings_come_from_the_data_file_in_both_languages() -> None:
    import re
    import tomllib
    from importlib import resources

    import dealer.report as report
    from dealer.resources import templates_dir

    text = (resources.files("dealer") / "data" / "strings.toml").read_text(encoding="utf-8")
    tables = tomllib.loads(text)["report"]  # the one word catalog, its [report.*] part
    assert set(tables) == {"zh", "en"} and set(tables["zh"]) == set(tables["en"])
    assert report.languages() == ["zh", "en"]
    assert report.labels("zh") == tables["zh"] and report.labels("en") == tables["en"]
    assert report.labels("zh")["sample"].startswith("样例数据")
    assert not hasattr(report, "LABELS")  # no second table in the code
    # Every word the template and the tables use is in the file.
    used = set(re.findall(r"\bt\.(\w+)", (templates_dir() / "report_event.html").read_text(encoding="utf-8")))
    used |= set(re.findall(r'\bt\["(\w+)"\]', Path(report.__file__).read_text(encoding="utf-8")))
    assert used and used <= set(tables["en"])


# --- what a report refuses, and what it never writes (found by the reliability reviews) ---------


INJECTED = ("=1+1", '=HYPERLINK("http://evil.example","x")', "-2+3", "+X", "@SUM(A1)", "-cmd")


def injected_event(tmp_path: Path) -> Path:
    """The hand event with team ids ``007`` (was H), ``=1+1`` (was V) and ``+X`` (was X), and names starting with
    ``=``, ``-`` and ``@`` (a leading tab cannot reach a report: the event file's names are
    stripped, and notes are not reported; :func:`safe_cell` is checked for it directly)."""
    text = EVENT_TOML.replace('"V"', '"=1+1"').replace('"X"', '"+X"').replace('"H"', '"007"')
    text = text.replace('name = "主队"', 'name = "=HYPERLINK(\\"http://evil.example\\",\\"x\\")"')
    text = text.replace('name = "客队"', 'name = "-2+3"').replace('name = "第三队"', 'name = "@SUM(A1)"')
    text = text.replace('name = "第四队"', 'name = "-cmd"')
    return write_event(tmp_path, text)


def test_report_cells_never_become_formulas(tmp_path: Path) -> None:
    """Team ids and names from registration forms (``=1+1``, ``=HYPERLINK(…)``, ``@…``,
    ``+…``, ``-…``) are written as text: CSV cells get a leading ``'`` (a plain number
    like ``-3`` stays a number); XLSX cells are strings, no formula anywhere."""
    event = injected_event(tmp_path)
    rows = [r for r in hand_rows() if r[3] <= 8]
    assert dealer_at(tmp_path, "results", "import", event, write_csv(tmp_path / "r.csv", HEADER, rows)).exit_code == 0
    out = tmp_path / "rep"
    result = dealer_at(tmp_path, "report", event, "--format", "csv,xlsx", "--out", out, "--lang", "en")
    assert result.exit_code == 0, result.output
    cells = [c for name in ("standings.csv", "crosstable.csv", "matches.csv")
             for row in csv.reader((out / name).read_text(encoding="utf-8-sig").splitlines()) for c in row]
    for text in INJECTED:
        assert "'" + text in cells, (text, cells)
        assert text not in cells, text
    assert all(not c.startswith(("=", "+", "@", "\t", "\r")) for c in cells)
    negatives = [c for c in cells if c.startswith("-")]
    assert negatives and all(c.lstrip("-").isdigit() for c in negatives), negatives  # -3 stays -3
    import openpyxl

    book = openpyxl.load_workbook(out / "hand-results.xlsx")
    texts = {}
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", (sheet.title, cell.coordinate, cell.value)
                if isinstance(cell.value, str):
                    texts[cell.value] = cell.data_type
    for text in (*INJECTED, "007", "Y"):  # ids stay text: "007" is not the number 7
        assert texts.get(text) == "s", (text, texts.get(text))
    with zipfile.ZipFile(out / "hand-results.xlsx") as archive:
        for name in archive.namelist():
            if name.startswith("xl/worksheets/"):
                assert b"<f>" not in archive.read(name) and b"<f " not in archive.read(name), name


@pytest.mark.parametrize(("text", "shown"), [("\tcmd", "'\tcmd"), ("\r=1", "'\r=1"), ("-3", "-3"), ("-", "'-"),
                                             ("@x", "'@x"), ("+1", "'+1"), ("0042", "0042")])
def test_csv_cell_quoting(text: str, shown: str) -> None:
    """Every formula start is quoted (OWASP, CSV injection), whole numbers are not."""
    from dealer.report import safe_cell

    assert safe_cell(text) == shown


def test_an_empty_results_database_is_no_results_yet(event_from: Callable[..., EventSession]) -> None:
    """A results database that exists but holds no result reports ``"no_results_yet": true``
    (every team 0 played)."""
    with event_from(EVENT_TOML, write=True) as session:
        session.writable_store()  # made, nothing written in it
    with event_from(EVENT_TOML) as session:
        assert session.store is not None
        data = report_json(session.report())
    assert data["no_results_yet"] is True
    assert sorted(s["team"] for s in data["standings"]) == ["H", "V", "X", "Y"]
    assert all(s["played"] == 0 for s in data["standings"])


def test_an_empty_or_unknown_report_format_is_refused(tmp_path: Path) -> None:
    """``report --format ""`` and ``--format nonsense`` (with ``--json`` too) exit 2."""
    event = scored_hand_event(tmp_path, hand_rows())
    for formats in ("", "nonsense", " , ", "csv,nonsense"):
        for extra in ((), ("--json",)):
            result = dealer_at(tmp_path, "report", event, "--format", formats, "--out", tmp_path / "rep", *extra)
            assert_one_error(result, "--format")
    assert not (tmp_path / "rep").exists()


def test_two_builds_of_the_same_results_give_the_same_xlsx_bytes(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The XLSX writer stamped its zip members with the time of writing: two reports of the same
    data differed. Here the clock is an hour apart between the two builds."""
    event = seed_001_race(tmp_path, SEED_001_ROWS)
    written = []
    for hour in (0, 1):
        monkeypatch.setattr(time, "time", lambda hour=hour: 1_800_000_000.0 + 3600 * hour)
        out = tmp_path / f"reports-{hour}"
        result = dealer_at(tmp_path, "report", event, "--format", "xlsx", "--out", out)
        assert result.exit_code == 0, result.output
        written.append((out / "four-deck-levels-results.xlsx").read_bytes())
    assert written[0] == written[1]
    with zipfile.ZipFile(tmp_path / "reports-0" / "four-deck-levels-results.xlsx") as book:
        assert book.testzip() is None
        assert {info.date_time for info in book.infolist()} == {(1980, 1, 1, 0, 0, 0)}
