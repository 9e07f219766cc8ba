"""Issue 23, "done when": a bounded loopback load test of ``dealer serve`` (a real uvicorn in its own
process on 127.0.0.1). 120 phones enter the 16 boards of the 120 table sheets of a round (60
matches × 2 tables), with double taps and retries of the same form, while 240 live-update streams
stay open; the other side of every sheet confirms with its team code. Exactly 1,920 results are
stored, no request fails, no nonce is used twice, every stream is still open and awake at the
end. Then the same load is cut by ``kill -9`` of the server: after a restart on the same database
every acknowledged entry is there, and the interrupted phones' resubmissions (their original
nonces) store nothing twice.

Bounded by progress, not by a time for the whole load: the load fails as soon as the server has
answered nothing for :data:`STALL_S` (a stalled server fails the test, never hangs it), whatever
the load takes on a loaded machine; at most :data:`IN_FLIGHT` requests at once. How fast the server
is, ``benchmarks/serve.py`` measures.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import httpx
import pytest
from live_server import (
    EVENT_ID,
    LiveServer,
    confirm_form,
    dealt_event,
    enter_nonces,
    http_client,
    points,
    request,
)
from serve_support import JSON

from dealer.app.live import sheet_of
from dealer.errors import EXIT_INTERRUPTED
from dealer.event import Event
from dealer.files import load_event
from dealer.formats.entry import SheetId, entry_url, team_code
from dealer.serve.app import EVENTS_EVERY_S
from dealer.store.folder import EventFolder

pytestmark = pytest.mark.slow  # a minute and more of loopback load

TEAMS = 120
MATCHES = TEAMS // 2
TABLES = ("A", "B")
BOARDS = 16
SHEETS = MATCHES * len(TABLES)
RESULTS = SHEETS * BOARDS  # 1,920
STREAMS = 240
#: Requests in flight at once, over every phone (a phone sends one form at a time, a double tap two).
IN_FLIGHT = 16
#: The longest the server may go without answering any of the requests in flight: beyond it the
#: load has stalled and the test fails. Not a speed bound: a slow or loaded machine answers more
#: slowly but keeps answering (milliseconds apart here, the longest wait printed at the end); below
#: a phone's own 30 s timeout, so that a stall is named as one.
STALL_S = 20.0

T = TypeVar("T")


def double_tap(slot: str) -> bool:
    """The boards whose form goes twice at once (a double tap)."""
    return int(slot) % 4 == 0


def retried(slot: str) -> bool:
    """The boards whose form is sent again after its answer (a retry, F5 on a post)."""
    return int(slot) % 5 == 0


@dataclass
class Answers:
    """Every answer of the run, by status, and the acknowledged entries."""

    statuses: dict[int, int] = field(default_factory=dict)
    entered: dict[tuple[str, str, str], str] = field(default_factory=dict)  #: acknowledged: slot → points
    first: dict[str, int] = field(default_factory=dict)  #: nonce → answers that were not repeats
    repeats: int = 0
    nonces: set[str] = field(default_factory=set)
    resent: int = 0  #: requests sent again on a new connection (:data:`live_server.STALE_CONNECTION`)
    sending: int = 0  #: entries sent and not yet answered
    answered_at: float = field(default_factory=time.monotonic)  #: the last answer (or stream opened)
    longest_wait: float = 0.0  #: the longest time without one

    def resend(self) -> None:
        self.resent += 1

    def count(self, response: httpx.Response) -> None:
        self.statuses[response.status_code] = self.statuses.get(response.status_code, 0) + 1
        self.progress()

    def progress(self) -> None:
        """The server answered (or a stream opened): the load moves on."""
        now = time.monotonic()
        self.longest_wait = max(self.longest_wait, now - self.answered_at)
        self.answered_at = now

    def wait_from_now(self) -> None:
        """The wait for the next answer starts now (the load begins, or the server was restarted)."""
        self.answered_at = time.monotonic()

    def total(self) -> int:
        return sum(self.statuses.values())

    def errors(self) -> dict[int, int]:
        return {s: n for s, n in self.statuses.items() if not 200 <= s < 300}


@dataclass
class Phone:
    """The scorer's phone at one table: its page's forms, the boards still to send."""

    match: str
    table: str
    url: str
    nonces: dict[str, str] | None = None
    todo: list[str] = field(default_factory=list)

    async def enter(self, client: httpx.AsyncClient, gate: asyncio.Semaphore, answers: Answers,
                    acked: Callable[[], None]) -> None:
        """Open the page (once: its nonces are kept, as the page keeps its forms), then send every
        board not yet acknowledged. A dropped connection ends the run (:class:`httpx.TransportError`)
        with the board still to send."""
        if self.nonces is None:
            async with gate:
                page = await request(client, "GET", self.url, answers.resend)
            answers.count(page)
            assert page.status_code == 200, page.text[:300]
            self.nonces = enter_nonces(page.text, BOARDS)
            self.todo = list(self.nonces)
        while self.todo:
            slot = self.todo[0]
            nonce = self.nonces[slot]
            form = {"slot": slot, "nonce": nonce, "defenders_points": points(self.match, self.table, int(slot))}
            async with gate:
                answers.sending += 1
                try:
                    sent = await asyncio.gather(*(request(client, "POST", self.url + "/enter", answers.resend,
                                                          data=form, headers=JSON)
                                                  for _ in range(2 if double_tap(slot) else 1)))
                finally:
                    answers.sending -= 1
            for response in sent:
                self.answered(response, nonce, answers)
            answers.entered[(self.match, self.table, slot)] = form["defenders_points"]
            self.todo.pop(0)
            acked()
            if retried(slot):
                async with gate:
                    again = await request(client, "POST", self.url + "/enter", answers.resend, data=form,
                                          headers=JSON)
                self.answered(again, nonce, answers)
                assert again.json()["repeated"], again.text

    def answered(self, response: httpx.Response, nonce: str, answers: Answers) -> None:
        answers.count(response)
        assert response.status_code == 200, response.text[:300]
        body = response.json()
        assert body["ok"] and body["action"] == "enter", body
        answers.nonces.add(nonce)
        if body["repeated"]:
            answers.repeats += 1
        else:
            answers.first[nonce] = answers.first.get(nonce, 0) + 1


async def confirm_sheet(base: str, url: str, code: str, gate: asyncio.Semaphore, answers: Answers) -> None:
    """The other side's phone (its own device cookie) confirms every entered board with its code."""
    async with http_client(base, timeout=30) as client:
        async with gate:
            page = await request(client, "GET", url, answers.resend)
        answers.count(page)
        assert page.status_code == 200, page.text[:300]
        nonce, slots = confirm_form(page.text)
        assert sorted(slots, key=int) == [str(b) for b in range(1, BOARDS + 1)]
        async with gate:
            done = await request(client, "POST", url + "/confirm", answers.resend,
                                 data={"nonce": nonce, "slots": slots, "code": code}, headers=JSON)
        answers.count(done)
        assert done.status_code == 200, done.text[:300]
        body = done.json()
        assert body["ok"] and body["action"] == "confirm" and not body["repeated"], body
        answers.nonces.add(nonce)
        answers.first[nonce] = 1


