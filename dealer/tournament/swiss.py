"""Swiss pairing (积分编排, seed 002): round 1 by pinyin, split or lots; later rounds by score.

A later round is one maximum-weight matching (Edmonds' blossom algorithm, rustworkx) over the
teams, with priorities in this order:

1. no rematch, whenever a rematch-free pairing of the whole field exists;
2. the smallest possible largest score gap (a bottleneck found first, see :func:`_pair_once`);
3. the smallest sum of squared score gaps (teams float to the nearest score group);
4. home/away balance: as few pairs as possible of two teams that both need the same side;
5. with ``avoid_same_club``, as few pairs as possible from one club (分会);
6. neighbours in the standings (1 v 2, 3 v 4 within a score group, as round 1 pairs 1–2, 3–4).

The Chinese hand procedure pairs score groups top down and, when stuck, reopens the last pairs;
a matching over the whole field reaches the same aims without getting stuck. Priorities 3–6 are
folded into one integer weight per edge whose factors keep them lexicographic (a lower
priority can never outweigh one unit of a higher one).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from dealer.deal import shuffle_positions
from dealer.tournament import PairedRound, Pairing, PairingWarning

#: Domain tag of the lots stream (round 1 ``first_round = "lots"``): never a board's stream.
LOTS_TAG = b"shengji-dealer/swiss-lots/v1\x00"
FIRST_ROUND = ("pinyin", "split", "lots")
#: Fields up to this size are paired over the whole graph: every priority is exact.
WHOLE_FIELD = 256
#: Larger fields: each team is first joined to this many neighbours on each side in the
#: standings, and to half as many of the next teams owed the other side (home/away); the search
#: widens the window before it accepts a larger gap or a rematch, so priorities 1 and 2 stay
#: exact, and 3–6 are as good as the window allows (a 2,000-team round in well under a second).
WINDOW = 8


@dataclass(frozen=True)
class SwissTeam:
    """A team as the pairing of the next round sees it."""

    id: str
    score: int  # match points so far (byes and forfeits included)
    rank: int  # 1 = first in the current standings
    opponents: frozenset[str] = frozenset()
    home: int = 0  # matches played as home (E-W at table A)
    away: int = 0
    sides: str = ""  # "H"/"A" per match played, oldest first (who was away more recently)
    byes: int = 0
    club: str | None = None

    @property
    def balance(self) -> int:
        return self.home - self.away


@dataclass(frozen=True)
class Cost:
    """What a pairing costs, by priority (see the module docstring); smaller is better."""

    rematches: int
    largest_gap: int
    squared_gaps: int
    side_conflicts: int
    same_club: int
    rank_distance: int

    def key(self) -> tuple[int, ...]:
        return (self.rematches, self.largest_gap, self.squared_gaps, self.side_conflicts, self.same_club,
                self.rank_distance)


@dataclass
class _Edge:
    a: int
    b: int
    rematch: bool
    gap: int
    conflict: bool
    same_club: bool
    distance: int
    weight: int = field(default=0)


# --- round 1 ------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class PinyinKey:
    """A team name's place in pinyin order (seed 002: 按照队伍名称拼音首字母排序), compared field
    by field: the toneless pinyin letters of the whole name as one string (``libaidui``), then
    the tones syllable by syllable, then the name itself."""

    letters: str
    tones: tuple[int, ...]
    name: str
    #: The syllables with their tone numbers (``li3``), as printed; not compared.
    syllables: tuple[str, ...] = field(compare=False, default=())

    def text(self) -> str:
        """The key as the round-1 pairings print it: ``libaidui (li3 bai2 dui4)``."""
        return f"{self.letters} ({' '.join(self.syllables)})"


def pinyin_key(name: str) -> PinyinKey:
    """The :class:`PinyinKey` of a team name.

    pypinyin reads the name by words from its phrase dictionary, so a polyphone takes the
    reading of the word it is in (重庆 chóngqìng, 长安 cháng'ān, 银行 yínháng); each Chinese
    character gives one syllable with its tone (1–4, 5 = neutral). A run of other characters
    (letters, digits) is a syllable of its own, lower-cased, without a tone (0); spaces are
    dropped.
    """
    from pypinyin import Style, lazy_pinyin  # only when round 1 is paired by pinyin

    letters, tones, syllables = [], [], []
    for item in lazy_pinyin(name, style=Style.TONE3, neutral_tone_with_five=True,
                            errors=lambda run: "\0" + run):
        if item.startswith("\0"):  # not a Chinese character
            for word in item[1:].split():
                letters.append(word.casefold())
                tones.append(0)
                syllables.append(word.casefold())
            continue
        toneless = item.rstrip("012345")
        letters.append(toneless)
        tones.append(int(item[len(toneless):] or 0))
        syllables.append(item)
    return PinyinKey("".join(letters), tuple(tones), name, tuple(syllables))


def pinyin_order(teams: Sequence[tuple[str, str]]) -> list[str]:
    """Team ids from ``(id, name)`` pairs in pinyin order (:func:`pinyin_key`, then the id)."""
    return [team_id for team_id, _name in sorted(teams, key=lambda t: (pinyin_key(t[1]), t[0]))]


def first_round_pinyin(teams: Sequence[tuple[str, str]],
                       clubs: Mapping[str, str | None] | None = None) -> PairedRound:
    """Round 1 from ``(id, name)`` pairs: names in pinyin order, 1 v 2, 3 v 4 …; the first of
    each pair is home; an odd field gives the last team the bye. With ``clubs`` (team → club,
    ``avoid_same_club``) two teams of one club are separated (:func:`separate_clubs`). The round
    carries each team's key (``sort_keys``), in pinyin order, for the pairings to print."""
    names = dict(teams)
    order = pinyin_order(teams)
    paired = _pair_in_order(order, clubs)
    return dataclasses.replace(paired, sort_keys=tuple((t, pinyin_key(names[t]).text()) for t in order))


def first_round_split(seeded: Sequence[str], clubs: Mapping[str, str | None] | None = None) -> PairedRound:
    """Round 1 by seed: the top half meets the bottom half (1 v n/2+1, 2 v n/2+2 …), the
    better seed home at odd tables and away at even ones; an odd field gives the last seed the
    bye. With ``clubs``, two teams of one club are separated (:func:`separate_clubs`)."""
    ids = list(seeded)
    byes: tuple[str, ...] = ()
    if len(ids) % 2:
        byes = (ids.pop(),)
    half = len(ids) // 2
    ids, warnings = separate_clubs(ids, [(k, half + k) for k in range(half)], clubs)
    pairings = []
    for table, (top, bottom) in enumerate(zip(ids[:half], ids[half:], strict=True), start=1):
        pairings.append(Pairing(top, bottom) if table % 2 else Pairing(bottom, top))
    return PairedRound(tuple(pairings), byes, warnings)


def lots_material(key: bytes, event_id: str, round_number: int) -> bytes:
    """The SHAKE-256 input of the drawing of lots for a round: the event key makes it unknown
    before the event and re-derivable by anyone once the key is revealed."""
    event = event_id.encode("utf-8")
    return LOTS_TAG + key + len(event).to_bytes(4, "big") + event + round_number.to_bytes(4, "big")


def first_round_lots(team_ids: Sequence[str], material: bytes,
                     clubs: Mapping[str, str | None] | None = None) -> PairedRound:
    """Round 1 by lots: the teams (in event-file order) shuffled by the keyed stream of
    ``material`` (:func:`lots_material`), then paired 1 v 2, 3 v 4 … (clubs separated as
    :func:`first_round_pinyin` does)."""
    order = shuffle_positions(material, len(team_ids)) if len(team_ids) > 1 else list(range(len(team_ids)))
    return _pair_in_order([team_ids[i] for i in order], clubs)


def _pair_in_order(ordered: Sequence[str], clubs: Mapping[str, str | None] | None) -> PairedRound:
    ids = list(ordered)
    byes: tuple[str, ...] = ()
    if len(ids) % 2:
        byes = (ids.pop(),)
    ids, warnings = separate_clubs(ids, [(i, i + 1) for i in range(0, len(ids), 2)], clubs)
    return PairedRound(tuple(Pairing(ids[i], ids[i + 1]) for i in range(0, len(ids), 2)), byes, warnings)


def separate_clubs(order: Sequence[str], pairs: Sequence[tuple[int, int]],
                   clubs: Mapping[str, str | None] | None) -> tuple[list[str], tuple[PairingWarning, ...]]:
    """``order`` with two teams of one club never in one of ``pairs`` (positions in ``order``,
    in table order), where a swap can do it; and what was done, as warnings.

    Pair by pair from the top, a pair of one club swaps one of its teams with the nearest
    position in the order whose team belongs to neither club of the two pairs the swap touches
    whose swap leaves both pairs it touches without two teams of one club (nearest = fewest
    places moved; at equal distance downwards before upwards, then the lower team of the pair
    before the upper): a ``club-swap`` note. A pair no swap separates (a club with
    more than half the field) stays, with a ``same-club`` warning. The bye (the last team of an
    odd field) is never swapped: it is not in ``pairs``.
    """
    ids = list(order)
    if not clubs:
        return ids, ()
    partner = {a: b for a, b in pairs} | {b: a for a, b in pairs}

    def club(position: int) -> str | None:
        return clubs.get(ids[position])

    def clash(x: int, y: int) -> bool:
        return club(x) is not None and club(x) == club(y)

    warnings: list[PairingWarning] = []
    for a, b in pairs:
        if not clash(a, b):
            continue
        best: tuple[tuple[int, int, int], int, int] | None = None
        for rank, moved in enumerate((b, a)):
            stays = a if moved == b else b
            for other in partner:
                if other in (a, b):
                    continue
                ids[moved], ids[other] = ids[other], ids[moved]
                fine = not clash(stays, moved) and not clash(other, partner[other])
                ids[moved], ids[other] = ids[other], ids[moved]
                if fine:
                    choice = (abs(other - moved), int(other < moved), rank)
                    if best is None or choice < best[0]:
                        best = (choice, moved, other)
        if best is None:
            home, away = ids[a], ids[b]
            warnings.append(PairingWarning(
                "same-club", f"{home} and {away} of club {club(a)} meet: no swap in the order separates them",
                {"home": home, "away": away, "club": club(a)}))
            continue
        _choice, moved, other = best
        team_club = club(moved)
        warnings.append(PairingWarning(
            "club-swap", f"{ids[moved]} and {ids[other]} swapped places in the order: "
                         f"two teams of club {team_club} would have met",
            {"moved": ids[moved], "other": ids[other], "club": team_club}))
        ids[moved], ids[other] = ids[other], ids[moved]
    return ids, tuple(warnings)


# --- later rounds ---------------------------------------------------------------------------


def home_team(a: SwissTeam, b: SwissTeam) -> tuple[SwissTeam, SwissTeam]:
    """(home, away) of a pair: the team with fewer home matches relative to away ones is home;
    when level, the one that was away more recently; then the better-ranked team."""
    if a.balance != b.balance:
        return (a, b) if a.balance < b.balance else (b, a)
    for side_a, side_b in zip(reversed(a.sides), reversed(b.sides), strict=False):
        if side_a != side_b:
            return (a, b) if side_a == "A" else (b, a)
    return (a, b) if a.rank <= b.rank else (b, a)


def _edge(a: int, b: int, teams: Sequence[SwissTeam], avoid_same_club: bool) -> _Edge:
    """The pair of ``teams[a]`` and ``teams[b]`` (``teams`` in standings order)."""
    x, y = teams[a], teams[b]
    return _Edge(
        a, b,
        rematch=y.id in x.opponents,
        gap=abs(x.score - y.score),
        conflict=(x.balance > 0 and y.balance > 0) or (x.balance < 0 and y.balance < 0),
        same_club=avoid_same_club and x.club is not None and x.club == y.club,
        distance=abs(a - b),
    )


def standings_order(teams: Iterable[SwissTeam]) -> list[SwissTeam]:
    """The order the pairing works in: score, then rank, then id."""
    return sorted(teams, key=lambda t: (-t.score, t.rank, t.id))


def pairing_cost(ordered: Sequence[SwissTeam], pairs: Iterable[tuple[int, int]], avoid_same_club: bool) -> Cost:
    """The :class:`Cost` of ``pairs`` (indexes into ``ordered``, see :func:`standings_order`);
    the solver minimises it, and tests' oracles compare against it."""
    edges = [_edge(a, b, ordered, avoid_same_club) for a, b in pairs]
    return Cost(
        rematches=sum(e.rematch for e in edges),
        largest_gap=max((e.gap for e in edges), default=0),
        squared_gaps=sum(e.gap * e.gap for e in edges),
        side_conflicts=sum(e.conflict for e in edges),
        same_club=sum(e.same_club for e in edges),
        rank_distance=sum(e.distance for e in edges),
    )


def _weigh(edges: list[_Edge], n: int, max_gap: int) -> None:
    """One integer per edge, larger = better, lexicographic over priorities 3–6 (rematches
    carry a penalty above all of them when they are allowed at all)."""
    pairs = n // 2 + 1
    distance_unit = 1
    club_unit = distance_unit * (pairs * n + 1)
    conflict_unit = club_unit * (pairs + 1)
    gap_unit = conflict_unit * (pairs + 1)
    rematch_unit = gap_unit * (pairs * max_gap * max_gap + 1)
    top = rematch_unit * (pairs + 1)
    for e in edges:
        e.weight = top - (e.rematch * rematch_unit + e.gap * e.gap * gap_unit + e.conflict * conflict_unit
                          + e.same_club * club_unit + e.distance * distance_unit)


def _matching(n: int, edges: Sequence[_Edge], weighted: bool) -> list[tuple[int, int]]:
    import rustworkx

    graph = rustworkx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(n))
    graph.add_edges_from([(e.a, e.b, e.weight if weighted else 1) for e in edges])
    found = rustworkx.max_weight_matching(graph, max_cardinality=True, weight_fn=lambda w: w)
    return [(int(a), int(b)) for a, b in found]


