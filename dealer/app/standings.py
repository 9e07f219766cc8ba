"""The event as played, scored: standings, a knockout's places, a grouped event's groups (:class:`ReportData`).

The read model every output takes (the reports, the site, the release rules, the championship):
built once per session (:meth:`dealer.app.EventSession.report`), read-only, from the results as
one snapshot of the database.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dealer.adjustments import Adjustments
from dealer.app.played import score_stored, stored_attribution_problems
from dealer.attribution import AttributionError
from dealer.errors import Phrase
from dealer.event import Event, Match, Round, Team
from dealer.field import FieldStats, field_stats
from dealer.lineups import Lineups, Record, player_records
from dealer.resources import load_bracket_order
from dealer.scoring import Advance, MatchScore, ScoredEvent, withheld_boards, without_boards
from dealer.standings import CrossCell, Standing, by_places, group_standings
from dealer.standings import cross_table as standings_cross_table
from dealer.standings import standings as rank_teams
from dealer.store.rows import AppealRow
from dealer.words import section

if TYPE_CHECKING:
    from dealer.store.chain import AuditMark
    from dealer.store.db import ResultsStore
    from dealer.store.folder import EventFolder


@dataclass(frozen=True)
class PrizeTie:
    """A prize boundary inside a shared rank: the rank, the teams sharing it, the profile's
    ``prize_ties`` rule, and the tied teams that took the prize by it."""

    rank: int
    teams: tuple[str, ...]
    rule: str
    chosen: tuple[str, ...]


@dataclass(frozen=True)
class Award:
    """A prize and the teams that take it (:meth:`ReportData.prizes`)."""

    name: str
    teams: tuple[str, ...]
    tie: PrizeTie | None = None

    def as_dict(self) -> dict[str, Any]:
        tie = self.tie
        return {"name": self.name, "teams": list(self.teams),
                "tie": None if tie is None else {"rank": tie.rank, "teams": list(tie.teams), "rule": tie.rule,
                                                 "chosen": list(tie.chosen)}}


@dataclass(frozen=True)
class WaitingTable:
    """A table of a round in play that has still to enter some boards: its name in the hall
    (:meth:`dealer.event.Event.table_names`), its match and those boards (a level race: none,
    the table's result is one)."""

    table: str
    match: str
    boards: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"table": self.table, "match": self.match, "boards": list(self.boards)}


@dataclass(frozen=True)
class RoundProgress:
    """How far a round is played, from every stored result (:func:`round_progress`): its matches
    and how many have every result (a forfeited one has), its tables (byes are none) and how many
    have entered every board, and the tables still to enter some. Counts, board numbers and
    table names: never a value, so players may see it while the field plays the boards."""

    round: int
    matches: int
    matches_done: int
    tables: int
    tables_done: int
    waiting: tuple[WaitingTable, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"round": self.round, "matches": self.matches, "matches_done": self.matches_done,
                "tables": self.tables, "tables_done": self.tables_done,
                "waiting": [w.as_dict() for w in self.waiting]}


@dataclass(frozen=True)
class ShownStandings:
    """The standings players see (:meth:`ReportData.shown_standings`): ``after`` the round they
    stand after (``None``: final, the standings as they are; ``0``: no round complete yet, no
    ranking at all: ``standings`` and ``groups`` empty), the standings and a grouped event's groups."""

    after: int | None
    standings: list[Standing]
    groups: list[tuple[int, list[Standing]]]


def winner_first(advance: Advance, home: str) -> tuple[int | None, int | None]:
    """A tie-break's figures, the team that went through first ("赢牌副数 7:6")."""
    return (advance.home, advance.away) if advance.team == home else (advance.away, advance.home)


def advance_key(advance: Advance, levels: bool) -> str:
    """The catalog key that words a tie-break's decision (a level race counts tables, not boards)."""
    return f"advanced_{advance.tie_break}" + ("_tables" if levels and advance.tie_break != "higher_seed" else "")


