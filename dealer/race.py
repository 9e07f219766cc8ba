"""The names of a level race (计时制 / 计局制): the final levels a side can reach, 过A one past A,
and the words a score sheet uses for the side that won the last game. Pure, no I/O; apart from
:mod:`dealer.levels` (the scoring) so that checking one table result does not load the scoring.
"""

from __future__ import annotations

from collections.abc import Sequence

from dealer.cards import LEVELS, normalize_level

#: One level past A: the side that gets there first wins the table (谁先过“A”谁赢).
PAST_A = "过A"
RACE_LEVELS: tuple[str, ...] = (*LEVELS, PAST_A)
#: Spellings of 过A (compared after upper-casing, spaces removed). Not 过 alone: the docs and the
#: score sheet say 过A, and a bare 过 may be a level cut short; it is refused with these two.
_PAST_A_SPELLINGS = frozenset({"过A", "A+"})
#: 末局胜方: the side that won the last game, by the words a score sheet uses.
SIDES = {"HOME": "home", "主": "home", "主队": "home", "主方": "home",
         "AWAY": "away", "客": "away", "客队": "away", "客方": "away"}


def race_level(text: str) -> str:
    """A final level as printed (``"10"``, ``"J"``, ``"过A"``); raises ``ValueError``."""
    compact = "".join(str(text).split()).upper()
    if compact in _PAST_A_SPELLINGS:
        return PAST_A
    if not compact.isascii():
        raise ValueError(text)
    return normalize_level(compact)


def climbed(level: str, start: str) -> int:
    """Levels climbed from ``start`` to ``level`` (过A: one past A); negative below the start."""
    return RACE_LEVELS.index(level) - RACE_LEVELS.index(start)


def level_names(start: str) -> Sequence[str]:
    """The final levels a table can report when every side starts at ``start``."""
    return RACE_LEVELS[RACE_LEVELS.index(start):]


def advance(level: str, steps: int, must_play: Sequence[str] = ()) -> str:
    """The level a side at ``level`` reaches by ``steps`` more levels (fewer: down, never below
    2), up to 过A. A climb stops at the first must-play level it reaches (seed 003 第三条:
    2、J、A必打: a side at 9 that climbs 3 plays J, not Q; 过A only from A); going down passes them."""
    index = RACE_LEVELS.index(level)
    if steps <= 0:
        return RACE_LEVELS[max(0, index + steps)]
    for _ in range(steps):
        if index == len(RACE_LEVELS) - 1:
            break
        index += 1
        if RACE_LEVELS[index] in must_play:
            break
    return RACE_LEVELS[index]
