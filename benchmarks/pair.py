"""Swiss pairing benchmark: seconds to pair one round at 16, 200 and 2,000 teams, and the ratio to
the nearest alternative graph library (networkx) solving the same graphs at 200 teams.

    .venv/bin/python benchmarks/pair.py [--rounds-before 3] [--repeat 3]

Each field first plays ``--rounds-before`` rounds with reproducible random results, so the
round timed has score groups, floaters and old opponents to avoid, as a real event has. Both
libraries solve the same edge lists with the same weights (the solver's ``solve`` hook); the
ratio is measured in the same run, since these machines are noisy.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence
from typing import Any

from dealer.tournament.swiss import SwissTeam, pair_round, pairing_cost, standings_order


def field_after(teams: int, rounds: int, seed: int = 7) -> list[SwissTeam]:
    """The teams as the pairing of round ``rounds + 1`` sees them."""
    ids = [f"T{i:04d}" for i in range(teams)]
    score = dict.fromkeys(ids, 0)
    opponents: dict[str, set[str]] = {t: set() for t in ids}
    sides = dict.fromkeys(ids, "")
    byes = dict.fromkeys(ids, 0)
    state = seed
    for _ in range(rounds + 1):
        order = sorted(ids, key=lambda t: (-score[t], t))
        field = [SwissTeam(t, score[t], rank, frozenset(opponents[t]), sides[t].count("H"), sides[t].count("A"),
                           sides[t], byes[t]) for rank, t in enumerate(order, start=1)]
        if _ == rounds:
            return field
        paired = pair_round(field)
        for team in paired.byes:
            byes[team] += 1
            score[team] += 2
        for p in paired.pairings:
            opponents[p.home].add(p.away)
            opponents[p.away].add(p.home)
            sides[p.home] += "H"
            sides[p.away] += "A"
            state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
            outcome = state >> 62
            if outcome < 2:
                score[p.home if outcome == 0 else p.away] += 2
            else:
                score[p.home] += 1
                score[p.away] += 1
    raise AssertionError("unreachable")


def networkx_solve(n: int, edges: Sequence[Any], weighted: bool) -> list[tuple[int, int]]:
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_weighted_edges_from([(e.a, e.b, e.weight if weighted else 1) for e in edges])
    return [(int(a), int(b)) for a, b in nx.max_weight_matching(graph, maxcardinality=True)]


def cost(field: list[SwissTeam], paired: Any) -> tuple[int, ...]:
    """The pairing's cost by the solver's priorities (two optimal pairings may differ only in ties)."""
    ordered = standings_order(field)
    index = {t.id: i for i, t in enumerate(ordered)}
    pairs = [(min(index[p.home], index[p.away]), max(index[p.home], index[p.away])) for p in paired.pairings]
    return pairing_cost(ordered, pairs, False).key()


def timed(field: list[SwissTeam], repeat: int, **options: Any) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = pair_round(field, **options)
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds-before", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for teams in (16, 200, 2000):
        field = field_after(teams, args.rounds_before)
        seconds, paired = timed(field, args.repeat)
        print(f"{teams:>5} teams, round {args.rounds_before + 1}: {seconds * 1000:.1f} ms to pair "
              f"({len(paired.pairings)} matches, {len(paired.warnings)} warning(s))")
        if teams == 200:
            baseline, other = timed(field, 1, solve=networkx_solve)
            print(f"      networkx on the same graphs: {baseline * 1000:.1f} ms; rustworkx is "
                  f"{baseline / seconds:.0f}× faster; same cost: {cost(field, paired) == cost(field, other)}")
        if teams == 2000:
            print(f"      a 2,000-team round under 1 second: {'yes' if seconds < 1 else 'NO'}")


if __name__ == "__main__":
    main()
