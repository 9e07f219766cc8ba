"""The server's page contexts: plain, JSON-ready dicts; each HTML page is rendered from the dict its
JSON twin holds (as the static site does), in the language asked for.

A table's page words :func:`dealer.app.table_view.table_view`: what it shows and hides is decided
there.
"""

from __future__ import annotations

from typing import Any

from dealer.app import live
from dealer.app.live import now
from dealer.app.session import EventSession
from dealer.app.table_view import BoardResult, SlotView, TableResult, TableView, table_view
from dealer.event import Team
from dealer.render.strings import Strings
from dealer.scoring import TRUMPS
from dealer.words import local_time


def _team(team: Team) -> dict[str, str]:
    return {"id": team.id, "name": team.name}


def result_sentence(result: BoardResult | TableResult, t: Strings) -> str:
    """A result as a sentence naming the teams and the level change (never a bare number)."""
    if isinstance(result, TableResult):
        said = t.fmt("levels_sentence", home=result.home.name, away=result.away.name,
                     home_level=result.home_level or "?", away_level=result.away_level or "?")
        return said + (t.fmt("last_game_won", team=result.last_game.name) if result.last_game else "")
    change = result.change
    said = t.fmt("goes_up", team=change.team.name, n=change.levels) if change.levels else \
        t.fmt("takes_over", team=change.team.name)
    return t.fmt("board_sentence", declarer=result.declarer.name, seat=t["seat_" + result.seat],
                 defenders=result.defenders.name, points=result.points, change=said)


def _slot(slot: SlotView, t: Strings) -> dict[str, Any]:
    row: dict[str, Any] = {"slot": slot.slot, "state": slot.state, "fields": dict(slot.fields),
                           "flagged": slot.flagged, "entered_here": slot.entered_here,
                           "disputed": None if slot.disputed is None else dict(slot.disputed)}
    if slot.board is not None:
        row.update({"board": slot.board.number, "declarer": slot.board.declarer,
                    "declarer_team": slot.board.declarer_team.name, "level": slot.board.level})
    row["sentence"] = str(t.stored_elsewhere) if slot.stored_elsewhere else \
        result_sentence(slot.result, t) if slot.result is not None else None
    row["other_table"] = None if slot.other_table is None else dict(slot.other_table)
    row["other_sentence"] = result_sentence(slot.other_result, t) if slot.other_result is not None else None
    return row


def table_context(session: EventSession, view: TableView, t: Strings) -> dict[str, Any]:
    """The table's page, worded: the sheet, both teams and their line-up, every result's state."""
    event = session.event
    sheet = view.sheet
    result = view.match_result
    return {
        "kind": "table",
        "event": {"id": event.id, "name": event.name},
        "round": sheet.id.round, "match": sheet.id.match, "table": sheet.id.table,
        "table_name": view.table_name, "generation": sheet.id.generation,
        "levels": event.levels,
        "scorer": {**_team(view.scorer), "players": list(view.scorer_players), "side": view.scorer_side},
        "confirmer": {**_team(view.confirmer), "players": list(view.confirmer_players), "side": view.confirmer_side},
        "mode": "double-entry" if view.double_entry else "team-code",
        #: why the sheet takes no entry (a forfeit, the event declared over): a phrase the face words
        "closed_reason": view.closed_reason,
        "match_result": None if result is None else {
            "home": _team(result.home), "away": _team(result.away), "home_levels": result.home_levels,
            "away_levels": result.away_levels, "home_match_points": result.home_match_points,
            "away_match_points": result.away_match_points},
        "slots": [_slot(slot, t) for slot in view.slots],
        "entered": view.entered,
        #: boards waiting for confirmation that this device did not enter: it may be the other side's
        "entered_elsewhere": view.entered_elsewhere,
        "missing": list(view.missing),
        "all_confirmed": view.all_confirmed,
        "recap": {"scorer": view.recap_scorer, "confirmer": view.recap_confirmer},
        "closed": view.closed,
        "locked": view.locked,
        "wrong_codes": view.wrong_codes,
        "devices": view.devices,
        "warnings": list(view.warnings),
        "trumps": list(TRUMPS),
        # a level race's form: the final levels from the profile's start (过A included) and the
        # last game's winner by team name
        "level_options": list(view.level_options),
        "last_game_options": [["", ""], ["home", event.team(sheet.match.home).name],
                              ["away", event.team(sheet.match.away).name]] if event.levels else [],
        "data_time": local_time(now(), event.timezone),
    }


def table_page(session: EventSession, key: bytes, sheet: live.Sheet, device: live.Device, t: Strings,
               *, double_entry: bool = False) -> dict[str, Any]:
    """The table's page of ``sheet`` as ``device`` may see it (:func:`table_view`), worded."""
    return table_context(session, table_view(session, sheet, device, double_entry=double_entry), t)
