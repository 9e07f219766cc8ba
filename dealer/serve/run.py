"""Starting ``dealer serve``: the address to bind, the lines it prints, and uvicorn."""

from __future__ import annotations

import socket
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dealer.errors import UserError

DEFAULT_PORT = 8000


def lan_address() -> str:
    """This machine's address on the network its default route leaves by (a UDP socket's own end
    once "connected"; nothing is sent)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere
        return str(probe.getsockname()[0])
    except OSError:
        raise UserError("serve.no_lan_address", field="host") from None
    finally:
        probe.close()


@dataclass(frozen=True)
class Binding:
    host: str
    port: int

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"


def binding(lan: bool, host: str | None, port: int | None, serve_url: str | None = None) -> Binding:
    """127.0.0.1 without ``lan``; with it, ``host``, else the event's ``serve_url`` host (where the
    printed sheets point), else the address of the default route (one interface, never every
    one). The port: ``port``, else the ``serve_url``'s, else 8000."""
    url = urllib.parse.urlsplit(serve_url) if serve_url else None
    if port is None:
        port = (url.port if url is not None else None) or DEFAULT_PORT
    if not lan:
        if host not in (None, "127.0.0.1", "localhost"):
            raise UserError("serve.host_needs_lan", field="host", host=host)
        return Binding("127.0.0.1", port)
    chosen = host or (url.hostname if url is not None and url.hostname else None) or lan_address()
    if chosen in ("0.0.0.0", "::"):
        raise UserError("serve.no_wildcard", field="host", host=chosen)
    return Binding(chosen, port)


def terminal_qr(text: str) -> str:
    """A QR code of ``text`` drawn in the terminal's block characters."""
    import io

    import qrcode

    code = qrcode.QRCode(border=1)
    code.add_data(text)
    out = io.StringIO()
    code.print_ascii(out=out, invert=True)
    return out.getvalue()


def serve(event_file: str | Path, boards_dir: str | None, bound: Binding, *, double_entry: bool = False,
          rate: float | None = None, said: Callable[[str], None] = print,
          started: Callable[[str, str], None] | None = None) -> None:
    """Serve the event until interrupted; ``started(url, director_link)`` once it listens.

    Connections are held by :mod:`dealer.serve.connections` (a request timer, a cap per address, a
    global cap that closes the longest-idle connection first), not by uvicorn's
    ``limit_concurrency``, which counts idle connections and answers 503 to every phone above it."""
    import uvicorn

    from dealer.serve.app import Live, create_app, new_director_link
    from dealer.serve.connections import Limits, guarded_protocol, raise_open_files
    from dealer.serve.security import RateLimit

    state = Live(event_file, boards_dir, double_entry=double_entry)
    try:
        token = state.executor.submit(lambda: new_director_link(state.session)).result()
        limit = RateLimit() if rate is None else RateLimit(rate=rate, burst=max(rate * 4, 1))
        app = create_app(state, bound.host, bound.port, rate=limit)
        link = f"{bound.url}/-/login?token={token}"
        limits = Limits.within(raise_open_files())
        config = uvicorn.Config(app, host=bound.host, port=bound.port, log_level="warning",
                                http=guarded_protocol(limits), ws="none", limit_concurrency=None,
                                timeout_graceful_shutdown=2,
                                h11_max_incomplete_event_size=16 * 1024, server_header=False,
                                proxy_headers=False)
        server = uvicorn.Server(config)
        if started is not None:
            original = server.startup

            async def startup(sockets: object = None) -> None:
                await original(sockets)  # type: ignore[arg-type]
                started(bound.url, link)
            server.startup = startup  # type: ignore[method-assign]
        server.run()
    finally:
        state.close()
