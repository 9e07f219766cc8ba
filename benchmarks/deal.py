"""Dealing speed: boards per second of the single-board and batch paths, each as a ratio to a
`random.shuffle` baseline measured in the same run (machines here are noisy: compare ratios).

    .venv/bin/python benchmarks/deal.py [--boards N] [--repeats R]

The baseline shuffles a 108-card list with `random.shuffle` and cuts it into four 25-card hands
and the kitty: the cheapest fair-looking dealer, but neither keyed, reproducible per board nor
free of the Mersenne Twister. Our paths also compute a keyed SHAKE-256 stream per board and draw
with rejection sampling (docs/dealing.md).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from dealer.batch import shuffle_many
from dealer.deal import BoardSpec, Layout, deal_board

KEY = bytes(range(32))
LAYOUT = Layout(2, 25, 8)


def baseline(count: int) -> None:
    rng = random.Random(1)
    pack = list(range(108))
    for _ in range(count):
        rng.shuffle(pack)
        _hands = [pack[0:25], pack[25:50], pack[50:75], pack[75:100], pack[100:]]


def single(count: int) -> None:
    for board in range(1, count + 1):
        deal_board(KEY, BoardSpec("bench", 1, board, "N", "2"), LAYOUT)


def batch(count: int) -> None:
    chunk = 50_000
    for first in range(1, count + 1, chunk):
        boards = range(first, min(first + chunk, count + 1))
        orders = shuffle_many(KEY, "bench", 1, boards, 108)
        _hands = orders[:, :25], orders[:, 25:50], orders[:, 50:75], orders[:, 75:100]


def best_rate(function: Callable[[int], None], count: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        function(count)
        best = min(best, time.perf_counter() - start)
    return count / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    base = best_rate(baseline, args.boards, args.repeats)
    one = best_rate(single, max(1, args.boards // 10), args.repeats)
    many = best_rate(batch, args.boards, args.repeats)
    print(f"random.shuffle baseline: {base:12,.0f} boards/s")
    print(f"single-board path:       {one:12,.0f} boards/s  ({one / base:.2f}x baseline, full Deal objects)")
    print(f"batch path:              {many:12,.0f} boards/s  ({many / base:.2f}x baseline)")


if __name__ == "__main__":
    main()
