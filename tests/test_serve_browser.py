"""`dealer serve` in a real browser: the real command (uvicorn on 127.0.0.1) and Debian's Chromium
driven by Playwright at a phone's size (390×844). A score sheet printed by `dealer print` is read
back with zxing-cpp; its QR opens the table's page; one phone enters, another confirms with the
other team's code, a third that writes triggers the two-device warning; the network cut mid-entry loses
nothing and stores nothing twice.

The pages' screenshots in docs/serve.md are taken here: with ``DEALER_SCREENSHOTS=docs/images``
they are written there (otherwise into the test's temporary folder)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import run_dealer
from live_server import LiveServer
from print_support import decode_qr_codes
from serve_support import CHROMIUM, PHONE, WECHAT, dealt_demo, launched_chromium

from dealer.formats.entry import parse_entry_path, team_code

pytestmark = pytest.mark.slow  # a real browser

if not Path(CHROMIUM).exists():  # `make test` installs it (browser-deps): a missing browser fails, never skips
    pytest.fail(f"Debian's chromium is not at {CHROMIUM}: run `make browser-deps`", pytrace=False)




@pytest.fixture
def event_file(tmp_path: Path) -> Path:
    return dealt_demo(tmp_path)


@pytest.fixture
def server(event_file: Path) -> Iterator[LiveServer]:
    running = LiveServer(event_file, event_file.parent / "boards", env={"DEALER_LANG": "en"}).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def browser() -> Iterator[Any]:
    with launched_chromium() as chromium:
        yield chromium


def _shots(tmp_path: Path) -> Path:
    out = Path(os.environ.get("DEALER_SCREENSHOTS") or tmp_path / "shots")
    out.mkdir(parents=True, exist_ok=True)
    return out


def _results(event_file: Path) -> list[tuple[str, int, int]]:
    conn = sqlite3.connect(event_file.parent / "boards" / "demo" / "results.sqlite")
    try:
        return conn.execute("SELECT tbl, board, defenders_points FROM results ORDER BY tbl, board").fetchall()
    finally:
        conn.close()


def _printed_sheet_url(event_file: Path, base: str, tmp_path: Path) -> str:
    """The URL the QR of round 1, match 1, table A's printed score sheet holds, decoded from the PDF."""
    out = tmp_path / "printed"
    printed = run_dealer("print", "score-sheets", event_file, "--round", "1", "--serve-url", base, "--out", out)
    assert printed.exit_code == 0, printed.output
    pdf = next(out.rglob("*score-sheets*.pdf"))
    urls = [text for text in decode_qr_codes(pdf) if text.startswith(base + "/t/SJE1/")]
    assert len(urls) == 4  # 2 matches × tables A and B
    sheet_a = [u for u in urls if parse_entry_path(u)[0].match == "1" and parse_entry_path(u)[0].table == "A"]
    assert len(sheet_a) == 1
    return sheet_a[0]


def _enter(page: Any, board: int, points: int) -> None:
    form = page.locator(f'form.enter[data-slot="{board}"]')
    form.locator('input[name="defenders_points"]').fill(str(points))
    with page.expect_navigation():
        form.locator("button").click()


