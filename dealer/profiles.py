"""Rule profiles: the numbers of a rule set, read from data, and the conversion of a board's
defenders' points into level points.

Pure domain code: a profile is built from a plain mapping (the parsed TOML of
``dealer/data/profiles/*.toml``; :mod:`dealer.resources` loads those files).

A level band covers the defenders' points ``min``…``max`` (inclusive, either bound open) and
credits ``side`` ("declarer", "tai" or "defenders") with ``base`` levels plus, when ``per`` is
set, ``ceil((anchor - P) / per)`` ("down") or ``floor((P - anchor) / per)`` ("up") more, capped at
``cap``. The profile option ``tai_counts_as_level`` credits the 上台 band with one level to the
defenders and every defenders' band with one more.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from dealer.cards import LEVELS, normalize_level
from dealer.errors import UserError

Side = Literal["declarer", "tai", "defenders"]
_SIDES: tuple[Side, ...] = ("declarer", "tai", "defenders")


class ProfileError(UserError, ValueError):
    """A rule profile or a request against it is not valid."""


@dataclass(frozen=True)
class LevelBand:
    side: Side
    base: int
    min: int | None = None
    max: int | None = None
    per: int | None = None
    anchor: int = 0
    count: Literal["up", "down"] = "up"
    cap: int | None = None

    def contains(self, points: int) -> bool:
        return (self.min is None or points >= self.min) and (self.max is None or points <= self.max)

    def levels(self, points: int, bonus: int = 0) -> int:
        """Levels for ``points`` in this band; ``bonus`` is added before the cap."""
        levels = self.base + bonus
        if self.per is not None:
            if self.count == "down":
                levels += -((points - self.anchor) // self.per)  # ceil((anchor - P) / per)
            else:
                levels += (points - self.anchor) // self.per
        if self.cap is not None:
            levels = min(levels, self.cap)
        return levels

    def describe(self) -> str:
        """Range text like ``80…115`` or ``≤ -5`` or ``≥ 120``."""
        if self.min is None and self.max is None:
            return "any"
        if self.min is None:
            return f"≤ {self.max}"
        if self.max is None:
            return f"≥ {self.min}"
        if self.min == self.max:
            return str(self.min)
        return f"{self.min}…{self.max}"


@dataclass(frozen=True)
class DeckRules:
    decks: int
    hand: int
    kitty: int
    bands: tuple[LevelBand, ...]
    alternative_kitty: tuple[int, ...] = ()
    kitty_multipliers: Mapping[str, int] = field(default_factory=dict)

    @property
    def total_points(self) -> int:
        return 100 * self.decks

    def hand_for_kitty(self, kitty: int) -> int:
        """Hand size when the kitty has ``kitty`` cards (the pack is shared out evenly)."""
        cards = 54 * self.decks - kitty
        if kitty not in (self.kitty, *self.alternative_kitty) or cards % 4:
            allowed = ", ".join(str(k) for k in (self.kitty, *self.alternative_kitty))
            raise ProfileError("profiles.kitty_not_allowed", kitty=kitty, decks=self.decks, allowed=allowed)
        return cards // 4


@dataclass(frozen=True)
class LevelResult:
    """A board's result converted into level points."""

    profile: str
    decks: int
    defenders_points: int
    declarer_levels: int
    defenders_levels: int
    outcome: Side

    def as_dict(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "decks": self.decks,
            "defenders_points": self.defenders_points,
            "declarer_levels": self.declarer_levels,
            "defenders_levels": self.defenders_levels,
            "outcome": self.outcome,
        }


@dataclass(frozen=True)
class ByeRule:
    """What a team gets for a round without an opponent (a bye, 轮空)."""

    match_points: int
    level_points: int = 0  # level points for; nothing against


@dataclass(frozen=True)
class ForfeitRule:
    """A forfeited match (弃权): the other team wins; ``winner_levels_per_table`` level points
    to the winner at each of the match's tables (seed 002: the winner nets 5 levels a table)."""

    winner_levels_per_table: int = 0
    #: Match points of the team that forfeited; ``None``: a loss (seed 001: 0, below its loss of 1).
    forfeiter_match_points: int | None = None


