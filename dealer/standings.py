"""Standings and the cross-table from scored matches, byes and adjustments.

Pure domain code. Teams are ranked by match points, then by the profile's tie-break chain: each
key names a function in :data:`TIE_BREAKS` (the registry; the names people read are in the word
catalog, :mod:`dealer.explain`). Every key's value is shown for every team, not only where it
decided something, so a player can check the order by hand. Teams still level after the whole
chain share a rank.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealer.adjustments import Adjustments
from dealer.errors import ScoringError
from dealer.event import Event
from dealer.scoring import MatchScore, ScoredEvent
from dealer.tournament.round_robin import serpentine_groups


class TieBreakError(ScoringError):
    """The profile's tie-break chain names a key the registry does not know."""


@dataclass(frozen=True)
class Standing:
    rank: int
    team: str
    match_points: int
    level_points_for: int
    level_points_against: int
    played: int
    tie_values: Mapping[str, float] = field(default_factory=dict)
    shared: bool = False  # rank shared with another team after the whole chain
    byes: int = 0
    adjustment: int = 0  # net level points added by the director (lateness: −2 a time in seed 002)

    @property
    def net_level_points(self) -> int:
        return self.level_points_for - self.level_points_against + self.adjustment

    def as_dict(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "team": self.team,
            "match_points": self.match_points,
            "level_points_for": self.level_points_for,
            "level_points_against": self.level_points_against,
            "net_level_points": self.net_level_points,
            "played": self.played,
            "byes": self.byes,
            "adjustment": self.adjustment,
            "shared": self.shared,
            "tie_breaks": {k: _json_number(v) for k, v in self.tie_values.items()},
        }


def _json_number(value: float) -> float | int | str:
    if value == float("inf"):
        return "inf"
    return int(value) if float(value).is_integer() else value


@dataclass(frozen=True)
class CrossCell:
    """One meeting seen from ``team``: its level points, the opponent's, its match points."""

    round: int
    match: str
    own: int
    other: int
    match_points: int
    complete: bool


@dataclass
class Records:
    """Per-team totals that every tie-break reads."""

    event: Event
    scores: Sequence[MatchScore]
    match_points: dict[str, int]
    level_points_for: dict[str, int]
    level_points_against: dict[str, int]
    adjustment: dict[str, int]
    played: dict[str, int]
    byes: dict[str, int]
    opponents: dict[str, list[str]]
    lots_seed: bytes
    #: Opponents left out of 对手分: withdrawn teams, when the profile says ``excluded``.
    uncounted: frozenset[str] = frozenset()

    def net(self, team: str) -> int:
        return self.level_points_for[team] - self.level_points_against[team] + self.adjustment[team]

    @functools.cached_property
    def scores_by_team(self) -> dict[str, list[MatchScore]]:
        """Each team's played scores, in order (a tie-break among a few teams reads only theirs)."""
        found: dict[str, list[MatchScore]] = {}
        for s in self.scores:
            found.setdefault(s.home, []).append(s)
            found.setdefault(s.away, []).append(s)
        return found


TieBreak = Callable[[Records, Sequence[str]], dict[str, float]]


def _per_team(function: Callable[[Records, str], float]) -> TieBreak:
    return lambda records, group: {t: function(records, t) for t in group}


def _head_to_head(records: Records, group: Sequence[str]) -> dict[str, float]:
    """Match points won in the meetings between the teams of ``group`` only."""
    members = set(group)
    own: dict[str, float] = dict.fromkeys(group, 0.0)
    by_team = records.scores_by_team
    for team in members:  # each meeting is met from both sides; each side adds its own points
        for s in by_team.get(team, ()):
            if s.home == team and s.away in members:
                own[team] += s.home_match_points
            elif s.away == team and s.home in members:
                own[team] += s.away_match_points
    return own


def _game_ratio(records: Records, team: str) -> float:
    against = records.level_points_against[team]
    if against == 0:
        return float("inf") if records.level_points_for[team] else 0.0
    return records.level_points_for[team] / against


