"""The next round of a paired event, whatever its format: one function over plain values.

:func:`next_round` takes the event (with the rounds paired so far), the scored results and the
standings, and returns round ``number`` as a :class:`~dealer.tournament.PairedRound`. Storing
it, and refusing to pair over missing results, is :mod:`dealer.app.rounds`' work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from dealer.errors import UserError
from dealer.event import Event
from dealer.tournament import PairedRound, Pairing, swiss
from dealer.tournament.knockout import BracketOrder
from dealer.tournament.round_robin import grouped_round_robin


class PairingError(UserError, ValueError):
    """A round cannot be paired now (a result it depends on is missing, a round out of range)."""


class Standing(Protocol):
    """A team's line in the standings as pairing reads it (a :class:`dealer.standings.Standing`
    is one): pairing needs no more, and so does not depend on how standings are made."""

    @property
    def team(self) -> str: ...

    @property
    def match_points(self) -> int: ...


def swiss_teams(event: Event, standings: Sequence[Standing]) -> list[swiss.SwissTeam]:
    """Each team as the Swiss pairing sees it, from the standings and the rounds paired so far."""
    opponents: dict[str, set[str]] = {t.id: set() for t in event.teams}
    sides: dict[str, str] = dict.fromkeys(opponents, "")
    byes: dict[str, int] = dict.fromkeys(opponents, 0)
    for rnd in event.rounds:
        for match in rnd.matches:
            opponents[match.home].add(match.away)
            opponents[match.away].add(match.home)
            sides[match.home] += "H"
            sides[match.away] += "A"
        for team in rnd.byes:
            byes[team] += 1
    clubs = {t.id: t.club for t in event.teams}
    return [
        swiss.SwissTeam(
            s.team, s.match_points, position, frozenset(opponents[s.team]),
            sides[s.team].count("H"), sides[s.team].count("A"), sides[s.team], byes[s.team], clubs[s.team])
        for position, s in enumerate(standings, start=1)
    ]


def next_round(
    event: Event,
    number: int,
    standings: Sequence[Standing],
    *,
    lots_key: bytes | None = None,
    winners: Mapping[str, str] | None = None,
    bracket_order: BracketOrder | None = None,
    absent: frozenset[str] = frozenset(),
) -> PairedRound:
    """Round ``number`` of ``event`` (whose ``rounds`` are those paired before it).

    ``absent``: teams withdrawn from this round (a Swiss pairs the others; a round robin keeps
    its table, and a team drawn against an absent one has a bye).

    ``lots_key``: the event key, for a Swiss round 1 drawn by lots. ``winners``: knockout slot →
    the team that went through, for every knockout match played so far. ``bracket_order``: a
    knockout's bracket order (``dealer.resources.load_bracket_order(event.format.bracket)``).
    """
    kind = event.format.kind
    if kind == "round-robin":
        schedule = grouped_round_robin([t.id for t in event.seeded_teams()], event.format.groups,
                                       event.format.cycles)
        robin = schedule[number - 1]
        byes = [t for t in robin.byes if t not in absent]
        pairings = []
        for m in robin.matches:
            if m.home in absent or m.away in absent:
                byes.extend(t for t in (m.home, m.away) if t not in absent)
            else:
                pairings.append(Pairing(m.home, m.away, group=m.group if event.format.groups > 1 else None))
        return PairedRound(tuple(pairings), tuple(byes))
    if kind == "swiss":
        if number == 1:
            first = event.format.first_round
            clubs = {t.id: t.club for t in event.teams} if event.format.avoid_same_club else None
            present = [t for t in event.teams if t.id not in absent]
            if first == "pinyin":
                return swiss.first_round_pinyin([(t.id, t.name) for t in present], clubs)
            if first == "split":
                return swiss.first_round_split([t.id for t in event.seeded_teams() if t.id not in absent], clubs)
            if lots_key is None:
                raise PairingError("pairing.key_needed",
                                   field="key_file")
            return swiss.first_round_lots([t.id for t in present],
                                          swiss.lots_material(lots_key, event.id, number), clubs)
        return swiss.pair_round(swiss_teams(event, [s for s in standings if s.team not in absent]),
                                event.format.avoid_same_club)
    if kind == "knockout":
        from dealer.tournament.knockout_round import knockout_round

        if bracket_order is None:
            raise ValueError("a knockout round is paired over its bracket order: pass bracket_order")
        return knockout_round(event, number, winners or {}, bracket_order)
    raise PairingError("pairing.rounds_are_listed", kind=kind)
