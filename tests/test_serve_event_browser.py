"""A real event through the real ``dealer serve`` in Debian's Chromium (issue 35): a Swiss of 8
teams (4 matches, 8 tables) played for two rounds from phones that open their tables from the
QR codes decoded off the printed score sheets and confirm with the codes read off the printed team
cards; a director at a 1366×768 laptop who does everything by clicking the console's forms (a
forfeit, a dispute settled, a sheet reprinted, the next round paired, its paperwork printed);
and, at each step, the live pages as a player sees them.

Nothing here sets a header a browser would not send or renders a page the server did not serve."""

from __future__ import annotations

import http.server
import json
import os
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import run_dealer
from live_server import LiveServer
from print_support import decode_qr_codes, page_texts
from serve_support import CHROMIUM, PHONE, WECHAT
from test_serve_browser import browser

import dealer
from dealer.formats.entry import parse_entry_path

pytestmark = pytest.mark.slow  # a real browser through two rounds

LAPTOP = {"viewport": {"width": 1366, "height": 768}}
__all__ = ["browser"]  # the fixture, from the table's browser test
BOARDS = 3  # a real round plays 16; three keep the browser's clicking short

if not Path(CHROMIUM).exists():  # `make test` installs it (browser-deps): a missing browser fails, never skips
    pytest.fail(f"Debian's chromium is not at {CHROMIUM}: run `make browser-deps`", pytrace=False)




def serving(event_file: Path) -> LiveServer:
    """``dealer serve EVENT`` as the director starts it (its words in English, the pages in Chinese)."""
    return LiveServer(event_file, event_file.parent / "boards", env={"DEALER_LANG": "en"}).start()


