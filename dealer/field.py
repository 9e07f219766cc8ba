"""What the field says (docs/results.md, "The field's datum and the pairs' butler"): each board's
**datum**, each table's result against it, and each pair's and team's **butler** (its results
against the datum, summed), split by side (declarer side or defenders) and by the trump its
table chose.

* a table's result on a board: the N-S pair's level points minus the E-W pair's (positive when
  N-S gain);
* the board's datum: the mean of the results of every table that played it, the highest and the
  lowest left out when at least :data:`TRIM_FROM` tables played it (the profile's
  ``field = { datum = "mean" }`` chooses the plain mean);
* a pair's butler on a board: its table's result minus the datum, from its own side (E-W: the
  opposite sign); a pair is its two players where the line-up names them, else the team's pair
  at that table (A or B) over the rounds;
* left out of the datum and of every butler: a result of a forfeited match and a table's result
  of a board the director penalised or adjusted (a penalty naming the board), said so.

Pure domain code, no I/O: vectorized over the scoring's arrays ``[match, board, table]``
(a 2,000-team league's 640,000 results in a fraction of a second).
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from dealer.cards import side_of
from dealer.lineups import Lineups
from dealer.scoring import TABLES, TRUMPS, ScoredEvent

#: At least this many tables: the datum leaves out the highest and the lowest result.
TRIM_FROM = 6
#: The trump of a result as the field's figures name it (scoring's codes, 0: not recorded).
TRUMP_NAMES = (None, "♠", "♥", "♣", "♦", "NT")
#: Why a stored result is left out of the datum (``left_out``).
LEFT_OUT = ("forfeit", "penalty")
#: A pair is ranked when it played at least this share of the most boards any pair played.
RANKED_SHARE = 0.5


def round2(value: float) -> float:
    """A figure to two decimals (never "-0.0")."""
    return round(float(value), 2) + 0.0  # no "-0.0"


@dataclass(frozen=True)
class PairKey:
    """A pair: its team, its two players (a line-up names them) or, without, its table."""

    team: str
    players: tuple[str, ...] = ()
    table: str | None = None


@dataclass
class PairFigures:
    """A pair's (or a team's) figures: boards, butler, and the splits."""

    key: PairKey
    boards: int = 0
    butler: float = 0.0
    declarer_boards: int = 0
    as_declarer: float = 0.0
    defender_boards: int = 0
    as_defenders: float = 0.0
    #: trump (``TRUMP_NAMES``, ``None``: not recorded) → (boards, butler)
    by_trump: dict[str | None, tuple[int, float]] = field(default_factory=dict)
    rank: int | None = None  # in the "pairs in teams" ranking (``None``: too few boards)

    @property
    def per_board(self) -> float | None:
        return None if not self.boards else round2(self.butler / self.boards)

    def as_dict(self) -> dict[str, Any]:
        k = self.key
        return {"team": k.team, "players": list(k.players), "table": k.table, "rank": self.rank,
                "boards": self.boards, "butler": round2(self.butler), "per_board": self.per_board,
                "as_declarer": round2(self.as_declarer), "declarer_boards": self.declarer_boards,
                "as_defenders": round2(self.as_defenders), "defender_boards": self.defender_boards,
                "by_trump": [{"trump": t, "boards": n, "butler": round2(b)} for t, (n, b) in self.by_trump.items()]}


@dataclass(frozen=True)
class BoardFigures:
    """One board's datum over the field: how many tables counted, and what was left out."""

    set: int
    board: int
    declarer: str
    datum: float | None
    tables: int  # the results the datum is the mean of (before trimming)
    trimmed: bool
    left_out: int