@dataclass(frozen=True)
class LatenessRule:
    """A team ``min_minutes``…``max_minutes`` late (inclusive; ``None`` open): its net level points
    change by ``net_level_points``, or it forfeits the round."""

    min_minutes: int
    max_minutes: int | None = None
    net_level_points: int = 0
    forfeit: bool = False

    def covers(self, minutes: int) -> bool:
        return minutes >= self.min_minutes and (self.max_minutes is None or minutes <= self.max_minutes)


#: How a level race's match winner is decided (``[level_race] match_winner``): by net levels over
#: its tables (seed 002; equal = a draw) or by tables won (seed 001: 5场3胜).
MATCH_WINNER_RULES = ("net_levels", "tables")


@dataclass(frozen=True)
class LevelRaceRule:
    """How a level race (计时制 / 计局制, ``result = "levels"``) is scored: every side starts at
    ``start`` (seed 001: 3, 首局开局打“3”); a table's climbed levels are its final level's distance
    from ``start`` (过A: one level past A); the match winner by ``match_winner``."""

    start: str = "2"
    match_winner: str = "net_levels"


#: How a drawn knockout match is decided, in order (``knockout_tie_breaks``); the last one
#: always decides.
KNOCKOUT_TIE_BREAKS = ("boards_won", "countback", "higher_seed")


@dataclass(frozen=True)
class Profile:
    id: str
    version: int
    name_zh: str
    name_en: str
    note_zh: str
    note_en: str
    source: str
    interpretation: bool
    deck_rules: Mapping[int, DeckRules]
    match_points: Mapping[str, int]
    tie_breaks: tuple[str, ...]
    tai_counts_as_level: bool = False
    bye: ByeRule = ByeRule(2)
    forfeit: ForfeitRule = ForfeitRule()
    lateness: tuple[LatenessRule, ...] = ()
    knockout_tie_breaks: tuple[str, ...] = KNOCKOUT_TIE_BREAKS
    #: Championship points by final place (seed 001: 10 / 7 / 5 / 3), ``final_place_points``.
    place_points: tuple[int, ...] = ()
    level_race: LevelRaceRule = LevelRaceRule()
    extras: Mapping[str, Any] = field(default_factory=dict)

    @property
    def supported_decks(self) -> tuple[int, ...]:
        return tuple(sorted(self.deck_rules))

    def rules_for(self, decks: int) -> DeckRules:
        try:
            return self.deck_rules[decks]
        except KeyError:
            supported = ", ".join(str(d) for d in self.supported_decks)
            raise ProfileError(
                "profiles.decks_not_supported", profile=self.id, decks=decks, supported=supported
            ) from None

    def level_points(self, decks: int, defenders_points: int) -> LevelResult:
        """Convert the defenders' points of one board into level points.

        Raises :class:`ProfileError` when the points are not a multiple of 5 or the deck
        count is not supported.
        """
        rules = self.rules_for(decks)
        if defenders_points % 5:
            raise ProfileError("profiles.points_not_multiple_of_5", defenders_points=defenders_points)
        for band in rules.bands:
            if band.contains(defenders_points):
                bonus = 1 if self.tai_counts_as_level and band.side != "declarer" else 0
                levels = band.levels(defenders_points, bonus)
                declarer = levels if band.side == "declarer" else 0
                defenders = levels if band.side != "declarer" else 0
                return LevelResult(
                    self.id, decks, defenders_points, declarer, defenders, band.side
                )
        raise ProfileError(  # pragma: no cover - profiles are checked to cover every value
            "profiles.no_band", profile=self.id, defenders_points=defenders_points
        )

    def lateness_rule(self, minutes: int) -> LatenessRule | None:
        """The rule for a team ``minutes`` late, or ``None`` when lateness costs nothing."""
        return next((rule for rule in self.lateness if rule.covers(minutes)), None)

    def match_points_for(self, own: int, other: int) -> int:
        """Match points for a team that scored ``own`` level points against ``other``."""
        if own > other:
            return self.match_points["win"]
        if own < other:
            return self.match_points["loss"]
        return self.match_points["draw"]


