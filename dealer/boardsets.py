"""Board sets on disk: dealing an event into ``boards/<event>/``, reading sets back, verifying.

The library behind ``dealer commit``, ``dealer deal`` and ``dealer verify``. Nothing here prints a
hand or the key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealer.cards import SEATS, Deal, parse_card
from dealer.deal import (
    ALGORITHM,
    Board,
    BoardSpec,
    Layout,
    canonical_json,
    commitment,
    deal_board,
    key_id,
    new_key,
    plan_digest,
)
from dealer.event import Event
from dealer.files import (
    BOARDSET_SCHEMA,
    MANIFEST_SCHEMA,
    FileProblem,
    boards_dir,
    boardset_path,
    json_bytes,
    read_boardset,
    read_json,
    read_key,
    sha256_file,
    write_atomic,
    write_key,
)

COMMITMENT_FILE = "commitment.json"
MANIFEST_FILE = "manifest.json"
KEY_FILE = "deal.key"


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
        "event_name": event.name,
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


@dataclass
class DealReport:
    folder: Path
    commitment: str
    key_file: Path
    key_created: bool
    files: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _other_events_with_key(root: Path, this_event: str, this_key_id: str) -> list[str]:
    found = []
    for manifest in sorted(root.glob(f"*/{MANIFEST_FILE}")):
        try:
            data = read_json(manifest, "manifest")
        except FileProblem:
            continue
        if data.get("key_id") == this_key_id and data.get("event") != this_event:
            found.append(str(data.get("event")))
    return found


def _key(event: Event, key_file: str | Path | None, root: Path) -> tuple[bytes, Path, bool]:
    if key_file is not None:
        return read_key(key_file), Path(key_file), False
    path = boards_dir(event, root) / KEY_FILE
    if path.exists():
        return read_key(path), path, False
    key = new_key()
    write_key(path, key)
    return key, path, True


def commit_event(
    event: Event, key_file: str | Path | None = None, root: str | Path = "boards"
) -> DealReport:
    """Create (or reuse) the key and write the publishable ``commitment.json``.

    Publishing it before the public value is known and before play binds the director to the
    key and plan: nothing can be re-dealt afterwards without the commitment changing.
    """
    root = Path(root)
    key, path, created = _key(event, key_file, root)
    plan = event.plan(ALGORITHM)
    committed = commitment(key, plan)
    document = {
        "schema": "shengji-dealer/commitment/1",
        "commitment": committed,
        "plan_sha256": plan_digest(plan),
        "plan": plan,
    }
    target = boards_dir(event, root) / COMMITMENT_FILE
    report = DealReport(target.parent, committed, path, created)
    if target.exists():
        existing = read_json(target, "commitment")
        if existing.get("commitment") != document["commitment"]:
            raise FileProblem(
                f"{target}: a different commitment is already published for this event "
                "(another key or a changed event plan); not replacing it"
            )
        return report
    write_atomic(target, json_bytes(document))
    report.files.append(target)
    return report


def deal_event(
    event: Event,
    key_file: str | Path | None = None,
    public_value: str | None = None,
    root: str | Path = "boards",
) -> DealReport:
    """Deal every board set of the event into ``root/<event>/``; never replaces a set."""
    root = Path(root)
    if event.public_value_source and public_value is None:
        raise FileProblem(
            f"the event names a public value ({event.public_value_source}): "
            "give it with --public-value"
        )
    if public_value is not None and not event.public_value_source:
        raise FileProblem(
            "a public value was given but the event file does not name its source "
            "(event.public_value_source), so the commitment would not cover it"
        )
    targets = [boardset_path(event, s, root) for s in range(1, event.sets + 1)]
    existing = [str(t) for t in targets if t.exists()]
    if existing:
        raise FileProblem(
            f"board set(s) already dealt: {', '.join(existing)}; not overwriting "
            "(move them away to deal again)"
        )
    report = commit_event(event, key_file, root)
    key = read_key(report.key_file)
    this_key_id = key_id(key)
    others = _other_events_with_key(root, event.id, this_key_id)
    if others:
        report.warnings.append(
            f"this key was already used for event(s) {', '.join(others)}: revealing it for "
            "one event reveals the other's boards"
        )
    for set_number, target in enumerate(targets, start=1):
        document = boardset_document(event, set_number, key, public_value)
        write_atomic(target, json_bytes(document))
        report.files.append(target)
    manifest = {
        "schema": MANIFEST_SCHEMA,
        "event": event.id,
        "algorithm": ALGORITHM,
        "commitment": report.commitment,
        "key_id": this_key_id,
        "files": {t.name: sha256_file(t) for t in targets},
    }
    manifest_path = boards_dir(event, root) / MANIFEST_FILE
    write_atomic(manifest_path, json_bytes(manifest), replace=True)
    report.files.append(manifest_path)
    return report


def check_plan(event: Event, root: str | Path = "boards") -> None:
    """Refuse an event file whose plan differs from the one that was committed and dealt.

    Labels, travellers, score sheets and scoring take declarers and levels from the event file;
    if it was edited after the deal (say a new declarer rotation), they would disagree with the
    dealt boards and credit level points to the wrong side. Teams and rounds are not part of the
    plan and may change (later rounds of a Swiss, a substitute team).
    """
    path = boards_dir(event, root) / COMMITMENT_FILE
    if not path.exists():
        return
    committed = read_json(path, "commitment")
    plan = event.plan(ALGORITHM)
    if committed.get("plan_sha256") == plan_digest(plan):
        return
    old = committed.get("plan") if isinstance(committed.get("plan"), Mapping) else {}
    changed = sorted(k for k in set(plan) | set(old) if plan.get(k) != old.get(k)) or ["plan"]
    raise FileProblem(
        f"{path}: the event file no longer matches the plan that was committed and dealt "
        f"(changed: {', '.join(changed)}); restore those settings, or deal a new event"
    )


def board_from_dict(data: Mapping[str, Any], set_number: int, decks: int) -> Board:
    """A board of a board set file, checked to be exactly one pack."""
    hands = {seat: [parse_card(c) for c in data["hands"][seat]] for seat in SEATS}
    kitty = [parse_card(c) for c in data.get("kitty", [])]
    return Board(set_number, int(data["number"]), str(data["declarer"]), str(data["level"]),
                 Deal.build(decks, hands, kitty))


def load_boards(event: Event, set_number: int, root: str | Path = "boards") -> list[Board]:
    """The dealt boards of one set, read back from ``boards/<event>/set-NN.json``."""
    path = boardset_path(event, set_number, root)
    if not path.exists():
        raise FileProblem(f"{path}: set {set_number} is not dealt yet (run: dealer deal)")
    check_plan(event, root)
    data = read_boardset(path)
    try:
        return [board_from_dict(b, set_number, int(data["decks"])) for b in data["boards"]]
    except (KeyError, ValueError) as error:
        raise FileProblem(f"{path}: damaged board set: {error}") from None


def read_commitment(event: Event, root: str | Path = "boards") -> str | None:
    path = boards_dir(event, root) / COMMITMENT_FILE
    return str(read_json(path, "commitment")["commitment"]) if path.exists() else None


def _same_board(entry: Mapping[str, Any], expected: Mapping[str, Any], set_number: int, decks: int) -> bool:
    """Same conditions, same deal code, and hands that are exactly the expected multisets."""
    if any(entry.get(k) != expected[k] for k in ("declarer", "level", "deal_code")):
        return False
    try:
        return bool(board_from_dict(entry, set_number, decks).deal.code == expected["deal_code"])
    except (KeyError, ValueError, TypeError):
        return False  # not even a pack: certainly not the dealt board


@dataclass
class VerifyReport:
    commitment_ok: bool
    differing_boards: list[int]
    problems: list[str]

    @property
    def ok(self) -> bool:
        return self.commitment_ok and not self.differing_boards and not self.problems


def verify_boardset(
    data: Mapping[str, Any], key: bytes, public_value: str | None = None,
    published: str | None = None,
) -> VerifyReport:
    """Re-derive the commitment and every board of a board set document from the key.

    ``public_value`` overrides the one recorded in the file when given; ``published`` is the
    commitment published before play, which the file's own must equal. Raises
    :class:`FileProblem` when the document cannot be read as a board set.
    """
    problems: list[str] = []
    plan = data.get("plan")
    if not isinstance(plan, Mapping):
        return VerifyReport(False, [], ["the board set holds no plan"])
    if plan.get("algorithm") != ALGORITHM:
        return VerifyReport(False, [], [f"unknown algorithm {plan.get('algorithm')!r}"])
    commitment_ok = commitment(key, plan) == data.get("commitment")
    if not commitment_ok:
        problems.append("the commitment does not match this key and plan")
    if published is not None and published.strip().lower() != data.get("commitment"):
        commitment_ok = False
        problems.append(f"the set's commitment is not the published one ({published.strip()})")
    if public_value is None:
        public_value = data.get("public_value")
    differing: list[int] = []
    seen: set[int] = set()
    try:
        if public_value is not None and not isinstance(public_value, str):
            raise TypeError("public_value must be a text")
        set_number = int(data["set"])
        layout = Layout(int(plan["decks"]), int(plan["hand"]), int(plan["kitty"]),
                        plan["kitty_mode"] == "in-hand")
        conditions = {(int(s), int(n)): (str(d), str(lvl)) for s, n, d, lvl in plan["boards"]}
        for entry in data["boards"]:
            number = int(entry["number"])
            seen.add(number)
            if (set_number, number) not in conditions:
                problems.append(f"board {number} is not in the plan")
                differing.append(number)
                continue
            declarer, level = conditions[(set_number, number)]
            spec = BoardSpec(str(plan["event"]), set_number, number, declarer, level, public_value)
            expected = deal_board(key, spec, layout).as_dict()
            if not _same_board(entry, expected, set_number, layout.decks):
                differing.append(number)
    except (KeyError, TypeError, ValueError) as error:
        raise FileProblem(f"damaged board set: cannot read {error}") from None
    for (s, n) in conditions:
        if s == set_number and n not in seen:
            problems.append(f"board {n} is missing from the set")
            differing.append(n)
    return VerifyReport(commitment_ok, sorted(set(differing)), problems)
