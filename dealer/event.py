"""The event plan: teams, rounds, matches, board sets and the board schedule.

Pure domain code: :func:`parse_event` takes the parsed TOML mapping (see
``dealer/data/demo-event.toml`` for the documented format); :mod:`dealer.files` reads the file.
Every error names the key it is about.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import string
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dealer.cards import LEVELS, SEATS, normalize_level
from dealer.errors import UserError, quote
from dealer.organization import Organization, OrganizationError, parse_organization
from dealer.profiles import Profile, ProfileError, with_rules
from dealer.tournament.movement import MAX_COPIES, CopiesSetting, Movement, MovementError, round_movement
from dealer.words import known_zone

KITTY_MODES = ("in-hand", "separate")
DEFAULT_ROTATION: tuple[str, ...] = ("N", "E", "S", "W")
#: Event ids name folders and appear in QR payloads (docs/qr.md); match ids appear there too.
EVENT_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
MATCH_ID = re.compile(r"[A-Za-z0-9_-]{1,16}")
#: A registration file beside the event file (``teams_file``): a plain TOML file name, no folder.
TEAMS_FILE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.toml")

_EVENT_KEYS = {"id", "name", "date", "profile", "decks", "kitty", "kitty_mode", "boards_per_set",
               "sets", "public_value_source", "result", "tables", "table_numbers",
               "timezone", "teams_file", "boards_dir", "round_minutes", "serve_url",
               "live_confirmation", "copies"}
#: How a match's result is recorded: fixed boards (计副制) or a race up the levels (计时制 / 计局制).
RESULT_KINDS = ("boards", "levels")
#: Keys of a boards event only: a level race deals nothing.
_BOARD_ONLY_KEYS = ("boards_per_set", "sets", "public_value_source", "copies")
#: Most tables a level-race match may have (seed 001: 5 pairs a side).
MAX_TABLES = 16
#: How the hall's tables are named (``event.table_numbers``): a preset, or a pattern of its own
#: in the same fields: ``{match}`` the match's number in the round, ``{table}`` its table (A or B;
#: a level race's 1…tables) and ``{seq}`` the round's tables numbered 1, 2, … in match order.
TABLE_NUMBERINGS: dict[str, dict[str, str]] = {
    "per-match": {"boards": "{match}{table}", "levels": "{match}-{table}"},  # 1A/1B; 1-1/1-2
    "sequential": {"boards": "{seq}", "levels": "{seq}"},  # 1…2M; 1…tables × M
}
_TABLE_FIELDS = frozenset({"match", "table", "seq"})
#: A server's host (a name, an IPv4 address or a bracketed IPv6 one) and optional port.
_SERVER = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
                     r"|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
#: How a live entry counts (``[event] live_confirmation``).
LIVE_CONFIRMATIONS = ("team-code", "double-entry")
#: Where the table score sheets' entry QR codes point when neither ``[event] serve_url`` nor
#: ``dealer print --serve-url`` says (``dealer serve``'s own address: this machine only).
DEFAULT_SERVE_URL = "http://127.0.0.1:8000"
_TOP_KEYS = {"event", "schedule", "teams", "rounds", "format", "prizes", "rules", "organization", "officials"}
_TEAM_KEYS = {"id", "name", "players", "player_ids", "mixed_club", "seed", "club", "leader", "contact"}
FORMAT_KINDS = ("fixed", "round-robin", "swiss", "knockout")
#: The keys each format kind takes (besides ``kind``); anything else is refused.
_FORMAT_KEYS: dict[str, set[str]] = {
    "fixed": set(),
    "round-robin": {"cycles", "groups"},
    "swiss": {"rounds", "first_round", "avoid_same_club"},
    "knockout": {"elimination", "grand_final", "bracket", "third_place"},
}
_PRIZE_KEYS = {"name", "teams"}
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
    """A team of the event file: its code, name and what registration recorded."""

    id: str
    name: str
    players: tuple[str, ...] = ()
    mixed_club: bool = False
    seed: int | None = None  # 1 = strongest; teams without one follow, in file order
    club: str | None = None  # 分会 / 单位: Swiss can avoid pairing two teams of one club
    leader: str | None = None  # 领队
    contact: str | None = None  # 联系方式: the director's, never on a public page
    #: Each player's 证件号 or 会员号, in the players' order (or none): the director's, never on a
    #: public page. A player is identified within the team; the ID tells the same person apart.
    player_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class Format:
    """How rounds are made (DESIGN §10). ``fixed``: the event file lists them; the others are
    paired round by round (``dealer round pair``) and stored in the event's database."""

    kind: str = "fixed"
    cycles: int = 1  # round robin: 2 = double (home/away mirrored)
    groups: int = 1  # round robin: groups filled by serpentine on the seeds
    rounds: int = 0  # swiss
    first_round: str = "pinyin"  # swiss: "pinyin", "split" or "lots"
    avoid_same_club: bool = False  # swiss
    elimination: str = "single"  # knockout: "single" or "double"
    grand_final: str = "reset"  # double elimination: "reset" (a second final if needed) or "single"
    bracket: str = "standard"  # knockout: the bracket order data file (dealer/data/brackets/<name>.toml)
    third_place: bool = False  # single elimination: the semi-final losers play for 3rd in the final round

    @property
    def paired(self) -> bool:
        """Whether rounds are paired as the event goes (not listed in the event file)."""
        return self.kind != "fixed"

    def rounds_needed(self, teams: int) -> int:
        """The most rounds this format can need with ``teams`` teams (one board set each)."""
        if self.kind == "swiss":
            return self.rounds
        if self.kind == "round-robin":
            largest = -(-teams // self.groups)
            return (largest + largest % 2 - 1) * self.cycles
        if self.kind == "knockout":
            size = max(1, (teams - 1).bit_length())  # 2**size ≥ teams
            if self.elimination == "single":
                return size
            return 2 * size + (1 if self.grand_final == "reset" else 0)
        return 0


@dataclass(frozen=True)
class Prize:
    """A prize for the next ``teams`` places of the final standings (seed 002: 1, 2, 4)."""

    name: str
    teams: int


@dataclass(frozen=True)
class Match:
    """Two teams meeting at an A table (home E-W) and a B table (home N-S) on one board set."""

    round: int
    id: str
    home: str
    away: str
    set: int
    table: int = 0  # the match's table number in the hall (its place in the round when listed)
    slot: str | None = None  # a knockout match's bracket slot ("W1-3", "L2-1", "F1")
    group: int | None = None  # a grouped round robin's group (0 = A)

    def seats(self, table: str) -> dict[str, str]:
        """Team id sitting ``NS`` and ``EW`` at table ``A`` or ``B``."""
        if table == "A":
            return {"NS": self.away, "EW": self.home}
        if table == "B":
            return {"NS": self.home, "EW": self.away}
        raise ValueError(f"table must be A or B, got {table!r}")


@dataclass(frozen=True)
class Round:
    """One round: its matches and the teams with a bye."""

    number: int
    matches: tuple[Match, ...]
    byes: tuple[str, ...] = ()  # teams without a match this round
    #: A round drawn in an order of sort keys (a Swiss round 1 by pinyin): (team, key), in order.
    sort_keys: tuple[tuple[str, str], ...] = ()

    def match(self, match_id: str) -> Match | None:
        return self._by_id.get(match_id)

    @functools.cached_property
    def _by_id(self) -> dict[str, Match]:
        """Matches by id, built once: import looks one up per traveller row."""
        return {m.id: m for m in self.matches}


@dataclass(frozen=True)
class Event:
    """An event file read and checked: its teams, rounds, profile and format (DESIGN §5)."""

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
    format: Format = Format()
    prizes: tuple[Prize, ...] = ()
    result: str = "boards"  # "levels": each table reports the final levels (no boards, no deal)
    tables: int = 2  # a level race's tables per match (seed 002: 2; seed 001: 5)
    table_numbers: str = "per-match"  # a preset of TABLE_NUMBERINGS or a pattern of its fields
    timezone: str | None = None  # the IANA zone every time is shown in (None: the machine's own)
    #: A round's time in minutes (``round_minutes``; ``None``: the profile's ``timing``), for the
    #: projector's timer (``dealer print timer``).
    round_minutes: int | None = None
    #: The address the players' phones reach ``dealer serve`` at (``[event] serve_url``: http:// or
    #: https://, a host and an optional port, no path), which the score sheets' entry QR codes hold;
    #: ``None``: not said (``dealer print --serve-url``, else :data:`DEFAULT_SERVE_URL`).
    serve_url: str | None = None
    #: How a result entered live at a table counts (``[event] live_confirmation``, docs/serve.md):
    #: ``team-code`` (the other side confirms with its team code from its own phone) or
    #: ``double-entry`` (the other side enters it too, on its own phone, and the two agree).
    live_confirmation: str = "team-code"
    #: The registration file the teams come from (``teams_file`` in ``[event]``, beside the event
    #: file; written by ``dealer teams import``), or ``None``: the event file lists them.
    teams_file: str | None = None
    #: Where the event's folder lives, relative to the event file's folder (``[event] boards_dir``;
    #: how it is found without one: :meth:`dealer.store.folder.EventFolder.for_file`). Not part of the plan.
    boards_dir: str | None = None
    #: The organisation and officials (``[organization]``, ``[officials]``; issue 38): who holds
    #: the event and where, each round's start, the referees, the arbitration committee, the
    #: appeal window. Not part of the plan.
    organization: Organization = field(default_factory=Organization)
    #: The copies of a set a round's tables share (``[event] copies``, docs/tournaments.md): ``None``
    #: one copy a match, its two tables exchanging halves (the default); a number (the most copies
    #: to fill) or ``"auto"`` (the fewest whose groups hold two boards or more): copies shared by
    #: all the round's tables of the set, the boards moving table to table each stanza.
    copies: CopiesSetting = None

    @property
    def levels(self) -> bool:
        """Whether the event is a level race (``result = "levels"``)."""
        return self.result == "levels"

    def table_ids(self) -> tuple[str, ...]:
        """A match's tables as results name them: A and B, or a level race's 1…tables."""
        return tuple(str(n) for n in range(1, self.tables + 1)) if self.levels else ("A", "B")

    def table_names(self, match: Match) -> dict[str, str]:
        """Each table of ``match`` (by :meth:`table_ids`) → its name in the hall, as the players
        find their seat (``event.table_numbers``: 1A/1B, 1-1/1-2, or 1…2M)."""
        preset = TABLE_NUMBERINGS.get(self.table_numbers)
        pattern = preset["levels" if self.levels else "boards"] if preset else self.table_numbers
        ids = self.table_ids()
        return {table: pattern.format(match=match.table, table=table, seq=(match.table - 1) * len(ids) + i)
                for i, table in enumerate(ids, start=1)}

    def seeded_teams(self) -> list[Team]:
        """Teams strongest first: by ``seed``, then those without one in file order."""
        order = {t.id: i for i, t in enumerate(self.teams)}
        return sorted(self.teams, key=lambda t: (t.seed is None, t.seed or 0, order[t.id]))

    def team(self, team_id: str) -> Team:
        return self._teams_by_id[team_id]  # KeyError: no such team

    @functools.cached_property
    def _teams_by_id(self) -> dict[str, Team]:
        # asked for several times a result (a live entry, a slip's row): looked up, not searched
        found: dict[str, Team] = {}
        for team in self.teams:
            found.setdefault(team.id, team)  # the first of an id, as the search found it
        return found

    def team_named(self, text: str) -> str | None:
        """The id of the team a slip names by its id or its name, or ``None``."""
        return self._team_by_id_or_name.get(text)

    @functools.cached_property
    def _team_by_id_or_name(self) -> dict[str, str]:
        # every result names its teams: looked up, not searched (a league has 2,000)
        found: dict[str, str] = {}
        for t in self.teams:  # the first team a text names wins, as the search did
            found.setdefault(t.id, t.id)
            found.setdefault(t.name, t.id)
        return found

    def round(self, number: int) -> Round | None:
        return next((r for r in self.rounds if r.number == number), None)

    def board(self, set_number: int, number: int) -> BoardConditions:
        return self.schedule[(set_number, number)]

    def set_boards(self, set_number: int) -> list[BoardConditions]:
        return [self.schedule[(set_number, n)] for n in range(1, self.boards_per_set + 1)]

    def matches(self) -> list[Match]:
        return [match for rnd in self.rounds for match in rnd.matches]

    def copies_needed(self, set_number: int) -> int:
        """Physical copies of a set the rounds need: one per match that plays it (at least 1);
        a paired format's round not yet paired needs at most one per two teams. With shared
        copies (``[event] copies``): the copies of the round's movement on the set."""
        if self.format.paired and self.round(set_number) is None:
            if self.copies is None:
                return max(1, len(self.teams) // 2)
            tables = [(str(m), t) for m in range(1, max(1, len(self.teams) // 2) + 1) for t in ("A", "B")]
            return self.movement_of(tables, set_number).copies
        if self.copies is None:
            return max(1, max(
                (sum(1 for m in rnd.matches if m.set == set_number) for rnd in self.rounds),
                default=0,
            ))
        return max((self.movement(rnd.number, set_number).copies for rnd in self.rounds
                    if any(m.set == set_number for m in rnd.matches)), default=1)

    def set_tables(self, round_number: int, set_number: int) -> list[tuple[str, str]]:
        """The tables of a round that play a set, as (match id, table), in match order, A before B."""
        rnd = self.round(round_number)
        return [(m.id, t) for m in (rnd.matches if rnd else ()) if m.set == set_number for t in self.table_ids()]

    def movement(self, round_number: int, set_number: int, runs: int = 2) -> Movement:
        """The movement of the round's tables on the set (:mod:`dealer.tournament.movement`):
        one copy a match (``runs``: the runs its set is cut into) or the event's shared copies;
        an :class:`EventError` naming the fewest copies when ``copies`` cannot serve the round."""
        return self.movement_of(self.set_tables(round_number, set_number), set_number, runs)

    def movement_of(self, tables: list[tuple[str, str]], set_number: int, runs: int = 2) -> Movement:
        """The movement of ``tables`` (as :meth:`set_tables` gives them) on the set."""
        boards = [b.number for b in self.set_boards(set_number)]
        try:
            return round_movement(tables, boards, self.copies, runs)
        except MovementError as error:
            raise EventError("movement.too_few_copies", copies=error.copies, tables=error.tables,
                             boards=error.boards, minimum=error.minimum) from None

    def playing_order(self, round_number: int, set_number: int, match_id: str, table: str) -> list[int]:
        """The boards of the set in the order the table plays them: with shared copies, its
        movement's; by default (one copy a match) the set's order, as the papers list them."""
        numbers = [b.number for b in self.set_boards(set_number)]
        if self.copies is None or self.levels:
            return numbers
        plan = self.movement(round_number, set_number).table((match_id, table))
        return plan.order() if plan is not None else numbers

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
        } | ({} if self.copies is None else {"copies": self.copies})  # a default plan is unchanged


def _table(value: Any, where: str, allowed: set[str], example: str) -> Mapping[str, Any]:
    """A TOML table with only known keys (a misspelt key must not be silently ignored)."""
    if not isinstance(value, Mapping):
        raise EventError("event.not_a_table_like", where=where, example=example, value=quote(value))
    unknown = set(value) - allowed
    if unknown:
        raise EventError(
            "event.unknown_keys", where=where, unknown=', '.join(sorted(unknown)), allowed=', '.join(sorted(allowed))
        )
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise EventError("event.not_a_list", where=where, value=quote(value))
    return value


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise EventError("event.not_a_boolean", where=where, value=quote(value))
    return value


def _require(data: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise EventError("event.missing", where=where, name=key)
    return data[key]


def _int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise EventError("event.number_out_of_range", where=where, low=low, high=high, value=quote(value))
    return value


#: Longest text value of an event file (a name is printed on slips and labels).
NAME_LIMIT = 200


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EventError("event.not_a_text", where=where, value=quote(value))
    if len(value.strip()) > NAME_LIMIT:
        raise EventError("event.text_too_long", where=where, limit=NAME_LIMIT, length=len(value.strip()))
    return value.strip()


def _level(value: Any, where: str) -> str:
    try:
        if not str(value).isascii():
            raise ValueError(value)
        return normalize_level(str(value))
    except ValueError:
        raise EventError(
            "event.not_a_level", where=where, levels=', '.join(LEVELS), value=quote(value)
        ) from None


def _seat(value: Any, where: str) -> str:
    text = str(value).strip()
    text = text.upper() if text.isascii() else text  # ASCII only: "ſ".upper() is "S"
    if text not in SEATS:
        raise EventError("event.not_a_seat", where=where, value=quote(value))
    return text


def _schedule(
    data: Mapping[str, Any], sets: int, boards: int
) -> dict[tuple[int, int], BoardConditions]:
    rotation_raw = data.get("declarer_rotation", list(DEFAULT_ROTATION))
    if not isinstance(rotation_raw, list) or not rotation_raw:
        raise EventError("event.declarer_rotation_not_a_list")
    rotation = [_seat(s, f"schedule.declarer_rotation[{i}]") for i, s in enumerate(rotation_raw)]
    levels_raw = data.get("levels", list(LEVELS))
    if not isinstance(levels_raw, list) or not levels_raw:
        raise EventError("event.levels_not_a_list")
    levels = [_level(v, f"schedule.levels[{i}]") for i, v in enumerate(levels_raw)]
    schedule = {
        (s, n): BoardConditions(s, n, rotation[(n - 1) % len(rotation)], levels[(n - 1) % len(levels)])
        for s in range(1, sets + 1)
        for n in range(1, boards + 1)
    }
    overrides = data.get("overrides", [])
    if not isinstance(overrides, list):
        raise EventError("event.overrides_not_a_list")
    for i, override in enumerate(overrides):
        where = f"schedule.overrides[{i}]"
        if not isinstance(override, Mapping):
            raise EventError("event.override_not_a_table", where=where)
        unknown = set(override) - {"set", "board", "declarer", "level"}
        if unknown:
            raise EventError("event.unknown_override_keys", where=where, unknown=', '.join(sorted(unknown)))
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
            "event.bad_id", event_id=quote(event_id)
        )
    name = _str(_require(head, "name", "event."), "event.name")
    date_value = head.get("date", "")
    if isinstance(date_value, dt.datetime) or isinstance(date_value, dt.time):
        raise EventError("event.date_with_time", date_value=date_value)
    if isinstance(date_value, dt.date):
        date = date_value.isoformat()
    else:
        date = str(date_value)
        if date:
            try:
                dt.date.fromisoformat(date)
            except ValueError:
                raise EventError("event.bad_date", date=quote(date)) from None
    timezone = head.get("timezone")
    if timezone is not None:
        timezone = _str(timezone, "event.timezone")
        if not known_zone(timezone):
            raise EventError("event.bad_timezone", timezone=quote(timezone))
    round_minutes = head.get("round_minutes")
    if round_minutes is not None:
        round_minutes = _int(round_minutes, "event.round_minutes", 1, 720)
    serve_url = head.get("serve_url")
    if serve_url is not None:
        checked = parse_serve_url(serve_url)
        if checked is None:
            raise EventError("event.bad_serve_url", value=quote(serve_url))
        serve_url = checked
    live_confirmation = _choice(head.get("live_confirmation", "team-code"), "event.live_confirmation",
                                LIVE_CONFIRMATIONS)
    profile_id = _str(_require(head, "profile", "event."), "event.profile")
    try:
        profile = find_profile(profile_id)
    except (KeyError, ProfileError) as error:
        raise EventError("event.bad_profile", error=error) from None
    if "rules" in data:  # the event's own rules (补充规定) over its profile's
        try:
            profile = with_rules(profile, data["rules"])
        except ProfileError as error:
            raise EventError("event.bad_rules", error=error) from None
    decks = _int(head.get("decks", 2), "event.decks", 1, 4)
    if decks not in profile.supported_decks:
        raise EventError(
            "event.decks_not_supported", profile_id=profile.id, supported=', '.join(map(str, profile.supported_decks)),
            decks=decks
        )
    rules = profile.rules_for(decks)
    kitty = _int(head.get("kitty", rules.kitty), "event.kitty", 0, 54 * decks)
    try:
        hand = rules.hand_for_kitty(kitty)
    except ProfileError as error:
        raise EventError("event.bad_kitty", error=error) from None
    kitty_mode = head.get("kitty_mode", "in-hand")
    if kitty_mode not in KITTY_MODES:
        raise EventError("event.bad_kitty_mode", kitty_mode=quote(kitty_mode))
    result = _choice(head.get("result", "boards"), "event.result", RESULT_KINDS)
    if result == "levels":
        stray = [f"event.{k}" for k in _BOARD_ONLY_KEYS if k in head] + (["schedule"] if "schedule" in data else [])
        if stray:
            raise EventError("event.level_race_has_no_boards", stray=', '.join(stray))
        tables = _int(_require(head, "tables", "event."), "event.tables", 2, MAX_TABLES)
    elif "tables" in head:
        raise EventError("event.tables_only_for_level_race")
    else:
        tables = 2
    table_numbers = _table_numbers(head.get("table_numbers", "per-match"))
    boards = _int(head.get("boards_per_set", 16), "event.boards_per_set", 1, 64)
    copies = _copies(head.get("copies"))
    event_format = _format(data.get("format", {}))
    team_count = len(data["teams"]) if isinstance(data.get("teams"), list) else 0
    needed = event_format.rounds_needed(team_count)
    sets = _int(head.get("sets", needed or 1), "event.sets", 1, 999)
    if sets < needed:
        raise EventError("event.too_few_sets", kind=event_format.kind, needed=needed, teams=team_count, sets=sets)
    teams_file = head.get("teams_file")
    if teams_file is not None:
        teams_file = _str(teams_file, "event.teams_file")
        if not TEAMS_FILE.fullmatch(teams_file):
            raise EventError("event.bad_teams_file", value=quote(teams_file))
    public_source = head.get("public_value_source")
    if public_source is not None:
        public_source = _str(public_source, "event.public_value_source")
    boards_dir = head.get("boards_dir")
    if boards_dir is not None:
        boards_dir = _str(boards_dir, "event.boards_dir")

    try:
        organization = parse_organization(data.get("organization", {}), data.get("officials", {}), date)
    except OrganizationError as error:
        raise EventError("organization.in_event", where=str(error.params.get("where", "organization")),
                         error=error) from None

    schedule_data = _table(data.get("schedule", {}), "schedule",
                           {"declarer_rotation", "levels", "overrides"}, "[schedule]")
    schedule = _schedule(schedule_data, sets, boards)

    teams: list[Team] = []
    seen_ids: set[str] = set()  # sets, not a scan of the teams so far: a league has thousands
    seen_seeds: set[int] = set()
    for i, item in enumerate(_list(data.get("teams", []), "teams")):
        where = f"teams[{i}]"
        raw = _table(item, where, _TEAM_KEYS, '[[teams]] with id = "T1", name = "…"')
        team_id = _str(_require(raw, "id", f"{where}."), f"{where}.id")
        if team_id in seen_ids:
            raise EventError("event.duplicate_team_id", where=where, team_id=quote(team_id))
        seen_ids.add(team_id)
        players = raw.get("players", [])
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise EventError("event.players_not_a_list", where=where)
        player_ids = raw.get("player_ids", [])
        if not isinstance(player_ids, list) or not all(isinstance(p, str) for p in player_ids) \
                or (player_ids and len(player_ids) != len(players)):
            raise EventError("event.player_ids_not_a_list", where=where)
        seed = raw.get("seed")
        if seed is not None:
            seed = _int(seed, f"{where}.seed", 1, 100_000)
            if seed in seen_seeds:
                raise EventError("event.duplicate_seed", where=where, seed=seed)
            seen_seeds.add(seed)
        teams.append(Team(
            team_id,
            _str(raw.get("name", team_id), f"{where}.name"),
            tuple(players),
            _bool(raw.get("mixed_club", False), f"{where}.mixed_club"),
            seed,
            _str(raw["club"], f"{where}.club") if "club" in raw else None,
            _str(raw["leader"], f"{where}.leader") if "leader" in raw else None,
            _str(raw["contact"], f"{where}.contact") if "contact" in raw else None,
            tuple(player_ids),
        ))
    team_ids = {t.id for t in teams}
    if event_format.paired and len(teams) < 2:
        raise EventError("event.too_few_teams", kind=event_format.kind)
    if event_format.paired and data.get("rounds"):
        raise EventError("event.rounds_are_paired", hint="round-pair", kind=event_format.kind)
    prizes: list[Prize] = []
    for i, item in enumerate(_list(data.get("prizes", []), "prizes")):
        where = f"prizes[{i}]"
        raw = _table(item, where, _PRIZE_KEYS, '[[prizes]] with name = "一等奖", teams = 1')
        prizes.append(Prize(_str(_require(raw, "name", f"{where}."), f"{where}.name"),
                            _int(_require(raw, "teams", f"{where}."), f"{where}.teams", 1, 100_000)))

    rounds: list[Round] = []
    for i, item in enumerate(_list(data.get("rounds", []), "rounds")):
        where = f"rounds[{i}]"
        raw = _table(item, where, _ROUND_KEYS, "[[rounds]] with number = 1, matches = […]")
        number = _int(raw.get("number", i + 1), f"{where}.number", 1, 999)
        if any(r.number == number for r in rounds):
            raise EventError("event.duplicate_round", where=where, number=number)
        matches: list[Match] = []
        match_ids: set[str] = set()
        busy: set[str] = set()
        for j, item_match in enumerate(_list(raw.get("matches", []), f"{where}.matches")):
            mwhere = f"{where}.matches[{j}]"
            m = _table(item_match, mwhere, _MATCH_KEYS, '{ id = "1", home = "T1", away = "T2", set = 1 }')
            raw_id = m.get("id", j + 1)
            if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
                raise EventError("event.bad_match_id_type", mwhere=mwhere, raw_id=quote(raw_id))
            match_id = _str(str(raw_id), f"{mwhere}.id")
            if not MATCH_ID.fullmatch(match_id):
                raise EventError(
                    "event.bad_match_id", mwhere=mwhere, match_id=quote(match_id)
                )
            if match_id in match_ids:
                raise EventError("event.duplicate_match", mwhere=mwhere, match_id=quote(match_id), number=number)
            match_ids.add(match_id)
            home = _str(_require(m, "home", f"{mwhere}."), f"{mwhere}.home")
            away = _str(_require(m, "away", f"{mwhere}."), f"{mwhere}.away")
            if home == away:
                raise EventError("event.team_plays_itself", mwhere=mwhere, home=quote(home))
            for key, team_id in (("home", home), ("away", away)):
                if team_id not in team_ids:
                    raise EventError(
                        "event.unknown_team", mwhere=mwhere, side=key, team_id=quote(team_id),
                        team_ids=', '.join(sorted(team_ids))
                    )
                if team_id in busy:
                    raise EventError("event.team_plays_twice", mwhere=mwhere, side=key, team_id=quote(team_id),
                                     number=number)
                busy.add(team_id)
            set_number = _int(m.get("set", 1), f"{mwhere}.set", 1, sets)
            matches.append(Match(number, match_id, home, away, set_number, table=j + 1))
        rounds.append(Round(number, tuple(matches)))

    event = Event(
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
        boards_dir=boards_dir,
        format=event_format,
        prizes=tuple(prizes),
        result=result,
        tables=tables,
        round_minutes=round_minutes,
        serve_url=serve_url,
        live_confirmation=live_confirmation,
        table_numbers=table_numbers,
        timezone=timezone,
        teams_file=teams_file,
        organization=organization,
        copies=copies,
    )
    if copies is not None:  # refused now, not when the round is printed: every round listed, a paired one's largest
        for rnd in event.rounds:
            for set_number in sorted({m.set for m in rnd.matches}):
                event.movement(rnd.number, set_number)
        if event_format.paired:
            event.copies_needed(1)  # no round paired yet: one match every two teams
    return event


def parse_serve_url(value: object) -> str | None:
    """A server's base URL as the entry QR codes hold it (``http://`` or ``https://``, a host, an
    optional port, no path, query, fragment or user; a final ``/`` dropped), or ``None`` if
    ``value`` is not one."""
    if not isinstance(value, str) or not value or len(value) > 200 or any(c.isspace() for c in value):
        return None
    parts = urllib.parse.urlsplit(value)
    try:
        port = parts.port  # a port out of range raises
    except ValueError:
        return None
    if (port == 0 or parts.scheme.lower() not in ("http", "https") or not _SERVER.fullmatch(parts.netloc)
            or parts.path not in ("", "/") or "?" in value or "#" in value):
        return None
    return f"{parts.scheme.lower()}://{parts.netloc}"


def _table_numbers(value: Any) -> str:
    """``event.table_numbers``: a preset, or a pattern that gives every table of a round its own
    name (``{seq}``, or ``{match}`` with ``{table}``) and no other field."""
    if value in TABLE_NUMBERINGS:
        return str(value)
    fields: set[str] = set()
    if isinstance(value, str):
        try:
            fields = {name for _text, name, _spec, _conv in string.Formatter().parse(value) if name is not None}
        except ValueError:
            fields = {"?"}
    if not isinstance(value, str) or not fields <= _TABLE_FIELDS or not (
            "seq" in fields or {"match", "table"} <= fields):
        raise EventError("event.bad_table_numbers", value=quote(value), presets=", ".join(TABLE_NUMBERINGS))
    return value


def _copies(value: Any) -> CopiesSetting:
    """``event.copies``: absent (one copy a match), a number of copies or ``"auto"``."""
    if value is None or value == "auto":
        return value  # type: ignore[no-any-return]
    if isinstance(value, str):
        raise EventError("movement.bad_copies", value=quote(value), most=MAX_COPIES)
    return _int(value, "event.copies", 1, MAX_COPIES)


def _choice(value: Any, where: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise EventError("event.not_a_choice", where=where, choices=', '.join(choices), value=quote(value))
    return str(value)


def _format(data: Any) -> Format:
    """The ``[format]`` table; every key is checked against its kind's keys."""
    raw = _table(data, "format", {"kind"} | set().union(*_FORMAT_KEYS.values()), '[format] with kind = "swiss"')
    kind = _choice(raw.get("kind", "fixed"), "format.kind", FORMAT_KINDS)
    stray = set(raw) - {"kind"} - _FORMAT_KEYS[kind]
    if stray:
        raise EventError("event.format_keys_do_not_apply", stray=', '.join(sorted(stray)), kind=quote(kind),
                         takes=', '.join(sorted(_FORMAT_KEYS[kind])) or 'nothing else')
    if kind == "swiss" and "rounds" not in raw:
        raise EventError("event.swiss_rounds_missing")
    bracket = raw.get("bracket", "standard")
    if not isinstance(bracket, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,63}", bracket):
        raise EventError("event.bad_bracket", bracket=quote(bracket))
    return Format(
        kind=kind,
        cycles=_int(raw.get("cycles", 1), "format.cycles", 1, 2),
        groups=_int(raw.get("groups", 1), "format.groups", 1, 64),
        rounds=_int(raw.get("rounds", 0), "format.rounds", 1, 99) if kind == "swiss" else 0,
        first_round=_choice(raw.get("first_round", "pinyin"), "format.first_round", ("pinyin", "split", "lots")),
        avoid_same_club=_bool(raw.get("avoid_same_club", False), "format.avoid_same_club"),
        elimination=_choice(raw.get("elimination", "single"), "format.elimination", ("single", "double")),
        grand_final=_choice(raw.get("grand_final", "reset"), "format.grand_final", ("reset", "single")),
        bracket=bracket,
        third_place=_bool(raw.get("third_place", False), "format.third_place"),
    )
