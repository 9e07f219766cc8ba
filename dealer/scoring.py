"""Scoring (计副制): traveller results → level points per side → match totals (standings: :mod:`dealer.standings`).

Pure domain code, no I/O. The whole event is scored in one vectorized pass (NumPy): every
result row is placed in a grid ``[match, board, table]``; level points come from a lookup
built once per distinct defenders' points value with :meth:`Profile.level_points`, so the
profile stays the single source of the conversion.

Rules applied (DESIGN §2, §8):

* the declarer seat of a board is fixed by the schedule, so the declarer side (NS or EW) is
  known; the profile credits level points to the declarer side or to the defenders;
* table A: home sits E-W; table B: home sits N-S. A team's match total is its E-W level points at
  A plus its N-S level points at B; the margin is home total − away total;
* a board counts only when both tables have a result; incomplete boards are shown, not guessed;
* a match with at least one counted board enters the standings (``complete`` says whether
  every board counted); match points follow the profile (win / draw / loss);
* a forfeited match scores as the profile's ``forfeit`` rule says, without boards.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from dealer.adjustments import Adjustments
from dealer.cards import side_of
from dealer.errors import ScoringError
from dealer.event import Event, Match

if TYPE_CHECKING:
    # NumPy is imported by the functions that score (a command that only stores a result or
    # shows a round never loads it: it is most of a short command's start-up).
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    BoolArray = npt.NDArray[np.bool_]

TABLES = ("A", "B")
#: The trumps a result may record (validate.py), by code: 0 is "not recorded".
TRUMPS = ("", "S", "H", "C", "D", "NT")
_TRUMP_CODE = {name: code for code, name in enumerate(TRUMPS) if name}


@dataclass(frozen=True)
class BoardLine:
    """One board of one match: both tables side by side."""

    board: int
    declarer: str
    level: str
    declarer_side: str  # "NS" or "EW"
    points: tuple[int | None, int | None]  # defenders' points at A, B
    ns_levels: tuple[int | None, int | None]  # level points of the N-S pair at A, B
    ew_levels: tuple[int | None, int | None]
    home_levels: int | None  # counted boards only
    away_levels: int | None
    home_running: int
    away_running: int
    counted: bool
    trump: tuple[str | None, str | None] = (None, None)  # the trump played at A, B (when recorded)


@dataclass(frozen=True)
class MatchScore:
    round: int
    match: str
    home: str
    away: str
    set: int
    home_levels: int
    away_levels: int
    boards_counted: int
    boards_total: int
    home_match_points: int
    away_match_points: int
    forfeited_by: tuple[str, ...] = ()  # the team(s) that forfeited: no board is played

    @property
    def margin(self) -> int:
        return self.home_levels - self.away_levels

    @property
    def complete(self) -> bool:
        return self.boards_counted == self.boards_total or bool(self.forfeited_by)

    @property
    def played(self) -> bool:
        return self.boards_counted > 0 or bool(self.forfeited_by)

    @property
    def winner(self) -> str | None:
        if self.forfeited_by:
            left = [t for t in (self.home, self.away) if t not in self.forfeited_by]
            return left[0] if len(left) == 1 else None
        # By match points, which follow the profile: level points for boards; for a level race
        # net levels or tables won (a match can be won on tables and lost on levels).
        if not self.played or self.home_match_points == self.away_match_points:
            return None
        return self.home if self.home_match_points > self.away_match_points else self.away

    def side(self, team: str) -> tuple[int, int, int]:
        """(own level points, opponent's level points, own match points) of ``team``."""
        if team == self.home:
            return self.home_levels, self.away_levels, self.home_match_points
        return self.away_levels, self.home_levels, self.away_match_points

    def opponent(self, team: str) -> str:
        return self.away if team == self.home else self.home


@dataclass(frozen=True)
class Advance:
    """Who went through from a knockout match, and why: ``tie_break`` is ``None`` when the score
    (or a forfeit) decided; else the profile's ``knockout_tie_breaks`` rule that decided a draw,
    with its figures for home and away (boards or tables won; for ``countback`` the level points
    of ``board``, the last one that differs; for ``higher_seed`` the seed numbers)."""

    team: str
    tie_break: str | None = None
    home: int | None = None
    away: int | None = None
    board: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"team": self.team, "tie_break": self.tie_break, "home": self.home, "away": self.away,
                "board": self.board}


