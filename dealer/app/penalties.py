"""Penalties and warnings (seed 001 §8, seed 002 §六–七), stored as data in the event's hash chain.

A penalty (``dealer results penalty``) is one of :data:`dealer.scoring.PENALTY_KINDS` given to a
team in a match of a round, always with a reason and who gave it; a warning (``dealer results
warn``) is logged per player and team, and the profile's ``[warnings]`` escalation names the
step the n-th one applies (seed 002: the 2nd 判本盘负 + 罚一级, the 3rd 此轮判负), which is stored
as penalties naming the warning. Nothing is deleted: ``--withdraw`` appends an ``undo`` row. The
scoring reads them as :class:`dealer.scoring.Penalty` (:func:`stored_penalties`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dealer.adjustments import PENALTY_KINDS, Penalty
from dealer.app.lineups import lineup_text, stored_lineups
from dealer.app.played import RoundError, team_match
from dealer.errors import Phrase, quote
from dealer.event import Event
from dealer.scoring import TABLES
from dealer.store.db import ResultsStore

if TYPE_CHECKING:
    from dealer.app.session import EventSession


def penalty_table(table: str | None) -> str | None:
    """A penalty's or a warning's table as the director writes it, in the form it is stored and
    checked in: a boards event's ``a``/``b`` upper-cased, a level race's number left as is."""
    return table.upper() if table and not table.isdigit() else table


@dataclass(frozen=True)
class PenaltyAsk:
    """A penalty as the director asks for it (checked by :func:`_checked` against the event);
    ``table`` as written (:func:`penalty_table`)."""

    kind: str
    amount: int = 0
    table: str | None = None
    board: int | None = None
    choice: str | None = None


#: Each kind's words (a lost board has two: with and without the points it is scored as).
PHRASES = {"points": Phrase("penalty.points"), "levels": Phrase("penalty.levels"), "board": Phrase("penalty.board"),
           "match": Phrase("penalty.match"), "match_points": Phrase("penalty.match_points"),
           "net_levels": Phrase("penalty.net_levels"), "disqualify": Phrase("penalty.disqualify")}


def penalty_phrase(p: Penalty) -> Phrase:
    """What ``p`` does, in words (a footnote's middle; the command's outcome)."""
    amount = f"{p.amount:+d}"
    where = Phrase.of("penalty.at_board", table=p.table, board=p.board) if p.board else \
        Phrase.of("penalty.at_table", table=p.table) if p.table else ""
    if p.kind == "board":
        what = Phrase.of("penalty.board_points", where=where, points=p.amount) if p.board else \
            Phrase.of("penalty.board", where=where)
    else:
        what = dataclasses.replace(PHRASES[p.kind], params={"amount": amount, "where": where})
    choice = Phrase.of("penalty.choice", choice=p.choice) if p.choice else ""
    return Phrase.of("penalty.what", what=what, choice=choice)


def penalty_note(p: Penalty) -> Phrase:
    """The footnote of ``p`` on every report, match sheet and the site."""
    return Phrase.of("penalty.note", round=p.round, match=p.match, team=p.team, what=penalty_phrase(p),
                     reason=p.reason, by=p.by or "-",
                     warning=Phrase.of("penalty.from_warning", id=p.warning) if p.warning else "")


def penalty_notes(penalties: Sequence[Penalty]) -> list[Phrase]:
    """The footnotes of ``penalties``: one each, except the penalties of one ruling (a profile's
    ``[rulings]``, seed 002 七.1 判负 + 罚两级), which are one decision and one footnote."""
    groups: dict[int, list[Penalty]] = {}
    order: list[Penalty | int] = []
    for p in penalties:
        if p.ruling is not None and p.ruling_of is not None:
            if p.ruling_of not in groups:
                groups[p.ruling_of] = []
                order.append(p.ruling_of)
            groups[p.ruling_of].append(p)
        else:
            order.append(p)
    notes = []
    for item in order:
        if isinstance(item, Penalty):
            notes.append(penalty_note(item))
            continue
        group = groups[item]
        first = group[0]
        what = Phrase.of("penalty.ruling_what", ruling=first.ruling or "", what=[penalty_phrase(p) for p in group])
        notes.append(Phrase.of("penalty.note", round=first.round, match=first.match, team=first.team, what=what,
                               reason=first.reason, by=first.by or "-", warning=""))
    return notes


def _checked(event: Event, ask: PenaltyAsk) -> dict[str, Any]:
    """The stored data of ``ask``, refused by name where the event cannot apply it."""
    kind = ask.kind
    if kind not in PENALTY_KINDS:
        raise RoundError("penalty.unknown_kind", field="kind", kind=kind, known=", ".join(PENALTY_KINDS))
    data: dict[str, Any] = {}
    needs_board = kind == "points" or (kind == "board" and not event.levels)
    needs_table = needs_board or (event.levels and kind in ("levels", "board"))
    table = penalty_table(ask.table)
    if needs_table and table is None:
        raise RoundError("penalty.needs_table", field="table", kind=kind)
    if table is not None:
        tables = TABLES if not event.levels else tuple(str(t) for t in range(1, event.tables + 1))
        if table not in tables:
            raise RoundError("penalty.bad_table", field="table", table=table, tables=", ".join(tables))
        data["table"] = table
    if needs_board:
        if ask.board is None:
            raise RoundError("penalty.needs_board", field="board", kind=kind)
        if not 1 <= ask.board <= event.boards_per_set:
            raise RoundError("penalty.bad_board", field="board", board=ask.board, boards=event.boards_per_set)
        data["board"] = ask.board
    if kind == "points" and event.levels:
        raise RoundError("penalty.points_in_level_race", field="points")
    if kind == "points" and (not ask.amount or ask.amount % 5):
        raise RoundError("penalty.points_multiple_of_5", field="points", amount=ask.amount)
    if kind == "board" and not event.levels:
        top = 100 * event.decks
        if not 0 <= ask.amount <= top or ask.amount % 5:
            raise RoundError("penalty.bad_board_points", field="as_points", amount=ask.amount, top=top)
    if kind in ("levels", "match_points", "net_levels") and not ask.amount:
        raise RoundError("penalty.needs_amount", field=kind, kind=kind)
    if kind in ("points", "levels", "match_points", "net_levels") or (kind == "board" and not event.levels):
        data["amount"] = ask.amount
    if ask.choice:
        data["choice"] = ask.choice.strip()
    return data


def check_official(event: Event, by: str | None, *, committee: bool = False) -> None:
    """Refuse ``by`` unless it names one of the event's referees (``[officials]``; ``committee``:
    or a member of its arbitration committee, who may withdraw a penalty an appeal overturned),
    listing them; an event without a roster takes any name."""
    officials = event.organization.officials
    roster = officials.roster + (tuple(a for a in officials.arbitration if a not in officials.roster)
                                 if committee else ())
    if roster and (by or "").strip() not in roster:
        raise RoundError("organization.not_an_official", field="by", name=quote(by or ""),
                         roster="、".join(roster))


def _reason(reason: str) -> str:
    if not reason.strip():
        raise RoundError("round.reason_required", field="reason")
    return reason.strip()


def record_penalty(session: EventSession, number: int, match_id: str | None, team: str, ask: PenaltyAsk,
                   reason: str, entered_by: str | None = None, *, check_roster: bool = False) -> Phrase:
    """Give ``team`` the penalty ``ask`` in its match of round ``number`` (appended, with the reason);
    ``check_roster``: ``entered_by`` must be one of the event's referees (:func:`check_official`)."""
    event = session.declared
    if check_roster:
        check_official(event, entered_by)
    why = _reason(reason)
    data = _checked(event, ask)
    store = session.writable_store()
    with store.transaction():
        match = team_match(event, store, number, team, match_id)
        penalty_id = store.insert_penalty(ask.kind, number, match.id, team, data, reason=why, entered_by=entered_by)
    return Phrase.of("penalty.recorded", id=penalty_id, note=penalty_note(_as_penalty(
        number, match.id, team, ask.kind, data, why, entered_by, None, penalty_id)))


