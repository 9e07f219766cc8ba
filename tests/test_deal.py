"""Dealing: known-answer vectors of docs/dealing.md, reproducibility, board files, verify, secrecy."""

from __future__ import annotations

import json
import os
import stat
from collections import Counter
from math import prod
from pathlib import Path
from typing import Any

import pytest
from conftest import run_dealer as run

from dealer.app.dealing import deal_event
from dealer.batch import shuffle_many
from dealer.cards import SEATS, Pack
from dealer.commitment import canonical_json, commitment, key_id
from dealer.deal import (
    WORD_LIMIT,
    BoardSpec,
    Layout,
    WordStream,
    board_input,
    deal_board,
    draw_bounds,
    shuffle_positions,
)
from dealer.errors import FileProblem, UserError
from dealer.event import Event
from dealer.files import read_key
from dealer.formats.boardset import boardset_document
from dealer.store.folder import EventFolder


def boardset_path(event: Event, set_number: int, root: Path) -> Path:
    return EventFolder(event.id, root).set_path(set_number)


def write_demo_event(folder: Path) -> Path:
    from dealer.resources import demo_event_text

    path = folder / "event.toml"
    path.write_text(demo_event_text())
    return path

KAT_KEY = bytes(range(32))

# (set, board, public value, decks, hand, kitty, kitty in hand, declarer, words, order[:10], code)
VECTORS = [
    (1, 1, None, 2, 25, 8, True, "N", [0x2F6E5743, 0x1CAAB349, 0x90AA5139],
     [14, 24, 45, 102, 1, 6, 27, 103, 26, 89], "2HMNZSGE5TPMPQUGVXNJTCCMTVDNLLAJZCGYZDAFZAG5JQ"),
    (1, 2, None, 2, 25, 8, True, "E", [0x01B2B4D1, 0xF00EC31D, 0x748B5EFF],
     [98, 62, 107, 3, 76, 65, 61, 2, 10, 44], "2HNMARPIBWEFNQVNVWNMLHPN3BWETRENPXNJZACX77OFIA"),
    (2, 1, None, 2, 25, 8, True, "N", [0xCD66A7DA, 0x4F9CFE90, 0x373BE931],
     [52, 104, 86, 19, 37, 1, 9, 69, 61, 67], "2HUA3TDIPRPJJ3EO5TC622EITHO4AXGYI3O6RDAWZCAADQ"),
    (1, 1, "12345", 2, 25, 8, True, "N", [0xDE80E5BD, 0xAA710630, 0x0EA0D6C6],
     [22, 33, 96, 0, 1, 31, 88, 76, 5, 15], "2HGJTWGJTLFMYRGIVTG4DDOZRBGMZQEZLREEFXGVZKMG7Q"),
    (1, 1, None, 1, 12, 6, False, "N", [0x2F6E5743, 0x1CAAB349, 0x90AA5139],
     [2, 45, 38, 8, 14, 3, 20, 0, 22, 47], "1KAG2LWT7YNKPD2BM4WG6VE5GSBA"),
]


@pytest.mark.parametrize("vector", VECTORS)
def test_known_answer_vectors(vector: tuple) -> None:  # type: ignore[type-arg]
    set_number, board, public, decks, hand, kitty, in_hand, declarer, words, order, code = vector
    material = board_input(KAT_KEY, "kat", set_number, board, public)
    stream = WordStream(material)
    assert [stream.next_word() for _ in words] == words
    assert shuffle_positions(material, 54 * decks)[:10] == order
    spec = BoardSpec("kat", set_number, board, declarer, "2", public)
    assert deal_board(KAT_KEY, spec, Layout(decks, hand, kitty, in_hand)).deal.code == code


def test_known_answer_input_and_commitment() -> None:
    assert board_input(KAT_KEY, "kat", 1, 1).hex() == (
        "7368656e676a692d6465616c65722f73747265616d2f76310000"
        "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
        "0000000f7368656e676a692d6465616c2d7631000000036b6174000000010000000100000000")
    assert commitment(KAT_KEY, {"a": 1}) == (
        "56acd3e9d3db8e463301c109886ffb233614f0e6d73790113f0e90952b9c4dfa")
    assert key_id(KAT_KEY) == "7ff71f8e4a53cc7b"


