"""Page contexts: plain dicts (picklable, so pages can be rendered in worker processes).

Builders take the event, the boards and the print options, and never print a card where the
page must not show one: labels, travellers and score sheets are built from the board
*conditions* (number, declarer, level) only, never from a deal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dealer.analysis import CANDIDATES, TrumpAnalysis, analyse_hand, level_cards
from dealer.cards import KITTY, SEATS, SUITS, Card, Suit, level_rank, points_of, sort_cards
from dealer.deal import Board
from dealer.event import BoardConditions, Event, Match, Round
from dealer.formats.qr import label_payload, traveller_payload
from dealer.lineups import NO_LINEUPS, Lineups
from dealer.render.labels import LabelLayout
from dealer.render.pages import page_layout, slips_per_page
from dealer.render.rows import COLUMN_SPACE, mono_width
from dealer.render.strings import Strings
from dealer.tournament.movement import Movement, Place, Play

#: Compass order of the hand-record and curtain-card pages.
COMPASS = ("N", "W", "E", "S")
RED_SUITS = (Suit.HEARTS, Suit.DIAMONDS)


def chunked(items: Sequence[Any], size: int) -> list[list[Any]]:
    return [list(items[i:i + size]) for i in range(0, len(items), size)]


def card_text(card: Card, t: Strings) -> str:
    if card.is_joker:
        return str(t.big_joker if card.is_big_joker else t.small_joker)
    return card.display_rank


def card_classes(card: Card, level: str) -> str:
    classes = []
    if card.is_joker:
        classes.append("joker big" if card.is_big_joker else "joker small")
    elif card.rank == level_rank(level):
        classes.append("lvl")
    if card.points:
        classes.append("pt")
    return " ".join(classes)


def suit_class(suit: Suit) -> str:
    return "red" if suit in RED_SUITS else "black"


def hand_view(cards: Sequence[Card], level: str, t: Strings) -> dict[str, Any]:
    """A hand for printing: jokers, then one line per suit from A down; marks points and levels."""
    ordered = sort_cards(cards)
    lines = []
    jokers_held = [c for c in ordered if c.is_joker]
    lines.append({  # labelled, so that no jokers ("王 —") never reads as a void suit
        "symbol": str(t.jokers), "cls": "jokers",
        "cards": [{"text": card_text(c, t), "cls": card_classes(c, level)} for c in jokers_held],
    })
    for suit in SUITS:
        held = [c for c in ordered if c.suit == suit]
        lines.append({
            "symbol": suit.symbol, "cls": suit_class(suit),
            "cards": [{"text": card_text(c, t), "cls": card_classes(c, level)} for c in held],
        })
    point_cards = [c for c in ordered if c.points]
    return {
        "lines": lines,
        "lengths": [{"symbol": suit.symbol, "cls": suit_class(suit), "n": sum(1 for c in ordered if c.suit == suit)}
                    for suit in SUITS],
        "count": len(ordered),
        "points": points_of(ordered),
        "point_cards": " ".join(c.display() for c in point_cards),
    }


def _seat(seat: str, t: Strings) -> str:
    return str(t.seat[seat])


def _place(place: str, t: Strings) -> str:
    """A pocket's name: the seat, or the kitty (底牌) when it is dealt apart."""
    return str(t.kitty) if place == KITTY else _seat(place, t)


def _card_parts(card: Card, t: Strings) -> dict[str, str]:
    """A card in small print: its suit symbol (coloured) and rank, or the joker's word."""
    if card.is_joker:
        return {"sym": "", "cls": "joker big" if card.is_big_joker else "joker small", "rank": card_text(card, t)}
    assert card.suit is not None
    return {"sym": card.suit.symbol, "cls": suit_class(card.suit), "rank": card.display_rank}


def _candidate_label(trump: Suit | None, t: Strings) -> dict[str, str]:
    if trump is None:
        return {"text": str(t.no_trump_short), "cls": "nt"}
    return {"text": trump.symbol, "cls": suit_class(trump)}


def board_analysis(board: Board) -> dict[str, list[TrumpAnalysis]]:
    """Each seat's hand under every candidate trump (the same in every language)."""
    return {seat: analyse_hand(board.deal.hands[seat], board.level) for seat in SEATS}