def _candidates(teams: Sequence[SwissTeam], window: int, allow_rematch: bool,
                avoid_same_club: bool) -> list[_Edge]:
    """Edges to the ``window`` neighbours on each side in score order (all, if window ≥ n), and
    to the next ``window // 2`` teams below that can take the other side (so that side balance
    is not lost to the window)."""
    n = len(teams)
    edges = []
    for a in range(n):
        for b in range(a + 1, min(n, a + window + 1)):
            edge = _edge(a, b, teams, avoid_same_club)
            if allow_rematch or not edge.rematch:
                edges.append(edge)
        if window >= n or teams[a].balance == 0:
            continue
        found = 0
        for b in range(a + window + 1, n):
            if teams[b].balance * teams[a].balance <= 0:
                edge = _edge(a, b, teams, avoid_same_club)
                if allow_rematch or not edge.rematch:
                    edges.append(edge)
                    found += 1
                    if found == window // 2:
                        break
    return edges


def gap_lower_bound(scores: Sequence[int]) -> int:
    """The smallest gap G for which the scores, sorted, split into runs (neighbours at most G
    apart) that all have an even number of teams: no perfect pairing has a smaller largest gap."""
    ordered = sorted(scores, reverse=True)
    distinct = set(ordered)
    gaps = sorted({a - b for a in distinct for b in distinct if a >= b})
    for gap in gaps:
        run = 1
        for previous, current in itertools.pairwise(ordered):
            if previous - current <= gap:
                run += 1
            else:
                if run % 2:
                    break
                run = 1
        else:
            if run % 2 == 0:
                return gap
    return gaps[-1] if gaps else 0