def test_first_vector_north_hand() -> None:
    spec = BoardSpec("kat", 1, 1, "N", "2")
    north = deal_board(KAT_KEY, spec, Layout(2, 25, 8)).deal.hands["N"]
    assert " ".join(c.ascii for c in north) == (
        "BJ SA SJ S9 S8 S7 S6 S5 S3 HA HK H5 H3 H3 CA CQ CJ CJ C6 C3 C2 DK DQ DQ DJ D9 D8 D8 D7 D6 D5 D3 D2")


def test_a_rejected_word_is_skipped_by_both_paths() -> None:
    """docs/dealing.md §9: board 33748 draws a word at or above the limit for (86, 85)."""
    material = board_input(KAT_KEY, "kat", 1, 33748)
    stream = WordStream(material)
    words = [stream.next_word() for _ in range(12)]
    assert draw_bounds(108)[11] == (86, 85)
    assert words[11] >= WORD_LIMIT - WORD_LIMIT % (86 * 85)
    single = shuffle_positions(material, 108)
    assert shuffle_many(KAT_KEY, "kat", 1, [33747, 33748, 33749], 108)[1].tolist() == single
    # the draw that skipped the word used word 12 instead
    assert single == _shuffle_with_words(words[:11] + _words(material)[12:], 108)


def _words(material: bytes, count: int = 80) -> list[int]:
    stream = WordStream(material)
    return [stream.next_word() for _ in range(count)]


def _shuffle_with_words(words: list[int], size: int) -> list[int]:
    """A plain re-implementation of docs/dealing.md §4–5 over given words (none rejected)."""
    order = list(range(size))
    i = size - 1
    for word, pair in zip(words, draw_bounds(size), strict=False):
        r = word % prod(pair)
        for bound in pair:
            j, r = r % bound, r // bound
            order[i], order[j] = order[j], order[i]
            i -= 1
    return order


def test_same_key_and_event_give_byte_identical_files(tmp_path: Path, event: Event) -> None:
    key_file = tmp_path / "k.key"
    key_file.write_text(KAT_KEY.hex() + "\n")
    deal_event(event, EventFolder(event.id, tmp_path / "one"), key_file)
    deal_event(event, EventFolder(event.id, tmp_path / "two"), key_file)
    for name in ["set-01.json", "set-02.json", "set-03.json", "commitment.json", "manifest.json"]:
        assert (tmp_path / "one/demo" / name).read_bytes() == (tmp_path / "two/demo" / name).read_bytes()


def test_every_board_differs_across_event_set_and_board(event: Event) -> None:
    layout = Layout(2, 25, 8)
    codes = set()
    for event_id in ("demo", "demo-2"):
        for set_number in (1, 2):
            for board in range(1, 17):
                spec = BoardSpec(event_id, set_number, board, "N", "2")
                codes.add(deal_board(KAT_KEY, spec, layout).deal.code)
    assert len(codes) == 2 * 2 * 16
    other_key = deal_board(bytes(32), BoardSpec("demo", 1, 1, "N", "2"), layout).deal.code
    assert other_key not in codes


def test_hand_sizes_and_the_whole_pack(dealt: tuple[Event, Path]) -> None:
    event, root = dealt
    for set_number in range(1, event.sets + 1):
        for board in EventFolder(event.id, root).read_set(event, set_number).boards:
            sizes = board.deal.sizes()
            for seat in SEATS:
                assert sizes[seat] == (33 if seat == board.declarer else 25)
            assert board.deal.kitty == ()
            together = Counter(c for seat in SEATS for c in board.deal.hands[seat])
            assert together == Pack(2).counter()


def test_board_set_file_schema(dealt: tuple[Event, Path]) -> None:
    event, root = dealt
    data = json.loads(boardset_path(event, 1, root).read_text())
    for key in ("schema", "event", "set", "algorithm", "commitment", "boards"):
        assert key in data
    board = data["boards"][1]
    assert set(board) == {"number", "declarer", "level", "hands", "kitty", "deal_code"}
    assert (board["number"], board["declarer"], board["level"]) == (2, "E", "3")
    assert set(board["hands"]) == {"N", "E", "S", "W"} and board["kitty"] == []


