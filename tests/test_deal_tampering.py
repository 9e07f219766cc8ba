"""A deal's files changed by hand: a set file tampered with (a card swapped, a board twice, the
fingerprint, the plan's hash, the commitment …), its manifest edited to match, the set rewritten
with its deal code, fingerprint and manifest hash, another key in the folder or given to print
labels, a commitment file that is not one. Printing (every kind), results and reports refuse,
naming the file and what is wrong, before anything is written; ``verify`` exits 1 naming it.

Found by the reliability reviews; each test drives ``dealer`` as the reviewer did, on the demo
event dealt by ``dealer deal``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import SAMPLE_TRAVELLERS, assert_one_error, dealt_demo, run_dealer
from test_results_support import dealer_at, write_event


def _swap_a_card(doc: dict[str, Any]) -> str:
    hands = doc["boards"][0]["hands"]
    north, east = hands["N"], hands["E"]
    i = next(i for i, c in enumerate(north) if c not in east)
    j = next(j for j, c in enumerate(east) if c not in north)
    north[i], east[j] = east[j], north[i]
    return "board 1"


def _duplicate_board(doc: dict[str, Any]) -> str:
    doc["boards"].append(json.loads(json.dumps(doc["boards"][0])))
    return "board 1 appears twice"


def _extra_hand(doc: dict[str, Any]) -> str:
    doc["boards"][3]["hands"]["X"] = ["SA"]
    return "board 4"


def _fingerprint(doc: dict[str, Any]) -> str:
    doc["fingerprint"] = "deadbeefdeadbeef"
    return "fingerprint"


def _decks(doc: dict[str, Any]) -> str:
    doc["decks"] = 3
    return "decks is 3"


def _number_true(doc: dict[str, Any]) -> str:
    doc["boards"][0]["number"] = True
    return "board True is not in set 1"


def _plan_sha(doc: dict[str, Any]) -> str:
    doc["plan_sha256"] = "0" * 64
    return "plan_sha256"


def _commitment(doc: dict[str, Any]) -> str:
    doc["commitment"] = "f" * 64
    return "the commitment does not match this key"


def _event_name(doc: dict[str, Any]) -> str:
    doc["event_name"] = "Another Cup"  # schema 1 had it; no commitment covers it
    return "unknown field 'event_name'"


TAMPERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "card swapped": _swap_a_card, "board duplicated": _duplicate_board, "extra hand X": _extra_hand,
    "fingerprint changed": _fingerprint, "top-level decks changed": _decks,
    "number true": _number_true, "plan_sha256 changed": _plan_sha, "commitment changed": _commitment,
    "event_name added": _event_name,
}
#: What printing says of each, once the manifest was edited to match the file.
WHOLE_FILE_CHECK = {
    "card swapped": "board 1: deal_code is not the code of its hands", "board duplicated": "board 1 appears twice",
    "extra hand X": "board 4: not one whole pack", "fingerprint changed": "the fingerprint is not that of the boards",
    "top-level decks changed": "decks is 3, the plan says 2", "number true": "board True is not in set 1",
    "plan_sha256 changed": "plan_sha256 is not the hash of the plan",
    "commitment changed": "not set 1 of the committed deal", "event_name added": "unknown field 'event_name'",
}
PRINT_KINDS = ("hand-records", "labels", "curtain-cards", "dealing-guide", "travellers", "score-sheets")


def tamper(set_file: Path, change: Callable[[dict[str, Any]], str]) -> str:
    """Apply ``change`` to a set file as a person with an editor would; what verify must name."""
    doc = json.loads(set_file.read_text(encoding="utf-8"))
    expected = change(doc)
    set_file.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
    return expected


@pytest.mark.parametrize("what", list(TAMPERS))
def test_a_tampered_set_file_is_refused_everywhere(tmp_path: Path, what: str) -> None:
    """Printing (every kind), results import/add/missing and report refuse a set file
    that is not the dealt one, naming it; ``verify`` exits 1 naming the problem."""
    event = dealt_demo(tmp_path)
    set_file = tmp_path / "boards" / "demo" / "set-01.json"
    expected = tamper(set_file, TAMPERS[what])
    out = tmp_path / "out"
    for kind in PRINT_KINDS:
        result = dealer_at(tmp_path, "print", kind, event, "--set", 1, "--format", "html", "--out", out)
        assert result.exit_code == 2, (kind, result.output)
        assert str(set_file) in result.output, (kind, result.output)
    assert not out.exists() or not any(out.iterdir())
    for args in (("results", "import", event, SAMPLE_TRAVELLERS),
                 ("results", "add", event, "--round", 1, "--match", 1, "--table", "A", "--board", 1,
                  "--points", 30),
                 ("results", "missing", event),
                 ("report", event, "--json")):
        result = dealer_at(tmp_path, *args)
        assert result.exit_code == 2, (args, result.output)
        assert str(set_file) in result.output, (args, result.output)
    assert not (tmp_path / "boards" / "demo" / "results.sqlite").exists()
    key = tmp_path / "boards" / "demo" / "deal.key"
    result = run_dealer("verify", set_file, "--key-file", key)
    assert result.exit_code == 1, result.output
    assert expected in result.output, result.output


@pytest.mark.parametrize("what", list(TAMPERS))
def test_a_manifest_edited_to_match_is_still_caught_when_printing(tmp_path: Path, what: str) -> None:
    """Whoever edits the manifest's hash to match the tampered file is still refused,
    the problem named: the set file is read whole (commitment, plan, boards, fingerprint) before
    anything is printed."""
    event = dealt_demo(tmp_path)
    folder = tmp_path / "boards" / "demo"
    set_file = folder / "set-01.json"
    tamper(set_file, TAMPERS[what])
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["set-01.json"] = hashlib.sha256(set_file.read_bytes()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    for kind in ("dealing-guide", "hand-records"):
        result = dealer_at(tmp_path, "print", kind, event, "--set", 1, "--format", "html", "--out",
                           tmp_path / "out")
        assert result.exit_code == 2, (kind, result.output)
        assert str(set_file) in result.output and WHOLE_FILE_CHECK[what] in result.output, (kind, result.output)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_verify_without_a_commitment_says_what_it_did_not_check(tmp_path: Path) -> None:
    """Without ``--commitment`` verify shows only that the file agrees with the key
    given, and says so; with the published commitment.json it says nothing of the kind."""
    dealt_demo(tmp_path)
    folder = tmp_path / "boards" / "demo"
    alone = run_dealer("verify", folder / "set-02.json", "--key-file", folder / "deal.key")
    assert alone.exit_code == 0, alone.output
    assert "note: no published commitment given" in alone.output
    published = run_dealer("verify", folder / "set-02.json", "--key-file", folder / "deal.key",
                           "--commitment", folder / "commitment.json")
    assert published.exit_code == 0, published.output
    assert "no published commitment" not in published.output
    assert "the published commitment" in published.output


def _rewrite_set_and_manifest(folder: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Change set 1 as a careful forger would: the deal code, the fingerprint and the manifest's
    hash made to agree with the change."""
    from dealer.cards import Deal, parse_card
    from dealer.formats.boardset import fingerprint

    path = folder / "set-01.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    for board in data["boards"]:
        hands = {seat: [parse_card(c) for c in cards] for seat, cards in board["hands"].items()}
        board["deal_code"] = Deal.build(data["decks"], hands, []).code
    data["fingerprint"] = fingerprint(data["boards"])
    text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    path.write_text(text, encoding="utf-8")
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["files"]["set-01.json"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def _move_a_card(data: dict[str, Any]) -> None:
    hands = data["boards"][0]["hands"]
    hands["E"].append(hands["N"].pop(0))


def _swap_two_cards(data: dict[str, Any]) -> None:
    hands = data["boards"][0]["hands"]
    other = next(i for i, card in enumerate(hands["E"]) if card != hands["N"][0])
    hands["N"][0], hands["E"][other] = hands["E"][other], hands["N"][0]


@pytest.mark.parametrize("change", [_move_a_card, _swap_two_cards], ids=["hand-sizes", "same-sizes"])
def test_a_set_rewritten_with_its_manifest_is_refused(tmp_path: Path,
                                                      change: Callable[[dict[str, Any]], None]) -> None:
    """A set file changed together with its deal code, fingerprint and manifest hash.
    Hand sizes that the plan does not deal are refused from the file alone; with the key in the
    folder every card is re-derived, so even a swap that keeps the sizes is refused."""
    event = dealt_demo(tmp_path)
    folder = tmp_path / "boards" / "demo"
    _rewrite_set_and_manifest(folder, change)
    guide = dealer_at(tmp_path, "print", "dealing-guide", event, "--set", 1, "--format", "html",
                      "--out", tmp_path / "out")
    expected = "hands of N 32, E 26" if change is _move_a_card else "board 1 is not the board the key deals"
    assert_one_error(guide, "set-01.json", expected)
    assert not (tmp_path / "out").exists()
    if change is _swap_two_cards:  # without the key at hand the file reads as consistent …
        (folder / "deal.key").rename(tmp_path / "deal.key")
        again = dealer_at(tmp_path, "print", "dealing-guide", event, "--set", 1, "--format", "html",
                          "--out", tmp_path / "out")
        assert again.exit_code == 0, again.output
        verified = run_dealer("verify", folder / "set-01.json", "--key-file", tmp_path / "deal.key")
        assert verified.exit_code == 1 and "board 1 differs" in verified.output  # … verify still finds it


def test_a_key_that_is_not_the_commitments_stops_every_command(tmp_path: Path) -> None:
    """The key in the folder replaced by another one: printing, results and
    reports refuse, naming the commitment and the key."""
    event = dealt_demo(tmp_path)
    (tmp_path / "boards" / "demo" / "deal.key").write_text("cd" * 32 + "\n", encoding="ascii")
    for args in (("print", "travellers", event, "--set", 1, "--format", "html", "--out", tmp_path / "out"),
                 ("report", event, "--json"), ("results", "missing", event)):
        assert_one_error(dealer_at(tmp_path, *args), "the commitment is not that of the key")


def test_labels_printed_with_another_key_are_refused(tmp_path: Path) -> None:
    """The labels' check tag needs the committed key; another valid key is refused
    (exit 2) naming the key file and the commitment, before anything is written."""
    event = dealt_demo(tmp_path)
    folder = tmp_path / "boards" / "demo"
    wrong = tmp_path / "wrong.key"
    wrong.write_text(hashlib.sha256(b"not the dealt key").hexdigest() + "\n", encoding="utf-8")
    out = tmp_path / "out"
    for kind in ("labels", "all"):
        result = dealer_at(tmp_path, "print", kind, event, "--set", 1, "--key-file", wrong, "--format", "html",
                           "--out", out)
        assert_one_error(result, str(wrong), "commitment", str(folder / "commitment.json"))
    assert not out.exists() or not any(out.iterdir())
    right = dealer_at(tmp_path, "print", "labels", event, "--set", 1, "--key-file", folder / "deal.key",
                      "--format", "html", "--out", out)
    assert right.exit_code == 0, right.output


def test_a_commitment_that_is_a_json_list_is_one_error(tmp_path: Path) -> None:
    """``verify --commitment`` naming a JSON list is a rejected input (exit 2), not a
    traceback (which read as exit 1, "tampered")."""
    write_event(tmp_path)
    folder = tmp_path / "boards" / "hand"
    listed = tmp_path / "c.json"
    listed.write_text("[1]", encoding="utf-8")
    result = run_dealer("verify", folder / "set-01.json", "--key-file", folder / "deal.key", "--commitment", listed)
    assert_one_error(result, str(listed), "not a commitment file")
