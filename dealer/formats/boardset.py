"""The board-set document (``set-NN.json``): build it, read it back with every check, verify it.

Pure: documents are plain mappings; reading and writing files is :mod:`dealer.app.dealing` and
:mod:`dealer.store.folder`. The schema is in ``docs/dealing.md`` §8.

A document is trusted only after :func:`check_boardset` found it whole and consistent: the
fields it must have and no others, the plan whose hash it carries, top-level fields equal to the
plan's, exactly the plan's boards of its set (each once, with the plan's declarer and level),
each board exactly one pack whose deal code it states, and the fingerprint of those boards.
Only the key proves that the cards are the dealt ones: :func:`verify_boardset`.

Schema 3 names its plan by its hash only (the plan is in ``commitment.json``, once): schema 2
repeated the whole plan, every board of every set, in every set file, so an event's files grew
as the square of its sets. Reading a schema-3 file takes the plan from the caller; older
schemas are still read with the plan they carry. Boards are dealt and checked in columns
(:mod:`dealer.batch`), never one :class:`~dealer.cards.Deal` at a time, except to hand a set to
printing (:func:`parse_boardset`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dealer.cards import ALL_KINDS, LEVELS, SEATS, Deal, Pack, parse_card
from dealer.commitment import ALGORITHM, canonical_json, commitment_of_digest, plan_digest
from dealer.deal import Board, BoardSpec, Layout, deal_board
from dealer.errors import UserError, quote
from dealer.event import KITTY_MODES, Event
from dealer.formats.dealfiles import HEX64

if TYPE_CHECKING:
    # NumPy and the batch path are imported by the functions that deal or read cards: a command
    # that only checks a folder's files (by their hashes) never loads them.
    import numpy as np
    import numpy.typing as npt

BOARDSET_SCHEMA = "shengji-dealer/boardset/3"
#: Schema 2 carried the whole plan (every board of every set) in every set file.
PLAN_SCHEMA = "shengji-dealer/boardset/2"
#: Schema 1 also carried ``event_name``, which no commitment covers (schema 2 dropped it).
LEGACY_SCHEMA = "shengji-dealer/boardset/1"

_TOP_FIELDS = ("schema", "event", "set", "algorithm", "commitment", "plan_sha256", "public_value",
               "profile", "decks", "hand", "kitty_size", "kitty_mode", "fingerprint", "boards")
_FIELDS = {BOARDSET_SCHEMA: frozenset(_TOP_FIELDS), PLAN_SCHEMA: frozenset((*_TOP_FIELDS, "plan")),
           LEGACY_SCHEMA: frozenset((*_TOP_FIELDS, "plan", "event_name"))}
#: The schemas whose files carry their plan.
_WITH_PLAN = frozenset((PLAN_SCHEMA, LEGACY_SCHEMA))
#: Top-level field → the plan's field it must equal.
_FROM_PLAN = {"event": "event", "algorithm": "algorithm", "profile": "profile", "decks": "decks",
              "hand": "hand", "kitty_size": "kitty", "kitty_mode": "kitty_mode"}
_BOARD_FIELDS = frozenset(("number", "declarer", "level", "hands", "kitty", "deal_code"))


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


def kitty_apart(layout: Layout) -> bool:
    """Whether boards of this layout have a kitty of their own (deal codes ``…K…``)."""
    return not layout.kitty_in_hand and layout.kitty > 0


def dealt_codes(key: bytes, event_id: str, set_number: int, conditions: Sequence[tuple[int, str]],
                layout: Layout, public_value: str | None) -> list[str]:
    """The deal codes that the key deals for boards (number, declarer) of one set, by the batch
    path (the declarer matters when the kitty goes to the declarer's hand)."""
    from dealer.batch import code_digits, deal_codes, places, set_inputs, shuffle_inputs

    orders = shuffle_inputs(set_inputs(key, event_id, [(set_number, n) for n, _ in conditions], public_value),
                            54 * layout.decks)
    held = places(orders, layout, [declarer for _, declarer in conditions])
    return deal_codes(code_digits(held, layout.decks), layout.decks, kitty_apart(layout))


def set_files(key: bytes, plan: PlanOf, public_value: str | None,
              set_numbers: Sequence[int] | None = None) -> Iterator[tuple[int, bytes]]:
    """(set, the bytes of its set file) of every set of the plan (or of ``set_numbers``):
    canonical JSON and a newline (docs/dealing.md §8.1), deterministic for a key, plan and public
    value. Sets are dealt together, a few thousand boards at a time, and written in columns
    (:func:`dealer.batch.json_hands`): the same bytes as ``canonical_json`` of the document, which
    the tests check, at a fraction of the cost of building and encoding it."""
    from dealer.batch import CHUNK, code_digits, deal_codes, json_hands, places, set_inputs, shuffle_inputs

    content = plan.plan
    layout = Layout(int(content["decks"]), int(content["hand"]), int(content["kitty"]),
                    content["kitty_mode"] == "in-hand")
    event_id = str(content["event"])
    head = {"schema": BOARDSET_SCHEMA, "event": event_id, "algorithm": ALGORITHM,
            "commitment": commitment_of_digest(key, plan.sha256), "plan_sha256": plan.sha256,
            "public_value": public_value, "profile": content["profile"], "decks": layout.decks,
            "hand": layout.hand, "kitty_size": layout.kitty, "kitty_mode": content["kitty_mode"]}
    encoded = {name: b'"%s":%s' % (name.encode("ascii"), canonical_json(value)) for name, value in head.items()}
    words = {text: canonical_json(text) for text in (*SEATS, *LEVELS)}
    by_set = plan.by_set
    numbers = sorted(by_set) if set_numbers is None else list(set_numbers)
    step = max(1, CHUNK // max(1, int(content["boards_per_set"])))
    for first in range(0, len(numbers), step):
        chunk = numbers[first : first + step]
        boards = [(s, n, *by_set[s][n]) for s in chunk for n in sorted(by_set[s])]
        orders = shuffle_inputs(set_inputs(key, event_id, [(s, n) for s, n, _, _ in boards], public_value),
                                54 * layout.decks)
        held = places(orders, layout, [declarer for _, _, declarer, _ in boards])
        codes = deal_codes(code_digits(held, layout.decks), layout.decks, kitty_apart(layout))
        entries: dict[int, list[bytes]] = {s: [] for s in chunk}
        listed: dict[int, list[bytes]] = {s: [] for s in chunk}  # what the fingerprint covers
        for (s, number, declarer, level), code, (north, east, south, west, kitty) in zip(
                boards, codes, json_hands(held), strict=True):
            entries[s].append(b'{"deal_code":"%s","declarer":%s,"hands":{"E":%s,"N":%s,"S":%s,"W":%s},'
                              b'"kitty":%s,"level":%s,"number":%d}'
                              % (code.encode("ascii"), words[declarer], east, north, south, west, kitty,
                                 words[level], number))
            listed[s].append(b'[%d,%s,%s,"%s"]' % (number, words[declarer], words[level], code.encode("ascii")))
        for s in chunk:
            # fingerprint() of the boards: the SHA-256 of the same canonical JSON, written here.
            digest = hashlib.sha256(b"[" + b",".join(listed[s]) + b"]").hexdigest()[:16]
            fields = {**encoded, "set": b'"set":%d' % s, "fingerprint": b'"fingerprint":"%s"' % digest.encode("ascii"),
                      "boards": b'"boards":[' + b",".join(entries[s]) + b"]"}
            yield s, b"{" + b",".join(fields[name] for name in sorted(fields)) + b"}\n"


def boardset_documents(event: Event, key: bytes, public_value: str | None,
                       set_numbers: Sequence[int] | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(set, board set file content) of every set (or of ``set_numbers``): the documents that
    :func:`set_files` writes, read back."""
    for set_number, data in set_files(key, PlanOf(event.plan(ALGORITHM)), public_value, set_numbers):
        yield set_number, json.loads(data)


def boardset_document(
    event: Event, set_number: int, key: bytes, public_value: str | None
) -> dict[str, Any]:
    """The board set file content for one set (deterministic for a key and event)."""
    ((_, document),) = boardset_documents(event, key, public_value, [set_number])
    return document


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


class PlanOf:
    """A plan read once for any number of set files: its hash and its boards by set."""

    def __init__(self, plan: Mapping[str, Any], sha256: str | None = None) -> None:
        """``sha256``: the plan's hash when already computed (else computed here: ``TypeError``
        or ``ValueError`` when the plan cannot be read)."""
        self.plan = plan
        self.sha256 = plan_digest(plan) if sha256 is None else sha256
        self._by_set: dict[int, dict[int, tuple[str, str]]] | None = None

    @property
    def by_set(self) -> dict[int, dict[int, tuple[str, str]]]:
        """set → board → (declarer, level); ``ValueError`` (``KeyError``, ``TypeError``) when the
        plan's boards cannot be read."""
        if self._by_set is None:
            by_set: dict[int, dict[int, tuple[str, str]]] = {}
            for (set_number, number), conditions in plan_conditions(self.plan).items():
                by_set.setdefault(set_number, {})[number] = conditions
            self._by_set = by_set
        return self._by_set


@dataclass(frozen=True)
class CheckedSet:
    """A board set document found whole and consistent, its boards in columns (by number)."""

    set_number: int
    commitment: str
    plan: PlanOf
    public_value: str | None
    fingerprint: str
    layout: Layout
    numbers: tuple[int, ...]
    declarers: tuple[str, ...]
    levels: tuple[str, ...]
    codes: tuple[str, ...]
    #: Per board, the card kinds that N, E, S, W and the kitty hold.
    kinds: tuple[tuple[npt.NDArray[np.int16], ...], ...]

    def boardset(self) -> BoardSet:
        from dealer.batch import KITTY_PLACE

        decks = self.layout.decks
        boards = tuple(
            Board(self.set_number, number, declarer, level,
                  Deal.build(decks, {seat: [ALL_KINDS[k] for k in held[i]] for i, seat in enumerate(SEATS)},
                             [ALL_KINDS[k] for k in held[KITTY_PLACE]]))
            for number, declarer, level, held in zip(self.numbers, self.declarers, self.levels, self.kinds,
                                                     strict=True))
        plan = self.plan.plan
        return BoardSet(event=str(plan["event"]), set_number=self.set_number, commitment=self.commitment,
                        plan_sha256=self.plan.sha256, plan=plan, public_value=self.public_value,
                        fingerprint=self.fingerprint, boards=boards)


@functools.cache
def _kind_by_name() -> npt.NDArray[np.int16]:
    """Card kind by the two ASCII bytes of its name read as one big-endian 16-bit number (-1: none)."""
    import numpy as np

    table = np.full(1 << 16, -1, dtype=np.int16)
    for card in ALL_KINDS:
        table[int.from_bytes(card.ascii.encode("ascii"), "big")] = card.kind
    return table


def _kinds(cards: Any) -> npt.NDArray[np.int16]:
    """The kinds of a list of cards as a set file writes them; any other form of a card that
    :func:`~dealer.cards.parse_card` reads is accepted too. ``ValueError`` names a bad card."""
    import numpy as np

    cards = _list(cards)
    if set(map(type, cards)) <= {str} and set(map(len, cards)) <= {2}:
        text = "".join(cards)
        if text.isascii():
            kinds: npt.NDArray[np.int16] = _kind_by_name()[np.frombuffer(text.encode("ascii"), dtype=">u2")]
            if (kinds >= 0).all():
                return kinds
    return np.array([parse_card(_card_text(c)).kind for c in cards], dtype=np.int16)


def _entry_kinds(entry: Mapping[str, Any]) -> tuple[npt.NDArray[np.int16], ...]:
    """The kinds held by N, E, S, W and the kitty of a board entry (``ValueError`` if unreadable)."""
    hands = entry["hands"]
    if not isinstance(hands, Mapping) or set(hands) != set(SEATS):
        raise ValueError(f"hands must be exactly {', '.join(SEATS)}")
    return (*(_kinds(hands[seat]) for seat in SEATS), _kinds(entry.get("kitty", [])))


class _Board:
    """A board entry read in the first pass of :func:`check_boardset`."""

    __slots__ = ("code", "computed", "counts", "declarer", "kinds", "level", "number", "where")

    def __init__(self, where: str, number: int, declarer: str, level: str, kinds: tuple[npt.NDArray[np.int16], ...],
                 code: Any) -> None:
        self.where, self.number, self.declarer, self.level, self.kinds = where, number, declarer, level, kinds
        import numpy as np

        self.code = code  # as written
        self.computed = ""  # the code of its hands
        self.counts = np.stack([np.bincount(k, minlength=54) for k in kinds])  # (5, 54)


def check_boardset(data: Any, plan: PlanOf | None = None) -> tuple[CheckedSet | None, list[str]]:
    """Read a board set document: the checked set and no problem, or ``None`` and every problem.

    ``plan``: the committed plan, which a schema-3 document names by its hash only (older ones
    carry theirs). Raises :class:`BoardSetError` when ``data`` is not a board set document at
    all, or is one of schema 3 and no plan is given.
    """
    import numpy as np

    from dealer.batch import KITTY_PLACE, deal_codes, digits_from_counts

    if not isinstance(data, Mapping) or data.get("schema") not in _FIELDS:
        raise BoardSetError("boardset.not_a_board_set", boardset_schema=BOARDSET_SCHEMA)
    problems: list[str] = []
    allowed = _FIELDS[data["schema"]]
    for name in sorted(set(data) - allowed):
        problems.append(f"unknown field {quote(name)}")
    for name in sorted(allowed - set(data)):
        problems.append(f"field {name} is missing")
    if problems:
        return None, problems
    if data["schema"] in _WITH_PLAN:
        if not isinstance(data["plan"], Mapping):
            return None, ["the plan is not an object"]
        try:
            plan = PlanOf(data["plan"])
        except (TypeError, ValueError):
            return None, ["the plan cannot be read"]
    elif plan is None:
        raise BoardSetError("boardset.plan_needed", boardset_schema=BOARDSET_SCHEMA)
    content = plan.plan
    if data["plan_sha256"] != plan.sha256:
        problems.append("plan_sha256 is not the hash of the plan")
    if content.get("algorithm") != ALGORITHM:
        return None, [*problems, f"unknown algorithm {quote(content.get('algorithm'))}"]
    for name, plan_name in _FROM_PLAN.items():
        if data[name] != content.get(plan_name) or isinstance(data[name], bool):
            problems.append(f"{name} is {quote(data[name])}, the plan says {quote(content.get(plan_name))}")
    if not isinstance(data["commitment"], str) or not HEX64.fullmatch(data["commitment"]):
        problems.append("the commitment is not 64 lower-case hex digits")
    public_value = data["public_value"]
    if content.get("public_value_source") is None:
        if public_value is not None:
            problems.append("public_value is given but the plan names no public value source")
    elif not isinstance(public_value, str) or not public_value.strip():
        problems.append("the plan names a public value source but public_value is missing or empty")
    set_number = data["set"]
    try:
        by_set = plan.by_set
        decks = int(content["decks"])
        hand, kitty = int(content["hand"]), int(content["kitty"])
        in_hand = content["kitty_mode"] == "in-hand"
        layout = Layout(decks, hand, kitty, in_hand)
        Pack(decks)
    except (KeyError, TypeError, ValueError):
        return None, [*problems, "the plan's boards or pack cannot be read"]
    if not _is_int(set_number) or set_number not in by_set:
        return None, [*problems, f"set {quote(set_number)} is not in the plan"]
    conditions = by_set[set_number]
    entries = data["boards"]
    if not isinstance(entries, list):
        return None, [*problems, "boards is not a list"]
    # First pass: the structure of every entry, in order; problems and boards read as they come.
    found: list[str | _Board] = []
    seen: set[int] = set()
    for index, entry in enumerate(entries):
        where = f"boards[{index}]"
        if not isinstance(entry, Mapping):
            found.append(f"{where} is not an object")
            continue
        extra = set(entry) - _BOARD_FIELDS
        missing = _BOARD_FIELDS - set(entry)
        if extra or missing:
            found.append(f"{where}: " + "; ".join(
                [f"unknown field {quote(n)}" for n in sorted(extra)] +
                [f"field {n} is missing" for n in sorted(missing)]))
            continue
        number = entry["number"]
        if not _is_int(number) or number not in conditions:
            found.append(f"{where}: board {quote(number)} is not in set {set_number} of the plan")
            continue
        where = f"board {number}"
        if number in seen:
            found.append(f"{where} appears twice")
            continue
        seen.add(number)
        declarer, level = conditions[number]
        if entry["declarer"] != declarer or entry["level"] != level:
            found.append(f"{where}: declarer and level are {quote(entry['declarer'])} "
                         f"{quote(entry['level'])}, the plan says {declarer} {level}")
            continue
        try:
            kinds = _entry_kinds(entry)
        except (KeyError, TypeError, ValueError) as error:
            found.append(f"{where}: not one whole pack: {error}")
            continue
        board = _Board(where, number, declarer, level, kinds, entry["deal_code"])
        if (board.counts.sum(axis=0) != decks).any():
            found.append(f"{where}: not one whole pack: the hands and kitty are not exactly one pack")
            continue
        found.append(board)
    boards = [item for item in found if isinstance(item, _Board)]
    # The deal codes of the boards' hands, all at once (the radix is 5 when a board has a kitty).
    for apart in (False, True):
        group = [b for b in boards if bool(b.counts[KITTY_PLACE].sum()) == apart]
        if group:
            digits = digits_from_counts(np.stack([b.counts for b in group]), decks)
            for board, code in zip(group, deal_codes(digits, decks, apart), strict=True):
                board.computed = code
    # Second pass: the problems in the order of the entries.
    for item in found:
        if isinstance(item, str):
            problems.append(item)
            continue
        sizes = dict(zip(SEATS, item.counts.sum(axis=1).tolist(), strict=False))
        kitty_held = int(item.counts[KITTY_PLACE].sum())
        expected_sizes = {seat: hand + (kitty if in_hand and seat == item.declarer else 0) for seat in SEATS}
        if sizes != expected_sizes or kitty_held != (0 if in_hand else kitty):
            problems.append(f"{item.where}: hands of {', '.join(f'{s} {n}' for s, n in sizes.items())} and a kitty of "
                            f"{kitty_held}; the plan deals {content['hand']} a hand and a kitty of "
                            f"{content['kitty']} {'to the declarer' if in_hand else 'apart'}")
        if item.code != item.computed:
            problems.append(f"{item.where}: deal_code is not the code of its hands")
    for number in sorted(conditions):
        if number not in seen:
            problems.append(f"board {number} is missing")
    if not problems and data["fingerprint"] != fingerprint(entries):
        problems.append("the fingerprint is not that of the boards")
    if problems:
        return None, problems
    boards.sort(key=lambda b: b.number)
    return CheckedSet(
        set_number=set_number, commitment=data["commitment"], plan=plan, public_value=public_value,
        fingerprint=data["fingerprint"], layout=layout, numbers=tuple(b.number for b in boards),
        declarers=tuple(b.declarer for b in boards), levels=tuple(b.level for b in boards),
        codes=tuple(b.computed for b in boards), kinds=tuple(b.kinds for b in boards),
    ), []


def parse_boardset(data: Any, plan: PlanOf | None = None) -> tuple[BoardSet | None, list[str]]:
    """:func:`check_boardset`, and the set's boards as :class:`~dealer.deal.Board` objects (for
    printing)."""
    checked, problems = check_boardset(data, plan)
    return (None, problems) if checked is None else (checked.boardset(), [])


def _differing_entries(data: Mapping[str, Any], key: bytes, plan: PlanOf | None) -> list[int]:
    """In a document that did not read whole: the boards whose entry (deal code or hands) is not
    the board the key deals, as far as the plan and the entries can be read."""
    content = data.get("plan") if data.get("schema") in _WITH_PLAN else (plan.plan if plan else None)
    set_number, public_value = data.get("set"), data.get("public_value")
    entries = data.get("boards")
    if (not isinstance(content, Mapping) or not isinstance(set_number, int) or isinstance(set_number, bool)
            or not isinstance(entries, list) or not (public_value is None or isinstance(public_value, str))):
        return []
    try:
        layout = Layout(int(content["decks"]), int(content["hand"]), int(content["kitty"]),
                        content["kitty_mode"] == "in-hand")
        Pack(layout.decks)
        conditions = plan_conditions(content)
    except (KeyError, TypeError, ValueError):
        return []
    differing: set[int] = set()
    for entry in entries:
        number = entry.get("number") if isinstance(entry, Mapping) else None
        if not isinstance(number, int) or (set_number, number) not in conditions:
            continue
        declarer, level = conditions[(set_number, number)]
        spec = BoardSpec(str(content.get("event")), set_number, number, declarer, level, public_value)
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
    """What verifying one board set against the key and its commitment found."""

    commitment_ok: bool
    differing_boards: list[int]
    problems: list[str]
    notes: list[str] = field(default_factory=list)  # not failures: what the check did not cover
    set_number: int | None = None
    boards: int = 0
    commitment: str | None = None
    public_value: str | None = None  # the file's

    @property
    def ok(self) -> bool:
        return self.commitment_ok and not self.differing_boards and not self.problems


def verify_boardset(
    data: Any, key: bytes, public_value: str | None = None, published: str | None = None,
    plan: PlanOf | None = None,
) -> VerifyReport:
    """Check a board set document whole and re-derive its commitment and every board from the key.

    ``public_value`` is the announced public value, which the file's must equal (when given);
    ``published`` is the commitment published before play, which the file's must equal; ``plan``
    the committed plan (needed for schema 3, :func:`check_boardset`). Raises
    :class:`BoardSetError` when ``data`` is not a board set document at all. (Files as ``dealer
    deal`` wrote them are found so faster, many at once, by :func:`dealt_as_written`.)
    """
    parsed, problems = check_boardset(data, plan)
    report = VerifyReport(False, [], list(problems))
    if parsed is None:
        report.differing_boards = _differing_entries(data, key, plan)
        return report
    report.set_number, report.boards, report.commitment, report.public_value = (
        parsed.set_number, len(parsed.numbers), parsed.commitment, parsed.public_value)
    report.commitment_ok = commitment_of_digest(key, parsed.plan.sha256) == parsed.commitment
    if not report.commitment_ok:
        report.problems.append("the commitment does not match this key and plan")
    codes = dealt_codes(key, str(parsed.plan.plan["event"]), parsed.set_number,
                        list(zip(parsed.numbers, parsed.declarers, strict=True)), parsed.layout, parsed.public_value)
    report.differing_boards = [number for number, written, dealt
                               in zip(parsed.numbers, parsed.codes, codes, strict=True) if written != dealt]
    return against_announced(report, public_value, published)


def against_announced(report: VerifyReport, public_value: str | None, published: str | None) -> VerifyReport:
    """Add to the report of a set that was read whole what the announced public value and the
    published commitment say of it."""
    if published is None:
        report.notes.append("no published commitment given: this shows that the file agrees with this "
                            "key, not that it is the event's committed deal")
    elif published.strip().lower() != report.commitment:
        report.commitment_ok = False
        report.problems.append(f"the set's commitment is not the published one ({published.strip()})")
    if public_value is not None and public_value != report.public_value:
        report.problems.append(f"the file's public value {quote(report.public_value)} is not the "
                               f"announced one {quote(public_value)}")
    elif public_value is None and report.public_value is not None:
        report.notes.append(f"public value {quote(report.public_value)} taken from the file: check "
                            "that it is the announced draw")
    return report


#: The end of a schema-3 set file as :func:`set_files` writes it (members sorted, so these last).
_WRITTEN_END = re.compile(rb'"plan_sha256":"([0-9a-f]{64})","profile":"[^"\\]*","public_value":'
                          rb'(null|"(?:[^"\\]|\\.)*"),"schema":"' + re.escape(BOARDSET_SCHEMA.encode()) +
                          rb'","set":([1-9][0-9]{0,5})\}\n\Z')


def written_set(raw: bytes) -> tuple[str, int, str | None] | None:
    """(plan hash, set, public value) named at the end of a file that looks like a schema-3 set
    file as ``dealer deal`` writes it; ``None`` for any other. Only a guess: the file is that set
    when its bytes are the ones the key deals (:func:`dealt_as_written`)."""
    found = _WRITTEN_END.search(raw, max(0, len(raw) - 4096))
    if found is None:
        return None
    try:
        value = json.loads(found.group(2))
    except ValueError:
        return None
    return found.group(1).decode("ascii"), int(found.group(3)), value


def _dealable(plan: PlanOf, public_value: str | None) -> bool:
    """Whether ``dealer deal`` could deal this plan with this public value: only then does a file
    equal to what :func:`set_files` makes pass every check of :func:`check_boardset` (which
    also judges what :func:`set_files` takes on trust: the algorithm, the fields' types, the
    public value's rule, a pack that exists)."""
    content = plan.plan
    try:
        ints_ok = all(_is_int(content[name]) for name in ("decks", "hand", "kitty"))
        texts_ok = all(isinstance(content[name], str) for name in ("event", "profile", "kitty_mode"))
        if not (ints_ok and texts_ok and content.get("algorithm") == ALGORITHM
                and content["kitty_mode"] in KITTY_MODES):
            return False
        Pack(int(content["decks"]))
        plan.by_set  # noqa: B018 - reads the boards: a plan whose boards cannot be read is not dealable
    except (KeyError, TypeError, ValueError):
        return False
    if content.get("public_value_source") is None:
        return public_value is None
    return public_value is not None and bool(public_value.strip())


def dealt_as_written(files: Sequence[bytes], key: bytes, plan: PlanOf) -> list[VerifyReport | None]:
    """For each file's bytes: when they are byte for byte the set file this key deals under the
    plan, the report that says so (the file is then whole and consistent, its commitment this
    key's and every board the dealt one; :func:`against_announced` adds the rest); else ``None``,
    and the file is to be read and checked field by field (:func:`verify_boardset`). The sets
    of all files are dealt in one batch."""
    wanted: dict[str | None, set[int]] = {}
    guesses = []
    for raw in files:
        guess = written_set(raw)
        if guess is not None and (guess[0] != plan.sha256 or not _dealable(plan, guess[2])
                                  or guess[1] not in plan.by_set):
            guess = None
        guesses.append(guess)
        if guess is not None:
            wanted.setdefault(guess[2], set()).add(guess[1])
    dealt = {(value, s): data for value, numbers in wanted.items()
             for s, data in set_files(key, plan, value, sorted(numbers))}
    reports: list[VerifyReport | None] = []
    for raw, guess in zip(files, guesses, strict=True):
        if guess is None or dealt[(guess[2], guess[1])] != raw:
            reports.append(None)
            continue
        reports.append(VerifyReport(True, [], [], set_number=guess[1], boards=len(plan.by_set[guess[1]]),
                                    commitment=commitment_of_digest(key, plan.sha256), public_value=guess[2]))
    return reports
