"""The event plan: teams, rounds, matches, board sets and the board schedule.

Pure domain code: :func:`parse_event` takes the parsed TOML mapping (see
``dealer/data/demo-event.toml`` for the documented format); :mod:`dealer.files` reads the file.
Every error names the key it is about.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from dealer.cards import LEVELS, SEATS, normalize_level
from dealer.errors import UserError, quote
from dealer.profiles import Profile, ProfileError

KITTY_MODES = ("in-hand", "separate")
DEFAULT_ROTATION: tuple[str, ...] = ("N", "E", "S", "W")
#: Event ids name folders and appear in QR payloads (docs/qr.md); match ids appear there too.
EVENT_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,16}")

_EVENT_KEYS = {"id", "name", "date", "profile", "decks", "kitty", "kitty_mode", "boards_per_set",
               "sets", "public_value_source"}
_TOP_KEYS = {"event", "schedule", "teams", "rounds"}
_TEAM_KEYS = {"id", "name", "players", "mixed_club"}
_ROUND_KEYS = {"number", "matches"}
_MATCH_KEYS = {"id", "home", "away", "set"}


class EventError(UserError, ValueError):
    """The event file is not valid; the message names the key."""


@dataclass(frozen=True)
class BoardConditions:
    """What is fixed in advance for one board of one set (计副制)."""

    set: int
    number: int
    declarer: str
    level: str


@dataclass(frozen=True)
class Team:
    id: str
    name: str
    players: tuple[str, ...] = ()
    mixed_club: bool = False


@dataclass(frozen=True)
class Match:
    """Two teams meeting at an A table (home E-W) and a B table (home N-S) on one board set."""

    round: int
    id: str
    home: str
    away: str
    set: int

    def seats(self, table: str) -> dict[str, str]:
        """Team id sitting ``NS`` and ``EW`` at table ``A`` or ``B``."""
        if table == "A":
            return {"NS": self.away, "EW": self.home}
        if table == "B":
            return {"NS": self.home, "EW": self.away}
        raise ValueError(f"table must be A or B, got {table!r}")


@dataclass(frozen=True)
class Round:
    number: int
    matches: tuple[Match, ...]

    def match(self, match_id: str) -> Match | None:
        return self._by_id.get(match_id)

    @functools.cached_property
    def _by_id(self) -> dict[str, Match]:
        """Matches by id, built once: import looks one up per traveller row."""
        return {m.id: m for m in self.matches}


@dataclass(frozen=True)
class Event:
    id: str
    name: str
    date: str
    profile: Profile
    decks: int
    hand: int
    kitty: int
    kitty_mode: str
    boards_per_set: int
    sets: int
    teams: tuple[Team, ...]
    rounds: tuple[Round, ...]
    schedule: Mapping[tuple[int, int], BoardConditions]
    public_value_source: str | None = None

    def team(self, team_id: str) -> Team:
        for team in self.teams:
            if team.id == team_id:
                return team
        raise KeyError(team_id)

    def round(self, number: int) -> Round | None:
        return next((r for r in self.rounds if r.number == number), None)

    def board(self, set_number: int, number: int) -> BoardConditions:
        return self.schedule[(set_number, number)]

    def set_boards(self, set_number: int) -> list[BoardConditions]:
        return [self.schedule[(set_number, n)] for n in range(1, self.boards_per_set + 1)]

    def matches(self) -> list[Match]:
        return [match for rnd in self.rounds for match in rnd.matches]

    def copies_needed(self, set_number: int) -> int:
        """Physical copies of a set the rounds need: one per match that plays it (at least 1)."""
        return max(1, max(
            (sum(1 for m in rnd.matches if m.set == set_number) for rnd in self.rounds),
            default=0,
        ))

    def plan(self, algorithm: str) -> dict[str, Any]:
        """The canonical plan that the commitment covers (see docs/dealing.md)."""
        return {
            "algorithm": algorithm,
            "event": self.id,
            "profile": self.profile.id,
            "profile_version": self.profile.version,
            "decks": self.decks,
            "hand": self.hand,
            "kitty": self.kitty,
            "kitty_mode": self.kitty_mode,
            "sets": self.sets,
            "boards_per_set": self.boards_per_set,
            "boards": [
                [b.set, b.number, b.declarer, b.level]
                for _, b in sorted(self.schedule.items())
            ],
            "public_value_source": self.public_value_source,
        }


def _table(value: Any, where: str, allowed: set[str], example: str) -> Mapping[str, Any]:
    """A TOML table with only known keys (a misspelt key must not be silently ignored)."""
    if not isinstance(value, Mapping):
        raise EventError(f"{where}: expected a table like {example}, got {quote(value)}")
    unknown = set(value) - allowed
    if unknown:
        raise EventError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
            f"(known: {', '.join(sorted(allowed))})"
        )
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise EventError(f"{where}: expected a list, got {quote(value)}")
    return value


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise EventError(f"{where}: expected true or false, got {quote(value)}")
    return value


def _require(data: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise EventError(f"{where}{key}: missing (required)")
    return data[key]


def _int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EventError(f"{where}: expected a whole number from {low} to {high}, got {quote(value)}")
    return value


#: Longest text value of an event file (a name is printed on slips and labels).
NAME_LIMIT = 200


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EventError(f"{where}: expected a non-empty text, got {quote(value)}")
    if len(value.strip()) > NAME_LIMIT:
        raise EventError(f"{where}: at most {NAME_LIMIT} characters, got {len(value.strip()):,}")
    return value.strip()


def _level(value: Any, where: str) -> str:
    try:
        if not str(value).isascii():
            raise ValueError(value)
        return normalize_level(str(value))
    except ValueError:
        raise EventError(
            f"{where}: expected a level ({', '.join(LEVELS)}), got {quote(value)}"
        ) from None


def _seat(value: Any, where: str) -> str:
    text = str(value).strip()
    text = text.upper() if text.isascii() else text  # ASCII only: "ſ".upper() is "S"
    if text not in SEATS:
        raise EventError(f"{where}: expected a seat N, E, S or W, got {quote(value)}")
    return text


def _schedule(
    data: Mapping[str, Any], sets: int, boards: int
) -> dict[tuple[int, int], BoardConditions]:
    rotation_raw = data.get("declarer_rotation", list(DEFAULT_ROTATION))
    if not isinstance(rotation_raw, list) or not rotation_raw:
        raise EventError("schedule.declarer_rotation: expected a list of seats")
    rotation = [_seat(s, f"schedule.declarer_rotation[{i}]") for i, s in enumerate(rotation_raw)]
    levels_raw = data.get("levels", list(LEVELS))
    if not isinstance(levels_raw, list) or not levels_raw:
        raise EventError("schedule.levels: expected a list of levels")
    levels = [_level(v, f"schedule.levels[{i}]") for i, v in enumerate(levels_raw)]
    schedule = {
        (s, n): BoardConditions(s, n, rotation[(n - 1) % len(rotation)], levels[(n - 1) % len(levels)])
        for s in range(1, sets + 1)
        for n in range(1, boards + 1)
    }
    overrides = data.get("overrides", [])
    if not isinstance(overrides, list):
        raise EventError("schedule.overrides: expected a list of tables")
    for i, override in enumerate(overrides):
        where = f"schedule.overrides[{i}]"
        if not isinstance(override, Mapping):
            raise EventError(f"{where}: expected a table like {{ board = 5, level = \"J\" }}")
        unknown = set(override) - {"set", "board", "declarer", "level"}
        if unknown:
            raise EventError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        number = _int(_require(override, "board", f"{where}."), f"{where}.board", 1, boards)
        targets = (
            [_int(override["set"], f"{where}.set", 1, sets)] if "set" in override
            else list(range(1, sets + 1))
        )
        for s in targets:
            old = schedule[(s, number)]
            schedule[(s, number)] = BoardConditions(
                s,
                number,
                _seat(override["declarer"], f"{where}.declarer") if "declarer" in override
                else old.declarer,
                _level(override["level"], f"{where}.level") if "level" in override else old.level,
            )
    return schedule


def parse_event(data: Mapping[str, Any], find_profile: Callable[[str], Profile]) -> Event:
    """Build an :class:`Event` from the parsed event file; raises :class:`EventError`."""
    _table(data, "the event file", _TOP_KEYS, "[event], [schedule], [[teams]], [[rounds]]")
    head = _table(_require(data, "event", ""), "event", _EVENT_KEYS, "[event]")
    event_id = _str(_require(head, "id", "event."), "event.id")
    if not EVENT_ID.fullmatch(event_id):
        raise EventError(
            f"event.id: {quote(event_id)} must be lower-case letters, digits and '-' "
            "(it names the folder boards/<id>/)"
        )
    name = _str(_require(head, "name", "event."), "event.name")
    date_value = head.get("date", "")
    if isinstance(date_value, dt.datetime) or isinstance(date_value, dt.time):
        raise EventError(f"event.date: expected a date YYYY-MM-DD, got a time {date_value}")
    if isinstance(date_value, dt.date):
        date = date_value.isoformat()
    else:
        date = str(date_value)
        if date:
            try:
                dt.date.fromisoformat(date)
            except ValueError:
                raise EventError(f"event.date: expected YYYY-MM-DD, got {quote(date)}") from None
    profile_id = _str(_require(head, "profile", "event."), "event.profile")
    try:
        profile = find_profile(profile_id)
    except (KeyError, ProfileError) as error:
        raise EventError(f"event.profile: {error}") from None
    decks = _int(head.get("decks", 2), "event.decks", 1, 4)
    if decks not in profile.supported_decks:
        raise EventError(
            f"event.decks: profile {profile.id} supports "
            f"{', '.join(map(str, profile.supported_decks))} deck(s), not {decks}"
        )
    rules = profile.rules_for(decks)
    kitty = _int(head.get("kitty", rules.kitty), "event.kitty", 0, 54 * decks)
    try:
        hand = rules.hand_for_kitty(kitty)
    except ProfileError as error:
        raise EventError(f"event.kitty: {error}") from None
    kitty_mode = head.get("kitty_mode", "in-hand")
    if kitty_mode not in KITTY_MODES:
        raise EventError(f"event.kitty_mode: expected 'in-hand' (计副制) or 'separate', got {quote(kitty_mode)}")
    boards = _int(head.get("boards_per_set", 16), "event.boards_per_set", 1, 64)
    sets = _int(head.get("sets", 1), "event.sets", 1, 999)
    public_source = head.get("public_value_source")
    if public_source is not None:
        public_source = _str(public_source, "event.public_value_source")

    schedule_data = _table(data.get("schedule", {}), "schedule",
                           {"declarer_rotation", "levels", "overrides"}, "[schedule]")
    schedule = _schedule(schedule_data, sets, boards)

    teams: list[Team] = []
    for i, item in enumerate(_list(data.get("teams", []), "teams")):
        where = f"teams[{i}]"
        raw = _table(item, where, _TEAM_KEYS, '[[teams]] with id = "T1", name = "…"')
        team_id = _str(_require(raw, "id", f"{where}."), f"{where}.id")
        if any(t.id == team_id for t in teams):
            raise EventError(f"{where}.id: team id {quote(team_id)} is used twice")
        players = raw.get("players", [])
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise EventError(f"{where}.players: expected a list of names")
        teams.append(Team(
            team_id,
            _str(raw.get("name", team_id), f"{where}.name"),
            tuple(players),
            _bool(raw.get("mixed_club", False), f"{where}.mixed_club"),
        ))
    team_ids = {t.id for t in teams}

    rounds: list[Round] = []
    for i, item in enumerate(_list(data.get("rounds", []), "rounds")):
        where = f"rounds[{i}]"
        raw = _table(item, where, _ROUND_KEYS, "[[rounds]] with number = 1, matches = […]")
        number = _int(raw.get("number", i + 1), f"{where}.number", 1, 999)
        if any(r.number == number for r in rounds):
            raise EventError(f"{where}.number: round {number} appears twice")
        matches: list[Match] = []
        busy: set[str] = set()
        for j, item_match in enumerate(_list(raw.get("matches", []), f"{where}.matches")):
            mwhere = f"{where}.matches[{j}]"
            m = _table(item_match, mwhere, _MATCH_KEYS, '{ id = "1", home = "T1", away = "T2", set = 1 }')
            raw_id = m.get("id", j + 1)
            if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
                raise EventError(f"{mwhere}.id: expected a text or a number, got {quote(raw_id)}")
            match_id = _str(str(raw_id), f"{mwhere}.id")
            if not MATCH_ID.fullmatch(match_id):
                raise EventError(
                    f"{mwhere}.id: {quote(match_id)} must be 1 to 16 letters, digits, '-' or '_' "
                    "(it is printed in the slips' QR codes)"
                )
            if any(x.id == match_id for x in matches):
                raise EventError(f"{mwhere}.id: match {quote(match_id)} appears twice in round {number}")
            home = _str(_require(m, "home", f"{mwhere}."), f"{mwhere}.home")
            away = _str(_require(m, "away", f"{mwhere}."), f"{mwhere}.away")
            if home == away:
                raise EventError(f"{mwhere}: a team cannot play itself ({quote(home)})")
            for key, team_id in (("home", home), ("away", away)):
                if team_id not in team_ids:
                    raise EventError(
                        f"{mwhere}.{key}: team {quote(team_id)} is not among the teams "
                        f"({', '.join(sorted(team_ids))})"
                    )
                if team_id in busy:
                    raise EventError(f"{mwhere}.{key}: team {quote(team_id)} plays twice in round {number}")
                busy.add(team_id)
            set_number = _int(m.get("set", 1), f"{mwhere}.set", 1, sets)
            matches.append(Match(number, match_id, home, away, set_number))
        rounds.append(Round(number, tuple(matches)))

    return Event(
        id=event_id,
        name=name,
        date=date,
        profile=profile,
        decks=decks,
        hand=hand,
        kitty=kitty,
        kitty_mode=kitty_mode,
        boards_per_set=boards,
        sets=sets,
        teams=tuple(teams),
        rounds=tuple(sorted(rounds, key=lambda r: r.number)),
        schedule=schedule,
        public_value_source=public_source,
    )