@pytest.fixture
def event_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo Swiss (8 teams, renmin-shuangsheng) with 4-board sets, dealt, round 1 paired; run
    from tmp_path (the papers go to output/ under the current folder, as the server's do)."""
    monkeypatch.chdir(tmp_path)
    text = (Path(dealer.__file__).parent / "data" / "demo-swiss.toml").read_text(encoding="utf-8")
    path = tmp_path / "swiss.toml"
    path.write_text(re.sub(r"boards_per_set = \d+", f"boards_per_set = {BOARDS}", text, count=1), encoding="utf-8")
    assert run_dealer("deal", path).exit_code == 0
    assert run_dealer("round", "pair", path, "--round", "1").exit_code == 0
    return path


# --- what the paper says -----------------------------------------------------------------------------


def printed_sheets(pdf: Path, base: str) -> dict[tuple[str, str], str]:
    """(match, table) → the URL its score sheet's QR holds, decoded off the printed PDF."""
    found = {}
    for text in decode_qr_codes(pdf):
        if text.startswith(base + "/t/SJE1/"):
            sheet = parse_entry_path(text)[0]
            found[(sheet.match, sheet.table)] = text
    return found


def team_codes(pdf: Path) -> dict[str, str]:
    """Team → its code, read off the printed team cards."""
    text = "\n".join(page_texts(pdf))
    return dict(re.findall(r"(T\d+) \S+\n本队代码\n(\d{6})", text))


# --- what a phone does ------------------------------------------------------------------------------


def submit(page: Any, form: Any) -> None:
    """Click the form's button and wait for the page the server shows after it."""
    with page.expect_navigation():
        form.locator("button[type=submit], button").first.click()


def enter(page: Any, board: int, points: int) -> None:
    form = page.locator(f'form.enter[data-slot="{board}"]')
    form.locator('input[name="defenders_points"]').fill(str(points))
    submit(page, form)
    assert f"第 {board} 副：已录入 {points} 分" in page.inner_text(".said")


def confirm_all(page: Any, code: str) -> str:
    form = page.locator("form.confirm-form")
    form.locator('input[name="code"]').fill(code)
    submit(page, form)
    return str(page.inner_text(".said"))


def recap(page: Any, side: str, code: str) -> None:
    form = page.locator(f'form.recap-form[data-key="{side}"]')
    form.locator('input[name="code"]').fill(code)
    submit(page, form)


# --- what the director does -----------------------------------------------------------------------------


def act(console: Any, summary: str, fields: dict[str, str], *, ticks: tuple[str, ...] = ()) -> str:
    """Open the console's action ``summary``, fill its form as a director types, click 办理; what
    the console then says."""
    details = console.locator("section.actions details", has=console.locator("summary", has_text=summary))
    details.locator("summary").click()
    form = details.locator("form")
    for name, value in fields.items():
        field = form.locator(f'[name="{name}"]')
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    for name in ticks:
        form.locator(f'input[name="{name}"]').check()
    submit(console, form)
    return str(console.inner_text("main"))


def live_json(base: str, path: str) -> dict[str, Any]:
    reply = httpx.get(base + path)
    assert reply.status_code == 200, (path, reply.text[:300])
    found: dict[str, Any] = reply.json()
    return found


def stored(event_file: Path) -> list[tuple[int, str, str, int, int]]:
    conn = sqlite3.connect(event_file.parent / "boards" / "demo-swiss" / "results.sqlite")
    try:
        return conn.execute("SELECT round, match, tbl, board, defenders_points FROM current_results"
                            " WHERE withdrawn = 0 ORDER BY round, match, tbl, board").fetchall()
    finally:
        conn.close()


def progress(base: str, number: int, matches_done: int, tables_done: int) -> list[dict[str, Any]]:
    """The live standings and round page both tell round ``number``'s progress, with these counts,
    and rank teams only after a complete round; the tables still waiting, as they name them."""
    standings = live_json(base, "/live/standings.json")
    shown = standings["progress"]
    assert (shown["round"], shown["matches"], shown["matches_done"], shown["tables"], shown["tables_done"]) == (
        number, 4, matches_done, 8, tables_done), shown
    assert live_json(base, f"/live/round/{number}.json")["progress"] == shown
    if number == 1:
        assert standings["standings"] == [] and len(standings["unranked"]) == 8  # no invented ranking
    else:
        assert standings["standings_after"] == number - 1 and standings["standings"][0]["rank"] == 1
    waiting: list[dict[str, Any]] = shown["waiting"]
    return waiting


def no_board_before_the_field(base: str, event_file: Path, number: int) -> None:
    """The live pages show a board's result only once every table of the field has one: the
    boards they show are among those the field has played (stored at every table not forfeited)."""
    rows = stored(event_file)
    tables = {(m, t) for r, m, t, _b, _p in rows if r == number}
    played = {b for b in range(1, BOARDS + 1)
              if tables and all((number, m, t, b) in {(r, m2, t2, b2) for r, m2, t2, b2, _p in rows}
                                for m, t in tables)}
    round_twin = live_json(base, f"/live/round/{number}.json")
    for match in round_twin["matches"]:
        twin = live_json(base, f"/live/match/{number}/{match['match']}.json")
        shown = {row["board"] for row in twin.get("boards", [])
                 if row["a_points"] is not None or row["b_points"] is not None}
        assert shown <= played, (match["match"], shown, played)
        if not match.get("forfeited_by"):
            assert set(twin["withheld_boards"]) >= set(range(1, BOARDS + 1)) - played


# --- the event --------------------------------------------------------------------------------------


def test_a_swiss_of_eight_tables_is_played_two_rounds_from_phones_console_and_paper(
        event_file: Path, browser: Any, tmp_path: Path) -> None:
    out = event_file.parent / "output" / "demo-swiss"
    server = serving(event_file)
    contexts: list[Any] = []

    def phone(wechat: bool = False) -> Any:
        context = browser.new_context(**PHONE, **({"user_agent": WECHAT} if wechat else {}))
        contexts.append(context)
        return context.new_page()

    try:
        # Before the round the director prints its score sheets and the team cards, and logs in.
        printed = run_dealer("print", "score-sheets", event_file, "--round", "1", "--serve-url", server.base)
        assert printed.exit_code == 0, printed.output
        assert run_dealer("print", "team-cards", event_file).exit_code == 0
        laptop = browser.new_context(**LAPTOP)
        contexts.append(laptop)
        console = laptop.new_page()
        console.goto(server.director)
        assert "/-/console" in console.url
        codes = team_codes(out / "team-cards-zh.pdf")
        assert len(codes) == 8
        sheets = printed_sheets(out / "score-sheets-set-01-zh.pdf", server.base)
        assert len(sheets) == 8
        with sqlite3.connect(event_file.parent / "boards" / "demo-swiss" / "results.sqlite") as conn:
            pairing = json.loads(conn.execute("SELECT data FROM actions WHERE kind = 'pair' AND round = 1")
                                 .fetchone()[0])
        matches = {m["match"]: m for m in pairing["matches"]}

        def sides(match: str, table: str) -> tuple[str, str]:
            """(scorer, confirmer): East's team keeps score; A: home E-W, B: home N-S."""
            m = matches[match]
            return (m["home"], m["away"]) if table == "A" else (m["away"], m["home"])

        # Round 1. The away team of match 4 does not come: the director records the forfeit.
        absent = matches["4"]["away"]
        said = act(console, "弃权", {"round": "1", "match": "4", "team": absent, "reason": "未到场"})
        assert "弃权" in said and "未能办理" not in said
        forfeited = phone()
        forfeited.goto(sheets[("4", "A")])
        assert "本记分表不接受成绩" in forfeited.inner_text("main") and forfeited.locator("form.enter").count() == 0

        # Nothing is public yet: the live standings rank nobody; the round's progress counts the forfeit.
        assert len(progress(server.base, 1, matches_done=1, tables_done=2)) == 6
        public = phone()
        public.goto(server.base + "/live/standings")
        assert "第 1 轮进行中，尚无排名" in public.inner_text("main")
        assert "第 1 轮：1/4 场完成，2/8 桌完成" in public.inner_text("main")

        # Matches 1 to 3: each table's scorer enters its boards, the other side confirms.
        scorers: dict[tuple[str, str], Any] = {}
        confirmers: dict[tuple[str, str], Any] = {}
        for match in ("1", "2", "3"):
            for table in ("A", "B"):
                page = phone(wechat=(match == "2"))
                page.goto(sheets[(match, table)])
                assert f"第 1 轮 · 第 {match} 场" in page.inner_text(".where")
                for board in range(1, BOARDS + 1):
                    enter(page, board, 40 + 5 * board + (40 if table == "B" else 0))
                scorers[(match, table)] = page
            if match == "1":  # a table done and its other table not: its boards stay unpublished
                confirmer = confirmers[("1", "A")] = phone()
                confirmer.goto(sheets[("1", "A")])
                assert f"已确认并保存 {BOARDS} 个成绩" in confirm_all(confirmer, codes[sides("1", "A")[1]])
                no_board_before_the_field(server.base, event_file, 1)
                waiting = progress(server.base, 1, matches_done=1, tables_done=3)
                assert "1A" not in [w["table"] for w in waiting] and {"table": "1B", "match": "1",
                                                                       "boards": list(range(1, BOARDS + 1))} in waiting

        # 2B board 3: the other side disputes it; the scorer's page, left open, shows it by itself.
        other = confirmers[("2", "B")] = phone()
        other.goto(sheets[("2", "B")])
        other.locator("#b3 details.dispute summary").click()
        dispute = other.locator("#b3 form.dispute-form")
        dispute.locator('input[name="defenders_points"]').fill("100")
        dispute.locator('input[name="code"]').fill(codes[sides("2", "B")[1]])
        submit(other, dispute)
        scorers[("2", "B")].locator("#b3.state-conflict").wait_for(timeout=10_000)  # no reload
        # and the console's grid and flags, left open, show it too
        console.locator("table.grid td.s-flagged").first.wait_for(timeout=10_000)
        flag = console.locator("form.settle")
        assert flag.count() == 1
        # the director settles it in one action: the other side's value, with a reason
        flag.locator('input[name="choice"][value="second"]').check()
        flag.locator('input[name="reason"]').fill("手牌单核对为 100")
        submit(console, flag)
        assert "裁定为 100" in console.inner_text(".said")

        # 3A's sheet is lost: the director reprints it; the old QR is refused, the new one works.
        console.locator("details#sheet-3-A summary").click()
        reprint = console.locator("details#sheet-3-A form[action^='/-/console/reprint']")
        reprint.locator('input[name="reason"]').fill("记分表丢失")
        submit(console, reprint)
        assert "第 2 版已生成" in console.inner_text(".said")
        reprinted = out / re.search(r"score-sheet-round-01-match-3-A-g2-zh\.pdf", console.inner_text(".said")).group(0)
        new_sheet = printed_sheets(reprinted, server.base)[("3", "A")]
        old = phone()
        old.goto(sheets[("3", "A")])
        assert "已被替换" in old.inner_text("main") and "记分表丢失" in old.inner_text("main")
        sheets[("3", "A")] = new_sheet
        page = scorers[("3", "A")]
        page.goto(new_sheet)
        assert page.locator("form.enter").count() == BOARDS  # what the lost sheet typed is void
        for board in range(1, BOARDS + 1):
            enter(page, board, 40 + 5 * board)

        # The other sides confirm on their own phones; both sides of every table confirm the recap.
        for match in ("1", "2", "3"):
            for table in ("A", "B"):
                scorer, confirmer_team = sides(match, table)
                page = confirmers.get((match, table)) or phone()
                page.goto(sheets[(match, table)])
                if page.locator("form.confirm-form").count():
                    confirm_all(page, codes[confirmer_team])
                recap(page, "confirmer", codes[confirmer_team])
                own = scorers[(match, table)]
                own.goto(sheets[(match, table)])
                recap(own, "scorer", codes[scorer])
                assert "本桌结束" in own.inner_text("main")
                assert "本场结果" in own.inner_text("main") or table == "A"  # B confirms after A
        scorers[("1", "A")].reload()
        assert "本场结果" in scorers[("1", "A")].inner_text("main")
        no_board_before_the_field(server.base, event_file, 1)
        live_round = live_json(server.base, "/live/round/1.json")
        assert all(m["withheld_boards"] == [] for m in live_round["matches"])  # the field has played them all
        assert len(stored(event_file)) == 3 * 2 * BOARDS

        # Round 2, paired from the console (the grid is done: nothing pending), and its paperwork.
        console.goto(server.base + "/-/console")
        said = act(console, "编排下一轮", {})
        assert "第 2 轮已编排：4 场" in said
        said = act(console, "打印第 2 轮的全部文件", {})
        assert "第 2 轮的文件已生成" in said
        round_two = printed_sheets(out / "score-sheets-set-02-zh.pdf", server.base)
        assert len(round_two) == 8 and all(parse_entry_path(u)[0].round == 2 for u in round_two.values())
        public.goto(server.base + "/live/standings")
        assert "第 1 轮后排名" in public.inner_text("main")
        assert progress(server.base, 2, matches_done=0, tables_done=0)
        with sqlite3.connect(event_file.parent / "boards" / "demo-swiss" / "results.sqlite") as conn:
            pairing = json.loads(conn.execute("SELECT data FROM actions WHERE kind = 'pair' AND round = 2")
                                 .fetchone()[0])
        matches = {m["match"]: m for m in pairing["matches"]}
        for (match, table), url in sorted(round_two.items()):
            scorer, confirmer_team = sides(match, table)
            page = phone(wechat=(table == "B"))
            page.goto(url)
            assert f"第 2 轮 · 第 {match} 场" in page.inner_text(".where")
            for board in range(1, BOARDS + 1):
                enter(page, board, 60 + 5 * board)
            if (match, table) == ("1", "A"):
                no_board_before_the_field(server.base, event_file, 2)
                progress(server.base, 2, matches_done=0, tables_done=0)  # entered is not confirmed
            other = phone()
            other.goto(url)
            confirm_all(other, codes[confirmer_team])
            context_pages = (page, other)
            assert all(p.locator(".warning").count() == 0 for p in context_pages)  # two writers a sheet
        assert len(stored(event_file)) == 3 * 2 * BOARDS + 4 * 2 * BOARDS
        no_board_before_the_field(server.base, event_file, 2)
        assert live_json(server.base, "/live/standings.json")["standings_after"] == 2
    finally:
        for context in contexts:
            context.close()
        server.stop()
    assert "Traceback" not in server.output()
    assert run_dealer("results", "audit", event_file).exit_code == 0


def test_a_form_posted_from_another_site_is_refused(event_file: Path, browser: Any, tmp_path: Path) -> None:
    """A page of another origin whose form posts to the console, submitted in the director's own
    browser (logged in): refused (the director's cookie is SameSite=Strict; the guard refuses the
    foreign Origin)."""
    server = serving(event_file)
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "index.html").write_text(
        f'<form method="post" action="{server.base}/-/console/late"><input name="round" value="1">'
        '<input name="team" value="T1"><input name="minutes" value="30"><input name="reason" value="x">'
        '<button>go</button></form>', encoding="utf-8")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(evil), **kwargs)

        def log_message(self, *args: Any) -> None:
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        context = browser.new_context(**LAPTOP)
        page = context.new_page()
        page.goto(server.director)
        page.goto(f"http://localhost:{other.server_address[1]}/index.html")
        with page.expect_navigation():
            page.click("button")
        assert "未能办理" in page.inner_text("body")
        context.close()
    finally:
        other.shutdown()
        server.stop()
    with sqlite3.connect(event_file.parent / "boards" / "demo-swiss" / "results.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM actions WHERE kind = 'late'").fetchone()[0] == 0