@pytest.mark.parametrize(("decks", "hand", "kitty", "in_hand"), [
    (1, 12, 6, False), (2, 25, 8, True), (2, 26, 4, False), (3, 39, 6, True), (4, 52, 8, True)])
def test_every_layout_has_its_hand_sizes(decks: int, hand: int, kitty: int, in_hand: bool) -> None:
    deal = deal_board(KAT_KEY, BoardSpec("x", 1, 3, "S", "2"), Layout(decks, hand, kitty, in_hand)).deal
    expected = {seat: hand for seat in SEATS}
    if in_hand:
        expected["S"] += kitty
    assert deal.sizes() == expected
    assert len(deal.kitty) == (0 if in_hand else kitty)


def test_batch_path_gives_the_very_same_boards() -> None:
    boards = list(range(1, 401))
    orders = shuffle_many(KAT_KEY, "demo", 1, boards, 108, None)
    for row, board in enumerate(boards):
        assert orders[row].tolist() == shuffle_positions(board_input(KAT_KEY, "demo", 1, board), 108)
    one_deck = shuffle_many(KAT_KEY, "demo", 2, boards, 54, "pv")
    for row, board in enumerate(boards):
        assert one_deck[row].tolist() == shuffle_positions(board_input(KAT_KEY, "demo", 2, board, "pv"), 54)


def test_a_plain_reimplementation_agrees() -> None:
    for board in range(1, 50):
        material = board_input(KAT_KEY, "kat", 1, board)
        assert shuffle_positions(material, 108) == _shuffle_with_words(_words(material), 108)


def test_verify_accepts_an_untouched_set_and_names_a_tampered_board(dealt: tuple[Event, Path]) -> None:
    event, root = dealt
    path = boardset_path(event, 2, root)
    key_file = root / "demo" / "deal.key"
    code, out, _ = run("verify", path, "--key-file", key_file)
    assert code == 0 and "verified" in out
    data = json.loads(path.read_text())
    hands = data["boards"][6]["hands"]  # board 7
    hands["W"].append(hands["E"].pop(3))  # one card moved between two hands
    tampered = path.with_name("tampered.json")
    tampered.write_text(json.dumps(data))
    code, _, err = run("verify", tampered, "--key-file", key_file)
    assert code == 1
    assert "board 7 differs" in err
    assert "board 6 " not in err and "board 8 " not in err


def test_verify_rejects_another_key(dealt: tuple[Event, Path], tmp_path: Path) -> None:
    event, root = dealt
    other = tmp_path / "other.key"
    other.write_text("ab" * 32)
    code, _, err = run("verify", boardset_path(event, 1, root), "--key-file", other)
    assert code == 1
    assert "commitment does not match" in err
    assert "board 1 differs" in err


def test_deal_refuses_to_overwrite_a_board_set(dealt: tuple[Event, Path]) -> None:
    event, root = dealt
    before = boardset_path(event, 1, root).read_bytes()
    with pytest.raises(FileProblem, match="already dealt"):
        deal_event(event, EventFolder(event.id, root))
    assert boardset_path(event, 1, root).read_bytes() == before


def test_key_file_is_private_and_never_in_outputs(tmp_path: Path) -> None:
    event_file = tmp_path / "event.toml"
    from dealer.resources import demo_event_text

    event_file.write_text(demo_event_text())
    code, out, err = run("deal", event_file, "--boards-dir", tmp_path / "boards")
    assert code == 0, err
    key_path = tmp_path / "boards/demo/deal.key"
    assert stat.S_IMODE(os.stat(key_path).st_mode) == 0o600
    key_hex = read_key(key_path).hex()
    assert key_hex not in out + err
    assert "commitment:" in out
    for path in (tmp_path / "boards/demo").iterdir():
        if path.name != "deal.key":
            assert key_hex not in path.read_text().lower()
    code, out, err = run("verify", tmp_path / "boards/demo/set-01.json", "--key-file", key_path)
    assert code == 0 and key_hex not in out + err


def test_deal_never_prints_a_hand(tmp_path: Path) -> None:
    from dealer.resources import demo_event_text

    event_file = tmp_path / "event.toml"
    event_file.write_text(demo_event_text())
    code, out, _ = run("deal", event_file, "--boards-dir", tmp_path / "b")
    assert code == 0
    assert "BJ" not in out and "♠" not in out and "deal_code" not in out


