from __future__ import annotations

from collections import Counter

import pytest

from dealer.cards import (
    ALL_KINDS,
    BIG_JOKER,
    SEATS,
    SMALL_JOKER,
    Card,
    Deal,
    Pack,
    Suit,
    decode_deal,
    format_cards,
    parse_card,
    parse_cards,
    parse_deal,
    points_of,
)
from dealer.deal import Layout, deal_from_order


def test_every_card_round_trips_in_ascii_and_display_forms() -> None:
    for card in ALL_KINDS:
        assert parse_card(card.ascii) == card
        assert parse_card(card.display()) == card
        assert parse_card(card.ascii.lower()) == card


def test_ten_may_be_written_t_or_10() -> None:
    assert parse_card("H10") == parse_card("HT") == Card.suited(Suit.HEARTS, "T")
    assert parse_card("♥10").display() == "♥10"
    assert parse_card("HT").ascii == "HT"


def test_jokers() -> None:
    assert parse_card("BJ") == parse_card("大王") == BIG_JOKER
    assert parse_card("LJ") == parse_card("小王") == SMALL_JOKER
    assert parse_card("SJ") == Card.suited(Suit.SPADES, "J")  # spade jack, not a joker
    assert BIG_JOKER.display() == "大王" and BIG_JOKER.display("en") == "Big joker"


@pytest.mark.parametrize("bad", ["", "X5", "S1", "S11", "Z", "JK", "♠", "S 5"])
def test_bad_cards_are_rejected_with_the_text(bad: str) -> None:
    with pytest.raises(ValueError, match="not a card"):
        parse_card(bad)


def test_points_are_100_per_deck() -> None:
    for decks in range(1, 5):
        assert points_of(Pack(decks).cards()) == 100 * decks
    assert parse_card("S5").points == 5
    assert parse_card("DT").points == 10
    assert parse_card("CK").points == 10
    assert parse_card("CQ").points == 0 and BIG_JOKER.points == 0


def test_hand_notation_is_sorted_and_round_trips() -> None:
    cards = parse_cards("D2 SA 大王 HT ST LJ S5 HK")
    text = format_cards(cards)
    assert text == "BJ LJ SA ST S5 HK HT D2"
    assert Counter(parse_cards(text)) == Counter(cards)


def _some_deal(decks: int, kitty_in_hand: bool) -> Deal:
    sizes = {1: (12, 6), 2: (25, 8), 3: (39, 6), 4: (52, 8)}
    hand, kitty = sizes[decks]
    order = list(range(54 * decks))[::-1]
    order = order[1::2] + order[::2]  # any permutation will do
    return deal_from_order(order, Layout(decks, hand, kitty, kitty_in_hand), "W")


@pytest.mark.parametrize("decks", [1, 2, 3, 4])
@pytest.mark.parametrize("kitty_in_hand", [True, False])
def test_deal_notation_and_deal_code_round_trip(decks: int, kitty_in_hand: bool) -> None:
    deal = _some_deal(decks, kitty_in_hand)
    assert parse_deal(deal.format(), decks) == deal
    code = deal.code
    assert code.startswith(f"{decks}{'H' if kitty_in_hand else 'K'}")
    assert decode_deal(code) == deal
    assert decode_deal(code.lower()) == deal


def test_two_deck_code_is_two_bits_per_card() -> None:
    code = _some_deal(2, True).code
    assert len(code) == 2 + 44  # 216 bits → 27 bytes → 44 base32 characters


def test_deal_code_ignores_which_identical_copy_is_where() -> None:
    deal = _some_deal(2, True)
    same = Deal.build(2, {s: list(reversed(deal.hands[s])) for s in SEATS})
    assert same.code == deal.code


def test_a_deal_must_be_exactly_one_pack() -> None:
    deal = _some_deal(2, True)
    hands = {s: list(deal.hands[s]) for s in SEATS}
    hands["N"].append(hands["E"].pop())  # still one pack: allowed
    Deal.build(2, hands)
    hands["N"].append(parse_card("SA"))  # one card too many
    with pytest.raises(ValueError, match="not exactly one pack"):
        Deal.build(2, hands)


@pytest.mark.parametrize("bad", ["", "2X", "5HAAAA", "2HAAAA", "2H" + "A" * 44 + "!"])
def test_bad_deal_codes_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError):
        decode_deal(bad)
