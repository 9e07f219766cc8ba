"""A round in play on the players' site and the live pages (a live-event review: one slow table
held back the whole hall, and the standings shown were invented, every team "1="): the standings
are those after the last round complete in the public report, labelled; before any round is
complete there is no ranking at all; the round in play says how many matches and tables are done
and which table's boards the field waits for; a match whose boards are withheld says so instead
of 0:0; and no value of a board shows before every table has played it.

An 8-team Swiss (4 matches × 2 tables, 4 boards a set), match 4 of round 1 forfeited: round 1
with 7 of 8 tables done (table 2B has played nothing), then round 2 with 7 of 8 tables done
(table 3B has played boards 1 and 2 only)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import run_dealer, site_of
from serve_support import served

from dealer.app import EventSession
from dealer.app.dealing import deal_event
from dealer.app.result_files import import_file
from dealer.app.rounds import pair_round, record_forfeit
from dealer.app.session import event_as_played
from dealer.demo import sample_round_csv
from dealer.event import Event
from dealer.files import load_event_text
from dealer.store.folder import EventFolder

TEXT = "\n".join([
    "[event]", 'id = "hall8"', 'name = "八队积分编排赛 Hall of eight"', 'date = "2026-12-21"',
    'profile = "official-2002"', "decks = 2", "boards_per_set = 4", "",
    "[format]", 'kind = "swiss"', "rounds = 3", 'first_round = "split"', "",
    *(line for n in range(1, 9) for line in (
        "[[teams]]", f'id = "H{n}"', f'name = "{"厅" * (n % 2 + 1)}{n} Hall {n}"', f"seed = {n}",
        f'players = ["R{n}a", "R{n}b", "R{n}c", "R{n}d"]', "")),
])
HEAD = "round,match,table,board,defenders_points,ns_team,ew_team,trump"
#: A score of nothing to nothing (a match whose every board is withheld showed it).
ZERO = re.compile(r"(?<![0-9])0 : 0(?![0-9])")
#: The trump recorded on every result: a withheld board's shows nowhere either.
TRUMP = "NT"


@dataclass
class Hall:
    root: Path
    event_file: Path
    event: Event
    folder: EventFolder

    @property
    def boards(self) -> Path:
        return self.root / "boards"

    def played(self) -> Event:
        return event_as_played(self.event, self.folder)

    def pair(self, number: int) -> None:
        with EventSession.open(self.event, self.folder, write=True, as_played=False) as session:
            pair_round(session, number, entered_by="test")

    def rows(self, number: int) -> list[tuple[str, str, int, str]]:
        """Round ``number``'s invented results as (match, table, board, CSV row)."""
        found = []
        for line in sample_round_csv(self.played(), number).splitlines()[2:]:
            _round, match, table, board, *_rest = line.split(",")
            found.append((match, table, int(board), f"{line},{TRUMP}"))
        return found

    def store(self, rows: list[str], name: str) -> None:
        path = self.root / f"{name}.csv"
        path.write_text("\n".join([HEAD, *rows]) + "\n", encoding="utf-8")
        with EventSession.open(self.played(), self.folder, write=True) as session:
            import_file(session, path)

    def site(self) -> Path:
        return site_of(self.event, self.folder, pdf=False).folder

    def report(self) -> dict[str, Any]:
        outcome = run_dealer("report", self.event_file, "--json", "--boards-dir", self.boards)
        assert outcome.exit_code == 0, outcome.output
        found: dict[str, Any] = json.loads(outcome.stdout)
        return found


def _hall(root: Path) -> Hall:
    event_file = root / "hall8.toml"
    event_file.write_text(TEXT, encoding="utf-8")
    event = load_event_text(TEXT, str(event_file))
    folder = EventFolder(event.id, root / "boards", root / "output")
    deal_event(event, folder)
    return Hall(root, event_file, event, folder)


def _round_one_in_play(root: Path) -> Hall:
    """Round 1 paired, match 4 forfeited by its away team, every result in but table 2B's."""
    hall = _hall(root)
    hall.pair(1)
    forfeited = hall.played().round(1).match("4")  # type: ignore[union-attr]
    assert forfeited is not None
    with EventSession.open(hall.event, hall.folder, write=True) as session:
        record_forfeit(session, 1, "4", forfeited.away, "did not come", entered_by="test")
    hall.store([row for match, table, _b, row in hall.rows(1) if match != "4" and (match, table) != ("2", "B")],
               "round-1")
    return hall


