"""The live pages of ``dealer serve`` (standings, a round, a match), in process (httpx's ASGI
transport) and, for the server-sent events, on a real uvicorn on 127.0.0.1: the static site's
contexts and templates, only what the site may show (released sets' hands, stored results: never
a live draft), the time of their data, a refresh that works with JavaScript off, and a
``changed`` event after a write."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
from collections.abc import AsyncIterator, Coroutine, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import demo_event, release_of, site_of
from serve_support import CHROMIUM, launched_chromium

from dealer.app import EventSession
from dealer.app.dealing import deal_event
from dealer.app.result_files import import_file
from dealer.formats.entry import SheetId, entry_path, sheet_tag, team_code
from dealer.serve.app import Live, create_app
from dealer.serve.security import RateLimit
from dealer.store.folder import EventFolder

BASE = "http://127.0.0.1:8000"


@dataclass
class Played:
    """The demo dealt, its sample results in (round 3 match 2 misses board 16 at table B), sets 1
    and 2 released (set 3 not: round 3 is still in play), its static site built."""

    event_file: Path
    boards: Path
    folder: EventFolder
    site: Path


def _played(root: Path) -> Played:
    event = demo_event()
    folder = EventFolder(event.id, root / "boards", root / "output")
    deal_event(event, folder)
    event_file = root / "demo.toml"
    event_file.write_text((resources.files("dealer") / "data" / "demo-event.toml").read_text(encoding="utf-8"),
                          encoding="utf-8")
    with EventSession.open(event, folder, write=True) as session, \
            resources.as_file(resources.files("dealer") / "data" / "sample-travellers.csv") as sample:
        import_file(session, sample)
    for number in (1, 2):
        release_of(event, folder, number, f"round {number} played", entered_by="test")
    site_of(event, folder, pdf=False)
    return Played(event_file, root / "boards", folder, folder.output_path / "site")


@pytest.fixture
def played(tmp_path: Path) -> Played:
    return _played(tmp_path)


@pytest.fixture
def state(played: Played) -> Iterator[Live]:
    live_state = Live(played.event_file, played.boards)
    try:
        yield live_state
    finally:
        live_state.close()


def _client(state: Live) -> httpx.AsyncClient:
    app = create_app(state, "127.0.0.1", 8000, rate=RateLimit(1000, 1000))
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=("127.0.0.1", 5000)), base_url=BASE)


def _run(coroutine: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coroutine)


def _sheet_url(state: Live, round_number: int, match: str, table: str) -> str:
    sheet = SheetId(state.session.event.id, round_number, match, table, 1)
    return entry_path(sheet, sheet_tag(state.key, sheet))


def _nonce(html: str, form: str) -> str:
    """The nonce of the page's form posting to ``form`` (``enter``, ``confirm``)."""
    found = re.search(r'action="[^"]*/' + form + r'[^"]*"[^>]*>\s*(?:<input type="hidden" name="slot"[^>]*>\s*)?'
                      r'<input type="hidden" name="nonce" value="([^"]+)"', html)
    assert found is not None, f"no {form} form on the page"
    return found.group(1)


async def _enter(client: httpx.AsyncClient, url: str, slot: str, points: int) -> None:
    page = await client.get(url)
    assert page.status_code == 200
    reply = await client.post(url + "/enter", data={"slot": slot, "nonce": _nonce(page.text, "enter"),
                                                     "defenders_points": str(points)},
                              headers={"accept": "application/json"})
    assert reply.status_code == 200 and reply.json()["ok"], reply.text


async def _confirm(client: httpx.AsyncClient, url: str, slots: list[str], code: str) -> None:
    page = await client.get(url)
    reply = await client.post(url + "/confirm", data={"nonce": _nonce(page.text, "confirm"), "slots": slots,
                                                       "code": code}, headers={"accept": "application/json"})
    assert reply.status_code == 200 and reply.json()["ok"], reply.text


def _round_match(twin: dict[str, object], match: str) -> dict[str, object]:
    matches = twin["matches"]
    assert isinstance(matches, list)
    return next(m for m in matches if m["match"] == match)


def _without_hrefs(html: str) -> str:
    return re.sub(r'href="[^"]*"', "href", html)


def _table(html: str, css: str) -> str:
    found = re.search(r'<table class="' + css + r'.*?</table>', html, re.S)
    assert found is not None
    return found.group(0)


# --- the tests ------------------------------------------------------------------------------------


