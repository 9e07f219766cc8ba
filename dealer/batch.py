"""The batch dealing path: many boards at once with NumPy, giving the very same boards as
:func:`dealer.deal.deal_board` (tests check this board for board).

Used for fairness audits and statistics. Per board only the seed and the SHAKE-256 stream are
computed in Python; the Fisher–Yates steps run across all boards together. A board whose
stream needs more words than were drawn ahead (rejections are rare: below 108 / 2**32 per
draw) is redone by the single-board path.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from dealer.deal import STREAM_TAG, WORD_LIMIT, board_message, shuffle_positions

#: Words drawn ahead per board beyond the size - 1 that a shuffle needs without rejections.
SPARE_WORDS = 8


def shuffle_many(
    key: bytes,
    event_id: str,
    set_number: int,
    boards: Sequence[int],
    size: int,
    public_value: str | None = None,
) -> npt.NDArray[np.int16]:
    """Shuffled pack orders for many boards of one set: an array (len(boards), size)."""
    count = len(boards)
    needed = size - 1 + SPARE_WORDS
    raw = bytearray()
    seeds: list[bytes] = []
    for board in boards:
        seed = hmac.new(key, board_message(event_id, set_number, board, public_value),
                        "sha256").digest()
        seeds.append(seed)
        raw += hashlib.shake_256(STREAM_TAG + seed).digest(4 * needed)
    words = np.frombuffer(bytes(raw), dtype=">u4").reshape(count, needed).astype(np.uint64)
    order = np.tile(np.arange(size, dtype=np.int16), (count, 1))
    pointer = np.zeros(count, dtype=np.intp)
    rows = np.arange(count)
    overflow = np.zeros(count, dtype=bool)
    for i in range(size - 1, 0, -1):
        bound = i + 1
        limit = WORD_LIMIT - WORD_LIMIT % bound
        word = words[rows, pointer]
        rejected = word >= limit
        while rejected.any():
            pointer[rejected] += 1
            overflow |= pointer >= needed
            np.minimum(pointer, needed - 1, out=pointer)
            word = words[rows, pointer]
            rejected = (word >= limit) & ~overflow
        j = (word % bound).astype(np.intp)
        pointer += 1
        overflow |= pointer >= needed
        np.minimum(pointer, needed - 1, out=pointer)
        held = order[rows, j]
        order[rows, j] = order[:, i]
        order[:, i] = held
    for row in np.flatnonzero(overflow):
        order[row] = shuffle_positions(seeds[row], size)
    return order
