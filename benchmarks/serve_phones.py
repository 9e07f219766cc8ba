"""The phones of benchmarks/serve.py: a light HTTP/1.1 client on raw sockets, in client processes
of their own, so that the client takes as little as it can of the cores the server runs on.

Each phone is one kept-alive TCP connection (an :class:`asyncio.Protocol`: no stream objects, no
HTTP library) and does what a phone's browser does on a table's page: it opens the page (``GET``,
no cookie yet, as after scanning the sheet's QR code), keeps the cookies the answer sets, reads
its enter forms' nonces from the HTML (tests/live_server.py ``enter_nonces``), and then posts its
boards as the page's script posts them: the form's fields (``slot``, ``nonce``,
``defenders_points``, ``trump``), with the page's ``Origin`` and ``Referer``, its cookies,
``Accept: application/json`` and a phone's ``User-Agent``. Every request of a phone is built
before the timing starts; the timed part only writes bytes and reads answers. Every answer's
status is checked (200, JSON ``ok`` and not ``repeated``). A request that meets a connection the
server closed while it was idle is sent once more on a new one, as a browser does, and counted
(tests/live_server.py ``request``).
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import random
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from live_server import enter_nonces, points

USER_AGENT = ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 "
              "Chrome/130.0 Mobile Safari/537.36 MMWEBID/1234 MicroMessenger/8.0.50.2701(0x28003253) WeChat/arm64")
#: Seconds a client process may wait for the others (or the server) before the run is abandoned.
PATIENCE_S = 300.0


@dataclass(frozen=True)
class Sheet:
    """A phone's table sheet: its page's path (the QR code's), and the match and table it scores."""

    path: str
    match: str
    table: str


@dataclass
class Answer:
    status: int
    head: list[tuple[str, str]]
    body: bytes


class StaleConnection(Exception):
    """The server closed the connection before any of the answer came back."""


class Connection(asyncio.Protocol):
    """One kept-alive connection, one request at a time; the answer's end is stamped as it is read."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiting: asyncio.Future[Answer] | None = None
        self.closed = False
        self.answered_at = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        waiting = self.waiting
        if waiting is None or waiting.done():
            return
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return
        lines = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        head = [(name.strip().lower(), value.strip()) for name, _, value in (line.partition(":") for line in lines[1:])]
        length = next((int(value) for name, value in head if name == "content-length"), None)
        if length is None:
            waiting.set_exception(AssertionError(f"an answer without Content-Length: {lines[0]}"))
            return
        if len(self.buffer) < end + 4 + length:
            return
        self.answered_at = time.perf_counter()
        body = bytes(self.buffer[end + 4:end + 4 + length])
        del self.buffer[:end + 4 + length]
        waiting.set_result(Answer(int(lines[0].split()[1]), head, body))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.waiting is not None and not self.waiting.done():
            begun = bytes(self.buffer[:200])
            self.waiting.set_exception(AssertionError(f"connection closed mid-answer: {begun!r}") if begun
                                       else StaleConnection())

    async def ask(self, request: bytes) -> Answer:
        if self.closed or self.transport is None or self.transport.is_closing():
            raise StaleConnection()
        self.waiting = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        try:
            return await self.waiting
        finally:
            self.waiting = None


@dataclass
class Phone:
    host: str
    port: int
    sheet: Sheet
    connection: Connection | None = None
    cookies: dict[str, str] = field(default_factory=dict)
    resent: int = 0

    async def connect(self) -> None:
        if self.connection is not None and self.connection.transport is not None:
            self.connection.transport.close()
        _, self.connection = await asyncio.get_running_loop().create_connection(Connection, self.host, self.port)

    async def send(self, request: bytes) -> tuple[Answer, float]:
        """The answer and the seconds the phone waited for it: from the moment it sends the request
        (a new connection opened first, or the request sent again on one, counted in) to the answer's
        last byte read."""
        sent = time.perf_counter()
        if self.connection is None or self.connection.closed:
            await self.connect()  # closed while idle, and seen closed: a browser opens another
        assert self.connection is not None
        try:
            answer = await self.connection.ask(request)
        except StaleConnection:
            self.resent += 1
            await self.connect()
            assert self.connection is not None
            answer = await self.connection.ask(request)
        return answer, self.connection.answered_at - sent

    @property
    def origin(self) -> str:
        return f"http://{self.host}:{self.port}"

    def page_request(self) -> bytes:
        return (f"GET {self.sheet.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nUser-Agent: {USER_AGENT}\r\n"
                "Accept: text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8\r\n"
                "Accept-Language: zh-CN,zh;q=0.9\r\nAccept-Encoding: identity\r\n"
                "Sec-Fetch-Site: none\r\nSec-Fetch-Mode: navigate\r\nSec-Fetch-Dest: document\r\n\r\n").encode()

    def keep_cookies(self, answer: Answer) -> None:
        for name, value in answer.head:
            if name == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key.strip()] = rest.split(";", 1)[0]

    def entry_requests(self, nonces: dict[str, str]) -> list[bytes]:
        """Each board's POST as the page's script sends it (the form's fields, in the form's order)."""
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        made = []
        for slot, nonce in nonces.items():
            body = urllib.parse.urlencode({"slot": slot, "nonce": nonce,
                                           "defenders_points": points(self.sheet.match, self.sheet.table, int(slot)),
                                           "trump": ""}).encode()
            made.append((f"POST {self.sheet.path}/enter HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                         f"User-Agent: {USER_AGENT}\r\nAccept: application/json\r\n"
                         "Accept-Language: zh-CN,zh;q=0.9\r\nAccept-Encoding: identity\r\n"
                         "Content-Type: application/x-www-form-urlencoded\r\n"
                         f"Content-Length: {len(body)}\r\nOrigin: {self.origin}\r\n"
                         f"Referer: {self.origin}{self.sheet.path}\r\n"
                         "Sec-Fetch-Site: same-origin\r\nSec-Fetch-Mode: cors\r\nSec-Fetch-Dest: empty\r\n"
                         f"Cookie: {cookie}\r\n\r\n").encode() + body)
        return made


@dataclass
class Measured:
    """What the phones saw over the timed part (every client process's, put together)."""

    latencies: list[float]
    began: float  #: time.monotonic() of the first post
    ended: float  #: time.monotonic() of the last answer
    client_cpu_s: float
    resent: int

    @property
    def wall_s(self) -> float:
        return self.ended - self.began


def checked(answer: Answer, what: str) -> None:
    if answer.status != 200:
        raise AssertionError(f"{what}: {answer.status} {answer.body[:300]!r}")


async def phones_of(host: str, port: int, sheets: list[Sheet], boards: int, pace_s: float, seed: int,
                    loaded: Any, go: Any) -> dict[str, Any]:
    """One client process's phones: pages opened, then (after ``loaded`` and ``go``) every board posted."""
    phones = [Phone(host, port, sheet) for sheet in sheets]

    async def open_page(phone: Phone) -> list[bytes]:
        answer, _ = await phone.send(phone.page_request())
        checked(answer, f"page {phone.sheet.path}")
        phone.keep_cookies(answer)
        return phone.entry_requests(enter_nonces(answer.body.decode("utf-8"), boards))

    requests = await asyncio.gather(*(open_page(phone) for phone in phones))
    loaded.wait(PATIENCE_S)  # every client process has its pages: the parent notes the server's CPU
    go.wait(PATIENCE_S)
    latencies: list[float] = []
    began, cpu = time.monotonic(), os.times()
    pick = random.Random(seed)

    async def post(phone: Phone, made: list[bytes]) -> None:
        start = time.perf_counter() + pick.random() * pace_s  # phones of a hall are not in step
        for number, request in enumerate(made):
            if pace_s:
                await asyncio.sleep(max(0.0, start + number * pace_s - time.perf_counter()))
            answer, seconds = await phone.send(request)
            latencies.append(seconds)
            checked(answer, f"entry {phone.sheet.path} {number + 1}")
            said = json.loads(answer.body)
            if not said.get("ok") or said.get("repeated"):
                raise AssertionError(f"entry {phone.sheet.path} {number + 1}: {said}")

    await asyncio.gather(*(post(phone, made) for phone, made in zip(phones, requests, strict=True)))
    ended, after = time.monotonic(), os.times()
    for phone in phones:
        if phone.connection is not None and phone.connection.transport is not None:
            phone.connection.transport.close()
    return {"latencies": latencies, "began": began, "ended": ended, "resent": sum(p.resent for p in phones),
            "cpu": (after.user - cpu.user) + (after.system - cpu.system)}


def _client(host: str, port: int, sheets: list[Sheet], boards: int, pace_s: float, seed: int,
            loaded: Any, go: Any, results: Any) -> None:
    try:
        results.put(asyncio.run(phones_of(host, port, sheets, boards, pace_s, seed, loaded, go)))
    except BaseException as error:
        loaded.abort()
        results.put({"error": f"{type(error).__name__}: {error}"})


def run_phones(port: int, sheets: list[Sheet], boards: int, pace_s: float, processes: int,
               server_cpu: Any, host: str = "127.0.0.1") -> tuple[Measured, float]:
    """Every sheet's phone, spread over ``processes`` client processes: pages opened, then the
    boards posted (each phone again as soon as answered, or once every ``pace_s`` seconds).
    Returns what they measured and ``server_cpu()``'s growth over the timed part."""
    context = multiprocessing.get_context("fork")
    loaded, go, results = context.Barrier(processes + 1), context.Event(), context.Queue()
    clients = [context.Process(target=_client, args=(host, port, sheets[i::processes], boards, pace_s, i,
                                                     loaded, go, results), daemon=True)
               for i in range(processes)]
    for client in clients:
        client.start()
    try:
        try:
            loaded.wait(PATIENCE_S)
        except Exception:  # threading.BrokenBarrierError: a client failed (its error is in results)
            pass
        cpu_before = server_cpu()
        go.set()
        parts = [results.get(timeout=PATIENCE_S) for _ in clients]
        cpu_after = server_cpu()
    finally:
        for client in clients:
            client.join(timeout=10)
            if client.is_alive():
                client.kill()
    failed = [part["error"] for part in parts if "error" in part]
    if failed:
        raise AssertionError("a client process failed: " + "; ".join(failed))
    measured = Measured([s for part in parts for s in part["latencies"]], min(part["began"] for part in parts),
                        max(part["ended"] for part in parts), sum(part["cpu"] for part in parts),
                        sum(part["resent"] for part in parts))
    return measured, cpu_after - cpu_before