def test_warns_when_a_key_is_reused_for_another_event(tmp_path: Path) -> None:
    from dealer.resources import demo_event_text

    key_file = tmp_path / "shared.key"
    key_file.write_text(KAT_KEY.hex())
    first = tmp_path / "first.toml"
    first.write_text(demo_event_text())
    second = tmp_path / "second.toml"
    second.write_text(demo_event_text().replace('id = "demo"', 'id = "demo-2"'))
    assert run("deal", first, "--key-file", key_file, "--boards-dir", tmp_path / "b")[0] == 0
    code, _, err = run("deal", second, "--key-file", key_file, "--boards-dir", tmp_path / "b")
    assert code == 0
    assert "already used for event(s) demo" in err


def test_public_value_enters_every_board_and_must_be_named(event: Event, tmp_path: Path) -> None:
    folder = EventFolder(event.id, tmp_path)
    with pytest.raises(UserError, match="does not name its source"):
        deal_event(event, folder, public_value="123")
    from dataclasses import replace

    named = replace(event, public_value_source="lottery draw of 2026-12-04")
    with pytest.raises(UserError, match=r"names a public value \(lottery draw of 2026-12-04\): give it") as error:
        deal_event(named, folder)
    assert error.value.field == "public_value"
    for empty in ("", "  "):  # the boards would be known before the draw
        with pytest.raises(UserError, match="the public value is empty"):
            deal_event(named, folder, public_value=empty)
    assert not folder.path.exists()
    with_value = boardset_document(named, 1, KAT_KEY, "123")
    without = boardset_document(event, 1, KAT_KEY, None)
    assert with_value["commitment"] != without["commitment"]  # the source is in the plan
    assert all(a["deal_code"] != b["deal_code"] for a, b in
               zip(with_value["boards"], without["boards"], strict=True))


def test_commit_then_deal_keeps_the_published_commitment(tmp_path: Path) -> None:
    from dealer.resources import demo_event_text

    event_file = tmp_path / "event.toml"
    event_file.write_text(demo_event_text())
    code, out, _ = run("commit", event_file, "--boards-dir", tmp_path / "b")
    assert code == 0
    published = out.split("commitment: ")[1].split()[0]
    code, out, _ = run("deal", event_file, "--boards-dir", tmp_path / "b")
    assert code == 0 and f"commitment: {published}" in out


def test_deal_errors_are_one_line_with_status_2(tmp_path: Path) -> None:
    code, _, err = run("deal", tmp_path / "absent.toml")
    assert code == 2 and "no such event file" in err
    bad_key = tmp_path / "bad.key"
    bad_key.write_text("not hex")
    event_file = tmp_path / "event.toml"
    from dealer.resources import demo_event_text

    event_file.write_text(demo_event_text())
    code, _, err = run("deal", event_file, "--key-file", bad_key, "--boards-dir", tmp_path / "b")
    assert code == 2 and "bad.key: a key is 64 hexadecimal digits" in err
    assert not (tmp_path / "b/demo/set-01.json").exists()


def with_plan(data: dict[str, Any], root: Path) -> dict[str, Any]:
    """A set file as schema 2 wrote it, with the whole plan in it (still read)."""
    plan = json.loads((root / "demo" / "commitment.json").read_text())["plan"]
    return {**data, "schema": "shengji-dealer/boardset/2", "plan": plan}


def test_verify_reports_a_damaged_file_with_status_2(dealt: tuple[Event, Path], tmp_path: Path) -> None:
    event, root = dealt
    published = root / "demo" / "commitment.json"
    data = json.loads(boardset_path(event, 1, root).read_text())
    old = with_plan(data, root)
    del old["plan"]["decks"]
    damaged = tmp_path / "damaged.json"
    damaged.write_text(json.dumps(old))
    code, _, err = run("verify", damaged, "--key-file", root / "demo" / "deal.key")
    assert code == 1  # a difference from what was dealt
    assert "damaged.json: plan_sha256 is not the hash of the plan" in err
    damaged.write_text(json.dumps({**data, "plan_sha256": "0" * 64}))  # schema 3: against the committed plan
    code, _, err = run("verify", damaged, "--key-file", root / "demo" / "deal.key", "--commitment", published)
    assert code == 1 and "damaged.json: plan_sha256 is not the hash of the plan" in err
    code, _, err = run("verify", damaged, "--key-file", root / "demo" / "deal.key")  # no plan at hand
    assert code == 2 and "names its plan by its hash only" in err and "--commitment" in err
    for text in ("[1]", "", "{"):
        damaged.write_text(text)
        code, _, err = run("verify", damaged, "--key-file", root / "demo" / "deal.key")
        assert code == 2 and "damaged.json: " in err  # not a board set at all


