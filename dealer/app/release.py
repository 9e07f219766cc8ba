"""``dealer release``: the director makes a board set's hands public (or, at the end, the key).

A release is a row of the results database's ``releases`` table, in the same hash chain as the
results and the director's actions (with its time, reason and who). The players' site shows a
set's hands only once it is released; nothing else reads this table. Releasing is refused while
a match that plays the set still misses results, or while no match has played it yet, unless the
director accepts that (``accept_missing``): the hands would tell a table that has still to play
the board what it holds.

A set no match will play (a Swiss ended early, a spare set) is *declared unused* instead (a row
of kind ``unused``, with its reason): it is never shown as a played set, and it cannot be
released or played afterwards. The key derives every set, played or not, so it is released only
once the event is over: every round its format needs paired and complete, or its end declared
(:func:`dealer.app.rounds.end_event`), and every set released or declared unused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from dealer.errors import Phrase, UserError
from dealer.store.db import ResultsStore
from dealer.store.rows import Action, Release
from dealer.words import local_time

if TYPE_CHECKING:
    from dealer.app.session import EventSession
    from dealer.app.standings import ReportData


class ReleaseError(UserError, ValueError):
    """A release that cannot be made as asked (nothing was stored)."""


@dataclass(frozen=True)
class ReleaseOutcome:
    release: Release | None  # None: it had been released before (nothing stored)
    earlier: Release | None
    warnings: list[str]
    timezone: str | None = None  # the event's: the zone the release's time is said in

    def phrase(self) -> Phrase:
        if self.release is None:
            assert self.earlier is not None
            earlier = self.earlier
            at = local_time(earlier.at, self.timezone)
            if earlier.kind == "unused":
                return Phrase.of("outcome.unused_before", set=earlier.set_number, at=at, reason=earlier.reason)
            what = Phrase("outcome.the_key") if earlier.kind == "key" else \
                Phrase.of("outcome.the_set", set=earlier.set_number)
            return Phrase.of("outcome.released_before", what=what, at=at, reason=earlier.reason)
        made = self.release
        at = local_time(made.at, self.timezone)
        if made.kind == "unused":
            return Phrase.of("outcome.declared_unused", set=made.set_number, at=at, reason=made.reason)
        what = Phrase("outcome.the_key") if made.kind == "key" else Phrase.of("outcome.the_hands", set=made.set_number)
        return Phrase.of("outcome.released", what=what, at=at, reason=made.reason)

    def text(self) -> str:
        """In English (the demo's lines)."""
        return str(self.phrase())


def _stored(store: ResultsStore | None) -> tuple[list[Release], Action | None, str | None]:
    """The releases, the declared end and the chain head (none without a results database),
    after a full audit: what is released rests on the stored releases, pairings and results,
    which count only as links of the chain (the head is checked again before the release is
    written, so nothing unaudited slips in between)."""
    from dealer.app.played import declared_end

    if store is None:
        return [], None, None
    store.require_intact(Phrase("site.nothing_released"))
    return store.releases(), declared_end(store), store.chain_head()


def _missing_for(data: ReportData, set_number: int) -> list[str]:
    """Why releasing ``set_number`` now could show a table the hands it has still to play: a
    match playing it with results missing, or no match that has played it."""
    playing = [m for m in data.scored.matches if m.set == set_number]
    if not playing:
        return [f"no match has played set {set_number} yet"]
    found = []
    for match, gaps in data.scored.missing():
        if match.set != set_number or not gaps or data.adjustments.forfeiters(match.round, match.id):
            continue
        tables = sorted({table for _board, table in gaps})
        found.append(f"round {match.round} match {match.id} ({match.home} v {match.away}): {len(gaps)} result(s) "
                     f"missing at table {'/'.join(tables)}")
    return found


def _sets_text(numbers: list[int]) -> str:
    return f"set{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"


def _playing(data: ReportData, set_number: int) -> list[str]:
    return [f"round {m.round} match {m.id}" for m in data.scored.matches if m.set == set_number]


def _key_left(data: ReportData, earlier: dict[tuple[str, int | None], Release], end: Action | None) -> list[str]:
    """What keeps the key from being released: the event not over (no end declared), and the sets
    neither released nor declared unused (or declared unused but played)."""
    from dealer.app.played import unfinished

    event = data.event
    left = []
    rounds = [] if end is not None else unfinished(data.scored, data.places)
    if rounds:
        left.append("; ".join(rounds) + " (`dealer round end EVENT.toml --reason …` declares an early end)")
    sets = [n for n in range(1, event.sets + 1) if ("set", n) not in earlier and ("unused", n) not in earlier]
    if sets:
        left.append(f"{_sets_text(sets)} neither released nor declared unused (`dealer release EVENT.toml --set N`, "
                    "or `--set N --unused --reason …`)")
    for n in range(1, event.sets + 1):
        played = _playing(data, n) if ("unused", n) in earlier else []
        if played:
            left.append(f"set {n} was declared unused, but {', '.join(played[:3])} play(s) it (the event file "
                        "changed): restore the event file")
    return left


def _unused_refusal(data: ReportData, set_number: int, end: Action | None) -> str | None:
    """Why set ``set_number`` cannot be declared unused now: a match plays it, or a round still to
    be paired would (round N plays set N) while the event is not over."""
    playing = _playing(data, set_number)
    if playing:
        return f"{', '.join(playing[:3])} play(s) set {set_number}: release it instead"
    event = data.event
    fmt = event.format
    if not fmt.paired or end is not None or set_number > fmt.rounds_needed(len(event.teams)):
        return None
    from dealer.app.played import unfinished

    if not unfinished(data.scored, data.places):  # a knockout decided before its last possible round
        return None
    return (f"round {set_number}, still to be paired, would play set {set_number}: declare it unused once the "
            "event is over, or end the event first (`dealer round end EVENT.toml --reason …`)")


def asked_set(set_number: int | None, key: bool) -> int | None:
    """What a release asks for: the set ``set_number``, or (``None``) the key; refused unless it
    names exactly one of the two."""
    if (set_number is None) != key:
        raise ReleaseError("site.set_or_key", field="set")
    return set_number


def release(session: EventSession, set_number: int | None, reason: str, *,
            entered_by: str | None = None, accept_missing: bool = False, unused: bool = False) -> ReleaseOutcome:
    """Release set ``set_number``'s hands, or declare the set unused (``unused``), or (``None``)
    release the key, once the event is over and every set is released or declared unused. Once
    only: a second release of the same thing stores nothing."""
    event, folder = session.event, session.folder
    if event.levels:
        raise ReleaseError("site.level_race_no_hands", field="set")
    if unused and set_number is None:
        raise ReleaseError("site.unused_needs_set", field="unused")
    if unused and accept_missing:
        raise ReleaseError("site.accept_missing_needs_set",
                           field="accept_missing")
    if not reason.strip():
        raise ReleaseError("site.reason_required", field="reason")
    folder.require()
    folder.check_kind(event)  # not the folder of a level race of the same id
    if folder.deal_state() != "complete":
        raise ReleaseError("site.not_dealt", field="set", hint="deal", event_id=event.id)
    if set_number is not None and not 1 <= set_number <= event.sets:
        raise ReleaseError("site.no_such_set", field="set", set=set_number, sets=event.sets)
    stored, end, head = _stored(session.store)
    earlier: dict[tuple[str, int | None], Release] = {(r.kind, r.set_number): r for r in stored}
    kind = "key" if set_number is None else "unused" if unused else "set"
    if (kind, set_number) in earlier:
        return ReleaseOutcome(None, earlier[(kind, set_number)], [], event.timezone)
    if kind == "set" and ("unused", set_number) in earlier:
        gone = earlier[("unused", set_number)]
        raise ReleaseError("site.set_unused", field="set", set=set_number, at=local_time(gone.at, event.timezone),
                           reason=gone.reason)
    if kind == "unused" and ("set", set_number) in earlier:
        shown = earlier[("set", set_number)]
        raise ReleaseError("site.set_released", field="set", set=set_number, at=local_time(shown.at, event.timezone),
                           reason=shown.reason)
    data = session.report()  # the event as scheduled (paired rounds included)
    warnings: list[str] = []
    if kind == "key":
        left = _key_left(data, earlier, end)
        if left:
            raise ReleaseError("site.key_only_when_over", field="key", left="; ".join(left))
    elif kind == "unused":
        assert set_number is not None
        refusal = _unused_refusal(data, set_number, end)
        if refusal:
            raise ReleaseError("site.cannot_declare_unused", field="set", set=set_number, refusal=refusal)
    else:
        assert set_number is not None
        warnings = _missing_for(data, set_number)
        if not accept_missing and not any(m.set == set_number for m in data.scored.matches):
            raise ReleaseError("site.set_not_played", field="set", set=set_number)
        if warnings and not accept_missing:
            raise ReleaseError("site.set_still_played", field="set", hint="accept_missing", set=set_number,
                               warnings="; ".join(warnings))
    changed = ReleaseError("site.changed_meanwhile")
    if head != data.chain_head:
        raise changed
    store = session.writable_store()
    with store.transaction():
        if store.chain_head() != head:  # what was checked is still all there is
            raise changed
        made = store.insert_release(kind, set_number, reason.strip(), entered_by)
    return ReleaseOutcome(made, None, warnings, event.timezone)