def _pair_once(teams: Sequence[SwissTeam], avoid_same_club: bool,
               solve: Callable[[int, Sequence[_Edge], bool], list[tuple[int, int]]]) -> list[tuple[int, int]] | None:
    """A perfect pairing of ``teams`` (even, in standings order) by the priorities above, or
    ``None`` when none exists.

    The largest gap is raised from the parity bound until a rematch-free perfect matching
    exists inside it; only when none exists at any gap are rematches allowed. Above
    :data:`WHOLE_FIELD` teams the graph holds each team's :data:`WINDOW` neighbours first and is
    widened to the whole field before a larger gap or a rematch is accepted, so the window never
    changes the answer's priorities 1 and 2.
    """
    n = len(teams)
    if n == 0:
        return []
    scores = [t.score for t in teams]
    all_gaps = sorted({abs(a - b) for a in set(scores) for b in set(scores)})
    lower = gap_lower_bound(scores)
    for gap in [g for g in all_gaps if g >= lower]:
        windows = [WINDOW, 4 * WINDOW, n] if n > WHOLE_FIELD else [n]
        for window in dict.fromkeys(min(w, n) for w in windows):
            edges = [e for e in _candidates(teams, window, False, avoid_same_club) if e.gap <= gap]
            _weigh(edges, n, max(gap, 1))
            found = solve(n, edges, True)
            if len(found) * 2 == n:
                return found
    # No rematch-free pairing at any gap: fewest rematches first, then the gaps (whole field).
    edges = _candidates(teams, n, True, avoid_same_club)
    _weigh(edges, n, max(all_gaps[-1], 1))
    found = solve(n, edges, True)
    return found if len(found) * 2 == n else None


