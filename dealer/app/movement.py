"""A round's movement as the faces show it: each set's movement with the hall's table names
(``dealer round show``), and the ways to serve a round (``dealer round copies``).

The movement itself is pure (:mod:`dealer.tournament.movement`); here it meets the event's
matches, the hall's table names and the layout data (the runs of a match's own copy).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dealer.app.played import RoundError
from dealer.event import Event, Match
from dealer.resources import exchange_runs
from dealer.tournament.movement import Choice, Movement, Place, TablePlan, choices

#: How a relay stack is named in JSON (``from``/``to``) and in the plain text's English.
RELAY_NAME = "relay {n}"


@dataclass(frozen=True)
class SetMovement:
    """The movement of a round's tables on one set, with each table's name in the hall."""

    set: int
    movement: Movement
    names: dict[tuple[str, str], str]

    def name(self, table: TablePlan) -> str:
        return self.names[table.key]

    def place_name(self, place: Place | None, relay: str = RELAY_NAME) -> str | None:
        """A place as printed: a table's hall name, a relay stack's name, ``None`` for the director."""
        if place is None:
            return None
        if place.kind == "relay":
            return relay.format(n=place.index)
        return self.names[self.movement.tables[place.index].key]

    def as_dict(self) -> dict[str, Any]:
        """The movement as ``dealer round show --json`` gives it (docs/tournaments.md)."""
        m = self.movement
        return {
            "set": self.set, "shared": m.shared, "copies": m.copies, "stanzas": m.stanzas,
            "wallets": m.wallets, "board_moves": m.board_moves(),
            "groups": [list(g) for g in m.groups],
            "tables": [{
                "match": t.key[0], "table": t.key[1], "name": self.name(t),
                "plays": [{"stanza": p.stanza, "group": p.group, "boards": list(p.boards), "copy": p.copy,
                           "from": self.place_name(p.source), "to": self.place_name(p.target)}
                          for p in t.plays],
            } for t in m.tables],
            "relays": [{
                "name": RELAY_NAME.format(n=r.number),
                "holds": [None if held is None else
                          {"stanza": stanza, "group": held[0], "boards": list(m.groups[held[0] - 1]), "copy": held[1]}
                          for stanza, held in enumerate(r.holds, start=1)],
            } for r in m.relays],
        }


def round_movements(event: Event, matches: Sequence[Match]) -> list[SetMovement]:
    """The movement of each set the matches play (a level race plays none), in order of first use."""
    if event.levels:
        return []
    found = []
    for set_number in dict.fromkeys(m.set for m in matches):
        tables, names = [], {}
        for m in matches:
            if m.set != set_number:
                continue
            for table, name in event.table_names(m).items():
                tables.append((m.id, table))
                names[(m.id, table)] = name
        found.append(SetMovement(set_number, event.movement_of(tables, set_number, exchange_runs()), names))
    return found


def movement_json(movements: Sequence[SetMovement]) -> dict[str, Any]:
    """``"movement"`` (a round on one set) or ``"movements"`` (a list, a round on several)."""
    if not movements:
        return {}
    if len(movements) == 1:
        return {"movement": movements[0].as_dict()}
    return {"movements": [m.as_dict() for m in movements]}


@dataclass(frozen=True)
class CopyChoices:
    """The ways to serve a round (``dealer round copies``): its tables, the set's boards, the
    event's own setting and every choice (the default first, then ``"auto"``, then numbers)."""

    round: int | None  # None: a round not paired yet, counted as one match every two teams
    tables: int
    boards: int
    setting: int | str | None
    choices: tuple[Choice, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round, "tables": self.tables, "boards": self.boards, "setting": self.setting,
            "choices": [{"copies_setting": c.setting, "copies": c.copies, "wallets": c.wallets,
                         "stanzas": c.stanzas, "boards_per_stanza": list(c.boards_per_stanza),
                         "board_moves": c.board_moves, "relay_stacks": c.relay_stacks,
                         "relay_waits": c.relay_waits} for c in self.choices],
        }


def copy_choices_of(event: Event, matches: Sequence[Match], round_number: int | None) -> CopyChoices:
    """The choices for a round's ``matches`` (on its first set); none given (a round not paired
    yet): one match every two teams."""
    if event.levels:
        raise RoundError("movement.level_race", field="round")
    if matches:
        first = matches[0].set
        tables = [(m.id, t) for m in matches if m.set == first for t in ("A", "B")]
        boards = [b.number for b in event.set_boards(first)]
        shown: int | None = round_number
    else:
        tables = [(str(m), t) for m in range(1, max(1, len(event.teams) // 2) + 1) for t in ("A", "B")]
        boards = [b.number for b in event.set_boards(1)]
        shown = None
    return CopyChoices(shown, len(tables), len(boards), event.copies,
                       tuple(choices(tables, boards, exchange_runs())))