def test_the_console_of_a_twenty_table_round_fits_a_laptop_and_a_phone(tmp_path: Path, browser: Any,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Review live-event-4 §5: at 1366×768 the 20 × 16 grid was cut at board 13 (scrolled inside
    its box) and started below the fold, under the match list; on a phone it started at y≈1240
    and showed 6 of 16 boards."""
    from live_server import dealt_event, points

    monkeypatch.chdir(tmp_path)
    event_file, boards = dealt_event(tmp_path, teams=20, boards=16)  # 10 matches, 20 tables
    server = serving(event_file)
    try:
        key = bytes.fromhex((boards / "load" / "entry.key").read_text().strip())
        from dealer.formats.entry import SheetId, entry_path, sheet_tag

        with httpx.Client(base_url=server.base) as phone:  # a few tables at work: each state in the grid
            for match in ("1", "7", "10"):
                sid = SheetId("load", 1, match, "B", 1)
                url = entry_path(sid, sheet_tag(key, sid))
                for board in range(1, 6):
                    page = phone.get(url).text
                    nonce = re.search(rf'data-slot="{board}"[^>]*>\s*<input[^>]*>\s*<input type="hidden" '
                                      r'name="nonce" value="([^"]+)"', page).group(1)
                    phone.post(url + "/enter", data={"slot": str(board), "nonce": nonce,
                                                     "defenders_points": points(match, "B", board)})
        shots = Path(os.environ.get("DEALER_SCREENSHOTS") or tmp_path)
        for size, name in ((LAPTOP, "laptop"), (PHONE, "phone")):
            context = browser.new_context(**size)
            page = context.new_page()
            made = run_dealer("serve", event_file, "--director-link")  # one link a device
            page.goto(server.base + re.search(r"/-/login\?token=\S+", made.output).group(0))
            page.screenshot(path=str(shots / f"serve-console-{name}.png"))
            width = size["viewport"]["width"]  # type: ignore[index]
            grid = page.locator("table.grid").bounding_box()
            attention = page.locator("section.attention").bounding_box()
            scroll = page.evaluate("[document.documentElement.scrollWidth, document.querySelector('table.grid')"
                                   ".getBoundingClientRect().right]")
            assert page.locator("table.grid tbody tr").count() == 20
            assert page.locator("table.grid thead th").count() == 17
            assert scroll[0] <= width and scroll[1] <= width, (name, scroll)  # no sideways scrolling
            if name == "laptop":
                assert grid["y"] < 250 and grid["y"] + grid["height"] <= 768  # first, whole, on the first screen
            else:
                assert attention["y"] < grid["y"]  # what needs the director first
            context.close()
    finally:
        server.stop()
