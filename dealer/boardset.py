"""The board-set document (``set-NN.json``): build it, read it back with every check, verify it.

Pure: documents are plain mappings; reading and writing files is :mod:`dealer.dealing` and
:mod:`dealer.folder`. The schema is in ``docs/dealing.md`` §8.

A document is trusted only after :func:`parse_boardset` found it whole and consistent: the
fields it must have and no others, the plan whose hash it carries, top-level fields equal to the
plan's, exactly the plan's boards of its set (each once, with the plan's declarer and level),
each board exactly one pack whose deal code it states, and the fingerprint of those boards.
Only the key proves that the cards are the dealt ones: :func:`verify_boardset`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealer.cards import LEVELS, SEATS, Deal, Pack, parse_card
from dealer.deal import (
    ALGORITHM,
    Board,
    BoardSpec,
    Layout,
    canonical_json,
    commitment,
    deal_board,
    plan_digest,
)
from dealer.errors import UserError, quote
from dealer.event import Event

BOARDSET_SCHEMA = "shengji-dealer/boardset/2"
#: Schema 1 also carried ``event_name``, which no commitment covers (schema 2 dropped it).
LEGACY_SCHEMA = "shengji-dealer/boardset/1"
MANIFEST_SCHEMA = "shengji-dealer/manifest/1"
COMMITMENT_SCHEMA = "shengji-dealer/commitment/1"

_TOP_FIELDS = ("schema", "event", "set", "algorithm", "commitment", "plan_sha256", "plan", "public_value",
               "profile", "decks", "hand", "kitty_size", "kitty_mode", "fingerprint", "boards")
_FIELDS = {BOARDSET_SCHEMA: frozenset(_TOP_FIELDS), LEGACY_SCHEMA: frozenset((*_TOP_FIELDS, "event_name"))}
#: Top-level field → the plan's field it must equal.
_FROM_PLAN = {"event": "event", "algorithm": "algorithm", "profile": "profile", "decks": "decks",
              "hand": "hand", "kitty_size": "kitty", "kitty_mode": "kitty_mode"}
_BOARD_FIELDS = frozenset(("number", "declarer", "level", "hands", "kitty", "deal_code"))
#: A SHA-256 as the files write it: 64 lower-case hex digits.
HEX64 = re.compile(r"[0-9a-f]{64}")


class BoardSetError(UserError):
    """The document is not a board set at all (another file, another schema)."""


def layout_of(event: Event) -> Layout:
    return Layout(event.decks, event.hand, event.kitty, event.kitty_mode == "in-hand")


def set_specs(event: Event, set_number: int, public_value: str | None) -> list[BoardSpec]:
    return [
        BoardSpec(event.id, b.set, b.number, b.declarer, b.level, public_value)
        for b in event.set_boards(set_number)
    ]


def fingerprint(boards: Sequence[Mapping[str, Any]]) -> str:
    """Short public fingerprint of a set: SHA-256 over its boards' numbers, conditions and deal
    codes (16 hex digits). Printed on hand records; it identifies the set, not its cards."""
    content = [[b["number"], b["declarer"], b["level"], b["deal_code"]] for b in boards]
    return hashlib.sha256(canonical_json(content)).hexdigest()[:16]


def boardset_document(
    event: Event, set_number: int, key: bytes, public_value: str | None
) -> dict[str, Any]:
    """The board set file content for one set (deterministic for a key and event)."""
    plan = event.plan(ALGORITHM)
    layout = layout_of(event)
    boards = [deal_board(key, spec, layout).as_dict()
              for spec in set_specs(event, set_number, public_value)]
    return {
        "schema": BOARDSET_SCHEMA,
        "event": event.id,
        "set": set_number,
        "algorithm": ALGORITHM,
        "commitment": commitment(key, plan),
        "plan_sha256": plan_digest(plan),
        "plan": plan,
        "public_value": public_value,
        "profile": event.profile.id,
        "decks": event.decks,
        "hand": event.hand,
        "kitty_size": event.kitty,
        "kitty_mode": event.kitty_mode,
        "fingerprint": fingerprint(boards),
        "boards": boards,
    }


@dataclass(frozen=True)
class BoardSet:
    """A board set document read back and found consistent."""

    event: str
    set_number: int
    commitment: str
    plan_sha256: str
    plan: Mapping[str, Any]
    public_value: str | None
    fingerprint: str
    boards: tuple[Board, ...]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def plan_conditions(plan: Mapping[str, Any]) -> dict[tuple[int, int], tuple[str, str]]:
    """(set, board) → (declarer, level) of a plan's boards; ``ValueError`` (or ``KeyError``,
    ``TypeError``) when one is not a seat and a level."""
    conditions: dict[tuple[int, int], tuple[str, str]] = {}
    for set_number, number, declarer, level in plan["boards"]:
        if declarer not in SEATS or level not in LEVELS:
            raise ValueError(f"board {number} of set {set_number}: {declarer!r} {level!r}")
        conditions[(int(set_number), int(number))] = (declarer, level)
    return conditions


def board_from_dict(data: Mapping[str, Any], set_number: int, decks: int) -> Board:
    """A board of a board set file, checked to be exactly one pack (``ValueError`` if not)."""
    hands = data["hands"]
    if not isinstance(hands, Mapping) or set(hands) != set(SEATS):
        raise ValueError(f"hands must be exactly {', '.join(SEATS)}")
    cards = {seat: [parse_card(_card_text(c)) for c in _list(hands[seat])] for seat in SEATS}
    kitty = [parse_card(_card_text(c)) for c in _list(data.get("kitty", []))]
    if not _is_int(data["number"]):
        raise ValueError("the board number must be a whole number")
    return Board(set_number, data["number"], str(data["declarer"]), str(data["level"]),
                 Deal.build(decks, cards, kitty))


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError("a hand must be a list of cards")
    return value


def _card_text(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"a card must be written as text, got {quote(value)}")
    return value


def parse_boardset(data: Any) -> tuple[BoardSet | None, list[str]]:
    """Read a board set document: the set and no problem, or ``None`` and every problem found.

    Raises :class:`BoardSetError` when ``data`` is not a board set document at all.
    """
    if not isinstance(data, Mapping) or data.get("schema") not in _FIELDS:
        raise BoardSetError(f"not a board set document (schema {BOARDSET_SCHEMA} expected)")
    problems: list[str] = []
    allowed = _FIELDS[data["schema"]]
    for name in sorted(set(data) - allowed):
        problems.append(f"unknown field {quote(name)}")
    for name in sorted(allowed - set(data)):
        problems.append(f"field {name} is missing")
    if problems:
        return None, problems
    plan = data["plan"]
    if not isinstance(plan, Mapping):
        return None, ["the plan is not an object"]
    try:
        plan_sha = plan_digest(plan)
    except (TypeError, ValueError):
        return None, ["the plan cannot be read"]
    if data["plan_sha256"] != plan_sha:
        problems.append("plan_sha256 is not the hash of the plan")
    if plan.get("algorithm") != ALGORITHM:
        return None, [*problems, f"unknown algorithm {quote(plan.get('algorithm'))}"]
    for name, plan_name in _FROM_PLAN.items():
        if data[name] != plan.get(plan_name) or isinstance(data[name], bool):
            problems.append(f"{name} is {quote(data[name])}, the plan says {quote(plan.get(plan_name))}")
    if not isinstance(data["commitment"], str) or not HEX64.fullmatch(data["commitment"]):
        problems.append("the commitment is not 64 lower-case hex digits")
    public_value = data["public_value"]
    if plan.get("public_value_source") is None:
        if public_value is not None:
            problems.append("public_value is given but the plan names no public value source")
    elif not isinstance(public_value, str) or not public_value.strip():
        problems.append("the plan names a public value source but public_value is missing or empty")
    set_number = data["set"]
    try:
        conditions = plan_conditions(plan)
        decks = int(plan["decks"])
        Layout(decks, int(plan["hand"]), int(plan["kitty"]), plan["kitty_mode"] == "in-hand")
        Pack(decks)
    except (KeyError, TypeError, ValueError):
        return None, [*problems, "the plan's boards or pack cannot be read"]
    if not _is_int(set_number) or not any(s == set_number for s, _ in conditions):
        return None, [*problems, f"set {quote(set_number)} is not in the plan"]
    expected = sorted(n for s, n in conditions if s == set_number)
    entries = data["boards"]
    if not isinstance(entries, list):
        return None, [*problems, "boards is not a list"]
    boards: list[Board] = []
    seen: set[int] = set()
    for index, entry in enumerate(entries):
        where = f"boards[{index}]"
        if not isinstance(entry, Mapping):
            problems.append(f"{where} is not an object")
            continue
        extra = set(entry) - _BOARD_FIELDS
        missing = _BOARD_FIELDS - set(entry)
        if extra or missing:
            problems.append(f"{where}: " + "; ".join(
                [f"unknown field {quote(n)}" for n in sorted(extra)] +
                [f"field {n} is missing" for n in sorted(missing)]))
            continue
        number = entry["number"]
        if not _is_int(number) or number not in expected:
            problems.append(f"{where}: board {quote(number)} is not in set {set_number} of the plan")
            continue
        where = f"board {number}"
        if number in seen:
            problems.append(f"{where} appears twice")
            continue
        seen.add(number)
        declarer, level = conditions[(set_number, number)]
        if entry["declarer"] != declarer or entry["level"] != level:
            problems.append(f"{where}: declarer and level are {quote(entry['declarer'])} "
                            f"{quote(entry['level'])}, the plan says {declarer} {level}")
            continue
        try:
            board = board_from_dict(entry, set_number, decks)
        except (KeyError, TypeError, ValueError) as error:
            problems.append(f"{where}: not one whole pack: {error}")
            continue
        in_hand = plan["kitty_mode"] == "in-hand"
        sizes = board.deal.sizes()
        expected_sizes = {seat: int(plan["hand"]) + (int(plan["kitty"]) if in_hand and seat == declarer else 0)
                          for seat in SEATS}
        if sizes != expected_sizes or len(board.deal.kitty) != (0 if in_hand else int(plan["kitty"])):
            problems.append(f"{where}: hands of {', '.join(f'{s} {n}' for s, n in sizes.items())} and a kitty of "
                            f"{len(board.deal.kitty)}; the plan deals {plan['hand']} a hand and a kitty of "
                            f"{plan['kitty']} {'to the declarer' if in_hand else 'apart'}")
        if entry["deal_code"] != board.deal.code:
            problems.append(f"{where}: deal_code is not the code of its hands")
        boards.append(board)
    for number in expected:
        if number not in seen:
            problems.append(f"board {number} is missing")
    if not problems and data["fingerprint"] != fingerprint(entries):
        problems.append("the fingerprint is not that of the boards")
    if problems:
        return None, problems
    return BoardSet(
        event=str(plan["event"]), set_number=set_number, commitment=data["commitment"],
        plan_sha256=plan_sha, plan=plan, public_value=public_value, fingerprint=data["fingerprint"],
        boards=tuple(sorted(boards, key=lambda b: b.number)),
    ), []


def _differing_entries(data: Mapping[str, Any], key: bytes) -> list[int]:
    """In a document that did not read whole: the boards whose entry (deal code or hands) is not
    the board the key deals, as far as the plan and the entries can be read."""
    plan, set_number, public_value = data.get("plan"), data.get("set"), data.get("public_value")
    entries = data.get("boards")
    if (not isinstance(plan, Mapping) or not isinstance(set_number, int) or isinstance(set_number, bool)
            or not isinstance(entries, list) or not (public_value is None or isinstance(public_value, str))):
        return []
    try:
        layout = Layout(int(plan["decks"]), int(plan["hand"]), int(plan["kitty"]),
                        plan["kitty_mode"] == "in-hand")
        Pack(layout.decks)
        conditions = plan_conditions(plan)
    except (KeyError, TypeError, ValueError):
        return []
    differing: set[int] = set()
    for entry in entries:
        number = entry.get("number") if isinstance(entry, Mapping) else None
        if not isinstance(number, int) or (set_number, number) not in conditions:
            continue
        declarer, level = conditions[(set_number, number)]
        spec = BoardSpec(str(plan.get("event")), set_number, number, declarer, level, public_value)
        expected = deal_board(key, spec, layout).deal.code
        try:
            same = entry.get("deal_code") == expected == board_from_dict(entry, set_number, layout.decks).deal.code
        except (KeyError, TypeError, ValueError):
            same = False
        if not same:
            differing.add(number)
    return sorted(differing)


@dataclass
class VerifyReport:
    commitment_ok: bool
    differing_boards: list[int]
    problems: list[str]
    notes: list[str] = field(default_factory=list)  # not failures: what the check did not cover
    set_number: int | None = None
    boards: int = 0
    commitment: str | None = None

    @property
    def ok(self) -> bool:
        return self.commitment_ok and not self.differing_boards and not self.problems


def verify_boardset(
    data: Any, key: bytes, public_value: str | None = None, published: str | None = None,
) -> VerifyReport:
    """Check a board set document whole and re-derive its commitment and every board from the key.

    ``public_value`` is the announced public value, which the file's must equal (when given);
    ``published`` is the commitment published before play, which the file's must equal. Raises
    :class:`BoardSetError` when ``data`` is not a board set document at all.
    """
    parsed, problems = parse_boardset(data)
    report = VerifyReport(False, [], list(problems))
    if parsed is None:
        report.differing_boards = _differing_entries(data, key)
        return report
    report.set_number, report.boards, report.commitment = (parsed.set_number, len(parsed.boards),
                                                           parsed.commitment)
    report.commitment_ok = commitment(key, parsed.plan) == parsed.commitment
    if not report.commitment_ok:
        report.problems.append("the commitment does not match this key and plan")
    if published is None:
        report.notes.append("no published commitment given: this shows that the file agrees with this "
                            "key, not that it is the event's committed deal")
    elif published.strip().lower() != parsed.commitment:
        report.commitment_ok = False
        report.problems.append(f"the set's commitment is not the published one ({published.strip()})")
    if public_value is not None and public_value != parsed.public_value:
        report.problems.append(f"the file's public value {quote(parsed.public_value)} is not the "
                               f"announced one {quote(public_value)}")
    elif public_value is None and parsed.public_value is not None:
        report.notes.append(f"public value {quote(parsed.public_value)} taken from the file: check "
                            "that it is the announced draw")
    plan = parsed.plan
    layout = Layout(int(plan["decks"]), int(plan["hand"]), int(plan["kitty"]),
                    plan["kitty_mode"] == "in-hand")
    for board in parsed.boards:
        spec = BoardSpec(str(plan["event"]), parsed.set_number, board.number, board.declarer,
                         board.level, parsed.public_value)
        if deal_board(key, spec, layout).deal.code != board.deal.code:
            report.differing_boards.append(board.number)
    return report
