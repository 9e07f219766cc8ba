"""The server's guards, as one ASGI middleware (docs/serve.md, "Threat model"): a Host allow-list
(against DNS rebinding), the Origin of unsafe methods (against cross-site posts), bounded request
bodies, a per-address token bucket on writes, and the headers every answer carries.

The pages' referrer policy is ``same-origin``: a browser then sends the page's own ``Origin`` with
every form it posts back (``no-referrer`` made Chromium send ``Origin: null``, which the guard
must refuse: a sandboxed or cross-site frame sends that too), and no ``Referer`` to any other site
(the sheet's tag is in its path; the pages link nowhere else anyway).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Largest request body (a form of one table's 16 boards is well under 4 KB).
BODY_LIMIT = 16 * 1024
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
HEADERS = [
    (b"cache-control", b"no-store"),
    (b"referrer-policy", b"same-origin"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy",
     b"default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self';"
     b" form-action 'self'; base-uri 'none'; frame-ancestors 'none'"),
]


@dataclass
class Bucket:
    tokens: float
    at: float


@dataclass
class RateLimit:
    """A token bucket per address: ``rate`` writes a second, ``burst`` at once."""

    rate: float = 10.0
    burst: float = 40.0
    buckets: dict[str, Bucket] = field(default_factory=dict)

    def allow(self, address: str) -> bool:
        moment = time.monotonic()
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) > 10_000:  # bounded: forget the idle ones
                self.buckets = {a: b for a, b in self.buckets.items() if moment - b.at < 60}
            bucket = self.buckets[address] = Bucket(self.burst, moment)
        bucket.tokens = min(self.burst, bucket.tokens + (moment - bucket.at) * self.rate)
        bucket.at = moment
        if bucket.tokens < 1:
            return False
        bucket.tokens -= 1
        return True


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The Host headers a request may carry: the bound address and localhost, with the port (and
    without it on port 80)."""
    names = {host, "127.0.0.1", "localhost", "[::1]"}
    if host in ("0.0.0.0", "::"):
        names.discard(host)
    found = {f"{name}:{port}" for name in names}
    if port == 80:
        found |= names
    return frozenset(found)


def same_origin(headers: dict[str, str], host: str) -> bool:
    """Whether an unsafe request comes from the server's own pages: its ``Origin`` is the server
    (``null``, another port or scheme, or another site is refused); without one (a program, not a
    browser: browsers send it with every post), a ``Referer`` that names another origin is refused;
    ``Sec-Fetch-Site``, where the browser sends it (localhost), must not say ``cross-site`` or
    ``same-site``."""
    own = f"http://{host}"
    origin = headers.get("origin")
    if origin is not None:
        return origin == own
    referer = headers.get("referer")
    if referer is not None and referer != own and not referer.startswith(own + "/"):
        return False
    return headers.get("sec-fetch-site", "same-origin") in ("same-origin", "none")


class Guard:
    """The middleware. ``refuse(status, key)`` words a refusal as the app does (a small page)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str], limit: RateLimit,
                 refuse: Callable[[int, str, str], tuple[bytes, bytes]]) -> None:
        self.app = app
        self.hosts = frozenset(hosts)
        self.limit = limit
        self.refuse = refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        lang = "en" if b"lang=en" in scope.get("query_string", b"") else "zh"

        async def answer(status: int, key: str) -> None:
            content_type, body = self.refuse(status, key, lang)
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
                                    *HEADERS]})
            await send({"type": "http.response.body", "body": body})

        if host not in self.hosts:
            await answer(400, "serve.foreign_host")
            return
        method = scope["method"]
        if method not in SAFE_METHODS:
            if not same_origin(headers, host):
                await answer(403, "serve.foreign_origin")
                return
            length = headers.get("content-length")
            if length is not None and (not length.isdigit() or int(length) > BODY_LIMIT):
                await answer(413, "serve.too_large")
                return
            client = scope.get("client")
            if not self.limit.allow(client[0] if client else "?"):
                await answer(429, "serve.too_many")
                return
            receive = _bounded(receive)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        try:
            await self.app(scope, receive, with_headers)
        except _TooLarge:
            await answer(413, "serve.too_large")


class _TooLarge(Exception):
    pass


def _bounded(receive: Receive) -> Receive:
    """A body without a length (chunked) is cut at :data:`BODY_LIMIT` too."""
    seen = 0

    async def bounded() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > BODY_LIMIT:
                raise _TooLarge()
        return message

    return bounded
