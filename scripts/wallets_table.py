"""Wallets to fill by hand for one round, before (one copy of the set a match) and after (copies
shared by the round's tables, issue 37), for a few round sizes: the table of docs/tournaments.md,
printed as Markdown. Each movement is checked (:func:`check_movement`) before it is counted.

    python scripts/wallets_table.py [--boards 16] [TABLES ...]
"""

from __future__ import annotations

import argparse

from dealer.tournament.movement import Movement, check_movement, minimum_copies, round_movement


def said(movement: Movement) -> str:
    relays = f", {len(movement.relays)} relay" if movement.relays else ""
    copies = f"{movement.copies} cop{'y' if movement.copies == 1 else 'ies'}"
    return f"{movement.wallets} ({copies}, {movement.stanzas} stanzas{relays})"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--boards", type=int, default=16, help="boards a set (default 16)")
    parser.add_argument("tables", type=int, nargs="*", default=[8, 12, 20, 40])
    args = parser.parse_args()
    boards = list(range(1, args.boards + 1))
    print(f"| tables ({args.boards} boards) | before: one copy a match | copies = \"auto\" | fewest copies |")
    print("| ---: | ---: | ---: | ---: |")
    for count in args.tables:
        tables = [(str(m), t) for m in range(1, count // 2 + 1) for t in ("A", "B")]
        default = round_movement(tables, boards, None)
        auto = round_movement(tables, boards, "auto")
        fewest = round_movement(tables, boards, minimum_copies(count, len(boards)))
        for movement in (default, auto, fewest):
            assert check_movement(movement, boards) == []
        print(f"| {count} | {said(default)} | {said(auto)} | {said(fewest)} |")


if __name__ == "__main__":
    main()
