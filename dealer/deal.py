"""Fair, secret, reproducible dealing (the algorithm of ``docs/dealing.md``).

Pure domain code. Every board is derived on its own: its stream from (key, event id, set, board
number, public value, algorithm version), its hands from that stream and the plan's pack, hand and
kitty sizes, kitty mode and declarer:

1. a stream of 32-bit big-endian words from ``SHAKE-256(STREAM_TAG || key || message)`` with the
   message of :func:`board_input` (the key is 32 bytes, so the input is unambiguous);
2. a Fisher–Yates shuffle of the sorted pack whose index draws are unbiased by rejection
   sampling (no modulo bias, no ``random`` module);
3. the shuffled pack is cut into the N, E, S, W hands and the kitty; in the duplicate format
   (计副制) the kitty goes into the declarer's hand.

:mod:`dealer.batch` computes the very same boards many at a time.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from math import prod
from typing import Any

from dealer.cards import SEATS, Card, Deal, Pack
from dealer.commitment import ALGORITHM, KEY_BYTES, KeyFormatError

STREAM_TAG = b"shengji-dealer/stream/v1\x00"
WORD_LIMIT = 1 << 32


def _field(data: bytes) -> bytes:
    return len(data).to_bytes(4, "big") + data


def board_input_parts(
    key: bytes, event_id: str, set_number: int, public_value: str | None
) -> tuple[bytes, bytes]:
    """The parts of :func:`board_input` before and after the board number."""
    if len(key) != KEY_BYTES:
        raise KeyFormatError("deal.key_bytes", key_bytes=KEY_BYTES)
    head = (
        STREAM_TAG
        + key
        + _field(ALGORITHM.encode("utf-8"))
        + _field(event_id.encode("utf-8"))
        + set_number.to_bytes(4, "big")
    )
    return head, _field((public_value or "").encode("utf-8"))


def board_input(
    key: bytes, event_id: str, set_number: int, board: int, public_value: str | None = None
) -> bytes:
    """The SHAKE-256 input of one board (docs/dealing.md §2):
    ``STREAM_TAG || key || str(algorithm) || str(event) || u32(set) || u32(board) || str(public)``.

    Keccak has no length-extension weakness, so a fixed-length secret key in front of the
    message makes SHAKE-256 a pseudorandom function (the keyed sponge that KMAC standardizes);
    one hash call per board keeps the batch path fast.
    """
    head, tail = board_input_parts(key, event_id, set_number, public_value)
    return head + board.to_bytes(4, "big") + tail


class WordStream:
    """The 32-bit big-endian words of ``SHAKE-256(material)``, read in order."""

    def __init__(self, material: bytes, expected_words: int = 128) -> None:
        self._xof = hashlib.shake_256(material)
        self._buffer = self._xof.digest(4 * expected_words)
        self._position = 0

    def next_word(self) -> int:
        if self._position + 4 > len(self._buffer):
            # SHAKE output is prefix-stable: a longer digest extends the one already read.
            self._buffer = self._xof.digest(2 * len(self._buffer))
        word = int.from_bytes(self._buffer[self._position : self._position + 4], "big")
        self._position += 4
        return word

    def below(self, bound: int) -> int:
        """A uniform integer in ``0 … bound-1`` by rejection sampling."""
        limit = WORD_LIMIT - WORD_LIMIT % bound
        while True:
            word = self.next_word()
            if word < limit:
                return word % bound


def draw_bounds(size: int) -> list[tuple[int, ...]]:
    """The bounds of the shuffle's draws, two Fisher–Yates steps per draw (docs/dealing.md §4).

    Steps ``i = size-1 … 1`` need uniform indexes below ``i + 1``; consecutive steps are paired,
    ``(size, size-1), (size-2, size-3), …``, with a single last step when their number is odd.
    """
    bounds = list(range(size, 1, -1))
    return [tuple(bounds[k : k + 2]) for k in range(0, len(bounds), 2)]


def shuffle_positions(material: bytes, size: int) -> list[int]:
    """The shuffled order of pack positions ``0 … size-1`` (Fisher–Yates, from the top), drawn
    from the stream of ``material`` (:func:`board_input`).

    One word serves two steps: a uniform ``r`` below ``a·b`` gives ``r mod a`` (uniform below
    ``a``) and ``r div a`` (uniform below ``b``, independent of the first).
    """
    pairs = draw_bounds(size)
    stream = WordStream(material, len(pairs) + 8)
    order = list(range(size))
    i = size - 1
    for pair in pairs:
        r = stream.below(prod(pair))
        for bound in pair:
            j = r % bound
            r //= bound
            order[i], order[j] = order[j], order[i]
            i -= 1
    return order


@dataclass(frozen=True)
class Layout:
    """How a shuffled pack is cut: hand size, kitty size, and where the kitty goes."""

    decks: int
    hand: int
    kitty: int
    kitty_in_hand: bool = True

    def __post_init__(self) -> None:
        if 4 * self.hand + self.kitty != 54 * self.decks:
            raise ValueError(f"4 hands of {self.hand} and {self.kitty} in the kitty ≠ the pack")


def deal_from_order(order: Sequence[int], layout: Layout, declarer: str) -> Deal:
    """Cut a shuffled order of pack positions into hands (N, E, S, W, then the kitty)."""
    pack = Pack(layout.decks).cards()
    cards = [pack[position] for position in order]
    hands: dict[str, list[Card]] = {
        seat: cards[i * layout.hand : (i + 1) * layout.hand] for i, seat in enumerate(SEATS)
    }
    kitty = cards[4 * layout.hand :]
    if layout.kitty_in_hand:
        hands[declarer] = hands[declarer] + kitty
        kitty = []
    return Deal.build(layout.decks, hands, kitty)


@dataclass(frozen=True)
class BoardSpec:
    """Everything that determines one board, except the key."""

    event_id: str
    set_number: int
    number: int
    declarer: str
    level: str
    public_value: str | None = None


@dataclass(frozen=True)
class Board:
    """One dealt board: its fixed conditions and its deal."""

    set_number: int
    number: int
    declarer: str
    level: str
    deal: Deal

    def as_dict(self) -> dict[str, Any]:
        """The board's entry in a board set file (schema of docs/dealing.md)."""
        return {
            "number": self.number,
            "declarer": self.declarer,
            "level": self.level,
            "hands": {seat: [c.ascii for c in self.deal.hands[seat]] for seat in SEATS},
            "kitty": [c.ascii for c in self.deal.kitty],
            "deal_code": self.deal.code,
        }


def deal_board(key: bytes, spec: BoardSpec, layout: Layout) -> Board:
    """Deal one board on its own."""
    material = board_input(key, spec.event_id, spec.set_number, spec.number, spec.public_value)
    order = shuffle_positions(material, 54 * layout.decks)
    return Board(spec.set_number, spec.number, spec.declarer, spec.level,
                 deal_from_order(order, layout, spec.declarer))


def deal_boards(key: bytes, specs: Sequence[BoardSpec], layout: Layout) -> Iterator[Board]:
    for spec in specs:
        yield deal_board(key, spec, layout)
