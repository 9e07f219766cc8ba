"""Whether stored results still fit the event file: a result is stored with the match, board set
and seating it was entered for, and an edit of the event file that would credit it to other teams
or boards is refused until the director corrects it (DESIGN §8). Pure domain code, no I/O; apart
from :mod:`dealer.scoring` so that storing one result does not load the scoring.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from dealer.errors import Phrase, ScoringError, Wording

if TYPE_CHECKING:
    from dealer.event import Event


class StoredSeating(Protocol):
    """How stored results of one match and table were entered (see ``dealer.store.rows.Seating``)."""

    @property
    def round(self) -> int: ...
    @property
    def match(self) -> str: ...
    @property
    def table(self) -> str: ...
    @property
    def played_set(self) -> int | None: ...
    @property
    def ns_team(self) -> str | None: ...
    @property
    def ew_team(self) -> str | None: ...


@dataclass(frozen=True)
class Misattributed:
    """A match whose stored results no longer fit the event file as it is now."""

    round: int
    match: str
    reason: Phrase

    def text(self, words: Wording | None = None) -> str:
        params = {"round": self.round, "match": self.match, "reason": self.reason}
        return words.text("scoring.misattributed", params) if words else str(Phrase("scoring.misattributed", params))


class AttributionError(ScoringError):
    """Stored results that the event file, as edited, would credit to other teams or boards."""

    def __init__(self, found: Sequence[Misattributed]) -> None:
        self.found = list(found)
        super().__init__("scoring.results_misattributed", hint="misattributed", matches=len(self.found))

    def lines(self, words: Wording | None = None) -> list[str]:
        head, *advice = super().lines(words)
        return [head, *(f"  {f.text(words)}" for f in self.found), *advice]


def attribution_problems(event: Event, seatings: Iterable[StoredSeating]) -> list[Misattributed]:
    """Every match whose stored results were entered for a match, set or seating (N-S and E-W
    team at each table) that the event no longer has. Results stored without their seating (by
    versions before 0.2) are taken as they are."""
    found: dict[tuple[int, str], Phrase] = {}
    for seating in seatings:
        key = (seating.round, seating.match)
        if key in found:
            continue
        rnd = event.round(seating.round)
        match = rnd.match(seating.match) if rnd is not None else None
        if match is None:
            found[key] = Phrase("scoring.match_gone")
            continue
        if seating.played_set is not None and seating.played_set != match.set:
            found[key] = Phrase.of("scoring.set_changed", played=seating.played_set, now=match.set)
            continue
        if seating.ns_team is None and seating.ew_team is None:
            continue
        seats = match.seats(seating.table)
        if (seating.ns_team, seating.ew_team) != (seats["NS"], seats["EW"]):
            found[key] = Phrase.of("scoring.seating_changed", ns=seating.ns_team, ew=seating.ew_team,
                                   table=seating.table, now_ns=seats["NS"], now_ew=seats["EW"], home=match.home,
                                   away=match.away)
    return [Misattributed(r, m, reason) for (r, m), reason in sorted(found.items())]
