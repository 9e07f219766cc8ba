"""Every band edge of DESIGN §4 for every profile and deck count, and `dealer rules`."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from conftest import run_dealer as run

from dealer.profiles import ProfileError, profile_from_mapping
from dealer.resources import load_profile, profile_ids

D, T, F = "declarer", "tai", "defenders"

# (profile, decks, defenders' points, expected outcome, levels for that side)
EDGES = [
    # official-2002, 2 decks: s = 40, T = 80
    ("official-2002", 2, -85, D, 6), ("official-2002", 2, -80, D, 5), ("official-2002", 2, -45, D, 5),
    ("official-2002", 2, -40, D, 4), ("official-2002", 2, -5, D, 4), ("official-2002", 2, 0, D, 3),
    ("official-2002", 2, 5, D, 2), ("official-2002", 2, 35, D, 2), ("official-2002", 2, 40, D, 1),
    ("official-2002", 2, 75, D, 1), ("official-2002", 2, 80, T, 0), ("official-2002", 2, 115, T, 0),
    ("official-2002", 2, 120, F, 1), ("official-2002", 2, 155, F, 1), ("official-2002", 2, 160, F, 2),
    ("official-2002", 2, 195, F, 2), ("official-2002", 2, 200, F, 3), ("official-2002", 2, 235, F, 3),
    ("official-2002", 2, 240, F, 4),
    # official-2002, 1 deck: s = 20, T = 40; the text: declarer-side 65–80 (P 20–35) → +1,
    # 105–120 (P −5…−20) → +4
    ("official-2002", 1, -25, D, 5), ("official-2002", 1, -20, D, 4), ("official-2002", 1, -5, D, 4),
    ("official-2002", 1, 0, D, 3), ("official-2002", 1, 5, D, 2), ("official-2002", 1, 15, D, 2),
    ("official-2002", 1, 20, D, 1), ("official-2002", 1, 35, D, 1), ("official-2002", 1, 40, T, 0),
    ("official-2002", 1, 55, T, 0), ("official-2002", 1, 60, F, 1), ("official-2002", 1, 75, F, 1),
    ("official-2002", 1, 80, F, 2),
    # official-2002, 3 decks: s = 60, T = 120; the text: 上台 120–175, 升一级上台 180–235,
    # 连升四级 for P −5…−60
    ("official-2002", 3, -65, D, 5), ("official-2002", 3, -60, D, 4), ("official-2002", 3, -5, D, 4),
    ("official-2002", 3, 0, D, 3), ("official-2002", 3, 5, D, 2), ("official-2002", 3, 55, D, 2),
    ("official-2002", 3, 60, D, 1), ("official-2002", 3, 115, D, 1), ("official-2002", 3, 120, T, 0),
    ("official-2002", 3, 175, T, 0), ("official-2002", 3, 180, F, 1), ("official-2002", 3, 235, F, 1),
    ("official-2002", 3, 240, F, 2),
    # renmin-shuangsheng: P ≤ 0 → +3 (no more below 0), cap 5 for the defenders
    ("renmin-shuangsheng", 2, -200, D, 3), ("renmin-shuangsheng", 2, -5, D, 3),
    ("renmin-shuangsheng", 2, 0, D, 3), ("renmin-shuangsheng", 2, 5, D, 2),
    ("renmin-shuangsheng", 2, 35, D, 2), ("renmin-shuangsheng", 2, 40, D, 1),
    ("renmin-shuangsheng", 2, 75, D, 1), ("renmin-shuangsheng", 2, 80, T, 0),
    ("renmin-shuangsheng", 2, 115, T, 0), ("renmin-shuangsheng", 2, 120, F, 1),
    ("renmin-shuangsheng", 2, 155, F, 1), ("renmin-shuangsheng", 2, 160, F, 2),
    ("renmin-shuangsheng", 2, 275, F, 4), ("renmin-shuangsheng", 2, 280, F, 5),
    ("renmin-shuangsheng", 2, 315, F, 5), ("renmin-shuangsheng", 2, 320, F, 5),
    ("renmin-shuangsheng", 2, 600, F, 5),
    # shenzhen-community: the national rules with two decks
    ("shenzhen-community", 2, -45, D, 5), ("shenzhen-community", 2, -40, D, 4),
    ("shenzhen-community", 2, -5, D, 4), ("shenzhen-community", 2, 0, D, 3),
    ("shenzhen-community", 2, 5, D, 2), ("shenzhen-community", 2, 35, D, 2),
    ("shenzhen-community", 2, 40, D, 1), ("shenzhen-community", 2, 75, D, 1),
    ("shenzhen-community", 2, 80, T, 0), ("shenzhen-community", 2, 115, T, 0),
    ("shenzhen-community", 2, 120, F, 1), ("shenzhen-community", 2, 160, F, 2),
    # four-deck-2v2: threshold 160, step 80, no caps
    ("four-deck-2v2", 4, -165, D, 5), ("four-deck-2v2", 4, -160, D, 4), ("four-deck-2v2", 4, -85, D, 4),
    ("four-deck-2v2", 4, -80, D, 3), ("four-deck-2v2", 4, -5, D, 3), ("four-deck-2v2", 4, 0, D, 2),
    ("four-deck-2v2", 4, 75, D, 2), ("four-deck-2v2", 4, 80, D, 1), ("four-deck-2v2", 4, 155, D, 1),
    ("four-deck-2v2", 4, 160, T, 0), ("four-deck-2v2", 4, 235, T, 0), ("four-deck-2v2", 4, 240, F, 1),
    ("four-deck-2v2", 4, 315, F, 1), ("four-deck-2v2", 4, 320, F, 2), ("four-deck-2v2", 4, 1000, F, 10),
]


@pytest.mark.parametrize(("profile_id", "decks", "points", "outcome", "levels"), EDGES)
def test_band_edges(profile_id: str, decks: int, points: int, outcome: str, levels: int) -> None:
    result = load_profile(profile_id).level_points(decks, points)
    assert result.outcome == outcome
    if outcome == D:
        assert (result.declarer_levels, result.defenders_levels) == (levels, 0)
    else:
        assert (result.declarer_levels, result.defenders_levels) == (0, levels)


def test_every_profile_and_deck_count_has_edge_tests() -> None:
    covered = {(p, d) for p, d, *_ in EDGES}
    for profile_id in profile_ids():
        for decks in load_profile(profile_id).supported_decks:
            assert (profile_id, decks) in covered


@pytest.mark.parametrize(("points", "defenders"), [(75, 0), (80, 1), (115, 1), (120, 2), (160, 3)])
def test_tai_counts_as_level_is_a_profile_setting(points: int, defenders: int) -> None:
    profile = replace(load_profile("official-2002"), tai_counts_as_level=True)
    result = profile.level_points(2, points)
    assert result.defenders_levels == defenders
    if points == 75:
        assert result.declarer_levels == 1


def test_the_cap_holds_with_tai_counting_as_a_level() -> None:
    profile = replace(load_profile("renmin-shuangsheng"), tai_counts_as_level=True)
    assert profile.level_points(2, 120).defenders_levels == 2
    assert profile.level_points(2, 240).defenders_levels == 5
    assert profile.level_points(2, 600).defenders_levels == 5


def test_hand_and_kitty_sizes() -> None:
    assert [(r.hand, r.kitty) for r in load_profile("official-2002").deck_rules.values()] == [
        (12, 6), (25, 8), (39, 6)]
    assert load_profile("official-2002").rules_for(2).hand_for_kitty(4) == 26
    assert load_profile("four-deck-2v2").rules_for(4).hand == 52


def test_a_profile_with_a_gap_between_bands_is_refused() -> None:
    data = {
        "id": "broken", "match_points": {"win": 2, "draw": 1, "loss": 0},
        "decks": {"2": {"hand": 25, "kitty": 8, "bands": [
            {"max": 35, "side": "declarer", "base": 1}, {"min": 45, "side": "tai", "base": 0}]}},
    }
    with pytest.raises(ProfileError, match="steps of 5"):
        profile_from_mapping(data)


def test_rules_level_json_is_exactly_one_object() -> None:
    code, out, _ = run("rules", "level", "official-2002", "--decks", "2", "--points", "-45", "--json")
    assert code == 0
    assert json.loads(out) == {
        "profile": "official-2002", "decks": 2, "defenders_points": -45,
        "declarer_levels": 5, "defenders_levels": 0, "outcome": "declarer",
    }
    assert len(out.strip().splitlines()) == 1


@pytest.mark.parametrize(("args", "message"), [
    (["official-2002", "--decks", "2", "--points", "12"], "multiple of 5"),
    (["official-2002", "--decks", "2", "--points", "7.5"], "whole number"),
    (["official-2002", "--decks", "2", "--points", "abc"], "whole number"),
    (["no-such-profile", "--decks", "2", "--points", "40"], "unknown rule profile"),
    (["official-2002", "--decks", "4", "--points", "40"], "no rules for 4 decks"),
    (["renmin-shuangsheng", "--decks", "3", "--points", "40"], "no rules for 3 decks"),
])
def test_rules_level_errors_are_one_line_with_status_2(args: list[str], message: str) -> None:
    code, out, err = run("rules", "level", *args, "--json")
    assert code == 2
    assert out == ""
    assert message in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("profile_id", profile_ids())
def test_explain_prints_the_whole_table_marked_as_interpretation(profile_id: str, lang: str) -> None:
    code, out, _ = run("rules", "explain", profile_id, "--lang", lang)
    assert code == 0
    profile = load_profile(profile_id)
    assert ("解释" if lang == "zh" else "interpret") in out
    for rules in profile.deck_rules.values():
        for band in rules.bands:
            assert band.describe() in out


def test_rules_list_names_every_profile() -> None:
    code, out, _ = run("rules", "list")
    assert code == 0
    for profile_id in profile_ids():
        assert profile_id in out
