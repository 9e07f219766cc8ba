"""The movement of a round's boards: which group of boards each table plays in each stanza, with
which copy of the set, where the wallets come from and where they go next.

Pure domain code, no I/O (docs/tournaments.md, "Sharing copies of a set", works an example).
Every wallet of every board is filled by hand, so the number of copies of a set a round needs is
the director's labour. Two movements are built here:

* :func:`exchange_movement`, the default (one copy a match): each match has its own copy of the
  set, cut into runs; of each pair of runs table A plays the first while table B plays the second,
  then the two tables exchange those wallets and play the other run.
* :func:`shared_movement` (``[event] copies = N`` or ``"auto"``): ``K`` copies shared by all the
  round's tables. The set's boards are cut into ``G`` balanced groups; a *slot* is one group of
  one copy, ``L = K × G`` slots on a circle of ``L`` places, the ``T`` tables on the first ``T``
  places (in match order: 1A, 1B, 2A, …) and ``L − T`` relay stacks on the rest. In stanza ``s``
  (from 0) the place ``p`` holds slot ``(p − s) mod L``, whose group is ``(p − s) mod G`` since
  ``L`` is a multiple of ``G``: after each stanza every slot moves one place on, so each table
  plays every group once in ``G`` stanzas, never waits, and a copy of a board is at one place at
  a time. With one circle of two places a match (``K`` = matches, ``G`` = 2) this is the
  default's exchange.

:func:`check_movement` checks the rules any movement must keep (the tests run it on every
movement they build, and ``dealer round copies`` on the ones it offers).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

#: ``[event] copies``: ``None`` (one copy a match, the default), a number, or ``"auto"``.
CopiesSetting = int | Literal["auto"] | None

#: Most copies of a set the event may ask for (as ``dealer print --copies`` allows).
MAX_COPIES = 200


class MovementError(ValueError):
    """A number of copies that cannot serve the round; ``minimum`` is the fewest that can."""

    def __init__(self, copies: int, tables: int, boards: int, minimum: int) -> None:
        super().__init__(f"{copies} copies cannot serve {tables} tables with {boards} boards "
                         f"(each table would wait); at least {minimum}")
        self.copies, self.tables, self.boards, self.minimum = copies, tables, boards, minimum


@dataclass(frozen=True)
class Place:
    """Where a group of wallets is during a stanza: a table (its index in the round's tables) or
    a relay stack (its number, from 1), kept beside the tables until the next stanza."""

    kind: Literal["table", "relay"]
    index: int


@dataclass(frozen=True)
class Play:
    """What one table plays in one stanza: a group of boards of one copy, from where the wallets
    come (``None``: the first stanza, handed out by the director) and where they go after it
    (``None``: the last stanza, back to the director)."""

    stanza: int  # from 1
    group: int  # from 1
    boards: tuple[int, ...]
    copy: int  # from 1
    source: Place | None
    target: Place | None


@dataclass(frozen=True)
class TablePlan:
    """One table of the round (``key``: (match id, table), as the caller named it) and its plays
    in stanza order."""

    key: tuple[str, str]
    plays: tuple[Play, ...]

    def order(self) -> list[int]:
        """The boards in the order this table plays them."""
        return [board for play in self.plays for board in play.boards]


@dataclass(frozen=True)
class Relay:
    """A relay stack: the slot (group, copy) it holds in each stanza (``None``: empty) and where
    that slot goes after the stanza (``None``: back to the director)."""

    number: int
    holds: tuple[tuple[int, int] | None, ...]
    targets: tuple[Place | None, ...] = ()


@dataclass(frozen=True)
class Movement:
    """A round's movement on one set. ``shared``: copies shared by the round's tables
    (:func:`shared_movement`), else one copy a match (:func:`exchange_movement`)."""

    shared: bool
    copies: int
    groups: tuple[tuple[int, ...], ...]
    stanzas: int
    tables: tuple[TablePlan, ...]
    relays: tuple[Relay, ...] = field(default=())

    @property
    def boards(self) -> int:
        return sum(len(g) for g in self.groups)

    @property
    def wallets(self) -> int:
        """Wallets to fill by hand: every board of every copy."""
        return self.copies * self.boards

    def board_moves(self) -> int:
        """Wallets carried from one place to another between stanzas (to a table or a relay stack)."""
        moves = sum(len(play.boards) for t in self.tables for play in t.plays if play.target is not None)
        for relay in self.relays:
            moves += sum(len(self.groups[held[0] - 1]) for held in relay.holds[:-1] if held is not None)
        return moves

    def relay_waits(self) -> int:
        """Wallets waiting on relay stacks, summed over the stanzas."""
        return sum(len(self.groups[held[0] - 1]) for relay in self.relays for held in relay.holds
                   if held is not None)

    def table(self, key: tuple[str, str]) -> TablePlan | None:
        return next((t for t in self.tables if t.key == key), None)


def balanced_groups(boards: Sequence[int], count: int) -> list[tuple[int, ...]]:
    """``boards`` cut in order into ``count`` runs whose sizes differ by at most one (the longer first)."""
    size, longer = divmod(len(boards), count)
    groups, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < longer else 0)
        groups.append(tuple(boards[start:end]))
        start = end
    return groups


def exchange_movement(tables: Sequence[tuple[str, str]], boards: Sequence[int], runs: int = 2) -> Movement:
    """One copy a match (the default): the set cut into ``runs`` runs (an even number, at most
    the boards); of each pair of runs table A plays the first while table B plays the second,
    then they exchange the wallets and play the other. ``tables``: (match id, "A" or "B"), the
    two tables of a match together; a match's copy is its place among the matches (from 1)."""
    if runs < 2 or runs % 2:
        raise ValueError(f"runs = {runs}, expected an even number (2, 4, ...)")
    count = max(2, min(runs, len(boards) - len(boards) % 2))  # no more runs than boards
    groups = balanced_groups(boards, count)
    order = {"A": list(range(count)), "B": [i ^ 1 for i in range(count)]}  # B: each pair swapped
    matches = list(dict.fromkeys(match for match, _ in tables))
    index = {key: i for i, key in enumerate(tables)}
    plans = []
    for key in tables:
        match, table = key
        other = index.get((match, "B" if table == "A" else "A"))
        copy = matches.index(match) + 1
        plays = []
        for stanza, group in enumerate(order[table]):
            # After the first run of a pair the wallets go to the other table; after the second, the
            # next pair starts from the director.
            first_of_pair = stanza % 2 == 0
            partner = None if other is None else Place("table", other)
            plays.append(Play(stanza + 1, group + 1, groups[group], copy,
                              source=None if first_of_pair else partner,
                              target=partner if first_of_pair and stanza + 1 < count else None))
        plans.append(TablePlan(key, tuple(plays)))
    return Movement(False, len(matches), tuple(groups), count, tuple(plans))


def groups_for(copies: int, tables: int) -> int:
    """The groups ``copies`` copies are cut into so that every table holds one: ceil(tables / copies)."""
    return max(1, -(-tables // copies))


def minimum_copies(tables: int, boards: int) -> int:
    """The fewest copies that serve ``tables`` tables without waits: a group holds at least one board."""
    return max(1, -(-tables // boards))


def resolve_copies(setting: int | Literal["auto"], tables: int, boards: int) -> tuple[int, int]:
    """(copies, groups) for a number of copies or ``"auto"``. A number is the most copies to
    fill: the movement uses the fewest that give as many groups (``copies = 6`` for 20 tables
    gives 4 groups, which 5 copies serve). ``"auto"``: the fewest copies whose groups hold at
    least two boards each (one board a group when the set has fewer than four). Raises
    :class:`MovementError` (naming the minimum) when the groups would outnumber the boards."""
    if setting == "auto":
        most_groups = max(1, boards // 2)
        copies = next(k for k in range(1, tables + 1) if groups_for(k, tables) <= most_groups)
    else:
        copies = setting
    groups = groups_for(copies, tables)
    if groups > boards:
        raise MovementError(copies, tables, boards, minimum_copies(tables, boards))
    return groups_for(groups, tables), groups


def shared_movement(tables: Sequence[tuple[str, str]], boards: Sequence[int],
                    setting: int | Literal["auto"]) -> Movement:
    """Copies shared by all ``tables`` of the round (in the order given: the circle's order), the
    set's ``boards`` in balanced groups moving one place on after each stanza (the module's
    docstring); relay stacks fill the circle's places beyond the tables."""
    copies, count = resolve_copies(setting, len(tables), len(boards))
    groups = balanced_groups(boards, count)
    length = copies * count
    total = len(tables)

    def place(position: int) -> Place:
        position %= length
        return Place("table", position) if position < total else Place("relay", position - total + 1)

    def slot(position: int, stanza: int) -> tuple[int, int]:
        held = (position - stanza) % length
        return held % count, held // count  # (group, copy), from 0

    plans = []
    for position, key in enumerate(tables):
        plays = []
        for stanza in range(count):
            group, copy = slot(position, stanza)
            plays.append(Play(stanza + 1, group + 1, groups[group], copy + 1,
                              source=place(position - 1) if stanza > 0 else None,
                              target=place(position + 1) if stanza + 1 < count else None))
        plans.append(TablePlan(key, tuple(plays)))
    relays = []
    for position in range(total, length):
        holds = []
        for stanza in range(count):
            group, copy = slot(position, stanza)
            holds.append((group + 1, copy + 1))
        relays.append(Relay(position - total + 1, tuple(holds),
                            tuple(place(position + 1) if stanza + 1 < count else None for stanza in range(count))))
    return Movement(True, copies, tuple(groups), count, tuple(plans), tuple(relays))


def round_movement(tables: Sequence[tuple[str, str]], boards: Sequence[int], setting: CopiesSetting,
                   runs: int = 2) -> Movement:
    """The movement the event's ``copies`` setting asks for (``None``: :func:`exchange_movement`)."""
    if setting is None:
        return exchange_movement(tables, boards, runs)
    return shared_movement(tables, boards, setting)


@dataclass(frozen=True)
class Choice:
    """One way to serve a round: what the director fills and how the boards move."""

    setting: int | Literal["auto"] | None
    copies: int
    wallets: int
    stanzas: int
    boards_per_stanza: tuple[int, int]  # (fewest, most)
    board_moves: int
    relay_stacks: int
    relay_waits: int


def summary(setting: CopiesSetting, movement: Movement) -> Choice:
    sizes = [len(g) for g in movement.groups]
    return Choice(setting, movement.copies, movement.wallets, movement.stanzas, (min(sizes), max(sizes)),
                  movement.board_moves(), len(movement.relays), movement.relay_waits())


def choices(tables: Sequence[tuple[str, str]], boards: Sequence[int], runs: int = 2) -> list[Choice]:
    """The ways to serve a round: the default (one copy a match, its set cut into ``runs``),
    ``"auto"`` and every number of copies from the minimum to one a match that gives a distinct
    movement."""
    found = [summary(None, exchange_movement(tables, boards, runs))]
    auto = shared_movement(tables, boards, "auto")
    found.append(summary("auto", auto))
    seen: set[int] = set()
    for copies in range(minimum_copies(len(tables), len(boards)), max(1, len(tables) // 2) + 1):
        movement = shared_movement(tables, boards, copies)
        if movement.copies in seen:
            continue
        seen.add(movement.copies)
        found.append(summary(copies, movement))
    return found


def check_movement(movement: Movement, boards: Sequence[int]) -> list[str]:
    """What breaks the rules of a movement (empty: none): every table plays every board of the
    set exactly once; a copy of a board is at one place a stanza; the groups are balanced (sizes
    differ by at most one) and cut the set; no table waits more than one stanza; each group's
    moves agree (where a table's wallets go is where they are next, and they come from there)."""
    problems: list[str] = []
    wanted = sorted(boards)
    sizes = [len(g) for g in movement.groups]
    if sorted(b for g in movement.groups for b in g) != wanted:
        problems.append("the groups do not cut the set")
    if sizes and max(sizes) - min(sizes) > 1:
        problems.append(f"unbalanced groups: sizes {sizes}")
    # Where each slot (group, copy) is in each stanza, and each board's copies.
    where: dict[tuple[int, int, int], Place] = {}
    where_boards: set[tuple[int, int, int]] = set()
    for index, table in enumerate(movement.tables):
        if sorted(table.order()) != wanted:
            problems.append(f"table {table.key} does not play every board once")
        stanzas = [play.stanza for play in table.plays]
        if len(set(stanzas)) != len(stanzas) or any(s < 1 or s > movement.stanzas for s in stanzas):
            problems.append(f"table {table.key} plays twice in a stanza")
        idle = movement.stanzas - len(table.plays)
        if idle > 1:
            problems.append(f"table {table.key} waits {idle} stanzas")
        for play in table.plays:
            if movement.groups[play.group - 1] != play.boards:
                problems.append(f"table {table.key} stanza {play.stanza}: boards not those of group {play.group}")
            if not 1 <= play.copy <= movement.copies:
                problems.append(f"table {table.key} stanza {play.stanza}: no copy {play.copy}")
            for board in play.boards:
                if (board, play.copy, play.stanza) in where_boards:
                    problems.append(f"board {board} copy {play.copy} at two places in stanza {play.stanza}")
                where_boards.add((board, play.copy, play.stanza))
            where[(play.group, play.copy, play.stanza)] = Place("table", index)
    for relay in movement.relays:
        for stanza, held in enumerate(relay.holds, start=1):
            if held is None:
                continue
            for board in movement.groups[held[0] - 1]:
                if (board, held[1], stanza) in where_boards:
                    problems.append(f"board {board} copy {held[1]} at two places in stanza {stanza}")
                where_boards.add((board, held[1], stanza))
            where[(held[0], held[1], stanza)] = Place("relay", relay.number)
    for relay in movement.relays:
        for stanza, (held, target) in enumerate(zip(relay.holds, relay.targets, strict=False), start=1):
            if held is not None and target != where.get((held[0], held[1], stanza + 1)):
                problems.append(f"relay {relay.number} stanza {stanza}: sends to {target}, "
                                f"the wallets are next at {where.get((held[0], held[1], stanza + 1))}")
    for index, table in enumerate(movement.tables):
        here = Place("table", index)
        for play in table.plays:
            after = where.get((play.group, play.copy, play.stanza + 1))
            before = where.get((play.group, play.copy, play.stanza - 1))
            if play.target != after:
                problems.append(f"table {table.key} stanza {play.stanza}: sends to {play.target}, "
                                f"the wallets are next at {after}")
            if play.source != before:
                problems.append(f"table {table.key} stanza {play.stanza}: takes from {play.source}, "
                                f"the wallets were at {before}")
            if play.source is not None and play.source == here:
                problems.append(f"table {table.key} stanza {play.stanza}: takes from itself")
    return problems