def test_the_live_standings_are_the_static_sites_standings(played: Played, state: Live) -> None:
    static_twin = json.loads((played.site / "standings.json").read_text(encoding="utf-8"))
    static_html = (played.site / "standings.html").read_text(encoding="utf-8")
    static_en = (played.site / "en" / "standings.html").read_text(encoding="utf-8")

    async def check() -> None:
        async with _client(state) as client:
            twin = (await client.get("/live/standings.json")).json()
            html = (await client.get("/live/standings")).text
            en = (await client.get("/live/standings?lang=en")).text
        frame = twin.pop("live")
        assert twin == static_twin  # the same context, the same data
        assert set(frame) == {"version", "data_time", "data_time_text"}
        # The same template: the table as the static page draws it, but for where its links go.
        assert _without_hrefs(_table(html, "standings")) == _without_hrefs(_table(static_html, "standings"))
        assert _without_hrefs(_table(en, "standings")) == _without_hrefs(_table(static_en, "standings"))
        assert 'lang="zh-Hans"' in html and 'lang="en"' in en
        # Its links lead to the live pages: a team's, the rounds', the other language.
        team = static_twin["standings"][0]["page"]
        assert f'href="/live/{team}.html"' in html and f'href="/live/{team}.html?lang=en"' in en
        assert 'href="/live/round/3"' in html and 'href="/live/standings?lang=en"' in html
        assert 'href="/live/standings.json"' in html

    _run(check())


def test_a_result_entered_and_confirmed_at_the_table_shows_on_the_round_page(state: Live) -> None:
    event = state.session.event
    url = _sheet_url(state, 3, "2", "B")  # its board 16 has no result yet
    confirmer = event.round(3).match("2").seats("B")["NS"]  # type: ignore[union-attr]

    async def check() -> None:
        async with _client(state) as scorer, _client(state) as other:
            before = (await scorer.get("/live/round/3.json")).json()
            assert _round_match(before, "2")["boards_counted"] == 15
            match_before = (await scorer.get("/live/match/3/2.json")).json()
            await _enter(scorer, url, "16", 45)
            # Entered, not yet confirmed: a draft, never shown.
            draft = (await other.get("/live/round/3.json")).json()
            assert _round_match(draft, "2") == _round_match(before, "2")
            assert (await other.get("/live/match/3/2.json")).json()["boards"] == match_before["boards"]
            await _confirm(other, url, ["16"], team_code(state.key, event.id, confirmer))
            after = (await other.get("/live/round/3.json")).json()
            shown = _round_match(after, "2")
            assert shown["boards_counted"] == 16 and shown["complete"]
            assert after["live"]["version"] > before["live"]["version"]
            html = (await other.get("/live/round/3")).text
            assert "16/16" in html
            match = (await other.get("/live/match/3/2.json")).json()
            assert match["boards_counted"] == 16 and match["boards"] != match_before["boards"]

    _run(check())


def test_an_unreleased_sets_hands_never_show(played: Played, state: Live) -> None:
    with EventSession.open(played.event_file, played.boards) as director:
        unreleased = [b.deal.code for b in director.board_set(3).boards]
        released = [b.deal.code for b in director.board_set(1).boards]

    async def check() -> None:
        async with _client(state) as client:
            shown = []
            for page in ("standings", "round/3", "match/3/1", "match/3/2", "team-t1", "index", "cross-table"):
                named = "." in page or "-" in page or page == "index"
                for url in (f"/live/{page}.html" if named else f"/live/{page}", f"/live/{page}.json"):
                    for lang in ("", "?lang=en"):
                        reply = await client.get(url + lang)
                        assert reply.status_code == 200, url + lang
                        shown.append(reply.text)
            every = "\n".join(shown)
            assert not any(code in every for code in unreleased)
            assert (await client.get("/live/board-3-1.html")).status_code == 404
            assert (await client.get("/live/board-3-1.json")).status_code == 404
            board = await client.get("/live/board-1-1.html")  # a released set's board is public
            assert board.status_code == 200 and released[0] in board.text

    _run(check())


def test_each_live_page_shows_the_time_of_its_data_and_refreshes_without_javascript(state: Live) -> None:
    async def check() -> None:
        async with _client(state) as client:
            for url in ("/live/standings", "/live/round/1", "/live/match/1/1"):
                zh, en = (await client.get(url)).text, (await client.get(url + "?lang=en")).text
                twin = (await client.get(url + ".json")).json()
                stamp = twin["live"]["data_time_text"]
                assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(UTC[+-]\d\d:\d\d\)", stamp)
                assert re.search(r"数据时间 <time datetime=\"[^\"]+\">" + re.escape(stamp[:13]), zh)
                assert "Data as of <time" in en
                assert 'data-updated="已更新 {time}"' in zh and 'data-updated="Updated {time}"' in en
                # JavaScript off: the page reloads itself; on: live.js follows the events.
                assert re.search(r'<noscript><meta http-equiv="refresh" content="30"></noscript>', zh)
                assert '<script src="/-/static/live.js"></script>' in zh
            script = await client.get("/-/static/live.js")
            assert script.status_code == 200 and "javascript" in script.headers["content-type"]
            assert 'new EventSource("/-/events")' in script.text and "http" not in script.text.replace(
                "HTTP ", "")  # no external resource
            assert (await client.get("/live/assets/site.css")).status_code == 200
            assert (await client.get("/live/round/9")).status_code == 404
            missing = await client.get("/live/match/1/9.json")
            assert missing.status_code == 404 and missing.json()["key"] == "serve.no_such_page"

    _run(check())