def _round_two_in_play(root: Path) -> tuple[Hall, list[dict[str, Any]]]:
    """Round 1 complete (``dealer report``'s standings then given back), round 2 paired and
    every result in but boards 3 and 4 at table 3B."""
    hall = _round_one_in_play(root)
    hall.store([row for match, table, _b, row in hall.rows(1) if (match, table) == ("2", "B")], "round-1-2b")
    after_one = hall.report()["standings"]
    hall.pair(2)
    hall.store([row for match, table, board, row in hall.rows(2) if (match, table) != ("3", "B") or board <= 2],
               "round-2")
    return hall, after_one


# --- the pages, from the static site and from the live pages -----------------------------------


@dataclass
class Pages:
    """Each page asked for, by its static name: (zh HTML, en HTML, twin)."""

    found: dict[str, tuple[str, str, dict[str, Any]]]

    def html(self, name: str, lang: str = "zh") -> str:
        zh, en, _twin = self.found[name]
        return zh if lang == "zh" else en

    def twin(self, name: str) -> dict[str, Any]:
        return self.found[name][2]


def _static(site: Path, names: list[str]) -> Pages:
    return Pages({name: ((site / f"{name}.html").read_text(encoding="utf-8"),
                         (site / "en" / f"{name}.html").read_text(encoding="utf-8"),
                         json.loads((site / f"{name}.json").read_text(encoding="utf-8"))) for name in names})


def _live_url(name: str) -> str:
    if name == "standings":
        return "/live/standings"
    if name.startswith("round-"):
        return f"/live/round/{name.removeprefix('round-')}"
    if name.startswith("match-"):
        _kind, round_number, match = name.split("-")
        return f"/live/match/{round_number}/{match}"
    return f"/live/{name}"


def _live(hall: Hall, names: list[str]) -> Pages:
    import asyncio

    async def fetch(client: Any) -> dict[str, tuple[str, str, dict[str, Any]]]:
        found = {}
        for name in names:
            url = _live_url(name)
            html_url = url + ".html" if url == f"/live/{name}" else url
            zh, en, twin = (await client.get(html_url), await client.get(html_url + "?lang=en"),
                            await client.get(url + ".json"))
            assert zh.status_code == en.status_code == twin.status_code == 200, name
            data = twin.json()
            data.pop("live")
            found[name] = (zh.text, en.text, data)
        return found

    async def run() -> dict[str, tuple[str, str, dict[str, Any]]]:
        with served(hall.event_file, hall.boards) as server:
            async with server.client() as client:
                return await fetch(client)

    return Pages(asyncio.run(run()))


@pytest.fixture(params=["static", "live"])
def where(request: pytest.FixtureRequest) -> str:
    return str(request.param)


ROUND_ONE_PAGES = ["standings", "index", "round-1", "match-1-1", "match-1-2", "cross-table"]
ROUND_TWO_PAGES = ["standings", "index", "round-2", "match-2-1", "match-2-3", "round-1", "cross-table"]


def _pages(hall: Hall, where: str, names: list[str]) -> Pages:
    site = hall.site()
    teams = [f"team-{t.id.lower()}" for t in hall.event.teams]
    return _static(site, names + teams) if where == "static" else _live(hall, names + teams)


