"""The event as played, scored: standings, a knockout's places, a grouped event's groups (:class:`ReportData`).

The read model every output takes (the reports, the site, the release rules, the championship):
built once per session (:meth:`dealer.app.EventSession.report`), read-only, from the results as
one snapshot of the database.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dealer.app.played import score_stored, stored_attribution_problems
from dealer.errors import Phrase
from dealer.event import Event, Match, Round, Team
from dealer.resources import load_bracket_order
from dealer.scoring import Adjustments, AttributionError, MatchScore, ScoredEvent, withheld_boards, without_boards
from dealer.standings import CrossCell, Standing, group_standings
from dealer.standings import cross_table as standings_cross_table
from dealer.standings import standings as rank_teams
from dealer.words import section

if TYPE_CHECKING:
    from dealer.store.chain import AuditMark
    from dealer.store.db import ResultsStore
    from dealer.store.folder import EventFolder


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
    #: Publishing: where the audit left the chain (the site's manifest keeps it for the next build).
    audited: AuditMark | None = None

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

    def prizes(self) -> list[tuple[str, list[str]]]:
        """The event's prizes with the teams that take them: places in a knockout, ranks
        otherwise; teams sharing the last rank of a prize share the prize."""
        order = ([team for _place, teams in self.places for team in teams] if self.places is not None
                 else [s.team for s in self.standings])
        out, start = [], 0
        for prize in self.event.prizes:
            out.append((prize.name, order[start:start + prize.teams]))
            start += prize.teams
        return out

    def unfinished(self) -> list[str]:
        """Why the standings or places are not final yet, in words (empty: they are): matches
        without every result, rounds still to be paired, a knockout without its champion
        (:func:`dealer.app.played.unfinished`, which the key's release reads too)."""
        from dealer.app.played import unfinished

        return unfinished(self.scored, self.places)

    def bracket(self) -> list[tuple[Round, list[tuple[Match, MatchScore, str | None]]]] | None:
        """A knockout's rounds, each with its matches as (match, score, the team that went
        through or ``None``): what the report's and the site's bracket draw; ``None`` for
        another format."""
        if self.event.format.kind != "knockout":
            return None
        seed_rank = {t.id: i for i, t in enumerate(self.event.seeded_teams(), start=1)}
        return [(rnd, [(m, self.scored.score(rnd.number, m.id), self.scored.winner(rnd.number, m.id, seed_rank))
                       for m in rnd.matches]) for rnd in self.event.rounds]

    def footnotes(self, lang: str) -> list[str]:
        """Every forfeit and deduction, with its reason, in ``lang``: each report prints them."""
        t = section("report", lang)
        notes = [t["forfeit_note"].format(round=f.round, match=f.match, team=f.team, reason=f.reason)
                 for f in self.adjustments.forfeits]
        notes += [t["deduction_note"].format(round=d.round, team=d.team, points=d.net_level_points, reason=d.reason)
                  for d in self.adjustments.deductions]
        return notes


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
    from dealer.app.played import folder_seed, stored_adjustments

    sample = False
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
    report = _report(event, scored, folder_seed(folder), sample, head, adjustments, check_bracket=True)
    report.audited = mark
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
    return ReportData(event, scored, rank_teams(scored, seed), sample,
                      dt.datetime.now().astimezone().isoformat(timespec="seconds"),
                      no_results=not scored.has_results() and not adjustments.forfeits,
                      chain_head=head,
                      adjustments=adjustments, places=places, groups=groups, lots_seed=seed)


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
    return public, withheld