def pair_round(teams: Sequence[SwissTeam], avoid_same_club: bool = False,
               solve: Callable[[int, Sequence[_Edge], bool], list[tuple[int, int]]] = _matching) -> PairedRound:
    """Pair a later round of a Swiss. ``teams`` in any order; ``rank`` orders them.

    An odd field first gives the bye to the lowest-ranked team that has had none, unless that
    would force a rematch that another such team's bye avoids; when every team has had one,
    the lowest-ranked team gets a second bye (a warning).
    """
    ordered = standings_order(teams)
    warnings: list[PairingWarning] = []
    byes: tuple[str, ...] = ()
    pairs: list[tuple[int, int]] | None = None
    field_ = ordered
    if len(ordered) % 2:
        never = [t for t in sorted(ordered, key=lambda t: (t.rank, t.id), reverse=True) if t.byes == 0]
        candidates = never or sorted(ordered, key=lambda t: (t.byes, -t.rank))
        if not never:
            warnings.append(PairingWarning(
                "second-bye", f"every team has had a bye: {candidates[0].id} gets a second one",
                {"team": candidates[0].id}))
        first_choice: tuple[SwissTeam, list[SwissTeam], list[tuple[int, int]] | None] | None = None
        for candidate in candidates:
            rest = [t for t in ordered if t.id != candidate.id]
            found = solve_rest = _pair_once(rest, avoid_same_club, solve)
            if first_choice is None:
                first_choice = (candidate, rest, solve_rest)
            if found is not None and not any(rest[b].id in rest[a].opponents for a, b in found):
                first_choice = (candidate, rest, found)
                break
            if not never:
                break  # a second bye goes to the lowest-ranked team whatever follows
        assert first_choice is not None
        bye_team, field_, pairs = first_choice
        byes = (bye_team.id,)
    else:
        pairs = _pair_once(ordered, avoid_same_club, solve)
    if pairs is None:  # only a field of one team or none
        return PairedRound((), byes, tuple(warnings))
    result = []
    for a, b in sorted((min(p), max(p)) for p in pairs):
        home, away = home_team(field_[a], field_[b])
        if away.id in home.opponents:
            warnings.append(PairingWarning(
                "rematch", f"{home.id} and {away.id} meet again: no pairing of the field avoids every rematch",
                {"home": home.id, "away": away.id}))
        result.append(Pairing(home.id, away.id))
    return PairedRound(tuple(result), byes, tuple(warnings))
