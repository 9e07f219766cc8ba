"""The site's pages as plain, JSON-ready contexts: each HTML page is rendered from the dict its
``.json`` twin holds (the keys are documented in docs/site.md).

:func:`plan_pages` lists every page with a cheap *key* of what it shows (a digest of its inputs):
a rebuild renders only the pages whose key changed. Contexts are built from the public report
(:func:`dealer.app.standings.build_report`, its :class:`~dealer.app.standings.ReportData`) and, for the boards
of released sets only, from the board set and :func:`dealer.render.context.hand_record_board` (the
print pack's hand record). A set that is not released is never read.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from dealer.app.standings import ReportData, ShownStandings, advance_key, winner_first
from dealer.cards import sort_cards
from dealer.deal import Board
from dealer.errors import UserError
from dealer.event import Event, Match
from dealer.field import TRIM_FROM, FieldStats
from dealer.lineups import Record
from dealer.render.context import board_analysis, hand_record_board
from dealer.render.rows import board_rows
from dealer.render.strings import Strings
from dealer.report import report_json
from dealer.scoring import MatchScore
from dealer.standings import Standing, rank
from dealer.words import section

if TYPE_CHECKING:
    from dealer.app.public import Published

#: Bumped when a context's keys change (the JSON twins carry it).
SCHEMA = 1
#: Above this many teams the cross-table (teams × teams cells) is not made: each team's page
#: lists its matches instead.
CROSS_TABLE_LIMIT = 64
#: A team's page lists each board its pairs played against the field while every pair of the
#: field has played at most this many boards in all (a 2,000-team league's: 1.3 million); beyond,
#: each pair's figures match by match, linking the match pages.
PAIR_BOARDS_LISTED = 100_000
#: The leaders shown on the home page.
HOME_LEADERS = 8

_SAFE_NAME = re.compile(r"[A-Za-z0-9_-]{1,40}")


@dataclass(frozen=True)
class PlannedPage:
    """One page: its file name (without ``.html``/``.json``), its template, the digest of what it
    shows, and how to build its context for a language."""

    name: str
    template: str
    key: bytes
    build: Callable[[Strings], dict[str, Any]]
    per_lang: bool = False  # its context holds words (a board's hand record): built per language


def slugs(ids: Sequence[str], prefix: str) -> dict[str, str]:
    """A file-name-safe, case-insensitively unique name for each id (shared drives and USB
    sticks fold case): the id itself in lower case when it is plain ASCII and unique folded,
    else ``~`` and its position, which no id can give (``~`` is not in a plain id)."""
    folded: dict[str, int] = {}
    for i in ids:
        folded[i.lower()] = folded.get(i.lower(), 0) + 1
    return {i: f"{prefix}{i.lower()}" if _SAFE_NAME.fullmatch(i) and folded[i.lower()] == 1 else f"{prefix}~{n}"
            for n, i in enumerate(ids, start=1)}


class PageNameClash(UserError):
    """Two pages of a site would have the same file name (never written)."""


def check_page_names(pages: Sequence[PlannedPage]) -> None:
    """Refuse a site two of whose pages share a name, folded as shared drives fold it, before a
    file is written: one would silently replace the other."""
    seen: dict[str, PlannedPage] = {}
    for page in pages:
        folded = page.name.lower()
        if folded in seen:
            first = seen[folded]
            raise PageNameClash("site.page_name_clash", first=first.name, first_template=first.template,
                                second=page.name, second_template=page.template)
        seen[folded] = page


def _json(value: Any) -> bytes:
    """A big JSON-ready value as bytes, to digest (``repr`` of a league's report takes a tenth
    of a second)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def _digest(*parts: object) -> bytes:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else repr(part).encode("utf-8"))
        h.update(b"\x00")
    return h.digest()


def site_data(shown: Published, verify: dict[str, Any], downloads: list[dict[str, Any]]) -> SiteData:
    """The pages' data from what players may see (:func:`dealer.app.public.published`): the
    public report, the released sets' boards, and from the director's report only counts, board
    numbers and table names (each round in play's progress, the matches still missing a result);
    ``verify`` and ``downloads``: the static site's verification page and files (none live)."""
    return SiteData(shown.data, shown.released, {n: list(b.boards) for n, b in shown.boardsets.items()}, verify,
                    shown.last_update, downloads, shown.lots_seed, shown.withheld, progress=shown.progress,
                    missing_matches=shown.missing_matches)


