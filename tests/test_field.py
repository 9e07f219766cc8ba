"""What the field says (issue 39): each board's datum, each table's result against it, each
pair's and team's butler split by side and trump; worked out by hand on a board played at six
tables (docs/results.md, "The field's datum and the pairs' butler"), and recomputed from the
stored results of the demo."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLE_TRAVELLERS, dealt_demo, report_json_of, run_dealer

from dealer.adjustments import Adjustments, Forfeit, Penalty
from dealer.event import Event
from dealer.field import PairKey, field_stats
from dealer.files import load_event_text
from dealer.lineups import NO_LINEUPS, Lineup, Lineups
from dealer.profiles import ProfileError, with_rules
from dealer.report import report_json
from dealer.scoring import ResultColumns, score_event

SIX_TABLES = """
[event]
id = "six"
name = "Six tables"
profile = "official-2002"
decks = 2
boards_per_set = 2
sets = 1
""" + "".join(f'\n[[teams]]\nid = "T{n}"\nname = "Team {n}"\nplayers = ["P{n}a", "P{n}b", "P{n}c", "P{n}d"]\n'
              for n in range(1, 7)) + """
[[rounds]]
number = 1
matches = [
  { id = "1", home = "T1", away = "T2", set = 1 },
  { id = "2", home = "T3", away = "T4", set = 1 },
  { id = "3", home = "T5", away = "T6", set = 1 },
]
"""

#: Board 1 (declarer N: N-S declare) at the six tables: (match, table, defenders' points, trump),
#: and the table's result from N-S's side by official-2002 (two decks): 0 points: declarer +3;
#: 40: +1; 80: 0; 120: defenders +1; 160: defenders +2.
BOARD_1 = [("1", "A", 0, "S", 3), ("1", "B", 40, "S", 1), ("2", "A", 80, "H", 0),
           ("2", "B", 120, "S", -1), ("3", "A", 160, "NT", -2), ("3", "B", 40, "H", 1)]


def _six(rules: dict[str, object] | None = None) -> Event:
    event = load_event_text(SIX_TABLES, "six.toml")
    if rules:
        event = dataclasses.replace(event, profile=with_rules(event.profile, rules))
    return event


def _rows() -> list[tuple[int, str, str, int, int, str | None]]:
    return [(1, m, t, 1, p, trump) for m, t, p, trump, _ns in BOARD_1]


def test_the_hand_worked_board_at_six_tables() -> None:
    event = _six()
    stats = field_stats(score_event(event, ResultColumns.from_rows(_rows())), NO_LINEUPS)
    assert stats is not None
    results = stats.board_results(1, 1)
    assert [(r["match"], r["table"], r["ns"]) for r in results] == [(m, t, ns) for m, t, _p, _t, ns in BOARD_1]
    # Six tables: the highest (+3) and the lowest (−2) left out; (1 + 0 − 1 + 1) / 4 = 0.25.
    (board,) = stats.boards
    assert (board.set, board.board, board.datum, board.tables, board.trimmed) == (1, 1, 0.25, 6, True)
    assert [r["vs_datum"] for r in results] == [2.75, 0.75, -0.25, -1.25, -2.25, 0.75]
    assert [r["trump"] for r in results] == ["♠", "♠", "♥", "♠", "NT", "♥"]
    # No line-up: a pair is the team's pair at a table. T1 (home) sits E-W at A, N-S at B.
    pairs = {(p.key.team, p.key.table): p for p in stats.pairs}
    t1a, t1b, t2a = pairs[("T1", "A")], pairs[("T1", "B")], pairs[("T2", "A")]
    assert (t1a.boards, t1a.butler, t1a.as_declarer, t1a.as_defenders) == (1, -2.75, 0.0, -2.75)
    assert (t1b.butler, t1b.as_declarer, t1b.declarer_boards) == (0.75, 0.75, 1)
    assert t2a.butler == 2.75 and t2a.by_trump == {"♠": (1, 2.75)}
    assert pairs[("T5", "A")].by_trump == {"NT": (1, 2.25)}  # E-W at A: +2.25 against the datum
    # The ranking: by butler a board; the pair at the top gained most against the field.
    assert [(p.rank, p.key.team, p.key.table) for p in stats.pairs[:2]] == [(1, "T2", "A"), (2, "T5", "A")]
    teams = {t.key.team: t for t in stats.teams}
    assert teams["T1"].butler == pytest.approx(-2.0)  # −2.75 + 0.75: its match result, 1 − 3
    review = stats.board_review(1, 1)
    assert review is not None
    assert review["datum"] == 0.25 and (review["lowest"], review["highest"]) == (-2, 3)
    assert review["spread"][1] == {"ns": 1, "tables": 2}
    assert [(s["match"], s["table"]) for s in review["swings"][:2]] == [("1", "A"), ("3", "A")]
    spades = next(c for c in review["trumps"] if c["trump"] == "♠")
    assert (spades["tables"], spades["mean_ns"], spades["declarer_gained"]) == (3, 1.0, 2)


def test_the_plain_mean_when_the_profile_chooses_it() -> None:
    event = _six({"field": {"datum": "mean"}})
    stats = field_stats(score_event(event, ResultColumns.from_rows(_rows())), NO_LINEUPS)
    assert stats is not None
    assert stats.boards[0].datum == round(2 / 6, 2) and not stats.boards[0].trimmed
    with pytest.raises(ProfileError, match=r"rules\.field\.datum"):
        _six({"field": {"datum": "median"}})


def test_a_penalised_board_and_a_forfeited_match_are_left_out_and_said_so() -> None:
    event = _six()
    adjustments = Adjustments(forfeits=(Forfeit(1, "3", "T6", "did not come"),),
                              penalties=(Penalty(1, "2", "T3", "points", 10, "A", 1, reason="revoke"),))
    stats = field_stats(score_event(event, ResultColumns.from_rows(_rows()), adjustments), NO_LINEUPS)
    assert stats is not None
    results = stats.board_results(1, 1)
    left = {(r["match"], r["table"]): r.get("left_out") for r in results}
    assert left == {("1", "A"): None, ("1", "B"): None, ("2", "A"): "penalty", ("2", "B"): None,
                    ("3", "A"): "forfeit", ("3", "B"): "forfeit"}
    # Three tables count, fewer than six: the plain mean of 3, 1, −1.
    assert (stats.boards[0].datum, stats.boards[0].tables, stats.boards[0].left_out) == (1.0, 3, 3)
    assert not any(p.key.team in ("T5", "T6") for p in stats.pairs)


def test_line_ups_name_the_pairs() -> None:
    event = _six()
    lineups = Lineups({(1, "T1"): Lineup(1, "T1", (("A", ("P1c", "P1a")), ("B", ("P1b", "P1d"))))})
    stats = field_stats(score_event(event, ResultColumns.from_rows(_rows())), lineups)
    assert stats is not None
    named = {p.key: p for p in stats.pairs}
    pair = named[PairKey("T1", ("P1a", "P1c"))]  # in the team's order of players
    assert pair.butler == -2.75 and pair.key.table is None
    assert stats.pair_boards(pair.key) == [{"round": 1, "match": "1", "set": 1, "board": 1, "table": "A",
                                            "side": "EW", "declarer": False, "trump": "♠", "ns": 3,
                                            "butler": -2.75}]
    assert PairKey("T2", (), "A") in named  # T2 named nobody: its pair at table A


def _recomputed(report: dict[str, Any]) -> tuple[dict[tuple[int, int], float], dict[tuple[str, str], float]]:
    """Each board's datum and each (team, table) pair's butler, worked out again from the match
    sheets of ``report`` (every table's N-S and E-W level points), without dealer.field."""
    columns = report["sheet_columns"]
    at = {name: columns.index(name) for name in columns}
    sets = {(m["round"], m["match"]): m for m in report["matches"]}
    event_sets = {(r["round"], r["match"]): r for r in report["field"]["boards"][0]["results"]}
    assert event_sets
    results: dict[tuple[int, int], list[tuple[int, str, str, int]]] = {}
    set_of: dict[tuple[int, str], int] = {}
    for board in report["field"]["boards"]:  # which set each match plays, from the field's rows
        for r in board["results"]:
            set_of[(r["round"], r["match"])] = board["set"]
    for sheet in report["sheets"]:
        key = (sheet["round"], sheet["match"])
        for line in sheet["boards"]:
            for table in ("A", "B"):
                ns, ew = line[at[f"{table}_ns_levels"]], line[at[f"{table}_ew_levels"]]
                if ns is None:
                    continue
                results.setdefault((set_of[key], line[at["board"]]), []).append((sheet["round"], sheet["match"],
                                                                                 table, ns - ew))
    datum = {}
    for key, rows in results.items():
        values = sorted(v for *_k, v in rows)
        if len(values) >= 6:
            values = values[1:-1]
        datum[key] = sum(values) / len(values)
    butler: dict[tuple[str, str], float] = {}
    for key, rows in results.items():
        for rnd, match, table, value in rows:
            m = sets[(rnd, match)]
            ns_team, ew_team = (m["away"], m["home"]) if table == "A" else (m["home"], m["away"])
            butler[(ns_team, table)] = butler.get((ns_team, table), 0.0) + value - datum[key]
            butler[(ew_team, table)] = butler.get((ew_team, table), 0.0) - (value - datum[key])
    return datum, butler


def test_the_demo_report_carries_the_field_recomputed_from_the_stored_results(tmp_path: Path) -> None:
    event = dealt_demo(tmp_path)
    code, _out, err = run_dealer("results", "import", event, SAMPLE_TRAVELLERS, "--boards-dir", tmp_path / "boards")
    assert code == 0, err
    report = report_json_of(event, tmp_path / "boards")
    field = report["field"]
    datum, butler = _recomputed(report)
    # Every played board (a table with a result) has its datum; every pair its butler.
    assert {(b["set"], b["board"]) for b in field["boards"]} == set(datum)
    for board in field["boards"]:
        assert board["datum"] == pytest.approx(datum[(board["set"], board["board"])], abs=0.006)
        for r in board["results"]:
            assert r["vs_datum"] == pytest.approx(r["ns"] - board["datum"], abs=0.011)
    assert {(p["team"], p["table"]) for p in field["pairs"]} == set(butler)
    for pair in field["pairs"]:
        assert pair["butler"] == pytest.approx(butler[(pair["team"], pair["table"])], abs=0.05)
        assert pair["as_declarer"] + pair["as_defenders"] == pytest.approx(pair["butler"], abs=0.02)
        assert pair["declarer_boards"] + pair["defender_boards"] == pair["boards"]
    # A team's butler is its pairs' (at A and at B).
    teams = {t["team"]: t["butler"] for t in field["teams"]}
    for team, total in teams.items():
        assert total == pytest.approx(sum(v for (t, _table), v in butler.items() if t == team), abs=0.05)


def test_the_hands_of_the_round_print_each_boards_datum_once_its_set_is_released(tmp_path: Path) -> None:
    """``dealer print review EVENT --set N``: refused before the set's release; after it, a page a
    board, read back from the PDF: the board's number, its hands' heading and its datum as the
    report's JSON gives it (a board still being played: said to be pending)."""
    from print_support import page_count, page_texts

    event = dealt_demo(tmp_path)
    boards = tmp_path / "boards"
    code, _out, err = run_dealer("results", "import", event, SAMPLE_TRAVELLERS, "--boards-dir", boards)
    assert code == 0, err
    out = tmp_path / "papers"
    code, _out, err = run_dealer("print", "review", event, "--set", 2, "--boards-dir", boards, "--out", out,
                                 "--lang", "en")
    assert code == 2 and "set 2 is not released" in err and "Traceback" not in err
    assert not out.exists() or not any(out.iterdir())
    code, _out, err = run_dealer("print", "review", event, "--boards-dir", boards, "--out", out)
    assert code == 2 and "--set" in err
    for number in (1, 3):
        code, _out, err = run_dealer("release", event, "--set", number, "--reason", "round played",
                                     "--boards-dir", boards, "--accept-missing")
        assert code == 0, err
    report = report_json_of(event, boards)
    for lang, words in (("en", "Datum"), ("zh", "基准")):
        code, _out, err = run_dealer("print", "review", event, "--set", 1, "--set", 3, "--boards-dir", boards,
                                     "--out", out, "--lang", lang)
        assert code == 0, err
        for number in (1, 3):
            path = out / f"review-set-{number:02d}-{lang}.pdf"
            assert page_count(path) == 16
            texts = page_texts(path)
            datums = {b["board"]: b["datum"] for b in report["field"]["boards"] if b["set"] == number}
            for board, text in enumerate(texts, start=1):
                assert str(board) in text.split("\n")[0]
                if board in datums and f"{words} {datums[board]:+g}" in text:
                    continue
                # the demo's missing slip: that board is not played by the whole field yet
                pending = "once every table" if lang == "en" else "全场各桌打完这副牌后"
                assert pending in text, (lang, number, board, text[-400:])
            assert sum(f"{words} " in text for text in texts) >= 15


def test_in_public_only_released_sets_boards_the_whole_field_played_count(tmp_path: Path) -> None:
    """The withholding rule: the site's pairs page and team pages count a set's boards only once
    the set is released, and of a released set only the boards every table has played; the
    director's report counts every result."""
    import json

    from site_support import demo_site, swiss_site

    from dealer.app import EventSession

    event, folder, site = swiss_site(tmp_path / "swiss")  # all 3 rounds played, sets 1 and 2 released
    pairs = json.loads((site / "pairs.json").read_text(encoding="utf-8"))
    assert pairs["sets_counted"] == [1, 2] and pairs["released_sets"] == [1, 2]
    with EventSession.open(event, folder) as session:
        director = report_json(session.report())["field"]
    assert {b["set"] for b in director["boards"]} == {1, 2, 3}
    for team in event.teams:
        page = json.loads((site / f"team-{team.id.lower()}.json").read_text(encoding="utf-8"))
        assert page["field_pairs"], team.id
        assert {b["set"] for p in page["field_pairs"] for b in p["boards_played"]} == {1, 2}
        for p in page["field_pairs"]:  # match by match: the pair's figures again
            assert sum(r["boards"] for r in p["by_match"]) == p["boards"] == len(p["boards_played"])
            assert sum(r["butler"] for r in p["by_match"]) == pytest.approx(p["butler"], abs=0.03)
            assert {r["round"] for r in p["by_match"]} <= {1, 2}
    assert sum(p["boards"] for p in pairs["pairs"]) == 2 * 4 * 8 * 2  # 2 sets × 4 boards × 8 tables × 2 sides
    # The demo (every set released): its one missing slip keeps that board out of the public figures.
    event, folder, site = demo_site(tmp_path / "demo")
    pairs = json.loads((site / "pairs.json").read_text(encoding="utf-8"))
    with EventSession.open(event, folder) as session:
        director = report_json(session.report())["field"]
    assert pairs["boards_counted"] == len(director["boards"]) - 1 == 47
    waiting = [b for b in director["boards"] if len(b["results"]) < 4]
    assert len(waiting) == 1
    board = json.loads((site / f"board-{waiting[0]['set']}-{waiting[0]['board']}.json").read_text(encoding="utf-8"))
    assert board["review"] is None


def test_the_csv_and_xlsx_reports_carry_the_field_as_the_json_does(tmp_path: Path) -> None:
    """``field.csv`` and the XLSX's ``field`` sheet: one line per table's result of each board,
    as ``"field"`` → ``boards`` → ``results`` of the JSON; ``pairs.csv`` and the ``pairs`` sheet:
    every pair of the ranking."""
    import csv

    import openpyxl

    event = dealt_demo(tmp_path)
    boards = tmp_path / "boards"
    code, _out, err = run_dealer("results", "import", event, SAMPLE_TRAVELLERS, "--boards-dir", boards)
    assert code == 0, err
    out = tmp_path / "reports"
    code, _out, err = run_dealer("report", event, "--boards-dir", boards, "--format", "csv,xlsx,json", "--out", out,
                                 "--lang", "en")
    assert code == 0, err
    report = json.loads((out / "demo-results.json").read_text(encoding="utf-8"))
    sides = {(m["round"], m["match"]): (m["home"], m["away"]) for m in report["matches"]}

    def seated(r: dict[str, Any]) -> list[str]:  # N-S and E-W teams: at table A the home team sits E-W
        home, away = sides[(r["round"], r["match"])]
        return [away, home] if r["table"] == "A" else [home, away]

    expected = [[b["set"], b["board"], b["datum"], r["round"], r["match"], r["table"], r["ns"], r["vs_datum"],
                 r["trump"], *seated(r), r.get("left_out")]
                for b in report["field"]["boards"] for r in b["results"]]
    assert len(expected) == 2 * 2 * 48 - 1  # 2 matches × 2 tables × 48 boards, one slip missing

    def plain(value: Any) -> Any:
        return None if value in ("", None) else value

    with (out / "field.csv").open(encoding="utf-8-sig", newline="") as stream:
        rows = list(csv.reader(stream))
    assert rows[0] == ["set", "board", "datum", "round", "match", "table", "ns", "vs_datum", "trump", "ns_team",
                       "ew_team", "left_out"]
    assert [[plain(v) for v in row] for row in rows[1:]] == [[plain(str(v)) if v is not None else None
                                                              for v in row] for row in expected]
    book = openpyxl.load_workbook(out / "demo-results.xlsx", read_only=True)
    sheet = [[plain(c) for c in row] for row in book["field"].iter_rows(min_row=2, values_only=True)]
    def number(value: Any) -> Any:  # the workbook keeps 0.0 as the number 0
        return float(value) if isinstance(value, int | float) else value

    assert [[number(v) for v in row] for row in sheet] == [[number(v) for v in row] for row in expected]
    with (out / "pairs.csv").open(encoding="utf-8-sig", newline="") as stream:
        pairs = list(csv.reader(stream))
    assert pairs[0][:2] == ["Rank", "Team"] and len(pairs) - 1 == len(report["field"]["pairs"])
    assert [row[1] for row in pairs[1:]] == [p["team"] for p in report["field"]["pairs"]]
    assert [float(row[5]) for row in pairs[1:]] == [p["butler"] for p in report["field"]["pairs"]]
    assert next(book["pairs"].iter_rows(min_row=1, max_row=1, values_only=True))[0] == "Rank"


@pytest.mark.parametrize("text", ["T1", "a,b", 'say "x"', "two\nlines", "cr\rhere", "'=1"])
def test_field_csv_cells_are_quoted_as_the_csv_writer_quotes_them(text: str) -> None:
    """``field.csv`` is written as text column by column: an id's cell is quoted as ``csv.writer``
    would (a delimiter, a quote or a line end inside), read back the same."""
    import csv
    import io

    from dealer.report.field_text import csv_cell

    written = io.StringIO()
    csv.writer(written, lineterminator="\r\n").writerow([text, "x"])
    assert csv_cell(text) + ",x\r\n" == written.getvalue()
    assert next(csv.reader(io.StringIO(csv_cell(text) + ",x\r\n"))) == [text, "x"]
