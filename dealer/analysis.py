"""Hand analysis for hand records: trumps, pairs and tractors per candidate trump suit.

Pure domain code, no I/O. In Shengji the trumps (主牌) are both jokers, every card of the
level rank (级牌, in all four suits) and, unless the board is played in no-trump (无主), every
card of the trump suit. From high to low the trump ladder is:

* with a trump suit: big joker, small joker, the level card of the trump suit, the level cards
  of the three other suits (equal to each other), then the trump suit from A down to 2 without
  the level rank;
* in no-trump: big joker, small joker, the level cards of the four suits (equal to each other).

A *pair* is two identical cards (same kind); with three or four decks a kind held ``n`` times
gives ``n // 2`` pairs. A *tractor* (拖拉机) is a run of two or more consecutive steps of the
trump ladder each holding a pair. On the step of the off-suit level cards one pair stands for the
step (two different off-suit level pairs never connect to each other: they are equal in rank).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from dealer.cards import BIG_JOKER, RANKS, SMALL_JOKER, SUITS, Card, Suit, level_rank

#: The candidate trumps of a hand record, in printing order: the four suits, then no-trump.
CANDIDATES: tuple[Suit | None, ...] = (*SUITS, None)


@dataclass(frozen=True)
class TrumpAnalysis:
    """One hand under one candidate trump (``trump`` is ``None`` for no-trump)."""

    trump: Suit | None
    trumps: int
    pairs: int
    #: Each tractor as the card kind of each of its pairs, from high to low.
    tractors: tuple[tuple[Card, ...], ...]

    @property
    def tractor_pairs(self) -> int:
        """Pairs that belong to a tractor."""
        return sum(len(t) for t in self.tractors)


def trump_ladder(level: str, trump: Suit | None) -> list[tuple[Card, ...]]:
    """The steps of the trump ladder, from high to low; each step lists its equal card kinds."""
    rank = level_rank(level)
    ladder: list[tuple[Card, ...]] = [(BIG_JOKER,), (SMALL_JOKER,)]
    if trump is None:
        ladder.append(tuple(Card.suited(suit, rank) for suit in SUITS))
        return ladder
    ladder.append((Card.suited(trump, rank),))
    ladder.append(tuple(Card.suited(suit, rank) for suit in SUITS if suit != trump))
    ladder.extend((Card.suited(trump, r),) for r in reversed(RANKS) if r != rank)
    return ladder


def is_trump(card: Card, level: str, trump: Suit | None) -> bool:
    """Whether ``card`` is a trump when ``level`` is played with trump suit ``trump``."""
    if card.is_joker or card.rank == level_rank(level):
        return True
    return trump is not None and card.suit == trump


def analyse(cards: Iterable[Card], level: str, trump: Suit | None) -> TrumpAnalysis:
    """Trump count, pairs and tractors of a hand under one candidate trump."""
    counts = Counter(cards)
    trumps = sum(n for card, n in counts.items() if is_trump(card, level, trump))
    pairs = sum(n // 2 for card, n in counts.items() if is_trump(card, level, trump))
    tractors: list[tuple[Card, ...]] = []
    run: list[Card] = []
    for step in trump_ladder(level, trump):
        paired = [card for card in step if counts[card] >= 2]
        if paired:
            run.append(paired[0])
            continue
        if len(run) >= 2:
            tractors.append(tuple(run))
        run = []
    if len(run) >= 2:
        tractors.append(tuple(run))
    return TrumpAnalysis(trump, trumps, pairs, tuple(tractors))


def analyse_hand(cards: Sequence[Card], level: str) -> list[TrumpAnalysis]:
    """The hand under every candidate trump: ♠ ♥ ♣ ♦, then no-trump."""
    return [analyse(cards, level, trump) for trump in CANDIDATES]


def level_cards(cards: Iterable[Card], level: str) -> dict[Suit, int]:
    """How many level cards of each suit a hand holds (what it could declare trump with)."""
    rank = level_rank(level)
    held: Counter[Suit] = Counter()
    for card in cards:
        if card.rank == rank and card.suit is not None:
            held[card.suit] += 1
    return {suit: held[suit] for suit in SUITS if held[suit]}


def jokers(cards: Iterable[Card]) -> tuple[int, int]:
    """(big jokers, small jokers) held."""
    counts = Counter(cards)
    return counts[BIG_JOKER], counts[SMALL_JOKER]