class SiteData:
    """What every page reads: the report, the released boards, the names and page names."""

    def __init__(self, data: ReportData, released: Mapping[int, dict[str, Any]], boards: Mapping[int, list[Board]],
                 verify: dict[str, Any], last_update: str | None, downloads: list[dict[str, Any]],
                 lots_seed: bytes = b"", withheld: Mapping[int, Sequence[int]] | None = None, *,
                 progress: Mapping[int, dict[str, Any]] | None = None, missing_matches: int | None = None) -> None:
        self.data = data  # the public report: no result of a board still being played
        #: set → the boards whose results are left out until every table has played them
        self.withheld = {n: list(boards) for n, boards in (withheld or {}).items()}
        #: Each round not complete in the public report → how far it is played, from every stored
        #: result (:class:`dealer.app.standings.RoundProgress` as a dict: counts, boards, table names).
        self.round_progress = dict(sorted((progress or {}).items()))
        #: The matches that still miss a stored result (the director's count; ``None``: the
        #: public report's, which counts a match whose boards are withheld too).
        self.missing_matches = missing_matches
        self.event: Event = data.event
        self.released = released  # set → {"at", "reason"}
        self.boards = boards  # released sets only
        self.verify = verify
        self.last_update = last_update
        self.downloads = downloads
        self.lots_seed = lots_seed
        self.report = report_json(data, field=False)  # what the field says: :attr:`field`
        self.names = {t.id: t.name for t in self.event.teams}
        self.team_page = slugs([t.id for t in self.event.teams], "team-")
        self.match_page: dict[tuple[int, str], str] = {}
        for rnd in self.event.rounds:
            for m_id, slug in slugs([m.id for m in rnd.matches], "").items():
                self.match_page[(rnd.number, m_id)] = f"match-{rnd.number}-{slug}"
        self.scores = {(s.round, s.match): s for s in data.scored.scores}
        #: A forfeited match → the reason the director recorded (the match and team pages say it).
        self.forfeit_reasons: dict[tuple[int, str], str] = {}
        for f in data.adjustments.forfeits:
            known = self.forfeit_reasons.get((f.round, f.match))
            self.forfeit_reasons[(f.round, f.match)] = f"{known}; {f.reason}" if known else f.reason
        self.standing = {s.team: s for s in self.shown.standings}  # as players see them
        self.knockout = self.event.format.kind == "knockout"
        self._set_tables: tuple[tuple[int, ...], list[list[tuple[int, tuple[Any, ...]]]]] | None = None
        self._field_json: bytes | None = None
        self._board_parts: tuple[tuple[int, int], tuple[dict[str, Any], dict[str, Any]]] | None = None
        #: Rank after each round as the last build stored it (round key, ranks in team order):
        #: only the rounds whose inputs changed are ranked again. Set by the caller.
        self.rank_cache: dict[str, Any] = {}

    # --- small shared pieces -------------------------------------------------------------

    @functools.cached_property
    def shown(self) -> ShownStandings:
        """The standings players see (:meth:`dealer.app.standings.ReportData.shown_standings`):
        once final the standings; before, those after the last complete round; none before any."""
        return self.data.shown_standings(final=not self.provisional)

    @functools.cached_property
    def status(self) -> dict[str, Any]:
        """The report's status, ``missing_matches`` counting the matches that really miss a
        stored result (a match whose boards are withheld has every result it can have)."""
        status = dict(self.report["status"])
        if self.missing_matches is not None:
            status["missing_matches"] = self.missing_matches
        return status

    @functools.cached_property
    def progress(self) -> dict[str, Any] | None:
        """The round in play (the first not complete) and how far it is played, while the
        standings are not final (``None``: final, or no round in play)."""
        if not self.provisional or not self.round_progress:
            return None
        return next(iter(self.round_progress.values()))

    def withheld_of(self, s: MatchScore) -> list[int]:
        """The boards of a match left out until the field has played them (none for a forfeited
        match, which plays none, or a level race's)."""
        if s.forfeited_by or self.event.levels:
            return []
        return self.withheld.get(s.set, [])

    @functools.cached_property
    def field(self) -> FieldStats | None:
        """What the field says, as players may see it: the released sets' boards that every table
        playing them has played (the public report's :attr:`~dealer.app.standings.ReportData.public_sets`;
        ``None``: a level race)."""
        return self.data.field_figures

    @functools.cached_property
    def _field_pairs_of(self) -> dict[str, list[tuple[str, Any]]]:
        """Team → its pairs against the field (in the ranking's order), each with its anchor on
        the team's page (``pair-1``, ``pair-2`` …)."""
        found: dict[str, list[tuple[str, Any]]] = {}
        for p in self.field.pairs if self.field is not None else ():
            own = found.setdefault(p.key.team, [])
            own.append((f"pair-{len(own) + 1}", p))
        return found

    def field_pairs(self, team: str) -> list[dict[str, Any]]:
        """A team's pairs' figures against the field, each with its anchor, its place in the
        ranking, its figures match by match (``by_match``, each linking the match page) and,
        while the whole field's pairs have played at most :data:`PAIR_BOARDS_LISTED` boards in
        all, each board it played (``boards_played``, each linking its board page; beyond,
        ``null``: a league's would be 1.3 million rows, and each board page lists every table's
        result against the datum)."""
        stats = self.field
        if stats is None:
            return []
        listed = stats.cells <= PAIR_BOARDS_LISTED
        return [{**p.as_dict(), "anchor": anchor,
                 "by_match": [{**r, "page": self.match_page.get((r["round"], r["match"]))}
                              for r in stats.pair_rounds(p.key)],
                 "boards_played": [{**b, "page": self.board_page(b["set"], b["board"])}
                                   for b in stats.pair_boards(p.key)] if listed else None}
                for anchor, p in self._field_pairs_of.get(team, [])]

    def field_key(self, set_number: int | None = None, board: int | None = None) -> bytes:
        """What the field's pages show depends on (of one board, or of all): the results it
        counts (only those: a result of a set not released changes nothing), where, with which
        trump, what is left out and why, the line-ups, the rule."""
        stats = self.field
        if stats is None:
            return b""
        cells: tuple[Any, ...] = (slice(None),) * 3
        if set_number is not None and board is not None:
            cells = (stats._set_rows(set_number), slice(board - 1, board), slice(None))
        shown = stats.shown[cells]
        return _digest(shown.tobytes(), stats.counted[cells].tobytes(), stats.net[cells][shown].tobytes(),
                       self.data.scored.trumps[cells][shown].tobytes(), stats.rule,
                       *(() if set_number is not None else (self.data.lineups.all(),)),
                       self.data.adjustments.forfeits, self.data.adjustments.penalties)

    @functools.cached_property
    def player_records(self) -> dict[str, list[Record]]:
        """Team → its players' records (from the line-ups), in the team's order of players."""
        found: dict[str, list[Record]] = {}
        for record in self.data.records[0]:
            found.setdefault(record.team, []).append(record)
        return found

    @functools.cached_property
    def pair_records(self) -> dict[str, list[Record]]:
        """Team → its pairs' records (from the line-ups)."""
        found: dict[str, list[Record]] = {}
        for record in self.data.records[1]:
            found.setdefault(record.team, []).append(record)
        return found

    def match_lineups(self, m: Match) -> list[dict[str, Any]]:
        """Each table of a match with the home and away pair its line-ups name (empty: no
        line-up recorded for either team)."""
        lineups = self.data.lineups
        if lineups.get(m.round, m.home) is None and lineups.get(m.round, m.away) is None:
            return []
        return [{"table": table, "home": list(lineups.pair(m.round, m.home, table)),
                 "away": list(lineups.pair(m.round, m.away, table))} for table in self.event.table_ids()]

    def team_ref(self, team: str) -> dict[str, Any]:
        return {"id": team, "name": self.names.get(team, team), "page": self.team_page.get(team)}

    @functools.cached_property
    def team_refs(self) -> dict[str, dict[str, Any]]:
        """One :meth:`team_ref` per team, shared by the rows that name it (never changed)."""
        return {t.id: self.team_ref(t.id) for t in self.event.teams}

    def set_tables(self, matches: Sequence[tuple[int, Match]]) -> list[list[tuple[int, tuple[Any, ...]]]]:
        """For each of ``matches`` (those of one set), its tables as (index, (round, match, page,
        table, N-S team, E-W team)), none for a forfeited match: the same for the set's every
        board, so made once."""
        key = tuple(i for i, _m in matches)
        if self._set_tables is None or self._set_tables[0] != key:
            refs = self.team_refs
            found = []
            for _i, m in matches:
                played = []
                if not self.scores[(m.round, m.id)].forfeited_by:
                    page = self.match_page.get((m.round, m.id))
                    for index, table in enumerate(("A", "B")):
                        seats = m.seats(table)
                        played.append((index, (m.round, m.id, page, table, refs[seats["NS"]], refs[seats["EW"]])))
                found.append(played)
            self._set_tables = (key, found)
        return self._set_tables[1]

    def board_parts(self, set_number: int, board: Board, matches: Sequence[tuple[int, Match]]
                    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A board's field results and hand analysis: the same in both languages, so made once
        for its two pages (rendered one after the other)."""
        key = (set_number, board.number)
        if self._board_parts is None or self._board_parts[0] != key:
            self._board_parts = (key, (board_field(self, board, matches), board_analysis(board)))
            self._field_json = None
        return self._board_parts[1]

    def twin_json(self, context: dict[str, Any]) -> bytes:
        """A page's JSON twin; a board's field results (2,000 rows in a league) encoded once for
        its two languages' twins."""
        if self._board_parts is not None and context.get("field") is self._board_parts[1][0]:
            if self._field_json is None:
                self._field_json = orjson.dumps(context["field"], option=orjson.OPT_NON_STR_KEYS)
            context = {**context, "field": orjson.Fragment(self._field_json)}
        return orjson.dumps(context, option=orjson.OPT_NON_STR_KEYS)  # = json.dumps(ensure_ascii=False, compact)

    def board_page(self, set_number: int, board: int) -> str | None:
        return f"board-{set_number}-{board}" if set_number in self.released else None

    def standing_row(self, s: Standing) -> dict[str, Any]:
        return {**s.as_dict(), "name": self.names.get(s.team, s.team), "page": self.team_page.get(s.team)}

    def match_ref(self, s: MatchScore, m: Match | None = None) -> dict[str, Any]:
        return {
            "round": s.round, "match": s.match, "page": self.match_page.get((s.round, s.match)),
            "table": m.table if m is not None else None, "slot": m.slot if m is not None else None,
            "set": s.set, "home": self.team_ref(s.home), "away": self.team_ref(s.away),
            "home_level_points": s.home_levels, "away_level_points": s.away_levels, "margin": s.margin,
            "home_match_points": s.home_match_points, "away_match_points": s.away_match_points,
            "boards_counted": s.boards_counted, "boards_total": s.boards_total,
            "complete": s.complete, "played": s.played, "forfeited_by": list(s.forfeited_by),
            "forfeit_reason": self.forfeit_reasons.get((s.round, s.match)) if s.forfeited_by else None,
            "advanced": self.advanced(s.round, s.match), "withheld_boards": self.withheld_of(s),
        }

    def advanced(self, round_number: int, match_id: str) -> dict[str, Any] | None:
        """A knockout match's ``advanced``: who went through (``team``, ``name``) and why
        (``tie_break`` and its figures, as ``dealer report --json``; ``figures``: the winner's
        first; ``note_key``: the words that say it, ``None`` when the score decided); ``None``
        for a match not decided or another format."""
        advance = self.data.advanced.get((round_number, match_id))
        if advance is None:
            return None
        return {**advance.as_dict(), "name": self.names.get(advance.team, advance.team),
                "figures": list(winner_first(advance, self.scores[(round_number, match_id)].home)),
                "note_key": None if advance.tie_break is None else advance_key(advance, self.event.levels)}

    @functools.cached_property
    def provisional(self) -> bool:
        """The standings are not final: a match not complete, rounds still to be paired, a
        knockout without its champion, and no end declared (:attr:`dealer.app.standings.ReportData.final`)."""
        return not self.data.final

    @functools.cached_property
    def prizes(self) -> list[dict[str, Any]]:
        """The prizes (none before the standings are final), their teams and a tie at their
        boundary with team names (:meth:`dealer.app.standings.ReportData.prizes`)."""
        refs = self.team_refs
        def tie(found: dict[str, Any] | None) -> dict[str, Any] | None:
            return None if found is None else {**found, "teams": [refs[t] for t in found["teams"]],
                                               "chosen": [refs[t] for t in found["chosen"]]}

        return [{**award, "teams": [refs[t] for t in award["teams"]], "tie": tie(award["tie"])}
                for award in self.report["prizes"]]

    def places(self) -> list[dict[str, Any]] | None:
        """A knockout's places with each team's name and page."""
        places = self.report["places"]
        return None if places is None else [{"place": p["place"], "teams": [self.team_refs[t] for t in p["teams"]]}
                                            for p in places]

    def global_key(self) -> bytes:
        """What every page shows around its own data (the header and the links)."""
        e = self.event
        return _digest(SCHEMA, e.id, e.name, e.date, e.profile, e.format.kind, e.result, e.sets,
                       e.timezone or time.tzname,
                       tuple((t.id, t.name) for t in e.teams), sorted(self.released),
                       tuple((r.number, len(r.matches)) for r in e.rounds), self.data.sample,
                       sorted((k, c.declarer, c.level) for k, c in e.schedule.items()))

    # --- rank after each round -----------------------------------------------------------

    @functools.cached_property
    def score_digests(self) -> dict[tuple[int, str], bytes]:
        """Each match's score as bytes (its JSON, self-delimiting), made once: the keys of its
        match, its round and its two teams' pages, and of the rank after its round, are made
        from them."""
        reasons = self.forfeit_reasons  # a forfeit's reason is on its match's and teams' pages
        return {key: orjson.dumps(score) if key not in reasons else orjson.dumps([score, reasons[key]])
                for key, score in self.scores.items()}

    def _round_keys(self) -> list[tuple[int, str]]:
        """(round, key) of the standings after each round: a digest of everything ranked then
        (the teams, the profile, the seed, the withdrawals, and each round so far: its byes, scores and
        adjustments)."""
        e, adjustments = self.event, self.data.adjustments
        key = _digest(SCHEMA, e.teams, e.profile, e.format, self.lots_seed,
                      *((adjustments.withdrawals,) if adjustments.withdrawals else ()))
        found = []
        for rnd in sorted(e.rounds, key=lambda r: r.number):
            number = rnd.number
            key = _digest(key, number, rnd.byes,
                          b"".join(self.score_digests[(number, m.id)] for m in rnd.matches),
                          [f for f in adjustments.forfeits if f.round == number],
                          [d for d in adjustments.deductions if d.round == number],
                          [p for p in adjustments.penalties if p.round == number])
            found.append((number, key.hex()))
        return found

    def rank_after(self, number: int) -> list[int | None]:
        """Each team's rank (in the event's team order) after round ``number``, by the profile's
        whole chain: the standings as they stood then."""
        scores, adjustments = self.data.scored.scores, self.data.adjustments
        forfeits = tuple(f for f in adjustments.forfeits if f.round <= number)
        deductions = tuple(d for d in adjustments.deductions if d.round <= number)
        penalties = tuple(p for p in adjustments.penalties if p.round <= number)
        rounds = tuple(r for r in self.event.rounds if r.number <= number)
        if (len(rounds), len(forfeits), len(deductions), len(penalties)) == \
                (len(self.event.rounds), len(adjustments.forfeits), len(adjustments.deductions),
                 len(adjustments.penalties)) and self.lots_seed == self.data.lots_seed:
            table = self.data.standings  # after the last round: the standings as they are
        else:
            table = rank(dataclasses.replace(self.event, rounds=rounds), [s for s in scores if s.round <= number],
                         dataclasses.replace(adjustments, forfeits=forfeits, deductions=deductions,
                                             penalties=penalties), self.lots_seed)
        played = any(s.round <= number and s.played for s in scores)
        ranks = {s.team: s.rank if played else None for s in table}
        return [ranks[t.id] for t in self.event.teams]

    def rank_history(self, jobs: int = 1) -> dict[str, list[int | None]]:
        """Each team's rank after each round. A round whose key is in :attr:`rank_cache` is
        taken from it; the others are ranked (in ``jobs`` processes when there are several);
        :attr:`rank_cache` then holds this build's."""
        keys = self._round_keys()
        cached = self.rank_cache.get("rounds", {})
        ranks: dict[str, list[int | None]] = {}
        missing = []
        for number, key in keys:
            entry = cached.get(str(number))
            if isinstance(entry, dict) and entry.get("key") == key and \
                    len(entry.get("ranks", ())) == len(self.event.teams):
                ranks[key] = entry["ranks"]
            else:
                missing.append(number)
        made = _map_rounds(self, missing, jobs)
        for number, key in keys:
            if number in made:
                ranks[key] = made[number]
        self.rank_cache = {"rounds": {str(number): {"key": key, "ranks": ranks[key]} for number, key in keys}}
        history: dict[str, list[int | None]] = {t.id: [] for t in self.event.teams}
        after = self.shown.after
        for number, key in keys:
            # A round not complete yet has no rank after it (while the standings are not final).
            shown = after is None or number <= after
            for team, place in zip(self.event.teams, ranks[key], strict=True):
                history[team.id].append(place if shown else None)
        return history


def _map_rounds(site: SiteData, numbers: Sequence[int], jobs: int) -> dict[int, list[int | None]]:
    """:meth:`SiteData.rank_after` for each round of ``numbers``, in ``jobs`` forked processes
    when there are several rounds to rank (a league's 20 take seconds each way)."""
    from dealer.site.forks import can_fork, fork_map

    if jobs <= 1 or len(numbers) < 2 or not can_fork():
        return {n: site.rank_after(n) for n in numbers}
    return dict(fork_map(functools.partial(_rank_one, site), sorted(numbers, reverse=True), min(jobs, len(numbers))))


def _rank_one(site: SiteData, number: int) -> tuple[int, list[int | None]]:
    return number, site.rank_after(number)


# --- the pages ----------------------------------------------------------------------------------


def plan_pages(site: SiteData, jobs: int = 1) -> list[PlannedPage]:
    """Every page of the site, each with its key and builder (``jobs``: processes that may rank
    the rounds)."""
    pages: list[PlannedPage] = []
    data, event = site.data, site.event
    # Its status and prizes too; the round in play's progress and the matches missing a result
    # come from the director's report (counts and table names).
    report_key = _digest(_json(site.report), site.provisional, site.last_update, _json(site.status),
                         _json(site.round_progress))
    pages.append(PlannedPage("index", "home.html", report_key + _digest(site.released, site.withheld),
                             lambda t: home(site)))
    pages.append(PlannedPage("standings", "standings.html", report_key, lambda t: standings(site)))
    if not site.knockout:  # a knockout shows its bracket instead
        order = cross_order(site)  # its rows and columns
        pages.append(PlannedPage("cross-table", "cross-table.html",
                                 _digest(_json(site.report["matches"]), order, sorted(site.withheld.items())),
                                 lambda t: cross(site)))
    matches_by_round: dict[int, list[Match]] = {}
    for m in data.scored.matches:
        matches_by_round.setdefault(m.round, []).append(m)
    digests = site.score_digests
    for rnd in event.rounds:
        pages.append(PlannedPage(f"round-{rnd.number}", "round.html",
                                 _digest(b"".join(digests[(rnd.number, m.id)] for m in rnd.matches), rnd.byes,
                                         [m.table for m in rnd.matches],
                                         sorted((n, site.withheld.get(n)) for n in {m.set for m in rnd.matches}),
                                         _json(site.round_progress.get(rnd.number))),
                                 functools.partial(_ignore_lang, round_page, site, rnd.number)))
    scored = data.scored
    points = getattr(scored, "points", None)
    present = getattr(scored, "present", None)
    levels = getattr(scored, "lines", None)
    by_set: dict[int, list[tuple[int, Match]]] = {}
    for i, m in enumerate(scored.matches):
        by_set.setdefault(m.set, []).append((i, m))
        # Its key is its inputs' bytes as they are (20,000 pages: no digest of a digest).
        detail = (points[i].tobytes() + present[i].tobytes() if points is not None and present is not None
                  else repr(levels[i]).encode() if levels is not None else b"")
        pages.append(PlannedPage(site.match_page[(m.round, m.id)], "match.html",
                                 b"%b\x00%b\x00%r" % (digests[(m.round, m.id)], detail,
                                                        (m.table, m.slot, m.set in site.released,
                                                         site.withheld.get(m.set), site.match_lineups(m))),
                                 functools.partial(_ignore_lang, match_page, site, m)))
    history = site.rank_history(jobs)
    by_team: dict[str, list[MatchScore]] = {t.id: [] for t in event.teams}
    for s in scored.scores:
        for team in (s.home, s.away):
            by_team.setdefault(team, []).append(s)
    byes = {t.id: [r.number for r in event.rounds if t.id in r.byes] for t in event.teams}
    field_key = site.field_key()  # its pairs against the field: any counted result moves every datum
    if site.field is not None:
        site.field.prepare()  # once, before the pages are built in forked processes
    for member in event.teams:
        standing = site.standing.get(member.id)
        own = b"".join(digests[(s.round, s.match)] for s in by_team[member.id])
        pages.append(PlannedPage(site.team_page[member.id], "team.html",
                                 _digest(member, standing, site.shown.after, own, history[member.id], byes[member.id],
                                         [site.withheld_of(s) for s in by_team[member.id]],
                                         [r.figures() for r in site.player_records.get(member.id, [])],
                                         [r.pair_dict() for r in site.pair_records.get(member.id, [])],
                                         field_key),
                                 functools.partial(_ignore_lang, team_page, site, member.id, by_team[member.id],
                                                   history[member.id], byes[member.id])))
    for set_number, boards in site.boards.items():
        playing = by_set.get(set_number, [])
        rows = [i for i, _m in playing]
        who = _digest([(m.round, m.id) for _i, m in playing])  # the same for the set's every board
        for b, board in enumerate(boards):
            column = (points[rows, b].tobytes() + present[rows, b].tobytes()
                      if points is not None and present is not None else b"")
            pages.append(PlannedPage(
                f"board-{set_number}-{board.number}", "board.html",
                _digest(set_number, board.number, board.deal.code, column, who,
                        site.field_key(set_number, board.number)),
                functools.partial(board_page, site, set_number, board, playing), per_lang=True))
    if site.field is not None:
        pages.append(PlannedPage("pairs", "pairs.html", _digest(field_key, sorted(site.released)),
                                 lambda t: pairs_page(site)))
    if site.knockout:
        pages.append(PlannedPage("bracket", "bracket.html", report_key, lambda t: bracket(site)))
    if not event.levels:  # a level race deals nothing: nothing to verify
        pages.append(PlannedPage("verify", "verify.html", _digest(site.verify), lambda t: dict(site.verify)))
    pages.append(PlannedPage("downloads", "downloads.html", _digest(site.downloads),
                             lambda t: {"files": list(site.downloads)}))
    check_page_names(pages)
    return pages


def _ignore_lang(build: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """A page whose context is the same in every language (the strings come last, unused)."""
    return build(*args[:-1])


def home(site: SiteData) -> dict[str, Any]:
    rounds = []
    for rnd in site.event.rounds:
        scores = [site.scores[(rnd.number, m.id)] for m in rnd.matches]
        progress = site.round_progress.get(rnd.number)
        rounds.append({"round": rnd.number, "page": f"round-{rnd.number}", "matches": len(scores),
                       # a match whose boards wait for the field has every result it can have
                       "complete": progress["matches_done"] if progress else sum(1 for s in scores if s.complete),
                       "sets": sorted({m.set for m in rnd.matches})})
    return {
        "provisional": site.provisional, "no_results_yet": site.data.no_results, "sample_data": site.data.sample,
        "last_update": site.last_update, "results_chain_head": site.data.chain_head,
        "standings_after": site.shown.after,
        "leaders": [site.standing_row(s) for s in site.shown.standings[:HOME_LEADERS]],
        "teams": len(site.event.teams), "rounds": rounds,
        "released_sets": [{"set": n, **site.released[n]} for n in sorted(site.released)],
        "withheld": [{"set": n, "boards": boards} for n, boards in sorted(site.withheld.items())],
        "status": site.status, "progress": site.progress,
        "has_prizes": bool(site.event.prizes), "prizes": site.prizes,
    }


def standings(site: SiteData) -> dict[str, Any]:
    shown = site.shown
    return {
        "provisional": site.provisional, "sample_data": site.data.sample,
        "tie_breaks": list(site.event.profile.tie_breaks),
        "standings_after": shown.after,
        "standings": [site.standing_row(s) for s in shown.standings],
        # no round complete yet: no ranking, the teams as the event lists them
        "unranked": [site.team_ref(t.id) for t in site.event.teams] if shown.after == 0 else [],
        "groups": [{"group": chr(65 + g), "standings": [site.standing_row(s) for s in table]}
                   for g, table in shown.groups],
        "places": site.places(), "status": site.status, "progress": site.progress,
        "has_prizes": bool(site.event.prizes),
        "prizes": site.prizes, "adjustments": site.report["adjustments"],
        "penalty_notes": {lang: site.data.penalty_notes(lang) for lang in ("zh", "en")},
        "appeal_notes": {lang: site.data.provisional_note(lang) + site.data.appeal_notes(lang)
                         for lang in ("zh", "en")},
        "appeal_title": {lang: section("appeals", lang)["title"] for lang in ("zh", "en")},
    }


def cross_order(site: SiteData) -> list[str]:
    """The cross-table's teams: in the order of the standings shown, else of the event."""
    return [s.team for s in site.shown.standings] or [t.id for t in site.event.teams]


def cross(site: SiteData) -> dict[str, Any]:
    order = cross_order(site)
    if len(order) > CROSS_TABLE_LIMIT:
        return {"too_large": True, "teams": [site.team_ref(t) for t in order], "rows": []}
    # Each meeting played, or whose boards wait for the field (said so, without figures).
    cells: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for s in site.data.scored.scores:
        withheld = site.withheld_of(s)
        if not s.played and not withheld:
            continue
        for team in (s.home, s.away):
            own, other, points = s.side(team)
            cells.setdefault((team, s.opponent(team)), []).append(
                {"round": s.round, "match": s.match, "own": own if s.played else None,
                 "other": other if s.played else None, "match_points": points if s.played else None,
                 "complete": s.complete, "page": site.match_page.get((s.round, s.match)), "withheld_boards": withheld})
    rows = []
    for team in order:
        rows.append({"team": site.team_ref(team), "cells": [
            None if team == other else cells.get((team, other), []) for other in order]})
    return {"too_large": False, "teams": [site.team_ref(t) for t in order], "rows": rows}


def round_page(site: SiteData, number: int) -> dict[str, Any]:
    rnd = site.event.round(number)
    assert rnd is not None
    sets = [] if site.event.levels else sorted({m.set for m in rnd.matches})  # a level race plays no set
    return {
        "round": number, "levels": site.event.levels,
        "sets": [{"set": n, "released": n in site.released} for n in sets],
        "progress": site.round_progress.get(number),
        "matches": [site.match_ref(site.scores[(number, m.id)], m) for m in rnd.matches],
        "byes": [site.team_ref(t) for t in rnd.byes],
        "previous": f"round-{number - 1}" if site.event.round(number - 1) else None,
        "next": f"round-{number + 1}" if site.event.round(number + 1) else None,
    }


def match_page(site: SiteData, m: Match) -> dict[str, Any]:
    scored = site.data.scored
    score = site.scores[(m.round, m.id)]
    context: dict[str, Any] = {**site.match_ref(score, m), "round_page": f"round-{m.round}",
                               "levels": site.event.levels, "set_released": m.set in site.released,
                               "boards": [], "tables": []}
    if site.data.adjustments.on_match(m.round, m.id):  # footnoted below the sheet, in each language
        context["penalty_notes"] = {lang: site.data.penalty_notes(lang, m.round, m.id) for lang in ("zh", "en")}
    context["lineups"] = site.match_lineups(m)
    sheet = scored.match_sheet(m.round, m.id)
    if sheet is None:  # forfeited: no sheet
        return context
    if site.event.levels:
        context["tables"] = [{"table": line.table, "home_level": line.home_level, "away_level": line.away_level,
                              "home_climbed": line.home_climbed, "away_climbed": line.away_climbed,
                              "net": line.net, "last_game": line.last_game, "winner": line.winner}
                             for line in sheet.tables]
        return context
    context["boards"] = board_rows(sheet.boards, functools.partial(site.board_page, m.set))
    return context


def team_page(site: SiteData, team_id: str, scores: Sequence[MatchScore], history: Sequence[int | None],
              byes: Sequence[int]) -> dict[str, Any]:
    team = site.event.team(team_id)
    standing = site.standing.get(team_id)
    matches = []
    for s in scores:
        own, other, points = s.side(team_id)
        matches.append({"round": s.round, "match": s.match, "page": site.match_page.get((s.round, s.match)),
                        "side": "home" if s.home == team_id else "away", "opponent": site.team_ref(s.opponent(team_id)),
                        "level_points_for": own, "level_points_against": other, "match_points": points,
                        "complete": s.complete, "played": s.played, "forfeited_by": list(s.forfeited_by),
                        "forfeit_reason": site.forfeit_reasons.get((s.round, s.match)) if s.forfeited_by else None,
                        "withheld_boards": site.withheld_of(s)})
    rounds = sorted(r.number for r in site.event.rounds)
    return {
        "team": {"id": team.id, "name": team.name, "players": list(team.players), "club": team.club,
                 "seed": team.seed, "mixed_club": team.mixed_club},
        "standing": site.standing_row(standing) if standing is not None else None,
        "standings_after": site.shown.after,
        "teams": len(site.event.teams),
        "matches": matches, "byes": list(byes),
        "rank_history": [{"round": r, "rank": rk} for r, rk in zip(rounds, history, strict=True)],
        "player_records": [r.player_dict() for r in site.player_records.get(team_id, [])],
        "pair_records": [r.pair_dict() for r in site.pair_records.get(team_id, [])],
        "field_pairs": site.field_pairs(team_id),
        "pairs_page": "pairs" if site.field is not None else None,
    }


def board_page(site: SiteData, set_number: int, board: Board, matches: Sequence[tuple[int, Match]], t: Strings
               ) -> dict[str, Any]:
    """A released board: its hands (as dealt, in the notation of docs/notation.md), the print
    pack's hand record, and every table's result of it across the field."""
    field, analysis = site.board_parts(set_number, board, matches)
    hands = {seat: [c.ascii for c in sort_cards(board.deal.hands[seat])] for seat in board.deal.hands}
    boards = site.event.boards_per_set
    return {
        "set": set_number, "board": board.number, "declarer": board.declarer, "level": board.level,
        "deal_code": board.deal.code, "released": site.released[set_number],
        "hands": hands, "kitty": [c.ascii for c in sort_cards(board.deal.kitty)],
        "hand_record": hand_record_board(board, t, analysis=analysis),
        "field": field,
        # the board review: the field's spread, the biggest swings, each trump against its result
        # (``None``: not every table has played it yet, or none counted)
        "review": _review(site, set_number, board.number),
        "previous": f"board-{set_number}-{board.number - 1}" if board.number > 1 else None,
        "next": f"board-{set_number}-{board.number + 1}" if board.number < boards else None,
    }


def _review(site: SiteData, set_number: int, board: int) -> dict[str, Any] | None:
    """A board's review (:meth:`dealer.field.FieldStats.board_review`), each table's teams and
    match page named."""
    stats = site.field
    review = None if stats is None else stats.board_review(set_number, board)
    if review is None:
        return None
    for rows in (review["swings"], review["left_out"]):
        for r in rows:
            r["ns_team"], r["ew_team"] = site.team_refs[r["ns_team"]], site.team_refs[r["ew_team"]]
            r["page"] = site.match_page.get((r["round"], r["match"]))
    return review


def pairs_page(site: SiteData) -> dict[str, Any]:
    """The "pairs in teams" ranking: each pair's butler against the field (its team, players or
    table, boards, butler, a board, as declarer side and as defenders, by trump), its row
    linking its boards (on its team's page); each team's; the sets counted."""
    stats = site.field
    counted = sorted({b.set for b in stats.boards}) if stats is not None else []
    pairs = []
    for team, found in site._field_pairs_of.items():
        for anchor, p in found:
            pairs.append({**p.as_dict(), "team_ref": site.team_refs[team], "boards_page": site.team_page.get(team),
                          "anchor": anchor})
    pairs.sort(key=lambda p: (p["rank"] is None, p["rank"] or 0, -p["boards"]))
    return {"rule": stats.rule if stats is not None else None, "trim_from": TRIM_FROM,
            "sets_counted": counted, "released_sets": sorted(site.released),
            "boards_counted": len(stats.boards) if stats is not None else 0,
            "pairs": pairs,
            "teams": [{**t.as_dict(), "team_ref": site.team_refs[t.key.team]}
                      for t in (stats.teams if stats is not None else [])]}


def board_field(site: SiteData, board: Board, matches: Sequence[tuple[int, Match]]) -> dict[str, Any]:
    """Every table's result of ``board`` across the field, with the field's averages."""
    sc = site.data.scored  # one column of the scoring's arrays: this board at every match
    b = board.number - 1
    rows = [i for i, _m in matches]
    present, points = sc.present[rows, b].tolist(), sc.points[rows, b].tolist()
    ns_levels, ew_levels = sc.ns_levels[rows, b].tolist(), sc.ew_levels[rows, b].tolist()
    tables: list[dict[str, Any]] = []
    for k, played in enumerate(site.set_tables(matches)):
        for index, (round_, match, page, table, ns_ref, ew_ref) in played:
            if not present[k][index]:
                continue
            ns, ew = ns_levels[k][index], ew_levels[k][index]
            tables.append({"round": round_, "match": match, "page": page, "table": table, "ns": ns_ref,
                           "ew": ew_ref, "points": points[k][index], "ns_level_points": ns, "ew_level_points": ew,
                           "ns_net": ns - ew})
    average = sum(row["ns_net"] for row in tables) / len(tables) if tables else None
    average_points = sum(row["points"] for row in tables) / len(tables) if tables else None
    for row in tables:
        vs = None if average is None else round(row["ns_net"] - average, 2)
        row["ns_vs_field"] = vs
        row["ew_vs_field"] = None if vs is None else -vs + 0.0
    return {"tables": tables, "average_ns_net": None if average is None else round(average, 2),
            "average_points": None if average_points is None else round(average_points, 2)}


def bracket(site: SiteData) -> dict[str, Any]:
    """A knockout's rounds (each with its ``stage``: ``final``, ``semi_final``, ``quarter_final``
    or ``None``): each match's slot, teams, result, who went through and why."""
    columns = [{"round": rnd.number, "stage": stage,
                "matches": [{**site.match_ref(score, m), "winner": advance.team if advance else None,
                             "third_place": m.slot == "P3"} for m, score, advance in matches],
                "byes": [site.team_ref(t) for t in rnd.byes]}
               for rnd, stage, matches in site.data.bracket() or []]
    return {"rounds": columns, "places": site.places()}