def _as_penalty(number: int, match: str, team: str, kind: str, data: dict[str, Any], reason: str,
                by: str | None, warning: int | None, penalty_id: int) -> Penalty:
    return Penalty(number, match, team, kind, int(data.get("amount", 0)), data.get("table"), data.get("board"),
                   data.get("choice"), reason, by, warning, penalty_id)


def record_ruling(session: EventSession, number: int, match_id: str | None, team: str, name: str,
                  reason: str, entered_by: str | None = None, *, table: str | None = None,
                  board: int | None = None, as_points: int | None = None) -> Phrase:
    """Give ``team`` the profile's ruling ``name`` (``[rulings]``; seed 002 七.1: 判负 + 罚两级) in
    its match of round ``number``: one decision with one reason, its penalties appended together
    (each naming the ruling and its first penalty), footnoted as one. Every penalty is checked
    before any is written; ``--withdraw`` of the team's penalties of the round takes them all."""
    event = session.declared
    why = _reason(reason)
    ruling = event.profile.rulings.get(name.strip())
    if ruling is None:
        raise RoundError("penalty.unknown_ruling", field="ruling", ruling=quote(name), profile=event.profile.id,
                         known=", ".join(event.profile.rulings) or "–")
    if any(kind == "board" for kind, _a in ruling.apply) and not event.levels and as_points is None:
        raise RoundError("penalty.ruling_needs_points", field="as_points", ruling=ruling.name)
    asks = [PenaltyAsk(kind, amount if kind != "board" or event.levels else (as_points or 0), table,
                       board if kind in ("points", "board") else None) for kind, amount in ruling.apply]
    checked = [(ask, _checked(event, ask)) for ask in asks]
    store = session.writable_store()
    applied = []
    with store.transaction():
        match = team_match(event, store, number, team, match_id)
        first: int | None = None
        for ask, stored in checked:
            stored["ruling"] = ruling.name
            if first is not None:
                stored["ruling_of"] = first
            penalty_id = store.insert_penalty(ask.kind, number, match.id, team, stored, reason=why,
                                              entered_by=entered_by)
            first = penalty_id if first is None else first
            applied.append(penalty_phrase(_as_penalty(number, match.id, team, ask.kind, stored, why, entered_by,
                                                      None, penalty_id)))
    return Phrase.of("penalty.ruling_recorded", ruling=ruling.name, clause=ruling.clause, id=first, round=number,
                     match=match.id, team=team, applied=applied, reason=why)


