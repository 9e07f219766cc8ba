"""Round robins: the Berger table against the published FIDE tables, byes, cycles and groups."""

from __future__ import annotations

import re
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from dealer.errors import UserError
from dealer.tournament.round_robin import (
    RobinMatch,
    RobinRound,
    ScheduleError,
    berger_table,
    grouped_round_robin,
    round_robin,
    rounds_needed,
    serpentine_groups,
)

FIDE_FILE = Path(__file__).parent / "data" / "berger-fide.txt"


def published_tables() -> dict[int, list[list[tuple[int, int]]]]:
    """The FIDE tables as transcribed in tests/data/berger-fide.txt (sources cited there)."""
    tables: dict[int, list[list[tuple[int, int]]]] = {}
    size = 0
    for line in FIDE_FILE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if header := re.fullmatch(r"\[(\d+)\]", line):
            size = int(header.group(1))
            tables[size] = []
            continue
        number, pairs = line.split(": ")
        assert int(number) == len(tables[size]) + 1, line
        tables[size].append([(int(a), int(b)) for a, b in (p.split("-") for p in pairs.split(", "))])
    return tables


PUBLISHED = published_tables()


def test_published_file_covers_4_to_16() -> None:
    assert sorted(PUBLISHED) == [4, 6, 8, 10, 12, 14, 16]
    assert all(len(rounds) == size - 1 for size, rounds in PUBLISHED.items())


@pytest.mark.parametrize("size", range(3, 17))
def test_berger_table_equals_the_published_fide_table(size: int) -> None:
    assert berger_table(size) == PUBLISHED[size + size % 2]


def test_the_example_of_four() -> None:
    assert berger_table(4) == [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]


@pytest.mark.parametrize("teams", range(2, 21))
def test_everyone_meets_everyone_once_and_once_per_round(teams: int) -> None:
    ids = [f"t{i}" for i in range(1, teams + 1)]
    rounds = round_robin(ids)
    assert len(rounds) == rounds_needed(teams)
    met = Counter(frozenset((m.home, m.away)) for r in rounds for m in r.matches)
    assert set(met) == {frozenset(p) for p in combinations(ids, 2)} and set(met.values()) == {1}
    for r in rounds:
        present = [t for m in r.matches for t in (m.home, m.away)] + list(r.byes)
        assert sorted(present) == sorted(ids)  # no one twice, no one missing
        assert len(r.byes) == teams % 2 and r.idle == ()
    byes = Counter(t for r in rounds for t in r.byes)
    assert set(byes.values()) <= {1} and len(byes) == (teams if teams % 2 else 0)


def test_team_i_is_berger_number_i_plus_1_and_first_named_is_home() -> None:
    ids = ["甲", "乙", "丙", "丁", "戊", "己"]
    rounds = round_robin(ids)
    for numbers, robin in zip(PUBLISHED[6], rounds, strict=True):
        assert [(m.home, m.away) for m in robin.matches] == [(ids[a - 1], ids[b - 1]) for a, b in numbers]


def test_odd_field_gives_the_bye_to_the_team_drawn_against_the_phantom() -> None:
    ids = ["a", "b", "c", "d", "e"]
    rounds = round_robin(ids)
    # Published table for 5 or 6: number 6 is the bye.
    expected = [ids[(a if b == 6 else b) - 1] for a, b in (pairs[0] for pairs in PUBLISHED[6])]
    assert [r.byes for r in rounds] == [(t,) for t in expected]
    assert rounds[0] == RobinRound((RobinMatch("b", "e"), RobinMatch("c", "d")), ("a",))


