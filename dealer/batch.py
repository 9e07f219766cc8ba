"""The batch dealing path: many boards at once with NumPy, giving the very same boards as
:func:`dealer.deal.shuffle_positions` (tests check this board for board).

Used for fairness audits and statistics. Per board only the keyed SHAKE-256 stream is computed in
Python (one hash call); every index draw and every Fisher–Yates swap runs across a chunk of boards
at once. A draw is rejected (docs/dealing.md §4) with probability below 108·107 / 2**32, so the
vectorized steps assume none and the rare board that had one is redone by the single-board path.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from dealer.deal import WORD_LIMIT, board_input_parts, draw_bounds, shuffle_positions

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
    inputs = [head + board.to_bytes(4, "big") + tail for board in boards]
    if not inputs:
        return np.zeros((0, size), dtype=np.int16)
    return np.concatenate(
        [_shuffle_chunk(inputs[start : start + CHUNK], size) for start in range(0, len(inputs), CHUNK)]
    )
