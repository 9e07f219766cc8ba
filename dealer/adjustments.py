"""What the director records besides results (DESIGN §8): forfeits, deductions, withdrawals and
penalties, gathered in :class:`Adjustments`, which scoring applies and every report footnotes.
Pure domain code, no I/O; apart from :mod:`dealer.scoring` so that storing one result does not
load the scoring.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass


@dataclass(frozen=True)
class Forfeit:
    """``team`` forfeited match ``match`` of round ``round`` (弃权): the other team wins."""

    round: int
    match: str
    team: str
    reason: str = ""


@dataclass(frozen=True)
class Deduction:
    """Net level points (小分) added to ``team`` by the director, e.g. −2 for lateness (seed 002)."""

    round: int
    team: str
    net_level_points: int
    reason: str = ""
    #: Minutes late, for a lateness (recorded even when it costs nothing: ``net_level_points`` 0).
    minutes: int | None = None


@dataclass(frozen=True)
class Withdrawal:
    """``team`` left the event after round ``after_round`` (暂退; 0: before round 1): it is not
    paired from the next round, its played results stay. ``back_from``: the round it rejoined
    from (重加入), ``None`` while it stays out."""

    team: str
    after_round: int
    reason: str = ""
    back_from: int | None = None
    back_reason: str = ""

    def absent(self, round_number: int) -> bool:
        """Whether the team is out of round ``round_number``."""
        return self.after_round < round_number and (self.back_from is None or round_number < self.back_from)


#: What a director's penalty does (``dealer results penalty``), by kind: points of one board's
#: table before the conversion (boards), level points after it (boards: the match total; a level
#: race: one table's levels), a forced board result (判本盘负: boards, the board's table scored
#: as the defenders' points given; a level race: footnoted, its table result entered as played),
#: the match lost (判负, scored as the profile's forfeit), match points or 小分 off the
#: standings, a disqualification (ranked below every other team).
PENALTY_KINDS = ("points", "levels", "board", "match", "match_points", "net_levels", "disqualify")


@dataclass(frozen=True)
class Penalty:
    """A penalty (or, given a positive ``amount``, an award) of the director's to ``team`` in
    round ``round``'s match ``match``: what it does is :data:`PENALTY_KINDS`. ``choice`` names
    the option taken where the rules let a side choose (seed 001's 劳改: +2 levels or ±160
    points); ``warning``: the warning whose escalation step applied it."""

    round: int
    match: str
    team: str
    kind: str
    amount: int = 0
    table: str | None = None  # "A"/"B" (boards) or a level race's table number
    board: int | None = None
    choice: str | None = None
    reason: str = ""
    by: str | None = None
    warning: int | None = None
    id: int = 0
    #: The profile's ruling that gave it with others as one decision (``[rulings]``; seed 002
    #: 七.1 判负 + 罚两级), and the id of that ruling's first penalty (its group).
    ruling: str | None = None
    ruling_of: int | None = None

    def on(self, round_number: int, match_id: str) -> bool:
        return (self.round, self.match) == (round_number, match_id)


@dataclass(frozen=True)
class Adjustments:
    """What the director recorded besides results; every report footnotes each one."""

    forfeits: tuple[Forfeit, ...] = ()
    deductions: tuple[Deduction, ...] = ()
    withdrawals: tuple[Withdrawal, ...] = ()
    penalties: tuple[Penalty, ...] = ()

    def absent(self, round_number: int) -> frozenset[str]:
        """The teams withdrawn from round ``round_number`` (not paired in it)."""
        return frozenset(w.team for w in self.withdrawals if w.absent(round_number))

    def withdrawn(self) -> frozenset[str]:
        """The teams out of the event now (withdrawn and not rejoined)."""
        return frozenset(w.team for w in self.withdrawals if w.back_from is None)

    def net_level_points(self) -> dict[str, int]:
        """Net level points (小分) added to each team: deductions and 小分 penalties."""
        total: dict[str, int] = defaultdict(int)
        for deduction in self.deductions:
            total[deduction.team] += deduction.net_level_points
        for penalty in self.of_kind("net_levels"):
            total[penalty.team] += penalty.amount
        return dict(total)

    def match_points(self) -> dict[str, int]:
        """Match points added to each team by penalties (``match_points``)."""
        total: dict[str, int] = defaultdict(int)
        for penalty in self.of_kind("match_points"):
            total[penalty.team] += penalty.amount
        return dict(total)

    def disqualified(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.team for p in self.of_kind("disqualify")))

    def of_kind(self, *kinds: str) -> tuple[Penalty, ...]:
        return tuple(p for p in self.penalties if p.kind in kinds)

    def on_match(self, round_number: int, match_id: str) -> tuple[Penalty, ...]:
        """The penalties of one match, in the order recorded."""
        return tuple(p for p in self.penalties if p.on(round_number, match_id))

    def forfeiters(self, round_number: int, match_id: str) -> tuple[str, ...]:
        """The teams that forfeited the match or lost it by a penalty (判负)."""
        teams = [f.team for f in self.forfeits if (f.round, f.match) == (round_number, match_id)]
        teams += [p.team for p in self.of_kind("match") if p.on(round_number, match_id)]
        return tuple(dict.fromkeys(teams))
