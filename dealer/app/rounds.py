"""The round loop: pairings, forfeits and lateness, stored as the director's actions.

A paired event's rounds (Swiss, round robin, knockout) are data in the event's results database
(table ``actions``, in the same hash chain as the results), never a rewrite of the event file.
Every action is appended: undoing a round appends an ``undo`` that names it, allowed only while
the round has no result. :func:`scheduled` gives the event as every command sees it: the event
file's rounds for a fixed schedule, the stored ones otherwise.

An event is over when every round its format needs is paired and complete (:func:`unfinished`
says what is left), or when the director declares its end early (an ``end`` action, with a
reason; withdrawn by an ``undo`` until the key is released). After an end no round is paired or
undone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealer.app.movement import CopyChoices, SetMovement, copy_choices_of, movement_json, round_movements
from dealer.app.played import (
    RoundError,
    _current_pairings,
    _round_from_action,
    declared_end,
    folder_seed,
    scheduled,
    score_stored,
    stored_adjustments,
    team_match,
    unfinished,
    unused_sets,
)
from dealer.errors import Phrase, quote
from dealer.event import Event, Match
from dealer.resources import load_bracket_order
from dealer.scoring import ScoredEvent
from dealer.store.db import ResultsStore
from dealer.store.rows import Action
from dealer.store.schema import BOARDS, LEVELS
from dealer.tournament import PairedRound, PairingWarning
from dealer.words import local_time

if TYPE_CHECKING:
    from dealer.app.session import EventSession


@dataclass(frozen=True)
class RoundView:
    """One round as ``dealer round show`` prints it."""

    number: int
    matches: tuple[Match, ...]
    byes: tuple[str, ...]
    warnings: tuple[str, ...]
    #: The warnings as phrases, when the round was just paired (a stored round keeps their English text).
    phrases: tuple[Phrase | str, ...] = dataclasses.field(default=(), compare=False)
    #: A round drawn in an order of sort keys (Swiss round 1 by pinyin): (team, key) in that order.
    sort_keys: tuple[tuple[str, str], ...] = ()
    #: The movement of each set the round plays (``dealer round show``; none when just paired).
    movements: tuple[SetMovement, ...] = dataclasses.field(default=(), compare=False)

    def warning_phrases(self) -> tuple[Phrase | str, ...]:
        """The warnings for a face to word: phrases when known, else the stored text."""
        return self.phrases if len(self.phrases) == len(self.warnings) else self.warnings

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.number,
            "matches": [{"match": m.id, "home": m.home, "away": m.away, "set": m.set, "table": m.table,
                         **({"slot": m.slot} if m.slot else {}),
                         **({"group": m.group} if m.group is not None else {})}
                        for m in self.matches],
            "byes": list(self.byes),
            "warnings": list(self.warnings),
            **({"sort_keys": [{"team": team, "key": key} for team, key in self.sort_keys]}
               if self.sort_keys else {}),
            **movement_json(self.movements),
        }


def _scored(event: Event, store: ResultsStore) -> ScoredEvent:
    return score_stored(event, store, stored_adjustments(store))


def _view(action: Action) -> RoundView:
    rnd = _round_from_action(action)
    return RoundView(rnd.number, rnd.matches, rnd.byes, tuple(action.data.get("warnings", [])),
                     sort_keys=rnd.sort_keys)


def show_round(session: EventSession, number: int) -> RoundView:
    """Round ``number`` as stored (paired formats) or as the event file lists it (fixed), with
    the movement of its boards."""
    view = _stored_view(session, number)
    return dataclasses.replace(view, movements=tuple(round_movements(session.declared, view.matches)))


def _stored_view(session: EventSession, number: int) -> RoundView:
    event = session.declared
    if not event.format.paired:
        rnd = event.round(number)
        if rnd is None:
            raise RoundError("round.not_in_event_file", field="round", number=number)
        return RoundView(number, rnd.matches, rnd.byes, ())
    action = _current_pairings(session.store).get(number) if session.store is not None else None
    if action is None:
        raise RoundError("round.not_paired_yet", field="round", hint="round_pair", number=number)
    return _view(action)


def copy_choices(session: EventSession, number: int | None) -> CopyChoices:
    """The ways to serve round ``number`` (``dealer round copies``): as paired or listed; a
    paired round not paired yet, or none given, as one match every two teams (a fixed event
    without a round: its round of the most matches)."""
    event = session.declared
    matches: tuple[Match, ...] = ()
    if number is not None:
        try:
            matches = _stored_view(session, number).matches
        except RoundError:
            if not event.format.paired:
                raise
    elif not event.format.paired and event.rounds:
        matches = max(event.rounds, key=lambda r: len(r.matches)).matches
        number = next(r.number for r in event.rounds if r.matches == matches)
    return copy_choices_of(event, matches, number)


def _end_text(end: Action, zone: str | None) -> Phrase:
    return Phrase.of("round.declared_over", round=end.round, at=local_time(end.at, zone), reason=end.reason)


def _unfinished_in(event: Event, store: ResultsStore) -> tuple[Event, ScoredEvent, list[str]]:
    """The event as scheduled, scored, and what is left of it (read inside a transaction)."""
    before = scheduled(event, store)
    scored = _scored(before, store)
    places = None
    if event.format.kind == "knockout":
        from dealer.tournament.knockout_round import knockout_places

        places = knockout_places(scored, load_bracket_order(event.format.bracket))
    return before, scored, unfinished(scored, places)


def end_event(session: EventSession, reason: str, entered_by: str | None = None) -> Phrase:
    """Declare the event over before all its rounds are played and complete (``end``, after the
    last round paired or played, with the reason and what was unfinished then). Refused when
    nothing has been played, and when the event is over anyway; a second declaration changes
    nothing."""
    event = session.declared
    if not reason.strip():
        raise RoundError("round.reason_required_kept", field="reason")
    store = session.writable_store()
    with store.transaction():
        end = declared_end(store)
        if end is not None:
            return Phrase.of("outcome.end_unchanged", end=_end_text(end, event.timezone))
        before, scored, left = _unfinished_in(event, store)
        if event.format.paired:
            last = max((r.number for r in before.rounds), default=0)
            if not last:
                raise RoundError("round.nothing_paired_to_end")
        else:
            last = max((s.round for s in scored.scores if s.played), default=0)
            if not last:
                raise RoundError("round.nothing_played_to_end")
        if not left:
            raise RoundError("round.already_complete")
        store.insert_action("end", last, {"unfinished": left}, reason=reason.strip(), entered_by=entered_by)
    return Phrase.of("outcome.end_declared", round=last, reason=reason.strip(), left=left)


def withdraw_end(session: EventSession, reason: str, entered_by: str | None = None) -> Phrase:
    """Withdraw the declared end (an ``undo`` naming it, with the reason): refused once the key is
    released (it was released on the end), and once a set that a round still to come would play
    is declared unused."""
    event = session.declared
    if not reason.strip():
        raise RoundError("round.reason_required_kept", field="reason")
    store = session.writable_store()
    with store.transaction():
        end = declared_end(store)
        if end is None:
            raise RoundError("round.end_not_declared", field="withdraw")
        key = next((r for r in store.releases() if r.kind == "key"), None)
        if key is not None:
            raise RoundError("round.key_released_end_stands", field="withdraw", at=key.at, reason=key.reason)
        if event.format.paired:
            paired = max((a.round for a in _current_pairings(store).values()), default=0)
            needed = event.format.rounds_needed(len(event.teams))
            blocked = {n: when for n, when in unused_sets(store).items() if paired < n <= needed}
            if blocked:
                raise RoundError("round.unused_sets_block_withdraw",
                                 field="withdraw", sets=', '.join(map(str, sorted(blocked))))
        store.insert_action("undo", end.round, {}, reason=reason.strip(), undoes=end.id, entered_by=entered_by)
    return Phrase.of("outcome.end_withdrawn", round=end.round, was=end.reason, reason=reason.strip())


def _missing_in(scored: ScoredEvent, number: int) -> list[str]:
    found = []
    for match, gaps in scored.missing(number):
        if gaps and not scored.score(match.round, match.id).forfeited_by:
            found.append(f"match {match.id} ({match.home} v {match.away}): {len(gaps)} result(s) missing")
    return found


def pair_round(session: EventSession, number: int, *, accept_warnings: bool = False,
               allow_incomplete: bool = False, key_file: str | Path | None = None,
               entered_by: str | None = None) -> tuple[RoundView, bool]:
    """Compute and store round ``number``; (the round, whether it was stored).

    Refuses a fixed schedule, a round out of order or already paired, and (unless
    ``allow_incomplete``) a previous round not settled: results missing, or a flag of the live
    entry still open (a dispute, two tables far apart, a third device: a result that may still
    change); except in a round robin, whose rounds do not depend on results. A round with
    warnings (a forced rematch, a second bye) is returned unstored unless ``accept_warnings``.
    A Swiss round 1 drawn by lots reads the event's key (``key_file``, else the folder's).
    """
    event = session.declared
    _check_pairable(event, number)
    key = None
    if number == 1 and event.format.kind == "swiss" and event.format.first_round == "lots":
        key = session.folder.read_key(event, key_file)
    store = session.writable_store()
    # A pairing follows from every stored pairing, result and forfeit: only links of the chain
    # count (the whole chain walked, outside the write lock: it takes long on a league).
    store.require_intact(Phrase.of("round.refused_pairing", number=number))
    with store.transaction():
        return _pair_in(session, store, number, accept_warnings=accept_warnings,
                        allow_incomplete=allow_incomplete, key=key, entered_by=entered_by)


def pair_schedule(session: EventSession, entered_by: str | None = None) -> list[RoundView]:
    """Pair every round of a round robin not paired yet, in one go (``round pair --all``): its
    Berger table does not depend on results, so the whole 轮次表 can be published before play.
    The rounds paired, in order (none when every round already is); all or none is stored."""
    event = session.declared
    if event.format.kind != "round-robin":
        raise RoundError("round.all_needs_fixed_schedule", field="all", kind=event.format.kind)
    limit = event.format.rounds_needed(len(event.teams))
    store = session.writable_store()
    store.require_intact(Phrase.of("round.refused_pairing", number=1))
    views = []
    with store.transaction():
        current = _current_pairings(store)
        for number in range(1, limit + 1):
            if number not in current:
                view, _stored = _pair_in(session, store, number, entered_by=entered_by)
                views.append(view)
    return views


def _open_flags(session: EventSession, number: int) -> int:
    """The flags of round ``number``'s live entry not cleared yet (the director's to settle)."""
    from dealer.app.live import open_flags

    return len(open_flags(session, number))


def _check_pairable(event: Event, number: int) -> None:
    if not event.format.paired:
        raise RoundError("round.fixed_nothing_to_pair",
                         field="round")
    limit = event.format.rounds_needed(len(event.teams))
    if not 1 <= number <= limit:
        raise RoundError("round.beyond_format", field="round", number=number, kind=event.format.kind,
                         limit=limit)


def _pair_in(session: EventSession, store: ResultsStore, number: int, *, accept_warnings: bool = False,
             allow_incomplete: bool = False, key: bytes | None = None,
             entered_by: str | None = None) -> tuple[RoundView, bool]:
    """:func:`pair_round` inside the store's transaction."""
    # Pairing's own modules, loaded when a round is paired (not by `round show` and the like).
    from dealer.standings import standings
    from dealer.tournament.knockout_round import winners
    from dealer.tournament.pairing import next_round

    event = session.declared
    _check_pairable(event, number)
    current = _current_pairings(store)
    end = declared_end(store)
    if end is not None:
        raise RoundError("round.withdraw_end_first_to_pair", field="round", end_text=_end_text(end, event.timezone))
    if number in current:
        raise RoundError("round.already_paired", field="round", hint="round_undo",
                         number=number)
    unused = unused_sets(store)
    if number in unused:  # round N plays set N
        raise RoundError("round.would_play_unused_set", field="round", number=number,
                         unused=local_time(unused[number], event.timezone))
    if number > 1 and number - 1 not in current:
        raise RoundError("round.pair_in_order", field="round",
                         hint="round_pair_all" if event.format.kind == "round-robin" else "round_pair",
                         number=number - 1)
    field = [t.id for t in event.seeded_teams()]
    first = current.get(1)
    if (first is not None and event.format.kind in ("round-robin", "knockout")
            and first.data.get("teams", field) != field):
        raise RoundError("round.teams_changed",
                         field="teams", kind=event.format.kind, data=', '.join(first.data['teams']))
    before = scheduled(event, store)  # every stored round is before this one (checked above)
    scored = _scored(before, store)
    warnings: list[PairingWarning] = []
    # A round robin's rounds are its Berger table: they do not wait for results.
    if number > 1 and event.format.kind != "round-robin":
        missing = _missing_in(scored, number - 1)
        if missing and event.format.kind == "knockout":
            raise RoundError("round.knockout_results_missing", field="round", hint="missing",
                             number=number - 1, missing='; '.join(missing[:5]))
        if missing and not allow_incomplete:
            raise RoundError("round.previous_round_incomplete", field="round", hint="allow_incomplete",
                             number=number - 1, missing='; '.join(missing[:5]),
                             more='; …' if len(missing) > 5 else '')
        if missing:
            warnings.append(PairingWarning("incomplete-previous-round",
                                           f"paired with {len(missing)} match(es) of round {number - 1} "
                                           "incomplete", {"matches": len(missing), "round": number - 1}))
        flags = _open_flags(session, number - 1)
        if flags and not allow_incomplete:
            raise RoundError("round.previous_round_flagged", field="round", hint="allow_flagged",
                             number=number - 1, flags=flags)
    if event.format.kind == "knockout":
        from dealer.tournament.knockout_round import bracket_conflicts

        conflicts = bracket_conflicts(scored, load_bracket_order(event.format.bracket))
        if conflicts:
            raise RoundError("round.correction_changed_bracket", field="round",
                             conflicts="; ".join(conflicts))
    paired = next_round(before, number, standings(scored, folder_seed(session.folder)), lots_key=key,
                        winners=winners(scored) if event.format.kind == "knockout" else None,
                        bracket_order=load_bracket_order(event.format.bracket)
                        if event.format.kind == "knockout" else None,
                        absent=scored.adjustments.absent(number))
    if not paired.pairings and not paired.byes:
        raise RoundError("round.knockout_decided", field="round", number=number)
    warnings.extend(paired.warnings)
    view = _round_view(event, number, paired, warnings)
    needs_accepting = [w for w in paired.warnings if w.code in ("rematch", "second-bye")]
    if needs_accepting and not accept_warnings:
        return view, False
    store.insert_action("pair", number, {**view.as_dict(), "teams": field, "format": event.format.kind},
                        entered_by=entered_by)
    return view, True