@dataclass
class ReportData:
    event: Event
    scored: ScoredEvent
    standings: list[Standing]
    sample: bool
    generated: str
    no_results: bool = False  # no result is stored (no database yet, or none current)
    chain_head: str | None = None  # the results database's last chain link: a rewrite shows against it
    adjustments: Adjustments = field(default_factory=Adjustments)
    places: list[tuple[int, list[str]]] | None = None  # knockout: final places so far
    groups: list[tuple[int, list[Standing]]] = field(default_factory=list)  # grouped round robin
    lots_seed: bytes = b""  # what drew the lots of the standings (:func:`dealer.app.played.folder_seed`)
    made_tables: dict[str, dict[str, tuple[list[str], list[list[str]]]]] = field(default_factory=dict, repr=False)
    ended: bool = False  # the director declared the event over (``dealer round end``)
    #: Publishing: where the audit left the chain (the site's manifest keeps it for the next build).
    audited: AuditMark | None = None
    #: The line-ups in force (who played at which table, by round and team).
    lineups: Lineups = field(default_factory=Lineups)
    #: The appeals lodged, each with its decision (issue 38): one open keeps the standings provisional.
    appeals: tuple[AppealRow, ...] = ()
    #: A public report's released sets (:func:`dealer.app.public.published`): what the field says
    #: counts only their boards that every table playing them has played (``None``: the
    #: director's, every result).
    public_sets: frozenset[int] | None = None

    @functools.cached_property
    def records(self) -> tuple[list[Record], list[Record]]:
        """Every player's and every pair's record (rounds played, levels for and against) from
        the line-ups and the scored tables (:func:`dealer.lineups.player_records`)."""
        return player_records(self.scored, self.lineups)

    @functools.cached_property
    def field_figures(self) -> FieldStats | None:
        """What the field says: each board's datum, each pair's and team's butler
        (:mod:`dealer.field`; ``None`` for a level race). The director's report counts every
        result; a public one (:attr:`public_sets`) only the released sets' boards that every
        table playing them (not forfeited) has played (the withholding rule, docs/site.md)."""
        if self.public_sets is None:
            return field_stats(self.scored, self.lineups)
        return field_stats(self.scored, self.lineups, sets=self.public_sets, whole_field=True)

    @functools.cached_property
    def names(self) -> dict[str, str]:
        """Team id → name."""
        return {team.id: team.name for team in self.event.teams}

    @functools.cached_property
    def teams(self) -> dict[str, Team]:
        """Team id → team."""
        return {team.id: team for team in self.event.teams}

    @functools.cached_property
    def meetings(self) -> dict[tuple[str, str], list[CrossCell]]:
        """(team, opponent) → their meetings seen from ``team`` (cross-tables, team results)."""
        return standings_cross_table(self.scored)

    @property
    def final(self) -> bool:
        """Whether the standings (a knockout: its places) are final: every round the format needs
        is played and complete, or the director declared the event over (``round end``), and no
        appeal is open (while one is, they are provisional, and so are the prizes)."""
        return (self.ended or not self._unfinished) and not self.open_appeals

    @property
    def open_appeals(self) -> tuple[AppealRow, ...]:
        """The appeals not decided yet."""
        return tuple(a for a in self.appeals if a.open)

    def appeal_notes(self, lang: str, round_number: int | None = None) -> list[str]:
        """Each appeal (of round ``round_number``, or all) and its decision, in ``lang``."""
        from dealer.app.appeals import appeal_lines

        return appeal_lines(self.event, self.appeals, lang, round_number)

    def provisional_note(self, lang: str, upto: int | None = None) -> list[str]:
        """"Provisional: N appeal(s) pending" in ``lang`` while one (of rounds 1 to ``upto``) is
        open; else nothing."""
        from dealer.app.appeals import provisional_line

        line = provisional_line(self.appeals, lang, upto)
        return [line] if line else []

    def standings_after(self, number: int) -> list[Standing]:
        """The standings as they stood after round ``number`` (the round's 成绩公告): its rounds,
        scores and adjustments so far, ranked by the profile's whole chain with the report's lots."""
        from dealer.standings import rank

        if all(r.number <= number for r in self.event.rounds):
            return self.standings
        return rank(*self._upto(number), self.lots_seed)

    def _upto(self, number: int) -> tuple[Event, list[MatchScore], Adjustments]:
        """The event, scores and adjustments of rounds 1 to ``number``."""
        import dataclasses

        adjustments = self.adjustments
        kept = dataclasses.replace(
            adjustments, forfeits=tuple(f for f in adjustments.forfeits if f.round <= number),
            deductions=tuple(d for d in adjustments.deductions if d.round <= number),
            penalties=tuple(p for p in adjustments.penalties if p.round <= number))
        return (dataclasses.replace(self.event, rounds=tuple(r for r in self.event.rounds if r.number <= number)),
                [s for s in self.scored.scores if s.round <= number], kept)

    def places_after(self, number: int) -> list[tuple[int, list[str]]] | None:
        """A knockout's places as they stood after round ``number``: the teams knocked out in
        rounds 1 to ``number`` (``None``: not a knockout)."""
        if self.places is None or all(r.number <= number for r in self.event.rounds):
            return self.places
        from dealer.tournament.knockout_round import bracket, winners

        played_in = {m.slot: rnd.number for rnd in self.event.rounds for m in rnd.matches if m.slot}
        found = {slot: team for slot, team in winners(self.scored).items() if played_in.get(slot, 0) <= number}
        drawn = bracket(self.event, load_bracket_order(self.event.format.bracket))
        return [(place, list(teams)) for place, teams in drawn.places(found)]

    def groups_after(self, number: int) -> list[tuple[int, list[Standing]]]:
        """A grouped event's groups as they stood after round ``number`` (empty: not grouped)."""
        if not self.groups or all(r.number <= number for r in self.event.rounds):
            return self.groups
        import copy

        event, scores, adjustments = self._upto(number)
        upto = copy.copy(self.scored)  # the groups read only its event, scores and adjustments
        upto.event, upto.scores, upto.adjustments = event, scores, adjustments
        return group_standings(upto, self.lots_seed)

    def shown_standings(self, final: bool | None = None) -> ShownStandings:
        """The standings players see: once final, the standings; before, those after the last
        round complete (:meth:`progress`: one slow table holds back its round, never a ranking
        made up of the boards shown so far); before any round is complete, none: every team
        level on nothing is no ranking. Read from the public report (:func:`public_report`) it
        is the site's (the static one and the live pages). ``final``: :attr:`final`, when the
        caller knows it (it reads every match's results: a league's take a fraction of a second)."""
        if self.final if final is None else final:
            return ShownStandings(None, self.standings, self.groups)
        done = self._rounds_complete()
        if not done:
            return ShownStandings(0, [], [])
        table = self.standings_after(done)
        places = self.places_after(done)
        if places is not None:  # a knockout's standings are its places
            table = by_places(table, places)
        return ShownStandings(done, table, self.groups_after(done))

    def progress(self) -> tuple[int, int, int]:
        """(rounds complete, rounds the event has, matches without every result): the standings
        are "after round 1 of 7" while round 2 waits, whatever is missing. A round is complete
        when every match of it and of each round before is; a knockout counts the rounds its
        bracket can need (a double elimination's reset final included)."""
        event = self.event
        total = event.format.rounds_needed(len(event.teams)) if event.format.paired else len(event.rounds)
        done = self._rounds_complete()
        if self.final:
            done = max(done, min(total, max((r.number for r in event.rounds), default=0)))
        return done, max(total, done), sum(1 for s in self.scored.scores if not s.complete)

    def _rounds_complete(self) -> int:
        """The last round complete with every round before it (0: none)."""
        open_rounds = {s.round for s in self.scored.scores if not s.complete}
        done = 0
        for rnd in sorted(self.event.rounds, key=lambda r: r.number):
            if rnd.number in open_rounds:
                break
            done = rnd.number
        return done

    def status(self) -> dict[str, Any]:
        """The standings' state as data (the reports' and the site's banner): final or not,
        after which round of how many, how many matches still lack results, whether an end was
        declared."""
        done, total, missing = self.progress()
        return {"final": self.final, "after_round": done, "rounds": total, "missing_matches": missing,
                "ended_early": self.ended, "appeals_pending": len(self.open_appeals)}

    def status_lines(self, words: Mapping[str, str]) -> list[str]:
        """The banner in words of a catalog section (``status_final`` / ``status_after`` /
        ``status_missing`` / ``status_ended``, ``status_first`` while round 1 is in play):
        "第 1/7 轮后", and separately the matches that really lack results."""
        state = self.status()
        if state["final"]:
            lines = [words["status_ended"] if state["ended_early"] else words["status_final"]]
        else:
            key = "status_after" if state["after_round"] else "status_first"
            lines = [str(words[key]).format(after=state["after_round"], rounds=state["rounds"])]
        if state["missing_matches"]:
            lines.append(str(words["status_missing"]).format(matches=state["missing_matches"]))
        return lines

    def prizes(self) -> list[Award]:
        """The event's prizes with the teams that take them, once the standings are final (before:
        none, :attr:`final`): places in a knockout, ranks otherwise. A prize whose last place
        falls inside a shared rank follows the profile's ``prize_ties``: ``share`` gives it to
        every team of that rank (the next prize starts after them), ``higher_seed`` to the better
        seeds of them; the award names the tie and the rule either way."""
        if not self.final:
            return []
        if self.places is not None:
            ranks = [(place, list(teams)) for place, teams in self.places]
        else:
            ranks = []
            for s in self.standings:
                if ranks and ranks[-1][0] == s.rank:
                    ranks[-1][1].append(s.team)
                else:
                    ranks.append((s.rank, [s.team]))
        seed_rank = {t.id: i for i, t in enumerate(self.event.seeded_teams())}
        rule = self.event.profile.prize_ties
        queue = [(rank, list(teams)) for rank, teams in ranks]
        out = []
        for prize in self.event.prizes:
            teams: list[str] = []
            tie: PrizeTie | None = None
            while queue and len(teams) < prize.teams:
                rank, group = queue[0]
                room = prize.teams - len(teams)
                if len(group) <= room:
                    teams += group
                    queue.pop(0)
                    continue
                if rule == "share":
                    teams += group
                    queue.pop(0)
                    tie = PrizeTie(rank, tuple(group), rule, tuple(group))
                else:  # higher_seed
                    chosen = sorted(group, key=lambda t: seed_rank.get(t, len(seed_rank)))[:room]
                    teams += chosen
                    queue[0] = (rank, [t for t in group if t not in chosen])
                    tie = PrizeTie(rank, tuple(group), rule, tuple(chosen))
            out.append(Award(prize.name, tuple(teams), tie))
        return out

    def prize_notes(self, lang: str, words: Mapping[str, str] | None = None) -> list[str]:
        """A footnote for each prize whose boundary fell inside a shared rank, in ``lang``, worded
        from a catalog section (``prize_tie_share`` / ``prize_tie_higher_seed``; the report's by
        default)."""
        words = words if words is not None else section("report", lang)
        separator = "、" if lang == "zh" else ", "
        notes = []
        for award in self.prizes():
            if award.tie is not None:
                tie = award.tie
                notes.append(str(words[f"prize_tie_{tie.rule}"]).format(
                    prize=award.name, rank=tie.rank,
                    tied=separator.join(self.names.get(t, t) for t in tie.teams),
                    chosen=separator.join(self.names.get(t, t) for t in tie.chosen)))
        return notes

    def unfinished(self) -> list[str]:
        """Why the standings or places are not final yet, in words (empty: they are): matches
        without every result, rounds still to be paired, a knockout without its champion
        (:func:`dealer.app.played.unfinished`, which the key's release reads too)."""
        return list(self._unfinished)

    def unfinished_in(self, lang: str) -> list[str]:
        """:meth:`unfinished` in ``lang`` (a paper in Chinese says it in Chinese)."""
        from dealer.words import words

        said = words(lang)
        return [said.text(p.key, p.params) for p in self._unfinished_phrases]

    @functools.cached_property
    def _unfinished(self) -> tuple[str, ...]:
        from dealer.words import words

        said = words("en")
        return tuple(said.text(p.key, p.params) for p in self._unfinished_phrases)

    @functools.cached_property
    def _unfinished_phrases(self) -> tuple[Phrase, ...]:
        # Read once: it looks at every board of every match (a league's 640,000), and the report's
        # status, prizes and banner each ask whether the standings are final.
        from dealer.app.played import unfinished_phrases

        return tuple(unfinished_phrases(self.scored, self.places))

    @functools.cached_property
    def advanced(self) -> dict[tuple[int, str], Advance]:
        """A knockout's decided matches, (round, match) → who went through and why (a draw: the
        tie-break that decided it, with its figures); empty for another format."""
        if self.event.format.kind != "knockout":
            return {}
        seed_rank = {t.id: i for i, t in enumerate(self.event.seeded_teams(), start=1)}
        found = {}
        for rnd in self.event.rounds:
            for m in rnd.matches:
                advance = self.scored.advance(rnd.number, m.id, seed_rank)
                if advance is not None:
                    found[(rnd.number, m.id)] = advance
        return found

    def advance_note(self, round_number: int, match_id: str, lang: str, words: Mapping[str, str] | None = None
                     ) -> str | None:
        """A knockout match decided by a tie-break, in words, the winner's figure first ("K4 晋级：
        赢牌副数 7:6"); ``None``
        for a match its score decided, or not decided yet. ``words``: the catalog section to word
        it from (the report's by default)."""
        advance = self.advanced.get((round_number, match_id))
        if advance is None or advance.tie_break is None:
            return None
        t = words if words is not None else section("report", lang)
        own, other = winner_first(advance, self.scored.score(round_number, match_id).home)
        return str(t[advance_key(advance, self.event.levels)]).format(
            team=self.names.get(advance.team, advance.team), own=own, other=other, board=advance.board)

    def bracket(self) -> list[tuple[Round, str | None, list[tuple[Match, MatchScore, Advance | None]]]] | None:
        """A knockout's rounds, each with its stage (``final``, ``semi_final``, ``quarter_final``
        or ``None``: an earlier round, or one of a double elimination's brackets) and its matches
        as (match, score, who went through and why, or ``None``): what the report's and the
        site's bracket draw; ``None`` for another format."""
        if self.event.format.kind != "knockout":
            return None
        from dealer.tournament.knockout_round import bracket as event_bracket

        drawn = event_bracket(self.event, load_bracket_order(self.event.format.bracket))
        return [(rnd, drawn.stage(rnd.number),
                 [(m, self.scored.score(rnd.number, m.id), self.advanced.get((rnd.number, m.id)))
                  for m in rnd.matches]) for rnd in self.event.rounds]

    def footnotes(self, lang: str) -> list[str]:
        """Every forfeit, deduction and withdrawal, with its reason, in ``lang``: each report prints them."""
        t = section("report", lang)
        notes = [t["forfeit_note"].format(round=f.round, match=f.match, team=f.team, reason=f.reason)
                 for f in self.adjustments.forfeits]
        notes += [t["late_note"].format(round=d.round, team=d.team, minutes=d.minutes, reason=d.reason)
                  if d.minutes is not None and not d.net_level_points else
                  t["deduction_note"].format(round=d.round, team=d.team, points=d.net_level_points, reason=d.reason)
                  for d in self.adjustments.deductions]
        for w in self.adjustments.withdrawals:
            note = t["withdrawal_note"].format(round=w.after_round, team=w.team, reason=w.reason,
                                               policy=t[f"withdrawn_{self.event.profile.withdrawn_opponent}"])
            if w.back_from is not None:
                note += t["rejoin_note"].format(round=w.back_from, reason=w.back_reason)
            notes.append(note)
        return notes + self.penalty_notes(lang) + self.appeal_notes(lang)

    def penalty_notes(self, lang: str, round_number: int | None = None, match: str | None = None) -> list[str]:
        """Every penalty's footnote in ``lang`` (``round_number``/``match``: of that match only)."""
        from dealer.app.penalties import penalty_notes
        from dealer.words import words

        said = words(lang)
        return [said.text(n.key, n.params) for n in penalty_notes(self.adjustments.penalties)
                if (round_number is None or n.params["round"] == round_number)
                and (match is None or n.params["match"] == match)]

    def penalty_notes_by_match(self, lang: str) -> dict[tuple[int, str], list[str]]:
        """Every penalty's footnote in ``lang``, by its (round, match) (a ruling's penalties: one)."""
        from dealer.app.penalties import penalty_notes
        from dealer.words import words

        said = words(lang)
        found: dict[tuple[int, str], list[str]] = {}
        for n in penalty_notes(self.adjustments.penalties):
            found.setdefault((int(str(n.params["round"])), str(n.params["match"])), []).append(
                said.text(n.key, n.params))
        return found


