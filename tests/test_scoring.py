"""Scoring: the hand-worked 16-board match through CSV import, incomplete boards, standings."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from conftest import report_of
from test_results_support import (
    AWAY_TOTAL,
    EVENT_TOML,
    HAND,
    HEADER,
    HOME_TOTAL,
    MARGIN,
    hand_rows,
    run,
    write_csv,
    write_event,
)

from dealer.errors import ScoringError
from dealer.event import Event
from dealer.files import load_event, load_event_text
from dealer.resources import load_profile
from dealer.scoring import MatchScore, ResultColumns, score_event
from dealer.standings import TIE_BREAKS, rank, standings
from dealer.store.folder import EventFolder


def _import(tmp_path: Path, rows: list[list[object]]) -> Path:
    event_path = write_event(tmp_path)
    csv_path = write_csv(tmp_path / "travellers.csv", HEADER, rows)
    result = run("results", "import", str(event_path), str(csv_path), "--boards-dir", str(tmp_path / "boards"))
    assert result.exit_code == 0, result.output
    return event_path


def test_hand_worked_match_through_csv_import(tmp_path: Path) -> None:
    event_path = _import(tmp_path, hand_rows())
    event = load_event(event_path)
    data = report_of(event, EventFolder(event.id, tmp_path / "boards"))
    sheet = data.scored.sheet(1, "1")
    assert len(sheet) == 16
    home_running = away_running = 0
    for line in sheet:
        a, b, a_lv, b_lv, home, away = HAND[line.board]
        assert line.points == (a, b)
        assert (line.ns_levels[0], line.ew_levels[0]) == a_lv, line.board
        assert (line.ns_levels[1], line.ew_levels[1]) == b_lv, line.board
        assert (line.home_levels, line.away_levels) == (home, away), line.board
        home_running += home
        away_running += away
        assert (line.home_running, line.away_running) == (home_running, away_running)
        assert line.counted
    score = data.scored.score(1, "1")
    assert (score.home_levels, score.away_levels, score.margin) == (HOME_TOTAL, AWAY_TOTAL, MARGIN)
    assert score.complete and score.winner == "H"
    assert (score.home_match_points, score.away_match_points) == (2, 0)

    out = run("report", str(event_path), "--json", "--boards-dir", str(tmp_path / "boards"))
    payload = json.loads(out.output)
    match = next(m for m in payload["matches"] if m["match"] == "1")
    assert match == {**match, "home": "H", "away": "V", "home_level_points": 33,
                     "away_level_points": 27, "margin": 6, "complete": True}
    first = payload["standings"][0]
    assert first == {"rank": 1, "team": "H", "match_points": 2, "level_points_for": 33,
                     "level_points_against": 27, "net_level_points": 6, "played": 1, "byes": 0,
                     "adjustment": 0, "shared": False,
                     "tie_breaks": {"net_level_points": 6, "level_points_for": 33}}


def test_board_counts_only_when_both_tables_have_it(tmp_path: Path) -> None:
    rows = [r for r in hand_rows() if not (r[3] == 16 and r[2] == "B")]
    event_path = _import(tmp_path, rows)
    data = report_of(load_event(event_path), EventFolder("hand", tmp_path / "boards"))
    score = data.scored.score(1, "1")
    assert (score.home_levels, score.away_levels) == (HOME_TOTAL - 3, AWAY_TOTAL - 1)
    assert score.boards_counted == 15 and not score.complete
    last = data.scored.sheet(1, "1")[-1]
    assert last.points == (125, None) and not last.counted and last.home_levels is None


def test_table_levels_credit_the_right_side() -> None:
    # Through the production (vectorized) path: one table result per board, declarers from the
    # default schedule (board 1 N, 2 E, 3 S).
    event = load_event_text(EVENT_TOML, "hand")
    rows = [(1, "1", "A", 1, 0), (1, "1", "A", 2, 0), (1, "1", "B", 2, 160), (1, "1", "A", 3, 100)]
    sheet = score_event(event, ResultColumns.from_rows(rows)).sheet(1, "1")
    levels = {(line.board, t): (line.ns_levels[i], line.ew_levels[i])
              for line in sheet for i, t in enumerate("AB") if line.points[i] is not None}
    assert [line.declarer for line in sheet[:3]] == ["N", "E", "S"]
    assert levels == {
        (1, "A"): (3, 0),    # N declares, 0 points: declarer N-S +3
        (2, "A"): (0, 3),    # E declares, 0 points: declarer E-W +3
        (2, "B"): (2, 0),    # E declares, 160 points: defenders N-S 1 + 1
        (3, "A"): (0, 0),    # S declares, 100 points: 上台, nobody scores
    }


def _event(tie_breaks: list[str], mixed: tuple[str, ...] = ()) -> Event:
    event = load_event_text(EVENT_TOML, "hand")
    profile = dataclasses.replace(load_profile("official-2002"), tie_breaks=tuple(tie_breaks))
    teams = tuple(dataclasses.replace(t, mixed_club=t.id in mixed) for t in event.teams)
    return dataclasses.replace(event, profile=profile, teams=teams)


def _score(rnd: int, home: str, away: str, h: int, a: int) -> MatchScore:
    mp = {True: 2, False: 0}
    return MatchScore(rnd, "1", home, away, 1, h, a, 16, 16,
                      mp[h > a] if h != a else 1, mp[a > h] if h != a else 1)


def test_standings_tie_break_chain() -> None:
    # H and V both win once and lose once with the same net level points; X beat Y.
    scores = [
        _score(1, "H", "V", 30, 20),   # H beats V
        _score(2, "V", "X", 40, 30),   # V beats X
        _score(3, "X", "H", 30, 20),   # X beats H
        _score(4, "Y", "H", 10, 30),   # H beats Y
        _score(5, "Y", "V", 10, 30),   # V beats Y
        _score(6, "X", "Y", 30, 10),   # X beats Y
    ]
    # MP: H 4, V 4, X 4, Y 0; net +20 each; level points for: H 80, V 90, X 90.
    event = _event(["net_level_points", "level_points_for", "head_to_head"])
    table = rank(event, scores)
    assert [s.team for s in table] == ["V", "X", "H", "Y"]
    # V and X are still level after level points for; head-to-head: V beat X.
    assert table[0].tie_values["head_to_head"] == 2 and table[1].tie_values["head_to_head"] == 0
    assert [s.rank for s in table] == [1, 2, 3, 4]

    event = _event(["mixed_club", "net_level_points"], mixed=("V",))
    table = rank(event, scores)
    # Seed 002: teams formed across 分会 (mixed club) rank first when all else is level.
    assert [s.team for s in table][:3] == ["V", "H", "X"]
    assert table[1].shared and table[0].rank == 1 and table[1].rank == table[2].rank == 2

    event = _event(["opponents_match_points", "game_ratio"])
    table = rank(event, scores)
    assert {s.team: s.tie_values["opponents_match_points"] for s in table[:3]} == {"H": 8, "V": 8, "X": 8}
    assert [s.team for s in table][:3] == ["H", "V", "X"]  # game ratio 80/60 > 90/70 = 90/70, then id


def test_the_chains_names_are_the_standings_functions() -> None:
    """An event's chain is checked against the names in dealer.profiles (no scoring code loaded
    to read an event): they are the standings' functions, in order."""
    from dealer.profiles import TIE_BREAK_KEYS
    from dealer.standings import TIE_BREAKS

    assert tuple(TIE_BREAKS) == TIE_BREAK_KEYS


def test_unknown_tie_break_key_is_an_error_not_skipped(tmp_path: Path) -> None:
    event = _event(["net_level_points", "coin_toss"])
    with pytest.raises(ScoringError, match="unknown tie-break 'coin_toss'") as caught:
        rank(event, [_score(1, "H", "V", 30, 20)])
    assert f"known: {', '.join(TIE_BREAKS)}" in str(caught.value)
    with pytest.raises(ScoringError, match="coin_toss"):
        standings(score_event(event, ResultColumns.from_rows([])))
    # Every known key is accepted.
    assert len(rank(_event(list(TIE_BREAKS)), [_score(1, "H", "V", 30, 20)])) == 4


def test_empty_results_score_to_nothing(tmp_path: Path) -> None:
    event = load_event(write_event(tmp_path))
    scored = score_event(event, ResultColumns.from_rows([]))
    assert all(not s.played for s in scored.scores)
    assert [s.played for s in standings(scored)] == [0, 0, 0, 0]
