"""The event as played: the stored pairings applied, the stored forfeits and deductions, what is left
to play, and the matches scored from the current results.

What a session holds (:class:`dealer.app.EventSession`) and every use case reads; it reads the
store and never writes it. A paired event's rounds (Swiss, round robin, knockout) are data in
the event's results database (table ``actions``, in the same hash chain as the results), never a
rewrite of the event file: :func:`scheduled` gives the event as every command sees it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from dealer.adjustments import PENALTY_KINDS, Adjustments, Deduction, Forfeit, Penalty, Withdrawal
from dealer.app.kinds import kind_of
from dealer.attribution import Misattributed
from dealer.errors import Phrase, UserError, quote
from dealer.event import Event, Match, Round
from dealer.store.db import ResultsStore
from dealer.store.folder import EventFolder
from dealer.store.rows import Action, PenaltyRow
from dealer.store.schema import BOARDS, LEVELS
from dealer.words import local_time

if TYPE_CHECKING:
    from dealer.scoring import ScoredEvent


class RoundError(UserError, ValueError):
    """A round action refused: the message says why and what to do."""


def _round_from_action(action: Action) -> Round:
    data = action.data
    return Round(action.round, tuple(
        Match(action.round, str(m["match"]), m["home"], m["away"], int(m["set"]), int(m["table"]),
              m.get("slot"), m.get("group"))
        for m in data["matches"]), tuple(data["byes"]),
        tuple((str(k["team"]), str(k["key"])) for k in data.get("sort_keys", ())))


def _current_pairings(store: ResultsStore) -> dict[int, Action]:
    return {a.round: a for a in store.actions(("pair",)) if not a.undone}


def _check_format(event: Event, pairings: Sequence[Action]) -> None:
    """Refuse stored pairings the event file's format, as edited, cannot have made: another
    format (stored with each pairing; before that, a knockout bracket's slots or their absence
    tell), or more rounds than it has. Scoring them as the new format would misread them (a
    Swiss round read as a knockout's has no winner to take through)."""
    kind = event.format.kind
    for action in pairings:
        stored = action.data.get("format")
        bracket = any(m.get("slot") for m in action.data["matches"])
        if stored is not None and stored != kind:
            was = Phrase.of("round.paired_as", format=stored)
        elif stored is None and bracket != (kind == "knockout"):
            was = Phrase("round.paired_in_bracket") if bracket else Phrase("round.paired_without_bracket")
        else:
            continue
        raise RoundError("round.format_changed",
                         field="event_format", round=action.round, was=was, kind=kind)
    needed = event.format.rounds_needed(len(event.teams))
    if len(pairings) > needed:
        raise RoundError("round.too_few_rounds", field="event_format", paired=len(pairings),
                         kind=kind, needed=needed)


#: The director's actions that withdraw a team (the action's round: the first it misses; its
#: ``after_round`` in the data) and bring it back (the round: the first it plays again):
#: :mod:`dealer.app.teams`.
WITHDRAWAL_ACTIONS = ("withdraw", "rejoin")


def stored_withdrawals(actions: Sequence[Action]) -> tuple[Withdrawal, ...]:
    """Each withdrawal of a team, with the round it rejoined from, oldest first (``actions``: the
    withdraw and rejoin actions, oldest first; those undone are left out)."""
    found: list[Withdrawal] = []
    open_: dict[str, int] = {}  # team → index in found of its withdrawal still open
    for action in actions:
        if action.undone or action.kind not in WITHDRAWAL_ACTIONS:
            continue
        team = str(action.data["team"])
        if action.kind == "withdraw":
            open_[team] = len(found)
            found.append(Withdrawal(team, int(action.data["after_round"]), action.reason or ""))
        elif team in open_:
            i = open_.pop(team)
            found[i] = dataclasses.replace(found[i], back_from=action.round, back_reason=action.reason or "")
    return tuple(found)


def stored_penalties(store: ResultsStore | None) -> tuple[Penalty, ...]:
    """The penalties in force (not withdrawn), oldest first."""
    if store is None:
        return ()
    return tuple(_penalty(row) for row in store.penalties()
                 if row.kind in PENALTY_KINDS and not row.undone)


def _penalty(row: PenaltyRow) -> Penalty:
    data = row.data
    return Penalty(row.round, row.match, row.team, row.kind, int(data.get("amount", 0)), data.get("table"),
                   data.get("board"), data.get("choice"), row.reason, row.entered_by, data.get("warning"), row.id,
                   data.get("ruling"), data.get("ruling_of", row.id) if data.get("ruling") else None)


def team_match(event: Event, store: ResultsStore | None, number: int, team: str,
               match_id: str | None = None) -> Match:
    """``team``'s match in round ``number`` as played (a director's record of a forfeit, a
    lateness, a penalty or a line-up names it); refused for a round not paired, a team without a
    match in it, and a ``match_id`` that is not the team's."""
    rnd = scheduled(event, store).round(number)
    if rnd is None:
        state = Phrase("round.state_paired") if event.format.paired else Phrase("round.state_in_event")
        raise RoundError("round.not_paired_or_in_event", field="round", number=number, state=state)
    match = next((m for m in rnd.matches if team in (m.home, m.away)), None)
    if match is None:
        raise RoundError("round.team_has_no_match", field="team", team=quote(team), number=number)
    if match_id is not None and match.id != match_id:
        raise RoundError("round.team_in_other_match", field="match", team=quote(team), match=match.id,
                         number=number, given=quote(match_id))
    return match


def stored_adjustments(store: ResultsStore | None) -> Adjustments:
    """The forfeits, deductions, withdrawals and penalties in force (not undone)."""
    if store is None:
        return Adjustments()
    forfeits, deductions = [], []
    actions = store.actions(("forfeit", "late", *WITHDRAWAL_ACTIONS))
    for action in actions:
        if action.undone or action.kind in WITHDRAWAL_ACTIONS:
            continue
        data = action.data
        if data.get("forfeit"):
            forfeits.append(Forfeit(action.round, str(data["match"]), data["team"], action.reason or ""))
        minutes = data.get("minutes")
        if data.get("net_level_points") or (minutes is not None and not data.get("forfeit")):
            # A lateness that costs nothing is on record too (net 0): every report notes it.
            deductions.append(Deduction(action.round, data["team"], int(data.get("net_level_points") or 0),
                                        action.reason or "", None if minutes is None else int(minutes)))
    return Adjustments(tuple(forfeits), tuple(deductions), stored_withdrawals(actions),
                       stored_penalties(store))


def scheduled(event: Event, store: ResultsStore | None) -> Event:
    """The event with its rounds: the event file's for a fixed schedule, else the stored ones.

    Refuses stored rounds that name a team the event file no longer has (a team removed or
    renamed after it was paired): scoring them would credit nobody; and rounds its format, as
    edited, could not have paired (:func:`_check_format`)."""
    if not event.format.paired:
        _check_unused(event, store)
        return event
    pairings = [a for _n, a in sorted(_current_pairings(store).items())] if store is not None else []
    rounds = tuple(_round_from_action(a) for a in pairings)
    known = {t.id for t in event.teams}
    for rnd in rounds:
        for match in rnd.matches:
            for team in (match.home, match.away):
                if team not in known:
                    raise RoundError("round.match_team_gone", field="teams", round=rnd.number,
                                     match=match.id, team=quote(team))
        for team in rnd.byes:
            if team not in known:
                raise RoundError("round.bye_team_gone", field="teams", round=rnd.number,
                                 team=quote(team))
    _check_format(event, pairings)
    played = dataclasses.replace(event, rounds=rounds)
    _check_unused(played, store)
    return played


def _check_unused(event: Event, store: ResultsStore | None) -> None:
    """Refuse an event whose matches play a set declared unused (an event file edited after the
    declaration): such a set is never played, and the key, once released, shows its hands."""
    unused = unused_sets(store) if store is not None else {}
    for match in event.matches() if unused else ():
        if match.set in unused:
            raise RoundError("round.plays_unused_set", field="rounds", round=match.round,
                             match=match.id, set=match.set,
                             unused=local_time(unused[match.set], event.timezone))


def declared_end(store: ResultsStore | None) -> Action | None:
    """The director's declaration that the event is over (not withdrawn), if any."""
    if store is None:
        return None
    return next((a for a in store.actions(("end",)) if not a.undone), None)


def _ranges(numbers: Sequence[int]) -> Phrase:
    """``round 3`` / ``rounds 3 to 5`` of consecutive round numbers (rounds are paired in order)."""
    if len(numbers) == 1:
        return Phrase.of("unfinished.round", round=numbers[0])
    if list(numbers) == list(range(numbers[0], numbers[-1] + 1)):
        return Phrase.of("unfinished.rounds_from_to", first=numbers[0], last=numbers[-1])
    return Phrase.of("unfinished.rounds", rounds=", ".join(map(str, numbers)))


#: Incomplete matches named in a message; the rest are counted.
SHOWN_MATCHES = 5


def unfinished_phrases(scored: ScoredEvent, places: Sequence[tuple[int, Sequence[str]]] | None = None
                       ) -> list[Phrase]:
    """What keeps the event from being over, as phrases of the catalog (a Chinese paper says it
    in Chinese): every match not complete (a forfeited one is), then the rounds its format needs
    that are not paired (a knockout: until its champion is known, from ``places``). Empty: every
    round is played. ``scored``: the event as scheduled (its paired rounds), scored."""
    event = scored.event
    left = []
    for match, gaps in scored.missing():
        if gaps and not scored.score(match.round, match.id).forfeited_by:
            left.append(Phrase.of("unfinished.match_missing", round=match.round, match=match.id, home=match.home,
                                  away=match.away, gaps=len(gaps)))
    if len(left) > SHOWN_MATCHES:
        left[SHOWN_MATCHES:] = [Phrase.of("unfinished.more_matches", count=len(left) - SHOWN_MATCHES)]
    fmt = event.format
    if not fmt.paired:
        return left
    paired = max((r.number for r in event.rounds), default=0)
    needed = fmt.rounds_needed(len(event.teams))
    if fmt.kind == "knockout":
        if places and places[0][0] == 1 and len(places[0][1]) == 1:
            return left
        if not left and paired < needed:
            return [*left, Phrase.of("unfinished.no_champion_yet_paired", rounds=_ranges([paired + 1]))]
        return [*left, Phrase("unfinished.no_champion_yet")]
    if paired < needed:
        left.append(Phrase.of("unfinished.not_paired", rounds=_ranges(list(range(paired + 1, needed + 1)))))
    return left


def unfinished(scored: ScoredEvent, places: Sequence[tuple[int, Sequence[str]]] | None = None) -> list[str]:
    """:func:`unfinished_phrases` in English (the command line's checks and the records say it so)."""
    from dealer.words import words

    said = words("en")
    return [said.text(p.key, p.params) for p in unfinished_phrases(scored, places)]


def unused_sets(store: ResultsStore) -> dict[int, str]:
    """The sets declared unused (``dealer release --set N --unused``): set → when and why."""
    return {r.set_number: f"{r.at} ({r.reason})" for r in store.releases()
            if r.kind == "unused" and r.set_number is not None}


def folder_seed(folder: EventFolder) -> bytes:
    """The public seed of the ``lots`` tie-break: the published commitment (hex) when there is one."""
    try:
        committed = folder.read_committed()
    except UserError:
        return b""
    return committed.commitment.encode("ascii") if committed is not None else b""




def score_stored(event: Event, store: ResultsStore | None, adjustments: Adjustments | None = None) -> ScoredEvent:
    """Every match of ``event`` scored from the current results in ``store`` (``None``: none):
    board results, or a level race's table results (:mod:`dealer.levels`)."""
    if event.levels:
        from dealer.levels import LevelColumns, score_levels

        return score_levels(event, LevelColumns.from_rows(store.scoring_rows(LEVELS) if store else []), adjustments)
    from dealer.scoring import ResultColumns, score_event  # a command that only stores a result does not score

    return score_event(event, ResultColumns.from_rows(store.scoring_rows(BOARDS) if store else []), adjustments)


def stored_attribution_problems(event: Event, store: ResultsStore) -> list[Misattributed]:
    """Matches whose stored results (boards or levels) the event file, as edited, would credit to
    other teams or boards."""
    return kind_of(event).misattributed(event, store, None)