def build_report(event: Event, store: ResultsStore | None, folder: EventFolder, *,
                 publishing: bool = False, audited: AuditMark | None = None) -> ReportData:
    """Score the event from its results database, read-only; with no results yet, empty standings
    (and no database is created: reporting only reads). Refuses results that the event file, as
    edited, would credit to other teams (:class:`~dealer.scoring.AttributionError`).
    ``publishing``: for the players' site, whose releases, pairings and results are trusted only
    as links of the hash chain: the whole chain is audited first, and anything found refused;
    given ``audited`` (the mark of the site's last build), only the rows after it when the mark
    still fits the database (:meth:`~dealer.store.db.ResultsStore.require_intact`). The report's
    ``audited`` is the chain's mark after the audit."""
    from dealer.app.lineups import stored_lineups
    from dealer.app.played import declared_end, folder_seed, stored_adjustments

    sample = False
    ended = False
    lineups = Lineups()
    appeals: tuple[AppealRow, ...] = ()
    head = None
    mark = None
    adjustments = Adjustments()
    if store is None:
        scored = score_stored(event, None)
    else:
        with store.snapshot():  # the results, actions and chain head of one moment
            adjustments = stored_adjustments(store)
            found = stored_attribution_problems(event, store)
            if found:
                raise AttributionError(found)
            if publishing:
                store.require_intact(Phrase("report.nothing_published"), audited=audited)
                mark = store.audit_mark()
            scored = score_stored(event, store, adjustments)
            sample = store.has_sample_rows()  # rows of an import whose file said "# sample data"
            head = store.chain_head()
            ended = declared_end(store) is not None
            lineups = stored_lineups(store)
            appeals = tuple(store.appeals())
    report = _report(event, scored, folder_seed(folder), sample, head, adjustments, check_bracket=True)
    report.audited = mark
    report.ended = ended
    report.lineups = lineups
    report.appeals = appeals
    return report