def seed_advance(score: MatchScore, seed_rank: Mapping[str, int]) -> Advance:
    """A draw decided by the better seed (the last knockout tie-break, which always decides)."""
    home, away = seed_rank.get(score.home, 1 << 30), seed_rank.get(score.away, 1 << 30)
    return Advance(score.home if home <= away else score.away, "higher_seed", home, away)


@dataclass(frozen=True)
class ResultColumns:
    """Result rows as parallel sequences: round, match id, table ("A"/"B"), board, points."""

    round: Sequence[int]
    match: Sequence[str]
    table: Sequence[str]
    board: Sequence[int]
    points: Sequence[int]
    trump: Sequence[str | None] = ()  # the trump played (S H C D NT, or None), when known

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, str, str, int, int] | tuple[int, str, str, int, int, str | None]]
                  ) -> ResultColumns:
        """Rows of (round, match, table, board, points) or (…, trump)."""
        materialized = list(rows)
        if not materialized:
            return cls((), (), (), (), ())
        width = len(materialized[0])  # a column at a time: zip(*rows) of a league's rows is slow
        return cls(*(list(map(itemgetter(i), materialized)) for i in range(width)))

    def __len__(self) -> int:
        return len(self.points)


#: What each line of a boards match sheet holds, in order (:attr:`MatchSheet.boards`): the
#: board's conditions, each table's points and level points (``None``: no result there), the
#: home and away level points of a counted board (``None``: not counted), the running totals,
#: whether it counted (1 or 0) and the trump played at each table (``None``: not recorded).
BOARD_LINE = ("board", "declarer", "level", "A_points", "A_ns_levels", "A_ew_levels", "B_points", "B_ns_levels",
              "B_ew_levels", "home_levels", "away_levels", "home_running", "away_running", "counted", "A_trump",
              "B_trump")
#: Matches whose board lines are made together from the scored arrays.
_SHEET_CHUNK = 500


@dataclass(frozen=True)
class MatchSheet:
    """One played (not forfeited) match's sheet: its board lines (values in the order of
    :data:`BOARD_LINE`) or, in a level race, its table lines (:class:`dealer.levels.TableLine`).
    Made once per scored event (:attr:`ScoredEvent.match_sheets`): every report format and the
    site's match pages read these."""

    score: MatchScore
    boards: Sequence[list[Any]] = ()
    tables: Sequence[Any] = ()


@dataclass
class ResultGrid:
    """Every match's current results as arrays ``[match, board, table]`` (matches in
    :meth:`Event.matches` order, table A then B): whether a result is there, its defenders' points
    and the trump played (codes of :data:`TRUMPS`, 0: not recorded). What scoring reads."""

    present: BoolArray
    points: IntArray
    trumps: npt.NDArray[np.int8]

    @classmethod
    def empty(cls, event: Event) -> ResultGrid:
        import numpy as np

        shape = (len(event.matches()), event.boards_per_set, 2)
        return cls(np.zeros(shape, dtype=np.bool_), np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int8))

    @classmethod
    def of(cls, event: Event, results: ResultColumns) -> ResultGrid:
        """The grid of ``results`` (every current, non-withdrawn result of the event)."""
        grid = cls.empty(event)
        grid._place(event, results)
        return grid

    @staticmethod
    def _cells(event: Event, rounds: Sequence[int], matches: Sequence[str], tables: Sequence[str],
               boards: Sequence[int]) -> tuple[IntArray, IntArray, IntArray]:
        """The (match, board, table) indexes of result rows, given as columns."""
        import numpy as np

        index = {(m.round, m.id): i for i, m in enumerate(event.matches())}
        try:
            rows = np.fromiter(map(index.__getitem__, zip(rounds, matches, strict=True)),
                               dtype=np.int64, count=len(rounds))
        except KeyError as error:
            raise ScoringError("scoring.unknown_match", match=error.args[0]) from None
        board_index = np.asarray(boards, dtype=np.int64) - 1
        if board_index.size and (board_index.min() < 0 or board_index.max() >= event.boards_per_set):
            raise ScoringError("scoring.board_outside_set")
        table_index = np.fromiter(map("B".__eq__, tables), dtype=np.bool_, count=len(tables)).astype(np.int64)
        return rows, board_index, table_index

    def _place(self, event: Event, results: ResultColumns) -> None:
        import numpy as np

        if not len(results):
            return
        cells = self._cells(event, results.round, results.match, results.table, results.board)
        self.present[cells] = True
        self.points[cells] = np.asarray(results.points, dtype=np.int64)
        if len(results.trump):
            self.trumps[cells] = np.fromiter(
                (_TRUMP_CODE.get(t, 0) if t else 0 for t in results.trump), dtype=np.int8, count=len(results))