def hand_record_board(board: Board, t: Strings, results: Sequence[dict[str, Any]] = (),
                      analysis: Mapping[str, Sequence[TrumpAnalysis]] | None = None) -> dict[str, Any]:
    """A board's hand record; ``analysis``: :func:`board_analysis`, when already made (a
    page in two languages)."""
    hands = {seat: board.deal.hands[seat] for seat in SEATS}
    if analysis is None:
        analysis = board_analysis(board)
    rows = []
    tractor_lines = []
    for index, trump in enumerate(CANDIDATES):
        cells = [{"trumps": analysis[seat][index].trumps, "pairs": analysis[seat][index].pairs,
                  "tractors": len(analysis[seat][index].tractors)} for seat in SEATS]
        sides = [{"trumps": sum(analysis[s][index].trumps for s in side),
                  "pairs": sum(analysis[s][index].pairs for s in side)} for side in (("N", "S"), ("E", "W"))]
        rows.append({"candidate": _candidate_label(trump, t), "cells": cells, "sides": sides})
        held = [{"name": _seat(seat, t),
                 "tractors": [[_card_parts(c, t) for c in tractor] for tractor in analysis[seat][index].tractors]}
                for seat in SEATS if analysis[seat][index].tractors]
        if held:
            tractor_lines.append({"candidate": _candidate_label(trump, t), "seats": held})
    seats = {}
    for seat in SEATS:
        view = hand_view(hands[seat], board.level, t)
        declare = [{"sym": suit.symbol, "cls": suit_class(suit), "text": f"{board.level}×{n}" if n > 1 else board.level}
                   for suit, n in level_cards(hands[seat], board.level).items()]
        view.update({
            "seat": seat,
            "name": _seat(seat, t),
            "is_declarer": seat == board.declarer,
            "level_cards": declare,
        })
        seats[seat] = view
    kitty = hand_view(board.deal.kitty, board.level, t) if board.deal.kitty else None
    return {
        "number": board.number,
        "declarer": board.declarer,
        "declarer_name": _seat(board.declarer, t),
        "level": board.level,
        "hands": seats,
        "kitty": kitty,
        "seat_order": list(SEATS),
        "seat_names": [_seat(s, t) for s in SEATS],
        "side_names": [str(t.ns), str(t.ew)],
        "side_points": [sum(points_of(hands[s]) for s in side) for side in (("N", "S"), ("E", "W"))],
        "analysis": rows,
        "tractor_lines": tractor_lines,
        "code": board.deal.code,
        "results": list(results),
        "dense": _dense(hands, analysis, len(tractor_lines)),
    }


#: A board holding more than this is printed in a smaller size, so that it still fits its box:
#: a suit of the middle hands (N, S: the compass's tallest column) longer than two lines, more
#: tractor pairs than the tractor list holds in its usual lines, or tractors under four or five
#: of the candidate trumps (a line each: measured, 4 lines overflowed the 2-up box by 2.7 mm in
#: 5 of 192 dealt boards, 3 lines never).
DENSE_SUIT = 16
DENSE_TRACTOR_PAIRS = 16
DENSE_TRACTOR_LINES = 4


def _dense(hands: Mapping[str, Sequence[Card]], analysis: Mapping[str, Any], tractor_lines: int) -> bool:
    longest = max(sum(1 for c in hands[seat] if c.suit == suit) for seat in ("N", "S") for suit in SUITS)
    pairs = sum(result.tractor_pairs for seat in SEATS for result in analysis[seat])
    return longest > DENSE_SUIT or pairs > DENSE_TRACTOR_PAIRS or tractor_lines >= DENSE_TRACTOR_LINES


