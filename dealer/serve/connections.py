"""The connections ``dealer serve`` holds (docs/serve.md, "Threat model", floods): how long one may
take to send its request, how many one address may hold open, and how many are held at once.

uvicorn alone counts every open connection against ``limit_concurrency`` and answers 503 above it,
and its h11 protocol arms no timer on a connection until it has answered a request: 1,000 sockets
that never send a byte, from one machine, shut every phone out for as long as they are held. The
protocol made by :func:`guarded_protocol` (a subclass of uvicorn's ``H11Protocol``, given to
``uvicorn.Config(http=...)``) instead

- closes a connection that has not delivered a whole request (head and body) within
  :data:`REQUEST_S` of the request's start: the connection's opening, or the first byte of a next
  request on a kept-alive connection. Bytes trickled in do not move the deadline. Once the request
  is whole the timer is off: a response being written (a live page's endless ``/-/events``
  stream) is never cut by it, and between requests uvicorn's own keep-alive timer applies;
- holds at most :data:`PER_ADDRESS` connections from one client address (loopback excepted): one
  above it is closed at once, before anything is read;
- holds at most :data:`CONCURRENCY` connections in all: above it, the connection that has waited
  longest for a request is closed for the new one (a flood's sockets, or a phone's idle kept-alive
  connection, which its browser opens again at no cost); only when none is waiting is the new one
  closed.

The bookkeeping (:class:`Ledger`) is a few dictionary operations a connection, and whatever way a
connection ends (closed by the client, by a timer, by the caps, by the server's shutdown),
``connection_lost`` releases it. What was closed is said on the director's terminal, one warning
line at most every :data:`LOG_EVERY_S`. :func:`raise_open_files` lifts the process's limit on open
files so that the caps, not ``accept()`` failing, decide.

``dealer serve`` imports this module when it starts (never the other commands), and uvicorn and h11
only in :func:`guarded_protocol`; the laptop's own addresses are the live entry's
(:data:`dealer.app.live.LOCAL_ADDRESSES`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from dealer.app.live import LOCAL_ADDRESSES

if TYPE_CHECKING:
    import h11

#: Seconds a connection has to deliver a whole request from its start. A phone sends its request as
#: soon as it has connected, and a request here is small (a page's GET, a form of at most 16 KB):
#: even on crowded venue Wi-Fi that takes well under a second, and 10 s still covers three lost
#: packets resent by TCP (1 + 2 + 4 s). A browser's spare connection opened ahead of need and not
#: used is closed too; Chromium itself drops such a socket after 10 s unused, and a browser opens
#: another when it needs one, unseen. Twice uvicorn's keep-alive (5 s).
REQUEST_S = 10.0
#: Connections one client address may hold. A phone's browser opens at most 6 to one host (the
#: HTTP/1.1 limit of every browser); a live page holds one of them for its stream: 32 leaves room
#: for a few tabs and a reload, not for a flood.
PER_ADDRESS = 32
#: Connections held at once, over every address (phones, live pages' streams, the console).
CONCURRENCY = 1000
#: Addresses :data:`PER_ADDRESS` does not apply to: the director's laptop itself (which could stop
#: the server anyway; the load test opens 360 connections from it).
LOOPBACK = LOCAL_ADDRESSES
#: Open files kept for the server's own use (the database, its journal, templates, the listening
#: socket, logs) beside its connections.
RESERVED_FILES = 64
#: The soft limit on open files :func:`raise_open_files` asks for at most.
OPEN_FILES = 8192
#: Seconds between two warning lines on the connections closed (the first is written at once).
LOG_EVERY_S = 30.0

log = logging.getLogger("uvicorn.error")


@dataclass(frozen=True)
class Limits:
    """The limits of :mod:`dealer.serve.connections` (its constants by default)."""

    request_s: float = REQUEST_S
    per_address: int = PER_ADDRESS
    concurrency: int = CONCURRENCY
    exempt: frozenset[str] = LOOPBACK

    @classmethod
    def within(cls, open_files: int | None) -> Limits:
        """The default limits, :data:`CONCURRENCY` lowered to fit ``open_files`` (the process's soft
        limit, ``None``: unknown or unlimited): above it ``accept()`` would fail, and asyncio would
        stop accepting anything for a second, where the cap closes an idle connection instead."""
        if open_files is None:
            return cls()
        return cls(concurrency=max(min(CONCURRENCY, open_files - RESERVED_FILES), PER_ADDRESS))


class Closable(Protocol):
    """What the ledger needs of a connection: a way to close it at once."""

    def drop(self) -> None: ...


C = TypeVar("C", bound=Closable)


class Ledger(Generic[C]):
    """The open connections of one server, for the caps: each admitted connection, its address's
    count, and those waiting for a request in the order they began to wait (an ``OrderedDict``:
    the oldest taken in O(1)). Every operation is O(1) and :meth:`release` may be called any
    number of times, in any order."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.address_of: dict[C, str | None] = {}  #: admitted → its address, None when exempt
        self.by_address: dict[str, int] = {}
        self.waiting: OrderedDict[C, None] = OrderedDict()
        self.closed: Counter[str] = Counter()  #: since the last log line, by reason
        self.logged_at = -LOG_EVERY_S
        self.flush_due = False  #: a log line is due at ``logged_at + LOG_EVERY_S``

    def __len__(self) -> int:
        return len(self.address_of)

    def admit(self, connection: C, address: str) -> bool:
        """Whether a new ``connection`` from ``address`` may stay open (counted as waiting for its
        request when it may); above :attr:`Limits.concurrency` the longest-waiting one is closed
        for it."""
        counted = None if address in self.limits.exempt else address
        if counted is not None and self.by_address.get(counted, 0) >= self.limits.per_address:
            self.note("over the per-address cap")
            return False
        if len(self.address_of) >= self.limits.concurrency:
            if not self.waiting:
                self.note("over the cap, none idle")
                return False
            oldest, _ = self.waiting.popitem(last=False)
            self.release(oldest)
            oldest.drop()
            self.note("idle longest, for a new one")
        self.address_of[connection] = counted
        if counted is not None:
            self.by_address[counted] = self.by_address.get(counted, 0) + 1
        self.waiting[connection] = None
        return True

    def waits(self, connection: C) -> None:
        """``connection`` waits for (the rest of) a request: last in line, unless already in it."""
        if connection in self.address_of and connection not in self.waiting:
            self.waiting[connection] = None

    def busy(self, connection: C) -> None:
        """``connection`` has delivered its request: not to be closed for a new one."""
        self.waiting.pop(connection, None)

    def release(self, connection: C) -> None:
        """``connection`` is closed (or closing): forget it."""
        if connection not in self.address_of:
            return
        address = self.address_of.pop(connection)
        self.waiting.pop(connection, None)
        if address is not None:
            left = self.by_address[address] - 1
            if left:
                self.by_address[address] = left
            else:
                del self.by_address[address]

    def note(self, reason: str) -> None:
        """Count a connection closed for ``reason``, for a warning line on the director's terminal:
        at once, then at most one every :data:`LOG_EVERY_S` with the counts since the last (a flood
        of thousands says so once, not thousands of times)."""
        self.closed[reason] += 1
        wait = self.logged_at + LOG_EVERY_S - time.monotonic()
        if wait <= 0:
            self.flush()
        elif not self.flush_due:
            self.flush_due = True
            asyncio.get_running_loop().call_later(wait, self.flush)

    def flush(self) -> None:
        """The warning line of the connections closed since the last one, if any."""
        self.flush_due = False
        if self.closed:
            said = ", ".join(f"{count} {reason}" for reason, count in sorted(self.closed.items()))
            log.warning("Connections closed: %s (%d open)", said, len(self.address_of))
            self.closed.clear()
            self.logged_at = time.monotonic()


