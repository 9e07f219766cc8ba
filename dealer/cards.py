"""Cards, packs, hands and deals of Shengji, with their text notations and the deal code.

Pure domain code: no I/O.

Notation (documented in ``docs/notation.md``):

* A card in ASCII is a suit letter and a rank: ``S`` ♠, ``H`` ♥, ``C`` ♣, ``D`` ♦; ranks
  ``2``…``9``, ``T`` (``10`` accepted), ``J``, ``Q``, ``K``, ``A``. Jokers are ``BJ`` (big joker,
  大王) and ``LJ`` (little/small joker, 小王); ``大王`` and ``小王`` are accepted when parsing.
* The display form uses ♠♥♣♦ and ``10``: ``♠10``, ``♥A``, ``大王``.
* A hand is its cards separated by spaces, in display order (jokers first, then ♠ ♥ ♣ ♦, each
  suit from A down to 2). Copies of a card are identical, so a hand is a multiset.
* A deal is ``N: … / E: … / S: … / W: …`` with an optional ``/ K: …`` for a separate kitty.
"""

from __future__ import annotations

import base64
import enum
import functools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


class Suit(enum.Enum):
    """The four suits, in canonical order."""

    SPADES = "S"
    HEARTS = "H"
    CLUBS = "C"
    DIAMONDS = "D"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]


_SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.CLUBS: "♣", Suit.DIAMONDS: "♦"}

SUITS: tuple[Suit, ...] = tuple(Suit)

#: Ranks from low to high; the index is the rank's order within a suit.
RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")

#: Level names as written on wallets and in board files ("10", not "T").
LEVELS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

_POINTS_BY_RANK = {"5": 5, "T": 10, "K": 10}

BIG_JOKER_CODE = "BJ"
SMALL_JOKER_CODE = "LJ"


def level_rank(level: str) -> str:
    """The card rank letter of a level name (``"10"`` → ``"T"``); raises ``ValueError``."""
    text = level.strip().upper()
    if text in ("10", "T"):
        return "T"
    if text in RANKS:
        return text
    raise ValueError(f"unknown level {level!r}: expected one of {', '.join(LEVELS)}")


def normalize_level(level: str) -> str:
    """A level in its printed form (``"T"`` / ``"10"`` → ``"10"``); raises ``ValueError``."""
    rank = level_rank(str(level))
    return "10" if rank == "T" else rank