# --- the events, on a real server ----------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def served(state: Live) -> Iterator[str]:
    import uvicorn

    port = _free_port()
    app = create_app(state, "127.0.0.1", port, rate=RateLimit(1000, 1000))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


async def _events(response: httpx.Response) -> AsyncIterator[tuple[str, str]]:
    """(event, data) of a server-sent events stream."""
    kind, data = "message", ""
    async for line in response.aiter_lines():
        if line.startswith("event:"):
            kind = line.removeprefix("event:").strip()
        elif line.startswith("data:"):
            data = line.removeprefix("data:").strip()
        elif not line and data:
            yield kind, data
            kind, data = "message", ""


def test_the_event_stream_says_changed_after_a_write(state: Live, served: str) -> None:
    url = _sheet_url(state, 3, "2", "B")

    async def check() -> None:
        timeout = httpx.Timeout(10.0)
        async with httpx.AsyncClient(base_url=served, timeout=timeout) as reader, \
                httpx.AsyncClient(base_url=served, timeout=timeout) as scorer, \
                reader.stream("GET", "/-/events") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            events = _events(stream)
            kind, first = await asyncio.wait_for(anext(events), 10)
            assert kind == "changed"
            page = (await scorer.get("/live/round/3.json")).json()
            assert str(page["live"]["version"]) == first  # the page is as the stream says
            await _enter(scorer, url, "16", 45)
            kind, then = await asyncio.wait_for(anext(events), 10)
            assert kind == "changed" and int(then) > int(first)

    _run(check())


# --- live.js, in a real browser ------------------------------------------------------------------



def _in_thread(coroutine: Coroutine[Any, Any, None]) -> None:
    """Run ``coroutine`` to its end on a thread of its own (Playwright's loop holds this one)."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(coroutine)
        except BaseException as error:  # handed to the test
            failed.append(error)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    if failed:
        raise failed[0]


@pytest.mark.slow
def test_live_js_swaps_the_page_after_a_write_in_chromium(state: Live, served: str) -> None:
    from playwright.sync_api import expect

    assert Path(CHROMIUM).exists(), f"Debian's chromium is not at {CHROMIUM}: run `make browser-deps`"
    event = state.session.event
    url = _sheet_url(state, 3, "2", "B")
    confirmer = event.round(3).match("2").seats("B")["NS"]  # type: ignore[union-attr]
    problems: list[str] = []

    async def write() -> None:
        async with httpx.AsyncClient(base_url=served, timeout=10) as scorer, \
                httpx.AsyncClient(base_url=served, timeout=10) as other:
            await _enter(scorer, url, "16", 45)
            await _confirm(other, url, ["16"], team_code(state.key, event.id, confirmer))

    with launched_chromium() as browser:
        page = browser.new_page()
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("request", lambda r: None if r.url.startswith((served, "data:")) else problems.append(r.url))
        page.goto(served + "/live/round/3")
        assert page.locator("table.matches tbody tr").nth(1).locator("td").nth(5).inner_text().startswith("15/16")
        page.fill("#filter", "长城")  # the site's own script filters the rows
        assert page.locator("table.matches tbody tr:visible").count() == 1
        page.press("#filter", "Enter")  # never sent: the page stays
        page.wait_for_timeout(300)  # and the stream is open
        assert page.url == served + "/live/round/3" and page.input_value("#filter") == "长城"
        _in_thread(write())
        # Two writes (the entry, a draft that changes nothing shown, then its confirmation): the
        # page follows both, and shows the confirmed result.
        # (expect polls without eval: the page's CSP refuses the string wait_for_function evaluates,
        # which only passed when its first look already saw the result)
        expect(page.locator("table.matches tbody tr", has_text="长城").locator("td").nth(5)).to_have_text(
            "16/16", timeout=10000)
        said = page.locator(".live-updated").inner_text()
        assert re.fullmatch(r"已更新 \d\d:\d\d:\d\d", said), said
        row = page.locator("table.matches tbody tr", has_text="长城")
        assert row.locator("td").nth(5).inner_text() == "16/16"
        assert page.input_value("#filter") == "长城"  # what was typed stays, and still filters
        assert page.locator("table.matches tbody tr:visible").count() == 1
        assert page.url == served + "/live/round/3"
    assert not problems, problems
