"""The players' site under attack (reliability review 3, ../shared/reviews/reliability-3.md): the
folders it may replace, modes whatever the umask, page names no two ids share, the results of a
board still being played, release rows checked against the chain, the verify command quoted."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from conftest import run_dealer

from dealer.site.publish import MANIFEST, MARKER


def _demo(tmp_path: Path, travellers: bool = True) -> tuple[Path, Path]:
    """The demo event file dealt into tmp_path/b, the sample travellers imported (round 3 match
    2, table B, board 16 still to come)."""
    event_file = tmp_path / "e.toml"
    event_file.write_text((resources.files("dealer") / "data" / "demo-event.toml").read_text(encoding="utf-8"),
                          encoding="utf-8")
    boards = tmp_path / "b"
    assert run_dealer("deal", event_file, "--boards-dir", boards).exit_code == 0
    if travellers:
        with resources.as_file(resources.files("dealer") / "data" / "sample-travellers.csv") as sample:
            assert run_dealer("results", "import", event_file, sample, "--boards-dir", boards).exit_code == 0
    return event_file, boards


def _site(event_file: Path, boards: Path, out: Path | str, *more: object) -> Any:
    return run_dealer("site", event_file, "--no-pdf", "--boards-dir", boards, "--out", out, *more)


def _tree(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}



# --- defect 1: --out onto a folder that is not a site ------------------------------------------


def test_defect_01_site_out_onto_a_users_folder_is_refused_and_the_folder_survives(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    mine = tmp_path / "mydocs"
    mine.mkdir()
    (mine / "thesis.txt").write_text("precious", encoding="utf-8")
    for _ in range(2):
        refused = _site(event_file, boards, mine)
        assert refused.exit_code == 2, refused.output
        assert "not a site this tool made" in refused.stderr and "--out" in refused.stderr
    assert _tree(mine) == {"thesis.txt": b"precious"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b", "e.toml", "mydocs"]  # nothing beside it either


def test_defect_01_site_out_onto_the_events_boards_folder_loses_nothing(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    before = _tree(boards / "demo")
    for _ in range(2):
        assert _site(event_file, boards, boards / "demo").exit_code == 2
    assert _tree(boards / "demo") == before
    assert run_dealer("results", "audit", event_file, "--boards-dir", boards).exit_code == 0


def test_defect_01_hidden_folders_beside_the_site_that_the_tool_did_not_make_are_refused(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    out = tmp_path / "www" / "site"
    out.parent.mkdir()
    for name in (".site-previous", ".site.new", ".site-previous.partial"):
        mine = out.parent / name
        mine.mkdir()
        (mine / "keep.txt").write_text("mine", encoding="utf-8")
        refused = _site(event_file, boards, out)
        assert refused.exit_code == 2 and name in refused.stderr, refused.output
        assert (mine / "keep.txt").read_text(encoding="utf-8") == "mine"
        assert not out.exists()
        (mine / "keep.txt").unlink()
        mine.rmdir()
    assert _site(event_file, boards, out).exit_code == 0  # then a first build goes ahead


def test_defect_01_an_empty_folder_and_a_site_folder_are_built_into(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _site(event_file, boards, empty).exit_code == 0
    assert (empty / "index.html").is_file() and (empty / MANIFEST).is_file() and (empty / MARKER).is_file()
    assert (tmp_path / ".empty-previous" / MARKER).is_file()
    assert _site(event_file, boards, empty).exit_code == 0  # a rebuild
    # A site whose marker is gone (a build of a version before it) is still the tool's, by its manifest.
    (empty / MARKER).unlink()
    assert _site(event_file, boards, empty).exit_code == 0


@pytest.mark.parametrize("out", [".", "/"])
def test_defect_10_site_out_dot_or_root_is_one_error(tmp_path: Path, out: str, monkeypatch: pytest.MonkeyPatch) -> None:
    event_file, boards = _demo(tmp_path)
    monkeypatch.chdir(tmp_path)
    refused = _site(event_file, boards.resolve(), out)
    assert refused.exit_code == 2 and refused.stderr.startswith("error: --out"), refused.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b", "e.toml"]


# --- defect 5: a symlinked site folder ----------------------------------------------------------


def test_defect_05_a_site_folder_that_is_a_link_is_swapped_at_its_target(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    www = tmp_path / "www"
    www.mkdir()
    assert _site(event_file, boards, www / "shengji").exit_code == 0
    (tmp_path / "live").symlink_to("www/shengji")
    (tmp_path / "m.csv").write_text("round,match,table,board,defenders_points\n3,2,B,16,45\n", encoding="utf-8")
    assert run_dealer("results", "import", event_file, tmp_path / "m.csv", "--boards-dir", boards).exit_code == 0
    for _ in range(2):  # two rebuilds through the link: each a swap in the web root
        assert _site(event_file, boards, tmp_path / "live").exit_code == 0
        assert (tmp_path / "live").is_symlink() and os.readlink(tmp_path / "live") == "www/shengji"
        assert not (tmp_path / ".live-previous").exists()
        beside = [".shengji-files.json", ".shengji-previous", "shengji"]
        assert sorted(p.name for p in www.iterdir()) == beside
        assert json.loads((www / "shengji" / "index.json").read_text(encoding="utf-8"))["provisional"] is False
    # A link to something that is not a folder is refused.
    (tmp_path / "file").write_text("x", encoding="utf-8")
    (tmp_path / "bad").symlink_to("file")
    assert _site(event_file, boards, tmp_path / "bad").exit_code == 2
    assert (tmp_path / "file").read_text(encoding="utf-8") == "x"


# --- defect 7: modes whatever the umask; a kept file is the one the build wrote -----------------


@pytest.fixture(params=[0o077, 0o000])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


def test_defect_07_every_folder_0755_and_file_0644_whatever_the_umask(tmp_path: Path, umask: int) -> None:
    event_file, boards = _demo(tmp_path)
    out = tmp_path / "s"
    for _ in range(2):  # the first build, then a rebuild into the previous generation
        assert _site(event_file, boards, out).exit_code == 0
        for root in (out, tmp_path / ".s-previous"):
            for path in [root, *root.rglob("*")]:
                want = 0o755 if path.is_dir() else 0o644
                assert path.stat().st_mode & 0o777 == want, (oct(umask), path, oct(path.stat().st_mode))


def test_defect_07_a_file_replaced_in_a_kept_generation_is_written_again(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    out = tmp_path / "s"
    assert _site(event_file, boards, out).exit_code == 0
    clean = _tree(out)
    spare = tmp_path / ".s-previous"
    # Another user replaces a file in each generation (as one could at umask 000), one of them
    # by a file of the same size; the next two rebuilds swap both generations in.
    (spare / "assets" / "site.js").unlink()
    (spare / "assets" / "site.js").write_bytes(b"alert(1)")
    js = (out / "assets" / "site.js").read_bytes()
    (out / "assets" / "site.js").unlink()
    (out / "assets" / "site.js").write_bytes(b"x" * len(js))
    # And one edited in place, keeping its size (the two generations share it, as a hard link).
    with open(out / "standings.json", "r+b") as file:
        first = file.read(1)
        file.seek(0)
        file.write(b"X" if first != b"X" else b"Y")
    for _ in range(2):
        assert _site(event_file, boards, out).exit_code == 0
        assert _tree(out) == clean
    assert _tree(spare) == clean


# --- defect 12: a killed first build's folder ---------------------------------------------------


def test_defect_12_a_killed_first_build_leaves_a_folder_the_next_build_removes(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    out = tmp_path / "s"
    code = ("import os, sys\n"
            "import dealer.site.publish as publish\n"
            "def killed(*args):\n"
            "    os._exit(9)\n"  # the moment before the swap: every file written
            "publish._swap = killed\n"
            "from dealer.cli import main\n"
            "main(sys.argv[1:])\n")
    done = subprocess.run([sys.executable, "-c", code, "site", str(event_file), "--no-pdf", "--boards-dir",
                           str(boards), "--out", str(out)], capture_output=True, text=True, check=False)
    assert done.returncode == 9, done.stderr
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".s"))
    assert left == [".s-previous.partial", ".s.new"]
    assert _site(event_file, boards, out).exit_code == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".s")) == [".s-files.json", ".s-previous"]


def _sql(database: Path, statement: str) -> None:
    conn = sqlite3.connect(database)
    try:
        conn.execute(statement)
        conn.commit()
    finally:
        conn.close()


# --- defect 4: page names ------------------------------------------------------------------------

_SLUG_EVENT = """[event]
id = "slug"
name = "Slug"
profile = "official-2002"
decks = 2
boards_per_set = 2
sets = 1
[[teams]]
id = "东风"
[[teams]]
id = "n1"
[[teams]]
id = "九队"
[[teams]]
id = "N9"
[[teams]]
id = "n2"
[[teams]]
id = "N10"
[[rounds]]
number = 1
matches = [{ id = "a", home = "东风", away = "n1", set = 1 }, { id = "A", home = "九队", away = "N9", set = 1 },
           { id = "n1", home = "n2", away = "N10", set = 1 }]