def raise_open_files(ceiling: int = OPEN_FILES) -> int | None:
    """Raise this process's soft limit on open files towards its hard limit, at most to
    ``ceiling`` (a laptop's default of 1,024 would make ``accept()`` fail near 1,000 connections).
    Never fails: the limit as it then is, or ``None`` when unknown or unlimited."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = ceiling if hard == resource.RLIM_INFINITY else min(hard, ceiling)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return None if soft == resource.RLIM_INFINITY else int(soft)
    except (ImportError, OSError, ValueError):  # not on this system, or not allowed: serve anyway
        return None


def guarded_protocol(limits: Limits | None = None) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with the request timer and the caps of ``limits`` (this module's
    constants by default), for ``uvicorn.Config(http=...)``; its connections share one
    :class:`Ledger`, so make one class a server."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    chosen = limits or Limits()
    ledger: Ledger[Guarded] = Ledger(chosen)
    incomplete = (h11.IDLE, h11.SEND_BODY)

    class Guarded(H11Protocol):
        """One connection: admitted by the ledger or closed at once; its request timed."""

        #: the server's open connections (one ledger for every connection of this class)
        book = ledger
        #: the current request's deadline timer (``None``: off, or expired while a response was written)
        _timer: asyncio.TimerHandle | None = None
        #: a request has begun and is not yet whole
        _begun = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if not ledger.admit(self, self.client[0] if self.client else ""):
                transport.abort()  # no reader is ever added: nothing is read
                return
            self._begin()

        def connection_lost(self, exc: Exception | None) -> None:
            ledger.release(self)
            self._end()
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            self._follow()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._follow()

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            # the transport goes to another protocol: this one never hears of its end
            ledger.release(self)
            self._end()
            super().handle_websocket_upgrade(event)

        def drop(self) -> None:
            """Close now, pending output discarded; ``connection_lost`` follows (the application,
            if it waits for the body, is told ``http.disconnect``)."""
            self._end()
            if not self.transport.is_closing():
                self.transport.abort()

        def _follow(self) -> None:
            """After h11 has taken what came in (or a response ended): start, keep or stop the
            request's timer, and keep the ledger's line of waiting connections."""
            if self.transport.is_closing():
                return
            if self.conn.their_state in incomplete:
                ledger.waits(self)
                if not self._begun:
                    # a next request's first bytes (a kept-alive connection), or its head whole
                    if self.conn.their_state is h11.SEND_BODY or self.conn.trailing_data[0]:
                        self._begin()
                elif self._timer is None and not self._responding():
                    self._expire()  # its deadline passed while a response was being written
            else:  # the request is whole (or the connection done with): the timer is off
                ledger.busy(self)
                self._end()

        def _begin(self) -> None:
            self._begun = True
            self._timer = self.loop.call_later(chosen.request_s, self._expire)

        def _end(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._begun = False

        def _responding(self) -> bool:
            cycle = self.cycle
            return cycle is not None and cycle.response_started and not cycle.response_complete

        def _expire(self) -> None:
            self._timer = None
            if self.transport.is_closing() or self._responding():
                return  # a response is never cut: _follow closes the connection after it
            ledger.note(f"without a whole request in {chosen.request_s:g} s")
            ledger.release(self)
            self.drop()

    return Guarded
