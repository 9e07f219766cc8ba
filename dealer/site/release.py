"""``dealer release``: the director makes a board set's hands public (or, at the end, the key).

A release is a row of the results database's ``releases`` table, in the same hash chain as the
results and the director's actions (with its time, reason and who). The players' site shows a
set's hands only once it is released; nothing else reads this table. Releasing is refused while
a match that plays the set still misses results, or while no match has played it yet, unless the
director accepts that (``accept_missing``): the hands would tell a table that has still to play
the board what it holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from dealer.errors import UserError
from dealer.event import Event
from dealer.folder import EventFolder
from dealer.results.db import Release


class ReleaseError(UserError, ValueError):
    """A release that cannot be made as asked (nothing was stored)."""


@dataclass(frozen=True)
class ReleaseOutcome:
    release: Release | None  # None: it had been released before (nothing stored)
    earlier: Release | None
    warnings: list[str]

    def text(self) -> str:
        if self.release is None:
            assert self.earlier is not None
            what = "the key" if self.earlier.kind == "key" else f"set {self.earlier.set_number}"
            return f"{what} was released on {self.earlier.at} ({self.earlier.reason}): nothing changed"
        what = "the key" if self.release.kind == "key" else f"set {self.release.set_number}'s hands"
        return f"released {what} at {self.release.at} ({self.release.reason})"


def released(event: Event, folder: EventFolder) -> list[Release]:
    """The releases stored for the event (none without a results database)."""
    from dealer.results.entry import open_existing_results

    store = open_existing_results(event, folder, check_deal=False)
    if store is None:
        return []
    with store:
        return store.releases()


def set_warnings(event: Event, folder: EventFolder, set_number: int) -> list[str]:
    """Why releasing ``set_number`` now could show a table the hands it has still to play: a
    match playing it with results missing, or no match that has played it."""
    from dealer.report import build_report

    data = build_report(event, folder)  # the event as scheduled (paired rounds included)
    playing = [m for m in data.scored.matches if m.set == set_number]
    if not playing:
        return [f"no match plays set {set_number} yet"]
    found = []
    for match, gaps in data.scored.missing():
        if match.set != set_number or not gaps or data.adjustments.forfeiters(match.round, match.id):
            continue
        tables = sorted({table for _board, table in gaps})
        found.append(f"round {match.round} match {match.id} ({match.home} v {match.away}): {len(gaps)} result(s) "
                     f"missing at table {'/'.join(tables)}")
    return found


def release(event: Event, folder: EventFolder, set_number: int | None, reason: str, *,
            entered_by: str | None = None, accept_missing: bool = False) -> ReleaseOutcome:
    """Release set ``set_number``'s hands (``None``: the key, once every played set is
    released). Once only: a second release of the same thing stores nothing."""
    from dealer.results.entry import open_results

    if event.levels:
        raise ReleaseError("a level race deals no boards: there are no hands to release", field="set")
    if not reason.strip():
        raise ReleaseError("a release needs a reason (it is kept with the results)", field="reason")
    folder.require()
    if folder.deal_state() != "complete":
        raise ReleaseError(f"event {event.id} is not dealt: there are no hands to release", field="set", hint="deal")
    if set_number is not None and not 1 <= set_number <= event.sets:
        raise ReleaseError(f"set {set_number}: the event has sets 1 to {event.sets}", field="set")
    earlier = {(r.kind, r.set_number): r for r in released(event, folder)}
    kind = "key" if set_number is None else "set"
    if (kind, set_number) in earlier:
        return ReleaseOutcome(None, earlier[(kind, set_number)], [])
    if set_number is None:
        from dealer.results.rounds import load_scheduled

        scheduled = load_scheduled(event, folder)
        played = sorted({m.set for m in scheduled.matches()})
        left = [n for n in played if ("set", n) not in earlier]
        if left:
            raise ReleaseError(f"the key reveals every set: release the played set(s) {', '.join(map(str, left))} "
                               "first (`dealer release EVENT.toml --set N`)", field="set")
        warnings: list[str] = []
    else:
        warnings = set_warnings(event, folder, set_number)
        if warnings and not accept_missing:
            raise ReleaseError(f"set {set_number} is still being played: " + "; ".join(warnings)
                               + " (its hands would show a table what it has still to play); nothing released",
                               field="set", hint="accept_missing")
    from dealer.results.rounds import load_scheduled

    with open_results(load_scheduled(event, folder), folder) as store:
        with store.transaction():
            stored = store.insert_release(kind, set_number, reason.strip(), entered_by)
    return ReleaseOutcome(stored, None, warnings)
