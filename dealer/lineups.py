"""Line-ups (上场名单): which of a team's registered players sit at which table of its match in
one round (seed 002 §八.3: any four players as two 分队, no change during the round; seed 000:
the pairs at tables A and B; seed 001: a pair at each of five tables), and the records of each
player and each pair that follow from them (rounds played, levels for and against).

Pure: no I/O. The store keeps line-ups (:mod:`dealer.store`), the application layer records
them (:mod:`dealer.app.lineups`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealer.errors import UserError, quote
from dealer.event import Event, Match
from dealer.numbers import fold_typed
from dealer.scoring import ScoredEvent

#: Players a side seats at one table (every profile's game is two against two).
PAIR = 2
#: What separates the players of a pair as typed (``张伟,王芳``, ``张伟、王芳``, ``张伟，王芳``).
_SEPARATORS = re.compile(r"[,，、;；]")


class LineupError(UserError, ValueError):
    """A line-up refused: a table, player or round named in the message."""


@dataclass(frozen=True)
class Lineup:
    """One team's line-up for one round: each table of its match with its pair, in table order."""

    round: int
    team: str
    tables: tuple[tuple[str, tuple[str, ...]], ...]
    id: int = 0
    entered_by: str | None = None
    at: str = ""
    reason: str | None = None
    #: The line-ups this one replaced (changes before the round's first result), oldest first.
    replaced: tuple[Lineup, ...] = field(default=(), compare=False)

    def pair(self, table: str | int) -> tuple[str, ...]:
        """The players at ``table`` (``A``/``B``, or a level race's number); ``()``: none named."""
        return dict(self.tables).get(str(table), ())

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for _table, pair in self.tables for p in pair)

    def as_dict(self) -> dict[str, Any]:
        return {"round": self.round, "team": self.team,
                "tables": [{"table": table, "players": list(pair)} for table, pair in self.tables],
                "entered_by": self.entered_by, "at": self.at,
                "changes": len(self.replaced), **({"reason": self.reason} if self.reason else {})}


def _table_name(event: Event, text: str) -> str:
    """A table as typed (``a``, ``B``; a level race's ``2``, or its letter, A = 1) as its name;
    full-width ``Ｂ`` and ``２`` as typed in a Chinese IME (:func:`~dealer.numbers.fold_typed`),
    but not ``²`` or ``①``."""
    name = fold_typed(text).strip().upper()
    if event.levels and len(name) == 1 and "A" <= name <= "Z":
        name = str(ord(name) - ord("A") + 1)
    if event.levels and name.isascii() and name.isdigit():  # not int("²"): a ValueError
        name = str(int(name))
    if name not in event.table_ids():
        raise LineupError("lineup.unknown_table", field="table", table=quote(text),
                          tables=", ".join(event.table_ids()))
    return name


def parse_lineup(event: Event, round_number: int, team_id: str, given: Sequence[tuple[str, str]]) -> Lineup:
    """The line-up ``given`` as (table, players as typed) for ``team_id`` in ``round_number``,
    checked: every table of a match named once, a pair at each, every player one of the team's
    registered players (``players = [...]`` in the event file) and at one table only."""
    team = next((t for t in event.teams if t.id == team_id), None)
    if team is None:
        raise LineupError("lineup.unknown_team", field="team", team=quote(team_id))
    if not team.players:
        raise LineupError("lineup.no_players", field="team", team=quote(team_id))
    tables: dict[str, tuple[str, ...]] = {}
    seated: dict[str, str] = {}
    for table_text, players_text in given:
        table = _table_name(event, table_text)
        if table in tables:
            raise LineupError("lineup.table_twice", field="table", table=table)
        pair = tuple(p.strip() for p in _SEPARATORS.split(players_text) if p.strip())
        if len(pair) != PAIR:
            raise LineupError("lineup.not_a_pair", field="table", table=table, count=len(pair),
                              given=quote(players_text))
        for player in pair:
            if player not in team.players:
                raise LineupError("lineup.unknown_player", field="table", table=table, player=quote(player),
                                  team=team_id, players=", ".join(team.players))
            if player in seated:
                raise LineupError("lineup.player_twice", field="table", player=quote(player), first=seated[player],
                                  second=table)
            seated[player] = table
        tables[table] = pair
    missing = [t for t in event.table_ids() if t not in tables]
    if missing:
        raise LineupError("lineup.tables_missing", field="table", missing=", ".join(missing),
                          tables=", ".join(event.table_ids()))
    return Lineup(round_number, team_id, tuple((t, tables[t]) for t in event.table_ids()))