def _report(event: Event, scored: ScoredEvent, seed: bytes, sample: bool, head: str | None,
            adjustments: Adjustments, check_bracket: bool) -> ReportData:
    """The report of ``scored``: standings, a knockout's places, a grouped event's groups."""
    places = None
    if event.format.kind == "knockout":
        from dealer.app.played import RoundError
        from dealer.tournament.knockout_round import bracket_conflicts, knockout_places

        conflicts = bracket_conflicts(scored, load_bracket_order(event.format.bracket)) if check_bracket else []
        if conflicts:
            raise RoundError("report.correction_changed_bracket", field="round", conflicts="; ".join(conflicts))
        places = knockout_places(scored, load_bracket_order(event.format.bracket))
    groups = group_standings(scored, seed) if event.format.groups > 1 else []
    table = rank_teams(scored, seed)
    if places is not None:  # a knockout's standings are its places
        table = by_places(table, places)
    return ReportData(event, scored, table, sample,
                      dt.datetime.now().astimezone().isoformat(timespec="seconds"),
                      no_results=not scored.has_results() and not adjustments.forfeits,
                      chain_head=head,
                      adjustments=adjustments, places=places, groups=groups, lots_seed=seed)


def round_progress(scores: ReportData, number: int) -> RoundProgress | None:
    """How far round ``number`` is played (``None``: no such round), from ``scores``, the
    director's report (every stored result): a table is done when it has a result for every
    board of its match (a level race: its result); a match when both tables are, or it is
    forfeited (its tables count as done); each table still to enter boards is named as the hall
    names it, with those boards. Only counts, board numbers and table names come out of it."""
    event = scores.event
    rnd = event.round(number)
    if rnd is None:
        return None
    scored = scores.scored
    ids = event.table_ids()
    gaps = {m.id: found for m, found in scored.missing(number)}
    matches_done = tables_done = 0
    waiting: list[WaitingTable] = []
    for m in rnd.matches:
        if scored.score(number, m.id).forfeited_by:
            matches_done += 1
            tables_done += len(ids)
            continue
        open_tables: dict[str, list[int]] = {}
        for first, second in gaps.get(m.id, []):
            if event.levels:  # (table, ""): the table has no result
                open_tables.setdefault(str(first), [])
            else:  # (board, table)
                open_tables.setdefault(str(second), []).append(int(first))
        names = event.table_names(m)
        waiting += [WaitingTable(names.get(t, t), m.id, tuple(sorted(open_tables[t]))) for t in ids if t in open_tables]
        tables_done += len(ids) - len(open_tables)
        if not open_tables:
            matches_done += 1
    return RoundProgress(number, len(rnd.matches), matches_done, len(ids) * len(rnd.matches), tables_done,
                         tuple(waiting))


