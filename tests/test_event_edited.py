"""An event file edited after its results were stored or its rounds paired: home and away of a
scored match swapped, a scored match removed, the format changed, fewer Swiss rounds than are
paired, a paired team removed. Every command refuses, naming the match or the event file's key
(never a flag no command has) and storing nothing, until the director withdraws what no longer
fits (``results correct --withdraw``); restoring the file restores the report.

Found by the reliability reviews; each test drives ``dealer`` as the reviewer did, on the
hand-worked event (``test_results_support``) or the built-in Swiss demo after two rounds.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from conftest import assert_one_error, report_json_of
from test_results_support import (
    AWAY_TOTAL,
    EVENT_TOML,
    HAND,
    HEADER,
    HOME_TOTAL,
    db_state,
    dealer_at,
    hand_rows,
    match_2_rows,
    scored_hand_event,
    write_csv,
)

MATCH_1 = '{ id = "1", home = "H", away = "V", set = 1 }'
MATCH_2 = '{ id = "2", home = "X", away = "Y", set = 1 }'
SWAPPED_1 = '{ id = "1", home = "V", away = "H", set = 1 }'
#: Board 16 of the hand match gives home 3, away 1 (test_results_support.HAND).
HOME_15 = HOME_TOTAL - 3
AWAY_15 = AWAY_TOTAL - 1


def edited_event(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """The hand event file with ``old`` replaced by ``new`` (an edit made after the deal)."""
    assert old in EVENT_TOML
    path = tmp_path / name
    path.write_text(EVENT_TOML.replace(old, new), encoding="utf-8")
    return path


def standing(data: dict[str, Any], team: str) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in data["standings"] if s["team"] == team)
    return found


def test_swapping_home_and_away_after_results_is_refused(tmp_path: Path) -> None:
    """The stored slips say which team sat where; an event file edited to swap home and
    away of that match must not move the results to the other team (report, missing, correct,
    add and import all refuse, naming the match); restoring the file restores the report."""
    rows = [r for r in hand_rows() if r[3] != 16]  # boards 1-15 at both tables
    event = scored_hand_event(tmp_path, rows)
    before = report_json_of(event, tmp_path / "boards")
    assert (standing(before, "H")["level_points_for"], standing(before, "V")["level_points_for"]) == (
        HOME_15, AWAY_15)
    swapped = edited_event(tmp_path, "swapped.toml", MATCH_1, SWAPPED_1)
    stored = db_state(tmp_path)
    board_16 = write_csv(tmp_path / "board16.csv", HEADER, [[1, "1", "A", 16, HAND[16][0]]])
    attempts = {
        "report --json": ("report", swapped, "--json"),
        "report": ("report", swapped, "--format", "csv", "--out", tmp_path / "rep"),
        "results missing": ("results", "missing", swapped),
        "results correct": ("results", "correct", swapped, "--round", 1, "--match", 1, "--table", "A",
                            "--board", 1, "--points", 5, "--reason", "typo"),
        "results add": ("results", "add", swapped, "--round", 1, "--match", 1, "--table", "A",
                        "--board", 16, "--points", HAND[16][0]),
        "results import": ("results", "import", swapped, board_16),
    }
    for what, args in attempts.items():
        result = dealer_at(tmp_path, *args)
        assert result.exit_code == 2, (what, result.output)
        assert "round 1 match 1" in result.output, (what, result.output)
        assert "Traceback" not in result.output
    assert db_state(tmp_path) == stored  # nothing stored by any of them
    assert not (tmp_path / "rep").exists() or not any((tmp_path / "rep").iterdir())
    assert report_json_of(event, tmp_path / "boards")["standings"] == before["standings"]  # the file restored


def test_withdrawing_the_match_lets_the_new_seating_report(tmp_path: Path) -> None:
    """Withdrawing every current result of the match (``correct --round --match
    --withdraw``) is the way out: the report then runs with the new seating, match 1 unscored."""
    rows = [r for r in hand_rows() if r[3] != 16]
    scored_hand_event(tmp_path, rows)
    swapped = edited_event(tmp_path, "swapped.toml", MATCH_1, SWAPPED_1)
    result = dealer_at(tmp_path, "results", "correct", swapped, "--round", 1, "--match", 1, "--withdraw",
                       "--reason", "home and away were entered the wrong way round")
    assert result.exit_code == 0, result.output
    assert f"withdrew {len(rows)} result(s) of round 1 match 1" in result.output
    data = report_json_of(swapped, tmp_path / "boards")
    match_1 = next(m for m in data["matches"] if (m["round"], m["match"]) == (1, "1"))
    assert (match_1["home"], match_1["away"], match_1["boards_counted"]) == ("V", "H", 0)
    assert data["no_results_yet"] is True
    history = dealer_at(tmp_path, "results", "history", swapped, "--round", 1, "--match", 1, "--table", "A",
                        "--board", 1)
    assert "withdrawn" in history.output and "home and away were entered" in history.output


def test_a_removed_match_is_named_and_its_results_can_be_withdrawn(tmp_path: Path) -> None:
    """With round 1 match 2 removed from the event file after its results were stored,
    ``report`` and ``results missing`` exit 2 naming it; ``results correct --withdraw`` reaches
    those results (one slot, then the whole match), after which the report runs."""
    event = scored_hand_event(tmp_path, hand_rows() + match_2_rows())
    removed = edited_event(tmp_path, "removed.toml", ", " + MATCH_2, "")
    for args in (("report", removed, "--json"), ("results", "missing", removed)):
        result = dealer_at(tmp_path, *args)
        assert_one_error(result, "round 1 match 2", "not in the event file any more")
    one = dealer_at(tmp_path, "results", "correct", removed, "--round", 1, "--match", 2, "--table", "A",
                    "--board", 1, "--withdraw", "--reason", "match cancelled")
    assert one.exit_code == 0, one.output
    assert "withdrawn" in one.output
    still = dealer_at(tmp_path, "report", removed, "--json")
    assert_one_error(still, "round 1 match 2")
    rest = dealer_at(tmp_path, "results", "correct", removed, "--round", 1, "--match", 2, "--withdraw",
                     "--reason", "match cancelled")
    assert rest.exit_code == 0, rest.output
    assert "withdrew 31 result(s) of round 1 match 2" in rest.output
    data = report_json_of(removed, tmp_path / "boards")
    assert (standing(data, "H")["level_points_for"], standing(data, "V")["level_points_for"]) == (
        HOME_TOTAL, AWAY_TOTAL)
    assert [(m["round"], m["match"]) for m in data["matches"]] == [(1, "1")]
    missing = dealer_at(tmp_path, "results", "missing", removed)
    assert missing.exit_code == 0 and "nothing missing" in missing.output, missing.output
    restored = report_json_of(event, tmp_path / "boards")
    assert restored["matches"][1]["boards_counted"] == 0  # the file restored: withdrawn


def swiss_after_two_rounds(tmp_path: Path) -> Path:
    """The built-in Swiss demo dealt, rounds 1 and 2 paired and their sample results imported."""
    from dealer.app.session import event_as_played
    from dealer.demo import sample_round_csv
    from dealer.files import load_event
    from dealer.store.folder import EventFolder

    event = tmp_path / "swiss.toml"
    event.write_text((resources.files("dealer") / "data" / "demo-swiss.toml").read_text(encoding="utf-8"),
                     encoding="utf-8")
    assert dealer_at(tmp_path, "deal", event).exit_code == 0
    for number in (1, 2):
        assert dealer_at(tmp_path, "round", "pair", event, "--round", number).exit_code == 0
        loaded = load_event(event)
        rows = tmp_path / f"round-{number}.csv"
        rows.write_text(sample_round_csv(event_as_played(loaded, EventFolder.of(loaded, tmp_path / "boards")),
                                         number), encoding="utf-8")
        assert dealer_at(tmp_path, "results", "import", event, rows).exit_code == 0
    return event


def edited(path: Path, *changes: tuple[str, str]) -> Path:
    text = path.read_text(encoding="utf-8")
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    out = path.with_name("edited-" + path.name)
    out.write_text(text, encoding="utf-8")
    return out


def test_a_format_changed_after_pairing_is_said_as_such(tmp_path: Path) -> None:
    """The Swiss demo after 2 rounds made a knockout (sets = 4 keeps the deal's plan): `report`
    and `site` said "--round: a corrected result changed who went through"; no result was
    corrected and neither has --round. Now: the event file's format against the stored pairings."""
    event = swiss_after_two_rounds(tmp_path)
    knockout = edited(event, ('kind = "swiss"', 'kind = "knockout"'), ("rounds = 4 ", "# rounds = 4 "),
                      ('first_round = "pinyin"', '# first_round = "pinyin"'),
                      ("avoid_same_club = true", "# avoid_same_club = true"), ("# sets = 4", "sets = 4"))
    for args in (("report", knockout, "--json"), ("site", knockout, "--no-pdf", "--out", tmp_path / "site"),
                 ("round", "pair", knockout, "--round", 3), ("results", "missing", knockout)):
        result = dealer_at(tmp_path, *args)
        assert_one_error(result, "event file [format]", "knockout", "round 1 was paired as a swiss round")
        assert "--round" not in result.output and "corrected" not in result.output
    assert not (tmp_path / "site").exists()
    # Fewer Swiss rounds than are paired: said the same way.
    fewer = edited(event, ("rounds = 4 ", "rounds = 1 "), ("# sets = 4", "sets = 4"))
    assert_one_error(dealer_at(tmp_path, "report", fewer, "--json"), "event file [format]",
                     "2 rounds are paired", "rounds 1 to 1")


def test_a_removed_team_is_labelled_by_the_event_file(tmp_path: Path) -> None:
    """A team removed after it was paired: the refusal named `--teams`, which no command has."""
    event = swiss_after_two_rounds(tmp_path)
    text = event.read_text(encoding="utf-8")
    start = text.index('[[teams]]\nid = "T8"')
    end = text.index("[[teams]]", start + 1) if "[[teams]]" in text[start + 1:] else len(text)
    removed = tmp_path / "removed.toml"
    removed.write_text(text[:start] + text[end:], encoding="utf-8")
    for args in (("report", removed, "--json"), ("round", "pair", removed, "--round", 3)):
        result = dealer_at(tmp_path, *args)
        assert_one_error(result, "event file [[teams]]: ", "'T8'")
        assert "--teams" not in result.output
