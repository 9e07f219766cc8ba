"""Knockouts (淘汰赛, 第二十五条): single and double elimination brackets with seeds and byes.

Pure domain code, no I/O. A :class:`Bracket` is built once from the seeded teams and a
:class:`BracketOrder` (which seed stands at which bracket position; the data file
``dealer/data/brackets/standard.toml`` is the default, read elsewhere and checked here by
:func:`bracket_order_from_mapping`). Results come in as ``winners`` (slot → winning team id), so
the bracket itself stores nothing and any round can be recomputed from the stored results; how a
tied match gets a winner is the scoring profile's business, not this module's.

Shape (N = 2^k positions, the smallest power of two ≥ the number of teams):

- Seeds beyond the field are empty, so with the standard order the round-1 byes fall to the top
  seeds (实力占优者第1轮轮空). A match with one empty source is a *bye*: its team advances without
  play and nobody loses; with both sources empty the match is *empty*. Both are fixed by the
  draw alone, never by results.
- Winners' bracket round r: slots ``W{r}-{i}``. Single elimination plays it in tournament round r
  (k rounds).
- Double elimination (双败淘汰) as §25 says: losers' bracket round 1 (``L1-i``, tournament round 2)
  pairs the round-1 losers by their corresponding positions (losers of W1-(2i−1) and W1-2i);
  even losers' rounds ``L{2j}`` (tournament round 2j+1) pair the previous losers' winners with
  the losers of winners' round j+1; odd ones (``L{2j+1}``) pair losers' winners among themselves.
  Winners' round r ≥ 2 is played in tournament round 2r−2, so each drop-in arrives just in time.
  ``F1`` (round 2k) is the winners' champion against the losers' champion; with
  ``grand_final = "reset"`` an ``F2`` (round 2k+1) is played only when the losers' champion won
  F1; with ``"single"`` F1 decides.
- Drop-in order: the losers of winners' round j+1 enter the losers' bracket reversed when j is
  odd and reversed within each half when j is even (for two matches: straight). Feeding a
  dropped team from the far side of the bracket keeps it away from the teams it has already
  beaten. Of the simple alternating orders this one had the fewest rematches in simulated full
  brackets of 16, 32 and 64 with random winners (reverse/straight: 0.76, 1.10, 1.89 rematches
  per event; this: 0.76, 0.73, 0.90), and round L2 never repeats a winners' bracket match from
  8 teams up.
- Home is the better (lower) original seed, in every bracket and in the finals.
- A single elimination may add a third-place match (``third_place``, 三四名决赛): slot ``P3``,
  the semi-final losers, played in the final's round (4 teams at least); its winner places 3rd,
  its loser 4th; until it is played, both share 3rd (a custom bracket order whose semi-final is
  a bye: its one loser is 3rd without play).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from dealer.errors import Phrase, UserError, quote

Elimination = Literal["single", "double"]
GrandFinal = Literal["reset", "single"]
Section = Literal["winners", "losers", "final", "third"]
#: A round's name by its place in the bracket (the word catalog's ``stage_<name>``).
Stage = Literal["final", "semi_final", "quarter_final"]
SlotState = Literal["empty", "bye", "waiting", "ready", "decided", "not needed"]

_ORDER_KEYS = {"sizes", "source"}


class BracketError(UserError, ValueError):
    """A bracket cannot be built or a round computed as asked; the message names the field."""


class BracketOrderError(BracketError):
    """The bracket order data is not valid; the message names the key."""


class ResultMissing(BracketError):
    """A round depends on matches that have no winner yet; ``slots`` lists them."""

    def __init__(self, key: str, slots: Sequence[str], **params: object) -> None:
        super().__init__(key, field="winners")
        self.params.update(params)
        self.slots = tuple(slots)


@dataclass(frozen=True)
class BracketOrder:
    """For each bracket size, the seed number standing at each position (position 1 first).

    Positions 2i−1 and 2i meet in round 1, and each pair of neighbouring round-1 matches feeds
    one round-2 match, and so on. ``source`` says where the order comes from (printed with the
    bracket, so a director knows which seed table was used).
    """

    sizes: Mapping[int, tuple[int, ...]]
    source: str = ""

    def positions(self, size: int) -> tuple[int, ...]:
        order = self.sizes.get(size)
        if order is None:
            known = ", ".join(str(s) for s in sorted(self.sizes)) or "none"
            raise BracketOrderError(
                "knockout.no_order_for_size", field=f"sizes.{size}", size=size, known=known)
        return order


def bracket_order_from_mapping(data: Mapping[str, Any]) -> BracketOrder:
    """Check parsed bracket order data (the TOML of ``dealer/data/brackets/standard.toml``).

    ``sizes`` maps a power of two (2, 4, 8, …) to the seed at each position; each list must be a
    permutation of 1…size, because a seed placed twice or missing would silently drop a team.
    Any other arrangement is accepted: the rules' own seed table (附件七) may differ from ours.
    """
    if not isinstance(data, Mapping):
        raise BracketOrderError("knockout.order_not_a_table")
    unknown = sorted(set(data) - _ORDER_KEYS)
    if unknown:
        raise BracketOrderError("knockout.unknown_key", field=unknown[0], unknown=quote(unknown[0]))
    source = data.get("source", "")
    if not isinstance(source, str):
        raise BracketOrderError("knockout.source_not_text", field="source", source=quote(source))
    sizes = data.get("sizes")
    if not isinstance(sizes, Mapping) or not sizes:
        raise BracketOrderError("knockout.sizes_missing",
                                field="sizes")
    out: dict[int, tuple[int, ...]] = {}
    for key, value in sizes.items():
        where = f"sizes.{key}"
        size = int(key) if isinstance(key, str) and key.isascii() and key.isdigit() else 0
        if size < 2 or size & (size - 1):
            raise BracketOrderError("knockout.size_not_power_of_two",
                                    field=where, size=quote(key))
        if not isinstance(value, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in value):
            raise BracketOrderError("knockout.not_seed_numbers", field=where, value=quote(value))
        if sorted(value) != list(range(1, size + 1)):
            repeated = sorted({s for s in value if value.count(s) > 1})
            missing = sorted(set(range(1, size + 1)) - set(value))
            detail = [part for part in (
                Phrase.of("knockout.repeated", seeds=", ".join(map(str, repeated))) if repeated else None,
                Phrase.of("knockout.missing", seeds=", ".join(map(str, missing))) if missing else None,
                Phrase.of("knockout.count", numbers=len(value), size=size) if len(value) != size else None) if part]
            raise BracketOrderError("knockout.seeds_not_once_each", field=where, size=size, detail=detail)
        out[size] = tuple(value)
    return BracketOrder(dict(sorted(out.items())), source)


@dataclass(frozen=True)
class Source:
    """Where a team of a match comes from: a seed, or the winner or loser of an earlier slot."""

    kind: Literal["seed", "winner", "loser"]
    ref: int | str  # the seed number (1 = best), or a slot id

    def __str__(self) -> str:
        return f"{self.kind}:{self.ref}"


@dataclass(frozen=True)
class BracketSlot:
    """One match of the bracket: its stable id, where it sits and when it is played.

    ``stage`` is the round within its section (winners' round r, losers' round m, final 1 or 2);
    ``round`` is the tournament round (one board set, one 90-minute slot).
    """

    slot: str
    section: Section
    stage: int
    round: int
    sources: tuple[Source, Source]


@dataclass(frozen=True)
class KnockoutMatch:
    slot: str
    home: str
    away: str


@dataclass(frozen=True)
class KnockoutBye:
    """A team that advances from ``slot`` without play (its opponent's place is empty)."""

    slot: str
    team: str


@dataclass(frozen=True)
class KnockoutRound:
    number: int
    matches: tuple[KnockoutMatch, ...] = ()
    byes: tuple[KnockoutBye, ...] = ()


class SlotView(TypedDict):
    slot: str
    section: str
    stage: int
    sources: list[str]
    teams: list[str | None]  # in source order (top, bottom of the drawing); None = not known or empty
    home: str | None
    winner: str | None
    state: str  # a SlotState


class RoundView(TypedDict):
    round: int
    slots: list[SlotView]


class BracketView(TypedDict):
    elimination: str
    grand_final: str
    size: int
    entrants: list[str]
    order_source: str
    rounds_needed: int
    rounds: list[RoundView]


class _Pending(Exception):
    """Internal: a team cannot be known yet because ``slot`` has no winner."""

    def __init__(self, slot: str) -> None:
        super().__init__(slot)
        self.slot = slot


def _drop_order(matches: int, drop: int) -> list[int]:
    """Which winners' match (1-based) drops its loser into each losers' match of drop round ``drop``."""
    if drop % 2 == 1:
        return [matches + 1 - i for i in range(1, matches + 1)]
    half = matches // 2
    if half == 0:
        return [1]
    return [half + 1 - i if i <= half else matches + half + 1 - i for i in range(1, matches + 1)]


class Bracket:
    """A seeded single or double elimination bracket; see the module docstring for its shape.

    ``seeds`` are team ids, best first. The bracket holds no results: every method takes
    ``winners`` (slot → winning team id, for every match played so far) and checks it.
    """

    def __init__(self, seeds: Sequence[str], elimination: Elimination, grand_final: GrandFinal,
                 order: BracketOrder, third_place: bool = False) -> None:
        seen: set[str] = set()
        for team in seeds:
            if not isinstance(team, str) or not team:
                raise BracketError("knockout.bad_team_id", field="seeds", team=quote(team))
            if team in seen:
                raise BracketError("knockout.seeded_twice", field="seeds", team=quote(team))
            seen.add(team)
        if len(seeds) < 2:
            raise BracketError("knockout.too_few_teams", field="seeds", teams=len(seeds))
        if elimination not in ("single", "double"):
            raise BracketError("knockout.bad_elimination",
                               field="elimination", elimination=quote(elimination))
        if grand_final not in ("reset", "single"):
            raise BracketError("knockout.bad_grand_final",
                               field="grand_final", grand_final=quote(grand_final))
        if third_place and (elimination != "single" or len(seeds) < 4):
            raise BracketError("knockout.third_place_not_possible", field="third_place",
                               elimination=elimination, teams=len(seeds))
        self.seeds: tuple[str, ...] = tuple(seeds)
        self.third_place = third_place
        self.elimination: Elimination = elimination
        self.grand_final: GrandFinal = grand_final
        self.order = order
        self.levels = max(1, (len(seeds) - 1).bit_length())
        self.size = 2 ** self.levels
        self.positions = order.positions(self.size)
        self._seed_number = {team: number for number, team in enumerate(self.seeds, 1)}
        self.slots: tuple[BracketSlot, ...] = tuple(self._build())
        self._by_id = {s.slot: s for s in self.slots}
        self._state = self._structural_states()

    # ---- structure -------------------------------------------------------------------------
    def _build(self) -> list[BracketSlot]:
        k, double = self.levels, self.elimination == "double"
        slots: list[BracketSlot] = []

        def wb_round(r: int) -> int:
            return r if not double or r == 1 else 2 * r - 2

        for i in range(1, self.size // 2 + 1):
            slots.append(BracketSlot(f"W1-{i}", "winners", 1, 1, (
                Source("seed", self.positions[2 * i - 2]), Source("seed", self.positions[2 * i - 1]))))
        for r in range(2, k + 1):
            for i in range(1, self.size // 2**r + 1):
                slots.append(BracketSlot(f"W{r}-{i}", "winners", r, wb_round(r), (
                    Source("winner", f"W{r - 1}-{2 * i - 1}"), Source("winner", f"W{r - 1}-{2 * i}"))))
        if not double:
            if self.third_place:
                slots.append(BracketSlot("P3", "third", 1, k, (
                    Source("loser", f"W{k - 1}-1"), Source("loser", f"W{k - 1}-2"))))
            return slots
        if k == 1:
            losers_champion = Source("loser", "W1-1")
        else:
            for i in range(1, self.size // 4 + 1):
                slots.append(BracketSlot(f"L1-{i}", "losers", 1, 2, (
                    Source("loser", f"W1-{2 * i - 1}"), Source("loser", f"W1-{2 * i}"))))
            for j in range(1, k):
                count = self.size // 2 ** (j + 1)
                for i, dropped in enumerate(_drop_order(count, j), 1):
                    slots.append(BracketSlot(f"L{2 * j}-{i}", "losers", 2 * j, 2 * j + 1, (
                        Source("winner", f"L{2 * j - 1}-{i}"), Source("loser", f"W{j + 1}-{dropped}"))))
                if j < k - 1:
                    for i in range(1, count // 2 + 1):
                        slots.append(BracketSlot(f"L{2 * j + 1}-{i}", "losers", 2 * j + 1, 2 * j + 2, (
                            Source("winner", f"L{2 * j}-{2 * i - 1}"), Source("winner", f"L{2 * j}-{2 * i}"))))
            losers_champion = Source("winner", f"L{2 * k - 2}-1")
        slots.append(BracketSlot("F1", "final", 1, 2 * k, (Source("winner", f"W{k}-1"), losers_champion)))
        if self.grand_final == "reset":
            slots.append(BracketSlot("F2", "final", 2, 2 * k + 1, (Source("winner", "F1"), Source("loser", "F1"))))
        return slots

    def _structural_states(self) -> dict[str, SlotState]:
        """Which slots are empty, byes or real matches: fixed by the draw, before any result."""
        state: dict[str, SlotState] = {}

        def present(source: Source) -> bool:
            if source.kind == "seed":
                return int(source.ref) <= len(self.seeds)
            before = state[str(source.ref)]
            return before != "empty" if source.kind == "winner" else before == "ready"

        for s in self.slots:  # built in an order where every source comes first
            count = sum(present(source) for source in s.sources)
            state[s.slot] = "ready" if count == 2 else "bye" if count == 1 else "empty"
        return state

    @property
    def rounds_needed(self) -> int:
        """The most tournament rounds (board sets to deal): k single; 2k double, +1 for a reset."""
        return self.slots[-1].round

    def stage(self, number: int) -> Stage | None:
        """The name of tournament round ``number``: a single elimination's last three rounds are
        the final, the semi-finals and the quarter-finals; a double elimination's final rounds
        (F1, F2) the final; any other round has none (第 N 轮)."""
        if self.elimination == "double":
            return "final" if any(s.section == "final" and s.round == number for s in self.slots) else None
        stages: dict[int, Stage] = {0: "final", 1: "semi_final", 2: "quarter_final"}
        return stages.get(self.levels - number)

    def _champion_slot(self) -> str:
        return f"W{self.levels}-1" if self.elimination == "single" else "F1"

    # ---- results ---------------------------------------------------------------------------
    def _resolver(self, winners: Mapping[str, str]) -> _Resolver:
        resolver = _Resolver(self, winners)
        resolver.check()
        return resolver

    def round(self, number: int, winners: Mapping[str, str]) -> KnockoutRound:
        """Tournament round ``number``: its matches (home = better seed) and its byes.

        Raises :class:`ResultMissing` naming every match it still needs a winner for; returns an
        empty round when nothing is left to play in it (no reset needed).
        """
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= self.rounds_needed:
            raise BracketError("knockout.no_such_round",
                               field="round", rounds=self.rounds_needed, number=quote(number))
        resolver = self._resolver(winners)
        matches: list[KnockoutMatch] = []
        byes: list[KnockoutBye] = []
        pending: list[str] = []
        for s in self.slots:
            if s.round != number or self._state[s.slot] == "empty":
                continue
            try:
                teams = resolver.teams(s)
                if s.slot == "F2" and not resolver.reset_needed():
                    continue
            except _Pending as missing:
                pending.append(missing.slot)
                continue
            if self._state[s.slot] == "bye":
                byes.append(KnockoutBye(s.slot, next(t for t in teams if t is not None)))
            else:
                home, away = sorted((t for t in teams if t is not None), key=self._seed_number.__getitem__)
                matches.append(KnockoutMatch(s.slot, home, away))
        if pending:
            names = ", ".join(dict.fromkeys(pending))
            raise ResultMissing("knockout.winners_missing",
                                list(dict.fromkeys(pending)), number=number, names=names)
        return KnockoutRound(number, tuple(matches), tuple(byes))

    def places(self, winners: Mapping[str, str]) -> list[tuple[int, tuple[str, ...]]]:
        """Final places so far: (place, teams sharing it), best first; only teams already placed.

        A team's place is 1 + the number of teams that outlast it; teams knocked out in the same
        tournament round share it (single: semi-final losers 3, quarter-final losers 5, …;
        double: the losers' final loser 3, then by the round of the second loss). Counts come from
        the draw, so a team's place is known the moment it is knocked out.
        """
        resolver = self._resolver(winners)
        n = len(self.seeds)
        out: dict[int, list[str]] = {}
        knocked_out = "winners" if self.elimination == "single" else "losers"
        ordered = sorted((s for s in self.slots if s.section == knocked_out and self._state[s.slot] == "ready"),
                         key=lambda s: s.round)
        eliminated = 0
        third = self._by_id.get("P3")
        for number in sorted({s.round for s in ordered}):
            in_round = [s for s in ordered if s.round == number]
            eliminated += len(in_round)
            for s in in_round:
                if third is not None and s.stage == self.levels - 1:
                    continue  # the semi-final losers are placed by the third-place match
                loser = resolver.loser_or_none(s)
                if loser is not None:
                    out.setdefault(1 + n - eliminated, []).append(loser)
        if third is not None:
            if self._state["P3"] == "ready" and "P3" in winners:
                out.setdefault(3, []).append(winners["P3"])
                loser = resolver.loser_or_none(third)
                if loser is not None:
                    out.setdefault(4, []).append(loser)
            elif self._state["P3"] == "ready":  # until it is played, the semi-final losers share 3rd
                out.setdefault(3, []).extend(t for t in resolver.teams_or_none(third) if t is not None)
            elif self._state["P3"] == "bye":
                alone = next((t for t in resolver.teams_or_none(third) if t is not None), None)
                if alone is not None:
                    out.setdefault(3, []).append(alone)
        if self.elimination == "double":
            final = "F2" if self.grand_final == "reset" and resolver.reset_needed_or_none() else "F1"
            if final in winners:
                loser = resolver.loser_or_none(self._by_id[final])
                if loser is not None:
                    out.setdefault(2, []).append(loser)
                    out.setdefault(1, []).append(winners[final])
        elif self._champion_slot() in winners:
            out.setdefault(1, []).append(winners[self._champion_slot()])
        return [(place, tuple(sorted(teams, key=self._seed_number.__getitem__)))
                for place, teams in sorted(out.items())]

    def view(self, winners: Mapping[str, str]) -> BracketView:
        """The bracket as plain data for a drawing: rounds → slots → teams, winner, state."""
        resolver = self._resolver(winners)
        rounds: dict[int, list[SlotView]] = {}
        for s in self.slots:
            teams = [resolver.team_or_none(source) for source in s.sources]
            state: SlotState = self._state[s.slot]
            winner: str | None = None
            if state == "bye":
                winner = next((t for t in teams if t is not None), None)
                if winner is None:
                    state = "waiting"
            elif state == "ready":
                if s.slot == "F2" and resolver.reset_needed_or_none() is False:
                    state = "not needed"
                elif s.slot in winners:
                    state, winner = "decided", winners[s.slot]
                elif None in teams:
                    state = "waiting"
            known = [t for t in teams if t is not None]
            home = min(known, key=self._seed_number.__getitem__) if len(known) == 2 else None
            rounds.setdefault(s.round, []).append(SlotView(
                slot=s.slot, section=s.section, stage=s.stage, sources=[str(x) for x in s.sources],
                teams=teams, home=home, winner=winner, state=state))
        return BracketView(
            elimination=self.elimination, grand_final=self.grand_final, size=self.size,
            entrants=list(self.seeds), order_source=self.order.source, rounds_needed=self.rounds_needed,
            rounds=[RoundView(round=number, slots=slots) for number, slots in sorted(rounds.items())])


@dataclass
class _Resolver:
    """Teams of each slot under one set of results (memoized for one call)."""

    bracket: Bracket
    winners: Mapping[str, str]
    _cache: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)

    def check(self) -> None:
        """Every given winner names a real match, comes after its sources, and played in it."""
        if not isinstance(self.winners, Mapping):
            raise BracketError("knockout.bad_winners", field="winners")
        b = self.bracket
        for slot, team in self.winners.items():
            where = f"winners.{slot}"
            s = b._by_id.get(slot) if isinstance(slot, str) else None
            if s is None:
                raise BracketError("knockout.no_such_match", field=where, slot=quote(slot))
            if b._state[slot] != "ready":
                state = Phrase("knockout.a_bye") if b._state[slot] == "bye" else Phrase("knockout.an_empty_place")
                raise BracketError("knockout.not_a_match", field=where, slot=slot, state=state)
            try:
                teams = self.teams(s)
                if slot == "F2" and not self.reset_needed():
                    raise BracketError("knockout.f2_not_played", field=where)
            except _Pending as missing:
                raise BracketError("knockout.winner_before_feeder", field=where, slot=slot,
                                   feeder=missing.slot) from None
            if team not in teams:
                raise BracketError("knockout.team_not_in_match", field=where, team=quote(team), slot=slot,
                                   home=teams[0], away=teams[1])

    def team(self, source: Source) -> str | None:
        """The team a source delivers; None for an empty place; _Pending while undecided."""
        if source.kind == "seed":
            number = int(source.ref)
            return self.bracket.seeds[number - 1] if number <= len(self.bracket.seeds) else None
        winner, loser = self._outcome(str(source.ref))
        return winner if source.kind == "winner" else loser

    def team_or_none(self, source: Source) -> str | None:
        try:
            return self.team(source)
        except _Pending:
            return None

    def teams(self, s: BracketSlot) -> tuple[str | None, str | None]:
        return self.team(s.sources[0]), self.team(s.sources[1])

    def teams_or_none(self, s: BracketSlot) -> tuple[str | None, str | None]:
        return self.team_or_none(s.sources[0]), self.team_or_none(s.sources[1])

    def _outcome(self, slot: str) -> tuple[str | None, str | None]:
        """(winner, loser) of a slot: a bye has no loser, an empty slot neither."""
        if slot in self._cache:
            return self._cache[slot]
        b = self.bracket
        state = b._state[slot]
        outcome: tuple[str | None, str | None]
        if state == "empty":
            outcome = (None, None)
        elif state == "bye":
            first, second = self.teams(b._by_id[slot])
            outcome = (first if first is not None else second, None)
        else:
            teams = self.teams(b._by_id[slot])
            if slot not in self.winners:
                raise _Pending(slot)
            winner = self.winners[slot]
            outcome = (winner, teams[1] if teams[0] == winner else teams[0])
        self._cache[slot] = outcome
        return outcome

    def loser_or_none(self, s: BracketSlot) -> str | None:
        try:
            return self._outcome(s.slot)[1]
        except _Pending:
            return None

    def reset_needed(self) -> bool:
        """F2 is played only when the losers' champion (F1's second source) won F1."""
        f1 = self.bracket._by_id["F1"]
        winner, _ = self._outcome("F1")
        return winner == self.team(f1.sources[1])

    def reset_needed_or_none(self) -> bool | None:
        try:
            return self.reset_needed()
        except _Pending:
            return None
