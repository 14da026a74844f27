"""The table: how many play, and which cards each player count removes so that the deal is even."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..engine.cards import parse_card
from .component import Option, RuleSystem

if TYPE_CHECKING:
    from ..engine.rules import Rules

MAX_PLAYERS_ONE_DECK = 7
MAX_PLAYERS_TWO_DECKS = 10


def _cards(*names: str) -> frozenset[int]:
    return frozenset(parse_card(n) for n in names)


_TWOS = ("2C", "2D", "2H", "2S")

#: Named removal tables, player count -> removed cards. Two players always use the full
#: deck (26 each): that is the British rules' tie-break deal between two tied players.
DECK_TABLES: dict[str, dict[int, frozenset[int]]] = {
    # the British rules (7 players: docs/rules.md): 3p no 2C; 4p full; 5p no 2C 2S; 6p no 2s; 7p no 2C 2D 2S.
    "black_maria": {
        2: frozenset(), 3: _cards("2C"), 4: frozenset(), 5: _cards("2C", "2S"),
        6: _cards(*_TWOS), 7: _cards("2C", "2D", "2S"),
    },
    # the 3-7 player rules: 3p no 2C; 5p no 2C 2D; 6p no 2s; 7p all 2s but 2H.
    "black_maria_26": {
        2: frozenset(), 3: _cards("2C"), 4: frozenset(), 5: _cards("2C", "2D"),
        6: _cards(*_TWOS), 7: _cards("2C", "2D", "2S"),
    },
    # Pagat ("Other numbers of players", method 3): 3p no 2D; 5p no 2D 2C.
    "american_hearts": {2: frozenset(), 3: _cards("2D"), 4: frozenset(), 5: _cards("2D", "2C")},
    # The full deck only divides evenly between 2 and 4 players.
    "full": {2: frozenset(), 4: frozenset()},
}


def _problem(r: Rules) -> str | None:
    from . import dealing  # the registry, which imports this module

    n = r.num_players
    top = MAX_PLAYERS_ONE_DECK if dealing(r).copies == 1 else MAX_PLAYERS_TWO_DECKS
    if not 3 <= n <= top:
        return (f"num_players={n} is not allowed; allowed: 3 to {top} (2 only for a tie-break deal; "
                f"{MAX_PLAYERS_TWO_DECKS} with decks=2)")
    table = DECK_TABLES[r.deck_table]
    if not dealing(r).full_deck and n not in table:
        return f"deck table {r.deck_table!r} does not cover {n} players; it covers {sorted(k for k in table if k >= 3)}"
    return None


SYSTEM = RuleSystem(
    name="table",
    options={
        "num_players": Option(int, 3, "the British rules 3-6, the 3-7 player rules, Pagat 3-5: players at the table"),
        "deck_table": Option(str, "black_maria", "the British rules, the 3-7 player rules, Pagat: which cards each "
                                                 "player count removes", choices=tuple(DECK_TABLES)),
    },
    problem=_problem,
)