@dataclass(frozen=True)
class Lineups:
    """The current line-up of each (round, team)."""

    by_key: Mapping[tuple[int, str], Lineup] = field(default_factory=dict)

    def get(self, round_number: int, team: str) -> Lineup | None:
        return self.by_key.get((round_number, team))

    def pair(self, round_number: int, team: str, table: str | int) -> tuple[str, ...]:
        lineup = self.get(round_number, team)
        return lineup.pair(table) if lineup is not None else ()

    def all(self) -> list[Lineup]:
        """Every line-up, by round, then team."""
        return sorted(self.by_key.values(), key=lambda lineup: (lineup.round, lineup.team))

    def __bool__(self) -> bool:
        return bool(self.by_key)

    def of_round(self, round_number: int) -> list[Lineup]:
        return [lineup for lineup in self.all() if lineup.round == round_number]


#: No line-up recorded (an event that does not record them).
NO_LINEUPS = Lineups()


@dataclass
class Record:
    """A player's or a pair's record: rounds played (their table has a result), levels for and
    against at their tables (a board event: the level points of the boards counted)."""

    team: str
    players: tuple[str, ...]
    rounds: list[int] = field(default_factory=list)
    levels_for: int = 0
    levels_against: int = 0

    def figures(self) -> dict[str, Any]:
        """Rounds played (and which), levels for, against and net."""
        return {"rounds_played": len(self.rounds), "rounds": list(self.rounds), "levels_for": self.levels_for,
                "levels_against": self.levels_against, "net_levels": self.levels_for - self.levels_against}

    def player_dict(self) -> dict[str, Any]:
        """A player's record as the report's JSON gives it."""
        return {"team": self.team, "player": self.players[0], **self.figures()}

    def pair_dict(self) -> dict[str, Any]:
        """A pair's record as the report's JSON gives it."""
        return {"team": self.team, "players": list(self.players), **self.figures()}


def _table_levels(scored: ScoredEvent, match: Match) -> dict[str, tuple[int, int]]:
    """Each table of a played match that has a result: (home's levels, away's levels) there.
    A level race: the levels climbed; boards: the level points of the counted boards (home
    sits E-W at A and N-S at B)."""
    score = scored.score(match.round, match.id)
    if score.forfeited_by or not score.played:
        return {}
    lines = getattr(scored, "table_lines", None)
    if lines is not None and scored.event.levels:
        return {str(line.table): (line.home_climbed, line.away_climbed) for line in lines(match.round, match.id)}
    sums = {"A": [0, 0], "B": [0, 0]}
    for line in scored.sheet(match.round, match.id):
        if not line.counted:
            continue
        for i, table in enumerate(("A", "B")):
            ns, ew = line.ns_levels[i] or 0, line.ew_levels[i] or 0
            home, away = (ew, ns) if table == "A" else (ns, ew)
            sums[table][0] += home
            sums[table][1] += away
    return {table: (h, a) for table, (h, a) in sums.items()}


def player_records(scored: ScoredEvent, lineups: Lineups) -> tuple[list[Record], list[Record]]:
    """Every player's and every pair's record over the rounds whose line-ups are known, each in
    the team's order of players (pairs: by their first player, then the second)."""
    players: dict[tuple[str, str], Record] = {}
    pairs: dict[tuple[str, tuple[str, ...]], Record] = {}
    seat = {t.id: {p: j for j, p in enumerate(t.players)} for t in scored.event.teams}
    for match in scored.matches:
        known = [(team, side, lineups.get(match.round, team)) for team, side in ((match.home, 0), (match.away, 1))]
        if all(lineup is None for _team, _side, lineup in known):
            continue  # no line-up: its sheet is not made (a league has 20,000 matches)
        tables = _table_levels(scored, match)
        for team, side, lineup in known:
            if lineup is None:
                continue
            for table, pair in lineup.tables:
                if table not in tables:
                    continue
                own, other = tables[table][side], tables[table][1 - side]
                both = tuple(sorted(pair, key=lambda p: seat.get(team, {}).get(p, PAIR * 99)))
                for record in (*(players.setdefault((team, p), Record(team, (p,))) for p in pair),
                               pairs.setdefault((team, both), Record(team, both))):
                    record.rounds.append(match.round)
                    record.levels_for += own
                    record.levels_against += other
    order = {t.id: i for i, t in enumerate(scored.event.teams)}

    def key(record: Record) -> tuple[int, ...]:
        seats = seat.get(record.team, {})
        return (order.get(record.team, len(order)), *(seats.get(p, len(seats)) for p in record.players))

    return sorted(players.values(), key=key), sorted(pairs.values(), key=key)