def _text(html: str) -> str:
    """A page's words without its tags (a line's words split by links and spans read whole)."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))


def _table(html: str, css: str) -> str:
    found = re.search(r'<table class="' + css + r'.*?</table>', html, re.S)
    assert found is not None, css
    return found.group(0)


# --- round 1 in play ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def round_one(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hall]:
    yield _round_one_in_play(tmp_path_factory.mktemp("round-one"))


def test_before_any_round_is_complete_no_team_is_ranked(round_one: Hall, where: str) -> None:
    pages = _pages(round_one, where, ROUND_ONE_PAGES)
    standings = pages.twin("standings")
    # No ranking at all: the teams listed without rank or figures, and why.
    assert standings["standings"] == [] and standings["standings_after"] == 0
    assert [t["id"] for t in standings["unranked"]] == [t.id for t in round_one.event.teams]
    assert pages.twin("index")["leaders"] == []
    for lang, said in (("zh", "第 1 轮进行中，尚无排名"), ("en", "Round 1 in play: no ranking yet")):
        html = pages.html("standings", lang)
        assert said in _text(html), lang
        assert "1=" not in html and "1=" not in pages.html("index", lang)
        assert said in _text(pages.html("index", lang))
        table = _table(html, "standings")
        assert all(t.name in table for t in round_one.event.teams)
        assert '<td class="n">' not in table  # no rank, no figure
    for team in round_one.event.teams:
        twin = pages.twin(f"team-{team.id.lower()}")
        assert twin["standing"] is None and all(r["rank"] is None for r in twin["rank_history"]), team.id
        assert "名次 1" not in _text(pages.html(f"team-{team.id.lower()}"))


def test_round_one_in_play_shows_its_progress_and_withheld_matches(round_one: Hall, where: str) -> None:
    pages = _pages(round_one, where, ROUND_ONE_PAGES)
    waiting = round_one.played().round(1).match("2")  # type: ignore[union-attr]
    assert waiting is not None
    table = round_one.event.table_names(waiting)["B"]
    progress = {"round": 1, "matches": 4, "matches_done": 3, "tables": 8, "tables_done": 7,
                "waiting": [{"table": table, "match": "2", "boards": [1, 2, 3, 4]}]}
    # Every match but the forfeited one waits for the field: said so, never 0:0.
    matches = _table(pages.html("round-1"), "matches")
    assert not ZERO.search(matches) and matches.count("第 1–4 副待全场打完后公布") == 3
    assert _table(pages.html("round-1", "en"), "matches").count("Boards 1–4: shown once the field has played them") == 3
    for m in pages.twin("round-1")["matches"]:
        assert m["withheld_boards"] == ([] if m["forfeited_by"] else [1, 2, 3, 4]), m["match"]
    for name in ("match-1-1", "match-1-2"):
        twin, html = pages.twin(name), pages.html(name)
        assert twin["played"] is False and twin["withheld_boards"] == [1, 2, 3, 4]
        assert all(b[k] is None for b in twin["boards"] for k in ("a_points", "b_points", "a_ns_level_points",
                                                                  "b_ew_level_points", "home_level_points"))
        score = re.search(r'<span class="score">(.*?)</span>\s*<span class="away">', html, re.S)
        assert score is not None and not ZERO.search(score.group(1)) and "待全场打完后公布" in score.group(1), name
        assert not ZERO.search(html), name
    home = round_one.played().round(1).match("1")  # type: ignore[union-attr]
    assert home is not None
    team = pages.twin(f"team-{home.home.lower()}")
    assert team["matches"][0]["withheld_boards"] == [1, 2, 3, 4]
    assert "第 1–4 副待全场打完后公布" in _text(pages.html(f"team-{home.home.lower()}"))
    cross = pages.twin("cross-table")
    row = next(r for r in cross["rows"] if r["team"]["id"] == home.home)
    cell = next(c for c in row["cells"] if c)
    assert cell[0]["withheld_boards"] == [1, 2, 3, 4] and cell[0]["own"] is None
    assert "待公布" in _table(pages.html("cross-table"), "cross")
    for name in ("standings", "index", "round-1"):
        assert f"第 1 轮：3/4 场完成，7/8 桌完成；等待 {table} 桌：第 1–4 副" in _text(pages.html(name)), name
        assert f"Round 1: 3/4 matches complete, 7/8 tables done; waiting for table {table}: boards 1–4" in \
            _text(pages.html(name, "en")), name
        assert pages.twin(name)["progress"] == progress, name
        assert "未录入" not in pages.html(name) and "still missing" not in pages.html(name, "en"), name


# --- round 2 in play ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def round_two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Hall, list[dict[str, Any]]]]:
    yield _round_two_in_play(tmp_path_factory.mktemp("round-two"))


def test_the_standings_are_those_after_the_last_complete_round_labelled(
        round_two: tuple[Hall, list[dict[str, Any]]], where: str) -> None:
    hall, after_one = round_two
    pages = _pages(hall, where, ROUND_TWO_PAGES)
    standings = pages.twin("standings")
    assert [{k: v for k, v in row.items() if k not in ("name", "page")} for row in standings["standings"]] == after_one
    assert standings["standings_after"] == 1 and standings["unranked"] == []
    assert [r["team"] for r in pages.twin("index")["leaders"]] == [s["team"] for s in after_one]
    for lang, label in (("zh", "第 1 轮后排名"), ("en", "Standings after round 1")):
        assert label in _text(pages.html("standings", lang)) and label in _text(pages.html("index", lang))
    rank = {s["team"]: s["rank"] for s in after_one}
    for team in hall.event.teams:
        twin = pages.twin(f"team-{team.id.lower()}")
        assert twin["standing"]["rank"] == rank[team.id] and twin["standings_after"] == 1
        assert [r["rank"] for r in twin["rank_history"]] == [rank[team.id], None]
        assert "第 1 轮后" in _text(pages.html(f"team-{team.id.lower()}"))


def test_round_two_in_play_shows_its_progress_and_no_withheld_value(
        round_two: tuple[Hall, list[dict[str, Any]]], where: str) -> None:
    hall, _after_one = round_two
    pages = _pages(hall, where, ROUND_TWO_PAGES)
    waiting = hall.played().round(2).match("3")  # type: ignore[union-attr]
    assert waiting is not None
    table = hall.event.table_names(waiting)["B"]
    assert re.fullmatch(r"\d+B", table)
    progress = {"round": 2, "matches": 4, "matches_done": 3, "tables": 8, "tables_done": 7,
                "waiting": [{"table": table, "match": "3", "boards": [3, 4]}]}
    # A match with boards 1-2 shown and 3-4 withheld says both; no value of boards 3-4 anywhere.
    with EventSession.open(hall.event, hall.folder) as session:
        director = session.report()
    for name, match in (("match-2-1", "1"), ("match-2-3", "3")):
        twin, html = pages.twin(name), pages.html(name)
        assert twin["played"] is True and twin["withheld_boards"] == [3, 4] and twin["boards_counted"] == 2
        for row in twin["boards"][2:]:
            assert all(row[k] is None for k in ("a_points", "a_ns_level_points", "a_ew_level_points", "b_points",
                                                "b_ns_level_points", "b_ew_level_points", "home_level_points",
                                                "away_level_points")), (name, row)
        public = twin["boards"][1]
        assert (twin["home_level_points"], twin["away_level_points"]) == (public["home_running"],
                                                                          public["away_running"])
        full = director.scored.score(2, match)
        if match == "1":  # its two tables played every board: the director sees all four
            assert full.boards_counted == 4
        sheet = _table(html, "sheet")
        for board in (3, 4):
            row_html = re.search(rf'<th scope="row"><a[^>]*>{board}</a></th>(.*?)</tr>|'
                                 rf'<th scope="row">{board}</th>(.*?)</tr>', sheet, re.S)
            assert row_html is not None, (name, board)
            cells = re.findall(r'<td class="n">(.*?)</td>', row_html.group(0))
            assert all(c in ("", "–", "—") for c in cells[:-1]), (name, board, cells)
        said = _text(html)
        assert f"{twin['home_level_points']} : {twin['away_level_points']}" in said
        assert "第 2 套第 3–4 副的成绩待所有牌桌打完后公布" in said, name
    round_matches = _table(pages.html("round-2"), "matches")
    assert round_matches.count("第 3–4 副待全场打完后公布") == 4
    # The withheld boards' trump, recorded at every table that played them, is in no twin, and
    # the downloads leave out their points, levels and trump (the board-by-board CSV).
    for name in ROUND_TWO_PAGES:
        assert TRUMP not in json.dumps(pages.twin(name)), name
    if where == "static":
        import csv

        with open(hall.folder.output_path / "site" / "downloads" / "en" / "boards.csv", encoding="utf-8-sig",
                  newline="") as file:
            rows = [row for row in csv.DictReader(file) if row["round"] == "2"]
        assert rows and all(row["A_trump"] == row["B_trump"] == "" and row["A_points"] == ""
                            for row in rows if int(row["board"]) >= 3)
        assert any(row["A_trump"] for row in rows if int(row["board"]) <= 2)
    for name in ("standings", "index", "round-2"):
        assert f"第 2 轮：3/4 场完成，7/8 桌完成；等待 {table} 桌：第 3–4 副" in _text(pages.html(name)), name
        assert f"Round 2: 3/4 matches complete, 7/8 tables done; waiting for table {table}: boards 3–4" in \
            _text(pages.html(name, "en")), name
        assert pages.twin(name)["progress"] == progress, name
        assert "未录入" not in pages.html(name), name
    assert pages.twin("round-1")["progress"] is None
    assert pages.twin("index")["rounds"][1]["complete"] == 3