class FieldStats:
    """The field's figures of a scored boards event (see the module docstring).

    ``sets``: only these sets count (the public site: the released ones); ``whole_field``: only
    boards every table that plays them (matches not forfeited) has a result of."""

    def __init__(self, scored: ScoredEvent, lineups: Lineups, *, sets: Collection[int] | None = None,
                 whole_field: bool = False) -> None:
        import numpy as np

        event = scored.event
        self.event = event
        self.scored = scored
        self.rule = event.profile.datum
        matches = scored.matches
        n_boards = event.boards_per_set
        self.match_sets = np.fromiter((m.set for m in matches), dtype=np.int64, count=len(matches))
        forfeited = np.fromiter((bool(s.forfeited_by) for s in scored.scores), dtype=np.bool_, count=len(matches))
        present = scored.present
        stored = present & ~forfeited[:, None, None]
        penalised = np.zeros(present.shape, dtype=np.bool_)
        index = {(m.round, m.id): i for i, m in enumerate(matches)}
        for p in scored.adjustments.penalties:
            i = index.get((p.round, p.match))
            if i is None or p.board is None or not 1 <= p.board <= n_boards:
                continue
            cols = [TABLES.index(p.table)] if p.table in TABLES else [0, 1]
            penalised[i, p.board - 1, cols] = True
        counted = stored & ~penalised
        # boards that count at all (public: released sets, played by the whole field)
        wanted = np.ones((len(matches), n_boards), dtype=np.bool_)
        if sets is not None:
            wanted &= np.isin(self.match_sets, np.fromiter(sets, dtype=np.int64))[:, None]
        if whole_field:
            waiting = ~(present[:, :, 0] & present[:, :, 1]) & ~forfeited[:, None]
            for s in np.unique(self.match_sets).tolist():
                rows = self.match_sets == s
                open_boards = waiting[rows].any(axis=0)
                wanted[np.ix_(rows, open_boards)] = False
        self.wanted = wanted
        self.counted = counted & wanted[:, :, None]
        self.left = ((present & forfeited[:, None, None]) | (stored & penalised)) & wanted[:, :, None]
        self.left_why = np.broadcast_to(np.where(forfeited, 0, 1).astype(np.int8)[:, None, None], present.shape)
        self.net = (scored.ns_levels - scored.ew_levels).astype(np.float64)
        self._datum()
        self._pairs(lineups)

    # --- the datum of each board ------------------------------------------------------------

    def _datum(self) -> None:
        import numpy as np

        event = self.event
        n_boards = event.boards_per_set
        shape = (event.sets + 1, n_boards)
        total, count = np.zeros(shape), np.zeros(shape, dtype=np.int64)
        high, low = np.full(shape, -np.inf), np.full(shape, np.inf)
        net, counted = self.net, self.counted
        sets = self.match_sets
        for s in np.unique(sets).tolist():
            rows = sets == s
            values = net[rows]  # [matches, boards, tables]
            mask = counted[rows]
            total[s] = np.where(mask, values, 0.0).sum(axis=(0, 2))
            count[s] = mask.sum(axis=(0, 2))
            high[s] = np.where(mask, values, -np.inf).max(axis=(0, 2), initial=-np.inf)
            low[s] = np.where(mask, values, np.inf).min(axis=(0, 2), initial=np.inf)
        trim = (count >= TRIM_FROM) if self.rule == "trimmed" else np.zeros(shape, dtype=np.bool_)
        with np.errstate(invalid="ignore", divide="ignore"):
            datum = np.where(trim, (total - np.where(trim, high + low, 0.0)) / np.maximum(count - 2 * trim, 1),
                             total / np.maximum(count, 1))
        datum = np.where(count > 0, datum, np.nan)
        self.datum_by_set = datum  # [set, board]; NaN: no table counted
        self.tables_by_set = count
        self.trimmed_by_set = trim
        cell_datum = datum[sets]  # [match, board]
        self.vs = np.where(self.counted, self.net - cell_datum[:, :, None], 0.0)  # N-S side

    @functools.cached_property
    def shown(self) -> Any:
        """The results every output lists: counted, or left out and said so."""
        return self.counted | self.left

    @functools.cached_property
    def boards(self) -> list[BoardFigures]:
        """Every board that has a counted (or left-out) result, by set and board."""
        import numpy as np

        left = np.zeros(self.datum_by_set.shape, dtype=np.int64)
        any_left = self.left.sum(axis=2)
        for s in np.unique(self.match_sets).tolist():
            left[s] = any_left[self.match_sets == s].sum(axis=0)
        found = []
        for s, b in zip(*np.nonzero((self.tables_by_set > 0) | (left > 0)), strict=True):
            s, b = int(s), int(b)
            datum = self.datum_by_set[s, b]
            found.append(BoardFigures(s, b + 1, self.event.schedule[(s, b + 1)].declarer,
                                      None if np.isnan(datum) else round2(datum), int(self.tables_by_set[s, b]),
                                      bool(self.trimmed_by_set[s, b]), int(left[s, b])))
        return found

    def board_results(self, set_number: int, board: int) -> list[dict[str, Any]]:
        """Every table's result of one board (matches in the event's order, table A then B):
        round, match, table, ``ns`` (the table's result from N-S's side), ``vs_datum`` (``None``:
        left out, ``left_out`` says why), the trump its table chose, the N-S and E-W teams."""
        import numpy as np

        rows = np.flatnonzero(self.match_sets == set_number)
        b = board - 1
        counted, left = self.counted[rows, b], self.left[rows, b]
        net, vs, trumps = self.net[rows, b].tolist(), self.vs[rows, b].tolist(), self.scored.trumps[rows, b].tolist()
        why = self.left_why[rows, b].tolist()
        out = []
        matches = self.scored.matches
        for k, i in enumerate(rows.tolist()):
            m = matches[i]
            for t in (0, 1):
                if not (counted[k, t] or left[k, t]):
                    continue
                seats = m.seats(TABLES[t])
                row: dict[str, Any] = {"round": m.round, "match": m.id, "table": TABLES[t], "ns": int(net[k][t]),
                                       "vs_datum": round2(vs[k][t]) if counted[k, t] else None,
                                       "trump": TRUMP_NAMES[trumps[k][t]], "ns_team": seats["NS"],
                                       "ew_team": seats["EW"]}
                if not counted[k, t]:
                    row["left_out"] = LEFT_OUT[why[k][t]]
                out.append(row)
        return out

    def result_rows(self) -> list[tuple[Any, ...]]:
        """Every table's result of every board, by set and board, then match and table, as
        lines of set, board, datum, round, match, table, N-S result, against the datum (``None``:
        left out), trump, N-S team, E-W team and why it is left out (``None``: counted); made
        column by column from the arrays (the XLSX's ``field`` sheet; ``field.csv`` and the JSON
        are made as text from the same cells, :mod:`dealer.report.field_text`)."""
        import numpy as np

        matches = self.scored.matches
        i, b, t, sets = self.result_cells

        def column(values: list[Any]) -> Any:
            found = np.empty(len(values), dtype=object)
            found[:] = values
            return found

        rounds = np.fromiter((m.round for m in matches), dtype=np.int64, count=len(matches))
        match_ids = column([m.id for m in matches])
        home, away = column([m.home for m in matches]), column([m.away for m in matches])
        counted = self.counted[i, b, t]
        datum = np.round(self.datum_by_set[sets, b], 2) + 0.0
        vs = np.where(counted, np.round(self.vs[i, b, t], 2) + 0.0, np.nan)
        at_a = t == 0
        why = column(list(LEFT_OUT))[self.left_why[i, b, t]]
        why[counted] = None
        columns = [sets.tolist(), (b + 1).tolist(), _none_for_nan(datum), rounds[i].tolist(), match_ids[i].tolist(),
                   column(list(TABLES))[t].tolist(), self.net[i, b, t].astype(np.int64).tolist(), _none_for_nan(vs),
                   column(list(TRUMP_NAMES))[self.scored.trumps[i, b, t]].tolist(),
                   np.where(at_a, away[i], home[i]).tolist(), np.where(at_a, home[i], away[i]).tolist(),
                   why.tolist()]
        return list(zip(*columns, strict=True))

    @property
    def result_count(self) -> int:
        """How many lines :meth:`result_rows` gives."""
        return len(self.result_cells[0])

    @functools.cached_property
    def result_cells(self) -> tuple[Any, Any, Any, Any]:
        """The cells :meth:`result_rows` lists, in its order: (match, board, table, set)."""
        import numpy as np

        i, b, t = np.nonzero(self.shown)
        sets = self.match_sets[i]
        order = np.lexsort((t, i, b, sets))
        return i[order], b[order], t[order], sets[order]

    def _set_rows(self, set_number: int) -> Any:
        """The indexes of the matches playing ``set_number`` (kept: a set's 16 boards ask)."""
        import numpy as np

        rows = self._rows_of_set.get(set_number)
        if rows is None:
            rows = self._rows_of_set[set_number] = np.flatnonzero(self.match_sets == set_number)
        return rows

    @functools.cached_property
    def _rows_of_set(self) -> dict[int, Any]:
        return {}

    def _result(self, i: int, b: int, t: int) -> dict[str, Any]:
        """One table's result of a board (as :meth:`board_results` gives it)."""
        m = self.scored.matches[i]
        seats = m.seats(TABLES[t])
        counted = bool(self.counted[i, b, t])
        row: dict[str, Any] = {"round": m.round, "match": m.id, "table": TABLES[t], "ns": int(self.net[i, b, t]),
                               "vs_datum": round2(self.vs[i, b, t]) if counted else None,
                               "trump": TRUMP_NAMES[int(self.scored.trumps[i, b, t])], "ns_team": seats["NS"],
                               "ew_team": seats["EW"]}
        if not counted:
            row["left_out"] = LEFT_OUT[int(self.left_why[i, b, t])]
        return row

    def board_review(self, set_number: int, board: int, swings: int = 5) -> dict[str, Any] | None:
        """The board review of one board (``None``: no table counted): the datum, the field's
        spread (each result and how many tables had it), the biggest swings (the results
        farthest from the datum) and each trump chosen, with how many tables chose it, their
        mean result and mean against the datum, from N-S's side and from the declarer side's.
        Made from the board's column of the arrays (a league's board: 2,000 tables)."""
        import numpy as np

        rows, b = self._set_rows(set_number), board - 1
        counted = self.counted[rows, b]  # [match, table]
        if not counted.any():
            return None
        k, t = np.nonzero(counted)
        ns = self.net[rows, b][counted].astype(np.int64)
        vs = self.vs[rows, b][counted]
        trumps = self.scored.trumps[rows, b][counted].astype(np.int64)
        declarer_ns = side_of(self.event.schedule[(set_number, board)].declarer) == "NS"
        sign = 1 if declarer_ns else -1
        values, counts = np.unique(ns, return_counts=True)
        choices: list[dict[str, Any]] = []
        for code in np.unique(trumps).tolist():
            chosen = trumps == code
            n = int(chosen.sum())
            mean_vs = float(vs[chosen].mean())
            choices.append({"trump": TRUMP_NAMES[code], "tables": n, "mean_ns": round2(ns[chosen].mean()),
                            "mean_vs_datum": round2(mean_vs), "declarer_vs_datum": round2(sign * mean_vs),
                            "declarer_gained": int((sign * vs[chosen] > 0).sum())})
        choices.sort(key=lambda c: (-c["tables"], c["trump"] or "~"))
        order = np.lexsort((t, k, -np.abs(np.round(vs, 2))))[:swings]
        left_k, left_t = np.nonzero(self.left[rows, b])
        return {"set": set_number, "board": board, "datum": round2(self.datum_by_set[set_number, b]), "rule": self.rule,
                "tables": int(self.tables_by_set[set_number, b]), "trimmed": bool(self.trimmed_by_set[set_number, b]),
                "declarer_side": "NS" if declarer_ns else "EW",
                "spread": [{"ns": v, "tables": n} for v, n in zip(values.tolist()[::-1], counts.tolist()[::-1],
                                                                   strict=True)],
                "lowest": int(ns.min()), "highest": int(ns.max()),
                "swings": [self._result(int(rows[k[j]]), b, int(t[j])) for j in order.tolist()],
                "trumps": choices,
                "left_out": [self._result(int(rows[kk]), b, tt) for kk, tt in zip(left_k.tolist(), left_t.tolist(),
                                                                                   strict=True)]}

    # --- pairs and teams -------------------------------------------------------------------

    def _pairs(self, lineups: Lineups) -> None:
        import numpy as np

        scored = self.scored
        keys: dict[PairKey, int] = {}
        seat_order = {t.id: {p: j for j, p in enumerate(t.players)} for t in self.event.teams}

        by_table: dict[tuple[str, str], int] = {}  # a team's pair at a table (no line-up): made once

        def pair_id(round_number: int, team: str, table: str) -> int:
            players = lineups.pair(round_number, team, table) if lineups else ()
            if players:
                seats = seat_order.get(team, {})
                key = PairKey(team, tuple(sorted(players, key=lambda p: seats.get(p, 99))), None)
                return keys.setdefault(key, len(keys))
            found = by_table.get((team, table))
            if found is None:
                found = by_table[(team, table)] = keys.setdefault(PairKey(team, (), table), len(keys))
            return found

        n = len(scored.matches)
        ids = np.zeros((n, 2, 2), dtype=np.int64)  # [match, table, side 0 = N-S, 1 = E-W]
        for i, m in enumerate(scored.matches):
            for t, table in enumerate(TABLES):
                seats = m.seats(table)
                ids[i, t, 0] = pair_id(m.round, seats["NS"], table)
                ids[i, t, 1] = pair_id(m.round, seats["EW"], table)
        self.pair_keys = list(keys)
        self.pair_ids = ids
        ns_declarer = np.zeros((self.event.sets + 1, self.event.boards_per_set), dtype=np.bool_)
        for (s, number), cond in self.event.schedule.items():
            ns_declarer[s, number - 1] = side_of(cond.declarer) == "NS"
        self.ns_declarer = ns_declarer[self.match_sets]  # [match, board]

    @functools.cached_property
    def pairs(self) -> list[PairFigures]:
        """Every pair that has a counted board, with its figures, ranked (:data:`RANKED_SHARE`)."""
        import numpy as np

        size = len(self.pair_keys)
        counted, vs = self.counted, self.vs
        n_boards = self.event.boards_per_set
        ids = np.broadcast_to(self.pair_ids[:, None, :, :], (len(self.scored.matches), n_boards, 2, 2))
        mask = np.stack([counted, counted], axis=3)  # [match, board, table, side]
        butler = np.stack([vs, -vs], axis=3)
        declarer = np.stack([np.broadcast_to(self.ns_declarer[:, :, None], counted.shape),
                             np.broadcast_to(~self.ns_declarer[:, :, None], counted.shape)], axis=3)
        trumps = np.broadcast_to(self.scored.trumps[:, :, :, None], mask.shape).astype(np.int64)
        who, value = ids[mask], butler[mask]
        decl, trump = declarer[mask], trumps[mask]
        boards = np.bincount(who, minlength=size)
        total = np.bincount(who, weights=value, minlength=size)
        d_boards = np.bincount(who[decl], minlength=size)
        d_total = np.bincount(who[decl], weights=value[decl], minlength=size)
        codes = len(TRUMPS)
        t_boards = np.bincount(who * codes + trump, minlength=size * codes).reshape(size, codes)
        t_total = np.bincount(who * codes + trump, weights=value, minlength=size * codes).reshape(size, codes)
        found = []
        for p, key in enumerate(self.pair_keys):
            if not boards[p]:
                continue
            by_trump = {TRUMP_NAMES[c]: (int(t_boards[p, c]), float(t_total[p, c]))
                        for c in (1, 2, 3, 4, 5, 0) if t_boards[p, c]}
            found.append(PairFigures(key, int(boards[p]), float(total[p]), int(d_boards[p]), float(d_total[p]),
                                     int(boards[p] - d_boards[p]), float(total[p] - d_total[p]), by_trump))
        return rank_pairs(found)

    @functools.cached_property
    def teams(self) -> list[PairFigures]:
        """Each team's figures: its pairs' together (every board it played, at both tables)."""
        found: dict[str, PairFigures] = {}
        for pair in self.pairs:
            team = found.setdefault(pair.key.team, PairFigures(PairKey(pair.key.team)))
            team.boards += pair.boards
            team.butler += pair.butler
            team.declarer_boards += pair.declarer_boards
            team.as_declarer += pair.as_declarer
            team.defender_boards += pair.defender_boards
            team.as_defenders += pair.as_defenders
            for trump, (n, b) in pair.by_trump.items():
                before = team.by_trump.get(trump, (0, 0.0))
                team.by_trump[trump] = (before[0] + n, before[1] + b)
        return rank_pairs(list(found.values()))

    @functools.cached_property
    def _pair_cells(self) -> tuple[Any, ...]:
        """Every counted cell once per side, sorted by pair, then match, board and table: the
        arrays (match, board, table, side) and where each pair's run starts (made at once: a
        league's 1.3 million)."""
        import numpy as np

        m, b, t = np.nonzero(self.counted)
        ids = np.concatenate([self.pair_ids[m, t, 0], self.pair_ids[m, t, 1]])
        side = np.concatenate([np.zeros(m.size, dtype=np.int64), np.ones(m.size, dtype=np.int64)])
        m, b, t = np.concatenate([m, m]), np.concatenate([b, b]), np.concatenate([t, t])
        order = np.lexsort((side, t, b, m, ids))
        starts = np.searchsorted(ids[order], np.arange(len(self.pair_keys) + 1))
        return m[order], b[order], t[order], side[order], starts

    @functools.cached_property
    def _pair_index(self) -> dict[PairKey, int]:
        return {key: p for p, key in enumerate(self.pair_keys)}

    def prepare(self) -> None:
        """Make what :meth:`pair_boards` reads now (before worker processes are forked: once)."""
        _ = self._pair_cells, self._pair_index, self.pairs

    def _cells_of(self, key: PairKey) -> tuple[Any, Any, Any, Any] | None:
        """A pair's counted boards as arrays (match, board, table, side: 0 N-S, 1 E-W), or
        ``None`` for a pair the field does not know."""
        p = self._pair_index.get(key)
        if p is None:
            return None
        m, b, t, side, starts = self._pair_cells
        part = slice(int(starts[p]), int(starts[p + 1]))
        return m[part], b[part], t[part], side[part]

    def pair_rounds(self, key: PairKey) -> list[dict[str, Any]]:
        """A pair's figures match by match (round, match, table, boards, butler, as declarer
        side and as defenders), made from its boards at once."""
        import numpy as np

        cells = self._cells_of(key)
        if cells is None:
            return []
        i, bb, tt, ss = cells
        if not i.size:
            return []
        butler = self.vs[i, bb, tt] * (1 - 2 * ss)
        declarer = self.ns_declarer[i, bb] == (ss == 0)
        found, index = np.unique(i, return_inverse=True)
        boards = np.bincount(index)
        total = np.bincount(index, weights=butler)
        as_declarer = np.bincount(index, weights=np.where(declarer, butler, 0.0), minlength=found.size)
        first = np.searchsorted(index, np.arange(found.size))  # cells are sorted by match
        matches = self.scored.matches
        return [{"round": matches[i_].round, "match": matches[i_].id, "table": TABLES[int(tt[f])],
                 "side": "NS" if ss[f] == 0 else "EW", "boards": int(n), "butler": round2(v),
                 "as_declarer": round2(d), "as_defenders": round2(v - d)}
                for i_, f, n, v, d in zip(found.tolist(), first.tolist(), boards.tolist(), total.tolist(),
                                          as_declarer.tolist(), strict=True)]

    @property
    def cells(self) -> int:
        """The pairs' counted boards in all (each table's result counts for both its pairs)."""
        return int(self._pair_cells[4][-1])

    def pair_boards(self, key: PairKey) -> list[dict[str, Any]]:
        """The boards a pair played (counted), each with its round, set, board, table, side,
        whether it was the declarer side, the trump, its result and butler there."""
        cells = self._cells_of(key)
        if cells is None:
            return []
        i, bb, tt, ss = cells
        sign = 1 - 2 * ss
        butler = (self.vs[i, bb, tt] * sign).round(2) + 0.0
        declarer = self.ns_declarer[i, bb] == (ss == 0)
        matches = self.scored.matches
        out = []
        for i_, b_, t_, s_, d_, tr, ns, v in zip(
                i.tolist(), bb.tolist(), tt.tolist(), ss.tolist(), declarer.tolist(),
                self.scored.trumps[i, bb, tt].tolist(), self.net[i, bb, tt].astype(int).tolist(), butler.tolist(),
                strict=True):
            match = matches[i_]
            out.append({"round": match.round, "match": match.id, "set": match.set, "board": b_ + 1,
                        "table": TABLES[t_], "side": "NS" if s_ == 0 else "EW", "declarer": d_,
                        "trump": TRUMP_NAMES[tr], "ns": ns, "butler": v})
        return out

    @staticmethod
    def board_dict_light(figures: BoardFigures) -> dict[str, Any]:
        return {"set": figures.set, "board": figures.board, "declarer": figures.declarer, "datum": figures.datum,
                "tables": figures.tables, "trimmed": figures.trimmed, "left_out": figures.left_out}


