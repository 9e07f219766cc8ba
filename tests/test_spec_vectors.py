"""The vectors of docs/dealing.md, docs/notation.md and docs/qr.md, read from the documents.

Every table and example that these documents give as a vector is parsed here and checked
against the implementation, so a number changed in a document, or a document that drifts from
the code, fails a test. The canonical JSON, the file bytes and the plan are also rebuilt by small
functions written from the text of docs/dealing.md §7 and §8 (not with the json module nor
``Event.plan``): the text, not the Python calls, defines the bytes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import tomllib
from math import ceil
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

from dealer.batch import shuffle_many
from dealer.cards import SEATS, decode_deal
from dealer.commitment import KeyFormatError, canonical_json, commitment, key_id, parse_key, plan_digest
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
from dealer.event import EventError, parse_event
from dealer.formats.qr import LabelId, check_label, label_payload, parse_payload
from dealer.resources import demo_event_text, load_profile

DOCS = Path(__file__).resolve().parent.parent / "docs"
KAT_KEY = bytes(range(32))
ALGORITHM = "shengji-deal-v1"


# --- reading the documents -------------------------------------------------------------------


def _doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _section(text: str, title: str) -> str:
    """The body of the section whose heading starts with ``title`` (e.g. ``"### 9.1"``), up to
    the next heading of the same or a higher level (lines inside code blocks are not headings)."""
    lines = text.splitlines()
    level = len(title) - len(title.lstrip("#"))
    starts = [i for i, line in enumerate(lines) if line.startswith(title)]
    assert len(starts) == 1, f"expected one section {title!r}"
    body: list[str] = []
    fenced = False
    for line in lines[starts[0] + 1 :]:
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else re.match(r"(#+) ", line)
        if heading and len(heading.group(1)) <= level:
            break
        body.append(line)
    return "\n".join(body)


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every Markdown table of ``text``: (header cells, rows of cells)."""
    lines = text.splitlines()
    found: list[tuple[list[str], list[list[str]]]] = []
    i = 0
    while i < len(lines):
        if (lines[i].startswith("|") and i + 1 < len(lines)
                and re.fullmatch(r"\|( *-+ *\|)+", lines[i + 1].strip())):
            header = _cells(lines[i])
            rows: list[list[str]] = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                row = _cells(lines[i])
                assert len(row) == len(header), lines[i]
                rows.append(row)
                i += 1
            found.append((header, rows))
        else:
            i += 1
    return found


def _table(text: str, first_column: str) -> list[dict[str, str]]:
    """The rows of the only table of ``text`` whose first column is ``first_column``."""
    matching = [(h, rows) for h, rows in _tables(text) if h[0] == first_column]
    assert len(matching) == 1, f"expected one table starting with column {first_column!r}"
    header, rows = matching[0]
    return [dict(zip(header, row, strict=True)) for row in rows]


def _code(cell: str) -> str:
    """The text of a cell written as one code span (`…`), kept exactly (spaces included)."""
    assert cell.startswith("`") and cell.endswith("`") and len(cell) >= 2, cell
    return cell[1:-1]


def _block(text: str, language: str) -> str:
    """The content of the only fenced code block of ``text`` in ``language``."""
    blocks = re.findall(rf"^```{language}\n(.*?)\n```$", text, re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, f"expected one {language} block"
    return str(blocks[0])


def _search(pattern: str, text: str) -> re.Match[str]:
    found = re.search(pattern, text)
    assert found, f"not found in the document: {pattern}"
    return found


DEALING = _doc("dealing.md")
NOTATION = _doc("notation.md")
QR = _doc("qr.md")


# --- the rules of docs/dealing.md, written from its text ------------------------------------

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _string(text: str) -> str:
    """A JSON string as §7.4 writes it."""
    out = ['"']
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)  # decimal, "-" before a negative number
    if isinstance(value, str):
        return _string(value)
    raise TypeError(f"no JSON form in the spec for {value!r}")


def _canonical_text(value: Any) -> str:
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: [ord(c) for c in key])  # by code point
        return "{" + ",".join(_string(k) + ":" + _canonical_text(value[k]) for k in keys) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_canonical_text(item) for item in value) + "]"
    return _scalar(value)


def _canonical(value: Any) -> bytes:
    """Canonical JSON bytes (§7.4)."""
    return _canonical_text(value).encode("utf-8")