def test_double_round_robin_mirrors_home_and_away() -> None:
    ids = [f"t{i}" for i in range(1, 8)]
    single, double = round_robin(ids), round_robin(ids, cycles=2)
    assert len(double) == 2 * len(single) == rounds_needed(7, cycles=2)
    assert double[: len(single)] == single
    for first, second in zip(single, double[len(single):], strict=True):
        assert [(m.away, m.home) for m in first.matches] == [(m.home, m.away) for m in second.matches]
        assert first.byes == second.byes
    home = Counter(m.home for r in double for m in r.matches)
    away = Counter(m.away for r in double for m in r.matches)
    assert all(home[t] == away[t] == 6 for t in ids)


def test_serpentine_groups() -> None:
    seeds = [f"s{i}" for i in range(1, 11)]
    assert serpentine_groups(seeds, 3) == [["s1", "s6", "s7"], ["s2", "s5", "s8"], ["s3", "s4", "s9", "s10"]]
    assert serpentine_groups(seeds, 2) == [["s1", "s4", "s5", "s8", "s9"], ["s2", "s3", "s6", "s7", "s10"]]
    assert serpentine_groups(seeds, 1) == [seeds]


@pytest.mark.parametrize(("teams", "groups", "cycles"), [(8, 2, 1), (10, 3, 1), (9, 2, 1), (9, 2, 2), (16, 4, 2),
                                                        (11, 2, 1), (7, 3, 1)])
def test_grouped_round_robin(teams: int, groups: int, cycles: int) -> None:
    seeds = [f"s{i}" for i in range(1, teams + 1)]
    split = serpentine_groups(seeds, groups)
    rounds = grouped_round_robin(seeds, groups, cycles)
    assert len(rounds) == rounds_needed(teams, cycles, groups)
    for r in rounds:
        present = [t for m in r.matches for t in (m.home, m.away)] + list(r.byes) + list(r.idle)
        assert sorted(present) == sorted(seeds)
        for m in r.matches:
            assert m.home in split[m.group] and m.away in split[m.group]
    for index, group in enumerate(split):
        alone = round_robin(group, cycles)
        played = [RobinRound(tuple(m for m in r.matches if m.group == index),
                             tuple(t for t in r.byes if t in group)) for r in rounds][: len(alone)]
        assert [[(m.home, m.away) for m in r.matches] for r in played] == [
            [(m.home, m.away) for m in r.matches] for r in alone]
        assert [r.byes for r in played] == [r.byes for r in alone]
        # The rest of the event: this group is idle, never on a bye.
        assert all(set(group) <= set(r.idle) for r in rounds[len(alone):])


def test_smaller_group_with_fewer_rounds_is_idle_at_the_end() -> None:
    rounds = grouped_round_robin([f"s{i}" for i in range(1, 10)], 2)  # groups of 5 and 4
    assert len(rounds) == 5
    assert [len(r.idle) for r in rounds] == [0, 0, 0, 4, 4]
    assert [len(r.byes) for r in rounds] == [1] * 5


@pytest.mark.parametrize(("call", "field"), [
    (lambda: berger_table(1), "teams"),
    (lambda: round_robin(["a"]), "teams"),
    (lambda: round_robin(["a", "b", "a"]), "teams"),
    (lambda: round_robin(["a", ""]), "teams"),
    (lambda: round_robin(["a", "b"], cycles=0), "cycles"),
    (lambda: serpentine_groups(["a", "b", "c"], 2), "groups"),
    (lambda: grouped_round_robin(["a", "b", "c", "d"], 0), "groups"),
    (lambda: rounds_needed(5, 1, 3), "groups"),
    (lambda: rounds_needed(1), "teams"),
])
def test_errors_name_the_field(call: object, field: str) -> None:
    with pytest.raises(ScheduleError) as caught:
        call()  # type: ignore[operator]
    assert isinstance(caught.value, UserError) and caught.value.field == field


def test_rounds_needed() -> None:
    assert [rounds_needed(n) for n in (2, 3, 4, 5, 8, 9, 16)] == [1, 3, 3, 5, 7, 9, 15]
    assert rounds_needed(16, cycles=2, groups=4) == 6 and rounds_needed(9, 1, 2) == 5