def test_an_event_file_edited_after_the_deal_is_refused(dealt: tuple[Event, Path], tmp_path: Path) -> None:
    """Printing and scoring take declarers from the event file: it must still be the dealt plan."""
    _, root = dealt
    from dealer.resources import demo_event_text

    edited = tmp_path / "edited.toml"
    edited.write_text(demo_event_text().replace('["N", "E", "S", "W"]', '["E", "S", "W", "N"]'))
    for command in (["print", "labels", edited, "--set", "1", "--out", tmp_path / "out"],
                    ["results", "missing", edited], ["report", edited, "--json"]):
        code, out, err = run(*command, "--boards-dir", root)
        assert code == 2, (command, out, err)
        assert "no longer matches the plan that was committed and dealt (changed: boards)" in err
    assert not (tmp_path / "out").exists()
    # Teams and rounds are not in the plan: renaming a team is fine.
    renamed = tmp_path / "renamed.toml"
    renamed.write_text(demo_event_text().replace("东风队", "东风一队"))
    code, _, err = run("results", "missing", renamed, "--boards-dir", root)
    assert code == 0, err


def test_verify_against_the_published_commitment(dealt: tuple[Event, Path], tmp_path: Path) -> None:
    """A director who reveals another key with a regenerated file must not pass `verify`."""
    event, root = dealt
    published = root / "demo" / "commitment.json"
    code, out, _ = run("verify", boardset_path(event, 1, root), "--key-file", root / "demo/deal.key",
                       "--commitment", published)
    assert code == 0 and "the published commitment" in out
    assert json.loads(published.read_text())["commitment"] in out
    other_key = tmp_path / "other.key"
    other_key.write_text("cd" * 32)
    regenerated = boardset_document(event, 1, bytes.fromhex("cd" * 32), None)
    forged = tmp_path / "forged" / "forged.json"
    forged.parent.mkdir()
    forged.write_text(json.dumps(regenerated))
    code, _, _ = run("commit", write_demo_event(tmp_path), "--key-file", other_key, "--boards-dir", tmp_path / "b")
    (tmp_path / "b/demo/commitment.json").rename(forged.parent / "commitment.json")  # forged with it
    code, _, _ = run("verify", forged, "--key-file", other_key)
    assert code == 0  # self-consistent on its own …
    code, _, err = run("verify", forged, "--key-file", other_key, "--commitment", published)
    assert code == 1 and "not the published one" in err  # … but not what was published


def test_verify_reads_a_set_changed_in_place_field_by_field(dealt: tuple[Event, Path], tmp_path: Path) -> None:
    """A set file as `dealer deal` wrote it is recognised by its bytes; one changed in place and
    still canonical (two cards swapped between North and East of board 2, the deal code and the
    end of the file untouched) is not, and the field-by-field check names the board."""
    event, root = dealt
    folder = root / "demo"
    original = boardset_path(event, 1, root).read_bytes()
    document = json.loads(original)
    board = document["boards"][1]
    north, east = board["hands"]["N"], board["hands"]["E"]
    swap = next((n, e) for n in north for e in east if n != e)
    north[north.index(swap[0])], east[east.index(swap[1])] = swap[1], swap[0]
    changed = tmp_path / "set-01.json"
    changed.write_bytes(canonical_json(document) + b"\n")
    assert changed.read_bytes() != original and len(changed.read_bytes()) == len(original)
    code, out, err = run("verify", boardset_path(event, 2, root), changed, "--key-file", folder / "deal.key",
                         "--commitment", folder / "commitment.json")
    assert code == 1 and "set 2 verified: 16 boards" in out
    assert "board 2" in err + out