def _band(data: Mapping[str, Any], where: str) -> LevelBand:
    side = data.get("side")
    if side not in _SIDES:
        raise ProfileError("profiles.bad_side", where=where, sides=', '.join(_SIDES), side=side)
    count = data.get("count", "up")
    if count not in ("up", "down"):
        raise ProfileError("profiles.bad_count", where=where, count=count)
    unknown = set(data) - {"side", "base", "min", "max", "per", "anchor", "count", "cap"}
    if unknown:
        raise ProfileError("event.unknown_override_keys", where=where, unknown=', '.join(sorted(unknown)))
    return LevelBand(
        side=side,
        base=int(data.get("base", 0)),
        min=data.get("min"),
        max=data.get("max"),
        per=data.get("per"),
        anchor=int(data.get("anchor", 0)),
        count=count,
        cap=data.get("cap"),
    )


def _check_bands(bands: Sequence[LevelBand], where: str) -> None:
    """Bands must be sorted, cover every multiple of 5 exactly once, open at both ends."""
    if bands[0].min is not None or bands[-1].max is not None:
        raise ProfileError("profiles.bands_not_open", where=where)
    for lower, upper in itertools.pairwise(bands):
        if lower.max is None or upper.min is None or upper.min != lower.max + 5:
            raise ProfileError(
                "profiles.bands_not_contiguous", where=where, lower=lower.describe(), upper=upper.describe()
            )


def profile_from_mapping(data: Mapping[str, Any]) -> Profile:
    """Build a profile from its parsed data file; raises :class:`ProfileError`."""
    name = str(data.get("id", "?"))
    deck_rules: dict[int, DeckRules] = {}
    for key, rules in dict(data.get("decks", {})).items():
        decks = int(key)
        where = f"profile {name}, decks.{key}"
        bands = tuple(_band(band, f"{where}.bands[{i}]") for i, band in enumerate(rules["bands"]))
        _check_bands(bands, where)
        hand, kitty = int(rules["hand"]), int(rules["kitty"])
        if 4 * hand + kitty != 54 * decks:
            raise ProfileError("profiles.cards_do_not_add_up", where=where, hand=hand, kitty=kitty, decks=54 * decks)
        deck_rules[decks] = DeckRules(
            decks=decks,
            hand=hand,
            kitty=kitty,
            bands=bands,
            alternative_kitty=tuple(int(k) for k in rules.get("alternative_kitty", [])),
            kitty_multipliers=dict(rules.get("kitty_multipliers", {})),
        )
    if not deck_rules:
        raise ProfileError("profiles.no_deck_rules", name=name)
    match_points = {k: int(v) for k, v in dict(data["match_points"]).items()}
    if set(match_points) != {"win", "draw", "loss"}:
        raise ProfileError("profiles.match_points_incomplete", name=name)
    known = {
        "id", "version", "name_zh", "name_en", "note_zh", "note_en", "source", "interpretation",
        "decks", "match_points", "tie_breaks", "tai_counts_as_level", "bye", "forfeit", "lateness",
        "knockout_tie_breaks", "final_place_points", "level_race",
    }
    return Profile(
        id=name,
        version=int(data.get("version", 1)),
        name_zh=str(data.get("name_zh", name)),
        name_en=str(data.get("name_en", name)),
        note_zh=str(data.get("note_zh", "")),
        note_en=str(data.get("note_en", "")),
        source=str(data.get("source", "")),
        interpretation=bool(data.get("interpretation", True)),
        deck_rules=deck_rules,
        match_points=match_points,
        tie_breaks=tuple(str(t) for t in data.get("tie_breaks", [])),
        tai_counts_as_level=bool(data.get("tai_counts_as_level", False)),
        bye=_bye(data.get("bye", {}), name, match_points),
        forfeit=_forfeit(data.get("forfeit", {}), name),
        lateness=_lateness(data.get("lateness", []), name),
        knockout_tie_breaks=_knockout_tie_breaks(data.get("knockout_tie_breaks", list(KNOCKOUT_TIE_BREAKS)), name),
        place_points=_place_points(data.get("final_place_points", []), name),
        level_race=_level_race(data.get("level_race", {}), name),
        extras={k: v for k, v in data.items() if k not in known},
    )


