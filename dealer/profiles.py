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
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from dealer.cards import LEVELS, normalize_level
from dealer.errors import UserError

Side = Literal["declarer", "tai", "defenders"]
_SIDES: tuple[Side, ...] = ("declarer", "tai", "defenders")


class ProfileError(UserError, ValueError):
    """A rule profile or a request against it is not valid."""


@dataclass(frozen=True)
class LevelBand:
    """One band of a deck count's conversion: defenders' points from ``min`` to ``max`` give ``side``
    (declarers or defenders) ``base`` levels, plus one a ``per`` points counted ``up`` or ``down``
    from ``anchor``, at most ``cap``."""

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
    """What a profile says for one number of decks: hand and kitty sizes and the level bands."""

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


#: How a withdrawn team (``dealer teams withdraw``) counts in its opponents' 对手分
#: (``opponents_match_points``): ``as-played``, the match points it earned before it left;
#: ``excluded``, not at all (its opponents' 对手分 leave it out).
WITHDRAWN_OPPONENT_RULES = ("as-played", "excluded")
#: Registration fields a profile may require of every team (``registration.required``).
REGISTRATION_FIELDS = ("club", "leader", "players", "seed", "contact", "mixed_club")
#: Who a warning counts against (``[warnings] counted``): the offending player (seed 002: 违例者)
#: or the team (seed 001: 违规方).
WARNING_COUNTS = ("player", "team")
#: What an escalation step may apply (:data:`dealer.scoring.PENALTY_KINDS`, repeated here: the
#: profile does not import scoring).
STEP_KINDS = ("points", "levels", "board", "match", "match_points", "net_levels", "disqualify")


@dataclass(frozen=True)
class WarningStep:
    """The ``at``-th warning of a player (or team) applies ``apply``: (kind, amount) pairs."""

    at: int
    apply: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Ruling:
    """A ruling a rule text gives as one decision of several penalties (``[rulings.<name>]``;
    seed 002 七.1: 判负 + 罚两级): given with ``dealer results penalty --ruling NAME``."""

    name: str
    clause: str
    name_zh: str
    name_en: str
    apply: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class WarningRule:
    """How warnings escalate (``[warnings]``; seed 002 §六: the 2nd 判本盘负 + 罚一级, the 3rd 此轮判负):
    counted per ``counted`` over the event; a warning with no step of its own is logged only."""

    counted: str = "player"
    steps: tuple[WarningStep, ...] = ()

    def step(self, nth: int) -> WarningStep | None:
        """The step of the ``nth`` warning; past the last step, the last one."""
        found = next((s for s in self.steps if s.at == nth), None)
        if found is None and self.steps and nth > self.steps[-1].at:
            return self.steps[-1]
        return found


#: How a level race's match winner is decided (``[level_race] match_winner``): by net levels over
#: its tables (seed 002; equal = a draw) or by tables won (seed 001: 5场3胜).
#: ``games``: seed 000 第二十四条 计局制 played as best of three games a round (三局两胜): each table
#: goes to the side that won more of its games (at equal games, time up: the higher level, 计局制
#: with 计时制), the match to the side with more tables.
MATCH_WINNER_RULES = ("net_levels", "tables", "games")


@dataclass(frozen=True)
class LevelRaceRule:
    """How a level race (计时制 / 计局制, ``result = "levels"``) is scored: every side starts at
    ``start`` (seed 001: 3, 首局开局打“3”); a table's climbed levels are its final level's distance
    from ``start`` (过A: one level past A); the match winner by ``match_winner``."""

    start: str = "2"
    match_winner: str = "net_levels"
    #: Games a table plays a round (``best_of``: 1, or 3 for 三局两胜); a side needs a majority.
    best_of: int = 1
    #: Levels a side must play and cannot jump over (seed 003: 2、J、A必打): a climb stops at
    #: the first of them it reaches (``must_play_levels``; :func:`dealer.race.advance`).
    must_play: tuple[str, ...] = ()

    @property
    def games_to_win(self) -> int:
        return self.best_of // 2 + 1


#: The keys a tie-break chain (``tie_breaks``) may name, in the order the standings define them
#: (:data:`dealer.standings.TIE_BREAKS`, the functions; the names are here so that checking an
#: event's chain needs no scoring code).
TIE_BREAK_KEYS = ("net_level_points", "level_points_for", "head_to_head", "opponents_match_points", "mixed_club",
                  "game_ratio", "lots")
