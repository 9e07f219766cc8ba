"""Level races (计时制 / 计局制, an event with ``result = "levels"``): table results → matches.

Pure domain code, no I/O. A match is played at the event's ``tables`` (seed 002: 2, each team's
two pairs; seed 001: 5, 5场3胜). Each table reports the final level of the home pair and of the
away pair and, for a tie, which side won the last game (末局胜方). Every side starts at the
profile's ``level_race.start``; a side's *climbed levels* at a table are its final level's distance
from that start, and **过A** (recorded ``过A`` or ``A+``) is one level past A: the race ends there.

A match scores into the same :class:`~dealer.scoring.MatchScore` as a boards match, so that
standings, reports, the cross-table and the round loop take both alike:

* ``home_levels`` / ``away_levels``: each side's climbed levels summed over the tables reported
  (their difference is the match's 小分, the net levels);
* match points by the profile's ``level_race.match_winner``: ``net_levels`` (seed 002: more net
  levels wins, equal is a draw) or ``tables`` (seed 001: more tables won; a table goes to the
  higher final level, at equal levels to the last game's winner);
* ``boards_counted`` / ``boards_total``: tables reported / tables of the match;
* a forfeit as the profile says (:meth:`ScoredEvent._forfeited`, per table of the match).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dealer.adjustments import Adjustments
from dealer.errors import ScoringError
from dealer.event import Event, Match
from dealer.race import RACE_LEVELS, advance, climbed
from dealer.scoring import Advance, BoardLine, MatchScore, MatchSheet, ScoredEvent, seed_advance


def table_winner(home_climbed: int, away_climbed: int, last_game: str | None,
                 games: tuple[int | None, int | None] = (None, None)) -> str | None:
    """``"home"`` or ``"away"``: the side that won more of the table's games where it plays
    several a round and they were recorded (seed 000 第二十四条 三局两胜), else the higher final
    level (at equal games too: time up, 计局制 with 计时制), at equal levels the last game's winner
    (seed 001: 同级别，庄家赢); ``None`` at equal levels without one."""
    home_games, away_games = games
    if home_games is not None and away_games is not None and home_games != away_games:
        return "home" if home_games > away_games else "away"
    if home_climbed != away_climbed:
        return "home" if home_climbed > away_climbed else "away"
    return last_game


@dataclass(frozen=True)
class LevelColumns:
    """Current level results: (round, match, table, home level, away level, last game's winner),
    and where recorded the games each side won (home, away: a best-of-three round)."""

    rows: tuple[tuple[int, str, int, str, str, str | None] | tuple[int, str, int, str, str, str | None,
                                                                       int | None, int | None], ...] = ()

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, str, int, str, str, str | None]
                                      | tuple[int, str, int, str, str, str | None, int | None, int | None]]
                  ) -> LevelColumns:
        return cls(tuple(rows))

    def __len__(self) -> int:
        return len(self.rows)


@dataclass(frozen=True)
class TableLine:
    """One table of one level-race match."""

    table: int
    home_level: str
    away_level: str
    home_climbed: int
    away_climbed: int
    last_game: str | None  # "home", "away" or None
    winner: str | None  # "home", "away", or None (equal levels, no last game recorded)
    home_games: int | None = None  # games won, where the table plays several (三局两胜)
    away_games: int | None = None

    @property
    def net(self) -> int:
        """The home side's net levels at this table (小分)."""
        return self.home_climbed - self.away_climbed


class ScoredLevelEvent(ScoredEvent):
    """Every match of a level-race event scored from its current table results."""

    def __init__(self, event: Event, results: LevelColumns, adjustments: Adjustments | None = None) -> None:
        if not event.levels:
            raise ScoringError("levels.not_a_level_race", event_id=event.id)
        self.event = event
        self.adjustments = adjustments or Adjustments()
        self.profile = event.profile
        self.matches: list[Match] = event.matches()
        self._index = {(m.round, m.id): i for i, m in enumerate(self.matches)}
        self.grid = None  # tables, not boards
        start = self.profile.level_race.start
        several = self.profile.level_race.best_of > 1
        self.lines: list[dict[int, TableLine]] = [{} for _ in self.matches]
        for row in results.rows:
            round_number, match_id, table, home, away, last = row[:6]
            games = (row[6], row[7]) if several and len(row) == 8 else (None, None)
            i = self._index.get((round_number, match_id))
            if i is None:
                raise ScoringError("levels.unknown_match", round=round_number, match=match_id)
            h, a = climbed(home, start), climbed(away, start)
            self.lines[i][table] = TableLine(table, home, away, h, a, last, table_winner(h, a, last, games), *games)
        self._penalize_tables()
        self._score_levels()

    def _penalize_tables(self) -> None:
        """Each levels penalty added to its team's climbed levels at its table (the table's
        final levels stay as entered; its winner follows the levels as penalized). An award (a
        positive amount, seed 001's 劳改 +2) climbs as play does: it stops at the profile's first
        must-play level (seed 003: 2、J、A必打; :func:`dealer.race.advance`)."""
        start = RACE_LEVELS.index(self.profile.level_race.start)
        must_play = self.profile.level_race.must_play

        def moved(climbed_now: int, amount: int) -> int:
            level = RACE_LEVELS[min(max(start + climbed_now, 0), len(RACE_LEVELS) - 1)]
            return climbed_now + amount if amount <= 0 or not must_play else \
                RACE_LEVELS.index(advance(level, amount, must_play)) - start

        for p in self.adjustments.of_kind("levels"):
            i = self._index.get((p.round, p.match))
            line = self.lines[i].get(int(p.table)) if i is not None and p.table and str(p.table).isdigit() else None
            if line is None or i is None:
                continue
            m = self.matches[i]
            h = moved(line.home_climbed, p.amount) if p.team == m.home else line.home_climbed
            a = moved(line.away_climbed, p.amount) if p.team == m.away else line.away_climbed
            self.lines[i][line.table] = dataclasses.replace(
                line, home_climbed=h, away_climbed=a,
                winner=table_winner(h, a, line.last_game, (line.home_games, line.away_games)))

    def _units(self) -> int:
        return self.event.tables

    def has_results(self) -> bool:
        return any(self.lines)

    def _score_levels(self) -> None:
        by_tables = self.profile.level_race.match_winner in ("tables", "games")
        points = self.profile.match_points_for
        scores: list[MatchScore] = []
        for m, lines in zip(self.matches, self.lines, strict=True):
            forfeiters = self.adjustments.forfeiters(m.round, m.id)
            if forfeiters:
                scores.append(self._forfeited(m, forfeiters))
                continue
            h = sum(line.home_climbed for line in lines.values())
            a = sum(line.away_climbed for line in lines.values())
            if by_tables:
                hw = sum(1 for line in lines.values() if line.winner == "home")
                aw = sum(1 for line in lines.values() if line.winner == "away")
                hmp, amp = points(hw, aw), points(aw, hw)
            else:
                hmp, amp = points(h, a), points(a, h)
            if not lines:
                hmp = amp = 0
            scores.append(MatchScore(m.round, m.id, m.home, m.away, m.set, h, a, len(lines), self.event.tables,
                                     hmp, amp))
        self.scores = scores

    def table_lines(self, round_number: int, match_id: str) -> list[TableLine]:
        """The reported tables of one match, in table order."""
        lines = self.lines[self._index[(round_number, match_id)]]
        return [lines[t] for t in sorted(lines)]

    def _sheets(self, part: Sequence[tuple[int, MatchScore]]) -> list[MatchSheet]:
        """The sheets of some matches: their reported tables."""
        return [MatchSheet(s, tables=self.table_lines(s.round, s.match)) for _i, s in part]

    def sheet(self, round_number: int, match_id: str) -> list[BoardLine]:
        """A level race has no boards (:meth:`table_lines` has its tables)."""
        return []

    def missing(self, round_number: int | None = None) -> list[tuple[Match, list[tuple[int, str]]]]:
        """Per match (of one round or all), the tables without a result, as (table, "")."""
        return [(m, [(t, "") for t in range(1, self.event.tables + 1) if t not in lines])
                for m, lines in zip(self.matches, self.lines, strict=True)
                if round_number is None or m.round == round_number]

    def advance(self, round_number: int, match_id: str, seed_rank: Mapping[str, int]) -> Advance | None:
        """Who goes through from a knockout match and why, ``None`` until every table is in. A
        draw is decided by the profile's ``knockout_tie_breaks`` read for tables: ``boards_won`` =
        more tables won, ``countback`` = the last table whose net levels differ (its climbed
        levels, ``board`` = the table), then the better seed."""
        score = self.score(round_number, match_id)
        if not score.complete:
            return None
        if score.winner is not None:
            return Advance(score.winner)
        lines = self.table_lines(round_number, match_id)
        for rule in self.profile.knockout_tie_breaks:
            if rule == "boards_won":
                home_won = sum(1 for line in lines if line.winner == "home")
                away_won = sum(1 for line in lines if line.winner == "away")
                if home_won != away_won:
                    return Advance(score.home if home_won > away_won else score.away, rule, home_won, away_won)
            elif rule == "countback":
                for line in reversed(lines):
                    if line.net:
                        return Advance(score.home if line.net > 0 else score.away, rule,
                                       line.home_climbed, line.away_climbed, line.table)
            else:
                break
        return seed_advance(score, seed_rank)


def score_levels(event: Event, results: LevelColumns, adjustments: Adjustments | None = None) -> ScoredLevelEvent:
    """Score every match of a level-race ``event`` from its current table results."""
    return ScoredLevelEvent(event, results, adjustments)
