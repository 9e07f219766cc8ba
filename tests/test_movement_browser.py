"""`dealer serve` with copies shared by the round's tables (issue 37), in a real browser: the
table's page, opened from the QR of its printed score sheet, lists the boards in the order the
table plays them (as ``dealer round show --json`` gives it), and an entry on the first of them
is stored for that board."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_dealer
from live_server import LiveServer
from print_support import decode_qr_codes
from serve_support import CHROMIUM, PHONE, launched_chromium

from dealer.formats.entry import parse_entry_path
from dealer.resources import demo_event_text

pytestmark = pytest.mark.slow  # a real browser

if not Path(CHROMIUM).exists():  # `make test` installs it (browser-deps): a missing browser fails, never skips
    pytest.fail(f"Debian's chromium is not at {CHROMIUM}: run `make browser-deps`", pytrace=False)


@pytest.fixture
def event_file(tmp_path: Path) -> Path:
    """The demo event with one copy of each set shared by a round's four tables (four stanzas)."""
    text = demo_event_text().replace("boards_per_set = 16 ", "copies = 1\nboards_per_set = 16 ", 1)
    assert "copies = 1" in text
    path = tmp_path / "demo.toml"
    path.write_text(text, encoding="utf-8")
    assert run_dealer("deal", path).exit_code == 0
    return path


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


def test_the_table_page_lists_the_boards_in_playing_order(server: LiveServer, browser: Any, event_file: Path,
                                                          tmp_path: Path) -> None:
    shown = run_dealer("round", "show", event_file, "--round", "1", "--json")
    assert shown.exit_code == 0, shown.output
    movement = json.loads(shown.stdout)["movement"]
    assert (movement["copies"], movement["stanzas"]) == (1, 4)
    order = {(t["match"], t["table"]): [b for p in t["plays"] for b in p["boards"]] for t in movement["tables"]}
    out = tmp_path / "printed"
    printed = run_dealer("print", "score-sheets", event_file, "--round", "1", "--serve-url", server.base, "--out", out)
    assert printed.exit_code == 0, printed.output
    urls = [u for u in decode_qr_codes(next(out.rglob("*score-sheets*.pdf"))) if u.startswith(server.base)]
    assert len(urls) == 4
    context = browser.new_context(**PHONE)
    try:
        page = context.new_page()
        for url in urls:
            sheet = parse_entry_path(url)[0]
            page.goto(url)
            listed = [int(i[1:]) for i in page.locator("article.slot").evaluate_all("els => els.map(e => e.id)")]
            assert listed == order[(sheet.match, sheet.table)], (sheet.match, sheet.table)
        # 1B does not start at board 1 (the copy's second group): its first board takes an entry
        page.goto(next(u for u in urls
                       if (parse_entry_path(u)[0].match, parse_entry_path(u)[0].table) == ("1", "B")))
        first = order[("1", "B")][0]
        assert first != 1
        form = page.locator(f'form.enter[data-slot="{first}"]')
        form.locator('input[name="defenders_points"]').fill("60")
        with page.expect_navigation():
            form.locator("button").click()
        assert page.locator("article.slot").first.get_attribute("id") == f"b{first}"
    finally:
        context.close()
    conn = sqlite3.connect(event_file.parent / "boards" / "demo" / "results.sqlite")
    try:
        stored = conn.execute("SELECT round, match, tbl, slot, state FROM live_entries").fetchall()
    finally:
        conn.close()
    assert stored == [(1, "1", "B", str(first), "entered")]