#: How a drawn knockout match is decided, in order (``knockout_tie_breaks``); the last one
#: always decides.
KNOCKOUT_TIE_BREAKS = ("boards_won", "countback", "higher_seed")
#: What a prize does when its last place falls inside a shared rank (``prize_ties``): ``share``
#: extends it to every team sharing that rank (the next prize starts after them); ``higher_seed``
#: gives it to the better seeds of the tied teams, the others going on to the next prize.
PRIZE_TIES = ("share", "higher_seed")


@dataclass(frozen=True)
class Profile:
    """A rule profile (DESIGN §3) as read from its data file: every rule the tool applies to an event."""

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
    prize_ties: str = "share"  # a prize boundary inside a shared rank (:data:`PRIZE_TIES`)
    #: Championship points by final place (seed 001: 10 / 7 / 5 / 3), ``final_place_points``.
    place_points: tuple[int, ...] = ()
    level_race: LevelRaceRule = LevelRaceRule()
    #: A withdrawn team in its opponents' 对手分 (:data:`WITHDRAWN_OPPONENT_RULES`).
    withdrawn_opponent: str = "as-played"
    #: Registration fields every team must give (``dealer teams import``), e.g. seed 002's mixed_club.
    registration_required: tuple[str, ...] = ()
    warnings: WarningRule = WarningRule()
    #: Rulings of several penalties given as one (``[rulings]``), by name.
    rulings: Mapping[str, Ruling] = field(default_factory=dict)
    #: The field's datum of a board (``field = { datum = "trimmed" }``, docs/results.md): the mean
    #: without the highest and lowest result from six tables on (``trimmed``), or the plain ``mean``.
    datum: str = "trimmed"
    #: A round's time and when the players are warned, in minutes (``timing``; seed 002 §七.7: 90,
    #: with 15 left): ``None`` where the rules are silent (the event's ``round_minutes`` then).
    round_minutes: int | None = None
    warning_minutes: int | None = None
    #: The time a player may take for one play and the declarer for the kitty, in seconds
    #: (``timing``; seed 001 8(8): 10 s a play; seed 002 §八.7: 20 s a play, 1 min 30 s for the
    #: kitty): ``None`` where the rules are silent. Enforced by the referee (a warning's reason);
    #: printed in the booklet and on the table cards.
    play_seconds: int | None = None
    kitty_seconds: int | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)
    #: The profile's keys an event's ``[rules]`` changed (its 补充规定), in the order given.
    supplement: tuple[str, ...] = ()
    #: The data the profile was built from (with the event's rules merged in, if any).
    data: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

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

    def bound(key: str, low: int, high: int) -> int | None:
        value = data.get(key)
        return None if value is None else _whole(value, f"{where}.{key}", low, high)

    return LevelBand(
        side=side,
        base=_whole(data.get("base", 0), f"{where}.base", 0, 100),
        min=bound("min", -10_000, 10_000),
        max=bound("max", -10_000, 10_000),
        per=bound("per", 1, 10_000),
        anchor=_whole(data.get("anchor", 0), f"{where}.anchor", -10_000, 10_000),
        count=count,
        cap=bound("cap", 0, 100),
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


#: Every key a profile's data file may have (any other is kept in :attr:`Profile.extras`).
PROFILE_KEYS = frozenset({
    "id", "version", "name_zh", "name_en", "note_zh", "note_en", "source", "interpretation",
    "decks", "match_points", "tie_breaks", "tai_counts_as_level", "bye", "forfeit", "lateness",
    "knockout_tie_breaks", "final_place_points", "level_race", "prize_ties", "withdrawal", "registration",
    "warnings", "timing", "rulings", "must_play_levels", "field",
})
#: Keys an event's ``[rules]`` cannot change: who the profile is, and its deck rules (hands,
#: kitty, the conversion bands: what the deal and its commitment stand on). An event that needs
#: other deck rules names a profile file of its own.
FIXED_KEYS = frozenset({"id", "version", "name_zh", "name_en", "note_zh", "note_en", "source",
                        "interpretation", "decks"})


def profile_from_mapping(data: Mapping[str, Any], label: str | None = None) -> Profile:
    """Build a profile from its parsed data file; raises :class:`ProfileError` naming the key,
    after ``label`` (default ``profile <id>, ``; an event's rules: ``rules.``)."""
    if not isinstance(data, Mapping):
        raise ProfileError("profiles.not_a_table", where=(label or "profile ").rstrip(", ."))
    name = str(data.get("id", "?"))
    label = f"profile {name}, " if label is None else label
    deck_rules: dict[int, DeckRules] = {}
    for key, rules in _keys(data.get("decks", {}), f"{label}decks", None).items():
        where = f"{label}decks.{key}"
        if not str(key).isdigit():
            raise ProfileError("profiles.bad_deck_count", where=where)
        decks = int(key)
        raw = _keys(rules, where, {"hand", "kitty", "bands", "alternative_kitty", "kitty_multipliers"})
        band_list = raw.get("bands")
        if not isinstance(band_list, list) or not band_list:
            raise ProfileError("profiles.bands_not_a_list", where=f"{where}.bands")
        bands = tuple(_band(_keys(band, f"{where}.bands[{i}]", None), f"{where}.bands[{i}]")
                      for i, band in enumerate(band_list))
        _check_bands(bands, where)
        hand = _whole(raw.get("hand"), f"{where}.hand", 1, 1000)
        kitty = _whole(raw.get("kitty"), f"{where}.kitty", 0, 1000)
        if 4 * hand + kitty != 54 * decks:
            raise ProfileError("profiles.cards_do_not_add_up", where=where, hand=hand, kitty=kitty, decks=54 * decks)
        deck_rules[decks] = DeckRules(
            decks=decks,
            hand=hand,
            kitty=kitty,
            bands=bands,
            alternative_kitty=_numbers(raw.get("alternative_kitty", []), f"{where}.alternative_kitty", 0, 1000),
            kitty_multipliers={k: _whole(v, f"{where}.kitty_multipliers.{k}", 0, 100) for k, v in
                               _keys(raw.get("kitty_multipliers", {}), f"{where}.kitty_multipliers", None).items()},
        )
    if not deck_rules:
        raise ProfileError("profiles.no_deck_rules", where=f"{label}decks")
    match_points = _match_points(data.get("match_points"), label)
    round_minutes, warning_minutes, play_seconds, kitty_seconds = _timing(data.get("timing", {}), label)
    return Profile(
        id=name,
        version=_whole(data.get("version", 1), f"{label}version", 1, 1_000_000),
        name_zh=str(data.get("name_zh", name)),
        name_en=str(data.get("name_en", name)),
        note_zh=str(data.get("note_zh", "")),
        note_en=str(data.get("note_en", "")),
        source=str(data.get("source", "")),
        interpretation=bool(data.get("interpretation", True)),
        deck_rules=deck_rules,
        match_points=match_points,
        tie_breaks=_tie_breaks(data.get("tie_breaks", []), label),
        tai_counts_as_level=_flag(data.get("tai_counts_as_level", False), f"{label}tai_counts_as_level"),
        bye=_bye(data.get("bye", {}), label, match_points),
        forfeit=_forfeit(data.get("forfeit", {}), label),
        lateness=_lateness(data.get("lateness", []), label),
        knockout_tie_breaks=_knockout_tie_breaks(data.get("knockout_tie_breaks", list(KNOCKOUT_TIE_BREAKS)), label),
        prize_ties=_prize_ties(data.get("prize_ties", "share"), label),
        place_points=_place_points(data.get("final_place_points", []), label),
        level_race=_level_race(data.get("level_race", {}), label, data.get("must_play_levels", [])),
        withdrawn_opponent=_withdrawal(data.get("withdrawal", {}), label),
        registration_required=_registration(data.get("registration", {}), label),
        round_minutes=round_minutes,
        warning_minutes=warning_minutes,
        play_seconds=play_seconds,
        kitty_seconds=kitty_seconds,
        warnings=_warnings(data.get("warnings", {}), label),
        rulings=_rulings(data.get("rulings", {}), label),
        datum=_field(data.get("field", {}), label),
        extras={k: v for k, v in data.items() if k not in PROFILE_KEYS},
        data=data,
    )


def with_rules(profile: Profile, rules: Any, label: str = "rules.") -> Profile:
    """``profile`` with an event's rules (补充规定, the event file's ``[rules]``) merged in: any of
    the profile's keys but :data:`FIXED_KEYS`, a table merged key by key into the profile's (so
    ``match_points = { win = 3 }`` keeps the profile's draw and loss), anything else replaced;
    the result is checked as a profile file is, every error naming ``rules.<key>``. The keys
    whose value changed are the profile's :attr:`~Profile.supplement`."""
    where = label.rstrip(".")
    if not isinstance(rules, Mapping):
        raise ProfileError("profiles.not_a_table", where=where)
    allowed = (PROFILE_KEYS | set(profile.data)) - FIXED_KEYS
    fixed = sorted(set(rules) & FIXED_KEYS)
    if fixed:
        raise ProfileError("profiles.rules_fixed_key", where=f"{label}{fixed[0]}", profile=profile.id)
    _keys(rules, where, allowed)
    merged = _merged(profile.data, rules)
    changed = tuple(k for k in rules if merged.get(k) != profile.data.get(k))
    found = profile_from_mapping(merged, label)
    return replace(found, supplement=(*profile.supplement, *(k for k in changed if k not in profile.supplement)))


def _merged(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes``: a table over a table merged key by key, anything else replaced."""
    out = dict(base)
    for key, value in changes.items():
        old = base.get(key)
        out[key] = _merged(old, value) if isinstance(old, Mapping) and isinstance(value, Mapping) else value
    return out


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ProfileError("profiles.not_a_flag", where=where, value=value)
    return value


def _match_points(data: Any, label: str) -> dict[str, int]:
    """``match_points = { win = 2, draw = 1, loss = 0 }``: all three, a win worth the most."""
    where = f"{label}match_points"
    raw = _keys(data, where, {"win", "draw", "loss"})
    if set(raw) != {"win", "draw", "loss"}:
        raise ProfileError("profiles.match_points_incomplete", where=where)
    points = {k: _whole(raw[k], f"{where}.{k}", 0, 100) for k in ("win", "draw", "loss")}
    if not points["win"] > points["loss"] or not points["win"] >= points["draw"] >= points["loss"]:
        raise ProfileError("profiles.match_points_order", where=where, win=points["win"], draw=points["draw"],
                           loss=points["loss"])
    return points


def _tie_breaks(data: Any, label: str) -> tuple[str, ...]:
    """The chain's keys (whether the standings know each is checked where they are: the event's
    loading, :mod:`dealer.files`)."""
    where = f"{label}tie_breaks"
    if not isinstance(data, list) or not all(isinstance(k, str) and k for k in data) or len(set(data)) < len(data):
        raise ProfileError("profiles.bad_tie_breaks", where=where, data=data)
    return tuple(data)


def _whole(value: Any, where: str, low: int = -1000, high: int = 1000) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ProfileError("profiles.number_out_of_range", where=where, low=low, high=high, value=value)
    return value


def _keys(data: Any, where: str, allowed: set[str] | frozenset[str] | None) -> Mapping[str, Any]:
    """A table (``allowed``: its only keys; ``None``: any)."""
    if not isinstance(data, Mapping):
        raise ProfileError("profiles.not_a_table", where=where)
    if allowed is None:
        return data
    unknown = set(data) - allowed
    if unknown:
        raise ProfileError("event.unknown_keys", where=where, unknown=', '.join(sorted(unknown)),
                           allowed=', '.join(sorted(allowed)))
    return data


def _bye(data: Any, label: str, match_points: Mapping[str, int]) -> ByeRule:
    """``bye = { match_points = "win", level_points = 0 }``: a result name or a number."""
    where = f"{label}bye"
    raw = _keys(data, where, {"match_points", "level_points"})
    points = raw.get("match_points", "win")
    value = match_points[points] if isinstance(points, str) and points in match_points else \
        _whole(points, f"{where}.match_points", 0, 100)
    return ByeRule(value, _whole(raw.get("level_points", 0), f"{where}.level_points", 0, 100))


def _withdrawal(data: Any, label: str) -> str:
    """``withdrawal = { opponents_match_points = "as-played" }``."""
    where = f"{label}withdrawal"
    raw = _keys(data, where, {"opponents_match_points"})
    rule = raw.get("opponents_match_points", "as-played")
    if rule not in WITHDRAWN_OPPONENT_RULES:
        raise ProfileError("event.not_a_choice", where=f"{where}.opponents_match_points",
                           choices=", ".join(WITHDRAWN_OPPONENT_RULES), value=rule)
    return str(rule)


#: The datum rules (``field = { datum = … }``; :mod:`dealer.field`).
DATUM_RULES = ("trimmed", "mean")


def _field(data: Any, label: str) -> str:
    """``field = { datum = "trimmed" }`` (or ``"mean"``): how a board's datum is taken."""
    where = f"{label}field"
    raw = _keys(data, where, {"datum"})
    rule = raw.get("datum", "trimmed")
    if rule not in DATUM_RULES:
        raise ProfileError("event.not_a_choice", where=f"{where}.datum", choices=", ".join(DATUM_RULES), value=rule)
    return str(rule)


def _timing(data: Any, label: str) -> tuple[int | None, int | None, int | None, int | None]:
    """``timing = { round_minutes = 90, warning_minutes = 15, play_seconds = 20, kitty_seconds = 90 }``:
    a round's time and the minutes left when the players are warned; the seconds a play and the
    kitty may take. Each ``None`` where absent."""
    where = f"{label}timing"
    raw = _keys(data, where, {"round_minutes", "warning_minutes", "play_seconds", "kitty_seconds"})
    round_minutes, warning_minutes = (None if raw.get(key) is None else _whole(raw[key], f"{where}.{key}", 1, 720)
                                      for key in ("round_minutes", "warning_minutes"))
    if round_minutes is not None and warning_minutes is not None and warning_minutes >= round_minutes:
        raise ProfileError("profiles.number_out_of_range", where=f"{where}.warning_minutes", low=1,
                           high=round_minutes - 1, value=warning_minutes)
    play_seconds, kitty_seconds = (None if raw.get(key) is None else _whole(raw[key], f"{where}.{key}", 1, 3600)
                                   for key in ("play_seconds", "kitty_seconds"))
    return round_minutes, warning_minutes, play_seconds, kitty_seconds


def _registration(data: Any, label: str) -> tuple[str, ...]:
    """``registration = { required = ["mixed_club"] }``: fields every registered team gives."""
    where = f"{label}registration"
    raw = _keys(data, where, {"required"})
    required = raw.get("required", [])
    if not isinstance(required, list) or any(f not in REGISTRATION_FIELDS for f in required):
        raise ProfileError("event.not_a_choice", where=f"{where}.required",
                           choices=", ".join(REGISTRATION_FIELDS), value=required)
    return tuple(required)


def _forfeit(data: Any, label: str) -> ForfeitRule:
    where = f"{label}forfeit"
    raw = _keys(data, where, {"winner_levels_per_table", "forfeiter_match_points"})
    forfeiter = raw.get("forfeiter_match_points")
    return ForfeitRule(
        _whole(raw.get("winner_levels_per_table", 0), f"{where}.winner_levels_per_table", 0, 100),
        None if forfeiter is None else _whole(forfeiter, f"{where}.forfeiter_match_points", 0, 100))


def _lateness(data: Any, label: str) -> tuple[LatenessRule, ...]:
    if not isinstance(data, list):
        raise ProfileError("profiles.lateness_not_a_list", where=f"{label}lateness")
    rules: list[LatenessRule] = []
    for i, item in enumerate(data):
        where = f"{label}lateness[{i}]"
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


def _warnings(data: Any, label: str) -> WarningRule:
    """``[warnings]``: ``counted = "player"|"team"``, ``steps = [{ at = 2, apply = [{ kind =
    "board" }, { kind = "levels", amount = -1 }] }, …]`` (steps in rising ``at``)."""
    where = f"{label}warnings"
    raw = _keys(data, where, {"counted", "steps"})
    counted = raw.get("counted", "player")
    if counted not in WARNING_COUNTS:
        raise ProfileError("profiles.bad_warning_count", where=f"{where}.counted", value=counted,
                           known=", ".join(WARNING_COUNTS))
    steps_data = raw.get("steps", [])
    if not isinstance(steps_data, list):
        raise ProfileError("profiles.warning_steps_not_a_list", where=f"{where}.steps")
    steps: list[WarningStep] = []
    for i, item in enumerate(steps_data):
        at_where = f"{where}.steps[{i}]"
        step = _keys(item, at_where, {"at", "apply"})
        at = _whole(step.get("at"), f"{at_where}.at", 1, 100)
        if steps and at <= steps[-1].at:
            raise ProfileError("profiles.warning_steps_order", where=f"{at_where}.at")
        steps.append(WarningStep(at, _applied(step.get("apply", []), f"{at_where}.apply")))
    return WarningRule(str(counted), tuple(steps))


def _applied(applied: Any, where: str) -> tuple[tuple[str, int], ...]:
    """``apply = [{ kind = "levels", amount = -2 }, …]`` (a warning step's or a ruling's penalties):
    (kind, amount) pairs, at least one."""
    if not isinstance(applied, list) or not applied:
        raise ProfileError("profiles.warning_steps_not_a_list", where=where)
    pairs = []
    for j, penalty in enumerate(applied):
        p_where = f"{where}[{j}]"
        p = _keys(penalty, p_where, {"kind", "amount"})
        if p.get("kind") not in STEP_KINDS:
            raise ProfileError("profiles.bad_step_kind", where=f"{p_where}.kind", value=p.get("kind"),
                               known=", ".join(STEP_KINDS))
        pairs.append((str(p["kind"]), _whole(p.get("amount", 0), f"{p_where}.amount", -1000, 1000)))
    return tuple(pairs)


def _knockout_tie_breaks(data: Any, label: str) -> tuple[str, ...]:
    where = f"{label}knockout_tie_breaks"
    if not isinstance(data, list) or not data or any(k not in KNOCKOUT_TIE_BREAKS for k in data):
        raise ProfileError("profiles.bad_knockout_tie_breaks", where=where, known=', '.join(KNOCKOUT_TIE_BREAKS),
                           data=data)
    if data[-1] != "higher_seed":
        raise ProfileError("profiles.knockout_ties_end", where=where)
    return tuple(data)


def _prize_ties(data: Any, label: str) -> str:
    if data not in PRIZE_TIES:
        raise ProfileError("profiles.bad_prize_ties", where=f"{label}prize_ties", known=', '.join(PRIZE_TIES),
                           data=data)
    return str(data)


def _numbers(data: Any, where: str, low: int, high: int) -> tuple[int, ...]:
    if not isinstance(data, list):
        raise ProfileError("profiles.not_a_list_of_numbers", where=where, data=data)
    return tuple(_whole(v, f"{where}[{i}]", low, high) for i, v in enumerate(data))


def _place_points(data: Any, label: str) -> tuple[int, ...]:
    """``final_place_points = [10, 7, 5, 3]``: whole numbers, not rising."""
    where = f"{label}final_place_points"
    points = _numbers(data, where, 0, 10_000)
    if any(lower > upper for upper, lower in itertools.pairwise(points)):
        raise ProfileError("profiles.place_points_not_descending", where=where, points=list(points))
    return points


def _level_race(data: Any, label: str, must_play: Any = ()) -> LevelRaceRule:
    where = f"{label}level_race"
    raw = _keys(data, where, {"start", "match_winner", "best_of"})
    start = str(raw.get("start", "2"))
    try:
        start = normalize_level(start)
    except ValueError:
        raise ProfileError("profiles.bad_start", where=where, levels=', '.join(LEVELS), start=start) from None
    winner = raw.get("match_winner", "net_levels")
    if winner not in MATCH_WINNER_RULES:
        raise ProfileError("profiles.bad_match_winner", where=where, rules=', '.join(MATCH_WINNER_RULES), winner=winner)
    best_of = _whole(raw.get("best_of", 3 if winner == "games" else 1), f"{where}.best_of", 1, 9)
    if best_of % 2 == 0 or (winner == "games") != (best_of > 1):
        raise ProfileError("profiles.bad_best_of", where=f"{where}.best_of", value=best_of)
    if not isinstance(must_play, list | tuple):
        raise ProfileError("profiles.bad_must_play", where=f"{label}must_play_levels", levels=', '.join(LEVELS))
    levels = []
    for level in must_play:
        try:
            levels.append(normalize_level(str(level)))
        except ValueError:
            raise ProfileError("profiles.bad_must_play", where=f"{label}must_play_levels",
                               levels=', '.join(LEVELS)) from None
    return LevelRaceRule(start, str(winner), best_of, tuple(sorted(set(levels), key=LEVELS.index)))


def _rulings(data: Any, label: str) -> dict[str, Ruling]:
    """``[rulings.<name>]``: ``clause``, ``name_zh``, ``name_en`` and ``apply = [{ kind = "board" },
    { kind = "levels", amount = -2 }]`` (the penalties, as a warning step's)."""
    where = f"{label}rulings"
    found: dict[str, Ruling] = {}
    for name, item in _keys(data, where, None).items():
        at = f"{where}.{name}"
        raw = _keys(item, at, {"clause", "name_zh", "name_en", "apply"})
        found[str(name)] = Ruling(str(name), str(raw.get("clause", "")), str(raw.get("name_zh", name)),
                                  str(raw.get("name_en", name)), _applied(raw.get("apply", []), f"{at}.apply"))
    return found
