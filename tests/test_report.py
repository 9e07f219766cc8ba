"""Reports: HTML, PDF, CSV, XLSX and JSON from the results database; the demo's scoring step."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from test_results_support import HEADER, hand_rows, run, write_csv, write_event

from dealer.files import load_event_text
from dealer.report.demo import score_demo
from dealer.resources import demo_event_text


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
    assert standings[0][:8] == ["Rank", "Team", "", "MP", "LP for", "LP against", "Net LP", "Played"]
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
                                          "level_points_against", "net_level_points", "played"}
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


def test_demo_scoring_step_twice(tmp_path: Path) -> None:
    event = load_event_text(demo_event_text(), "demo")
    first = list(score_demo(event, tmp_path / "boards", tmp_path / "output"))
    assert "imported 191 row(s)" in first[0]
    assert any("round 3 match 2 (T2 v T3): 1 missing: table B boards 16" in line for line in first)
    second = list(score_demo(event, tmp_path / "boards", tmp_path / "output"))
    assert "nothing changed: all 191 row(s) are already recorded" in second[0]
    folder = tmp_path / "output" / "demo" / "reports"
    assert "样例数据" in (folder / "demo-results.html").read_text(encoding="utf-8")
    assert (folder / "demo-results.pdf").exists() and (folder / "standings.csv").exists()