def withdraw_penalty(session: EventSession, number: int, team: str, kind: str | None, reason: str,
                     entered_by: str | None = None, *, check_roster: bool = False) -> Phrase:
    """Withdraw the penalties in force of ``team`` in round ``number`` (``kind``: only those): an
    ``undo`` row naming each, with the reason; ``check_roster``: ``entered_by`` must be a referee
    or a member of the arbitration committee (:func:`check_official`)."""
    if check_roster:
        check_official(session.declared, entered_by, committee=True)
    why = _reason(reason)
    store = session.writable_store()
    with store.transaction():
        found = [p for p in store.penalties() if p.kind in PENALTY_KINDS and not p.undone and p.round == number
                 and p.team == team and (kind is None or p.kind == kind)]
        if not found:
            raise RoundError("penalty.nothing_to_withdraw", field="team", team=quote(team), number=number)
        for row in found:
            store.insert_penalty("undo", number, row.match, team, {}, reason=why, undoes=row.id,
                                 entered_by=entered_by)
    return Phrase.of("penalty.withdrawn", count=len(found), team=team, round=number, reason=why)


def record_warning(session: EventSession, number: int, match_id: str | None, team: str, player: str,
                   reason: str, entered_by: str | None = None, *, table: str | None = None,
                   board: int | None = None, as_points: int | None = None, check_roster: bool = False) -> Phrase:
    """Warn ``player`` of ``team`` in round ``number``; the profile's escalation step for the
    warning's count (per player or per team, over the event) is applied as penalties naming the
    warning, and said. ``table``/``board``/``as_points``: where a step's penalty applies;
    ``check_roster``: as :func:`record_penalty`."""
    event = session.declared
    if check_roster:
        check_official(event, entered_by)
    why = _reason(reason)
    table = penalty_table(table)
    player = player.strip()
    if not player:
        raise RoundError("penalty.needs_player", field="player")
    registered = event.team(team).players if team in {t.id for t in event.teams} else ()
    if registered and player not in registered:
        raise RoundError("penalty.unknown_player", field="player", player=quote(player), team=quote(team),
                         players=", ".join(registered))
    rule = event.profile.warnings
    store = session.writable_store()
    with store.transaction():
        match = team_match(event, store, number, team, match_id)
        table = _players_table(store, number, team, player, table)
        earlier = [w for w in store.penalties() if w.kind == "warning" and not w.undone and w.team == team
                   and (rule.counted == "team" or w.data.get("player") == player)]
        nth = len(earlier) + 1
        step = rule.step(nth)
        asks = [PenaltyAsk(kind, amount if kind != "board" or event.levels else (as_points or 0),
                           table, board if kind in ("points", "board") else None)
                for kind, amount in (step.apply if step else ())]
        if step and any(k == "board" for k, _a in step.apply) and not event.levels and as_points is None:
            raise RoundError("penalty.step_needs_points", field="as_points", nth=nth)
        checked = [(ask, _checked(event, ask)) for ask in asks]  # every step refused before anything is written
        data: dict[str, Any] = {"player": player, "nth": nth, "counted": rule.counted}
        if table is not None:
            data["table"] = str(table)
        if board is not None:
            data["board"] = board
        warning_id = store.insert_penalty("warning", number, match.id, team, data, reason=why,
                                          entered_by=entered_by)
        applied = []
        for ask, stored in checked:
            stored["warning"] = warning_id
            penalty_id = store.insert_penalty(ask.kind, number, match.id, team, stored, reason=why,
                                              entered_by=entered_by)
            applied.append(penalty_phrase(_as_penalty(number, match.id, team, ask.kind, stored, why, entered_by,
                                                      warning_id, penalty_id)))
    counted = Phrase.of("penalty.counted_team" if rule.counted == "team" else "penalty.counted_player",
                        nth=nth, player=player, team=team)
    said = Phrase.of("penalty.warned", id=warning_id, round=number, player=player, team=team, nth=nth,
                     counted=counted, reason=why)
    if not applied:
        return Phrase.of("penalty.warning_only", warned=said, profile=event.profile.id)
    return Phrase.of("penalty.warning_escalated", warned=said, profile=event.profile.id, nth=nth, applied=applied)


