"""Hand analysis: trumps include both jokers and all level cards; pairs; tractors along the ladder."""

from __future__ import annotations

from dealer.analysis import analyse, analyse_hand, is_trump, jokers, level_cards, trump_ladder
from dealer.cards import BIG_JOKER, SMALL_JOKER, Card, Suit, parse_cards


def test_trumps_include_jokers_and_every_level_card() -> None:
    hand = parse_cards("BJ LJ S7 H7 C7 D7 SA HA")
    spades = analyse(hand, "7", Suit.SPADES)
    assert spades.trumps == 7  # 2 jokers + 4 level cards + SA
    no_trump = analyse(hand, "7", None)
    assert no_trump.trumps == 6
    assert is_trump(Card.suited(Suit.DIAMONDS, "7"), "7", Suit.SPADES)
    assert not is_trump(Card.suited(Suit.HEARTS, "A"), "7", Suit.SPADES)


def test_pairs_count_identical_cards_only() -> None:
    hand = parse_cards("S7 H7 SA SA HK HK")
    result = analyse(hand, "7", Suit.SPADES)
    assert result.pairs == 1  # SA SA; S7/H7 are not a pair; HK HK is not trump
    assert analyse(hand, "7", Suit.HEARTS).pairs == 1


def test_tractor_joker_pairs_and_level_steps() -> None:
    hand = parse_cards("BJ BJ LJ LJ S7 S7 H7 H7 SA SA SK SK SQ")
    result = analyse(hand, "7", Suit.SPADES)
    # BJ BJ · LJ LJ · S7 S7 (trump level) · H7 H7 (off-suit level) · SA SA · SK SK: one long tractor
    assert result.tractors == ((BIG_JOKER, SMALL_JOKER, Card.suited(Suit.SPADES, "7"),
                                Card.suited(Suit.HEARTS, "7"), Card.suited(Suit.SPADES, "A"),
                                Card.suited(Suit.SPADES, "K")),)
    assert result.pairs == 6
    assert result.tractor_pairs == 6


def test_tractor_skips_the_level_rank_inside_the_trump_suit() -> None:
    hand = parse_cards("S8 S8 S6 S6")
    assert analyse(hand, "7", Suit.SPADES).tractors == (
        (Card.suited(Suit.SPADES, "8"), Card.suited(Suit.SPADES, "6")),
    )
    assert analyse(hand, "7", Suit.HEARTS).tractors == ()


def test_no_trump_ladder_and_broken_runs() -> None:
    assert [len(step) for step in trump_ladder("7", None)] == [1, 1, 4]
    hand = parse_cards("BJ BJ LJ D7 D7 SA SA")
    result = analyse(hand, "7", None)
    assert result.tractors == ()  # LJ single breaks BJ pair from the level pair
    assert result.pairs == 2


def test_two_off_suit_level_pairs_do_not_connect() -> None:
    hand = parse_cards("H7 H7 C7 C7")
    assert analyse(hand, "7", Suit.SPADES).tractors == ()
    assert analyse(hand, "7", Suit.SPADES).pairs == 2


def test_three_decks_triple_counts_one_pair() -> None:
    assert analyse(parse_cards("SA SA SA"), "7", Suit.SPADES).pairs == 1


def test_analyse_hand_lists_every_candidate_and_level_cards() -> None:
    hand = parse_cards("BJ LJ LJ S10 S10 HT D2")
    results = analyse_hand(hand, "10")
    assert [r.trump for r in results] == [Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS, None]
    assert level_cards(hand, "10") == {Suit.SPADES: 2, Suit.HEARTS: 1}
    assert jokers(hand) == (1, 2)
    # LJ LJ then the spade level pair: a tractor when spades are trump
    assert results[0].tractors == ((SMALL_JOKER, Card.suited(Suit.SPADES, "T")),)
    # with hearts trump the heart 10 is the top level step; the spade 10 pair is the off-suit step
    assert results[1].tractors == ()