def _pretty(value: Any, depth: int = 0) -> str:
    """A value indented by one space per level, members in their order (§8.1)."""
    inner = " " * (depth + 1)
    if isinstance(value, dict) and value:
        members = [inner + _string(k) + ": " + _pretty(v, depth + 1) for k, v in value.items()]
        return "{\n" + ",\n".join(members) + "\n" + " " * depth + "}"
    if isinstance(value, list) and value:
        items = [inner + _pretty(v, depth + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * depth + "]"
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def _file_bytes(value: Any) -> bytes:
    """The bytes of commitment.json and manifest.json (§8.1)."""
    return (_pretty(value) + "\n").encode("utf-8")


def _set_file_bytes(value: Any) -> bytes:
    """The bytes of a set file (§8.1): canonical JSON and a newline."""
    return _canonical(value) + b"\n"


def _white_space() -> set[str]:
    """The white space of §7.3, from its list of code points."""
    text = _section(DEALING, "### 7.3")
    listed = _search(r"is true: (.*?)\. \(", " ".join(text.split())).group(1)
    chars: set[str] = set()
    for first, last in re.findall(r"U\+([0-9A-F]{4})(?:–U\+([0-9A-F]{4}))?", listed):
        chars.update(chr(c) for c in range(int(first, 16), int(last or first, 16) + 1))
    return chars


WHITE_SPACE = _white_space()


def _strip(text: str) -> str:
    start, end = 0, len(text)
    while start < end and text[start] in WHITE_SPACE:
        start += 1
    while end > start and text[end - 1] in WHITE_SPACE:
        end -= 1
    return text[start:end]


def _seat(value: Any) -> str:
    seat = _strip(str(value)).upper()
    assert seat in SEATS, value
    return seat


DEFAULT_LEVELS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def _level(value: Any) -> str:
    assert isinstance(value, (str, int)) and not isinstance(value, bool), value
    text = _strip(str(value)).upper()
    level = "10" if text in ("T", "10") else text
    assert level in DEFAULT_LEVELS, value
    return level


class DeckRules(NamedTuple):
    version: int
    hand: int
    kitty: int
    alternatives: tuple[int, ...]


def _profile_table() -> dict[tuple[str, int], DeckRules]:
    rows = _table(_section(DEALING, "### 7.1"), "profile")
    return {
        (_code(row["profile"]), int(row["decks"])): DeckRules(
            int(row["version"]), int(row["hand"]), int(row["kitty"]),
            () if row["alternative kitty"] == "–" else tuple(int(k) for k in row["alternative kitty"].split(",")),
        )
        for row in rows
    }


def _plan_from_doc(data: dict[str, Any]) -> dict[str, Any]:
    """The plan of a valid event file, by the rules of §7.1–§7.3 and the profile table."""
    head = data["event"]
    schedule = data.get("schedule", {})
    profile = _strip(head["profile"])
    decks = head.get("decks", 2)
    rules = _profile_table()[(profile, decks)]
    kitty = head.get("kitty", rules.kitty)
    assert kitty in (rules.kitty, *rules.alternatives) and (54 * decks - kitty) % 4 == 0
    sets = head.get("sets", 1)
    per_set = head.get("boards_per_set", 16)
    rotation = [_seat(s) for s in schedule.get("declarer_rotation", ["N", "E", "S", "W"])]
    levels = [_level(v) for v in schedule.get("levels", DEFAULT_LEVELS)]
    boards = {
        (s, n): [s, n, rotation[(n - 1) % len(rotation)], levels[(n - 1) % len(levels)]]
        for s in range(1, sets + 1)
        for n in range(1, per_set + 1)
    }
    for override in schedule.get("overrides", []):
        for s in [override["set"]] if "set" in override else range(1, sets + 1):
            if "declarer" in override:
                boards[(s, override["board"])][2] = _seat(override["declarer"])
            if "level" in override:
                boards[(s, override["board"])][3] = _level(override["level"])
    source = head.get("public_value_source")
    return {
        "algorithm": ALGORITHM,
        "event": _strip(head["id"]),
        "profile": profile,
        "profile_version": rules.version,
        "decks": decks,
        "hand": (54 * decks - kitty) // 4,
        "kitty": kitty,
        "kitty_mode": head.get("kitty_mode", "in-hand"),
        "sets": sets,
        "boards_per_set": per_set,
        "boards": [boards[k] for k in sorted(boards)],
        "public_value_source": None if source is None else _strip(source),
    }


def _plan_sha256(plan: dict[str, Any]) -> bytes:
    return hashlib.sha256(_canonical(plan)).digest()


def _commitment(key: bytes, plan: dict[str, Any]) -> str:
    """§7.5, with the 32-byte digest of the plan."""
    return hashlib.sha256(b"shengji-dealer/commitment/v1\x00" + key + _plan_sha256(plan)).hexdigest()


def _key_id(key: bytes) -> str:
    return hashlib.sha256(b"shengji-dealer/key-id/v1\x00" + key).digest()[:8].hex()


def _display_key(card: str) -> tuple[int, int]:
    """Display order (docs/notation.md): BJ, LJ, then ♠ ♥ ♣ ♦, each from A down to 2."""
    if card in ("BJ", "LJ"):
        return ("BJ", "LJ").index(card), 0
    return 2 + "SHCD".index(card[0]), -"23456789TJQKA".index(card[1])


# --- §9.1: boards ------------------------------------------------------------------------------

BOARD_ROWS = _table(_section(DEALING, "### 9.1"), "set")


def _public_value(cell: str) -> str | None:
    if cell == "–":
        return None
    value = json.loads(_code(cell))
    assert isinstance(value, str)
    return value


def _layout(row: dict[str, str]) -> Layout:
    assert row["kitty mode"] in ("in-hand", "separate")
    return Layout(int(row["decks"]), int(row["hand"]), int(row["kitty"]), row["kitty mode"] == "in-hand")


@pytest.mark.parametrize("row", BOARD_ROWS, ids=lambda row: f"set{row['set']}-board{row['board']}")
def test_board_vectors(row: dict[str, str]) -> None:
    set_number, board = int(row["set"]), int(row["board"])
    public = _public_value(row["public value"])
    layout = _layout(row)
    material = board_input(KAT_KEY, "kat", set_number, board, public)
    words = [int(w, 16) for w in _code(row["first words"]).split()]
    stream = WordStream(material)
    assert [stream.next_word() for _ in words] == words
    order = [int(p) for p in row["order[0:10]"].split()]
    size = 54 * layout.decks
    assert shuffle_positions(material, size)[:10] == order
    batch = shuffle_many(KAT_KEY, "kat", set_number, [board], size, public)
    assert batch[0].tolist()[:10] == order
    deal = deal_board(KAT_KEY, BoardSpec("kat", set_number, board, row["declarer"], "2", public), layout).deal
    assert deal.code == _code(row["deal code"])
    assert decode_deal(deal.code) == deal
    for level in ("A", "10"):  # the level plays no part
        spec = BoardSpec("kat", set_number, board, row["declarer"], level, public)
        assert deal_board(KAT_KEY, spec, layout).deal.code == deal.code


def test_first_vector_input_and_north_hand() -> None:
    text = _section(DEALING, "### 9.1")
    expected = _search(r"in hex:\s*`([0-9a-f]+)`", text).group(1)
    assert board_input(KAT_KEY, "kat", 1, 1).hex() == expected
    north = _search(r"holds\s*`([^`]+)`", text).group(1)
    row = BOARD_ROWS[0]
    deal = deal_board(KAT_KEY, BoardSpec("kat", 1, 1, row["declarer"], "2"), _layout(row)).deal
    assert " ".join(c.ascii for c in deal.hands["N"]) == north


def test_rejection_vector() -> None:
    """§9.1: the word the rejection row discards, the word used instead, and no earlier board
    of set 1 with a rejection."""
    text = " ".join(_section(DEALING, "### 9.1").split())
    found = _search(r"word (\d+), `([0-9a-f]{8})`, is not below the limit `([0-9a-f]{8})` for the pair "
                    r"`\((\d+), (\d+)\)`.*?uses word (\d+), `([0-9a-f]{8})`", text)
    index, word, limit, a, b, next_index, next_word = found.groups()
    (row,) = [r for r in BOARD_ROWS if r["board"] == "33748"]
    board = int(row["board"])
    material = board_input(KAT_KEY, "kat", int(row["set"]), board)
    stream = WordStream(material)
    words = [stream.next_word() for _ in range(int(next_index) + 1)]
    pairs = draw_bounds(108)
    assert pairs[int(index)] == (int(a), int(b))
    assert WORD_LIMIT - WORD_LIMIT % (int(a) * int(b)) == int(limit, 16)
    assert words[int(index)] == int(word, 16) >= int(limit, 16)
    assert words[int(next_index)] == int(next_word, 16) < int(limit, 16)
    assert _search(r"boards 1 to (\d+) have none", text).group(1) == str(board - 1)
    inputs = [board_input(KAT_KEY, "kat", 1, n) for n in range(1, board)]
    raw = b"".join(hashlib.shake_256(m).digest(4 * len(pairs)) for m in inputs)
    all_words = np.frombuffer(raw, dtype=">u4").reshape(len(inputs), len(pairs)).astype(np.uint64)
    limits = np.array([WORD_LIMIT - WORD_LIMIT % int(np.prod(p)) for p in pairs], dtype=np.uint64)
    assert not (all_words >= limits).any()


def test_the_lone_last_bound() -> None:
    """§4: n − 1 bounds, paired from the top; the lone bound 2 always comes last."""
    for decks in range(1, 5):
        n = 54 * decks
        groups = draw_bounds(n)
        assert groups[:-1] == [(m, m - 1) for m in range(n, 3, -2)]
        assert groups[-1] == (2,)
        assert len(groups) == n // 2


# --- §9.2, §9.3: commitments and canonical JSON ----------------------------------------------

EVENT_SECTION = _section(DEALING, "### 9.4")
EVENT_DATA = tomllib.loads(_block(EVENT_SECTION, "toml"))


def _event_plan() -> dict[str, Any]:
    return parse_event(EVENT_DATA, load_profile).plan(ALGORITHM)


def test_commitment_vectors() -> None:
    rows = _table(_section(DEALING, "### 9.2"), "plan")
    plans: list[dict[str, Any]] = []
    for row in rows:
        if row["plan"] == "the plan of §9.4":
            plans.append(_event_plan())
        else:
            plan = json.loads(_code(row["plan"]))
            assert _canonical(plan) == _code(row["plan"]).encode()
            plans.append(plan)
    assert len(plans) == 2
    for row, plan in zip(rows, plans, strict=True):
        assert plan_digest(plan) == _plan_sha256(plan).hex() == _code(row["plan_sha256"])
        assert commitment(KAT_KEY, plan) == _commitment(KAT_KEY, plan) == _code(row["commitment"])
    expected_id = _search(r"key id of the key is `([0-9a-f]{16})`", _section(DEALING, "### 9.2")).group(1)
    assert key_id(KAT_KEY) == _key_id(KAT_KEY) == expected_id


@pytest.mark.parametrize("row", _table(_section(DEALING, "### 9.3"), "value"), ids=lambda row: row["value"][:20])
def test_canonical_json_examples(row: dict[str, str]) -> None:
    value = json.loads(_code(row["value"]))
    expected = bytes.fromhex(_code(row["canonical bytes"]))
    assert canonical_json(value) == expected
    assert _canonical(value) == expected


def test_the_written_canonical_form_is_the_tool_s_on_tricky_values() -> None:
    """The encoder written from §7.4 gives the bytes of dealer.commitment.canonical_json."""
    chars = [chr(c) for c in range(0x300)]
    chars += ["\u2028", "\u2029", "\ufeff", "\uffff", "\uff61", "\U0001f600", "\U0010ffff", "福"]
    values: list[Any] = [
        "".join(chars),
        {c: i for i, c in enumerate(reversed(chars))},
        {"boards": [[1, 1, "N", "10"]], "boards_per_set": 1, "b": None, "a": {"": [True, False, -7, 0]}},
        [2**70, -(2**70), [], {}, [[]], ""],
        {"\U0001f600": 1, "\uff61": 2, "\ue000": 3, "\ud7ff": 4},  # code point order, not UTF-16
    ]
    for value in values:
        assert _canonical(value) == canonical_json(value)
    assert list(json.loads(_canonical(values[4]))) == ["\ud7ff", "\ue000", "\uff61", "\U0001f600"]


# --- §7, §9.4: the plan of an event file -----------------------------------------------------

PLAN_FIELDS = [_code(row["field"]) for row in _table(_section(DEALING, "### 7.1"), "field")]


def _events() -> list[dict[str, Any]]:
    """Event files whose plans the rules of §7 must rebuild."""
    demo = tomllib.loads(demo_event_text())
    bare = {"event": {"id": "bare", "name": "n", "profile": "official-2002"}}
    one_deck = {"event": {"id": "one", "name": "n", "profile": "official-2002", "decks": 1, "kitty": 2,
                          "kitty_mode": "separate", "sets": 3, "boards_per_set": 5,
                          "public_value_source": "\u001c\u0085 draw \u00a0\u200b"},
                "schedule": {"declarer_rotation": [" s", "n", "E\u3000"], "levels": ["q", " t", 9],
                             "overrides": [{"board": 2}, {"set": 3, "board": 5, "level": "a"},
                                           {"board": 5, "declarer": "w"}, {"set": 2, "board": 5, "level": 10}]}}
    four = {"event": {"id": "four", "name": "n", "profile": " four-deck-2v2\t", "decks": 4, "sets": 2}}
    return [demo, EVENT_DATA, bare, one_deck, four]


@pytest.mark.parametrize("data", _events(), ids=lambda data: str(data["event"]["id"]).strip())
def test_the_plan_follows_the_written_rules(data: dict[str, Any]) -> None:
    plan = parse_event(data, load_profile).plan(ALGORITHM)
    assert list(plan) == PLAN_FIELDS
    assert plan == _plan_from_doc(data)
    assert _canonical(plan) == canonical_json(plan)


def test_the_profile_table() -> None:
    for (profile_id, decks), rules in _profile_table().items():
        profile = load_profile(profile_id)
        assert profile.id == profile_id and profile.version == rules.version
        deck_rules = profile.rules_for(decks)
        assert (deck_rules.hand, deck_rules.kitty, deck_rules.alternative_kitty) == (
            rules.hand, rules.kitty, rules.alternatives)
    listed = {profile for profile, _ in _profile_table()}
    for profile_id in listed:
        assert set(load_profile(profile_id).supported_decks) == {d for p, d in _profile_table() if p == profile_id}


def test_the_white_space_list_is_python_s() -> None:
    assert {chr(c) for c in range(0x110000) if chr(c).isspace()} == WHITE_SPACE
    for char in ("\u180e", "\u200b", "\ufeff"):
        assert char not in WHITE_SPACE


def test_seats_are_ascii_letters_only() -> None:
    """§7.3: only ASCII letters are upper-cased; U+017F (which Python upper-cases to S) is refused."""
    text = " ".join(_section(DEALING, "### 7.3").split())
    assert "ASCII letters upper-cased" in text and "`ſ` (U+017F) is refused" in text
    for seat, expected in (("n", "N"), (" w ", "W"), ("S", "S")):
        data = {"event": {"id": "x", "name": "x", "profile": "official-2002"},
                "schedule": {"declarer_rotation": [seat]}}
        assert parse_event(data, load_profile).plan(ALGORITHM)["boards"][0][2] == expected
    for refused in ("ſ", "Ｎ", "north"):
        data = {"event": {"id": "x", "name": "x", "profile": "official-2002"},
                "schedule": {"declarer_rotation": [refused]}}
        with pytest.raises(EventError):
            parse_event(data, load_profile)


def test_the_event_plan_and_its_canonical_bytes() -> None:
    plan = _event_plan()
    expected = _block(EVENT_SECTION, "json").encode("utf-8")
    assert canonical_json(plan) == _canonical(plan) == expected
    size = _search(r"\((\d+) bytes of UTF-8", EVENT_SECTION).group(1)
    assert len(expected) == int(size)


EVENT_PUBLIC_VALUE = json.loads(_search(r"public value `(\"[^`]*\")`", EVENT_SECTION).group(1))


def _event_boards(plan: dict[str, Any], set_number: int) -> list[dict[str, Any]]:
    """The boards of a set as §8.2 lists them, from the dealt deals."""
    members = [_code(row["board member"]) for row in _table(_section(DEALING, "### 8.2"), "board member")]
    layout = Layout(plan["decks"], plan["hand"], plan["kitty"], plan["kitty_mode"] == "in-hand")
    boards = []
    for s, number, declarer, level in plan["boards"]:
        if s != set_number:
            continue
        spec = BoardSpec(plan["event"], s, number, declarer, level, EVENT_PUBLIC_VALUE)
        deal = deal_board(KAT_KEY, spec, layout).deal
        values = {
            "number": number,
            "declarer": declarer,
            "level": level,
            "hands": {seat: sorted((c.ascii for c in deal.hands[seat]), key=_display_key) for seat in SEATS},
            "kitty": sorted((c.ascii for c in deal.kitty), key=_display_key),
            "deal_code": deal.code,
        }
        boards.append({member: values[member] for member in members})
    return boards


def test_the_event_boards() -> None:
    assert EVENT_PUBLIC_VALUE == " 福彩3D 12345 "
    plan = _event_plan()
    rows = _table(EVENT_SECTION, "set")
    assert len(rows) == len(plan["boards"])
    for row, entry in zip(rows, plan["boards"], strict=True):
        assert [int(row["set"]), int(row["board"]), row["declarer"], row["level"]] == entry
        (board,) = [b for b in _event_boards(plan, entry[0]) if b["number"] == entry[1]]
        assert board["deal_code"] == _code(row["deal code"])
        assert len(board["kitty"]) == plan["kitty"]


def _schema(file_name: str) -> str:
    (row,) = [r for r in _table(_section(DEALING, "### 8.3"), "file") if _code(r["file"]) == file_name]
    value = json.loads(_search(r"\(`(\"[^`]+\")`\)", row["members, in this order"]).group(1))
    assert isinstance(value, str)
    return value


def _members(file_name: str) -> list[str]:
    (row,) = [r for r in _table(_section(DEALING, "### 8.3"), "file") if _code(r["file"]) == file_name]
    return re.findall(r"`([a-z0-9_]+)`", row["members, in this order"])


def test_the_event_files_byte_for_byte() -> None:
    """§8: the set files, commitment.json and manifest.json that `dealer deal` writes for the
    event of §9.4, rebuilt from the member tables of §8 and the layouts of §8.1. The plan is in
    commitment.json only; set files name it by its hash."""
    plan = _event_plan()
    files_table = {_code(row["file"]): row for row in _table(EVENT_SECTION, "file")}
    set_rows = _table(_section(DEALING, "### 8.2"), "member")
    set_members = [_code(row["member"]) for row in set_rows]
    schema = json.loads(_code(set_rows[0]["value"]))
    files: dict[str, bytes] = {}
    for set_number in range(1, plan["sets"] + 1):
        boards = _event_boards(plan, set_number)
        content = [[b["number"], b["declarer"], b["level"], b["deal_code"]] for b in boards]
        fingerprint = hashlib.sha256(_canonical(content)).hexdigest()[:16]
        values = {
            "schema": schema, "event": plan["event"],
            "set": set_number, "algorithm": ALGORITHM, "commitment": _commitment(KAT_KEY, plan),
            "plan_sha256": _plan_sha256(plan).hex(), "public_value": EVENT_PUBLIC_VALUE,
            "profile": plan["profile"], "decks": plan["decks"], "hand": plan["hand"],
            "kitty_size": plan["kitty"], "kitty_mode": plan["kitty_mode"], "fingerprint": fingerprint,
            "boards": boards,
        }
        assert set(values) == set(set_members)
        name = f"set-{set_number:02d}.json"
        files[name] = _set_file_bytes({member: values[member] for member in set_members})
        assert _code(files_table[name]["fingerprint"]) == fingerprint
    commitment_values = {"schema": _schema("commitment.json"), "commitment": _commitment(KAT_KEY, plan),
                         "plan_sha256": _plan_sha256(plan).hex(), "plan": plan}
    manifest_values = {"schema": _schema("manifest.json"), "event": plan["event"], "algorithm": ALGORITHM,
                       "commitment": _commitment(KAT_KEY, plan), "key_id": _key_id(KAT_KEY),
                       "files": {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}}
    for name, values in (("commitment.json", commitment_values), ("manifest.json", manifest_values)):
        assert _members(name) == list(values)
        files[name] = _file_bytes(values)
    assert set(files) == set(files_table)
    for name, data in files.items():
        assert hashlib.sha256(data).hexdigest() == _code(files_table[name]["SHA-256"]), name
        if name.startswith("set-"):
            assert data == canonical_json(json.loads(data)) + b"\n"
        else:
            assert data == (json.dumps(json.loads(data), ensure_ascii=False, indent=1) + "\n").encode()


def test_dealer_deal_writes_exactly_these_files(tmp_path: Path) -> None:
    """§9.4: `dealer deal` itself, run on the event of the docs, writes the files of the table."""
    from dealer.app.dealing import deal_event
    from dealer.files import load_event
    from dealer.store.folder import EventFolder

    event_file = tmp_path / "spec.toml"
    event_file.write_text(_block(EVENT_SECTION, "toml"), encoding="utf-8")
    key_file = tmp_path / "kat.key"
    key_file.write_text(KAT_KEY.hex() + "\n", encoding="ascii")
    event = load_event(event_file)
    folder = EventFolder(event.id, tmp_path / "boards")
    deal_event(event, folder, key_file, EVENT_PUBLIC_VALUE)
    for row in _table(EVENT_SECTION, "file"):
        data = (folder.path / _code(row["file"])).read_bytes()
        assert hashlib.sha256(data).hexdigest() == _code(row["SHA-256"]), row["file"]


def test_the_file_layout_example() -> None:
    example = _block(_section(DEALING, "### 8.1"), "json")
    value = json.loads(example)
    assert _file_bytes(value) == (example + "\n").encode("utf-8")
    assert _file_bytes(value) == (json.dumps(value, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


# --- §1, §7.6: the key file and the public value ------------------------------------------------


def test_key_file_forms() -> None:
    """§1: written as 64 lower-case hex digits and a newline; read without any white space."""
    written = KAT_KEY.hex() + "\n"
    assert len(written.encode("ascii")) == 65 and written == written.lower()
    spaced = " ".join(KAT_KEY.hex()[i : i + 8] for i in range(0, 64, 8))
    for text in (written, KAT_KEY.hex(), KAT_KEY.hex().upper() + "\r\n", spaced, "\t" + spaced.replace(" ", "\n"),
                 "\x0b\x0c\x1c\x1d\x1e\x1f" + KAT_KEY.hex()):
        assert parse_key(text) == KAT_KEY
    for bad in ("0x" + KAT_KEY.hex(), KAT_KEY.hex()[:-2], KAT_KEY.hex() + "00", KAT_KEY.hex()[:-1] + "g"):
        with pytest.raises(KeyFormatError):
            parse_key(bad)


def test_the_public_value_is_used_byte_for_byte() -> None:
    """§7.6: no trimming, no normalisation; none and empty give the same stream."""
    values = ["12345", " 12345", "12345 ", "１２３４５", "Caf\u00e9", "Cafe\u0301"]
    codes = {deal_board(KAT_KEY, BoardSpec("kat", 1, 1, "N", "2", v), Layout(2, 25, 8)).deal.code for v in values}
    assert len(codes) == len(values)
    assert board_input(KAT_KEY, "kat", 1, 1, None) == board_input(KAT_KEY, "kat", 1, 1, "")
    value = " 福彩3D 12345 "
    assert board_input(KAT_KEY, "kat", 1, 1, value).endswith(len(value.encode()).to_bytes(4, "big") + value.encode())


# --- docs/notation.md: the deal code lengths ---------------------------------------------------

DEFAULT_LAYOUTS = {1: (12, 6), 2: (25, 8), 3: (39, 6), 4: (52, 8)}


@pytest.mark.parametrize("row", _table(_section(NOTATION, "## The deal code"), "decks"), ids=lambda row: row["decks"])
def test_deal_code_lengths(row: dict[str, str]) -> None:
    decks = int(row["decks"])
    hand, kitty = DEFAULT_LAYOUTS[decks]
    for letter, base in (("H", 4), ("K", 5)):
        size = int(row[f"`{letter}` bytes"])
        chars = int(row[f"`{letter}` base32 characters"])
        assert size == ((base ** (54 * decks) - 1).bit_length() + 7) // 8
        assert chars == ceil(8 * size / 5)
        layout = Layout(decks, hand, kitty, kitty_in_hand=letter == "H")
        for board in (1, 2, 3):
            code = deal_board(KAT_KEY, BoardSpec("len", 1, board, "E", "2"), layout).deal.code
            assert code[:2] == f"{decks}{letter}"
            assert len(code) == 2 + chars
            assert len(base64.b32decode(code[2:] + "=" * (-len(code[2:]) % 8))) == size


# --- docs/qr.md: label check tags -------------------------------------------------------------

LABEL_SECTION = _section(QR, "## The check tag of wallet labels")


@pytest.mark.parametrize("row", _table(LABEL_SECTION, "event"), ids=lambda row: _code(row["payload"]))
def test_label_tags(row: dict[str, str]) -> None:
    event, set_number, board, copy = _code(row["event"]), int(row["set"]), int(row["board"]), int(row["copy"])
    payload = _code(row["payload"])
    assert label_payload(KAT_KEY, event, set_number, board, copy) == payload
    message = b"shengji-dealer/label-tag/v1\x00" + f"{event}\x00{set_number}\x00{board}\x00{copy}".encode()
    tag = base64.b32encode(hmac.new(KAT_KEY, message, "sha256").digest()).decode()[:8]
    assert payload == f"SJD1:L:{event}:{set_number}:{board}:{copy}:{tag}"
    label = parse_payload(payload)
    assert label == LabelId(event, set_number, board, copy, tag)
    assert check_label(KAT_KEY, label)


def test_label_tag_message_and_mac() -> None:
    found = _search(r"message is, in hex,\s*`([0-9a-f]+)`, and the MAC\s*`([0-9a-f]{64})`", LABEL_SECTION)
    message, mac = bytes.fromhex(found.group(1)), found.group(2)
    first = _table(LABEL_SECTION, "event")[0]
    identity = "\x00".join([_code(first["event"]), first["set"], first["board"], first["copy"]])
    assert message == b"shengji-dealer/label-tag/v1\x00" + identity.encode()
    assert hmac.new(KAT_KEY, message, "sha256").hexdigest() == mac


def test_the_examples_of_qr_md_parse() -> None:
    examples = _search(r"Examples: ([\s\S]*?)\.\n\n", QR).group(1)
    payloads = re.findall(r"`(SJD1:[^`]+)`", examples)
    assert len(payloads) == 3
    label = parse_payload(payloads[0])
    assert isinstance(label, LabelId) and check_label(KAT_KEY, label)
    for payload in payloads[1:]:
        parse_payload(payload)


# --- docs/qr.md: entry URLs (SJE1) --------------------------------------------------------------

ENTRY_SECTION = _section(QR, "## Entry URLs")
ENTRY_BASE = _search(r"and the base\s*`(https?://[^`]+)`", ENTRY_SECTION).group(1)


def _entry_mac(domain: bytes, message: str) -> bytes:
    return hmac.new(KAT_KEY, domain + message.encode(), "sha256").digest()


@pytest.mark.parametrize("row", _table(ENTRY_SECTION, "event"), ids=lambda row: _code(row["tag"]))
def test_entry_tags_and_codes(row: dict[str, str]) -> None:
    from dealer.formats.entry import SheetId, check_tag, entry_url, parse_entry_path, sheet_code, sheet_tag

    event, match, table = _code(row["event"]), _code(row["match"]), _code(row["table"])
    round_number, generation = int(row["round"]), int(row["generation"])
    tag, code = _code(row["tag"]), _code(row["code"])
    fields = f"{event}\x00{round_number}\x00{match}\x00{table}\x00{generation}"
    # Recomputed from the written rule, then by the module.
    assert base64.b32encode(_entry_mac(b"shengji-dealer/entry-tag/v1\x00", fields)).decode()[:16] == tag
    assert base64.b32encode(_entry_mac(b"shengji-dealer/entry-code/v1\x00", fields)).decode()[:8] == code
    sheet = SheetId(event, round_number, match, table, generation)
    assert sheet_tag(KAT_KEY, sheet) == tag and sheet_code(KAT_KEY, sheet) == code
    url = entry_url(ENTRY_BASE, KAT_KEY, sheet)
    assert url == f"{ENTRY_BASE}/t/SJE1/{event}/{round_number}/{match}/{table}/{generation}/{tag}"
    assert parse_entry_path(url) == (sheet, tag) and check_tag(KAT_KEY, sheet, tag)


def test_the_first_entry_url_message_and_mac() -> None:
    from dealer.formats.entry import SheetId, entry_url

    first = _table(ENTRY_SECTION, "event")[0]
    sheet = SheetId(_code(first["event"]), int(first["round"]), _code(first["match"]), _code(first["table"]),
                    int(first["generation"]))
    url = _search(r"The first one's URL is `([^`]+)`", ENTRY_SECTION).group(1)
    assert url == entry_url(ENTRY_BASE, KAT_KEY, sheet)
    found = _search(r"message is, in hex,\s*`([0-9a-f]+)`, and the MAC\s*`([0-9a-f]{64})`", ENTRY_SECTION)
    message = bytes.fromhex(found.group(1))
    assert message == b"shengji-dealer/entry-tag/v1\x00" + sheet.fields().encode()
    assert hmac.new(KAT_KEY, message, "sha256").hexdigest() == found.group(2)


@pytest.mark.parametrize("row", _table(ENTRY_SECTION, "team"), ids=lambda row: _code(row["team code"]))
def test_team_codes(row: dict[str, str]) -> None:
    from dealer.formats.entry import team_code

    team, event, code = _code(row["team"]), _code(row["event"]), _code(row["team code"])
    number = int.from_bytes(_entry_mac(b"shengji-dealer/team-code/v1\x00", f"{event}\x00{team}")[:8], "big")
    assert f"{number % 10**6:06d}" == code
    assert team_code(KAT_KEY, event, team) == code