@dataclass
class Stream:
    """One live page's ``/-/events`` stream: what it read, and whether it ended."""

    status: int | None = None
    events: int = 0
    last: float = 0.0
    ended: bool = False
    opened: asyncio.Event = field(default_factory=asyncio.Event)


async def follow(client: httpx.AsyncClient, stream: Stream, answers: Answers) -> None:
    try:
        async with client.stream("GET", "/-/events") as response:
            stream.status = response.status_code
            async for chunk in response.aiter_raw():
                stream.events += chunk.count(b"event: changed")
                stream.last = time.monotonic()
                if not stream.opened.is_set():
                    answers.progress()  # its opening only: the keep-alive comments would hide a stall
                stream.opened.set()
    except httpx.TransportError:
        pass
    finally:
        stream.ended = True
        stream.opened.set()


async def open_streams(base: str, count: int,
                       answers: Answers) -> tuple[httpx.AsyncClient, list[Stream], list[asyncio.Task[None]]]:
    """``count`` live pages' streams, each on its own connection, once each has read its first event."""
    streams_client = http_client(base, limits=httpx.Limits(max_connections=count + 8),
                                 timeout=httpx.Timeout(10, read=None))
    streams = [Stream() for _ in range(count)]
    tasks = [asyncio.create_task(follow(streams_client, s, answers)) for s in streams]
    await asyncio.gather(*(s.opened.wait() for s in streams))
    assert all(s.status == 200 and not s.ended for s in streams), [s.status for s in streams if s.status != 200]
    return streams_client, streams, tasks