def _lots(records: Records, team: str) -> float:
    """A drawing of lots anyone can repeat: SHA-256 of the event's public seed and the team id
    (the seed is the commitment once there is one: fixed before play, unknown before the deal)."""
    digest = hashlib.sha256(records.lots_seed + b"\x00" + team.encode("utf-8")).digest()
    return float(int.from_bytes(digest[:6], "big"))


#: The registry: tie-break key → function of (records, the teams level so far) → value per team,
#: larger ranks first.
TIE_BREAKS: dict[str, TieBreak] = {
    "net_level_points": _per_team(lambda r, t: r.net(t)),  # 小分
    "level_points_for": _per_team(lambda r, t: r.level_points_for[t]),
    "head_to_head": _head_to_head,
    "opponents_match_points": _per_team(lambda r, t: sum(r.match_points[o] for o in r.opponents[t]
                                                         if o not in r.uncounted)),  # 对手分
    # Seed 002: teams formed across 分会 rank first when all else is level.
    "mixed_club": _per_team(lambda r, t: 1.0 if r.event.team(t).mixed_club else 0.0),
    "game_ratio": _per_team(_game_ratio),
    "lots": _per_team(_lots),
}
#: Keys whose value depends on the group of tied teams (shown only where they were used).
GROUP_KEYS = frozenset({"head_to_head"})


def check_tie_breaks(chain: Sequence[str], profile_id: str) -> tuple[str, ...]:
    """The chain, every key known; raises :class:`TieBreakError` otherwise (an unknown key is
    refused, not skipped, so the chain printed is the chain used)."""
    for key in chain:
        if key not in TIE_BREAKS:
            raise TieBreakError(
                "standings.unknown_tie_break", profile_id=profile_id, name=key, known=', '.join(TIE_BREAKS))
    return tuple(chain)


def records(event: Event, scores: Sequence[MatchScore], adjustments: Adjustments | None = None,
            lots_seed: bytes = b"") -> Records:
    """Per-team totals of the played ``scores``, the rounds' byes and the deductions."""
    teams = [t.id for t in event.teams]
    adjustments = adjustments or Adjustments()
    found = Records(
        event, [s for s in scores if s.played], dict.fromkeys(teams, 0), dict.fromkeys(teams, 0),
        dict.fromkeys(teams, 0), dict.fromkeys(teams, 0), dict.fromkeys(teams, 0), dict.fromkeys(teams, 0),
        {t: [] for t in teams}, lots_seed or event.id.encode("utf-8"),
        adjustments.withdrawn() if event.profile.withdrawn_opponent == "excluded" else frozenset())
    for s in found.scores:
        for team in (s.home, s.away):
            own, other, points = s.side(team)
            found.match_points[team] += points
            found.level_points_for[team] += own
            found.level_points_against[team] += other
            found.played[team] += 1
            found.opponents[team].append(s.opponent(team))
    bye = event.profile.bye
    for rnd in event.rounds:
        for team in rnd.byes:
            found.byes[team] += 1
            found.match_points[team] += bye.match_points
            found.level_points_for[team] += bye.level_points
    for team, points in adjustments.net_level_points().items():
        if team in found.adjustment:  # a group's standings: the group's teams only
            found.adjustment[team] += points
    for team, points in (adjustments or Adjustments()).match_points().items():
        if team in found.match_points:  # a penalty of match points (standings deduction)
            found.match_points[team] += points
    return found


def records_before(scored: ScoredEvent, number: int) -> Records:
    """Per-team totals of the rounds before round ``number`` (what a Swiss pairing of round
    ``number`` was made from: the pairings sheet shows each team's match points and 小分)."""
    event = dataclasses.replace(scored.event, rounds=tuple(r for r in scored.event.rounds if r.number < number))
    adjustments = Adjustments(tuple(f for f in scored.adjustments.forfeits if f.round < number),
                              tuple(d for d in scored.adjustments.deductions if d.round < number))
    return records(event, [s for s in scored.scores if s.round < number], adjustments)


def standings(scored: ScoredEvent, lots_seed: bytes = b"") -> list[Standing]:
    """The standings of a scored event (its matches, byes and adjustments)."""
    return rank(scored.event, scored.scores, scored.adjustments, lots_seed)


