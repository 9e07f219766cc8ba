"""The event's folder follows the event file (newcomer run 3, finding 17): a command run from any
directory finds the same folder and database, a read never creates one, and the command that
starts one says that it did and where."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import assert_one_error, run_dealer
from test_levels import SEED_002, seed_001_race
from test_results_support import EVENT_TOML, dealer_at, hand_rows, scored_hand_event, write_event

SWISS_LEVELS = SEED_002.split("[[rounds]]")[0] + '[format]\nkind = "swiss"\nrounds = 3\n'


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_a_level_race_paired_from_another_directory_uses_the_same_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (project / "events").mkdir(parents=True)
    elsewhere.mkdir()
    (project / "events" / "ruc.toml").write_text(SWISS_LEVELS, encoding="utf-8")
    monkeypatch.chdir(project)
    # A read creates nothing: no results yet.
    code, out, err = run_dealer("report", "events/ruc.toml", "--json")
    assert code == 0 and json.loads(out)["no_results_yet"] is True, err
    assert _tree(project) == {"events", "events/ruc.toml"}
    # The first pairing starts the folder, beside the event file, and says so.
    code, out, err = run_dealer("round", "pair", "events/ruc.toml", "--round", 1)
    assert code == 0, err
    assert "created the event's folder events/boards/renmin-levels" in out
    assert (project / "events" / "boards" / "renmin-levels" / "results.sqlite").exists()
    # From another directory: the same folder, nothing new made there, nothing said.
    monkeypatch.chdir(elsewhere)
    event = project / "events" / "ruc.toml"
    code, out, err = run_dealer("round", "show", event, "--round", 1, "--json")
    assert code == 0 and len(json.loads(out)["matches"]) == 2, err
    code, out, err = run_dealer("results", "add", event, "--round", 1, "--match", 1, "--table", 1,
                                "--home-level", "K", "--away-level", "5")
    assert code == 0 and "created" not in out, err
    assert _tree(elsewhere) == set()
    monkeypatch.chdir(project)
    history = run_dealer("results", "history", "events/ruc.toml").stdout
    assert "home K away 5" in history


def test_events_beside_a_boards_folder_find_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``events/x.toml`` next to ``boards/`` (the layout the old default made when commands ran
    from the project folder): the boards folder beside the event file's folder is used."""
    project = tmp_path / "project"
    (project / "events").mkdir(parents=True)
    (project / "boards").mkdir()
    (project / "events" / "hand.toml").write_text(EVENT_TOML, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # not the project folder
    code, out, err = run_dealer("commit", project / "events" / "hand.toml")
    assert code == 0, err
    assert f"created the event's folder {project / 'boards' / 'hand'}" in out
    assert run_dealer("deal", project / "events" / "hand.toml").exit_code == 0
    assert (project / "boards" / "hand" / "manifest.json").exists()
    assert not (tmp_path / "boards").exists() and not (project / "events" / "boards").exists()
    monkeypatch.chdir(project)
    code, out, err = run_dealer("results", "add", "events/hand.toml", "--round", 1, "--match", 1, "--table", "A",
                                "--board", 1, "--points", 40)
    assert code == 0, err
    assert (project / "boards" / "hand" / "results.sqlite").exists()


def test_an_event_file_in_its_own_event_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The demo's layout: ``boards/<id>/event.toml`` inside its own event folder."""
    own = tmp_path / "boards" / "hand"
    own.mkdir(parents=True)
    (own / "event.toml").write_text(EVENT_TOML, encoding="utf-8")
    monkeypatch.chdir(own)
    code, out, err = run_dealer("deal", "event.toml")
    assert code == 0 and "created the event's folder" not in out, err  # the folder was there
    assert (own / "manifest.json").exists() and not (own / "boards").exists()
    monkeypatch.chdir(tmp_path)
    code, out, err = run_dealer("results", "missing", "boards/hand/event.toml", "--round", 1)
    assert code == 0 and "64 table result(s) missing" in out, err


def test_the_event_file_can_name_its_boards_folder_and_the_option_still_wins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "events").mkdir()
    event = tmp_path / "events" / "hand.toml"
    event.write_text(EVENT_TOML.replace('sets = 1\n', 'sets = 1\nboards_dir = "../store"\n'), encoding="utf-8")
    monkeypatch.chdir(tmp_path / "events")
    code, out, err = run_dealer("commit", "hand.toml")
    assert code == 0 and "created the event's folder ../store/hand" in out, err
    assert (tmp_path / "store" / "hand" / "commitment.json").exists()
    # --boards-dir names another folder: there is no event there (a read refuses, creates nothing).
    code, _out, err = run_dealer("results", "missing", "hand.toml", "--boards-dir", tmp_path / "other")
    assert code == 2 and "no such folder" in err
    assert not (tmp_path / "other").exists()
    code, _out, err = run_dealer("report", "hand.toml", "--json", "--boards-dir", tmp_path / "other")
    assert code == 2 and not (tmp_path / "other").exists()