def withheld_boards(event: Event, grid: ResultGrid, adjustments: Adjustments, released: Collection[int]
                    ) -> dict[int, list[int]]:
    """The boards whose results are not public yet: set → board numbers of each set not
    released of which a table that plays it (a table of a match of the set, not forfeited) has
    no result yet. Until then a table's points, trump and levels tell a table still to play the
    board how it went, as the hands would."""
    import numpy as np

    matches = event.matches()
    if not matches or not event.boards_per_set:
        return {}
    sets = np.fromiter((m.set for m in matches), dtype=np.int64, count=len(matches))
    playing = np.fromiter((not adjustments.forfeiters(m.round, m.id) for m in matches), dtype=np.bool_,
                          count=len(matches))
    waiting = ~(grid.present[:, :, 0] & grid.present[:, :, 1]) & playing[:, None]  # [match, board]
    found: dict[int, list[int]] = {}
    for set_number in sorted(set(sets.tolist()) - set(released)):
        boards = np.flatnonzero(waiting[sets == set_number].any(axis=0))
        if boards.size:
            found[set_number] = [int(b) + 1 for b in boards]
    return found


def without_boards(event: Event, grid: ResultGrid, boards: Mapping[int, Sequence[int]]) -> ResultGrid:
    """A copy of ``grid`` with no result of ``boards`` (set → board numbers) at any table."""
    import numpy as np

    public = ResultGrid(grid.present.copy(), grid.points.copy(), grid.trumps.copy())
    sets = np.fromiter((m.set for m in event.matches()), dtype=np.int64, count=len(event.matches()))
    for set_number, numbers in boards.items():
        rows = np.flatnonzero(sets == set_number)
        cells = np.ix_(rows, np.asarray(numbers, dtype=np.int64) - 1)
        public.present[cells] = False
        public.points[cells] = 0
        public.trumps[cells] = 0
    return public


