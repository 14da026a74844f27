"""Cards as small ints, the convention of ``docs/rules.md``.

A card is ``suit * 13 + rank`` with suits clubs, diamonds, hearts, spades = 0..3 and
ranks 2..A = 0..12, so a hand reshapes to ``(4, 13)`` and "follow suit" is one row.
Sets of cards are Python ints used as 52-bit masks: bit ``c`` set means card ``c``
is in the set. That keeps the reference engine fast without leaving the standard
library, and the same bit layout is what the vector engine stores in ``uint64``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

NUM_CARDS = 52
NUM_SUITS = 4
NUM_RANKS = 13

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_LETTERS = "23456789TJQKA"

#: Bit mask of all 13 cards of each suit.
SUIT_MASKS = tuple(((1 << NUM_RANKS) - 1) << (NUM_RANKS * s) for s in range(NUM_SUITS))
FULL_DECK = (1 << NUM_CARDS) - 1


def card(rank: int, suit: int) -> int:
    """The id of the card of ``rank`` (0 = two .. 12 = ace) in ``suit``."""
    return suit * NUM_RANKS + rank


def suit_of(c: int) -> int:
    return c // NUM_RANKS


def rank_of(c: int) -> int:
    return c % NUM_RANKS


_SUIT_ALIASES = {**{ch: i for i, ch in enumerate(SUIT_LETTERS)}, **{ch: i for i, ch in enumerate(SUIT_SYMBOLS)}}
# Outline symbols are what many terminals and texts show for red suits.
_SUIT_ALIASES.update({"♧": CLUBS, "♢": DIAMONDS, "♡": HEARTS, "♤": SPADES})
_RANK_ALIASES = {ch: i for i, ch in enumerate(RANK_LETTERS)}
_RANK_ALIASES["10"] = RANK_LETTERS.index("T")
_RANK_ALIASES["1"] = RANK_LETTERS.index("A")  # never produced; some scorepads write aces as 1

ACCEPTED_FORMS = (
    "rank 2-9, T or 10, J, Q, K, A followed by a suit C D H S or ♣ ♦ ♥ ♠ "
    "(case does not matter), e.g. 'QS', 'th', '10h', 'Q♠'"
)


def parse_card(text: str) -> int:
    """Parse "QS", "th", "10H", "Q♠" into a card id; raise ``ValueError`` naming the accepted forms."""
    if not isinstance(text, str):
        raise TypeError(f"a card must be given as a string, got {type(text).__name__}; accepted: {ACCEPTED_FORMS}")
    s = text.strip().upper()
    if len(s) >= 2:
        rank_part, suit_part = s[:-1], s[-1]
        if rank_part in _RANK_ALIASES and rank_part != "1" and suit_part in _SUIT_ALIASES:
            return card(_RANK_ALIASES[rank_part], _SUIT_ALIASES[suit_part])
    raise ValueError(f"cannot read {text!r} as a card; accepted: {ACCEPTED_FORMS}")


def card_str(c: int) -> str:
    """ASCII form, e.g. ``"QS"``; the form records and configs use."""
    _check_id(c)
    return RANK_LETTERS[rank_of(c)] + SUIT_LETTERS[suit_of(c)]


def card_pretty(c: int) -> str:
    """Form with a suit symbol and "10" for ten, e.g. ``"Q♠"``, ``"10♥"``."""
    _check_id(c)
    r = RANK_LETTERS[rank_of(c)]
    return ("10" if r == "T" else r) + SUIT_SYMBOLS[suit_of(c)]


def _check_id(c: int) -> None:
    if not (isinstance(c, int) or hasattr(c, "__index__")) or not 0 <= int(c) < NUM_CARDS:
        raise ValueError(f"card id must be an int in 0..{NUM_CARDS - 1}, got {c!r}")


def mask_of(cards: Iterable[int]) -> int:
    """Bit mask of a collection of card ids."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def _check_mask(mask: int) -> None:
    # A negative int has infinitely many set bits: the loops below would never end on one.
    if mask < 0:
        raise ValueError(f"a bit mask of cards is a whole number of at least 0, got {mask}")


def cards_of(mask: int) -> list[int]:
    """Card ids in a bit mask, ascending (so sorted by suit, then rank); a negative mask is refused."""
    _check_mask(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def iter_cards(mask: int) -> Iterator[int]:
    """The card ids of :func:`cards_of`, one at a time."""
    _check_mask(mask)
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def format_hand(cards: Iterable[int], symbols: bool = True) -> str:
    """A hand grouped by suit, high cards first within a suit: ``"♣ K 9 3  ♥ 10 2"``."""
    by_suit: list[list[int]] = [[] for _ in range(NUM_SUITS)]
    for c in cards:
        by_suit[suit_of(c)].append(c)
    groups = []
    for s in (SPADES, HEARTS, DIAMONDS, CLUBS) if symbols else range(NUM_SUITS):
        if by_suit[s]:
            ranks = " ".join(
                ("10" if RANK_LETTERS[rank_of(c)] == "T" and symbols else RANK_LETTERS[rank_of(c)])
                for c in sorted(by_suit[s], reverse=True)
            )
            groups.append(f"{SUIT_SYMBOLS[s] if symbols else SUIT_LETTERS[s]} {ranks}")
    return "  ".join(groups)


# Named cards the rules refer to.
TWO_CLUBS = card(0, CLUBS)
TEN_CLUBS = card(8, CLUBS)
TEN_DIAMONDS = card(8, DIAMONDS)
JACK_DIAMONDS = card(9, DIAMONDS)
ACE_HEARTS = card(12, HEARTS)
QUEEN_SPADES = card(10, SPADES)
KING_SPADES = card(11, SPADES)
ACE_SPADES = card(12, SPADES)