def _players_table(store: ResultsStore, number: int, team: str, player: str, table: str | None) -> str | None:
    """The table a warning's step applies at: the one ``team``'s line-up for the round puts
    ``player`` at (a table given otherwise is refused, naming the line-up); as given when the
    round has no line-up of the team or the player is not in it."""
    lineup = stored_lineups(store).get(number, team)
    seat = next((t for t, pair in lineup.tables if player in pair), None) if lineup is not None else None
    if lineup is None or seat is None:
        return table
    if table is not None and str(table) != seat:
        raise RoundError("penalty.not_at_table", field="table", table=table, player=quote(player), seat=seat,
                         number=number, team=team, lineup=lineup_text(lineup))
    return seat


def withdraw_warning(session: EventSession, number: int, team: str, player: str, reason: str,
                     entered_by: str | None = None) -> Phrase:
    """Withdraw ``player``'s last warning in round ``number`` and the penalties its step applied."""
    why = _reason(reason)
    store = session.writable_store()
    with store.transaction():
        rows = store.penalties()
        warning = next((w for w in reversed(rows) if w.kind == "warning" and not w.undone and w.round == number
                        and w.team == team and w.data.get("player") == player.strip()), None)
        if warning is None:
            raise RoundError("penalty.no_warning_to_withdraw", field="player", player=quote(player),
                             team=quote(team), number=number)
        undone = [warning, *(p for p in rows if p.kind in PENALTY_KINDS and not p.undone
                             and p.data.get("warning") == warning.id)]
        for row in undone:
            store.insert_penalty("undo", number, row.match, team, {}, reason=why, undoes=row.id,
                                 entered_by=entered_by)
    return Phrase.of("penalty.warning_withdrawn", id=warning.id, player=player, team=team, round=number,
                     count=len(undone) - 1, reason=why)


def warning_log(store: ResultsStore | None) -> list[dict[str, Any]]:
    """Every warning in force, oldest first: round, match, team, player, its count, the reason."""
    if store is None:
        return []
    return [{"id": w.id, "round": w.round, "match": w.match, "team": w.team, "player": w.data.get("player"),
             "nth": w.data.get("nth"), "reason": w.reason, "by": w.entered_by, "at": w.at}
            for w in store.penalties() if w.kind == "warning" and not w.undone]