def hand_record_pages(boards: Sequence[Board], per_page: int, t: Strings,
                      results: dict[int, list[dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
    """Pages of ``per_page`` boards; ``results`` (board → what each table played) once scored."""
    views = [hand_record_board(b, t, (results or {}).get(b.number, ())) for b in boards]
    return [{"boards": group, "per_page": per_page} for group in chunked(views, per_page)]


def pocket_count(event: Event, board: BoardConditions, place: str) -> int:
    """Cards in a pocket (a seat, or ``K`` for a kitty dealt apart), from the event's layout
    (not from the deal)."""
    if place == KITTY:
        return event.kitty
    extra = event.kitty if event.kitty_mode == "in-hand" and place == board.declarer else 0
    return event.hand + extra


POCKET_ORDER = ("E", "N", "W", "S")  # as printed on the wallet: 东 北 西 南


def pocket_places(event: Event) -> tuple[str, ...]:
    """The pockets of a wallet: 东 北 西 南, then 底牌 when the event deals the kitty apart."""
    if event.kitty_mode == "separate" and event.kitty > 0:
        return (*POCKET_ORDER, KITTY)
    return POCKET_ORDER


def label_items(
    event: Event, set_number: int, copies: int, key: bytes, inline: bool, t: Strings,
    boards: Sequence[int] | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """Wallet labels (each with its pocket labels) of every copy of every board of a set (or of
    the ``boards`` given).

    Built from the board conditions and the key only. Returns the cells and the wallet count.
    """
    cells: list[dict[str, Any]] = []
    wallets = 0
    for copy in range(1, copies + 1):
        for board in event.set_boards(set_number):
            if boards is not None and board.number not in boards:
                continue
            pockets = [
                {"kind": "pocket", "board": board.number, "set": set_number, "copy_no": copy,
                 "seat": place, "name": _place(place, t), "count": pocket_count(event, board, place),
                 "declarer": place == board.declarer}
                for place in pocket_places(event)
            ]
            wallets += 1
            cells.append({
                "kind": "wallet",
                "board": board.number,
                "set": set_number,
                "copy_no": copy,
                "copies": copies,
                "declarer": board.declarer,
                "declarer_name": _seat(board.declarer, t),
                "level": board.level,
                "payload": label_payload(key, event.id, set_number, board.number, copy),
                "pockets": pockets if inline else [],
            })
            if not inline:
                cells.extend(pockets)
    return cells, wallets


def label_pages(cells: list[dict[str, Any]], layout: LabelLayout, start_at: int = 1,
                offset_x: float = 0.0, offset_y: float = 0.0) -> list[dict[str, Any]]:
    """Sheets of labels: the first ``start_at - 1`` positions of the first sheet stay blank (a
    part-used sheet); every label carries its place on the sheet, moved by the offsets."""
    positioned = [None] * (start_at - 1) + list(cells)
    pages = []
    for group in chunked(positioned, layout.per_sheet):
        pages.append({"cells": [dict(cell, place=layout.place(position, offset_x, offset_y))
                                for position, cell in enumerate(group) if cell is not None]})
    return pages


def alignment_page(layout: LabelLayout, offset_x: float, offset_y: float) -> dict[str, Any]:
    """A test sheet: each label's outline, its safe area and a cross at its centre, where the
    printer puts them with the offsets given."""
    return {"cells": [{"kind": "outline", "number": position + 1,
                       "place": layout.place(position, offset_x, offset_y)}
                      for position in range(layout.per_sheet)],
            "offset_x": offset_x, "offset_y": offset_y}


def curtain_pages(boards: Sequence[Board], copies: int, t: Strings) -> list[dict[str, Any]]:
    """One slip per hand per board copy, in compass order, then one for the kitty when it is
    dealt apart."""
    slips = []
    for copy in range(1, copies + 1):
        for board in boards:
            places = [(seat, board.deal.hands[seat]) for seat in COMPASS]
            if board.deal.kitty:
                places.append((KITTY, board.deal.kitty))
            for place, cards in places:
                view = hand_view(cards, board.level, t)
                view.update({
                    "board": board.number, "copy_no": copy, "seat": place, "name": _place(place, t),
                    "declarer": place == board.declarer, "level": board.level,
                    "declarer_name": _seat(board.declarer, t),
                })
                slips.append(view)
    return [{"slips": group} for group in chunked(slips, slips_per_page("curtain-cards"))]


GUIDE_PLACES = ("N", "E", "S", "W", KITTY)


def pocket_check(place: str, cards: Sequence[Card], board: Board, t: Strings) -> dict[str, Any]:
    """What a pocket must hold, to check it once filled: cards, points, suit lengths, jokers and
    level cards."""
    rank = level_rank(board.level)
    return {"seat": place, "name": _place(place, t) if place else str(t.total), "declarer": place == board.declarer,
            "count": len(cards), "points": points_of(cards),
            "suits": [sum(1 for c in cards if c.suit == suit) for suit in SUITS],
            "jokers": sum(1 for c in cards if c.is_joker),
            "levels": sum(1 for c in cards if not c.is_joker and c.rank == rank)}


#: The dealing guide's grid is set in half-width characters (Latin letters and digits half as wide
#: as a Han character; every space a COLUMN_SPACE), a card's column GUIDE_COLUMN half-widths wide:
#: a suit is one block of a few text runs (its ranks line, then its pockets lines), not 13 cells
#: of boxes (WeasyPrint's time goes by the box). The stylesheet sizes the face so that 13 columns
#: fill the grid's width.
GUIDE_COLUMN = 8
GUIDE_RANKS = ("A", "K", "Q", "J", "T", "9", "8", "7", "6", "5", "4", "3", "2")


def _mono_pad(text: str, width: int) -> str:
    """``text`` and spaces to ``width`` half-widths."""
    return text + " " * max(0, width - mono_width(text))


def _guide_names_a_line(board: Board, t: Strings) -> int:
    """How many pocket names a line of a card's column holds (a space between two, a space
    either side): every copy of the card on one line when they fit, else half of them."""
    names = [str(t.seat_short[s]) for s in SEATS] + ([str(t.kitty_short)] if board.deal.kitty else [])
    widest = max(mono_width(name) for name in names)
    copies = board.deal.decks
    per_line = copies
    while per_line > 1 and per_line * widest + per_line - 1 > GUIDE_COLUMN - 2:
        per_line = -(-per_line // 2)
    return per_line


def _guide_row(suit: Suit, board: Board, holders: Mapping[Card, dict[str, int]], t: Strings,
               per_line: int) -> dict[str, Any]:
    """A suit's block of the grid: the ranks line as runs (a run of its own for a marked rank:
    points, level) and the pockets lines, each card centred in its column."""
    runs: list[dict[str, str]] = []
    plain = ""
    lines = [""] * -(-board.deal.decks // per_line)
    for rank in GUIDE_RANKS:
        card = Card.suited(suit, rank)
        names = _pockets(holders[card], t)
        chunks = [" ".join(names[i:i + per_line]) for i in range(0, len(names), per_line)]
        block = max((mono_width(chunk) for chunk in chunks), default=0)
        lead = max(0, (GUIDE_COLUMN - block) // 2)
        for number, line in enumerate(lines):
            chunk = chunks[number] if number < len(chunks) else ""
            lines[number] = line + _mono_pad(" " * lead + chunk, GUIDE_COLUMN)
        text, cls = card.display_rank, card_classes(card, board.level)
        before = lead + max(0, (block - mono_width(text)) // 2)
        after = GUIDE_COLUMN - before - mono_width(text)
        if cls:
            runs += [{"text": plain + " " * before, "cls": ""}, {"text": text, "cls": cls}]
            plain = " " * after
        else:
            plain += " " * before + text + " " * after
    runs.append({"text": plain, "cls": ""})
    return {"symbol": suit.symbol, "cls": suit_class(suit),
            "ranks": [{**run, "text": _columns(run["text"])} for run in runs if run["text"]],
            "pockets": _columns("\n".join(lines))}


def _columns(text: str) -> str:
    """The guide's grid text with its spaces a column wide (:data:`COLUMN_SPACE`)."""
    return text.replace(" ", COLUMN_SPACE)


def guide_board(board: Board, t: Strings) -> dict[str, Any]:
    holders = board.deal.holder_counts()
    per_line = _guide_names_a_line(board, t)
    rows = [_guide_row(suit, board, holders, t, per_line) for suit in SUITS]
    # A joker's cell is six columns wide: a space, its word (a run of its own), its pockets.
    joker_cells = [
        {"text": _columns(card_text(card, t)), "cls": card_classes(card, board.level),
         "rest": _columns(_mono_pad(" " + " ".join(_pockets(holders[card], t)),
                                    6 * GUIDE_COLUMN - 1 - mono_width(card_text(card, t))))}
        for card in (Card(53), Card(52))
    ]
    places = [(s, board.deal.hands[s]) for s in POCKET_ORDER]
    if board.deal.kitty:
        places.append((KITTY, board.deal.kitty))
    pockets = [pocket_check(place, cards, board, t) for place, cards in places]
    everything = [c for _, cards in places for c in cards]
    return {
        "board": board.number, "declarer_name": _seat(board.declarer, t), "level": board.level,
        "rows": rows, "jokers": joker_cells, "pockets": pockets,
        "pack": pocket_check("", everything, board, t),
        "suits": [{"symbol": suit.symbol, "cls": suit_class(suit)} for suit in SUITS],
        "kitty": bool(board.deal.kitty),
    }


def guide_pages(boards: Sequence[Board], t: Strings) -> list[dict[str, Any]]:
    per_page = int(page_layout("dealing-guide")["boards_per_page"])
    return [{"boards": group} for group in chunked([guide_board(b, t) for b in boards], per_page)]


def _pockets(counts: dict[str, int], t: Strings) -> list[str]:
    """The pocket of each copy of a card kind, as printed in the guide's grid (short names)."""
    names = []
    for place in GUIDE_PLACES:
        names.extend([str(t.kitty_short) if place == KITTY else str(t.seat_short[place])] * counts.get(place, 0))
    return names


def _teams(event: Event, match: Match, table: str) -> dict[str, str]:
    seats = match.seats(table)
    return {side: event.team(team_id).name for side, team_id in seats.items()}


def _home_side(match: Match, table: str) -> str:
    return "EW" if table == "A" else "NS"


def matches_of_set(event: Event, set_number: int) -> list[Match]:
    return [m for m in event.matches() if m.set == set_number]


def traveller_pages(event: Event, set_number: int, t: Strings,
                    boards: Sequence[int] | None = None) -> list[dict[str, Any]]:
    """One result slip per board per table of each match: a table's slip holds its own result
    only, so table B never sees table A's. Each table's slips start a page of their own when they
    fill one (the director cuts the sheets and hands each table its stack)."""
    per_page = slips_per_page("travellers")
    pages: list[dict[str, Any]] = []
    loose: list[dict[str, Any]] = []
    for match in matches_of_set(event, set_number):
        for table in ("A", "B"):
            slips = [{
                "round": match.round, "match": match.id, "board": board.number, "table": table,
                "declarer": board.declarer, "declarer_name": _seat(board.declarer, t),
                "level": board.level, "teams": _teams(event, match, table),
                "home_side": _home_side(match, table),
                "payload": traveller_payload(event.id, match.round, match.id, board.number),
            } for board in _in_playing_order(event, match, table) if boards is None or board.number in boards]
            if len(slips) >= per_page:
                pages.extend({"slips": group} for group in chunked(slips, per_page))
            else:
                loose.extend(slips)
    pages.extend({"slips": group} for group in chunked(loose, per_page))
    return pages


def _in_playing_order(event: Event, match: Match, table: str) -> list[BoardConditions]:
    """The match's boards in the order ``table`` plays them (the set's order unless the round's
    tables share copies: :meth:`dealer.event.Event.playing_order`)."""
    return [event.board(match.set, n) for n in event.playing_order(match.round, match.set, match.id, table)]


def movement(boards: Sequence[int], stanzas: int) -> dict[str, list[list[int]]]:
    """The runs of boards each table plays, in order (data: ``[table-cards]`` of pages.toml): the
    set cut into ``stanzas`` runs; of each pair of runs table A plays the first while table B plays
    the second, then they exchange the wallets and play the other one."""
    if stanzas < 2 or stanzas % 2:
        raise ValueError(f"table cards: stanzas = {stanzas}, expected an even number (2, 4, ...)")
    count = max(2, min(stanzas, len(boards) - len(boards) % 2))  # no more runs than boards
    size, longer = divmod(len(boards), count)
    runs, start = [], 0
    for index in range(count):
        end = start + size + (1 if index < longer else 0)
        runs.append(list(boards[start:end]))
        start = end
    played: dict[str, list[list[int]]] = {"A": [], "B": []}
    for first in range(0, len(runs), 2):
        pair = runs[first:first + 2]
        played["A"] += pair
        played["B"] += pair[::-1]
    return played


def match_copies(event: Event, set_number: int) -> dict[tuple[int, str], int]:
    """(round, match) → the copy of the set the match plays with: its place among the round's
    matches on that set (as the labels and curtain cards number the copies)."""
    copies: dict[tuple[int, str], int] = {}
    for rnd in event.rounds:
        for copy, match in enumerate((m for m in rnd.matches if m.set == set_number), start=1):
            copies[(rnd.number, match.id)] = copy
    return copies


def _board_run(run: Sequence[int]) -> str:
    return f"{run[0]}–{run[-1]}" if len(run) > 1 else str(run[0]) if run else "—"


def table_card_pages(event: Event, set_number: int, t: Strings, stanzas: int,
                     lineups: Lineups = NO_LINEUPS) -> list[dict[str, Any]]:
    """A card per table of each match: teams (and the pair of each at this table, when its
    line-up is recorded), the wallets' copy and the runs of boards in order, with the exchange of
    wallets between the runs (two cards a page: A above, B below). With copies shared by the
    round's tables (``[event] copies``): each stanza's group, its copy, where the wallets come
    from and where they go (:func:`shared_card_steps`)."""
    if event.copies is not None:
        return _shared_table_cards(event, set_number, t, lineups)
    copies = match_copies(event, set_number)
    numbers = [b.number for b in event.set_boards(set_number)]
    played = movement(numbers, stanzas)
    cards = []
    for match in matches_of_set(event, set_number):
        names = event.table_names(match)
        for table in ("A", "B"):
            other = "B" if table == "A" else "A"
            runs = played[table]
            steps = []
            for position, run in enumerate(runs):
                steps.append({"kind": "play", "n": position + 1, "boards": run, "range": _board_run(run)})
                if position % 2 == 0 and position + 1 < len(runs):
                    steps.append({"kind": "exchange", "give": _board_run(run), "take": _board_run(runs[position + 1]),
                                  "other": other})
            cards.append({
                "round": match.round, "match": match.id, "table": table, "copy_no": copies[(match.round, match.id)],
                "table_name": names[table], "other_name": names[other],
                "teams": _teams(event, match, table), "home_side": _home_side(match, table), "steps": steps,
                "pairs": _pairs(match, table, t, lineups), "note": None,
            })
    return [{"slips": group} for group in chunked(cards, slips_per_page("table-cards"))]



def _place_words(event: Event, rnd: Round, set_number: int, t: Strings) -> dict[tuple[str, str], str]:
    """(match id, table) → the table's name in the hall, for the round's tables on the set."""
    names = {}
    for m in rnd.matches:
        if m.set == set_number:
            for table, name in event.table_names(m).items():
                names[(m.id, table)] = name
    return names


def _moves(movement: Movement, names: Mapping[tuple[str, str], str], play: Play, t: Strings) -> tuple[str, str]:
    """Where a stanza's wallets come from and go to, worded for a table card."""
    words = t["movement"]

    def named(place: Place | None, kind: str) -> str:
        if place is None:
            return str(words[f"{kind}_director"])
        if place.kind == "relay":
            return str(words[f"{kind}_relay"]).format(n=place.index)
        return str(words[f"{kind}_table"]).format(name=names[movement.tables[place.index].key])

    return named(play.source, "take"), named(play.target, "give")


def _shared_table_cards(event: Event, set_number: int, t: Strings, lineups: Lineups) -> list[dict[str, Any]]:
    cards = []
    for rnd in event.rounds:
        if not any(m.set == set_number for m in rnd.matches):
            continue
        movement = event.movement(rnd.number, set_number)
        names = _place_words(event, rnd, set_number, t)
        for plan in movement.tables:
            match = rnd.match(plan.key[0])
            assert match is not None
            table = plan.key[1]
            steps = []
            for play in plan.plays:
                take, give = _moves(movement, names, play, t)
                steps.append({"kind": "stanza", "n": play.stanza, "boards": list(play.boards),
                              "range": _board_run(play.boards),
                              "copy_word": str(t["movement"]["copy"]).format(n=play.copy), "take": take, "give": give})
            used = sorted({play.copy for play in plan.plays})
            cards.append({
                "round": match.round, "match": match.id, "table": table, "copy_no": ", ".join(map(str, used)),
                "table_name": names[plan.key], "other_name": "",
                "teams": _teams(event, match, table), "home_side": _home_side(match, table), "steps": steps,
                "pairs": _pairs(match, table, t, lineups), "note": t["movement"]["card_note"],
            })
    return [{"slips": group} for group in chunked(cards, slips_per_page("table-cards"))]


#: Tables (and relay stacks) a page of the movement sheet holds, and stanzas side by side.
MOVEMENT_ROWS, MOVEMENT_COLUMNS = 26, 7


def movement_pages(event: Event, set_number: int, t: Strings) -> list[dict[str, Any]]:
    """The director's and caddies' movement sheet of each round on the set: a grid of tables (and
    relay stacks) by stanzas, each cell the boards played there, their copy and where they go next;
    over more pages for more tables or stanzas than a page holds."""
    words = t["movement"]
    pages = []
    for rnd in event.rounds:
        if not any(m.set == set_number for m in rnd.matches):
            continue
        movement = event.movement(rnd.number, set_number, int(page_layout("table-cards")["stanzas"]))
        names = _place_words(event, rnd, set_number, t)

        def target(place: Place | None, movement: Movement = movement,
                   names: Mapping[tuple[str, str], str] = names) -> str:
            if place is None:
                return str(words["director"])
            if place.kind == "relay":
                return str(words["relay"]).format(n=place.index)
            return names[movement.tables[place.index].key]

        rows: list[dict[str, Any]] = [{"name": names[plan.key], "relay": False,
                 "cells": [{"range": _board_run(p.boards), "copy_no": p.copy, "to": target(p.target)}
                           for p in plan.plays]} for plan in movement.tables]
        for relay in movement.relays:
            cells = []
            for stanza, held in enumerate(relay.holds, start=1):
                cells.append({"range": "—" if held is None else _board_run(movement.groups[held[0] - 1]),
                              "copy_no": None if held is None else held[1],
                              "to": target(relay.targets[stanza - 1] if relay.targets else None)})
            rows.append({"name": str(words["relay"]).format(n=relay.number), "cells": cells, "relay": True})
        head = str(words["sheet_sub"]).format(round=rnd.number, set=set_number, copies=movement.copies,
                                              wallets=movement.wallets, stanzas=movement.stanzas,
                                              moves=movement.board_moves())
        groups = " · ".join(f"{n}: {_board_run(g)}" for n, g in enumerate(movement.groups, start=1))
        stanzas = list(range(1, movement.stanzas + 1))
        for first in range(0, len(stanzas), MOVEMENT_COLUMNS):
            columns = stanzas[first:first + MOVEMENT_COLUMNS]
            for part in chunked(rows, MOVEMENT_ROWS):
                pages.append({"round": rnd.number, "head": head, "groups": groups,
                              "stanzas": [str(words["sheet_stanza"]).format(n=n) for n in columns],
                              "rows": [{**row, "cells": row["cells"][first:first + len(columns)]} for row in part]})
    return pages


def _players(event: Event, match: Match, table: str, t: Strings) -> dict[str, str]:
    """Each side's players as the event file lists them (the whole team: who sits is decided at the table)."""
    seats = match.seats(table)
    return {side: str(t.list_sep).join(event.team(team_id).players) for side, team_id in seats.items()}


def _pairs(match: Match, table: str, t: Strings, lineups: Lineups) -> dict[str, str]:
    """Each side's pair at ``table`` as its team's line-up for the round names it (``""``: its
    line-up is not recorded)."""
    return {side: str(t.list_sep).join(lineups.pair(match.round, team_id, table))
            for side, team_id in match.seats(table).items()}


#: A score sheet's head: its height with one line a side (and the line of how to enter the
#: results), the height of a further line, and about how many full-width characters a line holds
#: (9 pt over the 159 mm beside the entry QR code).
HEAD_MM, HEAD_LINE_MM, HEAD_LINE_CHARS = 35.0, 4.5, 46
#: A sheet's entry QR code and fallback code: (round, match, table) → {url, code, generation,
#: module_mm} (:meth:`dealer.render.writers.Source.sheet_entry`).
SheetEntry = Callable[[int, str, str], dict[str, Any]]


def _text_width(text: str) -> float:
    """Width in full-width characters, roughly: a Latin letter or digit is a little over half one."""
    return sum(0.6 if ch.isascii() else 1.0 for ch in text)


def score_sheet_head_mm(sides: Sequence[str]) -> float:
    """The score sheet head's fixed height (the board table starts below it on every layer): one
    more line for each side's line (team and players) that wraps."""
    extra = sum(max(0, -(-int(_text_width(line)) // HEAD_LINE_CHARS) - 1) for line in sides)
    return HEAD_MM + HEAD_LINE_MM * extra


def score_sheet_pages(event: Event, set_number: int, t: Strings, entry: SheetEntry,
                      lineups: Lineups = NO_LINEUPS) -> list[dict[str, Any]]:
    """A score sheet per table of each match; each side's players are its pair at this table
    when its line-up is recorded (``pairs``), else the whole team as the event file lists it;
    the sheet's entry QR code and fallback code (``entry``)."""
    pages = []
    for match in matches_of_set(event, set_number):
        for table in ("A", "B"):
            teams, players = _teams(event, match, table), _players(event, match, table, t)
            pairs = _pairs(match, table, t, lineups)
            lines = [f"{t.ns}{teams[side]}({t.home}) · {t.players} {pairs[side] or players[side]}"
                     for side in ("NS", "EW")]
            pages.append({
                "head_mm": score_sheet_head_mm(lines),
                "round": match.round, "match": match.id, "table": table,
                "teams": _teams(event, match, table), "home_side": _home_side(match, table),
                "players": players, "pairs": pairs,
                "home": event.team(match.home).name, "away": event.team(match.away).name,
                "boards": [{"number": b.number, "declarer_name": _seat(b.declarer, t), "level": b.level}
                           for b in _in_playing_order(event, match, table)],
                "entry": entry(match.round, match.id, table),
            })
    return pages


def _team_line(event: Event, team_id: str) -> str:
    team = event.team(team_id)
    return f"{team.id} {team.name}"


def pairings_page(event: Event, round_number: int,
                  points: Mapping[str, tuple[int, int]] | None = None) -> dict[str, Any]:
    """One round's 对阵表: each match (场) with its tables as the hall names them, home and away,
    who sits where at tables A and B (home E-W at A, N-S at B, as the scoring counts it), and the
    byes. ``points``: each team's match points and 小分 before the round (a Swiss), shown after
    its name."""
    rnd = event.round(round_number)
    assert rnd is not None

    def line(team_id: str) -> str:
        if points is None:
            return _team_line(event, team_id)
        match_points, net = points[team_id]
        return f"{_team_line(event, team_id)} ({match_points} / {net:+d})"

    matches = []
    for m in rnd.matches:
        names = event.table_names(m)
        matches.append({
            "match": m.id, "slot": m.slot, "home": line(m.home), "away": line(m.away),
            "tables": list(names.values()),
            "a_name": names.get("A"), "b_name": names.get("B"),
            "a_ns": event.team(m.away).name, "a_ew": event.team(m.home).name,
            "b_ns": event.team(m.home).name, "b_ew": event.team(m.away).name,
        })
    sets = sorted({m.set for m in rnd.matches})
    return {"round": round_number, "matches": matches, "byes": [line(t) for t in rnd.byes],
            "set": ", ".join(map(str, sets)), "slots": any(m.slot for m in rnd.matches),
            "level_tables": event.tables if event.levels else None, "points": points is not None,
            "sort_keys": [{"place": place, "team": _team_line(event, team), "key": key}
                          for place, (team, key) in enumerate(rnd.sort_keys, start=1)]}


#: Lines of the 轮次表 on one page: two rounds side by side, each a heading and a line a match.
SCHEDULE_LINES = 52


def schedule_pages(event: Event) -> list[dict[str, Any]]:
    """The whole 轮次表: every round with its matches (match, home, away, set, group) and byes, two
    rounds side by side; one page while it fits (a round robin of 8: 7 rounds of 4 matches)."""
    rounds = [{
        "round": rnd.number,
        "matches": [{"match": m.id, "home": _team_line(event, m.home), "away": _team_line(event, m.away),
                     "set": m.set, "group": chr(65 + m.group) if m.group is not None else ""}
                    for m in rnd.matches],
        "byes": [_team_line(event, t) for t in rnd.byes],
    } for rnd in event.rounds]
    pages: list[dict[str, Any]] = []
    used = SCHEDULE_LINES
    for pair in chunked(rounds, 2):
        lines = max(2 + len(r["matches"]) + (1 if r["byes"] else 0) for r in pair)
        if used + lines > SCHEDULE_LINES:
            pages.append({"rows": []})
            used = 0
        pages[-1]["rows"].append(pair)
        used += lines
    for number, page in enumerate(pages, start=1):
        page.update(page=number, pages=len(pages))
    return pages


#: A level race's table rows on one score sheet page (each row holds its table's entry QR code);
#: a match of more tables goes on over further pages.
LEVEL_ROWS_PER_PAGE = 6


def level_sheet_pages(event: Event, round_number: int, t: Strings, entry: SheetEntry,
                      lineups: Lineups = NO_LINEUPS) -> list[dict[str, Any]]:
    """A level race's score sheets: one per match of the round (over more pages when it has
    more than :data:`LEVEL_ROWS_PER_PAGE` tables), a row per table (its name in the hall, each
    side's pair there when its line-up is recorded, final levels, the last game's winner for a
    tie, games won, signatures, and the table's own entry QR code and fallback code)."""
    rnd = event.round(round_number)
    assert rnd is not None
    race = event.profile.level_race
    rule = t.level_rule_tables if race.match_winner == "tables" else t.level_rule_net
    sep = str(t.list_sep)
    pages = []
    for m in rnd.matches:
        rows = [{"name": name, "home": sep.join(lineups.pair(round_number, m.home, table)),
                 "away": sep.join(lineups.pair(round_number, m.away, table)),
                 "entry": entry(round_number, m.id, table)}
                for table, name in event.table_names(m).items()]
        parts = chunked(rows, LEVEL_ROWS_PER_PAGE)
        for number, part in enumerate(parts, start=1):
            pages.append({"round": round_number, "match": m.id, "home": _team_line(event, m.home),
                          "away": _team_line(event, m.away), "rows": part, "start": race.start, "rule": rule,
                          "page": number, "pages": len(parts)})
    return pages
