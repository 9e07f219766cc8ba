"""The live pages (standings, a round's results, a team's match), from the static site's page
contexts, each with its JSON twin, woken by the server-sent events of :meth:`Server.events`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.routing import Route

if TYPE_CHECKING:
    from dealer.serve.app import Server


def routes(server: Server) -> list[Route]:
    return []


def _unused(_: Any) -> None:
    return None
