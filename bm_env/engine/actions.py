"""Action ids: the 52 card ids, then the decisions that are not a card (``docs/rules.md``).

Every decision of every rule system shares one action space. Cards are ids 0..51; the
extra decisions below come after them, in one fixed place so that the engine, the
environment, the agents and the terminal game agree. A rules object only exposes the
extras it uses (:attr:`bm_env.Rules.num_actions`), so presets without them keep an
action space of exactly 52.
"""

from __future__ import annotations

from .cards import ACE_HEARTS, JACK_DIAMONDS, NUM_CARDS, QUEEN_SPADES, TEN_CLUBS, card_str

#: Turbo Hearts (Pagat): the cards that may be charged, in the order of their charge ids.
CHARGEABLE = (ACE_HEARTS, QUEEN_SPADES, JACK_DIAMONDS, TEN_CLUBS)

CHARGE_AH = NUM_CARDS  # 52: charge (expose) the A♥
CHARGE_QS = NUM_CARDS + 1  # 53: charge the Q♠
CHARGE_JD = NUM_CARDS + 2  # 54: charge the J♦
CHARGE_TC = NUM_CARDS + 3  # 55: charge the 10♣
CHARGE_DONE = NUM_CARDS + 4  # 56: finish charging (charge nothing more)
MOON_SUBTRACT = NUM_CARDS + 5  # 57: the moon shooter subtracts the total from their own score
MOON_ADD = NUM_CARDS + 6  # 58: the moon shooter adds the total to every other player
PASS_ON = NUM_CARDS + 7  # 59: optional passing: pass on, unseen, the cards passed to me

CHARGE_IDS = (CHARGE_AH, CHARGE_QS, CHARGE_JD, CHARGE_TC)
#: charge action id -> the card it charges
CHARGE_CARD = dict(zip(CHARGE_IDS, CHARGEABLE))
#: card -> its charge action id
CARD_CHARGE = dict(zip(CHARGEABLE, CHARGE_IDS))

EXTRA_NAMES = {
    CHARGE_AH: "charge AH",
    CHARGE_QS: "charge QS",
    CHARGE_JD: "charge JD",
    CHARGE_TC: "charge TC",
    CHARGE_DONE: "end charging",
    MOON_SUBTRACT: "moon: subtract",
    MOON_ADD: "moon: add to others",
    PASS_ON: "pass on unseen",
}
MAX_ACTIONS = PASS_ON + 1


def action_str(action: int) -> str:
    """Short text of an action: the card (``"QS"``) or the extra decision's name."""
    if 0 <= action < NUM_CARDS:
        return card_str(action)
    if action in EXTRA_NAMES:
        return EXTRA_NAMES[action]
    raise ValueError(f"action id must be in 0..{MAX_ACTIONS - 1}, got {action!r}")


#: Short forms a person may type for the extra decisions (the terminal game).
ALIASES = {
    "end": CHARGE_DONE, "done": CHARGE_DONE, "no charge": CHARGE_DONE,
    "subtract": MOON_SUBTRACT, "add": MOON_ADD, "add to others": MOON_ADD,
    "pass on": PASS_ON,
}


def parse_action(text: str) -> int:
    """Inverse of :func:`action_str`; also accepts the card forms of :func:`bm_env.engine.cards.parse_card`
    and the short forms of :data:`ALIASES` ("charge qs", "end", "subtract", "add", "pass on")."""
    from .cards import parse_card

    key = " ".join(text.strip().lower().split())
    for a, name in EXTRA_NAMES.items():
        if key == name.lower():
            return a
    if key in ALIASES:
        return ALIASES[key]
    if key.startswith("charge "):
        try:
            return CARD_CHARGE[parse_card(key[7:])]
        except (KeyError, ValueError):
            raise ValueError(f"cannot charge {key[7:]!r}; chargeable: AH, QS, JD, TC") from None
    try:
        return parse_card(text)
    except ValueError:
        raise ValueError(
            f"cannot read {text!r} as an action; give a card such as 'QS', one of {list(EXTRA_NAMES.values())} "
            f"or a short form {list(ALIASES)}"
        ) from None