"""


def test_defect_04_no_two_ids_give_one_page_name(tmp_path: Path) -> None:
    event_file = tmp_path / "s.toml"
    event_file.write_text(_SLUG_EVENT, encoding="utf-8")
    boards = tmp_path / "b"
    assert run_dealer("deal", event_file, "--boards-dir", boards).exit_code == 0
    out = tmp_path / "s"
    for _ in range(2):
        done = _site(event_file, boards, out)
        assert done.exit_code == 0, done.output
        # No result yet: no ranking, the teams listed without rank (each with its page).
        standings = json.loads((out / "standings.json").read_text(encoding="utf-8"))
        assert standings["standings"] == []
        pages = {team["id"]: team["page"] for team in standings["unranked"]}
        assert len(set(pages.values())) == 6, pages
        for team, page in pages.items():
            assert json.loads((out / f"{page}.json").read_text(encoding="utf-8"))["team"]["id"] == team
        matches = json.loads((out / "round-1.json").read_text(encoding="utf-8"))["matches"]
        assert len({m["page"] for m in matches}) == 3
        for m in matches:
            assert json.loads((out / f"{m['page']}.json").read_text(encoding="utf-8"))["match"] == m["match"]


def test_defect_04_a_clash_of_page_names_is_refused_before_writing() -> None:
    from dealer.site.pages import PageNameClash, PlannedPage, check_page_names

    pages = [PlannedPage("team-a", "team.html", b"", lambda t: {}), PlannedPage("Team-A", "team.html", b"", dict)]
    with pytest.raises(PageNameClash, match="team-a"):
        check_page_names(pages)


# --- defect 9: the verify command quoted for the shell ------------------------------------------

CRAFTED = "x'; touch PWNED; echo '"


def test_defect_09_the_verify_command_quotes_the_public_value(tmp_path: Path) -> None:
    event_file = tmp_path / "p.toml"
    text = (resources.files("dealer") / "data" / "demo-event.toml").read_text(encoding="utf-8")
    event_file.write_text(text.replace("# public_value_source", "public_value_source"), encoding="utf-8")
    boards = tmp_path / "b"
    assert run_dealer("deal", event_file, "--boards-dir", boards, "--public-value", CRAFTED).exit_code == 0
    with resources.as_file(resources.files("dealer") / "data" / "sample-travellers.csv") as sample:
        assert run_dealer("results", "import", event_file, sample, "--boards-dir", boards).exit_code == 0
    assert run_dealer("results", "add", event_file, "--round", 3, "--match", 2, "--table", "B", "--board", 16,
                      "--points", 45, "--boards-dir", boards).exit_code == 0
    for n in (1, 2, 3):
        released = run_dealer("release", event_file, "--set", n, "--reason", "played", "--boards-dir", boards)
        assert released.exit_code == 0
    assert run_dealer("release", event_file, "--key", "--reason", "over", "--boards-dir", boards).exit_code == 0
    assert _site(event_file, boards, tmp_path / "s").exit_code == 0
    command = json.loads((tmp_path / "s" / "verify.json").read_text(encoding="utf-8"))["verify_command"]
    assert shlex.split(command)[-2:] == ["--public-value", CRAFTED]
    # Pasted into a shell (with printf standing in for dealer): one word, and nothing run.
    shown = subprocess.run(["sh", "-c", command.replace("dealer verify", "printf '%s\\n'", 1)], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout
    assert shown.splitlines()[-1] == CRAFTED
    assert not (tmp_path / "PWNED").exists()


# --- defect 3: a board's results public only once the field has played it ------------------------

RESULT_COLUMNS = ("A_points", "A_ns_levels", "A_ew_levels", "B_points", "B_ns_levels", "B_ew_levels",
                  "home_levels", "away_levels", "A_trump", "B_trump")


def _board_16_everywhere(site: Path) -> list[object]:
    """Every value the site shows of set 3 board 16 (rounds 3: matches 1 and 2) at a table:
    the match pages' JSON, the downloads' CSV and XLSX in both languages."""
    import csv
    import re

    import openpyxl

    found: list[object] = []
    for match in (1, 2):
        row = json.loads((site / f"match-3-{match}.json").read_text(encoding="utf-8"))["boards"][15]
        found += [row[k] for k in ("a_points", "a_ns_level_points", "a_ew_level_points", "b_points",
                                   "b_ns_level_points", "b_ew_level_points", "home_level_points", "away_level_points")]
        for page in (site / f"match-3-{match}.html", site / "en" / f"match-3-{match}.html"):
            html = page.read_text(encoding="utf-8")
            sheet_row = re.search(r'<th scope="row">16</th>(.*?)</tr>', html, re.S)
            assert sheet_row is not None, page
            cells = re.findall(r'<td class="n">(.*?)</td>', sheet_row.group(1))
            found += [cell or None for cell in cells[:-1]]  # the last: the running totals, before it
    for lang in ("zh", "en"):
        with open(site / "downloads" / lang / "boards.csv", encoding="utf-8-sig", newline="") as file:
            for row in csv.DictReader(file):
                if (row["round"], row["board"]) == ("3", "16"):
                    found += [row[k] or None for k in RESULT_COLUMNS]
        book = openpyxl.load_workbook(site / "downloads" / lang / "demo-results.xlsx", read_only=True)
        for sheet in ("boards", "R3-M1", "R3-M2"):
            rows = list(book[sheet].iter_rows(values_only=True))
            head = rows[0]
            for row in rows[1:]:
                values = dict(zip(head, row, strict=True))
                if (str(values["round"]), str(values["board"])) == ("3", "16"):
                    found += [values[k] for k in RESULT_COLUMNS]
        book.close()
    return found


def test_defect_03_a_board_still_to_be_played_at_one_table_shows_no_result_anywhere(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)  # round 3 match 2 table B has still to play board 16
    out = tmp_path / "s"
    assert _site(event_file, boards, out).exit_code == 0
    shown = _board_16_everywhere(out)
    assert shown and all(value is None for value in shown), shown
    home = json.loads((out / "index.json").read_text(encoding="utf-8"))
    assert home["withheld"] == [{"set": 3, "boards": [16]}] and home["provisional"] is True
    page = (out / "match-3-1.html").read_text(encoding="utf-8")
    assert "第 3 套第 16 副的成绩待所有牌桌打完后公布" in page
    # The match totals leave the board out too: no subtraction gives it away.
    match_1 = json.loads((out / "match-3-1.json").read_text(encoding="utf-8"))
    assert match_1["boards_counted"] == 15 and match_1["complete"] is False
    assert match_1["home_level_points"] == match_1["boards"][14]["home_running"]
    # Once the last table has played it, both tables' results appear.
    assert run_dealer("results", "add", event_file, "--round", 3, "--match", 2, "--table", "B", "--board", 16,
                      "--points", 45, "--trump", "S", "--boards-dir", boards).exit_code == 0
    assert _site(event_file, boards, out).exit_code == 0
    shown = _board_16_everywhere(out)
    assert None not in shown, shown
    assert json.loads((out / "index.json").read_text(encoding="utf-8"))["withheld"] == []


def test_defect_03_a_released_set_shows_every_result(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    assert run_dealer("release", event_file, "--set", 3, "--reason", "a slip is lost", "--accept-missing",
                      "--boards-dir", boards).exit_code == 0
    out = tmp_path / "s"
    assert _site(event_file, boards, out).exit_code == 0
    row = json.loads((out / "match-3-1.json").read_text(encoding="utf-8"))["boards"][15]
    assert row["a_points"] is not None and row["b_points"] is not None
    assert json.loads((out / "index.json").read_text(encoding="utf-8"))["withheld"] == []


# --- defect 6: release rows (and every row) trusted only as links of the chain ------------------

FORGED = {
    "a forged set release": "INSERT INTO releases (kind, set_number, reason, at) "
                            "VALUES ('set', 3, 'forged', '2026-12-01T00:00:00.000+00:00')",
    "a forged key release": "INSERT INTO releases (kind, set_number, reason, at) "
                            "VALUES ('key', NULL, 'forged', '2026-12-01T00:00:00.000+00:00')",
}


@pytest.mark.parametrize("forgery", sorted(FORGED))
def test_defect_06_a_release_row_the_tool_did_not_write_publishes_nothing(tmp_path: Path, forgery: str) -> None:
    event_file, boards = _demo(tmp_path)
    _sql(boards / "demo" / "results.sqlite", FORGED[forgery])
    out = tmp_path / "s"
    refused = _site(event_file, boards, out)
    assert refused.exit_code == 2, refused.output
    assert "changed outside the tool" in refused.stderr and "releases #1" in refused.stderr
    assert not out.exists()


def test_defect_06_an_edited_release_publishes_nothing(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    assert run_dealer("release", event_file, "--set", 1, "--reason", "played", "--boards-dir", boards).exit_code == 0
    out = tmp_path / "s"
    assert _site(event_file, boards, out).exit_code == 0
    before = _tree(out)
    database = boards / "demo" / "results.sqlite"
    _sql(database, "DROP TRIGGER releases_no_update")
    _sql(database, "UPDATE releases SET set_number = 3")
    refused = _site(event_file, boards, out)
    assert refused.exit_code == 2 and "releases #1" in refused.stderr, refused.output
    assert _tree(out) == before and not list(out.glob("board-3-*"))


def test_defect_06_every_build_checks_the_whole_chain(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    out = tmp_path / "s"
    assert _site(event_file, boards, out).exit_code == 0
    database = boards / "demo" / "results.sqlite"
    # A result slipped in behind the tool's back (no link): a rebuild reads it, so it refuses.
    _sql(database, "INSERT INTO results (round, match, tbl, board, defenders_points, withdrawn, entered_at, "
                   "import_id) VALUES (3, 2, 'B', 16, 200, 0, '2026-12-01T00:00:00.000+00:00', 1)")
    refused = _site(event_file, boards, out)
    assert refused.exit_code == 2 and "results #" in refused.stderr and "no chain link" in refused.stderr
    assert json.loads((out / "match-3-2.json").read_text(encoding="utf-8"))["boards"][15]["b_points"] is None
    # A forfeit (an action) edited mid-chain is read by every build: refused.
    (tmp_path / "two").mkdir()
    fresh_event, fresh_boards = _demo(tmp_path / "two", travellers=False)
    assert run_dealer("results", "forfeit", fresh_event, "--round", 1, "--match", 1, "--team", "T1", "--reason",
                      "did not come", "--boards-dir", fresh_boards).exit_code == 0
    assert _site(fresh_event, fresh_boards, tmp_path / "two" / "s").exit_code == 0
    database = fresh_boards / "demo" / "results.sqlite"
    _sql(database, "DROP TRIGGER actions_no_update")
    _sql(database, "UPDATE actions SET reason = 'rewritten'")
    refused = _site(fresh_event, fresh_boards, tmp_path / "two" / "s")
    assert refused.exit_code == 2 and "actions #" in refused.stderr and "edited" in refused.stderr, refused.output
    # An old result edited mid-chain, behind a guard dropped and made again: the database is not
    # the one the last build's mark names, so the rebuild walks the whole chain: refused, the
    # site left as it was.
    third = tmp_path / "three"
    third.mkdir()
    event_3, boards_3 = _demo(third)
    assert _site(event_3, boards_3, third / "s").exit_code == 0
    before = json.loads((third / "s" / "match-1-1.json").read_text(encoding="utf-8"))["boards"][0]["a_points"]
    database = boards_3 / "demo" / "results.sqlite"
    _sql(database, "DROP TRIGGER results_no_update")
    _sql(database, "UPDATE results SET defenders_points = 200 WHERE round = 1 AND match = '1' AND tbl = 'A' "
                   "AND board = 1")
    _sql(database, "CREATE TRIGGER results_no_update BEFORE UPDATE ON results "
                   "BEGIN SELECT RAISE(ABORT, 'results are append-only: use a correction'); END")
    refused = _site(event_3, boards_3, third / "s")
    assert refused.exit_code == 2 and "results #1 (link 2): edited" in refused.stderr, refused.output
    assert json.loads((third / "s" / "match-1-1.json").read_text(encoding="utf-8"))["boards"][0]["a_points"] == before
    refused = _site(event_3, boards_3, third / "fresh")
    assert refused.exit_code == 2 and "results #1 (link 2): edited" in refused.stderr, refused.output
    assert not (third / "fresh").exists()


def _count_links(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The link numbers the store's row-link check computes from now on (the audit's walk, and a
    write's own links: cleared after each write)."""
    from dealer.store import chain

    checked: list[int] = []
    real = chain.link_of

    def link_of(previous: bytes, seq: int, table: str, values: Any) -> bytes:
        checked.append(seq)
        return real(previous, seq, table, values)

    monkeypatch.setattr(chain, "link_of", link_of)
    return checked