def test_verify_holds_a_file_that_looks_dealt_to_the_plan_s_rules(dealt: tuple[Event, Path], tmp_path: Path) -> None:
    """A file made exactly as `dealer deal` makes one, but with a public value the plan names no
    source for (which `dealer deal` refuses), is not taken at its bytes: the full check says why."""
    from dealer.formats.boardset import PlanOf, set_files

    _event, root = dealt
    folder = root / "demo"
    plan = PlanOf(json.loads((folder / "commitment.json").read_text())["plan"])
    assert plan.plan["public_value_source"] is None
    ((_, data),) = set_files(read_key(folder / "deal.key"), plan, "drawn later", [1])
    forged = tmp_path / "set-01.json"
    forged.write_bytes(data)
    code, out, err = run("verify", forged, "--key-file", folder / "deal.key", "--commitment",
                         folder / "commitment.json")
    assert code == 1 and "public_value is given but the plan names no public value source" in err + out


@pytest.mark.parametrize(("change", "message", "schemas"), [
    (lambda d: d.update(public_value=5), "public_value is given but the plan names no public value source", (2, 3)),
    (lambda d: d["plan"].update(decks=5, hand=65, kitty=10), "plan_sha256 is not the hash of the plan", (2,)),
    (lambda d: d.update(plan_sha256="ab" * 32), "plan_sha256 is not the hash of the plan", (2, 3)),
    (lambda d: d["boards"][0].pop("number"), "boards[0]: field number is missing", (2, 3)),
    (lambda d: d["boards"][0].update(number="1"), "boards[0]: board '1' is not in set 1 of the plan", (2, 3)),
    (lambda d: d["boards"][2]["hands"]["N"].append(7), "board 3: not one whole pack", (2, 3)),
    (lambda d: d["plan"]["boards"][0].__setitem__(2, "Q"), "the plan's boards or pack cannot be read", (2,)),
])
def test_verify_never_crashes_on_a_crafted_file(dealt: tuple[Event, Path], tmp_path: Path,
                                                 change: object, message: str, schemas: tuple[int, ...]) -> None:
    event, root = dealt
    for schema in schemas:
        data = json.loads(boardset_path(event, 1, root).read_text())
        if schema == 2:
            data = with_plan(data, root)
        change(data)  # type: ignore[operator]
        crafted = tmp_path / "crafted.json"
        crafted.write_text(json.dumps(data))
        plan = ["--commitment", root / "demo/commitment.json"] if schema == 3 else []
        code, _, err = run("verify", crafted, "--key-file", root / "demo/deal.key", *plan)
        assert code == 1 and message in err and "Traceback" not in err, (schema, err)


@pytest.mark.parametrize("layout", [Layout(2, 25, 8), Layout(1, 12, 6, False), Layout(2, 26, 4, False),
                                    Layout(3, 39, 6), Layout(4, 52, 8), Layout(3, 39, 6, False)],
                         ids=lambda layout: f"{layout.decks}d-{layout.kitty}-{layout.kitty_in_hand}")
