"""Line-ups: ``dealer lineup`` records who of a team plays at which table of its match in a round.

A line-up is checked against the team's registered players (:func:`dealer.lineups.parse_lineup`)
and stored in the results database (table ``lineups``, in the hash chain). Before the round's
first result a new line-up replaces the team's last one as a recorded change (it supersedes it,
with the reason); after it, a change is refused (seed 002 §八.3: 每一轮比赛过程中不得更换选手).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from dealer.app.played import team_match
from dealer.errors import Phrase
from dealer.event import Event
from dealer.lineups import Lineup, LineupError, Lineups, parse_lineup
from dealer.store.db import ResultsStore
from dealer.store.rows import LineupRow
from dealer.store.schema import BOARDS, LEVELS

if TYPE_CHECKING:
    from dealer.app.session import EventSession


def _lineup(row: LineupRow, replaced: tuple[Lineup, ...] = ()) -> Lineup:
    return Lineup(row.round, row.team, tuple((table, tuple(pair)) for table, pair in row.tables.items()),
                  row.id, row.entered_by, row.at, row.reason, replaced)


def stored_lineups(store: ResultsStore | None) -> Lineups:
    """The current line-up of each (round, team), each with the ones it replaced."""
    if store is None:
        return Lineups()
    every = store.lineups(history=True)
    by_id = {row.id: row for row in every}
    current: dict[tuple[int, str], Lineup] = {}
    for row in store.lineups():
        replaced: list[Lineup] = []
        before = row.supersedes
        while before is not None and before in by_id:
            replaced.insert(0, _lineup(by_id[before]))
            before = by_id[before].supersedes
        current[(row.round, row.team)] = _lineup(row, tuple(replaced))
    return Lineups(current)


def lineup_text(lineup: Lineup) -> str:
    """``A: 张伟, 王芳; B: 李雷, 韩梅`` (the same in every language: names and table names)."""
    return "; ".join(f"{table}: {', '.join(pair)}" for table, pair in lineup.tables)


def _first_result_at(store: ResultsStore, number: int) -> str | None:
    """When the round's first result was stored (any table, withdrawn ones too), or ``None``."""
    times = [row.entered_at for kind in (BOARDS, LEVELS) for row in store.history(kind, number)]
    return min(times) if times else None


def record_lineup(session: EventSession, number: int, team: str, given: Sequence[tuple[str, str]], *,
                  reason: str | None = None, entered_by: str | None = None) -> Phrase:
    """Record ``team``'s line-up for round ``number`` (``given``: each table with its players as
    typed). Refused for a round not paired, a team without a match in it, a player who is not
    the team's; a change is refused once the round has a result, and needs a reason before."""
    event: Event = session.declared
    lineup = parse_lineup(event, number, team, given)
    store = session.writable_store()
    with store.transaction():
        match = team_match(event, store, number, team)
        before = stored_lineups(store).get(number, team)
        text = lineup_text(lineup)
        if before is not None and before.tables == lineup.tables:
            return Phrase.of("outcome.lineup_unchanged", round=number, team=team, lineup=text)
        if before is not None:
            started = _first_result_at(store, number)
            if started is not None:
                raise LineupError("lineup.round_started", field="round", number=number, at=started, team=team,
                                  lineup=lineup_text(before))
            if not (reason or "").strip():
                raise LineupError("lineup.change_needs_reason", field="reason", number=number, team=team,
                                  lineup=lineup_text(before))
        tables = {table: list(pair) for table, pair in lineup.tables}
        store.insert_lineup(number, team, tables, supersedes=before.id if before is not None else None,
                            reason=(reason or "").strip() or None, entered_by=entered_by)
    if before is not None:
        return Phrase.of("outcome.lineup_changed", round=number, team=team, match=match.id,
                         was=lineup_text(before), lineup=text, reason=(reason or "").strip())
    return Phrase.of("outcome.lineup_recorded", round=number, team=team, match=match.id, lineup=text)


def round_lineups(session: EventSession, number: int) -> list[Lineup]:
    """The line-ups recorded for round ``number``, by team."""
    return session.lineups.of_round(number)