def _whole(value: Any, where: str, low: int = -1000, high: int = 1000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ProfileError("profiles.number_out_of_range", where=where, low=low, high=high, value=value)
    return value


def _keys(data: Any, where: str, allowed: set[str]) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise ProfileError("profiles.not_a_table", where=where)
    unknown = set(data) - allowed
    if unknown:
        raise ProfileError("event.unknown_keys", where=where, unknown=', '.join(sorted(unknown)),
                           allowed=', '.join(sorted(allowed)))
    return data


def _bye(data: Any, name: str, match_points: Mapping[str, int]) -> ByeRule:
    """``bye = { match_points = "win", level_points = 0 }``: a result name or a number."""
    where = f"profile {name}, bye"
    raw = _keys(data, where, {"match_points", "level_points"})
    points = raw.get("match_points", "win")
    value = match_points[points] if isinstance(points, str) and points in match_points else \
        _whole(points, f"{where}.match_points", 0, 100)
    return ByeRule(value, _whole(raw.get("level_points", 0), f"{where}.level_points", 0, 100))


def _forfeit(data: Any, name: str) -> ForfeitRule:
    where = f"profile {name}, forfeit"
    raw = _keys(data, where, {"winner_levels_per_table", "forfeiter_match_points"})
    forfeiter = raw.get("forfeiter_match_points")
    return ForfeitRule(
        _whole(raw.get("winner_levels_per_table", 0), f"{where}.winner_levels_per_table", 0, 100),
        None if forfeiter is None else _whole(forfeiter, f"{where}.forfeiter_match_points", 0, 100))


def _lateness(data: Any, name: str) -> tuple[LatenessRule, ...]:
    if not isinstance(data, list):
        raise ProfileError("profiles.lateness_not_a_list", name=name)
    rules: list[LatenessRule] = []
    for i, item in enumerate(data):
        where = f"profile {name}, lateness[{i}]"
        raw = _keys(item, where, {"min_minutes", "max_minutes", "net_level_points", "forfeit"})
        low = _whole(raw.get("min_minutes"), f"{where}.min_minutes", 0, 1000)
        high = raw.get("max_minutes")
        rule = LatenessRule(
            low, None if high is None else _whole(high, f"{where}.max_minutes", low, 1000),
            _whole(raw.get("net_level_points", 0), f"{where}.net_level_points", -100, 0),
            bool(raw.get("forfeit", False)))
        if rules and (rules[-1].max_minutes is None or rule.min_minutes <= rules[-1].max_minutes):
            raise ProfileError("profiles.lateness_overlaps", where=where)
        rules.append(rule)
    return tuple(rules)


def _knockout_tie_breaks(data: Any, name: str) -> tuple[str, ...]:
    where = f"profile {name}, knockout_tie_breaks"
    if not isinstance(data, list) or not data or any(k not in KNOCKOUT_TIE_BREAKS for k in data):
        raise ProfileError("profiles.bad_knockout_tie_breaks", where=where, known=', '.join(KNOCKOUT_TIE_BREAKS),
                           data=data)
    if data[-1] != "higher_seed":
        raise ProfileError("profiles.knockout_ties_end", where=where)
    return tuple(data)


def _place_points(data: Any, name: str) -> tuple[int, ...]:
    """``final_place_points = [10, 7, 5, 3]``: whole numbers, not rising."""
    where = f"profile {name}, final_place_points"
    if not isinstance(data, list):
        raise ProfileError("profiles.not_a_list_of_numbers", where=where, data=data)
    points = tuple(_whole(v, f"{where}[{i}]", 0, 10_000) for i, v in enumerate(data))
    if any(lower > upper for upper, lower in itertools.pairwise(points)):
        raise ProfileError("profiles.place_points_not_descending", where=where, points=list(points))
    return points


def _level_race(data: Any, name: str) -> LevelRaceRule:
    where = f"profile {name}, level_race"
    raw = _keys(data, where, {"start", "match_winner"})
    start = str(raw.get("start", "2"))
    try:
        start = normalize_level(start)
    except ValueError:
        raise ProfileError("profiles.bad_start", where=where, levels=', '.join(LEVELS), start=start) from None
    winner = raw.get("match_winner", "net_levels")
    if winner not in MATCH_WINNER_RULES:
        raise ProfileError("profiles.bad_match_winner", where=where, rules=', '.join(MATCH_WINNER_RULES), winner=winner)
    return LevelRaceRule(start, str(winner))
