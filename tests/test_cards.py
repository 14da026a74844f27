"""Cards as ints ``suit * 13 + rank``, their text forms, and masks."""

from __future__ import annotations

import pytest

from bm_env.engine.cards import (
    ACE_SPADES,
    FULL_DECK,
    JACK_DIAMONDS,
    KING_SPADES,
    QUEEN_SPADES,
    SUIT_MASKS,
    TEN_DIAMONDS,
    TWO_CLUBS,
    card,
    card_pretty,
    card_str,
    cards_of,
    format_hand,
    iter_cards,
    mask_of,
    parse_card,
    rank_of,
    suit_of,
)

import kit


def test_ids_of_rules_md():
    # docs/rules.md: 2C=0, 10C=8, 10D=21, JD=22, 2H=26, AH=38, QS=49, KS=50, AS=51.
    expected = {"2C": 0, "TC": 8, "TD": 21, "JD": 22, "2H": 26, "AH": 38, "QS": 49, "KS": 50, "AS": 51}
    assert {name: parse_card(name) for name in expected} == expected
    assert (TWO_CLUBS, TEN_DIAMONDS, JACK_DIAMONDS, QUEEN_SPADES, KING_SPADES, ACE_SPADES) == (0, 21, 22, 49, 50, 51)
    assert card(10, 3) == 49 and suit_of(49) == 3 and rank_of(49) == 10


@pytest.mark.parametrize("text, cid", [
    ("QS", 49), ("qs", 49), ("Qs", 49), (" QS ", 49), ("Q♠", 49), ("q♤", 49),
    ("TH", 34), ("th", 34), ("10H", 34), ("10♥", 34), ("10♡", 34),
    ("2C", 0), ("2♣", 0), ("2♧", 0), ("AD", 25), ("A♦", 25), ("a♢", 25),
])
def test_parse_forms(text, cid):
    assert parse_card(text) == cid


@pytest.mark.parametrize("text", ["", "Q", "S", "1S", "11H", "QX", "ZS", "QSS", "10", "Q S", "♠Q"])
def test_bad_card_strings_name_the_accepted_forms(text):
    with pytest.raises(ValueError, match=r"cannot read .* as a card; accepted: rank 2-9, T or 10, J, Q, K, A"):
        parse_card(text)


@pytest.mark.parametrize("value", [49, None, 4.9, b"QS"])
def test_a_card_must_be_a_string(value):
    with pytest.raises(TypeError, match=r"a card must be given as a string, got \w+; accepted: "):
        parse_card(value)


def test_text_forms_round_trip():
    for c in range(52):
        assert parse_card(card_str(c)) == c
        assert parse_card(card_pretty(c)) == c
    assert card_str(34) == "TH" and card_pretty(34) == "10♥" and card_pretty(49) == "Q♠"


@pytest.mark.parametrize("bad", [-1, 52, "QS", 1.0])
def test_printing_rejects_non_ids(bad):
    with pytest.raises(ValueError, match=r"card id must be an int in 0\.\.51"):
        card_str(bad)


def test_masks():
    cs = [49, 0, 26, 51]
    m = mask_of(cs)
    assert cards_of(m) == [0, 26, 49, 51] == list(iter_cards(m))
    assert mask_of([]) == 0 and cards_of(0) == []
    assert cards_of(FULL_DECK) == list(range(52))
    assert [len(cards_of(s)) for s in SUIT_MASKS] == [13] * 4
    assert cards_of(SUIT_MASKS[2]) == list(range(26, 39))


@pytest.mark.parametrize("mask", [-1, -(1 << 52), -5])
def test_a_negative_mask_is_refused_not_walked_for_ever(mask):
    # A negative int has infinitely many set bits: cards_of once looped on it without end.
    with kit.within(5), pytest.raises(ValueError, match=rf"^a bit mask of cards is a whole number of at least 0, got {mask}$"):
        cards_of(mask)
    with kit.within(5), pytest.raises(ValueError, match="at least 0"):
        list(iter_cards(mask))


def test_format_hand():
    hand = [parse_card(c) for c in ("2H", "TH", "3C", "9C", "KC", "QS")]
    assert format_hand(hand) == "♠ Q  ♥ 10 2  ♣ K 9 3"
    assert format_hand(hand, symbols=False) == "C K 9 3  H T 2  S Q"
    assert format_hand([]) == ""
