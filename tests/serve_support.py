"""Driving `dealer serve` in-process, as datasette's tests drive their app: the real Starlette
application over a real event folder, through httpx's ASGI transport (each client its own
device cookie)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from dealer.formats.entry import SheetId, entry_path, sheet_tag, team_code
from dealer.serve.app import Live, create_app, new_director_link
from dealer.serve.security import RateLimit

BASE = "http://127.0.0.1:8000"
JSON = {"accept": "application/json"}
#: Debian's Chromium, as the browser tests drive it (Playwright never downloads a browser); the
#: background-networking flags keep it off this machine's closed network.
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
WECHAT = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 "
          "Chrome/130.0 Mobile Safari/537.36 MMWEBID/1234 MicroMessenger/8.0.50.2701(0x28003253) WeChat/arm64")
LEVELS_DEMO = Path(__file__).resolve().parents[1] / "dealer" / "data" / "demo-levels.toml"


@contextmanager
def launched_chromium() -> Iterator[Any]:
    """Debian's chromium, launched by Playwright as the browser tests drive it."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class Served:
    state: Live
    app: Any

    def client(self, address: str = "127.0.0.1", **headers: str) -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=self.app, client=(address, 5000))
        return httpx.AsyncClient(transport=transport, base_url=BASE, headers=headers)

    @property
    def key(self) -> bytes:
        return self.state.key

    def sheet_url(self, round_number: int, match: str, table: str, generation: int = 1) -> str:
        sheet = SheetId(self.state.session.event.id, round_number, match, table, generation)
        return entry_path(sheet, sheet_tag(self.key, sheet))

    def nonce(self, round_number: int, match: str, table: str, form: str, generation: int = 1) -> str:
        """A nonce of a form of a table's page (``enter/3``, ``confirm``, …), as the page holds it."""
        from dealer.app.live import new_nonce, sheet_form

        sheet = SheetId(self.state.session.event.id, round_number, match, table, generation)
        return new_nonce(self.key, sheet_form(sheet, form))

    def code_of(self, team: str) -> str:
        return team_code(self.key, self.state.session.event.id, team)

    def director_link(self) -> str:
        token = self.state.executor.submit(lambda: new_director_link(self.state.session)).result()
        return f"/-/login?token={token}"

    def on_db(self, use: Any) -> Any:
        return self.state.executor.submit(lambda: use(self.state.session)).result()


@contextmanager
def served(event_file: Path, boards_root: Path | None = None, *, double_entry: bool = False,
           rate: RateLimit | None = None) -> Iterator[Served]:
    state = Live(event_file, boards_root, double_entry=double_entry)
    try:
        yield Served(state, create_app(state, "127.0.0.1", 8000, rate=rate or RateLimit(10_000, 10_000)))
    finally:
        state.close()


def dealt_demo(folder: Path) -> Path:
    """The demo event's file in ``folder``, dealt (its boards/ beside it)."""
    from conftest import run_dealer

    from dealer.resources import demo_event_text

    path = folder / "demo.toml"
    path.write_text(demo_event_text(), encoding="utf-8")
    assert run_dealer("deal", path).exit_code == 0
    return path


def stored_results(event_file: Path, event: str = "demo") -> list[Any]:
    """The current board results of the event beside ``event_file``, as its database holds them."""
    import sqlite3

    conn = sqlite3.connect(event_file.parent / "boards" / event / "results.sqlite")
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute("SELECT * FROM current_results ORDER BY tbl, board").fetchall()
    finally:
        conn.close()


def level_race(folder: Path) -> Path:
    """The demo level race (seed 001's format) in ``folder``, its whole schedule paired."""
    from conftest import run_dealer

    path = folder / "levels.toml"
    path.write_text(LEVELS_DEMO.read_text(encoding="utf-8"), encoding="utf-8")
    assert run_dealer("round", "pair", path, "--all").exit_code == 0
    return path


def home_nonce(html: str) -> str:
    """The nonce of the home page's fallback-code form."""
    found = re.search(r'<input type="hidden" name="nonce" value="([^"]+)"', html)
    assert found, "no code form on the page"
    return found.group(1)


def nonce_of(html: str, form: str) -> str:
    """The nonce of a form of the table's page: a board's (``"3"``), ``confirm``, ``recap-scorer``…"""
    if form == "confirm":
        found = re.search(r'class="confirm-form">\s*<input type="hidden" name="nonce" value="([^"]+)"', html)
    elif form.startswith("recap-"):
        side = form.removeprefix("recap-")
        found = re.search(rf'name="side" value="{side}">\s*<input type="hidden" name="nonce" value="([^"]+)"', html)
    else:
        found = re.search(rf'class="enter" data-slot="{form}"[^>]*>\s*'
                          rf'<input type="hidden" name="slot" value="{form}">\s*'
                          r'<input type="hidden" name="nonce" value="([^"]+)"', html)
    assert found, f"no form {form} on the page"
    return found.group(1)


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)
