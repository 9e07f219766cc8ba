"""Statistical check of exact uniformity: card-to-place frequencies over 200,000 deals.

Each of the 108 card copies of a two-deck pack should land in North's, East's, South's and West's
25-card hands with probability 25/108 each and in the 8-card kitty with probability 8/108. A
chi-square test compares the counts with that exact expectation. The same test applied to a
deliberately biased dealer (index draws taken as one byte modulo the bound, the classic modulo
bias) must fail: otherwise the test could not tell.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pytest
from scipy.stats import chi2

from dealer.batch import shuffle_many

DEALS = 200_000
CHUNK = 20_000
SIZE = 108
PLACE_SIZES = [25, 25, 25, 25, 8]  # N, E, S, W, kitty (dealt in that order, docs/dealing.md)
PLACE_OF_INDEX = np.repeat(np.arange(5), PLACE_SIZES)
KEY = bytes.fromhex("5eed" * 16)  # a fixed test key: the test is reproducible
SIGNIFICANCE = 1e-6

Orders = npt.NDArray[np.int16]


def fair_orders(first_board: int, count: int) -> Orders:
    return shuffle_many(KEY, "fairness", 1, range(first_board, first_board + count), SIZE)


def modulo_biased_orders(first_board: int, count: int) -> Orders:
    """Fisher–Yates with j = (one random byte) mod (i + 1): biased toward small j."""
    stream = np.random.default_rng(first_board).integers(0, 256, size=(count, SIZE), dtype=np.int64)
    order = np.tile(np.arange(SIZE, dtype=np.int16), (count, 1))
    rows = np.arange(count)
    for i in range(SIZE - 1, 0, -1):
        j = stream[:, i] % (i + 1)
        held = order[rows, j]
        order[rows, j] = order[:, i]
        order[:, i] = held
    return order


def place_counts(dealer: Callable[[int, int], Orders]) -> npt.NDArray[np.int64]:
    """counts[pack position, place] over DEALS deals."""
    counts = np.zeros(SIZE * 5, dtype=np.int64)
    for first in range(1, DEALS + 1, CHUNK):
        orders = dealer(first, CHUNK).astype(np.int64)
        cells = orders * 5 + PLACE_OF_INDEX[np.newaxis, :]
        counts += np.bincount(cells.ravel(), minlength=SIZE * 5)
    return counts.reshape(SIZE, 5)


def chi_square(counts: npt.NDArray[np.int64]) -> tuple[float, int]:
    expected = DEALS * np.array(PLACE_SIZES) / SIZE
    statistic = float((((counts - expected) ** 2) / expected).sum())
    return statistic, SIZE * (5 - 1)


def uniform_at(statistic: float, freedom: int) -> bool:
    return bool(chi2.sf(statistic, freedom) > SIGNIFICANCE)


def test_the_dealer_matches_the_exact_expectation() -> None:
    counts = place_counts(fair_orders)
    assert counts.sum() == DEALS * SIZE
    assert (counts.sum(axis=1) == DEALS).all()
    statistic, freedom = chi_square(counts)
    assert uniform_at(statistic, freedom), f"chi-square {statistic:.1f} with {freedom} df"


def test_the_same_test_catches_a_biased_dealer() -> None:
    statistic, freedom = chi_square(place_counts(modulo_biased_orders))
    assert not uniform_at(statistic, freedom), f"chi-square {statistic:.1f} with {freedom} df"


@pytest.mark.parametrize("dealer", [fair_orders, modulo_biased_orders])
def test_every_copy_is_dealt_exactly_once(dealer: Callable[[int, int], Orders]) -> None:
    orders = dealer(1, 100)
    assert (np.sort(orders, axis=1) == np.arange(SIZE)).all()