def test_a_refused_first_write_of_a_level_race_leaves_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ruc.toml").write_text(SWISS_LEVELS, encoding="utf-8")
    code, _out, err = run_dealer("round", "pair", "ruc.toml", "--round", 2)
    assert code == 2, err
    code, _out, err = run_dealer("results", "late", "ruc.toml", "--round", 1, "--team", "T1", "--minutes", 3,
                                 "--reason", "x")
    assert code == 2, err
    assert _tree(tmp_path) == {"ruc.toml"} or _tree(tmp_path) == {"ruc.toml", "boards"}
    assert not (tmp_path / "boards" / "renmin-levels").exists()


# --- a boards folder mistyped or missing (found by the reliability reviews) -----------------------


def test_a_mistyped_boards_folder_is_said(tmp_path: Path) -> None:
    """``--boards-dir`` with a typo is "no such folder" (exit 2) for every command
    that reads the event's folder, not empty standings; nothing is created."""
    event = scored_hand_event(tmp_path, hand_rows())
    typo = tmp_path / "bords"
    for args in (("report", event, "--json"), ("report", event, "--format", "csv", "--out", tmp_path / "rep"),
                 ("results", "missing", event), ("results", "history", event), ("results", "audit", event),
                 ("results", "add", event, "--round", 1, "--match", 2, "--table", "A", "--board", 1, "--points", 5),
                 ("print", "travellers", event, "--format", "html", "--out", tmp_path / "out")):
        result = run_dealer(*args, "--boards-dir", typo)
        assert_one_error(result, "no such folder", "--boards-dir")
    assert not typo.exists() and not (tmp_path / "rep").exists() and not (tmp_path / "out").exists()


def test_reading_commands_never_create_the_database(tmp_path: Path) -> None:
    """``results history`` (and missing, audit, report) on an event without results
    create no database."""
    event = write_event(tmp_path)
    for args in (("results", "history", event), ("results", "missing", event), ("results", "audit", event),
                 ("report", event, "--json")):
        result = dealer_at(tmp_path, *args)
        assert result.exit_code == 0, (args, result.output)
    assert sorted(p.name for p in (tmp_path / "boards" / "hand").iterdir()) == [
        "commitment.json", "deal.key", "manifest.json", "set-01.json"]


def test_a_level_race_without_its_folder_is_not_said_to_be_undealt(tmp_path: Path) -> None:
    """`site` (and every reading command) of a level race under a missing boards folder said
    "event … was not committed or dealt": a level race is never dealt."""
    event = seed_001_race(tmp_path, [])
    for args in (("site", event, "--no-pdf", "--out", tmp_path / "site"), ("report", event, "--json"),
                 ("results", "history", event), ("results", "missing", event)):
        result = run_dealer(*args, "--boards-dir", tmp_path / "no-such-folder")
        assert_one_error(result, "--boards-dir", "level race", "is the boards folder right?")
        assert "dealt" not in result.output.replace("never dealt", "")
