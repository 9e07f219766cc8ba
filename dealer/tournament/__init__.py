"""Tournament formats: who plays whom in each round.

Pure domain code, no I/O, one module per format: :mod:`round_robin` (Berger tables, groups),
:mod:`swiss` (积分编排: score groups solved as a maximum-weight matching) and :mod:`knockout`
(single and double elimination over a replaceable bracket order). Each takes the teams and
what has happened so far and returns one round; storing it is :mod:`dealer.rounds`' work.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Pairing:
    """One match of a round: ``home`` sits E-W at table A and N-S at table B."""

    home: str
    away: str
    #: The bracket slot of a knockout match ("W1-3", "L2-1", "F1"), the group of a grouped round robin.
    slot: str | None = None
    group: int | None = None


@dataclass(frozen=True)
class PairingWarning:
    """Something the director must accept before a round is stored (``code`` is stable)."""

    code: str  # "rematch", "second-bye"
    text: str
    #: The values the text names (team ids, counts), for a face to word it in its own language.
    params: Mapping[str, object] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class PairedRound:
    pairings: tuple[Pairing, ...]
    byes: tuple[str, ...] = ()
    warnings: tuple[PairingWarning, ...] = ()
    #: A round drawn in an order of sort keys (a Swiss round 1 by pinyin): (team, key) in that
    #: order, printed with the pairings so that anyone can check the draw.
    sort_keys: tuple[tuple[str, str], ...] = ()