def _none_for_nan(values: Any) -> list[float | None]:
    """A float array as a list, ``None`` where it is NaN."""
    import numpy as np

    found = values.astype(object)
    found[np.isnan(values)] = None
    return list(found.tolist())


def rank_pairs(found: list[PairFigures]) -> list[PairFigures]:
    """``found`` ranked by butler a board (most first; equal: the same rank), those that played
    fewer than :data:`RANKED_SHARE` of the most boards any of them played after, unranked."""
    most = max((p.boards for p in found), default=0)
    ranked = [p for p in found if p.boards >= most * RANKED_SHARE]
    others = [p for p in found if p.boards < most * RANKED_SHARE]
    ranked.sort(key=lambda p: (-(p.per_board or 0.0), p.key.team, p.key.players, p.key.table or ""))
    previous: float | None = None
    for n, p in enumerate(ranked, start=1):
        p.rank = n if p.per_board != previous else ranked[n - 2].rank
        previous = p.per_board
    others.sort(key=lambda p: (-p.boards, -(p.per_board or 0.0), p.key.team, p.key.players))
    for p in others:
        p.rank = None
    return ranked + others


def field_stats(scored: Any, lineups: Lineups, *, sets: Collection[int] | None = None,
                whole_field: bool = False) -> FieldStats | None:
    """The field's figures of ``scored`` (``None`` for a level race, which plays no boards)."""
    if scored.event.levels or not isinstance(scored, ScoredEvent) or getattr(scored, "grid", None) is None:
        return None
    return FieldStats(scored, lineups, sets=sets, whole_field=whole_field)

