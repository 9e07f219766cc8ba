"""The batch dealing path: many boards at once with NumPy, giving the very same boards as
:mod:`dealer.deal` (tests check this board for board).

Used by ``dealer deal`` and ``dealer verify`` and for fairness audits. Per board only the keyed
SHAKE-256 stream is computed in Python (one hash call); every index draw and every Fisher–Yates
swap runs across a chunk of boards at once. A draw is rejected (docs/dealing.md §4) with
probability below 108·107 / 2**32, so the vectorized steps assume none and the rare board that had
one is redone by the single-board path.

Boards are then held in columns, never as :class:`~dealer.cards.Deal` objects: the *place* of
every pack position (0–3 the seats N, E, S, W, 4 the kitty dealt apart), from which come the hands
in display order and the deal code (docs/notation.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from dealer.cards import ALL_KINDS, SEATS, code_length
from dealer.deal import WORD_LIMIT, Layout, board_input_parts, draw_bounds, shuffle_positions

#: Boards shuffled together: small enough for the working arrays to stay in the CPU cache.
CHUNK = 4096


def _shuffle_chunk(inputs: list[bytes], size: int) -> npt.NDArray[np.int16]:
    count = len(inputs)
    pairs = draw_bounds(size)
    shake = hashlib.shake_256
    raw = b"".join([shake(material).digest(4 * len(pairs)) for material in inputs])
    # words[k, b]: the k-th word of board b's stream, drawn below the product of pairs[k].
    words = np.ascontiguousarray(np.frombuffer(raw, dtype=">u4").reshape(count, len(pairs)).T)
    words = words.astype(np.uint32)
    products = np.array([np.prod(p) for p in pairs], dtype=np.uint64)[:, np.newaxis]
    had_rejection = (words >= WORD_LIMIT - WORD_LIMIT % products).any(axis=0)
    draws = words % products.astype(np.uint32)
    columns = np.arange(count, dtype=np.intp)
    order = np.repeat(np.arange(size, dtype=np.int16), count).reshape(size, count)
    flat = order.reshape(-1)  # flat index of order[j, b] is j * count + b
    i = size - 1
    for k, pair in enumerate(pairs):
        remaining = draws[k]
        for bound in pair:
            picked = (remaining % bound).astype(np.intp) * count + columns
            remaining = remaining // bound
            held = flat[picked]
            flat[picked] = order[i]
            order[i] = held
            i -= 1
    result = np.ascontiguousarray(order.T)
    for row in np.flatnonzero(had_rejection):
        result[row] = shuffle_positions(inputs[row], size)
    return result


def shuffle_inputs(inputs: Sequence[bytes], size: int) -> npt.NDArray[np.int16]:
    """Shuffled pack orders for the stream inputs of many boards (:func:`dealer.deal.board_input`),
    of any events and sets: an array (len(inputs), size)."""
    if not inputs:
        return np.zeros((0, size), dtype=np.int16)
    return np.concatenate(
        [_shuffle_chunk(list(inputs[start : start + CHUNK]), size) for start in range(0, len(inputs), CHUNK)]
    )


def shuffle_many(
    key: bytes,
    event_id: str,
    set_number: int,
    boards: Iterable[int],
    size: int,
    public_value: str | None = None,
) -> npt.NDArray[np.int16]:
    """Shuffled pack orders for many boards of one set: an array (len(boards), size)."""
    head, tail = board_input_parts(key, event_id, set_number, public_value)
    return shuffle_inputs([head + board.to_bytes(4, "big") + tail for board in boards], size)


def set_inputs(key: bytes, event_id: str, boards: Iterable[tuple[int, int]],
               public_value: str | None = None) -> list[bytes]:
    """The stream inputs of boards given as (set, board)."""
    parts: dict[int, tuple[bytes, bytes]] = {}
    inputs = []
    for set_number, board in boards:
        if set_number not in parts:
            parts[set_number] = board_input_parts(key, event_id, set_number, public_value)
        head, tail = parts[set_number]
        inputs.append(head + board.to_bytes(4, "big") + tail)
    return inputs


# --- boards in columns -------------------------------------------------------------------------

KITTY_PLACE = 4
SEAT_INDEX = {seat: index for index, seat in enumerate(SEATS)}
#: Display rank (jokers first, then ♠ ♥ ♣ ♦ from A down) of each card kind, and the ASCII name of
#: each display rank: sorting display ranks sorts a hand as docs/notation.md prints it.
_DISPLAY = np.array([card.display_order for card in ALL_KINDS], dtype=np.int16)


def places(orders: npt.NDArray[np.int16], layout: Layout, declarers: Sequence[str]) -> npt.NDArray[np.uint8]:
    """Where each pack position of each board went (docs/dealing.md §6): an array like
    ``orders`` of places 0–3 (N, E, S, W) and 4 (the kitty dealt apart)."""
    count, size = orders.shape
    by_slot = np.minimum(np.arange(size) // layout.hand, KITTY_PLACE).astype(np.uint8)
    slots = np.repeat(by_slot[np.newaxis, :], count, axis=0)
    if layout.kitty_in_hand and layout.kitty:
        seats = np.array([SEAT_INDEX[d] for d in declarers], dtype=np.uint8)
        slots[:, 4 * layout.hand:] = seats[:, np.newaxis]
    result = np.empty((count, size), dtype=np.uint8)
    np.put_along_axis(result, orders.astype(np.intp), slots, axis=1)
    return result


def code_digits(held: npt.NDArray[np.uint8], decks: int) -> npt.NDArray[np.uint8]:
    """The deal code's digits (docs/notation.md): card kinds in order, the copies of a kind by
    place. ``held``: places by pack position (:func:`places`)."""
    count = held.shape[0]
    by_kind = held.reshape(count, decks, 54).transpose(0, 2, 1)
    return np.sort(by_kind, axis=2).reshape(count, 54 * decks)


def digits_from_counts(counts: npt.NDArray[np.int64], decks: int) -> npt.NDArray[np.uint8]:
    """:func:`code_digits` from how many copies of each kind each place holds, an array
    (boards, 5, 54) with ``decks`` copies of every kind."""
    cumulative = counts.cumsum(axis=1)  # (boards, 5, 54): copies held by places 0 … p
    copies = [(cumulative <= copy).sum(axis=1) for copy in range(decks)]  # the place of each copy
    return np.stack(copies, axis=2).reshape(counts.shape[0], 54 * decks).astype(np.uint8)


#: The base-32 alphabet of deal codes (RFC 4648, as :func:`base64.b32encode`).
_BASE32 = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", dtype=np.uint8)


def _base32_rows(numbers: npt.NDArray[np.uint8]) -> list[str]:
    """Each row of bytes in base 32 without padding: ``base64.b32encode(row).rstrip("=")``, for
    every row at once (the last group of five bits padded with zero bits, as RFC 4648 does)."""
    count = numbers.shape[0]
    bits = np.unpackbits(numbers, axis=1)
    bits = np.concatenate([bits, np.zeros((count, -bits.shape[1] % 5), dtype=np.uint8)], axis=1)
    values = bits.reshape(count, -1, 5) @ np.array([16, 8, 4, 2, 1], dtype=np.uint8)
    text = _BASE32[values].tobytes().decode("ascii")
    width = values.shape[1]
    return [text[start : start + width] for start in range(0, count * width, width)]


def deal_codes(digits: npt.NDArray[np.uint8], decks: int, kitty_apart: bool) -> list[str]:
    """The deal code of each board from its digits (:func:`code_digits`); the same text as
    :func:`dealer.cards.encode_deal`."""
    radix = 5 if kitty_apart else 4
    length = code_length(decks, radix)
    prefix = f"{decks}{'K' if kitty_apart else 'H'}"
    count = digits.shape[0]
    if radix == 4:  # two bits a digit: the number's bits are the digits' bits, left-padded
        bits = np.stack([digits >> 1, digits & 1], axis=2).reshape(count, -1)
        padding = np.zeros((count, 8 * length - bits.shape[1]), dtype=np.uint8)
        numbers = np.packbits(np.concatenate([padding, bits], axis=1), axis=1)
    else:
        texts = (digits + ord("0")).astype(np.uint8)
        raw = b"".join(int(row.tobytes(), 5).to_bytes(length, "big") for row in texts)
        numbers = np.frombuffer(raw, dtype=np.uint8).reshape(count, length)
    return [prefix + code for code in _base32_rows(numbers)]


#: Each display rank's card as a set file lists it: ``"SA",`` (five ASCII bytes).
_LISTED = np.zeros((64, 5), dtype=np.uint8)
for _card in ALL_KINDS:
    _LISTED[_card.display_order] = np.frombuffer(f'"{_card.ascii}",'.encode("ascii"), dtype=np.uint8)


def json_hands(held: npt.NDArray[np.uint8]) -> list[list[bytes]]:
    """Each board's hands (N, E, S, W) and kitty as the JSON arrays a set file writes: ASCII cards
    in display order (docs/notation.md), e.g. ``["BJ","SA","SA"]``. Formatted in columns, so that
    writing a set costs about what dealing it does."""
    size = held.shape[1]
    kinds = np.arange(size) % 54
    keys = np.sort(held.astype(np.int16) * 64 + _DISPLAY[kinds], axis=1)
    text = _LISTED[keys & 63].tobytes()
    sizes = np.stack([(held == place).sum(axis=1) for place in range(KITTY_PLACE + 1)], axis=1)
    ends = (np.cumsum(sizes, axis=1) * 5).tolist()
    boards = []
    for board, board_ends in enumerate(ends):
        start = offset = board * size * 5
        arrays = []
        for end in board_ends:
            end += offset
            arrays.append(b"[" + text[start : end - 1] + b"]" if end > start else b"[]")
            start = end
        boards.append(arrays)
    return boards