def _mark(out: Path) -> dict[str, Any]:
    mark = json.loads((out / MANIFEST).read_bytes())["audited"]
    assert isinstance(mark, dict)
    return mark


def _add_last_result(event_file: Path, boards: Path) -> None:
    assert run_dealer("results", "add", event_file, "--round", 3, "--match", 2, "--table", "B", "--board", 16,
                      "--points", 45, "--trump", "S", "--boards-dir", boards).exit_code == 0


def test_defect_06_a_rebuild_walks_only_the_links_after_the_last_builds_mark(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    event_file, boards = _demo(tmp_path)
    checked = _count_links(monkeypatch)
    out = tmp_path / "s"
    assert _site(event_file, boards, out).exit_code == 0
    first = _mark(out)
    assert sorted(checked) == list(range(1, first["seq"] + 1))  # a first build walks the whole chain
    _add_last_result(event_file, boards)
    checked.clear()
    assert _site(event_file, boards, out).exit_code == 0
    second = _mark(out)
    assert second["seq"] > first["seq"] and second["link"] != first["link"]
    assert sorted(checked) == list(range(first["seq"] + 1, second["seq"] + 1))  # the new rows only
    assert json.loads((out / "match-3-2.json").read_text(encoding="utf-8"))["boards"][15]["b_points"] is not None
    checked.clear()
    assert _site(event_file, boards, out).exit_code == 0  # nothing new: no link made again
    assert checked == [] and _mark(out) == second
    # The audit command still walks everything.
    assert run_dealer("results", "audit", event_file, "--boards-dir", boards).exit_code == 0
    assert sorted(checked) == list(range(1, second["seq"] + 1))
    # A mark that does not fit (edited, another database's): the whole chain again.
    for wrong in ({**second, "link": "0" * 64}, {**second, "created": "2000-01-01"}, {**second, "event": "other"},
                  {**second, "seq": second["seq"] + 5}, "not a mark"):
        manifest = json.loads((out / MANIFEST).read_bytes())
        manifest["audited"] = wrong
        (out / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        checked.clear()
        assert _site(event_file, boards, out).exit_code == 0, wrong
        assert sorted(checked) == list(range(1, second["seq"] + 1)), wrong
        assert _mark(out) == second


def _relink(database: Path, event_id: str, first: int, last: int, schema: int) -> None:
    """A forger's rewrite: the links first…last made again from the rows as they now are, the
    guards dropped and made again as they were, and SQLite's count of schema changes put back
    to ``schema``."""
    from dealer.store.chain import genesis, link
    from dealer.store.schema import CHAINED

    conn = sqlite3.connect(database)
    conn.row_factory = sqlite3.Row
    try:
        guards = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").fetchall()
        for guard in guards:
            conn.execute(f"DROP TRIGGER {guard['name']}")
        rows = sorted(((row["seq"], table, row) for table in CHAINED
                       for row in conn.execute(f"SELECT * FROM {table} WHERE seq BETWEEN ? AND ?", (first, last))),
                      key=lambda item: item[0])
        before = [r[0] for t in CHAINED for r in conn.execute(f"SELECT chain FROM {t} WHERE seq = ?", (first - 1,))]
        previous = bytes.fromhex(before[0]) if before else genesis(event_id)
        for seq, table, row in rows:
            previous = link(previous, seq, table, row)
            conn.execute(f"UPDATE {table} SET chain = ? WHERE seq = ?", (previous.hex(), seq))
        for guard in guards:
            conn.execute(guard["sql"])
        conn.commit()
        conn.execute(f"PRAGMA schema_version = {schema}")
        conn.commit()
    finally:
        conn.close()


def test_defect_06_a_row_rewritten_before_the_mark_is_caught_by_a_rebuild(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    out = tmp_path / "s"
    assert _site(event_file, boards, out).exit_code == 0
    mark = _mark(out)
    _add_last_result(event_file, boards)
    database = boards / "demo" / "results.sqlite"
    before = _tree(out)
    # An old result rewritten, its link and every link up to the mark made again: the mark's
    # link is not that link any more, so the rebuild walks the whole chain, and the first row
    # after the mark no longer follows the link before it.
    conn = sqlite3.connect(database)
    try:
        conn.execute("DROP TRIGGER results_no_update")
        conn.execute("UPDATE results SET defenders_points = 200 WHERE round = 1 AND match = '1' AND tbl = 'A' "
                     "AND board = 1")
        conn.commit()
    finally:
        conn.close()
    _sql(database, "CREATE TRIGGER results_no_update BEFORE UPDATE ON results "
                   "BEGIN SELECT RAISE(ABORT, 'results are append-only: use a correction'); END")
    _relink(database, "demo", 2, mark["seq"], mark["schema"])
    conn = sqlite3.connect(database)
    try:  # the database as the mark names it, but for the mark's link
        assert conn.execute("PRAGMA schema_version").fetchone()[0] == mark["schema"]
        assert conn.execute("SELECT chain FROM results WHERE seq = ?", (mark["seq"],)).fetchone()[0] != mark["link"]
    finally:
        conn.close()
    refused = _site(event_file, boards, out)
    assert refused.exit_code == 2 and f"(link {mark['seq'] + 1}): edited" in refused.stderr, refused.output
    assert _tree(out) == before
    # The same rewrite with every later link made again too is a chain made anew: only a head
    # published before it tells (dealer results audit --head), as for the full audit.


def test_defect_06_a_row_edited_before_the_mark_its_link_kept_is_caught_by_a_rebuild(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    out = tmp_path / "s"
    assert _site(event_file, boards, out).exit_code == 0
    _add_last_result(event_file, boards)
    database = boards / "demo" / "results.sqlite"
    # A guard dropped and made again moves SQLite's count of schema changes: not the database
    # the mark names, so the whole chain is walked.
    _sql(database, "DROP TRIGGER results_no_update")
    _sql(database, "UPDATE results SET defenders_points = 200 WHERE round = 1 AND match = '1' AND tbl = 'A' "
                   "AND board = 1")
    _sql(database, "CREATE TRIGGER results_no_update BEFORE UPDATE ON results "
                   "BEGIN SELECT RAISE(ABORT, 'results are append-only: use a correction'); END")
    refused = _site(event_file, boards, out)
    assert refused.exit_code == 2 and "results #1 (link 2): edited" in refused.stderr, refused.output


def test_defect_06_release_and_round_pair_refuse_a_tampered_chain(tmp_path: Path) -> None:
    event_file, boards = _demo(tmp_path)
    database = boards / "demo" / "results.sqlite"
    _sql(database, FORGED["a forged set release"])
    refused = run_dealer("release", event_file, "--set", 3, "--reason", "x", "--boards-dir", boards)
    assert refused.exit_code == 2 and "releases #1" in refused.stderr, refused.output  # was: exit 0, "nothing changed"
    assert run_dealer("release", event_file, "--set", 1, "--reason", "x", "--boards-dir", boards).exit_code == 2
    # A Swiss: a pairing edited mid-chain is not paired on.
    swiss = tmp_path / "swiss.toml"
    swiss.write_text((resources.files("dealer") / "data" / "demo-swiss.toml").read_text(encoding="utf-8"),
                     encoding="utf-8")
    assert run_dealer("deal", swiss, "--boards-dir", boards).exit_code == 0
    assert run_dealer("round", "pair", swiss, "--round", 1, "--boards-dir", boards).exit_code == 0
    database = boards / "demo-swiss" / "results.sqlite"
    _sql(database, "DROP TRIGGER actions_no_update")
    _sql(database, "UPDATE actions SET entered_by = 'someone else'")
    _sql(database, "CREATE TRIGGER actions_no_update BEFORE UPDATE ON actions "
                   "BEGIN SELECT RAISE(ABORT, 'the director''s actions are append-only'); END")
    refused = run_dealer("round", "pair", swiss, "--round", 2, "--allow-incomplete", "--boards-dir", boards)
    assert refused.exit_code == 2 and "actions #1" in refused.stderr and "edited" in refused.stderr, refused.output