class Sheets:
    """The event as the phones know it: every sheet's URL (its printed QR) and the code of the
    team that confirms it (its team card)."""

    def __init__(self, event_file: Path, root: Path) -> None:
        self.event: Event = load_event(event_file)
        key = EventFolder(EVENT_ID, root).entry_key()
        assert key is not None, "dealer serve made no entry.key"
        self.key = key
        self.database = EventFolder(EVENT_ID, root).results_path

    def url(self, match: str, table: str) -> str:
        return entry_url("", self.key, SheetId(EVENT_ID, 1, match, table, 1))

    def code(self, phone: Phone) -> str:
        return team_code(self.key, EVENT_ID, sheet_of(self.event, 1, phone.match, phone.table).confirmer)

    def phones(self) -> list[Phone]:
        return [Phone(str(m), t, self.url(str(m), t)) for m in range(1, MATCHES + 1) for t in TABLES]


def stored(database: Path) -> contextlib.closing[sqlite3.Connection]:
    conn = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return contextlib.closing(conn)


def check_stored(database: Path, answers: Answers) -> None:
    """Exactly one result per board of every sheet, each the acknowledged value; one live entry
    per board; every nonce used once."""
    with stored(database) as conn:
        assert conn.execute("SELECT count(*) FROM results").fetchone()[0] == RESULTS
        assert conn.execute("SELECT count(*) FROM current_results").fetchone()[0] == RESULTS
        rows = {(r["match"], r["tbl"], str(r["board"])): str(r["defenders_points"])
                for r in conn.execute("SELECT * FROM current_results WHERE round = 1")}
        assert rows == answers.entered
        states = dict(conn.execute("SELECT state, count(*) FROM live_entries GROUP BY state").fetchall())
        assert states == {"confirmed": RESULTS}, states
        used = {r[0] for r in conn.execute("SELECT nonce FROM live_nonces")}
        logged = dict(conn.execute("SELECT action, count(*) FROM live_log GROUP BY action").fetchall())
    assert used == answers.nonces and len(used) == RESULTS + SHEETS
    assert logged == {"enter": RESULTS, "confirm": SHEETS}, logged  # one write a nonce
    assert set(answers.first.values()) == {1}, "a nonce answered as new twice"


async def unless_stalled(load: Awaitable[T], answers: Answers) -> T:
    """``load`` run to its end, or cancelled and failed once the server has answered nothing for
    :data:`STALL_S`."""
    task = asyncio.ensure_future(load)
    answers.wait_from_now()
    while not task.done():
        await asyncio.wait({task}, timeout=1.0)
        if not task.done() and time.monotonic() - answers.answered_at > STALL_S:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            raise AssertionError(f"no answer for {STALL_S:.0f} s: the server stalled after {answers.total()} "
                                 f"answers")
    return task.result()


def quiet(server: LiveServer) -> None:
    """Nothing but the start-up lines: no traceback, no error logged."""
    out = server.output()
    assert "Traceback" not in out and "ERROR" not in out, out[-3000:]


def test_load_120_phones_240_streams(tmp_path: Path) -> None:
    event_file, root = dealt_event(tmp_path, TEAMS, BOARDS)
    with LiveServer(event_file, root) as server:
        sheets = Sheets(event_file, root)
        answers = Answers()

        async def load() -> tuple[list[Stream], float]:
            gate = asyncio.Semaphore(IN_FLIGHT)
            opened = time.monotonic()
            streams_client, streams, tasks = await open_streams(server.base, STREAMS, answers)
            started = time.monotonic()

            async def table(phone: Phone) -> None:
                async with http_client(server.base, timeout=30) as client:
                    await phone.enter(client, gate, answers, lambda: None)
                await confirm_sheet(server.base, phone.url, sheets.code(phone), gate, answers)

            phones = sheets.phones()
            await asyncio.gather(*(table(p) for p in phones))
            elapsed = time.monotonic() - started
            # one more write after everything (a stored form sent again): every stream wakes on it
            after = time.monotonic()
            last = phones[0]
            assert last.nonces is not None
            async with http_client(server.base, timeout=30) as client:
                again = await request(client, "POST", last.url + "/enter", answers.resend, headers=JSON, data={
                    "slot": "1", "nonce": last.nonces["1"], "defenders_points": points(last.match, last.table, 1)})
            answers.count(again)
            assert again.status_code == 200 and again.json()["repeated"], again.text
            for _ in range(100):
                if all(s.last > after for s in streams):
                    break
                await asyncio.sleep(0.05)
            assert not any(s.ended or t.done() for s, t in zip(streams, tasks, strict=True)), "a stream ended"
            assert all(s.last > after for s in streams), f"{sum(s.last <= after for s in streams)} streams asleep"
            # the writes of a second make one event, not one each (then streams would slow the writes)
            most = 2 + (time.monotonic() - opened) / EVENTS_EVERY_S
            assert max(s.events for s in streams) <= most, (max(s.events for s in streams), most)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await streams_client.aclose()
            return streams, elapsed

        streams, elapsed = asyncio.run(unless_stalled(load(), answers))
        print(f"{RESULTS} entries and {SHEETS} confirmations in {elapsed:.1f} s; {answers.repeats} repeats answered,"
              f" {answers.resent} requests resent on a new connection; the longest wait for an answer"
              f" {answers.longest_wait:.2f} s (a stall: {STALL_S:.0f} s)")
        assert answers.errors() == {}, answers.errors()
        assert all(s.events >= 2 for s in streams)
    assert server.process is not None and server.process.returncode == EXIT_INTERRUPTED, server.output()
    quiet(server)
    check_stored(sheets.database, answers)