def _round_view(event: Event, number: int, paired: PairedRound, warnings: Sequence[PairingWarning]) -> RoundView:
    """Table numbers in pairing order (the top of the standings at table 1); every match of a
    round plays the round's set, so a board compares across the whole field."""
    matches = tuple(Match(number, str(table), p.home, p.away, number, table, p.slot, p.group)
                    for table, p in enumerate(paired.pairings, start=1))
    return RoundView(number, matches, paired.byes, tuple(w.text for w in warnings),
                     tuple(_warning_phrase(w) for w in warnings), paired.sort_keys)


#: A pairing warning's code → its message (its values from the warning's params).
WARNING_PHRASES = {
    "rematch": Phrase("said_round.rematch"),
    "second-bye": Phrase("said_round.second_bye"),
    "incomplete-previous-round": Phrase("said_round.incomplete_previous"),
    "club-swap": Phrase("said_round.club_swap"),
    "same-club": Phrase("said_round.same_club"),
}


def _warning_phrase(warning: PairingWarning) -> Phrase | str:
    known = WARNING_PHRASES.get(warning.code)
    if known is None:  # a warning without words of its own: its text
        return warning.text
    return dataclasses.replace(known, params=dict(warning.params))


def undo_round(session: EventSession, number: int, reason: str,
               entered_by: str | None = None) -> RoundView:
    """Undo round ``number``'s pairing (appended, with the reason): only the last paired round,
    and only while it has no result and no forfeit."""
    event = session.declared
    if not event.format.paired:
        raise RoundError("round.fixed_rounds", field="round")
    if not reason.strip():
        raise RoundError("round.reason_required", field="reason")
    store = session.writable_store()
    with store.transaction():
        current = _current_pairings(store)
        end = declared_end(store)
        if end is not None:
            raise RoundError("round.withdraw_end_first", field="round", end_text=_end_text(end, event.timezone))
        if number not in current:
            raise RoundError("round.nothing_to_undo", field="round", number=number)
        if max(current) != number:
            raise RoundError("round.later_round_paired", field="round", later=max(current))
        if store.history(BOARDS, number) or store.history(LEVELS, number):
            raise RoundError("round.has_results", field="round", number=number)
        if any(a.round == number and not a.undone for a in store.actions(("forfeit", "late"))):
            raise RoundError("round.has_forfeit_or_lateness",
                             field="round", number=number)
        if any(p.round == number and not p.undone and p.kind != "undo" for p in store.penalties()):
            raise RoundError("round.has_penalties", field="round", number=number)
        store.insert_action("undo", number, {}, reason=reason.strip(), undoes=current[number].id,
                            entered_by=entered_by)
        # Its printed sheets belong to this pairing: a new one prints its own (docs/serve.md).
        from dealer.app.live import void_pairing

        view = _view(current[number])
        void_pairing(store, event, number, [m.id for m in view.matches], reason.strip(), entered_by)
    return view