@dataclass(frozen=True, order=True)
class Card:
    """One card kind. ``kind`` is its canonical index 0…53 (the sort key).

    Index 0…51 are the suited cards, suit-major in ``SUITS`` order and rank-minor from 2 to A;
    52 is the small joker and 53 the big joker.
    """

    kind: int

    def __post_init__(self) -> None:
        if not 0 <= self.kind < 54:
            raise ValueError(f"card kind out of range: {self.kind}")

    @classmethod
    def suited(cls, suit: Suit, rank: str) -> Card:
        return cls(SUITS.index(suit) * 13 + RANKS.index(rank))

    @property
    def is_joker(self) -> bool:
        return self.kind >= 52

    @property
    def is_big_joker(self) -> bool:
        return self.kind == 53

    @property
    def suit(self) -> Suit | None:
        return None if self.is_joker else SUITS[self.kind // 13]

    @property
    def rank(self) -> str | None:
        """Rank letter (``"T"`` for ten) or ``None`` for a joker."""
        return None if self.is_joker else RANKS[self.kind % 13]

    @property
    def points(self) -> int:
        """Scoring value: 5 → 5, 10 → 10, K → 10, else 0."""
        return 0 if self.rank is None else _POINTS_BY_RANK.get(self.rank, 0)

    @property
    def ascii(self) -> str:
        if self.is_joker:
            return BIG_JOKER_CODE if self.is_big_joker else SMALL_JOKER_CODE
        assert self.suit is not None and self.rank is not None
        return self.suit.value + self.rank

    @property
    def display_rank(self) -> str:
        """Rank as printed: ``10`` for ten; 大王 / 小王 for jokers."""
        if self.is_joker:
            return "大王" if self.is_big_joker else "小王"
        assert self.rank is not None
        return "10" if self.rank == "T" else self.rank

    def display(self, lang: str = "zh") -> str:
        """Display form: ``♠10``, ``♥A``, ``大王`` (``BJ`` / ``LJ`` in English)."""
        if self.is_joker:
            if lang == "en":
                return "Big joker" if self.is_big_joker else "Small joker"
            return self.display_rank
        assert self.suit is not None
        return self.suit.symbol + self.display_rank

    def __str__(self) -> str:
        return self.ascii

    def __repr__(self) -> str:
        return f"Card({self.ascii})"

    @property
    def display_order(self) -> int:
        """Sort key for printing a hand: jokers first, then suits, each from A down to 2."""
        if self.is_joker:
            return 53 - self.kind  # big joker 0, small joker 1
        return 2 + (self.kind // 13) * 13 + (12 - self.kind % 13)


ALL_KINDS: tuple[Card, ...] = tuple(Card(k) for k in range(54))
BIG_JOKER = Card(53)
SMALL_JOKER = Card(52)

_SUIT_BY_TEXT = {s.value: s for s in Suit} | {s.symbol: s for s in Suit}


def parse_card(text: str) -> Card:
    """Parse one card in ASCII or display form; raises ``ValueError`` naming the text."""
    token = text.strip()
    upper = token.upper()
    if upper in ("BJ", "大王"):
        return BIG_JOKER
    if upper in ("LJ", "小王"):
        return SMALL_JOKER
    if len(token) >= 2 and token[0].upper() in _SUIT_BY_TEXT:
        suit = _SUIT_BY_TEXT[token[0].upper()]
        rank = upper[1:]
        if rank == "10":
            rank = "T"
        if rank in RANKS:
            return Card.suited(suit, rank)
    raise ValueError(
        f"not a card: {text!r} (expected e.g. SA, HT, H10, D2, BJ, LJ, ♠A, 大王)"
    )


def parse_cards(text: str) -> list[Card]:
    """Parse cards separated by spaces or commas."""
    return [parse_card(token) for token in text.replace(",", " ").split()]


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Cards in canonical display order (jokers, then ♠ ♥ ♣ ♦, each from A down)."""
    return sorted(cards, key=lambda card: card.display_order)


def format_cards(cards: Iterable[Card]) -> str:
    """ASCII hand notation: sorted cards separated by single spaces."""
    return " ".join(card.ascii for card in sort_cards(cards))


def points_of(cards: Iterable[Card]) -> int:
    """Total scoring points of some cards."""
    return sum(card.points for card in cards)


@dataclass(frozen=True)
class Pack:
    """A pack of ``decks`` standard 54-card decks (with jokers)."""

    decks: int

    def __post_init__(self) -> None:
        if not 1 <= self.decks <= 4:
            raise ValueError(f"unsupported number of decks: {self.decks} (1 to 4)")

    @property
    def size(self) -> int:
        return 54 * self.decks

    @property
    def total_points(self) -> int:
        return 100 * self.decks

    def cards(self) -> list[Card]:
        """The sorted physical pack: deck by deck, each deck in canonical kind order.

        Position ``i`` holds kind ``i % 54`` of deck ``i // 54``; this is the order that the
        shuffle of ``dealer.deal`` permutes.
        """
        return [ALL_KINDS[i % 54] for i in range(self.size)]

    def counter(self) -> Counter[Card]:
        return Counter({card: self.decks for card in ALL_KINDS})


SEATS: tuple[str, ...] = ("N", "E", "S", "W")
KITTY = "K"


def side_of(seat: str) -> str:
    """``"NS"`` or ``"EW"``."""
    return "NS" if seat in ("N", "S") else "EW"


@dataclass(frozen=True)
class Deal:
    """The four hands of one board (multisets), plus the kitty when it is dealt apart.

    In the duplicate format (计副制) the kitty is already mixed into the declarer's hand and
    ``kitty`` is empty.
    """

    decks: int
    hands: Mapping[str, tuple[Card, ...]]
    kitty: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        if set(self.hands) != set(SEATS):
            raise ValueError(f"a deal needs hands for N, E, S and W, got {sorted(self.hands)}")
        everything = Counter(self.kitty)
        for seat in SEATS:
            everything.update(self.hands[seat])
        if everything != Pack(self.decks).counter():
            raise ValueError("the hands and kitty are not exactly one pack")

    @classmethod
    def build(
        cls, decks: int, hands: Mapping[str, Iterable[Card]], kitty: Iterable[Card] = ()
    ) -> Deal:
        return cls(
            decks,
            {seat: tuple(sort_cards(hands[seat])) for seat in SEATS},
            tuple(sort_cards(kitty)),
        )

    def sizes(self) -> dict[str, int]:
        return {seat: len(self.hands[seat]) for seat in SEATS}

    def format(self) -> str:
        """Deal notation: ``N: … / E: … / S: … / W: …`` (``/ K: …`` when a kitty is apart)."""
        parts = [f"{seat}: {format_cards(self.hands[seat])}" for seat in SEATS]
        if self.kitty:
            parts.append(f"{KITTY}: {format_cards(self.kitty)}")
        return " / ".join(parts)

    @functools.cached_property
    def code(self) -> str:
        """The deal code (:func:`encode_deal`), made once: a site's pages and keys ask often."""
        return encode_deal(self)

    def holder_counts(self) -> dict[Card, dict[str, int]]:
        """For each card kind, how many copies each place (seats and ``K``) holds."""
        table: dict[Card, dict[str, int]] = {card: {} for card in ALL_KINDS}
        places: list[tuple[str, Sequence[Card]]] = [(s, self.hands[s]) for s in SEATS]
        places.append((KITTY, self.kitty))
        for place, cards in places:
            for card in cards:
                table[card][place] = table[card].get(place, 0) + 1
        return table


def parse_deal(text: str, decks: int) -> Deal:
    """Parse the deal notation written by :meth:`Deal.format`."""
    hands: dict[str, list[Card]] = {}
    kitty: list[Card] = []
    for part in text.split("/"):
        if not part.strip():
            continue
        place, sep, cards = part.partition(":")
        place = place.strip().upper()
        if not sep or place not in (*SEATS, KITTY):
            raise ValueError(f"expected 'N:', 'E:', 'S:', 'W:' or 'K:' before the cards in {part!r}")
        if place == KITTY:
            kitty = parse_cards(cards)
        else:
            hands[place] = parse_cards(cards)
    missing = [seat for seat in SEATS if seat not in hands]
    if missing:
        raise ValueError(f"deal lacks the hand(s) of {', '.join(missing)}")
    return Deal.build(decks, hands, kitty)


# --- deal code -----------------------------------------------------------------------------
#
# One digit per card copy, in canonical kind order (kind 0 … 53, copies of a kind sorted by
# place so that identical copies give one code): the digit is the place holding that copy,
# N=0 E=1 S=2 W=3 (and K=4 when the kitty is apart). The digits form a big-endian number in
# base 4 (2 bits per copy) or base 5; its bytes, of fixed length for the pack, are written in
# RFC 4648 base32 without padding. A two-character prefix names the decks and whether the kitty
# is apart: ``2H`` = two decks, kitty in a hand; ``2K`` = two decks, kitty apart.

_PLACES = (*SEATS, KITTY)


def code_length(decks: int, radix: int) -> int:
    copies = 54 * decks
    return (int(radix**copies - 1).bit_length() + 7) // 8


def encode_deal(deal: Deal) -> str:
    radix = 5 if deal.kitty else 4
    holders = deal.holder_counts()
    number = 0
    for card in ALL_KINDS:
        for place_index, place in enumerate(_PLACES[:radix]):
            for _ in range(holders[card].get(place, 0)):
                number = number * radix + place_index
    raw = number.to_bytes(code_length(deal.decks, radix), "big")
    body = base64.b32encode(raw).decode("ascii").rstrip("=")
    return f"{deal.decks}{'K' if deal.kitty else 'H'}{body}"


def decode_deal(code: str) -> Deal:
    """Inverse of :func:`encode_deal`; raises ``ValueError`` on a malformed code."""
    text = code.strip().upper()
    if len(text) < 3 or text[0] not in "1234" or text[1] not in "HK":
        raise ValueError(f"not a deal code: {code!r}")
    decks = int(text[0])
    radix = 5 if text[1] == "K" else 4
    body = text[2:]
    try:
        raw = base64.b32decode(body + "=" * (-len(body) % 8))
    except ValueError as error:
        raise ValueError(f"not a deal code: {code!r} ({error})") from None
    if len(raw) != code_length(decks, radix):
        raise ValueError(f"deal code {code!r} has the wrong length for {decks} deck(s)")
    number = int.from_bytes(raw, "big")
    digits: list[int] = []
    for _ in range(54 * decks):
        number, digit = divmod(number, radix)
        digits.append(digit)
    if number:
        raise ValueError(f"deal code {code!r} is out of range")
    digits.reverse()
    places: dict[str, list[Card]] = {place: [] for place in _PLACES}
    for position, digit in enumerate(digits):
        places[_PLACES[digit]].append(ALL_KINDS[position // decks])
    return Deal.build(decks, {seat: places[seat] for seat in SEATS}, places[KITTY])
