"""The players' site without a browser: `dealer release` (refusals, once only, in the results
chain), the JSON twins, a rebuild that rewrites only what changed and swaps the folder, the
English root, a level race, and the match sheets read from the grids equal the scoring's."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from conftest import demo_event, release_of, report_of, run_dealer, site_of
from site_support import demo_site

from dealer.app import EventSession
from dealer.app.dealing import deal_event
from dealer.app.result_files import import_file
from dealer.app.results import add_result
from dealer.report import report_json
from dealer.site.pages import SiteData
from dealer.store.folder import EventFolder
from dealer.store.schema import BOARDS


def _dealt_with_results(tmp_path: Path) -> tuple[Path, Path]:
    """The demo dealt, its event file written out, the sample results imported (round 3 match
    2 misses one slip)."""
    event = demo_event()
    folder = EventFolder(event.id, tmp_path / "boards", tmp_path / "output")
    deal_event(event, folder)
    event_file = tmp_path / "demo.toml"
    event_file.write_text((resources.files("dealer") / "data" / "demo-event.toml").read_text(encoding="utf-8"),
                          encoding="utf-8")
    with EventSession.open(event, folder, write=True) as session, \
            resources.as_file(resources.files("dealer") / "data" / "sample-travellers.csv") as sample:
        import_file(session, sample)
    return event_file, tmp_path / "boards"


def test_release_is_refused_while_a_match_misses_results_and_stored_once_in_the_chain(tmp_path: Path) -> None:
    event_file, boards = _dealt_with_results(tmp_path)
    common = ("--boards-dir", boards)
    refused = run_dealer("release", event_file, "--set", 3, "--reason", "played", *common)
    assert refused.exit_code == 2
    assert "round 3 match 2" in refused.stderr and "--accept-missing" in refused.stderr
    assert run_dealer("release", event_file, "--key", "--reason", "over", *common).exit_code == 2  # sets first
    assert run_dealer("release", event_file, "--set", 9, "--reason", "x", *common).exit_code == 2
    assert run_dealer("release", event_file, "--reason", "x", *common).exit_code == 2  # neither --set nor --key
    head = json.loads(run_dealer("report", event_file, "--json", *common).stdout)["results_chain_head"]
    done = run_dealer("release", event_file, "--set", 1, "--reason", "round 1 played", "--by", "TD", *common)
    assert done.exit_code == 0 and "released set 1" in done.stdout
    again = run_dealer("release", event_file, "--set", 1, "--reason", "again", *common)
    assert again.exit_code == 0 and "nothing changed" in again.stdout
    accepted = run_dealer("release", event_file, "--set", 3, "--reason", "round 3 played", "--accept-missing", *common)
    assert accepted.exit_code == 0 and "warning: round 3 match 2" in accepted.stderr
    run_dealer("release", event_file, "--set", 2, "--reason", "round 2 played", *common)
    # Every set released, but round 3 match 2 still misses a slip: the event is not over.
    early = run_dealer("release", event_file, "--key", "--reason", "event over", *common)
    assert early.exit_code == 2 and "round 3 match 2" in early.stderr, early.output
    assert run_dealer("round", "end", event_file, "--reason", "the last slip is lost", *common).exit_code == 0
    assert run_dealer("release", event_file, "--key", "--reason", "event over", *common).exit_code == 0
    # In the results' hash chain: the head moved, and the audit walks the releases too.
    assert json.loads(run_dealer("report", event_file, "--json", *common).stdout)["results_chain_head"] != head
    assert run_dealer("results", "audit", event_file, *common).exit_code == 0
    import sqlite3

    conn = sqlite3.connect(boards / "demo" / "results.sqlite")
    try:
        conn.execute("DROP TRIGGER releases_no_update")
        conn.execute("UPDATE releases SET reason = 'rewritten' WHERE set_number = 1")
        conn.commit()
    finally:
        conn.close()
    audit = run_dealer("results", "audit", event_file, *common)
    assert audit.exit_code == 1 and "releases #1" in audit.output


def test_a_level_race_has_nothing_to_release(tmp_path: Path) -> None:
    event_file = tmp_path / "levels.toml"
    event_file.write_text((resources.files("dealer") / "data" / "demo-levels.toml").read_text(encoding="utf-8"),
                          encoding="utf-8")
    (tmp_path / "boards").mkdir()
    outcome = run_dealer("release", event_file, "--set", 1, "--reason", "x", "--boards-dir", tmp_path / "boards")
    assert outcome.exit_code == 2 and "level race" in outcome.stderr


def test_every_page_has_its_json_twin_and_the_twins_agree_with_the_report(tmp_path: Path) -> None:
    event, folder, site = demo_site(tmp_path)
    pages = sorted(site.rglob("*.html"))
    for page in pages:
        twin = page.with_suffix(".json")
        if not twin.exists():  # an English page whose data holds no words links the root's twin
            twin = site / page.name.replace(".html", ".json")
            assert f'href="../{twin.name}"' in page.read_text(encoding="utf-8")
        data = json.loads(twin.read_text(encoding="utf-8"))
        assert data["schema"] == 1 and data["event"]["id"] == "demo"
    report = report_json(report_of(event, folder))
    home = json.loads((site / "index.json").read_text(encoding="utf-8"))
    # Round 3 match 2 misses a slip, and the demo declared its end: final, the missing match said apart.
    assert home["provisional"] is False
    assert home["status"] == {"final": True, "after_round": 3, "rounds": 3, "missing_matches": 1, "ended_early": True,
                              "appeals_pending": 0}
    assert [r["team"] for r in home["leaders"]] == [s["team"] for s in report["standings"]]
    rnd = json.loads((site / "round-3.json").read_text(encoding="utf-8"))
    by_match = {(m["round"], m["match"]): m for m in report["matches"]}
    for m in rnd["matches"]:
        expected = by_match[(3, m["match"])]
        assert (m["home"]["id"], m["home_level_points"], m["complete"]) == \
            (expected["home"], expected["home_level_points"], expected["complete"])
    # A team's rank chart names the first and last rounds on its x axis.
    team_page = sorted(site.glob("team-*.html"))[0]
    team = team_page.read_text(encoding="utf-8")
    twin = json.loads(team_page.with_suffix(".json").read_text(encoding="utf-8"))
    chart = team.split("<svg", 1)[1].split("</svg>", 1)[0]
    rounds = [p["round"] for p in twin["rank_history"]]
    assert f'text-anchor="middle">{rounds[0]}</text>' in chart
    assert f'text-anchor="middle">{rounds[-1]}</text>' in chart


def test_dealer_report_and_dealer_site_build_each_match_sheet_once(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """One match sheet per played match, made once per command from the scored arrays, read by
    every report format (HTML, PDF, CSV, XLSX, JSON) and the site's match pages; the sheets'
    board lines are those of :meth:`ScoredEvent.sheet`."""
    from dealer.scoring import ScoredEvent

    built: list[tuple[int, str]] = []
    make = ScoredEvent._sheets

    def counted(self: ScoredEvent, part: Any) -> Any:
        sheets = make(self, part)
        built.extend((sheet.score.round, sheet.score.match) for sheet in sheets)
        return sheets

    monkeypatch.setattr(ScoredEvent, "_sheets", counted)
    event_file, boards = _dealt_with_results(tmp_path)
    event = demo_event()
    data = report_of(event, EventFolder(event.id, boards))
    played = sorted((s.round, s.match) for s in data.scored.scores if not s.forfeited_by)
    for m in data.scored.matches:
        sheet = data.scored.match_sheet(m.round, m.id)
        assert sheet is not None
        assert [(b.board, b.points, b.ns_levels, b.ew_levels, b.home_levels, b.away_levels, b.home_running,
                 b.away_running, b.counted, b.trump) for b in data.scored.sheet(m.round, m.id)] == \
            [(v[0], (v[3], v[6]), (v[4], v[7]), (v[5], v[8]), v[9], v[10], v[11], v[12], bool(v[13]), (v[14], v[15]))
             for v in sheet.boards]
    built.clear()
    done = run_dealer("report", event_file, "--boards-dir", boards, "--out", tmp_path / "reports",
                      "--format", "html,pdf,csv,xlsx,json")
    assert done.exit_code == 0, done.output
    assert sorted(built) == played
    built.clear()
    done = run_dealer("site", event_file, "--boards-dir", boards, "--out", tmp_path / "site")
    assert done.exit_code == 0, done.output
    assert sorted(built) == played


def test_the_rank_after_the_last_round_is_the_standings_and_after_an_earlier_one_is_ranked_anew(
        tmp_path: Path) -> None:
    """The rank after the last round is taken from the report's standings (a league's ranking
    takes a third of a second); it equals ranking every match again, as earlier rounds are."""
    from dealer.app.played import folder_seed
    from dealer.standings import rank

    _event_file, boards = _dealt_with_results(tmp_path)
    event = demo_event()
    folder = EventFolder(event.id, boards, tmp_path / "output")
    with EventSession.open(event, folder, write=True) as session:
        add_result(session, {"round": "3", "match": "2", "table": "B", "board": "16", "defenders_points": "85"})
    data = report_of(event, folder)
    assert data.lots_seed == folder_seed(folder)
    site = SiteData(data, {}, {}, {}, None, [], data.lots_seed)
    for number in (1, 2, 3):
        scores = [s for s in data.scored.scores if s.round <= number]
        upto = dataclasses.replace(event, rounds=event.rounds[:number])
        table = {s.team: s.rank for s in rank(upto, scores, data.adjustments, data.lots_seed)}
        assert site.rank_after(number) == [table[t.id] for t in event.teams], number
    assert site.rank_after(3) == [next(s.rank for s in data.standings if s.team == t.id) for t in event.teams]


def test_a_rebuild_rewrites_only_what_changed_and_swaps_the_folder(tmp_path: Path) -> None:
    _event_file, boards = _dealt_with_results(tmp_path)
    event = demo_event()
    folder = EventFolder(event.id, boards, tmp_path / "output")
    first = site_of(event, folder, pdf=False)
    site = first.folder
    inodes = {p.relative_to(site): p.stat().st_ino for p in site.rglob("*") if p.is_file()}
    same = site_of(event, folder, pdf=False)
    assert same.written == 0 and same.kept == same.files
    # The missing slip comes in.
    with EventSession.open(event, folder, write=True) as session:
        add_result(session, {"round": "3", "match": "2", "table": "B", "board": "16", "defenders_points": "85"})
    after = site_of(event, folder, pdf=False)
    changed = {p.relative_to(site) for p in site.rglob("*")
               if p.is_file() and inodes.get(p.relative_to(site)) != p.stat().st_ino}
    names = {str(p) for p in changed}
    assert after.written + 1 == len(changed)  # and the manifest
    assert {"match-3-2.html", "match-3-2.json", "en/match-3-2.html", "round-3.html", "standings.html",
            "index.html"} <= names
    assert not {"match-1-1.html", "match-2-1.html", "round-1.html", "verify.html"} & names
    assert json.loads((site / "index.json").read_text(encoding="utf-8"))["provisional"] is False
    # Beside the site only its previous generation (the next rebuild's folder), holding what
    # the site held before this result, with its manifest, and the files' identities.
    assert sorted(p.name for p in site.parent.iterdir() if p.name.startswith(".site")) == \
        [".site-files.json", ".site-previous"]
    previous = site.parent / ".site-previous"
    assert json.loads((previous / "round-3.json").read_text(encoding="utf-8")) != \
        json.loads((site / "round-3.json").read_text(encoding="utf-8"))
    assert (previous / "match-1-1.html").read_bytes() == (site / "match-1-1.html").read_bytes()
    assert (previous / ".site-manifest.json").exists()
    # The next rebuild brings the previous generation up to date and swaps it in.
    again = site_of(event, folder, pdf=False)
    assert again.written == after.written and again.kept == again.files - again.written
    assert (previous / "round-3.html").read_bytes() == (site / "round-3.html").read_bytes()
    assert os.stat(site / "index.html").st_mode & 0o777 == 0o644


def test_english_at_the_root_with_lang_en(tmp_path: Path) -> None:
    event_file, boards = _dealt_with_results(tmp_path)
    out = tmp_path / "english"
    outcome = run_dealer("site", event_file, "--boards-dir", boards, "--out", out, "--lang", "en", "--no-pdf")
    assert outcome.exit_code == 0, outcome.output
    assert '<html lang="en">' in (out / "standings.html").read_text(encoding="utf-8")
    assert '<html lang="zh-Hans">' in (out / "zh" / "standings.html").read_text(encoding="utf-8")
    assert not list(out.glob("board-*"))  # nothing released: no hands


def test_a_level_race_site_has_no_boards(tmp_path: Path) -> None:
    from dealer.demo import levels_demo

    list(levels_demo(tmp_path / "boards", tmp_path / "output"))
    event_file = tmp_path / "boards" / "demo-levels" / "event.toml"
    outcome = run_dealer("site", event_file, "--boards-dir", tmp_path / "boards", "--no-pdf",
                         "--out", tmp_path / "site")
    assert outcome.exit_code == 0, outcome.output
    site = tmp_path / "site"
    assert (site / "match-1-1.html").exists() and not list(site.glob("board-*"))
    assert 'href="verify.html"' not in (site / "index.html").read_text(encoding="utf-8")
    assert not (site / "verify.html").exists() and not (site / "verify.json").exists()  # nothing dealt
    tables = json.loads((site / "match-1-1.json").read_text(encoding="utf-8"))["tables"]
    assert tables and {"home_level", "away_level", "net"} <= set(tables[0])


@pytest.mark.slow
def test_downloads_hold_the_released_sets_hand_records_and_the_reports(tmp_path: Path) -> None:
    """With PDFs (as `make demo` builds it): the print pack's hand records of the released set
    only, in both languages, the report in every format, world-readable; a rebuild keeps them."""
    from pypdf import PdfReader

    _event_file, boards = _dealt_with_results(tmp_path)
    event = demo_event()
    folder = EventFolder(event.id, boards, tmp_path / "output")

    release_of(event, folder, 1, "round 1 played")
    first = site_of(event, folder)
    downloads = first.folder / "downloads"
    names = sorted(p.relative_to(downloads).as_posix() for p in downloads.rglob("*") if p.is_file())
    assert [n for n in names if n.endswith(".pdf") and "hand-records" in n] == \
        ["hand-records-set-01-en.pdf", "hand-records-set-01-zh.pdf"]
    assert {"zh/demo-results.pdf", "en/demo-results.xlsx", "zh/standings.csv", "boards/set-01.json",
            "boards/commitment.json"} <= set(names)
    assert not [n for n in names if "set-02" in n or "set-03" in n or n.endswith("deal.key")]
    assert len(PdfReader(downloads / "hand-records-set-01-zh.pdf").pages) == 8  # 16 boards, 2 a page
    assert all(p.stat().st_mode & 0o777 == 0o644 for p in downloads.rglob("*") if p.is_file())
    listed = json.loads((first.folder / "downloads.json").read_text(encoding="utf-8"))["files"]
    assert sorted(f["file"].removeprefix("downloads/") for f in listed) == names
    again = site_of(event, folder)
    assert again.written == 0 and again.seconds < first.seconds


def test_an_edited_event_file_is_refused_by_report_and_site(tmp_path: Path) -> None:
    """Every stored result is checked against the event file at every build: an edited event
    file (a played match's teams swapped) is refused; a scores file an older version left beside
    the site is neither read nor removed (the site never deletes what this version did not write)."""

    from dealer.attribution import AttributionError

    _event_file, boards = _dealt_with_results(tmp_path)
    event = demo_event()
    folder = EventFolder(event.id, boards, tmp_path / "output")
    site = site_of(event, folder, pdf=False).folder
    rnd = event.rounds[0]
    swapped = dataclasses.replace(rnd.matches[0], home=rnd.matches[0].away, away=rnd.matches[0].home)
    edited = dataclasses.replace(event, rounds=(dataclasses.replace(rnd, matches=(swapped, *rnd.matches[1:])),
                                                *event.rounds[1:]))
    with pytest.raises(AttributionError):
        report_of(edited, folder)
    with pytest.raises(AttributionError):
        site_of(edited, folder, pdf=False)
    old_scores = site.with_name(f".{site.name}-scores.npz")
    old_scores.write_bytes(b"an older version's checkpoint")
    site_of(event, folder, pdf=False)
    assert old_scores.read_bytes() == b"an older version's checkpoint"


def test_a_rebuild_shows_what_a_fresh_build_shows(tmp_path: Path) -> None:
    """After a new result, a correction, a withdrawn result, a whole match withdrawn and then
    forfeited, every file of the rebuilt site equals a fresh build's."""
    from dealer.app.results import correct_result, withdraw_match
    from dealer.app.rounds import record_forfeit

    _event_file, boards = _dealt_with_results(tmp_path)
    event = demo_event()
    folder = EventFolder(event.id, boards, tmp_path / "output")
    site = site_of(event, folder, pdf=False).folder

    def store(change: Callable[[EventSession], object]) -> None:
        with EventSession.open(event, folder, write=True) as session:
            change(session)

    changes: list[Callable[[], object]] = [
        lambda: store(lambda r: add_result(r, {"round": "3", "match": "2", "table": "B", "board": "16",
                                                      "defenders_points": "85"})),
        lambda: store(lambda r: correct_result(r, {"round": "1", "match": "1", "table": "A", "board": "1",
                                                          "defenders_points": "205"}, "slip misread")),
        lambda: store(lambda r: correct_result(r, {"round": "2", "match": "1", "table": "B", "board": "5"},
                                               "not played", withdraw=True)),
        lambda: store(lambda r: withdraw_match(r, {"round": "3", "match": "1"}, "T4 did not come")),
        lambda: store(lambda r: record_forfeit(r, 3, "1", "T4", "did not come")),
    ]
    for number, change in enumerate(changes):
        change()
        site_of(event, folder, pdf=False)
        fresh = site_of(event, folder, tmp_path / f"fresh-{number}", pdf=False).folder
        assert _files(site) == _files(fresh), number


def test_a_report_reads_one_snapshot_of_the_results(tmp_path: Path) -> None:
    """A result stored while a report reads (another scorer at work) is not in what it reads."""
    _event_file, boards = _dealt_with_results(tmp_path)
    event = demo_event()
    folder = EventFolder(event.id, boards, tmp_path / "output")
    session = EventSession.open(event, folder)
    reader = session.store
    assert reader is not None
    with session, reader.snapshot():
        rows = reader.scoring_rows(BOARDS)
        with EventSession.open(event, folder, write=True) as writer:
            add_result(writer, {"round": "3", "match": "2", "table": "B", "board": "16", "defenders_points": "85"})
        assert reader.scoring_rows(BOARDS) == rows
    with EventSession.open(event, folder) as later:
        assert later.store is not None and len(later.store.scoring_rows(BOARDS)) == len(rows) + 1


def _files(site: Path) -> dict[str, object]:
    """Every file of a site by name: its bytes, a workbook its cells (it holds the time it was made)."""
    from openpyxl import load_workbook

    def content(path: Path) -> object:
        if path.suffix != ".xlsx":
            return path.read_bytes()
        book = load_workbook(path, read_only=True)
        return {sheet.title: list(sheet.iter_rows(values_only=True)) for sheet in book.worksheets}

    return {str(p.relative_to(site)): content(p) for p in site.rglob("*") if p.is_file()}


def test_a_pairs_figures_match_by_match_are_written_as_the_rows_loop_wrote_them() -> None:
    """A league's team pages list each pair's figures match by match (``pair_match_rows``, not a
    Jinja expression per cell): the match linked to its page, text escaped, figures signed."""
    from types import SimpleNamespace

    from dealer.render.rows import pair_match_rows
    from dealer.render.strings import strings

    urls = SimpleNamespace(page={"match-1-1": "match-1-1.html"})

    f = strings("en")["field"]
    rows = [{"round": 1, "match": "1", "table": "A", "side": "NS", "boards": 16, "butler": 3.5, "as_declarer": -1.25,
             "as_defenders": 4.75, "page": "match-1-1"},
            {"round": 2, "match": "<x>", "table": "B", "side": "EW", "boards": 3, "butler": 0.0, "as_declarer": 0.0,
             "as_defenders": -2.0, "page": None}]
    html = pair_match_rows(rows, f, "R{r} M{m}", urls)
    assert html == (f'<tr><th scope="row"><a href="match-1-1.html">R1 M1</a></th><td>{f["ns_side"]} A</td>'
                    '<td class="n">16</td><td class="n">+3.5</td><td class="n">-1.25</td>'
                    '<td class="n">+4.75</td></tr>\n'
                    f'<tr><th scope="row">R2 M&lt;x&gt;</th><td>{f["ew_side"]} B</td><td class="n">3</td>'
                    '<td class="n">+0</td><td class="n">+0</td><td class="n">-2</td></tr>\n')