def test_boards_in_columns_are_the_single_board_path_s(layout: Layout) -> None:
    """The batch path as `dealer deal` writes boards (hands in display order, kitty, deal code)
    and as `verify` reads them gives exactly the boards of :func:`deal_board`; the set file
    written in columns is byte for byte the canonical JSON of the document built board by board."""
    import numpy as np

    from dealer.batch import code_digits, deal_codes, digits_from_counts, json_hands, places, set_inputs
    from dealer.batch import shuffle_inputs as shuffle
    from dealer.commitment import ALGORITHM, canonical_json, commitment_of_digest
    from dealer.formats.boardset import BOARDSET_SCHEMA, PlanOf, fingerprint, set_files

    boards = [(s, b) for s in (1, 2) for b in range(1, 30)]
    declarers = ["NESW"[(7 * b + s) % 4] for s, b in boards]
    held = places(shuffle(set_inputs(KAT_KEY, "kat", boards, "pv"), 54 * layout.decks), layout, declarers)
    digits = code_digits(held, layout.decks)
    apart = not layout.kitty_in_hand
    codes = deal_codes(digits, layout.decks, apart)
    kinds = np.arange(held.shape[1]) % 54
    counts = np.stack([np.stack([np.bincount(kinds[row == p], minlength=54) for p in range(5)]) for row in held])
    assert (digits_from_counts(counts, layout.decks) == digits).all()
    singles = []
    for (s, b), declarer, code, arrays in zip(boards, declarers, codes, json_hands(held), strict=True):
        single = deal_board(KAT_KEY, BoardSpec("kat", s, b, declarer, "2", "pv"), layout).as_dict()
        hands = dict(zip("NESW", [json.loads(array) for array in arrays[:4]], strict=True))
        assert (single["deal_code"], single["hands"], single["kitty"]) == (code, hands, json.loads(arrays[4]))
        singles.append((s, single))
    plan = {"algorithm": ALGORITHM, "event": "kat", "profile": "official-2002", "profile_version": 1,
            "decks": layout.decks, "hand": layout.hand, "kitty": layout.kitty,
            "kitty_mode": "in-hand" if layout.kitty_in_hand else "apart", "sets": 2, "boards_per_set": 29,
            "boards": [[s, b, d, "2"] for (s, b), d in zip(boards, declarers, strict=True)],
            "public_value_source": "a draw"}
    of = PlanOf(plan)
    for set_number, data in set_files(KAT_KEY, of, "pv"):
        entries = [board for s, board in singles if s == set_number]
        document = {"schema": BOARDSET_SCHEMA, "event": "kat", "set": set_number, "algorithm": ALGORITHM,
                    "commitment": commitment_of_digest(KAT_KEY, of.sha256), "plan_sha256": of.sha256,
                    "public_value": "pv", "profile": "official-2002", "decks": layout.decks, "hand": layout.hand,
                    "kitty_size": layout.kitty, "kitty_mode": plan["kitty_mode"],
                    "fingerprint": fingerprint(entries), "boards": entries}
        assert data == canonical_json(document) + b"\n"


def test_commitment_file_written_from_a_template_is_json_dumps_indented() -> None:
    """commitment.json's plan boards come from a template (speed); the bytes are still
    ``json.dumps(indent=1)`` of the document (docs/dealing.md §8.1), for any plan."""
    from dealer.app.dealing import commitment_bytes
    from dealer.files import json_bytes

    boards = [[s, b, "NESW"[b % 4], ["2", "10", "A", "J"][(s + b) % 4]] for s in (1, 2, 12) for b in range(1, 17)]
    for rows in (boards, boards[:1], []):
        plan = {"algorithm": "shengji-deal-v1", "event": "活动-x", "boards": rows, "public_value_source": None}
        document = {"schema": "shengji-dealer/commitment/1", "commitment": "ab" * 32, "plan_sha256": "cd" * 32,
                    "plan": plan}
        assert commitment_bytes(document) == json_bytes(document)


def test_verify_takes_every_set_file_at_once_and_reads_schema_2(dealt: tuple[Event, Path], tmp_path: Path) -> None:
    """One `dealer verify` for the whole event; a set file as version 0.2 wrote it (schema 2, the
    plan inside, indented) is still verified and still read for printing."""
    event, root = dealt
    folder = root / "demo"
    paths = [boardset_path(event, n, root) for n in (1, 2, 3)]
    code, out, _ = run("verify", *paths, "--key-file", folder / "deal.key")
    assert code == 0 and all(f"set {n} verified: 16 boards" in out for n in (1, 2, 3))
    old = with_plan(json.loads(paths[1].read_text()), root)
    text = json.dumps(old, ensure_ascii=False, indent=1) + "\n"
    paths[1].write_text(text)
    code, out, _ = run("verify", *paths, "--key-file", folder / "deal.key")
    assert code == 0 and "set 2 verified" in out
    manifest = json.loads((folder / "manifest.json").read_text())
    import hashlib

    manifest["files"]["set-02.json"] = hashlib.sha256(text.encode()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    assert [b.deal.code for b in EventFolder(event.id, root).read_set(event, 2).boards] == \
        [b["deal_code"] for b in old["boards"]]
    hands = old["boards"][3]["hands"]
    other = next(i for i, card in enumerate(hands["E"]) if card != hands["N"][0])
    hands["N"][0], hands["E"][other] = hands["E"][other], hands["N"][0]
    paths[1].write_text(json.dumps(old))
    code, _, err = run("verify", *paths, "--key-file", folder / "deal.key")
    assert code == 1 and "set-02.json: board 4" in err