class ScoredEvent:
    """Every match of an event scored from its current results (see module docstring)."""

    def __init__(self, event: Event, results: ResultColumns | ResultGrid,
                 adjustments: Adjustments | None = None) -> None:
        import numpy as np

        self.event = event
        self.adjustments = adjustments or Adjustments()
        self.profile = event.profile
        matches = event.matches()
        self.matches: list[Match] = matches
        self._index = {(m.round, m.id): i for i, m in enumerate(matches)}
        grid = results if isinstance(results, ResultGrid) else ResultGrid.of(event, results)
        if grid.present.shape != (len(matches), event.boards_per_set, 2):
            raise ScoringError("scoring.grid_mismatch")
        #: The results scored (a level race's: ``None``).
        self.grid: ResultGrid | None = grid
        self.present: BoolArray = grid.present
        self.points: IntArray = grid.points
        self.trumps: npt.NDArray[np.int8] = grid.trumps
        self.ns_levels: IntArray = np.zeros(grid.points.shape, dtype=np.int64)
        self.ew_levels: IntArray = np.zeros(grid.points.shape, dtype=np.int64)
        self._levels()
        self._score()

    def _levels(self) -> None:
        """Level points of each side at every table with a result, by the board's declarer side."""
        import numpy as np

        present = self.present
        if not present.any():
            return
        declarer_lv, defenders_lv = self._level_lookup(self._penalized_points()[present])
        ns_table = np.zeros((self.event.sets + 1, self.event.boards_per_set), dtype=np.bool_)
        for (set_number, number), cond in self.event.schedule.items():
            ns_table[set_number, number - 1] = side_of(cond.declarer) == "NS"
        sets = np.array([m.set for m in self.matches], dtype=np.int64)
        ns_decl = np.broadcast_to(ns_table[sets][:, :, None], present.shape)[present]
        self.ns_levels[present] = np.where(ns_decl, declarer_lv, defenders_lv)
        self.ew_levels[present] = np.where(ns_decl, defenders_lv, declarer_lv)

    def _penalized_points(self) -> IntArray:
        """The defenders' points the conversion reads: the results as entered (the sheets show
        those), with each points penalty and forced board result applied to its board's table.
        A penalty of ``amount`` to the defending team adds it to the defenders' points, to the
        declaring team takes it off (the profile's bands cover every value)."""
        found = self.adjustments.of_kind("points", "board")
        if not found:
            return self.points
        points = self.points.copy()
        for p in found:
            i = self._index.get((p.round, p.match))
            if i is None or p.board is None or p.table not in TABLES or not 1 <= p.board <= self.event.boards_per_set:
                continue
            m, t, b = self.matches[i], TABLES.index(str(p.table)), p.board - 1
            if p.kind == "board":
                points[i, b, t] = p.amount
                continue
            seats = m.seats(str(p.table))
            declarer = side_of(self.event.schedule[(m.set, p.board)].declarer)
            defending = seats["EW" if declarer == "NS" else "NS"] == p.team
            points[i, b, t] += p.amount if defending else -p.amount
        return points

    def level_shift(self, m: Match) -> tuple[int, int]:
        """Level points added to the home and away team of ``m`` by levels penalties (boards)."""
        home = away = 0
        for p in self.adjustments.of_kind("levels"):
            if p.on(m.round, m.id):
                if p.team == m.home:
                    home += p.amount
                elif p.team == m.away:
                    away += p.amount
        return home, away

    def _level_lookup(self, points: IntArray) -> tuple[IntArray, IntArray]:
        import numpy as np

        values, inverse = np.unique(points, return_inverse=True)
        declarer = np.empty(values.size, dtype=np.int64)
        defenders = np.empty(values.size, dtype=np.int64)
        for i, value in enumerate(values.tolist()):
            result = self.profile.level_points(self.event.decks, int(value))
            declarer[i], defenders[i] = result.declarer_levels, result.defenders_levels
        return declarer[inverse], defenders[inverse]

    def _score(self) -> None:
        import numpy as np

        counted = self.present[:, :, 0] & self.present[:, :, 1]
        self.counted: BoolArray = counted
        # home: E-W at A, N-S at B; away: N-S at A, E-W at B.
        home = self.ew_levels[:, :, 0] + self.ns_levels[:, :, 1]
        away = self.ns_levels[:, :, 0] + self.ew_levels[:, :, 1]
        self.home_board: IntArray = np.where(counted, home, 0)
        self.away_board: IntArray = np.where(counted, away, 0)
        home_total = self.home_board.sum(axis=1)
        away_total = self.away_board.sum(axis=1)
        n_counted = counted.sum(axis=1)
        scores: list[MatchScore] = []
        for i, m in enumerate(self.matches):
            forfeiters = self.adjustments.forfeiters(m.round, m.id)
            if forfeiters:
                scores.append(self._forfeited(m, forfeiters))
                continue
            h, a, c = int(home_total[i]), int(away_total[i]), int(n_counted[i])
            if c:
                dh, da = self.level_shift(m)
                h, a = h + dh, a + da
                hmp, amp = self.profile.match_points_for(h, a), self.profile.match_points_for(a, h)
            else:
                hmp = amp = 0
            scores.append(MatchScore(
                m.round, m.id, m.home, m.away, m.set, h, a, c, self.event.boards_per_set, hmp, amp,
            ))
        self.scores = scores

    def _forfeited(self, m: Match, forfeiters: tuple[str, ...]) -> MatchScore:
        """The profile's forfeit: the other team wins with ``winner_levels_per_table`` at each of
        the match's tables (A and B; a level race: the event's ``tables``); the forfeiting team gets
        its ``forfeiter_match_points`` (a loss by default)."""
        rule = self.profile.forfeit
        lost = rule.forfeiter_match_points if rule.forfeiter_match_points is not None \
            else self.profile.match_points["loss"]
        won = self.profile.match_points["win"]
        levels = rule.winner_levels_per_table * self.event.tables
        home_out, away_out = m.home in forfeiters, m.away in forfeiters
        return MatchScore(
            m.round, m.id, m.home, m.away, m.set,
            0 if home_out else levels, 0 if away_out else levels, 0, self._units(),
            lost if home_out else won, lost if away_out else won, tuple(sorted(forfeiters)))

    def has_results(self) -> bool:
        """Whether any result is stored (counted or not)."""
        return bool(self.present.any())

    def _units(self) -> int:
        """What a match is scored over: boards (a level race: tables)."""
        return self.event.boards_per_set

    # --- per match ---------------------------------------------------------------------

    def score(self, round_number: int, match_id: str) -> MatchScore:
        return self.scores[self._index[(round_number, match_id)]]

    @property
    def match_sheets(self) -> dict[tuple[int, str], MatchSheet]:
        """Every played (not forfeited) match's sheet by (round, match), in the order of
        :attr:`scores`. Each sheet is made from the arrays once (:meth:`match_sheet` makes one
        alone, this the others a few hundred at a time) and kept."""
        made = self._made_sheets
        if len(made) < self._played_count:
            missing = [(i, s) for i, s in enumerate(self.scores)
                       if not s.forfeited_by and (s.round, s.match) not in made]
            for start in range(0, len(missing), _SHEET_CHUNK):
                for sheet in self._sheets(missing[start:start + _SHEET_CHUNK]):
                    made[(sheet.score.round, sheet.score.match)] = sheet
        return {(s.round, s.match): made[(s.round, s.match)] for s in self.scores if not s.forfeited_by}

    @functools.cached_property
    def _made_sheets(self) -> dict[tuple[int, str], MatchSheet]:
        return {}

    @functools.cached_property
    def _played_count(self) -> int:
        return sum(1 for s in self.scores if not s.forfeited_by)

    def _sheets(self, part: Sequence[tuple[int, MatchScore]]) -> list[MatchSheet]:
        """The sheets of some matches (index, score), made together: one array of every value
        of every board, made into Python values at once."""
        import numpy as np

        index = np.fromiter((i for i, _s in part), dtype=np.int64, count=len(part))
        home, away = self.home_board[index], self.away_board[index]
        stacked = np.concatenate([
            self.present[index], self.points[index], self.ns_levels[index], self.ew_levels[index],
            self.trumps[index], np.stack([self.counted[index], home, away, np.cumsum(home, axis=1),
                                          np.cumsum(away, axis=1)], axis=2)], axis=2, dtype=np.int64).tolist()
        conditions: dict[int, list[tuple[int, str, str]]] = {}
        sheets = []
        for (_i, s), values_of_boards in zip(part, stacked, strict=True):
            boards = conditions.get(s.set)
            if boards is None:
                boards = conditions[s.set] = [(c.number, c.declarer, c.level) for c in self.event.set_boards(s.set)]
            lines = []
            for (number, declarer, level), values in zip(boards, values_of_boards, strict=True):
                at_a, at_b, pa, pb, na, nb, ea, eb, ta, tb, both, h, a, hr, ar = values
                lines.append([
                    number, declarer, level,
                    pa if at_a else None, na if at_a else None, ea if at_a else None,
                    pb if at_b else None, nb if at_b else None, eb if at_b else None,
                    h if both else None, a if both else None, hr, ar, both, TRUMPS[ta] or None, TRUMPS[tb] or None])
            sheets.append(MatchSheet(s, lines))
        return sheets

    def match_sheet(self, round_number: int, match_id: str) -> MatchSheet | None:
        """One match's sheet (``None``: a forfeited match, which has none), made once (a site's
        rebuild renders a few match pages: only their sheets are made)."""
        key = (round_number, match_id)
        sheet = self._made_sheets.get(key)
        if sheet is None:
            i = self._index[key]
            score = self.scores[i]
            if score.forfeited_by:
                return None
            sheet = self._made_sheets[key] = self._sheets([(i, score)])[0]
        return sheet

    def sheet(self, round_number: int, match_id: str) -> list[BoardLine]:
        """The board-by-board sheet of one match with home/away running totals, as
        :class:`BoardLine` objects (read from :attr:`match_sheets`)."""
        sheet = self.match_sheet(round_number, match_id)
        if sheet is None:  # a forfeited match: its boards, none played
            score = self.score(round_number, match_id)
            sheet = self._sheets([(self._index[(round_number, match_id)], score)])[0]
        return [BoardLine(board=v[0], declarer=v[1], level=v[2], declarer_side=side_of(v[1]),
                          points=(v[3], v[6]), ns_levels=(v[4], v[7]), ew_levels=(v[5], v[8]),
                          home_levels=v[9], away_levels=v[10], home_running=v[11], away_running=v[12],
                          counted=bool(v[13]), trump=(v[14], v[15]))
                for v in sheet.boards]

    def missing(self, round_number: int | None = None) -> list[tuple[Match, list[tuple[int, str]]]]:
        """Per match (of one round or all), the (board, table) pairs that have no result."""
        out: list[tuple[Match, list[tuple[int, str]]]] = []
        for i, m in enumerate(self.matches):
            if round_number is not None and m.round != round_number:
                continue
            gaps = [
                (b + 1, TABLES[t])
                for b in range(self.event.boards_per_set)
                for t in (0, 1)
                if not self.present[i, b, t]
            ]
            out.append((m, gaps))
        return out

    # --- event ---------------------------------------------------------------------------

    def played_scores(self) -> list[MatchScore]:
        return [s for s in self.scores if s.played]

    def winner(self, round_number: int, match_id: str, seed_rank: Mapping[str, int]) -> str | None:
        """The team that goes through from a knockout match, or ``None`` while it is not complete
        (:meth:`advance`)."""
        found = self.advance(round_number, match_id, seed_rank)
        return None if found is None else found.team

    def advance(self, round_number: int, match_id: str, seed_rank: Mapping[str, int]) -> Advance | None:
        """Who goes through from a knockout match and why, or ``None`` while it is not complete.

        A draw is decided by the profile's ``knockout_tie_breaks``: more boards won, then the
        last board that differs (countback), then the better seed (``seed_rank``: 1 = best).
        """
        score = self.score(round_number, match_id)
        if not score.complete:
            return None
        if score.winner is not None:
            return Advance(score.winner)
        if score.forfeited_by:  # both teams forfeited: nobody goes through on a tie-break
            return None
        i = self._index[(round_number, match_id)]
        home_board, away_board = self.home_board[i], self.away_board[i]
        for rule in self.profile.knockout_tie_breaks:
            if rule == "boards_won":
                home_won = int((home_board > away_board).sum())
                away_won = int((away_board > home_board).sum())
                if home_won != away_won:
                    return Advance(score.home if home_won > away_won else score.away, rule, home_won, away_won)
            elif rule == "countback":
                for b in range(self.event.boards_per_set - 1, -1, -1):
                    if home_board[b] != away_board[b]:
                        return Advance(score.home if home_board[b] > away_board[b] else score.away, rule,
                                       int(home_board[b]), int(away_board[b]), b + 1)
            else:  # "higher_seed": always decides
                break
        return seed_advance(score, seed_rank)


def score_event(event: Event, results: ResultColumns | ResultGrid, adjustments: Adjustments | None = None
                ) -> ScoredEvent:
    """Score every match of ``event`` from its current result rows (or their grid) and the
    director's adjustments."""
    return ScoredEvent(event, results, adjustments)