@pytest.mark.parametrize("in_flight", [IN_FLIGHT, MATCHES * len(TABLES)], ids=["16-in-flight", "every-phone-at-once"])
def test_kill_9_mid_load_loses_nothing_and_stores_nothing_twice(tmp_path: Path, in_flight: int) -> None:
    """With every phone sending at once, the server's group commit has batches of entries queued
    and in their COMMIT when it is killed: none of them was answered, so each phone sends it
    again (its page's nonce) and it is stored once; every one answered is there."""
    kill_after = RESULTS * 2 // 5  # acknowledged entries before the kill
    event_file, root = dealt_event(tmp_path, TEAMS, BOARDS)
    server = LiveServer(event_file, root).start()
    try:
        sheets = Sheets(event_file, root)
        answers = Answers()
        phones = sheets.phones()
        before_kill: dict[tuple[str, str, str], str] = {}

        unanswered = 0  # entries sent and not answered when the server died

        async def load() -> None:
            gate = asyncio.Semaphore(in_flight)
            acks = 0

            def acked() -> None:
                nonlocal acks, unanswered
                acks += 1
                if acks == kill_after:
                    unanswered = answers.sending
                    server.kill()
                    before_kill.update(answers.entered)

            async def until_cut(phone: Phone, client: httpx.AsyncClient) -> None:
                try:
                    await phone.enter(client, gate, answers, acked)
                except httpx.TransportError:
                    pass  # the server is gone: the phone keeps the board it was sending

            clients = [http_client(server.base, timeout=30) for _ in phones]
            try:
                await asyncio.gather(*(until_cut(p, c) for p, c in zip(phones, clients, strict=True)))
                assert before_kill, "the server was never killed"
                cut = [(p, c) for p, c in zip(phones, clients, strict=True) if p.todo or p.nonces is None]
                assert cut, "no phone was interrupted"
                server.start()  # the same port and database
                answers.wait_from_now()  # the time the restart took is not a stall
                with stored(sheets.database) as conn:
                    kept = {(r["match"], r["tbl"], r["slot"]): str(json.loads(r["fields"])["defenders_points"])
                            for r in conn.execute("SELECT * FROM live_entries WHERE state = 'entered'")}
                lost = {slot for slot in before_kill if kept.get(slot) != before_kill[slot]}
                assert not lost, f"acknowledged before the kill, missing after it: {sorted(lost)[:5]}"
                # the interrupted phones send what had no answer again, with their pages' nonces
                await asyncio.gather(*(p.enter(c, gate, answers, lambda: None) for p, c in cut))
            finally:
                for c in clients:
                    await c.aclose()
            await asyncio.gather(*(confirm_sheet(server.base, p.url, sheets.code(p), gate, answers) for p in phones))

        asyncio.run(unless_stalled(load(), answers))
        print(f"killed after {len(before_kill)} acknowledged entries, {unanswered} entries in flight;"
              f" {answers.repeats} repeats answered,"
              f" {answers.resent} requests resent on a new connection; the longest wait for an answer"
              f" {answers.longest_wait:.2f} s (a stall: {STALL_S:.0f} s)")
        assert answers.errors() == {}, answers.errors()
        if in_flight > IN_FLIGHT:
            assert unanswered >= 2, "no batch was in flight when the server was killed"
    finally:
        server.stop()
    check_stored(sheets.database, answers)
