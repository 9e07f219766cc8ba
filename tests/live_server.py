"""A real ``dealer serve`` on loopback for the load test and benchmarks/serve.py: a boards event of
many tables written and dealt into a folder, the server as its own process (uvicorn on
127.0.0.1, a free port), and what a phone does on a table's page (its forms' nonces read from the
HTML, as a browser posts them).
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
from serve_support import nonce_of

from dealer.app.dealing import deal_event
from dealer.files import load_event
from dealer.store.folder import EventFolder

REPO = Path(__file__).resolve().parent.parent
EVENT_ID = "load"
#: The server speaks plain HTTP on loopback: one TLS context, never used, for every client (httpx
#: would load the CA bundle for each of hundreds of clients, 30 ms apiece).
UNUSED_TLS = ssl.create_default_context()
if importlib.util.find_spec("sniffio") is None:
    # httpcore tries to import sniffio on every request when it is not installed (a third of a
    # millisecond each, a search of sys.path): marked missing once, found missing at once
    sys.modules["sniffio"] = None  # type: ignore[assignment]


#: What a request meets when the server closed its kept-alive connection (idle 5 s: uvicorn's
#: default) just as the request went out on it. A browser then sends it again on a new connection,
#: and so does :func:`request` (a form's nonce makes that safe). Anything else is an error.
STALE_CONNECTION = (httpx.ReadError, httpx.RemoteProtocolError)


async def request(client: httpx.AsyncClient, method: str, url: str, resent: Callable[[], None],
                  **options: Any) -> httpx.Response:
    """``client.request(…)``, sent once more on a stale connection (``resent()`` counts it)."""
    try:
        return await client.request(method, url, **options)
    except STALE_CONNECTION:
        resent()
        return await client.request(method, url, **options)


def http_client(base: str, **options: object) -> httpx.AsyncClient:
    """A phone's (or a live page's) HTTP client: its own connections and cookie jar."""
    return httpx.AsyncClient(base_url=base, verify=UNUSED_TLS, **options)  # type: ignore[arg-type]


def write_event(folder: Path, teams: int, boards: int = 16) -> Path:
    """An event file of ``teams`` teams, one set of ``boards`` boards and a fixed round 1 of
    ``teams // 2`` matches (two tables each)."""
    lines = ["[event]", f'id = "{EVENT_ID}"', 'name = "Load test"', 'profile = "official-2002"', "decks = 2",
             f"boards_per_set = {boards}", "sets = 1", ""]
    for t in range(1, teams + 1):
        lines += ["[[teams]]", f'id = "T{t:03d}"', f'name = "Team {t}"', ""]
    lines += ["[[rounds]]", "number = 1", "matches = ["]
    lines += [f'  {{ id = "{m}", home = "T{2 * m - 1:03d}", away = "T{2 * m:03d}", set = 1 }},'
              for m in range(1, teams // 2 + 1)]
    lines += ["]", ""]
    path = folder / f"{EVENT_ID}.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def dealt_event(folder: Path, teams: int, boards: int = 16) -> tuple[Path, Path]:
    """The event file written and dealt: (event file, boards root)."""
    path = write_event(folder, teams, boards)
    root = folder / "boards"
    deal_event(load_event(path), EventFolder(EVENT_ID, root))
    return path, root


def points(match: str, table: str, board: int) -> str:
    """A result the profile accepts (a multiple of 5 between 0 and 195), different across the
    event's slots so a row stored at the wrong slot would show."""
    return str(5 * ((int(match) * 7 + board * 3 + (table == "B") * 11) % 40))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _interruptible() -> None:
    """In the server's process before it starts: Ctrl-C (SIGINT) as a terminal gives it, even when
    the tests were started as a background job of a shell without job control, whose children
    inherit SIGINT ignored (uvicorn still stops on it then, but exits 0, not 130)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class LiveServer:
    """``dealer serve EVENT --port P --rate 100000`` as a child process (its own interpreter, as
    the director runs it); :meth:`start` returns once ``/-/health`` answers."""

    def __init__(self, event_file: Path, boards_root: Path, port: int | None = None,
                 extra: tuple[str, ...] = (), env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.event_file, self.boards_root = event_file, boards_root
        self.port = port or free_port()
        self.extra = extra
        self.env = env or {}
        #: The server's working directory (``python -m`` puts it first on sys.path, before PYTHONPATH).
        self.cwd = cwd
        self.process: subprocess.Popen[bytes] | None = None
        self.log = boards_root.parent / f"serve-{self.port}.log"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def command(self) -> list[str]:
        """The server's command line (benchmarks/serve.py starts its floor app as a server of this kind)."""
        return [sys.executable, "-m", "dealer.cli", "serve", str(self.event_file), "--port", str(self.port),
                "--rate", "100000", "--boards-dir", str(self.boards_root), *self.extra]

    def start(self, timeout: float = 20) -> LiveServer:
        env = {**os.environ, "PYTHONPATH": str(REPO), **self.env}
        began = time.monotonic()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT, env=env,
                                            cwd=self.cwd, preexec_fn=_interruptible)
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"dealer serve ended ({self.process.returncode}): {self.output()}")
            try:
                if httpx.get(self.base + "/-/health", timeout=2).status_code == 200:
                    #: seconds from the command's start to its first answer (benchmarks/serve.py)
                    self.started_s = time.monotonic() - began
                    return self
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"dealer serve did not answer in {timeout} s: {self.output()}")
            time.sleep(0.05)

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""

    @property
    def director(self) -> str:
        """The one-time director link the command printed as it started."""
        deadline = time.monotonic() + 10
        while not (found := re.search(r"/-/login\?token=\S+", self.output())):
            assert time.monotonic() < deadline, self.output()
            time.sleep(0.05)
        return self.base + found.group(0)

    def kill(self) -> None:
        """``kill -9``: no shutdown, no flush beyond what was committed."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """Ctrl-C (uvicorn's graceful shutdown)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()


def enter_nonces(html: str, boards: int) -> dict[str, str]:
    """The table page's enter forms: board → its form's nonce."""
    return {str(b): nonce_of(html, str(b)) for b in range(1, boards + 1)}


def confirm_form(html: str) -> tuple[str, list[str]]:
    """The table page's confirm form: its nonce and the boards it confirms (its hidden fields)."""
    return nonce_of(html, "confirm"), re.findall(r'<input type="hidden" name="slots" value="(\w+)">', html)
