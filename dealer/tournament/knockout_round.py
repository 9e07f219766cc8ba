"""A knockout event's rounds and places from its event, its stored rounds and its scores.

The bridge between :class:`~dealer.tournament.knockout.Bracket` (which knows slots and winners
only) and the event: seeds from the team list, the bracket order (given: the caller loads the event's
``format.bracket`` with ``dealer.resources.load_bracket_order``; nothing here reads a file), and
each played match's winner from the scores (a drawn match decided by the profile's
``knockout_tie_breaks``).
"""

from __future__ import annotations

from collections.abc import Mapping

from dealer.event import Event
from dealer.scoring import ScoredEvent
from dealer.tournament import PairedRound, Pairing
from dealer.tournament.knockout import Bracket, BracketError, BracketOrder


def bracket(event: Event, order: BracketOrder) -> Bracket:
    """The event's bracket over ``order`` (the bracket order its ``format.bracket`` names)."""
    return Bracket([t.id for t in event.seeded_teams()],
                   "double" if event.format.elimination == "double" else "single",
                   "single" if event.format.grand_final == "single" else "reset",
                   order, third_place=event.format.third_place)


def winners(scored: ScoredEvent) -> dict[str, str]:
    """Knockout slot → the team that went through, for every complete match."""
    event = scored.event
    seed_rank = {t.id: i for i, t in enumerate(event.seeded_teams(), start=1)}
    found = {}
    for rnd in event.rounds:
        for match in rnd.matches:
            winner = scored.winner(rnd.number, match.id, seed_rank)
            if match.slot and winner is not None:
                found[match.slot] = winner
    return found


def knockout_round(event: Event, number: int, slot_winners: Mapping[str, str], order: BracketOrder) -> PairedRound:
    """Round ``number``: its matches (home = the better seed) and the teams with a bye."""
    found = bracket(event, order).round(number, slot_winners)
    return PairedRound(tuple(Pairing(m.home, m.away, slot=m.slot) for m in found.matches),
                       tuple(b.team for b in found.byes))


def knockout_places(scored: ScoredEvent, order: BracketOrder) -> list[tuple[int, list[str]]]:
    """Final places so far (teams already knocked out, and the champion once known)."""
    return [(place, list(teams)) for place, teams in bracket(scored.event, order).places(winners(scored))]


def bracket_conflicts(scored: ScoredEvent, order: BracketOrder) -> list[str]:
    """Stored knockout rounds that today's results would pair differently: a result corrected
    after the next round was paired changed who went through. Each is named; empty when the
    stored bracket and the results agree."""
    event = scored.event
    drawn = bracket(event, order)
    found = winners(scored)
    played_in = {m.slot: rnd.number for rnd in event.rounds for m in rnd.matches if m.slot}
    conflicts = []
    for rnd in event.rounds[1:]:
        before = {slot: team for slot, team in found.items() if played_in.get(slot, 0) < rnd.number}
        try:
            expected = drawn.round(rnd.number, before)
        except BracketError as error:
            conflicts.append(f"round {rnd.number}: {error.message}")
            continue
        stored = sorted((m.slot or "", m.home, m.away) for m in rnd.matches)
        if stored != sorted((m.slot, m.home, m.away) for m in expected.matches):
            conflicts.append(f"round {rnd.number} was paired {', '.join(f'{h} v {a}' for _s, h, a in stored)}; "
                             "the results as they now stand would pair "
                             + ", ".join(f"{m.home} v {m.away}" for m in expected.matches))
    return conflicts