def rounds_in_play(public: ReportData, scores: ReportData) -> dict[int, RoundProgress]:
    """Each round not complete in ``public`` (the report players see: a board still in play
    holds back every match of its set) with its progress from ``scores`` (the director's)."""
    open_rounds = sorted({s.round for s in public.scored.scores if not s.complete})
    found = {}
    for number in open_rounds:
        progress = round_progress(scores, number)
        if progress is not None:
            found[number] = progress
    return found


def public_report(data: ReportData, released: Collection[int]) -> tuple[ReportData, dict[int, list[int]]]:
    """The report as players may see it while boards are still being played (the site): a
    board's results (points, trump, levels) at every table are left out until every table that
    plays it has one, or its set is released (:func:`dealer.scoring.withheld_boards`); the
    matches, standings and downloads are scored without them. Gives the report and the boards
    left out (set → boards). ``data`` itself (the director's) is unchanged."""
    grid = getattr(data.scored, "grid", None)
    if grid is None:  # a level race: no board is played at two tables
        return data, {}
    withheld = withheld_boards(data.event, grid, data.adjustments, released)
    if not withheld:
        return data, {}
    scored = ScoredEvent(data.event, without_boards(data.event, grid, withheld), data.adjustments)
    public = _report(data.event, scored, data.lots_seed, data.sample, data.chain_head, data.adjustments,
                     check_bracket=False)
    public.no_results = data.no_results
    public.ended = data.ended
    public.lineups = data.lineups
    public.appeals = data.appeals
    return public, withheld

