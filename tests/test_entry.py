"""Result entry without friction (newcomer run 3, findings 11, 12 and 13): full-width (NFKC)
values, a correction that keeps what it is not told to change, a round not paired yet, a
lateness that costs nothing on record, and the pre-filled result template of a round."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_dealer
from test_levels import SEED_002
from test_results_support import HEADER, write_csv, write_event
from test_tournament_cli import SWISS

# --- full-width digits and letters (NFKC) -----------------------------------------------------


def _history(event: Path, boards: tuple[object, ...]) -> list[dict[str, object]]:
    outcome = run_dealer("results", "history", event, "--json", *boards)
    assert outcome.exit_code == 0, outcome.stderr
    rows: list[dict[str, object]] = json.loads(outcome.stdout)  # one JSON document: every stored row
    return rows


def test_full_width_values_are_read_as_typed_in_a_chinese_ime(tmp_path: Path) -> None:
    event = write_event(tmp_path)
    boards = ("--boards-dir", tmp_path / "boards")
    # Board 1 (declarer N, level 2) and board 3 (declarer S, level 4) of the hand event.
    rows = [["１", "１", "Ａ", "１", "５０", "ＮＴ", "Ｎ", "２", "客队", "主队"],
            ["1", "1", "ａ", "３", "－４０", "♠", "南", "４", "", ""]]
    path = write_csv(tmp_path / "ime.csv", [*HEADER, "trump", "declarer", "level", "ns_team", "ew_team"], rows)
    code, out, err = run_dealer("results", "import", event, path, *boards)
    assert code == 0 and "imported 2 row(s)" in out, err
    code, out, err = run_dealer("results", "add", event, "--round", "１", "--match", "１", "--table", "Ｂ",
                                "--board", "１３", "--points", "１２５", "--level", "Ａ", *boards)
    assert code == 0 and "added round 1 match 1 table B board 13: 125 points" in out, err
    history = _history(event, boards)
    assert [(h["table"], h["board"], h["defenders_points"], h["trump"], h["declarer"], h["level"])
            for h in history] == [("A", 1, 50, "NT", "N", "2"), ("A", 3, -40, "S", "S", "4"),
                                  ("B", 13, 125, None, None, "A")]
    # Free text is kept as written.
    code, _out, err = run_dealer("results", "add", event, "--round", "1", "--match", "1", "--table", "B",
                                 "--board", "２", "--points", "４０", "--note", "ＩＭＥ ｎｏｔｅ", *boards)
    assert code == 0, err
    assert "ＩＭＥ ｎｏｔｅ" in [h["note"] for h in _history(event, boards)]
    # A refused value is quoted as written.
    code, _out, err = run_dealer("results", "add", event, "--round", "1", "--match", "1", "--table", "B",
                                 "--board", "３", "--points", "３７", *boards)
    assert code == 2 and "--points: value '３７': defenders' points must be a multiple of 5" in err, err


def test_full_width_levels_in_a_level_race(tmp_path: Path) -> None:
    event = tmp_path / "levels.toml"
    event.write_text(SEED_002, encoding="utf-8")
    boards = ("--boards-dir", tmp_path / "boards")
    (tmp_path / "boards").mkdir()
    (tmp_path / "r1.csv").write_text("轮次,场次,桌,主队级数,客队级数,末局胜方,主队胜局\n"
                                     "１,１,１,Ａ,１０,,１２\n１,１,２,过Ａ,Ｋ,,\n", encoding="utf-8")
    code, out, err = run_dealer("results", "import", event, tmp_path / "r1.csv", *boards)
    assert code == 0 and "imported 2 row(s)" in out, err
    code, out, err = run_dealer("results", "add", event, "--round", "１", "--match", "２", "--table", "Ｂ",
                                "--home-level", "１０", "--away-level", "１０", "--last-game", "ＨＯＭＥ", *boards)
    assert code == 0 and "added round 1 match 2 table 2: home 10 away 10" in out, err
    history = _history(event, boards)
    assert [(h["match"], h.get("table", h.get("tbl")), h["home_level"], h["away_level"], h["last_game"],
             h["home_games"]) for h in history] == [("1", 1, "A", "10", None, 12), ("1", 2, "过A", "K", None, None),
                                  ("2", 2, "10", "10", "home", None)]


# --- a correction keeps what it is not told to change -------------------------------------------


def test_a_correction_keeps_the_fields_it_is_not_told_to_change(tmp_path: Path) -> None:
    event = write_event(tmp_path)
    boards = ("--boards-dir", tmp_path / "boards")
    slot = ("--round", "1", "--match", "1", "--table", "A", "--board", "3")
    code, _out, err = run_dealer("results", "add", event, *slot, "--points", "120", "--trump", "NT",
                                 "--declarer", "S", "--level", "4", "--note", "slip 17", *boards)
    assert code == 0, err
    code, out, err = run_dealer("results", "correct", event, *slot, "--points", "125", "--reason", "misread",
                                *boards)
    assert code == 0 and "120 points → 125 points" in out, err
    now = _history(event, boards)[-1]
    assert (now["defenders_points"], now["trump"], now["declarer"], now["level"], now["note"]) == (
        125, "NT", "S", "4", "slip 17")
    # Only the trump: the points stay.
    code, out, err = run_dealer("results", "correct", event, *slot, "--trump", "♥", "--reason", "suit misread",
                                *boards)
    assert code == 0, err
    now = _history(event, boards)[-1]
    assert (now["defenders_points"], now["trump"], now["declarer"], now["level"], now["current"]) == (
        125, "H", "S", "4", True)
    # Nothing to change: refused as before.
    code, _out, err = run_dealer("results", "correct", event, *slot, "--reason", "x", *boards)
    assert code == 2 and "give either what changes" in err


def test_a_level_race_correction_keeps_the_fields_it_is_not_told_to_change(tmp_path: Path) -> None:
    event = tmp_path / "levels.toml"
    event.write_text(SEED_002, encoding="utf-8")
    (tmp_path / "boards").mkdir()
    boards = ("--boards-dir", tmp_path / "boards")
    slot = ("--round", "1", "--match", "1", "--table", "1")
    code, _out, err = run_dealer("results", "add", event, *slot, "--home-level", "K", "--away-level", "K",
                                 "--last-game", "away", "--home-games", "9", "--away-games", "11",
                                 "--note", "late finish", *boards)
    assert code == 0, err
    code, out, err = run_dealer("results", "correct", event, *slot, "--home-level", "A", "--reason", "misread",
                                *boards)
    assert code == 0 and "→ home A away K" in out, err
    now = _history(event, boards)[-1]
    assert (now["home_level"], now["away_level"], now["last_game"], now["home_games"], now["away_games"],
            now["note"]) == ("A", "K", "away", 9, 11, "late finish")
    code, _out, err = run_dealer("results", "correct", event, *slot, "--away-games", "12", "--reason", "recount",
                                 *boards)
    assert code == 0, err
    now = _history(event, boards)[-1]
    assert (now["home_level"], now["away_level"], now["last_game"], now["home_games"], now["away_games"]) == (
        "A", "K", "away", 9, 12)


# --- a round not paired yet ---------------------------------------------------------------------


def _swiss(tmp_path: Path) -> tuple[Path, tuple[object, ...]]:
    event = tmp_path / "swiss.toml"
    event.write_text(SWISS, encoding="utf-8")
    boards = ("--boards-dir", tmp_path / "boards")
    assert run_dealer("deal", event, *boards).exit_code == 0
    assert run_dealer("round", "pair", event, "--round", 1, *boards).exit_code == 0
    return event, boards


def test_a_round_of_the_event_not_paired_yet_is_said_so(tmp_path: Path) -> None:
    event, boards = _swiss(tmp_path)
    code, _out, err = run_dealer("results", "add", event, "--round", 2, "--match", 1, "--table", "A", "--board", 1,
                                 "--points", 40, *boards)
    assert code == 2 and "round 2 is not paired yet" in err and "not in the event" not in err, err
    (tmp_path / "r2.csv").write_text("round,match,table,board,defenders_points\n2,1,A,1,40\n", encoding="utf-8")
    code, _out, err = run_dealer("results", "import", event, tmp_path / "r2.csv", *boards)
    assert code == 2 and "round 2 is not paired yet" in err, err
    code, _out, err = run_dealer("results", "missing", event, "--round", 2, *boards)
    assert code == 2 and "round 2 is not paired yet" in err, err
    # A round beyond the event's five is still not in the event.
    code, _out, err = run_dealer("results", "add", event, "--round", 6, "--match", 1, "--table", "A", "--board", 1,
                                 "--points", 40, *boards)
    assert code == 2 and "round 6 is not in the event (rounds: 1)" in err, err


def test_a_level_race_round_not_paired_yet(tmp_path: Path) -> None:
    event = tmp_path / "swiss.toml"
    event.write_text(SEED_002.split("[[rounds]]")[0] + '[format]\nkind = "swiss"\nrounds = 3\n', encoding="utf-8")
    (tmp_path / "boards").mkdir()
    boards = ("--boards-dir", tmp_path / "boards")
    assert run_dealer("round", "pair", event, "--round", 1, *boards).exit_code == 0
    code, _out, err = run_dealer("results", "add", event, "--round", 2, "--match", 1, "--table", 1,
                                 "--home-level", "K", "--away-level", "5", *boards)
    assert code == 2 and "round 2 is not paired yet" in err, err


# --- lateness that costs nothing -----------------------------------------------------------------


def test_lateness_below_the_threshold_is_recorded_at_no_cost(tmp_path: Path) -> None:
    event, boards = _swiss(tmp_path)
    code, out, err = run_dealer("results", "late", event, "--round", 1, "--team", "T3", "--minutes", 4,
                                "--reason", "bus late", *boards)
    assert code == 0, err
    assert "round 1: T3 4 minute(s) late, recorded; it costs nothing under profile renmin-shuangsheng" in out
    report = json.loads(run_dealer("report", event, "--json", *boards).stdout)
    assert report["adjustments"] == [{"round": 1, "team": "T3", "kind": "net_level_points", "value": 0,
                                      "reason": "bus late", "minutes": 4}]
    assert {s["team"]: s["net_level_points"] for s in report["standings"]}["T3"] == 0
    out_dir = tmp_path / "reports"
    assert run_dealer("report", event, "--format", "html,csv", "--out", out_dir, *boards).exit_code == 0
    html = next(out_dir.glob("*.html")).read_text(encoding="utf-8")
    assert "裁判记录" in html and "第 1 轮：T3 迟到 4 分钟，不扣分 — bus late" in html
    # It can be withdrawn like any lateness.
    code, out, err = run_dealer("results", "late", event, "--round", 1, "--team", "T3", "--withdraw",
                                "--reason", "entered for the wrong team", *boards)
    assert code == 0, err
    assert json.loads(run_dealer("report", event, "--json", *boards).stdout)["adjustments"] == []


# --- a round's result template -------------------------------------------------------------------


def _fill(path: Path, values: dict[str, str]) -> None:
    """Fill in every row of a template (CSV or XLSX) as a scorer would: ``values`` by header."""
    if path.suffix == ".csv":
        import csv

        with path.open(encoding="utf-8-sig", newline="") as stream:
            rows = list(csv.reader(stream))
        header = rows[0]
        for row in rows[1:]:
            for name, value in values.items():
                row[header.index(name)] = value
        with path.open("w", encoding="utf-8-sig", newline="") as stream:
            csv.writer(stream).writerows(rows)
        return
    import openpyxl

    book = openpyxl.load_workbook(path)
    sheet = book.active
    assert sheet is not None
    header = [cell.value for cell in sheet[1]]
    for row in sheet.iter_rows(min_row=2):
        for name, value in values.items():
            row[header.index(name)].value = int(value) if value.isdigit() else value
    book.save(path)


@pytest.mark.parametrize(("fmt", "lang"), [("csv", "zh"), ("xlsx", "en")])
def test_a_boards_round_template_is_pre_filled_and_imports_filled_in(tmp_path: Path, fmt: str, lang: str) -> None:
    event = write_event(tmp_path)
    boards = ("--boards-dir", tmp_path / "boards")
    path = tmp_path / f"round-1.{fmt}"
    code, out, err = run_dealer("results", "template", event, "--round", 1, "--format", fmt, "--output", path,
                                "--lang", lang, *boards)
    assert code == 0 and f"wrote {path}: round 1, 64 result(s) to fill in" in out, err
    from dealer.app.result_files import read_file

    parsed = read_file(path)
    header = {"zh": ["轮次", "场次", "桌", "牌号", "南北", "东西", "庄家", "级数", "防守方得分", "将牌", "备注"],
              "en": ["round", "match", "table", "board", "ns_team", "ew_team", "declarer", "level",
                     "defenders_points", "trump", "note"]}[lang]
    assert [label.split('"')[1] for _i, label in sorted(parsed.fields.values())] == header
    # Every board of both tables of both matches, with the teams as they sit and the schedule.
    assert len(parsed.cells) == 64
    assert parsed.cells[0][:8] == ["1", "1", "A", "1", "客队", "主队", "N", "2"]  # A: home E-W
    assert parsed.cells[16][:8] == ["1", "1", "B", "1", "主队", "客队", "N", "2"]  # B: home N-S
    assert parsed.cells[34][:8] == ["1", "2", "A", "3", "第四队", "第三队", "S", "4"]
    assert all(cells[8:] == [] or not any(cells[8:]) for cells in parsed.cells)  # nothing to import yet
    # Not replaced: it may hold results already.
    code, _out, err = run_dealer("results", "template", event, "--round", 1, "--format", fmt, "--output", path,
                                 *boards)
    assert code == 2 and "already there; not replacing it" in err
    _fill(path, {header[8]: "40", header[9]: "NT"})
    code, out, err = run_dealer("results", "import", event, path, *boards)
    assert code == 0 and "imported 64 row(s)" in out, err
    code, out, err = run_dealer("results", "missing", event, "--round", 1, *boards)
    assert code == 0 and "nothing missing" in out.lower(), out


@pytest.mark.parametrize(("fmt", "lang"), [("csv", "en"), ("xlsx", "zh")])
def test_a_level_race_round_template_lists_every_table(tmp_path: Path, fmt: str, lang: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default output/<event>/ folder is the current directory's
    event = tmp_path / "levels.toml"
    event.write_text(SEED_002, encoding="utf-8")
    (tmp_path / "boards").mkdir()
    boards = ("--boards-dir", tmp_path / "boards")
    code, out, err = run_dealer("results", "template", event, "--round", 2, "--format", fmt, "--lang", lang,
                                *boards)
    path = Path("output") / "renmin-levels" / f"results-template-round-02.{fmt}"
    assert code == 0 and f"wrote {path}: round 2, 4 result(s) to fill in" in out, err
    from dealer.app.result_files import read_file
    from dealer.app.validate import LEVEL_LAYOUT

    parsed = read_file(path, layout=LEVEL_LAYOUT)
    assert [cells[:5] for cells in parsed.cells] == [
        ["2", "1", "1", "东风队", "黄河队"], ["2", "1", "2", "东风队", "黄河队"],
        ["2", "2", "1", "长城队", "泰山队"], ["2", "2", "2", "长城队", "泰山队"]]
    home, away = ("home_level", "away_level") if lang == "en" else ("主队级数", "客队级数")
    _fill(path, {home: "K", away: "5"})
    code, out, err = run_dealer("results", "import", event, path, *boards)
    assert code == 0 and "imported 4 row(s)" in out, err
    # A round not paired yet, and one the event does not have.
    code, _out, err = run_dealer("results", "template", event, "--round", 3, *boards)
    assert code == 2 and "round 3 is not in the event" in err