def record_forfeit(session: EventSession, number: int, match_id: str, team: str, reason: str,
                   entered_by: str | None = None) -> Phrase:
    """Record that ``team`` forfeits its match of round ``number``; refused when results exist."""
    return _record(session, number, team, reason, entered_by, match_id=match_id, forfeit=True)


def record_lateness(session: EventSession, number: int, team: str, minutes: int, reason: str,
                    entered_by: str | None = None) -> Phrase:
    """Record a team's lateness as the profile says: a deduction, a forfeit of the round, or (below
    the profile's threshold) on record at no cost, noted in every report like a deduction."""
    event = session.declared
    rule = event.profile.lateness_rule(minutes)
    if rule is None:
        _record(session, number, team, reason, entered_by, minutes=minutes)
        return Phrase.of("outcome.late_free", round=number, team=team, minutes=minutes, profile=event.profile.id)
    return _record(session, number, team, reason, entered_by, minutes=minutes, forfeit=rule.forfeit,
                   net_level_points=rule.net_level_points)


def _record(session: EventSession, number: int, team: str, reason: str, entered_by: str | None,
            *, match_id: str | None = None, forfeit: bool = False, minutes: int | None = None,
            net_level_points: int = 0) -> Phrase:
    event = session.declared
    if not reason.strip():
        raise RoundError("round.reason_required", field="reason")
    store = session.writable_store()
    with store.transaction():
        match = team_match(event, store, number, team, match_id)
        if forfeit and (store.match_rows(BOARDS, number, match.id)
                        or store.match_rows(LEVELS, number, match.id)):
            raise RoundError("round.match_has_results", field="match", hint="misattributed",
                             number=number, match=match.id)
        if forfeit and any(a.round == number and not a.undone and a.data.get("forfeit")
                           and a.data.get("team") == team for a in store.actions(("forfeit", "late"))):
            raise RoundError("round.already_forfeits", field="team", team=quote(team), number=number)
        data: dict[str, Any] = {"team": team, "match": match.id, "forfeit": forfeit}
        if minutes is not None:
            data["minutes"] = minutes
        if net_level_points:
            data["net_level_points"] = net_level_points
        store.insert_action("late" if minutes is not None else "forfeit", number, data,
                            reason=reason.strip(), entered_by=entered_by)
    if forfeit:
        return Phrase.of("outcome.forfeit", round=number, match=match.id, team=team, home=match.home,
                         away=match.away)
    return Phrase.of("outcome.deduction", round=number, team=team, net_level_points=f"{net_level_points:+d}")


def withdraw_adjustment(session: EventSession, number: int, team: str, kind: str, reason: str,
                        entered_by: str | None = None) -> Phrase:
    """Withdraw the forfeit (``kind`` "forfeit") or lateness ("late") recorded for ``team`` in round
    ``number``: an ``undo`` action naming it, with the reason (nothing is deleted)."""
    if not reason.strip():
        raise RoundError("round.reason_required", field="reason")
    store = session.writable_store()
    with store.transaction():
        found = [a for a in store.actions((kind,)) if a.round == number and not a.undone
                 and a.data.get("team") == team]
        if not found:
            what = Phrase("terms.forfeit") if kind == "forfeit" else Phrase("terms.lateness")
            raise RoundError("round.nothing_recorded", field="team", what=what, team=quote(team),
                             number=number)
        for action in found:
            store.insert_action("undo", number, {}, reason=reason.strip(), undoes=action.id,
                                entered_by=entered_by)
    return Phrase.of("outcome.adjustment_withdrawn", round=number, count=len(found),
                     what=Phrase("terms.forfeit") if kind == "forfeit" else Phrase("terms.lateness"), team=team,
                     reason=reason.strip())
