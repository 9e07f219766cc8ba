"""An overall championship (总成绩): place points summed over the events a championship file names.

Seed 001: the level-race team event's final places score 10 / 7 / 5 / 3 into the overall
championship. The championship file (TOML) names the events, relative to itself::

    [championship]
    name = "职工扑克赛总成绩"
    events = ["levels-team.toml", "second-event.toml"]
    # place_points = [10, 7, 5, 3]   # default: each event's profile's final_place_points

Each event's final order is its report's (the standings, or a knockout's places); an event not
finished yet (a match without every result, rounds still to pair, a knockout undecided) scores its
order so far, marked provisional. A team is the same team in every event where its id is. Teams
sharing a place in an event (``2=``) each get that place's points. The table ranks by total
points, then by the better places (more first places, then more second places …); teams still
level share the rank.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealer.errors import FileProblem, Phrase, UserError, quote
from dealer.files import read_bytes

CHAMPIONSHIP_FILE_LIMIT = 1024 * 1024


class ChampionshipError(UserError, ValueError):
    """The championship file is not valid, or an event in it cannot give places."""


@dataclass(frozen=True)
class ChampionshipFile:
    name: str
    events: tuple[Path, ...]
    place_points: tuple[int, ...] | None = None


@dataclass(frozen=True)
class EventPlaces:
    """One event's final order: (place, teams sharing it), and the place points it used."""

    event: str
    places: tuple[tuple[int, tuple[str, ...]], ...]
    place_points: tuple[int, ...]
    #: Why the places are not final yet (:meth:`dealer.report.ReportData.unfinished`); empty: final.
    unfinished: tuple[str, ...] = ()

    @property
    def provisional(self) -> bool:
        return bool(self.unfinished)

    def points(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for place, teams in self.places:
            for team in teams:
                found[team] = self.place_points[place - 1] if place <= len(self.place_points) else 0
        return found


@dataclass(frozen=True)
class ChampionshipLine:
    rank: int
    team: str
    name: str
    total: int
    per_event: Mapping[str, int] = field(default_factory=dict)
    places: Mapping[str, int] = field(default_factory=dict)
    shared: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"rank": self.rank, "team": self.team, "name": self.name, "total": self.total,
                "shared": self.shared, "events": dict(self.per_event), "places": dict(self.places)}


def parse_championship(data: Mapping[str, Any], where: str, base: Path) -> ChampionshipFile:
    """The ``[championship]`` table; every key checked, event paths taken relative to ``base``."""
    unknown = set(data) - {"championship"}
    if unknown or not isinstance(data.get("championship"), Mapping):
        raise ChampionshipError("championship.not_a_table", where=where)
    head = data["championship"]
    stray = set(head) - {"name", "events", "place_points"}
    if stray:
        raise ChampionshipError("championship.unknown_keys", where=where, stray=', '.join(sorted(stray)))
    name = head.get("name", "")
    if not isinstance(name, str):
        raise ChampionshipError("championship.bad_name", where=where, name=quote(name))
    events = head.get("events")
    if not isinstance(events, list) or not events or not all(isinstance(e, str) and e.strip() for e in events):
        raise ChampionshipError("championship.bad_events", where=where, events=quote(events))
    if len(set(events)) != len(events):
        raise ChampionshipError("championship.event_named_twice", where=where)
    points = head.get("place_points")
    if points is not None and (not isinstance(points, list) or not points or not all(
            isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 10_000 for p in points)):
        raise ChampionshipError("championship.bad_place_points", where=where, points=quote(points))
    return ChampionshipFile(name, tuple(base / e for e in events), tuple(points) if points else None)


def read_championship(path: str | Path) -> ChampionshipFile:
    path = Path(path)
    text = read_bytes(path, Phrase("files.what_championship_file"), CHAMPIONSHIP_FILE_LIMIT)
    try:
        data = tomllib.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise FileProblem("championship.not_toml", path=path, error=error) from None
    return parse_championship(data, str(path), path.parent)


def championship_table(events: Sequence[EventPlaces], names: Mapping[str, str]) -> list[ChampionshipLine]:
    """Rank the teams by total place points, then by better places; level teams share a rank."""
    teams = sorted({t for e in events for _place, ts in e.places for t in ts})
    per_event = {t: {e.event: e.points().get(t, 0) for e in events} for t in teams}
    places = {t: {e.event: p for e in events for p, ts in e.places if t in ts} for t in teams}
    most = max((len(e.places) and max(p for p, _ in e.places) for e in events), default=0)

    def key(team: str) -> tuple[int, ...]:
        counts = [sum(1 for p in places[team].values() if p == n) for n in range(1, most + 1)]
        return (sum(per_event[team].values()), *counts)

    ordered = sorted(teams, key=lambda t: (tuple(-v for v in key(t)), t))
    lines: list[ChampionshipLine] = []
    for i, team in enumerate(ordered):
        rank = lines[-1].rank if lines and key(ordered[i - 1]) == key(team) else i + 1
        shared = any(key(other) == key(team) for other in ordered if other != team)
        lines.append(ChampionshipLine(rank, team, names.get(team, team), key(team)[0], per_event[team],
                                      places[team], shared))
    return lines


def build_championship(path: str | Path, boards_root: str | Path | None = None
                       ) -> tuple[ChampionshipFile, list[EventPlaces], list[ChampionshipLine]]:
    """Read the championship file, report each event (read-only) and rank the teams."""
    from dealer.app.session import EventSession
    from dealer.files import load_event
    from dealer.store.folder import EventFolder

    championship = read_championship(path)
    found: list[EventPlaces] = []
    names: dict[str, str] = {}
    for event_path in championship.events:
        event = load_event(event_path)
        if any(e.event == event.id for e in found):
            raise ChampionshipError("championship.event_twice", event_path=event_path, event_id=event.id)
        points = championship.place_points or event.profile.place_points
        if not points:
            raise ChampionshipError("championship.no_place_points", event_path=event_path, profile_id=event.profile.id)
        with EventSession.open(event, EventFolder.for_file(event_path, event, boards_root)) as session:
            data = session.report()
        if data.places is not None:
            order = tuple((place, tuple(teams)) for place, teams in data.places)
        else:
            grouped: dict[int, list[str]] = {}
            for standing in data.standings:
                grouped.setdefault(standing.rank, []).append(standing.team)
            order = tuple((rank, tuple(teams)) for rank, teams in sorted(grouped.items()))
        found.append(EventPlaces(event.id, order, tuple(points), tuple(data.unfinished())))
        for team in event.teams:
            names.setdefault(team.id, team.name)
    return championship, found, championship_table(found, names)
