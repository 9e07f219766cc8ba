"""Knockouts: the bracket order file, byes, the losers' bracket of §25, and whole events run with
random winners (Hypothesis)."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.errors import UserError
from dealer.tournament.knockout import (
    Bracket,
    BracketError,
    BracketOrder,
    BracketOrderError,
    Elimination,
    GrandFinal,
    KnockoutBye,
    KnockoutMatch,
    KnockoutRound,
    ResultMissing,
    bracket_order_from_mapping,
)

ORDER_FILE = Path(__file__).parents[1] / "dealer" / "data" / "brackets" / "standard.toml"
ORDER_DATA: dict[str, Any] = tomllib.loads(ORDER_FILE.read_text(encoding="utf-8"))
ORDER = bracket_order_from_mapping(ORDER_DATA)
SLOT = r"[A-Za-z0-9_-]{1,16}"


def standard_order(size: int) -> list[int]:
    """The standard seeding order, built independently of the file: (s, 2m+1−s) for each s."""
    order = [1]
    while len(order) < size:
        order = [x for s in order for x in (s, 2 * len(order) + 1 - s)]
    return order


def teams(n: int) -> list[str]:
    return [f"T{i:02d}" for i in range(1, n + 1)]


# ---- the order file -------------------------------------------------------------------------

def test_order_file_is_the_standard_order_and_says_it_is_a_replaceable_default() -> None:
    assert sorted(ORDER.sizes) == [2, 4, 8, 16, 32, 64]
    for size, positions in ORDER.sizes.items():
        assert sorted(positions) == list(range(1, size + 1))
        assert list(positions) == standard_order(size)
    assert ORDER.sizes[8] == (1, 8, 4, 5, 2, 7, 3, 6)
    text = ORDER_FILE.read_text(encoding="utf-8")
    assert "附件七" in text and "replaceable default" in text


def test_seeds_1_and_2_meet_only_in_the_final() -> None:
    for size in (4, 8, 16, 32, 64):
        positions = ORDER.sizes[size]
        assert positions.index(1) < size // 2 <= positions.index(2)
        for i in range(size // 2):  # round 1: s against size + 1 − s
            assert positions[2 * i] + positions[2 * i + 1] == size + 1


def test_a_different_order_changes_the_bracket() -> None:
    data = {"sizes": {**ORDER_DATA["sizes"], "8": [1, 8, 2, 7, 4, 5, 3, 6]}}
    other = bracket_order_from_mapping(data)
    field = teams(8)
    standard = Bracket(field, "single", "single", ORDER).round(1, {})
    replaced = Bracket(field, "single", "single", other).round(1, {})
    assert standard.matches != replaced.matches
    assert [(m.home, m.away) for m in replaced.matches] == [
        ("T01", "T08"), ("T02", "T07"), ("T04", "T05"), ("T03", "T06")]
    # With this order seeds 1 and 2 meet in round 2.
    winners = {m.slot: m.home for m in replaced.matches}
    assert Bracket(field, "single", "single", other).round(2, winners).matches[0] == KnockoutMatch(
        "W2-1", "T01", "T02")


@pytest.mark.parametrize(("data", "key"), [
    ({}, "sizes"),
    ({"sizes": {}}, "sizes"),
    ({"sizes": {"8": [1, 8, 4, 5, 2, 7, 3, 6]}, "seeds": 1}, "seeds"),
    ({"sizes": {"6": [1, 6, 3, 4, 2, 5]}}, "sizes.6"),
    ({"sizes": {"eight": [1]}}, "sizes.eight"),
    ({"sizes": {"²": [1]}}, "sizes.²"),  # str.isdigit says yes, int() refuses it
    ({"sizes": {"4": [1, 4, 4, 3]}}, "sizes.4"),
    ({"sizes": {"4": [1, 4, 2]}}, "sizes.4"),
    ({"sizes": {"4": "1,4,2,3"}}, "sizes.4"),
    ({"sizes": {"4": [1, 4, 2, True]}}, "sizes.4"),
    ({"sizes": {"4": [1, 4, 2, 3]}, "source": 7}, "source"),
])
def test_bad_order_data_names_the_key(data: dict[str, Any], key: str) -> None:
    with pytest.raises(BracketOrderError) as caught:
        bracket_order_from_mapping(data)
    assert isinstance(caught.value, UserError) and caught.value.field == key


def test_bad_order_says_what_is_wrong() -> None:
    with pytest.raises(BracketOrderError, match=r"sizes.4|repeated: 4; missing: 2") as caught:
        bracket_order_from_mapping({"sizes": {"4": [1, 4, 4, 3]}})
    assert caught.value.lines() == ["sizes.4: must list each seed 1…4 exactly once (repeated: 4; missing: 2)"]


def test_a_size_missing_from_the_order_is_named() -> None:
    small = BracketOrder({2: (1, 2), 4: (1, 4, 2, 3)})
    with pytest.raises(BracketOrderError, match=r"no list for 8 positions") as caught:
        Bracket(teams(5), "single", "single", small)
    assert caught.value.field == "sizes.8"


# ---- examples -------------------------------------------------------------------------------

def test_five_teams_single_elimination() -> None:
    bracket = Bracket(teams(5), "single", "single", ORDER)
    assert (bracket.size, bracket.rounds_needed) == (8, 3)
    first = bracket.round(1, {})
    assert first == KnockoutRound(1, (KnockoutMatch("W1-2", "T04", "T05"),), (
        KnockoutBye("W1-1", "T01"), KnockoutBye("W1-3", "T02"), KnockoutBye("W1-4", "T03")))
    with pytest.raises(ResultMissing, match="no winner for W1-2") as caught:
        bracket.round(2, {})
    assert caught.value.slots == ("W1-2",)
    second = bracket.round(2, {"W1-2": "T05"})
    assert second.matches == (KnockoutMatch("W2-1", "T01", "T05"), KnockoutMatch("W2-2", "T02", "T03"))
    assert bracket.places({"W1-2": "T05"}) == [(5, ("T04",))]
    final = {"W1-2": "T05", "W2-1": "T05", "W2-2": "T03", "W3-1": "T03"}
    assert bracket.places(final) == [(1, ("T03",)), (2, ("T05",)), (3, ("T01", "T02")), (5, ("T04",))]


def test_double_elimination_of_four_with_a_reset() -> None:
    bracket = Bracket(teams(4), "double", "reset", ORDER)
    assert bracket.rounds_needed == 5
    assert [(s.slot, s.round) for s in bracket.slots] == [
        ("W1-1", 1), ("W1-2", 1), ("W2-1", 2), ("L1-1", 2), ("L2-1", 3), ("F1", 4), ("F2", 5)]
    w: dict[str, str] = {"W1-1": "T01", "W1-2": "T03"}
    assert bracket.round(2, w).matches == (KnockoutMatch("W2-1", "T01", "T03"), KnockoutMatch("L1-1", "T02", "T04"))
    w |= {"W2-1": "T03", "L1-1": "T04"}
    assert bracket.round(3, w).matches == (KnockoutMatch("L2-1", "T01", "T04"),)
    w |= {"L2-1": "T01"}
    assert bracket.places(w) == [(3, ("T04",)), (4, ("T02",))]
    assert bracket.round(4, w).matches == (KnockoutMatch("F1", "T01", "T03"),)  # home = better seed
    assert bracket.round(5, w | {"F1": "T03"}) == KnockoutRound(5)  # winners' champion won: no reset
    assert bracket.places(w | {"F1": "T03"})[:2] == [(1, ("T03",)), (2, ("T01",))]
    assert bracket.round(5, w | {"F1": "T01"}).matches == (KnockoutMatch("F2", "T01", "T03"),)
    with pytest.raises(BracketError, match="F2 is not played"):
        bracket.round(5, w | {"F1": "T03", "F2": "T03"})


def test_two_teams() -> None:
    single = Bracket(["a", "b"], "single", "reset", ORDER)
    assert single.rounds_needed == 1 and single.places({"W1-1": "b"}) == [(1, ("b",)), (2, ("a",))]
    double = Bracket(["a", "b"], "double", "reset", ORDER)
    assert [s.slot for s in double.slots] == ["W1-1", "F1", "F2"] and double.rounds_needed == 3
    assert double.round(2, {"W1-1": "a"}).matches == (KnockoutMatch("F1", "a", "b"),)
    assert double.places({"W1-1": "a", "F1": "b", "F2": "b"}) == [(1, ("b",)), (2, ("a",))]


@pytest.mark.parametrize(("winners", "message"), [
    ({"W9-1": "T01"}, "no match 'W9-1'"),
    ({"W1-1": "T01"}, "W1-1 is a bye"),
    ({"W1-2": "T01"}, "'T01' did not play in W1-2"),
    ({"W2-1": "T01"}, "W1-2, which decides who plays in it, has none"),
])
def test_bad_winners_are_refused(winners: dict[str, str], message: str) -> None:
    bracket = Bracket(teams(5), "double", "reset", ORDER)
    with pytest.raises(BracketError, match=message):
        bracket.round(1, winners)


@pytest.mark.parametrize(("seeds", "elimination", "grand_final", "field"), [
    (["a"], "single", "reset", "seeds"),
    (["a", "a"], "single", "reset", "seeds"),
    (["a", "b"], "triple", "reset", "elimination"),
    (["a", "b"], "double", "twice", "grand_final"),
])
def test_bad_brackets_are_refused(seeds: list[str], elimination: Any, grand_final: Any, field: str) -> None:
    with pytest.raises(BracketError) as caught:
        Bracket(seeds, elimination, grand_final, ORDER)
    assert caught.value.field == field


def test_round_number_is_checked() -> None:
    bracket = Bracket(teams(8), "single", "single", ORDER)
    for number in (0, 4, True):
        with pytest.raises(BracketError) as caught:
            bracket.round(number, {})
        assert caught.value.field == "round"


def test_view_while_running() -> None:
    bracket = Bracket(teams(6), "double", "reset", ORDER)
    view = bracket.view({"W1-2": "T05"})
    assert view["size"] == 8 and view["rounds_needed"] == 7 and len(view["rounds"]) == 7
    first = {s["slot"]: s for s in view["rounds"][0]["slots"]}
    assert first["W1-1"]["state"] == "bye" and first["W1-1"]["winner"] == "T01"
    assert first["W1-2"] == {"slot": "W1-2", "section": "winners", "stage": 1, "sources": ["seed:4", "seed:5"],
                             "teams": ["T04", "T05"], "home": "T04", "winner": "T05", "state": "decided"}
    assert first["W1-3"]["state"] == "bye" and first["W1-3"]["teams"] == ["T02", None]
    assert first["W1-4"]["state"] == "ready" and first["W1-4"]["winner"] is None
    second = {s["slot"]: s for s in view["rounds"][1]["slots"]}
    assert second["W2-1"]["teams"] == ["T01", "T05"] and second["W2-1"]["state"] == "ready"
    assert second["L1-1"]["state"] == "bye" and second["L1-1"]["winner"] == "T04"
    assert second["W2-2"]["state"] == "waiting" and second["L1-2"]["state"] == "waiting"
    assert view["rounds"][-1]["slots"][0]["slot"] == "F2"


# ---- whole events with random winners --------------------------------------------------------

def run_event(bracket: Bracket, pick: st.DataObject) -> tuple[dict[str, str], list[KnockoutRound]]:
    """Play every round, drawing each winner; check the per-round properties on the way."""
    winners: dict[str, str] = {}
    rounds: list[KnockoutRound] = []
    losses: Counter[str] = Counter()
    limit = 1 if bracket.elimination == "single" else 2
    for number in range(1, bracket.rounds_needed + 1):
        if number < bracket.rounds_needed:
            with pytest.raises(ResultMissing):  # the next round needs this one's winners
                bracket.round(number + 1, winners)
        played = bracket.round(number, winners)
        rounds.append(played)
        present = [t for m in played.matches for t in (m.home, m.away)] + [b.team for b in played.byes]
        assert len(present) == len(set(present)), "a team twice in one round"
        for m in played.matches:
            assert max(losses[m.home], losses[m.away]) < limit, "an eliminated team plays"
            assert bracket.seeds.index(m.home) < bracket.seeds.index(m.away), "home is the better seed"
            winner = pick.draw(st.sampled_from((m.home, m.away)))
            winners[m.slot] = winner
            losses[m.away if winner == m.home else m.home] += 1
        placed = [t for _, ts in bracket.places(winners) for t in ts]
        knocked_out = {t for t, count in losses.items() if count >= limit}
        assert len(placed) == len(set(placed)) and knocked_out <= set(placed)
        if set(placed) - knocked_out:  # champion (and a one-loss runner-up): only once a final is decided
            assert {"F1", "F2", f"W{bracket.levels}-1"} & set(winners)
    return winners, rounds


@settings(max_examples=40, deadline=None)
@given(n=st.integers(5, 64), pick=st.data())
def test_single_elimination_runs_to_the_end(n: int, pick: st.DataObject) -> None:
    bracket = Bracket(teams(n), "single", "single", ORDER)
    winners, rounds = run_event(bracket, pick)
    assert bracket.rounds_needed == bracket.levels
    byes = [b for r in rounds for b in r.byes]
    assert all(b.slot.startswith("W1-") for b in byes)
    assert sorted(b.team for b in byes) == teams(bracket.size - n)  # the top 2^k − n seeds
    matches = [m for r in rounds for m in r.matches]
    assert len(matches) == len(winners) == n - 1
    losers = Counter(m.away if winners[m.slot] == m.home else m.home for m in matches)
    champion = winners[f"W{bracket.levels}-1"]
    assert set(losers) == set(bracket.seeds) - {champion} and set(losers.values()) == {1}
    places = bracket.places(winners)
    assert sorted(t for _, ts in places for t in ts) == sorted(bracket.seeds)
    assert places[0] == (1, (champion,)) and places[1][0] == 2
    assert [len(ts) for p, ts in places if p == 3] == [2]  # both semi-final losers


@settings(max_examples=60, deadline=None)
@given(n=st.integers(5, 64), grand_final=st.sampled_from(("reset", "single")), pick=st.data())
def test_double_elimination_runs_to_the_end(n: int, grand_final: GrandFinal, pick: st.DataObject) -> None:
    elimination: Elimination = "double"
    bracket = Bracket(teams(n), elimination, grand_final, ORDER)
    k = bracket.levels
    assert bracket.rounds_needed == 2 * k + (grand_final == "reset")
    winners, rounds = run_event(bracket, pick)
    slots = {s.slot: s for s in bracket.slots}
    wb_byes = [b for r in rounds for b in r.byes if b.slot.startswith("W")]
    assert all(b.slot.startswith("W1-") for b in wb_byes)
    assert sorted(b.team for b in wb_byes) == teams(bracket.size - n)
    matches = [(r.number, m) for r in rounds for m in r.matches]
    reset = "F2" in winners
    assert len(matches) == len(winners) == 2 * n - 2 + reset
    loser = {m.slot: (m.away if winners[m.slot] == m.home else m.home) for _, m in matches}
    losses = Counter(loser.values())
    champion = winners["F2" if reset else "F1"]
    runner_up = loser["F2" if reset else "F1"]
    assert losses[champion] <= 1
    for team in set(bracket.seeds) - {champion}:
        assert losses[team] == 2 or (team == runner_up and grand_final == "single" and losses[team] == 1)
    # §25: losers' round 1 (tournament round 2) are round-1 losers; each even losers' round pairs the
    # previous losers' round's winners (played or by bye) with the losers of the winners' round just
    # played; odd losers' rounds pair losers' winners. The drop-ins of L2 never repeat a W1 match.
    advanced = {b.slot: b.team for r in rounds for b in r.byes} | winners
    wb_losers = {r: {loser[s] for s in loser if s.startswith(f"W{r}-")} for r in range(1, k + 1)}
    round_one = {frozenset((m.home, m.away)) for number, m in matches if number == 1}
    for number, m in matches:
        stage = slots[m.slot].stage
        if not m.slot.startswith("L"):
            continue
        pair = {m.home, m.away}
        assert number == stage + 1
        previous = {t for s, t in advanced.items() if s.startswith(f"L{stage - 1}-")}
        if stage == 1:
            assert pair <= wb_losers[1]
        elif stage % 2 == 0:
            assert len(pair & previous) == 1 and len(pair & wb_losers[stage // 2 + 1]) == 1
            if stage == 2 and bracket.size >= 8:
                assert frozenset(pair) not in round_one
        else:
            assert pair <= previous
    places = bracket.places(winners)
    assert sorted(t for _, ts in places for t in ts) == sorted(bracket.seeds)
    assert places[:3] == [(1, (champion,)), (2, (runner_up,)), (3, (loser[f"L{2 * k - 2}-1"],))]


def test_slot_ids_and_rounds() -> None:
    for n, elimination in ((64, "double"), (64, "single"), (33, "double")):
        bracket = Bracket(teams(n), elimination, "reset", ORDER)  # type: ignore[arg-type]
        ids = [s.slot for s in bracket.slots]
        assert len(ids) == len(set(ids)) and all(len(i) <= 16 for i in ids)
        assert all(re.fullmatch(SLOT, i) for i in ids)
        by_id = {s.slot: s for s in bracket.slots}
        for s in bracket.slots:  # every source is played in an earlier round
            for source in s.sources:
                if source.kind != "seed":
                    assert by_id[str(source.ref)].round < s.round
        if elimination == "double":
            assert [s.round for s in bracket.slots if s.slot.startswith("W")][-1] == 2 * 6 - 2