def test_a_printed_sheet_opens_its_table_one_phone_enters_another_confirms(
        server: LiveServer, browser: Any, event_file: Path, tmp_path: Path) -> None:
    shots = _shots(tmp_path)
    url = _printed_sheet_url(event_file, server.base, tmp_path)
    key = bytes.fromhex((event_file.parent / "boards" / "demo" / "entry.key").read_text().strip())
    scorer = browser.new_context(**PHONE)
    confirmer = browser.new_context(**PHONE, user_agent=WECHAT)
    third = browser.new_context(**PHONE)
    try:
        page = scorer.new_page()
        page.goto(url)
        assert page.locator("h1").first.inner_text() == "升级复式赛示例 Demo Cup"
        assert "第 1 轮 · 第 1 场 · 1A 桌" in page.inner_text(".where")
        page.screenshot(path=str(shots / "serve-table.png"))
        for board in range(1, 9):
            _enter(page, board, 40 + 5 * board)
        assert "待确认" in page.locator("#b8").inner_text()
        assert "第 8 副：已录入 80 分" in page.inner_text(".said")
        # The network drops: board 9 is typed and sent, board 10 typed only
        scorer.set_offline(True)
        form = page.locator('form.enter[data-slot="9"]')
        form.locator('input[name="defenders_points"]').fill("85")
        form.locator("button").click()
        page.locator('form.enter[data-slot="9"] .pending').wait_for(state="visible")
        page.locator('form.enter[data-slot="10"] input[name="defenders_points"]').fill("90")
        assert page.locator("#net").inner_text() == "离线"
        page.screenshot(path=str(shots / "serve-offline.png"))
        scorer.set_offline(False)
        page.reload()  # the kept values come back; board 9 is sent again with its nonce
        page.locator("#b9.state-entered").wait_for()
        assert page.locator('form.enter[data-slot="10"] input[name="defenders_points"]').input_value() == "90"
        # A reply lost on the way back: the server stored it, the phone did not hear
        lost = {"n": 0}

        def drop_reply(route: Any) -> None:
            if lost["n"] == 0 and route.request.method == "POST":
                lost["n"] += 1
                route.fetch()  # the server gets it
                route.abort()  # the phone never hears back
            else:
                route.continue_()
        page.route("**/enter*", drop_reply)
        form = page.locator('form.enter[data-slot="10"]')
        form.locator("button").click()
        page.locator('form.enter[data-slot="10"] .pending').wait_for(state="visible")
        page.unroute("**/enter*")
        page.reload()
        page.locator("#b10.state-entered").wait_for()
        for board in range(11, 17):
            _enter(page, board, 100)
        entries = sqlite3.connect(event_file.parent / "boards" / "demo" / "results.sqlite").execute(
            "SELECT slot, count(*) FROM live_entries WHERE tbl = 'A' AND match = '1' GROUP BY slot").fetchall()
        assert sorted((int(slot), n) for slot, n in entries) == [(b, 1) for b in range(1, 17)]
        assert _results(event_file) == []

        other = confirmer.new_page()
        other.goto(url)
        assert "等待 长城队" in other.inner_text(".confirm")
        other.fill('form.confirm-form input[name="code"]', team_code(key, "demo", "T2"))
        other.screenshot(path=str(shots / "serve-confirm.png"))
        with other.expect_navigation():
            other.click("form.confirm-form button")
        assert "已确认并保存 16 个成绩" in other.inner_text(".said")
        stored = _results(event_file)
        assert len(stored) == 16 and stored[8] == ("A", 9, 85) and stored[9] == ("A", 10, 90)

        watcher = third.new_page()
        watcher.goto(url)
        assert watcher.locator(".warning").count() == 0  # a device that only looks raises nothing
        # a third device that writes does: the scorer side's recap confirmed from it
        form = watcher.locator('form.recap-form[data-key="scorer"]')
        form.locator('input[name="code"]').fill(team_code(key, "demo", "T1"))
        with watcher.expect_navigation():
            form.locator("button").click()
        assert "3 部设备" in watcher.inner_text(".warning")
        page.locator(".warning").wait_for(timeout=10_000)  # the scorer's page, left open, shows it by itself
        assert "3 部设备" in page.inner_text(".warning")
        watcher.screenshot(path=str(shots / "serve-devices.png"))

        # The public live page shows the match's results; its hands only once the set is released
        public = browser.new_context(**PHONE).new_page()
        public.goto(server.base + "/live/match/1/1")
        assert "东风队" in public.inner_text("main") and "长城队" in public.inner_text("main")
        assert public.locator("a[href*='board-1-']").count() == 0
        released = run_dealer("release", event_file, "--set", "1", "--reason", "round 1 played",
                              "--accept-missing")
        assert released.exit_code == 0, released.output
        public.locator("a[href*='board-1-']").first.wait_for(timeout=15000)  # live.js, on the server's event
        public.screenshot(path=str(shots / "serve-live-match.png"))

        director = browser.new_context(**PHONE).new_page()
        director.goto(server.director)
        assert "/-/console" in director.url
        reused = httpx.get(server.director, follow_redirects=False)
        assert reused.status_code == 403
    finally:
        for context in (scorer, confirmer, third):
            context.close()
