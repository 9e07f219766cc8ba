"""The server's page contexts: plain, JSON-ready dicts; each HTML page is rendered from the dict its
JSON twin holds (as the static site does), in the language asked for.
"""

from __future__ import annotations

from typing import Any

from dealer.app import live
from dealer.app.lineups import stored_lineups
from dealer.app.live import now
from dealer.app.session import EventSession
from dealer.race import level_names
from dealer.render.strings import Strings
from dealer.words import local_time

SIDE_OF_SEAT = {"N": "NS", "S": "NS", "E": "EW", "W": "EW"}


def _team(session: EventSession, team_id: str) -> dict[str, str]:
    return {"id": team_id, "name": session.event.team(team_id).name}


def result_sentence(session: EventSession, sheet: live.Sheet, slot: str, fields: dict[str, Any],
                    t: Strings) -> str:
    """A result as a sentence naming the teams and the level change (never a bare number)."""
    event = session.event
    if slot == live.LEVEL_SLOT:
        home, away = event.team(sheet.match.home).name, event.team(sheet.match.away).name
        said = t.fmt("levels_sentence", home=home, away=away, home_level=fields.get("home_level", "?"),
                     away_level=fields.get("away_level", "?"))
        last = fields.get("last_game")
        return said + (t.fmt("last_game_won", team=home if last == "home" else away) if last else "")
    if "defenders_points" not in fields:
        return str(t.stored_elsewhere)
    board = event.board(sheet.match.set, int(slot))
    seats = sheet.match.seats(sheet.id.table)
    declarer_side = SIDE_OF_SEAT[board.declarer]
    defender_side = "EW" if declarer_side == "NS" else "NS"
    declarer = event.team(seats[declarer_side]).name
    defenders = event.team(seats[defender_side]).name
    points = int(fields["defenders_points"])
    result = event.profile.level_points(event.decks, points)
    if result.declarer_levels:
        change = t.fmt("goes_up", team=declarer, n=result.declarer_levels)
    elif result.defenders_levels:
        change = t.fmt("goes_up", team=defenders, n=result.defenders_levels)
    else:
        change = t.fmt("takes_over", team=defenders)
    return t.fmt("board_sentence", declarer=declarer, seat=t["seat_" + board.declarer],
                 defenders=defenders, points=points, change=change)


def match_result(session: EventSession, sheet: live.Sheet) -> dict[str, Any] | None:
    """The match's result for its two teams' sheets, once both its tables have every result
    stored (before: ``None``): each team's level points and match points."""
    if sheet.id.match not in live.matches_done(session, sheet.id.round):
        return None
    score = session.scored().score(sheet.id.round, sheet.id.match)
    if not score.complete:
        return None
    return {"home": _team(session, score.home), "away": _team(session, score.away),
            "home_levels": score.home_levels, "away_levels": score.away_levels,
            "home_match_points": score.home_match_points, "away_match_points": score.away_match_points}


def table_page(session: EventSession, key: bytes, sheet: live.Sheet, device: live.Device, t: Strings,
               *, double_entry: bool = False) -> dict[str, Any]:
    """The table's page: the sheet, both teams and their line-up, every result's state."""
    event = session.event
    state = live.sheet_state(session, sheet)
    lineups = stored_lineups(session.store)
    names = event.table_names(sheet.match)
    slots = []
    for slot in sheet.slots:
        s = state.slots[slot]
        here = s.device == device.id if s.device else False
        # double entry: the other side enters on its own, without seeing the first entry
        hidden = double_entry and s.state in ("entered", "conflict") and not here
        fields = {} if hidden else s.fields
        row: dict[str, Any] = {"slot": slot, "state": s.state, "fields": fields, "flagged": s.flagged,
                               "entered_here": here, "disputed": None if hidden else s.disputed}
        if slot != live.LEVEL_SLOT:
            board = event.board(sheet.match.set, int(slot))
            seats = sheet.match.seats(sheet.id.table)
            side = SIDE_OF_SEAT[board.declarer]
            row.update({"board": int(slot), "declarer": board.declarer, "declarer_team": event.team(seats[side]).name,
                        "level": board.level})
        row["sentence"] = result_sentence(session, sheet, slot, fields, t) if fields else None
        row["other_table"] = other = live.other_table(session, sheet, slot) if s.state == "confirmed" else None
        row["other_sentence"] = result_sentence(session, sheet, slot, other, t) if other is not None else None
        slots.append(row)
    closed = live.closed_reason(session, sheet)
    line = {}
    for team in (sheet.scorer, sheet.confirmer):
        lineup = lineups.get(sheet.id.round, team)
        line[team] = list(lineup.pair(sheet.id.table)) if lineup is not None else []
    return {
        "kind": "table",
        "event": {"id": event.id, "name": event.name},
        "round": sheet.id.round, "match": sheet.id.match, "table": sheet.id.table,
        "table_name": names.get(sheet.id.table, sheet.id.table), "generation": sheet.id.generation,
        "levels": event.levels,
        "scorer": {**_team(session, sheet.scorer), "players": line[sheet.scorer],
                   "side": None if event.levels else "EW"},
        "confirmer": {**_team(session, sheet.confirmer), "players": line[sheet.confirmer],
                      "side": None if event.levels else "NS"},
        "mode": "double-entry" if double_entry else "team-code",
        #: why the sheet takes no entry (a forfeit, the event declared over): a phrase the face words
        "closed_reason": closed,
        "match_result": None if closed is not None else match_result(session, sheet),
        "slots": slots,
        "entered": [s["slot"] for s in slots if s["state"] == "entered"],
        #: boards waiting for confirmation that this device did not enter: it may be the other side's
        "entered_elsewhere": sum(1 for s in slots if s["state"] == "entered" and not s["entered_here"]),
        "missing": state.missing,
        "all_confirmed": state.all_confirmed,
        "recap": {"scorer": state.recap_scorer, "confirmer": state.recap_confirmer},
        "closed": state.closed,
        "locked": state.locked,
        "wrong_codes": state.wrong_codes,
        "devices": state.devices,
        "warnings": [f["kind"] for f in state.flags if f["kind"] == "devices"],
        "trumps": ["", "S", "H", "D", "C", "NT"],
        # a level race's form: the final levels from the profile's start (过A included) and the
        # last game's winner by team name
        "level_options": list(level_names(event.profile.level_race.start)) if event.levels else [],
        "last_game_options": [["", ""], ["home", event.team(sheet.match.home).name],
                              ["away", event.team(sheet.match.away).name]] if event.levels else [],
        "data_time": local_time(now(), event.timezone),
    }