def rank(event: Event, scores: Sequence[MatchScore], adjustments: Adjustments | None = None,
         lots_seed: bytes = b"") -> list[Standing]:
    """Rank every team: match points, then the profile's ``tie_breaks`` in order."""
    chain = check_tie_breaks(event.profile.tie_breaks, event.profile.id)
    found = records(event, scores, adjustments, lots_seed)
    teams = [t.id for t in event.teams]
    tie_values: dict[str, dict[str, float]] = {t: {} for t in teams}
    for key in chain:
        if key not in GROUP_KEYS:
            for team, value in TIE_BREAKS[key](found, teams).items():
                tie_values[team][key] = value

    def order(group: list[str], depth: int) -> list[list[str]]:
        """Split a group of teams level so far by the next keys of the chain."""
        if len(group) == 1 or depth == len(chain):
            return [sorted(group)]
        key = chain[depth]
        values = TIE_BREAKS[key](found, group)
        if key in GROUP_KEYS:
            for t in group:
                tie_values[t][key] = values[t]
        buckets: dict[float, list[str]] = defaultdict(list)
        for t in group:
            buckets[values[t]].append(t)
        out: list[list[str]] = []
        for value in sorted(buckets, reverse=True):
            out.extend(order(buckets[value], depth + 1))
        return out

    # A disqualified team is ranked below every other (then among themselves as the others).
    disqualified = set((adjustments or Adjustments()).disqualified())
    by_points: dict[tuple[bool, int], list[str]] = defaultdict(list)
    for t in teams:
        by_points[(t not in disqualified, found.match_points[t])].append(t)
    result: list[Standing] = []
    position = 1
    for points in sorted(by_points, reverse=True):
        for tied in order(by_points[points], 0):
            for t in tied:
                result.append(Standing(
                    position, t, found.match_points[t], found.level_points_for[t], found.level_points_against[t],
                    found.played[t], dict(tie_values[t]), len(tied) > 1, found.byes[t], found.adjustment[t]))
            position += len(tied)
    return result


def by_places(table: Sequence[Standing], places: Sequence[tuple[int, Sequence[str]]]) -> list[Standing]:
    """A knockout's standings: its final places so far (``places``, best first), each team's rank
    its place (shared by the teams knocked out in the same round). Teams still in the bracket come
    first and share rank 1 while more than one is left (in the order of ``table``); within a
    place, the order of ``places`` (by seed). Every value but the rank is the team's as ``table``
    has it."""
    row = {s.team: s for s in table}
    placed = {team for _place, teams in places for team in teams}
    still_in = [s for s in table if s.team not in placed]
    ranked = [dataclasses.replace(s, rank=1, shared=len(still_in) > 1) for s in still_in]
    for place, teams in places:
        ranked += [dataclasses.replace(row[team], rank=place, shared=len(teams) > 1) for team in teams]
    return ranked


def group_standings(scored: ScoredEvent, lots_seed: bytes = b"") -> list[tuple[int, list[Standing]]]:
    """A grouped round robin's standings per group (0 = A): its teams, its matches, its byes."""
    event = scored.event
    out = []
    for group, ids in enumerate(serpentine_groups([t.id for t in event.seeded_teams()], event.format.groups)):
        members = set(ids)
        sub = dataclasses.replace(
            event, teams=tuple(t for t in event.teams if t.id in members),
            rounds=tuple(dataclasses.replace(r, byes=tuple(t for t in r.byes if t in members)) for r in event.rounds))
        scores = [s for s in scored.scores if s.home in members and s.away in members]
        out.append((group, rank(sub, scores, scored.adjustments, lots_seed)))
    return out


def cross_table(scored: ScoredEvent) -> dict[tuple[str, str], list[CrossCell]]:
    """(team, opponent) → the meetings, each seen from ``team``."""
    cells: dict[tuple[str, str], list[CrossCell]] = defaultdict(list)
    for s in scored.played_scores():
        for team in (s.home, s.away):
            own, other, points = s.side(team)
            cells[(team, s.opponent(team))].append(CrossCell(s.round, s.match, own, other, points, s.complete))
    return dict(cells)
