"""The director's console: the round grid and the director's actions, each the use case its
command-line command calls."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from dealer.app import live

if TYPE_CHECKING:
    from dealer.serve.app import Server


def grid_context(session: Any, round_number: int) -> dict[str, Any]:
    grid = live.round_grid(session, round_number)
    return {"kind": "console", "round": round_number, "counts": grid.counts(),
            "oldest_unconfirmed": grid.oldest_unconfirmed, "flags": grid.flags,
            "sheets": [{"round": s.sheet.id.round, "match": s.sheet.id.match, "table": s.sheet.id.table,
                        "slots": {k: v.state for k, v in s.slots.items()}, "locked": s.locked,
                        "closed": s.closed, "devices": s.devices, "last_contact": s.last_contact}
                       for s in grid.sheets]}


async def page(server: Server, request: Request, lang: str, who: str) -> Response:
    def build(session: Any) -> dict[str, Any]:
        number = int(request.query_params.get("round") or live.open_round(session) or 1)
        return grid_context(session, number)
    context = await server.live.run(build)
    return JSONResponse(context)


async def action(server: Server, request: Request, lang: str, who: str) -> Response:
    return JSONResponse({"ok": False}, status_code=404)
